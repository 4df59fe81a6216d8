"""The main screen: initiative list, detail pane, log, command bar.

The screen holds the state (``encounter``, ``selected``, ``save_state``, ``path``, ``read_only``)
and keeps the keys and their dispatch; each pane has reactives for the state it shows and renders
itself from the core's values (``View.summary`` / ``panes``, ``Turns.slot_name``) when they
change:

- ``StatusPane`` (``#status``): encounter, save_state, path, read_only;
- ``OrderList`` (``#order``): encounter; its cursor is the selection;
- ``DetailPane`` (``#detail``): encounter, selected (the acting combatant's reminders, then the
  selected one's panes: ``View.reminders`` / ``panes``);
- ``LogPane`` (``#log``): encounter (its log).

The screen's watchers hand each value to the panes that show it (``data_bind`` would do the
same at twice the cost: see ``watch_encounter``). After a change the screen sets ``encounter``
(the list, the log and the status line render), then ``selected`` from the list's cursor (the
detail renders): see ``_publish``.
"""

from __future__ import annotations

import contextlib
import gc
import re
from pathlib import Path

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.message import Message
from textual.reactive import Reactive
from textual.screen import ModalScreen, Screen
from textual.widget import Widget

from facility_tui import store
from facility_tui.bugs import internal_error
from facility_tui.campaign import templates
from facility_tui.campaign.catalogs import complete
from facility_tui.campaign.folder import Campaign
from facility_tui.commands.dice import NeedRoll
from facility_tui.commands.grammar import CommandError, quote
from facility_tui.commands.rounds import passed
from facility_tui.model.encounter import Encounter, Phase
from facility_tui.model.view import Choice
from facility_tui.systems import QuickKey, info, infos, rules_for
from facility_tui.workspace import Workspace

from .collector import EVERY as COLLECT_EVERY
from .collector import IdleCollector
from .render.scroll_bar import PaneBox
from .widgets.command_bar import CommandBar, placeholder_for
from .widgets.detail_pane import DetailPane
from .widgets.initiative import SELECTED, InitiativeList
from .widgets.key_bar import KeyBar
from .widgets.log_pane import LogPane
from .widgets.order_list import OrderList, short_forms_help
from .widgets.status_pane import StatusPane, written

HISTORY_VERBS = ("undo", "u", "redo")  # each says what it took back or put back
LOG_SHOWN = 200  # lines the log pane keeps while it grows
LINE_EDITORS = {"vi", "vim", "nvim", "view", "nano", "emacs", "micro", "kak", "joe", "mg"}

# The keys of the rule systems (``SystemInfo.quick_keys``): one binding per key, which acts by the
# encounter's system. A key both systems use has the same text in both (the key bar's text is
# fixed per key); the ones not shown are in help, to keep the key bar on one line.
QUICK_BINDINGS = {
    k.key: Binding(
        k.key, f"quick('{k.key}')", k.label, show=k.shown, priority=True, id=k.id or k.key
    )
    for each in infos()
    for k in each.quick_keys
}
SAVE_DELAY = 0.06  # s: a change is drawn first, then written (quit flushes at once)
FRAME_WAIT = 0.5  # s: a round's end is written once its frame is drawn (at the latest after this)
FOLLOW_EVERY = 0.5  # s: how often a read-only view looks for its writer's autosaves
SETTLE_AFTER = 0.2  # s: after a save opens (its first frame drawn), its undo history is replayed
# s: after the app starts, the forecast's forkserver is started (it loads the rules in a process
# of its own, ~0.5 s on the other core): the first forecast's plays then start at once
WARM_FORECAST_AFTER = 5.0
# The right column's width and the log's height follow the screen's size (styles/app.tcss):
NARROW_BELOW = 110  # columns: below, the panes' column is narrow (the list keeps the rest)
ROOMY_FROM = 160  # columns: from here, a wider column (longer bars)
TALL_FROM = 36  # rows: from here, a taller log
PANES_AT_LEAST = 24  # columns: the panes' column gives the list room down to this width


