"""What the GM's panes say (issue 15): the rules' ``panes`` / ``reminders`` data against values
worked out by hand from docs/rules.md, then the same on the main screen (Pilot, on tmp_path
saves)."""

from __future__ import annotations

from pathlib import Path

from attrs import evolve
from facility_tui.screens.choice_menu import ChoiceMenu
from facility_tui.screens.main import MainScreen
from hypothesis import given
from hypothesis import strategies as st

from facility_tui.app import FacilityApp
from facility_tui.commands.session import Session
from facility_tui.model.text import Detail, Tone
from facility_tui.model.view import Bar, Boxes, Pane, Row
from facility_tui.store import blank
from facility_tui.systems import rules_for
from facility_tui.systems.r2297.rules import injury_thresholds
from tests.apps import AppMaker


def run_left_open(screen: MainScreen, line: str) -> bool:
    """Run ``line``; the menu of a choice it leaves open is left open (escape)."""
    ok = screen.run_line(line)
    if isinstance(screen.app.screen, ChoiceMenu):
        screen.app.screen.dismiss(None)
    return ok


def play(*lines: str) -> Session:
    s = Session(evolve(blank(), seed=5))
    for line in lines:
        s.execute(line)
    return s


def panes(s: Session, cid: str) -> dict[str, Pane]:
    enc = s.encounter
    return {p.title.split(" · ")[0]: p for p in rules_for(enc.system).view.panes(enc, enc.get(cid))}


def row(pane: Pane, label: str) -> Row:
    return next(r for r in pane.rows if r.label == label)


def said(pane: Pane, label: str) -> str:
    found = row(pane, label)
    assert isinstance(found, Detail | Boxes | Bar)
    return found.text


def boxes(pane: Pane, label: str) -> tuple[int, int, int]:
    """A row of boxes as (left ■, spent □, not granted ·)."""
    b = row(pane, label)
    assert isinstance(b, Boxes)
    return b.full, b.empty, b.absent


DUEL = ("new 2297 Duel seed=5", "add A side=pc init=12 hlt=20 sta=20", "add B init=5")


# -- 2297 -----------------------------------------------------------------------------------------


def test_A4_actions_pane_boxes_of_the_acting_turn() -> None:
    """Normal band (12): Major 1 Move 1 Minor 1; a spent Major shows spent (□), the rest left."""
    s = play(*DUEL, "start")
    acts = panes(s, "a")["Actions"]
    assert [boxes(acts, k) for k in ("Major", "Move", "Minor", "React")] == [(1, 0, 0)] * 4
    assert acts.title == "Actions · Normal 12"
    s.execute("major")
    acts = panes(s, "a")["Actions"]
    assert boxes(acts, "Major") == (0, 1, 0)
    assert said(acts, "Left") == "Major 0 · Move 1 · Minor 1"


def test_A4_serious_injury_allows_one_action_in_all() -> None:
    """11 of Health 20 is Serious (A7: 2 × 11 ≥ 20): one action in all, no Reactions (A4). The
    boxes the band grants stay, but the words say one action; once it is spent, nothing is left."""
    s = play(*DUEL, "start", "hit a 11 through dice=3,4,4")
    acts = panes(s, "a")["Actions"]
    assert said(acts, "Limit") == "1 action in all (Serious)"
    assert said(acts, "Left").startswith("1 action: Major or Move or Minor")
    assert boxes(acts, "React") == (0, 0, 1)  # not granted while Serious
    s.execute("move")
    acts = panes(s, "a")["Actions"]
    assert said(acts, "Left") == "nothing"
    assert [boxes(acts, k) for k in ("Major", "Move", "Minor")] == [(0, 0, 1), (0, 1, 0), (0, 0, 1)]


def test_A4_after_its_turn_the_pane_says_turn_over_and_next_turn() -> None:
    """B (Slow 5) acts after A; once A's turn is over the pane says so and its boxes are next
    turn's allowance (Normal 12: 1/1/1), said to be that."""
    s = play(*DUEL, "start")
    acts = panes(s, "b")["Actions"]
    assert said(acts, "Turn") == "later this round; it grants"
    assert [boxes(acts, k) for k in ("Major", "Move", "Minor")] == [(1, 0, 0), (1, 0, 0), (0, 0, 1)]
    s.execute("major")
    s.execute("next")
    acts = panes(s, "a")["Actions"]
    assert said(acts, "Turn") == "over; its next turn grants"
    assert [boxes(acts, k) for k in ("Major", "Move", "Minor")] == [(1, 0, 0)] * 3


