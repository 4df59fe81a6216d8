"""A save's backups (``store/backups.py``): however often the fight is edited and saved, only the
last ``BACKUPS_KEPT`` are kept."""

from __future__ import annotations

from pathlib import Path

from facility_tui import store
from tests.unit.test_recovery import demo_fight


def test_backups_stay_bounded(tmp_path: Path) -> None:
    path = tmp_path / "deck.toml"
    store.save(demo_fight(), path)
    for hlt in range(33, 33 + 2 * store.BACKUPS_KEPT):
        store.forget(path)
        text = path.read_text()
        path.write_text(text.replace(f"hlt = {hlt - 1}", f"hlt = {hlt}", 1))
        opened = store.open_save(path)
        store.save(opened.session, path)
    assert len(store.backups(path)) == store.BACKUPS_KEPT
