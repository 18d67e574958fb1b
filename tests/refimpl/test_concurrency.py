"""Concurrency: several threads use one cache at once, and the result is the spec's for the order the lock chose.

Each thread applies its own list of operations to a shared refimpl cache (with the background cleanup worker ticking
on a fake clock in the TTL era). The cache's operation hook records, under the lock, every call in the order the
lock admitted it; each thread notes how its calls ended. Then the recorded calls are replayed on the spec, one by
one: every outcome must match, no exception may have escaped a thread, the final state and snapshot must equal the
spec's, and every invariant must hold on refimpl's final state.

The operations come from a universe in which every invariant is kept whatever the interleaving: each pod UID has a
fixed node, affinity and host port, each node name a fixed zone and images, and the one node that is ever updated
(``n3``) is added before the threads start and never removed, so an update never meets a placeholder or a ghost
(Kubernetes would then leave the node out of the tree). No thread can thus issue an operation that breaks an
invariant in some interleavings only.
"""

from __future__ import annotations

import random
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from conformance.adapters.refimpl_abstraction import abstract_cache_state
from spec.cache.cache import new_cache
from spec.cache.invariants import STATE_INVARIANTS
from spec.cache.operations import (
    AddNode,
    AddPod,
    AssumePod,
    CleanupAssumedPods,
    FinishBinding,
    ForgetPod,
    Operation,
    RemoveNode,
    RemovePod,
    Status,
    UpdateNode,
    UpdatePod,
    UpdateSnapshot,
    World,
    apply,
)
from spec.errors import CacheError
from spec.objects import AffinityTerms, Container, ContainerPort, Node, Pod
from spec.quantities import SECOND, resource_list
from spec.versions import PROFILES, VersionProfile
from tests.refimpl.driver import Harness, RefOutcome, apply_refimpl, differences, new_harness
from tests.support.universe import IMAGES, make_node

UIDS = tuple(f"c{i}" for i in range(8))
NODES = ("n1", "n2", "n3")
UPDATED_NODE = "n3"
"""The only node that is updated: added before the threads start, and never removed."""
REMOVABLE_NODES = ("n1", "n2")
NODE_OF = {uid: NODES[i % len(NODES)] for i, uid in enumerate(UIDS)}
ZONE_OF = {"n1": "z1", "n2": "z2", "n3": "z1"}
IMAGES_OF = {"n1": IMAGES[:1], "n2": IMAGES[1:], "n3": IMAGES[:2]}
AFFINITY_OF = {uid: AffinityTerms(required=i % 2) if i % 3 == 0 else None for i, uid in enumerate(UIDS)}
REQUESTS = (resource_list(), resource_list(cpu=100), resource_list(cpu=250, memory=2**20), resource_list(memory=2**28))


def pod_variant(uid: str, requests_index: int, claims: int, stale: bool = False) -> Pod:
    """A pod object for ``uid``: its node, affinity and host port are fixed; requests and claims vary."""
    port = ContainerPort(80, host_port=9000 + UIDS.index(uid))
    return Pod(
        uid=uid,
        name=f"pod-{uid}",
        node_name="" if stale else NODE_OF[uid],
        containers=(Container("c", requests=REQUESTS[requests_index], ports=(port,)),),
        pod_anti_affinity=AFFINITY_OF[uid],
        pvc_claims=("data",) * claims,
    )


def node_variant(name: str, cpu: int) -> Node:
    """A node object for ``name``: zone and images are fixed, the allocatable cpu varies."""
    return make_node(name, ZONE_OF[name], IMAGES_OF[name], cpu)


uids = st.sampled_from(UIDS)
request_choices = st.integers(0, len(REQUESTS) - 1)
claim_counts = st.integers(0, 2)
cpus = st.sampled_from((1000, 2000, 4000))
pod_objects = st.builds(pod_variant, uids, request_choices, claim_counts)
node_objects = st.builds(node_variant, st.sampled_from(NODES), cpus)
removable_nodes = st.builds(node_variant, st.sampled_from(REMOVABLE_NODES), cpus)


def _update_pod(uid: str, old_requests: int, new_requests: int, old_claims: int, new_claims: int) -> UpdatePod:
    return UpdatePod(pod_variant(uid, old_requests, old_claims), pod_variant(uid, new_requests, new_claims))


def _update_node(name: str, old_cpu: int, new_cpu: int) -> UpdateNode:
    return UpdateNode(node_variant(name, old_cpu), node_variant(name, new_cpu))


def _stale_remove(pod: Pod) -> RemovePod:
    return RemovePod(replace(pod, node_name=""))
times = st.integers(0, 20).map(lambda s: s * SECOND)


