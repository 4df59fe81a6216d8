"""The benchmark harness imports and runs: one tiny measurement, no timing asserts.

The benchmarks themselves run with ``uv run python -m benchmarks`` (see benchmarks/README.md).
"""

from __future__ import annotations

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
