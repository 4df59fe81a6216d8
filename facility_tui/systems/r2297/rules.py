"""2297 rules as pure functions (A3, A4, A5, A6, A7, A9): no dice, no encounter, no Textual.

Each function takes plain numbers and returns plain values, so the tables of docs/rules.md can be
tested boundary by boundary. The commands and the turn hooks of ``r2297`` build on them.
"""

from __future__ import annotations

import enum
import re
from functools import lru_cache

from attrs import frozen

from facility_tui.campaign.catalogs import Lookup
from facility_tui.model.encounter import maker
from facility_tui.model.text import word_for
from facility_tui.systems.base import RuleError

# -- A4 initiative bands ------------------------------------------------------------------------


@frozen
class Band:
    name: str
    low: int
    major: int
    move: int
    minor: int


#: A4: the bonuses accumulate ("second bonus Minor" means two in all).
BANDS: tuple[Band, ...] = (
    Band("Slow", 0, 1, 1, 0),
    Band("Normal", 10, 1, 1, 1),
    Band("Fast", 20, 1, 1, 2),
    Band("Lightning", 30, 2, 1, 2),
    Band("Superhuman", 40, 2, 1, 3),
    Band("Supernatural", 50, 3, 1, 3),
)


def band(initiative: int) -> Band:
    """A4: the band an effective initiative falls in (below 0 counts as 0, A3)."""
    if 0 <= initiative < len(_BAND_OF):  # (each economy asks it: read from a table)
        return _BAND_OF[initiative]
    return _band(initiative)


def _band(initiative: int) -> Band:
    found = BANDS[0]
    for b in BANDS:
        if initiative >= b.low:
            found = b
    return found


_BAND_OF = tuple(_band(i) for i in range(BANDS[-1].low + 1))  # the band of 0 to the last's low


# -- A7 injury levels ---------------------------------------------------------------------------


class Level(enum.StrEnum):
    NONE = "none"
    LIGHT = "light"
    MODERATE = "moderate"
    SERIOUS = "serious"
    CRITICAL = "critical"
    LETHAL = "lethal"

    @property
    def rank(self) -> int:
        return LEVELS.index(self)

    @property
    def word(self) -> str:
        return self.value.capitalize()

    def lowered(self, steps: int = 1) -> Level:
        """One step (or more) less severe; below Light is no injury (A7 stun and Edge, A10)."""
        return LEVELS[max(0, self.rank - steps)]


LEVELS: tuple[Level, ...] = tuple(Level)
# The levels the hot paths compare with, under plain names (asked of every sheet whose actions
# are counted; see ``Tired``'s)
NO_INJURY, LIGHT, MODERATE = Level.NONE, Level.LIGHT, Level.MODERATE
SERIOUS, CRITICAL, LETHAL = Level.SERIOUS, Level.CRITICAL, Level.LETHAL

#: A10: the Medic TN of first aid for each level.
AID_TN = {
    Level.LIGHT: 15,
    Level.MODERATE: 20,
    Level.SERIOUS: 25,
    Level.CRITICAL: 30,
    Level.LETHAL: 30,
}

#: A7: fatigue suffered on infliction.
INJURY_FATIGUE = {
    Level.NONE: 0,
    Level.LIGHT: 3,
    Level.MODERATE: 5,
    Level.SERIOUS: 10,
    Level.CRITICAL: 20,
    Level.LETHAL: 50,
}


def injury_level(damage: int, health: int) -> Level:
    """A7: the level of one hit of final ``damage`` against Health ``health`` (integer compares)."""
    if health < 1:
        raise RuleError("Health must be at least 1")
    if damage <= 0:
        return NO_INJURY
    if damage >= health:
        return LETHAL
    if 4 * damage >= 3 * health:
        return CRITICAL
    if 2 * damage >= health:
        return SERIOUS
    if 4 * damage >= health:
        return MODERATE
    return LIGHT


