"""What the 2297 commands share: how one is declared (``rule``), the combatant it names
(``who``), whose turn it acts on (``turn_actor``), yes/no values.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from facility_tui.campaign.catalogs import Lookup, finder
from facility_tui.commands.grammar import CommandError
from facility_tui.commands.spec import Call, declarer
from facility_tui.model.encounter import Combatant, Encounter, Phase
from facility_tui.systems.r2297 import catalogs as _kinds  # noqa: F401  (declares them)
from facility_tui.systems.r2297.choices import downgrade_choice
from facility_tui.systems.r2297.engine import Economy, economy, limit_of, sheet_of
from facility_tui.systems.r2297.info import INFO

Runner = Callable[[Call], Encounter]
KINDS = ("major", "move", "minor")


rule = declarer(INFO.id)  # declares a command of this system (listed under it in help)


def catalog(call: Call) -> Lookup:
    """The 2297 catalogs for this command: the campaign's entries (kept with the step), then
    the shipped ones."""
    return finder(call.reads, "2297")


def who(call: Call, index: int = 0, what: str = "who") -> Combatant:
    return call.combatant(call.arg(index, what))


sheet = sheet_of  # a combatant's 2297 sheet (the engine's own, not a call through another)


def yes_no(text: str, what: str) -> bool:
    t = text.strip().lower()
    if t in ("yes", "y", "true", "on", "1"):
        return True
    if t in ("no", "n", "false", "off", "0"):
        return False
    raise CommandError(f"{what}: use yes or no, got '{text}'")


def turn_actor(call: Call) -> tuple[Combatant, list[str]]:
    """The current combatant, optionally named as the first argument; the remaining words."""
    call.need_phase(Phase.ACTIVE)
    current = call.enc.current
    if current is None or not call.enc.has(current):
        raise CommandError("no one's turn is running; start combat first (start)")
    args = list(call.args)
    if args and args[0].lower() not in (*KINDS, "stop"):
        try:
            c = call.combatant(args[0])
        except CommandError:
            c = None
        if c is not None:
            if c.id != current:
                raise CommandError(
                    f"it is {call.enc.get(current).name}'s turn, not {c.name}'s: only Reactions "
                    "happen outside one's turn"
                )
            args = args[1:]
    return call.enc.get(current), args


def downgrade_for_one_action(call: Call, c: Combatant, want: str, eco: Economy) -> Economy:
    """A4 (Decision): under Serious injury's one action, the kind the band does not grant may be
    reached by the turn's one downgrade (a Slow combatant may take a Minor): done on the way."""
    s = sheet(c)
    if limit_of(call.enc, s)[0] != "one" or s.downgrade:
        return eco
    sources = {"minor": ("move", "major"), "move": ("major",)}.get(want, ())
    frm = next((k for k in sources if getattr(eco, k) > 0), None)
    if frm is None:
        return eco
    call.enc = call.enc.update_sheet(c.id, downgrade=f"{frm}>{want}")
    call.log(
        f"{c.name}: {frm.capitalize()} downgraded to {want.capitalize()} for its one action "
        "(the turn's downgrade)"
    )
    return economy(call.enc, call.enc.get(c.id))


def charge(
    call: Call,
    c: Combatant,
    kinds: tuple[str, ...],
    what: str,
    note: str = "",
    also: Mapping[str, Any] | None = None,
) -> Combatant:
    """A4: spend ``kinds`` of the acting ``c``'s actions (logged), refusing what it does not
    have; ``also``: more of its sheet's fields the action changes (an attack's ammo), set with
    the spending (one copy of the sheet)."""
    changes = spending(call, c, kinds, what, also)  # (first: a downgrade changes call.enc)
    call.enc = call.enc.update_sheet(c.id, **changes)
    spender = call.enc.get(c.id)
    if call.enc.keeps_log:  # (the line, and what is left, for the log alone)
        after = economy(call.enc, spender)
        call.log(
            f"{c.name}: {what} spent{': ' + note if note else ''} (left {after.major} Major, "
            f"{after.move} Move, {after.minor} Minor)"
        )
    return spender


def spending(
    call: Call,
    c: Combatant,
    kinds: tuple[str, ...],
    what: str,
    also: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """``charge``'s checks (a downgrade made on the way), and the changes to ``c``'s sheet
    that spend ``kinds``, not yet made: an attack in a play makes them in its own ``Ctx``."""
    eco = economy(call.enc, c)
    if len(kinds) == 1 and eco.cap > 0 and getattr(eco, kinds[0]) < 1:
        eco = downgrade_for_one_action(call, c, kinds[0], eco)
    if eco.cap == 0:
        reason = eco.limit or "no actions left"
        if eco.limit and sheet(c).spent_major + sheet(c).spent_move + sheet(c).spent_minor:
            reason = f"its one action is spent ({eco.limit})"
        raise CommandError(f"{c.name} cannot take a {what}: {reason}")
    if eco.cap > 0 and len(kinds) > eco.cap:
        raise CommandError(f"{c.name} cannot take a {what}: one action in all ({eco.limit})")
    for k in KINDS:
        need = kinds.count(k)
        have = getattr(eco, k)
        if need > have:
            why = f" ({eco.limit})" if eco.limit else ""
            down = downgrade_choice(call.enc, k) if len(kinds) == 1 else None
            hint = f"; a downgrade gives one: {down.default.line}" if down else ""
            raise CommandError(
                f"{c.name} has no {k.capitalize()} action left this turn "
                f"({eco.major} Major, {eco.move} Move, {eco.minor} Minor left){why}{hint}"
            )
    s = sheet(c)
    return {
        "spent_major": s.spent_major + kinds.count("major"),
        "spent_move": s.spent_move + kinds.count("move"),
        "spent_minor": s.spent_minor + kinds.count("minor"),
        "acted_round": call.enc.round,
        **(also or {}),
    }
