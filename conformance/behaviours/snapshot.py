"""Observed behaviours of ``update_snapshot``: which rebuild conditions held and what the update did.

The conditions are those of :func:`spec.cache.snapshot.update_snapshot`, evaluated on the cache and on the snapshots
before and after the step; the list order is compared with :func:`spec.cache.nodetree.list_nodes`.
"""

from __future__ import annotations

from spec.cache.cache import CacheState, clone_node_info
from spec.cache.nodetree import list_nodes
from spec.cache.operations import Outcome
from spec.cache.snapshot import Snapshot
from spec.errors import ErrorKind


def snapshot_behaviours(cache: CacheState, before: Snapshot, after: Snapshot, outcome: Outcome) -> set[str]:
    """The rules an ``update_snapshot`` from ``before`` to ``after`` over ``cache`` exercised."""
    tags: set[str] = set()
    newer = [name for name in cache.node_list if cache.nodes[name].generation > before.generation]
    older_live = [n for n in cache.node_list if cache.nodes[n].generation <= before.generation
                  and cache.nodes[n].node is not None]
    live = [name for name in newer if cache.nodes[name].node is not None]
    known = set(before.node_info_map)
    if not newer and len(known) <= cache.node_tree.num_nodes:
        tags.add("snapshot.unchanged")
    if any(name in known for name in live):
        tags.add("snapshot.changed_node_recloned")
    if newer and older_live:
        tags.add("snapshot.older_nodes_kept")
    update_all = any(name not in known for name in live)
    if update_all:
        tags.add("snapshot.new_node_full_rebuild")
    if len(newer) > len(live):
        tags.add("snapshot.non_live_skipped")
    if len(known | set(live)) > cache.node_tree.num_nodes:
        tags.add("snapshot.removed_nodes_dropped")
        update_all = True
    for name in live:
        if name not in known:
            continue
        old, new = before.node_info_map[name], cache.nodes[name]
        if bool(old.pods_with_affinity) != bool(new.pods_with_affinity):
            tags.add("snapshot.affinity_list_rebuilt")
        if bool(old.pods_with_required_anti_affinity) != bool(new.pods_with_required_anti_affinity):
            tags.add("snapshot.anti_affinity_list_rebuilt")
        if set(old.pvc_ref_counts) != set(new.pvc_ref_counts):
            tags.add("snapshot.pvc_set_rebuilt")
            if len(old.pvc_ref_counts) == len(new.pvc_ref_counts):
                tags.add("snapshot.pvc_same_size_other_keys")
    tree_order = tuple(name for name in list_nodes(cache.node_tree) if name in after.node_info_map)
    if after.node_info_list != tree_order:
        tags.add("snapshot.list_order_stale")
    if after.generation < before.generation:
        tags.add("snapshot.generation_down")
    if outcome.kind == ErrorKind.SNAPSHOT_INCONSISTENT:
        tags.add("snapshot.inconsistent")
        update_all = True
    zones = cache.node_tree.zones
    if update_all and any(len(names) >= 2 for _, names in zones[:-1]):
        tags.add("node_tree.round_robin")
    live_entries = (n for n in after.node_info_map if n in cache.nodes and cache.nodes[n].node is not None)
    if any(after.node_info_map[n].image_states != clone_node_info(cache, n).image_states for n in live_entries):
        tags.add("snapshot.stale_image_count")
    return tags
