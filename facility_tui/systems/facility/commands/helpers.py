"""What the Facility commands share: options (yes/no, TN, spill), the d20 and checks with
helpers (F2), saves (F3), wounds put on a sheet with spill-over and what they change (F4,
F10), the attack mark (F7)."""

from __future__ import annotations

import re
from collections.abc import Callable

from facility_tui.commands.dice import Roll
from facility_tui.commands.grammar import CommandError
from facility_tui.commands.spec import Call, declarer
from facility_tui.model.encounter import PCS, Combatant, Encounter, Kind, Phase, evolve
from facility_tui.model.text import counted
from facility_tui.systems.facility.engine import acting_now, harm_of, members, sheet_of, state_of
from facility_tui.systems.facility.info import INFO
from facility_tui.systems.facility.rules import (
    STAT_NAMES,
    STATS,
    TAGS,
    Condition,
    add_wounds,
    bar,
    can_act,
    capacity,
    condition,
    has_expertise,
    impaired,
    save_value,
    signed,
    simple,
    stat_key,
    stat_keys,
    stat_of,
    suggest_stat,
    wound_impaired,
)
from facility_tui.systems.facility.sheet import FacilitySheet

Runner = Callable[[Call], Encounter]


rule = declarer(INFO.id)  # declares a command of this system (listed under it in help)


# what the rolls of several commands are called in docs/dice.md
HELP_ROLLS = "the d20 of each helper (help=, in order)"
D20_ROLL = "the d20 (unless d20= gives it)"
DAMAGE_ROLLS = "the weapon's damage dice unless dmg= (a gun: each die counts, a 1 empties it)"

YES_WORDS = {"yes", "y", "true", "1", "on"}
NO_WORDS = {"no", "n", "false", "0", "off", "none"}


def flag(call: Call, key: str) -> bool:
    text = call.option(key)
    if text is None:
        return False
    t = text.lower()
    if t in YES_WORDS:
        return True
    if t in NO_WORDS:
        return False
    raise CommandError(f"{key}= takes yes or no, got '{text}'")


def faces(roll: Roll) -> list[int]:
    """The faces of every die group of a roll, from its recorded detail (``2d6 (3, 1) = 4``)."""
    out: list[int] = []
    for group in re.findall(r"\d*d\d+ \(([^)]*)\)", roll.detail):
        out += [int(x) for x in re.findall(r"\d+", group)]
    return out


def put_sheet(call: Call, c: Combatant, sheet: FacilitySheet) -> None:
    """Store a new sheet and log what changed in the combatant's condition (F4, F10)."""
    before = sheet_of(call.enc.get(c.id))
    call.enc = call.enc.update(c.id, sheet=sheet)
    _announce_condition(call, c, before, sheet)


def _announce_condition(
    call: Call, c: Combatant, before: FacilitySheet, after: FacilitySheet
) -> None:
    if not simple(after):
        for key in STATS:
            was, now = wound_impaired(stat_of(before, key)), wound_impaired(stat_of(after, key))
            if now and not was:
                call.log(f"{c.name}'s {STAT_NAMES[key]} is Impaired", Kind.EFFECT)
            elif was and not now:
                call.log(f"{c.name}'s {STAT_NAMES[key]} is no longer Impaired", Kind.EFFECT)
    old, new = condition(before), condition(after)
    if old == new or {old, new} <= {Condition.OK, Condition.IMPAIRED}:
        return
    messages = {
        Condition.INCAPACITATED: f"{c.name} is Incapacitated (3+ Impaired stats): cannot act",
        Condition.DEAD: f"{c.name} dies: all five stats Impaired ('fate {c.id} alive' to overrule)",
        Condition.OUT: f"{c.name} is out of the fight: 'fate {c.id} dead|fled|surrendered'",
        Condition.BROKEN: f"{c.name} falls apart",
    }
    text = messages.get(new)
    if text is None:
        text = f"{c.name} is now {new.value}"
    call.log(text, Kind.EFFECT)
    side = c.side
    if old in (Condition.OK, Condition.IMPAIRED) and new not in (Condition.OK, Condition.IMPAIRED):
        team = members(call.enc, side)
        if team and not any(can_act(sheet_of(m)) for m in team):
            who = "PCs" if side == PCS else "enemies"
            call.log(f"None of the {who} can fight on: 'end' to finish the combat", Kind.EFFECT)


def _d20(call: Call, what: str, text: str | None, by: Combatant | None = None) -> int:
    """A d20 of ``by``: rolled, or typed by the GM with ``d20=N`` (logged either way)."""
    if text is None:
        return call.roll("1d20", what, by).total
    value = call.number(text, what, minimum=1)
    if value > 20:
        raise CommandError(f"d20= is the die's face, 1 to 20; got {value}")
    call.log(f"{what}: {value} (typed)", Kind.ROLL)
    return value


def tn_option(call: Call) -> int:
    return call.int_option("tn", "target number", state_of(call.enc).tn, minimum=1)


