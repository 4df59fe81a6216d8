"""Unit tests of the pure Facility rules (systems/facility/rules.py), named after rule ids
(docs/rules.md)."""

from __future__ import annotations

import pytest
from attrs import evolve
from hypothesis import given
from hypothesis import strategies as st

from facility_tui.systems.base import RuleError
from facility_tui.systems.facility.rules import (
    PPE_CATALOG,
    STATS,
    WEAPONS,
    Condition,
    Piece,
    Saves,
    Stat,
    ablate,
    add_wounds,
    blast_shares,
    can_act,
    capacity,
    competence,
    condition,
    covering,
    impaired,
    impaired_count,
    parts_spent,
    ppe_item,
    propose_spill,
    remove_wounds,
    save_value,
    scar,
    shift_heal,
    stat_key,
    stat_of,
    suggest_stat,
    weapon,
    with_stat,
    wound_impaired,
)
from facility_tui.systems.facility.sheet import FacilitySheet


def sheet(**bonuses: int) -> FacilitySheet:
    s = FacilitySheet()
    for key, b in bonuses.items():
        s = with_stat(s, key, Stat(bonus=b))
    return s


def wounded(s: FacilitySheet, **wounds: int) -> FacilitySheet:
    for key, n in wounds.items():
        s = with_stat(s, key, evolve(stat_of(s, key), wounds=n))
    return s


# -- F1 --------------------------------------------------------------------------------------------


def test_F1_competence_scale() -> None:
    expected = {3: -3, 4: -3, 5: -2, 6: -2, 7: -1, 9: -1, 10: 0, 11: 0, 12: 1, 14: 1, 15: 2}
    expected |= {16: 2, 17: 3, 18: 3}
    assert {t: competence(t) for t in expected} == expected


def test_F1_stat_names_and_unknown_stat() -> None:
    assert [stat_key(t) for t in ("Physique", "sci", "I", "admin", "NOR")] == list(STATS)
    with pytest.raises(RuleError, match="unknown stat 'luck'"):
        stat_key("luck")


# -- F4 capacities ---------------------------------------------------------------------------------


def test_F4_capacity_with_scars_and_minus_3() -> None:
    assert capacity(Stat(bonus=2)) == 5
    assert capacity(Stat(bonus=1, scars=2)) == 2
    assert capacity(Stat(bonus=-3)) == 0
    assert wound_impaired(Stat(bonus=-3))  # capacity 0 and a −3 bonus
    assert wound_impaired(Stat(bonus=-1, scars=2))  # capacity 0
    assert not wound_impaired(Stat(bonus=-2, wounds=0))  # capacity 1, no wounds
    assert wound_impaired(Stat(bonus=-2, wounds=1))
    assert wound_impaired(Stat(bonus=0, scars=4))  # capacity below 0


def test_F4_spill_over_chain_proposes_the_roomiest_stat() -> None:
    s = wounded(sheet(phy=0, sci=1, ins=2), phy=2)  # Physique has 1 room; Insight 5
    new, landing = add_wounds(s, "phy", 8)
    assert landing.placed == (("phy", 1), ("ins", 5), ("sci", 2))
    assert landing.proposed == ("ins", "sci")
    assert landing.lost == 0
    assert [stat_of(new, k).wounds for k in STATS] == [3, 2, 5, 0, 0]


def test_F4_spill_over_follows_the_gms_picks_then_proposals() -> None:
    s = sheet()
    _, landing = add_wounds(s, "phy", 7, spill=["nor"])
    assert landing.placed == (("phy", 3), ("nor", 3), ("sci", 1))
    assert landing.proposed == ("sci",)


def test_F4_spill_onto_an_impaired_stat_is_refused() -> None:
    s = wounded(sheet(), adm=3)
    with pytest.raises(RuleError, match="cannot spill onto Admin: it is Impaired"):
        add_wounds(s, "phy", 4, spill=["adm"])
    with pytest.raises(RuleError, match="another stat"):
        add_wounds(s, "phy", 4, spill=["phy"])


def test_F4_wounds_on_an_impaired_stat_all_spill() -> None:
    s = wounded(sheet(), phy=3)
    _, landing = add_wounds(s, "phy", 2)
    assert landing.placed == (("sci", 2),)


def test_F4_everything_impaired_wounds_have_nowhere_to_go() -> None:
    s = wounded(sheet(), phy=3, sci=3, ins=3, adm=3, nor=2)
    new, landing = add_wounds(s, "phy", 4)
    assert landing.placed == (("nor", 1),)
    assert landing.lost == 3
    assert condition(new) is Condition.DEAD


def test_F4_third_impairment_incapacitates_fifth_kills_and_gm_may_overrule() -> None:
    s = wounded(sheet(), phy=3, sci=3)
    assert condition(s) is Condition.IMPAIRED and can_act(s)
    s = wounded(s, ins=3)
    assert condition(s) is Condition.INCAPACITATED and not can_act(s)
    s = wounded(s, adm=3)
    assert condition(s) is Condition.INCAPACITATED
    s = wounded(s, nor=3)
    assert impaired_count(s) == 5
    assert condition(s) is Condition.DEAD
    assert condition(evolve(s, overrule=True)) is Condition.INCAPACITATED


