"""A seeded fuzz of the running app: keys, dialog input and command lines in a random mix, with
toasts drawn, quitting and relaunching on the same saves. After every step the app is alive;
every few steps the save on disk loads into exactly the encounter on screen; no bug was met."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from facility_tui.screens.main import MainScreen
from textual.widgets import Input

from facility_tui import store
from facility_tui.app import FacilityApp
from facility_tui.bugs import ERROR_LOG
from facility_tui.commands.dispatch import help_lines

KEYS = [
    *"nnnpsuuijkjk123rdtfwvxyya?o",
    *["ctrl+z", "ctrl+y", "escape", "escape", "enter", "enter", "tab", "backspace", "colon"],
    *["down", "up", "delete", "ctrl+n"],
    *"lecJKE",  # the log's size and filters, the panes' pages, the report
]
JUNK = ["5", "2d6", "[/]", "#2", "a=b", "'", "blanc", "1", "-3", "phy", "all", "0d6", "9999"]


def random_line(rng: random.Random, system: str) -> str:
    verbs = sorted({u.split()[0] for u, _ in help_lines(system)} - {"new"})
    words = [rng.choice(verbs), *rng.choices(JUNK, k=rng.randrange(4))]
    return " ".join(words)


def save_matches_screen(app: FacilityApp) -> None:
    ws = app.workspace
    if ws.read_only:
        return
    assert ws.flush(5.0)
    assert store.load(ws.path).encounter == ws.encounter


@pytest.mark.parametrize(("system", "seed"), [("2297", 11), ("facility", 12)])
async def test_random_keys_and_lines_never_crash_or_lose_a_change(
    tmp_path: Path, system: str, seed: int
) -> None:
    rng = random.Random(seed)
    for launch in range(3):  # quit and relaunch on the same saves
        app = FacilityApp(save_dir=tmp_path, seed=seed, demo=system if launch == 0 else None)
        async with app.run_test(size=(80, 24), notifications=True) as pilot:
            await pilot.pause()
            for step in range(40):
                if rng.random() < 0.25 and isinstance(app.screen, MainScreen):
                    line = random_line(rng, app.workspace.encounter.system)
                    await pilot.press("escape", "colon")  # (a line typed key by key: too slow)
                    app.screen.query_one("#command", Input).insert_text_at_cursor(line)
                    await pilot.press("enter")
                else:
                    await pilot.press(*rng.choices(KEYS, k=rng.randrange(1, 4)))
                await pilot.pause()
                assert app.is_running, (launch, step)
                if step % 10 == 9:
                    save_matches_screen(app)
            while not isinstance(app.screen, MainScreen):
                await pilot.press("escape")
            shown = app.workspace.encounter
            path = app.workspace.path
            await pilot.press("q")
            await pilot.pause()
        assert store.load(path).encounter == shown
    assert not (tmp_path / ERROR_LOG).exists()
