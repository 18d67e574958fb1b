"""``Cache.update_snapshot``'s fast paths leave every result as the straightforward update gives it.

The optimised update decides "nothing changed" without the lock, makes a new snapshot entry by cloning straight
into a new object, copies Requested in place and skips entries without (anti-)affinity pods or claims when it
collects the lists. :func:`plain_update_snapshot` is the same algorithm written plainly (always under the lock, a
new entry is ``NodeInfo.empty()`` refreshed field by field, every container copied, every entry visited). Two
caches get the same random history of operations and of updates of two snapshots (sometimes replaced by new
ones); after each update the two snapshots must be equal in everything observable: entries, list order, which
entries are the same objects as before, the refreshed log, generation, claims, errors.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

import pytest
from hypothesis import event, example, given
from hypothesis import strategies as st

from conformance.adapters.refimpl_abstraction import abstract_node_info, abstract_snapshot
from refimpl.cache import Cache, NodeInfo, Snapshot
from refimpl.cache import snapshot as snapshots
from spec.cache.operations import (
    AddNode,
    AddPod,
    AssumePod,
    ForgetPod,
    Operation,
    RemoveNode,
    RemovePod,
    UpdateNode,
    UpdatePod,
)
from spec.errors import CacheError, ErrorKind
from spec.objects import Pod
from spec.versions import V1_34, V1_35, V1_37
from tests.refimpl.driver import Harness, RefOutcome, apply_refimpl, new_harness
from tests.support import strategies
from tests.support.machines import property_settings
from tests.support.universe import make_node

PLACED = Pod(uid="u1", name="pod-u1", namespace="default", node_name="n1")
SNAPSHOT_FAST_PATH_EXAMPLES = {"ci": 300, "dev": 300, "thorough": 3000, "fast": 50}
"""As the scheduler's fast-path comparison (tests/refimpl/scheduler/test_fast_paths.py)."""


def plain_clone_into(source: NodeInfo, into: NodeInfo, image_version: int | None) -> None:
    """``*into = *source.Snapshot()``, field by field, every container a new copy."""
    into._generations = source._generations
    into.node = source.node
    into.allocatable = source.allocatable
    into.image_states = source._frozen_image_states(image_version)
    into.pods = list(source.pods)
    into.pods_with_affinity = list(source.pods_with_affinity)
    into.pods_with_required_anti_affinity = list(source.pods_with_required_anti_affinity)
    into.used_ports = source.used_ports.clone()
    into.pvc_ref_counts = dict(source.pvc_ref_counts)
    into.requested = source.requested.clone()
    into.non_zero_requested = source.non_zero_requested.clone()
    into.generation = source.generation
    into.empty_containers = source.empty_containers


def plain_update_lists(cache: Cache, snapshot: Snapshot, update_all: bool) -> None:
    """``updateNodeInfoSnapshotList``, visiting every entry."""
    if update_all:
        snapshot.node_info_list = [snapshot.node_info_map[name] for name in cache._node_tree.list_nodes()
                                   if name in snapshot.node_info_map]
    listed = snapshot.node_info_list
    snapshot.have_pods_with_affinity_node_info_list = [info for info in listed if info.pods_with_affinity]
    snapshot.have_pods_with_required_anti_affinity_node_info_list = [
        info for info in listed if info.pods_with_required_anti_affinity]
    pvc_delta = cache._pvc_delta
    if pvc_delta is None:
        snapshot.used_pvc_set = {key for info in listed for key in info.pvc_ref_counts}
    elif update_all:
        counts: dict[str, int] = {}
        for info in listed:
            for key, count in info.pvc_ref_counts.items():
                counts[key] = counts.get(key, 0) + count
        snapshot.used_pvc_ref_counts = counts
        snapshot.used_pvc_set = set(counts)
        pvc_delta.clear()


