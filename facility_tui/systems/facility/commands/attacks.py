"""Facility commands (F1–F12, C4): what a GM types to roll, hurt, heal and fight.

Follow-up choices are commands too: a failed roll leaves a *pending* roll (``salvage``), a hit
waits for ``deal`` or ``crit``, a miss for ``miss`` or ``salvage``, a failed save with PPE that
could be ablated waits for ``ablate`` or ``suffer``. Every die is rolled through the call's dice
(recorded, so undo/redo/reload never re-roll) or typed with ``d20=N``.
"""

from __future__ import annotations

import re

from attrs import evolve

from facility_tui.call import Call, command
from facility_tui.dice import Roll
from facility_tui.grammar import CommandError
from facility_tui.model import PCS, Combatant, Encounter, Kind, Phase
from facility_tui.systems.facility.core import (
    JOBS,
    PPE_CATALOG,
    SAVES,
    STAT_NAMES,
    STATS,
    TAGS,
    Condition,
    FacilitySheet,
    Fate,
    Piece,
    Saves,
    ablate,
    add_wounds,
    bar,
    blast_shares,
    can_act,
    capacity,
    changed,
    competence,
    condition,
    covering,
    find_piece,
    has_expertise,
    impaired,
    job_key,
    mark_piece,
    parts_spent,
    ppe_item,
    propose_spill,
    remove_wounds,
    save_key,
    save_value,
    scar,
    shift_heal,
    signed,
    simple,
    stat_key,
    stat_keys,
    stat_of,
    suggest_stat,
    tag_key,
    technique_key,
    weapon,
    with_stat,
    wound_impaired,
)
from facility_tui.systems.facility.state import (
    VANGUARD,
    Pending,
    PendingHarm,
    Step,
    acting_now,
    apply_partial,
    check_vanguard,
    clear_harm,
    clear_pending,
    harm_of,
    members,
    pending_of,
    restart_round_one,
    set_harm,
    set_pending,
    sheet_of,
    state_of,
)

_YES = {"yes", "y", "true", "1", "on"}
_NO = {"no", "n", "false", "0", "off", "none"}


def _flag(call: Call, key: str) -> bool:
    text = call.option(key)
    if text is None:
        return False
    t = text.lower()
    if t in _YES:
        return True
    if t in _NO:
        return False
    raise CommandError(f"{key}= takes yes or no, got '{text}'")


def faces(roll: Roll) -> list[int]:
    """The faces of every die group of a roll, from its recorded detail (``2d6 (3, 1) = 4``)."""
    out: list[int] = []
    for group in re.findall(r"\d*d\d+ \(([^)]*)\)", roll.detail):
        out += [int(x) for x in re.findall(r"\d+", group)]
    return out


# -- building sheets (F1, F3, F6, F10, F12) --------------------------------------------------------


def _bonus(call: Call, key: str, text: str) -> int:
    value = call.number(text, f"{STAT_NAMES[key]} bonus")
    if not -3 <= value <= 3:
        raise CommandError(f"{STAT_NAMES[key]} bonus must be from -3 to +3, got {value}")
    return value


def _saves(text: str) -> Saves:
    nums = [t.strip() for t in text.split(",")]
    if len(nums) != 5 or not all(re.fullmatch(r"[+-]?\d{1,2}", n) for n in nums):
        raise CommandError(
            "saves= takes five numbers from -99 to 99: "
            "Weapons,Trauma,Explosions,Contaminants,Anomalies"
        )
    return Saves(*(int(n) for n in nums))


def _pieces(text: str) -> tuple[Piece, ...]:
    names: list[str] = []
    for part in text.split(","):
        if part.strip():
            name = ppe_item(part).name
            if name not in names:
                names.append(name)
    return tuple(Piece(n) for n in names)


def _weapons(text: str) -> tuple[str, ...]:
    return tuple(weapon(t).key for t in text.split(",") if t.strip())


def sheet_from_options(call: Call) -> FacilitySheet:
    """F1/F3/F6/F10/F12: ``add`` options: ``phy= sci= ins= adm= nor=`` or ``roll=yes`` (3d6 down
    the line), ``exp=phy,ins`` (``armor`` for Armor Expertise), ``job=tech``, ``track=N``,
    ``ppe="Hard Hat, Work Boots"``, ``weapon=pistol,light``, ``saves=W,T,E,C,A``, ``parts=N``,
    ``clearance=N``."""
    sheet = FacilitySheet()
    job_text = call.option("job")
    if job_text:
        job = JOBS[job_key(job_text)]
        sheet = evolve(
            sheet,
            job=job.name,
            base=job.saves,
            ppe=tuple(Piece(n) for n in job.ppe),
            parts=job.parts,
            clearance=job.clearance,
            items=tuple(job.uniform.split(", ")) if job.uniform else (),
        )
        for key in job.expertise:
            sheet = with_stat(sheet, key, evolve(stat_of(sheet, key), expertise=True))
    if _flag(call, "roll"):
        for key in STATS:
            total = call.roll("3d6", f"{STAT_NAMES[key]} 3d6").total
            sheet = with_stat(sheet, key, evolve(stat_of(sheet, key), bonus=competence(total)))
        rolled = ", ".join(f"{STAT_NAMES[k]} {signed(stat_of(sheet, k).bonus)}" for k in STATS)
        call.log(f"Employee Competence Scale: {rolled}")
    for key in STATS:
        text = call.option(key)
        if text is not None:
            sheet = with_stat(
                sheet, key, evolve(stat_of(sheet, key), bonus=_bonus(call, key, text))
            )
    exp = call.option("exp")
    if exp:
        words = [w.strip().lower() for w in exp.split(",") if w.strip()]
        if "armor" in words or "armour" in words:
            sheet = evolve(sheet, armor=True)
        for key in stat_keys(",".join(w for w in words if w not in ("armor", "armour"))):
            sheet = with_stat(sheet, key, evolve(stat_of(sheet, key), expertise=True))
    track = call.option("track")
    if track is not None:
        sheet = evolve(sheet, track=call.number(track, "wound track", minimum=1))
    ppe = call.option("ppe")
    if ppe:
        extra = [p for p in _pieces(ppe) if p.name not in {q.name for q in sheet.ppe}]
        sheet = evolve(sheet, ppe=sheet.ppe + tuple(extra))
    saves = call.option("saves")
    if saves:
        sheet = evolve(sheet, base=_saves(saves))
    weapons = call.option("weapon")
    if weapons:
        sheet = evolve(sheet, weapons=_weapons(weapons))
    sheet = evolve(
        sheet,
        parts=call.int_option("parts", "Spare Parts", sheet.parts, minimum=0),
        clearance=call.int_option("clearance", "Clearance", sheet.clearance, minimum=0),
    )
    return sheet


