"""The danger forecast: an encounter played out many times from its current state, with the rules
engine itself (``dispatch.apply`` on command lines, as at the table), each play with its own
seed derived from the forecast's seed. It reads an ``Encounter`` value and writes nothing: a
save held by another window is forecast by reading it.

Each turn is played by the rule system's default play (``Tactics.next_line``), changed
per combatant by the GM's words (``systems.plays``); open choices take the rules' answer
(``Tactics.settle``). A play ends when one side has no one standing, after ``MAX_ROUNDS``
rounds, or when ``STALL_ROUNDS`` rounds pass with no one's play able to do anything.

``run`` yields the tally as it grows (chunks of plays run in worker processes and are merged
as they arrive), so a screen can show the figures sharpening.
"""

from __future__ import annotations

import contextlib
import gc
import math
import multiprocessing
import os
import random
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable, Generator, Iterable, Iterator, Mapping
from typing import Any

import attrs
from attrs import define, field, frozen

from facility_tui.commands.dice import Stream
from facility_tui.commands.dispatch import apply, listed
from facility_tui.commands.grammar import CommandError
from facility_tui.commands.spec import resolve
from facility_tui.model.encounter import ENEMIES, PCS, Combatant, Encounter, Kind, Phase, evolve
from facility_tui.model.names import shorten_names
from facility_tui.model.text import control_in
from facility_tui.model.view import Choice
from facility_tui.report import md
from facility_tui.systems import END_WORD, RuleSystem, rules_for
from facility_tui.systems.plays import PLAY_WORDS, Play, PlayError, TurnPlay, parse_play

MAX_ROUNDS = 60  # rounds a play may last past its start before it counts as undecided
STALL_ROUNDS = 6  # rounds in a row in which no play ran a line: nobody can act
MAX_LINES = 40  # lines of one turn (a guard: each line spends an action or a mark)
MAX_SETTLE = 20  # choices settled after one line
CHUNK = 20  # plays a worker runs before reporting
Z95 = 1.959963984540054  # the normal quantile of a two-sided 95 % interval


# (a member read from its enum class costs a call in Python 3.11: ``model.encounter``)
_ACTIVE = Phase.ACTIVE


class ForecastError(CommandError):
    """An encounter or a play the forecast refuses; one line, fit for the GM."""


# -- one play ---------------------------------------------------------------------------------


@frozen
class Outcome:
    """How one play ended: the winning side ("" none: undecided, or both fell), why it stopped
    without a winner ("rounds", "stalled" or ""), the round it ended in, and for each combatant
    of the roster (in its order) how it is out ("" standing), its end state in the list's
    words (``Tactics.end_word``), the ammo it spent; the first of the roster to fall ("":
    none)."""

    winner: str
    stop: str
    rounds: int
    fates: tuple[str, ...]
    ends: tuple[str, ...]
    ammo: tuple[int, ...]
    first: str


def roster(enc: Encounter) -> list[Combatant]:
    """The combatants a forecast follows (not the rules' objects, a Facility barricade), in
    the list's order."""
    rules = rules_for(enc.system)
    return [c for c in listed(enc) if rules.tactics.fallen(enc, c) is not None]


def _fates(rules: RuleSystem, enc: Encounter, ids: list[str]) -> list[str]:
    return [
        rules.tactics.fallen(enc, enc.get(cid)) or "" if enc.has(cid) else "fled" for cid in ids
    ]


def winner(enc: Encounter, ids: list[str], fates: list[str]) -> str | None:
    """The side left standing when the other has no one ("" when no one stands at all), or
    ``None`` while both sides have someone standing."""
    side = {c.id: c.side for c in reversed(enc.combatants)}  # (the first of an id, as ``get``)
    standing = {side[cid] for cid, fate in zip(ids, fates, strict=True) if not fate}
    sides = {side[cid] for cid in ids if cid in side}
    if len(standing) > 1 or (len(standing) == 1 and len(sides) == 1):
        return None
    return next(iter(standing), "")


def _settle(
    rules: RuleSystem, enc: Encounter, choices: tuple[Choice, ...] | None = None
) -> Encounter:
    """The choices open in ``enc`` settled one by one, as the rules answer them (``choices``:
    those open now, when the caller asked already)."""
    for _ in range(MAX_SETTLE):
        if choices is None:
            choices = rules.choices.open(enc)
        if not choices:
            break
        try:
            enc = apply(enc, rules.tactics.settle(enc, choices[0]), rng=Stream).encounter
        except CommandError:
            break
        choices = None
    return enc


