"""2297 commands: what the GM types (A2–A11, C4). See ``docs/rules-2297.md`` for examples.

Every command refuses bad input with a one-line ``CommandError`` and, since the encounter is
immutable, a refusal changes nothing.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps

from attrs import evolve

from facility_tui.call import Call, command
from facility_tui.dice import TYPED
from facility_tui.grammar import CommandError
from facility_tui.model import Combatant, Encounter, Kind, Phase
from facility_tui.systems.r2297.engine import (
    Ctx,
    Economy,
    add_effect,
    add_fatigue,
    apply_hit,
    counts_from,
    describe,
    drop_effect,
    dying,
    economy,
    inflict,
    init_locked,
    limit_of,
    lower_injury,
    parse_awareness,
    relevel,
    remove_effects,
    replace_injury,
    roll_initiative,
    sheet_of,
    swap_effect,
    unconscious,
)
from facility_tui.systems.r2297.rules import (
    AID_TN,
    DamageType,
    Level,
    RuleError,
    add_dice,
    attack_pool,
    attack_tn,
    fire_mode,
    hit_quality,
    parse_ap,
    parse_armor,
    parse_burst,
    parse_level,
    parse_type,
    success_dice,
)
from facility_tui.systems.r2297.sheet import Effect, EKind, Injury, Patch, Sheet2297, Stims
from facility_tui.systems.r2297.weapons import ammo_needed, find_weapon, parse_weapons

Runner = Callable[[Call], Encounter]
KINDS = ("major", "move", "minor")


def rule(
    verb: str,
    usage: str,
    summary: str,
    aliases: tuple[str, ...] = (),
    rolls: tuple[str, ...] = (),
) -> Callable[[Runner], Runner]:
    """Declare a 2297 command; ``RuleError`` from the rules becomes a ``CommandError``."""

    def wrap(run: Runner) -> Runner:
        @wraps(run)
        def guarded(call: Call) -> Encounter:
            try:
                return run(call)
            except RuleError as err:
                raise CommandError(str(err)) from None

        return command(
            verb,
            usage,
            summary,
            aliases=aliases,
            group="2297",
            rolls=rolls,
        )(guarded)

    return wrap


def ctx_of(call: Call) -> Ctx:
    return Ctx(call.enc, call.dice)


def who(call: Call, index: int = 0) -> Combatant:
    return call.combatant(call.arg(index, "who"))


def sheet(c: Combatant) -> Sheet2297:
    return sheet_of(c)


def yes_no(text: str, what: str) -> bool:
    t = text.strip().lower()
    if t in ("yes", "y", "true", "on", "1"):
        return True
    if t in ("no", "n", "false", "off", "0"):
        return False
    raise CommandError(f"{what}: use yes or no, got '{text}'")


def turn_actor(call: Call) -> tuple[Combatant, list[str]]:
    """The current combatant, optionally named as the first argument; the remaining words."""
    call.need_phase(Phase.ACTIVE)
    current = call.enc.current
    if current is None or not call.enc.has(current):
        raise CommandError("no one's turn is running; press s to start combat")
    args = list(call.args)
    if args and args[0].lower() not in (*KINDS, "stop"):
        try:
            c = call.combatant(args[0])
        except CommandError:
            c = None
        if c is not None:
            if c.id != current:
                raise CommandError(
                    f"it is {call.enc.get(current).name}'s turn, not {c.name}'s: only Reactions "
                    "happen outside one's turn"
                )
            args = args[1:]
    return call.enc.get(current), args


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

    ctx = ctx_of(call)
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
            ctx.enc = ctx.enc.update(c.id, initiative=value)
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


def downgrade_for_one_action(call: Call, c: Combatant, want: str, eco: Economy) -> Economy:
    """A4 (Decision): under Serious injury's one action, the kind the band does not grant may be
    reached by the turn's one downgrade (a Slow combatant may take a Minor): done on the way."""
    s = sheet(c)
    if limit_of(call.enc, s)[0] != "one" or s.downgrade:
        return eco
    sources = {"minor": ("move", "major"), "move": ("major",)}.get(want, ())
    frm = next((k for k in sources if getattr(eco, k) > 0), None)
    if frm is None:
        return eco
    call.enc = call.enc.update_sheet(c.id, downgrade=f"{frm}>{want}")
    call.log(
        f"{c.name}: {frm.capitalize()} downgraded to {want.capitalize()} for its one action "
        "(the turn's downgrade)"
    )
    return economy(call.enc, call.enc.get(c.id))


