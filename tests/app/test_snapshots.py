"""SVG snapshots of the main screens at 80×24, 120×40 and 200×50 (update with --snapshot-update)."""

from __future__ import annotations

from pathlib import Path

import pytest

from facility_tui.app import FacilityApp


@pytest.fixture
def app(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> FacilityApp:
    monkeypatch.chdir(tmp_path)
    return FacilityApp(save_dir=Path("saves"), seed=1, clock=lambda: "12:00:00")


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
def test_demo_setup(snap_compare, app: FacilityApp, size: tuple[int, int]) -> None:
    assert snap_compare(app, terminal_size=size, press=["escape"])


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
def test_demo_round_one(snap_compare, app: FacilityApp, size: tuple[int, int]) -> None:
    assert snap_compare(app, terminal_size=size, press=["s", "n", "n"])


def test_help(snap_compare, app: FacilityApp) -> None:
    assert snap_compare(app, terminal_size=(80, 24), press=["question_mark"])


def test_facility_demo_round_one(
    snap_compare, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:

    monkeypatch.chdir(tmp_path)
    app = FacilityApp(save_dir=Path("saves"), seed=1, clock=lambda: "12:00:00", demo="facility")
    press = ["s", "colon", *"wound drone-1 2", "enter", "j", "j", "j"]
    assert snap_compare(app, terminal_size=(120, 40), press=press)


def test_damage_prompt(snap_compare, app: FacilityApp) -> None:
    """``d`` opens the command line on the selected combatant; its keys replace the screen's."""
    assert snap_compare(app, terminal_size=(80, 24), press=["s", "d", "5"])


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
def test_player_view(snap_compare, tmp_path: Path, size: tuple[int, int]) -> None:
    """``facility-tui watch``: the round, whose turn, each visible combatant's state in words."""
    from attrs import evolve

    from facility_tui import store
    from facility_tui.app import WatchApp
    from facility_tui.commands.session import Session

    s = Session(evolve(store.blank(), seed=1))
    for line in (
        "new 2297 Deck seed=7",
        'add "Sgt. Blanc" side=pc init=12',
        "add Boarder count=2 init=5",
        "add Lurker init=3",
        "hide lurker",
        "note boarder-2 [b]shouting[/b]",
        "start",
        "hit boarder-1 20",
        "next",
        "hit blanc 12",
    ):
        s.execute(line)
    store.save(s, tmp_path / "deck.toml")
    from facility_tui.workspace import Workspace

    ws = Workspace(tmp_path)
    ws.open_read_only(tmp_path / "deck.toml")
    app = WatchApp(ws, clock=lambda: "12:00:00")
    assert snap_compare(app, terminal_size=size)


SIZES = [(80, 24), (120, 40), (200, 50)]


def lines_run(*lines: str, menu: bool = False):  # type: ignore[no-untyped-def]
    """A ``run_before`` that runs command lines on the main screen (faster than typing them);
    the menu of a choice a line leaves open is left open (escape) unless ``menu`` (the last)."""

    async def run_before(pilot) -> None:  # type: ignore[no-untyped-def]
        from facility_tui.screens.choice_menu import ChoiceMenu
        from facility_tui.screens.main import MainScreen

        await pilot.pause()
        main = pilot.app.screen
        assert isinstance(main, MainScreen)
        for line in lines:
            assert main.run_line(line), line
            if isinstance(pilot.app.screen, ChoiceMenu) and not menu:
                pilot.app.screen.dismiss(None)
        pilot.app.clear_toasts()
        await pilot.pause()

    return run_before


@pytest.mark.parametrize("size", SIZES)
def test_2297_panes_mid_round(snap_compare, app: FacilityApp, size: tuple[int, int]) -> None:
    """Issue 15: Sgt. Blanc acting, Serious (one action in all, bleeding), Fatigued, a Major
    spent; the panes' column beside the list at every size."""
    run = lines_run("start", "hit sgt-blanc 18 through dice=2,3,5", "fatigue sgt-blanc 6", "major")
    assert snap_compare(app, terminal_size=size, run_before=run)


@pytest.mark.parametrize("size", SIZES)
def test_facility_panes_pending(
    snap_compare, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, size: tuple[int, int]
) -> None:
    """Issue 15: wound tracks (Impaired, a scar), PPE marks and a pending ablate-or-suffer."""
    monkeypatch.chdir(tmp_path)
    app = FacilityApp(save_dir=Path("saves"), seed=1, clock=lambda: "12:00:00", demo="facility")
    run = lines_run(
        "start first=pc",
        "sheet anne nor_scars=1",
        "wound anne 2 phy",
        "harm anne 1 contaminants d20=1",
        "ablate anne latex",
        "harm anne 1 anomalies d20=1",
    )
    assert snap_compare(app, terminal_size=size, run_before=run)


def test_facility_choice_menu(
    snap_compare, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 23: a failed save's ablate-or-suffer menu above the log, the default marked ⏎."""
    monkeypatch.chdir(tmp_path)
    app = FacilityApp(save_dir=Path("saves"), seed=1, clock=lambda: "12:00:00", demo="facility")
    run = lines_run("start first=pc", "harm anne 2 contaminants d20=1", menu=True)
    assert snap_compare(app, terminal_size=(80, 24), run_before=run)


def test_campaign_browser(snap_compare, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """o: the campaign's encounters in words, a long name cut, a damaged file, at 80×24."""
    import os
    import time

    from tests.unit.test_campaign_files import campaign, make

    monkeypatch.chdir(tmp_path)
    saves = Path("saves")
    saves.mkdir()
    campaign(saves)
    long = "The long and winding ambush in the cargo bay of the Jean Bart"[:60]
    then = time.mktime((2025, 11, 12, 9, 0, 0, 0, 0, -1))
    make(saves, "long.toml", f'new 2297 "{long}" seed=1', "add Ana side=pc", at=then)
    (saves / "broken.toml").write_bytes(b"not a save")
    os.utime(saves / "broken.toml", (then - 86400, then - 86400))
    app = FacilityApp(save_dir=saves, seed=1, clock=lambda: "12:00:00")
    assert snap_compare(app, terminal_size=(80, 24), press=["o"])


def test_party_hand_back(snap_compare, app: FacilityApp) -> None:
    """Issue 24: the fight ended, what handing each PC back changes in party.toml, one screen."""
    run = lines_run(
        "party add sgt-blanc",
        "party add cassart",
        "start",
        "hit sgt-blanc 18 through dice=2,3,5",
        "hit cassart 6",
        "end",
    )
    assert snap_compare(app, terminal_size=(80, 24), run_before=run)


def test_forecast(snap_compare, app: FacilityApp, monkeypatch: pytest.MonkeyPatch) -> None:
    """``F``: the forecast's figures once its plays are done (the same seed, the same plays)."""
    import time

    from facility_tui.screens import forecast as forecast_screen
    from textual.widgets import ProgressBar

    monkeypatch.setattr(forecast_screen, "RUNS", 40)

    async def played(pilot) -> None:  # type: ignore[no-untyped-def]
        await pilot.press("s", "F")
        bar = pilot.app.screen.query_one(ProgressBar)
        deadline = time.monotonic() + 60
        while bar.progress < 40:
            assert time.monotonic() < deadline, "the forecast did not finish"
            await pilot.pause(0.05)
        await pilot.pause()

    assert snap_compare(app, terminal_size=(80, 24), run_before=played)


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
def test_timeline(snap_compare, app: FacilityApp, size: tuple[int, int]) -> None:
    """``T`` after an undo and another line: the steps round by round, where the branch leaves,
    the present marked; the list above shows the step under the cursor (two steps back)."""
    press = ["s", "n", "n", "n", "u", "colon", *"roll 2d6", "enter", "T", "left", "left"]
    assert snap_compare(app, terminal_size=size, press=press)


def test_timeline_compare(snap_compare, app: FacilityApp) -> None:
    press = ["s", "n", "colon", *"hit boarder-1 12", "enter", "T", "home", "m", "end", "c"]
    assert snap_compare(app, terminal_size=(80, 24), press=press)
