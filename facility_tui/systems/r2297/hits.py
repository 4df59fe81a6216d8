"""2297 hits (A6–A8): what gets through the armor and the injury it reaches, the injury's effects
on infliction (A7), the damage totals and dying (A8), an injury lowered with Edge or set by the GM
(a change of level), and the preview the command line shows before a hit lands.
"""

from __future__ import annotations

from attrs import frozen

from facility_tui.model.encounter import Kind, evolve, maker
from facility_tui.systems.base import RuleError
from facility_tui.systems.r2297.engine import (
    Ctx,
    add_condition,
    add_effect,
    add_fatigue,
    counts_from,
    death_countdown,
    nth,
    remove_effects,
    swap_effect,
)
from facility_tui.systems.r2297.rules import (
    CRITICAL,
    INJURY_FATIGUE,
    LETHAL,
    LIGHT,
    MODERATE,
    NO_INJURY,
    SERIOUS,
    STUN,
    DamageType,
    Level,
    Mitigation,
    injury_level,
    mitigate,
)
from facility_tui.systems.r2297.sheet import (
    BLEED,
    DEATH,
    DISADV,
    INIT,
    ZERO,
    Effect,
    Injury,
    Sheet2297,
)

# (the values a hit makes, built without attrs' call per field: ``model.maker``)
_effect, _injury = maker(Effect), maker(Injury)


def already_dying(ctx: Ctx, cid: str, why: str) -> bool:
    """A7/A8 (Decision): Lethal and dying are one state: one countdown (the first rolled) and
    one +50. True, with a log line, when a countdown is already running."""
    running = death_countdown(ctx.sheet(cid))
    if running is None:
        return False
    left = f"{running.rounds} round{'s' if running.rounds != 1 else ''}"
    ctx.log(
        f"{ctx.name(cid)} is already dying ({running.label}, {left} left): {why} starts no "
        "second countdown and adds no second +50 fatigue (one state)",
        Kind.EFFECT,
    )
    return True


def start_dying(ctx: Ctx, cid: str, why: str, source: int = 0) -> None:
    """A7 Lethal, A8 twice Health: unconscious, prone, dies in 1d6+1 rounds unless stabilized."""
    add_condition(ctx, cid, "unconscious", source=source, quiet=True)
    add_condition(ctx, cid, "prone", source=source, quiet=True)
    n = ctx.roll("1d6+1", f"{ctx.name(cid)} death countdown", cid).total
    add_effect(ctx, cid, _effect(DEATH, why, rounds=n, source=source))
    ctx.log(
        f"{ctx.name(cid)} is dying ({why}): unconscious, prone, dies in {n} rounds unless "
        "stabilized",
        Kind.EFFECT,
    )


def add_damage(ctx: Ctx, cid: str, amount: int, *, stun: bool = False) -> None:
    """A8: add to the totals; crossing Health or twice Health applies its effects each time."""
    s = ctx.sheet(cid)
    before = s.total
    s = ctx.put(cid, stun=s.stun + amount) if stun else ctx.put(cid, damage=s.damage + amount)
    after, h = s.total, s.hlt
    if before < h <= after:
        if ctx.keeps_log:  # (the name read for the log alone)
            ctx.log(f"{ctx.name(cid)} is Incapacitated (damage {after} ≥ Health {h})", Kind.EFFECT)
        add_fatigue(ctx, cid, 20, "incapacitated")
        add_condition(ctx, cid, "prone")
    if before < 2 * h <= after and not already_dying(ctx, cid, "twice Health"):
        add_fatigue(ctx, cid, 50, "dying")
        start_dying(ctx, cid, f"damage {after} ≥ twice Health")


# -- injuries (A7) --------------------------------------------------------------------------------


