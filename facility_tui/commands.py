"""Commands: the one way an encounter changes, each with a text form.

Grammar (the same in the command bar, ``facility-tui apply`` and the saved history)::

    line    := verb { argument }
    argument:= word | key=value          (shell-style quoting: "Sergeant Blanc", 'a b')
    verb    := a registered name or alias (``help`` lists them)

A combatant is named by its id, its name (any case) or an unambiguous prefix of either, or by its
number in the initiative list (``#2`` or ``2`` where a name is expected). Wherever a number is
expected, dice are accepted and rolled (C3): ``init=2d6+3``.

Each command is declared once with ``@command``; the declaration carries its usage and help line,
which the help screen, the command bar and ``docs/commands.md`` all read.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Callable, Iterable

from attrs import evolve, frozen

from facility_tui.dice import Dice, DiceError, Face, Roll, faces_text, parse_faces
from facility_tui.model import ENEMIES, PCS, Combatant, Encounter, Kind, Phase, System, TableDice
from facility_tui.text import MAX_LINE, MAX_NAME, MAX_NOTE, control_in

MAX_VALUE = 9999  # the largest number any command takes: damage, Health, initiative, rounds...


class CommandError(ValueError):
    """A command that cannot be applied; the message is one line, fit for the GM."""


Runner = Callable[["Call"], Encounter]


@frozen
class Spec:
    verb: str
    usage: str
    summary: str
    run: Runner
    systems: frozenset[System] = frozenset(System)
    aliases: tuple[str, ...] = ()
    group: str = "encounter"
    rolls: tuple[str, ...] = ()  # the rolls it can make, in order (docs/dice.md)


REGISTRY: dict[str, Spec] = {}
_ALIASES: dict[str, str] = {}


def command(
    verb: str,
    usage: str,
    summary: str,
    *,
    systems: Iterable[System] = tuple(System),
    aliases: tuple[str, ...] = (),
    group: str = "encounter",
    rolls: tuple[str, ...] = (),
) -> Callable[[Runner], Runner]:
    """Declare a command. The decorated function gets a ``Call`` and returns the new encounter.
    ``rolls`` says, in order, the dice it can roll (what the GM can type with ``dice=``)."""

    def register(run: Runner) -> Runner:
        spec = Spec(verb, usage, summary, run, frozenset(systems), aliases, group, rolls)
        REGISTRY[verb] = spec
        for alias in (verb, *aliases):
            _ALIASES[alias] = verb
        return run

    return register


def find_spec(verb: str, system: System | None = None) -> Spec:
    """The command called ``verb``; looks first among the common commands and those of
    ``system``, and loads the other systems only for a verb found in neither."""
    import facility_tui.verbs  # noqa: F401  (declares the common commands)

    if system is not None:
        from facility_tui.systems import rules_for

        rules_for(system)
    name = _ALIASES.get(verb.lower())
    if name is None:
        register_all()
        name = _ALIASES.get(verb.lower())
    if name is None:
        raise CommandError(f"unknown command '{verb}'; type 'help' or press ? for the list")
    return REGISTRY[name]


_OPTION = re.compile(r"^([a-z][a-z0-9_-]*)=", re.IGNORECASE)
# One word as the shell reads it: runs of plain characters, escaped characters and quoted parts.
_WORD = re.compile(r"""(?:\\.|[^\s'"\\]+|'[^']*'|"(?:[^"\\]|\\.)*")+""", re.DOTALL)


@frozen
class Parsed:
    verb: str
    args: tuple[str, ...]
    options: tuple[tuple[str, str], ...]


def parse(line: str) -> Parsed:
    """Split a line into verb, arguments and ``key=value`` options. A word is an option only
    when its key is written plainly: ``"a=b"`` in quotes is an argument (a name, say)."""
    if len(line) > MAX_LINE:
        raise CommandError(f"the line is {len(line)} characters long: at most {MAX_LINE}")
    bad = control_in(line)
    if bad is not None:
        raise CommandError(f"the line holds a control character ({bad}); retype it")
    try:
        words = shlex.split(line)
    except ValueError as err:
        raise CommandError(f"cannot read '{line}': {err}") from None
    if not words:
        raise CommandError("empty command; type 'help' for the list")
    raw = _WORD.findall(line)
    if len(raw) != len(words):  # (never seen: the two readings of the line disagree)
        raise CommandError(f"cannot read '{line}': check its quotes")
    args: list[str] = []
    options: list[tuple[str, str]] = []
    for text, word in zip(raw[1:], words[1:], strict=True):
        m = _OPTION.match(text)
        if m:
            options.append((m.group(1).lower().replace("-", "_"), word[m.end() :]))
        else:
            args.append(word)
    return Parsed(words[0].lower(), tuple(args), tuple(options))


