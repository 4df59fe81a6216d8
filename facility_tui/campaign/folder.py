"""The campaign folder: the saves folder (``--saves DIR``) holds a campaign's encounters and,
beside them, the files that outlive one fight. Each is plain TOML a GM can read, edit and keep in
git:

- ``party.toml``   the PCs, carried from fight to fight with their lasting state;
- ``templates/``   one combatant per file, added to a fight by name (``add NAME from=TEMPLATE``);
- ``catalogs/``    the campaign's own weapons, armor, PPE and items, added to or overriding the
                   ones each rule system ships;
- ``archive/``     encounters set aside from the browser (moved, never deleted);
- ``ledger.toml``  every forecast of a fight, and how the fight ended (``campaign.ledger``);
- ``*.day.toml``   a day of fights to forecast (``forecast.day``), never an encounter.

The layout is named here once; the store lists as encounters only the other ``*.toml`` files.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from attrs import frozen

PARTY = "party.toml"
TEMPLATES = "templates"
CATALOGS = "catalogs"
ARCHIVE = "archive"
LEDGER = "ledger.toml"
DAY_SUFFIX = ".day.toml"
# File stems an encounter's save may not take: a fight called "Party" is saved as party-2.toml.
RESERVED_STEMS = frozenset({Path(PARTY).stem, Path(LEDGER).stem})


@frozen
class Campaign:
    """Where a campaign's files are, under its folder."""

    folder: Path

    @property
    def party(self) -> Path:
        return self.folder / PARTY

    @property
    def templates(self) -> Path:
        return self.folder / TEMPLATES

    @property
    def catalogs(self) -> Path:
        return self.folder / CATALOGS

    @property
    def archive(self) -> Path:
        return self.folder / ARCHIVE

    @property
    def ledger(self) -> Path:
        return self.folder / LEDGER


def is_encounter_file(path: Path) -> bool:
    """Whether a ``*.toml`` file directly in the campaign folder is an encounter's save, by its
    name (a day of fights named otherwise than ``*.day.toml``: ``reads_as_day``)."""
    return (
        path.stem not in RESERVED_STEMS
        and not path.name.startswith(".")
        and not path.name.endswith(DAY_SUFFIX)
    )


_DAY_KEY = re.compile(r"^\s*day\s*=", re.MULTILINE)


def is_day(text: str) -> bool:
    """Whether a file's text is a day of fights (a top-level ``day =``), not a save."""
    return _DAY_KEY.search(text) is not None and "schema_version" not in text


def reads_as_day(path: Path) -> bool:
    """A file that is a day of fights, whatever its name (``day = [...]``, no save's keys), by
    its first 4 KiB (a save says its ``schema_version`` there; a day its ``day``)."""
    try:
        with path.open("rb") as f:
            head = f.read(1 << 12)
    except OSError:
        return False
    return is_day(head.decode("utf-8", "replace"))


# -- what a command reads from the campaign, recorded like dice ---------------------------------


@frozen
class Read:
    """One entry of a campaign file a command read (a template, a catalog entry, a PC of the
    party): kept with the command's step, like its dice, so undo, redo and reloading the save
    give back what was shown even after the file changed or on another machine."""

    kind: str  # what was read: "template", "catalog", "party"...
    name: str
    # the entry as plain TOML data; None (not written in a save, TOML has no null): there was
    # none of that name
    data: Any = None


class CampaignError(ValueError):
    """A campaign file or entry that cannot be used, said with its place: ``file:line: why``."""

    def __init__(self, message: str, file: str = "", line: int = 0) -> None:
        self.file = file
        self.line = line
        where = f"{file}:{line}: " if file and line else f"{file}: " if file else ""
        super().__init__(f"{where}{message}")


# kind -> reads the entry NAME of that kind from a campaign (None: no such entry). Each kind's
# module registers its reader (``readers``); the core reads only through ``Reads``.
Reader = Callable[["Campaign", str], Any]
READERS: dict[str, Reader] = {}


def reader(kind: str) -> Callable[[Reader], Reader]:
    """Declare the function that reads entries of ``kind`` from a campaign folder."""

    def register(read: Reader) -> Reader:
        READERS[kind] = read
        return read

    return register


