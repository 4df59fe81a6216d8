"""A save's backups (``fight.d/backup-*.toml``): how they are named, how many are kept, and
listing them newest first."""

from __future__ import annotations

import os
import re
from pathlib import Path

from facility_tui.store.files import sidecar_for

BACKUPS_KEPT = 8  # copies of the main file: round changes, hand edits accepted, the app closing

_BACKUP_NAME = re.compile(r"backup-(\d{6,})-r(-?\d+)\.toml")


def backups(path: Path) -> list[Path]:
    """The backups of a save, the newest first."""
    return [p for _, _, p in backup_entries(sidecar_for(path))]


def backup_entries(sidecar: Path, names: list[str] | None = None) -> list[tuple[int, int, Path]]:
    """The backups in ``sidecar`` (whose file names are ``names`` if known), the newest first."""
    found = []
    if names is None:
        try:
            names = os.listdir(sidecar)
        except OSError:
            names = []
    for name in names:
        m = _BACKUP_NAME.fullmatch(name) if name.startswith("backup-") else None
        if m:
            found.append((int(m.group(1)), int(m.group(2)), sidecar / name))
    return sorted(found, reverse=True)