def spend(call: Call, kinds: tuple[str, ...], what: str, text: str = "") -> Combatant:
    """Mark actions spent on the current turn, refusing what the combatant does not have."""
    c, rest = turn_actor(call)
    eco = economy(call.enc, c)
    if len(kinds) == 1 and eco.cap > 0 and getattr(eco, kinds[0]) < 1:
        eco = downgrade_for_one_action(call, c, kinds[0], eco)
    if eco.cap == 0:
        reason = eco.limit or "no actions left"
        if eco.limit and sheet(c).spent_major + sheet(c).spent_move + sheet(c).spent_minor:
            reason = f"its one action is spent ({eco.limit})"
        raise CommandError(f"{c.name} cannot take a {what}: {reason}")
    if eco.cap > 0 and len(kinds) > eco.cap:
        raise CommandError(f"{c.name} cannot take a {what}: one action in all ({eco.limit})")
    for k in KINDS:
        need = kinds.count(k)
        have = getattr(eco, k)
        if need > have:
            why = f" ({eco.limit})" if eco.limit else ""
            raise CommandError(
                f"{c.name} has no {k.capitalize()} action left this turn "
                f"({eco.major} Major, {eco.move} Move, {eco.minor} Minor left){why}"
            )
    s = sheet(c)
    call.enc = call.enc.update_sheet(
        c.id,
        spent_major=s.spent_major + kinds.count("major"),
        spent_move=s.spent_move + kinds.count("move"),
        spent_minor=s.spent_minor + kinds.count("minor"),
        acted_round=call.enc.round,
    )
    after = economy(call.enc, call.enc.get(c.id))
    note = " ".join(rest) or text
    call.log(
        f"{c.name}: {what} spent{': ' + note if note else ''} (left {after.major} Major, "
        f"{after.move} Move, {after.minor} Minor)"
    )
    return call.enc.get(c.id)


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
    ctx = ctx_of(call)
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
    ctx = ctx_of(call)
    add_effect(ctx, c.id, Effect(EKind.COND, "overwatch"))
    ctx.log(
        f"{c.name} is on Overwatch until the end of the round: react {c.id} overwatch",
        Kind.EFFECT,
    )
    return ctx.enc


@rule("refocus", "refocus [WHO]", "A3: Full action: reroll initiative, used from the next round")
def refocus(call: Call) -> Encounter:

    c = spend(call, KINDS, "Full action", "Refocus")
    ctx = ctx_of(call)
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


# -- A6–A8 hits and injuries ----------------------------------------------------------------------


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
)
def hit(call: Call) -> Encounter:
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
    ap_pt, ap_dr = parse_ap(call.option("ap", "0") or "0")
    raw = call.number(text, f"Damage to {c.name}", minimum=0)
    ctx = ctx_of(call)
    apply_hit(ctx, c.id, raw, kind, ap_pt, ap_dr, through=through)
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


@rule("soak", "soak WHO [INJURY]", "A7: spend 1 Edge to lower an injury one step (once each)")
def soak(call: Call) -> Encounter:
    c = who(call)
    s = sheet(c)
    ref = call.args[1] if len(call.args) > 1 else None
    call.expect_args(2)
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
    ctx = ctx_of(call)
    ctx.put(c.id, edge=s.edge - 1)
    ctx.log(f"{c.name} spends 1 Edge ({s.edge - 1} left)")
    lower_injury(ctx, c.id, injury)
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


