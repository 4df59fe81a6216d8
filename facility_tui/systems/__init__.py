"""Rule systems: what differs between 2297 and Facility, found by id.

Each system is a package of its own (``r2297``, ``facility``) with the same skeleton:

- ``info.py``: its ``SystemInfo`` (id, title, quick keys), cheap to import;
- ``sheet.py``: what the save holds of the rules: a combatant's sheet (and the encounter's state);
- ``rules.py``: the pure rules and their tables (no dice, no encounter);
- ``engine.py``: the rules applied to an encounter (what a command and a hook share);
- ``catalogs.py`` and ``catalog/``: its catalog kinds and the shipped entries;
- ``commands/``: the GM's commands (``commands.spec.command``), one module per topic, over
  ``helpers.py``;
- one module per part of ``base`` (the interfaces the core talks to): ``turns.py``,
  ``choices.py``, ``view.py``, ``tactics.py``, ``carry.py``, ``validation.py``;
- ``system.py``: the ``RuleSystem`` that ties them; ``demo.py``: its demo fight;
- ``__init__.py``: ``INFO`` and ``load()``, which imports the rules and their commands.

A system may have more modules of its own (2297's ``weapons``, ``hits``). This module is the
registry: a package is found by id here (its ``INFO``, then ``load()`` for its rules), and nothing
else in the core names a system's modules; it also hands on the types of ``base`` its callers
name (``RuleSystem``, ``SystemInfo``, ``QuickKey``, ``END_WORD``).
"""

from __future__ import annotations

import importlib
from collections.abc import Iterable
from typing import Any

from facility_tui.systems.base import END_WORD, QuickKey, RuleSystem, SystemInfo

__all__ = [
    "DEFAULT",
    "END_WORD",
    "QuickKey",
    "RuleSystem",
    "SystemInfo",
    "all_systems",
    "ids",
    "info",
    "infos",
    "quick_keys_markdown",
    "register",
    "rules_for",
]

_PACKAGES = {  # the one table of the rule systems: id -> its package (INFO, load())
    "2297": "facility_tui.systems.r2297",
    "facility": "facility_tui.systems.facility",
}
DEFAULT = "2297"  # what a first launch demonstrates
_SYSTEMS: dict[str, RuleSystem] = {}
_INFOS: dict[str, SystemInfo] = {}


def ids() -> list[str]:
    """Every rule system's id, the built-in ones first."""
    return list(_PACKAGES)


def register(system: str, package: str) -> None:
    """Add a rule system that is not one of the built-in packages (a plug-in, a test's): the
    package, by its importable name, is found as the built-in ones are (``INFO``, ``load()``)."""
    _PACKAGES[system] = package


def _package(system: str) -> Any:
    return importlib.import_module(_PACKAGES[system])


def info(system: str) -> SystemInfo:
    """Its id, title, quick keys, ``add`` options: without loading its rules."""
    found = _INFOS.get(system)
    if found is None:
        found = _INFOS[system] = _package(system).INFO
    return found


def infos() -> list[SystemInfo]:
    return [info(system) for system in ids()]


def rules_for(system: str) -> RuleSystem:
    """The rules of ``system``; its package's rules and commands load on first use, so a launch
    pays only for the system of the fight it opens. ``KeyError`` for an id no system has."""
    rules = _SYSTEMS.get(system)
    if rules is None:
        rules = _SYSTEMS[system] = _package(system).load()
    return rules


def all_systems() -> Iterable[RuleSystem]:
    return [rules_for(system) for system in ids()]


def quick_keys_markdown() -> str:
    """The README's table of the rules' keys: a row per key, a column per rule system."""
    known = infos()
    keys = list(dict.fromkeys(k.key for each in known for k in each.quick_keys))
    out = ["| key | " + " | ".join(each.title for each in known) + " |\n"]
    out.append("|---" * (len(known) + 1) + "|\n")
    for key in keys:
        cells = []
        for each in known:
            k = next((k for k in each.quick_keys if k.key == key), None)
            if k is None:
                cells.append("")
                continue
            line = k.template.format(who="WHO", actor="ACTING", by="… by=ATTACKER").rstrip() + (
                " …" if k.template.endswith(" ") else ""
            )
            cells.append(f"`{line}` {k.help}".rstrip())
        out.append(f"| `{key}` | " + " | ".join(cells) + " |\n")
    return "".join(out)
