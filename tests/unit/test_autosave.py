"""The autosaver (issue 5): off the caller's thread, coalesced, retried, flushed."""

from __future__ import annotations

import errno
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from facility_tui import store
from facility_tui.autosave import Autosaver
from facility_tui.commands.session import Session


def fight() -> Session:
    s = store.fresh_session()
    for line in ["new 2297 Auto seed=1", "add Alpha side=pc init=12", "add Beta", "start"]:
        s.apply(line)
    return s


class Recorder:
    def __init__(self) -> None:
        self.saved: list[tuple[Path, float]] = []
        self.failed: list[str] = []

    def on_saved(self, path: Path, when: float) -> None:
        self.saved.append((path, when))

    def on_failed(self, message: str) -> None:
        self.failed.append(message)


def test_request_then_flush_saves_the_newest(tmp_path: Path) -> None:
    path = tmp_path / "f.toml"
    rec = Recorder()
    saver = Autosaver(path, saved=rec.on_saved, failed=rec.on_failed)
    s = fight()
    s.listeners.append(saver.request)
    for _ in range(30):
        s.apply("next")
    assert saver.flush(10)
    assert not saver.pending
    assert store.load(path).encounter == s.encounter
    assert rec.saved and rec.saved[-1][0] == path and not rec.failed
    assert saver.last_saved_encounter == s.encounter
    assert saver.close()


def test_bursts_are_coalesced(tmp_path: Path) -> None:
    gate = threading.Event()
    written: list[store.Snapshot] = []

    def slow_writer(snap: store.Snapshot, path: Path) -> None:
        gate.wait(10)
        written.append(snap)

    saver = Autosaver(tmp_path / "f.toml", writer=slow_writer)
    s = fight()
    s.listeners.append(saver.request)
    for _ in range(50):
        s.apply("roll 1d6")
    gate.set()
    assert saver.flush(10)
    assert 1 <= len(written) <= 2
    assert written[-1].encounter == s.encounter
    saver.close()


def test_a_delay_lets_a_burst_wait_but_not_an_urgent_change(tmp_path: Path) -> None:
    """A UI gives its frame the first few ms; a round boundary and a flush do not wait."""
    path = tmp_path / "f.toml"
    wrote = threading.Event()
    saver = Autosaver(path, saved=lambda *_: wrote.set(), delay=30.0)
    s = fight()
    saver.request(s)
    assert not wrote.wait(0.3) and saver.pending  # still inside its delay
    s.apply("next")
    saver.request(s, urgent=True)
    assert wrote.wait(5) and store.load(path).encounter == s.encounter
    wrote.clear()
    s.apply("next")
    saver.request(s)
    assert saver.flush(5) and store.load(path).encounter == s.encounter
    assert saver.close()


def test_an_urgent_change_waits_for_its_frame_then_is_written(tmp_path: Path) -> None:
    """A round's end in the app: written once the UI says its frame is drawn, not while the
    frame is being made; at the latest after ``frame_wait``, drawn or not."""
    path = tmp_path / "f.toml"
    wrote = threading.Event()
    saver = Autosaver(path, saved=lambda *_: wrote.set(), delay=30.0, frame_wait=30.0)
    s = fight()
    s.apply("next")
    saver.request(s, urgent=True)
    assert not wrote.wait(0.3) and saver.pending  # its frame is not drawn yet
    saver.drawn()
    assert wrote.wait(5) and store.load(path).encounter == s.encounter
    wrote.clear()
    s.apply("roll 1d6")
    saver.request(s)
    saver.drawn()  # a change that is not urgent keeps its delay
    assert not wrote.wait(0.3) and saver.pending
    assert saver.flush(5) and store.load(path).encounter == s.encounter
    assert saver.close()
    quick = Autosaver(path, saved=lambda *_: wrote.set(), frame_wait=0.2)
    wrote.clear()
    s.apply("next")
    quick.request(s, urgent=True)  # no frame drawn: written after frame_wait all the same
    assert wrote.wait(5) and store.load(path).encounter == s.encounter
    assert quick.close()


