"""A save's files by name (``store/files.py``): a name never leads outside the folder, and the
folder's saves are its fights only."""

from __future__ import annotations

from pathlib import Path

from facility_tui import store
from tests.unit.test_store_format import long_fight


def test_path_for_stays_in_the_folder(tmp_path: Path) -> None:
    for name in ["../../etc/x", "/etc/passwd", "..", ".", "", "a/b\\c", "~root", "C:\\x", "\0"]:
        p = store.path_for(tmp_path, name)
        assert p.parent == tmp_path
        assert p.name.endswith(".toml") and not p.name.startswith(".")
        assert (tmp_path / p.name).resolve().parent == tmp_path.resolve()
    assert store.path_for(tmp_path, "../../etc/x").name == "etc-x.toml"


def test_list_saves_skips_sidecars_backups_and_rejected_files(tmp_path: Path) -> None:
    path = tmp_path / "f.toml"
    store.save(long_fight(2), path)
    (tmp_path / "g.toml.corrupt-20250101-000000").write_text("x")
    (tmp_path / "dir.toml").mkdir()
    assert store.list_saves(tmp_path) == [path]
