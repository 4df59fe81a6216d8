"""The campaign browser (``o``, issue 24) as the GM uses it: each encounter in words, filtered by
typing, duplicated, renamed, archived, restored and undone by keys, in bursts and with junk."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

from facility_tui.screens.browser import BrowserScreen, RenameDialog
from facility_tui.screens.dialogs import ChoiceDialog
from facility_tui.screens.main import MainScreen
from facility_tui.screens.widgets.key_bar import KeyBar
from textual import events
from textual.widgets._toast import Toast

from facility_tui import store
from facility_tui.app import FacilityApp
from tests.apps import AppMaker
from tests.screen_check import screen_lines, strip_faults
from tests.unit.test_campaign_files import campaign, files_of, make


def toasts(app: FacilityApp) -> list[str]:
    return [str(t.render()) for t in app.screen.query(Toast)]


def row(app: FacilityApp, name: str) -> str:
    """The screen's row naming ``name`` (there must be one)."""
    (found,) = [line for line in screen_lines(app) if name in line]
    return found


def browser(app: FacilityApp) -> BrowserScreen:
    screen = app.screen
    assert isinstance(screen, BrowserScreen), screen
    return screen


def keys(app: FacilityApp) -> list[str]:
    """What the browser's key line lists."""
    return [what for _, _, what in browser(app).query_one(KeyBar)._keys]


def highlighted(app: FacilityApp) -> str:
    chosen = browser(app).selected()
    assert chosen is not None
    return chosen.name


async def settled(pilot) -> None:  # type: ignore[no-untyped-def]
    for _ in range(100):
        await pilot.pause()
        if not (pilot.app.keys_waiting or pilot.app.busy()):
            return


async def to(pilot, name: str) -> None:  # type: ignore[no-untyped-def]
    """Move the highlight to ``name`` with j."""
    for _ in range(20):
        if highlighted(pilot.app) == name:
            return
        await pilot.press("j")
    raise AssertionError(f"{name} is not listed")


async def test_o_lists_each_encounter_in_words_newest_first(
    tmp_path: Path, make_app: AppMaker
) -> None:
    campaign(tmp_path)
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        round_now = app.workspace.encounter.round
        await pilot.press("o")
        await settled(pilot)
        lines = screen_lines(app)
        at = {
            name: i
            for i, line in enumerate(lines)
            for name in ("Lockdown", "Cargo", "Old")
            if name in line
        }
        assert at["Lockdown"] < at["Cargo"] < at["Old"]  # the last changed first
        lockdown = row(app, "Lockdown")
        assert "▶ Lockdown" in lockdown  # the one open in this window
        assert "Facility" in lockdown and f"round {round_now}" in lockdown
        assert "1 PC, 2 enemies" in lockdown and "1 min ago" in lockdown
        cargo = row(app, "Cargo bay ambush")
        assert all(w in cargo for w in ("2297", "prepared", "2 PCs, 3 enemies", "10 min ago"))
        assert all(w in row(app, "Old fight") for w in ("ended", "1 PC, 0 enemies", "days ago"))
        assert "Encounters of the campaign (3)" in "".join(lines)
        listed = ["Open", "Filter", "Duplicate", "Rename", "Archive", "Archived", "Close"]
        assert keys(app) == listed
        assert "⏎Open  /Filter  dDuplicate  rRename  aArchive  vArchived  esc Close" in lines[-2]
        assert strip_faults(app) == []


async def test_long_names_are_cut_on_one_row_at_80_columns(
    tmp_path: Path, make_app: AppMaker
) -> None:
    long = "The long and winding ambush in the cargo bay of the Jean Bart"[:60]
    make(tmp_path, "long.toml", f'new 2297 "{long}" seed=1', "add A side=pc", "add [b]x[/b]")
    make(tmp_path, "other.toml", 'new 2297 "[red]Not markup[/red]" seed=2')
    app = make_app(demo="facility")
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("o")
        await settled(pilot)
        cut = row(app, "The long and winding")
        assert "…" in cut and "prepared" in cut and "1 PC, 1 enemy" in cut
        assert "[red]Not markup[/red]" in row(app, "Not markup")  # shown as typed
        assert strip_faults(app) == []


async def test_typing_filters_and_enter_opens_the_one_highlighted(
    tmp_path: Path, make_app: AppMaker
) -> None:
    saves = campaign(tmp_path)
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("o", *"carg")
        await settled(pilot)
        assert [s.name for s in browser(app).shown] == ["Cargo bay ambush"]
        assert "(1 of 3)" in "".join(screen_lines(app))
        await pilot.press("tab", "d")  # the list's keys, the filter kept: d copies Cargo
        await settled(pilot)
        names = [s.name for s in browser(app).shown]
        assert names == ["Cargo bay ambush (copy)", "Cargo bay ambush"]
        await pilot.press("u", "slash", *["backspace"] * 4, "tab")
        await settled(pilot)
        assert len(browser(app).shown) == 3
        assert app.screen.focused is app.screen.query_one("#saves")
        await pilot.press("slash", *"2297 ended")  # rules and state words
        await settled(pilot)
        assert [s.name for s in browser(app).shown] == ["Old fight"]
        await pilot.press("enter")
        await settled(pilot)
        assert isinstance(app.screen, MainScreen) and app.workspace.path == saves["done"]
        await pilot.press("o", *"nothing like it")
        await settled(pilot)
        assert browser(app).shown == [] and "No encounter matches" in "".join(screen_lines(app))
        await pilot.press("enter", "escape", "escape")  # nothing to open; filter cleared; closed
        await settled(pilot)
        assert isinstance(app.screen, MainScreen) and app.workspace.path == saves["done"]


