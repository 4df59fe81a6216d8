"""Facility rules, the pure part (F1–F12): stats, saves, wound tracks, the PPE and weapon catalogs,
and the values they are made of (a stat, the saves, a piece of PPE, a weapon, a job, a fate).

Nothing here rolls dice or touches an encounter: every function takes a sheet (and numbers) and
returns a new sheet plus what happened, so the commands in ``commands`` stay thin and the
rules can be tested on their own. Refusals raise ``RuleError`` (a ``CommandError``): one line that
says what to do, nothing changed.
"""

from __future__ import annotations

import enum
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import evolve, frozen

from facility_tui.campaign.catalogs import EntryError, Kind, check_entry
from facility_tui.model.text import word_for
from facility_tui.systems.base import RuleError
from facility_tui.systems.facility import catalogs

if TYPE_CHECKING:
    from facility_tui.systems.facility.sheet import FacilitySheet

T = TypeVar("T")


# -- F1 stats --------------------------------------------------------------------------------------

STATS: tuple[str, ...] = ("phy", "sci", "ins", "adm", "nor")
STAT_NAMES = {
    "phy": "Physique",
    "sci": "Science",
    "ins": "Insight",
    "adm": "Admin",
    "nor": "Normal",
}
_STAT_WORDS = {
    **{k: k for k in STATS},
    **{v.lower(): k for k, v in STAT_NAMES.items()},
    "p": "phy",
    "s": "sci",
    "i": "ins",
    "a": "adm",
    "n": "nor",
    "phys": "phy",
    "admn": "adm",
    "norm": "nor",
}


def stat_key(text: str) -> str:
    """F1: a stat from what the GM typed (``phy``, ``Physique``, ``p``...)."""
    key = word_for(text, _STAT_WORDS)
    if key is None:
        raise RuleError(f"unknown stat '{text}': use phy, sci, ins, adm or nor")
    return key


def stat_keys(text: str) -> list[str]:
    """A comma-separated list of stats (``phy,ins``)."""
    return [stat_key(t) for t in text.split(",") if t.strip()]


#: F1 Employee Competence Scale (catalog/competence.toml): (highest 3d6 total, bonus), in order.
COMPETENCE: tuple[tuple[int, int], ...] = tuple(
    (int(e["upto"]), int(e["bonus"])) for e in catalogs.entries("competence")
)


def competence(total: int) -> int:
    """F1 Employee Competence Scale: a 3d6 total → a bonus from −3 to +3."""
    for upto, bonus in COMPETENCE:
        if total <= upto:
            return bonus
    return COMPETENCE[-1][1]


@frozen
class Stat:
    """One stat and its wound track (F1, F4)."""

    bonus: int = 0
    wounds: int = 0
    scars: int = 0
    expertise: bool = False  # granted by training or job; a bonus of +2 or more grants it too


BONUS_MIN, BONUS_MAX = -3, 3  # F1: a stat's bonus, as the Competence Scale gives it
SAVE_MAX = 99  # F3: a base save is from -SAVE_MAX to SAVE_MAX (``saves=``)


def capacity(stat: Stat) -> int:
    """F4: wound capacity = 3 + bonus − scars (may be 0 or less)."""
    return 3 + stat.bonus - stat.scars


def wound_impaired(stat: Stat) -> bool:
    """F4: Impaired by its track — wounds ≥ capacity, capacity ≤ 0, or a bonus of −3 or lower."""
    cap = capacity(stat)
    return cap <= 0 or stat.wounds >= cap or stat.bonus <= -3


def has_expertise(stat: Stat) -> bool:
    """F1: Expertise from training or job, or from a bonus of +2 or higher."""
    return stat.expertise or stat.bonus >= 2


# -- F3 saves --------------------------------------------------------------------------------------

SAVES: tuple[str, ...] = ("weapons", "trauma", "explosions", "contaminants", "anomalies")
_SAVE_WORDS = {
    **{k: k for k in SAVES},
    "weapon": "weapons",
    "wpn": "weapons",
    "w": "weapons",
    "tra": "trauma",
    "t": "trauma",
    "explosion": "explosions",
    "explosive": "explosions",
    "explosives": "explosions",
    "expl": "explosions",
    "e": "explosions",
    "contaminant": "contaminants",
    "con": "contaminants",
    "cont": "contaminants",
    "c": "contaminants",
    "anomaly": "anomalies",
    "anom": "anomalies",
    "ano": "anomalies",
}


