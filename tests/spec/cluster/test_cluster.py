"""Several schedulers over one API server (spec.cluster.cluster): each takes its own pods, each sees every binding, and
together they may over-commit a node that its kubelet then protects."""

from __future__ import annotations

import pytest

from spec.cluster import cluster
from spec.cluster.cluster import KubeCluster, environment_step, new_kube_cluster, scheduler_step, view, views
from spec.cluster.invariants import (
    CLUSTER_INVARIANTS,
    inv_admitted_pods_fit_nodes,
    inv_bindings_fit_nodes,
)
from spec.cycle.cycle import CycleNotEnabled
from spec.cycle.invariants import CYCLE_INVARIANTS, inv_no_node_overcommitted
from spec.objects import Container, Node, Pod
from spec.quantities import resource_list

N1 = Node("n1", resource_list(cpu=1000, memory=2**30, pods=4))


def pod(uid: str, scheduler: int, cpu: int = 600) -> Pod:
    return Pod(uid, f"pod-{uid}", containers=(Container("c", resource_list(cpu=cpu)),),
               scheduler_name=cluster.scheduler_name(scheduler))


def checked(k: KubeCluster) -> KubeCluster:
    for member in views(k):
        for predicate in (*CYCLE_INVARIANTS, *CLUSTER_INVARIANTS):
            assert predicate(member), predicate.__name__
    return k


def two_schedulers_overcommit() -> KubeCluster:
    """The model checker's shortest trace (ksspec check --system cluster --known-violations)."""
    k = new_kube_cluster(2, (N1,))
    k = environment_step(k, "create_pod", pod("p0", 0))
    k = checked(environment_step(k, "create_pod", pod("p1", 1)))
    k = checked(scheduler_step(k, 0, "schedule_pod", "p0", "n1"))
    k = checked(scheduler_step(k, 0, "bind_pod", "p0"))
    k = checked(scheduler_step(k, 1, "schedule_pod", "p1", "n1"))  # scheduler-1 has not seen p0 yet
    return checked(scheduler_step(k, 1, "bind_pod", "p1"))


def test_each_scheduler_takes_only_its_own_pods() -> None:
    k = environment_step(environment_step(new_kube_cluster(2, (N1,)), "create_pod", pod("a", 0)), "create_pod",
                         pod("b", 1))
    assert set(view(k, 0).pending) == {"a"} and set(view(k, 1).pending) == {"b"}
    with pytest.raises(CycleNotEnabled):
        scheduler_step(k, 1, "schedule_pod", "a", "n1")


def test_every_scheduler_receives_every_binding() -> None:
    k = two_schedulers_overcommit()
    assert view(k, 0).unconfirmed == {"p0", "p1"} and view(k, 1).unconfirmed == {"p0", "p1"}
    k = checked(scheduler_step(k, 1, "confirm_binding", "p0"))
    assert view(k, 1).cache.nodes["n1"].requested.milli_cpu == 1200  # scheduler-1's cache over-commits n1
    assert not inv_no_node_overcommitted(view(k, 1)) and inv_no_node_overcommitted(view(k, 0))


def test_two_schedulers_overcommit_a_node_and_its_kubelet_rejects_one_pod() -> None:
    k = two_schedulers_overcommit()
    assert not inv_bindings_fit_nodes(view(k, 0))
    k = checked(environment_step(k, "admit_pod", "p1"))
    with pytest.raises(CycleNotEnabled):
        environment_step(k, "admit_pod", "p0")  # rejected, but its binding has not reached the schedulers
    for index in (0, 1):
        k = checked(scheduler_step(k, index, "confirm_binding", "p0"))
        k = checked(scheduler_step(k, index, "confirm_binding", "p1"))
    k = checked(environment_step(k, "admit_pod", "p0"))
    assert dict(k.api.failed) == {"p0": "OutOfcpu"} and k.api.admitted == {"p1"}
    for member in views(k):
        assert set(member.cache.pod_states) == {"p1"}  # the Failed pod left every cache
        assert inv_no_node_overcommitted(member) and inv_bindings_fit_nodes(member)
        assert inv_admitted_pods_fit_nodes(member)


def test_one_scheduler_does_not_overcommit_the_same_node() -> None:
    k = new_kube_cluster(1, (N1,))
    k = environment_step(environment_step(k, "create_pod", pod("p0", 0)), "create_pod", pod("p1", 0))
    k = scheduler_step(scheduler_step(k, 0, "schedule_pod", "p0", "n1"), 0, "bind_pod", "p0")
    with pytest.raises(CycleNotEnabled):
        scheduler_step(k, 0, "schedule_pod", "p1", "n1")  # its cache holds p0 assumed


def test_a_crashed_scheduler_sees_nothing_and_catches_up_at_restart() -> None:
    k = scheduler_step(two_schedulers_overcommit(), 1, "crash_scheduler")
    k = checked(environment_step(k, "admit_pod", "p1"))
    k = scheduler_step(k, 1, "restart_scheduler")
    assert view(k, 1).unlisted_pods == ("p0", "p1") and view(k, 1).unlisted_nodes == ("n1",)
    for step in ("list_pod", "list_pod", "list_node"):
        k = checked(scheduler_step(k, 1, step))
    assert set(view(k, 1).cache.pod_states) == {"p0", "p1"}


def test_the_views_share_the_api_server_and_nothing_else() -> None:
    k = two_schedulers_overcommit()
    assert view(k, 0).api_pods == view(k, 1).api_pods and view(k, 0).cache != view(k, 1).cache
    assert k.api.cache == view(new_kube_cluster(1), 0).cache.__class__()  # the API part holds no scheduler
    with pytest.raises(ValueError, match="at least one scheduler"):
        new_kube_cluster(0)
    with pytest.raises(KeyError):
        environment_step(k, "schedule_pod", "p0", "n1")
