"""What the save holds of the Facility rules: a combatant's sheet (F1, F3, F4, F6, F8, F10, F12) and
the encounter's state (F7 sides, pending rolls and harm), as frozen attrs values.

Only TOML-friendly field types (str, int, bool, StrEnum, nested frozen attrs, tuples), each with a
default, so the codec can save and load them; their parts are the rules' values (``rules``).
"""

from __future__ import annotations

import enum
from typing import Any

from attrs import field, frozen

from facility_tui.model.encounter import PCS
from facility_tui.systems.facility.rules import Fate, Piece, Saves, Stat


@frozen
class FacilitySheet:
    """One Facility combatant (F1, F3, F4, F6, F8, F10, F12)."""

    phy: Stat = field(factory=Stat)
    sci: Stat = field(factory=Stat)
    ins: Stat = field(factory=Stat)
    adm: Stat = field(factory=Stat)
    nor: Stat = field(factory=Stat)
    job: str = ""
    base: Saves = field(factory=Saves)
    ppe: tuple[Piece, ...] = ()
    track: int = 0  # F10: capacity of an NPC's simple wound track; 0 = five stat tracks
    track_wounds: int = 0
    is_object: bool = False  # F12 Barricade: an object, not a creature
    fate: Fate = Fate.ACTIVE
    overrule: bool = False  # F4: alive with five Impaired stats ("alternate arrangements")
    armor: bool = False  # Armor Expertise (Plate Carrier)
    weapons: tuple[str, ...] = ()
    empty: tuple[str, ...] = ()  # guns out of ammo (F8)
    attack_used: bool = False  # F7 marks
    other_used: bool = False
    parts: int = 0  # F12 Spare Parts slots
    clearance: int = 0
    pockets: int = 2  # F11, sheet data only
    slots: int = 6
    items: tuple[str, ...] = ()
    # F8: the campaign catalog's weapons it carries (their entries, plain TOML data, as read):
    # ``weapons`` names them by key, and they keep their figures whatever the file says later
    arms: tuple[Any, ...] = ()


# -- the encounter's state (F7) --------------------------------------------------------------------


DEFAULT_TN = 12


class Step(enum.StrEnum):
    """What a pending roll waits for (F2, F7, F8, F9)."""

    CHECK = "check"  # a failed check: salvage or live with it
    INITIATIVE = "initiative"  # a failed side-initiative roll: salvage for a Partial
    HIT = "hit"  # an attack that hit: deal or crit
    MISS = "miss"  # an attack that missed: miss or salvage
    BREAK = "break"  # a failed Break roll: salvage
    TEND = "tend"  # a failed heal-another roll: salvage
    BACKLASH = "backlash"  # F8 a Partial: the attacker suffers the enemy's damage, no save


@frozen
class Pending:
    """A roll whose follow-up choice the GM has not entered yet (one per combatant)."""

    who: str = ""
    step: Step = Step.CHECK
    stat: str = "phy"
    tn: int = DEFAULT_TN
    mod: int = 0
    exp: bool = False
    target: str = ""  # attack target, or whom a healer tends
    weapon: str = ""
    vs: str = "weapons"  # the target's save the attack rolls against
    to: str = ""  # stat the attack wounds on the target ('' = suggested)
    kind: str = ""  # kind of harm, for the hazard → stat suggestion
    heal: str = ""  # stat a Break or heal-another takes a wound off
    total: int | None = None  # a failed check's total, for a Work Order to add to (F12)


@frozen
class PendingHarm:
    """A failed save with PPE that could still be ablated (F5): 'ablate' or 'suffer'."""

    who: str = ""
    wounds: int = 1
    hazard: str = "weapons"
    tag: str = ""
    stat: str = ""
    spill: tuple[str, ...] = ()
    kind: str = ""


@frozen
class FacilityState:
    first: str = PCS  # the side that acts first each round (F7)
    partial: bool = False  # F7: round 1 opens with the vanguard's turn
    vanguard: str = ""  # the vanguard PC's id
    tn: int = DEFAULT_TN
    pending: tuple[Pending, ...] = ()
    harms: tuple[PendingHarm, ...] = ()
