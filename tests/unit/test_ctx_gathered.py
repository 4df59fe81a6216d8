"""2297's ``Ctx`` gathers a round hook's changes (issue 26's speed): a changed sheet is made into
its combatant, and the combatants into an encounter, only when read. Played seed for seed, the
encounters are those of a ``Ctx`` that puts every change into the encounter at once, log and all.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import attrs
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from facility_tui.commands import dispatch
from facility_tui.commands.dice import Dice
from facility_tui.commands.dispatch import apply
from facility_tui.forecast import engine as forecast
from facility_tui.model.encounter import Encounter, evolve
from facility_tui.systems import rules_for
from facility_tui.systems.plays import parse_play
from facility_tui.systems.r2297 import engine
from facility_tui.systems.r2297.engine import Ctx
from facility_tui.systems.r2297.rules import Level
from facility_tui.systems.r2297.sheet import Effect, EKind, Injury


def demo() -> Encounter:
    enc = Encounter("x", "2297")
    for line in rules_for("2297").demo:
        enc = apply(enc, line).encounter
    return enc


DEMO = demo()


def at_once(method: Callable[..., Any]) -> Callable[..., Any]:
    """``method`` of a ``Ctx``, then the encounter read: each change lands in it at once."""

    def eager(self: Ctx, *args: Any, **kwargs: Any) -> Any:
        out = method(self, *args, **kwargs)
        self.enc  # noqa: B018 - (the read that makes the encounter)
        return out

    return eager


def played(start: Encounter, seed: int, plays: dict[str, Any]) -> list[tuple[str, Encounter]]:
    """Each line a logged play ran, with the encounter it gave."""
    seen: list[tuple[str, Encounter]] = []

    def recording(enc: Encounter, line: str, *args: Any, **kwargs: Any) -> dispatch.Applied:
        done = dispatch.apply(enc, line, *args, **kwargs)
        seen.append((line, done.encounter))
        return done

    with pytest.MonkeyPatch.context() as m:
        m.setattr(forecast, "apply", recording)
        forecast.play(start, plays, seed, logged=True)
    return seen


@settings(max_examples=15, deadline=None)
@given(
    seed=st.integers(0, 2**62),
    words=st.sampled_from(["", "focus", "spread", "flee at moderate"]),
)
def test_a_gathering_ctx_plays_as_one_that_changes_at_once(seed: int, words: str) -> None:
    plays = {forecast.roster(DEMO)[0].id: parse_play(words)} if words else {}
    gathered = played(DEMO, seed, plays)
    with pytest.MonkeyPatch.context() as m:
        for name in ("put", "edit", "update", "combatant", "roll"):
            m.setattr(engine.Ctx, name, at_once(getattr(engine.Ctx, name)))
        eager = played(DEMO, seed, plays)
    assert len(gathered) == len(eager) > 10
    for (line, enc), (eager_line, eager_enc) in zip(gathered, eager, strict=True):
        assert line == eager_line
        assert enc == eager_enc, line
        assert list(enc.log) == list(eager_enc.log), line


def test_a_hooks_reads_see_its_own_changes() -> None:
    """A sheet changed and not yet made into its combatant is what the hook reads back: by
    ``sheet``, ``combatant``, ``put``'s answer and the encounter."""
    enc = DEMO
    cid = enc.combatants[0].id
    ctx = Ctx(enc, Dice(1, 0))
    s = ctx.put(cid, fatigue=7)
    assert s.fatigue == 7 and ctx.sheet(cid) is s
    assert ctx.put(cid, fatigue=7) is s  # (no change: no copy)
    s2 = ctx.edit(cid, lambda s: evolve(s, damage=3))
    assert (s2.fatigue, s2.damage) == (7, 3)
    assert ctx.name(cid) == enc.combatants[0].name
    ctx.update(cid, initiative=42)
    c = ctx.combatant(cid)
    assert (c.initiative, c.sheet.fatigue, c.sheet.damage) == (42, 7, 3)
    ctx.put(cid, damage=4)
    got = ctx.enc.get(cid)
    assert (got.initiative, got.sheet.fatigue, got.sheet.damage) == (42, 7, 4)
    assert ctx.round == enc.round
    assert enc.get(cid).sheet.fatigue == DEMO.get(cid).sheet.fatigue  # (the value given is kept)


