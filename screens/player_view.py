"""The player view (``facility-tui watch``): the order as the table may see it, large and plain.

It reads the save and never writes it, nor takes its lock: the GM's tracker (or ``apply``) keeps
writing while it runs, and every half second it looks (one ``stat``) whether the save was
written, and shows the new state. Only what players may see is shown (``report.visible``,
``report.public_state``): no combatant marked hidden, no hidden note, no exact damage or wounds,
no log. ``q`` quits; no other key does anything. A tracker showing a save read-only (another
window writes it) opens it from the palette ("Player view").
"""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar

from rich.cells import cell_len
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, VerticalScroll
from textual.screen import Screen
from textual.widgets import Digits, Static

from facility_tui.model import Encounter, Phase
from facility_tui.report import public_state, slot_text, visible
from facility_tui.systems import rules_for
from facility_tui.text import printable
from facility_tui.workspace import Workspace

from .detail_pane import side_label
from .order_list import short_side

FOLLOW_EVERY = 0.5  # seconds between looks at the save (a stat each when it was not written)
NAME_CELLS = 26  # the Name column's width: a longer name is shortened
MIN_NAME_CELLS = 8  # narrower, names shorten to this and no less
SIDE_CELLS = 6  # the Side column's: PC, Enemy
SHORT_SIDE_CELLS = 2  # narrow: PC, EN


def in_cells(text: str, width: int) -> str:
    """``text`` in exactly ``width`` terminal cells (a wide character takes two): padded, or
    cut in the middle, its end kept (the number that tells "Drone 12" from "Drone 13")."""
    if cell_len(text) > width:
        tail, used = len(text), 0
        while tail > 0 and used + cell_len(text[tail - 1]) <= width // 3:
            tail -= 1
            used += cell_len(text[tail])
        head = 0
        while used + 1 + cell_len(text[head]) <= width:  # (1: the ellipsis)
            used += cell_len(text[head])
            head += 1
        text = f"{text[:head]}…{text[tail:]}"
    return text + " " * (width - cell_len(text))


def turn_text(enc: Encounter) -> Text:
    """Now and next, large: the acting name in capitals on a bar of its own."""
    out = Text()
    if enc.phase is Phase.SETUP:
        out.append("Not started yet", style="bold")
        return out
    if enc.phase is Phase.ENDED:
        out.append(f"Combat over after round {enc.round}", style="bold")
        return out
    out.append(" NOW ", style="bold reverse")
    out.append(f"  {printable(slot_text(enc, enc.current, public=True)).upper()}\n\n", style="bold")
    out.append(" next ", style="reverse")
    out.append(f"  {printable(slot_text(enc, enc.upcoming, public=True))}")
    return out


def columns_for(width: int, state_cells: int) -> tuple[int, int]:
    """The name's and the side's cells on a row ``width`` cells wide (0: any) whose state words
    take up to ``state_cells``: the names give way first, then the side shortens (``EN``), so
    that a state word stays on its row beside its name (a phone held upright: ~40 cells)."""
    if not width:
        return NAME_CELLS, SIDE_CELLS
    for side in (SIDE_CELLS, SHORT_SIDE_CELLS):
        name = width - len("▶  ") - side - 1 - state_cells  # (mark, and a space after each)
        if name >= MIN_NAME_CELLS:
            return min(NAME_CELLS, name), side
    return MIN_NAME_CELLS, SHORT_SIDE_CELLS


