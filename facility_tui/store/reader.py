"""Reading a save's bytes back into a session: older schemas through ``migrations``, the log files
read in, the timeline read from the main file (its step files when a walk reaches them) and checked
against the fight by replaying its last step from the nearest fight kept (an older save's history
replayed whole), and a hand edit made one undoable step (or refused)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NamedTuple

from facility_tui.commands.edits import encounter_from
from facility_tui.commands.grammar import CommandError
from facility_tui.commands.session import Later, Session, Step, rebuild, run_step
from facility_tui.commands.timeline import CHECKPOINT_EVERY, ROOT, Node, Older, Timeline
from facility_tui.model.codec import DecodeError
from facility_tui.model.encounter import (
    LATER_FIELDS,
    Combatant,
    Encounter,
    Kind,
    LogEntry,
    as_saved_before,
)
from facility_tui.model.log import Log
from facility_tui.store import statecache
from facility_tui.store.checks import (
    at_line,
    check_edit,
    check_encounter,
    check_keys,
    check_rules,
    check_top,
    empty_like,
    shown,
    sided,
)
from facility_tui.store.errors import DamagedSave, Invalid, InvalidSave, SaveError
from facility_tui.store.format import (
    END_LINE,
    HEADER3,
    MAGIC3,
    SEPARATOR,
    SHAPE_ERRORS,
    as_list,
    decode_steps,
    json_rows,
    log_entries,
    parse,
    read_toml,
    schema_of,
    sha256,
)
from facility_tui.store.logfiles import pages, read_log
from facility_tui.store.migrations import SCHEMA_VERSION
from facility_tui.store.steps import StepChunk, on_disk, read_steps, rows_of, states_of
from facility_tui.store.writer import Writer


def loads(text: str, source: str = "save") -> Session:
    """The session of a self-contained save text (``dumps``, a backup, or an older version)."""
    return session_from(text.encode("utf-8"), source, None).session


class Loaded(NamedTuple):
    """What reading a save gave: the session, and for a save edited outside facility-tui, a
    line saying what changed and the session as facility-tui last wrote it (for a backup)."""

    session: Session
    edit: str | None = None
    before: Session | None = None
    read: tuple[int, ...] | None = None  # the file's signature as read (``file_signature``)
    # each combatant with its table's text as read, for the next save to reuse (``tables``)
    tables: tuple[tuple[Combatant, str], ...] = ()


_BOM = b"\xef\xbb\xbf"  # what some editors put at the top of a UTF-8 file: not the save's


def session_from(raw: bytes, source: str, sidecar: Path | None, *, later: bool = False) -> Loaded:
    """The session of a save's bytes; ``later``: its history replayed when first needed."""
    from facility_tui.store.migrations import migrate

    raw = raw.removeprefix(_BOM)
    if raw.startswith(MAGIC3):
        return _session_from_v3(raw, source, sidecar, later)
    doc = parse(raw, source)
    try:
        if doc["schema_version"] >= 2:
            doc = _resolve(doc, source, sidecar)
        doc = migrate(doc)
        check_encounter(doc.get("encounter"), "encounter")
        log = log_entries(doc.get("log"), "log")
        enc = encounter_from(doc.get("encounter"), log=log)
    except Invalid as err:
        raise InvalidSave(f"{source}: {err}; it was left untouched") from None
    except SHAPE_ERRORS as err:  # any shape a damaged or hand-made file can take
        raise DamagedSave(f"{source} is damaged ({_reason(err)}); it was left untouched") from None
    return Loaded(_with_history(enc, doc.get("history"), later))


class _Parts(NamedTuple):
    state: str  # the fight: from the second line to the separator
    rest: str  # the log and the history: from the separator to the end line
    state_sum: str  # the checksum the header gives the state
    edited: bool  # the state's checksum does not match: changed outside facility-tui


