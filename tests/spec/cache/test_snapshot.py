"""Snapshot scenarios: TestSchedulerCache_UpdateSnapshot, updateNodeInfoSnapshotList and the quirks.

Includes the documented known violation (errata): the snapshot's node list is not always in
node-tree order.
"""

from __future__ import annotations

import pytest

from spec.cache import cache
from spec.cache.cache import CacheState, new_cache
from spec.cache.imagestates import ImageStateSummary
from spec.cache.invariants import inv_snapshot_list_in_node_tree_order, inv_snapshot_matches_cache
from spec.cache.nodetree import list_nodes
from spec.cache.snapshot import (
    EMPTY_SNAPSHOT,
    Snapshot,
    SnapshotInconsistent,
    get_node_info,
    is_pvc_used_by_pods,
    num_nodes,
    update_snapshot,
)
from spec.frozenmap import FrozenMap
from spec.objects import LABEL_TOPOLOGY_ZONE, AffinityTerms, ContainerImage, Node, Pod


def node(name: str, zone: str = "", images: tuple[ContainerImage, ...] = ()) -> Node:
    return Node(name, labels=FrozenMap({LABEL_TOPOLOGY_ZONE: zone}) if zone else FrozenMap(), images=images)


def cluster(*nodes: Node) -> CacheState:
    state = new_cache()
    for n in nodes:
        state = cache.add_node(state, n)
    return state


def fresh(state: CacheState, snapshot: Snapshot = EMPTY_SNAPSHOT) -> Snapshot:
    updated = update_snapshot(state, snapshot)
    assert inv_snapshot_matches_cache(state, updated)
    return updated


def test_first_update_lists_nodes_round_robin_across_zones() -> None:
    """TestSchedulerCache_updateNodeInfoSnapshotList (bug 91601): zones z1 = [a, b], z2 = [c]."""
    state = cluster(node("a", "z1"), node("b", "z1"), node("c", "z2"))
    snapshot = fresh(state)
    assert snapshot.node_info_list == ("a", "c", "b")
    assert num_nodes(snapshot) == 3
    assert snapshot.generation == state.nodes[state.node_list[0]].generation


def test_affinity_lists_and_pvc_set() -> None:
    state = cluster(node("a"), node("b"))
    state = cache.add_pod(state, Pod("p", node_name="b", pod_affinity=AffinityTerms(), pvc_claims=("data",)))
    state = cache.add_pod(state, Pod("q", node_name="a", pod_anti_affinity=AffinityTerms(required=1)))
    snapshot = fresh(state)
    assert snapshot.have_pods_with_affinity_list == ("a", "b")  # list order, not insertion order
    assert snapshot.have_pods_with_required_anti_affinity_list == ("a",)
    assert is_pvc_used_by_pods(snapshot, "default/data") and not is_pvc_used_by_pods(snapshot, "default/x")


def test_update_with_no_change_is_the_identity() -> None:
    state = cluster(node("a"), node("b"))
    snapshot = fresh(state)
    assert update_snapshot(state, snapshot) == snapshot


def test_only_changed_nodes_are_recloned() -> None:
    state = cluster(node("a"), node("b"))
    snapshot = fresh(state)
    changed = cache.add_pod(state, Pod("p", node_name="a"))
    updated = fresh(changed, snapshot)
    assert updated.node_info_map["a"].pods == (Pod("p", node_name="a"),)
    assert updated.node_info_map["b"] is snapshot.node_info_map["b"]


def test_removed_node_leaves_the_snapshot() -> None:
    state = cluster(node("a"), node("b"))
    snapshot = fresh(state)
    updated = fresh(cache.remove_node(state, node("a")), snapshot)
    assert updated.node_info_list == ("b",) and set(updated.node_info_map) == {"b"}
    with pytest.raises(Exception, match='nodeinfo not found for node name "a"'):
        get_node_info(updated, "a")


