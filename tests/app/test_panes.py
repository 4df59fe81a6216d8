"""The panes render themselves from the screen's state: each renders once for a change of what it
shows, and not at all for a change of something else (issue 14)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest
from facility_tui.screens.main import MainScreen
from facility_tui.screens.widgets.detail_pane import DetailPane
from facility_tui.screens.widgets.log_pane import LogPane
from facility_tui.screens.widgets.order_list import OrderList
from facility_tui.screens.widgets.status_pane import StatusPane
from textual.widget import Widget

from tests.apps import AppMaker


async def settle(pilot) -> None:  # type: ignore[no-untyped-def]
    await pilot.pause()
    assert pilot.app.workspace.flush(5.0)
    await pilot.pause()


def count_renders(monkeypatch: pytest.MonkeyPatch) -> Counter[str]:
    """How many times each pane rendered (updated its text, or was given a log or rows)."""
    renders: Counter[str] = Counter()

    def counting(cls: type[Widget], name: str, label: str) -> None:
        original = getattr(cls, name)

        def counted(self: Widget, *args: object) -> object:
            renders[label] += 1
            return original(self, *args)

        monkeypatch.setattr(cls, name, counted)

    counting(StatusPane, "show_lines", "status")
    counting(DetailPane, "show_lines", "detail")
    counting(LogPane, "show", "log")
    counting(OrderList, "show", "list")
    return renders


async def test_a_turn_renders_each_pane_once(
    tmp_path: Path, make_app: AppMaker, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("s")
        await settle(pilot)
        renders = count_renders(monkeypatch)
        main = app.screen
        assert isinstance(main, MainScreen)
        acting = app.workspace.encounter.current
        main.action_next()  # (called, so that no autosave's status comes in between)
        assert renders == {"list": 1, "log": 1, "status": 1, "detail": 1}
        await pilot.pause()  # the list's Highlighted arrives: the detail is drawn already
        assert renders["detail"] == 1
        # the detail shows whoever the turn moved to, drawn once (not the one it left first)
        enc = app.workspace.encounter
        assert enc.current != acting and main.selected == enc.current
        assert enc.get(enc.current).name in str(main.query_one("#detail").render())


async def test_moving_the_selection_renders_the_detail_only(
    tmp_path: Path, make_app: AppMaker, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        renders = count_renders(monkeypatch)
        await pilot.press("j")
        await pilot.pause()
        assert renders == {"detail": 1}


async def test_a_save_renders_the_status_line_only(
    tmp_path: Path, make_app: AppMaker, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        main = app.screen
        assert isinstance(main, MainScreen)
        renders = count_renders(monkeypatch)
        main.post_message(MainScreen.SaveStatus(None, "disk full"))
        await pilot.pause()
        assert renders == {"status": 1}
        assert "NOT SAVED" in str(main.query_one("#status").render())
