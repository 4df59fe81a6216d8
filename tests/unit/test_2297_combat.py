"""2297 scenarios through ``Session.execute``: awareness, initiative, actions, hits, timed effects,
first aid, fatigue, conditions, attack helper and overrides (A2–A11, C2, C4, C6)."""

from __future__ import annotations

import re

import pytest

from facility_tui.commands.grammar import CommandError
from facility_tui.commands.session import Session
from facility_tui.model.encounter import Encounter, Kind
from facility_tui.systems import rules_for
from facility_tui.systems.r2297.engine import describe, nth
from facility_tui.systems.r2297.rules import Level
from facility_tui.systems.r2297.sheet import EKind, Sheet2297
from tests.conftest import derived, run, sheet_as


def sheet(session: Session, cid: str) -> Sheet2297:
    return sheet_as(Sheet2297, session, cid)


def texts(enc: Encounter) -> list[str]:
    return [e.text for e in enc.log]


def duel(session: Session, a: str = "init=20", b: str = "init=10") -> Session:
    """A (pc) acts before B (enemy); both Health 20, Stamina 20, no armor."""
    return run(session, "new 2297 Duel seed=11", f"add A side=pc {a}", f"add B {b}")


def refused(session: Session, line: str, match: str = "") -> None:
    before = session.encounter
    with pytest.raises(CommandError, match=match):
        session.execute(line)
    assert session.encounter == before


# -- A1 sheet and A3 initiative -------------------------------------------------------------------


def test_A1_add_defaults_and_options(session: Session) -> None:
    run(
        session,
        "new 2297 T seed=3",
        "add Thug",
        'add Blanc side=pc ag=3 cu=2 hlt=32 sta=30 edge=2 dice=2 armor="Vest 15/20, Helmet 5/10"'
        ' weapon="FAM-90 5d6+1 SA/BF/AF 60" skill=15 dodge=19 aware=partial',
    )
    thug, blanc = sheet(session, "thug"), sheet(session, "blanc")
    assert (thug.hlt, thug.sta, thug.dice, thug.armor) == (20, 20, 1, ())
    assert (blanc.ag, blanc.cu, blanc.hlt, blanc.edge, blanc.dice) == (3, 2, 32, 2, 2)
    assert [a.text for a in blanc.armor] == ["Vest 15/20", "Helmet 5/10"]
    assert blanc.weapons[0].ammo == 60
    assert derived(session, "blanc")["pt"] == 15
    assert derived(session, "blanc")["dr"] == 25


def test_A1_bad_sheet_options_are_refused(session: Session) -> None:
    run(session, "new 2297 T seed=3")
    refused(session, 'add X armor="Vest 5/130"', "0 to 100")
    refused(session, "add X hlt=0", "at least 1")
    refused(session, "add X aware=sleepy", "full, partial or unaware")
    refused(session, "add X str=3", "does not take str=")


def test_A3_start_rolls_xd6_plus_ag_plus_cu(session: Session) -> None:
    run(session, "new 2297 T seed=5", "add A ag=3 cu=2 dice=2", "start")
    enc = session.encounter
    assert any(t.startswith("A initiative: 2d6") and "+ 5" in t for t in texts(enc))
    assert 7 <= enc.get("a").initiative <= 17


def test_A3_ties_break_on_ag_then_cu_then_kept_d10(session: Session) -> None:
    run(
        session,
        "new 2297 T seed=9",
        "add Low init=12 ag=1 cu=5",
        "add High init=12 ag=2",
        "add Cun init=12 ag=1 cu=6",
        "add X init=12 ag=1 cu=5",
        "start",
    )
    order = session.encounter.order
    assert order[:2] == ("high", "cun")
    rolloff = [sheet(session, c).tiebreak for c in order[2:]]
    assert rolloff[0] > rolloff[1] > 0
    kept = session.encounter.order
    run(session, "next", "next", "next", "next")  # round 2: same tie, same kept roll-off
    assert session.encounter.round == 2
    assert session.encounter.order == kept
    assert sum("roll-off" in t for t in texts(session.encounter)) == 2


