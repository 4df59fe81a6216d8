"""The log's write-once files (``fight.d/log-*.toml``): where a log is cut into sealed chunks,
each chunk's file text and name (after its checksum), and reading them back in order."""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from functools import partial
from pathlib import Path
from typing import Any

from facility_tui.model.codec import DecodeError
from facility_tui.model.encounter import Kind, LogEntry
from facility_tui.model.log import Block, Log, Page
from facility_tui.store.errors import DamagedSave, SaveError
from facility_tui.store.files import read_file
from facility_tui.store.format import (
    LOG_SCHEMA,
    as_list,
    json_rows,
    literal,
    log_entries,
    log_line,
    parse,
    read_sealed,
    sign,
)

CHUNK_NAME = re.compile(r"log-(\d{7,})-r(-?\d+)-([0-9a-f]{16})\.toml")

_CHUNK_BODY = re.compile(
    r'schema_version = 2\nkind = "log"\nstart = (\d+)\ncount = (\d+)\n'
    r"entries = '''\n(.*)\n'''\n",
    re.DOTALL,
)


class Chunk:
    """A sealed block of the log as its write-once file: where it starts, its name, and its
    lines and text, made when first needed. A block read from a file (a ``Page``) keeps the
    file's folder (``folder``, its path ``origin``): its text is the file's."""

    __slots__ = ("_lines", "_text", "block", "folder", "name", "start")

    def __init__(self, start: int, block: Block[LogEntry], name: str, folder: Path | None) -> None:
        self.start = start
        self.block = block
        self.name = name
        self.folder = folder  # (619 files at 50,000 steps: their paths made when wanted)
        self._lines: str | None = None
        self._text: str | None = None

    @property
    def origin(self) -> Path | None:
        return None if self.folder is None else self.folder / self.name

    @classmethod
    def made(cls, start: int, block: Block[LogEntry]) -> Chunk:
        entries = block.entries()
        lines = "\n".join(log_line(e) for e in entries)
        body = (
            f'schema_version = {LOG_SCHEMA}\nkind = "log"\n'
            f"start = {start}\ncount = {len(entries)}\nentries = {literal(lines)}\n"
        )
        text, digest = sign(body)
        name = f"log-{start:07d}-r{entries[0].round:04d}-{digest[:16]}.toml"
        chunk = cls(start, block, name, None)
        chunk._lines, chunk._text = lines, text
        return chunk

    @property
    def entries(self) -> tuple[LogEntry, ...]:
        return self.block.entries()

    @property
    def lines(self) -> str:
        if self._lines is None:
            self._lines = "\n".join(log_line(e) for e in self.block.entries())
        return self._lines

    @property
    def text(self) -> str:
        """The file's text (a page's: read from its file again, not kept)."""
        if self._text is not None:
            return self._text
        assert self.origin is not None
        return read_file(self.origin).decode("utf-8")


def split(log: Log[LogEntry]) -> tuple[list[Chunk], int]:
    """The files of ``log``'s sealed blocks, and where its open tail starts. A block's file is
    made once and kept with it, so a save looks only at the blocks sealed since the last."""
    out: list[Chunk] = []
    start = 0
    for block in log.blocks:
        ch = block.stored
        if not isinstance(ch, Chunk) or ch.start != start:
            ch = block.stored = Chunk.made(start, block)
        out.append(ch)
        start += len(block)
    return out, start


def read_log(table: Any, where: str, source: str, sidecar: Path | None) -> list[Any]:
    """The rows of the log a table refers to, its files read in whole (an older save's)."""
    rows: list[Any] = []
    for path, doc in _files(table, where, source, sidecar):
        if doc.get("start") != len(rows):
            raise DamagedSave(f"{source} is damaged: its log file {path} is out of place")
        found = json_rows(doc.get("entries"), f"{path.name}.entries")
        if doc.get("count") != len(found):
            raise DamagedSave(f"{source} is damaged: its log file {path} has the wrong length")
        rows.extend(found)
    rows.extend(json_rows(table.get("entries", ""), f"{where}.entries"))
    return rows


