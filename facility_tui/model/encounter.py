"""The encounter model: plain, immutable attrs classes.

Every change goes through a command (see ``commands``) that returns a new ``Encounter``; nothing
here mutates. Immutability is what makes undo a matter of keeping the old value around.

Each rule system keeps its per-combatant data in a *sheet* (an attrs class of its own module), held
in ``Combatant.sheet``; the encounter's ``system`` says which sheet class that is.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Iterable
from typing import Any, ClassVar, TypeVar

import attrs
from attrs import field, frozen

from facility_tui.model.fields import facts, where
from facility_tui.model.log import Log, as_log
from facility_tui.model.text import MAX_NAME, MAX_TITLE


class Phase(enum.StrEnum):
    SETUP = "setup"
    ACTIVE = "active"
    ENDED = "ended"


# The phase the hot paths compare with, under a plain name: in Python 3.11 a member read from its
# enum class goes through ``EnumType.__getattr__``'s slot, a call each time, and a forecast play
# read thousands of enum members (docs/benchmarks.md, 'The forecast's plays and workers').
_ACTIVE = Phase.ACTIVE


class TableDice(enum.StrEnum):
    """Who rolls the rules' dice in the app (``tabledice``): the app, the GM for the PCs' rolls,
    or the GM for every roll (typed in a prompt as each is needed)."""

    APP = "app"
    PCS = "pcs"
    ALL = "all"


class Kind(enum.StrEnum):
    """What a log line records; screens colour by it."""

    INFO = "info"
    ROLL = "roll"
    OVERRIDE = "override"
    EFFECT = "effect"
    TURN = "turn"


@frozen
class LogEntry:
    round: int
    text: str
    kind: Kind = Kind.INFO


@frozen
class Sheet:
    """The empty sheet; each rule system subclasses it with its own numbers."""


@frozen
class Combatant:
    # Each field's facts (``model.fields``) say what reaches the party and templates, what a
    # hand edit may hold and since which format ``show --json`` shows it.
    id: str = field(metadata=facts(lasts=False, template=False))
    name: str = field(metadata=facts(chars=MAX_NAME))
    # (the party's are all PCs: it gives them the PC side itself)
    side: str = field(default="enemy", metadata=facts(lasts=False))
    initiative: int = field(default=0, metadata=facts(lasts=False, template=False, least=0))
    notes: str = ""
    # from players (``hide``)
    hidden: bool = field(
        default=False, metadata=facts(lasts=False, template=False, json=2, omit_default=True)
    )
    notes_hidden: bool = field(default=False, metadata=facts(json=2, omit_default=True))
    sheet: Any = field(factory=Sheet)  # (what of it lasts, the rules say: ``Carry.lasting``)
    # Its number in the list's ``#`` column, given when it is added and never reused in its
    # encounter (``#3`` stays the same combatant as the order changes); 0: none (a hand edit).
    handle: int = field(
        default=0,
        metadata=facts(lasts=False, template=False, least=0, says="from 0 (the next number)"),
    )
    # Its initiative as its ``add`` line (or template) gave it, a number or dice (``1d6+3``):
    # ``initiative`` is what it rolled; a template and the party keep this, to roll again.
    init: str = field(default="", metadata=facts(dice=True, json=3, later=True, omit_default=True))
    # What it joined this fight as, when it came from the party (``party join``): the
    # fingerprint of its ``[[pc]]`` table then, so a hand-back can tell the roster moved on.
    joined: str = field(
        default="",
        metadata=facts(lasts=False, template=False, json=3, later=True, omit_default=True),
    )


# The fields of a combatant that belong to one fight (its id and number here, the initiative
# it rolled, whether the players see it, what it took from the party), and those it gained
# after saves were written without them (replayed, an older save's history gives them where
# the fight it saved has none: ``store`` takes the saved fight); as its fields declare them.
FIGHT_FIELDS = where(Combatant, lambda said: not said.lasts and not said.template)
LATER_FIELDS = where(Combatant, lambda said: said.later)


def as_saved_before(enc: Encounter, saved: Encounter | None = None) -> Encounter:
    """``enc`` with its combatants' ``LATER_FIELDS`` as a save written before them holds them:
    as ``saved``'s (the same combatants), else fresh."""
    fresh = Combatant(id="", name="")
    out = []
    for i, c in enumerate(enc.combatants):
        like = saved.combatants[i] if saved is not None and i < len(saved.combatants) else fresh
        out.append(evolve(c, **{f: getattr(like, f) for f in LATER_FIELDS}))
    return evolve(enc, combatants=tuple(out))