def operations(profile: VersionProfile) -> st.SearchStrategy[Operation]:
    """Any operation of the universe that the profile supports."""
    ops: list[st.SearchStrategy[Operation]] = [
        st.builds(AssumePod, pod_objects),
        st.builds(AddPod, pod_objects),
        st.builds(ForgetPod, pod_objects),
        st.builds(_update_pod, uids, request_choices, request_choices, claim_counts, claim_counts),
        st.builds(RemovePod, pod_objects),
        st.builds(_stale_remove, pod_objects),
        st.builds(AddNode, node_objects),
        st.builds(_update_node, st.just(UPDATED_NODE), cpus, cpus),
        st.builds(RemoveNode, removable_nodes),
        st.just(UpdateSnapshot()),
    ]
    if profile.assumed_pod_expiry:
        ops += [st.builds(FinishBinding, pod_objects, times), st.builds(CleanupAssumedPods, times)]
    return st.one_of(ops)


def to_operation(name: str, args: tuple[object, ...]) -> Operation:
    """A call the operation hook recorded, as the spec's operation value."""
    match name, args:
        case "assume_pod", (Pod() as pod,):
            return AssumePod(pod)
        case "finish_binding", (Pod() as pod, int(now)):
            return FinishBinding(pod, now)
        case "forget_pod", (Pod() as pod,):
            return ForgetPod(pod)
        case "add_pod", (Pod() as pod,):
            return AddPod(pod)
        case "update_pod", (Pod() as old, Pod() as new):
            return UpdatePod(old, new)
        case "remove_pod", (Pod() as pod,):
            return RemovePod(pod)
        case "add_node", (Node() as node,):
            return AddNode(node)
        case "update_node", (Node() | None as old, Node() as new):
            return UpdateNode(old, new)
        case "remove_node", (Node() as node,):
            return RemoveNode(node)
        case "cleanup_assumed_pods", (int(now),):
            return CleanupAssumedPods(now)
        case "update_snapshot", (_,):
            return UpdateSnapshot()
    raise AssertionError(f"the hook recorded an unknown call {name}{args}")


@dataclass
class Recording:
    """The calls in lock-admission order, which thread made each, and how the threads saw them end."""

    calls: list[tuple[int, str, tuple[object, ...]]] = field(default_factory=list)
    outcomes: dict[int, RefOutcome] = field(default_factory=dict)
    local: threading.local = field(default_factory=threading.local)

    def hook(self, name: str, args: tuple[object, ...]) -> None:
        """The cache's operation hook: runs under the cache lock."""
        self.local.seq = len(self.calls)
        self.calls.append((threading.get_ident(), name, args))

    def switches(self) -> int:
        """How often consecutive calls came from different threads."""
        return sum(1 for a, b in zip(self.calls, self.calls[1:], strict=False) if a[0] != b[0])


@contextmanager
def fine_grained_switching() -> Iterator[None]:
    """Let the interpreter switch threads every microsecond, so that short operation lists interleave."""
    before = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        yield
    finally:
        sys.setswitchinterval(before)


def recorded_call(harness: Harness, recording: Recording, op: Operation) -> None:
    """Apply ``op`` and file its outcome under the sequence number the hook gave the call."""
    recording.local.seq = None
    outcome = apply_refimpl(harness, op)
    seq = recording.local.seq
    assert seq is not None, f"{op} ended {outcome} without reaching the lock"
    recording.outcomes[seq] = outcome


def run_threads(harness: Harness, recording: Recording, per_thread: list[list[Operation]], ticks: int) -> list[str]:
    """Run each list on its own thread (and ``ticks`` clock advances if the worker runs); return escaped errors."""
    escaped: list[str] = []
    barrier = threading.Barrier(len(per_thread) + 1)

    def work(ops: list[Operation]) -> None:
        try:
            barrier.wait()
            for op in ops:
                recorded_call(harness, recording, op)
                time.sleep(0)  # give up the GIL, so that the threads interleave at every call
        except BaseException as error:  # reported, not swallowed
            escaped.append(f"{type(error).__name__}: {error}")

    threads = [threading.Thread(target=work, args=(ops,), name=f"ops-{i}") for i, ops in enumerate(per_thread)]
    for thread in threads:
        thread.start()
    barrier.wait()
    for _ in range(ticks):
        harness.clock.advance(SECOND)
    for thread in threads:
        thread.join(30)
        assert not thread.is_alive(), f"{thread.name} did not finish"
    return escaped


def replay(profile: VersionProfile, ttl: int, recording: Recording) -> World:
    """Apply the recorded calls to the spec in admission order; every outcome must match refimpl's."""
    world = World(new_cache(profile, ttl))
    for seq, (_, name, args) in enumerate(recording.calls):
        op = to_operation(name, args)
        world, outcome = apply(world, op)
        assert outcome.status is not Status.FATAL, f"call {seq} {op}: the universe must not reach a process exit"
        got = recording.outcomes.get(seq)
        if got is None:  # a tick of the cleanup worker: it has no caller to report to
            assert name == "cleanup_assumed_pods" and outcome.status is Status.OK, f"call {seq} {op}: {outcome}"
            continue
        assert got.matches(outcome), f"call {seq} {op}: refimpl {got}, spec {outcome}"
    return world


