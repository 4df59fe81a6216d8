"""The forecast's worker processes play at the lowest priority (issue 26: the tracker's keys come
first on a busy core) and stop when the forecast is closed."""

from __future__ import annotations

import gc
import multiprocessing
import os
import time

import hypothesis.strategies as st
import pytest
from hypothesis import given

from facility_tui.commands.dispatch import apply
from facility_tui.forecast import engine as forecast
from facility_tui.model.encounter import Encounter
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


def demo_2297() -> Encounter:
    enc = Encounter("x", "2297")
    for line in rules_for("2297").demo:
        enc = apply(enc, line).encounter
    return enc


@given(st.integers(0, 3000), st.integers(1, 50), st.integers(1, 4))
def test_the_plays_are_cut_into_spans_that_cover_them_once(
    runs: int, chunk: int, count: int
) -> None:
    spans = forecast._spans(runs, chunk, count)
    first = 0
    for start, size in spans:
        assert start == first
        assert 1 <= size <= chunk
        first += size
    assert first == runs
    if count == 1:  # (one process: even chunks, the last what is left)
        assert all(size == chunk for _, size in spans[:-1])
    elif runs >= 3 * count * chunk:  # (several: full chunks first, the last ones one play)
        assert spans[0][1] == chunk
        assert spans[-1][1] == 1


def threads(monkeypatch: pytest.MonkeyPatch, count: int) -> None:
    """The process runs ``count`` threads, as far as the forecast asks."""
    monkeypatch.setattr(forecast.threading, "active_count", lambda: count)


def test_workers_fork_from_a_process_with_one_thread_else_from_the_forkserver(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    threads(monkeypatch, 1)  # (the CLI)
    assert forecast._context().get_start_method() == "fork"
    threads(monkeypatch, 3)  # (the app: a fork would copy its threads mid-step)
    assert forecast._context().get_start_method() == "forkserver"


def test_forked_or_from_the_forkserver_the_same_seed_gives_the_same_forecast(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    enc = demo_2297()
    here = forecast.forecast(enc, 24, seed=5, processes=1)
    threads(monkeypatch, 1)
    forked = forecast.forecast(enc, 24, seed=5, processes=2)
    threads(monkeypatch, 3)
    served = forecast.forecast(enc, 24, seed=5, processes=2)
    assert here == forked == served


def test_a_worker_collects_its_garbage_rarely() -> None:
    """A worker's collector runs at ``WORKER_GC`` (not Python's default), and what the worker
    had loaded before it played is frozen out of the collector's scans."""
    with forecast._context().Pool(
        1, initializer=forecast._worker, initargs=((demo_2297(), {}, 1),)
    ) as pool:
        assert pool.apply(gc.get_threshold) == forecast.WORKER_GC
        assert pool.apply(gc.get_freeze_count) > 1000
    assert gc.get_threshold() != forecast.WORKER_GC  # (this process keeps its own)
