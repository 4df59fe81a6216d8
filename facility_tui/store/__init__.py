"""Saving and loading sessions: checksummed TOML, written atomically, with write-once log files.

A save is addressed by one path, ``fight.toml``; next to it lives the folder ``fight.d/``. The main
file holds the current encounter (without its log), the end of the log, and the undo/redo history.
The rest of the log sits in ``fight.d/log-*.toml`` files of a few dozen to a few hundred entries
each: a log file is written once, when its entries are sealed, named after its checksum and never
rewritten. So the cost of a save depends on the combatants, the history and the current round, not
on how long the fight has run. ``fight.d/backup-*.toml`` are whole, self-contained copies taken when
the round changes, when a hand edit is accepted and when the app closes (the last
``BACKUPS_KEPT``); ``newest_good`` offers them (or the fight as last written, rebuilt from a refused
file's own history) once the GM is asked, never unasked.

Every file starts with a line ``#facility-tui sha256=<hex>`` over the rest of its bytes, which the
loader verifies before parsing: an empty, truncated or changed file is refused (``DamagedSave``),
never read as a blank or partial fight. Log entries are stored as one JSON array per line inside a
TOML literal string: still a TOML file anyone can read, and ten times faster to load than tables.

Writes never leave a half file: the text is serialized first, written to a temporary file in the
same folder, fsynced, moved over the old file with ``os.replace`` and the folder fsynced. Log files
go first, the main file next, the backup last, so a crash at any moment leaves a loadable save.

The on-disk layout is described in ``docs/save-format.md``; older versions load through
``migrations``. History is the oldest encounter undo can reach (``history.base``) plus the steps
from there; loading replays them with their recorded dice and checks they arrive at the saved
encounter, else the fight loads without its history.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import re
import stat
import threading
import time
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any, NamedTuple

from facility_tui import __version__
from facility_tui.codec import DecodeError, decode, encode, encode_sparse
from facility_tui.handedit import encounter_from
from facility_tui.model import Encounter, Kind, LogEntry, Phase, TableDice
from facility_tui.session import Session, Step, run_step
from facility_tui.store.atomic import _HINTS, TEMP_PREFIX, _write_error, sweep_temp, write_atomic
from facility_tui.store.errors import (
    ChangedOnDisk,
    DamagedSave,
    InvalidSave,
    NewerSave,
    SaveError,
    SaveHeld,
    _Invalid,
)
from facility_tui.store.files import (
    MAX_SAVE_BYTES,
    NAME_MAX,
    SIDECAR_SUFFIX,
    SUFFIX,
    _kind_of,
    _read,
    _same_file,
    _signature_of,
    file_signature,
    in_use,
    list_saves,
    path_for,
    read_regular,
    sidecar_for,
)
from facility_tui.systems import DEFAULT, ids, rules_for

SCHEMA_VERSION = 3
LOG_SCHEMA = 2  # log files (``log-*.toml``) keep the layout of schema 2: old ones stay valid


BACKUPS_KEPT = 8  # whole copies: round changes, hand edits accepted, the app closing


CHUNK_MIN = 64  # a log file closes at the first round change after this many entries...
CHUNK_MAX = 256  # ...or at this many

_MAGIC = b"#facility-tui sha256="
_HEADER = re.compile(rb"#facility-tui sha256=([0-9a-f]{64})\r?")
_CHUNK_NAME = re.compile(r"log-(\d{7,})-r(-?\d+)-([0-9a-f]{16})\.toml")
_BACKUP_NAME = re.compile(r"backup-(\d{6,})-r(-?\d+)\.toml")
_CHUNK_BODY = re.compile(
    r'schema_version = 2\nkind = "log"\nstart = (\d+)\ncount = (\d+)\n'
    r"entries = '''\n(.*)\n'''\n",
    re.DOTALL,
)
_KINDS = {k.value: k for k in Kind}
# What data of the wrong shape raises while decoding (DecodeError, MigrationError and CommandError
# are ValueErrors); anything else, an ImportError say, is a bug and must not pass for damage.
_SHAPE_ERRORS = (ValueError, TypeError, KeyError, IndexError, AttributeError, RecursionError)


def encounter_data(enc: Encounter, *, with_log: bool = True) -> dict[str, Any]:
    data: dict[str, Any] = encode(enc) if with_log else encode(_without_log(enc))
    if not with_log:
        data.pop("log", None)
    return data


def _without_log(enc: Encounter) -> Encounter:
    from attrs import evolve

    return evolve(enc, log=()) if enc.log else enc


MAX_ROUND = 1_000_000  # far beyond any fight (a round a second for eleven days)
MAX_ROLLS = 10**12  # dice rolls of one encounter
_REQUIRED = ("name", "system", "seed", "rolls", "phase", "round", "turn", "order", "state")
_PHASES = {p.value for p in Phase}
_TABLE_DICE = {t.value for t in TableDice}


def _whole(value: Any) -> bool:
    return type(value) is int


def _check_encounter(data: Any, where: str, combatants_at: str | None = None) -> None:
    """Refuse (``_Invalid``, naming the key) an encounter table that is not a fight this code
    made: every key present with its type, numbers in range, the turn inside the order, the
    combatants a list of tables with an id and a name, ids unique. Checked on the resolved
    document (the combatants already read from their lines), before anything is decoded."""
    if not isinstance(data, dict):
        raise _Invalid(f"{where} must be a table")
    for key in (*_REQUIRED, "combatants"):
        if key not in data:
            raise _Invalid(f"{where}.{key} is missing")
    texts = {"name": data["name"], "system": data["system"], "phase": data["phase"]}
    for key, value in texts.items():
        if not isinstance(value, str):
            raise _Invalid(f"{where}.{key} must be text, got {_shown(value)}")
    if data["system"] not in ids():
        known = " or ".join(ids())
        raise _Invalid(f"{where}.system must be {known}, got {_shown(data['system'])}")
    if data["phase"] not in _PHASES:
        known = ", ".join(p.value for p in Phase)
        raise _Invalid(f"{where}.phase must be one of {known}, got {_shown(data['phase'])}")
    if "table_dice" in data and data["table_dice"] not in _TABLE_DICE:
        known = ", ".join(t.value for t in TableDice)
        raise _Invalid(
            f"{where}.table_dice must be one of {known}, got {_shown(data['table_dice'])}"
        )
    for key, top in (("seed", None), ("rolls", MAX_ROLLS), ("round", MAX_ROUND)):
        _check_count(data[key], f"{where}.{key}", top)
    order = data["order"]
    if not isinstance(order, list) or not all(isinstance(s, str) and s for s in order):
        raise _Invalid(f"{where}.order must be a list of combatant ids or sides")
    _check_count(data["turn"], f"{where}.turn", max(len(order) - 1, 0), "the order's last")
    if not isinstance(data["state"], dict):
        raise _Invalid(f"{where}.state must be a table, got {_shown(data['state'])}")
    combatants = data["combatants"]
    listed = combatants_at or f"{where}.combatants"
    if not isinstance(combatants, list):
        raise _Invalid(f"{listed} must be a list, got {_shown(combatants)}")
    seen: set[str] = set()
    for i, c in enumerate(combatants):
        at = f"{listed}[{i}]"
        if not isinstance(c, dict):
            raise _Invalid(f"{at} must be a table, got {_shown(c)}")
        for key in ("id", "name"):
            if not isinstance(c.get(key), str) or not c[key]:
                got = _shown(c[key]) if key in c else "nothing"
                raise _Invalid(f"{at}.{key} must be non-empty text, got {got}")
        if c["id"] in seen:
            raise _Invalid(f"{at}.id {_shown(c['id'])} is the id of an earlier combatant too")
        seen.add(c["id"])


def _check_count(value: Any, where: str, top: int | None, top_name: str | None = None) -> None:
    if not _whole(value):
        raise _Invalid(f"{where} must be a whole number, got {_shown(value)}")
    if value < 0:
        raise _Invalid(f"{where} must be 0 or more, got {value}")
    if top is not None and value > top:
        limit = f"{top_name} ({top})" if top_name else str(top)
        raise _Invalid(f"{where} must be at most {limit}, got {_shown(value)}")


def _shown(value: Any) -> str:
    """A value from a save, short, for a message."""
    from facility_tui.text import printable

    text = printable(repr(value))
    return text if len(text) <= 40 else text[:37] + "..."


def _list(value: Any, where: str) -> list[Any]:
    if not isinstance(value, list):
        raise DecodeError(f"{where}: expected a list")
    return value


def _steps(value: Any, where: str) -> list[Step]:
    return [decode(Step, s, where=f"{where}[{i}]") for i, s in enumerate(_list(value, where))]


# -- log entries <-> lines ----------------------------------------------------------------------


def _line(entry: LogEntry) -> str:
    """One log entry as a line of JSON that fits in a TOML multi-line literal string.

    JSON escapes control characters and non-ASCII; what TOML forbids besides is DEL and three
    single quotes in a row (which would end the string).
    """
    return _json_line([entry.round, entry.kind.value, entry.text])


def _json_line(data: Any) -> str:
    text = json.dumps(data)
    return text.replace("'''", "\\u0027" * 3).replace("\x7f", "\\u007f")


def _rows(text: Any, where: str) -> list[Any]:
    if not isinstance(text, str):
        raise DecodeError(f"{where}: expected text")
    lines = [line for line in text.split("\n") if line.strip()]
    if not lines:
        return []
    try:
        rows = json.loads("[" + ",".join(lines) + "]")
    except ValueError:
        raise DecodeError(f"{where}: a log line is not readable") from None
    return rows  # type: ignore[no-any-return]


def _entries(rows: Any, where: str) -> tuple[LogEntry, ...]:
    try:
        out = tuple([LogEntry(r, t, _KINDS[k]) for r, k, t in _list(rows, where)])
    except (ValueError, TypeError, KeyError):
        out = None
    if out is None or not all(type(e.round) is int and type(e.text) is str for e in out):
        raise DecodeError(f"{where}: expected lines of [round, kind, text]")
    return out


def _literal(lines: str) -> str:
    return f"'''\n{lines}\n'''"


# -- checksums ----------------------------------------------------------------------------------


def _sha256(data: bytes) -> str:
    # hashlib loads OpenSSL (~2 ms): imported on the first checksum, not at every launch (a new
    # fight's first frame is drawn before its first save)
    import hashlib

    return hashlib.sha256(data).hexdigest()


def _sign(body: str) -> tuple[str, str]:
    """The file text for ``body`` (a checksum line, then the body) and the checksum."""
    digest = _sha256(body.encode("utf-8"))
    return f"{_MAGIC.decode()}{digest}\n{body}", digest


def _unsign(raw: bytes, source: str) -> tuple[str, bool]:
    """The body of a file, verified if it has a checksum line; ``(text, signed)``."""
    if not raw.strip():
        raise DamagedSave(f"{source} is empty: not a save (it was left untouched)")
    if raw.startswith(_MAGIC):
        nl = raw.find(b"\n")
        header = _HEADER.fullmatch(raw[: max(nl, 0)]) if nl >= 0 else None
        if header is None:
            raise DamagedSave(f"{source} is damaged: its checksum line is cut or changed")
        body = raw[nl + 1 :]
        if _sha256(body) != header.group(1).decode():
            raise DamagedSave(
                f"{source} is damaged: its checksum does not match (truncated or changed "
                "after it was saved); it was left untouched"
            )
        try:
            return body.decode("utf-8"), True
        except UnicodeDecodeError:  # pragma: no cover - a checksummed file we wrote
            raise DamagedSave(f"{source} is damaged: not UTF-8 text") from None
    try:
        return raw.decode("utf-8"), False
    except UnicodeDecodeError:
        raise DamagedSave(f"{source} is not a text file: not a save (left untouched)") from None


def _schema_of(doc: dict[str, Any], source: str) -> int:
    """The schema a parsed save says it has: one this version reads, or a refusal that says
    what to do (a newer one is never overwritten)."""
    version = doc.get("schema_version")
    if type(version) is not int or version < 1:
        raise DamagedSave(f"{source} has no schema_version: not a facility-tui save")
    if version > SCHEMA_VERSION:
        raise NewerSave(
            f"{source} was written by a newer facility-tui (schema {version}, this one reads "
            f"up to {SCHEMA_VERSION}); upgrade facility-tui to open it"
        )
    return version


def _read_toml(text: str) -> dict[str, Any]:
    import tomllib  # (~1.5 ms: a launch on a new fight reads no save, and does not import it)

    return tomllib.loads(text)


def _parse(raw: bytes, source: str) -> dict[str, Any]:
    """The verified TOML document of a file, of a version this code can read."""
    body, signed = _unsign(raw, source)
    try:
        doc = _read_toml(body)
    except (RecursionError, ValueError) as err:  # (TOMLDecodeError is a ValueError)
        what = str(err).splitlines()[0] if str(err) else type(err).__name__
        raise DamagedSave(
            f"{source} is not a readable save ({what}); it was left untouched"
        ) from None
    version = _schema_of(doc, source)
    if version >= 2 and not signed:
        raise DamagedSave(f"{source} is damaged: its checksum line is missing")
    return doc


# -- session <-> document -----------------------------------------------------------------------


# The store's own records are NamedTuples, not attrs classes like the model's: an attrs class
# generates and compiles its methods at every launch (~0.3 ms each, 7 of them here, on the path of
# every launch and every ``apply``), a NamedTuple costs a fifth of that; none is evolved or checked.
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


class _Chunk(NamedTuple):
    """A sealed run of log entries and the text of its write-once file."""

    start: int
    entries: tuple[LogEntry, ...]
    lines: str
    name: str
    text: str


def _make_chunk(start: int, entries: tuple[LogEntry, ...]) -> _Chunk:
    lines = "\n".join(_line(e) for e in entries)
    body = (
        f'schema_version = {LOG_SCHEMA}\nkind = "log"\n'
        f"start = {start}\ncount = {len(entries)}\nentries = {_literal(lines)}\n"
    )
    text, digest = _sign(body)
    name = f"log-{start:07d}-r{entries[0].round:04d}-{digest[:16]}.toml"
    return _Chunk(start, entries, lines, name, text)


def _boundary(count: int, prev: LogEntry, cur: LogEntry) -> bool:
    """Whether ``cur`` starts a new log file after ``count`` entries ending with ``prev``."""
    return count >= CHUNK_MAX or (count >= CHUNK_MIN and cur.round != prev.round)


class _Chunker:
    """Splits logs into sealed chunks, remembering them so that a save only looks at the tail.

    The split is a function of the log alone (greedy from the start, see ``_boundary``), so a log
    that grew by appending keeps its earlier chunks, and their files never change.
    """

    def __init__(self) -> None:
        self.known: dict[int, list[_Chunk]] = {}

    def split(self, log: tuple[LogEntry, ...]) -> tuple[list[_Chunk], int]:
        """The sealed chunks that cover ``log[:n]`` and ``n``; the rest is the open tail."""
        out: list[_Chunk] = []
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

    def keep(self, used: Iterable[_Chunk]) -> None:
        known: dict[int, list[_Chunk]] = {}
        for ch in used:
            same = known.setdefault(ch.start, [])
            if not any(c is ch for c in same):
                same.append(ch)
        self.known = known


class _Rendered(NamedTuple):
    state: str  # the fight, as a GM reads it
    rest: str  # the log and the history
    chunks: tuple[_Chunk, ...]  # log files the rest refers to

    @property
    def text(self) -> str:
        return _sign3(self.state, self.rest)


_BARE_KEY = re.compile(r"[A-Za-z0-9_-]+")


def _toml_str(text: str) -> str:
    # JSON's escapes are TOML's, but for non-ASCII (kept as is) and DEL (which TOML forbids raw)
    return json.dumps(text, ensure_ascii=False).replace("\x7f", "\\u007f")


def _toml(value: Any) -> str:
    """Plain data (``codec.encode`` output) as a one-line TOML value."""
    t = type(value)
    if t is str:
        return _toml_str(value)
    if t is bool:
        return "true" if value else "false"
    if t is int:
        return str(value)
    if t is dict:
        if not value:
            return "{}"
        items = ", ".join(f"{_toml_key(k)} = {_toml(v)}" for k, v in value.items())
        return f"{{ {items} }}"
    if t is list or t is tuple:
        return "[" + ", ".join(_toml(v) for v in value) + "]"
    if t is float:
        if math.isfinite(value):
            return repr(value)
        return "nan" if value != value else ("inf" if value > 0 else "-inf")
    for kind in (bool, int, float, str):  # subclasses: StrEnum values and the like
        if isinstance(value, kind):
            return _toml(kind(value))
    raise TypeError(f"cannot write {t.__name__} to a save")


def _toml_key(key: str) -> str:
    return key if _BARE_KEY.fullmatch(key) else _toml_str(key)


class _Writer:
    """Renders documents; remembers the text of each combatant, step and log entry it wrote.

    Combatants, steps and log entries are immutable and shared between successive encounters,
    so a save only formats the few that changed. Texts are keyed by object identity and form
    (the object is kept, so its id cannot be reused) and forgotten when a save no longer uses
    them.
    """

    def __init__(self) -> None:
        self.chunker = _Chunker()
        self._lines: dict[tuple[int, int], tuple[object, str]] = {}
        self._used: dict[tuple[int, int], tuple[object, str]] = {}

    def _cached(self, obj: object, make: Any, form: int = 0) -> str:
        key = (id(obj), form)
        hit = self._lines.get(key) or self._used.get(key)
        if hit is None or hit[0] is not obj:
            hit = (obj, make(obj))
        self._used[key] = hit
        return hit[1]

    def forget_unused(self) -> None:
        self._lines, self._used = self._used, {}

    def _item(self, obj: object) -> str:
        return self._cached(obj, lambda o: _json_line(encode(o)), 1)

    def _sparse_item(self, obj: object) -> str:
        return self._cached(obj, lambda o: _json_line(encode_sparse(o)), 2)

    def _entry(self, entry: LogEntry) -> str:
        return self._cached(entry, _line, 3)

    def _table(self, c: object) -> str:
        return self._cached(c, _combatant_text, 4)

    def state(self, enc: Encounter) -> str:
        """The part of the main file a GM reads and may edit: the encounter and its combatants
        as TOML tables, each written sparsely (only what differs from a fresh one)."""
        data = encode(_bare(enc))
        data.pop("log", None)
        data.pop("combatants", None)
        data["state"] = encode_sparse(enc.state)
        head = "\n".join(
            [
                *_INTRO,
                f"schema_version = {SCHEMA_VERSION}",
                'kind = "save"',
                f'app = "facility-tui {__version__}"',
                "",
                *_table_lines("[encounter]", "encounter", data),
                "",
            ]
        )
        return head + "".join([self._table(c) for c in enc.combatants]) + "\n"

    def _encounter(self, table: str, enc: Encounter) -> str:
        """An encounter in the compact form of the history: TOML, combatants as JSON lines."""
        data = encode(_bare(enc))
        data.pop("log", None)
        data.pop("combatants", None)
        state = data.pop("state", {})
        lines = [f"\n[{table}]\n"]
        lines.extend(f"{_toml_key(k)} = {_toml(v)}\n" for k, v in data.items())
        lines.append(f"state = {_toml(state)}\n")
        lines.append(_lines("combatants", [self._sparse_item(c) for c in enc.combatants]))
        return "".join(lines)

    def _log_table(
        self,
        table: str,
        chunks: Sequence[_Chunk],
        log: tuple[LogEntry, ...],
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
        return f"[{table}]\n{_array('files', [_toml_str(f) for f in files])}" + (
            f"entries = {_literal(lines)}\n"
        )

    def render(self, snap: Snapshot, *, inline: bool) -> _Rendered:
        enc, base = snap.encounter, snap.base
        chunks, tail = self.chunker.split(enc.log)
        used = list(chunks)
        n = len(base.log)
        base_is_prefix = n <= len(enc.log) and enc.log[:n] == base.log
        parts = [
            self._log_table("log", chunks, enc.log, tail, inline),
            "\n[history]\n",
            f"base_log = {n}\n" if base_is_prefix else "",
            _lines("undo", [self._item(s) for s in snap.undo]),
            _lines("redo", [self._item(s) for s in snap.redo]),
            self._encounter("history.base", base),
        ]
        if not base_is_prefix:
            base_chunks, base_tail = self.chunker.split(base.log)
            used.extend(base_chunks)
            parts.append(
                "\n"
                + self._log_table("history.base_rows", base_chunks, base.log, base_tail, inline)
            )
        return _Rendered(self.state(enc), "".join(parts), () if inline else tuple(used))


# The main file (schema 3): a checksum line over its two parts, the fight as TOML tables (the
# part a GM may edit), a separator line, the log and the history (facility-tui's own), an end line.
_MAGIC3 = b"#facility-tui state-sha256="
_HEADER3 = re.compile(r"#facility-tui state-sha256=([0-9a-f]{64}) history-sha256=([0-9a-f]{64})")
SEPARATOR = (
    "# ---- below: the log and the undo history, written by facility-tui for itself "
    "(edit the fight above this line) ----"
)
END_LINE = "# end of facility-tui save"
_INTRO = (
    "# A facility-tui save (docs/save-format.md). The fight may be edited by hand above the",
    "# separator line: facility-tui checks the edit when it opens the file, and u undoes it.",
)


def _sign3(state: str, rest: str) -> str:
    s = _sha256(state.encode("utf-8"))
    r = _sha256(rest.encode("utf-8"))
    return f"{_MAGIC3.decode()}{s} history-sha256={r}\n{state}{SEPARATOR}\n{rest}{END_LINE}\n"


def _combatant_text(c: Any) -> str:
    return "\n".join(["", *_table_lines("[[combatants]]", "combatants", encode_sparse(c)), ""])


def _table_lines(header: str, path: str, data: dict[str, Any]) -> list[str]:
    """A table of plain data as TOML lines: its values first, then each sub-table (a table, or
    a list of tables as an array of tables) under a header of its own. Empty ones stay inline."""
    out = [header]
    subs: list[tuple[str, Any, bool]] = []
    for k, v in data.items():
        t = type(v)
        if t is dict and v:
            subs.append((k, v, False))
        elif t is list and v and all(type(x) is dict for x in v):
            subs.append((k, v, True))
        else:
            out.append(f"{_toml_key(k)} = {_toml(v)}")
    for k, v, many in subs:
        sub = f"{path}.{_toml_key(k)}"
        for item in v if many else (v,):
            out.append("")
            out.extend(_table_lines(f"[[{sub}]]" if many else f"[{sub}]", sub, item))
    return out


def _lines(key: str, items: Sequence[str]) -> str:
    return f"{key} = {_literal(chr(10).join(items))}\n"


def _array(key: str, items: Sequence[str]) -> str:
    if not items:
        return f"{key} = []\n"
    return f"{key} = [\n" + "".join(f"    {item},\n" for item in items) + "]\n"


def _bare(enc: Encounter) -> Encounter:
    """``enc`` without log and combatants, cheap to encode."""
    from attrs import evolve

    return evolve(enc, log=(), combatants=()) if enc.log or enc.combatants else enc


def dumps(session: Session) -> str:
    """A whole, self-contained save of ``session`` (checksummed, every log entry inline)."""
    return _Writer().render(Snapshot.of(session), inline=True).text


def loads(text: str, source: str = "save") -> Session:
    """The session of a self-contained save text (``dumps``, a backup, or an older version)."""
    return _session_from(text.encode("utf-8"), source, None).session


class Loaded(NamedTuple):
    """What reading a save gave: the session, and for a save edited outside facility-tui, a
    line saying what changed and the session as facility-tui last wrote it (for a backup)."""

    session: Session
    edit: str | None = None
    before: Session | None = None
    read: tuple[int, ...] | None = None  # the file's signature as read (``file_signature``)


_BOM = b"\xef\xbb\xbf"  # what some editors put at the top of a UTF-8 file: not the save's


def _session_from(raw: bytes, source: str, sidecar: Path | None) -> Loaded:
    from facility_tui.migrations import migrate

    raw = raw.removeprefix(_BOM)
    if raw.startswith(_MAGIC3):
        return _session_from_v3(raw, source, sidecar)
    doc = _parse(raw, source)
    try:
        if doc["schema_version"] >= 2:
            doc = _resolve(doc, source, sidecar)
        doc = migrate(doc)
        _check_encounter(doc.get("encounter"), "encounter")
        log = _entries(doc.get("log"), "log")
        enc = encounter_from(doc.get("encounter"), log=log)
    except _Invalid as err:
        raise InvalidSave(f"{source}: {err}; it was left untouched") from None
    except _SHAPE_ERRORS as err:  # any shape a damaged or hand-made file can take
        raise DamagedSave(f"{source} is damaged ({_reason(err)}); it was left untouched") from None
    return Loaded(_with_history(enc, doc.get("history")))


class _Parts(NamedTuple):
    state: str  # the fight: from the second line to the separator
    rest: str  # the log and the history: from the separator to the end line
    state_sum: str  # the checksum the header gives the state
    edited: bool  # the state's checksum does not match: changed outside facility-tui


def _split3(raw: bytes, source: str) -> _Parts:
    """The two parts of a schema-3 file, checked: a header with two checksums, the separator,
    the end line (a file cut short has none), and the history part as written. Only the state
    part may differ from its checksum: an edit, checked next (``_session_from_v3``)."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise DamagedSave(f"{source} is damaged: not UTF-8 text; it was left untouched") from None
    if "\r" in text:  # an editor that writes CRLF line ends: the same lines
        text = text.replace("\r\n", "\n")
    nl = text.find("\n")
    header = _HEADER3.fullmatch(text[:nl]) if nl >= 0 else None
    if header is None:
        raise DamagedSave(f"{source} is damaged: its checksum line is cut or changed")
    # Blank lines and spaces after the end line are an editor's (``echo "" >> f.toml``, a
    # final newline added or taken away): they hold nothing, so no checksum needs to cover them.
    # Anything else there, and any change above the end line, is still found.
    body = text[nl + 1 :].rstrip(" \t\n")
    if body.endswith("\n" + END_LINE) or body == END_LINE:
        body = body[: -len(END_LINE)]
    else:
        raise DamagedSave(
            f"{source} is incomplete: its last line ({END_LINE!r}) is missing, so it was cut "
            "short (a write or copy that did not finish); it was left untouched"
        )
    cut = body.rfind("\n" + SEPARATOR + "\n")
    if cut < 0 and body.startswith(SEPARATOR + "\n"):
        cut = -1
    elif cut < 0:
        at = body.rfind(SEPARATOR)
        if at >= 0:  # an edit joined text to it (a table pasted without its last newline)
            line = body[:at].count("\n") + 2
            raise DamagedSave(
                f"{source}:{line}: the separator line before the log and history has text "
                "joined to it: it must be a line of its own; it was left untouched"
            )
        raise DamagedSave(
            f"{source} is damaged: its separator line before the log and history is missing; "
            "it was left untouched"
        )
    state, rest = body[: cut + 1], body[cut + 2 + len(SEPARATOR) :]
    if _sha256(rest.encode("utf-8")) != header.group(2):
        raise DamagedSave(
            f"{source} is damaged: its log and history (below the separator line) do not match "
            "their checksum (they are not to be edited); it was left untouched"
        )
    digest = _sha256(state.encode("utf-8"))
    return _Parts(state, rest, header.group(1), digest != header.group(1))


