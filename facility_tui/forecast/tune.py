"""A fight tuned to a target (issue 39, docs/forecast.md): how many of each enemy type make the
PCs' chance to win the one the GM asks for (``--win 80``), with at most a chance of a PC
ending dying or dead (``--deaths 10``), and a length near a number of rounds (``--rounds 6``).

Only what the GM allows changes: the number of each enemy type present (``--vary`` names some),
set by the ``muster`` line that the GM would type, so each candidate is the fight that line
makes. Every candidate is played by the forecast's engine (no estimate), in batches; it is
dropped once its 95 % Wilson interval is clear of the target (sequential testing). The search
uses the fact that more enemies lower the PCs' chance: it walks a ladder of rosters, each rung
one enemy more than the last (the types kept in proportion), doubling its steps until the
target is crossed, then bisects; where the step across it added a strong type, the others
alone step on from the last rung over it. The roster chosen is played until its 95 % Wilson
interval is at most ±2 points.

Pure: it reads the encounter (and the campaign's templates, through the ``muster`` line),
writes nothing; ``tune`` yields its steps as they go, so a screen can show them.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from attrs import define, field, frozen

from facility_tui.campaign.folder import Campaign
from facility_tui.commands.arm import NothingToArm, carried, weapon_names
from facility_tui.commands.dispatch import apply
from facility_tui.commands.grammar import CommandError, quote
from facility_tui.commands.muster import (
    MAX_COUNT,
    EnemyType,
    counts,
    enemy_types,
    key_of,
    line_for,
)
from facility_tui.forecast.engine import (
    Z95,
    ForecastError,
    Tally,
    pct,
    percentile,
    roster,
    run,
    wilson,
)
from facility_tui.model.encounter import PCS, Encounter
from facility_tui.systems.plays import Play

Z_DROP = Z95  # a candidate is dropped once its 95 % interval is clear of the target
CONFIRM = 0.02  # the chosen one's 95 % interval: at most this either side
FIRST = 40  # plays of a candidate's first batch; each next batch brings it to 1.5 times as many
GROWTH = 1.5  # (doubling overshot: a candidate decided at 200 plays was played to 320)
MAX_RUNGS = 200  # rungs of the ladder either side of today's roster (at most)


class TuneError(ForecastError):
    """A target or a type the tuning refuses; one line, fit for the GM."""


@frozen
class Target:
    win: float  # the PCs' chance to win, 0..1
    deaths: float | None = None  # the most the chance of any PC ending dying or dead may be
    rounds: int | None = None  # the median length (rounds) preferred

    def words(self) -> str:
        out = [f"win {_pc(self.win)}"]
        if self.deaths is not None:
            out.append(f"deaths at most {_pc(self.deaths)}")
        if self.rounds is not None:
            out.append(f"about {self.rounds} rounds")
        return ", ".join(out)


def _pc(share: float) -> str:
    return f"{round(100 * share, 1):g} %"


def read_target(text: str) -> Target:
    """The screen's line: ``win 80 deaths 10 rounds 6`` (``win`` needed; the words in any
    order and case; ``%`` allowed)."""
    return read_request(text)[0]


def read_request(text: str) -> tuple[Target, list[str]]:
    """The screen's line, with the types whose weapons change: ``win 80 arm boarder`` (``arm
    TYPE`` as often as wanted, as ``--arm``), the target read as ``read_target`` reads it."""
    words = text.replace("%", " ").replace("=", " ").lower().split()
    if not words:
        raise TuneError("type a target: win 80 (and deaths 10, rounds 6 if you like)")
    said: dict[str, str] = {}
    arm: list[str] = []
    it = iter(words)
    for word in it:
        if word not in ("win", "deaths", "rounds", "arm"):
            raise TuneError(f"unknown word '{word}': type win 80 deaths 10 rounds 6 (arm TYPE)")
        value = next(it, None)
        if value is None and word == "arm":
            raise TuneError("'arm' needs an enemy type: win 80 arm boarder")
        if value is None:
            raise TuneError(f"'{word}' needs a number: win 80 deaths 10 rounds 6")
        if word == "arm":
            arm.append(value)
            continue
        if word in said:
            raise TuneError(f"'{word}' is given twice")
        said[word] = value
    if "win" not in said:
        raise TuneError("say the PCs' chance to win: win 80")
    return target(said["win"], said.get("deaths"), said.get("rounds")), arm


def target(win: Any, deaths: Any = None, rounds: Any = None) -> Target:
    """The target from the numbers typed (percents, rounds), each checked in one line."""

    def percent(what: str, value: Any, low: float, high: float) -> float:
        try:
            number = float(str(value).strip().rstrip("%"))
        except ValueError:
            raise TuneError(f"{what} must be a percent, got '{value}'") from None
        if not low <= number <= high or number != number:
            raise TuneError(f"{what} must be from {low:g} to {high:g} %, got {value}")
        return number / 100

    win_share = percent("win", win, 1, 99)
    deaths_share = None if deaths is None else percent("deaths", deaths, 0, 100)
    length = None
    if rounds is not None:
        text = str(rounds).strip()
        if not (text.isascii() and text.isdigit()) or not 1 <= int(text[-6:]) <= 60:
            raise TuneError(f"rounds must be a whole number from 1 to 60, got '{rounds}'")
        length = int(text)
    return Target(win_share, deaths_share, length)


# -- one candidate --------------------------------------------------------------------------------


@define
class Trial:
    """A roster tried: its counts (type -> how many), the ``muster`` line that makes it (""
    for today's), its plays so far, and what they say against the target."""

    counts: dict[str, int]
    line: str
    pcs: frozenset[str]
    tally: Tally
    verdict: str = ""  # "above" (the PCs win more), "below", "at" (within ±2), "" (playing)
    why: str = ""  # why it stopped, in words
    deaths_over: bool = False  # its chance of a PC dying is clear over the most allowed
    # tuned by weapons (``--arm``): each armed type's weapon (today's in words, else the
    # catalog's name); empty when tuned by counts
    weapons: dict[str, str] = field(factory=dict)

    @property
    def runs(self) -> int:
        return self.tally.runs

    @property
    def wins(self) -> int:
        return self.tally.wins[PCS]

    @property
    def win(self) -> float:
        return self.wins / self.runs if self.runs else 0.0

    @property
    def deaths(self) -> int:
        """Plays in which any PC ended dying or dead."""
        return sum(n for ids, n in self.tally.dying_together.items() if self.pcs & set(ids))

    @property
    def median_rounds(self) -> int | None:
        counts = Counter[int]()
        for by_round in self.tally.rounds.values():
            counts.update(by_round)
        return percentile(counts, 0.5) if counts else None

    def size(self) -> int:
        return sum(self.counts.values())

    def label(self) -> str:
        """What it tried: ``Boarder 3, Boarding Chief 1``; by weapons, those changed
        (``Boarder: FAM-90``) or ``Today's weapons (Boarder: SMG …)``."""
        if not self.weapons:
            return roster_words(self.counts)
        moved = [f"{n}: {w}" for n, w in self.weapons.items() if not w.endswith(TODAY)]
        today = [f"{n}: {w.removesuffix(TODAY)}" for n, w in self.weapons.items()]
        return "; ".join(moved) or f"Today's weapons ({'; '.join(today)})"


def judge(trial: Trial, goal: Target) -> None:
    """Its verdict from its plays so far (none yet: ``verdict`` stays ""); a verdict once in
    stays (the chosen one's plays go on: ``settle`` reads them)."""
    if trial.verdict:
        return
    n, k = trial.runs, trial.wins
    low, high = wilson(k, n, Z_DROP)
    d_low, d_high = wilson(trial.deaths, n, Z_DROP)
    d_clear = goal.deaths is None or d_high <= goal.deaths or d_low > goal.deaths
    trial.deaths_over = goal.deaths is not None and d_low > goal.deaths
    if trial.deaths_over:  # (harder than allowed: more enemies only add to it)
        trial.verdict = "below"
        trial.why = f"PC deaths {pct(trial.deaths, n)} over {_pc(goal.deaths or 0)}"
        return
    if d_clear and (low > goal.win or high < goal.win):
        trial.verdict = "above" if low > goal.win else "below"
        side = "over" if low > goal.win else "under"
        trial.why = f"clear {side} {_pc(goal.win)}"
        return
    low95, high95 = wilson(k, n)
    d_low95 = wilson(trial.deaths, n)[0]
    confirmed = max(high95 - k / n, k / n - low95) <= CONFIRM if n else False
    if confirmed:
        if goal.deaths is not None and d_low95 > goal.deaths:
            trial.deaths_over = True
            trial.verdict = "below"
            trial.why = f"PC deaths {pct(trial.deaths, n)} over {_pc(goal.deaths)}"
        elif low95 > goal.win or high95 < goal.win:
            trial.verdict = "above" if low95 > goal.win else "below"
            trial.why = f"{'over' if low95 > goal.win else 'under'} {_pc(goal.win)} at ±2 points"
        else:
            trial.verdict = "at"
            trial.why = f"meets {_pc(goal.win)} at ±2 points"


def _batch_seed(seed: int, line: str, batch: int) -> int:
    return random.Random(f"tune:{seed}:{line}:{batch}").getrandbits(62)


def _plays_needed(trial: Trial) -> int:
    """Plays to have after the next batch: ``GROWTH`` times what it has (at least ``FIRST``),
    no more than a ±2-point interval needs at its share (at most 2,401 plays, at 50 %)."""
    p = min(max(trial.win, 0.05), 0.95) if trial.runs else 0.5
    enough = int(Z95 * Z95 * p * (1 - p) / (CONFIRM * CONFIRM)) + 1
    return max(
        trial.runs + 1, min(max(FIRST, int(GROWTH * trial.runs)), max(enough, trial.runs + FIRST))
    )


def play_trial(
    trial: Trial,
    enc: Encounter,
    goal: Target,
    seed: int,
    *,
    until: Callable[[Trial], bool],
    processes: int | None,
    stop: Callable[[], bool] | None,
    plays: Mapping[str, Play] | None = None,
) -> Iterator[Trial]:
    """Play ``trial`` (``enc`` is its fight) in batches until ``until`` says it is done; yields
    it after each batch. Each batch has its own seed (the roster's line and its number), so
    the same seed gives the same steps."""
    while not until(trial):
        want = _plays_needed(trial) - trial.runs
        tally: Tally | None = None
        batch = _batch_seed(seed, trial.line, trial.runs)
        for tally in run(enc, want, batch, plays, stop=stop, processes=processes):  # noqa: B007
            pass
        if tally is None or tally.runs < want:  # (stopped: the GM's escape)
            return
        trial.tally.merge(tally)
        judge(trial, goal)
        yield trial


def settle(trial: Trial, goal: Target) -> None:
    """The chosen one's verdict once confirmed: within ±2 points of the target ("at"), else
    over or under it; a PC's death clear over the most allowed."""
    n, k = trial.runs, trial.wins
    low, high = wilson(k, n)
    trial.verdict = "above" if low > goal.win else "below" if high < goal.win else "at"
    # (its why, from the batch that first decided it, said of its plays now)
    if trial.verdict == "at":
        trial.why = f"meets {_pc(goal.win)} at ±2 points"
    else:
        trial.why = (
            f"{'over' if trial.verdict == 'above' else 'under'} {_pc(goal.win)} at ±2 points"
        )
    if goal.deaths is not None and wilson(trial.deaths, n)[0] > goal.deaths:
        trial.deaths_over = True
        trial.why = f"PC deaths {pct(trial.deaths, n)} over {_pc(goal.deaths)}"


def decided(trial: Trial) -> bool:
    return bool(trial.verdict)


def confirmed(trial: Trial) -> bool:
    """Its 95 % interval at most ±2 points."""
    n, k = trial.runs, trial.wins
    if not n:
        return False
    low, high = wilson(k, n)
    return max(high - k / n, k / n - low) <= CONFIRM


# -- the ladder -----------------------------------------------------------------------------------


def ladder(base: dict[str, int], vary: list[str], others: int) -> list[dict[str, int]]:
    """The rosters of the types ``vary`` from the fewest enemies to the most, each one enemy
    more than the one before, ``base`` among them: from it, an enemy more goes to the type
    furthest below its share of ``base`` (the types kept in proportion), an enemy less comes
    from the one furthest above it. A rung keeps at least one enemy in the fight (``others``:
    the enemies of the types not varied)."""

    def ratio(name: str, n: int) -> float:
        return n / max(1, base[name])

    up: list[dict[str, int]] = []
    cur = dict(base)
    while len(up) < MAX_RUNGS:
        grow = [name for name in vary if cur[name] < MAX_COUNT]
        if not grow:
            break
        name = min(grow, key=lambda t: (ratio(t, cur[t] + 1), vary.index(t)))
        cur = {**cur, name: cur[name] + 1}
        up.append(cur)
    down: list[dict[str, int]] = []
    cur = dict(base)
    while len(down) < MAX_RUNGS and sum(cur.values()) + others > 1:
        shrink = [name for name in vary if cur[name] > 0]
        if not shrink:
            break
        name = max(shrink, key=lambda t: (ratio(t, cur[t]), -vary.index(t)))
        cur = {**cur, name: cur[name] - 1}
        down.append(cur)
    return [*reversed(down), dict(base), *up]


# -- the search -----------------------------------------------------------------------------------


@frozen
class Event:
    """What ``tune`` says as it goes: a trial after a batch of its plays (``done``: its
    verdict is in), and at the end the chosen one (``chosen``) and why (``note``)."""

    trial: Trial
    done: bool = False
    chosen: bool = False
    note: str = ""


@define
class Tuning:
    """Everything ``tune`` found: the trials in the order tried, the chosen one, the note."""

    start: Encounter
    goal: Target
    trials: list[Trial] = field(factory=list)
    chosen: Trial | None = None
    note: str = ""
    armed: list[str] = field(factory=list)  # the types tuned by weapons (``--arm``), if any
    today: dict[str, str] = field(factory=dict)  # their weapons today, in words


def check_vary(enc: Encounter, vary: list[str] | None) -> list[str]:
    """The type names to vary (all present when none named); an unknown one refused."""
    if not vary:
        return [k.name for k in _present(enc).values()]
    return check_arm(enc, vary, "--vary")


Roster = tuple[tuple[str, int], ...]  # a roster as a key: (type, count) in the fight's order


def tune(
    enc: Encounter,
    goal: Target,
    seed: int,
    *,
    vary: list[str] | None = None,
    arm: list[str] | None = None,
    campaign: Campaign | None = None,
    processes: int | None = None,
    stop: Callable[[], bool] | None = None,
    result: Tuning | None = None,
    plays: Mapping[str, Play] | None = None,
) -> Iterator[Event]:
    """Tune ``enc`` to ``goal``: yields each trial as its plays come in, then the chosen one.
    ``result`` (given) is filled in as it goes. ``stop`` (the app's escape) ends it early.
    ``plays``: the GM's plays of some combatants (the forecast's), by id. ``arm``: the types
    whose weapon changes (``tune_arms``), the counts staying as today."""
    out = result if result is not None else Tuning(enc, goal)
    if arm:
        if vary:
            raise TuneError(ARM_AND_VARY)
        yield from tune_arms(
            enc,
            goal,
            seed,
            arm,
            campaign=campaign,
            processes=processes,
            stop=stop,
            result=out,
            plays=plays,
        )
        return
    names = check_vary(enc, vary)
    pcs = frozenset(c.id for c in roster(enc) if c.side == PCS)
    if not pcs:
        raise TuneError("nothing to tune: the fight has no PCs")
    now = counts(enc)
    others = sum(n for name, n in now.items() if name not in names)
    tried: dict[Roster, Trial] = {}

    def key(rung: dict[str, int]) -> Roster:
        return tuple({**now, **rung}.items())

    def fight(rung: dict[str, int]) -> Encounter:
        line = line_for(enc, rung)
        if line == "muster":
            return enc
        try:
            return apply(enc, line, campaign=campaign).encounter
        except CommandError as err:
            raise TuneError(f"'{line}': {err}") from None

    def stopped() -> bool:
        return stop is not None and stop()

    def trial(rung: dict[str, int]) -> Iterator[Event]:
        if key(rung) in tried:
            return
        line = line_for(enc, rung)
        played = fight(rung)
        new = Trial(dict(key(rung)), "" if line == "muster" else line, pcs, _tally(played))
        tried[key(rung)] = new
        out.trials.append(new)
        for t in play_trial(
            new, played, goal, seed, until=decided, processes=processes, stop=stop, plays=plays
        ):
            yield Event(t, done=bool(t.verdict))

    def cross(rungs: list[dict[str, int]], first: int) -> Iterator[Event]:
        """From rung ``first``, steps doubling away from it until the target is crossed, then
        halving between the last rung over it and the first under it; the two are
        ``crossing``'s (one rung twice when it meets the target or the ladder ends)."""
        easy: int | None = None
        hard: int | None = None
        i, step, last = first, 0, len(rungs) - 1
        while True:
            yield from trial(rungs[i])
            if stopped():
                return
            verdict = tried[key(rungs[i])].verdict
            if verdict in ("at", "above"):
                easy = i
            if verdict in ("at", "below"):
                hard = i
            if easy is not None and hard is not None:
                break
            step = max(1, 2 * step)
            nxt = max(0, min(last, first + (1 if hard is None else -1) * step))
            if nxt == i:  # (the end of the ladder: over or under the target all along)
                break
            i = nxt
        while easy is not None and hard is not None and hard - easy > 1:
            mid = (easy + hard) // 2
            yield from trial(rungs[mid])
            if stopped():
                return
            verdict = tried[key(rungs[mid])].verdict
            if verdict in ("at", "above"):
                easy = mid
            if verdict in ("at", "below"):
                hard = mid
        lo = easy if easy is not None else hard
        hi = hard if hard is not None else easy
        assert lo is not None and hi is not None  # (the first trial set one of them)
        crossing[:] = [tried[key(rungs[lo])], tried[key(rungs[hi])]]
        around[:] = [rungs, lo]

    crossing: list[Trial] = []
    around: list[Any] = []  # the ladder of the last crossing, and the rung over the target
    base = {name: now[name] for name in names}
    rungs = ladder(base, names, others)
    yield from cross(rungs, rungs.index(base))
    if stopped():
        return
    easy, hard = crossing
    # the step across the target added one of some types (a Boarding Chief): the others alone
    # may step closer, one at a time, from the roster over the target
    added = [n for n in names if hard.counts[n] > easy.counts[n]]
    rest = [n for n in names if n not in added]
    if easy is not hard and easy.verdict == "above" and rest:
        start = {n: easy.counts[n] for n in names}
        rungs = ladder(start, rest, others + sum(start[n] for n in added))
        yield from cross(rungs, rungs.index(start))
        if stopped():
            return
    if goal.rounds is not None and crossing[0] is crossing[1]:
        # a roster meets the target: those beside it on the ladder may too, with a length
        # nearer the one asked for (walked while they meet it and come nearer)
        ladder_at, at = around
        for direction in (-1, 1):
            was, i = crossing[0], at + direction
            while 0 <= i < len(ladder_at):
                yield from trial(ladder_at[i])
                if stopped():
                    return
                beside = tried[key(ladder_at[i])]
                if beside.verdict != "at" or _off(beside, goal.rounds) >= _off(was, goal.rounds):
                    break
                was, i = beside, i + direction
    chosen = _choose(list(tried.values()), [easy, hard, *crossing], goal)
    # confirmed: played on until its interval is ±2 points
    played = fight({n: chosen.counts[n] for n in names})
    for t in play_trial(
        chosen, played, goal, seed, until=confirmed, processes=processes, stop=stop, plays=plays
    ):
        yield Event(t, done=False)
    if stopped():
        return
    settle(chosen, goal)
    note = _note(list(tried.values()), chosen)
    out.chosen, out.note = chosen, note
    yield Event(chosen, done=True, chosen=True, note=note)


def _tally(enc: Encounter) -> Tally:
    return Tally(tuple(c.id for c in roster(enc)))


def _choose(tried: list[Trial], near: list[Trial], goal: Target) -> Trial:
    """The roster nearest the target among those at the crossings (``near``) and any other
    tried within ±2 points of it; with ``goal.rounds``, the one whose median length is nearest
    it among those meeting the target; never one whose PC deaths are clear over the most."""
    allowed = [t for t in tried if not t.deaths_over]
    if not allowed:  # (every one deadlier than allowed: the least deadly)
        return min(tried, key=lambda t: (t.deaths / max(1, t.runs), t.size()))
    meeting = [t for t in allowed if t.verdict == "at"]
    pool = meeting or [t for t in near if not t.deaths_over] or allowed

    def order(t: Trial) -> tuple[float, float]:
        off = abs(t.win - goal.win)
        if goal.rounds is not None and t.verdict == "at":
            return (abs((t.median_rounds or 0) - goal.rounds), off)
        return (off, 0.0)

    return min(pool, key=order)


def _off(trial: Trial, rounds: int) -> int:
    """How far its median length is from ``rounds``."""
    return abs((trial.median_rounds or 0) - rounds)


def _note(tried: list[Trial], chosen: Trial) -> str:
    """What the GM must know of the roster chosen: that it misses the target, and why."""
    if chosen.deaths_over:
        if all(t.deaths_over for t in tried):
            return "every roster tried has more PC deaths than allowed: the least deadly"
        return "its chance of a PC dying is over the most allowed"
    if chosen.verdict == "at":
        return ""
    if chosen.verdict == "above" and any(t.deaths_over for t in tried):
        return "more enemies put a PC's death over the most allowed: the PCs win more than asked"
    if all(t.verdict == "above" for t in tried):
        return "even the most enemies tried leave the PCs over the target"
    if all(t.verdict == "below" for t in tried):
        return "even the fewest enemies leave the PCs under the target"
    return "no roster is within ±2 points of the target: the nearest one tried"


# -- by the enemies' weapons (``--arm``) ---------------------------------------------------------

MAX_WEAPONS = 12  # the catalog's weapons tried for one type, at most (its first ones)
TODAY = " (today)"  # a type's weapons left as they are, in a trial's ``weapons``
ARM_AND_VARY = (
    "--arm keeps the counts as today and --vary changes only counts: tune one, apply it, "
    "then tune the other"
)


def _present(enc: Encounter) -> dict[str, EnemyType]:
    """The fight's enemy types; none is refused: nothing to tune."""
    kinds = enemy_types(enc)
    if not kinds:
        raise TuneError("nothing to tune: the fight has no enemies")
    return kinds


def check_arm(enc: Encounter, arm: list[str], said: str = "--arm") -> list[str]:
    """The type names ``arm`` names, in the order given; an unknown one refused (``said``:
    how the GM asked for it, ``--arm``, ``--vary`` or the screen's ``arm``)."""
    kinds = _present(enc)
    out: list[str] = []
    for typed in arm:
        kind = kinds.get(key_of(typed))
        if kind is None:
            there = ", ".join(f"{k.name} ({len(k.members)})" for k in kinds.values())
            raise TuneError(f"{said}: no enemy type '{typed}': the fight has {there}")
        if kind.name not in out:
            out.append(kind.name)
    return out


def today_weapons(enc: Encounter, name: str) -> str:
    """What the type's members carry today, in the rules' words (``SMG 3d6+1 SA/BF/AF, ammo
    30/30``; ``no weapon``; ``mixed: …`` when they differ)."""
    kind = enemy_types(enc)[key_of(name)]
    said = list(dict.fromkeys(carried(enc, c) or "no weapon" for c in kind.members))
    return said[0] if len(said) == 1 else "mixed: " + " / ".join(said)


def arm_line(choice: Mapping[str, str]) -> str:
    """The ``arm`` line that gives each type (name -> catalog weapon) its weapon: ``arm boarder
    FAM-90`` for one type, ``arm boarder=PAM9 boarding_chief=FAM-90`` for several."""
    if len(choice) == 1:
        ((name, weapon),) = choice.items()
        return f"arm {key_of(name)} {quote(weapon)}"
    return " ".join(["arm", *(f"{key_of(n)}={quote(w)}" for n, w in choice.items())])


def tune_arms(
    enc: Encounter,
    goal: Target,
    seed: int,
    arm: list[str],
    *,
    campaign: Campaign | None,
    processes: int | None,
    stop: Callable[[], bool] | None,
    result: Tuning,
    plays: Mapping[str, Play] | None,
) -> Iterator[Event]:
    """Tune ``enc`` to ``goal`` by the weapons of the types ``arm`` names, the counts as today.
    Weapons are not ordered by danger as counts are: each type in turn (the others as chosen
    so far) tries today's weapons and each of the catalog's (at most ``MAX_WEAPONS``), all
    played in rounds of one batch each; one clear of the target is dropped, and the rounds end
    once one meets it at ±2 points (or none is left). The nearest is kept; the one chosen last
    is confirmed to ±2 points."""
    names = check_arm(enc, arm)
    pcs = frozenset(c.id for c in roster(enc) if c.side == PCS)
    if not pcs:
        raise TuneError("nothing to tune: the fight has no PCs")
    out = result
    out.armed = names
    # (a name with a comma cannot be armed: the rules read a weapon list at its commas)
    catalog = [w for w in weapon_names(enc.system, campaign) if "," not in w]
    for name in names:  # (a weapon of the catalog they all carry, loaded: by its name)
        same = [w for w in catalog if not _arms_some(enc, name, w, campaign)]
        out.today[name] = same[0] if same else today_weapons(enc, name)
    said: list[str] = []
    if len(catalog) > MAX_WEAPONS:
        said.append(f"the catalog has {len(catalog)} weapons: the first {MAX_WEAPONS} were tried")
    catalog = catalog[:MAX_WEAPONS]
    now = counts(enc)
    tried: dict[str, Trial] = {}  # by the line that makes it ("": today's fight)
    fights: dict[str, Encounter] = {}
    choices: dict[str, dict[str, str]] = {}  # by the line: type -> catalog weapon

    def stopped() -> bool:
        return stop is not None and stop()

    def make(choice: dict[str, str]) -> Trial:
        """The trial of ``choice`` (type -> catalog weapon; a type not in it: today's), made
        once: a weapon they all carry already, loaded, is today's."""
        choice = {n: w for n, w in choice.items() if _arms_some(enc, n, w, campaign)}
        line = arm_line(choice) if choice else ""
        if line in tried:
            return tried[line]
        played = apply(enc, line, campaign=campaign).encounter if line else enc
        shown = {n: choice.get(n) or out.today[n] + TODAY for n in names}
        new = Trial(dict(now), line, pcs, _tally(played), weapons=shown)
        tried[line], fights[line], choices[line] = new, played, choice
        return new

    chosen_so_far: dict[str, str] = {}
    chosen: Trial | None = None
    for i, name in enumerate(names):
        if chosen is not None and chosen.verdict == "at":
            left = ", ".join(names[i:])
            said.append(f"{left}: not tried, the weapons chosen before meet the target")
            break
        options = [None, *catalog]
        trials: list[Trial] = []
        for weapon in options:
            choice = {n: w for n, w in chosen_so_far.items() if n != name}
            if weapon is not None:
                choice[name] = weapon
            trial = make(choice)
            if trial not in trials:
                trials.append(trial)
        while not any(t.verdict == "at" for t in trials):
            playing = [t for t in trials if not t.verdict]
            if not playing:
                break
            for t in playing:  # (one batch each, then the next round)
                if t not in out.trials:  # (listed once its plays start)
                    out.trials.append(t)
                for done in play_trial(
                    t,
                    fights[t.line],
                    goal,
                    seed,
                    until=_one_batch(t.runs),
                    processes=processes,
                    stop=stop,
                    plays=plays,
                ):
                    yield Event(done, done=bool(done.verdict))
                if stopped():
                    return
        met = next((t for t in trials if t.verdict == "at"), None)
        for t in trials:
            if not t.verdict and met is not None:
                t.why = f"not played on: {met.weapons[name]} meets the target"
        chosen = _choose(trials, trials, goal)
        chosen_so_far = choices[chosen.line]
    assert chosen is not None  # (at least one type, one trial each)
    for t in play_trial(
        chosen,
        fights[chosen.line],
        goal,
        seed,
        until=confirmed,
        processes=processes,
        stop=stop,
        plays=plays,
    ):
        yield Event(t, done=False)
    if stopped():
        return
    settle(chosen, goal)
    out.chosen = chosen
    out.note = "; ".join([*said, *filter(None, [_arm_note(list(tried.values()), chosen)])])
    yield Event(chosen, done=True, chosen=True, note=out.note)


def _one_batch(runs: int) -> Callable[[Trial], bool]:
    """``play_trial``'s ``until`` for one batch more than ``runs`` plays (or a verdict)."""
    return lambda t: bool(t.verdict) or t.runs > runs


def _arms_some(enc: Encounter, name: str, weapon: str, campaign: Campaign | None) -> bool:
    """Whether arming type ``name`` with ``weapon`` changes the fight (not: each of them
    carries it already, loaded)."""
    line = arm_line({name: weapon})
    try:
        apply(enc, line, campaign=campaign)
    except NothingToArm:
        return False
    except CommandError as err:
        raise TuneError(f"'{line}': {err}") from None
    return True


def _arm_note(tried: list[Trial], chosen: Trial) -> str:
    """What the GM must know of the weapons chosen: that they miss the target, and why."""
    if chosen.deaths_over:
        if all(t.deaths_over for t in tried):
            return "every weapon tried has more PC deaths than allowed: the least deadly"
        return "its chance of a PC dying is over the most allowed"
    if chosen.verdict == "at":
        return ""
    if all(t.verdict == "above" for t in tried):
        return "every weapon tried leaves the PCs over the target: the nearest"
    if all(t.verdict == "below" for t in tried):
        return "every weapon tried leaves the PCs under the target: the nearest"
    return "no weapon is within ±2 points of the target: the nearest one tried"


# -- in words -------------------------------------------------------------------------------------


def roster_words(counts: dict[str, int]) -> str:
    """``Boarder 3, Boarding Chief 1``."""
    return ", ".join(f"{name} {n}" for name, n in counts.items())


def change_words(start: Encounter, chosen: Trial, today: Mapping[str, str] | None = None) -> str:
    """The chosen roster against today's: ``Boarder: 3 -> 5; Boarding Chief: 1 -> 0``; tuned
    by weapons (``today``: each armed type's weapons today), ``Boarder: SMG … -> FAM-90``."""
    if chosen.weapons and today is not None:
        moved = [
            f"{name}: {today[name]} -> {w}"
            for name, w in chosen.weapons.items()
            if not w.endswith(TODAY)
        ]
        return "; ".join(moved) or "no change: today's weapons"
    now = counts(start)
    moved = [f"{name}: {now.get(name, 0)} -> {n}" for name, n in chosen.counts.items()]
    changed = [
        m
        for m, (name, n) in zip(moved, chosen.counts.items(), strict=True)
        if now.get(name, 0) != n
    ]
    return "; ".join(changed) or "no change: today's roster"


def step_line(trial: Trial) -> str:
    """A roster tried: ``Boarder 9, Boarding Chief 3: win 65 % (54–75), 80 plays — clear
    under 80 %``."""
    said = f"{trial.label()}: win {pct(trial.wins, trial.runs)}, {trial.runs} plays"
    return f"{said} — {trial.why}" if trial.why else said


def odds_lines(trial: Trial, goal: Target) -> list[str]:
    """The chosen roster's odds: the PCs' win, a PC's death, the length."""
    n = trial.runs
    out = [f"PCs win {pct(trial.wins, n)} over {n} plays"]
    out.append(f"A PC ends dying or dead in {pct(trial.deaths, n)} of plays")
    rounds = Counter[int]()
    for by_round in trial.tally.rounds.values():
        rounds.update(by_round)
    if rounds:
        out.append(
            f"Rounds: median {percentile(rounds, 0.5)}, 90 % by {percentile(rounds, 0.9)}"
            + (f" (asked: about {goal.rounds})" if goal.rounds is not None else "")
        )
    return out


def lines(tuning: Tuning, seed: int) -> list[str]:
    """The tuning as text: the steps tried, the chosen change, its line and odds."""
    out = [f"{tuning.start.name}: tuned to {tuning.goal.words()} (seed {seed})"]
    if tuning.armed:
        out.append(f"By the weapons of {', '.join(tuning.armed)} (the counts as today)")
    out += ["", "Tried:", *(f"  {step_line(t)}" for t in tuning.trials)]
    chosen = tuning.chosen
    if chosen is None:
        return [*out, "", "Stopped before a roster was chosen"]
    out += ["", f"Chosen: {change_words(tuning.start, chosen, tuning.today)}"]
    if chosen.line:
        out.append(f"  {chosen.line}")
    out += [f"  {line}" for line in odds_lines(chosen, tuning.goal)]
    if tuning.note:
        out.append(f"Note: {tuning.note}")
    return out


def as_dict(tuning: Tuning, seed: int) -> dict[str, Any]:
    """The tuning as plain data (``--json``)."""

    def share(k: int, n: int) -> dict[str, float | int]:
        low, high = wilson(k, n)
        return {"count": k, "share": k / n if n else 0.0, "low": low, "high": high}

    def trial(t: Trial) -> dict[str, Any]:
        return {
            "counts": dict(t.counts),
            "line": t.line,
            "runs": t.runs,
            "win": share(t.wins, t.runs),
            "pc_dying_or_dead": share(t.deaths, t.runs),
            "median_rounds": t.median_rounds,
            "verdict": t.verdict,
            "why": t.why,
            **({"weapons": dict(t.weapons)} if t.weapons else {}),
        }

    now = counts(tuning.start)
    chosen = tuning.chosen
    goal = tuning.goal
    change: dict[str, Any] = {}
    if chosen is not None and tuning.armed:
        change = {
            name: {"from": tuning.today[name], "to": w}
            for name, w in chosen.weapons.items()
            if not w.endswith(TODAY)
        }
    elif chosen is not None:
        change = {
            name: {"from": now.get(name, 0), "to": n}
            for name, n in chosen.counts.items()
            if now.get(name, 0) != n
        }
    return {
        "encounter": tuning.start.name,
        "seed": seed,
        "target": {"win": goal.win, "deaths": goal.deaths, "rounds": goal.rounds},
        "today": now,
        **(
            {"armed": list(tuning.armed), "today_weapons": dict(tuning.today)}
            if tuning.armed
            else {}
        ),
        "steps": [trial(t) for t in tuning.trials],
        "chosen": None if chosen is None else {**trial(chosen), "change": change},
        "note": tuning.note,
        "plays": sum(t.runs for t in tuning.trials),
        "cpu_seconds": round(sum(t.tally.cpu for t in tuning.trials), 1),
    }
