"""The detail pane: the selected combatant's sheet, as the rules describe it (``details``).

Its reactives ``encounter`` and ``selected`` follow the screen's. The screen sets ``selected``
after every change of ``encounter`` (the list's cursor can follow the turn), so the pane renders
on ``selected`` only: once per change, never for the combatant the turn just left. It renders when
the combatant or the encounter is another than the ones it last rendered; the ``TextPane`` under it
repaints only the lines that changed.
"""

from __future__ import annotations

from rich.text import Text
from textual.reactive import Reactive

from facility_tui.model import ENEMIES, PCS, Encounter
from facility_tui.systems import rules_for
from facility_tui.text import Tone, printable

from .text_pane import TextPane

SIDE_LABEL = {PCS: "PC", ENEMIES: "Enemy"}
TONE_STYLE = {Tone.PLAIN: "", Tone.WARN: "yellow", Tone.BAD: "bold red"}


class DetailPane(TextPane):
    encounter: Reactive[Encounter | None] = Reactive(
        None, repaint=False, always_update=True, compute=False
    )
    selected: Reactive[str | None] = Reactive(
        None, repaint=False, always_update=True, compute=False
    )

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self._rendered: tuple[str | None, Encounter] | None = None  # what the text was made from

    def watch_selected(self) -> None:
        enc, cid = self.encounter, self.selected
        if enc is None:
            return
        if self._rendered is not None and self._rendered[0] == cid and self._rendered[1] is enc:
            return  # same combatant in the same encounter state: nothing to redraw
        self._rendered = (cid, enc)
        if cid is None or not enc.has(cid):
            self.update(Text("No combatants yet.\nPress a to add one.", style="dim"))
            return
        c = enc.get(cid)
        rules = rules_for(enc.system)
        lines = Text()
        lines.append(f"{printable(c.name)}\n", style="bold")
        # where the table has no Init column, the rules' details say what initiative means
        init = f" · init {c.initiative}" if rules.show_initiative else ""
        lines.append(f"{SIDE_LABEL.get(c.side, c.side)}{init}\n", style="dim")
        for d in rules.details(enc, c):
            lines.append(f"{d.label}: ", style="bold")
            lines.append(printable(d.text), style=TONE_STYLE[d.tone])
            lines.append("\n")
        if c.notes:
            lines.append(f"Note: {printable(c.notes)}\n", style="italic")
        self.update(lines)