def _session_from_v3(raw: bytes, source: str, sidecar: Path | None) -> Loaded:
    parts = _split3(raw, source)
    offset = 1  # the state part starts on the file's second line
    try:
        doc = _read_toml(parts.state + parts.rest)
    except (RecursionError, ValueError) as err:  # (TOMLDecodeError is a ValueError)
        what = str(err).splitlines()[0] if str(err) else type(err).__name__
        if parts.edited:
            m = re.search(r"\(at line (\d+), column \d+\)$", what)
            at = f":{int(m.group(1)) + offset}" if m else ""
            what = what[: m.start()].strip() if m else what
            raise InvalidSave(
                f"{source}{at}: {what[:1].lower()}{what[1:]} (edited outside facility-tui: "
                "not TOML); it was left untouched"
            ) from None
        raise DamagedSave(
            f"{source} is not a readable save ({what}); it was left untouched"
        ) from None
    if parts.edited:
        _check_top(doc, parts.state, source, offset)
    _schema_of(doc, source)
    try:
        try:
            doc = _resolve3(doc, source, sidecar)
            enc, history = _fight3(doc, parts.edited)
        except (_Invalid, DecodeError, *_SHAPE_ERRORS) as err:
            if not parts.edited:
                raise
            raise InvalidSave(_at_line(source, parts.state, offset, err)) from None
    except _Invalid as err:
        raise InvalidSave(f"{source}: {err}; it was left untouched") from None
    except _SHAPE_ERRORS as err:
        raise DamagedSave(f"{source} is damaged ({_reason(err)}); it was left untouched") from None
    if not parts.edited:
        return Loaded(_with_history(enc, history))
    return _edited(enc, history, parts, source, offset)


