"""The node tree: Kubernetes' node_tree_test.go cases, and agreement with the spec's node tree on any sequence."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from refimpl.cache.node_tree import NodeTree, get_zone_key
from spec.cache import nodetree as spec_nodetree
from spec.errors import CacheError, ErrorKind, SchedulerExit
from spec.frozenmap import FrozenMap
from spec.objects import (
    LABEL_FAILURE_DOMAIN_BETA_REGION,
    LABEL_FAILURE_DOMAIN_BETA_ZONE,
    LABEL_TOPOLOGY_REGION,
    LABEL_TOPOLOGY_ZONE,
    Node,
)


def node(name: str, region: str | None = None, zone: str | None = None, beta: bool = False) -> Node:
    labels: dict[str, str] = {}
    if region is not None:
        labels[LABEL_FAILURE_DOMAIN_BETA_REGION if beta else LABEL_TOPOLOGY_REGION] = region
    if zone is not None:
        labels[LABEL_FAILURE_DOMAIN_BETA_ZONE if beta else LABEL_TOPOLOGY_ZONE] = zone
    return Node(name, labels=FrozenMap(labels))


ALL_NODES = [
    node("node-0", "region-1", "zone-1"),
    node("node-1", "region-1", "zone-2"),
    node("node-2", "region-2", "zone-2"),
    node("node-3", "region-2", "zone-2"),
    node("node-4", "region-1", "zone-1", beta=True),
    node("node-5", "region-1", "zone-2", beta=True),
    node("node-6"),
    node("node-7", zone="zone-2"),
]


def tree_of(*nodes: Node) -> NodeTree:
    tree = NodeTree()
    for each in nodes:
        tree.add_node(each)
    return tree


def test_zone_key_prefers_the_beta_labels_only_when_present() -> None:
    both = Node("n", labels=FrozenMap({LABEL_FAILURE_DOMAIN_BETA_ZONE: "", LABEL_TOPOLOGY_ZONE: "z1"}))
    assert get_zone_key(both) == ""
    assert get_zone_key(node("n", "r", None)) == "r:\x00:"
    assert get_zone_key(node("n", None, "z")) == ":\x00:z"
    assert get_zone_key(ALL_NODES[0]) == get_zone_key(ALL_NODES[4]) == "region-1:\x00:zone-1"


def test_add_node_groups_by_zone_and_ignores_duplicates() -> None:
    """TestNodeTree_AddNode."""
    tree = tree_of(*ALL_NODES[:6], ALL_NODES[0])
    assert tree.zones_view() == (
        ("region-1:\x00:zone-1", ("node-0", "node-4")),
        ("region-1:\x00:zone-2", ("node-1", "node-5")),
        ("region-2:\x00:zone-2", ("node-2", "node-3")),
    )
    assert tree.num_nodes == 6


def test_remove_node_drops_empty_zones_and_fails_for_unknown_nodes() -> None:
    """TestNodeTree_RemoveNode."""
    tree = tree_of(*ALL_NODES[:4])
    tree.remove_node(ALL_NODES[1])
    assert tree.zones == ["region-1:\x00:zone-1", "region-2:\x00:zone-2"]
    with pytest.raises(CacheError) as raised:
        tree.remove_node(ALL_NODES[7])
    assert raised.value.kind is ErrorKind.NODE_NOT_IN_TREE
    assert raised.value.message == 'node "node-7" in group ":\\x00:zone-2" was not found'
    assert tree.num_nodes == 3


def test_update_node_moves_a_node_whose_zone_changed() -> None:
    """TestNodeTree_UpdateNode: the node goes to the end of its new zone; an unknown old node is still added."""
    tree = tree_of(*ALL_NODES[:3])
    tree.update_node(ALL_NODES[0], node("node-0", "region-2", "zone-2"))
    assert tree.zones_view() == (
        ("region-1:\x00:zone-2", ("node-1",)),
        ("region-2:\x00:zone-2", ("node-2", "node-0")),
    )
    tree.update_node(node("node-9", "r", "z"), node("node-9", "r", "y"))
    assert tree.num_nodes == 4
    with pytest.raises(SchedulerExit):
        tree.update_node(None, node("node-10", "r", "z"))


def test_list_is_round_robin_over_zones_in_first_seen_order() -> None:
    """TestNodeTree_List."""
    tree = tree_of(*ALL_NODES[:8])
    assert tree.list_nodes() == ["node-0", "node-1", "node-2", "node-6", "node-7", "node-4", "node-5", "node-3"]
    assert NodeTree().list_nodes() == []


node_objects = st.builds(
    node, st.sampled_from(("a", "b", "c", "d")), st.sampled_from((None, "r1", "r2")),
    st.sampled_from((None, "z1", "z2")), st.booleans(),
)
tree_ops = st.lists(st.tuples(st.sampled_from(("add", "remove", "update")), node_objects, node_objects), max_size=30)


@given(tree_ops)
def test_node_tree_matches_the_spec(ops: list[tuple[str, Node, Node]]) -> None:
    """Any sequence of adds, removes and updates leaves the same zones, names, count and list as the spec's."""
    mine, theirs = NodeTree(), spec_nodetree.EMPTY_NODE_TREE
    for kind, first, second in ops:
        if kind == "add":
            mine.add_node(first)
            theirs = spec_nodetree.add_node(theirs, first)
        elif kind == "remove":
            outcomes = []
            try:
                mine.remove_node(first)
            except CacheError as error:
                outcomes.append(error)
            try:
                theirs = spec_nodetree.remove_node(theirs, first)
            except CacheError as error:
                outcomes.append(error)
            assert len(outcomes) in (0, 2) and (not outcomes or outcomes[0] == outcomes[1])
        else:
            new = Node(first.name, labels=second.labels)
            mine.update_node(first, new)
            theirs = spec_nodetree.update_node(theirs, first, new)
        assert mine.zones_view() == theirs.zones
        assert mine.num_nodes == theirs.num_nodes
        assert tuple(mine.list_nodes()) == spec_nodetree.list_nodes(theirs)
