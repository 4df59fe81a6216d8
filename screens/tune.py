"""Tuning the fight to a target (``ctrl+t`` on the forecast screen; docs/forecast.md, 'Tuning a
fight'): the GM types the target (``win 80 deaths 10 rounds 6``; ``arm boarder``: by the
Boarders' weapon instead of the counts), enter tunes; the rosters (or weapons) tried are listed
as their plays come in, then the chosen change and its odds; enter again applies it as one step
(the ``muster`` or ``arm`` line, through the typed-line route: in the log, ``u`` takes it
back). Escape closes and stops the plays; nothing changes.

The search (``forecast.tune``) runs in a thread worker, its plays in the forecast's worker
processes. Names come from the save: every line is plain text (``Text``), never markup.
"""

from __future__ import annotations

from collections.abc import Mapping

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.widgets import Input, Label, Static

from facility_tui.campaign.folder import Campaign
from facility_tui.commands.muster import counts
from facility_tui.forecast import tune
from facility_tui.forecast.engine import ForecastError
from facility_tui.model.encounter import Encounter
from facility_tui.model.text import counted, printable
from facility_tui.systems.plays import Play

from .scrolling import ScrollingModal

PLACEHOLDER = "win 80 deaths 10 rounds 6 (arm boarder: by its weapon)"
WIDTH = 74  # the steps' lines at 80 columns (the frame, padding and scroll bar off)


