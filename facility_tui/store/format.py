"""The file format's pieces: checksum lines (``#facility-tui sha256=``, and the main file's two
checksums), TOML written by hand for speed, log entries as JSON lines, and a signed file parsed
back into its document, of a schema this version reads."""

from __future__ import annotations

import json
import math
import os
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from facility_tui.commands.session import Step
from facility_tui.model.codec import DecodeError, decode, encode, encode_sparse
from facility_tui.model.encounter import Encounter, Kind, LogEntry
from facility_tui.store.errors import DamagedSave, NewerSave, SaveError
from facility_tui.store.migrations import SCHEMA_VERSION

LOG_SCHEMA = 2  # log files (``log-*.toml``) keep the layout of schema 2: old ones stay valid

MAGIC = b"#facility-tui sha256="
_HEADER = re.compile(rb"#facility-tui sha256=([0-9a-f]{64})\r?")

_KINDS = {k.value: k for k in Kind}
# What data of the wrong shape raises while decoding (DecodeError, MigrationError and CommandError
# are ValueErrors); anything else, an ImportError say, is a bug and must not pass for damage.
SHAPE_ERRORS = (ValueError, TypeError, KeyError, IndexError, AttributeError, RecursionError)


def encounter_data(enc: Encounter, *, with_log: bool = True) -> dict[str, Any]:
    data: dict[str, Any] = encode(enc) if with_log else encode(_without_log(enc))
    if not with_log:
        data.pop("log", None)
    return data


def _without_log(enc: Encounter) -> Encounter:
    from attrs import evolve

    return evolve(enc, log=()) if enc.log else enc


def as_list(value: Any, where: str) -> list[Any]:
    if not isinstance(value, list):
        raise DecodeError(f"{where}: expected a list")
    return value


def decode_steps(value: Any, where: str) -> list[Step]:
    return [decode(Step, s, where=f"{where}[{i}]") for i, s in enumerate(as_list(value, where))]


# -- log entries <-> lines ----------------------------------------------------------------------


def log_line(entry: LogEntry) -> str:
    """One log entry as a line of JSON that fits in a TOML multi-line literal string.

    JSON escapes control characters and non-ASCII; what TOML forbids besides is DEL and three
    single quotes in a row (which would end the string).
    """
    return json_line([entry.round, entry.kind.value, entry.text])


def json_line(data: Any) -> str:
    text = json.dumps(data)
    return text.replace("'''", "\\u0027" * 3).replace("\x7f", "\\u007f")


def json_rows(text: Any, where: str) -> list[Any]:
    if not isinstance(text, str):
        raise DecodeError(f"{where}: expected text")
    lines = [line for line in text.split("\n") if line.strip()]
    if not lines:
        return []
    try:
        rows = json.loads("[" + ",".join(lines) + "]")
    except ValueError:
        raise DecodeError(f"{where}: a log line is not readable") from None
    return rows  # type: ignore[no-any-return]


def log_entries(rows: Any, where: str) -> tuple[LogEntry, ...]:
    try:
        out = tuple([LogEntry(r, t, _KINDS[k]) for r, k, t in as_list(rows, where)])
    except (ValueError, TypeError, KeyError):
        out = None
    if out is None or not all(type(e.round) is int and type(e.text) is str for e in out):
        raise DecodeError(f"{where}: expected lines of [round, kind, text]")
    return out


def literal(lines: str) -> str:
    return f"'''\n{lines}\n'''"


# -- checksums ----------------------------------------------------------------------------------


def sha256(data: bytes) -> str:
    # hashlib loads OpenSSL (docs/benchmarks.md, 'Start-up and the headless commands'): imported
    # on the first checksum, not at every launch (a new fight's first frame is drawn before its
    # first save)
    import hashlib

    return hashlib.sha256(data).hexdigest()


def sign(body: str) -> tuple[str, str]:
    """The file text for ``body`` (a checksum line, then the body) and the checksum."""
    digest = sha256(body.encode("utf-8"))
    return f"{MAGIC.decode()}{digest}\n{body}", digest


def read_sealed(
    path: Path, source: str, what: str, digest: str, missing: str = ""
) -> tuple[bytes, str]:
    """The bytes and body of a write-once file beside the save ``source`` (``what``: "log
    file", "step file"), checked against the checksum its name carries (``digest``) and its own;
    a missing, unreadable or other file raises ``DamagedSave`` naming the save (``missing``:
    said after a missing file's line)."""
    from facility_tui.store.files import read_file

    try:
        raw = read_file(path)
    except SaveError as err:
        if not os.path.lexists(path):
            raise DamagedSave(
                f"{source} is incomplete: its {what} {path} is missing{missing}"
            ) from None
        raise DamagedSave(f"{source} cannot be read whole: {err}") from None
    if not raw.startswith(MAGIC + digest.encode()):
        raise DamagedSave(f"{source} is damaged: its {what} {path} is not the one it refers to")
    try:
        body, _ = unsign(raw, f"its {what} {path}")
    except DamagedSave as err:
        raise DamagedSave(f"{source} cannot be read whole: {err}") from None
    return raw, body


def unsign(raw: bytes, source: str) -> tuple[str, bool]:
    """The body of a file, verified if it has a checksum line; ``(text, signed)``."""
    if not raw.strip():
        raise DamagedSave(f"{source} is empty: not a save (it was left untouched)")
    if raw.startswith(MAGIC):
        nl = raw.find(b"\n")
        header = _HEADER.fullmatch(raw[: max(nl, 0)]) if nl >= 0 else None
        if header is None:
            raise DamagedSave(f"{source} is damaged: its checksum line is cut or changed")
        body = raw[nl + 1 :]
        if sha256(body) != header.group(1).decode():
            raise DamagedSave(
                f"{source} is damaged: its checksum does not match (truncated or changed "
                "after it was saved); it was left untouched"
            )
        try:
            return body.decode("utf-8"), True
        except UnicodeDecodeError:  # pragma: no cover - a checksummed file we wrote
            raise DamagedSave(f"{source} is damaged: not UTF-8 text") from None
    try:
        return raw.decode("utf-8"), False
    except UnicodeDecodeError:
        raise DamagedSave(f"{source} is not a text file: not a save (left untouched)") from None


