"""Figure 3: key press → screen updated, driven by Textual's Pilot in this process.

A press is timed from just before ``pilot.press`` to the first frame the screen composes after the
press changed the state (the app's encounter, the command line's text, or the screen the bare
side has made). Headless Textual skips turning a frame into terminal text, so the hook does that
too. After each press the app's save (worker or autosaver) is allowed to finish, so presses do not
pile up; a save still running when the frame is drawn competes for the GIL, as it would at the
table.

``d`` confirm is timed the way a GM deals damage: ``d`` (which opens the command bar on
``hit <selected> ``) and the amount are typed first, then ``enter`` is timed. A digit typed on
that line is timed too, up to the frame that shows it with its preview (what gets through the
armor, the injury), which the command bar works out at every change.

The bare side is stock Textual making the same screen change (``mirror``): after each app session
its screens are made again, key by key, by Textual's own widgets, pressed the same keys. With
``variants`` (``stock``), the app runs again with a stock widget in place of one of its own, each
session beside its own mirror: what the override saves, in the same run.
"""

from __future__ import annotations

import asyncio
import contextlib
import tempfile
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from benchmarks import stock
from benchmarks.common import Row, build_session, median, ms, p95
from benchmarks.mirror import Shown, mirror_app, shown

SIZES = (20, 200)
SCREEN = (120, 40)
BUDGET = 0.016  # s: a frame at 60 Hz (the viewers' benchmark keeps it)
RATIO = 1.25  # a key's p95 against stock Textual making the same screen change
TYPING_GAP = 0.05  # s between the last key typed and the timed enter


class FrameClock:
    """Wraps ``app._display`` to stamp the first frame drawn once ``changed()`` holds."""

    def __init__(self, app: Any) -> None:
        self.app = app
        self.changed: Callable[[], bool] | None = None
        self.hit: float | None = None
        original = app._display

        def display(screen: Any, renderable: Any) -> None:
            original(screen, renderable)
            if renderable is None or self.changed is None or self.hit is not None:
                return
            if self.changed():
                with contextlib.suppress(AttributeError):
                    renderable.render_segments(app.console)
                self.hit = time.perf_counter()

        app._display = display

    async def press(self, pilot: Any, key: str, changed: Callable[[], bool]) -> float:
        return await self.timed(pilot, lambda: pilot.press(key), changed)

    async def timed(
        self, pilot: Any, act: Callable[[], Awaitable[object]], changed: Callable[[], bool]
    ) -> float:
        """Seconds from ``act`` (a key press, or a change made as an app would make it) to the
        first frame drawn once ``changed()`` holds."""
        self.changed, self.hit = changed, None
        t0 = time.perf_counter()
        await act()
        for _ in range(200):
            if self.hit is not None:
                break
            await pilot.pause()
        self.changed = None
        if self.hit is None:
            raise RuntimeError("no frame showed the change")
        return self.hit - t0


async def _settle(pilot: Any) -> None:
    """Let the last press's save finish: Textual workers and, if the app has one, its autosaver."""
    await pilot.pause()
    await pilot.app.workers.wait_for_complete()
    saver = getattr(getattr(pilot.app, "workspace", None), "saver", None)
    if saver is not None and hasattr(saver, "flush"):
        saver.flush(30.0)
    await pilot.pause()


Times = dict[str, list[float]]
Table = tuple[list[str], list[list[str]]]
# One press of a round of presses: its key, the figure it is timed for (None: not timed), and
# whether a GM's beat comes before it (``TYPING_GAP``).
Step = tuple[str, str | None, bool]
ROUND: tuple[Step, ...] = (
    ("n", "n", False),
    ("u", "u", False),
    ("d", None, False),  # (opens the command bar on ``hit <selected> ``)
    ("5", "5", True),  # a digit on the command line: drawn with its preview
    ("escape", None, False),
    ("d", None, False),
    ("5", None, False),
    # A GM's enter comes a beat after the digit, not within the 1/60 s after its frame, when
    # Textual would hold the next frame back to keep its frame rate.
    ("enter", "enter", True),
    ("u", None, False),  # the damage taken back, so every round starts alike
)
LABELS = {
    "n": "n (next turn)",
    "u": "u (undo)",
    "5": "a digit on the command line, with its preview",
    "enter": "d confirm (d 5 ⏎)",
}


