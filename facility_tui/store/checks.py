"""The checks a save's fight must pass before it is decoded: the encounter table's keys, types
and ranges, and for a file edited by hand, each change held to what a command could make,
refused as ``file:line: key problem``."""

from __future__ import annotations

import re
from typing import Any

from facility_tui.model.codec import encode
from facility_tui.model.encounter import Encounter, Phase, TableDice
from facility_tui.store.errors import Invalid, InvalidSave, NewerSave
from facility_tui.store.migrations import SCHEMA_VERSION
from facility_tui.systems import ids, rules_for

MAX_ROUND = 1_000_000  # far beyond any fight (a round a second for eleven days)
MAX_ROLLS = 10**12  # dice rolls of one encounter
_REQUIRED = ("name", "system", "seed", "rolls", "phase", "round", "turn", "order", "state")
_PHASES = {p.value for p in Phase}
_TABLE_DICE = {t.value for t in TableDice}


def _whole(value: Any) -> bool:
    return type(value) is int


def check_encounter(data: Any, where: str, combatants_at: str | None = None) -> None:
    """Refuse (``Invalid``, naming the key) an encounter table that is not a fight this code
    made: every key present with its type, numbers in range, the turn inside the order, the
    combatants a list of tables with an id and a name, ids unique. Checked on the resolved
    document (the combatants already read from their lines), before anything is decoded."""
    if not isinstance(data, dict):
        raise Invalid(f"{where} must be a table")
    for key in (*_REQUIRED, "combatants"):
        if key not in data:
            raise Invalid(f"{where}.{key} is missing")
    texts = {"name": data["name"], "system": data["system"], "phase": data["phase"]}
    for key, value in texts.items():
        if not isinstance(value, str):
            raise Invalid(f"{where}.{key} must be text, got {shown(value)}")
    if data["system"] not in ids():
        known = " or ".join(ids())
        raise Invalid(f"{where}.system must be {known}, got {shown(data['system'])}")
    if data["phase"] not in _PHASES:
        known = ", ".join(p.value for p in Phase)
        raise Invalid(f"{where}.phase must be one of {known}, got {shown(data['phase'])}")
    if "table_dice" in data and data["table_dice"] not in _TABLE_DICE:
        known = ", ".join(t.value for t in TableDice)
        raise Invalid(f"{where}.table_dice must be one of {known}, got {shown(data['table_dice'])}")
    for key, top in (("seed", None), ("rolls", MAX_ROLLS), ("round", MAX_ROUND)):
        _check_count(data[key], f"{where}.{key}", top)
    order = data["order"]
    if not isinstance(order, list) or not all(isinstance(s, str) and s for s in order):
        raise Invalid(f"{where}.order must be a list of combatant ids or sides")
    _check_count(data["turn"], f"{where}.turn", max(len(order) - 1, 0), "the order's last")
    if not isinstance(data["state"], dict):
        raise Invalid(f"{where}.state must be a table, got {shown(data['state'])}")
    combatants = data["combatants"]
    listed = combatants_at or f"{where}.combatants"
    if not isinstance(combatants, list):
        raise Invalid(f"{listed} must be a list, got {shown(combatants)}")
    seen: set[str] = set()
    for i, c in enumerate(combatants):
        at = f"{listed}[{i}]"
        if not isinstance(c, dict):
            raise Invalid(f"{at} must be a table, got {shown(c)}")
        for key in ("id", "name"):
            if not isinstance(c.get(key), str) or not c[key]:
                got = shown(c[key]) if key in c else "nothing"
                raise Invalid(f"{at}.{key} must be non-empty text, got {got}")
        if c["id"] in seen:
            raise Invalid(f"{at}.id {shown(c['id'])} is the id of an earlier combatant too")
        seen.add(c["id"])


def _check_count(value: Any, where: str, top: int | None, top_name: str | None = None) -> None:
    if not _whole(value):
        raise Invalid(f"{where} must be a whole number, got {shown(value)}")
    if value < 0:
        raise Invalid(f"{where} must be 0 or more, got {value}")
    if top is not None and value > top:
        limit = f"{top_name} ({top})" if top_name else str(top)
        raise Invalid(f"{where} must be at most {limit}, got {shown(value)}")


def shown(value: Any) -> str:
    """A value from a save, short, for a message."""
    from facility_tui.model.text import printable

    text = printable(repr(value))
    return text if len(text) <= 40 else text[:37] + "..."


_TOP_KEYS = (
    "schema_version",
    "kind",
    "app",
    "encounter",
    "combatants",
    "log",
    "history",
    "timeline",
)


