from __future__ import annotations

import pytest

from facility_tui.session import Session
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
