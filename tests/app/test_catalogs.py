"""Catalogs as data (issue 24): the rules' weapons, PPE, storage items, jobs and scales shipped
as TOML in each rule system's package, a campaign's own ``catalogs/*.toml`` adding to them or
overriding them by name, each mistake refused with its file and line."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from facility_tui.systems.facility import rules
from tests.apps import AppMaker
from tests.paths import FIXTURES, ROOT

FIXTURE = FIXTURES / "catalog_constants.json"


def _figures() -> dict[str, Any]:
    """The Facility figures as the rules code sees them, in plain data."""

    def ppe(p: rules.PPEItem) -> dict[str, Any]:
        return {
            "number": p.number,
            "name": p.name,
            "rating": p.rating,
            "covers": sorted(p.covers),
            "bonuses": [list(b) for b in p.bonuses],
            "narrow": [list(b) for b in p.narrow],
            "impairs": p.impairs,
            "unless_armor": p.unless_armor,
            "notes": p.notes,
        }

    def wpn(w: rules.Weapon) -> dict[str, Any]:
        fields = ("key", "name", "count", "sides", "flat", "crit_count", "crit_sides")
        return {f: getattr(w, f) for f in (*fields, "gun", "consumable", "notes")}

    def job(k: str, j: rules.Job) -> dict[str, Any]:
        return {
            "key": k,
            "name": j.name,
            "saves": [getattr(j.saves, s) for s in rules.SAVES],
            "expertise": list(j.expertise),
            "ppe": list(j.ppe),
            "parts": j.parts,
            "clearance": j.clearance,
            "uniform": j.uniform,
        }

    return {
        "ppe": [ppe(p) for p in rules.PPE_CATALOG],
        "weapons": [wpn(w) for w in rules.WEAPONS.values()],
        "weapon_words": dict(sorted(rules._WEAPON_WORDS.items())),
        "jobs": [job(k, j) for k, j in rules.JOBS.items()],
        "job_words": dict(sorted(rules._JOB_WORDS.items())),
        "competence": {str(t): rules.competence(t) for t in range(3, 19)},
    }


def test_F6_F8_F12_F1_shipped_figures_are_the_former_constants() -> None:
    """The fixture was written from the Python constants before they moved to TOML: the numbers
    the rules use did not change in the move."""
    assert _figures() == json.loads(FIXTURE.read_text(encoding="utf-8"))


# -- the shipped catalogs' other figures ----------------------------------------------------------

from facility_tui.campaign.catalogs import campaign_catalogs, finder, load_text, shipped  # noqa: E402
from facility_tui.campaign.folder import Campaign  # noqa: E402
from facility_tui.systems.facility import catalogs as facility_catalogs  # noqa: E402
from facility_tui.systems.r2297 import catalogs as r2297_catalogs  # noqa: E402
from facility_tui.systems.r2297.rules import parse_armor  # noqa: E402
from facility_tui.systems.r2297.weapons import parse_weapons  # noqa: E402


def _by_name(system: str, package: str, kind: str) -> dict[str, dict[str, Any]]:
    return {e["name"]: e for e in shipped(package, system)[kind]}


def test_F11_storage_items_give_their_pockets_slots_and_bulk() -> None:
    items = _by_name("facility", facility_catalogs.PACKAGE, "storage")
    assert (items["Fanny Pack"]["pockets"], items["Fanny Pack"]["slots"]) == (2, 0)
    assert (items["Messenger Bag"]["slots"], items["Messenger Bag"]["pockets"]) == (2, 1)
    assert (items["Toolbox"]["slots"], items["Toolbox"]["bulky"]) == (3, True)
    assert (items["Briefcase"]["slots"], items["Briefcase"]["bulky"]) == (2, True)
    assert items["Coveralls"]["pockets"] == 6 and items["Sling"]["carries_bulky"]


def test_F8_the_rifle_is_bulky_the_pistol_is_not() -> None:
    assert rules.WEAPONS["rifle"].bulky and not rules.WEAPONS["pistol"].bulky


def test_A1_chapter_7_weapons_armor_and_chapter_6_cover_by_name() -> None:
    lookup = finder(lambda kind, name: None, "2297")
    (pam, fam) = parse_weapons("PAM9, fam-90", lookup)
    assert (pam.name, pam.damage, pam.modes, pam.ammo, pam.capacity) == (
        "PAM9",
        "3d6+2",
        ("SA",),
        17,
        17,
    )
    assert (fam.damage, fam.modes, fam.capacity) == ("5d6+1", ("SA", "BF", "AF"), 60)
    coat, typed = parse_armor("light armor coat, Helmet 10/20", lookup)
    assert (coat.name, coat.pt, coat.dr) == ("Light armor coat", 15, 20)
    assert (typed.name, typed.pt, typed.dr) == ("Helmet", 10, 20)
    cover = _by_name("2297", r2297_catalogs.PACKAGE, "cover")
    assert (cover["Partial"]["tn"], cover["Full"]["tn"]) == (5, 10)
    sample = {n: (e["pt"], e["dr"]) for n, e in cover.items() if not e["tn"]}
    assert sample == {
        "Flimsy": (5, 20),
        "Light": (10, 20),
        "Medium": (20, 40),
        "Tough": (30, 60),
        "Reinforced": (40, 80),
        "Impenetrable": (60, 100),
    }


# -- a campaign's own catalogs: mistakes, each with its line --------------------------------------

import pytest  # noqa: E402

GUNS = """\
system = "facility"

