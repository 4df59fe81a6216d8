"""``facility-tui serve``: the player view (``watch``) of a save, in the browsers of the room.

textual-serve runs one ``facility-tui watch SAVE`` process for each browser that connects, and
relays its screen to the browser's terminal (its own scripts and fonts, served from the package:
nothing is fetched from anywhere else). The page is the project's own (``web/``): the default one
loads a web font from the internet. The server is a process of its own, apart from the GM's
tracker, and so is each viewer: both read the save without its lock and never write it, so
killing either loses nothing.

A key: served on the room's network (``--host``), the page and its websocket are at a random
path (``/KEY``, ``secrets.token_urlsafe``) that the printed address and its QR code carry; any
other path gets 403 and no viewer, so a stranger on the same Wi-Fi neither watches nor takes a
seat. Each server has a key of its own (a new share, a new key). ``--open`` serves without one,
and so does the default, this laptop only (``127.0.0.1``: no one else can connect).

Bounds: ``MAX_VIEWERS`` at once (the next browser gets a page saying the table is full); a
viewer's process ends when its tab closes, when the browser stops answering the websocket's pings
(``HEARTBEAT``), and when the server ends (the viewer sees its parent gone: ``watch --served``).

Relies on textual-serve 1.1 beyond its documented arguments: ``Server._make_app`` (its routes,
with ``handle_index`` and ``handle_websocket`` overridden here), ``AppService.start/run`` and
its ``_process`` and ``_task`` (a viewer is ended by a signal, not asked to quit).

The server and its viewers run at the lowest priority (``nice`` 19): on a laptop's two cores,
eight viewers redrawing at each autosave must not delay the GM's keys (at nice 10, eight of them
weighed nearly as much as the tracker, and its keys slowed: benchmarks/viewers.py,
docs/benchmarks.md, 'The players' view').
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import secrets
import shlex
import signal
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import aiohttp_jinja2
from aiohttp import WSMsgType, web
from textual_serve.app_service import AppService
from textual_serve.server import Server

MAX_VIEWERS = 12
HEARTBEAT = 20.0  # seconds between pings; a browser that misses the pong (half of it) is let go
STOP_WITHIN = 3.0  # seconds a viewer has to quit once its tab closed, before it is killed
COLUMNS = (20, 250)  # the terminal sizes a browser may ask for (a larger one is clamped)
ROWS = (8, 120)
WEB = Path(__file__).parent / "web"  # the page and the "table is full" page
KEY_BYTES = 12  # a shared address's key: 96 random bits, 16 characters to type
REFUSED = (
    "This address lacks the key of the players' view: scan the game master's QR code again, "
    "or type the address it shows."
)


def new_key() -> str:
    """A key for a server's address, that no one can guess."""
    return secrets.token_urlsafe(KEY_BYTES)


def viewer_command(save: Path) -> str:
    """The shell line textual-serve runs for each browser: the player view of ``save``, with
    ``exec`` so that the viewer is the server's own child (it ends when the server does)."""
    argv = [sys.executable, "-m", "facility_tui", "watch", str(save.resolve()), "--served"]
    return ("exec " if os.name == "posix" else "") + shlex.join(argv)


def _clamp(value: Any, bounds: tuple[int, int], default: int) -> int:
    try:
        number = int(value)
    except (TypeError, ValueError):
        return default
    return max(bounds[0], min(bounds[1], number))


class _Viewer(AppService):
    """One browser's viewer process: the websocket closes when the process ends (killed,
    crashed, or ``q``), and a process that does not quit when asked is killed."""

    async def run(self) -> None:
        await super().run()
        with contextlib.suppress(Exception):
            await self.remote_close()

    async def stop(self) -> None:
        """End the viewer at once: SIGTERM (a Textual app exits on it, and a viewer has nothing
        to save), SIGKILL if it is still there ``STOP_WITHIN`` seconds later."""
        process = self._process
        if process is not None and process.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                process.terminate()
            try:
                await asyncio.wait_for(process.wait(), STOP_WITHIN)
            except TimeoutError:
                with contextlib.suppress(ProcessLookupError):
                    process.kill()
                await process.wait()
        task, self._task = self._task, None
        if task is not None:
            with contextlib.suppress(Exception):
                await task


