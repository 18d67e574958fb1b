"""A breadth-first explicit-state model checker over any :class:`TransitionSystem`.

The explorer knows nothing about the cache: a transition system supplies initial states, the
edges out of a state (each already checked for step properties), the state properties, a
canonical representative of each state (symmetry) and its fingerprint, and a way to turn a path
of representatives back into a concrete trace. :mod:`spec.verify.cache_system` is the cache,
:mod:`spec.verify.dispatcher_system` the dispatcher's call queue, :mod:`spec.verify.cycle_system`
the scheduling pipeline. Every edge is the executable spec's own transition.

Breadth-first order makes the first violation found a shortest one: every state at depth ``d``
is expanded before any at depth ``d + 1``.

As TLC does, the explorer stores no state it has expanded: it keeps a set of 64-bit
fingerprints (:mod:`spec.verify.fingerprint`) and, per state, the number of its parent and of
the edge that reached it. A trace is rebuilt by replaying those edges from the initial state
(:func:`replay`), so it is the same path the search took. Two distinct states with the same
fingerprint would make the second look explored; the report gives the probability of that
(:attr:`Report.collision_probability`, TLC's optimistic estimate).

``jobs > 1`` runs the same search in several processes (:mod:`spec.verify.parallel`), with the
same result; ``partition`` explores one part of a split run (:mod:`spec.verify.partition`).
"""

from __future__ import annotations

import gc
import resource
import sys
import time
from array import array
from collections import Counter, deque
from collections.abc import Callable, Hashable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from itertools import pairwise
from typing import Final, Generic, Protocol, TypeVar

from spec.verify.fingerprint import collision_probability

S = TypeVar("S", bound=Hashable)


@dataclass(frozen=True)
class Edge(Generic[S]):
    """One transition out of a state."""

    label: object
    """What was done (for the cache: the operation), relative to the state it leaves."""
    coverage: str
    """The coverage class of this transition, e.g. ``"AssumePod: ok"``."""
    target: S | None
    """The next state, or None when the path ends (the process exited)."""
    violations: tuple[str, ...] = ()
    """Step properties this transition violates."""


@dataclass(frozen=True)
class TraceStep:
    action: str
    result: str


@dataclass(frozen=True)
class Violation:
    """A property violated at the end of a shortest path from an initial state."""

    property: str
    initial: str
    trace: tuple[TraceStep, ...]
    final_state: str

    def render(self) -> str:
        lines = [f"violation of {self.property} after {len(self.trace)} step(s)", f"  initial: {self.initial}"]
        lines.extend(f"  {i}. {step.action} -> {step.result}" for i, step in enumerate(self.trace, 1))
        lines.append("  final state:")
        lines.extend(f"    {line}" for line in self.final_state.splitlines())
        return "\n".join(lines)


@dataclass(frozen=True)
class Expansion(Generic[S]):
    """The edges out of one representative, as the explorer consumes them.

    A system may compute this directly (``expand``), without building every successor; else
    :func:`expand_by_edges` derives it from :meth:`TransitionSystem.edges`. Either way it must
    describe exactly the edges ``edges`` yields, in that order.
    """

    coverage: tuple[str, ...]
    """The coverage class of every edge, in order."""
    violations: tuple[tuple[int, tuple[str, ...]], ...]
    """(edge index, step properties it violates), for the edges that violate any, in order."""
    targets: Sequence[tuple[int, int]]
    """(fingerprint of the next state's representative, edge index), in order, for every edge
    whose next state exists and is not the state itself."""
    representative: Callable[[int], S]
    """The representative of the next state of the edge with this index (one of ``targets``)."""
    duplicates: int = 0
    """Edges left out of ``targets`` because an earlier edge of ``targets`` has the same next state
    (they count as generated successors all the same)."""


class TransitionSystem(Protocol[S]):
    """What the model checker needs from a system (``expand`` is optional, for speed)."""

    def initial_states(self) -> Iterable[S]: ...

    def edges(self, state: S) -> Iterable[Edge[S]]: ...

    def violations(self, state: S) -> list[str]:
        """The names of the state properties ``state`` violates."""
        ...

    def canonical(self, state: S) -> tuple[S, object]:
        """A representative of ``state`` and the renaming that maps ``state`` to it."""
        ...

    def fingerprint(self, representative: S) -> int:
        """The 64-bit fingerprint of a representative: equal representatives, equal fingerprints."""
        ...

    def concretize(self, initial: S, path: list[tuple[object, object]], prop: str) -> Violation:
        """A concrete counterexample from a path of (edge label, renaming to the next representative)."""
        ...

    def within_bounds(self, state: S) -> bool:
        """Whether to expand ``state``; a state outside the bounds is checked but not expanded."""
        ...


