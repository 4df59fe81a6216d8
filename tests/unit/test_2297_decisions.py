"""2297 points settled in docs/rules.md by issue 13, each pinned by a test named after its rule
id (A3, A4, A5, A7/A8, A9, A11, C4, C6), played through commands with seeded dice."""

from __future__ import annotations

import re

import pytest

from facility_tui.commands.grammar import CommandError
from facility_tui.commands.session import Session
from facility_tui.model.encounter import Kind
from facility_tui.systems.r2297.rules import Level
from facility_tui.systems.r2297.sheet import EKind, Sheet2297
from tests.conftest import derived, run, sheet_as


def sheet(session: Session, cid: str) -> Sheet2297:
    return sheet_as(Sheet2297, session, cid)


def texts(session: Session) -> list[str]:
    return [e.text for e in session.encounter.log]


def since(session: Session, mark: int) -> list[str]:
    return texts(session)[mark:]


def refused(session: Session, line: str, match: str = "") -> None:
    before = session.encounter
    with pytest.raises(CommandError, match=match):
        session.execute(line)
    assert session.encounter == before


def duel(session: Session, a: str = "init=20", b: str = "init=10") -> Session:
    return run(session, "new 2297 Duel seed=11", f"add A side=pc {a}", f"add B {b}")


def attack_lines(session: Session, mark: int = 0) -> list[str]:
    return [t for t in since(session, mark) if " attacks " in t]


def tn_of(line: str) -> int:
    m = re.search(r"vs TN (\d+)", line)
    assert m, line
    return int(m.group(1))


def gunfight(session: Session, modes: str = "SS/SA/BF/AF", ammo: int = 100) -> Session:
    """A shoots with skill 100 (always a Perfect hit: +2d6) a gun of 2d6; B, C, D are targets
    with lots of Health (no one dies)."""
    return run(
        session,
        "new 2297 Range seed=7",
        f'add A side=pc init=20 skill=100 weapon="Gun 2d6 {modes} {ammo}"',
        "add B init=10 hlt=500 sta=500",
        "add C init=9 hlt=500 sta=500",
        "add D init=8 hlt=500 sta=500",
        "start",
    )


def damage_dice(session: Session, mark: int) -> list[str]:
    return [t.split(":")[1].split("(")[0].strip() for t in since(session, mark) if "A damage" in t]


# -- A5 fire modes ---------------------------------------------------------------------------------


def test_A5_bf_single_target_default_plus_1d6(session: Session) -> None:
    gunfight(session)
    mark = len(texts(session))
    run(session, "attack a b mode=BF free")
    assert "A: Gun BF uses 5 rounds (95 left)" in since(session, mark)
    assert "A: BF adds +1d6 damage" in since(session, mark)
    assert attack_lines(session, mark)[0].startswith("A attacks B: 2d10 (")
    assert damage_dice(session, mark) == ["5d6"]  # 2d6 + 2 Perfect + 1 BF


def test_A5_bf_attacker_may_pick_advantage_instead(session: Session) -> None:
    gunfight(session)
    mark = len(texts(session))
    run(session, "attack a b mode=BF burst=adv free")
    assert attack_lines(session, mark)[0].startswith("A attacks B: 3d10kh2 (")
    assert damage_dice(session, mark) == ["4d6"]  # no BF die
    mark = len(texts(session))
    run(session, "attack a b mode=BF burst=adv adv=-1 free")  # net −1 + 1 = 0
    assert attack_lines(session, mark)[0].startswith("A attacks B: 2d10 (")


def test_A5_bf_always_plus_1d6_when_the_attack_already_has_advantage(session: Session) -> None:
    gunfight(session)
    refused(session, "attack a b mode=BF adv=1 burst=adv free", "already has Advantage")
    mark = len(texts(session))
    run(session, "attack a b mode=BF adv=1 free")
    assert attack_lines(session, mark)[0].startswith("A attacks B: 3d10kh2 (")
    assert damage_dice(session, mark) == ["5d6"]


def test_A5_bf_is_single_target_only(session: Session) -> None:
    gunfight(session)
    refused(session, "attack a b c mode=BF free", "single-target")
    refused(session, "attack a b mode=BF targets=2 free", "single-target")
    refused(session, "attack a b c mode=SA free", "one target")


