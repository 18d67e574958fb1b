"""Scenario tests: the Kubernetes cache behaviours, one test per behaviour.

Each test names the Kubernetes test (pkg/scheduler/backend/cache/cache_test.go, TTL era, digest
§13) or code path it follows. Expected values are worked out from Kubernetes' semantics in the
test itself (sums of requests, the swap-with-last removal order, error texts), not read back
from the spec.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from spec.cache import cache
from spec.cache.cache import CacheErrorAfterChange, CacheState, new_cache
from spec.cache.imagestates import ImageStateSummary
from spec.cache.nodeinfo import HostPort
from spec.errors import CacheError, ErrorKind, FatalKind, SchedulerExit
from spec.frozenmap import FrozenMap
from spec.objects import (
    LABEL_TOPOLOGY_ZONE,
    AffinityTerms,
    Container,
    ContainerImage,
    ContainerPort,
    Node,
    Pod,
    with_node_name,
)
from spec.quantities import SECOND, resource_list
from spec.resources import DEFAULT_MEMORY_REQUEST, DEFAULT_MILLI_CPU_REQUEST
from spec.versions import V1_34, V1_35, V1_36, V1_37

MIB = 2**20
TTL = 10 * SECOND


def make_pod(uid: str, node: str, cpu: int = 0, memory: int = 0, host_port: int = 0, **fields: object) -> Pod:
    """Like cache_test.go's makeBasePod: one container with the given requests and host port."""
    requests = resource_list(**{k: v for k, v in {"cpu": cpu, "memory": memory}.items() if v})
    ports = (ContainerPort(80, host_port=host_port),) if host_port else ()
    return Pod(uid, f"pod-{uid}", "node_info_cache_test", node, (Container("c", requests, ports),), **fields)  # type: ignore[arg-type]


def make_node(name: str, zone: str = "", images: tuple[ContainerImage, ...] = ()) -> Node:
    labels = FrozenMap({LABEL_TOPOLOGY_ZONE: zone}) if zone else FrozenMap()
    return Node(name, resource_list(cpu=1000, memory=100 * MIB, pods=10), labels=labels, images=images)


def error_of(call: object, *args: object) -> CacheError:
    with pytest.raises(CacheError) as caught:
        call(*args)  # type: ignore[operator]
    return caught.value


def requested(state: CacheState, node: str) -> tuple[int, int]:
    info = state.nodes[node]
    return info.requested.milli_cpu, info.requested.memory


# ----------------------------------------------------------------------------------------------
# Assume, forget
# ----------------------------------------------------------------------------------------------


def test_assume_pod_scheduled_aggregates_requests_and_ports() -> None:
    """TestAssumePodScheduled: assumed pods are charged to their node before any binding."""
    p1, p2 = make_pod("t1", "n1", 100, 500, 80), make_pod("t2", "n1", 200, 1024, 8080)
    state = cache.assume_pod(cache.assume_pod(new_cache(), p1), p2)
    info = state.nodes["n1"]
    assert requested(state, "n1") == (300, 1524)
    assert (info.non_zero_requested.milli_cpu, info.non_zero_requested.memory) == (300, 1524)
    assert info.used_ports == {HostPort("0.0.0.0", "TCP", 80), HostPort("0.0.0.0", "TCP", 8080)}
    assert info.node is None  # a placeholder: the node has not been added
    assert cache.is_assumed_pod(state, p1) and cache.pod_count(state) == 2
    again = error_of(cache.assume_pod, state, p1)
    assert (again.kind, again.message) == (
        ErrorKind.POD_ALREADY_IN_CACHE,
        "pod t1(node_info_cache_test/pod-t1) is in the cache, so can't be assumed",
    )
    forgotten = cache.forget_pod(cache.forget_pod(state, p1), p2)
    assert cache.pod_count(forgotten) == 0 and cache.node_count(forgotten) == 0  # empty placeholder deleted


