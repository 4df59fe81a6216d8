"""Facility rules (F1–F12): the ``RuleSystem`` the round state machine and the panes talk to.

The pure rules (stats, saves, wound tracks, PPE, weapons) live in ``core``; the encounter-wide
state and its helpers in ``state``; the commands a GM types (``try``, ``harm``, ``strike``...) in
``commands``, one module per topic. This module puts them together: side initiative at
``start`` (F7), what happens when a side's turn starts (marks reset), and the columns and detail
lines the screens show.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from attrs import astuple, evolve

from facility_tui.commands.dice import Dice
from facility_tui.commands.grammar import CommandError
from facility_tui.commands.spec import Call, side_of
from facility_tui.model.encounter import ENEMIES, PCS, Combatant, Encounter, Kind, Phase
from facility_tui.model.text import Detail, Tone, counted
from facility_tui.model.view import Bar, Boxes, Choice, Pane, Public, Row
from facility_tui.systems import END_WORD, RuleSystem
from facility_tui.systems.facility import tactics
from facility_tui.systems.facility.catalogs import storage_of
from facility_tui.systems.facility.checks import sheet_problem, state_problem
from facility_tui.systems.facility.choices import choices as choices_of
from facility_tui.systems.facility.commands.attacks import misses_stand
from facility_tui.systems.facility.commands.helpers import helpers_from, roll_check
from facility_tui.systems.facility.commands.sheets import set_field, sheet_from_options
from facility_tui.systems.facility.core import (
    SAVES,
    STAT_NAMES,
    STATS,
    TAGS,
    WEAPONS,
    Condition,
    FacilitySheet,
    Fate,
    bar,
    can_act,
    capacity,
    condition,
    covering,
    has_expertise,
    impaired,
    impaired_count,
    ppe_impaired,
    save_value,
    signed,
    simple,
    stat_of,
    weapon_from,
    weapon_of,
    wound_impaired,
    wounds_short,
)
from facility_tui.systems.facility.demo import DEMO_FACILITY
from facility_tui.systems.facility.info import INFO
from facility_tui.systems.facility.state import (
    VANGUARD,
    FacilityState,
    Pending,
    Step,
    acting_now,
    apply_partial,
    check_vanguard,
    harm_of,
    initiative_candidates,
    initiative_roller,
    marks_text,
    members,
    pending_of,
    pending_text,
    reset_marks,
    set_pending,
    sheet_of,
    state_of,
    with_state,
)

if TYPE_CHECKING:
    from facility_tui.systems.plays import Play, TurnPlay

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


class FacilityRules(RuleSystem):
    info = INFO
    system = INFO.id
    title = INFO.title
    demo = DEMO_FACILITY
    sheet_type = FacilitySheet
    state_type = FacilityState
    rest_between = "shift {who}"  # F9: a Shift with no strain, 1 wound off every stat
    common_rolls = {
        "add": (
            "roll=yes (or roll=3d6): 3d6 for each stat, Physique, Science, Insight, Admin, Normal",
        ),
        "start": (
            "F7: the d20 of each helper (help=, in order)",
            "the initiative d20 (Insight) of the PC who rolls, unless d20= gives it",
        ),
    }
    # In the order the list drops them when narrow: the last go first.
    columns = ("Status", "Marks", "Wounds", "Saves")
    show_initiative = False  # Facility turns go by side, not by number (F7)
    per_fight = ("attack_used", "other_used")  # F7: the marks of this turn
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

    def new_sheet(self, call: Call) -> Any:
        return sheet_from_options(call)

    def template_options(self, sheet: Any) -> dict[str, tuple[str, str]]:
        """PPE (unmarked), weapons and save bases as ``add`` takes them."""
        s: FacilitySheet = sheet
        out = {"weapons": ("weapon", ",".join(s.weapons))}
        if all(p.marks == 0 for p in s.ppe):
            out["ppe"] = ("ppe", ", ".join(p.name for p in s.ppe))
        out["base"] = ("saves", ",".join(str(v) for v in astuple(s.base)))
        return out

    def set_value(self, call: Call) -> Encounter:
        """C4: ``set WHO FIELD VALUE`` is ``sheet WHO FIELD=VALUE``."""
        return set_field(call)

    def check_combatant(self, enc: Encounter, c: Combatant) -> tuple[str, str] | None:
        if not isinstance(c.sheet, FacilitySheet):
            return "sheet", "must be a Facility sheet"
        found = sheet_problem(c.sheet)
        return (f"sheet.{found[0]}", found[1]) if found else None

    def lasting(self, sheet: Any) -> Any:
        """What a PC carries to the next fight: wounds, scars, PPE and its marks (an ablated
        piece stays marked), guns out of ammo, Spare Parts, death; not the side turn's two
        marks (F7), nor how it left this fight (fled, surrendered, out: its wounds decide
        again)."""
        if not isinstance(sheet, FacilitySheet):
            return sheet
        fate = sheet.fate if sheet.fate is Fate.DEAD else Fate.ACTIVE
        return evolve(sheet, attack_used=False, other_used=False, fate=fate)

    def check_state(self, enc: Encounter) -> tuple[str, str] | None:
        return state_problem(enc)

    def choices(self, enc: Encounter) -> tuple[Choice, ...]:
        """F2/F8 a roll waiting for its Salvage or its outcome (deal or crit, a Partial's
        backlash), F5 a failed save waiting for ablate or suffer."""
        return choices_of(enc)

    def begin_combat(self, call: Call) -> Encounter:
        """F7: the PC with the highest unimpaired Insight rolls Insight (others may Help).
        Options: ``first=pc|enemy`` or ``outcome=success|failure|partial`` (C4 overrides),
        ``by=WHO`` (another roller), ``help=A,B``, ``d20=N`` (a typed die), ``tn=N``,
        ``vanguard=WHO`` (for a Partial)."""
        st = state_of(call.enc)
        call.enc = with_state(call.enc, partial=False, vanguard="", first=PCS, pending=())
        vanguard_opt = call.option("vanguard")
        vanguard = check_vanguard(call.enc, vanguard_opt, call).id if vanguard_opt else ""
        first_opt = call.option("first")
        outcome = (call.option("outcome") or "").lower()
        tn = call.int_option("tn", "initiative TN", st.tn, minimum=1)
        by = call.option("by")
        help_text = call.option("help")
        d20_text = call.option("d20")
        if first_opt:
            first = side_of(first_opt)
            call.log(
                f"Initiative set by the GM: {self.slot_name(call.enc, first)} first", Kind.OVERRIDE
            )
            return with_state(call.enc, first=first)
        if outcome:
            if outcome not in ("success", "failure", "partial"):
                raise CommandError("outcome must be success, failure or partial")
            call.log(f"Initiative outcome set by the GM: {outcome}", Kind.OVERRIDE)
        else:
            roller = check_vanguard(call.enc, by, call) if by else initiative_roller(call.enc)
            if roller is None:
                call.log("No PC with unimpaired Insight can roll initiative: enemies first")
                return with_state(call.enc, first=ENEMIES)
            tied = initiative_candidates(call.enc)
            if not by and len(tied) > 1:
                names = ", ".join(c.name for c in tied)
                call.log(
                    f"Tie for the highest Insight ({signed(sheet_of(roller).ins.bonus)}): "
                    f"{names}; the players choose. The tracker proposes {roller.name}; for "
                    "another: undo, then start by=WHO"
                )
            elif by:
                call.log(f"{roller.name} rolls initiative (named by the GM)", Kind.OVERRIDE)
            if impaired(sheet_of(roller), "ins"):
                raise CommandError(f"{roller.name}'s Insight is Impaired: pick another with by=")
            helpers = helpers_from(call, help_text, roller, "ins", insight_only=True)
            ok = roll_check(call, roller, "ins", tn, 0, False, helpers, d20_text, "initiative")
            outcome = "success" if ok else "failure"
            if not ok:
                call.enc = set_pending(
                    call.enc, Pending(who=roller.id, step=Step.INITIATIVE, stat="ins", tn=tn)
                )
        if outcome == "success":
            call.log("Initiative: the PCs' side goes first")
            return with_state(call.enc, first=PCS)
        if outcome == "partial":
            return apply_partial(call, vanguard)
        call.log("Initiative: the enemies go first ('salvage' may turn it into a Partial Success)")
        return with_state(call.enc, first=ENEMIES, vanguard=vanguard)

    def round_order(self, enc: Encounter, dice: Dice) -> Encounter:
        st = state_of(enc)
        if enc.round == 1 and st.partial:
            return evolve(enc, order=(VANGUARD, ENEMIES, PCS))
        first = st.first
        return evolve(enc, order=(first, ENEMIES if first == PCS else PCS))

    def round_started(self, enc: Encounter, dice: Dice) -> Encounter:
        if enc.round == 2:
            st = state_of(enc)
            # the initiative roll can no longer be salvaged
            enc = with_state(enc, pending=tuple(p for p in st.pending if p.step != Step.INITIATIVE))
        return enc

    def turn_started(self, enc: Encounter, slot: str, dice: Dice) -> Encounter:
        """F7: a side's members get their two marks (attack, other action) back."""
        st = state_of(enc)
        if slot == VANGUARD:
            if not st.vanguard:
                return enc.logged("Elect the vanguard PC: vanguard WHO")
            return reset_marks(enc, [st.vanguard])
        if slot not in (PCS, ENEMIES):
            return enc
        side = members(enc, slot)
        able = [c.id for c in side if can_act(sheet_of(c))]
        skip = st.vanguard if (enc.round == 1 and st.partial and slot == PCS) else ""
        enc = reset_marks(enc, [cid for cid in able if cid != skip])
        if skip and enc.has(skip):
            c = enc.get(skip)
            enc = enc.replace(
                evolve(c, sheet=evolve(sheet_of(c), attack_used=True, other_used=True))
            )
            enc = enc.logged(f"{c.name} acted as the vanguard and skips this turn")
        can = set(able)
        out = [c for c in side if c.id not in can]
        if out:
            names = ", ".join(f"{c.name} ({condition(sheet_of(c)).value})" for c in out)
            enc = enc.logged(f"Cannot act: {names}")
        if side and not able:
            enc = enc.logged(f"No one on the {self.slot_name(enc, slot)} can act: 'end' to finish")
        return enc

    def turn_ended(self, enc: Encounter, slot: str, dice: Dice) -> Encounter:
        """F8: a miss left open stands once its side's turn is over."""
        side = state_of(enc).vanguard if slot == VANGUARD else slot
        if slot == VANGUARD and enc.has(side):
            side = enc.get(side).side
        return misses_stand(enc, side) if state_of(enc).pending else enc

    def can_act(self, enc: Encounter, slot: str) -> bool:
        """F7: a side turn passes by itself when none of its members can act (the vanguard's
        turn waits for the election)."""
        st = state_of(enc)
        if slot == VANGUARD:
            return (
                not st.vanguard
                or not enc.has(st.vanguard)
                or can_act(sheet_of(enc.get(st.vanguard)))
            )
        skip = st.vanguard if (enc.round == 1 and st.partial and slot == PCS) else ""
        return any(can_act(sheet_of(c)) for c in members(enc, slot) if c.id != skip)

    def idle_reason(self, enc: Encounter, slot: str) -> str:
        """F7: no member of the side left standing (or its vanguard down)."""
        return "its vanguard is down" if slot == VANGUARD else "no one standing"

    def attack_source(self, enc: Encounter, target: str) -> str | None:
        """F7: the acting side's first member, in list order, who can still attack and is not
        the target (the vanguard on its own turn): pressing ``d`` on each PC in turn names
        each enemy in turn, and ``harm ... by=`` spends that one's Attack mark."""
        if enc.phase is not Phase.ACTIVE or enc.current is None:
            return None
        for c in self.listed(enc):
            s = sheet_of(c)
            if c.id != target and acting_now(enc, c) and can_act(s) and not s.attack_used:
                return c.id
        return None

    def slot_name(self, enc: Encounter, slot: str) -> str:
        if slot == VANGUARD:
            v = state_of(enc).vanguard
            return f"Vanguard {enc.get(v).name}" if v and enc.has(v) else "Vanguard (to elect)"
        return {PCS: "PCs' side", ENEMIES: "Enemies' side"}.get(slot, slot)

    def removed(self, enc: Encounter, cid: str) -> Encounter:
        st = state_of(enc)
        return with_state(
            enc,
            pending=tuple(
                evolve(p, target="") if p.step is Step.BACKLASH and p.target == cid else p
                for p in st.pending
                if p.who != cid and (p.target != cid or p.step is Step.BACKLASH)
            ),
            harms=tuple(h for h in st.harms if h.who != cid),
            vanguard="" if st.vanguard == cid else st.vanguard,
        )

    # -- what the panes show ------------------------------------------------------------------

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

    def details(self, enc: Encounter, c: Combatant) -> list[Detail]:
        s = sheet_of(c)
        out = [Detail("Status", _status_text(s)[0])]
        if s.job:
            out.append(Detail("Job", s.job))
        if simple(s):
            track = f"{bar(s.track_wounds, s.track)} {s.track_wounds}/{s.track}"
            out.append(Detail("Wounds", track))
        else:
            ppe_imp = ppe_impaired(s)
            for key in STATS:
                st = stat_of(s, key)
                cap = capacity(st)
                line = f"{signed(st.bonus)}  {bar(st.wounds, cap)} {st.wounds}/{cap}"
                tags = []
                if wound_impaired(st):
                    tags.append("Impaired")
                elif key in ppe_imp:
                    tags.append("Impaired by PPE")
                if has_expertise(st):
                    tags.append("Expertise")
                if st.scars:
                    tags.append(f"{st.scars} scar{'s' if st.scars > 1 else ''}")
                tone = Tone.BAD if wound_impaired(st) or key in ppe_imp else Tone.PLAIN
                out.append(Detail(STAT_NAMES[key], "  ".join([line, *tags]), tone))
        if not s.is_object:
            out.append(Detail("Marks", marks_text(enc, c) or "-"))
            saves = " · ".join(f"{k.capitalize()} {signed(save_value(s, k))}" for k in SAVES)
            out.append(Detail("Saves", saves))
        for p in s.ppe:
            item = p.item
            what = ", ".join(TAGS.get(h, h) for h in sorted(item.covers))
            state = "exhausted" if not p.protects else f"{p.marks}/{item.rating} marks"
            extra = f" — {item.notes}" if item.notes else ""
            out.append(Detail("PPE", f"{item.name} {state} ({what}){extra}"))
        for w in s.weapons:
            own = [x for x in map(weapon_from, s.arms) if x.key == w]  # a campaign's
            wpn = own[0] if own else WEAPONS.get(w)
            dmg = wpn.damage if wpn else w
            empty = " out of ammo" if w in s.empty else ""
            tone = Tone.BAD if w in s.empty else Tone.PLAIN
            out.append(Detail("Weapon", f"{wpn.name if wpn else w} {dmg}{empty}", tone))
        if s.parts or s.job == "Maintenance Technician":
            out.append(
                Detail("Spare Parts", f"{counted(s.parts, 'slot')}, Clearance L{s.clearance}")
            )
        if s.items:
            out.append(Detail("Carries", ", ".join(s.items) + f" ({room(s)})"))
        waiting = pending_of(enc, c.id)
        if waiting is not None:
            out.append(Detail("Pending", pending_text(waiting)))
        h = harm_of(enc, c.id)
        if h is not None:
            out.append(
                Detail("Pending", f"{counted(h.wounds, h.hazard + ' wound')}: ablate or suffer")
            )
        return out

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
        rest = [
            d
            for d in self.details(enc, c)
            if d.label in ("Job", "Weapon", "Spare Parts", "Carries")
        ]
        if rest:
            out.append(Pane("Sheet", tuple(rest)))
        return out

    # -- the forecast: the default play of a side's turn (``tactics``) -----------------------

    flee_words = tactics.FLEE_WORDS
    forecast_assumptions = tactics.ASSUMPTIONS

    def forecast_line(self, enc: Encounter, slot: str, turn: TurnPlay) -> str | None:
        return tactics.next_line(enc, slot, turn)

    def fallen(self, enc: Encounter, c: Combatant) -> str | None:
        return tactics.fallen(c)

    def settle(self, enc: Encounter, choice: Choice) -> str:
        return tactics.settle(enc, choice)

    def check_play(self, play: Play) -> str:
        return tactics.check_harm(play.harm) or super().check_play(evolve(play, harm=""))

    def ammo(self, c: Combatant) -> int:
        """F8: no rounds are counted; a gun that runs dry counts one."""
        s = sheet_of(c)
        return sum(1 for w in s.weapons if weapon_of(s, w).gun and w not in s.empty)

    ammo_spent = "guns dry"

    def end_word(self, enc: Encounter, c: Combatant) -> str:
        """The list's Status word, in its short form when longer than the forecast's column
        (``out: inc.`` for ``out: incapacitated``)."""
        word = status_word(sheet_of(c))
        return word if len(word) <= END_WORD else self.abbreviate("Status", word)


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