def plain_update_snapshot(cache: Cache, snapshot: Snapshot) -> None:
    """``UpdateSnapshot`` as the straightforward code does it: under the lock, a map lookup per changed node."""
    with cache._lock:
        nodes, tree, pvc_delta = cache._nodes, cache._node_tree, cache._pvc_delta
        if len(snapshot.refreshed) > len(snapshot.node_info_map):
            snapshot.refreshed.clear()
            snapshot.refreshed_lost += 1
        update_all = update_lists = False
        item = nodes.head
        while item is not None and item.info.generation > snapshot.generation:
            info = item.info
            if info.node is not None:
                existing = snapshot.node_info_map.get(item.name)
                if existing is None:
                    update_all = True
                    existing = snapshot.node_info_map[item.name] = NodeInfo.empty()
                before = (bool(existing.pods_with_affinity), bool(existing.pods_with_required_anti_affinity),
                          set(existing.pvc_ref_counts))
                plain_clone_into(info, existing, cache._image_states.version)
                snapshot.refreshed.append(existing)
                after = (bool(existing.pods_with_affinity), bool(existing.pods_with_required_anti_affinity),
                         set(existing.pvc_ref_counts))
                if before[:2] != after[:2] or (pvc_delta is None and before[2] != after[2]):
                    update_lists = True
            item = item.next
        if nodes.head is not None:
            snapshot.generation = nodes.head.info.generation
        if len(snapshot.node_info_map) > tree.num_nodes:
            snapshots.remove_deleted_nodes_from_snapshot(nodes, tree, snapshot)
            update_all = True
        if pvc_delta is not None and not update_all and not snapshots.apply_pvc_ref_count_delta(snapshot, pvc_delta):
            update_all = True
        if update_all or update_lists:
            plain_update_lists(cache, snapshot, update_all)
        if len(snapshot.node_info_list) != tree.num_nodes:
            message = (
                f"snapshot state is not consistent, length of NodeInfoList={len(snapshot.node_info_list)} "
                f"not equal to length of nodes in tree={tree.num_nodes} , length of NodeInfoMap="
                f"{len(snapshot.node_info_map)}, length of nodes in cache={len(nodes)}, trying to recover"
            )
            plain_update_lists(cache, snapshot, True)
            raise CacheError(ErrorKind.SNAPSHOT_INCONSISTENT, message)


@dataclass(frozen=True)
class Update:
    """Update snapshot ``index`` (0 or 1); with ``fresh``, into a new Snapshot that replaces it; with ``read``, then
    clear its refreshed log, as the scheduler's node columns do each cycle (an unread log longer than the map
    sends the next update down the locked path, which drops it)."""

    index: int
    fresh: bool
    read: bool = True


def _observed(snapshot: Snapshot, previous: dict[str, NodeInfo]) -> dict[str, Any]:
    """Everything a reader of ``snapshot`` can see, entry identity across updates included."""
    return {
        "abstract": abstract_snapshot(snapshot),  # entries, list order, claims, generation; lists hold map entries
        "kept": sorted(name for name, info in snapshot.node_info_map.items() if previous.get(name) is info),
        "refreshed": [info.name for info in snapshot.refreshed],
        "refreshed_are_entries": [snapshot.node_info_map.get(info.name) is info for info in snapshot.refreshed],
        "refreshed_lost": snapshot.refreshed_lost,
    }


cache_operations = st.one_of(
    st.builds(AddNode, strategies.nodes),
    st.builds(UpdateNode, strategies.nodes, strategies.nodes),
    st.builds(RemoveNode, strategies.nodes),
    st.builds(AddPod, strategies.placed_pods),
    st.builds(AssumePod, strategies.placed_pods),
    st.builds(UpdatePod, strategies.placed_pods, strategies.placed_pods),
    st.builds(RemovePod, strategies.placed_pods),
    st.builds(ForgetPod, strategies.placed_pods),
)
updates = st.builds(Update, st.sampled_from((0, 1)), st.sampled_from((False, False, False, True)), st.booleans())
operations = st.booleans().flatmap(lambda update: updates if update else cache_operations)  # one_of would flatten
"""A cache operation or, as often, an update (frequently of an unchanged cache: the lock-free path)."""


N1, N2 = make_node("n1", "z1"), make_node("n2", "z1")
CLAIMING = Pod(uid="u1", name="pod-u1", namespace="default", node_name="n1", pvc_claims=("c1",))
OTHER = Pod(uid="u2", name="pod-u2", namespace="default", node_name="n2")


