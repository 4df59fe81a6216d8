"""Every key counts (issue 28): keys typed in a burst act in the order typed, undo and redo too."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from facility_tui.screens.main import MainScreen
from facility_tui.screens.widgets.command_bar import CommandBar
from textual import events
from textual.pilot import Pilot

from facility_tui import cli, store
from facility_tui.app import FacilityApp
from tests.apps import AppMaker

BURST_SETUP = [
    "new 2297 K",
    "add Alpha side=pc init=12",
    "add Beta init=5",
    "start",
    "hit beta 1",
    "next",
]


def key(name: str) -> events.Key:
    """The key event a terminal sends for ``name`` (a character, or a key's name)."""
    chars = {"enter": "\r", "escape": "\x1b", "backspace": "\x7f", "tab": "\t", "space": " "}
    if name.startswith("ctrl+") and len(name) == 6:
        return events.Key(name, chr(ord(name[-1]) - ord("a") + 1))
    return events.Key(name, chars.get(name, name if len(name) == 1 else None))


def burst(app: FacilityApp, keys: str) -> None:
    """All the keys (named, separated by spaces) queued before the first is handled, as a
    terminal reads a fast burst."""
    for name in keys.split():
        app.post_message(key(name))


def history(path: Path) -> tuple[list[str], list[str]]:
    saved = store.load(path)
    return [s.line for s in saved.undo_steps], [s.line for s in saved.redo_steps]


async def settled(pilot: Pilot[None]) -> None:
    """Wait until every key has been handled and every widget's queue is empty."""
    app = pilot.app
    assert isinstance(app, FacilityApp)
    for _ in range(300):
        await pilot.pause()
        if not (app.keys_waiting or app.busy()):
            return
    raise AssertionError("the app never settled")


async def test_the_reported_burst_of_undo_and_redo(tmp_path: Path) -> None:
    """u u d 1 ⏎ d 1 ⏎ n u ctrl+y in one burst: the two u take back next and hit beta 1, the
    last u and ctrl+y cancel out. (Issue 28 saw the second u and ctrl+y as dropped: ctrl+y,
    which the command line does not take, redid at once, ahead of the keys typed before it.)"""
    save = tmp_path / "f.toml"
    assert cli.apply_cmd(save, BURST_SETUP, seed=3, quiet=True) == 0
    app = FacilityApp(open_file=save, clock=lambda: "12:00:00")
    async with app.run_test(size=(80, 24)) as pilot:
        await settled(pilot)
        burst(app, "u u d 1 enter d 1 enter n u ctrl+y")
        await settled(pilot)
        assert app.workspace.flush(5.0)
        undo, redo = history(save)
        assert undo[3:] == ["start", "hit alpha 1", "hit alpha 1", "next"]
        assert redo == []
        assert store.load(save).encounter == app.workspace.encounter  # (what the screen shows)


# -- random bursts of every key of the main screen, against the same keys one at a time ----------

# Every key the main screen binds (q, quit, left out: it ends the test; ctrl+p, the palette, is the
# app's and searches in the background), the quick keys of both systems, and the keys that fill
# what they open: the command line, the dialogs (add, remove's confirmation, new encounter, open),
# help, a roll prompt.
MAIN_KEYS = [
    "n",
    "p",
    "s",
    "u",
    "ctrl+z",
    "ctrl+y",
    "a",
    "x",
    "delete",
    "colon",
    "i",
    "J",
    "K",
    "question_mark",
    "ctrl+n",
    "o",
    "E",
    "j",
    "k",
    "l",
    "e",
    "c",
    "d",
    "1",
    "2",
    "3",
    "r",
    "t",
    "f",
    "w",
    "v",
]
TYPED_KEYS = [
    "0",
    "1",
    "2",
    "4",
    "5",
    "6",
    "8",
    "9",
    "enter",
    "enter",
    "enter",
    "escape",
    "backspace",
    "tab",
    "y",
    "up",
    "down",
    "space",
]


def random_keys(rng: random.Random, count: int) -> list[str]:
    return [rng.choice(MAIN_KEYS if rng.random() < 0.55 else TYPED_KEYS) for _ in range(count)]


def shown(app: FacilityApp) -> tuple[object, ...]:
    """What a GM would see and what is saved: the history, the fight, what is open and typed."""
    main = next(s for s in app.screen_stack if isinstance(s, MainScreen))
    session = app.workspace.session
    return (
        [s.line for s in session.undo_steps],
        [s.line for s in session.redo_steps],
        session.encounter,
        app.workspace.path.name,
        type(app.screen).__name__,
        type(app.focused).__name__,
        main.query_one(CommandBar).value,
        main.table.cursor_key,
    )


async def played(
    folder: Path, demo: str, keys: list[str], *, burst_them: bool
) -> tuple[object, ...]:
    app = FacilityApp(save_dir=folder, seed=1, demo=demo, clock=lambda: "12:00:00")
    async with app.run_test(size=(80, 24)) as pilot:
        await settled(pilot)
        if burst_them:
            burst(app, " ".join(keys))
            await settled(pilot)
        else:
            for name in keys:
                app.post_message(key(name))
                await settled(pilot)
        assert app.workspace.flush(5.0)
        return shown(app)


@pytest.mark.parametrize("demo", ["2297", "facility"])
@pytest.mark.parametrize("seed", [1, 2])
async def test_a_random_burst_acts_as_the_same_keys_one_at_a_time(
    tmp_path: Path, demo: str, seed: int
) -> None:
    keys = random_keys(random.Random(f"{demo}-{seed}"), 40)
    one_by_one = await played(tmp_path / "apart", demo, keys, burst_them=False)
    at_once = await played(tmp_path / "burst", demo, keys, burst_them=True)
    assert at_once == one_by_one, keys


async def burst_fight(pilot: Pilot[None]) -> MainScreen:
    """The main screen with ``BURST_SETUP``'s fight run on it."""
    main = pilot.app.screen
    assert isinstance(main, MainScreen)
    for line in BURST_SETUP:
        main.run_line(line)
    await settled(pilot)
    return main


@pytest.mark.parametrize(("chord", "then"), [("alt+u", "u"), ("alt+shift+k", "K")])
async def test_escape_then_a_key_within_the_terminals_escape_delay_are_both_keys(
    tmp_path: Path, make_app: AppMaker, chord: str, then: str
) -> None:
    """A terminal sends escape and the key after it within 0.1 s as one key, alt+u: the line
    closes, then the key acts (it was typed into the line)."""
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        main = await burst_fight(pilot)
        hit = app.workspace.encounter
        burst(app, "d 3 enter")  # the hit on the acting one, then the line opened again
        await settled(pilot)
        assert app.workspace.encounter is not hit
        burst(app, "d")
        await settled(pilot)
        bar = main.query_one(CommandBar)
        assert bar.has_focus
        app.post_message(events.Key(chord, then))  # (as the terminal's parser reads "\x1bu")
        await settled(pilot)
        assert not bar.has_focus and bar.value == ""  # escape closed the line
        if then == "u":
            assert app.workspace.encounter is hit  # and u undid the hit
        else:
            assert "K" not in bar.value


async def test_an_alt_key_a_config_file_maps_stays_one_key(tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    config.write_text('[keys]\nundo = "alt+u"\n', encoding="utf-8")
    app = FacilityApp(save_dir=tmp_path / "saves", seed=1, config=config)
    async with app.run_test(size=(80, 24)) as pilot:
        main = await burst_fight(pilot)
        before = app.workspace.encounter
        app.post_message(events.Key("alt+u", "u"))
        await settled(pilot)
        assert app.workspace.encounter is not before  # undone: the binding acted
        assert not main.query_one(CommandBar).has_focus
