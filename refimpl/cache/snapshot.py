"""The snapshot a scheduling cycle reads, and Kubernetes' incremental algorithm that refreshes it.

This is ``Snapshot`` (pkg/scheduler/backend/cache/snapshot.go) and the body of ``cacheImpl.UpdateSnapshot``,
``updateNodeInfoSnapshotList`` and ``removeDeletedNodesFromSnapshot`` (cache.go). The update walks the cache's
most-recently-updated list only while generations are newer than the snapshot's, overwrites each changed entry in
place (the ordered lists hold the same objects), and rebuilds the ordered lists only when a node was added or
removed, or a node started or stopped having pods with (anti-)affinity or claims.

Two departures from Kubernetes' data layout, for speed, that leave the results unchanged: each cache list item
remembers its snapshot entry (:attr:`~refimpl.cache.node_list.NodeInfoListItem.entry`, valid while the snapshot's
:attr:`Snapshot.epoch` is unchanged), so a changed node's entry is found without a lookup in the snapshot's map;
and a node's first snapshot entry is allocated with its cache item, beside its cache NodeInfo in memory, so that
refreshing it after a change touches memory the change has just touched. In a cluster of tens of thousands of nodes
the map and the entries are out of the CPU caches, and these misses were most of an update's cost.

The snapshot is owned by one scheduling thread; the cache lock is held while it is updated.
"""

from __future__ import annotations

from refimpl.cache.node_info import EMPTY_AFFINITY, EMPTY_ANTI_AFFINITY, EMPTY_PVCS, NodeInfo
from refimpl.cache.node_list import NodeInfoList
from refimpl.cache.node_tree import NodeTree, go_quote
from spec.errors import CacheError, ErrorKind

_NO_PVCS: dict[str, int] = {}
_AFFINITY_OR_PVCS = EMPTY_AFFINITY | EMPTY_ANTI_AFFINITY | EMPTY_PVCS


class Snapshot:
    """``Snapshot``: NodeInfo clones of the live nodes, the ordered lists a cycle iterates, used PVCs, a generation."""

    __slots__ = ("epoch", "generation", "have_pods_with_affinity_node_info_list",
                 "have_pods_with_required_anti_affinity_node_info_list", "node_info_list", "node_info_map",
                 "refreshed", "refreshed_lost", "used_pvc_ref_counts", "used_pvc_set")

    def __init__(self) -> None:
        """``NewEmptySnapshot()``."""
        self.node_info_map: dict[str, NodeInfo] = {}
        self.node_info_list: list[NodeInfo] = []
        """In node-tree (zone round-robin) order as of the last full rebuild."""
        self.have_pods_with_affinity_node_info_list: list[NodeInfo] = []
        self.have_pods_with_required_anti_affinity_node_info_list: list[NodeInfo] = []
        self.used_pvc_set: set[str] = set()
        self.used_pvc_ref_counts: dict[str, int] = {}
        """v1.37 (``incremental_pvc_ref_counts``): ``usedPVCRefCounts``, positive counts by claim; then
        :attr:`used_pvc_set` is its keys."""
        self.generation = 0
        """The generation of the cache's most recently updated NodeInfo at the last update."""
        self.epoch = object()
        """Replaced whenever an entry leaves :attr:`node_info_map`. A cache list item remembers the entry it found
        here with the epoch it found it at; while the epoch is unchanged, that entry is still the map's (entries are
        added only by :func:`update_snapshot`, which remembers them, and removed only by
        :func:`remove_deleted_nodes_from_snapshot`, which replaces the epoch)."""
        self.refreshed: list[NodeInfo] = []
        """A refimpl-only log for the scheduler's node columns (``refimpl.scheduler.framework.node_slice``): each
        entry :func:`update_snapshot` refreshed in place, since its reader last cleared the log. So that a cycle need
        not read every entry's generation to find the few that changed."""
        self.refreshed_lost = 0
        """Bumped when :func:`update_snapshot` cleared :attr:`refreshed` unread (it grew longer than the node list):
        the reader then checks every entry."""

    def num_nodes(self) -> int:
        """``NumNodes``."""
        return len(self.node_info_list)

    def list_nodes(self) -> list[NodeInfo]:
        """``List``: the node list, in node-tree order as of the last full rebuild."""
        return self.node_info_list

    def have_pods_with_affinity_list(self) -> list[NodeInfo]:
        """``HavePodsWithAffinityList``."""
        return self.have_pods_with_affinity_node_info_list

    def have_pods_with_required_anti_affinity_list(self) -> list[NodeInfo]:
        """``HavePodsWithRequiredAntiAffinityList``."""
        return self.have_pods_with_required_anti_affinity_node_info_list

    def get(self, name: str) -> NodeInfo:
        """``Get``: the NodeInfo of a node. Fails with ``NodeNotFound`` if the snapshot has none with a node."""
        info = self.node_info_map.get(name)
        if info is None or info.node is None:
            raise CacheError(ErrorKind.NODE_NOT_FOUND, f"nodeinfo not found for node name {go_quote(name)}")
        return info

    def is_pvc_used_by_pods(self, key: str) -> bool:
        """``IsPVCUsedByPods``: whether a pod on a listed node uses the claim ``namespace/claim``."""
        return key in self.used_pvc_set


