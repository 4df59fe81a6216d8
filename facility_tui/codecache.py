"""Code that Python compiles from text at every launch, kept compiled between launches.

Some libraries write code as text while they are imported, and Python compiles it each time:
attrs and dataclasses write every class's ``__init__``, ``__eq__``, ``__repr__``...; ``typing``
compiles every annotation written as a string; ``namedtuple`` its ``__new__``; the model its
own constructors for the engine's hot paths. That is half of building an attrs class, and some
400 annotations and 50 classes of Textual's at each start-up: the same work at every launch
(docs/benchmarks.md, 'Start-up and the headless commands').

A launch (``launch.main``) gives those modules (``SHADOWED``) a ``compile`` (``exec``,
``eval``) of their own, in their namespace before their body runs: it reads code compiled once
back with ``marshal``, keyed by the text, its file name, mode and ``__future__`` flags (the code
is the same whenever they are), and is Python's own for anything else (an AST, other flags).
The cache is one file beside the package's own bytecode (``__pycache__``, or Python's
``PYTHONPYCACHEPREFIX``), written again when a launch compiled something new, with what the
launches before it used as well (up to ``KEPT``), and never where Python writes no bytecode.
Anything wrong with it (missing, unreadable, another Python's, a folder that cannot be
written) is compiling as Python would, said nowhere: nothing but the speed depends on it.
"""

from __future__ import annotations
import __future__

import atexit
import builtins
import contextlib
import marshal
import os
import re
import sys
from pathlib import Path
from types import CodeType
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # (not imported at run time: ``typing`` is one of the modules shadowed)
    from importlib.machinery import ModuleSpec
    from types import ModuleType
    from typing import Any

_FORMAT = 2  # (a file of another format or Python is not read)
KEPT = 4000  # pieces of code kept at most (a version compiles some 1,000)
# Each module's builtins that compile text, by the module calling them (Python 3.11-3.13).
SHADOWED = {
    "attr._make": "compile",  # the methods attrs writes
    "dataclasses": "exec",  # the methods dataclasses writes
    "typing": "compile",  # ForwardRef: an annotation written as a string
    "collections": "eval",  # namedtuple's __new__
    "facility_tui.model.encounter": "exec",  # the engine's constructors and copiers
}
# The flags a compile inherits from the code calling it: its ``from __future__`` imports (as
# Python's own mask: not the two features always on, whose flag bits mean other things now).
_FUTURE = 0
for _feature in set(__future__.all_feature_names) - {"nested_scopes", "generators"}:
    _FUTURE |= getattr(__future__, _feature).compiler_flag
# attrs' __hash__ of a frozen class salts with the hash of its file name, another number in
# each process: any number salts alike, so the code compiled with the first is kept
_SALT = re.compile(r"hash\(\(\s*-?\d+,")


def _tag() -> str:
    """What the code depends on besides its text: the format and Python's bytecode (attrs'
    version changes its text, so the keys; its ``__version__`` would import
    ``importlib.metadata``, costlier than the cache saves)."""
    from importlib.util import MAGIC_NUMBER

    return f"{_FORMAT}-{sys.implementation.cache_tag}-{MAGIC_NUMBER.hex()}"


