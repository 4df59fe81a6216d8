"""Undo/redo: any number of steps, redo gives back exactly what was shown."""

from __future__ import annotations

import contextlib

from hypothesis import given, settings
from hypothesis import strategies as st

from facility_tui.commands.grammar import CommandError
from facility_tui.commands.session import Session
from tests.conftest import run

SETUP = ("new 2297 T seed=3", "add A side=pc init=2d6", "add B init=2d6", "add C init=1d6")
MOVES = st.sampled_from(
    ["next", "roll 2d10", "add D init=1d20", "init a 3d6", "remove c", "start", "prev", "end"]
)


def fresh() -> Session:
    from attrs import evolve

    from facility_tui.store import blank

    return run(Session(evolve(blank(), seed=1)), *SETUP)


def test_undo_everything_then_redo_everything() -> None:
    s = run(fresh(), "start", "next", "roll 3d6", "next")
    states = [s.encounter]
    while s.can_undo():
        s.undo()
        states.append(s.encounter)
    assert s.encounter.name == "Untitled"
    while s.can_redo():
        s.redo()
    assert s.encounter == states[0]


def test_a_new_command_clears_redo() -> None:
    s = run(fresh(), "start", "next", "undo")
    assert s.can_redo()
    s.execute("roll 1d6")
    assert not s.can_redo()


def test_undo_of_new_brings_back_the_old_fight() -> None:
    s = run(fresh(), "start")
    old = s.encounter
    s.execute("new facility Other")
    s.undo()
    assert s.encounter == old


@settings(max_examples=40, deadline=None)
@given(st.lists(MOVES, max_size=12), st.data())
def test_undo_then_redo_is_the_identity(moves: list[str], data: st.DataObject) -> None:
    s = fresh()
    for line in moves:
        with contextlib.suppress(CommandError):  # refusals are part of play; they change nothing
            s.execute(line)
    back = data.draw(st.integers(min_value=0, max_value=len(s.undo_steps)))
    target = s.encounter
    for _ in range(back):
        s.undo()
    for _ in range(back):
        s.redo()
    assert s.encounter == target


def test_every_step_is_kept_and_undo_reaches_the_first() -> None:
    from attrs import evolve

    from facility_tui.store import blank

    s = fresh()
    for _ in range(300):
        s.execute("roll 1d6")
    assert len(s.undo_steps) == 300 + len(SETUP)
    while s.can_undo():
        s.undo()
    assert s.encounter == evolve(blank(), seed=1)
