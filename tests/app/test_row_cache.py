"""The list's rows at a round's start are worked out from memos (issue 25: the ``n`` that ends a
round redraws every row): what they give is what working them out afresh gives, over random
fights, and the list's kept rows are the rows a full render makes, across a round and back."""

from __future__ import annotations

from pathlib import Path

import pytest
from attrs import evolve
from facility_tui.screens.widgets.order_list import OrderList
from hypothesis import example, given, settings
from hypothesis import strategies as st

from facility_tui.commands.dispatch import listed
from facility_tui.commands.grammar import CommandError
from facility_tui.commands.session import Session
from facility_tui.model.encounter import Encounter
from facility_tui.store import blank
from facility_tui.systems import rules_for
from facility_tui.systems.r2297 import engine, view
from tests.app.test_app import _table_rows, screen, settle
from tests.apps import AppMaker

SETUP = (
    "new 2297 T seed={seed}",
    "add A side=pc init=15 edge=1 sta=30",
    "add B init=12 hlt=30 dodge=18 edge=2",
    "add Goon count=3 init=10 edge=1",
    "add C init=8 sta=12 aware=unaware",
)
WHO = ("a", "b", "c", "goon-1", "goon-2", "goon-3")
LINES = st.one_of(
    st.sampled_from(["next"] * 6 + ["undo", "undo", "prev", "redo"]),
    st.builds("hit {} {}".format, st.sampled_from(WHO), st.integers(1, 40)),
    st.builds("fatigue {} {}".format, st.sampled_from(WHO), st.integers(-5, 15)),
    st.builds("cond {} {}".format, st.sampled_from(WHO), st.sampled_from(["prone", "blinded 1"])),
    st.builds("boost {}".format, st.sampled_from(WHO)),
    st.builds("boost {}".format, st.sampled_from(WHO)),
    st.builds("refocus {}".format, st.sampled_from(WHO)),
    st.sampled_from(["add Late init=9", "major", "move", "minor"]),
)


def fresh_columns(enc: Encounter) -> dict[str, dict[str, object]]:
    """Each combatant's list columns from ``summary`` with every memo forgotten first (and
    given back after, to be tested further)."""
    rules = rules_for(enc.system)
    memos = (engine._ECONOMIES, view._SHEET_CELLS)
    kept = [dict(memo) for memo in memos]
    places = list(view._PLACES)
    out = {}
    for c in enc.combatants:
        for memo in memos:
            memo.clear()
        view._PLACES.clear()
        summary = rules.view.summary(enc, c)
        out[c.id] = {col: summary[col] for col in rules.view.columns}
    for memo, was in zip(memos, kept, strict=True):
        memo.clear()
        memo.update(was)
    view._PLACES[:] = places
    return out


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 99), st.lists(LINES, max_size=60))
@example(3, ["next", "boost b", *["next"] * 6])  # an Edge boost for this round only (A3)
def test_memoised_rows_are_the_rows_worked_out_afresh(seed: int, lines: list[str]) -> None:
    session = Session(evolve(blank(), seed=seed))
    for line in SETUP:
        session.execute(line.format(seed=seed))
    session.execute("start")
    seen: list[Encounter] = []
    for line in lines:
        try:
            session.execute(line)
        except CommandError:
            continue
        enc = session.encounter
        seen.append(enc)
        rules = rules_for(enc.system)
        # the memos hold what earlier steps worked out (an undo shows an encounter seen before);
        # the same combatants a round on: a round's start keeps most of them
        for shown in (enc, evolve(enc, round=enc.round + 1), *seen[-3:]):
            memoised = {c.id: rules.view.list_row(shown, c) for c in shown.combatants}
            assert memoised == fresh_columns(shown), line
            for c in shown.combatants:
                assert engine.economy(shown, c) == engine._economy(
                    shown, c, engine.in_turn(shown, c.id)
                )


@pytest.mark.parametrize("size", [(120, 40), (80, 24)])
async def test_the_list_across_a_round_and_back_is_a_full_render(
    tmp_path: Path, make_app: AppMaker, size: tuple[int, int]
) -> None:
    """Rows, measures and lines: undo across a round's start shows the rows kept from before
    (``InitiativeList.set_rows`` given them again), a full render lists and lays out anew."""
    app = make_app(demo="2297")
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        main = screen(app)
        table = main.table
        await pilot.press("s")
        await settle(pilot)
        crossed = 0
        for key in ["n"] * 8 + ["u"] * 8 + ["n"] * 8 + ["ctrl+y"] * 2 + ["u"] * 9:
            before = app.workspace.encounter
            await pilot.press(key)
            await pilot.pause()
            enc = app.workspace.encounter
            crossed += enc.round != before.round
            shown, lines = _table_rows(app), _lines(table)
            assert [k for k, _ in shown] == [c.id for c in listed(enc)]
            # the oracle: all rows anew, every row measured and the list laid out anew (what
            # the list kept, it goes on with)
            kept = table._listings, table._kept
            table.listing, table.row_cache, table._listings = None, {}, []
            table.columns = []
            table.show(enc)
            table._listings, table._kept = kept
            assert shown == _table_rows(app), key
            assert lines == _lines(table), key
        assert crossed >= 4  # forward across a round's start, back, forward, back


def _lines(table: OrderList) -> list[str]:
    """The list's lines in sight, as drawn."""
    height = table.scrollable_content_region.height
    return ["".join(s.text for s in strip) for strip in table.strips(range(height))]


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.lists(st.integers(0, 40).map("c{}".format), min_size=20, max_size=60), max_size=4)
)
def test_a_place_in_the_order_is_where_a_scan_finds_it(orders: list[list[str]]) -> None:
    kept = [tuple(order) for order in orders]
    for order in kept * 2:  # each order again after the others: the kept places follow
        for i in range(42):
            cid = f"c{i}"
            assert view._place(order, cid) == (order.index(cid) if cid in order else None)


FACILITY = (
    "new facility T seed={seed}",
    "add Dee side=pc phy=2",
    "add Eve side=pc sci=-1 ins=1 adm=1 ppe=Earmuffs",
    "add Grunt track=12",
    "add Brute track=30",
)
FACILITY_LINES = st.one_of(
    st.sampled_from(["next", "next", "undo", "redo"]),
    st.builds(
        "wound {} {} {}".format,
        st.sampled_from(["dee", "eve"]),
        st.integers(1, 5),
        st.sampled_from(["phy", "sci", "nor"]),
    ),
)


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 99), st.lists(FACILITY_LINES, max_size=30))
def test_facility_rows_kept_by_sheet_are_its_summaries(seed: int, lines: list[str]) -> None:
    session = Session(evolve(blank(), seed=seed))
    for line in FACILITY:
        session.execute(line.format(seed=seed))
    session.execute("start")
    for line in lines:
        try:
            session.execute(line)
        except CommandError:
            continue
        enc = session.encounter
        rules = rules_for(enc.system)
        for c in enc.combatants:
            assert rules.view.list_row(enc, c) == rules.view.summary(enc, c), line