class CodeCache:
    """Compiled code by key, read from and written to ``path``."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.kept: dict[str, Any] = {}  # as read: checked when used
        self.used: dict[str, CodeType] = {}
        self.missed = 0
        try:
            data = marshal.loads(path.read_bytes())
            if isinstance(data, dict) and data.get("tag") == _tag():
                code = data.get("code")
                self.kept = code if isinstance(code, dict) else {}
        except (OSError, ValueError, EOFError, TypeError):
            pass

    def compiled(self, script: str, filename: str, mode: str = "exec", flags: int = 0) -> CodeType:
        """``compile(script, filename, mode, flags, dont_inherit=True)``, read back if kept."""
        text = _SALT.sub("hash((SALT,", script) if filename.startswith("<attrs") else script
        key = f"{mode}\0{flags}\0{filename}\0{text}"  # (the text itself: no hash to collide)
        code = self.kept.get(key)
        if not isinstance(code, CodeType):
            code = builtins.compile(script, filename, mode, flags, dont_inherit=True)
            self.missed += 1
        self.used[key] = code
        return code

    def save(self) -> None:
        """Written again only when something was compiled (atomically: a half-written file is
        never read); never where Python writes no bytecode (``PYTHONDONTWRITEBYTECODE``)."""
        if not self.missed or sys.dont_write_bytecode:
            return
        # (what other launches used kept too, the app's screens opened later, ``apply``'s: the
        # file settles on everything a version compiles; past KEPT, only this launch's, so an
        # edited source's old entries do not pile up)
        code = {**self.kept, **self.used} if len(self.kept) + self.missed <= KEPT else self.used
        data = marshal.dumps({"tag": _tag(), "code": code})
        tmp = self.path.with_name(f".{self.path.name}.{os.getpid()}.tmp")
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            tmp.write_bytes(data)
            os.replace(tmp, self.path)
        except OSError:
            with contextlib.suppress(OSError):
                tmp.unlink()

    # -- the builtins the shadowed modules are given ------------------------------------------
    # Each does what Python's does when called from the module's code: the text compiled with
    # the caller's ``__future__`` flags (Python's inherit them from the calling frame, which is
    # now this one), globals and locals defaulting to the caller's.

    def compile(
        self,
        source: Any,
        filename: Any,
        mode: str,
        flags: int = 0,
        dont_inherit: bool = False,
        optimize: int = -1,
        **more: Any,
    ) -> Any:
        if not dont_inherit:
            flags |= sys._getframe(1).f_code.co_flags & _FUTURE
        plain = isinstance(source, str) and isinstance(filename, str) and optimize == -1
        if plain and not flags & ~_FUTURE and not more:  # (not an AST, no other options)
            return self.compiled(source, filename, mode, flags)
        return builtins.compile(source, filename, mode, flags, True, optimize, **more)

    def exec(self, source: Any, globs: Any = None, locs: Any = None, /, **more: Any) -> None:
        caller = sys._getframe(1)
        if globs is None:
            globs, locs = caller.f_globals, caller.f_locals if locs is None else locs
        if isinstance(source, str):
            source = self.compiled(source, "<string>", "exec", caller.f_code.co_flags & _FUTURE)
        builtins.exec(source, globs, locs, **more)

    def eval(self, source: Any, globs: Any = None, locs: Any = None, /) -> Any:
        caller = sys._getframe(1)
        if globs is None:
            globs, locs = caller.f_globals, caller.f_locals if locs is None else locs
        if isinstance(source, str):
            source = self.compiled(source, "<string>", "eval", caller.f_code.co_flags & _FUTURE)
        return builtins.eval(source, globs, locs)


class _Shadowing:
    """An import hook: the modules of ``SHADOWED`` not imported yet get the cache's builtins
    before their body runs (attrs builds classes of its own as it is imported). It leaves
    ``sys.meta_path`` once they all have."""

    def __init__(self, cache: CodeCache, pending: set[str]) -> None:
        self.cache, self.pending = cache, pending

    def find_spec(self, name: str, path: Any = None, target: Any = None) -> ModuleSpec | None:
        if name not in self.pending:
            return None
        self.pending.discard(name)
        finders = sys.meta_path[sys.meta_path.index(self) + 1 :]
        if not self.pending:
            sys.meta_path.remove(self)
        spec = next((s for f in finders if (s := _found(f, name, path, target))), None)
        if spec is not None and hasattr(spec.loader, "exec_module"):
            # (a loader of its own: the one found may serve other modules too)
            spec.loader = _Loader(spec.loader, self.cache)  # type: ignore[assignment]
        return spec


class _Loader:
    """A module's loader that gives it the cache's builtins before its body runs; anything
    else asked of it (its source, for a traceback) is the loader's own."""

    def __init__(self, loader: Any, cache: CodeCache) -> None:
        self.loader, self.cache = loader, cache

    def create_module(self, spec: ModuleSpec) -> ModuleType | None:
        create = getattr(self.loader, "create_module", None)
        return create(spec) if create is not None else None

    def exec_module(self, module: ModuleType) -> None:
        _shadow(module, self.cache)
        self.loader.exec_module(module)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.loader, name)


def _found(finder: Any, name: str, path: Any, target: Any) -> ModuleSpec | None:
    find = getattr(finder, "find_spec", None)
    return find(name, path, target) if find is not None else None


def _shadow(module: ModuleType, cache: CodeCache) -> None:
    name = SHADOWED.get(module.__name__)
    if name is not None:
        setattr(module, name, getattr(cache, name))


def install(path: Path | None = None, kind: str = "run") -> CodeCache:
    """Give the modules of ``SHADOWED`` the cache at ``path`` (by default beside the package's
    own bytecode, one file for each ``kind`` of launch: the app's and ``apply``'s compile other
    code), now if they are imported, else as they are; saved at exit."""
    if path is None:  # beside the package's own bytecode, where Python keeps it
        from importlib.util import cache_from_source

        path = Path(cache_from_source(__file__)).with_name(f"compiled-{kind}.marshal")
    cache = CodeCache(path)
    pending = set()
    for name in SHADOWED:
        module = sys.modules.get(name)
        if module is not None:
            _shadow(module, cache)
        else:
            pending.add(name)
    if pending:
        sys.meta_path.insert(0, _Shadowing(cache, pending))
    atexit.register(cache.save)
    return cache


def uninstall(cache: CodeCache) -> None:
    """Python's own builtins again where ``cache`` gave its own (the tests' clean-up)."""
    for name, builtin in SHADOWED.items():
        module = sys.modules.get(name)
        if module is not None and getattr(module, builtin, None) == getattr(cache, builtin):
            delattr(module, builtin)
    sys.meta_path[:] = [f for f in sys.meta_path if getattr(f, "cache", None) is not cache]
    atexit.unregister(cache.save)