def test_A3_edge_boost_adds_2d6_in_the_next_round_only(session: Session) -> None:
    duel(session, "init=10 edge=1", "init=12")
    run(session, "boost a", "start")
    s = sheet(session, "a")
    assert s.edge == 0
    assert s.boost_round == 1 and 2 <= s.boost <= 12
    assert session.encounter.order[0] == "a"
    assert sheet(session, "a").turn_init == 10 + s.boost
    refused(session, "boost a", "no Edge")
    run(session, "next", "next")  # round 2
    assert session.encounter.order == ("b", "a")


def test_A3_refocus_is_a_full_action_counting_from_next_round(session: Session) -> None:
    duel(session, "init=15 ag=30", "init=10")
    run(session, "start", "refocus")
    s = sheet(session, "a")
    assert s.refocus >= 31
    assert session.encounter.get("a").initiative == 15  # unchanged inside the round
    refused(session, "major", "no Major")
    run(session, "next", "next")
    assert session.encounter.get("a").initiative == s.refocus
    assert sheet(session, "a").turn_init == s.refocus


def test_A3_initiative_never_below_zero(session: Session) -> None:
    run(session, "new 2297 T seed=1", "add Slug ag=-9 cu=-9", "start")
    assert session.encounter.get("slug").initiative == 0


# -- A2 awareness ---------------------------------------------------------------------------------


def test_A2_unaware_loses_round_one_and_reactions_until_its_round_two_turn(
    session: Session,
) -> None:
    duel(session, "init=20", "init=10 aware=unaware")
    run(session, "start")
    assert derived(session, "b")["reaction"] is False
    refused(session, "react b", "surprised")
    run(session, "next")  # B's round-1 turn is visited, cannot be played, and passes by itself
    assert "B: turn passes (surprised (Unaware))" in texts(session.encounter)
    assert (session.encounter.round, session.encounter.current) == (2, "a")
    refused(session, "react b", "surprised")  # round 2, A's turn: B still Surprised
    run(session, "next")  # B's round-2 turn: Surprised ends
    assert session.encounter.current == "b"
    assert not sheet(session, "b").has("surprised")
    run(session, "major", "react b")
    assert sheet(session, "b").reaction_used


def test_A2_partially_aware_is_a_note_only(session: Session) -> None:
    duel(session, "init=20 aware=partial")
    run(session, "start", "major")
    assert "Partially aware" in " ".join(texts(session.encounter))


def test_A2_awareness_is_set_before_round_one(session: Session) -> None:
    duel(session)
    run(session, "aware b unaware", "start")
    assert sheet(session, "b").has("surprised")
    refused(session, "aware b full", "setup")


# -- A4 actions -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("init", "left"),
    [
        (9, "1/1/0"),
        (10, "1/1/1"),
        (19, "1/1/1"),
        (20, "1/1/2"),
        (29, "1/1/2"),
        (30, "2/1/2"),
        (39, "2/1/2"),
        (40, "2/1/3"),
        (49, "2/1/3"),
        (50, "3/1/3"),
    ],
)
def test_A4_band_boundaries_grant_actions_on_the_turn(
    session: Session, init: int, left: str
) -> None:
    run(session, "new 2297 T seed=2", f"add A init={init}", "start")
    assert derived(session, "a")["Ma/Mo/Mi R"] == f"{left} R"


def test_A4_spending_refuses_what_is_not_there(session: Session) -> None:
    duel(session, "init=9", "init=5")
    run(session, "start")
    refused(session, "minor", "no Minor action left")
    run(session, "major shoots B", "move")
    refused(session, "major", "no Major action left")
    refused(session, "move a", "no Move")
    refused(session, "major b", "A's turn, not B's")
    assert "A: Major spent: shoots B" in texts(session.encounter)[-2]


def test_A4_downgrade_once_per_turn(session: Session) -> None:
    duel(session, "init=12")
    run(session, "start", "down major minor")
    assert derived(session, "a")["Ma/Mo/Mi R"] == "0/1/2 R"
    refused(session, "down move minor", "already downgraded")
    refused(session, "down minor major", "cannot downgrade")
    run(session, "next", "next")
    run(session, "down move minor")  # a new turn, a new downgrade
    assert derived(session, "a")["Ma/Mo/Mi R"] == "1/0/2 R"


