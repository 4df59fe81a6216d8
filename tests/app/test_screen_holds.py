"""Issue 21: the screen holds. Through both demo fights, at 80x24, 120x40 and 200x50, with every
command's usage on the command line, previews of real commands, refusals in toasts (one with a
dialog open, one from the table dice' prompt) and the palette: after each step every strip of
every visible widget is as wide as its region and free of control characters, and the bytes the
app writes, replayed on a model terminal, never scroll the screen, never break a row in two and
leave the rows the app composed (the status line on row 1, no row twice, the key bar whole)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from facility_tui.screens.main import MainScreen
from facility_tui.screens.render.lines import fit, text_lines
from facility_tui.screens.widgets.command_bar import SHRINK_AFTER, CommandBar
from facility_tui.screens.widgets.order_list import OrderList
from hypothesis import given
from hypothesis import strategies as st
from rich.console import Console
from rich.segment import Segment
from rich.text import Text
from textual import events
from textual.pilot import Pilot
from textual.strip import Strip

from facility_tui.app import FacilityApp
from facility_tui.commands import dispatch
from facility_tui.systems import rules_for
from tests.apps import AppMaker
from tests.screen_check import (
    CONTROL,
    Terminal,
    record,
    screen_lines,
    strip_faults,
    toasts_cut,
    toasts_over_fields,
)

SIZES = [(80, 24), (120, 40), (200, 50)]
CONSOLE = Console(width=80)
ANY_TEXT = st.text(st.characters(codec="utf-8"), max_size=120)  # control characters too


@given(ANY_TEXT, st.integers(1, 100), st.booleans())
def test_text_lines_stay_in_their_width_and_never_hold_a_control(
    plain: str, width: int, no_wrap: bool
) -> None:
    text = Text(plain, style="bold", no_wrap=no_wrap, overflow="ellipsis", end="\n")
    text.append("\x1b[2J")  # an escape, as an old save's name could hold
    lines = text_lines(CONSOLE, text, width)
    assert lines
    for line in lines:
        assert line.cell_length <= width
        assert not any(seg.control or CONTROL.search(seg.text) for seg in line), list(line)


@given(ANY_TEXT, st.integers(1, 100))
def test_fit_gives_exactly_the_width_and_drops_line_ends(plain: str, width: int) -> None:
    rendered = Strip(CONSOLE.render(Text(plain)))  # Rich ends it with a newline segment
    line = fit(rendered, width)
    assert line.cell_length == width
    assert not any(seg.control or CONTROL.search(seg.text) for seg in line), list(line)
    if "\n" not in plain:  # (one inside the text is shown escaped, as any control character)
        assert "\\x0a" not in line.text  # Rich's line end is dropped, not shown


def test_a_line_without_controls_is_kept_as_it_is() -> None:
    line = Strip([Segment("Sgt. Blanc · PC")])
    assert fit(line, line.cell_length) is line


def verbs(system: str) -> list[str]:
    """Every command an encounter of ``system`` takes, from the rule system's own table."""
    return [spec.verb for spec in (*dispatch.common(), *rules_for(system).commands)]


class Screen:
    """The app under test, checked after each step."""

    def __init__(self, app: FacilityApp, pilot: Pilot[None], terminal: Terminal) -> None:
        self.app, self.pilot, self.terminal = app, pilot, terminal
        self.steps = 0

    @property
    def bar(self) -> CommandBar:
        assert isinstance(self.app.screen, MainScreen)
        return self.app.screen.query_one(CommandBar)

    async def check(self, step: str) -> None:
        await self.pilot.pause()  # (and the frame after the last message)
        self.steps += 1
        faults = strip_faults(self.app) + self.terminal.faults
        assert not faults, (step, faults[:4])
        shown = screen_lines(self.app)
        assert self.terminal.rows() == shown, (step, self.terminal.rows(), shown)
        assert not toasts_cut(self.app), (step, toasts_cut(self.app))
        assert not toasts_over_fields(self.app), (step, toasts_over_fields(self.app))

    async def keys(self, step: str, *keys: str) -> None:
        await self.pilot.press(*keys)
        await self.check(step)

    async def line(self, text: str, *keys: str) -> None:
        """Type ``text`` on the command line (opened and left open), then ``keys`` (a key at a
        time costs the test ~50 ms: the rest is put in at once, as a paste would)."""
        if not self.bar.has_focus:
            await self.pilot.press("colon")
        self.bar.value = ""
        self.bar.insert_text_at_cursor(text)
        await self.pilot.press(*keys)
        await self.check(f"typed {text!r} {keys}")

    async def run(self, text: str) -> None:
        await self.line(text)
        await self.keys(f"ran {text!r}", "enter")

    async def paste(self, step: str, *opener: str) -> None:
        """Open a field (``opener``) and paste text with control characters into it: an
        escape sequence, a tab, a bell (keys cannot type them; a paste can)."""
        await self.pilot.press(*opener)
        focused = self.app.screen.focused
        assert focused is not None
        focused.post_message(events.Paste("a\x1b[2J\tb\x07c\x9b1m"))
        await self.check(step)
        await self.keys(f"{step}: closed", "escape")

    async def every_usage(self, system: str, who: str) -> None:
        """Each verb typed and a space: its usage (or what it would do), then with a name."""
        for verb in verbs(system):
            await self.line(verb, "space")
            await self.line(f"{verb} {who} 3")
        await self.keys("escape from the line", "escape")


