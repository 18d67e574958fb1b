"""The node tree: live node names bucketed by zone, listed round-robin across zones.

This is ``nodeTree`` (pkg/scheduler/backend/cache/node_tree.go). Scheduling cycles visit nodes in
``list_nodes`` order, so that consecutive nodes come from different zones. Only nodes the cache
has received (``AddNode`` / ``UpdateNode``) are in the tree; placeholder and ghost NodeInfos
are not.
"""

from __future__ import annotations

from contextlib import suppress
from dataclasses import dataclass

from spec.errors import CacheError, ErrorKind, FatalKind, SchedulerExit
from spec.objects import (
    LABEL_FAILURE_DOMAIN_BETA_REGION,
    LABEL_FAILURE_DOMAIN_BETA_ZONE,
    LABEL_TOPOLOGY_REGION,
    LABEL_TOPOLOGY_ZONE,
    Node,
)
from spec.valuetypes import cached_hash

ZONE_SEPARATOR = ":\x00:"
"""``GetZoneKey`` joins region and zone with a NUL between colons, so neither can collide."""


def get_zone_key(node: Node) -> str:
    """``utilnode.GetZoneKey``: ``region + ":\\x00:" + zone``, or "" when both are empty.

    The deprecated ``failure-domain.beta.kubernetes.io`` labels are read first and the
    ``topology.kubernetes.io`` ones are the fallback (digest §6; errata 6).

    Kubernetes: `GetZoneKey` (staging/src/k8s.io/component-helpers/node/topology/helpers.go)
    """
    labels = node.labels
    zone = labels.get(LABEL_FAILURE_DOMAIN_BETA_ZONE, labels.get(LABEL_TOPOLOGY_ZONE, ""))
    region = labels.get(LABEL_FAILURE_DOMAIN_BETA_REGION, labels.get(LABEL_TOPOLOGY_REGION, ""))
    if region == "" and zone == "":
        return ""
    return region + ZONE_SEPARATOR + zone


def go_quote(text: str) -> str:
    """Go's ``%q`` for the strings that occur here (``strconv.Quote``): escapes and ``\\xNN``.

    Kubernetes: none (Go's `strconv.Quote`, which klog's `%q` uses)
    """
    escapes = {"\a": "\\a", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t",
               "\v": "\\v", "\\": "\\\\", '"': '\\"'}
    out = []
    for ch in text:
        if ch in escapes:
            out.append(escapes[ch])
        elif ord(ch) < 0x20 or ord(ch) == 0x7F:
            out.append(f"\\x{ord(ch):02x}")
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


@cached_hash
@dataclass(frozen=True)
class NodeTree:
    """Zones in the order they first appeared, each with its node names in insertion order.

    ``numNodes`` is derived (:attr:`num_nodes`) rather than stored: Kubernetes keeps it equal to
    the number of names stored, so the round-robin listing can never run out of zones early.
    """

    zones: tuple[tuple[str, tuple[str, ...]], ...] = ()

    @property
    def num_nodes(self) -> int:
        """``nodeTree.numNodes``: how many names the tree holds (a name in two zones counts twice)."""
        return sum(len(names) for _, names in self.zones)

    def names_in(self, zone: str) -> tuple[str, ...]:
        """The names in ``zone``, or () if the zone is absent."""
        return next((names for key, names in self.zones if key == zone), ())


EMPTY_NODE_TREE = NodeTree()


def add_node(tree: NodeTree, node: Node) -> NodeTree:
    """``nodeTree.addNode``: append the name to its zone, creating the zone at the end if new.

    A name already in *that* zone is left alone (Kubernetes logs "Did not add"); the same name
    under another zone is added a second time (errata quirk). Never fails.

    Kubernetes: `nodeTree.addNode` (pkg/scheduler/backend/cache/node_tree.go)
    """
    zone = get_zone_key(node)
    names = tree.names_in(zone)
    if node.name in names:
        return tree
    if any(key == zone for key, _ in tree.zones):
        return NodeTree(tuple((k, (*v, node.name) if k == zone else v) for k, v in tree.zones))
    return NodeTree((*tree.zones, (zone, (node.name,))))


def remove_node(tree: NodeTree, node: Node) -> NodeTree:
    """``nodeTree.removeNode``: drop the name from the zone of *this node object*.

    A zone left empty is dropped, keeping the order of the others. Fails with
    ``NodeNotInTree`` when the name is not in that zone.

    Kubernetes: `nodeTree.removeNode` (pkg/scheduler/backend/cache/node_tree.go)
    """
    zone = get_zone_key(node)
    names = tree.names_in(zone)
    if node.name not in names:
        raise CacheError(
            ErrorKind.NODE_NOT_IN_TREE,
            f"node {go_quote(node.name)} in group {go_quote(zone)} was not found",
        )
    remaining = tuple(n for n in names if n != node.name)
    zones = tuple(
        (k, remaining if k == zone else v) for k, v in tree.zones if k != zone or remaining
    )
    return NodeTree(zones)


def update_node(tree: NodeTree, old: Node | None, new: Node) -> NodeTree:
    """``nodeTree.updateNode``: move the node if its zone key changed, else change nothing.

    The move is a removal from the old zone (its error ignored) then an add, so the node goes to
    the end of its new zone. Membership is not checked when the zone is unchanged. A nil ``old``
    with a zoned ``new`` dereferences nil in Go: ``SchedulerExit(NilNodeDereference)``.

    Kubernetes: `nodeTree.updateNode` (pkg/scheduler/backend/cache/node_tree.go)
    """
    old_zone = get_zone_key(old) if old is not None else ""
    if old_zone == get_zone_key(new):
        return tree
    if old is None:
        raise SchedulerExit(FatalKind.NIL_NODE_DEREFERENCE, "nodeTree.updateNode: old node is nil")
    with suppress(CacheError):  # Kubernetes ignores whether the old node was in the tree.
        tree = remove_node(tree, old)
    return add_node(tree, new)


def list_nodes(tree: NodeTree) -> tuple[str, ...]:
    """``nodeTree.list``: names round-robin across zones: the first of each zone, then the second...

    Example: zones z1 = [a, b] and z2 = [c] list as a, c, b. Kubernetes' "all zones exhausted"
    error needs ``numNodes`` to exceed the names stored, which cannot happen (see NodeTree).

    Kubernetes: `nodeTree.list` (pkg/scheduler/backend/cache/node_tree.go)
    """
    result: list[str] = []
    depth = max((len(names) for _, names in tree.zones), default=0)
    for index in range(depth):
        result.extend(names[index] for _, names in tree.zones if index < len(names))
    return tuple(result)