def test_non_zero_defaults_for_pods_without_requests() -> None:
    """TestAssumePodScheduled's "no resource request" case: defaults count only in NonZeroRequested."""
    state = cache.assume_pod(new_cache(), make_pod("t", "n1"))
    info = state.nodes["n1"]
    assert requested(state, "n1") == (0, 0)
    assert (info.non_zero_requested.milli_cpu, info.non_zero_requested.memory) == (
        DEFAULT_MILLI_CPU_REQUEST,
        DEFAULT_MEMORY_REQUEST,
    )


def test_forget_checks_the_node_before_the_assumed_state() -> None:
    """ForgetPod: a pod object naming another node is refused, even for an added pod."""
    state = cache.add_pod(new_cache(), make_pod("a", "n1"))
    err = error_of(cache.forget_pod, state, make_pod("a", "n2"))
    # Kubernetes formats (argument's node, cached node), so the wording reads reversed.
    assert (err.kind, err.message) == (
        ErrorKind.POD_ASSUMED_ON_OTHER_NODE,
        "pod a(node_info_cache_test/pod-a) was assumed on n2 but assigned to n1",
    )
    not_assumed = error_of(cache.forget_pod, state, make_pod("a", "n1"))
    assert not_assumed.message == "pod a(node_info_cache_test/pod-a) wasn't assumed so cannot be forgotten"


@pytest.mark.parametrize(
    ("profile", "second_forget_fails"), [(V1_34, True), (V1_35, False), (V1_36, False), (V1_37, False)]
)
def test_second_forget_depends_on_the_version(profile: object, second_forget_fails: bool) -> None:
    """TestForgetPod: TTL-era code errors on the second forget; from v1.35 (PR #134157) it is a no-op."""
    p = make_pod("a", "n1", 100)
    state = cache.forget_pod(cache.assume_pod(new_cache(profile), p), p)  # type: ignore[arg-type]
    if second_forget_fails:
        assert error_of(cache.forget_pod, state, p).kind is ErrorKind.POD_NOT_ASSUMED
    else:
        assert cache.forget_pod(state, p) == state


def test_not_assumed_message_changed_in_v1_37() -> None:
    state = cache.add_pod(new_cache(V1_37), make_pod("a", "n1"))
    assert error_of(cache.forget_pod, state, make_pod("a", "n1")).message == (
        "pod a(node_info_cache_test/pod-a) is not assumed, so it cannot be removed or forgotten"
    )


# ----------------------------------------------------------------------------------------------
# Finish binding and expiry
# ----------------------------------------------------------------------------------------------


def test_expire_pod_only_after_finish_binding_and_past_the_deadline() -> None:
    """TestExpirePod: pod0 finished at 0 expires at 20s; pod1 never finished; pod2 finished late."""
    p0, p1, p2 = make_pod("p0", "n1", 100), make_pod("p1", "n1", 200), make_pod("p2", "n1", 300)
    state = new_cache(ttl=TTL)
    for p in (p0, p1, p2):
        state = cache.assume_pod(state, p)
    state = cache.finish_binding(state, p0, 0)
    state = cache.finish_binding(state, p2, 15 * SECOND)  # deadline 25s
    state = cache.cleanup_assumed_pods(state, 20 * SECOND)
    assert set(state.pod_states) == {"p1", "p2"}
    # removeFromSlice moves the last pod into the freed slot: [p0, p1, p2] -> [p2, p1].
    assert [p.uid for p in state.nodes["n1"].pods] == ["p2", "p1"]
    assert requested(state, "n1") == (500, 0)
    assert state.metrics.assumed_pods == 2 and state.metrics.pods == 2


def test_expiry_is_strictly_after_the_deadline() -> None:
    p = make_pod("a", "n1", 100)
    state = cache.finish_binding(cache.assume_pod(new_cache(ttl=TTL), p), p, 5 * SECOND)
    assert state.pod_states["a"].deadline == 15 * SECOND
    assert "a" in cache.cleanup_assumed_pods(state, 15 * SECOND).pod_states
    assert "a" not in cache.cleanup_assumed_pods(state, 15 * SECOND + 1).pod_states


