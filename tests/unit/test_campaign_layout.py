"""The campaign folder's own files are not encounters (facility_tui/campaign/folder.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from facility_tui import store
from facility_tui.campaign.folder import READERS, Campaign, CampaignError, Read, Reads, line_of
from facility_tui.commands.session import Step
from facility_tui.model.codec import decode, encode


def test_party_file_is_not_listed_as_an_encounter(tmp_path: Path) -> None:
    (tmp_path / "party.toml").write_text("[[pc]]\nname = 'Anne'\n", encoding="utf-8")
    (tmp_path / "ambush.toml").write_text("", encoding="utf-8")
    assert [p.name for p in store.list_saves(tmp_path)] == ["ambush.toml"]


def test_an_encounter_called_party_is_not_saved_over_the_roster(tmp_path: Path) -> None:
    assert store.path_for(tmp_path, "Party") == tmp_path / "party-2.toml"
    assert store.path_for(tmp_path, "Party", 3) == tmp_path / "party-3.toml"
    assert store.path_for(tmp_path, "Ambush") == tmp_path / "ambush.toml"


def test_campaign_paths_sit_under_its_folder(tmp_path: Path) -> None:
    c = Campaign(tmp_path)
    assert (c.party, c.templates, c.catalogs, c.archive) == (
        tmp_path / "party.toml",
        tmp_path / "templates",
        tmp_path / "catalogs",
        tmp_path / "archive",
    )


# -- reads recorded like dice ------------------------------------------------------------------


@pytest.fixture
def counted_reader(tmp_path: Path):  # type: ignore[no-untyped-def]
    calls: list[str] = []

    def read(campaign: Campaign, name: str) -> object:
        calls.append(name)
        path = campaign.folder / f"{name}.txt"
        return {"text": path.read_text(encoding="utf-8")} if path.exists() else None

    READERS["note"] = read
    yield calls
    del READERS["note"]


def test_a_live_read_is_recorded_and_a_replay_reads_nothing(tmp_path: Path, counted_reader) -> None:  # type: ignore[no-untyped-def]
    (tmp_path / "guard.txt").write_text("v1", encoding="utf-8")
    live = Reads(Campaign(tmp_path))
    assert live("note", "guard") == {"text": "v1"}
    assert live.read == [Read("note", "guard", {"text": "v1"})]
    (tmp_path / "guard.txt").write_text("v2", encoding="utf-8")  # the file changes afterwards
    replay = Reads(None, live.read)
    assert replay("note", "guard") == {"text": "v1"}
    assert counted_reader == ["guard"]


def test_a_replay_that_asks_for_more_than_was_recorded_reads_it(
    tmp_path: Path, counted_reader
) -> None:  # type: ignore[no-untyped-def]
    (tmp_path / "b.txt").write_text("b", encoding="utf-8")
    replay = Reads(Campaign(tmp_path), [Read("note", "a", None)])
    assert replay("note", "a") is None
    assert replay("note", "b") == {"text": "b"}
    assert counted_reader == ["b"]


def test_without_a_campaign_a_read_says_so() -> None:
    with pytest.raises(CampaignError, match="no campaign folder"):
        Reads(None)("template", "guard")


def test_an_unknown_kind_says_so(tmp_path: Path) -> None:
    with pytest.raises(CampaignError, match="no widgets are kept"):
        Reads(Campaign(tmp_path))("widget", "x")


def test_campaign_error_names_file_and_line() -> None:
    err = CampaignError(
        'hlt must be a whole number or dice, got "ten"', "templates/guards.toml", 12
    )
    assert str(err) == 'templates/guards.toml:12: hlt must be a whole number or dice, got "ten"'


def test_a_step_keeps_its_reads_through_the_save_format() -> None:
    step = Step("add Guard from=guard", reads=(Read("template", "guard", {"hlt": 10, "k": [1]}),))
    assert decode(Step, encode(step)) == step
    assert "reads" not in encode(Step("next"))


ROSTER = """\
# the party
[[pc]]
name = "Anne"
hlt = 10

[[pc]]
name = "Dale"
hlt = "ten"

[pc.sheet]
wounds = { phy = 1 }

[weapons.pistol]
damage = "1d8"

[weapons]
rifle = "2d6"
"""


@pytest.mark.parametrize(
    ("path", "line"),
    [
        (("pc", 0, "hlt"), 4),
        (("pc", 1, "hlt"), 8),
        (("pc", 1, "name"), 7),
        (("pc", 1, "sheet", "wounds"), 11),
        (("pc", 1, "sheet", "stress"), 10),  # not written: its table
        (("pc", 1, "init"), 6),  # not written: its [[pc]]
        (("weapons", "pistol"), 13),
        (("weapons", "pistol", "damage"), 14),
        (("weapons", "rifle"), 17),
        (("nowhere",), 1),
    ],
)
def test_line_of_points_at_the_key(path: tuple[str | int, ...], line: int) -> None:
    assert line_of(ROSTER, path) == line