def split3(raw: bytes, source: str) -> _Parts:
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
    header = HEADER3.fullmatch(text[:nl]) if nl >= 0 else None
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
    if sha256(rest.encode("utf-8")) != header.group(2):
        raise DamagedSave(
            f"{source} is damaged: its log and history (below the separator line) do not match "
            "their checksum (they are not to be edited); it was left untouched"
        )
    digest = sha256(state.encode("utf-8"))
    return _Parts(state, rest, header.group(1), digest != header.group(1))


def _session_from_v3(raw: bytes, source: str, sidecar: Path | None, later: bool) -> Loaded:
    parts = split3(raw, source)
    offset = 1  # the state part starts on the file's second line
    try:
        doc, lines = _parsed(parts, sidecar)
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
        check_top(doc, parts.state, source, offset)
    schema_of(doc, source)
    try:
        try:
            doc = _resolve3(doc, source, sidecar)
            if not isinstance(doc.get("history"), SavedTimeline):
                from facility_tui.store.migrations import migrate

                doc = migrate(doc)  # a schema-3 history: the timeline's main line
            enc, history = _fight3(doc, parts.edited)
        except (Invalid, DecodeError, *SHAPE_ERRORS) as err:
            if not parts.edited:
                raise
            raise InvalidSave(at_line(source, parts.state, offset, err)) from None
    except Invalid as err:
        raise InvalidSave(f"{source}: {err}; it was left untouched") from None
    except SHAPE_ERRORS as err:
        raise DamagedSave(f"{source} is damaged ({_reason(err)}); it was left untouched") from None
    if not parts.edited:
        if lines is not None:
            statecache.remember(enc.combatants, lines)
        return Loaded(_with_history(enc, history, later), tables=tables(parts.state, enc))
    return _edited(enc, history, parts, source, offset)


def _parsed(parts: _Parts, sidecar: Path | None) -> tuple[dict[str, Any], list[str] | None]:
    """The document of a schema-3 file, and for a fight whose combatants came from their copy
    (``statecache``: unedited, and copied when saved), their lines; else all of it as TOML."""
    copy = None
    if not parts.edited and sidecar is not None:
        copy = statecache.combatants_of(sidecar, parts.state, parts.state_sum)
    if copy is None:
        return read_toml(parts.state + parts.rest), None
    head, order = statecache.lift_order(statecache.head(parts.state))
    doc = read_toml(head + parts.rest)
    if order is not None:
        encounter = doc.get("encounter")
        if not isinstance(encounter, dict) or "order" in encounter:  # pragma: no cover
            return read_toml(parts.state + parts.rest), None  # (not as the writer lays it out)
        encounter["order"] = order
    if copy[0]:
        doc["combatants"] = copy[0]
    return doc, copy[1]


_TABLE = statecache.TABLE


def tables(state: str, enc: Encounter) -> tuple[tuple[Combatant, str], ...]:
    """Each combatant of a state part facility-tui wrote, with its table's text: a save of a
    thousand combatants reformats only those that changed since (``Writer.remember``). Empty
    if the text does not split into one table per combatant, as the writer lays them out."""
    starts = []
    at = state.find(_TABLE)
    while at >= 0:
        starts.append(at)
        at = state.find(_TABLE, at + 1)
    if not starts or len(starts) != len(enc.combatants) or not state.endswith("\n\n"):
        return ()
    ends = [*starts[1:], len(state) - 1]
    return tuple((c, state[a:b]) for c, a, b in zip(enc.combatants, starts, ends, strict=True))


