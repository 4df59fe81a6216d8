"""Templates (issue 24): ``template save WHO NAME``, ``add NAME from=TEMPLATE count=N``,
hand-written templates checked with their line, and Facility NPCs in one step (F1: 3d6 down
the line, the Employee Competence Scale, On-the-Job Training)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from attrs import evolve
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from facility_tui import store
from facility_tui.campaign.folder import Campaign
from facility_tui.cli import main
from facility_tui.commands.grammar import CommandError
from facility_tui.commands.session import Session
from facility_tui.model.encounter import Combatant
from facility_tui.systems.facility.rules import STATS, competence, stat_of
from tests.apps import AppMaker
from tests.paths import ROOT
from tests.unit.test_store_history import assert_same


def session(folder: Path, *lines: str) -> Session:
    s = Session(store.blank())
    s.campaign = Campaign(folder)
    for line in lines:
        s.execute(line)
    return s


def write(folder: Path, name: str, text: str) -> Path:
    path = folder / "templates" / f"{name}.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def same_but_added(added: Combatant, kept: Combatant) -> bool:
    """Equal but for what adding gives anew: id, handle, initiative rolled."""
    return evolve(added, id=kept.id, handle=kept.handle, initiative=kept.initiative) == kept


# -- template save -> add from= ----------------------------------------------------------------


def test_a_saved_2297_combatant_comes_back_the_same(tmp_path: Path) -> None:
    s = session(
        tmp_path,
        "new 2297 Deck seed=4",
        "add Boarder ag=2 cu=1 hlt=24 sta=18 edge=1 dice=2 skill=11 armor='Vest 15/20' "
        "weapon='SMG 3d6+1 SA/BF 30'",
        "note boarder keeps to the left",
        "hit boarder 30",  # what the fight did to it is kept too (edit the file to drop it)
        "set boarder ammo 12",  # (not as add writes it: kept in [sheet])
    )
    kept = s.encounter.get("boarder")
    assert kept.sheet.damage > 0
    out = s.execute("template save boarder guard")
    assert not out.changed and "templates/guard.toml" in out.message
    assert len(s.undo_steps) == 5  # not a step of the fight's history
    text = (tmp_path / "templates" / "guard.toml").read_text(encoding="utf-8")
    assert 'name = "Boarder"' in text and "hlt = 24" in text and "ag = 2" in text
    assert 'armor = "Vest 15/20"' in text and "[[sheet.weapons]]" in text
    s.execute("add from=guard")
    assert same_but_added(s.encounter.combatants[-1], kept)


def test_a_saved_facility_npc_comes_back_the_same(tmp_path: Path) -> None:
    s = session(
        tmp_path,
        "new facility Lab seed=4",
        "add Tech side=pc job=tech phy=2 ins=-1 exp=adm ppe='Hard Hat' weapon=pistol",
        "ppe tech remove Work Boots",
        "ppe tech mark Hard Hat",
        "add Grunt track=6 saves=1,0,0,2,0",
    )
    for who in ("tech", "grunt"):
        kept = s.encounter.get(who)
        s.execute(f"template save {who} {who}")
        s.execute(f"add from={who}")
        assert same_but_added(s.encounter.combatants[-1], kept)
    text = (tmp_path / "templates" / "grunt.toml").read_text(encoding="utf-8")
    assert "track = 6" in text and 'side = "enemy"' in text


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    ag=st.integers(-3, 9),
    hlt=st.integers(1, 60),
    sta=st.integers(1, 40),
    dice=st.integers(1, 4),
    armor=st.sampled_from(["", "armor='Vest 15/20'", "armor='Helmet 5/10, Vest 10/20'"]),
    side=st.sampled_from(["pc", "enemy"]),
)
def test_any_2297_sheet_the_add_line_makes_round_trips(
    tmp_path_factory: pytest.TempPathFactory,
    ag: int,
    hlt: int,
    sta: int,
    dice: int,
    armor: str,
    side: str,
) -> None:
    folder = tmp_path_factory.mktemp("c")
    s = session(
        folder,
        "new 2297 X seed=1",
        f"add A side={side} ag={ag} hlt={hlt} sta={sta} dice={dice} {armor}",
        "template save a a",
        "add B from=a",
    )
    a, b = s.encounter.combatants
    assert same_but_added(evolve(b, name="A"), a)


def test_template_save_refuses_to_write_over_one_unless_force(tmp_path: Path) -> None:
    s = session(tmp_path, "new 2297 X", "add A hlt=10", "add B hlt=30", "template save a guard")
    with pytest.raises(CommandError, match=r"templates/guard.toml exists: add force"):
        s.execute("template save b guard")
    assert "hlt = 10" in (tmp_path / "templates" / "guard.toml").read_text(encoding="utf-8")
    s.execute("template save b guard force")
    assert "hlt = 30" in (tmp_path / "templates" / "guard.toml").read_text(encoding="utf-8")
    assert [p.name for p in (tmp_path / "templates").iterdir()] == ["guard.toml"]  # no leftover


def test_one_of_a_count_is_kept_by_its_common_name(tmp_path: Path) -> None:
    s = session(tmp_path, "new 2297 X", "add Boarder count=2 hlt=15", "add Unit 7")
    out = s.execute("template save boarder-2 boarder")
    assert "(named Boarder)" in out.message
    s.execute("template save unit-7 unit")
    s.execute("add from=boarder count=2")
    s.execute("add from=unit")
    names = [c.name for c in s.encounter.combatants]
    assert names[3:] == ["Boarder 1", "Boarder 2", "Unit 7"]


def test_force_writes_over_the_file_as_it_is_named(tmp_path: Path) -> None:
    write(tmp_path, "Guard", 'name = "Old"\n')
    s = session(tmp_path, "new 2297 X", "add New", "template save new guard force")
    assert [p.name for p in (tmp_path / "templates").iterdir()] == ["Guard.toml"]
    s.execute("add from=GUARD")
    assert s.encounter.combatants[-1].name == "New"


def test_a_folder_that_cannot_be_written_is_one_line(tmp_path: Path) -> None:
    s = session(tmp_path, "new 2297 X", "add A")
    (tmp_path / "templates").write_text("not a folder", encoding="utf-8")
    with pytest.raises(CommandError) as err:
        s.execute("template save a guard")
    assert re.fullmatch(r"cannot write templates/guard.toml: [^\n]+", str(err.value))


@pytest.mark.parametrize(
    ("line", "said"),
    [
        ("template", "'template' needs save"),
        ("template save", "'template' needs who to keep"),
        ("template save a", "'template' needs the template's name"),
        ("template junk a b", "'template' takes save, not 'junk'"),
        ("template save a b c", "unexpected 'c'"),
        ("template save nobody b", "no combatant called 'nobody'"),
        ("add from=", "no template ''"),
        ("add from=gaurd", "no template 'gaurd': the nearest are guard"),
        ("add Zed from=guard hlt=ten", "hlt: expected a number or dice"),
        ("add Zed from=guard count=0", "count must be at least 1"),
    ],
)
def test_hurried_gm_lines_are_refused_in_one_line(tmp_path: Path, line: str, said: str) -> None:
    s = session(tmp_path, "new 2297 X", "add A", "template save a guard")
    before = s.encounter
    with pytest.raises(CommandError) as err:
        s.execute(line)
    assert said in str(err.value) and "\n" not in str(err.value)
    assert s.encounter == before and len(s.undo_steps) == 2


def test_the_same_add_twice_gives_two_of_them(tmp_path: Path) -> None:
    s = session(tmp_path, "new 2297 X", "add A", "template save a guard")
    s.execute("add from=guard")
    s.execute("add from=guard")
    assert [c.id for c in s.encounter.combatants] == ["a", "a-2", "a-3"]


# -- add from= count= --------------------------------------------------------------------------

GUARD = """\
# a guard of the Jean Bart
name = "Guard"
side = "enemy"
init = "1d6+5"
hlt = 20
ag = 1
armor = "Vest 15/20"
notes = "radio on channel 2"
"""


def test_count_adds_them_numbered_each_with_its_own_initiative(tmp_path: Path) -> None:
    write(tmp_path, "guard", GUARD)
    s = session(tmp_path, "new 2297 X seed=11")
    out = s.execute("add from=guard count=4")
    added = s.encounter.combatants
    assert [c.name for c in added] == ["Guard 1", "Guard 2", "Guard 3", "Guard 4"]
    assert [c.handle for c in added] == [1, 2, 3, 4]
    rolls = [e.text for e in out.events if "initiative" in e.text]
    assert len(rolls) == 4  # one roll each, logged
    assert [int(r.rsplit("= ", 1)[1]) for r in rolls] == [c.initiative for c in added]
    assert all(c.sheet.hlt == 20 and c.sheet.armor[0].pt == 15 for c in added)
    assert all(c.notes == "radio on channel 2" for c in added)
    # the same as typing the add line out, roll for roll
    typed = session(tmp_path, "new 2297 X seed=11")
    typed.execute("add Guard count=4 init=1d6+5 hlt=20 ag=1 armor='Vest 15/20'")
    assert [c.initiative for c in typed.encounter.combatants] == [c.initiative for c in added]


def test_the_line_overrides_the_template_and_typed_dice_still_work(tmp_path: Path) -> None:
    write(tmp_path, "guard", GUARD)
    s = session(tmp_path, "new 2297 X")
    s.execute("add Sentry from=guard count=2 side=pc hlt=30 armor='Helmet 5/5' faces=1,6")
    one, two = s.encounter.combatants
    assert (one.name, one.side, one.sheet.hlt) == ("Sentry 1", "pcs", 30)
    assert [a.name for a in one.sheet.armor] == ["Helmet"]
    assert (one.initiative, two.initiative) == (6, 11)  # 1+5 and 6+5, as typed


def test_facility_typed_dice_roll_a_templates_stats(tmp_path: Path) -> None:
    write(tmp_path, "recruit", 'name = "Recruit"\nroll = true\njob = "tech"\n')
    s = session(tmp_path, "new facility Lab")
    s.execute("add from=recruit dice=3,3,3,6,6,6,5,5,5,1,1,2,4,4,4")
    sheet = s.encounter.combatants[0].sheet
    assert [stat_of(sheet, k).bonus for k in STATS] == [-1, 3, 2, -3, 1]
    assert sheet.job == "Maintenance Technician"


# -- replay-safety: the template as read is kept with the step ---------------------------------


def test_a_changed_template_does_not_change_the_history(tmp_path: Path) -> None:
    path = write(tmp_path, "guard", GUARD)
    s = session(tmp_path, "new 2297 X seed=3", "add from=guard count=3", "start", "next")
    save = tmp_path / "fight.toml"
    store.save(s, save)
    path.write_text(GUARD.replace("hlt = 20", "hlt = 99"), encoding="utf-8")
    loaded = store.load(save)
    assert loaded.encounter.combatants[0].sheet.hlt == 20
    assert_same(loaded, s)  # undo all the way back...
    while s.can_redo():  # ...and redo all the way forward, the same
        assert loaded.redo().message == s.redo().message
        assert loaded.encounter == s.encounter
    path.unlink()  # even gone
    assert store.load(save).encounter == s.encounter


# -- hand-written templates: each mistake refused with its line ---------------------------------


NOT_TEN = ":3: hlt: expected a number or dice like 2d6+1, got 'ten'"


@pytest.mark.parametrize(
    ("system", "text", "said"),
    [
        ("2297", 'name = "G"\n\nhlt = "ten"\n', NOT_TEN),
        ("2297", 'name = "G"\ninit = "ten"\n', ":2: init must be a whole number or dice"),
        ("2297", 'name = "G"\nside = "neutral"\n', ":2: side: unknown side 'neutral'"),
        ("2297", 'name = "G"\n\n\nhlz = 4\n', ":4: hlz is not a key of a 2297 template"),
        ("2297", "name = 7\n", ":1: name must be text, got 7"),
        ("2297", 'name = "G"\nhlt = [1]\n', ":2: hlt must be a number, text or true/false"),
        ("2297", 'name = "G"\narmor = "zz"\n', ":2: armor 'zz': write it as NAME PT/DR"),
        ("2297", 'name = "G"\nhlt =\n', ":2: is not TOML"),
        ("2297", 'system = "facility"\nname = "G"\n', ":1: is a facility template"),
        ("2297", 'name = "G"\n[sheet]\nsta = 0\n', ":3: sheet.sta must be at least 1"),
        ("2297", 'name = "G"\n[sheet]\nhlt = "x"\n', ":3: sheet.hlt"),
        ("2297", 'name = "G"\n[sheet]\nwings = 2\n', ":3: sheet.wings is not a key of a 2297"),
        ("2297", 'name = "G"\nsheet = 3\n', ":2: sheet must be a table"),
        ("facility", 'name = "G"\nphy = 5\n', ":2: phy: Physique bonus must be from -3 to +3"),
        ("facility", 'name = "G"\ntrain = "plus2:phy"\n', ":2: train= takes swap"),
        ("facility", 'name = "G"\nnotes = "a\\u001bb"\n', ":2: notes holds a control character"),
    ],
)
def test_a_mistake_in_a_template_is_refused_with_its_line(
    tmp_path: Path, system: str, text: str, said: str
) -> None:
    write(tmp_path, "bad", text)
    write(tmp_path, "good", 'name = "Good"\n')
    s = session(tmp_path, f"new {system} X")
    with pytest.raises(CommandError) as err:
        s.execute("add from=bad")
    assert str(err.value).startswith("templates/bad.toml:") and said in str(err.value)
    assert "\n" not in str(err.value) and not s.encounter.combatants
    s.execute("add from=good")  # the others still work
    assert [c.name for c in s.encounter.combatants] == ["Good"]


def test_validate_checks_the_campaigns_templates(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["apply", str(tmp_path / "x.toml"), "new 2297 X", "add A"]) == 0
    write(tmp_path, "good", GUARD)
    assert main(["validate", str(tmp_path)]) == 0
    assert "2 files checked: no problem" in capsys.readouterr().out
    write(tmp_path, "bad", 'name = "G"\n\nhlt = "ten"\n')
    assert main(["validate", str(tmp_path)]) == 1
    out = capsys.readouterr().out.strip()
    assert out == (
        f"{tmp_path}/templates/bad.toml:3: hlt: expected a number or dice like 2d6+1, got 'ten'"
    )


def test_apply_saves_a_template_outside_the_history(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    save = tmp_path / "x.toml"
    assert main(["apply", str(save), "new facility X", "add Tess job=tech"]) == 0
    assert main(["apply", str(save), "template save tess tech", "add from=tech count=2"]) == 0
    assert "Saved Tess as template tech" in capsys.readouterr().out
    loaded = store.load(save)
    assert [st.line for st in loaded.undo_steps][-1] == "add from=tech count=2"
    assert not any(st.line.startswith("template") for st in loaded.undo_steps)


# -- F1: Facility NPCs in one step ------------------------------------------------------------


@pytest.mark.parametrize(
    ("total", "bonus"),
    [(3, -3), (4, -3), (5, -2), (6, -2), (7, -1), (9, -1), (10, 0), (11, 0), (12, 1), (14, 1),
     (15, 2), (16, 2), (17, 3), (18, 3)],
)  # fmt: skip
def test_F1_employee_competence_scale(total: int, bonus: int) -> None:
    assert competence(total) == bonus


def test_F1_3d6_down_the_line_typed(tmp_path: Path) -> None:
    s = session(tmp_path, "new facility Lab")
    out = s.execute("add Temp roll=3d6 dice=1,1,2,2,2,2,4,4,4,5,5,6,6,6,6")
    sheet = s.encounter.combatants[0].sheet
    assert [stat_of(sheet, k).bonus for k in STATS] == [-3, -2, 1, 2, 3]
    texts = [e.text for e in out.events]
    assert texts[0] == "Physique 3d6: 3d6 (1, 1, 2) = 4 (typed)"
    scale = "Employee Competence Scale: Physique -3, Science -2, Insight +1, Admin +2, Normal +3"
    assert scale in texts


@pytest.mark.parametrize(
    ("train", "bonuses", "expertise"),
    [
        ("swap:phy,nor", [3, -2, 1, 2, -3], []),
        ("exp:adm>sci", [-3, -2, 1, 1, 3], ["sci"]),
        ("plus2:adm>ins", [-3, -2, 3, 0, 3], []),
        ("plus2:Admin>Insight", [-3, -2, 3, 0, 3], []),
    ],
)
def test_F1_on_the_job_training(
    tmp_path: Path, train: str, bonuses: list[int], expertise: list[str]
) -> None:
    s = session(tmp_path, "new facility Lab")
    out = s.execute(f"add Temp roll=3d6 train={train} dice=1,1,2,2,2,2,4,4,4,5,5,6,6,6,6")
    sheet = s.encounter.combatants[0].sheet
    assert [stat_of(sheet, k).bonus for k in STATS] == bonuses
    assert [k for k in STATS if stat_of(sheet, k).expertise] == expertise
    assert any(e.text.startswith("On-the-Job Training: ") for e in out.events)


@pytest.mark.parametrize(
    ("train", "said"),
    [
        ("plus2:sci>ins", "Science -2 cannot lose 2 (a bonus is never below -3)"),
        ("exp:phy>ins", "Physique -3 cannot lose 1"),
        ("plus2:adm>nor", "Normal +3 cannot gain 2 (a bonus is never above +3)"),
        ("swap:phy,phy", "needs two different stats"),
        ("boost:phy>nor", "train= takes swap:STAT,STAT, exp:FROM>TO or plus2:FROM>TO"),
        ("swap:phy,wis", "unknown stat 'wis'"),
    ],
)
def test_F1_on_the_job_training_keeps_bonuses_within_the_scale(
    tmp_path: Path, train: str, said: str
) -> None:
    s = session(tmp_path, "new facility Lab")
    with pytest.raises(CommandError, match=re.escape(said)):
        s.execute(f"add Temp roll=3d6 train={train} dice=1,1,2,2,2,2,4,4,4,5,5,6,6,6,6")
    assert not s.encounter.combatants


def test_F1_npcs_in_one_step_each_rolls_its_own_stats_seeded(tmp_path: Path) -> None:
    write(tmp_path, "clerk", 'name = "Clerk"\nroll = true\ntrack = 4\n')
    s = session(tmp_path, "new facility Lab seed=21")
    out = s.execute("add from=clerk count=3")
    clerks = s.encounter.combatants
    stats = [[stat_of(c.sheet, k).bonus for k in STATS] for c in clerks]
    rolled = [int(e.text.rsplit("= ", 1)[1]) for e in out.events if " 3d6: " in e.text]
    assert len(rolled) == 15  # 3d6 down the line, for each
    assert stats == [[competence(t) for t in rolled[i : i + 5]] for i in (0, 5, 10)]
    assert len({tuple(x) for x in stats}) == 3  # (seed 21: three different clerks)
    assert all(c.sheet.track == 4 for c in clerks)
    again = session(tmp_path, "new facility Lab seed=21", "add from=clerk count=3")
    assert again.encounter.combatants == clerks


# -- in the app ---------------------------------------------------------------------------------


async def test_the_gm_types_add_from_a_template_in_the_app(
    tmp_path: Path, make_app: AppMaker
) -> None:
    from facility_tui.screens.main import MainScreen
    from facility_tui.screens.widgets.command_bar import CommandBar
    from textual.widgets._toast import Toast

    from tests.app.test_config import choose

    write(tmp_path, "guard", GUARD)
    app = make_app()
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await pilot.pause()
        before = len(app.workspace.encounter.combatants)
        await pilot.press("colon", *"add guard from=guard count=3", "enter")
        await pilot.pause()
        added = app.workspace.encounter.combatants[before:]
        assert [c.name for c in added] == ["guard 1", "guard 2", "guard 3"]
        assert all(c.sheet.hlt == 20 for c in added)
        await pilot.press("u")  # one step, undone at once
        await pilot.pause()
        assert len(app.workspace.encounter.combatants) == before
        # a typo: one line naming the nearest, nothing changed
        await pilot.press("colon", *"add from=gaurd", "enter")
        await pilot.pause()
        shown = " ".join(str(t.render()) for t in app.screen.query(Toast))
        assert "no template 'gaurd': the nearest are guard" in shown
        assert len(app.workspace.encounter.combatants) == before
        await pilot.press("escape")
        # saving one says so and is no step of the fight
        steps = len(app.workspace.session.undo_steps)
        await pilot.press("colon", *"template save #1 first", "enter")
        await pilot.pause()
        shown = " ".join(str(t.render()) for t in app.screen.query(Toast))
        assert "templates/first.toml" in shown
        assert len(app.workspace.session.undo_steps) == steps
        # the palette lists the templates: choosing one starts the add line
        await choose(pilot, "Add from template guard")
        assert isinstance(app.screen, MainScreen)
        assert app.screen.query_one(CommandBar).value == "add from=guard "


def test_the_docs_examples_are_templates_that_add(tmp_path: Path) -> None:
    doc = (ROOT / "docs" / "templates.md").read_text("utf-8")
    examples = re.findall(r"```toml\n# templates/(\S+)\.toml\n(.*?)```", doc, re.S)
    assert len(examples) == 2
    for name, text in examples:
        write(tmp_path, name, text)
        system = re.search(r'system = "(\w+)"', text)
        assert system is not None
        s = session(tmp_path, f"new {system.group(1)} X", f"add from={name} count=2")
        assert len(s.encounter.combatants) == 2


def test_from_completes_a_template_name(tmp_path: Path) -> None:
    """tab after from=: the campaign's template names, as far as those that fit agree."""
    from facility_tui.campaign.templates import complete

    for name in ("guard", "guard-captain", "drone"):
        (tmp_path / "templates").mkdir(exist_ok=True)
        (tmp_path / "templates" / f"{name}.toml").write_text('name = "x"\n', encoding="utf-8")
    campaign = Campaign(tmp_path)
    assert complete("add from=d", campaign) == "add from=drone"
    assert complete("add Bob from=gu", campaign) == "add Bob from=guard"
    assert complete("add Bob from=guard", campaign) is None  # two fit: nothing more to add
    assert complete("add Bob from=guard-", campaign) == "add Bob from=guard-captain"
    assert complete('add from="dr', campaign) == 'add from="drone"'
    assert complete("add from=x", campaign) is None
    assert complete("add Bob hlt=3", campaign) is None
    assert complete("add from=d", None) is None


