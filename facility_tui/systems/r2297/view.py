"""What the screens show of 2297 (A3, A4, A7–A9, A11): the list's cells (the initiative, what is
left of the turn's actions, the injury, damage and fatigue bars, the effects), the selected
combatant's panes (the turn's action boxes, the Health bar with its one-hit marks, the effects
with their rounds left, the fatigue bar, the sheet), the GM's reminders of the turn, and the
players' words.
"""

from __future__ import annotations

from typing import Any

from attrs import frozen

from facility_tui.model.encounter import Combatant, Encounter, Kind, Phase, evolve
from facility_tui.model.text import Detail, Tone
from facility_tui.model.view import Bar, Boxes, Pane, Public, Row
from facility_tui.systems.base import View
from facility_tui.systems.r2297.engine import (
    Economy,
    active_on,
    death_countdown,
    describe,
    disadvantaged,
    dying,
    economy,
    incapacitated,
    limit_of,
    pool,
    reaction_block,
    sheet_of,
    shown_initiative,
    tired,
    unconscious,
)
from facility_tui.systems.r2297.rules import (
    AID_TN,
    EXHAUSTED,
    LEVELS,
    Level,
    Tired,
    band,
    fatigue_thresholds,
    injury_thresholds,
    layered,
)
from facility_tui.systems.r2297.sheet import Awareness, Effect, EKind, Injury, Sheet2297


