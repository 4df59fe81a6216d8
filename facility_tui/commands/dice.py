"""Dice: standard notation on the ``d20`` package, a seeded RNG, and recorded results (C3).

Every roll of a command goes through one ``Dice`` object. Fresh dice draw from the encounter's
seeded RNG and record what they rolled; when a command is redone or a history is rebuilt from disk,
a ``Dice`` built with those records hands them back instead of rolling again, so dice results
never change after they were shown.

Typed dice (the table's own dice): a ``Dice`` given *typed faces* (``dice=3,5,4`` on a command
line) uses them, die by die in the order the command rolls, instead of drawing; ``?`` lets the
tracker roll one die. The RNG is drawn from for every die all the same, so a typed face equal to
what the tracker would have rolled changes nothing. In *prompt mode* (the app with table dice on),
the first roll the GM is to type and has no face for raises ``NeedRoll``; the screen asks for it
and runs the same line again with the faces gathered so far.

``d20`` builds its grammar at import, a cost a launch would feel (docs/benchmarks.md, 'Start-up
and the headless commands'), so plain ``NdM±K`` is rolled without it and d20 is imported only for
the first roll that needs more of the notation.
"""

from __future__ import annotations

import random
import re
import threading
from collections.abc import Callable, Sequence
from functools import lru_cache
from typing import Any, Protocol

from attrs import field, frozen

from facility_tui.model.encounter import maker
from facility_tui.model.text import counted

MAX_DICE = 1000  # dice rolled by one expression
MAX_SIDES = 10_000
MAX_EXPR = 80  # characters of one expression: 2d6+3 is 5; d20's parser recurses per term
MAX_DEPTH = 4  # nested parentheses
MAX_TOTAL = 1_000_000  # what a roll may come to (products of many dice are refused)
MAX_FACES = 100  # faces typed on one line (dice=...)
_INT = re.compile(r"[+-]?\d+")
TYPED = " (typed)"  # the mark of a roll whose every die the GM typed, after its detail


class DiceError(ValueError):
    """A dice expression that cannot be rolled; the message is fit for the GM."""


@frozen
class Roll:
    expr: str
    total: int
    detail: str  # the dice as rolled, e.g. "2d10 (7, 3) + 4 = 14"; typed dice are marked
    # How many places of the line's dice= list this roll took (typed faces and "?"), so a replay
    # lines up with them; 0 (not saved) when the line typed no dice.
    given: int = field(default=0, metadata={"omit_default": True})


_roll = maker(Roll)  # (``Roll``, made faster: the tracker's own rolls, hundreds a play)

Face = int | None  # a typed face; None ("?"): the tracker rolls that die


def parse_faces(text: str) -> list[Face]:
    """``dice=3,5,4`` (or spaces): the faces typed, ``?`` for a die the tracker rolls."""
    words = [w for w in re.split(r"[,\s]+", text.strip()) if w]
    if not words:
        raise DiceError("dice= needs faces, e.g. dice=3,5,4 (? lets the tracker roll one die)")
    if len(words) > MAX_FACES:
        raise DiceError(f"dice= has {len(words)} faces: at most {MAX_FACES} on one line")
    faces: list[Face] = []
    for w in words:
        if w == "?":
            faces.append(None)
        elif w.isascii() and w.isdigit() and len(w) <= 5 and int(w) >= 1:
            faces.append(int(w))
        else:
            raise DiceError(
                f"dice=: '{w}' is not a die's face; type faces like 3,5,4 (? lets the tracker "
                "roll one die)"
            )
    return faces


def faces_text(faces: Sequence[Face]) -> str:
    return ",".join("?" if f is None else str(f) for f in faces)


