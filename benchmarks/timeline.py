"""The timeline (issue 38): a fight of 50,000 steps, every one kept.

``uv run python -m benchmarks --only timeline`` (left out of the default run: building the
fights takes several minutes). Two fights of ``STEPS`` steps, 20 combatants, ``roll 2d6`` and
``next`` in turn: one built as ``facility-tui apply`` builds it (a save after every step: what a
script of ``apply`` lines does, in one process, as many ``apply`` launches would take hours), and
one as the app does (a save after a burst of steps, an undo and a new line now and then, so the
tree has branches). Each is measured from outside as ``sizes`` measures a campaign: start-up to
the first frame and peak memory beside bare Textual showing the same rows, and ``apply next`` as
a ratio of the bare start-up; and the main file's size. In process: the fight of random steps of
the apply-built fight (``Session.state_at``, as the timeline shows the step under its cursor),
each in the save just opened (the step files it needs read then), and the first read of the
whole tree (as the timeline screen reads it to draw).
"""

from __future__ import annotations

import random
import tempfile
import time
from pathlib import Path
from typing import Any

from benchmarks import sizes, startup
from benchmarks.common import Row, build_session, median, ms

STEPS = 50_000
COMBATANTS = 20
JUMPS = 30
BURST = 25  # the app's saves: one per burst of steps (its autosave waits for a pause)


def _build(folder: Path, *, as_app: bool) -> Any:
    """A fight of ``STEPS`` steps saved in ``folder`` (see the module's docstring)."""
    from facility_tui import store

    folder.mkdir(parents=True)
    path = folder / "fight.toml"
    session = build_session(COMBATANTS)
    store.save(session, path)
    rng = random.Random(38)
    made = len(session.timeline)
    enc = session.encounter
    # (on to a turn mid-round: ``apply next`` is then a step, not a round's end and its backup)
    while made < STEPS or enc.turn in (0, len(enc.order) - 1):
        session.execute("roll 2d6" if made % 2 else "next")
        made += 1
        if as_app and rng.random() < 0.02:  # a line taken back and another typed instead
            session.execute("undo")
            session.execute("roll 1d6")
            made += 1
        if not as_app or made % BURST == 0:
            store.save(session, path)
        enc = session.encounter
    store.save(session, path)
    return session


def _jumps(path: Path) -> tuple[float, float, float, float]:
    """The first read of the whole tree; then the median, p95 and slowest ``state_at`` of
    random steps, each in a save just opened (its step files read as the jump needs them)."""
    from facility_tui import store

    def opened() -> Any:
        session = store.open_save(path, keep_aside=False, later=True).session
        session.settle()  # (the check of the save as it opens: not the jump's)
        return session

    session = opened()
    t0 = time.perf_counter()
    nodes = [n.id for n in session.timeline.nodes()]  # (the timeline screen draws them all)
    read = time.perf_counter() - t0
    rng = random.Random(50)
    times = []
    for nid in rng.sample(nodes, JUMPS):
        session = opened()
        t0 = time.perf_counter()
        session.state_at(nid)
        times.append(time.perf_counter() - t0)
    times.sort()
    return read, median(times), times[int(len(times) * 0.95) - 1], times[-1]


def _round_end(folder: Path, work: Path, env: dict[str, str], repeat: int) -> float:
    """``apply next`` that ends a round (its backup written: the save's text, referring to the
    write-once files beside it), on a copy of the save brought to the round's last turn; the
    median."""
    import shutil

    from facility_tui import store

    times = []
    for _ in range(repeat):
        copy = work / "round-end"
        shutil.rmtree(copy, ignore_errors=True)
        shutil.copytree(folder, copy)
        session = store.load(copy / "fight.toml")
        while session.encounter.turn < len(session.encounter.order) - 1:
            session.execute("next")
        store.save(session, copy / "fight.toml")
        store.forget(copy / "fight.toml")
        times.append(startup._apply(copy / "fight.toml", "next", env))
    return median(times)


def measure(repeat: int) -> list[Row]:
    rows: list[Row] = []
    with tempfile.TemporaryDirectory(prefix="bench-timeline-") as tmp:
        work = Path(tmp)
        env = startup._child_env(work)
        built = {}
        for label, as_app in (("built with apply", False), ("built in the app", True)):
            t0 = time.perf_counter()
            folder = work / label.replace(" ", "-")
            session = _build(folder, as_app=as_app)
            built[label] = (folder, time.perf_counter() - t0, len(session.timeline.tips()))
        warm = work / "warm-up"
        warm.mkdir()
        startup._launch("app", warm, env, built["built with apply"][0])
        startup._launch("bare", warm, env)
        for label, (folder, took, tips) in built.items():
            main = (folder / "fight.toml").stat().st_size
            files = len(list((folder / "fight.d").glob("steps-*.toml")))
            rows.append(
                Row(
                    f"main file, {STEPS:,} steps {label}",
                    f"{main / 1024:.0f} KiB",
                    note=f"{files} step files, {tips} branch(es); built in {took:.0f} s",
                )
            )
            launched = sizes._launches(f"{STEPS:,} steps {label}", folder, work, env, repeat, 1.25)
            rows += launched
            if label == "built with apply":
                bare = float(launched[0].bare.split()[0])
                took = _round_end(folder, work, env, repeat)
                rows.append(
                    Row(
                        f"  `apply next` that ends a round, {STEPS:,} steps {label}",
                        f"{took:.3f} s",
                        f"{bare:.3f} s",
                        took / bare,
                        "≤ 0.5× bare start-up",
                        took / bare <= 0.5,
                        note="the round's backup written: the save's text, referring to the "
                        "write-once files beside it",
                    )
                )
        read, p50, p95, worst = _jumps(built["built with apply"][0] / "fight.toml")
        rows.append(
            Row(
                f"  the whole tree read once, {STEPS:,} steps",
                ms(read),
                note="every step file, as the timeline screen reads it to draw the tree",
            )
        )
        rows.append(
            Row(
                f"  state_at a random step, {STEPS:,} steps",
                f"p50 {ms(p50)} / p95 {ms(p95)} / max {ms(worst)}",
                budget="≤ 100 ms",
                ok=worst <= 0.100,
                note=f"{JUMPS} random steps, each in the save just opened: its step files read, "
                "replayed from the nearest fight kept",
            )
        )
    rows[0].note += f"; ratios: median of {repeat} paired launches, bare shows the same rows"
    return rows
