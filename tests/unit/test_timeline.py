"""The fight's timeline: every step kept as a tree, any step's fight rebuilt exactly, branches
never destroyed."""

from __future__ import annotations

import contextlib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from facility_tui.commands import timeline as timeline_module
from facility_tui.commands.grammar import CommandError
from facility_tui.commands.session import Session, run_step
from facility_tui.commands.timeline import ROOT
from tests.conftest import run
from tests.unit.test_session import MOVES, fresh


def replayed(s: Session, nid: int):  # type: ignore[no-untyped-def]
    """``nid``'s fight replayed from the root, step by step, with nothing kept."""
    tl = s.timeline
    enc = tl.root
    for n in tl.path(nid):
        enc = run_step(enc, tl.node(n).step)
    return enc


def test_a_command_after_an_undo_keeps_the_old_line_as_a_branch() -> None:
    s = run(fresh(), "start", "next", "roll 3d6")
    old_tip = s.timeline.current
    old = s.encounter
    s.undo()
    s.execute("roll 1d6")
    tl = s.timeline
    assert old_tip in tl and tl.parent(old_tip) == tl.parent(tl.current)
    assert sorted(tl.tips()) == sorted([old_tip, tl.current])
    assert s.state_at(old_tip) == old
    s.go(old_tip)
    assert s.encounter == old


def test_undo_and_redo_walk_the_branch_last_walked() -> None:
    s = run(fresh(), "start", "next", "undo", "roll 1d6")
    new_tip = s.timeline.current
    s.undo()
    s.redo()
    assert s.timeline.current == new_tip  # the branch just made, not the older one
    first = s.timeline.tips()[0]
    s.go(first)
    s.undo()
    s.redo()
    assert s.timeline.current == first


def test_going_to_a_step_keeps_every_step_after_it() -> None:
    s = run(fresh(), "start", "next", "next", "next")
    tip = s.timeline.current
    s.go(s.timeline.path(tip)[len(s.timeline.path(tip)) - 3])
    assert len(s.redo_steps) == 2 and s.timeline.tip(s.timeline.current) == tip


def test_going_to_an_unknown_or_hidden_step_is_refused_and_changes_nothing() -> None:
    s = run(fresh(), "start", "next", "undo", "roll 1d6")
    before = (s.encounter, s.timeline.current)
    with pytest.raises(CommandError, match="no step 999"):
        s.go(999)
    hidden = s.timeline.hide(s.timeline.tips()[0])
    with pytest.raises(CommandError):
        s.go(hidden)
    assert (s.encounter, s.timeline.current) == before


def test_the_branch_being_played_cannot_be_hidden_and_a_hidden_one_comes_back() -> None:
    s = run(fresh(), "start", "next", "undo", "roll 1d6")
    tl = s.timeline
    with pytest.raises(ValueError):
        tl.hide(tl.current)
    other = tl.tips()[0]
    fork = tl.hide(other)
    assert tl.tips() == [tl.current] and other in tl  # hidden, never destroyed
    tl.show(fork)
    assert other in tl.tips()


def test_a_branch_is_named_by_its_tip() -> None:
    s = run(fresh(), "start", "next")
    s.timeline.name(s.timeline.current, "the ambush")
    s.undo()
    assert s.timeline.branch_name(s.timeline.current) == "the ambush"


