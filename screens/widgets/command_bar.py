"""The command bar: type any command as text (``:``), with the lines typed before a key away."""

from __future__ import annotations

from collections.abc import Callable

from rich.cells import cell_len
from rich.text import Text
from textual import events
from textual.binding import Binding
from textual.geometry import Size
from textual.reactive import Reactive
from textual.strip import Strip
from textual.timer import Timer
from textual.widgets import Input

from facility_tui.systems import info

from ..render.lines import fit, text_lines

HISTORY = 100
GAP = 3  # cells between the typed line and its preview
MIN_BESIDE = 8  # cells the preview needs after the typed line to start there, not below it
PREVIEW_LINES = 3  # lines the preview may take below the typed line on the smallest screen
KEEP_ABOVE = 6  # rows a long preview leaves to the screen (header, a row of the list, keys)
SHRINK_AFTER = 0.6  # s without a key before the bar gives back rows its preview no longer needs


def placeholder_for(system: str) -> str:
    """The idle line's hint, with an example the encounter's rules take."""
    example = info(system).add_example if system else "add Thug init=2d6"
    return f": command  (e.g. {example}; ? lists them all)"


class CommandBar(Input):
    # Input sets its virtual size (the text's width, for scrolling the line) on every change of
    # its value; Widget's asks for a layout pass of the whole screen then (the confirm that
    # clears the line pays it). The bar is one docked line whose size never depends on it.
    virtual_size = Reactive(Size(0, 0), layout=False)

    # Its look when it has focus is a component class set inline on focus and blur: a restyle
    # through the stylesheet (what ``:focus`` costs) restyles the bar and leaves hundreds of
    # objects for the garbage collector at every confirm.
    COMPONENT_CLASSES = Input.COMPONENT_CLASSES | {"command-bar--focused"}

    BINDINGS = [
        Binding("enter", "submit", "Run"),
        Binding("escape", "cancel", "Close"),
        Binding("up", "history(-1)", "Earlier lines", key_display="↑↓"),
        Binding("down", "history(1)", "Later", show=False),
        Binding("tab", "complete", "Complete a name", show=False),
    ]

    def __init__(
        self,
        *,
        run: Callable[[str], None],
        cancel: Callable[[], None],
        preview: Callable[[str], list[str]] | None = None,
        complete: Callable[[str], str | None] | None = None,
        id: str | None = None,
    ) -> None:
        super().__init__(
            placeholder=placeholder_for(""),
            select_on_focus=False,
            id=id,
        )
        self.history: list[str] = []
        self._at = 0
        self._run = run  # what enter does with the line
        self._cancel = cancel  # what escape does after clearing it (moves focus, at once)
        self._say = preview  # what the typed line would do (the core's, never raising)
        self._complete = complete  # the line with the catalog name at its end completed
        self.preview = ""  # shown after the line, dimmed, as the GM types
        self._idle_line: tuple[tuple[int, str], Strip] | None = None
        self._preview_lines: tuple[object, tuple[int, Strip | None, list[Strip]]] | None = None
        self._below = 0  # the preview's lines below the typed one, as last laid out
        self._shrink: Timer | None = None  # gives back rows once the GM stops typing
        # A steady cursor: a blink redraws the screen twice a second, and a key pressed just
        # after one waits for the next frame slot (up to a frame) to show what it did.
        self.set_reactive(Input.cursor_blink, False)

    def watch_has_focus(self, _has_focus: bool) -> None:
        """No restyle: ``_on_focus`` and ``_on_blur`` set the one style that changes."""

    def _on_focus(self, _event: events.Focus) -> None:
        self.styles.background = self.get_component_styles("command-bar--focused").background

    def _on_blur(self, event: events.Blur) -> None:
        # Only the colour changes. Input's handler would post a Blurred (read by no one) and
        # Widget's a DescendantBlur up to the app (for ``:focus-within``, used by no style here):
        # two more message hops before the confirm's frame.
        event.prevent_default()
        self.has_focus = False
        self.styles.background = None  # back to the stylesheet's

    def watch_value(self, value: str) -> None:
        """Say what the line would do before Enter: the preview follows every change."""
        said: list[str] = []
        if self._say is not None and value.strip():
            try:
                said = self._say(value)
            except Exception:  # a preview is a courtesy: a bug in one shows nothing
                said = []
        self.preview = " │ ".join(said)
        self._fit_height()

    def _fit_height(self) -> None:
        """The bar grows by the preview's lines below the typed one at once, and shrinks when
        the line is emptied, or once the GM has stopped typing for a moment: while the GM
        types, the screen above it stays where it is (a usage on two lines, then a one-line
        preview, moved every row once a digit, and laying the screen out again is most of a
        digit's frame)."""
        if not self.is_attached:
            return
        below = self._rows_below()
        if below > self._below or (below < self._below and not self.value):
            self._set_below(below)
        elif below < self._below:  # (each key puts the moment off)
            if self._shrink is not None:
                self._shrink.stop()
            self._shrink = self.set_timer(SHRINK_AFTER, self._shrink_now)

    def _rows_below(self) -> int:
        """The rows the preview takes below the typed line now."""
        return len(self._said(self.scrollable_content_region.width)[2])

    def _shrink_now(self) -> None:
        self._shrink = None
        if (below := self._rows_below()) < self._below:
            self._set_below(below)

    def _set_below(self, below: int) -> None:
        if self._shrink is not None:
            self._shrink.stop()
            self._shrink = None
        # A height set here, not ``auto``: with an auto height Input lays the whole screen out
        # again at every key typed.
        self._below = below
        self.styles.height = 1 + below

    def render_line(self, y: int) -> Strip:
        # The idle line (no focus, nothing typed: the placeholder) is drawn once; Input would
        # lay it out again every time the bar is repainted, as it is at every confirm.
        if y or self.value or self.has_focus:
            if y:  # the preview's lines below the typed one (Input draws one line)
                width = self.scrollable_content_region.width
                below = self._said(width)[2]
                line = below[y - 1] if y <= len(below) else Strip([])
                return fit(line.apply_style(self.rich_style), width, self.rich_style)
            line = super().render_line(y)
            return self._with_preview(line) if self.preview else line
        key = (self.scrollable_content_region.width, self.placeholder)
        if self._idle_line is None or self._idle_line[0] != key:
            self._idle_line = (key, super().render_line(0))
        return self._idle_line[1]

    def on_resize(self, event: events.Resize) -> None:
        self._fit_height()  # another width: the preview may wrap to more or fewer lines

    def _said(self, width: int) -> tuple[int, Strip | None, list[Strip]]:
        """The preview laid out at ``width`` (as text: a name in it is never markup): the column
        it starts at on the typed line, its part there (None: it all goes below), and its lines
        below the typed one. It wraps there rather than being cut: it takes the rows it needs,
        up to the screen's height but ``KEEP_ABOVE`` rows (never fewer than ``PREVIEW_LINES``)."""
        end = cell_len(self.value) + 1 - round(self.scroll_x) + GAP  # (past the cursor)
        style = self.get_component_rich_style("input--suggestion")
        key = (self.preview, end, width, style, self.screen.size.height)
        if self._preview_lines is not None and self._preview_lines[0] == key:
            return self._preview_lines[1]
        said: tuple[int, Strip | None, list[Strip]] = (end, None, [])
        if self.preview and width > 0:
            console = self.app.console
            first_word = self.preview.split(" ", 1)[0]  # (not folded in two)
            beside = width - end >= max(MIN_BESIDE, cell_len(first_word))
            text = Text(" " * end if beside else "", style=style, end="")
            text.append(self.preview)
            lines = text_lines(console, text, width)
            most = max(PREVIEW_LINES, self.screen.size.height - KEEP_ABOVE)
            if len(lines) > most + beside:  # (a screen too small for it: said cut)
                lines = lines[: most + beside]
                more = Text(lines[-1].text.rstrip() + " …", style=style, no_wrap=True)
                more.overflow = "ellipsis"
                lines[-1] = text_lines(console, more, width)[0]  # (said: there is more)
            said = (end, lines[0].crop(end), lines[1:]) if beside else (end, None, lines)
        self._preview_lines = (key, said)
        return said

    def _with_preview(self, line: Strip) -> Strip:
        """The preview's first line after the typed line and the cursor."""
        end, first, _below = self._said(self.scrollable_content_region.width)
        if first is None:
            return line
        first = first.apply_style(self.rich_style)
        return Strip.join([line.crop(0, end), first, line.crop(end + first.cell_length)])

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._idle_line = None

    async def action_submit(self) -> None:
        # Called, not posted as a Submitted message: the confirm that ends every damage entry
        # would otherwise wait for the message to reach the screen.
        self._run(self.value)

    def open(self, prefill: str = "", cursor: int | None = None) -> None:
        """Focus the line with ``prefill`` in it, the cursor at ``cursor`` (its end: None)."""
        self.value = prefill
        self.cursor_position = len(prefill) if cursor is None else cursor
        self._at = len(self.history)
        # Focus now, not after the keys already queued (``focus`` waits its turn): a fast "d12⏎"
        # must type 12 here, not spend a Major and a Move on the list.
        self.screen.set_focus(self)

    def close(self, remember: bool = True) -> None:
        """Clear the line; ``remember`` it for ↑ (a line run is; one cancelled is not)."""
        line = self.value.strip()
        if line and remember:
            self.history.append(line)
            del self.history[:-HISTORY]
        self.value = ""  # (its watchers clear the preview and scroll the line back to its start)

    def keep(self) -> None:
        """Leave the line as typed so the GM can correct it."""
        self.focus()

    def action_cancel(self) -> None:
        self.close(remember=False)
        self._cancel()

    def action_complete(self) -> None:
        """Tab: the combatant, weapon, armor, PPE... name being typed before the cursor, completed
        as far as the names that fit agree (``weapon=sub`` → ``weapon="Submachine gun"``); what
        follows the cursor stays (``t`` leaves it before the target: ``attack bl⇥ boarder-1``)."""
        if self._complete is None:
            return
        at = self.cursor_position
        head, rest = self.value[:at], self.value[at:]
        if rest and not rest.startswith(" "):
            return  # (inside a word: nothing ends there)
        done = self._complete(head)
        if done:
            if rest and done.endswith(" "):
                done = done[:-1]  # (the space after it is the line's own)
            self.value = done + rest
            self.cursor_position = len(done)

    def action_history(self, step: int) -> None:
        if not self.history:
            return
        self._at = max(0, min(len(self.history), self._at + step))
        self.value = self.history[self._at] if self._at < len(self.history) else ""
        self.cursor_position = len(self.value)
