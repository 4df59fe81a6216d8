"""The players' view shared from the tracker (palette: "Share the players' view", again to stop).

It starts ``facility-tui serve`` for the open save in a process of its own, listening on every
network of the laptop (its room's too) at an address with a key of its own (each share a new
one: ``serve``'s docstring), and says the address to type: the server reads the save
as ``watch`` does, so it never slows the tracker's keys nor holds its save. It ends when the
tracker ends, however it ends: its standard input is a pipe from the tracker (``serve
--with-stdin``), closed by the system then. What the server prints (its address, its QR code,
or why it could not start) is read by a thread, never written to the tracker's terminal.
"""

from __future__ import annotations

import subprocess
import sys
import threading
from pathlib import Path
from typing import ClassVar
from weakref import WeakKeyDictionary

from rich.text import Text
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.notifications import SeverityLevel
from textual.screen import ModalScreen
from textual.widgets import Static

from facility_tui.model.text import printable

PORT = 8297
HOST = "0.0.0.0"  # (every network of the laptop: the phones' too)


class Sharing:
    """The server of the players' view this app started, if any."""

    def __init__(self, app: App[object]) -> None:
        self.app = app
        self.process: subprocess.Popen[str] | None = None
        self.path: Path | None = None
        self.url = ""
        self.address = ["--host", HOST, "--port", str(PORT)]

    def serves(self, path: Path) -> bool:
        return self.process is not None and self.process.poll() is None and self.path == path

    def start(self, path: Path) -> None:
        self.stop()
        self.path, self.url = path, ""
        command = [sys.executable, "-m", "facility_tui", "serve", str(path), *self.address]
        self.process = process = subprocess.Popen(
            [*command, "--with-stdin"],  # (a pipe the tracker never writes: ends with it)
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            start_new_session=True,  # (no signal meant for the tracker reaches it)
        )
        self.app.notify(
            f"Sharing the players' view of {printable(path.name)}…", timeout=3, markup=False
        )
        threading.Thread(target=self._read, args=(process,), daemon=True).start()

    def end(self) -> None:
        """Stop sharing, said (the palette's "Stop sharing")."""
        self.stop()
        self.app.notify("The players' view is no longer shared", timeout=3)

    def stop(self) -> None:
        process, self.process = self.process, None
        if process is not None and process.poll() is None:
            process.terminate()  # (the server ends its viewers with it)
            try:
                process.wait(5)
            except subprocess.TimeoutExpired:
                process.kill()

    def _read(self, process: subprocess.Popen[str]) -> None:
        """What the server says: its first line (the address, or why it could not start), then
        the address's QR code, shown in a dialog; the rest is read and left."""
        assert process.stdout is not None
        first = process.stdout.readline().strip()
        if first.startswith("The players' view"):
            self.url = first.split(": ", 1)[-1]
            qr: list[str] = []
            for line in process.stdout:
                if set(line.rstrip("\n")) - QR_CELLS:
                    break
                qr.append(line.rstrip("\n"))
            self.app.call_from_thread(self.app.push_screen, AddressDialog(first, qr))
        for _ in process.stdout:
            pass
        code = process.wait()
        if process is self.process:  # (it ended unasked: said, with its reason)
            self.process = None
            reason = "" if first.startswith("The players' view") else first
            self._say(printable(reason or f"The players' view stopped (exit {code})"), "error", 15)

    def _say(self, message: str, severity: SeverityLevel, timeout: float) -> None:
        self.app.call_from_thread(
            self.app.notify, message, severity=severity, timeout=timeout, markup=False
        )


QR_CELLS = set(" ▀▄█")  # (what a QR code is drawn with: ``serve.qr_lines``)


class AddressDialog(ModalScreen[None]):
    """The address of the shared view, and its QR code for the players' phones to scan."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape,enter,space", "close", "Close")]
    DEFAULT_CSS = """
    AddressDialog { align: center middle; }
    AddressDialog > #address {
        width: auto; max-width: 100%; height: auto; max-height: 100%; padding: 0 1;
        border: thick $primary; background: $surface;
    }
    AddressDialog #qr, AddressDialog #where { width: auto; }
    """

    def __init__(self, said: str, qr: list[str]) -> None:
        super().__init__()
        self.said, self.qr = said, qr

    def compose(self) -> ComposeResult:
        with Vertical(id="address"):
            said, _, where = printable(self.said).partition(": ")
            yield Static(Text(f"{said}:" if where else said))
            if where:  # (a line of its own: the address and its key, never broken)
                yield Static(Text(where, style="bold"), id="where")
            if self.qr:  # (light on dark whatever the theme: as a scanner expects it)
                yield Static(Text("\n".join(self.qr), style="#ffffff on #000000"), id="qr")
            ends = "enter closes · the palette's \"Stop sharing the players' view\" ends it"
            yield Static(Text(ends, style="dim"))

    def action_close(self) -> None:
        self.dismiss(None)


_SHARING: WeakKeyDictionary[App[object], Sharing] = WeakKeyDictionary()


def sharing_of(app: App[object]) -> Sharing:
    if app not in _SHARING:
        _SHARING[app] = Sharing(app)
    return _SHARING[app]
