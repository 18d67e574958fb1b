"""The spec agrees with what Kubernetes' own table tests expect, for the cases ported as vectors.

The ported vectors' expectations are the spec's (the generator runs it). Here the observations of those vectors are
compared with the values the Go tests state (``want``, ``expected``, ``wNodeInfo`` in k8s.io/kubernetes@v1.35.0),
typed from the Go source, so a disagreement between the spec and Kubernetes fails a test naming the Go case.
"""

from __future__ import annotations

from functools import cache
from typing import Any

import pytest

from conformance.format import Vector, load_vectors
from conformance.observe import merge_patch
from conformance.ported.common import slug

MI = 2**20
DEFAULT_CPU, DEFAULT_MEMORY = 100, 200 * MI


@cache
def by_id() -> dict[str, Vector]:
    return {v.id: v for v in load_vectors()}


def observations(prefix: str) -> list[Any]:
    """Each step's full observation in the (first profile group's) vector whose id starts with ``prefix``."""
    vector = by_id().get(prefix) or next(v for i, v in sorted(by_id().items()) if i.startswith(prefix + "."))
    full, out = vector.initial_observation, []
    for step in vector.steps:
        full = merge_patch(full, step.expect.observation)
        out.append(full)
    return out


def go(area: str, test: str, case: str) -> str:
    """The id (or id prefix, for vectors split by profile) of the port of Go case ``case`` of ``test``."""
    return f"{area}.ported.{slug(test.removeprefix('Test'))}.{slug(case)}"


def resources(node: Any) -> tuple[int, int, int, int, int]:
    r, n = node["requested"], node["non_zero_requested"]
    return r["milli_cpu"], r["memory"], r["ephemeral_storage"], n["milli_cpu"], n["memory"]


def test_node_info_add_pod() -> None:
    """TestNodeInfoAddPod's expected NodeInfo."""
    node = observations("cache.ported.node_info_add_pod.three_pods_with_overhead_claims_and_an_init_container")[-1]
    info = node["nodes"]["test-node"]
    assert resources(info) == (2300, 209716700, 0, 2300, 419431900)
    assert info["used_ports"] == [["127.0.0.1", "TCP", 80], ["127.0.0.1", "TCP", 8080]]
    assert info["pvc_ref_counts"] == {"node_info_cache_test/pvc-1": 2, "node_info_cache_test/pvc-2": 1}


def test_node_info_remove_pod() -> None:
    """TestNodeInfoRemovePod: 1300m/2524 before, 600m/1524... after removing test-1 (its expectedNodeInfo)."""
    steps = observations("cache.ported.node_info_remove_pod.test_1")
    assert resources(steps[-2]["nodes"]["test-node"]) == (1300, 2524, 0, 1300, 2524)
    after = steps[-1]["nodes"]["test-node"]
    assert resources(after) == (700, 1524, 0, 700, 1524)
    assert after["used_ports"] == [["127.0.0.1", "TCP", 8080]] and after["pvc_ref_counts"] == {}


MB = 10**6


@pytest.mark.parametrize(("case", "want"), [
    ("requestless container", (0, 0, 0, DEFAULT_CPU, DEFAULT_MEMORY)),
    ("1X container with requests", (500, 500 * MB, 0, 500, 500 * MB)),
    ("2X container with requests", (1200, 1300 * MB, 0, 1200, 1300 * MB)),
    ("1X container and 1X init container with pod-level requests", (1200, 1200 * MB, 0, 1200, 1200 * MB)),
    ("1X container and 1X sidecar container with pod-level requests", (1200, 1200 * MB, 0, 1200, 1200 * MB)),
    ("1X container with pod-level memory requests", (0, 1200 * MB, 0, DEFAULT_CPU, 1200 * MB)),
    ("1X container with pod-level cpu requests", (500, 0, 0, 500, DEFAULT_MEMORY)),
    ("1X container unsupported resources and pod-level supported resources", (500, 0, 800 * MB, 500, DEFAULT_MEMORY)),
])
def test_pod_info_calculate_resources(case: str, want: tuple[int, ...]) -> None:
    """TestPodInfoCalculateResources: expectedResource of each case."""
    assumed = observations(go("cache", "TestPodInfoCalculateResources", case))[0]
    assert resources(assumed["nodes"]["test-node"]) == want


