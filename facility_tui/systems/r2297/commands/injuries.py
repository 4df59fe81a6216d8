"""2297 hits, injuries and healing: damage through armor (A6–A8), Edge to soak an injury (A7),
first aid, stabilizing and restored Health (A10).
"""

from __future__ import annotations

from collections.abc import Callable

from attrs import frozen

from facility_tui.commands.grammar import CommandError
from facility_tui.commands.spec import Call
from facility_tui.model.encounter import Combatant, Encounter, Kind, Phase, evolve
from facility_tui.systems.r2297.commands.helpers import rule, sheet, who
from facility_tui.systems.r2297.engine import Ctx, remove_effects
from facility_tui.systems.r2297.hits import apply_hit, hit_preview, lower_injury, replace_injury
from facility_tui.systems.r2297.rules import AID_TN, DamageType, Level, parse_ap, parse_type
from facility_tui.systems.r2297.sheet import EKind, Injury


@frozen
class HitLine:
    """What a ``hit`` line says: who, the raw damage (its text: a number or dice), the type,
    armor piercing, and whether it is already through armor."""

    who: Combatant
    damage: str
    kind: DamageType
    ap: tuple[int, int]
    through: bool


def read_hit(call: Call) -> HitLine:
    call.need_phase(Phase.SETUP, Phase.ACTIVE)
    c = who(call)
    text = call.arg(1, "the raw damage (a number or dice like 3d6+2)")
    words = [w.lower() for w in call.args[2:]]
    through = "through" in words
    kinds = [w for w in words if w != "through"]
    if len(kinds) > 1 or words.count("through") > 1:
        raise call.usage_error(f"unexpected '{' '.join(call.args[2:])}' after the damage")
    kind_text = call.option("type") or (kinds[0] if kinds else "physical")
    kind = parse_type(kind_text)
    if through and call.has("ap"):
        raise CommandError(
            "ap= pierces armor: damage already through armor has none left to pierce"
        )
    return HitLine(c, text, kind, parse_ap(call.option("ap", "0") or "0"), through)


def preview_hit(call: Call) -> list[str]:
    """A6–A8 before the hit: what gets through, the level, its effects (dice named, not rolled);
    damage typed as dice is rolled only when the line runs."""
    h = read_hit(call)
    call.check_options()
    if not h.damage.lstrip("-").isdigit():
        dice = call.dice_text(h.damage, f"Damage to {h.who.name}")
        return [f"{dice}: rolled on Enter, then through armor"]
    raw = call.number(h.damage, f"Damage to {h.who.name}", minimum=0)
    return [hit_preview(sheet(h.who), raw, h.kind, *h.ap, through=h.through)]


@rule(
    "hit",
    "hit WHO DAMAGE [physical|stun|energy] [through] [type=...] [ap=PT|PT/DR]",
    "A6–A8: apply a hit's raw damage (number or dice) through armor; 'through': the damage has "
    "been through armor already (A6 skipped)",
    aliases=("h",),
    rolls=(
        "DAMAGE, when dice are typed for it",
        "Light: initiative reduction 1d6",
        "Moderate: initiative reduction 2d6, Disadvantage rounds 1d6+1",
        "Serious: initiative reduction 2d6, bleeding rounds 1d6+1",
        "Lethal, or damage reaching twice Health: death countdown 1d6+1",
    ),
    preview=preview_hit,
)
def hit(call: Call) -> Encounter:
    h = read_hit(call)
    raw = call.number(h.damage, f"Damage to {h.who.name}", minimum=0)
    ctx = Ctx.of(call)
    apply_hit(ctx, h.who.id, raw, h.kind, *h.ap, through=h.through)
    return ctx.enc


def pick_injury(c: Combatant, ref: str | None, ok: Callable[[Injury], bool], what: str) -> Injury:
    s = sheet(c)
    if ref is not None:
        if not ref.isdecimal():
            raise CommandError(f"injury: give its number (see the detail pane), got '{ref}'")
        found = next((i for i in s.injuries if i.id == int(ref)), None)
        if found is None:
            raise CommandError(f"{c.name} has no injury {ref}")
        return found
    candidates = [i for i in s.injuries if i.level.rank and ok(i)]
    if not candidates:
        raise CommandError(f"{c.name} has no injury {what}")
    return max(candidates, key=lambda i: (i.level.rank, i.id))


