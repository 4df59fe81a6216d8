"""``facility-tui serve``: the player view in browsers, checked with the real thing.

The server runs as the GM would start it (a process of its own, on 127.0.0.1 and a free port);
a headless chromium (``tests/browser.py``) loads the page and reads the terminal it draws, and
plain websocket clients stand in for the many phones of the viewer cap. Every browser has a
viewer process of its own (``watch --served``), a child of the server.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import signal
import socket
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import aiohttp
import pytest
from textual.app import App
from textual.widgets import Static

from facility_tui.cli import main
from facility_tui.serve import MAX_VIEWERS, qr_lines
from tests.browser import REQUIRE, chromium, needs_chromium, skipped
from tests.paths import ROOT

SETUP = (
    "new 2297 Deck",
    'add "Sgt. Blanc" side=pc init=12',
    "add Goon side=enemy init=8",
    "add Lurker side=enemy init=5",
    "hide lurker",
    "note goon carries the vault codes",
    "hide goon note",
    "start",
)


def made(folder: Path) -> Path:
    save = folder / "deck.toml"
    assert main(["apply", str(save), "--seed", "3", "-q", *SETUP]) == 0
    return save


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def children(pid: int) -> set[int]:
    """The processes whose parent is ``pid`` (from /proc)."""
    found = set()
    for stat in Path("/proc").glob("[0-9]*/stat"):
        with contextlib.suppress(OSError):
            fields = stat.read_text().rsplit(")", 1)[1].split()
            if int(fields[1]) == pid and fields[0] != "Z":
                found.add(int(stat.parent.name))
    return found


def alive(pid: int) -> bool:
    with contextlib.suppress(OSError):
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    return False


async def until(check: object, within: float, what: str) -> None:
    deadline = time.monotonic() + within
    while not check():  # type: ignore[operator]
        assert time.monotonic() < deadline, f"{what}: not within {within} s"
        await asyncio.sleep(0.05)


@contextlib.contextmanager
def serving(save: Path, *options: str) -> Iterator[tuple[subprocess.Popen[str], str]]:
    """``facility-tui serve SAVE`` on 127.0.0.1 (by default, or ``--host`` in ``options``) and
    a free port, until it says its address: the address it says."""
    port = free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "facility_tui", "serve", str(save), "--port", str(port), *options],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        assert server.stdout is not None
        first = server.stdout.readline()  # (printed once the port is bound)
        url = first.split(": ", 1)[1].split(" or ")[0].strip()
        assert url.startswith(f"http://127.0.0.1:{port}/"), first
        yield server, url
    finally:
        server.terminate()
        try:
            server.wait(10)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()


@contextlib.asynccontextmanager
async def viewer(
    http: aiohttp.ClientSession, url: str
) -> AsyncIterator[aiohttp.ClientWebSocketResponse]:
    """A browser's websocket (as the page opens it), its screen sent to it."""
    async with http.ws_connect(
        url.replace("http", "ws").rstrip("/") + "/ws?width=80&height=24"
    ) as ws:
        yield ws


def round_rows(number: int) -> list[str]:
    """The round as the player view draws it, in large block digits."""
    from facility_tui.screens.player_view import big_number

    return [row.rstrip() for row in big_number(number).splitlines()]


def shows_round(screen: str, number: int) -> bool:
    lines = screen.splitlines()
    at = next((i for i, line in enumerate(lines) if "ROUND" in line), None)
    if at is None:
        return False
    col = lines[at].index("ROUND")
    rows = round_rows(number)
    shown = lines[at + 1 : at + 1 + len(rows)]
    return [line[col : col + len(r)] for line, r in zip(shown, rows, strict=False)] == rows