class View2297(View):
    """The list's columns, the panes and the players' words of 2297."""

    # In the order the list drops them when narrow: the last go first (Init, Actions and Injury
    # fit beside the detail column at 80 wide).
    # (The band is in the detail pane and ``Band``: Init and Actions tell it here.)
    columns = ("Init", "Actions", "Injury", "Damage", "Fatigue", "Effects")
    show_initiative = False  # the Init column shows it
    # Narrow, the list abbreviates whole columns, in this order (the words stay whole).
    short_forms = {
        "Init": ("In", {}),
        "Injury": (
            "Inj",
            {
                "Light": "Lt",
                "Moderate": "Mod",
                "Serious": "Ser",
                "Critical": "Crit",
                "Lethal": "Leth",
            },
        ),
        "Actions": ("Act", {"minor": "min", "next": "nx"}),
    }
    cut_columns = ("Effects",)
    column_words = {
        "Injury": tuple(level.word for level in LEVELS if level.rank),
        "Actions": ("1 minor -", "next rd R", "uncons."),
    }

    public_words = ("unhurt", *column_words["Injury"], "down", "dying", "dead")

    def public_state(self, enc: Encounter, c: Combatant) -> Public:
        """The injury level in a word (A7), or why it is out of the fight (A8, A9)."""
        s = sheet_of(c)
        state = status(s)
        if state:
            return Public(PUBLIC_OUT.get(state, state), tuple(s.conditions()), fallen=True)
        return Public(s.level.word if s.level.rank else "unhurt", tuple(s.conditions()))

    def state_word(self, enc: Encounter, c: Combatant) -> str:
        return worst_word(sheet_of(c))

    def summary(self, enc: Encounter, c: Combatant) -> dict[str, Any]:
        s = sheet_of(c)
        init = shown_initiative(enc, c)
        eco = economy(enc, c)
        pt, dr = layered(s.armor)
        cells = sheet_cells(s)
        state = cells.status
        return {
            "Init": init_cell(c, init),
            "Actions": actions_cell(enc, c, eco, state),
            "Injury": cells.injury,
            "Damage": cells.damage,
            "Fatigue": cells.fatigue,
            "Band": f"{band(init).name} {init}",
            "Effects": cells.effects,
            "Ma/Mo/Mi R": eco.compact,
            "Dmg": cells.dmg,
            "initiative": init,
            "band": band(init).name,
            "actions": {"major": eco.major, "move": eco.move, "minor": eco.minor},
            "one_action_left": eco.cap,
            "limit": eco.limit,
            "reaction": eco.reaction,
            "injury": s.level.value,
            "damage": s.damage,
            "stun": s.stun,
            "hlt": s.hlt,
            "fatigue": s.fatigue,
            "sta": s.sta,
            "tired": tired(s).value,
            "edge": s.edge,
            "pt": pt,
            "dr": dr,
            "status": state,
            "conditions": s.conditions(),
            "effects": [describe(e) for e in s.effects if e.kind is not EKind.COND],
            "disadvantage": disadvantaged(s, s.turns if enc.current == c.id else s.turns + 1),
            "grit_checks": [
                {
                    "patch": p.id,
                    "rating": p.rating,
                    "tn": p.tn,
                    "due_round": p.due_round,
                    "failure": p.fatigue,
                }
                for p in s.pending_patches
            ],
            "recover_due": s.recover_due,
            "idle_rounds": s.idle_turns,
        }

    def list_row(self, enc: Encounter, c: Combatant) -> dict[str, Any]:
        """``summary``'s columns alone, worked out the same way (a round's start asks for every
        row; the rest of the summary is for ``show --json`` and the report)."""
        cells = sheet_cells(sheet_of(c))
        return {
            "Init": init_cell(c, shown_initiative(enc, c)),
            "Actions": actions_cell(enc, c, economy(enc, c), cells.status),
            "Injury": cells.injury,
            "Damage": cells.damage,
            "Fatigue": cells.fatigue,
            "Effects": cells.effects,
        }

    def panes(self, enc: Encounter, c: Combatant) -> list[Pane]:
        s = sheet_of(c)
        hits = " · ".join(f"{d}+ {level.word}" for level, d in injury_thresholds(s.hlt))
        sheet = [*_sheet_lines(enc, c), Detail("Marks ╵", f"a hit of {hits}"), *_injury_lines(s)]
        if s.awareness is not Awareness.FULL:
            sheet.append(Detail("Awareness", s.awareness.value))
        effects = _effect_lines(s)
        state = status(s)
        if state:
            effects.insert(0, Detail("Status", state, Tone.BAD))
        # the figures a turn needs first: a short column (80×24) shows these without scrolling
        # The timed effects (bleeding, Disadvantage, a death countdown, with rounds left) come
        # before the fatigue bar, whose state the Actions limit already says.
        out = [
            Pane(_actions_title(enc, c), tuple(_action_rows(enc, c))),
            Pane("Injury", tuple(_injury_rows(s))),
            *([Pane("Effects", tuple(effects))] if effects else []),
            Pane("Fatigue", tuple(_fatigue_rows(c))),
            Pane("Sheet", tuple(sheet)),
        ]
        return out

    def reminders(self, enc: Encounter) -> list[Detail]:
        """C2/A7/A9: what the acting combatant's turn started with, in words: the bleeding
        applied, a death countdown, Disadvantage ending this turn, a Grit check due, rest due
        (its action limits are on its Actions pane and in the list). The dying are named at every
        turn: they cannot act, so their own turns pass by themselves. Each reminder starts with
        the name of whose it is (the acting one's or another's: they sit under one title)."""
        cid = enc.current
        if cid is None or not enc.has(cid):
            return []
        c = enc.get(cid)
        s = sheet_of(c)
        out = [
            Detail("Bleeding", f"{c.name} {text} at the start of this turn", Tone.BAD)
            for text in _bled(enc, c)
        ]
        for other in enc.combatants:
            o = sheet_of(other)
            countdown = death_countdown(o) if o.effects else None  # (most have no effect)
            if countdown is not None and not o.dead:
                left = f"{countdown.rounds} round{'s' if countdown.rounds != 1 else ''}"
                out.append(
                    Detail("Dying", f"{other.name} dies in {left} unless stabilized", Tone.BAD)
                )
        for e in s.effects:
            if e.kind is EKind.DISADV and active_on(e, s.turns) and _ends_this_turn(e, s.turns):
                out.append(
                    Detail("Disadvantage", f"{c.name}'s ends at the end of this turn", Tone.WARN)
                )
        for p in s.pending_patches:
            if p.due_round <= enc.round:
                due = f"{c.name}'s is due: grit {c.id} TOTAL patch={p.id} (TN {p.tn})"
                out.append(Detail("Grit check", due, Tone.WARN))
        if s.recover_due:
            due = f"{c.name}'s fatigue −{s.recover_due} due: recover {c.id}"
            out.append(Detail("Rest", due, Tone.WARN))
        out += [Detail("Edge", choice.title, Tone.WARN) for choice in self.rules.choices.open(enc)]
        return out