def rows_text(enc: Encounter, height: int = 0, width: int = 0) -> Text:
    """One row per combatant players may see: who acts, name, side, state, conditions, note;
    a blank line between rows while they fit in ``height`` lines that way; the columns fit in
    ``width`` (``columns_for``), conditions and notes wrap below."""
    out = Text()
    people = visible(enc)
    acting = enc.current
    states = [public_state(enc, c) for c in people]
    name_cells, side_cells = columns_for(
        width, max((cell_len(printable(p.state)) for p in states), default=0)
    )
    for c, p in zip(people, states, strict=True):
        now = acting is not None and acting in (c.id, c.side)
        side = side_label(c.side) if side_cells == SIDE_CELLS else short_side(c.side)
        out.append("▶ " if now else "  ", style="bold")
        out.append(in_cells(printable(c.name), name_cells) + " ", style="bold" if now else "")
        out.append(in_cells(side, side_cells) + " ", style="dim")
        out.append(printable(p.state), style="bold red" if p.fallen else "bold")
        if p.conditions:
            out.append(" · " + printable(", ".join(p.conditions)), style="yellow")
        if c.notes and not c.notes_hidden:
            out.append(f"  — {printable(c.notes)}", style="italic")
        out.append("\n\n" if 2 * len(people) <= height else "\n")
    if not people:
        out.append("No one to show yet.", style="dim")
    return out


class PlayerView(Screen[None]):
    """What the table sees of the fight in ``ws`` (opened read-only), following its save."""

    DEFAULT_CSS = """
    PlayerView { padding: 0 1; }
    PlayerView #pv-title {
        height: 1; text-style: bold; text-wrap: nowrap; text-overflow: ellipsis;
    }
    PlayerView #pv-top { height: 5; margin-top: 1; }
    PlayerView #pv-round-box { width: auto; min-width: 12; }
    PlayerView #pv-round-label { width: auto; color: $text-muted; }
    PlayerView Digits { width: auto; }
    PlayerView #pv-turn { margin-left: 3; width: 1fr; text-wrap: nowrap; text-overflow: ellipsis; }
    PlayerView #pv-list { height: 1fr; margin-top: 1; border-top: solid $primary; }
    PlayerView #pv-foot {
        dock: bottom; height: 1; color: $text-muted; text-wrap: nowrap; text-overflow: ellipsis;
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("q", "quit", "Quit", priority=True, id="quit"),
    ]

    def __init__(self, ws: Workspace, clock: Callable[[], str]) -> None:
        super().__init__()
        self.ws = ws
        self.clock = clock
        self._read_at = clock()
        self._shown: Encounter | None = None

    def compose(self) -> ComposeResult:
        yield Static(id="pv-title")
        with Horizontal(id="pv-top"):
            with VerticalScroll(id="pv-round-box"):
                yield Static("ROUND", id="pv-round-label")
                yield Digits("0", id="pv-round")
            yield Static(id="pv-turn")
        with VerticalScroll(id="pv-list"):
            yield Static(id="pv-rows")
        yield Static(id="pv-foot")

    def on_mount(self) -> None:
        self.show()
        self.set_interval(FOLLOW_EVERY, self.follow)

    def on_resize(self) -> None:
        self.call_after_refresh(self.show)  # (the list's height is known after the layout)

    def follow(self) -> None:
        """Show the save again if its writer saved it since it was last read (here, or by the
        read-only tracker screen under this one)."""
        if self.ws.reload_if_changed() or self.ws.encounter is not self._shown:
            self._read_at = self.clock()
            self.show()

    def show(self) -> None:
        enc = self._shown = self.ws.encounter
        title = Text(printable(enc.name), style="bold")
        title.append(f" · {rules_for(enc.system).title} rules", style="dim")
        self.query_one("#pv-title", Static).update(title)
        self.query_one("#pv-round", Digits).update(str(enc.round))
        self.query_one("#pv-turn", Static).update(turn_text(enc))
        rows = self.query_one("#pv-list")
        room = rows.scrollable_content_region
        self.query_one("#pv-rows", Static).update(rows_text(enc, room.height, room.width))
        foot = f"player view · read-only · {printable(self.ws.path.name)} read {self._read_at}"
        self.query_one("#pv-foot", Static).update(Text(f"{foot} · q quits"))

    def action_quit(self) -> None:
        self.app.exit()
