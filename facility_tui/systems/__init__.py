"""Rule systems: what differs between 2297 and Facility, behind one small interface.

The round state machine (``commands.rounds``) asks the encounter's system for the order of each
round and tells it when turns and rounds start and end; the system answers with a new encounter.
Each system is a package of its own (``r2297``, ``facility``): its rules, its sheet, its commands
(declared with ``commands.spec.command`` in a ``commands`` subpackage, one module per topic,
and listed by the package's ``load()``), its demo. A package is found by id here (its ``INFO``,
then ``load()`` for its rules), and nothing else in the core names a system's modules.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from attrs import frozen

from facility_tui.commands.grammar import quote
from facility_tui.model.encounter import Combatant, Encounter, Phase, Sheet
from facility_tui.model.text import Detail, Tone
from facility_tui.model.view import Choice, Pane, Public

if TYPE_CHECKING:
    from facility_tui.commands.dice import Dice
    from facility_tui.commands.spec import Call, Spec
    from facility_tui.systems.plays import Play, TurnPlay


@frozen
class QuickKey:
    """A key of the rules in play: it runs ``template`` on the selected combatant (``{who}``), or
    opens the command line with it started when it ends in a space (for the GM to finish).

    The selected row always means the one acted on (hit, harmed, aided, attacked). A command with
    a second role names it ``{actor}``: the acting combatant (``start``); a harm names its source
    with ``{by}``: ``by=`` the attacker the rules give (``RuleSystem.attack_source``), left out
    when there is none."""

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
        one is acting (the GM types the target); ``attack ␣ WHO `` with the cursor on the
        attacker's place when no one is (setup, or a side's turn in Facility). With ``{by}``:
        ``harm WHO ␣ by=SOURCE``, the cursor where the GM types the rest."""
        if "{by}" in self.template:
            head = self.template[: self.template.index("{by}")].format(who=quote(who))
            return (f"{head} by={quote(source)}" if source else head), len(head)
        if "{actor}" not in self.template:
            line = self.template.format(who=quote(who))
            return line, len(line)
        current = enc.current if enc.phase is Phase.ACTIVE else None
        actor = current if current is not None and enc.has(current) else None
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


END_WORD = 10  # the most characters of ``RuleSystem.end_word`` (a Facility ``Impaired 5``)


