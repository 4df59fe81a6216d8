"""The log as an immutable sequence that shares its entries with the logs it grew from.

A fight's log only grows: each command appends a line or two to it, and every undoable step keeps
the encounter it replaced. With the log a tuple, each append copied all of it and each kept step
held its own copy (200 steps of a 50,000-line log: 80 MB of references). Here a log is a run of
*sealed* blocks and an open tail: appending copies the tail alone, and a log grown from another
shares its blocks.

A block is sealed where the store cuts the log into its write-once files (``CHUNK_MIN``,
``CHUNK_MAX``: the greedy rule of ``sealed_before``), so a block is one log file and the split is
a function of the entries alone: two logs with the same entries have the same blocks. A block the
store read from a save can be a ``Page``: its entries are read from its file when first needed
and kept only among the most recently read pages, so memory stays bounded in the log's length.
"""

from __future__ import annotations

import bisect
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, Generic, Protocol, TypeVar, overload

CHUNK_MIN = 64  # a block closes at the first round change after this many entries...
CHUNK_MAX = 256  # ...or at this many
PAGES_KEPT = 64  # the pages read from files kept in memory, the most recently used


class Entry(Protocol):
    @property
    def round(self) -> int: ...


E = TypeVar("E", bound=Entry)


def sealed_before(count: int, prev: Entry, cur: Entry) -> bool:
    """Whether ``cur`` starts a new block after ``count`` entries ending with ``prev``."""
    return count >= CHUNK_MAX or (count >= CHUNK_MIN and cur.round != prev.round)


class Block(Generic[E]):
    """A sealed run of entries held in memory. ``stored`` is the store's memo of its file."""

    __slots__ = ("_entries", "stored")

    def __init__(self, entries: tuple[E, ...]) -> None:
        self._entries = entries
        self.stored: Any = None

    def __len__(self) -> int:
        return len(self._entries)

    def entries(self) -> tuple[E, ...]:
        return self._entries


class Page(Block[E]):
    """A sealed run of entries kept in a file: ``load`` reads them when they are needed."""

    __slots__ = ("_count", "_load")

    def __init__(self, count: int, load: Callable[[], tuple[E, ...]], stored: Any = None) -> None:
        super().__init__(())
        self._count = count
        self._load = load
        self.stored = stored

    def __len__(self) -> int:
        return self._count

    def entries(self) -> tuple[E, ...]:
        with _PAGES_LOCK:
            got = _PAGES.get(self)
            if got is not None:
                _PAGES.move_to_end(self)
                return got
        got = self._load()  # (outside the lock: a file read)
        if len(got) != self._count:
            raise ValueError(f"a log page read {len(got)} entries, not {self._count}")
        with _PAGES_LOCK:
            _PAGES[self] = got
            if len(_PAGES) > PAGES_KEPT:
                _PAGES.popitem(last=False)
        return got


# The pages read last; the app's thread and the autosave's (a backup writes the log whole) both
# read pages, so the two steps of a lookup are kept together.
_PAGES: OrderedDict[Page[Any], tuple[Any, ...]] = OrderedDict()
_PAGES_LOCK = threading.Lock()


