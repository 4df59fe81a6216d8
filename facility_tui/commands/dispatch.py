"""Dispatch: a line to its command, among the common commands (``verbs``) and those of the
encounter's rule system, run with its dice; and the command reference drawn from the same
tables (help, ``docs/commands.md``, ``docs/dice.md``).

The top of the command core: it knows the rule systems (through their registry) and the common
commands; they know nothing of it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from functools import cache, lru_cache

from attrs import frozen

from facility_tui.campaign import party
from facility_tui.campaign.folder import Campaign, CampaignError, Read, Reads
from facility_tui.commands import arm, muster, verbs
from facility_tui.commands.dice import (
    Dice,
    DiceError,
    Face,
    NeedRoll,
    RngFor,
    Roll,
    parse_faces,
    rng_for,
)
from facility_tui.commands.grammar import (
    CommandError,
    Parsed,
    UnknownCommand,
    parse,
    split_dice,
    with_dice,
)
from facility_tui.commands.spec import Call, Spec, commands_in, complete_name
from facility_tui.model.encounter import PCS, Combatant, Encounter, Kind, TableDice, evolve, maker
from facility_tui.model.text import completed, did_you_mean
from facility_tui.systems import RuleSystem, ids, rules_for


@cache
def common() -> tuple[Spec, ...]:
    """The commands of every rule system: building the encounter, rounds, undo and redo, the
    party."""
    return commands_in(verbs, muster, arm, party)


@cache
def _index(system: str) -> dict[str, Spec]:
    """Every name (verb and aliases) of the commands a ``system`` encounter takes."""
    index: dict[str, Spec] = {}
    for spec in (*common(), *rules_for(system).commands):
        for name in (spec.verb, *spec.aliases):
            index.setdefault(name, spec)
    return index


def taken_by(key: str, spec: Spec, system: str) -> str | None:
    """The line of another command of ``system`` that takes the option ``key`` one command
    does not (its usage says so: ``sheet WHO [items=A,B]``), to say in the refusal: ``sheet
    WHO items=A,B`` for ``add … items=Toolbox``."""
    for other in dict.fromkeys(_index(system).values()):
        if other is spec:
            continue
        found = re.search(rf"\[({re.escape(key.lower())}=[^\]\s]*)\]", other.usage)
        if found:
            head = other.usage.split("[", 1)[0].strip()
            return f"{head} {found.group(1)} sets it"
    return None


def find_spec(verb: str, system: str) -> Spec:
    """The command called ``verb`` in an encounter of ``system``; a command of another rule
    system is refused with a line that says so."""
    name = verb.lower()
    spec = _index(system).get(name)
    if spec is not None:
        return spec
    elsewhere = [other for other in ids() if other != system and name in _index(other)]
    if elsewhere:
        raise CommandError(f"'{verb}' is a rule of {' and '.join(elsewhere)}, not of {system}")
    raise UnknownCommand(f"unknown command '{verb}'{did_you_mean(name, _index(system))}")


def complete_argument(line: str, enc: Encounter) -> str | None:
    """The line with the word being typed at its end completed, as its command's usage names
    that place: a combatant (``hit WHO``, ``attack WHO TARGET [TARGET ...]``) to its id
    (``complete_name``), an enemy type (``arm TYPE``, ``muster TYPE=N``) to its key; not an
    amount, a number, a note's words."""
    head, _, typed = line.rpartition(" ")
    words = head.split()
    try:
        spec = find_spec(words[0], enc.system) if words else None
    except CommandError:
        return None
    if spec is None or not typed or "=" in typed:
        return None
    # (the usage's places: WHO, TARGET, TYPE=N; not its options, skill=N)
    slots = [w.strip("[]") for w in spec.usage.split()[1:] if not _OPTION_SLOT.match(w)]
    place = len([w for w in words[1:] if "=" not in w])
    while place < len(slots) and slots[place] == "..." and place > 0:
        place -= 1  # (a repeated place: TARGET ...)
    slot = slots[place] if place < len(slots) else ""
    if {"WHO", "TARGET"} & set(slot.split("|")):
        return complete_name(line, enc)
    if slot.split("=")[0] == "TYPE":
        return _complete_type(head, typed, enc, "=" if slot == "TYPE=N" else " ")
    return None


_OPTION_SLOT = re.compile(r"\[?[a-z_]+=")  # (an option of a usage: [skill=N], [cover=5|10])


def _complete_type(head: str, typed: str, enc: Encounter, after: str) -> str | None:
    """``arm boa`` → ``arm boarder ``, ``muster boarding`` → ``muster boarding_chief=``."""
    word = typed.lower()
    fits = [key for key in muster.enemy_types(enc) if key.startswith(word)]
    return completed(head, word, fits, lambda key: key + after)


