"""The text form of commands: one line, read into a verb, arguments and options.

Grammar (the same in the command bar, ``facility-tui apply`` and the saved history)::

    line    := verb { argument }
    argument:= word | key=value          (shell-style quoting: "Sergeant Blanc", 'a b')

A word is an option only when its key is written plainly (``"a=b"`` in quotes is an argument).
Nothing here knows a command or a rule system: this is the lowest layer of the command core.
"""

from __future__ import annotations

import re
import shlex
from functools import lru_cache

from attrs import frozen

from facility_tui.commands.dice import DiceError, Face, faces_text, parse_faces
from facility_tui.model.text import MAX_LINE, control_in


class CommandError(ValueError):
    """A command that cannot be applied; the message is one line, fit for the GM."""


class UnknownCommand(CommandError):
    """A line whose verb no command has (where to find the list depends on where it was typed:
    the tracker's help, ``facility-tui commands``)."""


_OPTION = re.compile(r"^([a-z][a-z0-9_-]*)=", re.IGNORECASE)
# One word as the shell reads it: runs of plain characters, escaped characters and quoted parts.
_WORD = re.compile(r"""(?:\\.|[^\s'"\\]+|'[^']*'|"(?:[^"\\]|\\.)*")+""", re.DOTALL)


@frozen
class Parsed:
    verb: str
    args: tuple[str, ...]
    options: tuple[tuple[str, str], ...]


@lru_cache(maxsize=4096)
def parse(line: str) -> Parsed:
    """Split a line into verb, arguments and ``key=value`` options. A word is an option only
    when its key is written plainly: ``"a=b"`` in quotes is an argument (a name, say).
    Remembered by line (a ``Parsed`` is immutable; a refused line is read again): a forecast
    runs the same few lines thousands of times, and ``shlex`` is slow to read one
    (docs/benchmarks.md, 'The forecast's plays and workers')."""
    if len(line) > MAX_LINE:
        raise CommandError(f"the line is {len(line)} characters long: at most {MAX_LINE}")
    bad = control_in(line)
    if bad is not None:
        raise CommandError(f"the line holds a control character ({bad}); retype it")
    try:
        words = shlex.split(line)
    except ValueError as err:
        raise CommandError(f"cannot read '{line}': {err}") from None
    if not words:
        raise CommandError("empty command: a line starts with a command (add, hit, next...)")
    raw = _WORD.findall(line)
    if len(raw) != len(words):  # (never seen: the two readings of the line disagree)
        raise CommandError(f"cannot read '{line}': check its quotes")
    args: list[str] = []
    options: list[tuple[str, str]] = []
    for text, word in zip(raw[1:], words[1:], strict=True):
        m = _OPTION.match(text)
        if m:
            options.append((m.group(1).lower().replace("-", "_"), word[m.end() :]))
        else:
            args.append(word)
    return Parsed(words[0].lower(), tuple(args), tuple(options))


@lru_cache(maxsize=4096)  # (a forecast's tactics name the same few combatants in every line)
def quote(word: str) -> str:
    """``word`` as one argument of a line (quoted when it would read as options or words)."""
    quoted = shlex.quote(word)
    if quoted == word and _OPTION.match(word):  # shlex leaves a=b bare: it would be an option
        return f"'{word}'"
    return quoted


def split_dice(line: str, key: str = "dice") -> tuple[str, list[Face]]:
    """A line without its ``dice=`` (or ``key=``) option, and the faces that option gave."""
    words = _WORD.findall(line)
    faces: list[Face] = []
    kept: list[str] = []
    for i, word in enumerate(words):
        m = _OPTION.match(word)
        if i and m and m.group(1).lower() == key:
            value = shlex.split(word)[0][m.end() :]
            try:
                faces = parse_faces(value)
            except DiceError as err:
                raise CommandError(str(err)) from None
        else:
            kept.append(word)
    return " ".join(kept), faces


def with_dice(line: str, faces: list[Face], key: str = "dice") -> str:
    """``line`` with ``dice=`` (or ``key=``) giving ``faces`` (replacing any it had)."""
    base, _ = split_dice(line, key)
    return f"{base} {key}={faces_text(faces)}" if faces else base
