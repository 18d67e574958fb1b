"""PodDisruptionBudgets in the cycle transition system (spec/cycle/cycle.py: ``add_pdb`` and ``post_filter``).

The expected values follow Kubernetes v1.35: DefaultPreemption lists the budgets (``getPodDisruptionBudgets``) in
every PostFilter, ``SelectVictimsOnNode`` reprieves the budget-violating pods first and counts the violations
(``filterPodsWithPDBViolation``), and ``pickOneNodeForPreemption`` takes the node with the fewest violations first
(default_preemption.go, preemption.go).
"""

from __future__ import annotations

from conformance.scenarios.cycle import node, pod
from spec.cluster import restart
from spec.cycle import cycle
from spec.cycle.cycle import Cluster, new_cluster
from spec.frozenmap import FrozenMap
from spec.objects import Pod, PodDisruptionBudget
from spec.valuetypes import replace

FOO = FrozenMap({"app": "foo"})


def _pod(uid: str, cpu: int, priority: int, labels: FrozenMap[str, str] = FrozenMap()) -> Pod:
    return replace(pod(uid, cpu), priority=priority, labels=labels)


def placed(cluster: Cluster, p: Pod, name: str) -> Cluster:
    cluster = cycle.create_pod(cluster, p)
    cluster = cycle.schedule_pod(cluster, p.uid, name)
    return cycle.confirm_binding(cycle.bind_pod(cluster, p.uid), p.uid)


def two_nodes(allowed: int | None) -> Cluster:
    """n1 holds "a" (priority 1, app=foo), n2 holds "q" (priority 5); a budget over app=foo allowing ``allowed``
    disruptions (None: no budget), and a pending preemptor "p" (priority 10) that needs a whole node."""
    cluster = new_cluster(preemption=True)
    cluster = cycle.add_node(cycle.add_node(cluster, node("n1")), node("n2"))
    if allowed is not None:
        cluster = cycle.add_pdb(cluster, PodDisruptionBudget("pdb", selector=FOO, disruptions_allowed=allowed))
    cluster = placed(placed(cluster, _pod("a", 1000, 1, FOO), "n1"), _pod("q", 1000, 5), "n2")
    return cycle.create_pod(cluster, _pod("p", 1000, 10))


def nominated_node(cluster: Cluster) -> str:
    return cluster.nominator.pod_to_node["p"]


def test_add_pdb_creates_then_replaces_by_namespace_and_name_and_touches_no_scheduler_state() -> None:
    c = new_cluster(preemption=True)
    created = cycle.add_pdb(c, PodDisruptionBudget("pdb", selector=FOO))
    assert dict(created.pdbs.items()) == {"default/pdb": PodDisruptionBudget("pdb", selector=FOO)}
    replaced = cycle.add_pdb(created, PodDisruptionBudget("pdb", selector=FOO, disruptions_allowed=2))
    assert replaced.pdbs["default/pdb"].disruptions_allowed == 2 and len(replaced.pdbs) == 1
    other = cycle.add_pdb(replaced, PodDisruptionBudget("pdb", namespace="other"))
    assert set(other.pdbs) == {"default/pdb", "other/pdb"}
    assert (other.cache, other.pending, other.nominator) == (c.cache, c.pending, c.nominator)


def test_a_violating_victim_loses_to_a_clean_node() -> None:
    assert nominated_node(cycle.fail_scheduling(two_nodes(None), "p", None, None)) == "n1"
    assert nominated_node(cycle.fail_scheduling(two_nodes(1), "p", None, None)) == "n1"
    after = cycle.fail_scheduling(two_nodes(0), "p", None, None)
    assert nominated_node(after) == "n2" and "q" in after.deleted and "a" in after.api_pods


def test_budgets_survive_a_crash_and_restart() -> None:
    cluster = restart.restart_scheduler(restart.crash_scheduler(two_nodes(0)))
    while cluster.unlisted_nodes:
        cluster = restart.list_node(cluster)
    while cluster.unlisted_pods:
        cluster = restart.list_pod(cluster)
    assert "default/pdb" in cluster.pdbs
    assert nominated_node(cycle.fail_scheduling(cluster, "p", None, None)) == "n2"
