"""Open choices come from the rules (issue 23): each rule system lists the choices an encounter
leaves open, with their options as command lines. Each option's line runs through the commands
as if typed (same state, logged, undoable), settles its choice, and each choice names whose it
is, has one default and one key per option. Also: a harm's source spends its attack mark
(``by=``)."""

from __future__ import annotations

import pytest
from attrs import evolve

from facility_tui.commands.grammar import CommandError
from facility_tui.commands.session import Session
from facility_tui.model.view import Choice
from facility_tui.store import blank
from facility_tui.systems import rules_for
from facility_tui.systems.facility.engine import pending_of
from facility_tui.systems.facility.sheet import FacilitySheet, Step
from facility_tui.systems.r2297.choices import downgrade_choice
from facility_tui.systems.r2297.sheet import Sheet2297
from tests.conftest import sheet_as


def play(seed: int, *lines: str) -> Session:
    s = Session(evolve(blank(), seed=seed))
    for line in lines:
        s.execute(line)
    return s


def choices(s: Session) -> tuple[Choice, ...]:
    return rules_for(s.encounter.system).choices.open(s.encounter)


def well_formed(s: Session, choice: Choice) -> None:
    """One default, one single-character key per option, and whose it is named in its title."""
    assert [o.default for o in choice.options].count(True) == 1
    keys = [o.key for o in choice.options]
    assert len(set(keys)) == len(keys) and all(len(k) == 1 for k in keys)
    assert choice.who is not None and s.encounter.get(choice.who).name in choice.title
    assert choice.option(choice.default.key) == choice.default


def settles(s: Session, choice: Choice, typed: dict[str, str]) -> None:
    """Each option is the line ``typed`` gives for its key: run as a line, it leaves the same
    state, log and history as typing it, the choice is no longer open, and undo brings it
    back."""
    well_formed(s, choice)
    assert {o.key: o.line for o in choice.options} == typed
    before = s.encounter
    for option in choice.options:
        chosen, by_hand = s.fork(), s.fork()
        chosen.execute(option.line)
        by_hand.execute(typed[option.key])
        assert chosen.encounter == by_hand.encounter
        assert chosen.undo_steps == by_hand.undo_steps
        assert chosen.undo_steps[-1].line == option.line
        assert choice not in choices(chosen)
        chosen.execute("undo")
        assert chosen.encounter == before
        assert choice in choices(chosen)


# -- Facility ------------------------------------------------------------------------------------

LAB = (
    "new facility Lab seed=5",
    'add Ana side=pc phy=1 sci=0 ins=0 adm=0 nor=0 ppe="Respirator,Surgical Mask" weapon=pistol',
    "add Drone track=3 weapon=smg",
    "start first=pc",
)


def test_F8_a_hit_offers_deal_by_default_or_a_critical() -> None:
    s = play(5, *LAB, "strike ana drone d20=20")
    (choice,) = choices(s)
    assert choice.who == "ana" and choice.title == "Ana: hit: deal or crit"
    assert choice.default.line == "deal ana"
    settles(s, choice, {"d": "deal ana", "c": "crit ana"})


def test_F8_a_hit_with_an_impaired_stat_offers_no_critical() -> None:
    s = play(5, *LAB, "strike ana drone d20=20", "wound ana 4 phy")
    (choice,) = choices(s)
    settles(s, choice, {"d": "deal ana"})


def test_F8_a_miss_offers_accepting_it_by_default_or_a_salvage() -> None:
    s = play(5, *LAB, "strike ana drone d20=2")
    (choice,) = choices(s)
    assert choice.default.line == "miss ana"
    settles(s, choice, {"m": "miss ana", "s": "salvage ana"})


def test_F2_a_failed_check_offers_accepting_it_by_default_or_a_salvage() -> None:
    s = play(5, *LAB, "try ana sci d20=2")
    (choice,) = choices(s)
    assert choice.title == "Ana: failed roll: salvage?"
    settles(s, choice, {"a": "accept ana", "s": "salvage ana"})
    s.execute("accept ana")
    assert pending_of(s.encounter, "ana") is None
    assert s.encounter.log[-1].text == "Ana's failed roll stands (no Salvage)"


def test_F2_accept_with_nothing_to_accept_is_refused_and_changes_nothing() -> None:
    s = play(5, *LAB, "strike ana drone d20=20")
    before = s.encounter
    with pytest.raises(CommandError, match="its attack hit"):
        s.execute("accept ana")
    with pytest.raises(CommandError, match="no failed roll waiting"):
        s.execute("accept drone")
    assert s.encounter == before


