"""Writing a save: one writer per path in this process, which writes only the log and step files
that are new, then the main file, then a backup when the round changed, and never over a file
changed since it last wrote or read it (``ChangedOnDisk``). Written files are never deleted: the
timeline keeps every step, and a log file may hold the log of a fight kept on another branch."""

from __future__ import annotations

import contextlib
import os
import threading
import time
from collections.abc import Sequence
from pathlib import Path

from facility_tui.commands.session import Session
from facility_tui.model.encounter import Combatant
from facility_tui.store import statecache
from facility_tui.store.atomic import write_atomic, write_error
from facility_tui.store.backups import BACKUPS_KEPT, backup_entries
from facility_tui.store.errors import ChangedOnDisk, SaveError
from facility_tui.store.files import SUFFIX, file_signature, read_file, same_file, sidecar_for
from facility_tui.store.format import MAGIC3
from facility_tui.store.lock import held_guard, held_locks, lock_save
from facility_tui.store.logfiles import Chunk
from facility_tui.store.steps import StepChunk
from facility_tui.store.writer import Snapshot, Writer


class _Saver:
    """Writes one save path; remembers its log files so each save only writes what is new."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.sidecar = sidecar_for(path)
        self.lock = threading.Lock()
        self.writer = Writer()
        self.present: set[str] | None = None  # log file names in the sidecar
        self.good: set[str] = set()  # ...of which these are known to hold what we would write
        self.backup_round: int | None = None
        self.backup_seq = 0
        self.wrote: tuple[int, ...] | None = None  # the main file as this saver last wrote it
        self._seen_folder: Path | None = None
        self._seen_here = False
        self.copies = statecache.Copies()  # its combatants as JSON, for a quick read

    def save(self, snap: Snapshot) -> None:
        with self.lock:
            key = os.path.abspath(self.path)
            with held_guard:
                lock = held_locks.get(key)
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
            with held_guard:
                held = held_locks.get(key)
            try:
                if held is not None:
                    held.wrote = True
                    return self._backup(snap)
                with lock_save(self.path, "facility-tui (saving)") as lock:
                    lock.wrote = True
                    return self._backup(snap)
            except OSError as err:
                raise SaveError(write_error(self.path, err, "no backup of it was written")) from err

    def _save(self, snap: Snapshot) -> None:
        rendered = self.writer.render(snap, inline=False)
        text = rendered.text
        # Written by someone else since this writer last wrote or read it (an editor, or another
        # process between two holds of its lock)? Then it is not written over unasked. One
        # ``stat``, after the rendering so that an edit has the least time to slip in before
        # the file is replaced. A file gone is written again, its folder looked at anew.
        if self.wrote is not None and not same_file(now := file_signature(self.path), self.wrote):
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
            self.copies.put(self.sidecar, rendered.state, snap.encounter.combatants)
        except OSError as err:
            raise SaveError(write_error(self.path, err)) from err
        try:
            if snap.encounter.round != self.backup_round:
                self._write_backup(snap.encounter.round, text)  # (what was just saved)
        except OSError as err:
            self.writer.forget_unused()
            done = f"the fight was saved but its backup in {self.sidecar} was not written"
            raise SaveError(write_error(self.path, err, done)) from err
        self.writer.forget_unused()

    def _first_look(self) -> None:
        names = os.listdir(self.sidecar)
        self.present = set(names)  # (only ever asked about log and step file names)
        found = backup_entries(self.sidecar, names)
        if found:
            self.backup_seq, self.backup_round = found[0][0], found[0][1]
        self._keep_legacy()

    def _keep_legacy(self) -> None:
        """Keep a copy of a save written by an older version before it is first replaced."""
        try:
            raw = read_file(self.path)
        except SaveError:
            return
        if raw.strip() and not raw.startswith(MAGIC3):  # schema 1 or 2
            stamp = time.strftime("%Y%m%d-%H%M%S")
            text = raw.decode("utf-8", "replace")
            write_atomic(self.sidecar / f"before-upgrade-{stamp}.toml", text)

    def _put_chunk(self, ch: Chunk | StepChunk) -> None:
        assert self.present is not None
        if ch.name in self.good:
            return
        if isinstance(ch, StepChunk):  # the log files its fights refer to first
            for log in ch.logs:
                self._put_chunk(log)
        if ch.name in self.present and ch.folder is not None and self._here(ch.folder):
            self.good.add(ch.name)  # read from it (checked when it is read)
            return
        target = self.sidecar / ch.name
        if ch.name in self.present:
            with contextlib.suppress(SaveError):
                if read_file(target) == ch.text.encode("utf-8"):
                    self.good.add(ch.name)
                    return
        write_atomic(target, ch.text)
        self.present.add(ch.name)
        self.good.add(ch.name)
        if isinstance(ch, StepChunk) and ch.origin is None:  # its text is the file's from now on
            ch.folder, ch.origin, ch.text_made = self.sidecar, target, None

    def _here(self, folder: Path) -> bool:
        """Whether ``folder`` is this save's sidecar (a file read from there is one of its own);
        the answer kept for the folder last asked about (every file of a save shares one)."""
        if folder is not self._seen_folder:
            self._seen_folder, self._seen_here = folder, folder == self.sidecar
        return self._seen_here

    def _backup(self, snap: Snapshot) -> str:
        rendered = self.writer.render(snap, inline=False)
        self.sidecar.mkdir(parents=True, exist_ok=True)
        if self.present is None:
            self._first_look()
        for ch in rendered.chunks:
            self._put_chunk(ch)
        return self._write_backup(snap.encounter.round, rendered.text)

    def _write_backup(self, round_: int, text: str) -> str:
        """A backup is a main file's text beside the write-once files it refers to (never
        rewritten, named after their checksums): it costs what a save does, whatever the
        fight's length; ``recovery`` checks that the files it needs are whole."""
        found = backup_entries(self.sidecar)  # numbers only grow, whoever wrote the last one
        self.backup_seq = max(self.backup_seq, found[0][0] if found else 0) + 1
        name = f"backup-{self.backup_seq:06d}-r{round_:04d}.toml"
        write_atomic(self.sidecar / name, text)
        self.backup_round = round_
        for old in [p for _, _, p in found][BACKUPS_KEPT - 1 :]:  # (the new one is the newest)
            with contextlib.suppress(OSError):
                old.unlink()
        return name


