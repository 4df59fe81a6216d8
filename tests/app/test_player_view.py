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
from facility_tui.commands.session import Session
from facility_tui.model.view import Public
from facility_tui.store import blank
from facility_tui.systems import rules_for
from facility_tui.workspace import Workspace
from tests.screen_check import screen_lines

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


FIGHTS = {
    "2297": (
        "new 2297 Deck seed=7",
        "add Ana side=pc init=12",
        'add "Aspirant-Commander Delacroix-Bessart" init=9',
        "add Boarder count=3 init=8",
        "start",
        "hit boarder-1 25",  # dying · unconscious, prone
        "hit boarder-2 30 stun",  # down · prone
        "hit boarder-3 14",  # Serious
    ),
    "facility": (
        "new facility Lockdown seed=2",
        "add Ana side=pc",
        'add "Aspirant-Commander Delacroix-Bessart"',
        "add Clerk count=3",
        "wound clerk-1 6",  # impaired
        "fate clerk-2 surrendered",
        "start",
    ),
}


def fight(system: str, *extra: str) -> Session:
    s = Session(evolve(blank(), seed=1))
    for line in (*FIGHTS[system], *extra):
        if line:
            s.execute(line)
    return s


FOUGHT = {system: fight(system).encounter for system in FIGHTS}  # (made once: a catalog loads)


def forms(p: Public) -> tuple[str, str, str]:
    """A state as the player view may show it: whole with its conditions, as its word alone,
    in first letters."""
    from facility_tui.screens.player_view import first_letters

    full = p.state + (" · " + ", ".join(p.conditions) if p.conditions else "")
    return full, p.state, first_letters(p.state)


@given(st.integers(30, 140), st.sampled_from(sorted(FIGHTS)))
def test_each_combatant_stays_on_one_line_from_30_columns_up(width: int, system: str) -> None:
    """A phone held upright is 30 to 45 cells wide: each combatant players see is one line
    within the width (nothing of it wraps below), its state in one of its forms, whole words
    (never cut), starting in the same column on every row."""
    from facility_tui.screens.player_view import rows_text
    from rich.cells import cell_len

    from facility_tui.report import public_state, visible

    enc = FOUGHT[system]
    lines = rows_text(enc, 0, width).plain.splitlines()
    states = [public_state(enc, c) for c in visible(enc)]
    assert any(p.conditions for p in states) == (system == "2297")
    assert len(lines) == len(states) == 5, lines  # one line each
    columns = set()
    for line, p in zip(lines, states, strict=True):
        assert cell_len(line) <= width, (width, line)
        shown = next(f for f in forms(p) if line.endswith(" " + f))  # one form, to the end
        columns.add(cell_len(line) - cell_len(shown))
    assert len(columns) == 1, lines  # the same column on every row


def test_the_state_shortens_a_word_then_its_first_letters() -> None:
    """In less room, the state drops its conditions (one word), then goes to its first letters
    (``Mod.``), whole words first: always the longest form that fits."""
    from facility_tui.screens.player_view import first_letters, state_cell

    dying = Public("dying", ("unconscious", "prone"), fallen=True)
    assert state_cell(dying, None, False).plain == "dying · unconscious, prone"
    assert state_cell(dying, 26, False).plain == "dying · unconscious, prone"
    assert state_cell(dying, 25, False).plain == "dying"
    assert state_cell(dying, 5, False).plain == "dying"
    assert state_cell(dying, 4, False).plain == "dyi."
    assert state_cell(dying, 40, True).plain == "dyi."  # (every row in first letters)
    assert first_letters("Moderate") == "Mod." and first_letters("dead") == "dead"
    for system in ("2297", "facility"):  # no two words of the rules shorten alike
        words = rules_for(system).view.public_words
        assert len({first_letters(w) for w in words}) == len(words)


@pytest.mark.parametrize("width", [30, 43, 80])
def test_a_hit_does_not_move_the_columns(width: int) -> None:
    """The columns keep room for the rules' widest state word: a first injury, a fall, an undo
    change the state under its column, not the columns."""
    from facility_tui.screens.player_view import rows_text

    s = fight("2297")
    s.execute("new 2297 Deck seed=7")
    for line in ("add Ana side=pc init=12", "add Bo init=8", "start"):
        s.execute(line)
    layouts = []
    for line in ("", "hit bo 6", "hit bo 25", "undo", "undo"):
        if line:
            s.execute(line)
        rows = rows_text(s.encounter, 0, width).plain.splitlines()
        layouts.append([row.index(" PC ") if " PC " in row else row.index(" E") for row in rows])
        layouts[-1] += [rows[0].index("unhurt")]
    assert all(layout == layouts[0] for layout in layouts), layouts