async def test_duplicate_rename_archive_restore_and_undo_by_keys(
    tmp_path: Path, make_app: AppMaker
) -> None:
    saves = campaign(tmp_path)
    before = files_of(tmp_path)
    app = make_app()
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await pilot.press("o")
        await to(pilot, "Cargo bay ambush")
        await pilot.press("d")
        await settled(pilot)
        copy = tmp_path / "cargo-bay-ambush-copy.toml"
        assert store.load(copy).encounter.name == "Cargo bay ambush (copy)"
        assert "Copied as Cargo bay ambush (copy); u undoes it" in toasts(app)
        assert highlighted(app) == "Cargo bay ambush (copy)"  # the copy, newest, is highlighted
        assert "Undo" in keys(app)
        await pilot.press("u")
        await settled(pilot)
        assert not copy.exists()
        assert (tmp_path / "archive" / "cargo-bay-ambush-copy-undone.toml").exists()
        assert any("Undid the copy" in t for t in toasts(app))

        await to(pilot, "Cargo bay ambush")
        await pilot.press("r")
        await settled(pilot)
        assert isinstance(app.screen, RenameDialog)
        await pilot.press("ctrl+a", "ctrl+k", *"Night raid", "enter")
        await settled(pilot)
        assert not saves["ambush"].exists()
        assert store.load(tmp_path / "night-raid.toml").encounter.name == "Night raid"
        assert highlighted(app) == "Night raid"
        await pilot.press("u")
        await settled(pilot)
        assert saves["ambush"].read_bytes() == before["ambush.toml"]

        await to(pilot, "Old fight")
        await pilot.press("a")
        await settled(pilot)
        assert not saves["done"].exists() and "Old fight" not in [
            s.name for s in browser(app).shown
        ]
        await pilot.press("v")  # the archived view
        await settled(pilot)
        assert "Archived encounters (2)" in "".join(screen_lines(app))
        await to(pilot, "Old fight")
        assert keys(app) == ["Open", "Filter", "Restore", "Campaign", "Undo", "Close"]
        await pilot.press("a")  # restores
        await settled(pilot)
        assert saves["done"].exists()
        await pilot.press("u")  # the restore undone: archived again
        await settled(pilot)
        assert not saves["done"].exists()
        await pilot.press("u")  # the archive undone: restored
        await settled(pilot)
        assert saves["done"].exists()
        await pilot.press("u")  # nothing more of this visit: u does nothing
        await pilot.press("v", "escape")
        await settled(pilot)
        assert isinstance(app.screen, MainScreen)
    assert {k: v for k, v in files_of(tmp_path).items() if k in before} == before


async def test_a_rename_that_clashes_keeps_the_dialog_with_its_line(
    tmp_path: Path, make_app: AppMaker
) -> None:
    saves = campaign(tmp_path)
    before = files_of(tmp_path)
    app = make_app()
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await pilot.press("o")
        await to(pilot, "Cargo bay ambush")
        await pilot.press("r", "ctrl+a", "ctrl+k", *"old fight", "enter")
        await settled(pilot)
        assert isinstance(app.screen, RenameDialog)
        (line,) = [t for t in toasts(app) if "already" in t]
        assert line == "done.toml is called Old fight already: pick another name"
        await pilot.press("escape", "escape")
        await settled(pilot)
    assert files_of(tmp_path) == before and saves["ambush"].exists()


async def test_the_open_encounter_and_a_held_one_are_neither_renamed_nor_archived(
    tmp_path: Path,
    make_app: AppMaker,
) -> None:
    saves = campaign(tmp_path)
    before = files_of(tmp_path)
    app = make_app()
    other = store.lock_save(saves["ambush"], "facility-tui app")  # (as another window's)
    try:
        async with app.run_test(size=(80, 24), notifications=True) as pilot:
            await pilot.press("o")
            await to(pilot, "Lockdown")
            await pilot.press("a", "r")
            await settled(pilot)
            assert isinstance(app.screen, BrowserScreen)
            assert any(
                "lockdown.toml is open in this window: it cannot be archived" in t
                for t in toasts(app)
            )
            await to(pilot, "Cargo bay ambush")
            await pilot.press("a")
            await settled(pilot)
            assert any("ambush.toml is open in" in t and "archived" in t for t in toasts(app))
    finally:
        other.release()
    assert files_of(tmp_path) == before