def save_key(text: str) -> str:
    key = word_for(text, _SAVE_WORDS)
    if key is None:
        raise RuleError(
            f"unknown hazard '{text}': use weapons, trauma, explosions, contaminants or anomalies"
        )
    return key


#: Narrow hazards (F6): a save or harm may be tagged with one; some PPE covers or helps only these.
TAGS = {
    "falling": "falling objects",
    "floor": "things on the floor",
    "sonic": "sonic hazards",
    "radiation": "radiation",
    "electricity": "electricity",
}
_TAG_WORDS = {
    **{k: k for k in TAGS},
    "fall": "falling",
    "falling-objects": "falling",
    "radioactive": "radiation",
    "rad": "radiation",
    "electric": "electricity",
    "shock": "electricity",
    "sound": "sonic",
    "ground": "floor",
}


def tag_key(text: str) -> str:
    key = word_for(text, _TAG_WORDS)
    if key is None:
        raise RuleError(f"unknown hazard tag '{text}': use {', '.join(TAGS)}")
    return key


@frozen
class Saves:
    """The five saves' base (job or NPC figures) before stat perks and PPE (F3)."""

    weapons: int = 0
    trauma: int = 0
    explosions: int = 0
    contaminants: int = 0
    anomalies: int = 0


#: F3 stat perks at +3.
PERKS: dict[str, dict[str, int]] = {
    "phy": {"weapons": 1, "contaminants": 1},
    "sci": {"contaminants": 2},
    "ins": {"explosions": 1, "trauma": 1},
    "adm": {"trauma": 2},
    "nor": {"anomalies": 2},
}


# -- F6 PPE ----------------------------------------------------------------------------------------


@frozen
class PPEItem:
    """A catalog entry (seed 001, §3d)."""

    number: int
    name: str
    rating: int
    covers: frozenset[str]  # save kinds and narrow tags it can be ablated against
    bonuses: tuple[tuple[str, int], ...] = ()  # (save kind, bonus)
    narrow: tuple[tuple[str, int], ...] = ()  # (tag, bonus): only on a save tagged so
    impairs: str = ""  # a stat it impairs while worn
    unless_armor: bool = False  # the impairment is lifted by Armor Expertise
    notes: str = ""


def _checked(kind: Kind, entry: Any) -> dict[str, Any]:
    """A catalog entry as checked, or a RuleError (one kept in a save may have been edited)."""
    if not isinstance(entry, Mapping):
        raise RuleError(f"a {kind.kind} entry must be a table")
    try:
        return check_entry(kind, dict(entry))
    except EntryError as e:
        raise RuleError(f"{kind.kind} {entry.get('name', '?')}: {e}") from None


def _pairs(value: Any) -> tuple[tuple[str, int], ...]:
    """Bonuses as the catalog checked them (pairs) or as plain data (a table)."""
    return tuple(value.items()) if isinstance(value, dict) else tuple(tuple(p) for p in value)


def ppe_from(entry: Mapping[str, Any]) -> PPEItem:
    """F6: a PPE item from its catalog entry (``catalog/ppe.toml`` or a campaign's)."""
    e = _checked(catalogs.PPE, entry)
    return PPEItem(
        e["number"],
        e["name"],
        e["rating"],
        frozenset(e["covers"]),
        _pairs(e["bonuses"]),
        _pairs(e["narrow"]),
        e["impairs"],
        e["unless_armor"],
        e["notes"],
    )


PPE_CATALOG: tuple[PPEItem, ...] = tuple(ppe_from(e) for e in catalogs.entries("ppe"))
_PPE_BY_NAME = {p.name.lower(): p for p in PPE_CATALOG}


def ppe_item(text: str) -> PPEItem:
    """F6: a catalog item by name, number (``#10`` / ``10``) or unambiguous prefix."""
    t = text.strip().lower().removeprefix("#")
    if t.isdecimal() and 1 <= int(t) <= len(PPE_CATALOG):
        return PPE_CATALOG[int(t) - 1]
    if t in _PPE_BY_NAME:
        return _PPE_BY_NAME[t]
    found = [p for p in PPE_CATALOG if p.name.lower().startswith(t) or t in p.name.lower()]
    if len(found) == 1 and t:
        return found[0]
    if found and t:
        raise RuleError(f"'{text}' could be {', '.join(p.name for p in found)}; type more of it")
    raise RuleError(
        f"no PPE called '{text}' in the catalog: try Hard Hat, Security Vest, Respirator"
    )