@pytest.mark.parametrize("size", SIZES)
async def test_the_2297_fight_holds(
    tmp_path: Path, make_app: AppMaker, size: tuple[int, int]
) -> None:
    app = make_app(demo="2297")
    async with app.run_test(size=size, notifications=True) as pilot:
        s = Screen(app, pilot, record(app))
        await s.check("opened")
        await s.keys("start", "s")
        await s.every_usage("2297", "boarder-1")
        await s.keys("f then 16", "f", "1", "6")  # first aid's refusal, on the line
        await s.keys("escape", "escape")
        await s.keys("attack preview", "j", "j", "t")  # the acting one attacks Boarder 1
        await s.keys("attack run", "enter")
        await s.run("hit nobody 5")  # refused: a toast
        await s.keys("escape", "escape")
        await s.keys("add dialog", "a")
        await pilot.press(*"Thug", "tab", "tab", *"99999")
        await s.keys("add refused with the dialog open", "enter")
        await s.keys("add dialog closed", "escape")
        await s.run("tabledice all")
        await s.run("roll 1d10")
        await s.keys("a roll prompt refused", "5", "5", "enter")
        await s.keys("the prompt cancelled", "escape")
        await s.run("tabledice app")
        await s.run("hit boarder-1 40")
        await s.run("hit boarder-1 80")  # dying, then dead
        for turn in range(8):
            await s.keys(f"turn {turn}", "n")
        await s.keys("the log full", "l")
        await s.keys("the log back", "l")
        await s.keys("help", "question_mark")
        await s.keys("help closed", "escape")
        await s.paste("a paste on the command line", "colon")
        await s.paste("a paste in the add dialog", "a")
        await s.paste("a paste in the palette", "ctrl+p")
        assert s.steps > 2 * len(verbs("2297"))


@pytest.mark.parametrize("size", SIZES)
async def test_the_facility_fight_holds(
    tmp_path: Path, make_app: AppMaker, size: tuple[int, int]
) -> None:
    app = make_app(demo="facility")
    async with app.run_test(size=size, notifications=True) as pilot:
        s = Screen(app, pilot, record(app))
        await s.check("opened")
        await s.keys("start", "s")
        await s.every_usage("facility", "anne-o-malley")
        await s.line("strike anne-o-malley containment-drone-1 ")
        await s.keys("escape", "escape")
        await s.run("harm anne-o-malley 2 contaminants save=fail")  # ablate or suffer, open
        await s.keys("its menu left open", "escape")
        await s.keys("its menu again", "m")
        await s.keys("its menu: a junk key", "z")
        await s.keys("its menu left open again", "escape")
        await s.keys("palette", "ctrl+p")
        await s.keys("palette: suff", *"suff")
        await s.keys("palette: suffer started", "enter")
        await s.keys("escape", "escape")
        await s.run("suffer anne-o-malley")
        await s.run("wound anne-o-malley 3")  # impaired
        await s.run("wound containment-drone-1 4")
        await s.run("wound nobody 3")  # refused: a toast
        await s.keys("escape", "escape")
        for turn in range(4):
            await s.keys(f"turn {turn}", "n")
        assert s.steps > 2 * len(verbs("facility"))


def shown_in(app: FacilityApp, widget: CommandBar) -> str:
    """What the composed screen shows in ``widget``'s region, its lines joined by spaces."""
    x, y, width, height = widget.region
    rows = screen_lines(app)[y : y + height]
    return " ".join(" ".join(row[x : x + width] for row in rows).split())


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
async def test_the_attack_preview_wraps_rather_than_being_cut(
    tmp_path: Path, make_app: AppMaker, size: tuple[int, int]
) -> None:
    app = make_app(demo="2297")
    async with app.run_test(size=size) as pilot:
        s = Screen(app, pilot, record(app))
        await s.keys("the acting one attacks Boarder 1", "s", "j", "j", "t")
        said = s.bar.preview
        assert "dmg 5d6+1 (+1d6 at MoS 5, +2d6 at 10)" in said  # what the GM checks
        assert f"{s.bar.value.strip()} {said}" in shown_in(app, s.bar)
        assert s.bar.region.height == (2 if size[0] == 80 else 1)
        await s.keys("run", "enter")  # the line is done: the bar is one line again
        assert s.bar.region.height == 1
        await s.line("attack", "space")  # a usage longer than the screen is wide
        assert s.bar.preview.startswith("attack WHO TARGET [TARGET ...]")
        assert f"attack {s.bar.preview}" in shown_in(app, s.bar)
        assert s.bar.region.height > 1