class Reads:
    """A command's window on its campaign. Live, each entry is read from the folder and
    recorded; replayed (undo's redo, loading a save), the recorded entries are given back in
    order and nothing is read."""

    __slots__ = ("_replay", "campaign", "read", "seed")  # (one a line: a play's included)

    def __init__(
        self,
        campaign: Campaign | None,
        recorded: Sequence[Read] | None = None,
        seed: int | None = None,
    ) -> None:
        self.campaign = campaign
        self._replay = list(recorded) if recorded is not None else None
        self.read: list[Read] = []
        # the seed of the dice a line beside the fight rolls (the party's rest between fights):
        # the shell's own (``--seed``); None: a random one
        self.seed = seed

    @property
    def replaying(self) -> bool:
        """Whether the command is a step of a history run again (a save opened, a redo): a line
        an older version took is taken as it was then, so the history still replays."""
        return self._replay is not None

    def __call__(self, kind: str, name: str) -> Any:
        if self._replay is not None:
            i = len(self.read)
            if i < len(self._replay):
                got = self._replay[i]
                if (got.kind, got.name) == (kind, name):
                    self.read.append(got)
                    return got.data
            # a step recorded before its command read this entry: read it now (a save written
            # by an older version), so the history still replays
        if self.campaign is None:
            raise CampaignError(f"there is no campaign folder to read the {kind} '{name}' from")
        read = READERS.get(kind)
        if read is None:
            raise CampaignError(f"no {kind}s are kept in a campaign")
        data = read(self.campaign, name)
        self.read.append(Read(kind, name, data))
        return data


# -- a combatant's field, as a campaign file gives it --------------------------------------------


def field_value(cls: type, key: str, value: Any) -> Any:
    """Field ``key`` of ``cls`` (a combatant's) as a campaign file gives it (a template,
    ``party.toml``), held to what its type and its declared facts allow (``model.fields``):
    ``ValueError`` saying what it must be (``must be true or false, got 'yes'``)."""
    from facility_tui.model.codec import got, hints
    from facility_tui.model.fields import facts_of
    from facility_tui.model.text import control_in

    said, hint = facts_of(cls, key), hints(cls)[key]
    if hint is bool:
        if not isinstance(value, bool):
            raise ValueError(f"must be true or false, got {got(value)}")
        return value
    if said.dice:  # (as add's init=: a whole number or dice)
        text = str(value) if type(value) is int else value
        if not isinstance(text, str) or not is_dice(text):
            raise ValueError(f"must be a whole number or dice like 1d6+3, got {got(value)}")
        return text
    if hint is int:
        from facility_tui.commands.spec import MAX_VALUE

        if type(value) is not int:
            raise ValueError(f"must be a whole number, got {got(value)}")
        problem = said.problem(value)
        if problem is None and abs(value) > MAX_VALUE:
            problem = f"must be within ±{MAX_VALUE}, got {value}"
        if problem is not None:
            raise ValueError(problem)
        return value
    if not isinstance(value, str):
        raise ValueError(f"must be text, got {got(value)}")
    bad = control_in(value)
    if bad:
        raise ValueError(f"holds a control character ({bad})")
    if len(value) > said.chars:
        raise ValueError(f"is {len(value)} characters long: at most {said.chars}")
    return value


def is_dice(text: str) -> bool:
    """Whether ``text`` is a whole number or dice (``1d6+3``), as add's ``init=`` takes it."""
    from facility_tui.commands.dice import Dice, DiceError

    try:
        Dice(0, 0).value(text, "init")
    except DiceError:
        return False
    return True


# -- where a key is in a campaign file -----------------------------------------------------------

_HEADER = re.compile(r"^\s*\[\[?\s*([^\]]+?)\s*\]\]?\s*(#.*)?$")
_KEY = re.compile(r"""^\s*("[^"]*"|'[^']*'|[A-Za-z0-9_-]+)\s*=""")


def line_of(text: str, path: Sequence[str | int]) -> int:
    """The line (from 1) of the key at ``path`` in TOML ``text``, for a message that points at
    it: ``("pc", 2, "hlt")`` is ``hlt`` in the third ``[[pc]]`` table, ``("pc", 2, "sheet",
    "wounds")`` that table's ``[pc.sheet]`` key ``wounds``, ``("weapons", "pistol")`` the key or
    the table ``[weapons.pistol]``. Dotted and inline keys count by their first part. When the
    key is not written (a missing key), the line of its nearest table; else 1."""
    want = list(path)
    arrays: dict[tuple[str, ...], int] = {}  # [[name]] -> index of its latest table
    here: list[str | int] = []
    best, best_len = 1, 0
    for no, raw in enumerate(text.splitlines(), 1):
        header = _HEADER.match(raw)
        if header:
            parts = tuple(p.strip().strip("\"'") for p in header.group(1).split("."))
            if raw.lstrip().startswith("[["):
                arrays[parts] = arrays.get(parts, -1) + 1
            here = []
            for n in range(1, len(parts) + 1):
                here.append(parts[n - 1])
                if parts[:n] in arrays:
                    here.append(arrays[parts[:n]])
            found = here
        else:
            key = _KEY.match(raw)
            if not key:
                continue
            found = [*here, key.group(1).strip("\"'")]
        if found == want:
            return no
        if found == want[: len(found)] and len(found) > best_len:
            best, best_len = no, len(found)
    return best
