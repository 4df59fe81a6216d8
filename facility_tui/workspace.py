"""The app shell's model: which save folder, which file, which session — no Textual here.

The screens talk to a ``Workspace``; it runs command lines on the session, picks the file a fight is
saved to, opens what a launch should show (the given file, the newest save, or the demo), and
hands every change to the autosaver, which writes it off the caller's thread.

Nothing is opened in place of a save that is refused (damaged, or a hand edit that fails its
checks) unless the GM chooses it (``open_good``). A save changed outside while shown is not
written over: its writes wait until the GM takes the edit (``take_edit``) or keeps this window's
fight (``keep_mine``); the other version is kept in the save's ``.d`` folder.

One writer per save: the workspace holds the write lock (``store.lock_save``) of the save it
shows, from the moment it opens or creates it until it shows another one (and that one's last
change is on disk) or closes. A save another process holds opens read-only
(``open_read_only``): it is shown, re-read when it changes (``reload_if_changed``), and every
command is refused with a line saying who writes it. When the lock cannot be had for another
reason (a read-only folder), the fight is still played: the autosaver reports each failed write,
as for any disk error, and keeps the fight in memory.
"""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Callable
from functools import partial
from pathlib import Path

from attrs import evolve

from facility_tui import store
from facility_tui.autosave import Autosaver, Changed, Failed, Saved
from facility_tui.campaign.folder import Campaign, reads_as_day
from facility_tui.commands.grammar import CommandError
from facility_tui.commands.session import Outcome, Session
from facility_tui.model.encounter import Encounter
from facility_tui.model.text import counted
from facility_tui.systems import DEFAULT

ROLE = "facility-tui app"


