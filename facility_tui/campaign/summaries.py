"""One line about each encounter of a campaign folder, for the browser (``o``): its rules, name,
state, combatants and last change, read cheaply and never raising.

A schema-3 save is read only as far as its fight's part (the TOML above the separator line) and
its last line (a file cut short has none): its log and history are not read, nor its checksums
checked — opening the save does that. An older save is loaded whole (rare: it is rewritten in
the new form the first time it is saved). Whatever is wrong with a file is said in a word
(``problem``), and the file is still listed, to be opened the way any refused save is.
"""

from __future__ import annotations

import os
import re
import stat
import time
from pathlib import Path
from typing import Any, NamedTuple

from facility_tui import store
from facility_tui.campaign.folder import is_day, is_encounter_file
from facility_tui.model.encounter import ENEMIES, PCS, Phase
from facility_tui.model.text import counted

HEAD_LIMIT = 4 << 20  # bytes read looking for the separator (200 combatants: ~200 KB)
_BLOCK = 64 << 10
_TAIL = 256  # bytes read at the end for the end line
_SEPARATOR = ("\n" + store.SEPARATOR + "\n").encode()
_END = store.END_LINE.encode()
_SCHEMA = re.compile(rb"^schema_version\s*=\s*(\d+)", re.MULTILINE)

DAMAGED = "damaged"
NEWER = "newer version"
EMPTY = "empty"
UNREADABLE = "unreadable"


class Summary(NamedTuple):
    path: Path
    name: str  # the encounter's name; the file's name when it cannot be read
    system: str  # "2297", "facility"; "" when unknown
    phase: str  # "setup", "active", "ended"; "" when unknown
    round: int
    pcs: int
    enemies: int
    changed: float  # the file's time, seconds since the epoch
    problem: str | None = None  # "damaged", "newer version", "empty", "unreadable"

    @property
    def state(self) -> str:
        """The state in words: ``prepared``, ``round 3``, ``ended``, or the problem."""
        if self.problem:
            return self.problem
        if self.phase == Phase.ACTIVE:
            return f"round {self.round}"
        return "ended" if self.phase == Phase.ENDED else "prepared"

    @property
    def combatants(self) -> str:
        """``3 PCs, 4 enemies``; ``""`` for a file that cannot be read."""
        if self.problem:
            return ""
        return f"{counted(self.pcs, 'PC')}, {counted(self.enemies, 'enemy', 'enemies')}"

    def matches(self, words: str) -> bool:
        """Whether every word of a filter is in its name, rules, state or file name."""
        hay = " ".join((self.name, self.system, self.state, self.path.name)).casefold()
        return all(word in hay for word in words.casefold().split())


def summaries(folder: Path) -> list[Summary]:
    """The encounters of a campaign folder (or of its archive), the last changed first."""
    try:
        paths = [p for p in folder.glob(f"*{store.SUFFIX}") if is_encounter_file(p)]
    except OSError:
        return []
    found = [summary(p) for p in paths]
    return sorted((s for s in found if s is not None), key=lambda s: s.changed, reverse=True)


