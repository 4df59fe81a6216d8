"""A pane that shows Rich text, rendered by Rich once per change into cached strips.

``Static`` converts Rich text into Textual ``Content``, renders all of it again at every update
and lays the screen out again: with the status line and the panes as ``Static``, ``n``, ``u`` and
a ``d`` confirm at 200 combatants miss their frame (docs/benchmarks.md). This renders the text
once per update (and per width), line by line with the lines it has drawn before reused, repaints
only the lines that changed, and lays the screen out again only when its height changes. A pane
that builds its text a line at a time hands the lines over as they are (``show_lines``): joining
them only for the pane to split them again cost the detail pane a sixth of a key's work.
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.text import Text
from textual.geometry import Region, Size
from textual.reactive import Reactive
from textual.strip import Strip

from .lines import text_lines
from .own_lines import OwnLines

MADE = 512  # lines kept rendered for reuse


class TextPane(OwnLines):
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
        self._source: Sequence[Text] = ()  # the lines shown, none holding a newline
        self._given: Text | None = None  # the text ``update`` last showed, if it did
        self._strips: list[Strip] = []
        self._width = -1  # the width ``_strips`` were rendered at (-1: not rendered)
        self._made: dict[tuple[object, ...], list[Strip]] = {}  # a line's look -> its strips

    @property
    def text(self) -> Text:
        """What the pane shows, as one text."""
        return Text("\n").join(self._source)

    def update(self, text: Text) -> None:
        """Shows ``text`` (its lines: a text that does not wrap gives lines that do not)."""
        given = self._given
        if given is not None and text == given and text.style == given.style:
            return
        lines = list(text.split("\n", allow_blank=True))
        if text.no_wrap:
            for line in lines:
                line.no_wrap = True  # (split keeps the overflow, not this)
        self.show_lines(lines)
        self._given = text

    def show_lines(self, lines: Sequence[Text]) -> None:
        """Shows ``lines``, one line of text each (a line wider than the pane wraps unless it is
        ``no_wrap``). The pane keeps them: a caller hands over lines it will not change."""
        self._given = None
        self._source = lines
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
        changed = [
            Region(0, top + y, outer, 1)
            for y in range(max(len(new), len(old)))  # (lines past a shorter text are blanked)
            if y >= len(old) or y >= len(new) or new[y] != old[y]
        ]
        if changed:
            self.refresh(*changed)

    def _lines(self, width: int) -> list[Strip]:
        if width != self._width:
            if len(self._made) > MADE:
                self._made.clear()
            self._strips = [strip for line in self._source for strip in self._line(line, width)]
            self._width = width
        return self._strips

    def _line(self, line: Text, width: int) -> list[Strip]:
        """One line of the text as strips (more than one if it wraps), made once per look.

        Most updates change a few lines of many (a detail pane's wounds, a status line's turn).
        """
        key = (line.plain, tuple(line.spans), line.style, line.overflow, line.no_wrap, width)
        made = self._made.get(key)
        if made is None:
            made = self._made[key] = text_lines(self.app.console, line, width)
        return made

    def render(self) -> Text:
        return self.text  # what the pane shows (the lines come from ``render_line``)

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return len(self._lines(width)) if width else 0

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._width = -1
        self._made.clear()  # (a line's colours may come from the theme)

    def strips(self, ys: range) -> list[Strip]:
        width = self.size.width
        return self.styled(self._lines(width), ys, width)
