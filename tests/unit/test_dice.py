"""C3: dice notation, one seeded RNG per encounter, recorded results."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from facility_tui.commands.dice import Dice, DiceError


def test_C3_same_seed_same_rolls() -> None:
    a, b = Dice(7, 0), Dice(7, 0)
    assert [a.roll("2d10").total for _ in range(5)] == [b.roll("2d10").total for _ in range(5)]


def test_C3_position_advances_and_changes_results() -> None:
    d = Dice(7, 0)
    rolls = [d.roll("1d1000").total for _ in range(20)]
    assert d.position == 20
    assert len(set(rolls)) > 10


@pytest.mark.parametrize(
    ("expr", "low", "high"),
    [("3d6+2", 5, 20), ("2d10", 2, 20), ("3d10kh2", 2, 20), ("1d6-1", 0, 5), ("4d6kl1", 1, 6)],
)
def test_C3_notation(expr: str, low: int, high: int) -> None:
    d = Dice(1, 0)
    for _ in range(30):
        r = d.roll(expr)
        assert low <= r.total <= high
        assert "=" in r.detail


@pytest.mark.parametrize("bad", ["2d", "d0", "100000d6", "1d999999", "", "foo", "2d6+"])
def test_C3_bad_dice_is_a_clear_error(bad: str) -> None:
    with pytest.raises(DiceError) as err:
        Dice(1, 0).value(bad)
    assert "\n" not in str(err.value)


def test_C3_replay_gives_recorded_results_without_rolling() -> None:
    first = Dice(3, 0)
    recorded = [first.roll("2d6"), first.roll("1d20")]
    again = Dice(999, 50, recorded)  # another seed: replay must not roll at all
    assert again.roll("2d6") == recorded[0]
    assert again.roll("1d20") == recorded[1]


def test_C3_replay_that_no_longer_lines_up_rolls_fresh() -> None:
    recorded = [Dice(3, 0).roll("2d6")]
    d = Dice(3, 0, recorded)
    r = d.roll("1d4")
    assert 1 <= r.total <= 4


def test_value_accepts_plain_numbers_without_rolling() -> None:
    d = Dice(1, 0)
    assert d.value("12") == (12, None)
    assert d.value("-3") == (-3, None)
    assert d.position == 0


@given(st.integers(min_value=0, max_value=2**31), st.integers(min_value=1, max_value=20))
def test_C3_rolls_stay_in_range(seed: int, sides: int) -> None:
    r = Dice(seed, 0).roll(f"3d{sides}")
    assert 3 <= r.total <= 3 * sides


@given(
    st.integers(min_value=1, max_value=30),
    st.integers(min_value=1, max_value=100),
    st.sampled_from(["", "+", "-"]),
    st.integers(min_value=0, max_value=50),
    st.integers(min_value=0, max_value=2**32),
)
def test_C3_plain_dice_roll_alike_with_or_without_d20(
    count: int, sides: int, sign: str, k: int, seed: int
) -> None:
    """The fast path for NdM±K draws the same dice and writes the same text as d20."""
    from facility_tui.commands.dice import rng_for, roll_d20, roll_simple

    expr = f"{count}d{sides}" + (f"{sign}{k}" if sign else "")
    fast = roll_simple(expr, rng_for(seed, 3))
    assert fast == roll_d20(expr, rng_for(seed, 3))


@pytest.mark.system  # (a process of its own)
def test_C3_plain_dice_do_not_import_d20() -> None:
    import subprocess
    import sys

    code = (
        "import sys\nfrom facility_tui.commands.dice import Dice\nd = Dice(1, 0)\n"
        "d.roll('2d6+3'); d.roll('d10'); d.value('1d6-1')\n"
        "assert 'd20' not in sys.modules\nd.roll('3d10kh2')\nassert 'd20' in sys.modules\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