def _resolve3(doc: dict[str, Any], source: str, sidecar: Path | None) -> dict[str, Any]:
    """A schema-3 document laid out like a resolved schema-2 one (``migrations``): the
    combatants inside ``encounter``, the logs read in as rows."""
    if doc.get("kind") != "save":
        raise DecodeError(f"a {doc.get('kind')!r} file, not a save")
    encounter = doc.get("encounter")
    if not isinstance(encounter, dict):
        raise Invalid("encounter must be a table")
    combatants = doc.get("combatants", [])
    if "combatants" in encounter:
        raise Invalid("encounter.combatants: combatants are [[combatants]] tables of their own")
    out = dict(doc)
    out.pop("combatants", None)
    out["encounter"] = {**encounter, "combatants": combatants}
    out["log"] = pages(doc.get("log"), "log", source, sidecar)
    history = doc.get("history")
    if isinstance(history, dict):
        out["history"] = resolved_history(history, source, sidecar, lazy=True)
    if "timeline" in doc:
        out["history"] = SavedTimeline(doc["timeline"], source, sidecar)
    out.pop("timeline", None)
    return out


def _fight3(doc: dict[str, Any], strict: bool) -> tuple[Encounter, Any]:
    data = doc["encounter"]
    check_encounter(data, "encounter", "combatants")
    if strict:
        check_keys(data)
    log = doc.get("log")
    return encounter_from(data, log=log), doc.get("history")


def _edited(enc: Encounter, history: Any, parts: _Parts, source: str, offset: int) -> Loaded:
    """A save whose fight was changed outside facility-tui and reads as a fight: the history
    up to the state facility-tui wrote (replayed, and checked against the state's checksum),
    then the edit as one step. If that state cannot be rebuilt, the edited fight opens alone."""
    from facility_tui.commands import edits as handedit

    enc = sided(enc, parts.state, source, offset)
    before = rebuilt(enc.log, history)
    kept = () if before is None else before.encounter.combatants
    enc = handedit.numbered(enc, frozenset(c.id for c in kept if not c.handle))
    if before is not None and before.encounter == enc:
        before.encounter = enc
        return Loaded(before)  # only comments or layout changed (or the checksum line)
    before = written_as(before, parts.state_sum)
    if before is None:
        check_edit(handedit.changes(empty_like(enc), enc), enc, parts.state, source, offset)
        check_rules(None, enc, parts.state, source, offset)
        note = (
            "Edited outside facility-tui; the state before the edit could not be rebuilt, so "
            "the fight opens without its undo history"
        )
        return Loaded(Session(enc.logged(note, Kind.OVERRIDE)), f"{source}: {note.lower()}")
    found = handedit.changes(before.encounter, enc)
    check_edit(found, enc, parts.state, source, offset)
    check_rules(before.encounter, enc, parts.state, source, offset)
    summary = handedit.describe(found)
    step = Step(handedit.EDIT_LINE, (), handedit.edit_data(before.encounter, enc, summary))
    after = before.fork()
    after.record(step)
    return Loaded(after, f"{source} was edited outside facility-tui: {summary}", before)


def _reason(err: Exception) -> str:
    text = str(err).splitlines()[0] if str(err) else ""
    return text[:200] or type(err).__name__


def _resolve(doc: dict[str, Any], source: str, sidecar: Path | None) -> dict[str, Any]:
    """Read the log files a schema-2 document refers to; its logs become lists of rows."""
    if doc.get("kind") != "save":
        raise DecodeError(f"a {doc.get('kind')!r} file, not a save")
    out = dict(doc)
    out["encounter"] = _unpacked(doc.get("encounter"), "encounter")
    out["log"] = read_log(doc.get("log"), "log", source, sidecar)
    history = doc.get("history")
    if isinstance(history, dict):
        out["history"] = resolved_history(history, source, sidecar)
    return out


def resolved_history(
    history: dict[str, Any], source: str, sidecar: Path | None, *, lazy: bool = False
) -> Any:
    """The history table with its steps, base and base log read from their lines (schema 2 and
    3 keep it alike; ``lazy``: the base log's files as pages, ``logfiles.pages``)."""
    history = dict(history)
    for key in ("undo", "redo"):
        history[key] = json_rows(history.get(key, ""), f"history.{key}")
    if "base" in history:
        history["base"] = _unpacked(history["base"], "history.base")
    if "base_rows" in history:
        read = pages if lazy else read_log
        history["base_rows"] = read(history["base_rows"], "history.base_rows", source, sidecar)
    return history


