"""Text from the GM or a save is data: the bounds it must keep, and how it is shown safely.

No Textual or Rich here: rule systems hand the screens plain text with a *tone* (how much it
matters), and the screens choose the look. Control characters never reach a terminal: input
refuses them, and anything older that holds some is shown escaped (``printable``).
"""

from __future__ import annotations

import enum
import re
from collections.abc import Callable, Hashable, Iterable, Mapping
from typing import TypeVar

from attrs import frozen

# C0 (but for none: a tab or newline in a name is as wrong as an escape), DEL and C1.
CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")

MAX_LINE = 1000  # characters in one command line (Python's int() refuses 4,300+ digits: far below)
MAX_NAME = 40  # a combatant's name
MAX_TITLE = 60  # an encounter's name (also the save file's name)
MAX_NOTE = 300  # a note or a line of the GM's own in the log


def _escape(match: re.Match[str]) -> str:
    return f"\\x{ord(match.group()):02x}"


def printable(text: str) -> str:
    """``text`` with every control character written as ``\\xNN``; unchanged (the same object)
    when it has none, which is nearly always."""
    if CONTROL.search(text) is None:
        return text
    return CONTROL.sub(_escape, text)


def nearest(name: str, known: Iterable[str]) -> str | None:
    """The one of ``known`` that ``name`` is most likely a typo of; ``None`` if none is near."""
    import difflib

    close = difflib.get_close_matches(name.lower(), sorted(known), n=1)
    return close[0] if close else None


W = TypeVar("W", bound=Hashable)


def word_for(text: str, words: Mapping[str, W]) -> W | None:
    """What ``text`` names among ``words`` (lower-case: the full words and their short forms,
    each with its value): a word itself, or the start of words that all name one value, so any
    short form the screen shows (``Weap``, ``Cont``) and any unambiguous start (``contam``,
    ``scie``) reads as the word; ``None`` for no word or several."""
    t = text.strip().lower()
    if not t:
        return None
    if t in words:
        return words[t]
    found = {value for word, value in words.items() if word.startswith(t)}
    return found.pop() if len(found) == 1 else None


def did_you_mean(name: str, known: Iterable[str]) -> str:
    """`` (did you mean NEAREST?)`` for a typo of one of ``known``; ``""`` if none is near."""
    close = nearest(name, known)
    return f" (did you mean {close}?)" if close else ""


def control_in(text: str) -> str | None:
    """The first control character of ``text``, escaped for a message, or None."""
    m = CONTROL.search(text)
    return None if m is None else _escape(m)


def counted(n: int, one: str, many: str | None = None) -> str:
    """``n`` and its noun, singular for one: ``1 round``, ``3 rounds``, ``1 die``, ``2 dice``."""
    return f"{n} {one if n == 1 else (many or one + 's')}"


class Tone(enum.StrEnum):
    """How much a shown value matters; screens map each to a look, and a word says it too."""

    PLAIN = "plain"
    WARN = "warn"  # a limit in force (fatigued, one action only)
    BAD = "bad"  # out of the fight, impaired, out of ammo


@frozen
class Detail:
    """One line of a combatant's detail pane: a label and plain text, with its tone."""

    label: str
    text: str
    tone: Tone = Tone.PLAIN


def naming_any(names: Iterable[str]) -> re.Pattern[str] | None:
    """A pattern finding any of ``names`` in a line as a whole word, in any case ("Boarder 1"
    and "boarder 1", not "Boarder 10"): which log lines are about whom (None: no name)."""
    words = sorted({n for n in names if n}, key=len, reverse=True)
    if not words:
        return None
    alternatives = "|".join(re.escape(w) for w in words)
    return re.compile(rf"(?<!\w)(?:{alternatives})(?!\w)", re.IGNORECASE)


def common_prefix(words: list[str]) -> str:
    """What ``words`` (lower case) all begin with."""
    first, last = min(words), max(words)
    n = 0
    while n < min(len(first), len(last)) and first[n] == last[n]:
        n += 1
    return first[:n]


def completed(head: str, typed: str, fits: list[str], whole: Callable[[str], str]) -> str | None:
    """``head`` and the word ``typed`` after it completed among ``fits`` (lower case, each
    fitting what was typed): ``whole(fit)`` when one fits, else as far as they all agree; None
    when there is nothing to add (the command line's Tab)."""
    if len(fits) == 1:
        return f"{head} {whole(fits[0])}"
    common = common_prefix(fits) if fits else ""
    return f"{head} {common}" if len(common) > len(typed) else None


def in_order(name: str) -> tuple[str | int, ...]:
    """``name`` as the list orders it: its numbers by value, "Goon 2" before "Goon 10" (the
    text otherwise, as typed)."""
    parts = _NUMBERS.split(name)
    return tuple(int(p) if i % 2 else p for i, p in enumerate(parts))


_NUMBERS = re.compile(r"(\d+)")
