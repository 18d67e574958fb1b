"""The reference scheduler's DefaultPreemption refines the spec's (spec/cycle/preemption.py).

For random clusters (nodes, bound pods of mixed priorities and start times, PodDisruptionBudgets, nominated pods)
and a preemptor that fits nowhere, refimpl's PostFilter (refimpl/scheduler/plugins/default_preemption.py, Go's
structure) returns one of the results :func:`spec.cycle.preemption.preemption_outcomes` allows: the same outcome, a
node the spec may choose, the victims the spec names for that node (in order), and the same lower-priority
nominations cleared. The scheduler-level tests check the nominator and the failure handler in ScheduleOne.
"""

from __future__ import annotations

import random

from hypothesis import given
from hypothesis import strategies as st

from refimpl.cache import Cache, FakeClock, Snapshot
from refimpl.dispatcher import FakeAPIServer
from refimpl.scheduler.framework import CycleState, Framework, Handle
from refimpl.scheduler.framework.status import Code as RefCode
from refimpl.scheduler.framework.status import NodeToStatus
from refimpl.scheduler.plugins import (
    DefaultPreemption,
    default_filter_plugins,
    default_pre_enqueue_plugins,
    new_default_framework,
)
from refimpl.scheduler.queue import QueueName, SchedulingQueue
from refimpl.scheduler.schedule_one import Outcome as RefOutcome
from refimpl.scheduler.schedule_one import Scheduler
from spec.cache import cache as spec_cache
from spec.cache.snapshot import EMPTY_SNAPSHOT, update_snapshot
from spec.cycle.invariants import inv_preemption_victims_have_lower_priority
from spec.cycle.nominated import filter_with_nominated_pods
from spec.cycle.preemption import Outcome, placement_message, preemption_outcomes
from spec.frozenmap import FrozenMap
from spec.objects import Container, Node, Pod, PodDisruptionBudget
from spec.quantities import resource_list

NOW = 10_000
FOO = FrozenMap({"app": "foo"})


def pod(uid: str, priority: int, cpu: int, node: str = "", start: int | None = None, labels: bool = False,
        nominated: str = "", terminating: bool = False) -> Pod:
    return Pod(uid, uid, node_name=node, priority=priority, start_time=start,
               containers=(Container("c", resource_list(cpu=cpu, memory=10)),),
               labels=FOO if labels else FrozenMap(), nominated_node_name=nominated, terminating=terminating)


@st.composite
def clusters(draw: st.DrawFn) -> tuple[list[Node], list[Pod], Pod, list[PodDisruptionBudget], dict[str, list[Pod]]]:
    names = [f"n{i}" for i in range(draw(st.integers(1, 4)))]
    nodes = [Node(n, resource_list(cpu=draw(st.sampled_from([300, 500, 800])), memory=1000,
                                   pods=draw(st.integers(2, 5)))) for n in names]
    bound: list[Pod] = []
    for index in range(draw(st.integers(0, 8))):
        node = draw(st.sampled_from(nodes))
        if sum(1 for p in bound if p.node_name == node.name) >= node.allocatable.get("pods", 0):
            continue
        bound.append(pod(f"b{index}", draw(st.integers(-1, 2)), draw(st.sampled_from([100, 200, 300])), node.name,
                         draw(st.one_of(st.none(), st.integers(0, 20))), draw(st.booleans()),
                         terminating=draw(st.booleans())))
    preemptor = pod("p", draw(st.integers(0, 3)), draw(st.sampled_from([200, 400, 600])))
    pdbs = [PodDisruptionBudget("pdb", selector=FOO, disruptions_allowed=draw(st.integers(0, 2)))] \
        if draw(st.booleans()) else []
    nominated: dict[str, list[Pod]] = {}
    for index in range(draw(st.integers(0, 2))):
        target = draw(st.sampled_from(names))
        nominated.setdefault(target, []).append(
            pod(f"m{index}", draw(st.integers(0, 3)), draw(st.sampled_from([100, 200])), nominated=target))
    return nodes, bound, preemptor, pdbs, nominated