# -- small helpers ---------------------------------------------------------------------------------


def _put(call: Call, c: Combatant, sheet: FacilitySheet) -> None:
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


def _tn(call: Call) -> int:
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


def _check_exp(c: Combatant, key: str, exp: bool) -> None:
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
    _check_exp(c, key, exp)
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
    return ok


def _can_salvage(c: Combatant, key: str) -> None:
    if impaired(sheet_of(c), key):
        raise CommandError(f"{c.name}'s {STAT_NAMES[key]} is Impaired: no Salvage (F2)")


def _need_sheet_stats(c: Combatant) -> None:
    if simple(sheet_of(c)):
        raise CommandError(f"{c.name} has a simple wound track (F10), not five stats")


def _inflict(
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
            f"{landing.lost} wound(s) beyond {c.name}'s track capacity {s.track}: not kept",
            Kind.EFFECT,
        )
    elif landing.lost:
        call.log(f"{landing.lost} wound(s) have nowhere left to go", Kind.EFFECT)
    _put(call, c, new)


def _target_stat(
    call: Call, c: Combatant, hazard: str, to: str | None, kind: str
) -> tuple[str, str]:
    """F5: the GM's stat (``to=``) or the hazard → stat suggestion."""
    if to:
        return stat_key(to), "GM's choice"
    key, why = suggest_stat(hazard, kind)
    return key, f"suggested: {why}"


def _spill(call: Call) -> list[str]:
    text = call.option("spill")
    return stat_keys(text) if text else []


def _mark_attack(call: Call, c: Combatant, force: bool) -> None:
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


# -- F2 checks and Salvage -------------------------------------------------------------------------


@command(
    "try",
    "try WHO STAT [tn=12] [exp=yes] [help=A,B:sci] [mod=N] [d20=N]",
    "F2 roll a stat: d20 + bonus ≥ TN; on a failure 'salvage WHO' may give a Partial",
    group="facility",
)
def try_roll(call: Call) -> Encounter:
    c = call.combatant(call.arg(0, "who rolls"))
    _need_sheet_stats(c)
    key = stat_key(call.arg(1, "a stat (phy, sci, ins, adm, nor)"))
    call.expect_args(2)
    tn, mod, exp = _tn(call), call.int_option("mod", "modifier", 0), _flag(call, "exp")
    helpers = helpers_from(call, call.option("help"), c, key)
    call.enc = clear_pending(call.enc, c.id)
    if roll_check(call, c, key, tn, mod, exp, helpers, call.option("d20"), STAT_NAMES[key]):
        return call.enc
    if not impaired(sheet_of(c), key):
        call.enc = set_pending(call.enc, Pending(c.id, Step.CHECK, key, tn, mod, exp))
        call.log(f"'salvage {c.id}' to try for a Partial Success")
    return call.enc


def _salvage_roll(call: Call, c: Combatant, p: Pending, what: str) -> bool:
    _can_salvage(c, p.stat)
    helpers = helpers_from(
        call, call.option("help"), c, p.stat, insight_only=p.step is Step.INITIATIVE
    )
    exp = p.exp and not impaired(sheet_of(c), p.stat)
    return roll_check(call, c, p.stat, p.tn, p.mod, exp, helpers, call.option("d20"), what)


@command(
    "salvage",
    "salvage [WHO] [help=A,B] [d20=N] [vanguard=WHO] [to=STAT] [back=N]",
    "F2 Salvage a failed roll (a check, initiative, an attack miss, a Break or heal roll)",
    group="facility",
)
def salvage(call: Call) -> Encounter:
    st = state_of(call.enc)
    if call.args:
        c = call.combatant(call.arg(0, "whose roll"))
        p = pending_of(call.enc, c.id)
    else:
        candidates = [x for x in st.pending if x.step is not Step.HIT]
        if len(candidates) != 1:
            raise CommandError("name whose failed roll to salvage: salvage WHO")
        p = candidates[0]
        c = call.enc.get(p.who)
    call.expect_args(1)
    if p is None:
        raise CommandError(
            f"{c.name} has no failed roll to salvage (saves, help and Salvages cannot be Salvaged)"
        )
    if p.step is Step.HIT:
        raise CommandError(f"{c.name}'s attack hit: 'deal {c.id}' or 'crit {c.id}'")
    call.enc = clear_pending(call.enc, c.id)
    if p.step is Step.INITIATIVE:
        return _salvage_initiative(call, c, p)
    if p.step is Step.MISS:
        return _salvage_attack(call, c, p)
    ok = _salvage_roll(call, c, p, f"Salvage of {STAT_NAMES[p.stat]}")
    if p.step is Step.CHECK:
        call.log("Partial Success" if ok else "Failure: the consequences stand")
    elif p.step is Step.BREAK:
        if ok:
            _heal_one(call, c, p.heal, "Break, Partial Success")
        else:
            call.log(f"{c.name}'s Break brings no relief")
    elif p.step is Step.TEND:
        target = call.enc.get(p.target)
        if ok:
            _move_wound(call, target, p.heal, call.option("to"))
        else:
            call.log(f"{c.name} cannot help {target.name}'s wound")
    return call.enc