_TOP_KEYS = ("schema_version", "kind", "app", "encounter", "combatants", "log", "history")


def _check_top(doc: dict[str, Any], state: str, source: str, offset: int) -> None:
    """An edited file's keys outside the fight's tables, each refused with its line: a key
    facility-tui does not know (a typo, or a key written above ``[encounter]``), a changed
    ``schema_version`` or ``kind``, a missing ``[encounter]``. A key that is missing is named on
    the line where the fight's part starts."""
    first = next(
        (n for n, ln in enumerate(state.split("\n"), 1) if ln.strip()[:1] not in ("", "#")), 1
    )

    def refuse(key: str, problem: str) -> None:
        raise _refusal(source, state, offset, key, problem, first)

    for key in doc:
        if key not in _TOP_KEYS:
            refuse(key, "is not a key facility-tui knows (a typo?)")
    wanted: tuple[tuple[str, Any, str], ...] = (
        ("schema_version", SCHEMA_VERSION, "this file's layout"),
        ("kind", "save", "a save, not a log file"),
    )
    version = doc.get("schema_version")
    if type(version) is int and version > SCHEMA_VERSION:  # refused, never set aside or recovered
        line = _locate(state).get_line("schema_version") or first
        raise NewerSave(
            f"{source}:{line + offset}: schema {version}: written by "
            f"a newer facility-tui (this one reads up to {SCHEMA_VERSION}); upgrade "
            "facility-tui to open it"
        )
    for key, value, why in wanted:
        if key not in doc:
            refuse(key, f"is missing (it must be {value!r}: {why})")
        if doc[key] != value or type(doc[key]) is not type(value):
            refuse(key, f"must be {value!r} ({why}), got {_shown(doc[key])}")
    if "encounter" not in doc:
        refuse("encounter", "is missing: the fight's [encounter] table")
    if not isinstance(doc.get("app", ""), str):
        refuse("app", f"must be text (the version that wrote it), got {_shown(doc['app'])}")