PCS = "pcs"
ENEMIES = "enemies"


@frozen
class Encounter:
    name: str = field(metadata=facts(chars=MAX_TITLE))
    system: str  # the id of its rule system (``facility_tui.systems``): "2297", "facility"
    seed: int = 0
    rolls: int = 0  # how many dice rolls have been made: the position of the seeded RNG
    phase: Phase = Phase.SETUP
    round: int = 0
    turn: int = 0  # index into ``order``
    order: tuple[str, ...] = ()  # whose turns this round: combatant ids (2297) or sides (Facility)
    combatants: tuple[Combatant, ...] = ()
    # the log shares its entries with the logs it grew from (``logseq``): a tuple given is made one
    log: Log[LogEntry] = field(factory=Log, converter=as_log)
    state: Any = field(factory=Sheet)  # encounter-wide data of the rule system
    table_dice: TableDice = field(default=TableDice.APP, metadata={"omit_default": True})
    # The last handle given (``Combatant.handle``). -1, the value of a save written before
    # handles, keeps that encounter as it was: ``#N`` is the N-th in the list, so its history
    # replays as typed, through ``new`` too (which keeps it). A fresh save starts at 0.
    handles: int = field(default=-1, metadata={"omit_default": True})
    # Whether the combatants the rules make (a Facility barricade) get the next handle too.
    # False, the value of a save written before they did: they have none (handle 0), and its
    # history replays as typed, through ``new`` too (which keeps it). A fresh save sets it.
    made_numbered: bool = field(default=False, metadata={"omit_default": True})
    # Whether ``logged`` keeps a line (a forecast's copies keep none): a line only the log
    # would read need not be written (the round's turn announcements)
    keeps_log: ClassVar[bool] = True
    # Whether a turn that cannot be played passes on by itself inside the command that reached
    # it (``rounds.start_turn``); a forecast's copies pass such turns one ``next`` at a time, to
    # see the round in which a fight ends
    passes_turns: ClassVar[bool] = True

    @property
    def numbered(self) -> bool:
        """Whether ``#N`` names a combatant's handle (else: its place in the list)."""
        return self.handles >= 0

    # -- lookups ------------------------------------------------------------------------------

    def get(self, cid: str) -> Combatant:
        cs = self.combatants
        if len(cs) <= _SCAN:  # (``_position``'s scan, written out: asked after every line)
            for c in cs:
                if c.id == cid:
                    return c
            raise KeyError(cid)
        i = _position(cs, cid)
        if i is None:
            raise KeyError(cid)
        return cs[i]

    def has(self, cid: str) -> bool:
        cs = self.combatants
        if len(cs) <= _SCAN:  # (as ``get``; a loop, not any(): no generator)
            for c in cs:  # noqa: SIM110
                if c.id == cid:
                    return True
            return False
        return _position(cs, cid) is not None

    @property
    def current(self) -> str | None:
        """The slot (combatant id or side) whose turn it is, if combat is running."""
        if self.phase is _ACTIVE and 0 <= self.turn < len(self.order):
            return self.order[self.turn]
        return None

    @property
    def upcoming(self) -> str | None:
        """The slot that acts after the current one; at the round's end, the next round's first."""
        if self.phase is not _ACTIVE or not self.order:
            return None
        if self.turn + 1 < len(self.order):
            return self.order[self.turn + 1]
        return self.order[0]

    # -- building new values -----------------------------------------------------------------

    def logged(self, text: str, kind: Kind = Kind.INFO) -> Encounter:
        return evolve(self, log=self.log.extended((LogEntry(self.round, text, kind),)))

    def logged_all(self, lines: Iterable[tuple[str, Kind]]) -> Encounter:
        new = tuple(LogEntry(self.round, t, k) for t, k in lines)
        return evolve(self, log=self.log.extended(new)) if new else self

    def joined(self, combatant: Combatant, *, made: bool = False) -> Encounter:
        """``combatant`` at the end of the list with the next handle: added by the GM, or
        ``made`` by the rules (see ``made_numbered``); none in a save from before handles."""
        numbered = self.numbered and (self.made_numbered or not made)
        handle = self.handles + 1 if numbered else 0
        c = evolve(combatant, handle=handle)
        return evolve(self, combatants=(*self.combatants, c), handles=handle or self.handles)

    def replace(self, combatant: Combatant) -> Encounter:
        cs = self.combatants
        i = _position(cs, combatant.id)
        if i is None:
            return self
        new = (*cs[:i], combatant, *cs[i + 1 :])  # (slices copy in C: a key press at 200)
        _carry_index(cs, new)
        return evolve(self, combatants=new)

    def update(self, cid: str, **changes: Any) -> Encounter:
        return self.replace(evolve_with(self.get(cid), changes))

    def update_sheet(self, cid: str, **changes: Any) -> Encounter:
        c = self.get(cid)
        for key, value in changes.items():  # (a loop, not all(): no generator each time)
            if getattr(c.sheet, key) != value:
                return self.replace(evolve(c, sheet=evolve_with(c.sheet, changes)))
        return self  # (a round's start resets every sheet's marks, most already clear)


