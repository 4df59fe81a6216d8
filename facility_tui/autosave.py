"""Autosave: the session is written off the caller's thread after every change (no Textual here).

The app calls ``request(session)`` after each change (a ``Session`` listener fits as is). The call
only takes a ``store.Snapshot`` (the immutable encounter and the history's step lists, no
serialization) and wakes the writer thread, which saves the newest snapshot of each path; a burst
of requests while a write is running is coalesced into one write. A failed write (disk full,
read-only, permission denied) is reported and retried with back-off, always with the newest
snapshot, while the fight stays in memory. ``flush`` waits until everything requested so far is on
disk (round end, exit); ``close`` flushes and stops the thread. A UI may have a change wait before
its write (``delay``), and an urgent one (a round's end) wait for the frame that shows it
(``frame_wait``, ended by ``drawn``).

A file changed by someone else since it was last written or read (``store.ChangedOnDisk``: an
editor, mid-session) is not written over: its change is held, ``changed(path)`` is called, and
new requests for it wait (the newest kept) until ``resolve`` says what the GM chose.

The callbacks ``saved(path, when)``, ``failed(message)`` and ``changed(path)`` run on the writer
thread: a UI must hand them to its own thread (Textual: ``app.call_from_thread``) and must not
block in them.
"""

from __future__ import annotations

import atexit
import threading
import time
import weakref
from collections.abc import Callable, Sequence
from pathlib import Path

from attrs import frozen

from facility_tui import store
from facility_tui.commands.session import Session
from facility_tui.model.encounter import Encounter

RETRY_DELAYS = (0.5, 1.0, 2.0, 5.0, 10.0, 30.0)  # seconds between retries of a failed save

Saved = Callable[[Path, float], None]
Failed = Callable[[str], None]
Changed = Callable[[Path], None]
Writer = Callable[[store.Snapshot, Path], None]


@frozen
class _Job:
    seq: int
    path: Path
    snapshot: store.Snapshot