@rule(
    "aid",
    "aid WHO MEDIC [injury=N]",
    "A10: first aid: the Medic total (number or dice) against the injury's TN",
)
def aid(call: Call) -> Encounter:
    c = who(call)
    check = call.arg(1, "the Medic check total (a number, or dice like 2d10+8)")
    call.expect_args(2)
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
    total = call.number(check, f"{c.name} first aid (Medic)")
    tn = AID_TN[injury.level]
    mos = total - tn
    ctx = ctx_of(call)
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
    ctx = ctx_of(call)
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
    ctx = ctx_of(call)
    heal(ctx, c.id, amount, "healing")
    return ctx.enc


# -- A9 fatigue -----------------------------------------------------------------------------------


@rule("fatigue", "fatigue WHO AMOUNT", "A9: add fatigue (negative recovers)", aliases=("fat",))
def fatigue(call: Call) -> Encounter:
    c = who(call)
    amount = call.number(call.arg(1, "how much fatigue (e.g. 3 or -2)"), f"{c.name} fatigue")
    call.expect_args(2)
    ctx = ctx_of(call)
    add_fatigue(ctx, c.id, amount, "GM")
    return ctx.enc


@rule(
    "rest",
    "rest WHO|all short|brief|long",
    "A9: short rest 50% STA (brief 25%, both max 2 a day), long rest all (1 a day)",
)
def rest(call: Call) -> Encounter:
    ref = call.arg(0, "who rests (or all)")
    kind = call.arg(1, "short, brief or long").lower()
    call.expect_args(2)
    if kind not in ("short", "brief", "long"):
        raise CommandError(f"unknown rest '{kind}': use short (1 h), brief (10 min) or long")
    targets = list(call.enc.combatants) if ref.lower() == "all" else [call.combatant(ref)]
    ctx = ctx_of(call)
    for c in targets:
        s = ctx.sheet(c.id)
        if kind == "long":
            if s.long_rests >= 1:
                raise CommandError(f"{c.name} already had a long rest today; 'newday' resets")
            ctx.put(c.id, long_rests=s.long_rests + 1)
            amount = s.fatigue
        else:
            if s.short_rests >= 2:
                raise CommandError(f"{c.name} already had 2 short rests today; 'newday' resets")
            ctx.put(c.id, short_rests=s.short_rests + 1)
            amount = s.sta // 2 if kind == "short" else s.sta // 4
        if min(amount, s.fatigue) > 0:
            add_fatigue(ctx, c.id, -min(amount, s.fatigue), f"{kind} rest")
        else:
            ctx.log(f"{c.name} rests ({kind}): no fatigue to recover")
    return ctx.enc


@rule("newday", "newday", "A9: a new day: short and long rests are available again")
def newday(call: Call) -> Encounter:
    call.expect_args(0)
    for c in call.enc.combatants:
        call.enc = call.enc.update_sheet(c.id, short_rests=0, long_rests=0)
    call.log("A new day: rests are available again")
    return call.enc


@rule(
    "stim",
    "stim WHO RATING",
    "A9: a stim patch restores 1d6+R stamina; its own Grit check is kept as a reminder",
)
def stim(call: Call) -> Encounter:
    c = who(call)
    rating = call.number(call.arg(1, "the patch rating"), "stim rating", minimum=0)
    call.expect_args(2)
    ctx = ctx_of(call)
    restored = ctx.roll(f"1d6+{rating}", f"{c.name} stim patch", c.id).total
    s = ctx.sheet(c.id)
    if min(restored, s.fatigue) > 0:
        add_fatigue(ctx, c.id, -min(restored, s.fatigue), f"stim patch R{rating}")
    # A9 (Decision): each pending check gets +5 TN for this patch, applied while it is pending
    s = ctx.sheet(c.id)
    for p in s.pending_patches:
        ctx.log(
            f"{c.name}: stim patch {p.id}'s Grit TN rises to {p.tn + 5} (another patch while "
            "it is pending)",
            Kind.EFFECT,
        )
    minutes = ctx.roll("1d6", f"{c.name} stim wears off (×10 minutes)", c.id).total * 10
    fail = f"2d6+{2 * rating}" if rating else "2d6"
    patch = Patch(s.next_patch, rating, ctx.enc.round + minutes * 10, fail)
    legacy = s.stims
    if legacy.count:
        legacy = evolve(legacy, count=legacy.count + 1)
    ctx.put(
        c.id,
        stims=legacy,
        patches=(*(evolve(p, others=p.others + 1) for p in s.patches), patch),
        next_patch=s.next_patch + 1,
    )
    ctx.log(
        f"{c.name}: stim patch {patch.id} (R{rating}): Grit check vs TN {patch.tn} due in round "
        f"{patch.due_round}; failure {fail} fatigue, success half: grit {c.id} TOTAL "
        f"patch={patch.id}",
        Kind.EFFECT,
    )
    return ctx.enc


