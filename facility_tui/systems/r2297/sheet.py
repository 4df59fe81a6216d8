"""2297 data: the per-combatant sheet (A1) and its timed effects (C2), as frozen attrs values.

Only TOML-friendly field types (str, int, bool, StrEnum, nested frozen attrs, tuples), each with a
default, so the codec can save and load them. Sentinels (0, "", -1) stand in for "none".
"""

from __future__ import annotations

import enum

from attrs import field, frozen

from facility_tui.systems.r2297.rules import LEVELS, NO_INJURY, Armor, DamageType, Level


class Awareness(enum.StrEnum):
    """A2: set before round 1."""

    FULL = "full"
    PARTIAL = "partial"
    UNAWARE = "unaware"


class EKind(enum.StrEnum):
    INIT = "init"  # initiative reduction by ``amount`` (A7)
    ZERO = "zero"  # initiative 0, cannot rise (A7 Critical)
    DISADV = "disadvantage"  # Disadvantage on actions (A7)
    BLEED = "bleed"  # damage at the start of each turn (A7, C2)
    DEATH = "death"  # dies when the countdown reaches 0 (A7, A8, C2)
    COND = "condition"  # a condition named by ``label`` (A11)


# The kinds under plain names, for the engine's hot loops: in Python 3.11 a member read from its
# enum class goes through ``EnumType.__getattr__``'s slot, a call each time, and a forecast play
# read thousands of enum members (docs/benchmarks.md, 'The forecast's plays and workers').
INIT, ZERO, DISADV, BLEED, DEATH, COND = (
    EKind.INIT,
    EKind.ZERO,
    EKind.DISADV,
    EKind.BLEED,
    EKind.DEATH,
    EKind.COND,
)


@frozen
class Effect:
    """A timed effect (C2, C6).

    ``first``/``last`` are turn numbers of the affected combatant (its ``turns`` counter): it
    applies from the start of turn ``first`` (0: from now) and expires at the end of turn ``last``
    (0: no turn limit). ``rounds`` counts down at the end of each of its turns and expires at 0 (0:
    not counted); for BLEED it is the ticks left (0: until stabilized), for DEATH the countdown.
    ``combat``: until the end of combat; ``medical``: until medical care (first aid).
    ``by``: lasts until that combatant's next turn starts (Pinned, A11).
    ``counts_from``: ``rounds`` counts down only from the end of this turn on (C6: an "N rounds"
    effect that lands during the combatant's own turn first counts down at the end of its
    following turn; 0: from the end of the current or next turn, whichever comes first).
    """

    kind: EKind = EKind.COND
    label: str = ""
    amount: int = 0
    dice: str = ""
    first: int = 0
    last: int = 0
    rounds: int = 0
    source: int = 0  # injury id (0: none)
    combat: bool = False
    medical: bool = False
    by: str = ""
    until_round: int = 0  # Surprised: ends at the start of its first turn in this round (A2)
    counts_from: int = 0


@frozen
class Injury:
    """One injury (A7). ``level`` is its current level (after Edge, A7, and first aid, A10)."""

    id: int = 0
    level: Level = Level.LIGHT
    inflicted: Level = Level.LIGHT
    round: int = 0
    damage: int = 0
    fatigue: int = 0  # fatigue its infliction added (given back if Edge lowers it)
    soaked: bool = False  # Edge spent on it (A7)
    aided: bool = False  # first aid succeeded on it (A10)
    manual: bool = False  # set by the GM (C4)
    # A7: Edge is offered for it (when it happens), until spent or declined, or its turn ends
    offered: bool = field(default=False, metadata={"omit_default": True})


@frozen
class Weapon:
    """A1/A5: a weapon's damage dice, fire modes and ammo."""

    name: str = "Weapon"
    damage: str = "1d6"
    modes: tuple[str, ...] = ("SS",)
    ammo: int = 0
    capacity: int = 0  # 0: no ammo tracked (melee)
    kind: DamageType = DamageType.PHYSICAL


@frozen
class Patch:
    """A9 (Decision): one stim patch's pending Grit check, at its own time with its own R.

    TN 20 + R, +5 for each other patch applied while it was pending (``others``)."""

    id: int = 0
    rating: int = 0
    due_round: int = 0
    fatigue: str = "2d6"  # the fatigue of a failed check: 2d6 + 2R
    others: int = 0

    @property
    def tn(self) -> int:
        return 20 + self.rating + 5 * self.others


