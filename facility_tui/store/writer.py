"""Rendering a session as the main file's text (schema 4): the fight as TOML tables a GM may edit,
the log and the timeline below the separator, and the timeline's sealed step files
(``steps``), remembering what it formatted so that a save only formats what changed."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

from facility_tui import __version__
from facility_tui.commands import timeline
from facility_tui.commands.session import Session, run_step
from facility_tui.commands.timeline import ROOT, Node, Timeline
from facility_tui.model.codec import encode, encode_sparse
from facility_tui.model.encounter import Combatant, Encounter, LogEntry
from facility_tui.model.log import Log
from facility_tui.store import steps
from facility_tui.store.format import (
    INTRO,
    bare,
    combatant_text,
    json_line,
    literal,
    log_line,
    sign,
    sign3,
    table_lines,
    toml_array,
    toml_key,
    toml_lines,
    toml_value,
)
from facility_tui.store.logfiles import Chunk, split
from facility_tui.store.migrations import SCHEMA_VERSION
from facility_tui.store.steps import NO_FILES, StepChunk, Stored, node_line, read_steps


# The store's own records are NamedTuples, not attrs classes like the model's: an attrs class
# generates and compiles its methods at every launch (7 of them here, on the path of every launch
# and every ``apply``), a NamedTuple much less (docs/benchmarks.md, 'Start-up and the headless
# commands'); none is evolved or checked.
class Snapshot(NamedTuple):
    """What a save holds, taken from a session in microseconds: immutable values, no copies."""

    encounter: Encounter
    root: Encounter  # the fight before the first step
    current: int
    names: tuple[tuple[int, str], ...]
    hidden: tuple[int, ...]
    walked: tuple[tuple[int, int], ...]  # redo's choices that differ from the newest child
    tail: tuple[tuple[Node, int], ...]  # the nodes not sealed yet, with their depths
    stored: Stored  # the sealed files (those made here are written with the save)
    anchor: tuple[int, int, Encounter] | None  # the checkpoint nearest above the current node

    @classmethod
    def of(cls, session: Session) -> Snapshot:
        tl = session.timeline
        stored = sealed(tl)
        cur = tl.current
        anchor = None
        depth = tl.depth(cur) if cur != ROOT else 0
        every = timeline.CHECKPOINT_EVERY
        at = ((depth - 1) // every) * every if depth else 0
        if at:
            nid = cur
            for _ in range(depth - at):
                nid = tl.parent(nid)
            anchor = (nid, at, tl.state_at(nid, run_step))
        return cls(
            session.encounter,
            tl.root,
            cur,
            tuple(sorted(tl.names.items())),
            tuple(sorted(tl.hidden)),
            tuple(sorted(tl.walked_kept().items())),
            tuple((tl.node(i), tl.depth(i)) for i in range(stored.sealed + 1, tl.last_id + 1)),
            stored,
            anchor,
        )


def sealed(tl: Timeline) -> Stored:
    """The timeline's sealed files, new ones made for each full run of ``STEP_CHUNK`` nodes
    (with the fights of its checkpoint nodes); kept on the timeline, so each is made once."""
    stored = tl.stored if isinstance(tl.stored, Stored) else NO_FILES
    last = tl.last_id
    size, every = steps.STEP_CHUNK, timeline.CHECKPOINT_EVERY  # (read here: tests make them small)
    while last - stored.sealed >= size:
        first = stored.sealed + 1
        rows = [(tl.node(i), tl.depth(i)) for i in range(first, first + size)]
        states = [(n.id, d, tl.state_at(n.id, run_step)) for n, d in rows if d % every == 0]
        made = StepChunk(first, size, rows=rows, states=states)
        stored = Stored((*stored.chunks, made), first + size - 1)
    tl.stored = stored
    return stored


class _Rendered(NamedTuple):
    state: str  # the fight, as a GM reads it
    rest: str  # the log and the timeline
    chunks: tuple[Chunk | StepChunk, ...]  # log and step files the rest refers to, in order

    @property
    def text(self) -> str:
        return sign3(self.state, self.rest)


class Writer:
    """Renders documents; remembers the text of each combatant, step and log entry it wrote.

    Combatants, steps and log entries are immutable and shared between successive encounters,
    so a save only formats the few that changed. Texts are keyed by object identity and form
    (the object is kept, so its id cannot be reused) and forgotten when a save no longer uses
    them.
    """

    def __init__(self) -> None:
        self._lines: dict[tuple[int, int], tuple[object, str]] = {}
        self._used: dict[tuple[int, int], tuple[object, str]] = {}
        # the tables of the save last read (``remember``): replaced by each read, so a view
        # that reads a save again at each of its writer's autosaves keeps only the newest
        self._read: dict[tuple[int, int], tuple[object, str]] = {}

    def _cached(self, obj: object, make: Any, form: int = 0) -> str:
        key = (id(obj), form)
        hit = self._lines.get(key) or self._used.get(key) or self._read.get(key)
        if hit is None or hit[0] is not obj:
            hit = (obj, make(obj))
        self._used[key] = hit
        return hit[1]

    def remember(self, tables: Sequence[tuple[Combatant, str]]) -> None:
        """Take each combatant's table as read from the file (``reader.tables``)."""
        self._read = {(id(c), 4): (c, text) for c, text in tables}

    def forget_unused(self) -> None:
        self._lines, self._used, self._read = self._used, {}, {}

    def _item(self, obj: object) -> str:
        return self._cached(obj, lambda o: json_line(encode(o)), 1)

    def _sparse_item(self, obj: object) -> str:
        return self._cached(obj, lambda o: json_line(encode_sparse(o)), 2)

    def _entry(self, entry: LogEntry) -> str:
        return self._cached(entry, log_line, 3)

    def _table(self, c: object) -> str:
        return self._cached(c, combatant_text, 4)

    def state(self, enc: Encounter, schema: int = SCHEMA_VERSION) -> str:
        """The part of the main file a GM reads and may edit: the encounter and its combatants
        as TOML tables, each written sparsely (only what differs from a fresh one)."""
        data = encode(bare(enc))
        data.pop("log", None)
        data.pop("combatants", None)
        data["state"] = encode_sparse(enc.state)
        head = "\n".join(
            [
                *INTRO,
                f"schema_version = {schema}",
                'kind = "save"',
                f'app = "facility-tui {__version__}"',
                "",
                *table_lines("[encounter]", "encounter", data),
                "",
            ]
        )
        return head + "".join([self._table(c) for c in enc.combatants]) + "\n"

    def _node(self, node: Node, depth: int) -> str:
        return self._cached(node, lambda n: node_line(n, depth), 5)

    def _encounter(self, table: str, enc: Encounter) -> str:
        """An encounter in the compact form of the timeline: TOML, combatants as JSON lines."""
        data = encode(bare(enc))
        data.pop("log", None)
        data.pop("combatants", None)
        state = data.pop("state", {})
        lines = [f"\n[{table}]\n"]
        lines.extend(f"{toml_key(k)} = {toml_value(v)}\n" for k, v in data.items())
        lines.append(f"state = {toml_value(state)}\n")
        lines.append(toml_lines("combatants", [self._sparse_item(c) for c in enc.combatants]))
        return "".join(lines)

    def _log_table(
        self,
        table: str,
        chunks: Sequence[Chunk],
        log: Log[LogEntry],
        tail: int,
        inline: bool,
    ) -> str:
        tail_lines = "\n".join([self._entry(e) for e in log[tail:]])
        files: list[str] = []
        if inline:
            lines = "\n".join([*(c.lines for c in chunks), tail_lines])
        else:
            files = [c.name for c in chunks]
            lines = tail_lines
        if table == "log" and files:  # the save's own: one a line, read at every open
            listed = toml_lines("files", files)
        else:  # (the names are ours: letters, digits, - and .)
            listed = toml_array("files", [f'"{f}"' for f in files])
        return f"[{table}]\n{listed}" + (f"entries = {literal(lines)}\n")

    def _state(
        self,
        table: str,
        nid: int,
        depth: int,
        enc: Encounter,
        log: Log[LogEntry] | None,
        inline: bool = False,
    ) -> tuple[str, list[Chunk]]:
        """A kept fight (a checkpoint) as one of ``[[table]]``: its node, its fight, and its log:
        the first ``log_prefix`` entries of ``log`` (the save's) where it is one, else its
        own files and entries."""
        head = f"\n[[{table}]]\nnode = {nid}\ndepth = {depth}\n"
        if log is not None and log.starts_with(enc.log):
            return head + f"log_prefix = {len(enc.log)}\n" + self._encounter(
                f"{table}.fight", enc
            ), []
        chunks, tail = split(enc.log)
        own = "\n" + self._log_table(f"{table}.log", chunks, enc.log, tail, inline)
        return head + self._encounter(f"{table}.fight", enc) + own, list(chunks)

    def seal(self, ch: StepChunk) -> None:
        """Make a new step file's text and name (its nodes, the fights of its checkpoints)."""
        parts = [
            f'schema_version = {SCHEMA_VERSION}\nkind = "steps"\n'
            f"first = {ch.first}\ncount = {ch.count}\n",
            toml_lines("nodes", [self._node(n, d) for n, d in ch.rows]),
        ]
        logs: list[Chunk] = []
        for nid, depth, enc in ch.states:
            text, used = self._state("states", nid, depth, enc, None)
            parts.append(text)
            logs.extend(used)
        text, digest = sign("".join(parts))
        ch.name, ch.logs = f"steps-{ch.first:07d}-{digest[:16]}.toml", tuple(logs)
        ch.text_made = text

    def _sealed_lines(self, ch: StepChunk) -> str:
        """A sealed file's nodes as lines (each backup inlines them all: made once)."""
        if ch.lines is None:
            if ch.rows:
                ch.lines = "\n".join(node_line(n, d) for n, d in ch.rows)
            else:
                ch.lines = read_steps(ch, ch.name)["nodes"].strip("\n")
        return ch.lines

    def render(self, snap: Snapshot, *, inline: bool) -> _Rendered:
        """The main file's text and the files it refers to; ``inline``: none, every log entry
        and step in it (a backup, ``dumps``: whole and self-contained)."""
        enc, root = snap.encounter, snap.root
        chunks, tail = split(enc.log)
        used: list[Chunk | StepChunk] = [] if inline else list(chunks)
        nodes = [self._node(n, d) for n, d in snap.tail]
        if inline:
            files, sealed_to = [], 0
            nodes = [self._sealed_lines(ch) for ch in snap.stored.chunks] + nodes
        else:
            for ch in snap.stored.chunks:
                if ch.text_made is None and ch.folder is None and ch.origin is None:
                    self.seal(ch)
            files, sealed_to = [ch.name for ch in snap.stored.chunks], snap.stored.sealed
        root_is_prefix = enc.log.starts_with(root.log)
        parts = [
            self._log_table("log", chunks, enc.log, tail, inline),
            "\n[timeline]\n",
            f"current = {snap.current}\n",
            f"sealed = {sealed_to}\n",
            toml_lines("files", files),
            f"root_log = {len(root.log)}\n" if root_is_prefix else "",
            f"hidden = {toml_value(list(snap.hidden))}\n",
            toml_lines("names", [json_line([k, v]) for k, v in snap.names]),
            toml_lines("walked", [json_line([k, v]) for k, v in snap.walked]),
            toml_lines("nodes", nodes),
            self._encounter("timeline.root", root),
        ]
        if not root_is_prefix:
            root_chunks, root_tail = split(root.log)
            used.extend(() if inline else root_chunks)
            parts.append(
                "\n"
                + self._log_table("timeline.root_rows", root_chunks, root.log, root_tail, inline)
            )
        if snap.anchor is not None:
            text, own = self._state("timeline.states", *snap.anchor, enc.log, inline)
            parts.append(text)
            used.extend(() if inline else own)
        if files:
            used.extend(snap.stored.chunks)  # (each written after the log files it refers to)
        return _Rendered(self.state(enc), "".join(parts), tuple(used))


def dumps(session: Session) -> str:
    """A whole, self-contained save of ``session`` (checksummed, every log entry inline)."""
    return Writer().render(Snapshot.of(session), inline=True).text
