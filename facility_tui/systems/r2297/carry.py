"""What of a 2297 sheet outlasts a fight: what the party keeps of a PC (its damage, injuries and
their effects, fatigue, Edge, ammo) and how it rests between fights, what a template writes of a
sheet (its armor and weapons as ``add`` takes them) and leaves out (a fight's bookkeeping).
"""

from __future__ import annotations

from typing import Any

from facility_tui.model.encounter import evolve
from facility_tui.systems.base import Carry
from facility_tui.systems.r2297.rules import DamageType
from facility_tui.systems.r2297.sheet import Sheet2297, Weapon

# What a fight's turns keep on a sheet: A3 the initiative's roll, roll-offs, boost and Refocus,
# A4 the turn's actions, downgrade, Reaction and Extended action, A9 the rounds counted while
# Exhausted. Neither the party nor a template keeps them.
TURN_BOOKKEEPING = (
    "rolled",
    "tiebreak",
    "boost",
    "boost_round",
    "boost_pending",
    "refocus",
    "turn_init",
    "spent_major",
    "spent_move",
    "spent_minor",
    "extra_major",
    "extra_move",
    "extra_minor",
    "downgrade",
    "reaction_used",
    "ext_name",
    "ext_step",
    "ext_total",
    "ext_turn",
    "idle_turns",
    "acted_round",
    "exhausted_round",
    "recover_due",
)


# A1: what makes a combatant what it is (a sheet's own stats and gear, as ``add`` sets them)
MAKE = (
    "ag",
    "cu",
    "hlt",
    "sta",
    "edge",
    "dice",
    "skill",
    "dodge",
    "parry",
    "armor",
    "awareness",
    "fatigued_loses",
)


class Carry2297(Carry):
    """A PC carries its hurts to the next fight; a template is a sheet before any fight."""

    quiet_fields = ("next_id", "next_patch", "turns")
    rest_between = "rest {who} long"  # A9: a long rest, all fatigue (one a day)
    # a template's combatant has taken no turn yet (its awareness, ``aware=``, it keeps)
    per_fight = (*TURN_BOOKKEEPING, "turns")

    def template_options(self, sheet: Any) -> dict[str, tuple[str, str]]:
        """A1: armor and weapons as ``add`` takes them (a template reads like its add line)."""
        s: Sheet2297 = sheet
        out = {"awareness": ("aware", s.awareness.value)}
        if s.armor:
            out["armor"] = ("armor", ", ".join(a.text for a in s.armor))
        if s.weapons:
            out["weapons"] = ("weapon", ", ".join(_weapon_words(w) for w in s.weapons))
        return out

    def unhurt(self, sheet: Any) -> Any:
        """A1's make (stats, armor, weapons reloaded, awareness) on a fresh sheet: no damage,
        stun, fatigue, injury or effect, no rest or stim taken, no turn's bookkeeping."""
        if not isinstance(sheet, Sheet2297):
            return sheet
        weapons = tuple(evolve(w, ammo=w.capacity) for w in sheet.weapons)
        made = {name: getattr(sheet, name) for name in MAKE}
        return evolve(Sheet2297(), **made, weapons=weapons)

    def lasting(self, sheet: Any) -> Any:
        """What a PC carries to the next fight: damage, stun, fatigue, injuries and their timed
        effects (bleeding, a death countdown, disadvantage until medical care), Edge, ammo,
        rests taken today, pending Grit checks; not this fight's initiative (A3), actions (A4),
        awareness (A2) or what ends with it (effects "until end of combat", Pinned by one of
        its combatants, Surprised, Overwatch). An offer of Edge lapses with the fight (A7), and
        its injuries' rounds are of no fight to come (round 0: before it)."""
        if not isinstance(sheet, Sheet2297):
            return sheet
        effects = tuple(
            e
            for e in sheet.effects
            if not (e.combat or e.by or e.until_round or e.label == "overwatch")
        )
        # (an injury's round is of the fight that dealt it: carried, it is "before this fight")
        injuries = tuple(
            evolve(i, offered=False, round=0) if i.offered or i.round else i for i in sheet.injuries
        )
        fresh = Sheet2297()
        # (A2: its awareness is of one fight too)
        per_fight = {name: getattr(fresh, name) for name in (*TURN_BOOKKEEPING, "awareness")}
        return evolve(sheet, effects=effects, injuries=injuries, **per_fight)


def _weapon_words(w: Weapon) -> str:
    """A weapon as ``add ... weapon=`` writes it: ``SMG 3d6+1 SA/BF 30``."""
    words = [w.name, w.damage, "/".join(w.modes)]
    if w.capacity:
        words.append(str(w.capacity))
    if w.kind is not DamageType.PHYSICAL:
        words.append(w.kind.value)
    return " ".join(words)