def _salvage_initiative(call: Call, c: Combatant, p: Pending) -> Encounter:
    """F7: a Salvaged initiative roll turns a Failure into a Partial Success (vanguard PC)."""
    enc = call.enc
    if enc.phase is not Phase.ACTIVE or enc.round != 1 or enc.turn != 0:
        raise CommandError("too late: the enemies' first turn is over")
    v = call.option("vanguard")
    vanguard = check_vanguard(enc, v, call).id if v else state_of(enc).vanguard
    if not _salvage_roll(call, c, p, "Salvage of initiative"):
        call.log("Initiative stays a Failure: the enemies go first")
        return call.enc
    apply_partial(call, vanguard)
    return restart_round_one(call)


@command(
    "vanguard",
    "vanguard WHO",
    "F7 elect the PC who acts before the enemies after a Partial Success on initiative",
    group="facility",
)
def vanguard(call: Call) -> Encounter:
    c = check_vanguard(call.enc, call.arg(0, "the vanguard PC"), call)
    call.expect_args(1)
    st = state_of(call.enc)
    if not st.partial or call.enc.round > 1:
        raise CommandError("no vanguard to elect: only after a Partial Success on initiative")
    if call.enc.current != VANGUARD:
        raise CommandError("the vanguard's turn is over")
    old = st.vanguard
    call.enc = evolve(call.enc, state=evolve(st, vanguard=c.id))
    call.enc = call.enc.update(c.id, sheet=evolve(sheet_of(c), attack_used=False, other_used=False))
    if old and old != c.id and call.enc.has(old):
        o = call.enc.get(old)
        call.enc = call.enc.update(
            old, sheet=evolve(sheet_of(o), attack_used=False, other_used=False)
        )
    call.log(f"{c.name} is the vanguard: acts now, skips the PCs' first turn")
    return call.enc


# -- F3 saves, F5 harm -----------------------------------------------------------------------------


def _save_roll(call: Call, c: Combatant, hazard: str, tag: str, tn: int, text: str | None) -> bool:
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


@command(
    "save",
    "save WHO HAZARD [tag=sonic] [tn=12] [d20=N]",
    "F3 roll a save: d20 + save ≥ TN (no Salvage)",
    group="facility",
)
def save(call: Call) -> Encounter:
    c = call.combatant(call.arg(0, "who saves"))
    hazard = save_key(
        call.arg(1, "a hazard (weapons, trauma, explosions, contaminants, anomalies)")
    )
    call.expect_args(2)
    tag = tag_key(call.option("tag") or "") if call.option("tag") else ""
    _save_roll(call, c, hazard, tag, _tn(call), call.option("d20"))
    return call.enc


@command(
    "harm",
    "harm WHO N HAZARD [save=no|pass|fail] [d20=N] [tag=T] [as=KIND] [to=STAT] [spill=S,S] "
    "[ablate=PPE|no] [tn=12] [by=WHO]",
    "F5 harm: a save; on a failure ablate PPE that covers the hazard, or take N wounds (F4)",
    group="facility",
)
def harm(call: Call) -> Encounter:
    c = call.combatant(call.arg(0, "who is harmed"))
    _no_pending_harm(call, c)
    count = call.number(call.arg(1, "a number of wounds"), "wounds", minimum=1)
    hazard = save_key(
        call.arg(2, "a hazard (weapons, trauma, explosions, contaminants, anomalies)")
    )
    call.expect_args(3)
    tag_text = call.option("tag")
    tag = tag_key(tag_text) if tag_text else ""
    kind = call.option("as") or ""
    key, why = _target_stat(call, c, hazard, call.option("to"), kind)
    spill = _spill(call)
    ablate_text = call.option("ablate")
    tn = _tn(call)
    by = call.option("by")
    if by:
        _mark_attack(call, call.combatant(by), _flag(call, "force"))
    save_text = (call.option("save") or call.option("d20") or "").strip().lower()
    if save_text in ("no", "none"):
        ok = False
        call.log(f"{c.name} gets no save against {count} {hazard} wounds")
    elif save_text in ("fail", "failed", "failure"):
        ok = False
        call.log(f"{c.name} fails the {hazard} save (GM)", Kind.OVERRIDE)
    elif save_text in ("pass", "passed", "success", "ok"):
        ok = True
        call.log(f"{c.name} makes the {hazard} save (GM)", Kind.OVERRIDE)
    else:
        ok = _save_roll(call, c, hazard, tag, tn, save_text or None)
    if ok:
        call.log(f"{c.name} avoids the harm")
        return call.enc
    pending = PendingHarm(c.id, count, hazard, tag, key, tuple(spill), kind)
    if ablate_text and ablate_text.lower() not in _NO:
        return _do_ablate(call, c, pending, ablate_text)
    cover = covering(sheet_of(c), hazard, tag)
    if cover and not ablate_text:
        call.enc = set_harm(call.enc, pending)
        names = ", ".join(f"{p.name} ({p.marks}/{p.item.rating})" for p in cover)
        call.log(
            f"{c.name} may ablate {names}: 'ablate {c.id} PIECE', or 'suffer {c.id}' to take "
            f"{count} on {STAT_NAMES[key] if not simple(sheet_of(c)) else 'the track'} ({why})"
        )
        return call.enc
    _inflict(call, c, count, key, spill, why)
    return call.enc


def _no_pending_harm(call: Call, c: Combatant) -> None:
    if harm_of(call.enc, c.id) is not None:
        raise CommandError(
            f"{c.name} still has a failed save pending: 'ablate {c.id}' or 'suffer {c.id}' first"
        )


def _do_ablate(call: Call, c: Combatant, h: PendingHarm, text: str) -> Encounter:
    new, piece = ablate(sheet_of(c), text, h.hazard, h.tag)
    call.enc = clear_harm(call.enc, c.id)
    _put(call, c, new)
    gone = "" if piece.protects else f"; {piece.name} is exhausted and loses its bonuses"
    call.log(
        f"{c.name} ablates {piece.name} ({piece.marks}/{piece.item.rating}): "
        f"the save succeeds{gone}",
        Kind.EFFECT,
    )
    return call.enc


