"""The benchmark harness imports and runs: one tiny measurement, no timing asserts.

The benchmarks themselves run with ``uv run python -m benchmarks`` (see benchmarks/README.md).
"""

from __future__ import annotations

import json

import benchmarks.run  # noqa: F401  (every group imports)
from benchmarks import saving
from benchmarks.common import Row, table


def test_benchmark_harness_measures_and_reports() -> None:
    rows = saving.measure(1, sizes=(10, 60))
    assert all(isinstance(r, Row) for r in rows)
    assert any(r.figure.startswith("load") for r in rows)
    assert "command + save, log 60" in table(rows)


def test_key_press_harness_times_every_key() -> None:
    from benchmarks import keys

    rows = keys.measure(1, 1, sizes=(3,))
    assert [r.figure.split(",")[0] for r in rows] == [
        "key n (next turn)",
        "key u (undo)",
        "key a digit on the command line",
        "key d confirm (d 5 ⏎)",
    ]
    assert all(r.ours.startswith("p50 ") and r.ratio for r in rows)


def test_start_up_child_launches_what_a_user_runs(tmp_path) -> None:
    """The app side goes through the ``facility-tui`` script's launcher (its first frame found
    by hooks set as Textual is imported), the bare side through the same hooks."""
    from benchmarks import startup

    env = startup._child_env(tmp_path)
    app = startup._launch("app", tmp_path, env)
    bare = startup._launch("bare", tmp_path, env)  # (the rows the app showed)
    for run in (app, bare):
        assert 0 < run["constructed"] < run["first_frame"]
        assert run["d20"] == 0.0
    assert any((tmp_path / "saves-app").glob("*.toml"))  # the demo it opened, saved there
    assert json.loads((tmp_path / "rows.json").read_text())["rows"]


def test_campaign_sizes_harness_reports_every_figure() -> None:
    """Issue 25's group on tiny sizes: launches of a save of each size beside the bare app, the
    keys that cross a round (the round checked on each press), and command + save per log."""
    from benchmarks import sizes

    rows = sizes.measure(1, 1, 1, combatants=(3,), events=(40, 80))
    figures = [r.figure.strip() for r in rows]
    for label in ("3 combatants", "40 log events", "80 log events"):
        assert f"start-up to first frame, {label}" in figures
        assert f"peak memory at start-up, {label}" in figures
        assert f"`apply next`, {label}" in figures
    assert [f for f in figures if f.startswith("key")] == [
        f"key {key}, 3 combatants ({system})"
        for system in ("2297", "facility")
        for key in ("n mid-round", "n that ends the round", "u back across the round")
    ]
    assert "command + save, log 80" in figures
    assert "growth 40 → 80 events" in figures
    floor = [r for r in rows if r.figure.strip().startswith("bare:")]  # (a reference alone)
    assert len(floor) == 1 and floor[0].bare.startswith("p50 ")
    assert all(r.ratio for r in rows if r.bare != "—" and r not in floor)
    assert "PASS" in table(rows) or "MISS" in table(rows)
