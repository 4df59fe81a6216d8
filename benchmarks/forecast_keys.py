"""The app's keys while a forecast plays (issue 26: p95 ≤ 16 ms with the worker pool busy).

``uv run python -m benchmarks.forecast_keys [presses]`` times, in the 2297 demo at 80x24, each key
from just before the press to the first frame that shows what it did (``benchmarks.keys``'
``FrameClock``):

- the tracker's ``n`` (next turn), ``u`` (undo) and a digit typed on the command line (drawn with
  its preview), first with no forecast, then while a forecast's worker pool plays the same fight
  on every core (started from a thread as the forecast screen does, kept busy all along);
- a digit typed in the forecast screen's plays line while its own forecast plays;
- the reference: a bare Textual app whose key replaces its whole screen of text, at 80x24.

It checks that the workers run at a lower priority (their nice value above the app's) and
reports how many plays finished meanwhile. The keys are timed once the app has started its
forecasts' forkserver (a few seconds after it opens), as a GM's keys are after the first moments.
"""

from __future__ import annotations

import asyncio
import os
import sys
import tempfile
import threading
from pathlib import Path
from typing import Any

from benchmarks.common import load_line, median, p95
from benchmarks.keys import TYPING_GAP, FrameClock, _settle

BUDGET = 0.016
SCREEN = (80, 24)


def _worker_nice() -> list[int]:
    """The nice values of this process's pool workers (children started by ``multiprocessing``)."""
    import multiprocessing

    out = []
    for child in multiprocessing.active_children():
        if child.pid is not None:
            try:
                out.append(os.getpriority(os.PRIO_PROCESS, child.pid))
            except OSError:
                continue
    return out


class Pool:
    """A forecast of the app's fight kept playing in a thread (as the screen's worker does)."""

    def __init__(self, enc: Any) -> None:
        self.enc = enc
        self.plays = 0
        self.nice: list[int] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        from facility_tui.forecast import engine as forecast

        for tally in forecast.run(self.enc, 10**6, 1, stop=self._stop.is_set):
            self.plays = tally.runs
            if not self.nice:
                self.nice = _worker_nice()

    async def __aenter__(self) -> Pool:
        self._thread.start()
        while not self.plays:  # (busy: its first chunk came back)
            await asyncio.sleep(0.05)
        return self

    async def __aexit__(self, *exc: object) -> None:
        self._stop.set()
        while self._thread.is_alive():
            await asyncio.sleep(0.05)


async def _tracker_keys(pilot: Any, clock: FrameClock, presses: int) -> dict[str, list[float]]:
    app = pilot.app
    ws = app.workspace
    bar = app.screen.query_one("#command")
    times: dict[str, list[float]] = {"n": [], "u": [], "5": []}
    for i in range(presses + 1):  # (the first round warms caches)
        for key in ("n", "u", "5"):
            if key == "5":
                await pilot.press("d")
                await _settle(pilot)
                await asyncio.sleep(TYPING_GAP)
                t = await clock.press(pilot, key, lambda: bar.value.endswith("5"))
                await pilot.press("escape")
            else:
                before = ws.encounter
                t = await clock.press(pilot, key, lambda b=before: ws.encounter is not b)
            if i:
                times[key].append(t)
            await _settle(pilot)
            await asyncio.sleep(TYPING_GAP)
    return times


async def _plays_line(pilot: Any, clock: FrameClock, presses: int) -> tuple[list[float], int]:
    """A digit typed in the forecast screen's plays line while its forecast plays."""
    from facility_tui.screens.forecast import ForecastScreen
    from textual.widgets import Input

    await pilot.press("F")
    screen = pilot.app.screen
    assert isinstance(screen, ForecastScreen)
    while not screen.done:
        await asyncio.sleep(0.05)
    line = screen.query_one(Input)
    line.focus()
    await pilot.pause()
    times = []
    for i in range(presses + 1):
        count = line.value.count("7")
        t = await clock.press(pilot, "7", lambda c=count: line.value.count("7") > c)
        if i:
            times.append(t)
        await pilot.pause()
        await asyncio.sleep(TYPING_GAP)
    done = screen.done
    await pilot.press("escape")
    await pilot.pause()
    return times, done


