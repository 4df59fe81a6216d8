"""Catalogs as data: the weapons, armor, PPE and items of a rule system, in TOML.

Each rule system ships its catalogs as package data (``systems/<system>/catalog/*.toml``); a
campaign's own ``catalogs/*.toml`` add entries or override shipped ones by name (any case). A
catalog file says which rules it is for and lists its entries as arrays of tables, one per kind::

    system = "facility"

    [[weapon]]
    name = "Heavy Pistol"
    damage = "1d6+1"
    gun = true

Each kind's fields and what they must hold are declared by the rule system (``Kind``). A bad
entry is reported as ``catalogs/guns.toml:7: damage must be dice like 1d8, got "lots"`` and
skipped; every other entry still loads. A command reads a campaign's entry through
``call.reads("catalog", "facility/weapon/heavy pistol")`` (``read_name``): what it read is kept
with its step, so undo, redo and reloading never read the files again.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Callable, Iterable, Mapping
from functools import cache
from importlib import import_module
from pathlib import Path
from typing import Any

from attrs import frozen

from facility_tui.campaign.folder import Campaign, CampaignError, line_of, reader
from facility_tui.model.text import common_prefix

NAME_MAX = 40  # as a combatant's name
NUMBER_MAX = 9999

# A field's check: the value as TOML gave it → the value kept, or ValueError("must be ...").
Check = Callable[[Any], Any]


def shown(value: Any) -> str:
    """A value of a catalog file as the GM wrote it, for a message."""
    if isinstance(value, str):
        text = value if len(value) <= 40 else value[:37] + "..."
        return '"' + "".join(ch if ch.isprintable() else "?" for ch in text) + '"'
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, dict):
        inner = ", ".join(f"{k} = {shown(v)}" for k, v in list(value.items())[:4])
        return "{ " + inner + " }"
    if isinstance(value, list):
        return "a list"
    return str(value)


def text(value: Any) -> str:
    if not isinstance(value, str) or len(value) > 300 or not value.isprintable():
        raise ValueError("must be text on one line")
    return value.strip()


def name(value: Any) -> str:
    if not isinstance(value, str) or not value.strip() or not value.isprintable():
        raise ValueError("must be a name")
    if len(value.strip()) > NAME_MAX:
        raise ValueError(f"must be a name of at most {NAME_MAX} characters")
    return value.strip()


def key(value: Any) -> str:
    """A short name of its own, or none ("")."""
    return "" if value == "" else name(value)


def whole(low: int = -NUMBER_MAX, high: int = NUMBER_MAX) -> Check:
    def check(value: Any) -> int:
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            raise ValueError(f"must be a whole number from {low} to {high}")
        return value

    return check


def flag(value: Any) -> bool:
    if not isinstance(value, bool):
        raise ValueError("must be true or false")
    return value


_DICE = re.compile(r"^(\d{1,2})?d(\d{1,3})([+-]\d{1,3})?$", re.IGNORECASE)


def dice(value: Any) -> str:
    """Dice like ``3d6+2`` (at most 20 dice of at most 100 sides)."""
    m = _DICE.match(value.strip()) if isinstance(value, str) else None
    if not m or int(m.group(1) or 1) > 20 or int(m.group(2)) > 100 or int(m.group(2)) < 1:
        raise ValueError("must be dice like 1d8")
    return str(value).strip().lower()


def damage(value: Any) -> str:
    """Dice like ``1d4+2`` or a fixed amount like ``3``."""
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= 99:
        return str(value)
    if isinstance(value, str) and value.strip().isdecimal() and int(value) <= 99:
        return str(int(value))
    try:
        return dice(value)
    except ValueError:
        raise ValueError("must be dice like 1d8 or a number like 3") from None


def one_of(*choices: str) -> Check:
    def check(value: Any) -> str:
        if not isinstance(value, str) or value.strip().lower() not in choices:
            raise ValueError(f"must be one of {', '.join(choices)}")
        return value.strip().lower()

    return check


def words(item: Check = name) -> Check:
    def check(value: Any) -> tuple[Any, ...]:
        if not isinstance(value, list | tuple):  # a tuple: an entry checked before
            raise ValueError('must be a list like ["a", "b"]')
        return tuple(item(v) for v in value)

    return check


def numbers(keys: Iterable[str]) -> Check:
    """A table of small bonuses, e.g. ``{ contaminants = 2 }``; ``keys`` says which may appear
    (empty: any word)."""
    allowed = tuple(keys)

    def check(value: Any) -> tuple[tuple[str, int], ...]:
        if isinstance(value, tuple):  # an entry checked before
            value = dict(value)
        if not isinstance(value, dict):
            raise ValueError("must be a table like { contaminants = 2 }")
        out = []
        for k, v in value.items():
            if allowed and k not in allowed:
                raise ValueError(f"may name only {', '.join(allowed)}")
            out.append((k, whole(-99, 99)(v)))
        return tuple(out)

    return check


REQUIRED = object()


@frozen
class Kind:
    """One kind of catalog entry of a rule system (``weapon``, ``ppe``...): its fields, each
    with its check and its default (``REQUIRED``: the entry must give it)."""

    system: str
    kind: str
    fields: Mapping[str, tuple[Check, Any]]
    title: str = ""  # the palette's "Catalog: weapons"
    # the other words an entry answers to besides its name (a weapon's key, its aka list)
    also: tuple[str, ...] = ()
    # where a command line takes one, for completion: options (``weapon=``) and the start of
    # a command whose rest is one (a regular expression, ``ppe \S+ wear ``)
    options: tuple[str, ...] = ()
    verbs: tuple[str, ...] = ()

    def words_of(self, entry: Mapping[str, Any]) -> list[str]:
        out = [str(entry["name"]).lower()]
        for f in self.also:
            v = entry.get(f)
            if isinstance(v, str) and v:
                out.append(v.lower())
            elif isinstance(v, tuple):
                out.extend(str(x).lower() for x in v)
        return out


@frozen
class Loaded:
    """What a set of catalog files gave: the entries of each kind, in order, and the mistakes
    (each entry with one was skipped)."""

    entries: dict[str, list[dict[str, Any]]]
    errors: list[CampaignError]
    system: str = ""  # the rules the file is for (one file)


def check_entry(kind: Kind, raw: Any) -> dict[str, Any]:
    """An entry's fields checked and completed with their defaults, or ``EntryError`` naming
    the first mistake and its key."""
    if not isinstance(raw, dict):
        raise EntryError("", f"each [[{kind.kind}]] must be a table")
    for key in raw:
        if key not in kind.fields:
            raise EntryError(key, f"{kind.kind} has no {key} (it has {', '.join(kind.fields)})")
    out: dict[str, Any] = {}
    for key, (check, default) in kind.fields.items():
        if key not in raw:
            if default is REQUIRED:
                raise EntryError("", f"{kind.kind} needs {key}")
            out[key] = default
            continue
        try:
            out[key] = check(raw[key])
        except ValueError as e:
            raise EntryError(key, f"{key} {e}, got {shown(raw[key])}") from None
    return out


class EntryError(ValueError):
    """An entry's first mistake and the key it is at ("" when the entry as a whole)."""

    def __init__(self, key: str, message: str) -> None:
        super().__init__(message)
        self.key = key
        self.message = message


