"""The player view (``facility-tui watch``): the order as the table may see it, large and plain.

It reads the save and never writes it, nor takes its lock: the GM's tracker (or ``apply``) keeps
writing while it runs, and every half second it looks (one ``stat``) whether the save was
written, and shows the new state. Only what players may see is shown (``report.visible``,
``report.public_state``): no combatant marked hidden, no hidden note, no exact damage or wounds,
no log. Each combatant is one line from 30 columns up, a phone's width (``columns_for``,
``state_cell``), and the round is drawn in block digits that a browser's terminal draws as
such (``big_number``). ``q`` quits; no other key does anything. A tracker showing a save
read-only (another window writes it) opens it from the palette ("Player view").
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, ClassVar

from rich.cells import cell_len, chop_cells
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, VerticalScroll
from textual.screen import Screen
from textual.widgets import Static

from facility_tui.model.encounter import Encounter, Phase
from facility_tui.model.text import printable
from facility_tui.model.view import Public
from facility_tui.report import public_state, slot_text, visible
from facility_tui.systems import rules_for
from facility_tui.workspace import Workspace

from .widgets.detail_pane import side_label
from .widgets.order_list import short_side

if TYPE_CHECKING:
    from .main import MainScreen

FOLLOW_EVERY = 0.5  # seconds between looks at the save (a stat each when it was not written)
NAME_CELLS = 26  # the Name column's width: a longer name is shortened
MIN_NAME_CELLS = 10  # narrower, names shorten to this and no less
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


SHORT_LETTERS = 3  # a state word in its first letters: "Moderate" as "Mod."
NOTE_INDENT = 4  # a note's lines start under the name, a little in

# The round in large digits of block elements, three cells wide and five half-cells high: a
# browser's terminal draws these as filled cells whatever its font, where the box-drawing lines
# of Textual's ``Digits`` read as brackets (its 1 as "]"). Each digit's rows, "#" lit.
GLYPHS = {
    "0": ("###", "#.#", "#.#", "#.#", "###"),
    "1": (".#.", "##.", ".#.", ".#.", "###"),
    "2": ("###", "..#", "###", "#..", "###"),
    "3": ("###", "..#", "###", "..#", "###"),
    "4": ("#.#", "#.#", "###", "..#", "..#"),
    "5": ("###", "#..", "###", "..#", "###"),
    "6": ("###", "#..", "###", "#.#", "###"),
    "7": ("###", "..#", "..#", "..#", "..#"),
    "8": ("###", "#.#", "###", "#.#", "###"),
    "9": ("###", "#.#", "###", "..#", "###"),
}
HALVES = {(False, False): " ", (True, False): "▀", (False, True): "▄", (True, True): "█"}


def big_number(number: int) -> str:
    """``number`` in large digits (``GLYPHS``), three lines, a blank cell between digits: two
    rows of a glyph to a line (a blank sixth row under the fifth), the upper one as the cell's
    upper half."""
    lines = []
    for top in (0, 2, 4):
        cells = []
        for digit in str(number):
            upper, lower = (*GLYPHS[digit], "...")[top : top + 2]
            pairs = zip(upper, lower, strict=True)
            cells.append("".join(HALVES[a == "#", b == "#"] for a, b in pairs))
        lines.append(" ".join(cells))
    return "\n".join(lines)


def first_letters(state: str) -> str:
    """``state``, each word longer than ``SHORT_LETTERS`` + 1 letters cut to its first letters and
    a point (``Moderate`` as ``Mod.``, ``dead`` whole): its narrowest form, never cut unmarked."""
    return " ".join(
        word if len(word) <= SHORT_LETTERS + 1 else f"{word[:SHORT_LETTERS]}."
        for word in state.split(" ")
    )


def columns_for(width: int, words: Iterable[str]) -> tuple[int, int, bool]:
    """The name's and the side's cells on a row ``width`` cells wide (0: any), and whether the
    state words go in their first letters, so that each row stays on one line with room for
    the widest of ``words`` (the rules' state words: what the states are now does not move the
    columns). The names give way first, then the side shortens (``EN``), then the state words
    go to their first letters (a phone held upright: ~40 cells; at 30 the words stay whole)."""
    if not width:
        return NAME_CELLS, SIDE_CELLS, False
    words = list(words)
    for letters in (False, True):
        room = max((cell_len(first_letters(w) if letters else w) for w in words), default=0)
        for side in (SIDE_CELLS, SHORT_SIDE_CELLS):
            name = width - len("▶  ") - side - 1 - room  # (mark, and a space after each)
            if name >= MIN_NAME_CELLS:
                return min(NAME_CELLS, name), side, letters
    return MIN_NAME_CELLS, SHORT_SIDE_CELLS, True


def state_cell(p: Public, room: int | None, letters: bool) -> Text:
    """A row's state in ``room`` cells (``None``: any), the longest form that fits: the state
    word with its conditions (``dying · unconscious, prone``), the word alone, its first letters
    (all of them in first letters when ``letters``). Shortened, never wrapped nor cut."""
    word = printable(p.state)
    style = "bold red" if p.fallen else "bold"
    conditions = f" · {printable(', '.join(p.conditions))}" if p.conditions else ""
    if letters:
        return Text(first_letters(word), style=style)
    if room is None or cell_len(word + conditions) <= room:
        return Text.assemble((word, style), (conditions, "yellow"))
    if cell_len(word) <= room:
        return Text(word, style=style)
    return Text(first_letters(word), style=style)


def wrapped(text: str, width: int) -> list[str]:
    """``text`` in lines of at most ``width`` cells (0: one line), broken between words, a word
    wider than a line in pieces."""
    if not width:
        return [text]
    words = [piece for word in text.split() for piece in chop_cells(word, max(width, 2))]
    lines: list[str] = []
    for word in words:
        if lines and cell_len(lines[-1]) + 1 + cell_len(word) <= width:
            lines[-1] += f" {word}"
        else:
            lines.append(word)
    return lines


def rows_text(enc: Encounter, height: int = 0, width: int = 0) -> Text:
    """One line per combatant players may see, within ``width`` cells (0: any): who acts, its
    name, side and state (``columns_for``, ``state_cell``); a note players may read on lines of
    its own below, under the name. A blank line between combatants while they fit in
    ``height`` lines that way."""
    out = Text()
    people = visible(enc)
    acting = enc.current
    states = [public_state(enc, c) for c in people]
    words = [*rules_for(enc.system).view.public_words, *(p.state for p in states)]
    name_cells, side_cells, letters = columns_for(width, map(printable, words))
    room = width - len("▶ ") - name_cells - 1 - side_cells - 1 if width else None
    notes = [
        wrapped(printable(c.notes), max(width - NOTE_INDENT, 0))
        if c.notes and not c.notes_hidden
        else []
        for c in people
    ]
    spaced = 2 * len(people) + sum(map(len, notes)) <= height
    for c, p, note in zip(people, states, notes, strict=True):
        now = acting is not None and acting in (c.id, c.side)
        side = side_label(c.side) if side_cells == SIDE_CELLS else short_side(c.side)
        out.append("▶ " if now else "  ", style="bold")
        out.append(in_cells(printable(c.name), name_cells) + " ", style="bold" if now else "")
        out.append(in_cells(side, side_cells) + " ", style="dim")
        out.append_text(state_cell(p, room, letters))
        for line in note:
            out.append("\n" + " " * NOTE_INDENT)
            out.append(line, style="italic")
        out.append("\n\n" if spaced else "\n")
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
    PlayerView #pv-round-box { width: auto; min-width: 7; }
    PlayerView #pv-round-label, PlayerView #pv-round { width: auto; }
    PlayerView #pv-round-label { color: $text-muted; }
    PlayerView #pv-turn { margin-left: 2; width: 1fr; text-wrap: nowrap; text-overflow: ellipsis; }
    PlayerView #pv-list {
        height: 1fr; margin-top: 1; border-top: solid $primary;
        scrollbar-gutter: stable; scrollbar-size-vertical: 1;
    }
    PlayerView #pv-rows { text-wrap: nowrap; text-overflow: ellipsis; }
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
                yield Static(id="pv-round")
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
        self.query_one("#pv-round", Static).update(Text(big_number(enc.round), style="bold"))
        self.query_one("#pv-turn", Static).update(turn_text(enc))
        rows = self.query_one("#pv-list")
        room = rows.scrollable_content_region
        self.query_one("#pv-rows", Static).update(rows_text(enc, room.height, room.width))
        foot = f"player view · read-only · {printable(self.ws.path.name)} read {self._read_at}"
        self.query_one("#pv-foot", Static).update(Text(f"{foot} · q quits"))

    def action_quit(self) -> None:
        self.app.exit()


def show_player_view(screen: MainScreen) -> None:
    """The tracker's read-only window becomes the player view (``facility-tui watch``)."""
    app = screen.app
    app.push_screen(PlayerView(screen.ws, app.clock))  # type: ignore[attr-defined]