@frozen
class Line:
    """A typed line, read once: its text (stripped, as the history records it), its words and
    the command of ``system`` it names."""

    text: str
    parsed: Parsed
    spec: Spec
    system: str

    @property
    def beside(self) -> bool:
        """Whether it runs beside the fight, on a campaign file (``Spec.beside``)."""
        return self.spec.beside is not None and self.spec.beside(self.parsed)

    @property
    def in_history(self) -> bool:
        """Whether it is a step of the fight's history (not ``template save``, ``party add``)."""
        return self.spec.in_history and not self.beside


@lru_cache(maxsize=4096)
def read_line(line: str, system: str) -> Line:
    """``line`` read for an encounter of ``system``; ``CommandError`` (``UnknownCommand``) if
    it cannot be read or names no command there. Remembered by line and system (a ``Line`` is
    immutable; a refused line is read again): a forecast's plays run the same few lines
    thousands of times (docs/benchmarks.md, 'Faster plays (issue 39)')."""
    text = line.strip()
    parsed = parse(text)
    return Line(text, parsed, find_spec(parsed.verb, system), system)


def listed(enc: Encounter) -> list[Combatant]:
    """Combatants in the order the initiative list shows them."""
    return rules_for(enc.system).turns.listed(enc)


@frozen
class Applied:
    encounter: Encounter
    line: str
    rolls: tuple[Roll, ...]
    reads: tuple[Read, ...] = ()


_applied = maker(Applied)  # (``Applied``, made faster: a forecast applies thousands of lines)


def apply(
    enc: Encounter,
    line: str | Line,
    replay: Iterable[Roll] = (),
    *,
    prompt: bool = False,
    campaign: Campaign | None = None,
    reads: Sequence[Read] | None = None,
    rng: RngFor = rng_for,
    seed: int | None = None,
) -> Applied:
    """Apply one command line; raises ``CommandError`` and leaves ``enc`` as it was on bad input.
    The line is read as the history records it: stripped (so ``a\\ `` at its end is an error
    here too, not a word that replays differently).

    ``dice=F,F,...`` on any line gives the faces of the dice the command rolls, in order (``?``:
    the tracker rolls that die). ``prompt`` (the app): a roll the encounter's table dice say the
    GM types, and that the line has no face for, raises ``dice.NeedRoll``; the line that finally
    runs is returned with a "?" for each die the tracker rolled after the typed ones.

    What the command reads from ``campaign`` (a template, a catalog entry) is returned to be
    kept with the step; ``reads`` gives it back when the step replays, and nothing is read.
    ``rng``: the generator of each roll (a forecast's plays draw from a cheaper one); ``seed``:
    the shell's, for what a line beside the fight rolls (``Reads.seed``).

    ``line`` may be one already read (``read_line``): it is not read again."""
    read = _read(line, enc.system)
    parsed, spec = read.parsed, read.spec
    rules = rules_for(enc.system)
    typed: list[Face] = []
    options = dict(parsed.options) if parsed.options else None  # (most lines have none)
    key = _faces_key(spec.verb, rules) if options is not None else "dice"
    if options is not None and key in options and not read.beside:
        try:
            typed = parse_faces(options.pop(key))
        except DiceError as err:
            raise CommandError(str(err)) from None
        parsed = Parsed(parsed.verb, parsed.args, tuple(options.items()))
    ask = asker(enc) if prompt else None
    dice = Dice(enc.seed, enc.rolls, tuple(replay), typed, ask, rng)
    if campaign is None and reads is None and seed is None:  # (a play's lines, most at the table)
        window = _NO_CAMPAIGN
    else:
        window = Reads(campaign, reads, seed)
    call = Call(spec, parsed, enc, dice, rules, window)
    try:
        new = spec.run(call)
    except CampaignError as err:
        raise CommandError(str(err)) from None
    if call.options:  # (most lines have none to check)
        call.check_options(lambda key: taken_by(key, spec, enc.system))
    if typed and dice.surplus:  # (no typed face, none left over: most lines)
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
    finished = read.text
    if ask is not None and typed and dice.used > len(typed):
        finished = with_dice(finished, [*typed, *[None] * (dice.used - len(typed))], key)
    read_back = call.reads.read  # (most lines read no campaign file: no tuple made of none)
    return _applied(new, finished, tuple(dice.rolled), tuple(read_back) if read_back else ())


# A line's window on no campaign: it reads nothing (a read raises before anything is kept) and
# holds nothing of the line's, so every such line shares it.
_NO_CAMPAIGN = Reads(None)


def _read(line: str | Line, system: str) -> Line:
    if isinstance(line, Line) and line.system == system:
        return line
    return read_line(line.text if isinstance(line, Line) else line, system)


