"""The main screen: initiative list, detail pane, log, command bar.

The screen holds the state (``encounter``, ``selected``, ``save_state``) and keeps the keys and
their dispatch; running a line and what follows it is ``runner``'s, the save's questions to the GM
(refused, held by another window, changed outside) are ``save_questions``'s. Each pane has
reactives for the state it shows and renders itself from the core's values
(``View.summary`` / ``panes``, ``Turns.slot_name``) when they change:

- ``StatusPane`` (``#status``): encounter, save_state, and the save's path and read-only flag;
- ``OrderList`` (``#order``): encounter; its cursor is the selection;
- ``DetailPane`` (``#detail``): encounter, selected (the acting combatant's reminders, then the
  selected one's panes: ``View.reminders`` / ``panes``);
- ``LogPane`` (``#log``): encounter (its log).

The screen's watchers hand each value to the panes that show it (``data_bind`` would do the
same, slower: see ``watch_encounter``). After a change the screen sets ``encounter``
(the list, the log and the status line render), then ``selected`` from the list's cursor (the
detail renders): see ``publish``.
"""

from __future__ import annotations

import contextlib
import gc
from functools import partial
from pathlib import Path

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.message import Message
from textual.reactive import Reactive
from textual.screen import Screen
from textual.widget import Widget

from facility_tui import store
from facility_tui.campaign.folder import Campaign
from facility_tui.commands.dispatch import complete_argument
from facility_tui.commands.grammar import CommandError, quote
from facility_tui.model.encounter import Encounter, Phase
from facility_tui.systems import QuickKey, info, infos, rules_for
from facility_tui.workspace import Workspace

from .collector import EVERY as COLLECT_EVERY
from .collector import IdleCollector
from .runner import LineRunner
from .save_questions import SETTLE_AFTER, SaveQuestions
from .toasts import ToastsHiddenWhenCovered
from .widgets.command_bar import CommandBar, placeholder_for
from .widgets.detail_pane import DetailPane
from .widgets.initiative import InitiativeList
from .widgets.key_bar import KeyBar
from .widgets.log_pane import LogPane
from .widgets.order_list import OrderList
from .widgets.status_pane import StatusPane

LOG_SHOWN = 200  # lines the log pane keeps while it grows

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
# s: after the app starts, the forecast's forkserver is started (it loads the rules in a process
# of its own, on the other core): the first forecast's plays then start at once (docs/benchmarks.md,
# 'The screens')
WARM_FORECAST_AFTER = 5.0
# The right column's width and the log's height follow the screen's size (styles/app.tcss):
NARROW_BELOW = 110  # columns: below, the panes' column is narrow (the list keeps the rest)
ROOMY_FROM = 160  # columns: from here, a wider column (longer bars)
TALL_FROM = 36  # rows: from here, a taller log
PANES_AT_LEAST = 24  # columns: the panes' column gives the list room down to this width