def pages(table: Any, where: str, source: str, sidecar: Path | None) -> Log[LogEntry]:
    """The log a table refers to, its files read when their entries are needed (``Page``),
    checked then (its checksum is in its name). Opening a 76,000-line log so reads one file,
    the last (its length), and lists the folder once: a file missing refuses the save now, a
    damaged one shows lines that say so when it is read. The table's own entries are the
    open tail."""
    if not isinstance(table, dict):
        raise DecodeError(f"{where}: expected a table")
    names = file_names(table.get("files", []), f"{where}.files")
    starts = []
    for name in names:
        m = CHUNK_NAME.fullmatch(name) if isinstance(name, str) else None
        if m is None:
            raise DecodeError(f"bad log file name {name!r}")
        starts.append(int(m.group(1)))
    blocks: list[Block[LogEntry]] = []
    if names:
        if sidecar is None:
            raise DecodeError(f"{where}: refers to log files; open the save by its path")
        present = _listing(sidecar)
        for name in names:
            if name not in present:
                raise DamagedSave(
                    f"{source} is incomplete: its log file {sidecar / name} is missing; "
                    "it was left untouched"
                )
        last, doc = _read_chunk(sidecar, names[-1], source)
        count = doc.get("count")
        if doc.get("start") != starts[-1] or type(count) is not int or count <= 0:
            raise DamagedSave(f"{source} is damaged: its log file {last} is out of place")
        ends = [*starts[1:], starts[-1] + count]
        if starts[0] != 0 or any(e <= s for s, e in zip(starts, ends, strict=True)):
            raise DamagedSave(f"{source} is damaged: its log files are out of place")
        for name, start, end in zip(names, starts, ends, strict=True):
            load = partial(_page_in, sidecar, name, end - start, source)
            page: Page[LogEntry] = Page(end - start, load)
            page.stored = Chunk(start, page, name, sidecar)
            blocks.append(page)
    tail = log_entries(json_rows(table.get("entries", ""), f"{where}.entries"), f"{where}.entries")
    return Log(tuple(blocks), tail)


def file_names(value: Any, where: str) -> list[Any]:
    """A table's list of log files: one name a line (a main file's own log, faster to read),
    or a TOML array (a kept fight's, a save written before)."""
    if isinstance(value, str):
        return [n for n in value.split("\n") if n]
    return as_list(value, where)


def _listing(sidecar: Path) -> frozenset[str]:
    try:
        return frozenset(os.listdir(sidecar))
    except OSError:
        return frozenset()


def _files(
    table: Any, where: str, source: str, sidecar: Path | None
) -> Iterable[tuple[Path, dict[str, Any]]]:
    if not isinstance(table, dict):
        raise DecodeError(f"{where}: expected a table")
    for name in file_names(table.get("files", []), f"{where}.files"):
        if sidecar is None:
            raise DecodeError(f"{where}: refers to log files; open the save by its path")
        yield _read_chunk(sidecar, name, source)


def _page_in(sidecar: Path, name: str, count: int, source: str) -> tuple[LogEntry, ...]:
    return _page(sidecar / name, count, source)


def _page(path: Path, count: int, source: str) -> tuple[LogEntry, ...]:
    """A page's entries, read from its file and checked (its checksum, its place); a file gone
    or damaged gives lines that say so, never an error in the middle of the fight."""
    try:
        _, doc = _read_chunk(path.parent, path.name, source)
        entries = log_entries(json_rows(doc.get("entries"), path.name), path.name)
        m = CHUNK_NAME.fullmatch(path.name)
        if len(entries) == count and m is not None and doc.get("start") == int(m.group(1)):
            return entries
        problem = "it is out of place or has the wrong length"
    except (SaveError, DecodeError) as err:
        problem = str(err)
    m = CHUNK_NAME.fullmatch(path.name)
    rnd = int(m.group(2)) if m else 0
    said = LogEntry(rnd, f"({count} log lines could not be read again: {problem})", Kind.INFO)
    return (said,) + (LogEntry(rnd, "…", Kind.INFO),) * (count - 1)


def check_chunk(sidecar: Path, name: Any, source: str) -> None:
    """Raise ``DamagedSave`` (``DecodeError``: a bad name) if the log file is missing or is
    not the one its name says (its checksum, its kind)."""
    _read_chunk(sidecar, name, source)


def _read_chunk(sidecar: Path, name: Any, source: str) -> tuple[Path, dict[str, Any]]:
    """A log file's path and its document, checked against its checksum and its name; its
    entries left as text."""
    m = CHUNK_NAME.fullmatch(name) if isinstance(name, str) else None
    if m is None:
        raise DecodeError(f"bad log file name {name!r}")
    path = sidecar / name
    raw, body = read_sealed(path, source, "log file", m.group(3), "; it was left untouched")
    fast = _CHUNK_BODY.fullmatch(body)
    if fast is not None:  # the exact layout ``Chunk.made`` writes: skip the TOML parser
        doc: dict[str, Any] = {
            "kind": "log",
            "start": int(fast.group(1)),
            "count": int(fast.group(2)),
            "entries": fast.group(3),
        }
    else:
        doc = parse(raw, str(path))
    if doc.get("kind") != "log":
        raise DamagedSave(f"{source} is damaged: its log file {path} is out of place")
    return path, doc