def inflict(ctx: Ctx, cid: str, injury: Injury) -> Injury:
    """A7: apply the on-infliction effects of ``injury.level``; returns the injury as recorded."""
    level, name, src = injury.level, ctx.name(cid), injury.id
    due = ctx.sheet(cid).turns + 1  # C6: its next turn not yet started (as changed so far)
    fatigue = INJURY_FATIGUE[level]
    injury = evolve(injury, fatigue=fatigue)
    if level is NO_INJURY:
        return injury
    logs = ctx.keeps_log  # (the lines below are for the log alone: a play's keeps none)
    if logs:
        ctx.log(f"{name}: {level.word} injury", Kind.EFFECT)
    if level is LIGHT:
        amount = ctx.roll("1d6", f"{name} initiative reduction", cid).total
        add_effect(ctx, cid, _effect(INIT, "Light injury", amount, first=due, last=due, source=src))
        add_effect(ctx, cid, _effect(DISADV, "Light injury", first=due, last=due, source=src))
        if logs:
            ctx.log(
                f"{name}: initiative −{amount} and Disadvantage on its next turn (its {nth(due)})",
                Kind.EFFECT,
            )
    elif level is MODERATE:
        amount = ctx.roll("2d6", f"{name} initiative reduction", cid).total
        n = ctx.roll("1d6+1", f"{name} Disadvantage rounds", cid).total
        add_effect(
            ctx, cid, _effect(INIT, "Moderate injury", amount, first=due, last=due, source=src)
        )
        add_effect(
            ctx,
            cid,
            _effect(
                DISADV,
                "Moderate injury",
                rounds=n,
                source=src,
                counts_from=counts_from(ctx.enc, cid),
            ),
        )
        if logs:
            ctx.log(
                f"{name}: initiative −{amount} on its next turn (its {nth(due)}); Disadvantage for "
                f"{n} rounds",
                Kind.EFFECT,
            )
    elif level is SERIOUS:
        amount = ctx.roll("2d6", f"{name} initiative reduction", cid).total
        n = ctx.roll("1d6+1", f"{name} bleeding rounds", cid).total
        add_effect(
            ctx,
            cid,
            _effect(INIT, "Serious injury", amount, first=due, combat=True, source=src),
        )
        add_effect(ctx, cid, _effect(DISADV, "Serious injury", medical=True, source=src))
        add_effect(ctx, cid, _effect(BLEED, "Serious injury", 1, rounds=n, source=src))
        if logs:
            ctx.log(
                f"{name}: initiative −{amount} from its {nth(due)} turn until end of combat; "
                "Disadvantage "
                f"until medical care; one action per turn, no Reactions; bleeds 1 per round for "
                f"{n} rounds",
                Kind.EFFECT,
            )
    elif level is CRITICAL:
        add_effect(ctx, cid, _effect(ZERO, "Critical injury", first=due, combat=True, source=src))
        add_condition(ctx, cid, "prone", source=src, quiet=True)
        add_effect(ctx, cid, _effect(BLEED, "Critical injury", dice="1d6", source=src))
        if logs:
            ctx.log(
                f"{name}: initiative 0 from its {nth(due)} turn until end of combat; prone; one "
                "Minor if conscious, no Reactions; bleeds 1d6 per round until stabilized",
                Kind.EFFECT,
            )
    elif level is LETHAL:
        if already_dying(ctx, cid, "the Lethal injury"):
            return evolve(injury, fatigue=0)
        start_dying(ctx, cid, "Lethal injury", source=src)
    add_fatigue(ctx, cid, fatigue, f"{level.word} injury")
    return injury


def record_injury(ctx: Ctx, cid: str, level: Level, damage: int) -> Injury:
    s = ctx.sheet(cid)
    injury = _injury(s.next_id, level, level, ctx.round, damage)
    ctx.put(cid, next_id=s.next_id + 1)
    injury = inflict(ctx, cid, injury)
    ctx.put(cid, injuries=(*ctx.sheet(cid).injuries, injury))  # (a put: ``Ctx``'s own sheet)
    return injury


def replace_injury(ctx: Ctx, cid: str, injury: Injury) -> None:
    s = ctx.sheet(cid)
    ctx.put(cid, injuries=tuple([injury if i.id == injury.id else i for i in s.injuries]))


@frozen
class HitResult:
    mitigation: Mitigation
    level: Level
    injury: Injury | None


_hit_result = maker(HitResult)


def hit_outcome(
    s: Sheet2297,
    raw: int,
    kind: DamageType = DamageType.PHYSICAL,
    ap_pt: int = 0,
    ap_dr: int = 0,
    *,
    through: bool = False,
) -> tuple[Mitigation, Level]:
    """A6 → A7: what gets through the armor and the injury level it reaches (stun one lower):
    what ``apply_hit`` applies and the command line's preview says."""
    m = Mitigation(raw, 0, 0, raw) if through else mitigate(raw, s.armor, kind, ap_pt, ap_dr)
    level = injury_level(m.final, s.hlt)
    if kind is STUN and level is not NO_INJURY:
        level = level.lowered()
    return m, level


# A7: what each level brings on infliction, in short (its dice named, not rolled): the preview's.
LEVEL_EFFECTS = {
    Level.LIGHT: "−1d6 init, Disadv. next turn",
    Level.MODERATE: "−2d6 init, Disadv. 1d6+1 rounds",
    Level.SERIOUS: "−2d6 init, Disadv., one action, bleeds 1 for 1d6+1 rounds",
    Level.CRITICAL: "init 0, prone, one Minor, bleeds 1d6 a round",
    Level.LETHAL: "dying in 1d6+1 rounds",
}


