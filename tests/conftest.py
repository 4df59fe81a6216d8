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
