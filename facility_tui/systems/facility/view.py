"""What the screens show of Facility (F4, F7, F3/F6, F10, F11): the list's cells (the state in
a word, the side turn's marks, the wounds, the saves), the selected combatant's panes (what waits
for the GM, the wound tracks, the marks, the saves and PPE, the sheet), and the players' words.
"""

from __future__ import annotations

import re
from typing import Any

from facility_tui.model.encounter import Combatant, Encounter
from facility_tui.model.text import Detail, Tone, counted
from facility_tui.model.view import Bar, Boxes, Pane, Public, Row
from facility_tui.systems.base import View
from facility_tui.systems.facility.catalogs import storage_of
from facility_tui.systems.facility.engine import (
    harm_of,
    marks_text,
    pending_of,
    pending_text,
    sheet_of,
)
from facility_tui.systems.facility.rules import (
    SAVES,
    STAT_NAMES,
    STATS,
    TAGS,
    WEAPONS,
    Condition,
    can_act,
    capacity,
    condition,
    covering,
    has_expertise,
    impaired_count,
    ppe_impaired,
    save_value,
    signed,
    simple,
    stat_of,
    weapon_from,
    wound_impaired,
    wounds_short,
)
from facility_tui.systems.facility.sheet import FacilitySheet

STAT_CAPACITY = re.compile(r"\b([A-Z]\d+)/\d+")  # a stat's wounds and capacity: P2/4


MAX_BOXES = 20  # a longer simple track is drawn as a bar


OUT_OF_FIGHT = (
    Condition.INCAPACITATED,
    Condition.OUT,
    Condition.FLED,
    Condition.SURRENDERED,
)


# The list's rows worked out lately, by sheet (``FacilityRules.list_row``).
_ROWS: dict[int, tuple[Any, dict[str, Any]]] = {}


_ROWS_KEPT = 8192  # (then forgotten all at once)


def _status(cond: Condition, impaired: int) -> str:
    if cond is Condition.IMPAIRED:
        return f"Impaired {impaired}"
    if cond in OUT_OF_FIGHT:
        return "out" if cond is Condition.OUT else f"out: {cond.value}"
    if cond is Condition.DEAD:
        return "dead"
    return cond.value.capitalize() if cond is not Condition.OK else "ok"


#: Every word the Status cell can hold (the list keeps room for the widest: it never jumps).
STATUS_WORDS = tuple(_status(cond, len(STAT_NAMES)) for cond in Condition)


