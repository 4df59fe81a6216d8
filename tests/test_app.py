"""The app driven by keys through Textual's Pilot, on a temporary save folder."""

from __future__ import annotations

from pathlib import Path

from facility_tui.screens.main import MainScreen

from facility_tui.app import FacilityApp
from facility_tui.model import Phase
from facility_tui.store import load


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


async def test_first_launch_opens_the_saved_demo(tmp_path: Path) -> None:
    app = FacilityApp(save_dir=tmp_path, seed=1)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        enc = app.workspace.encounter
        assert enc.name == "Boarding the Jean Bart" and len(enc.combatants) >= 4
        assert app.workspace.path.exists()
        assert str(app.workspace.path.name) in status(app)


async def test_keys_run_a_fight_with_undo_and_redo(tmp_path: Path) -> None:
    app = FacilityApp(save_dir=tmp_path, seed=1)
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


async def test_command_bar_refuses_bad_input_and_keeps_the_line(tmp_path: Path) -> None:
    app = FacilityApp(save_dir=tmp_path, seed=1)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        before = app.workspace.encounter
        await pilot.press("colon", *"roll 2d", "enter")
        bar = screen(app).query_one("#command")
        assert app.workspace.encounter == before
        assert bar.display and bar.value == "roll 2d"  # type: ignore[attr-defined]
        await pilot.press("backspace", *"d6", "enter")
        assert not bar.display
        assert "Roll: 2d6" in app.workspace.encounter.log[-1].text


async def test_add_dialog_and_remove_with_confirmation(tmp_path: Path) -> None:
    app = FacilityApp(save_dir=tmp_path, seed=1)
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


async def test_quit_saves_and_relaunch_restores(tmp_path: Path) -> None:
    app = FacilityApp(save_dir=tmp_path, seed=1)
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


async def test_new_encounter_keeps_the_old_one(tmp_path: Path) -> None:
    app = FacilityApp(save_dir=tmp_path, seed=1)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        old = app.workspace.path
        await pilot.press("ctrl+n", *"Cargo bay", "enter")
        await settle(pilot)
        assert app.workspace.encounter.name == "Cargo bay"
        assert app.workspace.path != old and old.exists() and app.workspace.path.exists()
        assert not app.workspace.session.can_undo()


async def test_help_opens_and_closes(tmp_path: Path) -> None:
    app = FacilityApp(save_dir=tmp_path, seed=1)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("question_mark")
        assert app.screen.__class__.__name__ == "HelpScreen"
        await pilot.press("escape")
        assert isinstance(app.screen, MainScreen)


async def test_unreadable_newest_save_is_left_alone(tmp_path: Path) -> None:
    bad = tmp_path / "broken.toml"
    bad.write_text("schema_version = 99\n")
    app = FacilityApp(save_dir=tmp_path, seed=1)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert app.workspace.path != bad
    assert bad.read_text() == "schema_version = 99\n"


async def test_status_line_says_when_saved_and_when_saving_fails(
    tmp_path: Path, monkeypatch
) -> None:  # type: ignore[no-untyped-def]
    import errno

    from facility_tui import store

    app = FacilityApp(save_dir=tmp_path, seed=1, clock=lambda: "12:34:56")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert "saved 12:34:56" in status(app)
        on_disk = app.workspace.path.read_bytes()

        def full(*_: object, **__: object) -> None:
            raise OSError(errno.ENOSPC, "No space left on device")

        monkeypatch.setattr(store, "write_atomic", full)
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


async def test_damaged_save_opens_its_backup_and_says_so(tmp_path: Path) -> None:
    app = FacilityApp(save_dir=tmp_path, seed=1)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("s", "n", "n", "n", "n", "n", "n", "n", "n", "n")  # into round 2: backup
        await settle(pilot)
        await pilot.press("q")
    path = app.workspace.path
    path.write_bytes(path.read_bytes()[:-40])  # truncated, as by a crash of another tool
    again = FacilityApp(save_dir=tmp_path)
    async with again.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert again.workspace.path == path
        assert again.workspace.encounter.round >= 1
        assert list(tmp_path.glob("*.corrupt-*"))  # the damaged file is kept aside


async def test_facility_demo_opens_as_a_new_fight(tmp_path: Path) -> None:
    from facility_tui.model import System

    app = FacilityApp(save_dir=tmp_path, seed=1, demo=System.FACILITY)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert app.workspace.encounter.system is System.FACILITY
        await pilot.press("s")
        assert app.workspace.encounter.current in ("pcs", "enemies")
        assert app.workspace.path.exists()
