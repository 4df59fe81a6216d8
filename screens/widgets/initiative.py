"""The initiative list: a line-API table that redraws only the rows that changed.

``DataTable`` re-measures and re-renders every visible cell on any change (its caches key on an
update counter): making the list's change of a key at 200 rows takes it several frames
(docs/benchmarks.md). This widget keeps one rendered
``Strip`` per row, keyed on what the row looks like (its cells, cursor, zebra stripe, focus, column
widths), and ``set_rows`` diffs the new rows by key so that only changed lines are repainted.
Column widths come from every row now (``list_layout.fit``), never from rows shown before: each
column keeps a tally of its cells' widths, so a changed row is measured alone, not the other 199.

A key that changes every row (a round's start, a Facility side's turn) need not make 1,000 rows
before its frame: ``set_rows`` takes rows out of sight as stand-ins (the cells that row was shown
with, measured then) and a way to make them real, which runs after the frame, or at once when a
stand-in comes in sight or the rows are read. Until then the columns' widths count the stand-ins'
cells as shown; the next frame has them exact (a column may then change by a cell or two).

Colours come from component classes (``initiative-list--header``, ``--cursor``,
``--cursor-blurred``, ``--even-row``); ``styles/app.tcss`` sets them. Focus changes only the cursor
row's look, and the list repaints only that row when focus comes and goes (every confirm on the
command line), where a widget would repaint all of itself.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import lru_cache
from typing import ClassVar, Self

from rich.cells import cell_len
from rich.console import Console
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual import events
from textual.binding import Binding, BindingType
from textual.geometry import Region, Size
from textual.message import Message
from textual.scroll_view import ScrollView
from textual.strip import Strip

from ..render.own_lines import OwnLines, blank_line
from .list_layout import PAD, Column, Layout, Role
from .list_measures import Cell, ColumnMeasures, Row, length
from .list_measures import Kept as MeasuresKept

# Rows shown lately and what was made of them (``keep_shown``): (the rows object given out, the
# rows, their index by key, their measures, the strips drawn from them).
Kept = tuple[
    Sequence[Row],
    list[Row],
    dict[str, int],
    MeasuresKept,
    dict[str, tuple[tuple[object, ...], Strip]],
]
KEPT_LISTINGS = 3  # (undo across a round's start, and back again)

SELECTED = "▌"  # the selected row's mark, before its first column: a sign besides its colour


def _cut(cell: Cell, width: int) -> Cell:
    """A cell cut to ``width`` with an ellipsis (only a cuttable column's, or a name's lead)."""
    text = cell.copy() if isinstance(cell, Text) else Text(cell)
    text.truncate(width, overflow="ellipsis")
    return text if isinstance(cell, Text) else text.plain


def _same(old: Sequence[Cell], new: Sequence[Cell]) -> bool:
    """Cells that look the same (``Text.__eq__`` ignores the text's own style)."""
    if len(old) != len(new):
        return False
    for a, b in zip(old, new, strict=True):
        if a is b:
            continue
        if isinstance(a, Text) and isinstance(b, Text):
            if a.plain != b.plain or a.style != b.style or a.spans != b.spans:
                return False
        elif isinstance(a, Text) or isinstance(b, Text) or a != b:
            return False
    return True


FEW = 8  # rows changed at once that are re-measured one by one (more: all rows again)


@lru_cache(maxsize=64)
def _column_meta(column: int) -> Style:
    return Style.from_meta({"column": column})


class InitiativeList(OwnLines, ScrollView, can_focus=True):
    """Rows of cells under a fixed header line, with a row cursor.

    Each column is as wide as its widest cell now (``list_layout.fit``: the same rows at the same
    width look the same, whatever came before). When the list is too narrow, the extra columns
    are left out, the names (the ``Role.NAME`` column, or the one titled ``flex``) shorten, and
    the columns in ``abbreviated`` show their short forms (``abbreviate``), whole columns at a
    time. The selected row is marked ``SELECTED`` as well as coloured.
    """

    # Priority bindings: run as the app reads the key, in order with the screen's keys (which
    # are priority bindings too), so "↓d" starts the command on the row moved to.
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up", "cursor(-1)", "Up", show=False, priority=True),
        Binding("down", "cursor(1)", "Down", show=False, priority=True),
        Binding("pageup", "page(-1)", "Page up", show=False, priority=True),
        Binding("pagedown", "page(1)", "Page down", show=False, priority=True),
        Binding("home", "edge(0)", "First", show=False, priority=True),
        Binding("end", "edge(1)", "Last", show=False, priority=True),
        Binding("enter", "select", "Select", show=False, priority=True),
    ]

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "initiative-list--header",
        "initiative-list--cursor",
        "initiative-list--cursor-blurred",
        "initiative-list--even-row",
    }

    DEFAULT_CSS = """
    InitiativeList {
        height: 1fr;
        overflow-x: auto;
        overflow-y: auto;
        & > .initiative-list--header { text-style: bold; }
        & > .initiative-list--cursor { text-style: bold reverse; }
        & > .initiative-list--cursor-blurred { text-style: bold; }
    }
    """

    class Highlighted(Message):
        """The cursor moved to another row."""

        def __init__(self, initiative_list: InitiativeList, row_key: str | None) -> None:
            super().__init__()
            self.initiative_list = initiative_list
            self.row_key = row_key

        @property
        def control(self) -> InitiativeList:
            return self.initiative_list

    class Selected(Message):
        """Enter (or a click) on a row."""

        def __init__(self, initiative_list: InitiativeList, row_key: str) -> None:
            super().__init__()
            self.initiative_list = initiative_list
            self.row_key = row_key

        @property
        def control(self) -> InitiativeList:
            return self.initiative_list

    def __init__(
        self,
        *,
        flex: str = "Name",
        zebra_stripes: bool = True,
        name: str | None = None,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self.flex = flex
        self.zebra_stripes = zebra_stripes
        self.columns: list[Column] = []
        self._rows: list[Row] = []
        # Rows given as stand-ins (their cells as shown before) and how to make them real: a
        # round's start at 1,000 combatants makes the rows in sight first, the rest after its
        # frame (or at once, when one is drawn or the rows are read).
        self._stand_ins: tuple[frozenset[int], Callable[[], Sequence[Row]]] | None = None
        self._index: dict[str, int] = {}  # row key -> row index
        self.measures = ColumnMeasures(self)  # the rows' widths, and the names
        self._shown_names: list[str] | None = None  # each row's name as shown, when shortened
        self._layout_now = Layout((), frozenset(), 2)
        self._room = 0  # the width the layout was made for
        self.abbreviated: tuple[int, ...] = ()  # the columns with short forms, in order of use
        self.name_marks: tuple[str, ...] = ()  # leads of a name kept whole when it shortens
        self._cursor = 0
        # One strip per row key, with the state it was drawn in (cursor, stripe, widths, styles).
        self._strips: dict[str, tuple[tuple[object, ...], Strip]] = {}
        self._header: tuple[tuple[object, ...], Strip] | None = None
        self._style_memo: tuple[Style, Style, Style, Style, Style] | None = None
        self._kept: list[Kept] = []  # rows shown lately and their measures, newest first
        self.rendered_rows = 0
        """How many row strips were rendered (cache misses): for tests and profiling."""

    # -- public API ---------------------------------------------------------------------------

    @property
    def rows(self) -> list[Row]:
        """The rows shown, every one real (stand-ins are made real first)."""
        self.fill_rows()
        return self._rows

    def shown_rows(self) -> tuple[list[Row], dict[str, int]]:
        """The rows as shown now, stand-ins too, and each key's place."""
        return self._rows, self._index

    @property
    def row_count(self) -> int:
        return len(self._rows)

    @property
    def cursor_row(self) -> int:
        return self._cursor

    @property
    def cursor_key(self) -> str | None:
        return self._rows[self._cursor][0] if self._rows else None

    def abbreviate(self, column: int, cell: Cell) -> Cell:
        """A cell's short form (for the columns in ``abbreviated``): the cell by default."""
        return cell

    def set_rows(
        self,
        columns: Sequence[str | Column],
        rows: Sequence[Row],
        stand_ins: frozenset[int] = frozenset(),
        real: Callable[[], Sequence[Row]] | None = None,
    ) -> None:
        """Show these rows; repaint only those whose key, position or cells changed.

        The cursor stays on the row with the same key (or the same index if that row is gone).
        Rows that ``keep_shown`` gave are shown again from the measures they had then (undo
        across a round's start): no row is measured.

        Rows at the places in ``stand_ins`` are stand-ins (cells shown before, measured then),
        and ``real()`` gives every row as it is: those are shown after the next frame, or as soon
        as a stand-in comes in sight or the rows are read (``fill_rows``). The columns may then
        change width: only rows out of sight were stand-ins.
        """
        self._stand_ins = None  # (these rows are the ones shown from now on)
        shaped = [
            c if isinstance(c, Column) else Column(c, Role.NAME if c == self.flex else Role.KEEP)
            for c in columns
        ]
        again = next((kept for kept in self._kept if kept[0] is rows), None)
        if again is not None and shaped == self.columns:
            self._show_again(again)
            return
        self._set_rows(shaped, rows)
        if stand_ins and real is not None:
            self._stand_ins = (stand_ins, real)
            self.call_after_refresh(self.fill_rows)

    def fill_rows(self) -> None:
        """Make the stand-in rows real (see ``set_rows``): repaint those that changed."""
        pending, self._stand_ins = self._stand_ins, None
        if pending is not None:
            self._set_rows(self.columns, pending[1]())

    def keep_shown(self) -> list[Row]:
        """The rows shown now, as a list of their own: given to ``set_rows`` again (unchanged)
        they are shown from the measures they have now."""
        rows = list(self.rows)
        strips = dict(self._strips)  # (each drawn from the row's cells now, with its state)
        kept = (rows, rows, self._index, self.measures.keep(), strips)
        self._kept = [kept, *self._kept][:KEPT_LISTINGS]
        return rows

    def _show_again(self, kept: Kept) -> None:
        """Rows shown lately, with their measures as they were then: no row is measured."""
        old_key = self.cursor_key
        _, rows, index, measures, strips = kept
        self._rows, self._index = list(rows), index  # (a copy: ``set_cells`` changes it)
        self.measures.restore(measures)
        # A row's strip is kept by its key, not by its cells: the strips drawn from these rows
        # (each redrawn if its cursor, stripe or layout is another now)
        self._strips = dict(strips)
        cursor = index.get(old_key, self._cursor) if old_key is not None else self._cursor
        self._cursor = max(0, min(cursor, len(rows) - 1))
        if self._adopt():
            self._relayout()
            return
        self._set_virtual_size()
        self.refresh()  # every row in sight may have changed
        if self.cursor_key != old_key:
            self._scroll_to_cursor()

    def _set_rows(self, shaped: list[Column], rows: Sequence[Row]) -> None:
        old_key = self.cursor_key
        old_rows, old_count = self._rows, len(self._rows)
        new_rows = list(rows)  # cells are kept as given: pass new lists, do not mutate shown ones
        reshaped = shaped != self.columns
        if reshaped:
            self.columns = shaped
            self.measures.shape(shaped)
            self._kept = []
            old_rows = []
        measured = self.measures.rows
        changed: list[int] = []
        moved = len(new_rows) != old_count  # rows added, removed or reordered: a new index
        for i, (key, cells) in enumerate(new_rows):
            if i < len(old_rows):
                was_key, kept = old_rows[i]
                if was_key == key:
                    if kept is cells:
                        continue
                    if _same(kept, cells):
                        m = measured.get(key)
                        if m is not None and m[0] is kept:  # measured already
                            measured[key] = (cells, *m[1:])
                        continue
                else:
                    moved = True
            changed.append(i)
            self._strips.pop(key, None)
        self._rows = new_rows
        old_index = self._index
        if moved or reshaped:
            self._index = {key: i for i, (key, _) in enumerate(new_rows)}
            keys = self._index.keys()
            measured = {k: m for k, m in measured.items() if k in keys}
            self.measures.rows = measured
        if old_key is not None and old_key in self._index:
            self._cursor = self._index[old_key]
        self._cursor = max(0, min(self._cursor, len(new_rows) - 1))
        # The same rows, perhaps in another order (a round's start; the tallies do not depend
        # on the order): only rows with cells not measured yet are counted again, when few are.
        measures = self.measures
        fresh = [
            i
            for i in changed
            if (m := measured.get(new_rows[i][0])) is None or m[0] is not new_rows[i][1]
        ]
        same_rows = not reshaped and (
            not moved or (len(new_rows) == old_count and self._index.keys() == old_index.keys())
        )
        if (
            same_rows
            and len(fresh) <= max(FEW, len(new_rows) // 4)
            and all(new_rows[i][0] in measured for i in fresh)
        ):
            if moved and measures.flex >= 0:
                measures.names_now = tuple(measured[key][4] for key, _ in new_rows)
            for i in fresh:
                measures.count(i, *new_rows[i])
        else:
            measures.remeasure(new_rows)
        relayout = self._adopt()
        if relayout or reshaped:
            self._relayout()
            return
        if len(new_rows) != old_count:
            self._set_virtual_size()
            start = min(len(new_rows), old_count)
            changed.extend(range(start, max(len(new_rows), old_count)))
        self._refresh_rows(changed)
        if self.cursor_key != old_key:
            self._refresh_rows([self._index.get(old_key, -1) if old_key else -1, self._cursor])
            self._scroll_to_cursor()

    def set_cells(self, i: int, cells: list[Cell]) -> None:
        """Give row ``i`` new cells (its key and place unchanged); repaint that row only, unless
        the layout changes. ``set_rows`` without looking at every other row."""
        self.fill_rows()
        key, kept = self._rows[i]
        if kept is cells or _same(kept, cells):
            return
        self._rows[i] = (key, cells)
        self._strips.pop(key, None)
        self.measures.count(i, key, cells)
        if self._adopt():
            self._relayout()
            return
        self._refresh_rows([i])

    def forget_measures(self) -> None:
        """Cells are abbreviated differently from now on: measure them again."""
        self.measures.forget()
        self._kept = []

    def _adopt(self) -> bool:
        """Lay out from the measures now; True when the layout changes."""
        measures = self.measures
        return measures.adopt() and (
            measures.layout(self.scrollable_content_region.width) != self._layout_now
            or measures.names_shown(self._layout_now) != self._shown_names
        )

    def narrowest(self) -> int:
        """The fewest cells that show every row's state words whole (``ColumnMeasures``)."""
        return self.measures.narrowest()

    def move_to(self, key: str) -> bool:
        """Put the cursor on the row with this key; False if there is none."""
        i = self._index.get(key)
        if i is None:
            return False
        self._move(i)
        return True

    def move_cursor(self, delta: int) -> None:
        self._move(self._cursor + delta)

    # -- actions ------------------------------------------------------------------------------

    def action_cursor(self, delta: int) -> None:
        self.move_cursor(delta)

    def action_page(self, direction: int) -> None:
        self.move_cursor(direction * max(1, self._page_rows() - 1))

    def action_edge(self, end: int) -> None:
        self._move(len(self._rows) - 1 if end else 0)

    def action_select(self) -> None:
        key = self.cursor_key
        if key is not None:
            self.post_message(self.Selected(self, key))

    def on_click(self, event: events.Click) -> None:
        offset = event.get_content_offset(self)
        if offset is None or offset.y < 1:
            return
        i = offset.y - 1 + self.scroll_offset.y
        if 0 <= i < len(self._rows):
            self._move(i)
            self.action_select()

    # -- cursor -------------------------------------------------------------------------------

    def _move(self, i: int) -> None:
        if not self._rows:
            return
        i = max(0, min(i, len(self._rows) - 1))
        if i == self._cursor:
            self._scroll_to_cursor()
            return
        old, self._cursor = self._cursor, i
        self._refresh_rows([old, i])
        self._scroll_to_cursor()
        self.post_message(self.Highlighted(self, self.cursor_key))

    def _page_rows(self) -> int:
        return max(1, self.scrollable_content_region.height - 1)

    def _top_showing(self, i: int) -> int:
        """The first row in sight once row ``i`` is brought into sight by the least scroll."""
        top, shown = round(self.scroll_y), self._page_rows()
        if i < top:
            return i
        if i >= top + shown:
            return i - shown + 1
        return top

    def _scroll_to_cursor(self) -> None:
        top = self._top_showing(self._cursor)
        if top != round(self.scroll_y):
            self.scroll_to(y=top, animate=False, immediate=True)

    def rows_in_sight(self, at: int | None = None, *, first_frame: bool = False) -> range:
        """The rows in sight (and one either side) once row ``at`` is brought into sight;
        ``first_frame``: before the list is laid out, as many as the screen has lines."""
        if first_frame:  # (from the top, or ending at ``at``: a screenful either way)
            page = max(self._page_rows(), self.app.size.height)
            top = 0 if at is None else max(0, at - page + 1)
            return range(max(0, top - 1), top + page + 1)
        top = round(self.scroll_y) if at is None else self._top_showing(at)
        return range(max(0, top - 1), top + self._page_rows() + 1)

    # -- layout -------------------------------------------------------------------------------

    def _relayout(self) -> None:
        self._room = self.scrollable_content_region.width
        self._layout_now = self.measures.layout(self._room)
        self._shown_names = self.measures.names_shown(self._layout_now)
        self._strips.clear()
        self._header = None
        self._set_virtual_size()
        self.refresh()
        self._scroll_to_cursor()

    def _set_virtual_size(self) -> None:
        # Rows narrower than the list are padded to its width anyway; counting them as that wide
        # keeps a column growing inside it (a longer status) from costing a layout pass.
        width = max(self._layout_now.width, self.scrollable_content_region.width)
        self.virtual_size = Size(width, len(self._rows) + 1)

    def on_resize(self) -> None:
        if self.measures.layout(self.scrollable_content_region.width) != self._layout_now:
            self._relayout()
        else:
            self._room = self.scrollable_content_region.width
            self._set_virtual_size()
            self._strips.clear()  # rows fill the width: a new width is a new strip
            self._header = None

    def focus(self, scroll_visible: bool = True) -> Self:
        # Widget.focus repaints the whole list, then takes focus on the next message; the
        # focus handler below repaints the one row that changes.
        self.screen.set_focus(self, scroll_visible=scroll_visible)
        return self

    def watch_has_focus(self, _has_focus: bool) -> None:
        """No restyle: no style of the list depends on focus but the cursor's (a restyle of a
        scrolling widget repaints its scroll bar too)."""

    # Widget's focus handlers repaint every row, and tell the ancestors (for ``:focus-within``
    # styles, which nothing here uses); these repaint the one row that changes.
    def _on_focus(self, event: events.Focus) -> None:
        event.prevent_default()
        self.has_focus = True
        self._refresh_rows([self._cursor])

    def _on_blur(self, event: events.Blur) -> None:
        event.prevent_default()
        self.has_focus = False
        self._refresh_rows([self._cursor])

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._header = None  # rows keep their strips: their state holds the styles they used
        self._style_memo = None

    def _refresh_rows(self, rows: list[int]) -> None:
        """Repaint these rows where they are in sight (a round's start changes all 1,000: the
        scroll offset and size are read once)."""
        top = round(self.scroll_y) - 1
        width, height = self.size
        for i in rows:
            y = i - top
            if i >= 0 and 1 <= y < height:
                self.refresh(Region(0, y, width, 1))

    # -- rendering ----------------------------------------------------------------------------

    def _styles(self) -> tuple[Style, Style, Style, Style]:
        """Base, header, even-row and cursor styles: computed once per style update, the
        cursor's for both focus states (focus comes and goes with every confirm)."""
        memo = self._style_memo
        if memo is None:
            base = self.rich_style
            get = self.get_component_rich_style
            memo = self._style_memo = (
                base,
                base + get("initiative-list--header"),
                base + get("initiative-list--even-row"),
                get("initiative-list--cursor-blurred"),
                get("initiative-list--cursor"),
            )
        return memo[0], memo[1], memo[2], memo[4 if self.has_focus else 3]

    def _shown_cells(self, i: int) -> list[Cell]:
        """Row ``i``'s cells as the layout shows them: abbreviated columns in their short form,
        the name shortened."""
        key, cells = self._rows[i]
        names = self._shown_names
        return self.measures.shown(key, cells, self._layout_now, names[i] if names else None)

    def strips(self, ys: range) -> list[Strip]:
        pending = self._stand_ins
        if pending is not None:
            top = self.scroll_offset.y - 1
            if any(y + top in pending[0] for y in ys):  # a stand-in comes in sight
                self.fill_rows()
        width = self.scrollable_content_region.width
        if width != self._room:  # a scroll bar came or went: the room changed, not the size
            self._relayout()
        scroll_x, scroll_y = self.scroll_offset
        line_width = max(self.virtual_size.width, width)
        base, header, even_row, cursor_style = self._styles()
        rows, drawn = self._rows, self._strips
        layout, names = self._layout_now, self._shown_names
        console = self.app.console
        lines: list[Strip] = []
        for y in ys:
            i = y - 1 + scroll_y  # (line 0 is the header, which does not scroll)
            if y == 0:
                key = (layout, line_width, header)
                if self._header is None or self._header[0] != key:
                    titles: list[Cell] = [
                        Text(c.short if j in layout.short and c.short else c.title)
                        for j, c in enumerate(self.columns)
                    ]
                    line = _line(console, titles, layout, header, None, line_width)
                    self._header = (key, line)
                strip = self._header[1]
            elif i >= len(rows):
                lines.append(blank_line(width, base))
                continue
            else:
                row_key = rows[i][0]
                cursor = i == self._cursor
                even = self.zebra_stripes and i % 2 == 0
                style = even_row if even else base
                post = cursor_style if cursor else None
                name = names[i] if names is not None else None
                state = (cursor, even, layout, line_width, style, post, name)
                cached = drawn.get(row_key)
                if cached is not None and cached[0] == state:
                    strip = cached[1]
                else:
                    self.rendered_rows += 1
                    strip = _line(
                        console,
                        self._shown_cells(i),
                        layout,
                        style + post if post else style,
                        post,
                        line_width,
                        SELECTED if cursor else " " * PAD,
                        style,
                    )
                    drawn[row_key] = (state, strip)
            if scroll_x or strip.cell_length != width:
                strip = strip.crop_extend(scroll_x, scroll_x + width, base)
            lines.append(strip)
        return lines


def _line(
    console: Console,
    cells: Sequence[Cell],
    layout: Layout,
    style: Style,
    post: Style | None,
    line_width: int,
    mark: str = " " * PAD,
    mark_style: Style | None = None,
) -> Strip:
    """One line of the list: ``mark``, then each cell padded to its column in ``layout`` (a
    cuttable column's cut); the cells' own styles over ``style``, ``post`` over them (the
    cursor's).

    Every cell's segments carry ``{"column": j}`` meta, which keeps one cell's padding from
    merging into the next cell's text: SVG screenshots (snapshots) draw a run that starts
    with spaces out of place. (One meta style per column: ``Style.__add__`` caches the sums.)
    """
    segments: list[Segment] = [Segment(mark, mark_style or style)]
    get_style = console.get_style
    gap = layout.gap
    for j, (cell, width) in enumerate(zip(cells, layout.widths, strict=False)):
        if not width:
            continue  # a column left out at this width
        cell_style = style + _column_meta(j)
        if length(cell) > width:  # (only a cuttable column's cells: the others fit)
            cell = _cut(cell, width)
        if isinstance(cell, Text):
            base = cell_style + get_style(cell.style) if cell.style else cell_style
            segments.extend(Segment.apply_style(cell.render(console), base, post))
            used = cell.cell_len
        else:
            segments.append(Segment(cell, cell_style + post if post else cell_style))
            used = cell_len(cell)
        segments.append(Segment(" " * (width - used + gap), cell_style))
    return Strip(segments).extend_cell_length(line_width, style)
