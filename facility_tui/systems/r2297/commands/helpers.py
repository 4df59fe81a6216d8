"""What the 2297 commands share: how one is declared (``rule``), the combatant it names
(``who``), whose turn it acts on (``turn_actor``), yes/no values.
"""

from __future__ import annotations

from collections.abc import Callable

from facility_tui.call import Call, declarer
from facility_tui.grammar import CommandError
from facility_tui.model import Combatant, Encounter, Phase
from facility_tui.systems.r2297.engine import sheet_of
from facility_tui.systems.r2297.info import INFO
from facility_tui.systems.r2297.sheet import Sheet2297

Runner = Callable[[Call], Encounter]
KINDS = ("major", "move", "minor")


rule = declarer(INFO.id)  # declares a command of this system (listed under it in help)


def who(call: Call, index: int = 0) -> Combatant:
    return call.combatant(call.arg(index, "who"))


def sheet(c: Combatant) -> Sheet2297:
    return sheet_of(c)


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
        raise CommandError("no one's turn is running; press s to start combat")
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
