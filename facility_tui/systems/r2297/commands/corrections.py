"""2297 corrections (C4): ``set WHO FIELD VALUE`` (the ``set`` command is common to both rule
systems; it calls ``Rules2297.set_value``, which is ``set_value`` here): a value of the sheet,
the worst injury's level, a timed effect's rounds or amount, logged as a GM override.
"""

from __future__ import annotations

from attrs import evolve

from facility_tui.commands.grammar import CommandError
from facility_tui.commands.spec import Call
from facility_tui.model.encounter import Combatant, Encounter, Kind, Phase
from facility_tui.systems.r2297.commands.helpers import KINDS, catalog, sheet, who, yes_no
from facility_tui.systems.r2297.engine import (
    Ctx,
    describe,
    drop_effect,
    economy,
    parse_awareness,
    remove_effects,
    swap_effect,
)
from facility_tui.systems.r2297.hits import inflict, relevel, replace_injury
from facility_tui.systems.r2297.rules import Level, parse_armor, parse_level
from facility_tui.systems.r2297.sheet import LEAST, Effect, EKind, Injury
from facility_tui.systems.r2297.weapons import find_weapon, parse_weapons

_INTS = tuple(LEAST)  # (the numbers ``set`` takes, with their least values)
_FIELDS = (
    *_INTS,
    "init",
    "armor",
    "weapon",
    "injury",
    "major",
    "move",
    "minor",
    "reaction",
    "dead",
    "loses",
    "aware",
    "rounds",
    "amount",
    "ammo",
)


def set_value(call: Call) -> Encounter:
    """C4 (2297): ``set WHO FIELD VALUE`` (declared in ``verbs``, for both rule systems)."""
    c = who(call)
    field = call.arg(1, f"a field ({', '.join(_FIELDS)})").lower()
    value = call.rest(2, "a value")
    s = sheet(c)
    ctx = Ctx.of(call)
    if field in _INTS:
        n = call.number(value, f"{c.name} {field}", minimum=LEAST[field])
        old = getattr(s, field)
        ctx.put(c.id, **{field: n})
        shown = f"{old} → {n}"
    elif field == "init":
        n = call.initiative(value, f"{c.name} initiative")
        ctx.update(c.id, initiative=n)
        ctx.enc = call.rules.turns.initiative_set(ctx.enc, c.id)
        shown = f"{c.initiative} → {n}"
        if ctx.enc.phase is Phase.ACTIVE:
            shown += " (order from next round)"
    elif field == "armor":
        ctx.put(c.id, armor=parse_armor(value, catalog(call)))
        shown = value
    elif field == "weapon":
        ctx.put(c.id, weapons=parse_weapons(value, catalog(call)))
        shown = value
    elif field == "injury":
        level = parse_level(value)
        effects = call.option("effects")
        apply_effects = True if effects is None else yes_no(effects, "effects")
        shown = set_injury(ctx, c, level, apply_effects)
    elif field in ("rounds", "amount"):
        n = call.number(value, f"{c.name} {field}", minimum=0)
        shown = set_effect(ctx, c, field, n, call.option("effect"))
    elif field == "ammo":
        guns = [w for w in s.weapons if w.capacity]
        ref = call.option("weapon")
        gun = find_weapon(s.weapons, ref) if ref else (guns[0] if guns else None)
        if gun is None or not gun.capacity:
            raise CommandError(f"{c.name} has no weapon with ammo")
        n = call.number(value, f"{c.name} {gun.name} ammo", minimum=0, maximum=gun.capacity)
        filled = evolve(gun, ammo=n)
        ctx.put(c.id, weapons=tuple(filled if w is gun else w for w in s.weapons))
        shown = f"{gun.name} {gun.ammo} → {n}/{gun.capacity}"
    elif field in KINDS:
        if call.enc.current != c.id:
            raise CommandError(f"actions left are set on {c.name}'s own turn")
        n = call.number(value, f"{c.name} {field}", minimum=0)
        left = getattr(economy(ctx.enc, c), field)
        extra = getattr(s, f"extra_{field}") + n - left
        ctx.put(c.id, **{f"extra_{field}": extra})
        if economy(ctx.enc, ctx.enc.get(c.id)).cap >= 0:
            shown = f"{left} → {n} (a limit still caps the total: set the limit's cause instead)"
        else:
            shown = f"{left} → {n} left this turn"
    elif field == "reaction":
        avail = yes_no(value, "reaction")
        ctx.put(c.id, reaction_used=not avail)
        shown = "available" if avail else "used"
    elif field == "dead":
        dead = yes_no(value, "dead")
        ctx.put(c.id, dead=dead)
        if dead:
            remove_effects(ctx, c.id, lambda e: e.kind not in (EKind.BLEED, EKind.DEATH))
        shown = "yes" if dead else "no"
    elif field == "loses":
        choice = value.lower()
        if choice not in ("major", "move"):
            raise CommandError("a Fatigued combatant loses a major or a move")
        ctx.put(c.id, fatigued_loses=choice)
        shown = choice
    elif field == "aware":
        ctx.put(c.id, awareness=parse_awareness(value))
        shown = value
    else:
        raise CommandError(f"unknown field '{field}': use {', '.join(_FIELDS)}")
    ctx.log(f"GM override: {c.name} {field} {shown}", Kind.OVERRIDE)
    return ctx.enc


