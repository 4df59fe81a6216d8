"""A catalog browsed from the palette ("Catalog: weapons…"): each entry of the rules' catalog
and the campaign's own with its figures, filtered as the GM types."""

from __future__ import annotations

from pathlib import Path

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Input, Static

from facility_tui.campaign.catalogs import KINDS, listing
from facility_tui.campaign.folder import Campaign
from facility_tui.model.text import printable

Row = tuple[str, str, bool]  # name, figures, from the campaign


class CatalogScreen(ModalScreen[None]):
    BINDINGS = [Binding("escape", "close", "Close")]

    def __init__(self, title: str, rows: list[Row]) -> None:
        super().__init__()
        self.title_text = title
        self.rows = rows

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog catalog"):
            yield Static(Text(self.title_text, style="bold"))
            yield Input(placeholder="type to filter", id="catalog-filter")
            with VerticalScroll():
                yield Static(id="catalog-rows")
            yield Static(
                "escape closes · (campaign): from the campaign's catalogs/", classes="hint"
            )

    def on_mount(self) -> None:
        self.show("")

    def on_input_changed(self, event: Input.Changed) -> None:
        self.show(event.value)

    def shown(self, query: str) -> list[Row]:
        """The rows whose name or figures hold every word typed (any case)."""
        words = query.lower().split()
        return [r for r in self.rows if all(w in f"{r[0]} {r[1]}".lower() for w in words)]

    def show(self, query: str) -> None:
        text = Text()
        rows = self.shown(query)
        for name, figures, ours in rows:
            text.append(printable(name), style="bold")
            if ours:
                text.append(" (campaign)", style="italic")
            text.append("\n")
            text.append(f"  {printable(figures) or '-'}\n")
        if not rows:
            text.append("nothing fits")
        self.query_one("#catalog-rows", Static).update(text)

    def action_close(self) -> None:
        self.dismiss(None)


def catalog_screen(system: str, kind: str, folder: Path) -> CatalogScreen:
    """The browser of ``system``'s catalog ``kind``, with the campaign's of ``folder``."""
    spec = KINDS[system][kind]
    return CatalogScreen(f"Catalog: {spec.title}", listing(system, kind, Campaign(folder)))
