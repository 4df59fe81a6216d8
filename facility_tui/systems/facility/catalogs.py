"""Facility's catalog kinds (``campaign.catalogs``): what a ``[[weapon]]``, ``[[ppe]]``,
``[[storage]]``, ``[[job]]`` or ``[[competence]]`` entry holds, for the shipped files in
``catalog/`` and a campaign's own. The rules build their values from these entries (core)."""

from __future__ import annotations

from typing import Any

from facility_tui.campaign.catalogs import (
    REQUIRED,
    Kind,
    damage,
    declare,
    dice,
    flag,
    key,
    name,
    numbers,
    one_of,
    shipped,
    text,
    whole,
    words,
)

PACKAGE = "facility_tui.systems.facility"
# as core's STATS and SAVES (core builds on this module, so they are spelled here too)
_STATS = ("phy", "sci", "ins", "adm", "nor")
_SAVES = ("weapons", "trauma", "explosions", "contaminants", "anomalies")

WEAPON = Kind(
    "facility",
    "weapon",
    {
        "name": (name, REQUIRED),
        "key": (key, ""),
        "damage": (damage, REQUIRED),
        "crit": (dice, "1d6"),
        "gun": (flag, False),
        "bulky": (flag, False),
        "consumable": (flag, False),
        "aka": (words(), ()),
        "notes": (text, ""),
    },
    title="weapons",
    also=("key", "aka"),
    options=("weapon", "empty"),
    verbs=(r"rearm\s+\S+\s+", r"arm\s+\S+\s+"),  # (rearm WHO WEAPON, arm TYPE WEAPON)
)
PPE = Kind(
    "facility",
    "ppe",
    {
        "name": (name, REQUIRED),
        "number": (whole(0, 999), 0),
        "rating": (whole(1, 99), REQUIRED),
        "covers": (words(), REQUIRED),
        "bonuses": (numbers(_SAVES), ()),
        "narrow": (numbers(()), ()),
        "impairs": (one_of("", *_STATS), ""),
        "unless_armor": (flag, False),
        "notes": (text, ""),
    },
    title="PPE",
    options=("ppe",),
    verbs=(r"ppe\s+\S+\s+(wear|remove|off|mark|unmark|repair)\s+",),
)
STORAGE = Kind(
    "facility",
    "storage",
    {
        "name": (name, REQUIRED),
        "pockets": (whole(0, 99), 0),
        "slots": (whole(0, 99), 0),
        "bulky": (flag, False),
        "carries_bulky": (flag, False),
        "clothing": (flag, False),
        "notes": (text, ""),
    },
    title="storage items",
)
JOB = Kind(
    "facility",
    "job",
    {
        "name": (name, REQUIRED),
        "key": (key, ""),
        "saves": (numbers(_SAVES), ()),
        "expertise": (words(one_of(*_STATS)), ()),
        "ppe": (words(), ()),
        "parts": (whole(0, 99), 0),
        "clearance": (whole(0, 9), 0),
        "uniform": (text, ""),
        "aka": (words(), ()),
    },
    title="jobs",
    also=("key", "aka"),
    options=("job",),
)
COMPETENCE = Kind(
    "facility",
    "competence",
    {"name": (name, REQUIRED), "upto": (whole(3, 18), REQUIRED), "bonus": (whole(-3, 3), 0)},
    title="competence scale",
)
declare(PACKAGE, WEAPON, PPE, STORAGE, JOB, COMPETENCE)


def storage_of(items: tuple[str, ...]) -> list[dict[str, Any]]:
    """F11: the storage items among what a sheet carries, by the name its line ends with
    ("orange coveralls" is Coveralls), as the rules ship them."""
    catalog = entries("storage")
    found = []
    for item in items:
        said = item.strip().lower()
        found += [
            e
            for e in catalog
            if said == e["name"].lower() or said.endswith(" " + e["name"].lower())
        ]
    return found


def entries(kind: str) -> list[dict[str, Any]]:
    """The shipped entries of a kind, read once."""
    return shipped(PACKAGE, "facility").get(kind, [])