class NeedRoll(Exception):
    # (not an error: a question for the GM)
    """Prompt mode: the command needs a roll the GM types, and the line has no face for it.

    ``index`` is where in the line's dice= list its faces go (the places before it that the line
    lacks are dice the tracker rolls: ``?``); ``sides`` the dice still to type (one entry per
    die); ``sums`` whether one number, the dice's sum, may stand for them."""

    def __init__(
        self,
        what: str,
        expr: str,
        index: int,
        sides: tuple[int, ...],
        *,
        sums: bool = False,
        who: str = "",
        more: bool = False,
    ) -> None:
        super().__init__(f"{what}: {expr}")
        self.what = what
        self.expr = expr
        self.index = index
        self.sides = sides
        self.sums = sums
        self.who = who
        self.more = more  # some dice of this roll were typed already

    @property
    def count(self) -> int:
        return len(self.sides)

    @property
    def label(self) -> str:
        """``Boarder 1 — initiative reduction, 2d6`` (what the prompt says)."""
        what = self.what or "Roll"
        if self.who and what.startswith(self.who) and what != self.who:
            what = f"{self.who} — {what[len(self.who) :].lstrip(' :')}"
        rest = f" ({self.count} more {'die' if self.count == 1 else 'dice'})" if self.more else ""
        return f"{what}, {self.expr}{rest}"

    @property
    def hint(self) -> str:
        kinds = sorted(set(self.sides))
        dice = " and ".join(f"d{k}" for k in kinds)
        if self.count == 1:
            how = f"the {dice}'s face"
        elif self.sums:
            how = f"the {self.count} dice's sum, or each face (3 5)"
        else:
            how = f"each of the {self.count} faces ({dice})"
        extra = _modifier(self.expr)
        plus = f"; the tracker adds {extra}" if extra and not self.more else ""
        return f"Type {how}{plus}. Enter alone: the tracker rolls it. Escape cancels."

    def answer(self, text: str) -> list[Face]:
        """The faces for this roll from what the GM typed: nothing (the tracker rolls), one
        number (a face, or the dice's sum where only the sum counts), or every face."""
        words = [w for w in re.split(r"[,\s]+", text.strip()) if w]
        if not words:
            return [None] * self.count
        if len(words) == 1 and words[0] != "?" and self.count > 1:
            if not self.sums:
                raise DiceError(
                    f"{self.expr}: each die counts here; type the {self.count} faces, e.g. "
                    + " ".join(str(min(k, 3)) for k in self.sides)
                )
            total = _whole(words[0])
            low, high = self.count, sum(self.sides)
            if not low <= total <= high:
                raise DiceError(f"{total} is not a sum of {self.count} dice here ({low} to {high})")
            return split_sum(total, self.sides)
        if len(words) != self.count:
            if self.count == 1:
                asked = f"one face (1 to {self.sides[0]})"
            else:
                asked = f"{self.count} faces" + (" or their sum" if self.sums else "")
            raise DiceError(f"{self.expr}: type {asked}, not {counted(len(words), 'number')}")
        faces: list[Face] = []
        for word, sides in zip(words, self.sides, strict=True):
            if word == "?":
                faces.append(None)
                continue
            face = _whole(word)
            if not 1 <= face <= sides:
                raise DiceError(f"{face} is not a face of a d{sides} (1 to {sides})")
            faces.append(face)
        return faces


def _whole(word: str) -> int:
    if not (word.isascii() and word.isdigit() and len(word) <= 6):
        raise DiceError(f"'{word}' is not a number; type the dice as numbers, e.g. 3 5")
    return int(word)


def _modifier(expr: str) -> str:
    m = _SIMPLE.fullmatch(expr)
    return f"{m.group(3)}{m.group(4)}" if m and m.group(3) else ""


def split_sum(total: int, sides: Sequence[int]) -> list[Face]:
    """Faces of ``len(sides)`` dice that add up to ``total`` (as even as the dice allow)."""
    faces = [1] * len(sides)
    left = total - len(sides)
    while left > 0:
        for i, k in enumerate(sides):
            if left and faces[i] < k:
                faces[i] += 1
                left -= 1
    return list(faces)


Take = Callable[[int, int], int]  # (sides, the face drawn) -> the face used