def test_the_rules_name_every_state_word_they_give() -> None:
    """``public_words`` (the room the player view keeps) holds every state the rules give."""
    from facility_tui.report import public_state

    seen = {"2297": set(), "facility": set()}
    for damage in range(0, 61, 3):
        for kind in ("", " stun"):
            s = fight("2297", "add Cy init=1 hlt=20", f"hit cy {damage}{kind}" if damage else "")
            seen["2297"].add(public_state(s.encounter, s.encounter.combatants[-1]).state)
    s = fight("2297", "add Cy init=1", "set cy dead yes")
    seen["2297"].add(public_state(s.encounter, s.encounter.combatants[-1]).state)
    for wounds in range(0, 13, 2):
        s = fight("facility", "add Cy", f"wound cy {wounds}" if wounds else "")
        seen["facility"].add(public_state(s.encounter, s.encounter.combatants[-1]).state)
    for fate in ("dead", "fled", "surrendered", "out"):
        s = fight("facility", "add Cy", f"fate cy {fate}")
        seen["facility"].add(public_state(s.encounter, s.encounter.combatants[-1]).state)
    assert {"unhurt", "Serious", "down", "dying", "dead"} <= seen["2297"]
    assert {"ok", "hurt", "impaired", "out", "fled", "surrendered"} <= seen["facility"]
    for system, words in seen.items():
        assert words <= set(rules_for(system).view.public_words), (system, words)


def test_a_note_is_on_lines_of_its_own_under_the_name() -> None:
    """A note players may read goes below its row, under the name, wrapped between words
    within the width: the row itself stays one line."""
    from facility_tui.screens.player_view import NOTE_INDENT, rows_text
    from rich.cells import cell_len

    note = "wants the captain alive and the vault codes too"
    s = fight("2297", f'note ana "{note}"')
    lines = rows_text(s.encounter, 0, 30).plain.splitlines()
    assert lines[0].startswith("▶ Ana") and lines[0].endswith("unhurt")
    below = lines[1 : lines.index(next(ln for ln in lines[1:] if "Asp" in ln))]
    assert len(below) == 2 and all(ln.startswith(" " * NOTE_INDENT) for ln in below)
    assert all(cell_len(ln) <= 30 for ln in below)
    assert " ".join(ln.strip() for ln in below) == note  # whole words, in order


@pytest.mark.parametrize("width", [30, 43, 80])
async def test_watch_shows_each_combatant_on_one_line_and_the_round_as_digits(
    tmp_path: Path, width: int
) -> None:
    """What the table sees at a phone's width and wider: each row holds its name and its state
    word, no line holds a condition alone (``prone`` wrapped to the far left), and the round
    is drawn in block digits that read as the round's number."""
    from facility_tui.screens.player_view import big_number

    s = fight("2297", "next", "next", "next", "next", "next", "next")  # round 3
    store.save(s, tmp_path / "deck.toml")
    app = watching(tmp_path / "deck.toml")
    async with app.run_test(size=(width, 24)) as pilot:
        await until(pilot, [], "ROUND")
        lines = screen_lines(app)
    text = "\n".join(lines)
    for name, word in [("Ana", "unhurt"), ("Boarder 1", "dying"), ("Boarder 2", "down")]:
        (row,) = [ln for ln in lines if f" {name} " in ln]
        assert word in row, (name, row)
    assert not [ln for ln in lines if ln.strip().startswith(("prone", "unconscious"))], text
    at = next(i for i, ln in enumerate(lines) if "ROUND" in ln)
    col = lines[at].index("ROUND")
    drawn = [ln[col : col + 3].rstrip() for ln in lines[at + 1 : at + 4]]
    assert s.encounter.round == 3
    assert drawn == [row.rstrip() for row in big_number(3).splitlines()]


def test_big_digits_are_blocks_that_read_as_their_digit() -> None:
    """Each digit is drawn with block elements only (a browser's terminal fills those cells
    whatever its font; box-drawing lines made a 1 read as "]"), as this 3×5 picture of it."""
    from facility_tui.screens.player_view import big_number

    pictures = {  # the digits as a seven-segment display lights them, with a 1 of its own
        0: "### #.# #.# #.# ###",
        1: ".#. ##. .#. .#. ###",
        4: "#.# #.# ### ..# ..#",
        7: "### ..# ..# ..# ..#",
        8: "### #.# ### #.# ###",
    }
    upper = {" ": "..", "▀": "#.", "▄": ".#", "█": "##"}
    for digit, picture in pictures.items():
        lines = big_number(digit).splitlines()
        assert set("".join(lines)) <= set(upper), lines
        rows = ["", "", "", "", "", ""]
        for i, line in enumerate(lines):
            for cell in line.ljust(3):
                top, bottom = upper[cell]
                rows[2 * i] += top
                rows[2 * i + 1] += bottom
        assert " ".join(rows[:5]) == picture and rows[5] == "...", (digit, lines)
    shapes = {big_number(d) for d in range(10)}
    assert len(shapes) == 10  # no two alike
    assert big_number(12).splitlines()[0] == "▄█  ▀▀█"  # a blank cell between digits