def quote(word: str) -> str:
    """``word`` as one argument of a line (quoted when it would read as options or words)."""
    quoted = shlex.quote(word)
    if quoted == word and _OPTION.match(word):  # shlex leaves a=b bare: it would be an option
        return f"'{word}'"
    return quoted


class Call:
    """One application of a command: its arguments, the encounter and the dice."""

    def __init__(self, spec: Spec, parsed: Parsed, encounter: Encounter, dice: Dice) -> None:
        self.spec = spec
        self.verb = spec.verb
        self.args = list(parsed.args)
        self.options = dict(parsed.options)
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
        self._used.add(key)
        return self.options.get(key, default)

    def has(self, key: str) -> bool:
        self._used.add(key)
        return key in self.options

    def check_options(self) -> None:
        unknown = sorted(set(self.options) - self._used)
        if unknown:
            raise self.usage_error(f"'{self.verb}' does not take {', '.join(unknown)}=")

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

    def int_option(self, key: str, what: str, default: int, *, minimum: int | None = None) -> int:
        text = self.option(key)
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
        self.enc = self.enc.logged(f"{what}: {roll.detail}", Kind.ROLL)

    def log(self, text: str, kind: Kind = Kind.INFO) -> None:
        self.enc = self.enc.logged(text, kind)

    # -- combatants ---------------------------------------------------------------------------

    def combatant(self, ref: str) -> Combatant:
        return resolve(self.enc, ref)

    def need_phase(self, *phases: Phase) -> None:
        if self.enc.phase not in phases:
            wanted = " or ".join(p.value for p in phases)
            raise CommandError(
                f"'{self.verb}' works in {wanted}, and the encounter is in {self.enc.phase.value}"
            )


def resolve(enc: Encounter, ref: str) -> Combatant:
    """Find a combatant by id, name, unique prefix of either or of a name's word, or list number
    (``2`` / ``#2``)."""
    text = ref.strip().lower()
    if not text:
        raise CommandError("name a combatant")
    number = text.removeprefix("#")
    if number.isascii() and number.isdigit():
        ordered = listed(enc)
        i = int(number[-6:]) if len(number) <= 6 else 10**6  # (a huge number: past the list)
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
        raise CommandError(f"'{ref}' could be {names}; type more of the name")
    raise CommandError(f"no combatant called '{ref}'; 'show' lists them")


def _words(text: str) -> list[str]:
    return [w for w in re.split(r"[^\w]+", text.lower()) if w]


def _starts(c: Combatant, text: str) -> bool:
    """``text`` begins the id or the name, or its words begin consecutive words of the name:
    "blanc" finds "Sgt. Blanc", "drone-2" and "dr 2" find "Containment Drone 2"."""
    if c.id.startswith(text) or c.name.lower().startswith(text):
        return True
    want, have = _words(text), _words(c.name)
    return bool(want) and any(
        all(h.startswith(w) for w, h in zip(want, have[i : i + len(want)], strict=True))
        for i in range(len(have) - len(want) + 1)
    )


def listed(enc: Encounter) -> list[Combatant]:
    """Combatants in the order the initiative list shows them."""
    from facility_tui.systems import rules_for

    return rules_for(enc.system).listed(enc)


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
    side = SIDES.get(text.lower())
    if side is None:
        raise CommandError(f"unknown side '{text}': use pc or enemy")
    return side


# -- applying ---------------------------------------------------------------------------------


@frozen
class Applied:
    encounter: Encounter
    line: str
    rolls: tuple[Roll, ...]