def _unpacked(encounter: Any, where: str) -> dict[str, Any]:
    """An encounter table with its combatants read from their JSON lines."""
    if not isinstance(encounter, dict):
        raise DecodeError(f"{where}: expected a table")
    out = dict(encounter)
    if "combatants" in encounter:  # (a missing key stays missing, for check_encounter to name)
        lines = encounter["combatants"]
        if not isinstance(lines, str):
            raise Invalid(f"{where}.combatants must be lines of tables, got {shown(lines)}")
        out["combatants"] = json_rows(lines, f"{where}.combatants")
    return out


class _Saved(NamedTuple):
    """A history as saved: its oldest state and the steps from it, decoded, not replayed."""

    base: Encounter
    undo: list[Step]
    redo: list[Step]


def _saved_history(log: Log[LogEntry], history: dict[str, Any]) -> _Saved | None:
    try:
        undo = decode_steps(history.get("undo", []), "history.undo")
        redo = decode_steps(history.get("redo", []), "history.redo")
        if "base_rows" in history:
            rows = history["base_rows"]
            base_log = rows if isinstance(rows, Log) else log_entries(rows, "history.base_rows")
        else:
            n = history.get("base_log", 0)
            if type(n) is not int or not 0 <= n <= len(log):
                raise DecodeError("history.base_log out of range")
            base_log = log.head(n)
        check_encounter(history.get("base"), "history.base")
        return _Saved(encounter_from(history["base"], log=base_log), undo, redo)
    except Exception:  # a history that cannot be read is dropped, whatever the reason
        return None


def _replayed(saved: _Saved, log: Log[LogEntry]) -> Session | None:
    try:
        return _in_saved_words(rebuild(saved.base, saved.undo, saved.redo), log)
    except Exception:  # a history that does not replay is dropped, whatever the reason
        return None


def rebuilt(log: Sequence[LogEntry], history: Any) -> Session | None:
    """The session the history leads to (its base, replayed), or ``None`` if it does not."""
    if isinstance(history, SavedTimeline):
        try:
            tl = read_timeline(history, Log.of(log))
            if tl.current == ROOT:
                return Session(tl.root, timeline=tl)
            at = run_step(tl.state_at(tl.parent(tl.current), run_step), tl.node(tl.current).step)
            tl.keep(tl.current, at)
            return Session(at, timeline=tl)
        except Exception:  # a timeline that cannot be read or replayed: none
            return None
    if not isinstance(history, dict):
        return None
    log = Log.of(log)
    saved = _saved_history(log, history)
    return None if saved is None else _replayed(saved, log)


def _in_saved_words(session: Session, log: Log[LogEntry]) -> Session:
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
            state = evolve(state, log=log.head(n))
        undo.append((step, state))
    return Session(evolve(session.encounter, log=log), undo, session.redo_steps)


def _as_saved(session: Session | None, enc: Encounter) -> Session | None:
    """The replayed ``session`` with the saved fight ``enc`` as its state when they differ only
    in what a save written before some combatant fields lacks (``model.LATER_FIELDS``: the
    replay gives them, the saved fight has none), so an older save keeps its history."""
    if session is None or session.encounter == enc:
        return session
    got = session.encounter
    if len(got.combatants) != len(enc.combatants):
        return session
    if any(getattr(c, f) for c in enc.combatants for f in LATER_FIELDS):
        return session  # (a save that has them: any difference is a real one)
    if as_saved_before(got, enc) != enc:
        return session
    return Session(enc, session.undo_states, session.redo_steps)


def written_as(before: Session | None, state_sum: str) -> Session | None:
    """``before`` if its fight is what a save's checksum says was written: as replayed, or as
    a save written before some combatant fields (``model.LATER_FIELDS``) holds it."""
    if before is None:
        return None
    for enc in (before.encounter, as_saved_before(before.encounter)):
        for schema in (SCHEMA_VERSION, 3):  # (a schema-3 file, not saved since)
            if sha256(Writer().state(enc, schema).encode("utf-8")) == state_sum:
                before.encounter = enc
                return before
    return None