@command(
    "ablate",
    "ablate WHO [PPE]",
    "F5 ablate a worn PPE piece that covers the pending hazard: mark it, the save succeeds",
    group="facility",
)
def ablate_cmd(call: Call) -> Encounter:
    c = call.combatant(call.arg(0, "who ablates"))
    h = harm_of(call.enc, c.id)
    if h is None:
        raise CommandError(
            f"{c.name} has no failed save to ablate; to mark PPE by hand: ppe {c.id} mark PIECE"
        )
    if len(call.args) > 1:
        text = " ".join(call.args[1:])
    else:
        cover = covering(sheet_of(c), h.hazard, h.tag)
        if len(cover) != 1:
            names = ", ".join(p.name for p in cover) or "nothing"
            raise CommandError(f"name the piece to ablate: {names}")
        text = cover[0].name
    return _do_ablate(call, c, h, text)


@command(
    "suffer",
    "suffer WHO [STAT] [spill=S,S]",
    "F5 take the pending failed save's wounds (on the suggested stat, or STAT) instead of ablating",
    group="facility",
)
def suffer(call: Call) -> Encounter:
    c = call.combatant(call.arg(0, "who takes the wounds"))
    h = harm_of(call.enc, c.id)
    if h is None:
        raise CommandError(f"{c.name} has no pending harm: 'wound {c.id} N STAT' to wound directly")
    call.expect_args(2)
    key, why = (
        (stat_key(call.args[1]), "GM's choice") if len(call.args) > 1 else (h.stat, "suggested")
    )
    spill = _spill(call) or list(h.spill)
    call.enc = clear_harm(call.enc, c.id)
    _inflict(call, c, h.wounds, key, spill, why)
    return call.enc


@command(
    "wound",
    "wound WHO N [STAT] [spill=S,S]",
    "F4 put N wounds on a stat (default Physique) or a simple track, with spill-over; no save",
    group="facility",
)
def wound(call: Call) -> Encounter:
    c = call.combatant(call.arg(0, "who is wounded"))
    count = call.number(call.arg(1, "a number of wounds"), "wounds", minimum=1)
    call.expect_args(3)
    key = stat_key(call.args[2]) if len(call.args) > 2 else "phy"
    _inflict(call, c, count, key, _spill(call), "GM")
    return call.enc


# -- F8 attacks ------------------------------------------------------------------------------------


def _weapon_of(call: Call, c: Combatant, text: str | None) -> str:
    s = sheet_of(c)
    if text:
        return weapon(text).key
    return s.weapons[0] if s.weapons else "unarmed"


def _out_of_ammo(call: Call, c: Combatant, wkey: str, dice: list[int]) -> None:
    """F8: any die of a gun's attack showing a 1 empties it until reloaded."""
    w = weapon(wkey)
    if not w.gun or 1 not in dice:
        return
    c = call.enc.get(c.id)
    s = sheet_of(c)
    if wkey not in s.empty:
        call.enc = call.enc.update(c.id, sheet=evolve(s, empty=(*s.empty, wkey)))
        call.log(
            f"A die showed 1: {c.name}'s {w.name} is out of ammo ('rearm {c.id}')", Kind.EFFECT
        )


@command(
    "strike",
    "strike WHO TARGET [weapon=W] [stat=phy] [vs=weapons] [to=STAT] [as=KIND] [mod=N] [tn=N] "
    "[exp=yes] [help=A] [d20=N] [force=yes]",
    "F8 a PC attack: d20 + stat vs 10 + target's save; then 'deal'/'crit' or 'miss'/'salvage'",
    group="facility",
)
def strike(call: Call) -> Encounter:
    c = call.combatant(call.arg(0, "the attacker"))
    target = call.combatant(call.arg(1, "the target"))
    call.expect_args(2)
    _need_sheet_stats(c)
    key = stat_key(call.option("stat") or "phy")
    vs = save_key(call.option("vs") or "weapons")
    wkey = _weapon_of(call, c, call.option("weapon"))
    w = weapon(wkey)
    if wkey in sheet_of(c).empty:
        raise CommandError(f"{c.name}'s {w.name} is out of ammo: 'rearm {c.id}' first")
    mod = call.int_option("mod", "modifier", 0)
    tn_text = call.option("tn")
    save = save_value(sheet_of(target), vs)
    tn = call.number(tn_text, "target number", minimum=1) if tn_text else 10 + save + mod
    exp = _flag(call, "exp")
    to = call.option("to")
    kind = call.option("as") or ""
    if to:
        stat_key(to)
    suggest_stat(vs, kind)
    helpers = helpers_from(call, call.option("help"), c, key)
    _mark_attack(call, c, _flag(call, "force"))
    call.enc = clear_pending(call.enc, c.id)
    call.log(
        f"{c.name} attacks {target.name} with {w.name} (TN {tn} = 10 + {vs} save {signed(save)}"
        + (f" {signed(mod)}" if mod and not tn_text else "")
        + ")"
    )
    dice: list[int] = []
    ok = roll_check(
        call,
        c,
        key,
        tn,
        0,
        exp,
        helpers,
        call.option("d20"),
        f"attack ({STAT_NAMES[key]})",
        dice,
    )
    _out_of_ammo(call, c, wkey, dice)
    p = Pending(
        c.id, Step.HIT if ok else Step.MISS, key, tn, 0, exp, target.id, wkey, vs, to or "", kind
    )
    call.enc = set_pending(call.enc, p)
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
        value = call.number(text, "damage", minimum=0)
        call.log(f"Damage set by the GM: {value}", Kind.OVERRIDE)
        return value
    w = weapon(p.weapon)
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
    key, why = _target_stat(call, target, p.vs, p.to or None, p.kind)
    _inflict(call, target, amount, key, _spill(call), why)


