"""Issue 11: one writer per save, across processes; nothing acknowledged is lost."""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from facility_tui import cli, store
from facility_tui.commands.grammar import CommandError
from facility_tui.workspace import Workspace
from tests.conftest import fought
from tests.paths import FIXTURES, ROOT

GM = FIXTURES / "gm.py"


class GM_:
    """A facility-tui workspace in another process, driven a line at a time."""

    def __init__(self, file: Path) -> None:
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        self.proc = subprocess.Popen(
            [sys.executable, str(GM), str(file.parent), str(file)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
        )
        self.hello = self.read()
        assert self.hello.get("ready"), self.hello

    @property
    def pid(self) -> int:
        return self.proc.pid

    def read(self) -> dict[str, Any]:
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        if not line:
            assert self.proc.stderr is not None
            raise AssertionError(f"gm.py ended: {self.proc.stderr.read()}")
        return json.loads(line)  # type: ignore[no-any-return]

    def send(self, line: str) -> dict[str, Any]:
        assert self.proc.stdin is not None
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()
        return self.read()

    def run(self, *lines: str) -> None:
        for line in lines:
            assert self.send(line) == {"ok": True}, line
        assert self.send("!flush") == {"flushed": True}

    def quit(self) -> None:
        assert self.send("!quit") == {"closed": True}
        assert self.proc.wait(timeout=30) == 0

    def kill(self) -> None:
        self.proc.kill()
        self.proc.wait(timeout=30)


@pytest.fixture
def gms() -> Any:
    started: list[GM_] = []

    def start(file: Path) -> GM_:
        gm = GM_(file)
        started.append(gm)
        return gm

    yield start
    for gm in started:
        if gm.proc.poll() is None:
            gm.kill()


def apply(path: Path, *lines: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "facility_tui", "apply", str(path), "-q", *lines],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=ROOT,
    )


def names(path: Path) -> list[str]:
    store.forget(path)
    return [c.name for c in store.load(path).encounter.combatants]


def files_of(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in folder.rglob("*") if p.is_file()}


# -- across processes ---------------------------------------------------------------------------


def test_apply_on_a_save_the_app_writes_is_refused_and_nothing_is_lost(
    tmp_path: Path, gms: Any
) -> None:
    path = tmp_path / "fight.toml"
    gm = gms(path)
    gm.run("add Alpha init=5", "add Beta init=3")
    before = files_of(tmp_path)

    done = apply(path, "add Intruder")
    assert done.returncode == 1
    line = done.stderr.strip()
    assert "\n" not in line and str(path) in line
    assert f"facility-tui app (pid {gm.pid} on {socket.gethostname()}, since " in line
    assert "close it there first" in line and line.endswith("nothing was changed")
    assert files_of(tmp_path) == before  # not a byte, not a file

    with pytest.raises(store.SaveHeld, match=f"pid {gm.pid}"):
        store.save(fought(0), path)  # a writer without a lock takes one for its write
    assert files_of(tmp_path) == before

    gm.run("add Gamma init=1")  # the app goes on: every change it acknowledged is kept
    gm.quit()
    assert names(path) == ["Alpha", "Beta", "Gamma"]
    assert store.holder(path) is None
    assert (tmp_path / "fight.d" / store.LOCK_NAME).read_bytes() == b""  # names no one
    assert apply(path, "add Delta").returncode == 0  # free again
    assert names(path) == ["Alpha", "Beta", "Gamma", "Delta"]


