"""attrs' methods compiled once and read back (``facility_tui.codecache``): the classes built
from the cache are the classes attrs builds, and nothing wrong with the cache is more than a
compile."""

from __future__ import annotations

import inspect
import marshal
import sys
from collections.abc import Iterator
from pathlib import Path

import attrs
import pytest
from attr import _make

from facility_tui import codecache


@pytest.fixture
def hooked() -> Iterator[None]:
    """attrs' compile step as it was, after the test (``install`` changes it for the process)."""
    original = _make._compile_and_eval
    yield
    _make._compile_and_eval = original


def build() -> type:
    @attrs.frozen
    class Shot:
        who: str
        damage: int = 3
        notes: tuple[str, ...] = ()

    return Shot


def test_the_hook_is_where_attrs_compiles_the_methods_it_writes() -> None:
    """The private step the cache takes over: its name and arguments as attrs calls it."""
    params = list(inspect.signature(_make._compile_and_eval).parameters)
    assert params == ["script", "globs", "locs", "filename"]


def test_a_second_launch_builds_its_classes_from_the_cache_and_they_are_the_same(
    tmp_path: Path, hooked: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys, "dont_write_bytecode", False)
    path = tmp_path / "methods.marshal"
    first = codecache.install(path)
    assert first is not None
    plain = build()
    assert first.missed > 0
    first.save()
    second = codecache.install(path)
    assert second is not None
    cached = build()
    assert second.missed == 0 and second.used  # (nothing compiled: all read back)
    a, b = cached("Ana", 5), cached("Ana", 5)
    assert a == b and hash(a) == hash(b) and a != cached("Ana")
    assert repr(a) == repr(plain("Ana", 5))
    assert (a.who, a.damage, a.notes) == ("Ana", 5, ())
    with pytest.raises(attrs.exceptions.FrozenInstanceError):
        a.damage = 1  # type: ignore[misc]


@pytest.mark.parametrize(
    "content",
    [
        b"",
        b"not marshal at all",
        marshal.dumps({"tag": "another Python", "code": {}}),
        marshal.dumps({"tag": codecache._tag(), "code": "not a dict"}),
        marshal.dumps(["a list"]),
    ],
)
def test_a_cache_that_is_empty_damaged_or_of_another_python_is_a_compile(
    tmp_path: Path, hooked: None, content: bytes
) -> None:
    path = tmp_path / "methods.marshal"
    path.write_bytes(content)
    cache = codecache.install(path)
    assert cache is not None
    cls = build()
    assert cache.missed > 0 and cls("B") == cls("B")


def test_a_read_back_value_that_is_not_code_is_compiled(tmp_path: Path, hooked: None) -> None:
    path = tmp_path / "methods.marshal"
    cache = codecache.CodeCache(path)
    code = cache.compiled("x = 1\n", "<t>")
    key = next(iter(cache.used))
    path.write_bytes(marshal.dumps({"tag": codecache._tag(), "code": {key: "rm -rf /"}}))
    again = codecache.CodeCache(path)
    assert again.compiled("x = 1\n", "<t>").co_code == code.co_code and again.missed == 1


def test_nothing_is_written_where_python_writes_no_bytecode_or_cannot(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cache = codecache.CodeCache(tmp_path / "methods.marshal")
    cache.compiled("x = 1\n", "<t>")
    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    cache.save()
    assert not (tmp_path / "methods.marshal").exists()
    monkeypatch.setattr(sys, "dont_write_bytecode", False)
    blocked = tmp_path / "file"
    blocked.write_text("")
    cache.path = blocked / "methods.marshal"  # (under a file: no folder can be made)
    cache.save()  # says nothing: only the speed depends on it
    assert [p.name for p in tmp_path.iterdir()] == ["file"]


def test_each_launch_keeps_what_the_ones_before_it_used(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The app's screens opened later build classes a launch before did not: the file keeps
    both, so neither compiles again; past ``KEPT`` (an edited source's old entries), only the
    last launch's."""
    monkeypatch.setattr(sys, "dont_write_bytecode", False)
    path = tmp_path / "methods.marshal"
    first = codecache.CodeCache(path)
    first.compiled("a = 1\n", "<a>")
    first.save()
    second = codecache.CodeCache(path)
    second.compiled("b = 2\n", "<b>")
    second.save()
    third = codecache.CodeCache(path)
    third.compiled("a = 1\n", "<a>")
    third.compiled("b = 2\n", "<b>")
    assert third.missed == 0
    monkeypatch.setattr(codecache, "KEPT", 1)
    third.compiled("c = 3\n", "<c>")
    third.save()
    assert len(codecache.CodeCache(path).kept) == 3  # (this launch's own: a, b and c)
    fourth = codecache.CodeCache(path)
    fourth.compiled("d = 4\n", "<d>")
    fourth.save()
    assert list(codecache.CodeCache(path).kept) == ["<d>\0d = 4\n"]
