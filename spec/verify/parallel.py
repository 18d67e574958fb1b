"""The breadth-first search of :func:`spec.verify.checker.explore` in several processes, with the same result.

States are partitioned by fingerprint: worker ``fp % jobs`` owns the fingerprint ``fp``, keeps it in
its set of seen fingerprints, and expands the state. A system may name another fingerprint to
partition by, of a part of the state (:func:`owner_fingerprint`): the cache system partitions its
worlds by their cache's, so each process computes the operations of the caches it owns, once.
The search goes level by level (every state at depth ``d`` before any at ``d + 1``), in four
rounds the coordinator (the calling process) drives:

1. **expand**: each worker expands the states it owns at depth ``d`` and sends each successor's
   fingerprint to its owner, with the successor's *key*;
2. **claim**: each owner keeps the fingerprints it has not seen, each with its least key;
3. **ship**: the worker that found a successor with that least key sends the state to its owner
   (a cache or snapshot it has already sent that worker goes as its fingerprint only);
4. **receive**: each owner checks the state properties of its new states and queues them.

A key orders states as the single-process search meets them: an initial state's key is its
position among the initial states, a successor's is ``parent key * 2^16 + edge index``. So the
least key of a fingerprint names the edge by which the single-process search first reached it,
the first violation in key order is the one it would report, and when the search stops at a
violation the figures are cut there (:meth:`_Level.cut`): distinct states, transitions, depth,
coverage and violations, with their shortest traces, are the single-process search's. Only a
time limit or ``max_states`` stops between levels (or, for the time limit, within one), so runs
they stop report figures of their own.

The time limit bounds the whole run, not only the expanding: each round gets the seconds left
(each process turns them into a deadline on its own clock). A worker stops expanding once what
it has found would take the rest of the level past the limit, at the cost per successor the
level before measured; shipping and checking stop at the limit itself, and a state left
unchecked is not stored, so every state counted was checked.

Each trace is replayed in the coordinator from the chain of (parent, edge) the owners recorded
(:func:`spec.verify.exploration.trace_to`).

The workers run in a :class:`Pool`: ``-j``'s processes forked on this machine, each behind a pipe
(:class:`_Pool`), or, given a cluster's address, actors on the workers of a Dask cluster
(:class:`spec.verify.dask_pool.DaskPool`); the rounds, and so the results, are the same.
"""

from __future__ import annotations

import contextlib
import io
import multiprocessing
import os
import pickle
from array import array
from collections import Counter
from collections.abc import Callable, Hashable, Iterable
from dataclasses import dataclass, field
from itertools import pairwise
from multiprocessing.connection import Connection
from typing import Any, Final, Generic, Protocol, TypeVar

from spec.verify.exploration import Report, StateStore, fewer_collections, peak_rss_bytes, trace_to
from spec.verify.fingerprint import fingerprint
from spec.verify.transition_system import DeadlinePassed, TransitionSystem, Violation, deadline_scope, expander, now

S = TypeVar("S", bound=Hashable)

EDGE_BITS: Final = 16
"""A key is ``parent key * 2^16 + edge index``: a state may have up to 65,536 edges."""
EDGES: Final = 1 << EDGE_BITS
EDGE: Final = 0
STATE: Final = 1
"""Event kinds: a step property violated by an edge comes before its target's state properties."""


@dataclass(frozen=True)
class Event:
    """A violation found in a level: of an edge (``edge`` set) or of a new state."""

    key: int
    kind: int
    number: int
    """The global number of the state (for an edge: of the state it leaves)."""
    edge: int | None
    properties: tuple[str, ...]


# ============================================================================================
# Shipping states between processes
# ============================================================================================


