"""The model checker over crashes, restarts, several schedulers and the kubelets (spec.verify.cluster.system, and
spec.verify.cycle.system with crashes and kubelets): what holds everywhere, the shortest traces to the known
over-commits, and broken transitions caught."""

from __future__ import annotations

from dataclasses import replace
from functools import cache

import pytest

from spec.cluster import kubelet, restart
from spec.cluster.cluster import ENVIRONMENT_TRANSITIONS, SCHEDULER_TRANSITIONS
from spec.cluster.invariants import (
    inv_admitted_pods_fit_nodes,
    inv_bindings_fit_nodes,
    inv_crash_in_flight_pods_resolved,
    inv_synced_cache_matches_api_server,
)
from spec.cycle.cycle import Cluster, CycleNotEnabled, api_bind
from spec.cycle.invariants import inv_every_pod_has_one_place, inv_no_node_overcommitted
from spec.verify.checker import explore
from spec.verify.cluster.system import DEFAULT_CLUSTER_UNIVERSE, ClusterSystem, ClusterUniverse
from spec.verify.cycle.system import CycleSystem, CycleUniverse
from spec.verify.exploration import Report
from spec.versions import V1_34, VersionProfile

OVERCOMMIT = {inv_bindings_fit_nodes.__name__, inv_no_node_overcommitted.__name__}


@cache
def cluster_run(schedulers: int, crashes: bool, late_binds: bool, known: bool) -> Report:
    universe = ClusterUniverse(schedulers=schedulers, crashes=crashes, late_binds=late_binds)
    return explore(ClusterSystem(universe, known_violations=known), name="cluster", stop_at_first=False)


@pytest.mark.parametrize(("schedulers", "crashes"), [(1, False), (2, False), (1, True)])
def test_every_invariant_holds_in_every_reachable_state(schedulers: int, crashes: bool) -> None:
    report = cluster_run(schedulers, crashes, False, False)
    assert report.exhausted and report.violations == []
    assert report.states > 100


def test_one_scheduler_never_overcommits_even_checked_as_a_known_violation() -> None:
    report = cluster_run(1, False, False, True)
    assert report.exhausted and report.violations == []


def test_two_schedulers_overcommit_in_six_steps_and_the_kubelets_never_do() -> None:
    report = cluster_run(2, False, False, True)
    assert {v.property for v in report.violations} == OVERCOMMIT
    for violation in report.violations:
        assert len(violation.trace) == 6
        assert [s.action.split(":")[0] for s in violation.trace[:2]] == ["create_pod(p0 for default-scheduler)",
                                                                      "create_pod(p1 for scheduler-1)"]
    binding = next(v for v in report.violations if v.property == inv_bindings_fit_nodes.__name__)
    assert binding.trace[-1].action == "scheduler-1: bind_pod(p1)"
    assert inv_admitted_pods_fit_nodes.__name__ not in {v.property for v in report.violations}


def test_a_late_bind_overcommits_with_one_scheduler() -> None:
    report = cluster_run(1, True, True, True)
    assert {v.property for v in report.violations} == OVERCOMMIT
    violation = next(v for v in report.violations if v.property == inv_bindings_fit_nodes.__name__)
    trace = [s.action for s in violation.trace]
    assert "default-scheduler: crash_scheduler()" in trace and "land_orphaned_bind(p0)" in trace
    assert cluster_run(1, True, True, False).violations == []


@pytest.mark.parametrize("profile", [V1_34, DEFAULT_CLUSTER_UNIVERSE.profile], ids=lambda p: p.name)
def test_two_schedulers_with_graceful_deletions_keep_every_invariant(profile: VersionProfile) -> None:
    """terminate_pod handled by both schedulers' handlers (a binding in flight in either is refused at Bind, a pod
    bound by one is updated in both caches) and skip_pod in each: every invariant holds, and the graceful deletions
    reach states the run without them does not."""
    universe = ClusterUniverse(profile=profile)
    without = explore(ClusterSystem(universe), name="cluster", stop_at_first=False)
    report = explore(ClusterSystem(replace(universe, terminations=True)), name="cluster", stop_at_first=False)
    assert report.exhausted and report.violations == []
    assert report.coverage["terminate_pod: environment"] > 0 and report.coverage["skip_pod: scheduler"] > 0
    assert "terminate_pod: environment" not in without.coverage and report.states > without.states


