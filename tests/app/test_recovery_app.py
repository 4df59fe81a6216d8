"""Issue 22 in the app: a refused save is a question (edit it, its newest good version, quit);
an edit made while the save is open is asked about, never written over."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import pytest
from facility_tui.screens.dialogs import ChoiceDialog
from facility_tui.screens.main import MainScreen
from textual.widgets import Label
from textual.widgets._toast import Toast

from facility_tui import store
from facility_tui.app import FacilityApp
from tests.apps import AppMaker
from tests.unit.test_recovery import accepted_edit_then_bad_one, blanc_hlt


def question(app: FacilityApp) -> str:
    assert isinstance(app.screen, ChoiceDialog), app.screen
    return str(app.screen.query_one(".question", Label).render())


def offered(app: FacilityApp) -> set[str]:
    assert isinstance(app.screen, ChoiceDialog), app.screen
    return set(app.screen.choices)


def toasts(app: FacilityApp) -> str:
    return "\n".join(str(t.render()) for t in app.screen.query(Toast))


def tree(folder: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(folder)): p.read_bytes()
        for p in sorted(folder.rglob("*"))
        if p.is_file() and p.name != "lock"
    }


async def until(pilot, test, seconds: float = 5.0) -> None:  # type: ignore[no-untyped-def]
    for _ in range(int(seconds / 0.02)):
        await pilot.pause()
        if test():
            return
        await asyncio.sleep(0.02)
    raise AssertionError("timed out")


def editor(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, old: str, new: str) -> None:
    """$VISUAL: a script that makes the GM's edit (sed, in place)."""
    script = tmp_path / "gm-editor.sh"
    script.write_text(f"#!/bin/sh\nsed -i 's/{old}/{new}/' \"$1\"\n")
    script.chmod(0o755)
    monkeypatch.setenv("VISUAL", str(script))


async def test_a_refused_edit_is_asked_and_b_opens_the_version_before_it(tmp_path: Path) -> None:
    path = accepted_edit_then_bad_one(tmp_path)
    bad = path.read_bytes()
    app = FacilityApp(save_dir=tmp_path)
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await pilot.pause()
        asked = question(app)
        assert "deck.toml:" in asked and "combatants[1].sheet.hlt must be a whole number" in asked
        assert "last wrote deck.toml" in asked and "lacks only the refused edit" in asked
        assert offered(app) == {"e", "b", "q"}
        assert path.read_bytes() == bad and not list(tmp_path.glob("*.corrupt-*"))
        await pilot.press("b")
        await until(pilot, lambda: isinstance(app.screen, MainScreen))
        assert blanc_hlt(app.workspace.session) == 36  # never Health 32 again
        aside = list(tmp_path.glob("deck.toml.corrupt-*"))
        assert len(aside) == 1 and aside[0].read_bytes() == bad
        await until(pilot, lambda: aside[0].name in toasts(app))
        assert "last wrote deck.toml" in toasts(app)
        assert app.workspace.flush()
    store.forget(path)
    assert blanc_hlt(store.load(path)) == 36


