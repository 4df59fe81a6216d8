"""Disk errors (issue 5): an OSError at any step of a save damages nothing and says what to do."""

from __future__ import annotations

import errno
import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from facility_tui import store
from tests.conftest import fought as fight

STEPS = ("open", "write", "fsync", "close", "replace", "mkdir", "chmod")


class Injector:
    """Makes the n-th call of the patched ``os`` functions fail with ``code``."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, code: int) -> None:
        self.code = code
        self.fail_at = -1
        self.calls = 0
        self.failed = ""
        for name in STEPS:
            monkeypatch.setattr(os, name, self._wrap(name, getattr(os, name)))

    def _wrap(self, name: str, real: Callable[..., Any]) -> Callable[..., Any]:
        def call(*args: Any, **kwargs: Any) -> Any:
            n = self.calls
            self.calls += 1
            if n == self.fail_at:
                self.failed = name
                raise OSError(self.code, os.strerror(self.code))
            return real(*args, **kwargs)

        return call

    def arm(self, n: int) -> None:
        self.fail_at, self.calls, self.failed = n, 0, ""


def leftovers(folder: Path) -> Iterator[Path]:
    yield from folder.rglob(".tmp-*")


@pytest.mark.parametrize("code", [errno.ENOSPC, errno.EROFS, errno.EACCES])
def test_failure_at_each_step_keeps_the_old_save(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, code: int
) -> None:
    path = tmp_path / "f.toml"
    old = fight(12)
    store.save(old, path)
    new = fight(12)
    for _ in range(40):  # seals a log file and starts a round: every kind of write happens
        new.apply("next")
    injector = Injector(monkeypatch, code)
    steps_seen = set()
    n = 0
    while True:
        store.forget(path)  # each attempt starts like a new process: nothing cached
        before = path.read_bytes()
        injector.arm(n)
        try:
            store.save(new, path)
        except store.SaveError as err:
            message = str(err)
            assert str(path) in message and os.strerror(code) in message and "\n" not in message
            assert store.atomic.HINTS[code] in message
            steps_seen.add(injector.failed)
            loaded = store.load(path)
            if "was saved but its backup" in message:
                assert loaded.encounter == new.encounter
            else:
                assert "not changed" in message
                assert path.read_bytes() == before
                assert loaded.encounter in (old.encounter, new.encounter)
        else:
            if not injector.failed:
                break
            steps_seen.add(injector.failed)  # a failure that does not matter (folder fsync)
        assert not list(leftovers(tmp_path))
        n += 1
    assert {"open", "write", "fsync", "replace"} <= steps_seen
    injector.arm(-1)  # loading opens files too: no failure armed for it
    assert store.load(path).encounter == new.encounter


def test_failure_creating_the_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    injector = Injector(monkeypatch, errno.EACCES)
    injector.arm(0)
    with pytest.raises(store.SaveError, match="Permission denied"):
        store.save(fight(0), tmp_path / "deep" / "f.toml")


def test_read_only_folder_for_real(tmp_path: Path) -> None:
    """A folder the saving user may not write to, without any injection. Root writes anywhere,
    so as root the save runs in a forked child that drops to an unprivileged user first."""
    path = tmp_path / "f.toml"
    s = fight(1)
    store.save(s, path)
    before = path.read_bytes()
    s.apply("next")
    for folder in (tmp_path, tmp_path / "f.d"):
        folder.chmod(0o555)  # readable by all, writable by no one but root
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: save, and report the error's message through the pipe
        os.close(read_end)
        message = "no error"
        try:
            if os.geteuid() == 0:
                os.setgid(65534)
                os.setuid(65534)  # nobody
            store.save(s, path)
        except store.SaveError as err:
            message = str(err)
        except BaseException as err:  # anything else is a failure of the test
            message = f"unexpected {err!r}"
        os.write(write_end, message.encode())
        os._exit(0)
    os.close(write_end)
    with os.fdopen(read_end, "rb") as pipe:
        message = pipe.read().decode()
    os.waitpid(pid, 0)
    for folder in (tmp_path, tmp_path / "f.d"):
        folder.chmod(0o700)
    assert "f.toml" in message and "ermission denied" in message, message
    assert path.read_bytes() == before
    assert store.load(path).encounter != s.encounter  # the old fight, intact