def test_ttl_zero_never_expires() -> None:
    """The production TTL (durationToExpireAssumedPod = 0): no deadline, no expiry."""
    p = make_pod("a", "n1", 100)
    state = cache.finish_binding(cache.assume_pod(new_cache(ttl=0), p), p, 0)
    assert state.pod_states["a"].binding_finished and state.pod_states["a"].deadline is None
    assert "a" in cache.cleanup_assumed_pods(state, 10**6 * SECOND).pod_states


def test_finish_binding_again_restarts_the_clock_and_ignores_added_pods() -> None:
    p = make_pod("a", "n1", 100)
    state = cache.finish_binding(cache.assume_pod(new_cache(ttl=TTL), p), p, 0)
    state = cache.finish_binding(state, p, 7 * SECOND)
    assert state.pod_states["a"].deadline == 17 * SECOND
    added = cache.add_pod(state, p)
    assert cache.finish_binding(added, p, 0) == added
    assert cache.finish_binding(new_cache(ttl=TTL), p, 0) == new_cache(ttl=TTL)


def test_add_pod_after_expiration_adds_it_back() -> None:
    """TestAddPodAfterExpiration."""
    p = make_pod("a", "n1", 100, 500)
    state = cache.finish_binding(cache.assume_pod(new_cache(ttl=TTL), p), p, 0)
    state = cache.cleanup_assumed_pods(state, 20 * SECOND)
    assert cache.pod_count(state) == 0
    state = cache.add_pod(state, p)
    assert not cache.is_assumed_pod(state, p) and requested(state, "n1") == (100, 500)


def test_expiry_does_not_exist_after_v1_35() -> None:
    p = make_pod("a", "n1")
    for profile in (V1_36, V1_37):
        state = cache.assume_pod(new_cache(profile), p)
        assert error_of(cache.finish_binding, state, p, 0).kind is ErrorKind.UNSUPPORTED_OPERATION
        assert error_of(cache.cleanup_assumed_pods, state, 0).kind is ErrorKind.UNSUPPORTED_OPERATION
    with pytest.raises(ValueError, match="no assumed-pod expiry"):
        new_cache(V1_36, ttl=TTL)


# ----------------------------------------------------------------------------------------------
# Add, update, remove
# ----------------------------------------------------------------------------------------------


def test_add_pod_will_confirm_and_survives_cleanup() -> None:
    """TestAddPodWillConfirm: the confirmed pod survives; the other, finished, expires."""
    p1, p2 = make_pod("a", "n1", 100, 500, 80), make_pod("b", "n1", 200, 1024, 8080)
    state = new_cache(ttl=TTL)
    for p in (p1, p2):
        state = cache.finish_binding(cache.assume_pod(state, p), p, 0)
    state = cache.add_pod(state, p1)
    state = cache.cleanup_assumed_pods(state, 20 * SECOND)
    assert set(state.pod_states) == {"a"} and requested(state, "n1") == (100, 500)
    again = error_of(cache.add_pod, state, p1)
    assert (again.kind, again.message) == (
        ErrorKind.POD_ALREADY_ADDED,
        "pod a(node_info_cache_test/pod-a) was already in added state",
    )


def test_add_pod_always_updates_the_pod_object() -> None:
    """TestAddPodAlwaysUpdatesPodInfoInNodeInfo: AddPod stores the informer's object."""
    assumed = make_pod("a", "n1", 100, 500)
    confirmed = replace(assumed, priority=7)
    state = cache.add_pod(cache.assume_pod(new_cache(), assumed), confirmed)
    assert state.nodes["n1"].pods == (confirmed,)
    assert cache.get_pod(state, assumed) == confirmed


