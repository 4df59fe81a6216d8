"""The forecast ledger (issue 39, docs/forecast.md 'The ledger'): every forecast of a fight not
ended kept in the campaign's ``ledger.toml``, one per fight and step, the fight's outcome written
beside them when it ends, and ``forecast --ledger`` scoring them (Brier, reliability)."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import pytest

from facility_tui import store
from facility_tui.campaign import ledger
from facility_tui.campaign.folder import Campaign
from facility_tui.cli import main
from facility_tui.model.encounter import PCS
from tests.conftest import saved_fight
from tests.unit.test_campaign_files import ReadOnly

DUEL = (  # (test_forecast's 2297 duel: whoever hits first wins)
    "new 2297 Duel seed=5",
    'add Ann side=pc init=15 hlt=10 skill=10 weapon="Gun 1d1+24 SS"',
    'add Bob side=enemy init=12 hlt=10 skill=10 weapon="Gun 1d1+24 SS"',
)


def save_of(folder: Path, *lines: str, name: str = "duel.toml") -> Path:
    return saved_fight(folder / name, *lines)


def read(folder: Path) -> dict[str, object]:
    return tomllib.loads((folder / "ledger.toml").read_text(encoding="utf-8"))


def forecasts(folder: Path, fight: str = "duel.toml") -> list[dict[str, object]]:
    for table in read(folder)["fight"]:  # type: ignore[attr-defined]
        if table["save"] == fight:
            return list(table.get("forecast", []))
    return []


def fight_of(folder: Path, fight: str = "duel.toml") -> dict[str, object]:
    return next(t for t in read(folder)["fight"] if t["save"] == fight)  # type: ignore[attr-defined]


# A planted ledger, its score worked out by hand: forecasts 0.75 and 0.25 of a fight the PCs won,
# 0.5 of one they lost, 0.25 of one with no winner (counted as not won), 0.9 of one not ended.
# Brier = ((0.75-1)² + (0.25-1)² + (0.5-0)² + (0.25-0)²) / 4 = (0.0625 + 0.5625 + 0.25 + 0.0625) / 4
#       = 0.234375; base rate 2 of 4; bins: 20-30 % won 1 of 2, 50-60 % 0 of 1, 70-80 % 1 of 1.
PLANTED = """\
[[fight]]
save = "deck.toml"
outcome = "won"
ended = 2026-12-01T21:00:00Z

[[fight.forecast]]
step = 3
win = 0.75

[[fight.forecast]]
step = 9
round = 2
runs = 1000
seed = 7
plays = ["Sgt. Blanc=focus"]
win = 0.25
low = 0.22
high = 0.28
when = "2026-12-01T20:30:00Z"

[[fight]]
save = "bridge.toml"
outcome = "lost"

[[fight.forecast]]
win = 0.5

[[fight]]
save = "hold.toml"
outcome = "none"

[[fight.forecast]]
win = 0.25

[[fight]]
save = "galley.toml"