# -- every field add's line gives reaches a template ---------------------------------------------

# A value for each option of add's line (a new option must be given one here: the test below
# reads which options the rules' add takes, and walks every one).
ADD_OPTIONS = {
    "2297": {
        "ag": "2",
        "cu": "1",
        "hlt": "24",
        "sta": "18",
        "edge": "1",
        "dice": "2",
        "skill": "11",
        "dodge": "9",
        "parry": "7",
        "armor": "'Vest 15/20'",
        "weapon": "'SMG 3d6+1 SA/BF 30'",
        "aware": "partial",
    },
    "facility": {
        "phy": "2",
        "sci": "-1",
        "ins": "1",
        "adm": "-2",
        "nor": "3",
        "roll": "3d6",
        "train": "plus2:nor>adm",
        "exp": "phy,armor",
        "job": "tech",
        "track": "5",
        "ppe": "'Hard Hat'",
        "saves": "1,0,0,2,0",
        "weapon": "pistol",
        "parts": "4",
        "clearance": "2",
    },
}
# add's own options that are a combatant's fields (count and from make none; init= where the
# rules give each combatant an initiative: Facility's sides take turns, F7)
LINE = {"2297": {"side": "pc", "init": "1d6+3"}, "facility": {"side": "pc"}}


def _add_options(system: str) -> set[str]:
    """The options the rules' add reads (what a sheet is built from), and add's own."""
    from facility_tui.commands.dice import Dice
    from facility_tui.commands.grammar import Parsed
    from facility_tui.commands.spec import Call, Spec
    from facility_tui.model.encounter import Encounter
    from facility_tui.systems import rules_for

    rules = rules_for(system)
    spec = Spec("add", "add", "", lambda call: call.enc)
    enc = Encounter("", system, state=rules.new_state())
    call = Call(spec, Parsed("add", (), (("-", "-"),)), enc, Dice(0, 0), rules)
    rules.new_sheet(call)
    return call._used - ({"init"} if rules.info.side_initiative else set()) | set(LINE[system])


