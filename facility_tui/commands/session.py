"""A session: the current encounter plus its undo/redo history.

History is the fight's timeline (``timeline``): every step, the command line and the dice it
rolled, as a tree; undo and redo walk its live branch, a command after an undo starts a branch and
keeps the old one. A fight once reached is kept a while, so undo is instant; any other is replayed
from the nearest one kept, with the recorded dice. On disk the timeline is its nodes, the fight
before the first and full fights at intervals (see ``store``); opened, it is checked by replaying
the last step from the nearest one (``settle``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

from attrs import field, frozen

from facility_tui.campaign.folder import Campaign, Read
from facility_tui.commands.dice import Roll
from facility_tui.commands.dispatch import Line, apply, preview, read_line
from facility_tui.commands.grammar import CommandError
from facility_tui.commands.timeline import ROOT, Timeline
from facility_tui.model.encounter import Encounter, Kind, LogEntry
from facility_tui.model.text import MAX_NAME, control_in


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
    """A saved timeline not checked yet: ``check`` replays its current node (``opened``) from
    the nearest fight kept, with the recorded dice, and says whether it leads to the fight as
    saved (``at``); ``last`` is the newest node the save held. If not, the timeline is dropped
    and the steps made since it was opened kept (``Timeline.since``)."""

    check: Callable[[Timeline], bool]
    opened: int
    last: int
    at: Encounter


LOST = "the save's undo history could not be rebuilt; the fight itself is intact"


@frozen
class Outcome:
    message: str
    events: tuple[LogEntry, ...] = ()
    changed: bool = True


class Session:
    """The fight and its timeline (``timeline.Timeline``): every step kept, as a tree.

    Built from a history as a list (``undo``: each step with the fight it was made from, the
    oldest first; ``redo``: steps undone, the next last), as a store or a replay hands it over,
    or from a ``timeline``."""

    def __init__(
        self,
        encounter: Encounter,
        undo: Sequence[tuple[Step, Encounter]] = (),
        redo: Sequence[Step] = (),
        later: Later | None = None,
        *,
        timeline: Timeline | None = None,
    ) -> None:
        self.encounter = encounter
        self.timeline = timeline if timeline is not None else _as_timeline(encounter, undo, redo)
        self.listeners: list[Callable[[Session], None]] = []
        self.campaign: Campaign | None = None  # the folder its commands read templates... from
        self.seed: int | None = None  # the shell's seed, for what a line beside the fight rolls
        # A timeline opened from a save is checked when first needed (``settle``): opening a
        # save reads the fight, not the steps that led to it. Until then it is as read, and
        # saving writes it so.
        self._later = later
        self.lost: str | None = None  # why the saved history was dropped, once ``settle`` knows

    def fork(self) -> Session:
        """A session with the same state and history, changed on its own from now on."""
        forked = Session(self.encounter, later=self._later, timeline=self.timeline.copy())
        forked.campaign, forked.seed = self.campaign, self.seed
        forked.lost = self.lost
        return forked

    def settle(self) -> str | None:
        """Check a timeline opened from a save, if not done yet; the reason, if it was dropped."""
        later, self._later = self._later, None
        if later is None or later.check(self.timeline):
            return None
        self.timeline = self.timeline.since(later.opened, later.last, later.at)
        self.lost = LOST
        return self.lost

    # -- history views ------------------------------------------------------------------------

    @property
    def undo_steps(self) -> list[Step]:
        """The steps from the oldest fight to this one (the live branch up to now)."""
        tl = self.timeline
        return [tl.node(n).step for n in tl.path(tl.current)]

    @property
    def undo_states(self) -> list[tuple[Step, Encounter]]:
        """Each step up to now with the fight it was made from, the oldest first."""
        self.settle()
        tl = self.timeline
        path = tl.path(tl.current)
        states = [tl.state_at(n, run_step) for n in [ROOT, *path[:-1]]]
        return [(tl.node(n).step, st) for n, st in zip(path, states, strict=True)]

    @property
    def redo_steps(self) -> list[Step]:
        """Steps that redo would apply, the next one last."""
        tl = self.timeline
        ahead, nid = [], tl.next_of(tl.current)
        while nid is not None:  # (forward only: the way back is not read)
            ahead.append(tl.node(nid).step)
            nid = tl.next_of(nid)
        return ahead[::-1]

    @property
    def base(self) -> Encounter:
        """The oldest encounter the history can go back to."""
        return self.timeline.root

    @property
    def states(self) -> list[Encounter]:
        """The encounters the live branch went through, oldest first, ending with this one."""
        self.settle()
        tl = self.timeline
        return [*(tl.state_at(n, run_step) for n in [ROOT, *tl.path(tl.current)[:-1]]),
                self.encounter]  # fmt: skip

    def can_undo(self) -> bool:
        return self.timeline.current != ROOT

    def can_redo(self) -> bool:
        return self.timeline.next_of(self.timeline.current) is not None

    def state_at(self, nid: int) -> Encounter:
        """The fight as it was at node ``nid`` of the timeline (replayed, recorded dice)."""
        self.settle()
        if nid == self.timeline.current:
            return self.encounter
        return self.timeline.state_at(nid, run_step)

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
        """Run a command: a new step, child of this one (after an undo, a new branch: the line
        undone stays in the timeline)."""
        before = self.encounter
        applied = apply(before, line, prompt=prompt, campaign=self.campaign)
        step = Step(applied.line, applied.rolls, reads=applied.reads)
        return self._add(step, before, applied.encounter, f"Done: {applied.line}")

    def undo(self) -> Outcome:
        self.settle()
        tl = self.timeline
        if tl.current == ROOT:
            raise CommandError(f"nothing to undo: {self.lost}" if self.lost else "nothing to undo")
        step = tl.node(tl.current).step
        before = tl.state_at(tl.parent(tl.current), run_step)
        tl.go(tl.parent(tl.current))
        current = self.encounter
        self.encounter = before
        self._notify()
        return Outcome(f"Undid: {step.title}", (), current != before)

    def redo(self) -> Outcome:
        self.settle()
        tl = self.timeline
        nxt = tl.next_of(tl.current)
        if nxt is None:
            raise CommandError("nothing to redo")
        step = tl.node(nxt).step
        before = self.encounter
        after = tl.known(nxt)
        if after is None:
            after = run_step(before, step)
            tl.keep(nxt, after)
        tl.go(nxt)
        return self._changed(before, after, f"Redid: {step.title}")

    def go(self, nid: int) -> Outcome:
        """Make node ``nid`` of the timeline the present: the fight as it was there (the steps
        after it stay, redo walks back along them)."""
        self.settle()
        tl = self.timeline
        if nid not in tl or tl.is_hidden(nid):
            raise CommandError(f"no step {nid} in this fight's timeline")
        before = self.encounter
        after = self.state_at(nid)
        tl.go(nid)
        self.encounter = after
        self._notify()
        where = f"step {nid}" if nid != ROOT else "the start"
        return Outcome(f"Back to {where}: round {after.round}", (), before != after)

    # -- the timeline's branches: its metadata, not steps of the fight -------------------------

    def name_branch(self, tip: int, name: str) -> str:
        """Name the branch ending at ``tip`` (an empty name takes the name away); the line for
        the GM. Raises ``CommandError`` for a name out of bounds (nothing changed)."""
        name = name.strip()
        if (bad := control_in(name)) is not None:
            raise CommandError(f"a branch's name cannot hold a control character ({bad})")
        if len(name) > MAX_NAME:
            raise CommandError(f"a branch's name is at most {MAX_NAME} characters")
        self._a_tip(tip)
        self.timeline.name(tip, name)
        self._notify()
        return f"Branch named {name}" if name else "Branch name taken away"

    def _a_tip(self, tip: int) -> None:
        tl = self.timeline
        if tip == ROOT:
            raise CommandError("no step yet: a branch begins with the fight's first step")
        if tip not in tl or tl.is_hidden(tip) or tl.children(tip):
            raise CommandError(f"no branch ends at step {tip}")

    def hide_branch(self, tip: int) -> int:
        """Hide the branch ending at ``tip`` from where it leaves the others (never destroyed:
        ``show_branch`` with the node returned brings it back). ``CommandError`` for the branch
        being played."""
        self._a_tip(tip)
        tl = self.timeline
        try:
            if tl.tip(tl.current) == tip:  # (redo walks it: also at the start of the fight)
                raise ValueError(tip)
            fork = tl.hide(tip)
        except ValueError:
            raise CommandError(
                "the branch being played cannot be deleted: go to another one first"
            ) from None
        self._notify()
        return fork

    def show_branch(self, fork: int) -> None:
        """Bring back a branch hidden from ``fork``."""
        self.timeline.show(fork)
        self._notify()

    def record(self, step: Step) -> Outcome:
        """Run a step made elsewhere (an edit of the save outside facility-tui) as a change."""
        before = self.encounter
        return self._add(step, before, run_step(before, step), f"Done: {step.title}")

    def _add(self, step: Step, before: Encounter, after: Encounter, message: str) -> Outcome:
        tl = self.timeline
        tl.keep(tl.current, before)
        tl.add(step, after, reads_as(step, new_entries(before, after)))
        return self._changed(before, after, message)

    def _changed(self, before: Encounter, after: Encounter, message: str) -> Outcome:
        self.encounter = after
        self._notify()
        return Outcome(message, new_entries(before, after))

    def _notify(self) -> None:
        for listener in self.listeners:
            listener(self)


def _as_timeline(
    encounter: Encounter, undo: Sequence[tuple[Step, Encounter]], redo: Sequence[Step]
) -> Timeline:
    """A timeline of one branch: ``undo``'s steps up to ``encounter``, then ``redo``'s."""
    if not undo:
        tl = Timeline(encounter)
    else:
        tl = Timeline(undo[0][1])
        for (step, before), after in zip(undo, [*(b for _, b in undo[1:]), encounter], strict=True):
            tl.add(step, after, reads_as(step, new_entries(before, after)))
    here = tl.current
    for step in reversed(redo):  # (their fights are known when walked to: round, words unknown)
        tl.add(step, None, step.title, encounter.round)
    tl.go(here)
    return tl


def reads_as(step: Step, said: Sequence[LogEntry]) -> str:
    """How the timeline reads a step: the last turn line it logged (a start or a ``next`` says
    whose turn it now is, above the rolls, effects and passed turns before it), else the first
    line it logged, else its line."""
    turn = next((e.text for e in reversed(said) if e.kind is Kind.TURN), None)
    return turn or (said[0].text if said else step.title)


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
