"""One start-up measurement, run in a fresh interpreter: ``python child.py KIND T0 WORKDIR``.

KIND is ``app`` (facility-tui on the demo encounter) or ``bare`` (Header + DataTable + Footer with
the rows in ``WORKDIR/rows.json``). T0 is the parent's ``time.monotonic()`` just before it spawned
this process (CLOCK_MONOTONIC is system-wide on Linux), so the figure includes interpreter start-up
and every import. The first frame is the first compositor update that shows a DataTable with rows;
headless Textual skips turning it into terminal text, so this does that too, then exits.

Prints one JSON line: seconds to the App being built (imports done) and to the first frame, peak
RSS in KiB, whether ``d20`` (dice, ~0.2 s to import) was loaded by then, and the table's rows.
Imports nothing of its own before the app, so the figures are what a user's launch pays.
"""

from __future__ import annotations

import contextlib
import sys
import time


def main() -> None:
    kind, t0, workdir = sys.argv[1], float(sys.argv[2]), sys.argv[3]
    from textual.app import App
    from textual.widgets import DataTable

    if kind == "app":
        from pathlib import Path

        from facility_tui.app import FacilityApp

        app: App[None] = FacilityApp(save_dir=Path(workdir), seed=1)
    else:
        app = _bare_app(workdir)

    result: dict[str, object] = {}
    constructed = time.monotonic() - t0  # imports done, App() built
    original = App._display

    def display(self: App[None], screen: object, renderable: object) -> None:
        original(self, screen, renderable)  # type: ignore[arg-type]
        if result or renderable is None:
            return
        tables = self.screen.query("#order") if kind == "app" else self.screen.query(DataTable)
        if not tables or not tables.first().row_count:
            return
        with contextlib.suppress(AttributeError):  # headless skips this step of a real frame
            renderable.render_segments(self.console)  # type: ignore[attr-defined]
        result["first_frame"] = time.monotonic() - t0
        result["constructed"] = constructed
        result["d20"] = "d20" in sys.modules
        result["rows"] = _rows(tables.first())
        self.exit()

    App._display = display  # type: ignore[method-assign]
    app.run(headless=True, size=(80, 24))

    import json
    import resource

    result["maxrss_kib"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(json.dumps(result))


def _bare_app(workdir: str):  # type: ignore[no-untyped-def]
    import json
    from pathlib import Path

    data = json.loads((Path(workdir) / "rows.json").read_text())
    return bare_app(data["columns"], data["rows"])


def bare_app(columns: list[str], rows: list[list[str]]):  # type: ignore[no-untyped-def]
    """The reference: Header + DataTable with the same rows + Footer (also used by ``keys``)."""
    from textual.app import App, ComposeResult
    from textual.widgets import DataTable, Footer, Header

    class Bare(App[None]):
        def compose(self) -> ComposeResult:
            yield Header()
            yield DataTable(cursor_type="row", zebra_stripes=True)
            yield Footer()

        def on_mount(self) -> None:
            table = self.query_one(DataTable)
            table.add_columns(*columns)
            table.add_rows(rows)
            table.focus()

    return Bare()


def _rows(table) -> dict[str, list]:  # type: ignore[no-untyped-def]
    """The table's text: a DataTable (bare) or the app's initiative list (``#order``)."""
    if hasattr(table, "ordered_columns"):
        columns = [str(c.label) for c in table.ordered_columns]
        rows = [[str(cell) for cell in table.get_row_at(i)] for i in range(table.row_count)]
    else:
        columns = [str(c) for c in table.columns]
        rows = [[str(cell) for cell in cells] for _key, cells in table.rows]
    return {"columns": columns, "rows": rows}


if __name__ == "__main__":
    main()
