"""Figures 4 and 5: one command applied + saved as the log grows, and loading a long fight.

Everything runs in this process on sessions built from common commands. "UI thread blocked" is
the longest stretch the thread that asked for the save loses to it: the save request itself
(``facility_tui.autosave.Autosaver.request`` when that module exists, else starting a thread as the
app's save worker does), or the longest stall a ticking main thread sees while the background save
holds the GIL, whichever is longer. The same ticker beside a thread that only sleeps gives the
machine's own scheduling noise ("idle"), which is subtracted.
"""

from __future__ import annotations

import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path

from benchmarks.common import Row, build_session, median, ms

LOG_SIZES = (100, 1_000, 10_000)
LINE = "roll 2d6"


def _stall_during(work: Callable[[], None]) -> tuple[float, float]:
    """Run ``work`` on a new thread, as the app's save worker does: the time to start it, and the
    longest time the main thread then waited beyond a 1 ms sleep (the GIL held by ``work``)."""
    done = threading.Event()

    def target() -> None:
        try:
            work()
        finally:
            done.set()

    thread = threading.Thread(target=target)
    worst = 0.0
    t0 = time.perf_counter()
    thread.start()
    start = time.perf_counter() - t0
    while not done.is_set():
        t = time.perf_counter()
        time.sleep(0.001)
        worst = max(worst, time.perf_counter() - t - 0.001)
    thread.join()
    return start, worst


def _autosaver() -> type | None:
    try:
        from facility_tui.autosave import Autosaver
    except ImportError:
        return None
    return Autosaver


def measure(repeat: int, sizes: tuple[int, ...] = LOG_SIZES) -> list[Row]:
    from facility_tui import store

    rows: list[Row] = []
    saver_type = _autosaver()
    figures: dict[int, float] = {}
    with tempfile.TemporaryDirectory(prefix="bench-save-") as tmp:
        for size in sizes:
            session = build_session(20, size)
            path = Path(tmp) / f"log-{size}.toml"
            store.save(session, path)  # the first save of a fight may write more; measure steady
            execute, save, spawn, stall, idle = [], [], [], [], []
            for _ in range(repeat):
                t0 = time.perf_counter()
                session.execute(LINE)
                t1 = time.perf_counter()
                store.save(session, path)
                t2 = time.perf_counter()
                execute.append(t1 - t0)
                save.append(t2 - t1)
                session.execute(LINE)
                cost, worst = _stall_during(lambda s=session, p=path: store.save(s, p))
                spawn.append(cost)
                stall.append(worst)
                idle.append(_stall_during(lambda d=t2 - t1: time.sleep(d))[1])
            total = median([a + b for a, b in zip(execute, save, strict=True)])
            figures[size] = total
            row = Row(
                f"command + save, log {size:,}",
                f"{ms(total)} (execute {ms(median(execute))}, save {ms(median(save))})",
            )
            blocked, how = median(spawn), "thread start"
            if saver_type is not None:
                blocked, how = _request_cost(saver_type, session, path, repeat), "Autosaver.request"
            gil = max(0.0, median(stall) - median(idle))
            ui = max(blocked, gil)
            ui_row = Row(
                f"  UI thread blocked, log {size:,}",
                f"{ms(ui)} ({how} {ms(blocked)}, GIL stall {ms(median(stall))} "
                f"- idle {ms(median(idle))})",
            )
            if size == max(sizes):
                row.budget, row.ok = "≤ 5 ms", total <= 0.005
                ui_row.budget, ui_row.ok = "≤ 2 ms", ui <= 0.002
            rows += [row, ui_row]
            if size == max(sizes):
                rows.append(_load_row(path, size, repeat))
        rows.append(_load_200(Path(tmp), repeat))
        small, big = figures[min(sizes)], figures[max(sizes)]
        growth = big / small if small else float("inf")
        flat_ok = growth <= 2.0
        rows.append(
            Row(
                f"  growth {min(sizes):,} → {max(sizes):,} events",
                f"{growth:.1f}× (flat means ≤ 2×)",
                budget="flat",
                ok=flat_ok,
            )
        )
    return rows


def _request_cost(saver_type: type, session: object, path: Path, repeat: int) -> float:
    """Median time of ``Autosaver.request`` on the caller's thread, each followed by a flush."""
    saver = saver_type(path)
    try:
        costs = []
        for _ in range(repeat):
            session.execute(LINE)  # type: ignore[attr-defined]
            t0 = time.perf_counter()
            saver.request(session)
            costs.append(time.perf_counter() - t0)
            saver.flush(30.0)
        return median(costs)
    finally:
        saver.close(30.0)


def _load_row(path: Path, size: int, repeat: int) -> Row:
    from facility_tui import store

    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        session = store.load(path)
        times.append(time.perf_counter() - t0)
    n = len(session.encounter.log)
    t = median(times)
    return Row(f"load, {n:,} log events", ms(t), budget="≤ 150 ms", ok=t <= 0.150)


def _load_200(tmp: Path, repeat: int) -> Row:
    """Issue 16: 200 combatants with full 2297 sheets (the demo's, copied), 10,000 log events."""
    from benchmarks.fight_table import demo_session
    from facility_tui import store

    session = demo_session(200, 10_000)
    path = tmp / "demo-200.toml"
    store.save(session, path)  # type: ignore[arg-type]
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        store.load(path)
        times.append(time.perf_counter() - t0)
    t = median(times)
    return Row("load, 200 demo combatants, 10,000 events", ms(t), budget="≤ 150 ms", ok=t <= 0.150)
