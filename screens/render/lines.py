"""Lines as the terminal may be handed them: within their width, with no control character.

A ``Strip`` goes to the terminal as it is. A newline in it moves the cursor down a row (on the
bottom row it scrolls the whole screen up, until the terminal is resized), a tab or an escape
does whatever the terminal makes of it, and a line wider than its region runs into the next one.
Rich's ``Console.render`` of a ``Text`` ends it with a newline segment (a command line's usage
text broke the screen so), and any text may hold a control character (an old save's name, a
usage string, a message). Every widget that builds its own lines makes them here: ``text_lines``
for Rich text, ``fit`` for a line built otherwise. ``Controls``, a line filter of the app, is the
last guard for every line of every widget, Textual's own too (a field the GM pastes into).
"""

from __future__ import annotations

import re
from itertools import pairwise

from rich.console import Console
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual.color import Color
from textual.filter import LineFilter
from textual.strip import Strip

from facility_tui.model.text import CONTROL, printable


def clean(strip: Strip) -> Strip:
    """``strip`` with Rich's line ends and control segments dropped and any other control
    character shown escaped (``\\x1b``); the same object when it has none (nearly always)."""
    if not any(segment.control or CONTROL.search(segment.text) for segment in strip):
        return strip
    return Strip(
        [
            Segment(printable(text), style)
            for text, style, control in strip
            if not control and text != "\n"
        ]
    )


def fit(strip: Strip, width: int, style: Style | None = None) -> Strip:
    """``strip`` clean and exactly ``width`` cells wide (cut, or padded in ``style``)."""
    strip = clean(strip)
    return strip if strip.cell_length == width else strip.crop_extend(0, width, style)


def text_lines(console: Console, text: Text, width: int) -> list[Strip]:
    """Rich text as lines at most ``width`` cells wide: wrapped at this width (or cut by its
    ``overflow`` when it is ``no_wrap``), a new line at each newline, tabs expanded, control
    characters shown escaped. Lines are not padded: the widget pads them in its own style."""
    width = max(1, width)
    if text.cell_len <= width and text.plain.isprintable():
        # Most lines: one, straight from its segments (Rich's wrapping is slower by far).
        strip = Strip(text.render(console), text.cell_len)  # (render leaves out the text's style)
        base = console.get_style(text.style) if isinstance(text.style, str) else text.style
        return [strip.apply_style(base).simplify() if base else strip.simplify()]
    if _plain_wrap(text):
        # A long line in one style, every character one cell wide (a round's order naming
        # 1,000 combatants: 300 lines): wrapped where Rich wraps it, without Rich's machinery.
        base = console.get_style(text.style) if isinstance(text.style, str) else text.style
        plain = text.plain
        cuts = [0, *wrap_offsets(plain, width), len(plain)]
        wrapped = []
        for a, b in pairwise(cuts):
            piece = plain[a:b][:width]  # (only spaces hang past the edge: Rich drops them)
            wrapped.append(Strip([Segment(piece, base or None)], len(piece)))
        return wrapped
    options = console.options.update_width(width).update(height=None)
    lines = []
    for segments in console.render_lines(text, options, pad=False):
        line = clean(Strip(segments))
        if line.cell_length > width:  # (a no_wrap text, or escaped characters)
            line = line.crop(0, width)
        lines.append(line.simplify())
    return lines


def _plain_wrap(text: Text) -> bool:
    """Whether ``wrap_offsets`` wraps ``text`` as Rich does: one style, no tab, no newline, no
    control character, a cell per character, wrapped and folded the default way."""
    plain = text.plain
    return (
        not text.spans
        and plain.isascii()  # (printable ASCII: " " is its only space)
        and plain.isprintable()
        and not text.no_wrap
        and text.overflow in (None, "fold")
        and text.justify in (None, "default")
        and text.end == "\n"
    )


_WORD_START = re.compile(r"[^ ]")


def wrap_offsets(plain: str, width: int) -> list[int]:
    """Where Rich's word wrap (``rich._wrap.divide_line``, folding) breaks ``plain`` at
    ``width``, for text whose only space is " " and whose every character is one cell: a word
    (with the spaces after it) stays on the line while its last letter is within ``width``,
    else starts the next line; a word wider than a line is cut into lines of ``width`` (its
    last piece's line carries on). Found a line at a time, not a word at a time: a round's
    order naming 1,000 combatants is 3,000 words."""
    n = len(plain)
    lead = n - len(plain.lstrip(" "))  # (the first word holds the spaces before it)
    breaks: list[int] = []
    line = word = 0  # where the line starts, where its next word starts
    while line + width < n:
        limit = line + width  # the first cell past the line
        if plain[limit] == " ":  # the first word past the line starts after these spaces
            after = _WORD_START.search(plain, limit)
            if after is None:
                break  # only spaces left: they hang past the edge
            start = after.start()
        else:  # the word across the edge
            space = plain.rfind(" ", max(word, lead), limit)
            start = space + 1 if space >= 0 else word
        if start <= lead:
            start = 0
        letters_end = plain.find(" ", max(start, lead))
        letters_end = n if letters_end < 0 else letters_end
        if letters_end - start > width:  # folded: pieces of ``width``, spaces after it included
            after = _WORD_START.search(plain, letters_end)
            word_end = n if after is None else after.start()
            pieces = range(start, word_end, width)
            breaks += [piece for piece in pieces if piece]
            line, word = pieces[-1], word_end
        else:
            breaks.append(start)
            line = word = start
    return breaks


class Controls(LineFilter):
    """A line with a control character (pasted into a field, from an old save) shows it escaped,
    cut to the line's width. A line without one, nearly every line, is handed on as it is; a
    line is filtered once (``Strip.apply_filter`` keeps what it made)."""

    def apply(self, segments: list[Segment], background: Color) -> list[Segment]:
        if not CONTROL.search("".join([segment.text for segment in segments])):
            return segments
        width = Segment.get_line_length(segments)
        pad = segments[-1].style if segments else None
        return list(clean(Strip(segments)).crop_extend(0, width, pad))
