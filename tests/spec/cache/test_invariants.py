"""Every invariant predicate can fail: each is shown a state corrupted in exactly its way.

A predicate that returned True for everything would pass every state machine; these tests make
sure each one rejects the corruption it exists to catch, and holds on a rich, valid state.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

import pytest

from spec.cache import cache
from spec.cache.cache import CacheState, PodState, new_cache
from spec.cache.imagestates import ImageRef, ImageState
from spec.cache.invariants import (
    STATE_INVARIANTS,
    inv_snapshot_list_in_node_tree_order,
    inv_snapshot_matches_cache,
    trans_expiry_only_after_finish_binding,
    trans_generations_only_grow,
)
from spec.cache.nodeinfo import HostPort
from spec.cache.nodetree import NodeTree
from spec.cache.snapshot import EMPTY_SNAPSHOT, update_snapshot
from spec.frozenmap import FrozenMap
from spec.objects import LABEL_TOPOLOGY_ZONE, AffinityTerms, Container, ContainerImage, ContainerPort, Node, Pod
from spec.quantities import SECOND, resource_list
from spec.resources import Resource

IMAGE = ContainerImage(("nginx:1",), 100)


def _node(name: str, zone: str) -> Node:
    return Node(name, resource_list(cpu=4000, pods=10), FrozenMap({LABEL_TOPOLOGY_ZONE: zone}), images=(IMAGE,))


def _pod(uid: str, node: str, **fields: object) -> Pod:
    container = Container("c", resource_list(cpu=100, memory=2**20), (ContainerPort(80, host_port=8080),))
    return Pod(uid, f"pod-{uid}", "ns", node, (container,), **fields)  # type: ignore[arg-type]


def valid_state() -> CacheState:
    """Two live nodes, an assumed pod with a deadline, added pods with affinity and claims, a ghost, a placeholder."""
    state = new_cache(ttl=30 * SECOND)
    for n in (_node("a", "z1"), _node("b", "z2"), _node("c", "z1")):
        state = cache.add_node(state, n)
    assumed = _pod("u1", "a")
    state = cache.finish_binding(cache.assume_pod(state, assumed), assumed, 5 * SECOND)
    state = cache.assume_pod(state, _pod("u2", "b", pvc_claims=("data",)))
    state = cache.add_pod(state, _pod("u3", "b", pod_affinity=AffinityTerms(), pod_anti_affinity=AffinityTerms(1)))
    state = cache.add_pod(state, _pod("u4", "c"))
    state = cache.remove_node(state, _node("c", "z1"))  # ghost holding u4
    return cache.add_pod(state, _pod("u5", "d"))  # placeholder


def _set_node_info(state: CacheState, name: str, **changes: object) -> CacheState:
    return replace(state, nodes=state.nodes.set(name, replace(state.nodes[name], **changes)))  # type: ignore[arg-type]


CORRUPTIONS: dict[str, Callable[[CacheState], CacheState]] = {
    "inv_pod_states_keyed_by_uid": lambda s: replace(
        s, pod_states=s.pod_states.remove("u3").set("u3", PodState(replace(s.pod_states["u3"].pod, uid="zz")))
    ),
    "inv_assumed_pods_subset_of_pod_states": lambda s: replace(s, assumed_pods=s.assumed_pods | {"gone"}),
    "inv_pod_on_at_most_one_node": lambda s: _set_node_info(s, "b", pods=(*s.nodes["b"].pods, s.nodes["a"].pods[0])),
    "inv_pod_states_match_node_infos": lambda s: replace(s, pod_states=s.pod_states.remove("u3")),
    "inv_deadline_only_after_finish_binding": lambda s: replace(
        s, pod_states=s.pod_states.set("u2", replace(s.pod_states["u2"], deadline=1))
    ),
    "inv_requested_is_sum_of_pods": lambda s: _set_node_info(
        s, "a", requested=replace(s.nodes["a"].requested, milli_cpu=s.nodes["a"].requested.milli_cpu + 1)
    ),
    "inv_used_ports_are_union_of_pods": lambda s: _set_node_info(
        s, "b", used_ports=s.nodes["b"].used_ports | {HostPort("0.0.0.0", "UDP", 53)}
    ),
    "inv_pvc_ref_counts_are_counts_of_pods": lambda s: _set_node_info(s, "b", pvc_ref_counts=FrozenMap({"ns/data": 2})),
    "inv_affinity_lists_match_pods": lambda s: _set_node_info(s, "b", pods_with_affinity=()),
    "inv_allocatable_matches_node": lambda s: _set_node_info(s, "a", allocatable=Resource(milli_cpu=1)),
    "inv_node_info_name_matches_key": lambda s: _set_node_info(
        s, "a", node=replace(_node("a", "z1"), name="x")
    ),
    "inv_no_empty_node_info_without_node": lambda s: _set_node_info(s, "d", pods=()),
    "inv_node_list_is_node_infos": lambda s: replace(s, node_list=(*s.node_list, s.node_list[0])),
    "inv_node_list_ordered_by_generation": lambda s: replace(s, node_list=tuple(reversed(s.node_list))),
    "inv_node_tree_holds_live_nodes": lambda s: replace(s, node_tree=NodeTree((*s.node_tree.zones, ("x", ("a",))))),
    "inv_image_states_match_nodes": lambda s: replace(
        s, image_states=s.image_states.set("nginx:1", replace(s.image_states["nginx:1"], nodes=frozenset({"a"})))
    ),
    "inv_image_refs_point_to_current_states": lambda s: replace(
        s, image_refs=s.image_refs.set("a", FrozenMap({"nginx:1": ImageRef(serial=99, size=100)}))
    ),
}


def test_every_state_invariant_has_a_corruption() -> None:
    assert set(CORRUPTIONS) == {inv.name for inv in STATE_INVARIANTS}


def test_valid_state_satisfies_every_invariant() -> None:
    state = valid_state()
    assert {"u1", "u2"} == state.assumed_pods and state.nodes["c"].node is None and state.nodes["d"].node is None
    for inv in STATE_INVARIANTS:
        assert inv.predicate(state), inv.name


@pytest.mark.parametrize("invariant", STATE_INVARIANTS, ids=lambda inv: inv.name)
def test_corruption_is_caught(invariant: object) -> None:
    name = invariant.name  # type: ignore[attr-defined]
    corrupted = CORRUPTIONS[name](valid_state())
    assert corrupted != valid_state()
    assert not invariant.predicate(corrupted), f"{name} did not notice its corruption"  # type: ignore[attr-defined]


def test_generations_only_grow_catches_a_lowered_generation() -> None:
    before = valid_state()
    assert trans_generations_only_grow(before, cache.add_pod(before, _pod("u9", "a")))
    assert not trans_generations_only_grow(before, replace(before, generation=before.generation - 1))
    lowered = _set_node_info(before, "a", generation=0)
    assert not trans_generations_only_grow(before, lowered)


def test_expiry_invariant_catches_early_and_unfinished_expiry() -> None:
    before = valid_state()  # u1 finished at 5s, deadline 35s; u2 still binding
    at_40 = cache.cleanup_assumed_pods(before, 40 * SECOND)
    assert trans_expiry_only_after_finish_binding(before, at_40, 40 * SECOND)
    assert "u1" not in at_40.pod_states and "u2" in at_40.pod_states
    assert not trans_expiry_only_after_finish_binding(before, at_40, 35 * SECOND)  # exactly at the deadline: too early
    unfinished_gone = replace(before, pod_states=before.pod_states.remove("u2"), assumed_pods=frozenset({"u1"}))
    assert not trans_expiry_only_after_finish_binding(before, unfinished_gone, 40 * SECOND)


def test_snapshot_invariants_catch_a_stale_snapshot() -> None:
    state = valid_state()
    snapshot = update_snapshot(state, EMPTY_SNAPSHOT)
    assert inv_snapshot_matches_cache(state, snapshot) and inv_snapshot_list_in_node_tree_order(state, snapshot)
    moved = cache.add_pod(state, _pod("u9", "a"))
    assert not inv_snapshot_matches_cache(moved, snapshot)  # not updated
    assert not inv_snapshot_matches_cache(state, replace(snapshot, generation=snapshot.generation + 1))
    assert not inv_snapshot_matches_cache(state, replace(snapshot, have_pods_with_affinity_list=()))
    assert not inv_snapshot_list_in_node_tree_order(state, replace(snapshot, node_info_list=("b", "a")))


def test_image_state_corruption_is_a_real_inconsistency() -> None:
    state = valid_state()
    assert state.image_states["nginx:1"] == ImageState(100, frozenset({"a", "b"}), state.image_states["nginx:1"].serial)
