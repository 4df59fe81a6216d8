"""Dice: standard notation on the ``d20`` package, a seeded RNG, and recorded results (C3).

Every roll of a command goes through one ``Dice`` object. Fresh dice draw from the encounter's
seeded RNG and record what they rolled; when a command is redone or a history is rebuilt from disk,
a ``Dice`` built with those records hands them back instead of rolling again, so dice results
never change after they were shown.

``d20`` builds its grammar at import (~0.2 s), so plain ``NdM±K`` is rolled without it and d20 is
imported only for the first roll that needs more of the notation.
"""

from __future__ import annotations

import random
import re
import threading
from collections.abc import Sequence
from typing import Any

from attrs import frozen

MAX_DICE = 1000  # dice rolled by one expression
MAX_SIDES = 10_000
MAX_EXPR = 80  # characters of one expression: 2d6+3 is 5; d20's parser recurses per term
MAX_DEPTH = 4  # nested parentheses
MAX_TOTAL = 1_000_000  # what a roll may come to (products of many dice are refused)
_INT = re.compile(r"[+-]?\d+")


class DiceError(ValueError):
    """A dice expression that cannot be rolled; the message is fit for the GM."""


@frozen
class Roll:
    expr: str
    total: int
    detail: str  # the dice as rolled, e.g. "2d10 (7, 3) + 4 = 14"


class _Source(threading.local):
    """The RNG that ``d20`` draws from, set for the duration of one roll."""

    rng: random.Random | None = None

    def randrange(self, *args: int) -> int:
        if self.rng is None:  # pragma: no cover - every roll goes through Dice.roll
            raise RuntimeError("dice rolled outside Dice.roll")
        return self.rng.randrange(*args)


_source = _Source()
_roller: Any = None


def _d20() -> Any:
    global _roller
    if _roller is None:
        import d20
        import d20.expression

        # d20 draws from the module-level ``random``; point it at our seeded source instead.
        d20.expression.random = _source
        _roller = d20.Roller(d20.RollContext(max_rolls=MAX_DICE))
    return _roller


def _check_limits(expr: str) -> None:
    if len(expr) > MAX_EXPR:
        raise DiceError(f"dice expression of {len(expr)} characters: at most {MAX_EXPR}")
    depth = 0
    for ch in expr:
        depth += (ch == "(") - (ch == ")")
        if depth > MAX_DEPTH:
            raise DiceError(f"'{expr}' nests parentheses too deep: at most {MAX_DEPTH}")
    for count, sides in re.findall(r"(\d*)d(\d+)", expr):
        if count and int(count) == 0:
            raise DiceError(f"'{expr}' rolls no dice; use 1d{sides} or more")
        if count and int(count) > MAX_DICE:
            raise DiceError(f"too many dice in '{expr}': at most {MAX_DICE} at once")
        if int(sides) > MAX_SIDES:
            raise DiceError(f"dice in '{expr}' have too many sides: at most {MAX_SIDES}")
        if int(sides) == 0:
            raise DiceError(f"'{expr}' rolls a 0-sided die; use d1 or more")


_SIMPLE = re.compile(r"(\d*)d(\d+)(?:([+-])(\d+))?")


def roll_simple(expr: str, rng: random.Random) -> Roll | None:
    """``NdM`` or ``NdM±K`` without d20 (which costs 0.2 s to import): the same draws from the
    RNG and the same text as d20 gives, so either path rolls alike. None for anything else."""
    m = _SIMPLE.fullmatch(expr)
    if m is None or m.group(1) == "0":
        return None
    count, sides = int(m.group(1) or 1), int(m.group(2))
    dice = [rng.randrange(sides) + 1 for _ in range(count)]
    total = sum(dice)
    detail = f"{count}d{sides} ({', '.join(map(str, dice))})"
    if m.group(3):
        k = int(m.group(4))
        total += k if m.group(3) == "+" else -k
        detail += f" {m.group(3)} {k}"
    return Roll(expr, total, f"{detail} = {total}")


def roll_d20(expr: str, rng: random.Random) -> Roll:
    """Any notation d20 knows (keep highest/lowest, several terms...)."""
    roller = _d20()
    import d20

    _source.rng = rng
    try:
        result = roller.roll(expr, stringifier=d20.SimpleStringifier())
        total, detail = int(result.total), str(result).replace("`", "")  # (evaluated lazily)
    except d20.TooManyRolls:
        raise DiceError(f"too many dice in '{expr}': at most {MAX_DICE} at once") from None
    except Exception as err:  # d20's parser and evaluator (a division by zero, a bad term...)
        raise DiceError(f"bad dice '{expr}': try a number or dice like 2d6+1, 3d10kh2") from err
    finally:
        _source.rng = None
    if abs(total) > MAX_TOTAL:
        raise DiceError(f"'{expr}' came to {total}: more than a roll can be ({MAX_TOTAL})")
    return Roll(expr, total, detail)


def rng_for(seed: int, position: int) -> random.Random:
    """The RNG of roll number ``position`` of an encounter seeded with ``seed``."""
    return random.Random(f"{seed}:{position}")


class Dice:
    """Rolls for one command: fresh from the seeded RNG, or replayed from records."""

    def __init__(self, seed: int, position: int, replay: Sequence[Roll] = ()) -> None:
        self.seed = seed
        self.position = position
        self._replay = list(replay)
        self.rolled: list[Roll] = []

    def roll(self, expr: str) -> Roll:
        expr = expr.strip().lower().replace(" ", "")
        if not expr:
            raise DiceError("empty dice expression; type a number or dice like 2d6+1")
        if self._replay:
            recorded = self._replay.pop(0)
            if recorded.expr == expr:
                self.rolled.append(recorded)
                self.position += 1
                return recorded
            self._replay.clear()  # the history no longer lines up; roll fresh from here on
        _check_limits(expr)
        rng = rng_for(self.seed, self.position)
        roll = roll_simple(expr, rng) or roll_d20(expr, rng)
        self.rolled.append(roll)
        self.position += 1
        return roll

    def new_seed(self) -> int:
        """A seed for a new encounter, drawn (and recorded) like any roll."""
        if self._replay and self._replay[0].expr == "seed":
            recorded = self._replay.pop(0)
        else:
            self._replay.clear()
            n = rng_for(self.seed, self.position).randrange(1, 2**31)
            recorded = Roll("seed", n, str(n))
        self.rolled.append(recorded)
        self.position += 1
        return recorded.total

    def value(self, text: str) -> tuple[int, Roll | None]:
        """A typed number as is, or dice rolled: the value and the roll (None for a number)."""
        text = text.strip()
        if _INT.fullmatch(text):
            return int(text), None
        if not re.fullmatch(r"[0-9dDkhlHL+\-*/() ]+", text) or not re.search(r"\d", text):
            raise DiceError(f"expected a number or dice like 2d6+1, got '{text}'")
        roll = self.roll(text)
        return roll.total, roll

    def d(self, count: int, sides: int) -> Roll:
        return self.roll(f"{count}d{sides}")
