"""Running a line on the main screen, and what follows it.

A line (typed, or a key's command) runs in the workspace. A refusal is said in one line and
changes nothing (2297 offers the downgrade that unblocks it); a line that needs the table's dice
asks for them. Turns that passed by themselves are said. A choice the line has just left open is
offered as a menu, and a line that ends the fight offers the party's hand-back.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING

from facility_tui.bugs import internal_error
from facility_tui.commands.dice import NeedRoll
from facility_tui.commands.grammar import CommandError
from facility_tui.commands.rounds import passed
from facility_tui.model.encounter import Phase
from facility_tui.model.view import Choice
from facility_tui.systems import rules_for

from .widgets.command_bar import CommandBar

if TYPE_CHECKING:
    from .main import MainScreen

HISTORY_VERBS = ("undo", "u", "redo")  # each says what it took back or put back


class LineRunner:
    """Runs lines for ``screen`` and offers what they leave open (``choices``)."""

    def __init__(self, screen: MainScreen) -> None:
        self.screen = screen
        self.ws = screen.ws
        self.choices: tuple[Choice, ...] = ()  # the open choices of the fight shown

    def run(self, line: str) -> bool:
        """Run a command line; a refusal is shown as one line and changes nothing."""
        screen, ws = self.screen, self.ws
        if not screen.alive:
            return False
        enc = ws.encounter
        rules = rules_for(enc.system)
        before = rules.choices.open(enc)
        try:
            outcome = ws.execute(line, prompt=True)
        except NeedRoll as need:  # table dice: the GM types this roll, then the line runs again
            from .roll_prompt import ask_roll

            ask_roll(screen, line, need, ws.encounter.system)
            return True
        except CommandError as err:
            self.clear_toasts()  # only the newest refusal matters
            screen.notify(str(err), severity="error", timeout=6)
            unblock = None if ws.read_only else rules.choices.unblock(enc, line)
            if unblock is not None:  # (2297: a downgrade gives the action asked for)
                self.offer(unblock, then=line)
            return False
        except Exception as err:  # a bug: commands are pure, so the fight is as it was
            screen.notify(internal_error(ws.folder, line, err), severity="error", timeout=15)
            return False
        self.clear_toasts()  # a refusal the GM has just corrected is done with
        screen.after_change()
        if note := ws.take_ledger_note():  # (the fight ended; its outcome could not be kept)
            screen.notify(note, severity="warning", timeout=10, markup=False)
        verb = (line.split() or [""])[0].lower()
        if not outcome.events or verb in HISTORY_VERBS:
            screen.notify(outcome.message, timeout=3)
        elif passes := passed(outcome.events):  # turns that passed by themselves: said, not
            self._said_passed(passes)  # only logged (the GM may be looking at the table)
        if verb == "end":
            self.offer_return(quiet=True)  # the party's lasting state back to the roster
        # A choice the command has just left open is offered at once (not one that undo or
        # redo brings back: the next u would go to its menu).
        if verb not in HISTORY_VERBS:
            new = [c for c in self.choices if c not in before]
            if new:
                self.offer(new[0])
        return True

    def typed(self, line: str) -> None:
        """Enter on the command line: run it; on a refusal the line stays to be corrected."""
        screen = self.screen
        ok = self.run(line)
        bar = screen.query_one(CommandBar)
        if ok:
            bar.close()
            screen.table.focus(scroll_visible=False)  # (always in view: no scroll to queue)
        else:
            bar.keep()

    def cancelled(self) -> None:
        """Escape on the command line: back to the list (the line is cleared)."""
        self.screen.table.focus(scroll_visible=False)

    def _said_passed(self, passes: list[str]) -> None:
        """``Passed: Boarder 1 (dying), Boarder 2 (unconscious). Round 3: Rook's turn``."""
        enc = self.ws.encounter
        now = ""
        if enc.phase is Phase.ACTIVE and enc.current is not None:
            name = rules_for(enc.system).turns.slot_name(enc, enc.current)
            now = f" Round {enc.round}: {name}'s turn."
        self.screen.notify(f"Passed: {', '.join(passes)}.{now}", timeout=6)

    def offer_return(self, *, quiet: bool = False) -> None:
        """The party's PCs of this fight, their lasting state back to ``party.toml``: a summary
        of what changes for the GM to keep, skip a PC or skip all (``party_dialog``). ``quiet``
        (after ``end``): nothing said when the campaign has no party or nothing changes."""
        from facility_tui.campaign import roster
        from facility_tui.campaign.folder import CampaignError

        from .party_dialog import PartyReturnDialog

        screen = self.screen
        campaign = self.ws.session.campaign
        if campaign is None or (quiet and not campaign.party.exists()):
            return
        try:
            changes = roster.returns(campaign, self.ws.encounter)
        except CampaignError as err:
            screen.notify(str(err), severity="error", timeout=8)
            return
        if not changes:
            if not quiet:
                screen.notify("Party: nothing to hand back", timeout=3)
            return

        def done(line: str | None) -> None:
            if not screen.alive:
                return
            if line is None:
                screen.notify("Party: nothing handed back (party return does it later)", timeout=4)
            else:
                self.run(line)

        screen.app.push_screen(PartyReturnDialog(changes), done)

    def offer(self, choice: Choice, then: str | None = None) -> None:
        """Show ``choice`` as a menu; the option chosen runs as a typed line, then ``then`` (the
        line the choice unblocks). Over a dialog (the roll prompt that ran the line) it waits
        for the dialog to close."""
        from textual.screen import ModalScreen

        from .choice_menu import Act, ChoiceMenu

        screen = self.screen

        def chosen(line: str | Act | None) -> None:
            if line is None or not screen.alive:
                return  # left open: the panes show it, n asks
            if isinstance(line, Act):  # a key of the screen's, pressed on the menu
                acts: dict[str, Callable[[], object]] = {
                    "command": screen.action_command,
                    "next": screen.action_next,
                    "undo": partial(self.run, "undo"),
                    "quit": screen.action_quit,
                }
                acts[line.action]()
                return
            if self.run(line) and then is not None and self.run(then):
                bar = screen.query_one(CommandBar)
                if bar.has_focus and bar.value.strip() == then.strip():
                    bar.close()  # the line the GM typed has run
                    screen.table.focus(scroll_visible=False)

        menu = ChoiceMenu(choice)
        app = screen.app
        if isinstance(app.screen, ModalScreen):
            app.call_later(app.push_screen, menu, chosen)
        else:
            app.push_screen(menu, chosen)

    def pending_choice(self) -> Choice | None:
        """The open choice the GM is most likely at: the selected combatant's, else the acting
        one's, else the first."""
        cid, enc = self.screen.table.cursor_key, self.ws.encounter
        for who in (cid, enc.current):
            if who is not None:
                for choice in self.choices:
                    if choice.who == who:
                        return choice
        return self.choices[0] if self.choices else None

    def pending_for(self, verb: str) -> str | None:
        """Whose open choice a command ``verb`` would settle (``suffer``: the one whose failed
        save waits), if any: the palette fills it in."""
        first = self.pending_choice()
        ordered = ((first,) if first else ()) + self.choices
        for choice in ordered:
            if choice.who and any(o.line.split()[0] == verb for o in choice.options):
                return choice.who
        return None

    def confirm_next(self, choices: list[str]) -> None:
        """A turn would end with choices still open (ablate or suffer...): ask first. ``n``
        again ends it (a double-tapped ``n`` does what the key bar says)."""
        from .dialogs import EndTurnDialog

        screen = self.screen

        def done(yes: bool | None) -> None:
            if yes and screen.alive:
                self.run("next")

        shown = "; ".join(choices[:3]) + (
            f" and {len(choices) - 3} more" if len(choices) > 3 else ""
        )
        question = f"Still open: {shown}.\nEnd the turn anyway? It stays open: m settles it later."
        screen.app.push_screen(EndTurnDialog(question), done)

    def clear_toasts(self) -> None:
        if self.screen.save_state != "NOT SAVED":  # (a failing save keeps saying so)
            self.screen.app.clear_toasts()  # type: ignore[attr-defined]

    def selected_or_warn(self) -> str | None:
        cid = self.screen.table.cursor_key
        if cid is None:
            self.screen.notify("No combatant selected; press a to add one", severity="warning")
        return cid

    def writable(self) -> bool:
        """False (and says why) in a read-only view: no dialog opens for a change refused."""
        if self.ws.read_only:
            self.screen.notify(self.ws.read_only_message(), severity="error", timeout=6)
            return False
        return True
