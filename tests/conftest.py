"""What every tier shares: sessions and fights built from lines, and the tier's marker.

The tests live in three tiers, one folder each: ``unit`` (the pure core), ``app`` (the app driven
by Pilot, headless) and ``system`` (processes of their own: the CLI, kill -9, locks, the forecast's
workers, a browser). Each test is marked with its folder's tier (``pytest -m unit``); a test that
starts a process of its own in another tier is marked ``system`` as well.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import pytest

from facility_tui.commands.session import Session
from facility_tui.store import blank


@pytest.fixture
def session() -> Session:
    """An empty session with seeded dice."""
    from attrs import evolve

    return Session(evolve(blank(), seed=42))


def run(session: Session, *lines: str) -> Session:
    for line in lines:
        session.execute(line)
    return session


def saved_fight(path: Path, *lines: str) -> Path:
    """The fight ``lines`` make from a blank session, saved at ``path``."""
    from facility_tui import store

    store.save(run(Session(store.blank()), *lines), path)
    return path


def refused_alike(session: Session, line: str, said: str) -> None:
    """``line`` refused in one line that says ``said``, and the fight as it was."""
    from facility_tui.commands.grammar import CommandError

    before = session.encounter
    with pytest.raises(CommandError) as err:
        session.execute(line)
    assert said in str(err.value)
    assert "\n" not in str(err.value)
    assert session.encounter == before


def fought(rounds: int = 2) -> Session:
    """A small seeded 2297 fight played into round ``rounds + 1``, a roll and a turn at a time."""
    from facility_tui import store

    s = store.fresh_session()
    s.apply("new 2297 Test seed=3")
    for line in ["add Alpha side=pc init=12", "add Beta init=5", "start"]:
        s.apply(line)
    while s.encounter.round <= rounds:
        s.apply("roll 2d6")
        s.apply("next")
    return s


def within(seconds: float, work: Callable[[], Any]) -> Any:
    """``work()``, or a failure (rather than a frozen suite) if it has not ended in time."""
    out: list[Any] = []
    errors: list[BaseException] = []

    def run_it() -> None:
        try:
            out.append(work())
        except BaseException as err:
            errors.append(err)

    t = threading.Thread(target=run_it, daemon=True)
    t.start()
    t.join(seconds)
    assert not t.is_alive(), f"still running after {seconds} s"
    if errors:
        raise errors[0]
    return out[0]


def show_json(path: Path, capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    """What ``facility-tui show PATH --json`` prints, read back."""
    from facility_tui.cli import main

    capsys.readouterr()
    assert main(["show", str(path), "--json"]) == 0
    data: dict[str, Any] = json.loads(capsys.readouterr().out)
    return data


def by_id(data: dict[str, Any], cid: str) -> dict[str, Any]:
    return next(c for c in data["combatants"] if c["id"] == cid)


S = TypeVar("S")


def sheet_as(kind: type[S], session: Session, cid: str) -> S:
    """A combatant's sheet, checked to be of the rule system's sheet class."""
    sh = session.encounter.get(cid).sheet
    assert isinstance(sh, kind)
    return sh


def derived(session: Session, cid: str) -> dict[str, object]:
    """The rule-derived figures of a combatant (``show --json``'s ``derived``)."""
    from facility_tui.systems import rules_for

    enc = session.encounter
    return rules_for(enc.system).view.summary(enc, enc.get(cid))


TIERS = ("unit", "app", "system")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Each test takes the marker of the tier folder it is in."""
    for item in items:
        tier = item.path.parent.name
        if tier in TIERS:
            item.add_marker(getattr(pytest.mark, tier))
