"""``muster``: the number of each enemy type set in one step (``muster boarder=5 chief=0``), the
change a tuned fight applies (``facility-tui tune``, docs/forecast.md).

An enemy type is the name of its combatants without their number ("Boarder 3" is a Boarder);
its template is the campaign's template of that name, when there is one. More of a type are
added from its template as ``add from=`` adds them, else as fresh copies of one of its members
(unhurt, nothing of this fight: ``Carry.unhurt``, as a template writes), each with an initiative
as ``add`` gives it. Fewer remove the least involved, the highest-numbered first. The step
logs one line that says it all (``Muster: Boarder 3 -> 5 (added Boarder 4, Boarder 5)``).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from attrs import frozen

from facility_tui.campaign import templates
from facility_tui.campaign.folder import CampaignError
from facility_tui.commands import verbs
from facility_tui.commands.grammar import CommandError, Parsed
from facility_tui.commands.spec import SPEC, Call, Spec, command, logged_line, slug, unique_id
from facility_tui.model.codec import defaults
from facility_tui.model.encounter import ENEMIES, Combatant, Encounter, LogEntry, Phase, evolve
from facility_tui.model.fields import fresh_where
from facility_tui.systems import RuleSystem, rules_for

MAX_COUNT = 50  # the most of one type (add takes at most 50 at once)


def type_name(name: str) -> str:
    """``Boarder`` for ``Boarder 3``; a name without a trailing number is its own type."""
    base, _, number = name.rpartition(" ")
    return base if base.strip() and number.isdecimal() else name


def number_of(c: Combatant) -> int:
    """Its number within its type (``Boarder 3``: 3; a lone ``Boarding Chief``: 1)."""
    base, _, number = c.name.rpartition(" ")
    return int(number[-6:]) if base.strip() and number.isdecimal() else 1


def key_of(name: str) -> str:
    """A type as an option's key reads it: ``boarding_chief`` (any case, ``-`` or ``_``)."""
    return slug(name).replace("-", "_")


@frozen
class EnemyType:
    name: str  # as its first member spells it
    members: tuple[Combatant, ...]  # in the list's order


def enemy_types(enc: Encounter) -> dict[str, EnemyType]:
    """The fight's enemy types by key, in the order their first member stands in the list (not
    the rules' objects, a Facility barricade: no fighter)."""
    found: dict[str, list[Combatant]] = {}
    names: dict[str, str] = {}
    tactics = rules_for(enc.system).tactics
    for c in enc.combatants:
        if c.side != ENEMIES or tactics.fallen(enc, c) is None:
            continue
        key = key_of(type_name(c.name))
        found.setdefault(key, []).append(c)
        names.setdefault(key, type_name(c.name))
    return {key: EnemyType(names[key], tuple(cs)) for key, cs in found.items()}


def counts(enc: Encounter) -> dict[str, int]:
    """Each enemy type's name and how many the fight has (the roster ``tune`` changes)."""
    return {t.name: len(t.members) for t in enemy_types(enc).values()}


def line_for(enc: Encounter, wanted: dict[str, int]) -> str:
    """The ``muster`` line that sets the types of ``wanted`` (name -> count) that change."""
    now = counts(enc)
    parts = [f"{key_of(name)}={n}" for name, n in wanted.items() if now.get(name) != n]
    return " ".join(["muster", *parts])


def type_requests(call: Call, form: str, needs: str) -> list[tuple[str, str, str]]:
    """(key, type as typed, value as typed) for each ``TYPE=VALUE`` of the line: an option
    (``boarder=5``) or a quoted word (``"Boarding Chief=0"``); ``form`` says what the line takes,
    ``needs`` what a line of none lacks."""
    out = [(key_of(key), key, value) for key, value in call.own_options().items()]
    for word in call.args:
        name, eq, value = word.rpartition("=")
        if not eq or not name.strip():
            raise call.usage_error(f"'{call.verb}' takes {form}, got '{word}'")
        out.append((key_of(name), name, value))
    if not out:
        raise call.usage_error(f"'{call.verb}' needs {needs}")
    return out


def _count(typed: str, text: str) -> int:
    value = text.strip()
    if not (value.isascii() and value.lstrip("-").isdigit()):
        raise CommandError(f"{typed}: expected a number of enemies, got '{text}'")
    n = int(value[-9:]) if value.isdigit() else -1
    if n < 0:
        raise CommandError(f"{typed}: a count is at least 0, got {value}")
    if n > MAX_COUNT:
        raise CommandError(f"{typed}: at most {MAX_COUNT} of one type, got {n}")
    return n


def _template(call: Call, name: str) -> templates.Template | None:
    """The campaign's template of the type's name, or None (none, or no campaign folder)."""
    if call.reads.campaign is None and not call.reads.replaying:
        return None
    try:
        data = call.reads("template", name)
    except CampaignError:  # (replayed without the folder it was read from)
        return None
    return None if data is None else templates.parse(data, call.enc.system)


def _is_pc(call: Call, typed: str) -> bool:
    """Whether ``typed`` names a PC as the commands name a combatant (``blanc``, ``sgt_blanc``)."""
    try:
        return call.combatant(typed.replace("_", " ")).side != ENEMIES
    except CommandError:
        return False


def _fresh_of(rules: RuleSystem, sheet: Any) -> Any:
    """``sheet`` with its fight's bookkeeping as a fresh sheet's (as a template writes it)."""
    fresh = dict(defaults(rules.sheet_type))
    kept = {k: fresh[k] for k in rules.carry.per_fight if k in fresh}
    sheet = evolve(sheet, **kept) if kept else sheet
    return fresh_where(sheet, lambda said: not said.template)


