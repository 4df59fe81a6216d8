"""The player view (``facility-tui watch``) through Textual's Pilot, on temporary saves.

It follows a save another workspace writes, takes no lock and writes nothing, and never shows
what ``hide`` keeps from the players.
"""

from __future__ import annotations

import html
import os
from pathlib import Path

import pytest
from attrs import evolve
from hypothesis import given
from hypothesis import strategies as st

from facility_tui import store
from facility_tui.app import FacilityApp, WatchApp
from facility_tui.cli import main
from facility_tui.session import Session
from facility_tui.store import blank
from facility_tui.workspace import Workspace

SETUP = (
    "new 2297 Deck seed=7",
    'add "Sgt. Blanc" side=pc init=12',
    "add Boarder count=2 init=5",
    "add Lurker init=3",
    "note lurker behind the crates",
    'note blanc "wants the captain alive"',
    "hide blanc note",
    "start",
)


def saved(folder: Path, *extra: str) -> Path:
    s = Session(evolve(blank(), seed=1))
    for line in (*SETUP, *extra):
        s.execute(line)
    path = folder / "deck.toml"
    store.save(s, path)
    return path


def shown(app: WatchApp | FacilityApp) -> str:
    """The screen's text as the terminal shows it."""
    svg = app.export_screenshot()
    return html.unescape(svg).replace("\xa0", " ")


def watching(path: Path) -> WatchApp:
    """The app ``facility-tui watch PATH`` runs."""
    ws = Workspace(path.parent, role="facility-tui watch")
    ws.open_read_only(path)
    return WatchApp(ws, clock=lambda: "12:00:00")


def tree(folder: Path) -> list[tuple[str, int]]:
    return sorted(
        (os.path.relpath(os.path.join(d, f), folder), os.stat(os.path.join(d, f)).st_mtime_ns)
        for d, _, files in os.walk(folder)
        for f in files
    )


async def until(pilot, seen: list[str], wanted: str) -> str:  # type: ignore[no-untyped-def]
    """The screen's text once it shows ``wanted`` (every text seen on the way in ``seen``)."""
    for _ in range(60):
        await pilot.pause(0.05)
        text = shown(pilot.app)
        seen.append(text)
        if wanted in text:
            return text
    raise AssertionError(f"{wanted!r} never shown; last screen:\n{seen[-1]}")


async def test_watch_follows_the_writer_without_its_lock(tmp_path: Path) -> None:
    path = saved(tmp_path, "hide lurker")
    before = tree(tmp_path)
    app = watching(path)
    seen: list[str] = []
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        first = await until(pilot, seen, "SGT. BLANC")
        assert "Boarder 1" in first and "unhurt" in first and "player view" in first
        await pilot.pause(0.6)  # a look at the unchanged save or two
        assert tree(tmp_path) == before  # no lock file, no backup, nothing written
        assert store.holder(path) is None

        writer = Workspace(tmp_path, seed=1)  # the GM's tracker takes the save meanwhile
        writer.autosave()
        assert writer.open(path) is None and not writer.read_only
        try:
            writer.execute("hit boarder-1 20")
            writer.execute("next")
            assert writer.flush(5.0)
            text = await until(pilot, seen, "dying")
            assert "NOW" in text and "BOARDER" in text  # the turn moved on
            writer.execute("unhide lurker")
            assert writer.flush(5.0)
            await until(pilot, seen, "behind the crates")  # a note players may read
            writer.execute("hide lurker")
            assert writer.flush(5.0)
            for _ in range(20):  # gone again at the next look
                await pilot.pause(0.05)
                if "Lurker" not in shown(app):
                    break
            assert "Lurker" not in shown(app)
        finally:
            writer.close()
    shown_while_hidden = [t for t in seen if "Lurker" not in t]
    assert shown_while_hidden and not any("behind the crates" in t for t in shown_while_hidden)
    assert not any("wants the captain" in t for t in seen)  # a hidden note, never
    assert not any("20/20" in t for t in seen)  # no exact damage


async def test_q_quits_and_other_keys_do_nothing(tmp_path: Path) -> None:
    path = saved(tmp_path)
    before = tree(tmp_path)
    app = watching(path)
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await until(pilot, [], "SGT. BLANC")
        await pilot.press(*"nusdx123:?", "enter", "escape", "ctrl+p", "ctrl+z", "delete")
        await pilot.pause()
        assert app.is_running and "SGT. BLANC" in shown(app)
        await pilot.press("q")
        await pilot.pause()
        assert not app.is_running
    assert tree(tmp_path) == before


