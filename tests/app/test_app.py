"""The app driven by keys through Textual's Pilot, on a temporary save folder."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Self

import pytest
from facility_tui.screens.main import MainScreen
from facility_tui.screens.widgets.initiative import SELECTED, InitiativeList
from facility_tui.screens.widgets.key_bar import KeyBar
from facility_tui.screens.widgets.log_pane import LogPane
from rich.text import Text
from textual import events, on
from textual.app import App, ComposeResult
from textual.geometry import Region
from textual.widgets import Input, Static

from facility_tui.app import FacilityApp
from facility_tui.commands.dispatch import help_lines, listed
from facility_tui.model.encounter import Phase
from facility_tui.store import load
from tests.apps import AppMaker


async def settle(pilot) -> None:  # type: ignore[no-untyped-def]
    """Let the screen catch up and the autosaver write what it was given."""
    await pilot.pause()
    assert pilot.app.workspace.flush(5.0)
    await pilot.pause()


def screen(app: FacilityApp) -> MainScreen:
    assert isinstance(app.screen, MainScreen)
    return app.screen


def status(app: FacilityApp) -> str:
    return str(screen(app).query_one("#status").render())


async def test_narrow_or_wide_from_the_first_frame(tmp_path: Path, make_app: AppMaker) -> None:
    """The panes' column is shown at every width: 38 columns at 80, 44 at 120, 60 at 200."""
    for width, narrow, column in ((80, True, 38), (120, False, 44), (200, False, 60)):
        app = make_app()
        async with app.run_test(size=(width, 30)) as pilot:
            main = screen(app)
            assert main.has_class("-narrow") is narrow
            await pilot.pause()
            box = main.query_one("#detail-box")
            assert box.display and box.outer_size.width == column
            await pilot.press("i")  # i hides it: the list takes the width
            assert not box.display
            await pilot.press("i")
            assert box.display


async def test_first_launch_opens_the_saved_demo(tmp_path: Path, make_app: AppMaker) -> None:
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        enc = app.workspace.encounter
        assert enc.name == "Boarding the Jean Bart" and len(enc.combatants) >= 4
        assert app.workspace.path.exists()
        assert str(app.workspace.path.name) in status(app)


async def test_keys_run_a_fight_with_undo_and_redo(tmp_path: Path, make_app: AppMaker) -> None:
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("s")
        enc = app.workspace.encounter
        assert (enc.phase, enc.round, enc.turn) == (Phase.ACTIVE, 1, 0)
        await pilot.press("n", "n")
        assert app.workspace.encounter.turn == 2
        assert "Round 1" in status(app)
        await pilot.press("u")
        assert app.workspace.encounter.turn == 1
        await pilot.press("ctrl+y")
        assert app.workspace.encounter.turn == 2
        await pilot.press("p")
        assert app.workspace.encounter.turn == 1
        await settle(pilot)
        assert load(app.workspace.path).encounter == app.workspace.encounter


async def test_command_bar_refuses_bad_input_and_keeps_the_line(
    tmp_path: Path, make_app: AppMaker
) -> None:
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        before = app.workspace.encounter
        await pilot.press("colon", *"roll 2d", "enter")
        bar = screen(app).query_one("#command")
        assert app.workspace.encounter == before
        assert bar.has_focus and bar.value == "roll 2d"  # type: ignore[attr-defined]
        await pilot.press("backspace", *"d6", "enter")
        assert not bar.has_focus and bar.value == ""  # type: ignore[attr-defined]
        assert "Roll: 2d6" in app.workspace.encounter.log[-1].text


async def test_command_bar_tab_completes_a_combatant_as_the_line_reads_it(
    tmp_path: Path, make_app: AppMaker
) -> None:
    """The list says "Boarder 2"; Tab turns the start of a name into its id (one word on the
    line), as far as the ids agree while several fit, pressed again and again as a GM would."""
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("colon", *"hit boa", "tab", "tab")
        bar = screen(app).query_one("#command")
        assert bar.value == "hit board"  # type: ignore[attr-defined]
        await pilot.press(*"er", "tab", "2", "tab", "tab")
        assert bar.value == "hit boarder-2 "  # type: ignore[attr-defined]
        await pilot.press(*"30", "enter")  # (through its vacsuit)
        await pilot.pause()
        hit = app.workspace.encounter.get("boarder-2")
        assert hit.sheet.damage > 0  # type: ignore[attr-defined]


async def test_tab_completes_the_name_before_the_cursor_and_keeps_the_rest(
    tmp_path: Path, make_app: AppMaker
) -> None:
    """``t`` on a row before the fight starts opens ``attack ␣ boarder-1`` with the cursor on
    the attacker's place: Tab completes the name typed there, the target after it kept."""
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("down", "down", "t")  # (Boarder 1: the one attacked)
        bar = screen(app).query_one("#command")
        assert bar.value == "attack  boarder-1 "  # type: ignore[attr-defined]
        await pilot.press(*"bl", "tab", "tab")
        assert bar.value == "attack sgt-blanc boarder-1 "  # type: ignore[attr-defined]
        assert bar.cursor_position == len("attack sgt-blanc")  # type: ignore[attr-defined]
        await pilot.press("left", "tab")  # (inside a word: nothing ends there)
        assert bar.value == "attack sgt-blanc boarder-1 "  # type: ignore[attr-defined]