async def _bare_key(presses: int) -> list[float]:
    """The reference, timed the same way: a bare Textual app (Header, one Static, Footer) whose
    key replaces the whole screen's text (the tracker's ``n`` changes most of it)."""
    from textual.app import App, ComposeResult
    from textual.widgets import Footer, Header, Static

    text = Static("")
    count = [0]

    class Bare(App[None]):
        BINDINGS = [("n", "change", "Next")]

        def compose(self) -> ComposeResult:
            yield Header()
            yield text
            yield Footer()

        def action_change(self) -> None:
            count[0] += 1
            text.update(
                "\n".join(f"{n:4} Boarder {n:<4} EN {count[0]:3}  1/1/0 R  -" for n in range(24))
            )

    app = Bare()
    clock = FrameClock(app)
    times = []
    async with app.run_test(size=SCREEN) as pilot:
        await _settle(pilot)
        for i in range(presses + 1):
            before = count[0]
            t = await clock.press(pilot, "n", lambda b=before: count[0] != b)
            if i:
                times.append(t)
            await _settle(pilot)
            await asyncio.sleep(TYPING_GAP)
    return times


async def _measure(presses: int) -> list[str]:
    from facility_tui.screens.main import WARM_FORECAST_AFTER

    from facility_tui.app import FacilityApp

    rows = []
    with tempfile.TemporaryDirectory(prefix="bench-forecast-keys-") as tmp:
        app = FacilityApp(save_dir=Path(tmp), seed=1, demo="2297")
        clock = FrameClock(app)
        async with app.run_test(size=SCREEN) as pilot:
            await _settle(pilot)
            # The app starts the forecasts' forkserver a few seconds after it opens (a process
            # loading the rules on the other core): the keys are timed once that is done.
            await asyncio.sleep(WARM_FORECAST_AFTER + 1.0)
            idle = await _tracker_keys(pilot, clock, presses)
            async with Pool(app.workspace.encounter) as pool:
                plays_before = pool.plays
                busy = await _tracker_keys(pilot, clock, presses)
                plays = pool.plays - plays_before
                nice = pool.nice
            typed, screen_plays = await _plays_line(pilot, clock, presses)
    bare = await _bare_key(presses)
    mine = os.getpriority(os.PRIO_PROCESS, 0)
    rows.append(
        f"workers' nice {nice} (the app's {mine}): "
        + ("lower priority" if nice and min(nice) > mine else "NOT lower priority")
    )
    labels = {"n": "n (next turn)", "u": "u (undo)", "5": "a digit on the command line"}
    worst = 0.0
    for key, label in labels.items():
        worst = max(worst, p95(busy[key]))
        rows.append(
            f"key {label:28}: no forecast p50 {median(idle[key]) * 1e3:5.1f} / p95 "
            f"{p95(idle[key]) * 1e3:5.1f} ms; pool busy ({plays} plays meanwhile) p50 "
            f"{median(busy[key]) * 1e3:5.1f} / p95 {p95(busy[key]) * 1e3:5.1f} ms"
        )
    worst = max(worst, p95(typed))
    rows.append(
        f"key a digit in the forecast's plays line while it plays ({screen_plays} plays shown: "
        "the figures hold still while the GM types): "
        f"p50 {median(typed) * 1e3:5.1f} / p95 {p95(typed) * 1e3:5.1f} ms"
    )
    rows.append(
        f"bare Textual app, a key that replaces the whole screen's text (no forecast): p50 "
        f"{median(bare) * 1e3:5.1f} / p95 {p95(bare) * 1e3:5.1f} ms"
    )
    verdict = "PASS" if worst <= BUDGET else "MISS"
    rows.append(f"worst p95 while a forecast plays {worst * 1e3:.1f} ms (budget 16 ms) {verdict}")
    return rows


def measure(presses: int = 30) -> list[str]:
    before = load_line()[0]
    rows = asyncio.run(_measure(presses))
    return [f"before: {before}", *rows, f"after: {load_line()[0]}"]


def main(argv: list[str]) -> None:
    for row in measure(int(argv[0]) if argv else 30):
        print(row, flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