[[weapon]]
name = "Heavy Pistol"
damage = "1d6+1"
gun = true

[[weapon]]
name = "Flare gun"
damage = "lots"
gun = true
"""


def _write(folder: Path, name: str, text: str) -> None:
    (folder / "catalogs").mkdir(exist_ok=True)
    (folder / "catalogs" / name).write_text(text, encoding="utf-8")


def test_a_bad_entry_is_reported_with_its_line_and_the_rest_still_loads(tmp_path: Path) -> None:
    _write(tmp_path, "guns.toml", GUNS)
    got = campaign_catalogs(Campaign(tmp_path))
    assert [str(e) for e in got.errors] == [
        'catalogs/guns.toml:10: damage must be dice like 1d8 or a number like 3, got "lots"'
    ]
    assert [e["name"] for e in got.entries["facility/weapon"]] == ["Heavy Pistol"]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            'system = "facility"\n[[ppe]]\nname = "Visor"\nrating = "two"\n'
            'covers = ["explosions"]\n',
            'x.toml:4: rating must be a whole number from 1 to 99, got "two"',
        ),
        (
            'system = "facility"\n[[ppe]]\nname = "Visor"\nrating = 2\n',
            "x.toml:2: ppe needs covers",
        ),
        (
            'system = "facility"\n[[ppe]]\nname = "Visor"\nrating = 1\ncovers = ["weapons"]\n'
            "bonuses = { weapon = 1 }\n",
            "x.toml:6: bonuses may name only weapons, trauma, explosions, contaminants, anomalies, "
            "got { weapon = 1 }",
        ),
        (
            'system = "facility"\n[[ppe]]\nname = "Visor"\nrating = 1\ncovers = ["weapons"]\n'
            'impairs = "strength"\n',
            'x.toml:6: impairs must be one of , phy, sci, ins, adm, nor, got "strength"',
        ),
        (
            'system = "facility"\n\n[[weapon]]\nname = "Bat"\ndmg = "1d4"\n',
            "x.toml:5: weapon has no dmg (it has name, key, damage, crit, gun, bulky, consumable, "
            "aka, notes)",
        ),
        (
            'system = "facility"\n[[weapon]]\nname = "Bat"\ndamage = "1d4"\ngun = "yes"\n',
            'x.toml:5: gun must be true or false, got "yes"',
        ),
        (
            'system = "facility"\n[[weapon]]\nname = "Bat"\ndamage = "1d4"\ncrit = "3"\n',
            'x.toml:5: crit must be dice like 1d8, got "3"',
        ),
        (
            'system = "facility"\n[[storage]]\nname = "Crate"\nslots = -1\n',
            "x.toml:4: slots must be a whole number from 0 to 99, got -1",
        ),
        (
            'system = "facility"\n[[gadget]]\nname = "Crate"\n',
            "x.toml:2: facility catalogs hold [[weapon]], [[ppe]], [[storage]], [[job]], "
            "[[competence]], not gadget",
        ),
        ('system = "d&d"\n', 'x.toml:1: system must be "2297", "facility", got "d&d"'),
        ('[[weapon]]\nname = "Bat"\n', 'x.toml:1: system must be "2297", "facility", got None'),
        ('system = "facility"\n[[weapon\n', "x.toml:2: not TOML"),
        (
            'system = "2297"\n[[weapon]]\nname = "Rail"\ndamage = "4d6"\nmodes = "FULL"\n',
            'x.toml:5: modes must be fire modes like SA or SA/BF/AF, got "FULL"',
        ),
        (
            'system = "2297"\n[[armor]]\nname = "Shell"\npt = 10\ndr = 120\n',
            "x.toml:5: dr must be a whole number from 0 to 100, got 120",
        ),
        ('system = "2297"\n[[armor]]\nname = "Shell"\npt = 10\n', "x.toml:2: armor needs dr"),
        (
            'system = "2297"\n[[weapon]]\nname = "A"\ndamage = "1d6"\n[[weapon]]\nname = "a"\n'
            'damage = "1d8"\n',
            "x.toml:6: weapon a twice",
        ),
    ],
)
def test_hand_written_mistakes_are_each_refused_with_their_line(text: str, message: str) -> None:
    from facility_tui.campaign.catalogs import KINDS

    got = load_text(text, "x.toml", KINDS)
    assert len(got.errors) == 1
    assert str(got.errors[0]).startswith(message)


def test_a_catalog_of_rules_not_loaded_yet_is_no_mistake_and_the_systems_are_all_named() -> None:
    """One fight's rules loaded (a launch loads only those): a campaign's Facility catalog is
    read when Facility's rules load, not refused as of an unknown system; a file of no known
    system names every one, in the same order whatever was loaded first."""
    from facility_tui.campaign.catalogs import KINDS
    from facility_tui.systems import rules_for

    rules_for("2297")
    only = {"2297": KINDS["2297"]}
    got = load_text('system = "facility"\n[[weapon]]\nname = "Bat"\n', "x.toml", only)
    assert got.errors == [] and got.entries == {}
    got = load_text('system = "d&d"\n', "x.toml", only)
    assert str(got.errors[0]).startswith('x.toml:1: system must be "2297", "facility", got')


# -- a campaign's entries in commands, and their replay -------------------------------------------

from facility_tui.systems.facility.engine import sheet_of  # noqa: E402
from facility_tui.systems.facility.rules import save_value, weapon_of  # noqa: E402
from facility_tui.workspace import Workspace  # noqa: E402

GEAR = """\
system = "facility"

