"""Facility attacks (F8): a PC's strike, the damage it deals, a Critical, a miss, rearming,
the attack and other marks (F7).
"""

from __future__ import annotations

from attrs import frozen

from facility_tui.commands.grammar import CommandError, quote
from facility_tui.commands.spec import Call
from facility_tui.model.encounter import Combatant, Encounter, Kind, evolve
from facility_tui.model.text import counted
from facility_tui.systems.facility.commands.helpers import (
    DAMAGE_ROLLS,
    HELP_ROLLS,
    can_salvage,
    check_exp,
    faces,
    flag,
    helpers_from,
    inflict,
    mark_attack,
    need_sheet_stats,
    no_pending_harm,
    roll_check,
    rule,
    spill_option,
    target_stat,
)
from facility_tui.systems.facility.engine import (
    backlash_line,
    clear_pending,
    pending_of,
    set_harm,
    set_pending,
    sheet_of,
    state_of,
)
from facility_tui.systems.facility.rules import (
    STAT_NAMES,
    changed,
    covering,
    impaired,
    save_key,
    save_value,
    signed,
    stat_key,
    stat_of,
    suggest_stat,
    weapon_of,
)
from facility_tui.systems.facility.sheet import Pending, PendingHarm, Step


def _weapon_of(call: Call, c: Combatant, text: str | None) -> str:
    s = sheet_of(c)
    if text:
        return weapon_of(s, text).key
    return s.weapons[0] if s.weapons else "unarmed"


def _out_of_ammo(call: Call, c: Combatant, wkey: str, dice: list[int]) -> None:
    """F8: any die of a gun's attack showing a 1 empties it until reloaded."""
    w = weapon_of(sheet_of(c), wkey)
    if not w.gun or 1 not in dice:
        return
    c = call.enc.get(c.id)
    s = sheet_of(c)
    if wkey not in s.empty:
        call.enc = call.enc.update(c.id, sheet=evolve(s, empty=(*s.empty, wkey)))
        call.log(
            f"A die showed 1: {c.name}'s {w.name} is out of ammo ('rearm {c.id}')", Kind.EFFECT
        )


@frozen
class StrikeLine:
    """What a ``strike`` line says, read before any die is rolled (the preview reads the same)."""

    c: Combatant
    target: Combatant
    key: str  # the attacker's stat
    vs: str  # the target's save
    wkey: str
    mod: int
    tn: int
    typed_tn: bool
    save: int
    exp: bool
    to: str
    kind: str
    helpers: list[tuple[Combatant, str]]


def read_strike(call: Call) -> StrikeLine:
    c = call.combatant(call.arg(0, "the attacker"))
    target = call.combatant(call.arg(1, "the target"))
    call.expect_args(2)
    try:
        need_sheet_stats(c)
    except CommandError as err:  # (an NPC's attack: the hazard it deals, saved against)
        raise CommandError(
            f"{err}: its attack is a harm (harm {quote(target.id)} N HAZARD by={quote(c.id)}; "
            f"d on {target.name} starts it)"
        ) from None
    key = stat_key(call.option("stat") or "phy")
    vs = save_key(call.option("vs") or "weapons")
    wkey = _weapon_of(call, c, call.option("weapon"))
    w = weapon_of(sheet_of(c), wkey)
    if wkey in sheet_of(c).empty:
        raise CommandError(f"{c.name}'s {w.name} is out of ammo: 'rearm {c.id}' first")
    mod = call.int_option("mod", "modifier", 0)
    tn_text = call.option("tn")
    save = save_value(sheet_of(target), vs)
    tn = call.number(tn_text, "target number", minimum=1) if tn_text else 10 + save + mod
    exp = flag(call, "exp")
    to = call.option("to")
    kind = call.option("as") or ""
    if to:
        stat_key(to)
    suggest_stat(vs, kind)
    helpers = helpers_from(call, call.option("help"), c, key)
    return StrikeLine(
        c, target, key, vs, wkey, mod, tn, bool(tn_text), save, exp, to or "", kind, helpers
    )


