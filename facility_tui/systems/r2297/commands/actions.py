"""2297 turns: awareness (A2), initiative (A3) and the action economy (A4): Major, Move, Minor,
Full, downgrade, Reaction, Overwatch, Refocus, Extended actions.
"""

from __future__ import annotations

from facility_tui.commands.grammar import CommandError
from facility_tui.commands.spec import Call
from facility_tui.model.encounter import Combatant, Encounter, Kind, Phase
from facility_tui.systems.r2297.commands.helpers import KINDS, charge, rule, sheet, turn_actor, who
from facility_tui.systems.r2297.engine import (
    Ctx,
    add_effect,
    economy,
    init_locked,
    limit_of,
    parse_awareness,
    remove_effects,
    roll_initiative,
)
from facility_tui.systems.r2297.sheet import Effect, EKind

# -- A2 awareness, A3 initiative ------------------------------------------------------------------


@rule("aware", "aware WHO full|partial|unaware", "A2: set awareness before round 1")
def aware(call: Call) -> Encounter:

    call.need_phase(Phase.SETUP)
    c = who(call)
    level = parse_awareness(call.arg(1, "full, partial or unaware"))
    call.expect_args(2)
    call.enc = call.enc.update_sheet(c.id, awareness=level)
    call.log(
        f"{c.name} is {level.value}ly aware" if level.value != "unaware" else f"{c.name} is Unaware"
    )
    return call.enc


@rule("rollinit", "rollinit [WHO]", "A3: roll Xd6+AG+CU for everyone (or one)", aliases=("ri",))
def rollinit(call: Call) -> Encounter:

    ctx = Ctx.of(call)
    targets = [who(call)] if call.args else list(call.enc.combatants)
    call.expect_args(1)
    if not targets:
        raise CommandError("no combatants yet: add NAME ag=2 cu=1")
    for c in targets:
        if sheet(c).dead:
            continue
        value = roll_initiative(ctx, c.id)
        if ctx.enc.phase is Phase.ACTIVE:
            ctx.put(c.id, refocus=value)
            ctx.log(f"{c.name}: initiative {value} counts from the next round")
        else:
            ctx.update(c.id, initiative=value)
            ctx.put(c.id, rolled=True)
    return ctx.enc


@rule("boost", "boost WHO", "A3: spend 1 Edge for +2d6 initiative at the next round start")
def boost(call: Call) -> Encounter:
    call.need_phase(Phase.SETUP, Phase.ACTIVE)
    c = who(call)
    call.expect_args(1)
    s = sheet(c)
    if s.boost_pending:
        raise CommandError(f"{c.name} already spent Edge on the next round's initiative")
    if s.edge < 1:
        raise CommandError(f"{c.name} has no Edge left")
    locked = init_locked(s)
    if locked:
        raise CommandError(
            f"{c.name}'s initiative is held at 0 ({locked}) and cannot rise: an Edge boost "
            "would do nothing"
        )
    call.enc = call.enc.update_sheet(c.id, edge=s.edge - 1, boost_pending=True)
    when = "round 1" if call.enc.phase is Phase.SETUP else f"round {call.enc.round + 1}"
    call.log(f"{c.name} spends 1 Edge ({s.edge - 1} left): +2d6 initiative in {when}", Kind.EFFECT)
    return call.enc


# -- A4 actions -----------------------------------------------------------------------------------


def spend(call: Call, kinds: tuple[str, ...], what: str, text: str = "") -> Combatant:
    """Mark actions spent on the current turn, refusing what the combatant does not have."""
    c, rest = turn_actor(call)
    return charge(call, c, kinds, what, " ".join(rest) or text)


@rule("major", "major [WHO] [TEXT]", "A4: mark a Major action spent", aliases=("ma",))
def major(call: Call) -> Encounter:
    spend(call, ("major",), "Major")
    return call.enc


@rule("move", "move [WHO] [TEXT]", "A4: mark a Move action spent", aliases=("mo",))
def move(call: Call) -> Encounter:
    spend(call, ("move",), "Move")
    return call.enc


@rule("minor", "minor [WHO] [TEXT]", "A4: mark a Minor action spent", aliases=("mi",))
def minor(call: Call) -> Encounter:
    spend(call, ("minor",), "Minor")
    return call.enc


@rule("full", "full [WHO] [TEXT]", "A4: a Full action (one Major, Move and Minor)", aliases=("fu",))
def full(call: Call) -> Encounter:
    spend(call, KINDS, "Full action")
    return call.enc


