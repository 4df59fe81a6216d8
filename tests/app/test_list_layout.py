"""Issue 21: the list's layout. Its widths are a pure function of the rows and the room; state
words are never cut (whole columns are left out or abbreviated instead); names shorten from the
front and stay told apart. Pure tests of ``list_layout``, then the list as drawn by the app:
the same state reached by different paths draws the same list, at 80×24, 120×40 and 200×50."""

from __future__ import annotations

import random
import shutil
from pathlib import Path

import pytest
from facility_tui.screens.choice_menu import ChoiceMenu
from facility_tui.screens.main import MainScreen
from facility_tui.screens.widgets.initiative import SELECTED, InitiativeList, Row
from facility_tui.screens.widgets.list_layout import (
    MIN_NAME,
    NAME_COMFORT,
    PAD,
    Column,
    Layout,
    Role,
    fit,
    name_floor,
    name_forms,
    shorten_names,
)
from facility_tui.screens.widgets.order_list import ACTING, ESSENTIAL, NEXT
from hypothesis import given
from hypothesis import strategies as st
from rich.cells import cell_len
from rich.text import Text
from textual.app import App, ComposeResult

from facility_tui.app import FacilityApp
from facility_tui.cli import main
from facility_tui.systems import rules_for
from tests.apps import AppMaker

SIZES = ((80, 24), (120, 40), (200, 50))

# -- the name shortener -------------------------------------------------------------------------

words = st.text(alphabet="abcdefghijklmnopqrstuvwxyzABCDEFGHIJ0123456789.'()-éχ", min_size=1)
names_st = st.lists(
    st.lists(words, min_size=1, max_size=5).map(" ".join), min_size=1, max_size=12, unique=True
)


def run_left_open(screen: MainScreen, line: str) -> bool:
    """Run ``line``; the menu of a choice it leaves open is left open (escape)."""
    ok = screen.run_line(line)
    if isinstance(screen.app.screen, ChoiceMenu):
        screen.app.screen.dismiss(None)
    return ok


@given(names_st, st.integers(min_value=1, max_value=50), st.booleans())
def test_shortened_names_fit_are_told_apart_and_are_whole_when_they_fit(
    names: list[str], width: int, hidden: bool
) -> None:
    items = [("(h) " if hidden and i % 2 else "", n) for i, n in enumerate(names)]
    shown = shorten_names(items, width)
    if shown is None:
        assert width < max(cell_len(lead + n) for lead, n in items)
        return
    assert len(set(shown)) == len(shown)  # two names never look alike
    for (lead, name), text in zip(items, shown, strict=True):
        if cell_len(lead + name) <= width:
            assert text == lead + name  # no shortening when it fits
        else:
            assert cell_len(text) <= width and text.startswith(lead)
            assert text[len(lead) :] in name_forms(name)


@given(names_st)
def test_the_name_floor_is_a_width_the_names_are_told_apart_at(names: list[str]) -> None:
    items = tuple(("", n) for n in names)
    floor = name_floor(items)
    assert shorten_names(items, floor) is not None
    assert floor <= max(MIN_NAME, *(cell_len(n) for n in names))


@given(st.lists(words, min_size=1, max_size=5).map(" ".join))
def test_a_name_shortens_from_its_front_and_keeps_its_end(name: str) -> None:
    forms = name_forms(name)
    lengths = [cell_len(f) for f in forms]
    assert lengths == sorted(lengths, reverse=True) and len(set(forms)) == len(forms)
    assert all(cell_len(f) < cell_len(name) for f in forms)
    last = name.split()[-1]
    if len(name.split()) > 1 and len(last) > 3 and last[0] + last[-1] == "()":
        return  # a qualifier gives way first (below)
    for form in forms:
        assert form.endswith(last) or last.endswith(form.lstrip("…"))


def test_a_bracketed_qualifier_gives_way_before_the_name() -> None:
    """Issue 21: 'Dale (Maintenance)' lost its name ('(Maintenance)') while its qualifier stayed."""
    assert name_forms("Dale (Maintenance)")[:3] == ("Dale (Main.)", "Dale (M.)", "Dale")
    items = [("", "Dale (Maintenance)"), ("", "Officer Reyes")]
    assert shorten_names(items, 13) == ["Dale (Main.)", "Officer Reyes"]


