"""A real headless browser (Debian's chromium) driven over the Chrome DevTools protocol, for the
tests of ``facility-tui serve``: it loads a page, records every request it makes and every
websocket frame it receives, and reads the text of the page's terminal.

Where chromium is missing, the tests marked ``needs_chromium`` are skipped with that reason,
unless ``FACILITY_TUI_REQUIRE_BROWSER=1`` (as ``.ci/run`` sets it): then they fail.

The terminal is drawn into a canvas, so the page's DOM holds no text: a script run before the
page's own ones keeps each object given a ``terminal`` property (the page's script does
``this.terminal = new Terminal(...)``), and its buffer is read through xterm.js's public API.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import itertools
import os
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import AsyncIterator, Mapping
from pathlib import Path
from typing import Any

import aiohttp
import pytest

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"  # (.ci/run installs it: apt)
REQUIRE = "FACILITY_TUI_REQUIRE_BROWSER"  # "1": the browser tests must run (.ci/run sets it)
REQUIRED = os.environ.get(REQUIRE) == "1"


def skipped(path: str, environ: Mapping[str, str]) -> bool:
    """Whether the browser tests are skipped: chromium is not at ``path`` and ``environ`` does
    not require them (where it does, a missing chromium fails them)."""
    return environ.get(REQUIRE) != "1" and not Path(path).exists()


needs_chromium = pytest.mark.skipif(
    skipped(CHROMIUM, os.environ),
    reason="these tests need Debian's chromium (apt-get install chromium), which is missing",
)

# Kept before the page's scripts run: every terminal the page makes, on window.__terminals.
KEEP_TERMINALS = """
Object.defineProperty(Object.prototype, "terminal", {
  configurable: true,
  set(value) {
    Object.defineProperty(this, "terminal", {value, writable: true, configurable: true});
    (window.__terminals = window.__terminals || []).push(value);
  },
});
"""

SCREEN_TEXT = """
(() => {
  const term = (window.__terminals || [])[0];
  if (!term) return "";
  const buffer = term.buffer.active, lines = [];
  for (let i = 0; i < buffer.length; i++) lines.push(buffer.getLine(i).translateToString(true));
  return lines.join("\\n");
})()
"""


class Page:
    """One tab, over its DevTools websocket."""

    def __init__(self, ws: aiohttp.ClientWebSocketResponse) -> None:
        self.ws = ws
        self.ids = itertools.count(1)
        self.waiting: dict[int, asyncio.Future[dict[str, Any]]] = {}
        self.requests: list[str] = []  # every URL the page asked for (websockets included)
        self.frames: list[bytes] = []  # every websocket frame received
        self.reader = asyncio.create_task(self._read())

    async def _read(self) -> None:
        async for message in self.ws:
            if message.type != aiohttp.WSMsgType.TEXT:
                break
            data = message.json()
            if "id" in data and data["id"] in self.waiting:
                self.waiting.pop(data["id"]).set_result(data)
                continue
            method, params = data.get("method"), data.get("params", {})
            if method == "Network.requestWillBeSent":
                self.requests.append(params["request"]["url"])
            elif method == "Network.webSocketCreated":
                self.requests.append(params["url"])
            elif method == "Network.webSocketFrameReceived":
                frame = params["response"]
                payload = frame["payloadData"]
                self.frames.append(
                    base64.b64decode(payload) if frame["opcode"] == 2 else payload.encode()
                )

    async def send(self, method: str, **params: Any) -> dict[str, Any]:
        key = next(self.ids)
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self.waiting[key] = future
        await self.ws.send_json({"id": key, "method": method, "params": params})
        answer = await asyncio.wait_for(future, 30)
        assert "error" not in answer, answer
        return answer.get("result", {})

    async def open(self, url: str) -> None:
        await self.send("Network.enable")
        await self.send("Page.enable")
        await self.send("Page.addScriptToEvaluateOnNewDocument", source=KEEP_TERMINALS)
        await self.send("Page.navigate", url=url)

    async def evaluate(self, expression: str) -> Any:
        result = await self.send("Runtime.evaluate", expression=expression, returnByValue=True)
        return result["result"].get("value")

    async def screen(self) -> str:
        return str(await self.evaluate(SCREEN_TEXT) or "")

    async def wait_for_screen(self, *texts: str, within: float) -> str:
        """The terminal's text once it shows every one of ``texts`` (AssertionError, with what
        it showed, if it does not within ``within`` seconds)."""
        deadline = time.monotonic() + within
        shown = ""
        while time.monotonic() < deadline:
            shown = await self.screen()
            if all(t in shown for t in texts):
                return shown
            await asyncio.sleep(0.1)
        raise AssertionError(f"not all of {texts} shown within {within} s:\n{shown}")


@contextlib.asynccontextmanager
async def chromium() -> AsyncIterator[Page]:
    """A headless chromium with one blank tab, its network limited to what it is asked to load
    (no background connections of its own)."""
    assert Path(CHROMIUM).exists(), (
        "these tests need Debian's chromium: apt-get install chromium"
        + (" (FACILITY_TUI_REQUIRE_BROWSER=1: they may not be skipped)" if REQUIRED else "")
    )
    with tempfile.TemporaryDirectory(
        prefix="facility-tui-browser-", ignore_cleanup_errors=True
    ) as profile:
        process = subprocess.Popen(
            [
                CHROMIUM,
                "--headless=new",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-quic",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--disable-extensions",
                f"--user-data-dir={profile}",
                "--remote-debugging-address=127.0.0.1",
                "--remote-debugging-port=0",
                "--window-size=1000,800",
                "about:blank",
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,  # (its renderer and helpers: ended with it, as a group)
        )
        try:
            port_file = Path(profile) / "DevToolsActivePort"
            deadline = time.monotonic() + 30
            while not (port_file.exists() and port_file.read_text().count("\n") >= 1):
                assert process.poll() is None, "chromium ended at start"
                assert time.monotonic() < deadline, "chromium did not start within 30 s"
                await asyncio.sleep(0.1)
            port = int(port_file.read_text().split()[0])
            async with aiohttp.ClientSession() as http:
                async with http.get(f"http://127.0.0.1:{port}/json/list") as answer:
                    tabs = await answer.json()
                tab = next(t for t in tabs if t["type"] == "page")
                async with http.ws_connect(tab["webSocketDebuggerUrl"], max_msg_size=0) as ws:
                    page = Page(ws)
                    try:
                        yield page
                    finally:
                        page.reader.cancel()
        finally:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)
            process.wait()