def _with_history(enc: Encounter, history: Any, later: bool = False) -> Session:
    """The session of ``enc`` and its saved history, replayed and checked; with ``later``,
    replayed when first needed (``Session.settle``): opening reads the fight, not its steps."""
    if isinstance(history, SavedTimeline):
        return _with_timeline(enc, history, later)
    if not isinstance(history, dict):
        return Session(enc)
    saved = _saved_history(enc.log, history)
    session = None if saved is None else _as_saved(_replayed(saved, enc.log), enc)
    if session is None or session.encounter != enc:
        note = "Undo history could not be rebuilt from the save; the fight itself is intact"
        return Session(enc.logged(note, Kind.INFO))
    session.encounter = enc  # identical value; keep the loaded one
    return session


# -- the timeline (schema 4) ---------------------------------------------------------------------


class SavedTimeline(NamedTuple):
    """A main file's ``[timeline]`` table as read, with where its step files are."""

    table: Any
    source: str
    sidecar: Path | None


def _rows(table: dict[str, Any], key: str, shape: tuple[type, ...]) -> list[Any]:
    rows = json_rows(table.get(key, ""), f"timeline.{key}")
    for row in rows:
        if not isinstance(row, list) or [type(v) for v in row] != list(shape):
            raise DecodeError(f"timeline.{key}: a line is not {[t.__name__ for t in shape]}")
    return rows


def read_timeline(saved: SavedTimeline, log: Log[LogEntry]) -> Timeline:
    """The timeline a main file holds: its newest nodes, its tables, its root and the fight
    kept nearest its current node; the step files listed, read when a walk reaches them.
    Raises (``DecodeError``, ``Invalid``...) if it is not one."""
    table, source, sidecar = saved
    if not isinstance(table, dict):
        raise DecodeError("timeline: expected a table")
    current, sealed = table.get("current"), table.get("sealed", 0)
    if type(current) is not int or type(sealed) is not int or current < 0 or sealed < 0:
        raise DecodeError("timeline.current and timeline.sealed must be whole numbers")
    stored = on_disk(table.get("files", ""), sealed, sidecar)
    rows = [node_row(r) for r in json_rows(table.get("nodes", ""), "timeline.nodes")]
    if [n.id for n, _ in rows] != list(range(sealed + 1, sealed + 1 + len(rows))):
        raise DecodeError("timeline.nodes: not the nodes after the sealed ones")
    last = sealed + len(rows)
    if current > last:
        raise DecodeError("timeline.current: no such node")
    hidden = as_list(table.get("hidden", []), "timeline.hidden")
    if not all(type(h) is int and 0 < h <= last for h in hidden):
        raise DecodeError("timeline.hidden: expected node ids")
    names = {k: v for k, v in _rows(table, "names", (int, str))}
    walked = {k: v for k, v in _rows(table, "walked", (int, int))}
    root = _kept_fight(table.get("root"), "timeline.root", table, log, source, sidecar)
    depths = {n.id: d for n, d in rows}
    kept = []
    for st in as_list(table.get("states", []), "timeline.states"):
        nid, depth, enc = _kept_state(st, "timeline.states", log, source, sidecar)
        depths[nid] = depth
        kept.append((nid, enc))
    files = _StepFiles(stored.chunks, source, log)
    tl = Timeline(
        root,
        [n for n, _ in rows],
        current,
        names=names,
        hidden=hidden,
        walked=walked,
        older_from=files.older_from if stored.chunks else None,
        older_at=files.older_at if stored.chunks else None,
        older_below=sealed + 1,
        depths=depths,
        stored_state=files.state if stored.chunks else None,
    )
    for nid, enc in kept:
        tl.keep(nid, enc)
    tl.stored = stored
    return tl