def update_snapshot(
    nodes: NodeInfoList,
    tree: NodeTree,
    snapshot: Snapshot,
    image_version: int | None = None,
    pvc_delta: dict[str, int] | None = None,
) -> None:
    """``UpdateSnapshot`` (the caller holds the cache lock): bring ``snapshot`` up to date with the cache.

    ``image_version`` is the cache's image-state version (see ``NodeInfo.snapshot``); None makes every clone build
    its image map anew. A changed entry is found by its list item's name, which is the node's name (the ``nodes``
    map is keyed by it), so the Node object itself is not read. ``pvc_delta`` is the cache's ``pvcRefCountsDelta``
    in a profile with ``incremental_pvc_ref_counts`` (v1.37; None before): without a full rebuild it is added to
    the snapshot's counts (``applyPVCRefCountDelta``; a count below zero forces a full rebuild), a full rebuild
    recounts the listed nodes, and either clears it.

    Fails with ``SnapshotInconsistent`` when the node list and the node tree then differ in length; the lists
    have been fully rebuilt by then, for the next cycle.
    """
    last_seen = snapshot.generation
    update_all = update_affinity = update_anti_affinity = update_pvc = False
    node_info_map = snapshot.node_info_map
    epoch = snapshot.epoch
    refreshed = snapshot.refreshed
    if len(refreshed) > len(node_info_map):  # nobody reads it: drop it, and say so
        refreshed.clear()
        snapshot.refreshed_lost += 1
    item = nodes.head
    while item is not None:
        info = item.info
        if info.generation <= last_seen:
            break  # Every older item was seen by the previous update.
        if info.node is not None:
            name = item.name
            if item.entry_epoch is epoch:
                existing = item.entry  # Remembered from an earlier update: no lookup in the (cold) map.
            else:
                found = node_info_map.get(name)
                if found is None:
                    # A new entry: the item's preallocated one the first time, else a clone made directly (what
                    # NodeInfo.empty() refreshed would be, without building the empty one). The lists are rebuilt
                    # (update_all), so what the entry held before does not matter.
                    update_all = True
                    entry = info.snapshot(item.entry if item.entry_epoch is None else None, image_version)
                    node_info_map[name] = item.entry = entry
                    item.entry_epoch = epoch
                    refreshed.append(entry)
                    item = item.next
                    continue
                existing = item.entry = found
                item.entry_epoch = epoch
            # Whether the entry had (anti-)affinity pods or claims is read from its empty-container bits, so that
            # its cold containers are not touched when they stay empty.
            was_empty = existing.empty_containers
            old_pvcs = existing.pvc_ref_counts if not was_empty & EMPTY_PVCS else _NO_PVCS
            info.snapshot(existing, image_version)  # Keep the object: the ordered lists point at it.
            refreshed.append(existing)
            now_empty = existing.empty_containers
            if (was_empty ^ now_empty) & EMPTY_AFFINITY:
                update_affinity = True
            if (was_empty ^ now_empty) & EMPTY_ANTI_AFFINITY:
                update_anti_affinity = True
            if pvc_delta is None and not update_pvc and not was_empty & now_empty & EMPTY_PVCS:
                new_pvcs = existing.pvc_ref_counts
                update_pvc = len(old_pvcs) != len(new_pvcs) or any(key not in old_pvcs for key in new_pvcs)
        item = item.next
    if nodes.head is not None:
        snapshot.generation = nodes.head.info.generation
    if len(node_info_map) > tree.num_nodes:
        remove_deleted_nodes_from_snapshot(nodes, tree, snapshot)
        update_all = True
    if pvc_delta is not None and not update_all and not apply_pvc_ref_count_delta(snapshot, pvc_delta):
        update_all = True  # Kubernetes logs "rebuilding node snapshot due to unexpected error ..."
    if update_all or update_affinity or update_anti_affinity or update_pvc:
        update_node_info_snapshot_list(tree, snapshot, update_all, pvc_delta)
    if len(snapshot.node_info_list) != tree.num_nodes:
        message = (
            f"snapshot state is not consistent, length of NodeInfoList={len(snapshot.node_info_list)} "
            f"not equal to length of nodes in tree={tree.num_nodes} , length of NodeInfoMap={len(node_info_map)}, "
            f"length of nodes in cache={len(nodes)}, trying to recover"
        )
        update_node_info_snapshot_list(tree, snapshot, True, pvc_delta)
        raise CacheError(ErrorKind.SNAPSHOT_INCONSISTENT, message)


