"""Facility rules (F1–F12): side turns, side initiative, the sheet and the panes' figures.

The pure rules (stats, saves, wound tracks, PPE, weapons) live in ``core``; the commands a
GM types (``try``, ``harm``, ``strike``...) in ``commands``. This module is the
``RuleSystem``: the encounter-wide state, side initiative at ``start`` (F7), what happens when a
side's turn starts (marks reset), and the columns and detail lines the screens show.
"""

from __future__ import annotations

import enum
from typing import Any

from attrs import evolve, frozen

from facility_tui import rounds
from facility_tui.call import Call, side_of
from facility_tui.dice import Dice
from facility_tui.grammar import CommandError
from facility_tui.model import ENEMIES, PCS, Combatant, Encounter, Kind, Phase, System
from facility_tui.systems import RuleSystem
from facility_tui.systems.facility.core import (
    SAVES,
    STAT_NAMES,
    STATS,
    TAGS,
    WEAPONS,
    Condition,
    FacilitySheet,
    bar,
    can_act,
    capacity,
    condition,
    has_expertise,
    impaired,
    impaired_count,
    ppe_impaired,
    save_value,
    signed,
    simple,
    stat_of,
    wound_impaired,
    wounds_short,
)
from facility_tui.text import Detail, Tone

VANGUARD = "vanguard"  # F7: the slot of the PC who acts before the enemies after a Partial Success
DEFAULT_TN = 12


class Step(enum.StrEnum):
    """What a pending roll waits for (F2, F7, F8, F9)."""

    CHECK = "check"  # a failed check: salvage or live with it
    INITIATIVE = "initiative"  # a failed side-initiative roll: salvage for a Partial
    HIT = "hit"  # an attack that hit: deal or crit
    MISS = "miss"  # an attack that missed: miss or salvage
    BREAK = "break"  # a failed Break roll: salvage
    TEND = "tend"  # a failed heal-another roll: salvage


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
    for cid in cids:
        c = enc.get(cid)
        s = sheet_of(c)
        if s.attack_used or s.other_used:
            enc = enc.replace(evolve(c, sheet=evolve(s, attack_used=False, other_used=False)))
    return enc


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