async def test_command_bar_names_the_nearest_command_of_a_typo(
    tmp_path: Path, make_app: AppMaker
) -> None:
    """``hti boarder-1 3`` on the command line: refused, the toast says ``hit`` is meant, and
    the line stays to be fixed."""
    from textual.widgets._toast import Toast

    app = make_app()
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await settle(pilot)
        before = app.workspace.encounter
        await pilot.press("colon", *"hti boarder-1 3", "enter")
        await pilot.pause()
        assert app.workspace.encounter == before
        shown = " ".join(str(t.render()) for t in app.screen.query(Toast))
        assert "unknown command 'hti' (did you mean hit?)" in shown


def _burst(app: FacilityApp, keys: str) -> None:
    """Queue keys as a fast typist (or a paste) does: all before the first has been handled."""
    names = {
        "⏎": ("enter", "\r"),
        "\t": ("tab", "\t"),
        "\x1b": ("escape", "\x1b"),
        "\x7f": ("backspace", "\x7f"),
        ":": ("colon", ":"),
        "←": ("left", None),
        "⌦": ("delete", None),
        " ": ("space", " "),
    }
    for char in keys:
        app.post_message(events.Key(*names.get(char, (char, char))))


async def test_keys_typed_in_one_burst_go_where_they_were_meant(
    tmp_path: Path, make_app: AppMaker
) -> None:
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("s")
        log = app.workspace.encounter.log
        # 4 and 5 type the amount (1, 2, 3 would spend actions); the second enter takes the
        # injury (the Edge menu's default: Sgt. Blanc has Edge)
        _burst(app, "d45⏎⏎n")
        await settle(pilot)
        new = [e.text for e in app.workspace.encounter.log[len(log) :]]
        assert new[0].startswith("Hit on Sgt. Blanc: 45 physical")
        assert not any("spent" in line for line in new)
        assert "Sgt. Blanc keeps Edge: Serious injury 1 stands" in new
        assert "Aspirant Cassart's turn" in "\n".join(new)  # n, after the menu, went to the list
        bar = screen(app).query_one("#command", Input)
        assert screen(app).table.has_focus and bar.value == ""
        log = app.workspace.encounter.log
        _burst(app, "d1⏎d2⏎")  # two hits in one burst: the second d opens the line again
        await settle(pilot)
        new = [e.text for e in app.workspace.encounter.log[len(log) :]]
        assert [line[:26] for line in new if line.startswith("Hit")] == [
            "Hit on Aspirant Cassart: 1",
            "Hit on Aspirant Cassart: 2",
        ]
        assert screen(app).table.has_focus and bar.value == ""
        turn = app.workspace.encounter.turn
        _burst(app, ":rol\x1bn")  # escape, then n: the line closes and n goes to the list
        await settle(pilot)
        assert app.workspace.encounter.turn == turn + 1
        assert screen(app).table.has_focus and bar.value == ""
        order = [c.id for c in listed(app.workspace.encounter)]
        below = app.workspace.encounter.get(order[order.index(screen(app).table.cursor_key) + 1])
        _burst(app, "jd7⏎")  # j moves the selection before d starts the command on it
        await settle(pilot)
        hits = [e.text for e in app.workspace.encounter.log if e.text.startswith("Hit on")]
        assert hits[-1].startswith(f"Hit on {below.name}: 7")
        _burst(app, ":roll 12\x7f3")  # backspace acts between the keys typed around it
        await settle(pilot)
        assert bar.has_focus and bar.value == "roll 13"
        count = len(app.workspace.encounter.combatants)
        _burst(app, "←⌦")  # delete is the line's while it has focus, not the list's remove
        await settle(pilot)
        assert bar.value == "roll 1" and len(app.workspace.encounter.combatants) == count


async def test_add_dialog_fields_typed_in_one_burst(tmp_path: Path, make_app: AppMaker) -> None:
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        count = len(app.workspace.encounter.combatants)
        _burst(app, "aThug\t\t2d6\t2⏎")  # the dialog; name, side (as it is), initiative, count
        await settle(pilot)
        thugs = [c for c in app.workspace.encounter.combatants if c.name.startswith("Thug")]
        assert len(app.workspace.encounter.combatants) == count + 2 and len(thugs) == 2
        assert isinstance(app.screen, MainScreen)
        assert any("Thug" in e.text and "2d6" in e.text for e in app.workspace.encounter.log)


async def test_command_bar_after_a_run_is_idle_and_recalls_the_line(
    tmp_path: Path, make_app: AppMaker
) -> None:
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        line = "roll " + "+".join(["1d6"] * 20)  # wider than the bar: it scrolls while typed
        await pilot.press("colon", *line)
        bar = screen(app).query_one("#command", Input)
        assert bar.scroll_x > 0
        await pilot.press("enter")
        await pilot.pause()
        assert "Roll: " in app.workspace.encounter.log[-1].text
        assert (bar.value, bar.cursor_position, bar.scroll_x) == ("", 0, 0)
        assert not bar.has_focus and screen(app).table.has_focus
        shown = "".join(s.text for s in bar.render_line(0))
        assert shown.strip().startswith(": command")  # the placeholder, from its start
        await pilot.press("colon", "up")
        assert bar.value == line and bar.cursor_position == len(line)
        await pilot.press("escape")
        await pilot.press("colon", *"roll 1d4", "enter")  # typing after a cleared line
        assert app.workspace.encounter.log[-1].text.startswith("Roll: 1d4")


