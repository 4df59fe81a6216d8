"""``facility-tui tune SAVE --win 80``: the fight's enemies tuned to a target (docs/forecast.md,
'Tuning a fight'), from the command line; the search is ``forecast.tune``'s. Reads the save as
``forecast`` does; ``--apply`` holds the save's lock from the start and writes the chosen
``muster`` line through ``apply``'s route."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from facility_tui.cli import _apply_locked, _err, _out, _read_save, counting, json_text, locked


def arguments(sub: Any) -> argparse.ArgumentParser:
    """``tune``'s parser, among the CLI's sub-commands (``sub``)."""
    tu: argparse.ArgumentParser = sub.add_parser(
        "tune",
        help="how many of each enemy type make the PCs' chance to win the one asked for",
    )
    tu.add_argument("save", type=Path)
    tu.add_argument(
        "--win", required=True, metavar="PCT", help="the PCs' chance to win, in %% (1 to 99)"
    )
    tu.add_argument(
        "--deaths", metavar="PCT", help="the most the chance of any PC ending dying or dead may be"
    )
    tu.add_argument("--rounds", metavar="N", help="prefer a median length near N rounds")
    tu.add_argument(
        "--vary",
        action="append",
        default=[],
        metavar="TYPE",
        help="change only this enemy type (repeat for others; default: every type present)",
    )
    tu.add_argument(
        "--arm",
        action="append",
        default=[],
        metavar="TYPE",
        help="change this enemy type's weapon instead, among the catalog's (repeat for others; "
        "the counts stay as today)",
    )
    tu.add_argument("--seed", type=int, help="seed of the plays (default: the save's own)")
    tu.add_argument(
        "--apply",
        action="store_true",
        help="apply the chosen roster to the save as one step (a muster line; undoable)",
    )
    tu.add_argument("--json", action="store_true", help="as JSON")
    return tu


def dispatch(ns: argparse.Namespace) -> int:
    return tune_cmd(
        ns.save,
        ns.win,
        deaths=ns.deaths,
        rounds=ns.rounds,
        vary=ns.vary,
        arm=ns.arm,
        seed=ns.seed,
        apply=ns.apply,
        as_json=ns.json,
        from_backup=ns.from_backup,
    )


def tune_cmd(
    save: Path,
    win: str,
    *,
    deaths: str | None,
    rounds: str | None,
    vary: Sequence[str],
    seed: int | None,
    apply: bool,
    as_json: bool,
    from_backup: bool = False,
    arm: Sequence[str] = (),
) -> int:
    """docs/forecast.md, 'Tuning a fight': reads the save (held by the tracker or not) and
    writes nothing, unless ``apply``: then the save is locked first (held by another window, it
    is refused at once), and the chosen ``muster`` line goes through ``apply``'s route."""
    from facility_tui.forecast import tune

    try:
        goal = tune.target(win, deaths, rounds)
    except tune.TuneError as err:
        _err(str(err))
        return 1
    if arm and vary:
        _err(tune.ARM_AND_VARY)
        return 1
    if not apply:
        return _tune(save, goal, vary, arm, seed, None, as_json, from_backup)
    lock = locked(save, "facility-tui tune --apply")
    if isinstance(lock, int):
        return lock
    with lock:
        if not save.exists():  # (locking made no save: there is none to tune)
            _err(f"{save}: no such save")
            return 2
        return _tune(save, goal, vary, arm, seed, lock, as_json, from_backup)


def _tune(
    save: Path,
    goal: Any,
    vary: Sequence[str],
    arm: Sequence[str],
    seed: int | None,
    lock: Any,
    as_json: bool,
    from_backup: bool,
) -> int:
    """``tune_cmd`` once its target reads (and, with ``lock``, the save is held for --apply)."""
    from facility_tui.campaign.folder import Campaign
    from facility_tui.forecast import tune
    from facility_tui.forecast.engine import ForecastError

    session = _read_save(save, from_backup)
    if session is None:
        return 2
    enc = session.encounter
    seed = enc.seed if seed is None else seed
    result = tune.Tuning(enc, goal)
    events = tune.tune(
        enc,
        goal,
        seed,
        vary=list(vary),
        arm=list(arm),
        campaign=Campaign(save.parent),
        result=result,
    )
    try:
        counting(events, lambda e: f"{e.trial.label()}: {e.trial.runs} plays")
    except ForecastError as err:
        _err(str(err))
        return 1
    chosen = result.chosen
    line = chosen.line if chosen is not None else ""
    if as_json:
        print(json_text({**tune.as_dict(result, seed), "applied": lock is not None and bool(line)}))
    else:
        for text in tune.lines(result, seed):
            _out(text)
    if lock is None or not line:
        return 0
    if not as_json:
        _out("")
    # (the lock was held since the save was read: the fight is the one tuned)
    return _apply_locked(save, [line], seed=None, quiet=as_json, from_backup=from_backup)