def summary(path: Path) -> Summary | None:
    """What the browser shows of the save at ``path``; ``None`` if it is not a file (a folder
    named ``x.toml``, a pipe: never opened) or is gone."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC | os.O_NONBLOCK)
    except FileNotFoundError:
        return None
    except OSError:
        try:
            st = os.stat(path)
        except OSError:
            return None
        return _problem(path, st.st_mtime, UNREADABLE) if stat.S_ISREG(st.st_mode) else None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            return None
        try:
            return _read(path, fd, st)
        except OSError:
            return _problem(path, st.st_mtime, UNREADABLE)
    finally:
        os.close(fd)


def _problem(path: Path, changed: float, problem: str) -> Summary:
    return Summary(path, path.stem, "", "", 0, 0, 0, changed, problem)


def _read(path: Path, fd: int, st: os.stat_result) -> Summary | None:
    head = _head(fd)
    if not head.strip():
        return _problem(path, st.st_mtime, EMPTY)
    head = head.removeprefix(b"\xef\xbb\xbf")
    newer = _SCHEMA.search(head[:_BLOCK])
    if newer and int(newer.group(1)) > store.SCHEMA_VERSION:
        return _problem(path, st.st_mtime, NEWER)
    if not head.startswith(store.format.MAGIC3):
        if is_day(head.decode("utf-8", "replace")):
            return None  # (a day of fights named otherwise than *.day.toml: no save to list)
        return _loaded(path, st.st_mtime)  # an older schema, or not a save: the store tells
    cut = head.find(_SEPARATOR)
    tail = os.pread(fd, _TAIL, max(st.st_size - _TAIL, 0))
    if cut < 0 or tail.rstrip(b" \t\r\n").rsplit(b"\n", 1)[-1] != _END:
        return _problem(path, st.st_mtime, DAMAGED)
    try:
        import tomllib

        doc = tomllib.loads(head[head.index(b"\n") + 1 : cut + 1].decode("utf-8"))
        return _of(path, st.st_mtime, doc["encounter"], doc.get("combatants", []))
    except (ValueError, TypeError, KeyError, AttributeError, RecursionError):
        return _problem(path, st.st_mtime, DAMAGED)


def _head(fd: int) -> bytes:
    """The file's bytes up to its separator line (or all of it, up to ``HEAD_LIMIT``)."""
    parts: list[bytes] = []
    got = 0
    while got < HEAD_LIMIT:
        part = os.read(fd, _BLOCK)
        if not part:
            break
        parts.append(part)
        got += len(part)
        # the separator may straddle two blocks: look in the last two
        if _SEPARATOR in b"".join(parts[-2:]):
            break
    return b"".join(parts)


def _of(path: Path, changed: float, enc: Any, combatants: Any) -> Summary:
    name, system, phase, round_ = enc["name"], enc["system"], enc["phase"], enc["round"]
    if not all(isinstance(v, str) for v in (name, system, phase)) or type(round_) is not int:
        raise TypeError("not a fight")
    if phase not in {p.value for p in Phase}:
        raise ValueError("not a phase")
    sides = [c.get("side") for c in combatants]
    pcs, enemies = sides.count(PCS), sides.count(ENEMIES)
    return Summary(path, name, system, phase, round_, pcs, enemies, changed)


def _loaded(path: Path, changed: float) -> Summary:
    try:
        enc = store.load(path).encounter
    except store.NewerSave:
        return _problem(path, changed, NEWER)
    except store.DamagedSave:
        return _problem(path, changed, DAMAGED)
    except store.SaveError:
        return _problem(path, changed, UNREADABLE)
    sides = [c.side for c in enc.combatants]
    return Summary(
        path,
        enc.name,
        enc.system,
        enc.phase.value,
        enc.round,
        sides.count(PCS),
        sides.count(ENEMIES),
        changed,
    )


def when(changed: float, now: float | None = None) -> str:
    """How long ago, in a GM's words: ``just now``, ``5 min ago``, ``3 h ago``, ``yesterday``,
    ``4 days ago``, then the date (``12 Nov``, ``12 Nov 2025`` in another year)."""
    now = time.time() if now is None else now
    ago = now - changed
    if ago < 60:
        return "just now"
    if ago < 3600:
        return f"{int(ago // 60)} min ago"
    then, today = time.localtime(changed), time.localtime(now)
    days = _day(today) - _day(then)
    if days <= 0:
        return f"{int(ago // 3600)} h ago"
    if days == 1:
        return "yesterday"
    if days < 7:
        return f"{days} days ago"
    if then.tm_year == today.tm_year:
        return time.strftime("%d %b", then).lstrip("0")
    return time.strftime("%d %b %Y", then).lstrip("0")


def _day(t: time.struct_time) -> int:
    """A calendar day's number, to count the days between two dates."""
    import datetime

    return datetime.date(t.tm_year, t.tm_mon, t.tm_mday).toordinal()