# -- finding a combatant by id ------------------------------------------------------------------

# Below this many combatants a scan is faster than building an index.
_SCAN = 24
# The index of the latest combatant tuples looked up (tuple, id -> position), newest last. A
# round's start at 1,000 combatants looks up and replaces each one: with a scan it was O(n²)
# (docs/benchmarks.md, 'The core at 1,000 combatants'); a replacement keeps the ids in place, so
# it carries the index on.
_INDEXES: list[tuple[tuple[Combatant, ...], dict[str, int]]] = []
_KEPT = 8


def _position(cs: tuple[Combatant, ...], cid: str) -> int | None:
    if len(cs) <= _SCAN:
        for i, c in enumerate(cs):
            if c.id == cid:
                return i
        return None
    return _index(cs).get(cid)


def _index(cs: tuple[Combatant, ...]) -> dict[str, int]:
    if _INDEXES and _INDEXES[-1][0] is cs:  # (nearly always: the encounter being changed)
        return _INDEXES[-1][1]
    for kept, index in reversed(_INDEXES):
        if kept is cs:
            return index
    index = {}
    for i, c in enumerate(cs):
        index.setdefault(c.id, i)  # (the first of a repeated id, as a scan finds it)
    _remember(cs, index)
    return index


def _carry_index(old: tuple[Combatant, ...], new: tuple[Combatant, ...]) -> None:
    if len(new) > _SCAN and _INDEXES and _INDEXES[-1][0] is old:
        _remember(new, _INDEXES[-1][1])


def _remember(cs: tuple[Combatant, ...], index: dict[str, int]) -> None:
    _INDEXES.append((cs, index))
    del _INDEXES[:-_KEPT]


# -- copies with changes --------------------------------------------------------------------------

_T = TypeVar("_T")
# The copier of each class and set of changed fields, in the order given (a call site gives its
# fields in the same order each time): the code is written for that set, so a copy sets each
# field once, from the original or from the changes, with no loop over the changes.
_COPIERS: dict[tuple[type, tuple[str, ...]], Any] = {}
_COPIERS_KEPT = 4096  # (sets of fields; more are copied by a copier made for the call)