def test_add_pod_will_replace_assumed_on_another_node() -> None:
    """TestAddPodWillReplaceAssumed: the pod leaves the assumed node and is added where it was bound."""
    assumed = make_pod("a", "assumed-node", 100, 500)
    bound = with_node_name(assumed, "actual-node")
    state = cache.add_pod(cache.assume_pod(new_cache(), assumed), bound)
    assert "assumed-node" not in state.nodes  # the placeholder emptied and was deleted
    assert state.nodes["actual-node"].pods == (bound,)
    assert not cache.is_assumed_pod(state, bound)
    # The new node is the most recently updated, the old node's removal came just before.
    assert state.node_list[0] == "actual-node"
    updated = replace(bound, priority=3)
    assert cache.update_pod(state, bound, updated).nodes["actual-node"].pods == (updated,)


def test_update_pod_replaces_resources_and_ports() -> None:
    """TestUpdatePod: consecutive updates of an added pod."""
    v1, v2 = make_pod("a", "n1", 100, 500, 80), make_pod("a", "n1", 200, 1024, 8080)
    state = cache.add_pod(new_cache(), v1)
    state = cache.update_pod(state, v1, v2)
    assert requested(state, "n1") == (200, 1024)
    assert state.nodes["n1"].used_ports == {HostPort("0.0.0.0", "TCP", 8080)}
    state = cache.update_pod(state, v2, v1)
    assert requested(state, "n1") == (100, 500)


def test_update_and_get_unknown_pods_fail() -> None:
    """TestUpdatePodAndGet."""
    p = make_pod("a", "n1")
    assert error_of(cache.get_pod, new_cache(), p).message == (
        "pod a(node_info_cache_test/pod-a) does not exist in scheduler cache"
    )
    err = error_of(cache.update_pod, new_cache(), p, p)
    assert (err.kind, err.message) == (
        ErrorKind.POD_NOT_ADDED,
        "pod a(node_info_cache_test/pod-a) is not added to scheduler cache, so cannot be updated",
    )


def test_assumed_pods_cannot_be_updated() -> None:
    p = make_pod("a", "n1")
    err = error_of(cache.update_pod, cache.assume_pod(new_cache(), p), p, p)
    assert err.message == "assumed pod a(node_info_cache_test/pod-a) should not be updated"


def test_expire_add_update() -> None:
    """TestExpireAddUpdatePod: assume, expire, add, update."""
    v1, v2 = make_pod("a", "n1", 100, 500, 80), make_pod("a", "n1", 200, 1024, 8080)
    state = cache.finish_binding(cache.assume_pod(new_cache(ttl=TTL), v1), v1, 0)
    state = cache.cleanup_assumed_pods(state, 20 * SECOND)
    state = cache.update_pod(cache.add_pod(state, v1), v1, v2)
    assert requested(state, "n1") == (200, 1024)


def test_update_onto_another_node_ends_the_process() -> None:
    p = make_pod("a", "n1")
    with pytest.raises(SchedulerExit) as caught:
        cache.update_pod(cache.add_pod(new_cache(), p), p, with_node_name(p, "n2"))
    assert caught.value.kind is FatalKind.POD_UPDATED_ON_OTHER_NODE


def test_remove_pod_releases_it_and_a_second_removal_fails() -> None:
    """TestRemovePod (whose "assumed" and "bound" labels are swapped): removal works in both states."""
    node = make_node("n1")
    for add in (cache.add_pod, cache.assume_pod):
        p = make_pod("a", "n1", 100, 500)
        state = add(cache.add_node(cache.add_node(new_cache(), node), make_node("n2")), p)
        state = cache.remove_pod(state, p)
        assert requested(state, "n1") == (0, 0) and cache.pod_count(state) == 0
        assert state.node_list[0] == "n1"  # the owning node was updated last
        err = error_of(cache.remove_pod, state, p)
        assert err.message == (
            "pod a(node_info_cache_test/pod-a) is not found in scheduler cache, so cannot be removed from it"
        )


def test_remove_pod_accepts_a_stale_object_without_node_but_not_another_node() -> None:
    p = make_pod("a", "n1", 100)
    state = cache.add_pod(new_cache(), p)
    assert cache.pod_count(cache.remove_pod(state, with_node_name(p, ""))) == 0
    with pytest.raises(SchedulerExit) as caught:
        cache.remove_pod(state, with_node_name(p, "n2"))
    assert caught.value.kind is FatalKind.POD_REMOVED_FROM_OTHER_NODE