@frozen
class Piece:
    """A worn piece of PPE and its marks (F6)."""

    name: str = ""
    marks: int = 0
    # a campaign catalog's entry as it was read (plain TOML data): the piece keeps its figures
    # when the catalog file changes or the save moves to another machine; None: the shipped one
    entry: Any = None

    @property
    def item(self) -> PPEItem:
        if self.entry is not None:
            return ppe_from(self.entry)
        return _PPE_BY_NAME[self.name.lower()]

    @property
    def protects(self) -> bool:
        """F6: at marks = rating a piece stops protecting and its bonuses vanish."""
        return self.marks < self.item.rating


def piece_bonus(piece: Piece, kind: str, tag: str = "") -> int:
    """F6: a still-protecting piece's bonus to a save; narrow bonuses only when the tag matches.
    A piece gives its best applicable bonus once (Earmuffs vs a sonic blast: +2, not +4)."""
    if not piece.protects:
        return 0
    item = piece.item
    general = sum(v for k, v in item.bonuses if k == kind)
    narrow = sum(v for k, v in item.narrow if tag and k == tag)
    return max(general, narrow)


def covers(piece: Piece, kind: str, tag: str = "") -> bool:
    """F5: a piece covers a hazard when it lists the save kind or the narrow tag."""
    return kind in piece.item.covers or (bool(tag) and tag in piece.item.covers)


# -- F8 weapons ------------------------------------------------------------------------------------


@frozen
class Weapon:
    key: str
    name: str
    count: int = 0  # damage dice
    sides: int = 0
    flat: int = 0
    crit_count: int = 1  # F8: extra dice of a Critical (1d6 unless the weapon says otherwise)
    crit_sides: int = 6
    gun: bool = False
    consumable: bool = False
    notes: str = ""
    bulky: bool = False  # F11: carried in hands or a sling

    @property
    def damage(self) -> str:
        """The damage as notation: ``3``, ``1d4+2``."""
        if not self.count:
            return str(self.flat)
        return f"{self.count}d{self.sides}" + (f"+{self.flat}" if self.flat else "")

    @property
    def crit_dice(self) -> str:
        return f"{self.crit_count}d{self.crit_sides}"

    @property
    def max_damage(self) -> int:
        return self.count * self.sides + self.flat


def _dice(text: str) -> tuple[int, int, int]:
    """``1d4+2`` → (1, 4, 2); ``3`` → (0, 0, 3) (as the catalog checked it)."""
    m = re.fullmatch(r"(?:(\d*)d(\d+))?([+-]?\d+)?", text)
    if m is None:
        raise RuleError(f"'{text}' is not damage like 1d8 or 3")
    if m.group(2) is None:
        return 0, 0, int(m.group(3) or 0)
    return int(m.group(1) or 1), int(m.group(2)), int(m.group(3) or 0)


def weapon_from(entry: Mapping[str, Any]) -> Weapon:
    """F8: a weapon from its catalog entry (``catalog/weapons.toml`` or a campaign's)."""
    e = _checked(catalogs.WEAPON, entry)
    count, sides, flat = _dice(e["damage"])
    crit_count, crit_sides, _ = _dice(e["crit"])
    return Weapon(
        e["key"] or e["name"].lower(),
        e["name"],
        count,
        sides,
        flat,
        crit_count,
        crit_sides,
        e["gun"],
        e["consumable"],
        e["notes"],
        e["bulky"],
    )


WEAPONS: dict[str, Weapon] = {w.key: w for w in map(weapon_from, catalogs.entries("weapon"))}
_WEAPON_WORDS = {
    **{k: k for k in WEAPONS},
    **{w.name.lower(): k for k, w in WEAPONS.items()},
    **{a: str(e["key"]) for e in catalogs.entries("weapon") for a in e["aka"]},
}
_CUSTOM = re.compile(r"^(?:(\d+)d(\d+))?([+-]?\d+)?$")


