"""The list pane: the encounter's combatants in turn order, one row each. Its reactive
``encounter`` follows the screen's.

Its rows come from the core (``listed`` for the order, ``View.summary`` for the columns);
``InitiativeList`` draws them and repaints only the rows that changed. A key press (a hit, a turn)
changes a row or two of 200: when the order and the encounter-wide inputs are the same, an identity
check per row finds them (the model is immutable) and only those rows get new cells (``set_cells``),
without comparing the other 199.

The cursor is the selection: it stays on its combatant, and follows the turn when the turn moves
(or when another fight is shown, ``reset``). The screen reads ``cursor_key`` after each change.
"""

from __future__ import annotations

import operator
from functools import lru_cache

from rich.cells import cell_len
from rich.text import Text
from textual.reactive import Reactive

from facility_tui.commands.dispatch import listed
from facility_tui.commands.rounds import ahead
from facility_tui.model.encounter import ENEMIES, PCS, Combatant, Encounter
from facility_tui.model.text import printable
from facility_tui.systems import RuleSystem, rules_for

from .initiative import FEW, InitiativeList
from .list_layout import Column, Role
from .list_measures import Cell, Row

SIDE_STYLE = {PCS: "cyan", ENEMIES: "red"}  # names are coloured by side, and marked in words:
SIDE_WORD = {PCS: "PC", ENEMIES: "EN"}  # a colour is never the only sign (the legend is in help)
ACTING, NEXT = "▶", "›"  # the turn column: whose turn it is, who acts after
HIDDEN = "(h) "  # before a name kept from the player view
# Before the rules' columns; never left out. Narrow, Side is the first to take its short title.
BASE_COLUMNS = [
    Column(" "),
    Column("#"),
    Column("Name", Role.NAME),
    Column("Side", short="Sd"),
]
ESSENTIAL = 3  # the rules' first columns are never left out (list them in the order they matter)

# What a row's cells were computed from, and the cells, by combatant id: the rows of the last few
# listings, newest first (undo across a round's start shows the listing before it again).
RowCells = dict[str, list[tuple[tuple[object, ...], list[Cell]]]]
# A fight's first show makes every row before its frame up to this many (more: those in sight)
FIRST_ALL = 100
KEPT = 3  # listings whose rows are kept (the one shown, and two before it)
# The rows last shown: (shared inputs, ids in order, combatants, their turn marks).
Listing = tuple[tuple[object, ...], list[str], list[Combatant], list[str]]


def short_side(side: str) -> str:
    """A side in two cells: PC, EN, or the first two letters of the side a save names."""
    return SIDE_WORD.get(side) or printable(side[:2].upper())


def list_number(enc: Encounter, c: Combatant, i: int) -> str:
    """The # column: its handle (``-``: added by hand, none yet), or its place ``i`` in the list
    in a save from before handles."""
    return (str(c.handle) if c.handle else "-") if enc.numbered else str(i)


def row_cells(rules: RuleSystem, enc: Encounter, c: Combatant, i: int, mark: str) -> list[Cell]:
    """One combatant's row: turn mark, number (its handle; its place in a save from before
    handles), name (coloured by side; ``(h)`` when hidden from players), side, initiative, the
    rules' columns."""
    acting = mark == ACTING
    turn = _ACTING_MARK if acting else mark
    number = list_number(enc, c, i)
    summary = rules.view.list_row(enc, c)
    side = short_side(c.side)
    cells: list[Cell] = [turn, number, name_cell(c.name, c.side, c.hidden, acting), side]
    if rules.view.show_initiative:
        cells.append(str(c.initiative))
    cells += [printable(str(summary.get(col, ""))) for col in rules.view.columns]
    return cells


_ACTING_MARK = Text(ACTING, style="bold green")


