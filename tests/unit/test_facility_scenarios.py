"""Facility scenarios through ``Session.execute`` and the headless CLI, named after rule ids
(docs/rules.md).

Dice are seeded; where a test needs a given outcome the GM's typed die (``d20=N``) fixes it.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from attrs import evolve

from facility_tui import store
from facility_tui.cli import main
from facility_tui.commands import dispatch
from facility_tui.commands.grammar import CommandError
from facility_tui.commands.session import Session
from facility_tui.model.encounter import ENEMIES, PCS, Kind, Phase
from facility_tui.model.view import Boxes
from facility_tui.store import blank
from facility_tui.systems import rules_for
from facility_tui.systems.facility.engine import pending_of, state_of
from facility_tui.systems.facility.rules import (
    SAVES,
    STAT_NAMES,
    STATS,
    Condition,
    condition,
    save_key,
    save_value,
    stat_key,
)
from facility_tui.systems.facility.sheet import FacilitySheet, FacilityState, Step
from tests.conftest import run, sheet_as
from tests.paths import FIXTURES

PARTY = (
    "new facility Lockdown seed=11",
    'add Ana side=pc ins=2 phy=1 weapon=pistol,rifle ppe="Security Vest, Respirator"',
    "add Bo side=pc ins=1 sci=1",
    "add Cy side=pc ins=-1",
    "add Grunt track=12 saves=1,0,0,0,0",
    "add Brute track=30",
)


def fresh(*lines: str) -> Session:
    s = Session(evolve(blank(), seed=1))
    for line in (*PARTY, *lines):
        s.execute(line)
    return s


def sheet(s: Session, ref: str) -> FacilitySheet:
    return sheet_as(FacilitySheet, s, ref)


def log(s: Session) -> str:
    return "\n".join(e.text for e in s.encounter.log)


def refused(s: Session, line: str, match: str) -> None:
    before = s.encounter
    with pytest.raises(CommandError, match=match):
        s.execute(line)
    assert s.encounter is before  # nothing changed


def orders(s: Session, rounds: int) -> list[tuple[str, ...]]:
    out = []
    for _ in range(rounds):
        out.append(s.encounter.order)
        for _ in s.encounter.order:
            s.execute("next")
    return out


# -- F1 / F3 / F6 / F12 building -------------------------------------------------------------------


def test_F1_roll_stats_down_the_line_and_typed_bonuses() -> None:
    s = fresh("add Dee side=pc roll=yes nor=3 exp=phy,armor")
    d = sheet(s, "dee")
    rolls = [e.text for e in s.encounter.log if e.kind is Kind.ROLL and "3d6" in e.text]
    assert len(rolls) == 5
    assert d.nor.bonus == 3 and d.phy.expertise and d.armor
    assert "Employee Competence Scale" in log(s)
    refused(s, "add Eve phy=4", "from -3 to \\+3")


def test_F3_F12_maintenance_technician_job() -> None:
    s = fresh('add Tess side=pc job=tech ppe="Lab Coat"')
    t = sheet(s, "tess")
    assert t.job == "Maintenance Technician" and t.sci.expertise
    assert [p.name for p in t.ppe] == ["Work Boots", "Work Gloves", "Lab Coat"]
    assert (t.parts, t.clearance) == (3, 1)
    assert save_value(t, "explosions") == 2
    assert save_value(t, "contaminants") == 2 + 1 + 1  # job + Work Gloves + Lab Coat
    assert save_value(t, "explosions", "electricity") == 4  # Work Boots vs electricity


# -- F7 initiative ---------------------------------------------------------------------------------


def test_F7_success_pcs_first_over_three_rounds() -> None:
    s = fresh("start d20=15")
    assert "Ana Insight (initiative): 15 (typed)" in log(s)  # highest unimpaired Insight
    assert orders(s, 3) == [(PCS, ENEMIES)] * 3


def test_F7_failure_enemies_first_over_three_rounds() -> None:
    s = fresh("start d20=2")
    assert pending_of(s.encounter, "ana") is not None
    assert orders(s, 3) == [(ENEMIES, PCS)] * 3
    assert pending_of(s.encounter, "ana") is None  # too late to salvage now


def test_F7_partial_vanguard_over_three_rounds() -> None:
    s = fresh("start d20=2", "salvage d20=18 vanguard=bo")
    enc = s.encounter
    assert enc.order == ("vanguard", ENEMIES, PCS) and enc.turn == 0
    assert state_of(enc).vanguard == "bo"
    assert "Round 1: Vanguard Bo's turn" in log(s)
    refused(s, "strike ana grunt d20=10", "not Ana's turn")
    run(s, "strike bo grunt d20=15", "deal bo", "next", "next")
    assert s.encounter.current == PCS
    assert "Bo acted as the vanguard and skips this turn" in log(s)
    refused(s, "strike bo grunt d20=15", "already attacked")
    run(s, "next")
    assert orders(s, 2) == [(ENEMIES, PCS)] * 2


def test_F7_partial_vanguard_elected_after_the_salvage() -> None:
    s = fresh("start d20=3", "salvage d20=20")
    assert s.encounter.current == "vanguard"
    assert "Elect the vanguard PC" in log(s)
    refused(s, "vanguard grunt", "not a PC")
    run(s, "vanguard cy")
    assert state_of(s.encounter).vanguard == "cy"
    refused(s, "salvage ana", "no failed roll")


def test_F7_failed_salvage_keeps_enemies_first() -> None:
    s = fresh("start d20=3", "salvage d20=1")
    assert s.encounter.order == (ENEMIES, PCS)
    assert "stays a Failure" in log(s)


def test_F7_roller_skips_impaired_insight_and_helpers_need_insight() -> None:
    s = fresh("wound ana 5 ins", "start d20=12 help=cy")
    assert "Bo Insight (initiative)" in log(s)
    assert "Cy helps" in log(s)
    s2 = fresh("wound ana 5 ins")
    refused(s2, "start help=ana", "needs unimpaired Insight")


def test_F7_marks_reset_when_the_side_turn_starts() -> None:
    s = fresh("start d20=20", "strike ana grunt d20=3", "miss ana", "mark bo other")
    rules = rules_for("facility")
    assert rules.view.summary(s.encounter, s.encounter.get("ana"))["Marks"] == "oth"
    assert rules.view.summary(s.encounter, s.encounter.get("bo"))["Marks"] == "atk"
    run(s, "next", "next")
    assert sheet(s, "ana").attack_used is False and sheet(s, "bo").other_used is False


def test_C4_initiative_override_is_logged() -> None:
    s = fresh("start first=enemy")
    assert s.encounter.order == (ENEMIES, PCS)
    assert any(
        e.kind is Kind.OVERRIDE and "Initiative set by the GM" in e.text for e in s.encounter.log
    )
    s = fresh("start outcome=partial vanguard=ana")
    assert s.encounter.order == ("vanguard", ENEMIES, PCS)


# -- F2 checks -------------------------------------------------------------------------------------


def test_F2_check_help_expertise_and_salvage() -> None:
    s = fresh("add Dee side=pc sci=2")
    run(s, "try dee sci exp=yes d20=9 help=bo")
    assert "+2 Expertise" in log(s)
    run(s, "try ana phy tn=15 d20=3")
    assert pending_of(s.encounter, "ana") is not None
    run(s, "salvage ana d20=14")
    assert "Partial Success" in log(s)
    refused(s, "salvage ana", "no failed roll")  # no Salvage of a Salvage
    refused(s, "try ana phy exp=yes", "no Physique Expertise")


def test_F2_no_salvage_and_no_expertise_with_an_impaired_stat() -> None:
    s = fresh("add Dee side=pc phy=2", "wound dee 5 phy")
    refused(s, "try dee phy exp=yes", "Impaired: no Expertise")
    run(s, "try dee phy d20=1")
    assert pending_of(s.encounter, "dee") is None
    refused(s, "salvage dee", "no failed roll")


def test_F3_saves_cannot_be_salvaged() -> None:
    s = fresh("save ana contaminants d20=3")
    assert "Failure" in log(s)
    refused(s, "salvage ana", "no failed roll")


# -- F5 harm and F6 ablation -----------------------------------------------------------------------


def test_F5_F6_ablation_until_marks_reach_rating_then_bonus_gone() -> None:
    s = fresh()
    assert save_value(sheet(s, "ana"), "contaminants") == 2
    run(s, "harm ana 2 contaminants d20=1")
    assert "may ablate Respirator (0/2)" in log(s)
    run(s, "ablate ana")
    run(s, "harm ana 2 contaminants d20=1", "ablate ana resp")
    assert "Respirator is exhausted" in log(s)
    assert save_value(sheet(s, "ana"), "contaminants") == 0
    assert sheet(s, "ana").phy.wounds == 0
    run(s, "harm ana 2 contaminants d20=1")  # nothing left to ablate: the wounds land
    assert sheet(s, "ana").phy.wounds == 2
    refused(s, "ppe ana mark respirator", "already exhausted")


def test_F5_suffer_instead_of_ablating_and_gm_stat_choice() -> None:
    s = fresh("harm ana 3 weapons d20=2 as=fear")
    refused(s, "ablate ana respirator", "does not cover weapons")
    run(s, "suffer ana")
    assert sheet(s, "ana").nor.wounds == 3
    run(s, "harm ana 1 weapons d20=2", "suffer ana sci")
    assert sheet(s, "ana").sci.wounds == 1
    run(s, "harm bo 2 explosions save=no to=ins")
    assert sheet(s, "bo").ins.wounds == 2


def test_F5_successful_save_and_ablate_option() -> None:
    s = fresh("harm ana 3 weapons d20=20")
    assert "avoids the harm" in log(s) and sheet(s, "ana").phy.wounds == 0
    run(s, "harm ana 3 weapons d20=1 ablate=security")
    assert sheet(s, "ana").ppe[0].marks == 1
    run(s, "harm ana 3 weapons d20=1 ablate=no")
    assert sheet(s, "ana").phy.wounds == 3


def test_F5_F4_bad_input_changes_nothing() -> None:
    s = fresh()
    refused(s, "harm ana 0 weapons", "at least 1")
    refused(s, "wound ana -2 phy", "at least 1")
    refused(s, "wound ana 1 luck", "unknown stat 'luck'")
    refused(s, "harm ana 1 magic", "unknown hazard")
    refused(s, "ablate ana", "no failed save")
    run(s, "harm ana 1 trauma d20=1")  # nothing worn covers trauma: the wound lands
    run(s, "harm ana 1 weapons d20=1")  # the Security Vest could take it...
    refused(s, "ablate ana respirator", "does not cover weapons")  # ...the Respirator cannot
    run(s, "wound bo 3 adm")
    refused(s, "wound bo 5 phy spill=adm", "cannot spill onto Admin: it is Impaired")


# -- F4 spill-over and the tallies -----------------------------------------------------------------


def test_F4_spill_over_chain_with_scars_and_minus_3() -> None:
    s = fresh("add Dee side=pc phy=1 sci=-3 adm=-1", "sheet dee phy_scars=2")
    d = sheet(s, "dee")
    assert condition(d) is Condition.IMPAIRED  # Science −3: always Impaired
    run(s, "wound dee 6 phy spill=adm")  # cap 2 → 2 on Physique, 2 on Admin, rest proposed
    d = sheet(s, "dee")
    assert (d.phy.wounds, d.sci.wounds, d.adm.wounds) == (2, 0, 2)
    assert d.ins.wounds + d.nor.wounds == 2
    assert "proposed; pick with spill=" in log(s)
    assert "Incapacitated" in log(s)  # Physique, Science, Admin


def test_F4_third_and_fifth_impairment_and_alternate_arrangements() -> None:
    s = fresh("start d20=20", "wound cy 3 phy", "wound cy 3 sci")
    assert condition(sheet(s, "cy")) is Condition.IMPAIRED
    run(s, "wound cy 2 ins")
    assert "Cy is Incapacitated" in log(s)
    refused(s, "strike cy grunt", "cannot act")
    run(s, "wound cy 6 adm")
    assert condition(sheet(s, "cy")) is Condition.DEAD
    assert "Cy dies" in log(s)
    run(s, "fate cy alive")
    assert condition(sheet(s, "cy")) is Condition.INCAPACITATED
    assert any(
        e.kind is Kind.OVERRIDE and "alternate arrangements" in e.text for e in s.encounter.log
    )


def test_F4_all_pcs_down_is_announced() -> None:
    s = fresh("start d20=20", "remove bo", "remove cy", "wound ana 20 phy")
    assert "None of the PCs can fight on" in log(s)


# -- F8 attacks ------------------------------------------------------------------------------------


def test_F8_hit_and_deal_weapon_damage() -> None:
    s = fresh("start d20=20", "strike ana grunt d20=12")
    assert "TN 11 = 10 + weapons save +1" in log(s)
    assert pending_of(s.encounter, "ana").step is Step.HIT  # type: ignore[union-attr]
    refused(s, "salvage ana", "attack hit")
    refused(s, "miss ana", "hit")
    run(s, "deal ana")
    assert sheet(s, "grunt").track_wounds == 3


def test_F8_crit_with_the_weapons_crit_dice() -> None:
    s = fresh("start d20=20", "strike ana brute weapon=rifle d20=18", "crit ana d20=19")
    crit = [e.text for e in s.encounter.log if "crit dice" in e.text]
    assert len(crit) == 1 and "2d6" in crit[0]
    extra = int(crit[0].rsplit("= ", 1)[1])
    assert sheet(s, "brute").track_wounds == 6 + extra  # max base damage + crit dice


def test_F8_called_shot_and_unarmed_crit() -> None:
    s = fresh("start d20=20", "strike bo brute d20=15", "crit bo d20=15 called=yes")
    assert "called shot" in log(s) and sheet(s, "brute").track_wounds == 0
    run(s, "strike ana brute weapon=unarmed force=yes d20=15", "crit ana d20=15")
    assert "1d6" in log(s) and sheet(s, "brute").track_wounds > 0


def test_F8_failed_crit_is_a_partial_that_hurts_the_attacker() -> None:
    s = fresh("start d20=20", "strike ana grunt d20=15", "crit ana d20=2 back=2")
    assert "a Partial Success" in log(s)
    assert sheet(s, "grunt").track_wounds == 3
    assert "may ablate Security Vest" in log(s)  # no save, but PPE may ablate
    run(s, "suffer ana")
    assert sheet(s, "ana").phy.wounds == 2


def test_F8_salvage_chain() -> None:
    s = fresh("start d20=20", "strike bo grunt d20=2")
    assert "'salvage bo'" in log(s)
    run(s, "salvage bo d20=14")
    assert "Salvaged: a Partial Success" in log(s)
    assert "suffers damage, no save" in log(s)
    refused(s, "salvage bo", "no failed roll")  # no Salvage of a Salvage
    run(s, "strike ana grunt d20=3", "salvage ana d20=4")
    assert "with a complication" in log(s)
    refused(s, "crit ana", "no attack waiting")


def test_F8_gun_out_of_ammo_when_a_die_shows_1_then_rearm() -> None:
    s = fresh("start d20=20", "strike ana grunt d20=1")
    assert sheet(s, "ana").empty == ("pistol",)
    run(s, "miss ana", "next", "next")
    refused(s, "strike ana grunt", "out of ammo")
    run(s, "rearm ana")
    assert sheet(s, "ana").empty == ()
    refused(s, "rearm ana", "no gun out of ammo")
    run(s, "strike ana grunt weapon=rifle d20=12", "crit ana d20=1")  # crit re-roll shows 1
    assert "rifle" in sheet(s, "ana").empty


def test_F8_grenade_is_used_up_and_attacks_mark_once_per_turn() -> None:
    s = fresh("start d20=20", "sheet bo weapon=grenade", "strike bo brute d20=15", "deal bo")
    assert sheet(s, "bo").weapons == () and sheet(s, "brute").track_wounds == 3
    refused(s, "strike bo brute", "already attacked")
    run(s, "strike bo brute force=yes d20=2", "miss bo")
    assert any(e.kind is Kind.OVERRIDE and "already attacked" in e.text for e in s.encounter.log)


def test_F8_a_miss_left_open_stands_when_its_sides_turn_ends() -> None:
    """The Salvage of a miss is for then: the side's turn ending settles it as `miss` would
    (a grenade thrown is used up), so no choice is left "open" into the enemies' turn, and `n`
    does not ask about it. A hit left open (deal or crit) stays open: `n` asks."""
    s = fresh("start d20=20", "sheet bo weapon=grenade", "strike bo brute d20=2")
    rules = rules_for(s.encounter.system)
    assert pending_of(s.encounter, "bo").step is Step.MISS
    assert rules.choices.unsettled(s.encounter) == []  # (it lapses: n need not ask)
    run(s, "next")
    assert pending_of(s.encounter, "bo") is None and rules.choices.open(s.encounter) == ()
    assert "Bo's attack misses (the turn ended)" in log(s)
    assert sheet(s, "bo").weapons == ()  # thrown: used up, as `miss bo` would say
    s = fresh("start d20=20", "strike ana grunt d20=20")
    assert rules.choices.unsettled(s.encounter) == ["Ana: hit: deal or crit"]
    run(s, "next")
    assert pending_of(s.encounter, "ana").step is Step.HIT


def test_F3_F4_every_save_and_stat_the_panes_show_reads_as_typed() -> None:
    """What the screen shows, input accepts: the Saves pane's `Weap · Trau · Expl · Cont · Anom`
    and the wound tracks' `Phy Sci Ins Adm Nor` each name their save or stat on the line, and so
    does any start of a save's or stat's name that only it has (`contam`, `explo`, `scie`)."""
    s = fresh()
    enc = s.encounter
    panes = rules_for(enc.system).view.panes(enc, enc.get("ana"))
    rows = [row for pane in panes for row in pane.rows]
    saves_row = next(r for r in rows if getattr(r, "label", "") == "Saves")
    shown_saves = re.findall(r"([A-Z][a-z]+) [+-]\d", saves_row.text)
    assert len(shown_saves) == len(SAVES)
    shown_stats = [
        r.label.split()[0] for r in rows if re.fullmatch(r"[A-Z][a-z]{2} [+-]\d", r.label)
    ]
    assert len(shown_stats) == len(STATS)
    for full, word in zip(SAVES, shown_saves, strict=True):
        assert save_key(word) == full
    for full, word in zip(STATS, shown_stats, strict=True):
        assert stat_key(word) == full
    for names, key_of in ((list(SAVES), save_key), ([STAT_NAMES[k] for k in STATS], stat_key)):
        for name in names:
            for end in range(1, len(name) + 1):
                start = name[:end].lower()
                if sum(n.lower().startswith(start) for n in names) == 1:
                    assert key_of(start) == key_of(name), start
    run(s, "start d20=20", "save ana contam d20=15", "wound bo 1 scie", "fate grunt surr")
    assert sheet(s, "bo").sci.wounds == 1
    assert sheet(s, "grunt").fate.value == "surrendered"
    with pytest.raises(CommandError, match="unknown stat 'xyz'"):
        s.execute("wound bo 1 xyz")


# -- F9 healing ------------------------------------------------------------------------------------


def test_F9_break_tend_shift_and_scar() -> None:
    s = fresh("wound ana 3 phy", "wound ana 2 ins")
    run(s, "break ana phy d20=15")
    assert sheet(s, "ana").phy.wounds == 2
    run(s, "break ana ins d20=1", "salvage ana d20=18")
    assert sheet(s, "ana").ins.wounds == 1
    run(s, "tend bo ana phy d20=16")
    assert sheet(s, "ana").phy.wounds == 1
    run(s, "tend bo ana phy d20=2", "salvage bo d20=15 to=adm")
    a = sheet(s, "ana")
    assert (a.phy.wounds, a.adm.wounds) == (0, 1)
    refused(s, "tend bo ana phy", "has no wounds")
    run(s, "shift")
    a = sheet(s, "ana")
    assert (a.ins.wounds, a.adm.wounds) == (0, 0)
    run(s, "wound cy 2 phy")
    refused(s, "scar cy phy", "not Impaired")
    run(s, "wound cy 1 sci", "wound cy 1 phy", "scar cy phy")
    c = sheet(s, "cy")
    assert (c.phy.wounds, c.phy.scars) == (0, 1)


# -- F10 NPCs / F12 technician ---------------------------------------------------------------------


def test_F10_full_simple_track_is_out_then_gm_marks_the_fate() -> None:
    s = fresh("start d20=20", "wound grunt 12")
    assert "Grunt is out of the fight" in log(s)
    summary = rules_for("facility").view.summary(s.encounter, s.encounter.get("grunt"))
    assert summary["Status"] == "out" and summary["Wounds"] == "12/12"
    run(s, "fate grunt surrendered")
    assert condition(sheet(s, "grunt")) is Condition.SURRENDERED
    summary = rules_for("facility").view.summary(s.encounter, s.encounter.get("grunt"))
    assert summary["Status"] == "out: surrendered"  # who is out, and why, in words
    refused(s, "fate grunt sleepy", "fate takes")


def test_F12_barricade_and_blast() -> None:
    s = fresh("add Tess side=pc job=tech", "start d20=20")
    refused(s, "tech tess blast 4 grunt", "3 slot")
    refused(s, "tech ana tap 1", "not a Maintenance Technician")
    run(s, "tech tess barricade 1")
    bar = s.encounter.get("barricade")
    total = bar.sheet.track // 10
    assert bar.side == PCS and bar.sheet.is_object and total >= 1
    assert sheet(s, "tess").parts == (3 - 1 if total >= 4 else 3)
    run(s, "sheet tess parts=3", "tech tess blast 2 grunt brute save=no")
    roll = next(e.text for e in reversed(s.encounter.log) if "blast: 2d6" in e.text)
    total = int(roll.rsplit("= ", 1)[1])
    assert sheet(s, "grunt").track_wounds == total - total // 2
    assert sheet(s, "brute").track_wounds == total // 2
    assert sheet(s, "tess").parts == 1  # two dice above Clearance 1: one slot per die
    run(s, "wound barricade 5")
    assert sheet(s, "barricade").track_wounds == 5


# -- C4, registry, undo, CLI -----------------------------------------------------------------------


def test_C4_sheet_overrides_are_logged() -> None:
    s = fresh("sheet ana phy=-3 phy_wounds=1 saves=1,2,3,4,5 track=0")
    a = sheet(s, "ana")
    assert a.phy.bonus == -3 and a.base.anomalies == 5
    assert any(e.kind is Kind.OVERRIDE and "phy=-3" in e.text for e in s.encounter.log)
    refused(s, "sheet ana", "name what to set")
    refused(s, "sheet ana phy=9", "from -3")
    refused(s, "sheet ana phy=1 luck=2", "does not take luck=")


def test_facility_verbs_are_not_shadowed_by_another_system() -> None:
    facility = {spec.verb for spec in rules_for("facility").commands}
    common = {spec.verb for spec in dispatch.common()}
    verbs = ["try", "salvage", "save", "harm", "ablate", "suffer", "wound", "strike", "crit"]
    verbs += ["deal", "miss", "rearm", "mark", "break", "tend", "shift", "scar", "ppe"]
    for verb in [*verbs, "fate", "sheet", "tech", "vanguard"]:
        assert verb in facility and verb not in common, verb
        assert dispatch.find_spec(verb, "facility").verb == verb
        with pytest.raises(CommandError, match="is a rule of facility, not of 2297"):
            dispatch.find_spec(verb, "2297")


def test_undo_redo_gives_back_the_same_fight() -> None:
    s = fresh("start", "strike ana grunt force=yes", "harm bo 3 weapons", "next")
    after = s.encounter
    n = len(s.undo_steps)
    for _ in range(n):
        s.execute("undo")
    for _ in range(n):
        s.execute("redo")
    assert s.encounter == after


def test_state_survives_a_save_and_load_through_the_cli(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "f.toml"
    lines = [
        *PARTY,
        "start d20=4",
        "salvage d20=16 vanguard=ana",
        "strike ana grunt d20=14",
        "harm bo 5 trauma save=no to=ins",
        "harm ana 2 contaminants d20=1",
    ]
    assert main(["apply", str(path), "-q", *lines]) == 0
    capsys.readouterr()
    assert main(["show", str(path), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["order"] == ["vanguard", "enemies", "pcs"]
    assert data["state"]["vanguard"] == "ana"
    by_id = {c["id"]: c for c in data["combatants"]}
    assert by_id["bo"]["sheet"]["ins"]["wounds"] == 4
    assert by_id["bo"]["derived"]["Status"] == "Impaired 1"
    assert by_id["ana"]["derived"]["Marks"] == "oth"
    assert {p["step"] for p in data["state"]["pending"]} == {"hit"}
    assert data["state"]["harms"][0]["who"] == "ana"
    # the follow-ups work after a reload, and bad input leaves the file alone
    assert main(["apply", str(path), "-q", "ablate ana", "deal ana"]) == 0
    before = path.read_text()
    assert main(["apply", str(path), "-q", "wound ana 0 phy"]) == 1
    assert path.read_text() == before
    assert "at least 1" in capsys.readouterr().err


def test_panes_show_tracks_saves_and_ppe() -> None:
    s = fresh("wound ana 2 phy", "harm ana 1 contaminants d20=1", "ablate ana")
    panes = rules_for("facility").view.panes(s.encounter, s.encounter.get("ana"))
    rows = {p.title: {r.label: r for r in p.rows} for p in panes}
    phy = next(r for label, r in rows["Wounds"].items() if label.startswith("Phy"))
    assert isinstance(phy, Boxes) and (phy.full, phy.empty) == (2, 2) and phy.text == "2/4"
    ins = next(r for label, r in rows["Wounds"].items() if label.startswith("Ins"))
    assert "Exp" in ins.text
    saves = rows["Saves and PPE"]
    assert "Weap +0" in saves["Saves"].text
    assert saves["Respirator"].text.startswith("1/2 marks")


def test_old_stub_state_still_loads() -> None:
    s = Session(evolve(blank(), seed=1))
    run(s, "new facility Old seed=1")
    assert isinstance(s.encounter.state, FacilityState)
    assert s.encounter.phase is Phase.SETUP


def test_F5_a_second_harm_waits_for_the_first_to_be_resolved() -> None:
    s = fresh("harm ana 2 weapons d20=1")
    refused(s, "harm ana 1 trauma d20=1", "still has a failed save pending")
    run(s, "suffer ana", "harm ana 1 trauma d20=1")
    assert sheet(s, "ana").phy.wounds == 3


def test_facility_demo_plays_through() -> None:
    from facility_tui.systems.facility.demo import DEMO_FACILITY, DEMO_FACILITY_FIGHT

    s = Session(blank())
    run(s, *DEMO_FACILITY)
    assert s.encounter.system == "facility" and len(s.encounter.combatants) == 6
    run(s, *DEMO_FACILITY_FIGHT)
    assert s.encounter.round == 2 and s.encounter.current == PCS
    assert state_of(s.encounter).harms == ()
    assert any(sheet(s, c.id).is_object for c in s.encounter.combatants)


def test_F7_a_side_with_no_one_able_to_act_passes_its_turn() -> None:
    s = fresh("start d20=20", "wound grunt 12", "wound brute 30", "next")
    assert "Enemies' side: turn passes (no one standing)" in log(s)
    assert s.encounter.round == 2 and s.encounter.current == PCS


def test_F7_the_vanguards_turn_waits_for_the_election() -> None:
    s = fresh("start outcome=partial")
    assert s.encounter.current == "vanguard" and s.encounter.turn == 0


def test_F7_no_one_has_an_initiative_of_their_own() -> None:
    """F7: sides take turns: `add Clerk init=2d6` and `init ana 4` are refused, saying why, and
    change nothing; a save whose history has such lines (an older version took them) keeps its
    history, the lines replaying as they ran."""
    s = fresh()
    refused(s, "add Clerk init=2d6", "side initiative")
    refused(s, "init ana 4", "side initiative")
    fixture = FIXTURES / "saves" / "v3-facility-init.toml"
    opened = store.open_save(fixture).session
    assert opened.settle() is None
    assert [step.line for step in opened.undo_steps][1:4] == [
        "add Ana side=pc",
        "add Clerk init=2d6",
        "init ana 4",
    ]


def test_C3_a_roll_typed_as_dice_says_whose_it_is() -> None:
    """`wound ana 1d4+2` logged `wounds: 1d4 (3) + 2 = 5`: whose wounds? Each roll a line types
    as dice names the combatant it is for."""
    s = fresh("start d20=20", "wound ana 1d4+2", "harm bo 1d2 trauma d20=1")
    rolls = [e.text for e in s.encounter.log if e.kind is Kind.ROLL and ": 1d" in e.text]
    assert any(t.startswith("Ana wounds: 1d4 (") for t in rolls), rolls
    assert any(t.startswith("Bo wounds: 1d2 (") for t in rolls), rolls
