"""Plain-text rendering of an encounter, for ``facility-tui show``."""

from __future__ import annotations

from facility_tui.dispatch import listed
from facility_tui.model import Encounter, Phase
from facility_tui.systems import rules_for
from facility_tui.text import printable


def status_line(enc: Encounter) -> str:
    rules = rules_for(enc.system)
    if enc.phase is Phase.SETUP:
        return "Setup: not started"
    if enc.phase is Phase.ENDED:
        return f"Ended after round {enc.round}"
    cur = rules.slot_name(enc, enc.current) if enc.current else "-"
    nxt = rules.slot_name(enc, enc.upcoming) if enc.upcoming else "-"
    return f"Round {enc.round} | Turn: {cur} | Next: {nxt}"


def render_text(enc: Encounter, log_lines: int = 10) -> str:
    """The encounter as lines of plain text; names, notes and log text from the save have their
    control characters escaped (``text.printable``), so a save cannot drive the terminal."""
    rules = rules_for(enc.system)
    out = [f"{enc.name} [{rules.title}]", status_line(enc), ""]
    for i, c in enumerate(listed(enc), 1):
        mark = ">" if c.id == enc.current else " "
        i = c.handle if enc.numbered else i  # its number, as the list's # column shows it
        summary = rules.summary(enc, c)
        extra = "  ".join(f"{k}={summary[k]}" for k in rules.columns if k in summary)
        out.append(
            f"{mark}{i:>2} {c.name:<24} {c.side:<8} init {c.initiative:>3}  {extra}".rstrip()
        )
    if enc.log:
        out += ["", "Log:"]
        out += [f"  [{e.round}] {e.text}" for e in enc.log[-log_lines:]]
    return "\n".join([printable(line) for line in out])