[[fight.forecast]]
win = 0.9
"""


def test_a_planted_ledger_scores_as_worked_out_by_hand(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "ledger.toml").write_text(PLANTED, encoding="utf-8")
    assert main(["forecast", "--ledger", str(tmp_path), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["brier"] == 0.234375
    assert data["base_rate"] == 0.5
    assert (data["scored"], data["fights"], data["waiting"]) == (4, 3, 1)
    assert [(b["low"], b["forecasts"], b["won"]) for b in data["reliability"]] == [
        (0.2, 2, 1),
        (0.5, 1, 0),
        (0.7, 1, 1),
    ]
    assert main(["forecast", "--ledger", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert main(["forecast", str(tmp_path), "--ledger"]) == 0  # (the folder typed first)
    assert capsys.readouterr().out == out
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)  # (--ledger alone: the saves folder, not the current one)
    monkeypatch.setattr("facility_tui.campaign.paths.default_saves", lambda: tmp_path)
    assert main(["forecast", "--ledger"]) == 0
    assert capsys.readouterr().out == out
    assert "4 scored forecasts of 3 ended fights; 1 more wait" in out
    assert "Brier score 0.2344" in out
    assert "Base rate: the PCs won 2 of 4 (50 %)" in out
    assert "forecast 20-30 %: won 1 of 2 (50 %)" in out
    assert "forecast 50-60 %: won 0 of 1 (0 %)" in out
    assert "forecast 70-80 %: won 1 of 1 (100 %)" in out


@pytest.mark.parametrize(
    ("bad", "said"),
    [
        ("win = 1.5", "fight[0].forecast[1].win: must be a share from 0 to 1, got 1.5"),
        ('win = "high"', "fight[0].forecast[1].win: must be a share from 0 to 1, got 'high'"),
        ("wins = 0.4", "fight[0].forecast[1].wins: unknown key"),
        ("step = -2\nwin = 0.4", "fight[0].forecast[1].step: must be a whole number, got -2"),
    ],
)
def test_a_malformed_entry_is_named_in_one_line_and_the_others_still_count(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], bad: str, said: str
) -> None:
    text = (
        '[[fight]]\nsave = "deck.toml"\noutcome = "won"\n\n[[fight.forecast]]\nwin = 0.75\n\n'
        f"[[fight.forecast]]\n{bad}\n\n[[fight.forecast]]\nwin = 0.5\n"
    )
    (tmp_path / "ledger.toml").write_text(text, encoding="utf-8")
    assert main(["forecast", "--ledger", str(tmp_path), "--json"]) == 0
    captured = capsys.readouterr()
    assert captured.err.count("\n") == 1
    assert f"ledger.toml:9: {said}" in captured.err
    data = json.loads(captured.out)
    assert data["scored"] == 2
    assert data["brier"] == ((0.75 - 1) ** 2 + (0.5 - 1) ** 2) / 2


def test_a_ledger_that_is_not_toml_or_missing_is_one_line_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["forecast", "--ledger", str(tmp_path)]) == 2
    assert "no forecast ledger here yet" in capsys.readouterr().err
    (tmp_path / "ledger.toml").write_text("[[fight]\nsave = ", encoding="utf-8")
    assert main(["forecast", "--ledger", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "not TOML" in err


def test_the_ledgers_text_is_data(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = (
        '[[fight]]\nsave = "[bold red]x\\u001b[2J"\noutcome = "maybe\\u001b[31m"\n\n'
        "[[fight.forecast]]\nwin = 0.5\n"
    )
    (tmp_path / "ledger.toml").write_text(text, encoding="utf-8")
    assert main(["forecast", "--ledger", str(tmp_path)]) == 0
    captured = capsys.readouterr()
    assert "\x1b" not in captured.out + captured.err
    assert "got 'maybe\\x1b[31m'" in captured.err


def test_every_forecast_of_a_fight_not_ended_is_kept_once_a_step(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = save_of(tmp_path, *DUEL)
    for form in ([], ["--json"], ["--md"]):
        assert main(["forecast", str(path), "--runs", "40", "--seed", "3", *form]) == 0
    kept = forecasts(tmp_path)
    assert len(kept) == 1  # (asked three times of the fight as it stands: once)
    entry = kept[0]
    assert (entry["round"], entry["runs"], entry["seed"], entry["plays"]) == (0, 40, 3, [])
    assert entry["step"] == store.open_save(path, keep_aside=False).session.timeline.current
    capsys.readouterr()
    assert main(["forecast", str(path), "--runs", "40", "--play", "bob=focus", "--json"]) == 0
    shown = json.loads(capsys.readouterr().out)
    kept = forecasts(tmp_path)
    assert len(kept) == 1 and kept[0]["plays"] == ["Bob=focus"]  # (the newest replaces it)
    assert kept[0]["win"] == shown["sides"][PCS]["win"]["share"]
    assert kept[0]["low"] == shown["sides"][PCS]["win"]["low"]
    assert kept[0]["high"] == shown["sides"][PCS]["win"]["high"]
    assert main(["apply", str(path), "-q", "start"]) == 0
    assert main(["forecast", str(path), "--runs", "20"]) == 0
    kept = forecasts(tmp_path)
    assert [e["round"] for e in kept] == [0, 1]
    assert kept[0]["step"] != kept[1]["step"]


def test_an_ended_fight_is_not_forecast_nor_kept(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = save_of(tmp_path, *DUEL, "start")
    assert main(["forecast", str(path), "--runs", "20"]) == 0
    assert main(["apply", str(path), "-q", "end"]) == 0
    before = (tmp_path / "ledger.toml").read_bytes()
    assert main(["forecast", str(path), "--runs", "20"]) == 1
    assert (tmp_path / "ledger.toml").read_bytes() == before
    assert len(forecasts(tmp_path)) == 1


@pytest.mark.parametrize(
    ("lines", "outcome"),
    [
        (("hit bob 30", "end"), "won"),  # (Bob dying: the PCs' side alone stands)
        (("hit ann 30", "end"), "lost"),
        (("end",), "none"),  # (both stand: no winner)
        (("hit bob 30", "end", "undo", "undo", "hit ann 30", "end"), "lost"),
        (("end", "resume", "hit bob 30", "end"), "won"),  # (the last end wins)
        (("hit bob 30", "end", "resume", "next"), "won"),  # (resumed, not ended again)
    ],
)
def test_a_fights_end_is_written_beside_its_forecasts_through_apply(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], lines: tuple[str, ...], outcome: str
) -> None:
    path = save_of(tmp_path, *DUEL, "start")
    assert main(["forecast", str(path), "--runs", "20"]) == 0
    assert "outcome" not in fight_of(tmp_path)
    assert main(["apply", str(path), "-q", *lines]) == 0
    fight = fight_of(tmp_path)
    assert fight["outcome"] == outcome and isinstance(fight["ended"], str)
    assert len(fight["forecast"]) == 1  # type: ignore[arg-type]


def test_an_end_in_separate_applies_the_last_one_wins(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = save_of(tmp_path, *DUEL, "start")
    other = save_of(tmp_path, *DUEL, "start", name="other.toml")
    assert main(["forecast", str(path), "--runs", "20"]) == 0
    assert main(["apply", str(path), "-q", "end"]) == 0
    assert main(["apply", str(other), "-q", "end"]) == 0  # (never forecast: not in the ledger)
    assert [t["save"] for t in read(tmp_path)["fight"]] == ["duel.toml"]  # type: ignore[attr-defined]
    assert fight_of(tmp_path)["outcome"] == "none"
    assert main(["apply", str(path), "-q", "resume", "hit ann 30", "end"]) == 0
    assert fight_of(tmp_path)["outcome"] == "lost"
    capsys.readouterr()
    assert main(["forecast", "--ledger", str(tmp_path), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["scored"] == 1 and data["brier"] == forecasts(tmp_path)[0]["win"] ** 2  # type: ignore[operator]


def test_a_hand_written_ledger_keeps_its_entries_when_a_forecast_is_added(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "ledger.toml").write_text(PLANTED, encoding="utf-8")
    path = save_of(tmp_path, *DUEL)
    assert main(["forecast", str(path), "--runs", "20"]) == 0
    doc = read(tmp_path)
    assert [t["save"] for t in doc["fight"]] == [  # type: ignore[attr-defined]
        "deck.toml",
        "bridge.toml",
        "hold.toml",
        "galley.toml",
        "duel.toml",
    ]
    assert fight_of(tmp_path, "deck.toml")["ended"] == "2026-12-01T21:00:00+00:00"
    capsys.readouterr()
    assert main(["forecast", "--ledger", str(tmp_path), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["brier"] == 0.234375


def test_a_read_only_folder_still_shows_the_forecast_and_says_why_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    path = save_of(tmp_path, *DUEL)
    before = sorted(p.name for p in tmp_path.iterdir())
    ReadOnly(monkeypatch, tmp_path)
    assert main(["forecast", str(path), "--runs", "20"]) == 0
    captured = capsys.readouterr()
    assert "PCs win" in captured.out
    assert captured.err.count("\n") == 1
    assert "ledger.toml" in captured.err and "make the campaign folder writable" in captured.err
    assert sorted(p.name for p in tmp_path.iterdir()) == before


def test_a_ledger_that_is_not_toml_is_never_written_over(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "ledger.toml").write_text("not = [toml", encoding="utf-8")
    path = save_of(tmp_path, *DUEL)
    assert main(["forecast", str(path), "--runs", "20"]) == 0
    assert "not TOML" in capsys.readouterr().err
    assert (tmp_path / "ledger.toml").read_text(encoding="utf-8") == "not = [toml"


def test_the_ledger_is_no_encounter_of_the_campaign(tmp_path: Path) -> None:
    save_of(tmp_path, *DUEL)
    (tmp_path / "ledger.toml").write_text(PLANTED, encoding="utf-8")
    (tmp_path / "tuesday.day.toml").write_text('day = ["duel.toml"]\n', encoding="utf-8")
    assert [p.name for p in store.list_saves(tmp_path)] == ["duel.toml"]
    assert ledger.fight_name(Campaign(tmp_path), tmp_path / "duel.toml") == "duel.toml"


def test_validate_checks_the_ledger_as_forecast_ledger_reads_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    save_of(tmp_path, *DUEL)
    (tmp_path / "ledger.toml").write_text(PLANTED, encoding="utf-8")
    assert main(["validate", str(tmp_path)]) == 0
    (tmp_path / "ledger.toml").write_text(PLANTED.replace("win = 0.9", "win = 9"), "utf-8")
    assert main(["validate", str(tmp_path)]) == 1
    out = capsys.readouterr().out
    assert f"{tmp_path}/ledger.toml:35: fight[3].forecast[0].win: must be a share" in out


def test_an_end_the_ledger_cannot_keep_is_one_line_and_the_fight_still_ends(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = save_of(tmp_path, *DUEL, "start")
    assert main(["forecast", str(path), "--runs", "20"]) == 0
    (tmp_path / "ledger.toml").write_text("[[fight]\n", encoding="utf-8")
    capsys.readouterr()
    assert main(["apply", str(path), "-q", "end"]) == 0
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "not TOML" in err and "move it aside" in err
    assert store.open_save(path, keep_aside=False).session.encounter.phase.value == "ended"
    assert (tmp_path / "ledger.toml").read_text(encoding="utf-8") == "[[fight]\n"


def test_a_forecast_after_an_end_taken_back_waits_for_the_next_end(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = save_of(tmp_path, *DUEL, "start")
    assert main(["forecast", str(path), "--runs", "20"]) == 0
    assert main(["apply", str(path), "-q", "end", "resume"]) == 0
    assert fight_of(tmp_path)["outcome"] == "none"
    assert main(["apply", str(path), "-q", "next"]) == 0
    assert main(["forecast", str(path), "--runs", "20"]) == 0
    assert "outcome" not in fight_of(tmp_path)  # (the fight goes on: no end yet)
    assert main(["apply", str(path), "-q", "hit bob 30", "end"]) == 0
    assert fight_of(tmp_path)["outcome"] == "won"
    assert len(forecasts(tmp_path)) == 2


def _record_many(folder: str, who: str, count: int) -> None:
    campaign = Campaign(Path(folder))
    for i in range(count):
        entry = ledger.Entry("2026-12-05T06:00", 1, i, 100, 1, (), 0.5, 0.4, 0.6)
        ledger.record(campaign, f"{who}-{i}.toml", entry)


def test_two_processes_keeping_forecasts_at_once_lose_none(tmp_path: Path) -> None:
    """The app keeps a forecast while a CLI forecast keeps another (each reads the ledger,
    adds to it, writes it): neither write is lost."""
    import multiprocessing

    context = multiprocessing.get_context("fork")
    workers = [context.Process(target=_record_many, args=(str(tmp_path), who, 40)) for who in "ab"]
    for w in workers:
        w.start()
    for w in workers:
        w.join(60)
        assert w.exitcode == 0
    fights = tomllib.loads((tmp_path / "ledger.toml").read_text())["fight"]
    assert len(fights) == 80
