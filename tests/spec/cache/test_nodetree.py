"""The node tree: zone keys, round-robin listing, and its quirks.

Cases follow node_tree_test.go (TestNodeTree_AddNode/RemoveNode/UpdateNode/List) and
component-helpers GetZoneKey, as read in /work/notes and the digest §6.
"""

from __future__ import annotations

import pytest

from spec.cache.nodetree import EMPTY_NODE_TREE, add_node, get_zone_key, list_nodes, remove_node, update_node
from spec.errors import CacheError, ErrorKind, SchedulerExit
from spec.frozenmap import FrozenMap
from spec.objects import (
    LABEL_FAILURE_DOMAIN_BETA_REGION,
    LABEL_FAILURE_DOMAIN_BETA_ZONE,
    LABEL_TOPOLOGY_REGION,
    LABEL_TOPOLOGY_ZONE,
    Node,
)


def zoned(name: str, region: str = "", zone: str = "") -> Node:
    labels = {}
    if region:
        labels[LABEL_TOPOLOGY_REGION] = region
    if zone:
        labels[LABEL_TOPOLOGY_ZONE] = zone
    return Node(name, labels=FrozenMap(labels))


def test_zone_key_format() -> None:
    assert get_zone_key(Node("a")) == ""
    assert get_zone_key(zoned("a", "region-1", "zone-2")) == "region-1:\x00:zone-2"
    assert get_zone_key(zoned("a", "region-1")) == "region-1:\x00:"
    assert get_zone_key(zoned("a", zone="zone-2")) == ":\x00:zone-2"


def test_deprecated_labels_win_when_present_even_if_empty() -> None:
    both = Node("a", labels=FrozenMap({LABEL_FAILURE_DOMAIN_BETA_ZONE: "old", LABEL_TOPOLOGY_ZONE: "new"}))
    assert get_zone_key(both) == ":\x00:old"
    empty_beta = Node("a", labels=FrozenMap({LABEL_FAILURE_DOMAIN_BETA_REGION: "", LABEL_TOPOLOGY_REGION: "r"}))
    assert get_zone_key(empty_beta) == ""


def test_round_robin_listing() -> None:
    tree = EMPTY_NODE_TREE
    for n in (zoned("a", zone="z1"), zoned("b", zone="z1"), zoned("c", zone="z2")):
        tree = add_node(tree, n)
    assert list_nodes(tree) == ("a", "c", "b")
    assert tree.num_nodes == 3


def test_duplicate_add_in_same_zone_is_ignored_but_another_zone_adds_twice() -> None:
    tree = add_node(EMPTY_NODE_TREE, zoned("a", zone="z1"))
    assert add_node(tree, zoned("a", zone="z1")) == tree
    twice = add_node(tree, zoned("a", zone="z2"))
    assert twice.num_nodes == 2 and list_nodes(twice) == ("a", "a")


def test_remove_drops_empty_zones_and_keeps_order() -> None:
    tree = EMPTY_NODE_TREE
    for n in (zoned("a", zone="z1"), zoned("b", zone="z2"), zoned("c", zone="z3")):
        tree = add_node(tree, n)
    tree = remove_node(tree, zoned("b", zone="z2"))
    assert [z for z, _ in tree.zones] == [":\x00:z1", ":\x00:z3"]
    assert list_nodes(tree) == ("a", "c")


def test_remove_of_a_node_not_in_that_zone_fails_with_go_quoted_message() -> None:
    tree = add_node(EMPTY_NODE_TREE, zoned("a", "r", "z1"))
    with pytest.raises(CacheError) as caught:
        remove_node(tree, zoned("a", "r", "z2"))
    assert caught.value.kind is ErrorKind.NODE_NOT_IN_TREE
    assert caught.value.message == 'node "a" in group "r:\\x00:z2" was not found'


def test_update_moves_a_node_to_the_end_of_its_new_zone() -> None:
    tree = EMPTY_NODE_TREE
    for n in (zoned("a", zone="z1"), zoned("b", zone="z2"), zoned("c", zone="z2")):
        tree = add_node(tree, n)
    tree = update_node(tree, zoned("b", zone="z2"), zoned("b", zone="z1"))
    assert tree.names_in(":\x00:z1") == ("a", "b")
    assert list_nodes(tree) == ("a", "c", "b")


def test_update_with_unchanged_zone_is_a_no_op_and_unknown_old_is_still_added() -> None:
    tree = add_node(EMPTY_NODE_TREE, zoned("a", zone="z1"))
    assert update_node(tree, zoned("a", zone="z1"), zoned("a", zone="z1")) == tree
    assert list_nodes(update_node(tree, zoned("x", zone="z9"), zoned("x", zone="z2"))) == ("a", "x")


def test_update_from_nil_old_node_to_a_zoned_node_ends_the_process() -> None:
    with pytest.raises(SchedulerExit):
        update_node(EMPTY_NODE_TREE, None, zoned("a", zone="z1"))
    assert update_node(EMPTY_NODE_TREE, None, Node("a")) == EMPTY_NODE_TREE  # both zones "", no-op
