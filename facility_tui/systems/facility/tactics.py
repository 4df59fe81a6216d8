"""Facility's default play of a side's turn for the forecast (``facility_tui.forecast.engine``), as
command lines, member by member in the list's order.

- A member whose play says ``flee at`` a state it reached leaves (``fate WHO fled``); one that
  ``hold``s does nothing.
- A PC with five stats whose gun is out of ammo reloads it with its other action (``rearm WHO``,
  ``mark WHO other``), then strikes a standing enemy with its first loaded weapon
  (``strike WHO TARGET weapon=W``: Physique against the target's Weapons save, F8).
- An enemy (or a PC with a simple track) harms a standing PC with its first weapon's damage
  against the Weapons save (``harm PC DAMAGE weapons by=WHO``); with no weapon, 1 wound; a play
  ``harm N HAZARD`` gives the harm it deals instead (``harm 2 anomalies``).
Open choices take the players' usual answer: a hit is dealt (no Critical), a miss or a failed
roll accepted (no Salvage), a Partial's backlash the lowest damage; a failed save ablates the
first worn piece that covers it, else the wounds are suffered.
"""

from __future__ import annotations

from attrs import evolve

from facility_tui.commands.dice import Dice, DiceError
from facility_tui.commands.grammar import quote
from facility_tui.model.encounter import ENEMIES, PCS, Combatant, Encounter
from facility_tui.model.view import Choice
from facility_tui.systems.base import END_WORD, RuleError, Tactics
from facility_tui.systems.facility.engine import VANGUARD, acting_now, members, sheet_of
from facility_tui.systems.facility.rules import (
    STATS,
    Condition,
    can_act,
    condition,
    impaired_count,
    save_key,
    simple,
    stat_of,
    weapon_of,
)
from facility_tui.systems.facility.sheet import FacilitySheet
from facility_tui.systems.plays import Play, TurnPlay


def fallen(c: Combatant) -> str | None:
    """Out of the fight, and how: "" (standing), "fled" (fled or surrendered), "down" (out,
    incapacitated), "dying" (dead); ``None`` for an object (a Barricade)."""
    s = sheet_of(c)
    if s.is_object:
        return None
    state = condition(s)
    if state is Condition.DEAD:
        return "dying"
    if state in (Condition.FLED, Condition.SURRENDERED):
        return "fled"
    return "" if can_act(s) else "down"


def hurt(s: FacilitySheet) -> int:
    """How hurt, for ``focus`` and ``spread``: a simple track's wounds per mille of its
    capacity; five stats: Impaired stats first, then wounds."""
    if simple(s):
        return s.track_wounds * 1000 // max(1, s.track)
    return impaired_count(s) * 1000 + sum(stat_of(s, k).wounds for k in STATS)


def flees(s: FacilitySheet, level: str) -> bool:
    if simple(s):
        return s.track_wounds * 2 >= s.track if level == "impaired" else s.track_wounds > 0
    if level == "impaired":
        return impaired_count(s) > 0
    return any(stat_of(s, k).wounds for k in STATS)


def _member_line(enc: Encounter, c: Combatant, turn: TurnPlay) -> str | None:
    s = sheet_of(c)
    play = turn.of(c.id)
    who = quote(c.id)
    if play.flee and flees(s, play.flee_level):
        return f"fate {who} fled"
    if play.hold:
        return None
    if s.empty and not s.other_used:
        rearm = f"rearm {who}"
        return f"mark {who} other" if rearm in turn.tried else rearm
    if s.attack_used:
        return None
    foes = [o for o in enc.combatants if _foe(c, o)]
    target = turn.pick(c.id, [(o.id, hurt(sheet_of(o))) for o in foes])
    if target is None:
        return None
    if c.side == PCS and not simple(s):
        loaded = [w for w in s.weapons if w not in s.empty] if s.weapons else ["unarmed"]
        if not loaded:
            return None
        return f"strike {who} {quote(target)} weapon={loaded[0]}"
    if play.harm:
        return f"harm {quote(target)} {play.harm} by={who}"
    damage = weapon_of(s, s.weapons[0]).damage if s.weapons else "1"
    return f"harm {quote(target)} {damage if damage != '0' else '1'} weapons by={who}"


def _foe(c: Combatant, o: Combatant) -> bool:
    return o.side != c.side and not sheet_of(o).is_object and not fallen(o)


def check_harm(text: str) -> str:
    """Why a play's ``harm N HAZARD`` cannot be dealt ("" when it can)."""
    if not text:
        return ""
    amount, hazard = text.split()
    try:
        save_key(hazard)
        Dice(0, 0).roll(amount)  # (a throwaway roll: the expression is one the engine takes)
    except (RuleError, DiceError) as err:
        return f"harm {text}: {err}"
    if amount.lstrip("-").isdigit() and int(amount) < 1:
        return f"harm {text}: the harm is at least 1 wound"
    return ""


class FacilityTactics(Tactics):
    """Facility's default play of a side's turn (see the module's doc)."""

    #: What ``flee at`` takes: any wound, an Impaired stat (a simple track half full).
    flee_words = ("hurt", "impaired")
    assumptions = (
        "PCs strike a standing enemy picked at random with their first loaded weapon (Physique "
        "vs its Weapons save); a hit is dealt, no Critical, no Salvage; rearm with the other "
        "action",
        "enemies harm a standing PC picked at random: their first weapon's damage (1 without one) "
        "vs the Weapons save, or the harm their play names; a failed save ablates the first PPE "
        "that covers it",
    )
    ammo_spent = "guns dry"

    def next_line(self, enc: Encounter, slot: str, turn: TurnPlay) -> str | None:
        """The next command line of the side whose turn it is, or ``None`` when its members'
        plays have no more."""
        if slot not in (PCS, ENEMIES, VANGUARD):
            return None
        for c in members(enc, PCS if slot == VANGUARD else slot):
            if fallen(c) or not acting_now(enc, c):
                continue
            line = _member_line(enc, c, turn)
            if line is not None and line not in turn.refused:
                return line
        return None

    def fallen(self, enc: Encounter, c: Combatant) -> str | None:
        return fallen(c)

    def settle(self, enc: Encounter, choice: Choice) -> str:
        """The players' usual answer to an open choice (see the module's doc)."""
        ablate = next((o for o in choice.options if o.line.startswith("ablate ")), None)
        return (ablate or choice.default).line

    def check_play(self, play: Play) -> str:
        return check_harm(play.harm) or super().check_play(evolve(play, harm=""))

    def ammo(self, c: Combatant) -> int:
        """F8: no rounds are counted; a gun that runs dry counts one."""
        s = sheet_of(c)
        return sum(1 for w in s.weapons if weapon_of(s, w).gun and w not in s.empty)

    def end_word(self, enc: Encounter, c: Combatant) -> str:
        """The list's Status word, in its short form when longer than the forecast's column
        (``out: inc.`` for ``out: incapacitated``)."""
        word = self.rules.view.state_word(enc, c)
        return word if len(word) <= END_WORD else self.rules.view.abbreviate("Status", word)
