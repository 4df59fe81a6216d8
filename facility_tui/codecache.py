"""The methods attrs writes for each class (``__init__``, ``__eq__``, ``__repr__``...), kept
compiled between launches.

attrs builds every class of the model at import, and half of that is Python compiling the
source it generated, the same work at every launch (its share of an ``apply`` and of the app's
start-up: docs/benchmarks.md, 'Start-up and the headless commands'). A launch
(``launch.main``) hands attrs' compile step this cache: code compiled once is read back with
``marshal``, keyed by the source and its file name (the code is the same whenever they are).
The cache is one file beside the package's own bytecode (``__pycache__``, or Python's
``PYTHONPYCACHEPREFIX``), written again when a launch compiled something new, with what the
launches before it used as well (up to ``KEPT``), and never where Python writes no bytecode.
Anything wrong with it (missing, unreadable, another Python's, a folder that cannot be
written) is compiling as attrs would, said nowhere: nothing but the speed depends on it.

The hook is attrs' ``_make._compile_and_eval`` (private): checked by a test, and left alone if
attrs no longer has it.
"""

from __future__ import annotations
import __future__

import atexit
import contextlib
import marshal
import os
import re
import sys
from pathlib import Path
from types import CodeType
from typing import Any

_FORMAT = 1  # (a file of another format or Python is not read)
KEPT = 1000  # classes' code kept at most (a version builds some 200)
# (attrs compiles in a module of ``from __future__ import annotations``: its flags, not ours)
_FLAGS = __future__.annotations.compiler_flag
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

    def compiled(self, script: str, filename: str) -> CodeType:
        # (a frozen class's __hash__ salts with the hash of its file name, another number in
        # each process: any number salts alike, so the code compiled with the first is kept)
        key = f"{filename}\0{_SALT.sub('hash((SALT,', script)}"  # (the text: no hash to collide)
        code = self.kept.get(key)
        if not isinstance(code, CodeType):
            code = compile(script, filename, "exec", flags=_FLAGS, dont_inherit=True)
            self.missed += 1
        self.used[key] = code
        return code

    def save(self) -> None:
        """Written again only when something was compiled (atomically: a half-written file is
        never read); never where Python writes no bytecode (``PYTHONDONTWRITEBYTECODE``)."""
        if not self.missed or sys.dont_write_bytecode:
            return
        # (what other launches used kept too, the app's screens opened later, ``apply``'s: the
        # file settles on every class a version builds; past KEPT, only this launch's, so an
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


def install(path: Path | None = None, kind: str = "run") -> CodeCache | None:
    """Hand attrs' compile step the cache at ``path`` (by default beside the package's bytecode,
    one file for each ``kind`` of launch: the app's and ``apply``'s build other classes); saved
    at exit. None, and attrs left as it is, when its compile step is not where it was."""
    from attr import _make

    original = getattr(_make, "_compile_and_eval", None)
    if original is None:
        return None
    if path is None:  # beside the package's own bytecode, where Python keeps it
        from importlib.util import cache_from_source

        path = Path(cache_from_source(__file__)).with_name(f"attrs-methods-{kind}.marshal")
    cache = CodeCache(path)

    def compile_and_eval(script: str, globs: Any, locs: Any = None, filename: str = "") -> None:
        eval(cache.compiled(script, filename), globs, locs)

    _make._compile_and_eval = compile_and_eval
    atexit.register(cache.save)
    return cache
