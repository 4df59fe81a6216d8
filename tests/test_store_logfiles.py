"""The log's write-once files (``store/logfiles.py``): a long fight's sealed log goes to files
never rewritten, undo across them and a new encounter in the history keep the main file small,
and a damaged or missing log file refuses the save."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from facility_tui import store
from facility_tui.model import LogEntry
from facility_tui.store.format import log_entries, log_line
from facility_tui.store.logfiles import Chunker, read_log
from tests.conftest import fought as fight
from tests.test_store_format import long_fight, same


def test_sealed_log_goes_to_write_once_files(tmp_path: Path) -> None:
    path = tmp_path / "f.toml"
    s = long_fight(40)
    store.save(s, path)
    files = sorted((tmp_path / "f.d").glob("log-*.toml"))
    assert files, "a long fight's log is split into files"
    stamps = {p.name: p.stat().st_mtime_ns for p in files}
    main_size = path.stat().st_size
    for _ in range(5):
        s.apply("roll 1d6")
        store.save(s, path)
    assert {p.name: p.stat().st_mtime_ns for p in files} == stamps  # never rewritten
    assert path.stat().st_size < main_size + 500
    text = path.read_text()
    tail = text.split("entries = '''")[1].split("'''")[0]
    assert 0 < len(tail.splitlines()) < store.CHUNK_MAX + 50
    same(store.load(path), s)
    assert store.list_saves(tmp_path) == [path]


def test_undo_across_sealed_files_and_new_branch(tmp_path: Path) -> None:
    path = tmp_path / "f.toml"
    s = long_fight(30)
    store.save(s, path)
    for _ in range(60):
        s.undo()
    store.save(s, path)
    same(store.load(path), s)
    for _ in range(10):
        s.apply("roll 3d6")
        s.apply("next")
    store.save(s, path)
    same(store.load(path), s)
    referenced = path.read_text().split("files = [")[1].split("]")[0]
    on_disk = {p.name for p in (tmp_path / "f.d").glob("log-*.toml")}
    assert on_disk == {n for n in on_disk if n in referenced}  # stale branch files collected


def test_new_encounter_inside_history_keeps_old_log_out_of_the_main_file(tmp_path: Path) -> None:
    path = tmp_path / "f.toml"
    s = long_fight(40)
    assert len(s.base.log) > store.CHUNK_MIN  # the oldest undoable state is mid-fight
    s.apply("new facility Depot seed=4")
    s.apply("add Tech side=pc")
    store.save(s, path)
    loaded = store.load(path)
    same(loaded, s)
    base_rows = path.read_text().split("[history.base_rows]")[1]
    assert "files = [\n" in base_rows and len(base_rows.splitlines()) < store.CHUNK_MAX + 50
    while loaded.can_undo():
        loaded.undo()
        s.undo()
    assert loaded.encounter == s.encounter


def test_damaged_or_missing_log_file(tmp_path: Path) -> None:
    path = tmp_path / "f.toml"
    store.save(fight(30), path)
    logs = sorted((tmp_path / "f.d").glob("log-*.toml"))
    assert logs
    logs[0].write_bytes(logs[0].read_bytes()[:-20])
    with pytest.raises(store.DamagedSave, match="log file"):
        store.load(path)
    logs[0].unlink()
    with pytest.raises(store.DamagedSave, match="missing"):
        store.load(path)


def log_of(runs: list[int]) -> tuple[LogEntry, ...]:
    """A log of ``runs[i]`` lines in round ``i`` each."""
    return tuple(
        LogEntry(r, f"line {n} of round {r}") for r, size in enumerate(runs) for n in range(size)
    )


@settings(max_examples=60, deadline=None)
@given(runs=st.lists(st.integers(1, 300), max_size=6), data=st.data())
def test_a_log_grown_by_appending_keeps_its_sealed_files(
    runs: list[int], data: st.DataObject
) -> None:
    """The split is a function of the log alone: each file holds CHUNK_MIN to CHUNK_MAX lines,
    a shorter log's files are the first files of the longer one (so a file is never rewritten),
    a writer that remembers its files splits as a fresh one does, and the files and the open
    tail read back are the log."""
    log = log_of(runs)
    cut = data.draw(st.integers(0, len(log)))
    remembering = Chunker()
    early, _ = remembering.split(log[:cut])
    chunks, tail = remembering.split(log)
    assert [c.name for c in Chunker().split(log)[0]] == [c.name for c in chunks]
    assert [c.name for c in chunks[: len(early)]] == [c.name for c in early]
    assert tuple(e for c in chunks for e in c.entries) == log[:tail]
    assert all(store.CHUNK_MIN <= len(c.entries) <= store.CHUNK_MAX for c in chunks)
    with tempfile.TemporaryDirectory() as folder:
        sidecar = Path(folder)
        for c in chunks:
            (sidecar / c.name).write_text(c.text)
        table = {"files": [c.name for c in chunks], "entries": "\n".join(map(log_line, log[tail:]))}
        assert log_entries(read_log(table, "log", "f.toml", sidecar), "log") == log
