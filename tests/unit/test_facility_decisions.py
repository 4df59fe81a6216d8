"""Facility points settled in docs/rules.md by issue 13 (F4, F6, F7, F9, F10), each pinned by a test
named after its rule id, played through commands (typed d20s where an outcome matters), and two
2297/Facility checks through the headless CLI (``apply`` then ``show --json``)."""

from __future__ import annotations

from pathlib import Path

import pytest
from attrs import evolve

from facility_tui.cli import main
from facility_tui.commands.grammar import CommandError
from facility_tui.commands.session import Session
from facility_tui.model.encounter import Kind
from facility_tui.store import blank
from facility_tui.systems.facility.engine import pending_of
from facility_tui.systems.facility.rules import Piece, impaired, impaired_count, save_value
from facility_tui.systems.facility.sheet import FacilitySheet
from tests.conftest import by_id, run, sheet_as, show_json


def session(*lines: str) -> Session:
    s = Session(evolve(blank(), seed=1))
    s.execute("new facility Drill seed=5")
    for line in lines:
        s.execute(line)
    return s


def sheet(s: Session, ref: str) -> FacilitySheet:
    return sheet_as(FacilitySheet, s, ref)


def texts(s: Session) -> list[str]:
    return [e.text for e in s.encounter.log]


def refused(s: Session, line: str, match: str) -> None:
    before = s.encounter
    with pytest.raises(CommandError, match=match):
        s.execute(line)
    assert s.encounter is before


def wounds(s: Session, ref: str) -> tuple[int, ...]:
    sh = sheet(s, ref)
    return (sh.phy.wounds, sh.sci.wounds, sh.ins.wounds, sh.adm.wounds, sh.nor.wounds)


# -- F4 the proposed spill target ----------------------------------------------------------------


def test_F4_proposed_spill_is_the_stat_with_most_room_ties_in_stat_order() -> None:
    # capacities: Physique 3, Science 2, Insight 4, Admin 4, Normal 3
    s = session("add Dee side=pc sci=-1 ins=1 adm=1")
    run(s, "wound dee 4 phy")  # 3 fill Physique; 1 spills: Insight and Admin tie at 4 → Insight
    assert wounds(s, "dee") == (3, 0, 1, 0, 0)
    assert "1 spills onto Insight (proposed; pick with spill=)" in " ".join(texts(s))
    run(s, "wound dee 4 phy")  # all spill: room Sci 2, Ins 3, Adm 4, Nor 3 → Admin
    assert wounds(s, "dee") == (3, 0, 1, 4, 0)
    run(s, "wound dee 2 nor", "wound dee 3 sci")  # Sci full at 2; room Ins 3, Nor 1 → Insight
    assert wounds(s, "dee") == (3, 2, 2, 4, 2)


def test_F4_proposed_spill_skips_a_stat_impaired_by_ppe() -> None:
    s = session('add Eve side=pc nor=3 ppe="Hazmat Suit"')  # Normal has room 6 but is Impaired
    run(s, "wound eve 4 phy")
    assert wounds(s, "eve") == (3, 1, 0, 0, 0)  # Science: first of the tied 3s after Normal


# -- F6 PPE bonuses and impairment -------------------------------------------------------------


def test_F6_earmuffs_on_a_sonic_explosions_save_give_plus_2_once() -> None:
    s = session("add Fay side=pc ppe=Earmuffs")
    assert save_value(sheet(s, "fay"), "explosions", "sonic") == 2
    assert save_value(sheet(s, "fay"), "explosions") == 2
    assert save_value(sheet(s, "fay"), "weapons", "sonic") == 2  # the narrow tag alone
    run(s, "save fay explosions tag=sonic d20=9")
    assert texts(s)[-1] == "Fay saves vs Explosions vs sonic hazards: 9 +2 = 11 vs 12: Failure"


def test_F6_a_piece_that_impairs_keeps_impairing_after_its_marks_reach_its_rating() -> None:
    s = session('add Gus side=pc nor=1 exp=nor ppe="Gas Mask"')
    assert save_value(sheet(s, "gus"), "contaminants") == 3
    run(s, "harm gus 2 explosions d20=1", "ablate gus gas")  # 1 mark = its rating 1
    g = sheet(s, "gus")
    assert g.ppe == (Piece("Gas Mask", 1),)
    assert save_value(g, "contaminants") == 0  # its protection and bonuses stop...
    assert impaired(g, "nor")  # ...its impairment does not
    assert impaired_count(g) == 0  # and it still does not count toward the tallies
    refused(s, "try gus nor exp=yes", "Impaired: no Expertise")
    run(s, "try gus nor d20=2")
    assert pending_of(s.encounter, "gus") is None  # no Salvage with an Impaired stat
    run(s, "wound gus 1 nor")  # wounds spill away from it
    assert sheet(s, "gus").nor.wounds == 0