@dataclass
class Session:
    """One app session: each key's times, the screens it showed (before the first press, then
    after each), the keys its key bar listed, and its list as text."""

    times: Times
    screens: list[Shown]
    keys: list[tuple[str, str]]
    table: Table


async def _facility(
    combatants: int, presses: int, folder: Path, variant: str | None = None
) -> tuple[Times, Table]:
    session = await _app_session(combatants, presses, folder, variant)
    return session.times, session.table


async def _app_session(
    combatants: int, presses: int, folder: Path, variant: str | None = None
) -> Session:
    """The app pressed ``presses`` rounds of ``ROUND`` (and one more first, to warm up), with
    the stock widget ``variant`` (``stock.VARIANTS``) in place of its own."""
    from facility_tui import store
    from facility_tui.app import FacilityApp

    store.save(build_session(combatants), folder / "fight.toml")
    times: Times = {label: [] for _, label, _ in ROUND if label}
    with stock.variant(variant):
        app = FacilityApp(save_dir=folder, seed=1)
        clock = FrameClock(app)
        async with app.run_test(size=SCREEN) as pilot:
            await _settle(pilot)
            ws = app.workspace
            bar = app.screen.query_one("#command")
            screens = [shown(app)]
            for i in range(presses + 1):  # the first round warms caches and lazy imports
                for key, label, beat in ROUND:
                    if beat:
                        await asyncio.sleep(TYPING_GAP)
                    if label is None:
                        await pilot.press(key)
                    elif key == "5":
                        t = await clock.press(pilot, key, lambda: bar.value.endswith("5"))
                    else:
                        before = ws.encounter
                        t = await clock.press(pilot, key, lambda b=before: ws.encounter is not b)
                    if label is not None and i:
                        times[label].append(t)
                    await _settle(pilot)
                    screens.append(shown(app))
            listed = [
                (binding.key.split(",")[0], binding.description)
                for _, binding, enabled, _ in app.screen.active_bindings.values()
                if binding.show and enabled
            ]
            table = app.screen.query_one("#order")  # the InitiativeList: columns, rows
            columns = [c.title for c in table.columns]
            rows = [[str(x) for x in cells] for _key, cells in table.rows]
    return Session(times, screens, listed, (columns, rows))


async def _mirror_session(session: Session, presses: int) -> Times:
    """Bare Textual making the session's screen changes (``mirror``), pressed the same keys."""
    app = mirror_app(session.screens, session.keys)
    clock = FrameClock(app)
    times: Times = {label: [] for _, label, _ in ROUND if label}
    async with app.run_test(size=SCREEN) as pilot:
        await _settle(pilot)
        for i in range(presses + 1):
            for key, label, beat in ROUND:
                if beat:
                    await asyncio.sleep(TYPING_GAP)
                before = app.applied
                if label is None:
                    await pilot.press(key)
                else:
                    t = await clock.press(pilot, key, lambda b=before: app.applied > b)
                    if i:
                        times[label].append(t)
                await _settle(pilot)
                if app.applied != before + 1:
                    raise RuntimeError(f"the mirror made {app.applied - before} screens on {key}")
    return times


