"""A save's files by name, and reading them: the ``.toml`` files of a folder, a save's ``.d`` folder
beside it, a regular file read whole (never a pipe or a device) and the signature that tells
whether it was written since."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from facility_tui.campaign.folder import RESERVED_STEMS, is_encounter_file
from facility_tui.store.errors import SaveError

SUFFIX = ".toml"
SIDECAR_SUFFIX = ".d"

MAX_SAVE_BYTES = 64 << 20  # larger files are refused unread (a long fight's main file: < 1 MiB)


def files_for(path: Path) -> Path:
    """Where the write-once log and step files a save refers to are: its sidecar, or for a
    backup (``fight.d/backup-*.toml``) the folder it is in, beside them."""
    if path.name.startswith("backup-") and path.parent.name.endswith(SIDECAR_SUFFIX):
        return path.parent
    return sidecar_for(path)


def sidecar_for(path: Path) -> Path:
    """The folder of a save's log files and backups: ``fight.d`` next to ``fight.toml``."""
    return path.with_name(path.stem + SIDECAR_SUFFIX)


def kind_of(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISFIFO(mode):
        return "a named pipe"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def read_regular(path: Path, limit: int = MAX_SAVE_BYTES) -> tuple[bytes, os.stat_result]:
    """The bytes of ``path`` and its status, if it is a regular file of at most ``limit`` bytes.

    Anything else (a folder, a named pipe, a device, a link to one) is refused with a one-line
    ``SaveError`` before a byte is read: opening does not wait for a pipe's writer
    (``O_NONBLOCK``) and the type and size are checked on the open file itself.
    """
    flags = os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC | getattr(os, "O_NOCTTY", 0)
    try:
        fd = os.open(path, flags)
    except FileNotFoundError:
        raise SaveError(f"{path} does not exist") from None
    except OSError as err:
        raise SaveError(f"cannot read {path}: {err.strerror or err}") from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise SaveError(
                f"{path} is {kind_of(st.st_mode)}, not a save file; choose a .toml save"
            )
        if st.st_size > limit:
            raise SaveError(
                f"{path} is {_size(st.st_size)}, more than a save can be ({_size(limit)}); "
                "it was not opened"
            )
        parts: list[bytes] = []
        got = 0
        while got <= limit:
            part = os.read(fd, min(limit + 1 - got, 1 << 20) or 1)
            if not part:
                break
            parts.append(part)
            got += len(part)
        if got > limit:  # it grew while being read
            raise SaveError(f"{path} grew past {_size(limit)} while being read; it was not opened")
        return b"".join(parts), st
    except OSError as err:
        raise SaveError(f"cannot read {path}: {err.strerror or err}") from None
    finally:
        os.close(fd)


def _size(n: int) -> str:
    return f"{n / (1 << 20):.0f} MiB" if n >= 1 << 20 else f"{n} bytes"


def read_file(path: Path) -> bytes:
    return read_regular(path)[0]


def file_signature(path: Path) -> tuple[int, ...] | None:
    """What changes whenever a save is written (its main file is replaced, never rewritten in
    place): compare two to tell whether it was saved in between. ``None`` if there is none."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return signature_of(st)


def same_file(a: tuple[int, ...] | None, b: tuple[int, ...] | None) -> bool:
    """Whether two signatures are of the same file content: its mode or owner changed
    (``chmod``: only the ctime) is no write."""
    return a is not None and b is not None and a[:4] == b[:4]


def signature_of(st: os.stat_result) -> tuple[int, ...]:
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


def list_saves(folder: Path) -> list[Path]:
    """Save files in ``folder``, the most recently changed first (log files and backups aside)."""
    try:
        files = [p for p in folder.glob(f"*{SUFFIX}") if is_encounter_file(p) and p.is_file()]
        return sorted(files, key=lambda p: p.stat().st_mtime, reverse=True)
    except OSError:
        return []


NAME_MAX = 60  # characters of an encounter's name kept in its file name


def path_for(folder: Path, name: str, number: int = 1) -> Path:
    """A file in ``folder`` for an encounter called ``name``, never outside it; ``number`` 2, 3...
    gives the other files for that name (``fight-2.toml``), distinct however long the name."""
    from facility_tui.commands.spec import slug

    stem = slug(name)[:NAME_MAX].rstrip("-") or "x"
    if stem in RESERVED_STEMS and number == 1:
        number = 2  # party.toml is the campaign's roster
    if number > 1:
        stem = f"{stem}-{number}"
    return folder / f"{stem}{SUFFIX}"


def in_use(path: Path) -> bool:
    """Whether ``path`` names a save, or anything else, or a save's leftover folder (a fight set
    aside as damaged keeps its backups there): a new fight must not start on it."""
    return os.path.lexists(path) or os.path.lexists(sidecar_for(path))
