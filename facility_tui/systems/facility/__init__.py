"""Facility: d20 roll-over, five stats with wound tracks, Impairment and spill-over, saves and
PPE, side-based initiative (RULES.md F1–F12).

- ``core``: the pure rules and catalogs (stats, wounds, saves, PPE, weapons, hazards);
- ``system``: the ``RuleSystem`` the round state machine and the panes talk to (sides);
- ``commands``: the commands of the rule system (harm, wound, save, strike, tech...);
- ``demo``: the demo fight.
"""

from facility_tui.systems import RuleSystem
from facility_tui.systems.facility.info import INFO

__all__ = ["INFO", "load"]


def load() -> RuleSystem:
    """The rules, with the system's commands (imported only now: a launch pays for the rules
    of the fight it opens)."""
    from facility_tui.call import commands_in
    from facility_tui.systems.facility.commands import attacks
    from facility_tui.systems.facility.system import FacilityRules

    return FacilityRules(commands_in(attacks))