def test_watch_of_an_unreadable_save_is_one_line_and_no_screen(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for bad in ("not a save", None):
        path = tmp_path / "bad.toml"
        if bad is None:
            path.unlink()
            path.mkdir()
        else:
            path.write_text(bad)
        capsys.readouterr()
        assert main(["watch", str(path)]) == 2  # (a screen would hang the test: none opens)
        out, err = capsys.readouterr()
        assert out == "" and err.count("\n") == 1 and "bad.toml" in err


async def test_a_read_only_tracker_opens_the_player_view_from_the_palette(
    tmp_path: Path,
) -> None:
    path = saved(tmp_path, "hide lurker")
    lock = store.lock_save(path, "another window")  # the GM's tracker has it
    try:
        app = FacilityApp(save_dir=tmp_path, open_file=path, clock=lambda: "12:00:00")
        async with app.run_test(size=(80, 24), notifications=True) as pilot:
            await pilot.pause()
            assert app.workspace.read_only and "Lurker" in shown(app)  # the GM's view
            await pilot.press("ctrl+p")
            await pilot.pause()
            palette = app.screen
            palette.query_one("Input").insert_text_at_cursor("player view")  # type: ignore[attr-defined]
            await pilot.pause(0.3)
            await pilot.press("enter")
            text = await until(pilot, [], "player view")
            assert "SGT. BLANC" in text and "Lurker" not in text
            await pilot.press("q")
            await pilot.pause()
            assert not app.is_running
    finally:
        lock.release()


@pytest.mark.parametrize("answer", ["n", "escape", "y", "w"])
async def test_opening_a_held_save_offers_read_only_here_or_the_player_view(
    tmp_path: Path, answer: str
) -> None:
    """``o`` on a save another window writes: the whole question is shown at 80×24 (it wraps),
    then n / escape change nothing, y follows it read-only here, w as the player view."""
    path = saved(tmp_path, "hide lurker")
    lock = store.lock_save(path, "another window")
    try:
        app = FacilityApp(save_dir=tmp_path / "mine", seed=1, clock=lambda: "12:00:00")
        async with app.run_test(size=(80, 24), notifications=True) as pilot:
            await pilot.pause()
            main_screen = app.screen
            before = app.workspace.path
            main_screen.open_path(path)  # type: ignore[attr-defined]
            await pilot.pause()
            text = shown(app)
            assert "another window" in text and "following its changes?" in text
            assert "player view" in text and "read-only here" in text
            await pilot.press(answer)
            if answer == "w":
                text = await until(pilot, [], "player view")
                assert "SGT. BLANC" in text and "Lurker" not in text
            await pilot.pause()
            assert app.workspace.read_only == (answer in ("y", "w"))
            assert (app.workspace.path == path) == (answer in ("y", "w"))
            if answer in ("n", "escape"):
                assert app.workspace.path == before
    finally:
        lock.release()


def test_watch_columns_stay_aligned_whatever_the_names() -> None:
    """A long name is shortened (keeping its end, the number that tells two apart) and a wide
    one counted by its cells: the Side and state columns start at the same column on every
    row, whatever the names and sides."""
    from facility_tui.screens.player_view import rows_text
    from rich.cells import cell_len

    s = Session(evolve(blank(), seed=1))
    for line in (
        "new 2297 Deck seed=7",
        "add Ana side=pc init=12",
        f'add "{"Aspirant-Commander Delacroix-Bessart"} 12" init=9',
        f'add "{"Aspirant-Commander Delacroix-Bessart"} 13" init=8',
        'add "東京の巨大なロボット兵器の操縦者" init=7',  # 16 wide characters: 32 cells
        'add "Ωmega Kid" init=6',
        "start",
    ):
        s.execute(line)
    lines = [line for line in rows_text(s.encounter).plain.splitlines() if line.strip()]
    assert len(lines) == 5
    starts = set()
    for line in lines:
        side = next(w for w in ("PC", "Enemy") if f" {w} " in line)
        cut = line.index(f" {side} ") + 1
        state = line[cut + len(side) :].lstrip(" ")
        starts.add((cell_len(line[:cut]), cell_len(line[: len(line) - len(state)])))
    assert len(starts) == 1, lines  # the same columns on every row
    shown = " ".join(lines)
    assert "…ssart 12" in shown and "…ssart 13" in shown  # two long names still told apart
    assert "Ana" in shown and "Ωmega Kid" in shown


@given(st.text(st.characters(categories=["L", "N", "P", "Zs", "So"]), max_size=40))
def test_a_name_in_the_player_view_takes_exactly_its_column(name: str) -> None:
    """Whatever its characters (wide ones count two cells), a name fills its column exactly;
    a name that fits is shown whole."""
    from facility_tui.screens.player_view import NAME_CELLS, in_cells
    from rich.cells import cell_len

    shown = in_cells(name, NAME_CELLS)
    assert cell_len(shown) == NAME_CELLS
    if cell_len(name) <= NAME_CELLS:
        assert shown.rstrip(" ") == name.rstrip(" ")


@given(st.integers(24, 140))
def test_watch_rows_keep_each_state_word_on_its_row_at_any_width(width: int) -> None:
    """A phone held upright is ~40 cells wide: the names give way, then the side shortens, and
    each row's mark, name, side and state stay within the width on one line (conditions after
    them may wrap below), the states in one column."""
    from facility_tui.screens.player_view import MIN_NAME_CELLS, rows_text
    from rich.cells import cell_len

    from facility_tui.report import public_state, visible

    s = Session(evolve(blank(), seed=1))
    for line in (
        "new 2297 Deck seed=7",
        "add Ana side=pc init=12",
        'add "Aspirant-Commander Delacroix-Bessart" init=9',
        "add Boarder init=8",
        "start",
        "hit boarder 25",  # dying, with conditions after the state
    ):
        s.execute(line)
    enc = s.encounter
    lines = [line for line in rows_text(enc, 0, width).plain.splitlines() if line.strip()]
    states = [public_state(enc, c).state for c in visible(enc)]
    assert len(lines) == len(states) == 3
    columns = set()
    for line, state in zip(lines, states, strict=True):
        at = line.index(state, 2 + MIN_NAME_CELLS)
        columns.add(cell_len(line[:at]))
        if width >= 2 + MIN_NAME_CELLS + 1 + 2 + 1 + max(map(cell_len, states)):
            assert cell_len(line[: at + len(state)]) <= width, (width, line)
    assert len(columns) == 1, lines  # the same column on every row
