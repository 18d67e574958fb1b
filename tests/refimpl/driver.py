"""Drive refimpl with the spec's operation values, and compare the two after each step.

Shared by the refinement state machines, the concurrency test and the scenario tests: an operation from
:mod:`spec.cache.operations` is applied to a refimpl cache with :func:`apply_refimpl`, to the spec with
:func:`spec.cache.operations.apply`, and :func:`differences` lists everything in which the two then disagree.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from conformance.adapters.refimpl_abstraction import (
    abstract_cache_state,
    abstract_dump,
    abstract_node_info,
    abstract_snapshot,
    state_differences,
)
from refimpl.cache import Cache, FakeClock, GenerationCounter, NodeInfo, Snapshot
from spec.cache import cache as spec_cache
from spec.cache.cache import CacheState, new_cache
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
from spec.errors import CacheError, SchedulerExit
from spec.objects import Pod
from spec.versions import VersionProfile


@dataclass
class Harness:
    """A refimpl cache with its own generation counter and fake clock, and the cycle's snapshot."""

    cache: Cache
    clock: FakeClock
    generations: GenerationCounter
    snapshot: Snapshot = field(default_factory=Snapshot)


def new_harness(profile: VersionProfile, ttl: int = 0, start: int = 0) -> Harness:
    """A fresh cache (generations from 0, as a fresh spec state) whose clock starts at ``start``."""
    clock = FakeClock(start)
    generations = GenerationCounter()
    return Harness(Cache(profile=profile, ttl=ttl, clock=clock, generations=generations), clock, generations)


@dataclass(frozen=True)
class RefOutcome:
    """How a refimpl call ended, in the spec's vocabulary, and the NodeInfo clone it returned, if any."""

    status: Status
    kind: str | None = None
    message: str = ""
    returned: NodeInfo | None = None

    def matches(self, outcome: Outcome) -> bool:
        """Same status, error kind and message as the spec's outcome."""
        return (self.status, self.kind, self.message) == (outcome.status, outcome.kind, outcome.message)


def apply_refimpl(harness: Harness, op: Operation, *, clock_time: bool = False) -> RefOutcome:
    """Apply ``op`` to the harness; errors and exits become outcomes. With ``clock_time``, operations that take
    a time read it from the harness's clock (which the caller has set to the operation's time)."""
    cache = harness.cache
    returned: NodeInfo | None = None
    try:
        match op:
            case AssumePod(pod):
                cache.assume_pod(pod)
            case FinishBinding(pod, now):
                cache.finish_binding(pod, None if clock_time else now)
            case ForgetPod(pod):
                cache.forget_pod(pod)
            case AddPod(pod):
                cache.add_pod(pod)
            case UpdatePod(old, new):
                cache.update_pod(old, new)
            case RemovePod(pod):
                cache.remove_pod(pod)
            case AddNode(node):
                returned = cache.add_node(node)
            case UpdateNode(old_node, new_node):
                returned = cache.update_node(old_node, new_node)
            case RemoveNode(node):
                cache.remove_node(node)
            case CleanupAssumedPods(now):
                if clock_time:
                    cache.cleanup_tick()
                else:
                    cache.cleanup_assumed_pods(now)
            case UpdateSnapshot():
                cache.update_snapshot(harness.snapshot)
            case _:
                raise TypeError(f"not an operation: {op!r}")
    except CacheError as error:
        return RefOutcome(Status.ERROR, error.kind, error.message)
    except SchedulerExit as error:
        return RefOutcome(Status.FATAL, error.kind, error.message)
    return RefOutcome(Status.OK, returned=returned)


def returned_differences(op: Operation, outcome: RefOutcome, world: World) -> list[str]:
    """AddNode / UpdateNode return a clone of the node's NodeInfo after the change, where the profile says so."""
    if outcome.status is not Status.OK or not isinstance(op, AddNode | UpdateNode):
        return []
    name = op.node.name if isinstance(op, AddNode) else op.new.name
    if not world.cache.profile.node_operations_return_node_info:
        return [] if outcome.returned is None else [f"{op}: returned a NodeInfo, the profile returns nothing"]
    if outcome.returned is None:
        return [f"{op}: returned nothing, the profile returns a NodeInfo"]
    expected = spec_cache.clone_node_info(world.cache, name)
    got = abstract_node_info(outcome.returned)
    return [] if got == expected else [f"{op}: returned {got}, expected {expected}"]


