"""C1: the round state machine."""

from __future__ import annotations

from pathlib import Path

import pytest

from facility_tui.commands.grammar import CommandError
from facility_tui.commands.rounds import Ahead, ahead, ahead_text, passed
from facility_tui.commands.session import Session
from facility_tui.model.encounter import Phase
from facility_tui.systems import rules_for
from tests.conftest import run


def fight(session: Session) -> Session:
    return run(
        session,
        "new 2297 T seed=1",
        "add A side=pc init=20",
        "add B init=15",
        "add C init=10",
    )


def test_C1_start_begins_round_one_with_the_first_in_order(session: Session) -> None:
    enc = run(fight(session), "start").encounter
    assert (enc.phase, enc.round, enc.turn) == (Phase.ACTIVE, 1, 0)
    assert enc.current == enc.order[0]
    assert enc.upcoming == enc.order[1]


def test_C1_next_wraps_into_a_new_round(session: Session) -> None:
    enc = run(fight(session), "start", "next", "next").encounter
    assert (enc.round, enc.turn) == (1, 2)
    assert enc.upcoming == enc.order[0]  # the next round's first
    enc = run(session, "next").encounter
    assert (enc.round, enc.turn) == (2, 0)


def test_C1_prev_moves_back_across_a_round(session: Session) -> None:
    enc = run(fight(session), "start", "next", "next", "next", "prev").encounter
    assert (enc.round, enc.turn) == (1, 2)


def test_C1_prev_refuses_before_the_first_turn(session: Session) -> None:
    run(fight(session), "start")
    with pytest.raises(CommandError):
        session.execute("prev")


def test_C1_removing_the_acting_combatant_passes_the_turn(session: Session) -> None:
    enc = run(fight(session), "start", "next").encounter
    acting = enc.current
    enc = run(session, f"remove {acting}").encounter
    assert enc.current is not None and enc.current != acting
    assert acting not in enc.order


def test_C1_removing_an_earlier_combatant_keeps_the_turn(session: Session) -> None:
    enc = run(fight(session), "start", "next", "next").encounter
    acting = enc.current
    enc = run(session, f"remove {enc.order[0]}").encounter
    assert enc.current == acting


def test_C1_added_mid_round_joins_next_round(session: Session) -> None:
    enc = run(fight(session), "start", "add D init=30").encounter
    assert "d" not in enc.order
    enc = run(session, "next", "next", "next").encounter
    assert enc.order[0] == "d"


def test_C1_end_and_resume(session: Session) -> None:
    run(fight(session), "start", "next", "end")
    assert session.encounter.phase is Phase.ENDED
    with pytest.raises(CommandError):
        session.execute("next")
    enc = run(session, "resume").encounter
    assert (enc.phase, enc.round, enc.turn) == (Phase.ACTIVE, 1, 1)


def test_C1_start_needs_combatants(session: Session) -> None:
    run(session, "new 2297 T seed=1")
    with pytest.raises(CommandError, match="add combatants"):
        session.execute("start")


@pytest.mark.parametrize("system", ["2297", "facility"])
def test_C1_next_in_setup_starts_combat_as_the_n_key_does(system: str) -> None:
    """Issue 11: in setup the ``n`` key starts combat; the ``next`` command does the same."""
    from attrs import evolve

    from facility_tui.store import blank

    def setup() -> Session:
        s = Session(evolve(blank(), seed=42))
        init = "init=2d6" if system == "2297" else ""  # (Facility: side initiative, F7)
        return run(s, f"new {system} T seed=5", f"add A side=pc {init}", f"add B {init}")

    by_next = run(setup(), "next").encounter
    by_start = run(setup(), "start").encounter
    assert by_next.phase is Phase.ACTIVE and by_next.round == 1
    assert by_next == by_start  # the very same fight, dice and log included


def test_C1_next_in_setup_needs_combatants_like_start(session: Session) -> None:
    run(session, "new 2297 T seed=1")
    before = session.encounter
    with pytest.raises(CommandError, match="add combatants"):
        session.execute("next")
    assert session.encounter == before


def test_C1_next_in_setup_from_the_command_line(tmp_path: Path) -> None:
    """``facility-tui apply ... next`` in setup starts combat (it was refused before)."""
    import contextlib
    import io

    from facility_tui import cli, store

    path = tmp_path / "f.toml"
    with contextlib.redirect_stdout(io.StringIO()):
        code = cli.main(["apply", str(path), "--seed", "3", "new 2297 T", "add A init=9", "next"])
    assert code == 0
    enc = store.load(path).encounter
    assert (enc.phase, enc.round, enc.current) == (Phase.ACTIVE, 1, "a")


def test_C1_facility_sides_alternate(session: Session) -> None:
    run(session, "new facility F seed=1", "add Ann side=pc", "add Goon")
    enc = run(session, "start").encounter
    slots = [enc.current]
    for _ in range(3):
        slots.append(run(session, "next").encounter.current)
    assert slots[0] != slots[1]
    assert slots[0] == slots[2] and slots[1] == slots[3]
    assert session.encounter.round == 2


def test_C2_turns_that_cannot_be_played_pass_but_never_loop(session: Session) -> None:
    run(fight(session), "start", "set b dead yes", "set c dead yes", "set a dead yes")
    enc = run(session, "next").encounter  # nobody can act: the marker stops after one round's worth
    assert enc.phase is Phase.ACTIVE
    passes = [e.text for e in enc.log if e.text.endswith(": turn passes (dead)")]
    assert 1 <= len(passes) <= 3  # at most one round's worth of the three combatants


# -- what n will do, said before and after (C1, C2) -----------------------------------------------


def boarders(session: Session) -> Session:
    """Round 1 at Rook's turn; after it three boarders who cannot act, then Kowalski."""
    return run(
        session,
        "new 2297 Deck seed=1",
        "add Rook side=pc init=20",
        "add 'Pirate 1' init=15",
        "add 'Pirate 2' init=14",
        "add 'Pirate 3' init=13",
        "add Kowalski side=pc init=10",
        "start",
        "hit pirate-1 45",  # dying
        "set pirate-2 dead yes",
        "cond pirate-3 unconscious",
    )


def test_C1_ahead_names_whose_turn_next_starts_and_whom_it_passes(session: Session) -> None:
    enc = boarders(session).encounter
    rules = rules_for(enc.system)
    found = ahead(enc, rules)
    assert found is not None
    assert found.passes == ("pirate-1", "pirate-2", "pirate-3") and found.slot == "kowalski"
    assert ahead_text(enc, rules) == "Kowalski (Pirate 1, Pirate 2, Pirate 3 pass first)"
    assert ahead_text(enc, rules, room=20) == "Kowalski (3 pass first)"
    before = len(enc.log)
    after = run(session, "next").encounter
    assert after.current == found.slot  # what was said is what n did
    assert passed(after.log[before:]) == [
        "Pirate 1 (dying)",
        "Pirate 2 (dead)",
        "Pirate 3 (unconscious)",
    ]


def test_C1_ahead_says_a_new_round_when_the_round_ends_first(session: Session) -> None:
    enc = run(boarders(session), "next").encounter  # Kowalski: the last to act this round
    rules = rules_for(enc.system)
    assert ahead(enc, rules) == Ahead((), None)
    assert ahead_text(enc, rules) == "round 2"
    assert ahead(run(session, "end").encounter, rules) is None  # no turn is played


def test_C1_next_previews_what_it_will_do(session: Session) -> None:
    boarders(session)
    assert session.preview("next") == [
        "ends Rook's turn; next: Kowalski (Pirate 1, Pirate 2, Pirate 3 pass first)"
    ]
