"""2297 engine: what a hit, a turn start or a turn end does to an encounter (A3–A11, C2, C6).

Functions here take a ``Ctx`` (the encounter being built, the command's dice, and the log) so that
the same code serves commands and the round hooks; every roll is logged with its dice (C3).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from attrs import frozen

from facility_tui.commands.dice import Dice, DiceError, Roll
from facility_tui.model.encounter import Combatant, Encounter, Kind, Phase, evolve
from facility_tui.systems.r2297.rules import (
    CRITICAL,
    EXHAUSTED,
    FATIGUED,
    INJURY_FATIGUE,
    LETHAL,
    LIGHT,
    MODERATE,
    NO_INJURY,
    SERIOUS,
    STUN,
    UNCONSCIOUS,
    Band,
    DamageType,
    Level,
    Mitigation,
    RuleError,
    Tired,
    band,
    injury_level,
    mitigate,
    tiredness,
)
from facility_tui.systems.r2297.sheet import (
    BLEED,
    COND,
    DEATH,
    DISADV,
    INIT,
    ZERO,
    Awareness,
    Effect,
    EKind,
    Injury,
    Sheet2297,
)

if TYPE_CHECKING:
    from facility_tui.commands.spec import Call


class Ctx:
    """An encounter under construction with the dice of what builds it: a round hook's
    ``Ctx(enc, dice)``, or a command's ``Ctx.of(call)``, which is the call's own encounter, dice
    and log (no copy to hand back: what the command and the engine do lands in one place).

    A round hook's changes to sheets and its log lines are gathered and made into one new
    encounter when ``enc`` is next read: a round's start at 1,000 combatants changes every
    sheet, and a new encounter per change copied the list each time (O(n²)). A changed sheet
    is kept as a sheet, and its combatant made once when the combatant or the encounter is
    read: a turn's start changes one sheet several times and reads it in between."""

    def __init__(self, enc: Encounter, dice: Dice) -> None:
        self._enc = enc
        self.dice = dice
        self._changed: dict[str, Combatant] = {}  # id -> the combatant as changed since
        self._sheets: dict[str, Any] = {}  # id -> its sheet as changed since (not yet made into it)
        self._lines: list[tuple[str, Kind]] = []
        # id -> combatant of ``_enc`` (the first of an id, as ``Encounter.get``), made when first
        # asked: the engine names combatants by id dozens of times in a turn
        self._ids: dict[str, Combatant] | None = None

    @property
    def enc(self) -> Encounter:
        if self._sheets:
            self._settle_sheets()
        if self._changed or self._lines:
            enc, changed = self._enc, self._changed
            if changed:
                combatants = tuple([changed.get(c.id, c) for c in enc.combatants])
                enc = evolve(enc, combatants=combatants)
                if self._ids is not None:
                    self._ids.update(changed)
            if self._lines:  # (an encounter that keeps no log, a forecast's play, drops them)
                enc = enc.logged_all(self._lines)
            self._enc, self._changed, self._lines = enc, {}, []
        return self._enc

    @enc.setter
    def enc(self, enc: Encounter) -> None:
        self._enc, self._changed, self._sheets, self._lines, self._ids = enc, {}, {}, [], None

    @property
    def round(self) -> int:
        """The encounter's round (what changes gathered here leave as it is)."""
        return self._enc.round

    @property
    def keeps_log(self) -> bool:
        """Whether the encounter keeps a log line (a forecast's copies keep none: a line only
        the log would read, costly to write, need not be)."""
        return self._enc.keeps_log

    def _settle_sheets(self) -> None:
        """The changed sheets made into their combatants."""
        for cid, sheet in self._sheets.items():
            self._changed[cid] = evolve(self._base(cid), sheet=sheet)
        self._sheets = {}

    def _base(self, cid: str) -> Combatant:
        """The combatant as changed, without a sheet changed since (its own fields: id, name,
        side, initiative...)."""
        c = self._changed.get(cid)
        if c is not None:
            return c
        ids = self._ids  # (``_known``, written out: as in ``sheet``)
        return (ids if ids is not None else self._known())[cid]

    @staticmethod
    def of(call: Call) -> Ctx:
        return _CallCtx(call)

    def combatant(self, cid: str) -> Combatant:
        sheet = self._sheets.pop(cid, None)
        if sheet is not None:
            c = self._changed[cid] = evolve(self._base(cid), sheet=sheet)
            return c
        return self._base(cid)

    def _known(self) -> dict[str, Combatant]:
        if self._ids is None:
            self._ids = {c.id: c for c in reversed(self._enc.combatants)}
        return self._ids

    def roll(self, expr: str, what: str, by: str | None = None) -> Roll:
        """Roll ``expr`` for ``what`` (logged), a roll of combatant ``by`` (the GM types it when
        table dice say so)."""
        c = self._base(by) if by is not None and by in self._known() else None
        try:
            roll = self.dice.roll(expr, what, side=c.side if c else None, who=c.name if c else "")
        except DiceError as err:
            raise RuleError(f"{what}: {err}") from None
        self.log(f"{what}: {roll.detail}", Kind.ROLL)
        return roll

    def log(self, text: str, kind: Kind = Kind.INFO) -> None:
        self._lines.append((text, kind))

    def sheet(self, cid: str) -> Sheet2297:
        s = self._sheets.get(cid)
        if s is None:  # (``_base``, written out: the engine reads sheets dozens of times a turn)
            c = self._changed.get(cid)
            if c is None:
                ids = self._ids
                c = (ids if ids is not None else self._known())[cid]
            s = c.sheet
        if not isinstance(s, Sheet2297):  # pragma: no cover - a 2297 encounter holds 2297 sheets
            raise RuleError("not a 2297 combatant")
        return s

    def name(self, cid: str) -> str:
        return self._base(cid).name

    def update(self, cid: str, **changes: Any) -> None:
        """Change the combatant's own fields (its initiative)."""
        self._changed[cid] = evolve(self.combatant(cid), **changes)

    def put(self, cid: str, **changes: Any) -> Sheet2297:
        s = self.sheet(cid)
        for key, value in changes.items():
            if getattr(s, key) != value:
                s = self._sheets[cid] = evolve(s, **changes)
                break
        return s

    def edit(self, cid: str, fn: Callable[[Sheet2297], Sheet2297]) -> Sheet2297:
        self._sheets[cid] = fn(self.sheet(cid))
        return self.sheet(cid)