def test_A4_full_action_spends_major_move_and_minor(session: Session) -> None:
    duel(session, "init=12")
    run(session, "start", "full sprint")
    assert derived(session, "a")["Ma/Mo/Mi R"] == "0/0/0 R"
    run(session, "next", "next")
    run(session, "minor")
    refused(session, "full", "no Minor")


def test_A4_lightning_band_has_a_second_major(session: Session) -> None:
    duel(session, "init=31")
    run(session, "start", "major", "major", "minor")
    assert derived(session, "a")["actions"] == {"major": 0, "move": 1, "minor": 1}


def test_A4_extended_action_counts_turns(session: Session) -> None:
    duel(session, "init=12")
    run(session, "start", "ext Hack the door 3")
    assert sheet(session, "a").ext_step == 1
    refused(session, "ext", "already advanced")
    run(session, "next", "next", "ext")
    assert sheet(session, "a").ext_step == 2
    run(session, "next", "next", "ext")
    assert sheet(session, "a").ext_name == ""
    assert "A completes 'Hack the door' (3 turns)" in texts(session.encounter)


def test_A4_reaction_once_per_round_restored_at_round_start(session: Session) -> None:
    duel(session)
    run(session, "start", "react b snapshot")
    refused(session, "react b", "already used")
    run(session, "next", "next")
    run(session, "react b")


def test_A4_fatigued_loses_a_move_by_default_or_a_major(session: Session) -> None:
    duel(session, "init=12")
    run(session, "fatigue a 10", "start")
    assert derived(session, "a")["actions"] == {"major": 1, "move": 0, "minor": 1}
    run(session, "set a loses major")
    assert derived(session, "a")["actions"] == {"major": 0, "move": 1, "minor": 1}


def test_A4_serious_injury_allows_one_action_of_a_kind_the_band_grants(session: Session) -> None:
    duel(session, "init=25")
    run(session, "start", "next", "hit a 10", "next")  # Serious, taken on B's turn
    assert session.encounter.current == "a"
    assert sheet(session, "a").level is Level.SERIOUS
    refused(session, "full", "one action in all")
    run(session, "minor")
    refused(session, "major", "one action is spent")
    refused(session, "react a", "no Reactions")


def test_A4_most_restrictive_limit_wins(session: Session) -> None:
    duel(session, "init=25 sta=100")
    run(session, "start", "next", "hit a 10", "fatigue a 40", "next")  # Serious + Fatigued
    assert derived(session, "a")["limit"] == "Serious injury"
    run(session, "fatigue a 50")  # Exhausted: one Minor only
    assert derived(session, "a")["actions"] == {"major": 0, "move": 0, "minor": 1}
    refused(session, "major", "no Major")
    run(session, "minor")


# -- A6–A8 hits -----------------------------------------------------------------------------------


def test_A6_hit_logs_pt_dr_and_what_gets_through(session: Session) -> None:
    duel(session, 'armor="Vest 15/20, Helmet 5/10"')
    run(session, "hit a 15")
    assert "Hit on A: 15 physical vs PT 15 DR 25% → 11 gets through" in texts(session.encounter)
    assert sheet(session, "a").damage == 11
    run(session, "hit a 14 energy")  # PT 5, DR 5 → 13
    assert sheet(session, "a").damage == 24
    run(session, "hit a 14 stun")  # PT 20: stopped
    assert sheet(session, "a").stun == 0
    assert "stopped by armor" in texts(session.encounter)[-1]


def test_A6_hit_with_dice_and_ap(session: Session) -> None:
    duel(session, 'armor="Vest 15/20"')
    run(session, "hit a 3d6+20 ap=5/20")
    log = texts(session.encounter)
    assert any(t.startswith("Damage to A: 3d6") for t in log)
    assert any("vs PT 10 DR 0%" in t for t in log)


def test_A6_bad_damage_is_refused(session: Session) -> None:
    duel(session)
    refused(session, "hit a -3", "at least 0")
    refused(session, "hit a lots", "number or dice")
    refused(session, "hit a 5 plasma", "physical, stun or energy")
    refused(session, "hit a 5 ap=x", "ap")
    refused(session, "hit zed 5", "no combatant")