def test_drones_keep_their_numbers() -> None:
    assert name_forms("Containment Drone 1")[:3] == ("Cont. Drone 1", "C. Drone 1", "Drone 1")
    items = [("", "Containment Drone 1"), ("", "Containment Drone 2"), ("", "Anne O'Malley")]
    assert shorten_names(items, 13) == ["Cont. Drone 1", "Cont. Drone 2", "Anne O'Malley"]
    assert shorten_names(items, 10) == ["C. Drone 1", "C. Drone 2", "O'Malley"]
    # a shortened name never reads as another's whole name
    assert shorten_names([("", "Drone 1"), ("", "Big Drone 1")], 8) == ["Drone 1", "…rone 1"]


# -- the layout -----------------------------------------------------------------------------------

COLUMNS = [
    Column(" "),
    Column("Name", Role.NAME),
    Column("Side", short="Sd"),
    Column("Injury", short="Inj"),
    Column("Damage", Role.EXTRA),
    Column("Effects", Role.CUT),
]
FULL = [1, 20, 4, 8, 12, 30]
SHORT = [1, 20, 2, 4, 12, 30]


def test_every_column_whole_when_it_fits() -> None:
    lay = fit(COLUMNS, FULL, SHORT, 200, 10, (2, 3))
    assert lay == Layout((1, 20, 4, 8, 12, 30), frozenset(), 2)


def test_the_room_is_given_up_in_a_fixed_order() -> None:
    def at(room: int) -> Layout:
        lay = fit(COLUMNS, FULL, SHORT, room, 10, (2, 3))
        assert lay.width <= room or lay.widths[1] == 10  # fits, or the names at their floor
        assert lay.widths[0] == 1  # a column kept is never narrower than its cells
        for j in (2, 3):
            assert lay.widths[j] == (SHORT if j in lay.short else FULL)[j]
        return lay

    assert at(83).gap == 1 and at(83).widths[-1] == 30  # the gap narrows first
    assert at(70).widths[-1] == 70 - (PAD + 1 + 20 + 4 + 8 + 12 + 6)  # effects shown cut
    assert at(60).widths[-1] == 8
    assert at(58).widths[-2:] == (12, 0)  # then left out (too little room to show it cut)
    assert at(50).widths[-2:] == (0, 0)  # the extra columns go, from the last
    assert at(38).widths[1] == 20 and not at(38).short  # the names whole while they fit
    assert at(36).widths[1] == 18 and not at(36).short  # then the names give way
    assert at(30).short == {2} and at(30).widths[1] == NAME_COMFORT + 1  # then Side's title
    assert at(25).short == {2, 3} and at(25).widths[1] == NAME_COMFORT  # then Injury
    assert at(24).widths[1] == 12  # then the names again
    assert at(10).widths[1] == 10  # at the names' floor: what does not fit scrolls sideways


@given(
    st.lists(st.integers(min_value=1, max_value=30), min_size=6, max_size=6),
    st.integers(min_value=1, max_value=300),
    st.integers(min_value=1, max_value=30),
)
def test_no_state_column_is_ever_narrower_than_its_cells(
    full: list[int], room: int, floor: int
) -> None:
    short = [min(f, 3) if j in (2, 3) else f for j, f in enumerate(full)]
    lay = fit(COLUMNS, full, short, room, floor, (2, 3))
    for j in (0, 2, 3):
        assert lay.widths[j] == (short if j in lay.short else full)[j]
    assert lay.widths[1] >= min(full[1], floor)  # names never below their floor
    assert lay.widths[4] in (0, full[4])  # an extra column is whole or left out
    if lay.widths[1] < full[1]:  # names shortened only when they fill the room left
        assert lay.width == room or (lay.widths[1] == floor and lay.width > room)
    assert fit(COLUMNS, full, short, room, floor, (2, 3)) == lay  # a pure function