_savers: dict[str, _Saver] = {}
_savers_lock = threading.Lock()


def saver_for(path: Path) -> _Saver:
    key = os.path.abspath(path)
    with _savers_lock:
        saver = _savers.get(key)
        if saver is None:
            saver = _savers[key] = _Saver(path)
        return saver


def remember(path: Path, tables: Sequence[tuple[Combatant, str]]) -> None:
    """The combatants' tables of the save just read at ``path``, for its next save to reuse."""
    saver_for(path).writer.remember(tables)


def forget(path: Path) -> None:
    """Forget what this process knew of the save at ``path``: its files were moved away or put
    back (the campaign browser), or read as damaged, so the next write there looks at them anew."""
    with _savers_lock:
        _savers.pop(os.path.abspath(path), None)


def save_snapshot(snap: Snapshot, path: Path) -> None:
    """Write ``snap`` to ``path`` (thread-safe; one writer per path at a time)."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise SaveError(write_error(path, err)) from err
    saver_for(path).save(snap)


def save(session: Session, path: Path) -> None:
    save_snapshot(Snapshot.of(session), path)


def expect(path: Path, signature: tuple[int, ...] | None) -> None:
    """This process's writer of ``path`` takes the file as it is now (``signature``) for its
    own: it writes over it, and over nothing else (``ChangedOnDisk``)."""
    saver = saver_for(path)
    with saver.lock:
        if signature != saver.wrote:  # written by another since: what it knew may be wrong
            saver.present, saver.good, saver.backup_round = None, set(), None
        saver.wrote = signature


def keep_backup(session: Session, path: Path) -> str:
    """Write ``session`` as the newest backup of the save at ``path`` (the version of a save
    before an edit made outside facility-tui, an edit accepted, the fight as the app closes);
    the backup's file name."""
    return saver_for(path).backup(Snapshot.of(session))


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
        text = Writer().render(Snapshot.of(session), inline=True).text
    write_atomic(target, text or "")
    return target