def check_top(doc: dict[str, Any], state: str, source: str, offset: int) -> None:
    """An edited file's keys outside the fight's tables, each refused with its line: a key
    facility-tui does not know (a typo, or a key written above ``[encounter]``), a changed
    ``schema_version`` or ``kind``, a missing ``[encounter]``. A key that is missing is named on
    the line where the fight's part starts."""
    first = next(
        (n for n, ln in enumerate(state.split("\n"), 1) if ln.strip()[:1] not in ("", "#")), 1
    )

    def refuse(key: str, problem: str) -> None:
        raise _refusal(source, state, offset, key, problem, first)

    for key in doc:
        if key not in _TOP_KEYS:
            refuse(key, "is not a key facility-tui knows (a typo?)")
    # (a file of schema 3, whose machine part holds a [history], keeps its number until saved)
    layout = 3 if "history" in doc and "timeline" not in doc else SCHEMA_VERSION
    wanted: tuple[tuple[str, Any, str], ...] = (
        ("schema_version", layout, "this file's layout"),
        ("kind", "save", "a save, not a log file"),
    )
    version = doc.get("schema_version")
    if type(version) is int and version > SCHEMA_VERSION:  # refused, never set aside or recovered
        line = _locate(state).get_line("schema_version") or first
        raise NewerSave(
            f"{source}:{line + offset}: schema {version}: written by "
            f"a newer facility-tui (this one reads up to {SCHEMA_VERSION}); upgrade "
            "facility-tui to open it"
        )
    for key, value, why in wanted:
        if key not in doc:
            refuse(key, f"is missing (it must be {value!r}: {why})")
        if doc[key] != value or type(doc[key]) is not type(value):
            refuse(key, f"must be {value!r} ({why}), got {shown(doc[key])}")
    if "encounter" not in doc:
        refuse("encounter", "is missing: the fight's [encounter] table")
    if not isinstance(doc.get("app", ""), str):
        refuse("app", f"must be text (the version that wrote it), got {shown(doc['app'])}")


def check_keys(data: dict[str, Any]) -> None:
    """A key the model does not have (a typo of an edit) is refused, naming it."""
    from facility_tui.model.codec import unknown_key
    from facility_tui.model.encounter import Combatant

    rules = rules_for(data["system"])
    top = {k: v for k, v in data.items() if k != "combatants"}
    bad = unknown_key(Encounter, top, "encounter", {"state": rules.state_type})
    for i, c in enumerate(data["combatants"]):
        bad = bad or unknown_key(Combatant, c, f"combatants[{i}]", {"sheet": rules.sheet_type})
    if bad:
        raise Invalid(f"{bad} is not a key facility-tui knows (a typo?)", bad)


_PATH_START = re.compile(r"[A-Za-z_][\w.\[\]-]*")


def at_line(source: str, state: str, offset: int, err: Exception) -> str:
    """A refused edit as ``file:line: key must be ...``."""
    text = str(err).splitlines()[0] if str(err) else type(err).__name__
    where = getattr(err, "where", "") or ""
    if not where:
        m = _PATH_START.match(text)
        where = m.group() if m else ""
    text = text.replace(": expected ", " must be ", 1)
    line = _locate(state).get_line(where)
    at = f":{line + offset}" if line else ""
    return f"{source}{at}: {text} (edited outside facility-tui); it was left untouched"


class _Located:
    def __init__(self, lines: dict[str, int]) -> None:
        self.lines = lines

    def get_line(self, path: str) -> int | None:
        """The line of ``path`` (``combatants[2].sheet.hlt``), else of the nearest table or
        key that holds it."""
        while path:
            if path in self.lines:
                return self.lines[path]
            cut = max(path.rfind("."), path.rfind("["))
            path = path[:cut] if cut > 0 else ""
        return None


def _locate(state: str) -> _Located:
    """Each key and table of a TOML text by its path, with its line (1 = the text's first):
    ``[[combatants]]`` tables are numbered ``combatants[0]``, ``combatants[1]``..."""
    lines: dict[str, int] = {}
    arrays: dict[str, int] = {}

    def resolve(segs: list[str]) -> str:
        out = ""
        for seg in segs:
            out = f"{out}.{seg}" if out else seg
            if out in arrays:
                out = f"{out}[{arrays[out]}]"
        return out

    prefix = ""
    for n, line in enumerate(state.split("\n"), start=1):
        s = line.strip()
        if s.startswith("[["):
            segs = [p.strip().strip('"') for p in s[2:].split("]]")[0].split(".")]
            parent = resolve(segs[:-1])
            p = f"{parent}.{segs[-1]}" if parent else segs[-1]
            arrays[p] = arrays.get(p, -1) + 1
            prefix = f"{p}[{arrays[p]}]"
            lines.setdefault(prefix, n)
        elif s.startswith("["):
            prefix = resolve([p.strip().strip('"') for p in s[1:].split("]")[0].split(".")])
            lines.setdefault(prefix, n)
        elif "=" in s and not s.startswith("#"):
            key = s.split("=", 1)[0].strip().strip('"')
            lines.setdefault(f"{prefix}.{key}" if prefix else key, n)
    return _Located(lines)


def _refusal(
    source: str, state: str, offset: int, path: str, problem: str, missing: int | None = None
) -> InvalidSave:
    """A refused edit: ``file:line: key problem``, the line the key's (or its table's; for a
    key that is not there, ``missing``: a line of the fight's part)."""
    line = _locate(state).get_line(path) or missing
    at = f":{line + offset}" if line else ""
    return InvalidSave(
        f"{source}{at}: {path} {problem} (edited outside facility-tui); it was left untouched"
    )