LOCAL = "127.0.0.1"


@pytest.mark.parametrize(("case", "want", "scalars", "ports"), [
    ("assumed_one_pod_with_resource_request_and_used_ports", (100, 500, 0, 100, 500), {}, [80]),
    ("node_requested_resource_are_equal_to_the_sum_of_the_assumed_pods",
     (300, 1524, 0, 300, 1524), {}, [80, 8080]),
    ("assumed_pod_without_resource_request", (0, 0, 0, DEFAULT_CPU, DEFAULT_MEMORY), {}, [80]),
    ("assumed_one_pod_with_extended_resource", (100, 500, 0, 100, 500), {"example.com/foo": 3}, [80]),
    ("assumed_two_pods_with_extended_resources", (300, 1524, 0, 300, 1524), {"example.com/foo": 8}, [80, 8080]),
    ("assumed_pod_with_random_invalid_extended_resource_key", (100, 500, 0, 100, 500), {}, []),
])
def test_assume_pod_scheduled(case: str, want: tuple[int, ...], scalars: dict[str, int], ports: list[int]) -> None:
    """TestAssumePodScheduled: wNodeInfo after the pods are assumed (each is assumed twice; the second fails)."""
    steps = observations(f"cache.ported.assume_pod_scheduled.{case}")
    pods = len(steps) // 3
    info = steps[2 * pods - 1]["nodes"]["node"]
    assert resources(info) == want and info["requested"]["scalars"] == scalars
    assert info["used_ports"] == [[LOCAL, "TCP", p] for p in ports]
    assert steps[-1]["nodes"] == {}  # forgotten from the cache


def test_expire_pod() -> None:
    """TestExpirePod: the first pod expires; test-3 (not finished) and test-2 (deadline later) stay, in that order."""
    assert observations("cache.ported.expire_pod.assumed_pod_would_expire")[-1]["nodes"] == {}
    steps = observations("cache.ported.expire_pod.first_one_would_expire_second_and_third_would_not")
    info = steps[-1]["nodes"]["node"]
    assert resources(info) == (400, 2048, 0, 400, 2048) and info["pods"] == ["test-3", "test-2"]
    assert info["used_ports"] == [[LOCAL, "TCP", 8080]]
    never = observations("cache.ported.expire_pod.assumed_pod_would_never_expire")[-1]["nodes"]["node"]
    assert never["pods"] == ["test-1"]


@pytest.mark.parametrize(("case", "want"), [
    ("container_port_without_host_port", []), ("host_port_on_an_empty_node", [8001]),
    ("second_host_port", [8001, 8002]), ("init_container_port_not_recorded", []),
    ("init_container_port_beside_a_used_port", [8001]), ("sidecar_port_recorded", [8001]),
    ("sidecar_port_already_used", [8001]), ("sidecar_port_beside_a_used_port", [8001, 8002]),
])
def test_update_used_ports_pod_add(case: str, want: list[int]) -> None:
    """TestUpdateUsedPorts_PodAdd: want."""
    info = observations(f"cache.ported.update_used_ports_pod_add.{case}")[-1]["nodes"]["test-node"]
    assert info["used_ports"] == [["0.0.0.0", "TCP", p] for p in want]


@pytest.mark.parametrize(("case", "want"), [
    ("container_port_without_host_port", []), ("the_only_host_port", []), ("a_port_beside_the_used_one", [8001]),
    ("a_port_another_pod_also_holds", [8001]), ("init_container_port", [8001]),
    ("sidecar_port_another_pod_also_holds", []), ("sidecar_port_beside_a_used_port", [8001]),
    ("sidecar_port_of_two_used_ports", [8001]),
])
def test_update_used_ports_pod_remove(case: str, want: list[int]) -> None:
    """TestUpdateUsedPorts_PodRemove: want (the starting ports are a first pod's)."""
    info = observations(f"cache.ported.update_used_ports_pod_remove.{case}")[-1]["nodes"]["test-node"]
    assert info["used_ports"] == [["0.0.0.0", "TCP", p] for p in want]


