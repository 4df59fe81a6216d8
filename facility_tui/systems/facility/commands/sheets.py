"""Facility sheets: built from ``add``'s options (F1, F3, F6, F10, F12), PPE worn and marked (F6),
fates (F10), hand corrections (``sheet``, and ``set`` through ``FacilityRules.set_value``, C4).
"""

from __future__ import annotations

import re
from typing import Any

from attrs import evolve

from facility_tui.campaign.catalogs import campaign_entry, plain
from facility_tui.commands.grammar import CommandError
from facility_tui.commands.spec import Call
from facility_tui.model.encounter import Encounter, Kind
from facility_tui.model.text import word_for
from facility_tui.systems.facility.commands.helpers import NO_WORDS, flag, put_sheet, rule
from facility_tui.systems.facility.engine import sheet_of
from facility_tui.systems.facility.rules import (
    BONUS_MAX,
    BONUS_MIN,
    JOBS,
    SAVE_MAX,
    STAT_NAMES,
    STATS,
    Fate,
    Job,
    Piece,
    Saves,
    changed,
    competence,
    find_piece,
    job_from,
    job_key,
    mark_piece,
    ppe_item,
    signed,
    simple,
    stat_key,
    stat_keys,
    stat_of,
    weapon_from,
    weapon_of,
    with_stat,
)
from facility_tui.systems.facility.sheet import FacilitySheet

# -- building sheets (F1, F3, F6, F10, F12) --------------------------------------------------------


def _bonus(call: Call, key: str, text: str) -> int:
    value = call.number(text, f"{STAT_NAMES[key]} bonus")
    if not BONUS_MIN <= value <= BONUS_MAX:
        raise CommandError(
            f"{STAT_NAMES[key]} bonus must be from {BONUS_MIN} to +{BONUS_MAX}, got {value}"
        )
    return value


def _saves(text: str) -> Saves:
    nums = [t.strip() for t in text.split(",")]
    if len(nums) != 5 or not all(
        re.fullmatch(r"[+-]?\d{1,9}", n) and abs(int(n)) <= SAVE_MAX for n in nums
    ):
        raise CommandError(
            f"saves= takes five numbers from -{SAVE_MAX} to {SAVE_MAX}: "
            "Weapons,Trauma,Explosions,Contaminants,Anomalies"
        )
    return Saves(*(int(n) for n in nums))


def _job(call: Call, text: str) -> Job:
    """F12: a job by name: the campaign's catalog first (read through the call, so the step
    keeps it), then the rules' (``tech``)."""
    entry = campaign_entry(call.reads, "facility", "job", text)
    return job_from(entry) if entry else JOBS[job_key(text)]


def _pieces(call: Call, text: str) -> tuple[Piece, ...]:
    """F6: pieces by name: the campaign's catalog first (the piece keeps the entry it read),
    then the shipped one (by name, number or a part of its name)."""
    out: dict[str, Piece] = {}
    for part in (p.strip() for p in text.split(",")):
        if part:
            entry = campaign_entry(call.reads, "facility", "ppe", part)
            piece = (
                Piece(entry["name"], entry=plain(entry)) if entry else Piece(ppe_item(part).name)
            )
            out.setdefault(piece.name, piece)
    return tuple(out.values())


def _weapons(call: Call, sheet: FacilitySheet, text: str) -> FacilitySheet:
    """F8: ``weapon=pistol,Heavy Pistol``: the campaign's catalog first (the sheet keeps the
    entries it read), then a weapon the sheet already carries, the shipped ones or damage."""
    keys: list[str] = []
    arms: list[Any] = []
    for t in text.split(","):
        if not t.strip():
            continue
        entry = campaign_entry(call.reads, "facility", "weapon", t)
        w = weapon_from(entry) if entry else weapon_of(sheet, t)
        keys.append(w.key)
        if entry:
            arms.append(plain(entry))
        else:
            arms.extend(e for e in sheet.arms if weapon_from(e).key == w.key)
    return evolve(sheet, weapons=tuple(keys), arms=tuple(arms))


def _rolls_stats(call: Call) -> bool:
    """``roll=yes`` or ``roll=3d6``: the five stats rolled 3d6 down the line (F1)."""
    if (call.options.get("roll") or "").lower() == "3d6":
        call.option("roll")
        return True
    return flag(call, "roll")


TRAININGS = {
    "swap": "swap two stats",
    "exp": "-1 to a stat, an Expertise in another",
    "plus2": "-2 to a stat, +2 to another",
}


