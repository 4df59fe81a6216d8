"""The campaign folder: the saves folder (``--saves DIR``) holds a campaign's encounters and,
beside them, the files that outlive one fight. Each is plain TOML a GM can read, edit and keep in
git:

- ``party.toml``   the PCs, carried from fight to fight with their lasting state;
- ``templates/``   one combatant per file, added to a fight by name (``add NAME from=TEMPLATE``);
- ``catalogs/``    the campaign's own weapons, armor, PPE and items, added to or overriding the
                   ones each rule system ships;
- ``archive/``     encounters set aside from the browser (moved, never deleted).

The layout is named here once; the store lists as encounters only the other ``*.toml`` files.
"""

from __future__ import annotations

from pathlib import Path

from attrs import frozen

PARTY = "party.toml"
TEMPLATES = "templates"
CATALOGS = "catalogs"
ARCHIVE = "archive"
# File stems an encounter's save may not take: a fight called "Party" is saved as party-2.toml.
RESERVED_STEMS = frozenset({Path(PARTY).stem})


@frozen
class Campaign:
    """Where a campaign's files are, under its folder."""

    folder: Path

    @property
    def party(self) -> Path:
        return self.folder / PARTY

    @property
    def templates(self) -> Path:
        return self.folder / TEMPLATES

    @property
    def catalogs(self) -> Path:
        return self.folder / CATALOGS

    @property
    def archive(self) -> Path:
        return self.folder / ARCHIVE


def is_encounter_file(path: Path) -> bool:
    """Whether a ``*.toml`` file directly in the campaign folder is an encounter's save."""
    return path.stem not in RESERVED_STEMS and not path.name.startswith(".")
