"""The status line: whose turn it is, and which fight is shown, from where, and how it was saved.

Its reactives ``encounter``, ``save_state``, ``path`` and ``read_only`` follow the screen's (the
screen's watchers set them); it renders when one of them is another object than the ones it last
rendered from (a turn, a save), and the ``TextPane`` under it repaints only the line that
changed.
"""

from __future__ import annotations

import time
from pathlib import Path

from rich.cells import cell_len
from rich.text import Text
from textual import events
from textual.reactive import Reactive

from facility_tui.commands.rounds import ahead_text
from facility_tui.model.encounter import Encounter, Phase
from facility_tui.model.text import printable
from facility_tui.report import status_line
from facility_tui.systems import rules_for

from ..render.text_pane import TextPane

PATH_LEAST = 12  # cells the save's path keeps before the encounter's name gives way


def shown_path(path: Path) -> str:
    """The save path as the GM reads it: relative to here, or with ~ for home."""
    try:
        return str(path.resolve().relative_to(Path.cwd()))
    except ValueError:
        pass
    try:
        return "~/" + str(path.resolve().relative_to(Path.home()))
    except ValueError:
        return str(path)


def path_within(shown: str, room: int) -> str:
    """``shown`` in at most ``room`` cells: whole if it fits, else its last folders given up
    from the front (``…/saves/deck.toml``), the file's own name kept as long as it can be."""
    if cell_len(shown) <= room:
        return shown
    parts = shown.split("/")
    for first in range(1, len(parts)):
        tail = "…/" + "/".join(parts[first:])
        if cell_len(tail) <= room:
            return tail
    name = parts[-1]
    while name and cell_len("…" + name) > room:
        name = name[1:]
    return "…" + name if room > 0 else ""


def _cut(text: str, room: int) -> str:
    """``text`` in at most ``room`` cells: whole, or its start and an ellipsis."""
    if cell_len(text) <= room:
        return text
    while text and cell_len(text) > room - 1:
        text = text[:-1]
    return text.rstrip() + "…"


def written(when: float) -> str:
    """A save's time as the header says it: the time if it is today's, else the date too."""
    at = time.localtime(when)
    if at[:3] == time.localtime()[:3]:
        return time.strftime("%H:%M:%S", at)
    return time.strftime("%Y-%m-%d %H:%M", at)


class StatusPane(TextPane):
    encounter: Reactive[Encounter | None] = Reactive(
        None, repaint=False, always_update=True, compute=False
    )
    save_state: Reactive[str] = Reactive("", repaint=False, compute=False)
    path: Reactive[Path | None] = Reactive(None, repaint=False, compute=False)
    read_only: Reactive[bool] = Reactive(False, repaint=False, compute=False)

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self._rendered: tuple[object, ...] | None = None  # what the text was made from
        self._path_shown: tuple[Path, str] | None = None

    def watch_encounter(self) -> None:
        self._show_status()

    def watch_save_state(self) -> None:
        self._show_status()

    def watch_path(self) -> None:
        self._show_status()

    def watch_read_only(self) -> None:
        self._show_status()

    def _show_status(self) -> None:
        enc, path = self.encounter, self.path
        if enc is None or path is None:
            return
        inputs = (enc, self.save_state, path, self.read_only)
        if self._rendered is not None and all(
            a is b for a, b in zip(inputs, self._rendered, strict=True)
        ):
            return
        self._rendered = inputs
        rules = rules_for(enc.system)
        if enc.phase is Phase.ACTIVE and enc.current is not None:
            turn = Text.assemble(
                (f"Round {enc.round}", "bold"),
                " · turn: ",
                (printable(rules.turns.slot_name(enc, enc.current)), "bold green"),
                " · next: ",
            )
            turn.append(printable(ahead_text(enc, rules, self.size.width - turn.cell_len)))
        else:
            turn = Text(printable(status_line(enc)), style="bold")
        saved = self.save_state or "not saved yet"
        # When the line is short of room, the path gives way, then the encounter's name (cut at
        # its end, marked …), never when the fight was saved.
        title = f" [{rules.title}]  "
        flag = "READ-ONLY " if self.read_only else ""
        name = printable(enc.name)
        width = self.size.width
        if width:  # (the path shortened first, to PATH_LEAST cells)
            name = _cut(name, max(width - cell_len(f"{flag}{title} · {saved}") - PATH_LEAST, 8))
        where = Text.assemble((flag, "bold reverse"), (name, "bold"), title)
        room = width - where.cell_len - cell_len(f" · {saved}")
        shown = printable(self._shown_path(path))
        if width:
            shown = path_within(shown, max(room, PATH_LEAST))
        where.append(f"{shown} · {saved}", "dim")
        for line in (turn, where):
            line.no_wrap, line.overflow = True, "ellipsis"  # two lines, each cut to the width
        self.show_lines((turn, where))

    def on_resize(self, event: events.Resize) -> None:
        self._rendered = None  # the path's room changed
        self._show_status()

    def _shown_path(self, path: Path) -> str:
        if self._path_shown is None or self._path_shown[0] != path:
            self._path_shown = (path, shown_path(path))  # resolve() costs file-system calls
        return self._path_shown[1]