@needs_chromium
async def test_a_browser_sees_the_players_view_and_only_it(tmp_path: Path) -> None:
    save = made(tmp_path)
    with serving(save) as (_, url):
        async with chromium() as page:
            await page.open(url)
            # (the first page: a browser, the served app and its terminal all start; a machine
            # loaded by the rest of the suite took over 30 s once. The latency budget is below.)
            screen = await page.wait_for_screen("SGT. BLANC", "Goon", "player view", within=60)
            assert shows_round(screen, 1), screen

            started = time.monotonic()
            assert main(["apply", str(save), "-q", "add Zed side=pc init=3", "next", "next"]) == 0
            # Blanc, Goon, Lurker (hidden), Zed: two turns on, the hidden one acts (unnamed).
            assert "Lurker" not in screen
            screen = await page.wait_for_screen("Zed", within=2.0)
            assert time.monotonic() - started < 2.0
            assert main(["apply", str(save), "-q", "next", "next"]) == 0  # round 2
            started = time.monotonic()
            while not shows_round(screen := await page.screen(), 2):
                assert time.monotonic() - started < 2.0, screen
                await asyncio.sleep(0.1)

            # Nothing of the hidden combatant reached the browser, in any frame.
            received = b"".join(page.frames)
            assert b"Goon" in received
            assert b"Lurker" not in received and b"lurker" not in received
            assert b"vault" not in received  # (Goon's hidden note)
            # Nothing was asked of any other address: the page, its script, style and font,
            # and the websocket all come from the server.
            assert page.requests
            own = re.compile(rf"^(https?|wss?)://127\.0\.0\.1:{url.split(':')[2]}")
            assert [u for u in page.requests if not own.match(u)] == []
            assert any(u.endswith(".ttf") for u in page.requests)  # (the font, served here)


async def test_the_page_and_its_assets_name_no_other_address(tmp_path: Path) -> None:
    with serving(made(tmp_path)) as (_, url):
        async with aiohttp.ClientSession() as http:
            async with http.get(url) as answer:
                page = await answer.text()
            assets = re.findall(r'(?:href|src)="([^"]+)"', page)
            assert sorted(assets) == [
                "/static/css/xterm.css",
                "/static/js/textual.js",
            ]
            texts = [page]
            for asset in assets:
                async with http.get(url.rstrip("/") + asset) as answer:
                    assert answer.status == 200
                    text = await answer.text()
                    # (CSS comments name the projects it comes from; nothing loads them)
                    texts.append(re.sub(r"/\*.*?\*/", "", text, flags=re.S))
            for text in texts:
                assert re.findall(r"(?:https?|wss?)://[^\s\"')]+", text) == []


async def test_the_table_holds_twelve_viewers_and_tells_the_thirteenth(tmp_path: Path) -> None:
    with serving(made(tmp_path)) as (server, url):
        async with aiohttp.ClientSession() as http, contextlib.AsyncExitStack() as seats:
            sockets = [await seats.enter_async_context(viewer(http, url)) for _ in range(12)]
            assert MAX_VIEWERS == 12
            async with http.get(url) as answer:
                assert answer.status == 503
                assert "The table is full" in await answer.text()
            with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
                await http.ws_connect(url.replace("http", "ws") + "ws")
            assert refused.value.status == 503
            await until(lambda: len(children(server.pid)) == 12, 30, "twelve viewers")

            await sockets[0].close()  # a tab closes: its viewer ends, a seat is free
            await until(lambda: len(children(server.pid)) == 11, 10, "the viewer ended")
            deadline = time.monotonic() + 5
            while (status := await _status(http, url)) != 200 and time.monotonic() < deadline:
                await asyncio.sleep(0.05)
            assert status == 200
        await until(lambda: not children(server.pid), 10, "every viewer ended")


async def test_a_killed_viewer_or_server_loses_nothing(tmp_path: Path) -> None:
    save = made(tmp_path)
    with serving(save) as (server, url):
        async with (
            aiohttp.ClientSession() as http,
            viewer(http, url) as one,
            viewer(http, url) as other,
        ):
            for ws in (one, other):  # (each draws its screen)
                await asyncio.wait_for(ws.receive_bytes(), 20)
            pids = children(server.pid)
            assert len(pids) == 2
            first = next(iter(pids))
            os.kill(first, signal.SIGKILL)
            # One of the two browsers is told its view closed; the other goes on.
            closed = await asyncio.wait_for(_closed_one(one, other), 10)
            still = other if closed is one else one
            assert not still.closed
            assert main(["apply", str(save), "-q", "add Zed side=pc init=3"]) == 0
            await asyncio.wait_for(_shows(still, b"Zed"), 5)
            async with viewer(http, url) as again:  # and a new one is served
                await asyncio.wait_for(_shows(again, b"Goon"), 20)

            survivors = children(server.pid)
            server.kill()  # the server itself: its viewers end by themselves
            server.wait()
            await until(lambda: not any(alive(p) for p in survivors), 10, "viewers ended")
    # The fight has everything done while they ran, and no lock is left behind.
    assert main(["apply", str(save), "-q", "next"]) == 0
    assert "Zed" in save.read_text()


