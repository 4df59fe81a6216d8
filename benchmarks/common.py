"""Shared pieces: statistics, result rows, the report table, and sessions of a given size."""

from __future__ import annotations

import os
import statistics
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from facility_tui.commands.session import Session


def median(xs: Sequence[float]) -> float:
    return statistics.median(xs)


def p95(xs: Sequence[float]) -> float:
    """Nearest-rank 95th percentile (the max for fewer than 20 samples)."""
    s = sorted(xs)
    return s[max(0, -(-95 * len(s) // 100) - 1)]


@dataclass
class Row:
    """One line of the report: our figure, the bare-Textual one if any, and the budget verdict."""

    figure: str
    ours: str
    bare: str = "—"
    ratio: float | None = None
    budget: str = ""
    ok: bool | None = None  # None: no budget on this line (shown for orientation)
    note: str = ""

    @property
    def verdict(self) -> str:
        return "" if self.ok is None else ("PASS" if self.ok else "MISS")


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.1f} ms"


def _ratio(row: Row) -> str:
    return "—" if row.ratio is None else f"{row.ratio:.2f}×"


def table(rows: Sequence[Row]) -> str:
    head = ("figure", "facility-tui", "bare Textual", "ratio", "budget", "")
    cells = [(r.figure, r.ours, r.bare, _ratio(r), r.budget, r.verdict) for r in rows]
    widths = [max(len(str(c[i])) for c in [head, *cells]) for i in range(len(head))]
    lines = []
    for n, c in enumerate([head, *cells]):
        lines.append("  ".join(str(v).ljust(w) for v, w in zip(c, widths, strict=True)).rstrip())
        if n == 0:
            lines.append("  ".join("-" * w for w in widths))
    notes = [f"  * {r.figure}: {r.note}" for r in rows if r.note]
    return "\n".join(lines + (["", "notes:", *notes] if notes else []))


def load_line() -> tuple[str, bool]:
    """The 1-minute load average and whether it is high enough to distrust the figures."""
    one, five, _ = os.getloadavg()
    cpus = os.cpu_count() or 1
    high = one > 0.5 * cpus
    text = f"load average {one:.2f} (5 min {five:.2f}) on {cpus} CPUs"
    if high:
        text += " — WARNING: machine is busy, figures are noisy; compare ratios, not absolutes"
    return text, high


def build_session(
    combatants: int,
    events: int = 0,
    seed: int = 7,
    init: str = "1d100",
    system: str = "2297",
) -> Session:
    """A started fight with ``combatants`` goons and at least ``events`` log entries.

    Built only from the common commands (``add``, ``start``, ``roll``), as a GM would. Initiative
    is ``1d100`` rather than ``2d6``: 200 goons on 2d6 tie in groups of a dozen or more, which the
    2297 d10 roll-off cannot separate, and ``start`` then logs ~17,000 roll-offs (see
    docs/benchmarks.md); that would measure the roll-off, not 200 combatants. A Facility fight
    (``system="facility"``) is two PCs and the rest grunts: its sides take turns, no initiative.
    """
    from attrs import evolve

    from facility_tui.commands.session import Session
    from facility_tui.store import blank

    session = Session(evolve(blank(), seed=seed))
    left = combatants
    if system == "facility":
        session.execute(f"new facility Sizes seed={seed}")
        session.execute("add Dee side=pc phy=2")
        session.execute("add Eve side=pc ins=2")
        left -= 2
    goon = "add Goon init={init}" if system != "facility" else "add Grunt track=12"
    while left > 0:
        k = min(50, left)
        session.execute(goon.format(init=init) + (f" count={k}" if k > 1 else ""))
        left -= k
    # (Facility: the GM says who goes first, so no initiative roll waits for its salvage)
    session.execute("start first=pc" if system == "facility" else "start")
    while len(session.encounter.log) < events:
        session.execute("roll 2d6")
    return session
