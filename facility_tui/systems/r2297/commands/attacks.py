"""2297 attacks (A5): the attack helper (TN, Advantage, fire modes, damage dice, ammo; the hit
applied as ``hit`` does) and reloading.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from attrs import frozen

from facility_tui.commands.dice import TYPED
from facility_tui.commands.grammar import CommandError
from facility_tui.commands.spec import Call
from facility_tui.model.encounter import Combatant, Encounter, Kind, Phase, evolve, maker
from facility_tui.model.text import counted
from facility_tui.systems.r2297.commands.helpers import (
    catalog,
    charge,
    rule,
    sheet,
    spending,
    who,
)
from facility_tui.systems.r2297.engine import Ctx, disadvantage_now, dying, limit_of, unconscious
from facility_tui.systems.r2297.hits import apply_hit
from facility_tui.systems.r2297.rules import (
    DamageType,
    add_dice,
    attack_pool,
    attack_tn,
    fire_mode,
    hit_quality,
    parse_ap,
    parse_burst,
    parse_type,
    success_dice,
)
from facility_tui.systems.r2297.sheet import Sheet2297, Weapon
from facility_tui.systems.r2297.weapons import ammo_needed, find_weapon

_FLAGS = ("aimed", "smash", "flurry", "evade", "undefended", "melee", "free")
# The options an attack reads, every one on every line (``check_options`` refuses the others)
_OPTIONS = (
    "weapon",
    "mode",
    "targets",
    "skill",
    "adv",
    "burst",
    "cover",
    "dmg",
    "extra",
    "type",
    "ap",
    "tn",
)
_UNTYPED = dict.fromkeys(_OPTIONS)  # (a line that types none: the attack helper's own lines)


def undefended_why(s: Sheet2297) -> str:
    """A5: why a target is undefended (TN 10, no Dodge or Parry) by its state: "" if defended."""
    if s.dead:
        return "dead"
    if unconscious(s) or dying(s):
        return "unconscious"
    if s.has("surprised"):
        return "surprised (Unaware)"
    return ""


@frozen
class AttackPlan:
    """What an ``attack`` line says, read before any die is rolled (the preview reads the same):
    attacker, targets, flags, weapon and fire mode, skill, net Advantage (with the attacker's
    own Disadvantage), TN modifiers, damage."""

    c: Combatant
    named: list[Combatant]
    flags: set[str]
    weapon: Weapon | None
    mode: str
    targets: int
    skill: int
    net: int
    mode_adv: int
    mode_d6: int
    adv: int  # the net count typed (adv=) plus the attacker's Disadvantage
    disadv: str  # why the attacker has Disadvantage ("" none)
    cover: int
    typed_tn: int | None
    bonus: int  # extra d6 on a hit: the fire mode's, extra=, aimed and smash +1, flurry −1
    ammo: int  # the rounds it uses (0: a weapon without ammo, or melee)
    damage: str | None
    kind: DamageType
    ap: tuple[int, int]
    turn: str | None  # whose turn it is (None: no turn running)

    @property
    def charged(self) -> bool:
        """A4/A5: the attack is the attacker's Major, unless ``free`` or outside its turn."""
        return "free" not in self.flags and self.c.id == self.turn


# (a member read from its enum class costs a call in Python 3.11: ``model.encounter``)
_SETUP, _ACTIVE = Phase.SETUP, Phase.ACTIVE
_plan = maker(AttackPlan)  # (``AttackPlan``, made faster: a play reads dozens of attacks)


def _cover(call: Call, typed: str | None) -> int:
    """A5: ``cover=5`` or a cover of the catalog bypassed (``cover=partial``: +5, ``full``: +10);
    ``typed``: the option's text (None: not given)."""
    text = (typed or "").strip()
    if not text or text.lstrip("-").isdecimal():
        return call.int_of(typed, "cover", 0, minimum=0)
    entry = catalog(call)("cover", text)
    if entry is None or not entry["tn"]:
        raise CommandError(f"cover '{text}': a number like 5 or 10, or partial or full cover")
    return int(entry["tn"])


