"""``muster``: the number of each enemy type set in one step (issue 39), undone in one, replayed
alike; refusals in one line that change nothing."""

from __future__ import annotations

from pathlib import Path

import pytest

from facility_tui.campaign.demo import demo_encounter
from facility_tui.campaign.folder import Campaign
from facility_tui.commands.grammar import CommandError
from facility_tui.commands.muster import counts, line_for, type_name
from facility_tui.commands.session import Session, run_step
from facility_tui.systems.facility.sheet import FacilitySheet
from facility_tui.systems.r2297.sheet import Sheet2297
from tests.conftest import refused_alike, run


def demo(system: str = "2297") -> Session:
    return Session(demo_encounter(system))


def names(session: Session) -> list[str]:
    return [c.name for c in session.encounter.combatants]


def test_a_type_is_the_name_without_its_number() -> None:
    assert type_name("Boarder 3") == "Boarder"
    assert type_name("Boarding Chief") == "Boarding Chief"
    assert type_name("Unit 7 2") == "Unit 7"


def test_muster_sets_each_type_in_one_step_logged_in_one_line() -> None:
    s = demo()
    steps, lines = len(s.timeline), len(s.encounter.log)
    out = s.execute("muster boarder=5 boarding-chief=0")
    assert counts(s.encounter) == {"Boarder": 5}
    assert [e.text for e in out.events] == [
        "Muster: Boarder 3 -> 5 (added Boarder 4, Boarder 5); "
        "Boarding Chief 1 -> 0 (removed Boarding Chief)"
    ]
    assert len(s.encounter.log) == lines + 1
    assert len(s.timeline) == steps + 1
    s.execute("undo")
    assert counts(s.encounter) == {"Boarder": 3, "Boarding Chief": 1}
    s.execute("redo")
    assert counts(s.encounter) == {"Boarder": 5}


def test_a_type_is_named_in_any_case_or_as_a_quoted_word() -> None:
    s = demo()
    s.execute('muster "BOARDING CHIEF=2" Boarder=1')
    assert counts(s.encounter) == {"Boarder": 1, "Boarding Chief": 2}
    assert "Boarding Chief 2" in names(s)


def test_fewer_removes_the_least_involved_then_the_highest_numbered() -> None:
    s = demo()
    run(s, "hit boarder-3 12")  # (Boarder 3 is hurt: it stays, Boarder 2 goes first)
    s.execute("muster boarder=1")
    assert [n for n in names(s) if n.startswith("Boarder ")] == ["Boarder 3"]


def test_fewer_keeps_the_one_whose_turn_it_is() -> None:
    s = demo()
    run(s, "start")
    while s.encounter.current != "boarder-3":
        run(s, "next")
    s.execute("muster boarder=1")
    assert s.encounter.current == "boarder-3"
    assert [n for n in names(s) if n.startswith("Boarder ")] == ["Boarder 3"]


def test_more_copies_a_member_unhurt_with_nothing_of_the_fight() -> None:
    s = demo()
    run(s, "start", "hit boarder-1 30", "hit boarder-2 15", "hit boarder-3 9", "hide boarder-1")
    s.execute("muster boarder=4")
    one, new = s.encounter.get("boarder-1"), s.encounter.get("boarder-4")
    assert new.name == "Boarder 4" and new.side == "enemies"
    assert not new.hidden and new.initiative == 0 and new.handle > one.handle
    sheet = new.sheet
    assert isinstance(sheet, Sheet2297) and isinstance(one.sheet, Sheet2297)
    assert (sheet.damage, sheet.injuries, sheet.effects, sheet.dead) == (0, (), (), False)
    assert (sheet.turns, sheet.rolled, sheet.spent_major) == (0, False, 0)
    made = (one.sheet.hlt, one.sheet.skill, one.sheet.armor)
    assert (sheet.hlt, sheet.skill, sheet.armor) == made
    assert [w.ammo for w in sheet.weapons] == [w.capacity for w in one.sheet.weapons]
    assert "joins the order next round" not in s.encounter.log[-1].text
    assert "the new join the order next round" in s.encounter.log[-1].text


def test_a_copy_rolls_its_initiative_as_add_does() -> None:
    s = Session(demo_encounter("2297"))
    run(s, "new 2297 T seed=3", "add Ana side=pc", "add Guard init=2d6 count=2")
    out = s.execute("muster guard=3")
    init = s.encounter.get("guard-3").initiative
    assert 2 <= init <= 12
    assert f"Guard 3 (init {init})" in out.events[0].text


