"""Demo encounters: a first launch opens the 2297 one, a boarding action aboard the *Jean Bart*;
``--demo facility`` opens a lockdown in the Facility. Each rule system keeps its demo's lines."""

from __future__ import annotations

from facility_tui.commands.dispatch import apply
from facility_tui.model.encounter import Encounter
from facility_tui.store import blank
from facility_tui.systems import DEFAULT, rules_for


def demo_encounter(system: str = DEFAULT) -> Encounter:
    enc = blank()
    for line in rules_for(system).demo:
        enc = apply(enc, line).encounter
    return enc.logged("Demo fight. Press s to start combat, ctrl+n for a new encounter, ? for keys")