def test_F5_a_failed_save_offers_each_covering_piece_or_suffer_by_default() -> None:
    s = play(5, *LAB, "harm ana 2 contaminants d20=1")
    (choice,) = choices(s)
    assert choice.title == "Ana: 2 contaminants wounds, ablate or suffer"
    assert choice.default.line == "suffer ana"
    settles(
        s,
        choice,
        {"1": "ablate ana Respirator", "2": "ablate ana 'Surgical Mask'", "s": "suffer ana"},
    )
    # the panes' reminder and n's question read the same list
    rules = rules_for("facility")
    assert rules.choices.unsettled(s.encounter) == [choice.title] and not choice.lapses
    assert [d.text for d in rules.view.reminders(s.encounter)] == [choice.title]


def test_F8_a_failed_critical_leaves_the_partials_backlash_open_until_harmed() -> None:
    s = play(5, *LAB, "strike ana drone d20=20", "crit ana d20=1")
    assert "Partial: Ana also suffers damage, no save: 'harm ana N weapons save=no'" in [
        e.text for e in s.encounter.log
    ]
    (choice,) = choices(s)
    assert choice.title == "Ana: a Partial: suffers the enemy's damage, no save"
    # the Drone's SMG deals 1d4: one key per total, the lowest the default
    settles(s, choice, {str(n): f"harm ana {n} weapons save=no" for n in range(1, 5)})
    assert choice.default.line == "harm ana 1 weapons save=no"
    # a saved harm is not the backlash; a Salvage is refused while it is owed
    s.execute("harm ana 1 weapons d20=20")
    assert pending_of(s.encounter, "ana") is not None
    with pytest.raises(CommandError, match="owes a Partial's backlash"):
        s.execute("salvage ana")
    s.execute("harm ana 3 weapons save=no")
    assert pending_of(s.encounter, "ana") is None and choices(s) == ()


def test_F8_a_salvaged_miss_leaves_the_backlash_of_a_flat_weapon() -> None:
    s = play(
        5, *LAB, "add Guard track=3 weapon=pistol", "strike ana guard d20=2", "salvage ana d20=20"
    )
    p = pending_of(s.encounter, "ana")
    assert p is not None and p.step is Step.BACKLASH
    (choice,) = choices(s)
    settles(s, choice, {"3": "harm ana 3 weapons save=no"})


def test_F5_choices_of_several_combatants_each_name_whose_they_are() -> None:
    s = play(
        5,
        *LAB,
        'add Dale side=pc phy=0 sci=0 ins=0 adm=0 nor=0 ppe="Respirator"',
        "harm ana 1 contaminants d20=1",
        "harm dale 1 contaminants d20=1",
        "try dale sci d20=2",
    )
    found = choices(s)
    assert [c.who for c in found] == ["dale", "ana", "dale"]
    for choice in found:
        well_formed(s, choice)


# -- Facility: a harm names its source (by=) -------------------------------------------------------


def test_F7_a_harm_by_an_enemy_spends_its_attack_mark_once() -> None:
    s = play(5, *LAB, "next")  # the enemies' side turn
    s.execute("harm ana 1 weapons d20=20 by=drone")
    assert sheet_as(FacilitySheet, s, "drone").attack_used
    before = s.encounter
    with pytest.raises(CommandError, match="Drone has already attacked this turn"):
        s.execute("harm ana 1 weapons d20=20 by=drone")
    assert s.encounter == before
    s.execute("undo")
    assert not sheet_as(FacilitySheet, s, "drone").attack_used
    s.execute("harm ana 1 weapons d20=20 by=drone")  # spent again after the undo


def test_F7_a_harm_by_one_whose_side_is_not_acting_is_refused() -> None:
    s = play(5, *LAB)  # the PCs' turn
    with pytest.raises(CommandError, match="it is not Drone's turn"):
        s.execute("harm ana 1 weapons d20=20 by=drone")


# -- 2297 ----------------------------------------------------------------------------------------

DUEL = ("new 2297 Duel seed=11", "add A side=pc edge=2 sta=100 init=20", "add B init=10")


def test_A7_edge_is_offered_for_an_injury_just_taken_not_spending_it_the_default() -> None:
    s = play(11, *DUEL, "start", "next", "hit a 10")
    (choice,) = choices(s)
    assert choice.who == "a"
    assert choice.title == "A may lower the Serious injury with 1 Edge (has 2)"
    assert choice.default.line == "soak a 1 no"
    settles(s, choice, {"e": "soak a 1", "t": "soak a 1 no"})
    rules = rules_for("2297")
    assert choice.title in [d.text for d in rules.view.reminders(s.encounter)]
    assert choice.lapses and rules.choices.unsettled(s.encounter) == []  # n ends the turn: declined


def test_A7_declining_keeps_edge_and_the_injury_and_soak_still_works_after() -> None:
    s = play(11, *DUEL, "start", "next", "hit a 10", "soak a no")
    a = sheet_as(Sheet2297, s, "a")
    assert a.edge == 2 and a.level.word == "Serious" and choices(s) == ()
    assert s.encounter.log[-1].text == "A keeps Edge: Serious injury 1 stands"
    s.execute("soak a")  # still the player's to spend later, by hand
    assert sheet_as(Sheet2297, s, "a").edge == 1
    with pytest.raises(CommandError, match="no Edge offer open"):
        s.execute("soak a no")