class _Pickler(pickle.Pickler):
    """Pickles states, sending each shared part (a cache, a snapshot) to a worker once: after that, its fingerprint."""

    def __init__(self, file: io.BytesIO, sent: set[int], shared: tuple[type, ...]) -> None:
        super().__init__(file, protocol=pickle.HIGHEST_PROTOCOL)
        self.sent = sent
        self.shared = shared
        self.defining: object = None

    def persistent_id(self, obj: Any) -> Any:
        if obj is self.defining:
            self.defining = None
            return None
        if not isinstance(obj, self.shared):
            return None
        fp = fingerprint(obj)
        if fp in self.sent:
            return ("ref", fp)
        self.sent.add(fp)
        self.defining = obj
        return ("def", fp, obj)


class _Unpickler(pickle.Unpickler):
    def __init__(self, file: io.BytesIO, parts: dict[int, Any]) -> None:
        super().__init__(file)
        self.parts = parts

    def persistent_load(self, pid: Any) -> Any:
        if pid[0] == "def":
            self.parts[pid[1]] = pid[2]
            return pid[2]
        return self.parts[pid[1]]


def _shared_types() -> tuple[type, ...]:
    from spec.cache.cache import CacheState
    from spec.cache.snapshot import Snapshot

    return (CacheState, Snapshot)


def owner_fingerprint(system: TransitionSystem[S]) -> Callable[[int, S], int]:
    """The function from (fingerprint, representative) to the number the owner is chosen by: the
    system's ``partition_fingerprint(representative)`` if it has one, else the fingerprint."""
    own: Callable[[S], int] | None = getattr(system, "partition_fingerprint", None)
    if own is None:
        return lambda fp, rep: fp
    return lambda fp, rep: own(rep)


# ============================================================================================
# Workers
# ============================================================================================


@dataclass(frozen=True)
class _Expanded:
    """What a worker's expansion of its part of a level found."""

    events: list[Event]
    by_owner: dict[int, list[tuple[int, int, int, int]]]
    """(fingerprint, key, parent number, edge index) of the successors found, by owner."""
    timed_out: bool
    seconds: float
    """The time the worker spent expanding states (the rest of the level is the cost of finishing it)."""
    found: int
    """Distinct successors found."""


@dataclass(frozen=True)
class _Received:
    """What an owner's check of its new states found."""

    events: list[Event]
    keys: list[int]
    """The keys of all new states stored."""
    pruned: list[int]
    """The keys of those outside the bounds."""
    cut: bool
    """The time limit left some claimed states unchecked (and unstored)."""