async def test_add_dialog_and_remove_with_confirmation(tmp_path: Path, make_app: AppMaker) -> None:
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        count = len(app.workspace.encounter.combatants)
        await pilot.press("a", *"Stowaway", "enter")
        await settle(pilot)
        names = [c.name for c in app.workspace.encounter.combatants]
        assert len(names) == count + 1 and "Stowaway" in names
        await pilot.press("x")
        await pilot.press("n")  # no: nothing happens
        assert len(app.workspace.encounter.combatants) == count + 1
        await pilot.press("x", "y")
        assert len(app.workspace.encounter.combatants) == count


async def test_quit_saves_and_relaunch_restores(tmp_path: Path, make_app: AppMaker) -> None:
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("s", "n", "n", "n")
        await pilot.press("q")
    shown = app.workspace.encounter
    again = FacilityApp(save_dir=tmp_path)
    async with again.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert again.workspace.encounter == shown
        await pilot.press("u")  # the history came back too
        assert again.workspace.encounter.turn == shown.turn - 1


async def test_new_encounter_keeps_the_old_one(tmp_path: Path, make_app: AppMaker) -> None:
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        old = app.workspace.path
        await pilot.press("ctrl+n", *"Cargo bay", "enter")
        await settle(pilot)
        assert app.workspace.encounter.name == "Cargo bay"
        assert app.workspace.path != old and old.exists() and app.workspace.path.exists()
        assert not app.workspace.session.can_undo()


@pytest.mark.parametrize("size", [(80, 24), (64, 20)])
async def test_a_new_encounter_takes_the_open_fights_rules_and_enter_creates(
    tmp_path: Path, make_app: AppMaker, size: tuple[int, int]
) -> None:
    """From a Facility fight ctrl+n offers Facility (it offered 2297); enter on the rules
    creates, as the dialog's line says (it opened the list); the list, opened with the
    arrows, lies inside the dialog (it covered the dialog's border)."""
    from facility_tui.screens.dialogs import NewEncounterDialog
    from textual.widgets import Select
    from textual.widgets._select import SelectOverlay

    app = make_app(demo="facility")
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        assert app.workspace.encounter.system == "facility"
        await pilot.press("ctrl+n", *"Vault", "tab")
        await pilot.pause()
        dialog = app.screen
        assert isinstance(dialog, NewEncounterDialog)
        rules = dialog.query_one(Select)
        assert rules.has_focus and rules.value == "facility"
        await pilot.press("down")  # the list opens...
        await pilot.pause()
        box = dialog.query_one(".dialog").content_region
        listed = dialog.query_one(SelectOverlay)
        assert rules.expanded and listed.region.height >= 2
        assert box.contains_region(listed.region), (box, listed.region)  # ...inside it
        await pilot.press("escape")  # closes the list, not the dialog
        await pilot.pause()
        assert app.screen is dialog and not rules.expanded and rules.has_focus
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, MainScreen)
        assert app.workspace.encounter.name == "Vault"
        assert app.workspace.encounter.system == "facility"


async def test_help_opens_and_closes(tmp_path: Path, make_app: AppMaker) -> None:
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("question_mark")
        assert app.screen.__class__.__name__ == "HelpScreen"
        await pilot.press("escape")
        assert isinstance(app.screen, MainScreen)


@pytest.mark.parametrize("system", ["2297", "facility"])
async def test_help_indents_each_summary_line_under_its_command(
    tmp_path: Path, system: str
) -> None:
    """At 80 columns a command's summary wraps: each of its lines is indented under the
    command's usage, none at the usage's column, where it would read as a command."""
    usages = " ".join(usage for usage, _ in help_lines(system))
    app = FacilityApp(save_dir=tmp_path, seed=1, demo=system)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("question_mark")
        await pilot.pause()
        commands = app.screen.query_one("#commands", Static)
        width, height = commands.size
        lines = [s.text.rstrip() for s in commands.render_lines(Region(0, 0, width, height))]
    assert len(lines) > 2 * len(help_lines(system))  # (a usage and a summary each, some wrapped)
    unindented = [line for line in lines if line and not line.startswith("   ")]
    assert all(line.strip() in usages for line in unindented), [
        line for line in unindented if line.strip() not in usages
    ]


async def test_a_dialog_shows_the_toasts_once(tmp_path: Path, make_app: AppMaker) -> None:
    """A toast shown on the main screen is not shown again from under a dialog (the dialog
    shows it): the main screen's rack is hidden while covered, and back once the dialog goes."""
    app = make_app()
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await settle(pilot)
        await pilot.press("question_mark", "escape")  # (the greeting read: the first dialog)
        await pilot.pause()
        rack = app.screen.query_one("#textual-toastrack")
        app.notify("a message")
        await pilot.pause()
        assert rack.display
        await pilot.press("question_mark")
        await pilot.pause()
        assert app.screen.__class__.__name__ == "HelpScreen"
        assert not rack.display and app.screen.query_one("#textual-toastrack").display
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, MainScreen) and rack.display


