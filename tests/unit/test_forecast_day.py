"""A day of fights (issue 39, docs/forecast.md 'A day of fights'): prepared fights played in order,
the party carried between them as ``party return`` would, the rests between, the day breaking at
the first fight the PCs do not win."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from facility_tui.cli import main
from facility_tui.commands.dispatch import apply
from facility_tui.forecast import day as days
from facility_tui.forecast import engine as forecast
from facility_tui.model.encounter import PCS, Encounter
from facility_tui.systems import rules_for
from tests.conftest import saved_fight

# Ann kills with any hit (Gun 41 on Health 10) and always hits (skill 20 vs TN 20); each enemy
# acts first and always hits her once for 17 and more (its margin adds dice): on Health 40
# she stands after one such hit, not after two (A8: damage at Health or more, incapacitated).
# So the bridge alone is won, and after the deck's wound it is lost.
ANN = 'add Ann side=pc init=15 hlt=40 skill=20 weapon="Gun 1d1+40 SS"'
RAT = 'add Rat side=enemy init=18 hlt=10 skill=20 weapon="Claw 1d1+16 SS"'
BRUTE = 'add Brute side=enemy init=18 hlt=10 skill=20 weapon="Club 1d1+16 SS"'
DECK = ("new 2297 Deck seed=3", ANN, RAT)
BRIDGE = ("new 2297 Bridge seed=4", ANN, BRUTE)


def save_of(folder: Path, name: str, *lines: str) -> Path:
    return saved_fight(folder / name, *lines)


def enc_of(*lines: str) -> Encounter:
    enc = Encounter("x", "2297")
    for line in lines:
        enc = apply(enc, line).encounter
    return enc


def day(*items: str, seed: int = 1) -> days.Day:
    fights = {"deck.toml": enc_of(*DECK), "bridge.toml": enc_of(*BRIDGE)}
    plan = days.read_plan(f"day = {json.dumps(list(items))}", "t")  # (a JSON list is TOML)
    return days.day_of(plan, [fights[name] for name in plan.fights], seed)


def test_a_fight_won_alone_is_lost_after_the_first_ones_wounds_carry() -> None:
    alone = forecast.forecast(enc_of(*BRIDGE), 200, 1, processes=1)
    assert alone.wins[PCS] == 200
    bridge_alone = days.forecast_day(day("bridge.toml"), 200, processes=1)
    assert bridge_alone.through == 200
    tally = days.forecast_day(day("deck.toml", "bridge.toml"), 200, processes=1)
    assert tally.reached[0] == 200 and tally.lost[0] == 0  # (the deck is won)
    assert tally.reached[1] == 200
    low, _ = forecast.wilson(tally.lost[1], 200)
    assert low > 0.8  # (lost at the bridge: Ann came in wounded)
    assert days.breaks_at(day("deck.toml", "bridge.toml"), tally) == 1
    assert tally.out["Ann"] == tally.lost[1] and tally.through == 200 - tally.lost[1]


def test_a_heal_between_fights_reaches_the_next_fight() -> None:
    wounded = days.forecast_day(day("deck.toml", "bridge.toml"), 200, processes=1)
    healed = days.forecast_day(day("deck.toml", "heal aid ann 30", "bridge.toml"), 200, processes=1)
    assert healed.through > wounded.through
    assert not healed.refused


def test_a_pc_carried_dead_stays_dead_and_the_fights_own_setup_stays() -> None:
    rules = rules_for("2297")
    end = enc_of(*DECK, "start", "hit ann 80")  # (twice her Health: dead or dying)
    ann = end.get("ann")
    assert rules.tactics.fallen(end, ann) == "dying"
    from facility_tui.campaign.party import lasting

    bridge = enc_of(*BRIDGE, "aware ann partial")
    carried = days.carry_into(bridge, {"ann": lasting("2297", ann)})
    now = carried.get("ann")
    assert rules.tactics.fallen(carried, now) == "dying"
    assert now.sheet.damage == ann.sheet.damage
    assert now.sheet.awareness == bridge.get("ann").sheet.awareness != ann.sheet.awareness
    assert now.initiative == bridge.get("ann").initiative
    assert days.play_day(days.day_of(_plan("bridge.toml"), [carried], 1), 5).broke == 0


def _plan(*items: str) -> days.Plan:
    return days.Plan(tuple(items))


def test_the_same_seed_gives_the_same_day_in_one_process_or_two() -> None:
    d = day("deck.toml", "rest", "bridge.toml")
    here = days.forecast_day(d, 60, processes=1)
    pooled = days.forecast_day(d, 60, processes=2)
    assert here == pooled and here.runs == 60


@pytest.mark.parametrize("system", ["2297", "facility"])
def test_a_day_of_the_demo_fight_twice_adds_up(system: str) -> None:
    demo = enc_of(*rules_for(system).demo)
    plan = days.read_plan('day = ["a.toml", "rest", "b.toml"]', "t")
    d = days.day_of(plan, [demo, demo], 2)
    tally = days.forecast_day(d, 10, processes=1)
    assert tally.runs == 10 == tally.reached[0]
    assert tally.through + tally.lost[0] + tally.lost[1] == 10
    assert tally.reached[1] == 10 - tally.lost[0]
    for pc in d.pcs:
        assert tally.dying[pc] <= tally.out[pc] <= 10


def test_the_cli_forecasts_a_day_and_writes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    save_of(tmp_path, "deck.toml", *DECK)
    save_of(tmp_path, "bridge.toml", *BRIDGE)
    file = tmp_path / "tuesday.day.toml"
    file.write_text('day = ["deck.toml", "heal aid ann 30", "bridge.toml"]\nruns = 40\n', "utf-8")
    before = {p: p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()}
    assert main(["forecast", str(file), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["runs"] == 40 and data["breaks_at"] == "bridge.toml"
    assert [f["save"] for f in data["fights"]] == ["deck.toml", "bridge.toml"]
    assert data["pcs"][0]["name"] == "Ann"
    assert data["through"]["count"] + sum(f["lost"]["count"] for f in data["fights"]) == 40
    assert main(["forecast", str(file), "--runs", "20"]) == 0
    out = capsys.readouterr().out
    assert (
        "The party gets through the day:" in out and "Most likely breaks at: 2. bridge.toml" in out
    )
    assert main(["forecast", str(file), "--runs", "20", "--md"]) == 0
    assert "| 2. bridge.toml |" in capsys.readouterr().out
    assert {p: p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()} == before


@pytest.mark.parametrize(
    ("text", "code", "said"),
    [
        ('day = ["deck.toml", "nowhere.toml"]', 2, "no fight nowhere.toml"),
        ('day = ["deck.toml", "lockdown.toml"]', 1, "is a Facility fight, the day's first is"),
        ('day = ["deck.toml", "nap", "bridge.toml"]', 1, "day[1]: unknown line 'nap'"),
        ('day = ["deck.toml", "heal dance ann", "bridge.toml"]', 1, "'heal dance ann'"),
        ('day = ["deck.toml", "rest zed", "bridge.toml"]', 1, "'rest zed'"),
        ('day = ["deck.toml", "rest"', 2, "not TOML"),
        ('day = ["rest"]', 1, "the day has no fight"),
        ('day = "deck.toml"', 2, "day must be a list"),
        ('day = ["ended.toml"]', 1, "ended.toml: the combat has ended"),
        ('day = ["deck.toml"]\nruns = 0', 2, "runs must be a whole number"),
    ],
)
def test_a_bad_day_file_is_one_line_and_plays_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, code: int, said: str
) -> None:
    save_of(tmp_path, "deck.toml", *DECK)
    save_of(tmp_path, "bridge.toml", *BRIDGE)
    save_of(tmp_path, "lockdown.toml", "new facility Lockdown", "add A side=pc", "add B")
    save_of(tmp_path, "ended.toml", *BRIDGE, "start", "end")
    file = tmp_path / "bad.day.toml"
    file.write_text(text, "utf-8")
    before = {p: p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()}
    assert main(["forecast", str(file)]) == code
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.count("\n") == 1 and said in captured.err, captured.err
    assert {p: p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()} == before


def test_a_day_file_is_known_by_its_day_key_whatever_its_name(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    save_of(tmp_path, "deck.toml", *DECK)
    file = tmp_path / "tuesday.toml"
    file.write_text('# Tuesday\nday = ["deck.toml"]\n', "utf-8")
    assert main(["forecast", str(file), "--runs", "10"]) == 0
    assert "tuesday.toml: 1 fight, 10 plays of the day" in capsys.readouterr().out


def test_a_day_file_named_as_a_save_is_no_save_of_the_campaign(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``tuesday.toml`` holding ``day = [...]``: forecast plays it as a day, and the campaign's
    saves (the browser, the palette's list, the launch's newest save) leave it out; validate
    checks it as a day, not as a broken save."""
    from facility_tui.campaign.summaries import summaries
    from facility_tui.workspace import Workspace

    save_of(tmp_path, "deck.toml", *DECK)
    day = tmp_path / "tuesday.toml"
    day.write_text('day = ["deck.toml", "rest"]\n', "utf-8")
    assert [s.path.name for s in summaries(tmp_path)] == ["deck.toml"]
    ws = Workspace(tmp_path)
    assert ws.saves() == [tmp_path / "deck.toml"]
    ws.open_initial()
    assert ws.path == tmp_path / "deck.toml" and ws.refused is None
    assert main(["validate", str(tmp_path)]) == 0
    day.write_text('day = ["deck.toml", "nap"]\n', "utf-8")
    assert main(["validate", str(tmp_path)]) == 1
    assert "day[1]: unknown line 'nap'" in capsys.readouterr().out


def test_validate_checks_a_day_file_as_forecast_reads_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    save_of(tmp_path, "deck.toml", *DECK)
    (tmp_path / "tuesday.day.toml").write_text('day = ["deck.toml", "rest"]\n', "utf-8")
    assert main(["validate", str(tmp_path)]) == 0
    (tmp_path / "tuesday.day.toml").write_text('day = ["deck.toml", "nap", "x.toml"]\n', "utf-8")
    assert main(["validate", str(tmp_path)]) == 1
    assert "day[1]: unknown line 'nap'" in capsys.readouterr().out
