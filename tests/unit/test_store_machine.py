"""Hypothesis state machine (issue 5): commands, undo, redo, save, reload — reload equals memory."""

from __future__ import annotations

import contextlib
import shutil
import tempfile
from pathlib import Path

from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule

from facility_tui import store
from facility_tui.commands.grammar import CommandError
from facility_tui.commands.session import Session

NAMES = ["Alpha", "Beta", "Gamma", "O'''Neil", 'Zoë "Z"']


class SaveReload(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        self.folder = Path(tempfile.mkdtemp(prefix="facility-machine-"))
        self.path = self.folder / "fight.toml"
        self.session = store.fresh_session()
        self.session.apply("new 2297 Machine seed=11")
        self.saved: Session | None = None

    def teardown(self) -> None:
        shutil.rmtree(self.folder, ignore_errors=True)

    def run(self, line: str) -> None:
        with contextlib.suppress(CommandError):  # refused commands change nothing
            self.session.execute(line)

    @rule(
        name=st.sampled_from(NAMES), side=st.sampled_from(["pc", "enemy"]), init=st.integers(0, 20)
    )
    def add(self, name: str, side: str, init: int) -> None:
        from facility_tui.commands.grammar import quote

        self.run(f"add {quote(name)} side={side} init={init}")

    @rule(i=st.integers(0, 5))
    def remove(self, i: int) -> None:
        ids = [c.id for c in self.session.encounter.combatants]
        if ids:
            self.run(f"remove {ids[i % len(ids)]}")

    @rule(i=st.integers(0, 5), value=st.integers(0, 20))
    def init(self, i: int, value: int) -> None:
        ids = [c.id for c in self.session.encounter.combatants]
        if ids:
            self.run(f"init {ids[i % len(ids)]} {value}")

    @rule(line=st.sampled_from(["start", "next", "next", "next", "prev", "roll 2d6", "end"]))
    def command(self, line: str) -> None:
        self.run(line)

    @rule(n=st.integers(1, 4))
    def bulk_next(self, n: int) -> None:
        for _ in range(n * 10):
            self.run("next")

    @rule(n=st.integers(1, 30))
    def undo(self, n: int) -> None:
        for _ in range(n):
            if self.session.can_undo():
                self.session.undo()

    @rule(n=st.integers(1, 30))
    def redo(self, n: int) -> None:
        for _ in range(n):
            if self.session.can_redo():
                self.session.redo()

    @rule()
    def save(self) -> None:
        store.save(self.session, self.path)
        self.saved = self.session

    @precondition(lambda self: self.saved is not None)
    @rule(fresh_process=st.booleans())
    def reload(self, fresh_process: bool) -> None:
        store.save(self.session, self.path)
        if fresh_process:
            store.forget(self.path)  # as if another run of the app opened it
        loaded = store.load(self.path)
        self.same(loaded, self.session)
        self.session = loaded

    @invariant()
    def self_contained_copy_equals_memory(self) -> None:
        if len(self.session.encounter.log) % 7 == 0:
            self.same(store.loads(store.dumps(self.session)), self.session)

    @staticmethod
    def same(a: Session, b: Session) -> None:
        assert a.encounter == b.encounter
        assert a.undo_steps == b.undo_steps
        assert a.redo_steps == b.redo_steps
        assert a.base == b.base


SaveReload.TestCase.settings = settings(max_examples=40, stateful_step_count=40, deadline=None)
TestSaveReload = SaveReload.TestCase
