"""The shell's side of the forecast beyond one save's figures: ``forecast`` read as a save's
fight, the campaign's ledger (``--ledger``) or a day of fights; a forecast kept in the ledger."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from facility_tui.campaign.folder import DAY_SUFFIX, reads_as_day
from facility_tui.cli import _err, _out, counting, forecast_cmd, json_text, plays_done


def dispatch(ns: argparse.Namespace) -> int:
    """``forecast``: a save's fight, the campaign's ledger (``--ledger``) or a day of fights."""
    if ns.ledger is not None:
        if not ns.ledger and ns.save is not None and ns.save.is_dir():
            ns.ledger, ns.save = str(ns.save), None  # (``forecast FOLDER --ledger``: its own)
        if ns.save is not None or ns.play or ns.runs is not None or ns.seed is not None:
            _err("--ledger reads the campaign's ledger alone: give it a folder, not a save")
            return 2
        if ns.form == "md":
            _err("--ledger prints text or --json")
            return 2
        return ledger_cmd(Path(ns.ledger) if ns.ledger else None, form=ns.form)
    if ns.save is None:
        _err("forecast takes a save, a day file, or --ledger")
        return 2
    if ns.save.name.endswith(DAY_SUFFIX) or reads_as_day(ns.save):
        if ns.play or ns.from_backup:
            _err("a day of fights plays each fight its default way: --play and --from-backup "
                 "are for one save")  # fmt: skip
            return 1
        return day_cmd(ns.save, ns.runs, ns.seed, form=ns.form)
    runs = 1000 if ns.runs is None else ns.runs
    return forecast_cmd(ns.save, runs, ns.seed, ns.play, form=ns.form, from_backup=ns.from_backup)


def day_cmd(path: Path, runs: int | None, seed: int | None, *, form: str | None) -> int:
    """docs/forecast.md, 'A day of fights': the day file's fights read (held by the tracker or
    not), played in order with the party carried between them; writes nothing."""

    from facility_tui.cli import MAX_RUNS, _opened
    from facility_tui.forecast import day as days
    from facility_tui.forecast.engine import ForecastError

    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as err:
        why = err.strerror if isinstance(err, OSError) else "not UTF-8 text"
        _err(f"{path}: cannot be read: {why or err}")
        return 2
    try:
        plan = days.read_plan(text, path.name)
    except days.DayError as err:
        _err(str(err))
        return err.code
    runs = runs if runs is not None else plan.runs if plan.runs is not None else days.RUNS
    if not 1 <= runs <= MAX_RUNS:
        _err(f"--runs must be from 1 to {MAX_RUNS}, got {runs}")
        return 1
    fights = []
    for name in plan.fights:
        save = path.parent / name
        if not save.is_file():
            _err(f"{path.name}: no fight {name} (looked for {save}); nothing was played")
            return 2
        opened = _opened(save, False)
        if opened is None:
            return 2
        fights.append(opened.session.encounter)
    seed = seed if seed is not None else plan.seed if plan.seed is not None else fights[0].seed
    try:
        day = days.day_of(plan, fights, seed, path.name)
        tally = counting(days.run(day, runs), lambda t: plays_done(t, runs)) or days.DayTally(
            len(day.fights), day.pcs
        )
    except days.DayError as err:
        _err(str(err))
        return err.code
    except ForecastError as err:
        _err(str(err))
        return 1
    if form == "json":
        print(json_text(days.as_dict(day, tally, path.name)))
    elif form == "md":
        for line in days.markdown(day, tally, path.name).rstrip("\n").split("\n"):
            _out(line)
    else:
        for line in days.lines(day, tally, path.name):
            _out(line)
    return 0


def ledger_cmd(folder: Path | None, *, form: str | None) -> int:
    """docs/forecast.md, 'The ledger': the recorded forecasts scored against their fights'
    outcomes; an entry that does not read is said in one line (stderr), the others counted."""
    from facility_tui.campaign import ledger
    from facility_tui.campaign.folder import Campaign
    from facility_tui.campaign.paths import default_saves

    campaign = Campaign(default_saves() if folder is None else folder)
    try:
        score = ledger.score(campaign)
    except ledger.LedgerError as err:
        _err(str(err))
        return 2
    for problem in score.problems:
        _err(f"{problem}; passed over")
    if form == "json":
        print(json_text(ledger.as_dict(score, campaign.ledger)))
    else:
        for line in ledger.lines(score, campaign.ledger):
            _out(line)
    return 0


def keep(save: Path, session: Any, wins: int, runs: int, seed: int, plays: Any) -> None:
    """The forecast of a fight not ended kept in its campaign's ledger (``campaign.ledger``);
    a ledger that cannot be written is said in one line, the forecast shown all the same."""
    from facility_tui.campaign import ledger
    from facility_tui.campaign.folder import Campaign

    campaign = Campaign(save.parent)
    entry = ledger.entry_of(session.encounter, session.timeline.current, runs, wins, seed, plays)
    try:
        ledger.record(campaign, ledger.fight_name(campaign, save), entry)
    except ledger.LedgerError as err:
        _err(f"the forecast ledger: {err}")


def ledger_problems(file: Path) -> list[str]:
    """``validate``'s lines for a campaign's ``ledger.toml``: as ``--ledger`` reads it."""
    from facility_tui.campaign import ledger
    from facility_tui.campaign.folder import Campaign

    try:
        found = ledger.score(Campaign(file.parent)).problems
    except ledger.LedgerError as err:
        return [str(err)]
    return [f"{file.parent / problem}" for problem in found]


def day_problems(file: Path) -> list[str]:
    """``validate``'s lines for a day file (``*.day.toml``): as ``forecast DAY`` reads it, its
    fights there."""
    from facility_tui.forecast import day as days

    try:
        plan = days.read_plan(file.read_text(encoding="utf-8"), str(file))
    except (OSError, UnicodeDecodeError) as err:
        return [f"{file}: cannot be read: {err}"]
    except days.DayError as err:
        return [str(err)]
    return [
        f"{file}: no fight {name}" for name in plan.fights if not (file.parent / name).is_file()
    ]