def apply(
    enc: Encounter, line: str, replay: Iterable[Roll] = (), *, prompt: bool = False
) -> Applied:
    """Apply one command line; raises ``CommandError`` and leaves ``enc`` as it was on bad input.
    The line is read as the history records it: stripped (so ``a\\ `` at its end is an error
    here too, not a word that replays differently).

    ``dice=F,F,...`` on any line gives the faces of the dice the command rolls, in order (``?``:
    the tracker rolls that die). ``prompt`` (the app): a roll the encounter's table dice say the
    GM types, and that the line has no face for, raises ``dice.NeedRoll``; the line that finally
    runs is returned with a "?" for each die the tracker rolled after the typed ones."""
    line = line.strip()
    parsed = parse(line)
    spec = find_spec(parsed.verb, enc.system)
    if enc.system not in spec.systems:
        raise CommandError(
            f"'{spec.verb}' is a rule of {_systems(spec)}, not of {enc.system.value}"
        )
    options = dict(parsed.options)
    typed: list[Face] = []
    key = faces_key(spec.verb, enc.system)
    if key in options:
        try:
            typed = parse_faces(options.pop(key))
        except DiceError as err:
            raise CommandError(str(err)) from None
        parsed = Parsed(parsed.verb, parsed.args, tuple(options.items()))
    ask = asker(enc) if prompt else None
    dice = Dice(enc.seed, enc.rolls, tuple(replay), typed, ask)
    call = Call(spec, parsed, enc, dice)
    new = spec.run(call)
    call.check_options()
    if dice.surplus:
        rolled = (
            f"rolled {dice.used} {'die' if dice.used == 1 else 'dice'}"
            if dice.used
            else "rolled no dice"
        )
        raise CommandError(
            f"dice= gives {len(typed)} face{'s' if len(typed) != 1 else ''} and '{spec.verb}' "
            f"{rolled} here: "
            f"drop the last {dice.surplus}"
        )
    if dice.untyped:
        new = new.logged(
            f"dice=: {len(typed)} face{'s' if len(typed) != 1 else ''} typed; the tracker "
            f"rolled the rest: {', '.join(dice.untyped)}",
            Kind.ROLL,
        )
    if dice.position != new.rolls:
        new = evolve(new, rolls=dice.position)
    finished = line
    if ask is not None and typed and dice.used > len(typed):
        finished = with_dice(finished, [*typed, *[None] * (dice.used - len(typed))], key)
    return Applied(new, finished, tuple(dice.rolled))


def asker(enc: Encounter) -> Callable[[str | None], bool] | None:
    """Whose rolls the GM types in the app: none, the PCs' (a roll of a combatant on the PC
    side), or all of them (also the dice of an expression typed on the line)."""
    mode = enc.table_dice
    if mode is TableDice.ALL:
        return lambda _side: True
    if mode is TableDice.PCS:
        return lambda side: side == PCS
    return None


def faces_key(verb: str, system: System) -> str:
    """The option that types a line's dice: ``dice=``, or ``faces=`` where the command has a
    ``dice=`` of its own (2297's ``add``: the initiative dice count, A1)."""
    from facility_tui.systems import rules_for

    name = _ALIASES.get(verb.lower(), verb.lower())
    return "faces" if name in rules_for(system).own_dice_option else "dice"


def split_dice(line: str, key: str = "dice") -> tuple[str, list[Face]]:
    """A line without its ``dice=`` (or ``key=``) option, and the faces that option gave."""
    words = _WORD.findall(line)
    faces: list[Face] = []
    kept: list[str] = []
    for i, word in enumerate(words):
        m = _OPTION.match(word)
        if i and m and m.group(1).lower() == key:
            value = shlex.split(word)[0][m.end() :]
            try:
                faces = parse_faces(value)
            except DiceError as err:
                raise CommandError(str(err)) from None
        else:
            kept.append(word)
    return " ".join(kept), faces


def with_dice(line: str, faces: list[Face], key: str = "dice") -> str:
    """``line`` with ``dice=`` (or ``key=``) giving ``faces`` (replacing any it had)."""
    base, _ = split_dice(line, key)
    return f"{base} {key}={faces_text(faces)}" if faces else base


def answered(line: str, system: System, index: int, faces: list[Face]) -> str:
    """The line to run again once the GM typed the faces of the roll a ``NeedRoll`` asked for:
    the faces the line had before ``index`` (a "?" for each die the tracker rolled there), then
    ``faces``."""
    key = faces_key(parse(line).verb, system)
    base, had = split_dice(line, key)
    kept = had[:index]
    return with_dice(base, [*kept, *[None] * (index - len(kept)), *faces], key)


def _systems(spec: Spec) -> str:
    return " and ".join(sorted(s.value for s in spec.systems))


def help_lines(system: System | None = None) -> list[tuple[str, str]]:
    register_all()
    return [
        (s.usage, s.summary) for s in REGISTRY.values() if system is None or system in s.systems
    ]


