"""2297 turns and rounds (A2, A3, C2): the round's order by effective initiative with its ties
rolled off, what a turn's start and end do to the acting combatant (its turn counted, bleeding and
death ticking, the band of its turn, effects running out), and what a round's end counts.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from facility_tui.commands.dice import Dice
from facility_tui.commands.grammar import CommandError
from facility_tui.model.encounter import Combatant, Encounter, Kind, Phase, evolve
from facility_tui.model.text import in_order
from facility_tui.systems.base import Turns
from facility_tui.systems.r2297.engine import (
    FRESH_TURN,
    Ctx,
    describe,
    disadvantaged,
    drop_effect,
    economy,
    effective_initiative,
    init_locked,
    offers_open,
    pins_kept,
    remove_effects,
    roll_initiative,
    sheet_of,
    swap_effect,
    tired,
)
from facility_tui.systems.r2297.hits import add_damage
from facility_tui.systems.r2297.rules import EXHAUSTED, tiredness
from facility_tui.systems.r2297.sheet import BLEED, COND, DEATH, Awareness, Effect, EKind, Sheet2297

if TYPE_CHECKING:
    from facility_tui.commands.spec import Call

PASSES = 12  # tie roll-off passes; 11**12 * 10 stays far inside TOML's 64-bit integers


class Turns2297(Turns):
    """Each combatant's own turn, in the round's order of effective initiative (A3)."""

    def listed(self, enc: Encounter) -> list[Combatant]:
        """Active: this round's order, then those not in it; setup: by initiative, then AG, CU,
        then name, its numbers by value (Goon 2 before Goon 10). In a save from before handles,
        where ``#3`` is a place in this list, names as text, as the list was then."""
        name: Callable[[str], Any] = in_order if enc.numbered else str
        position = {cid: i for i, cid in enumerate(enc.order)}
        if enc.phase is not Phase.SETUP and position:
            return sorted(
                enc.combatants,
                key=lambda c: (position.get(c.id, len(position)), -c.initiative, name(c.name)),
            )
        return sorted(
            enc.combatants,
            key=lambda c: (-c.initiative, -sheet_of(c).ag, -sheet_of(c).cu, name(c.name)),
        )

    def begin_combat(self, call: Call) -> Encounter:
        """A2: Unaware combatants are Surprised until the start of their first turn in round 2."""
        ctx = Ctx.of(call)
        for c in ctx.enc.combatants:
            s = sheet_of(c)
            if s.awareness is Awareness.UNAWARE and not s.has("surprised"):
                effect = Effect(EKind.COND, "surprised", until_round=2)
                ctx.put(c.id, effects=(*s.effects, effect))
                ctx.log(
                    f"{c.name} is Unaware: no actions in round 1, no Reactions until its "
                    "turn in round 2",
                    Kind.EFFECT,
                )
            elif s.awareness is Awareness.PARTIAL:
                ctx.log(f"{c.name} is only Partially aware", Kind.EFFECT)
        return ctx.enc

    def round_order(self, enc: Encounter, dice: Dice) -> Encounter:
        """A3: effective initiative of each combatant's turn in this round; ties AG, CU, d10.

        Each pass reads a sheet once and changes only what must change: at 1,000 combatants a
        round's start is one key press, and most combatants have nothing to do in most passes.
        (The passes stay apart: their rolls and lines come in this order.)"""
        ctx = Ctx(enc, dice)
        for c in enc.combatants:
            s = sheet_of(c)
            if s.reaction_used:
                ctx.put(c.id, reaction_used=False)
            if s.refocus >= 0:
                ctx.update(c.id, initiative=s.refocus)
                ctx.put(c.id, refocus=-1, rolled=True)
                ctx.log(f"{c.name}: new initiative {s.refocus} (Refocus) from this round")
        for c in ctx.enc.combatants:
            s = sheet_of(c)
            if not s.rolled and c.initiative == 0 and not s.dead:
                value = roll_initiative(ctx, c.id)
                ctx.update(c.id, initiative=value)
                ctx.put(c.id, rolled=True)
        for c in ctx.enc.combatants:
            s = sheet_of(c)
            if not s.boost_pending:
                continue
            if init_locked(s):
                ctx.put(c.id, boost_pending=False)
                ctx.log(
                    f"{c.name}'s Edge boost has no effect: {init_locked(s)}, initiative cannot "
                    "rise (A9)",
                    Kind.EFFECT,
                )
            else:
                boost = ctx.roll("2d6", f"{c.name} Edge boost", c.id).total
                ctx.put(c.id, boost=boost, boost_round=enc.round, boost_pending=False)
        expire_pins_of_the_dead(ctx)
        rnd = ctx.enc.round
        alive: list[Combatant] = []
        eff: dict[str, int] = {}
        for c in ctx.enc.combatants:
            s = sheet_of(c)
            if not s.dead:
                alive.append(c)
                eff[c.id] = effective_initiative(s, c.initiative, s.turns + 1, rnd)
        if self._break_ties(ctx, alive, eff):
            alive = [ctx.combatant(c.id) for c in alive]
        keys = {}
        for c in alive:
            s = sheet_of(c)
            keys[c.id] = (-eff[c.id], -s.ag, -s.cu, -s.tiebreak)
        alive.sort(key=lambda c: keys[c.id])
        if enc.keeps_log:  # (a forecast's play reads no log: the line is not written)
            shown = ", ".join(f"{c.name} {eff[c.id]}" for c in alive)
            ctx.log(f"Round {enc.round} order: {shown or 'no one'}", Kind.TURN)
        return evolve(ctx.enc, order=tuple(c.id for c in alive))

    @staticmethod
    def _break_ties(ctx: Ctx, alive: list[Combatant], eff: dict[str, int]) -> bool:
        """A3: a d10 roll-off, kept so the order stays stable; tied roll-offs are rolled again.
        True when a roll-off was rolled (a sheet changed).

        Only those still tied roll again, and a new roll only orders them among themselves: each
        pass scales the group's kept values by 11 before adding the new d10s, so an earlier
        roll-off always outranks a later one. More than ten tied need several passes, never an
        endless re-roll; after ``PASSES`` the rest keep the order they are listed in."""
        groups: dict[tuple[int, int, int], list[Combatant]] = {}
        for c in alive:
            s = sheet_of(c)
            groups.setdefault((eff[c.id], s.ag, s.cu), []).append(c)
        rolled = False
        for group in groups.values():
            if len(group) < 2:
                continue
            values = [sheet_of(c).tiebreak for c in group]  # (no sheet of theirs changed yet)
            if 0 not in values and len(set(values)) == len(values):
                continue  # (told apart in an earlier round: the usual case)
            members = [c.id for c in group]
            for _ in range(PASSES):
                seen = Counter(values)
                redo = {m for m, v in zip(members, values, strict=True) if v == 0 or seen[v] > 1}
                if not redo:
                    break
                rolled = True
                for m, v in zip(members, values, strict=True):
                    extra = (
                        ctx.roll("1d10", f"{ctx.name(m)} tie roll-off", m).total if m in redo else 0
                    )
                    ctx.put(m, tiebreak=v * 11 + extra)
                values = [ctx.sheet(m).tiebreak for m in members]
        return rolled

    def round_started(self, enc: Encounter, dice: Dice) -> Encounter:
        """A9: a stim patch's pending Grit check is due (each patch at its own time)."""
        for c in enc.combatants:
            for p in sheet_of(c).pending_patches:
                if p.due_round == enc.round:
                    enc = enc.logged(
                        f"{c.name}: Grit check of stim patch {p.id} (R{p.rating}) vs TN {p.tn} "
                        f"is due now: grit {c.id} TOTAL patch={p.id}",
                        Kind.EFFECT,
                    )
        return enc

    def round_ended(self, enc: Encounter, dice: Dice) -> Encounter:
        """A11: an unused Overwatch ends at the end of the round; A9: idle rounds of the
        Exhausted are counted (every 10th offers fatigue −1 for the GM to confirm)."""
        ctx = Ctx(enc, dice)
        for c in enc.combatants:
            s = sheet_of(c)
            # (most have no Overwatch, and most no effect at all: a round's end at 1,000
            # combatants is one key, and a play's rounds end by the hundred)
            if s.effects and _overwatching(s.effects):
                remove_effects(ctx, c.id, lambda e: not _overwatch(e))
                ctx.log(f"{c.name}'s unused Overwatch ends (end of round {enc.round})", Kind.EFFECT)
            # (only the Exhausted count idle rounds; ``tired`` written out: every sheet, round)
            if not s.dead and tiredness(s.fatigue, s.sta) is EXHAUSTED:
                count_idle_round(ctx, c.id)
        return ctx.enc

    def turn_started(self, enc: Encounter, slot: str, dice: Dice) -> Encounter:
        if not enc.has(slot):
            return enc
        ctx = Ctx(enc, dice)
        begin_turn(ctx, slot)
        return ctx.enc

    def turn_ended(self, enc: Encounter, slot: str, dice: Dice) -> Encounter:
        if not enc.has(slot):
            return enc
        ctx = Ctx(enc, dice)
        end_turn(ctx, slot)
        lapse_offers(ctx)
        return ctx.enc

    def turn_passed_on(self, enc: Encounter, slot: str, dice: Dice) -> Encounter | None:
        """``turn_ended``, the marker moved on and ``turn_started`` in one ``Ctx``: the
        encounter made once, not after each."""
        turn = enc.turn + 1
        ctx = Ctx(enc, dice, last=True)  # (the last hook of a play's next)
        if ctx.has(slot):
            end_turn(ctx, slot)
            lapse_offers(ctx)
        ctx.move_to(turn)
        following = enc.order[turn]
        if ctx.has(following):
            begin_turn(ctx, following)
        return ctx.enc

    def can_act(self, enc: Encounter, slot: str) -> bool:
        """A4: a combatant with no action at all (unconscious, dying, Unaware in round 1...)."""
        try:
            c = enc.get(slot)
        except KeyError:  # (no such combatant: one look-up, not two)
            return False
        return not sheet_of(c).dead and economy(enc, c).cap != 0

    def idle_reason(self, enc: Encounter, slot: str) -> str:
        """A4: the limit that leaves it no action (dead, dying, unconscious, surprised...)."""
        if not enc.has(slot):
            return ""
        c = enc.get(slot)
        return "dead" if sheet_of(c).dead else economy(enc, c).limit

    def removed(self, enc: Encounter, cid: str) -> Encounter:
        ctx = Ctx(enc, Dice(enc.seed, enc.rolls))
        for c in enc.combatants:
            remove_effects(ctx, c.id, lambda e: e.by != cid)
        return ctx.enc

    def initiative_from_face(self, call: Call, c: Combatant, face: str) -> int:
        """A3: ``init WHO face=N``: N is what the Xd6 showed; the tracker adds AG + CU (never
        below 0)."""
        s = sheet_of(c)
        n = call.number(face, f"{c.name} initiative dice ({s.dice}d6)", minimum=s.dice)
        if n > 6 * s.dice:
            raise CommandError(
                f"face={n}: {s.dice}d6 shows {s.dice} to {6 * s.dice} (the tracker adds AG + CU)"
            )
        value = max(0, n + s.ag + s.cu)
        call.log(f"{c.name} initiative: {s.dice}d6 showed {n} {s.ag + s.cu:+d} (AG + CU) = {value}")
        return value

    def initiative_set(self, enc: Encounter, cid: str) -> Encounter:
        """C4: a typed initiative wins over a pending roll (``rollinit`` or Refocus in combat)."""
        c = enc.get(cid)
        s = sheet_of(c)
        if s.refocus >= 0:
            enc = enc.logged(
                f"{c.name}: the pending roll ({s.refocus}) is dropped: the GM's {c.initiative} "
                "counts from the next round",
                Kind.OVERRIDE,
            )
        return enc.update_sheet(cid, rolled=True, refocus=-1)


