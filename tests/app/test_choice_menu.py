"""A pending choice is a small menu on the spot (issue 23): a command that leaves a choice open
(Facility's deal or crit, miss or Salvage, ablate or suffer, a Partial's backlash; 2297's Edge
soak) shows it at once, and a 2297 action refused for want of one offers the downgrade. Each
option is on its key, the rules' default on enter, escape leaves it open. Choosing runs the
option's line as if typed: the state, the log and the history are those of the line typed, and
undo takes it back (without offering the menu again). Keys typed in a burst act in order."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from facility_tui.screens.choice_menu import ChoiceMenu
from facility_tui.screens.dialogs import ConfirmDialog, EndTurnDialog
from facility_tui.screens.help import key_rows
from facility_tui.screens.main import MainScreen
from facility_tui.screens.widgets.command_bar import CommandBar
from facility_tui.screens.widgets.key_bar import KeyBar
from textual.command import CommandPalette
from textual.pilot import Pilot
from textual.widgets import Label

from facility_tui import cli, store
from facility_tui.app import FacilityApp
from facility_tui.model.view import Choice
from facility_tui.systems import rules_for
from tests.app.test_key_order import burst, settled

LAB = [
    "new facility Lab seed=1",
    'add Ana side=pc phy=1 sci=0 ins=0 adm=0 nor=0 ppe="Respirator,Surgical Mask" weapon=pistol',
    "add Drone track=3 weapon=smg",
    "start first=pc",
]
DUEL = ["new 2297 Duel seed=11", "add A side=pc edge=2 sta=100 init=20", "add B init=10"]
SLOW = ["new 2297 Duel seed=11", "add A side=pc init=5", "add B init=2", "start"]


def typed(line: str) -> str:
    """The keys that type ``line`` on the command line and run it (for ``burst``)."""
    return " ".join(["colon", *("space" if c == " " else c for c in line), "enter"])


# (setup, the keys that leave the choice open, its title, its options' keys)
SCENARIOS = {
    "facility hit": (LAB, typed("strike ana drone d20=20"), "Ana: hit: deal or crit", "dc"),
    "facility miss": (LAB, typed("strike ana drone d20=1"), "Ana: missed: miss or salvage", "ms"),
    "facility failed save": (
        LAB,
        typed("harm ana 2 contaminants d20=1"),
        "Ana: 2 contaminants wounds, ablate or suffer",
        "12s",
    ),
    "facility backlash": (
        [*LAB, "strike ana drone d20=20"],
        typed("crit ana d20=1"),
        "Ana: a Partial: suffers the enemy's damage, no save",
        "1234",
    ),
    "2297 edge": (
        [*DUEL, "start", "next"],
        typed("hit a 10"),
        "A may lower the Serious injury with 1 Edge (has 2)",
        "et",
    ),
    "2297 downgrade by key": (
        SLOW,
        "3",
        "A has no Minor action left: downgrade one (A4, once per turn)?",
        "12",
    ),
    "2297 downgrade typed": (
        SLOW,
        typed("minor"),
        "A has no Minor action left: downgrade one (A4, once per turn)?",
        "12",
    ),
}


def save_of(tmp_path: Path, setup: list[str], name: str = "f") -> Path:
    save = tmp_path / f"{name}.toml"
    assert cli.apply_cmd(save, setup, seed=3, quiet=True) == 0
    return save


def app_for(save: Path) -> FacilityApp:
    return FacilityApp(open_file=save, clock=lambda: "12:00:00")


def menu_of(app: FacilityApp) -> Choice | None:
    return app.screen.choice if isinstance(app.screen, ChoiceMenu) else None


def main_of(app: FacilityApp) -> MainScreen:
    (main,) = [s for s in app.screen_stack if isinstance(s, MainScreen)]
    return main


def open_choices(app: FacilityApp) -> tuple[Choice, ...]:
    enc = app.workspace.encounter
    return rules_for(enc.system).choices.open(enc)


def undo_lines(app: FacilityApp) -> list[str]:
    return [s.line for s in app.workspace.session.undo_steps]


async def opened(pilot: Pilot[None], keys: str) -> Choice:
    """Press ``keys`` (in one burst) and return the menu they open."""
    app = pilot.app
    assert isinstance(app, FacilityApp)
    await settled(pilot)
    burst(app, keys)
    await settled(pilot)
    choice = menu_of(app)
    assert choice is not None
    return choice


def cases() -> list[tuple[str, str]]:
    return [(name, k) for name, (*_, keys) in SCENARIOS.items() for k in [*keys, "enter"]]


@pytest.mark.parametrize(("scenario", "pressed"), cases())
async def test_each_option_by_its_key_or_enter_is_the_line_typed(
    tmp_path: Path, scenario: str, pressed: str
) -> None:
    setup, opener, title, keys = SCENARIOS[scenario]
    save = save_of(tmp_path, setup)
    twin = tmp_path / "twin.toml"
    shutil.copy(save, twin)
    # By the menu: the command and the option's key in one burst.
    app = app_for(save)
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await settled(pilot)
        before = app.workspace.encounter
        burst(app, f"{opener} {pressed}")
        await settled(pilot)
        follow = menu_of(app)  # the choice the option leaves open in turn (Salvage: a Partial)
        if follow is not None:
            burst(app, "escape")
            await settled(pilot)
        assert isinstance(app.screen, MainScreen)
        by_menu, by_menu_lines = app.workspace.encounter, undo_lines(app)
        assert by_menu is not before
        shown = app.workspace.encounter.log
    # Typed: the command, escape (the menu leaves the choice open), then the option's line.
    app = app_for(twin)
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        choice = await opened(pilot, opener)
        assert choice.title == title and "".join(o.key for o in choice.options) == keys
        at_choice = app.workspace.encounter
        option = choice.default if pressed == "enter" else choice.option(pressed)
        assert option is not None
        burst(app, "escape escape")  # (the second: out of a refused line kept to be corrected)
        await settled(pilot)
        assert menu_of(app) is None and app.workspace.encounter is at_choice
        if not scenario.startswith("2297 downgrade"):
            assert choice in open_choices(app)  # left open
        burst(app, typed(option.line))
        if scenario.startswith("2297 downgrade"):
            burst(app, "escape " + opener)  # (the refused line, typed again, runs now)
        await settled(pilot)
        assert menu_of(app) == follow
        if follow is not None:
            burst(app, "escape")
            await settled(pilot)
        assert app.workspace.encounter == by_menu
        assert undo_lines(app) == by_menu_lines
        assert app.workspace.encounter.log == shown
        assert choice not in open_choices(app)
        # Undo takes the choice back, and does not offer the menu again.
        steps = 2 if scenario.startswith("2297 downgrade") else 1
        burst(app, " ".join(["u"] * steps))
        await settled(pilot)
        assert app.workspace.encounter == at_choice
        assert menu_of(app) is None
        if not scenario.startswith("2297 downgrade"):
            assert choice in open_choices(app)


async def test_strike_then_choose_in_a_burst_is_the_same_keys_one_at_a_time(
    tmp_path: Path,
) -> None:
    """`j t 1 ⏎ 1 n`: select the drone, Ana strikes it (seed 1: a hit), the menu's first option
    (deal), the next turn: at once, one key at a time, and typed, the same fight."""
    keys = "j t 1 enter 1 n"
    results = []
    for how in ("burst", "one by one", "typed"):
        app = app_for(save_of(tmp_path, LAB, how.replace(" ", "-")))
        async with app.run_test(size=(80, 24), notifications=True) as pilot:
            await settled(pilot)
            if how == "burst":
                burst(app, keys)
            elif how == "one by one":
                for name in keys.split():
                    burst(app, name)
                    await settled(pilot)
            else:
                burst(app, typed("strike 1 drone") + " escape " + typed("deal ana") + " n")
            await settled(pilot)
            assert isinstance(app.screen, MainScreen)
            results.append((app.workspace.encounter, undo_lines(app)))
    assert results[0][1][-3:] == ["strike 1 drone", "deal ana", "next"]
    assert results[0] == results[1] == results[2]


async def test_hurried_keys_junk_is_ignored_enter_twice_chooses_once(tmp_path: Path) -> None:
    save = save_of(tmp_path, LAB)
    app = app_for(save)
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        choice = await opened(pilot, typed("strike ana drone d20=20"))
        at_choice = app.workspace.encounter
        # no option of this menu, none on the key bar (those act: see the test below)
        burst(app, "z 9 x ctrl+y space backspace tab A")
        await settled(pilot)
        assert menu_of(app) == choice and app.workspace.encounter is at_choice
        burst(app, "enter enter")
        await settled(pilot)
        assert undo_lines(app)[-2:] == ["strike ana drone d20=20", "deal ana"]
        assert isinstance(app.screen, MainScreen)


def bar_keys(app: FacilityApp) -> list[str]:
    """The keys the key bar lists now (as a click on each would press them)."""
    return [key for _, _, key in main_of(app).query_one(KeyBar)._spans]


@pytest.mark.parametrize("scenario", ["facility hit", "2297 edge"])
async def test_every_key_the_bar_shows_over_a_menu_acts(tmp_path: Path, scenario: str) -> None:
    """While a menu is open the key bar lists its keys, and each acts: ⏎ the default, escape
    leaves the choice open, : opens the command line (the choice left open, what is typed after
    it on the line, not on the options' keys), n ends the turn (asking first, and n again ends
    it, when the choice would stay open; an Edge offer lapses with the turn), u takes back the
    command that opened the menu, q saves and quits."""
    setup, opener, *_ = SCENARIOS[scenario]
    save = save_of(tmp_path, setup)
    for key in ["bar", "enter", "escape", "colon", "n", "u", "q"]:
        copy = tmp_path / f"{key}.toml"
        shutil.copy(save, copy)
        app = app_for(copy)
        async with app.run_test(size=(80, 24), notifications=True) as pilot:
            await settled(pilot)
            before = app.workspace.encounter
            choice = await opened(pilot, opener)
            at_choice = app.workspace.encounter
            if key == "bar":
                await pilot.pause()
                assert bar_keys(app) == ["enter", "escape", "colon", "n", "u", "q"]
                continue
            if key == "colon":  # (and the letters after it, typed as fast)
                burst(app, "colon d a 1")
                await settled(pilot)
                bar = main_of(app).query_one(CommandBar)
                assert bar.has_focus and bar.value == "da1"
                assert app.workspace.encounter is at_choice and choice in open_choices(app)
                assert menu_of(app) is None
                continue
            burst(app, key)
            if key == "q":
                for _ in range(50):
                    await pilot.pause()
                assert app.return_code == 0  # quitting, the fight written
                continue
            await settled(pilot)
            lines = undo_lines(app)
            if key == "enter":
                assert lines[-1] == choice.default.line and choice not in open_choices(app)
            elif key == "escape":
                assert app.workspace.encounter is at_choice and choice in open_choices(app)
            elif key == "u":
                assert app.workspace.encounter == before and isinstance(app.screen, MainScreen)
            elif choice.lapses:  # n: the turn's end settles it (A7: the offer lapses)
                assert lines[-1] == "next" and choice not in open_choices(app)
            else:  # n: asked first; n again ends the turn, the choice left open
                assert isinstance(app.screen, EndTurnDialog) and lines[-1] != "next"
                assert bar_keys(app) == ["n", "escape"]
                burst(app, "n")
                await settled(pilot)
                assert undo_lines(app)[-1] == "next" and choice in open_choices(app)
            assert menu_of(app) is None
    assert store.load(tmp_path / "q.toml").encounter == at_choice


async def test_a_double_tapped_n_on_an_open_choice_ends_the_turn(tmp_path: Path) -> None:
    """escape leaves a hit open; `n n` then ends the turn (the first asks, the second answers
    what the key bar says n does), and escape on the question goes back to the turn."""
    app = app_for(save_of(tmp_path, LAB))
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        choice = await opened(pilot, typed("strike ana drone d20=20"))
        burst(app, "escape n escape")
        await settled(pilot)
        assert isinstance(app.screen, MainScreen) and undo_lines(app)[-1] != "next"
        burst(app, "n n")
        await settled(pilot)
        assert undo_lines(app)[-1] == "next" and choice in open_choices(app)
        assert isinstance(app.screen, MainScreen)


@pytest.mark.parametrize("system", ["facility", "2297"])
async def test_escape_twice_leaves_the_choice_open_and_m_offers_it_again(
    tmp_path: Path, system: str
) -> None:
    setup, opener = (
        (LAB, typed("harm ana 2 contaminants d20=1"))
        if system == "facility"
        else ([*DUEL, "start", "next"], typed("hit a 10"))
    )
    app = app_for(save_of(tmp_path, setup))
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        choice = await opened(pilot, opener)
        main = main_of(app)
        burst(app, "escape escape")
        await settled(pilot)
        assert menu_of(app) is None and choice in open_choices(app)
        assert "mChoose" in str(main.query_one("#keys").render())
        assert any(
            k == "m" and w.startswith("Choose: the open choice's menu") for k, w in key_rows(main)
        )  # in ? help
        burst(app, "m")
        await settled(pilot)
        assert menu_of(app) == choice
        burst(app, "escape n")
        await settled(pilot)
        if system == "facility":  # n asks, as before
            assert isinstance(app.screen, ConfirmDialog)
            burst(app, "n")
            await settled(pilot)
        else:  # an Edge offer lapses at the turn's end: n does not ask
            assert isinstance(app.screen, MainScreen) and undo_lines(app)[-1] == "next"
            assert choice not in open_choices(app)
            assert "mChoose" not in str(main.query_one("#keys").render())
            burst(app, "m")  # nothing open: nothing to offer
            await settled(pilot)
            assert isinstance(app.screen, MainScreen)


async def test_the_menu_shows_names_and_lines_as_plain_text_within_its_width(
    tmp_path: Path,
) -> None:
    long = "[b]Boss[/b] " + "Q" * 27
    setup = [
        "new facility Lab seed=1",
        f"add '{long}' side=pc phy=1 ppe=Respirator weapon=pistol",
        "add Drone track=3",
        "start first=pc",
    ]
    app = app_for(save_of(tmp_path, setup))
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        who = app.workspace.encounter.combatants[0].id
        choice = await opened(pilot, typed(f"harm {who} 2 contaminants d20=1"))
        await pilot.pause()
        title, *options, _hint = app.screen.query(Label)
        assert long in str(title.render())
        for option, label in zip(choice.options, options, strict=True):
            # never cut mid-word: the label whole, the line it runs whole or left out
            shown = " ".join(label.render_line(y).text.strip() for y in range(label.size.height))
            assert option.label in shown and "…" not in shown
            assert shown.endswith((f"  ({option.line})", option.label))
            assert label.size.width <= 80 and label.region.right <= 80
            for y in range(label.size.height):
                line = label.render_line(y)
                assert line.cell_length <= label.size.width
                assert all(not segment.control for segment in line)
        assert choice.default.line in option_text(options[-1])


def option_text(label: Label) -> str:
    return str(label.render())


async def test_the_palette_fills_in_whose_choice_waits(tmp_path: Path) -> None:
    app = app_for(save_of(tmp_path, [*LAB, "harm ana 2 contaminants d20=1"]))
    async with app.run_test(size=(100, 30), notifications=True) as pilot:
        await settled(pilot)
        await pilot.press("ctrl+p")
        await pilot.pause()
        assert isinstance(app.screen, CommandPalette)
        await pilot.press(*"suffer")
        for _ in range(50):  # the providers search in a worker
            await pilot.pause(0.02)
            if app.screen.query_one("CommandList").option_count:
                break
        await pilot.press("enter")
        await pilot.pause()
        if isinstance(app.screen, CommandPalette):  # (enter highlighted the first)
            await pilot.press("enter")
            await pilot.pause()
        assert main_of(app).query_one(CommandBar).value == "suffer ana "


async def test_a_refused_action_says_why_and_offers_the_downgrade(tmp_path: Path) -> None:
    """A4: 3 on a Slow combatant is refused (the toast says why and names the downgrade), and
    the downgrade's menu opens; escape leaves everything as it was, enter downgrades the Move
    and spends the Minor asked for."""
    app = app_for(save_of(tmp_path, SLOW))
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        before = app.workspace.encounter
        choice = await opened(pilot, "3")
        toasts = [n.message for n in app._notifications]
        assert any("no Minor action left" in t and "down move minor" in t for t in toasts)
        assert choice.default.line == "down move minor"
        burst(app, "escape")
        await settled(pilot)
        assert app.workspace.encounter is before and isinstance(app.screen, MainScreen)
        burst(app, "3 enter")
        await settled(pilot)
        assert undo_lines(app)[-2:] == ["down move minor", "minor"]
        assert not list(app._notifications)  # the refusal, corrected, is gone


# -- d names the harm's source (by=) ------------------------------------------------------------

RAID = [
    "new facility Raid seed=1",
    "add Ana side=pc",
    "add Bo side=pc",
    "add Drone weapon=smg track=3",
    "add Crawler weapon=smg track=3",
    "start first=enemy",
]


async def test_d_on_each_pc_in_the_enemies_turn_names_each_enemy_and_spends_its_mark(
    tmp_path: Path,
) -> None:
    """F7: `d` on a PC in the enemies' turn starts `harm PC ␣ by=ENEMY`, the cursor where the
    GM types the amount; the harm spends that enemy's Attack mark, so the next `d` names the
    next enemy, and none once every enemy has attacked. Typed by hand, a second `by=` for the
    same enemy is refused."""
    app = app_for(save_of(tmp_path, RAID))
    async with app.run_test(size=(100, 30), notifications=True) as pilot:
        await settled(pilot)
        main = main_of(app)
        bar = main.query_one(CommandBar)
        for target, source in (("ana", "drone"), ("bo", "crawler")):
            assert main.table.move_to(target)
            await pilot.press("d")
            await pilot.pause()
            assert bar.value == f"harm {target}  by={source}"
            assert bar.cursor_position == len(f"harm {target} ")
            await pilot.press(*"1 weapons", "enter")
            await settled(pilot)
            enc = app.workspace.encounter
            assert enc.get(source).sheet.attack_used
            assert undo_lines(app)[-1].startswith(f"harm {target} 1 weapons by={source}")
        assert main.table.move_to("ana")
        await pilot.press("d")
        await pilot.pause()
        assert bar.value == "harm ana "  # every enemy has attacked: no source to name
        await pilot.press("escape")
        before = app.workspace.encounter
        await pilot.press("colon", *"harm bo 1 weapons by=drone", "enter")
        await settled(pilot)
        assert app.workspace.encounter == before
        assert "already attacked" in " ".join(str(n.message) for n in app._notifications)