class _Shape:
    """A list's shape for its measures: the second column has short forms."""

    columns = [Column("Mark", Role.KEEP), Column("Name", Role.NAME), Column("Side", Role.KEEP)]
    abbreviated = (2,)
    name_marks = ("(h) ",)

    def abbreviate(self, column: int, cell: str | Text) -> str | Text:
        return cell[:2] if isinstance(cell, str) else cell


def test_each_text_of_a_big_fights_rows_is_measured_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """A fight of 1,000 opens with ~975 stand-in rows measured before its first frame: a
    text met before (a side, the empty cells) is not measured again, a new one once (its
    short form too when it has one), and the measures are a whole measuring's."""
    from facility_tui.screens.widgets import list_measures

    measured: list[str] = []
    real = list_measures.length

    def counted(cell: str | Text) -> int:
        measured.append(cell.plain if isinstance(cell, Text) else cell)
        return real(cell)

    m = list_measures.ColumnMeasures(_Shape())
    m.shape(_Shape.columns)
    rows = [
        (f"g{i}", [Text("▶") if i == 0 else " ", Text(f"Goon {i}"), "enemies"]) for i in range(3)
    ]
    monkeypatch.setattr(list_measures, "length", counted)
    m.remeasure(rows)
    assert sorted(measured) == sorted(["▶", " ", "Goon 0", "Goon 1", "Goon 2", "enemies", "en"])
    assert m.rows["g1"][1:] == ((1, 6, 7), (" ", rows[1][1][1], "en"), (1, 6, 2), ("", "Goon 1"))


# -- the list as the app draws it --------------------------------------------------------------


async def settle(pilot) -> None:  # type: ignore[no-untyped-def]
    await pilot.pause()
    assert pilot.app.workspace.flush(5.0)
    await pilot.pause()


def list_text(app: FacilityApp) -> list[str]:
    screen = app.screen
    assert isinstance(screen, MainScreen)
    table = screen.table
    return [table.render_line(y).text for y in range(table.row_count + 1)]


def state_words_whole(app: FacilityApp) -> None:
    """Each row's essential cells (initiative, actions and injury; status, marks and wounds)
    stand whole in their column, in full or in their short form."""
    screen = app.screen
    assert isinstance(screen, MainScreen)
    table, enc = screen.table, app.workspace.encounter
    rules = rules_for(enc.system)
    lay = table._layout_now
    essential = rules.view.columns[:ESSENTIAL]
    lines = list_text(app)
    names = []
    for i, (key, _) in enumerate(table.rows):
        summary = rules.view.summary(enc, enc.get(key))
        line = lines[i + 1]
        x = PAD
        for j, column in enumerate(table.columns):
            width = lay.widths[j]
            if column.title in essential:
                value = str(summary[column.title])
                shown = rules.view.abbreviate(column.title, value) if j in lay.short else value
                assert width and line[x : x + width].rstrip() == shown, (column, line, lay)
            if column.role is Role.NAME:
                names.append(line[x : x + width].rstrip())
            x += width + lay.gap if width else 0
    assert len(set(names)) == len(names), names


STEPS = {  # the key sequences, then heavy harm
    "2297": (
        [("s",), ("j", "j", "t", "enter"), ("n", "2", "t", "6", "enter")],
        ["hit #2 60 through", "hit #3 25", "hit #1 45 through", "hit #8 33", "hit #7 14"],
    ),
    "facility": (
        [("s",), ("w", "3", "enter")],
        ["wound #2 9", "wound #3 4 sci", "wound #4 3", "wound #5 9", "wound #6 5"],
    ),
}


async def reach(app: FacilityApp, pilot, system: str) -> None:  # type: ignore[no-untyped-def]
    keys, lines = STEPS[system]
    await settle(pilot)
    for group in keys:
        await pilot.press(*group)
        await settle(pilot)
        if isinstance(app.screen, ChoiceMenu):  # (an attack left a choice open)
            await pilot.press("escape")
            await settle(pilot)
    screen = app.screen
    assert isinstance(screen, MainScreen)
    for line in lines:
        assert run_left_open(screen, line), line
    await settle(pilot)


