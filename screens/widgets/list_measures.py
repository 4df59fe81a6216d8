"""What the initiative list knows of its rows' widths, kept as the rows change.

Each row's cells are measured once (their widths, their short forms and theirs, the name), and
each column keeps a tally of its cells' widths (how many cells are how wide: its widest is the
largest key), so a changed row is measured alone, not the other 199: it takes the place of its old
measures in the tallies. A round's start gives every row new cells, most of them texts measured
before: a cell's measures are kept by its column and text, and the measures of the rows shown
just before are kept too (undo across a round's start shows them again).

The widths the list is laid out from are the ones ``adopt`` takes; ``layout`` lays them out in a
room (``list_layout.fit``, names a little wider where they could not all be told apart).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from functools import lru_cache
from itertools import compress, zip_longest
from operator import is_not
from typing import Protocol

from attrs import evolve
from rich.cells import cell_len
from rich.text import Span, Text

from .list_layout import NAME_READS, Column, Layout, Role, fit, name_floor, shorten_names

Cell = Text | str
Row = tuple[str, list[Cell]]
# A row's measures: its cells (as given), each cell's width, its abbreviated cells and theirs,
# its name as (mark, name).
Measure = tuple[list[Cell], tuple[int, ...], tuple[Cell, ...], tuple[int, ...], tuple[str, str]]
Tallies = tuple[list[dict[int, int]], list[dict[int, int]]]  # each column's, full and short
# The measures of rows shown lately (``keep``): each row's, the tallies, the titles' widths
# (full and short) and the names.
Kept = tuple[dict[str, Measure], Tallies, tuple[list[int], list[int]], tuple[tuple[str, str], ...]]

CELLS_KEPT = 8192  # texts whose measures are kept (then forgotten all at once)
EARLIER = 2  # the measures of rows shown before kept (undo across a round's start shows them)


class Shaped(Protocol):
    """The list the measures are of: its columns, those with short forms (in their order of
    use), the leads of a name kept whole when it shortens, and a cell's short form."""

    columns: list[Column]
    abbreviated: tuple[int, ...]
    name_marks: tuple[str, ...]

    def abbreviate(self, column: int, cell: Cell) -> Cell: ...


def length(cell: Cell) -> int:
    return cell.cell_len if isinstance(cell, Text) else cell_len(cell)


def _count(counts: list[dict[int, int]], widths: tuple[int, ...], step: int) -> None:
    """Count a row's cell widths in (``step`` 1) or out (-1) of each column's tally of widths."""
    for tally, width in zip(counts, widths, strict=False):
        n = tally.get(width, 0) + step
        if n:
            tally[width] = n
        else:
            del tally[width]


def _tallies(widths: list[tuple[int, ...]], n: int) -> list[dict[int, int]]:
    """Each of ``n`` columns' tally of these rows' cell widths (``_count`` row by row, at once:
    a round's start re-measures every row)."""
    columns = list(zip_longest(*widths))[:n]
    tallies: list[dict[int, int]] = [Counter(column) for column in columns]
    for tally in tallies:
        tally.pop(None, None)  # type: ignore[call-overload]  # (a row shorter than the others)
    return tallies + [{} for _ in range(n - len(tallies))]


@lru_cache(maxsize=16)
def shown_names(names: tuple[tuple[str, str], ...], width: int) -> list[str] | None:
    return shorten_names(names, width)


