"""The party (issue 24): party.toml keeps the PCs between fights, with their lasting state; a
fight starts with them (party join), hands them back (party return), they rest and heal by the
rules between fights, and every change to the roster is undone by party undo."""

from __future__ import annotations

import contextlib
import errno
import os
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from facility_tui import store
from facility_tui.campaign import roster
from facility_tui.campaign.folder import Campaign, CampaignError
from facility_tui.campaign.party import load, parse_party
from facility_tui.commands.grammar import CommandError
from facility_tui.commands.session import Session
from facility_tui.model.encounter import Phase
from facility_tui.systems import rules_for
from facility_tui.systems.facility.sheet import FacilitySheet
from facility_tui.systems.r2297.rules import Level
from facility_tui.systems.r2297.sheet import EKind, Sheet2297
from facility_tui.workspace import Workspace

BLANC = (
    'add "Sgt. Blanc" side=pc ag=3 cu=2 hlt=32 sta=30 edge=2 skill=15 dodge=19 '
    'weapon="FAM-90 5d6+1 SA/BF/AF 60"'
)
CASSART = 'add "Aspirant Cassart" side=pc ag=2 cu=1 hlt=20 sta=22 edge=2 weapon="PAM9 3d6+2 SA 17"'
ANNE = 'add Anne side=pc adm=2 ins=1 phy=1 ppe="Lab Coat, Latex Gloves" weapon=pistol'
DALE = "add Dale side=pc job=tech phy=1 sci=1 weapon=heavy"


def workspace(folder: Path, seed: int = 7) -> Workspace:
    ws = Workspace(folder, seed=seed)
    ws.new_encounter("2297", "placeholder")
    return ws


def run(ws: Workspace, *lines: str) -> None:
    for line in lines:
        ws.execute(line)


def new_fight(ws: Workspace, system: str, name: str) -> None:
    ws.new_encounter(system, name)


def pc(ws: Workspace, name: str) -> object:
    return next(c for c in ws.encounter.combatants if c.name == name).sheet


def roster_sheet(folder: Path, name: str) -> object:
    return next(m.pc.sheet for m in load(Campaign(folder)) if m.pc.name == name)


# -- 2297 --------------------------------------------------------------------------------------


def test_a_2297_party_through_two_fights_healed_between(tmp_path: Path) -> None:
    ws = workspace(tmp_path)
    new_fight(ws, "2297", "Cargo bay")
    run(ws, BLANC, CASSART, "add Boarder init=5 hlt=20", "start")
    run(ws, "attack blanc boarder mode=SA", "hit cassart 9", "soak cassart", "hit blanc 17")
    run(ws, "end")
    blanc, cassart = pc(ws, "Sgt. Blanc"), pc(ws, "Aspirant Cassart")
    assert isinstance(blanc, Sheet2297) and isinstance(cassart, Sheet2297)
    assert blanc.weapons[0].ammo == 57 and blanc.damage == 17 and blanc.level is Level.SERIOUS
    assert cassart.edge == 1 and cassart.injuries[0].soaked
    run(ws, "party add blanc", "party add cassart")
    # the roster holds what lasts, and not what belonged to the fight
    kept = roster_sheet(tmp_path, "Sgt. Blanc")
    assert isinstance(kept, Sheet2297)
    assert (kept.damage, kept.fatigue, kept.weapons[0].ammo) == (17, blanc.fatigue, 57)
    assert kept.level is Level.SERIOUS and not kept.rolled and kept.spent_major == 0
    assert any(e.kind is EKind.BLEED for e in kept.effects)  # A7 Serious: its bleeding timer
    cassart = rules_for("2297").carry.lasting(cassart)
    assert cassart.edge == 1 and not cassart.rolled  # Edge spent lasts; its initiative not
    assert roster_sheet(tmp_path, "Aspirant Cassart") == cassart

    # between fights: first aid (A10) on Blanc's Serious injury, a long rest for all (A9)
    run(ws, "party heal aid blanc 26", "party rest")
    healed = roster_sheet(tmp_path, "Sgt. Blanc")
    assert isinstance(healed, Sheet2297)
    assert healed.level is Level.MODERATE and healed.fatigue == 0
    assert not any(e.kind is EKind.BLEED for e in healed.effects)  # first aid stops it

    # fight two: the party joins a prepared fight and carries all of it
    new_fight(ws, "2297", "Bridge")
    run(ws, "add Chief init=3", "party join")
    assert ws.encounter.phase is Phase.SETUP
    joined = pc(ws, "Sgt. Blanc")
    assert joined == healed
    rested = roster_sheet(tmp_path, "Aspirant Cassart")
    assert isinstance(rested, Sheet2297) and rested.fatigue == 0 and rested.long_rests == 1
    assert pc(ws, "Aspirant Cassart") == rested
    run(ws, "start", "attack blanc chief mode=SA", "hit cassart 4", "end")
    assert ws.execute("party return").message.startswith("Party: 2 PCs handed back")
    after = roster_sheet(tmp_path, "Sgt. Blanc")
    assert isinstance(after, Sheet2297) and after.weapons[0].ammo == 54
    assert after.level is Level.MODERATE  # the injury and its first aid, still there
    later = roster_sheet(tmp_path, "Aspirant Cassart")
    assert isinstance(later, Sheet2297) and later.damage == rested.damage + 4


