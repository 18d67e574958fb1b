"""A Hypothesis state machine over the whole scheduling pipeline of the spec.

Pods are created, scheduled onto any feasible node, rejected at Reserve or Permit, bound or
failed, confirmed late and in any order, deleted at any stage; nodes come, change (never
shrinking, the headline's environment assumption) and go; time passes. After every step every
cache invariant and every pipeline invariant holds, and no node is overcommitted (TTL 0).
When the cluster is quiet (nothing binding, nothing unconfirmed), no pod is assumed.
"""

from __future__ import annotations

from unittest import TestCase

from hypothesis import event
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule

from spec.cache.invariants import STATE_INVARIANTS
from spec.cache.snapshot import update_snapshot
from spec.cycle import cycle
from spec.cycle.cycle import Cluster, CycleNotEnabled, FailurePoint, feasible_nodes, new_cluster
from spec.cycle.invariants import CYCLE_INVARIANTS, inv_no_node_overcommitted, trans_failed_scheduling_keeps_the_cache
from spec.frozenmap import FrozenMap
from spec.objects import LABEL_TOPOLOGY_ZONE, Container, ContainerPort, Node, Pod, Taint, Toleration
from spec.quantities import SECOND, resource_list
from spec.versions import V1_34, V1_35, V1_37, VersionProfile
from tests.support.machines import configured_test_case, machine_settings

NODE_CPU = {"n1": 1000, "n2": 1500, "n3": 2000}

nodes = st.builds(
    lambda name, zone, tainted, cordoned: Node(
        name,
        resource_list(cpu=NODE_CPU[name], memory=2**31, pods=3),
        FrozenMap({LABEL_TOPOLOGY_ZONE: zone}),
        taints=(Taint("dedicated", "x"),) if tainted else (),
        unschedulable=cordoned,
    ),
    st.sampled_from(sorted(NODE_CPU)),
    st.sampled_from(("z1", "z2")),
    st.sampled_from((False, False, False, True)),
    st.sampled_from((False, False, False, True)),
)
pods = st.builds(
    lambda uid, cpu, port, tolerant: Pod(
        uid,
        f"pod-{uid}",
        containers=(Container("c", resource_list(cpu=cpu), (ContainerPort(80, host_port=80),) if port else ()),),
        tolerations=(Toleration(operator="Exists"),) if tolerant else (),
    ),
    st.sampled_from(tuple(f"p{i}" for i in range(1, 13))),
    st.sampled_from((0, 300, 600, 900)),
    st.booleans(),
    st.booleans(),
)