class MainScreen(ToastsHiddenWhenCovered, Screen[None]):
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

    # Every key of the screen (and of the list) is a priority binding: the app runs it as it
    # reads it, before it hands on the keys typed after it. Keys typed in one burst then act in
    # order: "jd12⏎" moves the selection before d starts the command on it, and the command line
    # has focus before 1 and 2 arrive (they type 12 there instead of spending a Major and a
    # Move). While the line has focus, the keys it types are its own (Textual leaves printable
    # keys to a focused Input), and so is delete (``check_action``).
    BINDINGS = [
        Binding("n", "next", "Next", priority=True, id="next"),
        Binding("p", "run('prev')", "Turn marker back", show=False, priority=True, id="prev"),
        Binding("s", "run('start')", "Start", show=False, priority=True, id="start"),
        Binding("u,ctrl+z", "run('undo')", "Undo", priority=True, id="undo"),
        Binding("ctrl+y", "run('redo')", "Redo", show=False, priority=True, id="redo"),
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
        Binding(
            "T",
            "app.timeline",  # (the app's: screens/timeline.py, ``open_timeline``)
            "Timeline",
            show=False,
            priority=True,
            id="timeline",
            tooltip="every step of the fight: show any, compare, forecast, play from one",
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
        self._plays_typed: dict[Path, str] = {}  # each fight's forecast plays line, as left
        self._status = StatusPane(id="status")
        self.table = OrderList(id="order")  # its cursor is the selection
        self._detail = DetailPane(id="detail")
        self._box = VerticalScroll(id="detail-box")  # the panes' column, scrolled by J and K
        self._log = LogPane(keep=LOG_SHOWN, id="log")
        self.collector = IdleCollector()
        self.runner = LineRunner(self)  # runs lines, offers the choices they leave open
        self.saves = SaveQuestions(self)  # the save's questions: refused, held, changed outside
        self._greeting = False  # the toasts shown are the ones the fight opened with
        self._panes_limit: int | None = None  # the panes' column's width, where it gives way
        self.deleted_branches: dict[Path, list[int]] = {}  # by save: the timeline's u restores

    # -- layout -------------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        # Styled narrow or wide from the start: a class changed on the first resize restyles
        # every widget again before the first frame.
        self.on_resize()
        yield self._status
        with Horizontal(id="body") as body:
            body.border_subtitle = "Log"
            yield self.table
            with self._box:
                yield self._detail
        yield self._log
        yield CommandBar(
            run=self.runner.typed,
            cancel=self.runner.cancelled,
            preview=self.ws.preview,
            complete=partial(complete_name, self.ws),
            id="command",
        )
        yield KeyBar(id="keys")

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
        # (the log's title, with its filter, on the rule above it: the list's bottom border)
        self.query_one("#body").border_subtitle = self._log.cycle_kind()

    def action_log_who(self) -> None:
        cid = self.table.cursor_key
        enc = self.ws.encounter
        name = enc.get(cid).name if cid and enc.has(cid) else ""
        self.query_one("#body").border_subtitle = self._log.toggle_who(name)

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

        # (from here on, not after the fight is read: its objects, thousands at 1,000
        # combatants, are frozen by ``refresh_all``, not walked by collections as they are made)
        self.collector.start()
        self.ws.autosave(
            saved=saved, failed=failed, changed=changed, delay=SAVE_DELAY, frame_wait=FRAME_WAIT
        )
        messages = self.ws.open_initial(self._open_file)
        self.saves.show_written()
        self.refresh_all()
        for message in messages:
            self.notify(message, timeout=10)
        self._greeting = bool(messages)
        if self.ws.refused is not None:
            self.saves.ask_refused(*self.ws.refused)
        self.table.focus()
        self.set_timer(SETTLE_AFTER, self.saves.settle_history)
        self.set_interval(COLLECT_EVERY, self.collector.tick)
        self.set_interval(FOLLOW_EVERY, self.saves.follow)
        self.set_timer(WARM_FORECAST_AFTER, _warm_forecast)

    def on_unmount(self) -> None:
        self.collector.stop()

    def on_screen_suspend(self) -> None:
        """A dialog opens: the messages the fight opened with ("Demo fight loaded. Press s...")
        have been read, and do not come back over it (Textual shows every screen the toasts)."""
        if self._greeting:
            self._greeting = False
            self.runner.clear_toasts()

    # -- the state the panes show -------------------------------------------------------------

    def refresh_all(self) -> None:
        """Show the workspace's fight anew (at start-up, and once another one is shown)."""
        self.table.reset()  # another fight: the cursor goes to whoever is acting
        self.publish()
        # what names the encounter's rules: the command line's example
        self.query_one(CommandBar).placeholder = placeholder_for(self.ws.encounter.system)
        self._fit_panes()
        self.call_after_refresh(self.ws.drawn)
        # A loaded session (its log, its undo history) is long-lived: move it out of the
        # collector's way, or a full collection traversing it (50+ ms at 200 combatants) now
        # and then lands in a key press. New objects are still collected as usual.
        gc.freeze()

    def after_change(self) -> None:
        """A line has run: show what it changed."""
        before = self.encounter
        enc = self.ws.encounter
        open_before = bool(self.runner.choices)
        self.publish()
        self.call_after_refresh(self.ws.drawn)  # (a round's end is written after its frame)
        if (
            before is None
            or (before.phase, before.system) != (enc.phase, enc.system)
            or open_before != bool(self.runner.choices)
        ):
            self.refresh_bindings()  # check_action depends on these only (the footer recomposes)
            self.query_one(CommandBar).placeholder = placeholder_for(enc.system)
        if self.size.width < NARROW_BELOW:  # (a new name may need the list's room: rare)
            self._fit_panes()

    # Each value goes to the panes that show it. ``data_bind`` does the same through a setter
    # of its own (context managers, and every reactive of the pane initialised again at each
    # value), a little slower (docs/benchmarks.md, issue 14).
    def watch_encounter(self, enc: Encounter | None) -> None:
        self._status.encounter = enc
        self.table.encounter = enc  # (before the detail: its cursor is the selection)
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

    def publish(self, moment: Encounter | None = None) -> None:
        """Give the panes the workspace's state, or ``moment`` (a step the timeline shows,
        read-only: the session is not changed); each renders what changed for it."""
        ws, status = self.ws, self._status
        enc = ws.encounter if moment is None else moment
        self.set_class(moment is not None, "-timeline")  # (the log makes room for its panel)
        status.path = ws.path  # (compared by value: no render unless another file is shown)
        status.read_only = ws.read_only or moment is not None
        self.runner.choices = rules_for(enc.system).choices.open(enc)
        # The list (rows, cursor), the log, the status line. Then the selection, which the
        # list's cursor may have moved to the acting combatant: the detail pane renders once,
        # for the combatant selected now (so the list's news of its move is not sent).
        with self.prevent(InitiativeList.Highlighted):
            self.encounter = enc
        self.selected = self.table.cursor_key

    @on(InitiativeList.Highlighted)
    def _highlighted(self) -> None:
        self.selected = self.table.cursor_key

    # -- saving (the workspace's autosaver writes every change; this shows how it went) --------

    @on(SaveStatus)
    def _save_status(self, event: SaveStatus) -> None:
        if event.error is not None:
            if self.save_state != "NOT SAVED":  # say it once, not at every retry
                self.notify(event.error, severity="error", timeout=15)
            self.save_state = "NOT SAVED"
        elif event.path is None or event.path == self.ws.path:  # (not the fight left just now)
            self.save_state = f"saved {self.app.clock()}"  # type: ignore[attr-defined]
        self._status.path = self.ws.path
        self.collector.quiet_moment()  # the change is drawn and written: a quiet moment

    @on(ChangedOutside)
    def _changed_outside(self, event: ChangedOutside) -> None:
        self.saves.changed_outside(event.path)

    def open_path(self, path: Path) -> None:
        """Open a saved encounter, as the ``o`` dialog's choice does (the command palette's)."""
        self.saves.open(path)

    # -- running commands ---------------------------------------------------------------------

    def run_line(self, line: str) -> bool:
        """Run a command line; a refusal is shown as one line and changes nothing."""
        return self.runner.run(line)

    @property
    def alive(self) -> bool:
        """False once the app is quitting: a dialog's answer that arrives then changes nothing."""
        return self.app.return_code is None and self.is_attached

    # -- actions ------------------------------------------------------------------------------

    def action_next(self) -> None:
        enc = self.ws.encounter
        if enc.phase is Phase.SETUP:
            self.run_line("start")
        elif enc.phase is Phase.ENDED:
            self.notify("Combat has ended: u undoes, :resume reopens it", severity="warning")
        elif choices := rules_for(enc.system).choices.unsettled(enc):
            self.runner.confirm_next(choices)
        else:
            self.run_line("next")

    def action_run(self, line: str) -> None:
        """A key that runs a line as it is (``s`` start, ``p`` prev, ``u`` undo, ``ctrl+y``)."""
        self.run_line(line)

    def action_cursor(self, delta: int) -> None:
        self.table.move_cursor(delta)

    def action_command(self, prefill: str = "") -> None:
        self.query_one(CommandBar).open(prefill)

    def action_choice(self) -> None:
        choice = self.runner.pending_choice()
        if choice is not None:
            self.runner.offer(choice)

    def action_add(self) -> None:
        if not self.runner.writable():
            return

        def done(line: str | None) -> None:
            if line and self.alive:
                self.run_line(line)

        from .dialogs import AddDialog  # dialogs load when first opened

        self.app.push_screen(AddDialog(self.ws.encounter.system, self.run_line), done)

    def action_remove(self) -> None:
        if not self.runner.writable():
            return
        cid = self.runner.selected_or_warn()
        if cid is None:
            return
        name = self.ws.encounter.get(cid).name

        def done(yes: bool | None) -> None:
            if yes and self.alive:
                self.run_line(f"remove {quote(cid)}")

        from .dialogs import ConfirmDialog

        self.app.push_screen(ConfirmDialog(f"Remove {name}? (u undoes it)"), done)

    def action_help(self) -> None:
        from .help import HelpScreen, key_rows

        self.app.push_screen(HelpScreen(self.ws.encounter.system, key_rows(self)))

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
                self.saves.open(path)

        from .browser import BrowserScreen

        browser = BrowserScreen(self.ws.folder, self.ws.path, lambda: self.ws.flush(2.0))
        self.app.push_screen(browser, done)

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
        from .forecast import ForecastScreen, ledger_keeper

        path = self.ws.path

        def keep(typed: str | None) -> None:
            self._plays_typed[path] = typed or ""

        typed = self._plays_typed.get(path, "")
        screen = ForecastScreen(
            self.ws.encounter,
            plays=typed,
            keep=ledger_keeper(self.ws),
            run_line=self.run_line,
            campaign=self.ws.session.campaign,
        )
        self.app.push_screen(screen, keep)

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

    def action_quick(self, key: str) -> None:
        quick = quick_key(self.ws.encounter.system, key)
        if quick is None:
            return
        template = quick.template
        if quick.opens_line:
            if (cid := self.runner.selected_or_warn()) is not None:  # (the one acted on)
                enc = self.ws.encounter
                source = (
                    rules_for(enc.system).turns.attack_source(enc, cid)
                    if "{by}" in template
                    else None
                )
                self.query_one(CommandBar).open(*quick.start(enc, cid, source))
        elif "{who}" not in template:
            self.run_line(template)
        elif (cid := self.runner.selected_or_warn()) is not None:
            self.run_line(template.format(who=quote(cid)))

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "remove" and isinstance(self.focused, CommandBar):
            return False  # delete deletes a character there
        phase = self.ws.encounter.phase
        if action == "quick":
            return quick_key(self.ws.encounter.system, str(parameters[0])) is not None
        if action == "run" and parameters[0] == "start":
            return phase is Phase.SETUP
        if action == "run" and parameters[0] == "prev":
            return phase is Phase.ACTIVE
        if action == "choice":
            return bool(self.runner.choices)
        return True


def quick_key(system: str, key: str) -> QuickKey | None:
    """The quick key ``key`` of these rules (None: not one of theirs)."""
    return next((k for k in info(system).quick_keys if k.key == key), None)


def complete_name(ws: Workspace, line: str) -> str | None:
    """The command line with a template's name (after ``from=``), a catalog's name (its
    rules' and the campaign's), a combatant's or an enemy type's completed."""
    from facility_tui.campaign import templates
    from facility_tui.campaign.catalogs import complete

    campaign = Campaign(ws.folder)
    return (
        templates.complete(line, campaign)
        or complete(line, ws.encounter.system, campaign)
        or complete_argument(line, ws.encounter)
    )


def _warm_forecast() -> None:
    """Start the forecast's forkserver (it loads the rules in a process of its own): the first
    forecast's plays then start at once."""
    from facility_tui.forecast import engine as forecast

    # (a head start only: a forecast that cannot start its workers says why when asked)
    with contextlib.suppress(Exception):
        forecast.warm()