[[ppe]]
name = "Riot Shield"
rating = 2
covers = ["weapons"]
bonuses = { weapons = 1 }

[[ppe]]
name = "respirator"
rating = 3
covers = ["contaminants"]
bonuses = { contaminants = 2 }

[[weapon]]
name = "Heavy Pistol"
damage = "1d6+1"
crit = "1d8"
gun = true
"""

RAILS = """\
system = "2297"

[[weapon]]
name = "Rail carbine"
damage = "4d6+2"
modes = "SA/BF"
ammo = 20
type = "energy"

[[armor]]
name = "Medium combat armor"
pt = 30
dr = 45
"""


def _fresh(folder: Path, system: str) -> Workspace:
    ws = Workspace(folder, seed=1)
    ws.new_encounter(system, "Cellar")
    return ws


def test_F6_F8_a_campaign_entry_overrides_a_shipped_one_and_adds_new_ones(tmp_path: Path) -> None:
    _write(tmp_path, "gear.toml", GEAR)
    ws = _fresh(tmp_path, "facility")
    ws.execute('add Ana side=pc ppe="Riot Shield, Respirator, Hard Hat" weapon="Heavy Pistol"')
    s = sheet_of(ws.encounter.get("ana"))
    shield, respirator, hat = (p.item for p in s.ppe)
    assert (shield.name, shield.rating, respirator.rating, hat.rating) == ("Riot Shield", 2, 3, 1)
    assert respirator.name == "respirator"  # the campaign's spelling: its entry stands
    assert save_value(s, "weapons") == 1 and save_value(s, "contaminants") == 2
    w = weapon_of(s, s.weapons[0])
    assert (w.name, w.damage, w.crit_dice, w.gun) == ("Heavy Pistol", "1d6+1", "1d8", True)
    ws.close()


def test_A1_a_campaign_weapon_and_armor_override_by_name_in_add(tmp_path: Path) -> None:
    _write(tmp_path, "rails.toml", RAILS)
    ws = _fresh(tmp_path, "2297")
    ws.execute('add Vex weapon="rail carbine, PAM9" armor="medium combat armor"')
    s = ws.encounter.get("vex").sheet
    rail, pam = s.weapons
    assert (rail.name, rail.damage, rail.modes, rail.capacity, rail.kind.value) == (
        "Rail carbine",
        "4d6+2",
        ("SA", "BF"),
        20,
        "energy",
    )
    assert pam.damage == "3d6+2"  # the shipped one
    assert [(a.name, a.pt, a.dr) for a in s.armor] == [("Medium combat armor", 30, 45)]
    ws.close()


@pytest.mark.parametrize("system", ["facility", "2297"])
def test_a_used_entry_stays_as_read_when_the_catalog_changes(tmp_path: Path, system: str) -> None:
    """Replay-safety: the step keeps what it read, the sheet what it holds; the catalog file
    changed (or gone) afterwards changes nothing on reload, undo or redo."""
    if system == "facility":
        _write(tmp_path, "gear.toml", GEAR)
        line = 'add Ana side=pc ppe="Riot Shield" weapon="Heavy Pistol"'
    else:
        _write(tmp_path, "rails.toml", RAILS)
        line = 'add Vex weapon="Rail carbine" armor="Medium combat armor"'
    ws = _fresh(tmp_path, system)
    ws.execute(line)
    ws.execute("add Extra")
    before, path = ws.encounter, ws.path
    ws.save()
    ws.close()
    changed = (GEAR if system == "facility" else RAILS).replace("2", "7")
    _write(tmp_path, "gear.toml" if system == "facility" else "rails.toml", changed)
    again = Workspace(tmp_path, seed=1)
    again.open(path)
    assert again.encounter == before
    again.session.undo()
    again.session.undo()
    again.session.redo()
    again.session.redo()
    assert again.encounter == before
    (tmp_path / "catalogs" / ("gear.toml" if system == "facility" else "rails.toml")).unlink()
    again.session.undo()
    again.session.undo()
    again.session.redo()
    again.session.redo()
    assert again.encounter == before
    again.close()


# -- completion and browsing ------------------------------------------------------------------

from facility_tui.campaign.catalogs import complete  # noqa: E402


@pytest.mark.parametrize(
    ("system", "line", "done"),
    [
        ("facility", "add Ana weapon=sub", 'add Ana weapon="Submachine gun"'),
        ("facility", "add Ana weapon=pis", "add Ana weapon=Pistol"),
        ("facility", 'add Ana ppe="Hard Hat, resp', 'add Ana ppe="Hard Hat, Respirator"'),
        ("facility", "add Ana ppe=sec", 'add Ana ppe="Security '),  # Helmet or Vest: so far
        ("facility", "ppe ana wear haz", "ppe ana wear Hazmat Suit"),
        ("facility", "add Ana job=main", 'add Ana job="Maintenance Technician"'),
        ("facility", "add Ana weapon=zz", None),
        ("facility", "add Ana weapon=Pistol", None),  # already whole
        ("facility", "add Ana side=p", None),  # not a catalog's option
        ("2297", "add Vex weapon=fa", "add Vex weapon=FAM-90"),
        ("2297", "add Vex armor=med", 'add Vex armor="Medium combat armor"'),
        ("2297", "attack vex ana cover=fu", "attack vex ana cover=Full"),
    ],
)
def test_catalog_names_complete_on_the_command_line(system: str, line: str, done: str) -> None:
    assert complete(line, system, None) == done


def test_completion_knows_the_campaigns_names(tmp_path: Path) -> None:
    _write(tmp_path, "rails.toml", RAILS)
    assert complete("add Vex weapon=ra", "2297", Campaign(tmp_path)) == (
        'add Vex weapon="Rail carbine"'
    )


async def test_tab_completes_and_the_palette_browses_a_catalog(
    tmp_path: Path, make_app: AppMaker
) -> None:
    from facility_tui.screens.catalog_browser import CatalogScreen
    from facility_tui.screens.main import MainScreen
    from facility_tui.screens.widgets.command_bar import CommandBar
    from textual.widgets import Static

    _write(tmp_path, "rails.toml", RAILS)
    app = make_app(demo="2297")
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press(":", *"add Vex weapon=rai", "tab")
        bar = app.screen.query_one(CommandBar)
        assert bar.value == 'add Vex weapon="Rail carbine"'
        await pilot.press("escape")
        await pilot.press("ctrl+p", *"catalog: armor")
        await pilot.pause(0.5)
        await pilot.press("enter")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, CatalogScreen)
        rows = str(screen.query_one("#catalog-rows", Static).render())
        assert "Medium combat armor (campaign)" in rows and "pt 30 · dr 45" in rows
        assert "Light armor coat" in rows and "pt 15 · dr 20" in rows
        await pilot.press(*"coat")
        await pilot.pause()
        rows = str(screen.query_one("#catalog-rows", Static).render())
        assert "Light armor coat" in rows and "Medium" not in rows
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, MainScreen)


def test_validate_checks_a_campaigns_catalogs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import shutil

    from facility_tui.cli import main

    saves = FIXTURES / "saves"
    shutil.copy(saves / "v3-2297-hand-edit.toml", tmp_path / "deck.toml")
    _write(tmp_path, "rails.toml", RAILS)
    capsys.readouterr()
    assert main(["validate", str(tmp_path)]) == 0
    _write(tmp_path, "guns.toml", GUNS)
    capsys.readouterr()
    assert main(["validate", str(tmp_path)]) == 1
    assert capsys.readouterr().out.splitlines() == [
        f"{tmp_path}/catalogs/guns.toml:10: damage must be dice like 1d8 or a number like 3, "
        'got "lots"'
    ]


def test_validate_takes_a_campaign_of_catalogs_alone(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A campaign folder with its catalogs and no fight yet is no problem: its files are
    checked and counted; an empty folder still says it has nothing to check."""
    from facility_tui.cli import main

    (tmp_path / "empty").mkdir()
    assert main(["validate", str(tmp_path / "empty")]) == 1
    assert "no .toml file in this folder" in capsys.readouterr().out
    _write(tmp_path, "rails.toml", RAILS)
    assert main(["validate", str(tmp_path)]) == 0
    assert capsys.readouterr().out.splitlines() == ["1 file checked: no problem"]


