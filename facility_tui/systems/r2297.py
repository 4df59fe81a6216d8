"""2297 rules (A1–A11): per-combatant turns in initiative order."""

from __future__ import annotations

from attrs import evolve

from facility_tui.dice import Dice
from facility_tui.model import Encounter, System
from facility_tui.systems import RuleSystem, register


class Rules2297(RuleSystem):
    system = System.R2297
    title = "2297"

    def round_order(self, enc: Encounter, dice: Dice) -> Encounter:
        return evolve(enc, order=tuple(c.id for c in self.listed(enc)))


RULES = register(Rules2297())