async def test_unreadable_newest_save_is_left_alone(tmp_path: Path, make_app: AppMaker) -> None:
    bad = tmp_path / "broken.toml"
    bad.write_text("schema_version = 99\n")
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert app.workspace.path != bad
    assert bad.read_text() == "schema_version = 99\n"


async def test_status_line_says_when_saved_and_when_saving_fails(
    tmp_path: Path, make_app: AppMaker, monkeypatch
) -> None:  # type: ignore[no-untyped-def]
    import errno

    from facility_tui import store

    app = make_app(clock=lambda: "12:34:56")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert "saved 12:34:56" in status(app)
        on_disk = app.workspace.path.read_bytes()

        def full(*_: object, **__: object) -> None:
            raise OSError(errno.ENOSPC, "No space left on device")

        monkeypatch.setattr(store.saver, "write_atomic", full)
        await pilot.press("s")
        assert not app.workspace.flush(1.0)
        await pilot.pause()
        assert "NOT SAVED" in status(app)
        assert app.workspace.path.read_bytes() == on_disk  # nothing on disk was damaged
        assert app.workspace.encounter.round == 1  # and the fight goes on in memory
        monkeypatch.undo()
        await pilot.press("n")
        await settle(pilot)
        assert "saved 12:34:56" in status(app)
        assert load(app.workspace.path).encounter == app.workspace.encounter


def _written_at(path: Path, when: str) -> None:
    """Give a save the time it was last written (local time, ``YYYY-MM-DD HH:MM:SS``)."""
    import os
    import time

    stamp = time.mktime(time.strptime(when, "%Y-%m-%d %H:%M:%S"))
    os.utime(path, (stamp, stamp))


@pytest.mark.parametrize("how", ["by name", "absolute", "newest", "o", "read-only"])
async def test_status_line_says_when_the_opened_save_was_written(
    tmp_path: Path, monkeypatch, how: str
) -> None:  # type: ignore[no-untyped-def]
    """Whatever way a save is opened, the header says when it was last written (today: the
    time; another day: the date too), never "not saved yet"."""
    import time

    from facility_tui import store
    from facility_tui.commands.session import Session

    folder = tmp_path / "saves"
    folder.mkdir()
    path = folder / "deck.toml"
    store.save(Session(store.blank()), path)
    store.save(Session(store.blank()), folder / "older.toml")
    today = time.strftime("%Y-%m-%d")
    _written_at(folder / "older.toml", "2026-01-02 03:04:05")
    _written_at(path, f"{today} 09:08:07")
    monkeypatch.chdir(folder)
    lock = store.lock_save(path, "another window") if how == "read-only" else None
    opened = {"by name": Path("deck.toml"), "absolute": path, "read-only": path}.get(how)
    app = FacilityApp(save_dir=None if opened else tmp_path / "mine", open_file=opened)
    if how == "newest":
        app = FacilityApp(save_dir=folder)
    try:
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause()
            if how == "o":
                screen(app).open_path(folder / "older.toml")
                await pilot.pause()
                assert "saved 2026-01-02 03:04" in status(app)
                screen(app).open_path(path)
                await pilot.pause()
            assert app.workspace.path.resolve() == path
            assert "saved 09:08:07" in status(app)
    finally:
        if lock is not None:
            lock.release()


async def test_a_fight_opened_and_left_as_it_was_is_not_written_again(tmp_path: Path) -> None:
    """Opened, looked at and quit: the save, its folder and the header's time stay as they were
    (a 1,000-combatant fight was written again at every quit); changed, it is written."""
    from facility_tui import store
    from facility_tui.campaign.demo import demo_encounter
    from facility_tui.commands.session import Session

    path = tmp_path / "deck.toml"
    store.save(Session(demo_encounter("2297")), path)
    _written_at(path, "2026-01-02 03:04:05")

    def files() -> dict[str, tuple[int, bytes]]:  # (not the lock: the app's hold on the save)
        found = [p for p in tmp_path.rglob("*") if p.is_file() and p.name != "lock"]
        return {p.name: (p.stat().st_mtime_ns, p.read_bytes()) for p in found}

    before = files()
    app = FacilityApp(save_dir=tmp_path, open_file=path)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)  # (flushes: nothing to write)
        await pilot.press("j", "k", "i", "i")
        await settle(pilot)
        assert "saved 2026-01-02 03:04" in status(app)
    assert files() == before
    app = FacilityApp(save_dir=tmp_path, open_file=path)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("s")
        await settle(pilot)
    assert store.load(path).encounter.phase.value == "active"


async def test_damaged_save_opens_its_backup_when_the_gm_chooses_it(
    tmp_path: Path, make_app: AppMaker
) -> None:
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("s", "n", "n", "n", "n", "n", "n", "n", "n", "n")  # into round 2: backup
        await settle(pilot)
        await pilot.press("q")
    path = app.workspace.path
    path.write_bytes(path.read_bytes()[:-40])  # truncated, as by a crash of another tool
    again = FacilityApp(save_dir=tmp_path)
    async with again.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert not list(tmp_path.glob("*.corrupt-*"))  # asked first (tests/test_recovery_app.py)
        await pilot.press("b")
        await settle(pilot)
        assert again.workspace.path == path
        assert again.workspace.encounter.round >= 1
        assert list(tmp_path.glob("*.corrupt-*"))  # the damaged file is kept aside


