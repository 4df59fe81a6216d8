"""The forecast in the app (issue 26): F opens it, the figures sharpen as plays finish, escape
stops the plays, nothing in the fight changes; the plays line; the palette's entry."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import pytest
from facility_tui.screens import forecast as forecast_screen
from facility_tui.screens.forecast import ForecastScreen
from facility_tui.screens.main import MainScreen
from facility_tui.screens.render.text_pane import TextPane
from rich.cells import cell_len
from textual.widgets import Input, ProgressBar

from facility_tui.app import FacilityApp
from facility_tui.model.encounter import Phase
from facility_tui.systems.plays import PLAY_WORDS
from tests.apps import AppMaker
from tests.conftest import saved_fight


def shown(app: FacilityApp) -> str:
    return app.screen.query_one("#forecast-text", TextPane).text.plain


async def wait_for(check: object, seconds: float = 120) -> None:
    end = time.monotonic() + seconds
    while not check():  # type: ignore[operator]
        assert time.monotonic() < end, "timed out"
        await asyncio.sleep(0.05)


@pytest.fixture
def few_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(forecast_screen, "RUNS", 60)


@pytest.mark.usefixtures("few_runs")
async def test_f_forecasts_the_fight_and_changes_nothing(
    tmp_path: Path, make_app: AppMaker
) -> None:
    app = make_app(demo="facility")
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        before = app.workspace.encounter
        steps = list(app.workspace.session.undo_steps)
        app.workspace.flush(timeout=5)
        saved = app.workspace.path.read_bytes()
        await pilot.press("F")
        assert isinstance(app.screen, ForecastScreen)
        await pilot.pause()
        plays = app.screen.query_one(Input)  # (whole at 80 columns, and the cursor)
        assert cell_len(plays.placeholder) < plays.content_region.width
        bar = app.screen.query_one(ProgressBar)
        await wait_for(lambda: bar.progress >= 60)
        text = shown(app)
        assert "60 plays from round 0" in text
        assert "PCs win" in text and "Assumptions:" in text
        assert "Containment Drone 1" in text
        await pilot.press("escape")
        assert isinstance(app.screen, MainScreen)
        assert app.workspace.encounter is before
        assert list(app.workspace.session.undo_steps) == steps
        app.workspace.flush(timeout=5)
        assert app.workspace.path.read_bytes() == saved


async def test_escape_stops_the_plays_at_once(tmp_path: Path, make_app: AppMaker) -> None:
    app = make_app(demo="2297")
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("F")
        screen = app.screen
        assert isinstance(screen, ForecastScreen)
        assert screen.runs == 1000
        await asyncio.sleep(0.5)
        await pilot.press("escape")
        assert isinstance(app.screen, MainScreen)
        workers = [w for w in screen.workers if w.group == "forecast"]
        started = time.monotonic()
        await wait_for(lambda: all(w.is_finished for w in workers), 10)
        assert time.monotonic() - started < 5
        done = screen.done
        await asyncio.sleep(1)
        assert screen.done == done < 1000  # nothing more arrived


@pytest.mark.usefixtures("few_runs")
async def test_the_plays_line_runs_again_and_refuses_in_one_line(
    tmp_path: Path, make_app: AppMaker
) -> None:
    app = make_app(demo="facility")
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await pilot.pause()
        await pilot.press("F")
        screen = app.screen
        assert isinstance(screen, ForecastScreen)
        screen.query_one(Input).focus()
        await pilot.press(*"zed=hold", "enter")
        await pilot.pause()
        notes = [n.message for n in app._notifications]
        assert any("no combatant" in n for n in notes), notes
        app.clear_notifications()
        screen.query_one(Input).value = "junk"  # (no NAME=: said in the plays line's words)
        await pilot.press("enter")
        await pilot.pause()
        notes = [n.message for n in app._notifications]
        assert notes == [f"a play takes NAME=PLAY ({PLAY_WORDS}), got 'junk'"]
        screen.query_one(Input).value = "anne=hold; reyes=flee at hurt"
        await pilot.press("enter")
        await wait_for(lambda: "Officer Reyes: flee at hurt" in shown(app))
        assert "Anne O'Malley: hold" in shown(app)
        await pilot.press("escape")


async def test_palette_offers_the_forecast(tmp_path: Path, make_app: AppMaker) -> None:
    app = make_app(demo="facility")
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("ctrl+p", *"Forecast")
        await pilot.pause(0.3)
        await pilot.press("enter")
        await wait_for(lambda: isinstance(app.screen, ForecastScreen), 5)
        await pilot.press("escape")
        assert isinstance(app.screen, MainScreen)


@pytest.mark.system  # (a process of its own)
async def test_the_app_starts_the_forecasts_workers_server_ahead(
    tmp_path: Path, make_app: AppMaker, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A few seconds after it opens, the app starts the forkserver its forecasts' workers come
    from (so the first forecast's plays start at once); one that cannot start stops nothing."""
    from facility_tui.screens import main as main_screen

    from facility_tui.forecast import engine as forecast

    calls: list[str] = []

    def cannot() -> None:
        calls.append("warm")
        raise OSError("no more processes")

    monkeypatch.setattr(main_screen, "WARM_FORECAST_AFTER", 0.05)
    monkeypatch.setattr(forecast, "warm", cannot)
    app = make_app(demo="2297")
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await wait_for(lambda: calls)
        await pilot.pause()
        await pilot.press("n", "n")  # (the fight starts, its first turn ends)
        await pilot.pause()
        assert app.is_running
        enc = app.workspace.encounter
        assert (enc.phase, enc.round, enc.turn) == (Phase.ACTIVE, 1, 1)
        assert not app._notifications  # (nothing to say: the forecast says it when asked)
    assert calls == ["warm"]


