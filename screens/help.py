"""Help: the keys, then every command of the encounter's rule system with its usage."""

from __future__ import annotations

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from facility_tui.commands.dispatch import help_lines


class HelpScreen(ModalScreen[None]):
    BINDINGS = [Binding("escape,q,question_mark", "close", "Close")]

    def __init__(self, system: str, keys: list[tuple[str, str]]) -> None:
        super().__init__()
        self.system = system
        self.keys = keys

    def compose(self) -> ComposeResult:
        keys = Table.grid(padding=(0, 2))
        keys.add_column(min_width=13)
        keys.add_column()
        for key, what in self.keys:
            keys.add_row(Text(key, style="bold"), Text(what))
        cmds = Table.grid(padding=(0, 2))
        for usage, summary in help_lines(self.system):
            cmds.add_row(Text(usage, style="bold"))
            cmds.add_row(Text(f"   {summary}"))
        with VerticalScroll(classes="dialog help"):
            yield Static("[b]Keys[/b]")
            yield Static(keys)
            yield Static("\n[b]Commands[/b] (press : and type; a number can always be dice)")
            yield Static(cmds)
            yield Static("\nescape closes", classes="hint")

    def action_close(self) -> None:
        self.dismiss(None)