class Rng(Protocol):
    """What the dice draw from: ``random.Random``'s ``randrange``."""

    def randrange(self, start: int, stop: int | None = None, step: int = 1) -> int: ...


RngFor = Callable[[int, int], Rng]  # (seed, position) -> the generator of that roll


class _Source(threading.local):
    """The RNG that ``d20`` draws from, set for the duration of one roll, and what picks each
    die's face (a typed one, or the one drawn)."""

    rng: Rng | None = None
    take: Take | None = None

    def randrange(self, *args: int) -> int:
        if self.rng is None:  # pragma: no cover - every roll goes through Dice.roll
            raise RuntimeError("dice rolled outside Dice.roll")
        drawn = self.rng.randrange(*args)
        if self.take is None:
            return drawn
        if len(args) == 1:  # a die: randrange(sides) + 1
            return self.take(args[0], drawn + 1) - 1
        return drawn  # (percentile tens: never typed)


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


@lru_cache(maxsize=1024)  # (by expression: a fight rolls the same few; a refusal is not kept)
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


def roll_simple(expr: str, rng: Rng, take: Take | None = None) -> Roll | None:
    """``NdM`` or ``NdM±K`` without d20 (whose import builds its grammar): the same draws from the
    RNG and the same text as d20 gives, so either path rolls alike. None for anything else."""
    read = _simple(expr)
    if read is None:
        return None
    count, sides = read[0], read[1]
    if count == 1:  # (one die: most rolls, 2297's attack d10s each one)
        face = rng.randrange(sides) + 1
        return _simple_roll(expr, read, (face if take is None else take(sides, face),))
    if rng.__class__ is Stream:  # (a play's: its draws in one call, not a call a die)
        dice = rng.faces(count, sides)
    else:
        dice = [rng.randrange(sides) + 1 for _ in range(count)]
    if take is not None:
        dice = [take(sides, d) for d in dice]
    return _simple_roll(expr, read, tuple(dice))


@lru_cache(maxsize=4096)
def _simple_roll(expr: str, read: tuple[int, int, str, int], dice: tuple[int, ...]) -> Roll:
    """The roll of ``NdM±K`` ``expr`` (``read``: ``_simple``'s) whose dice show ``dice``, made
    once (a ``Roll`` is immutable): a play's damage, bleeding and injury rolls are the same
    few, and their texts were a good part of a roll's cost."""
    count, sides, sign, k = read
    total = sum(dice)
    if count == 1:
        detail = f"1d{sides} ({total})"
    else:
        detail = f"{count}d{sides} ({', '.join(map(str, dice))})"
    if sign:
        total += k if sign == "+" else -k
        detail += f" {sign} {k}"
    return _roll(expr, total, f"{detail} = {total}")


@lru_cache(maxsize=1024)
def _simple(expr: str) -> tuple[int, int, str, int] | None:
    """``NdM±K`` read: (N, M, the sign or "", K); None for anything else."""
    m = _SIMPLE.fullmatch(expr)
    if m is None or m.group(1) == "0":
        return None
    return int(m.group(1) or 1), int(m.group(2)), m.group(3) or "", int(m.group(4) or 0)


def roll_d20(expr: str, rng: Rng, take: Take | None = None) -> Roll:
    """Any notation d20 knows (keep highest/lowest, several terms...)."""
    roller = _d20()
    import d20

    _source.rng, _source.take = rng, take
    try:
        result = roller.roll(expr, stringifier=d20.SimpleStringifier())
        total, detail = int(result.total), str(result).replace("`", "")  # (evaluated lazily)
    except d20.TooManyRolls:
        raise DiceError(f"too many dice in '{expr}': at most {MAX_DICE} at once") from None
    except (DiceError, NeedRoll):  # a typed face that does not fit, or one to ask for
        raise
    except Exception as err:  # d20's parser and evaluator (a division by zero, a bad term...)
        raise DiceError(f"bad dice '{expr}': try a number or dice like 2d6+1, 3d10kh2") from err
    finally:
        _source.rng, _source.take = None, None
    if abs(total) > MAX_TOTAL:
        raise DiceError(f"'{expr}' came to {total}: more than a roll can be ({MAX_TOTAL})")
    return Roll(expr, total, detail)