def weapon(text: str) -> Weapon:
    """F8: a weapon of the catalog, or custom damage typed as ``2``, ``1d8`` or ``1d6+1``."""
    t = text.strip().lower().replace(" ", "-")
    key = _WEAPON_WORDS.get(t) or _WEAPON_WORDS.get(t.replace("-", " "))
    if key:
        return WEAPONS[key]
    m = _CUSTOM.match(t)
    if t and m and (m.group(1) or m.group(3)):
        count = int(m.group(1) or 0)
        sides = int(m.group(2) or 0)
        if count > 20 or sides > 100:
            raise RuleError(f"weapon damage '{text}' is too large")
        return Weapon(t, f"Weapon ({t})", count, sides, int(m.group(3) or 0))
    raise RuleError(f"unknown weapon '{text}': use {', '.join(WEAPONS)} or damage like 1d8 or 2")


# -- F5 hazard → stat ------------------------------------------------------------------------------

#: F5: kinds of harm and the stat they wound (seed 001 §3a).
HARM_KINDS = {
    "physical": "phy",
    "body": "phy",
    "nerves": "sci",
    "cognition": "sci",
    "mind": "sci",
    "senses": "ins",
    "stress": "ins",
    "social": "adm",
    "morale": "adm",
    "dignity": "adm",
    "fear": "nor",
    "uncanny": "nor",
}

#: F5: seed 000's examples, hazard by hazard.
EXAMPLES: dict[str, dict[str, str]] = {
    "weapons": {
        "gunshot": "phy",
        "concussion": "sci",
        "deafened": "ins",
        "pinned": "adm",
        "unfamiliar": "nor",
    },
    "trauma": {
        "crushed": "phy",
        "undermined": "sci",
        "hallucinations": "ins",
        "sacrifice": "adm",
        "hunted": "nor",
    },
    "explosions": {
        "shrapnel": "phy",
        "lightning": "sci",
        "flashbang": "ins",
        "separated": "adm",
        "fire": "nor",
    },
    "contaminants": {
        "respiratory": "phy",
        "pathogen": "sci",
        "stench": "ins",
        "food-poisoning": "adm",
        "bugs": "nor",
    },
    "anomalies": {
        "bitten": "phy",
        "memory": "sci",
        "sensory": "ins",
        "social-phenomena": "adm",
        "facility": "nor",
    },
}

#: F5: with no kind named, the stat a hazard most often wounds.
DEFAULT_STAT = {
    "weapons": "phy",
    "trauma": "phy",
    "explosions": "phy",
    "contaminants": "phy",
    "anomalies": "nor",
}


def suggest_stat(hazard: str, kind: str = "") -> tuple[str, str]:
    """F5: the stat the tracker suggests, and why (hazard → stat table of seed 000)."""
    k = kind.strip().lower().replace(" ", "-")
    if k:
        if k in HARM_KINDS:
            return HARM_KINDS[k], k
        if k in EXAMPLES.get(hazard, {}):
            return EXAMPLES[hazard][k], f"{hazard}: {k}"
        for h, table in EXAMPLES.items():
            if k in table:
                return table[k], f"{h}: {k}"
        words = ", ".join(HARM_KINDS)
        raise RuleError(
            f"unknown kind of harm '{kind}': use {words} or a seed example (gunshot...)"
        )
    return DEFAULT_STAT[hazard], hazard


# -- F12 Maintenance Technician and jobs -----------------------------------------------------------


@frozen
class Job:
    name: str
    saves: Saves
    expertise: tuple[str, ...] = ()
    ppe: tuple[str, ...] = ()
    parts: int = 0
    clearance: int = 0
    uniform: str = ""


def job_from(entry: Mapping[str, Any]) -> Job:
    """F12: a job from its catalog entry (``catalog/jobs.toml``)."""
    e = _checked(catalogs.JOB, entry)
    return Job(
        e["name"],
        Saves(**dict(_pairs(e["saves"]))),
        expertise=e["expertise"],
        ppe=e["ppe"],
        parts=e["parts"],
        clearance=e["clearance"],
        uniform=e["uniform"],
    )


JOBS = {str(e["key"]): job_from(e) for e in catalogs.entries("job")}
_JOB_WORDS = {
    w.replace(" ", "-"): str(e["key"])
    for e in catalogs.entries("job")
    for w in catalogs.JOB.words_of(e)
    if w != str(e["name"]).lower()
}


