"""The roster's own changes: ``party list``, ``add``, ``return``, ``rest``, ``heal``, ``undo``
and ``redo``, which write ``party.toml`` rather than the fight (``party join``, which changes
the fight, is a command of the encounter: ``facility_tui.campaign.party``).

Each change writes ``party.toml`` atomically and keeps the version it replaced in
``.party.d/`` beside it, so ``party undo`` gives it back (and ``party redo`` the change again):
the roster has its own history, as a save has, and a hand edit undone is kept for redo, never
lost. A folder that cannot be written refuses the change in one line and changes nothing.

Resting and healing between fights run the rules' own commands (2297 ``rest``, ``aid``,
``heal``...; Facility ``shift``, ``break``, ``tend``...) on the party's PCs in a fight of their
own that is never saved; what they leave of each PC's lasting state goes back to the roster.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Sequence
from pathlib import Path

from attrs import frozen

from facility_tui.campaign.folder import Campaign, CampaignError
from facility_tui.campaign.party import (
    Change,
    Member,
    between,
    changes,
    chosen,
    find,
    lasting,
    load,
    member_data,
    moved_on_line,
    parse_party,
    read_text,
)
from facility_tui.commands.dispatch import find_spec, listed
from facility_tui.commands.grammar import CommandError
from facility_tui.commands.spec import Call, resolve
from facility_tui.model.encounter import PCS, Encounter
from facility_tui.model.text import counted
from facility_tui.store.atomic import write_atomic, write_error
from facility_tui.store.format import table_lines
from facility_tui.systems import rules_for

HISTORY = ".party.d"  # the versions party.toml had, beside it
KEEP = 100  # versions kept for undo
HEADER = (
    "# The party: the PCs carried from fight to fight, one [[pc]] table each (facility-tui).\n"
    "# Edit freely: a PC's sheet holds what differs from a fresh one, as a save's combatants.\n"
)


# -- writing, with a history ----------------------------------------------------------------


def render(members: Sequence[Member]) -> str:
    """``party.toml``'s text: the header, then a ``[[pc]]`` table per PC in the roster's order
    (a hand edit's comments and layout go; the version before is kept for ``party undo``)."""
    out = [HEADER]
    for m in members:
        out.append("\n".join(["", *table_lines("[[pc]]", "pc", member_data(m)), ""]))
    return "".join(out)


def _history(campaign: Campaign) -> Path:
    return campaign.folder / HISTORY


def _kept(folder: Path, kind: str) -> list[Path]:
    """The kept versions of one kind (``undo``, ``redo``), the oldest first."""
    if not folder.is_dir():
        return []
    found = [p for p in folder.glob(f"{kind}-*.toml") if p.stem.split("-")[-1].isdigit()]
    return sorted(found, key=lambda p: int(p.stem.split("-")[-1]))


def _keep(folder: Path, kind: str, text: str, what: str) -> Path:
    kept = _kept(folder, kind)
    n = int(kept[-1].stem.split("-")[-1]) + 1 if kept else 1
    path = folder / f"{kind}-{n:04d}.toml"
    write_atomic(path, f"#~ {what}\n{text}")
    return path


def _unkeep(path: Path) -> tuple[str, str]:
    """A kept version's text and what replaced it."""
    raw = path.read_text(encoding="utf-8")
    first, _, text = raw.partition("\n")
    return text, first.removeprefix("#~ ")


def _write_error(campaign: Campaign, err: OSError) -> CommandError:
    return CommandError(write_error(campaign.party, err, "the party was not changed"))


def write(campaign: Campaign, text: str, what: str) -> None:
    """Write the roster, keeping the version it replaces for ``party undo``; a new change
    drops what undo took back."""
    before = read_text(campaign)
    folder = _history(campaign)
    try:
        folder.mkdir(exist_ok=True)
        _keep(folder, "undo", before, what)
        write_atomic(campaign.party, text)
    except OSError as err:
        raise _write_error(campaign, err) from None
    for old in _kept(folder, "redo"):
        with contextlib.suppress(OSError):
            old.unlink()
    for old in _kept(folder, "undo")[:-KEEP]:
        with contextlib.suppress(OSError):
            old.unlink()


def _step(campaign: Campaign, back: bool) -> str:
    """``party undo`` (``back``) or ``party redo``: the kept version in place of the roster,
    the roster kept for the other way."""
    folder = _history(campaign)
    kept = _kept(folder, "undo" if back else "redo")
    if not kept:
        raise CommandError(f"nothing to {'undo' if back else 'redo'} in the party")
    path = kept[-1]
    text, what = _unkeep(path)
    now = read_text(campaign)
    try:
        _keep(folder, "redo" if back else "undo", now, what)
        if text:
            write_atomic(campaign.party, text)
        else:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(campaign.party)
        path.unlink()
    except OSError as err:
        raise _write_error(campaign, err) from None
    return f"Party: {'undid' if back else 'redid'} {what}"


# -- what a fight hands back ----------------------------------------------------------------


def returns(campaign: Campaign, enc: Encounter) -> list[Change]:
    """What handing the fight's PCs back would change, PC by PC (``roster.changes``)."""
    return changes(load(campaign), enc)


def _replaced(members: list[Member], new: Member) -> list[Member]:
    return [new if (m.system, m.pc.name) == (new.system, new.pc.name) else m for m in members]


# -- running a roster line ------------------------------------------------------------------


def run(call: Call) -> Encounter:
    """Run a ``party`` line that lists or changes the roster (``party.on_roster``), beside the
    open fight ``call.enc`` (whose PCs ``add`` and ``return`` take, whose rule system ``rest``
    and ``heal`` use): what it did is logged, for its message; the fight itself is not
    changed. ``CommandError`` on bad input or a roster that cannot be read or written; then
    nothing changed."""
    campaign = call.reads.campaign
    if campaign is None:
        raise CommandError("there is no campaign folder for a party")
    enc = call.enc
    typed = call.args[0] if call.args else "list"
    sub = typed.lower()
    args = list(call.args[1:])
    options = call.own_options()
    try:
        if sub == "undo" or sub == "redo":
            _no_more(typed, args, options)
            message = _step(campaign, sub == "undo")
        else:
            members = load(campaign)
            if sub == "list":
                _no_more(typed, args, options)
                message = _listing(members)
            elif sub == "add":
                message = _add(campaign, members, enc, args, options)
            elif sub == "return":
                message = _return(campaign, members, enc, args, options)
            else:
                message = _downtime(campaign, members, enc, sub, args, options, call.reads.seed)
    except CampaignError as err:
        raise CommandError(str(err)) from None
    call.log(message)
    return call.enc


def _no_more(sub: str, args: list[str], options: dict[str, str]) -> None:
    if args or options:
        extra = " ".join([*args, *(f"{k}={v}" for k, v in options.items())])
        raise CommandError(f"unexpected '{extra}' after 'party {sub}'")


def _listing(members: list[Member]) -> str:
    if not members:
        return "The party is empty: party add WHO takes a PC of this fight, or edit party.toml"
    parts = []
    for m in members:
        rules = rules_for(m.system)
        enc = Encounter("", m.system, state=rules.new_state(), combatants=(m.pc,))
        parts.append(f"{m.pc.name} ({m.system}, {rules.view.state_word(enc, m.pc)})")
    return f"Party: {'; '.join(parts)}"


def _add(
    campaign: Campaign,
    members: list[Member],
    enc: Encounter,
    args: list[str],
    options: dict[str, str],
) -> str:
    if not args or options:
        raise CommandError("usage: party add WHO (a PC of this fight)")
    c = resolve(enc, " ".join(args), listed)
    if c.side != PCS:
        raise CommandError(f"{c.name} is not on the PC side: side {c.id} pc, then party add")
    if find(members, enc.system, c.name) is not None:
        raise CommandError(
            f"{c.name} is already in the party: party return hands its state back after a fight"
        )
    new = Member(enc.system, lasting(enc.system, c))
    write(campaign, render([*members, new]), f"party add {c.name}")
    return f"{c.name} joins the party ({enc.system}); party undo takes it back"


def _return(
    campaign: Campaign,
    members: list[Member],
    enc: Encounter,
    args: list[str],
    options: dict[str, str],
) -> str:
    skipped = [n for n in options.pop("skip", "").split(",") if n.strip()]
    if options:
        raise CommandError(f"'party return' does not take {', '.join(options)}=")
    found, force = chosen(members, enc, args, skipped)
    if not found:
        return "Party: nothing to hand back"
    stale = moved_on_line(found, force)
    if stale is not None and not force:  # (it would roll the roster back: asked, never unasked)
        raise CommandError(stale)
    for ch in found:
        members = _replaced(members, ch.member)
    names = ", ".join(ch.name for ch in found)
    write(campaign, render(members), f"party return ({names})")
    lines = [f"{ch.name}: {'; '.join(ch.lines)}" for ch in found]
    handed = f"Party: {counted(len(found), 'PC')} handed back (party undo takes it back)"
    return f"{handed} — " + " | ".join(lines)


def _downtime(
    campaign: Campaign,
    members: list[Member],
    enc: Encounter,
    sub: str,
    args: list[str],
    options: dict[str, str],
    seed: int | None,
) -> str:
    """``party rest [NAMES]`` or ``party heal LINE``: the rules' own command on the party's PCs
    of the open fight's rule system (``system=`` another), in a fight of their own."""
    have = {m.system for m in members}
    system = options.pop("system", "").lower() or _system_for(sub, args, enc.system, have)
    if system not in have:
        raise CommandError(f"the party has no {system} PC")
    if seed is None:
        seed = int.from_bytes(os.urandom(4), "big")
    ours = [m for m in members if m.system == system]
    after, said = between(system, [m.pc for m in ours], sub, args, options, seed)
    changed = []
    for m, kept in zip(ours, after, strict=True):
        if kept.sheet != m.pc.sheet:
            members = _replaced(members, Member(system, kept))
            changed.append(m.pc.name)
    message = " · ".join(said) or "Done"
    if changed:
        write(campaign, render(members), f"party {sub} ({', '.join(changed)})")
    return f"Party: {message}"


def _system_for(sub: str, args: list[str], system: str, have: set[str]) -> str:
    """The rules a ``party heal`` line is of: the open fight's, or the other party's when the
    command is theirs alone (``party heal break anne phy`` from a 2297 fight)."""
    if sub == "rest" or not args:
        return system
    try:
        find_spec(args[0], system)
    except CommandError:
        theirs = [other for other in sorted(have - {system}) if _knows(other, args[0])]
        return theirs[0] if len(theirs) == 1 else system
    return system


def _knows(system: str, verb: str) -> bool:
    try:
        find_spec(verb, system)
    except CommandError:
        return False
    return True


def validate(text: str, file: str) -> list[str]:
    """``validate``'s lines for a party file: none, or its first mistake."""
    try:
        parse_party(text, file)
    except CampaignError as err:
        return [str(err)]
    return []


# -- all or nothing (``facility-tui apply``) -----------------------------------------------


@frozen
class Mark:
    """The roster and its history as they were, for ``rollback``."""

    text: str | None
    kept: tuple[tuple[str, str], ...]


def mark(campaign: Campaign) -> Mark:
    try:
        text: str | None = campaign.party.read_text(encoding="utf-8")
    except FileNotFoundError:
        text = None
    except (OSError, UnicodeDecodeError):
        text = None
    folder = _history(campaign)
    kept = [
        (p.name, p.read_text(encoding="utf-8"))
        for kind in ("undo", "redo")
        for p in _kept(folder, kind)
    ]
    return Mark(text, tuple(kept))


def rollback(campaign: Campaign, to: Mark) -> None:
    """Put the roster and its history back as ``to`` found them (an ``apply`` whose later
    line was refused: its roster changes go too)."""
    folder = _history(campaign)
    with contextlib.suppress(OSError):
        if to.text is None:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(campaign.party)
        elif read_text(campaign) != to.text:
            write_atomic(campaign.party, to.text)
        kept = dict(to.kept)
        for kind in ("undo", "redo"):
            for p in _kept(folder, kind):
                if p.name not in kept:
                    p.unlink()
        for name, text in kept.items():
            if not (folder / name).exists():
                write_atomic(folder / name, text)
