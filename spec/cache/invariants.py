"""Every invariant of the cache and snapshot, once, as a named predicate.

Each predicate returns True when the invariant holds. They are the single definition used by the
Hypothesis state machines, the model checker, the Z3 encodings (which are checked against them)
and the documentation's invariant catalogue.

Kubernetes keeps some invariants only while its inputs follow the *informer contract* (see
:mod:`spec.cache.contract`): a stream of events whose "old" and "deleted" objects are the ones the
cache last saw. :data:`STATE_INVARIANTS` records, for each predicate, whether it holds for every
input or only under the contract. :data:`KNOWN_VIOLATIONS` lists invariants that a reader would
expect but that Kubernetes does not keep even under the contract; tests show each with a trace.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from itertools import pairwise
from typing import Final

from spec.cache.cache import CacheState, clone_node_info
from spec.cache.imagestates import ImageStateSummary
from spec.cache.nodeinfo import HostPort, NodeInfo, host_port, pod_with_affinity, pod_with_required_anti_affinity
from spec.cache.nodetree import get_zone_key, list_nodes
from spec.cache.snapshot import Snapshot
from spec.frozenmap import FrozenMap
from spec.objects import Pod, pvc_key
from spec.quantities import Timestamp
from spec.resources import compute_pod_resource, get_host_ports, resource_from_list

# ============================================================================================
# Pods
# ============================================================================================


def inv_pod_states_keyed_by_uid(state: CacheState) -> bool:
    """Every pod state is stored under its pod's UID (``GetPodKey``)."""
    return all(key == ps.pod.uid for key, ps in state.pod_states.items())


def inv_assumed_pods_subset_of_pod_states(state: CacheState) -> bool:
    """Every assumed key has a pod state; otherwise ``cleanupAssumedPods`` exits the process."""
    return state.assumed_pods <= state.pod_states.keys()


def inv_pod_on_at_most_one_node(state: CacheState) -> bool:
    """No double-booking of pods: each UID is charged to at most one NodeInfo, at most once.

    A pod counted twice would have its requests charged twice (or on two nodes), so the next
    cycle would see a node fuller, or emptier, than it is.
    """
    counts = Counter(pod.uid for info in state.nodes.values() for pod in info.pods)
    return all(count == 1 for count in counts.values())


def inv_pod_states_match_node_infos(state: CacheState) -> bool:
    """Every cached pod is in the pod list of its node's NodeInfo, and every pod there is cached.

    The object in the NodeInfo is the cached object itself (``podState.pod``).
    """
    placed = {(name, pod.uid): pod for name, info in state.nodes.items() for pod in info.pods}
    tracked = {(ps.pod.node_name, key): ps.pod for key, ps in state.pod_states.items()}
    return placed == tracked


def inv_deadline_only_after_finish_binding(state: CacheState) -> bool:
    """A deadline exists only for an assumed pod whose binding finished, and only if the TTL is not 0.

    Guards Kubernetes issue #106361: a deadline running while the bind call is still in flight
    let an assumed pod expire mid-binding, and a second pod overcommitted the node.
    """
    for key, ps in state.pod_states.items():
        if ps.binding_finished and key not in state.assumed_pods:
            return False
        if (ps.deadline is not None) != (ps.binding_finished and state.ttl != 0):
            return False
    return True


# ============================================================================================
# NodeInfo accounting
# ============================================================================================


def _nonzero_scalars(scalars: FrozenMap[str, int]) -> dict[str, int]:
    return {name: value for name, value in scalars.items() if value != 0}


def node_info_accounting_holds(info: NodeInfo, pod_level_resources: bool = True) -> bool:
    """Requested and NonZeroRequested are the sums over ``info.pods`` (see the ``inv_`` below)."""
    resources = [compute_pod_resource(p, pod_level_resources=pod_level_resources) for p in info.pods]
    scalars: Counter[str] = Counter()
    for r in resources:
        scalars.update(dict(r.resource.scalar_resources))
    req = info.requested
    return (
        req.milli_cpu == sum(r.resource.milli_cpu for r in resources)
        and req.memory == sum(r.resource.memory for r in resources)
        and req.ephemeral_storage == sum(r.resource.ephemeral_storage for r in resources)
        and req.allowed_pod_number == 0
        and _nonzero_scalars(req.scalar_resources) == {k: v for k, v in scalars.items() if v != 0}
        and info.non_zero_requested.milli_cpu == sum(r.non0_cpu for r in resources)
        and info.non_zero_requested.memory == sum(r.non0_mem for r in resources)
    )


