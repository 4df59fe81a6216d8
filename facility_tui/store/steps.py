"""The timeline's write-once files (``fight.d/steps-*.toml``): the tree's nodes in sealed runs of
``STEP_CHUNK`` ids, each file with the whole fights of its nodes at checkpoint depths, named
after its checksum and never rewritten. The main file keeps the newest nodes (fewer than
``STEP_CHUNK``), the list of these files and the small tables, so a save's cost does not grow
with the number of steps, and opening reads no step file: a walk reads the ones it reaches."""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NamedTuple

from facility_tui.commands.session import Step
from facility_tui.commands.timeline import Node
from facility_tui.model.codec import DecodeError, decode, encode
from facility_tui.model.encounter import Encounter
from facility_tui.store.errors import DamagedSave
from facility_tui.store.files import read_file
from facility_tui.store.format import (
    as_list,
    json_line,
    json_rows,
    parse,
    read_sealed,
    read_toml,
)

STEP_CHUNK = 64  # nodes per sealed file: the main file holds fewer than this many
STEPS_NAME = re.compile(r"steps-(\d{7,})-([0-9a-f]{16})\.toml")
# The layout ``writer.Writer.seal`` writes: read without the TOML parser (its fights' tables, with
# their lists of log files, are parsed only when a fight is wanted: ``states_of``)
_HEAD = re.compile(
    r'schema_version = (\d+)\nkind = "steps"\nfirst = (\d+)\ncount = (\d+)\n'
    r"nodes = '''\n(.*?)\n'''\n",
    re.DOTALL,
)


def node_line(node: Node, depth: int) -> str:
    """One node as a line of JSON: ``[id, parent, depth, round, said, step]``; a node read
    from a file writes its step's data as read (what ``encode`` would give it back)."""
    data = node.data if node.data is not None else encode(node.step)
    return json_line([node.id, node.parent, depth, node.round, node.said, data])


def _step_of(data: Any) -> Step:
    return decode(Step, data, where="timeline.nodes")  # type: ignore[no-any-return]


def node_of(row: Any, where: str, *, lazy: bool = False) -> tuple[Node, int]:
    """A node and its depth from its line; ``DecodeError`` if it is not one. ``lazy``: its
    step decoded when first used (a line from a file whose checksum matched: facility-tui
    wrote it, in this schema), the data as read kept for the next save to write again."""
    if not isinstance(row, list) or len(row) != 6:
        raise DecodeError(f"{where}: expected [id, parent, depth, round, said, step]")
    nid, parent, depth, rnd, said, step = row
    if not all(type(v) is int for v in (nid, parent, depth, rnd)) or type(said) is not str:
        raise DecodeError(f"{where}: expected [id, parent, depth, round, said, step]")
    if not 0 <= parent < nid or depth < 1:
        raise DecodeError(f"{where}: node {nid} comes before its parent {parent}")
    if lazy and isinstance(step, dict):
        return Node(nid, parent, None, rnd, said, data=step, load=_step_of), depth
    return Node(nid, parent, decode(Step, step, where=where), rnd, said), depth


class StepChunk:
    """A sealed run of nodes as its write-once file. Made in memory (``rows``, the states of
    its checkpoint nodes: its text is made by ``writer.Writer.seal``) or read from a file
    (``origin``: its text is the file's)."""

    __slots__ = (
        "_origin",
        "count",
        "first",
        "folder",
        "lines",
        "logs",
        "name",
        "rows",
        "states",
        "text_made",
    )

    def __init__(
        self,
        first: int,
        count: int,
        *,
        rows: Sequence[tuple[Node, int]] = (),
        states: Sequence[tuple[int, int, Encounter]] = (),
        name: str = "",
        origin: Path | None = None,
    ) -> None:
        self.first, self.count = first, count
        self.rows, self.states = tuple(rows), tuple(states)
        self.name, self._origin = name, origin
        self.folder: Path | None = None  # (read from a file in it: its path made when wanted)
        self.text_made: str | None = None
        self.logs: tuple[Any, ...] = ()  # the log files its states refer to (``logfiles.Chunk``)
        self.lines: str | None = None  # its nodes' lines, once a backup inlined them

    @property
    def origin(self) -> Path | None:
        if self._origin is None and self.folder is not None:
            self._origin = self.folder / self.name
        return self._origin

    @origin.setter
    def origin(self, path: Path | None) -> None:
        self._origin = path

    @property
    def text(self) -> str:
        if self.text_made is not None:
            return self.text_made
        assert self.origin is not None
        return read_file(self.origin).decode("utf-8")