def _trained(call: Call, sheet: FacilitySheet, text: str) -> FacilitySheet:
    """F1 On-the-Job Training, one of three: ``swap:phy,ins`` swaps two stats' bonuses;
    ``exp:adm>phy`` takes 1 from Admin for an Expertise in Physique; ``plus2:nor>ins`` takes 2
    from Normal for +2 to Insight. No bonus may go below -3 or above +3."""
    usage = "train= takes swap:STAT,STAT, exp:FROM>TO or plus2:FROM>TO (e.g. plus2:nor>ins)"
    kind, _, rest = text.partition(":")
    kind = kind.strip().lower()
    parts = [p for p in re.split(r"[>,]", rest) if p.strip()]
    if kind not in TRAININGS or len(parts) != 2:
        raise CommandError(f"{usage}, got '{text}'")
    a, b = stat_key(parts[0]), stat_key(parts[1])
    if a == b:
        raise CommandError(f"train=: {kind} needs two different stats, got {STAT_NAMES[a]} twice")
    sa, sb = stat_of(sheet, a), stat_of(sheet, b)
    if kind == "swap":
        sheet = with_stat(sheet, a, evolve(sa, bonus=sb.bonus))
        sheet = with_stat(sheet, b, evolve(sb, bonus=sa.bonus))
        said = f"{STAT_NAMES[a]} and {STAT_NAMES[b]} swapped"
    else:
        cost = 1 if kind == "exp" else 2
        if sa.bonus - cost < BONUS_MIN:
            raise CommandError(
                f"train=: {STAT_NAMES[a]} {signed(sa.bonus)} cannot lose {cost} "
                f"(a bonus is never below {BONUS_MIN})"
            )
        if kind == "plus2" and sb.bonus + 2 > BONUS_MAX:
            raise CommandError(
                f"train=: {STAT_NAMES[b]} {signed(sb.bonus)} cannot gain 2 "
                f"(a bonus is never above +{BONUS_MAX})"
            )
        sheet = with_stat(sheet, a, evolve(sa, bonus=sa.bonus - cost))
        gained = evolve(sb, expertise=True) if kind == "exp" else evolve(sb, bonus=sb.bonus + 2)
        sheet = with_stat(sheet, b, gained)
        what = "an Expertise" if kind == "exp" else "+2"
        said = f"{STAT_NAMES[a]} -{cost} for {what} in {STAT_NAMES[b]}"
    now = ", ".join(f"{STAT_NAMES[k]} {signed(stat_of(sheet, k).bonus)}" for k in STATS)
    call.log(f"On-the-Job Training: {said} ({now})")
    return sheet


def sheet_from_options(call: Call) -> FacilitySheet:
    """F1/F3/F6/F10/F12: ``add`` options: ``phy= sci= ins= adm= nor=`` or ``roll=yes`` (3d6 down
    the line), ``train=`` On-the-Job Training (``swap:phy,ins``, ``exp:adm>phy``,
    ``plus2:nor>ins``), ``exp=phy,ins`` (``armor`` for Armor Expertise), ``job=tech``, ``track=N``,
    ``ppe="Hard Hat, Work Boots"``, ``weapon=pistol,light``, ``saves=W,T,E,C,A``, ``parts=N``,
    ``clearance=N``."""
    sheet = FacilitySheet()
    job_text = call.option("job")
    if job_text:
        job = _job(call, job_text)
        sheet = evolve(
            sheet,
            job=job.name,
            base=job.saves,
            ppe=_pieces(call, ", ".join(job.ppe)),
            parts=job.parts,
            clearance=job.clearance,
            items=tuple(job.uniform.split(", ")) if job.uniform else (),
        )
        for key in job.expertise:
            sheet = with_stat(sheet, key, evolve(stat_of(sheet, key), expertise=True))
    if _rolls_stats(call):
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
    train = call.option("train")
    if train:
        sheet = _trained(call, sheet, train)
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
        extra = [p for p in _pieces(call, ppe) if p.name not in {q.name for q in sheet.ppe}]
        sheet = evolve(sheet, ppe=sheet.ppe + tuple(extra))
    saves = call.option("saves")
    if saves:
        sheet = evolve(sheet, base=_saves(saves))
    weapons = call.option("weapon")
    if weapons:
        sheet = _weapons(call, sheet, weapons)
    sheet = evolve(
        sheet,
        parts=call.int_option("parts", "Spare Parts", sheet.parts, minimum=0),
        clearance=call.int_option("clearance", "Clearance", sheet.clearance, minimum=0),
    )
    return sheet