class RuleSystem:
    """Default behaviour: turns in descending initiative; no per-turn effects."""

    info: SystemInfo
    system: str  # ``info.id``
    title: str = ""
    demo: tuple[str, ...] = ()  # the command lines that build its demo fight

    def __init__(self, commands: tuple[Spec, ...] = ()) -> None:
        self.commands = commands  # the system's own commands (``dispatch`` adds the common ones)

    sheet_type: type = Sheet
    state_type: type = Sheet

    def new_sheet(self, call: Call) -> Any:
        """The sheet of a combatant being added, from the ``add`` command's options."""
        return self.sheet_type()

    def new_state(self) -> Any:
        return self.state_type()

    def listed(self, enc: Encounter) -> list[Combatant]:
        """Combatants in the order the initiative pane shows them."""
        return sorted(enc.combatants, key=lambda c: -c.initiative)

    def begin_combat(self, call: Call) -> Encounter:
        """Settle what must be settled before round 1 (e.g. Facility's side initiative)."""
        return call.enc

    def round_order(self, enc: Encounter, dice: Dice) -> Encounter:
        """Set ``enc.order`` for the round starting now (``enc.round`` is already the new one)."""
        raise NotImplementedError

    def round_started(self, enc: Encounter, dice: Dice) -> Encounter:
        return enc

    def round_ended(self, enc: Encounter, dice: Dice) -> Encounter:
        return enc

    def turn_started(self, enc: Encounter, slot: str, dice: Dice) -> Encounter:
        return enc

    def turn_ended(self, enc: Encounter, slot: str, dice: Dice) -> Encounter:
        return enc

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

    def choices(self, enc: Encounter) -> tuple[Choice, ...]:
        """Every choice the rules leave open for the GM now, with its options as command lines
        (one of them the default): the panes, the pending menu and ``n``'s question read this
        one list."""
        return ()

    def attack_source(self, enc: Encounter, target: str) -> str | None:
        """Whose attack a harm to ``target`` would be now (a quick key's ``by=``): the acting
        combatant, if it is not the target; ``None`` when there is none to name."""
        current = enc.current
        return current if current is not None and current != target and enc.has(current) else None

    def unblock(self, enc: Encounter, line: str) -> Choice | None:
        """A choice that would let ``line``, just refused, run (2297: the turn's downgrade
        when the action asked for is gone, A4); ``None`` when the rules know none."""
        return None

    def open_choices(self, enc: Encounter) -> list[str]:
        """Choices the rules wait for the GM to make (one line each): the app asks before a
        turn ends with any still open (not those the turn's end settles by their default)."""
        return [choice.title for choice in self.choices(enc) if not choice.lapses]

    def removed(self, enc: Encounter, cid: str) -> Encounter:
        """Forget a removed combatant in system state."""
        return enc

    def check_combatant(self, enc: Encounter, c: Combatant) -> tuple[str, str] | None:
        """What no command could have made of ``c`` (a save edited by hand), held to the
        bounds the commands use: the key, as a path in the combatant (``sheet.sta``), and what
        it must be (``must be at least 1, got 0``); ``None`` when a command could have."""
        return None

    def lasting(self, sheet: Any) -> Any:
        """What of a PC's sheet outlasts a fight (the party keeps it, ``party.toml``): the sheet
        with what belongs to one fight only (its initiative, the turn's actions, conditions tied
        to this fight) back to a fresh sheet's values. Applied twice, it changes nothing more."""
        return sheet

    def check_state(self, enc: Encounter) -> tuple[str, str] | None:
        """As ``check_combatant``, for the rules' encounter state (a path in ``state``)."""
        return None

    def set_value(self, call: Call) -> Encounter:
        """C4: ``set WHO FIELD VALUE``: a value of the rules set by hand (logged as such)."""
        from facility_tui.commands.grammar import CommandError

        raise CommandError(f"{self.title} has no values to set")

    def initiative_from_face(self, call: Call, c: Combatant, face: str) -> int:
        """``init WHO face=N``: the initiative from the dice as rolled at the table."""
        from facility_tui.commands.grammar import CommandError

        raise CommandError(f"{self.title} initiative has no dice to add to: init WHO N sets it")

    def initiative_set(self, enc: Encounter, cid: str) -> Encounter:
        """The GM typed a combatant's initiative (C4): it wins over anything pending."""
        return enc

    #: The rolls this system's rules add to the common commands (start, next...), in order.
    common_rolls: dict[str, tuple[str, ...]] = {}

    #: Sheet fields the party's hand-back does not name (the rules' own counters and numbering).
    quiet_fields: tuple[str, ...] = ()
    #: The line that rests one PC between fights (``party rest``), ``{who}`` its id; "": none.
    rest_between: str = ""

    #: Commands whose ``dice=`` is an option of the rules (typed faces go in ``faces=`` there).
    own_dice_option: tuple[str, ...] = ()

    #: Sheet fields that only a fight gives (its turns' bookkeeping): a template leaves them out.
    per_fight: tuple[str, ...] = ()

    def template_options(self, sheet: Any) -> dict[str, tuple[str, str]]:
        """Sheet fields the ``add`` line says in words, as field -> (option, text): a template
        writes them so (``armor = "Vest 15/20"``) where that text builds them alike."""
        return {}

    #: Headers of the extra initiative-table columns; ``summary`` returns a value for each.
    columns: tuple[str, ...] = ()
    #: Whether the table shows the plain initiative number (off where a column already does).
    show_initiative: bool = True
    #: The list's short forms for a narrow screen, in the order the list turns to them:
    #: column -> (its short title, {word: short word}). The ``?`` help lists them.
    short_forms: dict[str, tuple[str, dict[str, str]]] = {}
    #: The widest words a column may hold: the list keeps room for them (and their short forms),
    #: so that it does not jump when one first shows (a hit, an undo).
    column_words: dict[str, tuple[str, ...]] = {}
    #: What a short form is, for a column whose words are not replaced one by one (the help).
    short_help: dict[str, str] = {}
    #: Extra columns of free text, shown cut to the room left rather than left out.
    cut_columns: tuple[str, ...] = ()

    def abbreviate(self, column: str, text: str) -> str:
        """A list cell's short form: each word as ``short_forms`` says."""
        words = self.short_forms.get(column, ("", {}))[1]
        if not words:
            return text
        return " ".join(words.get(w, w) for w in text.split(" "))

    def summary(self, enc: Encounter, c: Combatant) -> dict[str, Any]:
        """Rule-derived figures of a combatant: short values keyed by ``columns`` (and more for
        ``show --json``). Screens show them; they never compute rules themselves."""
        return {}

    def list_row(self, enc: Encounter, c: Combatant) -> dict[str, Any]:
        """The list's row: ``summary``'s values for ``columns`` (at least). The list asks for
        every row at a round's start; a rule system may work out these alone, faster."""
        return self.summary(enc, c)

    #: Every state word ``public_state`` may give: the player view keeps room for the widest,
    #: so that its columns do not move when one first shows (a hit, an undo).
    public_words: tuple[str, ...] = ("in the fight",)

    def public_state(self, enc: Encounter, c: Combatant) -> Public:
        """What the players may know of a combatant (the player view, a public report): its
        state in words from the rules' own figures."""
        return Public("in the fight")

    def state_word(self, enc: Encounter, c: Combatant) -> str:
        """A combatant's state in the words of the GM's list (``uncons.``, ``Impaired 1``),
        for the GM's report; by default the players' word."""
        return self.public_state(enc, c).state

    def details(self, enc: Encounter, c: Combatant) -> list[Detail]:
        """Labelled lines for the selected combatant's detail pane (action economy, injuries,
        fatigue, wound tracks...): plain text with a tone; the screens choose the look."""
        return []

    def panes(self, enc: Encounter, c: Combatant) -> list[Pane]:
        """The panes of the selected combatant's column (action economy, injury, wound
        tracks...), as plain values the rules computed; the screens draw them. By default one
        pane of its ``details``."""
        lines = self.details(enc, c)
        return [Pane("Details", tuple(lines))] if lines else []

    def reminders(self, enc: Encounter) -> list[Detail]:
        """What the GM must not miss now, in words (bleeding applied, a death countdown, a
        check that is due, a choice still open): shown at the top of the column."""
        return [Detail("Open", choice.title, Tone.WARN) for choice in self.choices(enc)]

    # -- the forecast (``forecast.engine``): the rules' default play of a turn ----------

    #: What a play's ``flee at`` takes (``systems.plays``).
    flee_words: tuple[str, ...] = ()
    #: The default play in words, listed with every forecast.
    forecast_assumptions: tuple[str, ...] = ()

    def forecast_line(self, enc: Encounter, slot: str, turn: TurnPlay) -> str | None:
        """The next command line of the acting ``slot``'s default play, as ``turn``'s plays
        change it; ``None`` when the turn has no more. By default: no play at all."""
        return None

    def fallen(self, enc: Encounter, c: Combatant) -> str | None:
        """Out of the fight, and how: "" (standing), "fled", "down" or "dying" (or dead);
        ``None`` for what is no combatant (an object the rules made)."""
        return ""

    def check_play(self, play: Play) -> str:
        """Why ``play`` cannot be played in this system ("" when it can)."""
        if play.flee and play.flee_level not in self.flee_words:
            return f"flee at '{play.flee}': {self.title} takes {', '.join(self.flee_words)}"
        if play.harm:
            return f"harm {play.harm}: {self.title} plays no harm of its own"
        return ""

    def settle(self, enc: Encounter, choice: Choice) -> str:
        """The forecast's answer to a choice left open: by default the menu's default."""
        return choice.default.line

    def ammo(self, c: Combatant) -> int:
        """The ammunition ``c`` holds, to count what a forecast spends (its drops)."""
        return 0

    #: What ``ammo`` counts, spent, as the forecast's column is headed (at most 9 characters).
    ammo_spent = "ammo used"

    def end_word(self, enc: Encounter, c: Combatant) -> str:
        """How ``c`` ends a forecast's play, in at most ``END_WORD`` characters (the forecast's
        column): the list's word, or its short form (never a word cut); one ``fallen`` counts
        as out is said out (not its injury). By default ``state_word``."""
        return self.state_word(enc, c)