def test_A4_fatigued_loses_a_move() -> None:
    """Fatigue 10 of Stamina 20 is Fatigued (A9: 2 × 10 ≥ 20): it loses one Move (default)."""
    s = play(*DUEL, "fatigue a 10", "start")
    acts = panes(s, "a")["Actions"]
    assert boxes(acts, "Move") == (0, 0, 1)
    assert said(acts, "Limit") == "Fatigued (loses a Move)"


def test_A7_health_bar_marks_at_the_one_hit_thresholds() -> None:
    """Health 30: a hit of 8 (4 × 8 ≥ 30) is Moderate, 15 Serious, 23 (4 × 23 ≥ 90) Critical,
    30 Lethal; damage and stun are the bar's two parts (A8)."""
    s = play("new 2297 T seed=5", "add A side=pc init=12 hlt=30", "start", "hit a 3 through stun")
    s.execute("hit a 6 through dice=2")
    injury = panes(s, "a")["Injury"]
    bar = row(injury, "Health")
    assert isinstance(bar, Bar)
    assert bar.marks == ((8, "Mod"), (15, "Ser"), (23, "Crit"), (30, "Leth"))
    assert (bar.value, bar.extra, bar.maximum, bar.text) == (6, 3, 30, "9/30")
    assert said(injury, "Damage") == "9/30 (3 stun), down 30, dying 60"
    assert said(injury, "Level") == "Light (round 1)"


def test_A7_timed_effects_show_their_rounds_left() -> None:
    """Moderate: Disadvantage for 1d6+1 rounds, counted on the pane (dice 2,2 → −4 initiative,
    disadvantage die 3 → 4 rounds)."""
    s = play(*DUEL, "start", "hit b 6 through dice=2,2,3")
    effects = [r.text for r in panes(s, "b")["Effects"].rows if r.label.startswith("Effect")]
    assert "Disadvantage (4 rounds left)" in effects


def test_A9_fatigue_bar_marks_and_state_word() -> None:
    """Stamina 20: Fatigued at 10, Exhausted at 20, Unconscious at 40."""
    s = play(*DUEL, "fatigue a 12")
    fatigue = panes(s, "a")["Fatigue"]
    bar = row(fatigue, "Fatigue")
    assert isinstance(bar, Bar)
    assert bar.marks == ((10, "Fat"), (20, "Exh"), (40, "Unc")) and bar.maximum == 40
    assert said(fatigue, "State") == "Fatigued (loses a Move)"
    assert bar.tone is Tone.WARN


def test_C2_reminders_of_a_bleeding_combatant_at_its_turn_start() -> None:
    """A Serious injury bleeds 1 a round (A7): at A's next turn the bleeding applied is said,
    with the rounds it has left; a death countdown is said too."""
    s = play(*DUEL, "start", "hit a 11 through dice=3,4,4", "next")
    rules = rules_for("2297")
    assert rules.view.reminders(s.encounter) == []  # B's turn: nothing to remind
    s.execute("next")
    assert s.encounter.current == "a"
    (bleed,) = rules.view.reminders(s.encounter)
    assert bleed.text == "A bleeds 1 (Serious injury, 4 more rounds) at the start of this turn"
    assert bleed.tone is Tone.BAD
    s.execute("hit b 40 through dice=3")  # twice B's Health: dying, 1d6+1 = 4 rounds
    assert s.encounter.current == "a"
    dying = Detail("Dying", "B dies in 4 rounds unless stabilized", Tone.BAD)
    assert dying in rules.view.reminders(s.encounter)  # (B's own turns pass by themselves)


def test_C2_disadvantage_ending_this_turn_is_a_reminder() -> None:
    """A Light injury: Disadvantage on the next turn only; that turn says it ends then."""
    s = play(*DUEL, "start", "next", "hit a 4 through dice=1", "next")
    assert s.encounter.current == "a"
    texts = [d.text for d in rules_for("2297").view.reminders(s.encounter)]
    assert "A's ends at the end of this turn" in texts


# -- Facility -------------------------------------------------------------------------------------