def test_A7_stun_lowers_the_level_but_counts_in_damage(session: Session) -> None:
    duel(session)
    run(session, "hit a 6 stun")  # no armor: PT 5 DR 20 → 4 → Light → none
    s = sheet(session, "a")
    assert (s.stun, s.level, s.fatigue) == (4, Level.NONE, 0)
    run(session, "hit a 13 stun")  # → 10 → Serious → Moderate
    s = sheet(session, "a")
    assert (s.stun, s.level, s.fatigue) == (14, Level.MODERATE, 5)


@pytest.mark.parametrize(
    ("dmg", "level", "fatigue"),
    [
        (4, Level.LIGHT, 3),
        (5, Level.MODERATE, 5),
        (10, Level.SERIOUS, 10),
        (15, Level.CRITICAL, 20),
        (20, Level.LETHAL, 70),
    ],
)
def test_A7_each_level_applies_its_fatigue(
    session: Session, dmg: int, level: Level, fatigue: int
) -> None:
    duel(session, "sta=100")
    run(session, f"hit a {dmg}")
    s = sheet(session, "a")
    assert (s.level, s.fatigue) == (level, fatigue)  # Lethal: +50, and crossing Health +20


def test_A7_light_injury_reduces_initiative_and_disadvantage_on_the_next_turn_C6(
    session: Session,
) -> None:
    duel(session)
    run(session, "start", "hit b 4")  # B has not acted this round: its turn 1 is hit
    effects = sheet(session, "b").effects
    cut = next(e for e in effects if e.kind is EKind.INIT)
    assert (cut.first, cut.last) == (1, 1)
    assert session.encounter.order == ("a", "b")  # the order does not change inside a round
    run(session, "next")
    assert sheet(session, "b").turn_init == max(0, 10 - cut.amount)
    assert derived(session, "b")["disadvantage"] is True
    run(session, "next")  # B's turn ends: both effects end, logged
    assert not sheet(session, "b").effects
    assert any("from Light injury ends" in t for t in texts(session.encounter))
    assert session.encounter.order == ("a", "b")


def test_C6_injury_during_own_turn_applies_to_the_following_turn_and_round_order(
    session: Session,
) -> None:
    duel(session, "init=20", "init=16")
    run(session, "start", "hit a 5")  # Moderate during A's own turn 1
    cut = next(e for e in sheet(session, "a").effects if e.kind is EKind.INIT)
    assert (cut.first, cut.last, cut.amount) == (2, 2, 6)  # seeded 2d6
    assert sheet(session, "a").turn_init == 20  # this turn keeps its band
    run(session, "next", "next")  # round 2: A's turn 2 has 20 − 6 = 14 < 16
    assert session.encounter.order == ("b", "a")
    run(session, "next")
    assert sheet(session, "a").turn_init == 14
    assert derived(session, "a")["Band"] == "Normal 14"
    run(session, "next")  # round 3: the reduction is over
    assert session.encounter.order == ("a", "b")
    assert sheet(session, "a").turn_init == 20


def test_A7_moderate_disadvantage_counts_down_at_the_end_of_its_turns(session: Session) -> None:
    duel(session)
    run(session, "start", "hit b 5")
    dis = next(e for e in sheet(session, "b").effects if e.kind is EKind.DISADV)
    n = dis.rounds
    assert 2 <= n <= 7
    for left in range(n - 1, 0, -1):
        run(session, "next", "next")  # B's turn, then its end
        dis = next(e for e in sheet(session, "b").effects if e.kind is EKind.DISADV)
        assert dis.rounds == left
    run(session, "next", "next")
    assert not [e for e in sheet(session, "b").effects if e.kind is EKind.DISADV]
    assert any("Disadvantage from Moderate injury ends" in t for t in texts(session.encounter))


def test_A7_serious_bleeds_1_per_round_at_turn_start_for_its_rounds_C2(session: Session) -> None:
    duel(session, "init=20", "init=10 sta=100")
    run(session, "start", "hit b 10")
    bleed = next(e for e in sheet(session, "b").effects if e.kind is EKind.BLEED)
    n = bleed.rounds
    for i in range(1, n + 1):
        run(session, "next")  # B's turn starts: bleeds
        assert sheet(session, "b").damage == 10 + i
        run(session, "next")
    assert not [e for e in sheet(session, "b").effects if e.kind is EKind.BLEED]
    run(session, "next")
    assert sheet(session, "b").damage == 10 + n
    assert any("the bleeding stops" in t for t in texts(session.encounter))