def test_empty_uid_is_rejected_by_every_pod_operation() -> None:
    p = Pod("", "nameless", node_name="n1")
    for call, args in (
        (cache.assume_pod, (p,)), (cache.forget_pod, (p,)), (cache.add_pod, (p,)), (cache.update_pod, (p, p)),
        (cache.remove_pod, (p,)), (cache.get_pod, (p,)), (cache.is_assumed_pod, (p,)),
        (cache.finish_binding, (p, 0)),
    ):
        err = error_of(call, new_cache(), *args)
        assert (err.kind, err.message) == (ErrorKind.INVALID_POD_KEY, "cannot get cache key for pod with empty UID")


def test_update_to_an_empty_uid_removes_first_then_fails() -> None:
    """updatePod removes the old pod before addPod reads the new key: an error after a change."""
    p = make_pod("a", "n1", 100)
    state = cache.add_pod(new_cache(), p)
    with pytest.raises(CacheErrorAfterChange) as caught:
        cache.update_pod(state, p, replace(p, uid=""))
    assert caught.value.kind is ErrorKind.INVALID_POD_KEY
    assert cache.pod_count(caught.value.state_after) == 0


def test_affinity_lists_follow_the_pods() -> None:
    p = make_pod("a", "n1", pod_affinity=AffinityTerms(), pod_anti_affinity=AffinityTerms(required=1))
    q = make_pod("b", "n1", pod_anti_affinity=AffinityTerms(preferred=1))
    state = cache.add_pod(cache.add_pod(new_cache(), p), q)
    info = state.nodes["n1"]
    assert [x.uid for x in info.pods_with_affinity] == ["a", "b"]  # a term-less struct still counts
    assert [x.uid for x in info.pods_with_required_anti_affinity] == ["a"]
    assert [x.uid for x in cache.remove_pod(state, p).nodes["n1"].pods_with_affinity] == ["b"]


def test_host_ports_are_not_reference_counted() -> None:
    """HostPortInfo is a set: removing one of two pods on the same port frees it for both (digest §5)."""
    p, q = make_pod("a", "n1", host_port=80), make_pod("b", "n1", host_port=80)
    state = cache.remove_pod(cache.add_pod(cache.add_pod(new_cache(), p), q), p)
    assert [x.uid for x in state.nodes["n1"].pods] == ["b"]
    assert state.nodes["n1"].used_ports == frozenset()


def test_pvc_ref_counts() -> None:
    p = make_pod("a", "n1", pvc_claims=("data", "data", "logs"))
    state = cache.add_pod(cache.add_node(new_cache(), make_node("n1")), p)
    assert dict(state.nodes["n1"].pvc_ref_counts) == {"node_info_cache_test/data": 2, "node_info_cache_test/logs": 1}
    assert dict(cache.remove_pod(state, p).nodes["n1"].pvc_ref_counts) == {}


# ----------------------------------------------------------------------------------------------
# Nodes
# ----------------------------------------------------------------------------------------------


def test_node_operators_and_ghosts() -> None:
    """TestNodeOperators: a removed node with pods stays as a ghost; its pods can still be removed."""
    p = make_pod("a", "n1", 100, 500)
    state = cache.add_node(cache.add_pod(new_cache(), p), make_node("n1", "z1"))  # placeholder adopted
    info = state.nodes["n1"]
    assert info.node == make_node("n1", "z1") and info.pods == (p,)
    assert (info.allocatable.milli_cpu, info.allocatable.allowed_pod_number) == (1000, 10)
    assert state.node_tree.num_nodes == 1
    ghost = cache.remove_node(state, make_node("n1", "z1"))
    assert ghost.nodes["n1"].node is None and ghost.nodes["n1"].pods == (p,)
    assert ghost.node_tree.num_nodes == 0 and cache.node_count(ghost) == 1
    assert cache.get_pod(ghost, p) == p
    with pytest.raises(CacheErrorAfterChange) as second:
        cache.remove_node(ghost, make_node("n1", "z1"))
    assert second.value.message == 'node "n1" in group ":\\x00:z1" was not found'
    assert second.value.state_after.nodes["n1"].generation > ghost.nodes["n1"].generation
    gone = cache.remove_pod(ghost, p)
    assert cache.node_count(gone) == 0