@lru_cache(maxsize=8192)
def name_cell(name: str, side: str, hidden: bool, acting: bool) -> Text:
    """A row's name cell: coloured by side, ``(h)`` before it when hidden, bold when acting.
    The same object for the same name and marks (never changed once made): a round's start
    gives every row new cells, and a name that is the one shown compares by identity."""
    cell = Text(printable(name), style=SIDE_STYLE.get(side, ""))
    if hidden:  # kept from the player view (``hide``): said in words, before the name
        cell = Text.assemble((HIDDEN, "dim"), cell)
    if acting:
        cell.stylize("bold")
    return cell


def short_forms_help(rules: RuleSystem) -> list[str]:
    """The help's lines on a narrow list: what gives way first, and each short form."""
    lines = [
        "Narrow, the list leaves out its last columns, then shortens names from the front "
        "(Cont. Drone 1), then abbreviates whole columns, in this order:",
        "  Sd Side",
    ]
    for title, (short, words) in rules.view.short_forms.items():
        said = rules.view.short_help.get(title) or ", ".join(f"{s} {w}" for w, s in words.items())
        lines.append(f"  {short} {title}" + (f": {said}" if said else ""))
    return lines


def turn_marks(enc: Encounter, listing: list[Combatant]) -> list[str]:
    """Each row's turn mark. A slot is a combatant's id, or a side (Facility) when no combatant
    has that id."""
    ids = {c.id for c in listing}
    marks = [" "] * len(listing)
    found = ahead(enc, rules_for(enc.system))
    upcoming = found.slot if found is not None else None  # (whose turn n starts: None, a round)
    for slot, mark in ((upcoming, NEXT), (enc.current, ACTING)):  # (acting last: it wins)
        if slot is None:
            continue
        by_side = slot not in ids
        for i, c in enumerate(listing):
            if c.id == slot or (by_side and c.side == slot):
                marks[i] = mark
    return marks