def test_A5_af_one_target_plus_2d6_or_advantage(session: Session) -> None:
    gunfight(session)
    mark = len(texts(session))
    run(session, "attack a b mode=AF free")
    assert "A: Gun AF uses 10 rounds (90 left)" in since(session, mark)
    assert damage_dice(session, mark) == ["6d6"]  # 2d6 + 2 Perfect + 2 AF
    mark = len(texts(session))
    run(session, "attack a b mode=AF burst=adv free")
    assert attack_lines(session, mark)[0].startswith("A attacks B: 3d10kh2 (")
    assert damage_dice(session, mark) == ["4d6"]
    refused(session, "attack a b mode=AF adv=2 burst=adv free", "already has Advantage")


def test_A5_af_several_targets_disadvantage_each_no_dice_10_ammo_per_target(
    session: Session,
) -> None:
    gunfight(session)
    mark = len(texts(session))
    run(session, "attack a b c d mode=AF free")
    assert "A: Gun AF uses 30 rounds, 10 per target × 3 (70 left)" in since(session, mark)
    lines = attack_lines(session, mark)
    assert [line.split(":")[0] for line in lines] == ["A attacks B", "A attacks C", "A attacks D"]
    assert all(": 3d10kl2 (" in line for line in lines)  # each attack has Disadvantage
    assert damage_dice(session, mark) == ["4d6"] * 3  # 2d6 + 2 Perfect, no AF dice
    assert all(sheet(session, t).damage > 0 for t in ("b", "c", "d"))
    refused(session, "attack a b c mode=AF burst=dice free", "no burst= pick")
    mark = len(texts(session))
    run(session, "attack a b mode=AF targets=3 free")  # the others are not in the tracker
    assert "A: Gun AF uses 30 rounds, 10 per target × 3 (40 left)" in since(session, mark)
    assert len(attack_lines(session, mark)) == 1


def test_A5_ammo_ss_1_sa_3_bf_5_af_10_per_target(session: Session) -> None:
    gunfight(session, ammo=40)
    run(session, "attack a b mode=SS free", "attack a b mode=SA free", "attack a b mode=BF free")
    assert sheet(session, "a").weapons[0].ammo == 40 - 1 - 3 - 5
    run(session, "attack a b c mode=AF free")
    assert sheet(session, "a").weapons[0].ammo == 31 - 20
    refused(session, "attack a b mode=AF targets=2 free", "has 11 rounds, AF needs 20")


# -- A5 target numbers -----------------------------------------------------------------------------


def test_A5_tn_ranged_dodge_is_not_raised_by_cover_or_evading(session: Session) -> None:
    run(session, "new 2297 T seed=3", "add A skill=5", "add B dodge=24 parry=40")
    for line, tn in [
        ("attack a b dmg=1 free", 24),  # max(20, Dodge 24); Parry never against ranged
        ("attack a b dmg=1 cover=5 free", 25),  # max(20 + 5, 24)
        ("attack a b dmg=1 evade free", 25),
        ("attack a b dmg=1 cover=10 evade free", 35),
        ("set b dodge 31", 0),
        ("attack a b dmg=1 cover=5 evade free", 31),  # Dodge 31 stays 31: not raised to 41
    ]:
        mark = len(texts(session))
        run(session, line)
        if tn:
            assert tn_of(attack_lines(session, mark)[0]) == tn, line


def test_A5_tn_melee_is_max_of_base_dodge_and_parry(session: Session) -> None:
    run(session, "new 2297 T seed=3", "add A skill=5", "add B dodge=18 parry=27")
    mark = len(texts(session))
    run(session, "attack a b melee dmg=1 free")
    assert tn_of(attack_lines(session, mark)[0]) == 27
    run(session, "set b parry 12")
    mark = len(texts(session))
    run(session, "attack a b melee dmg=1 free")
    assert tn_of(attack_lines(session, mark)[0]) == 20
    refused(session, "attack a b melee cover=5 dmg=1 free", "ranged attacks only")
    refused(session, "attack a b melee evade dmg=1 free", "ranged attacks only")
    refused(session, "attack a b melee mode=BF dmg=1 free", "no fire mode")


