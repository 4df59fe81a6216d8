"""The initiative list (handles, sides, who acts and who is next, what each can still do, narrow
and wide) and the log's view (full height, filters, toasts clear of it), driven through Pilot."""

from __future__ import annotations

from pathlib import Path

from facility_tui.screens.main import MainScreen
from facility_tui.screens.widgets.initiative import SELECTED
from facility_tui.screens.widgets.log_pane import LogPane
from textual import events
from textual.widgets._toast import Toast

from facility_tui.app import FacilityApp
from facility_tui.commands.session import Session
from facility_tui.store import blank
from facility_tui.systems import rules_for
from tests.apps import AppMaker
from tests.conftest import run
from tests.screen_check import Terminal, record


async def settle(pilot) -> None:  # type: ignore[no-untyped-def]
    await pilot.pause()
    assert pilot.app.workspace.flush(5.0)
    await pilot.pause()


def main_of(app: FacilityApp) -> MainScreen:
    assert isinstance(app.screen, MainScreen)
    return app.screen


def list_lines(app: FacilityApp) -> list[str]:
    """The list as shown: its header, then a line per row."""
    table = main_of(app).table
    return [
        "".join(s.text for s in table.render_line(y)).rstrip()
        for y in range(min(table.size.height, table.row_count + 1))
    ]


def row_of(app: FacilityApp, name: str) -> list[str]:
    """A combatant's cells as plain text, each checked to be on its line as shown."""
    table = main_of(app).table
    for i in range(table.row_count):
        cells = table._shown_cells(i)
        plain = [cell if isinstance(cell, str) else cell.plain for cell in cells]
        if plain[2] == name:
            line = list_lines(app)[i + 1]
            shown = [p for p, width in zip(plain, table._layout_now.widths, strict=False) if width]
            widths = [
                w for w in table._layout_now.widths if w
            ]  # (a cuttable last column shows its start)
            cut = [p[: w - 1].strip() for p, w in zip(shown, widths, strict=True)]
            assert all(p in line for p in cut), (shown, line)
            return shown
    raise AssertionError(f"{name} not in the list: {list_lines(app)}")


def numbered(line: str) -> list[str]:
    """A row's number and name (one word here), without its turn and selection marks."""
    return line.replace("▶", " ").replace("›", " ").replace(SELECTED, " ").split()[:2]


def log_lines(app: FacilityApp) -> list[str]:
    log = main_of(app).query_one(LogPane)
    return ["".join(s.text for s in log.render_line(y)).strip() for y in range(log.size.height)]


async def fresh(app: FacilityApp, pilot, *lines: str) -> None:  # type: ignore[no-untyped-def]
    await settle(pilot)
    for line in lines:
        main_of(app).run_line(line)
    await settle(pilot)


FIGHT = (
    "new 2297 Deck seed=5",
    "add Slow side=pc init=3",
    "add Fast init=20",
    "add Mid init=9",
)


async def test_handles_stay_as_the_order_changes_and_after_a_removal(
    tmp_path: Path, make_app: AppMaker
) -> None:
    app = make_app()
    async with app.run_test(size=(120, 40), notifications=True) as pilot:
        await fresh(app, pilot, *FIGHT, "start")
        header = list_lines(app)[0].split()
        assert header[:3] == ["#", "Name", "Side"]
        rows = list_lines(app)[1:]
        assert [numbered(r) for r in rows] == [["2", "Fast"], ["3", "Mid"], ["1", "Slow"]]
        await fresh(app, pilot, "init slow 30", "next", "next", "next")  # round 2: Slow first
        assert app.workspace.encounter.round == 2
        rows = list_lines(app)[1:]
        assert numbered(rows[0]) == ["1", "Slow"] and "▶" in rows[0]
        assert [numbered(r) for r in rows[1:]] == [["2", "Fast"], ["3", "Mid"]]
        await fresh(app, pilot, "remove #3", "add Late init=12")
        assert sorted(numbered(r)[0] for r in list_lines(app)[1:]) == ["1", "2", "4"]
        log = app.workspace.encounter.log
        main_of(app).run_line("hit #2 5")  # #2: Fast, wherever it stands in the list
        await settle(pilot)
        new = app.workspace.encounter.log[len(log) :]
        assert new[0].text.startswith("Hit on Fast: 5")


