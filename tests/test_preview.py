"""The command line's preview (issue 15): what a typed line would do, said before Enter from the
rules' own functions, checked against what running the line does; and the attack helper's action
and Disadvantage (A4, A5, A7). Tests are named after the rule ids."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from facility_tui.demo import demo_encounter
from facility_tui.dispatch import apply, preview
from facility_tui.grammar import CommandError
from facility_tui.model import Encounter
from facility_tui.session import Session
from facility_tui.systems.r2297.rules import Level
from facility_tui.systems.r2297.sheet import Sheet2297
from tests.conftest import run, sheet_as

DEMO = apply(demo_encounter("2297"), "start").encounter  # Sgt. Blanc's turn, round 1
TARGETS = [c.id for c in DEMO.combatants]


def sheet(session: Session, cid: str) -> Sheet2297:
    return sheet_as(Sheet2297, session, cid)


def s2297(enc: Encounter, cid: str) -> Sheet2297:
    s = enc.get(cid).sheet
    assert isinstance(s, Sheet2297)
    return s


def refused(session: Session, line: str, match: str) -> None:
    before = session.encounter
    with pytest.raises(CommandError, match=match):
        session.execute(line)
    assert session.encounter == before


def duel(session: Session, a: str = "") -> Session:
    """A (init 20, skill 100: always hits) and B (lots of Health); A's turn."""
    return run(
        session,
        "new 2297 Duel seed=5",
        f'add A side=pc init=20 skill=100 weapon="Gun 2d6 SS 30" {a}',
        "add B init=10 hlt=500 sta=500",
        "start",
    )


# -- A6–A8: the hit's preview is what the hit does ------------------------------------------------


@settings(max_examples=150, deadline=None)
@given(
    target=st.sampled_from(TARGETS),
    raw=st.integers(0, 150),
    kind=st.sampled_from(["", " stun", " energy", " through"]),
    ap=st.sampled_from(["", " ap=5", " ap=5/20", " ap=30/100"]),
)
def test_A6_A7_hit_preview_says_what_the_hit_does(
    target: str, raw: int, kind: str, ap: str
) -> None:
    line = f"hit {target} {raw}{kind}{ap if kind != ' through' else ''}"
    (said,) = preview(DEMO, line)
    after = apply(DEMO, line).encounter
    before_s, after_s = s2297(DEMO, target), s2297(after, target)
    got = (after_s.damage + after_s.stun) - (before_s.damage + before_s.stun)
    new = after_s.injuries[len(before_s.injuries) :]
    if got == 0 and "stopped by armor" in said:
        assert not new
        return
    m = re.match(r"→ (\d+) (gets|already) through · ([^·]+)", said)
    assert m, said
    assert int(m.group(1)) == got
    level = m.group(3).strip()
    if level == "no injury":
        assert not new
    else:
        assert [i.level.word for i in new] == [level]
        assert level in [lv.word for lv in Level]


def test_A7_hit_preview_names_the_levels_effects_with_their_dice() -> None:
    # Boarder 1: Vacsuit PT 10 DR 20%, Health 20: 12 raw → 9 through, Moderate (≥ 5)
    assert preview(DEMO, "hit boarder-1 12") == [
        "→ 9 gets through · Moderate · −2d6 init, Disadv. 1d6+1 rounds"
    ]
    assert preview(DEMO, "hit boarder-1 9") == ["→ stopped by armor (PT 10)"]
    assert "Incapacitated" in preview(DEMO, "hit boarder-1 28")[0]


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=40))
def test_preview_of_any_line_never_raises_and_changes_nothing(junk: str) -> None:
    for line in (junk, f"hit {junk}", f"attack blanc {junk}", f"hit boarder-1 {junk}"):
        said = preview(DEMO, line)
        assert isinstance(said, list) and all(isinstance(x, str) for x in said)


