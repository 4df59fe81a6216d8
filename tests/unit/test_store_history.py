"""Issue 11: save then load is the identity for every reachable session, its history included."""

from __future__ import annotations

import contextlib
import shutil
import tempfile
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from facility_tui import store
from facility_tui.commands.grammar import CommandError
from facility_tui.commands.session import Session
from facility_tui.model.encounter import Encounter, Kind
from facility_tui.systems import ids, rules_for
from tests.paths import FIXTURES

LINES = [
    "new 2297 B seed=1",
    "new facility C seed=2",
    "new 2297 D",  # its seed drawn from the dice of the fight it replaces
    "add Alpha side=pc init=2d6",
    "add Beta init=7",
    "add Goon count=2",
    "start",
    "next",
    "next",
    "roll 2d6",
    "log a line of the GM's",
    "remove beta",
]


def base_encounter(system: str, log_lines: int, seed: int) -> Encounter:
    enc = Encounter("A", system, seed=seed, state=rules_for(system).new_state())
    for i in range(log_lines):
        enc = enc.logged(f"before the history {i}", Kind.INFO if i % 2 else Kind.ROLL)
    return enc


moves = st.lists(
    st.one_of(st.sampled_from(LINES), st.sampled_from(["undo", "undo", "redo"])),
    max_size=25,
)


def play(base: Encounter, lines: list[str], undos: int) -> Session:
    s = Session(base)
    for line in lines:
        with contextlib.suppress(CommandError):  # refused lines change nothing
            s.execute(line)
    for _ in range(undos):  # some undone steps: a redo stack to keep
        if s.can_undo():
            s.undo()
    return s


def assert_same(loaded: Session, made: Session) -> None:
    """Equal now, and at every step undo and redo reach, in lockstep (both are used up)."""
    assert loaded.encounter == made.encounter
    assert loaded.undo_steps == made.undo_steps
    assert loaded.redo_steps == made.redo_steps
    assert loaded.base == made.base
    while made.can_undo():
        made.undo()
        loaded.undo()
        assert loaded.encounter == made.encounter
    assert not loaded.can_undo()
    while made.can_redo():
        made.redo()
        loaded.redo()
        assert loaded.encounter == made.encounter
    assert not loaded.can_redo()


@settings(max_examples=120, deadline=None)
@given(
    system=st.sampled_from(ids()),
    log_lines=st.sampled_from([0, 0, 1, 3]),
    seed=st.integers(0, 2**31),
    lines=moves,
    undos=st.integers(0, 4),
    through_files=st.booleans(),
)
def test_save_then_load_is_the_identity_history_included(
    system: str, log_lines: int, seed: int, lines: list[str], undos: int, through_files: bool
) -> None:
    made = play(base_encounter(system, log_lines, seed), lines, undos)
    if through_files:  # the main file with its log files beside it, as the app writes it
        folder = Path(tempfile.mkdtemp(prefix="facility-history-"))
        try:
            store.save(made, folder / "f.toml")
            store.forget(folder / "f.toml")  # read it back as another run would
            loaded = store.load(folder / "f.toml")
        finally:
            shutil.rmtree(folder, ignore_errors=True)
    else:
        loaded = store.loads(store.dumps(made))
    assert_same(loaded, made)


def test_new_over_a_base_with_a_log_reloads_as_it_was() -> None:
    """The reported case: the base's log was put back in front of the new fight's."""
    s = Session(Encounter(name="A", system="facility").logged("hello"))  # as reported
    s.apply("new facility B seed=1")
    loaded = store.loads(store.dumps(s))
    assert loaded.encounter == s.encounter
    assert [e.text for e in loaded.encounter.log] == ["New facility encounter 'B' (seed 1)"]
    s = Session(base_encounter("facility", 1, 0))  # with the state a real fight has
    s.apply("new facility B seed=1")
    assert_same(store.loads(store.dumps(s)), s)


def test_a_second_new_later_undoes_to_the_first_new_fight() -> None:
    s = Session(base_encounter("facility", 1, 0))
    for line in ["new facility B seed=1", "add x", "new facility C seed=2"]:
        s.apply(line)
    loaded = store.loads(store.dumps(s))
    loaded.undo()
    assert loaded.encounter.name == "B"
    assert loaded.encounter.log[0].text == "New facility encounter 'B' (seed 1)"
    assert_same(store.loads(store.dumps(s)), s)