@rule(
    "grit",
    "grit WHO TOTAL [patch=N]",
    "A9: resolve a stim patch's pending Grit check (a number or dice); default the one due first",
)
def grit(call: Call) -> Encounter:
    c = who(call)
    s = sheet(c)
    pending = s.pending_patches
    if not pending:
        raise CommandError(f"{c.name} has no stim Grit check pending")
    ref = call.option("patch")
    if ref is not None:
        if not ref.strip().isdigit():
            raise CommandError(f"patch: give its number (see the detail pane), got '{ref}'")
        found = next((p for p in pending if p.id == int(ref)), None)
        if found is None:
            have = ", ".join(str(p.id) for p in pending)
            raise CommandError(f"{c.name} has no pending stim patch {ref} (pending: {have})")
        patch = found
    else:
        patch = min(pending, key=lambda p: (p.due_round, p.id))
    total = call.number(call.arg(1, "the Grit check total"), f"{c.name} Grit")
    call.expect_args(2)
    ctx = ctx_of(call)
    amount = ctx.roll(patch.fatigue, f"{c.name} stim crash (patch {patch.id})", c.id).total
    what = f"the Grit check of stim patch {patch.id} ({total} vs TN {patch.tn})"
    if total >= patch.tn:
        ctx.log(f"{c.name} passes {what}: half the crash", Kind.EFFECT)
        amount //= 2
    else:
        ctx.log(f"{c.name} fails {what}", Kind.EFFECT)
    if patch.id == 0:
        ctx.put(c.id, stims=Stims())
    else:
        ctx.put(c.id, patches=tuple(p for p in s.patches if p.id != patch.id))
    add_fatigue(ctx, c.id, amount, "stim crash")
    return ctx.enc


@rule(
    "recover",
    "recover WHO",
    "A9: confirm the fatigue −1 an Exhausted combatant earned by 10 full rounds without action",
)
def recover(call: Call) -> Encounter:
    c = who(call)
    call.expect_args(1)
    s = sheet(c)
    if not s.recover_due:
        raise CommandError(
            f"{c.name} has no fatigue recovery due (−1 per 10 full rounds without an action "
            "while Exhausted)"
        )
    ctx = ctx_of(call)
    ctx.put(c.id, recover_due=0)
    amount = min(s.recover_due, s.fatigue)
    if amount:
        add_fatigue(ctx, c.id, -amount, "rest while Exhausted, confirmed by the GM")
    else:
        ctx.log(f"{c.name} has no fatigue left to recover")
    return ctx.enc


# -- A11 conditions -------------------------------------------------------------------------------


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
        rounds = call.number(words[-1], "rounds", minimum=1)
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
    ctx = ctx_of(call)
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
    ctx = ctx_of(call)
    gone = remove_effects(ctx, c.id, lambda e: not (e.kind is EKind.COND and e.label == name))
    if not gone:
        have = ", ".join(sheet(c).conditions()) or "none"
        raise CommandError(f"{c.name} is not {name} (conditions: {have})")
    ctx.log(f"{c.name} is no longer {name}", Kind.EFFECT)
    return ctx.enc


# -- A5 attack helper -----------------------------------------------------------------------------

_FLAGS = ("aimed", "smash", "flurry", "evade", "undefended", "melee")


def undefended_why(s: Sheet2297) -> str:
    """A5: why a target is undefended (TN 10, no Dodge or Parry) by its state: "" if defended."""
    if s.dead:
        return "dead"
    if unconscious(s) or dying(s):
        return "unconscious"
    if s.has("surprised"):
        return "surprised (Unaware)"
    return ""


