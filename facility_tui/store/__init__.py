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
import os
import threading
import time
from pathlib import Path
from typing import NamedTuple

from facility_tui.model import Encounter, LogEntry
from facility_tui.session import Session
from facility_tui.store.atomic import _HINTS, TEMP_PREFIX, _write_error, sweep_temp, write_atomic
from facility_tui.store.backups import BACKUPS_KEPT, _backups, backups
from facility_tui.store.checks import MAX_ROLLS, MAX_ROUND
from facility_tui.store.errors import (
    ChangedOnDisk,
    DamagedSave,
    InvalidSave,
    NewerSave,
    SaveError,
    SaveHeld,
)
from facility_tui.store.files import (
    MAX_SAVE_BYTES,
    NAME_MAX,
    SIDECAR_SUFFIX,
    SUFFIX,
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
from facility_tui.store.format import (
    _MAGIC3,
    END_LINE,
    LOG_SCHEMA,
    SCHEMA_VERSION,
    SEPARATOR,
    _entries,
    _read_toml,
    _sha256,
    _sign,
    _sign3,
    _table_lines,
    encounter_data,
)
from facility_tui.store.lock import (
    LOCK_NAME,
    Holder,
    WriteLock,
    _held,
    _held_guard,
    holder,
    lock_save,
)
from facility_tui.store.logfiles import _CHUNK_NAME, CHUNK_MAX, CHUNK_MIN, _Chunk, _read_log
from facility_tui.store.reader import (
    Loaded,
    _rebuilt,
    _resolved_history,
    _session_from,
    _split3,
    loads,
)
from facility_tui.store.writer import Snapshot, _Writer, dumps
from facility_tui.systems import DEFAULT, rules_for


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
