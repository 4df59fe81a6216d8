"""2297 rules (A1–A11): per-combatant turns in initiative order, bands, injuries, fatigue.

The ``RuleSystem`` that ties 2297's parts: its info and demo, the sheet from ``add``'s options
(A1), ``set`` (C4), the rolls its rules add to the common commands, and the parts the core talks
to: ``turns`` (A2, A3, C2), ``choices`` (A4, A7), ``view`` (the list, the panes, the players'
words), ``tactics`` (the forecast's play), ``carry`` (the party, templates), ``validation`` (a
save edited by hand).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from facility_tui.commands.grammar import CommandError
from facility_tui.model.encounter import Encounter
from facility_tui.systems.base import RuleSystem
from facility_tui.systems.r2297.carry import Carry2297
from facility_tui.systems.r2297.choices import Choices2297
from facility_tui.systems.r2297.commands import corrections
from facility_tui.systems.r2297.commands.helpers import catalog
from facility_tui.systems.r2297.demo import DEMO_2297
from facility_tui.systems.r2297.engine import parse_awareness
from facility_tui.systems.r2297.info import INFO
from facility_tui.systems.r2297.rules import parse_armor
from facility_tui.systems.r2297.sheet import LEAST, Sheet2297
from facility_tui.systems.r2297.tactics import Tactics2297
from facility_tui.systems.r2297.turns import Turns2297
from facility_tui.systems.r2297.validation import Validation2297
from facility_tui.systems.r2297.view import View2297
from facility_tui.systems.r2297.weapons import parse_weapons

if TYPE_CHECKING:
    from facility_tui.commands.spec import Call

# The rolls of a round's start and of a turn's start (``turns``), as the common commands make them
_ROUND = (
    "at a new round: initiative Xd6+AG+CU of each combatant not rolled yet (list order)",
    "Edge boost 2d6 of each who spent Edge",
    "tie roll-off 1d10 of each combatant still tied (again while tied)",
)
_TURN = (
    "at the start of a turn: bleeding 1d6 of a Critical injury",
    "death countdown 1d6+1 if the bleeding brings damage to twice Health",
)


class Rules2297(RuleSystem):
    """2297: its parts, tied."""

    info = INFO
    demo = DEMO_2297
    sheet_type = Sheet2297
    own_dice_option = ("add",)  # A1: add NAME dice=2 is the initiative dice count
    common_rolls = {
        "add": ("faces= for init=DICE (each combatant in turn)",),
        "start": (*_ROUND, *_TURN, "the same for each turn that passes by itself"),
        "next": (*_TURN, "the same for each turn that passes by itself", *_ROUND),
        "remove": ("when the removed combatant was acting: as next",),
        "set": (
            "set WHO injury LEVEL: what inflicting the level rolls (as hit), unless effects=no",
        ),
    }

    turns_type = Turns2297
    choices_type = Choices2297
    view_type = View2297
    tactics_type = Tactics2297
    carry_type = Carry2297
    validation_type = Validation2297

    def new_sheet(self, call: Call) -> Any:
        """A1: ``add NAME ag= cu= hlt= sta= edge= dice= armor= weapon= aware= skill= dodge=
        parry=``; ``add Thug`` alone gives Health 20, Stamina 20, 1d6 initiative, no armor."""

        def num(key: str, default: int) -> int:
            return call.int_option(key, key, default, minimum=LEAST[key])

        lookup = catalog(call)  # weapons and armor by name too
        armor = parse_armor(
            call.option("armor", "") or "", lookup
        )  # (a RuleError is a CommandError)
        weapons = parse_weapons(call.option("weapon", "") or "", lookup)
        dice = num("dice", 1)
        if dice > 20:
            raise CommandError("dice: at most 20 initiative dice")
        return Sheet2297(
            ag=num("ag", 0),
            cu=num("cu", 0),
            hlt=num("hlt", 20),
            sta=num("sta", 20),
            edge=num("edge", 0),
            dice=dice,
            skill=num("skill", 0),
            dodge=num("dodge", 0),
            parry=num("parry", 0),
            armor=armor,
            weapons=weapons,
            awareness=parse_awareness(call.option("aware", "full") or "full"),
            rolled=call.has("init"),
        )

    def set_value(self, call: Call) -> Encounter:
        return corrections.set_value(call)
