"""The campaign folder's own files are not encounters (facility_tui/campaign.py)."""

from __future__ import annotations

from pathlib import Path

from facility_tui import store
from facility_tui.campaign import Campaign


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