def test_join_takes_some_or_all_only_in_setup_and_never_twice(tmp_path: Path) -> None:
    ws = workspace(tmp_path)
    new_fight(ws, "2297", "One")
    run(ws, BLANC, CASSART, "party add blanc", "party add cassart")
    new_fight(ws, "2297", "Two")
    run(ws, "party join cass")
    assert [c.name for c in ws.encounter.combatants] == ["Aspirant Cassart"]
    with pytest.raises(CommandError, match="already in this fight"):
        ws.execute("party join")
    with pytest.raises(CommandError, match="no 2297 PC called 'zed'"):
        ws.execute("party join zed")
    run(ws, "party join blanc", "start")
    with pytest.raises(CommandError, match="works in setup"):
        ws.execute("party join")
    new_fight(ws, "facility", "Three")
    with pytest.raises(CommandError, match="no facility PC"):
        ws.execute("party join")


def test_a_join_is_recorded_undo_redo_and_reload_never_read_the_roster_again(
    tmp_path: Path,
) -> None:
    ws = workspace(tmp_path)
    new_fight(ws, "2297", "One")
    run(ws, BLANC, "hit blanc 9", "party add blanc")
    new_fight(ws, "2297", "Two")
    run(ws, "party join", "add Boarder")
    joined = ws.encounter
    (tmp_path / "party.toml").write_text("", encoding="utf-8")  # the roster is emptied
    run(ws, "undo", "undo", "redo", "redo")
    assert ws.encounter == joined
    ws.save()
    assert store.load(ws.path).encounter == joined


# -- Facility ----------------------------------------------------------------------------------


def test_a_facility_party_through_two_fights_healed_between(tmp_path: Path) -> None:
    ws = workspace(tmp_path)
    new_fight(ws, "facility", "Lockdown")
    run(ws, ANNE, DALE, "add Drone track=4 saves=1,0,0,2,0", "start help=dale")
    run(ws, "harm anne 2 contaminants save=fail", "ablate anne gloves")  # a PPE mark
    run(ws, "wound dale 4 phy", "scar dale phy", "wound anne 1 ins")  # a scar, wounds
    run(ws, "set anne empty pistol", "end")
    anne, dale = pc(ws, "Anne"), pc(ws, "Dale")
    assert isinstance(anne, FacilitySheet) and isinstance(dale, FacilitySheet)
    assert any(p.marks for p in anne.ppe) and anne.empty == ("pistol",)
    assert dale.phy.scars == 1 and anne.ins.wounds == 1
    run(ws, "party add anne", "party add dale")
    kept = roster_sheet(tmp_path, "Anne")
    assert kept == _unmarked(anne)

    # between fights: Break for Anne (F9), then a Shift for all
    run(ws, "party heal break anne ins d20=15", "party rest")
    healed = roster_sheet(tmp_path, "Anne")
    assert isinstance(healed, FacilitySheet) and healed.ins.wounds == 0
    assert [p.marks for p in healed.ppe] == [p.marks for p in anne.ppe]  # PPE marks stay
    dale_healed = roster_sheet(tmp_path, "Dale")
    assert isinstance(dale_healed, FacilitySheet) and dale_healed.phy.scars == 1  # never heals

    new_fight(ws, "facility", "Second shift")
    run(ws, "add Drone track=4", "party join")
    assert pc(ws, "Anne") == healed and pc(ws, "Dale") == dale_healed
    run(ws, "start", "wound dale 1 sci", "end")
    run(ws, "party return")
    final = roster_sheet(tmp_path, "Dale")
    assert isinstance(final, FacilitySheet)
    assert (final.sci.wounds, final.phy.scars) == (dale_healed.sci.wounds + 1, 1)
    assert roster_sheet(tmp_path, "Anne") == healed  # unchanged: nothing handed back for her