async def test_sides_and_turns_are_words_and_signs_not_colours_only(
    tmp_path: Path, make_app: AppMaker
) -> None:
    app = make_app()
    async with app.run_test(size=(120, 40), notifications=True) as pilot:
        await fresh(app, pilot, *FIGHT, "start")
        assert row_of(app, "Slow")[3] == "PC" and row_of(app, "Fast")[3] == "EN"
        assert row_of(app, "Fast")[0] == "▶"
        assert row_of(app, "Mid")[0] == "›"  # who acts next
        await fresh(app, pilot, "next")
        assert "done R" in row_of(app, "Fast")  # its turn is over: not next turn's allowance
        assert row_of(app, "Mid")[0] == "▶" and row_of(app, "Slow")[0] == "›"
        await fresh(app, pilot, "hit slow 99 through")
        cells = row_of(app, "Slow")
        assert "dying" in cells  # out, and why, in words


def test_A4_the_actions_cell_says_what_is_left_in_all() -> None:
    """A4: under a Serious injury one action in all is left (never ``1/1/0``); after it, none."""
    rules = rules_for("2297")
    s = run(
        Session(blank()),
        "new 2297 T seed=1",
        "add A init=14 hlt=40",
        "add B init=5",
        "start",
        "set a injury serious effects=no",
    )
    cell = rules.view.summary(s.encounter, s.encounter.get("a"))["Actions"]
    assert cell == "1 act -"
    s.execute("major")
    assert rules.view.summary(s.encounter, s.encounter.get("a"))["Actions"] == "done -"
    s.execute("next")
    assert rules.view.summary(s.encounter, s.encounter.get("a"))["Actions"] == "done -"
    b = rules.view.summary(s.encounter, s.encounter.get("b"))["Actions"]
    assert b == "1/1/0 R"


async def test_the_essentials_fit_at_80_beside_the_detail_column(
    tmp_path: Path, make_app: AppMaker
) -> None:
    app = make_app()
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await fresh(app, pilot, *FIGHT, "add Containment Drone Number 12 init=4", "start")
        await settle(pilot)  # (the detail column is beside the list from the start)
        assert main_of(app).query_one("#detail-box").display
        table = main_of(app).table
        assert table.size.width <= 46
        header = list_lines(app)[0].split()
        # (short titles and injury words: the room for "1 minor -" and "Critical" is kept)
        assert header[:6] == ["#", "Name", "Sd", "In", "Actions", "Inj"]
        assert all(len(line) <= table.size.width for line in list_lines(app))
        drone = next(line for line in list_lines(app) if "Number 12" in line)
        assert "EN" in drone  # the name's start gives way: "Number 12" stays


async def test_at_200_columns_names_are_whole_and_more_is_shown(
    tmp_path: Path, make_app: AppMaker
) -> None:
    app = make_app()
    async with app.run_test(size=(200, 50), notifications=True) as pilot:
        long = "Containment Drone With A Long Name 12"
        await fresh(app, pilot, *FIGHT, f"add {long} init=4", "start")
        assert long in "\n".join(list_lines(app))
        assert list_lines(app)[0].split()[-3:] == ["Damage", "Fatigue", "Effects"]