def read_attack(call: Call) -> AttackPlan:
    call.need_phase(_SETUP, _ACTIVE)
    c = who(call)
    named: list[Combatant] = [who(call, 1, "the target")]
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
    if "free" not in flags:  # A4: unconscious, dying, dead, Unaware in round 1: nothing at all
        kind, why = limit_of(call.enc, s)
        if kind == "nothing":
            raise CommandError(f"{c.name} cannot attack ({why}); 'free' attacks anyway")
    # (the options as typed, None where not given, read at once: most lines give none, and a
    # call to read each of a dozen was a tenth of a play's attack)
    typed = {key: call.option(key) for key in _OPTIONS} if call.options else _UNTYPED
    weapon = None
    wref = typed["weapon"]
    if wref:
        weapon = find_weapon(s.weapons, wref)
    elif s.weapons:
        weapon = s.weapons[0]
    mode = (typed["mode"] or (weapon.modes[0] if weapon else "SS")).upper()
    if mode not in ("SS", "SA", "BF", "AF"):
        raise CommandError(f"unknown fire mode '{mode}': SS, SA, BF or AF")
    if weapon and mode not in weapon.modes:
        raise CommandError(f"{weapon.name} fires {'/'.join(weapon.modes)}, not {mode}")
    if len(named) > 1 and typed["targets"] is not None:
        raise CommandError("name the targets or give targets=N, not both")
    targets = call.int_of(typed["targets"], "targets", len(named), minimum=1)
    if "melee" in flags and (
        targets > 1 or typed["mode"] is not None or typed["burst"] is not None
    ):
        raise CommandError("a melee attack has no fire mode and one target (A5)")
    skill = call.int_of(typed["skill"], "skill", s.skill)
    adv = call.int_of(typed["adv"], "advantage", 0)
    if abs(adv) > 10:
        raise CommandError("adv: net Advantage from -10 to 10")
    disadv = disadvantage_now(call.enc, c)  # A7: the attacker's own Disadvantage counts
    adv -= bool(disadv)
    burst_text = typed["burst"]
    pick = parse_burst(burst_text) if burst_text else ""
    mode_adv, mode_d6 = (0, 0) if "melee" in flags else fire_mode(mode, targets, adv, pick)
    cover = _cover(call, typed["cover"])
    typed_damage = typed["dmg"]  # (read now, not only if it hits: what Enter refuses)
    damage = call.dice_text(typed_damage, "dmg") if typed_damage else None
    damage = damage or (weapon.damage if weapon else None)
    extra = call.int_of(typed["extra"], "extra d6", 0)
    typed_kind = typed["type"]  # (else the weapon's own: no need to read its name back)
    kind = weapon.kind if weapon and not typed_kind else parse_type(typed_kind or "physical")
    ap = parse_ap(typed["ap"] or "0")
    tn_text = typed["tn"]
    typed_tn = call.number(tn_text, "TN", minimum=0) if tn_text is not None else None
    if typed_tn is None and "melee" in flags:
        attack_tn(True, cover=cover, evading="evade" in flags, melee=True)  # refuses cover/evade
    need = ammo_needed(mode, targets) if weapon and weapon.capacity and "melee" not in flags else 0
    if weapon and need and weapon.ammo < need:
        raise CommandError(
            f"{weapon.name} has {counted(weapon.ammo, 'round')}, {mode} needs {need}: reload {c.id}"
        )
    bonus = mode_d6 + extra + ("aimed" in flags) + ("smash" in flags) - ("flurry" in flags)
    net = max(-10, min(10, adv + mode_adv))
    current = call.enc.current  # (None unless a turn is running)
    return _plan(
        c,
        named,
        flags,
        weapon,
        mode,
        targets,
        skill,
        net,
        mode_adv,
        mode_d6,
        adv,
        disadv,
        cover,
        typed_tn,
        bonus,
        need,
        damage,
        kind,
        ap,
        current,
    )


def charge_major(call: Call, plan: AttackPlan, also: Mapping[str, Any] | None = None) -> None:
    """A4/A5: an attack in the attacker's turn is its Major; refused, with the way out named,
    when none is left. ``free`` (a Reaction's attack, overwatch, GM fiat) spends nothing.
    ``also``: the attacker's sheet's other changes, made with the spending (``charge``)."""
    c = plan.c
    if "free" in plan.flags:
        call.log(f"{c.name}: a free attack (no action spent)")
    elif plan.charged:
        try:
            charge(call, call.enc.get(c.id), ("major",), "Major", "attack", also)
        except CommandError as err:
            raise CommandError(f"{err}; 'free' attacks without spending it") from None
    elif call.enc.phase is Phase.ACTIVE:
        call.log(f"{c.name} attacks outside its turn: no Major spent (a Reaction: react {c.id})")


