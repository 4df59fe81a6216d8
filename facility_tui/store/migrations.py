"""Upgrading save documents written by older versions of facility-tui.

A migration takes the *resolved* document of one schema version (the parsed TOML with any log
files already read in, see ``store``) and returns the document of the next version. ``MIGRATIONS``
maps the version a function reads to that function; ``migrate`` chains them up to
``SCHEMA_VERSION``.

Each version keeps a fixture save in ``tests/fixtures/saves/`` that the tests load through here.

Versions:

1. One TOML file: ``encounter`` with its whole ``log`` as a list of tables, ``history`` with
   ``base`` (an encounter without log), ``base_log`` (the base's log length, a prefix of the
   current log), ``undo`` and ``redo`` (lists of ``{line, rolls}``). No checksum.
2. A checksummed main file plus write-once log files (``docs/save-format.md``). Resolved, the log
   is a top-level list of ``[round, kind, text]`` rows and ``encounter`` has no ``log``; the
   history may carry the base's own log (``history.base_rows``) when it is not a prefix of the
   current one.
3. The main file shows the fight as TOML tables a GM can read and edit: ``[encounter]``, then
   one ``[[combatants]]`` table each, written sparsely (only what differs from a fresh value);
   the log and the history stay as in schema 2 below a separator line. Resolved, it is laid out
   as schema 2 is; the migration renumbers, and marks a schema-2 history's ``set WHO injury``
   lines ``effects=no`` (what they did then).
4. The history is the fight's timeline (issue 38), a tree of every step: below the separator a
   ``[timeline]`` table (its newest nodes, the list of its write-once ``steps-*.toml`` files, the
   current node, names, hidden branches, redo's choices, the root fight and the fight kept nearest
   the current node) replaces ``[history]``. A schema-3 history (base, undo, redo) becomes the
   tree's main line: the migration renumbers, and the reader replays it once to build the tree.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

SCHEMA_VERSION = 4  # the one version number of the save format (store.format writes it)

Doc = dict[str, Any]


class MigrationError(ValueError):
    """A document that does not have the shape its version promises."""


def _v1_to_v2(doc: Doc) -> Doc:
    encounter = doc.get("encounter")
    if not isinstance(encounter, dict):
        raise MigrationError("encounter: expected a table")
    encounter = dict(encounter)
    log = encounter.pop("log", [])
    if not isinstance(log, list):
        raise MigrationError("encounter.log: expected a list")
    rows = []
    for i, entry in enumerate(log):
        if not isinstance(entry, dict):
            raise MigrationError(f"encounter.log[{i}]: expected a table")
        rows.append([entry.get("round"), entry.get("kind", "info"), entry.get("text")])
    out = {k: v for k, v in doc.items() if k not in ("encounter", "schema_version")}
    out["schema_version"] = 2
    out["encounter"] = encounter
    out["log"] = rows
    return out


# Before schema 3, ``set WHO injury LEVEL`` set the level alone; now it also brings what the level
# brings (with its rolls) unless ``effects=no``. A history written before says so, to replay alike.
_SET_INJURY = re.compile(r"^\s*set\s+\S+\s+injury\s", re.IGNORECASE)


def _old_set_injury(step: Any) -> Any:
    line = step.get("line") if isinstance(step, dict) else None
    if isinstance(line, str) and _SET_INJURY.match(line) and "effects=" not in line:
        return {**step, "line": f"{line} effects=no"}
    return step


def _v2_to_v3(doc: Doc) -> Doc:
    out = {**doc, "schema_version": 3}
    history = doc.get("history")
    if isinstance(history, dict):
        out["history"] = {
            **history,
            **{
                key: [_old_set_injury(step) for step in history[key]]
                for key in ("undo", "redo")
                if isinstance(history.get(key), list)
            },
        }
    return out


def _v3_to_v4(doc: Doc) -> Doc:
    return {**doc, "schema_version": 4}  # (its [history] is read as the timeline's main line)


MIGRATIONS: dict[int, Callable[[Doc], Doc]] = {
    1: _v1_to_v2,
    2: _v2_to_v3,
    3: _v3_to_v4,
}


def migrate(doc: Doc) -> Doc:
    """``doc`` brought up to ``SCHEMA_VERSION``; ``MigrationError`` if a step does not fit."""
    version = doc.get("schema_version")
    while isinstance(version, int) and version < SCHEMA_VERSION:
        step = MIGRATIONS.get(version)
        if step is None:
            raise MigrationError(f"no migration from schema {version}")
        doc = step(doc)
        new = doc.get("schema_version")
        if not isinstance(new, int) or new <= version:  # pragma: no cover - a migration bug
            raise MigrationError(f"migration from schema {version} did not advance")
        version = new
    return doc