def test_every_package_of_the_rule_systems_and_its_catalogs_go_in_the_wheel() -> None:
    """pyproject lists the packages by hand: a rule system's subpackage or its catalog files left
    out would be missing from an installed tracker."""
    import tomllib

    root = ROOT
    tool = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))["tool"]
    packages = set(tool["setuptools"]["packages"])
    for init in (root / "facility_tui").rglob("__init__.py"):
        assert ".".join(init.parent.relative_to(root).parts) in packages
    data = tool["setuptools"]["package-data"]
    for folder in (root / "facility_tui" / "systems").glob("*/catalog"):
        package = ".".join(folder.parent.relative_to(root).parts)
        assert "catalog/*.toml" in data.get(package, [])


def test_every_package_of_the_screens_goes_in_the_wheel_from_its_folder() -> None:
    """The screens are ``facility_tui.screens`` installed, ``screens/`` in the checkout: each of
    their packages is listed and mapped to its folder, or an installed tracker lacks it."""
    import tomllib

    root = ROOT
    tool = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))["tool"]
    packages = set(tool["setuptools"]["packages"])
    folders = tool["setuptools"]["package-dir"]
    for init in (root / "screens").rglob("__init__.py"):
        folder = init.parent.relative_to(root)
        package = ".".join(("facility_tui", *folder.parts))
        assert package in packages
        assert folders.get(package) == folder.as_posix()