def job_key(text: str) -> str:
    key = word_for(text.strip().replace(" ", "-"), _JOB_WORDS)
    if key is None:
        raise RuleError(f"unknown job '{text}': the built-in job is tech (Maintenance Technician)")
    return key


TECHNIQUES = ("workorder", "dismantle", "barricade", "tap", "reroute", "blast")
_TECH_WORDS = {
    **{k: k for k in TECHNIQUES},
    "work-order": "workorder",
    "work": "workorder",
    "order": "workorder",
}


def technique_key(text: str) -> str:
    key = word_for(text, _TECH_WORDS)
    if key is None:
        raise RuleError(f"unknown technique '{text}': use {', '.join(TECHNIQUES)}")
    return key


def parts_spent(technique: str, faces: Sequence[int], clearance: int) -> int:
    """F12: one slot per die showing 4+, or one per die when X exceeds the Clearance level;
    Reroute costs one slot per die whatever the dice show."""
    if technique == "reroute" or len(faces) > clearance:
        return len(faces)
    return sum(1 for f in faces if f >= 4)


def blast_shares(total: int, targets: int) -> list[int]:
    """F12 Blast: [sum] split evenly, the remainder one each to the first targets (C5)."""
    if targets < 1:
        raise RuleError("Blast needs at least one target")
    share, rest = divmod(total, targets)
    return [share + (1 if i < rest else 0) for i in range(targets)]


# -- what becomes of a combatant ------------------------------------------------------------------


class Fate(enum.StrEnum):
    """What the GM says became of a combatant (F10); ``active`` lets the wounds decide."""

    ACTIVE = "active"
    OUT = "out"
    DEAD = "dead"
    FLED = "fled"
    SURRENDERED = "surrendered"


class Condition(enum.StrEnum):
    OK = "ok"
    IMPAIRED = "impaired"
    INCAPACITATED = "incapacitated"
    DEAD = "dead"
    OUT = "out"
    FLED = "fled"
    SURRENDERED = "surrendered"
    STANDING = "standing"  # an object (Barricade) still up
    BROKEN = "broken"  # an object whose track is full


def weapon_of(sheet: FacilitySheet, text: str) -> Weapon:
    """F8: a weapon the sheet's campaign entries define (by key, name or aka), else
    ``weapon(text)``: the shipped catalog or custom damage."""
    t = text.strip().lower()
    for entry in sheet.arms:
        e = _checked(catalogs.WEAPON, entry)
        w = weapon_from(e)
        if t in (w.key, w.name.lower(), *(a.lower() for a in e["aka"])):
            return w
    return weapon(text)


def stat_of(sheet: FacilitySheet, key: str) -> Stat:
    return getattr(sheet, key)  # type: ignore[no-any-return]


def changed(obj: T, changes: dict[str, Any]) -> T:
    """``evolve`` with field names computed at run time."""
    return cast(T, evolve(cast(Any, obj), **changes))


def with_stat(sheet: FacilitySheet, key: str, stat: Stat) -> FacilitySheet:
    return changed(sheet, {key: stat})


def simple(sheet: FacilitySheet) -> bool:
    return sheet.track > 0


def ppe_impaired(sheet: FacilitySheet) -> set[str]:
    """F4/F6: stats that worn PPE impairs (for rolls and spill-over, not for the tallies)."""
    out: set[str] = set()
    for piece in sheet.ppe:
        item = piece.item
        if item.impairs and not (item.unless_armor and sheet.armor):
            out.add(item.impairs)
    return out


def impaired(sheet: FacilitySheet, key: str) -> bool:
    """F4: Impaired for rolls and wounds: by its track, or by worn PPE."""
    return wound_impaired(stat_of(sheet, key)) or key in ppe_impaired(sheet)


def impaired_count(sheet: FacilitySheet) -> int:
    """F4: stats Impaired by their tracks (PPE impairment does not count toward the tallies)."""
    return sum(1 for k in STATS if wound_impaired(stat_of(sheet, k)))