GRAMMAR_DOC = """\
# Commands

The same grammar serves the command bar (`:`), `facility-tui apply` and the saved history.
This file is generated by `facility-tui commands --markdown`; a test keeps it current.

```text
line     := verb { argument }
argument := word | key=value        shell-style quoting: "Sgt. Blanc"
```

- A combatant is named by its id, its name (any case), the start of its id, its name or any word of
  its name (`blanc` finds *Sgt. Blanc*), or its number in the list (`2` or `#2`).
- Wherever a number is expected, dice are accepted and rolled: `2d6+3`, `3d10kh2` (keep the highest
  2), `4d6kl1`. At most 1000 dice and 10000 sides in one expression.
- `dice=F,F,...` on any line gives the faces of the dice the command rolls, in the order it rolls
  them (`hit boarder-1 24 dice=3,5,4`; `?` lets the tracker roll one die); faces left over are
  refused, and when they run out the tracker rolls the rest and says so. The rolls each command
  can make, in order: [`docs/dice.md`](dice.md). (2297's `add` has a `dice=` of its own, the
  initiative dice count: give its faces with `faces=`.)
- `undo` (`u`) and `redo` step back and forth through every change, across restarts.
"""


def commands_markdown() -> str:
    """The command reference: every declared command, grouped by rule system."""
    register_all()
    out = [GRAMMAR_DOC]
    sections = [("Both rule systems", frozenset(System))] + [
        (f"{s.value} only", frozenset({s})) for s in System
    ]
    for title, systems in sections:
        specs = [s for s in REGISTRY.values() if s.systems == systems]
        if not specs:
            continue
        out.append(f"\n## {title}\n\n| command | does |\n|---|---|\n")
        for s in specs:
            also = f" (also `{'`, `'.join(s.aliases)}`)" if s.aliases else ""
            usage = s.usage.replace("|", "\\|")
            out.append(f"| `{usage}` | {s.summary}{also} |\n")
    return "".join(out)


def declare_rolls(rolls: dict[str, tuple[str, ...]]) -> None:
    """The rolls commands declared elsewhere can make, in order (a module declaring commands
    lists them beside their code); read by ``dice_markdown``."""
    from attrs import evolve as _evolve

    for verb, what in rolls.items():
        REGISTRY[verb] = _evolve(REGISTRY[verb], rolls=what)


DICE_DOC = """\
# The rolls of each command (typed dice)

Every roll the tracker makes can be typed instead: `dice=F,F,...` on any line (the command bar,
`facility-tui apply`, the saved history) gives the faces of the dice the command rolls, in the
order it rolls them, one face per die (`?`: the tracker rolls that die). A face that does not fit
its die is refused, naming the roll; faces left over are refused; when the faces run out, the
tracker rolls the rest and the log says so. The log marks typed rolls `(typed)`. On 2297's `add`,
whose `dice=` is the initiative dice count (A1), the faces go in `faces=`.

In the app, `tabledice pcs` (the PCs' rolls) or `tabledice all` (every roll) asks for each roll in
a prompt as the command needs it: type the faces (`3 5`), their sum where only the sum counts, or
enter alone to let the tracker roll it. The line that runs in the end carries the faces in `dice=`.

This file is generated by `facility-tui commands --dice`; a test keeps it current. Below, for each
command, the rolls it can make in the order it makes them. Rolls that a command makes only in some
cases are named with their case; a die marked "each die counts" takes faces, not a sum, in the
prompt. Any number of a command typed as dice (`hit WHO 3d6+2`, `heal WHO 1d6`) is rolled where the
command reads that number, before the rolls of the rules that follow from it.
"""


def dice_markdown() -> str:
    """docs/dice.md: for each rule system, each command's rolls in order (``rolls=``
    declarations, and a system's own rolls of the common commands)."""
    register_all()
    from facility_tui.systems import rules_for

    out = [DICE_DOC]
    for system in System:
        rules = rules_for(system)
        out.append(f"\n## {rules.title}\n\n| command | rolls, in order |\n|---|---|\n")
        specs = [s for s in REGISTRY.values() if s.systems == frozenset(System)]
        specs += [s for s in REGISTRY.values() if s.systems == frozenset({system})]
        for spec in specs:  # (the common commands first: the order of loading does not count)
            rolls = (*spec.rolls, *rules.common_rolls.get(spec.verb, ()))
            if rolls:
                text = "; ".join(rolls).replace("|", "\\|")
                out.append(f"| `{spec.verb}` | {text} |\n")
    return "".join(out)


_registered = False


def register_all() -> None:
    """Import every module that declares commands (once)."""
    global _registered
    if _registered:
        return
    _registered = True
    import facility_tui.systems
    import facility_tui.verbs

    facility_tui.systems.load_all()
