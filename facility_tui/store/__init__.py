"""Saving and loading sessions: checksummed TOML, written atomically, with write-once log files.

A save is addressed by one path, ``fight.toml``; next to it lives the folder ``fight.d/``. The main
file holds the current encounter (without its log), the end of the log, and the newest steps of
the fight's timeline (issue 38: every step, as a tree) with its small tables. The rest of the log
sits in ``fight.d/log-*.toml`` files of a few dozen to a few hundred entries each, the rest of the
timeline in ``fight.d/steps-*.toml`` files of ``steps.STEP_CHUNK`` steps with the whole fights of
their checkpoints: each is written once, when sealed, named after its checksum and never
rewritten (nor deleted). So the cost of a save depends on the combatants and the current round,
not on how long the fight has run. ``fight.d/backup-*.toml`` are copies of the main file
(referring to the write-once files beside them) taken when the round changes, when a hand edit is
accepted and when the app closes (the last ``BACKUPS_KEPT``); ``newest_good`` offers the newest
whose files are all whole (or the fight as last written, rebuilt from a refused
file's own history) once the GM is asked, never unasked.

Every file starts with a line ``#facility-tui sha256=<hex>`` over the rest of its bytes, which the
loader verifies before parsing: an empty, truncated or changed file is refused (``DamagedSave``),
never read as a blank or partial fight. Log entries are stored as one JSON array per line inside a
TOML literal string: still a TOML file anyone can read, and much faster to load than tables
(docs/benchmarks.md, 'The store').

Writes never leave a half file: the text is serialized first, written to a temporary file in the
same folder, fsynced, moved over the old file with ``os.replace`` and the folder fsynced. Log files
go first, the main file next, the backup last, so a crash at any moment leaves a loadable save.

The on-disk layout is described in ``docs/save-format.md``; older versions load through
``migrations``. The timeline is the fight before its first step (``timeline.root``), the steps as
nodes, and fights kept at intervals (the nearest one above the current step in the main file);
loading replays the current step from the nearest kept fight with its recorded dice and checks it
arrives at the saved encounter, else the fight loads without its history.

The package re-exports its public names here (``store.save``, ``store.load``...); its modules, each
importing only those below it: ``recovery`` (a refused save's newest good version), ``opening``
(load, open), ``saver`` (save, backups written), ``reader`` (bytes to a session) and ``lock`` (one
writer per save), ``writer`` (a session to text) and ``checks`` (what a fight and a hand edit
must be), ``logfiles`` (the write-once log files), ``steps`` (the timeline's write-once step
files) and ``backups`` (their names, listed), ``statecache`` (a large fight's combatants copied as
JSON, read in place of their tables), ``format`` (checksums, TOML, log lines) and ``atomic``
(writes that never leave a half file), ``files`` (a save's file names, reading one whole),
``errors``.
"""

from __future__ import annotations

from facility_tui.model.log import CHUNK_MAX, CHUNK_MIN
from facility_tui.store.atomic import TEMP_PREFIX, sweep_temp, write_atomic, write_error
from facility_tui.store.backups import BACKUPS_KEPT, backups
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
    file_signature,
    in_use,
    list_saves,
    path_for,
    read_regular,
    sidecar_for,
)
from facility_tui.store.format import (
    END_LINE,
    LOG_SCHEMA,
    SEPARATOR,
    encounter_data,
    table_lines,
)
from facility_tui.store.lock import LOCK_NAME, Holder, WriteLock, holder, lock_save
from facility_tui.store.migrations import SCHEMA_VERSION
from facility_tui.store.opening import Opened, blank, fresh_session, load, open_save, session_of
from facility_tui.store.reader import Loaded, loads
from facility_tui.store.recovery import Good, load_or_recover, newest_good, recover, set_aside
from facility_tui.store.saver import expect, forget, keep_backup, keep_copy, save, save_snapshot
from facility_tui.store.writer import Snapshot, dumps

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
    "table_lines",
    "write_atomic",
    "write_error",
]