# -- what a turn's start and end do (C2, C6), and a round's end (A9) ------------------------------


def expire_pinned_by(ctx: Ctx, cid: str, why: str = "acts") -> None:
    """A11 (Decision): Pinned lasts until the start of the pinning attacker's next turn (a
    Reaction does not end it)."""
    cs = ctx.combatants
    if not pins_kept(cs):  # (no one is pinned: most turns' starts)
        return
    pinned = []
    for c in cs:  # (a loop: a turn's start scans every combatant)
        for e in c.sheet.effects:
            if e.by == cid:
                pinned.append(c)
                break
    for c in pinned:  # only those it pins: a turn costs O(combatants), not O(combatants²)
        gone = remove_effects(ctx, c.id, lambda e: e.by != cid)
        for e in gone:
            ctx.log(f"{c.name} is no longer {e.label} ({ctx.name(cid)} {why})", Kind.EFFECT)


def expire_pins_of_the_dead(ctx: Ctx) -> None:
    """A11: a dead attacker has no next turn, so what it pinned ends as the next round starts
    (where that turn would have come at the latest)."""
    cs = ctx.enc.combatants
    if not pins_kept(cs):
        return
    for c in cs:
        if c.sheet.dead:
            expire_pinned_by(ctx, c.id, "is dead")


