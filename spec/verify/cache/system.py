"""The cache (with its scheduling-cycle snapshot) as a transition system for the model checker.

States are :class:`~spec.cache.operations.World` values; transitions are the operations a
:class:`~spec.verify.cache.universe.Universe` enumerates, applied by :func:`spec.cache.operations.apply` (or
an injected step function, so tests can check that a broken transition is caught).

Properties checked, by mode:

- every state: the invariants of :data:`spec.cache.invariants.STATE_INVARIANTS` (all of them under the
  contract; the ALWAYS ones in adversarial mode);
- every step that does not end the process: :func:`~spec.cache.invariants.trans_generations_only_grow`;
  every successful ``CleanupAssumedPods``: :func:`~spec.cache.invariants.trans_expiry_only_after_finish_binding`;
- contract mode only, as ``tests/spec/cache/test_stateful.py`` requires of contract streams: a
  successful ``UpdateSnapshot`` satisfies :func:`~spec.cache.invariants.inv_snapshot_matches_cache` and
  none fails; no operation ends the process; no error changes the state; and the pod an
  operation names moves between phases as the table of :mod:`spec.cache.lifecycle` says.

In adversarial mode an operation that ends the process ends its path.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, Final

from spec.cache.cache import CacheState
from spec.cache.invariants import (
    KNOWN_VIOLATIONS,
    inv_snapshot_matches_cache,
    trans_expiry_only_after_finish_binding,
    trans_generations_only_grow,
    violated_state_invariants,
)
from spec.cache.lifecycle import Guard, PodPhase, PodTransition, expected_transition, node_guard, pod_phase
from spec.cache.operations import (
    AddNode,
    AddPod,
    AssumePod,
    CleanupAssumedPods,
    FinishBinding,
    ForgetPod,
    Operation,
    Outcome,
    RemoveNode,
    RemovePod,
    Status,
    UpdateNode,
    UpdatePod,
    UpdateSnapshot,
    World,
    apply,
)
from spec.cache.snapshot import Snapshot
from spec.errors import ErrorKind
from spec.objects import Node, Pod
from spec.quantities import SECOND
from spec.verify.cache.snapshot_abstraction import (
    CacheView,
    SnapshotAbstractionInexact,
    abstract_snapshot,
    cache_view,
    has_summaries,
    is_summary,
)
from spec.verify.cache.symmetry import IDENTITY, Renaming, Representatives, rename_operation
from spec.verify.cache.universe import Mode, Universe, node_variant, pod_variant
from spec.verify.fingerprint import MASK, fingerprint
from spec.verify.transition_system import Edge, Expansion, TraceStep, Violation, check_deadline

StepFunction = Callable[[World, Operation], tuple[World, Outcome]]

NO_EXIT: Final = "no_exit_under_contract"
NO_CHANGE_ON_ERROR: Final = "no_change_on_error_under_contract"
SNAPSHOT_CONSISTENT: Final = "snapshot_consistent_under_contract"
POD_PHASE_TABLE: Final = "pod_phase_table"
SNAPSHOT_MATCHES: Final = inv_snapshot_matches_cache.__name__
GENERATIONS: Final = trans_generations_only_grow.__name__
EXPIRY: Final = trans_expiry_only_after_finish_binding.__name__


class CacheSystem:
    """The cache over a finite universe, in contract or adversarial mode."""

    def __init__(
        self,
        universe: Universe,
        mode: Mode = Mode.CONTRACT,
        *,
        symmetry: bool = True,
        step: StepFunction = apply,
        known_violations: bool = False,
        abstract_snapshots: bool = False,
    ) -> None:
        """``step`` applies an operation to a world; like :func:`spec.cache.operations.apply`, it must leave
        the snapshot alone for every operation but ``UpdateSnapshot`` (checked as it runs).
        ``known_violations`` also checks :data:`spec.cache.invariants.KNOWN_VIOLATIONS` after each
        successful ``UpdateSnapshot``, to show Kubernetes breaking them. ``abstract_snapshots`` summarises the
        snapshot's entries that are not current (:mod:`spec.verify.cache.snapshot_abstraction`)."""
        self.universe = universe
        self.abstract_snapshots = abstract_snapshots
        self._views: dict[CacheView, int] = {}
        self._view_list: list[CacheView] = []
        self._cache_views: dict[CacheState, int] = {}
        self._abstracted: dict[tuple[int, int], tuple[int, Snapshot]] = {}
        """(snapshot fingerprint, view number) -> the abstracted snapshot's fingerprint and object."""
        self.mode = mode
        self.known_violations = known_violations
        self.step = step
        self._cache_edges: dict[CacheState, list[_CacheEdge]] = {}
        self._cache_violations: dict[CacheState, list[str]] = {}
        self._nodes: dict[CacheState, _CacheNode] = {}
        self.representatives = Representatives((universe.pod_uids, universe.node_names) if symmetry else None)
        self.canonicalizer = self.representatives.canonicalizer
        self._refreshed: dict[
            tuple[CacheState, int, Status, str | None, bool], tuple[tuple[str, ...], tuple[int, Snapshot] | None]
        ] = {}
        """(cache, refreshed snapshot's fingerprint, outcome's status, kind and whether it changed
        the state) -> UpdateSnapshot's step violations and target."""

    def initial_states(self) -> list[World]:
        return self.universe.initial_worlds()

    def canonical(self, state: World) -> tuple[World, object]:
        """The representative of ``state``: the cache's (:mod:`spec.verify.cache.symmetry`) and the
        snapshot renamed alike. Equal representatives are the same objects."""
        cache, renamer_number = self.representatives.cache(state.cache)
        known = self.representatives.snapshot(renamer_number, state.snapshot)
        if self.abstract_snapshots:
            known = self._abstract(known, self._view(cache))
        return World(cache, known[1]), self.representatives.renamers[renamer_number].renaming

    def _view(self, cache: CacheState) -> int:
        """The number of the cache's :func:`cache_view` (0 for every cache without the abstraction)."""
        if not self.abstract_snapshots:
            return 0
        number = self._cache_views.get(cache)  # representatives are interned: found by identity
        if number is not None:
            return number
        view = cache_view(cache)
        number = self._views.get(view)
        if number is None:
            number = self._views[view] = len(self._view_list)
            self._view_list.append(view)
        self._remember(self._cache_views, cache, number)
        return number

    def _abstract(self, known: tuple[int, Snapshot], view: int) -> tuple[int, Snapshot]:
        """The fingerprint and the object of the snapshot (fingerprint, object) ``known`` abstracted relative to
        view number ``view``, remembered."""
        key = (known[0], view)
        found = self._abstracted.get(key)
        if found is None:
            abstracted = abstract_snapshot(self._view_list[view], known[1])
            found = known if abstracted is known[1] else self.representatives.snapshot_fingerprint(abstracted)
            if len(self._abstracted) >= MEMO_LIMIT:
                self._abstracted.clear()
            self._abstracted[key] = found
        return found

    def _guard(self, after: World) -> None:
        """Stop if ``UpdateSnapshot`` left a summary in its result (:mod:`~spec.verify.cache.snapshot_abstraction`)."""
        if self.abstract_snapshots and has_summaries(after.snapshot):
            raise SnapshotAbstractionInexact(
                "the snapshot abstraction is not exact on this path: UpdateSnapshot left a summarised entry in the "
                f"snapshot ({sorted(n for n, i in after.snapshot.node_info_map.items() if is_summary(i))}); "
                "rerun without --abstract-snapshots"
            )

    def fingerprint(self, representative: World) -> int:
        """The fingerprint of the cache's and the snapshot's (:func:`world_fingerprint`)."""
        return world_fingerprint(fingerprint(representative.cache), fingerprint(representative.snapshot))

    def partition_fingerprint(self, representative: World) -> int:
        """What ``-j N`` partitions worlds by: the cache's fingerprint, so that the worlds of one
        cache go to one process, which computes that cache's operations once
        (:func:`spec.verify.parallel.owner_fingerprint`)."""
        return fingerprint(representative.cache)

    def expand(self, state: World) -> Expansion[World]:
        """The edges of :meth:`edges`, without building the successors: the cache operations' edges
        come from the cache's :class:`_CacheNode` (computed once per cache), the world's snapshot is
        renamed once per renamer (:meth:`Representatives.renamed`), and ``UpdateSnapshot`` is applied
        to the world."""
        node = self._node(state.cache)
        snapshot = state.snapshot
        if self.abstract_snapshots:
            renamed = [
                self._abstract(known, view)
                for known, view in zip(self.representatives.renamed(snapshot, node.renamers), node.views, strict=True)
            ]
        else:
            renamed = self.representatives.renamed(snapshot, node.renamers)
        fps = [known[0] for known in renamed]
        targets = [((cache_key + fps[slot]) & MASK, index) for cache_key, slot, index in node.plan]
        index = len(node.coverage)
        op = _UPDATE_SNAPSHOT
        after, outcome = self.step(state, op)
        self._guard(after)
        status = outcome.status
        coverage_class = _outcome_coverage(op, outcome)
        coverage = node.coverages.get(coverage_class)
        if coverage is None:
            coverage = node.coverages[coverage_class] = (*node.coverage, coverage_class)
        violations = node.violations
        if status is Status.FATAL:
            step_violations = tuple(self.step_violations(state, op, outcome, after))
            snapshot_target = None
        else:
            step_violations, snapshot_target = self._refresh(node, state, op, outcome, after)
            if self.abstract_snapshots and snapshot_target is not None:
                snapshot_target = self._abstract(snapshot_target, node.view)
        if step_violations:
            violations = (*violations, (index, step_violations))
        if snapshot_target is not None and snapshot_target[1] is not snapshot:
            targets.append(((node.fingerprint_key + snapshot_target[0]) & MASK, index))

        def representative(edge_index: int) -> World:
            if edge_index == index:
                assert snapshot_target is not None
                return World(node.cache, snapshot_target[1])
            after_cache, slot = node.after[edge_index]
            return World(after_cache, renamed[slot][1])

        return Expansion(coverage, violations, targets, representative, node.duplicates)

    def _refresh(
        self, node: _CacheNode, before: World, op: UpdateSnapshot, outcome: Outcome, after: World
    ) -> tuple[tuple[str, ...], tuple[int, Snapshot] | None]:
        """UpdateSnapshot's step violations and its target's renamed snapshot, remembered per refreshed snapshot."""
        if after.cache is not before.cache or not node.keeps_representatives:
            found = tuple(self.step_violations(before, op, outcome, after))
            return found, self.representatives.snapshot(node.renamer, after.snapshot)
        refreshed = self.representatives.snapshot_fingerprint(after.snapshot)
        refreshed_fp = refreshed[0]
        key = (node.cache, refreshed_fp, outcome.status, outcome.kind, outcome.changed)
        known = self._refreshed.get(key)
        if known is None:
            found = tuple(self.step_violations(before, op, outcome, after))
            target = self.representatives.remember_snapshot(node.renamer, refreshed_fp, refreshed)
            known = self._refreshed[key] = (found, target)
        return known

    def _node(self, cache: CacheState) -> _CacheNode:
        node = self._nodes.get(cache)
        if node is not None:
            return node
        edges = self._cache_edges.get(cache) or list(self._compute_cache_edges(World(cache)))  # not kept: the node is
        _, own = self.representatives.cache(cache)
        coverage = tuple(edge.coverage for edge in edges)
        violations = tuple((i, edge.violations) for i, edge in enumerate(edges) if edge.violations)
        after: dict[int, tuple[CacheState, int]] = {}
        slots: dict[tuple[int, int], int] = {}
        plan: list[tuple[int, int, int]] = []
        seen: set[tuple[int, int]] = set()
        for i, edge in enumerate(edges):
            check_deadline()
            if edge.after is None or edge.after is cache:
                continue
            rep, renamer_number = self.representatives.cache(edge.after, remember=False)
            slot = slots.setdefault((renamer_number, self._view(rep)), len(slots))
            after[i] = (rep, slot)
            cache_fp = fingerprint(rep)
            if (cache_fp, slot) in seen:
                continue  # the same next world as an earlier edge's
            seen.add((cache_fp, slot))
            plan.append(((cache_fp * _MULTIPLIER) & MASK, slot, i))
        cache_fp = fingerprint(cache)
        node = _CacheNode(
            cache, cache_fp, (cache_fp * _MULTIPLIER) & MASK, own,
            self.representatives.renamers[own].keeps_representatives, coverage, violations,
            tuple(renamer for renamer, _ in slots), tuple(view for _, view in slots), self._view(cache),
            tuple(plan), len(after) - len(plan), after, {},
        )  # fmt: skip
        if len(self._nodes) >= MEMO_LIMIT:
            self._nodes.clear()
        self._nodes[cache] = node
        return node

    def _cache_edges_of(self, state: World) -> list[_CacheEdge]:
        cache_edges = self._cache_edges.get(state.cache)
        if cache_edges is None:
            cache_edges = list(self._compute_cache_edges(state))
            self._remember(self._cache_edges, state.cache, cache_edges)
        return cache_edges

    def within_bounds(self, state: World) -> bool:
        """No NodeInfo holds more pod entries than the universe has UIDs. Only adversarial streams
        exceed it: an ``UpdatePod`` whose old object names a node without a NodeInfo removes nothing
        and adds the pod again, so duplicates (and Requested) grow without end."""
        return all(len(info.pods) <= self.universe.pods for info in state.cache.nodes.values())

    def violations(self, state: World) -> list[str]:
        found = self._cache_violations.get(state.cache)
        if found is None:
            found = violated_state_invariants(state.cache, contract=self.mode is Mode.CONTRACT)
            self._remember(self._cache_violations, state.cache, found)
        return found

    def edges(self, state: World) -> Iterator[Edge[World]]:
        """Every operation's edge. The cache operations' results depend on the cache alone, and a
        cache recurs with many snapshots, so they are computed once per cache."""
        for edge in self._cache_edges_of(state):
            if edge.after is None:
                target = None
            elif edge.after is state.cache:
                target = state
            else:
                target = World(edge.after, state.snapshot)
            yield Edge(edge.op, edge.coverage, target, edge.violations)
        op = UpdateSnapshot()
        after, outcome = self.step(state, op)
        self._guard(after)
        violations = tuple(self.step_violations(state, op, outcome, after))
        yield Edge(op, _coverage(op, outcome), None if outcome.status is Status.FATAL else after, violations)

    def _compute_cache_edges(self, state: World) -> Iterator[_CacheEdge]:
        for op in self.universe.operations(state, self.mode):
            check_deadline()  # a state has thousands of operations on a large universe
            if isinstance(op, UpdateSnapshot):
                continue
            after, outcome = self.step(state, op)
            if after.snapshot is not state.snapshot and after.snapshot != state.snapshot:
                raise ValueError(f"the step function changed the snapshot on {type(op).__name__}")
            violations = tuple(self.step_violations(state, op, outcome, after))
            if outcome.status is Status.FATAL:
                yield _CacheEdge(op, _coverage(op, outcome), None, violations)
            else:
                yield _CacheEdge(op, _coverage(op, outcome), after.cache, violations)

    @staticmethod
    def _remember(memo: dict[CacheState, Any], key: CacheState, value: Any) -> None:
        if len(memo) >= MEMO_LIMIT:
            memo.clear()
        memo[key] = value

    def step_violations(self, before: World, op: Operation, outcome: Outcome, after: World) -> list[str]:
        """The step properties violated by ``op`` taking ``before`` to ``after`` with ``outcome``."""
        contract = self.mode is Mode.CONTRACT
        if outcome.status is Status.FATAL:
            return [NO_EXIT] if contract else []
        found = []
        if not trans_generations_only_grow(before.cache, after.cache):
            found.append(GENERATIONS)
        now = op.now if isinstance(op, CleanupAssumedPods) and outcome.status is Status.OK else None
        if now is not None and not trans_expiry_only_after_finish_binding(before.cache, after.cache, now):
            found.append(EXPIRY)
        if not contract:
            return found
        if outcome.status is Status.ERROR and outcome.changed:
            found.append(NO_CHANGE_ON_ERROR)
        if isinstance(op, UpdateSnapshot):
            if outcome.status is not Status.OK:
                found.append(SNAPSHOT_CONSISTENT)
            elif not inv_snapshot_matches_cache(after.cache, after.snapshot):
                found.append(SNAPSHOT_MATCHES)
        if self.known_violations and isinstance(op, UpdateSnapshot) and outcome.status is Status.OK:
            found.extend(p.__name__ for p in KNOWN_VIOLATIONS if not p(after.cache, after.snapshot))
        if not follows_pod_phase_table(before.cache, op, outcome, after.cache):
            found.append(POD_PHASE_TABLE)
        return found

    def concretize(self, initial: World, path: list[tuple[object, object]], prop: str) -> Violation:
        """Replay ``path`` from ``initial`` with the operations renamed back, so the trace needs no renaming."""
        world = initial
        to_rep: Renaming = IDENTITY  # concrete names -> the representative's names
        steps = []
        last: tuple[World, Operation, Outcome, World] | None = None
        for label, renaming in path:
            assert isinstance(label, Operation)
            op = rename_operation(label, to_rep.inverse())
            after, outcome = self.step(world, op)
            steps.append(TraceStep(self.describe_operation(op), describe_outcome(outcome)))
            last = (world, op, outcome, after)
            world = after
            if isinstance(renaming, Renaming):
                to_rep = to_rep.then(renaming)
        reproduced = prop in self.violations(world)
        if last is not None and not reproduced:
            reproduced = prop in self.step_violations(*last)
        final = describe_world(world)
        if not reproduced:
            final += "\n(NOT reproduced by the replay without renaming: symmetry reduction was inexact here)"
        initial_text = f"new_cache(profile={initial.cache.profile.name}, ttl={initial.cache.ttl / SECOND:g}s)"
        return Violation(prop, initial_text, tuple(steps), final)

    def describe_operation(self, op: Operation) -> str:
        """A short text for ``op`` naming the universe's variants (``p0/v1@n0``)."""
        match op:
            case AssumePod(pod) | AddPod(pod) | ForgetPod(pod) | RemovePod(pod):
                return f"{type(op).__name__}({self.describe_pod(pod)})"
            case FinishBinding(pod, now):
                return f"FinishBinding({self.describe_pod(pod)}, now={now / SECOND:g}s)"
            case UpdatePod(old, new):
                return f"UpdatePod({self.describe_pod(old)} -> {self.describe_pod(new)})"
            case AddNode(node) | RemoveNode(node):
                return f"{type(op).__name__}({self.describe_node(node)})"
            case UpdateNode(old_node, new_node):
                old_text = "None" if old_node is None else self.describe_node(old_node)
                return f"UpdateNode({old_text} -> {self.describe_node(new_node)})"
            case CleanupAssumedPods(now):
                return f"CleanupAssumedPods(now={now / SECOND:g}s)"
        return type(op).__name__

    def describe_pod(self, pod: Pod) -> str:
        for v in range(self.universe.pod_variants):
            if pod == pod_variant(pod.uid, v, pod.node_name):
                return f"{pod.uid}/v{v}@{_name(pod.node_name)}"
        return repr(pod)

    def describe_node(self, node: Node) -> str:
        for v in range(self.universe.node_variants):
            if node == node_variant(node.name, v):
                return f"{node.name}/v{v}"
        return repr(node)


