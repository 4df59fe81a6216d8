"""What the screen hands the terminal, checked (issue 21): every strip of every visible widget
within its region and free of control characters, and the bytes a frame writes replayed on a
small terminal model that says when the screen would scroll or a line would run past the edge."""

from __future__ import annotations

import re

from facility_tui.screens.widgets.initiative import InitiativeList
from rich.cells import cell_len
from textual.app import App
from textual.drivers.headless_driver import HeadlessDriver
from textual.geometry import Region
from textual.widgets import Input
from textual.widgets._toast import Toast

# C0 (tab and newline too), DEL and C1: none may reach the terminal inside a line.
CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")
CSI = re.compile(r"\x1b\[([0-?]*)[ -/]*([@-~])")
MOVE_TO = re.compile(r"\x1b\[\d*;?\d*H")
STRING = re.compile(r"\x1b[P\]X^_].*?(?:\x07|\x1b\\)", re.DOTALL)  # OSC, DCS...: a title, a query


def strip_faults(app: App[object]) -> list[str]:
    """Every strip of every widget the top screen shows, and of the screen as composed: each as
    wide as its region, no segment with a control character (or a control segment)."""
    faults: list[str] = []
    screen = app.screen
    compositor = screen._compositor
    for widget, (region, _clip) in compositor.visible_widgets.items():
        if not region:
            continue
        name = f"{type(widget).__name__}#{widget.id}" if widget.id else type(widget).__name__
        lines = widget.render_lines(Region(0, 0, region.width, region.height))
        for y, strip in enumerate(lines):
            if strip.cell_length != region.width:
                faults.append(f"{name} line {y}: {strip.cell_length} cells in {region.width}")
            for segment in strip:
                if segment.control or CONTROL.search(segment.text):
                    faults.append(f"{name} line {y}: control character in {segment.text!r}")
    for y, strip in enumerate(compositor.render_strips()):
        if strip.cell_length != app.size.width:
            faults.append(f"screen line {y}: {strip.cell_length} cells in {app.size.width}")
        for segment in strip:
            if segment.control or CONTROL.search(segment.text):
                faults.append(f"screen line {y}: control character in {segment.text!r}")
    return faults


def screen_lines(app: App[object]) -> list[str]:
    """The screen's rows as the app composes them."""
    return [strip.text for strip in app.screen._compositor.render_strips()]


class Terminal:
    """A terminal in raw mode, as far as a frame of Textual's needs one: cursor moves, text, line
    feeds. It keeps what the rows show and every fault: a line feed on the last row (the whole
    screen scrolls up), text past the right edge (it wraps onto the next row), a control
    character inside a line."""

    def __init__(self, width: int, height: int) -> None:
        self.width, self.height = width, height
        self.cells = [[" "] * width for _ in range(height)]
        self.looks = [[""] * width for _ in range(height)]  # each cell's SGR parameters
        self.look = ""  # the SGR parameters in force (after the last reset)
        self.x = self.y = 0
        self.faults: list[str] = []

    def rows(self) -> list[str]:
        return ["".join(row) for row in self.cells]

    def reversed(self, x: int, y: int) -> bool:
        """Whether the cell at ``x``, ``y`` was written in reverse video (SGR 7)."""
        params = iter(self.looks[y][x].split(";"))
        reverse = False
        for p in params:
            if p in ("38", "48"):  # a colour's own numbers follow: 5;n or 2;r;g;b
                for _ in range(1 if next(params, "") == "5" else 3):
                    next(params, "")
            elif p == "7":
                reverse = True
            elif p == "27":
                reverse = False
        return reverse

    def feed(self, data: str) -> None:
        i = 0
        while i < len(data):
            ch = data[i]
            before = data[max(0, i - 40) : i]
            if ch == "\x1b":
                i = self._escape(data, i)
                continue
            if ch == "\n":
                # A whole frame ends each row with one, then moves the cursor: any other breaks
                # a line in two (and on the last row, scrolls the whole screen up).
                if self.y == self.height - 1:
                    self.faults.append(f"line feed on the last row after {before!r}")
                elif not MOVE_TO.match(data, i + 1):
                    self.faults.append(f"line feed inside row {self.y} after {before!r}")
                self.y = min(self.height - 1, self.y + 1)
            elif ch == "\r":
                self.x = 0
            elif ch == "\x07":
                pass  # a bell: heard, not drawn
            elif CONTROL.match(ch):
                self.faults.append(f"control character {ch!r} after {before!r}")
            else:
                width = cell_len(ch)
                if self.x + width > self.width:
                    self.faults.append(f"row {self.y} runs past the edge after {before!r}")
                else:
                    self.cells[self.y][self.x] = ch
                    self.looks[self.y][self.x] = self.look
                    for extra in range(1, width):
                        self.cells[self.y][self.x + extra] = ""
                self.x += width
            i += 1

    def _escape(self, data: str, i: int) -> int:
        string = STRING.match(data, i)
        if string:
            return string.end()
        csi = CSI.match(data, i)
        if csi is None:
            return i + 2  # ESC and one character (keypad modes, save and restore)
        params, final = csi.groups()
        if final in "Hf" and not params.startswith("?"):
            row, _, col = params.partition(";")
            self.y = min(self.height - 1, max(0, int(row or 1) - 1))
            self.x = min(self.width - 1, max(0, int(col or 1) - 1))
        elif final == "m":
            self.look = "" if params in ("", "0") else f"{self.look};{params}".lstrip(";")
        elif final not in "hl":  # (colours, and modes: the cursor shown, a synchronised frame)
            self.faults.append(f"sequence {csi.group()!r} in a frame (a frame moves and writes)")
        return csi.end()


class RecordingDriver(HeadlessDriver):
    """The test driver, but the app writes its frames to it, as it would to a terminal."""

    terminal: Terminal

    @property
    def is_headless(self) -> bool:
        return False

    def write(self, data: str) -> None:
        self.terminal.feed(data)


def record(app: App[object]) -> Terminal:
    """From now on, what ``app`` (running under ``run_test``) writes goes to a model terminal;
    the next frame is a whole one."""
    driver = app._driver
    assert isinstance(driver, HeadlessDriver)
    driver.__class__ = RecordingDriver
    assert isinstance(driver, RecordingDriver)
    driver.terminal = Terminal(*app.size)
    app.screen.refresh()
    return driver.terminal


def toasts_cut(app: App[object]) -> list[str]:
    """The toasts on the top screen whose message the screen does not show whole (read off the
    composed screen, in the toast's region)."""
    rows = screen_lines(app)
    cut: list[str] = []
    for toast in app.screen.query(Toast):
        x, y, width, height = toast.region
        # (white space aside: a word longer than the toast, a path, is folded across rows)
        shown = "".join(row[x : x + width] for row in rows[y : y + height])
        shown = "".join(shown.replace("▌", " ").split())
        message = "".join(toast._notification.message.split())
        if message not in shown:
            cut.append(f"{message!r} shows as {shown!r}")
    return cut


def toasts_over_fields(app: App[object]) -> list[str]:
    """The toasts on the top screen that cover a field (a line the GM types in) or the list."""
    covered: list[str] = []
    for toast in app.screen.query(Toast):
        for field in [*app.screen.query(Input), *app.screen.query(InitiativeList)]:
            if field.display and toast.region.overlaps(field.region):
                covered.append(f"{toast._notification.message!r} over {field}")
    return covered
