"""Run every figure and print one table: ``uv run python -m benchmarks [--quick] [--repeat N]``.

Start-up figures are medians over ``--repeat`` fresh launches (app and bare interleaved); key
presses are ``--presses`` timed presses per key and size in each of ``--sessions`` app sessions
(and as many bare ones), p50 and p95 being medians over the sessions; saves and loads are medians
over ``--repeat`` runs. ``--quick`` (3 repeats, 5 presses, 1 session) finishes in about a minute.
"""

from __future__ import annotations

import argparse
import platform
import sys
import time
from collections.abc import Sequence

from benchmarks import keys, saving, sizes, startup, stock, timeline
from benchmarks.common import Row, load_line, table

GROUPS = ("startup", "keys", "saving")
EXTRA = ("sizes", "timeline")  # (issues 25, 38): only with --only, several minutes each


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__)
    p.add_argument("--quick", action="store_true", help="fewer repeats: < 60 s")
    p.add_argument("--repeat", type=int, help="launches / runs per figure (default 7, quick 3)")
    p.add_argument("--presses", type=int, help="timed presses per key and size (default 30)")
    p.add_argument("--sessions", type=int, help="key-press sessions per size (default 3, quick 1)")
    p.add_argument("--only", choices=GROUPS + EXTRA, action="append", help="run only these groups")
    p.add_argument(
        "--stock",
        action="append",
        choices=[*stock.VARIANTS, "all"],
        help="keys: a session with this stock widget in place of the app's own, in turn with the "
        "app's (any number of times; 'all': every one)",
    )
    ns = p.parse_args(argv)
    repeat = ns.repeat or (3 if ns.quick else 7)
    presses = ns.presses or (5 if ns.quick else 30)
    sessions = ns.sessions or (1 if ns.quick else 3)
    groups = ns.only or GROUPS

    started = time.perf_counter()
    before, _ = load_line()
    python = f"{platform.python_implementation()} {platform.python_version()}, {sys.platform}"
    print(
        f"facility-tui benchmarks — {python}; repeat={repeat}, presses={presses}, "
        f"sessions={sessions}"
    )
    print(f"before: {before}", flush=True)
    rows: list[Row] = []
    if "startup" in groups:
        rows += startup.measure(repeat)[0]
    if "keys" in groups:
        chosen = ns.stock or []
        variants = tuple(stock.VARIANTS) if "all" in chosen else tuple(dict.fromkeys(chosen))
        rows += keys.measure(presses, sessions, variants=variants)
    if "saving" in groups:
        rows += saving.measure(repeat)
    if "sizes" in groups:
        rows += sizes.measure(repeat, presses, sessions)
    if "timeline" in groups:
        rows += timeline.measure(repeat)
    after, _ = load_line()
    print()
    print(table(rows))
    print()
    print(f"after:  {after}")
    misses = [r.figure.strip() for r in rows if r.ok is False]
    verdict = f"{len(misses)} budget(s) missed: {'; '.join(misses)}" if misses else "all met"
    print(f"{verdict}  ({time.perf_counter() - started:.0f} s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