class FacilityView(View):
    """The list's columns, the panes and the players' words of Facility."""

    # In the order the list drops them when narrow: the last go first.
    columns = ("Status", "Marks", "Wounds", "Saves")
    show_initiative = False  # Facility turns go by side, not by number (F7)
    # Narrow, the list abbreviates whole columns, in this order (the words stay whole).
    short_forms = {
        "Status": ("Stat", {"Impaired": "Imp", "incapacitated": "inc.", "surrendered": "sur."}),
        "Wounds": ("Wnd", {}),  # P2/4! S1/3 -> P2! S1: the wounds, not the capacities
        "Marks": ("Mk", {"atk": "a", "oth": "o", "spent": "sp"}),
    }
    column_words = {"Status": STATUS_WORDS, "Marks": ("atk oth", "spent")}
    short_help = {"Wounds": "P2/4! S1/3 as P2! S1, the wounds without the capacities"}

    def abbreviate(self, column: str, text: str) -> str:
        if column == "Wounds":
            return STAT_CAPACITY.sub(r"\1", text)
        return super().abbreviate(column, text)

    public_words = ("ok", "hurt", "impaired", "standing", "out", "fled", "surrendered", "broken")

    def public_state(self, enc: Encounter, c: Combatant) -> Public:
        """F10 in a word: ok or hurt, impaired, or why it is out of the fight (the dead and the
        incapacitated alike are "out": the players learn no more than they see)."""
        s = sheet_of(c)
        cond = condition(s)
        if cond is Condition.OK:
            wounded = s.track_wounds if simple(s) else any(stat_of(s, k).wounds for k in STATS)
            return Public("hurt" if wounded else "ok")
        if cond in (Condition.IMPAIRED, Condition.STANDING):
            return Public(cond.value)
        out = cond in (Condition.DEAD, Condition.INCAPACITATED)
        return Public("out" if out else cond.value, fallen=True)

    def state_word(self, enc: Encounter, c: Combatant) -> str:
        return status_word(sheet_of(c))

    def summary(self, enc: Encounter, c: Combatant) -> dict[str, Any]:
        s = sheet_of(c)
        return {
            "Status": status_word(s),
            "Marks": marks_text(enc, c),
            "Wounds": wounds_short(s),
            "Impaired": impaired_count(s) if not simple(s) else 0,
            "Saves": " ".join(f"{k[0].upper()}{signed(save_value(s, k))}" for k in SAVES),
            **dict(zip(("pockets", "slots", "bulky"), room_of(s), strict=True)),
        }

    def list_row(self, enc: Encounter, c: Combatant) -> dict[str, Any]:
        """``summary``, which reads the sheet alone, kept by sheet (the object: sheets are
        immutable): a round's start asks for every row again, of which few sheets changed."""
        kept = _ROWS.get(id(c.sheet))
        if kept is not None and kept[0] is c.sheet:
            return dict(kept[1])
        row = self.summary(enc, c)
        if len(_ROWS) >= _ROWS_KEPT:
            _ROWS.clear()
        _ROWS[id(c.sheet)] = (c.sheet, dict(row))
        return row

    def panes(self, enc: Encounter, c: Combatant) -> list[Pane]:
        """F4 wound tracks, F7 marks, F3/F6 saves and PPE with their marks, and the choices
        still open (F5 ablate or suffer, F2/F8 a roll waiting for its Salvage)."""
        s = sheet_of(c)
        out = []
        choices = _choice_rows(enc, c)
        if choices:
            out.append(Pane("Pending", tuple(choices)))
        out.append(Pane("Wounds", tuple(_track_rows(s))))
        if not s.is_object:
            out.append(Pane("Marks", tuple(_mark_rows(enc, c))))
            out.append(Pane("Saves and PPE", tuple(_save_rows(s))))
        rest = _sheet_rows(s)
        if rest:
            out.append(Pane("Sheet", tuple(rest)))
        return out


def status_word(s: FacilitySheet) -> str:
    """The list's Status cell (F4, F10): ok, Impaired N, Standing, or a word for who is out,
    and why (never a colour alone)."""
    cond = condition(s)
    return _status(cond, impaired_count(s) if cond is Condition.IMPAIRED else 0)


def _status_text(s: FacilitySheet) -> tuple[str, Tone]:
    cond = condition(s)
    text = cond.value.capitalize()
    if cond in (Condition.IMPAIRED, Condition.INCAPACITATED, Condition.DEAD):
        text += f" ({impaired_count(s)} Impaired)"
    if s.overrule:
        text += " — alive by alternate arrangements"
    bad = cond not in (Condition.OK, Condition.IMPAIRED, Condition.STANDING)
    return text, Tone.BAD if bad else (Tone.WARN if cond is Condition.IMPAIRED else Tone.PLAIN)


def _track_rows(s: FacilitySheet) -> list[Row]:
    """F4/F10: each track as boxes (wounds ■, room □, past capacity ▣), Impaired in words."""
    text, tone = _status_text(s)
    rows: list[Row] = [Detail("Status", text, tone)]
    if simple(s):
        full = s.track_wounds >= s.track
        text = f"{s.track_wounds}/{s.track}" + (" full" if full else "")
        tone = Tone.BAD if full else Tone.PLAIN
        if s.track > MAX_BOXES:  # a Barricade's [sum]×10 (F12): a bar, not a wall of boxes
            rows.append(Bar("Track", s.track_wounds, s.track, text=text, tone=tone))
        else:
            filled = min(s.track_wounds, s.track)
            rows.append(Boxes("Track", filled, s.track - filled, text=text, tone=tone))
        return rows
    ppe_imp = ppe_impaired(s)
    for key in STATS:
        st = stat_of(s, key)
        cap = max(0, capacity(st))
        tags = [f"{st.wounds}/{capacity(st)}"]
        if wound_impaired(st):
            tags.append("Impaired")
        elif key in ppe_imp:
            tags.append("Impaired by PPE")
        if st.scars:
            tags.append(f"scar {st.scars}")
        if has_expertise(st):
            tags.append("Exp")
        rows.append(
            Boxes(
                f"{STAT_NAMES[key][:3]} {signed(st.bonus)}",
                min(st.wounds, cap),
                max(0, cap - st.wounds),
                over=max(0, st.wounds - cap),
                text=" ".join(tags),
                tone=Tone.BAD if wound_impaired(st) or key in ppe_imp else Tone.PLAIN,
            )
        )
    return rows