def condition(sheet: FacilitySheet) -> Condition:
    """F4, F10: dead, out, incapacitated... what the tracker shows and what decides who acts."""
    if sheet.fate is Fate.DEAD:
        return Condition.DEAD
    if sheet.fate is Fate.FLED:
        return Condition.FLED
    if sheet.fate is Fate.SURRENDERED:
        return Condition.SURRENDERED
    if sheet.fate is Fate.OUT:
        return Condition.OUT
    if sheet.is_object:
        return Condition.BROKEN if sheet.track_wounds >= sheet.track else Condition.STANDING
    if simple(sheet):
        return Condition.OUT if sheet.track_wounds >= sheet.track else Condition.OK
    n = impaired_count(sheet)
    if n >= 5 and not sheet.overrule:
        return Condition.DEAD
    if n >= 3:
        return Condition.INCAPACITATED
    return Condition.IMPAIRED if n else Condition.OK


def can_act(sheet: FacilitySheet) -> bool:
    return condition(sheet) in (Condition.OK, Condition.IMPAIRED)


def save_value(sheet: FacilitySheet, kind: str, tag: str = "") -> int:
    """F3: job base + stat perks at +3 + bonuses of PPE that still protects (F6)."""
    value: int = getattr(sheet.base, kind)
    for key, perks in PERKS.items():
        if stat_of(sheet, key).bonus >= 3:
            value += perks.get(kind, 0)
    return value + sum(piece_bonus(p, kind, tag) for p in sheet.ppe)


def covering(sheet: FacilitySheet, kind: str, tag: str = "") -> list[Piece]:
    """F5: worn pieces that cover the hazard and can still be ablated (marks < rating)."""
    return [p for p in sheet.ppe if p.protects and covers(p, kind, tag)]


def find_piece(sheet: FacilitySheet, text: str) -> Piece:
    """A worn piece by name, number or a part of its name (worn pieces are tried first)."""
    t = text.strip().lower()
    exact = [p for p in sheet.ppe if p.name.lower() == t]
    if exact:
        return exact[0]
    worn = [p for p in sheet.ppe if t and t in p.name.lower()]
    if len(worn) == 1:
        return worn[0]
    item = ppe_item(text)
    for p in sheet.ppe:
        if p.name == item.name:
            return p
    raise RuleError(f"not wearing {item.name}")


def mark_piece(sheet: FacilitySheet, name: str, delta: int = 1) -> FacilitySheet:
    out = []
    for p in sheet.ppe:
        if p.name == name:
            p = evolve(p, marks=max(0, min(p.item.rating, p.marks + delta)))
        out.append(p)
    return evolve(sheet, ppe=tuple(out))


def ablate(
    sheet: FacilitySheet, text: str, kind: str, tag: str = ""
) -> tuple[FacilitySheet, Piece]:
    """F5: mark a worn piece that covers the hazard and has marks < rating; refuse otherwise."""
    piece = find_piece(sheet, text)
    if not piece.protects:
        raise RuleError(f"{piece.name} is exhausted ({piece.marks}/{piece.item.rating} marks)")
    if not covers(piece, kind, tag):
        what = kind + (f" ({TAGS[tag]})" if tag else "")
        raise RuleError(f"{piece.name} does not cover {what}")
    sheet = mark_piece(sheet, piece.name)
    return sheet, find_piece(sheet, piece.name)


# -- F4 wounds and spill-over ----------------------------------------------------------------------


def room(sheet: FacilitySheet, key: str) -> int:
    """Wounds a stat can still take before it is Impaired (0 when Impaired by anything)."""
    if impaired(sheet, key):
        return 0
    s = stat_of(sheet, key)
    return max(0, capacity(s) - s.wounds)


def propose_spill(sheet: FacilitySheet, exclude: Iterable[str] = ()) -> str:
    """F4: the tracker's proposal for spill-over: the non-Impaired stat with the most room left
    (ties in stat order); '' when every stat is Impaired."""
    skip = set(exclude)
    best = ""
    for key in STATS:
        if key in skip or room(sheet, key) <= 0:
            continue
        if not best or room(sheet, key) > room(sheet, best):
            best = key
    return best


@frozen
class Landing:
    """Where wounds went: ``[(stat, count), ...]`` in order, plus any with nowhere to go."""

    placed: tuple[tuple[str, int], ...] = ()
    lost: int = 0
    proposed: tuple[str, ...] = ()  # spill targets the tracker picked (not the GM)


