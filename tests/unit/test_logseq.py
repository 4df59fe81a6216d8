"""The log as a persistent sequence (``facility_tui/model/log.py``): whatever way it was grown, it
reads as the tuple of its entries, shares its blocks with the logs it grew from, and reads a
page from its file only when an entry of it is wanted, keeping only the latest pages."""

from __future__ import annotations

import pickle

from hypothesis import given, settings
from hypothesis import strategies as st

from facility_tui.model import log as logseq
from facility_tui.model.encounter import Encounter, LogEntry
from facility_tui.model.log import CHUNK_MAX, CHUNK_MIN, Log, Page


def entries_of(runs: list[int]) -> tuple[LogEntry, ...]:
    return tuple(LogEntry(r, f"{r}.{n}") for r, size in enumerate(runs) for n in range(size))


runs_st = st.lists(st.integers(1, 300), max_size=5)


@settings(max_examples=80, deadline=None)
@given(runs=runs_st, data=st.data())
def test_a_log_reads_as_the_tuple_of_its_entries(runs: list[int], data: st.DataObject) -> None:
    entries = entries_of(runs)
    log: Log[LogEntry] = Log()
    while len(log) < len(entries):
        n = data.draw(st.integers(1, 50))
        log = log + entries[len(log) : len(log) + n]
    assert log == entries and len(log) == len(entries) and tuple(log) == entries
    assert list(reversed(log)) == list(reversed(entries))
    if entries:
        i = data.draw(st.integers(-len(entries), len(entries) - 1))
        assert log[i] == entries[i]
    a = data.draw(st.integers(-len(entries) - 2, len(entries) + 2))
    b = data.draw(st.integers(-len(entries) - 2, len(entries) + 2))
    assert log[a:b] == entries[a:b]
    assert log[a:b:3] == entries[a:b:3]
    n = data.draw(st.integers(0, len(entries)))
    head = log.head(n)
    assert head == entries[:n] and log.starts_with(head) and log.starts_with(entries[:n])
    assert head + entries[n:] == log  # a head grown again is the same log, split the same
    assert [len(b) for b in (head + entries[n:]).blocks] == [len(b) for b in log.blocks]
    assert all(CHUNK_MIN <= len(b) <= CHUNK_MAX for b in log.blocks)
    assert pickle.loads(pickle.dumps(log)) == log


def test_a_log_grown_from_another_shares_its_blocks() -> None:
    long = Log.of(entries_of([200, 200, 200]))
    more = long.extended((LogEntry(3, "next"),))
    assert more.blocks[: len(long.blocks)] == long.blocks
    assert all(a is b for a, b in zip(long.blocks, more.blocks, strict=False))
    assert more != long and not more.starts_with(Log.of((LogEntry(0, "other"),)))


def test_an_encounter_takes_any_sequence_as_its_log() -> None:
    enc = Encounter("x", "2297", log=(LogEntry(0, "a"),))
    assert isinstance(enc.log, Log) and enc.log == (LogEntry(0, "a"),)
    assert enc.logged("b").log == (LogEntry(0, "a"), LogEntry(0, "b"))
    assert enc == Encounter("x", "2297", log=[LogEntry(0, "a")])


def test_a_page_is_read_when_needed_and_only_the_latest_are_kept() -> None:
    reads: list[int] = []

    def page(i: int) -> Page[LogEntry]:
        def load() -> tuple[LogEntry, ...]:
            reads.append(i)
            return tuple(LogEntry(i, f"{i}.{n}") for n in range(100))

        return Page(100, load)

    log: Log[LogEntry] = Log(tuple(page(i) for i in range(logseq.PAGES_KEPT + 10)), ())
    assert len(log) == 100 * (logseq.PAGES_KEPT + 10) and reads == []
    assert log[250].text == "2.50" and reads == [2]
    assert log[299].text == "2.99" and reads == [2]  # kept: not read again
    assert sum(1 for _ in log) == len(log)
    assert len(logseq._PAGES) <= logseq.PAGES_KEPT
    reads.clear()
    assert log[250].text == "2.50" and reads == [2]  # let go of since: read again


def test_two_threads_reading_pages_at_once_get_their_entries() -> None:
    """The app reads pages while the autosave's thread writes a backup of the whole log."""
    import threading

    def page(i: int) -> Page[LogEntry]:
        return Page(10, lambda: tuple(LogEntry(i, f"{i}.{n}") for n in range(10)))

    log: Log[LogEntry] = Log(tuple(page(i) for i in range(3 * logseq.PAGES_KEPT)), ())
    wrong: list[BaseException] = []

    def read_all() -> None:
        try:
            for _ in range(20):
                assert [e.text for e in log][::10] == [f"{i}.0" for i in range(len(log.blocks))]
        except BaseException as err:
            wrong.append(err)

    threads = [threading.Thread(target=read_all) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert wrong == []