class _CallCtx(Ctx):
    """A command's ``Ctx``: its encounter is the call's, its rolls and log lines the call's.
    It finds a combatant by id in a dict of the call's combatants (kept while they are the
    same, and through its own changes: an attack names them dozens of times)."""

    def __init__(self, call: Call) -> None:  # (the call holds the state: the encounter)
        self.call = call
        self.dice = call.dice
        self._ids: dict[str, Combatant] | None = None
        self._of: tuple[Combatant, ...] | None = None  # the combatants ``_ids`` is of

    @property
    def enc(self) -> Encounter:
        return self.call.enc

    @enc.setter
    def enc(self, enc: Encounter) -> None:
        self.call.enc = enc

    def _known(self) -> dict[str, Combatant]:
        cs = self.call.enc.combatants
        if self._ids is None or cs is not self._of:
            self._ids, self._of = {c.id: c for c in reversed(cs)}, cs
        return self._ids

    def _swap(self, c: Combatant) -> None:
        """``c`` in the place of the combatant of its id (found by ``combatant`` just before)."""
        self.call.enc = self.call.enc.replace(c)
        if self._ids is not None:
            self._ids[c.id], self._of = c, self.call.enc.combatants

    @property
    def round(self) -> int:
        return self.call.enc.round

    @property
    def keeps_log(self) -> bool:
        return self.call.enc.keeps_log

    def combatant(self, cid: str) -> Combatant:
        return self._known()[cid]

    def sheet(self, cid: str) -> Sheet2297:
        s = self._known()[cid].sheet
        if not isinstance(s, Sheet2297):  # pragma: no cover - a 2297 encounter holds 2297 sheets
            raise RuleError("not a 2297 combatant")
        return s

    def name(self, cid: str) -> str:
        return self._known()[cid].name

    def roll(self, expr: str, what: str, by: str | None = None) -> Roll:
        c = self._known().get(by) if by is not None else None
        return self.call.roll(expr, what, c)

    def log(self, text: str, kind: Kind = Kind.INFO) -> None:
        self.call.log(text, kind)

    def update(self, cid: str, **changes: Any) -> None:
        self._swap(evolve(self.combatant(cid), **changes))

    def put(self, cid: str, **changes: Any) -> Sheet2297:
        c = self.combatant(cid)
        s = c.sheet
        for key, value in changes.items():
            if getattr(s, key) != value:
                self._swap(evolve(c, sheet=evolve(s, **changes)))
                break
        return self.sheet(cid)

    def edit(self, cid: str, fn: Callable[[Sheet2297], Sheet2297]) -> Sheet2297:
        c = self.combatant(cid)
        self._swap(evolve(c, sheet=fn(c.sheet)))
        return self.sheet(cid)


# A4: what a turn starts with: nothing spent, no downgrade, no extra actions
FRESH_TURN: dict[str, Any] = {
    "spent_major": 0,
    "spent_move": 0,
    "spent_minor": 0,
    "downgrade": "",
    "extra_major": 0,
    "extra_move": 0,
    "extra_minor": 0,
}


def sheet_of(c: Combatant) -> Sheet2297:
    s = c.sheet
    return s if isinstance(s, Sheet2297) else Sheet2297()


# -- states derived from the sheet ----------------------------------------------------------------


def tired(s: Sheet2297) -> Tired:
    return tiredness(s.fatigue, s.sta)


def unconscious(s: Sheet2297) -> bool:
    return s.has("unconscious") or tired(s) is UNCONSCIOUS


def dying(s: Sheet2297) -> bool:
    # (a loop, not any(): asked of every sheet many times a turn, a generator each time)
    for e in s.effects:  # noqa: SIM110
        if e.kind is DEATH:
            return True
    return False


def incapacitated(s: Sheet2297) -> bool:
    """A8: total damage ≥ Health."""
    return s.total >= s.hlt


def surprised(s: Sheet2297) -> bool:
    return s.has("surprised")


def in_turn(enc: Encounter, cid: str) -> bool:
    return enc.current == cid


def counts_from(enc: Encounter, cid: str) -> int:
    """C6: an "N rounds" effect landing now first counts down at the end of this turn, or, when
    it lands during the combatant's own turn, at the end of its following turn."""
    if enc.phase is Phase.ACTIVE and in_turn(enc, cid):
        return sheet_of(enc.get(cid)).turns + 1
    return 0


def init_locked(s: Sheet2297) -> str:
    """A3/A7/A8/A9: why initiative is held at 0 and cannot rise ("" if it can)."""
    if tired(s) in (Tired.EXHAUSTED, Tired.UNCONSCIOUS):
        return tired(s).value.capitalize()
    if incapacitated(s):
        return "Incapacitated"
    if any(e.kind is EKind.ZERO for e in s.effects):
        return "Critical injury"
    return ""