def load_text(
    source: str, file: str, kinds: Mapping[str, Mapping[str, Kind]], system: str = ""
) -> Loaded:
    """The entries of one catalog file's text. ``kinds``: system -> kind -> ``Kind``; a file
    for another system than ``system`` (when given) yields nothing."""
    entries: dict[str, list[dict[str, Any]]] = {}
    errors: list[CampaignError] = []
    try:
        doc = tomllib.loads(source)
    except tomllib.TOMLDecodeError as e:
        m = re.search(r"line (\d+)", str(e))
        return Loaded({}, [CampaignError(f"not TOML: {e}", file, int(m.group(1)) if m else 1)])
    sys_name = doc.get("system")
    if not isinstance(sys_name, str) or sys_name not in kinds:
        from facility_tui.systems import ids  # (the table of rule systems: none is loaded)

        if sys_name in ids():  # (rules not loaded yet: read again when they are, if wanted)
            return Loaded({}, [])
        where = line_of(source, ("system",))
        known = ", ".join(f'"{k}"' for k in ids())
        errors.append(CampaignError(f"system must be {known}, got {shown(sys_name)}", file, where))
        return Loaded({}, errors)
    if system and sys_name != system:
        return Loaded({}, [])
    its = kinds[sys_name]
    seen: dict[str, set[str]] = {}
    for key, value in doc.items():
        if key == "system":
            continue
        if key not in its:
            errors.append(
                CampaignError(
                    f"{sys_name} catalogs hold {', '.join(f'[[{k}]]' for k in its)}, not {key}",
                    file,
                    line_of(source, (key, 0) if isinstance(value, list) else (key,)),
                )
            )
            continue
        kind = its[key]
        rows = value if isinstance(value, list) else [value]
        for i, raw in enumerate(rows):
            try:
                entry = check_entry(kind, raw)
            except EntryError as bad:
                path: tuple[str | int, ...] = (key, i, bad.key) if bad.key else (key, i)
                errors.append(CampaignError(bad.message, file, line_of(source, path)))
                continue
            low = entry["name"].lower()
            if low in seen.setdefault(key, set()):
                where = line_of(source, (key, i, "name"))
                errors.append(CampaignError(f"{kind.kind} {entry['name']} twice", file, where))
                continue
            seen[key].add(low)
            entries.setdefault(key, []).append(entry)
    return Loaded(entries, errors, sys_name)


