"""Facility harm: a hazard with its save (F5), ablating PPE or suffering the wounds (F6), wounds
without a save (F4).
"""

from __future__ import annotations

from facility_tui.call import Call
from facility_tui.grammar import CommandError
from facility_tui.model import Combatant, Encounter, Kind
from facility_tui.systems.facility.commands.helpers import (
    NO_WORDS,
    flag,
    inflict,
    mark_attack,
    no_pending_harm,
    put_sheet,
    rule,
    save_roll,
    spill_option,
    target_stat,
    tn_option,
)
from facility_tui.systems.facility.core import (
    STAT_NAMES,
    ablate,
    covering,
    save_key,
    simple,
    stat_key,
    tag_key,
)
from facility_tui.systems.facility.state import PendingHarm, clear_harm, harm_of, set_harm, sheet_of


@rule(
    "harm",
    "harm WHO N HAZARD [save=no|pass|fail] [d20=N] [tag=T] [as=KIND] [to=STAT] [spill=S,S] "
    "[ablate=PPE|no] [tn=12] [by=WHO]",
    "F5 harm: a save; on a failure ablate PPE that covers the hazard, or take N wounds (F4)",
)
def harm(call: Call) -> Encounter:
    c = call.combatant(call.arg(0, "who is harmed"))
    no_pending_harm(call, c)
    count = call.number(call.arg(1, "a number of wounds"), "wounds", minimum=1)
    hazard = save_key(
        call.arg(2, "a hazard (weapons, trauma, explosions, contaminants, anomalies)")
    )
    call.expect_args(3)
    tag_text = call.option("tag")
    tag = tag_key(tag_text) if tag_text else ""
    kind = call.option("as") or ""
    key, why = target_stat(call, c, hazard, call.option("to"), kind)
    spill = spill_option(call)
    ablate_text = call.option("ablate")
    tn = tn_option(call)
    by = call.option("by")
    if by:
        mark_attack(call, call.combatant(by), flag(call, "force"))
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
        ok = save_roll(call, c, hazard, tag, tn, save_text or None)
    if ok:
        call.log(f"{c.name} avoids the harm")
        return call.enc
    pending = PendingHarm(c.id, count, hazard, tag, key, tuple(spill), kind)
    if ablate_text and ablate_text.lower() not in NO_WORDS:
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
    inflict(call, c, count, key, spill, why)
    return call.enc


def _do_ablate(call: Call, c: Combatant, h: PendingHarm, text: str) -> Encounter:
    new, piece = ablate(sheet_of(c), text, h.hazard, h.tag)
    call.enc = clear_harm(call.enc, c.id)
    put_sheet(call, c, new)
    gone = "" if piece.protects else f"; {piece.name} is exhausted and loses its bonuses"
    call.log(
        f"{c.name} ablates {piece.name} ({piece.marks}/{piece.item.rating}): "
        f"the save succeeds{gone}",
        Kind.EFFECT,
    )
    return call.enc


@rule(
    "ablate",
    "ablate WHO [PPE]",
    "F5 ablate a worn PPE piece that covers the pending hazard: mark it, the save succeeds",
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


@rule(
    "suffer",
    "suffer WHO [STAT] [spill=S,S]",
    "F5 take the pending failed save's wounds (on the suggested stat, or STAT) instead of ablating",
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
    spill = spill_option(call) or list(h.spill)
    call.enc = clear_harm(call.enc, c.id)
    inflict(call, c, h.wounds, key, spill, why)
    return call.enc


@rule(
    "wound",
    "wound WHO N [STAT] [spill=S,S]",
    "F4 put N wounds on a stat (default Physique) or a simple track, with spill-over; no save",
)
def wound(call: Call) -> Encounter:
    c = call.combatant(call.arg(0, "who is wounded"))
    count = call.number(call.arg(1, "a number of wounds"), "wounds", minimum=1)
    call.expect_args(3)
    key = stat_key(call.args[2]) if len(call.args) > 2 else "phy"
    inflict(call, c, count, key, spill_option(call), "GM")
    return call.enc


ROLLS: dict[str, tuple[str, ...]] = {  # the rolls each command can make, in order
    "harm": ("the save's d20, unless save= or d20= settles it",),
}
