"""The Textual application: opens the workspace and shows the main screen.

Its keys act in the order typed, however fast they come: the app takes one key at a time.

Textual reads keys in order, but hands them on two ways. A priority binding (every key of the
main screen) acts at once, as the app reads the key; any other key is posted to the focused
widget's queue (a character typed in the command line or a dialog, enter, escape...) and acts
when that widget's turn comes, then bubbles up to the app, where the bindings of the widget's
screen act. In a burst the two overtake each other: in ``d 1 ⏎ u ctrl+y`` the digits, enter and
u go to the command line, while ctrl+y (not a character: the line does not take it) redoes at once,
before the hit is typed and run; and a dialog's enter posts its Submitted, which a key typed after
it could overtake.

So once a key has been handed to a widget, the app holds the keys that follow, and takes the next
one only when that key has been handled all the way: a relay follows it up from the widget, through
each ancestor to the app, leaving each one only once it has nothing queued (the key, and whatever
the key posted there: a Submitted, a Selected). The priority keys in between wait their turn too,
and so do the keys typed after one that opens a dialog, until the dialog has its fields (its first
field takes focus once they are made: a key handed on before then went to the dialog itself).
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable
from pathlib import Path
from typing import ClassVar

from textual import events
from textual.app import App
from textual.binding import Binding, BindingType
from textual.dom import DOMNode
from textual.notifications import SeverityLevel
from textual.timer import Timer

from facility_tui.paths import default_saves
from facility_tui.screens.main import MainScreen
from facility_tui.screens.palette import FacilityCommands
from facility_tui.text import printable
from facility_tui.workspace import Workspace

RELAY_WAITS = 4  # times the relay lets a widget's queue drain before it moves up regardless
CHECK_EVERY = 0.25  # s: how often a key still away is looked at (its widget may have gone)
GIVE_UP = 2.0  # s: a relay that never came back (a bug) frees the keys after this long


class OrderedKeys(App[None]):
    """An app whose keys act in the order typed (see the module's docstring)."""

    def __init__(self) -> None:
        super().__init__()
        self._held: deque[events.Key] = deque()  # keys read, not taken yet
        self._away: DOMNode | None = None  # where the key being handled was handed
        self._away_since = 0.0
        self._relay = 0  # number of the key away (a late relay of an earlier one is ignored)
        self._check: Timer | None = None

    @property
    def keys_waiting(self) -> bool:
        """Whether a key is still being handled, or held behind one that is."""
        return self._away is not None or bool(self._held)

    async def on_event(self, event: events.Event) -> None:
        if isinstance(event, events.Key) and not event.is_forwarded:
            self._held.append(event)
            await self._take_keys()
        else:
            await super().on_event(event)

    async def _take_keys(self) -> None:
        while self._away is None and self._held:
            if not self.screen.is_mounted:  # a dialog just opened: its fields come first
                self._hand_off(self.screen)
                return
            event = self._held.popleft()
            await super().on_event(event)  # a priority binding acts, or the key is handed on
            if event.is_forwarded:  # (handed to the focused widget, or to the screen)
                self._hand_off(self.focused or self.screen)

    def _hand_off(self, node: DOMNode) -> None:
        self._relay += 1
        self._away, self._away_since = node, time.monotonic()
        if self._check is None:
            self._check = self.set_interval(CHECK_EVERY, self._look_away, name="key order")
        else:
            self._check.resume()
        self._pass(node, self._relay, 0)

    def _pass(self, node: DOMNode, relay: int, waits: int) -> None:
        """The relay goes into ``node``'s queue, behind the key (the app's: the key is done)."""
        if not node.call_later(self._follow, node, relay, waits):  # (closing: it is done there)
            self.call_later(self._done, relay)

    async def _follow(self, node: DOMNode, relay: int, waits: int) -> None:
        """In ``node``'s turn: the key has been handled here; up to the parent once nothing the
        key posted here is still queued."""
        if node is self:
            await self._done(relay)
        elif node.message_queue_size and waits < RELAY_WAITS:
            self._pass(node, relay, waits + 1)
        else:
            self._pass(node.parent or self, relay, 0)

    async def _done(self, relay: int) -> None:
        if relay == self._relay and self._away is not None:
            self._away = None
            if self._check is not None:
                self._check.pause()
            await self._take_keys()

    async def _look_away(self) -> None:
        """A relay is lost with the widget it was in (a dialog closed under it): the keys go on."""
        node = self._away
        if node is None:
            return
        gone = not node.is_attached or not all(
            each.is_parent_active for each in node.ancestors_with_self if each is not self
        )
        if gone or time.monotonic() - self._away_since > GIVE_UP:
            await self._done(self._relay)


def _stylesheet() -> Path:
    # Beside the styles package's own file (an installed package is a folder: Textual reads the
    # sheet from a path), without importlib.resources and zipfile at every start-up.
    import facility_tui.styles

    return Path(facility_tui.styles.__file__).with_name("app.tcss")


class FacilityApp(OrderedKeys):
    """facility-tui: the GM's combat tracker (its keys act in the order typed: ``OrderedKeys``)."""

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

    def on_mount(self) -> None:
        from facility_tui.screens.player_view import PlayerView

        self.push_screen(PlayerView(self.workspace, self.clock))