async def test_log_keys_bare_twice_and_in_a_burst(tmp_path: Path, make_app: AppMaker) -> None:
    app = make_app()
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await fresh(app, pilot, *FIGHT, "start", "hit fast 12", "roll 2d6", "next")
        main = main_of(app)
        log = main.query_one(LogPane)
        enc = app.workspace.encounter
        before = enc
        assert log.border_title == "Log"
        height = log.size.height
        await pilot.press("l")
        await pilot.pause()
        assert log.size.height > height + 10 and not main.query_one("#body").display
        await pilot.press("l")
        await pilot.pause()
        assert log.size.height == height
        await pilot.press("e")  # rolls only
        await pilot.pause()
        assert log.border_title.startswith("Log: rolls")
        assert str(main.query_one("#body").border_subtitle).startswith("Log: rolls")  # shown
        shown = [line for line in log_lines(app) if line]
        assert shown and all(":" in line and ("d6" in line or "d10" in line) for line in shown)
        assert shown[-1] == f"[{enc.round}] " + [e for e in enc.log if e.kind == "roll"][-1].text
        await pilot.press("e", "e", "e", "e")  # harm, turns, overrides, then all again
        await pilot.pause()
        assert log.border_title == "Log"
        table = main.table
        table.move_to("fast")
        await pilot.press("c")
        await pilot.pause()
        assert "Fast" in str(log.border_title)
        entries = [line for line in log_lines(app) if line.startswith("[")]  # (not wrapped parts)
        assert entries and all("Fast" in line for line in entries)
        await pilot.press("c")
        await pilot.pause()
        assert log.border_title == "Log"
        for key in "celcelee" + "ell":  # in one burst: five e come back to every kind
            app.post_message(events.Key(key, key))
        await settle(pilot)
        assert log.border_title == "Log" and main.query_one("#body").display
        assert app.workspace.encounter is before  # the log's view changes nothing in the fight
        assert isinstance(app.screen, MainScreen)


async def test_a_log_filter_keeps_up_as_the_log_grows_and_shrinks(
    tmp_path: Path, make_app: AppMaker
) -> None:
    app = make_app()
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await fresh(app, pilot, *FIGHT, "start")
        await pilot.press("e")  # rolls
        main_of(app).run_line("roll 1d4")
        await settle(pilot)
        assert log_lines(app)[-1].startswith("[1] Roll: 1d4") or any(
            "Roll: 1d4" in line for line in log_lines(app)
        )
        await pilot.press("u")
        await settle(pilot)
        assert not any("Roll: 1d4" in line for line in log_lines(app))
        await pilot.press("e", "e", "e")  # GM overrides: none yet
        await pilot.pause()
        assert [line for line in log_lines(app) if line] == ["(no such lines yet)"]
        main_of(app).run_line("init mid 14")
        await settle(pilot)
        assert [line for line in log_lines(app) if line][-1].startswith("[1] Mid initiative")


async def test_toasts_stay_clear_of_the_log(tmp_path: Path, make_app: AppMaker) -> None:
    app = make_app()
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await fresh(app, pilot, *FIGHT)
        await pilot.press("colon", *"zork", "enter")  # a refusal: an error toast
        main_of(app).notify("a long message " * 6, timeout=30)
        await pilot.pause()
        await pilot.pause()
        toasts = list(app.screen.query(Toast))
        assert len(toasts) >= 2
        log = main_of(app).query_one(LogPane).region
        for toast in toasts:
            assert not toast.region.overlaps(log), (toast.region, log)


async def test_the_palette_names_combatants_by_number_and_side(
    tmp_path: Path, make_app: AppMaker
) -> None:
    from facility_tui.screens.palette import FacilityCommands
    from textual.command import CommandPalette

    from tests.app.test_config import choose

    app = make_app()
    async with app.run_test(size=(100, 30), notifications=True) as pilot:
        await fresh(app, pilot, *FIGHT, "start")
        provider = FacilityCommands(app.screen)
        entries = [(text, help) for text, help, _ in provider._entries()][:3]
        assert entries == [
            ("#2 Fast", "Enemy · select it"),
            ("#3 Mid", "Enemy · select it"),
            ("#1 Slow", "PC · select it"),
        ]
        await choose(pilot, "#3")
        assert not isinstance(app.screen, CommandPalette)
        assert main_of(app).table.cursor_key == "mid"


async def test_a_combatant_hidden_from_players_is_marked_in_words(
    tmp_path: Path, make_app: AppMaker
) -> None:
    """``hide``: the GM's list says so before the name (``(h)``), and ``unhide`` takes it off."""
    app = make_app()
    async with app.run_test(size=(120, 40), notifications=True) as pilot:
        await fresh(app, pilot, *FIGHT, "hide mid")
        mid = next(line for line in list_lines(app) if "Mid" in line)
        assert "(h) Mid" in mid
        assert not any("(h)" in line for line in list_lines(app) if "Mid" not in line)
        await fresh(app, pilot, "unhide mid")
        assert not any("(h)" in line for line in list_lines(app))