def test_ghost_and_placeholder_nodes_are_not_in_the_snapshot() -> None:
    state = cache.add_pod(cluster(node("a")), Pod("p", node_name="a"))
    state = cache.remove_node(state, node("a"))  # ghost
    state = cache.add_pod(state, Pod("q", node_name="b"))  # placeholder
    snapshot = fresh(state)
    assert snapshot.node_info_list == () and len(snapshot.node_info_map) == 0


def test_snapshot_generation_goes_down_when_the_newest_node_info_is_deleted() -> None:
    """Found by the adversarial state machine: generation = the head's, and the head can be deleted."""
    state = cluster(node("a"), node("b"))
    snapshot = fresh(state)
    newest = snapshot.generation
    removed = cache.remove_node(state, node("b"))
    updated = fresh(removed, snapshot)
    assert updated.generation == removed.nodes["a"].generation < newest


# ----------------------------------------------------------------------------------------------
# Documented known violation: list order (errata "Quirks")
# ----------------------------------------------------------------------------------------------


def test_zone_change_leaves_the_list_out_of_node_tree_order() -> None:
    state = cluster(node("a", "z1"), node("b", "z1"), node("c", "z2"))
    snapshot = fresh(state)
    assert snapshot.node_info_list == ("a", "c", "b")
    moved = cache.update_node(state, node("a", "z1"), node("a", "z2"))
    assert list_nodes(moved.node_tree) == ("b", "c", "a")
    updated = fresh(moved, snapshot)  # matches the cache in every other respect...
    assert updated.node_info_list == ("a", "c", "b")  # ...but the order was not rebuilt
    assert not inv_snapshot_list_in_node_tree_order(moved, updated)


def test_node_removed_and_readded_between_updates_keeps_its_old_place() -> None:
    state = cluster(node("a", "z1"), node("b", "z2"))
    snapshot = fresh(state)
    state = cache.add_node(cache.remove_node(state, node("a", "z1")), node("a", "z1"))
    assert list_nodes(state.node_tree) == ("b", "a")
    updated = fresh(state, snapshot)
    assert updated.node_info_list == ("a", "b")
    assert not inv_snapshot_list_in_node_tree_order(state, updated)


def test_image_counts_in_unchanged_nodes_are_stale() -> None:
    image = ContainerImage(("nginx:1",), 100)
    state = cluster(node("a", images=(image,)))
    snapshot = fresh(state)
    state = cache.add_node(state, node("b", images=(image,)))
    updated = fresh(state, snapshot)
    assert updated.node_info_map["a"].image_states == FrozenMap({"nginx:1": ImageStateSummary(100, 1)})
    assert updated.node_info_map["b"].image_states == FrozenMap({"nginx:1": ImageStateSummary(100, 2)})


# ----------------------------------------------------------------------------------------------
# Inconsistency
# ----------------------------------------------------------------------------------------------


def test_inconsistent_tree_is_reported_and_recovered() -> None:
    """Errata quirk: AddNode with another zone enters "a" twice; removing it once leaves the tree
    with one entry while the snapshot still lists "a" twice, so the next update reports it."""
    state = cache.add_node(cluster(node("a", "z1")), node("a", "z2"))
    doubled = update_snapshot(state, EMPTY_SNAPSHOT)
    assert doubled.node_info_list == ("a", "a")  # both tree entries are in the map: no error yet
    removed = cache.remove_node(state, node("a", "z1"))  # no pods: NodeInfo deleted; tree keeps z2's "a"
    assert removed.node_tree.num_nodes == 1 and cache.node_count(removed) == 0
    with pytest.raises(SnapshotInconsistent) as caught:
        update_snapshot(removed, doubled)
    # Nothing in the cache is newer than the snapshot and the map (1) is not larger than the tree (1),
    # so the lists are kept: 2 entries against 1 in the tree.
    assert caught.value.message == (
        "snapshot state is not consistent, length of NodeInfoList=2 not equal to length of nodes in tree=1 ,"
        " length of NodeInfoMap=1, length of nodes in cache=0, trying to recover"
    )
    assert caught.value.snapshot_after.node_info_list == ("a",)  # rebuilt from the tree for the next cycle
