"""What a Facility combatant edited by hand must be: what ``add``, ``sheet`` and ``ppe`` could
make of it, with the bounds those commands keep (a stat's bonus, the base saves, the counts
``sheet`` sets, the PPE catalog and its ratings, the weapons of the rules). A PPE piece no
command could put on (renamed, its name deleted) ended ``show`` in ``ppe_impaired``."""

from __future__ import annotations

from facility_tui.model.encounter import ENEMIES, PCS, Combatant, Encounter
from facility_tui.model.text import MAX_NAME
from facility_tui.systems.base import Problem, RuleError, Validation
from facility_tui.systems.facility.commands.sheets import SHEET_COUNTS
from facility_tui.systems.facility.engine import state_of
from facility_tui.systems.facility.rules import (
    BONUS_MAX,
    BONUS_MIN,
    PPE_CATALOG,
    SAVE_MAX,
    SAVES,
    STATS,
    WEAPONS,
    Piece,
    PPEItem,
    ppe_item,
    weapon_from,
    weapon_of,
)
from facility_tui.systems.facility.sheet import FacilitySheet

_CATALOG = {p.name: p for p in PPE_CATALOG}


class FacilityValidation(Validation):
    """A Facility sheet held to what ``add``, ``sheet`` and ``ppe`` could make; the state to
    sides, combatants and a TN that are there."""

    def check_combatant(self, enc: Encounter, c: Combatant) -> tuple[str, str] | None:
        if not isinstance(c.sheet, FacilitySheet):
            return "sheet", "must be a Facility sheet"
        found = sheet_problem(c.sheet)
        return (f"sheet.{found[0]}", found[1]) if found else None

    def check_state(self, enc: Encounter) -> tuple[str, str] | None:
        return state_problem(enc)


def sheet_problem(s: FacilitySheet) -> Problem:
    for key in STATS:
        stat = getattr(s, key)
        if not BONUS_MIN <= stat.bonus <= BONUS_MAX:
            return f"{key}.bonus", f"must be from {BONUS_MIN} to {BONUS_MAX}, got {stat.bonus}"
        for part in ("wounds", "scars"):
            if getattr(stat, part) < 0:
                return f"{key}.{part}", f"must be at least 0, got {getattr(stat, part)}"
    for kind in SAVES:
        value = getattr(s.base, kind)
        if not -SAVE_MAX <= value <= SAVE_MAX:
            return f"base.{kind}", f"must be from -{SAVE_MAX} to {SAVE_MAX}, got {value}"
    for key in SHEET_COUNTS:
        if getattr(s, key) < 0:
            return key, f"must be at least 0, got {getattr(s, key)}"
    if s.track and s.track_wounds > s.track:
        return "track_wounds", f"must be at most the track ({s.track}), got {s.track_wounds}"
    if s.job and (len(s.job) > MAX_NAME or not s.job.isprintable()):
        # (a campaign's own job is a name too: its saves, PPE and parts went into the sheet
        # when it was given)
        return "job", f"must be a job's name (at most {MAX_NAME} characters) or none"
    return _ppe_problem(s) or _weapons_problem(s)


def _ppe_problem(s: FacilitySheet) -> Problem:
    worn: set[str] = set()
    for i, piece in enumerate(s.ppe):
        item = _CATALOG.get(piece.name) if piece.entry is None else _own(piece)
        if item is None:
            return f"ppe[{i}].name", f"must be a PPE of the catalog{_meant(piece.name)}"
        if piece.name in worn:
            return f"ppe[{i}].name", f"must not be {piece.name!r} again (ppe wear refuses it)"
        worn.add(piece.name)
        if not 0 <= piece.marks <= item.rating:
            return f"ppe[{i}].marks", f"must be from 0 to {item.rating}, got {piece.marks}"
    return None


def _own(piece: Piece) -> PPEItem | None:
    """A piece's own entry (a campaign's), if it still checks and bears the piece's name."""
    try:
        item = piece.item
    except RuleError:
        return None
    return item if item.name == piece.name else None


def _meant(name: str) -> str:
    """The catalog's name a GM's spelling stands for, or the catalog's first few."""
    try:
        return f" ({ppe_item(name).name!r} is), got {name!r}" if name.strip() else ", got ''"
    except RuleError:
        return f" (Hard Hat, Work Boots, Lab Coat...), got {name!r}"


def _weapons_problem(s: FacilitySheet) -> Problem:
    for i, entry in enumerate(s.arms):
        try:
            weapon_from(entry)
        except RuleError as e:
            return f"arms[{i}]", f"must be a weapon entry of a catalog (docs/catalogs.md): {e}"
    for key, keys in (("weapons", s.weapons), ("empty", s.empty)):
        for k in keys:
            try:
                known = weapon_of(s, k)
            except RuleError:
                known = None
            if known is None or known.key != k or (key == "empty" and not known.gun):
                what = "guns" if key == "empty" else "weapons"
                return key, (
                    f"must be {what} of the rules ({', '.join(WEAPONS)}, or damage like 1d8), "
                    f"got {k!r}"
                )
    return None


def state_problem(enc: Encounter) -> Problem:
    """F7: the side that acts first is one of the two; the vanguard, a pending roll or a pending
    harm names a combatant who is there; the encounter's TN is 1 or more (``tn=``)."""
    st = state_of(enc)
    ids = {c.id for c in enc.combatants}
    if st.first not in (PCS, ENEMIES):
        return "first", f"must be {PCS} or {ENEMIES}, got {st.first!r}"
    if st.vanguard and st.vanguard not in ids:
        return "vanguard", f"must be a combatant's id or empty, got {st.vanguard!r}"
    if st.tn < 1:
        return "tn", f"must be at least 1, got {st.tn}"
    whose: list[tuple[str, str]] = [
        *((f"pending[{i}]", p.who) for i, p in enumerate(st.pending)),
        *((f"harms[{i}]", h.who) for i, h in enumerate(st.harms)),
    ]
    for at, who in whose:
        if who not in ids:
            return f"{at}.who", f"must be a combatant's id, got {who!r}"
    return None
