"""2297: a 2d10 system of awareness, initiative bands, Major / Move / Minor / Reaction, armor
PT/DR, injury thresholds with timed effects, stamina and fatigue (docs/rules.md, A1–A11).

- ``rules``: the pure rules and their tables (bands, mitigation, injury levels, fire modes);
- ``sheet``: a combatant's sheet and its parts (armor, weapons, injuries, effects, stims);
- ``weapons``: weapon text and ammunition;
- ``engine``: the rules applied to an encounter (effects, ticks, the action economy);
- ``system``: the ``RuleSystem`` the round state machine and the panes talk to;
- ``commands``: the commands of the rule system, one module per topic (``turns``, ``injuries``,
  ``fatigue``, ``conditions``, ``attacks``; ``corrections``: ``set``).
"""

from facility_tui.systems import RuleSystem
from facility_tui.systems.r2297.info import INFO

__all__ = ["INFO", "load"]


def load() -> RuleSystem:
    """The rules, with the system's commands (imported only now: a launch pays for the rules
    of the fight it opens)."""
    from facility_tui.commands.spec import commands_in
    from facility_tui.systems.r2297.commands import attacks, conditions, fatigue, injuries, turns
    from facility_tui.systems.r2297.system import Rules2297

    return Rules2297(commands_in(turns, injuries, fatigue, conditions, attacks))
