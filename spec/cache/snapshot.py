"""The snapshot a scheduling cycle reads, and how ``update_snapshot`` refreshes it from the cache.

This is ``Snapshot`` and ``cacheImpl.UpdateSnapshot`` (pkg/scheduler/backend/cache/snapshot.go,
cache.go; digest §8). Each scheduling cycle starts by bringing its snapshot up to date, then
reads only the snapshot, so the cache lock is held only for the update.

The update is incremental, and the spec models the algorithm rather than only its result,
because Kubernetes' observable result depends on it: the node list is reordered only on a full
rebuild, so after a zone change, or a node removed and re-added between two updates, the list
can lag behind the node tree (:func:`spec.cache.invariants.inv_snapshot_list_in_node_tree_order` is
a documented known violation); an image's ``num_nodes`` in an unchanged node is stale.

The snapshot's generation is the generation of the cache's most recently updated NodeInfo, so it
can go *down*: when that NodeInfo is deleted (its node removed with no pods left), the next head
is older. That is safe, only conservative: the next update re-clones a few unchanged nodes.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from spec.cache.cache import CacheState, clone_node_info
from spec.cache.nodeinfo import NodeInfo
from spec.cache.nodetree import go_quote, list_nodes
from spec.errors import CacheError, ErrorKind
from spec.frozenmap import FrozenMap
from spec.valuetypes import cached_hash, replace


@cached_hash
@dataclass(frozen=True)
class Snapshot:
    """``Snapshot``: NodeInfo clones of the live nodes, ordered lists, used PVCs, a generation."""

    node_info_map: FrozenMap[str, NodeInfo] = field(default_factory=FrozenMap)
    node_info_list: tuple[str, ...] = ()
    """Node names in node-tree order as of the last full rebuild."""
    have_pods_with_affinity_list: tuple[str, ...] = ()
    """The nodes of ``node_info_list`` with pods that have (anti-)affinity, in list order."""
    have_pods_with_required_anti_affinity_list: tuple[str, ...] = ()
    used_pvc_set: frozenset[str] = frozenset()
    """``namespace/claim`` keys of the PVCs used by pods on the listed nodes (v1.37: the keys of
    ``used_pvc_ref_counts``)."""
    generation: int = 0
    """The cache generation this snapshot is up to date with."""
    used_pvc_ref_counts: FrozenMap[str, int] = field(default_factory=FrozenMap)
    """Profiles with ``incremental_pvc_ref_counts``: ``usedPVCRefCounts``, positive counts by claim key."""
    pvc_ref_counts_consumed: FrozenMap[str, int] = field(default_factory=FrozenMap)
    """Profiles with ``incremental_pvc_ref_counts``: the cache's
    :attr:`~spec.cache.cache.CacheState.pvc_ref_counts_total`
    when this snapshot last took the delta (Kubernetes then cleared ``pvcRefCountsDelta``)."""


EMPTY_SNAPSHOT = Snapshot()
"""``NewEmptySnapshot()``."""


class SnapshotInconsistent(CacheError):
    """``UpdateSnapshot`` found the list and the tree of different lengths; carries the recovered snapshot.

    Kubernetes rebuilds the lists for the next cycle and still returns the error, which fails
    the current cycle.
    """

    def __init__(self, message: str, snapshot_after: Snapshot) -> None:
        super().__init__(ErrorKind.SNAPSHOT_INCONSISTENT, message)
        self.snapshot_after = snapshot_after


# ============================================================================================
# Queries
# ============================================================================================


def num_nodes(snapshot: Snapshot) -> int:
    """``NumNodes``: the length of the node list.

    Kubernetes: `Snapshot.NumNodes` (pkg/scheduler/backend/cache/snapshot.go)
    """
    return len(snapshot.node_info_list)


def get_node_info(snapshot: Snapshot, name: str) -> NodeInfo:
    """``Get``: the NodeInfo of a node. Fails with ``NodeNotFound`` if the snapshot has no such node.

    Kubernetes: `Snapshot.Get` (pkg/scheduler/backend/cache/snapshot.go)
    """
    info = snapshot.node_info_map.get(name)
    if info is None or info.node is None:
        raise CacheError(ErrorKind.NODE_NOT_FOUND, f"nodeinfo not found for node name {go_quote(name)}")
    return info


def is_pvc_used_by_pods(snapshot: Snapshot, key: str) -> bool:
    """``IsPVCUsedByPods``: whether a pod on a listed node uses the claim ``namespace/claim``.

    Kubernetes: `Snapshot.IsPVCUsedByPods` (pkg/scheduler/backend/cache/snapshot.go)
    """
    return key in snapshot.used_pvc_set


# ============================================================================================
# UpdateSnapshot
# ============================================================================================


def _rebuild_lists(cache: CacheState, snapshot: Snapshot, update_all: bool) -> Snapshot:
    """``updateNodeInfoSnapshotList``: recompute the derived lists, and the node list if ``update_all``.

    A full rebuild takes the node-tree order; names the map lacks are skipped (Kubernetes logs
    "Node exists in nodeTree but not in NodeInfoMap").
    """
    m = snapshot.node_info_map
    if update_all:
        order = tuple(name for name in list_nodes(cache.node_tree) if name in m)
    else:
        order = snapshot.node_info_list
    rebuilt = Snapshot(
        node_info_map=m,
        node_info_list=order,
        have_pods_with_affinity_list=tuple(n for n in order if m[n].pods_with_affinity),
        have_pods_with_required_anti_affinity_list=tuple(n for n in order if m[n].pods_with_required_anti_affinity),
        used_pvc_set=frozenset(key for n in order for key in m[n].pvc_ref_counts),
        generation=snapshot.generation,
    )
    if not cache.profile.incremental_pvc_ref_counts:
        return rebuilt
    if not update_all:  # v1.37 rebuilds the affinity lists only; the counts are the delta's
        return replace(
            rebuilt,
            used_pvc_set=snapshot.used_pvc_set,
            used_pvc_ref_counts=snapshot.used_pvc_ref_counts,
            pvc_ref_counts_consumed=snapshot.pvc_ref_counts_consumed,
        )
    counts: dict[str, int] = {}
    for name in order:
        for key, count in m[name].pvc_ref_counts.items():
            counts[key] = counts.get(key, 0) + count
    return replace(  # "reset the deltas if update all"
        rebuilt, used_pvc_ref_counts=FrozenMap(counts), pvc_ref_counts_consumed=cache.pvc_ref_counts_total
    )


def _apply_pvc_ref_count_delta(cache: CacheState, snapshot: Snapshot) -> Snapshot | None:
    """``applyPVCRefCountDelta``: add the delta since the snapshot last took it to its counts, dropping the claims
    that reach zero; None if a count goes below zero (Kubernetes then logs the error and rebuilds every list, which
    recounts and clears the delta, so the keys it had already applied do not matter).

    Kubernetes: `cacheImpl.applyPVCRefCountDelta` (pkg/scheduler/backend/cache/cache.go, v1.37)
    """
    counts = dict(snapshot.used_pvc_ref_counts)
    consumed = snapshot.pvc_ref_counts_consumed
    for key in sorted(set(cache.pvc_ref_counts_total) | set(consumed)):
        delta = cache.pvc_ref_counts_total.get(key, 0) - consumed.get(key, 0)
        if delta == 0:
            continue
        count = counts.get(key, 0) + delta
        if count < 0:
            return None
        if count == 0:
            counts.pop(key, None)
        else:
            counts[key] = count
    return replace(
        snapshot,
        used_pvc_ref_counts=FrozenMap(counts),
        used_pvc_set=frozenset(counts),
        pvc_ref_counts_consumed=cache.pvc_ref_counts_total,
    )


def _remove_deleted_nodes(cache: CacheState, m: dict[str, NodeInfo]) -> None:
    """``removeDeletedNodesFromSnapshot``: drop up to (map size - tree size) names no longer live.

    Kubernetes visits the map in Go's random order; which stale names go first matters only when
    there are more stale names than the excess (an inflated node tree, errata quirk). The spec
    visits names in sorted order.
    """
    to_delete = len(m) - cache.node_tree.num_nodes
    for name in sorted(m):
        if to_delete <= 0:
            break
        item = cache.nodes.get(name)
        if item is None or item.node is None:
            del m[name]
            to_delete -= 1


def update_snapshot(cache: CacheState, snapshot: Snapshot) -> Snapshot:
    """``UpdateSnapshot``: bring ``snapshot`` up to date with ``cache``; the cache is not changed.

    1. Walk the cache's nodes from the most recently updated while their generation is newer
       than the snapshot's; replace each live one's entry with a fresh clone, noting whether a
       node is new and whether the affinity lists or the PVC set must be recomputed.
    2. Take the generation of the most recently updated NodeInfo.
    3. If the map holds more nodes than the tree, remove the ones no longer live (full rebuild).
    4. v1.37 (``incremental_pvc_ref_counts``): without a full rebuild, apply the PVC reference-count delta; a count
       below zero asks for a full rebuild instead.
    5. Recompute the lists if anything above asked for it (a full rebuild recounts the claims).

    Fails with :class:`SnapshotInconsistent`, carrying a fully rebuilt snapshot, when the list
    and the tree then differ in length.

    Kubernetes: `cacheImpl.UpdateSnapshot` (pkg/scheduler/backend/cache/cache.go)
    """
    g0 = snapshot.generation
    update_all = update_affinity = update_anti_affinity = update_pvc = False
    m = dict(snapshot.node_info_map)
    for name in cache.node_list:
        item = cache.nodes[name]
        if item.generation <= g0:
            break
        if item.node is None:
            continue
        existing = m.get(name)
        if existing is None:
            update_all = True
            existing = NodeInfo()
        clone = clone_node_info(cache, name)
        if bool(existing.pods_with_affinity) != bool(clone.pods_with_affinity):
            update_affinity = True
        if bool(existing.pods_with_required_anti_affinity) != bool(clone.pods_with_required_anti_affinity):
            update_anti_affinity = True
        if not update_pvc:
            update_pvc = len(existing.pvc_ref_counts) != len(clone.pvc_ref_counts) or any(
                key not in existing.pvc_ref_counts for key in clone.pvc_ref_counts
            )
        m[name] = clone
    generation = cache.nodes[cache.node_list[0]].generation if cache.node_list else g0
    if len(m) > cache.node_tree.num_nodes:
        _remove_deleted_nodes(cache, m)
        update_all = True
    updated = replace(snapshot, node_info_map=FrozenMap(m), generation=generation)
    if cache.profile.incremental_pvc_ref_counts:
        update_pvc = False  # v1.37 has no such flag: the delta is applied instead
        if not update_all:
            applied = _apply_pvc_ref_count_delta(cache, updated)
            if applied is None:
                update_all = True  # "rebuilding node snapshot due to unexpected error from refreshing PVC ref counts"
            else:
                updated = applied
    if update_all or update_affinity or update_anti_affinity or update_pvc:
        updated = _rebuild_lists(cache, updated, update_all)
    tree_size = cache.node_tree.num_nodes
    if len(updated.node_info_list) != tree_size:
        message = (
            f"snapshot state is not consistent, length of NodeInfoList={len(updated.node_info_list)} "
            f"not equal to length of nodes in tree={tree_size} , length of NodeInfoMap={len(m)}, "
            f"length of nodes in cache={len(cache.nodes)}, trying to recover"
        )
        raise SnapshotInconsistent(message, _rebuild_lists(cache, updated, True))
    return updated
