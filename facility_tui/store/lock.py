"""One writer per save: ``fcntl.flock`` on ``fight.d/lock``, which names its holder for the
message a refused writer gets; the kernel drops it with its process, so a crash leaves none."""

from __future__ import annotations

import contextlib
import json
import os
import stat
import threading
import time
from pathlib import Path
from typing import NamedTuple

from facility_tui.store.atomic import HINTS
from facility_tui.store.errors import SaveError, SaveHeld
from facility_tui.store.files import kind_of, sidecar_for

LOCK_NAME = "lock"  # in the save's folder: fight.d/lock


class Holder(NamedTuple):
    """Who holds a save's write lock, as it wrote itself into the lock file."""

    pid: int
    host: str
    role: str  # "facility-tui app", "facility-tui apply"...
    since: float  # time.time() when it took the lock

    def describe(self) -> str:
        from facility_tui.model.text import printable

        when = time.strftime("%Y-%m-%d %H:%M", time.localtime(self.since))
        where = "this process" if self.is_this_process() else f"pid {self.pid} on {self.host}"
        return printable(f"{self.role} ({where}, since {when})")

    def is_this_process(self) -> bool:
        return self.pid == os.getpid() and self.host == _host()


def _host() -> str:
    return os.uname().nodename  # gethostname, without importing socket on the apply path


class WriteLock:
    """The write lock of one save, held until ``release`` (or the process ends: the kernel drops
    an ``flock`` with its process, so a crash never leaves a stale lock).

    The lock is ``fcntl.flock`` on ``fight.d/lock``, which holds the holder's pid, host, role
    and start time for the message a refused writer gets; it is emptied on release, or removed
    (with the folders made for it) if it was made for a lock that wrote nothing. A writer that
    locked a file just removed finds the path's file is no longer the one it holds and tries
    again, so two writers never hold two different files of one save.
    """

    def __init__(
        self, path: Path, fd: int, holder: Holder, made: list[Path], created: bool
    ) -> None:
        self.path = path
        self.holder = holder
        self.wrote = False  # set by the saver before it writes anything under this lock
        self._fd: int | None = fd
        self._made = made  # folders made to hold the lock file...
        self._created = created  # ...and whether the file was made too: undone if nothing written

    @property
    def held(self) -> bool:
        return self._fd is not None

    def release(self) -> None:
        """Let the save go (idempotent, never raises)."""
        fd, self._fd = self._fd, None
        if fd is None:
            return
        with held_guard:
            if held_locks.get(os.path.abspath(self.path)) is self:
                del held_locks[os.path.abspath(self.path)]
        if self.wrote or not self._created:
            with contextlib.suppress(OSError):
                # kept, cheaper than a new one (docs/benchmarks.md, 'The store'), but nameless
                os.ftruncate(fd, 0)
        else:  # nothing written: leave the folder as it was; still locked: no one else has it
            with contextlib.suppress(OSError):
                os.unlink(sidecar_for(self.path) / LOCK_NAME)
            for folder in reversed(self._made):
                with contextlib.suppress(OSError):
                    folder.rmdir()
        import fcntl

        with contextlib.suppress(OSError):
            fcntl.flock(fd, fcntl.LOCK_UN)  # (closing would too, but a failed close may not)
        with contextlib.suppress(OSError):
            os.close(fd)

    def __enter__(self) -> WriteLock:
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()


held_locks: dict[str, WriteLock] = {}  # the saves this process holds, by absolute path
held_guard = threading.Lock()


def _made_dirs(folder: Path) -> list[Path]:
    """Make ``folder`` and its missing parents; the ones made, outermost first."""
    missing: list[Path] = []
    p = folder
    while not os.path.lexists(p) and p != p.parent:
        missing.append(p)
        p = p.parent
    missing.reverse()
    made = []
    for d in missing:
        try:
            os.mkdir(d)
            made.append(d)
        except FileExistsError:
            pass
    return made