# The list's Actions cell for a combatant who is out, saying why (A4, A8, A9): a word, never a
# colour alone, as narrow as the cell's other values (the list keeps it at 80 columns).
OUT_WORDS = {"dead": "dead", "dying": "dying", "unconscious": "uncons."}


METER = 6  # cells of the list's Damage and Fatigue bars


def meter(value: int, top: int) -> str:
    """A small bar of ``value`` out of ``top``: ``███░░░`` (full past the top)."""
    filled = METER if top <= 0 or value >= top else (value * METER + top - 1) // top
    return "█" * max(0, filled) + "░" * (METER - max(0, filled))


def out_word(state: str) -> str:
    """The list's word for one who is out (``status``), or ``""``."""
    return OUT_WORDS.get(state, "")


def worst_word(s: Sheet2297) -> str:
    """The worst of a sheet's state in a word (the party's list, the report, the forecast):
    why it is out as the list's Actions cell says it (A8, A9), then Incapacitated (A8: damage
    at Health) and Exhausted (A9), which weigh more than any injury level (A7), then the
    level."""
    out = out_word(status(s))
    if out:
        return out
    if incapacitated(s):
        return "Incapacitated"
    if tired(s) is EXHAUSTED:
        return "Exhausted"
    return s.level.word if s.level.rank else "unhurt"


def actions_cell(enc: Encounter, c: Combatant, eco: Economy, state: str) -> str:
    """A4 as the list shows it: Major/Move/Minor left (``1/1/0``), or ``1 act`` under Serious's
    one action in all (``1 minor`` under Critical's), ``done`` once its turn is spent or past
    this round; then ``R`` if its Reaction is there, ``-`` if not. Before its turn: what the
    turn will grant as things stand. One who is out says why instead: dying, dead, uncons."""
    r = "R" if eco.reaction else "-"
    if out := out_word(state):
        return out
    acting = enc.current == c.id
    if not acting and enc.phase is Phase.ACTIVE:
        place = _place(enc.order, c.id)
        if place is None:
            return f"next rd {r}"  # joined mid-round (C1): acts from the next round
        if place < enc.turn:
            return f"done {r}"
    left = eco.major + eco.move + eco.minor
    if eco.cap == 0 or left == 0:
        return f"done {r}" if acting else f"none {r}"
    if eco.cap > 0:
        what = "minor" if eco.major == eco.move == 0 else "act"
        return f"{eco.cap} {what} {r}"
    return f"{eco.major}/{eco.move}/{eco.minor} {r}"


# The round's order as places by id, for the order last asked about: the list asks each row's
# place, and a scan of 1,000 ids per row is O(n²).
_PLACES: list[tuple[tuple[str, ...], dict[str, int]]] = []


def _place(order: tuple[str, ...], cid: str) -> int | None:
    """``cid``'s place in ``order`` (its first), None if it is not in it."""
    if len(order) <= 24:
        return order.index(cid) if cid in order else None
    kept = _PLACES[0] if _PLACES else None
    if kept is None or kept[0] is not order:
        places: dict[str, int] = {}
        for i, slot in enumerate(order):
            places.setdefault(slot, i)
        kept = (order, places)
        _PLACES[:] = [kept]  # (a forecast's thread may ask about another order meanwhile)
    return kept[1].get(cid)


@frozen
class SheetCells:
    """The list's cells that a sheet alone gives (A7, A8, A9)."""

    status: str  # ``status``
    injury: str
    dmg: str  # damage taken / Health, and stun
    damage: str  # its bar, then ``dmg``
    fatigue: str
    effects: str  # conditions, then the other effects (whole: the list cuts it to its room)


# The cells worked out lately, by sheet (the object: sheets are immutable). A round's start
# redraws every row, of which nearly every sheet is the one drawn before.
_SHEET_CELLS: dict[int, tuple[Sheet2297, SheetCells]] = {}


_SHEET_CELLS_KEPT = 8192  # (then forgotten all at once)