@frozen
class Stims:
    """Legacy (saves before issue 13): the patches of one window owing one Grit check together.
    Read as one pending ``Patch`` (id 0) by ``patches_of``; new patches go to ``patches``."""

    count: int = 0
    rating: int = 0  # highest rating used
    fatigue: str = ""  # the dice of a failed check, added together per patch: "2d6+4+2d6+6"
    due_round: int = 0


# The least value ``add`` and ``set`` take for each number of the sheet ``set`` changes (None:
# any, down to -MAX_VALUE); a save edited by hand is held to the same (``checks``).
LEAST: dict[str, int | None] = {
    "ag": None,
    "cu": None,
    "hlt": 1,
    "sta": 1,
    "edge": 0,
    "dice": 1,
    "skill": None,
    "dodge": 0,
    "parry": 0,
    "damage": 0,
    "stun": 0,
    "fatigue": 0,
    "tiebreak": 0,
}


@frozen
class Sheet2297:
    # A1
    ag: int = 0
    cu: int = 0
    hlt: int = 20
    sta: int = 20
    edge: int = 0
    dice: int = 1
    skill: int = 0
    dodge: int = 0
    parry: int = 0
    armor: tuple[Armor, ...] = ()
    weapons: tuple[Weapon, ...] = ()
    awareness: Awareness = Awareness.FULL
    # A3
    rolled: bool = False  # base initiative rolled or set
    tiebreak: int = 0  # kept d10 roll-off
    boost: int = 0
    boost_round: int = 0
    boost_pending: bool = False
    refocus: int = -1  # the new score from the next round (-1: none)
    # A6–A8
    damage: int = 0  # physical + energy
    stun: int = 0
    fatigue: int = 0
    injuries: tuple[Injury, ...] = ()
    effects: tuple[Effect, ...] = ()
    next_id: int = 1
    dead: bool = False
    # A4 (per turn; ``turns`` counts turns started, C6)
    turns: int = 0
    turn_init: int = 0
    spent_major: int = 0
    spent_move: int = 0
    spent_minor: int = 0
    extra_major: int = 0
    extra_move: int = 0
    extra_minor: int = 0
    downgrade: str = ""
    reaction_used: bool = False
    fatigued_loses: str = "move"
    ext_name: str = ""
    ext_step: int = 0
    ext_total: int = 0
    ext_turn: int = 0  # the turn it last advanced
    idle_turns: int = 0  # A9: full rounds without an action while Exhausted, toward the next −1
    # A9
    short_rests: int = 0
    long_rests: int = 0
    stims: Stims = Stims()  # legacy, see ``Stims``
    patches: tuple[Patch, ...] = ()  # pending Grit checks, one per stim patch
    next_patch: int = 1
    acted_round: int = 0  # A9: the last round it took an action (a Reaction counts)
    exhausted_round: int = 0  # A9: the round it last became Exhausted
    recover_due: int = 0  # A9: fatigue −1s offered for the GM to confirm (recover WHO)

    @property
    def total(self) -> int:
        """A8: physical + energy + stun."""
        return self.damage + self.stun

    @property
    def level(self) -> Level:
        """A7: the worst current injury."""
        injuries = self.injuries
        if not injuries:  # (most sheets, asked each time an action is counted)
            return NO_INJURY
        if len(injuries) == 1:  # (the worst of one: no ranks compared)
            return injuries[0].level
        # (the ranks as places in ``LEVELS``, in a loop: a generator, a key and a ``rank``
        # property called for each injury, each time an economy is worked out)
        top = 0
        for i in injuries:
            rank = LEVELS.index(i.level)
            if rank > top:
                top = rank
        return LEVELS[top]

    def conditions(self) -> list[str]:
        return [e.label for e in self.effects if e.kind is EKind.COND]

    def has(self, condition: str) -> bool:
        if not self.effects:  # (most sheets, asked each time an action is counted)
            return False
        condition = condition.lower()
        for e in self.effects:  # noqa: SIM110 - (a loop, not any(): no generator each time)
            if e.kind is COND and e.label.lower() == condition:
                return True
        return False

    @property
    def pending_patches(self) -> tuple[Patch, ...]:
        """A9: every pending Grit check, a legacy window (``stims``) as patch 0."""
        st = self.stims
        if not st.count:
            return self.patches
        legacy = Patch(0, st.rating, st.due_round, st.fatigue, st.count - 1)
        return (legacy, *self.patches)
