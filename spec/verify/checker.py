"""A breadth-first explicit-state model checker over any :class:`TransitionSystem`.

The explorer knows nothing about the cache: a transition system supplies initial states, the
edges out of a state (each already checked for step properties), the state properties, a
canonical representative of each state (hashing, symmetry), and a way to turn a path of
representatives back into a concrete trace. :mod:`spec.verify.cache_system` is the cache,
:mod:`spec.verify.dispatcher_system` the dispatcher's call queue, :mod:`spec.verify.cycle_system`
the scheduling pipeline.

Breadth-first order makes the first violation found a shortest one: every state at depth ``d``
is expanded before any at depth ``d + 1``.
"""

from __future__ import annotations

import time
from collections import Counter, deque
from collections.abc import Hashable, Iterable
from dataclasses import dataclass, field
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


class TransitionSystem(Protocol[S]):
    """What the model checker needs from a system."""

    def initial_states(self) -> Iterable[S]: ...

    def edges(self, state: S) -> Iterable[Edge[S]]: ...

    def violations(self, state: S) -> list[str]:
        """The names of the state properties ``state`` violates."""
        ...

    def canonical(self, state: S) -> tuple[S, object]:
        """A representative of ``state`` and the renaming that maps ``state`` to it."""
        ...

    def concretize(self, initial: S, path: list[tuple[object, object]], prop: str) -> Violation:
        """A concrete counterexample from a path of (edge label, renaming to the next representative)."""
        ...

    def within_bounds(self, state: S) -> bool:
        """Whether to expand ``state``; a state outside the bounds is checked but not expanded."""
        ...


@dataclass
class Report:
    """What an exploration found and how much it explored."""

    system: str
    states: int = 0
    transitions: int = 0
    max_depth: int = 0
    seconds: float = 0.0
    complete: bool = False
    """Every state reachable within ``depth_limit`` (if any) was explored: no violation or time
    limit stopped the exploration."""
    exhausted: bool = False
    """Complete, and no state was left unexpanded at the depth limit: every reachable state was explored."""
    depth_limit: int | None = None
    stopped_by: str = ""
    pruned: int = 0
    """States outside the system's bounds: checked, not expanded (then the report is not exhausted)."""
    coverage: Counter[str] = field(default_factory=Counter)
    violations: list[Violation] = field(default_factory=list)

    @property
    def states_per_second(self) -> float:
        return self.states / self.seconds if self.seconds > 0 else 0.0


@dataclass
class _Node:
    parent: object | None
    label: object
    renaming: object
    depth: int
    initial: object


def explore(
    system: TransitionSystem[S],
    *,
    name: str = "system",
    depth_limit: int | None = None,
    time_limit: float | None = None,
    stop_at_first: bool = True,
) -> Report:
    """Explore every state reachable from the initial states, breadth first.

    Stops at the first violation unless ``stop_at_first`` is False (then it keeps one shortest
    trace per violated property and does not expand violating states). ``depth_limit`` bounds the
    path length; ``time_limit`` (seconds) stops early, leaving the report not exhausted: it is checked before
    each state is expanded and after each of its edges, so a state with many edges does not overrun it.
    """
    report = Report(name, depth_limit=depth_limit)
    started = time.perf_counter()
    deadline = None if time_limit is None else started + time_limit
    seen: dict[S, _Node] = {}
    queue: deque[S] = deque()
    violated: set[str] = set()

    def record(state: S, props: list[str]) -> bool:
        """Record violations at ``state``; True if exploration must stop."""
        for prop in props:
            if prop in violated:
                continue
            violated.add(prop)
            report.violations.append(_counterexample(system, seen, state, prop))
        return bool(props) and stop_at_first

    stop = False
    for initial in system.initial_states():
        rep, renaming = system.canonical(initial)
        if rep in seen:
            continue
        seen[rep] = _Node(None, None, renaming, 0, rep)
        if record(rep, system.violations(rep)):
            stop = True
            break
        queue.append(rep)

    timed_out = at_depth_limit = False
    while queue and not stop and not timed_out:
        if _past(deadline):
            timed_out = True
            break
        state = queue.popleft()
        depth = seen[state].depth
        if depth_limit is not None and depth >= depth_limit:
            at_depth_limit = True
            continue
        for edge in system.edges(state):
            if _past(deadline):  # the state stays half-expanded: the report is not complete
                timed_out = True
                break
            report.transitions += 1
            report.coverage[edge.coverage] += 1
            if edge.violations:
                node = _Node(state, edge.label, None, depth + 1, seen[state].initial)
                if _record_edge(system, seen, state, node, edge.violations, violated, report) and stop_at_first:
                    stop = True
                    break
            if edge.target is None or edge.target is state:
                continue  # the path ends, or the operation changed nothing
            rep, renaming = system.canonical(edge.target)
            if rep in seen:
                continue
            seen[rep] = _Node(state, edge.label, renaming, depth + 1, seen[state].initial)
            report.max_depth = max(report.max_depth, depth + 1)
            props = system.violations(rep)
            if props:
                if record(rep, props):
                    stop = True
                    break
                continue
            if not system.within_bounds(rep):
                report.pruned += 1
                continue
            queue.append(rep)

    if timed_out:
        report.stopped_by = f"time limit {time_limit:g}s"
    report.states = len(seen)
    report.seconds = time.perf_counter() - started
    report.complete = not stop and not timed_out
    report.exhausted = report.complete and not at_depth_limit and report.pruned == 0
    if stop:
        report.stopped_by = "first violation"
    elif at_depth_limit:
        report.stopped_by = f"depth limit {depth_limit}"
    return report


def _past(deadline: float | None) -> bool:
    """Whether the time limit's deadline (a ``perf_counter`` reading) has passed; never without a limit."""
    return deadline is not None and time.perf_counter() > deadline


def _path(seen: dict[S, _Node], state: S) -> list[tuple[object, object]]:
    path: list[tuple[object, object]] = []
    node = seen[state]
    while node.parent is not None:
        path.append((node.label, node.renaming))
        node = seen[node.parent]  # type: ignore[index]
    path.reverse()
    return path


def _counterexample(system: TransitionSystem[S], seen: dict[S, _Node], state: S, prop: str) -> Violation:
    return system.concretize(seen[state].initial, _path(seen, state), prop)  # type: ignore[arg-type]


def _record_edge(
    system: TransitionSystem[S],
    seen: dict[S, _Node],
    source: S,
    node: _Node,
    props: tuple[str, ...],
    violated: set[str],
    report: Report,
) -> bool:
    new = [p for p in props if p not in violated]
    for prop in new:
        violated.add(prop)
        path = [*_path(seen, source), (node.label, None)]
        report.violations.append(system.concretize(node.initial, path, prop))  # type: ignore[arg-type]
    return bool(props)
