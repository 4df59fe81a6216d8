"""The Textual application: opens the workspace and shows the main screen.

Its keys act in the order typed, however fast they come: the app takes one key at a time.

Textual reads keys in order, but hands them on two ways. A priority binding (every key of the
main screen) acts at once, as the app reads the key; any other key is posted to the focused
widget's queue (a character typed in the command line or a dialog, enter, escape...) and acts
when that widget's turn comes, then bubbles up to the app, where the bindings of the widget's
screen act. In a burst the two overtake each other: in ``d 1 ⏎ u ctrl+y`` the digits, enter and
u go to the command line, while ctrl+y (not a character: the line does not take it) redoes at once,
before the hit is typed and run. What a key sets off is posted too: a dialog's enter posts its
Submitted, a new dialog makes its fields (and focuses the first) in its own turn, a field left by
tab posts its Blur; a key typed after could overtake those.

So the app takes a key only once the one before has been handled, and all it set off: no widget
of the open screens has anything queued, nor the app. Until then it holds the keys it reads, and
looks again behind what is queued at the first widget still busy, then behind the app's queue. A
key with nothing before it is taken at once.
"""

from __future__ import annotations

import os
import re
import time
from collections import deque
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import ClassVar

from rich.cells import cell_len
from textual import events
from textual.app import App
from textual.binding import Binding, BindingType
from textual.dom import DOMNode
from textual.filter import LineFilter
from textual.notifications import SeverityLevel
from textual.timer import Timer

from facility_tui.campaign.paths import default_saves
from facility_tui.model.text import printable
from facility_tui.screens.main import MainScreen
from facility_tui.screens.palette import FacilityCommands, Palette
from facility_tui.screens.render.lines import Controls
from facility_tui.screens.widgets.status_pane import path_within
from facility_tui.workspace import Workspace

SETTLE_ROUNDS = 32  # looks before a key is taken anyway (a widget that never stops posting)
CHECK_EVERY = 0.25  # s: how often a wait for the keys' turn is looked at
GIVE_UP = 2.0  # s: a look that never came back (a bug) lets the keys go on after this long


class OrderedKeys(App[None]):
    """An app whose keys act in the order typed (see the module's docstring)."""

    def __init__(self) -> None:
        super().__init__()
        self._held: deque[events.Key] = deque()  # keys read, not taken yet
        self._wait = 0  # the number of the wait in progress for the next key's turn (0: none)
        self._waits = 0
        self._looked_at = 0.0  # when the wait last moved
        self._watch: Timer | None = None

    @property
    def keys_waiting(self) -> bool:
        """Whether keys are held behind the work of the ones before them."""
        return bool(self._held)

    def busy(self) -> DOMNode | None:
        """The first widget (or screen) with something queued, if any (the app: its own)."""
        for screen in self.screen_stack:
            for node in screen.walk_children(with_self=True):
                if _queued(node):
                    return node
        return self if _queued(self) else None

    async def on_event(self, event: events.Event) -> None:
        if isinstance(event, events.Key) and not event.is_forwarded:
            self._held.extend(self._unchorded(event))
            if not self._wait:
                await self._take_keys(0, 0)
        else:
            await super().on_event(event)

    def _unchorded(self, key: events.Key) -> tuple[events.Key, ...]:
        """A terminal sends escape and a key typed within its escape delay (Textual's
        ``ESCAPE_DELAY``: a hurried GM's ``esc n``, ``esc u``) as one key, alt+n, which would type
        "n" into the line being left, or do nothing. It is taken as the two keys it was, unless a
        binding of the screen is that alt key (a config file may map one)."""
        name, char = key.key, key.character
        if (
            not name.startswith("alt+")
            or char is None
            or len(char) != 1
            or not char.isprintable()
            or name in self.screen.active_bindings
        ):
            return (key,)
        plain = name.removeprefix("alt+")
        if plain.startswith("shift+"):
            plain = char  # (a capital's key is the letter itself: K, not shift+k)
        return events.Key("escape", "\x1b"), events.Key(plain, char)

    async def _take_keys(self, wait: int, rounds: int) -> None:
        """In the app's turn: take the next key held once the work of the one before is done (a
        key with nothing before it is taken at once), and look for the next in a later turn."""
        if wait != self._wait:
            return  # (given up on: see ``_look``)
        self._wait = 0
        if self._held:
            busy = self.busy()
            if busy is not None and rounds < SETTLE_ROUNDS:
                self._wait_behind(busy, rounds + 1)
                return
            await super().on_event(self._held.popleft())  # a binding acts, or it is handed on
        if self._held:  # (what the key set off may not be queued yet: ``call_next``)
            self._wait_behind(self, 0)
        elif self._watch is not None:
            self._watch.pause()

    def _wait_behind(self, busy: DOMNode, rounds: int) -> None:
        """Look again behind what is queued at ``busy``, then behind what is queued at the app."""
        self._waits += 1
        self._wait, self._looked_at = self._waits, time.monotonic()
        if self._watch is None:
            self._watch = self.set_interval(CHECK_EVERY, self._look, name="key order")
        else:
            self._watch.resume()
        again = (self._take_keys, self._wait, rounds)
        if busy is self or not busy.call_later(self.call_later, *again):
            self.call_later(*again)

    async def _look(self) -> None:
        """A look lost (a widget closed under it, a bug): the keys go on after a while."""
        if self._wait and time.monotonic() - self._looked_at > GIVE_UP:
            await self._take_keys(self._wait, SETTLE_ROUNDS)