def a_tally_a_play(real):  # type: ignore[no-untyped-def]
    """A stand-in for ``forecast.run`` that plays the forecast in this process, then yields a
    tally for each play as fast as they come (the whole forecast last)."""
    from facility_tui.forecast import engine as forecast

    def run(enc, runs, seed, plays=None, **kwargs):  # type: ignore[no-untyped-def]
        whole = forecast.Tally(())
        for whole in real(enc, runs, seed, plays, processes=1):  # noqa: B007
            pass
        for done in range(1, runs + 1):
            part = forecast.Tally(whole.ids)
            part.runs = done
            yield whole if done == runs else part

    return run


async def test_the_figures_are_redrawn_a_few_times_a_second_and_at_the_end(
    tmp_path: Path, make_app: AppMaker, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Chunks that arrive every few ms (the last ones, a play each) are not each a redraw: the
    screen shows the figures at most every ``SHOW_EVERY`` s, and always the whole forecast."""
    from facility_tui.forecast import engine as forecast

    monkeypatch.setattr(forecast, "run", a_tally_a_play(forecast.run))
    monkeypatch.setattr(forecast_screen, "RUNS", 40)
    app = make_app(demo="facility")
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        shown: list[int] = []
        started = time.monotonic()
        monkeypatch.setattr(
            ForecastScreen, "_show", lambda self, gen, runs, lines: shown.append(runs)
        )
        await pilot.press("F")
        await wait_for(lambda: shown and shown[-1] == 40)
        took = time.monotonic() - started
        assert len(shown) <= 2 + took / forecast_screen.SHOW_EVERY
        assert shown[0] == 1 and shown[-1] == 40


async def test_the_figures_hold_still_while_the_gm_types_a_play(
    tmp_path: Path, make_app: AppMaker, monkeypatch: pytest.MonkeyPatch
) -> None:
    """While the GM types in the plays line, no figures are redrawn until the whole forecast
    is in (a redraw took the frame a key would have had)."""
    from facility_tui.forecast import engine as forecast

    typed = asyncio.Event()
    loop = asyncio.get_running_loop()
    plays = a_tally_a_play(forecast.run)

    def after_typing(*args, **kwargs):  # type: ignore[no-untyped-def]
        asyncio.run_coroutine_threadsafe(typed.wait(), loop).result(timeout=30)
        yield from plays(*args, **kwargs)

    monkeypatch.setattr(forecast, "run", after_typing)
    monkeypatch.setattr(forecast_screen, "RUNS", 40)
    monkeypatch.setattr(forecast_screen, "QUIET_WHILE_TYPING", 60.0)
    app = make_app(demo="facility")
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        shown: list[int] = []
        monkeypatch.setattr(
            ForecastScreen, "_show", lambda self, gen, runs, lines: shown.append(runs)
        )
        await pilot.press("F")
        app.screen.query_one(Input).focus()
        await pilot.press("a")
        typed.set()
        await wait_for(lambda: shown)
        await pilot.pause(0.2)
        assert shown == [40]


@pytest.mark.usefixtures("few_runs")
async def test_typed_plays_stay_whatever_the_keys_and_come_back_with_the_next_forecast(
    tmp_path: Path,
    make_app: AppMaker,
) -> None:
    """The plays line holds the focus: keys typed on opening, between scrolls, tabs and a click
    on the figures all reach it; closing hands it back, and the next forecast of the fight
    opens with it and plays it (typed plays were dropped once ↑/↓ had moved the focus)."""
    app = make_app(demo="2297")
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await pilot.pause()
        await pilot.press("F", *"blanc=fo")
        screen = app.screen
        assert isinstance(screen, ForecastScreen)
        await pilot.press("down", "down", "pagedown", "up", "pageup", "tab", "c")
        await pilot.click("#forecast-results")
        await pilot.press("shift+tab", *"us")
        plays = screen.query_one(Input)
        assert plays.value == "blanc=focus" and app.focused is plays
        await pilot.press("escape")
        assert isinstance(app.screen, MainScreen)
        await pilot.press("F")
        again = app.screen
        assert isinstance(again, ForecastScreen) and again is not screen
        assert again.query_one(Input).value == "blanc=focus"
        await wait_for(lambda: again.done >= 60)
        assert "- Sgt. Blanc: focus" in shown(app)  # (played as the line says)
        # a line that does not read (never entered) comes back too, said, the defaults played
        await pilot.press("ctrl+u", *"zed=hold", "escape", "F")
        last = app.screen
        assert isinstance(last, ForecastScreen)
        assert last.query_one(Input).value == "zed=hold"
        # (said as it opens: read before the plays, which may outlast the toast on a busy machine)
        notes = [n.message for n in app._notifications]
        assert any(n.endswith(": playing the default plays") and "zed" in n for n in notes)
        await wait_for(lambda: last.done >= 60)
        assert "Sgt. Blanc: focus" not in shown(app)
        await pilot.press("escape")


@pytest.mark.usefixtures("few_runs")
async def test_the_line_below_the_figures_says_what_is_out_of_view(
    tmp_path: Path, make_app: AppMaker
) -> None:
    """At 80x24 the demo's figures run past the view: the line below them counts the lines
    above and below it as the GM scrolls (the third "first to fall" line was below the fold
    with nothing saying so)."""
    from textual.containers import VerticalScroll
    from textual.widgets import Label

    app = make_app(demo="2297")
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("F")
        screen = app.screen
        assert isinstance(screen, ForecastScreen)
        await wait_for(lambda: screen.done >= 60)
        await pilot.pause()
        results = screen.query_one("#forecast-results", VerticalScroll)
        hint = screen.query_one("#forecast-hint", Label)
        rows = screen.query_one("#forecast-text", TextPane).size.height
        hidden = rows - results.size.height
        assert hidden > 0 and results.max_scroll_y == hidden
        assert str(hint.content) == (
            f"⏎ reruns · ↓ {hidden} more lines · ^t tunes · escape stops and closes"
        )
        await pilot.press("down", "down")
        await pilot.pause()
        assert f"↑ 2 ↓ {hidden - 2} more lines" in str(hint.content)
        await pilot.press("pagedown", "pagedown", "pagedown")
        await pilot.pause()
        assert f" · ↑ {hidden} more lines · " in str(hint.content)
        assert results.region.bottom <= hint.region.y  # (whole, below the figures)
        await pilot.press("escape")


@pytest.mark.usefixtures("few_runs")
async def test_a_refused_play_is_said_as_typed(tmp_path: Path, make_app: AppMaker) -> None:
    app = make_app(demo="2297")
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await pilot.pause()
        app.clear_notifications()  # (the demo's welcome)
        await pilot.press("F", *"blanc=Hold[bold red]Boss[/]", "enter")
        await pilot.pause()
        notes = [(n.message, n.markup) for n in app._notifications]
        said = f"unknown play 'Hold[bold red]Boss[/]': use {PLAY_WORDS}"
        assert notes == [(said, False)]  # (shown as it reads: no markup)
        await pilot.press("escape")


def kept(folder: Path) -> list[dict[str, object]]:
    """The forecasts the campaign's ledger keeps, of every fight."""
    import tomllib

    path = folder / "ledger.toml"
    if not path.exists():
        return []
    doc = tomllib.loads(path.read_text(encoding="utf-8"))
    return [e for fight in doc.get("fight", []) for e in fight.get("forecast", [])]


async def forecast_to_the_end(app: FacilityApp, pilot, runs: int = 60) -> None:  # type: ignore[no-untyped-def]
    await pilot.press("F")
    assert isinstance(app.screen, ForecastScreen)
    bar = app.screen.query_one(ProgressBar)
    await wait_for(lambda: bar.progress >= runs)
    await plays_finished(app)
    await pilot.press("escape")


async def plays_finished(app: FacilityApp) -> None:
    """The forecast's plays' thread has ended: it writes the ledger once they are done (waited
    for, not guessed: a sleep was too short on a loaded machine)."""
    screen = app.screen
    await wait_for(lambda: not any(w.is_running for w in screen.workers))


@pytest.mark.usefixtures("few_runs")
async def test_f_keeps_each_forecast_in_the_ledger_once_a_step(
    tmp_path: Path, make_app: AppMaker
) -> None:
    app = make_app(demo="facility")
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await pilot.pause()
        for _ in range(3):  # (F pressed three times on the fight as it stands: one entry)
            await forecast_to_the_end(app, pilot)
        await pilot.press("F", "escape")  # (closed before its plays finish: not kept)
        entries = kept(tmp_path)
        assert len(entries) == 1
        assert entries[0]["step"] == app.workspace.session.timeline.current
        assert entries[0]["runs"] == 60 and entries[0]["round"] == 0
        await pilot.press("s")
        await pilot.pause()
        await forecast_to_the_end(app, pilot)
        assert [e["round"] for e in kept(tmp_path)] == [0, 1]
        await pilot.press("escape", "colon", *"end", "enter")
        await pilot.pause()
        import tomllib

        doc = tomllib.loads((tmp_path / "ledger.toml").read_text(encoding="utf-8"))
        (fight,) = doc["fight"]
        assert fight["save"] == app.workspace.path.name
        assert fight["outcome"] == "none"  # (ended with both sides standing)


async def test_a_forecast_from_a_past_step_is_a_what_if_and_not_kept(
    tmp_path: Path, make_app: AppMaker, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(forecast_screen, "RUNS", 20)
    app = make_app(demo="2297")
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("s", "n")
        await pilot.pause()
        await pilot.press("T", "f")  # (the timeline's forecast of the present: kept, as F's)
        bar = app.screen.query_one(ProgressBar)
        await wait_for(lambda: bar.progress >= 20)
        await plays_finished(app)
        await pilot.press("escape", "escape")
        now = app.workspace.session.timeline.current
        assert [e["step"] for e in kept(tmp_path)] == [now]
        await pilot.press("T", "home", "f")
        assert isinstance(app.screen, ForecastScreen)
        bar = app.screen.query_one(ProgressBar)
        await wait_for(lambda: bar.progress >= 20)
        await plays_finished(app)
        await pilot.press("escape", "escape")
        assert [e["step"] for e in kept(tmp_path)] == [now]


@pytest.mark.usefixtures("few_runs")
async def test_a_ledger_that_cannot_be_written_says_so_and_the_forecast_shows(
    tmp_path: Path, make_app: AppMaker
) -> None:
    (tmp_path / "ledger.toml").write_text("not = [toml", encoding="utf-8")
    app = make_app(demo="facility")
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await pilot.pause()
        await pilot.press("F")
        bar = app.screen.query_one(ProgressBar)
        await wait_for(lambda: bar.progress >= 60)
        await wait_for(lambda: any("ledger" in str(n.message) for n in app._notifications))
        (said,) = [str(n.message) for n in app._notifications if "ledger" in str(n.message)]
        assert "not TOML" in said and "\n" not in said
        assert "PCs win" in shown(app)
    assert (tmp_path / "ledger.toml").read_text(encoding="utf-8") == "not = [toml"


# -- tuning the fight to a target (ctrl+t, issue 39) -------------------------------------------

DUEL = (  # Ana against thugs: 1 thug ~100 %, 2 ~88 %, 3 ~40 % (tests/system/test_tune_cli.py)
    "new 2297 Duel seed=3",
    "add Ana side=pc ag=2 cu=2 hlt=30 sta=30 skill=14 dodge=16 weapon='SMG 3d6+1 SA 30'",
    "add Thug ag=1 cu=1 hlt=14 sta=14 skill=10 dodge=14 weapon='Pistol 2d6 SA 12'",
)


def duel_save(tmp_path: Path) -> Path:
    return saved_fight(tmp_path / "duel.toml", *DUEL)


def toasts(app: FacilityApp) -> list[str]:
    return [str(n.message) for n in app._notifications]


def names(app: FacilityApp) -> list[str]:
    return [c.name for c in app.workspace.encounter.combatants]


@pytest.mark.usefixtures("few_runs")
async def test_ctrl_t_tunes_and_enter_applies_the_change_as_one_undoable_step(
    tmp_path: Path, make_app: AppMaker
) -> None:
    from facility_tui.screens.tune import TuneScreen
    from textual.widgets import Label, Static

    app = make_app(open_file=duel_save(tmp_path))
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await pilot.pause()
        await pilot.press("F")
        forecast = app.screen
        assert isinstance(forecast, ForecastScreen)
        assert "^t tunes" in str(forecast.query_one("#forecast-hint").render())
        await pilot.press("ctrl+t", "ctrl+t")  # (twice, in a burst: one tuning)
        tuning = app.screen
        assert isinstance(tuning, TuneScreen)
        assert sum(isinstance(s, TuneScreen) for s in app.screen_stack) == 1
        await pilot.press("enter")  # (nothing typed)
        await pilot.pause()
        assert any("type a target: win 80" in t for t in toasts(app))
        await pilot.press(*"win 88", "enter", "enter")  # (enter twice: it tunes once)
        await pilot.pause()
        assert any("Still tuning" in t for t in toasts(app))
        await wait_for(lambda: tuning.result is not None and not tuning.running)
        text = str(tuning.query_one("#tune-text", Static).render())
        assert "Chosen: Thug: 1 -> 2" in text and "  muster thug=2" in text
        # what enter applies is in view at 80x24: said on the status line, the steps at their end
        assert "Thug: 1 -> 2" in str(tuning.query_one("#tune-status", Label).render())
        await pilot.pause()
        steps = tuning.query_one("#tune-steps")
        assert steps.scroll_y == steps.max_scroll_y
        assert "⏎ applies the change (u undoes it)" in str(
            tuning.query_one("#tune-hint", Label).render()
        )
        assert names(app) == ["Ana", "Thug"]  # (nothing changed yet)
        await pilot.press("enter")
        await wait_for(lambda: isinstance(app.screen, MainScreen))
        assert names(app) == ["Ana", "Thug", "Thug 2"]
        assert app.workspace.encounter.log[-1].text == "Muster: Thug 1 -> 2 (added Thug 2)"
        await pilot.press("u")
        await pilot.pause()
        assert names(app) == ["Ana", "Thug"]


@pytest.mark.usefixtures("few_runs")
async def test_a_bad_target_says_one_line_and_escape_stops_the_tuning(
    tmp_path: Path, make_app: AppMaker
) -> None:
    from facility_tui.screens.tune import TuneScreen

    app = make_app(open_file=duel_save(tmp_path))
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await pilot.pause()
        before = app.workspace.encounter
        await pilot.press("F", "ctrl+t", *"[b]win[/b] 80", "enter")
        await pilot.pause()
        said = [t for t in toasts(app) if "unknown word" in t]
        assert said == ["unknown word '[b]win[/b]': type win 80 deaths 10 rounds 6 (arm TYPE)"]
        tuning = app.screen
        assert isinstance(tuning, TuneScreen)
        await pilot.press("ctrl+u", *"win 50", "enter")
        assert tuning.running
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, ForecastScreen)  # (back to the forecast, playing again)
        # the tuning's thread ends (its plays stopped), long before a tuning would
        await wait_for(
            lambda: not [w for w in app.workers if w.group == "tune" and w.is_running], 10
        )
        await pilot.press("escape")
        await pilot.pause()
        assert app.workspace.encounter == before


@pytest.mark.usefixtures("few_runs")
async def test_when_todays_roster_is_the_one_enter_applies_nothing(
    tmp_path: Path, make_app: AppMaker
) -> None:
    from facility_tui.screens.tune import TuneScreen
    from textual.widgets import Label

    app = make_app(open_file=duel_save(tmp_path))
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await pilot.pause()
        steps = len(app.workspace.session.timeline)
        await pilot.press("F", "ctrl+t", *"win 99", "enter")  # (one thug: won 100 %)
        tuning = app.screen
        assert isinstance(tuning, TuneScreen)
        await wait_for(lambda: tuning.result is not None and not tuning.running)
        hint = str(tuning.query_one("#tune-hint", Label).render())
        assert hint == "today's roster is the one: nothing to apply · escape closes"
        await pilot.press("enter")
        await pilot.pause()
        assert any("nothing to apply" in t for t in toasts(app))
        assert app.screen is tuning
        assert len(app.workspace.session.timeline) == steps


ARMED = (  # two thugs with knives (won 100 %); the campaign's Pistol gives them about 87 %
    "new 2297 Duel seed=3",
    "add Ana side=pc ag=2 cu=2 hlt=30 sta=30 skill=14 dodge=16 weapon='SMG 3d6+1 SA 30'",
    "add Thug count=2 ag=1 cu=1 hlt=14 sta=14 skill=10 dodge=14 weapon='Knife 1d2'",
)


def armed_save(tmp_path: Path) -> Path:
    path = saved_fight(tmp_path / "armed.toml", *ARMED)
    (tmp_path / "catalogs").mkdir()
    (tmp_path / "catalogs" / "guns.toml").write_text(
        'system = "2297"\n[[weapon]]\nname = "Pistol"\ndamage = "2d6"\nmodes = "SA"\nammo = 12\n',
        encoding="utf-8",
    )
    return path


def weapons_of(app: FacilityApp) -> set[str]:
    enc = app.workspace.encounter
    return {c.sheet.weapons[0].name for c in enc.combatants if c.side == "enemies"}


@pytest.mark.usefixtures("few_runs")
async def test_arm_in_the_target_tunes_by_the_weapon_and_enter_applies_it_as_one_step(
    tmp_path: Path, make_app: AppMaker
) -> None:
    from facility_tui.screens.tune import TuneScreen
    from textual.widgets import Input, Label, Static

    app = make_app(open_file=armed_save(tmp_path))
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await pilot.pause()
        before = app.workspace.encounter
        await pilot.press("F", "ctrl+t")
        tuning = app.screen
        assert isinstance(tuning, TuneScreen)
        assert "arm TYPE: by its weapon" in str(tuning.query_one("#tune-hint", Label).render())
        assert "(arm boarder: by its weapon)" in tuning.query_one(Input).placeholder
        explained = str(tuning.query_one("#tune-text", Static).render())
        assert "Enemies today: Thug 2 (Knife 1d2 SS)" in explained
        # junk, then an unknown type: one line each, nothing starts
        for junk, said in [
            ("win 87 arm", "'arm' needs an enemy type: win 80 arm boarder"),
            ("win 87 arm pirate", "arm: no enemy type 'pirate': the fight has Thug (2)"),
            ("win 87 arm ana", "arm: no enemy type 'ana': the fight has Thug (2)"),
        ]:
            await pilot.press("ctrl+u", *junk, "enter")
            await pilot.pause()
            assert said in toasts(app)
            assert not tuning.running
        await pilot.press("ctrl+u", *"win 87 arm thug", "enter", "enter")  # (twice: once)
        await pilot.pause()
        assert any("Still tuning" in t for t in toasts(app))
        await wait_for(lambda: tuning.result is not None and not tuning.running)
        text = str(tuning.query_one("#tune-text", Static).render())
        assert "By the weapons of Thug (the counts as today)" in text
        assert "Chosen: Thug: Knife 1d2 SS -> Pistol" in text and "  arm thug Pistol" in text
        status = str(tuning.query_one("#tune-status", Label).render())
        assert status.startswith("Done: 4 weapons, ") and "Thug: Knife 1d2 SS -> Pistol" in status
        assert app.workspace.encounter == before  # (nothing changed yet)
        await pilot.press("enter")
        await wait_for(lambda: isinstance(app.screen, MainScreen))
        assert weapons_of(app) == {"Pistol"}
        assert (
            app.workspace.encounter.log[-1].text == "Arm: Thug ×2 carry Pistol (had Knife 1d2 SS)"
        )
        await pilot.press("u")
        await pilot.pause()
        assert weapons_of(app) == {"Knife"}