async def test_with_host_the_address_carries_a_key_and_nothing_opens_without_it(
    tmp_path: Path,
) -> None:
    """``serve --host``: the address said (and its QR code) ends with a random key; the page
    and the websocket without it, or with another, get 403 and start no viewer; with it, the
    view. A server started again has a key of its own."""
    save = made(tmp_path)
    keys = []
    for _ in range(2):
        with serving(save, "--host", "127.0.0.1") as (server, url):
            base, key = url.rsplit("/", 1)
            assert re.fullmatch(r"[A-Za-z0-9_-]{16,}", key), url
            keys.append(key)
            async with aiohttp.ClientSession() as http:
                for wrong in ("", key[:-1], key + "x", key.swapcase(), "ws", "é"):
                    assert await _status(http, f"{base}/{wrong}") == 403, wrong
                    with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
                        await http.ws_connect(
                            f"{base.replace('http', 'ws')}/{wrong}/ws".replace("//ws", "/ws")
                        )
                    assert refused.value.status == 403, wrong
                assert children(server.pid) == set()  # no viewer was started for them
                async with http.get(url) as answer:
                    assert answer.status == 200
                    assert f'"/{key}/ws"' in await answer.text()  # the page's websocket
                assert await _status(http, url + "/") == 200
                async with viewer(http, url) as ws:
                    await asyncio.wait_for(_shows(ws, b"Goon"), 20)
    assert keys[0] != keys[1]


async def test_open_or_this_laptop_only_serve_without_a_key(tmp_path: Path) -> None:
    """``--host ADDR --open`` serves at the plain address, as the default (this laptop only)
    does."""
    save = made(tmp_path)
    for options in (("--host", "127.0.0.1", "--open"), ()):
        with serving(save, *options) as (server, url):
            assert re.fullmatch(r"http://127\.0\.0\.1:\d+/", url), url  # no key
            assert server.stdout is not None
            said = "".join(iter(server.stdout.readline, "ctrl+c stops it.\n"))
            assert "this laptop only" in said  # (127.0.0.1: it is)
            async with aiohttp.ClientSession() as http:
                assert await _status(http, url) == 200
                async with viewer(http, url) as ws:
                    await asyncio.wait_for(_shows(ws, b"Goon"), 20)


@needs_chromium
async def test_a_phone_sees_each_combatant_on_one_line_and_the_round_in_digits(
    tmp_path: Path,
) -> None:
    """The shared page at a phone's width (390 px: 43 columns in the page's font): each
    combatant's name, side and state on its line, conditions shortened away rather than
    wrapped to the far left, and the round in block digits."""
    save = tmp_path / "deck.toml"
    lines = [
        "new 2297 Deck",
        'add "Sgt. Blanc" side=pc init=12',
        "add Boarder count=2 init=8",
        "start",
        "hit boarder-1 25",  # dying · unconscious, prone
        "hit boarder-2 30 stun",  # down · prone
    ]
    assert main(["apply", str(save), "--seed", "3", "-q", *lines]) == 0
    with serving(save, "--host", "127.0.0.1") as (_, url):
        async with chromium() as page:
            await page.send(
                "Emulation.setDeviceMetricsOverride",
                width=390,
                height=844,
                deviceScaleFactor=2,
                mobile=False,
            )
            await page.open(url)
            screen = await page.wait_for_screen("Boarder 2", "player view", within=60)
            assert 30 <= await page.evaluate("window.__terminals[0].cols") <= 45
            rows = [r for r in screen.splitlines() if "NOW" not in r and "next" not in r]
            for name, state in [
                ("Sgt. Blanc", "unhurt"),
                ("Boarder 1", "dying"),
                ("Boarder 2", "down"),
            ]:
                (row,) = [r for r in rows if name in r]
                assert row.rstrip().endswith(state), row
            assert not [r for r in rows if r.strip().startswith(("prone", "unconscious"))]
            assert shows_round(screen, 1), screen