def apply_pvc_ref_count_delta(snapshot: Snapshot, pvc_delta: dict[str, int]) -> bool:
    """``applyPVCRefCountDelta``: add the delta to the snapshot's counts, dropping claims that reach zero, and clear
    it; False, with the delta kept, when a count goes below zero (the caller then rebuilds every list, which
    recounts)."""
    counts = snapshot.used_pvc_ref_counts
    for key, delta in pvc_delta.items():
        count = counts.get(key, 0) + delta
        if count <= 0:
            counts.pop(key, None)
            snapshot.used_pvc_set.discard(key)
            if count < 0:
                return False
        else:
            counts[key] = count
            snapshot.used_pvc_set.add(key)
    pvc_delta.clear()
    return True


def remove_deleted_nodes_from_snapshot(nodes: NodeInfoList, tree: NodeTree, snapshot: Snapshot) -> None:
    """``removeDeletedNodesFromSnapshot``: drop up to (map size - tree size) entries whose node is gone.

    Kubernetes visits the map in Go's random order; like the spec, this removes the stale names in sorted order,
    which matters only when there are more stale names than the excess (a node entered twice in the tree). Only
    the stale names are sorted, not the whole map.
    """
    to_delete = len(snapshot.node_info_map) - tree.num_nodes
    stale = []
    for name in snapshot.node_info_map:
        item = nodes.get(name)
        if item is None or item.info.node is None:
            stale.append(name)
    for name in sorted(stale)[: max(to_delete, 0)]:
        del snapshot.node_info_map[name]
        snapshot.epoch = object()  # Every entry a list item remembers must be looked up again.


def update_node_info_snapshot_list(
    tree: NodeTree, snapshot: Snapshot, update_all: bool, pvc_delta: dict[str, int] | None = None
) -> None:
    """``updateNodeInfoSnapshotList``: recompute the affinity lists and the used PVCs, and the node list if
    ``update_all`` (in node-tree order, skipping names the map lacks, which Kubernetes only logs). With a
    ``pvc_delta`` (v1.37) the claims are recounted only if ``update_all``, which clears the delta."""
    with_affinity: list[NodeInfo] = []
    with_anti_affinity: list[NodeInfo] = []
    used_pvcs: set[str] = set()
    if update_all:
        get = snapshot.node_info_map.get
        snapshot.node_info_list = [info for name in tree.list_nodes() if (info := get(name)) is not None]
    for info in snapshot.node_info_list:
        if info.empty_containers & _AFFINITY_OR_PVCS == _AFFINITY_OR_PVCS:
            continue  # An entry's bits match its containers (NodeInfo.snapshot copies them): nothing to collect.
        if info.pods_with_affinity:
            with_affinity.append(info)
        if info.pods_with_required_anti_affinity:
            with_anti_affinity.append(info)
        used_pvcs.update(info.pvc_ref_counts)
    snapshot.have_pods_with_affinity_node_info_list = with_affinity
    snapshot.have_pods_with_required_anti_affinity_node_info_list = with_anti_affinity
    if pvc_delta is None:
        snapshot.used_pvc_set = used_pvcs
    elif update_all:
        counts: dict[str, int] = {}
        for info in snapshot.node_info_list:
            for key, count in info.pvc_ref_counts.items():
                counts[key] = counts.get(key, 0) + count
        snapshot.used_pvc_ref_counts = counts
        snapshot.used_pvc_set = set(counts)
        pvc_delta.clear()
