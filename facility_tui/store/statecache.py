"""The fight's combatants copied as JSON beside the main file, so that a large save opens quickly.

The main file's fight is TOML tables a GM may edit; at 1,000 combatants parsing them is most of
what opening the save or an ``apply`` costs (docs/benchmarks.md, 'A 1,000-combatant fight from
outside (issue 38)'). So a save of ``COPY_FROM`` combatants or more also writes
``fight.d/state-<sha256 of the state part>.json``: the same combatants, one JSON line each (what
their tables parse to), under a line naming the state it copies and the checksum of its lines. A
read whose state part matches the checksum its header gives (not edited) and that finds the copy
of that state, whole, takes the combatants from it and parses only the rest as TOML; anything
else (no copy, a damaged one, an edited fight) reads the TOML, as before. The copy is never the
only one: it is written without fsync, and the save after it deletes it.
"""

from __future__ import annotations

import contextlib
import json
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from facility_tui.model.codec import encode_sparse
from facility_tui.model.encounter import Combatant
from facility_tui.store.atomic import write_atomic
from facility_tui.store.errors import SaveError
from facility_tui.store.files import MAX_SAVE_BYTES, read_regular
from facility_tui.store.format import sha256

MAGIC = "#facility-tui copy-of-state-sha256="
COPY_FROM = 100  # combatants; below, their tables parse in a few ms (docs/benchmarks.md)
NAME = re.compile(r"state-[0-9a-f]{64}\.json")
TABLE = "\n[[combatants]]\n"  # how the writer starts each combatant's table

# The combatants last read from a copy, each with its line: the next save reuses them.
_read: dict[int, tuple[Combatant, str]] = {}


def name_for(state_sum: str) -> str:
    return f"state-{state_sum}.json"


def _header(state_sum: str, body: bytes) -> str:
    """The copy's first line: the state it copies, and the checksum of the lines below."""
    return f"{MAGIC}{state_sum} sha256={sha256(body)}"


def head(state: str) -> str:
    """A state part's text before its combatants' tables."""
    cut = state.find(TABLE)
    return state if cut < 0 else state[: cut + 1]


_ENCOUNTER = "\n[encounter]\n"
_ORDER = "\norder = ["


def lift_order(head: str) -> tuple[str, list[str] | None]:
    """The head of an unedited state part without its ``[encounter]`` table's ``order`` line,
    and that line's ids read as JSON (the writer writes it on one line: ``toml_value``); or the
    head as it is and ``None``. At 1,000 combatants the TOML parser, pure Python, took ~20 M
    instructions for that array alone (docs/benchmarks.md). A line JSON would read otherwise
    than TOML (an escape: a backslash; a tab, a DEL) is left to TOML."""
    at = head.find(_ENCOUNTER)
    start = head.find(_ORDER, at) if at >= 0 else -1
    if start < 0 or "\n[" in head[at + len(_ENCOUNTER) : start + 1]:
        return head, None  # (not the encounter table's own key)
    end = head.find("\n", start + 1)
    line = head[start + len(_ORDER) - 1 : end]
    if end < 0 or "\\" in line or "\t" in line or "\x7f" in line:
        return head, None
    try:
        ids = json.loads(line)
    except ValueError:
        return head, None
    if type(ids) is not list or not all(type(i) is str for i in ids):
        return head, None
    return head[:start] + head[end:], ids


def combatants_of(sidecar: Path, state: str, state_sum: str) -> tuple[list[Any], list[str]] | None:
    """The combatants of an unedited state part (``state``, whose checksum is ``state_sum``) as
    its tables parse, with their lines, from its copy; ``None`` if there is no whole copy."""
    try:
        raw = read_regular(sidecar / name_for(state_sum), MAX_SAVE_BYTES)[0]
    except SaveError:
        return None
    nl = raw.find(b"\n")
    if nl < 0 or raw[:nl] != _header(state_sum, raw[nl + 1 :]).encode():
        return None
    lines = raw[nl + 1 :].decode("utf-8").split("\n")
    if lines[-1] == "":
        lines.pop()
    if len(lines) != state.count(TABLE):
        return None
    try:
        rows = json.loads("[" + ",".join(lines) + "]")
    except ValueError:
        return None
    if not all(type(r) is dict for r in rows):
        return None
    return rows, lines


def remember(combatants: Sequence[Combatant], lines: Sequence[str]) -> None:
    """The combatants just read from a copy, with their lines, for the next save to reuse."""
    global _read
    _read = {id(c): (c, line) for c, line in zip(combatants, lines, strict=True)}


class Copies:
    """The copies of one save path: the lines it made (kept while the fight has those
    combatants) and the copy it wrote last (deleted when the next one is written)."""

    def __init__(self) -> None:
        self._lines: dict[int, tuple[Combatant, str]] = {}
        self.written: Path | None = None
        self.looked = False  # the folder looked at for copies left by others

    def put(self, sidecar: Path, state: str, combatants: Sequence[Combatant]) -> None:
        """Keep the copy of the state part just saved (its text ``state``), and no other. A
        copy that cannot be written is none: the next read parses the TOML."""
        target = None
        if len(combatants) >= COPY_FROM:
            state_sum = sha256(state.encode("utf-8"))
            target = sidecar / name_for(state_sum)
            if target != self.written:
                used: dict[int, tuple[Combatant, str]] = {}
                body = "".join([self._line(c, used) + "\n" for c in combatants])
                self._lines = used
                _read.clear()  # (taken into this save's lines where still used)
                text = _header(state_sum, body.encode("utf-8")) + "\n" + body
                try:
                    write_atomic(target, text, sync=False)
                except OSError:
                    target = None
        if not self.looked:
            self.looked = True
            with contextlib.suppress(OSError):
                for p in sidecar.iterdir():
                    if NAME.fullmatch(p.name) and p != target:
                        p.unlink(missing_ok=True)
        elif self.written is not None and self.written != target:
            with contextlib.suppress(OSError):
                self.written.unlink(missing_ok=True)
        self.written = target

    def _line(self, c: Combatant, used: dict[int, tuple[Combatant, str]]) -> str:
        key = id(c)
        hit = self._lines.get(key) or _read.get(key)
        if hit is None or hit[0] is not c:
            hit = (c, json.dumps(encode_sparse(c)))
        used[key] = hit
        return hit[1]
