"""The main screen: initiative list, detail pane, log, command bar.

Panes only read the encounter and send command lines; every number they show comes from the core
(``RuleSystem.summary`` / ``details``).
"""

from __future__ import annotations

import gc
from pathlib import Path

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.message import Message
from textual.reactive import Reactive
from textual.screen import Screen
from textual.widget import Widget

from facility_tui import store
from facility_tui.dice import NeedRoll
from facility_tui.dispatch import listed
from facility_tui.errors import internal_error
from facility_tui.grammar import CommandError, quote
from facility_tui.model import (
    ENEMIES,
    PCS,
    Combatant,
    Encounter,
    Kind,
    LogEntry,
    Phase,
)
from facility_tui.report import status_line
from facility_tui.systems import RuleSystem, info, infos, rules_for
from facility_tui.text import Tone, printable
from facility_tui.workspace import Workspace

from .collector import EVERY as COLLECT_EVERY
from .collector import IdleCollector
from .command_bar import CommandBar
from .initiative import InitiativeList
from .key_bar import KeyBar
from .log_pane import LogPane
from .text_pane import TextPane

LOG_SHOWN = 200  # lines the log pane keeps while it grows
KIND_STYLE = {
    Kind.INFO: "",
    Kind.ROLL: "cyan",
    Kind.OVERRIDE: "yellow",
    Kind.EFFECT: "magenta",
    Kind.TURN: "bold green",
}
SIDE_LABEL = {PCS: "PC", ENEMIES: "Enemy"}
SIDE_STYLE = {PCS: "cyan", ENEMIES: "red"}  # names are coloured by side; the legend is in help
NAME_WIDTH = 18

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
SAVE_DELAY = 0.06  # s: a change is drawn first, then written (quit and round ends flush at once)
FOLLOW_EVERY = 0.5  # s: how often a read-only view looks for its writer's autosaves
WIDE = 110  # from this width the detail pane is always shown; below it, i toggles it


def short(name: str, width: int = NAME_WIDTH) -> str:
    """A name cut in the middle, so the number that tells "Drone 1" from "Drone 2" stays."""
    if len(name) <= width:
        return name
    tail = width // 3
    return f"{name[: width - tail - 1]}…{name[-tail:]}"


TONE_STYLE = {Tone.PLAIN: "", Tone.WARN: "yellow", Tone.BAD: "bold red"}


def _log_text(e: LogEntry) -> Text:
    # Plain text, never markup; control characters from an old save are shown escaped.
    return Text(f"[{e.round}] {printable(e.text)}", style=KIND_STYLE.get(e.kind, ""))


def shown_path(path: Path) -> str:
    """The save path as the GM reads it: relative to here, or with ~ for home."""
    try:
        return str(path.resolve().relative_to(Path.cwd()))
    except ValueError:
        pass
    try:
        return "~/" + str(path.resolve().relative_to(Path.home()))
    except ValueError:
        return str(path)