_TURN_START = {"turns": 0, **FRESH_TURN}  # a turn's count and marks, in the order put sets them


def begin_turn(ctx: Ctx, cid: str) -> None:
    """C2: count the turn, clear Surprised in round 2, tick bleeding and death, set the band."""
    c = ctx.combatant(cid)  # (its name and base initiative: a turn's start changes neither)
    s, name = sheet_of(c), c.name
    turn = s.turns + 1
    # (what it pinned goes first, while the encounter is as it was: the scan of every
    # combatant reads it whole; this turn's own marks change no one else's sheet)
    expire_pinned_by(ctx, cid)
    fresh = _TURN_START.copy()  # (the turn's marks as one dict, copied: no keywords merged)
    fresh["turns"] = turn
    s, rnd = ctx.sheet(cid), ctx.round
    if not _starts_anything(s.effects, rnd):
        # (nothing ends or ticks: the initiative, which reads none of the marks, is set with
        # them, one copy of the sheet, not two; most turns)
        fresh["turn_init"] = effective_initiative(s, c.initiative, turn, rnd)
        s = ctx.put_all(cid, fresh)
        if s.dead or not ctx.keeps_log:
            return
        _announce_turn(ctx, cid, name, fresh["turn_init"], s, turn)
        return
    s = ctx.put_all(cid, fresh)
    for e in s.effects:
        if e.kind is COND and e.until_round and ctx.round >= e.until_round:
            drop_effect(ctx, cid, e)
            ctx.log(f"{name} is no longer {e.label}", Kind.EFFECT)
    tick(ctx, cid)
    s = ctx.sheet(cid)
    init = effective_initiative(s, c.initiative, turn, ctx.round)
    s = ctx.put(cid, turn_init=init)
    if s.dead:
        return
    if not ctx.keeps_log:  # (the lines below are for the log alone: a play's keeps none)
        return
    _announce_turn(ctx, cid, name, init, s, turn)


