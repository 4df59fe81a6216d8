"""What a save costs as the log grows: caller blocking, background write, load (issue 5).

    uv run python benchmarks/save_cost.py [--combatants 50] [--repeat 15]

Builds fights of 100, 1,000 and 10,000 log entries by running real commands (so the undo history
holds 200 real steps), then times, as medians of repeated runs:
- ``request``: what ``Autosaver.request`` costs the caller (snapshot + hand-over);
- ``save``: one incremental save after one more command (log files, main file, fsyncs), on the
  writer thread in the app; ``save, no fsync`` the same with fsync stubbed out (CPU part);
- ``backup``: the self-contained copy written once per round;
- ``load``: ``store.load`` of the whole fight, history replay included.
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from pathlib import Path

from facility_tui import store
from facility_tui.autosave import Autosaver
from facility_tui.commands.session import Session


def build(events: int, combatants: int) -> Session:
    session = store.fresh_session()
    session.apply("new 2297 Bench seed=7")
    session.apply(f"add Goon count={combatants} init=2d6")
    session.apply("add Hero side=pc init=12")
    session.apply("start")
    i = 0
    while len(session.encounter.log) < events:
        session.apply("roll 2d6" if i % 3 == 0 else "next")
        i += 1
    return session


def median_ms(samples: list[float]) -> float:
    return statistics.median(samples) * 1000


def measure(events: int, combatants: int, repeat: int) -> dict[str, float]:
    session = build(events, combatants)
    out: dict[str, float] = {}
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "bench.toml"
        store.save(session, path)  # the first save writes every log file
        times = []
        for _ in range(repeat):
            session.apply("roll 1d6")  # same round: no backup
            t = time.perf_counter()
            store.save(session, path)
            times.append(time.perf_counter() - t)
        out["save"] = median_ms(times)
        real_fsync = os.fsync
        os.fsync = lambda fd: None
        try:
            times = []
            for _ in range(repeat):
                session.apply("roll 1d6")
                t = time.perf_counter()
                store.save(session, path)
                times.append(time.perf_counter() - t)
            out["save, no fsync"] = median_ms(times)
        finally:
            os.fsync = real_fsync
        saver = store.saver.saver_for(path)
        snap = store.Snapshot.of(session)
        times = []
        for _ in range(repeat):
            t = time.perf_counter()
            saver._backup(snap)
            times.append(time.perf_counter() - t)
        out["backup"] = median_ms(times)
        times = []
        for _ in range(repeat):
            t = time.perf_counter()
            loaded = store.load(path)
            times.append(time.perf_counter() - t)
        assert loaded.encounter == session.encounter
        assert len(loaded.undo_steps) == len(session.undo_steps)
        out["load"] = median_ms(times)
        out["main file KiB"] = path.stat().st_size / 1024
        saver_thread = Autosaver(path, writer=lambda snap, path: None)
        times = []
        for _ in range(repeat * 10):
            t = time.perf_counter()
            saver_thread.request(session)
            times.append(time.perf_counter() - t)
        saver_thread.close()
        out["request"] = median_ms(times)
        out["request max"] = max(times) * 1000
    return out


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--combatants", type=int, default=50)
    p.add_argument("--repeat", type=int, default=15)
    p.add_argument("--sizes", default="100,1000,10000")
    args = p.parse_args()
    rows = {n: measure(n, args.combatants, args.repeat) for n in map(int, args.sizes.split(","))}
    keys = list(next(iter(rows.values())))
    print(f"{args.combatants + 1} combatants, 200 undo steps; milliseconds (medians)")
    print(f"{'log entries':>16}" + "".join(f"{n:>10}" for n in rows))
    for k in keys:
        print(f"{k:>16}" + "".join(f"{rows[n][k]:>10.2f}" for n in rows))


if __name__ == "__main__":
    main()