def test_A7_critical_bleeds_1d6_and_initiative_zero_from_next_turn(session: Session) -> None:
    duel(session, "init=20", "init=15 hlt=40 sta=100")
    run(session, "start", "hit b 30")  # 30 ≥ 75% of 40
    s = sheet(session, "b")
    assert s.level is Level.CRITICAL and s.has("prone")
    run(session, "next")
    assert sheet(session, "b").turn_init == 0
    assert sheet(session, "b").damage > 30
    assert any(t.startswith("B bleeding: 1d6") for t in texts(session.encounter))
    assert derived(session, "b")["actions"] == {"major": 0, "move": 0, "minor": 1}


def test_A7_lethal_dies_after_its_countdown_even_when_it_cannot_act_C2(session: Session) -> None:
    duel(session, "init=20", "init=10 sta=200")
    run(session, "start", "hit b 20")
    death = next(e for e in sheet(session, "b").effects if e.kind is EKind.DEATH)
    assert sheet(session, "b").has("unconscious")
    for _ in range(death.rounds - 1):
        ticks = len(texts(session.encounter))
        run(session, "next")  # B's turn: the countdown ticks, then the turn passes (C2)
        assert not sheet(session, "b").dead
        assert "B: turn passes (dying)" in texts(session.encounter)[ticks:]
        assert session.encounter.current == "a"
    run(session, "next")
    assert sheet(session, "b").dead
    assert "B dies (Lethal injury)" in texts(session.encounter)
    assert session.encounter.order == ("a",)  # the dead are left out of the next round


def test_A8_crossing_health_applies_once_and_again_after_healing(session: Session) -> None:
    duel(session, "sta=200")
    run(session, "hit a 4", "hit a 4", "hit a 4", "hit a 4", "hit a 4")  # total 20
    s = sheet(session, "a")
    assert s.total == 20 and s.has("prone")
    assert s.fatigue == 5 * 3 + 20
    run(session, "hit a 1")
    assert sheet(session, "a").fatigue == 5 * 3 + 20 + 3
    run(session, "heal a 3", "hit a 2")  # back below, then across again
    assert sheet(session, "a").fatigue == 5 * 3 + 20 + 3 + 3 + 20
    assert derived(session, "a")["status"] == "incapacitated"


def test_A8_twice_health_is_dying(session: Session) -> None:
    duel(session, "sta=500 hlt=10")
    run(session, "hit a 9", "hit a 9", "hit a 9")
    s = sheet(session, "a")
    assert s.total == 27
    assert any(e.kind is EKind.DEATH and "twice Health" in e.label for e in s.effects)
    assert derived(session, "a")["status"] == "dying"


def test_A8_stun_counts_toward_incapacitation_and_is_shown_apart(session: Session) -> None:
    duel(session, "sta=200")
    run(session, "hit a 12", "hit a 13 stun")  # 12 physical + 10 stun
    s = sheet(session, "a")
    assert (s.damage, s.stun) == (12, 10)
    assert derived(session, "a")["Dmg"] == "22/20 (10s)"


def test_A7_edge_lowers_an_injury_once_and_undo_restores_it(session: Session) -> None:
    duel(session, "edge=2 sta=100")
    run(session, "start", "next", "hit a 10")
    serious = sheet(session, "a")
    assert serious.level is Level.SERIOUS and serious.fatigue == 10
    run(session, "soak a")
    s = sheet(session, "a")
    assert (s.level, s.edge, s.fatigue) == (Level.MODERATE, 1, 5)
    assert not [e for e in s.effects if e.kind is EKind.BLEED]
    refused(session, "soak a", "no injury Edge can still lower")
    run(session, "undo")
    assert sheet(session, "a") == serious


def test_A7_soak_without_edge_is_refused(session: Session) -> None:
    duel(session)
    run(session, "hit a 10")
    refused(session, "soak a", "no Edge")


# -- A9 fatigue -----------------------------------------------------------------------------------


def test_A9_rests_and_their_daily_limits(session: Session) -> None:
    duel(session, "sta=20")
    run(session, "fatigue a 30", "rest a short")
    assert sheet(session, "a").fatigue == 20
    run(session, "rest a brief")
    assert sheet(session, "a").fatigue == 15
    refused(session, "rest a short", "2 short rests")
    run(session, "rest a long")
    assert sheet(session, "a").fatigue == 0
    refused(session, "rest a long", "long rest")
    run(session, "newday", "fatigue a 4", "rest all short")
    assert sheet(session, "a").fatigue == 0