def _unmarked(sheet: FacilitySheet) -> FacilitySheet:
    from attrs import evolve

    return evolve(sheet, attack_used=False, other_used=False)


# -- the hand-back and its undo ------------------------------------------------------------------


def test_return_skips_and_undo_redo_across_the_hand_back(tmp_path: Path) -> None:
    ws = workspace(tmp_path)
    new_fight(ws, "2297", "One")
    run(ws, BLANC, CASSART, "party add blanc", "party add cassart")
    before = (tmp_path / "party.toml").read_text(encoding="utf-8")
    run(ws, "hit blanc 9", "hit cassart 3", "end")
    changes = roster.returns(Campaign(tmp_path), ws.encounter)
    assert [c.name for c in changes] == ["Sgt. Blanc", "Aspirant Cassart"]
    assert any(line.startswith("damage 0 → 9") for line in changes[0].lines)
    run(ws, "party return skip=cassart")
    assert isinstance(blanc := roster_sheet(tmp_path, "Sgt. Blanc"), Sheet2297)
    assert blanc.damage == 9
    assert isinstance(cassart := roster_sheet(tmp_path, "Aspirant Cassart"), Sheet2297)
    assert cassart.damage == 0
    returned = (tmp_path / "party.toml").read_text(encoding="utf-8")
    assert ws.execute("party undo").message == "Party: undid party return (Sgt. Blanc)"
    assert (tmp_path / "party.toml").read_text(encoding="utf-8") == before
    run(ws, "party redo")
    assert (tmp_path / "party.toml").read_text(encoding="utf-8") == returned
    run(ws, "party undo", "party undo", "party undo")  # back before the roster existed
    assert not (tmp_path / "party.toml").exists()
    with pytest.raises(CommandError, match="nothing to undo in the party"):
        ws.execute("party undo")
    run(ws, "party redo", "party redo", "party redo")
    assert (tmp_path / "party.toml").read_text(encoding="utf-8") == returned
    assert ws.execute(
        "party return"
    ).message == "Party: 1 PC handed back (party undo takes it back) — " + (
        "Aspirant Cassart: damage 0 → 3; fatigue 0 → 3; injuries: light (was none); effects: "
        "Light injury (init), Light injury (disadvantage) (was none)"
    )


def test_a_hand_edit_undone_is_kept_for_redo(tmp_path: Path) -> None:
    ws = workspace(tmp_path)
    new_fight(ws, "2297", "One")
    run(ws, BLANC, "party add blanc")
    edited = (tmp_path / "party.toml").read_text(encoding="utf-8").replace("hlt = 32", "hlt = 40")
    (tmp_path / "party.toml").write_text(edited, encoding="utf-8")
    run(ws, "party undo")  # the add goes; the hand edit waits in redo
    run(ws, "party redo")
    assert (tmp_path / "party.toml").read_text(encoding="utf-8") == edited


