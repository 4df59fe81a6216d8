"""The danger forecast's speed (issue 26): plays per second of each demo fight beside the engine's
commands per second, in this process and with the worker pool.

``uv run python -m benchmarks.forecast [runs]`` (default 2500) prints, per demo fight: the
engine's commands per second (``dispatch.apply`` of the lines a play runs, timed alone), plays
per second in one process and the commands a play takes (their ratio), then the whole forecast
of ``runs`` plays with the pool (one worker per core): wall time, plays per second, and the
CPU seconds the workers' plays took (on a busy machine the wall time says more about the
neighbours than about the forecast: the CPU seconds do not).
Budget: 2,500 plays within 10 s on 2 cores (issue 39: a tuned fight confirmed at ±2 points in
the time a forecast took before). The keys while a forecast plays: ``benchmarks.forecast_keys``.
"""

from __future__ import annotations

import sys
import time

from benchmarks.common import load_line, median

BUDGET_S = 10.0
BUDGET_RUNS = 2500  # plays within ``BUDGET_S`` on 2 cores (issue 39)


def _demo(system: str) -> object:
    from facility_tui.commands.dispatch import apply
    from facility_tui.model.encounter import Encounter
    from facility_tui.systems import rules_for

    enc = Encounter("x", system)
    for line in rules_for(system).demo:
        enc = apply(enc, line).encounter
    return enc


def _engine_rate(enc: object, plays: int = 20) -> tuple[float, float]:
    """Commands per second of the engine alone, and commands per play: the lines of ``plays``
    plays recorded, then applied again, timed (the same encounters, the same dice)."""
    from facility_tui.commands import dispatch
    from facility_tui.forecast import engine as forecast

    recorded: list[tuple[object, str, dict[str, object]]] = []
    real = dispatch.apply

    def recording(e, line, *args, **kwargs):  # type: ignore[no-untyped-def]
        recorded.append((e, line, kwargs))  # (with the play's dice stream)
        return real(e, line, *args, **kwargs)

    forecast.apply = recording  # type: ignore[assignment]
    try:
        for i in range(plays):
            forecast.play_once(enc, {}, forecast.play_seed(0, i))  # type: ignore[arg-type]
    finally:
        forecast.apply = real  # type: ignore[assignment]
    t0 = time.perf_counter()
    for e, line, kwargs in recorded:
        try:
            real(e, line, **kwargs)  # type: ignore[arg-type]
        except Exception:
            continue
    took = time.perf_counter() - t0
    return len(recorded) / took, len(recorded) / plays


def _as_the_app(enc: object, runs: int) -> float:
    """The wall time of the forecast as the app runs it: from a process with threads, so its
    workers come from the forkserver, which the app starts a few seconds after it opens."""
    import threading

    from facility_tui.forecast import engine as forecast

    forecast.warm()
    done = threading.Event()
    other = threading.Thread(target=done.wait)  # (the app's threads, in kind)
    other.start()
    try:
        time.sleep(2.0)  # (the forkserver has loaded the rules: the app gives it 5 s)
        t0 = time.perf_counter()
        forecast.forecast(enc, runs, 1)  # type: ignore[arg-type]
        return time.perf_counter() - t0
    finally:
        done.set()
        other.join()


def measure(runs: int = BUDGET_RUNS) -> list[str]:
    from facility_tui.forecast import engine as forecast

    rows = [f"before: {load_line()[0]}"]
    for system in ("2297", "facility"):
        enc = _demo(system)
        commands_s, per_play = _engine_rate(enc)
        t0 = time.perf_counter()
        forecast.forecast(enc, 40, 1, processes=1)  # type: ignore[arg-type]
        here = 40 / (time.perf_counter() - t0)
        t0 = time.perf_counter()
        tally = forecast.forecast(enc, runs, 1)  # type: ignore[arg-type]
        wall = time.perf_counter() - t0
        app_wall = _as_the_app(enc, runs)
        cpu = tally.cpu
        verdict = "PASS" if max(wall, app_wall) <= BUDGET_S * runs / BUDGET_RUNS else "MISS"
        per_cpu = tally.runs / max(cpu, 1e-9)
        rows.append(
            f"{system:>8}: engine {commands_s:6.0f} commands/s, {per_play:5.1f} commands a play; "
            f"one process {here:5.1f} plays/s (the engine's share of a play's time "
            f"{100 * here * per_play / commands_s:3.0f} %); {tally.runs} plays on "
            f"{forecast.workers()} workers in {wall:5.1f} s = {tally.runs / wall:5.1f} plays/s "
            f"(forked, as the CLI), {app_wall:5.1f} s (from the forkserver, as the app), "
            f"{cpu:5.1f} CPU s ({per_cpu:5.1f} plays per CPU s) {verdict}"
        )
    rows.append(keys_line())
    rows.append(f"after: {load_line()[0]}")
    return rows


async def _lag_while_running(seconds: float = 8.0) -> tuple[list[float], list[float], int]:
    """How late the app's event loop runs a 5 ms ticker (what delays a key) while the 2297 demo's
    forecast runs in the forecast screen, then with the same screen's plays stopped; and the
    plays done meanwhile."""
    import asyncio
    import tempfile
    from pathlib import Path

    from facility_tui.screens.forecast import ForecastScreen

    from facility_tui.app import FacilityApp

    async def lateness() -> list[float]:
        out = []
        end = time.perf_counter() + seconds
        while time.perf_counter() < end:
            t0 = time.perf_counter()
            await asyncio.sleep(0.005)
            out.append(time.perf_counter() - t0 - 0.005)
        return out

    with tempfile.TemporaryDirectory(prefix="bench-forecast-") as tmp:
        app = FacilityApp(save_dir=Path(tmp), seed=1, demo="2297")
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause()
            await pilot.press("F")
            screen = app.screen
            assert isinstance(screen, ForecastScreen)
            running = await lateness()
            done = screen.done
            screen._generation += 1  # (its plays stop; the screen stays)
            await asyncio.sleep(1)
            idle = await lateness()
    return running, idle, done


def keys_line() -> str:
    import asyncio

    from benchmarks.common import p95

    running, idle, done = asyncio.run(_lag_while_running())
    return (
        f"app's event loop late while the 2297 forecast runs ({done} plays done): p50 "
        f"{median(running) * 1e3:.1f} / p95 {p95(running) * 1e3:.1f} / max "
        f"{max(running) * 1e3:.1f} ms; plays stopped: p50 {median(idle) * 1e3:.1f} / p95 "
        f"{p95(idle) * 1e3:.1f} / max {max(idle) * 1e3:.1f} ms"
    )


if __name__ == "__main__":
    for row in measure(int(sys.argv[1]) if len(sys.argv) > 1 else BUDGET_RUNS):
        print(row, flush=True)