def test_a_hand_edited_entry_in_a_save_is_refused_with_its_key() -> None:
    from facility_tui.systems.facility.rules import Piece
    from facility_tui.systems.facility.sheet import FacilitySheet
    from facility_tui.systems.facility.validation import sheet_problem

    visor = {"name": "Visor", "rating": 2, "covers": ["weapons"]}
    good = FacilitySheet(ppe=(Piece("Visor", 1, visor),))
    assert sheet_problem(good) is None
    bad = FacilitySheet(ppe=(Piece("Visor", 1, {**visor, "rating": "two"}),))
    assert sheet_problem(bad) == (
        "ppe[0].name",
        "must be a PPE of the catalog (Hard Hat, Work Boots, Lab Coat...), got 'Visor'",
    )
    too_many = FacilitySheet(ppe=(Piece("Visor", 3, visor),))
    assert sheet_problem(too_many) == ("ppe[0].marks", "must be from 0 to 2, got 3")
    bat = {"name": "Bat", "damage": "1d4"}
    assert sheet_problem(FacilitySheet(weapons=("bat",), arms=(bat,))) is None
    problem = sheet_problem(FacilitySheet(weapons=("bat",), arms=({**bat, "damage": "lots"},)))
    assert problem is not None and problem[0] == "arms[0]" and "damage must be dice" in problem[1]
    problem = sheet_problem(FacilitySheet(weapons=("bat",), arms=("Bat",)))
    assert problem is not None and problem[0] == "arms[0]"