@frozen
class Played(Encounter):
    """An encounter a play runs: a turn that cannot be played is passed by the play, one
    ``next`` each, not inside the command that reached it (``passes_turns``): the play sees
    each turn start, so a fight that ends at one (a bleed-out, a death countdown) ends in that
    turn's round, not in the round the passes had moved the marker to."""

    passes_turns = False


@frozen
class Unlogged(Played):
    """An encounter whose log keeps no line, the copies a play makes: the forecast reads no
    log, and each line logged was a copy of the whole encounter. The rules run alike (a test
    plays the same seeds both ways and compares the encounters, apart from the log), and skip
    writing a line that only the log would read (``keeps_log``); a line that reached the log
    another way is emptied after each turn."""

    keeps_log = False

    def logged(self, text: str, kind: Kind = Kind.INFO) -> Encounter:
        return self

    def logged_all(self, lines: Iterable[tuple[str, Kind]]) -> Encounter:
        return self


def play_once(start: Encounter, plays: Mapping[str, Play], seed: int) -> Outcome:
    """Play ``start`` out once with its dice seeded by ``seed`` (its own rolls are the rules';
    the tactics' random picks come from a generator of the same seed). The dice draw from
    ``dice.Stream``, cheaper than the table's generator: a play is reproducible seed for seed,
    and is never replayed at the table."""
    return play(start, plays, seed)[0]