PARTY = (
    "new facility Lab seed=5",
    'add Ana side=pc phy=1 sci=0 ins=0 adm=0 nor=0 ppe="Respirator"',
    "add Drone track=3",
)


def test_F4_wound_tracks_boxes_impaired_and_scar() -> None:
    """Physique +1: capacity 4; Science 0 with a scar: capacity 2, 2 wounds → Impaired."""
    s = play(*PARTY, "wound ana 1 phy", "sheet ana sci_scars=1", "wound ana 2 sci")
    wounds = panes(s, "ana")["Wounds"]
    assert boxes(wounds, "Phy +1") == (1, 3, 0)
    assert said(wounds, "Phy +1") == "1/4"
    assert boxes(wounds, "Sci +0") == (2, 0, 0)
    assert said(wounds, "Sci +0") == "2/2 Impaired scar 1"
    assert row(wounds, "Sci +0").tone is Tone.BAD  # type: ignore[union-attr]
    assert said(wounds, "Status") == "Impaired (1 Impaired)"
    track = panes(play(*PARTY, "wound drone 2"), "drone")["Wounds"]
    assert boxes(track, "Track") == (2, 1, 0) and said(track, "Track") == "2/3"


def test_F6_ppe_marks_of_their_rating() -> None:
    """A failed Contaminants save ablated on the Respirator (rating 2): one mark of two."""
    s = play(*PARTY, "start", "harm ana 1 contaminants d20=1", "ablate ana")
    saves = panes(s, "ana")["Saves and PPE"]
    assert boxes(saves, "Respirator") == (1, 1, 0)
    assert said(saves, "Respirator").startswith("1/2 marks")


def test_F5_a_pending_ablate_or_suffer_shows_until_settled() -> None:
    s = play(*PARTY, "start first=pc", "harm ana 1 contaminants d20=1")
    pending = panes(s, "ana")["Pending"]
    assert "ablate ana (Respirator) or suffer ana" in said(pending, "Harm")
    reminders = rules_for("facility").view.reminders(s.encounter)
    assert any(d.text == "Ana: 1 contaminants wound, ablate or suffer" for d in reminders)
    s.execute("suffer ana")
    assert "Pending" not in panes(s, "ana")
    assert not any("ablate" in d.text for d in rules_for("facility").view.reminders(s.encounter))


def test_F7_marks_as_boxes() -> None:
    s = play(*PARTY, "start first=pc", "strike ana drone d20=15")
    marks = panes(s, "ana")["Marks"]
    assert boxes(marks, "Attack") == (0, 1, 0) and boxes(marks, "Other") == (1, 0, 0)


# -- on the screen --------------------------------------------------------------------------------


def shown(app: FacilityApp) -> str:
    main = app.screen
    assert isinstance(main, MainScreen)
    return str(main.query_one("#detail").render())


async def run_lines(app: FacilityApp, *lines: str) -> None:
    main = app.screen
    assert isinstance(main, MainScreen)
    for line in lines:
        assert run_left_open(main, line), line


async def test_2297_panes_on_the_screen(tmp_path: Path, make_app: AppMaker) -> None:
    app = make_app()
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await run_lines(app, *DUEL, "start", "fatigue a 2", "hit a 11 through dice=3,4,4")
        await pilot.pause()
        text = shown(app)
        assert "Actions · Normal 12" in text and "Limit: 1 action in all (Serious)" in text
        assert "╵5" in text and "╵10" in text  # the A7 marks of Health 20
        assert "State: Fatigued" in text
        await pilot.press("1")  # the one action: a Major
        await pilot.pause()
        text = shown(app)
        assert "Major □" in text and "Left: nothing" in text
        for _ in range(2):
            await pilot.press("n")
        await pilot.pause()
        assert app.workspace.encounter.current == "a"
        text = shown(app)
        assert "▶ A's turn" in text
        assert "Bleeding: A bleeds 1 (Serious\n    injury" in text  # (wrapped under itself)


async def test_facility_panes_on_the_screen(tmp_path: Path, make_app: AppMaker) -> None:
    app = make_app()
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await run_lines(
            app,
            *PARTY,
            "start",
            "sheet ana nor_scars=1",
            "wound ana 3 nor",
            "harm ana 1 contaminants d20=1",
        )
        main = app.screen
        assert isinstance(main, MainScreen)
        main.table.move_to("ana")
        await pilot.pause()
        text = shown(app)
        assert "Nor +0 ■■ 2/2 Impaired scar 1" in text and "Phy +1 ■□□□ 1/4" in text  # (spilled)
        assert "Harm: 1 contaminants wound: ablate\n  ana" in text  # (wrapped under itself)
        assert "Respirator □□ 0/2 marks" in text
        await run_lines(app, "ablate ana")
        await pilot.pause()
        text = shown(app)
        assert "Harm:" not in text and "Respirator ■□ 1/2 marks" in text


