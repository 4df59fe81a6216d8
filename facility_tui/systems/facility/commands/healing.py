"""Facility healing and scars (F9): a Break, tending another's wound, the shift's rest, scars."""

from __future__ import annotations

from facility_tui.commands.grammar import CommandError
from facility_tui.commands.spec import Call
from facility_tui.model.encounter import PCS, Combatant, Encounter, Kind
from facility_tui.systems.facility.commands.helpers import (
    D20_ROLL,
    HELP_ROLLS,
    flag,
    helpers_from,
    need_sheet_stats,
    put_sheet,
    roll_check,
    rule,
    tn_option,
)
from facility_tui.systems.facility.engine import clear_pending, members, set_pending, sheet_of
from facility_tui.systems.facility.rules import (
    STAT_NAMES,
    add_wounds,
    capacity,
    impaired,
    propose_spill,
    remove_wounds,
    scar,
    shift_heal,
    simple,
    stat_key,
    stat_of,
)
from facility_tui.systems.facility.sheet import Pending, Step


def heal_one(call: Call, c: Combatant, key: str, why: str) -> None:
    c = call.enc.get(c.id)
    new, took = remove_wounds(sheet_of(c), key, 1)
    where = "the track" if simple(new) else STAT_NAMES[key]
    call.log(
        f"{c.name} loses {took} wound on {where} ({why})"
        if took
        else f"{c.name} has no wound to heal on {where}",
        Kind.EFFECT,
    )
    put_sheet(call, c, new)


def move_wound(call: Call, c: Combatant, key: str, to: str | None) -> None:
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
    put_sheet(call, c, new)


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


@rule(
    "break",
    "break WHO STAT [tn=12] [exp=yes] [help=A] [d20=N]",
    "F9 rest during a Break: roll a stat; success (or a salvaged Partial) removes 1 wound from it",
)
def break_(call: Call) -> Encounter:
    c = call.combatant(call.arg(0, "who rests"))
    need_sheet_stats(c)
    key = stat_key(call.arg(1, "the stat to roll"))
    call.expect_args(2)
    if not stat_of(sheet_of(c), key).wounds:
        raise CommandError(
            f"{c.name}'s {STAT_NAMES[key]} has no wounds: a Break heals the stat rolled, so roll "
            "a wounded one"
        )
    heal = key
    tn, exp = tn_option(call), flag(call, "exp")
    helpers = helpers_from(call, call.option("help"), c, key)
    call.enc = clear_pending(call.enc, c.id)
    if roll_check(
        call, c, key, tn, 0, exp, helpers, call.option("d20"), f"Break ({STAT_NAMES[key]})"
    ):
        heal_one(call, c, heal, "Break")
    elif not impaired(sheet_of(c), key):
        call.enc = set_pending(call.enc, Pending(c.id, Step.BREAK, key, tn, 0, exp, heal=heal))
        call.log(f"'salvage {c.id}' for a Partial Success")
    return call.enc


@rule(
    "tend",
    "tend HEALER TARGET STAT [tn=12] [exp=yes] [help=A] [d20=N]",
    "F9 heal another (Science): success removes a wound from STAT; a salvaged Partial moves it",
)
def tend(call: Call) -> Encounter:
    healer = call.combatant(call.arg(0, "the healer"))
    target = call.combatant(call.arg(1, "whom to heal"))
    call.expect_args(3)
    need_sheet_stats(healer)
    if healer.id == target.id:
        raise CommandError("to heal yourself take a Break: break WHO STAT")
    heal = _wounded_stat(target, call.arg(2, "the stat to heal"), "phy")
    tn, exp = tn_option(call), flag(call, "exp")
    helpers = helpers_from(call, call.option("help"), healer, "sci")
    call.enc = clear_pending(call.enc, healer.id)
    if roll_check(
        call, healer, "sci", tn, 0, exp, helpers, call.option("d20"), f"heals {target.name}"
    ):
        heal_one(call, target, heal, f"healed by {healer.name}")
    elif not impaired(sheet_of(healer), "sci"):
        p = Pending(healer.id, Step.TEND, "sci", tn, 0, exp, target=target.id, heal=heal)
        call.enc = set_pending(call.enc, p)
        call.log(f"'salvage {healer.id} [to=STAT]' for a Partial (the wound moves)")
    return call.enc


@rule(
    "shift",
    "shift [WHO ...]",
    "F9 end of a Shift with no strain and no new wounds: 1 wound off every stat (default: all PCs)",
)
def shift(call: Call) -> Encounter:
    who = [call.combatant(a) for a in call.args] or members(call.enc, PCS)
    if not who:
        raise CommandError("no one to rest: shift WHO")
    for c in who:
        new, healed = shift_heal(sheet_of(c))
        call.log(f"Shift: {c.name} heals {healed} wound{'s' if healed != 1 else ''}", Kind.EFFECT)
        put_sheet(call, c, new)
    return call.enc


@rule(
    "scar",
    "scar WHO STAT",
    "F9 turn an Impaired stat's wounds into one Scar (capacity −1, never heals)",
)
def scar_cmd(call: Call) -> Encounter:
    c = call.combatant(call.arg(0, "who"))
    need_sheet_stats(c)
    key = stat_key(call.arg(1, "the Impaired stat"))
    call.expect_args(2)
    new = scar(sheet_of(c), key)
    st = stat_of(new, key)
    call.log(
        f"{c.name}'s {STAT_NAMES[key]} wounds become a Scar: capacity now {capacity(st)}",
        Kind.EFFECT,
    )
    put_sheet(call, c, new)
    return call.enc


ROLLS: dict[str, tuple[str, ...]] = {  # the rolls each command can make, in order
    "break": (HELP_ROLLS, D20_ROLL),
    "tend": (HELP_ROLLS, D20_ROLL),
}