def test_A9_stim_patch_and_pending_grit_check(session: Session) -> None:
    duel(session, "sta=20")
    run(session, "fatigue a 15", "start", "stim a 2")
    s = sheet(session, "a")
    assert 15 - 8 <= s.fatigue <= 15 - 3
    run(session, "stim a 1")
    first, second = sheet(session, "a").patches
    assert (first.rating, first.fatigue, first.others, first.tn) == (2, "2d6+4", 1, 27)
    assert (second.rating, second.fatigue, second.others, second.tn) == (1, "2d6+2", 0, 21)
    said = {
        r.label: r.text
        for p in rules_for("2297").view.panes(session.encounter, session.encounter.get("a"))
        for r in p.rows
    }
    assert said[f"Stim {first.id}"].startswith("R2: Grit TN 27 due round")
    before = sheet(session, "a").fatigue
    run(session, f"grit a 40 patch={first.id}")  # TN 27: passes, half of 2d6+4
    gained = sheet(session, "a").fatigue - before
    assert 3 <= gained <= 8
    assert sheet(session, "a").patches == (second,)
    run(session, "grit a 10")  # fails TN 21: 2d6+2
    assert sheet(session, "a").patches == ()
    refused(session, "grit a 10", "no stim")


def test_A9_exhausted_regains_one_stamina_after_ten_idle_rounds(session: Session) -> None:
    run(session, "new 2297 T seed=4", "add A init=10 sta=10", "fatigue a 10", "start")
    for _ in range(9):
        run(session, "next")
    refused(session, "recover a", "no fatigue recovery due")
    run(session, "next")  # the 10th full round without an action ends
    assert sheet(session, "a").fatigue == 10  # offered, not applied
    assert derived(session, "a")["recover_due"] == 1
    assert any(t.endswith("confirm: recover a") for t in texts(session.encounter))
    run(session, "recover a")
    assert sheet(session, "a").fatigue == 9
    assert derived(session, "a")["recover_due"] == 0


# -- A10 first aid --------------------------------------------------------------------------------


def test_A10_first_aid_on_serious_stops_bleeding_and_only_once(session: Session) -> None:
    duel(session, "sta=100")
    run(session, "hit a 10")
    refused(session, "aid a lots", "number or dice")
    run(session, "aid a 20")  # TN 25: fails, not used up
    assert sheet(session, "a").level is Level.SERIOUS
    run(session, "aid a 2d10+30")
    s = sheet(session, "a")
    assert s.level is Level.MODERATE
    assert not [e for e in s.effects if e.kind in (EKind.BLEED, EKind.DISADV)]
    assert any(e.kind is EKind.INIT for e in s.effects)  # lost initiative stays
    refused(session, "aid a 40", "already had first aid")


def test_A10_first_aid_on_light_restores_1d6_plus_mos_bonus(session: Session) -> None:
    duel(session, "sta=100")
    run(session, "hit a 4 ", "hit a 4", "hit a 4")
    run(session, "aid a 20")  # MoS 5: +1
    s = sheet(session, "a")
    assert 12 - 7 <= s.damage <= 12 - 2
    assert [i.level for i in s.injuries].count(Level.NONE) == 1


def test_A10_moderate_restores_health_and_ends_timed_disadvantage(session: Session) -> None:
    duel(session, "sta=100")
    run(session, "hit a 8 stun", "hit a 5")  # 6 stun (Light), 5 physical (Moderate)
    run(session, "aid a 40")  # MoS 20: 1 + 4 → at most 3; off physical first
    s = sheet(session, "a")
    assert (s.damage, s.stun) == (2, 6)
    assert s.level is Level.LIGHT
    assert not [e for e in s.effects if e.kind is EKind.DISADV and e.label == "Moderate injury"]


def test_A10_lethal_to_critical_stops_the_death_countdown(session: Session) -> None:
    duel(session, "sta=500 hlt=20")
    run(session, "hit a 20", "aid a 30")
    s = sheet(session, "a")
    assert s.level is Level.CRITICAL
    assert not [e for e in s.effects if e.kind in (EKind.DEATH, EKind.BLEED)]


