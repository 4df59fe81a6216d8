"""What a command receives: a ``Call`` with its arguments, the encounter, the dice and the rules
of the encounter's system, all passed in; and how a command is declared (``command``).

A declaration attaches a ``Spec`` to its function and registers nothing: a rule system lists its
commands (``commands_in``), and ``dispatch`` puts the common ones and the system's together.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from types import ModuleType
from typing import TYPE_CHECKING, Any

from attrs import frozen

from facility_tui.campaign.folder import Reads
from facility_tui.commands.dice import Dice, DiceError, Roll
from facility_tui.commands.grammar import CommandError, Parsed, quote
from facility_tui.model.encounter import (
    ENEMIES,
    PCS,
    Combatant,
    Encounter,
    Kind,
    Phase,
    TableDice,
    evolve,
)
from facility_tui.model.text import MAX_NAME, MAX_NOTE, completed, nearest, word_for

if TYPE_CHECKING:
    from facility_tui.systems import RuleSystem

MAX_VALUE = 9999  # the largest number any command takes: damage, Health, initiative, rounds...


Runner = Callable[["Call"], Encounter]
# What a command would do, said before it runs: plain lines, no state changed and no dice rolled
# (a roll raises ``dice.NeedRoll`` and the preview is dropped).
Previewer = Callable[["Call"], list[str]]


@frozen
class Spec:
    verb: str
    usage: str
    summary: str
    run: Runner
    aliases: tuple[str, ...] = ()
    group: str = "encounter"
    rolls: tuple[str, ...] = ()  # the rolls it can make, in order (docs/dice.md)
    preview: Previewer | None = None  # what it would do, before Enter (the command line)
    # False: it changes no fight (it writes a campaign file: ``template save``), so the
    # history does not keep it; what it did is its message
    in_history: bool = True
    # Which of its lines run beside the fight, on a campaign file with an undo of its own
    # (``party add``, ``party undo``: the roster's, in ``party.toml``): a test of the line.
    # Such a line is no step of the history either, is never replayed, and its options are
    # its own, ``dice=`` among them (``party heal LINE`` hands them to the command it runs).
    beside: Callable[[Parsed], bool] | None = None


SPEC = "command_spec"  # the attribute a declared command's function carries its Spec in


def command(
    verb: str,
    usage: str,
    summary: str,
    *,
    aliases: tuple[str, ...] = (),
    group: str = "encounter",
    rolls: tuple[str, ...] = (),
    preview: Previewer | None = None,
    in_history: bool = True,
    beside: Callable[[Parsed], bool] | None = None,
) -> Callable[[Runner], Runner]:
    """Declare a command. The decorated function gets a ``Call`` and returns the new encounter.
    ``rolls`` says, in order, the dice it can roll (what the GM can type with ``dice=``);
    ``preview`` what it would do, said from the same rules before it runs."""

    def declare(run: Runner) -> Runner:
        spec = Spec(verb, usage, summary, run, aliases, group, rolls, preview, in_history, beside)
        setattr(run, SPEC, spec)
        return run

    return declare


def declarer(group: str) -> Callable[..., Callable[[Runner], Runner]]:
    """``command`` for the commands of one rule system: listed under ``group`` (its id) in
    help. Its refusals, the rules' among them, reach the GM as they are raised."""

    def declare(
        verb: str,
        usage: str,
        summary: str,
        aliases: tuple[str, ...] = (),
        rolls: tuple[str, ...] = (),
        preview: Previewer | None = None,
    ) -> Callable[[Runner], Runner]:
        return command(
            verb, usage, summary, aliases=aliases, group=group, rolls=rolls, preview=preview
        )

    return declare


def commands_in(*modules: ModuleType) -> tuple[Spec, ...]:
    """The commands declared in ``modules``, in the order they are written; a module's ``ROLLS``
    (verb -> the rolls it can make) fills in what the declarations did not say."""
    specs: list[Spec] = []
    for module in modules:
        rolls: dict[str, tuple[str, ...]] = getattr(module, "ROLLS", {})
        for value in vars(module).values():
            spec: Any = getattr(value, SPEC, None)
            if isinstance(spec, Spec) and getattr(value, "__module__", "") == module.__name__:
                specs.append(evolve(spec, rolls=rolls[spec.verb]) if spec.verb in rolls else spec)
    return tuple(specs)