def test_a_hook_reads_its_own_encounters_combatants_after_another_hooks() -> None:
    """The combatants by id a hook last read or made are handed to the next hook at the same
    combatants (a turn's end, then its start): never to a hook of other combatants, and never
    with a change another hook made after."""
    cid = DEMO.combatants[0].id
    first = Ctx(DEMO, Dice(1, 0))
    assert first.sheet(cid).damage == 0
    second = Ctx(DEMO, Dice(1, 0))
    assert second.sheet(cid).damage == 0
    first.put(cid, damage=3)
    made = first.enc
    assert second.sheet(cid).damage == 0  # (the first hook's change is its own)
    assert second.enc is DEMO
    assert Ctx(made, Dice(1, 0)).sheet(cid).damage == 3
    first.put(cid, damage=5)
    assert first.enc.get(cid).sheet.damage == 5
    assert Ctx(made, Dice(1, 0)).sheet(cid).damage == 3
    assert Ctx(DEMO, Dice(1, 0)).sheet(cid).damage == 0
    other = DEMO.update_sheet(cid, damage=9)  # (the same ids, other combatants)
    assert Ctx(other, Dice(1, 0)).combatant(cid) is other.combatants[0]


def test_a_hooks_own_copy_is_set_in_place_until_another_holds_it() -> None:
    """A sheet a ``Ctx`` copied is its own until made into a combatant: a later change is set
    on it (not another copy of its 49 fields); what was made from it or given to it, an
    encounter, a combatant, a sheet, never changes after."""
    cid = DEMO.combatants[0].id
    given = DEMO.get(cid).sheet
    ctx = Ctx(DEMO, Dice(1, 0))
    s = ctx.put(cid, fatigue=7)
    assert s is not given
    assert ctx.put(cid, damage=2) is s  # (its own: set in place)
    assert ctx.put_all(cid, {"stun": 1}) is s
    assert (s.fatigue, s.damage, s.stun) == (7, 2, 1)
    made = ctx.enc  # (made into its combatant: shared from here on)
    shared = made.get(cid).sheet
    assert ctx.put(cid, damage=5) is not shared
    assert (shared.damage, made.get(cid).sheet.damage, ctx.sheet(cid).damage) == (2, 2, 5)
    c = ctx.combatant(cid)
    assert ctx.put(cid, stun=3) is not c.sheet
    assert (c.sheet.stun, ctx.enc.get(cid).sheet.stun) == (1, 3)
    edited = ctx.edit(cid, lambda s: s)  # (what an edit gives is not known to be its own)
    assert ctx.put(cid, stun=4) is not edited and edited.stun == 3
    assert DEMO.get(cid).sheet is given and given.fatigue == 0


def test_a_plays_next_ends_a_turn_and_starts_the_next_in_one_ctx() -> None:
    """A play's ``next`` (its encounter keeps no log: no line between them) ends the turn,
    moves the marker and starts the next turn in one ``Ctx``, the encounter made once; it ends
    where the table's ``next`` does, turn after turn, apart from the log."""
    fields = {f.name: getattr(DEMO, f.name) for f in attrs.fields(Encounter)}
    table = apply(forecast.Played(**fields), "start").encounter
    play = apply(forecast.Unlogged(**{**fields, "log": ()}), "start").encounter
    made = []
    init = Ctx.__init__

    def counted(self: Ctx, *args: Any, **kwargs: Any) -> None:
        made.append(self)
        init(self, *args, **kwargs)

    for _ in range(3 * len(DEMO.combatants)):
        table = apply(table, "next").encounter
        with pytest.MonkeyPatch.context() as m:
            m.setattr(Ctx, "__init__", counted)
            made.clear()
            play = apply(play, "next").encounter
        moved_on = table.turn > 0  # (a round's end has hooks of its own)
        assert not moved_on or len(made) == 1
        seen = (play.combatants, play.order, play.round, play.turn, play.rolls)
        assert seen == (table.combatants, table.order, table.round, table.turn, table.rolls)