async def _bare(
    columns: list[str], rows: list[list[str]], presses: int, repaint: bool = False
) -> list[float]:
    """The bare app's DataTable with the same rows, to the frame: its cursor moved down and up,
    or (``repaint``) every row in sight given a new last cell, as a round's start gives every
    row new actions."""
    from textual.widgets import DataTable

    from benchmarks.child import bare_app

    app = bare_app(columns, rows)
    clock = FrameClock(app)
    times: list[float] = []
    async with app.run_test(size=SCREEN) as pilot:
        await _settle(pilot)
        table = app.query_one(DataTable)
        sight = range(min(table.row_count, table.scrollable_content_region.height - 1))
        for i in range(2 * presses + 2):
            if repaint:

                async def change(mark: str = f"round {i}") -> None:
                    for row in sight:
                        table.update_cell_at((row, len(columns) - 1), mark)

                t = await clock.timed(pilot, change, lambda: True)
            else:
                row = table.cursor_row
                key = "down" if i % 2 == 0 else "up"
                t = await clock.press(pilot, key, lambda r=row: table.cursor_row != r)
            if i >= 2:
                times.append(t)
            await _settle(pilot)
    return times


def _quantiles(samples: list[float]) -> tuple[float, float]:
    return sorted(samples)[len(samples) // 2], p95(samples)


def measure(
    presses: int,
    runs: int = 1,
    sizes: tuple[int, ...] = SIZES,
    variants: tuple[str, ...] = (),
) -> list[Row]:
    """p50 / p95 of ``presses`` presses per key, each the median over ``runs`` sessions, beside
    bare Textual making the same screen changes (``mirror``) in a session of its own right after
    the app's; the ratio is of the p95s. With ``variants`` (``stock.VARIANTS``), each run has a
    session of the app with each of those stock widgets in place of its own too, taken in turn
    with the app's (they show the same screens, so the same bare session is their reference).

    One session's p95 rests on its two or three slowest presses, which on a shared machine
    come and go with its other work: the median of several sessions' p95 (app, variants and
    bare sessions taken in turn) is what a figure and its budget verdict use.
    """
    rows: list[Row] = []
    kinds = (None, *variants)
    for size in sizes:
        ours: dict[str | None, dict[str, list[tuple[float, float]]]] = {v: {} for v in kinds}
        bare: dict[str, list[tuple[float, float]]] = {}
        for _ in range(runs):
            sessions: dict[str | None, Session] = {}
            for variant in kinds:
                with tempfile.TemporaryDirectory(prefix="bench-keys-") as tmp:
                    sessions[variant] = asyncio.run(_app_session(size, presses, Path(tmp), variant))
                if sessions[variant].screens != sessions[None].screens:
                    raise RuntimeError(f"{variant} showed other screens than the app")
                for key, samples in sessions[variant].times.items():
                    ours[variant].setdefault(key, []).append(_quantiles(samples))
            mirrored = asyncio.run(_mirror_session(sessions[None], presses))
            for key, samples in mirrored.items():
                bare.setdefault(key, []).append(_quantiles(samples))
        for variant in kinds:
            for key, quantiles in ours[variant].items():
                p50, q95 = median([q[0] for q in quantiles]), median([q[1] for q in quantiles])
                b50 = median([q[0] for q in bare[key]])
                b95 = median([q[1] for q in bare[key]])
                ratio = q95 / b95 if b95 else None
                said = f", {stock.VARIANTS[variant][0]}" if variant else ""
                row = Row(
                    f"key {LABELS[key]}, {size} combatants{said}",
                    f"p50 {ms(p50)} / p95 {ms(q95)}",
                    f"p50 {ms(b50)} / p95 {ms(b95)}",
                    ratio,
                )
                if variant is None:
                    row.budget, row.ok = (
                        f"p95 ≤ {RATIO:g}× bare",
                        ratio is not None and ratio <= RATIO,
                    )
                    if size >= max(SIZES):
                        row.budget += f", ≤ {BUDGET * 1000:.0f} ms"
                        row.ok = row.ok and q95 <= BUDGET
                rows.append(row)
    rows[0].note = (
        "bare: bare Textual (Header, DataTable, Input, Footer) making the list's and the "
        "command line's change, pressed the same keys (benchmarks/mirror.py); "
        f"{presses} presses per key and session, median of {runs} session(s)"
    )
    return rows
