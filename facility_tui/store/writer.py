"""Rendering a session as the main file's text (schema 3): the fight as TOML tables a GM may edit,
the log and the history below the separator, remembering what it formatted so that a save only
formats what changed."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

from facility_tui import __version__
from facility_tui.commands.session import Session, Step
from facility_tui.model.codec import encode, encode_sparse
from facility_tui.model.encounter import Combatant, Encounter, LogEntry
from facility_tui.model.log import Log
from facility_tui.store.format import (
    INTRO,
    bare,
    combatant_text,
    json_line,
    literal,
    log_line,
    sign3,
    table_lines,
    toml_array,
    toml_key,
    toml_lines,
    toml_str,
    toml_value,
)
from facility_tui.store.logfiles import Chunk, split
from facility_tui.store.migrations import SCHEMA_VERSION


# The store's own records are NamedTuples, not attrs classes like the model's: an attrs class
# generates and compiles its methods at every launch (7 of them here, on the path of every launch
# and every ``apply``), a NamedTuple much less (docs/benchmarks.md, 'Start-up and the headless
# commands'); none is evolved or checked.
class Snapshot(NamedTuple):
    """What a save holds, taken from a session in microseconds: immutable values, no copies."""

    encounter: Encounter
    base: Encounter
    undo: tuple[Step, ...]
    redo: tuple[Step, ...]

    @classmethod
    def of(cls, session: Session) -> Snapshot:
        return cls(
            session.encounter,
            session.base,
            tuple(session.undo_steps),
            tuple(session.redo_steps),
        )


class _Rendered(NamedTuple):
    state: str  # the fight, as a GM reads it
    rest: str  # the log and the history
    chunks: tuple[Chunk, ...]  # log files the rest refers to

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

    def state(self, enc: Encounter) -> str:
        """The part of the main file a GM reads and may edit: the encounter and its combatants
        as TOML tables, each written sparsely (only what differs from a fresh one)."""
        data = encode(bare(enc))
        data.pop("log", None)
        data.pop("combatants", None)
        data["state"] = encode_sparse(enc.state)
        head = "\n".join(
            [
                *INTRO,
                f"schema_version = {SCHEMA_VERSION}",
                'kind = "save"',
                f'app = "facility-tui {__version__}"',
                "",
                *table_lines("[encounter]", "encounter", data),
                "",
            ]
        )
        return head + "".join([self._table(c) for c in enc.combatants]) + "\n"

    def _encounter(self, table: str, enc: Encounter) -> str:
        """An encounter in the compact form of the history: TOML, combatants as JSON lines."""
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
        return f"[{table}]\n{toml_array('files', [toml_str(f) for f in files])}" + (
            f"entries = {literal(lines)}\n"
        )

    def render(self, snap: Snapshot, *, inline: bool) -> _Rendered:
        enc, base = snap.encounter, snap.base
        chunks, tail = split(enc.log)
        used = list(chunks)
        n = len(base.log)
        base_is_prefix = enc.log.starts_with(base.log)
        parts = [
            self._log_table("log", chunks, enc.log, tail, inline),
            "\n[history]\n",
            f"base_log = {n}\n" if base_is_prefix else "",
            toml_lines("undo", [self._item(s) for s in snap.undo]),
            toml_lines("redo", [self._item(s) for s in snap.redo]),
            self._encounter("history.base", base),
        ]
        if not base_is_prefix:
            base_chunks, base_tail = split(base.log)
            used.extend(base_chunks)
            parts.append(
                "\n"
                + self._log_table("history.base_rows", base_chunks, base.log, base_tail, inline)
            )
        return _Rendered(self.state(enc), "".join(parts), () if inline else tuple(used))


def dumps(session: Session) -> str:
    """A whole, self-contained save of ``session`` (checksummed, every log entry inline)."""
    return Writer().render(Snapshot.of(session), inline=True).text
