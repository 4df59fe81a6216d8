"""The command line's preview (issue 15): what a typed line would do, said before Enter from the
rules' own functions, checked against what running the line does; and the attack helper's action
and Disadvantage (A4, A5, A7). Tests are named after the rule ids."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from facility_tui.campaign.demo import demo_encounter
from facility_tui.commands.dispatch import apply, complete_argument, preview
from facility_tui.commands.grammar import CommandError
from facility_tui.commands.session import Session
from facility_tui.model.encounter import Encounter
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


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(["zz", "3d6", "2d", "1d6+", "stun", "through", "#3", "x"])))
def test_a_preview_that_names_dice_rolled_on_enter_is_a_line_enter_runs(words: list[str]) -> None:
    """What the line shows, Enter does: a damage the preview says is rolled on Enter is dice
    Enter rolls (``hit WHO zz`` was shown as dice to roll, and refused on Enter)."""
    line = " ".join(["hit boarder-1", *words])
    said = preview(DEMO, line)
    if said and "rolled on Enter" in said[0]:
        apply(DEMO, line)  # (raises if Enter refuses it)


def test_A5_an_attacks_typed_damage_that_is_not_dice_is_refused_hit_or_miss() -> None:
    """``dmg=zz`` was shown as the damage and refused only when the attack hit: a miss wrote
    it into the fight's history. Now the preview and Enter refuse it alike, before any roll."""
    line = "attack sgt-blanc boarder-1 dmg=zz"
    said = "dmg: expected a number or dice like 2d6+1, got 'zz'"
    assert preview(DEMO, line) == [said]
    for faces in ("1,1", "10,10"):  # a miss, then a hit
        with pytest.raises(CommandError, match=re.escape(said)):
            apply(DEMO, f"{line} dice={faces}")
    assert "dmg 3d6" in preview(DEMO, "attack sgt-blanc boarder-1 dmg=3d6")[0]


def test_preview_shows_the_usage_while_the_line_does_not_read_and_rolls_nothing() -> None:
    usage = "hit WHO DAMAGE"
    assert preview(DEMO, "hit")[0].startswith(usage)
    assert preview(DEMO, "hit boarder-1")[0].startswith(usage)
    assert preview(DEMO, "hit bo 12") == [
        "'bo' could be Boarder 1, Boarder 2, Boarder 3, Boarding Chief; type more of the name, "
        "as boarder-1"
    ]  # a refusal: its own line, with the form a name takes on the line
    assert preview(DEMO, "hit boarder-1 99999") == [
        "Damage to Boarder 1 must be at most 9999, got 99999"
    ]
    assert preview(DEMO, "hit boarder-1 3d6") == ["3d6: rolled on Enter, then through armor"]
    assert preview(DEMO, "hit boarder-1 zz") == [
        "Damage to Boarder 1: expected a number or dice like 2d6+1, got 'zz'"
    ]  # (as Enter refuses it)
    assert preview(DEMO, "zzz") == [] and preview(DEMO, "") == []
    assert preview(DEMO, "next") == ["ends Sgt. Blanc's turn; next: Aspirant Cassart"]
    assert preview(DEMO, "hit boarder-1 12 dice=3,5,4") == preview(DEMO, "hit boarder-1 12")


