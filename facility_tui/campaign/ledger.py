"""The forecast ledger (``ledger.toml`` in the campaign folder, docs/forecast.md): every forecast
of a fight that has not ended, kept with the fight's outcome once it ends, so that
``forecast --ledger`` can say how well the forecasts did (a Brier score, a reliability table).

The file is plain TOML a GM may write by hand: one ``[[fight]]`` table per save (its file name
in the campaign, its ``outcome`` once it ended), and under it one ``[[fight.forecast]]`` table
per forecast (the step it was made at, the PCs' chance to win and its interval...). The forecast
package writes nothing: the shell hands each forecast here, and the fight's end (``ended``).
A hand-written entry that does not read is named in one line and passed over; the others count.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import math
import os
import threading
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from attrs import frozen

from facility_tui.campaign.folder import Campaign, line_of
from facility_tui.model.codec import got
from facility_tui.model.encounter import PCS, Encounter, Phase
from facility_tui.model.text import printable

HEADER = (
    "# The forecast ledger (facility-tui, docs/forecast.md): each fight's forecasts, and how the\n"
    "# fight ended. One [[fight]] table per save, its forecasts as [[fight.forecast]] tables.\n"
)
OUTCOMES = {"won": "the PCs won", "lost": "the PCs lost", "none": "no winner"}
FORECAST_KEYS = ("when", "round", "step", "runs", "seed", "plays", "win", "low", "high")
FIGHT_KEYS = ("save", "outcome", "ended", "forecast")


class LedgerError(ValueError):
    """The ledger cannot be read or written: one line, with what to do."""


@frozen
class Entry:
    """One forecast of a fight: when, from where (round, step of its timeline), how (plays,
    seed, the GM's changed plays) and the PCs' chance to win with its Wilson 95 % interval."""

    when: str
    round: int
    step: int
    runs: int
    seed: int
    plays: tuple[str, ...]
    win: float
    low: float
    high: float

    def data(self) -> dict[str, Any]:
        return {
            "when": self.when,
            "round": self.round,
            "step": self.step,
            "runs": self.runs,
            "seed": self.seed,
            "plays": list(self.plays),
            "win": self.win,
            "low": self.low,
            "high": self.high,
        }


def now() -> str:
    """The time an entry is written, in UTC to the second (``2026-12-05T03:10:00Z``)."""
    return dt.datetime.now(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def fight_name(campaign: Campaign, save: Path) -> str:
    """The name a fight goes by in the ledger: its save's path within the campaign folder."""
    try:
        return save.resolve().relative_to(campaign.folder.resolve()).as_posix()
    except (ValueError, OSError):
        return save.name


def outcome_of(enc: Encounter) -> str:
    """How an ended fight went for the PCs, by the forecast's own reading of who is left
    standing (``engine.winner``): ``won``, ``lost`` or ``none`` (no side left alone)."""
    from facility_tui.forecast import engine
    from facility_tui.systems import rules_for

    rules = rules_for(enc.system)
    followed = engine.roster(enc)
    fates = [rules.tactics.fallen(enc, c) or "" for c in followed]
    side = engine.winner(enc, [c.id for c in followed], fates)
    if side == PCS:
        return "won"
    return "lost" if side else "none"


# -- reading and writing the file ----------------------------------------------------------


def _load(path: Path, then: str = "") -> tuple[str, dict[str, Any]]:
    """The ledger's text and its TOML; empty when there is none. ``LedgerError`` if it cannot
    be read or is not TOML (``then``: what it means for the change asked, said after it)."""
    import tomllib

    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return "", {}
    except (OSError, UnicodeDecodeError) as err:
        why = err.strerror if isinstance(err, OSError) else "not UTF-8 text"
        raise LedgerError(f"{path}: cannot be read: {why or err}{then}") from None
    try:
        return text, tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        raise LedgerError(f"{path}: not TOML: {printable(str(err))}{then}") from None


# One change of the ledger at a time in a process: the app keeps a forecast from the plays'
# thread while the GM's end may write the outcome (each reads the file, changes it, writes it)
_CHANGING = threading.Lock()


@contextlib.contextmanager
def _changing(campaign: Campaign) -> Iterator[None]:
    """One change of the ledger at a time: in this process, and between processes (the app and
    a CLI forecast) by a lock on the campaign's folder itself (no file of its own; the kernel
    drops it with its process). Where there is none to take (no ``flock``, no folder yet), the
    process's own lock alone."""
    with _CHANGING:
        fd = -1
        with contextlib.suppress(ImportError, OSError):
            import fcntl

            fd = os.open(campaign.folder, os.O_RDONLY)
            fcntl.flock(fd, fcntl.LOCK_EX)
        try:
            yield
        finally:
            if fd >= 0:
                os.close(fd)  # (which lets the lock go)


# (said when the ledger cannot be read to add to it: nothing is written over it)
NOT_KEPT = "; not kept: fix the file by hand or move it aside (a new one is started)"


def _plain(value: Any) -> Any:
    """A value read from the file as the writer takes it (a hand-written TOML date as text)."""
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if isinstance(value, dt.datetime | dt.date | dt.time):
        return value.isoformat()
    return value


def render(doc: Mapping[str, Any]) -> str:
    """The ledger's text: the header, then each ``[[fight]]`` with its forecasts (a hand
    edit's other keys kept, its comments not)."""
    from facility_tui.store.format import table_lines, toml_key, toml_value

    out = [HEADER]
    rest = {k: v for k, v in _plain(dict(doc)).items() if k != "fight"}
    out += [f"{toml_key(k)} = {toml_value(v)}\n" for k, v in rest.items()]
    fights = doc.get("fight", [])
    for table in fights if isinstance(fights, list) else [fights]:
        if isinstance(table, dict):
            out.append("\n".join(["", *table_lines("[[fight]]", "fight", _plain(table)), ""]))
    return "".join(out)


def _write(campaign: Campaign, doc: Mapping[str, Any], what: str) -> None:
    from facility_tui.store.atomic import write_atomic, write_error

    try:
        write_atomic(campaign.ledger, render(doc))
    except OSError as err:
        said = write_error(campaign.ledger, err, f"{what} is not kept")
        raise LedgerError(f"{said}: make the campaign folder writable to keep the next") from None


def _fight(doc: dict[str, Any], name: str, create: bool) -> dict[str, Any] | None:
    fights = doc.setdefault("fight", []) if create else doc.get("fight", [])
    if not isinstance(fights, list):
        raise LedgerError("ledger.toml: fight: must be [[fight]] tables; fix it by hand")
    for table in fights:
        if isinstance(table, dict) and table.get("save") == name:
            return table
    if not create:
        return None
    table = {"save": name, "forecast": []}
    fights.append(table)
    return table


def record(campaign: Campaign, name: str, entry: Entry) -> None:
    """Keep a forecast of fight ``name``: it replaces the one made at the same step (a forecast
    asked again of the same fight as it stands counts once); an outcome written before is
    taken away (the fight goes on: its next end is written). ``LedgerError`` in one line if
    the ledger cannot be read or written (then nothing changed)."""
    with _changing(campaign):
        _record(campaign, name, entry)


def _record(campaign: Campaign, name: str, entry: Entry) -> None:
    _, doc = _load(campaign.ledger, NOT_KEPT)
    table = _fight(doc, name, create=True)
    assert table is not None
    # (a fight forecast is not over: resumed, or an end undone; its next end is its outcome)
    table.pop("outcome", None)
    table.pop("ended", None)
    kept = table.setdefault("forecast", [])
    if not isinstance(kept, list):
        raise LedgerError(f"{campaign.ledger}: fight {name!r}: forecast must be tables")
    same = [i for i, e in enumerate(kept) if isinstance(e, dict) and e.get("step") == entry.step]
    if same:
        kept[same[0]] = entry.data()
        for i in reversed(same[1:]):
            del kept[i]
    else:
        kept.append(entry.data())
    _write(campaign, doc, "this forecast")


def ended(campaign: Campaign, name: str, enc: Encounter, when: str | None = None) -> bool:
    """Write how fight ``name`` ended beside its forecasts (the last end wins: a fight resumed
    and ended otherwise replaces it). Nothing is written for a fight never forecast, or one
    not ended; whether it wrote. ``LedgerError`` if the ledger cannot be read or written."""
    if enc.phase is not Phase.ENDED or not campaign.ledger.exists():
        return False
    with _changing(campaign):
        return _ended(campaign, name, enc, when)


def _ended(campaign: Campaign, name: str, enc: Encounter, when: str | None) -> bool:
    _, doc = _load(campaign.ledger, NOT_KEPT)
    table = _fight(doc, name, create=False)
    if table is None:
        return False
    outcome, when = outcome_of(enc), when or now()
    if table.get("outcome") == outcome and "ended" in table:
        return False  # (the same end again, an undo and redo of it: the first time it came)
    table["outcome"], table["ended"] = outcome, when
    _write(campaign, doc, "the fight's outcome")
    return True


def end_note(campaign: Campaign | None, save: Path, before: Encounter, after: Encounter) -> str:
    """After a change of fight ``save`` from ``before`` to ``after``: its end written to the
    ledger when the change ended it; the one line to say when that could not be done ("")."""
    if campaign is None or after.phase is not Phase.ENDED or before.phase is Phase.ENDED:
        return ""
    try:
        ended(campaign, fight_name(campaign, save), after)
    except LedgerError as err:
        return f"The forecast ledger: {err}"
    return ""


# -- the score -------------------------------------------------------------------------------


@frozen
class Scored:
    """A forecast with the outcome of its fight: ``p`` the PCs' chance, ``won`` whether they
    did."""

    fight: str
    p: float
    won: bool


@frozen
class Score:
    scored: tuple[Scored, ...]
    waiting: int  # forecasts of fights not ended yet
    problems: tuple[str, ...]  # one line per entry that does not read

    @property
    def brier(self) -> float | None:
        """The mean of (p - o)², o 1 where the PCs won, else 0 (lost, or no winner)."""
        if not self.scored:
            return None
        return sum((s.p - (1.0 if s.won else 0.0)) ** 2 for s in self.scored) / len(self.scored)

    @property
    def base_rate(self) -> float | None:
        """The share of the scored forecasts whose fight the PCs won."""
        if not self.scored:
            return None
        return sum(s.won for s in self.scored) / len(self.scored)

    def bins(self) -> list[tuple[int, int, int]]:
        """The reliability table: (the bin's lowest percent, forecasts in it, won), by 10-point
        bins of the forecast chance (100 % falls in 90–100), the empty ones left out."""
        counts: dict[int, list[int]] = {}
        for s in self.scored:
            low = min(90, 10 * math.floor(round(100 * s.p, 6) / 10))
            n = counts.setdefault(low, [0, 0])
            n[0] += 1
            n[1] += s.won
        return [(low, n, won) for low, (n, won) in sorted(counts.items())]


def _share(value: Any) -> str | None:
    if type(value) not in (int, float) or not 0 <= value <= 1:
        return f"must be a share from 0 to 1, got {got(value)}"
    return None


def _entry_problem(e: Any) -> tuple[str, str] | None:
    """What is wrong with a forecast table read from the file: (its key, why), or None."""
    if not isinstance(e, dict):
        return "", f"must be a [[fight.forecast]] table, got {got(e)}"
    for key in e:
        if key not in FORECAST_KEYS:
            return key, f"unknown key (a forecast has {', '.join(FORECAST_KEYS)})"
    if "win" not in e:
        return "win", "missing: the PCs' chance to win, a share from 0 to 1"
    for key in ("win", "low", "high"):
        if key in e and (why := _share(e[key])) is not None:
            return key, why
    for key in ("round", "step", "runs", "seed"):
        if key in e and (type(e[key]) is not int or e[key] < 0):
            return key, f"must be a whole number, got {got(e[key])}"
    if "runs" in e and e["runs"] < 1:
        return "runs", f"must be at least 1, got {e['runs']}"
    if "plays" in e and not (
        isinstance(e["plays"], list) and all(isinstance(p, str) for p in e["plays"])
    ):
        return "plays", f"must be a list of texts, got {got(e['plays'])}"
    if "when" in e and not isinstance(e["when"], str | dt.datetime | dt.date):
        return "when", f"must be a date and time, got {got(e['when'])}"
    return None


def score(campaign: Campaign) -> Score:
    """The ledger's forecasts scored against their fights' outcomes; ``LedgerError`` if the
    file cannot be read or is not TOML (an entry that does not read is a problem line)."""
    path = campaign.ledger
    if not path.exists():
        raise LedgerError(f"{path}: no forecast ledger here yet (a forecast of a fight starts it)")
    text, doc = _load(path)
    problems: list[str] = []

    def problem(where: tuple[str | int, ...], why: str) -> None:
        said = ".".join(f"[{p}]" if isinstance(p, int) else str(p) for p in where)
        problems.append(f"{path.name}:{line_of(text, where)}: {said.replace('.[', '[')}: {why}")

    for key in doc:
        if key != "fight":
            problem((key,), "unknown key: each fight is a [[fight]] table")
    fights = doc.get("fight", [])
    if not isinstance(fights, list):
        problem(("fight",), "must be [[fight]] tables")
        fights = []
    scored: list[Scored] = []
    waiting = 0
    for i, table in enumerate(fights):
        at: tuple[str | int, ...] = ("fight", i)
        if not isinstance(table, dict):
            problem(at, f"must be a [[fight]] table, got {got(table)}")
            continue
        bad = next((k for k in table if k not in FIGHT_KEYS), None)
        name = table.get("save")
        outcome = table.get("outcome")
        entries = table.get("forecast", [])
        if bad is not None:
            problem((*at, bad), f"unknown key (a fight has {', '.join(FIGHT_KEYS)})")
            continue
        if not isinstance(name, str) or not name:
            problem((*at, "save"), f"must be the save's file name, got {got(name)}")
            continue
        if outcome is not None and outcome not in OUTCOMES:
            problem((*at, "outcome"), f"must be {', '.join(OUTCOMES)}, got {got(outcome)}")
            continue
        if not isinstance(entries, list):
            problem((*at, "forecast"), "must be [[fight.forecast]] tables")
            continue
        for j, e in enumerate(entries):
            found = _entry_problem(e)
            if found is not None:
                key, why = found
                problem((*at, "forecast", j, *((key,) if key else ())), why)
            elif outcome is None:
                waiting += 1
            else:
                scored.append(Scored(name, float(e["win"]), outcome == "won"))
    return Score(tuple(scored), waiting, tuple(problems))


def percent(x: float) -> str:
    return f"{round(100 * x)} %"


def lines(score: Score, path: Path) -> list[str]:
    """The score in words (``forecast --ledger``); the problems are said apart, one a line."""
    n = len(score.scored)
    fights = len({s.fight for s in score.scored})
    out = [f"Forecast ledger: {path}"]
    waits = f"; {score.waiting} more wait for their fight's end" if score.waiting else ""
    out.append(f"{n} scored forecast{'s' if n != 1 else ''} of {fights} ended fight"
               f"{'s' if fights != 1 else ''}{waits}")  # fmt: skip
    if not n:
        out.append("Nothing to score yet: a fight's outcome is written when it ends")
        return out
    brier, base = score.brier, score.base_rate
    assert brier is not None and base is not None
    won = sum(s.won for s in score.scored)
    out.append(
        f"Brier score {brier:.4f} (0 is perfect; always forecasting the base rate scores "
        f"{base * (1 - base):.4f})"
    )
    out.append(f"Base rate: the PCs won {won} of {n} ({percent(base)})")
    out.append("")
    out.append("Reliability (the PCs' chance as forecast, and how often they won):")
    for low, count, wins in score.bins():
        out.append(
            f"  forecast {low}-{low + 10} %: won {wins} of {count} ({percent(wins / count)})"
        )
    return out


def as_dict(score: Score, path: Path) -> dict[str, Any]:
    return {
        "ledger": str(path),
        "scored": len(score.scored),
        "fights": len({s.fight for s in score.scored}),
        "waiting": score.waiting,
        "brier": score.brier,
        "base_rate": score.base_rate,
        "reliability": [
            {"low": low / 100, "high": (low + 10) / 100, "forecasts": n, "won": won}
            for low, n, won in score.bins()
        ],
        "problems": list(score.problems),
    }


def entry_of(
    enc: Encounter, step: int, runs: int, wins: int, seed: int, plays: Mapping[str, Any]
) -> Entry:
    """The entry of a forecast of ``enc`` at ``step``: ``wins`` of ``runs`` plays won by the
    PCs, its Wilson interval as the forecast shows it; ``plays`` the GM's changed plays by
    combatant id (``NAME=PLAY`` in the entry)."""
    from facility_tui.forecast.engine import wilson

    names = {c.id: c.name for c in enc.combatants}
    changed = tuple(f"{names.get(cid, cid)}={play.text()}" for cid, play in plays.items())
    low, high = wilson(wins, runs)
    return Entry(now(), enc.round, step, runs, seed, changed, wins / runs, low, high)