def _overwatch(e: Effect) -> bool:
    return e.kind is COND and e.label == "overwatch"


def _overwatching(effects: tuple[Effect, ...]) -> bool:
    for e in effects:  # noqa: SIM110 - (a loop, not any(): no generator each time)
        if _overwatch(e):
            return True
    return False


def _starts_anything(effects: tuple[Effect, ...], rnd: int) -> bool:
    """Whether a turn's start in round ``rnd`` ends or ticks one of ``effects``: a condition
    whose round has come, a bleeding or a death countdown."""
    for e in effects:
        if (
            e.kind is BLEED
            or e.kind is DEATH
            or (e.kind is COND and e.until_round and rnd >= e.until_round)
        ):
            return True
    return False


def _announce_turn(ctx: Ctx, cid: str, name: str, init: int, s: Sheet2297, turn: int) -> None:
    """A turn's start said in the log: its actions, or that it cannot act."""
    eco = economy(ctx.enc, ctx.combatant(cid))
    if eco.cap == 0:
        ctx.log(f"{name} cannot act ({eco.limit})", Kind.EFFECT)
        return
    text = (
        f"{name}: initiative {init} ({eco.band.name}) — Major {eco.major}, Move {eco.move}, "
        f"Minor {eco.minor}"
    )
    if eco.cap > 0:
        text += f"; one action in all ({eco.limit})"
    elif eco.limit:
        text += f"; {eco.limit}"
    if disadvantaged(s, turn):
        text += "; Disadvantage"
    if s.ext_name:
        text += f"; extended '{s.ext_name}' {s.ext_step}/{s.ext_total}"
    ctx.log(text)


