"""Facility rules (F1–F12): d20 roll-over, five stats with wound tracks, saves and PPE, sides.

The ``RuleSystem`` that ties Facility's parts: its info and demo, the sheet from ``add``'s
options (F1), ``set`` (C4), the rolls its rules add to the common commands, and the parts the
core talks to: ``turns`` (F7 sides), ``choices`` (F2, F5, F8), ``view`` (the list, the panes,
the players' words), ``tactics`` (the forecast's play), ``carry`` (the party, templates),
``validation`` (a save edited by hand).
"""

from __future__ import annotations

from typing import Any

from facility_tui.commands.spec import Call
from facility_tui.model.encounter import Encounter
from facility_tui.systems.base import RuleSystem
from facility_tui.systems.facility.carry import FacilityCarry
from facility_tui.systems.facility.choices import FacilityChoices
from facility_tui.systems.facility.commands.sheets import set_field, sheet_from_options
from facility_tui.systems.facility.demo import DEMO_FACILITY
from facility_tui.systems.facility.info import INFO
from facility_tui.systems.facility.sheet import FacilitySheet, FacilityState
from facility_tui.systems.facility.tactics import FacilityTactics
from facility_tui.systems.facility.turns import FacilityTurns
from facility_tui.systems.facility.validation import FacilityValidation
from facility_tui.systems.facility.view import FacilityView


class FacilityRules(RuleSystem):
    """Facility: its parts, tied."""

    info = INFO
    demo = DEMO_FACILITY
    sheet_type = FacilitySheet
    state_type = FacilityState
    common_rolls = {
        "add": (
            "roll=yes (or roll=3d6): 3d6 for each stat, Physique, Science, Insight, Admin, Normal",
        ),
        "start": (
            "F7: the d20 of each helper (help=, in order)",
            "the initiative d20 (Insight) of the PC who rolls, unless d20= gives it",
        ),
    }

    turns_type = FacilityTurns
    choices_type = FacilityChoices
    view_type = FacilityView
    tactics_type = FacilityTactics
    carry_type = FacilityCarry
    validation_type = FacilityValidation

    def new_sheet(self, call: Call) -> Any:
        return sheet_from_options(call)

    def set_value(self, call: Call) -> Encounter:
        """C4: ``set WHO FIELD VALUE`` is ``sheet WHO FIELD=VALUE``."""
        return set_field(call)
