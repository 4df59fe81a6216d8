"""The config file (keys by binding id, theme) and the command palette (ctrl+p)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from facility_tui.screens.main import QUICK_BINDINGS, MainScreen
from facility_tui.screens.widgets.command_bar import CommandBar
from facility_tui.screens.widgets.key_bar import KeyBar
from textual.command import CommandPalette
from textual.notifications import SeverityLevel

from facility_tui import config
from facility_tui.app import FacilityApp
from facility_tui.commands.dispatch import listed
from facility_tui.model.encounter import Phase
from facility_tui.systems import infos
from tests.apps import AppMaker
from tests.paths import ROOT

IDS = {"next": "n", "undo": "u,ctrl+z", "damage": "d", "palette": "ctrl+p"}
THEMES = {"textual-dark", "nord", "gruvbox"}


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "config.toml"
    path.write_text(text, encoding="utf-8")
    return path


# -- the file, without Textual ----------------------------------------------------------------


def test_a_config_maps_binding_ids_to_keys_and_picks_a_theme(tmp_path: Path) -> None:
    path = write(tmp_path, 'theme = "nord"\n[keys]\nnext = "space"\nundo = "u, ctrl+z"\n')
    cfg = config.load(path, IDS, THEMES)
    assert cfg.keymap == {"next": "space", "undo": "u,ctrl+z"}
    assert cfg.theme == "nord" and cfg.problems == ()


def test_each_wrong_entry_is_one_line_naming_the_file_and_the_key(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        'theme = "nrod"\ncolour = 1\n[keys]\nnxt = "space"\nundo = 3\nnext = "space"\n'
        'damage = "two words"\n',
    )
    cfg = config.load(path, IDS, THEMES)
    assert cfg.keymap == {"next": "space"} and cfg.theme is None  # the good entry is kept
    assert len(cfg.problems) == 5
    assert all(p.startswith(f"{path}: ") and "\n" not in p for p in cfg.problems)
    text = " | ".join(cfg.problems)
    for named in ("'nrod'", "did you mean nord", "colour", "[keys] nxt", "did you mean next"):
        assert named in text
    assert "[keys] undo" in text and "[keys] damage" in text


def test_a_broken_or_missing_file_gives_the_defaults_and_says_so(tmp_path: Path) -> None:
    cfg = config.load(write(tmp_path, "[keys\nnext = "), IDS, THEMES)
    assert cfg.keymap == {} and cfg.theme is None
    assert len(cfg.problems) == 1 and "not valid TOML" in cfg.problems[0]
    cfg = config.load(tmp_path / "nowhere.toml", IDS, THEMES)
    assert cfg.keymap == {} and "no such config file" in cfg.problems[0]


def test_two_ids_on_one_key_are_said(tmp_path: Path) -> None:
    cfg = config.load(write(tmp_path, '[keys]\nnext = "space"\nundo = "space"\n'), IDS, THEMES)
    assert any("space is also given to next" in p for p in cfg.problems)


def test_every_key_has_an_id_and_a_key_both_systems_use_has_one_id() -> None:
    assert all(b.id for b in MainScreen.BINDINGS if not isinstance(b, tuple))
    ids = [b.id for b in MainScreen.BINDINGS if not isinstance(b, tuple)]
    assert len(ids) == len(set(ids))
    for each in infos():
        for k in each.quick_keys:
            assert k.id and QUICK_BINDINGS[k.key].id == k.id, (each.id, k.key)


def test_the_cli_takes_a_config_file(tmp_path: Path) -> None:
    from facility_tui.arguments import parser

    ns = parser("run").parse_args(["run", "--config", str(tmp_path / "c.toml")])
    assert ns.config == tmp_path / "c.toml"


# -- in the app ---------------------------------------------------------------------------------


class Recording(FacilityApp):
    """The app, keeping the toasts it shows."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.toasts: list[str] = []

    def notify(
        self,
        message: str,
        *,
        title: str = "",
        severity: SeverityLevel = "information",
        timeout: float | None = None,
        markup: bool = False,
    ) -> None:
        self.toasts.append(message)
        super().notify(message, title=title, severity=severity, timeout=timeout, markup=markup)


def main(app: FacilityApp) -> MainScreen:
    assert isinstance(app.screen, MainScreen)
    return app.screen


async def test_a_key_remapped_in_the_config_acts_and_is_shown(tmp_path: Path) -> None:
    path = write(tmp_path, '[keys]\nnext = "space"\ndamage = "h"\n')
    app = Recording(save_dir=tmp_path / "saves", seed=1, config=path)
    async with app.run_test(size=(100, 30), notifications=True) as pilot:
        await pilot.pause()
        assert not any(str(path) in t for t in app.toasts)
        bar = main(app).query_one(KeyBar).text.plain
        assert "space Next" in bar and "hDamage" in bar and "nNext" not in bar
        assert bar.startswith("space Next")  # in its place, first, not moved to the end
        await pilot.press("s")
        enc = app.workspace.encounter
        assert enc.phase is Phase.ACTIVE
        await pilot.press("n")  # no longer a key
        assert app.workspace.encounter is enc
        await pilot.press("space")
        assert app.workspace.encounter.turn != enc.turn or app.workspace.encounter.round > 1
        await pilot.press("question_mark")
        await pilot.pause()
        rows = dict(main_rows(app))
        assert rows["space"] == "Next" and "h" in rows
        assert rows["ctrl+p"].startswith("Command palette")