@rule(
    "down",
    "down [WHO] major|move minor|move",
    "A4: downgrade one action, once per turn",
    aliases=("dg",),
)
def down(call: Call) -> Encounter:
    c, rest = turn_actor(call)
    if len(rest) != 2:
        raise CommandError(
            "say what becomes what: down major minor, down major move, down move minor"
        )
    frm, to = (w.lower() for w in rest)
    if (frm, to) not in (("major", "move"), ("major", "minor"), ("move", "minor")):
        raise CommandError(f"cannot downgrade {frm} to {to}: Major → Move or Minor, Move → Minor")
    s = sheet(c)
    if s.downgrade:
        raise CommandError(
            f"{c.name} already downgraded an action this turn ({s.downgrade.replace('>', ' → ')})"
        )
    eco = economy(call.enc, c)
    if eco.cap == 0 and limit_of(call.enc, s)[0] == "one":
        raise CommandError(f"{c.name} cannot downgrade: its one action is spent ({eco.limit})")
    if eco.cap >= 0 and limit_of(call.enc, s)[0] != "one":
        raise CommandError(f"{c.name} cannot downgrade: {eco.limit or 'no actions'}")
    if getattr(eco, frm) < 1:
        raise CommandError(f"{c.name} has no {frm.capitalize()} action left to downgrade")
    call.enc = call.enc.update_sheet(c.id, downgrade=f"{frm}>{to}")
    after = economy(call.enc, call.enc.get(c.id))
    call.log(
        f"{c.name}: {frm.capitalize()} downgraded to {to.capitalize()} (left {after.major} "
        f"Major, {after.move} Move, {after.minor} Minor)"
    )
    return call.enc


@rule(
    "react",
    "react WHO [overwatch|TEXT]",
    "A4: mark the Reaction of this round spent",
    aliases=("re",),
)
def react(call: Call) -> Encounter:
    call.need_phase(Phase.ACTIVE)
    c = who(call)
    rest = call.args[1:]
    eco = economy(call.enc, c)
    if not eco.reaction:
        raise CommandError(f"{c.name} cannot react: {eco.why_no_reaction}")
    ctx = Ctx.of(call)
    overwatch = bool(rest) and rest[0].lower() in ("overwatch", "ow")
    if overwatch:
        if not sheet(c).has("overwatch"):
            raise CommandError(f"{c.name} is not on Overwatch: 'overwatch' on its turn sets it")
        remove_effects(ctx, c.id, lambda e: not (e.kind is EKind.COND and e.label == "overwatch"))
    ctx.put(c.id, reaction_used=True, acted_round=ctx.enc.round)
    what = "triggers Overwatch" if overwatch else "Reaction"
    note = " ".join(rest[1:] if overwatch else rest)
    ctx.log(f"{c.name}: {what}{': ' + note if note else ''} (no more Reactions this round)")
    return ctx.enc


@rule(
    "overwatch",
    "overwatch [WHO]",
    "A11: spend a Major to go on Overwatch (its Reaction triggers it)",
    aliases=("ow",),
)
def overwatch(call: Call) -> Encounter:
    c = spend(call, ("major",), "Major", "Overwatch")
    ctx = Ctx.of(call)
    add_effect(ctx, c.id, Effect(EKind.COND, "overwatch"))
    ctx.log(
        f"{c.name} is on Overwatch until the end of the round: react {c.id} overwatch",
        Kind.EFFECT,
    )
    return ctx.enc


@rule("refocus", "refocus [WHO]", "A3: Full action: reroll initiative, used from the next round")
def refocus(call: Call) -> Encounter:

    c = spend(call, KINDS, "Full action", "Refocus")
    ctx = Ctx.of(call)
    value = roll_initiative(ctx, c.id)
    ctx.put(c.id, refocus=value)
    ctx.log(f"{c.name}: Refocus → initiative {value} from the next round")
    return ctx.enc


@rule(
    "ext",
    "ext [WHO] [NAME TURNS | stop]",
    "A4: start (NAME TURNS) or advance an Extended action, one Full action per turn",
)
def extended(call: Call) -> Encounter:
    c, rest = turn_actor(call)
    s = sheet(c)
    if rest and rest[0].lower() == "stop":
        if not s.ext_name:
            raise CommandError(f"{c.name} has no Extended action going")
        call.enc = call.enc.update_sheet(c.id, ext_name="", ext_step=0, ext_total=0)
        call.log(f"{c.name} abandons '{s.ext_name}' at {s.ext_step}/{s.ext_total}")
        return call.enc
    if rest:
        if len(rest) < 2 or not rest[-1].isdecimal() or not 2 <= int(rest[-1]) <= 99:
            raise CommandError("start one with a name and its turns (2 to 99): ext Hack 3")
        if s.ext_name:
            raise CommandError(f"{c.name} is already on '{s.ext_name}': 'ext stop' first")
        name, total, step = " ".join(rest[:-1]), int(rest[-1]), 1
    else:
        if not s.ext_name:
            raise CommandError(f"{c.name} has no Extended action: ext NAME TURNS starts one")
        if s.ext_turn == s.turns:
            raise CommandError(f"{c.name} already advanced '{s.ext_name}' this turn")
        name, total, step = s.ext_name, s.ext_total, s.ext_step + 1
    call.args = [c.id]
    spend(call, KINDS, "Full action", f"{name} {step}/{total}")
    if step >= total:
        call.enc = call.enc.update_sheet(c.id, ext_name="", ext_step=0, ext_total=0, ext_turn=0)
        call.log(f"{c.name} completes '{name}' ({total} turns)", Kind.EFFECT)
    else:
        call.enc = call.enc.update_sheet(
            c.id, ext_name=name, ext_step=step, ext_total=total, ext_turn=sheet(c).turns
        )
    return call.enc


ROLLS: dict[str, tuple[str, ...]] = {  # the rolls each command can make, in order
    "rollinit": ("initiative Xd6+AG+CU of each combatant (or of WHO), in list order",),
    "refocus": ("initiative Xd6+AG+CU",),
}