def tick(ctx: Ctx, cid: str) -> None:
    """C2: bleeding and death countdowns tick at the start of the turn, even if it cannot act."""
    s = ctx.sheet(cid)
    if s.dead:
        return
    name = ctx.name(cid)
    logs = ctx.keeps_log  # (the lines below are for the log alone: a play's keeps none)
    for e in s.effects:
        if e.kind is not BLEED and e.kind is not DEATH:
            continue  # (nothing ticks: most effects, passed without reading the sheet again)
        if ctx.sheet(cid).dead:
            return
        if e.kind is BLEED:
            amount = ctx.roll(e.dice, f"{name} bleeding", cid).total if e.dice else e.amount
            left = e.rounds - 1 if e.rounds else 0
            if e.rounds and left <= 0:
                drop_effect(ctx, cid, e)
                if logs:
                    ctx.log(f"{name} bleeds {amount} ({e.label}); the bleeding stops", Kind.EFFECT)
            else:
                swap_effect(ctx, cid, e, evolve(e, rounds=left))
                if logs:
                    more = f", {left} more round{'s' if left != 1 else ''}" if e.rounds else ""
                    ctx.log(f"{name} bleeds {amount} ({e.label}{more})", Kind.EFFECT)
            if amount > 0:
                add_damage(ctx, cid, amount)
        elif e.kind is DEATH:
            for current in ctx.sheet(cid).effects:  # (another kind is not equal: not compared)
                if current is e or (current.kind is DEATH and current == e):
                    break
            else:
                continue
            left = e.rounds - 1
            if left <= 0:
                remove_effects(ctx, cid, lambda x: x.kind is not DEATH)
                ctx.put(cid, dead=True)
                ctx.log(f"{name} dies ({e.label})", Kind.EFFECT)
                return
            swap_effect(ctx, cid, e, evolve(e, rounds=left))
            if logs:
                ctx.log(
                    f"{name} is dying ({e.label}): {left} round{'s' if left != 1 else ''} left",
                    Kind.EFFECT,
                )


def end_turn(ctx: Ctx, cid: str) -> None:
    """C2: "next turn" effects end with this turn; "N rounds" count down and expire at 0."""
    s = ctx.sheet(cid)
    turn = s.turns
    logs = ctx.keeps_log  # (the lines below are for the log alone: a play's keeps none)
    name = ctx.name(cid) if logs else ""  # (read for them alone: a turn's end at every next)
    kept: list[Effect] = []
    changed = False  # (an effect ended or counted down: the sheet changes)
    for e in s.effects:
        if e.kind in (BLEED, DEATH):
            kept.append(e)
        elif e.last and e.last <= turn:
            changed = True
            if logs:
                ctx.log(
                    f"{name}: {describe(evolve(e, first=0, last=0))} from {e.label} ends",
                    Kind.EFFECT,
                )
        elif e.rounds and (e.first == 0 or e.first <= turn) and e.counts_from <= turn:
            changed = True
            left = e.rounds - 1
            if left > 0:
                kept.append(evolve(e, rounds=left))
            elif logs:
                what = e.label if e.kind is COND else describe(evolve(e, rounds=0))
                src = "" if e.kind is COND else f" from {e.label}"
                ctx.log(f"{name}: {what}{src} ends", Kind.EFFECT)
        else:
            kept.append(e)
    if changed:
        s = ctx.put(cid, effects=tuple(kept))
    if s.ext_name and s.ext_turn != turn and s.ext_step:
        ctx.log(
            f"{name}: extended '{s.ext_name}' not advanced this turn ({s.ext_step}/{s.ext_total})"
        )


REST_ROUNDS = 10  # A9: fatigue −1 for every 10 full rounds without an action while Exhausted


def count_idle_round(ctx: Ctx, cid: str) -> None:
    """A9: at a round's end, an Exhausted combatant that was Exhausted all round and took no
    action (a Reaction counts as one) counts an idle round; every 10th earns fatigue −1,
    offered for the GM to confirm (``recover WHO``)."""
    s = ctx.sheet(cid)
    rnd = ctx.round
    if s.dead or tired(s) is not EXHAUSTED or s.exhausted_round >= rnd:
        return
    if s.acted_round == rnd:
        return
    n = s.idle_turns + 1
    if n < REST_ROUNDS:
        ctx.put(cid, idle_turns=n)
        return
    s = ctx.put(cid, idle_turns=0, recover_due=s.recover_due + 1)
    ctx.log(
        f"{ctx.name(cid)} has had {REST_ROUNDS} full rounds without an action while Exhausted: "
        f"fatigue −{s.recover_due} is due for the GM to confirm: recover {cid}",
        Kind.EFFECT,
    )


def lapse_offers(ctx: Ctx) -> None:
    """A7: Edge is offered when the injury happens: an offer left open lapses with the turn
    (soak still lowers the injury later, by hand)."""
    cs = ctx.enc.combatants
    if not offers_open(cs):  # (none open: most turns' ends)
        return
    for c in cs:
        s = c.sheet
        for i in s.injuries if isinstance(s, Sheet2297) else ():
            if i.offered:
                ctx.put(c.id, injuries=tuple(evolve(i, offered=False) for i in s.injuries))
                break
