"""A forecast's play logs no line (``forecast.Unlogged``, issue 26's speed): the same commands,
seed for seed, reach the same encounters as when each line is logged, apart from the log."""

from __future__ import annotations

from typing import Any

import attrs
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from facility_tui.commands import dispatch
from facility_tui.commands.dispatch import apply
from facility_tui.forecast import engine as forecast
from facility_tui.model.encounter import Encounter
from facility_tui.systems import rules_for
from facility_tui.systems.plays import parse_play

FIELDS = [f.name for f in attrs.fields(Encounter) if f.name != "log"]


def demo(system: str) -> Encounter:
    enc = Encounter("x", system)
    for line in rules_for(system).demo:
        enc = apply(enc, line).encounter
    return enc


DEMOS = {system: demo(system) for system in ("2297", "facility")}


def steps(
    monkeypatch: pytest.MonkeyPatch, start: Encounter, seed: int, plays: dict[str, Any], **how: Any
) -> tuple[list[tuple[str, list[Any]]], forecast.Outcome, int]:
    """Each line a play ran with the encounter it gave (its fields but the log), its outcome,
    and how many lines the commands logged along the way."""
    seen: list[tuple[str, list[Any]]] = []
    lines = 0

    def recording(enc: Encounter, line: str, *args: Any, **kwargs: Any) -> dispatch.Applied:
        nonlocal lines
        done = dispatch.apply(enc, line, *args, **kwargs)
        seen.append((line, [getattr(done.encounter, name) for name in FIELDS]))
        lines += max(0, len(done.encounter.log) - len(enc.log))
        return done

    with monkeypatch.context() as m:
        m.setattr(forecast, "apply", recording)
        outcome, _ = forecast.play(start, plays, seed, **how)
    return seen, outcome, lines


@settings(max_examples=12, deadline=None)
@given(
    system=st.sampled_from(sorted(DEMOS)),
    seed=st.integers(0, 2**62),
    words=st.sampled_from(["", "focus", "spread", "flee at moderate", "flee at hurt"]),
)
def test_an_unlogged_play_runs_as_a_logged_one(system: str, seed: int, words: str) -> None:
    start = DEMOS[system]
    plays = {}
    play = parse_play(words) if words else None
    if play is not None and not rules_for(system).tactics.check_play(play):
        plays[forecast.roster(start)[0].id] = play
    with pytest.MonkeyPatch.context() as mp:
        quiet, quiet_outcome, quiet_lines = steps(mp, start, seed, plays)
        loud, loud_outcome, loud_lines = steps(mp, start, seed, plays, logged=True)
    assert quiet == loud  # the same lines, each giving the same encounter
    assert quiet_outcome == loud_outcome
    assert loud_lines > quiet_lines  # (and the shortcut did log less)


def test_a_play_logs_nothing_the_table_would_not_see() -> None:
    """The unlogged encounter is an encounter (the rules take it as one), and the figures of a
    forecast are those of plays logged as the table's."""
    start = DEMOS["2297"]
    outcome, end = forecast.play(start, {}, 7)
    assert isinstance(end, forecast.Unlogged) and isinstance(end, Encounter)
    assert outcome == forecast.play(start, {}, 7, logged=True)[0]
    assert forecast.play_once(start, {}, 7) == outcome
