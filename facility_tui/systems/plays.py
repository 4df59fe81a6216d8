"""How a combatant is played in a forecast (``forecast.engine``): the rule system's default
play of a turn, changed per combatant by a small set of words the GM gives.

- ``focus``: attack the most hurt standing enemy (the likeliest to fall next);
- ``spread``: attack the least hurt standing enemy;
- ``hold``: take no action (it still takes its turns, so bleeding and countdowns tick);
- ``flee at LEVEL``: leave the fight once hurt that badly (a level of the rule system: 2297's
  ``moderate``, ``serious``, ``critical``...; Facility's ``impaired``, ``incapacitated``, or a
  number of Impaired stats) — it counts as out, neither down nor dead;
- ``harm N HAZARD`` (Facility): the harm it deals (``harm 2 anomalies``, ``harm 1d4 trauma``),
  for an enemy whose sheet names no weapon.

Without a word, a combatant attacks a standing enemy picked at random (the play's own random
generator, seeded from the forecast's seed: the encounter's dice are the rules' alone).
Words combine with a comma: ``focus, flee at serious``.
"""

from __future__ import annotations

import random
import re

from attrs import field, frozen

TARGETS = ("random", "focus", "spread")
PLAY_WORDS = "focus, spread, hold, flee at LEVEL, harm N HAZARD"


class PlayError(ValueError):
    """A play the forecast cannot read; the message is one line, fit for the GM."""


@frozen
class Play:
    target: str = "random"  # TARGETS
    hold: bool = False
    flee: str = ""  # the level at which it leaves the fight, as typed; "" never
    harm: str = ""  # Facility: the harm it deals, "N HAZARD" as typed; "" its weapon's

    @property
    def flee_level(self) -> str:
        """The level of ``flee`` as the rules name it (lower case: typed as the GM likes)."""
        return self.flee.lower()

    def text(self) -> str:
        words = ["hold"] if self.hold else [] if self.target == "random" else [self.target]
        if self.flee:
            words.append(f"flee at {self.flee}")
        if self.harm:
            words.append(f"harm {self.harm}")
        return ", ".join(words) or "default"


DEFAULT_PLAY = Play()
_FLEE = re.compile(r"^flee\s+(?:at\s+)?(.+)$", re.IGNORECASE)
_HARM = re.compile(r"^harm\s+(\S+)\s+(\S+)$", re.IGNORECASE)


def parse_play(text: str) -> Play:
    """``focus``, ``spread``, ``hold``, ``flee at serious``, or several joined by commas, in
    any case; what the words name is kept as typed (a refusal quotes it so)."""
    target, hold, flee, harm = "random", False, "", ""
    words = [w.strip() for w in text.split(",") if w.strip()]
    if not words:
        raise PlayError(f"a play needs a word: {PLAY_WORDS}")
    for word in words:
        key = word.lower()
        if key in ("focus", "spread", "random"):
            target = key
        elif key == "hold":
            hold = True
        elif m := _FLEE.match(word):
            flee = " ".join(m.group(1).split())
        elif m := _HARM.match(word):
            harm = f"{m.group(1)} {m.group(2)}"
        else:
            raise PlayError(f"unknown play '{word}': use {PLAY_WORDS}")
    return Play(target, hold, flee, harm)


@frozen
class TurnPlay:
    """What a rule system's tactic knows while it plays one turn: each combatant's play (by
    id), the lines run this turn and those refused (offered again, a refused line ends the
    turn), and the play's random generator."""

    plays: dict[str, Play]
    rng: random.Random
    tried: set[str] = field(factory=set)
    refused: set[str] = field(factory=set)

    def of(self, cid: str) -> Play:
        return self.plays.get(cid, DEFAULT_PLAY)

    def pick(self, cid: str, targets: list[tuple[str, int]]) -> str | None:
        """The target of ``cid`` among ``(id, hurt)`` pairs in list order, as its play says."""
        if not targets:
            return None
        play = self.of(cid)
        if play.target == "focus":
            return max(targets, key=lambda t: t[1])[0]
        if play.target == "spread":
            return min(targets, key=lambda t: t[1])[0]
        return targets[self.rng.randrange(len(targets))][0]