# --------------------------------------------------------------------------------------------
# The time limit inside one state: a state may have thousands of edges, seconds of work, so the
# expansion loops look at the exploration's deadline too (a system's own ``expand`` calls
# :func:`check_deadline` per edge it computes).
# --------------------------------------------------------------------------------------------

_DEADLINE: ContextVar[float | None] = ContextVar("exploration_deadline", default=None)


def now() -> float:
    """The explorer's clock, in seconds: every time limit and figure of the checker (and of its worker
    processes, each on its own clock) is measured on it."""
    return time.perf_counter()


class DeadlinePassed(Exception):
    """The time limit of the running exploration passed while a state was being expanded."""


@contextmanager
def deadline_scope(deadline: float | None) -> Iterator[None]:
    """Within the ``with`` block, :func:`check_deadline` fails once :func:`now` passes ``deadline``
    (None: never)."""
    token = _DEADLINE.set(deadline)
    try:
        yield
    finally:
        _DEADLINE.reset(token)


def check_deadline() -> None:
    """Fail with :class:`DeadlinePassed` if the running exploration's time limit has passed (a
    deadline on :func:`now` that :func:`explore` sets); never outside an exploration with a limit."""
    deadline = _DEADLINE.get()
    if deadline is not None and now() > deadline:
        raise DeadlinePassed


GC_THRESHOLD: Final = 100_000
"""New container objects between two runs of the cyclic garbage collector while exploring (Python's default: 700)."""


@contextmanager
def fewer_collections() -> Iterator[None]:
    """Within the ``with`` block, the cyclic garbage collector's first generation runs every
    :data:`GC_THRESHOLD` allocations: an exploration allocates millions of short-lived values that
    form no cycles while it keeps hundreds of thousands alive, and at the default threshold the
    collector spends about a tenth of the run scanning them."""
    old = gc.get_threshold()
    gc.set_threshold(max(old[0], GC_THRESHOLD), old[1], old[2])
    try:
        yield
    finally:
        gc.set_threshold(*old)


def expand_by_edges(system: TransitionSystem[S], state: S) -> Expansion[S]:
    """The expansion of ``state`` from ``system.edges``, ``canonical`` and ``fingerprint``."""
    coverage: list[str] = []
    violations: list[tuple[int, tuple[str, ...]]] = []
    targets: list[tuple[int, int]] = []
    representatives: dict[int, S] = {}
    for index, edge in enumerate(system.edges(state)):
        check_deadline()
        coverage.append(edge.coverage)
        if edge.violations:
            violations.append((index, edge.violations))
        if edge.target is None or edge.target is state:
            continue  # the path ends, or the operation changed nothing
        rep, _ = system.canonical(edge.target)
        targets.append((system.fingerprint(rep), index))
        representatives[index] = rep
    return Expansion(tuple(coverage), tuple(violations), targets, representatives.__getitem__)


def expander(system: TransitionSystem[S]) -> Callable[[S], Expansion[S]]:
    """The system's own ``expand`` if it has one, else :func:`expand_by_edges`."""
    own: Callable[[S], Expansion[S]] | None = getattr(system, "expand", None)
    return own if own is not None else lambda state: expand_by_edges(system, state)