def _resolve3(doc: dict[str, Any], source: str, sidecar: Path | None) -> dict[str, Any]:
    """A schema-3 document laid out like a resolved schema-2 one (``migrations``): the
    combatants inside ``encounter``, the logs read in as rows."""
    if doc.get("kind") != "save":
        raise DecodeError(f"a {doc.get('kind')!r} file, not a save")
    encounter = doc.get("encounter")
    if not isinstance(encounter, dict):
        raise _Invalid("encounter must be a table")
    combatants = doc.get("combatants", [])
    if "combatants" in encounter:
        raise _Invalid("encounter.combatants: combatants are [[combatants]] tables of their own")
    out = dict(doc)
    out.pop("combatants", None)
    out["encounter"] = {**encounter, "combatants": combatants}
    out["log"] = _read_log(doc.get("log"), "log", source, sidecar)
    history = doc.get("history")
    if isinstance(history, dict):
        out["history"] = _resolved_history(history, source, sidecar)
    return out


def _fight3(doc: dict[str, Any], strict: bool) -> tuple[Encounter, Any]:
    data = doc["encounter"]
    _check_encounter(data, "encounter", "combatants")
    if strict:
        _check_keys(data)
    log = _entries(doc.get("log"), "log")
    return encounter_from(data, log=log), doc.get("history")


def _check_keys(data: dict[str, Any]) -> None:
    """A key the model does not have (a typo of an edit) is refused, naming it."""
    from facility_tui.codec import unknown_key
    from facility_tui.model import Combatant

    rules = rules_for(data["system"])
    top = {k: v for k, v in data.items() if k != "combatants"}
    bad = unknown_key(Encounter, top, "encounter", {"state": rules.state_type})
    for i, c in enumerate(data["combatants"]):
        bad = bad or unknown_key(Combatant, c, f"combatants[{i}]", {"sheet": rules.sheet_type})
    if bad:
        raise _Invalid(f"{bad} is not a key facility-tui knows (a typo?)", bad)


_PATH_START = re.compile(r"[A-Za-z_][\w.\[\]-]*")


def _at_line(source: str, state: str, offset: int, err: Exception) -> str:
    """A refused edit as ``file:line: key must be ...``."""
    text = str(err).splitlines()[0] if str(err) else type(err).__name__
    where = getattr(err, "where", "") or ""
    if not where:
        m = _PATH_START.match(text)
        where = m.group() if m else ""
    text = text.replace(": expected ", " must be ", 1)
    line = _locate(state).get_line(where)
    at = f":{line + offset}" if line else ""
    return f"{source}{at}: {text} (edited outside facility-tui); it was left untouched"


class _Located:
    def __init__(self, lines: dict[str, int]) -> None:
        self.lines = lines

    def get_line(self, path: str) -> int | None:
        """The line of ``path`` (``combatants[2].sheet.hlt``), else of the nearest table or
        key that holds it."""
        while path:
            if path in self.lines:
                return self.lines[path]
            cut = max(path.rfind("."), path.rfind("["))
            path = path[:cut] if cut > 0 else ""
        return None


def _locate(state: str) -> _Located:
    """Each key and table of a TOML text by its path, with its line (1 = the text's first):
    ``[[combatants]]`` tables are numbered ``combatants[0]``, ``combatants[1]``..."""
    lines: dict[str, int] = {}
    arrays: dict[str, int] = {}

    def resolve(segs: list[str]) -> str:
        out = ""
        for seg in segs:
            out = f"{out}.{seg}" if out else seg
            if out in arrays:
                out = f"{out}[{arrays[out]}]"
        return out

    prefix = ""
    for n, line in enumerate(state.split("\n"), start=1):
        s = line.strip()
        if s.startswith("[["):
            segs = [p.strip().strip('"') for p in s[2:].split("]]")[0].split(".")]
            parent = resolve(segs[:-1])
            p = f"{parent}.{segs[-1]}" if parent else segs[-1]
            arrays[p] = arrays.get(p, -1) + 1
            prefix = f"{p}[{arrays[p]}]"
            lines.setdefault(prefix, n)
        elif s.startswith("["):
            prefix = resolve([p.strip().strip('"') for p in s[1:].split("]")[0].split(".")])
            lines.setdefault(prefix, n)
        elif "=" in s and not s.startswith("#"):
            key = s.split("=", 1)[0].strip().strip('"')
            lines.setdefault(f"{prefix}.{key}" if prefix else key, n)
    return _Located(lines)


def _edited(enc: Encounter, history: Any, parts: _Parts, source: str, offset: int) -> Loaded:
    """A save whose fight was changed outside facility-tui and reads as a fight: the history
    up to the state facility-tui wrote (replayed, and checked against the state's checksum),
    then the edit as one step. If that state cannot be rebuilt, the edited fight opens alone."""
    from facility_tui import handedit

    enc = _sided(enc, parts.state, source, offset)
    before = _rebuilt(enc.log, history)
    kept = () if before is None else before.encounter.combatants
    enc = handedit.numbered(enc, frozenset(c.id for c in kept if not c.handle))
    if before is not None and before.encounter == enc:
        before.encounter = enc
        return Loaded(before)  # only comments or layout changed (or the checksum line)
    if before is not None:
        written = _Writer().state(before.encounter)
        if _sha256(written.encode("utf-8")) != parts.state_sum:
            before = None
    if before is None:
        _check_edit(handedit.changes(_empty_like(enc), enc), enc, parts.state, source, offset)
        _check_rules(None, enc, parts.state, source, offset)
        note = (
            "Edited outside facility-tui; the state before the edit could not be rebuilt, so "
            "the fight opens without its undo history"
        )
        return Loaded(Session(enc.logged(note, Kind.OVERRIDE)), f"{source}: {note.lower()}")
    found = handedit.changes(before.encounter, enc)
    _check_edit(found, enc, parts.state, source, offset)
    _check_rules(before.encounter, enc, parts.state, source, offset)
    summary = handedit.describe(found)
    step = Step(handedit.EDIT_LINE, (), handedit.edit_data(before.encounter, enc, summary))
    after = before.fork()
    after.record(step)
    return Loaded(after, f"{source} was edited outside facility-tui: {summary}", before)


def _refusal(
    source: str, state: str, offset: int, path: str, problem: str, missing: int | None = None
) -> InvalidSave:
    """A refused edit: ``file:line: key problem``, the line the key's (or its table's; for a
    key that is not there, ``missing``: a line of the fight's part)."""
    line = _locate(state).get_line(path) or missing
    at = f":{line + offset}" if line else ""
    return InvalidSave(
        f"{source}{at}: {path} {problem} (edited outside facility-tui); it was left untouched"
    )