@dataclass
class _Worker(Generic[S]):
    """What one worker process holds: its part of the seen fingerprints and the states it will expand."""

    system: TransitionSystem[S]
    index: int
    jobs: int
    store: StateStore = field(default_factory=StateStore)
    frontier: list[tuple[int, S, int]] = field(default_factory=list)
    """(key, representative, global number) of the states to expand at this level."""
    found: dict[int, tuple[int, int, int, S]] = field(default_factory=dict)
    """Successors found at this level, by fingerprint: (key, parent number, edge index, representative)."""
    expanded: list[tuple[int, tuple[str, ...]]] = field(default_factory=list)
    """(key, coverage classes) of the states expanded at this level, to count when the level is committed."""
    profiles: Counter[tuple[str, ...]] = field(default_factory=Counter)
    transitions: int = 0
    generated: int = 0
    claimed: dict[int, tuple[int, int, int]] = field(default_factory=dict)
    """Fingerprints this owner took at this level: (key, parent number, edge index)."""
    sent: dict[int, set[int]] = field(default_factory=dict)
    parts: dict[int, Any] = field(default_factory=dict)

    def number(self, local: int) -> int:
        return local * self.jobs + self.index

    def seed(self, states: list[tuple[int, int, int, bytes]]) -> None:
        """Take initial states: (key, fingerprint, initial index, pickled representative)."""
        for key, fp, initial_index, data in states:
            local = self.store.add(fp, -1, initial_index)
            self.frontier.append((key, pickle.loads(data), self.number(local)))

    def expand(self, remaining: float | None, finish_cost: float) -> _Expanded:
        """Expand the frontier in key order, within ``remaining`` seconds (None: no limit).

        With a limit, the worker stops early enough to leave the rest of the level (claim, ship,
        receive) its time: it stops once ``finish_cost`` seconds per successor found so far would
        end past the limit (the coordinator measures that cost on the level before)."""
        started = now()
        deadline = None if remaining is None else started + remaining
        expand = expander(self.system)
        events: list[Event] = []
        self.found = {}
        self.expanded = []
        timed_out = False
        for key, state, number in sorted(self.frontier, key=lambda entry: entry[0]):
            if deadline is not None and now() + len(self.found) * finish_cost > deadline:
                timed_out = True
                break
            try:
                with deadline_scope(deadline):  # a state with many edges does not overrun the limit either
                    expansion = expand(state)
            except DeadlinePassed:
                timed_out = True
                break
            if len(expansion.coverage) > EDGES:
                raise ValueError(f"a state has {len(expansion.coverage)} edges; -j supports at most {EDGES}")
            base = key << EDGE_BITS
            self.expanded.append((key, expansion.coverage))
            self.generated += len(expansion.targets) + expansion.duplicates
            events.extend(Event(base + i, EDGE, number, i, props) for i, props in expansion.violations)
            for fp, i in expansion.targets:
                if fp not in self.found:
                    self.found[fp] = (base + i, number, i, expansion.representative(i))
        seconds = now() - started
        self.frontier = []
        by_owner: dict[int, list[tuple[int, int, int, int]]] = {}
        owner = owner_fingerprint(self.system)
        for fp, (key, parent, edge, rep) in self.found.items():
            by_owner.setdefault(owner(fp, rep) % self.jobs, []).append((fp, key, parent, edge))
        return _Expanded(events, by_owner, timed_out, seconds, len(self.found))

    def claim(self, candidates: list[tuple[int, int, int, int, int]]) -> list[tuple[int, int, int]]:
        """Keep the unseen fingerprints among (fingerprint, key, finder, parent number, edge index),
        each with its least key; the (fingerprint, key, finder) taken."""
        best: dict[int, tuple[int, int, int, int]] = {}
        for fp, key, finder, parent, edge in candidates:
            if fp in self.store:
                continue
            known = best.get(fp)
            if known is None or key < known[0]:
                best[fp] = (key, finder, parent, edge)
        self.claimed = {fp: (key, parent, edge) for fp, (key, _, parent, edge) in best.items()}
        return [(fp, key, finder) for fp, (key, finder, _, _) in best.items()]

    def ship(self, wanted: dict[int, list[int]], remaining: float | None) -> tuple[dict[int, bytes], bool]:
        """Pickle the states with these fingerprints for their owners, one pickle per state in key
        order; and whether the time limit (``remaining`` seconds) cut the shipping short (the states
        not shipped are dropped: the run stops after this level)."""
        deadline = None if remaining is None else now() + remaining
        shared = _shared_types()
        out = {}
        cut = False
        for owner, fps in wanted.items():
            buffer = io.BytesIO()
            pickler = _Pickler(buffer, self.sent.setdefault(owner, set()), shared)
            for fp in sorted(fps, key=lambda fp: self.found[fp][0]):
                if deadline is not None and now() > deadline:
                    cut = True
                    break
                pickler.dump((fp, self.found[fp][3]))
            out[owner] = buffer.getvalue()
            if cut:
                break
        self.found = {}
        return out, cut

    def receive(self, messages: list[bytes], remaining: float | None) -> _Received:
        """Store the claimed states and check them, in key order, within ``remaining`` seconds: a
        state the time limit leaves unchecked is not stored (the run stops after this level)."""
        deadline = None if remaining is None else now() + remaining
        events: list[Event] = []
        keys: list[int] = []
        pruned: list[int] = []
        states: list[tuple[int, S]] = []
        cut = False
        for message in messages:
            buffer = io.BytesIO(message)
            unpickler = _Unpickler(buffer, self.parts)
            while not cut and buffer.tell() < len(message):
                if deadline is not None and now() > deadline:
                    cut = True
                    break
                states.append(unpickler.load())
        for fp, state in sorted(states, key=lambda item: self.claimed[item[0]][0]):
            if deadline is not None and now() > deadline:
                cut = True
                break
            key, parent, edge = self.claimed[fp]
            number = self.number(self.store.add(fp, parent, edge))
            keys.append(key)
            props = self.system.violations(state)
            if props:
                events.append(Event(key, STATE, number, None, tuple(props)))
                continue
            if not self.system.within_bounds(state):
                pruned.append(key)
                continue
            self.frontier.append((key, state, number))
        self.claimed = {}
        return _Received(events, keys, pruned, cut)

    def commit(self, until: int | None) -> None:
        """Count the edges of the states expanded at this level (up to the edge with key ``until``)."""
        for key, coverage in self.expanded:
            if until is None:
                self.profiles[coverage] += 1
                self.transitions += len(coverage)
                continue
            base = key << EDGE_BITS
            if base > until:
                continue
            edges = len(coverage) if base + len(coverage) - 1 <= until else until - base + 1
            self.profiles[coverage[:edges]] += 1
            self.transitions += edges
        self.expanded = []

    def hop(self, number: int) -> tuple[int, int, int]:
        """(parent number, edge index, fingerprint) of the state with global number ``number``."""
        local = number // self.jobs
        return self.store.parents[local], self.store.edges[local], self.store.fingerprints[local]

    def totals(self) -> dict[str, Any]:
        coverage: Counter[str] = Counter()
        for profile, times in self.profiles.items():
            for key in profile:
                coverage[key] += times
        return {
            "coverage": coverage,
            "transitions": self.transitions,
            "generated": self.generated,
            "states": len(self.store),
            "store_bytes": self.store.memory_bytes(),
            "peak_rss": peak_rss_bytes(),
            "fingerprints": array("Q", sorted(self.store.fingerprints)).tobytes(),
        }