MEMO_LIMIT: Final = 200_000
"""Caches whose edges are remembered at once; beyond that the memo starts afresh."""


_MULTIPLIER: Final = 0x9E3779B97F4A7C15


def world_fingerprint(cache: int, snapshot: int) -> int:
    """A world's fingerprint from its cache's and its snapshot's: ``cache * K + snapshot`` modulo
    2^64, K odd (the golden-ratio constant), so for a fixed snapshot distinct caches stay distinct."""
    return (cache * _MULTIPLIER + snapshot) & MASK


@dataclass(frozen=True)
class _CacheNode:
    """What :meth:`CacheSystem.expand` needs of one cache representative, computed once."""

    cache: CacheState
    fingerprint: int
    fingerprint_key: int
    """``fingerprint * K`` modulo 2^64: a world's fingerprint with this cache is this plus its snapshot's."""
    renamer: int
    """The number of the renamer the representative maps to itself with."""
    keeps_representatives: bool
    """Whether that renamer maps every snapshot numbered like the representative to an equal one."""
    coverage: tuple[str, ...]
    """The coverage classes of the cache operations' edges."""
    violations: tuple[tuple[int, tuple[str, ...]], ...]
    renamers: tuple[int, ...]
    """The renamers (numbers) that take the next caches to their representatives, one per *slot*."""
    views: tuple[int, ...]
    """Per slot, the number of the next caches' view (all 0 without the snapshot abstraction): a slot is a
    (renamer, view) pair."""
    view: int
    """The number of this cache's view."""
    plan: tuple[tuple[int, int, int], ...]
    """(next cache's fingerprint key, slot of its renamer, edge index) of the edges that change
    the cache, in edge order, an edge left out when an earlier one reaches the same next world."""
    duplicates: int
    """The edges left out of ``plan``."""
    after: dict[int, tuple[CacheState, int]]
    """Edge index -> the next cache's representative and the slot of its renamer."""
    coverages: dict[str, tuple[str, ...]]
    """The whole coverage tuple, by the coverage class of ``UpdateSnapshot`` (filled as met)."""