def add_wounds(
    sheet: FacilitySheet, key: str, count: int, spill: Sequence[str] = ()
) -> tuple[FacilitySheet, Landing]:
    """F4: put ``count`` wounds on stat ``key``; what lands on an Impaired stat, including the
    excess beyond capacity, spills to the GM's ``spill`` stats in turn, then to the tracker's
    proposal. Refuses to spill onto an Impaired stat the GM named. Simple tracks (F10) and objects
    just fill up."""
    if count < 1:
        raise RuleError(f"wounds must be at least 1, got {count}")
    if simple(sheet):
        put = min(count, max(0, sheet.track - sheet.track_wounds))
        sheet = evolve(sheet, track_wounds=sheet.track_wounds + put)
        return sheet, Landing((("track", put),) if put else (), count - put)
    chosen = list(spill)
    for k in chosen:
        if k == key:
            raise RuleError(f"spill-over goes to another stat than {STAT_NAMES[key]}")
    placed: list[tuple[str, int]] = []
    proposed: list[str] = []
    remaining, target, tried = count, key, [key]
    while remaining > 0:
        put = min(room(sheet, target), remaining)
        if put:
            s = stat_of(sheet, target)
            sheet = with_stat(sheet, target, evolve(s, wounds=s.wounds + put))
            placed.append((target, put))
            remaining -= put
        if not remaining:
            break
        if chosen:
            target = chosen.pop(0)
            if room(sheet, target) <= 0:
                raise RuleError(
                    f"cannot spill onto {STAT_NAMES[target]}: it is Impaired; pick another stat"
                )
        else:
            target = propose_spill(sheet, tried)
            if not target:
                break
            proposed.append(target)
        tried.append(target)
    return sheet, Landing(tuple(placed), remaining, tuple(proposed))


def remove_wounds(sheet: FacilitySheet, key: str, count: int = 1) -> tuple[FacilitySheet, int]:
    """F9: take up to ``count`` wounds off a stat (or the simple track); never below 0."""
    if count < 1:
        raise RuleError(f"wounds must be at least 1, got {count}")
    if simple(sheet):
        took = min(count, sheet.track_wounds)
        return evolve(sheet, track_wounds=sheet.track_wounds - took), took
    s = stat_of(sheet, key)
    took = min(count, s.wounds)
    return with_stat(sheet, key, evolve(s, wounds=s.wounds - took)), took


def scar(sheet: FacilitySheet, key: str) -> FacilitySheet:
    """F9: an Impaired stat's wounds become one Scar (capacity −1, never heals)."""
    s = stat_of(sheet, key)
    if not wound_impaired(s):
        raise RuleError(f"{STAT_NAMES[key]} is not Impaired: only an Impaired stat can scar")
    if s.wounds < 1:
        raise RuleError(f"{STAT_NAMES[key]} has no wounds to turn into a Scar")
    return with_stat(sheet, key, evolve(s, wounds=0, scars=s.scars + 1))


def shift_heal(sheet: FacilitySheet) -> tuple[FacilitySheet, int]:
    """F9 Shift: 1 wound off every stat (scars stay)."""
    healed = 0
    if simple(sheet):
        sheet, healed = remove_wounds(sheet, "phy", 1) if sheet.track_wounds else (sheet, 0)
        return sheet, healed
    for key in STATS:
        if stat_of(sheet, key).wounds:
            sheet, took = remove_wounds(sheet, key, 1)
            healed += took
    return sheet, healed


# -- showing ---------------------------------------------------------------------------------------


def bar(filled: int, total: int) -> str:
    """A wound bar: ``■■□`` (wounds beyond the capacity shown as ``▣``)."""
    total = max(total, 0)
    return "■" * min(filled, total) + "□" * max(0, total - filled) + "▣" * max(0, filled - total)


def signed(n: int) -> str:
    return f"+{n}" if n >= 0 else str(n)


def wounds_short(sheet: FacilitySheet) -> str:
    """Compact wounds for a table column: ``P2/4! S1/3`` (``!`` = Impaired) or ``3/5``."""
    if simple(sheet):
        return f"{sheet.track_wounds}/{sheet.track}"
    parts = []
    for key in STATS:
        s = stat_of(sheet, key)
        if s.wounds or s.scars or impaired(sheet, key):
            mark = "!" if impaired(sheet, key) else ""
            parts.append(f"{key[0].upper()}{s.wounds}/{capacity(s)}{mark}")
    return " ".join(parts) or "-"