# -- shipped catalogs: package data, read once -------------------------------------------------

KINDS: dict[str, dict[str, Kind]] = {}  # system -> kind -> Kind, filled by each rule system
PACKAGES: dict[str, str] = {}  # system -> the package whose catalog/ it ships


def declare(package: str, *kinds: Kind) -> None:
    for k in kinds:
        KINDS.setdefault(k.system, {})[k.kind] = k
        PACKAGES[k.system] = package


@cache
def shipped(package: str, system: str) -> dict[str, list[dict[str, Any]]]:
    """The catalogs a rule system's package ships (``package.catalog``), read once. A mistake
    in them is the project's own: it fails loudly."""
    out: dict[str, list[dict[str, Any]]] = {}
    # beside the package's own files (importlib.resources would import tempfile and shutil,
    # which a headless ``apply`` does not pay for)
    folder = Path(str(import_module(package).__file__)).parent / "catalog"
    for res in sorted(folder.glob("*.toml")):
        got = load_text(res.read_text(encoding="utf-8"), res.name, KINDS, system)
        if got.errors:
            raise RuntimeError(f"{package}: {got.errors[0]}")
        for kind, rows in got.entries.items():
            out.setdefault(kind, []).extend(rows)
    return out


# -- a campaign's own catalogs --------------------------------------------------------------------

_CACHE: dict[Path, tuple[tuple[Any, ...], Loaded]] = {}