def lock_save(path: Path, role: str) -> WriteLock:
    """Take the write lock of the save at ``path`` (which need not exist yet) for ``role``.

    Raises ``SaveHeld`` if another process (or another part of this one) holds it, and
    ``SaveError`` if the lock file cannot be made (a read-only folder...). Writing a save this
    process holds needs no more locking; ``save`` takes the lock for the write's duration when
    the process does not hold it.
    """
    key = os.path.abspath(path)
    with held_guard:
        mine = held_locks.get(key)
    if mine is not None:
        raise _held_error(path, mine.holder)
    lock_path = sidecar_for(path) / LOCK_NAME
    made: list[Path] = []
    flags = os.O_RDWR | os.O_CLOEXEC | os.O_NOFOLLOW | os.O_NONBLOCK
    try:
        for _ in range(20):
            try:
                made += _made_dirs(lock_path.parent)
                try:
                    fd, created = os.open(lock_path, flags), False
                except FileNotFoundError:
                    fd, created = os.open(lock_path, flags | os.O_CREAT | os.O_EXCL, 0o644), True
            except (FileNotFoundError, FileExistsError):  # another writer let go or came
                continue
            except OSError as err:
                raise SaveError(_lock_error(path, err)) from err
            try:
                lock = _try_lock(path, fd, lock_path, role, made, created)
            except BaseException:
                if created:
                    with contextlib.suppress(OSError):
                        os.unlink(lock_path)
                with contextlib.suppress(OSError):
                    os.close(fd)
                raise
            if lock is not None:
                with held_guard:
                    held_locks[key] = lock
                return lock
            with contextlib.suppress(OSError):
                os.close(fd)
        raise SaveError(f"could not lock {path}: its lock file keeps changing; try again")
    except SaveError:
        for folder in reversed(made):  # refused: the folders made for the lock go too
            with contextlib.suppress(OSError):
                folder.rmdir()
        raise


def _try_lock(
    path: Path, fd: int, lock_path: Path, role: str, made: list[Path], created: bool
) -> WriteLock | None:
    import fcntl

    try:
        opened = os.fstat(fd)
        if not stat.S_ISREG(opened.st_mode):
            kind = kind_of(opened.st_mode)
            raise SaveError(f"{lock_path} is {kind}, not a lock file; remove it and try again")
        for attempt in range(4):
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if attempt == 3:
                    raise _held_error(path, _read_holder(fd)) from None
                # a glance by ``holder``, or a holder letting go, is over in a moment
                time.sleep(0.02)
    except OSError as err:
        raise SaveError(_lock_error(path, err)) from err
    try:
        now = os.stat(lock_path, follow_symlinks=False)
    except OSError:
        return None  # removed by the writer that just let go: lock the one there now
    if (now.st_dev, now.st_ino) != (opened.st_dev, opened.st_ino):
        return None
    holder = Holder(os.getpid(), _host(), role, time.time())
    data = json.dumps({"pid": holder.pid, "host": holder.host, "role": role, "since": holder.since})
    with contextlib.suppress(OSError):  # the lock holds without it; only the message is poorer
        os.ftruncate(fd, 0)
        os.pwrite(fd, (data + "\n").encode("utf-8"), 0)
    return WriteLock(path, fd, holder, made, created)


def _read_holder(fd: int) -> Holder | None:
    try:
        data = json.loads(os.pread(fd, 4096, 0).decode("utf-8"))
        return Holder(int(data["pid"]), str(data["host"]), str(data["role"]), float(data["since"]))
    except (OSError, ValueError, TypeError, KeyError, OverflowError):
        return None  # just taken, not written yet; or not ours


def holder(path: Path) -> Holder | None:
    """Who holds the write lock of ``path`` now; ``None`` if no one does (or it cannot tell).
    A read-only view can show it, and offer to open the save for writing once it is free."""
    with held_guard:
        mine = held_locks.get(os.path.abspath(path))
    if mine is not None:
        return mine.holder
    lock_path = sidecar_for(path) / LOCK_NAME
    try:
        fd = os.open(lock_path, os.O_RDONLY | os.O_CLOEXEC | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return None
    import fcntl

    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except OSError:
            return _read_holder(fd) or Holder(0, "?", "another process", time.time())
        return None  # free: it could be locked, so no one holds it
    finally:
        os.close(fd)


def _held_error(path: Path, who: Holder | None) -> SaveHeld:
    if who is None:
        whom = "another process"
    elif who.is_this_process():
        whom = f"this facility-tui already ({who.describe()})"
    else:
        whom = who.describe()
    return SaveHeld(
        path,
        who,
        f"{path} is open for writing in {whom}; close it there first, then try again",
    )


def _lock_error(path: Path, err: OSError) -> str:
    reason = err.strerror or str(err) or type(err).__name__
    hint = HINTS.get(err.errno or 0)
    hint = f" ({hint})" if hint else ""
    return f"could not lock {path} for writing: {reason}{hint}; the save on disk was not changed"
