"""What the core asks of a rule system: a few small interfaces, one per job.

A rule system is a package (``systems/<id>/``, found by id in ``systems``) whose ``system.py``
ties its parts into a ``RuleSystem``: what the rules are called (``SystemInfo``), their commands
and demo, the sheet and state they keep, and one part per job, each in a module of its own:

- ``Turns`` (``turns.py``): the order of a round and what its turns and rounds start and end
  with (the round state machine, ``commands.rounds``), the initiative the common commands set;
- ``Choices`` (``choices.py``): the choices the rules leave open for the GM (the menu,
  ``n``'s question, the panes);
- ``View`` (``view.py``): what the screens show of the rules' figures: the list's columns, the
  selected combatant's panes, the players' words;
- ``Tactics`` (``tactics.py``): the forecast's default play of a turn (``forecast.engine``);
- ``Carry`` (``carry.py``): what of a sheet outlasts a fight (the party, templates);
- ``Validation`` (``validation.py``): what a save edited by hand must hold (``store.checks``).

A part is made once, with the rules it belongs to (``self.rules``: what it asks another part).
Every part but ``Turns`` has a default that adds nothing of the rules' own: a system overrides
what its rules say. The core never names a system's modules: it asks ``rules_for(id)``.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, ClassVar

from attrs import frozen

from facility_tui.commands.grammar import CommandError, quote
from facility_tui.model.encounter import Combatant, Encounter, Phase, Sheet
from facility_tui.model.text import Detail, Tone
from facility_tui.model.view import Choice, Pane, Public

if TYPE_CHECKING:
    from facility_tui.commands.dice import Dice
    from facility_tui.commands.spec import Call, Spec
    from facility_tui.systems.plays import Play, TurnPlay


class RuleError(CommandError):
    """Input the rules cannot accept; the message is one line, fit for the GM (a refusal of any
    command, also of one that reaches the rules through the round hooks: ``next``, ``start``)."""


@frozen
class QuickKey:
    """A key of the rules in play: it runs ``template`` on the selected combatant (``{who}``), or
    opens the command line with it started when it ends in a space (for the GM to finish).

    The selected row always means the one acted on (hit, harmed, aided, attacked). A command with
    a second role names it ``{actor}``: the acting combatant (``start``); a harm names its source
    with ``{by}``: ``by=`` the attacker the rules give (``Turns.attack_source``), left out when
    there is none."""

    key: str
    label: str  # the key bar's word for it
    template: str
    help: str = ""  # what it does, for help and the README
    shown: bool = True  # on the key bar (the rest are in help)
    id: str = ""  # the binding's id, which a config file remaps (a key both systems use has one)

    @property
    def opens_line(self) -> bool:
        """Whether the key opens the command line for the GM to finish (else it runs)."""
        return self.template.endswith(" ") or "{by}" in self.template

    def start(self, enc: Encounter, who: str, source: str | None = None) -> tuple[str, int]:
        """The line this key starts on the selected combatant ``who`` and where the cursor
        goes in it: ``attack ACTING WHO `` (at its end); ``attack ACTING `` when the selected
        one is acting, or is of the side whose turn it is (Facility: the GM types the target);
        ``attack ␣ WHO `` with the cursor on the attacker's place when no one is (setup, or one
        of the other side selected in a side's turn). With ``{by}``:
        ``harm WHO ␣ by=SOURCE``, the cursor where the GM types the rest."""
        if "{by}" in self.template:
            head = self.template[: self.template.index("{by}")].format(who=quote(who))
            return (f"{head} by={quote(source)}" if source else head), len(head)
        if "{actor}" not in self.template:
            line = self.template.format(who=quote(who))
            return line, len(line)
        current = enc.current if enc.phase is Phase.ACTIVE else None
        actor = current if current is not None and enc.has(current) else None
        if actor is None and current is not None and enc.has(who) and enc.get(who).side == current:
            actor = who  # (a side's turn, one of its own selected: it is the one acting)
        if actor is None:
            return self.template.format(actor="", who=quote(who)), self.template.index("{actor}")
        if actor == who:
            line = self.template.format(actor=quote(actor), who="").rstrip() + " "
        else:
            line = self.template.format(actor=quote(actor), who=quote(who))
        return line, len(line)


@frozen
class SystemInfo:
    """What the app knows of a rule system before its rules load (``systems/<id>/info.py``)."""

    id: str  # what ``new ID NAME`` and ``--demo ID`` take, and what saves record
    title: str
    quick_keys: tuple[QuickKey, ...] = ()
    option_hint: str = ""  # rule options of ``add``, as the Add dialog suggests them
    add_example: str = "add Thug init=2d6"  # as the command line's placeholder suggests it
    # Whole sides take turns (Facility, F7): no one has an initiative of its own to roll or set
    side_initiative: bool = False


class Part:
    """One part of a rule system, made once with the rules it belongs to."""

    def __init__(self, rules: RuleSystem) -> None:
        self.rules = rules


class Turns(Part, ABC):
    """Turns and rounds (C1, C2): the order of each round and what its turns and rounds start
        and end with. The round state machine (``commands.rounds``) asks; each hook answers with a
        new encounter. Every system says how its rounds are ordered (``round_order``); the rest
    has a default: turns in descending initiative, no per-turn effects."""

    def listed(self, enc: Encounter) -> list[Combatant]:
        """Combatants in the order the initiative pane shows them."""
        return sorted(enc.combatants, key=lambda c: -c.initiative)

    def begin_combat(self, call: Call) -> Encounter:
        """Settle what must be settled before round 1 (e.g. Facility's side initiative)."""
        return call.enc

    @abstractmethod
    def round_order(self, enc: Encounter, dice: Dice) -> Encounter:
        """Set ``enc.order`` for the round starting now (``enc.round`` is already the new one)."""

    def round_started(self, enc: Encounter, dice: Dice) -> Encounter:
        return enc

    def round_ended(self, enc: Encounter, dice: Dice) -> Encounter:
        return enc

    def turn_started(self, enc: Encounter, slot: str, dice: Dice) -> Encounter:
        return enc

    def turn_ended(self, enc: Encounter, slot: str, dice: Dice) -> Encounter:
        return enc

    def turn_passed_on(self, enc: Encounter, slot: str, dice: Dice) -> Encounter | None:
        """``turn_ended`` of ``slot``, the marker moved to the next slot of the round, and that
        slot's ``turn_started``, done at once (a forecast's play, which keeps no log, passes
        on a turn at every ``next``); None: the system does them one by one."""
        return None

    def can_act(self, enc: Encounter, slot: str) -> bool:
        """Whether the turn just started can be played; if not, it passes by itself (C2: the
        slot is still visited, so its ticks happen, then skipped)."""
        return True

    def idle_reason(self, enc: Encounter, slot: str) -> str:
        """Why a turn that ``can_act`` refuses cannot be played, in a few words (``dying``), for
        the log's line and the GM's message when it passes by itself ("" none said)."""
        return ""

    def slot_name(self, enc: Encounter, slot: str) -> str:
        """How a turn's owner is shown: a combatant's name, or a side's."""
        return enc.get(slot).name if enc.has(slot) else slot

    def attack_source(self, enc: Encounter, target: str) -> str | None:
        """Whose attack a harm to ``target`` would be now (a quick key's ``by=``): the acting
        combatant, if it is not the target; ``None`` when there is none to name."""
        current = enc.current
        return current if current is not None and current != target and enc.has(current) else None

    def removed(self, enc: Encounter, cid: str) -> Encounter:
        """Forget a removed combatant in the rules' state."""
        return enc

    def initiative_from_face(self, call: Call, c: Combatant, face: str) -> int:
        """``init WHO face=N``: the initiative from the dice as rolled at the table."""
        raise CommandError(
            f"{self.rules.title} initiative has no dice to add to: init WHO N sets it"
        )

    def initiative_set(self, enc: Encounter, cid: str) -> Encounter:
        """The GM typed a combatant's initiative (C4): it wins over anything pending."""
        return enc


class Choices(Part):
    """The choices the rules leave open for the GM now, each with its options as command lines
    (one of them the default): the panes, the pending menu and ``n``'s question read this one
    list. By default there are none."""

    def open(self, enc: Encounter) -> tuple[Choice, ...]:
        """Every choice open now."""
        return ()

    def unblock(self, enc: Encounter, line: str) -> Choice | None:
        """A choice that would let ``line``, just refused, run (2297: the turn's downgrade
        when the action asked for is gone, A4); ``None`` when the rules know none."""
        return None

    def unsettled(self, enc: Encounter) -> list[str]:
        """The open choices a turn's end would not settle by their default (one line each):
        the app asks before a turn ends with any of them."""
        return [choice.title for choice in self.open(enc) if not choice.lapses]


class View(Part):
    """What the screens show of the rules' figures, as plain values the rules computed (the
    screens choose the look, and never compute rules themselves): the list's columns, the
    selected combatant's panes and the GM's reminders, the players' words."""

    #: Headers of the extra initiative-table columns; ``summary`` returns a value for each.
    columns: tuple[str, ...] = ()
    #: Whether the table shows the plain initiative number (off where a column already does).
    show_initiative: bool = True
    #: The list's short forms for a narrow screen, in the order the list turns to them:
    #: column -> (its short title, {word: short word}). The ``?`` help lists them.
    short_forms: Mapping[str, tuple[str, Mapping[str, str]]] = {}
    #: The widest words a column may hold: the list keeps room for them (and their short forms),
    #: so that it does not jump when one first shows (a hit, an undo).
    column_words: Mapping[str, tuple[str, ...]] = {}
    #: What a short form is, for a column whose words are not replaced one by one (the help).
    short_help: Mapping[str, str] = {}
    #: Extra columns of free text, shown cut to the room left rather than left out.
    cut_columns: tuple[str, ...] = ()
    #: Every state word ``public_state`` may give: the player view keeps room for the widest,
    #: so that its columns do not move when one first shows (a hit, an undo).
    public_words: tuple[str, ...] = ("in the fight",)

    def abbreviate(self, column: str, text: str) -> str:
        """A list cell's short form: each word as ``short_forms`` says."""
        words = self.short_forms.get(column, ("", {}))[1]
        if not words:
            return text
        return " ".join(words.get(w, w) for w in text.split(" "))

    def summary(self, enc: Encounter, c: Combatant) -> dict[str, Any]:
        """Rule-derived figures of a combatant: short values keyed by ``columns`` (and more for
        ``show --json`` and the report)."""
        return {}

    def list_row(self, enc: Encounter, c: Combatant) -> dict[str, Any]:
        """The list's row: ``summary``'s values for ``columns`` (at least). The list asks for
        every row at a round's start; a rule system may work out these alone, faster."""
        return self.summary(enc, c)

    def panes(self, enc: Encounter, c: Combatant) -> list[Pane]:
        """The panes of the selected combatant's column (action economy, injury, wound
        tracks...), as plain values the rules computed; the screens draw them."""
        return []

    def reminders(self, enc: Encounter) -> list[Detail]:
        """What the GM must not miss now, in words (bleeding applied, a death countdown, a
        check that is due, a choice still open): shown at the top of the column."""
        return [Detail("Open", choice.title, Tone.WARN) for choice in self.rules.choices.open(enc)]

    def public_state(self, enc: Encounter, c: Combatant) -> Public:
        """What the players may know of a combatant (the player view, a public report): its
        state in words from the rules' own figures."""
        return Public("in the fight")

    def state_word(self, enc: Encounter, c: Combatant) -> str:
        """A combatant's state in the words of the GM's list (``uncons.``, ``Impaired 1``),
        for the GM's report and the party; by default the players' word."""
        return self.public_state(enc, c).state


END_WORD = 10  # the most characters of ``Tactics.end_word`` (a Facility ``Impaired 5``)


class Tactics(Part):
    """The forecast's default play of a turn (``forecast.engine``), as command lines, changed
    per combatant by the GM's words (``systems.plays``). By default: no play at all."""

    #: What a play's ``flee at`` takes (``systems.plays``).
    flee_words: tuple[str, ...] = ()
    #: The default play in words, listed with every forecast.
    assumptions: tuple[str, ...] = ()
    #: What ``ammo`` counts, spent, as the forecast's column is headed (at most 9 characters).
    ammo_spent = "ammo used"

    def next_line(self, enc: Encounter, slot: str, turn: TurnPlay) -> str | None:
        """The next command line of the acting ``slot``'s default play, as ``turn``'s plays
        change it; ``None`` when the turn has no more."""
        return None

    def fallen(self, enc: Encounter, c: Combatant) -> str | None:
        """Out of the fight, and how: "" (standing), "fled", "down" or "dying" (or dead);
        ``None`` for what is no combatant (an object the rules made)."""
        return ""

    def check_play(self, play: Play) -> str:
        """Why ``play`` cannot be played in this system ("" when it can)."""
        title = self.rules.title
        if play.flee and play.flee_level not in self.flee_words:
            return f"flee at '{play.flee}': {title} takes {', '.join(self.flee_words)}"
        if play.harm:
            return f"harm {play.harm}: {title} plays no harm of its own"
        return ""

    def settle(self, enc: Encounter, choice: Choice) -> str:
        """The forecast's answer to a choice left open: by default the menu's default."""
        return choice.default.line

    def ammo(self, c: Combatant) -> int:
        """The ammunition ``c`` holds, to count what a forecast spends (its drops)."""
        return 0

    def end_word(self, enc: Encounter, c: Combatant) -> str:
        """How ``c`` ends a forecast's play, in at most ``END_WORD`` characters (the forecast's
        column): the list's word, or its short form (never a word cut); one ``fallen`` counts
        as out is said out (not its injury). By default the list's word (``state_word``)."""
        return self.rules.view.state_word(enc, c)


class Carry(Part):
    """A sheet beyond one fight: what of a PC's sheet the party keeps (``party.toml``), the
    rest the party gives between fights, what a template writes of a sheet. By default all of
    it is kept and written."""

    #: Sheet fields the party's hand-back does not name (the rules' own counters and numbering).
    quiet_fields: tuple[str, ...] = ()
    #: The line that rests one PC between fights (``party rest``), ``{who}`` its id; "": none.
    rest_between: str = ""
    #: Sheet fields that only a fight gives (its turns' bookkeeping): a template leaves them out.
    per_fight: tuple[str, ...] = ()

    def lasting(self, sheet: Any) -> Any:
        """What of a PC's sheet outlasts a fight (the party keeps it): the sheet with what
        belongs to one fight only (its initiative, the turn's actions, conditions tied to this
        fight) back to a fresh sheet's values. Applied twice, it changes nothing more."""
        return sheet

    def unhurt(self, sheet: Any) -> Any:
        """``sheet`` as one more of its kind joins a fight (``muster`` copies a member): its
        make (stats, gear) kept, what the fight did to it (hurts, ammo spent, its fate) back
        to a fresh sheet's. By default the sheet as it is."""
        return sheet

    def template_options(self, sheet: Any) -> dict[str, tuple[str, str]]:
        """Sheet fields the ``add`` line says in words, as field -> (option, text): a template
        writes them so (``armor = "Vest 15/20"``) where that text builds them alike."""
        return {}


Problem = tuple[str, str] | None  # (the key's path, what it must be), None: nothing wrong


class Validation(Part):
    """What a save edited by hand must hold (``store.checks``): what no command could have
    made is refused, held to the bounds the commands use. By default anything goes."""

    def check_combatant(self, enc: Encounter, c: Combatant) -> Problem:
        """What no command could have made of ``c``: the key, as a path in the combatant
        (``sheet.sta``), and what it must be (``must be at least 1, got 0``); ``None`` when a
        command could have."""
        return None

    def check_state(self, enc: Encounter) -> Problem:
        """As ``check_combatant``, for the rules' encounter state (a path in ``state``)."""
        return None


class RuleSystem:
    """A rule system: its info, commands and demo, the sheet and state it keeps, and its parts.

    A system's ``system.py`` subclasses it, naming its ``info`` and the class of each part it
    gives (``turns_type`` at least); the parts are made once, here."""

    info: ClassVar[SystemInfo]
    demo: ClassVar[tuple[str, ...]] = ()  # the command lines that build its demo fight
    sheet_type: ClassVar[type] = Sheet  # a combatant's sheet (``add`` makes one)
    state_type: ClassVar[type] = Sheet  # the encounter's state of the rules
    #: The rolls this system's rules add to the common commands (start, next...), in order.
    common_rolls: ClassVar[Mapping[str, tuple[str, ...]]] = {}
    #: Commands whose ``dice=`` is an option of the rules (typed faces go in ``faces=`` there).
    own_dice_option: ClassVar[tuple[str, ...]] = ()

    turns_type: ClassVar[type[Turns]]
    choices_type: ClassVar[type[Choices]] = Choices
    view_type: ClassVar[type[View]] = View
    tactics_type: ClassVar[type[Tactics]] = Tactics
    carry_type: ClassVar[type[Carry]] = Carry
    validation_type: ClassVar[type[Validation]] = Validation

    def __init__(self, commands: tuple[Spec, ...] = ()) -> None:
        self.commands = commands  # the system's own commands (``dispatch`` adds the common ones)
        self.system = self.info.id
        self.title = self.info.title
        self.turns = self.turns_type(self)
        self.choices = self.choices_type(self)
        self.view = self.view_type(self)
        self.tactics = self.tactics_type(self)
        self.carry = self.carry_type(self)
        self.validation = self.validation_type(self)

    def new_sheet(self, call: Call) -> Any:
        """The sheet of a combatant being added, from the ``add`` command's options."""
        return self.sheet_type()

    def new_state(self) -> Any:
        return self.state_type()

    def set_value(self, call: Call) -> Encounter:
        """C4: ``set WHO FIELD VALUE``: a value of the rules set by hand (logged as such)."""
        raise CommandError(f"{self.title} has no values to set")