@rule(
    "soak",
    "soak WHO [INJURY] [no]",
    "A7: spend 1 Edge to lower an injury one step (once each); 'no' declines the offer",
)
def soak(call: Call) -> Encounter:
    c = who(call)
    s = sheet(c)
    rest = list(call.args[1:])
    decline = bool(rest) and rest[-1].lower() == "no"
    if decline:
        rest.pop()
    ref = rest[0] if rest else None
    call.expect_args(3 if decline else 2)
    if decline:
        return _decline(call, c, ref)
    if ref is None:
        fresh = [i for i in s.injuries if i.level.rank and not i.soaked and not i.aided]
        if not fresh:
            raise CommandError(f"{c.name} has no injury Edge can still lower")
        injury = fresh[-1]
    else:
        injury = pick_injury(c, ref, lambda i: True, "")
    if injury.soaked:
        raise CommandError(f"Edge was already spent on {c.name}'s injury {injury.id}")
    if injury.aided:
        raise CommandError(f"{c.name}'s injury {injury.id} had first aid; Edge no longer applies")
    if not injury.level.rank:
        raise CommandError(f"{c.name}'s injury {injury.id} is healed already")
    if s.edge < 1:
        raise CommandError(f"{c.name} has no Edge left")
    ctx = Ctx.of(call)
    ctx.put(c.id, edge=s.edge - 1)
    ctx.log(f"{c.name} spends 1 Edge ({s.edge - 1} left)")
    lower_injury(ctx, c.id, injury)
    return ctx.enc


def _decline(call: Call, c: Combatant, ref: str | None) -> Encounter:
    """A7: the Edge offered for an injury is not spent: the injury stands as it is."""
    offered = [i for i in sheet(c).injuries if i.offered]
    if ref is not None:
        offered = [i for i in offered if str(i.id) == ref]
    if not offered:
        raise CommandError(f"{c.name} has no Edge offer open to decline")
    ctx = Ctx.of(call)
    ids = {i.id for i in offered}
    ctx.edit(
        c.id,
        lambda s: evolve(
            s, injuries=tuple(evolve(i, offered=False) if i.id in ids else i for i in s.injuries)
        ),
    )
    words = ", ".join(f"{i.level.word} injury {i.id}" for i in offered)
    ctx.log(f"{c.name} keeps Edge: {words} stands")
    return ctx.enc


def heal(ctx: Ctx, cid: str, amount: int, why: str) -> None:
    """A10: restored Health comes off physical + energy first, then off stun."""
    s = ctx.sheet(cid)
    off_damage = min(amount, s.damage)
    off_stun = min(amount - off_damage, s.stun)
    s = ctx.put(cid, damage=s.damage - off_damage, stun=s.stun - off_stun)
    ctx.log(
        f"{ctx.name(cid)} regains {off_damage + off_stun} Health ({why}): damage {s.damage} "
        f"+ stun {s.stun} = {s.total}/{s.hlt}",
        Kind.EFFECT,
    )


def aided_injury(call: Call, c: Combatant) -> Injury:
    """A10: the injury first aid goes to (``injury=N``, or the worst one not yet aided)."""
    s = sheet(c)
    if not any(i.level.rank for i in s.injuries):
        raise CommandError(f"{c.name} has no injury to give first aid to")
    if call.option("injury") is None and all(i.aided for i in s.injuries if i.level.rank):
        raise CommandError(
            f"{c.name}'s injuries already had first aid; only a new injury can be aided"
        )
    injury = pick_injury(c, call.option("injury"), lambda i: not i.aided, "left without first aid")
    if injury.aided:
        raise CommandError(
            f"{c.name}'s injury {injury.id} already had first aid; only a new injury can be aided"
        )
    if not injury.level.rank:
        raise CommandError(f"{c.name}'s injury {injury.id} is healed already")
    return injury


def preview_aid(call: Call) -> list[str]:
    """A10 before the check: the injury aided and its TN; with the Medic total typed, what it
    comes to (the level it lowers to, or a failure)."""
    c = who(call)
    call.expect_args(2)
    injury = aided_injury(call, c)
    call.check_options()
    tn = AID_TN[injury.level]
    said = f"{injury.level.word} injury {injury.id}: TN {tn}"
    check = call.args[1] if len(call.args) > 1 else ""
    if not check.isdigit():
        return [said + (" (the Medic total: a number or dice)" if not check else "")]
    total = call.number(check, f"{c.name} first aid (Medic)")
    if total < tn:
        return [f"{said} · {total} fails: it may be tried again"]
    new = injury.level.lowered()
    return [f"{said} · {total} → {new.word if new.rank else 'healed'} (MoS {total - tn})"]