class PipelineMachine(RuleBasedStateMachine):
    profile: VersionProfile = V1_35

    def __init__(self) -> None:
        super().__init__()
        self.cluster: Cluster = new_cluster(self.profile)

    @initialize()
    def start_with_three_nodes(self) -> None:
        for i, name in enumerate(sorted(NODE_CPU)):
            node = Node(name, resource_list(cpu=NODE_CPU[name], memory=2**31, pods=3),
                        FrozenMap({LABEL_TOPOLOGY_ZONE: f"z{i % 2 + 1}"}))
            self.cluster = cycle.add_node(self.cluster, node)

    def attempt(self, name: str, transition: object) -> Cluster | None:
        try:
            after: Cluster = transition()  # type: ignore[operator]
        except CycleNotEnabled:
            event(f"{name}: not enabled")
            return None
        event(name)
        self.cluster = after
        return after

    @rule(pod=pods)
    def create_pod(self, pod: Pod) -> None:
        self.attempt("create", lambda: cycle.create_pod(self.cluster, pod))

    @precondition(lambda self: bool(self.cluster.pending))
    @rule(data=st.data())
    def schedule(self, data: st.DataObject) -> None:
        uid = data.draw(st.sampled_from(sorted(self.cluster.pending)))
        feasible = feasible_nodes(update_snapshot(self.cluster.cache, self.cluster.snapshot), self.cluster.pending[uid])
        if not feasible:
            before = self.cluster
            self.attempt("unschedulable", lambda: cycle.fail_scheduling(before, uid, None, None))
            assert trans_failed_scheduling_keeps_the_cache(before, self.cluster)
            return
        node = data.draw(st.sampled_from(feasible))
        point = data.draw(st.sampled_from((None, FailurePoint.RESERVE, FailurePoint.PERMIT)))
        if point is None:
            self.attempt("schedule", lambda: cycle.schedule_pod(self.cluster, uid, node))
        else:
            before = self.cluster
            self.attempt(f"reject at {point}", lambda: cycle.fail_scheduling(before, uid, node, point))
            assert trans_failed_scheduling_keeps_the_cache(before, self.cluster)

    @rule(pod=pods, data=st.data())
    def create_schedule_and_bind(self, pod: Pod, data: st.DataObject) -> None:
        """A whole successful pipeline run in one step, so that runs reach deep states often."""
        if self.attempt("create", lambda: cycle.create_pod(self.cluster, pod)) is None:
            return
        feasible = feasible_nodes(update_snapshot(self.cluster.cache, self.cluster.snapshot), pod)
        if feasible:
            node = data.draw(st.sampled_from(feasible))
            self.attempt("schedule", lambda: cycle.schedule_pod(self.cluster, pod.uid, node))
            self.attempt("bind", lambda: cycle.bind_pod(self.cluster, pod.uid))

    @precondition(lambda self: bool(self.cluster.binding))
    @rule(data=st.data(), outcome=st.sampled_from(("bind", FailurePoint.PRE_BIND, FailurePoint.BIND)))
    def finish_binding_cycle(self, data: st.DataObject, outcome: object) -> None:
        uid = data.draw(st.sampled_from(sorted(self.cluster.binding)))
        if outcome == "bind":
            if self.attempt("bind", lambda: cycle.bind_pod(self.cluster, uid)) is None:
                self.attempt("bind fails: pod gone", lambda: cycle.fail_binding(self.cluster, uid, FailurePoint.BIND))
        else:
            self.attempt(f"fail at {outcome}", lambda: cycle.fail_binding(self.cluster, uid, outcome))  # type: ignore[arg-type]

    @precondition(lambda self: bool(self.cluster.unconfirmed))
    @rule(data=st.data())
    def confirm(self, data: st.DataObject) -> None:
        uid = data.draw(st.sampled_from(sorted(self.cluster.unconfirmed)))
        self.attempt("confirm", lambda: cycle.confirm_binding(self.cluster, uid))

    @precondition(lambda self: bool(self.cluster.api_pods))
    @rule(data=st.data())
    def delete(self, data: st.DataObject) -> None:
        uid = data.draw(st.sampled_from(sorted(self.cluster.api_pods)))
        self.attempt("delete", lambda: cycle.delete_pod(self.cluster, uid))

    @precondition(lambda self: bool(self.cluster.api_pods))
    @rule(data=st.data())
    def terminate_and_skip(self, data: st.DataObject) -> None:
        """A graceful deletion (``terminate_pod``), then ``ScheduleOne``'s skip if the pod is pending."""
        uid = data.draw(st.sampled_from(sorted(self.cluster.api_pods)))
        self.attempt("terminate", lambda: cycle.terminate_pod(self.cluster, uid))
        self.attempt("skip", lambda: cycle.skip_pod(self.cluster, uid))

    @rule(node=nodes)
    def add_or_update_node(self, node: Node) -> None:
        if self.attempt("add node", lambda: cycle.add_node(self.cluster, node)) is None:
            self.attempt("update node", lambda: cycle.update_node(self.cluster, node))

    @rule(name=st.sampled_from(sorted(NODE_CPU)))
    def remove_node(self, name: str) -> None:
        self.attempt("remove node", lambda: cycle.remove_node(self.cluster, name))

    @rule(seconds=st.integers(0, 5))
    def tick(self, seconds: int) -> None:
        self.attempt("tick", lambda: cycle.tick(self.cluster, seconds * SECOND))

    @invariant()
    def invariants_hold(self) -> None:
        for inv in STATE_INVARIANTS:
            assert inv.predicate(self.cluster.cache), inv.name
        for predicate in CYCLE_INVARIANTS:
            assert predicate(self.cluster), predicate.__name__
        assert inv_no_node_overcommitted(self.cluster)
        if not self.cluster.binding and not self.cluster.unconfirmed:
            assert not self.cluster.cache.assumed_pods, "an assumed pod was left behind"


STATEFUL_EXAMPLES = {"ci": 500, "dev": 200, "thorough": 5000}


def _configured(profile: VersionProfile) -> type[TestCase]:
    return configured_test_case(
        PipelineMachine, f"PipelineMachine_{profile.name}", {"profile": profile},
        machine_settings(STATEFUL_EXAMPLES, 40),
    )


TestPipeline_v1_35 = _configured(V1_35)
TestPipeline_v1_34 = _configured(V1_34)
TestPipeline_v1_37 = _configured(V1_37)