def active_on(e: Effect, turn: int) -> bool:
    return (e.first == 0 or e.first <= turn) and (e.last == 0 or turn <= e.last)


def effective_initiative(s: Sheet2297, base: int, turn: int, rnd: int) -> int:
    """A3: base + this round's boost − reductions due on ``turn``; 0 when a rule says so; ≥ 0."""
    if tired(s) in (EXHAUSTED, UNCONSCIOUS) or incapacitated(s):
        return 0
    value = base + (s.boost if s.boost_round == rnd and rnd > 0 else 0)
    for e in s.effects:
        if not active_on(e, turn):
            continue
        if e.kind is ZERO:
            return 0
        if e.kind is INIT:
            value -= e.amount
    return max(0, value)


def shown_initiative(enc: Encounter, c: Combatant) -> int:
    """The effective initiative of the turn it is in, or else of its next turn."""
    s = sheet_of(c)
    if in_turn(enc, c.id):
        return s.turn_init
    return effective_initiative(s, c.initiative, s.turns + 1, max(enc.round, 1))


def disadvantaged(s: Sheet2297, turn: int) -> bool:
    return any(e.kind is DISADV and active_on(e, turn) for e in s.effects)


def disadvantage_now(enc: Encounter, c: Combatant) -> str:
    """A7: why ``c`` acts with Disadvantage now (its turn, or its next one): the injuries and
    effects that give it, "" when none does."""
    s = sheet_of(c)
    turn = s.turns if in_turn(enc, c.id) else s.turns + 1
    labels = [e.label for e in s.effects if e.kind is DISADV and active_on(e, turn)]
    return ", ".join(dict.fromkeys(label or "Disadvantage" for label in labels))


# -- A4 action economy ----------------------------------------------------------------------------


@frozen
class Economy:
    band: Band
    major: int  # left this turn
    move: int
    minor: int
    cap: int  # actions left in all under a "one action" limit (-1: no such limit)
    limit: str  # the limit that applies ("" none)
    reaction: bool  # a Reaction is available now
    why_no_reaction: str

    @property
    def compact(self) -> str:
        r = "R" if self.reaction else "-"
        if self.cap == 0:
            return f"0/0/0 {r}"
        return f"{self.major}/{self.move}/{self.minor} {r}"


def limit_of(enc: Encounter, s: Sheet2297) -> tuple[str, str]:
    """A4: the most restrictive limit, as (kind, reason): nothing / minor / one / fatigued / ""."""
    if s.dead:
        return "nothing", "dead"
    effects = bool(s.effects)  # (none: not dying, no condition; most sheets)
    if effects and dying(s):
        return "nothing", "dying"
    if effects and s.has("unconscious"):
        return "nothing", "unconscious"
    tiredness_now = tired(s)  # (asked once, as the level: the checks below read them in turn)
    if tiredness_now is UNCONSCIOUS:
        return "nothing", "unconscious"
    if effects and surprised(s):
        return "nothing", "surprised (Unaware)"
    level = s.level
    if level in (CRITICAL, LETHAL):
        return "minor", f"{level.word} injury"
    if incapacitated(s):
        return "minor", "incapacitated"
    if tiredness_now is EXHAUSTED:
        return "minor", "exhausted"
    if level is SERIOUS:
        return "one", "Serious injury"
    if tiredness_now is FATIGUED:
        return "fatigued", f"fatigued (loses a {s.fatigued_loses.capitalize()})"
    return "", ""


def pool(
    enc: Encounter, s: Sheet2297, limit: tuple[str, str] | None = None
) -> tuple[Band, int, int, int, int, str, str]:
    """Actions the current turn grants before spending: band, major, move, minor, cap, limit
    (``limit``: the sheet's ``limit_of``, when the caller has it already)."""
    b = band(s.turn_init)
    major, move, minor, cap = b.major, b.move, b.minor, -1
    kind, reason = limit or limit_of(enc, s)
    if kind == "nothing":
        major = move = minor = cap = 0
    elif kind == "minor":
        major, move, minor, cap = 0, 0, 1, 1
    elif kind == "one":
        cap = 1
    elif kind == "fatigued":
        if s.fatigued_loses == "major" and major > 0:
            major -= 1
        else:
            move -= 1
    if s.downgrade:
        frm, to = s.downgrade.split(">")
        amounts = {"major": major, "move": move, "minor": minor}
        amounts[frm] -= 1
        amounts[to] += 1
        major, move, minor = amounts["major"], amounts["move"], amounts["minor"]
    major += s.extra_major
    move += s.extra_move
    minor += s.extra_minor
    return b, major, move, minor, cap, kind, reason


def reaction_block(enc: Encounter, s: Sheet2297, limit: tuple[str, str] | None = None) -> str:
    """Why a Reaction is not available ("" when it is): A2, A4, A7, A8."""
    kind, reason = limit or limit_of(enc, s)
    if kind in ("nothing", "minor", "one"):
        return f"no Reactions while {reason}"
    if s.reaction_used:
        return "already used its Reaction this round"
    return ""


# The economies worked out lately, by combatant (the object: the model is immutable). The list
# asks for every row's each time a round starts or is undone, when nearly every combatant is the
# same object as before: only the first turn's changed.
_ECONOMIES: dict[int, tuple[Combatant, bool, bool, Economy]] = {}
_ECONOMIES_KEPT = 8192  # (then forgotten all at once: a few rounds of 1,000 combatants)


