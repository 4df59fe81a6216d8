"""The forecast's worker processes play at the lowest priority (issue 26: the tracker's keys come
first on a busy core) and stop when the forecast is closed."""

from __future__ import annotations

import multiprocessing
import os
import time

from facility_tui import forecast
from facility_tui.dispatch import apply
from facility_tui.model import Encounter
from facility_tui.systems import rules_for


def test_workers_run_at_nice_19_and_end_with_the_forecast() -> None:
    enc = Encounter("x", "facility")
    for line in rules_for("facility").demo:
        enc = apply(enc, line).encounter
    plays = forecast.run(enc, 400, 1, processes=2, chunk=5)
    first = next(plays)  # (the pool is up and playing)
    assert first.runs == 5
    workers = [p for p in multiprocessing.active_children() if p.pid is not None]
    assert len(workers) == 2
    # A worker lowers its priority first thing, before it plays: one still starting may not
    # have yet, so it is given a moment (a loaded machine starts the second one late).
    deadline = time.monotonic() + 10
    while {os.getpriority(os.PRIO_PROCESS, p.pid or 0) for p in workers} != {19}:
        assert time.monotonic() < deadline, "a worker plays at a priority other than nice 19"
        time.sleep(0.05)
    plays.close()
    assert not [p for p in workers if p.is_alive()]


def test_a_worker_starts_with_every_rule_systems_rules_loaded() -> None:
    """The forkserver imports the rules once (``forecast_rules``): a worker forked from it
    plays its first play without importing them first."""
    forecast._start_helpers()
    wanted = (
        "facility_tui.systems.r2297.commands.attacks",
        "facility_tui.systems.r2297.system",
        "facility_tui.systems.facility.system",
    )
    ask = f"[m for m in {wanted!r} if m in __import__('sys').modules]"
    with multiprocessing.get_context("forkserver").Pool(1) as pool:
        assert pool.apply(eval, (ask,)) == list(wanted)
