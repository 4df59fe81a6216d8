"""One start-up measurement, run in a fresh interpreter: ``python child.py KIND T0 WORKDIR``.

KIND is ``app`` (facility-tui on the demo encounter, launched as a user launches it: the
``facility-tui`` script's ``facility_tui.launch.main`` with ``--saves WORKDIR --seed 1``) or
``bare`` (Header + DataTable + Footer with the rows in ``WORKDIR/rows.json``, run as a plain
Textual app is). T0 is the parent's ``time.monotonic()`` just before it spawned this process
(CLOCK_MONOTONIC is system-wide on Linux), so the figure includes interpreter start-up and every
import. The first frame is the first compositor update that shows a DataTable with rows; headless
Textual skips turning it into terminal text, so this does that too, then exits.

Prints one JSON line: seconds to ``App.run`` (imports done, App built), and to the first frame,
peak RSS in KiB (``VmHWM``), whether ``d20`` (dice, ~0.2 s to import) was loaded by then, and the
table's rows.
Both kinds are measured the same way: nothing is imported before the launch but the few modules
this file needs (``importlib.machinery`` is loaded at interpreter start anyway). ``App.run``
(made headless, 80×24) and ``App._display`` are hooked as ``textual.app`` is first imported, by
whoever imports it, so the launch does its own imports in its own order (the app's launcher holds
the garbage collector off while it imports).
"""

from __future__ import annotations

import contextlib
import sys
import time
from importlib.machinery import PathFinder


def main() -> None:
    kind, t0, workdir = sys.argv[1], float(sys.argv[2]), sys.argv[3]
    result: dict[str, object] = {}
    sys.meta_path.insert(0, _AfterImport("textual.app", lambda m: _hook(m.App, kind, t0, result)))
    if kind == "app":
        from facility_tui.launch import main as launch

        sys.argv = ["facility-tui", "--saves", workdir, "--seed", "1"]
        launch()
    else:
        _bare_app(workdir).run()

    import json

    result["maxrss_kib"] = _peak_rss_kib()
    print(json.dumps(result))


def _peak_rss_kib() -> int:
    """This process's peak resident memory: ``VmHWM`` where Linux has it, since ``ru_maxrss``
    carries the launching process's peak over the fork and exec (a parent holding a 1,000-combatant
    fight made every child, app or bare, look 144 MiB)."""
    import resource

    with contextlib.suppress(OSError, ValueError), open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


class _AfterImport:
    """An import hook: runs ``then(module)`` right after ``name`` is first imported."""

    def __init__(self, name, then) -> None:  # type: ignore[no-untyped-def]
        self.name, self.then = name, then

    def find_spec(self, name, path=None, target=None):  # type: ignore[no-untyped-def]
        if name != self.name:
            return None
        sys.meta_path.remove(self)
        spec = PathFinder.find_spec(name, path)
        exec_module = spec.loader.exec_module

        def run(module) -> None:  # type: ignore[no-untyped-def]
            exec_module(module)
            self.then(module)

        spec.loader.exec_module = run
        return spec


def _hook(app_class, kind: str, t0: float, result: dict[str, object]) -> None:  # type: ignore[no-untyped-def]
    run, display = app_class.run, app_class._display

    def headless_run(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        result["constructed"] = time.monotonic() - t0  # imports done, App() built
        return run(self, headless=True, size=(80, 24))

    def first_frame(self, screen, renderable) -> None:  # type: ignore[no-untyped-def]
        display(self, screen, renderable)
        if "first_frame" in result or renderable is None:
            return
        if kind == "app":
            tables = self.screen.query("#order")  # (not DataTable: the app never imports it)
        else:
            from textual.widgets import DataTable

            tables = self.screen.query(DataTable)
        if not tables or not tables.first().row_count:
            return
        with contextlib.suppress(AttributeError):  # headless skips this step of a real frame
            renderable.render_segments(self.console)
        result["first_frame"] = time.monotonic() - t0
        result["d20"] = "d20" in sys.modules
        result["rows"] = _rows(tables.first())
        self.exit()

    app_class.run, app_class._display = headless_run, first_frame


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
