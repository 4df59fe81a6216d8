"""Issue 21: the header says when the open save was last written, whatever the path's length."""

from __future__ import annotations

from pathlib import Path

from facility_tui.screens.widgets.status_pane import path_within
from hypothesis import given
from hypothesis import strategies as st
from rich.cells import cell_len

from facility_tui.app import FacilityApp
from tests.app.test_app import settle, status

PARTS = st.lists(st.text("abcdé漢-_.", min_size=1, max_size=12), min_size=1, max_size=6)


@given(PARTS, st.integers(1, 60))
def test_a_shown_path_fits_its_room_and_keeps_its_end(parts: list[str], room: int) -> None:
    shown = "/".join(parts)
    fitted = path_within(shown, room)
    assert cell_len(fitted) <= room
    if cell_len(shown) <= room:
        assert fitted == shown
    else:
        assert fitted.startswith("…")
        assert shown.endswith(fitted[1:])  # the end kept, never a middle cut


async def test_a_long_save_path_gives_way_to_the_time_it_was_saved(tmp_path: Path) -> None:
    folder = tmp_path / ("a-campaign-folder-with-a-long-name" * 2)
    app = FacilityApp(save_dir=folder, seed=1)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("s")
        await settle(pilot)
        line = status(app).splitlines()[1]
        assert "saved " in line and "…" in line and "boarding-the-jean-bart.toml" in line
        assert cell_len(line) <= 80
        await pilot.resize_terminal(200, 24)
        await settle(pilot)
        assert str(folder.name) in status(app).splitlines()[1]  # room enough: all of it


async def test_a_long_encounter_name_gives_way_to_the_time_it_was_saved(tmp_path: Path) -> None:
    """A name of 60 characters: the header keeps the time whole (`saved 12:00:00`, it was
    `saved 18:…`) and the file's name, and shortens the encounter's name, marked …; the turn
    line is whole too (its next: counts the passes where they do not fit)."""
    from facility_tui import cli

    long = "The Very Long Encounter Name That Goes On And On For Ever X"
    for width in (80, 60):
        save = tmp_path / str(width) / "deck.toml"  # (a fight not started: s saves it)
        lines = [f"new 2297 '{long}'", "add A init=3"]
        assert cli.apply_cmd(save, lines, seed=1, quiet=True) == 0
        app = FacilityApp(open_file=save, clock=lambda: "12:00:00")
        async with app.run_test(size=(width, 24)) as pilot:
            await settle(pilot)
            await pilot.press("s")
            await settle(pilot)
            line = status(app).splitlines()[1]
            assert line.rstrip().endswith("deck.toml · saved 12:00:00"), line
            assert "…" in line and long[:15] in line and cell_len(line) <= width