def play(
    start: Encounter, plays: Mapping[str, Play], seed: int, *, logged: bool = False
) -> tuple[Outcome, Encounter]:
    """``play_once``, with the encounter it ends with; ``logged``: its lines are logged (as
    the table's are), else not (``Unlogged``)."""
    rules = rules_for(start.system)
    ids = [c.id for c in roster(start)]
    rng = random.Random(seed)
    by_id = dict(plays)  # (each turn's play reads them: made once, not a copy a turn)
    fields = {f.name: getattr(start, f.name) for f in attrs.fields(Encounter)}
    enc: Encounter = (Played if logged else Unlogged)(
        **{**fields, "seed": seed, "rolls": 0, "log": ()}
    )
    fates = _fates(rules, enc, ids)
    down_at_start = {cid for cid, fate in zip(ids, fates, strict=True) if fate}
    first = ""
    ammo = [rules.tactics.ammo(enc.get(cid)) for cid in ids]
    spent = [0] * len(ids)

    seen = {c.id: c for c in enc.combatants}
    watched = enc.combatants
    here = set(seen)  # the ids in the list
    place = {cid: i for i, cid in enumerate(ids)}
    unique = len(here) == len(watched)  # (no id twice: a changed one is read where it is)
    won = winner(enc, ids, fates)

    # (the rules' parts a play asks after every line, looked up once)
    fallen_of, ammo_of, next_line = (
        rules.tactics.fallen,
        rules.tactics.ammo,
        rules.tactics.next_line,
    )
    can_act, open_choices = rules.turns.can_act, rules.choices.open

    def look(enc: Encounter, i: int, c: Combatant) -> bool:
        """Combatant ``c`` (``ids[i]``) changed: whether the side left standing may have too."""
        nonlocal first
        cid = ids[i]
        was = seen.get(cid)
        seen[cid] = c
        fate = fallen_of(enc, c) or ""
        moved = fate != fates[i] or was is None or c.side != was.side
        fates[i] = fate
        if fate and not first and cid not in down_at_start:
            first = cid
        now = ammo_of(c)
        spent[i] += max(0, ammo[i] - now)
        ammo[i] = now
        return moved

    def watch(enc: Encounter) -> None:
        """Who fell (the first to), the ammo spent, and the side left standing: read again only
        for a combatant the line changed (an unchanged one is the same value), and not at all
        when none changed (the same list)."""
        nonlocal watched, won, unique
        old, watched = watched, enc.combatants
        if watched is old:
            return
        if unique and len(watched) == len(old):  # (the same ids in the same places: the usual)
            changed, same = False, True
            for c, was in zip(watched, old):  # noqa: B905 - (the lengths are equal: above)
                if c is not was:
                    if c.id != was.id:
                        same = False
                        break
                    i = place.get(c.id)
                    if i is not None and look(enc, i, c):
                        changed = True
            if same:
                if changed:
                    won = winner(enc, ids, fates)
                return
        now_in: dict[str, Combatant] = {}
        for one in watched:
            now_in.setdefault(one.id, one)  # (the first of an id, as ``Encounter.get`` finds)
        unique = len(now_in) == len(watched)
        changed = now_in.keys() != here
        if changed:
            here.clear()
            here.update(now_in)
        for i, cid in enumerate(ids):
            now = now_in.get(cid)
            if now is None or now is seen.get(cid):
                continue
            if look(enc, i, now):
                changed = True
        if changed:
            won = winner(enc, ids, fates)

    def turn_on(enc: Encounter, line: str) -> Encounter:
        """``start`` or ``next``, then the turns that cannot be played passed one by one, as
        the rules pass them (``rounds.start_turn``), each watched; none once the fight is over:
        a fight that ends at a turn's start ends in that turn's round."""
        enc = _run(enc, line)
        watch(enc)
        skipped = 0
        while won is None and skipped < len(enc.order):
            slot = enc.current
            if slot is None or can_act(enc, slot):
                break
            enc = _run(enc, "next")
            watch(enc)
            skipped += 1
        return enc

    if enc.phase is Phase.SETUP and won is None:
        enc = turn_on(enc, "start")
    enc = _settle(rules, enc)  # (a choice the GM left open takes the forecast's answer too)
    watch(enc)
    stop = ""
    start_round, acted = enc.round, enc.round
    turn = TurnPlay(by_id, rng)
    tried, refused = turn.tried, turn.refused
    while won is None:
        if enc.phase is not _ACTIVE:
            raise ForecastError("the combat has ended: 'resume' it to forecast")
        if enc.round - start_round >= MAX_ROUNDS:
            stop = "rounds"
            break
        if enc.round - acted >= STALL_ROUNDS:
            stop = "stalled"
            break
        slot = enc.current or ""
        tried.clear()  # (a turn's lines start anew: one ``TurnPlay`` a play, not a turn)
        refused.clear()
        for _ in range(MAX_LINES):
            line = next_line(enc, slot, turn)
            if line is None or line in refused:
                break
            try:
                enc = apply(enc, line, rng=Stream).encounter
            except CommandError:
                refused.add(line)
                continue
            tried.add(line)
            acted = enc.round
            if choices := open_choices(enc):  # (most lines leave none: ``_settle`` not called)
                enc = _settle(rules, enc, choices)
            watch(enc)
            if won is not None:
                break
        if won is not None:  # (the fight ended in this turn: its round is the one it ended in)
            break
        enc = turn_on(enc, "next")
        if choices := open_choices(enc):
            enc = _settle(rules, enc, choices)
        if enc.log:  # (the forecast reads no log: it would only grow; a play's keeps none)
            enc = evolve(enc, log=())
        watch(enc)
    ends = tuple(
        rules.tactics.end_word(enc, enc.get(cid)) if enc.has(cid) else "fled" for cid in ids
    )
    return Outcome(won or "", stop, enc.round, tuple(fates), ends, tuple(spent), first), enc


def _run(enc: Encounter, line: str) -> Encounter:
    try:
        return apply(enc, line, rng=Stream).encounter
    except CommandError as err:
        raise ForecastError(f"the rules refused '{line}' in round {enc.round}: {err}") from None


# -- the tally ---------------------------------------------------------------------------------