class Log(Sequence[E]):
    """Sealed blocks and an open tail; see the module's docstring. Never changed in place."""

    __slots__ = ("_blocks", "_ends", "_tail")

    def __init__(
        self,
        blocks: tuple[Block[E], ...] = (),
        tail: tuple[E, ...] = (),
        ends: tuple[int, ...] | None = None,
    ) -> None:
        self._blocks = blocks
        self._tail = tail
        if ends is None:
            total, out = 0, []
            for b in blocks:
                total += len(b)
                out.append(total)
            ends = tuple(out)
        self._ends = ends  # where each block ends in the log

    @classmethod
    def of(cls, entries: Iterable[E]) -> Log[E]:
        """The log of ``entries`` (a log is returned as it is)."""
        if isinstance(entries, Log):
            return entries
        return _EMPTY.extended(tuple(entries))

    # -- reading ---------------------------------------------------------------------------------

    @property
    def blocks(self) -> tuple[Block[E], ...]:
        return self._blocks

    @property
    def tail(self) -> tuple[E, ...]:
        """The entries after the last sealed block: the log's open part."""
        return self._tail

    @property
    def sealed(self) -> int:
        """How many entries the sealed blocks hold."""
        return self._ends[-1] if self._ends else 0

    def __len__(self) -> int:
        return self.sealed + len(self._tail)

    def __bool__(self) -> bool:
        return bool(self._tail) or bool(self._ends)

    @overload
    def __getitem__(self, i: int) -> E: ...
    @overload
    def __getitem__(self, i: slice) -> tuple[E, ...]: ...
    def __getitem__(self, i: int | slice) -> E | tuple[E, ...]:
        if isinstance(i, slice):
            start, stop, step = i.indices(len(self))
            if step != 1:
                return tuple(self[k] for k in range(start, stop, step))
            return self._run(start, stop)
        n = len(self)
        if i < 0:
            i += n
        if not 0 <= i < n:
            raise IndexError("log index out of range")
        sealed = self.sealed
        if i >= sealed:
            return self._tail[i - sealed]
        b = bisect.bisect_right(self._ends, i)
        begin = self._ends[b - 1] if b else 0
        return self._blocks[b].entries()[i - begin]

    def _run(self, start: int, stop: int) -> tuple[E, ...]:
        if start >= stop:
            return ()
        sealed = self.sealed
        if start >= sealed:
            return self._tail[start - sealed : stop - sealed]
        out: list[E] = []
        b = bisect.bisect_right(self._ends, start)
        begin = self._ends[b - 1] if b else 0
        while start < stop and b < len(self._blocks):
            end = self._ends[b]
            out.extend(self._blocks[b].entries()[start - begin : stop - begin])
            start, begin, b = end, end, b + 1
        if start < stop:
            out.extend(self._tail[start - sealed : stop - sealed])
        return tuple(out)

    def __iter__(self) -> Iterator[E]:
        for b in self._blocks:
            yield from b.entries()
        yield from self._tail

    def __reversed__(self) -> Iterator[E]:
        yield from reversed(self._tail)
        for b in reversed(self._blocks):
            yield from reversed(b.entries())

    def head(self, n: int) -> Log[E]:
        """The log of the first ``n`` entries, sharing this one's blocks (as it had them)."""
        if n >= len(self):
            return self
        n = max(n, 0)
        if n == 0:  # (no page read for it)
            return Log((), ())
        if n >= self.sealed:
            return Log(self._blocks, self._tail[: n - self.sealed], self._ends)
        b = bisect.bisect_left(self._ends, n)  # the block that holds entry n-1, or ends at n
        begin = self._ends[b - 1] if b else 0
        # The block the cut falls in (or ends at) is still open in the shorter log: a block
        # closes only when the entry after it arrives.
        return Log(self._blocks[:b], self._blocks[b].entries()[: n - begin], self._ends[:b])

    def starts_with(self, other: Sequence[E]) -> bool:
        """Whether ``other`` is the first ``len(other)`` entries of this log."""
        n = len(other)
        if n > len(self):
            return False
        if isinstance(other, Log):
            return self.head(n) == other
        return self[:n] == tuple(other)

    # -- growing ---------------------------------------------------------------------------------

    def extended(self, more: tuple[E, ...]) -> Log[E]:
        """This log with ``more`` appended; only the tail is copied."""
        if not more:
            return self
        pending, begin = self._tail, 0
        prev = pending[-1] if pending else None
        sealed: list[Block[E]] = []
        for i, e in enumerate(more):
            count = len(pending) + i - begin
            if prev is not None and count and sealed_before(count, prev, e):
                sealed.append(Block(pending + more[begin:i]))
                pending, begin = (), i
            prev = e
        tail = pending + more[begin:]
        if not sealed:
            return Log(self._blocks, tail, self._ends)
        ends = list(self._ends)
        for b in sealed:
            ends.append((ends[-1] if ends else 0) + len(b))
        return Log((*self._blocks, *sealed), tail, tuple(ends))

    def __add__(self, more: Iterable[E]) -> Log[E]:
        if isinstance(more, Log):
            return self.extended(tuple(more))
        return self.extended(more if isinstance(more, tuple) else tuple(more))

    def __radd__(self, before: Iterable[E]) -> Log[E]:
        return Log.of(tuple(before)).extended(tuple(self))

    # -- comparing -------------------------------------------------------------------------------

    def __eq__(self, other: object) -> bool:
        if self is other:
            return True
        if isinstance(other, Log):
            if len(self) != len(other):
                return False
            if self._ends == other._ends:  # the same split: a shared block needs no reading
                return self._tail == other._tail and all(
                    a is b or a.entries() == b.entries()
                    for a, b in zip(self._blocks, other._blocks, strict=True)
                )
            return all(a == b for a, b in zip(self, other, strict=True))
        if isinstance(other, tuple | list):
            return len(self) == len(other) and all(a == b for a, b in zip(self, other, strict=True))
        return NotImplemented

    def __hash__(self) -> int:
        return hash((len(self), self[-1] if self else None))

    def __repr__(self) -> str:
        return f"Log({len(self)} entries in {len(self._blocks)} blocks)"

    def __reduce__(self) -> tuple[Any, ...]:
        return (_rebuilt, (tuple(self),))


def _rebuilt(entries: tuple[Any, ...]) -> Log[Any]:
    return Log.of(entries)


_EMPTY: Log[Any] = Log()


def as_log(value: Iterable[Any]) -> Log[Any]:
    """A field's converter: any sequence of entries as a ``Log``."""
    return value if isinstance(value, Log) else Log.of(value)
