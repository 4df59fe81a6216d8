"""Saving and loading sessions as TOML, atomically.

A save file holds the current encounter, the oldest encounter undo can reach (``history.base``,
without its log, which is a prefix of the current one) and the steps from there, plus the redo
steps. Loading replays the steps with their recorded dice and checks they arrive at the saved
encounter; if the rules changed since and they do not, the fight loads without its history.

Writes never leave a half file: the text is serialized first, written to a temporary file in the
same folder, flushed and fsynced, moved over the old file with ``os.replace`` and the folder fsynced.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
import tomllib
from pathlib import Path
from typing import Any

import tomli_w

from facility_tui import __version__
from facility_tui.codec import DecodeError, decode, decode_attrs, encode
from facility_tui.commands import CommandError
from facility_tui.model import Combatant, Encounter, Kind, LogEntry, System
from facility_tui.session import Session, Step, rebuild
from facility_tui.systems import rules_for

SCHEMA_VERSION = 1
SUFFIX = ".toml"
TEMP_PREFIX = ".tmp-"


class SaveError(Exception):
    """A save that cannot be read or written; the message names the file and what to do."""


# -- encounter <-> data -------------------------------------------------------------------------


def encounter_data(enc: Encounter, *, with_log: bool = True) -> dict[str, Any]:
    data: dict[str, Any] = encode(enc)
    if not with_log:
        data.pop("log", None)
    return data


def encounter_from(data: Any, *, log: tuple[LogEntry, ...] | None = None) -> Encounter:
    if not isinstance(data, dict):
        raise DecodeError("encounter: expected a table")
    system = decode(System, data.get("system"), where="encounter.system")
    rules = rules_for(system)
    combatants = tuple(
        decode_attrs(
            Combatant,
            c,
            where=f"combatants[{i}]",
            sheet=decode_attrs(rules.sheet_type, c.get("sheet", {}), where=f"combatants[{i}].sheet")
            if isinstance(c, dict)
            else None,
        )
        for i, c in enumerate(_list(data.get("combatants", []), "combatants"))
    )
    given: dict[str, Any] = {
        "combatants": combatants,
        "state": decode_attrs(rules.state_type, data.get("state", {}), where="state"),
    }
    if log is not None:
        given["log"] = log
    return decode_attrs(Encounter, data, where="encounter", **given)  # type: ignore[no-any-return]


def _list(value: Any, where: str) -> list[Any]:
    if not isinstance(value, list):
        raise DecodeError(f"{where}: expected a list")
    return value


def _steps(value: Any, where: str) -> list[Step]:
    return [decode(Step, s, where=f"{where}[{i}]") for i, s in enumerate(_list(value, where))]


# -- session <-> text ---------------------------------------------------------------------------


def dumps(session: Session) -> str:
    enc = session.encounter
    base = session.base
    doc: dict[str, Any] = {
        "schema_version": SCHEMA_VERSION,
        "app": f"facility-tui {__version__}",
        "encounter": encounter_data(enc),
        "history": {
            "base_log": len(base.log),
            "base": encounter_data(base, with_log=False),
            "undo": [encode(s) for s in session.undo_steps],
            "redo": [encode(s) for s in session.redo_steps],
        },
    }
    return tomli_w.dumps(doc)


def loads(text: str, source: str = "save") -> Session:
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        raise SaveError(f"{source} is not a readable save ({err}); it was left untouched") from None
    version = doc.get("schema_version")
    if not isinstance(version, int):
        raise SaveError(f"{source} has no schema_version: not a facility-tui save")
    if version > SCHEMA_VERSION:
        raise SaveError(
            f"{source} was written by a newer facility-tui (schema {version}, this one reads "
            f"up to {SCHEMA_VERSION}); upgrade facility-tui to open it"
        )
    try:
        enc = encounter_from(doc.get("encounter"))
    except DecodeError as err:
        raise SaveError(f"{source} is damaged ({err}); it was left untouched") from None
    return _with_history(enc, doc.get("history"))


def _with_history(enc: Encounter, history: Any) -> Session:
    if not isinstance(history, dict):
        return Session(enc)
    try:
        undo = _steps(history.get("undo", []), "history.undo")
        redo = _steps(history.get("redo", []), "history.redo")
        base_log = history.get("base_log", 0)
        if not isinstance(base_log, int) or not 0 <= base_log <= len(enc.log):
            raise DecodeError("history.base_log out of range")
        base = encounter_from(history.get("base", {}), log=enc.log[:base_log])
        session = rebuild(base, undo, redo)
    except (DecodeError, CommandError):
        session = None
    if session is None or session.encounter != enc:
        note = "Undo history could not be rebuilt from the save; the fight itself is intact"
        return Session(enc.logged(note, Kind.INFO))
    session.encounter = enc  # identical value; keep the loaded one
    return session


# -- files --------------------------------------------------------------------------------------


def write_atomic(path: Path, text: str) -> None:
    """Replace ``path`` with ``text`` so that a crash leaves either the old or the new file."""
    folder = path.parent
    data = text.encode("utf-8")
    mode: int | None = None
    with contextlib.suppress(FileNotFoundError):
        mode = path.stat().st_mode & 0o777
    fd, tmp = tempfile.mkstemp(prefix=TEMP_PREFIX, suffix=SUFFIX, dir=folder)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        if mode is not None:
            os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    _fsync_dir(folder)


def _fsync_dir(folder: Path) -> None:
    with contextlib.suppress(OSError):
        fd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def save(session: Session, path: Path) -> None:
    text = dumps(session)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(path, text)
    except OSError as err:
        raise SaveError(
            f"could not save {path}: {err.strerror or err}; the fight is still in memory "
            "and saving will be retried"
        ) from err


def load(path: Path) -> Session:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise SaveError(f"{path} does not exist") from None
    except UnicodeDecodeError:
        raise SaveError(f"{path} is not a text file; it was left untouched") from None
    except OSError as err:
        raise SaveError(f"cannot read {path}: {err.strerror or err}") from None
    return loads(text, str(path))


def sweep_temp(folder: Path) -> int:
    """Remove temporary files left by a write that was interrupted; returns how many."""
    count = 0
    with contextlib.suppress(OSError):
        for p in folder.glob(f"{TEMP_PREFIX}*{SUFFIX}"):
            with contextlib.suppress(OSError):
                p.unlink()
                count += 1
    return count


def list_saves(folder: Path) -> list[Path]:
    """Save files in ``folder``, the most recently changed first."""
    try:
        files = [p for p in folder.glob(f"*{SUFFIX}") if not p.name.startswith(".")]
    except OSError:
        return []
    return sorted(files, key=lambda p: p.stat().st_mtime, reverse=True)


def path_for(folder: Path, name: str) -> Path:
    """A file in ``folder`` for an encounter called ``name``, never outside it."""
    from facility_tui.commands import slug

    return folder / f"{slug(name)[:60]}{SUFFIX}"


def blank() -> Encounter:
    return Encounter("Untitled", System.R2297, state=rules_for(System.R2297).new_state())


def fresh_session() -> Session:
    return Session(blank())