def test_a_plays_next_makes_the_encounter_once_with_the_marker_moved() -> None:
    """A play's ``next`` that moves on makes one encounter: the marker's move is made with the
    next turn's start's changes (its marks), not into an encounter of its own first; that
    encounter has both."""
    fields = {f.name: getattr(DEMO, f.name) for f in attrs.fields(Encounter)}
    play = apply(forecast.Unlogged(**{**fields, "log": ()}), "start").encounter
    made: list[Encounter] = []

    def counted(inst: Any, **changes: Any) -> Any:
        if isinstance(inst, Encounter):
            made.append(inst)
        return evolve(inst, **changes)

    for _ in range(3 * len(DEMO.combatants)):
        before = play
        with pytest.MonkeyPatch.context() as m:
            m.setattr(engine, "evolve", counted)
            made.clear()
            play = apply(play, "next").encounter
        if play.turn > 0:  # (moved on in the round: a round's end has hooks of its own)
            assert len(made) == 1
            cid = play.order[play.turn]
            assert play.turn == before.turn + 1
            assert play.get(cid).sheet.turns == before.get(cid).sheet.turns + 1


def test_a_plays_attack_and_next_record_their_rolls_in_the_one_encounter_made() -> None:
    """A play's attack and its ``next`` that moves on each make one encounter, with the dice's
    place in it (``rolls``): ``apply`` copies it no more for that; both end as the table's."""
    fields = {f.name: getattr(DEMO, f.name) for f in attrs.fields(Encounter)}
    table = apply(forecast.Played(**fields), "start").encounter
    play = apply(forecast.Unlogged(**{**fields, "log": ()}), "start").encounter
    made: list[Encounter] = []

    def counted(copy: Callable[..., Any]) -> Callable[..., Any]:
        def copying(inst: Any, *args: Any, **changes: Any) -> Any:
            if isinstance(inst, Encounter):
                made.append(inst)
            return copy(inst, *args, **changes)

        return copying

    rolled = 0
    for _ in range(2 * len(DEMO.combatants)):
        who = play.order[play.turn]
        foe = next(c.id for c in play.combatants if c.side != play.get(who).side)
        for line in (f"attack {who} {foe}", "next"):
            try:
                table = apply(table, line).encounter
            except dispatch.CommandError:
                continue  # (one who cannot attack now: refused alike below)
            before = play.rolls
            with pytest.MonkeyPatch.context() as m:
                m.setattr(engine, "evolve", counted(engine.evolve))
                m.setattr(engine, "evolve_with", counted(engine.evolve_with))
                m.setattr(dispatch, "evolve", counted(dispatch.evolve))
                made.clear()
                play = apply(play, line).encounter
            if play.rolls != before and (line != "next" or play.turn > 0):
                rolled += 1
                assert len(made) == 1, line
            assert (play.combatants, play.turn, play.rolls) == (
                table.combatants,
                table.turn,
                table.rolls,
            )
    assert rolled > 3


def scanned(enc: Encounter) -> tuple[bool, bool]:
    """An open Edge offer and a pin in ``enc``, by a scan of every sheet (what the kept answer
    stands for)."""
    sheets = [c.sheet for c in enc.combatants]
    return (
        any(i.offered for s in sheets for i in s.injuries),
        any(e.by for s in sheets for e in s.effects),
    )