# -- F6 PPE, F10 fates, C4 overrides ---------------------------------------------------------------


@rule(
    "ppe",
    "ppe WHO wear|remove|mark|unmark|repair PIECE[, PIECE]",
    "F6 put on or take off catalog PPE, or set its marks by hand",
)
def ppe(call: Call) -> Encounter:
    c = call.combatant(call.arg(0, "who"))
    action = call.arg(1, "wear, remove, mark, unmark or repair").lower()
    text = call.rest(2, "a PPE piece (e.g. 'Hard Hat')")
    s = sheet_of(c)
    if action == "wear":
        pieces = _pieces(call, text)
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
    put_sheet(call, c, new)
    return call.enc


@rule(
    "fate",
    "fate WHO dead|fled|surrendered|out|active|alive",
    "F4/F10 the GM's word on a combatant: dead, fled, surrendered, out; alive overrules death",
)
def fate(call: Call) -> Encounter:
    c = call.combatant(call.arg(0, "who"))
    said = call.arg(1, "dead, fled, surrendered, out, active or alive")
    call.expect_args(2)
    s = sheet_of(c)
    word = word_for(said, {**{f.value: f.value for f in Fate}, "alive": "alive"})
    if word == "alive":
        new = evolve(s, fate=Fate.ACTIVE, overrule=True)
        call.log(f"{c.name} lives on by alternate arrangements (GM)", Kind.OVERRIDE)
    else:
        if word is None:
            raise CommandError(
                f"fate takes dead, fled, surrendered, out, active or alive, got '{said}'"
            )
        f = Fate(word)
        new = evolve(s, fate=f, overrule=False if f is Fate.ACTIVE else s.overrule)
        call.log(f"{c.name}: {f.value} (GM)", Kind.OVERRIDE)
    put_sheet(call, c, new)
    return call.enc


# The sheet's counts ``sheet`` sets, each 0 or more (a hand edit too: ``checks``).
SHEET_COUNTS = ("track", "track_wounds", "parts", "clearance", "pockets", "slots")


@rule(
    "sheet",
    "sheet WHO [phy=+1] [phy_wounds=N] [phy_scars=N] [phy_cap=N] [saves=W,T,E,C,A] [exp=phy] "
    "[track=N] [track_wounds=N] [job=tech] [weapon=W,W] [empty=W,W|none] [parts=N] "
    "[clearance=N] [armor=yes] [items=A,B]",
    "C4 set any sheet value by hand (logged as an override)",
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
    for key in SHEET_COUNTS:
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
        keys = stat_keys(text) if text.strip() and text.lower() not in NO_WORDS else []
        for key in STATS:
            new = with_stat(new, key, evolve(stat_of(new, key), expertise=key in keys))
        done.append(f"exp={','.join(keys) or 'none'}")
    text = call.option("job")
    if text is not None:
        new = evolve(new, job=_job(call, text).name if text else "")
        done.append(f"job={new.job or 'none'}")
    text = call.option("weapon")
    if text is not None:
        new = _weapons(call, new, text)
        done.append(f"weapon={','.join(new.weapons)}")
    if call.has("armor"):
        new = evolve(new, armor=flag(call, "armor"))
        done.append(f"armor={'yes' if new.armor else 'no'}")
    text = call.option("items")
    if text is not None:
        new = evolve(new, items=tuple(t.strip() for t in text.split(",") if t.strip()))
        done.append(f"items={', '.join(new.items) or 'none'}")
    text = call.option("empty")
    if text is not None:  # F8: the guns out of ammo
        named = [] if text.strip().lower() in NO_WORDS else text.split(",")
        keys = [weapon_of(new, t).key for t in named if t.strip()]
        guns = [k for k in keys if not weapon_of(new, k).gun]
        if guns:
            name = weapon_of(new, guns[0]).name
            raise CommandError(f"{name} is not a gun: only guns run out of ammo")
        new = evolve(new, empty=tuple(dict.fromkeys(keys)))
        done.append(f"empty={','.join(new.empty) or 'none'}")
    if not done:
        raise CommandError("name what to set, e.g. sheet WHO phy=+1 phy_wounds=2 saves=0,0,2,2,0")
    call.log(f"{c.name}'s sheet set by the GM: {' '.join(done)}", Kind.OVERRIDE)
    put_sheet(call, c, new)
    return call.enc


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