def sheet_cells(s: Sheet2297) -> SheetCells:
    kept = _SHEET_CELLS.get(id(s))
    if kept is not None and kept[0] is s:
        return kept[1]
    dmg = f"{s.total}/{s.hlt}" + (f" ({s.stun}s)" if s.stun else "")
    shown_effects = [
        *s.conditions(),
        *(describe(e) for e in s.effects if e.kind is not EKind.COND),
    ]
    cells = SheetCells(
        status=status(s),
        injury=s.level.word if s.level.rank else "-",
        dmg=dmg,
        damage=f"{meter(s.total, s.hlt)} {dmg}",
        fatigue=f"{meter(s.fatigue, s.sta)} {s.fatigue}/{s.sta}",
        effects=", ".join(shown_effects) or "-",
    )
    if len(_SHEET_CELLS) >= _SHEET_CELLS_KEPT:
        _SHEET_CELLS.clear()
    _SHEET_CELLS[id(s)] = (s, cells)
    return cells


# How the players hear of one who is out (``status``): "down" says no more than they can see.
PUBLIC_OUT = {"unconscious": "down", "incapacitated": "down"}


def status(s: Sheet2297) -> str:
    if s.dead:
        return "dead"
    if dying(s):
        return "dying"
    if unconscious(s):
        return "unconscious"
    if incapacitated(s):
        return "incapacitated"
    return ""


# -- the panes: the rules' figures, in words (A4, A7, A8, A9) ------------------------------------


def _sheet_lines(enc: Encounter, c: Combatant) -> list[Detail]:
    """A1/A3/A6: stats, initiative, extended action, armor and weapons."""
    s = sheet_of(c)
    init = shown_initiative(enc, c)
    pt, dr = layered(s.armor)
    lines = [
        Detail(
            "Stats",
            f"AG {s.ag}  CU {s.cu}  HLT {s.hlt}  STA {s.sta}  Edge {s.edge}  "
            f"init {s.dice}d6{s.ag + s.cu:+d}",
        ),
        Detail(
            "Initiative",
            f"base {c.initiative}, effective {init} ({band(init).name})"
            + (f", Refocus → {s.refocus} next round" if s.refocus >= 0 else "")
            + (", Edge boost next round" if s.boost_pending else ""),
        ),
    ]
    if s.ext_name:
        lines.append(Detail("Extended", f"{s.ext_name}: turn {s.ext_step} of {s.ext_total}"))
    lines.append(
        Detail(
            "Armor",
            ", ".join(a.text for a in s.armor) + f" → PT {pt} DR {dr}%" if s.armor else "none",
        )
    )
    for w in s.weapons:
        ammo = f", ammo {w.ammo}/{w.capacity}" if w.capacity else ""
        lines.append(Detail("Weapon", f"{w.name} {w.damage} {'/'.join(w.modes)}{ammo}"))
    return lines


SHORT = {Level.MODERATE: "Mod", Level.SERIOUS: "Ser", Level.CRITICAL: "Crit", Level.LETHAL: "Leth"}


def _damage_line(s: Sheet2297) -> Detail:
    """A8: the totals, with where they bring a combatant down and dying."""
    down = incapacitated(s)
    text = f"{s.total}/{s.hlt}" + (f" ({s.stun} stun)" if s.stun else "")
    text += " incapacitated" if down else f", down {s.hlt}"
    text += f", dying {2 * s.hlt}"
    return Detail("Damage", text, Tone.BAD if down else Tone.PLAIN)


def when_dealt(i: Injury) -> str:
    """The round an injury was dealt in; round 0: before this fight (in setup, or carried from
    an earlier one by the party, whose rounds mean nothing here)."""
    return f"round {i.round}" if i.round else "before this fight"


def _injury_lines(s: Sheet2297) -> list[Detail]:
    """A7/A10: each injury, with what first aid would need."""
    lines = []
    for i in s.injuries:
        marks = [
            m for m, on in (("Edge", i.soaked), ("first aid", i.aided), ("GM", i.manual)) if on
        ]
        extra = f" ({', '.join(marks)})" if marks else ""
        was = f", was {i.inflicted.word}" if i.inflicted is not i.level else ""
        tn = f", first aid TN {AID_TN[i.level]}" if i.level.rank and not i.aided else ""
        lines.append(
            Detail(
                f"Injury {i.id}",
                f"{i.level.word} ({when_dealt(i)}, {i.damage} damage{was}){extra}{tn}",
            )
        )
    return lines


