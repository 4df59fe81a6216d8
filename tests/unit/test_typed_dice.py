"""Typed dice (issue 12): dice=F,F,... on any line; table dice and NeedRoll; C4 corrections.

Rule cases are hand-computed with every random value given as a die face."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from attrs import evolve
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from facility_tui import store
from facility_tui.cli import main
from facility_tui.commands.dice import Dice, DiceError, NeedRoll, faces_text
from facility_tui.commands.dispatch import answered, apply
from facility_tui.commands.grammar import CommandError, split_dice, with_dice
from facility_tui.commands.session import Session
from facility_tui.model.encounter import Encounter
from facility_tui.systems.facility.commands import faces

FIGHT_2297 = (
    "new 2297 Deck seed=5",
    "add Ana side=pc ag=2 cu=1 hlt=20 sta=20 edge=1 skill=12 weapon='SMG 3d6+1 SA/BF 30'",
    "add Bo ag=1 cu=1 hlt=20 sta=20 armor='Vest 10/20'",
    "add Cy ag=1 cu=1 hlt=20",
)
FIGHT_FACILITY = (
    "new facility Lab seed=5",
    "add Ana side=pc ins=2 phy=1 weapon=pistol,smg",
    "add Bo side=pc ins=1 sci=1",
    "add Tess side=pc job=tech",
    "add Grunt track=12 saves=1,0,0,0,0",
)


def build(lines: tuple[str, ...]) -> Encounter:
    enc = store.blank()
    for line in lines:
        enc = apply(enc, line).encounter
    return enc


def unmarked(enc: Encounter) -> Encounter:
    """The encounter with the log's typed marks taken out (the only trace typing leaves)."""
    log = tuple(
        evolve(e, text=re.sub(r" \((typed|\d+ of \d+ dice typed)\)| typed(?=\))", "", e.text))
        for e in enc.log
    )
    return evolve(enc, log=log)


def rolled_faces(rolls: tuple[Any, ...]) -> list[int]:
    out: list[int] = []
    for r in rolls:
        out += faces(r) if "(" in r.detail else [r.total]
    return out


LINES_2297 = [
    "rollinit",
    "start",
    "hit bo 14",
    "hit cy 9",
    "hit cy 17",
    "hit ana 25",
    "attack ana bo",
    "attack ana cy skill=20 adv=2",
    "stim ana 2",
    "roll 3d6+2",
]
LINES_FACILITY = [
    "start",
    "start help=bo",
    "save bo weapons",
    "try ana phy help=bo",
    "roll 2d6",
]


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 10_000),
    lines=st.lists(st.sampled_from(LINES_2297), min_size=1, max_size=4),
)
def test_C3_typing_the_faces_the_tracker_rolled_changes_nothing(
    seed: int, lines: list[str]
) -> None:
    """Each line run again with dice= set to the faces it rolled gives the same encounter
    (the log differs only by its typed marks), and the same rolls position."""
    enc = evolve(build(FIGHT_2297), seed=seed)
    for line in lines:
        try:
            done = apply(enc, line)
        except CommandError:
            continue
        typed = rolled_faces(done.rolls)
        if typed:
            again = apply(enc, f"{line} dice={faces_text(typed)}")
            assert unmarked(again.encounter) == done.encounter
            assert again.encounter.rolls == done.encounter.rolls
        enc = done.encounter


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 10_000), line=st.sampled_from(LINES_FACILITY))
def test_C3_facility_typed_faces_equal_to_rolled_ones_change_nothing(seed: int, line: str) -> None:
    enc = evolve(build(FIGHT_FACILITY), seed=seed)
    try:
        done = apply(enc, line)
    except CommandError:
        return
    typed = rolled_faces(done.rolls)
    if typed:
        assert unmarked(apply(enc, f"{line} dice={faces_text(typed)}").encounter) == done.encounter


