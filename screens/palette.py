"""The command palette (ctrl+p): what makes sense now on the main screen.

- the commands of the encounter's rule system: choosing one opens the command line with the verb
  typed, for the GM to finish;
- the combatants, by number and name (``#3 Sgt. Blanc``, its side in words): choosing one
  selects it in the list;
- the saved encounters: choosing one opens it, as ``o`` does.

Names and file names are data: every entry is a ``Content`` built from plain text, never markup.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from functools import partial
from typing import ClassVar

from textual.binding import Binding, BindingType
from textual.command import CommandList, CommandPalette, DiscoveryHit, Hit, Hits, Provider
from textual.content import Content
from textual.fuzzy import Matcher
from textual.markup import escape

from facility_tui.dispatch import help_lines, listed
from facility_tui.grammar import quote
from facility_tui.text import printable

from .detail_pane import side_label
from .main import MainScreen
from .order_list import list_number


def _highlight(matcher: Matcher, text: str) -> Content:
    """``text`` with the letters the query matched highlighted (``Matcher.highlight`` would read
    the text as markup)."""
    content = Content(text)
    score, offsets = matcher.fuzzy_search.match(matcher.query, text)
    if score:
        for offset in offsets:
            if not text[offset].isspace():
                content = content.stylize(matcher.match_style, offset, offset + 1)
    return content


class FacilityCommands(Provider):
    """The encounter's commands, its combatants and the saves, for the palette."""

    def _entries(self) -> Iterator[tuple[str, str, Callable[[], object]]]:
        """(text shown, help, what choosing it does), in the order shown with no query."""
        main = self.screen
        if not isinstance(main, MainScreen):
            return  # (a dialog is open: nothing here applies to it)
        enc = main.ws.encounter
        for i, c in enumerate(listed(enc), 1):
            number = list_number(enc, c, i)  # (as the list's # column shows it)
            side = side_label(c.side)
            text = f"#{number} {printable(c.name)}" if number != "-" else printable(c.name)
            yield (text, f"{side} · select it", partial(main.table.move_to, c.id))
        for usage, summary in help_lines(enc.system):
            verb = usage.split()[0]
            who = main.pending_for(verb)  # (``suffer``: whose failed save waits)
            yield (
                printable(usage),
                f"{summary} (opens the command line)",
                partial(main.action_command, f"{verb} {quote(who)} " if who else f"{verb} "),
            )
        if main.ws.read_only:
            yield ("Player view", "what the table may see, large (q quits)", main.player_view)
        if not main.ws.read_only:
            yield (
                "Party: list",
                "the campaign's PCs (party.toml) and how they stand",
                partial(main.run_line, "party list"),
            )
            yield (
                "Party: hand back",
                "the fight's PCs' lasting state back to party.toml: what changes, PC by PC",
                main.offer_return,
            )
        report = f"{printable(main.ws.path.stem)}.md beside the save (the e key)"
        yield ("Export a report", f"the fight as Markdown: {report}", main.action_export)
        for path in main.ws.saves():
            if path != main.ws.path:
                yield (
                    f"Open {printable(path.stem)}",
                    f"saved encounter · {printable(path.name)}",
                    partial(main.open_path, path),
                )

    async def discover(self) -> Hits:
        for text, help, command in self._entries():
            yield DiscoveryHit(Content(text), command, text=text, help=escape(help))

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for text, help, command in self._entries():
            score = matcher.match(text)
            if score > 0:
                yield Hit(score, _highlight(matcher, text), command, text=text, help=escape(help))


class Palette(CommandPalette):
    """Textual's command palette, its page keys guarded.

    Upstream cause (Textual 8.2, ``OptionList._move_page``, see ``internals``): a page key reads
    the list's map of lines, which the list builds only once it has a size. The palette's list
    is refilled by a worker as the query changes; refilled from empty (the palette opening, or a
    query that matched nothing), it has no size until the next layout, and a page key queued
    in between raised ``KeyError: 0`` and ended the app. Until the list has its size there is
    no page to move by: the key does nothing (its other keys, up and down, first and last, are
    safe then)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("pagedown", "page(1)", "Next page", show=False),
        Binding("pageup", "page(-1)", "Previous page", show=False),
    ]

    def action_page(self, direction: int) -> None:
        listed = self.query_one(CommandList)
        if not listed.scrollable_content_region:
            return  # (not laid out yet: see above)
        if direction > 0:
            listed.action_page_down()  # type: ignore[no-untyped-call]  # (unannotated in Textual)
        else:
            listed.action_page_up()  # type: ignore[no-untyped-call]