def _serve(worker: _Worker[Any], connection: Connection) -> None:
    """A worker process: run the coordinator's commands until it says stop."""
    commands: dict[str, Callable[..., Any]] = {
        "seed": worker.seed,
        "expand": worker.expand,
        "claim": worker.claim,
        "ship": worker.ship,
        "receive": worker.receive,
        "commit": worker.commit,
        "hop": worker.hop,
        "totals": worker.totals,
    }
    with fewer_collections():
        while True:
            command, args = connection.recv()
            if command == "stop":
                return
            try:
                connection.send(("ok", commands[command](*args)))
            except BaseException as error:  # the coordinator re-raises it
                connection.send(("error", error))
                return


# ============================================================================================
# The coordinator
# ============================================================================================


class Pool(Protocol):
    """Where the partitions' workers run: :class:`_Pool` (``-j``) or :class:`spec.verify.dask_pool.DaskPool`."""

    size: int
    """The number of partitions (and workers)."""

    def call(self, command: str, per_worker: Iterable[tuple[Any, ...]]) -> list[Any]:
        """Run ``command`` on every worker, each with its arguments, at once; their answers in order."""

    def all(self, command: str, *args: Any) -> list[Any]:
        """Run ``command`` with the same arguments on every worker."""

    def ask(self, worker: int, command: str, *args: Any) -> Any:
        """Run ``command`` on one worker."""

    def ship(self, wanted: list[dict[int, list[int]]], remaining: float | None) -> bool:
        """The ship round: each worker pickles the states ``wanted`` of it, by owner (:meth:`_Worker.ship`), for
        the owners' next :meth:`receive`; whether the time limit cut the shipping short."""

    def receive(self, remaining: float | None) -> list[Any]:
        """The receive round: each owner stores and checks the states shipped to it (:meth:`_Worker.receive`)."""

    def close(self) -> None:
        """Stop the workers (a second call does nothing)."""