async def test_the_log_filter_title_shows_a_name_as_typed(
    tmp_path: Path, make_app: AppMaker
) -> None:
    """``c`` on a combatant whose name looks like markup: the log's title shows it as typed
    (the title is a border title, which Textual would read as markup from a string)."""
    app = make_app()
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await fresh(app, pilot, "new 2297 Deck seed=5", 'add "[/]Boss [b]x" init=9')
        await pilot.press("c")
        await settle(pilot)
        assert app.is_running
        body = main_of(app).query_one("#body")
        assert "[/]Boss [b]x" in body._border_subtitle.plain  # type: ignore[union-attr]
        await pilot.press("l")  # full height: the log's own title
        await settle(pilot)
        log = main_of(app).query_one(LogPane)
        assert "[/]Boss [b]x" in log._border_title.plain  # type: ignore[union-attr]
        await pilot.press("c", "l")
        await settle(pilot)
        assert app.is_running


async def test_the_logs_lines_are_a_full_render_after_a_burst_a_long_order_and_undo(
    tmp_path: Path,
    make_app: AppMaker,
) -> None:
    """The log renders only the lines it keeps of what was added (a burst of a thousand lines,
    a round's order naming 60 in 20 lines): what it keeps is what rendering the whole log
    afresh keeps, across rounds, a burst and undo."""
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        goons = "add Goon count=30 init=1d100"
        await fresh(app, pilot, "new 2297 Deck seed=5", goons, goons, "start")
        main = main_of(app)
        log = main.query_one(LogPane)

        def same_as_a_full_render() -> None:
            width = log.scrollable_content_region.width
            shown = [[(s.text, s.style) for s in line] for line in log.lines]
            kept = log._shown, log._cache
            log._cache = {}
            afresh = log._full_tail(app.workspace.encounter.log, width)
            log._shown, log._cache = kept  # (the pane goes on from its own state)
            assert shown == [[(s.text, s.style) for s in line] for line in afresh]
            assert len(shown) == log.keep  # (the log is longer than the pane keeps)

        for _ in range(120):  # past the round's end: its order is a long line
            main.run_line("next")
        await settle(pilot)
        same_as_a_full_render()
        for _ in range(1000):  # a burst, shown at once
            app.workspace.session.execute("roll 1d6")
        main.run_line("roll 1d4")
        await settle(pilot)
        same_as_a_full_render()
        for _ in range(3):
            await pilot.press("u")
        await settle(pilot)
        same_as_a_full_render()


def bar_column(app: FacilityApp, terminal: Terminal) -> list[bool]:
    """Each row of the log's scroll bar as the terminal shows it: True where the thumb is (a cell
    in reverse video, or one of its part-cell ends)."""
    bar = main_of(app).query_one(LogPane).vertical_scrollbar
    x, y, _, height = app.screen._compositor.visible_widgets[bar][0]
    return [
        terminal.cells[row][x] != " " or terminal.reversed(x, row) for row in range(y, y + height)
    ]


async def test_the_logs_scroll_bar_shows_where_the_log_is_scrolled(
    tmp_path: Path, make_app: AppMaker
) -> None:
    """The log's bar follows the log to its end as it grows (the log sets the bar's size where a
    layout pass would), to its top when scrolled there, and back, as the terminal shows it."""
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await fresh(app, pilot, *FIGHT, "start", *["next"] * 12)
        log = main_of(app).query_one(LogPane)
        assert log.virtual_size.height > 4 * log.size.height  # (a thumb shorter than a cell)
        terminal = record(app)  # (what the frames write from now on: a whole one first)
        await pilot.pause()
        rows = bar_column(app, terminal)
        assert rows[-1] and not rows[0], rows  # at the end
        log.scroll_home(animate=False)
        await pilot.pause()
        rows = bar_column(app, terminal)
        assert rows[0] and not rows[-1], rows  # at the top
        main_of(app).run_line("next")  # a new line: the log goes back to its end
        await settle(pilot)
        rows = bar_column(app, terminal)
        assert rows[-1] and not rows[0], rows
        assert not terminal.faults
