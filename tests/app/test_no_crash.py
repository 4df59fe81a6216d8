"""Nothing a GM types can crash the table: every command, bare or with junk, through the real keys
and the real toasts (``notifications=True``: without it Textual never draws a toast, which is how
a markup crash in one went unseen)."""

from __future__ import annotations

from pathlib import Path

import pytest
from facility_tui.screens.main import MainScreen
from textual.widgets import Label
from textual.widgets._toast import Toast

from facility_tui.app import FacilityApp
from facility_tui.commands.dispatch import help_lines
from facility_tui.systems import ids, info
from tests.apps import AppMaker

JUNK = ["[/]", "[bold]x[/bold]", "zz[/] 5", "| : [cover=5|10]", "'[", "a=b", "#99", "-1", "0d6"]


def verbs(system: str) -> list[str]:
    return sorted({usage.split()[0] for usage, _ in help_lines(system)})


def toasts(app: FacilityApp) -> list[str]:
    return [str(t.render()) for t in app.screen.query(Toast)]


async def type_line(pilot, line: str) -> None:  # type: ignore[no-untyped-def]
    """Escape (a refused line stays in the bar to be fixed), then the line on a fresh bar."""
    await pilot.press("escape", "colon", *line, "enter")
    await pilot.pause()


@pytest.mark.parametrize("system", ids())
async def test_every_command_bare_or_with_junk_keeps_the_app_running(
    tmp_path: Path, make_app: AppMaker, system: str
) -> None:
    app = make_app(demo=system)
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await pilot.pause()
        await pilot.press("s")  # the demo in combat: most commands need it
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, MainScreen)
        # The quick keys through the real keys: the key, then enter on the half-typed line.
        for key in [k.key for k in info(system).quick_keys if k.template.endswith(" ")]:
            before = app.workspace.encounter
            await pilot.press(key, "enter", "escape")
            await pilot.pause()
            assert app.is_running and app.workspace.encounter == before, key
        # Every command, bare and with junk, as enter on the command line runs it; the toasts
        # of one command's lines are drawn together at the pause.
        for verb in verbs(system):
            if verb in ("new", "undo", "redo"):
                continue
            for tail in ("", *JUNK):
                before = app.workspace.encounter
                line = f"{verb} {tail}".strip()
                screen.runner.typed(line)
                if app.workspace.encounter is not before:
                    screen.run_line("undo")  # a line that worked: back to where it was
                assert app.workspace.encounter == before, line
            await pilot.pause()
            assert app.is_running and app.screen is screen, verb


async def test_a_refusal_shows_its_usage_as_typed(tmp_path: Path, make_app: AppMaker) -> None:
    app = make_app()  # the 2297 demo
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await pilot.press("s", "t")  # the bar holds "attack sgt-blanc "
        await pilot.pause()
        await pilot.press("enter")
        await pilot.pause()
        shown = " ".join(toasts(app))
        assert "[cover=5|10]" in shown  # the usage, brackets and all
        await type_line(pilot, 'hit "[bold]nobody" 5')
        assert any("'[bold]nobody'" in t for t in toasts(app))


async def test_names_with_markup_and_colons_show_as_typed(
    tmp_path: Path, make_app: AppMaker
) -> None:
    app = make_app()
    async with app.run_test(size=(120, 30), notifications=True) as pilot:
        await pilot.pause()
        await type_line(pilot, 'add "[/]:fire:[b]" side=pc armor="[red]Vest 5/10"')
        await type_line(pilot, 'note "[/]:fire:[b]" [/i] odd')
        screen = app.screen
        assert isinstance(screen, MainScreen)
        screen.table.move_to("fire-b")
        await pilot.pause()
        detail = str(screen.query_one("#detail").render())
        assert "[/]:fire:[b]" in detail and "[red]Vest 5/10" in detail and "[/i] odd" in detail
        await pilot.press("x")  # the remove prompt names it
        await pilot.pause()
        assert any("[/]:fire:[b]" in str(label.render()) for label in app.screen.query(Label))
        await pilot.press("y")
        await pilot.pause()
        assert not app.workspace.encounter.has("fire-b")


async def test_control_characters_are_refused_with_a_line(
    tmp_path: Path, make_app: AppMaker
) -> None:
    app = make_app()
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, MainScreen)
        before = app.workspace.encounter
        shown: list[str] = []
        for evil in ("\x1b[2J", "\x1b]0;pwned\x07", "a\x00b", "\x9b31m"):
            assert not screen.run_line(f"add {evil!s}")
            await pilot.pause(0.1)  # (each refusal replaces the one before)
            shown += [t for t in toasts(app) if "control character" in t]
        assert app.workspace.encounter == before
        assert len(shown) == 4
        assert not any("\x1b" in t or "\x07" in t or "\x00" in t for t in shown)


async def test_a_corrected_line_clears_its_refusal(tmp_path: Path, make_app: AppMaker) -> None:
    app = make_app()
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await pilot.pause()
        await type_line(pilot, "roll 0d6")
        assert any("rolls no dice" in t for t in toasts(app))
        await pilot.press("backspace", "backspace", "backspace", *"1d6", "enter")  # (kept to fix)
        await pilot.pause()
        assert not any("rolls no dice" in t for t in toasts(app))