def test_apply_runs_party_lines_all_or_none(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from facility_tui.cli import main

    save = tmp_path / "one.toml"
    assert main(["apply", str(save), "--seed", "3", "new 2297 One", BLANC, "party add blanc"]) == 0
    before = (tmp_path / "party.toml").read_text(encoding="utf-8")
    kept = sorted(p.name for p in (tmp_path / ".party.d").iterdir())
    assert main(["apply", str(save), "hit blanc 5", "party return", "hit nobody 3"]) == 1
    assert (tmp_path / "party.toml").read_text(encoding="utf-8") == before
    assert sorted(p.name for p in (tmp_path / ".party.d").iterdir()) == kept
    assert main(["apply", str(save), "hit blanc 5", "end", "party return"]) == 0
    out = capsys.readouterr().out
    assert "Party: 1 PC handed back (party undo takes it back) — Sgt. Blanc: damage 0 → 5" in out


# -- a hand-written party.toml ------------------------------------------------------------------

GOOD = """\
[[pc]]
system = "2297"
name = "Sgt. Blanc"

[pc.sheet]
hlt = 32
edge = 2

[[pc]]
system = "facility"
name = "Anne"

[pc.sheet.phy]
bonus = 1
wounds = 2
"""


@pytest.mark.parametrize(
    ("old", "new", "line", "says"),
    [
        ("hlt = 32", 'hlt = "ten"', 6, "pc[0].sheet.hlt: expected a whole number, got 'ten'"),
        ("hlt = 32", "hlt = 0", 6, "pc[0].sheet.hlt: must be at least 1"),
        ("edge = 2", "edges = 2", 7, "pc[0].sheet.edges: unknown key"),
        ('system = "facility"', 'system = "dnd"', 10, "pc[1].system: must be 2297 or facility"),
        ('name = "Anne"', 'name = "Sgt. Blanc"\nsystem2 = 1', 12, "pc[1].system2: unknown key"),
        ("wounds = 2", "wounds = -1", 15, "pc[1].sheet.phy.wounds"),
        ('name = "Sgt. Blanc"', "name = 3", 3, "pc[0].name: must be the PC's name, got 3"),
        ("hlt = 32", "hlt = 32\n[oops]", 7, "oops: unknown key"),
        ("edge = 2", "edge = 2 2", 7, "not TOML"),
    ],
)
def test_a_hand_written_party_with_a_mistake_is_refused_with_its_line(
    tmp_path: Path, old: str, new: str, line: int, says: str
) -> None:
    assert [m.pc.name for m in parse_party(GOOD)] == ["Sgt. Blanc", "Anne"]
    text = GOOD.replace(old, new, 1)
    with pytest.raises(CampaignError) as err:
        parse_party(text, "party.toml")
    assert str(err.value).startswith(f"party.toml:{line}: "), str(err.value)
    assert says in str(err.value)
    (tmp_path / "party.toml").write_text(text, encoding="utf-8")
    ws = workspace(tmp_path)
    with pytest.raises(CommandError, match=f"party.toml:{line}: ") as refused:
        ws.execute("party join")
    assert "\n" not in str(refused.value)


def test_two_pcs_of_one_name_in_a_system_are_refused(tmp_path: Path) -> None:
    text = GOOD + '\n[[pc]]\nsystem = "2297"\nname = "sgt. blanc"\n'
    with pytest.raises(CampaignError, match=r"party.toml:19: pc\[2\].name: a second 2297 PC"):
        parse_party(text, "party.toml")
    with pytest.raises(CampaignError, match=r"party.toml:1: pc\[0\]: must be a \[\[pc\]\] table"):
        parse_party("pc = [1, 2]\n", "party.toml")
    with pytest.raises(CampaignError, match=r"party.toml:1: pc: must be \[\[pc\]\] tables"):
        parse_party("pc = 3\n", "party.toml")


def test_a_read_only_folder_refuses_the_change_in_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A read-only file system (EROFS): nothing can be created, replaced or removed there."""
    ws = workspace(tmp_path)
    new_fight(ws, "2297", "One")
    run(ws, BLANC, "party add blanc", "hit blanc 8", "end")
    before = (tmp_path / "party.toml").read_bytes()
    kept = sorted(p.name for p in (tmp_path / ".party.d").iterdir())
    real_open = os.open

    def refuse(*args: object, **kwargs: object) -> None:
        raise OSError(errno.EROFS, os.strerror(errno.EROFS))

    def read_only_open(path: str, flags: int, *args: int, **kwargs: int) -> int:
        if flags & (os.O_CREAT | os.O_WRONLY | os.O_RDWR):
            refuse()
        return real_open(path, flags, *args, **kwargs)

    monkeypatch.setattr(os, "open", read_only_open)
    for name in ("mkdir", "replace", "unlink", "rename"):
        monkeypatch.setattr(os, name, refuse)
    for line in ("party return", "party undo", "party rest", "party add blanc 2"):
        with pytest.raises(CommandError) as err:
            ws.execute(line)
        message = str(err.value)
        assert "\n" not in message
        if line != "party add blanc 2":  # (no such PC: refused before any write)
            assert message.startswith(f"could not save {tmp_path / 'party.toml'}: "), message
            assert "the disk is read-only" in message and "the party was not changed" in message
    monkeypatch.undo()
    assert (tmp_path / "party.toml").read_bytes() == before
    assert sorted(p.name for p in (tmp_path / ".party.d").iterdir()) == kept


def test_party_lists_the_roster(tmp_path: Path) -> None:
    ws = workspace(tmp_path)
    assert "The party is empty" in ws.execute("party").message
    new_fight(ws, "2297", "One")
    run(ws, BLANC, "hit blanc 9", "party add blanc")
    assert ws.execute("party list").message == "Party: Sgt. Blanc (2297, Moderate)"
    with pytest.raises(CommandError, match="already in the party"):
        ws.execute("party add blanc")


def test_a_session_without_a_campaign_says_so() -> None:
    s = Session(store.fresh_session().encounter)
    with pytest.raises(CommandError, match="no campaign folder"):
        s.execute("party join")
    with pytest.raises(CommandError, match="no campaign folder"):
        s.execute("party list")


def test_every_party_line_takes_the_one_route_of_a_typed_line(tmp_path: Path) -> None:
    """A session runs the roster's lines as it runs any line, through the command table (the
    app's, apply's and a test's session alike): beside the fight, in party.toml with its own
    undo, no step of the fight's history; ``dice=`` goes to the rules' command a heal runs."""
    s = Session(store.fresh_session().encounter)
    s.campaign = Campaign(tmp_path)
    for line in ("new 2297 One seed=3", BLANC, "hit blanc 9"):
        s.execute(line)
    fight, steps = s.encounter, len(s.undo_steps)
    assert s.execute("party add blanc").message == (
        "Sgt. Blanc joins the party (2297); party undo takes it back"
    )
    assert s.execute("party").message == "Party: Sgt. Blanc (2297, Moderate)"
    said = s.execute("party heal heal blanc 2d6 dice=3,4").message
    assert said.startswith("Party: ") and "(3, 4) = 7 (typed)" in said, said
    blanc = roster_sheet(tmp_path, "Sgt. Blanc")
    assert isinstance(blanc, Sheet2297) and blanc.damage == 2
    assert s.execute("party undo").message == "Party: undid party heal (Sgt. Blanc)"
    assert s.encounter is fight and len(s.undo_steps) == steps  # the fight as it was
    s.execute("undo")  # the fight's own undo takes back its own last step
    assert s.encounter.get("sgt-blanc").sheet.damage == 0


def test_a_party_line_with_words_too_many_is_refused_in_one_line(tmp_path: Path) -> None:
    ws = workspace(tmp_path)
    for line, says in (
        ("party x=1", "unexpected 'x=1' after 'party list'"),  # (it was a bug: an IndexError)
        ("party list blanc", "unexpected 'blanc' after 'party list'"),
        ("party undo all", "unexpected 'all' after 'party undo'"),
        ("party nap", "unknown 'party nap': use join, list, add, return, rest, heal, undo or"),
    ):
        with pytest.raises(CommandError) as refused:
            ws.execute(line)
        assert str(refused.value).startswith(says), refused.value
    assert not (tmp_path / "party.toml").exists()


# -- return then join is the identity on what lasts ---------------------------------------------

ACTIONS = {
    "2297": (
        "next",
        "hit blanc 6",
        "hit blanc 14",
        "hit blanc 30",
        "hit blanc 5 stun",
        "soak blanc",
        "attack blanc boarder mode=SA",
        "attack blanc boarder mode=BF",
        "fatigue blanc 7",
        "stim blanc 2",
        "aid blanc 24",
        "boost blanc",
        "major",
        "cond blanc Prone",
        "cond blanc Pinned by=boarder",
        "overwatch blanc",
        "ext blanc Hack 3",
        "reload blanc",
    ),
    "facility": (
        "next",
        "harm anne 2 contaminants save=fail",
        "ablate anne gloves",
        "suffer anne",
        "wound anne 2 phy",
        "wound anne 3 ins",
        "scar anne ins",
        "strike anne drone",
        "deal anne",
        "set anne empty pistol",
        "break anne phy d20=15",
        "fate anne fled",
    ),
}
SETUP = {
    "2297": (BLANC.replace("Sgt. Blanc", "Blanc"), "add Boarder init=5 hlt=20"),
    "facility": (ANNE, "add Drone track=4"),
}


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    system=st.sampled_from(["2297", "facility"]),
    seed=st.integers(0, 10_000),
    lines=st.lists(st.integers(0, 20), max_size=10),
)
def test_return_then_join_is_the_identity_on_a_pcs_lasting_state(
    system: str, seed: int, lines: list[int]
) -> None:
    actions = ACTIONS[system]
    with tempfile.TemporaryDirectory() as folder:
        campaign = Campaign(Path(folder))
        s = Session(store.fresh_session().encounter)
        s.campaign = campaign
        s.execute(f"new {system} One seed={seed}")
        for line in SETUP[system]:
            s.execute(line)
        for line in ("start", *(actions[i % len(actions)] for i in lines)):
            with contextlib.suppress(CommandError):
                s.execute(line)
        pc = next(c for c in s.encounter.combatants if c.side == "pcs")
        s.execute(f"party add {pc.id}")
        kept = load(campaign)[0].pc
        rules = rules_for(system)
        assert kept.sheet == rules.carry.lasting(pc.sheet) == rules.carry.lasting(kept.sheet)
        s.execute(f"new {system} Two seed={seed}")
        s.execute("party join")
        joined = s.encounter.combatants[0]
        assert joined.sheet == kept.sheet and joined.name == pc.name
        assert roster.returns(campaign, s.encounter) == []  # nothing to hand back
        fresh = rules.sheet_type()
        for name in ("rolled", "spent_major", "boost_pending", "ext_total", "attack_used", "fate"):
            if hasattr(fresh, name):  # what belonged to the first fight only
                assert getattr(joined.sheet, name) == getattr(fresh, name)
        if system == "2297":
            assert not any(e.by or e.combat for e in joined.sheet.effects)
        text = campaign.party.read_text(encoding="utf-8")
        assert s.execute("party return").message == ("Party: nothing to hand back")
        assert campaign.party.read_text(encoding="utf-8") == text


def test_a_fight_prepared_ahead_with_apply_stays_in_setup_and_starts_later(tmp_path: Path) -> None:
    from facility_tui.cli import main

    one = tmp_path / "one.toml"
    assert main(["apply", str(one), "--seed", "3", "-q", "new 2297 One", BLANC, CASSART]) == 0
    assert main(["apply", str(one), "-q", "party add blanc", "party add cassart"]) == 0
    ambush = tmp_path / "ambush.toml"
    prepare = [
        'new 2297 "Ambush at the airlock"',
        'add Boarder count=3 init=1d6+5 hlt=20 armor="Vacsuit 10/20"',
        "party join",
    ]
    assert main(["apply", str(ambush), "--seed", "4", "-q", *prepare]) == 0
    prepared = store.load(ambush).encounter
    assert prepared.phase is Phase.SETUP
    assert [c.name for c in prepared.combatants][-2:] == ["Sgt. Blanc", "Aspirant Cassart"]
    (tmp_path / "party.toml").unlink()  # the fight keeps the PCs it read
    assert main(["apply", str(ambush), "-q", "start", "hit blanc 5", "end"]) == 0
    assert store.load(ambush).encounter.phase is Phase.ENDED
    assert main(["validate", str(tmp_path)]) == 0


def test_validate_checks_the_party_with_its_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from facility_tui.cli import main

    party_file = tmp_path / "party.toml"
    party_file.write_text(GOOD, encoding="utf-8")
    assert main(["validate", str(tmp_path)]) == 0
    party_file.write_text(GOOD.replace("hlt = 32", 'hlt = "ten"'), encoding="utf-8")
    capsys.readouterr()
    assert main(["validate", str(tmp_path)]) == 1
    assert capsys.readouterr().out == (
        f"{party_file}:6: pc[0].sheet.hlt: expected a whole number, got 'ten'\n"
    )


def test_only_a_pc_joins_the_party(tmp_path: Path) -> None:
    ws = workspace(tmp_path)
    new_fight(ws, "2297", "One")
    run(ws, "add Boarder")
    with pytest.raises(CommandError, match="Boarder is not on the PC side"):
        ws.execute("party add boarder")
    assert not (tmp_path / "party.toml").exists()


def test_the_command_line_says_who_joins_and_what_returning_changes(tmp_path: Path) -> None:
    ws = workspace(tmp_path)
    new_fight(ws, "2297", "One")
    run(ws, BLANC, CASSART, "hit cassart 3", "party add blanc", "party add cassart")
    new_fight(ws, "2297", "Two")
    assert ws.preview("party join") == ["joins: Sgt. Blanc (unhurt), Aspirant Cassart (Light)"]
    assert ws.preview("party join blanc") == ["joins: Sgt. Blanc (unhurt)"]
    run(ws, "party join", "hit blanc 4")
    assert ws.preview("party return") == [
        "Sgt. Blanc: damage 0 → 4; fatigue 0 → 3; injuries: light (was none); effects: "
        "Light injury (init), Light injury (disadvantage) (was none)"
    ]
    (tmp_path / "party.toml").write_text("[[pc]]\nsystem = 1\n", encoding="utf-8")
    assert ws.preview("party return") == [
        f"{tmp_path / 'party.toml'}:2: pc[0].system: must be 2297 or facility, got 1"
    ]


def test_rest_and_heal_reach_the_other_rules_party_with_system(tmp_path: Path) -> None:
    (tmp_path / "party.toml").write_text(GOOD, encoding="utf-8")  # Blanc (2297), Anne (Facility)
    ws = workspace(tmp_path)
    new_fight(ws, "2297", "One")
    assert ws.execute("party rest system=facility").message == "Party: Shift: Anne heals 1 wound"
    anne = roster_sheet(tmp_path, "Anne")
    assert isinstance(anne, FacilitySheet) and anne.phy.wounds == 1
    run(ws, "party heal break anne phy d20=15")  # Facility's alone: the Facility party's
    anne = roster_sheet(tmp_path, "Anne")
    assert isinstance(anne, FacilitySheet) and anne.phy.wounds == 0
    blanc = roster_sheet(tmp_path, "Sgt. Blanc")
    assert isinstance(blanc, Sheet2297) and blanc.long_rests == 0  # the 2297 party untouched
    with pytest.raises(CommandError, match="the party has no dnd PC"):
        ws.execute("party rest system=dnd")


# -- the party's words are the tracker's ---------------------------------------------------------


@pytest.mark.parametrize(
    ("lines", "word"),
    [
        (("set blanc injury serious effects=no",), "Serious"),
        (("set blanc injury serious effects=no", "set blanc damage 40"), "Incapacitated"),
        (("set blanc injury serious effects=no", "set blanc fatigue 30"), "Exhausted"),
        (
            ("set blanc injury serious effects=no", "set blanc damage 40", "set blanc fatigue 30"),
            "Incapacitated",
        ),
        (("set blanc fatigue 60",), "uncons."),
        (("set blanc dead yes",), "dead"),
    ],
)
def test_the_party_list_says_the_worst_state_in_the_lists_words(
    tmp_path: Path, lines: tuple[str, ...], word: str
) -> None:
    """Down, Incapacitated (damage at Health) and Exhausted beat an injury level, as the
    tracker's own state word says them (the report's and the forecast's too)."""
    ws = workspace(tmp_path)
    new_fight(ws, "2297", "One")
    run(ws, BLANC, *lines)
    blanc = ws.encounter.combatants[0]
    assert rules_for("2297").view.state_word(ws.encounter, blanc) == word
    run(ws, "party add blanc")
    assert ws.execute("party list").message == f"Party: Sgt. Blanc (2297, {word})"
    new_fight(ws, "2297", "Two")
    assert ws.preview("party join") == [f"joins: Sgt. Blanc ({word})"]


def test_a_carried_injury_does_not_read_as_a_round_of_the_new_fight(tmp_path: Path) -> None:
    ws = workspace(tmp_path)
    new_fight(ws, "2297", "One")
    run(ws, BLANC, "add Boarder init=1", "start", "next", "next", "hit blanc 16")
    assert ws.encounter.round == 2
    run(ws, "end", "party add blanc")
    new_fight(ws, "2297", "Two")
    run(ws, "add Boarder init=1", "party join", "start")
    blanc = next(c for c in ws.encounter.combatants if c.name == "Sgt. Blanc")
    rows = [r for p in rules_for("2297").view.panes(ws.encounter, blanc) for r in p.rows]
    said = [r.text for r in rows if r.label.startswith("Injury")]
    assert said == ["Serious (before this fight, 16 damage), first aid TN 25"]
    assert [r.text for r in rows if r.label == "Level"] == ["Serious (before this fight)"]
    # a hand-written roster from before keeps no round of its fight either
    text = (tmp_path / "party.toml").read_text(encoding="utf-8")
    assert "round = " not in text
    (tmp_path / "party.toml").write_text(text.replace("id = 1\n", "id = 1\nround = 2\n"))
    assert load(Campaign(tmp_path))[0].pc.sheet.injuries[0].round == 0


# -- a fight older than the roster ---------------------------------------------------------------


def _cargo_bay_then_airlock(tmp_path: Path) -> tuple[Workspace, Path]:
    """Cargo Bay was prepared with the party, then Airlock was fought and handed back: Cargo
    Bay's PCs are older than the roster."""
    ws = workspace(tmp_path)
    new_fight(ws, "2297", "Before")
    run(ws, BLANC, CASSART, "hit blanc 12", "party add blanc", "party add cassart")
    new_fight(ws, "2297", "Cargo Bay")
    run(ws, "add Boarder init=3", "party join")
    cargo_bay = ws.path
    ws.save()
    new_fight(ws, "2297", "Airlock")
    run(ws, "add Boarder init=3", "party join", "start", "hit blanc 14", "end", "party return")
    ws.save()
    ws.open(cargo_bay)
    run(ws, "start", "hit cassart 2", "end")
    return ws, cargo_bay


def test_a_fight_older_than_the_roster_asks_before_rolling_it_back(tmp_path: Path) -> None:
    ws, _ = _cargo_bay_then_airlock(tmp_path)
    party_file = (tmp_path / "party.toml").read_text(encoding="utf-8")
    found = roster.returns(Campaign(tmp_path), ws.encounter)
    assert [(c.name, c.moved_on) for c in found] == [
        ("Sgt. Blanc", True),  # Airlock handed it back since Cargo Bay took it
        ("Aspirant Cassart", False),  # as Cargo Bay took it: its own change goes back
    ]
    said = ws.preview("party return")
    assert said[0] == (
        "the roster has moved on since this fight took its party (Sgt. Blanc): "
        "party return force hands this fight's state back over it"
    )
    with pytest.raises(CommandError) as refused:
        ws.execute("party return")
    assert str(refused.value) == said[0]
    assert (tmp_path / "party.toml").read_text(encoding="utf-8") == party_file  # nothing changed
    # the PC it took as it was goes back alone; force hands the other back over the roster
    assert ws.execute("party return cassart").message.startswith("Party: 1 PC handed back")
    assert ws.preview("party return force")[0] == (
        "force: this fight's state replaces the roster's later one (Sgt. Blanc)"
    )
    run(ws, "party return force")
    blanc = roster_sheet(tmp_path, "Sgt. Blanc")
    assert isinstance(blanc, Sheet2297) and blanc.damage == 12


def test_a_fight_that_joined_the_roster_as_it_stands_hands_back_unasked(tmp_path: Path) -> None:
    ws, _ = _cargo_bay_then_airlock(tmp_path)
    new_fight(ws, "2297", "Bridge")  # joins after Airlock's hand-back
    run(ws, "add Boarder init=3", "party join", "start", "hit blanc 1", "end")
    assert [c.moved_on for c in roster.returns(Campaign(tmp_path), ws.encounter)] == [False]
    assert not ws.preview("party return")[0].startswith("the roster has moved on")
    run(ws, "party return")


def test_apply_refuses_rolling_the_roster_back_in_one_line_naming_force(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from facility_tui.cli import main

    ws, cargo_bay = _cargo_bay_then_airlock(tmp_path)
    ws.save()
    ws.close()
    party_file = (tmp_path / "party.toml").read_text(encoding="utf-8")
    capsys.readouterr()
    assert main(["apply", str(cargo_bay), "party return"]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "party return force" in err, err
    assert (tmp_path / "party.toml").read_text(encoding="utf-8") == party_file
    assert main(["apply", str(cargo_bay), "-q", "party return force"]) == 0
    assert (tmp_path / "party.toml").read_text(encoding="utf-8") != party_file


def test_every_lasting_field_of_a_pc_reaches_the_roster_and_back(tmp_path: Path) -> None:
    """Every field of a combatant that no one fight owns (``model.FIGHT_FIELDS``) goes to
    party.toml and joins again: its initiative dice as its add line gave them (rolled again
    as it joins), its note and whether the players may read it."""
    import attrs

    from facility_tui.model.encounter import FIGHT_FIELDS, Combatant

    ws = workspace(tmp_path)
    new_fight(ws, "2297", "One")
    run(ws, f"{BLANC} init=1d6+3", "note blanc limps", "hide blanc note", "party add blanc")
    first = ws.encounter.get("sgt-blanc")
    text = (tmp_path / "party.toml").read_text(encoding="utf-8")
    assert 'init = "1d6+3"' in text and "notes_hidden = true" in text
    new_fight(ws, "2297", "Two")
    run(ws, "party join")
    joined = ws.encounter.get("sgt-blanc")
    assert ws.encounter.log[-1].text.startswith("Sgt. Blanc initiative: 1d6 (")
    assert joined.initiative == int(ws.encounter.log[-1].text.rsplit(" ", 1)[1])
    lasting = [f.name for f in attrs.fields(Combatant) if f.name not in FIGHT_FIELDS]
    assert {"init", "notes", "notes_hidden"} <= set(lasting)
    for name in lasting:
        if name != "sheet":
            assert getattr(joined, name) == getattr(first, name), name
    rules = rules_for("2297")
    assert rules.carry.lasting(joined.sheet) == rules.carry.lasting(first.sheet)
    assert joined.sheet.rolled  # (its initiative rolled as add's is: not again at the start)
    assert roster.returns(Campaign(tmp_path), ws.encounter) == []  # nothing changed
    (tmp_path / "party.toml").write_text(text.replace('"1d6+3"', '"lots"'), encoding="utf-8")
    with pytest.raises(CampaignError, match=r"party.toml:\d+: pc\[0\].init: must be a whole"):
        load(Campaign(tmp_path))
