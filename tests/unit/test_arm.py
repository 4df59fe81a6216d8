"""``arm``: every enemy of a type given a weapon of the catalog in one step (issue 39), undone in
one, replayed from what it read; refusals in one line that change nothing."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from facility_tui.campaign.catalogs import complete
from facility_tui.campaign.demo import demo_encounter
from facility_tui.campaign.folder import Campaign
from facility_tui.commands.grammar import CommandError
from facility_tui.commands.session import Session, run_step
from facility_tui.systems.facility.sheet import FacilitySheet
from facility_tui.systems.r2297.sheet import Sheet2297
from tests.conftest import refused_alike, run


def demo(system: str = "2297") -> Session:
    return Session(demo_encounter(system))


def weapons(s: Session, cid: str) -> list[tuple[str, int, int]]:
    sheet = s.encounter.get(cid).sheet
    assert isinstance(sheet, Sheet2297)
    return [(w.name, w.ammo, w.capacity) for w in sheet.weapons]


def test_arm_gives_each_of_the_type_the_weapon_loaded_in_one_step_and_one_line() -> None:
    s = demo()
    run(s, "start", "set boarder-2 ammo 3")
    steps, lines = len(s.timeline), len(s.encounter.log)
    out = s.execute("arm boarder FAM-90")
    for cid in ("boarder-1", "boarder-2", "boarder-3"):
        assert weapons(s, cid) == [("FAM-90", 60, 60)]
    assert weapons(s, "boarding-chief") == [("Shotgun", 8, 8)]  # (another type: as it was)
    assert [e.text for e in out.events] == [
        "Arm: Boarder ×3 carry FAM-90 (had SMG 3d6+1 SA/BF/AF, ammo 3/30; "
        "SMG 3d6+1 SA/BF/AF, ammo 30/30)"
    ]
    assert len(s.encounter.log) == lines + 1 and len(s.timeline) == steps + 1
    s.execute("undo")
    assert weapons(s, "boarder-2") == [("SMG", 3, 30)]
    s.execute("redo")
    assert weapons(s, "boarder-2") == [("FAM-90", 60, 60)]


def test_several_types_in_one_step_by_any_word_of_the_catalog() -> None:
    s = demo()
    out = s.execute('arm boarder=pam9 "Boarding Chief=fam-90"')
    assert weapons(s, "boarder-3") == [("PAM9", 17, 17)]
    assert weapons(s, "boarding-chief") == [("FAM-90", 60, 60)]
    assert out.events[0].text.startswith("Arm: Boarder ×3 carry PAM9 (had SMG")
    assert "; Boarding Chief carries FAM-90 (had Shotgun 4d6 SS, ammo 8/8)" in out.events[0].text


def test_a_facility_gun_out_of_ammo_is_replaced_by_a_loaded_one() -> None:
    s = demo("facility")
    run(s, "sheet containment-drone-1 weapon=pistol empty=pistol")
    out = s.execute("arm containment_drone smg")  # (a key of the catalog)
    for cid in ("containment-drone-1", "containment-drone-2"):
        sheet = s.encounter.get(cid).sheet
        assert isinstance(sheet, FacilitySheet)
        assert (sheet.weapons, sheet.empty) == (("smg",), ())
    assert out.events[0].text == (
        "Arm: Containment Drone ×2 carry Submachine gun (had Pistol 3 out of ammo)"
    )
    # the same weapon again, loaded: the one out of ammo is loaded, the other left alone
    run(s, "sheet containment-drone-2 empty=smg")
    out = s.execute("arm containment_drone smg")
    assert out.events[0].text.startswith("Arm: Containment Drone 2 carries Submachine gun")


def test_a_campaign_weapon_is_read_once_and_replayed_without_the_folder(tmp_path: Path) -> None:
    folder = tmp_path / "campaign"
    (folder / "catalogs").mkdir(parents=True)
    (folder / "catalogs" / "guns.toml").write_text(
        'system = "2297"\n[[weapon]]\nname = "Assault Rifle"\ndamage = "4d6+2"\n'
        'modes = "SA/AF"\nammo = 40\n',
        encoding="utf-8",
    )
    s = demo()
    s.campaign = Campaign(folder)
    s.execute('arm boarder "assault rifle"')
    assert weapons(s, "boarder-1") == [("Assault Rifle", 40, 40)]
    shutil.rmtree(folder)
    step = s.timeline.node(s.timeline.current).step
    before = s.timeline.state_at(s.timeline.parent(s.timeline.current), run_step)
    assert run_step(before, step) == s.encounter


@pytest.mark.parametrize(
    ("line", "said"),
    [
        ("arm", "needs an enemy type and a weapon"),
        ("arm boarder", "takes TYPE WEAPON or TYPE=WEAPON, got 'boarder'"),
        ("arm pirate PAM9", "no enemy type 'pirate': the fight has Boarder (3), Boarding Chief"),
        ("arm blanc PAM9", "'blanc' is a PC: arm gives weapons to enemies"),
        ("arm boarder-2 PAM9", "'boarder-2' is Boarder 2: arm names the type, every one of them"),
        ("arm boarder FAM-9O", "no weapon 'FAM-9O' in the 2297 catalog (did you mean FAM-90?)"),
        ("arm boarder Phaser", "no weapon 'Phaser' in the 2297 catalog: it has PAM9, FAM-90"),
        ('arm boarder=PAM9 "Boarder=FAM-90"', "Boarder: that type is given twice"),
    ],
)
def test_arm_refuses_in_one_line_and_changes_nothing(line: str, said: str) -> None:
    refused_alike(demo(), line, said)


def test_a_campaign_weapon_whose_name_has_a_comma_is_refused(tmp_path: Path) -> None:
    (tmp_path / "catalogs").mkdir()
    (tmp_path / "catalogs" / "guns.toml").write_text(
        'system = "2297"\n[[weapon]]\nname = "Rifle, long"\ndamage = "4d6"\n', encoding="utf-8"
    )
    s = demo()
    s.campaign = Campaign(tmp_path)
    before = s.encounter
    with pytest.raises(CommandError, match="a name with a comma cannot be given with arm"):
        s.execute('arm boarder "rifle, long"')
    assert s.encounter == before


def test_nothing_to_arm_when_each_already_carries_it_loaded() -> None:
    s = demo()
    run(s, "arm boarder PAM9")
    before = s.encounter
    with pytest.raises(CommandError, match="nothing to arm: they already carry it, loaded"):
        s.execute("arm boarder pam9")
    assert s.encounter == before


def test_tab_completes_the_weapon_of_an_arm_line() -> None:
    assert complete("arm boarder FA", "2297", None) == "arm boarder FAM-90"
    assert complete("arm drone sub", "facility", None) == "arm drone Submachine gun"
    assert complete("rearm x pi", "facility", None) == "rearm x Pistol"
