"""The log pane: the tail of the encounter's log on the line API, one cached ``Strip`` per line.

Its reactive ``encounter`` follows the screen's: it shows that encounter's log when the log is
another object than the one shown (a key press that only moved the cursor leaves it alone),
coloured by kind.

``RichLog`` refreshes the whole widget and changes its virtual size on every write past
``max_lines``, and scrolls to the end after the next frame, so a key press costs a layout pass,
repaints of its scroll bar and a second frame. This pane keeps the last ``keep`` lines (entries are
rendered once, at the pane's width, and cached by entry), shows them scrolled to the end, and on
``show`` repaints only the lines whose strip changed. Its virtual size only changes while the log
is shorter than ``keep`` lines; undo drops the undone lines and refills older ones from the log.

A filter (``set_filter``: the lines of one kind, those naming one combatant) shows only the entries
it keeps, found once per entry as the log grows; the pane's title says which.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from rich.text import Text
from textual.geometry import Region, Size
from textual.reactive import Reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip

from facility_tui.model.encounter import Encounter, Kind, LogEntry
from facility_tui.model.text import naming_any, printable

from ..render.lines import text_lines
from ..render.own_lines import OwnLines

KIND_STYLE = {
    Kind.INFO: "",
    Kind.ROLL: "cyan",
    Kind.OVERRIDE: "yellow",
    Kind.EFFECT: "magenta",
    Kind.TURN: "bold green",
}


# The kinds the log can be narrowed to (``e`` in the app cycles through them), and their titles.
KIND_FILTERS: tuple[tuple[str, frozenset[Kind]], ...] = (
    ("rolls", frozenset({Kind.ROLL})),
    ("harm & effects", frozenset({Kind.EFFECT})),
    ("turns", frozenset({Kind.TURN})),
    ("GM overrides", frozenset({Kind.OVERRIDE})),
)


def naming(name: str) -> Callable[[LogEntry], bool]:
    """Keeps the entries that name this combatant as a whole word ("Boarder 1", not 10)."""
    pattern = naming_any([name])
    return lambda e: pattern is not None and pattern.search(e.text) is not None


def entry_text(e: LogEntry) -> Text:
    """A log entry as shown: plain text, never markup; control characters from an old save are
    shown escaped."""
    if e.round < 0:  # a note of the pane's own (an empty filter), not an entry of the fight
        return Text(e.text, style="italic")
    return Text(f"[{e.round}] {printable(e.text)}", style=KIND_STYLE.get(e.kind, ""))


class LogPane(OwnLines, ScrollView):
    DEFAULT_CSS = """
    LogPane {
        overflow-x: hidden;
        overflow-y: auto;
        scrollbar-gutter: stable;  /* the wrap width does not change when the scroll bar shows */
    }
    """
    # A longer log (while it is shorter than ``keep`` lines) needs its scroll bar's thumb
    # resized, not a layout pass of the whole screen; ``show`` asks for one when the bar
    # appears or goes.
    virtual_size = Reactive(Size(0, 0), layout=False)

    encounter: Reactive[Encounter | None] = Reactive(
        None, repaint=False, always_update=True, compute=False
    )

    def __init__(
        self, *, keep: int = 200, id: str | None = None, classes: str | None = None
    ) -> None:
        super().__init__(id=id, classes=classes)
        self.keep = keep
        self._bound_log: Sequence[LogEntry] | None = None  # the encounter's log last shown
        self._log: Sequence[LogEntry] = ()
        self._shown: Sequence[LogEntry] = ()  # the log ``lines`` were made from
        self._tail_width = -1
        self._cache: dict[int, tuple[LogEntry, list[Strip]]] = {}  # id(entry) -> entry, lines
        self._width = -1  # the width cached strips were rendered at
        self.lines: list[Strip] = []  # the shown tail, at most ``keep`` lines
        self._source: Sequence[LogEntry] = ()  # the whole log, before a filter
        self._kind = -1  # index in KIND_FILTERS, -1: every kind
        self._who = ""  # the combatant whose lines are shown ("" every line)
        self._keeps: Callable[[LogEntry], bool] | None = None
        self._kept_from: Sequence[LogEntry] = ()  # the log ``_kept`` was filtered from
        self._kept: list[LogEntry] = []
        self._none = (LogEntry(-1, "(no such lines yet)"),)  # an empty filter's view
        self.border_title = "Log"

    # -- public API ---------------------------------------------------------------------------

    def watch_encounter(self, enc: Encounter | None) -> None:
        if enc is not None and enc.log is not self._bound_log:
            self._bound_log = enc.log
            self.show(enc.log)  # repaints only the lines that changed

    def cycle_kind(self) -> Text:
        """Show the next kind of line (rolls, harm, turns, overrides), then every kind again."""
        self._kind = self._kind + 1 if self._kind + 1 < len(KIND_FILTERS) else -1
        return self._refilter()

    def toggle_who(self, name: str) -> Text:
        """Show only the lines naming ``name``; the same name again (or "") shows every line."""
        self._who = "" if not name or name == self._who else name
        return self._refilter()

    def _refilter(self) -> Text:
        kinds = KIND_FILTERS[self._kind][1] if self._kind >= 0 else None
        who = naming(self._who) if self._who else None
        if kinds is None and who is None:
            self._keeps = None
        else:
            self._keeps = lambda e: (kinds is None or e.kind in kinds) and (who is None or who(e))
        self._kept_from, self._kept = (), []
        self._shown = ()  # a new view: rendered whole
        title = self.title()
        self.border_title = title
        self.show(self._source)
        return title

    def title(self) -> Text:
        """The log's title with its filter. A Text: Textual reads a string border title as
        markup, and the filter names a combatant ("[/]Boss" must show as typed)."""
        parts = [KIND_FILTERS[self._kind][0]] if self._kind >= 0 else []
        if self._who:
            parts.append(printable(self._who))
        return Text("Log: " + " · ".join(parts) + " (e, c: all)" if parts else "Log")

    def _view(self, log: Sequence[LogEntry]) -> Sequence[LogEntry]:
        """The last ``keep`` entries the filter keeps (the pane shows no more lines than that);
        for a log that grew, only the new entries are looked at, and a new filter reads the log
        back from its end only as far as it needs (a long campaign's log is not read whole)."""
        keeps = self._keeps
        if keeps is None:
            return log
        was = self._kept_from
        if 0 < len(was) <= len(log) and log[len(was) - 1] is was[-1]:
            new = [e for e in log[len(was) :] if keeps(e)]
            if new:
                self._kept = (self._kept + new)[-self.keep :]
        else:
            found: list[LogEntry] = []
            for e in reversed(log):
                if keeps(e):
                    found.append(e)
                    if len(found) >= self.keep:
                        break
            self._kept = found[::-1]
        self._kept_from = log
        return self._kept or self._none

    def show(self, log: Sequence[LogEntry]) -> None:
        """Show the tail of this log; repaint only the lines that changed."""
        self._source = log
        log = self._view(log)
        self._log = log
        width = self.scrollable_content_region.width
        if width <= 0:
            return  # not laid out yet: ``on_resize`` renders
        if width != self._width:
            self._cache.clear()
            self._width = width
        old = self.lines
        self.lines = self._tail(log, width)
        size = Size(width, len(self.lines))
        height = self.scrollable_content_region.height
        resized = size != self.virtual_size
        if resized:
            scrolls = self.virtual_size.height > height
            self.virtual_size = size
            if (size.height > height) != scrolls:
                self.refresh(layout=True)  # the scroll bar shows (or goes): lay it out
            elif self.show_vertical_scrollbar:
                self.vertical_scrollbar.window_virtual_size = size.height
        top = max(0, len(self.lines) - height)
        scrolled = round(self.scroll_y) != top
        if scrolled:
            self.scroll_to(y=top, animate=False, immediate=True, force=True)
        if resized or scrolled:
            self.refresh()
            return
        # Same length, same scroll: repaint the rows whose strip is another one.
        lines, width = self.lines, self.size.width
        changed = [
            Region(0, y, width, 1)
            for y, i in enumerate(range(top, top + height))
            if (old[i] if i < len(old) else None) is not (lines[i] if i < len(lines) else None)
        ]
        if changed:
            self.refresh(*changed)

    # -- rendering ----------------------------------------------------------------------------

    def _entry_lines(self, entry: LogEntry, width: int) -> list[Strip]:
        kept = self._cache.get(id(entry))
        if kept is not None and kept[0] is entry:
            return kept[1]
        strips = text_lines(self.app.console, entry_text(entry), width) or [Strip.blank(width)]
        self._cache[id(entry)] = (entry, strips)
        return strips

    def _tail(self, log: Sequence[LogEntry], width: int) -> list[Strip]:
        shown, lines = self._shown, self.lines
        self._shown = log
        if (
            width == self._tail_width
            and 0 < len(shown) <= len(log)
            and log[len(shown) - 1] is shown[-1]
        ):  # grown (the usual key press): render only the new entries
            if len(self._cache) > 4 * self.keep:
                self._cache.clear()  # (entries are cached for undo's redraw; keep that bounded)
            added = self._last_lines(log[len(shown) :], width)
            if not added:
                return lines
            lines = lines + added
            return lines[-self.keep :] if len(lines) > self.keep else lines
        self._tail_width = width
        return self._full_tail(log, width)

    def _last_lines(self, entries: Sequence[LogEntry], width: int) -> list[Strip]:
        """The lines of these entries, but only as many of the last as the pane keeps (a
        command that logs a thousand lines renders the last ``keep``)."""
        chunks: list[list[Strip]] = []
        count = 0
        for entry in reversed(entries):
            chunks.append(self._entry_lines(entry, width))
            count += len(chunks[-1])
            if count >= self.keep:
                break
        return [strip for chunk in reversed(chunks) for strip in chunk]

    def _full_tail(self, log: Sequence[LogEntry], width: int) -> list[Strip]:
        chunks: list[list[Strip]] = []
        count = 0
        used: dict[int, tuple[LogEntry, list[Strip]]] = {}
        for entry in reversed(log):
            strips = self._entry_lines(entry, width)
            used[id(entry)] = (entry, strips)
            chunks.append(strips)
            count += len(strips)
            if count >= self.keep:
                break
        self._cache = used  # drop what is no longer shown (and keep ids unique)
        lines = [strip for chunk in reversed(chunks) for strip in chunk]
        return lines[-self.keep :] if len(lines) > self.keep else lines

    def on_resize(self) -> None:
        if self.scrollable_content_region.width != self._width:
            self.show(self._source)
        # The first layout can clamp ``show``'s scroll (sizes not settled yet): end up at the end.
        self.scroll_end(animate=False, immediate=False, x_axis=False, force=True)

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self.refresh()

    def strips(self, ys: range) -> list[Strip]:
        top = self.scroll_offset.y
        width = self.scrollable_content_region.width
        return self.styled(self.lines, range(top + ys.start, top + ys.stop), width)