def campaign_catalogs(campaign: Campaign) -> Loaded:
    """Every entry of the campaign's ``catalogs/*.toml`` and their mistakes (file names relative
    to the campaign folder). Read again only when a file changed."""
    folder = campaign.catalogs
    files = sorted(folder.glob("*.toml")) if folder.is_dir() else []
    stamp = []
    for f in files:
        try:
            st = f.stat()
        except OSError:
            continue
        stamp.append((f.name, st.st_mtime_ns, st.st_size))
    key = (*stamp, tuple(KINDS))  # (a rule system loaded since: its files read again)
    cached = _CACHE.get(folder)
    if cached and cached[0] == key:
        return cached[1]
    entries: dict[str, list[dict[str, Any]]] = {}
    errors: list[CampaignError] = []
    seen: dict[str, set[str]] = {}
    for f in files:
        rel = f"{folder.name}/{f.name}"
        try:
            source = f.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as e:
            errors.append(CampaignError(f"cannot be read ({e})", rel))
            continue
        got = load_text(source, rel, KINDS)
        errors.extend(got.errors)
        for kind, rows in got.entries.items():
            full = f"{got.system}/{kind}"
            for entry in rows:
                low = entry["name"].lower()
                if low in seen.setdefault(full, set()):
                    # a later file naming it again: the first one stands
                    continue
                seen[full].add(low)
                entries.setdefault(full, []).append(entry)
    loaded = Loaded(entries, errors)
    _CACHE[folder] = (key, loaded)
    return loaded


def read_name(system: str, kind: str, name: str) -> str:
    """The name a command reads a campaign entry by (``call.reads("catalog", ...)``)."""
    return f"{system}/{kind}/{name.strip().lower()}"


@reader("catalog")
def read_entry(campaign: Campaign, name: str) -> Any:
    """The campaign's entry ``system/kind/name`` as plain TOML data (its name or one of its
    other words, any case), or None."""
    system, _, rest = name.partition("/")
    kind, _, word = rest.partition("/")
    spec = KINDS.get(system, {}).get(kind)
    if spec is None:
        return None
    for entry in campaign_catalogs(campaign).entries.get(f"{system}/{kind}", []):
        if word in spec.words_of(entry):
            return plain(entry)
    return None


def plain(entry: Mapping[str, Any]) -> dict[str, Any]:
    """An entry as TOML data (tuples as lists, pairs as tables), to keep in a step or a sheet."""
    out: dict[str, Any] = {}
    for k, v in entry.items():
        if v == ():  # an empty list or table: the default
            continue
        if isinstance(v, tuple) and v and all(isinstance(p, tuple) for p in v):
            out[k] = {a: b for a, b in v}
        elif isinstance(v, tuple):
            out[k] = list(v)
        else:
            out[k] = v
    return out


def merged(
    system: str, kind: str, base: list[dict[str, Any]], campaign: Campaign | None
) -> list[dict[str, Any]]:
    """The shipped entries of a kind with the campaign's: an entry of the same name (or word)
    takes the shipped one's place, a new one goes at the end. For browsing and completion."""
    spec = KINDS[system][kind]
    out = list(base)
    if campaign is None:
        return out
    for entry in campaign_catalogs(campaign).entries.get(f"{system}/{kind}", []):
        mine = set(spec.words_of(entry))
        at = next((i for i, e in enumerate(out) if mine & set(spec.words_of(e))), None)
        if at is None:
            out.append(entry)
        else:
            out[at] = entry
    return out


# -- an entry by name, for a command ---------------------------------------------------------


def campaign_entry(
    reads: Callable[[str, str], Any], system: str, kind: str, text: str
) -> dict[str, Any] | None:
    """The campaign's own entry of that name (any case), checked, read through ``reads`` so the
    step keeps it; None when the campaign has none (or there is no campaign folder)."""
    try:
        data = reads("catalog", read_name(system, kind, text))
    except CampaignError:  # no campaign folder: the shipped catalogs alone
        return None
    if data is None:
        return None
    try:
        return check_entry(KINDS[system][kind], data)
    except EntryError as e:
        raise CampaignError(f"{kind} {text.strip()}: {e}") from None


Lookup = Callable[[str, str], "dict[str, Any] | None"]