@property_settings(SNAPSHOT_FAST_PATH_EXAMPLES)
@example(profile=V1_35, history=[  # a pod-less node leaves without a new head generation: not unchanged
    AddNode(N1), AddNode(N2), AddPod(OTHER), Update(0, False), RemoveNode(N1), Update(0, False), Update(0, False)])
@example(profile=V1_37, history=[  # a ghost's last pod leaves a claim delta without a new head generation
    AddNode(N1), AddNode(N2), AddPod(CLAIMING), Update(0, False), RemoveNode(N1), AddPod(OTHER), Update(0, False),
    RemovePod(CLAIMING), Update(0, False), Update(0, False)])
@given(profile=st.sampled_from((V1_34, V1_35, V1_37)),
       history=st.lists(operations, min_size=8, max_size=40))
def test_update_snapshot_equals_the_straightforward_update(profile: Any, history: list[Operation | Update]) -> None:
    fast, plain = new_harness(profile), new_harness(profile)
    pairs: list[list[Snapshot]] = [[Snapshot(), Snapshot()], [Snapshot(), Snapshot()]]  # [fast, plain] per index
    previous: list[list[dict[str, NodeInfo]]] = [[{}, {}], [{}, {}]]
    for step in history:
        if not isinstance(step, Update):
            assert _outcome(apply_refimpl(fast, step)) == _outcome(apply_refimpl(plain, step)), step
            continue
        if step.fresh:
            pairs[step.index] = [Snapshot(), Snapshot()]
            previous[step.index] = [{}, {}]
        mine, theirs = pairs[step.index]
        before = mine.generation
        errors: list[CacheError | None] = []
        for harness, snapshot, update in ((fast, mine, Cache.update_snapshot), (plain, theirs, plain_update_snapshot)):
            try:
                update(harness.cache, snapshot)
                errors.append(None)
            except CacheError as error:
                errors.append(error)
        assert errors[0] == errors[1], (step, errors)
        seen = [_observed(s, p) for s, p in zip(pairs[step.index], previous[step.index], strict=True)]
        assert seen[0] == seen[1], step
        assert fast.cache._pvc_delta == plain.cache._pvc_delta, step  # what the next update applies (v1.37)
        previous[step.index] = [dict(s.node_info_map) for s in pairs[step.index]]
        if step.read:
            for snapshot in pairs[step.index]:
                snapshot.refreshed.clear()
        event("an update with nothing changed" if mine.generation == before and not step.fresh else "an update")
    assert _harness_nodes(fast) == _harness_nodes(plain)


def _outcome(outcome: RefOutcome) -> tuple[object, ...]:
    """How a cache operation ended, with the NodeInfo clone it returned (``NodeInfo.snapshot`` into a new object)."""
    returned = None if outcome.returned is None else abstract_node_info(outcome.returned)
    return outcome.status, outcome.kind, outcome.message, returned


def _harness_nodes(harness: Harness) -> list[str]:
    return harness.cache._nodes.names_by_recency()


def test_the_lock_free_path_takes_no_lock_and_a_change_takes_it() -> None:
    """With nothing changed the update returns before the lock (here one that fails if taken) and changes nothing;
    after a change it takes the lock."""
    cache = new_harness(V1_35).cache
    for name in ("n1", "n2"):
        cache.add_node(make_node(name, "z1"))
    snapshot = Snapshot()
    cache.update_snapshot(snapshot)
    before = _observed(snapshot, dict(snapshot.node_info_map))
    real = cache._lock
    cache._lock = NoLock()  # type: ignore[assignment]
    cache.update_snapshot(snapshot)
    assert _observed(snapshot, dict(snapshot.node_info_map)) == before
    cache._lock = real
    cache.add_pod(replace(PLACED, node_name="n1"))
    cache._lock = NoLock()  # type: ignore[assignment]
    with pytest.raises(AssertionError, match="the lock was taken"):
        cache.update_snapshot(snapshot)


class NoLock:
    """A lock that fails when taken."""

    def __enter__(self) -> None:
        raise AssertionError("the lock was taken")

    def __exit__(self, *exc: object) -> None:
        return None
