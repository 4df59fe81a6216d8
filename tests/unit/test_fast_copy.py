"""The model's ``evolve`` (a copy with changes, made field by field by code written once per
class: issue 26's forecast makes thousands a second) gives what ``attrs.evolve`` gives, for every
value class the engine copies, and refuses what it refuses."""

from __future__ import annotations

from typing import Any

import attrs
import pytest
from attrs import define, field, frozen
from hypothesis import given, settings
from hypothesis import strategies as st

from facility_tui.commands.dice import Roll
from facility_tui.model.encounter import Combatant, Encounter, LogEntry, Phase, build, evolve, maker
from facility_tui.systems.facility.sheet import FacilitySheet
from facility_tui.systems.r2297.sheet import Effect, EKind, Injury, Sheet2297

CLASSES = (Encounter, Combatant, LogEntry, Sheet2297, Effect, Injury, FacilitySheet)


def _value(kind: type) -> Any:
    """Values of a field's kind (the engine gives fields values of their kind)."""
    if kind is bool:
        return st.booleans()
    if kind is int:
        return st.integers(-5, 99)
    if kind is str:
        return st.text(max_size=6)
    return None


def _instance(cls: type) -> Any:
    if cls is Encounter:
        return Encounter("E", "2297", combatants=(Combatant("a", "A", sheet=Sheet2297()),))
    if cls is Combatant:
        return Combatant("a", "A", sheet=Sheet2297())
    if cls is LogEntry:
        return LogEntry(1, "x")
    return cls()


@st.composite
def changes(draw: st.DrawFn) -> tuple[Any, dict[str, Any]]:
    cls = draw(st.sampled_from(CLASSES))
    inst = _instance(cls)
    out: dict[str, Any] = {}
    for f in attrs.fields(cls):
        current = getattr(inst, f.name)
        strategy = _value(type(current))
        if strategy is not None and draw(st.booleans()):
            out[f.name] = draw(strategy)
    return inst, out


@settings(max_examples=200, deadline=None)
@given(changes())
def test_evolve_gives_what_attrs_evolve_gives(case: tuple[Any, dict[str, Any]]) -> None:
    inst, change = case
    ours, theirs = evolve(inst, **change), attrs.evolve(inst, **change)
    assert type(ours) is type(theirs)
    assert ours == theirs
    assert ours is not inst
    for f in attrs.fields(type(inst)):  # (unchanged fields are the same objects, not copies)
        if f.name not in change:
            assert getattr(ours, f.name) is getattr(inst, f.name)


def test_evolve_keeps_nested_values_and_the_original() -> None:
    s = Sheet2297(effects=(Effect(EKind.BLEED, "x", rounds=2),))
    enc = Encounter("E", "2297", combatants=(Combatant("a", "A", sheet=s),))
    new = evolve(enc, phase=Phase.ACTIVE, round=3)
    assert (new.phase, new.round, enc.phase, enc.round) == (Phase.ACTIVE, 3, Phase.SETUP, 0)
    assert new.combatants is enc.combatants
    assert hash(new) == hash(evolve(enc, phase=Phase.ACTIVE, round=3))


def test_evolve_refuses_a_field_the_class_has_not() -> None:
    with pytest.raises(TypeError, match="turnz"):
        evolve(Sheet2297(), turnz=1)
    with pytest.raises(TypeError):
        attrs.evolve(Sheet2297(), turnz=1)


@frozen
class _Checked:
    n: int = field(default=0, validator=attrs.validators.instance_of(int))


@frozen
class _Converted:
    n: int = field(default=0, converter=int)


@define
class _Private:
    _n: int = 0


def test_a_class_whose_init_does_more_goes_through_attrs() -> None:
    with pytest.raises(TypeError):
        evolve(_Checked(), n="x")  # the validator runs
    assert evolve(_Converted(), n="7") == _Converted(7)  # the converter runs
    assert evolve(_Private(), n=3) == _Private(3)  # the init's name of a private field


def test_maker_builds_what_the_class_builds() -> None:
    """``maker``'s constructor (a play's rolls, economies, attack plans) gives the class's own
    value, its defaults as declared, by place or by name, and the value stays frozen."""
    make = maker(Roll)
    assert make is not Roll
    built = make("2d6", 7, "2d6 (3, 4) = 7")
    assert type(built) is Roll
    assert built == Roll("2d6", 7, "2d6 (3, 4) = 7")
    assert make("1d6", 2, "x", given=3) == Roll("1d6", 2, "x", 3)
    assert make(expr="1d6", total=2, detail="x").given == 0
    with pytest.raises(attrs.exceptions.FrozenInstanceError):
        built.total = 8  # type: ignore[misc]
    with pytest.raises(TypeError):
        make("1d6")  # a field without a default must be given


@frozen
class _Made:
    items: tuple[int, ...] = field(factory=tuple)


def test_maker_leaves_a_class_whose_init_does_more_to_it() -> None:
    assert maker(_Checked) is _Checked  # a validator
    assert maker(_Converted) is _Converted  # a converter
    assert maker(_Made) is _Made  # a factory
    assert maker(_Private) is _Private  # an init's own name for a field


@settings(max_examples=200, deadline=None)
@given(changes())
def test_build_gives_what_the_class_gives(case: tuple[Any, dict[str, Any]]) -> None:
    """``build`` (how a save's values are read) makes what ``cls(**values)`` makes: the fields
    given, the others their defaults (a factory's made anew, a converter applied)."""
    inst, values = case
    cls = type(inst)
    fields = attrs.fields(cls)
    must = {f.name: getattr(inst, f.name) for f in fields if f.default is attrs.NOTHING}
    values = {**must, **values}
    ours, theirs = build(cls, values), cls(**values)
    assert type(ours) is cls and ours == theirs and hash(ours) == hash(theirs)
    with pytest.raises(attrs.exceptions.FrozenInstanceError):
        ours.__setattr__(attrs.fields(cls)[0].name, 1)  # (frozen as the class makes them)


def test_build_refuses_what_the_class_refuses() -> None:
    with pytest.raises(TypeError, match="name"):
        build(Combatant, {"id": "a"})  # a field it must be given
    with pytest.raises(TypeError, match="turnz"):
        build(Sheet2297, {"turnz": 1})
    with pytest.raises(TypeError):
        build(_Checked, {"n": "x"})  # the validator runs
    assert build(_Converted, {"n": "7"}) == _Converted(7)
    assert build(_Private, {"n": 3}) == _Private(3)
    a, b = build(Encounter, {"name": "E", "system": "2297"}), Encounter("E", "2297")
    assert a == b and a.log is not None and len(a.log) == 0
