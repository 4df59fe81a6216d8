"""Finding a combatant by id stays right at every size (issue 25: the index that makes a round's
start at 1,000 combatants O(n)), and a round hook's gathered changes give the encounter that
changing it one step at a time gives."""

from __future__ import annotations

from attrs import evolve
from hypothesis import given, settings
from hypothesis import strategies as st

from facility_tui.commands.dice import Dice
from facility_tui.model.encounter import Combatant, Encounter, Kind
from facility_tui.systems.r2297.engine import Ctx
from facility_tui.systems.r2297.sheet import Sheet2297


def encounter(n: int) -> Encounter:
    cs = tuple(Combatant(f"c{i}", f"C {i}", sheet=Sheet2297()) for i in range(n))
    return Encounter("E", "2297", combatants=cs)


ops = st.lists(
    st.tuples(st.sampled_from(["get", "replace", "other"]), st.integers(0, 70)), max_size=60
)


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 60), ops)
def test_lookups_agree_with_a_scan_through_replacements(
    n: int, steps: list[tuple[str, int]]
) -> None:
    enc = encounter(n)
    other = encounter(n)  # another tuple looked up in between: the kept indexes stay apart
    for op, i in steps:
        cid = f"c{i}"
        scan = next((c for c in enc.combatants if c.id == cid), None)
        assert enc.has(cid) == (scan is not None)
        if op == "get" and scan is not None:
            assert enc.get(cid) is scan
        elif op == "replace":
            before = enc.combatants
            enc = enc.replace(Combatant(cid, f"new {i}", sheet=Sheet2297()))
            if scan is None:
                assert enc.combatants == before
            else:
                assert enc.get(cid).name == f"new {i}"
                assert [c.id for c in enc.combatants] == [c.id for c in before]
        else:
            assert other.has(cid) == (i < n)


changes = st.lists(
    st.tuples(
        st.sampled_from(["put", "update", "log", "read"]), st.integers(0, 29), st.integers(0, 9)
    ),
    max_size=40,
)


@settings(max_examples=60, deadline=None)
@given(changes)
def test_a_round_hooks_gathered_changes_are_the_changes_made_one_by_one(
    steps: list[tuple[str, int, int]],
) -> None:
    start = encounter(30)
    ctx = Ctx(start, Dice(1, 0))
    one_by_one = start
    for op, i, value in steps:
        cid = f"c{i}"
        if op == "put":
            ctx.put(cid, tiebreak=value)
            one_by_one = one_by_one.update_sheet(cid, tiebreak=value)
        elif op == "update":
            ctx.update(cid, initiative=value)
            one_by_one = one_by_one.update(cid, initiative=value)
        elif op == "log":
            ctx.log(f"line {value}", Kind.EFFECT)
            one_by_one = one_by_one.logged(f"line {value}", Kind.EFFECT)
        else:
            assert ctx.enc == one_by_one
        assert ctx.sheet(cid) == one_by_one.get(cid).sheet
    assert ctx.enc == one_by_one
    ctx.enc = evolve(start, round=3)  # setting drops nothing it should keep: it is the new value
    assert ctx.enc == evolve(start, round=3)