class Stored(NamedTuple):
    """Where a timeline's nodes are kept: its sealed files, nodes ``1..sealed``."""

    chunks: tuple[StepChunk, ...]
    sealed: int


NO_FILES = Stored((), 0)


def on_disk(names: Any, sealed: int, sidecar: Path | None) -> Stored:
    """The files a main file lists, checked by name only (each is read when a walk needs it):
    runs of nodes from 1 to ``sealed``, in order."""
    chunks: list[StepChunk] = []
    firsts = []
    if isinstance(names, str):  # (one name a line: faster to read than a TOML array)
        names = [n for n in names.split("\n") if n]
    for name in as_list(names, "timeline.files"):
        m = STEPS_NAME.fullmatch(name) if isinstance(name, str) else None
        if m is None:
            raise DecodeError(f"bad step file name {name!r}")
        if sidecar is None:
            raise DecodeError("timeline.files: refers to step files; open the save by its path")
        firsts.append((int(m.group(1)), name))
    ends = [f for f, _ in firsts[1:]] + ([sealed + 1] if firsts else [])
    expected = 1
    for (first, name), end in zip(firsts, ends, strict=True):
        if first != expected or end <= first:
            raise DecodeError(f"step file {name} is out of place")
        assert sidecar is not None
        chunk = StepChunk(first, end - first, name=name)
        chunk.folder = sidecar  # (781 paths at 50,000 steps: made when a file is read)
        chunks.append(chunk)
        expected = end
    if expected != sealed + 1:
        raise DecodeError("timeline.sealed does not match its files")
    return Stored(tuple(chunks), sealed)


def read_steps(chunk: StepChunk, source: str) -> dict[str, Any]:
    """A step file's document, checked against its checksum, its name and its place."""
    path = chunk.origin
    assert path is not None
    m = STEPS_NAME.fullmatch(path.name)
    assert m is not None
    raw, body = read_sealed(path, source, "step file", m.group(2))
    head = _HEAD.match(body)
    if head is not None:
        doc: dict[str, Any] = {
            "kind": "steps",
            "first": int(head.group(2)),
            "count": int(head.group(3)),
            "nodes": head.group(4),
            "rest": body[head.end() :],  # the fights kept, parsed when wanted
        }
    else:
        doc = parse(raw, str(path))
    if doc.get("kind") != "steps" or doc.get("first") != chunk.first:
        raise DamagedSave(f"{source} is damaged: its step file {path} is out of place")
    return doc


def rows_of(doc: dict[str, Any], chunk: StepChunk) -> list[tuple[Node, int]]:
    where = chunk.name
    # (a step file is read whole and its checksum checked: ``read_steps``)
    rows = [node_of(r, f"{where}.nodes", lazy=True) for r in json_rows(doc.get("nodes", ""), where)]
    if [n.id for n, _ in rows] != list(range(chunk.first, chunk.first + chunk.count)):
        raise DecodeError(f"{where}: its nodes are not {chunk.first}..")
    return rows


def states_of(doc: dict[str, Any], where: str) -> list[dict[str, Any]]:
    if "rest" in doc:
        doc["states"] = read_toml(doc.pop("rest")).get("states", [])
    return [s for s in as_list(doc.get("states", []), f"{where}.states") if isinstance(s, dict)]
