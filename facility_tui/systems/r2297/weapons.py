"""2297 weapons (A1, A5): ``"PAM9 3d6+2 SA 17, FAM-90 5d6+1 SA/BF/AF 60, Baton 2d6 stun"``."""

from __future__ import annotations

import re

from facility_tui.campaign.catalogs import Lookup
from facility_tui.systems.base import RuleError
from facility_tui.systems.r2297.rules import AMMO, DamageType, parse_type
from facility_tui.systems.r2297.sheet import Weapon

DICE = re.compile(r"^\d*d\d+([+-]\d+)*$", re.IGNORECASE)  # a weapon's damage: 3d6+2
MODES = ("SS", "SA", "BF", "AF")
_MODES = re.compile(r"^(SS|SA|BF|AF)(/(SS|SA|BF|AF))*$", re.IGNORECASE)
MAGAZINE_MAX = 999


def parse_weapon(text: str, lookup: Lookup | None = None) -> Weapon:
    """A weapon as ``NAME DICE [MODES] [AMMO] [TYPE]``, or by a catalog's name (``lookup``)."""
    words = text.split()
    at = next((i for i, w in enumerate(words) if DICE.match(w)), None)
    entry = lookup("weapon", text) if lookup and at is None and text.strip() else None
    if entry:
        ammo = int(entry["ammo"])
        kind = parse_type(entry["type"])
        return Weapon(
            entry["name"], entry["damage"], tuple(entry["modes"].split("/")), ammo, ammo, kind
        )
    if at is None or at == 0:
        raise RuleError(
            f"weapon '{text.strip()}': write NAME DICE [MODES] [AMMO], e.g. PAM9 3d6+2 SA 17, "
            "or a weapon of the catalog"
        )
    name, damage = " ".join(words[:at]), words[at].lower()
    modes: tuple[str, ...] = ("SS",)
    capacity = 0
    kind = DamageType.PHYSICAL
    for w in words[at + 1 :]:
        if _MODES.match(w):
            modes = tuple(m.upper() for m in w.split("/"))
        elif w.isdecimal():
            capacity = int(w)
            if capacity > MAGAZINE_MAX:
                raise RuleError(
                    f"weapon '{name}': a magazine holds at most {MAGAZINE_MAX}, got {w}"
                )
        else:
            try:
                kind = parse_type(w)
            except RuleError:
                raise RuleError(
                    f"weapon '{name}': '{w}' is not a fire mode (SS/SA/BF/AF), "
                    "ammo count or damage type"
                ) from None
    return Weapon(name, damage, modes, capacity, capacity, kind)


def parse_weapons(text: str, lookup: Lookup | None = None) -> tuple[Weapon, ...]:
    if not text.strip():
        return ()
    return tuple(parse_weapon(part, lookup) for part in text.split(",") if part.strip())


def find_weapon(weapons: tuple[Weapon, ...], ref: str) -> Weapon:
    t = ref.strip().lower()
    for w in weapons:
        if w.name.lower() == t:
            return w
    matches = [w for w in weapons if w.name.lower().startswith(t)]
    if len(matches) == 1:
        return matches[0]
    names = ", ".join(w.name for w in weapons) or "none"
    raise RuleError(f"no single weapon '{ref}' (has: {names})")


def ammo_needed(mode: str, targets: int) -> int:
    """A5: SS 1, SA 3, BF 5, AF 10 per target."""
    return AMMO[mode] * targets