def test_A5_tn_undefended_is_10_with_no_dodge_or_parry(session: Session) -> None:
    run(
        session,
        "new 2297 T seed=3",
        "add A init=20 skill=5",
        "add B init=10 dodge=30 parry=30 aware=unaware",
        "add C init=5 dodge=30 parry=30",
    )
    mark = len(texts(session))
    run(session, "attack a c undefended dmg=1 free", "attack a c undefended melee dmg=1 free")
    assert [tn_of(line) for line in attack_lines(session, mark)] == [10, 10]
    run(session, "start")  # B is Unaware: surprised in round 1, undefended
    mark = len(texts(session))
    run(session, "attack a b dmg=1 free", "attack a b melee dmg=1 free")
    lines = attack_lines(session, mark)
    assert [tn_of(line) for line in lines] == [10, 10]
    assert "undefended: surprised (Unaware)" in lines[0]
    mark = len(texts(session))
    run(session, "attack a c dmg=1 free")  # C is aware: Dodge 30
    assert tn_of(attack_lines(session, mark)[0]) == 30


# -- C6 "N rounds" landing during the combatant's own turn ----------------------------------------


def test_C6_n_rounds_effect_landing_in_own_turn_counts_down_from_its_following_turn(
    session: Session,
) -> None:
    duel(session)
    run(session, "start", "cond a blinded 1")  # during A's own turn 1
    run(session, "next")  # A's turn 1 ends: not counted
    assert sheet(session, "a").has("blinded")
    run(session, "next")  # B's turn ends; round 2: A's turn 2 starts, still blinded
    assert sheet(session, "a").has("blinded")
    run(session, "next")  # A's turn 2 ends: 1 → 0
    assert not sheet(session, "a").has("blinded")
    assert "A: blinded ends" in texts(session)


def test_C6_moderate_disadvantage_in_own_turn_first_counts_down_at_its_following_turn(
    session: Session,
) -> None:
    duel(session, "init=20 sta=100")
    run(session, "start", "hit a 5")  # Moderate during A's own turn: Disadvantage 1d6+1 rounds
    dis = next(e for e in sheet(session, "a").effects if e.kind is EKind.DISADV)
    assert derived(session, "a")["disadvantage"] is True  # on now
    run(session, "next")  # A's turn 1 ends: no count
    assert next(e for e in sheet(session, "a").effects if e.kind is EKind.DISADV).rounds == (
        dis.rounds
    )
    run(session, "next", "next")  # A's turn 2 ends: first count
    assert next(e for e in sheet(session, "a").effects if e.kind is EKind.DISADV).rounds == (
        dis.rounds - 1
    )


def test_C6_n_rounds_effect_landing_outside_own_turn_counts_at_its_next_turn_end(
    session: Session,
) -> None:
    duel(session)
    run(session, "start", "cond b blinded 1", "next")  # lands in A's turn; B's turn 1
    assert sheet(session, "b").has("blinded")
    run(session, "next")  # B's turn 1 ends: 1 → 0
    assert not sheet(session, "b").has("blinded")


# -- A3 Refocus and first aid ----------------------------------------------------------------------


def test_A3_refocus_rerolls_the_base_serious_reduction_still_applies(session: Session) -> None:
    duel(session, "init=40 ag=30 sta=200", "init=10")
    run(session, "start", "next", "hit a 10", "aid a 40")  # Serious → Moderate by first aid
    cut = next(e for e in sheet(session, "a").effects if e.kind is EKind.INIT)
    assert cut.combat  # −2d6 until the end of combat
    run(session, "next", "refocus")  # A's turn 2 (no longer one action: Moderate)
    new_base = sheet(session, "a").refocus
    assert new_base >= 31  # 1d6 + 30: the base is rerolled
    run(session, "next", "next")  # round 3
    assert session.encounter.current == "a"
    assert session.encounter.get("a").initiative == new_base
    assert sheet(session, "a").turn_init == new_base - cut.amount


def test_A3_a_new_base_cannot_lift_a_critical_injurys_zero(session: Session) -> None:
    duel(session, "init=25 hlt=20 sta=500", "init=10")
    run(session, "start", "next", "hit a 15", "next", "next")  # Critical: 0 from A's turn 2
    assert (session.encounter.round, session.encounter.current) == (2, "a")
    assert sheet(session, "a").turn_init == 0
    refused(session, "refocus", "one action in all")  # a Full action is beyond one Minor
    run(session, "rollinit a")  # a new base (rolled) or the GM's: still 0
    run(session, "next", "next")
    assert (session.encounter.round, session.encounter.current) == (3, "a")
    assert sheet(session, "a").turn_init == 0
    run(session, "set a init 40", "next", "next")
    assert (session.encounter.round, session.encounter.current) == (4, "a")
    assert session.encounter.get("a").initiative == 40
    assert sheet(session, "a").turn_init == 0


