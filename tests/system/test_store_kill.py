"""SIGKILL at random moments (issue 5): every save loads, at least as new as the last reported."""

from __future__ import annotations

import itertools
import os
import random
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from facility_tui import store
from tests.paths import FIXTURES

WRITER = FIXTURES / "writer_loop.py"
pytestmark = pytest.mark.skipif(os.name != "posix", reason="SIGKILL")


def gen_of(enc: object) -> int:
    sys.path.insert(0, str(WRITER.parent))
    try:
        from writer_loop import gen_of as real
    finally:
        sys.path.pop(0)
    return real(enc)  # type: ignore[arg-type]


def test_kill_9_the_autosaving_writer_many_times(tmp_path: Path) -> None:
    path = tmp_path / "fight.toml"
    rng = random.Random(2297)
    reported = 0
    kills = 0
    branches = 0
    deadline = time.monotonic() + 8
    while time.monotonic() < deadline or kills < 15:
        proc = subprocess.Popen(
            [sys.executable, str(WRITER), str(path), str(kills)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        # kill at a random moment: one launch in three from its start (while starting or
        # loading), the others once it is writing (counted from its "ready": on a loaded
        # machine starting alone takes longer than the whole window)
        head = ""
        if kills % 3:
            assert proc.stdout is not None
            while not head.endswith("ready\n"):
                line = proc.stdout.readline()
                if not line:
                    break
                head += line
        timer = threading.Timer(rng.uniform(0.0, 0.6), proc.send_signal, (signal.SIGKILL,))
        timer.start()
        out, err = proc.communicate(timeout=30)
        out = head + out
        timer.cancel()
        assert proc.returncode == -signal.SIGKILL, err
        kills += 1
        for line in out.splitlines():
            if line.startswith("saved "):
                reported = max(reported, int(line.split()[1]))
        if not path.exists():
            assert reported == 0
            continue
        loaded = store.load(path)  # never needs a backup
        assert gen_of(loaded.encounter) >= reported
        assert loaded.undo_steps or not loaded.encounter.log
        # Issue 38: killed while branching (an undo, a new command, the save): the timeline
        # leads to the fight (checked as it opened), every step file it lists is there and
        # whole, each line undone is kept as a branch, and any step's fight is rebuilt.
        assert "could not be rebuilt" not in loaded.encounter.log[-1].text
        tl = loaded.timeline
        nodes = list(tl.nodes())
        undone = [n for n in nodes if n.step.line in ("roll 1d6", "roll 1d4")]
        assert all(n.id in tl for n in undone)
        if len(nodes) > 60:
            assert len(tl.tips()) > 1, "the lines undone are kept as branches"
        for node in rng.sample(nodes, min(3, len(nodes))):
            loaded.state_at(node.id)
        branches = max(branches, len(tl.tips()))
    assert reported > 0, "the writer never got to save"
    assert branches > 1
    assert not list(tmp_path.glob("*.corrupt-*"))
    store.sweep_temp(tmp_path)
    assert not list(tmp_path.rglob(".tmp-*"))


def test_kill_9_the_headless_apply(tmp_path: Path) -> None:
    path = tmp_path / "fight.toml"
    rng = random.Random(7)
    base = [sys.executable, "-m", "facility_tui", "apply", str(path), "-q"]
    subprocess.run(
        [*base, "--seed", "1", "new 2297 K", "add A side=pc init=9", "add B", "start"],
        check=True,
        timeout=30,
    )
    done = store.load(path).encounter
    for i in range(12):
        proc = subprocess.Popen([*base, *(["next", "roll 2d6"] * 20)], stderr=subprocess.PIPE)
        timer = threading.Timer(rng.uniform(0.1, 0.5), proc.send_signal, (signal.SIGKILL,))
        timer.start()
        proc.communicate(timeout=30)
        timer.cancel()
        loaded = store.load(path).encounter
        if proc.returncode == 0:
            assert len(loaded.log) > len(done.log)
        else:  # all or nothing
            assert loaded == done or len(loaded.log) > len(done.log), i
        done = loaded


def test_kill_9_the_app_in_a_burst_of_undo_and_redo(tmp_path: Path) -> None:
    """Issue 28: SIGKILL while the app is typed at in bursts (a line, then u ctrl+y n u ctrl+y,
    no pause between keys): what the screen showed as saved is in the file, and the history is
    the keys' in the order typed (each line kept, then its next), with no gap."""
    path = tmp_path / "fight.toml"
    setup = ["new 2297 K", "add Alpha side=pc init=12", "add Beta init=5", "start"]
    subprocess.run(
        [sys.executable, "-m", "facility_tui", "apply", str(path), "-q", "--seed", "3", *setup],
        check=True,
        timeout=30,
    )
    rng = random.Random(28)
    reported = 0
    for _ in range(4):
        proc = subprocess.Popen(
            [sys.executable, str(WRITER.with_name("app_burst.py")), str(path)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        assert proc.stdout is not None
        assert proc.stdout.readline() == "ready\n"  # killed while typing, not while starting
        timer = threading.Timer(rng.uniform(0.2, 1.2), proc.send_signal, (signal.SIGKILL,))
        timer.start()
        out, err = proc.communicate(timeout=60)
        timer.cancel()
        assert proc.returncode == -signal.SIGKILL, err
        assert "wrong" not in out, out
        saves = [int(line.split()[1]) for line in out.splitlines() if line.startswith("saved ")]
        reported = max([reported, *saves])
        loaded = store.load(path)  # never needs a backup
        # What the screen last showed as saved is in the file, or a later save: the burst's
        # first u takes its gen line back, so a save after the last one shown may hold one less.
        last = saves[-1] if saves else 0
        assert gen_of(loaded.encounter) >= last - 1, (last, saves[-3:])
        # Any state a burst passes through may be the last written; each is the keys' in
        # order: every gen line once, in turn, each next after a line (a restart may leave a
        # line without its next), at most one step to redo.
        lines = [s.line for s in loaded.undo_steps][len(setup) :]
        gens = [int(x.split()[2]) for x in lines if x.startswith("log gen ")]
        assert gens == list(range(1, len(gens) + 1)), lines
        assert lines[:1] != ["next"] and ("next", "next") not in itertools.pairwise(lines), lines
        assert len(loaded.redo_steps) <= 1
    assert reported > 0, "the app never got to save"