def finder(reads: Callable[[str, str], Any], system: str) -> Lookup:
    """``lookup(kind, name)`` for a command of ``system``: the campaign's entry of that name
    (read through ``reads``, so the step keeps it), else the shipped one, else None. The entry
    comes checked; one kept in a step or a save that no longer checks is refused."""

    def lookup(kind: str, text: str) -> dict[str, Any] | None:
        spec = KINDS[system][kind]
        mine = campaign_entry(reads, system, kind, text)
        if mine is not None:
            return mine
        word = text.strip().lower()
        for entry in shipped(PACKAGES[system], system).get(kind, []):
            if word in spec.words_of(entry):
                return entry
        return None

    return lookup


# -- browsing and completing names ----------------------------------------------------------


def describe(kind: Kind, entry: Mapping[str, Any]) -> str:
    """An entry's figures in one line: ``damage 1d6+1 · crit 1d8 · gun · a note``."""
    parts: list[str] = []
    for key, (_check, default) in kind.fields.items():
        value = entry.get(key, default)
        if (
            key in ("name", "key", "aka", "notes", "number")
            or value == default
            or value in ((), [], {})
        ):
            continue
        if value is True:
            parts.append(key.replace("_", " "))
        elif isinstance(value, dict | tuple) and all(isinstance(p, tuple) for p in value):
            pairs = value.items() if isinstance(value, dict) else value
            parts.append(f"{key} " + ", ".join(f"{k} {v:+d}" for k, v in pairs))
        elif isinstance(value, list | tuple):
            parts.append(f"{key} " + ", ".join(str(v) for v in value))
        else:
            parts.append(f"{key} {value}")
    if entry.get("notes"):
        parts.append(str(entry["notes"]))
    return " · ".join(parts)


def listing(system: str, kind: str, campaign: Campaign | None) -> list[tuple[str, str, bool]]:
    """A kind's entries for the GM to browse: (name, figures, from the campaign), shipped ones
    first with the campaign's in their place, then the campaign's new ones."""
    spec = KINDS[system][kind]
    base = shipped(PACKAGES[system], system).get(kind, [])
    ours = campaign_catalogs(campaign).entries.get(f"{system}/{kind}", []) if campaign else []
    mine = {id(e) for e in ours}
    return [
        (str(e["name"]), describe(spec, e), id(e) in mine)
        for e in merged(system, kind, base, campaign)
    ]


_OPTION = re.compile(r"""(\w+)=("?)([^"=]*)$""")


def complete(line: str, system: str, campaign: Campaign | None) -> str | None:
    """The line with the catalog name being typed at its end completed (as far as the names
    that fit agree: ``weapon=sub`` → ``weapon="Submachine gun"``), or None."""
    kinds = KINDS.get(system, {})
    m = _OPTION.search(line)
    kind = next((k for k in kinds.values() if m and m.group(1).lower() in k.options), None)
    if m and kind is not None:
        quote, value, at = m.group(2), m.group(3), m.start(3)
        if not quote and " " in value:
            return None  # an unquoted value ended at its space
    else:
        kind, quote = None, "-"
        for k in kinds.values():
            for verb in k.verbs:
                v = re.match(verb, line, re.IGNORECASE)
                if v:
                    kind, value, at = k, line[v.end() :], v.end()
        if kind is None:
            return None
    head, comma, part = value.rpartition(",")
    typed = part.lstrip()
    names = [n for n, _f, _c in listing(system, kind.kind, campaign)]
    fits = [n for n in names if n.lower().startswith(typed.lower())]
    if not fits:
        return None
    common = fits[0][: len(common_prefix([n.lower() for n in fits]))]
    if len(common) <= len(typed):
        return None
    start = head + comma + part[: len(part) - len(typed)]
    done = line[:at] + start + common
    if quote == "" and " " in common:  # a name with a space needs quotes on the line
        done = line[:at] + '"' + start + common + ('"' if len(fits) == 1 else "")
    elif quote == '"' and len(fits) == 1:
        done += '"'
    return done