@pytest.mark.parametrize(("prefix", "want"), [
    ("node_tree.ported.node_tree_list.empty_tree", []),
    ("node_tree.ported.node_tree_list.one_node", ["node-0"]),
    ("node_tree.ported.node_tree_list.four_nodes", ["node-0", "node-1", "node-2", "node-3"]),
    ("node_tree.ported.node_tree_list.all_nodes",
     ["node-0", "node-1", "node-2", "node-3", "node-5", "node-6", "node-4", "node-7", "node-8"]),
    ("node_tree.ported.node_tree_multi_operations.add_and_remove_all_nodes", []),
    ("node_tree.ported.node_tree_multi_operations.add_and_remove_some_nodes", ["node-3", "node-4"]),
    ("node_tree.ported.node_tree_multi_operations.remove_three_nodes", ["node-5"]),
    ("node_tree.ported.node_tree_multi_operations.add_more_nodes_to_an_exhausted_zone",
     ["node-4", "node-5", "node-6", "node-3", "node-7", "node-8"]),
    ("node_tree.ported.node_tree_multi_operations.remove_zone_and_add_new", ["node-6", "node-7"]),
    ("node_tree.ported.scheduler_cache_update_node_info_snapshot_list.single_node", ["node-0"]),
    ("node_tree.ported.scheduler_cache_update_node_info_snapshot_list.two_nodes", ["node-0", "node-1"]),
    (go("node_tree", "TestSchedulerCache_updateNodeInfoSnapshotList", "bug 91601, two nodes, update the snapshot "
        "and add two nodes in different zones"), ["node-2", "node-0", "node-3", "node-4"]),
    ("node_tree.ported.scheduler_cache_update_node_info_snapshot_list.bug_91601_6_nodes_one_in_a_different_zone",
     ["node-2", "node-0", "node-3", "node-4", "node-5", "node-6"]),
    ("node_tree.ported.scheduler_cache_update_node_info_snapshot_list.bug_91601_7_nodes_two_in_a_different_zone",
     ["node-2", "node-0", "node-3", "node-1", "node-4", "node-5", "node-6"]),
    (go("node_tree", "TestSchedulerCache_updateNodeInfoSnapshotList", "bug 91601, 7 nodes, two in a different zone, "
        "different zone order"), ["node-2", "node-1", "node-3", "node-0", "node-4", "node-5", "node-6"]),
])
def test_node_tree_lists(prefix: str, want: list[str]) -> None:
    """TestNodeTree_List, TestNodeTreeMultiOperations, TestSchedulerCache_updateNodeInfoSnapshotList: expected."""
    assert observations(prefix)[-1]["snapshot"]["list"] == want


NODE_TREE_CASES = {  # TestNodeTree_AddNode/RemoveNode/UpdateNode: the expected tree's names, zone by zone
    "node_tree_add_node.single_node_no_labels": {"node-0"},
    "node_tree_add_node.same_node_specified_twice": {"node-0"},
    "node_tree_add_node.mix_of_nodes_with_and_without_proper_labels": {"node-0", "node-1", "node-2", "node-3"},
    "node_tree_add_node.nodes_also_using_deprecated_zone_region_label": {"node-9", "node-10"},
    "node_tree_remove_node.remove_a_single_node_with_no_labels": {f"node-{i}" for i in range(1, 7)},
    "node_tree_remove_node.remove_all_nodes": set(),
    "node_tree_remove_node.remove_non_existing_node": set(),
    "node_tree_update_node.update_the_only_existing_node": {"node-0"},
    "node_tree_update_node.update_non_existing_node": {"node-0", "node-new"},
}


@pytest.mark.parametrize("case", sorted(NODE_TREE_CASES))
def test_node_tree_members(case: str) -> None:
    """The names in the expected tree are the snapshot's list (the tree as of the vector's full rebuild)."""
    assert set(observations(f"node_tree.ported.{case}")[-1]["snapshot"]["list"]) == NODE_TREE_CASES[case]