class ColumnMeasures:
    """The measures of ``table``'s rows (``Shaped``), and the widths its layout is made from."""

    def __init__(self, table: Shaped) -> None:
        self.table = table
        self.flex = -1  # the names' column
        self.rows: dict[str, Measure] = {}  # row key -> its measures
        # (column, text) -> its width, short form and that one's width
        self._cells: dict[tuple[int, str], tuple[int, Cell, int]] = {}
        self._earlier: list[dict[str, Measure]] = []  # the last measures before: undo shows them
        self.tallies: Tallies = ([], [])  # each column's tally of cell widths: width -> cells
        self.titles: tuple[list[int], list[int]] = ([], [])  # their widths, full and short
        self.names_now: tuple[tuple[str, str], ...] = ()  # each row's (mark, name) now
        # What the layout is made from (``adopt``): each column's widest cell (its title too),
        # full and abbreviated, and the names.
        self.full: list[int] = []
        self.short: list[int] = []
        self.names: tuple[tuple[str, str], ...] = ()

    def shape(self, columns: Sequence[Column]) -> None:
        """Other columns: every cell is measured again."""
        self.flex = next((j for j, c in enumerate(columns) if c.role is Role.NAME), -1)
        self.forget()

    def forget(self) -> None:
        """Cells are abbreviated differently from now on: measure them again."""
        self._cells = {}
        self.rows = {}
        self._earlier = []

    def keep(self) -> Kept:
        """The measures now, as copies of their own (``restore`` shows them again)."""
        tallies = ([dict(t) for t in self.tallies[0]], [dict(t) for t in self.tallies[1]])
        return dict(self.rows), tallies, self.titles, self.names_now

    def restore(self, kept: Kept) -> None:
        rows, tallies, self.titles, self.names_now = kept
        # (copies: ``count`` changes them in place, the kept ones stay as they were)
        self.rows = dict(rows)
        self.tallies = ([dict(t) for t in tallies[0]], [dict(t) for t in tallies[1]])

    def measure(self, cells: list[Cell], old: Measure | None = None) -> Measure:
        """A row's measures; a cell that is the very object of its ``old`` cells keeps its
        measures (a round's start changes a cell or two of each row)."""
        was = old[0] if old is not None and len(old[0]) == len(cells) else None
        if was is not None and self.flex >= 0 and was[self.flex] is cells[self.flex]:
            name = old[4]  # type: ignore[index]
        else:
            name = self.name_of(cells)
        if not self.table.abbreviated:
            full = tuple(length(c) for c in cells)
            return cells, full, tuple(cells), full, name
        if len(self._cells) > CELLS_KEPT:
            self._cells.clear()
        if was is not None and old is not None:  # only the cells that are other objects
            full_widths, shorts, short_widths = list(old[1]), list(old[2]), list(old[3])
            for j in compress(range(len(cells)), map(is_not, was, cells)):
                full_widths[j], shorts[j], short_widths[j] = self._cell(j, cells[j])
            return cells, tuple(full_widths), tuple(shorts), tuple(short_widths), name
        # (a text measured before is looked up here: a big fight's first frame measures ~975
        # stand-in rows of a mark, a number, a name, a side and empty cells)
        known = self._cells
        measured = []
        for j, cell in enumerate(cells):
            m = known.get((j, cell)) if cell.__class__ is str else None
            measured.append(m if m is not None else self._cell(j, cell))
        if not measured:
            return cells, (), (), (), name
        widths, short_cells, widths_short = zip(*measured, strict=True)
        return cells, widths, short_cells, widths_short, name

    def _cell(self, j: int, cell: Cell) -> tuple[int, Cell, int]:
        """A cell's width, its short form in column ``j`` and that one's width."""
        known = self._cells
        m = known.get((j, cell)) if isinstance(cell, str) else None
        if m is None:
            table = self.table
            short = table.abbreviate(j, cell) if j in table.abbreviated else cell
            width = length(cell)
            m = (width, short, width if short is cell else length(short))
            if isinstance(cell, str):
                known[j, cell] = m
        return m

    def remeasure(self, rows: Sequence[Row]) -> None:
        """Each column's tallies from every row now (rows measured once per new cells), and
        the names."""
        measures = self.rows
        self._earlier = [dict(measures), *self._earlier][:EARLIER]
        for key, cells in rows:
            m = measures.get(key)
            if m is None or m[0] is not cells:
                kept = (e.get(key) for e in self._earlier)
                found = next((m for m in kept if m is not None and m[0] is cells), None)
                measures[key] = found or self.measure(cells, m)
        measured = [measures[key] for key, _ in rows]
        columns = self.table.columns
        n = len(columns)
        self.tallies = (
            _tallies([m[1] for m in measured], n),
            _tallies([m[3] for m in measured], n),
        )
        self.titles = (
            [max(cell_len(c.title), c.least[0]) for c in columns],
            [max(cell_len(c.short or c.title), c.least[1]) for c in columns],
        )
        if self.flex >= 0:
            self.names_now = tuple(m[4] for m in measured)

    def count(self, i: int, key: str, cells: list[Cell]) -> None:
        """Row ``i`` (measured before, in its place) has new cells: its widths and name take
        the place of its old ones in the columns' tallies and the names."""
        old = self.rows[key]
        new = self.rows[key] = self.measure(cells, old)
        full_counts, short_counts = self.tallies
        _count(full_counts, old[1], -1)
        _count(full_counts, new[1], 1)
        _count(short_counts, old[3], -1)
        _count(short_counts, new[3], 1)
        names = self.names_now
        if self.flex >= 0 and new[4] != names[i]:
            self.names_now = (*names[:i], new[4], *names[i + 1 :])

    def adopt(self) -> bool:
        """Lay out from the widest cells and the names now; False when they are the ones the
        layout is made from already."""
        full, short = self.tallies
        titles, short_titles = self.titles
        widest = (
            [max(t, max(n, default=0)) for t, n in zip(titles, full, strict=True)],
            [max(t, max(n, default=0)) for t, n in zip(short_titles, short, strict=True)],
        )
        if (*widest, self.names_now) == (self.full, self.short, self.names):
            return False
        (self.full, self.short), self.names = widest, self.names_now
        return True

    def name_of(self, cells: list[Cell]) -> tuple[str, str]:
        """A row's name cell as (its mark kept whole, the name)."""
        if self.flex >= len(cells):
            return "", ""
        cell = cells[self.flex]
        plain = cell.plain if isinstance(cell, Text) else cell
        for mark in self.table.name_marks:
            if plain.startswith(mark):
                return mark, plain[len(mark) :]
        return "", plain

    def layout(self, room: int) -> Layout:
        """The layout in ``room`` cells (names a little wider where they could not all be told
        apart at the width ``fit`` gave them)."""
        flex, names, table = self.flex, self.names, self.table
        floor = name_floor(names) if flex >= 0 and names else 0
        layout = fit(table.columns, self.full, self.short, room, floor, table.abbreviated)
        if floor:
            widths = list(layout.widths)
            while 0 < widths[flex] < self.full[flex] and shown_names(names, widths[flex]) is None:
                widths[flex] += 1
            layout = evolve(layout, widths=tuple(widths))
        return layout

    def names_shown(self, layout: Layout) -> list[str] | None:
        """Each row's name as shown in ``layout`` (None: every name whole)."""
        flex = self.flex
        if flex < 0 or not self.names:
            return None
        width = layout.widths[flex] if flex < len(layout.widths) else 0
        if not width or width >= self.full[flex]:
            return None
        return shown_names(self.names, width)

    def shown(self, key: str, cells: list[Cell], layout: Layout, name: str | None) -> list[Cell]:
        """Row ``key``'s cells as ``layout`` shows them: abbreviated columns in their short
        form, the name shortened to ``name`` (None: whole)."""
        if layout.short:
            m = self.rows.get(key)
            short = m[2] if m is not None and m[0] is cells else self.measure(cells)[2]
            cells = [short[j] if j in layout.short else c for j, c in enumerate(cells)]
        flex = self.flex
        if name is not None and 0 <= flex < len(cells):
            cells = list(cells)
            cells[flex] = _renamed(cells[flex], name)
        return cells

    def narrowest(self) -> int:
        """The fewest cells that show every row's state words whole and names that read: the
        extra columns left out, the others abbreviated, the names at ``NAME_READS`` (or their
        narrowest told apart, if wider)."""
        table = self.table
        if not table.columns:
            return 0
        floor = 0
        if self.flex >= 0 and self.names:
            floor = max(name_floor(self.names), min(NAME_READS, self.full[self.flex]))
        return fit(table.columns, self.full, self.short, 1, floor, table.abbreviated).width


def _renamed(cell: Cell, shown: str) -> Cell:
    """A name cell showing ``shown`` (its shortened form) in the cell's styles: a style over the
    part both share (the ``(h)`` mark) stays there, one over the name covers the name shown."""
    if not isinstance(cell, Text):
        return shown
    if cell.plain == shown:
        return cell
    plain = cell.plain
    same = 0  # the length of the start both share
    for a, b in zip(plain, shown, strict=False):
        if a != b:
            break
        same += 1
    out = Text(shown, style=cell.style)
    for span in cell.spans:
        if span.end <= same:
            out.spans.append(span)
        else:
            out.spans.append(Span(min(span.start, same), len(shown), span.style))
    return out