def test_remove_unknown_node_and_node_without_pods() -> None:
    err = error_of(cache.remove_node, new_cache(), make_node("x"))
    assert (err.kind, err.message) == (ErrorKind.NODE_NOT_FOUND, "node x is not found")
    state = cache.remove_node(cache.add_node(new_cache(), make_node("x")), make_node("x"))
    assert cache.node_count(state) == 0
    assert error_of(cache.remove_node, state, make_node("x")).kind is ErrorKind.NODE_NOT_FOUND


def test_image_states_count_nodes_and_orphans_stay_with_ghosts() -> None:
    image = ContainerImage(("nginx:1",), 100)
    state = cache.add_node(new_cache(), make_node("n1", images=(image,)))
    state = cache.add_node(state, make_node("n2", images=(image, ContainerImage(("nginx:1",), 999))))
    assert cache.dump(state).nodes["n1"].image_states == FrozenMap({"nginx:1": ImageStateSummary(100, 2)})
    state = cache.add_pod(state, make_pod("a", "n1"))
    ghost = cache.remove_node(state, make_node("n1", images=(image,)))
    assert cache.dump(ghost).nodes["n1"].image_states == FrozenMap({"nginx:1": ImageStateSummary(100, 1)})
    alone = cache.remove_node(ghost, make_node("n2", images=(image,)))
    assert "nginx:1" not in alone.image_states
    # The ghost's pointer now leads to a summary no node holds: size kept, no nodes.
    readded = cache.add_node(alone, make_node("n3", images=(ContainerImage(("nginx:1",), 555),)))
    assert cache.dump(readded).nodes["n1"].image_states == FrozenMap({"nginx:1": ImageStateSummary(100, 0)})
    assert cache.dump(readded).nodes["n3"].image_states == FrozenMap({"nginx:1": ImageStateSummary(555, 1)})


def test_generations_are_global_and_the_list_is_most_recent_first() -> None:
    state = new_cache()
    for name in ("a", "b", "c"):
        state = cache.add_node(state, make_node(name))
    assert state.node_list == ("c", "b", "a")
    generations = [state.nodes[n].generation for n in state.node_list]
    assert generations == sorted(generations, reverse=True) and len(set(generations)) == 3
    state = cache.add_pod(state, make_pod("p", "a"))
    assert state.node_list == ("a", "c", "b") and state.nodes["a"].generation == state.generation


def test_update_node_changes_allocatable_and_zone() -> None:
    state = cache.add_node(new_cache(), make_node("a", "z1"))
    bigger = replace(make_node("a", "z2"), allocatable=resource_list(cpu=8000, pods=10))
    state = cache.update_node(state, make_node("a", "z1"), bigger)
    assert state.nodes["a"].allocatable.milli_cpu == 8000
    assert state.node_tree.zones == ((":\x00:z2", ("a",)),)


def test_add_node_again_with_another_zone_enters_the_tree_twice() -> None:
    """Errata quirk: AddNode for a cached node carrying another zone label."""
    state = cache.add_node(cache.add_node(new_cache(), make_node("a", "z1")), make_node("a", "z2"))
    assert state.node_tree.num_nodes == 2 and cache.node_count(state) == 1


def test_metrics_are_published_by_cleanup_only() -> None:
    state = cache.assume_pod(cache.add_node(new_cache(ttl=TTL), make_node("n1")), make_pod("a", "n1"))
    assert state.metrics == cache.CacheSizeMetrics()
    assert cache.cleanup_assumed_pods(state, 0).metrics == cache.CacheSizeMetrics(assumed_pods=1, pods=1, nodes=1)