def test_A3_first_aid_does_not_restore_initiative(session: Session) -> None:
    duel(session, "init=25 sta=200", "init=10")
    run(session, "start", "next", "hit a 10", "aid a 40")  # Serious → Moderate
    assert sheet(session, "a").level is Level.MODERATE
    cut = next(e for e in sheet(session, "a").effects if e.kind is EKind.INIT)
    run(session, "next")
    assert session.encounter.current == "a"
    assert sheet(session, "a").turn_init == 25 - cut.amount
    run(session, "hit a 15", "heal a 15", "aid a 40")  # Critical → Serious: the 0 stays
    assert sheet(session, "a").level is Level.SERIOUS
    run(session, "next", "next", "next")
    assert (session.encounter.round, session.encounter.current) == (3, "a")
    assert sheet(session, "a").turn_init == 0


# -- A4 Serious injury's one action ----------------------------------------------------------------


def test_A4_serious_slow_combatant_may_take_a_minor_through_the_downgrade(
    session: Session,
) -> None:
    duel(session, "init=9 sta=200", "init=30")
    run(session, "start", "hit a 10", "next")  # Serious on B's turn; A's turn: Slow
    assert session.encounter.current == "a"
    assert derived(session, "a")["band"] == "Slow"
    assert derived(session, "a")["actions"] == {"major": 1, "move": 1, "minor": 0}
    run(session, "minor reload")
    assert "A: Move downgraded to Minor for its one action (the turn's downgrade)" in texts(session)
    assert derived(session, "a")["Ma/Mo/Mi R"] == "0/0/0 -"
    refused(session, "major", "one action is spent")


def test_A4_serious_explicit_downgrade_then_the_minor(session: Session) -> None:
    duel(session, "init=9 sta=200", "init=30")
    run(session, "start", "hit a 10", "next", "down major minor")
    assert derived(session, "a")["actions"] == {"major": 0, "move": 1, "minor": 1}
    assert derived(session, "a")["one_action_left"] == 1
    run(session, "minor")
    refused(session, "move", "one action is spent")
    refused(session, "down move minor", "already downgraded")


# -- A7/A8 Lethal and dying: one state -------------------------------------------------------------


def deaths(session: Session, cid: str) -> list[int]:
    return [e.rounds for e in sheet(session, cid).effects if e.kind is EKind.DEATH]


def test_A7_A8_one_hit_lethal_and_twice_health_one_countdown_one_plus_50(
    session: Session,
) -> None:
    duel(session, "hlt=10 sta=1000")
    run(session, "hit a 20")  # Lethal (≥ H) and total 20 ≥ 2H in one hit
    assert len(deaths(session, "a")) == 1
    assert sheet(session, "a").fatigue == 50 + 20  # one +50, plus Incapacitated's +20
    assert sum("death countdown" in t for t in texts(session)) == 1
    assert any("starts no second countdown" in t for t in texts(session))


def test_A7_A8_dying_then_a_lethal_hit_keeps_the_first_countdown(session: Session) -> None:
    duel(session, "hlt=10 sta=1000")
    run(session, "hit a 9", "hit a 9", "hit a 9")  # Critical ×3; total 27 ≥ 20: dying
    first = deaths(session, "a")
    assert len(first) == 1
    fatigue = sheet(session, "a").fatigue
    assert fatigue == 3 * 20 + 20 + 50
    run(session, "hit a 12")  # Lethal while dying: the same state
    assert deaths(session, "a") == first
    assert sheet(session, "a").fatigue == fatigue
    assert sheet(session, "a").injuries[-1].fatigue == 0


def test_A7_A8_lethal_then_twice_health_keeps_the_first_countdown(session: Session) -> None:
    duel(session, "hlt=10 sta=1000")
    run(session, "hit a 10")  # Lethal, total 10 = H: incapacitated
    first = deaths(session, "a")
    assert sheet(session, "a").fatigue == 70
    run(session, "hit a 10")  # another Lethal, total 20 = 2H
    assert deaths(session, "a") == first
    assert sheet(session, "a").fatigue == 70


def test_A7_A8_edge_lowering_lethal_at_twice_health_keeps_the_countdown(
    session: Session,
) -> None:
    duel(session, "hlt=10 sta=1000 edge=1")
    run(session, "hit a 20", "soak a")  # Lethal → Critical, but the total is still 2H
    s = sheet(session, "a")
    assert s.level is Level.CRITICAL
    assert len(deaths(session, "a")) == 1
    assert s.fatigue == 20 + 20 + 50  # Critical's +20, Incapacitated's +20, dying's +50


