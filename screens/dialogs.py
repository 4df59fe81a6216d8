"""Small modal dialogs; each dismisses with its answer (or None when cancelled)."""

from __future__ import annotations

from collections.abc import Callable

from rich.text import Text
from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Label, Select

from facility_tui.commands.grammar import quote
from facility_tui.model.text import printable
from facility_tui.systems import DEFAULT, info, infos

# Tab moves between fields as the app reads it (a priority binding), so the keys typed after it
# in one burst ("Thug⇥⇥2d6") go to the next field, not into the one being left.
FIELD_KEYS = [
    Binding("tab", "app.focus_next", "Next field", show=False, priority=True),
    Binding("shift+tab", "app.focus_previous", "Previous field", show=False, priority=True),
]


class DialogSelect(Select[str]):
    """A dialog's choice of a few values (the side, the rules): enter does what the dialog's
    enter does (its key line says so), the arrows and space open the list, which opens inside
    the dialog (``styles/app.tcss``), below the field, never over its border."""

    BINDINGS = [
        Binding("enter", "screen.submit", "Done", show=False),
        Binding("down,space,up", "show_overlay", "Show the list", show=False),
    ]


class ConfirmDialog(ModalScreen[bool]):
    """A yes-or-no question: ``y`` (or enter) yes, ``n`` (or escape) no."""

    BINDINGS = [
        Binding("y,enter", "answer(True)", "Yes"),
        Binding("n,escape", "answer(False)", "No"),
    ]

    def __init__(self, question: str) -> None:
        super().__init__()
        self.question = question

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            # it names a combatant or a file: plain text, its own line breaks kept, wrapped
            shown = "\n".join(printable(line) for line in self.question.split("\n"))
            yield Label(shown, markup=False, classes="question")
            hint = Text()
            for b in self.BINDINGS:
                if isinstance(b, Binding):
                    key = self.app.get_key_display(Binding(b.key.split(",")[0], ""))
                    hint.append(("   " if hint else "") + key, "bold")
                    hint.append(f" {b.description.lower()}")
            yield Label(hint, classes="hint")

    def action_answer(self, yes: bool) -> None:
        self.dismiss(yes)


class EndTurnDialog(ConfirmDialog, inherit_bindings=False):
    """``n`` with a choice still open: ``n`` again ends the turn (what the key bar says ``n``
    does, so a double-tapped ``n`` is never a "no"), escape goes back to it."""

    BINDINGS = [
        Binding("n,y,enter", "answer(True)", "End the turn"),
        Binding("escape", "answer(False)", "Back"),
    ]


class ChoiceDialog(ModalScreen[str | None]):
    """A question with a key per answer (``[("y", "yes"), ("w", "player view"), ...]``);
    escape answers None."""

    BINDINGS = [Binding("escape", "answer", "Cancel")]

    def __init__(self, question: str, choices: list[tuple[str, str]]) -> None:
        super().__init__()
        self.question = question
        self.choices = dict(choices)

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            shown = "\n".join(printable(line) for line in self.question.split("\n"))
            yield Label(shown, markup=False, classes="question")
            yield Label(
                "   ".join(f"[b]{key}[/b] {label}" for key, label in self.choices.items()),
                classes="hint",
            )

    def on_key(self, event: events.Key) -> None:
        if event.key in self.choices:
            event.stop()
            self.dismiss(event.key)

    def action_answer(self) -> None:
        self.dismiss(None)


class AddDialog(ModalScreen[None]):
    """Add a combatant: name, side, initiative and any rule options, run as an ``add`` command."""

    BINDINGS = [Binding("escape", "cancel", "Cancel"), *FIELD_KEYS]
    AUTO_FOCUS = "#name"

    def __init__(self, system: str, run: Callable[[str], bool]) -> None:
        super().__init__()
        self.system = system
        self.run = run

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Label("[b]Add a combatant[/b]")
            yield Input(placeholder="Name (e.g. Boarder)", id="name")
            with Horizontal(classes="row"):
                yield DialogSelect(
                    [("Enemy", "enemy"), ("PC / ally", "pc")],
                    value="enemy",
                    allow_blank=False,
                    id="side",
                )
                # (where sides take turns, no one has an initiative of their own: F7)
                init = Input(placeholder="Initiative: 12 or 2d6+3", id="init")
                init.display = not info(self.system).side_initiative
                yield init
            yield Input(placeholder="Count (default 1)", id="count")
            yield Input(
                placeholder=f"Rule options, e.g. {info(self.system).option_hint}", id="options"
            )
            yield Label("enter adds · escape cancels", classes="hint")

    def line(self) -> str:
        name = self.query_one("#name", Input).value.strip()
        side = self.query_one("#side", Select).value
        parts = ["add", quote(name) if name else "", f"side={side}"]
        init = self.query_one("#init", Input).value.strip()
        if init:
            parts.append(f"init={init.replace(' ', '')}")
        count = self.query_one("#count", Input).value.strip()
        if count:
            parts.append(f"count={count}")
        parts.append(self.query_one("#options", Input).value.strip())
        return " ".join(p for p in parts if p)

    @on(Input.Submitted)
    def action_submit(self) -> None:
        if self.run(self.line()):
            self.dismiss(None)

    def action_cancel(self) -> None:
        self.dismiss(None)


class NewEncounterDialog(ModalScreen[None]):
    """Name and rules of a new encounter (the open fight's rules to begin with); ``create``
    makes it, or says why not and returns False (the dialog stays open to be corrected)."""

    AUTO_FOCUS = "#name"
    BINDINGS = [Binding("escape", "cancel", "Cancel"), *FIELD_KEYS]

    def __init__(self, create: Callable[[str, str], bool], system: str = DEFAULT) -> None:
        super().__init__()
        self.create = create
        self.system = system if system in {each.id for each in infos()} else DEFAULT

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Label("[b]New encounter[/b] (the current one stays saved)")
            yield Input(placeholder="Name, e.g. Cargo bay ambush", id="name")
            yield DialogSelect(
                [(f"Rules: {each.title}", each.id) for each in infos()],
                value=self.system,
                allow_blank=False,
                id="system",
            )
            yield Label("tab, ↓ picks the rules · enter creates · escape cancels", classes="hint")

    @on(Select.Changed)
    def _picked(self) -> None:
        self.query_one("#name", Input).focus()  # so enter creates at once

    @on(Input.Submitted)
    def action_submit(self) -> None:
        name = self.query_one("#name", Input).value.strip()
        if not name:
            self.notify("Give the encounter a name", severity="error")
            return
        system = str(self.query_one("#system", Select).value)
        if self.create(system, name):
            self.dismiss(None)

    def action_cancel(self) -> None:
        self.dismiss(None)
