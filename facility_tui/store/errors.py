"""What the store raises: each refusal a ``SaveError`` naming the file and what to do."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from facility_tui.model.codec import DecodeError

if TYPE_CHECKING:
    from facility_tui.store.lock import Holder


class SaveError(Exception):
    """A save that cannot be read or written; the message names the file and what to do."""


class DamagedSave(SaveError):
    """A file that is not a whole save (empty, truncated, changed, not one): a backup may help."""


class NewerSave(SaveError):
    """A save written by a newer facility-tui."""


class SaveHeld(SaveError):
    """A save another writer holds (``lock_save``): the message says who, and what to do."""

    def __init__(self, path: Path, holder: Holder | None, message: str) -> None:
        super().__init__(message)
        self.path = path
        self.holder = holder


class InvalidSave(DamagedSave):
    """A whole file (its checksum holds) whose content is not a fight: a key missing, a value of
    the wrong type or out of range. Refused like damage: the GM is asked what to do."""


class ChangedOnDisk(SaveError):
    """The save was written by someone else (an editor) since this process last wrote or read
    it: it is not written over until the GM chooses (``Autosaver`` holds the change)."""

    def __init__(self, path: Path) -> None:
        super().__init__(
            f"{path} was changed outside facility-tui while it was open; it was not written over"
        )
        self.path = path


class Invalid(DecodeError):
    """What ``check_encounter`` finds; the message names the key, e.g. ``encounter.round``."""