def evolve(inst: _T, **changes: Any) -> _T:
    """``attrs.evolve``, several times faster for the model's frozen values (a 2297 sheet has 49
    fields, and the engine copies one for each change it makes: a forecast makes thousands a
    second). The copy is made field by field by code written once per class and set of changed
    fields, a changed value through its field's converter (the encounter's log); a class whose
    ``__init__`` does more than set and convert its fields (validators) goes through
    ``attrs.evolve``."""
    key = (inst.__class__, tuple(changes))  # (``evolve_with``, written out: no call more)
    copier = _COPIERS.get(key)
    if copier is None:
        copier = _copier(inst.__class__, key[1])
        if len(_COPIERS) < _COPIERS_KEPT:
            _COPIERS[key] = copier
    return copier(inst, changes)  # type: ignore[no-any-return]


def evolve_with(inst: _T, changes: dict[str, Any]) -> _T:
    """``evolve`` with the changes as a dict, for a caller that holds them as one already (a
    sheet's ``put``): not unpacked and packed again."""
    key = (inst.__class__, tuple(changes))
    copier = _COPIERS.get(key)
    if copier is None:
        copier = _copier(inst.__class__, key[1])
        if len(_COPIERS) < _COPIERS_KEPT:
            _COPIERS[key] = copier
    return copier(inst, changes)  # type: ignore[no-any-return]


def _settable(cls: type) -> bool:
    """Whether ``cls``'s ``__init__`` only sets (and converts) its slotted fields: its values
    may be built field by field on its unfrozen twin."""
    fields = attrs.fields(cls)
    names = {f.name for f in fields}
    slots = {s for k in cls.__mro__ for s in getattr(k, "__slots__", ())} - {"__weakref__"}
    return not (
        "__slots__" not in vars(cls)
        or slots != names
        or hasattr(cls, "__attrs_post_init__")
        or any(f.validator or not f.init or f.alias != f.name for f in fields)
        or any(f.converter is not None and not _plain(f.converter) for f in fields)
    )


_FACTORY: Any = attrs.Factory  # (a class: its stubs call it a function)


def maker(cls: type[_T]) -> Callable[..., _T]:
    """A constructor of the frozen ``cls`` for the engine's hot paths (a play makes hundreds
    of rolls and economies): its fields in order or by name, with their defaults, the value
    built as ``evolve`` builds a copy (field by field on the unfrozen twin, then made ``cls``),
    where a frozen class's own ``__init__`` sets each field through a call. ``cls`` itself for
    a class whose ``__init__`` does more (validators, converters, factories)."""
    fields = attrs.fields(cls)  # type: ignore[arg-type]
    unfrozen = _unfrozen(cls) if _settable(cls) else None
    if (
        unfrozen is None
        or any(f.converter is not None or isinstance(f.default, _FACTORY) for f in fields)
        or any(f.kw_only or f.name in ("new", "new_of", "unfrozen", "cls") for f in fields)
    ):
        return cls
    params = [f.name if f.default is attrs.NOTHING else f"{f.name}=_d_{f.name}" for f in fields]
    source = (
        f"def make({', '.join(params)}):\n"
        "    new = new_of(unfrozen)\n"
        + "".join(f"    new.{f.name} = {f.name}\n" for f in fields)
        + "    new.__class__ = cls\n"
        "    return new\n"
    )
    scope = {"new_of": object.__new__, "unfrozen": unfrozen, "cls": cls}
    scope.update({f"_d_{f.name}": f.default for f in fields if f.default is not attrs.NOTHING})
    exec(source, scope)
    return scope["make"]  # type: ignore[no-any-return]


