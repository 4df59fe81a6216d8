"""What the GM's panes show, as plain values: rows of boxes, bars with marks, labelled lines.

No Textual or Rich here: a rule system fills these (``View.panes``, ``reminders``) from the
figures its rules compute, and the screens draw them (glyphs, colours). Every row carries its
state in words too (``text``), so a colour-blind GM reads each one; the tone only adds colour.
"""

from __future__ import annotations

from attrs import frozen

from facility_tui.model.text import Detail, Tone


@frozen
class Boxes:
    """A row of boxes: ``full`` ■ (an action left, a wound taken, a PPE mark), then ``empty`` □
    (spent, room left), then ``absent`` · (not granted now), then ``over`` ▣ (past capacity)."""

    label: str
    full: int = 0
    empty: int = 0
    absent: int = 0
    over: int = 0
    text: str = ""  # the row's state in words ("1 left", "2/3 Impaired")
    tone: Tone = Tone.PLAIN


@frozen
class Bar:
    """A value out of a maximum, with marks at thresholds: ``marks`` are (value, short label).

    ``extra`` is a second part drawn after ``value`` (stun after physical damage); the bar is
    filled to ``value + extra``."""

    label: str
    value: int
    maximum: int
    marks: tuple[tuple[int, str], ...] = ()
    text: str = ""
    tone: Tone = Tone.PLAIN
    extra: int = 0


Row = Boxes | Bar | Detail


@frozen
class Pane:
    """One titled pane of the selected combatant (Actions, Injury, Wound tracks...)."""

    title: str
    rows: tuple[Row, ...]


@frozen
class Public:
    """A combatant as the players see it (``watch``, a public report): its state in words, never
    exact damage or wounds."""

    state: str  # 2297 "Serious", "unhurt", "down", "dying", "dead"; Facility "ok", "hurt", "out"...
    conditions: tuple[str, ...] = ()
    fallen: bool = False  # out of the fight (down, dying, dead, out, fled...)


@frozen
class Option:
    """One way to settle an open choice: the command line that makes it, run as if typed (so it
    is logged, saved and undoable like any other line)."""

    key: str  # one character, unique within its choice ('1', '2'... or an initial)
    label: str  # what it does, in a few words
    line: str  # the exact command line
    default: bool = False  # the rules' default (exactly one per choice)


@frozen
class Choice:
    """A choice the rules leave open for the GM (deal or crit, ablate or suffer, Edge...): whose
    it is, a one-line title that names them, and its options."""

    who: str | None  # the combatant it concerns (its id), if one
    title: str
    options: tuple[Option, ...]
    lapses: bool = False  # the turn's end settles it with its default (so 'n' need not ask)

    @property
    def default(self) -> Option:
        return next(o for o in self.options if o.default)

    def option(self, key: str) -> Option | None:
        """The option on ``key``, or ``None``."""
        return next((o for o in self.options if o.key == key), None)