def spending_major(
    call: Call, plan: AttackPlan, also: Mapping[str, Any] | None = None
) -> dict[str, Any]:
    """``charge_major``'s checks for an attack in its attacker's turn, its Major not spent
    and no line written: the changes that spend it (``spending``)."""
    try:
        return spending(call, call.enc.get(plan.c.id), ("major",), "Major", also)
    except CommandError as err:
        raise CommandError(f"{err}; 'free' attacks without spending it") from None


def preview_attack(call: Call) -> list[str]:
    """A5 before the roll, the most needed first (the line is cut to the room left): a refusal,
    each target's TN, the dice rolled against it, the Major spent, the damage dice (dice named,
    not rolled)."""
    plan = read_attack(call)
    call.check_options()
    said: list[str] = []
    if plan.charged:
        try:
            charge(call, call.enc.get(plan.c.id), ("major",), "Major")
            cost = "Major spent"
        except CommandError as err:
            said.append(f"refused: {err}; 'free' attacks anyway")
            cost = ""
    else:
        cost = "free: no action spent" if "free" in plan.flags else "not its turn: no Major"
    tns = [(target.name, target_tn(sheet(target), plan)[0]) for target in plan.named]
    said.append("→ " + ", ".join(f"{name} TN {tn}" for name, tn in tns))  # (a typed #N: who)
    said.append(
        f"{attack_pool(plan.net)}+{plan.skill}"
        + (f" (Disadv.: {plan.disadv})" if plan.disadv else "")
    )
    if cost:
        said.append(cost)
    if plan.damage:
        dmg = add_dice(plan.damage, plan.bonus) if plan.bonus else plan.damage
        said.append(f"dmg {dmg} (+1d6 at MoS 5, +2d6 at 10)")
    return [" · ".join(said)]


@rule(
    "attack",
    "attack WHO TARGET [TARGET ...] [skill=N] [adv=N] [tn=N] [cover=5|10] [mode=SS|SA|BF|AF] "
    "[burst=adv|dice] [targets=N] [weapon=NAME] [dmg=DICE] [extra=N] [aimed] [smash] [flurry] "
    "[evade] [undefended] [melee] [free]",
    "A5: roll 2d10+skill vs TN, MoS, damage dice, ammo; a hit is applied to the target "
    "(AF at several targets: one attack each). In its turn the attacker spends its Major "
    "('free': none); its Disadvantage (injuries) counts",
    aliases=("at",),
    preview=preview_attack,
)
def attack(call: Call) -> Encounter:
    plan = read_attack(call)
    c, weapon, mode, targets, adv = plan.c, plan.weapon, plan.mode, plan.targets, plan.adv
    used = evolve(weapon, ammo=weapon.ammo - plan.ammo) if weapon and plan.ammo else None
    weapons = tuple(used if w is weapon else w for w in sheet(c).weapons) if used else ()
    # (the rounds leave the weapon as the Major is spent: one copy of the sheet, logged after)
    also = {"weapons": weapons} if used else None
    if call.enc.keeps_log or not plan.charged or "free" in plan.flags:
        charge_major(call, plan, also)
        spent = None
    else:  # (a play's: no line to write, the Major spent in the attack's ``Ctx`` below)
        spent = spending_major(call, plan, also)
    # (its changes gathered and made into the call's encounter at the end, as a round hook's:
    # a hit changes its target's sheet several times, and the encounter is read only after)
    ctx = Ctx(call.enc, call.dice, last=True)
    if spent is not None:
        ctx.put_all(c.id, spent)
    logs = ctx.keeps_log  # (the lines below are for the log alone: a play's keeps none)
    if plan.disadv and logs:
        ctx.log(f"{c.name} has Disadvantage ({plan.disadv}): net Advantage {adv + 1} → {adv}")
    if weapon and used:
        ctx.put(c.id, weapons=weapons)  # (done with the Major when it was spent)
    if weapon and used and logs:
        per = f", 10 per target × {targets}" if mode == "AF" and targets > 1 else ""
        ctx.log(
            f"{c.name}: {weapon.name} {mode} uses {counted(plan.ammo, 'round')}{per} "
            f"({used.ammo} left)"
        )
    if not logs:
        pass
    elif plan.mode_adv > 0:
        ctx.log(
            f"{c.name}: {mode} takes Advantage (net {adv} → {adv + plan.mode_adv}) instead of dice"
        )
    elif plan.mode_adv < 0:
        ctx.log(
            f"{c.name}: AF at {targets} targets — each attack has Disadvantage "
            f"(net {adv} → {adv + plan.mode_adv}), no extra dice"
        )
    elif plan.mode_d6:
        why = " (the attack already has Advantage)" if adv > 0 else ""
        ctx.log(f"{c.name}: {mode} adds +{plan.mode_d6}d6 damage{why}")
    for target in plan.named:
        one_attack(call, ctx, plan, target)
    call.enc = ctx.enc
    return call.enc