async def test_facility_demo_opens_as_a_new_fight(tmp_path: Path, make_app: AppMaker) -> None:

    app = make_app(demo="facility")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert app.workspace.encounter.system == "facility"
        await pilot.press("s")
        assert app.workspace.encounter.current in ("pcs", "enemies")
        assert app.workspace.path.exists()


# -- the initiative list widget (screens/widgets/initiative.py) ---------------------------------


def _rows(n: int, *, hp: dict[int, str] | None = None) -> list[tuple[str, list[Text | str]]]:
    hp = hp or {}
    return [
        (f"c{i}", [str(i), Text(f"Fighter {i}", style="cyan"), hp.get(i, "10")]) for i in range(n)
    ]


class ListApp(App[None]):
    def __init__(self, rows: int = 50) -> None:
        super().__init__()
        self.n = rows
        self.events: list[tuple[str, str | None]] = []

    def compose(self) -> ComposeResult:
        yield InitiativeList(id="order")

    def on_mount(self) -> None:
        table = self.query_one(InitiativeList)
        table.set_rows(["#", "Name", "HP"], _rows(self.n))
        table.focus()

    @on(InitiativeList.Highlighted)
    def _highlighted(self, event: InitiativeList.Highlighted) -> None:
        self.events.append(("highlighted", event.row_key))

    @on(InitiativeList.Selected)
    def _selected(self, event: InitiativeList.Selected) -> None:
        self.events.append(("selected", event.row_key))


def _line(table: InitiativeList, y: int) -> str:
    return table.render_line(y).text


async def test_initiative_list_cursor_keys_and_enter() -> None:
    app = ListApp()
    async with app.run_test(size=(60, 12)) as pilot:
        table = app.query_one(InitiativeList)
        await pilot.pause()
        assert (table.cursor_row, table.cursor_key) == (0, "c0")
        assert "Name" in _line(table, 0) and "Fighter 0" in _line(table, 1)
        await pilot.press("down", "down", "up")
        assert table.cursor_key == "c1"
        await pilot.press("end")
        assert table.cursor_key == "c49"
        assert "Fighter 49" in _line(table, 11)  # scrolled so the cursor shows, header stays
        assert "Name" in _line(table, 0)
        await pilot.press("home", "pagedown")
        assert table.cursor_row == 10  # a page is the rows shown (11) less one
        await pilot.press("enter")
        await pilot.pause()
        assert app.events[-1] == ("selected", "c10")
        assert ("highlighted", "c1") in app.events
        table.move_cursor(-100)
        assert table.cursor_row == 0
        assert table.move_to("c7") and table.cursor_key == "c7"
        assert not table.move_to("nobody")


async def test_initiative_list_click_selects() -> None:
    app = ListApp()
    async with app.run_test(size=(60, 12)) as pilot:
        await pilot.pause()
        table = app.query_one(InitiativeList)
        await pilot.click(InitiativeList, offset=(5, 3))  # line 3 is row 2 (the header is line 0)
        await pilot.pause()
        assert table.cursor_key == "c2"
        assert app.events[-1] == ("selected", "c2")


async def test_initiative_list_set_rows_rerenders_only_changed_rows() -> None:
    app = ListApp(200)
    async with app.run_test(size=(60, 24)) as pilot:
        table = app.query_one(InitiativeList)
        await pilot.pause()
        before = table.rendered_rows
        assert before >= 23  # every visible row once
        table.set_rows(["#", "Name", "HP"], _rows(200))  # the same rows, fresh objects
        await pilot.pause()
        assert table.rendered_rows == before  # unchanged rows keep their cached strips
        table.set_rows(["#", "Name", "HP"], _rows(200, hp={5: "7"}))
        await pilot.pause()
        assert table.rendered_rows == before + 1  # only the changed row
        assert "7" in _line(table, 6).split("Fighter 5")[1]
        # A change of style alone (same text) is a change too.
        rows = _rows(200, hp={5: "7"})
        rows[3][1][1] = Text("Fighter 3", style="red")
        table.set_rows(["#", "Name", "HP"], rows)
        await pilot.pause()
        assert table.rendered_rows == before + 2
        # Moving the cursor repaints the two rows it leaves and lands on.
        await pilot.press("down")
        await pilot.pause()
        assert table.rendered_rows == before + 4
        # A wider cell changes the column widths: every visible row is drawn again.
        table.set_rows(["#", "Name", "HP"], _rows(200, hp={150: "1000"}))
        await pilot.pause()
        assert table.rendered_rows >= before + 4 + 23
        # The wide cell going back narrows the column again: the same rows, the same look.
        drawn = table.rendered_rows
        table.set_rows(["#", "Name", "HP"], _rows(200))
        await pilot.pause()
        assert table.rendered_rows >= drawn + 23
        assert _line(table, 0).rstrip().endswith("HP")
        assert table._layout_now.widths == (
            3,
            11,
            2,
        )  # as wide as the widest cell now: "Fighter 199"
        # Rows keep their cursor by key when rows are removed above it.
        table.set_rows(["#", "Name", "HP"], _rows(200)[1:])
        assert table.cursor_key == "c1" and table.row_count == 199


