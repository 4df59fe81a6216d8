"""Facility checks and saves: a stat roll (F2) and its Salvage, the vanguard after a Partial
Success on initiative (F7), a save (F3).
"""

from __future__ import annotations

from facility_tui.commands.grammar import CommandError
from facility_tui.commands.spec import Call
from facility_tui.model.encounter import Combatant, Encounter, Phase, evolve
from facility_tui.systems.facility.commands.attacks import salvage_attack
from facility_tui.systems.facility.commands.healing import heal_one, move_wound
from facility_tui.systems.facility.commands.helpers import (
    D20_ROLL,
    DAMAGE_ROLLS,
    HELP_ROLLS,
    can_salvage,
    check_total,
    flag,
    helpers_from,
    need_sheet_stats,
    roll_check,
    rule,
    save_roll,
    tn_option,
)
from facility_tui.systems.facility.engine import (
    VANGUARD,
    apply_partial,
    backlash_line,
    check_vanguard,
    clear_pending,
    pending_of,
    restart_round_one,
    set_pending,
    sheet_of,
    state_of,
)
from facility_tui.systems.facility.rules import STAT_NAMES, impaired, save_key, stat_key, tag_key
from facility_tui.systems.facility.sheet import Pending, Step

# -- F2 checks and Salvage -------------------------------------------------------------------------


@rule(
    "try",
    "try WHO STAT [tn=12] [exp=yes] [help=A,B:sci] [mod=N] [d20=N]",
    "F2 roll a stat: d20 + bonus ≥ TN; on a failure 'salvage WHO' may give a Partial",
)
def try_roll(call: Call) -> Encounter:
    c = call.combatant(call.arg(0, "who rolls"))
    need_sheet_stats(c)
    key = stat_key(call.arg(1, "a stat (phy, sci, ins, adm, nor)"))
    call.expect_args(2)
    tn, mod, exp = tn_option(call), call.int_option("mod", "modifier", 0), flag(call, "exp")
    helpers = helpers_from(call, call.option("help"), c, key)
    call.enc = clear_pending(call.enc, c.id)
    total = check_total(call, c, key, tn, mod, exp, helpers, call.option("d20"), STAT_NAMES[key])
    if total >= tn:
        return call.enc
    if not impaired(sheet_of(c), key):
        call.enc = set_pending(call.enc, Pending(c.id, Step.CHECK, key, tn, mod, exp, total=total))
        call.log(f"'salvage {c.id}' to try for a Partial Success")
    return call.enc


def _salvage_roll(call: Call, c: Combatant, p: Pending, what: str) -> bool:
    can_salvage(c, p.stat)
    helpers = helpers_from(
        call, call.option("help"), c, p.stat, insight_only=p.step is Step.INITIATIVE
    )
    exp = p.exp and not impaired(sheet_of(c), p.stat)
    return roll_check(call, c, p.stat, p.tn, p.mod, exp, helpers, call.option("d20"), what)


@rule(
    "salvage",
    "salvage [WHO] [help=A,B] [d20=N] [vanguard=WHO] [to=STAT] [back=N]",
    "F2 Salvage a failed roll (a check, initiative, an attack miss, a Break or heal roll)",
)
def salvage(call: Call) -> Encounter:
    st = state_of(call.enc)
    if call.args:
        c = call.combatant(call.arg(0, "whose roll"))
        p = pending_of(call.enc, c.id)
    else:
        candidates = [x for x in st.pending if x.step not in (Step.HIT, Step.BACKLASH)]
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
    if p.step is Step.BACKLASH:
        raise CommandError(
            f"{c.name} has no failed roll to salvage (a Salvage cannot be Salvaged); it owes "
            f"a Partial's backlash: {backlash_line(c.id)}"
        )
    call.enc = clear_pending(call.enc, c.id)
    if p.step is Step.INITIATIVE:
        return _salvage_initiative(call, c, p)
    if p.step is Step.MISS:
        return salvage_attack(call, c, p)
    ok = _salvage_roll(call, c, p, f"Salvage of {STAT_NAMES[p.stat]}")
    if p.step is Step.CHECK:
        call.log("Partial Success" if ok else "Failure: the consequences stand")
    elif p.step is Step.BREAK:
        if ok:
            heal_one(call, c, p.heal, "Break, Partial Success")
        else:
            call.log(f"{c.name}'s Break brings no relief")
    elif p.step is Step.TEND:
        target = call.enc.get(p.target)
        if ok:
            move_wound(call, target, p.heal, call.option("to"))
        else:
            call.log(f"{c.name} cannot help {target.name}'s wound")
    return call.enc


# the failed rolls a Salvage may follow (a miss has its own 'miss')
ACCEPTABLE = (Step.CHECK, Step.INITIATIVE, Step.BREAK, Step.TEND)


@rule(
    "accept",
    "accept WHO",
    "F2 live with a failed roll (a check, initiative, a Break or heal roll) instead of a Salvage",
)
def accept(call: Call) -> Encounter:
    c = call.combatant(call.arg(0, "whose roll"))
    call.expect_args(1)
    p = pending_of(call.enc, c.id)
    if p is None or p.step not in ACCEPTABLE:
        hint = (
            {
                Step.HIT: f": its attack hit ('deal {c.id}' or 'crit {c.id}')",
                Step.MISS: f": its attack missed ('miss {c.id}' or 'salvage {c.id}')",
                Step.BACKLASH: f": it owes a Partial's backlash ({backlash_line(c.id)})",
            }.get(p.step, "")
            if p is not None
            else ""
        )
        raise CommandError(f"{c.name} has no failed roll waiting for a Salvage{hint}")
    call.enc = clear_pending(call.enc, c.id)
    call.log(f"{c.name}'s failed roll stands (no Salvage)")
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


@rule(
    "vanguard",
    "vanguard WHO",
    "F7 elect the PC who acts before the enemies after a Partial Success on initiative",
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


# -- F3 saves --------------------------------------------------------------------------------------


@rule(
    "save",
    "save WHO HAZARD [tag=sonic] [tn=12] [d20=N]",
    "F3 roll a save: d20 + save ≥ TN (no Salvage)",
)
def save(call: Call) -> Encounter:
    c = call.combatant(call.arg(0, "who saves"))
    hazard = save_key(
        call.arg(1, "a hazard (weapons, trauma, explosions, contaminants, anomalies)")
    )
    call.expect_args(2)
    tag = tag_key(call.option("tag") or "") if call.option("tag") else ""
    save_roll(call, c, hazard, tag, tn_option(call), call.option("d20"))
    return call.enc


ROLLS: dict[str, tuple[str, ...]] = {  # the rolls each command can make, in order
    "try": (HELP_ROLLS, D20_ROLL),
    "salvage": (
        HELP_ROLLS,
        D20_ROLL,
        f"a salvaged attack miss (a Partial): {DAMAGE_ROLLS}",
    ),
    "save": (D20_ROLL,),
}