def _used_up(call: Call, c: Combatant, p: Pending) -> None:
    w = weapon(p.weapon)
    s = sheet_of(call.enc.get(c.id))
    if w.consumable and p.weapon in s.weapons:
        ws = list(s.weapons)
        ws.remove(p.weapon)
        call.enc = call.enc.update(c.id, sheet=evolve(s, weapons=tuple(ws)))
        call.log(f"{c.name}'s {w.name} is used up")


def _partial(call: Call, c: Combatant, p: Pending) -> None:
    """F8 Partial Success: deal the damage, and suffer the enemy's damage with no save."""
    _hurt_target(call, p, _damage(call, c, p, "Partial"))
    back = call.option("back")
    if back is None:
        call.log(f"Partial: {c.name} also suffers damage, no save: 'harm {c.id} N weapons save=no'")
    else:
        _no_pending_harm(call, c)
        n = call.number(back, "damage suffered", minimum=1)
        hazard = save_key(call.option("backvs") or "weapons")
        h = PendingHarm(c.id, n, hazard, "", suggest_stat(hazard)[0])
        call.log(f"Partial: {c.name} suffers {n} {hazard} wound(s) with no save")
        cover = covering(sheet_of(call.enc.get(c.id)), hazard)
        if cover:
            call.enc = set_harm(call.enc, h)
            names = ", ".join(x.name for x in cover)
            call.log(f"{c.name} may ablate {names} ('ablate {c.id}'), or 'suffer {c.id}'")
        else:
            _inflict(call, c, n, h.stat, [], "Partial")
    _used_up(call, c, p)


@command(
    "deal",
    "deal WHO [dmg=N] [spill=S,S]",
    "F8 deal a hit's weapon damage to its target",
    group="facility",
)
def deal(call: Call) -> Encounter:
    c, p = _need_attack(call, Step.HIT)
    call.expect_args(1)
    call.enc = clear_pending(call.enc, c.id)
    _hurt_target(call, p, _damage(call, c, p, "hit"))
    _used_up(call, c, p)
    return call.enc


@command(
    "crit",
    "crit WHO [called=yes] [d20=N] [back=N] [dmg=N] [spill=S,S]",
    "F8 roll a Critical after a hit: max damage + 1d6 (or crit dice); a failure is a Partial",
    group="facility",
)
def crit(call: Call) -> Encounter:
    c, p = _need_attack(call, Step.HIT)
    call.expect_args(1)
    if impaired(sheet_of(c), p.stat):
        raise CommandError(
            f"{c.name}'s {STAT_NAMES[p.stat]} is Impaired: a Critical counts as a Salvage"
        )
    call.enc = clear_pending(call.enc, c.id)
    w = weapon(p.weapon)
    dice: list[int] = []
    exp = p.exp and not impaired(sheet_of(c), p.stat)
    ok = roll_check(call, c, p.stat, p.tn, p.mod, exp, [], call.option("d20"), "Critical", dice)
    _out_of_ammo(call, c, p.weapon, dice)
    if not ok:
        call.log("The Critical fails: a Partial Success")
        _partial(call, c, p)
        return call.enc
    called = _flag(call, "called")
    text = call.option("dmg")
    if text is not None:
        amount = call.number(text, "damage", minimum=0)
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


@command(
    "miss",
    "miss WHO",
    "F8 accept a missed attack (instead of a Salvage)",
    group="facility",
)
def miss(call: Call) -> Encounter:
    c, p = _need_attack(call, Step.MISS)
    call.expect_args(1)
    call.enc = clear_pending(call.enc, c.id)
    call.log(f"{c.name}'s attack misses")
    _used_up(call, c, p)
    return call.enc


def _salvage_attack(call: Call, c: Combatant, p: Pending) -> Encounter:
    """F8 Salvage of a miss: success → Partial; failure → a miss plus a complication."""
    dice: list[int] = []
    _can_salvage(c, p.stat)
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


@command(
    "rearm",
    "rearm WHO [WEAPON]",
    "F8 reload a gun that ran out of ammo",
    group="facility",
)
def rearm(call: Call) -> Encounter:
    c = call.combatant(call.arg(0, "who reloads"))
    s = sheet_of(c)
    if len(call.args) > 1:
        wkey = weapon(" ".join(call.args[1:])).key
        if wkey not in s.empty:
            raise CommandError(f"{c.name}'s {weapon(wkey).name} is not out of ammo")
        keys = [wkey]
    else:
        if not s.empty:
            raise CommandError(f"{c.name} has no gun out of ammo")
        keys = list(s.empty)
    call.enc = call.enc.update(
        c.id, sheet=evolve(s, empty=tuple(k for k in s.empty if k not in keys))
    )
    call.log(f"{c.name} reloads {', '.join(weapon(k).name for k in keys)}")
    return call.enc


