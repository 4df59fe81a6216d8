"""The app shell's model: which save folder, which file, which session — no Textual here.

The screens talk to a ``Workspace``; it runs command lines on the session, picks the file a fight is
saved to, opens what a launch should show (the given file, the newest save, or the demo), and
hands every change to the autosaver, which writes it off the caller's thread.
"""

from __future__ import annotations

import os
from pathlib import Path

from attrs import evolve

from facility_tui import store
from facility_tui.autosave import Autosaver, Failed, Saved
from facility_tui.commands import CommandError
from facility_tui.model import Encounter, System
from facility_tui.session import Outcome, Session


class Workspace:
    def __init__(self, folder: Path, seed: int | None = None) -> None:
        self.folder = folder
        self.seed = seed
        self.session: Session = store.fresh_session()
        self.path: Path = folder / "untitled.toml"
        self.saver: Autosaver | None = None
        self.demo: System | None = None  # what open_initial opens instead of the newest save
        self._saved_round: tuple[int, object] = (-1, None)

    # -- saving -------------------------------------------------------------------------------

    def autosave(
        self, *, saved: Saved | None = None, failed: Failed | None = None, delay: float = 0.0
    ) -> None:
        """Save every change from now on, in the background; the callbacks run on its thread.
        ``delay``: how long a change may wait for its write (a UI lets its frame go first)."""
        self.saver = Autosaver(saved=saved, failed=failed, delay=delay)
        self.session.listeners.append(self._changed)

    def _use(self, session: Session, path: Path) -> None:
        if self.saver is not None:
            self.saver.flush(1.0)  # the fight being left is on disk before another is shown
            session.listeners.append(self._changed)
        self.session, self.path = session, path

    def _changed(self, session: Session) -> None:
        if self.saver is not None and session is self.session:
            enc = session.encounter
            boundary = (enc.round, enc.phase) != self._saved_round  # round ends are never delayed
            self._saved_round = (enc.round, enc.phase)
            self.saver.request(session, self.path, urgent=boundary)

    def save_soon(self) -> None:
        """Save the current state even though nothing changed (a new or recovered fight)."""
        self._changed(self.session)

    def save(self) -> None:
        """Save now, on this thread (the headless path and tests)."""
        store.save(self.session, self.path)

    def flush(self, timeout: float = 5.0) -> bool:
        """Wait until the last change is on disk; ``False`` if it could not be written."""
        if self.saver is None:
            return True
        self.saver.request(self.session, self.path)
        return self.saver.flush(timeout)

    def close(self, timeout: float = 5.0) -> bool:
        """Flush what is pending and stop saving; ``False`` if the last change is not on disk."""
        if self.saver is None:
            return True
        self.saver.request(self.session, self.path)
        return self.saver.close(timeout)

    # -- opening ------------------------------------------------------------------------------

    def open_initial(self, file: Path | None = None, demo: System | None = None) -> list[str]:
        """Open what a launch should show: ``file``, a fresh copy of the ``demo`` of a rule
        system, or else the newest save (the 2297 demo when there is none). Returns messages for
        the GM, one line each."""
        messages: list[str] = []
        swept = store.sweep_temp(self.folder)
        demo = demo or self.demo
        if demo is not None:
            self.start_demo(demo)
            messages.append(f"Demo fight ({demo.value}) in {self.path.name}; press s to start it")
            return messages
        if swept:
            messages.append(f"Removed {swept} unfinished temporary file(s) from {self.folder}")
        candidates = [file] if file is not None else store.list_saves(self.folder)
        for path in candidates:
            if file is not None and not path.exists():
                self._use(store.fresh_session(), path)
                messages.append(f"{path} is new: it will be created when the fight changes")
                return messages
            try:
                note = self.open(path)
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
        """Open a save, or the newest good backup of a damaged one; returns what was done then."""
        session, note = store.load_or_recover(path)
        self._use(session, path)
        if note:
            self.save_soon()
        return note

    def start_demo(self, system: System = System.R2297) -> None:
        """A fresh copy of a demo fight, in a file of its own."""
        from facility_tui.demo import demo_encounter

        enc = demo_encounter(system)
        if self.seed is not None:
            enc = evolve(enc, seed=self.seed)
        self._use(Session(enc), self.unused_path(enc.name))
        self.save_soon()

    def new_encounter(self, system: System, name: str) -> None:
        """Start an empty encounter in a file of its own; the current one stays saved."""
        seed = self.seed if self.seed is not None else int.from_bytes(os.urandom(4), "big")
        enc = store.blank()
        enc = evolve(enc, seed=seed)
        session = Session(enc)
        session.apply(f"new {system.value} {_quoted(name)} seed={seed}")
        # a fresh fight starts with an empty history
        self._use(Session(session.encounter), self.unused_path(name))
        self.save_soon()

    def unused_path(self, name: str) -> Path:
        """The first of ``name``'s files (``fight.toml``, ``fight-2.toml``...) not in use."""
        n = 1
        while store.in_use(path := store.path_for(self.folder, name, n)):
            n += 1
        return path

    # -- working ------------------------------------------------------------------------------

    @property
    def encounter(self) -> Encounter:
        return self.session.encounter

    def execute(self, line: str) -> Outcome:
        """Run a command line; raises ``CommandError`` (state unchanged) on bad input."""
        line = line.strip()
        if not line:
            raise CommandError("type a command, or press escape; ? lists them")
        return self.session.execute(line)

    def saves(self) -> list[Path]:
        return store.list_saves(self.folder)


def _quoted(text: str) -> str:
    from facility_tui.commands import quote

    return quote(text)
