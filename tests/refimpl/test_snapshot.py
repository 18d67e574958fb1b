"""The snapshot and Kubernetes' incremental ``UpdateSnapshot``: cases from Kubernetes' tests, the documented
quirks, and the property that makes it fast (only changed nodes are cloned).

Every step runs on refimpl and the spec in lockstep (:class:`Twin`), which compares the whole snapshot, list order
and object identity of the list entries included.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

import pytest

from conformance.adapters.refimpl_abstraction import abstract_snapshot
from refimpl.cache import NodeInfo, Snapshot
from spec.cache.invariants import inv_snapshot_list_in_node_tree_order, inv_snapshot_matches_cache
from spec.cache.operations import (
    AddNode,
    AddPod,
    Operation,
    RemoveNode,
    RemovePod,
    UpdateNode,
    UpdatePod,
    UpdateSnapshot,
)
from spec.errors import CacheError, ErrorKind
from spec.frozenmap import FrozenMap
from spec.objects import (
    LABEL_TOPOLOGY_REGION,
    LABEL_TOPOLOGY_ZONE,
    AffinityTerms,
    Container,
    ContainerImage,
    Node,
    Pod,
)
from spec.quantities import resource_list
from spec.versions import V1_35
from tests.refimpl.driver import Twin

NODES = [Node(f"test-node{i}", allocatable=resource_list(cpu=1000, memory=1)) for i in range(10)]
UPDATED_NODES = [replace(n, allocatable=resource_list(cpu=2000, memory=1)) for n in NODES]
PODS = [Pod(uid=f"test-puid{i}", name=f"test-pod{i}", namespace="test-ns", node_name=f"test-node{i % 10}")
        for i in range(20)]
UPDATED_PODS = [replace(p, priority=1000) for p in PODS]
PODS_WITH_AFFINITY = [
    Pod(uid=f"puid-affinity-{i}", name=f"p-affinity-{i}", namespace="test-ns", node_name=f"test-node{i}",
        pod_affinity=AffinityTerms(required=1))
    for i in range(2)
]
PODS_WITH_PVC = [
    Pod(uid=f"puid-pvc-{i}", name=f"p-pvc-{i}", namespace="test-ns", node_name=f"test-node{i % 2}",
        pvc_claims=(f"test-pvc{i % 4}",))
    for i in range(8)
]
SNAP = UpdateSnapshot()


def add_node(i: int) -> Operation:
    return AddNode(NODES[i])


def remove_node(i: int) -> Operation:
    return RemoveNode(NODES[i])


def update_node(i: int) -> Operation:
    return UpdateNode(NODES[i], UPDATED_NODES[i])


def add_pod(i: int) -> Operation:
    return AddPod(PODS[i])


def remove_pod(i: int) -> Operation:
    return RemovePod(PODS[i])


def update_pod(i: int) -> Operation:
    return UpdatePod(PODS[i], UPDATED_PODS[i])


def add_affinity(i: int) -> Operation:
    return AddPod(PODS_WITH_AFFINITY[i])


def remove_affinity(i: int) -> Operation:
    return RemovePod(PODS_WITH_AFFINITY[i])


def add_pvc(i: int) -> Operation:
    return AddPod(PODS_WITH_PVC[i])


def remove_pvc(i: int) -> Operation:
    return RemovePod(PODS_WITH_PVC[i])


def pvcs(*claims: int) -> set[str]:
    return {f"test-ns/test-pvc{i}" for i in claims}


UPDATE_SNAPSHOT_CASES = [
    ("Empty cache", [], [], 0, set()),
    ("Single node", [add_node(1)], [1], 0, set()),
    ("Add node, remove it, add it again", [add_node(1), SNAP, remove_node(1), add_node(1)], [1], 0, set()),
    ("Add node and remove it in the same cycle, add it again",
     [add_node(1), SNAP, add_node(2), remove_node(1)], [2], 0, set()),
    ("Add a few nodes, and snapshot in the middle",
     [add_node(0), SNAP, add_node(1), SNAP, add_node(2), SNAP, add_node(3)], [3, 2, 1, 0], 0, set()),
    ("Add a few nodes, and snapshot in the end",
     [add_node(0), add_node(2), add_node(5), add_node(6)], [6, 5, 2, 0], 0, set()),
    ("Update some nodes", [add_node(0), add_node(1), add_node(5), SNAP, update_node(1)], [1, 5, 0], 0, set()),
    ("Add a few nodes, and remove all of them",
     [add_node(0), add_node(2), add_node(5), add_node(6), SNAP, remove_node(0), remove_node(2), remove_node(5),
      remove_node(6)], [], 0, set()),
    ("Add a few nodes, and remove some of them",
     [add_node(0), add_node(2), add_node(5), add_node(6), SNAP, remove_node(0), remove_node(6)], [5, 2], 0, set()),
    ("Add a few nodes, remove all of them, and add more",
     [add_node(2), add_node(5), add_node(6), SNAP, remove_node(2), remove_node(5), remove_node(6), SNAP,
      add_node(7), add_node(9)], [9, 7], 0, set()),
    ("Update nodes in particular order",
     [add_node(8), update_node(2), update_node(8), SNAP, add_node(1)], [1, 8, 2], 0, set()),
    ("Add some nodes and some pods",
     [add_node(0), add_node(2), add_node(8), SNAP, add_pod(8), add_pod(2)], [2, 8, 0], 0, set()),
    ("Updating a pod moves its node to the head",
     [add_node(0), add_pod(0), add_node(2), add_node(4), update_pod(0)], [0, 4, 2], 0, set()),
    ("Add pod before its node", [add_node(0), add_pod(1), update_pod(1), add_node(1)], [1, 0], 0, set()),
    ("Remove node before its pods",
     [add_node(0), add_node(1), add_pod(1), add_pod(11), SNAP, remove_node(1), SNAP, update_pod(1),
      update_pod(11), remove_pod(1), remove_pod(11)], [0], 0, set()),
    ("Add Pods with affinity", [add_node(0), add_affinity(0), SNAP, add_node(1)], [1, 0], 1, set()),
    ("Add Pods with PVC", [add_node(0), add_pvc(0), SNAP, add_node(1)], [1, 0], 0, pvcs(0)),
    ("Add multiple nodes with pods with affinity",
     [add_node(0), add_affinity(0), SNAP, add_node(1), add_affinity(1), SNAP], [1, 0], 2, set()),
    ("Add multiple nodes with pods with PVC",
     [add_node(0), add_pvc(0), SNAP, add_node(1), add_pvc(1), SNAP], [1, 0], 0, pvcs(0, 1)),
    ("Add then Remove pods with affinity",
     [add_node(0), add_node(1), add_affinity(0), SNAP, remove_affinity(0), SNAP], [0, 1], 0, set()),
    ("Add then Remove pod with PVC",
     [add_node(0), add_pvc(0), SNAP, remove_pvc(0), add_pvc(2), SNAP], [0], 0, pvcs(2)),
    ("Add then Remove pod with PVC and add same pod again",
     [add_node(0), add_pvc(0), SNAP, remove_pvc(0), add_pvc(0), SNAP], [0], 0, pvcs(0)),
    ("Add and Remove multiple pods with PVC with same ref count length different content",
     [add_node(0), add_node(1), add_pvc(0), add_pvc(1), SNAP, remove_pvc(0), remove_pvc(1), add_pvc(2),
      add_pvc(3), SNAP], [1, 0], 0, pvcs(2, 3)),
    ("Add and Remove multiple pods with PVC",
     [add_node(0), add_node(1), add_pvc(0), add_pvc(1), add_pvc(2), SNAP, remove_pvc(0), remove_pvc(1), SNAP,
      add_pvc(0), SNAP, add_pvc(3), add_pvc(4), add_pvc(5), SNAP, remove_pvc(0), remove_pvc(3), remove_pvc(4),
      SNAP], [0, 1], 0, pvcs(1, 2)),
]


@pytest.mark.parametrize(
    ("operations", "expected", "with_affinity", "used_pvcs"),
    [pytest.param(ops, exp, aff, pvc, id=name) for name, ops, exp, aff, pvc in UPDATE_SNAPSHOT_CASES],
)
def test_update_snapshot(
    operations: list[Operation], expected: list[int], with_affinity: int, used_pvcs: set[str]
) -> None:
    """TestSchedulerCache_UpdateSnapshot: list order head to tail, the affinity list, the PVC set, then a final
    update that matches the cache (compareCacheWithNodeInfoSnapshot)."""
    twin = Twin(V1_35)
    for op in operations:
        twin.ok(op)
        if isinstance(op, UpdateSnapshot):
            assert inv_snapshot_matches_cache(twin.world.cache, twin.world.snapshot)
    assert twin.cache.node_count() == len(expected)
    internals = twin.cache.internals()
    live = [name for name in internals.names_by_recency if internals.node_infos[name].node is not None]
    assert live == [NODES[i].name for i in expected][: len(live)]
    assert len(twin.snapshot.have_pods_with_affinity_list()) == with_affinity
    assert twin.snapshot.used_pvc_set == used_pvcs
    twin.ok(SNAP)
    assert inv_snapshot_matches_cache(twin.world.cache, twin.world.snapshot)
    assert inv_snapshot_list_in_node_tree_order(twin.world.cache, twin.world.snapshot)


def zone_node(i: int) -> Node:
    zone = 0 if i < 2 else 1
    labels = FrozenMap({LABEL_TOPOLOGY_REGION: f"region-{zone}", LABEL_TOPOLOGY_ZONE: f"zone-{zone}"})
    return Node(f"node-{i}", labels=labels)


ZONE_CASES = [
    ("Empty cache", [], []),
    ("Single node", [0], [0]),
    ("Two nodes", [0, None, 1], [0, 1]),
    ("bug 91601, two nodes, update the snapshot and add two nodes in different zones", [2, 3, None, 4, 0],
     [2, 0, 3, 4]),
    ("bug 91601, 6 nodes, one in a different zone", [2, 3, 4, 5, None, 6, 0], [2, 0, 3, 4, 5, 6]),
    ("bug 91601, 7 nodes, two in a different zone", [2, None, 3, 4, None, 5, 6, 0, 1], [2, 0, 3, 1, 4, 5, 6]),
    ("bug 91601, 7 nodes, two in a different zone, different zone order", [2, 1, None, 3, 4, None, 5, 6, 0],
     [2, 1, 3, 0, 4, 5, 6]),
]


@pytest.mark.parametrize(("steps", "expected"), [pytest.param(s, e, id=n) for n, s, e in ZONE_CASES])
def test_node_list_is_round_robin_across_zones(steps: list[int | None], expected: list[int]) -> None:
    """TestSchedulerCache_updateNodeInfoSnapshotList: the list takes zones in turn (kubernetes#91601); None is a
    snapshot update in the middle."""
    twin = Twin(V1_35)
    for step in steps:
        twin.ok(SNAP if step is None else AddNode(zone_node(step)))
    twin.ok(SNAP)
    assert [info.name for info in twin.snapshot.list_nodes()] == [f"node-{i}" for i in expected]


def count_clones(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Record the name of every NodeInfo cloned from now on."""
    cloned: list[str] = []
    original: Callable[..., NodeInfo] = NodeInfo.snapshot

    def counting(self: NodeInfo, into: NodeInfo | None = None, image_version: int | None = None) -> NodeInfo:
        cloned.append(self.name)
        return original(self, into, image_version)

    monkeypatch.setattr(NodeInfo, "snapshot", counting)
    return cloned


def test_update_snapshot_clones_only_the_nodes_changed_since_the_last_update(monkeypatch: pytest.MonkeyPatch) -> None:
    """The walk from the head stops at the first NodeInfo the snapshot has seen: cost follows changes, not size."""
    twin = Twin(V1_35)
    for i in range(200):
        twin.cache.add_node(Node(f"n{i}"))
    twin.cache.update_snapshot(twin.snapshot)
    before = twin.snapshot.node_info_map["n7"]
    cloned = count_clones(monkeypatch)
    twin.cache.add_pod(Pod(uid="p", name="p", node_name="n7"))
    twin.cache.update_snapshot(twin.snapshot)
    assert cloned == ["n7"]
    assert twin.snapshot.node_info_map["n7"] is before, "the entry is overwritten in place, not replaced"
    cloned.clear()
    twin.cache.update_snapshot(twin.snapshot)
    assert cloned == []


def test_an_entry_the_snapshot_dropped_is_never_reused() -> None:
    """Each cache list item remembers its snapshot entry, to skip the map lookup. A node removed while a pod remains
    keeps its item (a ghost); the next update drops its entry; the node added back gets a new entry, not the
    remembered one, and every step matches the spec (list entries are compared by identity too)."""
    twin = Twin(V1_35)
    twin.ok(add_node(0), add_node(1), add_pod(0), SNAP)
    dropped = twin.snapshot.node_info_map["test-node0"]
    twin.ok(remove_node(0), SNAP)
    assert "test-node0" not in twin.snapshot.node_info_map
    twin.ok(add_node(0), SNAP, add_pod(10), SNAP)
    entry = twin.snapshot.node_info_map["test-node0"]
    assert entry is not dropped
    assert any(info is entry for info in twin.snapshot.list_nodes())
    assert [p.pod.uid for p in entry.pods] == ["test-puid0", "test-puid10"]


def test_two_snapshots_of_one_cache_each_get_their_own_entries() -> None:
    """A remembered entry belongs to one snapshot (its epoch): a second snapshot updated from the same cache,
    alternately with the first, gets entries of its own and the same contents."""
    twin = Twin(V1_35)
    twin.ok(add_node(0), add_node(1), SNAP)
    other = Snapshot()
    twin.cache.update_snapshot(other)
    for op in (add_pod(0), add_pod(1), remove_node(1), update_pod(0), add_node(1), add_pod(11)):
        twin.ok(op, SNAP)
        twin.cache.update_snapshot(other)
        assert abstract_snapshot(other) == abstract_snapshot(twin.snapshot), f"after {op}"
        assert not {id(info) for info in other.node_info_map.values()} & {
            id(info) for info in twin.snapshot.node_info_map.values()}


def test_a_refreshed_entry_shares_no_resource_with_the_cache() -> None:
    """An entry's Requested and NonZeroRequested are overwritten in place on refresh, so they must be the
    entry's own: a later change in the cache leaves them as they were until the next update."""
    twin = Twin(V1_35)
    heavy = Pod(uid="heavy", name="heavy", node_name="test-node0",
                containers=(Container("c", requests=resource_list(cpu=300, memory=64)),))
    twin.ok(add_node(0), AddPod(heavy), SNAP)
    entry = twin.snapshot.node_info_map["test-node0"]
    live = twin.node_info("test-node0")
    assert live is not None
    assert entry.requested is not live.requested and entry.non_zero_requested is not live.non_zero_requested
    twin.ok(RemovePod(heavy))
    assert (entry.requested.milli_cpu, entry.requested.memory) == (300, 64)
    twin.ok(SNAP)
    assert (entry.requested.milli_cpu, entry.requested.memory) == (0, 0)


def test_zone_change_leaves_the_list_out_of_tree_order() -> None:
    """KNOWN VIOLATION (errata): a zone change through UpdateNode reorders the tree but not the snapshot's list,
    and no error is reported."""
    twin = Twin(V1_35)
    a, b, c = zone_node(0), zone_node(1), zone_node(2)  # a, b in zone 0; c in zone 1
    twin.ok(AddNode(a), AddNode(b), AddNode(c), SNAP)
    assert [i.name for i in twin.snapshot.list_nodes()] == ["node-0", "node-2", "node-1"]
    moved = replace(a, labels=c.labels)
    twin.ok(UpdateNode(a, moved), SNAP)
    assert [i.name for i in twin.snapshot.list_nodes()] == ["node-0", "node-2", "node-1"]
    assert inv_snapshot_matches_cache(twin.world.cache, twin.world.snapshot)
    assert not inv_snapshot_list_in_node_tree_order(twin.world.cache, twin.world.snapshot)


def test_node_removed_and_re_added_between_updates_keeps_its_old_place() -> None:
    """KNOWN VIOLATION (errata): the map still holds the node, so no rebuild puts it at its new place in the tree."""
    twin = Twin(V1_35)
    twin.ok(AddNode(zone_node(0)), AddNode(zone_node(1)), SNAP)
    twin.ok(RemoveNode(zone_node(0)), AddNode(zone_node(0)), SNAP)
    assert [i.name for i in twin.snapshot.list_nodes()] == ["node-0", "node-1"]
    assert twin.cache.internals().node_tree_zones[0][1] == ("node-1", "node-0")
    assert not inv_snapshot_list_in_node_tree_order(twin.world.cache, twin.world.snapshot)


def test_image_counts_in_unchanged_nodes_are_stale() -> None:
    """An image's num_nodes in a snapshot NodeInfo is frozen when that node was last cloned (errata quirk)."""
    image = (ContainerImage(("img",), 10),)
    twin = Twin(V1_35)
    twin.ok(AddNode(Node("a", images=image)), SNAP, AddNode(Node("b", images=image)), SNAP)
    assert twin.snapshot.node_info_map["a"].image_states["img"].num_nodes == 1
    assert twin.snapshot.node_info_map["b"].image_states["img"].num_nodes == 2


def test_an_entry_cloned_again_takes_the_image_counts_of_now_even_with_the_cache_dumped_between() -> None:
    """A changed node's entry freezes the image summaries as they are when it is cloned; ``Dump`` between the
    updates (what every protocol observation does) leaves the UpdateSnapshot memo alone, so the memo cannot hide a
    stale map from the vectors (``NodeInfo.snapshot__mutmut_6`` survived through that)."""
    image = (ContainerImage(("img",), 10),)
    twin = Twin(V1_35)
    twin.ok(AddNode(Node("a", images=image)), SNAP)
    entry = twin.cache.internals().node_infos["a"]
    memo = (entry._frozen_images, entry._frozen_version)
    twin.ok(AddNode(Node("b", images=image)))
    assert twin.cache.dump().nodes["a"].image_states["img"].num_nodes == 2
    assert (entry._frozen_images, entry._frozen_version) == memo
    twin.ok(SNAP, AddPod(Pod(uid="p", name="p", node_name="a")), SNAP)
    assert twin.snapshot.node_info_map["a"].image_states["img"].num_nodes == 2


def test_generation_follows_the_head_and_can_go_down() -> None:
    """The snapshot takes the head's generation; when the head NodeInfo is deleted, the next head is older."""
    twin = Twin(V1_35)
    twin.ok(AddNode(Node("a")), AddNode(Node("b")), SNAP)
    head = twin.snapshot.generation
    twin.ok(RemoveNode(Node("b")), SNAP)
    assert twin.snapshot.generation < head
    assert twin.snapshot.generation == twin.node_info("a").generation  # type: ignore[union-attr]


def test_stale_names_are_removed_in_sorted_order_when_more_are_stale_than_the_excess() -> None:
    """removeDeletedNodesFromSnapshot deletes only (map size - tree size) names; with a node entered twice in the
    tree that is fewer than the stale names, and which go is Go's map order, fixed here to sorted order."""
    twin = Twin(V1_35)
    zoned = [replace(Node(n), labels=FrozenMap({LABEL_TOPOLOGY_ZONE: "z1"})) for n in ("a", "b", "c")]
    twin.ok(*(AddNode(n) for n in zoned), SNAP)
    twin.ok(AddNode(replace(zoned[2], labels=FrozenMap({LABEL_TOPOLOGY_ZONE: "z2"}))))
    twin.ok(RemoveNode(zoned[0]), RemoveNode(zoned[1]), SNAP)
    assert set(twin.snapshot.node_info_map) == {"b", "c"}
    assert [i.name for i in twin.snapshot.list_nodes()] == ["c", "c"]


def test_get_and_pvc_queries() -> None:
    twin = Twin(V1_35)
    twin.ok(AddNode(NODES[0]), add_pvc(0), AddPod(replace(PODS_WITH_PVC[2], node_name="ghost")), SNAP)
    assert twin.snapshot.get("test-node0").name == "test-node0"
    with pytest.raises(CacheError) as raised:
        twin.snapshot.get("ghost")
    assert raised.value.kind is ErrorKind.NODE_NOT_FOUND
    assert raised.value.message == 'nodeinfo not found for node name "ghost"'
    assert twin.snapshot.is_pvc_used_by_pods("test-ns/test-pvc0")
    assert not twin.snapshot.is_pvc_used_by_pods("test-ns/test-pvc2"), "pods on placeholders are not listed"
    assert twin.snapshot.num_nodes() == 1