def preview_strike(call: Call) -> list[str]:
    """F8 before the roll: the d20's bonus against the TN and what it needs, the weapon's
    damage on a hit, the attack mark (or why it is refused)."""
    p = read_strike(call)
    try:
        mark_attack(call, p.c, flag(call, "force"))
    except CommandError as err:
        return [f"refused: {err}"]
    call.check_options()
    if p.exp:
        check_exp(p.c, p.key, True)
    bonus = stat_of(sheet_of(p.c), p.key).bonus + (2 if p.exp else 0)
    helped = f" + {len(p.helpers)} helper d20" if p.helpers else ""
    how = "typed" if p.typed_tn else f"10 + {p.vs} save {signed(p.save)}"
    w = weapon_of(sheet_of(p.c), p.wkey)
    return [
        f"d20 {signed(bonus)} {STAT_NAMES[p.key]}{helped} vs TN {p.tn} ({how}; needs "
        f"{max(1, p.tn - bonus)}+) · hit: {w.name} {w.damage} · attack mark spent"
    ]


@rule(
    "strike",
    "strike WHO TARGET [weapon=W] [stat=phy] [vs=weapons] [to=STAT] [as=KIND] [mod=N] [tn=N] "
    "[exp=yes] [help=A] [d20=N] [force=yes]",
    "F8 a PC attack: d20 + stat vs 10 + target's save; then 'deal'/'crit' or 'miss'/'salvage'",
    preview=preview_strike,
)
def strike(call: Call) -> Encounter:
    p = read_strike(call)
    c, target, key, vs, wkey, mod, tn = p.c, p.target, p.key, p.vs, p.wkey, p.mod, p.tn
    w = weapon_of(sheet_of(c), wkey)
    mark_attack(call, c, flag(call, "force"))
    call.enc = clear_pending(call.enc, c.id)
    call.log(
        f"{c.name} attacks {target.name} with {w.name} (TN {tn} = 10 + {vs} save "
        f"{signed(p.save)}" + (f" {signed(mod)}" if mod and not p.typed_tn else "") + ")"
    )
    dice: list[int] = []
    ok = roll_check(
        call,
        c,
        key,
        tn,
        0,
        p.exp,
        p.helpers,
        call.option("d20"),
        f"attack ({STAT_NAMES[key]})",
        dice,
    )
    _out_of_ammo(call, c, wkey, dice)
    pend = Pending(
        c.id, Step.HIT if ok else Step.MISS, key, tn, 0, p.exp, target.id, wkey, vs, p.to, p.kind
    )
    call.enc = set_pending(call.enc, pend)
    if ok:
        call.log(f"Hit: 'deal {c.id}' for {w.damage} damage, or 'crit {c.id}' to roll a Critical")
    elif impaired(sheet_of(c), key):
        call.enc = clear_pending(call.enc, c.id)
        call.log(f"Miss (no Salvage with an Impaired {STAT_NAMES[key]})")
    else:
        call.log(f"Miss: 'miss {c.id}' to accept it, or 'salvage {c.id}' to roll again")
    return call.enc


def _need_attack(call: Call, step: Step) -> tuple[Combatant, Pending]:
    c = call.combatant(call.arg(0, "the attacker"))
    p = pending_of(call.enc, c.id)
    if p is None or p.step not in (Step.HIT, Step.MISS):
        raise CommandError(f"{c.name} has no attack waiting: strike {c.id} TARGET")
    if p.step is not step:
        nxt = (
            f"'deal {c.id}' or 'crit {c.id}'"
            if p.step is Step.HIT
            else f"'miss {c.id}' or 'salvage {c.id}'"
        )
        raise CommandError(f"{c.name}'s attack {'hit' if p.step is Step.HIT else 'missed'}: {nxt}")
    if not call.enc.has(p.target):
        raise CommandError("the target is no longer in the encounter")
    return c, p


def _damage(call: Call, c: Combatant, p: Pending, what: str) -> int:
    """F8: roll (or take) the weapon's damage; a gun die showing 1 empties the gun."""
    text = call.option("dmg")
    if text is not None:
        value = call.number(text, f"{c.name} damage", minimum=0)
        call.log(f"Damage set by the GM: {value}", Kind.OVERRIDE)
        return value
    w = weapon_of(sheet_of(c), p.weapon)
    if not w.count:
        call.log(f"{w.name} deals {w.flat} ({what})")
        return w.flat
    roll = call.roll(w.damage, f"{c.name} {w.name} damage", c, faces=w.gun)
    _out_of_ammo(call, c, p.weapon, faces(roll))
    return roll.total


def _hurt_target(call: Call, p: Pending, amount: int) -> None:
    target = call.enc.get(p.target)
    if amount <= 0:
        call.log(f"{target.name} takes no wounds")
        return
    key, why = target_stat(call, target, p.vs, p.to or None, p.kind)
    inflict(call, target, amount, key, spill_option(call), why)