def _sided(enc: Encounter, state: str, source: str, offset: int) -> Encounter:
    """Each combatant's side as ``add side=`` takes it: ``pc``, ``PCs``, ``player``, ``enemy``,
    ``NPC``... (``call.SIDES``, any case) are the side they mean, as is the default of a deleted
    ``side`` line (``enemy``: what ``add`` gives); any other word is refused with its line."""
    from attrs import evolve

    from facility_tui.call import SIDES
    from facility_tui.model import ENEMIES, PCS

    if all(c.side in (PCS, ENEMIES) for c in enc.combatants):
        return enc
    given = []
    for i, c in enumerate(enc.combatants):
        side = SIDES.get(c.side.strip().lower())
        if side is None:
            raise _refusal(
                source,
                state,
                offset,
                f"combatants[{i}].side",
                f"must be {PCS} or {ENEMIES} (pc, enemy... are read as them), got {_shown(c.side)}",
            )
        given.append(c if side == c.side else evolve(c, side=side))
    return evolve(enc, combatants=tuple(given))


def _check_rules(
    before: Encounter | None, enc: Encounter, state: str, source: str, offset: int
) -> None:
    """Each combatant the edit changed or added, held to what a command could make of it: an
    initiative from 0 (``init``, ``set WHO init``), a handle from 0, and the rules' own bounds
    (``RuleSystem.check_combatant``: the same values ``add`` and ``set`` refuse); then the
    rules' encounter state (``check_state``) if the edit touched it or the combatants."""
    from facility_tui.call import MAX_VALUE

    if not -1 <= enc.handles <= MAX_VALUE:  # (as a combatant's handle, within MAX_VALUE)
        raise _refusal(
            source,
            state,
            offset,
            "encounter.handles",
            f"must be from -1 (a save from before numbers) to {MAX_VALUE}, got {enc.handles}",
        )
    rules = rules_for(enc.system)
    old = {c.id: c for c in before.combatants} if before is not None else {}
    for i, c in enumerate(enc.combatants):
        if old.get(c.id) == c:
            continue
        found: tuple[str, str] | None
        if c.initiative < 0:
            found = ("initiative", f"must be at least 0, got {c.initiative}")
        elif c.handle < 0:
            found = ("handle", f"must be from 0 (the next number), got {c.handle}")
        else:
            found = rules.check_combatant(enc, c)
        if found is not None:
            raise _refusal(source, state, offset, f"combatants[{i}].{found[0]}", found[1])
    found = rules.check_state(enc)
    if found is not None and (
        before is None or before.state != enc.state or before.combatants != enc.combatants
    ):
        raise _refusal(source, state, offset, f"encounter.state.{found[0]}", found[1])


def _empty_like(enc: Encounter) -> Encounter:
    from attrs import evolve

    return evolve(enc, combatants=())


def _check_edit(
    found: list[tuple[str, str, Any, Any]], enc: Encounter, state: str, source: str, offset: int
) -> None:
    """What an edit changed must be what a command could make: numbers within ±MAX_VALUE, text
    without control characters and within its bounds, and the order naming who is there."""
    from facility_tui.call import MAX_VALUE
    from facility_tui.model import ENEMIES, PCS
    from facility_tui.text import CONTROL, MAX_NAME, MAX_NOTE, MAX_TITLE, control_in

    index = {c.name: i for i, c in enumerate(enc.combatants)}

    def refuse(path: str, problem: str) -> None:
        raise _refusal(source, state, offset, path, problem)

    for whose, path, _old, new in found:
        if whose and path == "" and new is not None:  # a combatant added: all of it
            i = index[whose]
            from facility_tui.handedit import leaves

            items = list(leaves(encode(enc.combatants[i])).items())
            at = f"combatants[{i}]"
        elif whose:
            if path == "" or whose not in index:
                continue
            items, at = [(path, new)], f"combatants[{index[whose]}]"
        else:
            items, at = [(path, new)], "encounter"
        for key, value in items:
            full = f"{at}.{key}"
            if type(value) is int and at != "encounter" and abs(value) > MAX_VALUE:
                refuse(full, f"must be within ±{MAX_VALUE}, got {value}")
            if isinstance(value, str):
                if CONTROL.search(value):
                    refuse(full, f"must not hold control characters (it has {control_in(value)})")
                top = MAX_NOTE
                if key == "name":
                    top = MAX_TITLE if at == "encounter" else MAX_NAME
                if len(value) > top:
                    refuse(full, f"must be at most {top} characters, got {len(value)}")
    known = {c.id for c in enc.combatants} | {c.side for c in enc.combatants} | {PCS, ENEMIES}
    for slot in enc.order:
        if slot not in known:
            refuse("encounter.order", f"names {_shown(slot)}, which is no combatant's id")


def _reason(err: Exception) -> str:
    text = str(err).splitlines()[0] if str(err) else ""
    return text[:200] or type(err).__name__


def _resolve(doc: dict[str, Any], source: str, sidecar: Path | None) -> dict[str, Any]:
    """Read the log files a schema-2 document refers to; its logs become lists of rows."""
    if doc.get("kind") != "save":
        raise DecodeError(f"a {doc.get('kind')!r} file, not a save")
    out = dict(doc)
    out["encounter"] = _unpacked(doc.get("encounter"), "encounter")
    out["log"] = _read_log(doc.get("log"), "log", source, sidecar)
    history = doc.get("history")
    if isinstance(history, dict):
        out["history"] = _resolved_history(history, source, sidecar)
    return out


def _resolved_history(history: dict[str, Any], source: str, sidecar: Path | None) -> Any:
    """The history table with its steps, base and base log read from their lines (schema 2 and
    3 keep it alike)."""
    history = dict(history)
    for key in ("undo", "redo"):
        history[key] = _rows(history.get(key, ""), f"history.{key}")
    if "base" in history:
        history["base"] = _unpacked(history["base"], "history.base")
    if "base_rows" in history:
        history["base_rows"] = _read_log(history["base_rows"], "history.base_rows", source, sidecar)
    return history


def _unpacked(encounter: Any, where: str) -> dict[str, Any]:
    """An encounter table with its combatants read from their JSON lines."""
    if not isinstance(encounter, dict):
        raise DecodeError(f"{where}: expected a table")
    out = dict(encounter)
    if "combatants" in encounter:  # (a missing key stays missing, for _check_encounter to name)
        lines = encounter["combatants"]
        if not isinstance(lines, str):
            raise _Invalid(f"{where}.combatants must be lines of tables, got {_shown(lines)}")
        out["combatants"] = _rows(lines, f"{where}.combatants")
    return out


def _read_log(table: Any, where: str, source: str, sidecar: Path | None) -> list[Any]:
    if not isinstance(table, dict):
        raise DecodeError(f"{where}: expected a table")
    rows: list[Any] = []
    for name in _list(table.get("files", []), f"{where}.files"):
        if sidecar is None:
            raise DecodeError(f"{where}: refers to log files; open the save by its path")
        rows.extend(_read_chunk(sidecar, name, len(rows), source))
    rows.extend(_rows(table.get("entries", ""), f"{where}.entries"))
    return rows


def _read_chunk(sidecar: Path, name: Any, start: int, source: str) -> list[Any]:
    m = _CHUNK_NAME.fullmatch(name) if isinstance(name, str) else None
    if m is None:
        raise DecodeError(f"bad log file name {name!r}")
    path = sidecar / name
    try:
        raw = _read(path)
    except SaveError as err:
        if not os.path.lexists(path):
            raise DamagedSave(
                f"{source} is incomplete: its log file {path} is missing; it was left untouched"
            ) from None
        raise DamagedSave(f"{source} cannot be read whole: {err}") from None
    if not raw.startswith(_MAGIC + m.group(3).encode()):
        raise DamagedSave(f"{source} is damaged: its log file {path} is not the one it refers to")
    try:
        body, _ = _unsign(raw, f"its log file {path}")
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
        doc = _parse(raw, str(path))
    if doc.get("kind") != "log" or doc.get("start") != start:
        raise DamagedSave(f"{source} is damaged: its log file {path} is out of place")
    rows = _rows(doc.get("entries"), f"{name}.entries")
    if doc.get("count") != len(rows):
        raise DamagedSave(f"{source} is damaged: its log file {path} has the wrong length")
    return rows


def _rebuilt(log: tuple[LogEntry, ...], history: Any) -> Session | None:
    """The session the history leads to (its base, replayed), or ``None`` if it does not."""
    if not isinstance(history, dict):
        return None
    try:
        undo = _steps(history.get("undo", []), "history.undo")
        redo = _steps(history.get("redo", []), "history.redo")
        if "base_rows" in history:
            base_log = _entries(history["base_rows"], "history.base_rows")
        else:
            n = history.get("base_log", 0)
            if type(n) is not int or not 0 <= n <= len(log):
                raise DecodeError("history.base_log out of range")
            base_log = log[:n]
        _check_encounter(history.get("base"), "history.base")
        base = encounter_from(history["base"], log=base_log)
        return _in_saved_words(_replay(base, undo, redo), log)
    except Exception:  # a history that does not replay is dropped, whatever the reason
        return None


def _in_saved_words(session: Session, log: tuple[LogEntry, ...]) -> Session:
    """The replayed history with the saved log's words, where only the words differ.

    A later version may word a log line differently ('1 rounds' became '1 round'); the replay
    then writes the new words while the save holds the old. Same length, rounds and kinds: the
    saved lines are taken, in the last state and in each earlier one whose log leads to it
    (its last line the very entry the last state has there), so undo shows the log as it was
    written and an old save keeps its history. Anything more is a real difference, left for
    the caller's comparison to refuse."""
    from attrs import evolve

    last = session.encounter.log
    if last == log or len(last) != len(log):
        return session
    if any(a.round != b.round or a.kind != b.kind for a, b in zip(last, log, strict=True)):
        return session
    undo = []
    for step, state in session.undo_states:
        n = len(state.log)
        if n and n <= len(last) and state.log[n - 1] is last[n - 1]:
            state = evolve(state, log=log[:n])
        undo.append((step, state))
    return Session(evolve(session.encounter, log=log), undo, session.redo_steps, session.limit)