def test_the_base_log_stays_in_front_when_no_new_replaces_it() -> None:
    base = base_encounter("2297", 3, 9)
    s = play(base, ["add Alpha init=4", "roll 1d6", "start"], undos=1)
    loaded = store.loads(store.dumps(s))
    assert loaded.encounter.log[:3] == base.log
    assert_same(loaded, s)


def test_a_log_line_reworded_by_a_later_version_keeps_the_history(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """A save written before a log line's words changed ('uses 1 rounds' became 'uses 1
    round') replays to other words: the history is kept, in the words the save holds."""
    s = play(base_encounter("2297", 2, 3), ["add Alpha init=4", "roll 1d6", "add Beta"], undos=1)
    saved = store.dumps(s)
    plain = Encounter.logged

    def reworded(self: Encounter, text: str, kind: Kind = Kind.INFO) -> Encounter:
        return plain(self, text.replace("Added", "Joined"), kind)

    monkeypatch.setattr(Encounter, "logged", reworded)
    loaded = store.loads(saved)
    assert loaded.encounter == s.encounter  # the saved words, no note of a lost history
    assert loaded.undo_steps == s.undo_steps and loaded.redo_steps == s.redo_steps
    while s.can_undo():  # every state undo reaches is in the saved words too
        s.undo()
        loaded.undo()
        assert loaded.encounter == s.encounter
    assert not loaded.can_undo()
    loaded.redo()  # a fight shown before comes back as shown, in the saved words
    assert loaded.encounter.log[-1].text == "Added Alpha (enemies)"
    while loaded.can_redo():  # the step undone before the save, never shown: this version's
        loaded.redo()
    assert loaded.encounter.log[-1].text == "Joined Beta (enemies)"


def rekind_added_lines(monkeypatch: pytest.MonkeyPatch) -> None:
    """A later version that logs 'Added …' as another kind of line: a saved history replayed
    with it no longer leads to the saved fight."""
    plain = Encounter.logged

    def rekinded(self: Encounter, text: str, kind: Kind = Kind.INFO) -> Encounter:
        return plain(self, text, Kind.OVERRIDE if text.startswith("Added") else kind)

    monkeypatch.setattr(Encounter, "logged", rekinded)


def test_a_log_that_differs_in_more_than_words_still_drops_the_history(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """Only the words may differ: a replay that logs another kind of line is a history that
    no longer leads to the saved fight, dropped with its note (the fight itself is kept)."""
    s = play(base_encounter("2297", 0, 3), ["add Alpha init=4", "roll 1d6"], undos=0)
    saved = store.dumps(s)
    rekind_added_lines(monkeypatch)
    loaded = store.loads(saved)
    assert any("could not be rebuilt" in e.text for e in loaded.encounter.log)
    assert not loaded.can_undo()


@settings(max_examples=80, deadline=None)
@given(
    system=st.sampled_from(ids()),
    seed=st.integers(0, 2**31),
    lines=moves,
    undos=st.integers(0, 4),
    after=st.lists(st.sampled_from(["roll 2d6", "log after opening", "next"]), max_size=4),
    settle_first=st.booleans(),
)
def test_a_history_replayed_when_first_needed_is_the_history_replayed_at_once(
    system: str,
    seed: int,
    lines: list[str],
    undos: int,
    after: list[str],
    settle_first: bool,
) -> None:
    """Opened with its history for later (as the app and ``apply`` open a save): the fight,
    the steps and the base are there at once without a replay; commands made before the
    replay, a save of them, and undo / redo all the way give what opening it whole gives."""
    made = play(base_encounter(system, 1, seed), lines, undos)
    folder = Path(tempfile.mkdtemp(prefix="facility-later-"))
    try:
        path = folder / "f.toml"
        store.save(made, path)
        store.forget(path)
        lazy = store.open_save(path, keep_aside=False, later=True).session
        assert lazy.encounter == made.encounter and lazy.base == made.base
        assert lazy.undo_steps == made.undo_steps and lazy.redo_steps == made.redo_steps
        assert lazy.can_undo() == made.can_undo()
        if settle_first:
            assert lazy.settle() is None
        for line in after:
            for s in (lazy, made):
                with contextlib.suppress(CommandError):
                    s.execute(line)
        store.save(lazy, path)  # the saved steps written as read, the new ones after them
        store.forget(path)
        again = store.open_save(path, keep_aside=False, later=True).session
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    assert again.undo_steps == lazy.undo_steps == made.undo_steps
    assert_same(lazy, made.fork())
    assert_same(again, made)


def test_a_history_that_does_not_replay_is_told_when_it_is_needed(
    monkeypatch,  # type: ignore[no-untyped-def]
    tmp_path: Path,
) -> None:
    """Opened for later, a history that no longer leads to the saved fight is found when it is
    replayed: the fight stays as saved, ``u`` says why it cannot go back, and the steps made
    since opening still undo."""
    s = play(base_encounter("2297", 0, 3), ["add Alpha init=4", "roll 1d6"], undos=0)
    path = tmp_path / "f.toml"
    store.save(s, path)
    store.forget(path)
    rekind_added_lines(monkeypatch)
    lazy = store.open_save(path, keep_aside=False, later=True).session
    assert lazy.encounter == s.encounter and lazy.can_undo()
    lazy.execute("roll 1d6")
    assert (
        lazy.settle() == "the save's undo history could not be rebuilt; the fight itself is intact"
    )
    assert lazy.settle() is None  # told once
    lazy.undo()
    assert lazy.encounter == s.encounter
    try:
        lazy.undo()
    except CommandError as err:
        assert "could not be rebuilt" in str(err)
    else:
        raise AssertionError("undo went back past what could be rebuilt")
    store.save(lazy, path)
    store.forget(path)
    assert store.load(path).encounter == s.encounter


def test_opening_then_a_step_and_a_save_neither_decode_nor_encode_the_saved_steps(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """As ``apply`` opens a save (``later``), adds a step and saves: the saved steps are read
    as data and written back as read (a start that rolled for 1,000 combatants holds thousands
    of dice); each is decoded when first used, and the save reads back the same."""
    from facility_tui.commands.session import Step
    from facility_tui.model import codec
    from facility_tui.store import steps as steps_module

    s = play(base_encounter("2297", 0, 3), ["add Goon count=3 init=1d20", "start", "next"], 0)
    path = tmp_path / "f.toml"
    store.save(s, path)
    store.forget(path)
    used: list[str] = []

    def no_step(real):  # type: ignore[no-untyped-def]
        def watched(value, *args, **kwargs):  # type: ignore[no-untyped-def]
            if value is Step or isinstance(value, Step):
                used.append(real.__name__)
            return real(value, *args, **kwargs)

        return watched

    monkeypatch.setattr(steps_module, "decode", no_step(codec.decode))
    monkeypatch.setattr(steps_module, "encode", no_step(codec.encode))
    lazy = store.open_save(path, keep_aside=False, later=True).session
    lazy.execute("next")
    store.save(lazy, path)
    assert used == ["encode"]  # the new step only
    lazy.undo()
    lazy.undo()  # (back to the saved steps: each decoded now)
    assert "decode" in used
    monkeypatch.undo()
    store.forget(path)
    again = store.load(path)
    assert again.undo_steps == [*s.undo_steps, again.undo_steps[-1]]
    assert again.encounter == run_after(s, "next")


def run_after(s: Session, line: str) -> Encounter:
    s.execute(line)
    return s.encounter


@pytest.mark.parametrize("name", ["v3-2297-passes.toml", "v3-facility-passes.toml"])
def test_a_save_whose_turns_passed_before_they_said_why_keeps_its_history(name: str) -> None:
    """Written before a passing turn's line said why (`Pirate 1 cannot act: turn passes`, now
    `Pirate 1: turn passes (dying)`): the history replays (only the words differ), so undo
    reaches back to the save's first step."""
    fixture = FIXTURES / "saves" / name
    session = store.open_save(fixture).session
    assert session.settle() is None and session.lost is None
    assert len(session.undo_steps) == len(session.undo_states) > 6
    assert any("cannot act: turn passes" in e.text for e in session.encounter.log)


# -- issue 38: the whole timeline is saved ------------------------------------------------------


def assert_same_tree(loaded: Session, made: Session) -> None:
    """Every node, its fight (``state_at``), names, hidden branches, the current node and
    where redo goes from each node are the same."""
    a, b = loaded.timeline, made.timeline
    assert list(a.nodes()) == list(b.nodes())
    assert (a.current, a.names, a.hidden) == (b.current, b.names, b.hidden)
    assert loaded.encounter == made.encounter and a.root == b.root
    for node in b.nodes():
        assert a.next_of(node.id) == b.next_of(node.id)
        assert loaded.state_at(node.id) == made.state_at(node.id), node


@settings(max_examples=25, deadline=None)
@given(
    st.lists(
        st.one_of(
            st.sampled_from(LINES[3:]),
            st.sampled_from(["undo", "undo", "redo", "go", "name", "hide", "show"]),
        ),
        max_size=40,
    ),
    st.integers(0, 2**16),
    st.booleans(),
)
def test_save_then_load_is_the_identity_on_the_whole_tree(
    moves: list[str], pick: int, lazily: bool
) -> None:
    """Any tree of steps (undo, new branches, going to any step, names, hidden branches),
    saved with small step files and checkpoints so that a few steps cross them, loads back
    node for node, each node's fight included; also opened as the app opens it."""
    from facility_tui.commands import timeline
    from facility_tui.store import steps

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(steps, "STEP_CHUNK", 4)
        mp.setattr(timeline, "CHECKPOINT_EVERY", 4)
        s = Session(base_encounter("2297", 0, 5))
        for i, line in enumerate(moves):
            tl = s.timeline
            ids = [n.id for n in tl.nodes()]
            nid = ids[(pick + i) % len(ids)] if ids else 0
            with contextlib.suppress(CommandError, ValueError, KeyError):
                if line == "go":
                    s.go(nid)
                elif line == "name":
                    tl.name(tl.tip(nid), f"branch {i}")
                elif line == "hide":
                    tl.hide(tl.tip(nid))
                elif line == "show":
                    tl.show(min(tl.hidden, default=0))
                else:
                    s.execute(line)
        folder = Path(tempfile.mkdtemp())
        try:
            path = folder / "f.toml"
            store.save(s, path)
            opened = store.open_save(path, keep_aside=False, later=lazily).session
            assert opened.settle() is None
            assert_same_tree(opened, s)
            assert_same_tree(store.loads(store.dumps(s)), s)  # a backup holds it whole
        finally:
            shutil.rmtree(folder)


def test_an_undo_then_a_command_leaves_the_old_line_in_the_save(tmp_path: Path) -> None:
    path = tmp_path / "f.toml"
    s = play(base_encounter("2297", 0, 3), ["add Alpha side=pc init=2d6", "start"], 0)
    s.execute("roll 2d6")
    old_tip, old = s.timeline.current, s.encounter
    s.undo()
    s.execute("roll 1d6")
    store.save(s, path)
    loaded = store.load(path)
    assert old_tip in loaded.timeline.tips() and loaded.state_at(old_tip) == old
    loaded.go(old_tip)
    assert loaded.encounter == old


def test_undo_back_to_the_first_step_of_a_long_fight_after_a_reload(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """2,000 steps saved as apply saves them (after each step), reloaded: undo reaches every
    fight back to the first step, none replayed from further than a checkpoint away."""
    from facility_tui.commands import session as session_module
    from facility_tui.commands.timeline import CHECKPOINT_EVERY

    path = tmp_path / "f.toml"
    s = play(base_encounter("2297", 0, 3), ["add Alpha side=pc init=2d6", "start"], 0)
    states = [s.encounter]
    while len(states) < 2_000:
        s.execute("roll 2d6" if len(states) % 3 else "next")
        store.save(s, path)
        states.append(s.encounter)
    store.forget(path)
    loaded = store.open_save(path, keep_aside=False, later=True).session
    replays = 0
    real = session_module.run_step

    def counted(enc, step):  # type: ignore[no-untyped-def]
        nonlocal replays
        replays += 1
        return real(enc, step)

    monkeypatch.setattr(session_module, "run_step", counted)
    most = 0
    for want in reversed(states[:-1]):
        replays = 0
        loaded.undo()
        most = max(most, replays)
        assert loaded.encounter == want
    loaded.undo()
    loaded.undo()
    assert not loaded.can_undo() and loaded.encounter == loaded.timeline.root
    assert most <= CHECKPOINT_EVERY