async def test_the_screen_above_the_command_line_holds_still_while_the_gm_types(
    tmp_path: Path,
    make_app: AppMaker,
) -> None:
    """The bar grows as its preview needs lines and shrinks when the line is emptied or closed,
    or once the GM stops typing: a digit that makes a two-line usage a one-line preview moves
    nothing above it while the GM types, and the blank row goes after a moment."""
    app = make_app(demo="2297")
    async with app.run_test(size=(80, 24)) as pilot:
        s = Screen(app, pilot, record(app))
        await s.keys("start, then d for the acting one", "s", "d")
        assert s.bar.preview.startswith("hit WHO DAMAGE")  # (the usage: two lines at 80)
        assert s.bar.region.height == 2
        above = s.app.screen.query_one(OrderList).region
        await s.keys("a digit", "1", "2")
        assert s.bar.preview.startswith("→")  # (the preview: one line)
        assert f"{s.bar.value.strip()} {s.bar.preview}" in shown_in(app, s.bar)
        assert s.bar.region.height == 2
        assert s.app.screen.query_one(OrderList).region == above
        await asyncio.sleep(SHRINK_AFTER + 0.2)  # the GM stops typing: the blank row goes
        await s.check("a moment without a key")
        assert s.bar.region.height == 1
        assert f"{s.bar.value.strip()} {s.bar.preview}" in shown_in(app, s.bar)
        await s.keys("emptied", *["backspace"] * len(s.bar.value))
        assert s.bar.region.height == 1
        await s.keys("typed again, then closed", *"hit sgt-blanc 5", "escape")
        assert s.bar.region.height == 1


async def test_each_error_of_a_config_file_is_shown_whole(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text('[keys]\njump = "space"\nnext = "d"\n', encoding="utf-8")
    app = FacilityApp(save_dir=tmp_path / "saves", seed=1, config=path)
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await pilot.pause()
        said = [n.message for n in app._notifications if "/config.toml" in n.message]
        assert len(said) == 2 and "[keys] jump" in said[0] and "[keys] next" in said[1]
        assert not toasts_cut(app)
        assert not toasts_over_fields(app)


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
async def test_a_refusal_in_a_dialog_is_read_whole_and_leaves_its_fields_clear(
    tmp_path: Path, make_app: AppMaker, size: tuple[int, int]
) -> None:
    app = make_app(demo="2297")
    async with app.run_test(size=size, notifications=True) as pilot:
        await pilot.press("a", *"Thug", "tab", "tab", *"99999", "enter")
        await pilot.pause()
        assert [n.message for n in app._notifications] == [
            "Thug initiative must be at most 9999, got 99999"
        ]
        assert not toasts_cut(app) and not toasts_over_fields(app)
        await pilot.press("escape", "colon", *"tabledice all", "enter", "colon", *"roll 1d10")
        await pilot.press("enter", "3", "space", "4", "enter")  # two faces for one die
        await pilot.pause()
        assert any(n.message.endswith("not 2 numbers") for n in app._notifications)
        assert not toasts_cut(app) and not toasts_over_fields(app)


def old_save(folder: Path) -> Path:
    """A save written before input refused control characters, with the longest names and
    notes the bounds allow."""
    from facility_tui import store
    from tests.system.test_output_safety import hostile_save

    path = folder / "old.toml"
    s = hostile_save(path)
    s.apply("add " + "W" * 40 + " side=pc init=7")  # a name with no room to break
    s.apply("note " + "w" * 40 + " " + "long, " * 49)
    s.apply("start")
    store.save(s, path)
    return path


@pytest.mark.parametrize("size", SIZES)
async def test_an_old_save_with_control_characters_holds_in_the_tracker_and_the_player_view(
    tmp_path: Path, make_app: AppMaker, size: tuple[int, int]
) -> None:
    from facility_tui.app import WatchApp
    from facility_tui.workspace import Workspace

    path = old_save(tmp_path)
    app = make_app(open_file=path)
    async with app.run_test(size=size, notifications=True) as pilot:
        s = Screen(app, pilot, record(app))
        await s.check("opened")
        for key in ("j", "j", "l", "l", "n", "i", "i"):
            await s.keys(key, key)
    ws = Workspace(path.parent, role="facility-tui watch")
    ws.open_read_only(path)
    watch = WatchApp(ws, clock=lambda: "12:00:00")
    async with watch.run_test(size=size) as pilot:
        terminal = record(watch)
        await pilot.pause()
        assert not strip_faults(watch) + terminal.faults
        assert terminal.rows() == screen_lines(watch)
        assert any("Evil\\x1b[31m" in row for row in screen_lines(watch))  # shown escaped