def _queued(node: DOMNode) -> bool:
    # (a pump takes the message after the one it runs off its queue, to see whether the two
    # combine: that one is still to run)
    return bool(node.message_queue_size or node._pending_message is not None)


def _stylesheet() -> Path:
    # Beside the styles package's own file (an installed package is a folder: Textual reads the
    # sheet from a path), without importlib.resources and zipfile at every start-up.
    import facility_tui.styles

    return Path(facility_tui.styles.__file__).with_name("app.tcss")


CONTROLS = Controls()  # no control character reaches the terminal, whatever a widget draws


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

    def action_command_palette(self) -> None:
        """Textual's palette action, opening the palette with its page keys guarded."""
        if self.use_command_palette and not Palette.is_open(self):
            self.push_screen(Palette(id="--command-palette"))

    def action_timeline(self) -> None:
        """``T`` on the main screen (its binding, remappable by its id): the timeline."""
        from facility_tui.screens.timeline import open_timeline

        if isinstance(self.screen, MainScreen):
            open_timeline(self.screen)

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
        from facility_tui import config as configs  # a launch without a config file: not read

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
        (``[cover=5|10]``), which are data, never markup; control characters show escaped. A
        path too long for a toast's line is shortened from the front (``…/saves/deck.md``),
        never broken across lines."""
        self._toasted = True
        super().notify(
            paths_within(printable(message), TOAST_ROOM),
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
        # (a child of the screen, where Textual places it: no walk through the whole screen)
        for rack in self.screen.query_children("ToastRack"):
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


# The cells of a toast's line: its width in styles/app.tcss (38), less its border and padding.
TOAST_ROOM = 35
_PATH = re.compile(r"[^\s/]*/\S*")  # a word with a slash in it: a file's path


def paths_within(message: str, room: int) -> str:
    """``message`` with each path in it that a line of ``room`` cells cannot hold said from
    here or from home (``saves/deck.md``, ``~/...``), then shortened from the front
    (``…/saves/deck.md``, ``path_within``); an address (``http://...``) is left whole."""
    here, home = f"{Path.cwd()}/", f"{Path.home()}/"

    def fitted(found: re.Match[str]) -> str:
        word = found.group()
        if cell_len(word) <= room or "://" in word:
            return word
        if word.startswith(here):
            word = word.removeprefix(here)
        elif word.startswith(home):
            word = "~/" + word.removeprefix(home)
        return str(path_within(word, room))  # (the screens read as Any here)

    return _PATH.sub(fitted, message) if "/" in message else message


class WatchApp(App[None]):
    """``facility-tui watch``: the player view of a save opened read-only (without its lock:
    ``Workspace.open_read_only``)."""

    TITLE = "facility-tui watch"
    ENABLE_COMMAND_PALETTE = False

    def __init__(
        self, workspace: Workspace, clock: Callable[[], str] | None = None, served: bool = False
    ) -> None:
        super().__init__()
        self.workspace = workspace
        self.clock = clock or (lambda: time.strftime("%H:%M:%S"))
        self.served = served  # (a browser's viewer under ``serve``: it ends with its server)

    def get_line_filters(self) -> list[LineFilter]:
        return [*super().get_line_filters(), CONTROLS]

    def on_mount(self) -> None:
        from facility_tui.screens.player_view import PlayerView

        self.push_screen(PlayerView(self.workspace, self.clock))
        if self.served:
            self.set_interval(1.0, partial(self._end_with, os.getppid()))

    def _end_with(self, server: int) -> None:
        if os.getppid() != server:  # (the server is gone: no browser can see this any more)
            self.exit()
