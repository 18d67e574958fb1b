"""A breadth-first explicit-state model checker over any transition system.

The explorer knows nothing about the cache: :mod:`spec.verify.transition_system` says what a system supplies
(initial states, the edges out of a state, its properties, a canonical representative and a fingerprint, and a way to
turn a path back into a concrete trace). :mod:`spec.verify.cache.system` is the cache,
:mod:`spec.verify.dispatcher.system` the dispatcher's call queue, :mod:`spec.verify.cycle.system` the scheduling
pipeline. Every edge is the executable spec's own transition.

Breadth-first order makes the first violation found a shortest one: every state at depth ``d``
is expanded before any at depth ``d + 1``.

As TLC does, the explorer stores no state it has expanded: it keeps a set of 64-bit fingerprints
(:mod:`spec.verify.fingerprint`) and, per state, the number of its parent and of the edge that reached it
(:class:`spec.verify.exploration.StateStore`). A trace is rebuilt by replaying those edges from the initial state
(:func:`spec.verify.exploration.replay`), so it is the same path the search took. Two distinct states with the same
fingerprint would make the second look explored; the report gives the probability of that
(:attr:`spec.verify.exploration.Report.collision_probability`, TLC's optimistic estimate).

``jobs > 1`` runs the same search in several processes (:mod:`spec.verify.parallel`), with the
same result; ``partition`` explores one part of a split run (:mod:`spec.verify.partition`).
"""

from __future__ import annotations

from collections import Counter, deque
from collections.abc import Hashable, Iterable
from dataclasses import dataclass, field
from typing import Final, Generic, TypeVar

from spec.verify.exploration import Report, StateStore, counterexample, fewer_collections, peak_rss_bytes
from spec.verify.parallel import explore_parallel
from spec.verify.transition_system import DeadlinePassed, TransitionSystem, deadline_scope, expander, now

S = TypeVar("S", bound=Hashable)


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
    cluster: str | None = None,
) -> Report:
    """Explore every state reachable from the initial states, breadth first.

    Stops at the first violation unless ``stop_at_first`` is False (then it keeps one shortest
    trace per violated property and does not expand violating states). ``depth_limit`` bounds the
    path length; ``time_limit`` (seconds) and ``max_states`` stop early, leaving the report not
    complete. ``jobs > 1`` explores in that many processes (:func:`spec.verify.parallel.explore_parallel`)
    and reports the same states, transitions, depth, coverage and violations; so does ``cluster``, the
    address of a Dask cluster (or ``local:N``), with one partition per Dask worker (:mod:`spec.verify.dask_pool`).

    ``partition=(k, n)`` explores part ``k`` of ``n`` of a split run: every part explores the
    states up to the split depth, then expands only the states at that depth whose fingerprint is
    ``k`` modulo ``n``, and everything they lead to. The union of the parts' states is the whole
    run's, and so are their violations (the shortest trace of each among the parts) and depth.
    ``split_depth`` is that depth; None picks the first depth with at least
    :data:`SPLIT_WIDTH` states per part. Fails with ``ValueError`` on a bad partition.
    """
    if partition is not None:
        part, parts = partition
        if not 0 <= part < parts or jobs > 1 or cluster is not None:
            raise ValueError(
                f"partition must be K/N with 0 <= K < N, and without -j or --cluster; got {part}/{parts}"
            )
    if jobs > 1 or cluster is not None:
        return explore_parallel(
            system, jobs, name=name, depth_limit=depth_limit, time_limit=time_limit, max_states=max_states,
            stop_at_first=stop_at_first, cluster=cluster,
        )  # fmt: skip
    report = Report(name, depth_limit=depth_limit, partition=partition)
    started = now()
    search = _Search(system, report, stop_at_first)
    store = search.store
    expand = expander(system)
    queue: deque[tuple[S, int, int]] = deque()  # (representative, number, depth)

    stop = False
    levels: dict[int, int] = {}
    """Depth -> new states found at it."""
    for index, initial in enumerate(system.initial_states()):
        rep, _ = system.canonical(initial)
        fp = system.fingerprint(rep)
        report.generated += 1
        if fp in store:
            continue
        number = store.add(fp, -1, index)
        levels[0] = levels.get(0, 0) + 1
        if search.record(number, system.violations(rep)):
            stop = True
            break
        queue.append((rep, number, 0))

    timed_out = at_depth_limit = at_state_limit = False
    split = _Split(partition, split_depth)
    seen = store.seen  # the hot loop tests membership in the set itself
    violations_of = system.violations
    interrupted = False
    with deadline_scope(None if time_limit is None else started + time_limit), fewer_collections():
        try:
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
                    levels[depth + 1] = levels.get(depth + 1, 0) + 1
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
        except KeyboardInterrupt:  # Ctrl-C: the report holds what was explored so far, and says so
            interrupted = True
    search.tally()
    report.level_states = [levels.get(depth, 0) for depth in range(max(levels, default=-1) + 1)]
    report.states = len(store)
    report.seconds = now() - started
    report.store_bytes = store.memory_bytes()
    report.peak_rss_bytes = peak_rss_bytes()
    report.fingerprint_gap = store.least_gap()
    report.fingerprints = store
    report.split_depth = split.depth
    report.complete = not stop and not timed_out and not at_state_limit and not interrupted
    report.exhausted = report.complete and not at_depth_limit and report.pruned == 0
    if interrupted:
        report.stopped_by = INTERRUPTED
    elif stop:
        report.stopped_by = "first violation"
    elif at_state_limit:
        report.stopped_by = f"state limit {max_states:,}"
    elif at_depth_limit:
        report.stopped_by = f"depth limit {depth_limit}"
    return report


INTERRUPTED: Final = "interrupt (Ctrl-C)"
""":attr:`Report.stopped_by` of a run stopped by ``KeyboardInterrupt``: its figures are those of the states explored."""
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