class TuneScreen(ScrollingModal[str | None]):
    """Dismissed with the ``muster`` or ``arm`` line to apply, or None (escape: nothing
    changes)."""

    DEFAULT_CSS = """
    TuneScreen {
        align: center middle;
    }
    TuneScreen > Vertical {
        width: 100%;
        max-width: 110;
        height: 100%;
        border: thick $primary;
        background: $surface;
        padding: 0 1;
    }
    TuneScreen #tune-title {
        width: 100%;
        text-style: bold;
    }
    TuneScreen #tune-status {
        width: 100%;
        color: $text-muted;
    }
    TuneScreen #tune-steps {
        height: 1fr;
    }
    TuneScreen #tune-hint {
        width: 100%;
        color: $text-muted;
    }
    """

    SCROLLED = "tune-steps"
    BINDINGS = [
        Binding("escape", "close", "Close (stops the plays)", priority=True),
    ]

    def __init__(
        self,
        enc: Encounter,
        *,
        campaign: Campaign | None = None,
        plays: Mapping[str, Play] | None = None,
        can_apply: bool = True,
        processes: int | None = None,
    ) -> None:
        """``plays``: the forecast's plays of some combatants; ``can_apply``: False where the
        fight shown is not the one being played (a step of the timeline)."""
        super().__init__()
        self.enc = enc
        self.campaign = campaign
        self.plays = dict(plays or {})
        self.can_apply = can_apply
        self.processes = processes
        self._generation = 0  # a new tuning (or closing) makes the running one stop
        self.target = ""  # the target text of the tuning running or done
        self.result: tune.Tuning | None = None  # the last tuning, once its roster is chosen
        self.running = False

    def compose(self) -> ComposeResult:
        with Vertical():
            title = f"Tune: {printable(self.enc.name)} — how many enemies, or their weapons"
            yield Label(Text(title), id="tune-title")
            line = Input(placeholder=PLACEHOLDER)
            line.cursor_blink = False  # (as the forecast's line: no redraw twice a second)
            yield line
            yield Label(Text("Type a target, then ⏎"), id="tune-status")
            with VerticalScroll(id="tune-steps", can_focus=False):
                yield Static(Text(self._explain()), id="tune-text")
            yield Label(Text(self._hint()), id="tune-hint")

    def on_mount(self) -> None:
        self.query_one(Input).focus()

    def _explain(self) -> str:
        kinds = (
            ", ".join(
                f"{name} {n} ({tune.today_weapons(self.enc, name)})"
                for name, n in counts(self.enc).items()
            )
            or "none"
        )
        return (
            f"Enemies today: {kinds}\n\n"
            "Each roster tried is played out by the forecast (no estimate) until its chance is "
            "clear of the target; the one chosen is played to ±2 points.\n\n"
            "arm TYPE (win 80 arm boarder) tries the catalog's weapons for that type instead, "
            "the counts as today."
        )

    def _hint(self) -> str:
        if self.result is not None and self.result.chosen is not None and not self.running:
            if not self.result.chosen.line:
                what = "weapons are" if self.result.armed else "roster is"
                return f"today's {what} the one: nothing to apply · escape closes"
            if not self.can_apply:
                return "a past step: apply it from the tracker's forecast (F) · escape closes"
            return "⏎ applies the change (u undoes it) · escape closes"
        return "⏎ tunes (arm TYPE: by its weapon) · escape stops and closes"

    # -- the target, and enter --------------------------------------------------------------

    @on(Input.Submitted)
    def _enter(self, event: Input.Submitted) -> None:
        event.stop()
        text = event.value.strip()
        try:
            goal, arm = tune.read_request(text)
            if arm:
                tune.check_arm(self.enc, arm, "arm")
        except tune.TuneError as err:
            self.notify(str(err), severity="error", markup=False)
            return
        if text == self.target and self.running:
            self.notify("Still tuning: escape stops it", markup=False)
            return
        if text == self.target and self.result is not None and self.result.chosen is not None:
            self._apply()
            return
        self._start(text, goal, arm)

    def _apply(self) -> None:
        assert self.result is not None and self.result.chosen is not None
        line = self.result.chosen.line
        if not line:
            what = "weapons are" if self.result.armed else "roster is"
            self.notify(f"Today's {what} the one: nothing to apply", markup=False)
        elif not self.can_apply:
            self.notify(
                "This is a step of the timeline: apply it from the tracker's forecast (F)",
                severity="warning",
                markup=False,
            )
        else:
            self._generation += 1
            self.dismiss(line)

    # -- tuning ---------------------------------------------------------------------------

    def _start(self, text: str, goal: tune.Target, arm: list[str]) -> None:
        self._generation += 1
        generation = self._generation
        self.target, self.result, self.running = text, None, True
        self.query_one("#tune-hint", Label).update(Text(self._hint()))
        self._show(generation, [f"Tuning to {goal.words()}…"], "Starting the plays…")
        self.run_worker(
            lambda: self._tune(generation, goal, arm),
            thread=True,
            group="tune",
            exit_on_error=False,
        )

    def _tune(self, generation: int, goal: tune.Target, arm: list[str]) -> None:
        """In a thread: the steps as they come, shown on the app's thread."""
        result = tune.Tuning(self.enc, goal)

        def stop() -> bool:
            return self._generation != generation

        try:
            for event in tune.tune(
                self.enc,
                goal,
                self.enc.seed,
                arm=arm,
                campaign=self.campaign,
                plays=self.plays,
                processes=self.processes,
                stop=stop,
                result=result,
            ):
                if stop():
                    return
                plays = sum(t.runs for t in result.trials)
                status = (
                    f"Trying {event.trial.label()}: {event.trial.runs} plays "
                    f"({self._tried(result)}, {plays} plays in all)"
                )
                self.app.call_from_thread(self._show, generation, self._lines(result), status)
        except ForecastError as err:
            self.app.call_from_thread(self._done, generation, None, [str(err)])
            return
        except Exception as err:  # (a pool that could not start: said, not raised)
            said = f"The tuning stopped: {type(err).__name__}: {err}"
            self.app.call_from_thread(self._done, generation, None, [said])
            return
        if not stop():
            self.app.call_from_thread(self._done, generation, result, self._lines(result))

    @staticmethod
    def _tried(result: tune.Tuning) -> str:
        """``5 rosters``, or by weapons ``5 weapons``."""
        return counted(len(result.trials), "weapon" if result.armed else "roster")

    def _lines(self, result: tune.Tuning) -> list[str]:
        if result.chosen is not None:
            lines = tune.lines(result, self.enc.seed)
        else:
            lines = [f"{result.start.name}: tuning to {result.goal.words()}"]
            if result.armed:
                lines.append(f"By the weapons of {', '.join(result.armed)} (the counts as today)")
            lines += ["", "Tried:", *(f"  {tune.step_line(t)}" for t in result.trials)]
        # (a roster tried whose line is wider than the screen's: why it stopped below it)
        out: list[str] = []
        for line in lines:
            head, dash, why = line.partition(" — ")
            out += [head, f"      {why}"] if dash and len(line) > WIDTH else [line]
        return out

    def _show(self, generation: int, lines: list[str], status: str) -> None:
        if generation != self._generation or not self.is_attached:
            return
        self.query_one("#tune-status", Label).update(Text(printable(status)))
        text = Text("\n".join(printable(line) for line in lines))
        self.query_one("#tune-text", Static).update(text)

    def _done(self, generation: int, result: tune.Tuning | None, lines: list[str]) -> None:
        if generation != self._generation or not self.is_attached:
            return
        self.running = False
        self.result = result
        if result is None or result.chosen is None:
            self.target = ""  # (enter tunes again)
            status = "Stopped"
        else:
            plays = sum(t.runs for t in result.trials)
            change = tune.change_words(result.start, result.chosen, result.today)
            status = f"Done: {self._tried(result)}, {plays} plays · {change}"
        self._show(generation, lines, status)
        self.query_one("#tune-hint", Label).update(Text(self._hint()))
        if result is not None and result.chosen is not None:
            # (what enter applies, and its odds, are the last lines: in view, not below it)
            steps = self.query_one("#tune-steps", VerticalScroll)
            self.call_after_refresh(steps.scroll_end, animate=False)

    # -- keys -----------------------------------------------------------------------------

    def action_close(self) -> None:
        self._generation += 1  # the running plays stop (their workers are ended)
        self.dismiss(None)