async def test_initiative_list_set_cells_repaints_that_row_or_widens_its_column() -> None:
    app = ListApp(200)
    async with app.run_test(size=(60, 24)) as pilot:
        table = app.query_one(InitiativeList)
        await pilot.pause()
        before = table.rendered_rows
        table.set_cells(4, ["4", Text("Fighter 4", style="cyan"), "10"])  # the same look
        await pilot.pause()
        assert table.rendered_rows == before
        table.set_cells(4, ["4", Text("Fighter 4", style="cyan"), "9"])
        await pilot.pause()
        assert table.rendered_rows == before + 1 and _line(table, 5).rstrip().endswith("9")
        table.set_cells(4, ["4", Text("Fighter 4", style="cyan"), "12345"])  # HP widens
        await pilot.pause()
        assert table.rendered_rows >= before + 1 + 23  # every visible row, in the new widths
        assert _line(table, 0).rstrip().endswith("HP") and "12345" in _line(table, 5)
        assert table.rows[4][0] == "c4" and table.cursor_key == "c0"


class CountingList(InitiativeList):
    """Counts repaints of the whole list (a refresh that names no region)."""

    whole = 0

    def refresh(self, *regions: Region, **kwargs: bool) -> Self:
        if not regions and kwargs.get("repaint", True):
            self.whole += 1
        return super().refresh(*regions, **kwargs)


class ListAndLineApp(ListApp):
    def compose(self) -> ComposeResult:
        yield CountingList(id="order")
        yield Input(id="line")


async def test_initiative_list_focus_repaints_the_cursor_row_only() -> None:
    app = ListAndLineApp(200)
    async with app.run_test(size=(60, 24)) as pilot:
        table = app.query_one(InitiativeList)
        await pilot.pause()
        focused_look = list(table.render_line(1))
        before = table.rendered_rows
        assert isinstance(table, CountingList)
        table.whole = 0
        app.query_one(Input).focus()
        await pilot.pause()
        assert not table.has_focus
        assert table.rendered_rows == before + 1  # the cursor row, in its unfocused look
        assert table.whole == 0  # and no repaint of every line
        assert list(table.render_line(1)) != focused_look
        assert table.render_line(2).text == _line(table, 2)
        table.focus()
        await pilot.pause()
        assert table.has_focus and table.rendered_rows == before + 2
        assert list(table.render_line(1)) == focused_look


async def test_key_bar_lists_the_keys_that_work_now_and_takes_clicks(
    tmp_path: Path, make_app: AppMaker
) -> None:
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        bar = screen(app).query_one(KeyBar)
        shown = bar.text.plain
        assert "nNext" in shown and "uUndo" in shown and "dDamage" in shown
        await pilot.press("colon")
        await pilot.pause()
        assert bar.render_line(0).text.strip().startswith("⏎Run  esc Close")
        assert "Next" not in bar.text.plain  # letters type while the line has focus
        await pilot.press("escape")
        await pilot.pause()
        assert bar.render_line(0).text.strip() == shown
        await pilot.click(KeyBar, offset=(1 + shown.index("nNext"), 0))  # n starts the fight
        await pilot.pause()
        assert app.workspace.encounter.phase is Phase.ACTIVE


def _table_rows(app: FacilityApp) -> list[tuple[str, list[str]]]:
    return [(key, [repr(c) for c in cells]) for key, cells in screen(app).table.rows]


STEPS: dict[str, list[tuple[str, ...]]] = {
    "2297": [
        ("s",),
        ("d", "5", "enter"),  # a hit on the acting combatant
        ("n",),  # the turn marker moves
        ("j", "d", "1", "2", "enter"),  # a hit elsewhere: a new injury column value
        ("u",),
        ("ctrl+y",),
        ("colon", *"add Stowaway init=1", "enter"),  # a new row
        ("x", "y"),  # and one removed
        ("u", "u", "u"),
    ],
    "facility": [
        ("s",),
        ("n",),  # the other side's turn: its rows get the marker, no combatant changes
        ("n",),
        ("j", "w", "2", "space", "p", "h", "y", "enter"),  # two wounds
        ("u",),
        ("ctrl+y",),
        ("x", "y"),
        ("u", "u"),
    ],
}


@pytest.mark.parametrize("system", ["2297", "facility"])
async def test_main_screen_list_updates_changed_rows_as_a_full_render_would(
    tmp_path: Path, make_app: AppMaker, system: str
) -> None:
    app = make_app(demo=system)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        main = screen(app)
        for keys in STEPS[system]:
            log = len(app.workspace.encounter.log)
            await pilot.press(*keys)
            await pilot.pause()
            assert len(app.workspace.encounter.log) != log, keys  # the step did something
            shown = _table_rows(app)
            assert [key for key, _ in shown] == [c.id for c in listed(app.workspace.encounter)]
            main.table.listing, main.table.row_cache = None, {}  # the oracle: all rows anew
            main.table.show(app.workspace.encounter)
            assert shown == _table_rows(app), keys


