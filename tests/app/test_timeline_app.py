"""The timeline in the app (issue 38): T opens it, the list, panes and log show the step under
its cursor without changing the fight, enter plays from that step, escape comes back; branches
switched, named, deleted and brought back; compare; the forecast from a step; every key pressed
as a hurried GM would."""

from __future__ import annotations

from pathlib import Path

import pytest
from facility_tui.screens import forecast as forecast_screen
from facility_tui.screens.forecast import ForecastScreen
from facility_tui.screens.main import MainScreen
from facility_tui.screens.render.text_pane import TextPane
from facility_tui.screens.timeline import CompareScreen, NameDialog, TimelineScreen
from textual.pilot import Pilot
from textual.widgets import Label

from facility_tui import store
from facility_tui.app import FacilityApp
from tests.apps import AppMaker


def main_of(app: FacilityApp) -> MainScreen:
    main = app.screen_stack[1]
    assert isinstance(main, MainScreen)
    return main


def timeline(app: FacilityApp) -> TimelineScreen:
    assert isinstance(app.screen, TimelineScreen)
    return app.screen


def toasts(app: FacilityApp) -> list[str]:
    return [str(n.message) for n in app._notifications]


def panel(app: FacilityApp) -> str:
    screen = timeline(app)
    title = screen.query_one("#timeline-title", Label).render()
    return f"{title}\n{screen.query_one('#timeline-rows', TextPane).text.plain}"


async def played(pilot: Pilot[None], *keys: str) -> None:
    await pilot.pause()
    await pilot.press(*keys)
    await pilot.pause()


async def test_t_shows_any_step_in_the_list_and_escape_changes_nothing(
    make_app: AppMaker,
) -> None:
    app = make_app(demo="2297")
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await played(pilot, "s", "n", "n", "n", "j")
        ws = app.workspace
        now, selected = ws.encounter, main_of(app).table.cursor_key
        current = ws.session.timeline.current
        await played(pilot, "T", "left", "left")
        screen, main = timeline(app), main_of(app)
        at = screen.cursor
        assert ws.session.timeline.path(current)[-3] == at
        assert main.encounter == ws.session.state_at(at) != now  # the step, shown at once
        assert main.encounter.log == ws.session.state_at(at).log  # (the log up to it)
        assert ws.encounter is now and ws.session.timeline.current == current  # nothing changed
        assert "READ-ONLY" in str(main.query_one("#status").render())
        await played(pilot, "escape")
        assert app.screen is main and main.encounter is ws.encounter is now
        assert main.table.cursor_key == selected and ws.session.timeline.current == current


async def test_enter_plays_from_the_step_saved_and_u_walks_back(make_app: AppMaker) -> None:
    app = make_app(demo="2297")
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await played(pilot, "s", "n", "n", "n")
        ws = app.workspace
        tl = ws.session.timeline
        tip = tl.current
        await played(pilot, "T", "left", "left", "enter")
        at = tl.path(tip)[-3]
        assert app.screen is main_of(app) and tl.current == at
        assert main_of(app).encounter is ws.encounter == ws.session.state_at(at)
        assert any("Back to step" in t and "u walks back" in t for t in toasts(app))
        assert ws.flush(5)
        assert store.load(ws.path).encounter == ws.encounter  # autosaved
        await played(pilot, "u")
        assert tl.current == tl.parent(at)
        await played(pilot, "colon", *"roll 1d6", "enter")  # the next command: a branch
        assert tip in tl.tips() and len(tl.tips()) == 2