@define
class Tally:
    """What the plays so far add up to; merged as chunks of plays arrive."""

    ids: tuple[str, ...]
    runs: int = 0
    wins: Counter[str] = field(factory=Counter)  # side ("" none) -> plays
    rounds: dict[str, Counter[int]] = field(factory=dict)  # side -> round it won in -> plays
    out: Counter[str] = field(factory=Counter)  # combatant -> plays it ended down, fled or dying
    dying: Counter[str] = field(factory=Counter)  # ... dying or dead
    ends: dict[str, Counter[str]] = field(factory=dict)  # combatant -> end state -> plays
    downs: dict[str, Counter[str]] = field(factory=dict)  # ... of the plays it ended down or out
    ammo: Counter[str] = field(factory=Counter)  # combatant -> ammo spent over all plays
    first: Counter[str] = field(factory=Counter)  # combatant -> plays it fell first
    stops: Counter[str] = field(factory=Counter)  # "rounds", "stalled" -> plays
    # the combatants that ended dying or dead together -> plays (the chance that any of a
    # side does: ``forecast.tune``'s --deaths)
    dying_together: Counter[tuple[str, ...]] = field(factory=Counter)
    cpu: float = field(default=0.0, eq=False)  # CPU seconds the plays took (the benchmark's)

    def add(self, o: Outcome) -> None:
        self.runs += 1
        self.wins[o.winner] += 1
        if o.winner:
            self.rounds.setdefault(o.winner, Counter())[o.rounds] += 1
        if o.stop:
            self.stops[o.stop] += 1
        if o.first:
            self.first[o.first] += 1
        for cid, fate, end, ammo in zip(self.ids, o.fates, o.ends, o.ammo, strict=True):
            if fate:
                self.out[cid] += 1
                self.downs.setdefault(cid, Counter())[end] += 1
            if fate == "dying":
                self.dying[cid] += 1
            self.ends.setdefault(cid, Counter())[end] += 1
            self.ammo[cid] += ammo
        if "dying" in o.fates:
            dying = (cid for cid, fate in zip(self.ids, o.fates, strict=True) if fate == "dying")
            self.dying_together[tuple(dying)] += 1

    def merge(self, other: Tally) -> None:
        self.runs += other.runs
        self.cpu += other.cpu
        for mine, theirs in (
            (self.wins, other.wins),
            (self.out, other.out),
            (self.dying, other.dying),
            (self.ammo, other.ammo),
            (self.first, other.first),
            (self.stops, other.stops),
        ):
            mine.update(theirs)
        self.dying_together.update(other.dying_together)
        for side, counts in other.rounds.items():
            self.rounds.setdefault(side, Counter()).update(counts)
        for mine_by, theirs_by in ((self.ends, other.ends), (self.downs, other.downs)):
            for cid, ends in theirs_by.items():
                mine_by.setdefault(cid, Counter()).update(ends)