async def test_main_screen_hit_repaints_the_hit_row_only(
    tmp_path: Path, make_app: AppMaker
) -> None:
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        table = screen(app).table
        await pilot.press("s", "d", "3")
        await pilot.pause()
        drawn = table.rendered_rows
        await pilot.press("enter")
        await pilot.pause()
        assert app.workspace.encounter.log[-1].text != ""
        assert table.rendered_rows - drawn <= 2  # the row's new cells; its focused cursor look


async def test_main_screen_list_marks_the_turn_and_follows_it(
    tmp_path: Path, make_app: AppMaker
) -> None:
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        table = screen(app).query_one(InitiativeList)
        assert table.has_focus and table.row_count == len(app.workspace.encounter.combatants)
        await pilot.press("s")
        enc = app.workspace.encounter
        assert table.cursor_key == enc.current
        assert _line(table, 1 + table.cursor_row).startswith(SELECTED + "▶")
        await pilot.press("n")
        enc = app.workspace.encounter
        assert table.cursor_key == enc.current  # the selection follows the turn
        assert _line(table, 1 + table.cursor_row).startswith(SELECTED + "▶")
        await pilot.press("j", "j")
        chosen = table.cursor_key
        assert chosen != enc.current
        name = enc.get(chosen).name
        assert name in str(screen(app).query_one("#detail").render())  # detail follows
        await pilot.press("colon", *"roll 2d6", "enter")  # the turn did not move: stays
        assert table.cursor_key == chosen
        row = [c.id for c in listed(app.workspace.encounter)].index(chosen)
        assert table.cursor_row == row
        await pilot.press("k")
        assert table.cursor_row == row - 1


async def test_detail_pane_leaves_no_lines_of_the_last_combatant(
    tmp_path: Path, make_app: AppMaker
) -> None:
    """A shorter detail (a drone after a PC) blanks the lines the longer one used."""

    app = make_app(demo="facility")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("home", "j")
        await pilot.pause()
        assert "coveralls" in app.export_screenshot()  # what Dale (Maintenance) wears
        await pilot.press("end")
        await pilot.pause()
        assert "coveralls" not in app.export_screenshot()


async def test_collection_waits_for_quiet_moments_and_comes_back_on_exit(
    tmp_path: Path, make_app: AppMaker, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Off from the main screen's mount, the fight it reads included (its thousands of
    objects are frozen once read, not walked as they are made), on again at exit."""
    import gc

    from facility_tui.workspace import Workspace

    reading: list[bool] = []
    open_initial = Workspace.open_initial

    def watched(self: Workspace, *args: Any) -> Any:
        reading.append(gc.isenabled())
        return open_initial(self, *args)

    monkeypatch.setattr(Workspace, "open_initial", watched)
    assert gc.isenabled()
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert not gc.isenabled()  # no collection in the middle of a key press
        collected = gc.get_stats()[1]["collections"]
        await pilot.press("s")
        await settle(pilot)  # drawn and saved: the screen collects the young generations
        await pilot.pause()
        assert gc.get_stats()[1]["collections"] > collected
    assert gc.isenabled() and reading == [False]


def test_text_lines_keep_the_text_style() -> None:
    """A line that fits is made from its segments; its own style (not a span) stays on it."""
    from facility_tui.screens.render.lines import text_lines
    from rich.console import Console

    console = Console()
    for text in (Text("No combatants yet", style="dim"), Text("wrapped " * 10, style="dim")):
        strips = text_lines(console, text, 40)
        assert strips and all(
            seg.style is not None and seg.style.dim for strip in strips for seg in strip if seg.text
        )


async def test_a_relaunch_shows_the_newest_log_line(tmp_path: Path, make_app: AppMaker) -> None:
    first = make_app()
    async with first.run_test(size=(80, 24)) as pilot:
        await pilot.press("s", "n", "n")
        await settle(pilot)
    again = make_app()
    async with again.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        log = screen(again).query_one("#log", LogPane)
        assert log.max_scroll_y > 0 and log.scroll_y == log.max_scroll_y
        newest = again.workspace.encounter.log[-1].text
        assert newest in "".join(s.text for s in log.lines[-3:])


async def test_the_key_bar_follows_a_new_fight_of_other_rules(
    tmp_path: Path, make_app: AppMaker
) -> None:
    app = make_app()  # the 2297 demo: 1 2 3 spend actions
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        bar = screen(app).query_one(KeyBar)
        assert "1Maj" in bar.text.plain and "wWound" not in bar.text.plain
        await pilot.press("ctrl+n", *"Lab", "tab", "down", "down", "enter")  # pick Facility
        await pilot.pause()
        await pilot.press("enter")  # (the pick sends focus back to the name) create
        await pilot.pause()
        assert app.workspace.encounter.system == "facility"
        await settle(pilot)
        assert "wWound" in bar.text.plain and "1Maj" not in bar.text.plain


async def test_a_listing_of_the_keys_lost_with_a_closed_dialog_does_not_stick_the_bar(
    tmp_path: Path, make_app: AppMaker
) -> None:
    """A listing of the keys waits for the top screen's next frame, once at a time: one lost
    with a dialog closed before that frame (escape twice in a burst on the tuning over the
    forecast, in a terminal) left the bar on the dialog's keys ("esc Close (stops the plays)")
    for the rest of the session. A change of screen lists them anew."""
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        bar = screen(app).query_one(KeyBar)
        keys = bar.text.plain
        await pilot.press("question_mark")  # a dialog: the bar lists its keys
        await settle(pilot)
        assert bar.text.plain != keys
        bar._stale = True  # (a listing queued, and lost with a screen closed before its frame)
        await pilot.press("escape")
        await settle(pilot)
        assert bar.text.plain == keys


@pytest.mark.parametrize("width", [80, 64, 50, 40])
async def test_the_key_bar_shows_keys_whole_or_not_at_all(
    tmp_path: Path, make_app: AppMaker, width: int
) -> None:
    """Issue 21: with a choice open (m Choose) the 2297 bar ran past 80 columns and cut t Attack
    to 't…'. The gaps narrow first, then the last keys are left out; none is cut."""
    app = make_app()
    async with app.run_test(size=(width, 24)) as pilot:
        await settle(pilot)
        await pilot.press("s", "colon", *"hit sgt-blanc 18 through", "enter")
        await settle(pilot)
        await pilot.press("escape")  # the Edge menu left open: m is listed
        await settle(pilot)
        bar = screen(app).query_one(KeyBar)
        shown = bar.render_line(0).text.strip()
        assert "…" not in shown and len(shown) <= width - 2
        entries = [e for e in shown.split(" ") if e]
        assert entries[0] == "nNext" and ("mChoose" in entries or width < 64), " ".join(entries)
        if width == 80:
            assert entries[-1] == "tAttack"
        words = {"nNext", "uUndo", "aAdd", ":Cmd", "?Help", "qQuit", "mChoose", "dDamage"}
        words |= {"1Maj", "2Mov", "3Min", "tAttack"}
        assert set(entries) <= words  # every entry whole


# -- every key on the key bar acts --------------------------------------------------------------

DIALOG_OPENERS = {
    "x": "ConfirmDialog",  # remove the selected
    "a": "AddDialog",
    "question_mark": "HelpScreen",
    "ctrl+n": "NewEncounterDialog",
}


def listed_keys(app: FacilityApp) -> list[str]:
    """The keys the main screen's key bar lists now (what a click on each would press)."""
    main = next(s for s in app.screen_stack if isinstance(s, MainScreen))
    return [key for _, _, key in main.query_one(KeyBar)._spans]


