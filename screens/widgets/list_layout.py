"""How the initiative list fits its width: which columns show, which are abbreviated, how wide
the names are. Pure functions of the rows' widths and the room (no widget, no history): the same
rows at the same size always lay out the same way.

When the room is short, the list gives way in a fixed order, and never cuts a state word:

1. the gap between columns narrows from 2 to 1;
2. the extra columns are left out, from the last (a cuttable last one, the effects, is shown cut
   to the room left when that room is worth it);
3. the names shorten, down to ``NAME_COMFORT``;
4. the columns with short forms are abbreviated, whole, one by one in their order;
5. the names shorten further, as far as they stay told apart (``name_floor``);
6. what still does not fit scrolls sideways.

Names are shortened from the front (``name_forms``, in ``model.names``): the leading
words are abbreviated, then dropped, and the last words, which tell ``Drone 1`` from ``Drone 2``,
stay whole as long as anything does.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from functools import lru_cache

from attrs import frozen
from rich.cells import cell_len

# (named here too, as before they moved)
from facility_tui.model.names import name_forms as name_forms
from facility_tui.model.names import shorten_names as shorten_names

PAD = 1  # cells before the first column (the selected row's mark)
GAPS = (2, 1)  # blank cells after each column: 2 when every column fits so, else 1
NAME_COMFORT = 13  # names shorten to this before any column is abbreviated ("Cont. Drone 1")
MIN_NAME = 6  # and never below this, however narrow
NAME_READS = 10  # a narrow screen's panes give the list room for names this wide ("C. Drone 1")
MIN_TAIL = 8  # a cuttable last column is shown cut to the room left when at least this much is


class Role(enum.Enum):
    KEEP = "keep"  # always shown whole (the turn mark, the number, the side)
    NAME = "name"  # the one column that shortens (its cells shortened by ``shorten_names``)
    EXTRA = "extra"  # left out when the room is short, from the last
    CUT = "cut"  # an extra column that may show cut to the room left (free text: effects)


@frozen
class Column:
    title: str
    role: Role = Role.KEEP
    short: str = ""  # its title when abbreviated ("": the column has no short form)
    least: tuple[int, int] = (0, 0)  # its width at least, in full and abbreviated


@frozen
class Layout:
    widths: tuple[int, ...]  # each column's width, 0: left out
    short: frozenset[int]  # the columns shown abbreviated
    gap: int

    @property
    def width(self) -> int:
        return PAD + sum(w + self.gap for w in self.widths if w)


def fit(
    columns: Sequence[Column],
    full: Sequence[int],
    short: Sequence[int],
    room: int,
    name_floor: int,
    abbreviate: Sequence[int] = (),
) -> Layout:
    """The layout of columns whose cells are at most ``full`` wide (``short`` abbreviated) in
    ``room`` cells. ``abbreviate``: the columns with short forms, in the order they are used;
    ``name_floor``: the narrowest the names go and stay told apart."""
    n = len(columns)
    flex = next((j for j, c in enumerate(columns) if c.role is Role.NAME), -1)
    widths = list(full)
    shortened: set[int] = set()

    def need(gap: int) -> int:
        return PAD + sum(w + gap for w in widths if w)

    def done(gap: int) -> Layout:
        return Layout(tuple(widths), frozenset(shortened), gap)

    if not n or not room or need(GAPS[0]) <= room:
        return done(GAPS[0])
    gap = GAPS[1]
    optional = [j for j in range(n) if columns[j].role in (Role.EXTRA, Role.CUT)]
    dropped: list[int] = []
    while optional and need(gap) > room:
        j = optional.pop()
        dropped.append(j)
        widths[j] = 0
    if need(gap) <= room:
        if len(dropped) == 1 and columns[dropped[0]].role is Role.CUT:
            spare = room - need(gap) - gap  # the last column may show cut, in the room left
            if spare >= MIN_TAIL:
                widths[dropped[0]] = spare
        return done(gap)
    if flex < 0:
        for j in abbreviate:
            widths[j] = short[j]
            shortened.add(j)
            if need(gap) <= room:
                break
        return done(gap)
    name = full[flex]
    comfort = min(name, max(NAME_COMFORT, name_floor))
    for j in [-1, *abbreviate]:
        if j >= 0:
            widths[j] = short[j]
            shortened.add(j)
        widths[flex] = 0
        left = room - need(gap) - gap  # the room the names have
        if left >= comfort:
            widths[flex] = min(name, left)
            return done(gap)
    widths[flex] = max(min(name, name_floor), room - need(gap) - gap)
    return done(gap)


# -- names (``model.names``: the forecast's text shortens them the same way) -------------


@lru_cache(maxsize=16)
def name_floor(names: tuple[tuple[str, str], ...]) -> int:
    """The narrowest width (``MIN_NAME`` at least) at which these names are all told apart."""
    longest = max((cell_len(lead + name) for lead, name in names), default=0)
    width = min(MIN_NAME, longest)
    while width < longest and shorten_names(names, width) is None:
        width += 1
    return width