def inv_requested_is_sum_of_pods(state: CacheState) -> bool:
    """On every node, Requested (and NonZeroRequested) is the sum of its assumed and added pods' requests.

    Scalar resources that returned to 0 stay in the map at 0, as in Kubernetes, so zero entries
    are ignored. AllowedPodNumber of Requested is never charged by pods.
    """
    return all(
        node_info_accounting_holds(info, state.profile.pod_level_resources) for info in state.nodes.values()
    )


def pods_host_ports(pods: tuple[Pod, ...]) -> frozenset[HostPort]:
    """The sanitised host ports of all ``pods``."""
    return frozenset(host_port(p.host_ip, p.protocol, p.host_port) for pod in pods for p in get_host_ports(pod))


def inv_used_ports_are_union_of_pods(state: CacheState) -> bool:
    """On every node, UsedPorts is the union of its pods' host ports.

    Holds only under the informer contract's premise that two pods on a node never share a host
    port: ``HostPortInfo`` is not reference-counted, so removing one of two pods sharing a port
    frees it for both (digest §5).
    """
    return all(info.used_ports == pods_host_ports(info.pods) for info in state.nodes.values())


def pvc_counts_of(pods: tuple[Pod, ...]) -> dict[str, int]:
    """``PVCRefCounts`` recomputed: one count per claim volume of each pod."""
    return dict(Counter(pvc_key(p.namespace, claim) for p in pods for claim in p.pvc_claims))


def inv_pvc_ref_counts_are_counts_of_pods(state: CacheState) -> bool:
    """On every node, PVCRefCounts counts each ``namespace/claim`` volume of its pods, with no zero entries."""
    return all(dict(info.pvc_ref_counts) == pvc_counts_of(info.pods) for info in state.nodes.values())


def inv_affinity_lists_match_pods(state: CacheState) -> bool:
    """On every node, PodsWithAffinity and PodsWithRequiredAntiAffinity hold exactly the pods that have them.

    Compared as multisets: the lists' order depends on the order of removals.
    """
    for info in state.nodes.values():
        with_affinity = sorted(p.uid for p in info.pods if pod_with_affinity(p))
        with_anti = sorted(p.uid for p in info.pods if pod_with_required_anti_affinity(p))
        if sorted(p.uid for p in info.pods_with_affinity) != with_affinity:
            return False
        if sorted(p.uid for p in info.pods_with_required_anti_affinity) != with_anti:
            return False
    return True


def inv_allocatable_matches_node(state: CacheState) -> bool:
    """Every NodeInfo with a node has that node's allocatable as Allocatable."""
    return all(
        info.allocatable == resource_from_list(info.node.allocatable)
        for info in state.nodes.values()
        if info.node is not None
    )


def inv_node_info_name_matches_key(state: CacheState) -> bool:
    """Every NodeInfo with a node is stored under that node's name."""
    return all(info.node is None or info.node.name == name for name, info in state.nodes.items())


def inv_no_empty_node_info_without_node(state: CacheState) -> bool:
    """A NodeInfo without a node (placeholder or ghost) exists only while it still holds pods."""
    return all(info.node is not None or len(info.pods) > 0 for info in state.nodes.values())


# ============================================================================================
# Generations and the most-recently-updated list
# ============================================================================================


def inv_node_list_is_node_infos(state: CacheState) -> bool:
    """The most-recently-updated list holds each NodeInfo's name exactly once."""
    return len(state.node_list) == len(set(state.node_list)) and set(state.node_list) == state.nodes.keys()


def inv_node_list_ordered_by_generation(state: CacheState) -> bool:
    """Along the list, generations strictly decrease, and none exceeds the global counter.

    ``UpdateSnapshot`` stops at the first NodeInfo not newer than the snapshot; this ordering is
    what makes that early stop see every change (generations are global since k8s #63262).
    """
    generations = [state.nodes[name].generation for name in state.node_list if name in state.nodes]
    return all(a > b for a, b in pairwise(generations)) and all(
        g <= state.generation for g in generations
    )


def trans_generations_only_grow(before: CacheState, after: CacheState) -> bool:
    """A transition never lowers the global counter, nor the generation of a NodeInfo that survives it."""
    return after.generation >= before.generation and all(
        after.nodes[name].generation >= info.generation for name, info in before.nodes.items() if name in after.nodes
    )


# ============================================================================================
# Node tree and image states
# ============================================================================================


