"""The party as the fights read it: ``party.toml`` checked and read into combatants, what of a
PC outlasts a fight, and ``party join`` (the roster's PCs into a fight in setup).

``party.toml`` holds one ``[[pc]]`` table per PC: its rule system, its name, an optional note,
and its sheet as a save writes a combatant's (``[pc.sheet]``, only what differs from a fresh
sheet). A campaign may keep PCs of both rule systems; a fight takes those of its own. The file
is written by ``party`` (``campaign.roster``) and may be edited by hand: each PC is held to
the checks of a hand-edited save, and a mistake is refused with its line and key.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from attrs import evolve, frozen

from facility_tui.campaign.folder import (
    PARTY,
    Campaign,
    CampaignError,
    field_value,
    line_of,
    reader,
)
from facility_tui.commands.grammar import CommandError
from facility_tui.commands.spec import Call, command, resolve, unique_id
from facility_tui.model.codec import DecodeError, decode, encode, encode_sparse, got, unknown_key
from facility_tui.model.encounter import PCS, Combatant, Encounter, Phase
from facility_tui.model.fields import facts_of, fresh_where, where
from facility_tui.model.text import printable
from facility_tui.systems import ids, rules_for


def kept_fields() -> tuple[str, ...]:
    """What of a combatant the party keeps besides its sheet: every field that outlasts a
    fight, as the fields declare (``model.fields``: name, notes, notes_hidden, init...), so a
    field a combatant gains reaches the roster without being named here."""
    return tuple(name for name in where(Combatant, lambda said: said.lasts) if name != "sheet")


def table_keys() -> tuple[str, ...]:
    """A [[pc]] table's keys, in the order written."""
    return ("system", *kept_fields(), "sheet")


# The ``party`` lines that list or change the roster itself (``campaign.roster`` runs them,
# beside the fight); ``party join`` changes the fight.
ROSTER_LINES = ("list", "add", "return", "rest", "heal", "do", "undo", "redo")


def on_roster(args: Sequence[str]) -> bool:
    """Whether a ``party`` line with these arguments lists or changes the roster (``party``
    alone lists it)."""
    return not args or args[0].lower() in ROSTER_LINES


@frozen
class Member:
    """One PC of the party: its rule system and the combatant it joins a fight as."""

    system: str
    pc: Combatant


def member_data(m: Member) -> dict[str, Any]:
    """A PC as ``party.toml`` holds it (and as a ``party join`` step records it): what of it
    differs from a fresh combatant, its sheet sparse."""
    data: dict[str, Any] = {"system": m.system}
    fresh = Combatant(id="", name="")
    for key in kept_fields():
        value = getattr(m.pc, key)
        if key == "name" or value != getattr(fresh, key):
            data[key] = encode(value)
    data["sheet"] = encode_sparse(m.pc.sheet)
    return data


