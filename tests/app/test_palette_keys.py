"""Issue 22 item 6: the command palette's keys never crash, however fast they come.

The list of the palette is refilled by a worker as the query changes; a key that moves in it
can arrive after it is refilled and before it is laid out again. Keys are queued in bursts, as
a fast typist sends them, with a few turns of the event loop between some of them."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from facility_tui.screens.main import MainScreen
from textual import events
from textual.command import CommandList, CommandPalette

from facility_tui.app import FacilityApp
from tests.app.test_key_order import settled
from tests.apps import AppMaker

# The keys that move in the palette's list (and the input's home and end), and what is typed.
MOVES = ["pageup", "pagedown", "ctrl+home", "ctrl+end", "shift+home", "shift+end", "home", "end"]
MOVES += ["up", "down"]
TYPED = {"backspace": "\x7f", "space": " "}


def key(name: str) -> events.Key:
    char = TYPED.get(name, name if len(name) == 1 else None)
    return events.Key(name, char)


async def burst(app: FacilityApp, keys: list[str], gap: int) -> None:
    """Queue ``keys``, ``gap`` turns of the event loop apart (0: all before the first acts)."""
    for name in keys:
        app.post_message(key(name))
        for _ in range(gap):
            await asyncio.sleep(0)


@pytest.mark.parametrize("demo", ["facility", "2297"])
@pytest.mark.parametrize("move", ["pageup", "pagedown", "ctrl+home", "ctrl+end", "up", "down"])
async def test_palette_list_keys_in_bursts_as_it_opens_and_refills(
    tmp_path: Path, make_app: AppMaker, demo: str, move: str
) -> None:
    app = make_app(demo=demo)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        before = app.workspace.encounter
        for gap in (0, 1, 2, 4):
            # opened: the list fills from empty; a query refills it; one with no match empties
            # it, and the next character fills it again
            keys = ["ctrl+p", *[move] * 6, "d", move, move, "r", move, "z", "z", "z", move]
            keys += ["backspace", move, "backspace", "backspace", move, move, "escape"]
            await burst(app, keys, gap)
            await settled(pilot)  # (on a loaded machine the burst takes a while)
            assert isinstance(app.screen, MainScreen)
        assert app.workspace.encounter is before  # the palette's keys ran nothing


@pytest.mark.parametrize("demo", ["facility", "2297"])
async def test_palette_every_move_key_mixed_in_bursts(
    tmp_path: Path, make_app: AppMaker, demo: str
) -> None:
    app = make_app(demo=demo)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        for gap in (0, 1, 3):
            for start in range(0, len(MOVES), 2):
                moves = MOVES[start:] + MOVES[:start]
                await burst(app, ["ctrl+p", *moves, "a", *moves, "escape"], gap)
                await settled(pilot)
                assert not isinstance(app.screen, CommandPalette)


@pytest.mark.parametrize("move", ["pageup", "pagedown", "home", "end", "up", "down"])
async def test_open_dialog_list_keys_in_bursts_as_it_opens(
    tmp_path: Path, make_app: AppMaker, move: str
) -> None:
    """The o dialog's list of saves is an option list too: its keys as it opens."""
    for name in ("a", "b", "c"):
        (tmp_path / f"{name}.toml").write_bytes(b"")  # (listed; never opened here)
    app = make_app(demo="facility")
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        for gap in (0, 1, 3):
            await burst(app, ["o", move, move, move, "escape"], gap)
            await settled(pilot)
            assert isinstance(app.screen, MainScreen)


async def test_palette_page_keys_still_page_once_the_list_is_shown(
    tmp_path: Path, make_app: AppMaker
) -> None:
    app = make_app(demo="facility")
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("ctrl+p")
        listed = app.screen.query_one(CommandList)
        for _ in range(50):  # the providers search in a worker
            await pilot.pause(0.02)
            if listed.option_count > 10 and listed.scrollable_content_region:
                break
        assert listed.highlighted == 0
        await pilot.press("pagedown")
        down = listed.highlighted
        assert down is not None and down > 1  # a page of several options
        await pilot.press("pageup")
        assert listed.highlighted == 0
