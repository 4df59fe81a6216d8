"""The bare side of the key benchmarks: bare Textual making the same screen change as the app.

After every key the app is pressed (timed or not), ``shown`` reads what its list and its command
line show: the columns, the rows and the selected one, whether the line has focus, its text and
its preview. ``mirror_app`` is the bare Textual app of the other figures (``Header``, a
``DataTable`` with the same rows, ``Footer``, here listing the keys the app's key bar lists) with
a command line (an ``Input``, and a ``Static`` under it for the preview). It is pressed the same
keys in the same order, and each key makes the app's next screen there, as a Textual app would,
changing only what changed:

- the table's cells that differ, each by ``update_cell_at`` (another order of rows, a round's
  start: its rows replaced), and its cursor moved to the row selected;
- focus moved between the table and the line, the line's text set, its preview updated.

The app changes more at each key (its status line, its panes, its log, its save): this side
makes the list's and the line's part of it, a stricter reference than the whole screen made of
stock widgets. ``n``, ``u``, ``d`` and escape act as the app's priority bindings do; ``5`` is typed
into the focused ``Input`` by Textual, whose ``Changed`` shows the preview; enter is the
``Input``'s own, whose ``Submitted`` shows the result. ``applied`` counts the screens made.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from rich.text import Text

Cell = Any  # a Rich ``Text`` or a ``str``, as the app's list holds them


@dataclass(frozen=True)
class Shown:
    """What the app's list and command line show (``shown``)."""

    columns: tuple[str, ...]
    rows: tuple[tuple[str, tuple[Cell, ...]], ...]
    cursor: str | None
    typing: bool  # the command line has focus
    line: str
    preview: str


def shown(app: Any) -> Shown:
    """What ``app`` (a ``FacilityApp`` on its main screen) shows now."""
    table = app.screen.query_one("#order")
    bar = app.screen.query_one("#command")
    return Shown(
        columns=tuple(c.title for c in table.columns),
        rows=tuple((key, tuple(cells)) for key, cells in table.rows),
        cursor=table.cursor_key,
        typing=bar.has_focus,
        line=bar.value,
        preview=bar.preview,
    )


def _same(a: Cell, b: Cell) -> bool:
    if isinstance(a, Text) and isinstance(b, Text):
        return a.plain == b.plain and a.style == b.style and a.spans == b.spans
    return bool(a == b)


def mirror_app(screens: Sequence[Shown], keys: Sequence[tuple[str, str]]) -> Any:
    """The bare app showing ``screens[0]``, each key making the next one; ``keys``: the (key,
    description) pairs its ``Footer`` lists, as the app's key bar lists them."""
    from textual.app import App, ComposeResult
    from textual.binding import Binding
    from textual.widgets import DataTable, Footer, Header, Input, Static

    class Mirror(App[None]):
        CSS = """
        #order { height: 1fr; }
        #command { dock: bottom; height: 1; margin-bottom: 2; border: none; padding: 0 1; }
        #preview { dock: bottom; height: 1; margin-bottom: 1; padding: 0 1; }
        """
        BINDINGS = [
            Binding("n", "show_next", "Next", priority=True),
            Binding("u", "show_next", "Undo", priority=True),
            Binding("d", "show_next", "Damage", priority=True),
            Binding("escape", "show_next", "Close", priority=True, show=False),
            *(Binding(key, "nothing", said) for key, said in keys if key not in ("n", "u", "d")),
        ]

        def __init__(self) -> None:
            super().__init__()
            self.screens = list(screens)
            self.at = 0
            self.applied = 0
            self.now = screens[0]

        def compose(self) -> ComposeResult:
            yield Header()
            yield DataTable(id="order", cursor_type="row", zebra_stripes=True)
            yield Input(id="command")
            yield Static(id="preview")
            yield Footer()

        def on_mount(self) -> None:
            first = self.screens[0]
            table = self.query_one(DataTable)
            table.add_columns(*first.columns)
            for key, cells in first.rows:
                table.add_row(*cells, key=key)
            table.focus()

        def action_nothing(self) -> None:
            pass

        def action_show_next(self) -> None:
            self._show(self._next())

        def on_input_changed(self, event: Input.Changed) -> None:
            # (a value typed, not one set by ``_show``: that one is the screen's already)
            if event.input.has_focus and event.value != self.now.line:
                self._show(self._next())

        def on_input_submitted(self, _event: Input.Submitted) -> None:
            self._show(self._next())

        def _next(self) -> Shown:
            self.at += 1
            return self.screens[self.at]

        def _show(self, new: Shown) -> None:
            old, self.now = self.now, new
            table = self.query_one(DataTable)
            if [key for key, _ in old.rows] != [key for key, _ in new.rows]:
                table.clear()
                for key, cells in new.rows:
                    table.add_row(*cells, key=key)
            else:
                for i, ((_, was), (_, cells)) in enumerate(zip(old.rows, new.rows, strict=True)):
                    for j, (a, b) in enumerate(zip(was, cells, strict=True)):
                        if not _same(a, b):
                            table.update_cell_at((i, j), b)
            if new.cursor is not None:
                row = next(i for i, (key, _) in enumerate(new.rows) if key == new.cursor)
                if row != table.cursor_row:
                    table.move_cursor(row=row)
            line = self.query_one(Input)
            if line.value != new.line:
                line.value = new.line
            if new.typing and not line.has_focus:
                line.focus()
                line.cursor_position = len(new.line)
            elif not new.typing and line.has_focus:
                table.focus()
            if old.preview != new.preview:
                self.query_one("#preview", Static).update(Text(new.preview))
            self.applied += 1

    return Mirror()