def wilson(k: int, n: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of ``k`` successes in ``n`` trials (95 % by default)."""
    if n <= 0:
        return 0.0, 1.0
    p = k / n
    z2 = z * z
    centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = z * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / (1 + z2 / n)
    # (at 0 or n the bound is the share itself, up to rounding: said exactly)
    return (0.0 if k == 0 else centre - half), (1.0 if k == n else centre + half)


def percentile(counts: Counter[int], share: float) -> int:
    """The smallest value with at least ``share`` of the counts at or below it."""
    total = sum(counts.values())
    seen = 0
    for value in sorted(counts):
        seen += counts[value]
        if seen >= share * total:
            return value
    return 0


# -- running many plays ------------------------------------------------------------------------


def play_seed(seed: int, index: int) -> int:
    """The seed of play ``index`` of a forecast seeded ``seed``."""
    return random.Random(f"forecast:{seed}:{index}").getrandbits(62)


def _chunk(start: Encounter, plays: Mapping[str, Play], seed: int, first: int, count: int) -> Tally:
    """Plays ``first`` to ``first + count`` of the forecast seeded ``seed``."""
    tally = Tally(tuple(c.id for c in roster(start)))
    cpu = time.process_time()
    for index in range(first, first + count):
        tally.add(play_once(start, plays, play_seed(seed, index)))
    tally.cpu = time.process_time() - cpu
    return tally


class Job:
    """What a pool's workers play: sent to each worker once (``_worker``), then asked for
    chunks of plays by their range (``chunk``), each chunk a value the caller merges. The
    forecast's own is a fight's plays (``Plays``); a day of fights is another
    (``forecast.day``)."""

    def chunk(self, first: int, count: int) -> Any:
        raise NotImplementedError


@frozen
class Plays(Job):
    """A fight played out from ``start``, its plays seeded from ``seed``."""

    start: Encounter
    plays: dict[str, Play]
    seed: int

    def chunk(self, first: int, count: int) -> Tally:
        return _chunk(self.start, self.plays, self.seed, first, count)


_JOB: Job | None = None  # what a worker plays
# A worker's collector: young objects collected after this many more allocations than frees (a
# play frees nearly all it makes by reference counts: at the default 700 a worker collected
# about once a play and scanned its imported modules again and again: docs/benchmarks.md,
# 'The forecast's plays and workers'), and what was loaded before it played never scanned again.
WORKER_GC = (50_000, 50, 1000)


def _worker(job: Job) -> None:
    """A worker's start: the fight is sent once (a task is only its range of plays), and it
    runs at the lowest priority (nice 19, as the viewers do): the tracker's keys come first on
    a busy core (at nice 10 the keys slowed while the pool played, at 19 not measurably:
    ``benchmarks.forecast_keys``, docs/benchmarks.md, 'The forecast's plays and workers'), and an
    idle core is the pool's all the same."""
    global _JOB
    _JOB = job
    with contextlib.suppress(AttributeError, OSError):  # (no nice on some platforms)
        os.nice(19)
    gc.freeze()
    gc.set_threshold(*WORKER_GC)


def _worker_chunk(span: tuple[int, int]) -> Any:
    assert _JOB is not None
    return _JOB.chunk(*span)


def read_plays(enc: Encounter, words: Mapping[str, str]) -> dict[str, Play]:
    """The GM's plays, ``{name: words}``, as plays by combatant id; a name no combatant has,
    or a word the rules do not know, is refused in one line."""
    rules = rules_for(enc.system)
    out: dict[str, Play] = {}
    for name, text in words.items():
        try:
            c = resolve(enc, name, listed)
            play = parse_play(text)
        except (CommandError, PlayError) as err:
            raise ForecastError(str(err)) from None
        if why := rules.tactics.check_play(play):
            raise ForecastError(why)
        out[c.id] = play
    return out


def parse_play_option(text: str, what: str = "--play") -> tuple[str, str]:
    """``NAME=WORDS`` (``--play blanc=focus``) as its two parts; ``what`` names the option in
    the refusal."""
    if (bad := control_in(text)) is not None:  # (said as typed below: never sent raw)
        raise ForecastError(f"{what} holds a control character ({bad}); retype it")
    name, eq, words = text.partition("=")
    if not eq or not name.strip() or not words.strip():
        raise ForecastError(f"{what} takes NAME=PLAY ({PLAY_WORDS}), got '{text}'")
    return name.strip(), words.strip()


def parse_plays_text(text: str) -> dict[str, str]:
    """The app's plays line: ``NAME=PLAY; NAME=PLAY`` (empty: the default plays)."""
    return dict(
        parse_play_option(part.strip(), "a play") for part in text.split(";") if part.strip()
    )


def check(enc: Encounter) -> None:
    """Refuse, in one line, an encounter the forecast cannot play."""
    sides = {c.side for c in roster(enc)}
    if not sides:
        raise ForecastError("nothing to forecast: the encounter has no combatants")
    if len(sides) < 2:
        raise ForecastError("nothing to forecast: every combatant is on one side")
    if enc.phase is Phase.ENDED:
        raise ForecastError("the combat has ended: 'resume' it to forecast")


def workers() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # (not on every platform)
        return max(1, os.cpu_count() or 1)


def run(
    enc: Encounter,
    runs: int,
    seed: int,
    plays: Mapping[str, Play] | None = None,
    *,
    processes: int | None = None,
    chunk: int = CHUNK,
    stop: Callable[[], bool] | None = None,
) -> Iterator[Tally]:
    """Play ``enc`` out ``runs`` times; yields the tally so far each time a chunk of plays
    finishes (the last one is the whole forecast). ``processes``: worker processes (default:
    one per core; 1 plays here, in this process). ``stop`` is asked every tenth of a second
    (the app's escape): true, the workers are stopped and nothing more is yielded; closing the
    iterator stops them too."""
    check(enc)
    enc = evolve(enc, log=())  # (no play reads it: a long campaign's is not sent to the workers)
    plays = dict(plays or {})
    tally = Tally(tuple(c.id for c in roster(enc)))
    job = Plays(enc, plays, seed)
    with contextlib.closing(pooled(job, runs, processes, chunk=chunk, stop=stop)) as parts:
        for part in parts:
            tally.merge(part)
            yield tally


def pooled(
    job: Job,
    runs: int,
    processes: int | None = None,
    *,
    chunk: int = CHUNK,
    stop: Callable[[], bool] | None = None,
) -> Generator[Any, None, None]:
    """``job``'s ``runs`` plays in chunks, each chunk's value yielded as it finishes, in
    worker processes as ``run`` says (``processes``, ``stop``)."""
    count = workers() if processes is None else processes
    count = min(count, -(-runs // chunk))  # (no more workers than chunks of plays)
    spans = _spans(runs, chunk, count)
    if count <= 1:
        for span in spans:
            if stop is not None and stop():
                return
            yield job.chunk(*span)
        return
    pool = _context().Pool(count, initializer=_worker, initargs=(job,))
    try:
        parts = pool.imap_unordered(_worker_chunk, spans)
        for _ in spans:
            while True:
                if stop is not None and stop():
                    return
                try:
                    part = parts.next(timeout=0.1)
                except multiprocessing.TimeoutError:
                    continue
                break
            yield part
    finally:
        pool.terminate()
        pool.join()


def _spans(runs: int, chunk: int, count: int) -> list[tuple[int, int]]:
    """The plays cut into tasks of ``chunk`` plays (first, how many); with several workers the
    last ones shrink, down to one play, so that they end together: with even chunks one
    worker played on alone for up to a chunk after the other ran out
    (docs/benchmarks.md, 'The forecast's plays and workers')."""
    spans, first = [], 0
    while first < runs:
        left = runs - first
        size = min(chunk, left) if count <= 1 else max(1, min(chunk, left // (3 * count)))
        spans.append((first, size))
        first += size
    return spans


def _context() -> Any:
    """How the workers start: forked from this process where it runs no other thread (the
    CLI, a benchmark: a worker starts at once with everything loaded, where a forkserver started
    on demand must first start and load the rules: docs/benchmarks.md, 'The forecast's plays and
    workers'); else (the app, whose threads a fork would copy mid-step) from the forkserver, which
    the app starts ahead (``warm``)."""
    # (on Linux only: macOS's own libraries may run threads that a fork would copy)
    if sys.platform == "linux" and threading.active_count() == 1:
        return multiprocessing.get_context("fork")
    _start_helpers()
    return multiprocessing.get_context("forkserver")


def warm() -> None:
    """Start the forkserver the app's forecasts fork their workers from, before the first
    forecast (it loads the rules in its own process, on the other core)."""
    if "forkserver" in multiprocessing.get_all_start_methods():
        _start_helpers()


def _start_helpers() -> None:
    """Start the forkserver and its resource tracker with the process's own stderr: they hand
    ``sys.stderr``'s file to their process, and in the app it is Textual's capture, with no
    file (``bad value(s) in fds_to_keep``)."""
    from multiprocessing import forkserver, resource_tracker

    saved = sys.stderr
    try:
        if sys.__stderr__ is not None:
            sys.stderr = sys.__stderr__
        resource_tracker.ensure_running()
        # a worker forks from a server that has imported the rules already (not each anew)
        forkserver.set_forkserver_preload([__name__, "facility_tui.forecast.preload"])
        forkserver.ensure_running()
    finally:
        sys.stderr = saved


def forecast(
    enc: Encounter,
    runs: int,
    seed: int,
    plays: Mapping[str, Play] | None = None,
    *,
    processes: int | None = None,
) -> Tally:
    """The whole forecast (``run`` to its end)."""
    tally = Tally(tuple(c.id for c in roster(enc)))
    for tally in run(enc, runs, seed, plays, processes=processes):  # noqa: B007
        pass
    return tally


# -- in words ----------------------------------------------------------------------------------

SIDE_NAMES = {PCS: "PCs", ENEMIES: "Enemies", "": "No one"}
BARS = "▁▂▃▄▅▆▇█"
WIDTH = 74  # the forecast screen's lines at 80 columns (its frame, padding and scroll bar off)
NAMES = 20  # the most a name takes of a line
SHARE = 14  # a share as ``pct`` writes it, at its widest: ``100 % (99–100)``


def pct(k: int, n: int) -> str:
    """``47 % (43–50)``: the share and its Wilson 95 % interval, in whole percents."""
    low, high = wilson(k, n)
    return f"{round(100 * k / max(1, n))} % ({math.floor(100 * low)}–{math.ceil(100 * high)})"


def histogram(counts: Counter[int]) -> str:
    """A bar per round from the first to the last: ``▁▃█▅▂``."""
    if not counts:
        return ""
    low, high = min(counts), max(counts)
    top = max(counts.values())
    return "".join(
        BARS[(counts[r] * (len(BARS) - 1) + top - 1) // top] if counts[r] else " "
        for r in range(low, high + 1)
    )


def assumptions(enc: Encounter, plays: Mapping[str, Play], seed: int) -> list[str]:
    """The assumptions a forecast used, in words (the screen and the reports list them)."""
    rules = rules_for(enc.system)
    out = [*rules.tactics.assumptions]
    names = {c.id: c.name for c in enc.combatants}
    out += [f"{names.get(cid, cid)}: {play.text()}" for cid, play in plays.items()]
    out.append(
        f"seed {seed}; a play stops undecided after {MAX_ROUNDS} rounds, or after "
        f"{STALL_ROUNDS} rounds in which no one acts"
    )
    return out


def as_dict(enc: Encounter, tally: Tally, plays: Mapping[str, Play], seed: int) -> dict[str, Any]:
    """The forecast as plain data (``--json``)."""
    n = tally.runs
    names = {c.id: c.name for c in enc.combatants}

    def share(k: int) -> dict[str, float | int]:
        low, high = wilson(k, n)
        return {"count": k, "share": k / n if n else 0.0, "low": low, "high": high}

    sides: dict[str, Any] = {}
    for side in sorted({enc.get(cid).side for cid in tally.ids}):
        counts = tally.rounds.get(side, Counter())
        sides[side] = {
            "win": share(tally.wins[side]),
            "rounds": {str(r): counts[r] for r in sorted(counts)},
            "median_rounds": percentile(counts, 0.5) if counts else None,
            "p90_rounds": percentile(counts, 0.9) if counts else None,
        }
    return {
        "encounter": enc.name,
        "system": enc.system,
        "runs": n,
        "seed": seed,
        "sides": sides,
        "no_winner": share(tally.wins[""]),
        "stopped": dict(tally.stops),
        "combatants": [
            {
                "id": cid,
                "name": names.get(cid, cid),
                "side": enc.get(cid).side,
                "out": share(tally.out[cid]),
                "dying_or_dead": share(tally.dying[cid]),
                "end_state": usual_end(tally, cid),
                "end_states": dict(tally.ends.get(cid, Counter()).most_common()),
                "ammo_spent_mean": tally.ammo[cid] / n if n else 0.0,
                "first_to_fall": share(tally.first[cid]),
            }
            for cid in tally.ids
        ],
        "assumptions": assumptions(enc, plays, seed),
        "note": note(tally),
    }


def _likeliest(counts: Counter[str]) -> str:
    return min(counts, key=lambda k: (-counts[k], k)) if counts else ""


def usual_end(tally: Tally, cid: str) -> str:
    """How ``cid`` usually ends, in the terms of the down/out column: when it ends down or out
    in more than half the plays, the commonest way it is (``uncons.``); else the commonest
    state it stands in (``Serious``). (The commonest of all read as a contradiction: 95 %
    down or out, and "most often Serious", the other 5 % in one word against four.)"""
    ends = tally.ends.get(cid, Counter())
    downs = tally.downs.get(cid, Counter())
    if 2 * tally.out[cid] > tally.runs:
        return _likeliest(downs)
    return _likeliest(ends - downs)


def note(tally: Tally) -> str:
    """What the GM must know beyond the figures: plays that could not end."""
    n = tally.runs
    stalled, capped = tally.stops["stalled"], tally.stops["rounds"]
    if n and stalled == n:
        return "Nobody can act: no play of this fight goes anywhere (its tactics have no action)"
    parts = []
    if stalled:
        parts.append(f"{stalled} of {n} plays stalled (no one could act for {STALL_ROUNDS} rounds)")
    if capped:
        parts.append(f"{capped} of {n} plays had no winner after {MAX_ROUNDS} rounds")
    return "; ".join(parts)


def _rounds_parts(counts: Counter[int]) -> tuple[str, str]:
    return (
        f"round {percentile(counts, 0.5)} median, {percentile(counts, 0.9)} at 90 %",
        f"{histogram(counts)} ({min(counts)}–{max(counts)})",
    )


def rounds_text(counts: Counter[int]) -> str:
    return " ".join(_rounds_parts(counts)) if counts else ""


def rounds_lines(counts: Counter[int]) -> list[str]:
    """``rounds_text`` as the text's lines: the histogram on a line of its own when they would
    be wider than ``WIDTH`` together (a bar a round, up to ``MAX_ROUNDS``)."""
    if not counts:
        return []
    figures, bars = _rounds_parts(counts)
    line = f"  {figures} {bars}"
    return [line] if len(line) <= WIDTH else [f"  {figures}:", f"  {bars}"]


def lines(enc: Encounter, tally: Tally, plays: Mapping[str, Play], seed: int) -> list[str]:
    """The forecast as plain text lines (the CLI; the screen shows the same)."""
    n = tally.runs
    names = {c.id: c.name for c in enc.combatants}
    out = [f"{enc.name}: {n} plays from round {enc.round} ({enc.phase.value})"]
    if text := note(tally):
        out.append(text)
    for side in sorted({enc.get(cid).side for cid in tally.ids}):
        out.append(f"{SIDE_NAMES.get(side, side)} win {pct(tally.wins[side], n)}")
        out += rounds_lines(tally.rounds.get(side, Counter()))
    if tally.wins[""]:
        out.append(f"No winner {pct(tally.wins[''], n)}")
    out.append("")
    # The columns keep their widths as the figures sharpen; the names take what is left of
    # ``WIDTH`` (each state word fits its column whole: ``Tactics.end_word``).
    ammo_head = rules_for(enc.system).tactics.ammo_spent
    rest = 2 + SHARE + 2 + SHARE + 2 + END_WORD + 2 + len(ammo_head)
    width = max((len(names.get(cid, cid)) for cid in tally.ids), default=4)
    width = min(width, NAMES, WIDTH - rest)

    # (shortened from the front as the list does, told apart: ``Cont. Drone 1``; cut only if
    # that cannot be done)
    given = [names.get(cid, cid) for cid in tally.ids]
    short = shorten_names([("", name) for name in given], width) or [
        name if len(name) <= width else name[: width - 1] + "…" for name in given
    ]
    shown = dict(zip(tally.ids, short, strict=True))

    def name_of(cid: str) -> str:
        return shown[cid]

    out.append(
        f"{'':{width}}  {'down/out':{SHARE}}  {'dying/dead':{SHARE}}  {'ends as':{END_WORD}}  "
        f"{ammo_head}"
    )
    for cid in tally.ids:
        ammo = f"{tally.ammo[cid] / n:.1f}" if n else "-"
        out.append(
            f"{name_of(cid):{width}}  {pct(tally.out[cid], n):{SHARE}}  "
            f"{pct(tally.dying[cid], n):{SHARE}}  {usual_end(tally, cid):{END_WORD}}  {ammo}"
        )
    likeliest = [cid for cid, _ in sorted(tally.first.items(), key=lambda kv: (-kv[1], kv[0]))]
    if likeliest:  # (a line each: on one, a name was parted from its share where it wrapped)
        out += ["", "First to fall:"]
        out += [f"{name_of(cid):{width}}  {pct(tally.first[cid], n)}" for cid in likeliest[:3]]
    out.append("")
    out.append("Assumptions:")
    out += [f"- {line}" for line in assumptions(enc, plays, seed)]
    return out


def markdown(enc: Encounter, tally: Tally, plays: Mapping[str, Play], seed: int) -> str:
    """The forecast as a Markdown report (``--md``); names escaped as the journal does."""
    n = tally.runs
    names = {c.id: md(c.name) for c in enc.combatants}
    out = [f"# Forecast: {md(enc.name)}\n\n"]
    out.append(f"{n} plays from round {enc.round} ({enc.phase.value}).\n")
    if text := note(tally):
        out.append(f"\n**{text}**\n")
    out.append("\n| side | wins | rounds |\n|---|---|---|\n")
    for side in sorted({enc.get(cid).side for cid in tally.ids}):
        rounds = rounds_text(tally.rounds.get(side, Counter()))
        out.append(f"| {SIDE_NAMES.get(side, side)} | {pct(tally.wins[side], n)} | {rounds} |\n")
    ammo_head = rules_for(enc.system).tactics.ammo_spent
    out.append(f"\n| combatant | down or out | dying or dead | ends as | {ammo_head} |\n")
    out.append("|---|---|---|---|---|\n")
    for cid in tally.ids:
        end = md(usual_end(tally, cid))
        ammo = f"{tally.ammo[cid] / n:.1f}" if n else "-"
        out.append(
            f"| {names.get(cid, cid)} | {pct(tally.out[cid], n)} | {pct(tally.dying[cid], n)} "
            f"| {end} | {ammo} |\n"
        )
    likeliest = sorted(tally.first.items(), key=lambda kv: (-kv[1], kv[0]))[:3]
    if likeliest:
        out.append("\nFirst to fall: ")
        out.append("; ".join(f"{names.get(c, c)} {pct(k, n)}" for c, k in likeliest) + "\n")
    out.append("\n## Assumptions\n\n")
    out += [f"- {md(line)}\n" for line in assumptions(enc, plays, seed)]
    return "".join(out)
