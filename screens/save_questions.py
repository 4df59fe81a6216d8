"""The save's life cycle on the main screen: the questions it puts to the GM, and their answers.

Opening a save can be refused (damaged, or a hand edit its checks refuse): the GM edits it as it
is, opens its newest good version, or leaves it. A save another window writes is offered
read-only (here, or as the player view), and a read-only view follows its writer's autosaves.
A save changed outside while open here waits for the GM: take the edit, or keep this window's
fight. Each question is a ``ChoiceDialog``; the workspace does what the answer says.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
from pathlib import Path
from typing import TYPE_CHECKING

from textual.app import App, SuspendNotSupported

from facility_tui import store

from .widgets.status_pane import written

if TYPE_CHECKING:
    from .main import MainScreen

SETTLE_AFTER = 0.2  # s: after a save opens (its first frame drawn), its undo history is replayed
LINE_EDITORS = {"vi", "vim", "nvim", "view", "nano", "emacs", "micro", "kak", "joe", "mg"}


class SaveQuestions:
    """The save's questions for ``screen``, one at a time (``asking``)."""

    def __init__(self, screen: MainScreen) -> None:
        self.screen = screen
        self.ws = screen.ws
        self.asking = False  # a question about the save is on screen

    def open(self, path: Path) -> None:
        """Open a saved encounter, as the ``o`` browser's choice does (and the palette's)."""
        try:
            note = self.ws.open(path)
        except store.SaveHeld as held:
            self.offer_read_only(path, held)
        except store.DamagedSave as err:
            self.ask_refused(path, str(err))
        except store.SaveError as err:
            self.screen.notify(str(err), severity="error", timeout=10)
        else:
            self.opened(note)

    def opened(self, note: str | None) -> None:
        """A save was opened: shown, with when it was written; its undo history settles."""
        screen = self.screen
        self.show_written()
        screen.refresh_all()
        if note:
            screen.notify(note, severity="warning", timeout=15)
        screen.set_timer(SETTLE_AFTER, self.settle_history)

    def show_written(self) -> None:
        """A save just opened: when it was last written (not yet: the header says so)."""
        when = self.ws.written_at()
        self.screen.save_state = "" if when is None else f"saved {written(when)}"

    def settle_history(self) -> None:
        """Replay the undo history of the save just opened (``Session.settle``) once the fight
        is on screen: opening shows the fight without waiting for its 200 steps."""
        lost = self.ws.session.settle()
        if lost:
            self.screen.notify(
                f"{lost[:1].upper()}{lost[1:]}: u cannot go back", severity="warning"
            )

    def follow(self) -> None:
        """A read-only view follows its writer's autosaves (one ``stat`` when nothing changed)."""
        screen = self.screen
        if self.ws.read_only and screen.alive and self.ws.reload_if_changed():
            screen.save_state = f"read {screen.app.clock()}"  # type: ignore[attr-defined]
            screen.refresh_all()

    def ask_refused(self, path: Path, problem: str) -> None:
        """A save that cannot be taken as it is (damaged, or a hand edit its checks refuse):
        edit it as it is, open its newest good version, or leave it (quit, at launch)."""
        from .dialogs import ChoiceDialog

        screen, ws = self.screen, self.ws
        at_launch = not ws.shown
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
        choices.append(("q", "quit") if at_launch else ("n", f"keep {ws.path.name}"))

        def done(answer: str | None) -> None:
            self.asking = False
            if not screen.alive:
                return
            if answer == "e":
                self._edit_then_open(path, problem)
            elif answer == "b":
                self._open_good(path)
            elif answer == "q":
                screen.app.exit()
            elif answer is None and at_launch:
                self.ask_refused(path, problem)  # nothing to go back to: asked again

        self.asking = True
        screen.app.push_screen(ChoiceDialog(question, choices), done)

    def _edit_then_open(self, path: Path, problem: str) -> None:
        screen = self.screen
        line = re.match(rf"{re.escape(str(path))}:(\d+): ", problem)
        failed = run_editor(screen.app, path, int(line.group(1)) if line else None)
        if failed is not None:
            screen.notify(failed, severity="error", timeout=10)
        try:
            note = self.ws.open(path)
        except store.DamagedSave as err:
            self.ask_refused(path, str(err))
        except store.SaveError as err:
            screen.notify(str(err), severity="error", timeout=10)
            if not self.ws.shown:
                self.ask_refused(path, str(err))
        else:
            self.opened(note)

    def _open_good(self, path: Path) -> None:
        try:
            note = self.ws.open_good(path)
        except store.SaveError as err:
            self.screen.notify(str(err), severity="error", timeout=10)
            self.ask_refused(path, str(err))
            return
        self.opened(note)

    def changed_outside(self, path: Path) -> None:
        """The save was changed outside while open: its writes wait; take the edit (checked
        as any hand edit) or keep this window's fight, the other one kept beside it."""
        screen, ws = self.screen, self.ws
        if self.asking or not screen.alive or path != ws.path:
            return
        from .dialogs import ChoiceDialog

        what, takeable = ws.changed_outside()
        screen.save_state = "NOT SAVED"
        name = ws.path.name
        question = (
            f"{what.removesuffix('; it was left untouched')}.\n"
            f"{name} was changed while open here: nothing is written over it until you choose."
            + (
                f"\nt takes the edit (this window's fight is kept beside it, in {ws.path.stem}.d/);"
                if takeable
                else ""
            )
            + "\nk writes this window's fight over it (the edited file is kept beside it)."
        )
        choices = [("t", "take the edit")] if takeable else []
        choices.append(("k", "keep this window's fight"))

        def done(answer: str | None) -> None:
            self.asking = False
            if not screen.alive:
                return
            try:
                if answer == "t":
                    note = ws.take_edit()
                    screen.refresh_all()
                elif answer == "k":
                    note = ws.keep_mine()
                else:
                    self.changed_outside(path)  # not answered: asked again
                    return
            except store.SaveError as err:
                screen.notify(str(err), severity="error", timeout=10)
                self.changed_outside(path)
                return
            screen.notify(note, severity="warning", timeout=15)

        self.asking = True
        screen.app.push_screen(ChoiceDialog(question, choices), done)

    def offer_read_only(self, path: Path, held: store.SaveHeld) -> None:
        """Another window writes this save: show it read-only, following its autosaves, here
        or as the player view?"""
        from .dialogs import ChoiceDialog
        from .player_view import show_player_view

        screen = self.screen

        def done(answer: str | None) -> None:
            if answer not in ("y", "w") or not screen.alive:
                return
            try:
                note = self.ws.open_read_only(path)
            except store.SaveError as err:
                screen.notify(str(err), severity="error", timeout=10)
                return
            self.opened(note)
            if answer == "w":
                show_player_view(screen)

        choices = [("y", "read-only here"), ("w", "player view"), ("n", "no")]
        screen.app.push_screen(
            ChoiceDialog(f"{held}.\nShow it read-only, following its changes?", choices), done
        )


def run_editor(app: App[object], path: Path, line: int | None = None) -> str | None:
    """Open ``path`` in the GM's editor (``$VISUAL``, ``$EDITOR``, else ``vi``), the app
    suspended meanwhile, at ``line`` if the editor is one known to take ``+LINE``; what went
    wrong, if anything."""
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
            with app.suspend():
                subprocess.run(command, check=False)
        except SuspendNotSupported:  # no terminal to hand over (headless): run it as is
            subprocess.run(command, check=False, stdin=subprocess.DEVNULL)
    except OSError as err:
        return f"Could not run {editor}: {err.strerror or err} (set $EDITOR)"
    return None
