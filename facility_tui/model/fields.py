"""What a field of the model is beyond its type, declared once beside it and read by whatever
handles fields by name: ``field(default=0, metadata=facts(lasts=False, least=0))``.

A combatant field (or a sheet's, or any attrs value's) declared with its facts reaches, with no
other change: the save (the codec encodes every field), ``show --json`` (every combatant field,
under the format it declares), the checks of a save edited by hand (its bounds), templates
(``template save``, ``add from=``) and the party (``party.toml``) as its facts say. A field
declares nothing where the defaults fit: it lasts, templates keep it, text of at most
``MAX_NOTE`` characters, shown since ``show --json``'s first format.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from typing import Any

import attrs
from attrs import frozen

from facility_tui.model.text import MAX_NOTE

FACTS = "facts"  # the metadata key the facts are kept under


@frozen
class Facts:
    # It outlasts its fight: the party keeps it (``party add``, ``party return``). False: it
    # belongs to one fight (an id, a rolled initiative) and a PC joins the next one fresh.
    lasts: bool = True
    # A template keeps it (``template save``); False: one added from a template has it fresh.
    template: bool = True
    # The numbers a command could give it: a hand edit beyond them is refused, and so is a
    # template or party.toml giving one. ``says``: the bounds in words, if not the plain ones.
    least: int | None = None
    most: int | None = None
    says: str = ""
    chars: int = MAX_NOTE  # text: at most this many characters
    dice: bool = False  # text that is a whole number or dice, as add's init= takes it
    # The ``show --json`` format that first showed it (a combatant's field): a new field is a
    # new format (docs/show-json.md), whose number is the newest any field declares.
    json: int = 1
    # Saves were written before it: replayed, their history gives it where the saved fight has
    # none (``encounter.as_saved_before``).
    later: bool = False

    def problem(self, value: Any) -> str | None:
        """What a number outside the bounds must be (``must be at least 0, got -1``)."""
        if type(value) is not int:
            return None
        low = self.least is not None and value < self.least
        if not low and (self.most is None or value <= self.most):
            return None
        return f"must be {self.said()}, got {value}"

    def said(self) -> str:
        if self.says:
            return self.says
        if self.least is not None and self.most is not None:
            return f"from {self.least} to {self.most}"
        return f"at least {self.least}" if self.least is not None else f"at most {self.most}"


NONE = Facts()


def facts(*, omit_default: bool = False, **declared: Any) -> dict[str, Any]:
    """A field's metadata with its facts (``Facts``'s, by name); ``omit_default``: its default
    is not written in a save (a field added later: older files stay as they were)."""
    metadata: dict[str, Any] = {FACTS: Facts(**declared)}
    if omit_default:
        metadata["omit_default"] = True
    return metadata


@cache
def of(cls: type) -> tuple[tuple[str, Facts], ...]:
    """Each field of attrs class ``cls`` with its facts, in field order."""
    return tuple((f.name, f.metadata.get(FACTS, NONE)) for f in attrs.fields(cls))


def where(cls: type, test: Callable[[Facts], bool]) -> tuple[str, ...]:
    """The names of the fields of ``cls`` whose facts pass ``test`` (a function of ``Facts``)."""
    return tuple(name for name, said in of(cls) if test(said))


def facts_of(cls: type, name: str) -> Facts:
    return dict(of(cls)).get(name, NONE)


def fresh_where(value: Any, test: Callable[[Facts], bool]) -> Any:
    """``value`` (an attrs value) with the fields whose facts pass ``test`` as a fresh value
    of its class has them (what a template or the party does not keep)."""
    names = where(type(value), test)
    if not names:
        return value
    fresh = {f.name: f.default for f in attrs.fields(type(value)) if f.name in names}
    made = {k: v.factory() for k, v in fresh.items() if isinstance(v, attrs.Factory)}  # type: ignore[arg-type]
    changes = {k: made.get(k, v) for k, v in fresh.items() if getattr(value, k) != made.get(k, v)}
    return attrs.evolve(value, **changes) if changes else value


def at(value: Any, path: str) -> Facts:
    """The facts of the field at ``path`` in ``value`` (``sheet.weapons[0].name``): found by
    going down the value itself, so a sheet's own fields are found whatever its class."""
    owner, name = value, ""
    for part in path.replace("[", ".[").split("."):
        if not part:
            continue
        if part.startswith("["):
            items = getattr(owner, name, None) if name else owner
            owner, name = _item(items, part), ""
            continue
        if name:
            owner = getattr(owner, name, None)
        name = part
    if owner is None or not attrs.has(type(owner)):
        return NONE
    return facts_of(type(owner), name)


def _item(items: Any, part: str) -> Any:
    try:
        return items[int(part.strip("[]"))]
    except (TypeError, ValueError, IndexError):
        return None


def out_of_bounds(value: Any, path: str = "") -> tuple[str, str] | None:
    """The first number in ``value`` (an attrs value, read down through its attrs values and
    tuples of them) outside its field's declared bounds: (its path, what it must be)."""
    cls: type = type(value)
    if not attrs.has(cls):
        return None
    for name, said in of(cls):
        item = getattr(value, name)
        at_ = f"{path}.{name}" if path else name
        found = said.problem(item)
        if found is not None:
            return at_, found
        if isinstance(item, tuple):
            for i, each in enumerate(item):
                inner = out_of_bounds(each, f"{at_}[{i}]")
                if inner is not None:
                    return inner
        elif attrs.has(type(item)):
            inner = out_of_bounds(item, at_)
            if inner is not None:
                return inner
    return None