def inv_node_tree_holds_live_nodes(state: CacheState) -> bool:
    """The node tree holds each node the cache has (NodeInfo with a node) once, in that node's zone.

    Holds under the informer contract; an ``AddNode`` for a node already present with another
    zone enters it twice (errata quirk).
    """
    live = {name: info.node for name, info in state.nodes.items() if info.node is not None}
    entries = [(zone, name) for zone, names in state.node_tree.zones for name in names]
    return len(entries) == len(live) and all(
        name in live and get_zone_key(live[name]) == zone for zone, name in entries
    )


def inv_image_states_match_nodes(state: CacheState) -> bool:
    """Each image's node set is exactly the live nodes whose node object lists it.

    So an image's NumNodes in a fresh clone equals the number of nodes holding it. Holds under
    the informer contract; ``RemoveNode`` with an object listing fewer images leaks the rest.
    """
    holders: dict[str, set[str]] = {}
    for name, info in state.nodes.items():
        if info.node is not None:
            for image in info.node.images:
                for image_name in image.names:
                    holders.setdefault(image_name, set()).add(name)
    return {k: set(v.nodes) for k, v in state.image_states.items()} == holders


def inv_image_refs_point_to_current_states(state: CacheState) -> bool:
    """Every live NodeInfo points at the current global summary of each of its node's images, and only those."""
    for name, info in state.nodes.items():
        if info.node is None:
            continue
        refs = state.image_refs.get(name, FrozenMap())
        wanted = {image_name for image in info.node.images for image_name in image.names}
        if set(refs) != wanted:
            return False
        if any(state.image_states[n].serial != ref.serial for n, ref in refs.items()):
            return False
    return True


# ============================================================================================
# Expiry
# ============================================================================================


def trans_expiry_only_after_finish_binding(before: CacheState, after: CacheState, now: Timestamp) -> bool:
    """``cleanup_assumed_pods(now)`` removes exactly the assumed pods whose binding finished and whose
    deadline ``now`` is strictly after, and leaves every other pod as it was.

    An assumed pod must never expire while its binding is in flight (k8s #106361), and a TTL of
    0 means it never expires. Stated here independently of the transition's own test.
    """

    def may_expire(key: str) -> bool:
        ps = before.pod_states[key]
        return ps.binding_finished and before.ttl != 0 and ps.deadline is not None and now > ps.deadline

    expired = {k for k in before.assumed_pods if may_expire(k)}
    return after.pod_states == FrozenMap(
        {k: ps for k, ps in before.pod_states.items() if k not in expired}
    ) and after.assumed_pods == before.assumed_pods - expired


# ============================================================================================
# Snapshot
# ============================================================================================


def _without_image_counts(info: NodeInfo) -> NodeInfo:
    sizes = FrozenMap({n: ImageStateSummary(s.size, 0) for n, s in info.image_states.items()})
    return NodeInfo(
        info.node, info.pods, info.pods_with_affinity, info.pods_with_required_anti_affinity, info.used_ports,
        info.requested, info.non_zero_requested, info.allocatable, sizes, info.pvc_ref_counts, info.generation,
    )


def inv_snapshot_matches_cache(cache: CacheState, snapshot: Snapshot) -> bool:
    """After a successful ``update_snapshot``, the snapshot is the cache's view of its live nodes.

    As Kubernetes' ``compareCacheWithNodeInfoSnapshot`` checks: one entry per node in the tree,
    each equal to a fresh clone of the cache's NodeInfo (generation included); the list holds
    the same nodes; the affinity lists are the list's nodes that have such pods, in list order;
    the PVC set is the union of the nodes' claims (v1.37: the claims its reference counts hold, which
    :func:`inv_snapshot_pvc_set_is_live_claims` compares with the nodes' claims); the generation is the newest
    NodeInfo's.
    Image counts are compared by size only: a clone's count is stale until that node changes
    (errata quirk), and the list's *order* is :func:`inv_snapshot_list_in_node_tree_order`.
    """
    live = [name for name, info in cache.nodes.items() if info.node is not None]
    m = snapshot.node_info_map
    expected_generation = cache.nodes[cache.node_list[0]].generation if cache.node_list else snapshot.generation
    return (
        len(m) == cache.node_tree.num_nodes == len(snapshot.node_info_list)
        and set(m) == set(live)
        and sorted(snapshot.node_info_list) == sorted(live)
        and all(_without_image_counts(m[n]) == _without_image_counts(clone_node_info(cache, n)) for n in live)
        and snapshot.have_pods_with_affinity_list
        == tuple(n for n in snapshot.node_info_list if m[n].pods_with_affinity)
        and snapshot.have_pods_with_required_anti_affinity_list
        == tuple(n for n in snapshot.node_info_list if m[n].pods_with_required_anti_affinity)
        and (
            snapshot.used_pvc_set == frozenset(snapshot.used_pvc_ref_counts)
            and all(count > 0 for count in snapshot.used_pvc_ref_counts.values())
            if cache.profile.incremental_pvc_ref_counts
            else inv_snapshot_pvc_set_is_live_claims(cache, snapshot)
        )
        and snapshot.generation == expected_generation
    )


