"""A long line in one style (a round's order naming every combatant: 300 lines at 1,000
combatants) is wrapped by ``wrap_offsets`` a line at a time, not by Rich a word at a time (issue
25: 20–30 ms of the ``n`` that ends a round). What the log shows must not change: the lines are
Rich's, break for break and segment for segment."""

from __future__ import annotations

import pytest
from facility_tui.screens.render import lines
from facility_tui.screens.render.lines import _plain_wrap, text_lines, wrap_offsets
from hypothesis import example, given
from hypothesis import strategies as st
from rich._wrap import divide_line
from rich.console import Console
from rich.text import Text

CONSOLE = Console(width=120)
# Words and runs of spaces of every length, some wider than a line; "x" and "." for variety.
PLAIN = st.lists(
    st.one_of(
        st.text(st.sampled_from("ab,x."), min_size=1, max_size=30),
        st.text(st.just(" "), min_size=1, max_size=6),
    ),
    max_size=40,
).map("".join)


@given(PLAIN, st.integers(1, 50))
@example("  lead", 3)  # spaces before the first word are part of it
@example("abc def", 3)  # a word as wide as the line, then the next
@example("abcdef  gh", 3)  # folded, spaces and all
def test_the_breaks_are_where_rich_breaks(plain: str, width: int) -> None:
    assert wrap_offsets(plain, width) == divide_line(plain, width, fold=True)


@pytest.mark.parametrize("style", ["", "bold green", "cyan"])
@given(plain=PLAIN, width=st.integers(1, 50))
def test_the_lines_are_richs_lines(style: str, plain: str, width: int) -> None:
    text = Text(plain, style=style)
    assert _plain_wrap(text)
    fast = text_lines(CONSOLE, text, width)
    rich_lines = _rich_lines(text, width)
    assert [list(line) for line in fast] == [list(line) for line in rich_lines]
    assert [line.cell_length for line in fast] == [line.cell_length for line in rich_lines]


def test_a_round_order_of_1000_names_is_wrapped_as_rich_wraps_it() -> None:
    names = ", ".join(f"Goon {i} {i % 97}" for i in range(1, 1001))
    text = Text(f"[2] Round 2 order: {names}", style="bold green")
    for width in (40, 58, 77):
        fast = text_lines(CONSOLE, text, width)
        assert [list(line) for line in fast] == [list(line) for line in _rich_lines(text, width)]


def test_other_texts_go_to_rich() -> None:
    assert not _plain_wrap(Text("tab\there"))
    assert not _plain_wrap(Text("Ωmega " * 20))  # (a cell per character is not known)
    assert not _plain_wrap(Text.assemble(("(h) ", "dim"), "name " * 20))
    assert not _plain_wrap(Text("cut " * 20, overflow="ellipsis"))


def _rich_lines(text: Text, width: int) -> list:  # type: ignore[type-arg]
    """``text_lines`` as Rich wraps it."""
    keep = lines._plain_wrap
    lines._plain_wrap = lambda _text: False  # type: ignore[assignment]
    try:
        return text_lines(CONSOLE, text, width)
    finally:
        lines._plain_wrap = keep