def hit_preview(
    s: Sheet2297,
    raw: int,
    kind: DamageType = DamageType.PHYSICAL,
    ap_pt: int = 0,
    ap_dr: int = 0,
    *,
    through: bool = False,
) -> str:
    """A6–A8 in one line, before the hit is applied: "→ 9 gets through · Moderate · −2d6 init,
    Disadv. 1d6+1 rounds" (and the totals' Incapacitated / dying when it crosses them)."""
    if s.dead:
        return "dead: 'set WHO dead no' first"
    m, level = hit_outcome(s, raw, kind, ap_pt, ap_dr, through=through)
    if m.stopped:
        return f"→ stopped by armor (PT {m.pt})"
    parts = [f"→ {m.final} {'already through' if through else 'gets through'}"]
    if level is Level.NONE:
        parts.append("no injury")
    else:
        dying_now = death_countdown(s) is not None and level is Level.LETHAL
        parts.append(level.word + (" (already dying)" if dying_now else ""))
        if not dying_now:
            parts.append(LEVEL_EFFECTS[level])
    before, after, h = s.total, s.total + m.final, s.hlt
    if before < h <= after:
        parts.append(f"Incapacitated ({after}/{h})")
    if before < 2 * h <= after and death_countdown(s) is None and level is not Level.LETHAL:
        parts.append("dying: twice Health")
    return " · ".join(parts)


def apply_hit(
    ctx: Ctx,
    cid: str,
    raw: int,
    kind: DamageType = DamageType.PHYSICAL,
    ap_pt: int = 0,
    ap_dr: int = 0,
    *,
    through: bool = False,
) -> HitResult:
    """A6 → A7 → A8: mitigate, find the level, apply the injury and the damage. ``through``:
    the damage has been through armor already (the GM's figure): A6 is skipped."""
    s = ctx.sheet(cid)
    name = ctx.name(cid)
    if s.dead:
        raise RuleError(f"{name} is dead; 'set {cid} dead no' first if that was a mistake")
    m, level = hit_outcome(s, raw, kind, ap_pt, ap_dr, through=through)
    logs = ctx.keeps_log  # (the lines below are for the log alone: a play's keeps none)
    if not logs:
        pass
    elif through:
        ctx.log(
            f"Hit on {name}: {raw} {kind.value}, already through armor (A6 skipped)", Kind.EFFECT
        )
    else:
        through_text = "stopped by armor" if m.stopped else f"{m.final} gets through"
        ctx.log(
            f"Hit on {name}: {raw} {kind.value} vs PT {m.pt} DR {m.dr}% → {through_text}",
            Kind.EFFECT,
        )
    unlowered = injury_level(m.final, s.hlt)  # (stun's level is one lower: hit_outcome)
    if level is not unlowered and logs:
        ctx.log(
            f"Stun: {unlowered.word} lowered to {level.word if level.rank else 'no injury'}",
            Kind.EFFECT,
        )
    injury = None
    if level is not NO_INJURY:
        injury = record_injury(ctx, cid, level, m.final)
    if m.final > 0:
        add_damage(ctx, cid, m.final, stun=kind is STUN)
        s = ctx.sheet(cid)
        if logs:
            ctx.log(f"{name}: damage {s.damage} + stun {s.stun} = {s.total}/{s.hlt}", Kind.EFFECT)
    if injury is not None and s.edge > 0:
        injury = evolve(injury, offered=True)
        replace_injury(ctx, cid, injury)
        if logs:
            ctx.log(f"{name} may spend 1 Edge (has {s.edge}) to lower it: soak {cid}")
    return _hit_result(m, level, injury)


def lower_injury(ctx: Ctx, cid: str, injury: Injury) -> Injury:
    """A7 Edge: one step lower; the old level's effects go, the new level's are applied."""
    new_level = injury.level.lowered()
    ctx.log(
        f"{ctx.name(cid)}: {injury.level.word} injury lowered to "
        f"{new_level.word if new_level.rank else 'no injury'} with Edge",
        Kind.EFFECT,
    )
    return relevel(ctx, cid, evolve(injury, soaked=True, offered=False), new_level, "lowered")


def relevel(ctx: Ctx, cid: str, injury: Injury, new_level: Level, why: str) -> Injury:
    """An injury changes level (Edge, A7; the GM, C4): the old level's effects and fatigue go,
    the new level's are applied (with their rolls)."""
    name = ctx.name(cid)
    s = ctx.sheet(cid)
    back = injury.fatigue
    countdown = death_countdown(s)
    if (
        injury.level is Level.LETHAL
        and countdown is not None
        and countdown.source == injury.id
        and s.total >= 2 * s.hlt
    ):
        # A7/A8: the one dying state goes on (damage ≥ twice Health), with its countdown and +50
        kept = evolve(countdown, source=0, label=f"damage {s.total} ≥ twice Health")
        swap_effect(ctx, cid, countdown, kept)
        back = max(0, back - INJURY_FATIGUE[Level.LETHAL])
        ctx.log(
            f"{name} is still dying (damage {s.total} ≥ twice Health): the countdown and its "
            "+50 fatigue stay",
            Kind.EFFECT,
        )
    remove_effects(ctx, cid, lambda e: e.source != injury.id)
    if back:
        add_fatigue(ctx, cid, -back, f"{injury.level.word} injury {why}")
    changed = evolve(injury, level=new_level, fatigue=0)
    changed = inflict(ctx, cid, changed)
    replace_injury(ctx, cid, changed)
    return changed
