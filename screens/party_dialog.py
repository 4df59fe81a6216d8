"""After a fight (``end``): what handing the party's PCs back changes in ``party.toml``, one
screen, PC by PC (wounds, scars, PPE marks, ammo; damage, injuries and their timers, fatigue,
Edge), for the GM to keep all, skip some, or skip all.

Keys: enter (or ``y``) hands back every PC not skipped; a PC's number skips it (again: keeps
it); ``n`` skips all; escape skips all for now (``party return`` hands them back later). A PC
the roster moved on from since this fight took it (another fight handed it back) is said so and
starts skipped: handing it back would roll the roster back, so only its number does. It
answers with the ``party return`` line to run (None: nothing handed back), which the main
screen runs as if typed; ``party undo`` takes it back. Like the choice menu, it has no
focusable widget: the app hands it every key in the order typed, those typed before it showed
too, and a key it does not know is ignored.
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Label

from facility_tui.campaign.party import Change
from facility_tui.commands.grammar import quote
from facility_tui.model.text import printable


class PartyReturnDialog(ModalScreen[str | None]):
    """The hand-back's summary; dismisses with the ``party return`` line, or None."""

    # (the key bar lists them while the dialog is open; a PC's number skips or keeps it)
    BINDINGS = [
        Binding("enter,y", "hand_back", "Hand back", priority=True, key_display="⏎"),
        Binding("n", "skip_all", "Skip all", priority=True),
        Binding("escape", "later", "Later", priority=True),
    ]

    def __init__(self, changes: Sequence[Change]) -> None:
        super().__init__()
        self.changes = list(changes)[:9]  # (a key each; more are handed back by the line)
        self.more = list(changes)[9:]
        # A PC the roster holds a later state of (another fight handed it back since this one
        # took it) would roll the roster back: its row starts skipped, for the GM to choose.
        self.skipped: set[int] = {i for i, ch in enumerate(self.changes) if ch.moved_on}
        self._done = False

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog party-return"):
            yield Label(
                Text("The fight is over: the party's lasting state back to party.toml?", "bold"),
                classes="question",
            )
            stale = [ch.name for ch in self.changes if ch.moved_on]
            if stale:
                yield Label(
                    Text(
                        "The roster has moved on since this fight took its party "
                        f"({printable(', '.join(stale))}): skipped, unless its number keeps it "
                        "(this fight's state then replaces the roster's later one)",
                        "bold yellow",
                    ),
                    classes="question",
                    id="moved-on",
                )
            with VerticalScroll(classes="party-changes"):
                for i in range(len(self.changes)):
                    yield Label(self._row(i), classes="party-pc", id=f"pc-{i + 1}")
            enter = "⏎ hand back those kept" if self.skipped else "⏎ keep all"
            yield Label(
                Text(f"{enter} · 1-9 skip or keep a PC · n skip all · esc later"),
                classes="hint",
            )

    def _row(self, i: int) -> Text:
        ch = self.changes[i]
        skipped = i in self.skipped
        row = Text()
        row.append(f"{i + 1} ", "bold")
        row.append("skip " if skipped else "keep ", "dim" if skipped else "bold green")
        row.append(printable(ch.name), "dim strike" if skipped else "bold")
        if ch.moved_on:
            row.append(" (roster moved on)", "yellow")
        row.append(": " + "; ".join(printable(line) for line in ch.lines), "dim" if skipped else "")
        return row

    async def _on_key(self, event: events.Key) -> None:
        event.stop()
        event.prevent_default()
        if event.character is not None and event.character.isdigit():
            i = int(event.character) - 1
            if 0 <= i < len(self.changes):
                self.skipped ^= {i}
                self.query_one(f"#pc-{i + 1}", Label).update(self._row(i))

    def action_hand_back(self) -> None:
        self._answer(self.line())

    def action_skip_all(self) -> None:
        self._answer(None)

    def action_later(self) -> None:
        self._answer(None)  # (as skip all: 'party return' does it later)

    def line(self) -> str | None:
        """``party return``, with ``skip=`` for the PCs skipped (and those past the ninth the
        roster moved on from), ``force`` when one kept is one the roster moved on from; None
        when all are skipped."""
        later = [ch for ch in self.more if not ch.moved_on]
        if len(self.skipped) == len(self.changes) and not later:
            return None
        skipped = [self.changes[i] for i in sorted(self.skipped)]
        skip = [ch.member.pc.id for ch in [*skipped, *(c for c in self.more if c.moved_on)]]
        kept = [ch for i, ch in enumerate(self.changes) if i not in self.skipped]
        force = " force" if any(ch.moved_on for ch in kept) else ""
        return f"party return{force}" + (f" skip={quote(','.join(skip))}" if skip else "")

    def _answer(self, line: str | None) -> None:
        if not self._done:
            self._done = True
            self.dismiss(line)
