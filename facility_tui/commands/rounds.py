"""The round state machine (C1): setup → round N, turn k → ended.

::

    SETUP --start--> ACTIVE(round 1, turn 0) --next--> ... --next at last turn--> ACTIVE(round+1, 0)
                           |  prev moves the marker back; undo reverses anything       |
                           +---------------------------- end --------------------------> ENDED
    ENDED --resume--> ACTIVE (or SETUP if it never started)

The order of a round is fixed when the round starts and never changes inside it (A3). The rule
system is told when each turn and round starts and ends, which is where timed effects tick (C2).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from attrs import frozen

from facility_tui.commands.dice import Dice
from facility_tui.model.encounter import Encounter, Kind, LogEntry, Phase, evolve

if TYPE_CHECKING:
    from facility_tui.systems import RuleSystem


# (a member read from its enum class costs a call in Python 3.11: ``model.encounter``)
_ACTIVE = Phase.ACTIVE


def _announce(enc: Encounter, rules: RuleSystem) -> Encounter:
    slot = enc.current
    if slot is None or not enc.keeps_log:
        return enc
    return enc.logged(f"Round {enc.round}: {rules.turns.slot_name(enc, slot)}'s turn", Kind.TURN)


def begin_round(enc: Encounter, dice: Dice, rules: RuleSystem, skipped: int = 0) -> Encounter:
    """Start the next round: fix its order, then start its first turn."""
    enc = evolve(enc, phase=_ACTIVE, round=enc.round + 1, turn=0)
    enc = rules.turns.round_order(enc, dice)
    enc = rules.turns.round_started(enc, dice)
    return start_turn(enc, dice, rules, skipped)


def start_turn(enc: Encounter, dice: Dice, rules: RuleSystem, skipped: int = 0) -> Encounter:
    """Start the current slot's turn; a turn that cannot be played passes on by itself, until a
    whole round's worth have passed (then the marker stays, so the GM sees no one can act);
    unless the encounter passes its turns itself (``Encounter.passes_turns``: a forecast's)."""
    enc = _announce(enc, rules)
    slot = enc.current
    if slot is None:
        return enc
    return _passes_on(rules.turns.turn_started(enc, slot, dice), slot, dice, rules, skipped)


def _passes_on(enc: Encounter, slot: str, dice: Dice, rules: RuleSystem, skipped: int) -> Encounter:
    """``slot``'s turn, just started: passed on by itself when it cannot be played (see
    ``start_turn``)."""
    if not enc.passes_turns or enc.current != slot or rules.turns.can_act(enc, slot):
        return enc
    if skipped >= len(enc.order):
        return enc  # (no one can act: the marker stays)
    if enc.keeps_log:
        why = rules.turns.idle_reason(enc, slot)
        said = f"{rules.turns.slot_name(enc, slot)}{PASSES}" + (f" ({why})" if why else "")
        enc = enc.logged(said, Kind.TURN)  # (one line, as saves written before had it)
    return next_turn(enc, dice, rules, skipped + 1)


def next_turn(enc: Encounter, dice: Dice, rules: RuleSystem, skipped: int = 0) -> Encounter:
    slot = enc.current
    if slot is not None and not enc.keeps_log and enc.turn + 1 < len(enc.order):
        # (no line to say between them: the turn's end and the next one's start at once)
        passed = rules.turns.turn_passed_on(enc, slot, dice)
        if passed is not None:
            return _passes_on(passed, passed.order[passed.turn], dice, rules, skipped)
    if slot is not None:
        enc = rules.turns.turn_ended(enc, slot, dice)
    if enc.turn + 1 < len(enc.order):
        return start_turn(evolve(enc, turn=enc.turn + 1), dice, rules, skipped)
    enc = rules.turns.round_ended(enc, dice)
    return begin_round(enc, dice, rules, skipped)


def prev_turn(enc: Encounter, rules: RuleSystem) -> Encounter:
    """Move the turn marker back one slot. Effects are not reversed: that is what undo is for."""
    if enc.turn > 0:
        enc = evolve(enc, turn=enc.turn - 1)
    elif enc.round > 1:
        enc = evolve(enc, round=enc.round - 1, turn=max(len(enc.order) - 1, 0))
    else:
        return enc
    slot = enc.current
    name = rules.turns.slot_name(enc, slot) if slot else "?"
    return enc.logged(f"Turn marker moved back to round {enc.round}, {name}", Kind.OVERRIDE)


PASSES = ": turn passes"  # the log's line for a turn that passes by itself: NAME: turn passes


def passed(events: Iterable[LogEntry]) -> list[str]:
    """Whose turns passed by themselves in ``events`` (a ``next``'s log lines), in order, each
    with why: ``Boarder 1 (dying)``."""
    out = []
    for e in events:
        if e.kind is Kind.TURN and PASSES in e.text:
            name, _, why = e.text.rpartition(PASSES)
            out.append(name + why)
    return out


@frozen
class Ahead:
    """What ``next`` will do, as far as the fight now tells: the turns that will pass by
    themselves (their owners cannot act), then whose turn starts; ``slot`` None: the round ends
    first (the next round's order is settled when it starts, A3)."""

    passes: tuple[str, ...]
    slot: str | None


_ahead: tuple[Encounter | None, Ahead] = (None, Ahead((), None))


def ahead(enc: Encounter, rules: RuleSystem) -> Ahead | None:
    """What ``next`` will do from ``enc`` (``None``: no turn is being played). The status line,
    the list's next mark and ``next``'s preview say this one answer."""
    global _ahead
    if enc.phase is not Phase.ACTIVE or enc.current is None:
        return None
    asked, found = _ahead
    if asked is not enc:  # (asked several times for each state: the model is immutable)
        passes: list[str] = []
        slot = None
        for later in enc.order[enc.turn + 1 :]:
            if rules.turns.can_act(enc, later):
                slot = later
                break
            passes.append(later)
        found = Ahead(tuple(passes), slot)
        _ahead = (enc, found)
    return found


def ahead_text(enc: Encounter, rules: RuleSystem, room: int = 0) -> str:
    """``Rook``, ``Rook (Pirate 1, Pirate 2 pass first)``, ``round 3 (Pirate 1 passes first)``;
    within ``room`` cells (0: any), the passes counted (``Rook (2 pass first)``)."""
    found = ahead(enc, rules)
    if found is None:
        return ""
    who = f"round {enc.round + 1}" if found.slot is None else rules.turns.slot_name(enc, found.slot)
    n = len(found.passes)
    if not n:
        return who
    verb = "pass" if n > 1 else "passes"
    named = f"{who} ({', '.join(rules.turns.slot_name(enc, s) for s in found.passes)} {verb} first)"
    return named if not room or len(named) <= room else f"{who} ({n} {verb} first)"