class TableServer(Server):
    """The server of the players' view of ``save``, on ``host``:``port``, at ``/KEY`` when
    given a ``key`` (else at ``/``)."""

    def __init__(
        self,
        save: Path,
        host: str,
        port: int,
        announce: Callable[[], None] | None = None,
        with_stdin: bool = False,
        key: str = "",
    ) -> None:
        super().__init__(
            viewer_command(save),
            host=host,
            port=port,
            title=f"{save.stem} · facility-tui player view",
            templates_path=WEB,
        )
        self.viewers = 0
        self.key = key
        self._announce = announce
        self._with_stdin = with_stdin  # (started by the tracker: it ends when the tracker does)

    def initialize_logging(self) -> None:
        logging.basicConfig(level=logging.WARNING, format="facility-tui serve: %(message)s")

    async def on_startup(self, app: web.Application) -> None:
        """(textual-serve prints its banner here; the address is said once it is bound.) Started
        by the tracker, the server ends when its standard input, a pipe from the tracker, closes:
        the tracker has ended, however it ended."""
        if self._with_stdin:
            asyncio.get_running_loop().add_reader(sys.stdin.fileno(), self._stdin_readable)

    def _stdin_readable(self) -> None:
        if not os.read(sys.stdin.fileno(), 1024):
            asyncio.get_running_loop().remove_reader(sys.stdin.fileno())
            os.kill(os.getpid(), signal.SIGTERM)  # (ends as ctrl+c does)

    async def _make_app(self) -> web.Application:
        """textual-serve's routes (``/`` and ``/ws``, refused when there is a key), and with a
        key the page and its websocket under it."""
        app = await super()._make_app()
        if self.key:
            app.router.add_get("/{key}", self.handle_index)
            app.router.add_get("/{key}/", self.handle_index)
            app.router.add_get("/{key}/ws", self.handle_websocket)
        return app

    def _admits(self, request: web.Request) -> bool:
        """Whether ``request`` carries the server's key (any request, when it has none)."""
        given = request.match_info.get("key", "").encode()
        return not self.key or secrets.compare_digest(given, self.key.encode())

    def serve(self, debug: bool = False) -> None:
        """Serve until interrupted (ctrl+c, SIGTERM); an address that cannot be bound raises
        ``OSError``."""
        self.initialize_logging()
        web.run_app(
            self._make_app(),
            host=self.host,
            port=self.port,
            print=self._bound,
            access_log=None,
            shutdown_timeout=STOP_WITHIN,
        )

    def _bound(self, *_: object) -> None:
        """(What aiohttp calls once the port is bound: the address is said then.)"""
        if self._announce is not None:
            self._announce()

    async def handle_index(self, request: web.Request) -> web.StreamResponse:
        if not self._admits(request):
            raise web.HTTPForbidden(text=REFUSED)
        if self.viewers >= MAX_VIEWERS:
            return aiohttp_jinja2.render_template(
                "full.html", request, {"seats": MAX_VIEWERS}, status=503
            )
        context = {
            "title": self.title,
            "font_size": _clamp(request.query.get("fontsize"), (8, 40), 16),
            "websocket_path": f"/{self.key}/ws" if self.key else "/ws",
        }
        response = aiohttp_jinja2.render_template("page.html", request, context)
        response.headers["Cache-Control"] = "no-store"
        return response

    async def handle_websocket(self, request: web.Request) -> web.WebSocketResponse:
        if not self._admits(request):
            raise web.HTTPForbidden(text=REFUSED)
        if self.viewers >= MAX_VIEWERS:
            raise web.HTTPServiceUnavailable(text=f"The table is full ({MAX_VIEWERS} viewers).")
        self.viewers += 1
        try:
            return await self._relay(request)
        finally:
            self.viewers -= 1

    async def _relay(self, request: web.Request) -> web.WebSocketResponse:
        """One browser: its viewer process started, its keys and size passed on, until either
        side ends."""
        websocket = web.WebSocketResponse(heartbeat=HEARTBEAT, max_msg_size=64 * 1024)
        await websocket.prepare(request)

        async def close() -> None:
            await websocket.close()

        viewer = _Viewer(
            self.command,
            write_bytes=websocket.send_bytes,
            write_str=websocket.send_str,
            close=close,
            download_manager=self.download_manager,
        )
        try:
            await viewer.start(
                _clamp(request.query.get("width"), COLUMNS, 80),
                _clamp(request.query.get("height"), ROWS, 24),
            )
            await self._pass_on(websocket, viewer)
        finally:
            await viewer.stop()
            await websocket.close()
        return websocket

    async def _pass_on(self, websocket: web.WebSocketResponse, viewer: AppService) -> None:
        async for message in websocket:
            if message.type != WSMsgType.TEXT:
                continue
            try:
                kind, *data = json.loads(message.data)
            except (ValueError, TypeError):
                continue  # (not what the page sends)
            if kind == "stdin" and data and isinstance(data[0], str):
                await viewer.send_bytes(data[0].encode("utf-8"))
            elif kind == "resize" and data and isinstance(data[0], dict):
                size = data[0]
                await viewer.set_terminal_size(
                    _clamp(size.get("width"), COLUMNS, 80), _clamp(size.get("height"), ROWS, 24)
                )
            elif kind == "ping" and data:
                await websocket.send_json(["pong", data[0]])
            elif kind == "blur":
                await viewer.blur()
            elif kind == "focus":
                await viewer.focus()


def addresses(host: str, port: int, key: str = "") -> list[str]:
    """The addresses to type in a browser (with the server's ``key``): ``host`` itself, or for
    every network (``0.0.0.0``) the laptop's own address on each (loopback when it has no
    other)."""
    if host not in {"0.0.0.0", ""}:
        hosts = [f"[{host}]" if ":" in host else host]
    else:
        hosts = list(dict.fromkeys(a for a in _own_addresses() if not a.startswith("127.")))
    return [f"http://{h}:{port}/{key}" for h in hosts or ["127.0.0.1"]]


def _own_addresses() -> list[str]:
    """The IPv4 address of each network interface, asked of the kernel (Linux: ``ioctl``
    SIOCGIFADDR; elsewhere what the machine's own name resolves to). Nothing is sent."""
    import socket

    found: list[str] = []
    with contextlib.suppress(ImportError, OSError, AttributeError):
        import fcntl
        import struct

        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
            for _, name in socket.if_nameindex():
                with contextlib.suppress(OSError):
                    asked = struct.pack("256s", name[:15].encode())
                    answer = fcntl.ioctl(probe.fileno(), 0x8915, asked)  # SIOCGIFADDR
                    found.append(socket.inet_ntoa(answer[20:24]))
    with contextlib.suppress(OSError):
        for *_, sockaddr in socket.getaddrinfo(socket.gethostname(), None, socket.AF_INET):
            found.append(str(sockaddr[0]))
    return found


def qr_lines(url: str) -> str:
    """``url`` as a QR code in half blocks, light on a dark terminal, to scan with a phone."""
    import io

    import segno

    out = io.StringIO()
    segno.make(url, error="l").terminal(out=out, compact=True, border=2)
    return out.getvalue()
