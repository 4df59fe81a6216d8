"""The log's write-once files (``fight.d/log-*.toml``): where a log is cut into sealed chunks,
each chunk's file text and name (after its checksum), and reading them back in order."""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any, NamedTuple

from facility_tui.codec import DecodeError
from facility_tui.model import LogEntry
from facility_tui.store.errors import DamagedSave, SaveError
from facility_tui.store.files import read_file
from facility_tui.store.format import (
    LOG_SCHEMA,
    MAGIC,
    as_list,
    json_rows,
    literal,
    log_line,
    parse,
    sign,
    unsign,
)

CHUNK_MIN = 64  # a log file closes at the first round change after this many entries...
CHUNK_MAX = 256  # ...or at this many

CHUNK_NAME = re.compile(r"log-(\d{7,})-r(-?\d+)-([0-9a-f]{16})\.toml")

_CHUNK_BODY = re.compile(
    r'schema_version = 2\nkind = "log"\nstart = (\d+)\ncount = (\d+)\n'
    r"entries = '''\n(.*)\n'''\n",
    re.DOTALL,
)


class Chunk(NamedTuple):
    """A sealed run of log entries and the text of its write-once file."""

    start: int
    entries: tuple[LogEntry, ...]
    lines: str
    name: str
    text: str


def _make_chunk(start: int, entries: tuple[LogEntry, ...]) -> Chunk:
    lines = "\n".join(log_line(e) for e in entries)
    body = (
        f'schema_version = {LOG_SCHEMA}\nkind = "log"\n'
        f"start = {start}\ncount = {len(entries)}\nentries = {literal(lines)}\n"
    )
    text, digest = sign(body)
    name = f"log-{start:07d}-r{entries[0].round:04d}-{digest[:16]}.toml"
    return Chunk(start, entries, lines, name, text)


def _boundary(count: int, prev: LogEntry, cur: LogEntry) -> bool:
    """Whether ``cur`` starts a new log file after ``count`` entries ending with ``prev``."""
    return count >= CHUNK_MAX or (count >= CHUNK_MIN and cur.round != prev.round)


class Chunker:
    """Splits logs into sealed chunks, remembering them so that a save only looks at the tail.

    The split is a function of the log alone (greedy from the start, see ``_boundary``), so a log
    that grew by appending keeps its earlier chunks, and their files never change.
    """

    def __init__(self) -> None:
        self.known: dict[int, list[Chunk]] = {}

    def split(self, log: tuple[LogEntry, ...]) -> tuple[list[Chunk], int]:
        """The sealed chunks that cover ``log[:n]`` and ``n``; the rest is the open tail."""
        out: list[Chunk] = []
        pos, size = 0, len(log)
        while True:
            for ch in self.known.get(pos, ()):
                end = pos + len(ch.entries)
                if (
                    end < size
                    and log[pos:end] == ch.entries
                    and _boundary(len(ch.entries), log[end - 1], log[end])
                ):
                    out.append(ch)
                    pos = end
                    break
            else:
                break
        start = pos
        for i in range(pos + 1, size):
            if _boundary(i - start, log[i - 1], log[i]):
                ch = _make_chunk(start, log[start:i])
                self.known.setdefault(start, []).append(ch)
                out.append(ch)
                start = i
        return out, start

    def keep(self, used: Iterable[Chunk]) -> None:
        known: dict[int, list[Chunk]] = {}
        for ch in used:
            same = known.setdefault(ch.start, [])
            if not any(c is ch for c in same):
                same.append(ch)
        self.known = known


def read_log(table: Any, where: str, source: str, sidecar: Path | None) -> list[Any]:
    if not isinstance(table, dict):
        raise DecodeError(f"{where}: expected a table")
    rows: list[Any] = []
    for name in as_list(table.get("files", []), f"{where}.files"):
        if sidecar is None:
            raise DecodeError(f"{where}: refers to log files; open the save by its path")
        rows.extend(_read_chunk(sidecar, name, len(rows), source))
    rows.extend(json_rows(table.get("entries", ""), f"{where}.entries"))
    return rows


def _read_chunk(sidecar: Path, name: Any, start: int, source: str) -> list[Any]:
    m = CHUNK_NAME.fullmatch(name) if isinstance(name, str) else None
    if m is None:
        raise DecodeError(f"bad log file name {name!r}")
    path = sidecar / name
    try:
        raw = read_file(path)
    except SaveError as err:
        if not os.path.lexists(path):
            raise DamagedSave(
                f"{source} is incomplete: its log file {path} is missing; it was left untouched"
            ) from None
        raise DamagedSave(f"{source} cannot be read whole: {err}") from None
    if not raw.startswith(MAGIC + m.group(3).encode()):
        raise DamagedSave(f"{source} is damaged: its log file {path} is not the one it refers to")
    try:
        body, _ = unsign(raw, f"its log file {path}")
    except DamagedSave as err:
        raise DamagedSave(f"{source} cannot be read whole: {err}") from None
    fast = _CHUNK_BODY.fullmatch(body)
    if fast is not None:  # the exact layout ``_make_chunk`` writes: skip the TOML parser
        doc: dict[str, Any] = {
            "kind": "log",
            "start": int(fast.group(1)),
            "count": int(fast.group(2)),
            "entries": fast.group(3),
        }
    else:
        doc = parse(raw, str(path))
    if doc.get("kind") != "log" or doc.get("start") != start:
        raise DamagedSave(f"{source} is damaged: its log file {path} is out of place")
    rows = json_rows(doc.get("entries"), f"{name}.entries")
    if doc.get("count") != len(rows):
        raise DamagedSave(f"{source} is damaged: its log file {path} has the wrong length")
    return rows