def check_concurrent_run(profile: VersionProfile, ttl: int, per_thread: list[list[Operation]], worker: bool) -> int:
    """Run, replay, compare; return the number of thread switches seen."""
    harness = new_harness(profile, ttl)
    recording = Recording()
    harness.cache.set_operation_hook(recording.hook)
    recorded_call(harness, recording, AddNode(node_variant(UPDATED_NODE, 4000)))
    cleanup = harness.cache.start_cleanup(period=1.0) if worker else None
    try:
        with fine_grained_switching():
            escaped = run_threads(harness, recording, per_thread, ticks=5 if worker else 0)
    finally:
        harness.cache.stop()
    assert escaped == [], f"exceptions escaped the threads: {escaped}"
    if cleanup is not None:
        assert cleanup.error is None, f"the cleanup worker failed: {cleanup.error!r}"
    world = replay(profile, ttl, recording)
    problems = differences(harness, world)
    assert not problems, "final state differs from the spec's replay:\n  " + "\n  ".join(problems)
    state = abstract_cache_state(harness.cache)
    broken = [inv.name for inv in STATE_INVARIANTS if not inv.predicate(state)]
    assert not broken, f"refimpl violates {broken} after a concurrent run"
    return recording.switches()


CONFIGURATIONS = [
    pytest.param(PROFILES["v1.35"], 1 * SECOND, True, id="v1.35-ttl1s-worker"),
    pytest.param(PROFILES["v1.34"], 30 * SECOND, False, id="v1.34-ttl30s"),
    pytest.param(PROFILES["v1.37"], 0, False, id="v1.37"),
]


@pytest.mark.parametrize(("profile", "ttl", "worker"), CONFIGURATIONS)
def test_concurrent_operations_refine_the_spec_in_lock_order(profile: VersionProfile, ttl: int, worker: bool) -> None:
    @settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
    @given(st.lists(st.lists(operations(profile), min_size=10, max_size=60), min_size=2, max_size=4))
    def run(per_thread: list[list[Operation]]) -> None:
        switches = check_concurrent_run(profile, ttl, per_thread, worker)
        event(f"thread switches: {'none' if switches == 0 else 'some'}")

    run()


def test_many_long_threads_interleave_and_refine_the_spec() -> None:
    """Eight threads of 300 operations each, drawn with a fixed seed: the lock must actually interleave them."""
    profile = PROFILES["v1.35"]
    rng = random.Random(20250101)
    per_thread = [[random_operation(rng) for _ in range(300)] for _ in range(8)]
    switches = check_concurrent_run(profile, 1 * SECOND, per_thread, worker=True)
    assert switches > 0, "the threads never interleaved; the test would not exercise the lock"


def random_operation(rng: random.Random) -> Operation:
    """An operation of the universe drawn with ``rng`` (for a large, reproducible stress run)."""
    uid = rng.choice(UIDS)
    pod = pod_variant(uid, rng.randrange(len(REQUESTS)), rng.randrange(3))
    node = node_variant(rng.choice(NODES), rng.choice((1000, 2000, 4000)))
    removable = node_variant(rng.choice(REMOVABLE_NODES), node.allocatable["cpu"])
    now = rng.randrange(21) * SECOND
    choices: list[Operation] = [
        AssumePod(pod),
        AssumePod(pod),
        AddPod(pod),
        ForgetPod(pod),
        UpdatePod(pod_variant(uid, 0, 0), pod),
        RemovePod(pod),
        RemovePod(replace(pod, node_name="")),
        AddNode(node),
        UpdateNode(node_variant(UPDATED_NODE, 2000), node_variant(UPDATED_NODE, node.allocatable["cpu"])),
        RemoveNode(removable),
        UpdateSnapshot(),
        FinishBinding(pod, now),
        CleanupAssumedPods(now),
    ]
    return rng.choice(choices)


def test_update_snapshot_is_atomic_with_respect_to_cache_changes() -> None:
    """A snapshot taken while other threads change the cache always matches the cache at some admitted point."""
    harness = new_harness(PROFILES["v1.35"])
    for name in NODES:
        harness.cache.add_node(node_variant(name, 4000))
    stop = threading.Event()
    errors: list[BaseException] = []

    def churn() -> None:
        rng = random.Random(7)
        while not stop.is_set():
            pod = pod_variant(rng.choice(UIDS), rng.randrange(len(REQUESTS)), rng.randrange(3))
            try:
                harness.cache.add_pod(pod)
                harness.cache.remove_pod(pod)
            except CacheError:
                pass
            except BaseException as error:  # reported below
                errors.append(error)
                return

    thread = threading.Thread(target=churn)
    with fine_grained_switching():
        thread.start()
        try:
            for _ in range(200):
                harness.cache.update_snapshot(harness.snapshot)
                total = sum(len(info.pods) for info in harness.snapshot.node_info_map.values())
                assert total <= len(UIDS)
                assert harness.snapshot.num_nodes() == len(NODES)
        finally:
            stop.set()
            thread.join(10)
    assert errors == []
    assert not thread.is_alive()