def fingerprint(m: Member) -> str:
    """A short digest of a PC as the roster holds it: a fight keeps the one it joined as
    (``Combatant.joined``), and a roster that changed since then has another."""
    import hashlib
    import json

    text = json.dumps(member_data(m), sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def _field(key: str, value: Any) -> tuple[Any, str | None]:
    """A kept field's value read from a [[pc]] table, or why it cannot be one."""
    try:
        return field_value(Combatant, key, value), None
    except ValueError as err:
        return None, str(err)


def parse_party(text: str, file: str = PARTY) -> list[Member]:
    """The PCs of ``party.toml``'s text, each checked as a hand-edited save's combatant is;
    ``CampaignError`` naming the line and key of the first mistake."""

    def refuse(path: tuple[str | int, ...], why: str) -> CampaignError:
        where = ".".join(f"[{p}]" if isinstance(p, int) else str(p) for p in path)
        return CampaignError(f"{where.replace('.[', '[')}: {why}", file, line_of(text, path))

    import tomllib  # (only when a party is read: not on every launch)

    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        found_at = re.search(r"\(at line (\d+), column \d+\)", str(err))
        why = re.sub(r"\s*\(at line \d+, column \d+\)", "", str(err))
        line = int(found_at.group(1)) if found_at else 0
        raise CampaignError(f"not TOML: {printable(why)}", file, line) from None
    extra = [k for k in doc if k != "pc"]
    if extra:
        raise refuse((extra[0],), "unknown key: each PC is a [[pc]] table")
    tables = doc.get("pc", [])
    if not isinstance(tables, list):
        raise refuse(("pc",), "must be [[pc]] tables, one per PC")
    members: list[Member] = []
    seen: set[tuple[str, str]] = set()
    for i, t in enumerate(tables):
        at: tuple[str | int, ...] = ("pc", i)
        if not isinstance(t, dict):
            raise refuse(at, f"must be a [[pc]] table, got {got(t)}")
        for key in t:
            if key not in table_keys():
                raise refuse((*at, key), f"unknown key (a PC has {', '.join(table_keys())})")
        system = t.get("system")
        if system not in ids():
            raise refuse((*at, "system"), f"must be {' or '.join(ids())}, got {got(system)}")
        name = t.get("name")
        if not isinstance(name, str) or not name.strip():
            raise refuse((*at, "name"), f"must be the PC's name, got {got(name)}")
        chars = facts_of(Combatant, "name").chars
        if len(name) > chars or name != printable(name):
            raise refuse((*at, "name"), f"at most {chars} printable characters")
        fields: dict[str, Any] = {}
        for key in kept_fields():
            if key != "name" and key in t:
                fields[key], problem = _field(key, t[key])
                if problem is not None:
                    raise refuse((*at, key), problem)
        if (system, name.lower()) in seen:
            raise refuse((*at, "name"), f"a second {system} PC called '{name}'")
        seen.add((system, name.lower()))
        rules = rules_for(system)
        sheet_data = t.get("sheet", {})
        bad = unknown_key(rules.sheet_type, sheet_data, "")
        if bad:
            path = tuple(bad.replace("]", "").replace("[", ".").split("."))
            keys = tuple(int(p) if p.isdigit() else p for p in path)
            raise refuse((*at, "sheet", *keys), "unknown key")
        try:
            sheet = decode(rules.sheet_type, sheet_data, where="sheet")
        except DecodeError as err:
            path = tuple(err.where.replace("]", "").replace("[", ".").split("."))
            keys = tuple(int(p) if p.isdigit() else p for p in path if p)
            why = str(err).split(": ", 1)[-1]
            raise refuse((*at, *keys), why) from None
        pc = Combatant(id=unique_id(Encounter("", system), name), name=name, side=PCS)
        # what lasts of it (a hand edit's per-fight values, an older roster's injury rounds)
        pc = evolve(pc, **fields, sheet=rules.carry.lasting(sheet))
        found = rules.validation.check_combatant(Encounter("", system, state=rules.new_state()), pc)
        if found is not None:
            keys = tuple(int(p) if p.isdigit() else p for p in found[0].split("."))
            raise refuse((*at, *keys), found[1])
        members.append(Member(system, pc))
    return members


def read_text(campaign: Campaign) -> str:
    """``party.toml``'s text; empty when there is none. ``CampaignError`` if it cannot be read."""
    path = campaign.party
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return ""
    except (OSError, UnicodeDecodeError) as err:
        why = err.strerror if isinstance(err, OSError) else "not UTF-8 text"
        raise CampaignError(f"cannot be read: {why or err}", str(path)) from None


def load(campaign: Campaign) -> list[Member]:
    return parse_party(read_text(campaign), str(campaign.party))


@reader("party")
def read_party(campaign: Campaign, system: str) -> Any:
    """The PCs of ``system`` in the campaign's party, as plain data (a ``Read``'s)."""
    return [member_data(m) for m in load(campaign) if m.system == system]


def lasting(system: str, pc: Combatant) -> Combatant:
    """``pc`` as the party keeps it: on the PC side, what belongs to one fight (its
    initiative, number...: the fields that do not last, ``model.fields``) as fresh, its
    sheet's lasting part (``Carry.lasting``, and the sheet's fields that do not last)."""
    fresh = Combatant(id=pc.id, name=pc.name, side=PCS)
    fight = {key: getattr(fresh, key) for key in where(Combatant, lambda said: not said.lasts)}
    sheet = fresh_where(rules_for(system).carry.lasting(pc.sheet), lambda said: not said.lasts)
    return evolve(pc, **fight, sheet=sheet)


def between(
    system: str,
    pcs: Sequence[Combatant],
    sub: str,
    args: Sequence[str],
    options: dict[str, str],
    seed: int,
) -> tuple[list[Combatant], list[str]]:
    """``party rest [NAMES]`` or ``party heal LINE`` (``sub``) on ``pcs``, PCs of ``system``,
    in a fight of their own that is never saved, its dice seeded ``seed``: the PCs after it,
    as the party keeps them (``lasting``), in their order, and its log lines. Writes nothing
    (``forecast.day`` rests a day's party with it). ``CommandError`` on a line the rules
    refuse."""
    from facility_tui.commands.dispatch import apply, listed
    from facility_tui.commands.grammar import quote

    rules = rules_for(system)
    downtime = Encounter("Between fights", system, seed=seed, state=rules.new_state(), handles=0)
    for pc in pcs:
        downtime = downtime.joined(pc)
    if sub == "rest":
        if options:
            raise CommandError(f"'party rest' does not take {', '.join(options)}=")
        who = [resolve(downtime, name, listed).id for name in args] or [pc.id for pc in pcs]
        if not rules.carry.rest_between:
            raise CommandError(f"{rules.title} has no rest between fights: party heal LINE")
        lines = [rules.carry.rest_between.format(who=quote(cid)) for cid in who]
    elif sub in ("heal", "do"):
        if not args:
            raise CommandError(
                "usage: party heal LINE, a command of the rules on the party (2297: aid, heal, "
                "rest, newday, fatigue...; Facility: break, tend, shift, scar...)"
            )
        more = [f"{k}={quote(v)}" for k, v in options.items()]
        lines = [" ".join([*(quote(a) for a in args), *more])]
    else:
        raise CommandError(
            f"unknown 'party {sub}': use list, add, return, rest, heal, undo or redo "
            "(party join brings the party into a fight in setup)"
        )
    after = downtime
    for each in lines:
        after = apply(after, each).encounter
    said = [e.text for e in after.log[len(downtime.log) :]]
    return [lasting(system, after.get(pc.id)) for pc in pcs], said


def find(members: list[Member], system: str, name: str) -> Member | None:
    for m in members:
        if m.system == system and m.pc.name.lower() == name.strip().lower():
            return m
    return None


# -- what a fight hands back ----------------------------------------------------------------


@frozen
class Change:
    """What returning one PC changes in the roster: its lines, in words; ``moved_on``: the
    roster holds another state of it than the fight took (another fight handed it back, or
    the file was edited, since): handing this one back would roll the roster back."""

    name: str
    lines: tuple[str, ...]
    member: Member
    moved_on: bool = False


def differences(before: Any, after: Any, path: str = "") -> list[str]:
    """How two sheets' plain data differ, one short line each (``damage 0 → 12``,
    ``phy wounds 1 → 3``, ``weapons PAM9 ammo 17 → 14``, ``injuries: moderate (was none)``)."""
    if isinstance(before, dict) and isinstance(after, dict):
        out: list[str] = []
        for key in dict.fromkeys([*before, *after]):
            sub = f"{path} {key}" if path else str(key)
            out += differences(before.get(key, _DEFAULTS), after.get(key, _DEFAULTS), sub)
        return out
    if before == after:
        return []
    if isinstance(before, list) or isinstance(after, list):
        b, a = before if isinstance(before, list) else [], after if isinstance(after, list) else []
        named_b, named_a = [_label(x) for x in b], [_label(x) for x in a]
        if len(b) == len(a) and named_b == named_a and all(isinstance(x, dict) for x in a):
            out = []
            for label, x, y in zip(named_a, b, a, strict=True):
                out += differences(x, y, f"{path} {label}")
            return out
        return [f"{path}: {', '.join(named_a) or 'none'} (was {', '.join(named_b) or 'none'})"]
    return [f"{path} {_shown(before)} → {_shown(after)}"]


_DEFAULTS: Any = None  # a key a sparse sheet leaves out: its fresh value (shown as "-")


def _label(item: Any) -> str:
    if isinstance(item, dict):
        if item.get("label") and item.get("kind"):  # a timed effect: what it is, and why
            return f"{item['label']} ({item['kind']})"
        for key in ("name", "label", "level", "kind", "id"):
            if item.get(key) not in (None, ""):
                return str(item[key])
        return "?"
    return str(item)


def _shown(value: Any) -> str:
    return "-" if value is None else str(value).lower() if isinstance(value, bool) else str(value)


def _whole(system: str, sheet: Any) -> dict[str, Any]:
    """A sheet's data with every field (so a change back to a default shows its value)."""
    rules = rules_for(system)
    data: dict[str, Any] = encode(sheet)
    fresh = encode(rules.sheet_type())
    return {k: v for k, v in data.items() if k in fresh and k not in rules.carry.quiet_fields}


def changes(members: list[Member], enc: Encounter) -> list[Change]:
    """What handing the fight's PCs back would change, PC by PC: those of the party (by name,
    in this fight's rule system) whose lasting state differs from the roster's."""
    out = []
    for c in enc.combatants:
        m = find(members, enc.system, c.name)
        if m is None or c.side != PCS:
            continue
        kept = Member(enc.system, lasting(enc.system, c))
        before, after = member_data(m), member_data(kept)
        lines = differences(_whole(enc.system, m.pc.sheet), _whole(enc.system, kept.pc.sheet))
        for key in kept_fields():  # (the rest of what lasts, after the sheet)
            lines += differences(before.get(key), after.get(key), key)
        if lines:
            moved_on = bool(c.joined) and c.joined != fingerprint(m)
            out.append(Change(m.pc.name, tuple(lines), kept, moved_on))
    return out


FORCE = "force"  # the word of ``party return`` that hands back over a roster that moved on


def chosen(
    members: list[Member], enc: Encounter, args: list[str], skipped: list[str]
) -> tuple[list[Change], bool]:
    """The hand-back a ``party return`` line asks for: the changes of the PCs it names (all
    by default) but those skipped, and whether it says ``force``."""
    force = any(a.lower() == FORCE for a in args)
    ours = [m for m in members if m.system == enc.system]

    def pcs_named(refs: list[str]) -> set[str]:
        out = set()
        for ref in refs:
            m = named(ours, ref) if ours else None
            if m is None:
                raise CommandError(f"no {enc.system} PC called '{ref}' in the party")
            out.add(m.pc.name)
        return out

    wanted = pcs_named([a for a in args if a.lower() != FORCE])
    skip = pcs_named(skipped)
    found = changes(members, enc)
    return [ch for ch in found if (not wanted or ch.name in wanted) and ch.name not in skip], force


def moved_on_line(found: list[Change], force: bool) -> str | None:
    """One line for the hand-backs that would roll the roster back, or None."""
    stale = [ch for ch in found if ch.moved_on]
    if not stale:
        return None
    names = ", ".join(ch.name for ch in stale)
    if force:
        return f"force: this fight's state replaces the roster's later one ({names})"
    return (
        f"the roster has moved on since this fight took its party ({names}): "
        f"party return {FORCE} hands this fight's state back over it"
    )


# -- the command ----------------------------------------------------------------------------


def preview_party(call: Call) -> list[str]:
    """What a ``party`` line would do, said as the GM types it: who joins and how each stands,
    or what handing the PCs back changes (read live from ``party.toml``, nothing recorded)."""
    sub = call.args[0].lower() if call.args else ""
    if sub not in ("join", "return"):
        return []
    system = call.enc.system
    members = _members(call.reads("party", system), system)
    if not members:
        return [f"the party has no {system} PC: party add WHO, or edit party.toml"]
    if sub == "join":
        rules = rules_for(system)
        named_only = [m for ref in call.args[1:] if (m := named(members, ref)) is not None]
        shown = []
        for m in named_only or members:
            alone = Encounter("", system, state=rules.new_state(), combatants=(m.pc,))
            shown.append(f"{m.pc.name} ({rules.view.state_word(alone, m.pc)})")
        return [f"joins: {', '.join(shown)}"]
    skipped = [n for n in str(call.options.get("skip", "")).split(",") if n.strip()]
    found, force = chosen(members, call.enc, list(call.args[1:]), skipped)
    if not found:
        return ["nothing to hand back: the party stands as in this fight"]
    warning = moved_on_line(found, force)
    return [*([warning] if warning else []), *(f"{ch.name}: {'; '.join(ch.lines)}" for ch in found)]


@command(
    "party",
    "party join [NAMES] | party [list|add WHO|return [NAMES] [force] [skip=A,B]|rest [NAMES]"
    "|heal LINE|undo|redo]",
    "The campaign's PCs (party.toml): join brings them into a fight in setup as they stand; "
    "the others list or change the roster (return: the fight's lasting state back to it; "
    "force: over a roster that moved on since this fight took its party)",
    group="campaign",
    rolls=("join: the init= of each PC that has one, as add rolls it (each in turn)",),
    preview=preview_party,
    beside=lambda parsed: on_roster(parsed.args),
)
def party(call: Call) -> Encounter:
    if on_roster(call.args):
        # the roster's own changes, beside the fight: never a step of its history
        if call.reads.replaying:
            sub = call.args[0] if call.args else "list"
            raise CommandError(f"'party {sub}' changes the roster, not the fight")
        from facility_tui.campaign import roster

        return roster.run(call)
    sub = call.arg(0, "join, list, add, return, rest, heal, undo or redo").lower()
    if sub != "join":
        raise CommandError(
            f"unknown 'party {sub}': use join, list, add, return, rest, heal, undo or redo"
        )
    call.need_phase(Phase.SETUP)
    system = call.enc.system
    entries = call.reads("party", system)
    members = [Member(system, m.pc) for m in _members(entries, system)]
    if not members:
        raise CommandError(f"the party has no {system} PC: party add WHO, or edit party.toml")
    wanted = call.args[1:]
    if wanted:
        chosen = []
        for name in wanted:
            m = named(members, name)
            if m is None:
                have = ", ".join(x.pc.name for x in members)
                raise CommandError(f"no {system} PC called '{name}' in the party (it has {have})")
            chosen.append(m)
        members = chosen
    for m in members:
        if any(c.name.lower() == m.pc.name.lower() for c in call.enc.combatants):
            raise CommandError(f"{m.pc.name} is already in this fight")
    for m in members:
        pc = evolve(m.pc, id=unique_id(call.enc, m.pc.name), joined=fingerprint(m))
        call.enc = call.enc.joined(pc)
        call.log(f"{pc.name} joins from the party")
        if pc.init and not call.rules.info.side_initiative:  # as add rolls its init=
            value = call.initiative(pc.init, f"{pc.name} initiative", PCS, pc.name)
            call.enc = call.rules.turns.initiative_set(
                call.enc.update(pc.id, initiative=value), pc.id
            )
    return call.enc


def _members(entries: Any, system: str) -> list[Member]:
    """The recorded entries back into members (read again: a recorded step is data)."""
    if not isinstance(entries, list) or not all(isinstance(e, dict) for e in entries):
        raise CampaignError("the recorded party is not a list of PCs")
    out = []
    for data in entries:
        try:
            sheet = decode(rules_for(system).sheet_type, data.get("sheet", {}), where="sheet")
        except DecodeError as err:
            raise CampaignError(f"a recorded PC of the party: {err}") from None
        name = str(data.get("name", ""))
        fields = {}
        for key in kept_fields():
            if key != "name" and key in data:
                value, why = _field(key, data[key])
                if why is not None:
                    raise CampaignError(f"a recorded PC of the party: {key} {why}")
                fields[key] = value
        pc = Combatant(id=unique_id(Encounter("", system), name), name=name, side=PCS)
        out.append(Member(system, evolve(pc, **fields, sheet=sheet)))
    return out


def named(members: list[Member], ref: str) -> Member | None:
    """A PC by its name, its id or the start of either or of its name's words (as a
    combatant is named); ``None`` if none has it."""
    system = members[0].system
    roster = Encounter("", system, combatants=tuple(m.pc for m in members), handles=0)
    try:
        found = resolve(roster, ref, lambda enc: list(enc.combatants))
    except CommandError:
        return None
    return next(m for m in members if m.pc.id == found.id)