def involvement(enc: Encounter, rules: RuleSystem, c: Combatant) -> tuple[bool, bool, bool]:
    """How much the fight has to do with ``c``, least first: whether its turn is running,
    whether it is hurt (its sheet is not as unhurt), whether it has any of the fight's
    bookkeeping (turns taken, an initiative rolled)."""
    fresh = _fresh_of(rules, c.sheet)
    return (
        enc.current == c.id,
        _fresh_of(rules, rules.carry.unhurt(c.sheet)) != fresh,
        fresh != c.sheet,
    )


def _free_names(enc: Encounter, kind: EnemyType, n: int) -> list[str]:
    """``n`` new names of the type, numbered on from its highest, none a name already used."""
    taken = {c.name.lower() for c in enc.combatants}
    number = max(number_of(c) for c in kind.members) if kind.members else 0
    names: list[str] = []
    while len(names) < n:
        number += 1
        name = f"{kind.name} {number}"
        if name.lower() not in taken:
            names.append(name)
    return names


def _sub(call: Call, verb: str, args: Iterable[str], options: Iterable[tuple[str, str]]) -> Call:
    """A call of ``verb`` inside this one: the same encounter, dice and campaign reads."""
    spec: Spec = getattr(verb_runner(verb), SPEC)
    parsed = Parsed(verb, tuple(args), tuple(options))
    return Call(spec, parsed, call.enc, call.dice, call.rules, call.reads)


def verb_runner(verb: str) -> Any:
    return {"add": verbs.add, "remove": verbs.remove}[verb]


def _copy(call: Call, model: Combatant, name: str) -> Combatant:
    """A fresh copy of ``model`` named ``name``: unhurt, its fight's fields fresh, an
    initiative as ``add`` gives it (its own ``init`` rolled again, where combatants have one)."""
    rules = call.rules
    base: Combatant = fresh_where(model, lambda said: not said.template)
    sheet = _fresh_of(rules, rules.carry.unhurt(model.sheet))
    init = model.init if not rules.info.side_initiative else ""
    initiative = call.initiative(init, f"{name} initiative", model.side, name) if init else 0
    return evolve(base, id=unique_id(call.enc, name), name=name, initiative=initiative, sheet=sheet)


@command(
    "muster",
    "muster TYPE=N [TYPE=N ...]",
    "Set how many enemies of each type the fight has, in one step (muster boarder=5 chief=0): "
    "TYPE is their name without its number; more are added from the campaign's template of "
    "that name, else as fresh copies of one of them; fewer remove the least involved, the "
    "highest-numbered first",
    rolls=("each one added: its initiative, as add rolls it (and its template's dice)",),
    preview=logged_line,
)
def muster(call: Call) -> Encounter:
    start = call.enc
    kinds = enemy_types(start)
    pcs = {key_of(type_name(c.name)) for c in start.combatants if c.side != ENEMIES}
    wanted: dict[str, tuple[EnemyType, int, templates.Template | None]] = {}
    for key, typed, text in type_requests(call, "TYPE=N", "TYPE=N for at least one enemy type"):
        n = _count(typed, text)
        if key in wanted:
            raise CommandError(f"{typed}: that type is given twice")
        kind = kinds.get(key)
        template = None
        if kind is None and (key in pcs or _is_pc(call, typed)):
            raise CommandError(f"'{typed}' is a PC: muster sets the number of enemies")
        if kind is None or len(kind.members) < n:
            template = _template(call, kind.name if kind is not None else typed)
        if kind is None:
            if template is None:
                there = ", ".join(f"{t.name} ({len(t.members)})" for t in kinds.values())
                raise CommandError(
                    f"no enemy type '{typed}': "
                    + (f"the fight has {there}" if there else "the fight has no enemies")
                    + " (or a campaign template of that name)"
                )
            kind = EnemyType(typed, ())
        wanted[key] = (kind, n, template)
    parts: list[str] = []
    kept: list[LogEntry] = []  # lines a removal gave beyond its own (a turn passed on)
    joins = False
    for kind, n, template in wanted.values():
        have = len(kind.members)
        if n > have:
            added = []
            for name in _free_names(call.enc, kind, n - have):
                if template is not None:
                    read = [("from", kind.name), ("side", "enemy")]
                    call.enc = verbs.add(_sub(call, "add", [name], read))
                else:
                    call.enc = call.enc.joined(_copy(call, kind.members[0], name))
                c = call.enc.combatants[-1]
                added.append(f"{c.name} (init {c.initiative})" if c.initiative else c.name)
            source = f" from {template.file}" if template is not None else ""
            parts.append(f"{kind.name} {have} -> {n} (added {', '.join(added)}{source})")
            joins = joins or call.enc.phase is Phase.ACTIVE
        elif n < have:
            order = {c.id: i for i, c in enumerate(kind.members)}
            gone = sorted(
                kind.members,
                key=lambda c: (
                    involvement(call.enc, call.rules, c),
                    -number_of(c),
                    -order[c.id],
                ),
            )[: have - n]
            for c in gone:
                before = len(call.enc.log)
                call.enc = verbs.remove(_sub(call, "remove", [c.id], []))
                kept += call.enc.log[before + 1 :]
            parts.append(f"{kind.name} {have} -> {n} (removed {', '.join(c.name for c in gone)})")
    if not parts:
        said = ", ".join(f"{kind.name} {n}" for kind, n, _ in wanted.values())
        raise CommandError(f"nothing to change: the fight already has {said}")
    when = "; the new join the order next round" if joins else ""
    line = LogEntry(start.round, f"Muster: {'; '.join(parts)}{when}")
    return evolve(call.enc, log=start.log.extended((line, *kept)))