def test_A10_aid_without_injury_is_refused(session: Session) -> None:
    duel(session)
    refused(session, "aid a 30", "no injury")


# -- A11 conditions and C2 durations --------------------------------------------------------------


def test_A11_condition_for_n_rounds_expires_at_the_end_of_its_turn(session: Session) -> None:
    duel(session)
    run(session, "start", "cond b blinded 2")
    run(session, "next", "next")
    assert sheet(session, "b").has("blinded")
    run(session, "next", "next")
    assert not sheet(session, "b").has("blinded")
    assert "B: blinded ends" in texts(session.encounter)


def test_A11_pinned_lasts_until_the_attackers_next_turn(session: Session) -> None:
    duel(session)
    run(session, "start", "cond b pinned by=a", "next")
    assert sheet(session, "b").has("pinned")
    run(session, "next")
    assert not sheet(session, "b").has("pinned")
    refused(session, "cond b pinned", "by=")


def test_A11_a_pin_ends_when_the_pinning_attacker_dies(session: Session) -> None:
    """A dead attacker has no next turn: its pin ends as the next round starts."""
    duel(session)
    run(session, "start", "next", "cond a pinned by=b", "set b dead yes")
    assert sheet(session, "a").has("pinned")
    run(session, "next")  # round 2 starts; B is left out of it
    assert session.encounter.round == 2
    assert not sheet(session, "a").has("pinned")
    assert "A is no longer pinned (B is dead)" in texts(session.encounter)


def test_A11_overwatch_is_set_with_a_major_and_spent_with_the_reaction(session: Session) -> None:
    duel(session)
    run(session, "start", "overwatch")
    assert sheet(session, "a").has("overwatch")
    refused(session, "major", "no Major")
    run(session, "next", "react a overwatch")
    assert not sheet(session, "a").has("overwatch")
    refused(session, "react a", "already used")


def test_A11_remove_a_condition(session: Session) -> None:
    duel(session)
    run(session, "cond a prone", "uncond a prone")
    assert not sheet(session, "a").has("prone")
    refused(session, "uncond a prone", "not prone")


# -- undo across a round boundary -----------------------------------------------------------------


def test_C2_undo_across_a_round_boundary_restores_expired_effects(session: Session) -> None:
    duel(session)
    run(session, "start", "hit b 4", "next")
    with_effects = session.encounter
    assert sheet(session, "b").effects
    run(session, "next")  # B's turn ends (effects expire), round 2 begins
    assert session.encounter.round == 2
    assert not sheet(session, "b").effects
    run(session, "undo")
    assert session.encounter == with_effects
    run(session, "redo")
    assert session.encounter.round == 2 and not sheet(session, "b").effects


# -- A5 attack helper -----------------------------------------------------------------------------


def test_A5_attack_spends_ammo_and_applies_the_hit(session: Session) -> None:
    run(
        session,
        "new 2297 T seed=21",
        'add Blanc side=pc init=15 skill=40 weapon="FAM-90 5d6+1 SA/BF/AF 12"',
        "add Boarder init=10 dodge=18",
        "start",
    )
    run(session, "attack blanc boarder mode=BF")
    log = texts(session.encounter)
    assert "Blanc: FAM-90 BF uses 5 rounds (7 left)" in log
    assert any("Perfect hit" in t for t in log)  # skill 40 ≥ TN 20 + 10
    assert any(t.startswith("Blanc damage: 8d6 (") for t in log)  # 5 + 2 Perfect + 1 BF
    assert sheet(session, "boarder").damage > 0
    run(session, "attack blanc boarder mode=BF free")
    refused(session, "attack blanc boarder mode=BF free", "has 2 rounds")
    refused(session, "attack blanc boarder mode=SS free", "fires SA/BF/AF")
    refused(session, "attack", "'attack' needs who; usage: attack WHO TARGET")
    refused(session, "attack blanc", "'attack' needs the target; usage: attack WHO TARGET")
    run(session, "reload blanc")
    assert sheet(session, "blanc").weapons[0].ammo == 12