class Call:
    """One application of a command: its arguments, the encounter, the dice, and the rules of
    the encounter's system (``rules``: the list's order, the system's own hooks)."""

    # (slots: made for every line, a play's included; no dict of attributes each)
    __slots__ = ("_used", "args", "dice", "enc", "options", "reads", "rules", "spec", "verb")

    def __init__(
        self,
        spec: Spec,
        parsed: Parsed,
        encounter: Encounter,
        dice: Dice,
        rules: RuleSystem,
        reads: Reads | None = None,
    ) -> None:
        self.spec = spec
        # the campaign's files (templates, catalogs, the party), read and recorded like dice
        self.reads = reads if reads is not None else Reads(None)
        self.rules = rules
        self.verb = spec.verb
        self.args = list(parsed.args)
        self.options = dict(parsed.options) if parsed.options else {}  # (most lines: none)
        self._used: set[str] = set()
        self.enc = encounter
        self.dice = dice

    # -- arguments ----------------------------------------------------------------------------

    def fail(self, message: str) -> CommandError:
        return CommandError(message)

    def usage_error(self, what: str) -> CommandError:
        return CommandError(f"{what}; usage: {self.spec.usage}")

    def arg(self, index: int, what: str) -> str:
        if index >= len(self.args):
            raise self.usage_error(f"'{self.verb}' needs {what}")
        return self.args[index]

    def rest(self, start: int, what: str) -> str:
        if start >= len(self.args):
            raise self.usage_error(f"'{self.verb}' needs {what}")
        return " ".join(self.args[start:])

    def text(self, start: int, what: str, limit: int = MAX_NOTE, *, empty: bool = False) -> str:
        """The words from ``start`` on as one text (a name, a note), at most ``limit`` long;
        refused when blank unless ``empty``."""
        text = " ".join(self.args[start:]).strip()
        if not text and not empty:
            raise self.usage_error(f"'{self.verb}' needs {what}")
        if len(text) > limit:
            raise CommandError(f"{what} is {len(text)} characters long: at most {limit}")
        return text

    def name(self, start: int, what: str = "a name") -> str:
        return self.text(start, what, MAX_NAME)

    def option(self, key: str, default: str | None = None) -> str | None:
        if not self.options:  # (most lines: none to read, none to mark read for check_options)
            return default
        self._used.add(key)
        return self.options.get(key, default)

    def has(self, key: str) -> bool:
        self._used.add(key)
        return key in self.options

    def own_options(self) -> dict[str, str]:
        """Every option of the line, for a command that checks them itself (each counts as
        read: ``check_options`` leaves them to it)."""
        self._used.update(self.options)
        return dict(self.options)

    def check_options(self, elsewhere: Callable[[str], str | None] | None = None) -> None:
        """Refuse an option no part of the command read; ``elsewhere`` names the line that
        takes it, if another command does (``sheet WHO items=A,B``)."""
        if not self.options:  # (most lines)
            return
        unknown = sorted(set(self.options) - self._used)
        if unknown:
            said = f"'{self.verb}' does not take {', '.join(unknown)}="
            found = [hint for key in unknown if elsewhere and (hint := elsewhere(key))]
            if found:
                said += f" ({'; '.join(found)})"
            raise self.usage_error(said)

    def expect_args(self, count: int) -> None:
        if len(self.args) > count:
            extra = " ".join(self.args[count:])
            raise self.usage_error(f"unexpected '{extra}' after '{self.verb}'")

    # -- numbers and dice ---------------------------------------------------------------------

    def number(
        self, text: str, what: str, *, minimum: int | None = None, maximum: int = MAX_VALUE
    ) -> int:
        """A typed number or a dice roll (logged); refuses words and values outside
        ``minimum``..``maximum`` (every number of the game fits in ±9999)."""
        try:
            value, roll = self.dice.value(text, what)
        except DiceError as err:
            raise CommandError(f"{what}: {err}") from None
        if minimum is not None and value < minimum:
            raise CommandError(f"{what} must be at least {minimum}, got {value}")
        if value < -MAX_VALUE:
            raise CommandError(f"{what} must be at least {-MAX_VALUE}, got {value}")
        if value > maximum:
            raise CommandError(f"{what} must be at most {maximum}, got {value}")
        if roll is not None:
            self.log_roll(what, roll)
        return value

    def initiative(self, text: str, what: str, side: str | None = None, who: str = "") -> int:
        """A3/C3/C4: an initiative typed as a number or dice. A typed value below 0 is refused,
        like every typed value; a rolled total below 0 counts as 0 (A3: never below 0), logged.
        Dice are a roll of a combatant of ``side`` (the GM types it when table dice say so)."""
        try:
            value, roll = self.dice.value(text, what, side=side, who=who)
        except DiceError as err:
            raise CommandError(f"{what}: {err}") from None
        rolled = roll is not None and "d" in roll.expr
        if value < 0 and not rolled:
            raise CommandError(
                f"{what} must be at least 0, got {value} (initiative is never below 0)"
            )
        if value > MAX_VALUE:
            raise CommandError(f"{what} must be at most {MAX_VALUE}, got {value}")
        if roll is not None:
            self.log_roll(what, roll)
        if value < 0:
            self.log(f"{what}: the roll's {value} counts as 0 (initiative is never below 0)")
            value = 0
        return value

    def dice_text(self, text: str, what: str) -> str:
        """``text`` if ``number`` would read it (a number or dice), refused as ``number``
        refuses it, with nothing rolled: a preview names the dice that roll on Enter."""
        try:
            Dice(0, 0).value(text, what)  # (a throwaway roll: not this call's dice)
        except DiceError as err:
            raise CommandError(f"{what}: {err}") from None
        return text

    def int_option(self, key: str, what: str, default: int, *, minimum: int | None = None) -> int:
        return self.int_of(self.option(key), what, default, minimum=minimum)

    def int_of(
        self, text: str | None, what: str, default: int, *, minimum: int | None = None
    ) -> int:
        """An option's text, read already (``option``: None when not given), as ``int_option``
        reads it."""
        return default if text is None else self.number(text, what, minimum=minimum)

    def roll(
        self, expr: str, what: str, by: Combatant | None = None, *, faces: bool = False
    ) -> Roll:
        """Roll ``expr`` (logged) for ``what``, a roll of combatant ``by`` (the GM types it when
        table dice say so); ``faces``: each die counts, not only their sum."""
        side, who = (by.side, by.name) if by is not None else (None, "")
        try:
            roll = self.dice.roll(expr, what, side=side, who=who, faces=faces)
        except DiceError as err:
            raise CommandError(f"{what}: {err}") from None
        self.log_roll(what, roll)
        return roll

    def log_roll(self, what: str, roll: Roll) -> None:
        if self.enc.keeps_log:  # (a play's encounter keeps no line: none is written)
            self.enc = self.enc.logged(f"{what}: {roll.detail}", Kind.ROLL)

    def log(self, text: str, kind: Kind = Kind.INFO) -> None:
        self.enc = self.enc.logged(text, kind)

    # -- combatants ---------------------------------------------------------------------------

    def combatant(self, ref: str) -> Combatant:
        return resolve(self.enc, ref, self.rules.turns.listed)

    def need_phase(self, *phases: Phase) -> None:
        if self.enc.phase not in phases:
            wanted = " or ".join(p.value for p in phases)
            raise CommandError(
                f"'{self.verb}' works in {wanted}, and the encounter is in {self.enc.phase.value}"
            )