@dataclass(frozen=True)
class _CacheEdge:
    """An edge of a cache operation, independent of the snapshot."""

    op: Operation
    coverage: str
    after: CacheState | None
    violations: tuple[str, ...]


def _coverage(op: Operation, outcome: Outcome) -> str:
    return f"{type(op).__name__}: {outcome.status.value}" + (f" {outcome.kind}" if outcome.kind else "")


_UPDATE_SNAPSHOT: Final = UpdateSnapshot()
_COVERAGE: dict[tuple[type, Status, str | None], str] = {}


def _outcome_coverage(op: Operation, outcome: Outcome) -> str:
    """:func:`_coverage`, remembered per (operation type, status, kind)."""
    key = (type(op), outcome.status, outcome.kind)
    known = _COVERAGE.get(key)
    if known is None:
        known = _COVERAGE[key] = _coverage(op, outcome)
    return known


def describe_outcome(outcome: Outcome) -> str:
    text = outcome.status.value + (f" {outcome.kind}" if outcome.kind else "")
    return text + (" (state changed)" if outcome.changed else "")


def describe_world(world: World) -> str:
    """A few lines summarising the cache and the snapshot."""
    cache = world.cache
    lines = []
    for uid, ps in sorted(cache.pod_states.items()):
        phase = pod_phase(cache, uid).value
        deadline = "" if ps.deadline is None else f" deadline={ps.deadline / SECOND:g}s"
        lines.append(f"pod {uid}: {phase} on {_name(ps.pod.node_name)}{deadline}")
    for name in cache.node_list:
        info = cache.nodes[name]
        kind = "live" if info.node is not None else "no node"
        pods = ",".join(p.uid for p in info.pods) or "-"
        lines.append(
            f"NodeInfo {_name(name)}: {kind}, pods [{pods}], requested cpu={info.requested.milli_cpu}m "
            f"memory={info.requested.memory}, generation {info.generation}"
        )
    lines.append(f"node tree: {[(z.replace(chr(0), '0'), names) for z, names in cache.node_tree.zones]}")
    snap = world.snapshot
    lines.append(f"snapshot: nodes {list(snap.node_info_list)}, generation {snap.generation}")
    return "\n".join(lines)