@pytest.mark.parametrize("opener", DIALOG_OPENERS)
async def test_over_a_dialog_the_bar_lists_its_keys_and_each_acts(
    tmp_path: Path, make_app: AppMaker, opener: str
) -> None:
    """A dialog takes the keys: the bar lists the dialog's own (never the list's, which would do
    nothing), and each of them closes it or answers it."""
    from tests.app.test_key_order import settled

    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settled(pilot)
        main_keys = listed_keys(app)
        await pilot.press(opener)
        await settled(pilot)
        assert type(app.screen).__name__ == DIALOG_OPENERS[opener]
        keys = listed_keys(app)
        assert keys and keys != main_keys
    for key in keys:
        app = make_app()
        async with app.run_test(size=(80, 24)) as pilot:
            await settled(pilot)
            await pilot.press(opener)
            await settled(pilot)
            dialog = app.screen
            await pilot.press(key)
            await settled(pilot)
            assert app.screen is not dialog, f"{key} did nothing on {type(dialog).__name__}"
            assert listed_keys(app) == main_keys  # the list's keys again


async def test_facility_asks_for_no_initiative_anywhere(tmp_path: Path, make_app: AppMaker) -> None:
    """F7: the Add dialog of a Facility fight has no Initiative field, and the command line's
    example is one Facility takes (it was `add Thug init=2d6`, which Facility refuses)."""
    from facility_tui.screens.widgets.command_bar import CommandBar

    app = make_app(demo="facility")
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        example = screen(app).query_one(CommandBar).placeholder
        assert "init=" not in example
        line = example.split("e.g. ")[1].split(";")[0]
        assert app.workspace.encounter.system == "facility"
        before = app.workspace.encounter
        assert screen(app).run_line(line)  # the example runs
        assert app.workspace.encounter is not before
        await pilot.press("a")
        await pilot.pause()
        assert not app.screen.query_one("#init").display


async def test_the_next_combatants_panes_open_at_their_top(
    tmp_path: Path, make_app: AppMaker
) -> None:
    """J pages the panes down; when the turn passes, the next combatant's panes open at their
    Actions, not at the page the last one's were left at."""
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("s", "J")
        await settle(pilot)
        box = screen(app).query_one("#detail-box")
        assert box.scroll_y > 0
        await pilot.press("n")
        await settle(pilot)
        assert box.scroll_y == 0


async def test_the_opening_message_does_not_come_back_over_a_dialog(
    tmp_path: Path, make_app: AppMaker
) -> None:
    """The demo's "Press s to start..." toast was shown again under each dialog opened while it
    lasted: a dialog takes it down (it has been read)."""
    app = make_app()
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await settle(pilot)
        assert any("Press s" in n.message for n in app._notifications)
        await pilot.press("a")
        await settle(pilot)
        assert not any("Press s" in n.message for n in app._notifications)
        assert not app.screen.query("Toast")