class _Pool:
    """The worker processes of ``-j``, each behind a pipe (:class:`spec.verify.dask_pool.DaskPool` is the same
    interface over a Dask cluster)."""

    def __init__(self, system: TransitionSystem[Any], jobs: int) -> None:
        context = multiprocessing.get_context("fork")
        self.size = jobs
        self.connections: list[Connection] = []
        self.processes = []
        for index in range(jobs):
            ours, theirs = context.Pipe()
            process = context.Process(target=_serve, args=(_Worker(system, index, jobs), theirs), daemon=True)
            process.start()
            theirs.close()
            self.connections.append(ours)
            self.processes.append(process)

    def call(self, command: str, per_worker: Iterable[tuple[Any, ...]]) -> list[Any]:
        """Send each worker its arguments, then gather the answers (the workers run at once)."""
        arguments = list(per_worker)
        for connection, args in zip(self.connections, arguments, strict=True):
            connection.send((command, args))
        results = []
        for connection in self.connections:
            status, value = connection.recv()
            if status == "error":
                self.close()
                raise value
            results.append(value)
        return results

    def all(self, command: str, *args: Any) -> list[Any]:
        return self.call(command, [args] * len(self.connections))

    def ask(self, worker: int, command: str, *args: Any) -> Any:
        self.connections[worker].send((command, args))
        status, value = self.connections[worker].recv()
        if status == "error":
            self.close()
            raise value
        return value

    def ship(self, wanted: list[dict[int, list[int]]], remaining: float | None) -> bool:
        """The ship round, the states' pickles coming back here to wait for :meth:`receive`."""
        self.inboxes: list[list[bytes]] = [[] for _ in range(self.size)]
        cut = False
        for messages, worker_cut in self.call("ship", [(w, remaining) for w in wanted]):
            cut = cut or worker_cut
            for owner, data in messages.items():
                self.inboxes[owner].append(data)
        return cut

    def receive(self, remaining: float | None) -> list[Any]:
        """The receive round: each owner gets its inbox (in the order of the workers that shipped to it)."""
        inboxes, self.inboxes = self.inboxes, []
        return self.call("receive", [(inbox, remaining) for inbox in inboxes])

    def close(self) -> None:
        for connection in self.connections:
            with contextlib.suppress(BrokenPipeError, OSError):
                connection.send(("stop", ()))
        for process in self.processes:
            process.join(timeout=5)
            if process.is_alive():
                process.kill()


def explore_parallel(
    system: TransitionSystem[S],
    jobs: int,
    *,
    name: str = "system",
    depth_limit: int | None = None,
    time_limit: float | None = None,
    max_states: int | None = None,
    stop_at_first: bool = True,
    cluster: str | None = None,
) -> Report:
    """:func:`spec.verify.checker.explore` in ``jobs`` processes (see the module docstring); or, given the
    address of a Dask cluster (``cluster``, see :func:`spec.verify.dask_pool.cluster_address`), in one
    partition per Dask worker process, ``jobs`` unused."""
    if cluster is not None:
        from spec.verify.dask_pool import DaskPool, connect

        with connect(cluster) as client:
            pool: Pool = DaskPool(client, system, _Worker)
            try:
                report = _explore(system, pool, name, depth_limit, time_limit, max_states, stop_at_first)
            finally:
                pool.close()
        report.cluster = cluster
        return report
    if jobs < 1:
        raise ValueError(f"jobs must be at least 1, got {jobs}")
    if multiprocessing.get_start_method(allow_none=True) not in (None, "fork") and os.name != "posix":
        raise RuntimeError("-j needs the fork start method (Linux, macOS)")
    pool = _Pool(system, jobs)
    try:
        return _explore(system, pool, name, depth_limit, time_limit, max_states, stop_at_first)
    finally:
        pool.close()


