"""Scheduling-pipeline scenarios, and the overcommit trace that a non-zero TTL allows."""

from __future__ import annotations

import pytest

from spec.cache.snapshot import update_snapshot
from spec.cycle import cycle
from spec.cycle.cycle import Cluster, CycleNotEnabled, FailurePoint, feasible_nodes, new_cluster
from spec.cycle.invariants import (
    CYCLE_INVARIANTS,
    cache_contents,
    inv_no_node_overcommitted,
    trans_failed_scheduling_keeps_the_cache,
)
from spec.frozenmap import FrozenMap
from spec.objects import Container, ContainerPort, Node, Pod, Taint, Toleration
from spec.quantities import SECOND, resource_list
from spec.versions import V1_34, V1_35


def node(name: str, cpu: int = 1000, **fields: object) -> Node:
    return Node(name, resource_list(cpu=cpu, memory=2**30, pods=4), **fields)  # type: ignore[arg-type]


def pod(uid: str, cpu: int, **fields: object) -> Pod:
    return Pod(uid, f"pod-{uid}", containers=(Container("c", resource_list(cpu=cpu)),), **fields)  # type: ignore[arg-type]


def checked(cluster: Cluster) -> Cluster:
    for predicate in CYCLE_INVARIANTS:
        assert predicate(cluster), predicate.__name__
    return cluster


def test_happy_path_assume_bind_confirm() -> None:
    c = cycle.add_node(new_cluster(), node("n1"))
    c = checked(cycle.create_pod(c, pod("p", 600)))
    c = checked(cycle.schedule_pod(c, "p", "n1"))
    assert c.cache.assumed_pods == {"p"} and c.cache.nodes["n1"].requested.milli_cpu == 600
    c = checked(cycle.bind_pod(c, "p"))
    assert c.api_pods["p"].node_name == "n1" and c.unconfirmed == {"p"}
    assert c.cache.pod_states["p"].binding_finished
    c = checked(cycle.confirm_binding(c, "p"))
    assert c.cache.assumed_pods == frozenset() and c.cache.pod_states["p"].pod.node_name == "n1"


def test_only_feasible_nodes_can_be_chosen() -> None:
    c = cycle.add_node(cycle.add_node(new_cluster(), node("small", cpu=500)), node("big"))
    c = cycle.create_pod(c, pod("p", 600))
    assert feasible_nodes(update_snapshot(c.cache, c.snapshot), c.pending["p"]) == ("big",)
    with pytest.raises(CycleNotEnabled):
        cycle.schedule_pod(c, "p", "small")
    with pytest.raises(CycleNotEnabled):
        cycle.fail_scheduling(c, "p", None, None)  # it fits somewhere


def test_filters_taints_ports_selector_and_cordon() -> None:
    taint = Taint("dedicated", "gpu")
    c = new_cluster()
    for n in (node("tainted", taints=(taint,)), node("cordoned", unschedulable=True),
              node("labelled", labels=FrozenMap({"disk": "ssd"}))):
        c = cycle.add_node(c, n)
    snapshot = update_snapshot(c.cache, c.snapshot)
    plain = pod("p", 100)
    assert feasible_nodes(snapshot, plain) == ("labelled",)
    tolerant = pod("q", 100, tolerations=(Toleration(operator="Exists"),))
    assert feasible_nodes(snapshot, tolerant) == ("tainted", "cordoned", "labelled")
    assert feasible_nodes(snapshot, pod("q", 100, node_selector=FrozenMap({"disk": "ssd"}))) == ("labelled",)
    assert feasible_nodes(snapshot, pod("q", 100, node_selector=FrozenMap({"disk": "hdd"}))) == ()
    ported = Pod("r", containers=(Container("c", ports=(ContainerPort(80, host_port=80),)),))
    c = cycle.bind_pod(cycle.schedule_pod(cycle.create_pod(c, ported), "r", "labelled"), "r")
    c = cycle.confirm_binding(c, "r")
    other = Pod("s", containers=(Container("c", ports=(ContainerPort(8, host_port=80, host_ip="10.0.0.1"),)),))
    assert feasible_nodes(update_snapshot(c.cache, c.snapshot), other) == ()