def _effect_lines(s: Sheet2297) -> list[Detail]:
    """C2/A11: conditions and timed effects, numbered as ``set WHO rounds N effect=n`` takes
    (not what caused each: the injury pane says it)."""
    lines = []
    conds = s.conditions()
    if conds:
        lines.append(Detail("Conditions", ", ".join(conds)))
    for n, e in enumerate(s.effects, 1):
        if e.kind is not EKind.COND:
            tone = Tone.BAD if e.kind in (EKind.BLEED, EKind.DEATH) else Tone.WARN
            lines.append(Detail(f"Effect {n}", describe(e), tone))
        elif e.rounds:
            lines.append(Detail(f"Effect {n}", describe(e)))
    return lines


def _fatigue_lines(c: Combatant) -> list[Detail]:
    """A9: pending Grit checks of stim patches, and rest the GM is offered."""
    s = sheet_of(c)
    lines = [
        Detail(
            f"Stim {p.id}",
            f"R{p.rating}: Grit TN {p.tn} due round {p.due_round}; failure {p.fatigue} "
            "fatigue, success half",
        )
        for p in s.pending_patches
    ]
    if s.recover_due:
        lines.append(Detail("Rest", f"fatigue −{s.recover_due} due: recover {c.id}", Tone.WARN))
    return lines


def _limit_text(enc: Encounter, s: Sheet2297) -> str:
    """A4: the limit in force, as the GM reads it ("1 action in all (Serious injury)")."""
    kind, reason = limit_of(enc, s)
    if kind == "nothing":
        return f"no actions ({reason})"
    if kind == "minor":
        return f"one Minor only ({reason})"
    if kind == "one":
        return f"1 action in all ({reason.removesuffix(' injury')})"
    return reason[0].upper() + reason[1:] if reason else ""


TURN_LOOKBACK = 200  # log lines searched back for this turn's start (a long turn shows less)


def _bled(enc: Encounter, c: Combatant) -> list[str]:
    """C2: the bleeding ticked at the start of the current turn, as the log recorded it
    ("bleeds 3 (Critical injury)"), found among this turn's lines."""
    said = f"{c.name} bleeds "
    found = []
    log = enc.log
    for i in range(len(log) - 1, max(-1, len(log) - 1 - TURN_LOOKBACK), -1):
        entry = log[i]
        if entry.kind is Kind.TURN:
            break
        if entry.kind is Kind.EFFECT and entry.text.startswith(said):
            found.append(entry.text[len(c.name) + 1 :])
    return found[::-1]


def _ends_this_turn(e: Effect, turn: int) -> bool:
    """C2: a timed effect that expires at the end of turn ``turn``."""
    if e.last:
        return e.last <= turn
    return e.rounds == 1 and (e.first == 0 or e.first <= turn) and e.counts_from <= turn


def _left_text(eco: Economy, granted_minor: int, downgraded: bool) -> str:
    """A4: what is left of the turn, in words."""
    if eco.cap == 0:
        return "nothing"
    kinds = [k for k, n in (("Major", eco.major), ("Move", eco.move), ("Minor", eco.minor)) if n]
    if eco.cap > 0:
        also = ", or a Minor by downgrade" if not granted_minor and not downgraded and kinds else ""
        return f"1 action: {' or '.join(kinds) or 'none'}{also}"
    return f"Major {eco.major} · Move {eco.move} · Minor {eco.minor}"


def unrolled(c: Combatant) -> bool:
    """A3: its initiative is rolled when its first round starts (none was given)."""
    return c.initiative == 0 and not sheet_of(c).rolled


def init_cell(c: Combatant, init: int) -> str:
    """The list's Init: the initiative, or ``?`` until it is rolled (it read 0 in setup)."""
    return "?" if unrolled(c) else str(init)


def _actions_title(enc: Encounter, c: Combatant) -> str:
    """A4: the band of the turn it is in, or of its next turn."""
    s = sheet_of(c)
    if unrolled(c):
        return "Actions · initiative rolled when its round starts"
    init = s.turn_init if enc.current == c.id else shown_initiative(enc, c)
    return f"Actions · {band(init).name} {init}"