async def test_the_same_state_draws_the_same_list_however_it_was_reached(
    tmp_path: Path,
) -> None:
    for system in ("2297", "facility"):
        live, applied = tmp_path / f"live-{system}", tmp_path / f"applied-{system}"
        drawn: dict[tuple[int, int], list[str]] = {}
        app = FacilityApp(save_dir=live, seed=3, demo=system)
        async with app.run_test(size=SIZES[0]) as pilot:
            await settle(pilot)
            shutil.copytree(live, applied)  # the fresh demo's save, for ``apply``
            await reach(app, pilot, system)
            lines = [s.line for s in app.workspace.session.undo_steps]
            screen = app.screen
            assert isinstance(screen, MainScreen)
            # a wider name and status come and go: the list is as it was before them
            assert run_left_open(screen, "add Reinforcement With A Long Name 7")
            assert run_left_open(
                screen, "wound #7 9" if system == "facility" else "hit #9 90 through"
            )
            await settle(pilot)
            assert run_left_open(screen, "undo") and run_left_open(screen, "undo")
            save = app.workspace.path
            for size in SIZES:  # live: key presses, then resizes
                await pilot.resize_terminal(*size)
                await settle(pilot)
                drawn[size] = list_text(app)
                state_words_whole(app)
        assert any(ACTING in line for line in drawn[SIZES[0]])
        assert any(NEXT in line for line in drawn[SIZES[0]])
        assert sum(SELECTED in line for line in drawn[SIZES[0]]) == 1
        # save → load: a relaunch shows what was there
        for size in SIZES:
            again = FacilityApp(save_dir=live, seed=3)
            async with again.run_test(size=size) as pilot:
                await settle(pilot)
                assert list_text(again) == drawn[size], size
        # the same command lines through ``apply``, then opened, then the other sizes shrinking
        copy = applied / save.name
        assert main(["apply", str(copy), *lines]) == 0
        opened = FacilityApp(save_dir=applied, open_file=copy, seed=3)
        async with opened.run_test(size=SIZES[-1]) as pilot:
            for size in reversed(SIZES):
                await pilot.resize_terminal(*size)
                await settle(pilot)
                assert list_text(opened) == drawn[size], size


async def test_state_words_whole_through_a_fight_taken_to_the_end(tmp_path: Path) -> None:
    """Every state word of every row, after each step of both demos taken to heavy harm."""
    for system in ("2297", "facility"):
        for size in SIZES:
            app = FacilityApp(save_dir=tmp_path / f"{system}-{size[0]}", seed=5, demo=system)
            async with app.run_test(size=size) as pilot:
                await settle(pilot)
                state_words_whole(app)
                keys, lines = STEPS[system]
                for group in keys:
                    await pilot.press(*group)
                    await settle(pilot)
                    if isinstance(app.screen, ChoiceMenu):  # (an attack left a choice open)
                        await pilot.press("escape")
                        await settle(pilot)
                    state_words_whole(app)
                screen = app.screen
                assert isinstance(screen, MainScreen)
                for line in lines:
                    assert run_left_open(screen, line), line
                    await settle(pilot)
                    state_words_whole(app)


async def test_help_names_the_selection_mark_and_every_short_form(tmp_path: Path) -> None:
    from facility_tui.screens.help import HelpScreen

    for system, words in (
        ("2297", ["Crit Critical", "Ser Serious", "In Init", "min minor", "Inj Injury"]),
        ("facility", ["Imp Impaired", "P2! S1", "a atk", "Mk Marks", "Stat Status"]),
    ):
        app = FacilityApp(save_dir=tmp_path / system, seed=1, demo=system)
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            await pilot.press("question_mark")
            await pilot.pause()
            assert isinstance(app.screen, HelpScreen)
            text = "\n".join(what for _, what in app.screen.keys)
            assert f"{SELECTED} the selected row" in text and "Sd Side" in text
            assert all(word in text for word in words), text


class OneList(App[None]):
    def compose(self) -> ComposeResult:
        yield InitiativeList(id="stepped")