def shown(app: App[object]) -> str:
    """The text of the screen's Static widgets (a dialog's)."""
    return "\n".join(str(s.render()) for s in app.screen.query(Static))


async def _status(http: aiohttp.ClientSession, url: str) -> int:
    async with http.get(url) as answer:
        return answer.status


async def _closed_one(
    a: aiohttp.ClientWebSocketResponse, b: aiohttp.ClientWebSocketResponse
) -> aiohttp.ClientWebSocketResponse:
    """Whichever of ``a`` and ``b`` the server closes (frames before the close are read)."""

    async def drained(ws: aiohttp.ClientWebSocketResponse) -> aiohttp.ClientWebSocketResponse:
        async for _ in ws:
            pass
        return ws

    tasks = [asyncio.create_task(drained(ws)) for ws in (a, b)]
    done, pending = await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
    for task in pending:
        task.cancel()
    return next(iter(done)).result()


async def _shows(ws: aiohttp.ClientWebSocketResponse, text: bytes) -> None:
    while text not in await ws.receive_bytes():
        pass


async def test_the_palette_shares_the_players_view_and_stops_it(tmp_path: Path) -> None:
    """From the tracker: "Share the players' view" starts the server for the open save and
    shows its address and QR code; "Stop sharing..." ends it; and a server whose tracker is gone
    (its standard input, a pipe from the tracker, closed) ends by itself."""
    from facility_tui.screens.sharing import AddressDialog, sharing_of

    from facility_tui.app import FacilityApp

    save = made(tmp_path)
    app = FacilityApp(save_dir=tmp_path, open_file=save)
    async with app.run_test(size=(80, 24)) as pilot, aiohttp.ClientSession() as http:
        sharing = sharing_of(app)
        port = free_port()
        sharing.address = ["--host", "127.0.0.1", "--port", str(port)]
        url = f"http://127.0.0.1:{port}/"
        before = app.workspace.encounter
        await pilot.press("ctrl+p", *"Share the players", "enter")
        await until(lambda: url in shown(app), 20, "the address shown")
        assert isinstance(app.screen, AddressDialog)
        first = sharing.url
        assert first.startswith(url) and len(first) >= len(url) + 16  # its key
        assert f"The players' view of deck.toml:\n{first}\n" in shown(app)  # (unbroken)
        assert qr_lines(first).rstrip("\n") in shown(app)  # the QR code of the keyed address
        server = sharing.process
        assert server is not None
        assert await _status(http, first) == 200
        assert await _status(http, url) == 403  # (no key)
        await pilot.press("escape")
        await pilot.press("ctrl+p", *"Stop sharing", "enter")
        await until(lambda: server.poll() is not None, 10, "the server stopped")
        with pytest.raises(aiohttp.ClientConnectionError):
            await _status(http, first)

        await pilot.press("ctrl+p", *"Share the players", "enter")
        await until(lambda: url in shown(app), 20, "the address shown")
        again = sharing.url
        assert again.startswith(url) and again != first  # a new share, a new key
        assert await _status(http, again) == 200
        assert await _status(http, first) == 403  # the last share's key opens nothing now
        server = sharing.process
        assert server is not None and server.stdin is not None
        server.stdin.close()  # (as the kernel does when the tracker dies)
        await until(lambda: server.poll() is not None, 10, "the server ended with its tracker")
        assert app.workspace.encounter is before


def test_the_browser_tests_are_skipped_only_without_chromium_and_never_in_ci() -> None:
    """Without chromium the browser tests are skipped, saying why; where they are required
    (``.ci/run``, which installs chromium and sets the variable before the tests) they run,
    and fail if it is missing."""
    assert skipped("/nowhere/chromium", {}) and skipped("/nowhere/chromium", {REQUIRE: "0"})
    assert not skipped("/nowhere/chromium", {REQUIRE: "1"})
    assert not skipped(sys.executable, {})  # (a file that is there)
    script = (ROOT / ".ci" / "run").read_text()
    required = script.index(f"export {REQUIRE}=1")
    assert required < script.rindex("run pytest") and "install" in script[:required]