def test_preview_shows_the_usage_while_the_line_does_not_read_and_rolls_nothing() -> None:
    usage = "hit WHO DAMAGE"
    assert preview(DEMO, "hit")[0].startswith(usage)
    assert preview(DEMO, "hit nobody 12")[0].startswith(usage)
    assert preview(DEMO, "hit boarder-1 3d6") == ["3d6: rolled on Enter, then through armor"]
    assert preview(DEMO, "zzz") == [] and preview(DEMO, "") == []
    assert preview(DEMO, "next") == []  # nothing more to say than the line
    assert preview(DEMO, "hit boarder-1 12 dice=3,5,4") == preview(DEMO, "hit boarder-1 12")


# -- A4/A5: the attack helper spends the Major ----------------------------------------------------


def test_A5_A4_attack_in_its_turn_spends_the_attackers_major(session: Session) -> None:
    duel(session)
    run(session, "attack a b")
    assert sheet(session, "a").spent_major == 1
    assert any("A: Major spent: attack" in e.text for e in session.encounter.log)


def test_A5_A4_attack_without_a_major_is_refused_and_free_overrides(session: Session) -> None:
    duel(session)
    run(session, "attack a b")
    refused(session, "attack a b", "no Major action left.*'free'")
    run(session, "attack a b free")
    assert sheet(session, "a").spent_major == 1
    assert any(e.text == "A: a free attack (no action spent)" for e in session.encounter.log)


def test_A5_attack_outside_its_turn_spends_nothing(session: Session) -> None:
    duel(session)
    run(session, "set b skill 100", "attack b a dmg=1")
    assert sheet(session, "b").spent_major == 0
    assert any("outside its turn: no Major spent" in e.text for e in session.encounter.log)


def test_A5_attack_undo_restores_the_major_the_ammo_and_the_target(session: Session) -> None:
    duel(session)
    before = session.encounter
    run(session, "attack a b")
    assert sheet(session, "b").damage > 0 and sheet(session, "a").weapons[0].ammo == 29
    run(session, "undo")
    assert session.encounter == before


def test_A7_A5_attack_applies_the_attackers_disadvantage(session: Session) -> None:
    duel(session, "hlt=20")
    run(session, "hit a 6 through")  # Moderate (6 ≥ 25% of 20): Disadvantage 1d6+1 rounds
    assert derived(session)["disadvantage"]
    mark = len(session.encounter.log)
    run(session, "attack a b")
    lines = [e.text for e in session.encounter.log[mark:]]
    assert "A has Disadvantage (Moderate injury): net Advantage 0 → -1" in lines
    assert any(" attacks B: 3d10kl2 (" in t for t in lines)
    mark = len(session.encounter.log)
    run(session, "attack a b adv=1 free")  # the typed net count and the Disadvantage add up
    assert any(" attacks B: 2d10 (" in e.text for e in session.encounter.log[mark:])


def derived(session: Session) -> dict[str, object]:
    from facility_tui.systems import rules_for

    enc = session.encounter
    return rules_for(enc.system).summary(enc, enc.get("a"))


@settings(max_examples=60, deadline=None)
@given(
    target=st.sampled_from([t for t in TARGETS if t != "sgt-blanc"]),
    extra=st.sampled_from(
        ["", " cover=5", " evade", " melee", " undefended", " mode=BF", " adv=-2"]
    ),
)
def test_A5_attack_preview_says_the_tn_pool_and_major_the_attack_uses(
    target: str, extra: str
) -> None:
    line = f"attack sgt-blanc {target}{extra}"
    (said,) = preview(DEMO, line)
    after = apply(DEMO, line).encounter
    logged = [e.text for e in after.log[len(DEMO.log) :]]
    attack = next(t for t in logged if " attacks " in t)
    tn = re.search(r"vs TN (\d+)", attack)
    assert tn and f"TN {tn.group(1)}" in said
    pool = said.split(" + ")[0]
    assert attack.split(": ", 1)[1].startswith(pool + " (")
    assert "Major spent" in said and s2297(after, "sgt-blanc").spent_major == 1