def logged_line(call: Call) -> list[str]:
    """A preview that is the line the command would log (``muster``, ``arm``: a roster changed
    in one step), from the dice Enter will roll (the same seed and place); none while the GM
    types every roll at the table (those are not known yet)."""
    if call.enc.table_dice is TableDice.ALL:
        return []
    before = len(call.enc.log)
    call.dice = Dice(call.enc.seed, call.enc.rolls)  # (the preview's call: a copy's dice)
    said = call.spec.run(call).log[before:]
    return [said[0].text] if said else []


def resolve(enc: Encounter, ref: str, listed: Callable[[Encounter], list[Combatant]]) -> Combatant:
    """Find a combatant by id, name, unique prefix of either or of a name's word, or number
    (``#3`` or ``3``): its handle, the number it was given when added, which stays its own as
    the order changes. In a save from before handles (``Encounter.numbered``), the number is a
    place in the list as ``listed`` orders it, as it was then, so old lines replay alike."""
    text = ref.strip().lower()
    if not text:
        raise CommandError("name a combatant")
    number = text.removeprefix("#")
    if number.isascii() and number.isdigit():
        i = int(number[-6:]) if len(number) <= 6 else 10**6  # (a huge number: none has it)
        if enc.numbered:
            for c in enc.combatants:
                if c.handle == i and i > 0:
                    return c
            raise CommandError(f"no combatant #{i}: the list's # column gives each one's number")
        ordered = listed(enc)
        if 1 <= i <= len(ordered):
            return ordered[i - 1]
        raise CommandError(f"no combatant #{i}: the list has {len(ordered)}")
    for c in enc.combatants:
        if c.id == text or c.name.lower() == text:
            return c
    matches = [c for c in enc.combatants if _starts(c, text)]
    if len(matches) == 1:
        return matches[0]
    if matches:
        names = ", ".join(c.name for c in matches[:5])
        raise CommandError(
            f"'{ref}' could be {names}; type more of the name, as {quote(matches[0].id)}"
        )
    raise CommandError(f"no combatant called '{ref}'{_who_is_there(enc, ref)}")


