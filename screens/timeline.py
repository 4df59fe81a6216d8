"""The fight's timeline (``T``, or "Timeline" in the palette; issue 38): every step, as the log
reads them, round by round, on one branch at a time; the main screen shows the fight as it was at
the step under the cursor, read-only, until the GM goes back (escape: as it was) or makes that
step the present (enter: ``Workspace.go``, autosaved, ``u`` walks back from it and the next
command starts a branch).

The panel draws only the rows around the cursor (a fight of 50,000 steps is a list of ids, not of
widgets); a step's fight comes from ``Session.state_at`` (the nearest state kept, replayed).
↑/↓ switch to a sibling branch (the steps another line took from the same moment); a branch can
be named (``n``) and deleted (``d``: hidden, never destroyed; ``u`` brings it back). ``m`` marks a
step and ``c`` compares it with the one under the cursor (``report.compare``); ``f`` runs the
forecast from the step under the cursor, changing nothing.

Step lines and names are data: plain ``Text``, control characters escaped.
"""

from __future__ import annotations

import textwrap
from typing import TYPE_CHECKING

from rich.text import Text
from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Input, Label

from facility_tui.commands.grammar import CommandError
from facility_tui.commands.timeline import ROOT
from facility_tui.model.encounter import Encounter
from facility_tui.model.text import printable
from facility_tui.report import Compared, compare

from .browser import RenameDialog
from .render.text_pane import TextPane
from .toasts import ToastsHiddenWhenCovered
from .widgets.key_bar import KeyBar

if TYPE_CHECKING:
    from .main import MainScreen

ROWS_AROUND = 40  # steps looked at on each side of the cursor to fill the panel's rows
PRESENT, MARKED, FORK = "▶", "◆", "↕ branch"


def round_title(rnd: int) -> str:
    return f"Round {rnd}" if rnd else "Setup"


def open_timeline(main: MainScreen) -> None:
    """Every step of the fight: the list shows the one under the cursor; enter makes it the
    present, escape comes back unchanged (``T`` and the palette)."""
    main.app.push_screen(TimelineScreen(main))


