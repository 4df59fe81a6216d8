"""The GM's keys while the players watch in browsers: ``facility-tui serve`` on the save the
tracker writes, 8 viewers connected (each a ``watch`` process of the server's, redrawn at every
autosave), and the key presses of ``benchmarks.keys`` timed in the tracker as they are without
viewers; sessions with and without viewers taken in turn. Then 100 browsers connect and leave in
a row: the server still serves, and no viewer process is left.

``uv run python -m benchmarks.viewers [--presses N] [--sessions N] [--combatants N]``

The browsers are websocket clients in a process of their own (``--browsers URL N``: they read
and drop what the server sends, as a page would draw it), so that the tracker's process does
only its own work. Everything runs on 127.0.0.1.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from pathlib import Path

from benchmarks.common import Row, build_session, load_line, median, ms, table
from benchmarks.keys import BUDGET, _facility, _quantiles

VIEWERS = 8
LABELS = {"n": "n (next turn)", "u": "u (undo)", "5": "a digit typed", "enter": "d confirm"}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextlib.contextmanager
def _served(save: Path) -> Iterator[tuple[subprocess.Popen[str], str]]:
    port = _free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "facility_tui", "serve", str(save), "--port", str(port)],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        assert server.stdout is not None
        first = server.stdout.readline()
        url = f"http://127.0.0.1:{port}/"
        if url not in first:
            raise RuntimeError(f"serve did not start: {first}")
        yield server, url
    finally:
        server.terminate()
        server.wait(15)


@contextlib.contextmanager
def _browsers(url: str, count: int) -> Iterator[None]:
    """``count`` browsers connected to ``url`` (each sent its first screen) until the block
    ends."""
    clients = subprocess.Popen(
        [sys.executable, "-m", "benchmarks.viewers", "--browsers", url, str(count)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert clients.stdout is not None
        if clients.stdout.readline().strip() != "ready":
            raise RuntimeError("the browsers did not connect")
        yield
    finally:
        assert clients.stdin is not None
        clients.stdin.close()  # (they leave)
        clients.wait(30)


async def _connect(url: str, count: int) -> None:
    import aiohttp

    ws_url = url.replace("http", "ws") + "ws?width=100&height=40"
    async with aiohttp.ClientSession() as http, contextlib.AsyncExitStack() as stack:
        drawn = [asyncio.Event() for _ in range(count)]

        async def drop(ws: aiohttp.ClientWebSocketResponse, first: asyncio.Event) -> None:
            async for _ in ws:  # (reading answers the server's pings too)
                first.set()

        readers = []
        for first in drawn:
            ws = await stack.enter_async_context(http.ws_connect(ws_url))
            readers.append(asyncio.create_task(drop(ws, first)))
        for first in drawn:
            await asyncio.wait_for(first.wait(), 120)
        print("ready", flush=True)
        await asyncio.get_running_loop().run_in_executor(None, sys.stdin.read)  # until closed
        for task in readers:
            task.cancel()


def _children(pid: int) -> int:
    count = 0
    for stat in Path("/proc").glob("[0-9]*/stat"):
        with contextlib.suppress(OSError, IndexError, ValueError):
            if int(stat.read_text().rsplit(")", 1)[1].split()[1]) == pid:
                count += 1
    return count


async def _come_and_go(url: str, times: int) -> tuple[float, int]:
    """``times`` browsers connect and leave at once, one after the other: the seconds it took,
    and how many were turned away because the table was full meanwhile."""
    import aiohttp

    ws_url = url.replace("http", "ws") + "ws"
    turned_away = 0
    started = time.perf_counter()
    async with aiohttp.ClientSession() as http:
        for _ in range(times):
            try:
                async with http.ws_connect(ws_url):
                    pass
            except aiohttp.WSServerHandshakeError as err:
                turned_away += err.status == 503
    return time.perf_counter() - started, turned_away


def measure(presses: int, sessions: int, combatants: int) -> list[Row]:
    ours: dict[str, list[tuple[float, float]]] = {}
    alone: dict[str, list[tuple[float, float]]] = {}
    rows: list[Row] = []
    with tempfile.TemporaryDirectory(prefix="bench-viewers-") as tmp:
        from facility_tui import store

        for _ in range(sessions):
            for watched in (True, False):
                folder = Path(tmp) / f"s{time.monotonic_ns()}"
                folder.mkdir()
                save = folder / "fight.toml"
                store.save(build_session(combatants), save)
                if watched:
                    with _served(save) as (_, url), _browsers(url, VIEWERS):
                        times, _ = asyncio.run(_facility(combatants, presses, folder))
                else:
                    times, _ = asyncio.run(_facility(combatants, presses, folder))
                for key, samples in times.items():
                    (ours if watched else alone).setdefault(key, []).append(_quantiles(samples))
        for key, quantiles in ours.items():
            p50, q95 = median([q[0] for q in quantiles]), median([q[1] for q in quantiles])
            b50 = median([q[0] for q in alone[key]])
            b95 = median([q[1] for q in alone[key]])
            rows.append(
                Row(
                    f"key {LABELS[key]}, {combatants} combatants, {VIEWERS} viewers",
                    f"p50 {ms(p50)} / p95 {ms(q95)}",
                    f"p50 {ms(b50)} / p95 {ms(b95)}",
                    q95 / b95 if b95 else None,
                    "p95 ≤ 16 ms",
                    q95 <= BUDGET,
                )
            )
        rows[0].note = (
            f"'bare' column: the same tracker with no viewer; {presses} presses per key and "
            f"session, median of {sessions} session(s) each"
        )
        save = Path(tmp) / "come-and-go.toml"
        store.save(build_session(combatants), save)
        with _served(save) as (server, url):
            took, turned_away = asyncio.run(_come_and_go(url, 100))
            deadline = time.monotonic() + 30
            while _children(server.pid) and time.monotonic() < deadline:
                time.sleep(0.1)
            left = _children(server.pid)
            still = asyncio.run(_come_and_go(url, 1))[1] == 0
        rows.append(
            Row(
                "100 browsers connect and leave in a row",
                f"{took:.1f} s; {turned_away} told the table was full; {left} viewer(s) left",
                ok=left == 0 and still,
                budget="none left, still serving",
            )
        )
    return rows


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.viewers", description=__doc__)
    p.add_argument("--presses", type=int, default=20)
    p.add_argument("--sessions", type=int, default=2)
    p.add_argument("--combatants", type=int, default=20)
    p.add_argument("--browsers", nargs=2, metavar=("URL", "N"), help=argparse.SUPPRESS)
    ns = p.parse_args(argv)
    if ns.browsers:
        asyncio.run(_connect(ns.browsers[0], int(ns.browsers[1])))
        return 0
    before, _ = load_line()
    print(f"before: {before}", flush=True)
    rows = measure(ns.presses, ns.sessions, ns.combatants)
    print(table(rows))
    print(f"after:  {load_line()[0]}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