def test_unschedulable_pod_leaves_the_cache_alone_and_stays_pending() -> None:
    c = cycle.create_pod(cycle.add_node(new_cluster(), node("n1")), pod("p", 5000))
    after = checked(cycle.fail_scheduling(c, "p", None, None))
    assert trans_failed_scheduling_keeps_the_cache(c, after) and "p" in after.pending


@pytest.mark.parametrize("point", [FailurePoint.RESERVE, FailurePoint.PERMIT])
def test_reserve_or_permit_rejection_is_undone(point: FailurePoint) -> None:
    c = cycle.create_pod(cycle.add_node(new_cluster(), node("n1")), pod("p", 600))
    after = checked(cycle.fail_scheduling(c, "p", "n1", point))
    assert after.cache.generation > c.cache.generation  # assumed then forgotten...
    assert cache_contents(after.cache) == cache_contents(c.cache)  # ...holding what it held
    assert "p" in after.pending


@pytest.mark.parametrize("point", [FailurePoint.PRE_BIND, FailurePoint.BIND])
def test_failed_binding_forgets_and_requeues(point: FailurePoint) -> None:
    c = cycle.schedule_pod(cycle.create_pod(cycle.add_node(new_cluster(), node("n1")), pod("p", 600)), "p", "n1")
    after = checked(cycle.fail_binding(c, "p", point))
    assert "p" not in after.cache.pod_states and "p" in after.pending
    assert after.cache.nodes["n1"].requested.milli_cpu == 0


def test_deleting_an_assumed_pod_frees_its_node_at_once_from_v1_35() -> None:
    for profile, freed in ((V1_35, True), (V1_34, False)):
        c = cycle.add_node(new_cluster(profile), node("n1"))
        c = cycle.schedule_pod(cycle.create_pod(c, pod("p", 600)), "p", "n1")
        c = checked(cycle.delete_pod(c, "p"))
        assert (c.cache.nodes["n1"].requested.milli_cpu == 0) is freed
        with pytest.raises(CycleNotEnabled):
            cycle.bind_pod(c, "p")  # the API server no longer has the pod
        c = checked(cycle.fail_binding(c, "p", FailurePoint.BIND))  # a second ForgetPod is harmless
        assert "p" not in c.pending and c.cache.nodes["n1"].requested.milli_cpu == 0


def test_ttl_zero_keeps_the_node_from_being_overcommitted() -> None:
    c = overcommit_attempt(ttl=0)
    assert inv_no_node_overcommitted(c)


def test_a_non_zero_ttl_lets_a_late_confirmation_overcommit_the_node() -> None:
    """The known violation: the informer confirms p1 after its assumption expired and p2 took its place."""
    c = overcommit_attempt(ttl=1 * SECOND)
    assert not inv_no_node_overcommitted(c)
    assert c.cache.nodes["n1"].requested.milli_cpu == 1200 > c.cache.nodes["n1"].allocatable.milli_cpu


def overcommit_attempt(ttl: int) -> Cluster:
    c = cycle.add_node(new_cluster(V1_35, ttl=ttl), node("n1"))
    c = cycle.bind_pod(cycle.schedule_pod(cycle.create_pod(c, pod("p1", 600)), "p1", "n1"), "p1")
    c = cycle.tick(c, 2 * SECOND)  # p1's binding finished at 0; with a TTL of 1s it expires now
    c = cycle.create_pod(c, pod("p2", 600))
    feasible = feasible_nodes(update_snapshot(c.cache, c.snapshot), c.pending["p2"])
    if feasible:
        c = cycle.bind_pod(cycle.schedule_pod(c, "p2", "n1"), "p2")
    return cycle.confirm_binding(c, "p1")