@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 2**62), pinned=st.booleans())
def test_the_rare_things_kept_are_what_a_scan_finds(seed: int, pinned: bool) -> None:
    """The open Edge offers and the pins are known of the latest list without a scan, carried
    from list to list by the ``Ctx`` that makes each: right after every line of a play (as the
    play asks), the answer is the scan's (offers open and settled, pins made and ended)."""
    start = DEMO
    if pinned:  # (a pin that ends at its keeper's turn: A11)
        first, second = forecast.roster(DEMO)[:2]
        start = apply(DEMO, f"cond {second.id} pinned by={first.id}").encounter
        assert scanned(start)[1]
    found: list[tuple[bool, bool]] = []

    def checking(enc: Encounter, line: str, *args: Any, **kwargs: Any) -> dispatch.Applied:
        done = dispatch.apply(enc, line, *args, **kwargs)
        cs = done.encounter.combatants
        kept = (engine.offers_open(cs), engine.pins_kept(cs))
        assert kept == scanned(done.encounter), line
        found.append(kept)
        return done

    with pytest.MonkeyPatch.context() as m:
        m.setattr(forecast, "apply", checking)
        forecast.play(start, {}, seed)  # (unlogged, as a forecast plays: its ``Ctx`` made)
    assert any(offers for offers, _ in found)  # (an offer was open after some line)
    assert not found[-1][1]  # (a pin ends: at its keeper's turn, or a round after it fell)


def test_the_rare_things_of_a_list_made_otherwise_are_counted_again() -> None:
    """A list a ``Ctx`` did not make from the kept one (a command's own replace, another
    encounter) is scanned when asked; one made from a list holding an offer is too."""
    cid = DEMO.combatants[0].id
    assert not engine.offers_open(DEMO.combatants)
    ctx = Ctx(DEMO, Dice(1, 0))
    hurt = ctx.sheet(cid)
    injury = Injury(1, Level.LIGHT, Level.LIGHT, 1, 3, offered=True)
    ctx.put(cid, injuries=(*hurt.injuries, injury))
    offered = ctx.enc
    assert engine.offers_open(offered.combatants)
    again = Ctx(offered, Dice(1, 0))
    again.put(DEMO.combatants[1].id, fatigue=5)  # (another's change: the offer stays open)
    assert engine.offers_open(again.enc.combatants)
    taken = Ctx(again.enc, Dice(1, 0))
    taken.put(cid, injuries=(*hurt.injuries, evolve(injury, offered=False)))
    assert not engine.offers_open(taken.enc.combatants)  # (the offer closed by a ``Ctx``)
    declined = offered.update_sheet(cid, injuries=hurt.injuries)  # (not through a ``Ctx``)
    assert not engine.offers_open(declined.combatants)
    assert engine.offers_open(offered.combatants)  # (an older list, asked again: scanned)
    pin = Effect(EKind.COND, "pinned", by=DEMO.combatants[1].id)
    pinning = Ctx(declined, Dice(1, 0))
    assert not engine.pins_kept(declined.combatants)
    pinning.put(cid, effects=(*pinning.sheet(cid).effects, pin))
    assert engine.pins_kept(pinning.enc.combatants)  # (a pin made by a ``Ctx``)
    freed = Ctx(pinning.enc, Dice(1, 0))
    freed.put(cid, effects=())
    assert not engine.pins_kept(freed.enc.combatants)


def test_a_ctx_puts_each_changed_combatant_in_its_place() -> None:
    """The list a ``Ctx`` makes is its encounter's with each changed combatant in its place, the
    others the same objects, from a list it made before too; where an id repeats (a hand-edited
    save), each of its combatants is replaced, as the list was before."""
    ids = [c.id for c in DEMO.combatants]
    ctx = Ctx(DEMO, Dice(1, 0))
    ctx.put(ids[5], damage=2)
    ctx.put(ids[1], damage=1)
    made = ctx.enc
    assert [c.id for c in made.combatants] == ids
    for i, (was, now) in enumerate(zip(DEMO.combatants, made.combatants, strict=True)):
        assert (now is was) == (i not in (1, 5))
    again = Ctx(made, Dice(1, 0))
    again.put(ids[1], damage=4)
    assert [c.sheet.damage for c in again.enc.combatants][:6] == [0, 4, 0, 0, 0, 2]
    twice = evolve(DEMO, combatants=(*DEMO.combatants, DEMO.combatants[0]))
    repeated = Ctx(twice, Dice(1, 0))
    repeated.put(ids[0], damage=3)
    assert [c.sheet.damage for c in repeated.enc.combatants if c.id == ids[0]] == [3, 3]
