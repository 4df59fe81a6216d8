"""Opening a save: its bytes read whole and turned into a session, a hand edit kept aside as
backups before it is written over; and the blank fight a new save starts from."""

from __future__ import annotations

from pathlib import Path
from typing import NamedTuple

from facility_tui.commands.session import Session
from facility_tui.model.encounter import Encounter
from facility_tui.store.errors import DamagedSave, SaveError
from facility_tui.store.files import file_signature, files_for, read_regular, signature_of
from facility_tui.store.reader import Loaded, session_from
from facility_tui.store.saver import expect, forget, keep_backup, remember
from facility_tui.systems import DEFAULT, rules_for


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
    return session_from(raw, str(path), files_for(path)).session


def _load(path: Path, later: bool = False) -> Loaded:
    for attempt in range(5):
        raw, st = read_regular(path)
        try:
            loaded = session_from(raw, str(path), files_for(path), later=later)
            remember(path, loaded.tables)
            return loaded._replace(read=signature_of(st))
        except DamagedSave:
            if attempt < 4 and file_signature(path) not in (None, signature_of(st)):
                continue  # saved again while being read
            forget(path)  # what this process believed about the files may be wrong
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


def open_save(path: Path, *, keep_aside: bool = True, later: bool = False) -> Opened:
    """The session at ``path``. A save edited outside facility-tui opens with the edit as one
    undoable step; with ``keep_aside`` (the caller will write the save) the version before it
    and the edited one are written as backups first, so the newest good version is never older
    than the edit. This process's writer then expects the file as read (``ChangedOnDisk``).

    A damaged file, or an edit that fails its checks, raises ``DamagedSave`` (``InvalidSave``):
    nothing is opened in its place unasked; ``newest_good`` and ``recover`` offer the newest
    good version. Raises ``SaveError`` if it cannot be read at all. ``later``: the undo
    history is replayed when first needed (``Session.settle``), not before the fight shows."""
    loaded = _load(path, later)
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


def blank() -> Encounter:
    return Encounter(
        "Untitled", DEFAULT, state=rules_for(DEFAULT).new_state(), handles=0, made_numbered=True
    )


def fresh_session() -> Session:
    return Session(blank())
