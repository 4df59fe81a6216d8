"""A scroll bar that draws its own lines (``OwnLines``), and the widgets that use it.

Textual's ``ScrollBar`` draws through the general renderable path (a Rich renderable made into
a visual, then into strips, then through the styles cache) whenever it is repainted, and the log
repaints it at every ``n`` and ``u``: its log grows a line or two and scrolls to its end. That was
1.0 ms of a 3.8 ms frame (2297 demo, 80x24). A vertical bar's segments are its lines, one segment
each, so this bar makes them straight into strips from ``ScrollBarRender.render_bar``, and keeps
them while its thumb stays put (to an eighth of a cell): 0.2 ms. What it shows, and how it
scrolls, is Textual's.
"""

from __future__ import annotations

from math import ceil

from rich.color import Color
from rich.segment import Segment
from textual.containers import VerticalScroll
from textual.scrollbar import ScrollBar, ScrollBarRender
from textual.strip import Strip
from textual.widget import Widget

from .own_lines import OwnLines


class DrawnScrollBar(ScrollBar, OwnLines):  # (ScrollBar first: its CSS type applies)
    """A vertical scroll bar (``DrawnVerticalBar`` gives a widget one)."""

    # what it shows, its segments (one a line) and its lines
    _lines: tuple[object, list[Segment], list[Strip]] | None = None
    # the state it is drawn for: its back and thumb colours, whether the thumb is hidden
    _colours: tuple[object, Color, Color, bool] | None = None

    def strips(self, ys: range) -> list[Strip]:
        size = self.size
        state = (self.grabbed is not None, self.mouse_over)
        window = self.window_size if self.window_size < self.window_virtual_size else 0
        shows = (size, self.window_virtual_size, window, self.position, state)
        made = self._lines
        if made is None or made[0] != shows:
            colours = self._colours
            if colours is None or colours[0] != state:
                # (its colours walk its ancestors' styles: worked out when they may change)
                shown = self.render()
                assert isinstance(shown, ScrollBarRender)
                style = self.app.console.get_style(shown.style)
                back = style.bgcolor or Color.parse("#555555")  # (Textual's own defaults)
                thumb = style.color or Color.parse("bright_magenta")
                # (a theme whose bars are transparent: Textual draws the track alone)
                hidden = self.screen.styles.scrollbar_color.a == 0
                colours = self._colours = (state, back, thumb, hidden)
            segments = self.renderer.render_bar(
                size=size.height,
                virtual_size=ceil(self.window_virtual_size),
                window_size=0 if colours[3] else ceil(window),
                position=self.position,
                thickness=size.width,
                vertical=True,
                back_color=colours[1],
                bar_color=colours[2],
            ).segments
            if made is not None and made[1] == segments:  # (the thumb did not move a cell's eighth)
                made = self._lines = (shows, segments, made[2])
            else:  # a segment a line
                made = self._lines = (shows, segments, [Strip([s], size.width) for s in segments])
        lines = made[2]
        return [lines[y] if y < len(lines) else Strip.blank(size.width) for y in ys]

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._lines = self._colours = None  # (its colours come from its parent's styles)


class DrawnVerticalBar(Widget):
    """A mixin giving a scrolling widget a ``DrawnScrollBar`` for its vertical scroll bar, made
    the way Textual makes its own. (CSS follows a class's first base: put the widget's class
    before this one.)"""

    @property
    def vertical_scrollbar(self) -> ScrollBar:
        bar = self._vertical_scrollbar
        if bar is None:
            bar = self._vertical_scrollbar = DrawnScrollBar(
                vertical=True, name="vertical", thickness=self.scrollbar_size_vertical
            )
            bar.display = False
            self.app._start_widget(self, bar)
        return bar


class PaneBox(VerticalScroll, DrawnVerticalBar):
    """A scrolling column (the detail panes' box) whose bar draws its own lines: a bar drawn
    before still took a frame 0.16 ms through the styles cache, 0.08 ms this way."""
