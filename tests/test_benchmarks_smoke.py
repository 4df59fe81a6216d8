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