def halved(_column: int, cell: object) -> object:
    return cell[: len(cell) // 2 + 1] if isinstance(cell, str) else cell


async def test_rows_changed_one_by_one_lay_out_as_the_same_rows_given_whole() -> None:
    """The list's partial updates (one row, a few rows) leave the widths a list given all the
    rows at once would have: no stale width from a row as it was."""
    rng = random.Random(21)
    columns = [
        Column(" "),
        Column("Name", Role.NAME),
        Column("HP", short="H"),
        Column("Fx", Role.CUT),
    ]

    def row(i: int) -> Row:
        name = rng.choice(["Containment Drone", "Boarder", "Officer Reyes", "X"])
        hp = "9" * rng.randint(1, 12)
        fx = "bleeding " * rng.randint(0, 4)
        return (f"c{i}", [" ", Text(f"{name} {i}", style="cyan"), hp, fx])

    app = OneList()
    async with app.run_test(size=(60, 12)) as pilot:
        stepped = app.query_one(InitiativeList)
        stepped.abbreviated = (2,)
        stepped.abbreviate = halved  # type: ignore[method-assign,assignment]
        rows = [row(i) for i in range(7)]
        stepped.set_rows(columns, rows)
        for step in range(300):
            i = rng.randrange(len(rows))
            if step % 50 == 49:  # a few rows at once, through set_rows
                rows = list(rows)
                for j in rng.sample(range(len(rows)), 2):
                    rows[j] = row(j)
                stepped.set_rows(columns, rows)
            else:
                rows[i] = row(i)
                stepped.set_cells(i, rows[i][1])
            if step % 10:
                continue
            await pilot.pause()
            plain = [[c if isinstance(c, str) else c.plain for c in cells] for _, cells in rows]
            full = [
                max(len(col.title), *(len(r[j]) for r in plain)) for j, col in enumerate(columns)
            ]
            short = list(full)
            short[2] = max(1, *(len(str(halved(2, r[2]))) for r in plain))
            names = tuple(("", r[1]) for r in plain)
            room = stepped.scrollable_content_region.width
            assert (stepped.measures.full, stepped.measures.short) == (full, short), step
            expected = fit(columns, full, short, room, name_floor(names), (2,))
            assert stepped._layout_now.short == expected.short, step
            assert stepped._layout_now.widths[2:] == expected.widths[2:], step
            assert stepped._layout_now.widths[1] >= expected.widths[1], step
            lines = [stepped.render_line(y).text for y in range(1, len(rows) + 1)]
            shown = shorten_names(names, stepped._layout_now.widths[1])
            assert shown is not None
            for y, line in enumerate(lines):
                assert line[PAD + 2 :].startswith(shown[y + round(stepped.scroll_y)]), line
        # More rows than lines: a scroll bar takes its room, and the layout follows it
        wide = stepped.scrollable_content_region.width
        stepped.set_rows(columns, [row(i) for i in range(60)])
        await pilot.pause()
        room = stepped.scrollable_content_region.width
        assert room < wide and stepped._layout_now.width <= room


async def test_the_first_injury_does_not_move_the_columns(
    tmp_path: Path, make_app: AppMaker
) -> None:
    """Room is kept for the widest injury and allowance words: a hit, then its undo, leave
    every column where it was."""
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, MainScreen)
        assert run_left_open(screen, "start")
        await settle(pilot)
        before = screen.table._layout_now
        assert run_left_open(screen, "hit #5 16 through")  # Critical: "1 minor -" in its Actions
        await settle(pilot)
        assert any("1 minor - Crit" in line for line in list_text(app))
        assert screen.table._layout_now == before
        assert run_left_open(screen, "undo")
        await settle(pilot)
        assert screen.table._layout_now == before


