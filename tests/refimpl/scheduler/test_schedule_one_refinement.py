"""Every scheduling decision of the reference scheduler is one the spec allows (spec/cycle/cycle.py ``schedule_pod`` /
``fail_scheduling``): a chosen node is feasible in the cycle's snapshot by :func:`spec.cycle.filters.is_feasible`, and a
pod is found unschedulable only when no node of the snapshot is feasible for it."""

from __future__ import annotations

import random
from dataclasses import replace

from hypothesis import given
from hypothesis import strategies as st

from conformance.adapters.refimpl_abstraction import abstract_snapshot
from refimpl.cache import Cache, FakeClock
from refimpl.dispatcher import FakeAPIServer
from refimpl.scheduler.plugins import new_default_framework
from refimpl.scheduler.queue import SchedulingQueue
from refimpl.scheduler.schedule_one import Outcome, Scheduler
from spec.cycle.filters import is_feasible
from spec.objects import Node, Pod, Taint, Toleration
from spec.versions import V1_34, V1_35, VersionProfile
from tests.support.universe import NODE_NAMES, node_variants, pods_with_uid

_nodes = st.builds(
    lambda node, taint, cordoned: replace(node, taints=taint, unschedulable=cordoned),
    st.sampled_from(NODE_NAMES).flatmap(node_variants),
    st.sampled_from(((), (Taint("dedicated", "x", "NoSchedule"),))),
    st.booleans(),
)
_pods = st.builds(
    lambda pod, tolerate: replace(pod, tolerations=(Toleration(operator="Exists"),) if tolerate else ()),
    st.sampled_from([f"u{i}" for i in range(8)]).flatmap(pods_with_uid),
    st.booleans(),
)


@given(
    nodes=st.lists(_nodes, min_size=1, max_size=3, unique_by=lambda n: n.name),
    pods=st.lists(_pods, min_size=1, max_size=8, unique_by=lambda p: p.uid),
    profile=st.sampled_from((V1_35, V1_34)),
)
def test_every_decision_is_allowed_by_the_spec(nodes: list[Node], pods: list[Pod], profile: VersionProfile) -> None:
    clock = FakeClock()
    cache = Cache(profile=profile, clock=clock)
    for node in nodes:
        cache.add_node(node)
    queue = SchedulingQueue(clock)
    server = FakeAPIServer()
    sched = Scheduler(cache, queue, new_default_framework(profile=profile), client=server, profile=profile,
                      clock=clock, rng=random.Random(0))
    for pod in pods:
        server.create_pod(pod.namespace, pod.name, pod.uid)
        queue.add(pod)
    while (result := sched.schedule_one()) is not None:
        snapshot = abstract_snapshot(sched.snapshot)  # what the cycle filtered: assumed pods included, not this pod
        feasible = {name for name in snapshot.node_info_list
                    if is_feasible(result.pod, snapshot.node_info_map[name], snapshot)}
        if result.outcome is Outcome.BINDING:
            assert result.node in feasible
        else:
            assert result.outcome is Outcome.UNSCHEDULABLE and not feasible
        sched.step_binding_cycles()
    assert not sched.binding_cycles
