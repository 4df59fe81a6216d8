"""The shell's side of the forecast beyond one save's figures: ``forecast`` read as a save's
fight, the campaign's ledger (``--ledger``) or a day of fights; a forecast kept in the ledger."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from facility_tui.cli import _err, _out, forecast_cmd, json_text


def dispatch(ns: argparse.Namespace) -> int:
    """``forecast``: a save's fight, the campaign's ledger (``--ledger``) or a day of fights."""
    if ns.ledger is not None:
        if ns.save is not None or ns.play or ns.runs is not None or ns.seed is not None:
            _err("--ledger reads the campaign's ledger alone: give it a folder, not a save")
            return 2
        if ns.form == "md":
            _err("--ledger prints text or --json")
            return 2
        return ledger_cmd(ns.ledger or None, form=ns.form)
    if ns.save is None:
        _err("forecast takes a save, a day file, or --ledger")
        return 2
    runs = 1000 if ns.runs is None else ns.runs
    return forecast_cmd(ns.save, runs, ns.seed, ns.play, form=ns.form, from_backup=ns.from_backup)


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