def test_F4_ppe_impairment_spills_but_does_not_count() -> None:
    s = evolve(sheet(), ppe=(Piece("Hazmat Suit"), Piece("Plate Carrier")))
    assert impaired(s, "nor") and impaired(s, "phy")
    assert impaired_count(s) == 0
    assert condition(s) is Condition.OK
    _, landing = add_wounds(s, "nor", 2)
    assert landing.placed == (("sci", 2),)
    assert not impaired(evolve(s, armor=True), "phy")  # Armor Expertise lifts it


# -- F3 / F6 ---------------------------------------------------------------------------------------


def test_F3_saves_job_base_perks_and_ppe() -> None:
    s = evolve(
        sheet(phy=3, ins=3, nor=3),
        base=Saves(explosions=2, contaminants=2),
        ppe=(Piece("Lab Coat"), Piece("Earmuffs")),
    )
    assert save_value(s, "weapons") == 1  # Physique +3
    assert save_value(s, "contaminants") == 2 + 1 + 1  # base + Physique perk + Lab Coat
    assert save_value(s, "explosions") == 2 + 1 + 2  # base + Insight perk + Earmuffs
    assert save_value(s, "trauma") == 1
    assert save_value(s, "anomalies") == 2 + 1  # Normal perk + Lab Coat
    assert save_value(sheet(sci=3, adm=3), "contaminants") == 2
    assert save_value(sheet(sci=3, adm=3), "trauma") == 2


def test_F6_catalog_has_the_twenty_items_of_seed_001() -> None:
    names = [p.name for p in PPE_CATALOG]
    assert len(names) == 20
    assert names[0] == "Hazmat Suit" and names[-1] == "Work Boots"
    ratings = {p.name: p.rating for p in PPE_CATALOG}
    assert ratings["Hazmat Suit"] == 3 and ratings["Plate Carrier"] == 3
    assert ratings["Respirator"] == 2 and ratings["Security Vest"] == 2
    assert ratings["Field Agent Suit"] == 2 and ratings["Welding Mask"] == 2
    # seed 001, items 1–20 in order
    assert list(ratings.values()) == [3, 1, 2, 1, 1, 2, 1, 1, 1, 2, 1, 1, 1, 3, 2, 1, 1, 1, 1, 1]
    assert ppe_item("#10").name == "Security Vest"
    assert ppe_item("gas").name == "Gas Mask"
    with pytest.raises(RuleError, match="could be"):
        ppe_item("vest")


def test_F6_narrow_bonuses_only_with_their_tag() -> None:
    boots = evolve(sheet(), ppe=(Piece("Work Boots"),))
    assert save_value(boots, "explosions") == 0
    assert save_value(boots, "explosions", "electricity") == 2
    lead = evolve(sheet(), ppe=(Piece("Lead Vest"),))
    assert save_value(lead, "contaminants") == 0
    assert save_value(lead, "contaminants", "radiation") == 3
    muffs = evolve(sheet(), ppe=(Piece("Earmuffs"),))
    assert save_value(muffs, "explosions", "sonic") == 2  # best bonus once, not 4
    assert save_value(muffs, "trauma", "sonic") == 2


def test_F6_marks_reaching_rating_lose_the_save_bonus() -> None:
    s = evolve(sheet(), ppe=(Piece("Respirator"),))
    assert save_value(s, "contaminants") == 2
    s, piece = ablate(s, "Respirator", "contaminants")
    assert piece.marks == 1 and save_value(s, "contaminants") == 2
    s, piece = ablate(s, "resp", "contaminants")
    assert piece.marks == 2 and not piece.protects
    assert save_value(s, "contaminants") == 0
    assert covering(s, "contaminants") == []
    with pytest.raises(RuleError, match="exhausted"):
        ablate(s, "Respirator", "contaminants")


def test_F5_ablate_refuses_what_does_not_cover_or_is_not_worn() -> None:
    s = evolve(sheet(), ppe=(Piece("Hard Hat"), Piece("Security Vest")))
    with pytest.raises(RuleError, match="Security Vest does not cover explosions"):
        ablate(s, "Security Vest", "explosions")
    with pytest.raises(RuleError, match="Hard Hat does not cover trauma"):
        ablate(s, "Hard Hat", "trauma")
    ablate(s, "Hard Hat", "trauma", "falling")  # covers falling objects
    with pytest.raises(RuleError, match="not wearing Respirator"):
        ablate(s, "Respirator", "contaminants")


def test_F5_hazard_to_stat_suggestions() -> None:
    assert suggest_stat("weapons") == ("phy", "weapons")
    assert suggest_stat("anomalies")[0] == "nor"
    assert suggest_stat("explosions", "flashbang")[0] == "ins"
    assert suggest_stat("weapons", "concussion")[0] == "sci"
    assert suggest_stat("trauma", "fear")[0] == "nor"
    assert suggest_stat("trauma", "morale")[0] == "adm"
    assert suggest_stat("weapons", "bugs")[0] == "nor"  # an example from another hazard
    with pytest.raises(RuleError, match="unknown kind of harm"):
        suggest_stat("weapons", "tickles")