def _used_up(call: Call, c: Combatant, p: Pending) -> None:
    call.enc = used_up(call.enc, c, p)


def used_up(enc: Encounter, c: Combatant, p: Pending) -> Encounter:
    """A consumable weapon (a grenade) is gone once its attack is settled."""
    w = weapon_of(sheet_of(c), p.weapon)
    s = sheet_of(enc.get(c.id))
    if not w.consumable or p.weapon not in s.weapons:
        return enc
    ws = list(s.weapons)
    ws.remove(p.weapon)
    enc = enc.update(c.id, sheet=evolve(s, weapons=tuple(ws)))
    return enc.logged(f"{c.name}'s {w.name} is used up")


def misses_stand(enc: Encounter, side: str) -> Encounter:
    """F8: a miss of ``side``'s left open when the side's turn ends stands: the Salvage was for
    then (as ``miss WHO`` would settle it)."""
    for p in state_of(enc).pending:
        if p.step is Step.MISS and enc.has(p.who) and enc.get(p.who).side == side:
            c = enc.get(p.who)
            enc = clear_pending(enc, c.id).logged(f"{c.name}'s attack misses (the turn ended)")
            enc = used_up(enc, c, p)
    return enc


def _partial(call: Call, c: Combatant, p: Pending) -> None:
    """F8 Partial Success: deal the damage, and suffer the enemy's damage with no save."""
    _hurt_target(call, p, _damage(call, c, p, "Partial"))
    back = call.option("back")
    if back is None:
        call.enc = set_pending(call.enc, Pending(c.id, Step.BACKLASH, target=p.target))
        call.log(f"Partial: {c.name} also suffers damage, no save: '{backlash_line(c.id)}'")
    else:
        no_pending_harm(call, c)
        n = call.number(back, f"{c.name} damage suffered", minimum=1)
        hazard = save_key(call.option("backvs") or "weapons")
        h = PendingHarm(c.id, n, hazard, "", suggest_stat(hazard)[0])
        call.log(f"Partial: {c.name} suffers {counted(n, hazard + ' wound')} with no save")
        cover = covering(sheet_of(call.enc.get(c.id)), hazard)
        if cover:
            call.enc = set_harm(call.enc, h)
            names = ", ".join(x.name for x in cover)
            call.log(f"{c.name} may ablate {names} ('ablate {c.id}'), or 'suffer {c.id}'")
        else:
            inflict(call, c, n, h.stat, [], "Partial")
    _used_up(call, c, p)


@rule(
    "deal",
    "deal WHO [dmg=N] [spill=S,S]",
    "F8 deal a hit's weapon damage to its target",
)
def deal(call: Call) -> Encounter:
    c, p = _need_attack(call, Step.HIT)
    call.expect_args(1)
    call.enc = clear_pending(call.enc, c.id)
    _hurt_target(call, p, _damage(call, c, p, "hit"))
    _used_up(call, c, p)
    return call.enc


@rule(
    "crit",
    "crit WHO [called=yes] [d20=N] [back=N] [dmg=N] [spill=S,S]",
    "F8 roll a Critical after a hit: max damage + 1d6 (or crit dice); a failure is a Partial",
)
def crit(call: Call) -> Encounter:
    c, p = _need_attack(call, Step.HIT)
    call.expect_args(1)
    if impaired(sheet_of(c), p.stat):
        raise CommandError(
            f"{c.name}'s {STAT_NAMES[p.stat]} is Impaired: a Critical counts as a Salvage"
        )
    call.enc = clear_pending(call.enc, c.id)
    w = weapon_of(sheet_of(c), p.weapon)
    dice: list[int] = []
    exp = p.exp and not impaired(sheet_of(c), p.stat)
    ok = roll_check(call, c, p.stat, p.tn, p.mod, exp, [], call.option("d20"), "Critical", dice)
    _out_of_ammo(call, c, p.weapon, dice)
    if not ok:
        call.log("The Critical fails: a Partial Success")
        _partial(call, c, p)
        return call.enc
    called = flag(call, "called")
    text = call.option("dmg")
    if text is not None:
        amount = call.number(text, f"{c.name} damage", minimum=0)
        call.log(f"Damage set by the GM: {amount}", Kind.OVERRIDE)
    elif called:
        amount = w.max_damage
        call.log(f"Critical: maximum damage {amount} and a called shot or maneuver")
    else:
        roll = call.roll(w.crit_dice, f"{c.name} {w.name} crit dice", c, faces=w.gun)
        _out_of_ammo(call, c, p.weapon, faces(roll))
        amount = w.max_damage + roll.total
        call.log(f"Critical: maximum damage {w.max_damage} + {roll.total} = {amount}")
    _hurt_target(call, p, amount)
    _used_up(call, c, p)
    return call.enc