class Workspace:
    def __init__(self, folder: Path, seed: int | None = None, role: str = ROLE) -> None:
        self.folder = folder
        self.seed = seed
        self.role = role  # written into the locks it takes, for the message of a refused writer
        self.session: Session = store.fresh_session()
        self.path: Path = folder / "untitled.toml"
        self.read_only = False  # the shown save is another writer's: commands are refused
        self.saver: Autosaver | None = None
        self.demo: str | None = None  # what open_initial opens instead of the newest save
        self._saved_round: tuple[int, object] = (-1, None)
        self._locks: dict[str, store.WriteLock] = {}  # by absolute path: the shown save's...
        self._guard = threading.Lock()  # ...and those of saves left with writes still pending
        self._opening: set[str] = set()  # locks taken for a save about to be shown: kept
        self._seen: tuple[int, ...] | None = None  # the read-only save's file, as last read
        self.shown = False  # a fight is shown (until then, closing writes nothing)
        self.refused: tuple[Path, str] | None = None  # a save open_initial could not take
        self._opened: Encounter | None = None  # the fight as opened: changed, a backup at close
        # a change of the shown fight was handed to the saver since it was shown: flushing or
        # closing writes it again (a fight opened and left as it was is not written at all)
        self._touched = False
        self.ledger_note = ""  # why the last end could not be kept in the forecast ledger

    # -- saving -------------------------------------------------------------------------------

    def autosave(
        self,
        *,
        saved: Saved | None = None,
        failed: Failed | None = None,
        changed: Changed | None = None,
        delay: float = 0.0,
        frame_wait: float = 0.0,
    ) -> None:
        """Save every change from now on, in the background; the callbacks run on its thread.
        ``delay``: how long a change may wait for its write (a UI lets its frame go first);
        ``frame_wait``: how long a round's end may wait for ``drawn``.
        ``changed(path)``: the save was changed outside facility-tui; its writes wait for
        ``take_edit`` or ``keep_mine``."""

        def on_saved(path: Path, when: float) -> None:
            self._release_unused()  # a save left with a write pending is free once it is done
            if saved is not None:
                saved(path, when)

        self.saver = Autosaver(
            saved=on_saved, failed=failed, changed=changed, delay=delay, frame_wait=frame_wait
        )
        self.session.listeners.append(self._changed)

    def _use(self, session: Session, path: Path, *, seen: tuple[int, ...] | None = None) -> None:
        """Show ``session`` of ``path``: read-only if ``seen`` (the file as it was read) is
        given."""
        session.campaign, session.seed = Campaign(self.folder), self.seed
        if self.saver is not None:
            self.saver.flush(1.0)  # the fight being left is on disk before another is shown
            session.listeners.append(self._changed)
        with self._guard:
            self.session, self.path, self.read_only = session, path, seen is not None
            self._seen = seen
            self.shown, self.refused, self._opened = True, None, session.encounter
            self._touched = False
            self._opening.clear()
            self._release_unused_locked()

    def _changed(self, session: Session) -> None:
        if self.saver is not None and session is self.session and not self.read_only:
            enc = session.encounter
            boundary = (enc.round, enc.phase) != self._saved_round  # round ends are never delayed
            self._saved_round = (enc.round, enc.phase)
            self._touched = True
            self.saver.request(session, self.path, urgent=boundary)

    def drawn(self) -> None:
        """The UI shows the last change: a round's end waiting for its frame is written now."""
        if self.saver is not None:
            self.saver.drawn()

    def save_soon(self) -> None:
        """Save the current state even though nothing changed (a new or recovered fight)."""
        self._changed(self.session)

    def save(self) -> None:
        """Save now, on this thread (the headless path and tests); ``SaveError`` if it cannot
        be (``SaveHeld`` when another writer holds the save)."""
        if self.read_only:
            raise store.SaveHeld(self.path, self.held_by(), self.read_only_message())
        self._hold(self.path)
        store.save(self.session, self.path)

    def flush(self, timeout: float = 5.0) -> bool:
        """Wait until the last change is on disk; ``False`` if it could not be written (or
        waits for the GM's choice: ``changed_outside``)."""
        if self.saver is None:
            return True
        if self._writable():
            self.saver.request(self.session, self.path)
        return self.saver.flush(timeout)

    def close(self, timeout: float = 5.0) -> bool:
        """Flush what is pending, keep the fight as a backup if it changed since it was opened
        (the newest good version is then never older than what the GM last saw), stop saving
        and let go of the saves' locks; ``False`` if the last change is not on disk (a fight
        waiting for the GM's choice about an outside edit is kept beside its save)."""
        ok, busy = True, False
        if self.saver is not None:
            writing = self._writable()
            if writing:
                self.saver.request(self.session, self.path)
            ok = self.saver.close(timeout)
            busy = self.saver.pending  # a write still running: its lock goes with the process
            if writing and self.path in self.saver.held:
                with contextlib.suppress(OSError):
                    store.keep_copy(self.path, "unsaved", session=self.session)
            elif writing and ok and self.session.encounter is not self._opened:
                with contextlib.suppress(store.SaveError):
                    store.keep_backup(self.session, self.path)
        if not busy:
            with self._guard:
                for lock in self._locks.values():
                    lock.release()
                self._locks.clear()
        return ok

    # -- an edit made while the save is open --------------------------------------------------

    def changed_outside(self) -> tuple[str, bool]:
        """What the edit made to the shown save outside facility-tui is, one line, and whether
        it can be taken (it passes the hand-edit checks)."""
        try:
            opened = store.open_save(self.path, keep_aside=False)
        except store.SaveError as err:
            return str(err).removesuffix("; it was left untouched"), False
        return opened.message or f"{self.path} was rewritten outside facility-tui", True

    def take_edit(self) -> str:
        """Take the shown save as edited outside (checked, one undoable step); this window's
        version is kept beside it. Returns the line for the GM; raises ``SaveError`` if the
        edit is refused (nothing changed)."""
        assert self.saver is not None
        path = self.path
        opened = store.open_save(path)
        try:
            copy = store.keep_copy(path, "unsaved", session=self.session)
            mine = f"; this window's version is kept as {copy.name}"
        except OSError as err:
            mine = f"; this window's version could not be kept ({err.strerror or err})"
        self.saver.resolve(path, write=False)
        self._use(opened.session, path)
        self.save_soon()
        return (opened.message or f"Took {path.name} as changed outside facility-tui") + mine

    def keep_mine(self) -> str:
        """Write this window's fight over the shown save; the edited file is kept beside it."""
        assert self.saver is not None
        path = self.path
        seen = store.file_signature(path)
        try:
            text = store.read_regular(path)[0].decode("utf-8", "replace")
            kept = f"the edited file is kept as {store.keep_copy(path, 'edited', text=text).name}"
        except (store.SaveError, OSError) as err:
            kept = f"the edited file could not be kept ({err})"
        store.expect(path, seen)
        self.saver.resolve(path, write=True)
        return f"Kept this window's fight in {path.name}; {kept}"

    # -- the write locks ------------------------------------------------------------------------

    def _hold(self, path: Path) -> bool:
        """Hold the write lock of ``path`` (kept if already held). ``True`` if held; ``False``
        if it cannot be made (a read-only folder: writes will fail and say so); raises
        ``SaveHeld`` if another writer has it."""
        key = os.path.abspath(path)
        with self._guard:
            if key in self._locks:
                self._opening.add(key)
                return True
        try:
            lock = store.lock_save(path, self.role)
        except store.SaveHeld:
            raise
        except store.SaveError:
            return False
        with self._guard:
            self._locks[key] = lock
            self._opening.add(key)  # until it is shown (``_use``) or given up (``_let_go``)
        return True

    def _let_go(self, path: Path) -> None:
        """Give up a save that was about to be shown (it could not be read, or was taken)."""
        with self._guard:
            self._opening.discard(os.path.abspath(path))
            self._release_unused_locked()

    def _writable(self) -> bool:
        """Whether flushing or closing writes the shown fight: changed since it was shown, and
        its save held, or unlockable for a reason that its writes will report (not another
        writer's lock)."""
        if not self.shown or self.read_only or not self._touched:
            return False
        try:
            self._hold(self.path)
        except store.SaveHeld:
            return False
        return True

    def _release_unused(self) -> None:
        with self._guard:
            self._release_unused_locked()

    def _release_unused_locked(self) -> None:
        shown = None if self.read_only else os.path.abspath(self.path)
        for key, lock in list(self._locks.items()):
            if key == shown or key in self._opening:
                continue
            if self.saver is not None and self.saver.pending_for(lock.path):
                continue
            lock.release()
            del self._locks[key]

    def holds(self, path: Path) -> bool:
        """Whether this workspace holds the write lock of ``path``."""
        with self._guard:
            lock = self._locks.get(os.path.abspath(path))
        return lock is not None and lock.held

    def held_by(self) -> store.Holder | None:
        """Who else holds the shown save (for a read-only view); ``None`` if no one does."""
        if self.holds(self.path):
            return None
        return store.holder(self.path)

    def read_only_message(self) -> str:
        who = self.held_by()
        by = f"{who.describe()} writes it" if who is not None else "o reopens it for writing"
        return f"Read-only ({by}): nothing changed"

    # -- opening ------------------------------------------------------------------------------

    def open_initial(self, file: Path | None = None, demo: str | None = None) -> list[str]:
        """Open what a launch should show: ``file``, a fresh copy of the ``demo`` of a rule
        system, or else the newest save (the 2297 demo when there is none). A save another
        process writes opens read-only, and says so. A save that is refused (damaged, or a hand
        edit its checks refuse) opens nothing: ``refused`` says which and why, for the GM to
        choose (``open``, ``open_good``). Returns messages for the GM, one line each."""
        messages: list[str] = []
        swept = store.sweep_temp(self.folder)
        demo = demo or self.demo
        if demo is not None:
            self.start_demo(demo)
            messages.append(f"Demo fight ({demo}) in {self.path.name}; press s to start it")
            return messages
        if swept:
            messages.append(
                f"Removed {counted(swept, 'unfinished temporary file')} from {self.folder}"
            )
        candidates = [file] if file is not None else store.list_saves(self.folder)
        for path in candidates:
            if file is None and reads_as_day(path):
                continue  # (a day of fights named otherwise than *.day.toml: no save to open)
            try:
                if file is not None and not path.exists():
                    self._hold(path)
                    self._use(store.fresh_session(), path)
                    messages.append(f"{path} is new: it will be created when the fight changes")
                    return messages
                try:
                    note = self.open(path)
                except store.SaveHeld as held:
                    note = self.open_read_only(path)
                    who = held.holder.describe() if held.holder else "another window"
                    messages.append(f"Read-only: {path.name} is open in {who}")
            except store.DamagedSave as err:
                self.refused = (path, str(err))  # the GM is asked what to do: nothing shown
                return messages
            except store.SaveError as err:
                messages.append(str(err))
                continue
            if note:
                messages.append(note)
            return messages
        self.start_demo()
        messages.append(
            "Demo fight loaded. Press s to start it, ctrl+n for a new encounter, ? for keys"
        )
        return messages

    def open(self, path: Path) -> str | None:
        """Open a save for writing; returns a line for the GM if there is one (an edit made
        outside facility-tui, taken). Raises ``SaveHeld`` (another writer has it:
        ``open_read_only`` shows it), ``DamagedSave`` (damaged, or an edit refused: the GM
        chooses, ``open_good`` opens the newest good version) or another ``SaveError``; then
        nothing changed here."""
        if not self.read_only and self.holds(path) and self._same(path, self.path):
            return None  # it is the one shown: reading it again could only lose the newest change
        return self._open(path, partial(store.open_save, later=True))

    def open_good(self, path: Path) -> str:
        """Open the newest good version of a refused save, chosen by the GM: the refused file
        is renamed aside (never deleted) and the good version saved in its place; the line
        saying which version, how old, what it lacks and where the refused file went."""
        note = self._open(path, store.recover)
        assert note is not None
        return note

    def _open(self, path: Path, how: Callable[[Path], store.Opened]) -> str | None:
        self._wait_for_writes(path)
        self._hold(path)
        try:
            opened = how(path)
        except BaseException:
            self._let_go(path)
            raise
        self._use(opened.session, path)
        if opened.message:
            self.save_soon()
        return opened.message

    def open_read_only(self, path: Path) -> str | None:
        """Show a save without writing it (another process does): commands are refused, and
        ``reload_if_changed`` reads it again when its writer saves. Opening it later with
        ``open`` makes it writable if its writer has gone. Returns a note if a backup was shown
        (the save itself is damaged; it is left in place). Raises ``SaveError`` if neither can
        be read."""
        self._wait_for_writes(path)
        seen = store.file_signature(path) or ()  # before reading: a write meanwhile is seen
        session, note = store.load_or_recover(path, keep_aside=False, from_backup=True, later=True)
        self._use(session, path, seen=seen)
        return note

    def written_at(self) -> float | None:
        """When the shown save was last written (its file's time); ``None`` if it is not on
        disk yet."""
        try:
            return os.stat(self.path).st_mtime
        except OSError:
            return None

    def reload_if_changed(self) -> bool:
        """For a read-only view: read the save again if it was written since it was last read
        (cheap when it was not: one ``stat``); ``True`` if the session was replaced. A save
        that cannot be read just now keeps the last one shown."""
        if not self.read_only:
            return False
        seen = store.file_signature(self.path)
        if seen is None or seen == self._seen:
            return False  # not written since (or not there just now: its writer replaces it)
        try:
            session, _ = store.load_or_recover(self.path, keep_aside=False, later=True)
        except store.SaveError:
            return False
        with self._guard:
            if not self.read_only:  # opened for writing meanwhile
                return False
            session.campaign = Campaign(self.folder)
            self.session, self._seen = session, seen
        return True

    def _wait_for_writes(self, path: Path) -> None:
        """A save this workspace still has a write pending for is read only once it is done."""
        if self.saver is not None and self.saver.pending_for(path) and not self.saver.flush(3.0):
            raise store.SaveError(
                f"the last change to {path.name} is not on disk yet "
                f"({self.saver.last_error or 'still writing'}); try again in a moment"
            )

    @staticmethod
    def _same(a: Path, b: Path) -> bool:
        return os.path.abspath(a) == os.path.abspath(b)

    def start_demo(self, system: str = DEFAULT) -> None:
        """A fresh copy of a demo fight, in a file of its own."""
        from facility_tui.campaign.demo import demo_encounter

        enc = demo_encounter(system)
        if self.seed is not None:
            enc = evolve(enc, seed=self.seed)
        self._use(Session(enc), self._claim(enc.name))
        self.save_soon()

    def new_encounter(self, system: str, name: str) -> None:
        """Start an empty encounter in a file of its own; the current one stays saved."""
        seed = self.seed if self.seed is not None else int.from_bytes(os.urandom(4), "big")
        enc = store.blank()
        enc = evolve(enc, seed=seed)
        session = Session(enc)
        session.apply(f"new {system} {_quoted(name)} seed={seed}")
        # a fresh fight starts with an empty history
        self._use(Session(session.encounter), self._claim(name))
        self.save_soon()

    def unused_path(self, name: str) -> Path:
        """The first of ``name``'s files (``fight.toml``, ``fight-2.toml``...) not in use."""
        n = 1
        while store.in_use(path := store.path_for(self.folder, name, n)):
            n += 1
        return path

    def _claim(self, name: str) -> Path:
        """An unused file for a new fight named ``name``, its lock held: another process
        starting a fight of that name at the same moment gets the next file."""
        n = 1
        while True:
            path = store.path_for(self.folder, name, n)
            n += 1
            if store.in_use(path):
                continue
            try:
                held = self._hold(path)
            except store.SaveHeld:
                continue
            if held and os.path.lexists(path):  # written between the look and the lock
                self._let_go(path)
                continue
            return path

    # -- working ------------------------------------------------------------------------------

    @property
    def encounter(self) -> Encounter:
        return self.session.encounter

    def execute(self, line: str, *, prompt: bool = False) -> Outcome:
        """Run a command line; raises ``CommandError`` (state unchanged) on bad input, or when
        the save is another writer's (read-only); ``prompt``: ``dice.NeedRoll`` when the GM is
        to type a roll (table dice), state unchanged."""
        line = line.strip()
        if not line:
            raise CommandError("type a command, or press escape; ? lists them")
        self.check_writable()
        before = self.session.encounter
        outcome = self.session.execute(line, prompt=prompt)
        self.ledger_note = _ended(self.session, self.path, before)
        return outcome

    def take_ledger_note(self) -> str:
        """The line to say that the fight's end could not be kept in the ledger ("": none)."""
        note, self.ledger_note = self.ledger_note, ""
        return note

    def check_writable(self) -> None:
        """``CommandError`` unless this window may change the shown fight (its timeline's
        names and hidden branches too)."""
        if self.read_only:
            raise CommandError(self.read_only_message())
        try:
            self._hold(self.path)
        except store.SaveHeld as err:
            raise CommandError(f"{err}; nothing was changed") from None

    def go(self, nid: int) -> Outcome:
        """Make step ``nid`` of the timeline the present (autosaved as any change; ``u`` then
        walks back from it, the next command branches from it); ``CommandError`` if it cannot
        be (nothing changed)."""
        self.check_writable()
        before = self.session.encounter
        outcome = self.session.go(nid)
        self.ledger_note = _ended(self.session, self.path, before)
        return outcome

    def preview(self, line: str) -> list[str]:
        """What ``line`` would do (shown as the GM types it); changes nothing, even read-only."""
        return self.session.preview(line)

    def saves(self) -> list[Path]:
        """The campaign's saves, the newest first (a day of fights however named left out)."""
        return [p for p in store.list_saves(self.folder) if not reads_as_day(p)]


def _ended(session: Session, path: Path, before: Encounter) -> str:
    """A change that ended the fight writes its outcome to the forecast ledger
    (``campaign.ledger``); the line to say when it could not ("")."""
    if session.encounter is before:
        return ""
    from facility_tui.campaign.ledger import end_note

    return end_note(session.campaign, path, before, session.encounter)


def _quoted(text: str) -> str:
    from facility_tui.commands.grammar import quote

    return quote(text)