class OrderList(InitiativeList):
    """The initiative list of the encounter it is given."""

    encounter: Reactive[Encounter | None] = Reactive(
        None, repaint=False, always_update=True, compute=False
    )

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.name_marks = (HIDDEN,)
        self._rules: RuleSystem | None = None
        self.row_cache: RowCells = {}
        self.listing: Listing | None = None
        self._inputs: list[tuple[object, ...]] = []  # the last listings' shared inputs
        self._shown: Encounter | None = None  # the encounter the rows were last made from
        # The last listings left, as they were shown, and what they were made from.
        self._listings: list[tuple[tuple[object, ...], list[Combatant], list[str], list[Row]]] = []

    def abbreviate(self, column: int, cell: Cell) -> Cell:
        """A rules' column in its short form (``View.short_forms``)."""
        title = self.columns[column].title
        rules = self._rules
        if rules is None or not isinstance(cell, str) or title not in rules.view.short_forms:
            return cell
        return rules.view.abbreviate(title, cell)

    def reset(self) -> None:
        """The next encounter is another fight (opened, new, reloaded), not a step of this one:
        the cursor goes to whoever is acting."""
        self._shown = None

    def watch_encounter(self, enc: Encounter | None) -> None:
        if enc is not None:
            self.show(enc)

    def show(self, enc: Encounter) -> None:
        """Give the list this encounter's rows (repainting only the rows that changed), and
        move the cursor to the acting combatant if the turn moved."""
        rules = rules_for(enc.system)
        selected = self.cursor_key
        columns = list(BASE_COLUMNS)
        if rules.view.show_initiative:
            columns.append(Column("Init"))
        for k, title in enumerate(rules.view.columns):
            role = Role.KEEP if k < ESSENTIAL else Role.EXTRA
            if title in rules.view.cut_columns:
                role = Role.CUT
            words = rules.view.column_words.get(title, ())
            least = (
                max((cell_len(w) for w in words), default=0),
                max((cell_len(rules.view.abbreviate(title, w)) for w in words), default=0),
            )
            short = rules.view.short_forms.get(title, ("", {}))[0]
            columns.append(Column(title, role, short, least))
        titles = [c.title for c in columns]
        if rules is not self._rules:
            self.forget_measures()  # (its short forms are another system's)
        self._rules = rules
        self.abbreviated = (
            titles.index("Side"),
            *(titles.index(t) for t in rules.view.short_forms if t in titles),
        )
        listing = listed(enc)
        # What a row's cells are made of besides the combatant itself: ``summary(enc, c)`` reads
        # the combatant, whether its slot is acting, and these encounter-wide fields (not the
        # turn index, the other combatants or the log).
        # A row's "done" shows once its turn passes: its own mark changes then, so its row is made
        # again (the turn index itself is not an input).
        shared = (
            enc.system,
            enc.phase,
            enc.round,
            enc.order,
            enc.state,
            enc.numbered,
            len(columns),
        )
        # (one object per distinct inputs: a row's kept inputs then compare by identity, not
        # by a round's order of 1,000 ids)
        shared = next((kept for kept in self._inputs if kept == shared), shared)
        self._inputs = [shared, *(kept for kept in self._inputs if kept is not shared)][:KEPT]
        acting = turn_marks(enc, listing)
        ids = [c.id for c in listing]
        last = self.listing
        self.listing = (shared, ids, listing, acting)
        self.fill_rows()  # (rows stood in for at the last round's start are made first)
        before, self._shown = self._shown, enc
        target = selected
        turn_moved = before is None or (before.round, before.turn) != (enc.round, enc.turn)
        if enc.current and enc.has(enc.current) and (turn_moved or target is None):
            target = enc.current
        at = ids.index(target) if target is not None and target in ids else None
        if last is not None and last[0] == shared and last[1] == ids:
            # The same rows in the same order (a hit, a turn): the model is immutable, so only
            # rows whose combatant is another object, or whose turn came or went, get new cells.
            rows = zip(listing, last[2], acting, last[3], strict=True)
            changed = [
                i for i, (c, was, now, then) in enumerate(rows) if c is not was or now != then
            ]
            if len(changed) <= FEW:
                for i in changed:
                    cells = self.cells_of(
                        rules, enc, listing[i], i + 1, acting[i], shared, self.row_cache
                    )
                    self.set_cells(i, cells)
            else:  # many (a Facility side's turn marks each of its members): as a round's start
                made = _RoundRows(self, rules, enc, listing, acting, shared, self.row_cache)
                stand_ins = made.rows(self.rows_in_sight(at), only=set(changed))
                self.set_rows(columns, made.made, stand_ins, made.real)
        else:
            # Another listing (a round's start): the one left is kept as shown, and one shown
            # lately from the same inputs and combatants (objects) is shown again as it was,
            # nothing worked out or measured again (undo across a round's start, redo).
            if last is not None and self.rows:
                left = (last[0], last[2], last[3], self.keep_shown())
                self._listings = [left, *self._listings][:KEPT]
            again = next(
                (
                    rows
                    for inputs, combatants, marks, rows in self._listings
                    if inputs is shared and marks == acting and _same_objects(combatants, listing)
                ),
                None,
            )
            if again is not None:
                self.set_rows(columns, again)
            else:
                cache, self.row_cache = self.row_cache, {}  # (keeps the rows listed now only)
                made = _RoundRows(self, rules, enc, listing, acting, shared, cache)
                # A big fight's first show: the rows in sight made, the others stood in for by
                # their names until just after the first frame (the columns' least widths already
                # hold every word a cell may show; docs/benchmarks.md,
                # 'A 1,000-combatant fight from outside (issue 38)').
                first = not self.rows and len(listing) > FIRST_ALL
                sight = self.rows_in_sight(at, first_frame=first)
                stand_ins = made.rows(sight if columns == self.columns or first else None, first)
                self.set_rows(columns, made.made, stand_ins, made.real)
        if target is not None and enc.has(target):
            self.move_to(target)

    def cells_of(
        self,
        rules: RuleSystem,
        enc: Encounter,
        c: Combatant,
        i: int,
        acting: str,
        shared: tuple[object, ...],
        cache: RowCells,
    ) -> list[Cell]:
        """A row's cells, taken from ``cache`` while their inputs are the same objects (a row
        moved by an insertion above it is computed again; one that kept its place is not)."""
        inputs = (c, i, acting, shared)
        kept = cache.get(c.id, [])
        # (by identity: a combatant changed at a round's start is another object, equal or not,
        # and comparing it to the one kept compares its whole sheet)
        cells = next((cells for was, cells in kept if _same_inputs(was, inputs)), None)
        if cells is None:
            cells = row_cells(rules, enc, c, i, acting)
        others = [entry for entry in kept if not _same_inputs(entry[0], inputs)]
        self.row_cache[c.id] = [(inputs, cells), *others][:KEPT]
        return cells