def target_tn(t: Sheet2297, plan: AttackPlan) -> tuple[int, str]:
    """A5: the TN of one attack of ``plan`` against a target with sheet ``t``, and how it was
    found (the log's words)."""
    flags = plan.flags
    if plan.typed_tn is not None:
        return plan.typed_tn, "typed"
    why = "" if "undefended" in flags else undefended_why(t)
    defended = "undefended" not in flags and not why
    melee = "melee" in flags
    tn = attack_tn(defended, t.dodge, t.parry, plan.cover, "evade" in flags, melee)
    if not defended:
        how = f"undefended{': ' + why if why else ''}, no Dodge or Parry"
    elif melee:
        how = f"melee: max(20, Dodge {t.dodge}, Parry {t.parry})"
    else:
        mods = "20" + (f" + cover {plan.cover}" if plan.cover else "")
        mods += " + evade 5" if "evade" in flags else ""
        how = f"ranged: max({mods}, Dodge {t.dodge})"
    return tn, how


def one_attack(call: Call, ctx: Ctx, plan: AttackPlan, target: Combatant) -> None:
    """A5: one attack roll against one target, and its hit applied."""
    c, net, skill = plan.c, plan.net, plan.skill
    tn, how = target_tn(ctx.sheet(target.id), plan)
    # A5: each d10 is recorded on its own (to see the two kept ones); the GM types them at once.
    count = 2 + abs(net)
    rolls = call.dice.each(
        count, 10, f"{c.name} attack d10", attack_pool(net), side=c.side, who=c.name
    )
    dice = [r.total for r in rolls]
    kept = sorted(dice, reverse=net >= 0)[:2]
    double = 5 if kept[0] == kept[1] else 0
    total = sum(kept) + skill + double
    mos = total - tn
    if ctx.keeps_log:  # (the roll's line, its dice shown, is for the log alone)
        typed = sum(r.detail.endswith(TYPED) for r in rolls)
        shown = ", ".join(str(d) for d in dice) + (
            "" if not typed else " typed" if typed == count else f"; {typed} of {count} typed"
        )
        ctx.log(
            f"{c.name} attacks {target.name}: {attack_pool(net)} ({shown}) keep "
            f"{kept[0]}+{kept[1]}{' +5 double' if double else ''} + skill {skill} = {total} "
            f"vs TN {tn} ({how}): {hit_quality(mos)}" + (f" (MoS {mos})" if mos >= 0 else ""),
            Kind.ROLL,
        )
    if mos < 0:
        return
    extra = success_dice(mos) + plan.bonus
    if plan.damage is None:
        ctx.log(f"Damage dice: +{extra}d6 — hit {target.id} DAMAGE")
        return
    raw = ctx.roll(add_dice(plan.damage, extra), f"{c.name} damage", c.id).total
    apply_hit(ctx, target.id, max(0, raw), plan.kind, *plan.ap)


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
    call.log(f"{c.name} reloads {weapon.name} ({counted(weapon.capacity, 'round')})")
    return call.enc


_INFLICT = "then what the injury's level rolls (as hit)"


ROLLS: dict[str, tuple[str, ...]] = {  # the rolls each command can make, in order
    "attack": (
        "for each target: the attack d10s, 2 + |net Advantage| of them (typed at one prompt)",
        "on a hit with damage known: the damage dice (weapon or dmg=, + success, mode and "
        "extra d6)",
        _INFLICT,
    ),
}