def test_bars_mark_their_thresholds_in_words_where_there_is_room() -> None:
    """Health 32 (A7: 8, 16, 24, 32): the ruler ticks each mark under the cell it is reached in;
    a wide column labels them, a narrow one gives their values; the glyphs say filled or not."""
    from facility_tui.screens.widgets.panes import bar_rows

    health = Bar(
        "Health", 16, 32, ((8, "Mod"), (16, "Ser"), (24, "Crit"), (32, "Leth")), "18/32", extra=2
    )
    wide = [t.plain for t in bar_rows(health, 57)]
    assert wide[0].startswith("Health  " + "█" * 20 + "▓" * 3 + "░" * 17) and wide[0].endswith(
        " 18/32"
    )
    assert wide[1] == " " * 17 + "╵8 Mod    ╵16 Ser   ╵24 Crit  ╵32 Leth"
    narrow = [t.plain for t in bar_rows(health, 35)]
    assert narrow[1].split() == ["╵8", "╵16", "╵24", "╵32"]


@given(st.integers(1, 120), st.integers(20, 60))
def test_A7_every_thresholds_value_shows_under_its_bar(health: int, width: int) -> None:
    """Every mark's value is on a ruler, under the cell it is reached in, at any width the
    panes' column takes (Health 15 at 80 columns lost its 12: `╵4   ╵8   ╵  ╵15`): where the
    values do not fit on one ruler, two rulers take turns."""
    from facility_tui.screens.widgets.panes import BAR_LABEL, bar_rows

    marks = tuple((v, "") for _, v in injury_thresholds(health))
    bar, *rulers = [
        t.plain for t in bar_rows(Bar("Health", 0, health, marks, f"0/{health}"), width)
    ]
    cells = len(bar) - len(f" 0/{health}") - BAR_LABEL
    assert 1 <= len(rulers) <= 2
    ticks: dict[int, int] = {}  # each cell's first mark (two in one cell: one tick)
    for value, _ in marks:
        ticks.setdefault(BAR_LABEL + max(0, -(-value * cells // health) - 1), value)
    for tick, value in ticks.items():
        assert any(r[tick : tick + 1 + len(str(value))] == f"╵{value}" for r in rulers), rulers


def test_F2_a_roll_waiting_for_its_salvage_shows_until_settled() -> None:
    s = play(*PARTY, "start first=pc", "try ana sci d20=2")
    assert said(panes(s, "ana")["Pending"], "Roll") == "failed roll: salvage?"
    s.execute("salvage ana d20=19")
    assert "Pending" not in panes(s, "ana")


def _drawn(s: Session) -> None:
    from facility_tui.screens.widgets.panes import pane_lines, reminder_lines

    enc = s.encounter
    rules = rules_for(enc.system)
    names = tuple(c.name for c in enc.combatants)
    for reminder in rules.view.reminders(enc):  # under the acting one's turn: each says whose it is
        assert reminder.text.startswith(names), reminder
    for width in (20, 36, 57):
        drawn = reminder_lines("turn", rules.view.reminders(enc), width)
        assert all(len(line.plain) <= width for line in drawn[1:])
        for c in enc.combatants:
            assert pane_lines(rules.view.panes(enc, c), width)


def test_every_combatant_has_panes_at_every_step_of_the_demo_fights() -> None:
    """The panes of every combatant, drawn at three widths, after each line of both demo fights
    and a 2297 fight taken to death (dying, dead, unconscious, Exhausted)."""
    from facility_tui.systems.facility.demo import DEMO_FACILITY, DEMO_FACILITY_FIGHT
    from facility_tui.systems.r2297.demo import DEMO_2297

    fights = [
        (*DEMO_FACILITY, *DEMO_FACILITY_FIGHT, "wound containment-drone-1 9", "end"),
        (
            *DEMO_2297,
            "start",
            "hit boarder-1 70 through",
            "fatigue sgt-blanc 31",
            "hit boarder-2 12 through stun",
            "next",
            "next",
            "next",
            "fatigue boarder-3 99",
            *["next"] * 24,
        ),
    ]
    for lines in fights:
        s = Session(evolve(blank(), seed=5))
        for line in lines:
            s.execute(line)
            _drawn(s)


def test_F12_a_barricade_track_is_a_bar() -> None:
    """A Barricade of [sum] 6 holds 60 wounds: a bar of 60, not sixty boxes."""
    s = play(*PARTY, "add Dale side=pc job=tech parts=3 clearance=1", "start first=pc")
    s.execute("tech dale barricade 1 name=Wall dice=6")
    (wall,) = [c for c in s.encounter.combatants if c.name == "Wall"]
    track = row(panes(s, wall.id)["Wounds"], "Track")
    assert isinstance(track, Bar) and (track.value, track.maximum, track.text) == (0, 60, "0/60")


async def test_J_and_K_page_the_panes_column_from_the_keyboard(
    tmp_path: Path, make_app: AppMaker
) -> None:
    """At 80×24 the sheet runs below the column: J pages down to it, K back (bare, twice, in a
    burst: past the ends they do nothing)."""
    from textual.containers import VerticalScroll

    app = make_app()
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await run_lines(app, *DUEL, "start", "hit a 11 through dice=3,4,4")
        await pilot.pause()
        box = app.screen.query_one("#detail-box", VerticalScroll)
        assert box.scroll_y == 0 and box.max_scroll_y > 0
        await pilot.press("J")
        await pilot.pause()
        assert box.scroll_y > 0
        await pilot.press(*"JJJJ")
        await pilot.pause()
        assert box.scroll_y == box.max_scroll_y
        await pilot.press(*"KKKKK")
        await pilot.pause()
        assert box.scroll_y == 0
        assert app.workspace.encounter.current == "a"  # nothing else moved


def test_a_long_row_wraps_under_itself() -> None:
    """A wrapped row keeps its words whole and indents its later lines under the first."""
    from facility_tui.screens.widgets.panes import hanging
    from rich.text import Text

    row = Text("Limit: one Minor only (Critical injury) and no Reactions at all")
    lines = [line.plain for line in hanging(row, 20)]
    assert lines == [
        "Limit: one Minor",
        "  only (Critical",
        "  injury) and no",
        "  Reactions at all",
    ]
    assert [line.plain for line in hanging(Text("short"), 20)] == ["short"]
    assert [t.plain for t in hanging(Text("x" * 25), 10)] == [
        "x" * 10,
        "  " + "x" * 8,
        "  " + "x" * 7,
    ]
    from rich.cells import cell_len

    wide = [t.plain for t in hanging(Text("Note: 漢字の名前 と 長い メモ です"), 12)]
    assert all(cell_len(line) <= 12 for line in wide)  # columns, not characters
    assert "".join(wide).replace(" ", "") == "Note:漢字の名前と長いメモです"


def test_C1_once_the_combat_has_ended_the_actions_pane_says_so() -> None:
    """After `end` the Actions pane said `Turn: its first turn will grant`."""
    s = Session(evolve(blank(), seed=1))
    for line in ("new 2297 T seed=1", "add A side=pc init=9", "add B init=5", "start", "end"):
        s.execute(line)
    text = " ".join(getattr(r, "text", "") for pane in panes(s, "a").values() for r in pane.rows)
    assert "combat has ended" in text and "will grant" not in text


def test_A3_an_initiative_not_yet_rolled_reads_as_such_not_as_0() -> None:
    """Added without init=, its initiative is rolled when its first round starts: until then the
    list's Init says `?` and the Actions pane says so (it read 0, a Slow 0)."""
    s = Session(evolve(blank(), seed=1))
    for line in ("new 2297 T seed=1", "add A side=pc init=9", "add Thug"):
        s.execute(line)
    rules = rules_for("2297")
    enc = s.encounter
    assert rules.view.list_row(enc, enc.get("thug"))["Init"] == "?"
    assert rules.view.list_row(enc, enc.get("a"))["Init"] == "9"
    assert panes(s, "thug")["Actions"].title.endswith("rolled when its round starts")
    s.execute("start")
    enc = s.encounter
    assert rules.view.list_row(enc, enc.get("thug"))["Init"] == str(enc.get("thug").initiative)