def test_node_tree_update_moves_to_the_end_of_the_zone() -> None:
    """TestNodeTree_UpdateNode "update a node without label": region-1/zone-2 is [node-3, node-4, node-0]."""
    listed = observations("node_tree.ported.node_tree_update_node.update_a_node_without_label")[-1]["snapshot"]["list"]
    assert [n for n in listed if n in ("node-3", "node-4", "node-0")] == ["node-3", "node-4", "node-0"]


UPDATE_SNAPSHOT = {  # TestSchedulerCache_UpdateSnapshot: expected (live nodes, newest first), affinity count, PVCs
    "empty_cache": ([], 0, []),
    "single_node": (["test-node1"], 0, []),
    "add_node_remove_it_add_it_again": (["test-node1"], 0, []),
    "add_node_and_remove_it_in_the_same_cycle_add_it_again": (["test-node2"], 0, []),
    "add_a_few_nodes_and_snapshot_in_the_middle": (["test-node3", "test-node2", "test-node1", "test-node0"], 0, []),
    "add_a_few_nodes_and_snapshot_in_the_end": (["test-node6", "test-node5", "test-node2", "test-node0"], 0, []),
    "update_some_nodes": (["test-node1", "test-node5", "test-node0"], 0, []),
    "add_a_few_nodes_and_remove_all_of_them": ([], 0, []),
    "add_a_few_nodes_and_remove_some_of_them": (["test-node5", "test-node2"], 0, []),
    "add_a_few_nodes_remove_all_of_them_and_add_more": (["test-node9", "test-node7"], 0, []),
    "update_nodes_in_particular_order": (["test-node1", "test-node8", "test-node2"], 0, []),
    "add_some_nodes_and_some_pods": (["test-node2", "test-node8", "test-node0"], 0, []),
    "updating_a_pod_moves_its_node_to_the_head": (["test-node0", "test-node4", "test-node2"], 0, []),
    "add_pod_before_its_node": (["test-node1", "test-node0"], 0, []),
    "remove_node_before_its_pods": (["test-node0"], 0, []),
    "add_pods_with_affinity": (["test-node1", "test-node0"], 1, []),
    "add_pods_with_pvc": (["test-node1", "test-node0"], 0, ["test-ns/test-pvc0"]),
    "add_multiple_nodes_with_pods_with_affinity": (["test-node1", "test-node0"], 2, []),
    "add_multiple_nodes_with_pods_with_pvc": (["test-node1", "test-node0"], 0, ["test-ns/test-pvc0",
                                                                                "test-ns/test-pvc1"]),
    "add_then_remove_pods_with_affinity": (["test-node0", "test-node1"], 0, []),
    "add_then_remove_pod_with_pvc": (["test-node0"], 0, ["test-ns/test-pvc2"]),
    "add_then_remove_pod_with_pvc_and_add_same_pod_again": (["test-node0"], 0, ["test-ns/test-pvc0"]),
    "add_and_remove_multiple_pods_with_pvc_with_same_ref_count_length":
        (["test-node1", "test-node0"], 0, ["test-ns/test-pvc2", "test-ns/test-pvc3"]),
    "add_and_remove_multiple_pods_with_pvc": (["test-node0", "test-node1"], 0, ["test-ns/test-pvc1",
                                                                                "test-ns/test-pvc2"]),
}


@pytest.mark.parametrize("case", sorted(UPDATE_SNAPSHOT))
def test_scheduler_cache_update_snapshot(case: str) -> None:
    """The cache's node list, then (before the test's final update) the affinity count and the used PVCs; after
    it, the snapshot holds every live node (compareCacheWithNodeInfoSnapshot)."""
    want_nodes, affinity, pvcs = UPDATE_SNAPSHOT[case]
    steps = observations(f"snapshot.ported.scheduler_cache_update_snapshot.{case}")
    before_final = steps[-2] if len(steps) > 1 else steps[-1]
    live = [n for n in steps[-1]["recency"] if steps[-1]["nodes"][n]["node"]]
    assert live == want_nodes
    assert len(before_final["snapshot"]["affinity"]) == affinity and before_final["snapshot"]["used_pvcs"] == pvcs
    assert sorted(steps[-1]["snapshot"]["nodes"]) == sorted(want_nodes)