def test_tab_completes_a_combatant_to_the_id_the_line_reads() -> None:
    """The list shows "Boarder 2"; the line reads one word per name: Tab gives the id (the
    whole of it when one fits, as far as the ids agree when several do)."""
    assert complete_argument("attack bl", DEMO) == "attack sgt-blanc "
    assert complete_argument("attack sgt-blanc chief", DEMO) == "attack sgt-blanc boarding-chief "
    assert complete_argument("attack sgt-blanc boa", DEMO) == "attack sgt-blanc board"
    assert complete_argument("attack sgt-blanc boarde", DEMO) == "attack sgt-blanc boarder-"
    line = "attack sgt-blanc boarder-"
    assert complete_argument(line + "2", DEMO) == line + "2 "
    assert apply(DEMO, line + "2 ").encounter != DEMO  # (the completed line runs)
    # only where the command names a combatant: a second target, not a type or an amount
    assert complete_argument("attack sgt-blanc boarder-1 chi", DEMO) == (
        "attack sgt-blanc boarder-1 boarding-chief "
    )
    assert complete_argument("hit boarder-1 bl", DEMO) is None  # (DAMAGE)
    assert complete_argument("arm boa", DEMO) == "arm board"  # (a TYPE: as far as types agree)
    assert complete_argument("arm boarde", DEMO) == "arm boarder "
    assert complete_argument("muster boarder=5 boarding", DEMO) == (
        "muster boarder=5 boarding_chief="
    )
    assert complete_argument("rest bl", DEMO) == "rest sgt-blanc "  # (WHO|all)
    # several found by a word of their names: their ids as far as they agree, which the line
    # reads as those (the preview names them), then the one typed after
    lab = demo_encounter("facility")
    assert complete_argument("strike anne dr", lab) == "strike anne containment-drone-"
    assert complete_argument("strike anne containment-drone-2", lab) == (
        "strike anne containment-drone-2 "
    )
    assert complete_argument("attack sgt-blanc de", DEMO) is None  # (de Lisieux, Delaunay)
    assert complete_argument("zzz bl", DEMO) is None  # (no such command)
    # nothing to add: no name after a verb, a number (a handle), an option, a quoted note
    for line in (
        "attack",
        "attack ",
        "bl",
        "attack sgt-blanc board",
        "attack sgt-blanc 2",
        "attack sgt-blanc #5",
        "attack sgt-blanc weapon=ri",
        "attack sgt-blanc zz",
        'note sgt-blanc "hit by bo',
    ):
        assert complete_argument(line, DEMO) is None, line


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=30))
def test_tab_completion_never_raises_and_keeps_what_was_typed(junk: str) -> None:
    for line in (junk, f"hit {junk}", f"attack blanc {junk}"):
        done = complete_argument(line, DEMO)
        assert done is None or (
            done.rstrip(" ") != line and done.startswith(line.rpartition(" ")[0])
        )


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
    return rules_for(enc.system).view.summary(enc, enc.get("a"))


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
    pool = re.search(r"(\d+d10(?:k[hl]2)?)\+(\d+)", said)
    assert pool, said
    assert attack.split(": ", 1)[1].startswith(pool.group(1) + " (")
    assert f"+ skill {pool.group(2)} = " in attack
    assert "Major spent" in said and s2297(after, "sgt-blanc").spent_major == 1


# -- Facility: the harm's and wound's preview is where the wounds go (F4, F5, F6) ---------------

FAC = apply(demo_encounter("facility"), "start help=anne").encounter
FAC_WHO = [c.id for c in FAC.combatants]
STAT_WORDS = ["phy", "agi", "ins", "sci", "adm", "nor"]


def landed(before: Encounter, after: Encounter, cid: str) -> dict[str, int]:
    """Wounds added to each stat (or "track") of ``cid``."""
    from facility_tui.systems.facility.engine import sheet_of
    from facility_tui.systems.facility.rules import STATS, simple, stat_of

    b, a = sheet_of(before.get(cid)), sheet_of(after.get(cid))
    if simple(b):
        return {"track": a.track_wounds - b.track_wounds}
    return {k: stat_of(a, k).wounds - stat_of(b, k).wounds for k in STATS} | {"track": 0}


def said_landing(said: str) -> dict[str, int]:
    from facility_tui.systems.facility.rules import STAT_NAMES

    names = {v: k for k, v in STAT_NAMES.items()}
    out: dict[str, int] = {}
    for n, where in re.findall(r"(\d+) (?:on|spill onto) ([A-Z][a-z]+|the track)", said):
        key = "track" if where == "the track" else names[where]
        out[key] = out.get(key, 0) + int(n)
    return out


