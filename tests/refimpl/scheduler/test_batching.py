"""Opportunistic batching (KEP-5598; runtime/batch.go, digest §E): when a hint is given, used, or refused.

The default profile's PodTopologySpread (system defaulting) refuses to sign every pod, so Kubernetes never batches
under it; these tests run the profile with ``defaultingType: List`` and no default constraints, which signs."""

from __future__ import annotations

import random
from collections.abc import Sequence

from refimpl.cache import Cache, FakeClock, NodeInfo
from refimpl.dispatcher import FakeAPIServer
from refimpl.scheduler.batching import MAX_BATCH_AGE, FlushReason, OpportunisticBatch
from refimpl.scheduler.framework import CycleState, FilterPlugin, Status
from refimpl.scheduler.plugins import LIST_DEFAULTING, new_default_framework
from refimpl.scheduler.queue import SchedulingQueue
from refimpl.scheduler.schedule_one import Outcome, ScheduleOneResult, Scheduler
from spec.objects import Container, Node, Pod
from spec.quantities import resource_list
from spec.versions import V1_34, V1_35, VersionProfile


class Unsigned(FilterPlugin):
    """A filter that cannot sign pods: it disables batching for its profile."""

    name = "Unsigned"

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        return None


def one_pod_node(name: str, cpu: int) -> Node:
    """A node with room for one pod (allocatable pods = 1); ``cpu`` varies the LeastAllocated score."""
    return Node(name, allocatable=resource_list(cpu=cpu, memory=2**30, pods=1))


def web_pod(uid: str, cpu: int = 100) -> Pod:
    return Pod(uid, name=uid, containers=(Container("c", requests=resource_list(cpu=cpu), image="web:1"),))


def scheduler(
    nodes: Sequence[Node], profile: VersionProfile = V1_35, extra: Sequence[FilterPlugin] = ()
) -> tuple[Scheduler, SchedulingQueue, FakeClock]:
    clock = FakeClock()
    cache = Cache(profile=profile, clock=clock)
    for node in nodes:
        cache.add_node(node)
    queue = SchedulingQueue(clock)
    fwk = new_default_framework(profile=profile, extra_plugins=tuple(extra), spread_defaulting=LIST_DEFAULTING)
    sched = Scheduler(cache, queue, fwk, client=FakeAPIServer(), profile=profile, clock=clock, rng=random.Random(0))
    return sched, queue, clock


def schedule(sched: Scheduler, queue: SchedulingQueue, pod: Pod) -> ScheduleOneResult:
    queue.add(pod)
    result = sched.schedule_one()
    assert result is not None and result.outcome is Outcome.BINDING
    return result


def batch_of(sched: Scheduler) -> OpportunisticBatch:
    assert sched.batches is not None
    return sched.batches["default-scheduler"]


# Node scores (LeastAllocated, 100m pod): more cpu scores higher, so the ranking is n4 > n3 > n2 > n1.
NODES = [one_pod_node("n1", 1000), one_pod_node("n2", 2000), one_pod_node("n3", 3000), one_pod_node("n4", 4000)]


def test_identical_pods_take_the_cached_ranking_one_node_each() -> None:
    sched, queue, _ = scheduler(NODES)
    first = schedule(sched, queue, web_pod("p1"))
    assert first.node == "n4" and first.result is not None and first.result.feasible_nodes == 4
    assert batch_of(sched).cached_nodes == 3
    second = schedule(sched, queue, web_pod("p2"))
    # The hint (the best node left, n3) passed the filters alone: a single feasible node, no scoring.
    assert second.node == "n3" and second.result is not None and second.result.evaluated_nodes == 1
    third = schedule(sched, queue, web_pod("p3"))
    assert third.node == "n2"
    batch = batch_of(sched)
    assert batch.batched == 2 and batch.cached_nodes == 1


def test_a_different_pod_is_incompatible() -> None:
    sched, queue, _ = scheduler(NODES)
    schedule(sched, queue, web_pod("p1"))
    other = schedule(sched, queue, web_pod("p2", cpu=200))
    assert other.result is not None and other.result.feasible_nodes == 3  # a full cycle
    assert batch_of(sched).flushes[FlushReason.POD_INCOMPATIBLE] == 1


def test_the_list_expires_after_500_ms() -> None:
    sched, queue, clock = scheduler(NODES)
    schedule(sched, queue, web_pod("p1"))
    clock.advance(MAX_BATCH_AGE + 1)
    later = schedule(sched, queue, web_pod("p2"))
    assert later.result is not None and later.result.feasible_nodes == 3
    assert batch_of(sched).flushes[FlushReason.EXPIRED] == 1


def test_the_list_is_still_fresh_at_exactly_500_ms() -> None:
    sched, queue, clock = scheduler(NODES)
    schedule(sched, queue, web_pod("p1"))
    clock.advance(MAX_BATCH_AGE)
    assert schedule(sched, queue, web_pod("p2")).node == "n3"
    assert batch_of(sched).batched == 1


def test_no_hint_while_the_last_node_still_fits() -> None:
    roomy = [Node(f"n{i}", allocatable=resource_list(cpu=1000 * i, memory=2**30, pods=10)) for i in (1, 2, 3)]
    sched, queue, _ = scheduler(roomy)
    schedule(sched, queue, web_pod("p1"))
    schedule(sched, queue, web_pod("p2"))
    assert batch_of(sched).flushes[FlushReason.NODE_NOT_FULL] == 1 and batch_of(sched).batched == 0


def test_another_pop_in_between_skips_the_batch() -> None:
    sched, queue, _ = scheduler(NODES)
    schedule(sched, queue, web_pod("p1"))
    queue.add(web_pod("huge", cpu=100_000))
    failed = sched.schedule_one()
    assert failed is not None and failed.outcome is Outcome.UNSCHEDULABLE
    schedule(sched, queue, web_pod("p2"))
    assert batch_of(sched).flushes[FlushReason.POD_SKIPPED] == 1


def test_a_profile_with_an_unsigning_plugin_never_batches() -> None:
    sched, queue, _ = scheduler(NODES, extra=[Unsigned()])
    schedule(sched, queue, web_pod("p1"))
    schedule(sched, queue, web_pod("p2"))
    batch = batch_of(sched)
    assert batch.batched == 0 and batch.flushes[FlushReason.POD_NOT_BATCHABLE] == 2


def test_v134_has_no_batching() -> None:
    sched, queue, _ = scheduler(NODES, profile=V1_34)
    assert sched.batches is None
    schedule(sched, queue, web_pod("p1"))
    second = schedule(sched, queue, web_pod("p2"))
    assert second.result is not None and second.result.feasible_nodes == 3


def test_signatures_ignore_the_pod_identity_but_not_its_requests() -> None:
    fwk = new_default_framework(spread_defaulting=LIST_DEFAULTING)
    assert fwk.sign_pod(web_pod("a")) == fwk.sign_pod(web_pod("b"))
    assert fwk.sign_pod(web_pod("a")) != fwk.sign_pod(web_pod("a", cpu=200))
