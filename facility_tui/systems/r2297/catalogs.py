"""2297's catalog kinds (``campaign.catalogs``): what a ``[[weapon]]``, ``[[armor]]`` or
``[[cover]]`` entry holds, for the shipped files in ``catalog/`` and a campaign's own."""

from __future__ import annotations

import re
from typing import Any

from facility_tui.campaign.catalogs import (
    REQUIRED,
    Kind,
    declare,
    dice,
    name,
    one_of,
    shipped,
    text,
    whole,
)

PACKAGE = "facility_tui.systems.r2297"
_MODES = re.compile(r"^(SS|SA|BF|AF)(/(SS|SA|BF|AF))*$", re.IGNORECASE)


def modes(value: Any) -> str:
    if not isinstance(value, str) or not _MODES.match(value.strip()):
        raise ValueError("must be fire modes like SA or SA/BF/AF")
    return value.strip().upper()


WEAPON = Kind(
    "2297",
    "weapon",
    {
        "name": (name, REQUIRED),
        "damage": (dice, REQUIRED),
        "modes": (modes, "SS"),
        "ammo": (whole(0, 999), 0),
        "type": (one_of("physical", "stun", "energy"), "physical"),
        "notes": (text, ""),
    },
    title="weapons",
    options=("weapon",),
    verbs=(r"arm\s+\S+\s+",),  # (arm TYPE WEAPON)
)
ARMOR = Kind(
    "2297",
    "armor",
    {
        "name": (name, REQUIRED),
        "pt": (whole(0, 999), REQUIRED),
        "dr": (whole(0, 100), REQUIRED),
        "notes": (text, ""),
    },
    title="armor",
    options=("armor",),
)
COVER = Kind(
    "2297",
    "cover",
    {
        "name": (name, REQUIRED),
        "tn": (whole(0, 99), 0),
        "pt": (whole(0, 999), 0),
        "dr": (whole(0, 100), 0),
        "notes": (text, ""),
    },
    title="cover",
    options=("cover",),
)
declare(PACKAGE, WEAPON, ARMOR, COVER)


def entries(kind: str) -> list[dict[str, Any]]:
    """The shipped entries of a kind, read once."""
    return shipped(PACKAGE, "2297").get(kind, [])
