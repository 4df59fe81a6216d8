"""The fight's timeline: every step ever made, as a tree, never destroyed.

Each step is a node with the node it was made from (its ``parent``; ``ROOT`` is the fight
before the first step). Undo moves to the parent, redo to the child last walked; a new command
after an undo adds a second child, so the old line stays as a branch. Any node's fight is rebuilt
by replaying the steps from the nearest state kept (``state_at``): the states at every
``CHECKPOINT_EVERY``-th depth are kept once rebuilt, and the ``RECENT`` last ones reached, so a
jump anywhere replays at most ``CHECKPOINT_EVERY`` steps. Dice are recorded in the steps, never
rolled again.

A branch is named by its tip (the node where it ends); it can be named, and hidden (``hide``,
undone by ``show``): a hidden branch's own nodes leave ``children``, ``tips`` and redo, and stay
in the tree, so nothing is ever destroyed. Older nodes may come later (``older``): a store
hands over the newest ones and a loader of the rest, called when a walk first needs them; with
``older_from`` (and each node's depth, ``depths``) it reads only the part a walk reaches, and
``stored_state`` gives the states it keeps at checkpoint depths, so a walk far back replays no
more than ``CHECKPOINT_EVERY`` steps either.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

if TYPE_CHECKING:
    from facility_tui.commands.session import Step
    from facility_tui.model.encounter import Encounter

ROOT = 0
# States kept at every this-many-th depth once rebuilt: a jump replays at most this many steps
# (docs/benchmarks.md, 'The timeline').
CHECKPOINT_EVERY = 64
RECENT = 256  # states last reached, kept besides the checkpoints (undo across a round is instant)


class Node:
    """One step of the tree: its id (creation order, from 1), the node it was made from, the
    step (line, dice, reads), and how the timeline reads it: the round after it and what it
    said (its first log line, or its title).

    A node read from a save may hold its step as the plain data it was read from (``data``),
    decoded by ``load`` when ``step`` is first used: opening a fight whose first step rolled
    thousands of dice decodes none of them, and a save writes that data back as it was read
    (``store.steps.node_line``) without encoding the step again. (A class rather than a
    NamedTuple for that one lazy field; it compares and copies as the tuple did.)"""

    __slots__ = ("_load", "_step", "data", "id", "parent", "round", "said")

    def __init__(
        self,
        id: int,
        parent: int,
        step: Step | None,
        round: int,
        said: str,
        *,
        data: Any = None,
        load: Callable[[Any], Step] | None = None,
    ) -> None:
        self.id, self.parent, self.round, self.said = id, parent, round, said
        self._step, self.data, self._load = step, data, load

    @property
    def step(self) -> Step:
        step = self._step
        if step is None:
            assert self._load is not None
            step = self._step = self._load(self.data)
        return step

    def _fields(self) -> tuple[Any, ...]:
        return (self.id, self.parent, self.step, self.round, self.said)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Node):
            return NotImplemented
        return self._fields() == other._fields()

    def __hash__(self) -> int:
        return hash(self._fields())

    def __repr__(self) -> str:
        return (
            f"Node(id={self.id!r}, parent={self.parent!r}, step={self._step or self.data!r}, "
            f"round={self.round!r}, said={self.said!r})"
        )

    def _replace(self, *, id: int, parent: int) -> Node:
        """The same step as another node (still as read, if not decoded yet)."""
        return Node(id, parent, self._step, self.round, self.said, data=self.data, load=self._load)


class Older(NamedTuple):
    """What a store's ``older_from`` gives: the nodes from ``first`` up to those already held,
    and their depths."""

    first: int
    nodes: Sequence[Node]
    depths: Mapping[int, int]


class Timeline:
    def __init__(
        self,
        root: Encounter,
        nodes: Iterable[Node] = (),
        current: int = ROOT,
        *,
        names: Mapping[int, str] | None = None,
        hidden: Iterable[int] = (),
        walked: Mapping[int, int] | None = None,
        older: Callable[[], Sequence[Node]] | None = None,
        older_from: Callable[[int], Older] | None = None,
        older_at: Callable[[int], Older] | None = None,
        older_below: int | None = None,
        depths: Mapping[int, int] | None = None,
        stored_state: Callable[[int], Encounter | None] | None = None,
    ) -> None:
        self.root = root
        self._nodes: dict[int, Node] = {}
        self._children: dict[int, list[int]] = {}
        self._depth: dict[int, int] = {ROOT: 0}
        self.current = current
        self.names: dict[int, str] = dict(names or {})
        self.hidden: set[int] = set(hidden)
        # the child redo goes to from each node: the one last walked (made, or come back from)
        self._walked: dict[int, int] = dict(walked or {})
        self._older = older
        # a store's loader of the nodes from an id up to those held (every node from
        # ``_held_from`` on is held), and of the states it keeps at checkpoint depths
        self._older_from = older_from
        self._older_at = older_at  # ...and of the part that holds one node (a jump reads that)
        loaders = older is not None or older_from is not None
        self._held_from = older_below if older_below is not None else (1 << 62 if loaders else 1)
        self._stored_state = stored_state
        self._states: dict[int, Encounter] = {ROOT: root}
        # whether each node is on a hidden branch, as last worked out, and for which ``hidden``
        self._hidden_memo: dict[int, bool] = {ROOT: False}
        self._memo_for: set[int] = set()
        self._recent: OrderedDict[int, Encounter] = OrderedDict()
        self._depth.update(depths or {})
        self._last = ROOT  # the newest node held (``max`` of 50,000 at each step is not free)
        self.stored: Any = None  # the store's memo of where its nodes are kept (``store.steps``)
        for node in nodes:
            self._insert(node)

    # -- the tree -----------------------------------------------------------------------------

    def _insert(self, node: Node) -> None:
        self._nodes[node.id] = node
        self._last = max(self._last, node.id)
        self._children.setdefault(node.parent, []).append(node.id)
        self._children[node.parent].sort()
        if node.parent in self._depth:
            self._depth[node.id] = self._depth[node.parent] + 1

    def _hold(self, nid: int) -> None:
        """Hold every node from ``nid`` on (a store's older part read up to it)."""
        if nid >= self._held_from:
            return
        if self._older_from is None:
            self._load_older()
            return
        first, nodes, depths = self._older_from(nid)
        self._depth.update(depths)
        for node in nodes:
            if node.id not in self._nodes:
                self._insert(node)
        self._held_from = first
        if first <= 1:
            self._older = self._older_from = self._older_at = None

    def _load_older(self) -> None:
        if self._older_from is not None:
            self._hold(1)
            return
        older, self._older = self._older, None
        self._held_from = 1
        if older is not None:
            for node in older():
                if node.id not in self._nodes:
                    self._insert(node)
            self._depth = {ROOT: 0}
            for nid in sorted(self._nodes):  # a parent is always made before its children
                node = self._nodes[nid]
                self._depth[nid] = self._depth.get(node.parent, 0) + 1

    def complete(self) -> Timeline:
        """The timeline with every node loaded (a store's older nodes read)."""
        self._load_older()
        return self

    def node(self, nid: int) -> Node:
        if nid not in self._nodes:
            if self._older_at is not None and 0 < nid < self._held_from:
                part = self._older_at(nid)
                self._depth.update(part.depths)
                for node in part.nodes:
                    if node.id not in self._nodes:
                        self._insert(node)
            if nid not in self._nodes:
                self._hold(max(nid, 1))
        return self._nodes[nid]

    def __contains__(self, nid: int) -> bool:
        if nid == ROOT:
            return True
        if nid not in self._nodes and nid > 0:
            self._hold(nid)
        return nid in self._nodes

    def __len__(self) -> int:
        self._load_older()
        return len(self._nodes)

    @property
    def last_id(self) -> int:
        """The newest node's id (``ROOT`` in a timeline of no step)."""
        if self._nodes:
            return self._last
        if self._held_from > 1 and self._older_from is not None:
            return self._held_from - 1
        self._load_older()
        return max(self._nodes, default=ROOT)

    def nodes(self) -> Iterator[Node]:
        """Every node, the oldest first (hidden ones too)."""
        self._load_older()
        return (self._nodes[i] for i in sorted(self._nodes))

    def parent(self, nid: int) -> int:
        return self.node(nid).parent

    def depth(self, nid: int) -> int:
        if nid not in self._depth:
            self.node(nid)
            if nid not in self._depth:
                self._depth[nid] = self.depth(self.node(nid).parent) + 1
        return self._depth[nid]

    def path(self, nid: int) -> list[int]:
        """The nodes from the root's first step to ``nid`` (empty for the root)."""
        out = []
        while nid != ROOT:
            out.append(nid)
            nid = self.parent(nid)
        out.reverse()
        return out

    def children(self, nid: int) -> list[int]:
        """The node's children not hidden, the oldest first."""
        self._hold(nid + 1)  # (a node's children are made after it)
        kids = self._children.get(nid, ())
        if not self.hidden:
            return list(kids)
        if self.is_hidden(nid):
            return []
        return [c for c in kids if c not in self.hidden]

    def is_hidden(self, nid: int) -> bool:
        """Whether ``nid`` is on a hidden branch's own part (from where it left the tree).
        Worked out once per node for the branches hidden now: a walk along a line of 50,000
        steps asks it of every step, and walking to the root each time took minutes."""
        if not self.hidden:
            return False
        if self._memo_for != self.hidden:  # (a branch hidden or shown since)
            self._hidden_memo, self._memo_for = {ROOT: False}, set(self.hidden)
        memo, walked = self._hidden_memo, []
        while (known := memo.get(nid)) is None:
            walked.append(nid)
            if nid in self.hidden:
                known = True
                break
            nid = self.parent(nid)
        for n in walked:
            memo[n] = known
        return known

    def next_of(self, nid: int) -> int | None:
        """The child redo goes to from ``nid``: the one last walked, else the newest."""
        kids = self.children(nid)
        if not kids:
            return None
        walked = self._walked.get(nid)
        return walked if walked in kids else kids[-1]

    def tip(self, nid: int) -> int:
        """Where the branch through ``nid`` ends, following redo."""
        while (nxt := self.next_of(nid)) is not None:
            nid = nxt
        return nid

    def line(self, nid: int) -> list[int]:
        """The branch through ``nid``: the path to it, then on to its tip."""
        out = self.path(nid)
        while (nxt := self.next_of(nid)) is not None:
            out.append(nxt)
            nid = nxt
        return out

    def tips(self) -> list[int]:
        """Every branch not hidden, by its tip, the oldest first."""
        self._load_older()
        return [n for n in sorted(self._nodes) if not self.children(n) and not self.is_hidden(n)]

    def fork_of(self, tip: int) -> int:
        """The first node of the branch ending at ``tip`` that no other visible branch shares."""
        nid = tip
        while (parent := self.parent(nid)) != ROOT and len(self.children(parent)) == 1:
            nid = parent
        return nid

    # -- moving -------------------------------------------------------------------------------

    def add(self, step: Step, after: Encounter | None, said: str, round: int = 0) -> Node:
        """A new node, child of the current one, made current; ``after`` is its fight (``None``
        where it is not known yet: a step read from a save, replayed when walked to)."""
        node = Node(self.last_id + 1, self.current, step, after.round if after else round, said)
        self._insert(node)
        # redo takes the newest child where no choice is kept: none is (a store keeps few)
        self._walked.pop(node.parent, None)
        self.current = node.id
        if after is not None:
            self.keep(node.id, after)
        return node

    def go(self, nid: int) -> None:
        """Make ``nid`` current; redo from each node on its path leads back to it."""
        if nid not in self:
            raise KeyError(nid)
        # Redo already leads from the root to the current node: only the part of the way to
        # ``nid`` below where it leaves the current one changes (undo far back reads no more).
        here, there = self.current, nid
        while self.depth(there) > self.depth(here):
            self._walked[self.parent(there)] = there
            there = self.parent(there)
        while self.depth(here) > self.depth(there):
            here = self.parent(here)
        while here != there:
            self._walked[self.parent(there)] = there
            there, here = self.parent(there), self.parent(here)
        self.current = nid

    def walked(self) -> dict[int, int]:
        """The child redo takes from each node (as a store keeps it)."""
        return dict(self._walked)

    def walked_kept(self) -> dict[int, int]:
        """The choices of redo a store must keep: those other than the newest child (which
        redo takes from a node with no choice kept). A node's children are all newer than
        it, so one held is newer than any not held yet."""
        kids = self._children
        return {p: c for p, c in self._walked.items() if p not in kids or c != kids[p][-1]}

    # -- states -------------------------------------------------------------------------------

    def keep(self, nid: int, state: Encounter) -> None:
        """Remember ``nid``'s fight: a checkpoint if its depth is one, else among the recent."""
        if self.depth(nid) % CHECKPOINT_EVERY == 0:
            self._states[nid] = state
            return
        self._recent[nid] = state
        self._recent.move_to_end(nid)
        while len(self._recent) > RECENT:
            self._recent.popitem(last=False)

    def known(self, nid: int) -> Encounter | None:
        """``nid``'s fight if it is kept (or a store keeps it), without replaying anything."""
        state = self._states.get(nid)
        if state is None:
            state = self._recent.get(nid)
        stored = self._stored_state
        if state is None and stored is not None and nid != ROOT and self._checkpoint(nid):
            state = stored(nid)
            if state is not None:
                self._states[nid] = state
        return state

    def _checkpoint(self, nid: int) -> bool:
        return self.depth(nid) % CHECKPOINT_EVERY == 0

    def state_at(self, nid: int, run: Callable[[Encounter, Step], Encounter]) -> Encounter:
        """``nid``'s fight: the nearest kept state on its path, and the steps from there replayed
        by ``run`` with their recorded dice."""
        todo: list[int] = []
        at = nid
        while (state := self.known(at)) is None:
            todo.append(at)
            at = self.parent(at)
        for step_id in reversed(todo):
            state = run(state, self.node(step_id).step)
            self.keep(step_id, state)
        return state

    # -- branches -----------------------------------------------------------------------------

    def name(self, tip: int, name: str) -> None:
        """Name the branch ending at ``tip`` (an empty name takes it away)."""
        if name:
            self.names[tip] = name
        else:
            self.names.pop(tip, None)

    def branch_name(self, nid: int) -> str:
        """The name of the branch ``nid`` is on (its tip's), or ``""``."""
        return self.names.get(self.tip(nid), "")

    def hide(self, tip: int) -> int:
        """Hide the branch ending at ``tip`` from where it leaves the others; the node hidden.
        The live branch (the current node's) cannot be hidden."""
        fork = self.fork_of(tip)
        if self.current in self.path(tip)[self.depth(fork) - 1 :]:
            raise ValueError("the branch being played cannot be deleted")
        self.hidden.add(fork)
        return fork

    def show(self, fork: int) -> None:
        self.hidden.discard(fork)

    # -- whole timelines ----------------------------------------------------------------------

    def copy(self) -> Timeline:
        """A timeline with the same nodes, changed on its own from now on (a store's older
        nodes still read when needed, by either)."""
        out = Timeline(
            self.root,
            (),
            self.current,
            names=self.names,
            hidden=self.hidden,
            walked=self._walked,
            older=self._older,
            older_from=self._older_from,
            older_at=self._older_at,
            stored_state=self._stored_state,
        )
        out._held_from, out.stored = self._held_from, self.stored
        out._nodes, out._last = dict(self._nodes), self._last
        out._children = {k: list(v) for k, v in self._children.items()}
        out._depth = dict(self._depth)
        out._states = dict(self._states)
        out._recent = OrderedDict(self._recent)
        return out

    def since(self, nid: int, last: int, root: Encounter) -> Timeline:
        """The steps made after node ``last`` as a timeline of their own, begun at node
        ``nid``'s fight ``root`` (those steps all follow from ``nid``): what stays of a saved
        timeline found not to lead to its saved fight."""

        def moved(i: int) -> int:
            return ROOT if i == nid or i <= last else i - last

        out = Timeline(root)
        for i in range(last + 1, self.last_id + 1):
            node = self._nodes[i]
            out._insert(node._replace(id=i - last, parent=moved(node.parent)))
        out.names = {moved(k): v for k, v in self.names.items() if k > last}
        out.hidden = {moved(k) for k in self.hidden if k > last}
        out._walked = {moved(k): moved(v) for k, v in self._walked.items() if v > last}
        for i in range(last + 1, self.last_id + 1):
            state = self.known(i)
            if state is not None:
                out.keep(i - last, state)
        out.current = moved(self.current)
        return out

    def grafted(self, since: Timeline) -> Timeline:
        """This timeline with ``since``'s steps after its current node: ``since`` is a timeline
        begun at this one's current fight (the steps made after a save was opened, before its
        history was read); its ids follow this one's. ``since``'s current node is current."""
        if not len(since):
            return self
        offset = self.last_id

        def moved(nid: int) -> int:
            return self.current if nid == ROOT else nid + offset

        for node in since.nodes():
            self._insert(node._replace(id=moved(node.id), parent=moved(node.parent)))
        self.names.update({moved(k): v for k, v in since.names.items()})
        self.hidden.update(moved(k) for k in since.hidden)
        self._walked.update({moved(k): moved(v) for k, v in since._walked.items()})
        for nid, state in [*since._states.items(), *since._recent.items()]:
            if nid != ROOT:
                self.keep(moved(nid), state)
        self.current = moved(since.current)
        self.go(self.current)
        return self

    def find(self, word: str) -> int | None:
        """The tip of the branch ``word`` names: a branch's name (any case), or a step's number
        (the branch through it, to its tip); ``None`` if none."""
        word = word.strip()
        if word.isdigit():
            nid = int(word)
            return self.tip(nid) if nid in self and not self.is_hidden(nid) else None
        named = [t for t, n in self.names.items() if n.casefold() == word.casefold()]
        named = [t for t in named if t in self and not self.is_hidden(t)]
        return named[0] if named else None