@rule(
    "aid",
    "aid WHO MEDIC [injury=N]",
    "A10: first aid: the Medic total (number or dice) against the injury's TN",
    preview=preview_aid,
)
def aid(call: Call) -> Encounter:
    c = who(call)
    check = call.arg(1, "the Medic check total (a number, or dice like 2d10+8)")
    call.expect_args(2)
    injury = aided_injury(call, c)
    total = call.number(check, f"{c.name} first aid (Medic)")
    tn = AID_TN[injury.level]
    mos = total - tn
    ctx = Ctx.of(call)
    level = injury.level
    if mos < 0:
        ctx.log(
            f"First aid on {c.name}'s {level.word} injury fails ({total} vs TN {tn}); "
            "it may be tried again",
            Kind.EFFECT,
        )
        return ctx.enc
    new = level.lowered()
    ctx.log(
        f"First aid on {c.name}: {total} vs TN {tn} (MoS {mos}) — {level.word} → "
        f"{new.word if new.rank else 'healed'}",
        Kind.EFFECT,
    )
    src = injury.id
    if level is Level.LIGHT:
        roll = ctx.roll("1d6", f"{c.name} first aid Health", c.id)
        heal(ctx, c.id, roll.total + min(3, mos // 5), "first aid")
    elif level is Level.MODERATE:
        heal(ctx, c.id, min(3, 1 + mos // 5), "first aid")
        if remove_effects(ctx, c.id, lambda e: not (e.source == src and e.kind is EKind.DISADV)):
            ctx.log(f"{c.name}: the timed Disadvantage ends", Kind.EFFECT)
    elif level is Level.SERIOUS:
        gone = remove_effects(
            ctx,
            c.id,
            lambda e: (
                not (
                    e.source == src
                    and (e.kind is EKind.BLEED or (e.kind is EKind.DISADV and e.medical))
                )
            ),
        )
        if gone:
            ctx.log(f"{c.name}: bleeding stops; Disadvantage until medical care ends", Kind.EFFECT)
    elif level is Level.CRITICAL:
        if remove_effects(ctx, c.id, lambda e: not (e.source == src and e.kind is EKind.BLEED)):
            ctx.log(f"{c.name}: bleeding stops", Kind.EFFECT)
    elif level is Level.LETHAL and remove_effects(
        ctx,
        c.id,
        lambda e: e.kind is not EKind.DEATH,  # A7/A8: the one dying state
    ):
        ctx.log(
            f"{c.name} is stabilized: the death countdown stops (still needs intensive care)",
            Kind.EFFECT,
        )
    replace_injury(ctx, c.id, evolve(injury, level=new, aided=True))
    return ctx.enc


@rule(
    "stabilize",
    "stabilize WHO",
    "Stop all bleeding and death countdowns (GM ruling)",
    aliases=("stab",),
)
def stabilize(call: Call) -> Encounter:
    c = who(call)
    call.expect_args(1)
    ctx = Ctx.of(call)
    gone = remove_effects(ctx, c.id, lambda e: e.kind not in (EKind.BLEED, EKind.DEATH))
    if not gone:
        raise CommandError(f"{c.name} is neither bleeding nor dying")
    ctx.log(f"{c.name} is stabilized by the GM: bleeding and death countdowns stop", Kind.OVERRIDE)
    return ctx.enc


@rule("heal", "heal WHO AMOUNT", "A10: restore Health (off physical + energy, then stun)")
def heal_cmd(call: Call) -> Encounter:
    c = who(call)
    amount = call.number(call.arg(1, "how much Health"), f"{c.name} healing", minimum=0)
    call.expect_args(2)
    ctx = Ctx.of(call)
    heal(ctx, c.id, amount, "healing")
    return ctx.enc


ROLLS: dict[str, tuple[str, ...]] = {  # the rolls each command can make, in order
    "soak": ("what inflicting the lowered level rolls (as hit)",),
    "aid": ("MEDIC, when dice are typed for it", "Light: first aid Health 1d6"),
    "heal": ("AMOUNT, when dice are typed for it",),
}