def rng_for(seed: int, position: int) -> random.Random:
    """The RNG of roll number ``position`` of an encounter seeded with ``seed``."""
    return random.Random(f"{seed}:{position}")


_MASK = (1 << 64) - 1
_GAMMA = 0x9E3779B97F4A7C15  # SplitMix64's increment
_SPACING = 0xD1B54A32D192ED03  # another odd constant: the start of each roll's draws


class Stream:
    """A cheap generator of roll number ``position`` of a seed (SplitMix64: each draw is a
    scrambled step of a counter that starts where the seed and the position put it): the
    forecast's plays, which only need to be reproducible seed for seed. ``rng_for`` builds a
    Mersenne Twister from a hashed string for each roll, several times the cost of this one
    (docs/benchmarks.md, 'The forecast's plays and workers'): the table's rolls, whose recorded
    semantics stay as they are, keep it."""

    __slots__ = ("_state",)

    def __init__(self, seed: int, position: int) -> None:
        self._state = (seed * _GAMMA + position * _SPACING) & _MASK

    def randrange(self, start: int, stop: int | None = None, step: int = 1) -> int:
        if stop is None:
            start, stop = 0, start
        width = (stop - start + step - 1) // step
        if width <= 0:
            raise ValueError(f"empty range for randrange({start}, {stop}, {step})")
        self._state = z = (self._state + _GAMMA) & _MASK
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
        # (a 64-bit draw scaled to the width: a bias of width / 2**64, nothing a forecast sees)
        return start + step * (((z ^ (z >> 31)) * width) >> 64)

    def faces(self, count: int, sides: int) -> list[int]:
        """``count`` dice of ``sides`` (1 to ``sides``), drawn as ``randrange(sides) + 1`` each
        in turn draws them (a damage roll's dice: one call, not one a die; a test compares)."""
        state, out = self._state, []
        for _ in range(count):
            state = (state + _GAMMA) & _MASK
            z = ((state ^ (state >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
            z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
            out.append((((z ^ (z >> 31)) * sides) >> 64) + 1)
        self._state = state
        return out


def _stream_draw(seed: int, position: int, width: int) -> int:
    """``Stream(seed, position).randrange(width)``, the same draw without the generator: a
    play's attack d10s are a roll each (a test compares the two)."""
    z = (seed * _GAMMA + position * _SPACING + _GAMMA) & _MASK
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
    return ((z ^ (z >> 31)) * width) >> 64


@lru_cache(maxsize=1024)
def _die_roll(sides: int, face: int) -> Roll:
    """The roll of one ``1dN`` showing ``face``, made once (a ``Roll`` is immutable): a play's
    attacks roll their d10s one by one, a few hundred a play, from the same ten faces."""
    return _roll(f"1d{sides}", face, f"1d{sides} ({face}) = {face}")


Ask = Callable[[str | None], bool]  # whether the GM types a roll, by its owner's side


class Dice:
    """Rolls for one command: fresh from the seeded RNG, or replayed from records, or typed.

    ``typed``: the faces of the line's dice= (None for "?"), used die by die in rolling order.
    ``ask``: prompt mode: for a roll it says the GM types, a missing face raises ``NeedRoll``;
    the other rolls take (or stand for) their places in the list with the tracker's dice.
    ``rng``: the generator of a roll, by seed and position (``rng_for``; a forecast's plays:
    ``Stream``)."""

    # (slots: made for every line, a play's included; no dict of attributes each)
    __slots__ = ("_replay", "_rng", "ask", "position", "rolled", "seed", "typed", "untyped", "used")

    def __init__(
        self,
        seed: int,
        position: int,
        replay: Sequence[Roll] = (),
        typed: Sequence[Face] = (),
        ask: Ask | None = None,
        rng: RngFor = rng_for,
    ) -> None:
        self.seed = seed
        self._rng = rng  # the generator of each roll (``Stream``: a forecast's plays)
        self.position = position
        # (copies: ``[*...]``, no call to ``list``; a play makes one ``Dice`` a line)
        self._replay = [*replay]
        self.rolled: list[Roll] = []
        self.typed = [*typed]
        self.ask = ask
        self.used = 0  # places of ``typed`` the rolls so far took (past its end: dice rolled)
        self.untyped: list[str] = []  # rolls with dice past the typed faces (not in prompt mode)

    def roll(
        self,
        expr: str,
        what: str = "",
        *,
        side: str | None = None,
        who: str = "",
        faces: bool = False,
    ) -> Roll:
        """Roll ``expr`` for ``what`` (shown when the GM is asked to type it), a roll of a
        combatant of ``side`` named ``who``; ``faces``: each die counts, not only the sum."""
        if self._rng is Stream and not self._replay and not self.typed and self.ask is None:
            read = _simple(expr)  # (a play's: ``NdM±K`` as written, drawn as below draws it)
            if read is not None:
                _check_limits(expr)
                dice = tuple(Stream(self.seed, self.position).faces(read[0], read[1]))
                roll = _simple_roll(expr, read, dice)
                self.rolled.append(roll)
                self.position += 1
                return roll
        expr = expr.strip().lower().replace(" ", "")
        if not expr:
            raise DiceError("empty dice expression; type a number or dice like 2d6+1")
        if self._replay:
            recorded = self._replay.pop(0)
            if recorded.expr == expr:
                self.rolled.append(recorded)
                self.position += 1
                self.used += recorded.given
                if self.used > len(self.typed):  # as when it ran: dice past the typed faces
                    self._ran_past(what, expr)
                return recorded
            self._replay.clear()  # the history no longer lines up; roll fresh from here on
        _check_limits(expr)
        rng = self._rng(self.seed, self.position)
        left = len(self.typed) - self.used
        if self.ask is not None and self.ask(side):
            sides = self._sides(expr)
            if left < len(sides):
                have = max(left, 0)
                simple = _SIMPLE.fullmatch(expr) is not None
                raise NeedRoll(
                    what or "Roll",
                    expr,
                    self.used + have,
                    tuple(sides[have:]),
                    sums=simple and not faces and not have,
                    who=who,
                    more=have > 0,
                )
        track = bool(self.typed) or self.ask is not None
        if not track:  # (the tracker's own dice: most rolls, and every roll of a forecast)
            roll = roll_simple(expr, rng) or roll_d20(expr, rng)
            self.rolled.append(roll)
            self.position += 1
            return roll
        start, marked = self.used, [0, 0, 0]  # dice typed, dice in all, dice past the typed

        def take(sides: int, drawn: int) -> int:
            i = self.used
            self.used += 1
            marked[1] += 1
            if i >= len(self.typed):
                marked[2] += 1
                return drawn
            face = self.typed[i]
            if face is None:
                return drawn
            if face > sides:
                raise DiceError(f"dice= face {i + 1} is {face}: a d{sides} shows 1 to {sides}")
            marked[0] += 1
            return face

        roll = roll_simple(expr, rng, take) or roll_d20(expr, rng, take)
        if marked[0]:
            mark = TYPED if marked[0] == marked[1] else f" ({marked[0]} of {marked[1]} dice typed)"
            roll = Roll(roll.expr, roll.total, roll.detail + mark)
        roll = Roll(roll.expr, roll.total, roll.detail, self.used - start)
        if marked[2]:
            self._ran_past(what, expr)
        self.rolled.append(roll)
        self.position += 1
        return roll

    def _ran_past(self, what: str, expr: str) -> None:
        """A roll whose dice ran past the line's typed faces: the tracker rolled them, and the
        log says so once the command is done (in prompt mode the line gets a "?" for each)."""
        if self.typed and self.ask is None:
            self.untyped.append(f"{what or 'Roll'} ({expr})")

    def _sides(self, expr: str) -> list[int]:
        """The dice ``expr`` rolls, one entry (its sides) per die, as the tracker would roll
        them now (for exploding or rerolled dice, the count can change with the faces)."""
        m = _SIMPLE.fullmatch(expr)
        if m is not None and m.group(1) != "0":
            return [int(m.group(2))] * int(m.group(1) or 1)
        sizes: list[int] = []

        def record(sides: int, drawn: int) -> int:
            sizes.append(sides)
            return drawn

        roll_d20(expr, self._rng(self.seed, self.position), record)
        return sizes

    def new_seed(self) -> int:
        """A seed for a new encounter, drawn (and recorded) like any roll."""
        if self._replay and self._replay[0].expr == "seed":
            recorded = self._replay.pop(0)
        else:
            self._replay.clear()
            n = self._rng(self.seed, self.position).randrange(1, 2**31)
            recorded = Roll("seed", n, str(n))
        self.rolled.append(recorded)
        self.position += 1
        return recorded.total

    def value(
        self, text: str, what: str = "", *, side: str | None = None, who: str = ""
    ) -> tuple[int, Roll | None]:
        """A typed number as is, or dice rolled: the value and the roll (None for a number)."""
        text = text.strip()
        if _INT.fullmatch(text):
            return int(text), None
        if not re.fullmatch(r"[0-9dDkhlHL+\-*/() ]+", text) or not re.search(r"\d", text):
            raise DiceError(f"expected a number or dice like 2d6+1, got '{text}'")
        roll = self.roll(text, what, side=side, who=who)
        return roll.total, roll

    def d(
        self, count: int, sides: int, what: str = "", *, side: str | None = None, who: str = ""
    ) -> Roll:
        return self.roll(f"{count}d{sides}", what, side=side, who=who)

    def each(
        self,
        count: int,
        sides: int,
        what: str,
        expr: str = "",
        *,
        side: str | None = None,
        who: str = "",
    ) -> list[Roll]:
        """``count`` dice of ``sides`` for one roll whose every face counts (2297's attack
        d10s: the two kept, a double), each recorded as a roll of its own (``1dN``); in prompt
        mode the GM is asked for all the faces still missing at once (``expr`` names the roll
        to the GM: ``3d10kh2``)."""
        if not self._replay and self.ask is not None and self.ask(side):
            have = max(len(self.typed) - self.used, 0)
            if have < count:
                raise NeedRoll(
                    what or "Roll",
                    expr or f"{count}d{sides}",
                    self.used + have,
                    (sides,) * (count - have),
                    who=who,
                    more=have > 0,
                )
        # (loops, not comprehensions: one would make each name it reads a cell, for every call)
        out: list[Roll] = []
        if not self._replay and not self.typed and self.ask is None and 0 < sides <= MAX_SIDES:
            for _ in range(count):
                out.append(self._die(sides))  # (as ``roll`` rolls 1dN, directly)
            return out
        for i in range(1, count + 1):
            out.append(self.roll(f"1d{sides}", f"{what} ({i} of {count})", side=side, who=who))
        return out

    def _die(self, sides: int) -> Roll:
        """One ``1dN`` the tracker rolls (no typed face, no prompt, no record to replay): the
        roll ``roll_simple`` makes of it, drawn at the next position."""
        if self._rng is Stream:  # (a play's: its draw computed, no generator made for it)
            face = _stream_draw(self.seed, self.position, sides) + 1
        else:
            face = self._rng(self.seed, self.position).randrange(sides) + 1
        roll = _die_roll(sides, face)
        self.rolled.append(roll)
        self.position += 1
        return roll

    @property
    def surplus(self) -> int:
        """Typed faces no roll took."""
        return max(0, len(self.typed) - self.used)