def economy(enc: Encounter, c: Combatant) -> Economy:
    """A4: the actions left this turn (its turn), or its next turn's as things stand. Reads
    the encounter only for whether it is ``c``'s turn and whether this round is the one its
    Edge boost is for (``shown_initiative``): memoised on those and the combatant."""
    acting = enc.current == c.id  # (``in_turn``, written out: as below)
    s = c.sheet  # (``sheet_of``, written out: asked of every row and every line)
    rnd = enc.round
    boosted = (s.boost_round if isinstance(s, Sheet2297) else 0) == (rnd if rnd > 1 else 1)
    kept = _ECONOMIES.get(id(c))
    if kept is not None and kept[0] is c and kept[1] == acting and kept[2] == boosted:
        return kept[3]
    eco = _economy(enc, c, acting)
    if len(_ECONOMIES) >= _ECONOMIES_KEPT:
        _ECONOMIES.clear()
    _ECONOMIES[id(c)] = (c, acting, boosted, eco)
    return eco


def _economy(enc: Encounter, c: Combatant, acting: bool) -> Economy:
    s = sheet_of(c)
    # (asked once: the next turn's sheet below differs only in what a limit does not read)
    limit = limit_of(enc, s)
    if acting:
        b, major, move, minor, cap, _, reason = pool(enc, s, limit)
        major, move, minor = (
            max(0, major - s.spent_major),
            max(0, move - s.spent_move),
            max(0, minor - s.spent_minor),
        )
        if cap >= 0:
            cap = max(0, cap - (s.spent_major + s.spent_move + s.spent_minor))
            if cap == 0:
                major = move = minor = 0
    else:  # what its next turn would grant, as things stand
        preview = evolve(s, turn_init=shown_initiative(enc, c), **FRESH_TURN)
        b, major, move, minor, cap, _, reason = pool(enc, preview, limit)
    block = reaction_block(enc, s, limit)
    return Economy(b, major, move, minor, cap, reason, not block, block)


# -- effects --------------------------------------------------------------------------------------


def add_effect(ctx: Ctx, cid: str, effect: Effect) -> None:
    ctx.edit(cid, lambda s: evolve(s, effects=(*s.effects, effect)))


def add_condition(ctx: Ctx, cid: str, name: str, *, source: int = 0, quiet: bool = False) -> None:
    if ctx.sheet(cid).has(name):
        return
    add_effect(ctx, cid, Effect(EKind.COND, name, source=source))
    if not quiet:
        ctx.log(f"{ctx.name(cid)} is {name}", Kind.EFFECT)


def remove_effects(ctx: Ctx, cid: str, keep: Callable[[Effect], bool]) -> list[Effect]:
    s = ctx.sheet(cid)
    gone = [e for e in s.effects if not keep(e)]
    if gone:
        ctx.put(cid, effects=tuple(e for e in s.effects if keep(e)))
    return gone


def nth(n: int) -> str:
    """A combatant's own turn count as said (``its 2nd turn``), never ``turn 2``, which would
    read as a round's turn."""
    if 10 <= n % 100 <= 20:
        return f"{n}th"
    return f"{n}{ {1: 'st', 2: 'nd', 3: 'rd'}.get(n % 10, 'th') }"


def describe(e: Effect, s: Sheet2297 | None = None) -> str:
    """A short text of an effect, for the log and the detail pane."""
    if e.kind is EKind.INIT:
        what = f"initiative −{e.amount}"
    elif e.kind is EKind.ZERO:
        what = "initiative 0"
    elif e.kind is EKind.DISADV:
        what = "Disadvantage"
    elif e.kind is EKind.BLEED:
        what = f"bleeding {e.dice or e.amount}/round"
    elif e.kind is EKind.DEATH:
        return f"dies in {e.rounds} round{'s' if e.rounds != 1 else ''} unless stabilized"
    else:
        what = e.label
    when = []
    if e.first and e.first == e.last:
        when.append(f"on its {nth(e.first)} turn")
    elif e.first:
        when.append(f"from its {nth(e.first)} turn")
    if e.last and e.last != e.first:
        when.append(f"to its {nth(e.last)} turn")
    if e.rounds and e.kind is EKind.BLEED:
        when.append(f"{e.rounds} more round{'s' if e.rounds != 1 else ''}")
    elif e.rounds:
        when.append(f"{e.rounds} round{'s' if e.rounds != 1 else ''} left")
    if e.combat:
        when.append("until end of combat")
    if e.medical:
        when.append("until medical care")
    if e.kind is EKind.BLEED and not e.rounds:
        when.append("until stabilized")
    if e.by:
        when.append(f"until {e.by}'s next turn")
    return f"{what} ({', '.join(when)})" if when else what


# -- fatigue (A9) and cumulative damage (A8) ------------------------------------------------------


def add_fatigue(ctx: Ctx, cid: str, amount: int, why: str) -> None:
    """A9: change fatigue (never below 0) and log any threshold crossed."""
    s = ctx.sheet(cid)
    before = tired(s)
    new = max(0, s.fatigue + amount)
    s = ctx.put(cid, fatigue=new)
    sign = "+" if amount >= 0 else "−"
    ctx.log(f"{ctx.name(cid)}: fatigue {sign}{abs(amount)} ({why}) → {new}/{s.sta}", Kind.EFFECT)
    after = tired(s)
    if after is not before:
        note = {
            Tired.FRESH: "no longer fatigued",
            Tired.FATIGUED: "Fatigued: loses one Major or Move each turn",
            Tired.EXHAUSTED: "Exhausted: initiative 0, one Minor only",
            Tired.UNCONSCIOUS: "Unconscious from fatigue",
        }[after]
        ctx.log(f"{ctx.name(cid)} is {note}", Kind.EFFECT)
        if after is UNCONSCIOUS:
            add_condition(ctx, cid, "prone")
        if after is EXHAUSTED:
            ctx.put(cid, exhausted_round=ctx.round, idle_turns=0)
    if after is not EXHAUSTED:
        ctx.put(cid, idle_turns=0)