def node_row(row: Any) -> tuple[Node, int]:
    from facility_tui.store.steps import node_of

    # (below the separator: the checksum matched, or the file was refused, ``split3``)
    return node_of(row, "timeline.nodes", lazy=True)


def _kept_fight(
    data: Any, where: str, table: Any, log: Log[LogEntry], source: str, sidecar: Path | None
) -> Encounter:
    """The root fight: its log the first ``root_log`` entries of the save's, or its own."""
    if "root_rows" in table:
        own = pages(table["root_rows"], "timeline.root_rows", source, sidecar)
    else:
        n = table.get("root_log", 0)
        if type(n) is not int or not 0 <= n <= len(log):
            raise DecodeError("timeline.root_log out of range")
        own = log.head(n)
    fight = _unpacked(data, where)
    check_encounter(fight, where)
    return encounter_from(fight, log=own)


def _kept_state(
    st: Any,
    where: str,
    log: Log[LogEntry] | None,
    source: str,
    sidecar: Path | None,
    known: dict[str, tuple[int, Any]] | None = None,
) -> tuple[int, int, Encounter]:
    """A kept fight (``[[states]]``): its node, its depth, the fight with its log."""
    if not isinstance(st, dict):
        raise DecodeError(f"{where}: expected a table")
    nid, depth = st.get("node"), st.get("depth")
    if type(nid) is not int or type(depth) is not int or nid < 1 or depth < 1:
        raise DecodeError(f"{where}: node and depth must be whole numbers")
    if "log_prefix" in st:
        n = st["log_prefix"]
        if log is None or type(n) is not int or not 0 <= n <= len(log):
            raise DecodeError(f"{where}.log_prefix out of range")
        own = log.head(n)
    else:
        shared = _shared(st.get("log"), f"{where}.log", known or {})
        own = (
            shared if shared is not None else pages(st.get("log"), f"{where}.log", source, sidecar)
        )
    fight = _unpacked(st.get("fight"), f"{where}.fight")
    check_encounter(fight, f"{where}.fight")
    return nid, depth, encounter_from(fight, log=own)


def _shared(table: Any, where: str, known: dict[str, tuple[int, Any]]) -> Log[LogEntry] | None:
    """A kept fight's log made of the save's own log files (checked as it opened, each read
    when wanted), if every file it lists is one of them in its place; else ``None``."""
    if not isinstance(table, dict) or not isinstance(files := table.get("files", []), list):
        return None
    blocks, start = [], 0
    for name in files:
        found = known.get(name)
        if found is None or found[0] != start:
            return None
        blocks.append(found[1])
        start += len(found[1])
    tail = log_entries(json_rows(table.get("entries", ""), f"{where}.entries"), where)
    return Log(tuple(blocks), tail)