def injury_thresholds(health: int) -> tuple[tuple[Level, int], ...]:
    """A7: the least final damage of one hit that reaches Moderate, Serious, Critical and Lethal
    against Health ``health`` (what ``injury_level`` compares, solved for the damage)."""
    return (
        (Level.MODERATE, -(-health // 4)),
        (Level.SERIOUS, -(-health // 2)),
        (Level.CRITICAL, -(-3 * health // 4)),
        (Level.LETHAL, health),
    )


def parse_level(text: str) -> Level:
    t = text.strip().lower()
    for level in LEVELS:
        if level.value.startswith(t) and t:
            return level
    raise RuleError(
        f"unknown injury level '{text}': use none, light, moderate, serious, critical or lethal"
    )


# -- A6 armor and mitigation --------------------------------------------------------------------


class DamageType(enum.StrEnum):
    PHYSICAL = "physical"
    STUN = "stun"
    ENERGY = "energy"


STUN, ENERGY = DamageType.STUN, DamageType.ENERGY  # (each hit asks: see ``Tired``'s plain names)


@lru_cache(maxsize=256)  # (an attack reads them each time, from the same few texts)
def parse_type(text: str) -> DamageType:
    kind = word_for(text, {k.value: k for k in DamageType})
    if kind is not None:
        return kind
    raise RuleError(f"unknown damage type '{text}': use physical, stun or energy")


@frozen
class Armor:
    name: str = "Armor"
    pt: int = 0
    dr: int = 0

    @property
    def text(self) -> str:
        return f"{self.name} {self.pt}/{self.dr}"


DR_CAP = 80
PT_MAX = 999  # a layer's PT is from 0 to this, its DR a percentage from 0 to DR_MAX
DR_MAX = 100
_LAYER = re.compile(r"^(.*?)\s*(-?\d+)\s*/\s*(-?\d+)\s*%?$")


def parse_armor(text: str, lookup: Lookup | None = None) -> tuple[Armor, ...]:
    """A1: worn layers as ``"Vest 15/20, Helmet 5/10"`` (NAME PT/DR), or by a catalog's name
    (``lookup``: ``Light armor coat``); ``none`` or "": no armor."""
    if text.strip().lower() in ("", "none", "-"):
        return ()
    layers = []
    for part in text.split(","):
        m = _LAYER.match(part.strip())
        entry = lookup("armor", part) if lookup and not m and part.strip() else None
        if entry:
            layers.append(Armor(entry["name"], entry["pt"], entry["dr"]))
            continue
        if not m:
            raise RuleError(
                f"armor '{part.strip()}': write it as NAME PT/DR, e.g. Vest 15/20, "
                "or an armor of the catalog"
            )
        name, pt, dr = m.group(1).strip() or "Armor", int(m.group(2)), int(m.group(3))
        if not 0 <= pt <= PT_MAX:
            raise RuleError(f"armor '{name}': PT is from 0 to {PT_MAX}, got {pt}")
        if not 0 <= dr <= DR_MAX:
            raise RuleError(f"armor '{name}': DR is a percentage from 0 to {DR_MAX}, got {dr}")
        layers.append(Armor(name, pt, dr))
    return tuple(layers)


def layered(armor: tuple[Armor, ...]) -> tuple[int, int]:
    """A6: worn layers → (PT, DR): highest PT; highest DR + half the second highest, cap 80."""
    if not armor:
        return 0, 0
    pt = max(a.pt for a in armor)
    drs = sorted((a.dr for a in armor), reverse=True)
    dr = drs[0] + (drs[1] // 2 if len(drs) > 1 else 0)
    return pt, min(dr, DR_CAP)


@frozen
class Mitigation:
    raw: int
    pt: int
    dr: int
    final: int

    @property
    def stopped(self) -> bool:
        return self.raw < self.pt


_mitigation = maker(Mitigation)  # (``Mitigation``, built without attrs' call per field: each hit)


def mitigate(
    raw: int,
    armor: tuple[Armor, ...],
    kind: DamageType = DamageType.PHYSICAL,
    ap_pt: int = 0,
    ap_dr: int = 0,
) -> Mitigation:
    """A6: layer the armor, adjust for the damage type and piercing, then PT and DR.

    Raw damage below PT: nothing gets through; otherwise floor(raw × (100 − DR) / 100) (C5).
    """
    if raw < 0:
        raise RuleError(f"damage cannot be negative, got {raw}")
    pt, dr = layered(armor)
    if kind is STUN:
        pt, dr = pt + 5, dr + 20
    elif kind is ENERGY:
        pt, dr = pt - 10, dr - 20
    pt = max(0, pt - ap_pt)
    dr = min(100, max(0, dr - ap_dr))
    final = 0 if raw < pt else raw * (100 - dr) // 100
    return _mitigation(raw, pt, dr, final)


@lru_cache(maxsize=256)  # (an attack reads them each time, from the same few texts)
def parse_ap(text: str) -> tuple[int, int]:
    """Armor piercing as ``PT`` or ``PT/DR`` (e.g. ``ap=5`` or ``ap=5/20``)."""
    m = re.fullmatch(r"\s*(\d+)\s*(?:/\s*(\d+)\s*)?", text)
    if not m:
        raise RuleError(f"ap: write the PT (and DR) it pierces, e.g. ap=5 or ap=5/20, got '{text}'")
    pt, dr = int(m.group(1)), int(m.group(2) or 0)
    if pt > 999 or dr > 100:
        raise RuleError(f"ap: at most 999 PT and 100 DR, got '{text}'")
    return pt, dr


# -- A9 fatigue ---------------------------------------------------------------------------------


class Tired(enum.StrEnum):
    FRESH = "fresh"
    FATIGUED = "fatigued"
    EXHAUSTED = "exhausted"
    UNCONSCIOUS = "unconscious"


# The states under plain names, for the hot paths (asked of every sheet many times a turn): in
# Python 3.11 a member read from its enum class goes through ``EnumType.__getattr__``'s slot, a
# call each time (docs/benchmarks.md, 'The forecast's plays and workers').
FRESH, FATIGUED, EXHAUSTED, UNCONSCIOUS = (
    Tired.FRESH,
    Tired.FATIGUED,
    Tired.EXHAUSTED,
    Tired.UNCONSCIOUS,
)


def tiredness(fatigue: int, stamina: int) -> Tired:
    """A9: ≥ 50% STA Fatigued, ≥ 100% Exhausted, ≥ 200% Unconscious."""
    if stamina < 1:
        raise RuleError("Stamina must be at least 1")
    if fatigue >= 2 * stamina:
        return UNCONSCIOUS
    if fatigue >= stamina:
        return EXHAUSTED
    if 2 * fatigue >= stamina:
        return FATIGUED
    return FRESH


def fatigue_thresholds(stamina: int) -> tuple[tuple[Tired, int], ...]:
    """A9: the least fatigue that makes a combatant Fatigued, Exhausted and Unconscious."""
    return (
        (Tired.FATIGUED, -(-stamina // 2)),
        (Tired.EXHAUSTED, stamina),
        (Tired.UNCONSCIOUS, 2 * stamina),
    )


# -- A5 attack helper ---------------------------------------------------------------------------

#: A5: ammo by fire mode: SS 1, SA 3, BF 5 per attack, AF 10 per target.
AMMO = {"SS": 1, "SA": 3, "BF": 5, "AF": 10}

#: A5: the extra d6 of a burst (BF) or of auto fire (AF) at one target.
BURST_DICE = {"BF": 1, "AF": 2}


@lru_cache(maxsize=256)  # (an attack reads them each time, from the same few texts)
def attack_pool(net_advantage: int) -> str:
    """A5: 2d10, plus one d10 per net Advantage (keep the two highest) or Disadvantage (lowest)."""
    if net_advantage > 0:
        return f"{2 + net_advantage}d10kh2"
    if net_advantage < 0:
        return f"{2 - net_advantage}d10kl2"
    return "2d10"


def attack_tn(
    defended: bool,
    dodge: int = 0,
    parry: int = 0,
    cover: int = 0,
    evading: bool = False,
    melee: bool = False,
) -> int:
    """A5 (Decision): ranged max(base + cover + evading, Dodge), Dodge not raised by cover or
    evading, Parry never; melee max(base, Dodge, Parry); base 20 defended, 10 undefended, and an
    undefended target has no Dodge or Parry. Cover and evading are ranged modifiers only."""
    if melee:
        if cover or evading:
            raise RuleError("cover and evade raise the TN of ranged attacks only, not melee (A5)")
        return max(20, dodge, parry) if defended else 10
    base = (20 if defended else 10) + cover + (5 if evading else 0)
    return max(base, dodge) if defended else base


def success_dice(margin: int) -> int:
    """A5: extra damage dice of a hit: MoS ≥ 10 Perfect (+2d6), ≥ 5 Solid (+1d6)."""
    if margin >= 10:
        return 2
    if margin >= 5:
        return 1
    return 0


def hit_quality(margin: int) -> str:
    if margin < 0:
        return "miss"
    return {2: "Perfect hit", 1: "Solid hit"}.get(success_dice(margin), "hit")


_BURST_WORDS = {"advantage": "adv", "adv": "adv", "dice": "dice", "damage": "dice", "d6": "dice"}


def parse_burst(text: str) -> str:
    """A5: the attacker's pick for BF / AF at one target: ``adv`` (Advantage) or ``dice``."""
    pick = word_for(text, _BURST_WORDS)
    if pick is not None:
        return pick
    raise RuleError(f"burst: use adv (Advantage) or dice (extra damage), got '{text}'")


def fire_mode(mode: str, targets: int, net_advantage: int, pick: str = "") -> tuple[int, int]:
    """A5 (Decision): what a fire mode adds to one attack: (change to the net Advantage, d6).

    BF is single-target only: the attacker picks Advantage or +1d6 (default +1d6, and always
    +1d6 when the attack already has Advantage); AF at one target is the same choice with +2d6;
    AF at several targets gives each attack Disadvantage and no extra dice. ``pick`` is "",
    "adv" or "dice"; a pick that does not apply is refused.
    """
    if targets > 1 and mode != "AF":
        if mode == "BF":
            raise RuleError("BF is single-target only (A5): use AF to fire at several targets")
        raise RuleError(f"{mode} fires at one target: only AF takes several (A5)")
    if mode == "AF" and targets > 1:
        if pick:
            raise RuleError(
                "AF at several targets: each attack has Disadvantage and no extra dice, "
                "so there is no burst= pick (A5)"
            )
        return -1, 0
    if mode in BURST_DICE:
        dice = BURST_DICE[mode]
        if pick == "adv":
            if net_advantage > 0:
                raise RuleError(
                    f"the attack already has Advantage, so {mode} always adds +{dice}d6 "
                    "(A5): drop burst=adv"
                )
            return 1, 0
        return 0, dice
    if pick:
        raise RuleError(f"burst= is the BF / AF pick; {mode} has none")
    return 0, 0


@lru_cache(maxsize=256)  # (an attack reads them each time, from the same few texts)
def add_dice(expr: str, extra: int) -> str:
    """Add ``extra`` d6 to a damage expression: ``3d6+2`` with 2 → ``5d6+2``."""
    if extra == 0:
        return expr
    m = re.match(r"^(\d*)d6(.*)$", expr.strip().lower())
    if m:
        n = int(m.group(1) or 1) + extra
        return f"{n}d6{m.group(2)}" if n > 0 else (m.group(2).lstrip("+") or "0")
    return f"{expr}{extra:+d}d6" if extra < 0 else f"{expr}+{extra}d6"