def test_a_facility_copy_is_unhurt_and_loaded() -> None:
    s = demo("facility")
    enemy = next(c for c in s.encounter.combatants if c.side == "enemies")
    kind = type_name(enemy.name)
    sheet = enemy.sheet
    assert isinstance(sheet, FacilitySheet)
    hurt = "track_wounds" if sheet.track else "phy_wounds"
    run(s, f"set {enemy.id} {hurt} 1")
    before = counts(s.encounter)[kind]
    s.execute(line_for(s.encounter, {kind: before + 1}))
    new = s.encounter.combatants[-1]
    assert isinstance(new.sheet, FacilitySheet)
    assert new.sheet.track_wounds == 0 and new.sheet.phy.wounds == 0
    assert new.sheet.weapons == sheet.weapons


def test_more_adds_from_the_campaign_template_of_the_type(tmp_path: Path) -> None:
    (tmp_path / "templates").mkdir()
    (tmp_path / "templates" / "boarder.toml").write_text(
        'system = "2297"\nname = "Boarder"\nhlt = 33\nskill = 14\nweapon = "SMG 3d6+1 SA 30"\n',
        encoding="utf-8",
    )
    s = demo()
    s.campaign = Campaign(tmp_path)
    out = s.execute("muster boarder=4")
    assert "from templates/boarder.toml" in out.events[0].text
    new = s.encounter.get("boarder-4")
    assert isinstance(new.sheet, Sheet2297)
    assert (new.sheet.hlt, new.sheet.skill) == (33, 14)
    # replayed (a save opened, a redo): from the recorded template, with no folder to read
    step = s.timeline.node(s.timeline.current).step
    before = s.timeline.state_at(s.timeline.parent(s.timeline.current), run_step)
    assert run_step(before, step) == s.encounter


def test_a_template_brings_a_type_the_fight_lacks(tmp_path: Path) -> None:
    (tmp_path / "templates").mkdir()
    (tmp_path / "templates" / "sniper.toml").write_text(
        'system = "2297"\nname = "Sniper"\nhlt = 18\n', encoding="utf-8"
    )
    s = demo()
    s.campaign = Campaign(tmp_path)
    s.execute("muster sniper=2")
    assert counts(s.encounter)["sniper"] == 2


@pytest.mark.parametrize(
    ("line", "said"),
    [
        ("muster", "needs TYPE=N"),
        ("muster boarder", "takes TYPE=N, got 'boarder'"),
        ("muster pirate=2", "no enemy type 'pirate': the fight has Boarder (3), Boarding Chief"),
        ("muster blanc=2", "'blanc' is a PC"),
        ("muster sgt_blanc=2", "'sgt_blanc' is a PC"),
        ("muster boarder=-1", "a count is at least 0, got -1"),
        ("muster boarder=two", "expected a number of enemies, got 'two'"),
        ("muster boarder=51", "at most 50 of one type"),
        ("muster boarder=3", "nothing to change: the fight already has Boarder 3"),
    ],
)
def test_muster_refuses_in_one_line_and_changes_nothing(line: str, said: str) -> None:
    refused_alike(demo(), line, said)


def test_line_for_names_only_the_types_that_change() -> None:
    enc = demo_encounter("2297")
    assert line_for(enc, {"Boarder": 5, "Boarding Chief": 1}) == "muster boarder=5"


def test_the_rules_objects_are_no_enemy_type() -> None:
    from facility_tui.model.encounter import Combatant

    enc = demo_encounter("facility")
    wall = Combatant(id="wall", name="Wall 2", side="enemies", sheet=FacilitySheet(is_object=True))
    enc = enc.joined(wall, made=True)
    assert "Wall" not in counts(enc)
    s = Session(enc)
    with pytest.raises(CommandError, match="no enemy type 'wall'"):
        s.execute("muster wall=3")


@pytest.mark.parametrize(
    "line",
    [
        "muster boarder=5 boarding-chief=0",  # (in setup: the new ones' initiatives rolled)
        "muster boarder=1",
        "arm boarder FAM-90",
        "arm boarder=PAM9 boarding_chief=FAM-90",
    ],
)
def test_the_preview_of_a_roster_change_is_the_line_enter_logs(line: str) -> None:
    """``muster`` and ``arm`` change the roster in one step: the line shows, as the GM types
    it, the very line Enter writes, its dice the same; a line Enter refuses shows the refusal."""
    s = demo()
    said = s.preview(line)
    out = s.execute(line)
    assert said == [out.events[0].text]
    assert s.preview("muster boarder=x") == ["boarder: expected a number of enemies, got 'x'"]
    s.execute("tabledice all")  # (the GM types every roll: not known before Enter)
    assert s.preview("muster boarder=9") == []