class MainScreen(Screen[None]):
    # Screen repaints all of itself when focus moves (every confirm from the command line); the
    # widget losing focus and the one gaining it repaint themselves, which is all that changes.
    focused: Reactive[Widget | None] = Reactive(None, repaint=False)

    # The state the panes show. Nothing on the screen itself repaints when it changes (each pane
    # repaints the lines it changes). ``encounter`` and ``selected`` call their watchers at
    # every assignment: the panes compare by identity (the model is immutable), where Reactive
    # would compare two encounters field by field.
    encounter: Reactive[Encounter | None] = Reactive(
        None, repaint=False, always_update=True, compute=False
    )
    selected: Reactive[str | None] = Reactive(
        None, repaint=False, always_update=True, compute=False
    )
    save_state: Reactive[str] = Reactive("", repaint=False, compute=False)
    path: Reactive[Path | None] = Reactive(None, repaint=False, compute=False)
    read_only: Reactive[bool] = Reactive(False, repaint=False, compute=False)

    # Every key of the screen (and of the list) is a priority binding: the app runs it as it
    # reads it, before it hands on the keys typed after it. Keys typed in one burst then act in
    # order: "jd12⏎" moves the selection before d starts the command on it, and the command line
    # has focus before 1 and 2 arrive (they type 12 there instead of spending a Major and a
    # Move). While the line has focus, the keys it types are its own (Textual leaves printable
    # keys to a focused Input), and so is delete (``check_action``).
    BINDINGS = [
        Binding("n", "next", "Next", priority=True, id="next"),
        Binding("p", "prev", "Turn marker back", show=False, priority=True, id="prev"),
        Binding("s", "start", "Start", show=False, priority=True, id="start"),
        Binding("u,ctrl+z", "undo", "Undo", priority=True, id="undo"),
        Binding("ctrl+y", "redo", "Redo", show=False, priority=True, id="redo"),
        Binding("a", "add", "Add", priority=True, id="add"),
        Binding("x,delete", "remove", "Remove selected", show=False, priority=True, id="remove"),
        Binding("colon", "command", "Cmd", priority=True, id="command"),
        Binding("i", "details", "Hide or show the panes", show=False, priority=True, id="details"),
        Binding("J", "panes(1)", "Panes: a page down", show=False, priority=True, id="panes_down"),
        Binding("K", "panes(-1)", "Panes: a page up", show=False, priority=True, id="panes_up"),
        Binding("question_mark", "help", "Help", priority=True, id="help"),
        Binding("ctrl+n", "new", "New encounter", show=False, priority=True, id="new"),
        Binding(
            "o",
            "open",
            "Campaign: open, copy, rename, archive",
            show=False,
            priority=True,
            id="open",
        ),
        Binding("E", "export", "Export a report", show=False, priority=True, id="export"),
        Binding(
            "F",
            "forecast",
            "Forecast",
            show=False,
            priority=True,
            id="forecast",
            tooltip="the fight played out 1,000 times from here: who wins, who falls",
        ),
        Binding("j", "cursor(1)", "Down", show=False, priority=True, id="down"),
        Binding("k", "cursor(-1)", "Up", show=False, priority=True, id="up"),
        Binding("q", "quit", "Quit", priority=True, id="quit"),
        Binding("l", "log_size", "Log: full height / back", show=False, priority=True, id="log"),
        Binding(
            "e",
            "log_kind",
            "Log: rolls, harm, turns, overrides, all",
            show=False,
            priority=True,
            id="log_kind",
        ),
        Binding(
            "c",
            "log_who",
            "Log: the selected combatant's lines / all",
            show=False,
            priority=True,
            id="log_who",
        ),
        # On the key bar while a choice is open (``check_action``); its tooltip is said in help
        Binding(
            "m",
            "choice",
            "Choose",
            priority=True,
            id="choice",
            tooltip="the open choice's menu again (the selected one's, else the acting one's)",
        ),
        *QUICK_BINDINGS.values(),
    ]

    class SaveStatus(Message):
        """Posted from the autosaver's thread (``post_message`` is thread-safe)."""

        def __init__(self, when: float | None, error: str | None, path: Path | None = None) -> None:
            super().__init__()
            self.when = when
            self.error = error
            self.path = path  # the file written (None: not said)

    class ChangedOutside(Message):
        """Posted from the autosaver's thread: the save was changed outside facility-tui."""

        def __init__(self, path: Path) -> None:
            super().__init__()
            self.path = path

    def __init__(self, workspace: Workspace, open_file: Path | None = None) -> None:
        super().__init__()
        self.ws = workspace
        self._open_file = open_file
        self._quit_anyway = False
        self._asking = False  # a question about the save is on screen
        self._plays_typed: dict[Path, str] = {}  # each fight's forecast plays line, as left
        self._status = StatusPane(id="status")
        self._list = OrderList(id="order")
        self._detail = DetailPane(id="detail")
        self._box = PaneBox(id="detail-box")  # the panes' column, scrolled by J and K
        self._log = LogPane(keep=LOG_SHOWN, id="log")
        self.collector = IdleCollector()
        self._choices: tuple[Choice, ...] = ()  # the open choices of the fight shown
        self._greeting = False  # the toasts shown are the ones the fight opened with
        self._panes_limit: int | None = None  # the panes' column's width, where it gives way

    # -- layout -------------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        # Styled narrow or wide from the start: a class changed on the first resize restyles
        # every widget again before the first frame.
        self.on_resize()
        yield self._status
        with Horizontal(id="body") as body:
            body.border_subtitle = "Log"
            yield self._list
            with self._box:
                yield self._detail
        yield self._log
        yield CommandBar(
            run=self._run_typed,
            cancel=self._cancelled,
            preview=self.ws.preview,
            complete=self._complete_name,
            id="command",
        )
        yield KeyBar(id="keys")

    def _complete_name(self, line: str) -> str | None:
        """The command line with a template's name (after ``from=``) or a catalog's name (its
        rules' and the campaign's) completed."""
        campaign = Campaign(self.ws.folder)
        return templates.complete(line, campaign) or complete(
            line, self.ws.encounter.system, campaign
        )

    def on_resize(self) -> None:
        width = self.size.width or self.app.size.width
        self.set_class(width < NARROW_BELOW, "-narrow")
        self.set_class(width >= ROOMY_FROM, "-roomy")
        self.set_class((self.size.height or self.app.size.height) >= TALL_FROM, "-tall")
        if self.is_mounted:
            self._fit_panes()

    def _fit_panes(self) -> None:
        """Where the screen is too narrow for the panes' column and the list's state words
        (60 columns), the column gives way: the list keeps its narrowest, every word whole."""
        width = self.size.width or self.app.size.width
        table = self.table
        gutter = table.outer_size.width - table.scrollable_content_region.width
        room = max(PANES_AT_LEAST, width - table.narrowest() - max(gutter, 0))
        limit = room if room < width else None
        if limit != self._panes_limit:  # (a layout pass only when it changes)
            self._panes_limit = limit
            self._box.styles.max_width = limit

    def action_details(self) -> None:
        """Hide the panes' column (the list takes the width), or show it again."""
        self.toggle_class("-no-details")
        if self.has_class("-no-details") and self.focused is self._box:
            self.table.focus(scroll_visible=False)  # (see ``action_log_size``)

    def action_panes(self, pages: int) -> None:
        """Scroll the panes' column a page (at 80×24 the effects and the sheet run below it)."""
        box = self._box
        if pages > 0:
            box.scroll_page_down(animate=False)
        else:
            box.scroll_page_up(animate=False)

    # -- the log's view (no command: nothing in the fight changes) ---------------------------

    def action_log_size(self) -> None:
        self.toggle_class("-log-full")
        # Focus leaves the hidden list and panes now, and comes back to the list with them.
        # (Textual moves it off a hidden widget only when a frame is drawn, to the next one
        # along, hidden or not: the keys typed before that frame went to the hidden one.)
        if self.has_class("-log-full"):
            if not isinstance(self.focused, CommandBar):
                self.set_focus(None)
        elif self.focused is None:
            self.table.focus(scroll_visible=False)

    def action_log_kind(self) -> None:
        self._log_title(self._log.cycle_kind())

    def action_log_who(self) -> None:
        cid = self._selected_id()
        enc = self.ws.encounter
        self._log_title(self._log.toggle_who(enc.get(cid).name if cid and enc.has(cid) else ""))

    def _log_title(self, title: Text) -> None:
        """The log's title (its filter) on the rule above it: the list's bottom border."""
        self.query_one("#body").border_subtitle = title

    @on(InitiativeList.Selected)
    def _row_chosen(self) -> None:
        self.remove_class("-no-details")  # enter on a row: its panes are shown

    def on_mount(self) -> None:
        def saved(path: Path, when: float) -> None:  # (on the autosaver's thread)
            self.post_message(self.SaveStatus(when, None, path))

        def failed(message: str) -> None:
            self.post_message(self.SaveStatus(None, message))

        def changed(path: Path) -> None:
            self.post_message(self.ChangedOutside(path))

        self.ws.autosave(
            saved=saved, failed=failed, changed=changed, delay=SAVE_DELAY, frame_wait=FRAME_WAIT
        )
        messages = self.ws.open_initial(self._open_file)
        self._show_written()
        self.refresh_all()
        for message in messages:
            self.notify(message, timeout=10)
        self._greeting = bool(messages)
        if self.ws.refused is not None:
            self._ask_refused(*self.ws.refused)
        self.table.focus()
        self.set_timer(SETTLE_AFTER, self._settle_history)
        self.collector.start()
        self.set_interval(COLLECT_EVERY, self.collector.tick)
        self.set_interval(FOLLOW_EVERY, self._follow)
        self.set_timer(WARM_FORECAST_AFTER, self._warm_forecast)

    def _follow(self) -> None:
        """A read-only view follows its writer's autosaves (one ``stat`` when nothing changed)."""
        if self.ws.read_only and self.alive and self.ws.reload_if_changed():
            self.save_state = f"read {self.app.clock()}"  # type: ignore[attr-defined]
            self.refresh_all()

    def on_unmount(self) -> None:
        self.collector.stop()

    def on_screen_suspend(self) -> None:
        """A dialog opens: the messages the fight opened with ("Demo fight loaded. Press s...")
        have been read, and do not come back over it (Textual shows every screen the toasts)."""
        if self._greeting:
            self._greeting = False
            self._clear_toasts()

    @property
    def table(self) -> OrderList:
        return self._list

    # -- the state the panes show -------------------------------------------------------------

    def refresh_all(self) -> None:
        """Show the workspace's fight anew (at start-up, and once another one is shown)."""
        self.table.reset()  # another fight: the cursor goes to whoever is acting
        self._publish()
        self._rules_shown()
        self._fit_panes()
        self.call_after_refresh(self.ws.drawn)
        # A loaded session (its log, its undo history) is long-lived: move it out of the
        # collector's way, or a full collection traversing it (50+ ms at 200 combatants) now
        # and then lands in a key press. New objects are still collected as usual.
        gc.freeze()

    def _after_change(self) -> None:
        before = self.encounter
        enc = self.ws.encounter
        open_before = bool(self._choices)
        self._publish()
        self.call_after_refresh(self.ws.drawn)  # (a round's end is written after its frame)
        if (
            before is None
            or (before.phase, before.system) != (enc.phase, enc.system)
            or open_before != bool(self._choices)
        ):
            self.refresh_bindings()  # check_action depends on these only (the footer recomposes)
            self._rules_shown()
        if self.size.width < NARROW_BELOW:  # (a new name may need the list's room: rare)
            self._fit_panes()

    def _rules_shown(self) -> None:
        """What names the encounter's rules: the command line's example."""
        self.query_one(CommandBar).placeholder = placeholder_for(self.ws.encounter.system)

    # Each value goes to the panes that show it. ``data_bind`` does the same through a setter
    # of its own (context managers, and every reactive of the pane initialised again at each
    # value): measured in one process at 200 combatants, ``n`` and ``u`` run their command and
    # render in 1.81 ms with the panes bound, 1.71 ms with the values handed over here, 1.61 ms
    # with no reactive at all (docs/benchmarks.md).
    def watch_encounter(self, enc: Encounter | None) -> None:
        self._status.encounter = enc
        self._list.encounter = enc  # (before the detail: its cursor is the selection)
        self._detail.encounter = enc
        self._log.encounter = enc

    def watch_selected(self, cid: str | None) -> None:
        if cid != self._detail.selected and self.is_mounted:
            # another combatant's panes open at their top (its Actions), not at the page the
            # last one was scrolled to with J
            self._box.scroll_home(animate=False)
        self._detail.selected = cid

    def watch_save_state(self, state: str) -> None:
        self._status.save_state = state

    def watch_path(self, path: Path | None) -> None:
        self._status.path = path

    def watch_read_only(self, read_only: bool) -> None:
        self._status.read_only = read_only

    def _publish(self) -> None:
        """Give the panes the workspace's state; each renders what changed for it."""
        self.path = self.ws.path  # (compared by value: no render unless another file is shown)
        self.read_only = self.ws.read_only
        self._choices = rules_for(self.ws.encounter.system).choices.open(self.ws.encounter)
        # The list (rows, cursor), the log, the status line. Then the selection, which the
        # list's cursor may have moved to the acting combatant: the detail pane renders once,
        # for the combatant selected now (so the list's news of its move is not sent).
        with self.prevent(InitiativeList.Highlighted):
            self.encounter = self.ws.encounter
        self.selected = self.table.cursor_key

    @on(InitiativeList.Highlighted)
    def _highlighted(self) -> None:
        self.selected = self.table.cursor_key

    def _selected_id(self) -> str | None:
        return self.table.cursor_key

    # -- saving (the workspace's autosaver writes every change; this shows how it went) --------

    @on(SaveStatus)
    def _save_status(self, event: SaveStatus) -> None:
        if event.error is not None:
            if self.save_state != "NOT SAVED":  # say it once, not at every retry
                self.notify(event.error, severity="error", timeout=15)
            self.save_state = "NOT SAVED"
        elif event.path is None or event.path == self.ws.path:  # (not the fight left just now)
            self.save_state = f"saved {self.app.clock()}"  # type: ignore[attr-defined]
        self.path = self.ws.path
        self.collector.quiet_moment()  # the change is drawn and written: a quiet moment

    def _show_written(self) -> None:
        """A save just opened: when it was last written (not yet: the header says so)."""
        when = self.ws.written_at()
        self.save_state = "" if when is None else f"saved {written(when)}"

    # -- running commands ---------------------------------------------------------------------

    def run_line(self, line: str) -> bool:
        """Run a command line; a refusal is shown as one line and changes nothing."""
        if not self.alive:
            return False
        enc = self.ws.encounter
        rules = rules_for(enc.system)
        before = rules.choices.open(enc)
        try:
            outcome = self.ws.execute(line, prompt=True)
        except NeedRoll as need:  # table dice: the GM types this roll, then the line runs again
            from .roll_prompt import ask_roll

            ask_roll(self, line, need, self.ws.encounter.system)
            return True
        except CommandError as err:
            self._clear_toasts()  # only the newest refusal matters
            self.notify(str(err), severity="error", timeout=6)
            unblock = None if self.ws.read_only else rules.choices.unblock(enc, line)
            if unblock is not None:  # (2297: a downgrade gives the action asked for)
                self.offer(unblock, then=line)
            return False
        except Exception as err:  # a bug: commands are pure, so the fight is as it was
            self.notify(internal_error(self.ws.folder, line, err), severity="error", timeout=15)
            return False
        self._clear_toasts()  # a refusal the GM has just corrected is done with
        self._after_change()
        verb = (line.split() or [""])[0].lower()
        if not outcome.events or verb in HISTORY_VERBS:
            self.notify(outcome.message, timeout=3)
        elif passes := passed(outcome.events):  # turns that passed by themselves: said, not
            self._said_passed(passes)  # only logged (the GM may be looking at the table)
        if verb == "end":
            self.offer_return(quiet=True)  # the party's lasting state back to the roster
        # A choice the command has just left open is offered at once (not one that undo or
        # redo brings back: the next u would go to its menu).
        if verb not in HISTORY_VERBS:
            new = [c for c in self._choices if c not in before]
            if new:
                self.offer(new[0])
        return True

    def _said_passed(self, passes: list[str]) -> None:
        """``Passed: Boarder 1 (dying), Boarder 2 (unconscious). Round 3: Rook's turn``."""
        enc = self.ws.encounter
        now = ""
        if enc.phase is Phase.ACTIVE and enc.current is not None:
            name = rules_for(enc.system).turns.slot_name(enc, enc.current)
            now = f" Round {enc.round}: {name}'s turn."
        self.notify(f"Passed: {', '.join(passes)}.{now}", timeout=6)

    def offer_return(self, *, quiet: bool = False) -> None:
        """The party's PCs of this fight, their lasting state back to ``party.toml``: a summary
        of what changes for the GM to keep, skip a PC or skip all (``party_dialog``). ``quiet``
        (after ``end``): nothing said when the campaign has no party or nothing changes."""
        from facility_tui.campaign import roster
        from facility_tui.campaign.folder import CampaignError

        from .party_dialog import PartyReturnDialog

        campaign = self.ws.session.campaign
        if campaign is None or (quiet and not campaign.party.exists()):
            return
        try:
            changes = roster.returns(campaign, self.ws.encounter)
        except CampaignError as err:
            self.notify(str(err), severity="error", timeout=8)
            return
        if not changes:
            if not quiet:
                self.notify("Party: nothing to hand back", timeout=3)
            return

        def done(line: str | None) -> None:
            if not self.alive:
                return
            if line is None:
                self.notify("Party: nothing handed back (party return does it later)", timeout=4)
            else:
                self.run_line(line)

        self.app.push_screen(PartyReturnDialog(changes), done)

    def offer(self, choice: Choice, then: str | None = None) -> None:
        """Show ``choice`` as a menu; the option chosen runs as a typed line, then ``then`` (the
        line the choice unblocks). Over a dialog (the roll prompt that ran the line) it waits
        for the dialog to close."""
        from .choice_menu import Act, ChoiceMenu

        def chosen(line: str | Act | None) -> None:
            if line is None or not self.alive:
                return  # left open: the panes show it, n asks
            if isinstance(line, Act):  # a key of this screen's, pressed on the menu
                {"next": self.action_next, "undo": self.action_undo, "quit": self.action_quit}[
                    line.action
                ]()
                return
            if self.run_line(line) and then is not None and self.run_line(then):
                bar = self.query_one(CommandBar)
                if bar.has_focus and bar.value.strip() == then.strip():
                    bar.close()  # the line the GM typed has run
                    self.table.focus(scroll_visible=False)

        menu = ChoiceMenu(choice)
        app = self.app
        if isinstance(app.screen, ModalScreen):
            app.call_later(app.push_screen, menu, chosen)
        else:
            app.push_screen(menu, chosen)

    def pending_choice(self) -> Choice | None:
        """The open choice the GM is most likely at: the selected combatant's, else the acting
        one's, else the first."""
        cid, enc = self._selected_id(), self.ws.encounter
        for who in (cid, enc.current):
            if who is not None:
                for choice in self._choices:
                    if choice.who == who:
                        return choice
        return self._choices[0] if self._choices else None

    def pending_for(self, verb: str) -> str | None:
        """Whose open choice a command ``verb`` would settle (``suffer``: the one whose failed
        save waits), if any: the palette fills it in."""
        first = self.pending_choice()
        ordered = ((first,) if first else ()) + self._choices
        for choice in ordered:
            if choice.who and any(o.line.split()[0] == verb for o in choice.options):
                return choice.who
        return None

    def action_choice(self) -> None:
        choice = self.pending_choice()
        if choice is not None:
            self.offer(choice)

    def _clear_toasts(self) -> None:
        if self.save_state != "NOT SAVED":  # (a failing save keeps saying so)
            self.app.clear_toasts()  # type: ignore[attr-defined]

    @property
    def alive(self) -> bool:
        """False once the app is quitting: a dialog's answer that arrives then changes nothing."""
        return self.app.return_code is None and self.is_attached

    def selected_or_warn(self) -> str | None:
        cid = self._selected_id()
        if cid is None:
            self.notify("No combatant selected; press a to add one", severity="warning")
        return cid

    # -- actions ------------------------------------------------------------------------------

    def action_next(self) -> None:
        enc = self.ws.encounter
        if enc.phase is Phase.SETUP:
            self.action_start()
        elif enc.phase is Phase.ENDED:
            self.notify("Combat has ended: u undoes, :resume reopens it", severity="warning")
        elif choices := rules_for(enc.system).choices.unsettled(enc):
            self._confirm_next(choices)
        else:
            self.run_line("next")

    def _confirm_next(self, choices: list[str]) -> None:
        """A turn would end with choices still open (ablate or suffer...): ask first. ``n``
        again ends it (a double-tapped ``n`` does what the key bar says)."""
        from .dialogs import EndTurnDialog

        def done(yes: bool | None) -> None:
            if yes and self.alive:
                self.run_line("next")

        shown = "; ".join(choices[:3]) + (
            f" and {len(choices) - 3} more" if len(choices) > 3 else ""
        )
        question = f"Still open: {shown}.\nEnd the turn anyway? It stays open: m settles it later."
        self.app.push_screen(EndTurnDialog(question), done)

    def action_prev(self) -> None:
        self.run_line("prev")

    def action_start(self) -> None:
        self.run_line("start")

    def action_undo(self) -> None:
        self.run_line("undo")

    def action_redo(self) -> None:
        self.run_line("redo")

    def action_cursor(self, delta: int) -> None:
        self.table.move_cursor(delta)

    def action_command(self, prefill: str = "") -> None:
        self.query_one(CommandBar).open(prefill)

    def writable(self) -> bool:
        """False (and says why) in a read-only view: no dialog opens for a change refused."""
        if self.ws.read_only:
            self.notify(self.ws.read_only_message(), severity="error", timeout=6)
            return False
        return True

    def action_add(self) -> None:
        if not self.writable():
            return

        def done(line: str | None) -> None:
            if line and self.alive:
                self.run_line(line)

        from .dialogs import AddDialog  # dialogs load when first opened

        self.app.push_screen(AddDialog(self.ws.encounter.system, self.run_line), done)

    def action_remove(self) -> None:
        if not self.writable():
            return
        cid = self.selected_or_warn()
        if cid is None:
            return
        name = self.ws.encounter.get(cid).name

        def done(yes: bool | None) -> None:
            if yes and self.alive:
                self.run_line(f"remove {quote(cid)}")

        from .dialogs import ConfirmDialog

        self.app.push_screen(ConfirmDialog(f"Remove {name}? (u undoes it)"), done)

    def action_help(self) -> None:
        from .help import HelpScreen

        self.app.push_screen(HelpScreen(self.ws.encounter.system, self._key_rows()))

    def action_new(self) -> None:
        def create(system: str, name: str) -> bool:
            """The dialog's enter: a refused name keeps the dialog open to be corrected."""
            if not self.alive:
                return False
            try:
                self.ws.new_encounter(system, name)
            except CommandError as err:
                self.notify(str(err), severity="error", timeout=8)
                return False
            self.refresh_all()
            self.notify(f"New encounter; the previous one stays in {self.ws.folder}")
            return True

        from .dialogs import NewEncounterDialog

        self.app.push_screen(NewEncounterDialog(create, self.ws.encounter.system))

    def action_open(self) -> None:
        def done(path: Path | None) -> None:
            if path is not None and self.alive:
                self.open_path(path)

        from .browser import BrowserScreen

        browser = BrowserScreen(self.ws.folder, self.ws.path, lambda: self.ws.flush(2.0))
        self.app.push_screen(browser, done)

    def open_path(self, path: Path) -> None:
        """Open a saved encounter, as the ``o`` dialog's choice does (the command palette's)."""
        try:
            note = self.ws.open(path)
        except store.SaveHeld as held:
            self._offer_read_only(path, held)
        except store.DamagedSave as err:
            self._ask_refused(path, str(err))
        except store.SaveError as err:
            self.notify(str(err), severity="error", timeout=10)
        else:
            self._opened(note)

    def _opened(self, note: str | None) -> None:
        self._show_written()
        self.refresh_all()
        if note:
            self.notify(note, severity="warning", timeout=15)
        self.set_timer(SETTLE_AFTER, self._settle_history)

    def _warm_forecast(self) -> None:
        from facility_tui.forecast import engine as forecast

        # (a head start only: a forecast that cannot start its workers says why when asked)
        with contextlib.suppress(Exception):
            forecast.warm()

    def _settle_history(self) -> None:
        """Replay the undo history of the save just opened (``Session.settle``) once the fight
        is on screen: opening shows the fight without waiting for its 200 steps."""
        lost = self.ws.session.settle()
        if lost:
            self.notify(f"{lost[:1].upper()}{lost[1:]}: u cannot go back", severity="warning")

    # -- a refused save, an edit made outside while it is open: the GM chooses ----------------

    def _ask_refused(self, path: Path, problem: str) -> None:
        """A save that cannot be taken as it is (damaged, or a hand edit its checks refuse):
        edit it as it is, open its newest good version, or leave it (quit, at launch)."""
        from .dialogs import ChoiceDialog

        at_launch = not self.ws.shown
        try:
            good = store.newest_good(path)
            offer = f"Its newest good version: {good.describe}; {good.lacks}."
        except store.SaveError as none:
            good, offer = None, f"There is no good version to go back to ({none})."
        problem = problem.removesuffix("; it was left untouched")
        question = f"{problem}.\n{path.name} is left as it is until you choose.\n{offer}" + (
            "\nb sets it aside (renamed .corrupt-<time>, never deleted)." if good else ""
        )
        choices = [("e", "edit it")]
        if good is not None:
            choices.append(("b", "open the good version"))
        choices.append(("q", "quit") if at_launch else ("n", f"keep {self.ws.path.name}"))

        def done(answer: str | None) -> None:
            self._asking = False
            if not self.alive:
                return
            if answer == "e":
                self._edit_then_open(path, problem)
            elif answer == "b":
                self._open_good(path)
            elif answer == "q":
                self.app.exit()
            elif answer is None and at_launch:
                self._ask_refused(path, problem)  # nothing to go back to: asked again

        self._asking = True
        self.app.push_screen(ChoiceDialog(question, choices), done)

    def _edit_then_open(self, path: Path, problem: str) -> None:
        line = re.match(rf"{re.escape(str(path))}:(\d+): ", problem)
        failed = self._run_editor(path, int(line.group(1)) if line else None)
        if failed is not None:
            self.notify(failed, severity="error", timeout=10)
        try:
            note = self.ws.open(path)
        except store.DamagedSave as err:
            self._ask_refused(path, str(err))
        except store.SaveError as err:
            self.notify(str(err), severity="error", timeout=10)
            if not self.ws.shown:
                self._ask_refused(path, str(err))
        else:
            self._opened(note)

    def _open_good(self, path: Path) -> None:
        try:
            note = self.ws.open_good(path)
        except store.SaveError as err:
            self.notify(str(err), severity="error", timeout=10)
            self._ask_refused(path, str(err))
            return
        self._opened(note)

    def _run_editor(self, path: Path, line: int | None = None) -> str | None:
        """Open ``path`` in the GM's editor (``$VISUAL``, ``$EDITOR``, else ``vi``), the app
        suspended meanwhile, at ``line`` if the editor is one known to take ``+LINE``; what
        went wrong, if anything."""
        import os
        import shlex
        import subprocess

        from textual.app import SuspendNotSupported

        editor = os.environ.get("VISUAL") or os.environ.get("EDITOR") or "vi"
        try:
            command = shlex.split(editor)
        except ValueError:
            return f"Cannot read the editor's command {editor!r} (set $EDITOR)"
        if not command:
            command = ["vi"]
        if line is not None and os.path.basename(command[0]) in LINE_EDITORS:
            command.append(f"+{line}")
        command.append(str(path))
        try:
            try:
                with self.app.suspend():
                    subprocess.run(command, check=False)
            except SuspendNotSupported:  # no terminal to hand over (headless): run it as is
                subprocess.run(command, check=False, stdin=subprocess.DEVNULL)
        except OSError as err:
            return f"Could not run {editor}: {err.strerror or err} (set $EDITOR)"
        return None

    @on(ChangedOutside)
    def _changed_outside(self, event: ChangedOutside) -> None:
        """The save was changed outside while open: its writes wait; take the edit (checked
        as any hand edit) or keep this window's fight, the other one kept beside it."""
        if self._asking or not self.alive or event.path != self.ws.path:
            return
        from .dialogs import ChoiceDialog

        what, takeable = self.ws.changed_outside()
        self.save_state = "NOT SAVED"
        name = self.ws.path.name
        question = (
            f"{what.removesuffix('; it was left untouched')}.\n"
            f"{name} was changed while open here: nothing is written over it until you choose."
            + (
                f"\nt takes the edit (this window's fight is kept beside it, in {self.ws.path.stem}"
                ".d/);"
                if takeable
                else ""
            )
            + "\nk writes this window's fight over it (the edited file is kept beside it)."
        )
        choices = [("t", "take the edit")] if takeable else []
        choices.append(("k", "keep this window's fight"))

        def done(answer: str | None) -> None:
            self._asking = False
            if not self.alive:
                return
            try:
                if answer == "t":
                    note = self.ws.take_edit()
                    self.refresh_all()
                elif answer == "k":
                    note = self.ws.keep_mine()
                else:
                    self._changed_outside(event)  # not answered: asked again
                    return
            except store.SaveError as err:
                self.notify(str(err), severity="error", timeout=10)
                self._changed_outside(event)
                return
            self.notify(note, severity="warning", timeout=15)

        self._asking = True
        self.app.push_screen(ChoiceDialog(question, choices), done)

    def _offer_read_only(self, path: Path, held: store.SaveHeld) -> None:
        """Another window writes this save: show it read-only, following its autosaves, here
        or as the player view?"""
        from .dialogs import ChoiceDialog

        def done(answer: str | None) -> None:
            if answer not in ("y", "w") or not self.alive:
                return
            try:
                note = self.ws.open_read_only(path)
            except store.SaveError as err:
                self.notify(str(err), severity="error", timeout=10)
                return
            self._opened(note)
            if answer == "w":
                self.player_view()

        choices = [("y", "read-only here"), ("w", "player view"), ("n", "no")]
        self.app.push_screen(
            ChoiceDialog(f"{held}.\nShow it read-only, following its changes?", choices), done
        )

    def action_export(self) -> None:
        """Write the fight's Markdown report (``export --md``) beside its save, say where."""
        from facility_tui.report import render_markdown

        path = self.ws.path.with_suffix(".md")
        try:
            store.write_atomic(path, render_markdown(self.ws.session))
        except OSError as err:
            self.notify(f"Could not write {path}: {err.strerror or err}", severity="error")
            return
        self.notify(f"Report written to {path}", timeout=8)

    def action_forecast(self) -> None:
        """The danger forecast of the fight as it stands (docs/forecast.md): nothing changes.
        Its plays line comes back as the GM left it in this fight's last forecast."""
        from .forecast import ForecastScreen

        path = self.ws.path

        def keep(typed: str | None) -> None:
            self._plays_typed[path] = typed or ""

        typed = self._plays_typed.get(path, "")
        self.app.push_screen(ForecastScreen(self.ws.encounter, plays=typed), keep)

    def player_view(self) -> None:
        """This read-only window becomes the player view (``facility-tui watch``)."""
        from .player_view import PlayerView

        self.app.push_screen(PlayerView(self.ws, self.app.clock))  # type: ignore[attr-defined]

    def action_quit(self) -> None:
        if not self.ws.flush(timeout=3.0) and not self._quit_anyway:
            self._quit_anyway = True
            self.notify(
                f"The last change is not saved ({self.ws.path}). Press q again to quit anyway",
                severity="error",
                timeout=15,
            )
            return
        self.app.exit()

    def _quick(self, key: str) -> str | None:
        """The command template of a quick key in the encounter's rules (None: not one of them)."""
        k = self._quick_key(key)
        return None if k is None else k.template

    def _quick_key(self, key: str) -> QuickKey | None:
        return next((k for k in info(self.ws.encounter.system).quick_keys if k.key == key), None)

    def action_quick(self, key: str) -> None:
        quick = self._quick_key(key)
        if quick is None:
            return
        template = quick.template
        if quick.opens_line:
            if (cid := self.selected_or_warn()) is not None:  # (the selected: the one acted on)
                enc = self.ws.encounter
                source = (
                    rules_for(enc.system).turns.attack_source(enc, cid)
                    if "{by}" in template
                    else None
                )
                self.query_one(CommandBar).open(*quick.start(enc, cid, source))
        elif "{who}" not in template:
            self.run_line(template)
        elif (cid := self.selected_or_warn()) is not None:
            self.run_line(template.format(who=quote(cid)))

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "remove" and isinstance(self.focused, CommandBar):
            return False  # delete deletes a character there
        phase = self.ws.encounter.phase
        if action == "quick":
            return self._quick(str(parameters[0])) is not None
        if action == "start":
            return phase is Phase.SETUP
        if action == "choice":
            return bool(self._choices)
        if action == "prev":
            return phase is Phase.ACTIVE
        return True

    def _run_typed(self, line: str) -> None:
        """Enter on the command line: run it; on a refusal the line stays to be corrected."""
        ok = self.run_line(line)
        bar = self.query_one(CommandBar)
        if ok:
            bar.close()
            self.table.focus(scroll_visible=False)  # (always in view: no scroll check to queue)
        else:
            bar.keep()

    def _cancelled(self) -> None:
        """Escape on the command line: back to the list (the line is cleared)."""
        self.table.focus(scroll_visible=False)

    def _key_rows(self) -> list[tuple[str, str]]:
        """The keys as they are now: a config file may have remapped them (by binding id)."""
        keys: dict[str, list[str]] = {}  # binding id -> its keys, from the active bindings
        for _, b, _, _ in self.active_bindings.values():
            if b.id and b.key not in keys.setdefault(b.id, []):
                keys[b.id].append(b.key)

        def shown(b: Binding) -> str:
            listed = ",".join(keys.get(b.id or "", [])) or b.key
            return listed.replace("question_mark", "?").replace("colon", ":").replace(",", " / ")

        rows = [
            (shown(b), f"{b.description}: {b.tooltip}" if b.tooltip else b.description)
            for b in self.BINDINGS
            if isinstance(b, Binding)
            and b.action not in ("cursor(1)", "cursor(-1)")
            and not b.action.startswith("quick")
        ]
        up_down = [
            shown(b) for b in self.BINDINGS if isinstance(b, Binding) and b.id in ("down", "up")
        ]
        rows.append(
            (f"{' / '.join(up_down)} / ↑ ↓", "Move the selection (enter shows its panes if hidden)")
        )
        rows.append(
            (
                shown(Binding("ctrl+p", "", id="palette")),
                "Command palette: commands, combatants, saves",
            )
        )
        rows += [
            (shown(QUICK_BINDINGS[k.key]), f"{k.label}: {k.help}" if k.help else k.label)
            for k in info(self.ws.encounter.system).quick_keys
        ]
        rows.append(("", "Side PC: PCs and allies (names in cyan), EN: enemies (in red)"))
        rows.append(("", "▶ whose turn it is, › who acts next; # the number to type (#3)"))
        rows.append(("", f"{SELECTED} the selected row (the one the keys act on)"))
        rows.append(("", "(h) before a name: hidden from the player view (hide / unhide)"))
        rows += [("", line) for line in short_forms_help(rules_for(self.ws.encounter.system))]
        return rows
