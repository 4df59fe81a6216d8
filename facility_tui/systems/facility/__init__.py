"""Facility: d20 roll-over, five stats with wound tracks, Impairment and spill-over, saves and
PPE, side-based initiative (docs/rules.md, F1–F12).

The skeleton every rule system has (``facility_tui.systems``):

- ``info``: its id, title and quick keys; ``demo``: the demo fight;
- ``rules``: the pure rules and their values (stats, wounds, saves, PPE, weapons, hazards),
  built from the catalogs of ``catalog/``, whose kinds ``catalogs`` declares;
- ``sheet``: a combatant's sheet and the encounter's state (sides, pending rolls and harm);
- ``engine``: the rules applied to an encounter (the state read and changed, the sides' marks);
- ``commands``: the GM's commands, one module per topic (``rolls``, ``harm``, ``attacks``,
  ``healing``, ``sheets``, ``tech``);
- the parts the core talks to: ``turns``, ``choices``, ``view``, ``tactics``, ``carry``,
  ``validation``; ``system``: the ``RuleSystem`` that ties them.
"""

from facility_tui.systems.base import RuleSystem
from facility_tui.systems.facility.info import INFO

__all__ = ["INFO", "load"]


def load() -> RuleSystem:
    """The rules, with the system's commands (imported only now: a launch pays for the rules
    of the fight it opens)."""
    from facility_tui.commands.spec import commands_in
    from facility_tui.systems.facility.commands import attacks, harm, healing, rolls, sheets, tech
    from facility_tui.systems.facility.system import FacilityRules

    return FacilityRules(commands_in(rolls, harm, attacks, healing, sheets, tech))