def set_injury(ctx: Ctx, c: Combatant, level: Level, apply_effects: bool = True) -> str:
    """C4: the worst injury takes ``level``, with what the level brings (A7: fatigue,
    initiative, Disadvantage, bleeding, countdown, with their rolls) unless ``apply_effects`` is
    off (``effects=no``); ``none`` heals every injury (and, with effects, ends theirs)."""
    s = ctx.sheet(c.id)
    old = s.level
    if level is Level.NONE:
        ctx.put(c.id, injuries=tuple(evolve(i, level=Level.NONE) for i in s.injuries))
        ids = {i.id for i in s.injuries}
        if apply_effects and remove_effects(ctx, c.id, lambda e: e.source not in ids):
            return f"{old.word} → none (the injuries' effects end)"
        return f"{old.word} → none" + ("" if apply_effects else " (effects left as they are)")
    how = "its effects applied" if apply_effects else "no effects applied"
    if not s.injuries or not old.rank:
        injury = Injury(s.next_id, level, level, ctx.enc.round, 0, manual=True)
        ctx.put(c.id, next_id=s.next_id + 1)
        if apply_effects:
            injury = inflict(ctx, c.id, injury)
        ctx.edit(c.id, lambda sh: evolve(sh, injuries=(*sh.injuries, injury)))
    else:
        worst = max(s.injuries, key=lambda i: (i.level.rank, i.id))
        if apply_effects:
            relevel(ctx, c.id, evolve(worst, manual=True), level, "replaced by the GM")
        else:
            replace_injury(ctx, c.id, evolve(worst, level=level, manual=True))
    return f"{old.word} → {level.word} ({how})"


_EFFECT_WORDS = {
    "penalty": EKind.INIT,
    "init": EKind.INIT,
    "initiative": EKind.INIT,
    "disadvantage": EKind.DISADV,
    "disadv": EKind.DISADV,
    "bleed": EKind.BLEED,
    "bleeding": EKind.BLEED,
    "death": EKind.DEATH,
    "countdown": EKind.DEATH,
    "dying": EKind.DEATH,
}


def set_effect(ctx: Ctx, c: Combatant, field: str, n: int, ref: str | None) -> str:
    """C4: a timed effect's rounds left (0 ends it) or amount (an initiative reduction, a fixed
    bleeding), picked by ``effect=N`` (its number in the detail pane) or a word (penalty,
    disadvantage, bleeding, countdown, a condition's name); alone when only one fits."""
    s = ctx.sheet(c.id)

    def fits(e: Effect) -> bool:
        if field == "rounds":
            return e.rounds > 0
        return e.kind is EKind.INIT or (e.kind is EKind.BLEED and not e.dice)

    numbered = list(enumerate(s.effects, 1))
    if ref is not None:
        word = ref.strip().lower()
        if word.isdecimal():
            chosen = [(i, e) for i, e in numbered if i == int(word)]
        else:
            kind = _EFFECT_WORDS.get(word)
            chosen = [
                (i, e)
                for i, e in numbered
                if e.kind is kind or (e.kind is EKind.COND and e.label.lower() == word)
            ]
        if not chosen:
            raise CommandError(f"{c.name} has no effect '{ref}' (see the detail pane's Effect N)")
    else:
        chosen = [(i, e) for i, e in numbered if fits(e)]
    if not chosen:
        what = "counting rounds" if field == "rounds" else "with an amount"
        raise CommandError(f"{c.name} has no timed effect {what}")
    if len(chosen) > 1:
        names = "; ".join(f"effect={i}: {describe(e)}" for i, e in chosen)
        raise CommandError(f"{c.name} has several ({names}); add which")
    i, e = chosen[0]
    if not fits(e):
        if field == "rounds":
            raise CommandError(f"{describe(e)} counts no rounds (it ends by its own rule)")
        if e.kind is EKind.BLEED:
            raise CommandError(
                f"{describe(e)} rolls {e.dice} each turn: correct a tick with set {c.id} damage N"
            )
        raise CommandError(f"{describe(e)} has no amount")
    if field == "rounds" and n == 0:
        if e.kind is EKind.DEATH:
            raise CommandError(
                f"a death countdown ends by stabilizing (stabilize {c.id}) or by death "
                f"(set {c.id} dead yes)"
            )
        drop_effect(ctx, c.id, e)
        return f"effect {i} {describe(e)} → ends now"
    new = evolve(e, rounds=n) if field == "rounds" else evolve(e, amount=n)
    swap_effect(ctx, c.id, e, new)
    return f"effect {i} {describe(e)} → {describe(new)}"
