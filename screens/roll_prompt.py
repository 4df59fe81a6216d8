"""The table's own dice: a one-line prompt for each roll the GM types (``tabledice pcs|all``).

The core stops a command at the first roll the GM is to type and has given no face for
(``dice.NeedRoll``); the main screen hands the line and the question here. One prompt stays open
while the same command asks for roll after roll: each answer runs the line again with the faces
gathered so far (``dice=``), and either the next question comes back (the label changes, the field
is cleared) or the command is done and the prompt closes. The history records the finished line.

Keys typed fast land where they were meant. The prompt has no focusable widget: the app hands
every key to the screen itself, one at a time (``app.OrderedKeys``), also the keys typed before
the prompt was made (the app holds them until it is). The screen edits its one line itself;
enter answers, so the digits typed after it go to the next question, and keys typed after the
prompt closed go to the list.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from rich.text import Text
from textual import events
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Label, Static

from facility_tui.commands.dice import MAX_FACES, DiceError, NeedRoll
from facility_tui.commands.dispatch import answered
from facility_tui.model.text import printable

_TYPED = set("0123456789?, ")
MAX_ANSWER = 4 * MAX_FACES  # characters of one answer


class RollPrompt(ModalScreen[None]):
    """Asks for the faces of one roll at a time; ``run`` runs a line (and, when it needs another
    roll, calls ``ask`` on this prompt before it returns)."""

    # (the key bar lists them while the prompt is open; digits, space, comma and ? type)
    BINDINGS = [
        Binding("enter", "answer", "Answer", priority=True, key_display="⏎"),
        Binding("escape", "cancel", "Cancel", priority=True),
    ]

    def __init__(self, line: str, need: NeedRoll, system: str, run: Callable[[str], bool]) -> None:
        super().__init__()
        self.line = line
        self.need = need
        self.system = system
        self._run = run
        self._asked = False
        self.value = ""  # what the GM has typed for this roll

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            # Names and the rolls' labels come from the GM: plain text, never markup.
            yield Label(self._question(), markup=False, id="roll-what")
            yield Static(self._field(), id="roll-field")
            yield Label(printable(self.need.hint), markup=False, classes="hint", id="roll-hint")

    def _question(self) -> str:
        return printable(f"{self.need.label}:")

    def _field(self) -> Text:
        return Text.assemble(("› ", "bold"), self.value, ("▏", "reverse"))

    def _show(self) -> None:
        if self.is_mounted:
            self.query_one("#roll-field", Static).update(self._field())

    def ask(self, line: str, need: NeedRoll) -> None:
        """The same command needs another roll: ask for it here, in place."""
        self.line, self.need, self._asked, self.value = line, need, True, ""
        self.query_one("#roll-what", Label).update(self._question())
        self.query_one("#roll-hint", Label).update(printable(need.hint))
        self._show()

    async def _on_key(self, event: events.Key) -> None:
        event.stop()
        event.prevent_default()
        if event.key in ("backspace", "ctrl+h"):
            self.value = self.value[:-1]
            self._show()
        elif event.character is not None and event.character in _TYPED:
            self._type(event.character)

    def _on_paste(self, event: events.Paste) -> None:
        event.stop()
        for char in event.text:
            if char in _TYPED:
                self._type(char)

    def _type(self, char: str) -> None:
        if len(self.value) < MAX_ANSWER:
            self.value += char
            self._show()

    def action_answer(self) -> None:
        try:
            faces = self.need.answer(self.value)
        except DiceError as err:
            self.notify(str(err), severity="error", timeout=6)
            return
        line = answered(self.line, self.system, self.need.index, faces)
        self._asked = False
        self._run(line)  # done, refused (a toast says why), or asks again (``ask``)
        if not self._asked:
            self.dismiss(None)

    def action_cancel(self) -> None:
        self.notify(f"Not rolled: '{self.line}' changed nothing", severity="warning", timeout=6)
        self.dismiss(None)


class _Screen(Protocol):
    @property
    def app(self) -> App[None]: ...

    def run_line(self, line: str) -> bool: ...


def ask_roll(screen: _Screen, line: str, need: NeedRoll, system: str) -> None:
    """Ask the GM for the roll ``need`` names, then run ``line`` again with it (``screen``'s
    ``run_line``). An open prompt asks in place; another dialog (add) closes first."""
    app = screen.app
    top = app.screen
    if isinstance(top, RollPrompt):
        top.ask(line, need)
        return
    prompt = RollPrompt(line, need, system, screen.run_line)
    if isinstance(top, ModalScreen):
        app.call_later(app.push_screen, prompt)  # after the dialog that ran the line closes
    else:
        app.push_screen(prompt)