async def test_the_branch_under_the_cursor_is_switched_named_deleted_and_brought_back(
    make_app: AppMaker,
) -> None:
    app = make_app(demo="2297")
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await played(pilot, "s", "n", "n", "u", "colon", *"roll 1d6", "enter")
        tl = app.workspace.session.timeline
        old, new = sorted(tl.tips())
        await played(pilot, "T")
        screen = timeline(app)
        assert screen.tip == new and f"{new} ↕ branch 2/2" in panel(app)  # its own number
        await played(pilot, "d")  # the branch being played
        assert any("cannot be deleted" in t for t in toasts(app)) and len(tl.tips()) == 2
        await played(pilot, "up")
        assert screen.tip == old and screen.cursor == old
        assert main_of(app).encounter == app.workspace.session.state_at(old)
        await played(pilot, "n")
        assert isinstance(app.screen, NameDialog)
        await played(pilot, *"[b]ambush[/b]", "enter")
        assert tl.names == {old: "[b]ambush[/b]"}
        assert "“[b]ambush[/b]”" in panel(app)  # a name is shown as typed
        await played(pilot, "n", "ctrl+u", *"a name as long as names may be, forty.", "enter")
        title, rows = screen.query_one("#timeline-title"), screen.query_one("#timeline-rows")
        assert (title.size.height, rows.size.height) == (1, 6)  # (cut, not wrapped, at 80)
        await played(pilot, "d")
        assert tl.tips() == [new] and old in tl  # hidden, never destroyed
        assert any("u brings it back" in t for t in toasts(app))
        assert screen.tip == new
        await played(pilot, "u")
        assert sorted(tl.tips()) == [old, new] and screen.tip == old


async def test_a_marked_step_is_compared_with_the_step_under_the_cursor(
    make_app: AppMaker,
) -> None:
    app = make_app(demo="2297")
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await played(pilot, "s", "n", "colon", *"hit boarder-1 12", "enter")
        await played(pilot, "T", "c")
        assert isinstance(app.screen, TimelineScreen)
        assert any("Mark a step first" in t for t in toasts(app))
        await played(pilot, "home", "m", "c")
        assert any("the one under the cursor" in t for t in toasts(app))
        await played(pilot, "end", "c")
        assert isinstance(app.screen, CompareScreen)
        names = [c.name for c in app.screen.found]
        assert "Boarder 1" in names
        shown = app.screen.query_one("#compare-table", TextPane).text.plain
        for name in names:  # every combatant that changed is on the screen's lines
            assert name in shown
        assert "Moderate" in shown
        await played(pilot, "down", "pagedown", "escape")
        assert isinstance(app.screen, TimelineScreen)


async def test_f_forecasts_from_the_step_under_the_cursor_and_changes_nothing(
    make_app: AppMaker, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(forecast_screen, "RUNS", 20)
    app = make_app(demo="2297")
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await played(pilot, "s", "n", "n")
        ws = app.workspace
        now = ws.encounter
        await played(pilot, "T", "home", "f")
        assert isinstance(app.screen, ForecastScreen)
        assert app.screen.enc == ws.session.state_at(0) != now
        await played(pilot, "escape")
        assert isinstance(app.screen, TimelineScreen) and ws.encounter is now


async def test_every_key_on_a_fight_with_no_step_and_in_a_burst(make_app: AppMaker) -> None:
    app = make_app(demo="2297")
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        ws = app.workspace
        now = ws.encounter
        keys = ["left", "right", "pageup", "pagedown", "home", "end", "up", "down"]
        await played(pilot, "T", *keys, *keys, "d", "u", "m", "m", "c", "x", "q", "T")
        assert isinstance(app.screen, TimelineScreen) and ws.encounter is now
        said = toasts(app)
        assert any("no step yet" in t for t in said)
        assert any("No branch deleted here" in t for t in said)
        assert any("No other branch at this step" in t for t in said)
        await played(pilot, "escape", "escape")
        assert app.screen is main_of(app) and ws.encounter is now
        # a burst at the last step of a played fight: enter twice, then a key of the list
        await played(pilot, "s", "n", "n", "T", "right", "right", "enter", "enter", "j")
        assert app.screen is main_of(app) and ws.session.timeline.current != 0


async def test_the_palette_opens_the_timeline(make_app: AppMaker) -> None:
    app = make_app(demo="2297")
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await played(pilot, "ctrl+p", *"Timeline")
        await pilot.pause(0.3)
        await played(pilot, "enter")
        assert isinstance(app.screen, TimelineScreen)


async def test_a_read_only_fight_is_walked_but_not_played_from(
    tmp_path: Path, make_app: AppMaker
) -> None:
    app = make_app(demo="2297")
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await played(pilot, "s", "n", "n")
        assert app.workspace.flush(5)
        app.workspace.read_only = True  # (as when another window writes the save...)
        app.workspace._seen = store.file_signature(app.workspace.path)  # (...as read last)
        now = app.workspace.encounter
        await played(pilot, "T", "left", "enter")
        assert isinstance(app.screen, TimelineScreen)
        assert any("Read-only" in t for t in toasts(app))
        assert app.workspace.encounter == now