@rule(
    "miss",
    "miss WHO",
    "F8 accept a missed attack (instead of a Salvage)",
)
def miss(call: Call) -> Encounter:
    c, p = _need_attack(call, Step.MISS)
    call.expect_args(1)
    call.enc = clear_pending(call.enc, c.id)
    call.log(f"{c.name}'s attack misses")
    _used_up(call, c, p)
    return call.enc


def salvage_attack(call: Call, c: Combatant, p: Pending) -> Encounter:
    """F8 Salvage of a miss: success → Partial; failure → a miss plus a complication."""
    dice: list[int] = []
    can_salvage(c, p.stat)
    helpers = helpers_from(call, call.option("help"), c, p.stat)
    exp = p.exp and not impaired(sheet_of(c), p.stat)
    ok = roll_check(call, c, p.stat, p.tn, p.mod, exp, helpers, call.option("d20"), "Salvage", dice)
    _out_of_ammo(call, c, p.weapon, dice)
    if not call.enc.has(p.target):
        return call.enc
    if ok:
        call.log("Salvaged: a Partial Success")
        _partial(call, c, p)
    else:
        call.log(
            f"{c.name} misses, with a complication (damage, losing the weapon, out of ammo, "
            "falling prone...)",
            Kind.EFFECT,
        )
        _used_up(call, c, p)
    return call.enc


@rule(
    "rearm",
    "rearm WHO [WEAPON]",
    "F8 reload a gun that ran out of ammo",
)
def rearm(call: Call) -> Encounter:
    c = call.combatant(call.arg(0, "who reloads"))
    s = sheet_of(c)
    if len(call.args) > 1:
        wkey = weapon_of(s, " ".join(call.args[1:])).key
        if wkey not in s.empty:
            raise CommandError(f"{c.name}'s {weapon_of(s, wkey).name} is not out of ammo")
        keys = [wkey]
    else:
        if not s.empty:
            raise CommandError(f"{c.name} has no gun out of ammo")
        keys = list(s.empty)
    call.enc = call.enc.update(
        c.id, sheet=evolve(s, empty=tuple(k for k in s.empty if k not in keys))
    )
    call.log(f"{c.name} reloads {', '.join(weapon_of(sheet_of(c), k).name for k in keys)}")
    return call.enc


@rule(
    "mark",
    "mark WHO attack|other|both|none",
    "F7 spend (or, with none, give back) a combatant's marks this side turn",
)
def mark(call: Call) -> Encounter:
    c = call.combatant(call.arg(0, "who"))
    what = call.arg(1, "attack, other, both or none").lower()
    call.expect_args(2)
    s = sheet_of(c)
    changes = {
        "attack": {"attack_used": True},
        "atk": {"attack_used": True},
        "other": {"other_used": True},
        "oth": {"other_used": True},
        "action": {"other_used": True},
        "both": {"attack_used": True, "other_used": True},
        "none": {"attack_used": False, "other_used": False},
    }.get(what)
    if changes is None:
        raise CommandError("mark takes attack, other, both or none")
    call.enc = call.enc.update(c.id, sheet=changed(s, changes))
    if what == "none":
        call.log(f"{c.name}'s marks given back by the GM", Kind.OVERRIDE)
    else:
        call.log(f"{c.name} uses {'both marks' if what == 'both' else 'the ' + what + ' mark'}")
    return call.enc


ROLLS: dict[str, tuple[str, ...]] = {  # the rolls each command can make, in order
    "strike": (HELP_ROLLS, "the attack's d20 (unless d20= gives it; a gun: a 1 empties it)"),
    "deal": (DAMAGE_ROLLS,),
    "crit": (
        "the Critical's d20 (unless d20= gives it; a gun: a 1 empties it)",
        "success: the crit dice (1d6 or the weapon's; a gun: each die counts) unless "
        "called=yes or dmg=",
        f"failure (a Partial): {DAMAGE_ROLLS}",
    ),
}
