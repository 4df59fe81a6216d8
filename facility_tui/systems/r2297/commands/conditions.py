"""2297 conditions (A11): prone, pinned, surprised, unconscious or any name, timed or not."""

from __future__ import annotations

from facility_tui.commands.grammar import CommandError
from facility_tui.commands.spec import Call
from facility_tui.model.encounter import Encounter, Kind, Phase
from facility_tui.systems.r2297.commands.helpers import rule, sheet, who
from facility_tui.systems.r2297.engine import Ctx, add_effect, counts_from, remove_effects
from facility_tui.systems.r2297.sheet import Effect, EKind


@rule(
    "cond",
    "cond WHO NAME [ROUNDS] [by=WHO]",
    "A11: give a condition (prone, pinned, "
    "surprised, unconscious or any name), optionally for N rounds",
)
def cond(call: Call) -> Encounter:
    c = who(call)
    words = call.args[1:]
    if not words:
        raise CommandError("name the condition: cond WHO prone, cond WHO blinded 2")
    rounds = 0
    if len(words) > 1 and not words[-1].isalpha():
        rounds = call.number(words[-1], f"{c.name} condition rounds", minimum=1)
        words = words[:-1]
    name = " ".join(words).lower()
    by_ref = call.option("by")
    by = call.combatant(by_ref).id if by_ref else ""
    if sheet(c).has(name):
        raise CommandError(f"{c.name} is already {name}")
    if name == "pinned" and not by:
        raise CommandError(
            "Pinned lasts until the start of the attacker's next turn: cond WHO pinned by=WHO"
        )
    ctx = Ctx.of(call)
    until = (
        ctx.enc.round + 1
        if name == "surprised" and ctx.enc.phase is Phase.ACTIVE
        else (2 if name == "surprised" else 0)
    )
    since = counts_from(ctx.enc, c.id) if rounds else 0
    add_effect(
        ctx,
        c.id,
        Effect(EKind.COND, name, rounds=rounds, by=by, until_round=until, counts_from=since),
    )
    how = f" for {rounds} round{'s' if rounds != 1 else ''}" if rounds else ""
    if since:
        how += " (counted from the end of its next turn)"
    if by:
        how += f" until the start of {ctx.name(by)}'s next turn"
    ctx.log(f"{c.name} is {name}{how}", Kind.EFFECT)
    return ctx.enc


@rule("uncond", "uncond WHO NAME", "A11: remove a condition", aliases=("uc",))
def uncond(call: Call) -> Encounter:
    c = who(call)
    name = call.rest(1, "the condition to remove").lower()
    ctx = Ctx.of(call)
    gone = remove_effects(ctx, c.id, lambda e: not (e.kind is EKind.COND and e.label == name))
    if not gone:
        have = ", ".join(sheet(c).conditions()) or "none"
        raise CommandError(f"{c.name} is not {name} (conditions: {have})")
    ctx.log(f"{c.name} is no longer {name}", Kind.EFFECT)
    return ctx.enc