@settings(max_examples=25, deadline=None)
@given(
    faces=st.lists(st.integers(1, 6), min_size=3, max_size=3),
    damage=st.integers(5, 40),
)
def test_C3_undo_redo_and_reload_keep_typed_dice(
    tmp_path_factory: Any, faces: list[int], damage: int
) -> None:
    s = Session(build(FIGHT_2297))
    s.execute("start")
    line = f"hit cy {damage} dice={faces_text(faces)}"
    try:
        s.execute(line)
    except CommandError as err:
        assert "dice=" in str(err)  # fewer rolls than faces: refused, nothing changed
        return
    after = s.encounter
    s.execute("undo")
    s.execute("redo")
    assert s.encounter == after
    path = tmp_path_factory.mktemp("save") / "f.toml"
    store.save(s, path)
    loaded = store.load(path)
    assert loaded.encounter == after
    assert [st.line for st in loaded.undo_steps] == [st.line for st in s.undo_steps]
    loaded.execute("undo")
    loaded.execute("redo")
    assert loaded.encounter == after


def test_C3_dice_example_of_the_issue() -> None:
    """hit boarder-1 … dice=3,5,4: the 2d6 penalty is 3+5, the Disadvantage die is 4."""
    enc = apply(build(FIGHT_2297), "hit cy 9 dice=3,5,4").encounter  # 9 of 20: Moderate
    cy = enc.get("cy").sheet
    init = next(e for e in cy.effects if e.kind.value == "init")
    disadv = next(e for e in cy.effects if e.kind.value == "disadvantage")
    assert (init.amount, disadv.rounds) == (8, 5)
    texts = [e.text for e in enc.log]
    assert "Cy initiative reduction: 2d6 (3, 5) = 8 (typed)" in texts
    assert "Cy Disadvantage rounds: 1d6 (4) + 1 = 5 (typed)" in texts


def test_C3_a_face_that_does_not_fit_its_die_is_refused_naming_the_roll() -> None:
    with pytest.raises(CommandError, match=r"Cy Disadvantage rounds: dice= face 3 is 7: a d6"):
        apply(build(FIGHT_2297), "hit cy 9 dice=3,5,7")
    with pytest.raises(CommandError, match=r"not a die's face"):
        apply(build(FIGHT_2297), "hit cy 9 dice=3,x")
    with pytest.raises(CommandError, match=r"at most 100"):
        apply(build(FIGHT_2297), "roll 2d6 dice=" + ",".join(["1"] * 101))


def test_C3_too_many_faces_are_refused_too_few_are_rolled_and_logged() -> None:
    enc = build(FIGHT_2297)
    with pytest.raises(CommandError, match=r"dice= gives 4 faces and 'hit' rolled 3 dice"):
        apply(enc, "hit cy 9 dice=3,5,4,1")
    with pytest.raises(CommandError, match=r"'log' rolled no dice"):
        apply(enc, "log hello dice=1")
    done = apply(enc, "hit cy 9 dice=3")
    last = done.encounter.log[-1].text
    assert last.startswith("dice=: 1 face typed; the tracker rolled the rest: Cy initiative")
    assert "Cy Disadvantage rounds (1d6+1)" in last
    assert "2d6 (3, " in "\n".join(e.text for e in done.encounter.log)


def test_C3_question_mark_lets_the_tracker_roll_one_die() -> None:
    enc = build(FIGHT_2297)
    plain = apply(enc, "hit cy 9")
    mixed = apply(enc, "hit cy 9 dice=?,?,?")
    assert mixed.encounter == plain.encounter


def test_C3_typed_dice_in_any_notation_and_expressions_typed_on_the_line() -> None:
    d = Dice(1, 0, typed=[9, 2, 10])
    r = d.roll("3d10kh2")
    assert r.total == 19 and r.detail.endswith("(typed)") and r.given == 3
    enc = build(FIGHT_2297)
    done = apply(enc, "hit cy 2d6+3 dice=4,4,1,1,1")  # 11 raw: Serious (2d6, 1d6+1)
    assert done.encounter.get("cy").sheet.damage == 11


def test_A1_add_takes_its_faces_in_faces_because_dice_is_the_initiative_count() -> None:
    enc = build(FIGHT_2297)
    done = apply(enc, "add Dan dice=2 init=2d6+1 faces=6,5").encounter
    dan = done.get("dan")
    assert dan.initiative == 12 and dan.sheet.dice == 2


