"""Edits made to a save outside facility-tui: what changed, and the step that replays it.

A GM may open a save in an editor and change the fight (a name, a Health value, a weapon's ammo).
``store`` tells such a file from a damaged one (see ``docs/save-format.md``), checks it, and turns
the difference into one step of the history: ``Step("edit", edit=data)``, where ``data`` holds
the encounter after the edit, with every combatant the edit left alone written as its id only.
Undo returns to the state the app wrote; redo and a reload replay the step (``apply_edit``), so
a save and its load stay the identity.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from facility_tui.model.codec import DecodeError, decode, decode_attrs, encode, encode_sparse
from facility_tui.model.encounter import Combatant, Encounter, Kind, LogEntry
from facility_tui.systems import ids, rules_for

EDIT_LINE = "edit"  # the line of an edit step in the history: a pseudo-command, never parsed
LOG_PREFIX = "Edited outside facility-tui: "
SHOWN_CHANGES = 6  # changes named in the message and the log line; the rest are counted


# -- encounter <-> data -------------------------------------------------------------------------


def encounter_from(
    data: Any,
    *,
    log: Sequence[LogEntry] | None = None,
    known: dict[str, Combatant] | None = None,
    where: str = "combatants",
) -> Encounter:
    """The encounter of plain ``data`` (``codec.encode`` output, dense or sparse). A combatant
    given as its id alone is taken from ``known`` (an edit step's unchanged combatants)."""
    if not isinstance(data, dict):
        raise DecodeError("encounter: expected a table")
    system = decode(str, data.get("system"), where="encounter.system")
    if system not in ids():
        raise DecodeError(f"encounter.system: no rule system is called {system!r}")
    rules = rules_for(system)
    raw = data.get("combatants", [])
    if not isinstance(raw, list):
        raise DecodeError(f"{where}: expected a list", where)
    combatants = []
    for i, c in enumerate(raw):
        at = f"{where}[{i}]"
        if isinstance(c, str) and known is not None and c in known:
            combatants.append(known[c])
            continue
        sheet = (
            decode_attrs(rules.sheet_type, c.get("sheet", {}), where=f"{at}.sheet")
            if isinstance(c, dict)
            else None
        )
        combatants.append(decode_attrs(Combatant, c, where=at, sheet=sheet))
    given: dict[str, Any] = {
        "combatants": tuple(combatants),
        "state": decode_attrs(rules.state_type, data.get("state", {}), where="encounter.state"),
    }
    if log is not None:
        given["log"] = log
    return decode_attrs(Encounter, data, where="encounter", **given)  # type: ignore[no-any-return]


def numbered(enc: Encounter, unnumbered: frozenset[str] = frozenset()) -> Encounter:
    """A combatant added by hand has no number (handle 0), or a copied block has another's: it
    gets the next one, as ``add`` would give it, so ``#N`` names one combatant only (a save from
    before numbers keeps its places). ``unnumbered``: the ids facility-tui itself wrote without
    a number (a barricade of a save from before made combatants were numbered), kept so."""
    handles = [c.handle for c in enc.combatants]
    if not enc.numbered or (all(handles) and len(set(handles)) == len(handles)):
        return enc
    from attrs import evolve

    top = max([enc.handles, *handles])
    seen: set[int] = set()
    given = []
    for c in enc.combatants:
        if (not c.handle and c.id not in unnumbered) or (c.handle and c.handle in seen):
            top += 1
            c = evolve(c, handle=top)
        seen.add(c.handle)
        given.append(c)
    return evolve(enc, combatants=tuple(given), handles=top)


# -- what changed -------------------------------------------------------------------------------


def leaves(data: Any, prefix: str = "") -> dict[str, Any]:
    """Every scalar of plain data by its path: ``{"sheet.weapons[0].ammo": 21, ...}``."""
    out: dict[str, Any] = {}
    if isinstance(data, dict):
        if not data and prefix:
            out[prefix] = {}
        for k, v in data.items():
            out.update(leaves(v, f"{prefix}.{k}" if prefix else str(k)))
    elif isinstance(data, list) and data and any(isinstance(v, dict | list) for v in data):
        for i, v in enumerate(data):
            out.update(leaves(v, f"{prefix}[{i}]"))
    else:
        out[prefix] = data
    return out


def _top(enc: Encounter) -> dict[str, Any]:
    from attrs import evolve

    data: dict[str, Any] = encode(evolve(enc, log=(), combatants=()))
    data.pop("log", None)
    data.pop("combatants", None)
    return data


def changes(before: Encounter, after: Encounter) -> list[tuple[str, str, Any, Any]]:
    """What differs: ``(whose, path, old, new)``, in the order of the save; ``whose`` is the
    combatant's name (its name after the edit), or "" for the encounter. A combatant added or
    removed is one change (path "" and ``None`` for the side it is missing on)."""
    out: list[tuple[str, str, Any, Any]] = []
    old_top, new_top = leaves(_top(before)), leaves(_top(after))
    for path in _union(old_top, new_top):
        if old_top.get(path, _MISSING) != new_top.get(path, _MISSING):
            out.append(("", path, old_top.get(path), new_top.get(path)))
    old = {c.id: c for c in before.combatants}
    new_ids = {c.id for c in after.combatants}
    for c in after.combatants:
        was = old.get(c.id)
        if was is None:
            out.append((c.name, "", None, c.id))
        elif was != c:
            a, b = leaves(encode(was)), leaves(encode(c))
            for path in _union(a, b):
                if a.get(path, _MISSING) != b.get(path, _MISSING):
                    out.append((c.name, path, a.get(path), b.get(path)))
    for c in before.combatants:
        if c.id not in new_ids:
            out.append((c.name, "", c.id, None))
    if [c.id for c in before.combatants] != [c.id for c in after.combatants] and not any(
        path == "" for _, path, _, _ in out
    ):
        out.append(("", "combatants", "order", "reordered"))
    return out


_MISSING = object()


def _union(a: dict[str, Any], b: dict[str, Any]) -> list[str]:
    return [*a, *(k for k in b if k not in a)]


def describe(found: list[tuple[str, str, Any, Any]]) -> str:
    """The changes as one short line: ``Alpha: sheet.hlt 20 → 24; Beta: name 'Beta' → 'Bo'``."""
    from facility_tui.model.codec import got

    parts = []
    for whose, path, old, new in found[:SHOWN_CHANGES]:
        if path == "" and old is None:
            parts.append(f"added {whose}")
        elif path == "" and new is None:
            parts.append(f"removed {whose}")
        elif path == "combatants" and new == "reordered":
            parts.append("combatants reordered")
        else:
            what = f"{whose}: {path}" if whose else path
            parts.append(f"{what} {_value(old, got)} → {_value(new, got)}")
    more = len(found) - SHOWN_CHANGES
    if more > 0:
        parts.append(f"and {more} more")
    return "; ".join(parts)


def _value(value: Any, got: Any) -> str:
    return "(none)" if value is None else str(got(value))


# -- the edit as a step -------------------------------------------------------------------------


def edit_data(before: Encounter, after: Encounter, note: str) -> dict[str, Any]:
    """What an edit step holds: ``after`` without its log, each combatant ``before`` had
    unchanged written as its id, and ``note`` (the changes, for the log line)."""
    old = {c.id: c for c in before.combatants}
    data = encode_sparse(_bare(after))
    data["combatants"] = [
        c.id if old.get(c.id) == c else encode_sparse(c) for c in after.combatants
    ]
    return {"note": note, "encounter": data}


def _bare(enc: Encounter) -> Encounter:
    from attrs import evolve

    return evolve(enc, log=(), combatants=())


def apply_edit(before: Encounter, data: Any) -> Encounter:
    """The encounter an edit step leads to from ``before``: its data, with ``before``'s log
    and one line saying what was edited."""
    if not isinstance(data, dict) or not isinstance(data.get("note"), str):
        raise DecodeError("edit: expected a table with a note")
    after = encounter_from(
        data.get("encounter"),
        log=(),
        known={c.id: c for c in before.combatants},
        where="edit.combatants",
    )
    line = LogEntry(after.round, LOG_PREFIX + data["note"], Kind.OVERRIDE)
    from attrs import evolve

    return evolve(after, log=before.log + (line,))  # noqa: RUF005
