"""Facility harm: a hazard with its save (F5), ablating PPE or suffering the wounds (F6), wounds
without a save (F4).
"""

from __future__ import annotations

from attrs import frozen

from facility_tui.commands.grammar import CommandError
from facility_tui.commands.spec import Call
from facility_tui.model.encounter import Combatant, Encounter, Kind
from facility_tui.model.text import counted
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
    wounds_preview,
)
from facility_tui.systems.facility.engine import (
    clear_harm,
    clear_pending,
    harm_of,
    pending_of,
    set_harm,
    sheet_of,
)
from facility_tui.systems.facility.rules import (
    STAT_NAMES,
    ablate,
    covering,
    save_key,
    save_value,
    signed,
    simple,
    stat_key,
    tag_key,
)
from facility_tui.systems.facility.sheet import PendingHarm, Step


@frozen
class HarmLine:
    """What a ``harm`` line says, read before the save is rolled (the preview reads the same)."""

    c: Combatant
    count: int
    hazard: str
    tag: str
    kind: str
    key: str  # the stat the wounds go to
    why: str
    spill: list[str]
    ablate: str | None
    tn: int
    save: str  # save=/d20=, lowered ("" : the tracker rolls it)


def read_harm(call: Call) -> HarmLine:
    c = call.combatant(call.arg(0, "who is harmed"))
    no_pending_harm(call, c)
    count = call.number(call.arg(1, "a number of wounds"), f"{c.name} wounds", minimum=1)
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
    save_text = (call.option("save") or call.option("d20") or "").strip().lower()
    return HarmLine(c, count, hazard, tag, kind, key, why, spill, ablate_text, tn, save_text)


_NO_SAVE = ("no", "none")
_FAILED = ("fail", "failed", "failure")
_PASSED = ("pass", "passed", "success", "ok")


def preview_harm(call: Call) -> list[str]:
    """F5/F6/F4 before the save, what matters most first (the line is cut to the room left):
    where the wounds go on a failure (spill-over, Impairment) or the PPE that covers the hazard,
    then the save's TN and what the d20 needs."""
    h = read_harm(call)
    by = call.option("by")
    if by:
        try:
            mark_attack(call, call.combatant(by), flag(call, "force"))
        except CommandError as err:
            return [f"refused: {err}"]
    call.check_options()
    s = sheet_of(h.c)
    value = save_value(s, h.hazard, h.tag)
    if h.save in _PASSED:
        return ["makes the save (GM): no harm"]
    save = ""
    if h.save in _NO_SAVE:
        fail = "no save"
    elif h.save in _FAILED:
        fail = "fails (GM)"
    elif h.save:
        face = call.number(h.save, "d20", minimum=1)
        total = face + value
        if total >= h.tn:
            return [f"saves ({face} {signed(value)} = {total} vs {h.tn}): no harm"]
        fail = f"fails ({face} {signed(value)} = {total} vs {h.tn})"
    else:
        fail = "fail"
        save = f"save {max(1, h.tn - value)}+ (d20 {signed(value)} vs {h.tn})"
    cover = covering(s, h.hazard, h.tag)
    if h.ablate and h.ablate.lower() not in NO_WORDS:
        said = f"{fail}: ablate {h.ablate}"
    elif cover and not h.ablate:
        names = ", ".join(f"{p.name} ({p.marks}/{p.item.rating})" for p in cover)
        wounds = wounds_preview(h.c, h.count, h.key, h.spill).removeprefix("→ ")
        said = f"{fail}: ablate {names} or suffer {wounds}"
    else:
        said = f"{fail} {wounds_preview(h.c, h.count, h.key, h.spill)}"
    return [f"{said} · {save}" if save else said]


@rule(
    "harm",
    "harm WHO N HAZARD [save=no|pass|fail] [d20=N] [tag=T] [as=KIND] [to=STAT] [spill=S,S] "
    "[ablate=PPE|no] [tn=12] [by=WHO]",
    "F5 harm: a save; on a failure ablate PPE that covers the hazard, or take N wounds (F4)",
    preview=preview_harm,
)
def harm(call: Call) -> Encounter:
    h = read_harm(call)
    c, count, hazard, key, why, spill = h.c, h.count, h.hazard, h.key, h.why, h.spill
    by = call.option("by")
    if by:
        mark_attack(call, call.combatant(by), flag(call, "force"))
    save_text = h.save
    if save_text in _NO_SAVE:
        ok = False
        waiting = pending_of(call.enc, c.id)
        if waiting is not None and waiting.step is Step.BACKLASH:  # F8: the Partial's backlash
            call.enc = clear_pending(call.enc, c.id)
        call.log(f"{c.name} gets no save against {counted(count, hazard + ' wound')}")
    elif save_text in _FAILED:
        ok = False
        call.log(f"{c.name} fails the {hazard} save (GM)", Kind.OVERRIDE)
    elif save_text in _PASSED:
        ok = True
        call.log(f"{c.name} makes the {hazard} save (GM)", Kind.OVERRIDE)
    else:
        ok = save_roll(call, c, hazard, h.tag, h.tn, save_text or None)
    if ok:
        call.log(f"{c.name} avoids the harm")
        return call.enc
    pending = PendingHarm(c.id, count, hazard, h.tag, key, tuple(spill), h.kind)
    ablate_text = h.ablate
    if ablate_text and ablate_text.lower() not in NO_WORDS:
        return _do_ablate(call, c, pending, ablate_text)
    cover = covering(sheet_of(c), hazard, h.tag)
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


def read_wound(call: Call) -> tuple[Combatant, int, str, list[str]]:
    c = call.combatant(call.arg(0, "who is wounded"))
    count = call.number(call.arg(1, "a number of wounds"), f"{c.name} wounds", minimum=1)
    call.expect_args(3)
    key = stat_key(call.args[2]) if len(call.args) > 2 else "phy"
    return c, count, key, spill_option(call)


def preview_wound(call: Call) -> list[str]:
    """F4 before the wounds land: where they go, the spill-over, the Impairment."""
    c, count, key, spill = read_wound(call)
    call.check_options()
    return [wounds_preview(c, count, key, spill)]


@rule(
    "wound",
    "wound WHO N [STAT] [spill=S,S]",
    "F4 put N wounds on a stat (default Physique) or a simple track, with spill-over; no save",
    preview=preview_wound,
)
def wound(call: Call) -> Encounter:
    c, count, key, spill = read_wound(call)
    inflict(call, c, count, key, spill, "GM")
    return call.enc


ROLLS: dict[str, tuple[str, ...]] = {  # the rolls each command can make, in order
    "harm": ("the save's d20, unless save= or d20= settles it",),
}