# -- prompt mode (NeedRoll) ------------------------------------------------------------------


def test_NeedRoll_asks_the_first_roll_the_GM_types_with_what_and_where() -> None:
    enc = apply(build(FIGHT_2297), "tabledice all").encounter
    with pytest.raises(NeedRoll) as asked:
        apply(enc, "hit cy 9", prompt=True)
    need = asked.value
    assert (need.what, need.expr, need.index, need.sides, need.sums) == (
        "Cy initiative reduction",
        "2d6",
        0,
        (6, 6),
        True,
    )
    assert need.label == "Cy — initiative reduction, 2d6"
    assert need.answer("8") == [4, 4] and need.answer("3 5") == [3, 5]
    assert need.answer("") == [None, None]
    with pytest.raises(DiceError):
        need.answer("13")
    line = answered("hit cy 9", enc.system, need.index, need.answer("3 5"))
    assert line == "hit cy 9 dice=3,5"
    with pytest.raises(NeedRoll) as asked:
        apply(enc, line, prompt=True)
    assert (asked.value.index, asked.value.expr) == (2, "1d6+1")
    final = apply(enc, answered(line, enc.system, 2, [4]), prompt=True)
    assert final.line == "hit cy 9 dice=3,5,4"
    assert final.encounter == apply(enc, "hit cy 9 dice=3,5,4").encounter


def test_NeedRoll_in_pcs_mode_asks_only_the_pcs_rolls_and_the_line_keeps_their_places() -> None:
    enc = apply(build(FIGHT_2297), "tabledice pcs").encounter
    done = apply(enc, "hit cy 9", prompt=True)  # an enemy's rolls: the tracker's
    assert "dice=" not in done.line
    with pytest.raises(NeedRoll) as asked:
        apply(enc, "rollinit", prompt=True)  # Ana (PC) first: asked at once
    assert asked.value.what == "Ana initiative" and asked.value.index == 0
    ordered = apply(enc, "rollinit dice=4", prompt=True)  # Bo and Cy roll after Ana
    assert ordered.line == "rollinit dice=4,?,?"
    assert ordered.encounter.get("ana").initiative == 4 + 3
    assert apply(enc, ordered.line).encounter == ordered.encounter  # replays alike
    assert "tracker rolled the rest" not in ordered.encounter.log[-1].text


def test_split_and_with_dice_keep_the_rest_of_the_line() -> None:
    assert split_dice("hit 'Sgt. Blanc' 12 dice=3,5") == ("hit 'Sgt. Blanc' 12", [3, 5])
    assert with_dice("hit x 12 dice=1", [None, 6]) == "hit x 12 dice=?,6"
    assert with_dice("add X dice=2", [5], "faces") == "add X dice=2 faces=5"


def test_tabledice_is_undoable_and_saved(tmp_path: Path) -> None:
    s = Session(build(FIGHT_2297))
    s.execute("tabledice pcs")
    path = tmp_path / "f.toml"
    store.save(s, path)
    assert 'table_dice = "pcs"' in path.read_text()
    assert store.load(path).encounter.table_dice.value == "pcs"
    s.execute("undo")
    assert s.encounter.table_dice.value == "app"
    with pytest.raises(CommandError, match="app, pcs or all"):
        s.execute("tabledice some")


# -- rule cases through apply and show --json -------------------------------------------------


def cli(tmp_path: Path, capsys: pytest.CaptureFixture[str], *lines: str) -> dict[str, Any]:
    save = tmp_path / "fight.toml"
    assert main(["apply", str(save), "--seed", "7", "-q", *lines]) == 0, capsys.readouterr().err
    capsys.readouterr()
    assert main(["show", str(save), "--json"]) == 0
    data: dict[str, Any] = json.loads(capsys.readouterr().out)
    return data


def who(data: dict[str, Any], cid: str) -> dict[str, Any]:
    return next(c for c in data["combatants"] if c["id"] == cid)


SETUP = (
    "new 2297 Deck",
    "add Blanc side=pc ag=3 cu=2 hlt=32 sta=30 edge=2",
    "add Boarder ag=1 cu=1 hlt=20 sta=20 armor='Vacsuit 10/20'",
)


