"""What a 2297 combatant edited by hand must be: the bounds ``add`` and ``set`` hold a sheet to
(``LEAST``, the armor's PT and DR, a weapon's dice, modes and magazine), read from where the
commands keep them, so a save cannot hold what no command could make (``sta = -1`` would end
``show`` in the rules' own refusal)."""

from __future__ import annotations

from typing import Any

import attrs

from facility_tui.model.encounter import Combatant, Encounter
from facility_tui.systems.base import Problem, Validation
from facility_tui.systems.r2297.rules import DR_MAX, PT_MAX
from facility_tui.systems.r2297.sheet import LEAST, Sheet2297
from facility_tui.systems.r2297.weapons import DICE, MAGAZINE_MAX, MODES

# The sheet's numbers that may be below 0 (the rest are counts, turns, rounds and ids the
# rules keep, 0 or more): AG, CU and skill (``LEAST``), a pending Refocus (-1: none) and the
# actions ``set`` adds or takes away this turn.
_SIGNED = {"ag", "cu", "skill", "refocus", "extra_major", "extra_move", "extra_minor"}


class Validation2297(Validation):
    """A 2297 sheet held to the bounds of ``add`` and ``set`` (2297 keeps no encounter state)."""

    def check_combatant(self, enc: Encounter, c: Combatant) -> Problem:
        if not isinstance(c.sheet, Sheet2297):
            return "sheet", "must be a 2297 sheet"
        found = sheet_problem(c.sheet)
        return (f"sheet.{found[0]}", found[1]) if found else None


def sheet_problem(s: Sheet2297) -> Problem:
    for key, least in LEAST.items():
        value = getattr(s, key)
        if least is not None and value < least:
            return key, f"must be at least {least}, got {value}"
    if s.refocus < -1:
        return "refocus", f"must be -1 (none) or more, got {s.refocus}"
    for i, layer in enumerate(s.armor):
        if not layer.name.strip():
            return f"armor[{i}].name", "must be the layer's name, got ''"
        for key, top in (("pt", PT_MAX), ("dr", DR_MAX)):
            value = getattr(layer, key)
            if not 0 <= value <= top:
                return f"armor[{i}].{key}", f"must be from 0 to {top}, got {value}"
    for i, w in enumerate(s.weapons):
        found = _weapon_problem(w.name, w.damage, w.modes, w.ammo, w.capacity)
        if found:
            return f"weapons[{i}].{found[0]}", found[1]
    return _negative(s, "")


def _negative(value: object, at: str) -> Problem:
    """The first count below 0 in ``value`` (an attrs value, a tuple of them), by its path."""
    if isinstance(value, tuple):
        for i, item in enumerate(value):
            found = _negative(item, f"{at}[{i}]")
            if found:
                return found
        return None
    cls: Any = type(value)
    if not attrs.has(cls):
        return None
    for f in attrs.fields(cls):
        item = getattr(value, f.name)
        path = f"{at}.{f.name}" if at else f.name
        if type(item) is int and item < 0 and f.name not in _SIGNED:
            return path, f"must be 0 or more, got {item}"
        found = _negative(item, path) if not isinstance(item, int | str) else None
        if found:
            return found
    return None


def _weapon_problem(
    name: str, damage: str, modes: tuple[str, ...], ammo: int, capacity: int
) -> Problem:
    if not name.strip():
        return "name", "must be the weapon's name, got ''"
    if not DICE.match(damage):
        return "damage", f"must be dice such as 3d6+2, got {damage!r}"
    if not modes or any(m not in MODES for m in modes):
        return "modes", f"must be fire modes among {', '.join(MODES)}, got {list(modes)!r}"
    if not 0 <= capacity <= MAGAZINE_MAX:
        return "capacity", f"must be from 0 to {MAGAZINE_MAX}, got {capacity}"
    if not 0 <= ammo <= capacity:
        return "ammo", f"must be from 0 to the capacity ({capacity}), got {ammo}"
    return None
