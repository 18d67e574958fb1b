"""What one exploration keeps and reports, shared by the sequential and the parallel explorer.

The fingerprint store (:class:`StateStore`: as TLC does, the explorer stores no state it has expanded, only a 64-bit
fingerprint per state and the number of its parent and of the edge that reached it), the :class:`Report`, the garbage
collector's setting while exploring, and the traces: a counterexample is rebuilt by replaying the stored edges from
the initial state (:func:`replay`), so it is the same path the search took.
"""

from __future__ import annotations

import gc
import resource
import sys
from array import array
from collections import Counter
from collections.abc import Hashable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from itertools import pairwise
from typing import Final, TypeVar

from spec.verify.fingerprint import collision_probability
from spec.verify.transition_system import Edge, TransitionSystem, Violation

S = TypeVar("S", bound=Hashable)


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
    """The partitions the search ran in: ``-j``'s processes, or the Dask workers of ``cluster``."""
    cluster: str | None = None
    """The Dask cluster the partitions ran on (``--cluster``), if any."""
    fingerprint_gap: int = 0
    """The least difference between two stored fingerprints (0 when fewer than two)."""
    partition: tuple[int, int] | None = None
    """(k, n): this run explored part k of n (see :func:`explore`)."""
    split_depth: int | None = None
    """The depth at which a partitioned run split (None if it never reached one)."""
    level_states: list[int] = field(default_factory=list)
    """New states found at each depth (index 0: the initial states), as far as the search got."""
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