def complete_name(line: str, enc: Encounter) -> str | None:
    """The line with the combatant's name being typed at its end (a word after the verb, not
    an option) completed to its id, which the line reads as that one combatant (``atk bl`` →
    ``atk sgt-blanc ``); for a word several could be, as far as their ids agree (``boa`` →
    ``board``, ``dr`` → ``containment-drone-``: the preview names them). None when there is
    nothing to add. Where the command names a combatant there: ``dispatch.complete_combatant``."""
    head, space, typed = line.rpartition(" ")
    if not space or not head.strip() or not typed or "=" in typed or typed[0] in "#'\"":
        return None
    if typed.isdigit():  # (a number is the combatant with that handle: nothing to complete)
        return None
    if head.count('"') % 2 or head.count("'") % 2:  # (inside a quoted text: a note's words)
        return None
    word = typed.lower()
    # (several found by a word of their names, "dr" for Containment Drone 1 and 2: their ids as
    # far as they agree, "containment-drone-", which the line reads as those and no other)
    fits = [c.id for c in enc.combatants if _starts(c, word)]
    return completed(head, word, fits, lambda cid: f"{quote(cid)} ")


def _who_is_there(enc: Encounter, ref: str) -> str:
    """``: did you mean Rook?``, or whom the fight has (a few of them), for a name not found."""
    names = [c.name for c in enc.combatants]
    if not names:
        return ": the fight has no one yet (add NAME)"
    near = nearest(ref, {n.lower(): n for n in names})
    if near is not None:
        return f" (did you mean {next(n for n in names if n.lower() == near)}?)"
    shown = ", ".join(names[:6]) + (f" and {len(names) - 6} more" if len(names) > 6 else "")
    return f": the fight has {shown}"


_WORD = re.compile(r"[^\W\d_]+|\d+")  # a run of letters, or of digits


def _words(text: str) -> list[str]:
    return _WORD.findall(text.lower())


def _starts(c: Combatant, text: str) -> bool:
    """``text`` begins the id or the name, or its words begin consecutive words of the name,
    a number being the whole number: "blanc" finds "Sgt. Blanc", "drone-2", "dr 2" and "dr2"
    find "Containment Drone 2" (as the list shows it, "Cont. Drone 2"), "goon1" Goon 1, not
    Goon 10."""
    if c.id.startswith(text) or c.name.lower().startswith(text):
        return True
    want, have = _words(text), _words(c.name)
    return bool(want) and any(
        all(
            h == w if w.isdigit() else h.startswith(w)
            for w, h in zip(want, have[i : i + len(want)], strict=True)
        )
        for i in range(len(have) - len(want) + 1)
    )


def slug(name: str) -> str:
    s = re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")
    return s or "x"


def unique_id(enc: Encounter, name: str) -> str:
    base = slug(name)
    cid, n = base, 1
    while enc.has(cid):
        n += 1
        cid = f"{base}-{n}"
    return cid


SIDES = {
    "pc": PCS,
    "pcs": PCS,
    "player": PCS,
    "players": PCS,
    "ally": PCS,
    "enemy": ENEMIES,
    "enemies": ENEMIES,
    "npc": ENEMIES,
    "foe": ENEMIES,
    "foes": ENEMIES,
}


def side_of(text: str) -> str:
    side = word_for(text, SIDES)
    if side is None:
        raise CommandError(f"unknown side '{text}': use pc or enemy")
    return side
