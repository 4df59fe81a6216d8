"""Handles: the number a combatant is given when added (the list's ``#`` column), which stays its
own as the order changes and is never given again in that encounter; ``#N`` and ``N`` name it.
Saves from before handles keep ``#N`` as a place in the list, so their history replays alike."""

from __future__ import annotations

from pathlib import Path

import pytest
from attrs import evolve

from facility_tui import store
from facility_tui.commands.dispatch import listed
from facility_tui.commands.grammar import CommandError
from facility_tui.commands.session import Session
from facility_tui.commands.spec import resolve
from facility_tui.model.encounter import Encounter
from tests.conftest import run
from tests.paths import SAVES


def handles(enc: Encounter) -> dict[str, int]:
    return {c.name: c.handle for c in enc.combatants}


def test_handles_are_given_in_the_order_added_and_kept_as_the_order_changes(
    session: Session,
) -> None:
    run(session, "new 2297 T seed=1", "add Slow init=3", "add Fast init=20", "add Mid init=9")
    enc = session.encounter
    assert handles(enc) == {"Slow": 1, "Fast": 2, "Mid": 3}
    assert [c.name for c in listed(enc)] == ["Fast", "Mid", "Slow"]
    assert resolve(enc, "#1", listed).name == "Slow"  # the handle, not the first in the list
    assert resolve(enc, "1", listed).name == "Slow"
    run(session, "start", "init slow 30", "next", "next", "next")  # round 2: Slow goes first
    enc = session.encounter
    assert listed(enc)[0].name == "Slow"
    assert handles(enc) == {"Slow": 1, "Fast": 2, "Mid": 3}
    assert resolve(enc, "#2", listed).name == "Fast"


def test_a_removed_handle_is_never_given_again(session: Session) -> None:
    run(session, "new 2297 T seed=1", "add Boarder count=3", "remove #3", "add Late")
    enc = session.encounter
    assert handles(enc) == {"Boarder 1": 1, "Boarder 2": 2, "Late": 4}
    with pytest.raises(CommandError, match="no combatant #3"):
        resolve(enc, "#3", listed)
    session.undo()
    session.undo()
    assert handles(session.encounter) == {"Boarder 1": 1, "Boarder 2": 2, "Boarder 3": 3}


def test_a_number_no_one_has_is_refused_in_one_line(session: Session) -> None:
    run(session, "new 2297 T seed=1", "add A")
    for ref in ["#0", "0", "#2", "#9999999999"]:
        with pytest.raises(CommandError, match="no combatant #"):
            resolve(session.encounter, ref, listed)


def test_a_new_encounter_numbers_from_one_again(session: Session) -> None:
    run(session, "new 2297 T seed=1", "add A", "add B", "new facility U", "add C")
    assert handles(session.encounter) == {"C": 1}


def test_handles_survive_save_and_load(tmp_path: Path) -> None:
    s = run(store.fresh_session(), "new 2297 T seed=1", "add A count=3", "remove #2", "add B")
    path = tmp_path / "t.toml"
    store.save(s, path)
    back = store.load(path)
    assert back.encounter == s.encounter
    assert handles(back.encounter) == {"A 1": 1, "A 3": 3, "B": 4}
    assert back.encounter.handles == 4


def test_an_old_save_keeps_numbers_as_places_in_the_list() -> None:
    """A save written before handles (no ``handles`` key) reads ``#N`` as it did then."""
    enc = store.load(SAVES / "v3-2297-hand-edit.toml").encounter
    assert not enc.numbered
    assert all(c.handle == 0 for c in enc.combatants)
    order = listed(enc)
    assert resolve(enc, "#1", listed) == order[0]
    assert resolve(enc, str(len(order)), listed) == order[-1]


def test_an_old_history_with_numbers_replays_as_typed(tmp_path: Path) -> None:
    """A history typed before handles, ``new`` among its steps, where ``#1`` was the first in
    the list: written without handles, it loads with its history rebuilt and ``#1`` still the
    one that was first (Fast, added second)."""
    old = Session(evolve(store.blank(), handles=-1))
    run(old, "new 2297 T seed=1", "add Slow init=3", "add Fast init=20", "start", "hit #1 30")
    assert not old.encounter.numbered
    fast = old.encounter.get("fast")
    assert fast.sheet != old.encounter.get("slow").sheet  # the hit landed on Fast
    path = tmp_path / "old.toml"
    store.save(old, path)
    assert "handle" not in path.read_text().split("# ---")[0]
    back = store.load(path)
    assert back.encounter == old.encounter
    assert [s.line for s in back.undo_steps] == [s.line for s in old.undo_steps]
    assert not any("could not be rebuilt" in e.text for e in back.encounter.log)


def test_a_list_of_many_of_a_type_reads_goon_2_before_goon_10(session: Session) -> None:
    """2297's list in setup (no initiative rolled yet) orders names with their numbers by value;
    a save from before handles keeps the text order, where ``#2`` is a place in that list."""
    run(session, "new 2297 T seed=1", "add Goon count=11", "add Ada side=pc init=5")
    names = [c.name for c in listed(session.encounter)]
    assert names == ["Ada", *(f"Goon {n}" for n in range(1, 12))]
    old = Session(evolve(store.blank(), handles=-1))
    run(old, "new 2297 T seed=1", "add Goon count=11")
    assert not old.encounter.numbered
    assert [c.name for c in listed(old.encounter)][:3] == ["Goon 1", "Goon 10", "Goon 11"]
    assert resolve(old.encounter, "#2", listed).name == "Goon 10"  # (as it was typed then)
