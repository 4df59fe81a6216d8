"""2297: a 2d10 system of awareness, initiative bands, Major / Move / Minor / Reaction, armor
PT/DR, injury thresholds with timed effects, stamina and fatigue (docs/rules.md, A1–A11).

The skeleton every rule system has (``facility_tui.systems``), and two modules of its own:

- ``info``: its id, title and quick keys; ``demo``: the demo fight;
- ``rules``: the pure rules and their tables (bands, mitigation, injury levels, fire modes);
- ``sheet``: a combatant's sheet and its parts (armor, weapons, injuries, effects, stims);
- ``weapons``: weapon text and ammunition;
- ``engine``: the rules applied to an encounter (the ``Ctx``, the action economy, effects,
  fatigue); ``hits``: what a hit does (armor, injuries, damage, dying);
- ``catalogs``: the catalog kinds of ``catalog/`` (weapons, armor, cover);
- ``commands``: the GM's commands, one module per topic (``actions``, ``injuries``,
  ``fatigue``, ``conditions``, ``attacks``; ``corrections``: ``set``);
- the parts the core talks to: ``turns``, ``choices``, ``view``, ``tactics``, ``carry``,
  ``validation``; ``system``: the ``RuleSystem`` that ties them.
"""

from facility_tui.systems.base import RuleSystem
from facility_tui.systems.r2297.info import INFO

__all__ = ["INFO", "load"]


def load() -> RuleSystem:
    """The rules, with the system's commands (imported only now: a launch pays for the rules
    of the fight it opens)."""
    from facility_tui.commands.spec import commands_in
    from facility_tui.systems.r2297.commands import actions, attacks, conditions, fatigue, injuries
    from facility_tui.systems.r2297.system import Rules2297

    return Rules2297(commands_in(actions, injuries, fatigue, conditions, attacks))