@rule(
    "attack",
    "attack WHO TARGET [TARGET ...] [skill=N] [adv=N] [tn=N] [cover=5|10] [mode=SS|SA|BF|AF] "
    "[burst=adv|dice] [targets=N] [weapon=NAME] [dmg=DICE] [extra=N] [aimed] [smash] [flurry] "
    "[evade] [undefended] [melee]",
    "A5: roll 2d10+skill vs TN, MoS, damage dice, ammo; a hit is applied to the target "
    "(AF at several targets: one attack each)",
    aliases=("at",),
)
def attack(call: Call) -> Encounter:
    call.need_phase(Phase.SETUP, Phase.ACTIVE)
    c = who(call)
    named: list[Combatant] = [who(call, 1)]
    flags: set[str] = set()
    for word in call.args[2:]:
        if word.lower() in _FLAGS:
            flags.add(word.lower())
            continue
        try:
            other = call.combatant(word)
        except CommandError:
            raise CommandError(
                f"unknown attack option '{word}': name a target or use "
                f"{', '.join(_FLAGS)} or key=value options"
            ) from None
        if any(o.id == other.id for o in named):
            raise CommandError(f"{other.name} is named twice")
        named.append(other)
    s = sheet(c)
    weapon = None
    wref = call.option("weapon")
    if wref:
        weapon = find_weapon(s.weapons, wref)
    elif s.weapons:
        weapon = s.weapons[0]
    mode = (call.option("mode") or (weapon.modes[0] if weapon else "SS")).upper()
    if mode not in ("SS", "SA", "BF", "AF"):
        raise CommandError(f"unknown fire mode '{mode}': SS, SA, BF or AF")
    if weapon and mode not in weapon.modes:
        raise CommandError(f"{weapon.name} fires {'/'.join(weapon.modes)}, not {mode}")
    if len(named) > 1 and call.has("targets"):
        raise CommandError("name the targets or give targets=N, not both")
    targets = call.int_option("targets", "targets", len(named), minimum=1)
    if "melee" in flags and (targets > 1 or call.has("mode") or call.has("burst")):
        raise CommandError("a melee attack has no fire mode and one target (A5)")
    skill = call.int_option("skill", "skill", s.skill)
    adv = call.int_option("adv", "advantage", 0)
    if abs(adv) > 10:
        raise CommandError("adv: net Advantage from -10 to 10")
    burst_text = call.option("burst")
    pick = parse_burst(burst_text) if burst_text else ""
    mode_adv, mode_d6 = (0, 0) if "melee" in flags else fire_mode(mode, targets, adv, pick)
    cover = call.int_option("cover", "cover", 0, minimum=0)
    damage = call.option("dmg") or (weapon.damage if weapon else None)
    extra = call.int_option("extra", "extra d6", 0)
    kind = parse_type(call.option("type") or (weapon.kind.value if weapon else "physical"))
    ap_pt, ap_dr = parse_ap(call.option("ap", "0") or "0")
    tn_text = call.option("tn")
    typed_tn = call.number(tn_text, "TN", minimum=0) if tn_text is not None else None
    if typed_tn is None and "melee" in flags:
        attack_tn(True, cover=cover, evading="evade" in flags, melee=True)  # refuses cover/evade
    ctx = ctx_of(call)
    if weapon and weapon.capacity and "melee" not in flags:
        need = ammo_needed(mode, targets)
        if weapon.ammo < need:
            raise CommandError(
                f"{weapon.name} has {weapon.ammo} rounds, {mode} needs {need}: reload {c.id}"
            )
        used = evolve(weapon, ammo=weapon.ammo - need)
        ctx.put(c.id, weapons=tuple(used if w is weapon else w for w in s.weapons))
        per = f", 10 per target × {targets}" if mode == "AF" and targets > 1 else ""
        ctx.log(f"{c.name}: {weapon.name} {mode} uses {need} rounds{per} ({used.ammo} left)")
    if mode_adv > 0:
        ctx.log(f"{c.name}: {mode} takes Advantage (net {adv} → {adv + mode_adv}) instead of dice")
    elif mode_adv < 0:
        ctx.log(
            f"{c.name}: AF at {targets} targets — each attack has Disadvantage "
            f"(net {adv} → {adv + mode_adv}), no extra dice"
        )
    elif mode_d6:
        why = " (the attack already has Advantage)" if adv > 0 else ""
        ctx.log(f"{c.name}: {mode} adds +{mode_d6}d6 damage{why}")
    net = max(-10, min(10, adv + mode_adv))
    for target in named:
        one_attack(
            call,
            ctx,
            c,
            target,
            flags,
            net=net,
            skill=skill,
            cover=cover,
            typed_tn=typed_tn,
            bonus=mode_d6 + extra,
            damage=damage,
            kind=kind,
            ap=(ap_pt, ap_dr),
        )
    return ctx.enc


