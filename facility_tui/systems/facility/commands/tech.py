"""Facility's Maintenance Technician (F12): work orders, dismantling, barricades, taps,
rerouting and blasts, paid in Spare Parts and slots.
"""

from __future__ import annotations

from attrs import evolve

from facility_tui.commands.grammar import CommandError
from facility_tui.commands.spec import Call
from facility_tui.model.encounter import Combatant, Encounter, Kind
from facility_tui.model.text import counted
from facility_tui.systems.facility.commands.helpers import (
    NO_WORDS,
    faces,
    inflict,
    rule,
    save_roll,
    target_stat,
    tn_option,
)
from facility_tui.systems.facility.engine import clear_pending, pending_of, set_pending, sheet_of
from facility_tui.systems.facility.rules import (
    JOBS,
    STAT_NAMES,
    blast_shares,
    parts_spent,
    technique_key,
)
from facility_tui.systems.facility.sheet import FacilitySheet, Step


@rule(
    "tech",
    "tech WHO workorder|dismantle|barricade|tap|reroute|blast X [TARGET ...] [name=N] "
    "[save=no] [as=KIND] [to=STAT] [tn=12]",
    "F12 a Maintenance Technique: roll Xd6 from Spare Parts; [sum] drives the effect",
)
def tech(call: Call) -> Encounter:
    c = call.combatant(call.arg(0, "the technician"))
    technique = technique_key(call.arg(1, "a technique"))
    x = call.number(call.arg(2, "how many dice (X)"), f"{c.name} technique dice", minimum=1)
    targets = [call.combatant(a) for a in call.args[3:]]
    s = sheet_of(c)
    if s.job != JOBS["tech"].name:
        raise CommandError(f"{c.name} is not a Maintenance Technician (sheet {c.id} job=tech)")
    if x > s.parts:
        raise CommandError(
            f"{c.name} has {counted(s.parts, 'slot')} of Spare Parts: roll at most {s.parts}d6"
        )
    if technique == "blast" and not targets:
        raise CommandError("Blast needs targets: tech WHO blast X TARGET [TARGET ...]")
    if targets and technique != "blast":
        raise CommandError(f"{technique} takes no targets")
    name = call.option("name") or "Barricade"
    no_save = (call.option("save") or "").lower() in NO_WORDS
    kind = call.option("as") or ""
    to = call.option("to")
    tn = tn_option(call)
    roll = call.roll(f"{x}d6", f"{c.name} {technique}", c, faces=True)
    total = roll.total
    spent = parts_spent(technique, faces(roll), s.clearance)
    s = evolve(s, parts=s.parts - spent)
    call.enc = call.enc.update(c.id, sheet=s)
    spent_text = f"{counted(spent, 'slot')} of Spare Parts spent, {s.parts} left"
    call.log(f"[sum] = {total}; {spent_text}", Kind.EFFECT)
    if technique == "workorder":
        _work_order(call, c, total)
    elif technique == "dismantle":
        call.enc = call.enc.update(c.id, sheet=evolve(s, parts=s.parts + total))
        call.log(f"Dismantle: the equipment becomes {total} Spare Parts", Kind.EFFECT)
    elif technique == "tap":
        call.log(f"Tap: the new access point controls the conduit's flow for {total}")
    elif technique == "reroute":
        call.log(
            f"Reroute: the conduit extends across {counted(x, 'room')}, "
            f"{counted(x, 'hour')} of work"
        )
    elif technique == "barricade":
        from facility_tui.commands.spec import unique_id

        cap = total * 10
        bar_sheet = FacilitySheet(track=cap, is_object=True)
        b = Combatant(id=unique_id(call.enc, name), name=name, side=c.side, sheet=bar_sheet)
        call.enc = call.enc.joined(b, made=True)  # the next number, like an added combatant
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
                and save_roll(call, t, "explosions", "", tn, None)
            ):
                call.log(f"{t.name} halves the share: {share} → {share // 2}")
                share //= 2
            if share < 1:
                call.log(f"{t.name} takes no wounds")
                continue
            key, why = target_stat(call, t, "explosions", to, kind)
            inflict(call, t, share, key, [], f"Blast, {why}")
    return call.enc


def _work_order(call: Call, c: Combatant, total: int) -> None:
    """F12 Work Order: "add [sum] to your roll", the technician's failed check waiting for its
    Salvage. Lifted to its TN it succeeds and is settled; still short, it keeps the [sum] as a
    modifier (a Salvage rolls the check again with it). With no such check, the GM adds it to
    the roll to come."""
    p = pending_of(call.enc, c.id)
    if p is None or p.step is not Step.CHECK or p.total is None:
        call.log(
            f"Work Order: +{total} to {c.name}'s roll to repair or work Facility systems "
            f"(no failed check of theirs is waiting: roll it with mod={total})"
        )
        return
    new = p.total + total
    ok = new >= p.tn
    call.log(
        f"Work Order: {c.name}'s {STAT_NAMES[p.stat]} check {p.total} +{total} = {new} "
        f"vs {p.tn}: {'Success' if ok else 'Failure'}"
    )
    if ok:
        call.enc = clear_pending(call.enc, c.id)
    else:
        call.enc = set_pending(call.enc, evolve(p, total=new, mod=p.mod + total))
        call.log(f"'salvage {c.id}' to try for a Partial Success (with the +{total})")


ROLLS: dict[str, tuple[str, ...]] = {  # the rolls each command can make, in order
    "tech": (
        "the technique's Xd6 (each die counts: a 4+ spends a slot)",
        "Blast: each target's Explosions save d20, in the order named",
    ),
}
