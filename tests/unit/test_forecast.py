"""The danger forecast (issue 26, docs/forecast.md): plays of a fight with the rules engine, their
tally, the Wilson intervals, the GM's plays, the CLI."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from facility_tui import store
from facility_tui.cli import main
from facility_tui.commands import dispatch
from facility_tui.commands.dispatch import apply
from facility_tui.forecast import engine as forecast
from facility_tui.model.encounter import ENEMIES, PCS, Encounter
from facility_tui.model.names import name_forms
from facility_tui.systems import rules_for
from facility_tui.systems.facility.demo import DEMO_FACILITY_FIGHT
from facility_tui.systems.plays import Play, PlayError, parse_play
from tests.conftest import saved_fight


def build(*lines: str) -> Encounter:
    enc = Encounter("x", "2297")
    for line in lines:
        enc = apply(enc, line).encounter
    return enc


def demo(system: str) -> Encounter:
    return build(*rules_for(system).demo)


# Two duellists who hit on 2d10 + 10 >= 20 (a double adds +5, A5): 66 of the 100 faces; any hit
# is 25 damage on Health 10, twice Health: dying (A8). Ann acts first every round (initiative).
DUEL_2297 = (
    "new 2297 Duel seed=5",
    'add Ann side=pc init=15 hlt=10 skill=10 weapon="Gun 1d1+24 SS"',
    'add Bob side=enemy init=12 hlt=10 skill=10 weapon="Gun 1d1+24 SS"',
)
# Ann strikes with light melee (2 wounds) on d20 >= 10 + Bob's Weapons save 0: 11 in 20, and
# Bob's simple track of 1 is full. Bob harms Ann for 9 weapons wounds, which her save d20 >= 12
# stops 9 times in 20 (11 in 20 land); 9 wounds fill three of her tracks: Incapacitated (F4).
# Her Insight roll d20 >= 12 (9 in 20) puts the PCs first (F7), else the enemies.
DUEL_FACILITY = (
    "new facility Duel seed=5",
    "add Ann side=pc weapon=light",
    "add Bob side=enemy track=1 weapon=9",
)


def first_wins(p_first: float, p_second: float) -> float:
    """Who acts first wins, with each having its chance to end it at each turn."""
    q1, q2 = 1 - p_first, 1 - p_second
    return p_first / (1 - q1 * q2)


def within(tally: forecast.Tally, side: str, expected: float) -> None:
    low, high = forecast.wilson(tally.wins[side], tally.runs)
    assert low <= expected <= high, (tally.wins[side], tally.runs, expected)


@pytest.mark.parametrize(
    ("k", "n", "low", "high"),
    [  # Newcombe (1998), Statistics in Medicine 17, table II; and 0 of 10
        (81, 263, 0.2553, 0.3662),
        (15, 148, 0.0624, 0.1605),
        (0, 10, 0.0, 0.2775),
        (10, 10, 0.7225, 1.0),
    ],
)
def test_wilson_known_values(k: int, n: int, low: float, high: float) -> None:
    got = forecast.wilson(k, n)
    assert got == pytest.approx((low, high), abs=5e-5)


@given(st.integers(1, 5000), st.data())
def test_wilson_holds_the_share(n: int, data: st.DataObject) -> None:
    k = data.draw(st.integers(0, n))
    low, high = forecast.wilson(k, n)
    assert 0 <= low <= k / n <= high <= 1
    low2, high2 = forecast.wilson(k * 2, n * 2)  # the same share from twice the plays
    assert high2 - low2 < high - low


def test_intervals_narrow_as_the_issue_says() -> None:
    assert forecast.pct(15, 50) == "30 % (19–44)"  # 0.1910–0.4375
    assert forecast.pct(460, 1000) == "46 % (42–50)"  # 0.4293–0.4910


def test_duel_2297_matches_the_hand_computed_odds() -> None:
    enc = build(*DUEL_2297)
    tally = forecast.forecast(enc, 600, seed=11, processes=1)
    p = 66 / 100
    within(tally, PCS, first_wins(p, p))  # 0.746
    assert tally.wins[PCS] + tally.wins[ENEMIES] == 600
    assert tally.dying["bob"] == tally.wins[PCS]  # every win is a hit that leaves Bob dying


def test_duel_facility_matches_the_hand_computed_odds() -> None:
    enc = build(*DUEL_FACILITY)
    tally = forecast.forecast(enc, 600, seed=11, processes=1)
    strike, harm, first = 11 / 20, 11 / 20, 9 / 20
    expected = first * first_wins(strike, harm) + (1 - first) * (1 - first_wins(harm, strike))
    within(tally, PCS, expected)  # 0.481
    assert tally.wins[PCS] + tally.wins[ENEMIES] == 600


def test_a_harm_play_arms_an_enemy_the_sheet_leaves_unarmed() -> None:
    unarmed = tuple(line.replace(" weapon=9", "") for line in DUEL_FACILITY)
    enc = build(*unarmed)
    plays = forecast.read_plays(enc, {"bob": "harm 9 weapons"})
    tally = forecast.forecast(enc, 600, seed=11, plays=plays, processes=1)
    strike, harm, first = 11 / 20, 11 / 20, 9 / 20
    expected = first * first_wins(strike, harm) + (1 - first) * (1 - first_wins(harm, strike))
    within(tally, PCS, expected)
    # the very plays of weapon=9 on its sheet: the same lines, the same dice
    assert tally == forecast.forecast(build(*DUEL_FACILITY), 600, seed=11, processes=1)
    plain = forecast.forecast(enc, 50, seed=12, processes=1)
    assert plain.wins[PCS] == 50  # 1 wound a hit never takes Ann down


@pytest.mark.parametrize(
    ("lines", "blows"), [(DUEL_2297, ("attack ",)), (DUEL_FACILITY, ("strike ", "harm "))]
)
def test_a_fight_ends_in_the_round_of_its_deciding_blow(
    monkeypatch: pytest.MonkeyPatch, lines: tuple[str, ...], blows: tuple[str, ...]
) -> None:
    """Each side strikes once a round and any blow may end the duel: the k-th blow falls in
    round (k + 1) // 2, and the play ends in that round (a duel won by its first blow was
    counted in round 2: the turns after it were played on)."""
    enc = build(*lines)
    ran: list[str] = []

    def recording(enc: Encounter, line: str, *args: object, **kwargs: object) -> dispatch.Applied:
        done = dispatch.apply(enc, line, *args, **kwargs)  # type: ignore[arg-type]
        ran.append(line)
        return done

    monkeypatch.setattr(forecast, "apply", recording)
    seen: Counter[int] = Counter()
    for seed in range(30):
        ran.clear()
        outcome = forecast.play_once(enc, {}, seed)
        struck = sum(line.startswith(blows) for line in ran)
        assert outcome.winner and outcome.rounds == (struck + 1) // 2, (seed, outcome, ran)
        seen[outcome.rounds] += 1
    assert seen[1] >= 20 and len(seen) > 1  # (most end in round 1: 1 - 0.34² in 2297)


@pytest.mark.parametrize(("bob_init", "ends_in"), [(12, 1), (18, 2)])
def test_a_fight_that_ends_at_a_turns_start_ends_in_that_round(bob_init: int, ends_in: int) -> None:
    """Bob, Critical with 4 damage on Health 5, bleeds 1d6 at his turn's start and falls there
    (unconscious: his turn passes): after Ann's turn in round 1 (he acts last), or at the start
    of round 2 (he acts first). The fight ends in that round, not in the one the passed turns
    moved the marker to."""
    enc = build(
        "new 2297 Bleed seed=5",
        'add Ann side=pc init=15 hlt=10 weapon="Gun 1d1+24 SS"',
        f'add Bob side=enemy init={bob_init} hlt=5 weapon="Gun 1d1+24 SS"',
        "start",
        *(["next"] if bob_init > 15 else []),  # (Bob's turn of round 1 is over)
        "set bob injury critical",
        "set bob damage 4",
    )
    assert (enc.round, enc.current) == (1, "ann")
    plays = forecast.read_plays(enc, {"ann": "hold", "bob": "hold"})
    tally = forecast.forecast(enc, 20, seed=1, plays=plays, processes=1)
    assert tally.wins[PCS] == 20
    assert tally.rounds[PCS] == Counter({ends_in: 20})
    assert forecast.rounds_text(tally.rounds[PCS]).startswith(f"round {ends_in} median")


@pytest.mark.system  # (a process of its own)
def test_the_same_seed_gives_the_same_forecast_in_one_process_or_two() -> None:
    enc = demo("facility")
    here = forecast.forecast(enc, 60, seed=3, processes=1)
    again = forecast.forecast(enc, 60, seed=3, processes=1)
    pooled = forecast.Tally(here.ids)
    for pooled in forecast.run(enc, 60, 3, processes=2, chunk=15):  # noqa: B007
        pass
    assert here == again == pooled
    other = forecast.forecast(enc, 60, seed=4, processes=1)
    assert other != here


def test_results_sharpen_chunk_by_chunk() -> None:
    enc = build(*DUEL_2297)
    seen = [t.runs for t in forecast.run(enc, 50, 1, processes=1, chunk=20)]
    assert seen == [20, 40, 50]


@pytest.mark.parametrize("system", ["2297", "facility"])
def test_demo_fights_from_setup(system: str) -> None:
    enc = demo(system)
    tally = forecast.forecast(enc, 12, seed=2, processes=1)
    assert tally.runs == 12
    assert sum(tally.wins.values()) == 12
    assert tally.ids == tuple(c.id for c in forecast.roster(enc))
    assert sum(tally.first.values()) <= 12
    text = "\n".join(forecast.lines(enc, tally, {}, 2))
    assert "win" in text and "Assumptions:" in text


def test_the_three_likeliest_first_to_fall_each_have_a_line() -> None:
    """A name and its share on one line, in order (wrapped on one line, a name was parted from
    its figures at 80 columns)."""
    enc = demo("2297")
    tally = forecast.forecast(enc, 30, seed=2, processes=1)
    out = forecast.lines(enc, tally, {}, 2)
    at = out.index("First to fall:")
    names = {c.id: c.name for c in enc.combatants}
    ranked = sorted(tally.first.items(), key=lambda kv: (-kv[1], kv[0]))[:3]
    assert len(ranked) == 3
    for line, (cid, k) in zip(out[at + 1 : at + 4], ranked, strict=True):
        assert line.split()[: len(names[cid].split())] == names[cid].split()
        assert line.endswith(forecast.pct(k, 30))
    assert out[at + 4] == ""  # (then the assumptions)
    assert max(len(line) for line in out[at : at + 4]) <= 76  # (the forecast screen at 80)


def test_demo_fights_mid_fight() -> None:
    facility = demo("facility")
    for line in DEMO_FACILITY_FIGHT:
        facility = apply(facility, line).encounter
    assert facility.round >= 1
    tally = forecast.forecast(facility, 12, seed=2, processes=1)
    assert sum(tally.wins.values()) == 12
    # the barricade the fight made is an object, not a combatant the forecast follows
    made = [c.id for c in facility.combatants if "barricade" in c.id]
    assert made and not set(made) & set(tally.ids)
    assert len(tally.ids) == 6
    r2297 = demo("2297")
    for line in ("start", "attack #1 #5", "next", "next", "next"):
        r2297 = apply(r2297, line).encounter
    assert r2297.round == 1 and r2297.turn == 3
    tally = forecast.forecast(r2297, 12, seed=2, processes=1)
    assert sum(tally.wins.values()) == 12
    assert min(tally.rounds[PCS]) >= 1


@pytest.mark.parametrize(
    ("lines", "word"),
    [
        ((*DUEL_2297, "set bob damage 10"), "incap."),  # (the list shows its injury: none)
        ((*DUEL_2297, "cond bob unconscious"), "uncons."),
        ((*DUEL_2297, "hit bob 40"), "dying"),
        ((*DUEL_2297, "set bob dead yes"), "dead"),
        ((*DUEL_2297, "cond bob fled"), "fled"),
        ((*DUEL_FACILITY, "fate bob out"), "out"),
        ((*DUEL_FACILITY, *(f"set ann {k}_wounds 9" for k in ("phy", "sci", "ins"))), "out: inc."),
        ((*DUEL_FACILITY, "fate bob surrendered"), "out: sur."),
        ((*DUEL_FACILITY, "fate bob fled"), "out: fled"),
        ((*DUEL_FACILITY, "fate bob dead"), "dead"),
    ],
)
def test_one_out_ends_said_out_whole_in_its_column(lines: tuple[str, ...], word: str) -> None:
    """A combatant the forecast counts down or out ends in a word that says so (an
    Incapacitated 2297 combatant ended "Serious" beside 100 % down/out), the list's word or its
    short form, never cut (Facility's ``out: incapacitated`` showed as ``out: incapa``)."""
    enc = build(*lines)
    rules = rules_for(enc.system)
    for c in forecast.roster(enc):
        end = rules.tactics.end_word(enc, c)
        assert len(end) <= forecast.END_WORD
        if rules.tactics.fallen(enc, c):
            assert end == word, (c.id, end)
        else:
            assert end == rules.view.state_word(enc, c)  # (standing: the list's word itself)


def test_the_usual_end_reads_as_the_down_or_out_share_does() -> None:
    """The "ends as" column names a way to be down or out exactly when the combatant ends so in
    more than half the plays; the line keeps each word whole and within the screen's width."""
    for enc in (demo("2297"), build(*DUEL_FACILITY)):
        tally = forecast.forecast(enc, 40, seed=3, processes=1)
        out = forecast.lines(enc, tally, {}, 3)
        head = next(i for i, line in enumerate(out) if "down/out" in line)
        assert "ends as" in out[head]
        names = {c.id: c.name for c in enc.combatants}
        rows = out[head + 1 : head + 1 + len(tally.ids)]
        for cid, row in zip(tally.ids, rows, strict=True):
            end = forecast.usual_end(tally, cid)
            downs = tally.downs.get(cid, Counter())
            assert (downs[end] > 0) == (2 * tally.out[cid] > tally.runs), (cid, end)
            assert row.startswith(names[cid][:10]) and f"  {end}  " in row
        assert max(len(line) for line in out if not line.startswith("- ")) <= forecast.WIDTH
        data = forecast.as_dict(enc, tally, {}, 3)["combatants"]
        for cid, one in zip(tally.ids, data, strict=True):  # (--json says the same)
            assert one["end_state"] == forecast.usual_end(tally, cid)
            assert sum(one["end_states"].values()) == tally.runs
    chief = forecast.forecast(demo("2297"), 40, seed=3, processes=1)
    assert forecast.usual_end(chief, "boarding-chief") == "incap."  # (it said Serious)
    duel = forecast.forecast(build(*DUEL_FACILITY), 40, seed=3, processes=1)
    assert forecast.usual_end(duel, "ann") == "out: inc."  # (it said out: incapa)


def test_a_long_name_shortens_as_the_list_does() -> None:
    """A name wider than its column loses its leading words' letters, not its end (the
    Facility demo's anomaly read ``Eχ0001.001 Nominati…``), in the table and first to fall."""
    enc = demo("facility")
    tally = forecast.forecast(enc, 20, seed=1, processes=1)
    out = forecast.lines(enc, tally, {}, 1)
    name = "Eχ0001.001 Nominative Determinism"
    assert name in {c.name for c in enc.combatants}
    rows = [line for line in out if line.startswith("E") and "win" not in line]
    assert len(rows) == 2 and all(row.startswith("E. Nomi. Determinism  ") for row in rows)
    assert "E. Nomi. Determinism" in name_forms(name)
    assert "…" not in "\n".join(out)


def test_the_columns_say_what_they_count() -> None:
    for enc, ammo in ((demo("2297"), "ammo used"), (build(*DUEL_FACILITY), "guns dry")):
        tally = forecast.forecast(enc, 5, seed=1, processes=1)
        head = next(line for line in forecast.lines(enc, tally, {}, 1) if "down/out" in line)
        assert head.split() == ["down/out", "dying/dead", "ends", "as", *ammo.split()]
        md = forecast.markdown(enc, tally, {}, 1)
        assert f"| combatant | down or out | dying or dead | ends as | {ammo} |" in md


def test_a_long_fights_histogram_takes_a_line_of_its_own() -> None:
    few = Counter({1: 3, 4: 1})
    assert forecast.rounds_lines(few) == [f"  {forecast.rounds_text(few)}"]
    long = forecast.rounds_lines(Counter({1: 5, 61: 1}))
    assert long[0] == "  round 1 median, 61 at 90 %:"
    assert long[1].startswith("  █") and long[1].endswith(" (1–61)")
    assert max(map(len, long)) <= forecast.WIDTH


def test_a_save_with_a_choice_left_open_forecasts() -> None:
    enc = build(*DUEL_FACILITY, "start dice=15", "strike ann bob d20=15")
    assert rules_for("facility").choices.open(enc)  # deal or crit, waiting
    tally = forecast.forecast(enc, 10, seed=1, processes=1)
    assert tally.wins[PCS] == 10  # dealt: Bob's track of 1 is full at once
    assert tally.first["bob"] == 10


def test_a_fight_already_won_forecasts_100_percent() -> None:
    enc = build(*DUEL_2297, "start", "hit bob 40")
    assert rules_for("2297").tactics.fallen(enc, enc.get("bob")) == "dying"
    tally = forecast.forecast(enc, 20, seed=1, processes=1)
    assert tally.wins[PCS] == 20
    assert forecast.pct(tally.wins[PCS], 20).startswith("100 %")
    assert tally.first == Counter()  # Bob fell before the forecast: none fell in it


def test_nobody_able_to_act_says_so_and_ends() -> None:
    enc = build(*DUEL_2297)
    plays = forecast.read_plays(enc, {"ann": "hold", "bob": "hold"})
    tally = forecast.forecast(enc, 5, seed=1, plays=plays, processes=1)
    assert tally.stops["stalled"] == 5
    assert forecast.note(tally).startswith("Nobody can act")
    unarmed = build("new facility Still", "add A side=pc track=3", "add B side=enemy track=3")
    assert "Nobody can act" not in forecast.note(forecast.forecast(unarmed, 3, 1, processes=1))


def test_plays_change_the_forecast() -> None:
    enc = build(*DUEL_2297)
    plays = forecast.read_plays(enc, {"bob": "hold"})
    tally = forecast.forecast(enc, 30, seed=1, plays=plays, processes=1)
    assert tally.wins[PCS] == 30
    assert "Bob: hold" in forecast.assumptions(enc, plays, 1)


def test_flee_at_takes_the_fighter_out_without_a_fall() -> None:
    enc = build(
        "new 2297 Flee seed=1",
        'add Ann side=pc init=15 hlt=40 skill=30 weapon="Gun 1d1+5 SS"',
        'add Bob side=enemy init=12 hlt=40 weapon="Gun 1d1 SS"',
    )
    plays = forecast.read_plays(enc, {"bob": "flee at light"})
    tally = forecast.forecast(enc, 10, seed=1, plays=plays, processes=1)
    assert tally.wins[PCS] == 10
    assert tally.ends["bob"]["fled"] == 10
    assert tally.dying["bob"] == 0


@pytest.mark.parametrize(
    ("text", "play"),
    [
        ("focus", Play("focus")),
        ("spread", Play("spread")),
        ("hold", Play(hold=True)),
        ("flee at serious", Play(flee="serious")),
        ("Focus, flee at Critical", Play("focus", flee="Critical")),
        ("harm 2 anomalies", Play(harm="2 anomalies")),
    ],
)
def test_parse_play(text: str, play: Play) -> None:
    assert parse_play(text) == play


def test_a_refused_play_is_quoted_as_typed() -> None:
    """Case kept, brackets as they are (never read as markup), control characters refused."""
    enc = build(*DUEL_2297)
    with pytest.raises(PlayError) as refused:
        parse_play("Hold[bold red]Boss[/]")
    assert str(refused.value).startswith("unknown play 'Hold[bold red]Boss[/]': use focus")
    with pytest.raises(forecast.ForecastError, match="flee at 'Bored': 2297 takes light"):
        forecast.read_plays(enc, {"ann": "Flee At Bored"})
    with pytest.raises(forecast.ForecastError, match="no combatant called 'Zed'"):
        forecast.read_plays(enc, forecast.parse_plays_text("Zed=HOLD"))
    with pytest.raises(forecast.ForecastError, match=r"control character \(\\x1b\); retype"):
        forecast.parse_plays_text("ann=hold\x1b[31m")
    # any case plays alike, and the assumptions say the play as typed
    typed = forecast.read_plays(enc, {"bob": "Flee At Light"})
    plain = forecast.read_plays(enc, {"bob": "flee at light"})
    assert forecast.forecast(enc, 10, 1, typed, processes=1) == forecast.forecast(
        enc, 10, 1, plain, processes=1
    )
    assert "Bob: flee at Light" in forecast.assumptions(enc, typed, 1)


def test_bad_plays_are_refused_in_one_line() -> None:
    enc = build(*DUEL_2297)
    with pytest.raises(PlayError, match="unknown play 'charge'"):
        parse_play("charge")
    with pytest.raises(forecast.ForecastError, match="flee at 'bored': 2297 takes light"):
        forecast.read_plays(enc, {"ann": "flee at bored"})
    with pytest.raises(forecast.ForecastError, match="no combatant"):
        forecast.read_plays(enc, {"zed": "hold"})
    with pytest.raises(forecast.ForecastError, match="NAME=PLAY"):
        forecast.parse_play_option("ann")
    with pytest.raises(forecast.ForecastError, match="2297 plays no harm of its own"):
        forecast.read_plays(enc, {"bob": "harm 2 weapons"})
    facility = build(*DUEL_FACILITY)
    with pytest.raises(forecast.ForecastError, match="unknown hazard 'smells'"):
        forecast.read_plays(facility, {"bob": "harm 2 smells"})
    with pytest.raises(forecast.ForecastError, match="at least 1 wound"):
        forecast.read_plays(facility, {"bob": "harm 0 weapons"})


def test_a_fight_of_one_side_is_refused() -> None:
    with pytest.raises(forecast.ForecastError, match="every combatant is on one side"):
        forecast.forecast(build("new 2297 Alone", "add Ann side=pc"), 5, 1, processes=1)
    with pytest.raises(forecast.ForecastError, match="no combatants"):
        forecast.forecast(build("new 2297 Empty"), 5, 1, processes=1)


@settings(max_examples=10, deadline=None)
@given(
    hlt=st.integers(5, 40),
    skill=st.integers(0, 20),
    damage=st.sampled_from(["1d6", "2d6+2", "3d6", "1d1+30"]),
    inits=st.tuples(st.integers(0, 45), st.integers(0, 45)),
    seed=st.integers(0, 2**32),
)
def test_any_duel_adds_up(
    hlt: int, skill: int, damage: str, inits: tuple[int, int], seed: int
) -> None:
    enc = build(
        "new 2297 Any",
        f'add Ann side=pc init={inits[0]} hlt={hlt} skill={skill} weapon="Gun {damage} SA 9"',
        f'add Bob side=enemy init={inits[1]} hlt={hlt} skill={skill} weapon="Gun {damage} SS"',
    )
    tally = forecast.forecast(enc, 4, seed, processes=1)
    assert tally.runs == sum(tally.wins.values()) == 4
    # no winner: a play stopped (rounds, stalled), or both fell (bleeding, a death countdown)
    assert sum(tally.stops.values()) <= tally.wins[""]
    for cid in tally.ids:
        assert tally.dying[cid] <= tally.out[cid] <= 4
        assert sum(tally.ends[cid].values()) == 4
    assert sum(tally.first.values()) <= 4
    assert sum(sum(c.values()) for c in tally.rounds.values()) == 4 - tally.wins[""]


def save_of(tmp_path: Path, lines: tuple[str, ...]) -> Path:
    return saved_fight(tmp_path / "fight.toml", *lines)


def test_cli_forecast_reads_a_held_save_and_changes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = save_of(tmp_path, (*DUEL_2297, "start"))
    before = path.read_bytes()
    listing = sorted(p.name for p in tmp_path.iterdir())
    with store.lock_save(path, "another window"):
        assert main(["forecast", str(path), "--runs", "40", "--seed", "3", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["runs"] == 40 and data["seed"] == 3
    assert data["sides"][PCS]["win"]["count"] + data["sides"][ENEMIES]["win"]["count"] == 40
    assert path.read_bytes() == before
    # (the save untouched; beside it only the campaign's forecast ledger, which keeps it)
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([*listing, "ledger.toml"])
    opened = store.open_save(path, keep_aside=False)
    assert opened.session.encounter.round == 1


def test_cli_forecast_text_and_markdown(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = save_of(tmp_path, DUEL_FACILITY)
    assert main(["forecast", str(path), "--runs", "20", "--play", "bob=focus"]) == 0
    out = capsys.readouterr().out
    assert "PCs win" in out and "Bob: focus" in out
    assert main(["forecast", str(path), "--runs", "20", "--md"]) == 0
    assert "| combatant | down or out |" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--runs", "0"], "--runs must be from 1"),
        (["--play", "zed=hold"], "no combatant"),
        (["--play", "bob=dance"], "unknown play 'dance'"),
    ],
)
def test_cli_forecast_refusals_are_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str], message: str
) -> None:
    path = save_of(tmp_path, DUEL_FACILITY)
    assert main(["forecast", str(path), *args]) == 1
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


def test_cli_forecast_of_a_missing_save_exits_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["forecast", str(tmp_path / "none.toml")]) == 2
    assert capsys.readouterr().err.count("\n") == 1
