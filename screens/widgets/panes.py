"""Drawing the rules' panes (``model.view``) as Rich text: boxes, bars with their marks,
labelled lines. Glyphs carry every state (■ left or taken, □ spent or room, · not granted,
▣ past capacity; █ damage, ▓ stun, ░ room), the words beside them say it again, and colour only
adds to both.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from functools import lru_cache

from rich.cells import cell_len
from rich.text import Text

from facility_tui.model.text import Detail, Tone, printable
from facility_tui.model.view import Bar, Boxes, Pane, Row

TONE_STYLE = {Tone.PLAIN: "", Tone.WARN: "yellow", Tone.BAD: "bold red"}
FULL, EMPTY, ABSENT, OVER = "■", "□", "·", "▣"
BAR_MIN, BAR_MAX = 8, 60  # cells of a bar: narrow columns still show one, wide ones use the room
BAR_LABEL = 8  # "Fatigue " : the bars of a pane line up
LAST_LABEL = 3  # room past a bar's text, for the label of a mark at its end ("╵32 Leth")


def boxes(b: Boxes) -> Text:
    return Text.assemble(
        (FULL * b.full, "bold"),
        (EMPTY * b.empty, "dim"),
        (ABSENT * b.absent, "dim"),
        (OVER * b.over, "bold red"),
    )


def box_rows(group: Sequence[Boxes], width: int) -> list[Text]:
    """Boxes without words share one line ("Major ■  Move □  Minor ·"), wrapped to the width;
    boxes with words get a line each, their labels padded to line up."""
    if all(not b.text for b in group):
        lines: list[Text] = []
        line = Text()
        for b in group:
            part = Text.assemble((b.label, "bold"), " ", boxes(b))
            if line and line.cell_len + 2 + part.cell_len > width:
                lines.append(line)
                line = Text()
            if line:
                line.append("  ")
            line.append_text(part)
        return [*lines, line]
    pad = min(16, max(len(b.label) for b in group))
    return [
        Text.assemble(
            (f"{printable(b.label):<{pad}} ", "bold"),
            boxes(b),
            " ",
            (printable(b.text), TONE_STYLE[b.tone]),
        )
        for b in group
    ]


def bar_rows(b: Bar, width: int) -> list[Text]:
    """The bar, then a ruler with a tick (╵) and the value of each mark under it."""
    text = f" {printable(b.text)}"
    cells = max(BAR_MIN, min(BAR_MAX, width - BAR_LABEL - len(text) - LAST_LABEL))
    top = max(1, b.maximum)

    def cell(value: int) -> int:  # the cells filled by ``value`` (a part-filled cell counts)
        return min(cells, -(-value * cells // top)) if value > 0 else 0

    hurt = cell(b.value)
    both = max(hurt, cell(b.value + b.extra))
    line = Text.assemble(
        (f"{b.label:<{BAR_LABEL}}", "bold"),
        ("█" * hurt, TONE_STYLE[b.tone] or "green"),
        ("▓" * (both - hurt), "magenta"),
        ("░" * (cells - both), "dim"),
        (text, TONE_STYLE[b.tone]),
    )
    room = max(width, BAR_LABEL + cells + len(text))
    return [line, *(Text(r, style="dim") for r in rulers(b.marks, cell, room))]


def rulers(marks: Sequence[tuple[int, str]], cell: Callable[[int], int], width: int) -> list[str]:
    """The bar's ruler (``ruler_text``); where its marks are too close for every value to show
    (Health 15 at 80 columns: ``╵4   ╵8   ╵  ╵15``), two rulers, the marks taking turns, so
    that no value is lost."""
    ticked: dict[int, tuple[int, str]] = {}  # (marks reached in one cell: the first is shown)
    for mark in marks:
        ticked.setdefault(cell(mark[0]), mark)
    marks = list(ticked.values())
    one = ruler_text(marks, cell, width)
    if len(marks) < 2 or all(f"╵{value}" in one for value, _ in marks):
        return [one]
    # (each ruler's ticks far apart: a value may reach the next tick of its ruler)
    return [ruler_text(marks[i::2], cell, width, gap=0) for i in (0, 1)]


def ruler_text(
    marks: Sequence[tuple[int, str]], cell: Callable[[int], int], width: int, gap: int = 1
) -> str:
    """A tick (╵) under the cell each mark is reached in, with the values and labels of the
    marks where every one fits ``gap`` cells before the next tick (else the values, else a
    tick alone)."""
    ticks = [BAR_LABEL + max(0, cell(value) - 1) for value, _ in marks]
    ends = [*(t - gap for t in ticks[1:]), width]
    for form in ("{} {}", "{}"):
        shown = ["╵" + form.format(value, label) for value, label in marks]
        if all(t + len(x) <= e or t == e + 1 for x, t, e in zip(shown, ticks, ends, strict=True)):
            break
    ruler = [" "] * width
    for x, t, e in zip(shown, ticks, ends, strict=True):
        if t < width and ruler[t] == " ":  # (two marks in one cell: the first is shown)
            x = x if t + len(x) <= max(e, t + 1) else "╵"
            ruler[t : t + len(x)] = x[: width - t]
    return "".join(ruler).rstrip()


def detail_row(d: Detail) -> Text:
    return Text.assemble(
        (f"{printable(d.label)}: ", "bold"), (printable(d.text), TONE_STYLE[d.tone])
    )


def hanging(text: Text, width: int, indent: int = 2) -> list[Text]:
    """``text`` wrapped at spaces to ``width``, its later lines indented under its first (a
    wrapped "Limit: ..." reads as one row, not as two)."""
    plain = text.plain
    if cell_len(plain) <= width:
        return [text]  # (most rows: no walk through their characters on a key's render)
    cuts: list[int] = []
    start, room, used, space = 0, width, 0, -1  # (columns, not characters: 漢 takes two)
    for i, ch in enumerate(plain):
        used += cell_len(ch)
        if ch == " " and i > start:
            space = i
        if used > room and room > indent and i > start:
            end = space if space > start else i  # one word longer than the room: cut it
            cuts.append(end)
            start, room, space = end, width - indent, -1
            used = cell_len(plain[start : i + 1].lstrip(" "))
    if not cuts:
        return [text]
    first, *rest = text.divide(cuts)
    return [first, *(Text(" " * indent) + (t[1:] if t.plain[:1] == " " else t) for t in rest)]


def rows_text(rows: Iterable[Row], width: int) -> list[Text]:
    out: list[Text] = []
    group: list[Boxes] = []
    for row in [*rows, None]:
        if isinstance(row, Boxes) and (not group or bool(row.text) == bool(group[0].text)):
            group.append(row)
            continue
        if group:
            out += box_rows(group, width)
            group = []
        if isinstance(row, Boxes):
            group.append(row)
        elif isinstance(row, Bar):
            out += bar_rows(row, width)
        elif isinstance(row, Detail):
            out += hanging(detail_row(row), width)
    return out


def title_rule(title: str, width: int) -> Text:
    return Text(f"─ {title} " + "─" * max(0, width - len(title) - 3), style="bold dim")


def pane_lines(panes: Sequence[Pane], width: int) -> list[Text]:
    """The panes' lines (the same ``Text`` objects for a pane drawn before: do not change them)."""
    return [line for pane in panes for line in _one_pane(pane, width)]


# A key redraws the selected combatant's panes, and most of them look as they did (its actions
# at a turn's start, its injury when another acted): they are drawn once (docs/benchmarks.md,
# 'The screens').
@lru_cache(maxsize=1024)
def _one_pane(pane: Pane, width: int) -> tuple[Text, ...]:
    return (title_rule(pane.title, width), *rows_text(pane.rows, width))


def reminder_lines(title: str, reminders: Sequence[Detail], width: int) -> list[Text]:
    """The acting combatant's start-of-turn reminders, flagged ▶ so they read as "now"."""
    if not reminders:
        return []
    head = Text.assemble(("▶ ", "bold"), (printable(title), "bold reverse"))
    return [head, *(t for d in reminders for t in hanging(Text("  ") + detail_row(d), width, 4))]
