"""The right column: the acting combatant's start-of-turn reminders, then the selected
combatant's panes as its rules describe them (``View.reminders``, ``panes``; drawn by
``panes``).

Its reactives ``encounter`` and ``selected`` follow the screen's. The screen sets ``selected``
after every change of ``encounter`` (the list's cursor can follow the turn), so the pane renders
on ``selected`` only: once per change, never for the combatant the turn just left. It renders when
the combatant or the encounter is another than the ones it last rendered, or its width changed
(bars use the room); the ``TextPane`` under it repaints only the lines that changed.
"""

from __future__ import annotations

from rich.text import Text
from textual import events
from textual.geometry import Size
from textual.reactive import Reactive

from facility_tui.model.encounter import ENEMIES, PCS, Encounter
from facility_tui.model.text import printable
from facility_tui.systems import rules_for

from ..render.text_pane import TextPane
from .panes import pane_lines, reminder_lines

SIDE_LABEL = {PCS: "PC", ENEMIES: "Enemy"}


def side_label(side: str) -> str:
    """A side in words: PC, Enemy, or the side as a save names it (control characters escaped)."""
    return SIDE_LABEL.get(side) or printable(side)


WIDTH = 34  # what the column's text is laid out for before it has a size
# Lines the pane always reserves: a few lines more or less (an injury's effects, a reminder)
# then repaint those lines, where a new height would lay the whole screen out again. Its box
# scrolls; past the text it is blank.
RESERVED = 48


class DetailPane(TextPane):
    encounter: Reactive[Encounter | None] = Reactive(
        None, repaint=False, always_update=True, compute=False
    )
    selected: Reactive[str | None] = Reactive(
        None, repaint=False, always_update=True, compute=False
    )

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        # what the text was made from: combatant, encounter, width
        self._rendered: tuple[str | None, Encounter, int] | None = None
        # the acting combatant's reminders, for an encounter state and a width: a move of the
        # selection alone does not work them out again
        self._reminders: tuple[Encounter, int, list[Text]] | None = None

    def _reminder_lines(self, enc: Encounter, width: int) -> list[Text]:
        kept = self._reminders
        if kept is not None and kept[0] is enc and kept[1] == width:
            return kept[2]
        lines: list[Text] = []
        if enc.current is not None:
            rules = rules_for(enc.system)
            title = f"{rules.turns.slot_name(enc, enc.current)}'s turn"
            lines = reminder_lines(title, rules.view.reminders(enc), width)
        self._reminders = (enc, width, lines)
        return lines

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return max(RESERVED, super().get_content_height(container, viewport, width))

    def on_resize(self, event: events.Resize) -> None:
        self.watch_selected()  # (a new width only: the same state renders again for it)

    def watch_selected(self) -> None:
        enc, cid = self.encounter, self.selected
        if enc is None:
            return
        width = self.size.width or WIDTH
        done = self._rendered
        if done is not None and done[0] == cid and done[1] is enc and done[2] == width:
            return  # same combatant in the same encounter state: nothing to redraw
        self._rendered = (cid, enc, width)
        rules = rules_for(enc.system)
        lines: list[Text] = list(self._reminder_lines(enc, width))
        if cid is None or not enc.has(cid):
            lines += [
                Text("No combatants yet.", style="dim"),
                Text("Press a to add one.", style="dim"),
            ]
            self.show_lines(lines)
            return
        c = enc.get(cid)
        # where the table has no Init column, the rules' panes say what initiative means
        init = f" · init {c.initiative}" if rules.view.show_initiative else ""
        lines.append(
            Text.assemble((printable(c.name), "bold"), (f" · {side_label(c.side)}{init}", "dim"))
        )
        lines += pane_lines(rules.view.panes(enc, c), width)
        if c.notes:
            lines.append(Text(f"Note: {printable(c.notes)}", style="italic"))
        self.show_lines(lines)
