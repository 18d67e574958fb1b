"""A scheduler that crashes and restarts (spec.cluster.restart): what is lost, what is rebuilt, and what may land
late."""

from __future__ import annotations

import pytest

from spec.cluster import restart
from spec.cluster.invariants import (
    CLUSTER_INVARIANTS,
    cache_built_from_api_server,
    cached_placements,
    inv_bindings_fit_nodes,
    inv_crash_in_flight_pods_resolved,
    inv_no_pod_bound_twice,
    inv_synced_cache_matches_api_server,
    without_assumptions,
)
from spec.cycle import cycle
from spec.cycle.cycle import Cluster, CycleNotEnabled, FailurePoint, is_synced, new_cluster
from spec.cycle.invariants import CYCLE_INVARIANTS, inv_no_node_overcommitted
from spec.objects import Container, Node, Pod
from spec.quantities import resource_list


def node(name: str, cpu: int = 1000) -> Node:
    return Node(name, resource_list(cpu=cpu, memory=2**30, pods=4))


def pod(uid: str, cpu: int = 600, **fields: object) -> Pod:
    return Pod(uid, f"pod-{uid}", containers=(Container("c", resource_list(cpu=cpu)),), **fields)  # type: ignore[arg-type]


def checked(cluster: Cluster) -> Cluster:
    for predicate in (*CYCLE_INVARIANTS, *CLUSTER_INVARIANTS, inv_no_node_overcommitted):
        assert predicate(cluster), predicate.__name__
    return cluster


def synced_again(cluster: Cluster) -> Cluster:
    """Deliver every listed node, then every listed pod."""
    while cluster.unlisted_nodes:
        cluster = checked(restart.list_node(cluster))
    while cluster.unlisted_pods:
        cluster = checked(restart.list_pod(cluster))
    return cluster


def busy_cluster() -> Cluster:
    """Two nodes; p confirmed on n1, q bound to n2 (unconfirmed), r in its binding cycle on n2, s pending."""
    c = cycle.add_node(cycle.add_node(new_cluster(), node("n1")), node("n2"))
    for p in (pod("p"), pod("q", 300), pod("r", 300), pod("s", 900)):
        c = cycle.create_pod(c, p)
    c = cycle.confirm_binding(cycle.bind_pod(cycle.schedule_pod(c, "p", "n1"), "p"), "p")
    c = cycle.bind_pod(cycle.schedule_pod(c, "q", "n2"), "q")
    return checked(cycle.schedule_pod(c, "r", "n2"))


def test_a_crash_loses_all_memory_and_leaves_the_binding_cycles_requests_behind() -> None:
    c = checked(restart.crash_scheduler(busy_cluster()))
    assert not c.running and not c.cache.pod_states and not c.cache.nodes
    assert not c.pending and not c.binding and c.unconfirmed == frozenset()
    assert set(c.orphaned) == {"r"} and c.orphaned["r"].node_name == "n2"
    assert c.crashed_in_flight == {"r"}
    assert c.api_pods["p"].node_name == "n1" and c.api_pods["q"].node_name == "n2"  # the API server keeps all
    with pytest.raises(CycleNotEnabled):
        restart.crash_scheduler(c)
    with pytest.raises(CycleNotEnabled):
        restart.list_pod(c)


def test_a_restart_lists_nodes_and_pods_and_schedules_only_once_synced() -> None:
    c = restart.restart_scheduler(restart.drop_orphaned_bind(restart.crash_scheduler(busy_cluster()), "r"))
    assert c.running and not is_synced(c)
    assert c.unlisted_nodes == ("n1", "n2")
    assert c.unlisted_pods == ("p", "q", "r", "s")  # by namespace/name: pod-p, pod-q, ...
    c = checked(restart.list_pod(c))  # a pod may be delivered before its node: a placeholder NodeInfo
    assert c.cache.nodes["n1"].node is None and c.cache.nodes["n1"].requested.milli_cpu == 600
    c = checked(restart.list_pod(restart.list_pod(c)))  # q (bound) to the cache, r (unbound again) to the queue
    assert set(c.pending) == {"r"} and c.cache.pod_states["q"].pod.node_name == "n2"
    with pytest.raises(CycleNotEnabled):
        cycle.schedule_pod(c, "r", "n2")  # WaitForHandlersSync
    c = synced_again(c)
    assert is_synced(c) and set(c.pending) == {"r", "s"}
    assert cached_placements(c.cache) == cached_placements(cache_built_from_api_server(c))
    c = checked(cycle.schedule_pod(c, "r", "n2"))
    with pytest.raises(CycleNotEnabled):
        cycle.schedule_pod(c, "s", "n2")  # q and r hold 600m of n2's 1000m