async def test_q_quits_and_leaves_every_file_as_it_was(tmp_path: Path) -> None:
    path = accepted_edit_then_bad_one(tmp_path)
    before = tree(tmp_path)
    app = FacilityApp(save_dir=tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert path.name in question(app)
        await pilot.press("q")
        await pilot.pause()
    assert tree(tmp_path) == before  # nothing set aside, no untitled fight written


async def test_e_opens_the_editor_and_checks_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = accepted_edit_then_bad_one(tmp_path)
    editor(tmp_path, monkeypatch, 'hlt = "ten"', "hlt = 10x")  # still wrong: asked again
    app = FacilityApp(save_dir=tmp_path)
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await pilot.pause()
        assert "'ten'" in question(app)
        await pilot.press("e")
        asked = lambda: isinstance(app.screen, ChoiceDialog) and "10x" in path.read_text()  # noqa: E731
        await until(pilot, asked)
        assert "deck.toml:" in question(app) and "'ten'" not in question(app)
        editor(tmp_path, monkeypatch, "hlt = 10x", "hlt = 37")  # mended
        await pilot.press("e")
        await until(pilot, lambda: isinstance(app.screen, MainScreen))
        assert blanc_hlt(app.workspace.session) == 37
        await until(pilot, lambda: "edited outside facility-tui" in toasts(app))
        assert "sheet.hlt 36 → 37" in toasts(app)
        assert not list(tmp_path.glob("*.corrupt-*"))
        await pilot.press("u")  # the edit is one step: undo goes back to the accepted one
        await pilot.pause()
        assert blanc_hlt(app.workspace.session) == 36


async def opened_demo(app: FacilityApp, pilot) -> Path:  # type: ignore[no-untyped-def]
    await pilot.pause()
    assert app.workspace.flush()
    await pilot.pause()
    return app.workspace.path


def edit_name(path: Path) -> bytes:
    text = path.read_text()
    assert 'name = "Boarding the Jean Bart"' in text
    path.write_text(text.replace('"Boarding the Jean Bart"', '"Boarding the Jean Bart II"', 1))
    return path.read_bytes()


async def test_an_edit_while_open_is_not_written_over_and_t_takes_it(
    tmp_path: Path, make_app: AppMaker
) -> None:
    app = make_app()
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        path = await opened_demo(app, pilot)
        edited = edit_name(path)
        await pilot.press("s", "n")  # keys typed after the edit: kept in memory
        await until(pilot, lambda: isinstance(app.screen, ChoiceDialog))
        asked = question(app)
        assert "Jean Bart II" in asked and path.name in asked and offered(app) == {"t", "k"}
        assert path.read_bytes() == edited  # not written over
        mine = app.workspace.encounter
        assert mine.phase.value == "active"  # the keys ran
        await pilot.press("t")
        await until(pilot, lambda: isinstance(app.screen, MainScreen))
        assert app.workspace.encounter.name == "Boarding the Jean Bart II"
        kept = list((tmp_path / f"{path.stem}.d").glob("unsaved-*.toml"))
        assert len(kept) == 1 and store.load(kept[0]).encounter == mine
        await until(pilot, lambda: kept[0].name in toasts(app))
        assert app.workspace.flush()
        store.forget(path)
        assert store.load(path).encounter.name == "Boarding the Jean Bart II"
        await pilot.press("n")  # and saving goes on
        assert app.workspace.flush()


async def test_an_edit_while_open_k_keeps_the_windows_fight(
    tmp_path: Path, make_app: AppMaker
) -> None:
    app = make_app()
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        path = await opened_demo(app, pilot)
        edited = edit_name(path)
        await pilot.press("s")
        await until(pilot, lambda: isinstance(app.screen, ChoiceDialog))
        assert path.read_bytes() == edited
        assert not app.workspace.flush(0.5)  # waits for the GM
        await pilot.press("n")  # a key the dialog does not take: nothing happens
        await pilot.press("k")
        await until(pilot, lambda: isinstance(app.screen, MainScreen))
        kept = list((tmp_path / f"{path.stem}.d").glob("edited-*.toml"))
        assert len(kept) == 1 and kept[0].read_bytes() == edited
        await until(pilot, lambda: kept[0].name in toasts(app))
        await pilot.press("n")
        assert app.workspace.flush()
        store.forget(path)
        assert store.load(path).encounter == app.workspace.encounter


async def test_a_refused_edit_while_open_can_only_be_kept_aside(
    tmp_path: Path, make_app: AppMaker
) -> None:
    app = make_app()
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        path = await opened_demo(app, pilot)
        text = path.read_text()
        path.write_text(text.replace("round = 0", 'round = "zero"', 1))
        await pilot.press("s")
        await until(pilot, lambda: isinstance(app.screen, ChoiceDialog))
        assert "encounter.round" in question(app) and offered(app) == {"k"}
        await pilot.press("t")  # not offered
        await pilot.pause()
        assert isinstance(app.screen, ChoiceDialog)
        await pilot.press("k")
        await until(pilot, lambda: isinstance(app.screen, MainScreen))
        assert app.workspace.flush()
        assert os.path.exists(path) and store.load(path).encounter.phase.value == "active"


async def test_opening_a_refused_save_from_the_app_can_keep_the_fight_shown(
    tmp_path: Path,
    make_app: AppMaker,
) -> None:
    other = tmp_path / "other"
    other.mkdir()
    path = accepted_edit_then_bad_one(other)
    bad = path.read_bytes()
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        shown = await opened_demo(app, pilot)
        main = app.screen
        assert isinstance(main, MainScreen)
        main.open_path(path)
        await until(pilot, lambda: isinstance(app.screen, ChoiceDialog))
        assert offered(app) == {"e", "b", "n"} and "'ten'" in question(app)
        await pilot.press("n")
        await until(pilot, lambda: isinstance(app.screen, MainScreen))
        assert app.workspace.path == shown and path.read_bytes() == bad
        await pilot.press("s")
        assert app.workspace.flush()  # the fight shown goes on being saved


async def test_the_app_replays_the_history_after_the_fight_shows_and_says_if_it_cannot(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A save opens with its undo history replayed once the fight is on screen; one whose
    history no longer leads to the fight opens as saved, and the GM is told that u cannot go
    back (the steps made since still undo)."""
    from facility_tui.commands.session import Session
    from tests.unit.test_store_history import rekind_added_lines

    s = Session(store.blank())
    for line in ("add Alpha init=4", "add Beta init=2", "roll 1d6"):
        s.execute(line)
    path = tmp_path / "fight.toml"
    store.save(s, path)
    store.forget(path)
    rekind_added_lines(monkeypatch)
    app = FacilityApp(save_dir=tmp_path, open_file=path)
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        assert app.workspace.session.encounter == s.encounter
        await until(pilot, lambda: "u cannot go back" in toasts(app))
        assert "could not be rebuilt" in toasts(app)
        assert not app.workspace.session.can_undo()