def _with_history(enc: Encounter, history: Any) -> Session:
    if not isinstance(history, dict):
        return Session(enc)
    session = _rebuilt(enc.log, history)
    if session is None or session.encounter != enc:
        note = "Undo history could not be rebuilt from the save; the fight itself is intact"
        return Session(enc.logged(note, Kind.INFO))
    session.encounter = enc  # identical value; keep the loaded one
    return session


# Stands in for the base's log while a history is replayed (see ``_replay``); compared by identity.
_REPLAY_MARK = LogEntry(-1, "(the log before the oldest step)", Kind.INFO)


def _replay(base: Encounter, steps: Sequence[Step], redo: Sequence[Step]) -> Session:
    """Like ``session.rebuild``, at a cost that does not grow with the log.

    Appending to a 10,000-entry log copies it, so the steps are replayed from ``base`` with its
    log stood in for by one marker entry. A command either keeps the log, appending to it (the
    marker stays in front, and each result gets the base's log back in its place), or starts a
    new one (``new``: the marker is gone, and the log is the result's own, as are those of the
    steps after it). So every state of the history gets the log it had when its step was made,
    whatever the base's log and however many ``new`` the history holds. No command reads the
    log; one that did (and saw the marker) would make the replay miss the saved encounter, and
    the history would be dropped with a note (see ``_with_history``), never the fight.
    """
    from attrs import evolve

    enc = evolve(base, log=(_REPLAY_MARK,))
    states = [base]
    for step in steps:
        enc = run_step(enc, step)
        log = enc.log
        if log and log[0] is _REPLAY_MARK:
            states.append(evolve(enc, log=base.log + log[1:]))
        else:
            states.append(enc)
    return Session(states[-1], list(zip(steps, states[:-1], strict=True)), redo)


def backups(path: Path) -> list[Path]:
    """The backups of a save, the newest first."""
    return [p for _, _, p in _backups(sidecar_for(path))]


def _backups(sidecar: Path) -> list[tuple[int, int, Path]]:
    found = []
    with contextlib.suppress(OSError):
        for p in sidecar.iterdir():
            m = _BACKUP_NAME.fullmatch(p.name)
            if m:
                found.append((int(m.group(1)), int(m.group(2)), p))
    return sorted(found, reverse=True)


# -- one writer per save ------------------------------------------------------------------------

LOCK_NAME = "lock"  # in the save's folder: fight.d/lock


class Holder(NamedTuple):
    """Who holds a save's write lock, as it wrote itself into the lock file."""

    pid: int
    host: str
    role: str  # "facility-tui app", "facility-tui apply"...
    since: float  # time.time() when it took the lock

    def describe(self) -> str:
        from facility_tui.text import printable

        when = time.strftime("%Y-%m-%d %H:%M", time.localtime(self.since))
        where = "this process" if self.is_this_process() else f"pid {self.pid} on {self.host}"
        return printable(f"{self.role} ({where}, since {when})")

    def is_this_process(self) -> bool:
        return self.pid == os.getpid() and self.host == _host()


def _host() -> str:
    return os.uname().nodename  # gethostname, without importing socket on the apply path


class WriteLock:
    """The write lock of one save, held until ``release`` (or the process ends: the kernel drops
    an ``flock`` with its process, so a crash never leaves a stale lock).

    The lock is ``fcntl.flock`` on ``fight.d/lock``, which holds the holder's pid, host, role
    and start time for the message a refused writer gets; it is emptied on release, or removed
    (with the folders made for it) if it was made for a lock that wrote nothing. A writer that
    locked a file just removed finds the path's file is no longer the one it holds and tries
    again, so two writers never hold two different files of one save.
    """

    def __init__(
        self, path: Path, fd: int, holder: Holder, made: list[Path], created: bool
    ) -> None:
        self.path = path
        self.holder = holder
        self.wrote = False  # set by the saver before it writes anything under this lock
        self._fd: int | None = fd
        self._made = made  # folders made to hold the lock file...
        self._created = created  # ...and whether the file was made too: undone if nothing written

    @property
    def held(self) -> bool:
        return self._fd is not None

    def release(self) -> None:
        """Let the save go (idempotent, never raises)."""
        fd, self._fd = self._fd, None
        if fd is None:
            return
        with _held_guard:
            if _held.get(os.path.abspath(self.path)) is self:
                del _held[os.path.abspath(self.path)]
        if self.wrote or not self._created:
            with contextlib.suppress(OSError):
                os.ftruncate(fd, 0)  # kept (making a file costs ten times more), but nameless
        else:  # nothing written: leave the folder as it was; still locked: no one else has it
            with contextlib.suppress(OSError):
                os.unlink(sidecar_for(self.path) / LOCK_NAME)
            for folder in reversed(self._made):
                with contextlib.suppress(OSError):
                    folder.rmdir()
        import fcntl

        with contextlib.suppress(OSError):
            fcntl.flock(fd, fcntl.LOCK_UN)  # (closing would too, but a failed close may not)
        with contextlib.suppress(OSError):
            os.close(fd)

    def __enter__(self) -> WriteLock:
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()


_held: dict[str, WriteLock] = {}  # the saves this process holds, by absolute path
_held_guard = threading.Lock()


def _made_dirs(folder: Path) -> list[Path]:
    """Make ``folder`` and its missing parents; the ones made, outermost first."""
    missing: list[Path] = []
    p = folder
    while not os.path.lexists(p) and p != p.parent:
        missing.append(p)
        p = p.parent
    missing.reverse()
    made = []
    for d in missing:
        try:
            os.mkdir(d)
            made.append(d)
        except FileExistsError:
            pass
    return made


def lock_save(path: Path, role: str) -> WriteLock:
    """Take the write lock of the save at ``path`` (which need not exist yet) for ``role``.

    Raises ``SaveHeld`` if another process (or another part of this one) holds it, and
    ``SaveError`` if the lock file cannot be made (a read-only folder...). Writing a save this
    process holds needs no more locking; ``save`` takes the lock for the write's duration when
    the process does not hold it.
    """
    key = os.path.abspath(path)
    with _held_guard:
        mine = _held.get(key)
    if mine is not None:
        raise _held_error(path, mine.holder)
    lock_path = sidecar_for(path) / LOCK_NAME
    made: list[Path] = []
    flags = os.O_RDWR | os.O_CLOEXEC | os.O_NOFOLLOW | os.O_NONBLOCK
    try:
        for _ in range(20):
            try:
                made += _made_dirs(lock_path.parent)
                try:
                    fd, created = os.open(lock_path, flags), False
                except FileNotFoundError:
                    fd, created = os.open(lock_path, flags | os.O_CREAT | os.O_EXCL, 0o644), True
            except (FileNotFoundError, FileExistsError):  # another writer let go or came
                continue
            except OSError as err:
                raise SaveError(_lock_error(path, err)) from err
            try:
                lock = _try_lock(path, fd, lock_path, role, made, created)
            except BaseException:
                if created:
                    with contextlib.suppress(OSError):
                        os.unlink(lock_path)
                with contextlib.suppress(OSError):
                    os.close(fd)
                raise
            if lock is not None:
                with _held_guard:
                    _held[key] = lock
                return lock
            with contextlib.suppress(OSError):
                os.close(fd)
        raise SaveError(f"could not lock {path}: its lock file keeps changing; try again")
    except SaveError:
        for folder in reversed(made):  # refused: the folders made for the lock go too
            with contextlib.suppress(OSError):
                folder.rmdir()
        raise


def _try_lock(
    path: Path, fd: int, lock_path: Path, role: str, made: list[Path], created: bool
) -> WriteLock | None:
    import fcntl

    try:
        opened = os.fstat(fd)
        if not stat.S_ISREG(opened.st_mode):
            kind = _kind_of(opened.st_mode)
            raise SaveError(f"{lock_path} is {kind}, not a lock file; remove it and try again")
        for attempt in range(4):
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if attempt == 3:
                    raise _held_error(path, _read_holder(fd)) from None
                # a glance by ``holder``, or a holder letting go, is over in a moment
                time.sleep(0.02)
    except OSError as err:
        raise SaveError(_lock_error(path, err)) from err
    try:
        now = os.stat(lock_path, follow_symlinks=False)
    except OSError:
        return None  # removed by the writer that just let go: lock the one there now
    if (now.st_dev, now.st_ino) != (opened.st_dev, opened.st_ino):
        return None
    holder = Holder(os.getpid(), _host(), role, time.time())
    data = json.dumps({"pid": holder.pid, "host": holder.host, "role": role, "since": holder.since})
    with contextlib.suppress(OSError):  # the lock holds without it; only the message is poorer
        os.ftruncate(fd, 0)
        os.pwrite(fd, (data + "\n").encode("utf-8"), 0)
    return WriteLock(path, fd, holder, made, created)


def _read_holder(fd: int) -> Holder | None:
    try:
        data = json.loads(os.pread(fd, 4096, 0).decode("utf-8"))
        return Holder(int(data["pid"]), str(data["host"]), str(data["role"]), float(data["since"]))
    except (OSError, ValueError, TypeError, KeyError, OverflowError):
        return None  # just taken, not written yet; or not ours