def helpers_from(
    call: Call, text: str | None, roller: Combatant, key: str, *, insight_only: bool = False
) -> list[tuple[Combatant, str]]:
    """F2: ``help=A,B:sci`` → helpers and the stat each rolls (default: the roll's stat)."""
    out: list[tuple[Combatant, str]] = []
    for part in (text or "").split(","):
        if not part.strip():
            continue
        ref, _, stat_text = part.partition(":")
        c = call.combatant(ref)
        k = stat_key(stat_text) if stat_text else key
        if c.id == roller.id:
            raise CommandError(f"{c.name} cannot help their own roll")
        if not can_act(sheet_of(c)):
            raise CommandError(f"{c.name} cannot help: {condition(sheet_of(c)).value}")
        if insight_only and (k != "ins" or impaired(sheet_of(c), "ins")):
            raise CommandError(f"{c.name} cannot help with initiative: needs unimpaired Insight")
        if any(h.id == c.id for h, _ in out):
            raise CommandError(f"{c.name} is named twice in help=")
        out.append((c, k))
    return out


def _help_rolls(call: Call, helpers: list[tuple[Combatant, str]], tn: int) -> int:
    """F2: each helper rolls d20 + their stat; each success gives +1. Help cannot be Salvaged."""
    plus = 0
    for c, key in helpers:
        bonus = stat_of(sheet_of(c), key).bonus
        face = call.roll("1d20", f"{c.name} helps ({STAT_NAMES[key]})", c).total
        ok = face + bonus >= tn
        plus += ok
        call.log(
            f"{c.name} helps: {face} {signed(bonus)} = {face + bonus} vs {tn}: "
            + ("+1" if ok else "no help")
        )
    return plus


def check_exp(c: Combatant, key: str, exp: bool) -> None:
    if not exp:
        return
    s = sheet_of(c)
    if impaired(s, key):
        raise CommandError(f"{c.name}'s {STAT_NAMES[key]} is Impaired: no Expertise (F2)")
    if not has_expertise(stat_of(s, key)):
        raise CommandError(f"{c.name} has no {STAT_NAMES[key]} Expertise")


def roll_check(
    call: Call,
    c: Combatant,
    key: str,
    tn: int,
    mod: int,
    exp: bool,
    helpers: list[tuple[Combatant, str]],
    d20_text: str | None,
    what: str,
    faces_out: list[int] | None = None,
) -> bool:
    """F2: d20 + bonus (+2 Expertise, +1 per successful helper, + modifiers) ≥ TN."""
    total = check_total(call, c, key, tn, mod, exp, helpers, d20_text, what, faces_out)
    return total >= tn


def check_total(
    call: Call,
    c: Combatant,
    key: str,
    tn: int,
    mod: int,
    exp: bool,
    helpers: list[tuple[Combatant, str]],
    d20_text: str | None,
    what: str,
    faces_out: list[int] | None = None,
) -> int:
    """``roll_check``'s roll, logged with its outcome against ``tn``: its total."""
    check_exp(c, key, exp)
    plus = _help_rolls(call, helpers, tn)
    s = stat_of(sheet_of(c), key)
    face = _d20(call, f"{c.name} {STAT_NAMES[key]} ({what})", d20_text, c)
    if faces_out is not None:
        faces_out.append(face)
    parts = [f"{face}", f"{signed(s.bonus)} {STAT_NAMES[key]}"]
    if exp:
        parts.append("+2 Expertise")
    if plus:
        parts.append(f"+{plus} help")
    if mod:
        parts.append(f"{signed(mod)} mod")
    total = face + s.bonus + (2 if exp else 0) + plus + mod
    ok = total >= tn
    call.log(
        f"{c.name} {what}: {' '.join(parts)} = {total} vs {tn}: {'Success' if ok else 'Failure'}"
    )
    return total


def can_salvage(c: Combatant, key: str) -> None:
    if impaired(sheet_of(c), key):
        raise CommandError(f"{c.name}'s {STAT_NAMES[key]} is Impaired: no Salvage (F2)")


def need_sheet_stats(c: Combatant) -> None:
    if simple(sheet_of(c)):
        raise CommandError(f"{c.name} has a simple wound track (F10), not five stats")


