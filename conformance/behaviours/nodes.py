"""Observed behaviours of node objects: the node tree's zones and the cache-global image states.

They are read off the node objects a step names and the spec's node tree and image states before and after it
(:mod:`spec.cache.nodetree`, :mod:`spec.cache.imagestates`).
"""

from __future__ import annotations

from spec.cache.cache import CacheState
from spec.cache.nodetree import get_zone_key
from spec.objects import (
    LABEL_FAILURE_DOMAIN_BETA_REGION,
    LABEL_FAILURE_DOMAIN_BETA_ZONE,
    LABEL_TOPOLOGY_REGION,
    LABEL_TOPOLOGY_ZONE,
    Node,
)


def label_behaviours(node: Node) -> set[str]:
    """How ``node``'s labels make its zone key (:func:`spec.cache.nodetree.get_zone_key`)."""
    labels = node.labels
    tags: set[str] = set()
    if LABEL_TOPOLOGY_ZONE in labels and LABEL_FAILURE_DOMAIN_BETA_ZONE not in labels:
        tags.add("node_tree.zone_label")
    if LABEL_FAILURE_DOMAIN_BETA_ZONE in labels:
        tags.add("node_tree.beta_zone_label")
    for beta, ga in ((LABEL_FAILURE_DOMAIN_BETA_ZONE, LABEL_TOPOLOGY_ZONE),
                     (LABEL_FAILURE_DOMAIN_BETA_REGION, LABEL_TOPOLOGY_REGION)):
        if beta in labels and ga in labels and labels[beta] != labels[ga]:
            tags.add("node_tree.beta_label_wins")
    region = labels.get(LABEL_FAILURE_DOMAIN_BETA_REGION, labels.get(LABEL_TOPOLOGY_REGION, ""))
    zone = labels.get(LABEL_FAILURE_DOMAIN_BETA_ZONE, labels.get(LABEL_TOPOLOGY_ZONE, ""))
    if region:
        tags.add("node_tree.region_label")
        if not zone:
            tags.add("node_tree.region_without_zone")
    if get_zone_key(node) == "":
        tags.add("node_tree.no_zone")
    return tags


def tree_behaviours(before: CacheState, after: CacheState, node: Node, old: Node | None = None) -> set[str]:
    """What a node operation on ``node`` (with ``old`` for an update) did to the node tree."""
    tags: set[str] = set()
    zones_before, zones_after = dict(before.node_tree.zones), dict(after.node_tree.zones)
    zone = get_zone_key(node)
    if zone in zones_after and zone not in zones_before:
        tags.add("node_tree.zone_created")
    if any(z not in zones_after for z in zones_before):
        tags.add("node_tree.zone_dropped")
    names_before, names_after = zones_before.get(zone, ()), zones_after.get(zone, ())
    if node.name in names_after and node.name not in names_before and zone in zones_before:
        tags.add("node_tree.name_appended")
    homes_before = [z for z, names in zones_before.items() if node.name in names]
    homes_after = [z for z, names in zones_after.items() if node.name in names]
    if len(homes_after) > len(homes_before) and homes_before:
        tags.add("node_tree.entered_twice")
    return tags


def image_behaviours(before: CacheState, after: CacheState, node: Node, cached: Node | None) -> set[str]:
    """What a node operation with ``node`` (the cached object was ``cached``) did to the image states."""
    tags: set[str] = set()
    states_before, states_after = before.image_states, after.image_states
    for image in node.images:
        if len(image.names) > 1:
            tags.add("images.multiple_names")
        for name in image.names:
            current = states_after.get(name)
            previous = states_before.get(name)
            if current is not None and previous is None and node.name in current.nodes:
                tags.add("images.summary_created")
            if (current is not None and previous is not None and node.name in current.nodes
                    and image.size_bytes != current.size):
                tags.add("images.size_first_reported")
    for name, state in states_before.items():
        current = states_after.get(name)
        if current is None:
            tags.add("images.deleted_when_unused")
        elif len(current.nodes) < len(state.nodes):
            tags.add("images.released")
    if any(len(state.nodes) >= 2 for state in states_after.values()) and node.images:
        tags.add("images.shared")
    if cached is not None and cached.images != node.images and before.image_states != after.image_states:
        tags.add("images.released_by_object")
    if _orphans(after) - _orphans(before):
        tags.add("images.orphaned_in_ghost")
    return tags


def _orphans(state: CacheState) -> set[tuple[str, str]]:
    """(node, image) pairs where a NodeInfo without a node points at a summary no longer in the global map."""
    found = set()
    for name, info in state.nodes.items():
        if info.node is None:
            for image, ref in state.image_refs.get(name, {}).items():
                current = state.image_states.get(image)
                if current is None or current.serial != ref.serial:
                    found.add((name, image))
    return found
