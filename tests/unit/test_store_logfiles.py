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
from facility_tui.model import log as logseq
from facility_tui.model.encounter import LogEntry
from facility_tui.model.log import Log
from facility_tui.store import logfiles
from facility_tui.store.format import log_entries, log_line, read_toml
from facility_tui.store.logfiles import pages, read_log, split
from facility_tui.store.reader import split3
from tests.unit.test_store_format import long_fight, same


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
    assert path.stat().st_size < main_size + 5 * 300  # (five steps more in it, no log line)
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
    old_branch = {p.name for p in (tmp_path / "f.d").glob("log-*.toml")}
    store.save(s, path)
    same(store.load(path), s)
    assert old_branch <= {p.name for p in (tmp_path / "f.d").glob("log-*.toml")}
    loaded = store.load(path)  # the old branch is kept, its log with it (issue 38)
    assert loaded.state_at(min(loaded.timeline.tips())) == long_fight(30).encounter


def test_new_encounter_inside_history_keeps_old_log_out_of_the_main_file(tmp_path: Path) -> None:
    path = tmp_path / "f.toml"
    s = long_fight(40)
    s.apply("new facility Depot seed=4")
    while s.timeline.depth(s.timeline.current) % 64 < 2:  # (a checkpoint before the new one)
        s.apply("add Tech side=pc")
    store.save(s, path)
    loaded = store.load(path)
    same(loaded, s)
    kept = path.read_text().split("[timeline.states.log]")[1]  # the kept fight's own log
    assert "files = [\n" in kept and len(kept.splitlines()) < store.CHUNK_MAX + 50
    while loaded.can_undo():
        loaded.undo()
        s.undo()
    assert loaded.encounter == s.encounter


def test_damaged_or_missing_log_file(tmp_path: Path) -> None:
    """Opening checks the log files by name (a missing one refuses the save) and reads only
    the last (its length); a damaged one is found when its lines are read, and says so."""
    path = tmp_path / "f.toml"
    store.save(long_fight(40), path)
    logs = sorted((tmp_path / "f.d").glob("log-*.toml"))
    assert len(logs) >= 3
    logs[0].write_bytes(logs[0].read_bytes()[:-20])
    logseq._PAGES.clear()
    s = store.load(path)
    assert "could not be read again" in s.encounter.log[0].text
    assert logs[0].name in s.encounter.log[0].text
    assert len(s.encounter.log) == len(long_fight(40).encounter.log)
    logs[-1].write_bytes(logs[-1].read_bytes()[:-20])
    with pytest.raises(store.DamagedSave, match="log file"):
        store.load(path)
    logs[1].unlink()
    with pytest.raises(store.DamagedSave, match="missing"):
        store.load(path)


def test_opening_reads_one_log_file_whatever_the_log(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A long log's files are not each read and checked as the save opens: only the last one
    (its length); the others when their lines are wanted."""
    path = tmp_path / "f.toml"
    store.save(long_fight(60), path)
    table = read_toml(split3(path.read_bytes(), "f.toml").rest)  # (the main file's [log])
    read: list[str] = []
    real = logfiles._read_chunk

    def counted(sidecar: Path, name: object, source: str) -> tuple[Path, dict[str, object]]:
        read.append(str(name))
        return real(sidecar, name, source)

    monkeypatch.setattr(logfiles, "_read_chunk", counted)
    names = table["log"]["files"].split()  # (one name a line)
    assert len(names) >= 5
    log = pages(table["log"], "log", "f.toml", tmp_path / "f.d")
    assert read == [names[-1]]
    assert log == long_fight(60).encounter.log


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
    a log grown a few lines at a time splits as the whole log made at once, a shorter log's
    files are the first files of the longer one (so a file is never rewritten), and the files
    and the open tail read back are the log, read whole or as pages."""
    entries = log_of(runs)
    grown: Log[LogEntry] = Log()
    cut = data.draw(st.integers(0, len(entries)))
    early = None
    while len(grown) < len(entries):
        if early is None and len(grown) >= cut:
            early = grown.head(cut)
        step = data.draw(st.integers(1, 40))
        grown = grown + entries[len(grown) : len(grown) + step]
    early = grown.head(cut) if early is None else early
    log = Log.of(entries)
    chunks, tail = split(log)
    assert [c.name for c in split(grown)[0]] == [c.name for c in chunks]
    assert [c.name for c in chunks[: len(split(early)[0])]] == [c.name for c in split(early)[0]]
    assert tuple(e for c in chunks for e in c.entries) == entries[:tail]
    assert all(store.CHUNK_MIN <= len(c.entries) <= store.CHUNK_MAX for c in chunks)
    assert grown == log and tuple(early) == entries[:cut]
    with tempfile.TemporaryDirectory() as folder:
        sidecar = Path(folder)
        for c in chunks:
            (sidecar / c.name).write_text(c.text)
        table = {
            "files": [c.name for c in chunks],
            "entries": "\n".join(map(log_line, entries[tail:])),
        }
        assert log_entries(read_log(table, "log", "f.toml", sidecar), "log") == entries
        paged = pages(table, "log", "f.toml", sidecar)
        assert paged == log and tuple(reversed(paged)) == entries[::-1]
        assert [c.name for c in split(paged)[0]] == [c.name for c in chunks]


def test_opening_reads_only_the_open_tail_and_pages_the_rest(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Opening a long fight checks its log files but reads their lines only when they are
    wanted (scrolling back, a report); the history's states share the pages, and a later save
    writes no log file again."""
    path = tmp_path / "f.toml"
    long = long_fight(60)
    long.limit = 40  # a history that reaches back only so far, as a long campaign's does
    long.apply("roll 2d6")
    store.save(long, path)
    read: list[str] = []
    real = logfiles._page

    def counted(p: Path, count: int, source: str) -> tuple[LogEntry, ...]:
        read.append(p.name)
        return real(p, count, source)

    monkeypatch.setattr(logfiles, "_page", counted)
    logseq._PAGES.clear()
    s = store.load(path)
    # Only the pages the timeline's check made again are read (to compare): those from where
    # the fight kept nearest the current one ends; the fights replayed from it share the pages.
    at_open = list(read)
    depth = s.timeline.depth(s.timeline.current)
    after = s.states[-((depth - 1) % 64 + 1) :]
    since = len(after[0].log) - store.CHUNK_MAX
    assert all(int(name[4:11]) >= since for name in at_open)
    assert len(read) < len(list((tmp_path / "f.d").glob("log-*.toml")))
    pages_of = {id(b) for b in s.encounter.log.blocks}
    assert all(id(b) in pages_of for st_ in after for b in st_.log.blocks[:-2])
    stamps = {p.name: p.stat().st_mtime_ns for p in (tmp_path / "f.d").glob("log-*.toml")}
    s.apply("roll 2d6")
    store.save(s, path)
    assert {p.name: p.stat().st_mtime_ns for p in (tmp_path / "f.d").glob("log-*.toml")} == stamps
    assert [e.text for e in s.encounter.log][:3] == [e.text for e in long_fight(40).encounter.log][
        :3
    ]
    assert read  # the first lines were read when wanted


def test_a_log_file_gone_after_opening_shows_a_line_not_an_error(tmp_path: Path) -> None:
    path = tmp_path / "f.toml"
    store.save(long_fight(40), path)
    s = store.load(path)
    logseq._PAGES.clear()
    first = sorted((tmp_path / "f.d").glob("log-*.toml"))[0]
    first.unlink()
    line = s.encounter.log[0]
    assert "could not be read again" in line.text and first.name in line.text
    assert len(s.encounter.log) == len(long_fight(40).encounter.log)
