"""The command line's preview and the quick keys' prefill, driven by keys through Pilot on a
temporary save folder (issue 15)."""

from __future__ import annotations

from pathlib import Path

from facility_tui.screens.main import MainScreen
from facility_tui.screens.widgets.command_bar import CommandBar

from facility_tui.app import FacilityApp
from facility_tui.systems.r2297.sheet import Sheet2297
from tests.apps import AppMaker


def bar(app: FacilityApp) -> CommandBar:
    assert isinstance(app.screen, MainScreen)
    return app.screen.query_one(CommandBar)


def line_shown(app: FacilityApp) -> str:
    """The command bar's line as drawn: the typed text and its preview."""
    b = bar(app)
    return b.render_line(0).text


async def test_damage_prompt_previews_the_hit_and_enter_applies_it(
    tmp_path: Path, make_app: AppMaker
) -> None:
    app = make_app()
    async with app.run_test(size=(100, 24), notifications=True) as pilot:
        await pilot.press("s", "j", "j", "d")  # Boarder 1 (Vacsuit 10/20, Health 20)
        assert bar(app).value == "hit boarder-1 "
        assert bar(app).preview.startswith("hit WHO DAMAGE")  # the usage until it reads
        await pilot.press("1", "2")
        said = "→ 9 gets through · Moderate · −2d6 init, Disadv. 1d6+1 rounds"
        assert bar(app).preview == said
        assert said in line_shown(app)
        before = app.workspace.encounter
        assert app.workspace.encounter is before  # typing changed nothing
        await pilot.press("enter")
        await pilot.pause()
        s = app.workspace.encounter.get("boarder-1").sheet
        assert isinstance(s, Sheet2297)
        assert (s.damage, [i.level.word for i in s.injuries]) == (9, ["Moderate"])
        assert bar(app).preview == "" and bar(app).value == ""


async def test_junk_on_the_command_line_previews_nothing_harmful(
    tmp_path: Path, make_app: AppMaker
) -> None:
    app = make_app()
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await pilot.press("s")
        before = app.workspace.encounter
        await pilot.press("colon")
        for junk in ("hit [bold]x 12", "attack ]]] 3d6", "zzz", "hit boarder-1 1d999999", "harm x"):
            bar(app).value = ""
            bar(app).insert_text_at_cursor(junk)
            await pilot.pause()
            assert junk in line_shown(app)  # drawn as typed (no markup), the preview after it
        assert bar(app).preview == ""  # 'harm' is Facility's: no usage of another system
        assert not app._notifications  # no toast while typing
        await pilot.press("escape")
        assert app.workspace.encounter is before
        assert bar(app).preview == ""


async def test_t_names_the_acting_attacker_and_the_selected_target_2297(
    tmp_path: Path, make_app: AppMaker
) -> None:
    app = make_app()
    async with app.run_test(size=(100, 24), notifications=True) as pilot:
        await pilot.press("t")  # setup: no one acts; the cursor waits for the attacker
        assert (bar(app).value, bar(app).cursor_position) == ("attack  sgt-blanc ", 7)
        await pilot.press("escape", "s", "t")  # Sgt. Blanc acts and is selected
        assert bar(app).value == "attack sgt-blanc "
        await pilot.press("escape", "j", "t")
        assert bar(app).value == "attack sgt-blanc aspirant-cassart "
        assert "TN 20" in bar(app).preview and "Major spent" in bar(app).preview
        await pilot.press("enter")
        await pilot.pause()
        s = app.workspace.encounter.get("sgt-blanc").sheet
        assert isinstance(s, Sheet2297) and s.spent_major == 1
        await pilot.press("escape")  # the menu of Cassart's Edge: left open
        before = app.workspace.encounter
        await pilot.press("t", "enter")  # no Major left: refused, one line, nothing changed
        await pilot.pause()
        assert [n.message for n in app._notifications if "'free'" in n.message]
        assert app.workspace.encounter is before


async def test_t_in_facility_names_the_selected_of_the_acting_side_the_attacker(
    tmp_path: Path,
    make_app: AppMaker,
) -> None:
    """A side's turn has no one combatant acting: one of that side selected is the attacker
    (the GM types the target, as 2297's acting one); one of the other side is the target, and
    the cursor waits in the attacker's place."""
    app = make_app(demo="facility")
    async with app.run_test(size=(100, 24), notifications=True) as pilot:
        await pilot.press("s")
        enc = app.workspace.encounter
        assert enc.current is not None and not enc.has(enc.current)  # a side's turn
        ours = next(c.id for c in enc.combatants if c.side == enc.current)
        theirs = next(c.id for c in enc.combatants if c.side != enc.current)
        table = app.screen.table  # type: ignore[attr-defined]
        assert table.move_to(ours)
        await pilot.press("t")
        assert (bar(app).value, bar(app).cursor_position) == (f"strike {ours} ", len(ours) + 8)
        await pilot.press("escape")
        assert table.move_to(theirs)
        await pilot.press("t")
        assert (bar(app).value, bar(app).cursor_position) == (f"strike  {theirs} ", 7)