def test_a_second_app_on_the_save_is_refused_shows_it_read_only_then_takes_over(
    tmp_path: Path, gms: Any
) -> None:
    path = tmp_path / "fight.toml"
    first = gms(path)
    first.run("add Alpha init=5")
    second = gms(path)
    assert second.hello["read_only"] is True
    (message,) = second.hello["messages"]
    assert f"pid {first.pid}" in message and "Read-only" in message and "\n" not in message

    refused = second.send("add Intruder")["refused"]
    assert "Read-only" in refused and f"pid {first.pid}" in refused
    assert second.send("!reload") == {"reloaded": False, "names": ["Alpha"]}
    assert "pid" in second.send(f"!open {path}")["refused"]  # still held: stays read-only

    first.run("add Beta init=3")
    assert second.send("!reload") == {"reloaded": True, "names": ["Alpha", "Beta"]}
    first.quit()

    assert second.send(f"!open {path}") == {"opened": True, "read_only": False}
    second.run("add Gamma init=1")
    second.quit()
    assert names(path) == ["Alpha", "Beta", "Gamma"]


def test_a_killed_app_leaves_no_stale_lock(tmp_path: Path, gms: Any) -> None:
    path = tmp_path / "fight.toml"
    gm = gms(path)
    gm.run("add Alpha init=5")
    assert apply(path, "add Beta").returncode == 1
    gm.kill()  # SIGKILL: no clean-up ran; the kernel drops the lock with the process
    assert gm.proc.returncode == -signal.SIGKILL
    done = apply(path, "add Beta")
    assert done.returncode == 0, done.stderr
    assert names(path) == ["Alpha", "Beta"]


def test_switching_saves_and_back_after_another_writer_loses_nothing(tmp_path: Path) -> None:
    """The workspace lets a save go when it shows another; another process then undoes part of
    the fight (its log files shrink) and crosses rounds (backups); the workspace comes back and
    redoes. What it knew of the folder is stale: it must look again, never refer to a log file
    that is gone, and never reuse a backup number."""
    path = tmp_path / "fight.toml"
    ws = Workspace(tmp_path, seed=1)
    ws.autosave()
    ws.open_initial(path)
    for line in ["new 2297 Long seed=4", "add Alpha side=pc init=12", "add Beta init=5", "start"]:
        ws.execute(line)
    while ws.encounter.round < 40:
        ws.execute("roll 2d6")
        ws.execute("next")
    assert ws.flush()
    assert len(list((tmp_path / "fight.d").glob("log-*.toml"))) >= 3
    ws.new_encounter(ws.encounter.system, "Elsewhere")  # fight.toml is let go once saved
    assert ws.flush() and not ws.holds(path)
    by_app = backup_numbers(path)

    done = apply(path, *["undo"] * 60)  # back across log files and rounds
    assert done.returncode == 0, done.stderr
    other = store.load(path)
    by_apply = set(backup_numbers(path)) - set(by_app)

    assert ws.open(path) is None and ws.holds(path)
    assert ws.encounter == other.encounter
    while ws.session.can_redo():  # the same log again: the same log files as before the undo
        ws.execute("redo")
    for _ in range(6):
        ws.execute("next")
    assert ws.close()

    store.forget(path)
    loaded = store.load(path)  # every log file it refers to is there
    assert loaded.encounter == ws.encounter
    numbers = backup_numbers(path)
    assert len(numbers) == len(set(numbers))  # never one number twice...
    assert numbers[0] > max(by_apply) > max(by_app)  # ...each writer numbering on
    for backup in store.backups(path):
        store.load(backup)


def backup_numbers(path: Path) -> list[int]:
    return [int(re.findall(r"backup-(\d+)", p.name)[0]) for p in store.backups(path)]


# -- in one process -----------------------------------------------------------------------------


def test_the_lock_names_its_holder_and_goes_with_its_release(tmp_path: Path) -> None:
    path = tmp_path / "deep" / "er" / "fight.toml"
    assert store.holder(path) is None
    lock = store.lock_save(path, "facility-tui apply")
    who = store.holder(path)
    assert who is not None and (who.pid, who.role) == (os.getpid(), "facility-tui apply")
    assert who.host == socket.gethostname() and who.is_this_process()
    with pytest.raises(store.SaveHeld) as again:
        store.lock_save(path, "facility-tui app")
    assert "already" in str(again.value) and again.value.holder == who
    lock.release()
    lock.release()  # twice is harmless
    assert store.holder(path) is None
    assert not (tmp_path / "deep").exists()  # nothing was saved: no folder left behind