def death_countdown(s: Sheet2297) -> Effect | None:
    return next((e for e in s.effects if e.kind is DEATH), None)


def already_dying(ctx: Ctx, cid: str, why: str) -> bool:
    """A7/A8 (Decision): Lethal and dying are one state: one countdown (the first rolled) and
    one +50. True, with a log line, when a countdown is already running."""
    running = death_countdown(ctx.sheet(cid))
    if running is None:
        return False
    left = f"{running.rounds} round{'s' if running.rounds != 1 else ''}"
    ctx.log(
        f"{ctx.name(cid)} is already dying ({running.label}, {left} left): {why} starts no "
        "second countdown and adds no second +50 fatigue (one state)",
        Kind.EFFECT,
    )
    return True


def start_dying(ctx: Ctx, cid: str, why: str, source: int = 0) -> None:
    """A7 Lethal, A8 twice Health: unconscious, prone, dies in 1d6+1 rounds unless stabilized."""
    add_condition(ctx, cid, "unconscious", source=source, quiet=True)
    add_condition(ctx, cid, "prone", source=source, quiet=True)
    n = ctx.roll("1d6+1", f"{ctx.name(cid)} death countdown", cid).total
    add_effect(ctx, cid, Effect(EKind.DEATH, why, rounds=n, source=source))
    ctx.log(
        f"{ctx.name(cid)} is dying ({why}): unconscious, prone, dies in {n} rounds unless "
        "stabilized",
        Kind.EFFECT,
    )


def add_damage(ctx: Ctx, cid: str, amount: int, *, stun: bool = False) -> None:
    """A8: add to the totals; crossing Health or twice Health applies its effects each time."""
    s = ctx.sheet(cid)
    before = s.total
    s = ctx.put(cid, stun=s.stun + amount) if stun else ctx.put(cid, damage=s.damage + amount)
    after, h, name = s.total, s.hlt, ctx.name(cid)
    if before < h <= after:
        ctx.log(f"{name} is Incapacitated (damage {after} ≥ Health {h})", Kind.EFFECT)
        add_fatigue(ctx, cid, 20, "incapacitated")
        add_condition(ctx, cid, "prone")
    if before < 2 * h <= after and not already_dying(ctx, cid, "twice Health"):
        add_fatigue(ctx, cid, 50, "dying")
        start_dying(ctx, cid, f"damage {after} ≥ twice Health")


# -- injuries (A7) --------------------------------------------------------------------------------


def inflict(ctx: Ctx, cid: str, injury: Injury) -> Injury:
    """A7: apply the on-infliction effects of ``injury.level``; returns the injury as recorded."""
    level, name, src = injury.level, ctx.name(cid), injury.id
    due = ctx.sheet(cid).turns + 1  # C6: its next turn not yet started (as changed so far)
    fatigue = INJURY_FATIGUE[level]
    injury = evolve(injury, fatigue=fatigue)
    if level is NO_INJURY:
        return injury
    ctx.log(f"{name}: {level.word} injury", Kind.EFFECT)
    if level is LIGHT:
        amount = ctx.roll("1d6", f"{name} initiative reduction", cid).total
        add_effect(
            ctx, cid, Effect(EKind.INIT, "Light injury", amount, first=due, last=due, source=src)
        )
        add_effect(ctx, cid, Effect(EKind.DISADV, "Light injury", first=due, last=due, source=src))
        ctx.log(
            f"{name}: initiative −{amount} and Disadvantage on its next turn (its {nth(due)})",
            Kind.EFFECT,
        )
    elif level is MODERATE:
        amount = ctx.roll("2d6", f"{name} initiative reduction", cid).total
        n = ctx.roll("1d6+1", f"{name} Disadvantage rounds", cid).total
        add_effect(
            ctx, cid, Effect(EKind.INIT, "Moderate injury", amount, first=due, last=due, source=src)
        )
        add_effect(
            ctx,
            cid,
            Effect(
                EKind.DISADV,
                "Moderate injury",
                rounds=n,
                source=src,
                counts_from=counts_from(ctx.enc, cid),
            ),
        )
        ctx.log(
            f"{name}: initiative −{amount} on its next turn (its {nth(due)}); Disadvantage for "
            f"{n} rounds",
            Kind.EFFECT,
        )
    elif level is SERIOUS:
        amount = ctx.roll("2d6", f"{name} initiative reduction", cid).total
        n = ctx.roll("1d6+1", f"{name} bleeding rounds", cid).total
        add_effect(
            ctx,
            cid,
            Effect(EKind.INIT, "Serious injury", amount, first=due, combat=True, source=src),
        )
        add_effect(ctx, cid, Effect(EKind.DISADV, "Serious injury", medical=True, source=src))
        add_effect(ctx, cid, Effect(EKind.BLEED, "Serious injury", 1, rounds=n, source=src))
        ctx.log(
            f"{name}: initiative −{amount} from its {nth(due)} turn until end of combat; "
            "Disadvantage "
            f"until medical care; one action per turn, no Reactions; bleeds 1 per round for "
            f"{n} rounds",
            Kind.EFFECT,
        )
    elif level is CRITICAL:
        add_effect(
            ctx, cid, Effect(EKind.ZERO, "Critical injury", first=due, combat=True, source=src)
        )
        add_condition(ctx, cid, "prone", source=src, quiet=True)
        add_effect(ctx, cid, Effect(EKind.BLEED, "Critical injury", dice="1d6", source=src))
        ctx.log(
            f"{name}: initiative 0 from its {nth(due)} turn until end of combat; prone; one "
            "Minor if conscious, no Reactions; bleeds 1d6 per round until stabilized",
            Kind.EFFECT,
        )
    elif level is LETHAL:
        if already_dying(ctx, cid, "the Lethal injury"):
            return evolve(injury, fatigue=0)
        start_dying(ctx, cid, "Lethal injury", source=src)
    add_fatigue(ctx, cid, fatigue, f"{level.word} injury")
    return injury