def follows_pod_phase_table(before: CacheState, op: Operation, outcome: Outcome, after: CacheState) -> bool:
    """The pod ``op`` names moves between phases as :data:`spec.cache.lifecycle.POD_TRANSITIONS` says.

    Cleanup is checked for every pod by ``trans_expiry_only_after_finish_binding`` instead.
    """
    pod = _named_pod(op)
    if pod is None:
        return True
    source = pod_phase(before, pod.uid)
    cached = before.pod_states.get(pod.uid)
    guard = node_guard(cached.pod.node_name if cached else None, pod.node_name)
    key = (before.profile.name, type(op).__name__, source, guard)
    if key in _ROWS:
        row = _ROWS[key]
    else:
        row = _ROWS[key] = expected_transition(*key)
    if row is None:
        return outcome.kind == ErrorKind.UNSUPPORTED_OPERATION
    if row.error is not None:
        return outcome.kind == row.error
    if row.fatal is not None:
        return outcome.status is Status.FATAL and outcome.kind == row.fatal
    return outcome.status is Status.OK and pod_phase(after, pod.uid) == row.target


_ROWS: dict[tuple[str, str, PodPhase, Guard], PodTransition | None] = {}
""":func:`~spec.cache.lifecycle.expected_transition` by its arguments (a lookup in a constant table; the model
checker asks it once per pod operation)."""


def _named_pod(op: Operation) -> Pod | None:
    match op:
        case AssumePod(pod) | FinishBinding(pod, _) | ForgetPod(pod) | AddPod(pod) | RemovePod(pod):
            return pod
        case UpdatePod(old, _):
            return old
    return None


def _name(node_name: str) -> str:
    return node_name or '""'