def test_A7_A8_first_aid_on_lethal_stops_the_one_countdown(session: Session) -> None:
    duel(session, "hlt=10 sta=1000")
    run(session, "hit a 9", "hit a 9", "hit a 9", "hit a 12", "aid a 30 injury=4")
    assert deaths(session, "a") == []


# -- A9 exhaustion, rest and stims -----------------------------------------------------------------


def test_A9_exhausted_initiative_cannot_rise_edge_boost_refused(session: Session) -> None:
    duel(session, "init=12 hlt=20 sta=100 edge=2", "init=10")
    run(session, "start", "hit a 15")  # Critical: initiative 0 until the end of combat
    refused(session, "boost a", r"held at 0 \(Critical injury\)")
    duel(session, "init=12 sta=10 edge=2")
    run(session, "fatigue a 10")
    refused(session, "boost a", r"held at 0 \(Exhausted\) and cannot rise")
    run(session, "fatigue a -10", "boost a", "fatigue a 10", "start")  # exhausted after the boost
    assert any("Edge boost has no effect: Exhausted" in t for t in texts(session))
    assert not any("Edge boost:" in t for t in texts(session))  # nothing rolled
    assert sheet(session, "a").turn_init == 0


def test_A9_fatigue_minus_1_per_10_full_idle_rounds_offered_for_the_gm(session: Session) -> None:
    run(session, "new 2297 T seed=4", "add A init=10 sta=10", "add B init=5", "start")
    run(session, "fatigue a 10")  # Exhausted during round 1: round 1 is not a full round
    for _ in range(10):
        run(session, "next", "next")  # rounds 1..10 end; from round 2 B goes first
    assert (session.encounter.round, session.encounter.current) == (11, "b")
    assert derived(session, "a")["recover_due"] == 0
    assert derived(session, "a")["idle_rounds"] == 9  # rounds 2..10
    run(session, "next", "minor")  # round 11: A takes an action, so round 11 does not count
    run(session, "next")
    assert derived(session, "a")["idle_rounds"] == 9
    run(session, "next", "next")  # round 12 ends: the 10th full round without an action
    assert derived(session, "a")["recover_due"] == 1
    assert sheet(session, "a").fatigue == 10  # offered, not applied
    offer = [e for e in session.encounter.log if e.text.endswith("confirm: recover a")]
    assert len(offer) == 1 and offer[0].kind is Kind.EFFECT
    run(session, "recover a")
    assert sheet(session, "a").fatigue == 9
    assert derived(session, "a")["recover_due"] == 0
    refused(session, "recover a", "no fatigue recovery due")


def test_A9_one_grit_check_per_patch_own_r_plus_5_per_patch_while_pending(
    session: Session,
) -> None:
    duel(session, "sta=100")
    run(session, "fatigue a 60", "start", "stim a 1")
    (p1,) = sheet(session, "a").patches
    assert (p1.id, p1.rating, p1.tn, p1.fatigue) == (1, 1, 21, "2d6+2")
    run(session, "stim a 3")  # applied while patch 1 is pending: patch 1's TN +5
    p1, p2 = sheet(session, "a").patches
    assert (p1.tn, p2.tn, p2.fatigue) == (26, 23, "2d6+6")
    checks = derived(session, "a")["grit_checks"]
    assert isinstance(checks, list)
    assert [(c["patch"], c["tn"]) for c in checks] == [(1, 26), (2, 23)]
    run(session, "grit a 25 patch=1")  # 25 < 26: fails
    assert any("fails the Grit check of stim patch 1 (25 vs TN 26)" in t for t in texts(session))
    run(session, "stim a 0")  # patch 2 is pending: its TN +5; patch 1 is resolved
    p2, p3 = sheet(session, "a").patches
    assert (p2.id, p2.tn, p3.id, p3.tn, p3.fatigue) == (2, 28, 3, 20, "2d6")
    refused(session, "grit a 30 patch=1", "no pending stim patch 1")