async def test_rows_kept_and_shown_again_look_as_the_same_rows_given_afresh() -> None:
    """Rows ``keep_shown`` gave, shown again after others (undo across a round's start), are
    shown from the measures they had, and the same rows reordered with a few new cells are
    counted on from their tallies: their lines are those of a list given them anew."""
    rng = random.Random(25)
    columns = [Column(" "), Column("Name", Role.NAME), Column("HP", short="H"), Column("Fx")]

    def row(i: int) -> Row:
        name = rng.choice(["Containment Drone", "Boarder", "Officer Reyes", "X"])
        return (f"c{i}", [" ", Text(f"{name} {i}"), "9" * rng.randint(1, 12), "x" * i])

    def lines(table: InitiativeList) -> list[str]:
        return [strip.text for strip in table.strips(range(table.size.height))]

    app = OneList()
    async with app.run_test(size=(60, 12)) as pilot:
        table = app.query_one(InitiativeList)
        table.abbreviated = (2,)
        table.abbreviate = halved  # type: ignore[method-assign,assignment]
        table.set_rows(columns, [row(i) for i in range(rng.randint(3, 9))])
        kept: list[list[Row]] = []
        shown_again = 0
        for step in range(160):
            move = rng.randrange(5)
            if move == 4 and table.rows:  # the same rows in another order, a few new cells
                rows = list(table.rows)  # (a round's start: the tallies are counted on)
                rng.shuffle(rows)
                for j in rng.sample(range(len(rows)), k=min(2, len(rows))):
                    rows[j] = (rows[j][0], row(int(rows[j][0][1:]))[1])
                table.set_rows(columns, rows)
            elif move == 0 and kept:  # a listing kept lately, shown again
                rows = rng.choice(kept)
                shown_again += table._kept[0][0] is not rows and any(
                    k[0] is rows for k in table._kept
                )
                table.set_rows(columns, rows)
            elif move == 1:  # a new listing: the one shown is kept
                kept = [table.keep_shown(), *kept][:3]
                table.set_rows(columns, [row(i) for i in range(rng.randint(3, 9))])
            elif table.rows:  # one row changes
                i = rng.randrange(len(table.rows))
                table.set_cells(i, row(i)[1])
            if rng.random() < 0.3:
                table.move_cursor(rng.randint(-3, 3))
            await pilot.pause()
            seen, cursor = lines(table), table.cursor_key
            rows, kept_before = list(table.rows), table._kept
            table.columns = []  # the oracle: measured and laid out anew
            table.set_rows(columns, rows)
            table._kept = kept_before  # (what the list kept, it goes on with)
            await pilot.pause()
            assert table.cursor_key == cursor
            assert seen == lines(table), step
        assert shown_again >= 10


STATE_CHANGES = {
    "2297": [
        "hit #5 16 through",
        "set #6 dead yes",
        "cond #7 unconscious",
        "hit #8 45 through",
        "set #2 fatigue 60",
        "hit #3 20 through",
        "undo",
        "undo",
    ],
    "facility": [
        "fate #5 surrendered",
        "fate #4 fled",
        "mark #1 other",
        "fate #6 out",
        "wound #2 1 phy",  # (a tally of several stats may widen its column: not a word)
        "undo",
        "fate #4 dead",
    ],
}


@pytest.mark.parametrize("system", ["2297", "facility"])
async def test_a_state_word_coming_or_going_never_moves_the_columns(
    tmp_path: Path, system: str
) -> None:
    """The layout may choose what to show at a size, not change it under the GM: at 80×24 and
    60×20, a surrender, a death, an injury, a mark spent, exhaustion and their undo leave every
    column as it was (it was `Stat  Marks   Wnd` then `Stat      Mk  Wnd` after a surrender),
    and no state word is cut."""
    for size in ((80, 24), (60, 20)):
        app = FacilityApp(save_dir=tmp_path / f"{system}-{size[0]}", seed=1, demo=system)
        async with app.run_test(size=size) as pilot:
            await settle(pilot)
            screen = app.screen
            assert isinstance(screen, MainScreen)
            assert run_left_open(screen, "start")
            await settle(pilot)
            before = screen.table._layout_now
            assert before.width <= screen.table.scrollable_content_region.width  # no scrolling
            for line in STATE_CHANGES[system]:
                assert run_left_open(screen, line), line
                await settle(pilot)
                assert screen.table._layout_now == before, (size, line)
                state_words_whole(app)
