"""Panes that finish their own lines (screens/render/own_lines.py) draw what the styles cache
would."""

from __future__ import annotations

from pathlib import Path

import pytest
from facility_tui.screens.render.own_lines import OwnLines
from facility_tui.screens.render.text_pane import TextPane
from rich.text import Text
from textual.app import App, ComposeResult
from textual.geometry import Region
from textual.widget import Widget

from tests.apps import AppMaker


def _styles_cache_lines(pane: Widget, crop: Region) -> list[list[object]]:
    pane._styles_cache.clear()
    return [list(strip) for strip in Widget.render_lines(pane, crop)]


def _assert_same_as_styles_cache(app: App[object]) -> int:
    checked = 0
    for pane in app.screen.walk_children(OwnLines):
        if not pane.display or not pane.region:
            continue
        width, height = pane.region.size
        for crop in (Region(0, 0, width, height), Region(3, 1, width - 5, height - 1)):
            ours = [list(strip) for strip in pane.render_lines(crop)]
            assert ours == _styles_cache_lines(pane, crop), (pane, crop)
        checked += pane._finish_with is not None
    return checked


@pytest.mark.parametrize("system", ["2297", "facility"])
@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
async def test_own_lines_are_the_styles_caches_lines(
    tmp_path: Path, make_app: AppMaker, system: str, size: tuple[int, int]
) -> None:
    app = make_app(demo=system)
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        # status, list, detail (shown at every width), log and key bar finish their own lines
        assert _assert_same_as_styles_cache(app) == 5
        await pilot.press("s", "n", "colon", *"roll 2d6", "enter")  # a fight
        await pilot.pause()
        assert _assert_same_as_styles_cache(app) == 5
        await pilot.press("colon")  # the command line has focus: the key bar lists its keys
        await pilot.pause()
        _assert_same_as_styles_cache(app)
        app.theme = "textual-light"  # other colours: finished lines are made again
        await pilot.press("escape")
        await pilot.pause()
        assert _assert_same_as_styles_cache(app) == 5


class BorderedApp(App[None]):
    CSS = "TextPane { border: round red; padding: 1 2; }"

    def compose(self) -> ComposeResult:
        yield TextPane(id="pane")

    def on_mount(self) -> None:
        self.query_one(TextPane).update(Text("a line\nanother line"))


async def test_a_pane_with_a_border_is_drawn_by_the_styles_cache() -> None:
    app = BorderedApp()
    async with app.run_test(size=(30, 8)) as pilot:
        await pilot.pause()
        pane = app.query_one(TextPane)
        crop = Region(0, 0, *pane.region.size)
        ours = [list(strip) for strip in pane.render_lines(crop)]
        assert pane._finish_with is None
        assert ours == _styles_cache_lines(pane, crop)
        assert "╭" in "".join(s.text for s in ours[0])
