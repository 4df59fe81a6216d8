"""2297 through the headless CLI: ``apply`` then ``show --json`` (A3, A4, A6, A7, C2, C3)."""

from __future__ import annotations

from pathlib import Path

import pytest

from facility_tui.cli import main
from tests.conftest import by_id, show_json


def test_A6_A7_layered_armor_hit_shows_in_json(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    save = tmp_path / "fight.toml"
    code = main(
        [
            "apply",
            str(save),
            "-q",
            "new 2297 Boarding seed=2297",
            'add "Sgt. Blanc" side=pc hlt=30 sta=40 init=14 armor="Combat 25/40, Helmet 10/20"',
            "add Boarder init=9",
            "start",
            "hit blanc 40",  # PT 25, DR 50 → 20: Serious for Health 30
        ]
    )
    assert code == 0
    data = show_json(save, capsys)
    blanc = by_id(data, "sgt-blanc")
    d = blanc["derived"]
    assert (d["pt"], d["dr"], d["damage"], d["injury"]) == (25, 50, 20, "serious")
    assert d["Injury"] == "Serious"
    assert d["limit"] == "Serious injury"
    assert d["actions"] == {"major": 1, "move": 1, "minor": 1}
    assert d["one_action_left"] == 1
    assert d["reaction"] is False
    assert blanc["sheet"]["fatigue"] == 10
    assert any(
        e["text"] == "Hit on Sgt. Blanc: 40 physical vs PT 25 DR 50% → 20 gets through"
        for e in data["log"]
    )


@pytest.mark.parametrize(
    ("init", "band"), [(29, "Fast"), (30, "Lightning"), (49, "Superhuman"), (50, "Supernatural")]
)
def test_A4_bands_in_json(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], init: int, band: str
) -> None:
    save = tmp_path / "b.toml"
    assert main(["apply", str(save), "-q", "new 2297 B seed=1", f"add A init={init}", "start"]) == 0
    d = by_id(show_json(save, capsys), "a")["derived"]
    assert d["band"] == band
    assert d["Band"] == f"{band} {init}"


def test_C2_reload_replays_the_same_dice_and_effects(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    save = tmp_path / "r.toml"
    lines = [
        "new 2297 R seed=7",
        "add A side=pc init=15 edge=1 sta=60",
        "add B init=10 sta=60",
        "start",
        "hit b 2d6+6",
        "next",
        "hit a 12 energy",
        "soak a",
        "next",
        "next",
    ]
    assert main(["apply", str(save), "-q", *lines]) == 0
    first = show_json(save, capsys)
    assert main(["apply", str(save), "-q", "undo", "undo", "redo", "redo"]) == 0
    again = show_json(save, capsys)
    assert again["combatants"] == first["combatants"]
    assert again["round"] == 2


def test_A6_bad_damage_through_apply_changes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    save = tmp_path / "bad.toml"
    assert main(["apply", str(save), "-q", "new 2297 X seed=1", "add A"]) == 0
    before = save.read_text()
    assert main(["apply", str(save), "-q", "hit a -4"]) == 1
    assert "at least 0" in capsys.readouterr().err
    assert main(["apply", str(save), "-q", 'set a armor "Vest 10/101"']) == 1
    assert "0 to 100" in capsys.readouterr().err
    assert save.read_text() == before


def test_demo_2297_builds_with_sheets() -> None:
    from facility_tui.campaign.demo import demo_encounter

    enc = demo_encounter("2297")
    blanc = enc.get("sgt-blanc")
    assert blanc.sheet.hlt == 32
    assert len(enc.combatants) == 8
    assert all(c.initiative > 0 for c in enc.combatants)