def _explore(
    system: TransitionSystem[S],
    pool: Pool,
    name: str,
    depth_limit: int | None,
    time_limit: float | None,
    max_states: int | None,
    stop_at_first: bool,
) -> Report:
    """The search of the module docstring, with the pool's partitions (closed at the end)."""
    jobs = pool.size
    report = Report(name, depth_limit=depth_limit, jobs=jobs)
    started = now()
    deadline = None if time_limit is None else started + time_limit

    def remaining() -> float | None:
        """The seconds left before the time limit (each worker turns them into a deadline on its own clock)."""
        return None if deadline is None else deadline - now()

    violated: set[str] = set()

    # Level 0, here: the initial states, taken as the single-process search takes them.
    seeds: list[list[tuple[int, int, int, bytes]]] = [[] for _ in range(jobs)]
    seen: set[int] = set()
    stop = False
    owner_of = owner_fingerprint(system)
    for index, initial in enumerate(system.initial_states()):
        rep, _ = system.canonical(initial)
        fp = system.fingerprint(rep)
        report.generated += 1
        if fp in seen:
            continue
        seen.add(fp)
        props = system.violations(rep)
        for prop in props:
            if prop not in violated:
                violated.add(prop)
                report.violations.append(trace_to(system, [(0, index)], prop, None))
        if props and stop_at_first:
            stop = True
            break
        seeds[owner_of(fp, rep) % jobs].append((len(seen) - 1, fp, index, pickle.dumps(rep)))
    state_count = len(seen)
    report.level_states = [state_count]
    frontier_size = sum(len(part) for part in seeds)
    timed_out = at_depth_limit = at_state_limit = False
    totals: list[dict[str, Any]] = []
    finish_cost = 0.0
    """Seconds per successor found that the level before spent finishing (all but expanding)."""
    try:
        pool.call("seed", [(part,) for part in seeds])
        depth = 0
        while not stop and frontier_size:
            if deadline is not None and now() > deadline:
                timed_out = True
                break
            if depth_limit is not None and depth >= depth_limit:
                at_depth_limit = True
                break
            if max_states is not None and state_count >= max_states:
                at_state_limit = True
                break
            level = _Level()
            level_started = now()
            candidates: list[list[tuple[int, int, int, int, int]]] = [[] for _ in range(jobs)]
            expanded: list[_Expanded] = pool.all("expand", remaining(), finish_cost)
            for finder, expansion in enumerate(expanded):
                level.events.extend(expansion.events)
                timed_out = timed_out or expansion.timed_out
                for owner, found in expansion.by_owner.items():
                    candidates[owner].extend((fp, key, finder, parent, edge) for fp, key, parent, edge in found)
            wanted: list[dict[int, list[int]]] = [{} for _ in range(jobs)]
            for owner, taken in enumerate(pool.call("claim", [(c,) for c in candidates])):
                for fp, _, finder in taken:
                    wanted[finder].setdefault(owner, []).append(fp)
            timed_out = pool.ship(wanted, remaining()) or timed_out
            received: list[_Received] = pool.receive(remaining())
            for inbox in received:
                timed_out = timed_out or inbox.cut
                level.events.extend(inbox.events)
                level.keys.extend(inbox.keys)
                level.pruned.extend(inbox.pruned)
            until = level.cut(stop_at_first)
            pool.all("commit", until)
            new_states = level.states_before(until)
            state_count += new_states
            if new_states:
                report.level_states.append(new_states)
            report.pruned += level.pruned_before(until)
            if new_states:
                report.max_depth = depth + 1
            for event in level.events_in_order(until):
                if _record(system, pool, jobs, report, violated, event) and stop_at_first:
                    stop = True
                    break
            if timed_out:
                break
            most_found = max(e.found for e in expanded)
            if most_found:
                finish_cost = max(0.0, now() - level_started - max(e.seconds for e in expanded)) / most_found
            frontier_size = len(level.keys) - sum(1 for e in level.events if e.kind == STATE) - len(level.pruned)
            depth += 1
        totals = pool.all("totals")
    finally:
        pool.close()

    for part in totals:
        report.coverage.update(part["coverage"])
        report.transitions += part["transitions"]
        report.generated += part["generated"]
        report.store_bytes += part["store_bytes"]
        report.peak_rss_bytes = max(report.peak_rss_bytes, part["peak_rss"])
    report.peak_rss_bytes = max(report.peak_rss_bytes, peak_rss_bytes())
    merged = sorted(fp for part in totals for fp in array("Q", part["fingerprints"]))
    report.fingerprint_gap = min((b - a for a, b in pairwise(merged)), default=0)
    report.states = state_count
    report.seconds = now() - started
    report.complete = not stop and not timed_out and not at_state_limit
    report.exhausted = report.complete and not at_depth_limit and report.pruned == 0
    if stop:
        report.stopped_by = "first violation"
    elif timed_out:
        report.stopped_by = f"time limit {time_limit:g}s"
    elif at_state_limit:
        report.stopped_by = f"state limit {max_states:,}"
    elif at_depth_limit:
        report.stopped_by = f"depth limit {depth_limit}"
    return report