def test_call_queue_add_merge_to_no_op() -> None:
    """TestCallQueueAdd "New call merges with old call and skips if no-op": call1 overwritten; then call3 is
    skipped, call2 overwritten, and nothing stays queued."""
    steps = observations("dispatcher.ported.call_queue_add.new_call_merges_with_old_call_and_skips_if_no_op")
    assert steps[1]["told"] == [[0, "Overwritten"]] and steps[1]["fifo"] == ["uid1"]
    assert sorted(steps[2]["told"]) == [[1, "Overwritten"], [2, "Skipped"]] and steps[2]["calls"] == {}


def test_call_queue_finalize_requeues() -> None:
    """TestCallQueueFinalize "UID is re-queued if a new call arrived while one was in-flight"."""
    steps = observations(go("dispatcher", "TestCallQueueFinalize",
                            "UID is re-queued if a new call arrived while one was in-flight"))
    assert steps[-1]["fifo"] == ["uid1"] and steps[-1]["in_flight"] == [] and list(steps[-1]["calls"]) == ["uid1"]


def test_score_plugins_as_kubernetes_tests_them() -> None:
    """Every ported Score case: the plugin's score of each node in the vector's last decision, divided by its weight,
    is what the Go test expects."""
    from conformance.ported import ported
    from conformance.ported.common import GO_SCORES
    from spec.cycle.scores import DYNAMIC_RESOURCES, score_plugins
    from spec.versions import DEFAULT_PROFILE

    ported()
    weights = {p.name: p.weight for p in score_plugins(DEFAULT_PROFILE)}
    assert DYNAMIC_RESOURCES in score_plugins(DEFAULT_PROFILE)
    assert GO_SCORES
    for vector_id, (plugin, expected) in GO_SCORES.items():
        decision = observations(vector_id)[-1]["decision"]
        assert len(decision["scores"]) >= 2, vector_id
        if expected is None:  # PreScore skips: the plugin scores no node
            assert all(plugin not in s["plugins"] for s in decision["scores"].values()), vector_id
            continue
        got = {node: s["plugins"][plugin] // weights[plugin] for node, s in decision["scores"].items()}
        assert got == expected, vector_id


def test_score_cases_that_are_not_vectors_say_why() -> None:
    """A scoring_test.go case of InterPodAffinity or PodTopologySpread, or a TestNodeAffinityPriority case, is a
    cycle vector unless its module's ``NOT_VECTORS`` names it with the reason; none is dropped silently."""
    from conformance.ported import interpodaffinity_scoring, node_affinity, podtopologyspread_scoring
    from conformance.ported.score_cases import scenario

    for module in (interpodaffinity_scoring, podtopologyspread_scoring, node_affinity):
        dropped = {c.name for c in module.cases() if scenario(c, module.FILE) is None}
        assert dropped == set(module.NOT_VECTORS), module.__name__
        assert len(module.scenarios()) == len(module.cases()) - len(dropped)


def test_node_affinity_priority_is_ported_whole() -> None:
    """Every TestNodeAffinityPriority case is a score case or is named in ``NOT_PORTED`` with the reason."""
    from conformance.ported import node_affinity

    names = [c.name for c in node_affinity.cases()]
    assert len(set(names)) == len(names) and set(names).isdisjoint(node_affinity.NOT_PORTED)
    assert len(names) + len(node_affinity.NOT_PORTED) == node_affinity.GO_CASES


def test_filter_cases_that_are_not_vectors_say_why() -> None:
    """A ported filtering_test.go case of InterPodAffinity is a cycle vector unless ``NOT_VECTORS`` names it."""
    from conformance.ported import interpodaffinity_filtering as module
    from conformance.ported.filter_cases import scenario

    dropped = {c.name for c in module.cases() if scenario(c, module.FILE) is None}
    assert dropped == set(module.NOT_VECTORS)
    assert len(module.scenarios()) == len(module.cases()) - len(dropped)
