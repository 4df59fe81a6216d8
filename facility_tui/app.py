"""The Textual application: opens the workspace and shows the main screen."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import ClassVar

from textual.app import App
from textual.binding import Binding, BindingType
from textual.filter import LineFilter
from textual.notifications import SeverityLevel

from facility_tui.paths import default_saves
from facility_tui.screens.lines import Controls
from facility_tui.screens.main import MainScreen
from facility_tui.screens.palette import FacilityCommands, Palette
from facility_tui.text import printable
from facility_tui.workspace import Workspace


def _stylesheet() -> Path:
    # Beside the styles package's own file (an installed package is a folder: Textual reads the
    # sheet from a path), without importlib.resources and zipfile at every start-up.
    import facility_tui.styles

    return Path(facility_tui.styles.__file__).with_name("app.tcss")


CONTROLS = Controls()  # no control character reaches the terminal, whatever a widget draws


class FacilityApp(App[None]):
    """facility-tui: the GM's combat tracker."""

    CSS_PATH = _stylesheet()
    TITLE = "facility-tui"
    # ctrl+p: the palette offers the encounter's commands, its combatants and the saves (no
    # other key uses it; the palette is modal, so the keys typed in it are the palette's own).
    ENABLE_COMMAND_PALETTE = True
    COMMANDS = {FacilityCommands}
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+p", "command_palette", "Palette", show=False, priority=True, id="palette"),
    ]

    def __init__(
        self,
        save_dir: Path | None = None,
        open_file: Path | None = None,
        seed: int | None = None,
        clock: Callable[[], str] | None = None,
        demo: str | None = None,
        config: Path | None = None,
    ) -> None:
        super().__init__()
        self.clock = clock or (lambda: time.strftime("%H:%M:%S"))
        folder = save_dir if save_dir is not None else default_saves()
        if open_file is not None and save_dir is None:
            folder = open_file.resolve().parent
        self.workspace = Workspace(folder, seed)
        self.workspace.demo = demo
        self._open_file = open_file
        self._toasted = False  # a toast was shown since they were last cleared
        self._config_file = config

    def action_command_palette(self) -> None:
        """Textual's palette action, opening the palette with its page keys guarded."""
        if self.use_command_palette and not Palette.is_open(self):
            self.push_screen(Palette(id="--command-palette"))

    def binding_ids(self) -> dict[str, str]:
        """The ids a config file can remap, with their default keys."""
        own = [b for b in self.BINDINGS if isinstance(b, Binding)]
        return {
            b.id: b.key for b in [*own, *MainScreen.BINDINGS] if isinstance(b, Binding) and b.id
        }

    def _configure(self) -> tuple[str, ...]:
        """Apply the config file's keys and theme; what was wrong in it, one line each."""
        if self._config_file is None:
            return ()
        from facility_tui import config as configs  # (a launch without a config file: not read)

        defaults = self.binding_ids()
        cfg = configs.load(self._config_file, defaults, self.available_themes)
        problems = list(cfg.problems)
        keymap = dict(cfg.keymap)
        # A key another binding keeps by default would stop doing that: left out, and said so.
        taken = {
            key: bid
            for bid, keys in defaults.items()
            if bid not in keymap
            for key in keys.split(",")
        }
        for bid, keys in cfg.keymap.items():
            clash = [
                taken[k] for k in self._normalize_keymap({bid: keys})[bid].split(",") if k in taken
            ]
            if clash:
                del keymap[bid]
                problems.append(
                    f"{self._config_file}: [keys] {bid}: {keys} is already the key of {clash[0]}"
                    f" (remap {clash[0]} too, or choose another key)"
                )
        self.set_keymap(keymap)
        if cfg.theme is not None:
            self.theme = cfg.theme
        return tuple(problems)

    def notify(
        self,
        message: str,
        *,
        title: str = "",
        severity: SeverityLevel = "information",
        timeout: float | None = None,
        markup: bool = False,
    ) -> None:
        """Every toast is plain text: messages carry names, typed lines and usage strings
        (``[cover=5|10]``), which are data, never markup; control characters show escaped."""
        self._toasted = True
        super().notify(
            printable(message),
            title=printable(title),
            severity=severity,
            timeout=timeout,
            markup=False,
        )

    def get_line_filters(self) -> list[LineFilter]:
        return [*super().get_line_filters(), CONTROLS]

    def clear_toasts(self) -> None:
        """Take the toasts down (none shown: nothing to do, off the key path).

        A toast is a message to the app (``notify`` posts it), so the clearing is one too: it
        then comes after the toasts posted before it and before those posted after it. Textual's
        rack forgets only the toasts it has finished mounting, so its children go as well: in a
        burst of refused lines the one before would otherwise stay beside the newest."""
        if self._toasted:
            self._toasted = False
            self.call_later(self._take_toasts_down)

    def _take_toasts_down(self) -> None:
        self.clear_notifications()
        for rack in self.screen.query("ToastRack"):
            rack.remove_children()

    def on_mount(self) -> None:
        problems = self._configure()
        self.push_screen(MainScreen(self.workspace, self._open_file))
        for problem in problems:
            self.notify(problem, severity="warning", timeout=20)

    def on_unmount(self) -> None:
        self.workspace.close(timeout=3.0)  # whatever way the app ends, the last change is written


def config_problems(path: Path) -> tuple[str, ...]:
    """What is wrong in a config file, checked as a launch would check it (``validate``)."""
    return FacilityApp(save_dir=path.parent, config=path)._configure()


class WatchApp(App[None]):
    """``facility-tui watch``: the player view of a save opened read-only (without its lock:
    ``Workspace.open_read_only``)."""

    TITLE = "facility-tui watch"
    ENABLE_COMMAND_PALETTE = False

    def __init__(self, workspace: Workspace, clock: Callable[[], str] | None = None) -> None:
        super().__init__()
        self.workspace = workspace
        self.clock = clock or (lambda: time.strftime("%H:%M:%S"))

    def get_line_filters(self) -> list[LineFilter]:
        return [*super().get_line_filters(), CONTROLS]

    def on_mount(self) -> None:
        from facility_tui.screens.player_view import PlayerView

        self.push_screen(PlayerView(self.workspace, self.clock))