# -- F8 / F9 / F10 / F12 ---------------------------------------------------------------------------


def test_F8_weapons_catalog() -> None:
    assert len(WEAPONS) == 10
    assert (weapon("smg").max_damage, weapon("smg").crit_dice) == (4, "2d4")
    assert (weapon("rifle").damage, weapon("rifle").crit_dice) == ("1d6", "2d6")
    assert (weapon("shotgun").damage, weapon("shotgun").max_damage) == ("1d4+2", 6)
    assert weapon("pistol").gun and not weapon("grenade").gun and weapon("grenade").consumable
    assert weapon("unarmed").max_damage == 0 and weapon("unarmed").crit_dice == "1d6"
    assert weapon("1d8+1").max_damage == 9
    with pytest.raises(RuleError, match="unknown weapon"):
        weapon("banana")


def test_F9_scar_needs_an_impaired_stat_and_lowers_capacity() -> None:
    s = wounded(sheet(phy=1), phy=4)
    s = scar(s, "phy")
    assert (stat_of(s, "phy").wounds, stat_of(s, "phy").scars, capacity(s.phy)) == (0, 1, 3)
    with pytest.raises(RuleError, match="not Impaired"):
        scar(wounded(sheet(), sci=1), "sci")


def test_F9_shift_heals_one_wound_per_stat_never_below_zero() -> None:
    s = wounded(sheet(), phy=2, ins=1)
    s, healed = shift_heal(s)
    assert healed == 2 and [stat_of(s, k).wounds for k in STATS] == [1, 0, 0, 0, 0]


def test_F10_simple_track_fills_and_puts_out() -> None:
    s = FacilitySheet(track=3)
    s, landing = add_wounds(s, "phy", 5)
    assert s.track_wounds == 3 and landing.lost == 2
    assert condition(s) is Condition.OUT


def test_F12_parts_spent_and_blast_shares() -> None:
    assert parts_spent("blast", [4, 1, 6], clearance=3) == 2
    assert parts_spent("blast", [4, 1, 6], clearance=1) == 3  # X above Clearance
    assert parts_spent("reroute", [1, 1], clearance=5) == 2
    assert blast_shares(10, 3) == [4, 3, 3]
    assert blast_shares(2, 3) == [1, 1, 0]
    with pytest.raises(RuleError):
        blast_shares(5, 0)


# -- invariants ------------------------------------------------------------------------------------

bonuses = st.integers(min_value=-3, max_value=3)
stats = st.builds(
    Stat,
    bonus=bonuses,
    wounds=st.integers(min_value=0, max_value=6),
    scars=st.integers(min_value=0, max_value=3),
)
sheets = st.builds(FacilitySheet, phy=stats, sci=stats, ins=stats, adm=stats, nor=stats)


@given(sheets, st.sampled_from(STATS), st.integers(min_value=1, max_value=30))
def test_F4_wounds_are_conserved_and_never_negative(s: FacilitySheet, key: str, count: int) -> None:
    before = sum(stat_of(s, k).wounds for k in STATS)
    new, landing = add_wounds(s, key, count)
    after = sum(stat_of(new, k).wounds for k in STATS)
    assert after - before == sum(n for _, n in landing.placed)
    assert sum(n for _, n in landing.placed) + landing.lost == count
    for k in STATS:
        assert stat_of(new, k).wounds >= 0
        if stat_of(new, k).wounds > stat_of(s, k).wounds:  # only gained up to capacity
            assert stat_of(new, k).wounds <= capacity(stat_of(new, k))
    if landing.lost:
        assert propose_spill(new) == ""


@given(sheets, st.sampled_from(STATS), st.integers(min_value=1, max_value=10))
def test_F9_healing_never_goes_negative(s: FacilitySheet, key: str, count: int) -> None:
    new, took = remove_wounds(s, key, count)
    assert stat_of(new, key).wounds == max(0, stat_of(s, key).wounds - count)
    assert took == stat_of(s, key).wounds - stat_of(new, key).wounds
    healed, _ = shift_heal(s)
    assert all(stat_of(healed, k).wounds >= 0 for k in STATS)


@given(bonuses, st.integers(min_value=0, max_value=5), st.integers(min_value=0, max_value=8))
def test_F4_capacity_math(bonus: int, scars: int, wounds: int) -> None:
    s = Stat(bonus=bonus, scars=scars, wounds=wounds)
    assert capacity(s) == 3 + bonus - scars
    assert wound_impaired(s) == (capacity(s) <= 0 or wounds >= capacity(s) or bonus <= -3)


@given(st.integers(min_value=0, max_value=60), st.integers(min_value=1, max_value=8))
def test_F12_blast_shares_sum_and_differ_by_at_most_one(total: int, n: int) -> None:
    shares = blast_shares(total, n)
    assert sum(shares) == total and max(shares) - min(shares) <= 1
    assert shares == sorted(shares, reverse=True)