def one_attack(
    call: Call,
    ctx: Ctx,
    c: Combatant,
    target: Combatant,
    flags: set[str],
    *,
    net: int,
    skill: int,
    cover: int,
    typed_tn: int | None,
    bonus: int,
    damage: str | None,
    kind: DamageType,
    ap: tuple[int, int],
) -> None:
    """A5: one attack roll against one target, and its hit applied."""
    t = ctx.sheet(target.id)
    melee = "melee" in flags
    if typed_tn is not None:
        tn, how = typed_tn, "typed"
    else:
        why = "" if "undefended" in flags else undefended_why(t)
        defended = "undefended" not in flags and not why
        tn = attack_tn(defended, t.dodge, t.parry, cover, "evade" in flags, melee)
        if not defended:
            how = f"undefended{': ' + why if why else ''}, no Dodge or Parry"
        elif melee:
            how = f"melee: max(20, Dodge {t.dodge}, Parry {t.parry})"
        else:
            mods = "20" + (f" + cover {cover}" if cover else "")
            mods += " + evade 5" if "evade" in flags else ""
            how = f"ranged: max({mods}, Dodge {t.dodge})"
    # A5: roll the d10s one by one (recorded for replay) to see the two kept ones.
    count = 2 + abs(net)
    rolls = [
        call.dice.d(1, 10, f"{c.name} attack d10 ({i} of {count})", side=c.side, who=c.name)
        for i in range(1, count + 1)
    ]
    dice = [r.total for r in rolls]
    kept = sorted(dice, reverse=net >= 0)[:2]
    double = 5 if kept[0] == kept[1] else 0
    total = sum(kept) + skill + double
    mos = total - tn
    typed = sum(r.detail.endswith(TYPED) for r in rolls)
    shown = ", ".join(str(d) for d in dice) + (
        "" if not typed else " typed" if typed == count else f"; {typed} of {count} typed"
    )
    ctx.log(
        f"{c.name} attacks {target.name}: {attack_pool(net)} ({shown}) keep {kept[0]}+{kept[1]}"
        f"{' +5 double' if double else ''} + skill {skill} = {total} vs TN {tn} ({how}): "
        f"{hit_quality(mos)}" + (f" (MoS {mos})" if mos >= 0 else ""),
        Kind.ROLL,
    )
    if mos < 0:
        return
    extra = success_dice(mos) + bonus
    extra += ("aimed" in flags) + ("smash" in flags) - ("flurry" in flags)
    if damage is None:
        ctx.log(f"Damage dice: +{extra}d6 — hit {target.id} DAMAGE")
        return
    raw = ctx.roll(add_dice(damage, extra), f"{c.name} damage", c.id).total
    apply_hit(ctx, target.id, max(0, raw), kind, *ap)


@rule("reload", "reload WHO [WEAPON]", "A5: refill a weapon's ammo")
def reload(call: Call) -> Encounter:
    c = who(call)
    s = sheet(c)
    ref = call.rest(1, "") if len(call.args) > 1 else None
    guns = [w for w in s.weapons if w.capacity]
    if not guns:
        raise CommandError(f"{c.name} has no weapon with ammo")
    weapon = find_weapon(s.weapons, ref) if ref else guns[0]
    full = evolve(weapon, ammo=weapon.capacity)
    call.enc = call.enc.update_sheet(
        c.id, weapons=tuple(full if w is weapon else w for w in s.weapons)
    )
    call.log(f"{c.name} reloads {weapon.name} ({weapon.capacity} rounds)")
    return call.enc