async def test_keys_in_a_burst_twice_and_with_junk(tmp_path: Path, make_app: AppMaker) -> None:
    campaign(tmp_path)
    before = files_of(tmp_path)
    app = make_app()
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await pilot.pause()
        # a copy, a copy of it (highlighted once made), both taken back: sent before any acts
        for key in ["o", "j", "d", "d", "u", "u", "u"]:
            app.post_message(events.Key(key, key if len(key) == 1 else None))
        await settled(pilot)
        assert sorted(p.name for p in (tmp_path / "archive").glob("*.toml")) == [
            "cargo-bay-ambush-copy-copy-undone.toml",
            "cargo-bay-ambush-copy-undone.toml",
        ]
        await pilot.press("escape", "escape")
        junk = ["o", "f5", "ctrl+x", "%", "tab", "pageup", "end", "home", "insert", "escape"]
        await pilot.press(*junk, "escape", "escape")
        await settled(pilot)
        assert isinstance(app.screen, MainScreen) and app.is_running
        await pilot.press("o", "a", "a", "v", "v", "escape", "escape")  # archive twice: once
        await settled(pilot)
        assert isinstance(app.screen, MainScreen)
        await asyncio.sleep(0)
    kept = files_of(tmp_path)
    assert {k: v for k, v in kept.items() if k in before} == before  # the open one: refused


async def test_a_corrupt_save_is_listed_and_opens_as_a_refused_save(
    tmp_path: Path, make_app: AppMaker
) -> None:
    campaign(tmp_path)
    (tmp_path / "broken.toml").write_bytes(b"#facility-tui state-sha256=1\x00junk")
    (tmp_path / "future.toml").write_text('schema_version = 7\nkind = "save"\n')
    app = make_app(demo="2297")
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await pilot.press("o")
        await settled(pilot)
        assert "damaged" in row(app, "broken.toml")
        assert "newer version" in row(app, "future.toml")
        assert strip_faults(app) == []
        await to(pilot, "future")
        await pilot.press("enter")
        await settled(pilot)
        assert any("newer facility-tui" in t for t in toasts(app))
        await pilot.press("o")
        await to(pilot, "broken")
        await pilot.press("enter")
        await settled(pilot)
        assert isinstance(app.screen, ChoiceDialog)  # asked what to do, nothing opened unasked


async def test_typing_a_filter_reads_no_file(
    tmp_path: Path, make_app: AppMaker, monkeypatch
) -> None:  # type: ignore[no-untyped-def]
    """The folder is read when the browser opens and after each operation, not at each key."""
    from facility_tui.screens import browser as module

    campaign(tmp_path)
    reads: list[Path] = []
    real = module.summaries
    monkeypatch.setattr(module, "summaries", lambda folder: reads.append(folder) or real(folder))
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("o")
        await settled(pilot)
        assert len(reads) == 1
        await pilot.press(*"cargo bay", *["backspace"] * 9)
        await settled(pilot)
        assert len(reads) == 1 and len(browser(app).shown) == 3


async def test_names_stay_in_line_and_an_archive_keeps_the_place_and_the_keys(
    tmp_path: Path,
    make_app: AppMaker,
) -> None:
    """The open save's ▶ stands in a margin every name has (it pushed its name out of line);
    after an archive the highlight stays where it was, on the row that took its place (it
    jumped to the top: a second a landed on the open save); the toast saying it stands above
    the key line, which lists u (the toast covered it)."""
    campaign(tmp_path)
    make(tmp_path, "extra.toml", 'new 2297 "Extra fight" seed=4', at=time.time() - 3000)
    app = make_app()
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await pilot.press("o")
        await settled(pilot)
        names = ["Lockdown", "Cargo bay ambush", "Extra fight", "Old fight"]
        columns = {row(app, name).index(name) for name in names}
        assert len(columns) == 1, [row(app, name) for name in names]
        assert "▶ Lockdown" in row(app, "Lockdown")
        await to(pilot, "Cargo bay ambush")
        await pilot.press("a")
        await settled(pilot)
        assert [s.name for s in browser(app).shown] == ["Lockdown", "Extra fight", "Old fight"]
        assert highlighted(app) == "Extra fight"  # the row that took its place
        lines = screen_lines(app)
        assert any("Archived ambush.toml; u undoes it" in line for line in lines)
        assert "uUndo" in lines[-2]  # the key line, whole, under the toast
        await pilot.press("a")  # again: the next one, never the open save at the top
        await settled(pilot)
        assert [s.name for s in browser(app).shown] == ["Lockdown", "Old fight"]
        assert highlighted(app) == "Old fight"
        await pilot.press("a")  # the last row: the one above takes its place
        await settled(pilot)
        assert highlighted(app) == "Lockdown"
        assert strip_faults(app) == []