@dataclass
class Report:
    """What an exploration found and how much it explored."""

    system: str
    states: int = 0
    transitions: int = 0
    max_depth: int = 0
    seconds: float = 0.0
    complete: bool = False
    """Every state reachable within ``depth_limit`` (if any) was explored: no violation, state
    limit or time limit stopped the exploration."""
    exhausted: bool = False
    """Complete, and no state was left unexpanded at the depth limit: every reachable state was explored."""
    depth_limit: int | None = None
    stopped_by: str = ""
    pruned: int = 0
    """States outside the system's bounds: checked, not expanded (then the report is not exhausted)."""
    coverage: Counter[str] = field(default_factory=Counter)
    violations: list[Violation] = field(default_factory=list)
    generated: int = 0
    """Successor states generated (a state reached twice counts twice), initial states included."""
    store_bytes: int = 0
    """Memory of the fingerprint store (the fingerprints and each state's parent and edge)."""
    peak_rss_bytes: int = 0
    """The peak resident memory of the process (with ``jobs > 1``: the largest worker's)."""
    jobs: int = 1
    fingerprint_gap: int = 0
    """The least difference between two stored fingerprints (0 when fewer than two)."""
    partition: tuple[int, int] | None = None
    """(k, n): this run explored part k of n (see :func:`explore`)."""
    split_depth: int | None = None
    """The depth at which a partitioned run split (None if it never reached one)."""
    fingerprints: StateStore | None = field(default=None, repr=False, compare=False)
    """The sequential search's store (for saving the fingerprints of a split run's part)."""

    @property
    def states_per_second(self) -> float:
        return self.states / self.seconds if self.seconds > 0 else 0.0

    @property
    def bytes_per_state(self) -> float:
        """Memory of the fingerprint store per distinct state."""
        return self.store_bytes / self.states if self.states else 0.0

    @property
    def collision_probability(self) -> float:
        """TLC's optimistic estimate: ``states * (generated - states) / 2^64``."""
        return collision_probability(self.states, self.generated)

    @property
    def collision_probability_observed(self) -> float:
        """TLC's estimate from the fingerprints themselves: 1 / the least gap between two of them."""
        return 1.0 / self.fingerprint_gap if self.fingerprint_gap else 0.0


class StateStore:
    """The fingerprints of the states found, and how each was reached (parent number, edge index).

    States are numbered in the order they are added. A root (an initial state) has parent -1
    and, as its edge index, its position among the system's initial states.
    """

    def __init__(self) -> None:
        self.seen: set[int] = set()
        self.fingerprints = array("Q")
        self.parents = array("q")
        self.edges = array("L")

    def __len__(self) -> int:
        return len(self.fingerprints)

    def __contains__(self, fingerprint: int) -> bool:
        return fingerprint in self.seen

    def add(self, fingerprint: int, parent: int, edge: int) -> int:
        """Record a new state; its number."""
        self.seen.add(fingerprint)
        self.fingerprints.append(fingerprint)
        self.parents.append(parent)
        self.edges.append(edge)
        return len(self.fingerprints) - 1

    def hops(self, number: int) -> list[tuple[int, int]]:
        """(state number, edge index) from the root down to state ``number``."""
        hops = []
        while number >= 0:
            hops.append((number, self.edges[number]))
            number = self.parents[number]
        hops.reverse()
        return hops

    def memory_bytes(self) -> int:
        """The set's table, its integers and the three arrays."""
        arrays = sum(a.buffer_info()[1] * a.itemsize for a in (self.fingerprints, self.parents, self.edges))
        integers = sum(sys.getsizeof(fp) for fp in self.fingerprints[:1000]) / max(1, min(1000, len(self)))
        return int(sys.getsizeof(self.seen) + integers * len(self) + arrays)

    def least_gap(self) -> int:
        """The least difference between two fingerprints (TLC's collision check), or 0."""
        ordered = sorted(self.seen)
        return min((b - a for a, b in pairwise(ordered)), default=0)


def peak_rss_bytes() -> int:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024  # kilobytes on Linux


@dataclass
class _Search(Generic[S]):
    """The state of one sequential search: what :func:`explore` updates as it goes."""

    system: TransitionSystem[S]
    report: Report
    stop_at_first: bool
    store: StateStore = field(default_factory=StateStore)
    violated: set[str] = field(default_factory=set)
    profiles: Counter[tuple[str, ...]] = field(default_factory=Counter)
    """How many states were expanded with each tuple of edge coverage classes."""

    def record(self, number: int, props: Iterable[str], edge: int | None = None) -> bool:
        """Record the violations at state ``number`` (or of its edge ``edge``); True to stop."""
        found = False
        for prop in props:
            found = True
            if prop not in self.violated:
                self.violated.add(prop)
                self.report.violations.append(counterexample(self.system, self.store, number, prop, edge))
        return found and self.stop_at_first

    def count(self, coverage: tuple[str, ...], edges: int | None = None) -> None:
        """Count the first ``edges`` (default all) edges of an expanded state."""
        if edges is None:
            self.profiles[coverage] += 1
            self.report.transitions += len(coverage)
        else:
            self.report.coverage.update(coverage[:edges])
            self.report.transitions += edges

    def tally(self) -> None:
        for profile, times in self.profiles.items():
            for key in profile:
                self.report.coverage[key] += times