class TimelineScreen(ToastsHiddenWhenCovered, ModalScreen[None]):
    """The panel at the foot of the screen; the main screen above it shows the step under the
    cursor. Dismisses with nothing: what it did, it did through the workspace."""

    BINDINGS = [
        Binding("left", "step(-1)", "Step", show=False, priority=True, id="timeline_back"),
        Binding("right", "step(1)", "Step", show=False, priority=True, id="timeline_forward"),
        Binding(
            "pageup", "round(-1)", "Round", show=False, priority=True, id="timeline_round_back"
        ),
        Binding("pagedown", "round(1)", "Round", show=False, priority=True, id="timeline_round"),
        Binding("home", "edge(0)", "First", show=False, priority=True, id="timeline_first"),
        Binding("end", "edge(1)", "Last", show=False, priority=True, id="timeline_last"),
        Binding("up", "branch(-1)", "Branch", show=False, priority=True, id="timeline_up"),
        Binding("down", "branch(1)", "Branch", show=False, priority=True, id="timeline_down"),
        Binding("enter", "go", "Play from here", priority=True, key_display="⏎", id="timeline_go"),
        Binding("escape", "close", "Back", priority=True, id="timeline_close"),
        Binding("n", "name", "Name", priority=True, id="timeline_name"),
        Binding("d,delete", "delete", "Delete", priority=True, id="timeline_delete"),
        Binding("u", "restore", "Undelete", priority=True, id="timeline_restore"),
        Binding("m", "mark", "Mark", priority=True, id="timeline_mark"),
        Binding("c", "compare", "Compare", priority=True, id="timeline_compare"),
        Binding("f", "forecast", "Forecast", priority=True, id="timeline_forecast"),
    ]

    def __init__(self, main: MainScreen) -> None:
        super().__init__()
        self.main = main
        self.ws = main.ws
        self.ws.session.settle()  # (a save's history is read the first time it is needed)
        self.tl = self.ws.session.timeline
        self.tip = self.tl.tip(self.tl.current)
        self.line = [ROOT, *self.tl.path(self.tip)]  # the branch shown: ids, the start first
        self.tips = self.tl.tips()  # every branch (worked out again as one is deleted)
        self.index = len(self.tl.path(self.tl.current))  # the cursor: the present, to begin
        self.marked: int | None = None
        # the branches deleted from this fight's timeline, the last last (u brings one back)
        self.restorable = main.deleted_branches.setdefault(self.ws.path, [])
        self.selected = main.table.cursor_key  # the list's selection, given back on escape
        self._done = False

    @property
    def cursor(self) -> int:
        return self.line[self.index]

    def compose(self) -> ComposeResult:
        with Vertical(id="timeline-panel"):
            yield Label(id="timeline-title")
            yield TextPane(id="timeline-rows")
            yield Label(
                Text("←→ step · PgUp/PgDn round · Home/End · ↑↓ branch · the list shows it"),
                id="timeline-hint",
            )
            yield KeyBar(id="timeline-keys")

    def on_mount(self) -> None:
        self._show()

    # -- what the panel and the main screen show ------------------------------------------------

    def _round(self, nid: int) -> int:
        return self.tl.root.round if nid == ROOT else self.tl.node(nid).round

    def _show(self) -> None:
        """Draw the rows around the cursor, and show its step's fight on the main screen."""
        if self.ws.session.timeline is not self.tl:  # (another fight shown, or read again)
            self.notify("The fight was read again: the timeline closed")
            self.action_close()
            return
        tl, nid = self.tl, self.cursor
        enc = self.ws.session.state_at(nid)
        self.main.publish(enc)
        steps = len(self.line) - 1
        # (a step's number is its own, in the order steps were made: a branch's numbers jump
        # where it leaves, and ``export --branch`` takes them)
        where = f"step {nid} ({self.index} of {steps})" if self.index else "the start"
        name = tl.names.get(self.tip, "")
        title = Text(
            f"Timeline — {where} · {round_title(enc.round).lower()}",
            no_wrap=True,
            overflow="ellipsis",
        )
        if len(self.tips) > 1:
            title.append(f" · branch {_place(self.tips, self.tip)} of {len(self.tips)}")
        if name:
            title.append(f" “{printable(name)}”")
        if nid == tl.current:
            title.append(" · the present")
        self.query_one("#timeline-title", Label).update(title)
        self.query_one("#timeline-rows", TextPane).show_lines(self._rows())

    def _rows(self) -> list[Text]:
        """The rows that fit the panel, the cursor's among them: a round's title where the
        round changes, then a row a step (its number, what it said, where a branch leaves)."""
        room = max(1, self.query_one("#timeline-rows").size.height or 6)
        lo, hi = max(0, self.index - ROWS_AROUND), min(len(self.line), self.index + ROWS_AROUND)
        rows: list[Text] = []
        at = 0  # the cursor's row
        last = None if lo == 0 else self._round(self.line[lo - 1])
        for i in range(lo, hi):
            nid = self.line[i]
            rnd = self._round(nid)
            if rnd != last:
                rows.append(Text(f"── {round_title(rnd)} ──", style="bold"))
                last = rnd
            if i == self.index:
                at = len(rows)
            rows.append(self._row(i, nid))
        start = max(0, min(at - room // 2, len(rows) - room))
        return rows[start : start + room]

    def _row(self, i: int, nid: int) -> Text:
        tl = self.tl
        marks = (
            ("▌" if i == self.index else " ")
            + (PRESENT if nid == tl.current else " ")
            + (MARKED if nid == self.marked else " ")
        )
        said = "the start of the fight" if nid == ROOT else tl.node(nid).said
        row = Text(f"{marks}{nid:>4} ", no_wrap=True, overflow="ellipsis", end="")
        if nid != ROOT and len(kids := tl.children(tl.parent(nid))) > 1:
            # (before what the step said, which a narrow panel cuts)
            row.append(f"{FORK} {kids.index(nid) + 1}/{len(kids)}", style="bold")
            if name := tl.names.get(self.tip, ""):
                row.append(f" {printable(name)}", style="bold")
            row.append(": ")
        row.append(printable(said))
        if i == self.index:
            row.stylize("reverse")
        return row

    # -- moving the cursor ------------------------------------------------------------------------

    def _move(self, index: int) -> None:
        index = max(0, min(index, len(self.line) - 1))
        if index != self.index:
            self.index = index
            self._show()

    def action_step(self, delta: int) -> None:
        self._move(self.index + delta)

    def action_edge(self, end: int) -> None:
        self._move(len(self.line) - 1 if end else 0)

    def action_round(self, delta: int) -> None:
        """To the first step of the next round, or of this round (then of the one before)."""
        line, i = self.line, self.index
        if delta > 0:
            rnd = self._round(line[i])
            while i < len(line) - 1 and self._round(line[i]) == rnd:
                i += 1
        else:
            if i > 0 and self._round(line[i - 1]) == self._round(line[i]):
                pass  # (to this round's first step)
            elif i > 0:
                i -= 1  # (already at it: the round before's)
            rnd = self._round(line[i])
            while i > 0 and self._round(line[i - 1]) == rnd:
                i -= 1
        self._move(i)

    def action_branch(self, delta: int) -> None:
        """To the step another branch took from the same moment (a sibling of the cursor's)."""
        tl, nid = self.tl, self.cursor
        kids = tl.children(tl.parent(nid)) if nid != ROOT else [ROOT]
        if len(kids) < 2:
            self.notify(f"No other branch at this step ({FORK} marks the steps where one leaves)")
            return
        other = kids[(kids.index(nid) + delta) % len(kids)]
        self._on_branch(tl.tip(other), other)

    def _on_branch(self, tip: int, at: int) -> None:
        """Show the branch ending at ``tip``, the cursor on its step ``at``."""
        self.tip = tip
        self.tips = self.tl.tips()
        self.line = [ROOT, *self.tl.path(tip)]
        self.index = self.line.index(at) if at in self.line else len(self.line) - 1
        self._show()

    # -- what the keys do -------------------------------------------------------------------------

    def action_go(self) -> None:
        """Make the step under the cursor the present (autosaved; u walks back from it)."""
        if self._done:
            return
        nid = self.cursor
        try:
            outcome = self.ws.go(nid)
        except CommandError as err:
            self.notify(str(err), severity="error", timeout=8)
            return
        self._done = True
        self.main.publish()
        self.main.after_change()
        self.main.notify(f"{outcome.message}. The next command starts a branch here; u walks back")
        if note := self.ws.take_ledger_note():
            self.main.notify(note, severity="warning", timeout=10, markup=False)
        self.dismiss(None)

    def action_close(self) -> None:
        """Back to where the GM was, unchanged."""
        if self._done:
            return
        self._done = True
        self.main.publish()
        if self.selected is not None:
            self.main.table.move_to(self.selected)
        self.dismiss(None)

    def action_name(self) -> None:
        tip = self.tip

        def rename(name: str) -> str | None:
            try:
                self.ws.check_writable()
                message = self.ws.session.name_branch(tip, name)
            except CommandError as err:
                return str(err)
            self.notify(message)
            if self.is_attached:
                self._show()
            return None

        old = self.tl.names.get(tip, "")
        self.app.push_screen(NameDialog(old, rename))

    def action_delete(self) -> None:
        """Delete the branch shown (hidden, never destroyed: u brings it back)."""
        try:
            self.ws.check_writable()
            fork = self.ws.session.hide_branch(self.tip)
        except CommandError as err:
            self.notify(str(err), severity="error", timeout=8)
            return
        self.restorable.append(fork)
        parent = self.tl.parent(fork)
        self.notify("Branch deleted: u brings it back (here, in the timeline)")
        self._on_branch(self.tl.tip(parent), parent)

    def action_restore(self) -> None:
        if not self.restorable:
            self.notify("No branch deleted here to bring back")
            return
        fork = self.restorable.pop()
        try:
            self.ws.check_writable()
            self.ws.session.show_branch(fork)
        except CommandError as err:
            self.restorable.append(fork)
            self.notify(str(err), severity="error", timeout=8)
            return
        self.notify("Branch back")
        self._on_branch(self.tl.tip(fork), fork)

    def action_mark(self) -> None:
        """Mark the step under the cursor (again: unmark), to compare with another."""
        self.marked = None if self.marked == self.cursor else self.cursor
        marked = self.marked is not None
        said = "Marked: c compares it with the step under the cursor" if marked else "Unmarked"
        self.notify(said)
        self._show()

    def action_compare(self) -> None:
        if self.marked is None or self.marked not in self.tl or self.tl.is_hidden(self.marked):
            self.notify("Mark a step first (m), then move to another and press c")
            return
        if self.marked == self.cursor:
            self.notify("The marked step is the one under the cursor: move to another")
            return
        session = self.ws.session
        a, b = session.state_at(self.marked), session.state_at(self.cursor)
        self.app.push_screen(
            CompareScreen(self._label(self.marked, a), self._label(self.cursor, b), a, b)
        )

    def _label(self, nid: int, enc: Encounter) -> str:
        step = "the start" if nid == ROOT else f"step {nid}"
        return f"{step}, {round_title(enc.round).lower()}"

    def action_forecast(self) -> None:
        """The forecast from the step under the cursor: nothing in the fight changes. From a
        step before the present it is a what-if, not kept in the forecast ledger."""
        from .forecast import ForecastScreen, ledger_keeper

        enc = self.ws.session.state_at(self.cursor)
        keep = ledger_keeper(self.ws) if self.cursor == self.ws.session.timeline.current else None
        self.app.push_screen(ForecastScreen(enc, keep=keep))

    async def _on_key(self, event: events.Key) -> None:
        event.stop()  # (any other key does nothing here: the fight shown is read-only)
        event.prevent_default()


def _place(tips: list[int], tip: int) -> int:
    return tips.index(tip) + 1 if tip in tips else 0


class NameDialog(RenameDialog):
    """A branch's name (empty: no name)."""

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Label(Text("Name this branch", style="bold"))
            yield Input(value=printable(self.old), id="name", select_on_focus=False)
            yield Label("enter names it (empty: no name) · escape cancels", classes="hint")


class CompareScreen(ModalScreen[None]):
    """Two moments of the fight side by side: what changed for each combatant."""

    BINDINGS = [
        Binding("escape,c,q", "close", "Close", priority=True),
        Binding("down", "scroll(1)", "Scroll", show=False, priority=True),
        Binding("up", "scroll(-1)", "Scroll", show=False, priority=True),
        Binding("pagedown", "scroll(10)", "Page", show=False, priority=True),
        Binding("pageup", "scroll(-10)", "Page", show=False, priority=True),
    ]

    def __init__(self, first: str, second: str, a: Encounter, b: Encounter) -> None:
        super().__init__()
        self.first, self.second = first, second
        self.found = compare(a, b)

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog help"):
            yield Label(Text(f"Compare: {self.first} → {self.second}", style="bold"))
            with VerticalScroll(id="compare-rows", can_focus=False):
                yield TextPane(id="compare-table")
            yield Label("↑↓ PgUp/PgDn scroll · escape closes", classes="hint")

    def on_mount(self) -> None:
        self.call_after_refresh(self._fill)

    def _fill(self) -> None:
        pane = self.query_one("#compare-table", TextPane)
        pane.show_lines(compared_lines(self.found, self.first, self.second, pane.size.width))

    def action_close(self) -> None:
        self.dismiss(None)

    def action_scroll(self, lines: int) -> None:
        self.query_one("#compare-rows", VerticalScroll).scroll_relative(y=lines, animate=False)

    @on(events.Key)
    def _swallow(self, event: events.Key) -> None:
        event.stop()


def compared_lines(found: list[Compared], first: str, second: str, width: int) -> list[Text]:
    """Three columns (what, at the first moment, at the second) in ``width`` cells, a cell that
    does not fit wrapped onto the lines below it; a title line per combatant."""
    if not found:
        return [Text("Nothing differs between these two moments.")]
    width = max(width, 30)
    what = min(16, max(len(w) + 2 for each in found for w, _, _ in each.rows) + 2)
    side = (width - what - 2) // 2
    out = [_columns(["", first, second], what, side, "bold")]
    for each in found:
        out.append(Text(each.name or "The fight", style="bold"))
        out += [_columns([f"  {w}", a, b], what, side) for w, a, b in each.rows]
    return [line for block in out for line in block.split("\n")]


def _columns(cells: list[str], what: int, side: int, style: str = "") -> Text:
    wrapped = [
        textwrap.wrap(text, room - 1) or [""]
        for text, room in zip(cells, [what, side + 1, side + 1], strict=True)
    ]
    lines = []
    for i in range(max(len(w) for w in wrapped)):
        parts = [w[i] if i < len(w) else "" for w in wrapped]
        lines.append(f"{parts[0]:<{what}}{parts[1]:<{side + 1}} {parts[2]}".rstrip())
    return Text("\n".join(lines), style=style)
