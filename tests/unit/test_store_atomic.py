"""Atomic writes (``store/atomic.py``): a write's leftovers are swept and nothing else, and a
replaced file keeps its mode. (Failures injected into every system call: test_store_faults.py.)"""

from __future__ import annotations

from pathlib import Path

from facility_tui import store
from tests.unit.test_store_format import fight, long_fight


def test_sweep_temp_removes_leftovers_only(tmp_path: Path) -> None:
    path = tmp_path / "f.toml"
    store.save(long_fight(2), path)
    (tmp_path / ".tmp-abc.toml").write_text("half")
    (tmp_path / "f.d" / ".tmp-def.toml").write_text("half")
    assert store.sweep_temp(tmp_path) == 2
    assert store.list_saves(tmp_path) == [path]
    store.load(path)


def test_file_mode_is_kept(tmp_path: Path) -> None:
    path = tmp_path / "f.toml"
    s = fight()
    store.save(s, path)
    path.chmod(0o640)
    s.apply("add Alpha")
    store.save(s, path)
    assert path.stat().st_mode & 0o777 == 0o640
