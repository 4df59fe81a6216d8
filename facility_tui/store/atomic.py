"""Writes that never leave a half file: a temporary file beside the target, fsynced, moved over
it with ``os.replace``, the folder fsynced; and the one-line message a failed write gives."""

from __future__ import annotations

import contextlib
import errno
import os
from pathlib import Path

from facility_tui.store.files import SIDECAR_SUFFIX, SUFFIX

TEMP_PREFIX = ".tmp-"


def write_atomic(path: Path, text: str, *, sync: bool = True) -> None:
    """Replace ``path`` with ``text`` so that a crash leaves either the old or the new file.
    ``sync=False``: no fsync, for a file that is only ever a checked copy of another (a power
    cut may leave it empty, never half of another's text)."""
    folder = path.parent
    data = text.encode("utf-8")
    mode: int | None = None
    with contextlib.suppress(FileNotFoundError):
        mode = path.stat().st_mode & 0o777
    fd, tmp = _create_temp(folder)
    try:
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
            if sync:
                os.fsync(fd)
        finally:
            os.close(fd)
        if mode is not None:
            os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    if sync:
        _fsync_dir(folder)


def _create_temp(folder: Path) -> tuple[int, str]:
    """A new file of our own beside the target, as ``tempfile.mkstemp`` makes one (without its
    import, and shutil's with it, on every launch): a random name, created exclusively, 0o600."""
    flags = os.O_RDWR | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0)
    for _ in range(100):
        tmp = os.path.join(folder, f"{TEMP_PREFIX}{os.urandom(6).hex()}{SUFFIX}")
        try:
            return os.open(tmp, flags, 0o600), tmp
        except FileExistsError:
            continue  # (another writer's name: draw again)
    raise FileExistsError(errno.EEXIST, "no unused temporary name", str(folder))


def _fsync_dir(folder: Path) -> None:
    with contextlib.suppress(OSError):
        fd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


HINTS = {
    errno.ENOSPC: "the disk is full, free some space",
    errno.EDQUOT: "the disk quota is used up, free some space",
    errno.EROFS: "the disk is read-only",
    errno.EACCES: "no permission to write there",
    errno.EPERM: "no permission to write there",
}


def write_error(path: Path, err: OSError, done: str = "the save on disk was not changed") -> str:
    reason = err.strerror or str(err) or type(err).__name__
    hint = HINTS.get(err.errno or 0)
    return f"could not save {path}: {reason}{f' ({hint})' if hint else ''}; {done}"


def sweep_temp(folder: Path) -> int:
    """Remove temporary files left by a write that was interrupted; returns how many."""
    count = 0
    with contextlib.suppress(OSError):
        pattern = f"{TEMP_PREFIX}*{SUFFIX}"
        stale = [*folder.glob(pattern), *folder.glob(f"*{SIDECAR_SUFFIX}/{pattern}")]
        for p in stale:
            with contextlib.suppress(OSError):
                p.unlink()
                count += 1
    return count