async def test_new_encounter_dialog_keeps_a_refused_name(
    tmp_path: Path, make_app: AppMaker
) -> None:
    app = make_app()
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await pilot.pause()
        shown = app.workspace.encounter
        await pilot.press("ctrl+n", *"a=b", "enter")  # a name, not an option
        await pilot.pause()
        assert isinstance(app.screen, MainScreen)
        assert app.workspace.encounter.name == "a=b"
        await pilot.press("ctrl+n", *("N" * 70), "enter")
        await pilot.pause()
        assert not isinstance(app.screen, MainScreen)  # still asking
        assert any("at most 60" in t for t in toasts(app))
        await pilot.press("escape")
        await pilot.pause()
        assert app.workspace.encounter.name == "a=b" and shown.name != "a=b"


async def test_a_dialog_answer_after_quit_changes_nothing(
    tmp_path: Path, make_app: AppMaker
) -> None:
    app = make_app()
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await pilot.pause()
        await pilot.press("o", "enter", "enter", "q")  # one burst
        await pilot.pause()
    assert app.return_code == 0


async def test_a_bug_in_a_command_keeps_the_fight(
    tmp_path: Path, make_app: AppMaker, monkeypatch
) -> None:  # type: ignore[no-untyped-def]
    app = make_app()
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await pilot.pause()
        before = app.workspace.encounter

        def broken(line: str, **_: object) -> None:
            raise ZeroDivisionError("a bug")

        monkeypatch.setattr(app.workspace.session, "apply", broken)
        await type_line(pilot, "roll 1d6")
        assert app.is_running and app.workspace.encounter is before
        assert any("Bug: 'roll 1d6' failed (ZeroDivisionError)" in t for t in toasts(app))
        assert "ZeroDivisionError: a bug" in (tmp_path / "facility-tui-errors.log").read_text()


async def test_a_second_window_shows_a_held_save_read_only_and_follows_it(
    tmp_path: Path, make_app: AppMaker
) -> None:
    from facility_tui.workspace import Workspace

    writer = Workspace(tmp_path, seed=2)  # the first window (headless here): it holds the save
    writer.open_initial()
    writer.save()
    app = make_app()
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, MainScreen)
        assert app.workspace.read_only and app.workspace.path == writer.path
        assert "READ-ONLY" in str(screen.query_one("#status").render())
        assert any(t.startswith("Read-only:") for t in toasts(app))
        before = app.workspace.encounter
        await pilot.press("s", "n", "a")  # keys that would change the fight
        await pilot.pause()
        assert app.workspace.encounter == before and isinstance(app.screen, MainScreen)
        writer.execute("start")
        writer.save()
        await pilot.pause(0.8)  # the view looks for autosaves twice a second
        assert app.workspace.encounter == writer.encounter
        writer.close()
        await pilot.press("o", "enter")  # the writer has gone: o takes the save over
        await pilot.pause()
        assert not app.workspace.read_only
        assert "READ-ONLY" not in str(screen.query_one("#status").render())
        await pilot.press("n")
        await pilot.pause()
        assert app.workspace.encounter.turn == 1


async def test_n_asks_before_a_turn_ends_with_a_choice_open(
    tmp_path: Path, make_app: AppMaker
) -> None:
    """F5: a failed save waits for ablate or suffer; n asks before the turn ends with it open."""
    app = make_app(demo="facility")
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, MainScreen)
        assert screen.run_line("start first=pc")
        assert screen.run_line("harm anne 1 contaminants d20=1")  # the Lab Coat could ablate
        turn = app.workspace.encounter.turn
        await pilot.press("escape")  # its menu: left open
        await pilot.press("n")
        await pilot.pause()
        question = " ".join(str(label.render()) for label in app.screen.query(Label))
        assert "Still open: Anne O'Malley: 1 contaminants wound, ablate or suffer" in question
        await pilot.press("escape")  # back: the turn stays
        await pilot.pause()
        assert app.workspace.encounter.turn == turn and app.screen is screen
        await pilot.press("n", "n")  # in one burst: asked, and n again ends the turn
        await pilot.pause()
        assert app.workspace.encounter.turn != turn


async def test_refusals_in_one_burst_leave_only_the_newest_toast(
    tmp_path: Path, make_app: AppMaker
) -> None:
    """Two refused lines handled in one go (keys typed faster than a frame): the newest refusal
    is the one toast shown, not both (a toast is a message to the app; the clearing must come
    between them, and take down a toast still being mounted)."""
    app = make_app()
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, MainScreen)
        assert screen.run_line("start")
        await pilot.pause()
        assert not screen.run_line("hit sgt-blanc")
        assert not screen.run_line("hit sgt-blanc dd")
        await pilot.pause(0.2)
        shown = toasts(app)
        assert len(shown) == 1 and "got 'dd'" in shown[0]
        assert screen.run_line("major")  # a line that works takes the refusal down
        await pilot.pause(0.2)
        assert toasts(app) == []
