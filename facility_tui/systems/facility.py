"""Facility rules (F1–F12): side-based turns, the PCs' side and the enemies' side alternating."""

from __future__ import annotations

from attrs import evolve, frozen

from facility_tui.commands import Call, side_of
from facility_tui.dice import Dice
from facility_tui.model import ENEMIES, PCS, Encounter, System
from facility_tui.systems import RuleSystem, register


@frozen
class FacilityState:
    first: str = PCS  # the side that acts first each round (F7)


class FacilityRules(RuleSystem):
    system = System.FACILITY
    title = "Facility"
    state_type = FacilityState

    def begin_combat(self, call: Call) -> Encounter:
        first = side_of(call.option("first", "pc") or "pc")
        return evolve(call.enc, state=evolve(call.enc.state, first=first))

    def round_order(self, enc: Encounter, dice: Dice) -> Encounter:
        first = enc.state.first
        return evolve(enc, order=(first, ENEMIES if first == PCS else PCS))

    def slot_name(self, enc: Encounter, slot: str) -> str:
        return {PCS: "PCs' side", ENEMIES: "Enemies' side"}.get(slot, slot)


RULES = register(FacilityRules())