def query_differences(cache: Cache, state: CacheState) -> list[str]:
    """``get_pod`` and ``is_assumed_pod`` answer as the spec does for every cached UID and for an unknown one."""
    found = []
    for key in [*state.pod_states, "no-such-uid"]:
        probe = Pod(uid=key, name=f"probe-{key}")
        try:
            expected: Pod | str = spec_cache.get_pod(state, probe)
        except CacheError as error:
            expected = error.message
        try:
            got: Pod | str = cache.get_pod(probe)
        except CacheError as error:
            got = error.message
        if got != expected:
            found.append(f"get_pod({key}): refimpl {got!r} != spec {expected!r}")
        if cache.is_assumed_pod(probe) != spec_cache.is_assumed_pod(state, probe):
            found.append(f"is_assumed_pod({key}) differs")
    return found


def differences(harness: Harness, world: World, abstract: CacheState | None = None) -> list[str]:
    """Everything observable in which the refimpl harness and the spec world disagree; [] if nothing.

    ``abstract`` is ``abstract_cache_state(harness.cache)`` if the caller has it already.
    """
    cache, state = harness.cache, world.cache
    found = state_differences(abstract if abstract is not None else abstract_cache_state(cache), state)
    dump = abstract_dump(cache.dump())
    expected_dump = spec_cache.dump(state)
    if dump != expected_dump:
        for name in sorted(set(dump.nodes) | set(expected_dump.nodes)):
            if dump.nodes.get(name) != expected_dump.nodes.get(name):
                found.append(f"dump[{name}]: refimpl {dump.nodes.get(name)} != spec {expected_dump.nodes.get(name)}")
        if dump.assumed_pods != expected_dump.assumed_pods:
            mine, theirs = sorted(dump.assumed_pods), sorted(expected_dump.assumed_pods)
            found.append(f"dump assumed: refimpl {mine} != spec {theirs}")
    if cache.node_count() != spec_cache.node_count(state):
        found.append(f"node_count: refimpl {cache.node_count()} != spec {spec_cache.node_count(state)}")
    if cache.pod_count() != spec_cache.pod_count(state):
        found.append(f"pod_count: refimpl {cache.pod_count()} != spec {spec_cache.pod_count(state)}")
    found += query_differences(cache, state)
    if harness.generations.last != state.generation:
        found.append(f"generation counter: refimpl {harness.generations.last} != spec {state.generation}")
    # The spec's snapshot keeps the sum of the claims' changes it last consumed (bookkeeping refimpl has no field
    # for); what is observable is the delta the next UpdateSnapshot applies, compared on its own below.
    consumed = world.snapshot.pvc_ref_counts_consumed
    snapshot = replace(abstract_snapshot(harness.snapshot), pvc_ref_counts_consumed=consumed)
    if snapshot != world.snapshot:
        found.append(f"snapshot: refimpl {snapshot} != spec {world.snapshot}")
    if state.profile.incremental_pvc_ref_counts:
        keys = set(state.pvc_ref_counts_total) | set(consumed)
        pending = {k: state.pvc_ref_counts_total.get(k, 0) - consumed.get(k, 0) for k in sorted(keys)}
        expected = {k: v for k, v in pending.items() if v != 0}
        got = cache.internals().pvc_ref_counts_delta
        if got != expected:
            found.append(f"pvcRefCountsDelta: refimpl {got} != spec {expected}")
    return found


class Twin:
    """A spec world and a refimpl harness driven in lockstep; every step must agree (for scenario tests)."""

    def __init__(self, profile: VersionProfile, ttl: int = 0) -> None:
        self.world = World(new_cache(profile, ttl))
        self.harness = new_harness(profile, ttl)

    @property
    def cache(self) -> Cache:
        return self.harness.cache

    @property
    def snapshot(self) -> Snapshot:
        return self.harness.snapshot

    def do(self, op: Operation) -> RefOutcome:
        """Apply ``op`` to both; require the same outcome and, unless it was fatal, the same state."""
        after, outcome = apply(self.world, op)
        got = apply_refimpl(self.harness, op)
        assert got.matches(outcome), f"{op}: refimpl ended {got}, spec {outcome}"
        self.world = after
        if outcome.status is not Status.FATAL:
            problems = returned_differences(op, got, after) + differences(self.harness, after)
            assert not problems, f"after {op}:\n  " + "\n  ".join(problems)
        return got

    def ok(self, *ops: Operation) -> None:
        """Apply each operation; each must succeed."""
        for op in ops:
            got = self.do(op)
            assert got.status is Status.OK, f"{op}: expected ok, got {got.kind} {got.message!r}"

    def fails(self, op: Operation, kind: str) -> str:
        """Apply ``op``; it must fail (error or exit) with ``kind``. Returns the message."""
        got = self.do(op)
        assert got.status is not Status.OK and got.kind == kind, f"{op}: expected {kind}, got {got}"
        return got.message

    def node_info(self, name: str) -> NodeInfo | None:
        """The cache's live NodeInfo for ``name``, if any."""
        return self.cache.internals().node_infos.get(name)

    def head_to_tail(self) -> list[str]:
        """The cache's node names from the most to the least recently updated."""
        return self.cache.internals().names_by_recency