def main_rows(app: FacilityApp) -> list[tuple[str, str]]:
    from facility_tui.screens.help import HelpScreen

    assert isinstance(app.screen, HelpScreen)
    return app.screen.keys


async def test_a_bad_config_opens_with_defaults_and_says_which_key(tmp_path: Path) -> None:
    path = write(tmp_path, '[keys]\nnxt = "space"\nnext = "d"\n')
    app = Recording(save_dir=tmp_path / "saves", seed=1, config=path)
    async with app.run_test(size=(100, 30), notifications=True) as pilot:
        await pilot.pause()
        assert any("[keys] nxt" in t and str(path) in t for t in app.toasts)
        assert any("[keys] next: d is already the key of damage" in t for t in app.toasts)
        await pilot.press("n")  # the default keys
        assert app.workspace.encounter.phase is Phase.ACTIVE

    broken = write(tmp_path, "theme = \n")
    app = Recording(save_dir=tmp_path / "saves", seed=1, config=broken)
    async with app.run_test(size=(100, 30), notifications=True) as pilot:
        await pilot.pause()
        assert [t for t in app.toasts if "not valid TOML" in t and str(broken) in t]
        assert isinstance(app.screen, MainScreen)


async def test_the_theme_of_the_config_is_applied(tmp_path: Path) -> None:
    path = write(tmp_path, 'theme = "nord"\n')
    app = Recording(save_dir=tmp_path / "saves", seed=1, config=path)
    async with app.run_test(size=(100, 30), notifications=True) as pilot:
        await pilot.pause()
        assert app.theme == "nord" and not any(str(path) in t for t in app.toasts)
        assert app.current_theme.name == "nord"


async def choose(pilot: Any, query: str) -> None:
    """ctrl+p, type ``query``, wait for the list, enter."""
    app = pilot.app
    await pilot.press("ctrl+p")
    await pilot.pause()
    assert isinstance(app.screen, CommandPalette)
    await pilot.press(*query)
    for _ in range(50):  # the providers search in a worker
        await pilot.pause(0.02)
        if app.screen.query_one("CommandList").option_count:
            break
    await pilot.press("enter")
    await pilot.pause()
    if isinstance(app.screen, CommandPalette):  # (enter highlighted the first; enter again)
        await pilot.press("enter")
        await pilot.pause()


async def test_the_palette_opens_the_command_line_with_a_command(
    tmp_path: Path, make_app: AppMaker
) -> None:
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        before = app.workspace.encounter
        await choose(pilot, "hit")
        assert isinstance(app.screen, MainScreen)
        bar = app.screen.query_one(CommandBar)
        assert bar.value == "hit " and app.screen.focused is bar
        # the keys typed in the palette were the palette's: nothing ran on the list
        assert app.workspace.encounter is before


async def test_keys_typed_in_the_palette_never_run_the_screens_keys(
    tmp_path: Path, make_app: AppMaker
) -> None:
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        before = app.workspace.encounter
        await pilot.press("ctrl+p", *"snuaxq?o:dt123")
        await pilot.pause()
        assert isinstance(app.screen, CommandPalette) and app.return_code is None
        assert app.workspace.encounter is before
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, MainScreen)


async def test_the_palette_selects_a_combatant(tmp_path: Path, make_app: AppMaker) -> None:
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        last = listed(app.workspace.encounter)[-1]
        assert main(app).table.cursor_key != last.id
        await choose(pilot, last.name)
        assert main(app).table.cursor_key == last.id


async def test_the_palette_opens_a_save_and_shows_names_as_text(
    tmp_path: Path, make_app: AppMaker
) -> None:
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        first = app.workspace.path
        await pilot.press("ctrl+n")
        await pilot.pause()
        await pilot.press(*"[b]Odd", "enter")  # a name with markup in it
        await pilot.pause()
        assert app.workspace.path != first
        await choose(pilot, "Open " + first.stem)
        assert app.workspace.path == first


def test_the_readme_example_config_is_valid(tmp_path: Path) -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Configuration", 1)[1]
    example = section.split("```toml\n", 1)[1].split("```", 1)[0]
    app = FacilityApp(save_dir=tmp_path)
    cfg = config.load(write(tmp_path, example), app.binding_ids(), app.available_themes)
    assert cfg.problems == () and cfg.theme and cfg.keymap["next"] == "space"
    ids = readme.split("The ids of the screen's keys are `", 1)[1].split("`", 1)[0].split()
    screen_ids = {b.id for b in MainScreen.BINDINGS if not isinstance(b, tuple)} | {"palette"}
    assert set(ids) == screen_ids - {k.id for each in infos() for k in each.quick_keys}