def sided(enc: Encounter, state: str, source: str, offset: int) -> Encounter:
    """Each combatant's side as ``add side=`` takes it: ``pc``, ``PCs``, ``player``, ``enemy``,
    ``NPC``... (``call.SIDES``, any case) are the side they mean, as is the default of a deleted
    ``side`` line (``enemy``: what ``add`` gives); any other word is refused with its line."""
    from attrs import evolve

    from facility_tui.commands.spec import SIDES
    from facility_tui.model.encounter import ENEMIES, PCS

    if all(c.side in (PCS, ENEMIES) for c in enc.combatants):
        return enc
    given = []
    for i, c in enumerate(enc.combatants):
        side = SIDES.get(c.side.strip().lower())
        if side is None:
            raise _refusal(
                source,
                state,
                offset,
                f"combatants[{i}].side",
                f"must be {PCS} or {ENEMIES} (pc, enemy... are read as them), got {shown(c.side)}",
            )
        given.append(c if side == c.side else evolve(c, side=side))
    return evolve(enc, combatants=tuple(given))


def check_rules(
    before: Encounter | None, enc: Encounter, state: str, source: str, offset: int
) -> None:
    """Each combatant the edit changed or added, held to what a command could make of it: the
    bounds its fields and its sheet's declare (``model.fields``: an initiative from 0, a
    handle from 0), and the rules' own (``Validation.check_combatant``: the same values
    ``add`` and ``set`` refuse); then the rules' encounter state (``check_state``) if the edit
    touched it or the combatants."""
    from facility_tui.commands.spec import MAX_VALUE
    from facility_tui.model.fields import out_of_bounds

    if not -1 <= enc.handles <= MAX_VALUE:  # (as a combatant's handle, within MAX_VALUE)
        raise _refusal(
            source,
            state,
            offset,
            "encounter.handles",
            f"must be from -1 (a save from before numbers) to {MAX_VALUE}, got {enc.handles}",
        )
    rules = rules_for(enc.system)
    old = {c.id: c for c in before.combatants} if before is not None else {}
    for i, c in enumerate(enc.combatants):
        if old.get(c.id) == c:
            continue
        found = out_of_bounds(c) or rules.validation.check_combatant(enc, c)
        if found is not None:
            raise _refusal(source, state, offset, f"combatants[{i}].{found[0]}", found[1])
    found = rules.validation.check_state(enc)
    if found is not None and (
        before is None or before.state != enc.state or before.combatants != enc.combatants
    ):
        raise _refusal(source, state, offset, f"encounter.state.{found[0]}", found[1])


def empty_like(enc: Encounter) -> Encounter:
    from attrs import evolve

    return evolve(enc, combatants=())


def check_edit(
    found: list[tuple[str, str, Any, Any]], enc: Encounter, state: str, source: str, offset: int
) -> None:
    """What an edit changed must be what a command could make: numbers within ±MAX_VALUE, text
    without control characters and within the length its field declares (``model.fields``),
    dice where it declares dice, and the order naming who is there."""
    from facility_tui.campaign.folder import is_dice
    from facility_tui.commands.spec import MAX_VALUE
    from facility_tui.model import fields
    from facility_tui.model.encounter import ENEMIES, PCS
    from facility_tui.model.text import CONTROL, control_in

    index = {c.name: i for i, c in enumerate(enc.combatants)}

    def refuse(path: str, problem: str) -> None:
        raise _refusal(source, state, offset, path, problem)

    for whose, path, _old, new in found:
        if whose and path == "" and new is not None:  # a combatant added: all of it
            i = index[whose]
            from facility_tui.commands.edits import leaves

            items = list(leaves(encode(enc.combatants[i])).items())
            at = f"combatants[{i}]"
        elif whose:
            if path == "" or whose not in index:
                continue
            items, at = [(path, new)], f"combatants[{index[whose]}]"
        else:
            items, at = [(path, new)], "encounter"
        owner: object = enc if at == "encounter" else enc.combatants[index[whose]]
        for key, value in items:
            full = f"{at}.{key}"
            if type(value) is int and at != "encounter" and abs(value) > MAX_VALUE:
                refuse(full, f"must be within ±{MAX_VALUE}, got {value}")
            if isinstance(value, str):
                if CONTROL.search(value):
                    refuse(full, f"must not hold control characters (it has {control_in(value)})")
                said = fields.at(owner, key)
                if len(value) > said.chars:
                    refuse(full, f"must be at most {said.chars} characters, got {len(value)}")
                if said.dice and not is_dice(value):
                    refuse(full, f"must be a whole number or dice like 1d6+3, got {shown(value)}")
    known = {c.id for c in enc.combatants} | {c.side for c in enc.combatants} | {PCS, ENEMIES}
    for slot in enc.order:
        if slot not in known:
            refuse("encounter.order", f"names {shown(slot)}, which is no combatant's id")
