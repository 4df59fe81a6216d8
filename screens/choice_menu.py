"""A choice the rules leave open, as a small menu at the foot of the screen (issue 23).

The rules give the choice (``Choices.open``, ``unblock``): a title, and options that are
command lines. The menu shows one line per option (its key, its label, the line it runs), takes
an option's key, or enter for the rules' default; escape leaves the choice open (the panes still
show it). The keys the key bar lists for it act too, as they do on the list: ``:`` opens the
command line, ``n`` ends the turn (asking first when the choice would stay open), ``u`` takes
back the command that opened the menu, ``q`` saves and quits. It answers with the chosen line,
which the main screen runs as if typed (logged, saved, undoable), or with the screen's action
for one of those keys.

Keys typed fast land where they were meant: like the roll prompt, the menu has no focusable
widget, the app hands it every key in turn (``app.OrderedKeys``), also the keys typed before it
was made; a key it does not know is ignored, and the menu stays.
"""

from __future__ import annotations

from attrs import frozen
from rich.cells import cell_len
from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Label

from facility_tui.model.text import printable
from facility_tui.model.view import Choice, Option

DEFAULT_MARK = "⏎"
MENU_WIDTH = 76  # cells, as styles/app.tcss sets it (narrower screens: the screen's width)
MENU_FRAME = 4  # its border and padding


def option_line(option: Option, room: int = 0) -> Text:
    """``d ⏎ deal Pistol's 1d6 damage  (deal ana)``, plain text. In ``room`` cells (0: any), the
    line it runs is left out when it does not fit whole (never cut mid-word: the label says
    what the option does), and a label longer than the room wraps at its spaces."""
    line = Text(end="")
    line.append(printable(option.key), "bold")
    line.append(f" {DEFAULT_MARK} " if option.default else "   ", "bold")
    line.append(printable(option.label))
    runs = f"  ({printable(option.line)})"
    if not room or line.cell_len + cell_len(runs) <= room:
        line.append(runs, "dim")
    return line


def by_place(choice: Choice, key: str) -> Option | None:
    """The option on ``key``: its own key, or (when no option's key is a digit) its place, so
    ``1`` is the first option of any menu."""
    chosen = choice.option(key)
    if chosen is None and key.isdigit() and not any(o.key.isdigit() for o in choice.options):
        place = int(key)
        chosen = choice.options[place - 1] if 1 <= place <= len(choice.options) else None
    return chosen


@frozen
class Act:
    """The menu's answer for a key of the main screen's (``command``, ``next``, ``undo``,
    ``quit``): the menu closes, the choice stays open, and the screen's action runs."""

    action: str


class ChoiceMenu(ModalScreen["str | Act | None"]):
    """The options of one open choice; dismisses with the chosen option's line, an ``Act`` for
    a key of the screen's, or None (left open)."""

    # Option keys are letters and digits the rules pick (d, c, m, s, a, e, t, 1-9); these are
    # none of them. Priority: the app runs them as it reads them, before ``_on_key``.
    BINDINGS = [
        Binding("enter", "pick", "Default", priority=True, key_display="⏎"),
        Binding("escape", "leave", "Leave open", priority=True),
        # (the command line, the choice left open: ``:hit ...`` typed in a hurry lands there,
        # not on the options' keys)
        Binding("colon", "act('command')", "Cmd", priority=True, id="command"),
        # (the main screen's ids: a key remapped in the config file is remapped here too)
        Binding("n", "act('next')", "Next", priority=True, id="next"),
        Binding("u,ctrl+z", "act('undo')", "Undo", priority=True, id="undo"),
        Binding("q", "act('quit')", "Quit", priority=True, id="quit"),
    ]

    def __init__(self, choice: Choice) -> None:
        super().__init__()
        self.choice = choice
        self._chosen = False  # (a second enter typed before the menu is gone: not chosen twice)

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            # Names and lines come from the GM and the rules: plain text, never markup.
            yield Label(Text(printable(self.choice.title), style="bold"), classes="question")
            room = min(MENU_WIDTH, self.app.size.width) - MENU_FRAME
            for option in self.choice.options:
                yield Label(option_line(option, room), classes="option")
            yield Label(
                Text(f"its key chooses · {DEFAULT_MARK} the default · esc leaves it open"),
                classes="hint",
            )

    async def _on_key(self, event: events.Key) -> None:
        event.stop()
        event.prevent_default()
        if event.character is not None and event.character.isprintable():
            chosen = by_place(self.choice, event.character)
            if chosen is not None:
                self._answer(chosen.line)

    def action_pick(self) -> None:
        self._answer(self.choice.default.line)

    def action_leave(self) -> None:
        self._answer(None)

    def action_act(self, action: str) -> None:
        self._answer(Act(action))

    def _answer(self, answer: str | Act | None) -> None:
        if not self._chosen:
            self._chosen = True
            self.dismiss(answer)
