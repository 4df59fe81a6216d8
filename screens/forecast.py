"""The danger forecast (``F``, or "Forecast" in the palette): the fight played out many times from
where it stands (``forecast.engine``, docs/forecast.md), in worker processes driven from a
thread worker, so the screen stays responsive; the figures sharpen as chunks of plays arrive, a
progress bar counts them, escape stops the plays and closes. The plays line changes how some
combatants are played (``blanc=focus; boarder 1=flee at serious``); enter runs again with it.

``ctrl+t`` tunes the fight to a target (``screens/tune.py``): the forecast's plays stop while it
tunes (both would share the cores), and play again when it closes; the change it applies closes
the forecast too (the fight it showed is gone).

The plays line is the screen's one focus: whatever the GM types goes there, ↑↓ and the page
keys scroll the figures from it, and it is handed back on closing (the tracker opens the next
forecast of the fight with it). The line below says how many lines of figures are above and
below the view.

Names come from the save: every line is shown as plain text (``Text``), never markup.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.widgets import Input, Label, ProgressBar

from facility_tui.campaign.folder import Campaign
from facility_tui.forecast import engine as forecast
from facility_tui.model.encounter import PCS, Encounter
from facility_tui.model.text import printable
from facility_tui.systems.plays import PLAY_WORDS, Play

from .render.text_pane import TextPane
from .scrolling import ScrollingModal

if TYPE_CHECKING:
    from facility_tui.workspace import Workspace

# Keeps a forecast that played to its end (its tally, the plays it used, its seed) in the
# campaign's ledger; returns the line to say when it could not ("": kept)
Keeper = Callable[[forecast.Tally, dict[str, Play], int], str]

RUNS = 1000
# s: the figures are shown again at most this often (and when the last play is in): each time
# redraws the screen, and the last chunks, a play each, came every few ms (a key pressed then
# waited for the redraws)
SHOW_EVERY = 0.25
# s: while the GM types in the plays line (a key this recent), the figures hold still: a redraw
# takes the frame's slot, and a key pressed just after one waited up to a frame more
QUIET_WHILE_TYPING = 0.6


class ForecastScreen(ScrollingModal[str]):
    """Dismissed with the plays line as the GM left it."""

    DEFAULT_CSS = """
    ForecastScreen {
        align: center middle;
    }
    ForecastScreen > Vertical {
        width: 100%;
        max-width: 110;
        height: 100%;
        border: thick $primary;
        background: $surface;
        padding: 0 1;
    }
    ForecastScreen #forecast-title {
        width: 100%;
        text-style: bold;
    }
    ForecastScreen ProgressBar {
        height: 1;
    }
    ForecastScreen #forecast-results {
        height: 1fr;
    }
    ForecastScreen #forecast-hint {
        width: 100%;
        color: $text-muted;
    }
    """

    SCROLLED = "forecast-results"
    BINDINGS = [
        Binding("escape", "close", "Close (stops the plays)", priority=True),
        # (a control key: the plays line takes every letter typed)
        Binding("ctrl+t", "tune", "Tune to a target", priority=True, id="tune"),
    ]

    def __init__(
        self,
        enc: Encounter,
        runs: int | None = None,
        processes: int | None = None,
        *,
        plays: str = "",
        keep: Keeper | None = None,
        run_line: Callable[[str], bool] | None = None,
        campaign: Campaign | None = None,
    ) -> None:
        """``plays``: the plays line as the GM left it at the last forecast of this fight;
        ``keep``: where each forecast that plays to its end is kept (the forecast ledger);
        ``run_line``: how the tracker runs a typed line (a tuned change is applied with it;
        None: the fight shown is not the one played, a step of the timeline); ``campaign``:
        the templates a tuned roster adds from."""
        super().__init__()
        self.keep = keep
        self.run_line = run_line
        self.campaign = campaign
        self.enc = enc
        self.runs = RUNS if runs is None else runs
        self.processes = processes
        self.seed = enc.seed
        self.typed = plays
        self.plays: dict[str, Play] = {}
        self._generation = 0  # a new run (or closing) makes the running one stop
        self.done = 0  # plays shown
        self._shown_hint = ""
        self._typed = 0.0  # when the GM last typed in the plays line (time.monotonic)

    def compose(self) -> ComposeResult:
        with Vertical():
            title = f"Forecast: {printable(self.enc.name)} — {self.runs} plays, seed {self.seed}"
            yield Label(Text(title), id="forecast-title")
            # (the hint below says what enter does: the words fit the input at 80 columns)
            plays = Input(self.typed, placeholder=f"NAME=PLAY; … ({PLAY_WORDS})")
            # a steady cursor (as the command line's): a blink redraws the screen twice a
            # second, and a key pressed just after one waited for the next frame's slot
            plays.cursor_blink = False
            yield plays
            yield ProgressBar(total=self.runs, show_eta=False)
            # (the figures never take the focus from the plays line: its keys scroll them)
            with VerticalScroll(id="forecast-results", can_focus=False):
                # (a pane that redraws only the lines whose figures changed, and lays the
                # screen out again only when it grows: a Static redrew it all at each update)
                yield TextPane(id="forecast-text")
            # (not the app's ``hint``, which keeps a blank line above: here, a line of figures)
            yield Label(Text(self._hint(0, 0)), id="forecast-hint")

    def on_mount(self) -> None:
        results = self.query_one("#forecast-results", VerticalScroll)
        # the line below the figures says what is out of view; any change of it comes with a
        # new scroll position or a new height of the figures, or of their box
        self.watch(results, "scroll_y", self._more, init=False)
        self.watch(results, "virtual_size", self._more, init=False)
        self.query_one(Input).focus()
        if self.typed.strip():  # (the line handed back: its plays, when they still read)
            try:
                self.plays = forecast.read_plays(self.enc, forecast.parse_plays_text(self.typed))
            except forecast.ForecastError as err:
                self.notify(f"{err}: playing the default plays", severity="error", markup=False)
        self._start()

    def on_resize(self) -> None:
        self.call_after_refresh(self._more)

    @staticmethod
    def _hint(above: int, below: int) -> str:
        """The keys, and how many lines of figures are out of view above and below."""
        parts = ["⏎ reruns"]  # (with the plays line above it: at 80 columns the hint is one line)
        if above or below:
            arrows = " ".join(f"{arrow} {n}" for arrow, n in (("↑", above), ("↓", below)) if n)
            parts.append(f"{arrows} more line{'s' if max(above, below) > 1 else ''}")
        parts.append("^t tunes")
        parts.append("escape stops and closes")
        return " · ".join(parts)

    def _more(self) -> None:
        if not self.is_attached:
            return
        results = self.query_one("#forecast-results", VerticalScroll)
        above = round(results.scroll_y)
        below = max(0, results.max_scroll_y - above)
        hint = self._hint(above, below)
        label = self.query_one("#forecast-hint", Label)
        if hint != self._shown_hint:
            self._shown_hint = hint
            label.update(Text(hint))

    def _start(self) -> None:
        self._generation += 1
        generation = self._generation
        self.query_one(ProgressBar).update(total=self.runs, progress=0)
        self.query_one("#forecast-text", TextPane).update(Text("Playing the fight out…"))
        self.run_worker(
            lambda: self._play(generation), thread=True, group="forecast", exit_on_error=False
        )

    def _play(self, generation: int) -> None:
        """In a thread: the forecast's chunks as they arrive, shown on the app's thread."""
        shown = 0.0
        tally = None
        try:
            for tally in forecast.run(
                self.enc,
                self.runs,
                self.seed,
                self.plays,
                processes=self.processes,
                stop=lambda: self._generation != generation,
            ):
                now = time.monotonic()
                if tally.runs < self.runs and (
                    now - shown < SHOW_EVERY or now - self._typed < QUIET_WHILE_TYPING
                ):
                    continue
                shown = now
                lines = forecast.lines(self.enc, tally, self.plays, self.seed)
                self.app.call_from_thread(self._show, generation, tally.runs, lines)
            if (
                self.keep is not None
                and tally is not None
                and tally.runs == self.runs
                and generation == self._generation
                and (note := self.keep(tally, self.plays, self.seed))
            ):
                self.app.call_from_thread(self._said, note)
        except forecast.ForecastError as err:
            self.app.call_from_thread(self._show, generation, 0, [str(err)])
        except Exception as err:  # (a pool that could not start: said, not raised)
            said = f"The forecast stopped: {type(err).__name__}: {err}"
            self.app.call_from_thread(self._show, generation, 0, [said])

    def _show(self, generation: int, runs: int, lines: list[str]) -> None:
        if generation != self._generation or not self.is_attached:
            return
        self.done = runs
        self.query_one(ProgressBar).update(progress=runs)
        shown = [Text(printable(line)) for line in lines]  # (lines as they are: no join, split)
        self.query_one("#forecast-text", TextPane).show_lines(shown)

    def _said(self, note: str) -> None:
        if self.is_attached:
            self.notify(note, severity="warning", timeout=10, markup=False)

    @on(Input.Changed)
    def _typing(self, _event: Input.Changed) -> None:
        self._typed = time.monotonic()

    @on(Input.Submitted)
    def _replay(self, event: Input.Submitted) -> None:
        event.stop()
        try:
            words = forecast.parse_plays_text(event.value)
            self.plays = forecast.read_plays(self.enc, words)
        except forecast.ForecastError as err:
            self.notify(str(err), severity="error", markup=False)
            return
        self._start()

    def action_tune(self) -> None:
        """Tune the fight to a target (``TuneScreen``); the forecast's plays stop meanwhile."""
        from .tune import TuneScreen

        if not self.is_current:  # (a second ctrl+t in a burst: the tuning is already open)
            return
        unfinished = self.done < self.runs
        self._generation += 1

        def done(line: str | None) -> None:
            if not self.is_attached:
                return
            if line and self.run_line is not None:
                self.action_close()
                self.run_line(line)
            elif unfinished:
                self._start()

        tuning = TuneScreen(
            self.enc,
            campaign=self.campaign,
            plays=self.plays,
            can_apply=self.run_line is not None,
            processes=self.processes,
        )
        self.app.push_screen(tuning, done)

    def action_close(self) -> None:
        self._generation += 1  # the running plays stop (their workers are ended)
        self.dismiss(self.query_one(Input).value)


def ledger_keeper(ws: Workspace) -> Keeper | None:
    """The ``keep`` of a forecast of the fight ``ws`` shows as it stands: its campaign's
    forecast ledger (``campaign.ledger``), the fight by its save's name, at the present step."""
    from facility_tui.campaign import ledger

    campaign, session = ws.session.campaign, ws.session
    if campaign is None:
        return None
    enc, step, name = (
        session.encounter,
        session.timeline.current,
        ledger.fight_name(campaign, ws.path),
    )

    def keep(tally: forecast.Tally, plays: dict[str, Play], seed: int) -> str:
        entry = ledger.entry_of(enc, step, tally.runs, tally.wins[PCS], seed, plays)
        try:
            ledger.record(campaign, name, entry)
        except ledger.LedgerError as err:
            return f"The forecast ledger: {err}"
        return ""

    return keep