class MainScreen(Screen[None]):
    # Screen repaints all of itself when focus moves (every confirm from the command line); the
    # widget losing focus and the one gaining it repaint themselves, which is all that changes.
    focused: Reactive[Widget | None] = Reactive(None, repaint=False)

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
        Binding("i", "details", "Details pane", show=False, priority=True, id="details"),
        Binding("question_mark", "help", "Help", priority=True, id="help"),
        Binding("ctrl+n", "new", "New encounter", show=False, priority=True, id="new"),
        Binding("o", "open", "Open a save", show=False, priority=True, id="open"),
        Binding("j", "cursor(1)", "Down", show=False, priority=True, id="down"),
        Binding("k", "cursor(-1)", "Up", show=False, priority=True, id="up"),
        Binding("q", "quit", "Quit", priority=True, id="quit"),
        *QUICK_BINDINGS.values(),
    ]

    class SaveStatus(Message):
        """Posted from the autosaver's thread (``post_message`` is thread-safe)."""

        def __init__(self, when: float | None, error: str | None) -> None:
            super().__init__()
            self.when = when
            self.error = error

    def __init__(self, workspace: Workspace, open_file: Path | None = None) -> None:
        super().__init__()
        self.ws = workspace
        self._open_file = open_file
        self._shown: Encounter | None = None
        self._detail_for: tuple[str | None, Encounter] | None = None
        self._status_for: tuple[object, ...] | None = None
        self._row_cells: dict[str, tuple[tuple[object, ...], list[Text | str]]] = {}
        # The rows last shown: (shared inputs, ids in order, combatants, which are acting).
        self._listing: tuple[tuple[object, ...], list[str], list[Combatant], list[bool]] | None = (
            None
        )
        self._path_shown: tuple[Path, str] | None = None
        self._save_state = ""
        self._quit_anyway = False
        self.collector = IdleCollector()

    # -- layout -------------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        # Styled narrow or wide from the start: a class changed on the first resize restyles
        # every widget again before the first frame.
        self.on_resize()
        yield TextPane(id="status")
        with Horizontal(id="body"):
            yield InitiativeList(id="order")
            with VerticalScroll(id="detail-box"):
                yield TextPane(id="detail")
        yield LogPane(_log_text, keep=LOG_SHOWN, id="log")
        yield CommandBar(run=self._run_typed, cancel=self._cancelled, id="command")
        yield KeyBar(id="keys")

    def on_resize(self) -> None:
        self.set_class((self.size.width or self.app.size.width) < WIDE, "-narrow")

    def action_details(self) -> None:
        self.toggle_class("-details")

    @on(InitiativeList.Selected)
    def _row_chosen(self) -> None:
        if self.has_class("-narrow"):
            self.action_details()

    def on_mount(self) -> None:
        def saved(_path: Path, when: float) -> None:  # (on the autosaver's thread)
            self.post_message(self.SaveStatus(when, None))

        def failed(message: str) -> None:
            self.post_message(self.SaveStatus(None, message))

        self.ws.autosave(saved=saved, failed=failed, delay=SAVE_DELAY)
        messages = self.ws.open_initial(self._open_file)
        self.refresh_all()
        for message in messages:
            self.notify(message, timeout=10)
        self.table.focus()
        self.collector.start()
        self.set_interval(COLLECT_EVERY, self.collector.tick)
        self.set_interval(FOLLOW_EVERY, self._follow)

    def _follow(self) -> None:
        """A read-only view follows its writer's autosaves (one ``stat`` when nothing changed)."""
        if self.ws.read_only and self.alive and self.ws.reload_if_changed():
            self._shown = None
            self._save_state = f"read {self.app.clock()}"  # type: ignore[attr-defined]
            self.refresh_all()

    def on_unmount(self) -> None:
        self.collector.stop()

    @property
    def table(self) -> InitiativeList:
        return self.query_one("#order", InitiativeList)

    # -- rendering ----------------------------------------------------------------------------

    def refresh_all(self) -> None:
        self._render_table()
        self._render_log()
        self._render_status()
        self._render_detail()
        self._shown = self.ws.encounter
        # A loaded session (its log, its undo history) is long-lived: move it out of the
        # collector's way, or a full collection traversing it (50+ ms at 200 combatants) now
        # and then lands in a key press. New objects are still collected as usual.
        gc.freeze()

    def _render_status(self) -> None:
        enc = self.ws.encounter
        inputs = (enc, self._save_state, self.ws.path)
        if self._status_for is not None and all(
            a is b for a, b in zip(inputs, self._status_for, strict=True)
        ):
            return
        self._status_for = inputs
        rules = rules_for(enc.system)
        if enc.phase is Phase.ACTIVE and enc.current is not None:
            turn = Text.assemble(
                (f"Round {enc.round}", "bold"),
                " · turn: ",
                (printable(rules.slot_name(enc, enc.current)), "bold green"),
                " · next: ",
                printable(rules.slot_name(enc, enc.upcoming or enc.current)),
            )
        else:
            turn = Text(printable(status_line(enc)), style="bold")
        saved = self._save_state or "not saved yet"
        where = Text.assemble(
            ("READ-ONLY " if self.ws.read_only else "", "bold reverse"),
            (printable(enc.name), "bold"),
            f" [{rules.title}]  ",
            (printable(f"{self._shown_path()} · {saved}"), "dim"),
        )
        lines = Text("\n").join([turn, where])
        lines.no_wrap, lines.overflow = True, "ellipsis"  # two lines, each cut to the width
        self.query_one("#status", TextPane).update(lines)

    def _shown_path(self) -> str:
        path = self.ws.path
        if self._path_shown is None or self._path_shown[0] != path:
            self._path_shown = (path, shown_path(path))  # resolve() costs file-system calls
        return self._path_shown[1]

    def _render_table(self) -> None:
        """Give the list this encounter's rows; it repaints only the rows that changed."""
        enc = self.ws.encounter
        rules = rules_for(enc.system)
        selected = self._selected_id()
        columns = [" ", "#", "Name"]
        if rules.show_initiative:
            columns.append("Init")
        columns += rules.columns
        current = enc.current
        listing = listed(enc)
        # What a row's cells are made of besides the combatant itself: ``summary(enc, c)`` reads
        # the combatant, whether its slot is acting, and these encounter-wide fields (not the
        # turn index, the other combatants or the log).
        shared = (enc.system, enc.phase, enc.round, enc.order, enc.state, len(columns))
        acting = [current is not None and (current == c.id or current == c.side) for c in listing]
        ids = [c.id for c in listing]
        last = self._listing
        self._listing = (shared, ids, listing, acting)
        if last is not None and last[0] == shared and last[1] == ids:
            # The same rows in the same order (a hit, a turn): the model is immutable, so only
            # rows whose combatant is another object, or whose turn came or went, get new cells.
            rows = zip(listing, last[2], acting, last[3], strict=True)
            for i, (c, was, now, then) in enumerate(rows):
                if c is not was or now != then:
                    cells = self._cells_of(rules, enc, c, i + 1, now, shared, self._row_cells)
                    self.table.set_cells(i, cells)
        else:
            cache, self._row_cells = self._row_cells, {}  # (keeps the rows shown now only)
            self.table.set_rows(
                columns,
                [
                    (c.id, self._cells_of(rules, enc, c, i, now, shared, cache))
                    for i, (c, now) in enumerate(zip(listing, acting, strict=True), 1)
                ],
            )
        self._select(selected)

    def _cells_of(
        self,
        rules: RuleSystem,
        enc: Encounter,
        c: Combatant,
        i: int,
        acting: bool,
        shared: tuple[object, ...],
        cache: dict[str, tuple[tuple[object, ...], list[Text | str]]],
    ) -> list[Text | str]:
        """A row's cells, taken from ``cache`` while their inputs are the same objects (a row
        moved by an insertion above it is computed again; one that kept its place is not)."""
        inputs = (c, i, acting, shared)
        kept = cache.get(c.id)
        if kept is not None and kept[0] == inputs:
            cells = kept[1]
        else:
            cells = self._row(rules, enc, c, i, acting)
        self._row_cells[c.id] = (inputs, cells)
        return cells

    @staticmethod
    def _row(
        rules: RuleSystem, enc: Encounter, c: Combatant, i: int, acting: bool
    ) -> list[Text | str]:
        mark = Text("▶", style="bold green") if acting else " "
        summary = rules.summary(enc, c)
        name = Text(short(printable(c.name)), style=SIDE_STYLE.get(c.side, ""))
        if acting:
            name.stylize("bold")
        cells: list[Text | str] = [mark, str(i), name]
        if rules.show_initiative:
            cells.append(str(c.initiative))
        cells += [printable(str(summary.get(col, ""))) for col in rules.columns]
        return cells

    def _select(self, cid: str | None) -> None:
        enc = self.ws.encounter
        target = cid
        if enc.current and enc.has(enc.current) and (self._turn_moved() or target is None):
            target = enc.current
        if target is not None and enc.has(target):
            self.table.move_to(target)

    def _turn_moved(self) -> bool:
        before = self._shown
        enc = self.ws.encounter
        return before is None or (before.round, before.turn) != (enc.round, enc.turn)

    def _selected_id(self) -> str | None:
        return self.table.cursor_key

    def _render_detail(self) -> None:
        enc = self.ws.encounter
        cid = self._selected_id()
        if (
            self._detail_for is not None
            and self._detail_for[0] == cid
            and self._detail_for[1] is enc
        ):
            return  # same combatant in the same encounter state: nothing to redraw
        self._detail_for = (cid, enc)
        pane = self.query_one("#detail", TextPane)
        if cid is None or not enc.has(cid):
            pane.update(Text("No combatants yet.\nPress a to add one.", style="dim"))
            return
        c = enc.get(cid)
        rules = rules_for(enc.system)
        lines = Text()
        lines.append(f"{printable(c.name)}\n", style="bold")
        # where the table has no Init column, the rules' details say what initiative means
        init = f" · init {c.initiative}" if rules.show_initiative else ""
        lines.append(f"{SIDE_LABEL.get(c.side, c.side)}{init}\n", style="dim")
        for d in rules.details(enc, c):
            lines.append(f"{d.label}: ", style="bold")
            lines.append(printable(d.text), style=TONE_STYLE[d.tone])
            lines.append("\n")
        if c.notes:
            lines.append(f"Note: {printable(c.notes)}\n", style="italic")
        pane.update(lines)

    def _render_log(self) -> None:
        self.query_one("#log", LogPane).show(self.ws.encounter.log)

    def _after_change(self) -> None:
        before = self._shown
        enc = self.ws.encounter
        if before is None or (before.phase, before.system) != (enc.phase, enc.system):
            self.refresh_bindings()  # check_action depends on these only (the footer recomposes)
        self._render_table()
        if before is None or enc.log is not before.log:
            self._render_log()  # repaints only the lines that changed
        self._render_detail()
        self._shown = enc
        self._render_status()

    # -- saving (the workspace's autosaver writes every change; this shows how it went) --------

    @on(SaveStatus)
    def _save_status(self, event: SaveStatus) -> None:
        if event.error is not None:
            if self._save_state != "NOT SAVED":  # say it once, not at every retry
                self.notify(event.error, severity="error", timeout=15)
            self._save_state = "NOT SAVED"
        else:
            self._save_state = f"saved {self.app.clock()}"  # type: ignore[attr-defined]
        self._render_status()
        self.collector.quiet_moment()  # the change is drawn and written: a quiet moment

    # -- running commands ---------------------------------------------------------------------

    def run_line(self, line: str) -> bool:
        """Run a command line; a refusal is shown as one line and changes nothing."""
        if not self.alive:
            return False
        try:
            outcome = self.ws.execute(line, prompt=True)
        except NeedRoll as need:  # table dice: the GM types this roll, then the line runs again
            from .roll_prompt import ask_roll

            ask_roll(self, line, need, self.ws.encounter.system)
            return True
        except CommandError as err:
            self._clear_toasts()  # only the newest refusal matters
            self.notify(str(err), severity="error", timeout=6)
            return False
        except Exception as err:  # a bug: commands are pure, so the fight is as it was
            self.notify(internal_error(self.ws.folder, line, err), severity="error", timeout=15)
            return False
        self._clear_toasts()  # a refusal the GM has just corrected is done with
        self._after_change()
        if not outcome.events:
            self.notify(outcome.message, timeout=3)
        return True

    def _clear_toasts(self) -> None:
        if self._save_state != "NOT SAVED":  # (a failing save keeps saying so)
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
        else:
            self.run_line("next")

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

    def action_prefill(self, template: str) -> None:
        cid = self.selected_or_warn()
        if cid is not None:
            self.action_command(template.format(who=quote(cid)))

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
            self._shown = None
            self.refresh_all()
            self.notify(f"New encounter; the previous one stays in {self.ws.folder}")
            return True

        from .dialogs import NewEncounterDialog

        self.app.push_screen(NewEncounterDialog(create))

    def action_open(self) -> None:
        def done(path: object) -> None:
            if path is None or not self.alive:
                return
            assert isinstance(path, Path)
            try:
                note = self.ws.open(path)
            except store.SaveHeld as held:
                self._offer_read_only(path, held)
                return
            except store.SaveError as err:
                self.notify(str(err), severity="error", timeout=10)
                return
            self._opened(note)

        from .dialogs import OpenDialog

        self.app.push_screen(OpenDialog(self.ws.saves(), self.ws.path), done)

    def open_path(self, path: Path) -> None:
        """Open a saved encounter, as the ``o`` dialog's choice does (the command palette's)."""
        try:
            note = self.ws.open(path)
        except store.SaveHeld as held:
            self._offer_read_only(path, held)
        except store.SaveError as err:
            self.notify(str(err), severity="error", timeout=10)
        else:
            self._opened(note)

    def _opened(self, note: str | None) -> None:
        self._shown = None
        self._save_state = "opened"
        self.refresh_all()
        if note:
            self.notify(note, severity="warning", timeout=15)

    def _offer_read_only(self, path: Path, held: store.SaveHeld) -> None:
        """Another window writes this save: show it read-only, following its autosaves?"""
        from .dialogs import ConfirmDialog

        def done(yes: bool | None) -> None:
            if not yes or not self.alive:
                return
            try:
                note = self.ws.open_read_only(path)
            except store.SaveError as err:
                self.notify(str(err), severity="error", timeout=10)
                return
            self._opened(note)

        self.app.push_screen(
            ConfirmDialog(f"{held}.\nShow it read-only, following its changes?"), done
        )

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
        for k in info(self.ws.encounter.system).quick_keys:
            if k.key == key:
                return k.template
        return None

    def action_quick(self, key: str) -> None:
        template = self._quick(key)
        if template is None:
            return
        if template.endswith(" "):
            self.action_prefill(template)
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
        if action == "prev":
            return phase is Phase.ACTIVE
        return True

    @on(InitiativeList.Highlighted)
    def _highlighted(self) -> None:
        self._render_detail()

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
            (shown(b), b.description)
            for b in self.BINDINGS
            if isinstance(b, Binding)
            and b.action not in ("cursor(1)", "cursor(-1)")
            and not b.action.startswith("quick")
        ]
        up_down = [
            shown(b) for b in self.BINDINGS if isinstance(b, Binding) and b.id in ("down", "up")
        ]
        rows.append(
            (f"{' / '.join(up_down)} / ↑ ↓", "Move the selection (enter shows details when narrow)")
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
        rows.append(("", "Names in cyan are PCs and allies, in red enemies"))
        return rows
