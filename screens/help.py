"""Help: the keys, then every command of the encounter's rule system with its usage."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.padding import Padding
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from facility_tui.commands.dispatch import help_lines
from facility_tui.systems import info, rules_for

from .widgets.initiative import SELECTED
from .widgets.order_list import short_forms_help

if TYPE_CHECKING:
    from .main import MainScreen


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
            # (indented as a whole: a summary's wrapped lines read as its, not as a command's)
            cmds.add_row(Padding(Text(summary), (0, 0, 0, 3)))
        with VerticalScroll(classes="dialog help"):
            yield Static("[b]Keys[/b]")
            yield Static(keys)
            yield Static("\n[b]Commands[/b] (press : and type; a number can always be dice)")
            yield Static(cmds, id="commands")
            yield Static("\nescape closes", classes="hint")

    def action_close(self) -> None:
        self.dismiss(None)


def key_rows(screen: MainScreen) -> list[tuple[str, str]]:
    """The main screen's keys as they are now: a config file may have remapped them (by
    binding id)."""
    from .main import QUICK_BINDINGS

    keys: dict[str, list[str]] = {}  # binding id -> its keys, from the active bindings
    for _, b, _, _ in screen.active_bindings.values():
        if b.id and b.key not in keys.setdefault(b.id, []):
            keys[b.id].append(b.key)

    def shown(b: Binding) -> str:
        listed = ",".join(keys.get(b.id or "", [])) or b.key
        return listed.replace("question_mark", "?").replace("colon", ":").replace(",", " / ")

    bindings = [b for b in screen.BINDINGS if isinstance(b, Binding)]
    rows = [
        (shown(b), f"{b.description}: {b.tooltip}" if b.tooltip else b.description)
        for b in bindings
        if b.action not in ("cursor(1)", "cursor(-1)") and not b.action.startswith("quick")
    ]
    up_down = [shown(b) for b in bindings if b.id in ("down", "up")]
    rows.append(
        (f"{' / '.join(up_down)} / ↑ ↓", "Move the selection (enter shows its panes if hidden)")
    )
    rows.append(
        (shown(Binding("ctrl+p", "", id="palette")), "Command palette: commands, combatants, saves")
    )
    system = screen.ws.encounter.system
    rows += [
        (shown(QUICK_BINDINGS[k.key]), f"{k.label}: {k.help}" if k.help else k.label)
        for k in info(system).quick_keys
    ]
    rows.append(("", "Side PC: PCs and allies (names in cyan), EN: enemies (in red)"))
    rows.append(("", "▶ whose turn it is, › who acts next; # the number to type (#3)"))
    rows.append(("", f"{SELECTED} the selected row (the one the keys act on)"))
    rows.append(("", "(h) before a name: hidden from the player view (hide / unhide)"))
    rows += [("", line) for line in short_forms_help(rules_for(system))]
    return rows