def _mark_rows(enc: Encounter, c: Combatant) -> list[Row]:
    """F7: the two marks of a side turn (an attack, another action): left ■, spent □."""
    s = sheet_of(c)
    if not can_act(s):
        return [Detail("Marks", "none: cannot act", Tone.BAD)]
    return [
        Boxes("Attack", empty=1) if s.attack_used else Boxes("Attack", full=1),
        Boxes("Other", empty=1) if s.other_used else Boxes("Other", full=1),
    ]


def _save_rows(s: FacilitySheet) -> list[Row]:
    """F3 saves with the PPE bonuses that still count; F6 each piece's marks of its rating."""
    rows: list[Row] = [
        Detail(
            "Saves", " · ".join(f"{k[:4].capitalize()} {signed(save_value(s, k))}" for k in SAVES)
        )
    ]
    for p in s.ppe:
        item = p.item
        used = min(p.marks, item.rating)
        state = "exhausted" if not p.protects else f"{p.marks}/{item.rating} marks"
        what = ", ".join(TAGS.get(h, h) for h in sorted(item.covers))
        rows.append(
            Boxes(
                item.name,
                used,
                item.rating - used,
                text=f"{state} ({what})",
                tone=Tone.PLAIN if p.protects else Tone.BAD,
            )
        )
    return rows


def _choice_rows(enc: Encounter, c: Combatant) -> list[Row]:
    """F5, F2/F8: what waits for the GM, with the commands that settle it."""
    rows: list[Row] = []
    waiting = pending_of(enc, c.id)
    if waiting is not None:
        rows.append(Detail("Roll", pending_text(waiting), Tone.WARN))
    h = harm_of(enc, c.id)
    if h is not None:
        pieces = ", ".join(p.name for p in covering(sheet_of(c), h.hazard, h.tag)) or "none"
        rows.append(
            Detail(
                "Harm",
                f"{counted(h.wounds, f'{h.hazard} wound')}: ablate {c.id} ({pieces}) "
                f"or suffer {c.id}",
                Tone.WARN,
            )
        )
    return rows


def room_of(s: FacilitySheet) -> tuple[int, int, list[str]]:
    """F11: the pockets and slots a sheet has with the storage items it carries (clothing's
    pockets replace the 2 of normal clothing), and its Bulky ones (in hand or a Sling): the
    sheet's own ``pockets`` and ``slots`` are its room without them."""
    if not s.items:
        return s.pockets, s.slots, []
    storage = storage_of(s.items)
    worn = [e["pockets"] for e in storage if e["clothing"]]
    pockets = (max(worn) if worn else s.pockets) + sum(
        e["pockets"] for e in storage if not e["clothing"]
    )
    slots = s.slots + sum(e["slots"] for e in storage)
    return pockets, slots, [e["name"] for e in storage if e["bulky"]]


def room(s: FacilitySheet) -> str:
    """``room_of`` in words: ``5 pockets, 11 slots; Bulky: Toolbox``."""
    pockets, slots, bulky = room_of(s)
    said = f"{counted(pockets, 'pocket')}, {counted(slots, 'slot')}"
    return said + (f"; Bulky: {', '.join(bulky)}" if bulky else "")


def _sheet_rows(s: FacilitySheet) -> list[Row]:
    """F8 weapons (one out of ammo said so), F12 Spare Parts, F11 what it carries, its job."""
    out: list[Row] = []
    if s.job:
        out.append(Detail("Job", s.job))
    for w in s.weapons:
        own = [x for x in map(weapon_from, s.arms) if x.key == w]  # a campaign's
        wpn = own[0] if own else WEAPONS.get(w)
        dmg = wpn.damage if wpn else w
        empty = " out of ammo" if w in s.empty else ""
        tone = Tone.BAD if w in s.empty else Tone.PLAIN
        out.append(Detail("Weapon", f"{wpn.name if wpn else w} {dmg}{empty}", tone))
    if s.parts or s.job == "Maintenance Technician":
        out.append(Detail("Spare Parts", f"{counted(s.parts, 'slot')}, Clearance L{s.clearance}"))
    if s.items:
        out.append(Detail("Carries", ", ".join(s.items) + f" ({room(s)})"))
    return out
