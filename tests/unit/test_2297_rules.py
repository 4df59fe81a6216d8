"""2297 pure rules: bands (A4), injury thresholds (A7), armor and mitigation (A6), fatigue (A9),
attack helper arithmetic (A5)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from facility_tui.systems.base import RuleError
from facility_tui.systems.r2297.rules import (
    BANDS,
    Armor,
    DamageType,
    Level,
    Tired,
    add_dice,
    attack_pool,
    attack_tn,
    band,
    fire_mode,
    injury_level,
    layered,
    mitigate,
    parse_ap,
    parse_armor,
    success_dice,
    tiredness,
)
from facility_tui.systems.r2297.weapons import ammo_needed, parse_weapon

# -- A4 bands -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("init", "name", "actions"),
    [
        (0, "Slow", (1, 1, 0)),
        (9, "Slow", (1, 1, 0)),
        (10, "Normal", (1, 1, 1)),
        (19, "Normal", (1, 1, 1)),
        (20, "Fast", (1, 1, 2)),
        (29, "Fast", (1, 1, 2)),
        (30, "Lightning", (2, 1, 2)),
        (39, "Lightning", (2, 1, 2)),
        (40, "Superhuman", (2, 1, 3)),
        (49, "Superhuman", (2, 1, 3)),
        (50, "Supernatural", (3, 1, 3)),
        (99, "Supernatural", (3, 1, 3)),
    ],
)
def test_A4_band_boundaries(init: int, name: str, actions: tuple[int, int, int]) -> None:
    b = band(init)
    assert (b.name, (b.major, b.move, b.minor)) == (name, actions)


def test_A3_negative_initiative_counts_as_slow() -> None:
    assert band(-4).name == "Slow"


@given(st.integers(-50, 200))
def test_A4_band_read_from_its_table_is_the_band_the_rule_finds(init: int) -> None:
    """The band of a common initiative is read from a table (each economy asks it): the one
    the bands give, below the table, across it and above it."""
    found = BANDS[0]
    for b in BANDS:  # the last band whose lowest initiative it reaches
        if init >= b.low:
            found = b
    assert band(init) is found


# -- A7 thresholds --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("damage", "health", "level"),
    [
        (0, 20, Level.NONE),
        (1, 20, Level.LIGHT),
        (4, 20, Level.LIGHT),
        (5, 20, Level.MODERATE),
        (9, 20, Level.MODERATE),
        (10, 20, Level.SERIOUS),
        (14, 20, Level.SERIOUS),
        (15, 20, Level.CRITICAL),
        (19, 20, Level.CRITICAL),
        (20, 20, Level.LETHAL),
        (45, 20, Level.LETHAL),
        # Health 30: 25% = 7.5, 50% = 15, 75% = 22.5 — integer compares (4d ≥ H ...)
        (7, 30, Level.LIGHT),
        (8, 30, Level.MODERATE),
        (14, 30, Level.MODERATE),
        (15, 30, Level.SERIOUS),
        (22, 30, Level.SERIOUS),
        (23, 30, Level.CRITICAL),
        (29, 30, Level.CRITICAL),
        (30, 30, Level.LETHAL),
    ],
)
def test_A7_injury_threshold_boundaries(damage: int, health: int, level: Level) -> None:
    assert injury_level(damage, health) is level


def test_A7_seed_example_health_30_pt25_dr60_takes_25_as_moderate() -> None:
    m = mitigate(25, (Armor("Plate", 25, 60),))
    assert (m.pt, m.dr, m.final) == (25, 60, 10)
    assert injury_level(m.final, 30) is Level.MODERATE


def test_A7_lowering_below_light_is_no_injury() -> None:
    assert Level.LIGHT.lowered() is Level.NONE
    assert Level.NONE.lowered() is Level.NONE
    assert Level.LETHAL.lowered() is Level.CRITICAL


# -- A6 armor -------------------------------------------------------------------------------------


def test_A6_layering_seed_examples() -> None:
    coat = Armor("Coat", 15, 20)
    assert layered((coat, Armor("Eldritch", 15, 20))) == (15, 30)
    assert layered((coat, Armor("Combat", 25, 40))) == (25, 50)


def test_A6_only_two_layers_count_and_dr_caps_at_80() -> None:
    assert layered((Armor("a", 5, 10), Armor("b", 10, 20), Armor("c", 1, 30))) == (10, 40)
    assert layered((Armor("a", 30, 60), Armor("b", 20, 50))) == (30, 80)
    assert layered((Armor("cover", 60, 100),)) == (60, 80)
    assert layered(()) == (0, 0)


VEST_HELMET = (Armor("Vest", 15, 20), Armor("Helmet", 5, 10))  # PT 15, DR 25


@pytest.mark.parametrize(
    ("kind", "raw", "pt", "dr", "final"),
    [
        (DamageType.PHYSICAL, 14, 15, 25, 0),
        (DamageType.PHYSICAL, 15, 15, 25, 11),  # 15 × 75 / 100 = 11.25 → 11
        (DamageType.STUN, 19, 20, 45, 0),
        (DamageType.STUN, 20, 20, 45, 11),
        (DamageType.ENERGY, 4, 5, 5, 0),
        (DamageType.ENERGY, 5, 5, 5, 4),
        (DamageType.ENERGY, 30, 5, 5, 28),
    ],
)
def test_A6_layered_armor_with_each_damage_type(
    kind: DamageType, raw: int, pt: int, dr: int, final: int
) -> None:
    m = mitigate(raw, VEST_HELMET, kind)
    assert (m.pt, m.dr, m.final) == (pt, dr, final)


def test_A6_stun_against_no_armor_meets_pt5_dr20() -> None:
    assert mitigate(4, (), DamageType.STUN).final == 0
    m = mitigate(5, (), DamageType.STUN)
    assert (m.pt, m.dr, m.final) == (5, 20, 4)


def test_A6_energy_against_no_armor_floors_at_zero() -> None:
    m = mitigate(7, (), DamageType.ENERGY)
    assert (m.pt, m.dr, m.final) == (0, 0, 7)


def test_A6_armor_piercing_subtracts_pt_and_dr() -> None:
    m = mitigate(12, VEST_HELMET, DamageType.PHYSICAL, ap_pt=5, ap_dr=20)
    assert (m.pt, m.dr, m.final) == (10, 5, 11)
    assert parse_ap("5") == (5, 0)
    assert parse_ap("5/20") == (5, 20)
    with pytest.raises(RuleError):
        parse_ap("lots")


def test_A6_stun_on_dr80_reaches_100_and_stops_everything() -> None:
    m = mitigate(200, (Armor("a", 30, 60), Armor("b", 20, 50)), DamageType.STUN)
    assert (m.pt, m.dr, m.final) == (35, 100, 0)


def test_A6_parse_armor_and_bad_armor() -> None:
    assert parse_armor("Vest 5/30, Helmet 2/10") == (Armor("Vest", 5, 30), Armor("Helmet", 2, 10))
    assert parse_armor("none") == ()
    with pytest.raises(RuleError, match="0 to 100"):
        parse_armor("Vest 5/120")
    with pytest.raises(RuleError, match="PT/DR"):
        parse_armor("Vest heavy")
    with pytest.raises(RuleError):
        mitigate(-1, ())


armors = st.lists(
    st.builds(Armor, st.just("x"), st.integers(0, 80), st.integers(0, 100)), max_size=4
)


@given(
    raw=st.integers(0, 500),
    armor=armors,
    kind=st.sampled_from(list(DamageType)),
    ap_pt=st.integers(0, 50),
    ap_dr=st.integers(0, 100),
)
def test_A6_damage_never_negative_nor_above_raw_and_dr_within_0_100(
    raw: int, armor: list[Armor], kind: DamageType, ap_pt: int, ap_dr: int
) -> None:
    m = mitigate(raw, tuple(armor), kind, ap_pt, ap_dr)
    assert 0 <= m.final <= raw
    assert 0 <= m.dr <= 100
    assert m.pt >= 0
    assert layered(tuple(armor))[1] <= 80


@given(d=st.integers(0, 300), h=st.integers(1, 100))
def test_A7_level_grows_with_damage(d: int, h: int) -> None:
    assert injury_level(d, h).rank <= injury_level(d + 1, h).rank


# -- A9 fatigue -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("fatigue", "state"),
    [
        (0, Tired.FRESH),
        (9, Tired.FRESH),
        (10, Tired.FATIGUED),
        (19, Tired.FATIGUED),
        (20, Tired.EXHAUSTED),
        (39, Tired.EXHAUSTED),
        (40, Tired.UNCONSCIOUS),
    ],
)
def test_A9_fatigue_thresholds(fatigue: int, state: Tired) -> None:
    assert tiredness(fatigue, 20) is state


def test_A9_odd_stamina_half_is_compared_exactly() -> None:
    assert tiredness(10, 21) is Tired.FRESH  # 10 < 10.5
    assert tiredness(11, 21) is Tired.FATIGUED


# -- A5 attack helper -----------------------------------------------------------------------------


def test_A5_pools_tn_and_damage_dice() -> None:
    assert attack_pool(0) == "2d10"
    assert attack_pool(2) == "4d10kh2"
    assert attack_pool(-1) == "3d10kl2"
    assert attack_tn(False) == 10
    assert attack_tn(True) == 20
    assert attack_tn(True, dodge=26) == 26  # Vanya vs the Abomination
    assert attack_tn(True, dodge=22, cover=5, evading=True) == 30
    assert [success_dice(m) for m in (0, 4, 5, 9, 10, 13)] == [0, 0, 1, 1, 2, 2]
    assert add_dice("4d6+2", 2) == "6d6+2"  # seed: heavy pistol, MoS +11
    assert add_dice("3d6+1", 4) == "7d6+1"  # seed: Aimed BF Perfect
    assert add_dice("1d6+2", -1) == "2"


def test_A5_bf_single_target_default_plus_1d6_or_advantage() -> None:
    assert fire_mode("BF", 1, 0) == (0, 1)  # default +1d6
    assert fire_mode("BF", 1, 0, "dice") == (0, 1)
    assert fire_mode("BF", 1, 0, "adv") == (1, 0)  # Advantage: +1 to the net count
    assert fire_mode("BF", 1, -2, "adv") == (1, 0)
    assert fire_mode("BF", 1, 1) == (0, 1)  # already has Advantage: always +1d6
    with pytest.raises(RuleError, match="already has Advantage"):
        fire_mode("BF", 1, 1, "adv")
    with pytest.raises(RuleError, match="single-target"):
        fire_mode("BF", 2, 0)


def test_A5_af_one_target_plus_2d6_or_advantage_several_targets_disadvantage() -> None:
    assert fire_mode("AF", 1, 0) == (0, 2)
    assert fire_mode("AF", 1, 0, "adv") == (1, 0)
    assert fire_mode("AF", 1, 2) == (0, 2)
    assert fire_mode("AF", 3, 0) == (-1, 0)  # each attack: Disadvantage, no extra dice
    assert fire_mode("AF", 2, 1) == (-1, 0)
    with pytest.raises(RuleError, match="no burst= pick"):
        fire_mode("AF", 2, 0, "dice")
    assert fire_mode("SS", 1, 0) == fire_mode("SA", 1, 3) == (0, 0)
    with pytest.raises(RuleError, match="one target"):
        fire_mode("SA", 2, 0)
    with pytest.raises(RuleError, match="BF / AF pick"):
        fire_mode("SS", 1, 0, "adv")


def test_A5_tn_ranged_dodge_not_raised_melee_parry_undefended_10() -> None:
    # ranged: max(base + cover + evading, Dodge); Dodge is not raised by cover or evading
    assert attack_tn(True, dodge=24, cover=5) == 25
    assert attack_tn(True, dodge=24, evading=True) == 25
    assert attack_tn(True, dodge=27, cover=5, evading=True) == 30
    assert attack_tn(True, dodge=31, cover=5, evading=True) == 31
    # Parry never counts against ranged attacks
    assert attack_tn(True, dodge=12, parry=28) == 20
    # melee: max(base, Dodge, Parry)
    assert attack_tn(True, dodge=12, parry=28, melee=True) == 28
    assert attack_tn(True, dodge=23, parry=21, melee=True) == 23
    assert attack_tn(True, dodge=15, parry=18, melee=True) == 20
    with pytest.raises(RuleError, match="ranged attacks only"):
        attack_tn(True, cover=5, melee=True)
    # undefended: TN 10, no Dodge or Parry
    assert attack_tn(False, dodge=30, parry=30) == 10
    assert attack_tn(False, dodge=30, parry=30, melee=True) == 10
    assert attack_tn(False, dodge=30, cover=5) == 15


def test_A5_ammo_by_fire_mode_and_weapon_text() -> None:
    assert [ammo_needed(m, 1) for m in ("SS", "SA", "BF", "AF")] == [1, 3, 5, 10]
    assert ammo_needed("AF", 3) == 30
    w = parse_weapon("FAM-90 5d6+1 SA/BF/AF 60")
    assert (w.name, w.damage, w.modes, w.ammo, w.capacity) == (
        "FAM-90",
        "5d6+1",
        ("SA", "BF", "AF"),
        60,
        60,
    )
    assert parse_weapon("Baton 2d6 stun").kind is DamageType.STUN
    with pytest.raises(RuleError):
        parse_weapon("Sword sharp")


def test_A7_A9_thresholds_are_where_the_levels_change() -> None:
    """The thresholds the detail pane shows are exactly where ``injury_level`` and ``tiredness``
    change level, for every Health and Stamina up to 200."""
    from facility_tui.systems.r2297.rules import (
        Tired,
        fatigue_thresholds,
        injury_level,
        injury_thresholds,
        tiredness,
    )

    for h in range(1, 201):
        for level, d in injury_thresholds(h):  # the first damage at this level or worse
            assert injury_level(d, h).rank >= level.rank, (h, level)
            assert injury_level(d - 1, h).rank < level.rank, (h, level)
        order = list(Tired)
        for state, f in fatigue_thresholds(h):  # the first fatigue at this state or worse
            assert order.index(tiredness(f, h)) >= order.index(state), (h, state)
            assert order.index(tiredness(f - 1, h)) < order.index(state), (h, state)