@command(
    "mark",
    "mark WHO attack|other|both|none",
    "F7 spend (or, with none, give back) a combatant's marks this side turn",
    group="facility",
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


# -- F9 healing and scars --------------------------------------------------------------------------


def _heal_one(call: Call, c: Combatant, key: str, why: str) -> None:
    c = call.enc.get(c.id)
    new, took = remove_wounds(sheet_of(c), key, 1)
    where = "the track" if simple(new) else STAT_NAMES[key]
    call.log(
        f"{c.name} loses {took} wound on {where} ({why})"
        if took
        else f"{c.name} has no wound to heal on {where}",
        Kind.EFFECT,
    )
    _put(call, c, new)


def _move_wound(call: Call, c: Combatant, key: str, to: str | None) -> None:
    """F9 heal another, Partial: the wound moves to another stat (the GM's, or proposed)."""
    c = call.enc.get(c.id)
    s = sheet_of(c)
    if simple(s):
        call.log(f"{c.name}'s wound stays (a simple track has nowhere to move it)")
        return
    dest = stat_key(to) if to else propose_spill(s, [key])
    if dest == key:
        raise CommandError("a Partial moves the wound to a different stat")
    if not dest:
        call.log(f"No other stat can take {c.name}'s wound: it stays on {STAT_NAMES[key]}")
        return
    if to and impaired(s, dest):
        raise CommandError(f"cannot move the wound onto {STAT_NAMES[dest]}: it is Impaired")
    new, took = remove_wounds(s, key, 1)
    if took:
        new, _ = add_wounds(new, dest, 1)
    call.log(
        f"Partial: {c.name}'s wound moves from {STAT_NAMES[key]} to {STAT_NAMES[dest]}", Kind.EFFECT
    )
    _put(call, c, new)


def _wounded_stat(c: Combatant, text: str | None, default: str) -> str:
    s = sheet_of(c)
    if simple(s):
        if not s.track_wounds:
            raise CommandError(f"{c.name} has no wounds")
        return "phy"
    key = stat_key(text) if text else default
    if not stat_of(s, key).wounds:
        raise CommandError(f"{c.name}'s {STAT_NAMES[key]} has no wounds; name the stat to heal")
    return key


@command(
    "break",
    "break WHO STAT [tn=12] [exp=yes] [help=A] [d20=N]",
    "F9 rest during a Break: roll a stat; success (or a salvaged Partial) removes 1 wound from it",
    group="facility",
)
def break_(call: Call) -> Encounter:
    c = call.combatant(call.arg(0, "who rests"))
    _need_sheet_stats(c)
    key = stat_key(call.arg(1, "the stat to roll"))
    call.expect_args(2)
    if not stat_of(sheet_of(c), key).wounds:
        raise CommandError(
            f"{c.name}'s {STAT_NAMES[key]} has no wounds: a Break heals the stat rolled, so roll "
            "a wounded one"
        )
    heal = key
    tn, exp = _tn(call), _flag(call, "exp")
    helpers = helpers_from(call, call.option("help"), c, key)
    call.enc = clear_pending(call.enc, c.id)
    if roll_check(
        call, c, key, tn, 0, exp, helpers, call.option("d20"), f"Break ({STAT_NAMES[key]})"
    ):
        _heal_one(call, c, heal, "Break")
    elif not impaired(sheet_of(c), key):
        call.enc = set_pending(call.enc, Pending(c.id, Step.BREAK, key, tn, 0, exp, heal=heal))
        call.log(f"'salvage {c.id}' for a Partial Success")
    return call.enc


@command(
    "tend",
    "tend HEALER TARGET STAT [tn=12] [exp=yes] [help=A] [d20=N]",
    "F9 heal another (Science): success removes a wound from STAT; a salvaged Partial moves it",
    group="facility",
)
def tend(call: Call) -> Encounter:
    healer = call.combatant(call.arg(0, "the healer"))
    target = call.combatant(call.arg(1, "whom to heal"))
    call.expect_args(3)
    _need_sheet_stats(healer)
    if healer.id == target.id:
        raise CommandError("to heal yourself take a Break: break WHO STAT")
    heal = _wounded_stat(target, call.arg(2, "the stat to heal"), "phy")
    tn, exp = _tn(call), _flag(call, "exp")
    helpers = helpers_from(call, call.option("help"), healer, "sci")
    call.enc = clear_pending(call.enc, healer.id)
    if roll_check(
        call, healer, "sci", tn, 0, exp, helpers, call.option("d20"), f"heals {target.name}"
    ):
        _heal_one(call, target, heal, f"healed by {healer.name}")
    elif not impaired(sheet_of(healer), "sci"):
        p = Pending(healer.id, Step.TEND, "sci", tn, 0, exp, target=target.id, heal=heal)
        call.enc = set_pending(call.enc, p)
        call.log(f"'salvage {healer.id} [to=STAT]' for a Partial (the wound moves)")
    return call.enc


@command(
    "shift",
    "shift [WHO ...]",
    "F9 end of a Shift with no strain and no new wounds: 1 wound off every stat (default: all PCs)",
    group="facility",
)
def shift(call: Call) -> Encounter:
    who = [call.combatant(a) for a in call.args] or members(call.enc, PCS)
    if not who:
        raise CommandError("no one to rest: shift WHO")
    for c in who:
        new, healed = shift_heal(sheet_of(c))
        call.log(f"Shift: {c.name} heals {healed} wound{'s' if healed != 1 else ''}", Kind.EFFECT)
        _put(call, c, new)
    return call.enc


@command(
    "scar",
    "scar WHO STAT",
    "F9 turn an Impaired stat's wounds into one Scar (capacity −1, never heals)",
    group="facility",
)
def scar_cmd(call: Call) -> Encounter:
    c = call.combatant(call.arg(0, "who"))
    _need_sheet_stats(c)
    key = stat_key(call.arg(1, "the Impaired stat"))
    call.expect_args(2)
    new = scar(sheet_of(c), key)
    st = stat_of(new, key)
    call.log(
        f"{c.name}'s {STAT_NAMES[key]} wounds become a Scar: capacity now {capacity(st)}",
        Kind.EFFECT,
    )
    _put(call, c, new)
    return call.enc


# -- F6 PPE, F10 fates, C4 overrides ---------------------------------------------------------------


@command(
    "ppe",
    "ppe WHO wear|remove|mark|unmark|repair PIECE[, PIECE]",
    "F6 put on or take off catalog PPE, or set its marks by hand",
    group="facility",
)
def ppe(call: Call) -> Encounter:
    c = call.combatant(call.arg(0, "who"))
    action = call.arg(1, "wear, remove, mark, unmark or repair").lower()
    text = call.rest(2, "a PPE piece (e.g. 'Hard Hat')")
    s = sheet_of(c)
    if action == "wear":
        pieces = _pieces(text)
        dup = [p.name for p in pieces if p.name in {q.name for q in s.ppe}]
        if dup:
            raise CommandError(f"{c.name} already wears {', '.join(dup)}")
        new = evolve(s, ppe=s.ppe + pieces)
        call.log(f"{c.name} puts on {', '.join(p.name for p in pieces)}")
    elif action in ("remove", "off"):
        gone = [find_piece(s, t).name for t in text.split(",") if t.strip()]
        new = evolve(s, ppe=tuple(p for p in s.ppe if p.name not in gone))
        call.log(f"{c.name} takes off {', '.join(gone)}")
    elif action in ("mark", "unmark", "repair"):
        piece = find_piece(s, text)
        delta = {"mark": 1, "unmark": -1, "repair": -piece.marks}[action]
        if action == "mark" and not piece.protects:
            raise CommandError(f"{piece.name} is already exhausted")
        new = mark_piece(s, piece.name, delta)
        p = find_piece(new, piece.name)
        call.log(f"{c.name}'s {p.name}: {p.marks}/{p.item.rating} marks (GM)", Kind.OVERRIDE)
    else:
        raise CommandError("ppe takes wear, remove, mark, unmark or repair")
    _put(call, c, new)
    return call.enc


@command(
    "fate",
    "fate WHO dead|fled|surrendered|out|active|alive",
    "F4/F10 the GM's word on a combatant: dead, fled, surrendered, out; alive overrules death",
    group="facility",
)
def fate(call: Call) -> Encounter:
    c = call.combatant(call.arg(0, "who"))
    word = call.arg(1, "dead, fled, surrendered, out, active or alive").lower()
    call.expect_args(2)
    s = sheet_of(c)
    if word == "alive":
        new = evolve(s, fate=Fate.ACTIVE, overrule=True)
        call.log(f"{c.name} lives on by alternate arrangements (GM)", Kind.OVERRIDE)
    else:
        try:
            f = Fate(word)
        except ValueError:
            raise CommandError("fate takes dead, fled, surrendered, out, active or alive") from None
        new = evolve(s, fate=f, overrule=False if f is Fate.ACTIVE else s.overrule)
        call.log(f"{c.name}: {f.value} (GM)", Kind.OVERRIDE)
    _put(call, c, new)
    return call.enc


_SHEET_INTS = ("track", "track_wounds", "parts", "clearance", "pockets", "slots")


@command(
    "sheet",
    "sheet WHO [phy=+1] [phy_wounds=N] [phy_scars=N] [phy_cap=N] [saves=W,T,E,C,A] [exp=phy] "
    "[track=N] [track_wounds=N] [job=tech] [weapon=W,W] [empty=W,W|none] [parts=N] "
    "[clearance=N] [armor=yes] [items=A,B]",
    "C4 set any sheet value by hand (logged as an override)",
    group="facility",
)
def sheet(call: Call) -> Encounter:
    c = call.combatant(call.arg(0, "whose sheet"))
    call.expect_args(1)
    s = sheet_of(c)
    new = s
    done: list[str] = []
    for key in STATS:
        text = call.option(key)
        if text is not None:
            new = with_stat(new, key, evolve(stat_of(new, key), bonus=_bonus(call, key, text)))
            done.append(f"{key}={signed(stat_of(new, key).bonus)}")
        for part in ("wounds", "scars"):
            text = call.option(f"{key}_{part}")
            if text is not None:
                n = call.number(text, f"{STAT_NAMES[key]} {part}", minimum=0)
                new = with_stat(new, key, changed(stat_of(new, key), {part: n}))
                done.append(f"{key}_{part}={n}")
        text = call.option(f"{key}_cap")
        if text is not None:  # F4: capacity = 3 + bonus − scars: set through the scars
            st = stat_of(new, key)
            n = call.number(text, f"{STAT_NAMES[key]} capacity", minimum=0)
            if n > 3 + st.bonus:
                raise CommandError(
                    f"{STAT_NAMES[key]} capacity is at most 3 + bonus ({3 + st.bonus}) with no "
                    "scars (F4)"
                )
            new = with_stat(new, key, evolve(st, scars=3 + st.bonus - n))
            done.append(f"{key}_cap={n} (scars {3 + st.bonus - n})")
    for key in _SHEET_INTS:
        text = call.option(key)
        if text is not None:
            n = call.number(text, key.replace("_", " "), minimum=0)
            new = changed(new, {key: n})
            done.append(f"{key}={n}")
    if simple(new) and new.track_wounds > new.track:
        if call.has("track_wounds"):
            raise CommandError(
                f"track_wounds: at most the track's capacity {new.track} (F10: wounds beyond it "
                "are not kept)"
            )
        done.append(f"track_wounds={new.track} (capped at the capacity)")
        new = evolve(new, track_wounds=new.track)
    text = call.option("saves")
    if text:
        new = evolve(new, base=_saves(text))
        done.append(f"saves={text}")
    text = call.option("exp")
    if text is not None:
        keys = stat_keys(text) if text.strip() and text.lower() not in _NO else []
        for key in STATS:
            new = with_stat(new, key, evolve(stat_of(new, key), expertise=key in keys))
        done.append(f"exp={','.join(keys) or 'none'}")
    text = call.option("job")
    if text is not None:
        new = evolve(new, job=JOBS[job_key(text)].name if text else "")
        done.append(f"job={new.job or 'none'}")
    text = call.option("weapon")
    if text is not None:
        new = evolve(new, weapons=_weapons(text))
        done.append(f"weapon={','.join(new.weapons)}")
    if call.has("armor"):
        new = evolve(new, armor=_flag(call, "armor"))
        done.append(f"armor={'yes' if new.armor else 'no'}")
    text = call.option("items")
    if text is not None:
        new = evolve(new, items=tuple(t.strip() for t in text.split(",") if t.strip()))
        done.append("items")
    text = call.option("empty")
    if text is not None:  # F8: the guns out of ammo
        keys = [] if text.strip().lower() in _NO else list(_weapons(text))
        guns = [k for k in keys if not weapon(k).gun]
        if guns:
            raise CommandError(f"{weapon(guns[0]).name} is not a gun: only guns run out of ammo")
        new = evolve(new, empty=tuple(dict.fromkeys(keys)))
        done.append(f"empty={','.join(new.empty) or 'none'}")
    if not done:
        raise CommandError("name what to set, e.g. sheet WHO phy=+1 phy_wounds=2 saves=0,0,2,2,0")
    call.log(f"{c.name}'s sheet set by the GM: {' '.join(done)}", Kind.OVERRIDE)
    _put(call, c, new)
    return call.enc


# -- F12 Maintenance Technician --------------------------------------------------------------------


@command(
    "tech",
    "tech WHO workorder|dismantle|barricade|tap|reroute|blast X [TARGET ...] [name=N] "
    "[save=no] [as=KIND] [to=STAT] [tn=12]",
    "F12 a Maintenance Technique: roll Xd6 from Spare Parts; [sum] drives the effect",
    group="facility",
)
def tech(call: Call) -> Encounter:
    c = call.combatant(call.arg(0, "the technician"))
    technique = technique_key(call.arg(1, "a technique"))
    x = call.number(call.arg(2, "how many dice (X)"), "dice", minimum=1)
    targets = [call.combatant(a) for a in call.args[3:]]
    s = sheet_of(c)
    if s.job != JOBS["tech"].name:
        raise CommandError(f"{c.name} is not a Maintenance Technician (sheet {c.id} job=tech)")
    if x > s.parts:
        raise CommandError(
            f"{c.name} has {s.parts} slot(s) of Spare Parts: roll at most {s.parts}d6"
        )
    if technique == "blast" and not targets:
        raise CommandError("Blast needs targets: tech WHO blast X TARGET [TARGET ...]")
    if targets and technique != "blast":
        raise CommandError(f"{technique} takes no targets")
    name = call.option("name") or "Barricade"
    no_save = (call.option("save") or "").lower() in _NO
    kind = call.option("as") or ""
    to = call.option("to")
    tn = _tn(call)
    roll = call.roll(f"{x}d6", f"{c.name} {technique}", c, faces=True)
    total = roll.total
    spent = parts_spent(technique, faces(roll), s.clearance)
    s = evolve(s, parts=s.parts - spent)
    call.enc = call.enc.update(c.id, sheet=s)
    call.log(f"[sum] = {total}; {spent} slot(s) of Spare Parts spent, {s.parts} left", Kind.EFFECT)
    if technique == "workorder":
        call.log(f"Work Order: +{total} to the roll to repair or work Facility systems")
    elif technique == "dismantle":
        call.enc = call.enc.update(c.id, sheet=evolve(s, parts=s.parts + total))
        call.log(f"Dismantle: the equipment becomes {total} Spare Parts", Kind.EFFECT)
    elif technique == "tap":
        call.log(f"Tap: the new access point controls the conduit's flow for {total}")
    elif technique == "reroute":
        call.log(f"Reroute: the conduit extends across {x} room(s), {x} hour(s) of work")
    elif technique == "barricade":
        from facility_tui.call import unique_id

        cap = total * 10
        bar_sheet = FacilitySheet(track=cap, is_object=True)
        b = Combatant(id=unique_id(call.enc, name), name=name, side=c.side, sheet=bar_sheet)
        call.enc = evolve(call.enc, combatants=(*call.enc.combatants, b))
        call.log(
            f"Barricade '{name}': takes {cap} wounds before it falls apart, "
            f"up to {cap}' long and 10' high",
            Kind.EFFECT,
        )
    else:
        shares = blast_shares(total, len(targets))
        for t, share in zip(targets, shares, strict=True):
            if (
                share
                and not no_save
                and not sheet_of(t).is_object
                and _save_roll(call, t, "explosions", "", tn, None)
            ):
                call.log(f"{t.name} halves the share: {share} → {share // 2}")
                share //= 2
            if share < 1:
                call.log(f"{t.name} takes no wounds")
                continue
            key, why = _target_stat(call, t, "explosions", to, kind)
            _inflict(call, t, share, key, [], f"Blast, {why}")
    return call.enc


def catalog_lines() -> list[str]:
    """The PPE catalog as text (docs, help)."""
    out = []
    for p in PPE_CATALOG:
        bonus = ", ".join(f"+{v} {k}" for k, v in p.bonuses + p.narrow)
        covers = ", ".join(sorted(p.covers))
        out.append(
            f"{p.number}. {p.name}: rating {p.rating} ({covers}){'; ' + bonus if bonus else ''}"
        )
    return out


__all__ = ["SAVES", "catalog_lines", "sheet_from_options"]


def set_field(call: Call) -> Encounter:
    """C4 (Facility): ``set WHO FIELD VALUE``, the same as ``sheet WHO FIELD=VALUE``."""
    call.arg(0, "whose value")
    field = call.arg(1, "a value of the sheet (phy_wounds, phy_cap, track_wounds, empty, ...)")
    value = call.rest(2, "a value")
    field = field.lower().replace("-", "_")
    if field in call.options:
        raise CommandError(f"{field} is given twice")
    call.options[field] = value
    call.args = call.args[:1]
    return sheet(call)


_HELP = "the d20 of each helper (help=, in order)"
_D20 = "the d20 (unless d20= gives it)"
_DAMAGE = "the weapon's damage dice unless dmg= (a gun: each die counts, a 1 empties it)"
ROLLS: dict[str, tuple[str, ...]] = (  # the rolls each command can make, in order
    {
        "try": (_HELP, _D20),
        "salvage": (
            _HELP,
            _D20,
            f"a salvaged attack miss (a Partial): {_DAMAGE}",
        ),
        "save": (_D20,),
        "harm": ("the save's d20, unless save= or d20= settles it",),
        "strike": (_HELP, "the attack's d20 (unless d20= gives it; a gun: a 1 empties it)"),
        "deal": (_DAMAGE,),
        "crit": (
            "the Critical's d20 (unless d20= gives it; a gun: a 1 empties it)",
            "success: the crit dice (1d6 or the weapon's; a gun: each die counts) unless "
            "called=yes or dmg=",
            f"failure (a Partial): {_DAMAGE}",
        ),
        "break": (_HELP, _D20),
        "tend": (_HELP, _D20),
        "tech": (
            "the technique's Xd6 (each die counts: a 4+ spends a slot)",
            "Blast: each target's Explosions save d20, in the order named",
        ),
    }
)