# -- C4 overrides ---------------------------------------------------------------------------------

_INTS = (
    "ag",
    "cu",
    "hlt",
    "sta",
    "edge",
    "dice",
    "skill",
    "dodge",
    "parry",
    "damage",
    "stun",
    "fatigue",
    "tiebreak",
)
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
    ctx = ctx_of(call)
    if field in _INTS:
        minimum = (
            1
            if field in ("hlt", "sta", "dice")
            else (None if field in ("ag", "cu", "skill") else 0)
        )
        n = call.number(value, f"{c.name} {field}", minimum=minimum)
        ctx = ctx_of(call)
        old = getattr(s, field)
        ctx.put(c.id, **{field: n})
        shown = f"{old} → {n}"
    elif field == "init":
        n = call.initiative(value, f"{c.name} initiative")
        ctx = ctx_of(call)
        ctx.enc = ctx.enc.update(c.id, initiative=n)
        ctx.enc = call.rules.initiative_set(ctx.enc, c.id)
        shown = f"{c.initiative} → {n}"
        if ctx.enc.phase is Phase.ACTIVE:
            shown += " (order from next round)"
    elif field == "armor":
        ctx.put(c.id, armor=parse_armor(value))
        shown = value
    elif field == "weapon":
        ctx.put(c.id, weapons=parse_weapons(value))
        shown = value
    elif field == "injury":
        level = parse_level(value)
        effects = call.option("effects")
        apply_effects = True if effects is None else yes_no(effects, "effects")
        shown = set_injury(ctx, c, level, apply_effects)
    elif field in ("rounds", "amount"):
        n = call.number(value, f"{c.name} {field}", minimum=0)
        ctx = ctx_of(call)
        shown = set_effect(ctx, c, field, n, call.option("effect"))
    elif field == "ammo":
        guns = [w for w in s.weapons if w.capacity]
        ref = call.option("weapon")
        gun = find_weapon(s.weapons, ref) if ref else (guns[0] if guns else None)
        if gun is None or not gun.capacity:
            raise CommandError(f"{c.name} has no weapon with ammo")
        n = call.number(value, f"{c.name} {gun.name} ammo", minimum=0, maximum=gun.capacity)
        ctx = ctx_of(call)
        filled = evolve(gun, ammo=n)
        ctx.put(c.id, weapons=tuple(filled if w is gun else w for w in s.weapons))
        shown = f"{gun.name} {gun.ammo} → {n}/{gun.capacity}"
    elif field in KINDS:
        if call.enc.current != c.id:
            raise CommandError(f"actions left are set on {c.name}'s own turn")
        n = call.number(value, f"{c.name} {field}", minimum=0)
        ctx = ctx_of(call)
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


_INFLICT = "then what the injury's level rolls (as hit)"
ROLLS: dict[str, tuple[str, ...]] = (  # the rolls each command can make, in order
    {
        "rollinit": ("initiative Xd6+AG+CU of each combatant (or of WHO), in list order",),
        "refocus": ("initiative Xd6+AG+CU",),
        "soak": ("what inflicting the lowered level rolls (as hit)",),
        "aid": ("MEDIC, when dice are typed for it", "Light: first aid Health 1d6"),
        "heal": ("AMOUNT, when dice are typed for it",),
        "fatigue": ("AMOUNT, when dice are typed for it",),
        "stim": ("stim patch 1d6+R (stamina restored)", "wears off in 1d6 × 10 minutes"),
        "grit": ("TOTAL, when dice are typed for it", "stim crash 2d6+2R (halved on a success)"),
        "attack": (
            "for each target: the attack d10s one by one, 2 + |net Advantage| of them",
            "on a hit with damage known: the damage dice (weapon or dmg=, + success, mode and "
            "extra d6)",
            _INFLICT,
        ),
    }
)
