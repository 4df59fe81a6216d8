"""The campaign browser (``o``): each encounter of the campaign folder with its rules, name, state,
combatants and last change, newest first; typing filters; duplicate, rename, archive and restore,
each undone by ``u`` (``facility_tui.campaign.files``); enter opens.

Every line is one row, cut at the dialog's edge (a long name gives way first): names and file
names are data, shown as plain text with any control character escaped.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from rich.table import Table
from rich.text import Text
from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Label, OptionList
from textual.widgets.option_list import Option

from facility_tui.campaign import files
from facility_tui.campaign.folder import Campaign
from facility_tui.campaign.summaries import Summary, summaries, when
from facility_tui.model.text import printable
from facility_tui.systems import ids, info

from .toasts import ToastsHiddenWhenCovered
from .widgets.key_bar import KeyBar

GAP = 2  # cells between two columns


class FilterInput(Input):
    """The filter line: what is typed filters the list; its keys move in the list and open."""

    BINDINGS = [
        Binding("enter", "screen.open", "Open"),
        Binding("down", "screen.cursor(1)", "Down", show=False),
        Binding("up", "screen.cursor(-1)", "Up", show=False),
        Binding("tab", "screen.to_list", "The list's keys"),
        Binding("escape", "screen.clear_filter", "Clear"),
    ]


class BrowserScreen(ToastsHiddenWhenCovered, ModalScreen[Path | None]):
    """Dismisses with the save to open, or None. ``current``: the save shown in this window
    (never renamed or archived from here); ``settle``: called before a save is copied (the
    shown one's last change is written first)."""

    BINDINGS = [
        Binding("enter", "open", "Open", priority=True, id="browser_open"),  # (the list's too)
        Binding("slash", "filter", "Filter", id="browser_filter"),
        Binding("d", "duplicate", "Duplicate", id="browser_duplicate"),
        Binding("r", "rename", "Rename", id="browser_rename"),
        Binding("a", "archive", "Archive", id="browser_archive"),
        Binding("a", "restore", "Restore", id="browser_restore"),
        Binding("v", "view(True)", "Archived", id="browser_archived"),
        Binding("v", "view(False)", "Campaign", id="browser_campaign"),
        Binding("u", "undo", "Undo", id="browser_undo"),
        Binding("escape", "close", "Close", id="browser_close"),
        Binding("j", "cursor(1)", "Down", show=False, id="browser_down"),
        Binding("k", "cursor(-1)", "Up", show=False, id="browser_up"),
    ]

    def __init__(
        self, folder: Path, current: Path, settle: Callable[[], object] | None = None
    ) -> None:
        super().__init__()
        self.folder = folder
        self.current = current
        self.settle = settle
        self.archived = False  # the archived view
        self.shown: list[Summary] = []
        self.every: list[Summary] | None = None  # the view's encounters, read once a change
        self.done: list[files.Done] = []  # this visit's operations, for u

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog browser"):
            yield Label("", id="browser-title")
            yield FilterInput(
                placeholder="type to filter: name, rules, state, file",
                id="filter",
                select_on_focus=False,  # (the key that started it stays typed)
            )
            yield OptionList(id="saves", markup=False)
            yield KeyBar(id="browser-keys")

    def on_mount(self) -> None:
        self.refill()
        self.query_one(OptionList).focus()

    # -- the list -----------------------------------------------------------------------------

    def refill(self, keep: Path | None = None, *, read: bool = True) -> None:
        """List the encounters again (after an operation, the view changed; a filter typed:
        not ``read``, the files as last read), the highlight on ``keep`` if it is listed, else
        on the one highlighted before."""
        listed = self.query_one(OptionList)
        at = listed.highlighted
        if keep is None and self.shown and at is not None:
            keep = self.shown[min(at, len(self.shown) - 1)].path
        where = Campaign(self.folder).archive if self.archived else self.folder
        words = self.query_one(FilterInput).value
        if read or self.every is None:
            self.every = summaries(where)
        every = self.every
        self.shown = [s for s in every if s.matches(words)]
        listed.set_options(self._rows(self.shown))
        paths = [s.path for s in self.shown]
        if keep in paths:
            listed.highlighted = paths.index(keep)
        elif paths:  # (gone from the view, archived or restored: the row that took its place)
            listed.highlighted = min(at or 0, len(paths) - 1)
        else:
            listed.highlighted = None
        title = "Archived encounters" if self.archived else "Encounters of the campaign"
        count = f"{len(self.shown)} of {len(every)}" if words.strip() else str(len(every))
        self.query_one("#browser-title", Label).update(
            Text.assemble((title, "bold"), f" ({count})  ", (printable(str(where)), "dim"))
        )
        self.refresh_bindings()

    def _rows(self, shown: list[Summary]) -> list[Option]:
        if not shown:
            empty = (
                "No encounter matches the filter"
                if self.query_one(FilterInput).value
                else ("Nothing archived" if self.archived else "No encounters yet")
            )
            return [Option(Text(empty, style="dim"), disabled=True)]
        cells = [self._cells(s) for s in shown]
        widths = [max(len(row[i]) for row in cells) for i in range(5)]
        out = []
        for s, row in zip(shown, cells, strict=True):
            grid = Table.grid(padding=(0, GAP), expand=True)
            for i, width in enumerate(widths):
                if i == 1:  # the name: the rest of the row, cut first
                    grid.add_column(ratio=1, no_wrap=True, overflow="ellipsis", min_width=8)
                else:
                    right = i == len(widths) - 1  # the last change, against the edge
                    grid.add_column(
                        width=width,
                        no_wrap=True,
                        overflow="ellipsis",
                        justify="right" if right else "left",
                    )
            styles = ["dim", "bold" if s.path == self.current else "", "", "dim", "dim"]
            if s.problem:
                styles[2] = "bold red"
            grid.add_row(*(Text(c, style=st) for c, st in zip(row, styles, strict=True)))
            out.append(Option(grid))
        return out

    def _cells(self, s: Summary) -> list[str]:
        system = info(s.system).title if s.system in ids() else printable(s.system or "?")
        name = printable(s.path.name if s.problem else s.name)  # (unreadable: its file's)
        # the one open here marked in a margin every name has: the names stay in line
        name = f"{'▶' if s.path == self.current else ' '} {name}"
        return [system, name, s.state, s.combatants, when(s.changed)]

    def selected(self) -> Summary | None:
        listed = self.query_one(OptionList)
        at = listed.highlighted
        return self.shown[at] if at is not None and 0 <= at < len(self.shown) else None

    # -- keys ---------------------------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "view":  # (two bindings: the key line names the view v goes to)
            return parameters[0] != self.archived
        if action == "archive":
            return not self.archived
        if action in ("restore",):
            return self.archived
        if action in ("duplicate", "rename"):
            return None if self.archived else True  # (shown greyed in the archived view)
        if action == "undo":
            return True if self.done else None
        return True

    def on_key(self, event: events.Key) -> None:
        """A printable key no binding takes starts the filter with it (``cargo`` filters)."""
        listed = self.query_one(OptionList)
        if self.focused is not listed or not event.is_printable or event.character is None:
            return
        if event.key in self.active_bindings or event.character.isspace():
            return
        event.stop()
        event.prevent_default()
        field = self.query_one(FilterInput)
        field.focus()
        field.insert_text_at_cursor(event.character)

    @on(Input.Changed, "#filter")
    def _filtered(self) -> None:
        self.refill(read=False)

    @on(OptionList.OptionSelected)
    def _chosen(self) -> None:
        self.action_open()

    def action_cursor(self, step: int) -> None:
        listed = self.query_one(OptionList)
        if step > 0:
            listed.action_cursor_down()
        else:
            listed.action_cursor_up()

    def action_filter(self) -> None:
        self.query_one(FilterInput).focus()

    def action_to_list(self) -> None:
        self.query_one(OptionList).focus()

    def action_clear_filter(self) -> None:
        self.query_one(FilterInput).value = ""
        self.action_to_list()

    def action_close(self) -> None:
        field = self.query_one(FilterInput)
        if field.value:  # escape clears the filter first
            field.value = ""
            return
        self.dismiss(None)

    def action_open(self) -> None:
        chosen = self.selected()
        if chosen is None:
            return
        if self.archived:
            self._refuse(f"{chosen.path.name} is archived: a restores it, then enter opens it")
            return
        self.dismiss(chosen.path)

    def action_view(self, archived: bool) -> None:
        self.archived = archived
        self.shown = []
        self.refill()

    def action_duplicate(self) -> None:
        chosen = self.selected()
        if chosen is None or self.archived:
            return
        if chosen.path == self.current and self.settle is not None:
            self.settle()  # the shown fight's last change is on disk before it is copied
        self._run(lambda: files.duplicate(chosen.path))

    def action_rename(self) -> None:
        chosen = self.selected()
        if chosen is None or self.archived or not self._may_change(chosen, "renamed"):
            return

        def rename(name: str) -> str | None:
            try:
                done = files.rename(chosen.path, name)
            except files.CampaignError as err:
                return str(err)
            self._did(done)
            return None

        self.app.push_screen(RenameDialog(chosen.name, rename))

    def action_archive(self) -> None:
        chosen = self.selected()
        if chosen is not None and self._may_change(chosen, "archived"):
            self._run(lambda: files.archive(chosen.path))

    def action_restore(self) -> None:
        chosen = self.selected()
        if chosen is not None:
            self._run(lambda: files.restore(chosen.path))

    def action_undo(self) -> None:
        if not self.done:
            return
        last = self.done[-1]
        try:
            back = files.undo(last)
        except files.CampaignError as err:
            self._refuse(str(err))
            return
        self.done.pop()
        self.notify(back.message)
        self.refill(back.path)

    # -- doing --------------------------------------------------------------------------------

    def _may_change(self, chosen: Summary, done: str) -> bool:
        if chosen.path == self.current:
            self._refuse(
                f"{chosen.path.name} is open in this window: it cannot be {done} "
                "(open another encounter first)"
            )
            return False
        return True

    def _run(self, operation: Callable[[], files.Done]) -> None:
        try:
            done = operation()
        except files.CampaignError as err:
            self._refuse(str(err))
            return
        self._did(done)

    def _did(self, done: files.Done) -> None:
        self.done.append(done)
        self.notify(f"{done.message}; u undoes it")
        self.refill(done.path)

    def _refuse(self, message: str) -> None:
        self.notify(message, severity="error", timeout=8)


class RenameDialog(ModalScreen[None]):
    """The encounter's new name; ``rename`` renames it, or returns why not (the dialog stays
    open to be corrected)."""

    AUTO_FOCUS = "#name"
    BINDINGS = [Binding("escape", "cancel", "Cancel")]

    def __init__(self, name: str, rename: Callable[[str], str | None]) -> None:
        super().__init__()
        self.old = name
        self.rename = rename

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Label(Text.assemble(("Rename ", "bold"), printable(self.old)))
            yield Input(value=printable(self.old), id="name", select_on_focus=False)
            yield Label("enter renames (its file too) · escape cancels", classes="hint")

    @on(Input.Submitted)
    def _submit(self, event: Input.Submitted) -> None:
        refused = self.rename(event.value)
        if refused is None:
            self.dismiss(None)
        else:
            self.notify(refused, severity="error", timeout=8)

    def action_cancel(self) -> None:
        self.dismiss(None)