def _action_rows(enc: Encounter, c: Combatant) -> list[Row]:
    """A4: this turn's Major / Move / Minor as boxes (left ■, spent □, not granted ·), the
    Reaction, what the band grants and the limit takes away, and what is left. Out of its turn,
    what its next turn will grant, said as such; once the combat has ended, that it has."""
    if enc.phase is Phase.ENDED:
        return [Detail("Turn", "none: the combat has ended ('resume' reopens it)")]
    s = sheet_of(c)
    eco = economy(enc, c)
    rows: list[Row] = []
    if (
        s.reaction_used
        and not eco.reaction
        and not reaction_block(enc, evolve(s, reaction_used=False))
    ):
        react = Boxes("React", empty=1)  # spent this round
    else:
        react = Boxes("React", full=1) if eco.reaction else Boxes("React", absent=1)
    if enc.current == c.id:
        b, major, move, minor, _, _, _ = pool(enc, s)
        kinds = (
            ("Major", b.major, major, s.spent_major, eco.major),
            ("Move", b.move, move, s.spent_move, eco.move),
            ("Minor", b.minor, minor, s.spent_minor, eco.minor),
        )
        for label, banded, granted, spent, left in kinds:
            used = min(spent, granted)
            total = max(banded, granted, left + used, 1)  # (none at all still shows a ·)
            rows.append(Boxes(label, full=left, empty=used, absent=total - left - used))
        rows.append(react)
        if s.downgrade:
            rows.append(Detail("Downgrade", s.downgrade.replace(">", " → ")))
        if eco.limit:
            rows.append(Detail("Limit", _limit_text(enc, s), Tone.WARN))
        rows.append(
            Detail(
                "Left",
                _left_text(eco, minor, bool(s.downgrade)),
                Tone.WARN if eco.cap == 0 else Tone.PLAIN,
            )
        )
    else:  # its next turn's allowance, as things stand, said to be that
        if enc.phase is not Phase.ACTIVE:
            when = "its first turn will grant"
        elif c.id in enc.order[: enc.turn]:
            when = "over; its next turn grants"
        else:
            when = "later this round; it grants"
        rows += [react, Detail("Turn", when)]
        b = eco.band
        for label, banded, granted in zip(
            ("Major", "Move", "Minor"),
            (b.major, b.move, b.minor),
            (eco.major, eco.move, eco.minor),
            strict=True,
        ):
            rows.append(Boxes(label, full=granted, absent=max(banded, granted, 1) - granted))
        if eco.limit:
            rows.append(Detail("Limit", _limit_text(enc, s), Tone.WARN))
    if s.reaction_used and not eco.reaction:  # (a limit's line already says "no Reactions")
        rows.append(Detail("Reaction", "used this round"))
    return rows


def _injury_rows(s: Sheet2297) -> list[Row]:
    """A7/A8: the Health bar with the one-hit thresholds marked, the totals, the level, and the
    timed effects with the rounds they have left."""
    marks = injury_thresholds(s.hlt)
    level = s.level
    tone = (
        Tone.BAD
        if level.rank >= Level.CRITICAL.rank or incapacitated(s)
        else (Tone.WARN if level.rank else Tone.PLAIN)
    )
    worst = max(s.injuries, key=lambda i: i.level.rank, default=None)
    shown = tuple((d, SHORT[lv]) for lv, d in marks)
    rows: list[Row] = [
        Bar(
            "Health",
            s.damage,
            s.hlt,
            shown,
            f"{s.total}/{s.hlt}",
            tone,
            extra=s.stun,
        ),
        Detail(
            "Level",
            f"{level.word} ({when_dealt(worst)})" if worst and level.rank else "no injury",
            tone,
        ),
        _damage_line(s),
    ]
    return rows


def _fatigue_rows(c: Combatant) -> list[Row]:
    """A9: the fatigue bar with the thresholds marked, the state in a word, pending checks."""
    s = sheet_of(c)
    weary = tired(s)
    tone = {Tired.FRESH: Tone.PLAIN, Tired.FATIGUED: Tone.WARN}.get(weary, Tone.BAD)
    state = weary.value.capitalize()
    if weary is Tired.FATIGUED:
        state += f" (loses a {s.fatigued_loses.capitalize()})"
    return [
        Bar(
            "Fatigue",
            s.fatigue,
            2 * s.sta,
            tuple((f, t.value[:3].capitalize()) for t, f in fatigue_thresholds(s.sta)),
            f"{s.fatigue}/{s.sta}",
            tone,
        ),
        Detail("State", state, tone),
        *_fatigue_lines(c),
    ]