def _copier(cls: type, changed: tuple[str, ...]) -> Any:
    fields = attrs.fields(cls)
    names = {f.name for f in fields}
    if not _settable(cls):
        return lambda inst, changes: attrs.evolve(inst, **changes)
    unknown = [key for key in changed if key not in names]
    if unknown:
        raise TypeError(f"{cls.__name__} has no field {unknown[0]!r}")
    unfrozen = _unfrozen(cls)
    if unfrozen is None:  # pragma: no cover - a layout Python would not swap
        return lambda inst, changes: attrs.evolve(inst, **changes)
    # The copy is built as an instance of an unfrozen twin of the class (its own fields, plain
    # assignment: the interpreter's fast path, where a frozen class's setattr is a call per
    # field), then made the class itself (the same layout: Python allows the change).
    converters = {f.name: f.converter for f in fields if f.converter is not None}
    lines = []
    for f in fields:
        if f.name not in changed:
            lines.append(f"    new.{f.name} = inst.{f.name}\n")
        elif f.name in converters:
            lines.append(f"    new.{f.name} = converters[{f.name!r}](changes[{f.name!r}])\n")
        else:
            lines.append(f"    new.{f.name} = changes[{f.name!r}]\n")
    source = (
        "def copy(inst, changes):\n"
        "    new = new_of(unfrozen)\n"
        f"{''.join(lines)}"
        "    new.__class__ = cls\n"
        "    return new\n"
    )
    scope = {"new_of": object.__new__, "unfrozen": unfrozen, "cls": cls, "converters": converters}
    exec(source, scope)
    return scope["copy"]


# The builder of each class and set of fields given (``build``), as the copiers above.
_BUILDERS: dict[tuple[type, tuple[str, ...]], Any] = {}


def build(cls: type[_T], values: dict[str, Any]) -> _T:
    """``cls(**values)``, several times faster for the model's frozen values: the same fields
    set (the others to their defaults, a value through its field's converter), by code written
    once per class and set of fields given, as ``evolve``'s. Reading 1,000 combatants builds a
    2297 sheet of 49 fields for each, where a frozen class's ``__init__`` makes a call per
    field. A class ``evolve`` copies the slow way, a field not given that has no default, or a
    field it does not have: ``cls(**values)`` (and its error)."""
    key = (cls, tuple(values))
    builder = _BUILDERS.get(key)
    if builder is None:
        builder = _builder(cls, key[1])
        if len(_BUILDERS) < _COPIERS_KEPT:
            _BUILDERS[key] = builder
    return builder(values)  # type: ignore[no-any-return]


def _builder(cls: type, given: tuple[str, ...]) -> Any:
    slow = lambda values: cls(**values)  # noqa: E731
    if not _settable(cls):
        return slow
    unfrozen = _unfrozen(cls)
    fields = attrs.fields(cls)
    if unfrozen is None or set(given) - {f.name for f in fields}:
        return slow
    scope: dict[str, Any] = {"new_of": object.__new__, "unfrozen": unfrozen, "cls": cls}
    lines = []
    for i, f in enumerate(fields):
        if f.name in given:
            value = f"values[{f.name!r}]"
        elif isinstance(f.default, _FACTORY):
            if f.default.takes_self:  # pragma: no cover - none in the model
                return slow
            scope[f"factory{i}"] = f.default.factory
            value = f"factory{i}()"
        elif f.default is attrs.NOTHING:
            return slow  # (a field it must be given: the class's own error)
        else:
            scope[f"default{i}"] = f.default
            value = f"default{i}"
        if f.converter is not None:
            scope[f"convert{i}"] = f.converter
            value = f"convert{i}({value})"
        lines.append(f"    new.{f.name} = {value}\n")
    source = (
        "def build(values):\n"
        "    new = new_of(unfrozen)\n"
        f"{''.join(lines)}"
        "    new.__class__ = cls\n"
        "    return new\n"
    )
    exec(source, scope)
    return scope["build"]


_UNFROZEN: dict[type, Any] = {}


def _unfrozen(cls: type) -> Any:
    """The unfrozen twin of ``cls`` (one per class), None if Python would not swap them."""
    twin = _UNFROZEN.get(cls)
    if twin is None:
        twin = type(
            cls.__name__,
            (cls,),
            {"__slots__": (), "__setattr__": object.__setattr__, "__delattr__": object.__delattr__},
        )
        probe: Any = object.__new__(twin)
        try:
            probe.__class__ = cls
        except TypeError:  # pragma: no cover - a layout Python would not swap
            return None
        _UNFROZEN[cls] = twin
    return twin


def _plain(converter: Any) -> bool:
    """A converter that takes the value alone (not an ``attrs.Converter`` wanting the instance)."""
    return callable(converter) and not isinstance(converter, attrs.Converter)