def test_events_of_objects_not_delivered_yet_are_absorbed_by_their_delivery() -> None:
    c = restart.restart_scheduler(restart.land_orphaned_bind(restart.crash_scheduler(busy_cluster()), "r"))
    assert c.api_pods["r"].node_name == "n2" and c.bind_count["r"] == 1
    c = checked(cycle.delete_pod(c, "q"))  # not delivered yet: it simply is not listed any more
    assert "q" not in c.unlisted_pods
    c = checked(cycle.update_node(c, node("n2", cpu=2000)))  # delivered later as it is now
    c = checked(cycle.create_pod(c, pod("t")))  # a watch event after the list: queued at once
    assert "t" in c.pending
    c = synced_again(c)
    assert c.cache.nodes["n2"].allocatable.milli_cpu == 2000
    assert set(c.cache.pod_states) == {"p", "r"} and set(c.pending) == {"s", "t"}


def test_a_pod_created_while_the_scheduler_is_down_is_listed_at_restart() -> None:
    c = restart.crash_scheduler(cycle.add_node(new_cluster(), node("n1")))
    c = checked(cycle.create_pod(c, pod("p")))
    assert not c.pending and "p" in c.api_pods
    c = synced_again(restart.restart_scheduler(c))
    assert set(c.pending) == {"p"}


def test_an_orphaned_bind_landing_after_the_successor_scheduled_the_pod_conflicts() -> None:
    """The bind request of the crashed process lands after its successor listed the pod as unbound and
    scheduled it elsewhere: the successor's bind gets a Conflict, the pod is bound once, where the orphan put
    it, and the cache ends with it there."""
    c = cycle.add_node(cycle.add_node(new_cluster(), node("n1")), node("n2"))
    c = cycle.schedule_pod(cycle.create_pod(c, pod("p")), "p", "n1")
    c = synced_again(restart.restart_scheduler(restart.crash_scheduler(c)))
    c = checked(cycle.schedule_pod(c, "p", "n2"))
    c = checked(restart.land_orphaned_bind(c, "p"))
    assert c.api_pods["p"].node_name == "n1" and "p" in c.unconfirmed and "p" in c.binding
    with pytest.raises(CycleNotEnabled):
        cycle.bind_pod(c, "p")  # pods/binding: "pod p is already assigned to node n1"
    c = checked(cycle.fail_binding(c, "p", FailurePoint.BIND))
    assert "p" not in c.pending  # bound: not requeued
    c = checked(cycle.confirm_binding(c, "p"))
    assert c.cache.pod_states["p"].pod.node_name == "n1" and c.cache.assumed_pods == frozenset()
    assert dict(c.bind_count) == {"p": 1} and inv_no_pod_bound_twice(c)


def test_an_orphaned_bind_landing_after_the_successor_listed_the_pod_can_overcommit() -> None:
    """Without the assumption that a crashed scheduler's requests are answered before its successor lists the
    pods, a late bind over-commits the node even with one scheduler (the kubelet rejects one of the two)."""
    c = cycle.add_node(new_cluster(), node("n1"))
    c = cycle.schedule_pod(cycle.create_pod(cycle.create_pod(c, pod("p")), pod("q")), "p", "n1")
    c = synced_again(restart.restart_scheduler(restart.crash_scheduler(c)))
    c = cycle.bind_pod(cycle.schedule_pod(c, "q", "n1"), "q")
    c = restart.land_orphaned_bind(c, "p")
    assert not inv_bindings_fit_nodes(c)
    assert all(predicate(c) for predicate in CLUSTER_INVARIANTS)
    c = cycle.confirm_binding(cycle.confirm_binding(c, "q"), "p")
    assert not inv_no_node_overcommitted(c) and inv_synced_cache_matches_api_server(c)


def test_the_pod_in_flight_ends_pending_or_bound_and_confirmed() -> None:
    start = restart.crash_scheduler(busy_cluster())
    dropped = synced_again(restart.restart_scheduler(restart.drop_orphaned_bind(start, "r")))
    assert "r" in dropped.pending and inv_crash_in_flight_pods_resolved(dropped)
    landed = synced_again(restart.restart_scheduler(restart.land_orphaned_bind(start, "r")))
    assert landed.cache.pod_states["r"].pod.node_name == "n2" and "r" not in landed.cache.assumed_pods
    assert inv_crash_in_flight_pods_resolved(landed)


def test_the_crash_invariants_catch_what_they_are_about() -> None:
    synced = synced_again(restart.restart_scheduler(restart.drop_orphaned_bind(restart.crash_scheduler(
        busy_cluster()), "r")))
    lost = synced.__class__(**{**synced.__dict__, "pending": synced.pending.remove("r")})
    assert not inv_crash_in_flight_pods_resolved(lost)
    twice = synced.__class__(**{**synced.__dict__, "bind_count": synced.bind_count.set("q", 2)})
    assert not inv_no_pod_bound_twice(twice)
    stale = synced.__class__(**{**synced.__dict__, "api_pods": synced.api_pods.remove("p"),
                                "deleted": synced.deleted | {"p"}})
    assert not inv_synced_cache_matches_api_server(stale)
    assert without_assumptions(synced.cache) == synced.cache