def test_A7_the_edge_offer_lapses_when_the_turn_ends() -> None:
    s = play(11, *DUEL, "start", "next", "hit a 10")
    s.execute("next")
    assert choices(s) == ()
    assert sheet_as(Sheet2297, s, "a").edge == 2
    s.execute("undo")
    assert len(choices(s)) == 1


def test_A7_no_offer_without_edge() -> None:
    s = play(11, "new 2297 Duel seed=11", "add A side=pc sta=100 init=20", "add B init=10")
    s.execute("hit a 10")
    assert choices(s) == ()


def test_A4_a_refused_minor_of_a_slow_combatant_offers_the_downgrades() -> None:
    s = play(11, "new 2297 Duel seed=11", "add A side=pc init=5", "add B init=2", "start")
    with pytest.raises(CommandError, match="no Minor action left"):
        s.execute("minor")
    choice = downgrade_choice(s.encounter, "minor")
    assert choice is not None
    assert choice.title == "A has no Minor action left: downgrade one (A4, once per turn)?"
    well_formed(s, choice)
    assert [(o.key, o.line, o.default) for o in choice.options] == [
        ("1", "down move minor", True),
        ("2", "down major minor", False),
    ]
    for option in choice.options:
        f = s.fork()
        f.execute(option.line)
        f.execute("minor")  # now possible
        assert downgrade_choice(f.encounter, "minor") is None
        f.execute("undo")
        f.execute("undo")
        assert f.encounter == s.encounter


def test_A4_no_downgrade_offered_when_none_can_help() -> None:
    s = play(11, "new 2297 Duel seed=11", "add A side=pc init=12", "add B init=2", "start")
    assert downgrade_choice(s.encounter, "minor") is None  # a Minor is left
    s.execute("major")
    assert downgrade_choice(s.encounter, "major") is None  # nothing downgrades to a Major
    s.execute("minor")
    choice = downgrade_choice(s.encounter, "minor")
    assert choice is not None and [o.line for o in choice.options] == ["down move minor"]
    s.execute("down move minor")
    s.execute("minor")
    assert downgrade_choice(s.encounter, "minor") is None  # once per turn
    assert downgrade_choice(s.encounter, "sideways") is None


def test_A4_a_refused_action_names_the_downgrade_and_the_rules_give_its_choice() -> None:
    s = play(11, "new 2297 Duel seed=11", "add A side=pc init=5", "add B init=2", "start")
    with pytest.raises(CommandError, match=r"; a downgrade gives one: down move minor$"):
        s.execute("minor")
    rules = rules_for("2297")
    for line in ("minor", "mi", "minor a reloads"):
        assert rules.choices.unblock(s.encounter, line) == downgrade_choice(s.encounter, "minor")
    assert rules.choices.unblock(s.encounter, "major") is None  # a Major is left
    assert rules.choices.unblock(s.encounter, "hit a 3") is None
    assert rules.choices.unblock(s.encounter, "'unclosed") is None
    assert rules_for("facility").choices.unblock(s.encounter, "minor") is None


def test_F8_the_backlash_stays_owed_when_the_enemy_is_removed() -> None:
    s = play(5, *LAB, "strike ana drone d20=20", "crit ana d20=1", "remove drone")
    (choice,) = choices(s)
    assert choice.who == "ana"
    settles(s, choice, {str(n): f"harm ana {n} weapons save=no" for n in (1, 2, 3)})


def test_attack_source_is_the_acting_combatant_or_the_acting_sides_next_attacker() -> None:
    """A quick key's by=: 2297 names the acting combatant (not the target itself); Facility the
    acting side's first member who can still attack (F7); nobody in setup."""
    from facility_tui.commands.dispatch import apply as run
    from facility_tui.model.encounter import Encounter

    def built(lines: list[str]) -> Encounter:
        enc = blank()
        for line in lines:
            enc = run(enc, line).encounter
        return enc

    duel = built(["new 2297 D seed=1", "add A side=pc init=20", "add B init=10"])
    rules = rules_for("2297")
    assert rules.turns.attack_source(duel, "b") is None  # setup
    duel = run(duel, "start").encounter
    assert (rules.turns.attack_source(duel, "b"), rules.turns.attack_source(duel, "a")) == (
        "a",
        None,
    )

    raid = built(["new facility R seed=1", "add Ana side=pc", "add Drone", "add Crawler"])
    rules = rules_for("facility")
    assert rules.turns.attack_source(raid, "ana") is None
    raid = run(raid, "start first=enemy").encounter
    assert rules.turns.attack_source(raid, "ana") == "drone"
    raid = run(raid, "harm ana 1 weapons by=drone save=pass").encounter
    assert rules.turns.attack_source(raid, "ana") == "crawler"
    assert rules.turns.attack_source(raid, "crawler") is None  # the only one left is the target
