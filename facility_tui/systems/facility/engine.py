"""Facility engine: the rules applied to an encounter (F2, F5, F7, F8): its state read and
changed (pending rolls and harm), the sides and who acts now, their marks, side initiative,
shared by the commands and the parts the core talks to (``turns``, ``view``...)."""

from __future__ import annotations

from typing import Any

from facility_tui.commands import rounds
from facility_tui.commands.grammar import CommandError, quote
from facility_tui.commands.spec import Call
from facility_tui.model.encounter import ENEMIES, PCS, Combatant, Encounter, Phase, evolve
from facility_tui.systems.facility.rules import can_act, condition, impaired, simple
from facility_tui.systems.facility.sheet import (
    FacilitySheet,
    FacilityState,
    Pending,
    PendingHarm,
    Step,
)

VANGUARD = "vanguard"  # F7: the slot of the PC who acts before the enemies after a Partial Success


def state_of(enc: Encounter) -> FacilityState:
    s = enc.state
    return s if isinstance(s, FacilityState) else FacilityState()


def sheet_of(c: Combatant) -> FacilitySheet:
    return c.sheet if isinstance(c.sheet, FacilitySheet) else FacilitySheet()


def with_state(enc: Encounter, **changes: Any) -> Encounter:
    return evolve(enc, state=evolve(state_of(enc), **changes))


def _of(items: tuple[Any, ...], who: str) -> Any:
    return next((x for x in items if x.who == who), None)


def _put(enc: Encounter, field: str, item: Any) -> Encounter:
    """Set ``who``'s entry of a state list (``pending`` or ``harms``): one per combatant."""
    rest = tuple(x for x in getattr(state_of(enc), field) if x.who != item.who)
    return with_state(enc, **{field: (*rest, item)})


def _drop(enc: Encounter, field: str, who: str) -> Encounter:
    items = getattr(state_of(enc), field)
    if not any(x.who == who for x in items):
        return enc
    return with_state(enc, **{field: tuple(x for x in items if x.who != who)})


def pending_of(enc: Encounter, who: str) -> Pending | None:
    found: Pending | None = _of(state_of(enc).pending, who)
    return found


def set_pending(enc: Encounter, p: Pending) -> Encounter:
    return _put(enc, "pending", p)


def clear_pending(enc: Encounter, who: str) -> Encounter:
    return _drop(enc, "pending", who)


def harm_of(enc: Encounter, who: str) -> PendingHarm | None:
    found: PendingHarm | None = _of(state_of(enc).harms, who)
    return found


def set_harm(enc: Encounter, h: PendingHarm) -> Encounter:
    return _put(enc, "harms", h)


def clear_harm(enc: Encounter, who: str) -> Encounter:
    return _drop(enc, "harms", who)


def members(enc: Encounter, side: str) -> list[Combatant]:
    """A side's creatures (objects such as a Barricade are not members)."""
    return [c for c in enc.combatants if c.side == side and not sheet_of(c).is_object]


def acting_now(enc: Encounter, c: Combatant) -> bool:
    """F7: is it this combatant's side's turn (or, after a Partial, the vanguard's)?"""
    if enc.phase is not Phase.ACTIVE:
        return True
    st = state_of(enc)
    cur = enc.current
    if cur == VANGUARD:
        return c.id == st.vanguard
    if enc.round == 1 and st.partial and c.id == st.vanguard and cur == PCS:
        return False  # F7: the vanguard skips the PCs' first turn
    return cur == c.side


def reset_marks(enc: Encounter, cids: list[str]) -> Encounter:
    """These combatants' two marks back (F7), in one new list of combatants: a side of 1,000
    whose turn starts is one key press, and a copy of the list per member was O(n²)."""
    wanted = set(cids)
    changed = False
    combatants = []
    for c in enc.combatants:
        if c.id in wanted:
            wanted.discard(c.id)  # (the first of a repeated id, as ``Encounter.get`` finds it)
            s = sheet_of(c)
            if s.attack_used or s.other_used:
                c = evolve(c, sheet=evolve(s, attack_used=False, other_used=False))
                changed = True
        combatants.append(c)
    return evolve(enc, combatants=tuple(combatants)) if changed else enc


# -- F7 side initiative ----------------------------------------------------------------------------


def initiative_candidates(enc: Encounter) -> list[Combatant]:
    """F7: the PCs tied for the highest unimpaired Insight among those who can act, in the
    party's order (the order they were added)."""
    able = [
        c
        for c in members(enc, PCS)
        if can_act(sheet_of(c)) and not simple(sheet_of(c)) and not impaired(sheet_of(c), "ins")
    ]
    if not able:
        return []
    top = max(sheet_of(c).ins.bonus for c in able)
    return [c for c in able if sheet_of(c).ins.bonus == top]


def initiative_roller(enc: Encounter) -> Combatant | None:
    """F7: the PC with the highest unimpaired Insight who can act; on a tie the players choose
    and the tracker proposes the first in the party's order."""
    tied = initiative_candidates(enc)
    return tied[0] if tied else None


def check_vanguard(enc: Encounter, ref: str, call: Call) -> Combatant:
    c = call.combatant(ref)
    if c.side != PCS or sheet_of(c).is_object:
        raise CommandError(f"{c.name} is not a PC: the vanguard is one of the players' characters")
    if not can_act(sheet_of(c)):
        raise CommandError(f"{c.name} cannot act ({condition(sheet_of(c)).value})")
    return c


def apply_partial(call: Call, vanguard: str) -> Encounter:
    """F7 Partial Success: enemies first, but the elected PC acts before their first turn."""
    call.enc = with_state(call.enc, first=ENEMIES, partial=True, vanguard=vanguard)
    name = call.enc.get(vanguard).name if vanguard else ""
    if name:
        call.log(f"Partial Success: {name} acts before the enemies and skips the PCs' first turn")
    else:
        call.log("Partial Success: the players elect a vanguard PC: vanguard WHO")
    return call.enc


def marks_text(enc: Encounter, c: Combatant) -> str:
    """F7: the marks left this side turn: ``atk oth``, ``atk``, ``oth`` or ``-``."""
    s = sheet_of(c)
    if s.is_object:
        return ""
    if not can_act(s):
        return "-"
    left = [n for n, used in (("atk", s.attack_used), ("oth", s.other_used)) if not used]
    return " ".join(left) or "spent"


def pending_text(p: Pending) -> str:
    return {
        Step.CHECK: "failed roll: salvage?",
        Step.INITIATIVE: "failed initiative: salvage?",
        Step.HIT: "hit: deal or crit",
        Step.MISS: "missed: miss or salvage",
        Step.BREAK: "failed Break roll: salvage?",
        Step.TEND: "failed heal roll: salvage?",
        Step.BACKLASH: "a Partial: suffers the enemy's damage, no save",
    }[p.step]


def backlash_line(who: str, n: int | str = "N") -> str:
    """F8: the line that gives a Partial's backlash (the enemy's damage, no save)."""
    return f"harm {quote(who)} {n} weapons save=no"


def restart_round_one(call: Call) -> Encounter:
    """After an initiative Salvage turns into a Partial: round 1 opens again with the vanguard."""
    enc = evolve(call.enc, order=(VANGUARD, ENEMIES, PCS), turn=0)
    return rounds.start_turn(enc, call.dice, call.rules)
