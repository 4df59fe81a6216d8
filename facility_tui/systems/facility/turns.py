"""Facility turns and rounds (F7): whole sides take turns, the side that goes first settled by a
PC's Insight roll at ``start`` (a Partial Success opens round 1 with a vanguard's turn); a side's
turn gives its members their two marks back, and passes by itself when none of them can act.
"""

from __future__ import annotations

from attrs import evolve

from facility_tui.commands.dice import Dice
from facility_tui.commands.grammar import CommandError
from facility_tui.commands.spec import Call, side_of
from facility_tui.model.encounter import ENEMIES, PCS, Encounter, Kind, Phase
from facility_tui.systems.base import Turns
from facility_tui.systems.facility.commands.attacks import misses_stand
from facility_tui.systems.facility.commands.helpers import helpers_from, roll_check
from facility_tui.systems.facility.engine import (
    VANGUARD,
    acting_now,
    apply_partial,
    check_vanguard,
    initiative_candidates,
    initiative_roller,
    members,
    reset_marks,
    set_pending,
    sheet_of,
    state_of,
    with_state,
)
from facility_tui.systems.facility.rules import can_act, condition, impaired, signed
from facility_tui.systems.facility.sheet import Pending, Step


class FacilityTurns(Turns):
    """Side turns (F7): the PCs' side and the enemies' side, a vanguard's turn first at times."""

    def begin_combat(self, call: Call) -> Encounter:
        """F7: the PC with the highest unimpaired Insight rolls Insight (others may Help).
        Options: ``first=pc|enemy`` or ``outcome=success|failure|partial`` (C4 overrides),
        ``by=WHO`` (another roller), ``help=A,B``, ``d20=N`` (a typed die), ``tn=N``,
        ``vanguard=WHO`` (for a Partial)."""
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
        can = set(able)
        out = [c for c in side if c.id not in can]
        if out:
            names = ", ".join(f"{c.name} ({condition(sheet_of(c)).value})" for c in out)
            enc = enc.logged(f"Cannot act: {names}")
        if side and not able:
            enc = enc.logged(f"No one on the {self.slot_name(enc, slot)} can act: 'end' to finish")
        return enc

    def turn_ended(self, enc: Encounter, slot: str, dice: Dice) -> Encounter:
        """F8: a miss left open stands once its side's turn is over."""
        side = state_of(enc).vanguard if slot == VANGUARD else slot
        if slot == VANGUARD and enc.has(side):
            side = enc.get(side).side
        return misses_stand(enc, side) if state_of(enc).pending else enc

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

    def idle_reason(self, enc: Encounter, slot: str) -> str:
        """F7: no member of the side left standing (or its vanguard down)."""
        return "its vanguard is down" if slot == VANGUARD else "no one standing"

    def attack_source(self, enc: Encounter, target: str) -> str | None:
        """F7: the acting side's first member, in list order, who can still attack and is not
        the target (the vanguard on its own turn): pressing ``d`` on each PC in turn names
        each enemy in turn, and ``harm ... by=`` spends that one's Attack mark."""
        if enc.phase is not Phase.ACTIVE or enc.current is None:
            return None
        for c in self.listed(enc):
            s = sheet_of(c)
            if c.id != target and acting_now(enc, c) and can_act(s) and not s.attack_used:
                return c.id
        return None

    def slot_name(self, enc: Encounter, slot: str) -> str:
        if slot == VANGUARD:
            v = state_of(enc).vanguard
            return f"Vanguard {enc.get(v).name}" if v and enc.has(v) else "Vanguard (to elect)"
        return {PCS: "PCs' side", ENEMIES: "Enemies' side"}.get(slot, slot)

    def removed(self, enc: Encounter, cid: str) -> Encounter:
        st = state_of(enc)
        return with_state(
            enc,
            pending=tuple(
                evolve(p, target="") if p.step is Step.BACKLASH and p.target == cid else p
                for p in st.pending
                if p.who != cid and (p.target != cid or p.step is Step.BACKLASH)
            ),
            harms=tuple(h for h in st.harms if h.who != cid),
            vanguard="" if st.vanguard == cid else st.vanguard,
        )