def holder(path: Path) -> Holder | None:
    """Who holds the write lock of ``path`` now; ``None`` if no one does (or it cannot tell).
    A read-only view can show it, and offer to open the save for writing once it is free."""
    with _held_guard:
        mine = _held.get(os.path.abspath(path))
    if mine is not None:
        return mine.holder
    lock_path = sidecar_for(path) / LOCK_NAME
    try:
        fd = os.open(lock_path, os.O_RDONLY | os.O_CLOEXEC | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return None
    import fcntl

    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except OSError:
            return _read_holder(fd) or Holder(0, "?", "another process", time.time())
        return None  # free: it could be locked, so no one holds it
    finally:
        os.close(fd)


def _held_error(path: Path, who: Holder | None) -> SaveHeld:
    if who is None:
        whom = "another process"
    elif who.is_this_process():
        whom = f"this facility-tui already ({who.describe()})"
    else:
        whom = who.describe()
    return SaveHeld(
        path,
        who,
        f"{path} is open for writing in {whom}; close it there first, then try again",
    )


def _lock_error(path: Path, err: OSError) -> str:
    reason = err.strerror or str(err) or type(err).__name__
    hint = _HINTS.get(err.errno or 0)
    hint = f" ({hint})" if hint else ""
    return f"could not lock {path} for writing: {reason}{hint}; the save on disk was not changed"


class _Saver:
    """Writes one save path; remembers its log files so each save only writes what is new."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.sidecar = sidecar_for(path)
        self.lock = threading.Lock()
        self.writer = _Writer()
        self.present: set[str] | None = None  # log file names in the sidecar
        self.good: set[str] = set()  # ...of which these are known to hold what we would write
        self.backup_round: int | None = None
        self.backup_seq = 0
        self.wrote: tuple[int, ...] | None = None  # the main file as this saver last wrote it

    def save(self, snap: Snapshot) -> None:
        with self.lock:
            key = os.path.abspath(self.path)
            with _held_guard:
                lock = _held.get(key)
            if lock is not None:
                lock.wrote = True
                self._save(snap)
                return
            with lock_save(self.path, "facility-tui (saving)") as lock:  # a writer with no lock
                lock.wrote = True
                self._save(snap)

    def backup(self, snap: Snapshot) -> str:
        """Write ``snap`` as the newest backup (under the lock, as ``save``); its name."""
        with self.lock:
            key = os.path.abspath(self.path)
            with _held_guard:
                held = _held.get(key)
            try:
                if held is not None:
                    held.wrote = True
                    return self._backup(snap)
                with lock_save(self.path, "facility-tui (saving)") as lock:
                    lock.wrote = True
                    return self._backup(snap)
            except OSError as err:
                raise SaveError(
                    _write_error(self.path, err, "no backup of it was written")
                ) from err

    def _save(self, snap: Snapshot) -> None:
        rendered = self.writer.render(snap, inline=False)
        text = rendered.text
        # Written by someone else since this writer last wrote or read it (an editor, or another
        # process between two holds of its lock)? Then it is not written over unasked. One
        # ``stat``, after the rendering so that an edit has the least time to slip in before
        # the file is replaced. A file gone is written again, its folder looked at anew.
        if self.wrote is not None and not _same_file(now := file_signature(self.path), self.wrote):
            if now is not None:
                raise ChangedOnDisk(self.path)
            self.present, self.good, self.backup_round = None, set(), None
        try:
            self.sidecar.mkdir(parents=True, exist_ok=True)
            if self.present is None:
                self._first_look()
            for ch in rendered.chunks:
                self._put_chunk(ch)
            write_atomic(self.path, text)
            self.wrote = file_signature(self.path)
        except OSError as err:
            raise SaveError(_write_error(self.path, err)) from err
        self.writer.chunker.keep(rendered.chunks)
        try:
            if snap.encounter.round != self.backup_round:
                self._backup(snap)
            self._collect({ch.name for ch in rendered.chunks})
        except OSError as err:
            self.writer.forget_unused()
            done = f"the fight was saved but its backup in {self.sidecar} was not written"
            raise SaveError(_write_error(self.path, err, done)) from err
        self.writer.forget_unused()

    def _first_look(self) -> None:
        self.present = {p.name for p in self.sidecar.iterdir() if _CHUNK_NAME.fullmatch(p.name)}
        found = _backups(self.sidecar)
        if found:
            self.backup_seq, self.backup_round = found[0][0], found[0][1]
        self._keep_legacy()

    def _keep_legacy(self) -> None:
        """Keep a copy of a save written by an older version before it is first replaced."""
        try:
            raw = _read(self.path)
        except SaveError:
            return
        if raw.strip() and not raw.startswith(_MAGIC3):  # schema 1 or 2
            stamp = time.strftime("%Y%m%d-%H%M%S")
            text = raw.decode("utf-8", "replace")
            write_atomic(self.sidecar / f"before-upgrade-{stamp}.toml", text)

    def _put_chunk(self, ch: _Chunk) -> None:
        assert self.present is not None
        if ch.name in self.good:
            return
        target = self.sidecar / ch.name
        if ch.name in self.present:
            with contextlib.suppress(SaveError):
                if _read(target) == ch.text.encode("utf-8"):
                    self.good.add(ch.name)
                    return
        write_atomic(target, ch.text)
        self.present.add(ch.name)
        self.good.add(ch.name)

    def _backup(self, snap: Snapshot) -> str:
        self.sidecar.mkdir(parents=True, exist_ok=True)
        text = self.writer.render(snap, inline=True).text
        found = _backups(self.sidecar)  # numbers only grow, whoever wrote the last one
        self.backup_seq = max(self.backup_seq, found[0][0] if found else 0) + 1
        name = f"backup-{self.backup_seq:06d}-r{snap.encounter.round:04d}.toml"
        write_atomic(self.sidecar / name, text)
        self.backup_round = snap.encounter.round
        for _, _, old in _backups(self.sidecar)[BACKUPS_KEPT:]:
            with contextlib.suppress(OSError):
                old.unlink()
        return name

    def _collect(self, used: set[str]) -> None:
        """Delete log files no longer referred to (left by undo across a round, or a crash)."""
        assert self.present is not None
        for name in self.present - used:
            with contextlib.suppress(FileNotFoundError):
                (self.sidecar / name).unlink()
            self.present.discard(name)
            self.good.discard(name)


_savers: dict[str, _Saver] = {}
_savers_lock = threading.Lock()


def _saver(path: Path) -> _Saver:
    key = os.path.abspath(path)
    with _savers_lock:
        saver = _savers.get(key)
        if saver is None:
            saver = _savers[key] = _Saver(path)
        return saver


def _forget(path: Path) -> None:
    with _savers_lock:
        _savers.pop(os.path.abspath(path), None)


def forget(path: Path) -> None:
    """Forget what this process knew of the save at ``path``: its files were moved away or put
    back (the campaign browser), so the next write there looks at them anew."""
    _forget(path)


def save_snapshot(snap: Snapshot, path: Path) -> None:
    """Write ``snap`` to ``path`` (thread-safe; one writer per path at a time)."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise SaveError(_write_error(path, err)) from err
    _saver(path).save(snap)


def save(session: Session, path: Path) -> None:
    save_snapshot(Snapshot.of(session), path)


def load(path: Path) -> Session:
    """The session saved at ``path``; raises ``DamagedSave``, ``NewerSave`` or ``SaveError``.
    A save edited outside facility-tui that passes its checks loads with the edit as its last
    step (``open_save`` says so, and keeps the version before it).

    Reading needs no lock: a writer replaces the main file whole. If the writer removes a log
    file the main file read here referred to (it wrote a newer main file in between), the load
    starts again from the newer one."""
    return _load(path).session


def session_of(raw: bytes, path: Path) -> Session:
    """The session of a save's bytes, read already from ``path`` (``validate`` reads each file
    once, to tell a save from a config file first)."""
    return _session_from(raw, str(path), sidecar_for(path)).session


def _load(path: Path) -> Loaded:
    for attempt in range(5):
        raw, st = read_regular(path)
        try:
            loaded = _session_from(raw, str(path), sidecar_for(path))
            return loaded._replace(read=_signature_of(st))
        except DamagedSave:
            if attempt < 4 and file_signature(path) not in (None, _signature_of(st)):
                continue  # saved again while being read
            _forget(path)  # what this process believed about the files may be wrong
            raise
    raise AssertionError("unreachable")  # pragma: no cover


class Opened(NamedTuple):
    """What ``open_save`` found: the session; a line for the GM (``None`` when all was well);
    for a save edited outside facility-tui, the session as facility-tui last wrote it
    (``before_edit``), to be kept as a backup before the edited one is written over; and for
    a fight opened from its newest good version (``recover``), the file it came from."""

    session: Session
    message: str | None = None
    before_edit: Session | None = None
    recovered_from: Path | None = None


def open_save(path: Path, *, keep_aside: bool = True) -> Opened:
    """The session at ``path``. A save edited outside facility-tui opens with the edit as one
    undoable step; with ``keep_aside`` (the caller will write the save) the version before it
    and the edited one are written as backups first, so the newest good version is never older
    than the edit. This process's writer then expects the file as read (``ChangedOnDisk``).

    A damaged file, or an edit that fails its checks, raises ``DamagedSave`` (``InvalidSave``):
    nothing is opened in its place unasked; ``newest_good`` and ``recover`` offer the newest
    good version. Raises ``SaveError`` if it cannot be read at all."""
    loaded = _load(path)
    if keep_aside:
        expect(path, loaded.read)
    if loaded.edit is None:
        return Opened(loaded.session)
    message = loaded.edit
    if loaded.before is not None:
        message += "; u undoes it"
        if keep_aside:
            try:
                name = keep_backup(loaded.before, path)
                keep_backup(loaded.session, path)  # the edit accepted: the newest good version
                message += f"; the version before it is kept as {name}"
                return Opened(loaded.session, message)
            except SaveError as fail:
                message += f"; {fail}"
    return Opened(loaded.session, message, before_edit=loaded.before)


def expect(path: Path, signature: tuple[int, ...] | None) -> None:
    """This process's writer of ``path`` takes the file as it is now (``signature``) for its
    own: it writes over it, and over nothing else (``ChangedOnDisk``)."""
    saver = _saver(path)
    with saver.lock:
        if signature != saver.wrote:  # written by another since: what it knew may be wrong
            saver.present, saver.good, saver.backup_round = None, set(), None
        saver.wrote = signature


class Good(NamedTuple):
    """The newest good version of a refused save (``newest_good``)."""

    session: Session
    source: Path  # the refused file itself (its last version facility-tui wrote) or a backup
    written: float  # when it was written (seconds since the epoch)
    describe: str  # which version, and how old, for the GM
    lacks: str  # what it lacks compared with the refused file, as far as can be told


def newest_good(path: Path, now: float | None = None) -> Good:
    """The newest version of the refused save at ``path`` that loads: the fight as
    facility-tui last wrote the file (rebuilt from the file's own log and history, checked
    against the fight's checksum: what the GM saw before editing it), else the newest backup
    that loads. Raises ``DamagedSave`` if there is none."""
    now = time.time() if now is None else now
    try:
        raw, st = read_regular(path)
    except SaveError:
        raw, st = b"", None
    sidecar = sidecar_for(path)
    kept = _log_of(raw, str(path), sidecar)
    own = _as_written(raw, str(path), sidecar)
    if own is not None and st is not None:
        return Good(
            own,
            path,
            st.st_mtime,
            f"the fight as facility-tui last wrote {path.name} ({_age(now - st.st_mtime)})",
            "it lacks only the refused edit",
        )
    for candidate in backups(path):
        try:
            session = load(candidate)
            written = candidate.stat().st_mtime
        except (SaveError, OSError):
            continue
        described = (
            f"its backup {candidate.name} of round {session.encounter.round} "
            f"({_age(now - written)})"
        )
        later = st.st_mtime - written if st is not None else 0.0
        return Good(session, candidate, written, described, _lacking(session, kept, later))
    raise DamagedSave(f"no good version of {path.name}: no backup in {sidecar} loads")


def _age(seconds: float) -> str:
    return f"written {_span(seconds)} ago" if seconds >= 60 else "written less than a minute ago"


def _span(seconds: float) -> str:
    minutes = int(max(seconds, 0) // 60)
    if minutes < 120:
        return f"{minutes} min"
    if minutes < 48 * 60:
        return f"{minutes // 60} h"
    return f"{minutes // (24 * 60)} days"


def _lacking(good: Session, kept: tuple[LogEntry, ...] | None, later: float) -> str:
    """What ``good`` lacks compared with a refused file whose log is ``kept`` (``None``: not
    readable) and which was written ``later`` seconds after it."""
    have = good.encounter.log
    if kept is None:
        after = f", written {_span(later)} after it" if later >= 60 else ""
        return f"what it lacks cannot be told (the refused file's log is unreadable{after})"
    if kept == have:
        return "its log is the refused file's: it lacks only what was changed by hand"
    if len(kept) > len(have) and kept[: len(have)] == have:
        missing = kept[len(have) :]
        return (
            f"it lacks the refused file's last {len(missing)} log line(s), the last: "
            f"{missing[-1].text}"
        )
    return "its log and the refused file's differ (another branch of the fight)"


def _log_of(raw: bytes, source: str, sidecar: Path) -> tuple[LogEntry, ...] | None:
    """The log a schema-3 file holds below its separator (which its checksum guards), whatever
    its fight part holds; ``None`` if it cannot be read."""
    try:
        rest = _split3(raw, source).rest
        return _entries(_read_log(_read_toml(rest).get("log"), "log", source, sidecar), "log")
    except Exception:  # damaged in any way: nothing can be told from it
        return None


def _as_written(raw: bytes, source: str, sidecar: Path) -> Session | None:
    """The fight of an edited schema-3 file as facility-tui wrote it before the edit: its log
    and history replayed, and checked against the fight's checksum. ``None`` if the file is
    not an edited one or the fight cannot be rebuilt."""
    try:
        parts = _split3(raw, source)
        if not parts.edited:
            return None
        doc = _read_toml(parts.rest)
        log = _entries(_read_log(doc.get("log"), "log", source, sidecar), "log")
        history = doc.get("history")
        if not isinstance(history, dict):
            return None
        before = _rebuilt(log, _resolved_history(history, source, sidecar))
        if before is None:
            return None
        written = _Writer().state(before.encounter).encode("utf-8")
        return before if _sha256(written) == parts.state_sum else None
    except Exception:  # damaged in any way: the backups are next
        return None


def recover(path: Path, *, keep_aside: bool = True) -> Opened:
    """The newest good version of the refused save at ``path`` (``newest_good``), when the GM
    chose it; with ``keep_aside`` the refused file is renamed aside first (never deleted) and
    the message names it. Raises ``DamagedSave`` if there is no good version."""
    good = newest_good(path)
    opened = f"opened {good.describe}; {good.lacks}"
    if not keep_aside:
        return Opened(good.session, opened, recovered_from=good.source)
    try:
        kept = f"{path.name} kept as {set_aside(path).name}"
    except OSError as move:
        kept = f"could not rename {path.name} aside ({move.strerror or move})"
    return Opened(good.session, f"{kept}; {opened}", recovered_from=good.source)


def load_or_recover(
    path: Path, *, keep_aside: bool = True, from_backup: bool = False
) -> tuple[Session, str | None]:
    """``open_save`` as ``(session, message)``: the message says what was done, or is ``None``.
    With ``from_backup`` a refused save gives its newest good version (``recover``)."""
    try:
        got = open_save(path, keep_aside=keep_aside)
    except DamagedSave:
        if not from_backup:
            raise
        got = recover(path, keep_aside=keep_aside)
    return got.session, got.message


def keep_backup(session: Session, path: Path) -> str:
    """Write ``session`` as the newest backup of the save at ``path`` (the version of a save
    before an edit made outside facility-tui, an edit accepted, the fight as the app closes);
    the backup's file name."""
    return _saver(path).backup(Snapshot.of(session))


def keep_copy(
    path: Path, kind: str, *, text: str | None = None, session: Session | None = None
) -> Path:
    """Keep a version of the save at ``path`` beside it, never deleted:
    ``fight.d/<kind>-<time>.toml``, a whole save (``session``) or the file's own ``text``.
    Raises ``OSError``."""
    folder = sidecar_for(path)
    folder.mkdir(parents=True, exist_ok=True)
    stamp = time.strftime("%Y%m%d-%H%M%S")
    target = folder / f"{kind}-{stamp}{SUFFIX}"
    n = 1
    while target.exists():
        n += 1
        target = folder / f"{kind}-{stamp}-{n}{SUFFIX}"
    if session is not None:
        text = _Writer().render(Snapshot.of(session), inline=True).text
    write_atomic(target, text or "")
    return target


def set_aside(path: Path) -> Path:
    """Rename a rejected save to ``<name>.corrupt-<time>`` next to it (never deleted); the new
    name. Raises ``OSError`` if it cannot be renamed."""
    aside = path.with_name(f"{path.name}.corrupt-{time.strftime('%Y%m%d-%H%M%S')}")
    n = 1
    while aside.exists():
        n += 1
        aside = aside.with_name(f"{path.name}.corrupt-{time.strftime('%Y%m%d-%H%M%S')}-{n}")
    os.replace(path, aside)
    _forget(path)
    return aside


def blank() -> Encounter:
    return Encounter(
        "Untitled", DEFAULT, state=rules_for(DEFAULT).new_state(), handles=0, made_numbered=True
    )


def fresh_session() -> Session:
    return Session(blank())


__all__ = [
    "BACKUPS_KEPT",
    "CHUNK_MAX",
    "CHUNK_MIN",
    "END_LINE",
    "LOCK_NAME",
    "LOG_SCHEMA",
    "MAX_ROLLS",
    "MAX_ROUND",
    "MAX_SAVE_BYTES",
    "NAME_MAX",
    "SCHEMA_VERSION",
    "SEPARATOR",
    "SIDECAR_SUFFIX",
    "SUFFIX",
    "TEMP_PREFIX",
    "_HINTS",
    "ChangedOnDisk",
    "DamagedSave",
    "Good",
    "Holder",
    "InvalidSave",
    "Loaded",
    "NewerSave",
    "Opened",
    "SaveError",
    "SaveHeld",
    "Snapshot",
    "WriteLock",
    "_as_written",
    "_forget",
    "_saver",
    "_sign",
    "_sign3",
    "_table_lines",
    "_write_error",
    "backups",
    "blank",
    "dumps",
    "encounter_data",
    "expect",
    "file_signature",
    "forget",
    "fresh_session",
    "holder",
    "in_use",
    "keep_backup",
    "keep_copy",
    "list_saves",
    "load",
    "load_or_recover",
    "loads",
    "lock_save",
    "newest_good",
    "open_save",
    "path_for",
    "read_regular",
    "recover",
    "save",
    "save_snapshot",
    "session_of",
    "set_aside",
    "sidecar_for",
    "sweep_temp",
    "write_atomic",
]
