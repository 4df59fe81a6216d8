"""A refused save's newest good version, offered once the GM is asked: the fight as facility-tui
last wrote the file (rebuilt from its own history), else its newest backup that loads; and the
refused file renamed aside, never deleted."""

from __future__ import annotations

import os
import re
import time
from pathlib import Path
from typing import NamedTuple

from facility_tui.commands.session import Session
from facility_tui.model.codec import DecodeError
from facility_tui.model.encounter import LogEntry
from facility_tui.store.backups import backups
from facility_tui.store.errors import DamagedSave, SaveError
from facility_tui.store.files import read_file, read_regular, sidecar_for
from facility_tui.store.format import log_entries, read_toml
from facility_tui.store.logfiles import check_chunk, file_names, read_log
from facility_tui.store.opening import Opened, load, open_save
from facility_tui.store.reader import (
    SavedTimeline,
    rebuilt,
    resolved_history,
    split3,
    written_as,
)
from facility_tui.store.saver import forget
from facility_tui.store.steps import on_disk, read_steps


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
    unusable = ""  # the first newer backup passed over, and why, said once
    for candidate in backups(path):
        try:
            problem = _unusable(candidate)
            if problem is None:
                session = load(candidate)
                written = candidate.stat().st_mtime
        except (SaveError, OSError):
            continue
        if problem is not None:
            unusable = unusable or problem.removesuffix("; it was left untouched")
            continue
        described = (
            f"its backup {candidate.name} of round {session.encounter.round} "
            f"({_age(now - written)})" + (f" (the newer {unusable})" if unusable else "")
        )
        later = st.st_mtime - written if st is not None else 0.0
        return Good(session, candidate, written, described, _lacking(session, kept, later))
    why = f" ({unusable})" if unusable else ""
    raise DamagedSave(f"no good version of {path.name}: no backup in {sidecar} loads{why}")


# A step file's kept fight's log files, as ``writer.Writer._state`` lists them
_STATE_LOGS = re.compile(r'^\[states\.log\]\nfiles = \[\n((?:    "[^"\n]*",\n)*)\]', re.MULTILINE)


def _unusable(backup: Path) -> str | None:
    """Why a backup cannot be opened whole: the first write-once file it refers to (its log's,
    its timeline's step files and their kept fights' logs) that is missing or damaged, as the
    store says it; ``None`` if every one is whole (or the backup itself cannot be read:
    ``load`` says why)."""
    folder, source = backup.parent, f"backup {backup.name}"
    try:
        doc = read_toml(split3(read_file(backup), source).rest)
    except Exception:  # damaged in any way: load says how
        return None
    logs: dict[str, None] = {}

    def listed(table: object) -> None:
        if isinstance(table, dict) and isinstance(files := table.get("files"), list | str):
            logs.update((n, None) for n in file_names(files, "files") if isinstance(n, str))

    listed(doc.get("log"))
    tl = doc.get("timeline")
    try:
        if isinstance(tl, dict):
            listed(tl.get("root_rows"))
            for st in tl.get("states", []) if isinstance(tl.get("states"), list) else []:
                listed(st.get("log") if isinstance(st, dict) else None)
            stored = on_disk(tl.get("files", ""), tl.get("sealed", 0), folder)
            for ch in stored.chunks:
                steps = read_steps(ch, source)
                for m in _STATE_LOGS.finditer(steps.get("rest", "")):
                    logs.update((n, None) for n in re.findall(r'"([^"]+)"', m.group(1)))
                for st in steps.get("states", []) if isinstance(steps.get("states"), list) else []:
                    listed(st.get("log") if isinstance(st, dict) else None)
        for name in logs:
            check_chunk(folder, name, source)
    except (SaveError, DecodeError) as err:
        return str(err)
    return None


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
        rest = split3(raw, source).rest
        return log_entries(read_log(read_toml(rest).get("log"), "log", source, sidecar), "log")
    except Exception:  # damaged in any way: nothing can be told from it
        return None


def _as_written(raw: bytes, source: str, sidecar: Path) -> Session | None:
    """The fight of an edited schema-3 file as facility-tui wrote it before the edit: its log
    and history replayed, and checked against the fight's checksum. ``None`` if the file is
    not an edited one or the fight cannot be rebuilt."""
    try:
        parts = split3(raw, source)
        if not parts.edited:
            return None
        doc = read_toml(parts.rest)
        log = log_entries(read_log(doc.get("log"), "log", source, sidecar), "log")
        history = doc.get("history")
        if isinstance(doc.get("timeline"), dict):
            history = SavedTimeline(doc["timeline"], source, sidecar)
        elif isinstance(history, dict):
            history = resolved_history(history, source, sidecar)
        else:
            return None
        before = rebuilt(log, history)
        return written_as(before, parts.state_sum)
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
    path: Path, *, keep_aside: bool = True, from_backup: bool = False, later: bool = False
) -> tuple[Session, str | None]:
    """``open_save`` as ``(session, message)``: the message says what was done, or is ``None``.
    With ``from_backup`` a refused save gives its newest good version (``recover``); ``later``
    as ``open_save``'s."""
    try:
        got = open_save(path, keep_aside=keep_aside, later=later)
    except DamagedSave:
        if not from_backup:
            raise
        got = recover(path, keep_aside=keep_aside)
    return got.session, got.message


def set_aside(path: Path) -> Path:
    """Rename a rejected save to ``<name>.corrupt-<time>`` next to it (never deleted); the new
    name. Raises ``OSError`` if it cannot be renamed."""
    aside = path.with_name(f"{path.name}.corrupt-{time.strftime('%Y%m%d-%H%M%S')}")
    n = 1
    while aside.exists():
        n += 1
        aside = aside.with_name(f"{path.name}.corrupt-{time.strftime('%Y%m%d-%H%M%S')}-{n}")
    os.replace(path, aside)
    forget(path)
    return aside
