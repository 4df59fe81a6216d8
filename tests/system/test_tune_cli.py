"""``facility-tui tune`` as a process (issue 39): a fight that only one number of enemies tunes to
the target, found with two seeds; the save untouched byte for byte unless ``--apply``, which
writes one undoable step through ``apply``'s route (its lock); refusals in one line."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from facility_tui import store
from facility_tui.cli import main
from tests.paths import ROOT

# Ana against thugs: 1 thug 100 %, 2 thugs ~88 %, 3 ~40 %, 4 ~7 % (the seeds' forecasts)
FIGHT = (
    "new 2297 Duel seed=3",
    "add Ana side=pc ag=2 cu=2 hlt=30 sta=30 skill=14 dodge=16 weapon='SMG 3d6+1 SA 30'",
    "add Thug ag=1 cu=1 hlt=14 sta=14 skill=10 dodge=14 weapon='Pistol 2d6 SA 12'",
)


@pytest.fixture
def save(tmp_path: Path) -> Path:
    path = tmp_path / "duel.toml"
    assert main(["apply", str(path), "-q", *FIGHT]) == 0
    return path


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [sys.executable, "-m", "facility_tui", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )


def folder(path: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in path.parent.iterdir() if p.is_file()}


@pytest.mark.parametrize("seed", ["1", "2"])
def test_the_one_number_of_enemies_that_meets_the_target_with_either_seed(
    save: Path, seed: str
) -> None:
    before = folder(save)
    done = cli("tune", str(save), "--win", "88", "--seed", seed, "--json")
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    chosen = data["chosen"]
    assert chosen["counts"] == {"Thug": 2}
    assert chosen["change"] == {"Thug": {"from": 1, "to": 2}}
    assert chosen["line"] == "muster thug=2"
    win = chosen["win"]
    assert win["high"] - win["low"] <= 0.04 + 1e-9  # (±2 points at 95 %)
    assert 0.8 < win["share"] < 0.95
    assert {s["counts"]["Thug"] for s in data["steps"]} <= {1, 2, 3, 4}  # (no grid)
    assert data["applied"] is False
    assert folder(save) == before  # untouched, byte for byte


def test_the_text_says_the_steps_the_change_and_the_odds(save: Path) -> None:
    done = cli("tune", str(save), "--win", "88", "--deaths", "50", "--rounds", "3")
    assert done.returncode == 0, done.stderr
    out = done.stdout.splitlines()
    assert out[0] == "Duel: tuned to win 88 %, deaths at most 50 %, about 3 rounds (seed 3)"
    assert "Tried:" in out
    assert any(line.startswith("  Thug 1: win 100 % (") for line in out)
    assert "Chosen: Thug: 1 -> 2" in out
    assert "  muster thug=2" in out
    assert any(line.startswith("  PCs win ") for line in out)
    assert any(line.startswith("  A PC ends dying or dead in ") for line in out)
    assert any(line.startswith("  Rounds: median ") for line in out)


def test_apply_writes_the_muster_line_as_one_undoable_step(save: Path) -> None:
    done = cli("tune", str(save), "--win", "88", "--apply")
    assert done.returncode == 0, done.stderr
    assert "> muster thug=2" in done.stdout
    enc = store.open_save(save, keep_aside=False).session.encounter
    assert [c.name for c in enc.combatants] == ["Ana", "Thug", "Thug 2"]
    assert enc.log[-1].text == "Muster: Thug 1 -> 2 (added Thug 2)"
    assert cli("apply", str(save), "-q", "undo").returncode == 0
    enc = store.open_save(save, keep_aside=False).session.encounter
    assert [c.name for c in enc.combatants] == ["Ana", "Thug"]


def test_beside_an_open_app_it_reads_and_apply_is_refused(save: Path) -> None:
    before = folder(save)
    with store.lock_save(save, "another window"):
        read = cli("tune", str(save), "--win", "88", "--seed", "5")
        assert read.returncode == 0, read.stderr
        assert "Chosen: Thug: 1 -> 2" in read.stdout
        held = cli("tune", str(save), "--win", "88", "--seed", "5", "--apply")
        assert held.returncode == 1
        assert held.stdout == ""  # (refused at once: no plays)
        assert len(held.stderr.strip().splitlines()) == 1
        assert "nothing was changed" in held.stderr
    assert folder(save) == before


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["--win", "0"], "win must be from 1 to 99 %, got 0"),
        (["--win", "abc"], "win must be a percent, got 'abc'"),
        (["--win", "80", "--deaths", "120"], "deaths must be from 0 to 100 %, got 120"),
        (["--win", "80", "--rounds", "x"], "rounds must be a whole number from 1 to 60, got 'x'"),
        (
            ["--win", "80", "--vary", "pirate"],
            "--vary: no enemy type 'pirate': the fight has Thug (1)",
        ),
    ],
)
def test_bad_input_is_one_line_and_exits_1(save: Path, args: list[str], said: str) -> None:
    before = folder(save)
    done = cli("tune", str(save), *args)
    assert done.returncode == 1
    assert done.stdout == ""
    assert done.stderr.strip().splitlines() == [f"facility-tui: {said}"]
    assert folder(save) == before


def test_a_missing_save_exits_2(tmp_path: Path) -> None:
    done = cli("tune", str(tmp_path / "none.toml"), "--win", "80")
    assert done.returncode == 2
    assert len(done.stderr.strip().splitlines()) == 1


# -- by the enemies' weapons (--arm) ------------------------------------------------------------

# two thugs with knives (the PCs win 100 %); of the catalog's weapons (the campaign's Pistol and
# Popgun, the shipped PAM9 and FAM-90) only the Pistol gives them about 87 % (the seeds' forecasts)
ARMED = (
    "new 2297 Duel seed=3",
    "add Ana side=pc ag=2 cu=2 hlt=30 sta=30 skill=14 dodge=16 weapon='SMG 3d6+1 SA 30'",
    "add Thug count=2 ag=1 cu=1 hlt=14 sta=14 skill=10 dodge=14 weapon='Knife 1d2'",
)
GUNS = (
    'system = "2297"\n'
    '[[weapon]]\nname = "Pistol"\ndamage = "2d6"\nmodes = "SA"\nammo = 12\n'
    '[[weapon]]\nname = "Popgun"\ndamage = "1d3"\nammo = 6\n'
)


@pytest.fixture
def armed(tmp_path: Path) -> Path:
    path = tmp_path / "armed.toml"
    assert main(["apply", str(path), "-q", *ARMED]) == 0
    (tmp_path / "catalogs").mkdir()
    (tmp_path / "catalogs" / "guns.toml").write_text(GUNS, encoding="utf-8")
    return path


@pytest.mark.parametrize("seed", ["1", "2"])
def test_the_one_catalog_weapon_that_meets_the_target_with_either_seed(
    armed: Path, seed: str
) -> None:
    before = folder(armed)
    done = cli("tune", str(armed), "--win", "87", "--arm", "thug", "--seed", seed, "--json")
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    chosen = data["chosen"]
    assert chosen["line"] == "arm thug Pistol" and chosen["verdict"] == "at"
    assert chosen["change"] == {"Thug": {"from": "Knife 1d2 SS", "to": "Pistol"}}
    assert chosen["counts"] == {"Thug": 2}
    win = chosen["win"]
    assert win["high"] - win["low"] <= 0.04 + 1e-9  # (±2 points at 95 %)
    tried = [s["weapons"]["Thug"] for s in data["steps"]]
    assert tried == ["Knife 1d2 SS (today)", "PAM9", "FAM-90", "Pistol", "Popgun"]
    assert data["applied"] is False
    assert folder(armed) == before  # untouched, byte for byte


def test_arm_apply_writes_the_arm_line_as_one_undoable_step(armed: Path) -> None:
    done = cli("tune", str(armed), "--win", "87", "--arm", "thug", "--apply")
    assert done.returncode == 0, done.stderr
    out = done.stdout.splitlines()
    assert "By the weapons of Thug (the counts as today)" in out
    assert "Chosen: Thug: Knife 1d2 SS -> Pistol" in out
    assert "> arm thug Pistol" in out
    enc = store.open_save(armed, keep_aside=False).session.encounter
    assert enc.log[-1].text == "Arm: Thug ×2 carry Pistol (had Knife 1d2 SS)"
    assert {c.sheet.weapons[0].name for c in enc.combatants[1:]} == {"Pistol"}
    assert cli("apply", str(armed), "-q", "undo").returncode == 0
    enc = store.open_save(armed, keep_aside=False).session.encounter
    assert {c.sheet.weapons[0].name for c in enc.combatants[1:]} == {"Knife"}


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (
            ["--arm", "thug", "--vary", "thug"],
            "--arm keeps the counts as today and --vary changes only counts: tune one, apply "
            "it, then tune the other",
        ),
        (["--arm", "pirate"], "--arm: no enemy type 'pirate': the fight has Thug (2)"),
    ],
)
def test_a_bad_arm_is_one_line_and_exits_1(armed: Path, args: list[str], said: str) -> None:
    before = folder(armed)
    done = cli("tune", str(armed), "--win", "80", *args, "--apply")
    assert done.returncode == 1
    assert done.stdout == ""
    assert done.stderr.strip().splitlines() == [f"facility-tui: {said}"]
    assert folder(armed) == before