@pytest.mark.parametrize("system", ["2297", "facility"])
def test_every_field_add_gives_comes_back_from_its_template(tmp_path: Path, system: str) -> None:
    """Each option of add's line, with the combatant's other lasting fields (a note hidden
    from the players): template save keeps it, add from= gives it back (the initiative dice
    as typed, rolled again)."""
    options = {**ADD_OPTIONS[system], **LINE[system]}
    assert set(options) == _add_options(system)  # every one walked
    for key, value in options.items():
        side = "" if key == "side" else " side=pc"
        line = f"add Guard {key}={value}{side}"
        s = session(
            tmp_path, f"new {system} Deck seed=4", line, "note guard weak", "hide guard note"
        )
        kept = s.encounter.get("guard")
        s.execute(f"template save guard {key} force")
        s.execute(f"add Second from={key}")
        added = s.encounter.get("second")
        assert same_but_added(evolve(added, name="Guard"), kept), (key, added, kept)
        if key == "init":
            assert added.init == "1d6+3" and "init" in s.encounter.log[-2].text


def test_an_option_add_does_not_take_names_the_line_that_sets_it(tmp_path: Path) -> None:
    """F11 items are set on a sheet once added (``sheet WHO items=``): add's refusal says so,
    changing nothing, and the sheet's log line names what it carries."""
    s = session(tmp_path, "new facility Lab seed=4", "add Ana side=pc")
    before = s.encounter
    with pytest.raises(CommandError) as refused:
        s.execute("add Bo items=Toolbox")
    said = str(refused.value)
    assert said.startswith("'add' does not take items= (sheet WHO items=A,B sets it); usage:")
    assert s.encounter is before
    s.execute('sheet ana items="Fanny Pack, Toolbox"')
    assert s.encounter.log[-1].text == ("Ana's sheet set by the GM: items=Fanny Pack, Toolbox")