def test_A3_initiative_from_the_dice_alone(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = cli(tmp_path, capsys, *SETUP, "init blanc face=4", "rollinit boarder dice=6", "start")
    assert who(data, "blanc")["initiative"] == 9  # 4 + AG 3 + CU 2
    assert who(data, "boarder")["initiative"] == 8  # 6 + 1 + 1
    assert data["order"] == ["blanc", "boarder"]


def test_A6_A7_moderate_with_typed_dice(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # 12 raw vs PT 10 DR 20 → 9 of Health 20: Moderate (≥ 5); 2d6 = 2+6, Disadvantage 1d6+1 = 3+1
    data = cli(
        tmp_path,
        capsys,
        *SETUP,
        "init blanc 15",
        "init boarder 10",
        "start",
        "hit boarder 12 dice=2,6,3",
    )
    b = who(data, "boarder")["derived"]
    assert (b["injury"], b["damage"], b["fatigue"]) == ("moderate", 9, 5)
    assert "initiative −8 (on its 1st turn)" in b["effects"]
    assert "Disadvantage (4 rounds left)" in b["effects"]


def test_A6_hit_through_armor_skips_mitigation(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = cli(tmp_path, capsys, *SETUP, "hit boarder 9 through dice=1,1,1")  # 9 of 20: Moderate
    b = who(data, "boarder")["derived"]
    assert (b["damage"], b["injury"]) == (9, "moderate")
    assert any("already through armor (A6 skipped)" in e["text"] for e in data["log"])


def test_C4_set_injury_applies_or_skips_what_the_level_brings(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = cli(
        tmp_path,
        capsys,
        *SETUP,
        "set boarder injury serious dice=5,5,2",
        "set blanc injury serious effects=no",
    )
    b = who(data, "boarder")["derived"]
    assert b["injury"] == "serious" and b["fatigue"] == 10
    assert "initiative −10 (from its 1st turn, until end of combat)" in b["effects"]
    assert "bleeding 1/round (3 more rounds)" in b["effects"]
    c = who(data, "blanc")["derived"]
    assert c["injury"] == "serious" and c["fatigue"] == 0 and c["effects"] == []
    log = [e["text"] for e in data["log"]]
    assert "GM override: Boarder injury None → Serious (its effects applied)" in log
    assert "GM override: Blanc injury None → Serious (no effects applied)" in log


def test_C4_set_injury_changes_a_level_and_its_effects(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Light (+3 fatigue, −1d6 = 4) raised to Moderate: +5 fatigue, −2d6 = 2+2, 1d6+1 = 1+1 rounds
    data = cli(
        tmp_path,
        capsys,
        *SETUP,
        "hit boarder 4 through dice=4",
        "set boarder injury moderate dice=2,2,1",
    )
    b = who(data, "boarder")["derived"]
    assert (b["injury"], b["fatigue"]) == ("moderate", 5)
    assert sorted(b["effects"]) == [
        "Disadvantage (2 rounds left)",
        "initiative −4 (on its 1st turn)",
    ]


def test_C4_set_a_timed_effects_rounds_and_amount(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = cli(
        tmp_path,
        capsys,
        *SETUP,
        "hit boarder 12 dice=2,6,3",
        "set boarder rounds 2",
        "set boarder amount 5",
    )
    b = who(data, "boarder")["derived"]
    assert sorted(b["effects"]) == [
        "Disadvantage (2 rounds left)",
        "initiative −5 (on its 1st turn)",
    ]
    data = cli(tmp_path, capsys, "set boarder rounds 0 effect=disadvantage")
    assert who(data, "boarder")["derived"]["effects"] == ["initiative −5 (on its 1st turn)"]


def test_C4_set_refuses_what_it_cannot_pick(tmp_path: Path) -> None:
    s = Session(build(SETUP))
    s.execute("hit boarder 12 dice=2,6,3")
    with pytest.raises(CommandError, match="no effect 'bleeding'"):
        s.execute("set boarder rounds 3 effect=bleeding")
    s.execute("cond boarder blinded 3")
    with pytest.raises(CommandError, match="several"):
        s.execute("set boarder rounds 3")
    s.execute("set boarder rounds 1 effect=blinded")
    assert "blinded (1 round left)" in [e.text for e in s.encounter.log][-1]


def test_C4_set_ammo(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = cli(
        tmp_path, capsys, *SETUP, "set blanc weapon 'FAM 5d6+1 SA/BF 60'", "set blanc ammo 12"
    )
    assert who(data, "blanc")["sheet"]["weapons"][0]["ammo"] == 12
    s = Session(build(SETUP))
    with pytest.raises(CommandError, match="no weapon with ammo"):
        s.execute("set blanc ammo 3")


def test_F8_typed_dice_empty_a_gun_and_set_corrects_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = (
        "new facility Lab",
        "add Ana side=pc ins=2 phy=1 weapon=smg",
        "add Bo side=pc ins=1",
        "add Grunt track=12 saves=1,0,0,0,0",
        "start dice=15",  # Insight d20 15 + 2 ≥ 12: the PCs first
        "strike ana grunt help=bo dice=12,10",  # Bo helps (12+0 ≥ 12: +1); 10+1+1 = 12 vs 11
        "deal ana dice=1",  # SMG 1d4 shows 1: 1 wound, and the gun is out of ammo
    )
    data = cli(tmp_path, capsys, *lines)
    ana, grunt = who(data, "ana")["sheet"], who(data, "grunt")["sheet"]
    assert ana["empty"] == ["smg"] and grunt["track_wounds"] == 1
    data = cli(tmp_path, capsys, "set ana empty none", "set grunt track_wounds 3")
    assert "empty" not in who(data, "ana")["sheet"] or who(data, "ana")["sheet"]["empty"] == []
    assert who(data, "grunt")["sheet"]["track_wounds"] == 3


def test_F12_tech_dice_and_blast_saves_typed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = (
        "new facility Lab",
        "add Tess side=pc job=tech parts=4 clearance=3",
        "add Grunt saves=0,0,0,0,0",
        "add Goon saves=0,0,0,0,0",
        # 3d6 = 6, 4, 1: [sum] 11, two slots spent (4+); shares 6 and 5; saves d20 15 (halves) and 2
        "tech tess blast 3 grunt goon dice=6,4,1,15,2",
    )
    data = cli(tmp_path, capsys, *lines)
    assert who(data, "tess")["sheet"]["parts"] == 2
    grunt, goon = who(data, "grunt")["sheet"], who(data, "goon")["sheet"]
    stats = ("phy", "sci", "ins", "adm", "nor")
    assert sum(grunt[k].get("wounds", 0) for k in stats) == 3  # 6 halved
    assert sum(goon[k].get("wounds", 0) for k in stats) == 5


def test_F4_set_a_stats_wounds_and_capacity(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = cli(
        tmp_path,
        capsys,
        "new facility Lab",
        "add Ana side=pc phy=1",
        "set ana phy_wounds 2",
        "set ana phy_cap 3",
    )
    phy = who(data, "ana")["sheet"]["phy"]
    assert (phy["wounds"], phy["scars"]) == (2, 1)  # capacity 3 + 1 − 1 = 3
    s = Session(build(("new facility Lab", "add Ana side=pc phy=1")))
    with pytest.raises(CommandError, match="at most 3 \\+ bonus"):
        s.execute("set ana phy_cap 5")


@pytest.mark.parametrize("sums", [True, False])
def test_a_one_die_prompt_speaks_of_one_face(sums: bool) -> None:
    """One d10 is asked for: two numbers typed are refused in words for one die (no "their
    sum", no "1 face"); for two dice, faces and their sum in the plural."""
    one = NeedRoll("Blanc initiative", "1d10", 0, (10,), sums=sums)
    with pytest.raises(DiceError) as refused:
        one.answer("3 5")
    assert str(refused.value) == "1d10: type one face (1 to 10), not 2 numbers"
    assert one.hint.startswith("Type the d10's face.")
    two = NeedRoll("Cy", "2d6", 0, (6, 6), sums=True)
    with pytest.raises(DiceError) as refused:
        two.answer("3 5 1")
    assert str(refused.value) == "2d6: type 2 faces or their sum, not 3 numbers"