def schema_of(doc: dict[str, Any], source: str) -> int:
    """The schema a parsed save says it has: one this version reads, or a refusal that says
    what to do (a newer one is never overwritten)."""
    version = doc.get("schema_version")
    if type(version) is not int or version < 1:
        raise DamagedSave(f"{source} has no schema_version: not a facility-tui save")
    if version > SCHEMA_VERSION:
        raise NewerSave(
            f"{source} was written by a newer facility-tui (schema {version}, this one reads "
            f"up to {SCHEMA_VERSION}); upgrade facility-tui to open it"
        )
    return version


def read_toml(text: str) -> dict[str, Any]:
    # imported here: a launch on a new fight reads no save, and does not pay for it
    # (docs/benchmarks.md, 'Start-up and the headless commands')
    import tomllib

    return tomllib.loads(text)


def parse(raw: bytes, source: str) -> dict[str, Any]:
    """The verified TOML document of a file, of a version this code can read."""
    body, signed = unsign(raw, source)
    try:
        doc = read_toml(body)
    except (RecursionError, ValueError) as err:  # (TOMLDecodeError is a ValueError)
        what = str(err).splitlines()[0] if str(err) else type(err).__name__
        raise DamagedSave(
            f"{source} is not a readable save ({what}); it was left untouched"
        ) from None
    version = schema_of(doc, source)
    if version >= 2 and not signed:
        raise DamagedSave(f"{source} is damaged: its checksum line is missing")
    return doc


_BARE_KEY = re.compile(r"[A-Za-z0-9_-]+")


def toml_str(text: str) -> str:
    # JSON's escapes are TOML's, but for non-ASCII (kept as is) and DEL (which TOML forbids raw)
    return json.dumps(text, ensure_ascii=False).replace("\x7f", "\\u007f")


def toml_value(value: Any) -> str:
    """Plain data (``codec.encode`` output) as a one-line TOML value."""
    t = type(value)
    if t is str:
        return toml_str(value)
    if t is bool:
        return "true" if value else "false"
    if t is int:
        return str(value)
    if t is dict:
        if not value:
            return "{}"
        items = ", ".join(f"{toml_key(k)} = {toml_value(v)}" for k, v in value.items())
        return f"{{ {items} }}"
    if t is list or t is tuple:
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    if t is float:
        if math.isfinite(value):
            return repr(value)
        return "nan" if value != value else ("inf" if value > 0 else "-inf")
    for kind in (bool, int, float, str):  # subclasses: StrEnum values and the like
        if isinstance(value, kind):
            return toml_value(kind(value))
    raise TypeError(f"cannot write {t.__name__} to a save")


def toml_key(key: str) -> str:
    return key if _BARE_KEY.fullmatch(key) else toml_str(key)


# The main file (schema 3): a checksum line over its two parts, the fight as TOML tables (the
# part a GM may edit), a separator line, the log and the history (facility-tui's own), an end line.
MAGIC3 = b"#facility-tui state-sha256="
HEADER3 = re.compile(r"#facility-tui state-sha256=([0-9a-f]{64}) history-sha256=([0-9a-f]{64})")
SEPARATOR = (
    "# ---- below: the log and the undo history, written by facility-tui for itself "
    "(edit the fight above this line) ----"
)
END_LINE = "# end of facility-tui save"
INTRO = (
    "# A facility-tui save (docs/save-format.md). The fight may be edited by hand above the",
    "# separator line: facility-tui checks the edit when it opens the file, and u undoes it.",
)


def sign3(state: str, rest: str) -> str:
    s = sha256(state.encode("utf-8"))
    r = sha256(rest.encode("utf-8"))
    return f"{MAGIC3.decode()}{s} history-sha256={r}\n{state}{SEPARATOR}\n{rest}{END_LINE}\n"


def combatant_text(c: Any) -> str:
    return "\n".join(["", *table_lines("[[combatants]]", "combatants", encode_sparse(c)), ""])


def table_lines(header: str, path: str, data: dict[str, Any]) -> list[str]:
    """A table of plain data as TOML lines: its values first, then each sub-table (a table, or
    a list of tables as an array of tables) under a header of its own. Empty ones stay inline."""
    out = [header]
    subs: list[tuple[str, Any, bool]] = []
    for k, v in data.items():
        t = type(v)
        if t is dict and v:
            subs.append((k, v, False))
        elif t is list and v and all(type(x) is dict for x in v):
            subs.append((k, v, True))
        else:
            out.append(f"{toml_key(k)} = {toml_value(v)}")
    for k, v, many in subs:
        sub = f"{path}.{toml_key(k)}"
        for item in v if many else (v,):
            out.append("")
            out.extend(table_lines(f"[[{sub}]]" if many else f"[{sub}]", sub, item))
    return out


def toml_lines(key: str, items: Sequence[str]) -> str:
    return f"{key} = {literal(chr(10).join(items))}\n"


def toml_array(key: str, items: Sequence[str]) -> str:
    if not items:
        return f"{key} = []\n"
    return f"{key} = [\n" + "".join(f"    {item},\n" for item in items) + "]\n"


def bare(enc: Encounter) -> Encounter:
    """``enc`` without log and combatants, cheap to encode."""
    from attrs import evolve

    return evolve(enc, log=(), combatants=()) if enc.log or enc.combatants else enc