@given(clusters(), st.booleans())
def test_refimpl_preemption_is_one_the_spec_allows(
    cluster: tuple[list[Node], list[Pod], Pod, list[PodDisruptionBudget], dict[str, list[Pod]]], skips: bool,
) -> None:
    """refimpl's PostFilter chooses a result the spec allows, with the victims it deletes and the nominations it
    clears, on either release's handling of terminating victims (preemption_skips_terminating_victims)."""
    nodes, bound, preemptor, pdbs, nominated = cluster
    # refimpl: a cache, its snapshot, a framework with the default filters and DefaultPreemption
    clock = FakeClock(NOW)
    cache = Cache(clock=clock)
    state = spec_cache.new_cache()
    for node in nodes:
        cache.add_node(node)
        state = spec_cache.add_node(state, node)
    for p in bound:
        cache.add_pod(p)
        state = spec_cache.add_pod(state, p)
    handle = Handle(clock=clock, snapshot=Snapshot())
    cache.update_snapshot(handle.snapshot)
    handle.nominated_pods_for_node = lambda name: list(nominated.get(name, ()))
    cleared: list[str] = []
    handle.clear_nominated_node_name = lambda p: cleared.append(p.uid)
    plugin = DefaultPreemption(handle, pdb_lister=lambda: pdbs, rng=random.Random(0), skips_terminating_victims=skips)
    fwk = Framework([*default_filter_plugins(), plugin], handle=handle)
    m = NodeToStatus()
    for info in handle.snapshot.node_info_list:
        status = fwk.run_filter_plugins_with_nominated_pods(CycleState(), preemptor, info)
        if status is not None:
            m.set(info.name, status)
    # the spec, on the same cluster
    snapshot = update_snapshot(state, EMPTY_SNAPSHOT)
    statuses = {}
    for name in snapshot.node_info_list:
        rejection = filter_with_nominated_pods(preemptor, snapshot.node_info_map[name], nominated.get(name, ()),
                                               snapshot)
        if rejection is not None:
            statuses[name] = rejection
    if len(statuses) < len(nodes):
        return  # the pod fits somewhere: no PostFilter
    assert {n: s.code.name for n, s in m.node_to_status.items()} == {n: r.code.name for n, r in statuses.items()}
    allowed = preemption_outcomes(preemptor, snapshot, statuses, pdbs, lambda n: nominated.get(n, ()), NOW,
                                  skips_terminating=skips)
    chosen, status = plugin.post_filter(CycleState(), preemptor, m)
    by_node = {r.nominated_node: r for r in allowed}
    assert chosen in by_node, (chosen, list(by_node))
    expected = by_node[chosen]
    assert status.code.name == expected.outcome.name
    assert [v.victim.uid for v in plugin.preempted] == [v.uid for v in expected.deleted]
    assert cleared == [p.uid for p in expected.cleared]
    assert inv_preemption_victims_have_lower_priority(preemptor, expected)
    if expected.outcome is Outcome.SUCCESS:
        assert status.code is RefCode.SUCCESS