class _StepFiles:
    """A timeline's step files, read when a walk reaches them (``Timeline(older_from=...)``).
    A file gone or damaged since the save was opened stops the walk with a line that says so
    (``CommandError``: the fight is untouched)."""

    def __init__(self, chunks: Sequence[StepChunk], source: str, log: Log[LogEntry]) -> None:
        self.chunks = tuple(chunks)
        self.source = source
        self.sidecar = chunks[0].folder if chunks else None
        # the save's log files, checked as it opened: a kept fight's log shares them
        self.known = {
            b.stored.name: (b.stored.start, b) for b in log.blocks if hasattr(b.stored, "name")
        }
        self._docs: dict[str, dict[str, Any]] = {}

    def _index(self, nid: int) -> int | None:
        for i, ch in enumerate(self.chunks):  # (a few hundred at most: a bisect is not needed)
            if ch.first <= nid < ch.first + ch.count:
                return i
        return None

    def _doc(self, ch: StepChunk) -> dict[str, Any]:
        doc = self._docs.get(ch.name)
        if doc is not None:
            return doc
        try:
            doc = read_steps(ch, self.source)
        except (SaveError, DecodeError) as err:
            raise CommandError(f"the timeline cannot go there: {err}") from None
        self._docs[ch.name] = doc  # (a jump reads a file's nodes, then its kept fight)
        while len(self._docs) > 4:
            self._docs.pop(next(iter(self._docs)))
        return doc

    def older_from(self, nid: int) -> Older:
        return self._part(nid, None)

    def older_at(self, nid: int) -> Older:
        return self._part(nid, 1)

    def _part(self, nid: int, files: int | None) -> Older:
        at = self._index(max(nid, 1))
        if at is None:
            return Older(1, (), {})
        nodes, depths = [], {}
        for ch in self.chunks[at : None if files is None else at + files]:
            try:
                rows = rows_of(self._doc(ch), ch)
            except SHAPE_ERRORS as err:
                raise CommandError(f"the timeline cannot go there: {ch.name}: {err}") from None
            for node, depth in rows:
                nodes.append(node)
                depths[node.id] = depth
        return Older(self.chunks[at].first, nodes, depths)

    def state(self, nid: int) -> Encounter | None:
        at = self._index(nid)
        if at is None:
            return None
        ch = self.chunks[at]
        doc = self._doc(ch)
        try:
            for st in states_of(doc, ch.name):
                if st.get("node") == nid:
                    where = f"{ch.name}.states"
                    return _kept_state(st, where, None, self.source, self.sidecar, self.known)[2]
        except (Invalid, *SHAPE_ERRORS):
            return None  # (replayed from an older one instead)
        return None


def _accepted(got: Encounter, enc: Encounter, tl: Timeline | None = None, at: int = 0) -> bool:
    """Whether a replayed fight is the saved one: the same, or differing only in the words of
    its log lines (a later version words them otherwise: same rounds and kinds: the fights
    just replayed on the way to node ``at`` take the saved words too, as ``_in_saved_words``)
    and in what a save written before some combatant fields lacks (``model.LATER_FIELDS``)."""
    if got == enc:
        return True
    from attrs import evolve

    a, b = got.log, enc.log
    reworded = a != b and len(a) == len(b)
    if reworded and all(x.round == y.round and x.kind == y.kind for x, y in zip(a, b, strict=True)):
        got = evolve(got, log=b)
    if got != enc:
        if len(got.combatants) != len(enc.combatants):
            return False
        if any(getattr(c, f) for c in enc.combatants for f in LATER_FIELDS):
            return False
        if as_saved_before(got, enc) != enc:
            return False
    if reworded and tl is not None:
        for _ in range(CHECKPOINT_EVERY + 1):
            if at == ROOT or (state := tl.known(at)) is None:
                break
            n = len(state.log)
            if n and n <= len(a) and state.log[n - 1] is a[n - 1]:
                tl.keep(at, evolve(state, log=b.head(n)))
            at = tl.parent(at)
    return True


def _with_timeline(enc: Encounter, saved: SavedTimeline, later: bool) -> Session:
    """The session of ``enc`` and its saved timeline: checked now, or with ``later`` when first
    needed; one that cannot be read or does not lead to ``enc`` is dropped with a note."""
    note = "Undo history could not be rebuilt from the save; the fight itself is intact"
    try:
        tl = read_timeline(saved, enc.log)
    except Exception:  # a timeline that cannot be read is dropped, whatever the reason
        return Session(enc.logged(note, Kind.INFO))
    opened = tl.current

    def check(tl: Timeline) -> bool:
        try:
            if opened == ROOT:
                return _accepted(tl.root, enc)
            before = tl.state_at(tl.parent(opened), run_step)
            return _accepted(run_step(before, tl.node(opened).step), enc, tl, tl.parent(opened))
        except Exception:  # a timeline that does not replay is dropped, whatever the reason
            return False

    if not later and not check(tl):
        return Session(enc.logged(note, Kind.INFO))
    if opened != ROOT:
        tl.keep(opened, enc)
    pending = Later(check, opened, tl.last_id, enc) if later else None
    return Session(enc, later=pending, timeline=tl)
