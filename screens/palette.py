"""The command palette (ctrl+p): what makes sense now on the main screen.

- the commands of the encounter's rule system: choosing one opens the command line with the verb
  typed, for the GM to finish;
- the combatants, by number and name (``#3 Sgt. Blanc``, its side in words): choosing one
  selects it in the list;
- the campaign's templates: choosing one opens the command line with ``add from=NAME``;
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

from facility_tui.commands.dispatch import help_lines, listed
from facility_tui.commands.grammar import quote
from facility_tui.model.text import printable

from .main import MainScreen
from .widgets.detail_pane import side_label
from .widgets.order_list import list_number


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


def _browse(main: MainScreen, system: str, kind: str) -> None:
    from .catalog_browser import catalog_screen

    main.app.push_screen(catalog_screen(system, kind, main.ws.folder))


class FacilityCommands(Provider):
    """The encounter's commands, its combatants and the saves, for the palette."""

    def _entries(self) -> Iterator[tuple[str, str, Callable[[], object]]]:
        """(text shown, help, what choosing it does), in the order shown with no query."""
        # (imported when the palette opens: none of them is needed for the first frame)
        from facility_tui.campaign import templates
        from facility_tui.campaign.catalogs import KINDS

        from .player_view import show_player_view
        from .sharing import sharing_of
        from .timeline import open_timeline

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
            who = main.runner.pending_for(verb)  # (``suffer``: whose failed save waits)
            yield (
                printable(usage),
                f"{summary} (opens the command line)",
                partial(main.action_command, f"{verb} {quote(who)} " if who else f"{verb} "),
            )
        if main.ws.read_only:
            watch = partial(show_player_view, main)
            yield ("Player view", "what the table may see, large (q quits)", watch)
        sharing = sharing_of(self.app)
        if sharing.serves(main.ws.path):
            yield ("Stop sharing the players' view", f"at {sharing.url}", sharing.end)
        else:
            about = "the watch view, read-only, in the browsers of the room: its address is shown"
            yield ("Share the players' view", about, partial(sharing.start, main.ws.path))
        if not main.ws.read_only:
            yield (
                "Party: list",
                "the campaign's PCs (party.toml) and how they stand",
                partial(main.run_line, "party list"),
            )
            yield (
                "Party: hand back",
                "the fight's PCs' lasting state back to party.toml: what changes, PC by PC",
                main.runner.offer_return,
            )
        report = f"{printable(main.ws.path.stem)}.md beside the save (the e key)"
        yield ("Export a report", f"the fight as Markdown: {report}", main.action_export)
        yield (
            "Forecast",
            "play the fight out 1,000 times from here: who wins, who falls (the F key)",
            main.action_forecast,
        )
        yield (
            "Timeline",
            "every step of the fight: show any, compare two, forecast, play from one (the T key)",
            partial(open_timeline, main),
        )
        for name in templates.names(main.ws.session.campaign):
            yield (
                f"Add from template {printable(name)}",
                f"templates/{printable(name)}.toml · opens the command line with add from={name}",
                partial(main.action_command, f"add from={quote(name)} "),
            )
        for kind in KINDS.get(enc.system, {}).values():
            browse = partial(_browse, main, enc.system, kind.kind)
            yield (f"Catalog: {kind.title}…", "the rules' and the campaign's, with figures", browse)
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
        Binding("ctrl+end, shift+end", "list_key('last')", "Go to bottom", show=False),
        Binding("ctrl+home, shift+home", "list_key('first')", "Go to top", show=False),
        Binding("up", "list_key('cursor_up')", "Previous command", show=False),
        Binding("down", "list_key('down')", "Next command", show=False),
    ]

    async def action_list_key(self, key: str) -> None:
        # A key pressed in a burst with ctrl+p can reach the palette before it has composed its
        # list, and Textual's list keys query it (NoMatches ended the app): until the list is
        # there they do nothing.
        if self.query(CommandList):
            await self.run_action("cursor_down" if key == "down" else f"command_list('{key}')")

    def action_page(self, direction: int) -> None:
        listed = self.query_one(CommandList) if self.query(CommandList) else None
        if listed is None or not listed.scrollable_content_region:
            return  # (not laid out yet: see above)
        if direction > 0:
            listed.action_page_down()  # type: ignore[no-untyped-call]  # (unannotated in Textual)
        else:
            listed.action_page_up()  # type: ignore[no-untyped-call]
