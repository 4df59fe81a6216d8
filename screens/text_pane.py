"""A pane that shows one Rich ``Text``, rendered by Rich once per change into cached strips.

``Static`` converts Rich text into Textual ``Content`` and renders it again on every repaint of
its lines; on the main screen, where a key press repaints the whole screen (the status line and the
log both change), that cost 1–3 ms a pane. This renders the text once per update (and per width)
and lays the screen out again only when its height changes.
"""

from __future__ import annotations

from rich.text import Text
from textual.geometry import Region, Size
from textual.reactive import Reactive
from textual.strip import Strip
from textual.widget import Widget


class TextPane(Widget):
    DEFAULT_CSS = """
    TextPane {
        height: auto;
    }
    """
    # The pane does not scroll: its virtual size follows its size, and a change of it (which a
    # new height brings) must not ask for a second layout pass of the screen.
    virtual_size = Reactive(Size(0, 0), layout=False)

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self._text = Text()
        self._strips: list[Strip] = []
        self._width = -1  # the width ``_strips`` were rendered at (-1: not rendered)

    @property
    def text(self) -> Text:
        return self._text

    def update(self, text: Text) -> None:
        if text == self._text and text.style == self._text.style:
            return
        self._text = text
        width = self.size.width
        old, self._width = self._strips, -1
        if not width:
            self.refresh(layout=True)
            return
        new, height = self._lines(width), self.size.height
        # Its height is the text's, or its min-height if that is more (a pane filling its box).
        if len(new) > height or (len(new) < height and len(old) >= height):
            self.refresh(layout=True)
            return
        # Same height: repaint only the lines that look different.
        top, outer = self.styles.gutter.top, self.outer_size.width
        for y in range(max(len(new), len(old))):  # (lines past a shorter text are blanked)
            if y >= len(old) or y >= len(new) or new[y] != old[y]:
                self.refresh(Region(0, top + y, outer, 1))

    def _lines(self, width: int) -> list[Strip]:
        if width != self._width:
            console = self.app.console
            options = console.options.update_width(width).update(height=None)
            lines = console.render_lines(self._text, options, pad=False)
            self._strips = [Strip(line).simplify() for line in lines]
            self._width = width
        return self._strips

    def render(self) -> Text:
        return self._text  # what the pane shows (the lines come from ``render_line``)

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return len(self._lines(width)) if width else 0

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._width = -1

    def render_line(self, y: int) -> Strip:
        width = self.size.width
        lines = self._lines(width)
        style = self.rich_style
        if y >= len(lines):
            return Strip.blank(width, style)
        return lines[y].apply_style(style).extend_cell_length(width, style)