class FacilityRules(RuleSystem):
    system = System.FACILITY
    title = "Facility"
    sheet_type = FacilitySheet
    state_type = FacilityState
    common_rolls = {
        "add": ("roll=yes: 3d6 for each stat, Physique, Science, Insight, Admin, Normal",),
        "start": (
            "F7: the d20 of each helper (help=, in order)",
            "the initiative d20 (Insight) of the PC who rolls, unless d20= gives it",
        ),
    }
    columns = ("Status", "Marks", "Wounds")
    show_initiative = False  # Facility turns go by side, not by number (F7)

    def new_sheet(self, call: Call) -> Any:
        from facility_tui.systems.facility.commands import sheet_from_options

        return sheet_from_options(call)

    def set_value(self, call: Call) -> Encounter:
        """C4: ``set WHO FIELD VALUE`` is ``sheet WHO FIELD=VALUE``."""
        from facility_tui.systems.facility.commands import set_field

        return set_field(call)

    def begin_combat(self, call: Call) -> Encounter:
        """F7: the PC with the highest unimpaired Insight rolls Insight (others may Help).
        Options: ``first=pc|enemy`` or ``outcome=success|failure|partial`` (C4 overrides),
        ``by=WHO`` (another roller), ``help=A,B``, ``d20=N`` (a typed die), ``tn=N``,
        ``vanguard=WHO`` (for a Partial)."""
        from facility_tui.systems.facility.commands import helpers_from, roll_check

        st = state_of(call.enc)
        call.enc = with_state(call.enc, partial=False, vanguard="", first=PCS, pending=())
        vanguard_opt = call.option("vanguard")
        vanguard = check_vanguard(call.enc, vanguard_opt, call).id if vanguard_opt else ""
        first_opt = call.option("first")
        outcome = (call.option("outcome") or "").lower()
        tn = call.int_option("tn", "initiative TN", st.tn, minimum=1)
        by = call.option("by")
        help_text = call.option("help")
        d20_text = call.option("d20")
        if first_opt:
            first = side_of(first_opt)
            call.log(
                f"Initiative set by the GM: {self.slot_name(call.enc, first)} first", Kind.OVERRIDE
            )
            return with_state(call.enc, first=first)
        if outcome:
            if outcome not in ("success", "failure", "partial"):
                raise CommandError("outcome must be success, failure or partial")
            call.log(f"Initiative outcome set by the GM: {outcome}", Kind.OVERRIDE)
        else:
            roller = check_vanguard(call.enc, by, call) if by else initiative_roller(call.enc)
            if roller is None:
                call.log("No PC with unimpaired Insight can roll initiative: enemies first")
                return with_state(call.enc, first=ENEMIES)
            tied = initiative_candidates(call.enc)
            if not by and len(tied) > 1:
                names = ", ".join(c.name for c in tied)
                call.log(
                    f"Tie for the highest Insight ({signed(sheet_of(roller).ins.bonus)}): "
                    f"{names}; the players choose. The tracker proposes {roller.name}; for "
                    "another: undo, then start by=WHO"
                )
            elif by:
                call.log(f"{roller.name} rolls initiative (named by the GM)", Kind.OVERRIDE)
            if impaired(sheet_of(roller), "ins"):
                raise CommandError(f"{roller.name}'s Insight is Impaired: pick another with by=")
            helpers = helpers_from(call, help_text, roller, "ins", insight_only=True)
            ok = roll_check(call, roller, "ins", tn, 0, False, helpers, d20_text, "initiative")
            outcome = "success" if ok else "failure"
            if not ok:
                call.enc = set_pending(
                    call.enc, Pending(who=roller.id, step=Step.INITIATIVE, stat="ins", tn=tn)
                )
        if outcome == "success":
            call.log("Initiative: the PCs' side goes first")
            return with_state(call.enc, first=PCS)
        if outcome == "partial":
            return apply_partial(call, vanguard)
        call.log("Initiative: the enemies go first ('salvage' may turn it into a Partial Success)")
        return with_state(call.enc, first=ENEMIES, vanguard=vanguard)

    def round_order(self, enc: Encounter, dice: Dice) -> Encounter:
        st = state_of(enc)
        if enc.round == 1 and st.partial:
            return evolve(enc, order=(VANGUARD, ENEMIES, PCS))
        first = st.first
        return evolve(enc, order=(first, ENEMIES if first == PCS else PCS))

    def round_started(self, enc: Encounter, dice: Dice) -> Encounter:
        if enc.round == 2:
            st = state_of(enc)
            # the initiative roll can no longer be salvaged
            enc = with_state(enc, pending=tuple(p for p in st.pending if p.step != Step.INITIATIVE))
        return enc

    def turn_started(self, enc: Encounter, slot: str, dice: Dice) -> Encounter:
        """F7: a side's members get their two marks (attack, other action) back."""
        st = state_of(enc)
        if slot == VANGUARD:
            if not st.vanguard:
                return enc.logged("Elect the vanguard PC: vanguard WHO")
            return reset_marks(enc, [st.vanguard])
        if slot not in (PCS, ENEMIES):
            return enc
        side = members(enc, slot)
        able = [c.id for c in side if can_act(sheet_of(c))]
        skip = st.vanguard if (enc.round == 1 and st.partial and slot == PCS) else ""
        enc = reset_marks(enc, [cid for cid in able if cid != skip])
        if skip and enc.has(skip):
            c = enc.get(skip)
            enc = enc.replace(
                evolve(c, sheet=evolve(sheet_of(c), attack_used=True, other_used=True))
            )
            enc = enc.logged(f"{c.name} acted as the vanguard and skips this turn")
        out = [c for c in side if c.id not in able]
        if out:
            names = ", ".join(f"{c.name} ({condition(sheet_of(c)).value})" for c in out)
            enc = enc.logged(f"Cannot act: {names}")
        if side and not able:
            enc = enc.logged(f"No one on the {self.slot_name(enc, slot)} can act: 'end' to finish")
        return enc

    def can_act(self, enc: Encounter, slot: str) -> bool:
        """F7: a side turn passes by itself when none of its members can act (the vanguard's
        turn waits for the election)."""
        st = state_of(enc)
        if slot == VANGUARD:
            return (
                not st.vanguard
                or not enc.has(st.vanguard)
                or can_act(sheet_of(enc.get(st.vanguard)))
            )
        skip = st.vanguard if (enc.round == 1 and st.partial and slot == PCS) else ""
        return any(can_act(sheet_of(c)) for c in members(enc, slot) if c.id != skip)

    def slot_name(self, enc: Encounter, slot: str) -> str:
        if slot == VANGUARD:
            v = state_of(enc).vanguard
            return f"Vanguard {enc.get(v).name}" if v and enc.has(v) else "Vanguard (to elect)"
        return {PCS: "PCs' side", ENEMIES: "Enemies' side"}.get(slot, slot)

    def removed(self, enc: Encounter, cid: str) -> Encounter:
        st = state_of(enc)
        return with_state(
            enc,
            pending=tuple(p for p in st.pending if cid not in (p.who, p.target)),
            harms=tuple(h for h in st.harms if h.who != cid),
            vanguard="" if st.vanguard == cid else st.vanguard,
        )

    # -- what the panes show ------------------------------------------------------------------

    def summary(self, enc: Encounter, c: Combatant) -> dict[str, Any]:
        s = sheet_of(c)
        cond = condition(s)
        if cond is Condition.IMPAIRED:
            status = f"Impaired {impaired_count(s)}"
        else:
            status = cond.value.capitalize() if cond is not Condition.OK else "ok"
        return {
            "Status": status,
            "Marks": marks_text(enc, c),
            "Wounds": wounds_short(s),
            "Impaired": impaired_count(s) if not simple(s) else 0,
            "Saves": " ".join(f"{k[0].upper()}{signed(save_value(s, k))}" for k in SAVES),
        }

    def details(self, enc: Encounter, c: Combatant) -> list[Detail]:
        s = sheet_of(c)
        out: list[Detail] = []
        cond = condition(s)
        status = cond.value.capitalize()
        if cond in (Condition.IMPAIRED, Condition.INCAPACITATED, Condition.DEAD):
            status += f" ({impaired_count(s)} Impaired)"
        if s.overrule:
            status += " — alive by alternate arrangements"
        out.append(Detail("Status", status))
        if s.job:
            out.append(Detail("Job", s.job))
        if simple(s):
            track = f"{bar(s.track_wounds, s.track)} {s.track_wounds}/{s.track}"
            out.append(Detail("Wounds", track))
        else:
            ppe_imp = ppe_impaired(s)
            for key in STATS:
                st = stat_of(s, key)
                cap = capacity(st)
                line = f"{signed(st.bonus)}  {bar(st.wounds, cap)} {st.wounds}/{cap}"
                tags = []
                if wound_impaired(st):
                    tags.append("Impaired")
                elif key in ppe_imp:
                    tags.append("Impaired by PPE")
                if has_expertise(st):
                    tags.append("Expertise")
                if st.scars:
                    tags.append(f"{st.scars} scar{'s' if st.scars > 1 else ''}")
                tone = Tone.BAD if wound_impaired(st) or key in ppe_imp else Tone.PLAIN
                out.append(Detail(STAT_NAMES[key], "  ".join([line, *tags]), tone))
        if not s.is_object:
            out.append(Detail("Marks", marks_text(enc, c) or "-"))
            saves = " · ".join(f"{k.capitalize()} {signed(save_value(s, k))}" for k in SAVES)
            out.append(Detail("Saves", saves))
        for p in s.ppe:
            item = p.item
            what = ", ".join(TAGS.get(h, h) for h in sorted(item.covers))
            state = "exhausted" if not p.protects else f"{p.marks}/{item.rating} marks"
            extra = f" — {item.notes}" if item.notes else ""
            out.append(Detail("PPE", f"{item.name} {state} ({what}){extra}"))
        for w in s.weapons:
            wpn = WEAPONS.get(w)
            dmg = wpn.damage if wpn else w
            empty = " out of ammo" if w in s.empty else ""
            tone = Tone.BAD if w in s.empty else Tone.PLAIN
            out.append(Detail("Weapon", f"{wpn.name if wpn else w} {dmg}{empty}", tone))
        if s.parts or s.job == "Maintenance Technician":
            out.append(Detail("Spare Parts", f"{s.parts} slots, Clearance L{s.clearance}"))
        if s.items:
            room = f" ({s.pockets} pockets, {s.slots} slots)"
            out.append(Detail("Carries", ", ".join(s.items) + room))
        waiting = pending_of(enc, c.id)
        if waiting is not None:
            out.append(Detail("Pending", pending_text(waiting)))
        h = harm_of(enc, c.id)
        if h is not None:
            out.append(Detail("Pending", f"{h.wounds} {h.hazard} wounds: ablate or suffer"))
        return out


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
    }[p.step]


def restart_round_one(call: Call) -> Encounter:
    """After an initiative Salvage turns into a Partial: round 1 opens again with the vanguard."""
    enc = evolve(call.enc, order=(VANGUARD, ENEMIES, PCS), turn=0)
    return rounds.start_turn(enc, call.dice, call.rules)
