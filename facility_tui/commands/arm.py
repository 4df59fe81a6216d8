"""``arm``: every enemy of a type given a weapon of the catalog in one step (``arm boarder
FAM-90``), the change a fight tuned by its weapons applies (``facility-tui tune --arm``,
docs/forecast.md).

The weapon is read as the rules' own ``set WHO weapon NAME`` reads it, for each member of the
type: the campaign's catalog first (read through ``call.reads``, so undo, redo and reloading
never read the files again), then the shipped one; it is the one weapon they carry, loaded, as a
fresh weapon of the catalog is. The step logs one line (``Arm: Boarder ×3 carry FAM-90 (had
SMG 3d6+1 SA/BF/AF, ammo 30/30)``); the overrides ``set`` would log are not kept.
"""

from __future__ import annotations

from attrs import evolve

from facility_tui.campaign.catalogs import finder, listing
from facility_tui.campaign.folder import Campaign, CampaignError
from facility_tui.commands import verbs
from facility_tui.commands.grammar import CommandError, Parsed
from facility_tui.commands.muster import EnemyType, enemy_types, key_of, type_name, type_requests
from facility_tui.commands.spec import SPEC, Call, command, logged_line
from facility_tui.model.encounter import ENEMIES, Combatant, Encounter, LogEntry
from facility_tui.model.text import nearest
from facility_tui.systems import rules_for


class NothingToArm(CommandError):
    """Each enemy named carries that weapon already, loaded (``tune --arm``: today's fight)."""


def carried(enc: Encounter, c: Combatant) -> str:
    """What ``c`` carries in the rules' own words (its detail pane's weapon lines), "" for
    nothing: ``SMG 3d6+1 SA/BF/AF, ammo 30/30``."""
    rows = [
        row
        for pane in rules_for(enc.system).view.panes(enc, c)
        for row in pane.rows
        if getattr(row, "label", "") == "Weapon"
    ]
    return "; ".join(str(getattr(row, "text", "")) for row in rows)


def weapon_names(system: str, campaign: Campaign | None = None) -> list[str]:
    """The catalog's weapons of ``system``, the campaign's among them (its own in the place of a
    shipped one of that name), in the catalog's order."""
    return [name for name, _figures, _own in listing(system, "weapon", campaign)]


def _requests(call: Call) -> list[tuple[str, str, str]]:
    """(key, type as typed, weapon as typed) for ``arm TYPE WEAPON`` (the weapon the rest of the
    words) or each ``TYPE=WEAPON``."""
    if not call.options and len(call.args) >= 2 and "=" not in call.args[0]:
        return [(key_of(call.args[0]), call.args[0], " ".join(call.args[1:]))]
    return type_requests(
        call, "TYPE WEAPON or TYPE=WEAPON", "an enemy type and a weapon of the catalog"
    )


def _kind(call: Call, kinds: dict[str, EnemyType], key: str, typed: str) -> EnemyType:
    kind = kinds.get(key)
    if kind is not None:
        return kind
    pcs = {key_of(type_name(c.name)) for c in call.enc.combatants if c.side != ENEMIES}
    if key in pcs or _is_pc(call, typed):
        raise CommandError(f"'{typed}' is a PC: arm gives weapons to enemies")
    one = _one(call, typed)
    if one is not None and key_of(type_name(one.name)) in kinds:  # (tab gave a member's id)
        raise CommandError(
            f"'{typed}' is {one.name}: arm names the type, every one of them "
            f"(arm {key_of(type_name(one.name))} …)"
        )
    there = ", ".join(f"{t.name} ({len(t.members)})" for t in kinds.values())
    raise CommandError(
        f"no enemy type '{typed}': "
        + (f"the fight has {there}" if there else "the fight has no enemies")
    )


def _one(call: Call, typed: str) -> Combatant | None:
    """The one combatant ``typed`` names as the commands name one, or None."""
    try:
        return call.combatant(typed.replace("_", " "))
    except CommandError:
        return None


def _is_pc(call: Call, typed: str) -> bool:
    one = _one(call, typed)
    return one is not None and one.side != ENEMIES


def _weapon(call: Call, typed: str) -> str:
    """The catalog's name of the weapon ``typed`` names (its name, key or other word, any
    case), read as the rules read it; refused with the nearest name when there is none."""
    text = typed.strip()
    if not text:
        raise CommandError("name a weapon of the catalog")
    try:
        entry = finder(call.reads, call.enc.system)("weapon", text)
    except CampaignError as err:
        raise CommandError(str(err)) from None
    if entry is not None:
        name = str(entry["name"])
        if "," in name:  # (the rules read a weapon list at its commas)
            raise CommandError(f"weapon '{name}': a name with a comma cannot be given with arm")
        return name
    names = weapon_names(call.enc.system, call.reads.campaign)
    near = nearest(text, {n.lower(): n for n in names})
    hint = (
        f" (did you mean {next(n for n in names if n.lower() == near)}?)"
        if near
        else f": it has {', '.join(names)}"
    )
    raise CommandError(f"no weapon '{text}' in the {call.enc.system} catalog{hint}")


def _set(call: Call, c: Combatant, field: str, value: str) -> Encounter:
    """The rules' own ``set WHO FIELD VALUE`` on ``c``, inside this call (its reads kept)."""
    spec = getattr(verbs.set_value, SPEC)
    parsed = Parsed("set", (c.id, field, value), ())
    return call.rules.set_value(Call(spec, parsed, call.enc, call.dice, call.rules, call.reads))


@command(
    "arm",
    "arm TYPE WEAPON | arm TYPE=WEAPON [TYPE=WEAPON ...]",
    "Give every enemy of a type a weapon of the catalog, in one step (arm boarder FAM-90): it "
    "becomes the one weapon they carry, loaded; TYPE is their name without its number; the "
    "campaign's catalogs first, then the rules'",
    preview=logged_line,
)
def arm(call: Call) -> Encounter:
    start = call.enc
    kinds = enemy_types(start)
    parts: list[str] = []
    unchanged: list[str] = []
    seen: set[str] = set()
    for key, typed, text in _requests(call):
        kind = _kind(call, kinds, key, typed)
        if key in seen:
            raise CommandError(f"{typed}: that type is given twice")
        seen.add(key)
        name = _weapon(call, text)
        before = call.enc
        for c in kind.members:
            call.enc = _set(call, c, "weapon", name)
            if hasattr(c.sheet, "empty"):
                # (Facility marks a gun out of ammo on the sheet, not on the weapon: the new
                # one is loaded)
                call.enc = _set(call, c, "empty", "none")
        armed = [c for c in kind.members if call.enc.get(c.id) != before.get(c.id)]
        if not armed:
            unchanged.append(f"{kind.name} {name}")
            continue
        had = sorted({carried(start, c) for c in armed} - {""})
        was = f" (had {'; '.join(had)})" if had else ""
        who = f"{armed[0].name} carries" if len(armed) == 1 else f"{kind.name} ×{len(armed)} carry"
        parts.append(f"{who} {name}{was}")
    if not parts:
        said = ", ".join(unchanged)
        raise NothingToArm(f"nothing to arm: they already carry it, loaded ({said})")
    line = LogEntry(start.round, f"Arm: {'; '.join(parts)}")
    return evolve(call.enc, log=start.log.extended((line,)))