def test_apply_that_fails_on_a_new_save_leaves_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "new" / "fight.toml"
    assert cli.main(["apply", str(path), "add A", "flibble"]) == 1
    assert not (tmp_path / "new").exists()
    assert cli.main(["apply", str(path), "add A"]) == 0
    assert store.holder(path) is None
    capsys.readouterr()


def test_the_workspace_holds_what_it_shows_and_lets_go(tmp_path: Path) -> None:
    a, b = tmp_path / "a.toml", tmp_path / "b.toml"
    store.save(fought(0), a)
    store.save(fought(1), b)
    ws = Workspace(tmp_path)
    ws.autosave()
    ws.open(a)
    assert ws.holds(a) and store.holder(a) is not None
    with pytest.raises(store.SaveHeld):
        store.lock_save(a, "facility-tui apply")
    ws.execute("roll 1d6")
    ws.open(b)  # a's last change is written, then a is let go
    assert ws.holds(b) and not ws.holds(a) and store.holder(a) is None
    assert store.load(a).encounter.log[-1].text.startswith("Roll: 1d6")
    ws.new_encounter(ws.encounter.system, "C")
    assert not ws.holds(b) and ws.holds(ws.path)
    assert ws.close()
    assert all(store.holder(p) is None for p in (a, b, ws.path))


def test_open_of_a_held_save_changes_nothing_and_read_only_follows_it(tmp_path: Path) -> None:
    a, b = tmp_path / "a.toml", tmp_path / "b.toml"
    s = fought(0)
    store.save(s, a)
    ws = Workspace(tmp_path)
    ws.autosave()
    ws.open_initial(b)
    ws.execute("add Mine")
    other = store.lock_save(a, "facility-tui apply")  # as another process would
    with pytest.raises(store.SaveHeld, match="facility-tui apply"):
        ws.open(a)
    assert ws.path == b and ws.holds(b) and not ws.read_only  # nothing changed here

    assert ws.open_read_only(a) is None
    assert ws.read_only and ws.encounter == s.encounter and not ws.holds(b)
    assert ws.held_by() == other.holder
    with pytest.raises(CommandError, match=r"Read-only.*facility-tui apply.*nothing changed"):
        ws.execute("add X")
    assert not ws.reload_if_changed()
    s.apply("add Newcomer")
    store.save(s, a)  # the holder writes
    assert ws.reload_if_changed() and ws.encounter == s.encounter
    assert not ws.reload_if_changed()
    with pytest.raises(store.SaveHeld):
        ws.save()
    other.release()
    ws.open(a)  # its writer is gone: writable here now
    assert not ws.read_only and ws.holds(a)
    ws.execute("add Mine too")
    assert ws.close()
    assert [c.name for c in store.load(a).encounter.combatants][-1] == "Mine too"
    assert store.load(b).encounter.combatants[-1].name == "Mine"


def test_reopening_the_shown_save_keeps_its_newest_change(tmp_path: Path) -> None:
    path = tmp_path / "a.toml"
    ws = Workspace(tmp_path)
    ws.autosave(delay=30.0)  # the write would wait: reading the file now would lose the change
    ws.open_initial(path)
    ws.execute("add Alpha")
    ws.execute("log typed just now")
    assert ws.open(path) is None
    assert ws.encounter.log[-1].text == "typed just now"
    assert ws.close()
    assert store.load(path).encounter.log[-1].text == "typed just now"


def test_backup_numbers_never_repeat(tmp_path: Path) -> None:
    path = tmp_path / "f.toml"
    s = fought(1)
    store.save(s, path)
    for _ in range(3):
        store.forget(path)  # each save like a new process: numbers come from the folder
        s.apply("next")
        s.apply("next")
        store.save(s, path)
    seqs = [p.name.split("-")[1] for p in store.backups(path)]
    assert len(seqs) == len(set(seqs)) == 4