def explore(
    system: TransitionSystem[S],
    *,
    name: str = "system",
    depth_limit: int | None = None,
    time_limit: float | None = None,
    max_states: int | None = None,
    stop_at_first: bool = True,
    jobs: int = 1,
    partition: tuple[int, int] | None = None,
    split_depth: int | None = None,
) -> Report:
    """Explore every state reachable from the initial states, breadth first.

    Stops at the first violation unless ``stop_at_first`` is False (then it keeps one shortest
    trace per violated property and does not expand violating states). ``depth_limit`` bounds the
    path length; ``time_limit`` (seconds) and ``max_states`` stop early, leaving the report not
    complete. ``jobs > 1`` explores in that many processes (:func:`spec.verify.parallel.explore_parallel`)
    and reports the same states, transitions, depth, coverage and violations.

    ``partition=(k, n)`` explores part ``k`` of ``n`` of a split run: every part explores the
    states up to the split depth, then expands only the states at that depth whose fingerprint is
    ``k`` modulo ``n``, and everything they lead to. The union of the parts' states is the whole
    run's, and so are their violations (the shortest trace of each among the parts) and depth.
    ``split_depth`` is that depth; None picks the first depth with at least
    :data:`SPLIT_WIDTH` states per part. Fails with ``ValueError`` on a bad partition.
    """
    if partition is not None:
        part, parts = partition
        if not 0 <= part < parts or jobs > 1:
            raise ValueError(f"partition must be K/N with 0 <= K < N, and without -j; got {part}/{parts}")
    if jobs > 1:
        from spec.verify.parallel import explore_parallel

        return explore_parallel(
            system, jobs, name=name, depth_limit=depth_limit, time_limit=time_limit, max_states=max_states,
            stop_at_first=stop_at_first,
        )  # fmt: skip
    report = Report(name, depth_limit=depth_limit, partition=partition)
    started = now()
    search = _Search(system, report, stop_at_first)
    store = search.store
    expand = expander(system)
    queue: deque[tuple[S, int, int]] = deque()  # (representative, number, depth)

    stop = False
    for index, initial in enumerate(system.initial_states()):
        rep, _ = system.canonical(initial)
        fp = system.fingerprint(rep)
        report.generated += 1
        if fp in store:
            continue
        number = store.add(fp, -1, index)
        if search.record(number, system.violations(rep)):
            stop = True
            break
        queue.append((rep, number, 0))

    timed_out = at_depth_limit = at_state_limit = False
    split = _Split(partition, split_depth)
    seen = store.seen  # the hot loop tests membership in the set itself
    violations_of = system.violations
    with deadline_scope(None if time_limit is None else started + time_limit), fewer_collections():
        while queue and not stop:
            if time_limit is not None and now() - started > time_limit:
                report.stopped_by = f"time limit {time_limit:g}s"
                timed_out = True
                break
            state, parent, depth = queue.popleft()
            if depth_limit is not None and depth >= depth_limit:
                at_depth_limit = True
                continue
            if partition is not None and split.skips(store.fingerprints[parent], depth, queue):
                continue
            try:
                expansion = expand(state)
            except DeadlinePassed:  # the state is left unexpanded: the report is not complete
                report.stopped_by = f"time limit {time_limit:g}s"
                timed_out = True
                break
            report.generated += len(expansion.targets) + expansion.duplicates
            cut: int | None = None  # the index of the edge the search stops at, if it stops
            pending = iter(expansion.violations)
            next_violation = next(pending, None)
            for fp, index in expansion.targets:
                while next_violation is not None and next_violation[0] <= index:
                    if search.record(parent, next_violation[1], next_violation[0]):
                        cut = next_violation[0]
                        break
                    next_violation = next(pending, None)
                if cut is not None:
                    break
                if fp in seen:
                    continue
                if max_states is not None and len(store) >= max_states:
                    at_state_limit = True
                    cut = index
                    break
                number = store.add(fp, parent, index)
                report.max_depth = max(report.max_depth, depth + 1)
                rep = expansion.representative(index)
                props = violations_of(rep)
                if props:
                    if search.record(number, props):
                        cut = index
                        break
                    continue
                if not system.within_bounds(rep):
                    report.pruned += 1
                    continue
                queue.append((rep, number, depth + 1))
            while cut is None and next_violation is not None:  # violating edges after the last target
                if search.record(parent, next_violation[1], next_violation[0]):
                    cut = next_violation[0]
                next_violation = next(pending, None)
            search.count(expansion.coverage, None if cut is None else cut + 1)
            if cut is not None:
                stop = not at_state_limit
                break
    search.tally()
    report.states = len(store)
    report.seconds = now() - started
    report.store_bytes = store.memory_bytes()
    report.peak_rss_bytes = peak_rss_bytes()
    report.fingerprint_gap = store.least_gap()
    report.fingerprints = store
    report.split_depth = split.depth
    report.complete = not stop and not timed_out and not at_state_limit
    report.exhausted = report.complete and not at_depth_limit and report.pruned == 0
    if stop:
        report.stopped_by = "first violation"
    elif at_state_limit:
        report.stopped_by = f"state limit {max_states:,}"
    elif at_depth_limit:
        report.stopped_by = f"depth limit {depth_limit}"
    return report


