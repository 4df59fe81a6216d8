"""Issue 22 item 1: every line replays as it ran, whatever mix of typed faces, ``?`` and the
tracker's own rolls it used; a save's undo survives any number of relaunches."""

from __future__ import annotations

import contextlib
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from facility_tui import store
from facility_tui.cli import main
from facility_tui.commands.dice import DiceError, Face, NeedRoll, faces_text
from facility_tui.commands.dispatch import answered, apply
from facility_tui.commands.grammar import CommandError
from facility_tui.commands.session import Session
from tests.unit.test_store_history import assert_same as assert_same_walk

FIGHTS = {
    "2297": (
        "new 2297 Deck seed=5",
        "add Ana side=pc ag=2 cu=1 hlt=20 sta=20 edge=1 skill=12 weapon='SMG 3d6+1 SA/BF 30'",
        "add Bo ag=1 cu=1 hlt=30 sta=20 armor='Vest 10/20'",
        "add Cy ag=1 cu=1 hlt=20 init=2d6",
    ),
    "facility": (
        "new facility Lab seed=5",
        "add Ana side=pc ins=2 phy=1 weapon=pistol,smg",
        "add Bo side=pc ins=1 sci=1",
        "add Tess side=pc job=tech",
        "add Grunt track=12 saves=1,0,0,0,0",
    ),
}
# Lines that roll, some several rolls of several dice (faces typed for a part of them).
LINES = {
    "2297": [
        "rollinit",
        "start",
        "next",
        "hit bo 9",
        "hit cy 2d6+3",
        "hit bo 17",
        "hit ana 25",
        "attack ana bo",
        "attack ana cy skill=20 adv=2",
        "stim ana 2",
        "roll 3d6+2",
        "heal bo 1d6",
    ],
    "facility": [
        "start help=bo",
        "start",
        "next",
        "try ana phy help=bo",
        "try bo sci",
        "salvage bo",
        "salvage ana",
        "save bo weapons",
        "harm bo 2 weapons",
        "strike ana grunt",
        "deal ana",
        "crit ana",
        "tech tess workorder 2",
        "tech tess blast 2 grunt",
        "roll 2d6",
    ],
}

faces = st.lists(st.one_of(st.integers(1, 6), st.none()), min_size=1, max_size=4)
# (a line, the faces on its dice= or none, what the GM answers the table dice prompts with)
line = st.tuples(st.integers(0, 99), st.one_of(st.none(), faces, faces), st.lists(faces))
moves = st.lists(
    st.one_of(
        line,
        line,
        line,
        st.sampled_from(["undo", "undo", "redo", "tabledice pcs", "tabledice all"]),
    ),
    min_size=4,
    max_size=16,
)


def with_faces(line: str, typed: list[Face] | None) -> str:
    return line if typed is None else f"{line} dice={faces_text(typed)}"


def run(s: Session, line: str, answers: list[list[Face]]) -> None:
    """``line`` as the app runs it: with table dice on, each roll the GM types is asked for
    and answered (with the next of ``answers``, or enter alone: the tracker rolls it)."""
    answers = list(answers)
    while True:
        try:
            s.execute(line, prompt=True)
            return
        except NeedRoll as need:
            typed = answers.pop(0) if answers else []
            try:
                given = need.answer(" ".join("?" if f is None else str(f) for f in typed))
            except DiceError:  # not this roll's count or sides: the GM presses enter
                given = need.answer("")
            line = answered(line, s.encounter.system, need.index, given)


def play(system: str, plan: list[Any]) -> Session:
    enc = store.blank()
    for line in FIGHTS[system]:
        enc = apply(enc, line).encounter
    s = Session(enc)  # (the fight's setup is the history's base: undo stops there)
    for move in plan:
        if isinstance(move, str):
            line, answers = move, []
        else:
            line = with_faces(LINES[system][move[0] % len(LINES[system])], move[1])
            answers = move[2]
        with contextlib.suppress(CommandError):  # refused (a face too big...): no change
            run(s, line, answers)
    return s


@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(system=st.sampled_from(sorted(FIGHTS)), plan=moves)
def test_C3_lines_with_partial_typed_dice_save_load_undo_redo_alike(
    tmp_path: Path, system: str, plan: list[Any]
) -> None:
    made = play(system, plan)
    path = tmp_path / f"{system}.toml"
    store.save(made, path)
    loaded = store.load(path)
    assert not any("could not be rebuilt" in e.text for e in loaded.encounter.log)
    assert_same_walk(loaded, made)


@settings(
    max_examples=15,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(system=st.sampled_from(sorted(FIGHTS)), plan=moves)
def test_C3_relaunch_after_relaunch_keeps_the_undo_depth(
    tmp_path: Path, system: str, plan: list[Any]
) -> None:
    made = play(system, plan)
    path = tmp_path / f"{system}.toml"
    store.save(made, path)
    for _ in range(4):
        loaded = store.load(path)
        assert len(loaded.undo_steps) == len(made.undo_steps)
        assert len(loaded.redo_steps) == len(made.redo_steps)
        assert loaded.encounter == made.encounter
        store.save(loaded, path)


def test_C3_redo_of_a_short_dice_line_gives_back_what_it_did() -> None:
    s = play("2297", [])
    s.execute("hit cy 9 dice=3")  # Moderate: 2d6 and 1d6+1, the tracker rolls three dice
    after = s.encounter
    s.execute("undo")
    s.execute("redo")
    assert s.encounter == after


def test_C3_the_issue_s_short_dice_keeps_its_undo_across_relaunches(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = str(tmp_path / "S.toml")
    assert main(["apply", path, "new 2297 X", "add V hlt=40", "hit V 12 dice=2"]) == 0
    for _ in range(3):
        capsys.readouterr()
        assert main(["show", path, "--json"]) == 0
        data = json.loads(capsys.readouterr().out)
        assert data["history"]["undo"] == 3
        assert not any("could not be rebuilt" in e["text"] for e in data["log"])
        assert main(["apply", path, "log a relaunch"]) == 0
        assert main(["apply", path, "undo"]) == 0
    assert main(["apply", path, "undo"]) == 0  # the hit itself, undone after the relaunches
    capsys.readouterr()
    assert main(["show", path, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["history"]["undo"] == 2
    assert data["combatants"][0]["sheet"]["damage"] == 0
