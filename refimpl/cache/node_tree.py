"""The node tree: live node names bucketed by zone, listed round-robin across zones.

This is ``nodeTree`` (pkg/scheduler/backend/cache/node_tree.go) with ``utilnode.GetZoneKey``. Each zone keeps its
names in a dict used as an insertion-ordered set, so membership, append and removal are O(1) where Go scans a slice;
the order, and every quirk (a name entered under two zones, a zone change that ignores membership), is the same.
Not thread-safe: the cache lock guards it.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from contextlib import suppress
from itertools import chain, zip_longest

from spec.errors import CacheError, ErrorKind, FatalKind, SchedulerExit
from spec.objects import (
    LABEL_FAILURE_DOMAIN_BETA_REGION,
    LABEL_FAILURE_DOMAIN_BETA_ZONE,
    LABEL_TOPOLOGY_REGION,
    LABEL_TOPOLOGY_ZONE,
    Node,
)

ZONE_SEPARATOR = ":\x00:"
"""``GetZoneKey`` joins region and zone with a NUL between colons."""

_GO_ESCAPES = {"\a": "\\a", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t", "\v": "\\v",
               "\\": "\\\\", '"': '\\"'}


def go_quote(text: str) -> str:
    """Go's ``%q`` (``strconv.Quote``) for the strings that occur in node and zone names."""
    out = []
    for ch in text:
        escaped = _GO_ESCAPES.get(ch)
        if escaped is not None:
            out.append(escaped)
        elif ord(ch) < 0x20 or ord(ch) == 0x7F:
            out.append(f"\\x{ord(ch):02x}")
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


def get_zone_key(node: Node) -> str:
    """``utilnode.GetZoneKey``: ``region + ":\\x00:" + zone``, or "" if both are empty.

    The deprecated ``failure-domain.beta`` labels win; the ``topology.kubernetes.io`` ones are read only when the
    beta label is absent (not when it is present and empty).
    """
    labels = node.labels
    if not labels:
        return ""
    zone = labels.get(LABEL_FAILURE_DOMAIN_BETA_ZONE)
    if zone is None:
        zone = labels.get(LABEL_TOPOLOGY_ZONE, "")
    region = labels.get(LABEL_FAILURE_DOMAIN_BETA_REGION)
    if region is None:
        region = labels.get(LABEL_TOPOLOGY_REGION, "")
    if region == "" and zone == "":
        return ""
    return region + ZONE_SEPARATOR + zone


def round_robin(zones: Sequence[Collection[str]]) -> list[str]:
    """``nodeTree.list``'s order: the first name of every zone (in zone order), then the second of every zone,
    and so on, skipping the zones already exhausted.

    Its contracts are on :func:`refimpl.cache.contracts.node_tree_order`.
    """
    if len(zones) == 1:
        return list(zones[0])
    rows = zip_longest(*zones)
    return [name for name in chain.from_iterable(rows) if name is not None]


class NodeTree:
    """``nodeTree``: zone key to its names (in insertion order), the zones in first-seen order, and a count."""

    __slots__ = ("num_nodes", "tree", "zones")

    def __init__(self) -> None:
        self.tree: dict[str, dict[str, None]] = {}
        """Zone key to its node names; a dict is an ordered set here."""
        self.zones: list[str] = []
        """The zone keys, in the order they were first added."""
        self.num_nodes = 0
        """``numNodes``: names stored, a name entered under two zones counted twice."""

    def add_node(self, node: Node) -> None:
        """``addNode``: append the name to its zone (a new zone goes last). A name already there is ignored."""
        zone = get_zone_key(node)
        names = self.tree.get(zone)
        if names is None:
            self.zones.append(zone)
            self.tree[zone] = {node.name: None}
        elif node.name in names:
            return  # Kubernetes logs "Did not add to the NodeTree because it already exists".
        else:
            names[node.name] = None
        self.num_nodes += 1

    def remove_node(self, node: Node) -> None:
        """``removeNode``: drop the name from *this node object's* zone; an emptied zone is dropped.

        Fails with ``NodeNotInTree`` when the name is not in that zone.
        """
        zone = get_zone_key(node)
        names = self.tree.get(zone)
        if names is None or node.name not in names:
            raise CacheError(
                ErrorKind.NODE_NOT_IN_TREE, f"node {go_quote(node.name)} in group {go_quote(zone)} was not found"
            )
        del names[node.name]
        if not names:
            del self.tree[zone]
            self.zones.remove(zone)
        self.num_nodes -= 1

    def update_node(self, old: Node | None, new: Node) -> None:
        """``updateNode``: if the zone key changed, move the node to the end of its new zone.

        Membership is not checked: an unchanged zone is a no-op and a missing old entry is ignored. A nil ``old``
        with a zoned ``new`` dereferences nil in Go (``SchedulerExit``).
        """
        old_zone = get_zone_key(old) if old is not None else ""
        if old_zone == get_zone_key(new):
            return
        if old is None:
            raise SchedulerExit(FatalKind.NIL_NODE_DEREFERENCE, "nodeTree.updateNode: old node is nil")
        with suppress(CacheError):  # Kubernetes ignores whether the old node was in the tree.
            self.remove_node(old)
        self.add_node(new)

    def list_nodes(self) -> list[str]:
        """``list``: the first name of every zone, then the second of every zone, and so on.

        Kubernetes' "all zones exhausted" error needs ``num_nodes`` to exceed the names stored, which the
        operations above never allow.
        """
        return round_robin([self.tree[zone] for zone in self.zones])

    def zones_view(self) -> tuple[tuple[str, tuple[str, ...]], ...]:
        """The zones and their names, in order (for tests and debugging)."""
        return tuple((zone, tuple(self.tree[zone])) for zone in self.zones)
