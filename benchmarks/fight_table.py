"""Saving and loading fights of demo-sheet combatants (issue 16): 8, 50, 200 and 1,000 combatants
with full 2297 sheets (armor, weapons), and 200 with 10,000 log events.

``uv run python -m benchmarks.fight_table [repeat]`` prints, per size: the main file's size, the
CPU cost of rendering a save (``store.dumps``-like, no fsync), one command + ``store.save`` with
fsyncs, ``Autosaver.request`` on the caller's thread, and ``store.load``. Medians of ``repeat``.
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

from attrs import evolve

from benchmarks.common import median


def demo_session(combatants: int, events: int = 0) -> object:
    """The 2297 demo's eight combatants copied to ``combatants``, started, ``events`` log lines."""
    from facility_tui.campaign.demo import demo_encounter
    from facility_tui.commands.session import Session

    enc = demo_encounter()
    base = enc.combatants
    out = []
    for i in range(combatants):
        c = base[i % len(base)]
        n = i // len(base)
        out.append(
            evolve(c, id=f"{c.id}-{n}" if n else c.id, name=f"{c.name} {n}" if n else c.name)
        )
    session = Session(evolve(enc, combatants=tuple(out)))
    session.execute("start")
    while len(session.encounter.log) < events:
        session.execute("roll 2d6")
    for _ in range(20):
        session.execute("roll 2d6")
    return session


def measure(repeat: int = 7) -> list[str]:
    from facility_tui import store
    from facility_tui.autosave import Autosaver

    rows = []
    with tempfile.TemporaryDirectory(prefix="bench-table-") as tmp:
        for n, events in ((8, 0), (50, 0), (200, 0), (1000, 0), (200, 10_000)):
            session = demo_session(n, events)
            path = Path(tmp) / f"f-{n}-{events}.toml"
            store.save(session, path)  # type: ignore[arg-type]
            render, save, request, load = [], [], [], []
            saver = Autosaver(path)
            for _ in range(repeat):
                session.execute("roll 2d6")  # type: ignore[attr-defined]
                t0 = time.perf_counter()
                store.dumps(session)  # type: ignore[arg-type]
                render.append(time.perf_counter() - t0)
                session.execute("roll 2d6")  # type: ignore[attr-defined]
                t0 = time.perf_counter()
                store.save(session, path)  # type: ignore[arg-type]
                save.append(time.perf_counter() - t0)
                session.execute("roll 2d6")  # type: ignore[attr-defined]
                t0 = time.perf_counter()
                saver.request(session)  # type: ignore[arg-type]
                request.append(time.perf_counter() - t0)
                saver.flush(30)
                t0 = time.perf_counter()
                store.load(path)
                load.append(time.perf_counter() - t0)
            saver.close(30)
            size = path.stat().st_size / 1024
            rows.append(
                f"{n:>5} combatants, {events:>6,} log events: main file {size:7.1f} KiB, "
                f"render {median(render) * 1e3:6.1f} ms, save {median(save) * 1e3:6.1f} ms, "
                f"request {median(request) * 1e3:5.2f} ms, load {median(load) * 1e3:6.1f} ms"
            )
    return rows


if __name__ == "__main__":
    for row in measure(int(sys.argv[1]) if len(sys.argv) > 1 else 7):
        print(row, flush=True)
