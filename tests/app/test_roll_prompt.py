"""Table dice in the app: a prompt asks for each roll the GM types (issue 12), keys in order."""

from __future__ import annotations

from pathlib import Path

from facility_tui.screens.main import MainScreen
from facility_tui.screens.roll_prompt import RollPrompt
from textual import events
from textual.widgets import Label

from facility_tui.app import FacilityApp
from facility_tui.commands.dispatch import apply
from tests.apps import AppMaker

KEYS = {
    "⏎": ("enter", "\r"),
    " ": ("space", " "),
    "\x1b": ("escape", "\x1b"),
    "\x7f": ("backspace", "\x7f"),
}


def burst(app: FacilityApp, keys: str) -> None:
    """Queue keys as a fast typist does: all before the first has been handled."""
    for char in keys:
        app.post_message(events.Key(*KEYS.get(char, (char, char))))


async def settle(pilot) -> None:  # type: ignore[no-untyped-def]
    await pilot.pause()
    assert pilot.app.workspace.flush(5.0)
    await pilot.pause()


def main(app: FacilityApp) -> MainScreen:
    screen = app.screen_stack[1]
    assert isinstance(screen, MainScreen)
    return screen


async def open_demo(pilot, mode: str) -> None:  # type: ignore[no-untyped-def]
    await settle(pilot)
    if mode != "app":
        assert main(pilot.app).run_line(f"tabledice {mode}")
    main(pilot.app).table.move_to("boarder-1")
    await pilot.pause()


async def test_a_hit_asks_each_roll_and_the_faces_typed_fast_land_in_order(
    tmp_path: Path, make_app: AppMaker
) -> None:
    app = make_app()
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await open_demo(pilot, "all")
        before = app.workspace.encounter
        burst(app, "d10⏎3 5⏎4⏎")  # Boarder 1: 10 raw → 8 through its vacsuit: Moderate
        await settle(pilot)
        assert isinstance(app.screen, MainScreen)
        expected = apply(before, "hit boarder-1 10 dice=3,5,4").encounter
        assert app.workspace.encounter == expected
        assert app.workspace.session.undo_steps[-1].line == "hit boarder-1 10 dice=3,5,4"
        texts = [e.text for e in app.workspace.encounter.log]
        assert "Boarder 1 initiative reduction: 2d6 (3, 5) = 8 (typed)" in texts
        assert "Boarder 1 Disadvantage rounds: 1d6 (4) + 1 = 5 (typed)" in texts


async def test_the_prompt_names_the_roll_and_takes_a_sum(
    tmp_path: Path, make_app: AppMaker
) -> None:
    app = make_app()
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await open_demo(pilot, "pcs")
        assert main(app).run_line("hit boarder-1 10")  # an enemy's rolls: the tracker's (pcs)
        assert isinstance(app.screen, MainScreen)
        assert main(app).run_line("tabledice all")
        before = app.workspace.encounter
        burst(app, "d10⏎")
        await settle(pilot)
        assert isinstance(app.screen, RollPrompt)
        question = str(app.screen.query_one("#roll-what", Label).render())
        assert question == "Boarder 1 — initiative reduction, 2d6:"
        burst(app, "13⏎")  # not a sum of 2d6: refused, the prompt stays
        await settle(pilot)
        assert isinstance(app.screen, RollPrompt) and app.workspace.encounter == before
        assert any("13 is not a sum of 2 dice" in n.message for n in app._notifications)
        burst(app, "\x7f\x7f8⏎")  # backspace twice, then the sum
        await settle(pilot)
        question = str(app.screen.query_one("#roll-what", Label).render())
        assert question == "Boarder 1 — Disadvantage rounds, 1d6+1:"
        burst(app, "6⏎")
        await settle(pilot)
        assert isinstance(app.screen, MainScreen)
        assert app.workspace.session.undo_steps[-1].line == "hit boarder-1 10 dice=4,4,6"
        assert app.workspace.encounter == apply(before, "hit boarder-1 10 dice=4,4,6").encounter


async def test_enter_with_nothing_lets_the_tracker_roll(tmp_path: Path, make_app: AppMaker) -> None:
    app = make_app()
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await open_demo(pilot, "all")
        before = app.workspace.encounter
        burst(app, "d10⏎⏎⏎")
        await settle(pilot)
        assert isinstance(app.screen, MainScreen)
        assert app.workspace.session.undo_steps[-1].line == "hit boarder-1 10 dice=?,?,?"
        assert app.workspace.encounter == apply(before, "hit boarder-1 10").encounter
        assert not any("typed" in e.text for e in app.workspace.encounter.log[len(before.log) :])


async def test_escape_cancels_and_changes_nothing(tmp_path: Path, make_app: AppMaker) -> None:
    app = make_app()
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await open_demo(pilot, "all")
        before = app.workspace.encounter
        burst(app, "d10⏎3 5⏎\x1b")
        await settle(pilot)
        assert isinstance(app.screen, MainScreen)
        assert app.workspace.encounter == before
        assert any("changed nothing" in n.message for n in app._notifications)


async def test_keys_after_the_last_answer_go_to_the_list(
    tmp_path: Path, make_app: AppMaker
) -> None:
    app = make_app()
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await open_demo(pilot, "all")
        burst(app, "d10⏎8⏎4⏎x")  # x (remove the selected) asks once the hit is in
        await settle(pilot)
        assert app.workspace.session.undo_steps[-1].line == "hit boarder-1 10 dice=4,4,4"
        assert "Remove Boarder 1?" in str(app.screen.query_one(Label).render())


async def test_a_pcs_bleeding_tick_is_asked_at_the_start_of_its_turn(
    tmp_path: Path, make_app: AppMaker
) -> None:
    app = make_app()
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await settle(pilot)
        for line in (
            "new 2297 Bleed",
            "add Ana side=pc init=12",
            "add Bo init=8",
            "start",
            "hit ana 18",  # Critical (18 of Health 20): bleeds 1d6 at each of her turns
            "tabledice pcs",
        ):
            assert main(app).run_line(line), line
        ws = app.workspace
        damage = ws.encounter.get("ana").sheet.damage
        burst(app, "nnn")  # Bo's turn; round 2, Bo first (Ana's initiative is 0); Ana bleeds
        await settle(pilot)
        assert isinstance(app.screen, RollPrompt)
        assert str(app.screen.query_one("#roll-what", Label).render()) == "Ana — bleeding, 1d6:"
        burst(app, "4⏎")
        await settle(pilot)
        assert isinstance(app.screen, MainScreen)
        assert ws.encounter.get("ana").sheet.damage == damage + 4
        assert ws.session.undo_steps[-1].line == "next dice=4"
        assert "Ana bleeding: 1d6 (4) = 4 (typed)" in [e.text for e in ws.encounter.log]