def record_injury(ctx: Ctx, cid: str, level: Level, damage: int) -> Injury:
    s = ctx.sheet(cid)
    injury = Injury(s.next_id, level, level, ctx.round, damage)
    ctx.put(cid, next_id=s.next_id + 1)
    injury = inflict(ctx, cid, injury)
    ctx.edit(cid, lambda s: evolve(s, injuries=(*s.injuries, injury)))
    return injury


def replace_injury(ctx: Ctx, cid: str, injury: Injury) -> None:
    ctx.edit(
        cid,
        lambda s: evolve(s, injuries=tuple(injury if i.id == injury.id else i for i in s.injuries)),
    )


@frozen
class HitResult:
    mitigation: Mitigation
    level: Level
    injury: Injury | None


def hit_outcome(
    s: Sheet2297,
    raw: int,
    kind: DamageType = DamageType.PHYSICAL,
    ap_pt: int = 0,
    ap_dr: int = 0,
    *,
    through: bool = False,
) -> tuple[Mitigation, Level]:
    """A6 → A7: what gets through the armor and the injury level it reaches (stun one lower):
    what ``apply_hit`` applies and the command line's preview says."""
    m = Mitigation(raw, 0, 0, raw) if through else mitigate(raw, s.armor, kind, ap_pt, ap_dr)
    level = injury_level(m.final, s.hlt)
    if kind is STUN and level is not NO_INJURY:
        level = level.lowered()
    return m, level


# A7: what each level brings on infliction, in short (its dice named, not rolled): the preview's.
LEVEL_EFFECTS = {
    Level.LIGHT: "−1d6 init, Disadv. next turn",
    Level.MODERATE: "−2d6 init, Disadv. 1d6+1 rounds",
    Level.SERIOUS: "−2d6 init, Disadv., one action, bleeds 1 for 1d6+1 rounds",
    Level.CRITICAL: "init 0, prone, one Minor, bleeds 1d6 a round",
    Level.LETHAL: "dying in 1d6+1 rounds",
}


def hit_preview(
    s: Sheet2297,
    raw: int,
    kind: DamageType = DamageType.PHYSICAL,
    ap_pt: int = 0,
    ap_dr: int = 0,
    *,
    through: bool = False,
) -> str:
    """A6–A8 in one line, before the hit is applied: "→ 9 gets through · Moderate · −2d6 init,
    Disadv. 1d6+1 rounds" (and the totals' Incapacitated / dying when it crosses them)."""
    if s.dead:
        return "dead: 'set WHO dead no' first"
    m, level = hit_outcome(s, raw, kind, ap_pt, ap_dr, through=through)
    if m.stopped:
        return f"→ stopped by armor (PT {m.pt})"
    parts = [f"→ {m.final} {'already through' if through else 'gets through'}"]
    if level is Level.NONE:
        parts.append("no injury")
    else:
        dying_now = death_countdown(s) is not None and level is Level.LETHAL
        parts.append(level.word + (" (already dying)" if dying_now else ""))
        if not dying_now:
            parts.append(LEVEL_EFFECTS[level])
    before, after, h = s.total, s.total + m.final, s.hlt
    if before < h <= after:
        parts.append(f"Incapacitated ({after}/{h})")
    if before < 2 * h <= after and death_countdown(s) is None and level is not Level.LETHAL:
        parts.append("dying: twice Health")
    return " · ".join(parts)


def apply_hit(
    ctx: Ctx,
    cid: str,
    raw: int,
    kind: DamageType = DamageType.PHYSICAL,
    ap_pt: int = 0,
    ap_dr: int = 0,
    *,
    through: bool = False,
) -> HitResult:
    """A6 → A7 → A8: mitigate, find the level, apply the injury and the damage. ``through``:
    the damage has been through armor already (the GM's figure): A6 is skipped."""
    s = ctx.sheet(cid)
    name = ctx.name(cid)
    if s.dead:
        raise RuleError(f"{name} is dead; 'set {cid} dead no' first if that was a mistake")
    m, level = hit_outcome(s, raw, kind, ap_pt, ap_dr, through=through)
    if through:
        ctx.log(
            f"Hit on {name}: {raw} {kind.value}, already through armor (A6 skipped)", Kind.EFFECT
        )
    else:
        through_text = "stopped by armor" if m.stopped else f"{m.final} gets through"
        ctx.log(
            f"Hit on {name}: {raw} {kind.value} vs PT {m.pt} DR {m.dr}% → {through_text}",
            Kind.EFFECT,
        )
    unlowered = injury_level(m.final, s.hlt)  # (stun's level is one lower: hit_outcome)
    if level is not unlowered:
        ctx.log(
            f"Stun: {unlowered.word} lowered to {level.word if level.rank else 'no injury'}",
            Kind.EFFECT,
        )
    injury = None
    if level is not NO_INJURY:
        injury = record_injury(ctx, cid, level, m.final)
    if m.final > 0:
        add_damage(ctx, cid, m.final, stun=kind is STUN)
        s = ctx.sheet(cid)
        ctx.log(f"{name}: damage {s.damage} + stun {s.stun} = {s.total}/{s.hlt}", Kind.EFFECT)
    if injury is not None and s.edge > 0:
        injury = evolve(injury, offered=True)
        replace_injury(ctx, cid, injury)
        ctx.log(f"{name} may spend 1 Edge (has {s.edge}) to lower it: soak {cid}")
    return HitResult(m, level, injury)