@settings(max_examples=150, deadline=None)
@given(
    who=st.sampled_from(FAC_WHO),
    count=st.integers(1, 12),
    stat=st.sampled_from(["", *STAT_WORDS[:5]]),
)
def test_F4_wound_preview_says_where_the_wounds_land(who: str, count: int, stat: str) -> None:
    line = f"wound {who} {count} {stat}".strip()
    (said,) = preview(FAC, line)
    try:
        after = apply(FAC, line).encounter
    except CommandError as err:
        assert said == str(err)  # refused: the refusal's line, never a promise
        return
    got = {k: v for k, v in landed(FAC, after, who).items() if v}
    assert said_landing(said) == got, said


@settings(max_examples=150, deadline=None)
@given(
    who=st.sampled_from(FAC_WHO),
    count=st.integers(1, 6),
    hazard=st.sampled_from(["weapons", "trauma", "explosions", "contaminants", "anomalies"]),
    save=st.sampled_from([" save=no", " save=pass", " d20=1", " d20=10", " d20=20", " ablate=no"]),
)
def test_F5_F6_harm_preview_says_the_save_and_the_wounds(
    who: str, count: int, hazard: str, save: str
) -> None:
    line = f"harm {who} {count} {hazard}{save}"
    (said,) = preview(FAC, line)
    after = apply(FAC, line).encounter
    if save == " ablate=no":  # the d20 is rolled on Enter: the preview names what it needs
        assert re.search(r" · save \d+\+ \(d20 [+-]\d+ vs 12\)$", said), said
        return
    got = {k: v for k, v in landed(FAC, after, who).items() if v}
    if "no harm" in said:
        assert not got
    elif "or suffer" in said:  # PPE covers it: the GM chooses; suffer puts them where it said
        assert not got
        suffered = apply(after, f"suffer {who}").encounter
        assert said_landing(said) == {k: v for k, v in landed(FAC, suffered, who).items() if v}
    else:
        assert said_landing(said) == got, said


def test_F8_strike_preview_says_the_tn_and_what_the_d20_needs() -> None:
    (said,) = preview(FAC, "strike reyes containment-drone-1")
    assert said.startswith("d20 +2 Physique vs TN 11 (10 + weapons save +1; needs 9+)")
    after = apply(FAC, "strike reyes containment-drone-1 d20=9").encounter
    assert any("= 11 vs 11: Success" in e.text for e in after.log[len(FAC.log) :])
    after = apply(FAC, "strike reyes containment-drone-1 d20=8").encounter
    assert any("= 10 vs 11: Failure" in e.text for e in after.log[len(FAC.log) :])
    assert preview(FAC, "strike containment-drone-1 reyes") == [  # (and what to type instead)
        "Containment Drone 1 has a simple wound track (F10), not five stats: its attack is a "
        "harm (harm officer-reyes N HAZARD by=containment-drone-1; d on Officer Reyes starts it)"
    ]
    assert preview(FAC, "strike reyes")[0].startswith("strike WHO TARGET")
    assert preview(FAC, "harm reyes 3 weapons by=containment-drone-2") == [
        "refused: it is not Containment Drone 2's turn: add force=yes to act anyway"
    ]


@settings(max_examples=60, deadline=None)
@given(damage=st.integers(1, 30), medic=st.integers(0, 45))
def test_A10_aid_preview_says_the_tn_and_the_level_first_aid_reaches(
    damage: int, medic: int
) -> None:
    hurt = apply(DEMO, f"hit boarder-1 {damage} through").encounter
    line = f"aid boarder-1 {medic}"
    (said,) = preview(hurt, line)
    try:
        after = apply(hurt, line).encounter
    except CommandError as err:
        assert said == str(err)  # no injury to aid: the refusal's line
        return
    (before_injury,) = s2297(hurt, "boarder-1").injuries
    (injury,) = s2297(after, "boarder-1").injuries
    assert said.startswith(f"{before_injury.level.word} injury {before_injury.id}: TN ")
    if injury.aided:
        assert f"→ {injury.level.word if injury.level.rank else 'healed'} (MoS " in said
    else:
        assert said.endswith("fails: it may be tried again")