# -- F7 a tie for the highest unimpaired Insight ---------------------------------------------------


def test_F7_insight_tie_tracker_proposes_the_first_in_party_order() -> None:
    s = session(
        "add Zed side=pc ins=2", "add Amy side=pc ins=2", "add Bob side=pc ins=1", "add Guard"
    )
    run(s, "start d20=15")
    log = texts(s)
    tie = next(t for t in log if t.startswith("Tie for the highest Insight"))
    assert tie == (
        "Tie for the highest Insight (+2): Zed, Amy; the players choose. The tracker proposes "
        "Zed; for another: undo, then start by=WHO"
    )
    assert "Zed Insight (initiative): 15 (typed)" in log


def test_F7_insight_tie_the_gm_names_another_roller() -> None:
    s = session("add Zed side=pc ins=2", "add Amy side=pc ins=2", "add Guard")
    run(s, "start d20=15", "undo", "start by=amy d20=15")
    log = texts(s)
    assert "Amy Insight (initiative): 15 (typed)" in log
    assert not any(t.startswith("Tie for the highest") for t in log)
    assert any(
        e.kind is Kind.OVERRIDE and e.text == "Amy rolls initiative (named by the GM)"
        for e in s.encounter.log
    )


def test_F7_no_tie_no_tie_line() -> None:
    s = session("add Zed side=pc ins=1", "add Amy side=pc ins=2", "add Guard", "start d20=15")
    assert "Amy Insight (initiative): 15 (typed)" in texts(s)
    assert not any(t.startswith("Tie for the highest") for t in texts(s))


# -- F9 Break and F10 simple tracks ---------------------------------------------------------------


def test_F9_break_removes_the_wound_from_the_stat_rolled() -> None:
    s = session("add Ana side=pc", "wound ana 2 phy", "wound ana 1 ins")
    run(s, "break ana ins d20=15")
    assert wounds(s, "ana") == (2, 0, 0, 0, 0)
    run(s, "break ana phy d20=1", "salvage ana d20=18")  # a Partial also heals the stat rolled
    assert wounds(s, "ana") == (1, 0, 0, 0, 0)
    refused(s, "break ana sci", "a Break heals the stat rolled")
    refused(s, "break ana phy from=ins", "does not take from=")


def test_F10_wounds_beyond_a_simple_tracks_capacity_are_not_kept() -> None:
    s = session("add Grunt track=12")
    run(s, "wound grunt 15")
    g = sheet(s, "grunt")
    assert (g.track_wounds, g.track) == (12, 12)
    assert "3 wounds beyond Grunt's track capacity 12: not kept" in texts(s)
    run(s, "shift grunt")  # one wound off: 11, not 14
    assert sheet(s, "grunt").track_wounds == 11
    refused(s, "sheet grunt track_wounds=13", "at most the track's capacity 12")
    run(s, "sheet grunt track=8")
    assert (sheet(s, "grunt").track_wounds, sheet(s, "grunt").track) == (8, 8)


# -- through the headless CLI ----------------------------------------------------------------------


def test_F10_through_apply_and_show_json(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    save = tmp_path / "f.toml"
    lines = ["new facility Drill seed=5", "add Grunt track=4", "wound grunt 6"]
    assert main(["apply", str(save), "-q", *lines]) == 0
    grunt = by_id(show_json(save, capsys), "grunt")
    assert grunt["sheet"]["track_wounds"] == 4
    assert grunt["derived"]["Wounds"] == "4/4"


def test_A5_A9_through_apply_and_show_json(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    save = tmp_path / "a.toml"
    lines = [
        "new 2297 Range seed=7",
        'add A side=pc init=20 skill=100 sta=100 weapon="Gun 2d6 SS/BF/AF 40"',
        "add B init=10 hlt=500 sta=500 dodge=24",
        "add C init=9 hlt=500 sta=500",
        "start",
        "attack a b mode=BF cover=5",
        "attack a b c mode=AF free",
        "stim a 2",
        "stim a 1",
    ]
    assert main(["apply", str(save), "--seed", "3", "-q", *lines]) == 0
    data = show_json(save, capsys)
    a = by_id(data, "a")
    assert a["sheet"]["weapons"][0]["ammo"] == 40 - 5 - 20
    log = [e["text"] for e in data["log"]]
    assert "A: BF adds +1d6 damage" in log
    attacks = [t for t in log if " attacks " in t]
    assert "vs TN 25 (ranged: max(20 + cover 5, Dodge 24))" in attacks[0]
    assert all("3d10kl2" in t for t in attacks[1:])
    checks = a["derived"]["grit_checks"]
    assert [(c["patch"], c["rating"], c["tn"]) for c in checks] == [(1, 2, 27), (2, 1, 21)]
    assert a["derived"]["recover_due"] == 0