def lapse_offers(ctx: Ctx) -> None:
    """A7: Edge is offered when the injury happens: an offer left open lapses with the turn
    (soak still lowers the injury later, by hand)."""
    for c in ctx.enc.combatants:
        s = c.sheet
        for i in s.injuries if isinstance(s, Sheet2297) else ():  # (a loop: every turn's end)
            if i.offered:
                ctx.put(c.id, injuries=tuple(evolve(i, offered=False) for i in s.injuries))
                break


def lower_injury(ctx: Ctx, cid: str, injury: Injury) -> Injury:
    """A7 Edge: one step lower; the old level's effects go, the new level's are applied."""
    new_level = injury.level.lowered()
    ctx.log(
        f"{ctx.name(cid)}: {injury.level.word} injury lowered to "
        f"{new_level.word if new_level.rank else 'no injury'} with Edge",
        Kind.EFFECT,
    )
    return relevel(ctx, cid, evolve(injury, soaked=True, offered=False), new_level, "lowered")


def relevel(ctx: Ctx, cid: str, injury: Injury, new_level: Level, why: str) -> Injury:
    """An injury changes level (Edge, A7; the GM, C4): the old level's effects and fatigue go,
    the new level's are applied (with their rolls)."""
    name = ctx.name(cid)
    s = ctx.sheet(cid)
    back = injury.fatigue
    countdown = death_countdown(s)
    if (
        injury.level is Level.LETHAL
        and countdown is not None
        and countdown.source == injury.id
        and s.total >= 2 * s.hlt
    ):
        # A7/A8: the one dying state goes on (damage ≥ twice Health), with its countdown and +50
        kept = evolve(countdown, source=0, label=f"damage {s.total} ≥ twice Health")
        swap_effect(ctx, cid, countdown, kept)
        back = max(0, back - INJURY_FATIGUE[Level.LETHAL])
        ctx.log(
            f"{name} is still dying (damage {s.total} ≥ twice Health): the countdown and its "
            "+50 fatigue stay",
            Kind.EFFECT,
        )
    remove_effects(ctx, cid, lambda e: e.source != injury.id)
    if back:
        add_fatigue(ctx, cid, -back, f"{injury.level.word} injury {why}")
    changed = evolve(injury, level=new_level, fatigue=0)
    changed = inflict(ctx, cid, changed)
    replace_injury(ctx, cid, changed)
    return changed


# -- turns (C2, C6) -------------------------------------------------------------------------------


def expire_pinned_by(ctx: Ctx, cid: str, why: str = "acts") -> None:
    """A11 (Decision): Pinned lasts until the start of the pinning attacker's next turn (a
    Reaction does not end it)."""
    pinned = []
    for c in ctx.enc.combatants:  # (a loop: every turn's start scans every combatant)
        for e in c.sheet.effects:
            if e.by == cid:
                pinned.append(c)
                break
    for c in pinned:  # only those it pins: a turn costs O(combatants), not O(combatants²)
        gone = remove_effects(ctx, c.id, lambda e: e.by != cid)
        for e in gone:
            ctx.log(f"{c.name} is no longer {e.label} ({ctx.name(cid)} {why})", Kind.EFFECT)


def expire_pins_of_the_dead(ctx: Ctx) -> None:
    """A11: a dead attacker has no next turn, so what it pinned ends as the next round starts
    (where that turn would have come at the latest)."""
    for c in ctx.enc.combatants:
        if c.sheet.dead:
            expire_pinned_by(ctx, c.id, "is dead")


def begin_turn(ctx: Ctx, cid: str) -> None:
    """C2: count the turn, clear Surprised in round 2, tick bleeding and death, set the band."""
    c = ctx.combatant(cid)  # (its name and base initiative: a turn's start changes neither)
    s, name = sheet_of(c), c.name
    turn = s.turns + 1
    # (what it pinned goes first, while the encounter is as it was: the scan of every
    # combatant reads it whole; this turn's own marks change no one else's sheet)
    expire_pinned_by(ctx, cid)
    s = ctx.put(cid, turns=turn, **FRESH_TURN)
    for e in s.effects:
        if e.kind is COND and e.until_round and ctx.round >= e.until_round:
            drop_effect(ctx, cid, e)
            ctx.log(f"{name} is no longer {e.label}", Kind.EFFECT)
    tick(ctx, cid)
    s = ctx.sheet(cid)
    init = effective_initiative(s, c.initiative, turn, ctx.round)
    s = ctx.put(cid, turn_init=init)
    if s.dead:
        return
    eco = economy(ctx.enc, ctx.combatant(cid))
    if eco.cap == 0:
        ctx.log(f"{name} cannot act ({eco.limit})", Kind.EFFECT)
        return
    if not ctx.keeps_log:  # (the turn's summary below is for the log alone)
        return
    text = (
        f"{name}: initiative {init} ({eco.band.name}) — Major {eco.major}, Move {eco.move}, "
        f"Minor {eco.minor}"
    )
    if eco.cap > 0:
        text += f"; one action in all ({eco.limit})"
    elif eco.limit:
        text += f"; {eco.limit}"
    if disadvantaged(s, turn):
        text += "; Disadvantage"
    if s.ext_name:
        text += f"; extended '{s.ext_name}' {s.ext_step}/{s.ext_total}"
    ctx.log(text)