SPLIT_WIDTH: Final = 64
"""With ``partition`` and no split depth, split at the first depth with this many states per part."""


class _Split:
    """Which states a part of a split run expands (see :func:`explore`'s ``partition``)."""

    def __init__(self, partition: tuple[int, int] | None, depth: int | None) -> None:
        self.partition = partition
        self.depth = depth
        self.width = 0
        """States queued at the depth being expanded (counted when its first state is taken)."""
        self.current = -1

    def skips(self, fingerprint: int, depth: int, queue: Iterable[tuple[object, int, int]]) -> bool:
        """Whether to leave the state just taken (at ``depth``, the rest queued in ``queue``) unexpanded."""
        if self.partition is None:
            return False
        part, parts = self.partition
        if depth != self.current:  # the first state of a new depth: the queue holds the rest of it
            self.current = depth
            self.width = 1 + sum(1 for entry in queue if entry[2] == depth)
            if self.depth is None and self.width >= SPLIT_WIDTH * parts:
                self.depth = depth
        return depth == self.depth and fingerprint % parts != part


# ============================================================================================
# Traces
# ============================================================================================


def replay(
    system: TransitionSystem[S],
    hops: Sequence[tuple[int, int]],
    fingerprints: Sequence[int] | Mapping[int, int] | None = None,
) -> tuple[S, list[tuple[object, object]], S]:
    """Replay a path found by the search: the initial representative, the path of (edge label,
    renaming to the next representative) and the last representative.

    ``hops`` are (state number, edge index) from a root (whose edge index is its position among
    the initial states); ``fingerprints[number]``, when given, must match each state replayed:
    a mismatch means the system is not deterministic (or two states collided) and fails with
    ``RuntimeError``.
    """
    (root, initial_index), *rest = hops
    initial = list(system.initial_states())[initial_index]
    state, _ = system.canonical(initial)
    _expect(system, state, root, fingerprints)
    first = state
    path: list[tuple[object, object]] = []
    for number, edge_index in rest:
        edge = _nth(system.edges(state), edge_index)
        assert edge.target is not None
        rep, renaming = system.canonical(edge.target)
        _expect(system, rep, number, fingerprints)
        path.append((edge.label, renaming))
        state = rep
    return first, path, state


def _nth(edges: Iterable[Edge[S]], index: int) -> Edge[S]:
    for i, edge in enumerate(edges):
        if i == index:
            return edge
    raise RuntimeError(f"the replayed state has no edge {index}: the transition system is not deterministic")


def _expect(
    system: TransitionSystem[S], rep: S, number: int, fingerprints: Sequence[int] | Mapping[int, int] | None
) -> None:
    if fingerprints is not None and system.fingerprint(rep) != fingerprints[number]:
        raise RuntimeError(
            f"replaying state {number} gave another fingerprint: the transition system is not deterministic"
        )


def counterexample(
    system: TransitionSystem[S], store: StateStore, number: int, prop: str, edge: int | None = None
) -> Violation:
    """The shortest trace to state ``number`` (and then its edge ``edge``, for a step property)."""
    return trace_to(system, store.hops(number), prop, edge, store.fingerprints)


def trace_to(
    system: TransitionSystem[S],
    hops: Sequence[tuple[int, int]],
    prop: str,
    edge: int | None,
    fingerprints: Sequence[int] | Mapping[int, int] | None = None,
) -> Violation:
    """The counterexample of ``prop`` along ``hops`` (and then edge ``edge`` of the last state)."""
    initial, path, last = replay(system, hops, fingerprints)
    if edge is not None:
        path.append((_nth(system.edges(last), edge).label, None))
    return system.concretize(initial, path, prop)