def preview(enc: Encounter, line: str, campaign: Campaign | None = None) -> list[str]:
    """What ``line`` would do to ``enc``, said before it runs (the command line shows it as the
    GM types): the command's own preview; while the line lacks a part, its usage; when the
    line would be refused, the refusal's line (a name that could be several, a number out of
    bounds); for an unknown verb, nothing. Never raises, never rolls (a roll stops it: rolls are
    named by their dice), never changes anything (the encounter is immutable; the call's copy
    is dropped)."""
    try:
        read = read_line(line, enc.system)
    except CommandError:
        return []
    parsed, spec = read.parsed, read.spec
    if spec.preview is None:
        return [spec.usage] if not parsed.args and spec.usage != spec.verb else []
    if not read.beside:  # (the line's typed dice: a line beside the fight keeps its own)
        options = dict(parsed.options)
        options.pop(_faces_key(spec.verb, rules_for(enc.system)), None)
        parsed = Parsed(parsed.verb, parsed.args, tuple(options.items()))
    dice = Dice(enc.seed, enc.rolls, (), (), lambda _side: True)  # (a roll asks: NeedRoll)
    try:
        return spec.preview(Call(spec, parsed, enc, dice, rules_for(enc.system), Reads(campaign)))
    except NeedRoll:
        return [spec.usage]
    except (CommandError, CampaignError) as err:
        return [spec.usage if "usage:" in str(err) else str(err)]


def asker(enc: Encounter) -> Callable[[str | None], bool] | None:
    """Whose rolls the GM types in the app: none, the PCs' (a roll of a combatant on the PC
    side), or all of them (also the dice of an expression typed on the line)."""
    mode = enc.table_dice
    if mode is TableDice.ALL:
        return lambda _side: True
    if mode is TableDice.PCS:
        return lambda side: side == PCS
    return None


def _faces_key(verb: str, rules: RuleSystem) -> str:
    """The option that types a line's dice: ``dice=``, or ``faces=`` where the command has a
    ``dice=`` of its own (2297's ``add``: the initiative dice count, A1)."""
    return "faces" if verb in rules.own_dice_option else "dice"


def answered(line: str, system: str, index: int, faces: list[Face]) -> str:
    """The line to run again once the GM typed the faces of the roll a ``NeedRoll`` asked for:
    the faces the line had before ``index`` (a "?" for each die the tracker rolled there), then
    ``faces``."""
    key = _faces_key(find_spec(parse(line).verb, system).verb, rules_for(system))
    base, had = split_dice(line, key)
    kept = had[:index]
    return with_dice(base, [*kept, *[None] * (index - len(kept)), *faces], key)


def help_lines(system: str | None = None) -> list[tuple[str, str]]:
    """(usage, summary) of the commands of ``system`` (the common ones first), or of all."""
    systems = ids() if system is None else [system]
    specs = [*common(), *(s for each in systems for s in rules_for(each).commands)]
    return [(s.usage, s.summary) for s in specs]


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
    out = [GRAMMAR_DOC]
    sections = [("Both rule systems", common())] + [
        (f"{s} only", rules_for(s).commands) for s in ids()
    ]
    for title, specs in sections:
        if not specs:
            continue
        out.append(f"\n## {title}\n\n| command | does |\n|---|---|\n")
        for s in specs:
            also = f" (also `{'`, `'.join(s.aliases)}`)" if s.aliases else ""
            usage = s.usage.replace("|", "\\|")
            out.append(f"| `{usage}` | {s.summary}{also} |\n")
    return "".join(out)


DICE_DOC = """\
# The rolls of each command (typed dice)

Every roll the tracker makes can be typed instead: `dice=F,F,...` on any line (the command bar,
`facility-tui apply`, the saved history) gives the faces of the dice the command rolls, in the
order it rolls them, one face per die (`?`: the tracker rolls that die). A face that does not fit
its die is refused, naming the roll; faces left over are refused; when the faces run out, the
tracker rolls the rest and the log says so. The log marks typed rolls `(typed)`. On 2297's `add`,
whose `dice=` is the initiative dice count (A1), the faces go in `faces=`. The history keeps the
line as typed with the dice it rolled, so undo, redo and a relaunch give back the same faces and
the same log, whatever mix of typed faces, `?` and the tracker's rolls the line used.

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
    out = [DICE_DOC]
    for system in ids():
        rules = rules_for(system)
        out.append(f"\n## {rules.title}\n\n| command | rolls, in order |\n|---|---|\n")
        for spec in (*common(), *rules.commands):  # (the common commands first)
            rolls = (*spec.rolls, *rules.common_rolls.get(spec.verb, ()))
            if rolls:
                text = "; ".join(rolls).replace("|", "\\|")
                out.append(f"| `{spec.verb}` | {text} |\n")
    return "".join(out)