def tick(ctx: Ctx, cid: str) -> None:
    """C2: bleeding and death countdowns tick at the start of the turn, even if it cannot act."""
    s = ctx.sheet(cid)
    if s.dead:
        return
    name = ctx.name(cid)
    for e in s.effects:
        if e.kind is not BLEED and e.kind is not DEATH:
            continue  # (nothing ticks: most effects, passed without reading the sheet again)
        if ctx.sheet(cid).dead:
            return
        if e.kind is BLEED:
            amount = ctx.roll(e.dice, f"{name} bleeding", cid).total if e.dice else e.amount
            left = e.rounds - 1 if e.rounds else 0
            if e.rounds and left <= 0:
                drop_effect(ctx, cid, e)
                ctx.log(f"{name} bleeds {amount} ({e.label}); the bleeding stops", Kind.EFFECT)
            else:
                swap_effect(ctx, cid, e, evolve(e, rounds=left))
                more = f", {left} more round{'s' if left != 1 else ''}" if e.rounds else ""
                ctx.log(f"{name} bleeds {amount} ({e.label}{more})", Kind.EFFECT)
            if amount > 0:
                add_damage(ctx, cid, amount)
        elif e.kind is DEATH:
            current = next((x for x in ctx.sheet(cid).effects if x == e), None)
            if current is None:
                continue
            left = e.rounds - 1
            if left <= 0:
                remove_effects(ctx, cid, lambda x: x.kind is not DEATH)
                ctx.put(cid, dead=True)
                ctx.log(f"{name} dies ({e.label})", Kind.EFFECT)
                return
            swap_effect(ctx, cid, e, evolve(e, rounds=left))
            ctx.log(
                f"{name} is dying ({e.label}): {left} round{'s' if left != 1 else ''} left",
                Kind.EFFECT,
            )


def drop_effect(ctx: Ctx, cid: str, old: Effect) -> None:
    effects = list(ctx.sheet(cid).effects)
    if old in effects:
        effects.remove(old)
        ctx.put(cid, effects=tuple(effects))


def swap_effect(ctx: Ctx, cid: str, old: Effect, new: Effect) -> None:
    s = ctx.sheet(cid)
    effects = list(s.effects)
    for i, e in enumerate(effects):
        if e is old or e == old:
            effects[i] = new
            break
    ctx.put(cid, effects=tuple(effects))


def end_turn(ctx: Ctx, cid: str) -> None:
    """C2: "next turn" effects end with this turn; "N rounds" count down and expire at 0."""
    s = ctx.sheet(cid)
    name, turn = ctx.name(cid), s.turns
    kept: list[Effect] = []
    for e in s.effects:
        if e.kind in (BLEED, DEATH):
            kept.append(e)
        elif e.last and e.last <= turn:
            ctx.log(
                f"{name}: {describe(evolve(e, first=0, last=0))} from {e.label} ends", Kind.EFFECT
            )
        elif e.rounds and (e.first == 0 or e.first <= turn) and e.counts_from <= turn:
            left = e.rounds - 1
            if left <= 0:
                what = e.label if e.kind is COND else describe(evolve(e, rounds=0))
                src = "" if e.kind is COND else f" from {e.label}"
                ctx.log(f"{name}: {what}{src} ends", Kind.EFFECT)
            else:
                kept.append(evolve(e, rounds=left))
        else:
            kept.append(e)
    if s.effects and (
        len(kept) != len(s.effects) or any(k is not e for k, e in zip(kept, s.effects, strict=True))
    ):
        s = ctx.put(cid, effects=tuple(kept))
    if s.ext_name and s.ext_turn != turn and s.ext_step:
        ctx.log(
            f"{name}: extended '{s.ext_name}' not advanced this turn ({s.ext_step}/{s.ext_total})"
        )


REST_ROUNDS = 10  # A9: fatigue −1 for every 10 full rounds without an action while Exhausted


def count_idle_round(ctx: Ctx, cid: str) -> None:
    """A9: at a round's end, an Exhausted combatant that was Exhausted all round and took no
    action (a Reaction counts as one) counts an idle round; every 10th earns fatigue −1,
    offered for the GM to confirm (``recover WHO``)."""
    s = ctx.sheet(cid)
    rnd = ctx.round
    if s.dead or tired(s) is not EXHAUSTED or s.exhausted_round >= rnd:
        return
    if s.acted_round == rnd:
        return
    n = s.idle_turns + 1
    if n < REST_ROUNDS:
        ctx.put(cid, idle_turns=n)
        return
    s = ctx.put(cid, idle_turns=0, recover_due=s.recover_due + 1)
    ctx.log(
        f"{ctx.name(cid)} has had {REST_ROUNDS} full rounds without an action while Exhausted: "
        f"fatigue −{s.recover_due} is due for the GM to confirm: recover {cid}",
        Kind.EFFECT,
    )


def phase_active(enc: Encounter) -> bool:
    return enc.phase is Phase.ACTIVE


def initiative_expr(s: Sheet2297) -> str:
    """A3: Xd6 + AG + CU."""
    mod = s.ag + s.cu
    return f"{s.dice}d6{mod:+d}" if mod else f"{s.dice}d6"


def roll_initiative(ctx: Ctx, cid: str) -> int:
    """A3: roll Xd6 + AG + CU, never below 0."""
    s = ctx.sheet(cid)
    return max(0, ctx.roll(initiative_expr(s), f"{ctx.name(cid)} initiative", cid).total)


def parse_awareness(text: str) -> Awareness:
    t = text.strip().lower()
    for a in Awareness:
        if t and a.value.startswith(t):
            return a
    raise RuleError(f"unknown awareness '{text}': use full, partial or unaware")
