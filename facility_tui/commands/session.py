"""A session: the current encounter plus its undo/redo history.

History is a list of steps, each the command line and the dice it rolled. In memory every undoable
step keeps the encounter it replaced, so undo is instant; redo re-applies the line with its recorded
dice, so it gives back exactly what was shown. On disk the history is the oldest kept encounter plus
the steps, rebuilt by replaying them (see ``store``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

from attrs import field, frozen

from facility_tui.campaign.folder import Campaign, Read
from facility_tui.commands.dice import Roll
from facility_tui.commands.dispatch import Line, apply, preview, read_line
from facility_tui.commands.grammar import CommandError
from facility_tui.model.encounter import Encounter, LogEntry

HISTORY_LIMIT = 200


@frozen
class Step:
    """One change: a command line and the dice it rolled; or an edit made to the save outside
    facility-tui (``edit``: the data ``handedit.apply_edit`` replays, ``line`` "edit")."""

    line: str
    rolls: tuple[Roll, ...] = ()
    edit: Any = None
    # the campaign entries the command read (``campaign.Read``), given back when it replays
    reads: tuple[Read, ...] = field(default=(), metadata={"omit_default": True})

    @property
    def title(self) -> str:
        """How the step is named to the GM (Undid: ..., Redid: ...)."""
        if self.edit is None:
            return self.line
        note = self.edit.get("note", "") if isinstance(self.edit, dict) else ""
        return f"the edit made outside facility-tui ({note})" if note else self.line


def run_step(enc: Encounter, step: Step) -> Encounter:
    """The encounter ``step`` leads to from ``enc``, with its recorded dice (never re-rolled)."""
    if step.edit is not None:
        from facility_tui.commands.edits import apply_edit

        return apply_edit(enc, step.edit)
    return apply(enc, step.line, step.rolls, reads=step.reads).encounter


class Later(NamedTuple):
    """A saved history not yet replayed: its oldest state, its steps, and the replay (with the
    recorded dice) checked against the fight as saved, ``None`` if it does not lead there."""

    base: Encounter
    steps: tuple[Step, ...]
    replay: Callable[[], Session | None]


LOST = "the save's undo history could not be rebuilt; the fight itself is intact"


@frozen
class Outcome:
    message: str
    events: tuple[LogEntry, ...] = ()
    changed: bool = True


class Session:
    def __init__(
        self,
        encounter: Encounter,
        undo: Sequence[tuple[Step, Encounter]] = (),
        redo: Sequence[Step] = (),
        limit: int = HISTORY_LIMIT,
        later: Later | None = None,
    ) -> None:
        self.encounter = encounter
        self._undo: list[tuple[Step, Encounter]] = list(undo)
        self._redo: list[Step] = list(redo)
        self.limit = limit
        self.listeners: list[Callable[[Session], None]] = []
        self.campaign: Campaign | None = None  # the folder its commands read templates... from
        self.seed: int | None = None  # the shell's seed, for what a line beside the fight rolls
        # A history opened from a save is replayed when first needed (``settle``): opening a
        # save reads the fight, not the 200 steps that led to it. Until then ``_undo`` holds
        # only the steps made since, and saving writes the saved steps as they were read.
        self._later = later
        self.lost: str | None = None  # why the saved history was dropped, once ``settle`` knows

    def fork(self) -> Session:
        """A session with the same state and history, changed on its own from now on."""
        forked = Session(self.encounter, self._undo, self._redo, self.limit, self._later)
        forked.campaign, forked.seed = self.campaign, self.seed
        forked.lost = self.lost
        return forked

    def settle(self) -> str | None:
        """Replay a history opened from a save, if not done yet; the reason, if it was dropped."""
        later, self._later = self._later, None
        if later is None:
            return None
        replayed = later.replay()
        if replayed is None:
            self.lost = LOST
            return self.lost
        self._undo[:0] = replayed._undo
        self._trim()
        return None

    # -- history views ------------------------------------------------------------------------

    @property
    def undo_steps(self) -> list[Step]:
        saved = list(self._later.steps) if self._later is not None else []
        return saved + [s for s, _ in self._undo]

    @property
    def undo_states(self) -> list[tuple[Step, Encounter]]:
        """Each step with the state it was made from, the oldest first."""
        self.settle()
        return list(self._undo)

    @property
    def redo_steps(self) -> list[Step]:
        """Steps that redo would apply, the next one last."""
        return list(self._redo)

    @property
    def base(self) -> Encounter:
        """The oldest encounter the history can go back to."""
        if self._later is not None:
            return self._later.base
        return self._undo[0][1] if self._undo else self.encounter

    @property
    def states(self) -> list[Encounter]:
        """The encounters the kept history went through, oldest first, ending with this one."""
        self.settle()
        return [*(e for _, e in self._undo), self.encounter]

    def can_undo(self) -> bool:
        return bool(self._undo) or (self._later is not None and bool(self._later.steps))

    def can_redo(self) -> bool:
        return bool(self._redo)

    # -- changing -----------------------------------------------------------------------------

    def read(self, line: str) -> Line:
        """``line`` read for this encounter (``dispatch.read_line``), to run with ``execute``."""
        return read_line(line, self.encounter.system)

    def execute(self, line: str | Line, *, prompt: bool = False) -> Outcome:
        """Run one line, read once: ``undo``, ``redo`` or a command. Raises ``CommandError`` on
        bad input; ``prompt`` (the app): ``dice.NeedRoll`` for a roll the GM is to type (table
        dice)."""
        read = line if isinstance(line, Line) else self.read(line)
        spec = read.spec
        if spec.group == "history":  # undo and redo: entries of the table, run on the history
            return self.undo() if spec.verb == "undo" else self.redo()
        if not read.in_history:  # writes a campaign file (a template, the party): not a
            # change of the fight, so not in its history; what it did is its message
            applied = apply(self.encounter, read, campaign=self.campaign, seed=self.seed)
            said = new_entries(self.encounter, applied.encounter)
            return Outcome(" ".join(e.text for e in said) or f"Done: {read.text}", changed=False)
        return self.apply(read, prompt=prompt)

    def preview(self, line: str) -> list[str]:
        """What ``line`` would do, before it runs (``dispatch.preview``): changes nothing."""
        return preview(self.encounter, line, self.campaign)

    def apply(self, line: str | Line, *, prompt: bool = False) -> Outcome:
        before = self.encounter
        applied = apply(before, line, prompt=prompt, campaign=self.campaign)
        self._push(Step(applied.line, applied.rolls, reads=applied.reads), before)
        self._redo.clear()
        return self._changed(before, applied.encounter, f"Done: {applied.line}")

    def undo(self) -> Outcome:
        self.settle()
        if not self._undo:
            raise CommandError(f"nothing to undo: {self.lost}" if self.lost else "nothing to undo")
        step, before = self._undo.pop()
        self._redo.append(step)
        current = self.encounter
        self.encounter = before
        self._notify()
        return Outcome(f"Undid: {step.title}", (), current != before)

    def redo(self) -> Outcome:
        if not self._redo:
            raise CommandError("nothing to redo")
        step = self._redo[-1]
        before = self.encounter
        after = run_step(before, step)
        self._redo.pop()
        self._push(step, before)
        return self._changed(before, after, f"Redid: {step.title}")

    def record(self, step: Step) -> Outcome:
        """Run a step made elsewhere (an edit of the save outside facility-tui) as a change."""
        before = self.encounter
        after = run_step(before, step)
        self._push(step, before)
        self._redo.clear()
        return self._changed(before, after, f"Done: {step.title}")

    def _push(self, step: Step, before: Encounter) -> None:
        self._undo.append((step, before))
        if self._later is None:  # (a saved history not replayed yet is cut when it is)
            self._trim()

    def _trim(self) -> None:
        if len(self._undo) > self.limit:
            del self._undo[: len(self._undo) - self.limit]

    def _changed(self, before: Encounter, after: Encounter, message: str) -> Outcome:
        self.encounter = after
        self._notify()
        return Outcome(message, new_entries(before, after))

    def _notify(self) -> None:
        for listener in self.listeners:
            listener(self)


def new_entries(before: Encounter, after: Encounter) -> tuple[LogEntry, ...]:
    """Log lines that ``after`` added to ``before`` (all of them when the log was replaced)."""
    n = len(before.log)
    if n <= len(after.log) and (n == 0 or after.log[n - 1] is before.log[-1]):
        return after.log[n:]
    return tuple(after.log)


def rebuild(base: Encounter, steps: Sequence[Step], redo: Sequence[Step] = ()) -> Session:
    """A session whose history replays ``steps`` from ``base`` with their recorded dice."""
    undo: list[tuple[Step, Encounter]] = []
    enc = base
    for step in steps:
        undo.append((step, enc))
        enc = run_step(enc, step)
    return Session(enc, undo, redo)
