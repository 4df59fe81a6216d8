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

from typing import TYPE_CHECKING

from facility_tui.dice import Dice
from facility_tui.model import Encounter, Kind, Phase, evolve

if TYPE_CHECKING:
    from facility_tui.systems import RuleSystem


def _announce(enc: Encounter, rules: RuleSystem) -> Encounter:
    slot = enc.current
    if slot is None or not enc.keeps_log:
        return enc
    return enc.logged(f"Round {enc.round}: {rules.slot_name(enc, slot)}'s turn", Kind.TURN)


def begin_round(enc: Encounter, dice: Dice, rules: RuleSystem, skipped: int = 0) -> Encounter:
    """Start the next round: fix its order, then start its first turn."""
    enc = evolve(enc, phase=Phase.ACTIVE, round=enc.round + 1, turn=0)
    enc = rules.round_order(enc, dice)
    enc = rules.round_started(enc, dice)
    return start_turn(enc, dice, rules, skipped)


def start_turn(enc: Encounter, dice: Dice, rules: RuleSystem, skipped: int = 0) -> Encounter:
    """Start the current slot's turn; a turn that cannot be played passes on by itself, until a
    whole round's worth have passed (then the marker stays, so the GM sees no one can act);
    unless the encounter passes its turns itself (``Encounter.passes_turns``: a forecast's)."""
    enc = _announce(enc, rules)
    slot = enc.current
    if slot is None:
        return enc
    enc = rules.turn_started(enc, slot, dice)
    if (
        enc.passes_turns
        and skipped < len(enc.order)
        and enc.current == slot
        and not rules.can_act(enc, slot)
    ):
        if enc.keeps_log:
            enc = enc.logged(f"{rules.slot_name(enc, slot)} cannot act: turn passes", Kind.TURN)
        return next_turn(enc, dice, rules, skipped + 1)
    return enc


def next_turn(enc: Encounter, dice: Dice, rules: RuleSystem, skipped: int = 0) -> Encounter:
    slot = enc.current
    if slot is not None:
        enc = rules.turn_ended(enc, slot, dice)
    if enc.turn + 1 < len(enc.order):
        return start_turn(evolve(enc, turn=enc.turn + 1), dice, rules, skipped)
    enc = rules.round_ended(enc, dice)
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
    name = rules.slot_name(enc, slot) if slot else "?"
    return enc.logged(f"Turn marker moved back to round {enc.round}, {name}", Kind.OVERRIDE)