def test_a_jump_replays_at_most_a_checkpoints_worth_of_steps(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setattr(timeline_module, "CHECKPOINT_EVERY", 8)
    monkeypatch.setattr(timeline_module, "RECENT", 4)
    s = run(fresh(), "start", *["roll 1d6"] * 40)
    tl = s.timeline
    replays = 0

    def counted(enc, step):  # type: ignore[no-untyped-def]
        nonlocal replays
        replays += 1
        return run_step(enc, step)

    target = tl.path(tl.current)[20]
    tl.state_at(target, counted)
    assert replays <= 8


@settings(max_examples=30, deadline=None)
@given(st.lists(st.one_of(MOVES, st.just("undo"), st.just("undo")), max_size=16), st.data())
def test_any_step_is_the_fight_its_steps_replay_to(moves: list[str], data: st.DataObject) -> None:
    """Jumping to a step gives exactly what replaying every step from the start gives."""
    s = fresh()
    for line in moves:
        with contextlib.suppress(CommandError):
            s.execute(line)
    tl = s.timeline
    ids = [ROOT, *(n.id for n in tl.nodes())]
    for _ in range(4):
        nid = data.draw(st.sampled_from(ids))
        assert s.state_at(nid) == replayed(s, nid)
        s.go(nid)
        assert s.encounter == replayed(s, nid)


def test_a_fork_changes_on_its_own() -> None:
    s = run(fresh(), "start", "next")
    f = s.fork()
    f.undo()
    f.execute("roll 1d6")
    assert len(s.timeline) == len(s.timeline.path(s.timeline.current)) + len(s.redo_steps)
    assert len(f.timeline) == len(s.timeline) + 1


def test_walking_a_long_line_asks_each_step_its_parent_a_few_times_only() -> None:
    """A branch's line, its tip and every tip are worked out in time linear in the steps, with
    or without a hidden branch (walking to the root for each step took minutes at 50,000)."""
    from facility_tui.commands.session import Step
    from facility_tui.commands.timeline import Node, Timeline

    n = 3000
    step = Step("roll 1d6")
    nodes = [Node(i, i - 1, step, 1, "") for i in range(1, n + 1)]
    nodes.append(Node(n + 1, 10, step, 1, "a side line"))
    tl = Timeline(fresh().encounter, nodes, current=n, walked={10: 11})
    asked = 0
    parent = tl.parent

    def counted(nid: int) -> int:
        nonlocal asked
        asked += 1
        return parent(nid)

    tl.parent = counted  # type: ignore[method-assign]
    for hide in (False, True):
        if hide:
            tl.hide(n + 1)
        asked = 0
        assert tl.line(1)[-1] == n and tl.tip(1) == n
        assert n in tl.tips()
        assert asked <= 4 * n


def test_a_branch_name_out_of_bounds_is_refused_and_changes_nothing() -> None:
    s = run(fresh(), "start", "next")
    tip = s.timeline.current
    said: list[Session] = []
    s.listeners.append(said.append)
    for bad in ["x" * 41, "the\x1b[2Jambush"]:
        with pytest.raises(CommandError):
            s.name_branch(tip, bad)
    with pytest.raises(CommandError, match="no branch ends at step"):
        s.name_branch(s.timeline.parent(tip), "mid-line")
    assert s.timeline.names == {} and said == []
    assert s.name_branch(tip, "  the ambush ") == "Branch named the ambush"
    assert s.timeline.names == {tip: "the ambush"} and said == [s]  # (autosaved as a change)


def test_the_branch_redo_walks_cannot_be_deleted_even_from_the_start() -> None:
    s = run(fresh(), "start", "next")
    tip = s.timeline.current
    while s.can_undo():
        s.undo()
    with pytest.raises(CommandError, match="being played"):
        s.hide_branch(tip)
    s.redo()
    s.execute("roll 1d6")  # a second branch, played now
    fork = s.hide_branch(tip)
    assert tip not in s.timeline.tips() and tip in s.timeline
    s.show_branch(fork)
    assert tip in s.timeline.tips()


def test_compare_says_what_changed_for_each_combatant_side_by_side() -> None:
    from facility_tui.campaign.demo import demo_encounter
    from facility_tui.report import ABSENT, compare

    s = Session(demo_encounter("2297"))
    run(s, "start", "next")
    before = s.encounter
    run(s, "hit boarder-1 12", "remove boarder-3")
    found = {c.name: c.rows for c in compare(before, s.encounter)}
    assert set(found) == {"Boarder 1", "Boarder 3"}  # the others did not change
    rows = {what: (a, b) for what, a, b in found["Boarder 1"]}
    assert rows["Injury"] == ("-", "Moderate")
    assert rows["Damage"][0].endswith("0/20") and rows["Damage"][1].endswith("9/20")
    assert found["Boarder 3"][0][2] == ABSENT
    assert compare(s.encounter, s.encounter) == []
    back = {c.name: c.rows for c in compare(s.encounter, before)}
    assert {what: (b, a) for what, a, b in back["Boarder 1"]} == rows  # the other way round


def test_compare_shows_what_the_turn_changed_for_a_combatant_whose_own_data_did_not() -> None:
    """A combatant whose turn ended reads "done" in the list though its own values are the
    same: the comparison is of what the GM sees, not of the saved data."""
    from facility_tui.campaign.demo import demo_encounter
    from facility_tui.report import compare

    s = Session(demo_encounter("2297"))
    run(s, "start", "next")
    before = s.encounter
    acting = before.get(before.current)
    run(s, "next")
    assert s.encounter.get(acting.id) == acting  # its own data: the same
    found = {c.name: c.rows for c in compare(before, s.encounter)}
    assert tuple(w for w, _, _ in found[acting.name]) == ("Actions",)


def test_a_step_reads_as_the_turn_it_gave_else_its_first_line() -> None:
    """A start or a ``next`` reads as whose turn it now is (not the awareness or initiative
    rolls logged first); any other step as the first line it logged."""
    s = run(fresh(), "start")
    tl = s.timeline
    assert tl.node(tl.current).said == "Round 1: A's turn"  # (not the rolls before it)
    s.execute("roll 2d6")
    assert tl.node(tl.current).said.startswith("Roll: 2d6")