def test_failures_are_reported_and_retried_with_the_newest_state(tmp_path: Path) -> None:
    path = tmp_path / "f.toml"
    rec = Recorder()
    failures = [3]

    def flaky(snap: store.Snapshot, target: Path) -> None:
        if failures[0]:
            failures[0] -= 1
            raise store.SaveError(f"could not save {target}: No space left on device")
        store.save_snapshot(snap, target)

    saver = Autosaver(
        path, saved=rec.on_saved, failed=rec.on_failed, retry_delays=(0.01,), writer=flaky
    )
    s = fight()
    saver.request(s)
    s.apply("next")
    saver.request(s)
    tries = 0
    while not saver.flush(10):  # each flush retries at once and is false if that attempt fails
        tries += 1
        assert tries <= 3
    assert len(rec.failed) == 3
    assert all("still in memory" in m and "No space left" in m for m in rec.failed)
    assert store.load(path).encounter == s.encounter
    assert saver.last_error is None
    saver.close()


def test_flush_gives_up_when_the_disk_keeps_failing(tmp_path: Path) -> None:
    def broken(snap: store.Snapshot, target: Path) -> None:
        raise store.SaveError("could not save: Read-only file system")

    rec = Recorder()
    saver = Autosaver(
        tmp_path / "f.toml", failed=rec.on_failed, retry_delays=(60.0,), writer=broken
    )
    saver.request(fight())
    assert saver.flush(10) is False
    assert saver.pending and rec.failed and saver.last_error
    assert saver.close(0.5) is False


def test_real_disk_full_then_space_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "f.toml"
    s = fight()
    store.save(s, path)
    before = path.read_bytes()
    real_replace = os.replace
    full = threading.Event()
    full.set()

    def replace(src: str, dst: str) -> None:
        if full.is_set():
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        real_replace(src, dst)

    monkeypatch.setattr(os, "replace", replace)
    rec = Recorder()
    saver = Autosaver(path, failed=rec.on_failed, saved=rec.on_saved, retry_delays=(60.0,))
    s.apply("next")
    saver.request(s)
    assert saver.flush(10) is False
    assert path.read_bytes() == before
    assert "disk is full" in rec.failed[-1]
    full.clear()
    assert saver.flush(10)  # flush retries at once, without waiting out the back-off
    assert store.load(path).encounter == s.encounter
    saver.close()


def test_each_path_gets_its_last_change(tmp_path: Path) -> None:
    saver = Autosaver()
    a, b = fight(), fight()
    b.apply("next")
    saver.request(a, tmp_path / "a.toml")
    saver.request(b, tmp_path / "b.toml")
    assert saver.close()
    assert store.load(tmp_path / "a.toml").encounter == a.encounter
    assert store.load(tmp_path / "b.toml").encounter == b.encounter


def test_request_needs_a_path_and_an_open_saver(tmp_path: Path) -> None:
    saver = Autosaver()
    with pytest.raises(ValueError):
        saver.request(fight())
    saver.close()
    with pytest.raises(RuntimeError):
        saver.request(fight(), tmp_path / "x.toml")


def test_a_failing_callback_does_not_stop_saving(tmp_path: Path) -> None:
    def boom(path: Path, when: float) -> None:
        raise RuntimeError("ui gone")

    saver = Autosaver(tmp_path / "f.toml", saved=boom)
    s = fight()
    saver.request(s)
    assert saver.flush(10)
    s.apply("next")
    saver.request(s)
    assert saver.close()
    assert store.load(tmp_path / "f.toml").encounter == s.encounter


@pytest.mark.system  # (a process of its own)
def test_persistence_modules_do_not_import_textual() -> None:
    code = (
        "import sys, facility_tui.store, facility_tui.autosave, facility_tui.store.migrations;"
        "sys.exit('textual' in sys.modules)"
    )
    assert subprocess.run([sys.executable, "-c", code], timeout=60).returncode == 0