def test_schedule_one_preempts_nominates_and_schedules_the_pod_after_the_victim_leaves() -> None:
    """ScheduleOne end to end: no room, PostFilter evicts the low-priority pod and nominates the preemptor; the
    failure handler records the nomination and patches NominatedNodeName; a lower-priority pod does not take the
    room; once the victim is gone the preemptor is placed there (and is no longer nominated)."""
    clock = FakeClock()
    cache = Cache(clock=clock)
    cache.add_node(Node("n1", resource_list(cpu=1000, memory=1000, pods=10)))
    victim = pod("v", 0, 800, "n1")
    cache.add_pod(victim)
    server = FakeAPIServer()
    queue = SchedulingQueue(clock)
    fwk = new_default_framework(preemption=True)
    sched = Scheduler(cache, queue, fwk, client=server, clock=clock, rng=random.Random(0))
    high, low = pod("p", 10, 500), pod("l", 1, 600)
    for p in (high, low):
        server.create_pod(p.namespace, p.name, p.uid)
    queue.add(high)
    result = sched.schedule_one()
    assert result is not None and result.outcome is RefOutcome.UNSCHEDULABLE
    plugin = fwk.plugin("DefaultPreemption")
    assert isinstance(plugin, DefaultPreemption)
    assert [(e.victim.uid, e.node) for e in plugin.preempted] == [("v", "n1")]
    assert queue.nominator.pod_to_node == {"p": "n1"}
    assert [p.uid for p in queue.nominated_pods_for_node("n1")] == ["p"]
    # the victim leaves; a lower-priority pod must not take the room held for the nominated pod
    cache.remove_pod(victim)
    queue.add(low)
    result = sched.schedule_one()
    assert result is not None and result.pod.uid == "l"
    assert result.outcome is RefOutcome.UNSCHEDULABLE, "the room is held for the nominated pod"
    queue.activate([high])
    result = sched.schedule_one()
    assert result is not None and result.pod.uid == "p" and result.outcome is RefOutcome.BINDING and result.node == "n1"
    assert "p" not in queue.nominator.pod_to_node, "assume removes the nomination"
    # Kubernetes' quirk: the low pod's failed preemption returned NominatedNodeName "" (Override), and
    # addNominatedPodUnlocked stores that as a nomination to the node named "", which no Filter reads.
    assert queue.nominator.pod_to_node == {"l": ""}


def test_gated_pod_stays_out_of_active_until_ungated() -> None:
    clock = FakeClock()
    queue = SchedulingQueue(clock, pre_enqueue_plugins=default_pre_enqueue_plugins())
    gated = Pod("g", "g", scheduling_gates=("x",))
    queue.add(gated)
    assert queue.where("g") is QueueName.UNSCHEDULABLE and queue.pop() is None
    assert queue.update(gated, Pod("g", "g")) is QueueName.ACTIVE
    popped = queue.pop()
    assert popped is not None and popped.uid == "g"


def test_v1_37_success_message_is_the_specs() -> None:
    """v1.37's ``Evaluator.Preempt`` returns "found a potential placement for pod on node N, preempting K victims",
    which ``PostFilter`` prefixes (:attr:`spec.versions.VersionProfile.preemption_reports_placement`); earlier
    releases return Success without a message."""
    node = Node("n1", resource_list(cpu=1000, memory=1000, pods=10))
    victim, preemptor = pod("v", 0, 800, "n1"), pod("p", 10, 500)
    state = spec_cache.add_pod(spec_cache.add_node(spec_cache.new_cache(), node), victim)
    snapshot = update_snapshot(state, EMPTY_SNAPSHOT)
    rejection = filter_with_nominated_pods(preemptor, snapshot.node_info_map["n1"], (), snapshot)
    assert rejection is not None
    (expected,) = preemption_outcomes(preemptor, snapshot, {"n1": rejection}, (), lambda n: (), NOW)
    for reports in (False, True):
        cache = Cache(clock=FakeClock(NOW))
        cache.add_node(node)
        cache.add_pod(victim)
        handle = Handle(clock=FakeClock(NOW), snapshot=Snapshot())
        cache.update_snapshot(handle.snapshot)
        handle.nominated_pods_for_node = lambda name: []
        handle.clear_nominated_node_name = lambda p: None
        plugin = DefaultPreemption(handle, rng=random.Random(0), reports_placement=reports)
        fwk = Framework([*default_filter_plugins(), plugin], handle=handle)
        m = NodeToStatus()
        status = fwk.run_filter_plugins_with_nominated_pods(CycleState(), preemptor, handle.snapshot.node_info_list[0])
        assert status is not None
        m.set("n1", status)
        chosen, result = plugin.post_filter(CycleState(), preemptor, m)
        assert chosen == "n1" and result.code is RefCode.SUCCESS
        assert result.message() == (placement_message(expected) if reports else "")