_PACKAGES = {  # the one table of the built-in rule systems: id -> its package (INFO, load())
    "2297": "facility_tui.systems.r2297",
    "facility": "facility_tui.systems.facility",
}
DEFAULT = "2297"  # what a first launch demonstrates
_SYSTEMS: dict[str, RuleSystem] = {}
_INFOS: dict[str, SystemInfo] = {}


def ids() -> list[str]:
    """Every rule system's id, the built-in ones first."""
    return [*_PACKAGES, *(s for s in _INFOS if s not in _PACKAGES)]


def register(rules: RuleSystem) -> RuleSystem:
    """Add a rule system that is not one of the built-in packages (a plug-in, a test's)."""
    _SYSTEMS[rules.system] = rules
    _INFOS[rules.system] = rules.info
    return rules


def _package(system: str) -> Any:
    import importlib

    return importlib.import_module(_PACKAGES[system])


def info(system: str) -> SystemInfo:
    """Its id, title, quick keys, ``add`` options: without loading its rules."""
    found = _INFOS.get(system)
    if found is None:
        found = _INFOS[system] = _package(system).INFO
    return found


def infos() -> list[SystemInfo]:
    return [info(system) for system in ids()]


def rules_for(system: str) -> RuleSystem:
    """The rules of ``system``; its package's rules and commands load on first use, so a launch
    pays only for the system of the fight it opens. ``KeyError`` for an id no system has."""
    rules = _SYSTEMS.get(system)
    if rules is None:
        rules = _SYSTEMS[system] = _package(system).load()
    return rules


def all_systems() -> Iterable[RuleSystem]:
    return [rules_for(system) for system in ids()]


def quick_keys_markdown() -> str:
    """The README's table of the rules' keys: a row per key, a column per rule system."""
    known = infos()
    keys = list(dict.fromkeys(k.key for each in known for k in each.quick_keys))
    out = ["| key | " + " | ".join(each.title for each in known) + " |\n"]
    out.append("|---" * (len(known) + 1) + "|\n")
    for key in keys:
        cells = []
        for each in known:
            k = next((k for k in each.quick_keys if k.key == key), None)
            if k is None:
                cells.append("")
                continue
            line = k.template.format(who="WHO", actor="ACTING", by="… by=ATTACKER").rstrip() + (
                " …" if k.template.endswith(" ") else ""
            )
            cells.append(f"`{line}` {k.help}".rstrip())
        out.append(f"| `{key}` | " + " | ".join(cells) + " |\n")
    return "".join(out)
