"""The app shell's model: which save folder, which file, which session — no Textual here.

The screens talk to a ``Workspace``; it runs command lines on the session, picks the file a fight is
saved to, and opens what a launch should show (the given file, the newest save, or the demo).
"""

from __future__ import annotations

import os
from pathlib import Path

from attrs import evolve

from facility_tui import store
from facility_tui.commands import CommandError
from facility_tui.model import Encounter, System
from facility_tui.session import Outcome, Session


class Workspace:
    def __init__(self, folder: Path, seed: int | None = None) -> None:
        self.folder = folder
        self.seed = seed
        self.session: Session = store.fresh_session()
        self.path: Path = folder / "untitled.toml"

    # -- opening ------------------------------------------------------------------------------

    def open_initial(self, file: Path | None = None) -> list[str]:
        """Open what a launch should show; returns messages for the GM (one line each)."""
        messages: list[str] = []
        swept = store.sweep_temp(self.folder)
        if swept:
            messages.append(f"Removed {swept} unfinished temporary file(s) from {self.folder}")
        candidates = [file] if file is not None else store.list_saves(self.folder)
        for path in candidates:
            if file is not None and not path.exists():
                self.session = store.fresh_session()
                self.path = path
                messages.append(f"{path} is new: it will be created when the fight changes")
                return messages
            try:
                self.open(path)
                return messages
            except store.SaveError as err:
                messages.append(str(err))
        self.start_demo()
        messages.append(
            "Demo fight loaded. Press s to start it, ctrl+n for a new encounter, ? for keys"
        )
        return messages

    def open(self, path: Path) -> None:
        self.session = store.load(path)
        self.path = path

    def start_demo(self) -> None:
        from facility_tui.demo import demo_encounter

        enc = demo_encounter()
        if self.seed is not None:
            enc = evolve(enc, seed=self.seed)
        self.session = Session(enc)
        self.path = self.unused_path(enc.name)

    def new_encounter(self, system: System, name: str) -> None:
        """Start an empty encounter in a file of its own; the current one stays saved."""
        seed = self.seed if self.seed is not None else int.from_bytes(os.urandom(4), "big")
        enc = store.blank()
        enc = evolve(enc, seed=seed)
        session = Session(enc)
        session.apply(f"new {system.value} {_quoted(name)} seed={seed}")
        self.session = Session(session.encounter)  # a fresh fight starts with an empty history
        self.path = self.unused_path(name)

    def unused_path(self, name: str) -> Path:
        path = store.path_for(self.folder, name)
        n = 1
        while path.exists():
            n += 1
            path = store.path_for(self.folder, f"{name} {n}")
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

    def save(self) -> None:
        store.save(self.session, self.path)

    def saves(self) -> list[Path]:
        return store.list_saves(self.folder)


def _quoted(text: str) -> str:
    from facility_tui.commands import quote

    return quote(text)
