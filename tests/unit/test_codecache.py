"""Code compiled from text at every launch, compiled once and read back
(``facility_tui.codecache``): what is built from the cache is what Python builds, and nothing
wrong with the cache is more than a compile."""

from __future__ import annotations

import ast
import collections
import dataclasses
import marshal
import sys
import typing
from collections.abc import Iterator
from pathlib import Path

import attrs
import pytest

from facility_tui import codecache


@pytest.fixture
def installed(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[codecache.CodeCache]]:
    """``install`` as a launch does, twice if the test likes; Python's builtins back after."""
    monkeypatch.setattr(sys, "dont_write_bytecode", False)
    caches: list[codecache.CodeCache] = []
    yield caches
    for cache in caches:
        codecache.uninstall(cache)


def build() -> type:
    @attrs.frozen
    class Shot:
        who: str
        damage: int = 3
        notes: tuple[str, ...] = ()

    return Shot


def build_others() -> tuple[type, type, dict[str, object]]:
    """A dataclass, a namedtuple and an annotation written as a string: what Textual and our
    own modules have ``dataclasses``, ``collections`` and ``typing`` compile."""

    @dataclasses.dataclass(frozen=True)
    class Point:
        x: int
        y: int = 0

    Pair = collections.namedtuple("Pair", "left right")

    class Hinted:
        shot: Point | None  # (a string, as this module's annotations are, and Textual's)

    return Point, Pair, typing.get_type_hints(Hinted, localns={"Point": Point})


def test_a_second_launch_builds_from_the_cache_what_python_builds(
    tmp_path: Path, installed: list[codecache.CodeCache]
) -> None:
    path = tmp_path / "compiled.marshal"
    first = codecache.install(path)
    installed.append(first)
    plain = build()
    build_others()
    assert first.missed > 0
    kinds = {key.split("\0")[2].split()[0] for key in first.used}
    assert {"<attrs", "<string>"} <= kinds
    first.save()
    codecache.uninstall(first)
    second = codecache.install(path)
    installed.append(second)
    cached = build()
    Point, Pair, hints = build_others()
    assert second.missed == 0 and set(second.used) == set(first.used)  # (all read back)
    a, b = cached("Ana", 5), cached("Ana", 5)
    assert a == b and hash(a) == hash(b) and a != cached("Ana")
    assert repr(a) == repr(plain("Ana", 5))
    assert (a.who, a.damage, a.notes) == ("Ana", 5, ())
    with pytest.raises(attrs.exceptions.FrozenInstanceError):
        a.damage = 1  # type: ignore[misc]
    assert Point(1) == Point(1, 0) and repr(Point(2, 3)) == "build_others.<locals>.Point(x=2, y=3)"
    assert Pair(1, 2).right == 2 and Pair._fields == ("left", "right")
    assert hints == {"shot": Point | None}


def test_a_module_imported_after_the_launch_gets_the_cache_before_its_body_runs(
    tmp_path: Path, installed: list[codecache.CodeCache], monkeypatch: pytest.MonkeyPatch
) -> None:
    """attrs builds classes of its own as it is imported: its ``compile`` is the cache's from
    the first line; the hook leaves the import system once every module has it."""
    body = 'seven = eval(compile("3 + 4", "<t>", "eval"))\n'
    (tmp_path / "compiles_at_import.py").write_text(body)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(codecache, "SHADOWED", {"compiles_at_import": "compile"})
    cache = codecache.install(tmp_path / "compiled.marshal")
    installed.append(cache)
    hooks = [f for f in sys.meta_path if getattr(f, "cache", None) is cache]
    assert len(hooks) == 1
    import compiles_at_import  # type: ignore[import-not-found]

    assert compiles_at_import.seven == 7 and cache.missed == 1
    loader = compiles_at_import.__loader__  # (its own: its source still read, for tracebacks)
    assert loader.get_source("compiles_at_import") == body
    assert [k.split("\0")[2] for k in cache.used] == ["<t>"]
    assert hooks[0] not in sys.meta_path
    monkeypatch.delitem(sys.modules, "compiles_at_import")


ANNOTATED = "def f(x: int) -> None: pass\n"


def test_the_cache_compiles_as_python_would_for_the_code_calling_it(tmp_path: Path) -> None:
    """Python's compile, exec and eval take the caller's ``from __future__`` flags, and exec and
    eval its globals: the cache's do the same (this module has ``annotations``)."""
    cache = codecache.CodeCache(tmp_path / "compiled.marshal")
    mine: dict[str, typing.Any] = {}
    exec(cache.compile(ANNOTATED, "<a>", "exec"), mine)
    plain: dict[str, typing.Any] = {}
    exec(cache.compile(ANNOTATED, "<a>", "exec", dont_inherit=True), plain)
    assert mine["f"].__annotations__ == {"x": "int", "return": "None"}  # (as this module's)
    assert plain["f"].__annotations__ == {"x": int, "return": None}
    here = 5  # noqa: F841 (read by the line evaluated)
    assert cache.eval("here + 1") == 6
    seen: list[int] = []
    cache.exec("seen.append(here)")
    assert seen == [5]
    tree = cache.compile("1 + 2", "<t>", "eval", ast.PyCF_ONLY_AST)  # (not code: not cached)
    assert isinstance(tree, ast.Expression)
    assert len(cache.used) == 4 and not any("1 + 2" in key for key in cache.used)


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
    tmp_path: Path, installed: list[codecache.CodeCache], content: bytes
) -> None:
    path = tmp_path / "compiled.marshal"
    path.write_bytes(content)
    cache = codecache.install(path)
    installed.append(cache)
    cls = build()
    assert cache.missed > 0 and cls("B") == cls("B")


def test_a_read_back_value_that_is_not_code_is_compiled(tmp_path: Path) -> None:
    path = tmp_path / "compiled.marshal"
    cache = codecache.CodeCache(path)
    code = cache.compiled("x = 1\n", "<t>")
    key = next(iter(cache.used))
    path.write_bytes(marshal.dumps({"tag": codecache._tag(), "code": {key: "rm -rf /"}}))
    again = codecache.CodeCache(path)
    assert again.compiled("x = 1\n", "<t>").co_code == code.co_code and again.missed == 1


def test_nothing_is_written_where_python_writes_no_bytecode_or_cannot(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cache = codecache.CodeCache(tmp_path / "compiled.marshal")
    cache.compiled("x = 1\n", "<t>")
    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    cache.save()
    assert not (tmp_path / "compiled.marshal").exists()
    monkeypatch.setattr(sys, "dont_write_bytecode", False)
    blocked = tmp_path / "file"
    blocked.write_text("")
    cache.path = blocked / "compiled.marshal"  # (under a file: no folder can be made)
    cache.save()  # says nothing: only the speed depends on it
    assert [p.name for p in tmp_path.iterdir()] == ["file"]


def test_each_launch_keeps_what_the_ones_before_it_used(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The app's screens opened later build classes a launch before did not: the file keeps
    both, so neither compiles again; past ``KEPT`` (an edited source's old entries), only the
    last launch's."""
    monkeypatch.setattr(sys, "dont_write_bytecode", False)
    path = tmp_path / "compiled.marshal"
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
    assert list(codecache.CodeCache(path).kept) == ["\0".join(["exec", "0", "<d>", "d = 4\n"])]
