"""The codec's quick decoders (one function per type, ``codec._fast``) read exactly what the
step-by-step ``decode`` reads: the same values from the same data, and for data that does not
fit, the same refusal with the same words."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from facility_tui.campaign.demo import demo_encounter
from facility_tui.commands.session import Step
from facility_tui.model import codec
from facility_tui.model.codec import DecodeError, decode, encode
from facility_tui.model.encounter import Encounter
from facility_tui.systems import ids

DATA = {system: encode(demo_encounter(system)) for system in ids()}

junk = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-3, 300),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=5),
    st.lists(st.integers(0, 3), max_size=2),
    st.dictionaries(st.sampled_from(["a", "name", "hlt"]), st.integers(), max_size=2),
)


def paths(data: Any, here: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [here]
    if isinstance(data, dict):
        for k, v in data.items():
            out += paths(v, (*here, k))
    elif isinstance(data, list):
        for i, v in enumerate(data):
            out += paths(v, (*here, i))
    return out


def outcome(cls: Any, data: Any) -> tuple[str, Any]:
    try:
        return "value", decode(cls, data)
    except DecodeError as err:
        return "refused", (str(err), err.where)


def slowly(cls: Any, data: Any, monkeypatch: pytest.MonkeyPatch) -> tuple[str, Any]:
    with monkeypatch.context() as m:
        m.setattr(codec, "_fast", lambda _cls: codec._miss)
        return outcome(cls, data)


@settings(max_examples=150, deadline=None)
@given(system=st.sampled_from(ids()), data=st.data())
def test_quick_and_slow_decoding_agree(system: str, data: st.DataObject) -> None:
    with pytest.MonkeyPatch.context() as monkeypatch:
        doc = copy.deepcopy(DATA[system])
        for _ in range(data.draw(st.integers(0, 3))):
            path = data.draw(st.sampled_from(paths(doc)[1:]))
            parent = doc
            for key in path[:-1]:
                parent = parent[key]
            parent[path[-1]] = data.draw(junk)
        quick = outcome(Encounter, doc)
        assert quick == slowly(Encounter, doc, monkeypatch)


def test_a_step_with_its_dice_reads_back_alike() -> None:
    from facility_tui.commands.session import Session

    s = Session(demo_encounter("2297"))
    s.execute("start")
    for step in s.undo_steps:
        assert decode(Step, encode(step)) == step


def test_the_quick_way_reads_a_whole_fight_without_the_slow_one(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    for doc in DATA.values():
        assert ("value", codec._fast(Encounter)(doc)) == slowly(Encounter, doc, monkeypatch)


def test_reading_a_big_fight_builds_its_sheets_without_their_init(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A 2297 sheet has 49 fields, and a frozen class's ``__init__`` sets each with a call: a
    save of 1,000 combatants is read through ``encounter.build`` (the same values)."""
    from facility_tui.commands.edits import encounter_from
    from facility_tui.systems.r2297.sheet import Sheet2297

    doc = DATA["2297"]
    before = encounter_from(doc)
    inits = []
    real = Sheet2297.__init__

    def counted(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        inits.append(1)
        real(self, *args, **kwargs)

    monkeypatch.setattr(Sheet2297, "__init__", counted)
    after = encounter_from(doc)
    assert after == before and len(after.combatants) > 1
    assert inits == []
