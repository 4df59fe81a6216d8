"""A key that changes every row of a long list (2297: a round's start; Facility: a side's turn)
makes the rows in sight before its frame and the others after it (issue 25: 1,000 combatants):
the rows in sight are real at once, a stand-in never shows, and once made the list is the full
render of the fight."""

from __future__ import annotations

from pathlib import Path

import pytest
from attrs import evolve
from facility_tui.screens.widgets.order_list import OrderList, row_cells, turn_marks

from facility_tui import store
from facility_tui.commands.dispatch import listed
from facility_tui.commands.session import Session
from facility_tui.model.encounter import Encounter
from facility_tui.systems import rules_for
from tests.app.test_app import _table_rows, screen, settle
from tests.apps import AppMaker

GOONS = 70  # rows: far more than an 80x24 list shows


def _fight(folder: Path, system: str) -> None:
    """A started fight of 70 and one long-named at the list's end, where the next ``n`` changes
    every row: 2297 at the last turn of round 1 (round 2 starts: every row's Actions changes),
    Facility at the PCs' turn (the enemies' turn: each enemy's row takes the turn's mark)."""
    session = Session(evolve(store.blank(), seed=5))
    if system == "facility":
        session.execute("new facility T seed=5")
        session.execute("add Dee side=pc")
        session.execute(f"add Grunt count={GOONS // 2} track=12")
        session.execute(f"add Brute count={GOONS // 2} track=20")
        session.execute("add Quartermaster Ottoline Vandersteen")
        session.execute("start first=pc")
    else:
        session.execute(f"add Goon count={GOONS // 2} init=1d100")
        session.execute(f"add Raider count={GOONS // 2} init=1d100")
        session.execute("add Quartermaster Ottoline Vandersteen init=0")
        session.execute("start")
        while session.encounter.turn < len(session.encounter.order) - 1:
            session.execute("next")
    store.save(session, folder / "fight.toml")


def _real_cells(enc: Encounter, i: int) -> list[str]:
    """Row ``i``'s cells worked out afresh."""
    rules = rules_for(enc.system)
    listing = listed(enc)
    c = listing[i]
    return [repr(x) for x in row_cells(rules, enc, c, i + 1, turn_marks(enc, listing)[i])]


def _lines(table: OrderList) -> list[str]:
    height = table.scrollable_content_region.height
    return ["".join(s.text for s in strip) for strip in table.strips(range(height))]


def _full_render(table: OrderList, enc: Encounter) -> tuple[list[tuple[str, list[str]]], list[str]]:
    """The rows and lines of the list shown afresh: nothing kept, every row made and measured."""
    table.listing, table.row_cache, table._listings, table.columns = None, {}, [], []
    table.show(enc)
    return [(k, [repr(c) for c in cells]) for k, cells in table.shown_rows()[0]], _lines(table)


@pytest.mark.parametrize("system", ["2297", "facility"])
@pytest.mark.parametrize("then", ["frame", "scroll", "read"])
async def test_a_round_start_makes_the_rows_in_sight_first(
    tmp_path: Path, make_app: AppMaker, then: str, system: str
) -> None:
    _fight(tmp_path, system)
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        main = screen(app)
        table = main.table
        before = app.workspace.encounter
        main.run_line("next")  # every row changes, up to (not including) the frame
        enc = app.workspace.encounter
        assert (enc.round, enc.turn) == ((2, 0) if system == "2297" else (before.round, 1))
        pending = table._stand_ins
        assert pending is not None, "a long list's round start stands rows in"
        stood_in = pending[0]
        top = table.scroll_offset.y
        page = table.scrollable_content_region.height - 1
        in_sight = set(range(top, top + page))
        assert in_sight.isdisjoint(stood_in)
        assert len(stood_in) >= GOONS - 2 * page
        shown = table.shown_rows()[0]
        for i in sorted(in_sight)[:page]:
            assert [repr(c) for c in shown[i][1]] == _real_cells(enc, i), i
        if then == "frame":
            await pilot.pause()  # the frame, then the rest are made
            assert table._stand_ins is None
        elif then == "scroll":
            table.action_edge(1)  # the last rows come in sight before the frame
            lines = _lines(table)
            assert table._stand_ins is None
            last = table.row_count - 1
            assert [repr(c) for c in table.shown_rows()[0][last][1]] == _real_cells(enc, last)
            assert "Vandersteen" in lines[-1]  # (its name shortened to its last word)
        else:
            rows = _table_rows(app)  # reading the rows makes them all
            assert table._stand_ins is None
            assert [r[1] for r in rows] == [_real_cells(enc, i) for i in range(len(rows))]
        await settle(pilot)
        rows, lines = _table_rows(app), _lines(table)
        assert (rows, lines) == _full_render(table, enc)


@pytest.mark.parametrize("system", ["2297", "facility"])
async def test_a_burst_of_keys_across_rounds_leaves_the_full_render(
    tmp_path: Path, make_app: AppMaker, system: str
) -> None:
    """Keys pressed faster than a frame (across a round's start and back, scrolled to the end
    and back): every line drawn is a real row's, and the list ends as the full render."""
    _fight(tmp_path, system)
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        table = screen(app).table
        keys = ["n", "n", "end", "n", "u", "u", "u", "home", "ctrl+y", "n", "end", "u", "n"]
        for key in keys:
            await pilot.press(key)  # (no pause: the next key may come before the frame)
        await settle(pilot)
        enc = app.workspace.encounter
        rows, lines = _table_rows(app), _lines(table)
        assert [r[1] for r in rows] == [_real_cells(enc, i) for i in range(len(rows))]
        assert (rows, lines) == _full_render(table, enc)


@pytest.mark.parametrize("system", ["2297", "facility"])
async def test_a_big_fights_first_show_makes_the_rows_in_sight_first(
    tmp_path: Path, make_app: AppMaker, system: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Opening a fight of more than ``FIRST_ALL`` combatants makes before its first frame the rows
    a screen shows around the acting one, stands the others in by their names, and once made
    the list is the full render."""
    from facility_tui.screens.widgets import order_list

    monkeypatch.setattr(order_list, "FIRST_ALL", GOONS // 2)  # (70 rows stand for a big fight)
    _fight(tmp_path, system)
    stood: list[int] = []
    named = order_list._RoundRows._named

    def spy(self: order_list._RoundRows, i: int) -> list[order_list.Cell]:
        stood.append(i)
        return named(self, i)

    monkeypatch.setattr(order_list._RoundRows, "_named", spy)
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        table = screen(app).table
        enc = app.workspace.encounter
        acting = next(
            i for i, c in enumerate(listed(enc)) if c.id == enc.current or c.side == enc.current
        )
        assert len(stood) >= GOONS - 2 * 24 and acting not in stood
        assert table._stand_ins is None
        rows, lines = _table_rows(app), _lines(table)
        assert [r[1] for r in rows] == [_real_cells(enc, i) for i in range(len(rows))]
        assert (rows, lines) == _full_render(table, enc)