def inv_snapshot_pvc_set_is_live_claims(cache: CacheState, snapshot: Snapshot) -> bool:
    """The snapshot's used-PVC set is the union of the claims of the pods on its live nodes.

    KNOWN VIOLATION from v1.37 (``incremental_pvc_ref_counts``): the counts follow the cache's delta, which also
    counts the claims of a pod on a node the cache has no node object for, until the next full rebuild.
    """
    live = [name for name, info in cache.nodes.items() if info.node is not None]
    m = snapshot.node_info_map
    return snapshot.used_pvc_set == frozenset(k for n in live if n in m for k in m[n].pvc_ref_counts)


def inv_snapshot_list_in_node_tree_order(cache: CacheState, snapshot: Snapshot) -> bool:
    """The snapshot's node list is in the node tree's round-robin order.

    KNOWN VIOLATION in Kubernetes (errata): the list is reordered only on a full rebuild, so a
    zone change, or a node removed and re-added between two updates, leaves it out of order
    with no error. Kept as a predicate so that the violation is shown, not hidden.
    """
    return snapshot.node_info_list == list_nodes(cache.node_tree)


# ============================================================================================
# Catalogue
# ============================================================================================

ALWAYS: Final = "always"
"""Holds after every sequence of operations that does not end the process."""
UNDER_CONTRACT: Final = "under the informer contract"
"""Holds when the inputs follow :mod:`spec.cache.contract`."""


@dataclass(frozen=True)
class StateInvariant:
    """A catalogue entry: a predicate on the cache state and the condition under which it holds."""

    predicate: Callable[[CacheState], bool]
    holds: str

    @property
    def name(self) -> str:
        """The predicate's name, which is the invariant's stable identifier."""
        return self.predicate.__name__


STATE_INVARIANTS: Final = (
    StateInvariant(inv_pod_states_keyed_by_uid, UNDER_CONTRACT),
    StateInvariant(inv_assumed_pods_subset_of_pod_states, ALWAYS),
    StateInvariant(inv_pod_on_at_most_one_node, UNDER_CONTRACT),
    StateInvariant(inv_pod_states_match_node_infos, UNDER_CONTRACT),
    StateInvariant(inv_deadline_only_after_finish_binding, ALWAYS),
    StateInvariant(inv_requested_is_sum_of_pods, ALWAYS),
    StateInvariant(inv_used_ports_are_union_of_pods, UNDER_CONTRACT),
    StateInvariant(inv_pvc_ref_counts_are_counts_of_pods, ALWAYS),
    StateInvariant(inv_affinity_lists_match_pods, UNDER_CONTRACT),
    StateInvariant(inv_allocatable_matches_node, ALWAYS),
    StateInvariant(inv_node_info_name_matches_key, ALWAYS),
    StateInvariant(inv_no_empty_node_info_without_node, ALWAYS),
    StateInvariant(inv_node_list_is_node_infos, ALWAYS),
    StateInvariant(inv_node_list_ordered_by_generation, ALWAYS),
    StateInvariant(inv_node_tree_holds_live_nodes, UNDER_CONTRACT),
    StateInvariant(inv_image_states_match_nodes, UNDER_CONTRACT),
    StateInvariant(inv_image_refs_point_to_current_states, UNDER_CONTRACT),
)
"""Every state invariant, with where it holds."""

KNOWN_VIOLATIONS: Final = (inv_snapshot_list_in_node_tree_order, inv_snapshot_pvc_set_is_live_claims)
"""Invariants Kubernetes does not keep even under the informer contract (shown by tests)."""


def violated_state_invariants(state: CacheState, *, contract: bool = True) -> list[str]:
    """Names of the state invariants that fail on ``state`` (only the ``always`` ones if not ``contract``)."""
    return [
        inv.name for inv in STATE_INVARIANTS if (contract or inv.holds == ALWAYS) and not inv.predicate(state)
    ]