def test_A5_attack_miss_and_advantage_pool(session: Session) -> None:
    duel(session, "skill=-30")
    run(session, "attack a b adv=2 dmg=3d6")
    last = texts(session.encounter)[-1]
    assert "4d10kh2" in last and "miss" in last
    assert sheet(session, "b").damage == 0
    refused(session, "attack a b wild", "unknown attack option")


def test_A4_A5_who_can_do_nothing_attacks_only_free(session: Session) -> None:
    """Unconscious, dying or dead: nothing, a Reaction's attack outside its turn included;
    the GM's fiat (``free``) still attacks, and whoever can act attacks as before."""
    duel(session, "init=20 skill=30", "init=10 sta=200")
    run(session, "start", "hit b 20")  # Lethal: unconscious, dying
    assert sheet(session, "b").has("unconscious")
    refused(session, "attack b a", r"B cannot attack \(dying\); 'free' attacks anyway")
    run(session, "attack b a free")
    assert "B: a free attack (no action spent)" in texts(session.encounter)
    run(session, "attack a b")  # (A, in its turn, as before)
    assert sheet(session, "a").spent_major == 1


# -- C4 overrides ---------------------------------------------------------------------------------


def test_C4_overrides_are_logged_as_such(session: Session) -> None:
    duel(session)
    run(
        session,
        "start",
        "set a fatigue 7",
        "set a injury serious effects=no",
        "set a major 2",
        "set b init 30",
        "set b reaction no",
    )
    enc = session.encounter
    overrides = [e.text for e in enc.log if e.kind is Kind.OVERRIDE]
    assert len(overrides) == 5
    assert sheet(session, "a").fatigue == 7
    assert sheet(session, "a").level is Level.SERIOUS
    assert enc.get("b").initiative == 30
    refused(session, "react b", "already used")
    refused(session, "set a colour red", "unknown field")
    refused(session, "set b major 1", "own turn")
    run(session, "set a injury none")
    assert sheet(session, "a").level is Level.NONE


def test_C4_set_major_gives_actions_left(session: Session) -> None:
    duel(session, "init=12")
    run(session, "start", "set a major 2", "major", "major")
    refused(session, "major", "no Major")


def test_A6_dead_combatants_take_no_hits_until_revived(session: Session) -> None:
    duel(session)
    run(session, "set a dead yes")
    refused(session, "hit a 3", "dead")
    run(session, "set a dead no", "hit a 3")


def test_A3_big_tie_groups_settle_with_few_roll_offs(session: Session) -> None:
    """More tied than a d10 has faces: roll-offs repeat only among those still tied."""
    run(session, "new 2297 T seed=4", "add Goon count=40 init=5", "start")
    enc = session.encounter
    assert len(enc.order) == 40
    rolls = [e for e in enc.log if "tie roll-off" in e.text]
    assert 40 <= len(rolls) < 200
    breaks = [sheet(session, cid).tiebreak for cid in enc.order]
    assert breaks == sorted(breaks, reverse=True) and len(set(breaks)) == 40


def test_A7_C6_a_combatants_own_turns_are_counted_as_its_own_never_as_turn_n(
    session: Session,
) -> None:
    """`initiative −7 on turn 1 (next turn)` read as a round's turn 1: a combatant's own count
    is said as such (`on its next turn (its 1st)`, `on its 1st turn`)."""
    duel(session)
    run(session, "start", "hit b 3 dice=4")  # Light: −1d6 initiative and Disadvantage
    line = next(t for t in texts(session.encounter) if "initiative −4" in t)
    assert line == "B: initiative −4 and Disadvantage on its next turn (its 1st)"
    effects = [describe(e) for e in sheet(session, "b").effects]
    assert "initiative −4 (on its 1st turn)" in effects
    run(session, "add C init=5 sta=200", "add D init=4 sta=200", "add E init=3 sta=200")
    run(session, "hit c 6", "hit d 11", "hit e 16")  # Moderate, Serious, Critical
    said = [*texts(session.encounter)]
    said += [describe(e) for c in "bcde" for e in sheet(session, c).effects]
    assert not [t for t in said if re.search(r"\bturn \d", t)]
    assert [nth(n) for n in (1, 2, 3, 4, 11, 12, 13, 21, 22, 101, 111)] == [
        "1st", "2nd", "3rd", "4th", "11th", "12th", "13th", "21st", "22nd", "101st", "111th"
    ]  # fmt: skip
