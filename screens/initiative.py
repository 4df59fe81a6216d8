"""The initiative list: a line-API table that redraws only the rows that changed.

``DataTable`` re-measures and re-renders every visible cell on any change (its caches key on an
update counter), which costs 40–150 ms a key press at 200 rows. This widget keeps one rendered
``Strip`` per row, keyed on what the row looks like (its cells, cursor, zebra stripe, focus, column
widths), and ``set_rows`` diffs the new rows by key so that only changed lines are repainted.

Colours come from component classes (``initiative-list--header``, ``--cursor``,
``--cursor-blurred``, ``--even-row``); ``styles/app.tcss`` sets them. Focus changes only the cursor
row's look, and the list repaints only that row when focus comes and goes (every confirm on the
command line), where a widget would repaint all of itself.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from typing import ClassVar, Self

from rich.cells import cell_len
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual import events
from textual.binding import Binding, BindingType
from textual.geometry import Region, Size
from textual.message import Message
from textual.scroll_view import ScrollView
from textual.strip import Strip

from .own_lines import OwnLines, blank_line

Cell = Text | str
Row = tuple[str, list[Cell]]

PAD = 1  # blank cells before the first column
GAPS = (2, 1)  # blank cells after each column: 2 when every column fits so, else 1
MIN_FLEX = 10  # the flexible column never shrinks below this (names stay readable)
NAME_GIVE = 3  # characters the longest name may lose so that one column more fits
MIN_TAIL = 8  # the last column is shown cut to the room left, when at least this much is


def middle_cut(text: str, width: int) -> str:
    """A name cut in the middle, so the number that tells "Drone 1" from "Drone 2" stays."""
    if cell_len(text) <= width or width < 4:
        return text[:width]
    tail = width // 3
    return f"{text[: width - tail - 1]}…{text[-tail:]}"


def _length(cell: Cell) -> int:
    return cell.cell_len if isinstance(cell, Text) else cell_len(cell)


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


def _widen(natural: list[int], cells: Sequence[Cell]) -> None:
    """Widen the column widths in ``natural`` to fit these cells."""
    for j, cell in enumerate(cells[: len(natural)]):
        n = _length(cell)
        if n > natural[j]:
            natural[j] = n


@lru_cache(maxsize=64)
def _column_meta(column: int) -> Style:
    return Style.from_meta({"column": column})


class InitiativeList(OwnLines, ScrollView, can_focus=True):
    """Rows of cells under a fixed header line, with a row cursor.

    One column (``flex``, by header text) shrinks when the widget is too narrow for every column's
    content (its cells cut in the middle); the others are as wide as their widest cell. Before
    it shrinks, the last columns are left out, down to the first ``keep`` (so list the columns
    in the order they matter); the last one is shown cut short where its whole would not fit.
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
        self.columns: list[str] = []
        self.rows: list[Row] = []
        self._index: dict[str, int] = {}  # row key -> row index
        self._natural: list[int] = []  # each column's content width
        self._widths: tuple[int, ...] = ()  # each column's shown width (the flex one may shrink)
        self._gap = GAPS[0]
        self.keep = 1  # columns never left out however narrow the list
        self._cursor = 0
        # One strip per row key, with the state it was drawn in (cursor, stripe, widths, styles).
        self._strips: dict[str, tuple[tuple[object, ...], Strip]] = {}
        self._header: tuple[tuple[object, ...], Strip] | None = None
        self._style_memo: tuple[Style, Style, Style, Style, Style] | None = None
        self.rendered_rows = 0
        """How many row strips were rendered (cache misses): for tests and profiling."""

    # -- public API ---------------------------------------------------------------------------

    @property
    def row_count(self) -> int:
        return len(self.rows)

    @property
    def cursor_row(self) -> int:
        return self._cursor

    @property
    def cursor_key(self) -> str | None:
        return self.rows[self._cursor][0] if self.rows else None

    def set_rows(self, columns: Sequence[str], rows: Sequence[Row]) -> None:
        """Show these rows; repaint only those whose key, position or cells changed.

        The cursor stays on the row with the same key (or the same index if that row is gone).
        """
        old_key = self.cursor_key
        old_rows, old_count = self.rows, len(self.rows)
        columns = list(columns)
        new_rows = list(rows)  # cells are kept as given: pass new lists, do not mutate shown ones
        reshaped = columns != self.columns
        if reshaped:
            self.columns = columns
            old_rows = []
        # Columns widen but do not narrow again while they stay the same: the table does not
        # jump as values come and go (an injury healed, an undo), a value as wide as one seen
        # before costs a row's repaint, not every row's, and only changed rows are measured.
        natural = [cell_len(c) for c in columns] if reshaped else list(self._natural)
        changed: list[int] = []
        moved = len(new_rows) != old_count  # rows added, removed or reordered: a new index
        for i, (key, cells) in enumerate(new_rows):
            if i < len(old_rows):
                was_key, kept = old_rows[i]
                if was_key == key:
                    if kept is cells or _same(kept, cells):
                        continue
                else:
                    moved = True
            changed.append(i)
            self._strips.pop(key, None)
            _widen(natural, cells)
        self.rows = new_rows
        if moved or reshaped:
            self._index = {key: i for i, (key, _) in enumerate(new_rows)}
        if natural != self._natural:
            self._natural = natural
            reshaped = True
        if old_key is not None and old_key in self._index:
            self._cursor = self._index[old_key]
        self._cursor = max(0, min(self._cursor, len(new_rows) - 1))
        if reshaped or self._layout() != (self._widths, self._gap):
            self._relayout()
            return
        if len(new_rows) != old_count:
            self._set_virtual_size()
            start = min(len(new_rows), old_count)
            changed.extend(range(start, max(len(new_rows), old_count)))
        for i in changed:
            self._refresh_row(i)
        if self.cursor_key != old_key:
            self._refresh_row(self._index.get(old_key, -1) if old_key else -1)
            self._refresh_row(self._cursor)
            self._scroll_to_cursor()

    def set_cells(self, i: int, cells: list[Cell]) -> None:
        """Give row ``i`` new cells (its key and place unchanged); repaint that row only, unless
        a column widens. ``set_rows`` without looking at every other row."""
        key, kept = self.rows[i]
        if kept is cells or _same(kept, cells):
            return
        self.rows[i] = (key, cells)
        self._strips.pop(key, None)
        natural = list(self._natural)
        _widen(natural, cells)
        if natural != self._natural:
            self._natural = natural
            if self._layout() != (self._widths, self._gap):
                self._relayout()
                return
        self._refresh_row(i)

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
        self._move(len(self.rows) - 1 if end else 0)

    def action_select(self) -> None:
        key = self.cursor_key
        if key is not None:
            self.post_message(self.Selected(self, key))

    def on_click(self, event: events.Click) -> None:
        offset = event.get_content_offset(self)
        if offset is None or offset.y < 1:
            return
        i = offset.y - 1 + self.scroll_offset.y
        if 0 <= i < len(self.rows):
            self._move(i)
            self.action_select()

    # -- cursor -------------------------------------------------------------------------------

    def _move(self, i: int) -> None:
        if not self.rows:
            return
        i = max(0, min(i, len(self.rows) - 1))
        if i == self._cursor:
            self._scroll_to_cursor()
            return
        old, self._cursor = self._cursor, i
        self._refresh_row(old)
        self._refresh_row(i)
        self._scroll_to_cursor()
        self.post_message(self.Highlighted(self, self.cursor_key))

    def _page_rows(self) -> int:
        return max(1, self.scrollable_content_region.height - 1)

    def _scroll_to_cursor(self) -> None:
        top = round(self.scroll_y)
        shown = self._page_rows()
        if self._cursor < top:
            self.scroll_to(y=self._cursor, animate=False, immediate=True)
        elif self._cursor >= top + shown:
            self.scroll_to(y=self._cursor - shown + 1, animate=False, immediate=True)

    # -- layout -------------------------------------------------------------------------------

    def _layout(self) -> tuple[tuple[int, ...], int]:
        """Each column's width (0: left out) at the list's width, and the gap after each."""
        natural = self._natural
        room = self.scrollable_content_region.width
        j = self.columns.index(self.flex) if self.flex in self.columns else -1
        if not natural or not room:
            return tuple(natural), GAPS[0]
        smallest = min(MIN_FLEX, natural[j]) if j >= 0 else 0

        def need(shown: int, gap: int) -> int:
            return PAD + sum(natural[:shown]) + gap * shown

        # Whole names before more columns: the columns past ``keep`` go first, from the last;
        # only then does the flex column shrink (to ``MIN_FLEX`` at least).
        shown, gap = len(natural), GAPS[0]
        if need(shown, gap) > room:
            gap = GAPS[1]
            while shown > self.keep and need(shown, gap) > room:
                shown -= 1
        # One column more is worth a few characters of the longest name (cut in its middle)
        while j >= 0 and shown < len(natural):
            short = need(shown + 1, gap) - room
            if not 0 < short <= NAME_GIVE or natural[j] - short < MIN_FLEX:
                break
            shown += 1
        widths = [*natural[:shown], *[0] * (len(natural) - shown)]
        spare = room - need(shown, gap) - gap
        if shown < len(natural) and shown == len(natural) - 1 and spare >= MIN_TAIL:
            widths[-1] = spare  # the last column takes the room left, cut (effects, notes...)
            shown += 1
        over = PAD + sum(widths) + gap * shown - room
        if j >= 0 and over > 0:
            widths[j] = max(smallest, widths[j] - over)
        return tuple(widths), gap

    def _relayout(self) -> None:
        self._widths, self._gap = self._layout()
        self._strips.clear()
        self._header = None
        self._set_virtual_size()
        self.refresh()
        self._scroll_to_cursor()

    def _set_virtual_size(self) -> None:
        # Rows narrower than the list are padded to its width anyway; counting them as that wide
        # keeps a column growing inside it (a longer status) from costing a layout pass.
        shown = sum(1 for w in self._widths if w)
        width = PAD + sum(self._widths) + self._gap * shown
        width = max(width, self.scrollable_content_region.width)
        self.virtual_size = Size(width, len(self.rows) + 1)

    def on_resize(self) -> None:
        if self._layout() != (self._widths, self._gap):
            self._relayout()
        else:
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
        self._refresh_row(self._cursor)

    def _on_blur(self, event: events.Blur) -> None:
        event.prevent_default()
        self.has_focus = False
        self._refresh_row(self._cursor)

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._header = None  # rows keep their strips: their state holds the styles they used
        self._style_memo = None

    def _refresh_row(self, i: int) -> None:
        if i < 0:
            return
        y = i + 1 - round(self.scroll_y)
        if 1 <= y < self.size.height:
            self.refresh(Region(0, y, self.size.width, 1))

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

    def _cells(
        self, cells: Sequence[Cell], style: Style, post: Style | None, line_width: int
    ) -> Strip:
        """One line: each cell cut to its column, padded; the cells' own styles over ``style``.

        Every cell's segments carry ``{"column": j}`` meta, which keeps one cell's padding from
        merging into the next cell's text: SVG screenshots (snapshots) draw a run that starts
        with spaces out of place. (One meta style per column: ``Style.__add__`` caches the sums.)
        """
        segments: list[Segment] = [Segment(" " * PAD, style)]
        console = self.app.console
        get_style = console.get_style
        gap = self._gap
        flex = self.columns.index(self.flex) if self.flex in self.columns else -1
        for j, (cell, width) in enumerate(zip(cells, self._widths, strict=False)):
            if not width:
                continue  # a column left out at this width
            cell_style = style + _column_meta(j)
            if isinstance(cell, Text):
                text = cell
                if cell.cell_len > width:
                    if j == flex:
                        text = Text(middle_cut(cell.plain, width), style=cell.style)
                    else:
                        text = cell.copy()
                        text.truncate(width, overflow="ellipsis")
                base = cell_style + get_style(text.style) if text.style else cell_style
                segments.extend(Segment.apply_style(text.render(console), base, post))
                used = text.cell_len
            else:
                if cell_len(cell) > width:
                    if j == flex:
                        cell = middle_cut(cell, width)
                    else:
                        cut = Text(cell)
                        cut.truncate(width, overflow="ellipsis")
                        cell = cut.plain
                segments.append(Segment(cell, cell_style + post if post else cell_style))
                used = cell_len(cell)
            segments.append(Segment(" " * (width - used + gap), cell_style))
        return Strip(segments).extend_cell_length(line_width, style)

    def strips(self, ys: range) -> list[Strip]:
        scroll_x, scroll_y = self.scroll_offset
        width = self.scrollable_content_region.width
        line_width = max(self.virtual_size.width, width)
        base, header, even_row, cursor_style = self._styles()
        rows, drawn = self.rows, self._strips
        lines: list[Strip] = []
        for y in ys:
            i = y - 1 + scroll_y  # (line 0 is the header, which does not scroll)
            if y == 0:
                key = (self._widths, self._gap, line_width, header)
                if self._header is None or self._header[0] != key:
                    titles = [Text(c) for c in self.columns]
                    self._header = (key, self._cells(titles, header, None, line_width))
                strip = self._header[1]
            elif i >= len(rows):
                lines.append(blank_line(width, base))
                continue
            else:
                row_key, cells = rows[i]
                cursor = i == self._cursor
                even = self.zebra_stripes and i % 2 == 0
                style = even_row if even else base
                post = cursor_style if cursor else None
                state = (cursor, even, self._widths, self._gap, line_width, style, post)
                cached = drawn.get(row_key)
                if cached is not None and cached[0] == state:
                    strip = cached[1]
                else:
                    self.rendered_rows += 1
                    strip = self._cells(cells, style + post if post else style, post, line_width)
                    drawn[row_key] = (state, strip)
            if scroll_x or strip.cell_length != width:
                strip = strip.crop_extend(scroll_x, scroll_x + width, base)
            lines.append(strip)
        return lines
