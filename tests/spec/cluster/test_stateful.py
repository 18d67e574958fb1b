"""A Hypothesis state machine over several schedulers, their crashes and restarts, and the kubelets
(spec.cluster.cluster).

Two or three schedulers share one API server and three nodes (allocatable never shrinks: nodes are added once
and changed only in labels and taints); users create pods for any scheduler (some with a host port or a node
selector) and delete them; each scheduler schedules, binds, fails, receives every binding, crashes and restarts
(its informers' lists delivered one object at a time); a crashed scheduler's bind requests land or are lost at
any time (late binds included); kubelets admit or reject bound pods. After every step, in every scheduler's view,
the pipeline invariants, the cluster invariants (the kubelet-level over-commit among them) and the cache's
invariants that hold ALWAYS hold; with one scheduler and no late binds, no node is over-committed by the
scheduler either.
"""

from __future__ import annotations

from collections.abc import Callable
from unittest import TestCase

from hypothesis import event
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule

from spec.cache.invariants import ALWAYS, STATE_INVARIANTS
from spec.cluster.cluster import KubeCluster, environment_step, new_kube_cluster, scheduler_name, scheduler_step, views
from spec.cluster.invariants import CLUSTER_INVARIANTS, OVERCOMMIT_INVARIANTS
from spec.cycle.cycle import CycleNotEnabled, FailurePoint
from spec.cycle.invariants import CYCLE_INVARIANTS
from spec.frozenmap import FrozenMap
from spec.objects import Container, ContainerPort, Node, Pod, Taint
from spec.quantities import resource_list
from tests.support.machines import configured_test_case, machine_settings

NODES = ("n1", "n2", "n3")
UIDS = tuple(f"p{i}" for i in range(16))


def make_node(name: str, labelled: bool, tainted: bool) -> Node:
    labels = FrozenMap({"disk": "ssd"}) if labelled else FrozenMap()
    taints = (Taint("dedicated", "x", "NoExecute"),) if tainted else ()
    return Node(name, resource_list(cpu=1000, memory=2**30, pods=2), labels, taints=taints)


def make_pod(uid: str, scheduler: int, cpu: int, port: bool, selector: bool) -> Pod:
    ports = (ContainerPort(80, host_port=8080),) if port else ()
    return Pod(uid, f"pod-{uid}", containers=(Container("c", resource_list(cpu=cpu), ports),),
               node_selector=FrozenMap({"disk": "ssd"}) if selector else FrozenMap(),
               scheduler_name=scheduler_name(scheduler))


class ClusterMachine(RuleBasedStateMachine):
    schedulers: int = 2
    late_binds: bool = True

    @initialize(nodes=st.lists(st.tuples(st.sampled_from(NODES), st.booleans(), st.booleans()), min_size=1,
                               max_size=3, unique_by=lambda t: t[0]))
    def start(self, nodes: list[tuple[str, bool, bool]]) -> None:
        self.k: KubeCluster = new_kube_cluster(self.schedulers, tuple(make_node(*n) for n in nodes))

    def _step(self, name: str, apply: Callable[[], KubeCluster]) -> None:
        try:
            self.k = apply()
            event(f"{name}: ok")
        except CycleNotEnabled:
            event(f"{name}: not enabled")

    @rule(uid=st.sampled_from(UIDS), data=st.data())
    def create_pod(self, uid: str, data: st.DataObject) -> None:
        pod = make_pod(uid, data.draw(st.integers(0, self.schedulers - 1)), data.draw(st.sampled_from((0, 300, 600))),
                       data.draw(st.booleans()), data.draw(st.sampled_from((False, False, True))))
        self._step("create_pod", lambda: environment_step(self.k, "create_pod", pod))

    @rule(name=st.sampled_from(NODES), labelled=st.booleans(), tainted=st.booleans())
    def update_node(self, name: str, labelled: bool, tainted: bool) -> None:
        node = make_node(name, labelled, tainted)
        self._step("update_node", lambda: environment_step(self.k, "update_node", node))

    @rule(index=st.integers(0, 2))
    def crash_scheduler(self, index: int) -> None:
        if index < self.schedulers:
            self._step("crash_scheduler", lambda: scheduler_step(self.k, index, "crash_scheduler"))

    @rule(data=st.data())
    def progress(self, data: st.DataObject) -> None:
        """One of the steps that may happen now (a few are not enabled: a rejection waiting for a binding's
        delivery, a bind of a pod bound meanwhile, a pod fitting nowhere or somewhere)."""
        candidates = self.candidates()
        if candidates:
            index, name, args = data.draw(st.sampled_from(candidates))
            if index is None:
                self._step(name, lambda: environment_step(self.k, name, *args))
            else:
                self._step(name, lambda: scheduler_step(self.k, index, name, *args))

    @rule(data=st.data())
    def more_progress(self, data: st.DataObject) -> None:
        """As :meth:`progress`: pods move through their lives more often than users and crashes act."""
        self.progress(data)

    def candidates(self) -> list[tuple[int | None, str, tuple[object, ...]]]:
        api = self.k.api
        found: list[tuple[int | None, str, tuple[object, ...]]] = []
        for uid, pod in sorted(api.api_pods.items()):
            found.append((None, "delete_pod", (uid,)))
            if pod.node_name and uid not in api.admitted:
                found.append((None, "admit_pod", (uid,)))
        for uid in sorted(api.orphaned):
            found += [(None, "land_orphaned_bind", (uid,)), (None, "drop_orphaned_bind", (uid,))]
        for index, member in enumerate(views(self.k)):
            for uid in sorted(member.pending):
                found.append((index, "fail_scheduling", (uid, None, None)))
                found += [(index, "schedule_pod", (uid, name)) for name in sorted(api.nodes)]
            for uid in sorted(member.binding):
                found += [(index, "bind_pod", (uid,)), (index, "bind_pod", (uid,)),
                          (index, "fail_binding", (uid, FailurePoint.BIND)),
                          (index, "fail_binding", (uid, FailurePoint.PRE_BIND))]
            found += [(index, "confirm_binding", (uid,)) for uid in sorted(member.unconfirmed)]
            if not member.running:
                if self.late_binds or not api.orphaned:
                    found.append((index, "restart_scheduler", ()))
                continue
            found += [(index, "list_node", ())] * bool(member.unlisted_nodes)
            found += [(index, "list_pod", ())] * bool(member.unlisted_pods)
        return found

    @invariant()
    def invariants_hold(self) -> None:
        overcommit = self.schedulers == 1 and not self.late_binds
        for member in views(self.k):
            for inv in STATE_INVARIANTS:
                if inv.holds == ALWAYS:
                    assert inv.predicate(member.cache), inv.name
            for predicate in (*CYCLE_INVARIANTS, *CLUSTER_INVARIANTS, *(OVERCOMMIT_INVARIANTS if overcommit else ())):
                assert predicate(member), predicate.__name__


STATEFUL_EXAMPLES = {"ci": 300, "dev": 150, "thorough": 3000}


def _configured(schedulers: int, late_binds: bool) -> type[TestCase]:
    name = f"ClusterMachine_{schedulers}_{'late' if late_binds else 'prompt'}"
    return configured_test_case(ClusterMachine, name, {"schedulers": schedulers, "late_binds": late_binds},
                                machine_settings(STATEFUL_EXAMPLES, 50))


TestOneScheduler = _configured(1, False)
TestOneSchedulerLateBinds = _configured(1, True)
TestTwoSchedulers = _configured(2, True)
TestThreeSchedulers = _configured(3, True)