def test_F8_a_campaign_weapon_strikes_with_its_own_damage_and_crit_dice(tmp_path: Path) -> None:
    _write(
        tmp_path,
        "nails.toml",
        'system = "facility"\n[[weapon]]\nname = "Nail gun"\ndamage = "4"\ncrit = "1d10"\n'
        "gun = true\n",
    )
    ws = _fresh(tmp_path, "facility")
    for line in ('add Ana side=pc phy=2 weapon="nail gun"', "add Drone side=enemy track=20"):
        ws.execute(line)
    ws.execute("start")
    ws.execute("strike ana drone d20=19")
    ws.execute("deal ana")
    assert sheet_of(ws.encounter.get("drone")).track_wounds == 4
    ws.close()


def test_F8_a_critical_rolls_the_campaign_weapons_crit_dice(tmp_path: Path) -> None:
    _write(
        tmp_path,
        "nails.toml",
        'system = "facility"\n[[weapon]]\nname = "Nail gun"\ndamage = "4"\ncrit = "1d10"\n',
    )
    ws = _fresh(tmp_path, "facility")
    ws.execute('add Ana side=pc phy=2 weapon="nail gun"')
    ws.execute("add Drone side=enemy track=30")
    ws.execute("start")
    ws.execute("strike ana drone d20=19")
    ws.execute("crit ana d20=19")
    rolls = [r.text for r in ws.encounter.log if "1d10" in r.text]
    assert rolls, [r.text for r in ws.encounter.log]
    wounds = sheet_of(ws.encounter.get("drone")).track_wounds
    assert 4 + 1 <= wounds <= 4 + 10
    ws.close()


