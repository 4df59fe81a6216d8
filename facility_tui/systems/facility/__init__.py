"""Facility: d20 roll-over, five stats with wound tracks, Impairment and spill-over, saves and
PPE, side-based initiative (docs/rules.md, F1–F12).

- ``core``: the pure rules and catalogs (stats, wounds, saves, PPE, weapons, hazards);
- ``system``: the ``RuleSystem`` the round state machine and the panes talk to (sides);
- ``state``: the encounter-wide state (side initiative, pending rolls and harm) and its helpers;
- ``commands``: the commands of the rule system, one module per topic (``checks``, ``harm``,
  ``attacks``, ``healing``, ``sheets``, ``tech``);
- ``demo``: the demo fight.
"""

from facility_tui.systems import RuleSystem
from facility_tui.systems.facility.info import INFO

__all__ = ["INFO", "load"]


def load() -> RuleSystem:
    """The rules, with the system's commands (imported only now: a launch pays for the rules
    of the fight it opens)."""
    from facility_tui.commands.spec import commands_in
    from facility_tui.systems.facility.commands import attacks, checks, harm, healing, sheets, tech
    from facility_tui.systems.facility.system import FacilityRules

    return FacilityRules(commands_in(checks, harm, attacks, healing, sheets, tech))