def test_the_default_cluster_universe_is_two_schedulers_without_crashes() -> None:
    assert (DEFAULT_CLUSTER_UNIVERSE.schedulers, DEFAULT_CLUSTER_UNIVERSE.crashes) == (2, False)
    with pytest.raises(ValueError, match="schedulers"):
        ClusterUniverse(schedulers=0)


def test_the_cycle_system_covers_crashes_restarts_and_kubelets() -> None:
    universe = CycleUniverse(ttls=(0,), crashes=True, kubelet=True)
    report = explore(CycleSystem(universe), name="cycle", stop_at_first=False)
    assert report.exhausted and report.violations == []
    for name in ("crash_scheduler", "restart_scheduler", "list_node", "list_pod", "land_orphaned_bind",
                 "drop_orphaned_bind", "admit_pod"):
        assert any(key.startswith(f"{name}:") for key in report.coverage), name


def test_the_cycle_system_finds_the_late_bind_overcommit() -> None:
    universe = CycleUniverse(ttls=(0,), crashes=True, kubelet=True, late_binds=True)
    report = explore(CycleSystem(universe, known_violations=True), name="cycle", stop_at_first=False)
    assert {v.property for v in report.violations} == OVERCOMMIT
    assert min(len(v.trace) for v in report.violations) == 11


def test_a_kubelet_that_admits_everything_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(kubelet, "admission_reason", lambda pod, node, admitted: None)
    report = explore(ClusterSystem(ClusterUniverse()), name="cluster", stop_at_first=False)
    assert inv_admitted_pods_fit_nodes.__name__ in {v.property for v in report.violations}


def test_a_restart_that_forgets_unassigned_pods_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    original = restart.pod_list_order
    monkeypatch.setattr(restart, "pod_list_order",
                        lambda c: tuple(u for u in original(c) if c.api_pods[u].node_name))
    report = explore(ClusterSystem(ClusterUniverse(schedulers=1, crashes=True)), name="cluster", stop_at_first=False)
    assert inv_every_pod_has_one_place.__name__ in {v.property for v in report.violations}


def test_a_restart_that_drops_the_listed_bound_pods_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    """inv_synced_cache_matches_api_server can fail: a pod informer whose handler ignores assigned pods leaves
    the restarted cache without them."""
    original = restart.list_pod

    def list_pod(cluster: Cluster) -> Cluster:
        uid = cluster.unlisted_pods[0] if cluster.running and cluster.unlisted_pods else None
        if uid is not None and cluster.api_pods[uid].node_name:
            return replace(cluster, unlisted_pods=cluster.unlisted_pods[1:])
        return original(cluster)

    monkeypatch.setitem(SCHEDULER_TRANSITIONS, "list_pod", list_pod)
    report = explore(ClusterSystem(ClusterUniverse(schedulers=1, crashes=True)), name="cluster", stop_at_first=False)
    assert inv_synced_cache_matches_api_server.__name__ in {v.property for v in report.violations}


def test_a_late_bind_the_restarted_scheduler_never_hears_of_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    """inv_crash_in_flight_pods_resolved can fail: if the crashed process's bind lands after the restart and no
    watch event reaches the new process, the pod is bound but neither cached nor on its way."""

    def land_orphaned_bind(cluster: Cluster, uid: str) -> Cluster:
        rest = replace(cluster, orphaned=cluster.orphaned.remove(uid))
        try:
            return api_bind(rest, cluster.orphaned[uid])
        except CycleNotEnabled:
            return rest

    monkeypatch.setitem(ENVIRONMENT_TRANSITIONS, "land_orphaned_bind", land_orphaned_bind)
    universe = ClusterUniverse(schedulers=1, crashes=True, late_binds=True)
    report = explore(ClusterSystem(universe), name="cluster", stop_at_first=False)
    assert inv_crash_in_flight_pods_resolved.__name__ in {v.property for v in report.violations}
