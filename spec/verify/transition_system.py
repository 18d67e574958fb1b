"""What the model checker explores: a transition system, its edges, violations and expansions.

A :class:`TransitionSystem` supplies initial states, the edges out of a state (each already checked for step
properties), the state properties, a canonical representative of each state (symmetry) and its fingerprint, and a way
to turn a path of representatives back into a concrete trace. :mod:`spec.verify.cache.system` is the cache,
:mod:`spec.verify.dispatcher.system` the dispatcher's call queue, :mod:`spec.verify.cycle.system` the scheduling
pipeline. The explorers (:mod:`spec.verify.checker`, :mod:`spec.verify.parallel`) know nothing else about them.

This module also holds the exploration's deadline, which a system's own ``expand`` checks per edge it computes.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Hashable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Generic, Protocol, TypeVar

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