def _same_objects(kept: list[Combatant], now: list[Combatant]) -> bool:
    """The same combatants (objects) in the same order."""
    return len(kept) == len(now) and all(map(operator.is_, kept, now))


def _same_inputs(was: tuple[object, ...], now: tuple[object, ...]) -> bool:
    """A kept row's inputs are these: the same combatant and shared inputs (objects), place
    and turn mark."""
    return was[0] is now[0] and was[1] == now[1] and was[2] == now[2] and was[3] is now[3]


class _RoundRows:
    """A new listing's rows: made now where in sight, stood in for elsewhere by the cells the
    same combatant was shown with (their measures kept), made for real after the frame
    (``InitiativeList.set_rows``). A round's start at 1,000 combatants makes about 40 rows
    before its frame, not 1,000."""

    def __init__(
        self,
        owner: OrderList,
        rules: RuleSystem,
        enc: Encounter,
        listing: list[Combatant],
        acting: list[str],
        shared: tuple[object, ...],
        cache: RowCells,
    ) -> None:
        self.owner, self.rules, self.enc, self.shared, self.cache = owner, rules, enc, shared, cache
        self.listing, self.acting = listing, acting
        self.made: list[Row] = []
        self.later: list[int] = []

    def _cells(self, i: int) -> list[Cell]:
        c, mark = self.listing[i], self.acting[i]
        return self.owner.cells_of(self.rules, self.enc, c, i + 1, mark, self.shared, self.cache)

    def rows(
        self, sight: range | None, first: bool = False, only: set[int] | None = None
    ) -> frozenset[int]:
        """Make the rows in ``sight`` (every row when None) and those never shown (``first``:
        stood in for by their names); the places of the others, stood in for. With ``only``,
        the rows of the same listing to make: the others are as shown."""
        shown, index = self.owner.shown_rows()
        made, later = self.made, self.later
        for i, c in enumerate(self.listing):
            if only is not None and i not in only:
                made.append(shown[i])
                continue
            was = index.get(c.id) if sight is not None and i not in sight else None
            if was is None and first and sight is not None and i not in sight:
                made.append((c.id, self._named(i)))
                later.append(i)
            elif was is None:
                made.append((c.id, self._cells(i)))
            else:
                made.append((c.id, shown[was][1]))
                later.append(i)
        return frozenset(later)

    def _named(self, i: int) -> list[Cell]:
        """A stand-in row for a fight's first frame: its mark, number, name and side."""
        c, mark = self.listing[i], self.acting[i]
        turn = _ACTING_MARK if mark == ACTING else mark
        name = name_cell(c.name, c.side, c.hidden, mark == ACTING)
        cells: list[Cell] = [turn, list_number(self.enc, c, i + 1), name, short_side(c.side)]
        return cells + [""] * (self.shared[-1] - len(cells))  # type: ignore[operator]

    def real(self) -> list[Row]:
        rows = list(self.made)
        for i in self.later:
            rows[i] = (rows[i][0], self._cells(i))
        return rows