def inflict(
    call: Call,
    c: Combatant,
    count: int,
    key: str,
    spill: list[str],
    why: str = "",
) -> None:
    """F4: put wounds on a stat with spill-over, and log where they landed."""
    c = call.enc.get(c.id)
    s = sheet_of(c)
    new, landing = add_wounds(s, key, count, spill)
    reason = f" ({why})" if why else ""
    if simple(s):
        took = landing.placed[0][1] if landing.placed else 0
        call.log(
            f"{c.name} takes {took} wound{'s' if took != 1 else ''}{reason}: "
            f"{bar(new.track_wounds, new.track)} {new.track_wounds}/{new.track}",
            Kind.EFFECT,
        )
    else:
        if not landing.placed or landing.placed[0][0] != key:
            by_ppe = " by PPE" if not wound_impaired(stat_of(s, key)) else ""
            call.log(f"{STAT_NAMES[key]} is Impaired{by_ppe}: the wounds spill over", Kind.EFFECT)
        for i, (k, n) in enumerate(landing.placed):
            st = stat_of(new, k)
            how = (
                f"{c.name} takes {n} on {STAT_NAMES[k]}{reason}"
                if i == 0 and k == key
                else (
                    f"{n} spill{'s' if n == 1 else ''} onto {STAT_NAMES[k]}"
                    + (" (proposed; pick with spill=)" if k in landing.proposed else "")
                )
            )
            call.log(
                f"{how}: {bar(st.wounds, capacity(st))} {st.wounds}/{capacity(st)}", Kind.EFFECT
            )
    if landing.lost and simple(s):
        call.log(
            f"{counted(landing.lost, 'wound')} beyond {c.name}'s track capacity {s.track}: "
            "not kept",
            Kind.EFFECT,
        )
    elif landing.lost:
        call.log(
            f"{counted(landing.lost, 'wound')} "
            f"{'has' if landing.lost == 1 else 'have'} nowhere left to go",
            Kind.EFFECT,
        )
    put_sheet(call, c, new)


def wounds_preview(c: Combatant, count: int, key: str, spill: list[str]) -> str:
    """F4 before the wounds land: where ``inflict`` would put them (``add_wounds``, the same
    rule), the spill-over, and the Impairment and condition they bring."""
    s = sheet_of(c)
    new, landing = add_wounds(s, key, count, spill)
    if simple(s):
        took = landing.placed[0][1] if landing.placed else 0
        parts = [f"{took} on the track {new.track_wounds}/{new.track}"]
    else:
        parts = []
        for i, (k, n) in enumerate(landing.placed):
            st = stat_of(new, k)
            where = "on" if i == 0 and k == key else "spill onto"
            mark = " (proposed)" if k in landing.proposed else ""
            parts.append(f"{n} {where} {STAT_NAMES[k]}{mark} {st.wounds}/{capacity(st)}")
        if not landing.placed or landing.placed[0][0] != key:
            parts.insert(0, f"{STAT_NAMES[key]} is Impaired: spill-over")
        now = [
            STAT_NAMES[k]
            for k in STATS
            if wound_impaired(stat_of(new, k)) and not wound_impaired(stat_of(s, k))
        ]
        if now:
            parts.append(f"{', '.join(now)} Impaired")
    if landing.lost:
        parts.append(f"{landing.lost} with nowhere to go")
    if condition(new) != condition(s) and condition(new) not in (Condition.OK, Condition.IMPAIRED):
        parts.append(condition(new).value.capitalize())
    return "→ " + " · ".join(parts)


def target_stat(
    call: Call, c: Combatant, hazard: str, to: str | None, kind: str
) -> tuple[str, str]:
    """F5: the GM's stat (``to=``) or the hazard → stat suggestion."""
    if to:
        return stat_key(to), "GM's choice"
    key, why = suggest_stat(hazard, kind)
    return key, f"suggested: {why}"


def spill_option(call: Call) -> list[str]:
    text = call.option("spill")
    return stat_keys(text) if text else []


def mark_attack(call: Call, c: Combatant, force: bool) -> None:
    """F7: spend the attacker's attack mark (refused when spent or not its turn, unless forced)."""
    s = sheet_of(c)
    problems = []
    if not can_act(s):
        problems.append(f"{c.name} cannot act ({condition(s).value})")
    if not acting_now(call.enc, c):
        problems.append(f"it is not {c.name}'s turn")
    if s.attack_used and call.enc.phase is Phase.ACTIVE:
        problems.append(f"{c.name} has already attacked this turn")
    if problems and not force:
        raise CommandError("; ".join(problems) + ": add force=yes to act anyway")
    if problems:
        call.log(f"GM override: {'; '.join(problems)}", Kind.OVERRIDE)
    if call.enc.phase is Phase.ACTIVE:
        call.enc = call.enc.update(c.id, sheet=evolve(s, attack_used=True))


def save_roll(call: Call, c: Combatant, hazard: str, tag: str, tn: int, text: str | None) -> bool:
    s = sheet_of(c)
    value = save_value(s, hazard, tag)
    face = _d20(call, f"{c.name} {hazard} save", text, c)
    total = face + value
    ok = total >= tn
    vs = f" vs {TAGS[tag]}" if tag else ""
    call.log(
        f"{c.name} saves vs {hazard.capitalize()}{vs}: {face} {signed(value)} = {total} vs {tn}: "
        + ("Success" if ok else "Failure")
    )
    return ok


def no_pending_harm(call: Call, c: Combatant) -> None:
    if harm_of(call.enc, c.id) is not None:
        raise CommandError(
            f"{c.name} still has a failed save pending: 'ablate {c.id}' or 'suffer {c.id}' first"
        )
