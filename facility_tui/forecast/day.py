"""A day of fights (``forecast DAY``, docs/forecast.md 'A day of fights'): prepared fights played
in order, the party carried between them as ``party return`` would carry it, and the rests the
GM plans (``party rest`` / ``party heal``, in their words) between them.

Each play of the day plays fight 1 (``engine.play`` on a copy, its own seed from the play's), keeps
what lasts of each PC (``party.lasting``), runs the rests on those PCs, puts them in place of the
same-named PCs of the next fight (a dead PC stays dead), plays it... and stops at the first fight
the PCs do not win. It reads encounters and writes nothing; the shell reads the day file's saves.
The plays run in the forecast's worker processes (``engine.pooled``).
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import attrs
from attrs import define, field, frozen

from facility_tui.campaign.party import between, kept_fields, lasting
from facility_tui.commands.grammar import CommandError, parse
from facility_tui.forecast.engine import (
    ForecastError,
    Job,
    check,
    pct,
    play,
    play_seed,
    pooled,
    roster,
    wilson,
)
from facility_tui.model.encounter import PCS, Combatant, Encounter, evolve
from facility_tui.model.fields import where
from facility_tui.model.text import control_in
from facility_tui.report import md
from facility_tui.systems import rules_for

RUNS = 1000
MAX_ITEMS = 50  # fights and rests in a day
REST_WORDS = ("rest", "heal")


class DayError(ForecastError):
    """A day file that cannot be played, in one line; ``code`` the exit: 2 a file that cannot
    be read (as a save), 1 a line or a fight the day refuses (as a play)."""

    def __init__(self, message: str, code: int = 1) -> None:
        super().__init__(message)
        self.code = code


# -- the day file ------------------------------------------------------------------------------


@frozen
class Rest:
    """A line between fights, as ``party rest`` / ``party heal`` take it (``heal aid blanc 24``)."""

    text: str
    sub: str
    args: tuple[str, ...]
    options: tuple[tuple[str, str], ...]


@frozen
class Plan:
    """A day file as read: its items in order (a fight's save path as written, or a ``Rest``),
    and its own ``runs`` and ``seed`` (None: the defaults)."""

    items: tuple[str | Rest, ...]
    runs: int | None = None
    seed: int | None = None

    @property
    def fights(self) -> list[str]:
        return [item for item in self.items if isinstance(item, str)]


def read_plan(text: str, source: str) -> Plan:
    """A day file's text; ``DayError`` naming the item at fault."""
    import tomllib

    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        raise DayError(f"{source}: not TOML: {err}", 2) from None
    for key in doc:
        if key not in ("day", "runs", "seed"):
            raise DayError(f"{source}: unknown key '{key}' (a day has day, runs, seed)", 2)
    items = doc.get("day")
    if not isinstance(items, list) or not items or not all(isinstance(x, str) for x in items):
        raise DayError(
            f"{source}: day must be a list of fights and rests, "
            'e.g. day = ["deck.toml", "rest", "bridge.toml"]',
            2,
        )
    if len(items) > MAX_ITEMS:
        raise DayError(f"{source}: a day has at most {MAX_ITEMS} fights and rests", 2)
    for key in ("runs", "seed"):
        if key in doc and (type(doc[key]) is not int or doc[key] < (1 if key == "runs" else 0)):
            raise DayError(f"{source}: {key} must be a whole number, got {doc[key]!r}", 2)
    read: list[str | Rest] = []
    for i, item in enumerate(items):
        if (bad := control_in(item)) is not None:
            raise DayError(f"{source}: day[{i}] holds a control character ({bad})")
        text_ = item.strip()
        if text_.lower().endswith(".toml"):
            read.append(text_)
            continue
        read.append(_rest(text_, f"{source}: day[{i}]"))
    if not any(isinstance(x, str) for x in read):
        raise DayError(f"{source}: the day has no fight (a save, a .toml path)")
    return Plan(tuple(read), doc.get("runs"), doc.get("seed"))


def _rest(text: str, where_: str) -> Rest:
    words = text.removeprefix("party ").strip() if text.lower().startswith("party ") else text
    try:
        parsed = parse(words)
    except CommandError as err:
        raise DayError(f"{where_}: '{text}': {err}") from None
    sub = parsed.verb.lower()
    if sub not in REST_WORDS or (sub == "heal" and not parsed.args):
        raise DayError(
            f"{where_}: unknown line '{text}': between fights, 'rest [NAMES]' or 'heal LINE' "
            "(as party rest and party heal take them); a fight is a save's path (.toml)"
        )
    return Rest(text, sub, parsed.args, parsed.options)


# -- the day as played ---------------------------------------------------------------------------


@frozen
class Day(Job):
    """A day ready to play: its items (a fight by its place in ``fights``, or a rest), the
    fights' encounters, their names, the PCs followed (by name), its seed."""

    names: tuple[str, ...]
    fights: tuple[Encounter, ...]
    items: tuple[int | Rest, ...]
    pcs: tuple[str, ...]
    seed: int

    @property
    def system(self) -> str:
        return self.fights[0].system

    def chunk(self, first: int, count: int) -> DayTally:
        tally = DayTally(len(self.fights), self.pcs)
        for index in range(first, first + count):
            tally.add(play_day(self, play_seed(self.seed, index)))
        return tally


def day_of(plan: Plan, fights: Sequence[Encounter], seed: int, source: str = "the day") -> Day:
    """``plan`` with its fights' encounters (in the order of ``plan.fights``); ``DayError`` for
    a fight of other rules than the first, one that cannot be forecast, a rest it refuses."""
    names = plan.fights
    system = fights[0].system
    for name, enc in zip(names, fights, strict=True):
        if enc.system != system:
            first = rules_for(system).title
            raise DayError(
                f"{source}: {name} is a {rules_for(enc.system).title} fight, the day's first is "
                f"{first}: a day is of one rule system"
            )
        try:
            check(enc)
        except ForecastError as err:
            raise DayError(f"{source}: {name}: {err}") from None
    pcs: dict[str, str] = {}
    for enc in fights:
        for c in roster(enc):
            if c.side == PCS:
                pcs.setdefault(c.name.lower(), c.name)
    items: list[int | Rest] = []
    fight = 0
    for item in plan.items:
        if isinstance(item, str):
            items.append(fight)
            fight += 1
        else:
            _check_rest(item, system, list(pcs.values()), source)
            items.append(item)
    day_fights = tuple(evolve(enc, log=()) for enc in fights)
    return Day(tuple(names), day_fights, tuple(items), tuple(pcs.values()), seed)


def _check_rest(rest: Rest, system: str, pcs: list[str], source: str) -> None:
    """A rest the day could never run: rules without a rest between fights, a heal line no
    command of the rules reads, a name no PC of the day has."""
    from facility_tui.commands.dispatch import find_spec, listed
    from facility_tui.commands.spec import resolve, unique_id

    rules = rules_for(system)
    if rest.sub == "rest":
        if not rules.carry.rest_between:
            raise DayError(f"{source}: '{rest.text}': {rules.title} has no rest between fights")
        party = Encounter("", system, handles=0)
        for name in pcs:
            party = party.joined(Combatant(id=unique_id(party, name), name=name, side=PCS))
        for name in rest.args:
            try:
                resolve(party, name, listed)
            except CommandError as err:
                raise DayError(f"{source}: '{rest.text}': {err}") from None
        return
    try:
        find_spec(rest.args[0], system)
    except CommandError as err:
        raise DayError(f"{source}: '{rest.text}': {err}") from None


@frozen
class DayOutcome:
    """How one play of the day went: the fight it broke at (-1: through), who ended a fight
    down or out and dying or dead (by name), the rests the rules refused (by item)."""

    broke: int
    out: frozenset[str]
    dying: frozenset[str]
    refused: tuple[int, ...]


def _seed(seed: int, what: str, k: int) -> int:
    return random.Random(f"day:{seed}:{what}:{k}").getrandbits(62)


def play_day(day: Day, seed: int) -> DayOutcome:
    """One play of ``day`` with its fights' and rests' dice seeded from ``seed``."""
    system = day.system
    carried: dict[str, Combatant] = {}
    for enc in day.fights:  # (each PC as it first stands, until a fight hands it on)
        for c in enc.combatants:
            if c.side == PCS:
                carried.setdefault(c.name.lower(), lasting(system, c))
    out: set[str] = set()
    dying: set[str] = set()
    refused: list[int] = []
    for k, item in enumerate(day.items):
        if isinstance(item, Rest):
            pcs = list(carried.values())
            try:
                after, _ = between(
                    system, pcs, item.sub, item.args, dict(item.options), _seed(seed, "rest", k)
                )
            except CommandError:
                refused.append(k)
                continue
            carried = {pc.name.lower(): pc for pc in after}
            continue
        start = carry_into(day.fights[item], carried)
        followed = roster(start)
        # (seeded by the fight's number: a rest put in between leaves each fight its dice)
        outcome, end = play(start, {}, _seed(seed, "fight", item))
        for c, fate in zip(followed, outcome.fates, strict=True):
            if c.side == PCS and fate:
                out.add(c.name)
                if fate == "dying":
                    dying.add(c.name)
        for c in end.combatants:
            if c.side == PCS and c.name.lower() in carried:
                carried[c.name.lower()] = lasting(system, c)
        if outcome.winner != PCS:
            return DayOutcome(item, frozenset(out), frozenset(dying), tuple(refused))
    return DayOutcome(-1, frozenset(out), frozenset(dying), tuple(refused))


def carry_into(enc: Encounter, carried: dict[str, Combatant]) -> Encounter:
    """``enc`` with each PC of a name in ``carried`` as that PC stands now: what lasts of it
    (its lasting fields, its sheet as the rules' ``Carry`` keeps it), with what belongs to
    this fight kept from ``enc`` (its initiative, its awareness...)."""
    pcs = [c for c in enc.combatants if c.side == PCS and c.name.lower() in carried]
    if not pcs:
        return enc
    carry = rules_for(enc.system).carry
    lasts = kept_fields()
    new = {}
    for here in pcs:
        now = carried[here.name.lower()]
        sheet = _sheet_into(here.sheet, carry.lasting(here.sheet), now.sheet)
        new[here.id] = evolve(
            here, **{k: getattr(now, k) for k in lasts if k != "name"}, sheet=sheet
        )
    return evolve(enc, combatants=tuple(new.get(c.id, c) for c in enc.combatants))


def _sheet_into(here: Any, kept: Any, now: Any) -> Any:
    """A sheet of the next fight (``here``, ``kept`` what of it would last) given the carried
    PC's lasting sheet ``now``: each field that lasts is ``now``'s, but what this fight has
    set of its own (a field the rules do not keep, or the part of a list they drop: an effect
    of this combat) stays this fight's."""
    per_fight = set(where(type(here), lambda said: not said.lasts))
    changes = {}
    for f in attrs.fields(type(here)):
        mine, lasting_mine, theirs = (getattr(x, f.name) for x in (here, kept, now))
        if f.name in per_fight:
            continue
        if isinstance(mine, tuple):
            value = (*theirs, *(x for x in mine if x not in lasting_mine))
        else:
            value = mine if mine != lasting_mine else theirs
        if value != mine:
            changes[f.name] = value
    return attrs.evolve(here, **changes) if changes else here


# -- the tally ---------------------------------------------------------------------------------


@define
class DayTally:
    fights: int
    pcs: tuple[str, ...]
    runs: int = 0
    through: int = 0
    reached: Counter[int] = field(factory=Counter)  # fight -> plays that played it
    lost: Counter[int] = field(factory=Counter)  # fight -> plays the day broke at
    out: Counter[str] = field(factory=Counter)  # PC -> plays it ended a fight down or out
    dying: Counter[str] = field(factory=Counter)  # ... dying or dead
    refused: Counter[int] = field(factory=Counter)  # rest (item) -> plays the rules refused it

    def add(self, o: DayOutcome) -> None:
        self.runs += 1
        last = self.fights - 1 if o.broke < 0 else o.broke
        for k in range(last + 1):
            self.reached[k] += 1
        if o.broke < 0:
            self.through += 1
        else:
            self.lost[o.broke] += 1
        self.out.update(o.out)
        self.dying.update(o.dying)
        self.refused.update(o.refused)

    def merge(self, other: DayTally) -> None:
        self.runs += other.runs
        self.through += other.through
        for mine, theirs in ((self.reached, other.reached), (self.lost, other.lost)):
            mine.update(theirs)
        self.refused.update(other.refused)
        self.out.update(other.out)
        self.dying.update(other.dying)


def run(
    day: Day,
    runs: int,
    *,
    processes: int | None = None,
    stop: Callable[[], bool] | None = None,
) -> Iterator[DayTally]:
    """Play ``day`` ``runs`` times in the forecast's workers; the tally so far as each chunk
    of plays finishes (the last one is the whole forecast)."""
    tally = DayTally(len(day.fights), day.pcs)
    for part in pooled(day, runs, processes, stop=stop):
        tally.merge(part)
        yield tally


def forecast_day(day: Day, runs: int, *, processes: int | None = None) -> DayTally:
    tally = DayTally(len(day.fights), day.pcs)
    for tally in run(day, runs, processes=processes):  # noqa: B007
        pass
    return tally


# -- in words ----------------------------------------------------------------------------------


def breaks_at(day: Day, tally: DayTally) -> int | None:
    """The fight where the day most likely breaks (None: it breaks nowhere in these plays)."""
    if not tally.lost:
        return None
    return min(tally.lost, key=lambda k: (-tally.lost[k], k))


def _between(day: Day) -> list[str]:
    """The day in order, in words: ``1. deck.toml``, ``rest``, ``heal aid blanc 24``."""
    out = []
    for item in day.items:
        out.append(f"{item + 1}. {day.names[item]}" if isinstance(item, int) else item.text)
    return out


def notes(day: Day, tally: DayTally) -> list[str]:
    n = tally.runs
    out = []
    for k, count in sorted(tally.refused.items()):
        item = day.items[k]
        assert isinstance(item, Rest)
        out.append(f"'{item.text}' was refused by the rules in {count} of {n} plays")
    return out


def assumptions(day: Day) -> list[str]:
    rules = rules_for(day.system)
    return [
        *rules.tactics.assumptions,
        "each PC goes to the next fight as party return hands it back (a dead PC stays dead), "
        "after the rests between",
        f"seed {day.seed}: each fight and rest of a play has its own seed from it; the day "
        "breaks at the first fight the PCs do not win (a loss, or no winner)",
    ]


def lines(day: Day, tally: DayTally, source: str) -> list[str]:
    n = tally.runs
    fights = len(day.fights)
    out = [f"{source}: {fights} fight{'s' if fights != 1 else ''}, {n} plays of the day"]
    out.append(f"The party gets through the day: {pct(tally.through, n)}")
    broke = breaks_at(day, tally)
    if broke is not None:
        out.append(f"Most likely breaks at: {broke + 1}. {day.names[broke]}")
    out.append("")
    width = min(max(len(f"{k + 1}. {x}") for k, x in enumerate(day.names)), 30)
    out.append(f"{'':{width}}  {'reached':14}  lost there")
    for k, name in enumerate(day.names):
        label = f"{k + 1}. {name}"
        label = label if len(label) <= width else label[: width - 1] + "…"
        out.append(f"{label:{width}}  {pct(tally.reached[k], n):14}  {pct(tally.lost[k], n)}")
    out.append("")
    width = min(max((len(p) for p in day.pcs), default=4), 30)
    out.append(f"{'':{width}}  {'down/out':14}  dying/dead   (at a fight's end, over the day)")
    for pc in day.pcs:
        name = pc if len(pc) <= width else pc[: width - 1] + "…"
        out.append(f"{name:{width}}  {pct(tally.out[pc], n):14}  {pct(tally.dying[pc], n)}")
    out += ["", "The day: " + " → ".join(_between(day))]
    out += notes(day, tally)
    out += ["", "Assumptions:", *(f"- {line}" for line in assumptions(day))]
    return out


def as_dict(day: Day, tally: DayTally, source: str) -> dict[str, Any]:
    n = tally.runs

    def share(k: int) -> dict[str, float | int]:
        low, high = wilson(k, n)
        return {"count": k, "share": k / n if n else 0.0, "low": low, "high": high}

    broke = breaks_at(day, tally)
    return {
        "day": source,
        "system": day.system,
        "runs": n,
        "seed": day.seed,
        "through": share(tally.through),
        "breaks_at": None if broke is None else day.names[broke],
        "fights": [
            {"save": name, "reached": share(tally.reached[k]), "lost": share(tally.lost[k])}
            for k, name in enumerate(day.names)
        ],
        "pcs": [
            {"name": pc, "out": share(tally.out[pc]), "dying_or_dead": share(tally.dying[pc])}
            for pc in day.pcs
        ],
        "order": _between(day),
        "refused": {
            item.text: count
            for k, count in sorted(tally.refused.items())
            if isinstance(item := day.items[k], Rest)
        },
        "assumptions": assumptions(day),
    }


def markdown(day: Day, tally: DayTally, source: str) -> str:
    n = tally.runs
    out = [f"# Forecast of a day: {md(source)}\n\n"]
    out.append(f"{n} plays of the day. The party gets through it: {pct(tally.through, n)}.\n")
    out.append("\n| fight | reached | lost there |\n|---|---|---|\n")
    for k, name in enumerate(day.names):
        out.append(f"| {k + 1}. {md(name)} | {pct(tally.reached[k], n)} | "
                   f"{pct(tally.lost[k], n)} |\n")  # fmt: skip
    out.append("\n| PC | down or out | dying or dead |\n|---|---|---|\n")
    for pc in day.pcs:
        out.append(f"| {md(pc)} | {pct(tally.out[pc], n)} | {pct(tally.dying[pc], n)} |\n")
    out.append(f"\nThe day: {md(' → '.join(_between(day)))}\n")
    out += [f"\n{md(line)}\n" for line in notes(day, tally)]
    out.append("\n## Assumptions\n\n")
    out += [f"- {md(line)}\n" for line in assumptions(day)]
    return "".join(out)
