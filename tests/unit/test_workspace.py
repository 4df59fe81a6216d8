"""The workspace (issue 11): file names for new fights, one writer per save, read-only views."""

from __future__ import annotations

from pathlib import Path

from facility_tui import store
from facility_tui.model.text import MAX_TITLE
from facility_tui.workspace import Workspace
from tests.conftest import within

LONG = "The Very Long Name Of A Boarding Action Aboard The Liner Jea"  # the longest allowed


def test_a_long_name_used_three_times_gets_three_files(tmp_path: Path) -> None:
    assert len(LONG) == MAX_TITLE == store.NAME_MAX  # all of it kept in the file name
    ws = Workspace(tmp_path, seed=1)
    ws.autosave()
    paths: list[Path] = []

    def three() -> None:
        for _ in range(3):
            ws.new_encounter("facility", LONG)  # ctrl+n with the same name
            assert ws.flush()
            paths.append(ws.path)

    within(20, three)
    ws.close()
    assert len(set(paths)) == 3
    for path in paths:
        assert path.parent == tmp_path and path.exists()
        assert store.load(path).encounter.name == LONG
    assert paths[1].name.endswith("-2.toml") and paths[2].name.endswith("-3.toml")


def test_a_new_fight_never_takes_a_damaged_fights_folder(tmp_path: Path) -> None:
    ws = Workspace(tmp_path, seed=1)
    ws.autosave()
    ws.new_encounter("2297", "Deck")
    ws.execute("add A init=3")
    assert ws.flush()
    first = ws.path
    store.set_aside(first)  # as a damaged save is: its backups stay in deck.d/
    ws.new_encounter("2297", "Deck")
    ws.close()
    assert ws.path != first and ws.path.name == "deck-2.toml"
