"""2297 engine: the rules applied to an encounter (A3, A4, A9, A11, C2, C6).

Functions here take a ``Ctx`` (the encounter being built, the command's dice, and the log) so that
the same code serves commands and the round hooks; every roll is logged with its dice (C3). Here:
the ``Ctx``, the states a sheet is in (tired, dying...), initiative (A3) and the action economy
(A4), effects (C2) and fatigue (A9). What a hit does is in ``hits``; what a turn's start and end
do in ``turns``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from attrs import frozen

from facility_tui.commands.dice import Dice, DiceError, Roll
from facility_tui.model.encounter import (
    Combatant,
    Encounter,
    Kind,
    Phase,
    evolve,
    evolve_with,
    maker,
)
from facility_tui.systems.base import RuleError
from facility_tui.systems.r2297.rules import (
    CRITICAL,
    EXHAUSTED,
    FATIGUED,
    LETHAL,
    SERIOUS,
    UNCONSCIOUS,
    Band,
    Tired,
    band,
    tiredness,
)
from facility_tui.systems.r2297.sheet import (
    DEATH,
    DISADV,
    INIT,
    ZERO,
    Awareness,
    Effect,
    EKind,
    Sheet2297,
)

if TYPE_CHECKING:
    from facility_tui.commands.spec import Call


_ACTIVE = Phase.ACTIVE  # (read from its class, a member costs a call: ``model.encounter``)


class Ctx:
    """An encounter under construction with the dice of what builds it: a round hook's
    ``Ctx(enc, dice)``, or a command's ``Ctx.of(call)``, which is the call's own encounter, dice
    and log (no copy to hand back: what the command and the engine do lands in one place).

    A round hook's changes to sheets and its log lines are gathered and made into one new
    encounter when ``enc`` is next read: a round's start at 1,000 combatants changes every
    sheet, and a new encounter per change copied the list each time (O(n²)). A changed sheet
    is kept as a sheet, and its combatant made once when the combatant or the encounter is
    read: a turn's start changes one sheet several times and reads it in between.

    A sheet this ``Ctx`` copied and nothing else holds yet (not made into a combatant) is its
    own: a later ``put`` sets the fields on it rather than copying its 49 again (a hit changes
    its target's sheet about six times). What the engine read from it before stays read: the
    code here reads a sheet's fields when it needs them, and hands none of its own out."""

    # (slots: a play makes one for every hook and attack; no dict of attributes each)
    __slots__ = ("_changed", "_enc", "_ids", "_last", "_lines", "_moved", "_own", "_sheets", "dice")

    def __init__(self, enc: Encounter, dice: Dice, *, last: bool = False) -> None:
        self._enc = enc
        self.dice = dice
        # ``last``: ``dice`` are the command's own and this ``Ctx`` rolls its last: the encounter
        # made records where they are (``apply`` need not copy it again for its ``rolls``)
        self._last = last
        self._changed: dict[str, Combatant] = {}  # id -> the combatant as changed since
        self._sheets: dict[str, Any] = {}  # id -> its sheet as changed since (not yet made into it)
        self._own: dict[str, Any] = {}  # id -> the sheet of ``_sheets`` this copied (its own)
        self._lines: list[tuple[str, Kind]] = []
        # id -> combatant of ``_enc`` (the first of an id, as ``Encounter.get``), made when first
        # asked: the engine names combatants by id dozens of times in a turn
        self._ids: dict[str, Combatant] | None = None
        self._moved: int | None = None  # the turn ``move_to`` moved the marker to, not yet made

    @property
    def enc(self) -> Encounter:
        if self._sheets:
            self._settle_sheets()
        if self._changed or self._lines or self._moved is not None:
            enc, changed, moved = self._enc, self._changed, self._moved
            if changed:
                combatants = _replaced(enc.combatants, changed)
                position = self.dice.position
                if self._last and position != enc.rolls:  # (the dice's place with them)
                    enc = evolve_with(enc, _made(combatants, moved, position))
                elif moved is None:
                    enc = evolve(enc, combatants=combatants)
                else:  # (the marker moved with them: one copy of the encounter, not two)
                    enc = evolve(enc, combatants=combatants, turn=moved)
                if self._ids is not None:
                    self._ids.update(changed)
                    _remember_ids(combatants, self._ids)
            elif moved is not None:
                enc = evolve(enc, turn=moved)
            self._moved = None
            if self._lines:  # (an encounter that keeps no log, a forecast's play, drops them)
                enc = enc.logged_all(self._lines)
            self._enc, self._changed, self._lines = enc, {}, []
        return self._enc

    @enc.setter
    def enc(self, enc: Encounter) -> None:
        self._enc, self._changed, self._sheets, self._lines, self._ids = enc, {}, {}, [], None
        self._own, self._moved = {}, None

    @property
    def round(self) -> int:
        """The encounter's round (what changes gathered here leave as it is)."""
        return self._enc.round

    def move_to(self, turn: int) -> None:
        """The turn marker moved to ``turn`` of the round, the changes gathered kept (the same
        combatants: what is gathered is of them). Made with them when ``enc`` is next read (a
        turn's start changes its sheet after: one encounter made, not two)."""
        self._moved = turn

    @property
    def combatants(self) -> tuple[Combatant, ...]:
        """The encounter's combatants as changed, the encounter made only when one changed
        (a scan at a turn's start leaves the marker's move to be made with its changes)."""
        if self._sheets or self._changed:
            return self.enc.combatants
        return self._enc.combatants

    @property
    def keeps_log(self) -> bool:
        """Whether the encounter keeps a log line (a forecast's copies keep none: a line only
        the log would read, costly to write, need not be)."""
        return self._enc.keeps_log

    def _settle_sheets(self) -> None:
        """The changed sheets made into their combatants."""
        for cid, sheet in self._sheets.items():
            self._changed[cid] = evolve(self._base(cid), sheet=sheet)
        self._sheets, self._own = {}, {}  # (in a combatant, a sheet is shared: copied again)

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
            self._own.pop(cid, None)
            c = self._changed[cid] = evolve(self._base(cid), sheet=sheet)
            return c
        return self._base(cid)

    def _known(self) -> dict[str, Combatant]:
        if self._ids is None:
            cs = self._enc.combatants
            kept, ids = _LAST_IDS
            if kept is cs:  # (the combatants the last hook made or read: a turn's end, its start)
                self._ids = ids.copy()
            else:
                self._ids = {c.id: c for c in reversed(cs)}
                _remember_ids(cs, self._ids)
        return self._ids

    def roll(self, expr: str, what: str, by: str | None = None) -> Roll:
        """Roll ``expr`` for ``what`` (logged), a roll of combatant ``by`` (the GM types it when
        table dice say so)."""
        dice = self.dice
        # (whose roll it is counts only where the GM types rolls: not a play's, nor most)
        c = (
            self._base(by)
            if dice.ask is not None and by is not None and by in self._known()
            else None
        )
        try:
            roll = dice.roll(expr, what, side=c.side if c else None, who=c.name if c else "")
        except DiceError as err:
            raise RuleError(f"{what}: {err}") from None
        if self._enc.keeps_log:  # (a play's encounter keeps no line: none is written)
            self._lines.append((f"{what}: {roll.detail}", Kind.ROLL))
        return roll

    def log(self, text: str, kind: Kind = Kind.INFO) -> None:
        if self._enc.keeps_log:
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

    def has(self, cid: str) -> bool:
        """Whether the encounter has a combatant ``cid`` (by the ids this ``Ctx`` finds them
        by: ``Encounter.has`` scans the list)."""
        return cid in self._known()

    def update(self, cid: str, **changes: Any) -> None:
        """Change the combatant's own fields (its initiative)."""
        self._changed[cid] = evolve_with(self.combatant(cid), changes)

    def put(self, cid: str, **changes: Any) -> Sheet2297:
        # (``put_all``, written out: a call less, asked hundreds a play; a sheet changed here
        # already is taken as it is, without ``sheet``'s call: a hit puts its target's ~6 times)
        kept = self._sheets.get(cid)
        s = kept if kept is not None else self.sheet(cid)
        for key, value in changes.items():
            if getattr(s, key) != value:
                if self._own.get(cid) is s:  # (its own copy: set on it, not copied again)
                    for name, new in changes.items():
                        _set(s, name, new)
                else:
                    s = self._sheets[cid] = self._own[cid] = evolve_with(s, changes)
                break
        return s

    def put_all(self, cid: str, changes: dict[str, Any]) -> Sheet2297:
        """``put`` with the changes as a dict (a turn's marks, kept as one)."""
        kept = self._sheets.get(cid)  # (as ``put``)
        s = kept if kept is not None else self.sheet(cid)
        for key, value in changes.items():
            if getattr(s, key) != value:
                if self._own.get(cid) is s:
                    for name, new in changes.items():
                        _set(s, name, new)
                else:
                    s = self._sheets[cid] = self._own[cid] = evolve_with(s, changes)
                break
        return s

    def edit(self, cid: str, fn: Callable[[Sheet2297], Sheet2297]) -> Sheet2297:
        self._own.pop(cid, None)  # (what ``fn`` makes is not known to be its own)
        self._sheets[cid] = fn(self.sheet(cid))
        return self.sheet(cid)


def _made(combatants: tuple[Combatant, ...], moved: int | None, rolls: int) -> dict[str, Any]:
    """A ``Ctx``'s changes to its encounter: the combatants, the marker moved, the rolls."""
    if moved is None:
        return {"combatants": combatants, "rolls": rolls}
    return {"combatants": combatants, "turn": moved, "rolls": rolls}


_set = object.__setattr__  # (a field set on a frozen sheet that ``Ctx`` owns: see ``Ctx``)


# The combatants a round hook last read or made, by id (a copy: each hook changes its own): the
# next hook at the same combatants copies it rather than reading them again (a turn's end, then
# the next one's start, at every ``next`` of a play).
_LAST_IDS: tuple[tuple[Combatant, ...] | None, dict[str, Combatant]] = (None, {})


def _remember_ids(cs: tuple[Combatant, ...], ids: dict[str, Combatant]) -> None:
    global _LAST_IDS
    _LAST_IDS = (cs, ids.copy())


# -- the latest list of combatants, and what is known of it ----------------------------------------

# The latest list of combatants (the tuple, as an object: the model is immutable) a ``Ctx``
# made or a scan read, with the place of each id in it (None: an id repeats), and whether it
# holds an injury whose Edge offer is open and an effect another combatant keeps on it (a pin;
# None: not known). A ``Ctx`` makes its list from it by putting each changed combatant in its
# place (the ids stay where they were), not by asking each combatant whether it changed; and the
# scans for the rare things (the open offers after every line a play runs, their lapse at every
# turn's end, the pins ended at its start: each read every combatant and most found nothing,
# docs/benchmarks.md, 'Faster plays (issue 39)') are answered from it while the answer is
# "none", carried from list to list by reading only the changed combatants.
_LATEST: tuple[tuple[Combatant, ...] | None, dict[str, int] | None, bool | None, bool | None] = (
    None,
    None,
    None,
    None,
)


def _places_of(cs: tuple[Combatant, ...]) -> dict[str, int] | None:
    places = {}
    for i, c in enumerate(cs):
        places[c.id] = i
    return places if len(places) == len(cs) else None


def _offered(s: Any) -> bool:
    for i in s.injuries:  # noqa: SIM110 - (a loop, not any(): no generator each time)
        if i.offered:
            return True
    return False


def _pinning(s: Any) -> bool:
    for e in s.effects:  # noqa: SIM110
        if e.by:
            return True
    return False


def _replaced(base: tuple[Combatant, ...], changed: dict[str, Combatant]) -> tuple[Combatant, ...]:
    """``base`` with each of ``changed`` (by id) in its place; what is known of ``base`` carried
    to it: where ``base`` held none of a rare thing, the new list holds one only if a changed
    combatant does (where it held one, it is not known which: counted again when asked)."""
    global _LATEST
    kept, places, offers, pins = _LATEST
    if kept is not base:
        places, offers, pins = _places_of(base), None, None
    if places is None:  # (an id repeats: each of them replaced, as ``get`` reads)
        new = tuple([changed.get(c.id, c) for c in base])
        _LATEST = (new, None, None, None)
        return new
    made = list(base)
    offers = None if offers or offers is None else False
    pins = None if pins or pins is None else False
    for cid, c in changed.items():
        made[places[cid]] = c
        s = c.sheet
        if offers is False and s.injuries and _offered(s):
            offers = True
        if pins is False and s.effects and _pinning(s):
            pins = True
    new = tuple(made)
    _LATEST = (new, places, offers, pins)
    return new


def _rare(cs: tuple[Combatant, ...]) -> tuple[bool, bool]:
    global _LATEST
    kept, places, offers, pins = _LATEST
    if kept is not cs or offers is None or pins is None:
        if kept is not cs:
            places = _places_of(cs)
        offers = pins = False
        for c in cs:
            s = c.sheet
            if isinstance(s, Sheet2297):
                offers = offers or (bool(s.injuries) and _offered(s))
                pins = pins or (bool(s.effects) and _pinning(s))
        _LATEST = (cs, places, offers, pins)
    return offers, pins


def offers_open(cs: tuple[Combatant, ...]) -> bool:
    """Whether an injury of ``cs`` has its Edge offer open (A7), as a scan would find."""
    return _rare(cs)[0]


def pins_kept(cs: tuple[Combatant, ...]) -> bool:
    """Whether an effect of ``cs`` is kept by another combatant (``Effect.by``: A11's pins)."""
    return _rare(cs)[1]


class _CallCtx(Ctx):
    """A command's ``Ctx``: its encounter is the call's, its rolls and log lines the call's.
    It finds a combatant by id in a dict of the call's combatants (kept while they are the
    same, and through its own changes: an attack names them dozens of times)."""

    __slots__ = ("_of", "call")

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
    def combatants(self) -> tuple[Combatant, ...]:
        return self.call.enc.combatants

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
        return self.put_all(cid, changes)

    def put_all(self, cid: str, changes: dict[str, Any]) -> Sheet2297:
        c = self.combatant(cid)
        s = c.sheet
        for key, value in changes.items():
            if getattr(s, key) != value:
                self._swap(evolve(c, sheet=evolve_with(s, changes)))
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
    return s.has("unconscious") or tiredness(s.fatigue, s.sta) is UNCONSCIOUS


def dying(s: Sheet2297) -> bool:
    # (a loop, not any(): asked of every sheet many times a turn, a generator each time)
    for e in s.effects:  # noqa: SIM110
        if e.kind is DEATH:
            return True
    return False


def incapacitated(s: Sheet2297) -> bool:
    """A8: total damage ≥ Health."""
    return s.damage + s.stun >= s.hlt  # (``total``, written out: asked after every line)


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
    # (``tired``, ``incapacitated`` and ``active_on`` written out: every turn's start and every
    # round's order ask this)
    weary = tiredness(s.fatigue, s.sta)
    if weary is EXHAUSTED or weary is UNCONSCIOUS or s.damage + s.stun >= s.hlt:
        return 0
    value = base + (s.boost if s.boost_round == rnd and rnd > 0 else 0)
    for e in s.effects:
        if not ((e.first == 0 or e.first <= turn) and (e.last == 0 or turn <= e.last)):
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
    if not s.effects:  # (most sheets: asked by every attack)
        return ""
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


_economy_of = maker(Economy)  # (``Economy``, made faster: a play works out hundreds)


def limit_of(enc: Encounter, s: Sheet2297) -> tuple[str, str]:
    """A4: the most restrictive limit, as (kind, reason): nothing / minor / one / fatigued / ""."""
    if s.dead:
        return "nothing", "dead"
    effects = bool(s.effects)  # (none: not dying, no condition; most sheets)
    if effects and dying(s):
        return "nothing", "dying"
    if effects and s.has("unconscious"):
        return "nothing", "unconscious"
    tiredness_now = tiredness(s.fatigue, s.sta)  # (asked once: the checks below read it in turn)
    if tiredness_now is UNCONSCIOUS:
        return "nothing", "unconscious"
    if effects and surprised(s):
        return "nothing", "surprised (Unaware)"
    level = s.level
    if level in (CRITICAL, LETHAL):
        return "minor", f"{level.word} injury"
    if s.damage + s.stun >= s.hlt:  # (``incapacitated``, written out)
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
    # (``in_turn`` and ``Encounter.current``, written out: a property is a call of its own)
    order, turn = enc.order, enc.turn
    acting = enc.phase is _ACTIVE and 0 <= turn < len(order) and order[turn] == c.id
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
    return _economy_of(b, major, move, minor, cap, reason, not block, block)


# -- effects --------------------------------------------------------------------------------------


def add_effect(ctx: Ctx, cid: str, effect: Effect) -> None:
    ctx.put(cid, effects=(*ctx.sheet(cid).effects, effect))  # (a put: a sheet ``Ctx`` owns)


def add_condition(ctx: Ctx, cid: str, name: str, *, source: int = 0, quiet: bool = False) -> None:
    if ctx.sheet(cid).has(name):
        return
    add_effect(ctx, cid, Effect(EKind.COND, name, source=source))
    if not quiet and ctx.keeps_log:
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


# -- fatigue (A9) ---------------------------------------------------------------------------------


TIRED_NOTES = {
    Tired.FRESH: "no longer fatigued",
    Tired.FATIGUED: "Fatigued: loses one Major or Move each turn",
    Tired.EXHAUSTED: "Exhausted: initiative 0, one Minor only",
    Tired.UNCONSCIOUS: "Unconscious from fatigue",
}


def add_fatigue(ctx: Ctx, cid: str, amount: int, why: str) -> None:
    """A9: change fatigue (never below 0) and log any threshold crossed."""
    s = ctx.sheet(cid)
    before = tired(s)
    new = max(0, s.fatigue + amount)
    s = ctx.put(cid, fatigue=new)
    logs = ctx.keeps_log  # (the lines below are for the log alone: a play's keeps none)
    if logs:
        sign = "+" if amount >= 0 else "−"
        ctx.log(
            f"{ctx.name(cid)}: fatigue {sign}{abs(amount)} ({why}) → {new}/{s.sta}", Kind.EFFECT
        )
    after = tired(s)
    if after is not before:
        if logs:
            ctx.log(f"{ctx.name(cid)} is {TIRED_NOTES[after]}", Kind.EFFECT)
        if after is UNCONSCIOUS:
            add_condition(ctx, cid, "prone")
        if after is EXHAUSTED:
            ctx.put(cid, exhausted_round=ctx.round, idle_turns=0)
    if after is not EXHAUSTED:
        ctx.put(cid, idle_turns=0)


def death_countdown(s: Sheet2297) -> Effect | None:
    return next((e for e in s.effects if e.kind is DEATH), None)


def drop_effect(ctx: Ctx, cid: str, old: Effect) -> None:
    effects = list(ctx.sheet(cid).effects)
    if old in effects:
        effects.remove(old)
        ctx.put(cid, effects=tuple(effects))


def swap_effect(ctx: Ctx, cid: str, old: Effect, new: Effect) -> None:
    s = ctx.sheet(cid)
    effects = list(s.effects)
    kind = old.kind
    for i, e in enumerate(effects):  # (an effect of another kind is not equal: not compared)
        if e is old or (e.kind is kind and e == old):
            effects[i] = new
            break
    ctx.put(cid, effects=tuple(effects))


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
