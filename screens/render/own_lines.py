"""Panes that hand the compositor their lines themselves, finished once per line.

Every line a widget draws normally passes through Textual's styles cache, which adds the widget's
border, padding, tint and opacity, and a key press moves every line of the log and redraws
several lines of the detail pane and the list. The panes here have no border, no tint and no top
or bottom padding, and ``strips`` gives the same ``Strip`` for a line that has not changed: a
line is padded and filtered once, and a line that moved costs a lookup. A pane styled otherwise
is drawn the usual way, line by line from ``render_line``. Without this, a ``d`` confirm at 200
combatants misses its frame (docs/benchmarks.md).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

from rich.segment import Segment
from rich.style import Style as RichStyle
from textual.color import Color
from textual.filter import LineFilter
from textual.geometry import Region
from textual.strip import Strip
from textual.style import Style
from textual.widget import Widget

from .lines import fit

FINISHED = 1024  # finished lines kept per pane


@lru_cache(maxsize=32)
def blank_line(width: int, style: RichStyle) -> Strip:
    """A blank line, the same object each time (so it is finished once)."""
    return Strip.blank(width, style)


class OwnLines(Widget):
    """A mixin for line-API widgets (put it first among the bases)."""

    # What finished lines are made with: (line filters, content width, background, left and
    # right padding, padding style), or None when a style of the pane needs the styles cache;
    # worked out again after a style update, a resize or a change of the app's filters.
    _finish_with: tuple[tuple[LineFilter, ...], int, Color, int, int, RichStyle] | None = None
    _finish_checked = False
    _finished: dict[int, tuple[Strip, Strip]]  # id(line) -> (line, finished line)
    _pane_style: RichStyle | None = None  # the pane's own style, until its styles change

    def strips(self, ys: range) -> list[Strip]:
        """The pane's content lines ``ys``: the same object for a line while it looks the same.

        A frame asks for all the lines of a pane in one call (it works out its scroll offset,
        width and styles once, not once a line).
        """
        raise NotImplementedError

    def render_line(self, y: int) -> Strip:
        return self.strips(range(y, y + 1))[0]

    def styled(self, lines: Sequence[Strip], rows: range, width: int) -> list[Strip]:
        """``lines[i]`` for each ``i`` in ``rows``, in the pane's style and ``width`` wide (blank
        past the end): the same object each time, as ``apply_style`` and ``crop_extend`` are
        cached by the strip."""
        style = self._pane_style
        if style is None:
            style = self._pane_style = self.rich_style  # (it walks the ancestors)
        blank = blank_line(width, style)
        return [
            lines[i].apply_style(style).crop_extend(0, width, style) if i < len(lines) else blank
            for i in rows
        ]

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._finish_checked = False
        self._pane_style = None

    def _check_finish(self, filters: tuple[LineFilter, ...], content_width: int) -> None:
        styles = self.styles
        pad = styles.padding
        plain = (
            not any(edge for edge, _ in styles.border)
            and not any(edge for edge, _ in styles.outline)
            and not pad.top
            and not pad.bottom
            and not styles.tint.a
            and styles.text_opacity == 1
            and self.opacity == 1
            and not (styles.has_rule("hatch") and styles.hatch != "none")
        )
        if plain:
            base, background = self.background_colors
            pad_style = Style(background=base + background).rich_style  # as the styles cache pads
            self._finish_with = (filters, content_width, background, pad.left, pad.right, pad_style)
        else:
            self._finish_with = None
        self._finished = {}
        self._finish_checked = True

    def render_lines(self, crop: Region) -> list[Strip]:
        filters = tuple(self.get_line_filters())
        content_width = self.content_region.width
        done = self._finish_with
        if not self._finish_checked or (
            done is not None and (done[0] != filters or done[1] != content_width)
        ):
            self._check_finish(filters, content_width)
            done = self._finish_with
        if done is None:
            return super().render_lines(crop)
        _, _, background, left, right, pad_style = done
        finished = self._finished
        lines: list[Strip] = []
        for line in self.strips(crop.line_range):
            kept = finished.get(id(line))
            if kept is None or kept[0] is not line:
                # What the styles cache does to a content line of a pane styled as these are.
                out = fit(line, content_width, pad_style)
                if left or right:
                    segments = list(out)
                    if left:
                        segments.insert(0, Segment(" " * left, pad_style))
                    if right:
                        segments.append(Segment(" " * right, pad_style))
                    out = Strip(segments, content_width + left + right)
                for line_filter in filters:
                    out = out.apply_filter(line_filter, background)
                if len(finished) >= FINISHED:
                    finished.clear()
                kept = finished[id(line)] = (line, out)
            lines.append(kept[1])
        x1, x2 = crop.column_span
        if x1 or x2 != self.region.width:
            lines = [line.crop(x1, x2) for line in lines]
        return lines