def test_A9_each_patch_is_due_at_its_own_time(session: Session) -> None:
    run(session, "new 2297 T seed=8", "add A init=10 sta=100", "start", "stim a 1", "stim a 2")
    p1, p2 = sheet(session, "a").patches
    for _ in range(max(p1.due_round, p2.due_round)):
        run(session, "next")
    due = [t for t in texts(session) if "is due now" in t]
    assert due == [
        f"A: Grit check of stim patch {p.id} (R{p.rating}) vs TN {p.tn} is due now: "
        f"grit a TOTAL patch={p.id}"
        for p in sorted((p1, p2), key=lambda p: (p.due_round, p.id))
    ]


# -- A11 Pinned and Overwatch ----------------------------------------------------------------------


def test_A11_pinned_until_the_start_of_the_attackers_next_turn_not_a_reaction(
    session: Session,
) -> None:
    duel(session)
    run(session, "start", "cond b pinned by=a", "next", "react a")  # A's Reaction on B's turn
    assert sheet(session, "b").has("pinned")
    run(session, "next")  # round 2, A's turn starts
    assert not sheet(session, "b").has("pinned")
    assert "B is no longer pinned (A acts)" in texts(session)


def test_A11_unused_overwatch_ends_at_the_end_of_the_round(session: Session) -> None:
    duel(session, "init=10", "init=20")
    run(session, "start", "next", "overwatch")  # A, last in the order, goes on Overwatch
    assert sheet(session, "a").has("overwatch")
    run(session, "next")  # the round ends
    assert not sheet(session, "a").has("overwatch")
    assert "A's unused Overwatch ends (end of round 1)" in texts(session)
    duel(session, "init=20", "init=10")
    run(session, "start", "overwatch", "next")  # still on in the same round
    assert sheet(session, "a").has("overwatch")
    run(session, "react a overwatch")
    assert not sheet(session, "a").has("overwatch")


# -- A3/C4 typed initiative ------------------------------------------------------------------------


def test_A3_add_init_typed_negative_refused_rolled_negative_counts_as_zero(
    session: Session,
) -> None:
    run(session, "new 2297 T seed=1")
    refused(session, "add V init=1+1+0-4", "at least 0")
    refused(session, "add V init=-2", "at least 0")
    run(session, "add V init=1d6-9")
    assert session.encounter.get("v").initiative == 0
    assert "V initiative: the roll's" in texts(session)[-2]
    refused(session, "init v -1", "at least 0")
    run(session, "init v 1d4-9")
    assert session.encounter.get("v").initiative == 0
    refused(session, "set v init 2-5", "at least 0")


def test_C4_typed_init_wins_over_a_pending_rollinit(session: Session) -> None:
    duel(session, "init=20", "init=10")
    run(session, "start", "rollinit a")
    assert sheet(session, "a").refocus >= 0
    run(session, "init a 14")
    assert sheet(session, "a").refocus == -1
    run(session, "next", "next")  # round 2
    assert session.encounter.get("a").initiative == 14
    assert sheet(session, "a").turn_init == 14
    overrides = [e.text for e in session.encounter.log if e.kind is Kind.OVERRIDE]
    assert any("pending roll" in t for t in overrides)


def test_C4_typed_init_in_setup_is_not_rolled_over_at_start(session: Session) -> None:
    run(session, "new 2297 T seed=1", "add V", "init v 0", "start")
    assert session.encounter.get("v").initiative == 0
    assert not any(t.startswith("V initiative: 1d6") for t in texts(session))


def test_A9_a_legacy_stim_window_reads_as_one_pending_patch(session: Session) -> None:
    """Saves from before per-patch checks kept one window (``stims``): it stays resolvable."""
    from attrs import evolve

    from facility_tui.systems.r2297.sheet import Stims

    duel(session, "sta=100")
    enc = session.encounter
    a = enc.get("a")
    assert isinstance(a.sheet, Sheet2297)
    old = evolve(a.sheet, stims=Stims(2, 3, "2d6+6+2d6+2", 40), fatigue=50)
    session.encounter = enc.replace(evolve(a, sheet=old))
    (legacy,) = sheet(session, "a").pending_patches
    assert (legacy.id, legacy.rating, legacy.tn) == (0, 3, 28)
    run(session, "stim a 1")  # a new patch while the window is pending: +5 to it
    assert [(p.id, p.tn) for p in sheet(session, "a").pending_patches] == [(0, 33), (1, 21)]
    run(session, "grit a 40 patch=0")
    assert sheet(session, "a").stims == Stims()
    assert [p.id for p in sheet(session, "a").pending_patches] == [1]