def test_a_name_the_campaign_does_not_have_reloads_as_read(tmp_path: Path) -> None:
    """A read that found nothing (a shipped PPE, with a campaign folder) is kept as such: the
    save loads, and the campaign adding that name later changes nothing."""
    _write(tmp_path, "gear.toml", GEAR)
    ws = _fresh(tmp_path, "facility")
    ws.execute('add Ana side=pc ppe="Hard Hat" weapon=pistol')
    ws.execute("add Extra")
    before, path = ws.encounter, ws.path
    ws.save()
    ws.close()
    _write(tmp_path, "gear.toml", GEAR.replace('"Riot Shield"', '"Hard Hat"'))
    again = Workspace(tmp_path, seed=1)
    again.open(path)
    assert again.encounter == before
    again.session.undo()
    again.session.undo()
    again.session.redo()
    again.session.redo()
    assert again.encounter == before
    assert sheet_of(again.encounter.get("ana")).ppe[0].item.rating == 1  # the shipped one
    again.close()


def test_F11_storage_items_carried_give_their_pockets_and_slots() -> None:
    """F11: 2 pockets and 6 slots; a Fanny Pack adds 2 pockets, a Messenger Bag 2 slots and 1
    pocket, a Toolbox 3 slots and is Bulky; Coveralls' 6 pockets replace normal clothing's 2;
    a line ending with the item's name counts ("orange coveralls"); other things add nothing."""
    from facility_tui.systems.facility.sheet import FacilitySheet
    from facility_tui.systems.facility.view import room

    def carrying(*items: str) -> str:
        return room(FacilitySheet(items=items))

    assert carrying("pen") == "2 pockets, 6 slots"
    assert carrying("Fanny Pack") == "4 pockets, 6 slots"
    assert carrying("messenger bag") == "3 pockets, 8 slots"
    assert carrying("Toolbox", "pen") == "2 pockets, 9 slots; Bulky: Toolbox"
    assert carrying("orange coveralls", "Fanny Pack") == "8 pockets, 6 slots"
    assert carrying("Briefcase", "Toolbox") == "2 pockets, 11 slots; Bulky: Briefcase, Toolbox"


JOBS_TOML = """\
system = "facility"

[[job]]
name = "Night Guard"
saves = { weapons = 2, trauma = 1 }
expertise = ["ins"]
ppe = ["Security Vest", "Riot Shield"]
clearance = 2
uniform = "flashlight, Fanny Pack"

[[ppe]]
name = "Riot Shield"
rating = 2
covers = ["weapons"]
"""


def test_F12_a_campaign_job_is_given_by_name_and_kept_with_its_step(tmp_path: Path) -> None:
    """F12: job= takes the campaign's job as it takes the rules' (its saves, Expertise, PPE,
    its own PPE from the campaign too, clearance, uniform); the step keeps what it read, so
    the fight reloads the same after the catalog changes; the save's job name is not refused."""
    from facility_tui import store
    from facility_tui.systems.facility.rules import stat_of
    from facility_tui.systems.facility.view import room

    _write(tmp_path, "guards.toml", JOBS_TOML)
    ws = _fresh(tmp_path, "facility")
    ws.execute('add Ana side=pc job="night guard"')
    ws.execute("add Bo side=pc job=tech")
    s = sheet_of(ws.encounter.get("ana"))
    assert (s.job, s.base.weapons, s.base.trauma, s.clearance) == ("Night Guard", 2, 1, 2)
    assert stat_of(s, "ins").expertise
    assert [p.name for p in s.ppe] == ["Security Vest", "Riot Shield"]
    assert s.ppe[1].item.rating == 2 and room(s) == "4 pockets, 6 slots"
    assert sheet_of(ws.encounter.get("bo")).job == "Maintenance Technician"
    before, path = ws.encounter, ws.path
    store.save(ws.session, path)
    ws.close()
    (tmp_path / "catalogs" / "guards.toml").write_text('system = "facility"\n', encoding="utf-8")
    again = store.load(path)
    assert again.encounter == before
    for _ in again.undo_steps:
        again.undo()
    while again.can_redo():
        again.redo()
    assert again.encounter == before