@dataclass
class _Level:
    """What one level found, and where the single-process search would have stopped in it."""

    events: list[Event] = field(default_factory=list)
    keys: list[int] = field(default_factory=list)
    """The keys of every new state."""
    pruned: list[int] = field(default_factory=list)
    """The keys of the new states outside the bounds."""

    def first(self) -> Event:
        return min(self.events, key=lambda e: (e.key, e.kind))

    def cut(self, stop_at_first: bool) -> int | None:
        """The key of the edge at which the single-process search stops in this level, if it does."""
        if not stop_at_first or not self.events:
            return None
        return self.first().key

    def _met(self, key: int, until: int | None) -> bool:
        """Whether the single-process search, stopping at ``until``, stores the state with this key:
        one found before the edge it stops at, or that edge's own target when it is the violating state."""
        return until is None or key < until or (key == until and self.first().kind == STATE)

    def states_before(self, until: int | None) -> int:
        return sum(1 for key in self.keys if self._met(key, until))

    def pruned_before(self, until: int | None) -> int:
        return sum(1 for key in self.pruned if self._met(key, until))

    def events_in_order(self, until: int | None) -> list[Event]:
        """The violations in the order the single-process search meets them (up to the first, if it stops)."""
        ordered = sorted(self.events, key=lambda e: (e.key, e.kind))
        return ordered if until is None else ordered[:1]


def _hops(pool: Pool, jobs: int, number: int) -> tuple[list[tuple[int, int]], dict[int, int]]:
    """(number, edge index) from the root to the state ``number``, and each state's fingerprint."""
    hops: list[tuple[int, int]] = []
    fingerprints: dict[int, int] = {}
    while number >= 0:
        parent, edge, fp = pool.ask(number % jobs, "hop", number)
        hops.append((number, edge))
        fingerprints[number] = fp
        number = parent
    hops.reverse()
    return hops, fingerprints


def _record(
    system: TransitionSystem[Any],
    pool: Pool,
    jobs: int,
    report: Report,
    violated: set[str],
    event: Event,
) -> bool:
    """Record the event's properties not yet violated, with their traces; True if it has any property."""
    new = [p for p in event.properties if p not in violated]
    if new:
        hops, fingerprints = _hops(pool, jobs, event.number)
        for prop in new:
            violated.add(prop)
            report.violations.append(_trace(system, hops, prop, event.edge, fingerprints))
    return bool(event.properties)


def _trace(
    system: TransitionSystem[Any], hops: list[tuple[int, int]], prop: str, edge: int | None, fps: dict[int, int]
) -> Violation:
    return trace_to(system, hops, prop, edge, fps)