class Autosaver:
    """Writes sessions to disk on a background thread; see the module docstring."""

    def __init__(
        self,
        path: Path | None = None,
        *,
        saved: Saved | None = None,
        failed: Failed | None = None,
        changed: Changed | None = None,
        retry_delays: Sequence[float] = RETRY_DELAYS,
        writer: Writer = store.save_snapshot,
        delay: float = 0.0,
        frame_wait: float = 0.0,
    ) -> None:
        self.path = path
        self._delay = delay  # seconds from the first change of a burst to its write
        # seconds an urgent change waits at most for ``drawn`` (0: no UI, written at once)
        self._frame_wait = frame_wait
        self._awaiting_frame = False
        self._saved_cb = saved
        self._failed_cb = failed
        self._changed_cb = changed
        self._held: set[Path] = set()  # changed outside facility-tui: written once resolved
        self._delays = tuple(retry_delays) or (1.0,)
        self._write = writer
        self._cond = threading.Condition()
        self._pending: dict[Path, _Job] = {}  # the newest job of each path, oldest path first
        self._inflight: _Job | None = None
        self._seq = 0
        self._attempts = 0  # writes started
        self._failed_attempt = 0  # the number of the last write that failed
        self._failures = 0  # in a row
        self._retry_at = 0.0  # monotonic time before which no retry starts (unless flushed)
        self._closing = False
        self.last_saved: float | None = None  # wall-clock time of the last successful save
        self.last_saved_encounter: Encounter | None = None
        self.last_error: str | None = None  # the message of the last failure, until a success
        self._thread = threading.Thread(target=self._run, name="facility-tui autosave", daemon=True)
        self._thread.start()
        ref = weakref.ref(self)
        self._atexit = lambda: (lambda s: s is not None and s.close(2.0))(ref())
        atexit.register(self._atexit)

    # -- the caller's side -------------------------------------------------------------------

    def request(self, session: Session, path: Path | None = None, *, urgent: bool = False) -> None:
        """Save ``session`` (to ``path``, else ``self.path``) soon; returns at once. ``urgent``
        skips the delay (a round boundary: that state is written at once)."""
        target = path if path is not None else self.path
        if target is None:
            raise ValueError("Autosaver.request: no path to save to")
        snap = store.Snapshot.of(session)
        with self._cond:
            if self._closing:
                raise RuntimeError("Autosaver.request after close()")
            self._seq += 1
            if urgent and not self._failures:
                if self._frame_wait:  # after the frame that shows it (``drawn``), not during it
                    waiting = self._retry_at if self._pending or self._inflight else 0.0
                    limit = time.monotonic() + self._frame_wait
                    self._retry_at = min(waiting, limit) if waiting else limit
                    self._awaiting_frame = True
                else:
                    self._retry_at = 0.0
            elif self._delay and not self._pending and self._inflight is None:
                # let the screen draw this change before the write takes its share of the CPU;
                # later changes of the burst join this write instead of delaying it further
                self._retry_at = max(self._retry_at, time.monotonic() + self._delay)
            self._pending.pop(target, None)  # re-insert: the order is that of the oldest change
            self._pending[target] = _Job(self._seq, target, snap)
            self._cond.notify_all()

    def drawn(self) -> None:
        """The UI has drawn the changes requested so far: an urgent write waiting for its frame
        starts now. (A round's end changes every row: written at once, its write would take
        the CPU from the frame that shows it.)"""
        with self._cond:
            if self._awaiting_frame:
                self._awaiting_frame = False
                if not self._failures:
                    self._retry_at = 0.0
                self._cond.notify_all()

    @property
    def pending(self) -> bool:
        """Whether some requested change is not on disk yet."""
        with self._cond:
            return bool(self._pending) or self._inflight is not None

    def pending_for(self, path: Path) -> bool:
        """Whether some requested change of ``path`` is not on disk yet."""
        with self._cond:
            inflight = self._inflight is not None and self._inflight.path == path
            return inflight or path in self._pending

    @property
    def held(self) -> set[Path]:
        """The paths whose file was changed outside facility-tui: their changes wait."""
        with self._cond:
            return set(self._held)

    def resolve(self, path: Path, *, write: bool) -> None:
        """The GM chose for a held ``path``: its waiting change is written (``write``), or
        dropped (the file's version was taken instead)."""
        with self._cond:
            self._held.discard(path)
            if not write:
                self._pending.pop(path, None)
            self._cond.notify_all()

    def flush(self, timeout: float | None = 5.0) -> bool:
        """Wait until every change requested so far is saved; ``False`` if a write fails first
        (after one immediate retry), a file waits for the GM's choice, or on timeout."""
        deadline = None if timeout is None else time.monotonic() + timeout
        with self._cond:
            target = self._seq
            started = self._attempts
            self._retry_at = 0.0  # retry now rather than after the back-off
            self._cond.notify_all()
            while not self._done_through(target):
                if self._failed_attempt > started or self._held & self._pending.keys():
                    return False
                remaining = None if deadline is None else deadline - time.monotonic()
                if remaining is not None and remaining <= 0:
                    return False
                if not self._thread.is_alive():
                    return False
                self._cond.wait(remaining)
            return True

    def close(self, timeout: float | None = 5.0) -> bool:
        """Flush, then stop the writer thread; returns whether everything was saved."""
        ok = self.flush(timeout)
        with self._cond:
            self._closing = True
            self._cond.notify_all()
        self._thread.join(timeout)
        atexit.unregister(self._atexit)
        return ok

    def _done_through(self, seq: int) -> bool:
        if self._inflight is not None and self._inflight.seq <= seq:
            return False
        return all(job.seq > seq for job in self._pending.values())

    # -- the writer thread -------------------------------------------------------------------

    def _run(self) -> None:
        while True:
            with self._cond:
                while True:
                    ready = [p for p in self._pending if p not in self._held]
                    if self._closing and (not ready or self._failures):
                        return
                    wait = self._retry_at - time.monotonic()
                    if ready and wait <= 0:
                        break
                    self._cond.wait(wait if ready else None)
                path = ready[0]
                job = self._inflight = self._pending.pop(path)
                self._attempts += 1
                attempt = self._attempts
            try:
                self._write(job.snapshot, job.path)
            except store.ChangedOnDisk:
                with self._cond:
                    self._inflight = None
                    if job.path not in self._pending:
                        self._pending[job.path] = job  # kept for when the GM has chosen
                    self._held.add(job.path)
                    self._cond.notify_all()
                self._call(self._changed_cb, job.path)
            except Exception as err:  # SaveError, or a bug: the fight stays in memory either way
                message = str(err) if isinstance(err, store.SaveError) else f"{err!r}"
                with self._cond:
                    self._inflight = None
                    if job.path not in self._pending:
                        self._pending[job.path] = job  # retry it unless a newer one came
                    delay = self._delays[min(self._failures, len(self._delays) - 1)]
                    self._failures += 1
                    self._failed_attempt = attempt
                    self._retry_at = time.monotonic() + delay
                    self.last_error = (
                        f"{message}; the fight is still in memory, retrying in {delay:g} s"
                    )
                    self._cond.notify_all()
                self._call(self._failed_cb, self.last_error)
            else:
                when = time.time()
                with self._cond:
                    self._inflight = None
                    self._failures = 0
                    self._retry_at = 0.0
                    self.last_error = None
                    self.last_saved = when
                    self.last_saved_encounter = job.snapshot.encounter
                    self._cond.notify_all()
                self._call(self._saved_cb, job.path, when)

    @staticmethod
    def _call(callback: Callable[..., None] | None, *args: object) -> None:
        if callback is None:
            return
        try:
            callback(*args)
        except Exception:  # a failing status display must not stop the saving
            import traceback

            traceback.print_exc()
