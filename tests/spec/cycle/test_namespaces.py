"""Namespaces in the cycle's cluster: InterPodAffinity's namespace selectors read the labels the cluster holds
(``mergeAffinityTermNamespacesIfNotEmpty``, ``GetNamespaceLabelsSnapshot``, plugin.go), and a relabelled namespace
changes the next cycle's verdict."""

from __future__ import annotations

import pytest

from spec.cluster import restart
from spec.cycle import cycle
from spec.cycle.cycle import Cluster, CycleNotEnabled, feasible_nodes, new_cluster, refreshed_snapshot
from spec.cycle.interpodaffinity import ERR_REASON_AFFINITY_RULES_NOT_MATCH
from spec.cycle.select import schedule_decision
from spec.frozenmap import FrozenMap
from spec.objects import (
    Container,
    LabelSelector,
    Namespace,
    Node,
    Pod,
    PodAffinityTerm,
    WeightedPodAffinityTerm,
    pod_affinity,
)
from spec.quantities import resource_list

TEAM_A = LabelSelector(FrozenMap({"team": "a"}))
NEAR_DB = PodAffinityTerm(LabelSelector(FrozenMap({"app": "db"})), topology_key="zone", namespace_selector=TEAM_A)
"""In the zone of a pod labelled app=db of a namespace labelled team=a."""


def node(name: str, zone: str) -> Node:
    return Node(name, resource_list(cpu=4000, memory=2**30, pods=10), labels=FrozenMap({"zone": zone}))


def pod(uid: str, **fields: object) -> Pod:
    return Pod(uid, f"pod-{uid}", containers=(Container("c", resource_list(cpu=100)),), **fields)  # type: ignore[arg-type]


def with_db(team: str) -> Cluster:
    """Nodes n1 (zone z1) and n2 (zone z2), namespace ``data`` labelled team=``team``, and pod db of ``data`` bound
    and confirmed on n1."""
    c = cycle.add_node(cycle.add_node(new_cluster(), node("n1", "z1")), node("n2", "z2"))
    c = cycle.add_namespace(c, Namespace("data", FrozenMap({"team": team})))
    c = cycle.create_pod(c, pod("db", namespace="data", labels=FrozenMap({"app": "db"})))
    return cycle.confirm_binding(cycle.bind_pod(cycle.schedule_pod(c, "db", "n1"), "db"), "db")


def test_add_namespace_creates_then_replaces_the_labels_and_touches_no_scheduler_state() -> None:
    c = new_cluster()
    created = cycle.add_namespace(c, Namespace("data", FrozenMap({"team": "b"})))
    assert created.namespaces == FrozenMap({"data": FrozenMap({"team": "b"})})
    relabelled = cycle.add_namespace(created, Namespace("data", FrozenMap({"team": "a"})))
    assert relabelled.namespaces == FrozenMap({"data": FrozenMap({"team": "a"})})
    assert (relabelled.cache, relabelled.snapshot, relabelled.pending) == (c.cache, c.snapshot, c.pending)


def test_a_required_namespace_selector_selects_only_after_the_relabelling() -> None:
    c = cycle.create_pod(with_db("b"), pod("app", pod_affinity=pod_affinity(required=(NEAR_DB,))))
    app = c.pending["app"]
    assert feasible_nodes(refreshed_snapshot(c), app, c.namespaces) == ()  # the selector selects no namespace
    with pytest.raises(CycleNotEnabled):
        cycle.schedule_pod(c, "app", "n1")
    failed = cycle.fail_scheduling(c, "app", None, None)
    assert schedule_decision(failed.snapshot, app, namespaces=failed.namespaces).message == (
        f"0/2 nodes are available: 2 {ERR_REASON_AFFINITY_RULES_NOT_MATCH}.")
    c = cycle.add_namespace(c, Namespace("data", FrozenMap({"team": "a"})))
    assert feasible_nodes(refreshed_snapshot(c), app, c.namespaces) == ("n1",)  # db's zone only
    assert cycle.schedule_pod(c, "app", "n1").binding["app"].node_name == "n1"
    with pytest.raises(CycleNotEnabled):
        cycle.schedule_pod(c, "app", "n2")


def test_an_existing_pods_anti_affinity_reads_the_incoming_pods_namespace_labels() -> None:
    no_web = PodAffinityTerm(LabelSelector(FrozenMap({"app": "web"})), topology_key="zone",
                             namespace_selector=LabelSelector(FrozenMap({"env": "prod"})))
    c = cycle.add_node(cycle.add_node(new_cluster(), node("n1", "z1")), node("n2", "z2"))
    c = cycle.add_namespace(c, Namespace("shop", FrozenMap({"env": "prod"})))
    c = cycle.create_pod(c, pod("guard", pod_anti_affinity=pod_affinity(required=(no_web,))))
    c = cycle.confirm_binding(cycle.bind_pod(cycle.schedule_pod(c, "guard", "n1"), "guard"), "guard")
    c = cycle.create_pod(c, pod("web", namespace="shop", labels=FrozenMap({"app": "web"})))
    assert feasible_nodes(refreshed_snapshot(c), c.pending["web"], c.namespaces) == ("n2",)
    c = cycle.add_namespace(c, Namespace("shop", FrozenMap({"env": "dev"})))
    assert feasible_nodes(refreshed_snapshot(c), c.pending["web"], c.namespaces) == ("n1", "n2")


def test_a_preferred_namespace_selector_scores_only_with_the_namespace() -> None:
    """InterPodAffinity (weight 2) normalises db's zone to 100 and the other to 0; with no namespace selected its
    PreScore skips, and it gives no score."""
    near = WeightedPodAffinityTerm(10, NEAR_DB)
    c = cycle.create_pod(with_db("b"), pod("app", pod_affinity=pod_affinity(preferred=(near,))))
    app = c.pending["app"]
    unselected = schedule_decision(refreshed_snapshot(c), app, namespaces=c.namespaces)
    assert all("InterPodAffinity" not in dict(s.plugins) for s in unselected.scores)
    c = cycle.add_namespace(c, Namespace("data", FrozenMap({"team": "a"})))
    selected = schedule_decision(refreshed_snapshot(c), app, namespaces=c.namespaces)
    assert {s.node: dict(s.plugins)["InterPodAffinity"] for s in selected.scores} == {"n1": 200, "n2": 0}


def test_a_restart_keeps_the_namespaces() -> None:
    """Namespaces are the API server's: a crash loses none, and the restarted scheduler's lister lists them."""
    c = cycle.create_pod(with_db("a"), pod("app", pod_affinity=pod_affinity(required=(NEAR_DB,))))
    down = restart.crash_scheduler(c)
    up = restart.restart_scheduler(down)
    while up.unlisted_nodes:
        up = restart.list_node(up)
    while up.unlisted_pods:
        up = restart.list_pod(up)
    assert down.namespaces == up.namespaces == c.namespaces
    assert feasible_nodes(refreshed_snapshot(up), up.pending["app"], up.namespaces) == ("n1",)
