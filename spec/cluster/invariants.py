"""Invariants of the scheduler in its cluster: crash and restart, several schedulers, the kubelets' admission.

They answer the two questions readers of the cache ask first.

*The cache is only in memory: what happens when the scheduler crashes?* Nothing is lost that matters. After a
restart has delivered the informers' initial lists, the cache is the one the API server's nodes and bound pods
build (:func:`inv_synced_cache_matches_api_server`: the same pods on the same nodes, Requested their sum); no pod is
ever bound twice, because the API server refuses to bind a bound pod (:func:`inv_no_pod_bound_twice`); and a pod
whose binding cycle was in flight at the crash ends bound where the cache has it, or pending again
(:func:`inv_crash_in_flight_pods_resolved`).

*If several schedulers place pods on the same nodes, what prevents over-committing them?* Not the schedulers:
each scheduler's cache may over-commit a node once it learns of another's pod
(:func:`spec.cycle.invariants.inv_no_node_overcommitted` on its view), and so may the bindings at the API server
(:func:`inv_bindings_fit_nodes`). Both are KNOWN VIOLATIONS with two schedulers (``ksspec check --system cluster
--schedulers 2 --known-violations`` prints the shortest trace); with one scheduler both hold, given the
environment assumptions in their docstrings. The kubelet is what prevents it: the pods a node admitted always
fit it (:func:`inv_admitted_pods_fit_nodes`), with any number of schedulers.

Each predicate reads one scheduler's view (a :class:`~spec.cycle.cycle.Cluster`; :func:`spec.cluster.cluster.view`); the
kubelet's and the API server's are the same in every view.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import reduce
from typing import Final

from spec.cache import cache as cache_ops
from spec.cache.cache import CacheState, new_cache
from spec.cluster.kubelet import admitted_pods_on, admitted_request, kubelet_node_info
from spec.cycle.cycle import Cluster, is_synced
from spec.cycle.invariants import fits_within, inv_no_node_overcommitted, node_info_fits
from spec.frozenmap import FrozenMap
from spec.resources import Resource


def cache_built_from_api_server(cluster: Cluster) -> CacheState:
    """The cache of a scheduler whose informers delivered exactly the API server's state: ``AddNode`` for every
    node (by name), then ``AddPod`` for every bound pod whose binding has reached the scheduler (by UID)."""
    state = new_cache(cluster.cache.profile, cluster.cache.ttl)
    for name in sorted(cluster.nodes):
        state = cache_ops.add_node(state, cluster.nodes[name])
    for uid, pod in sorted(cluster.api_pods.items()):
        if pod.node_name and uid not in cluster.unconfirmed:
            state = cache_ops.add_pod(state, pod)
    return state


def without_assumptions(state: CacheState) -> CacheState:
    """The cache with every assumed pod forgotten (``ForgetPod``): what its informers alone put there."""
    return reduce(lambda s, uid: cache_ops.forget_pod(s, s.pod_states[uid].pod), sorted(state.assumed_pods), state)


def cached_placements(state: CacheState) -> FrozenMap[str, object]:
    """Per NodeInfo that has a node or pods: the node, the set of pods, Requested, NonZeroRequested and the
    claim counts (neither the order of the pods, nor generations, nor a ghost's Allocatable, nor the used
    ports: ``HostPortInfo`` is a set, which :func:`~spec.cache.invariants.inv_used_ports_are_union_of_pods` checks
    where the informer contract holds)."""
    return FrozenMap({
        name: (info.node, frozenset(info.pods), info.requested, info.non_zero_requested, info.pvc_ref_counts)
        for name, info in state.nodes.items()
        if info.node is not None or info.pods
    })


def inv_synced_cache_matches_api_server(cluster: Cluster) -> bool:
    """Once the scheduler runs and its informers' initial lists are delivered, its cache, less its own
    assumptions, is the cache the API server's nodes and bound pods build (:func:`cache_built_from_api_server`):
    the same node objects, the same pods on each, and Requested, NonZeroRequested and claim counts their sums.

    This is what makes a crash harmless: a restarted scheduler rebuilds exactly this cache from the informers'
    lists (``WaitForCacheSync``), and one that never crashed holds the same. A pod whose binding event is still
    on its way counts for neither.

    Kubernetes: `Scheduler.addPod`, `Scheduler.addNodeToCache` (pkg/scheduler/eventhandlers.go); `runCommand`
    (cmd/kube-scheduler/app/server.go)
    """
    if not is_synced(cluster):
        return True
    return cached_placements(without_assumptions(cluster.cache)) == cached_placements(
        cache_built_from_api_server(cluster))


def inv_no_pod_bound_twice(cluster: Cluster) -> bool:
    """The API server accepted at most one binding of each pod. A crashed scheduler's request may land after
    its successor bound the pod, or the successor's after the request: the later one gets a ``Conflict``.

    Kubernetes: `BindingREST.setPodNodeAndMetadata` (pkg/registry/core/pod/storage/storage.go): "pod %v is
    already assigned to node %q"
    """
    return all(count <= 1 for count in cluster.bind_count.values())


def inv_crash_in_flight_pods_resolved(cluster: Cluster) -> bool:
    """A pod whose binding cycle was in flight when the scheduler crashed ends bound and cached where it is
    bound, or pending again: once the scheduler has restarted and synced and the crashed process's bind
    request was answered (or lost), the pod is deleted or failed; or unbound and queued (or in a new binding
    cycle), or unbound, terminating and skipped by ``ScheduleOne`` (:func:`spec.cycle.cycle.skip_pod`: it waits to be
    deleted, as :func:`spec.cycle.invariants.inv_every_pod_has_one_place` allows); or bound, and either in the cache
    on that node or with its binding event on the way.
    """
    if not is_synced(cluster):
        return True
    for uid in cluster.crashed_in_flight - set(cluster.orphaned):
        pod = cluster.api_pods.get(uid)
        if pod is None:
            if uid not in cluster.deleted and uid not in cluster.failed:
                return False
            continue
        if pod.node_name == "":
            if uid not in cluster.pending and uid not in cluster.binding and not pod.terminating:
                return False
            continue
        cached = cluster.cache.pod_states.get(uid)
        confirmed = (cached is not None and uid not in cluster.cache.assumed_pods
                     and cached.pod.node_name == pod.node_name)
        if uid not in cluster.unconfirmed and not confirmed:
            return False
    return True


def inv_bindings_fit_nodes(cluster: Cluster) -> bool:
    """The schedulers' decisions together do not over-commit a node: the API server's non-terminal pods bound
    to each node fit its allocatable, and their number its pod capacity.

    Holds with one scheduler and TTL 0 when (1) a node's allocatable never shrinks under its pods and (2) a
    crashed scheduler's bind requests are answered before its successor lists the pods (a restart waits out
    the leader-election lease, 15 s by default, a request rarely takes so long). KNOWN VIOLATION with two
    schedulers: each assumes a pod on a node with room for one, and both bindings succeed; and with one
    scheduler whose predecessor's bind lands late. The kubelets catch both (:func:`inv_admitted_pods_fit_nodes`).
    """
    bound: dict[str, list[str]] = {}
    for uid, pod in cluster.api_pods.items():
        if pod.node_name in cluster.nodes:
            bound.setdefault(pod.node_name, []).append(uid)
    return all(
        node_info_fits(kubelet_node_info(cluster.nodes[name], (cluster.api_pods[u] for u in sorted(uids))))
        for name, uids in bound.items()
    )


def inv_admitted_pods_fit_nodes(cluster: Cluster) -> bool:
    """No node is over-committed where it matters: on every node, the requests of the pods its kubelet admitted
    (as the kubelet counts them: extended resources the node lacks left out) fit its allocatable, and their
    number its pod capacity. Holds with any number of schedulers, crashes and restarts, given that a node's
    allocatable never shrinks under its pods (the kubelet does not evict admitted pods when it does).

    Kubernetes: `manager.canAdmitPod` (pkg/kubelet/allocation/allocation_manager.go)
    """
    for name, node in cluster.nodes.items():
        pods = admitted_pods_on(cluster, name)
        info = kubelet_node_info(node, ())
        total = reduce(_add, (admitted_request(p, info) for p in pods), Resource())
        if len(pods) > info.allocatable.allowed_pod_number or not fits_within(total, info.allocatable):
            return False
    return True


def _add(a: Resource, b: Resource) -> Resource:
    scalars = dict(a.scalar_resources.items())
    for name, quantity in b.scalar_resources.items():
        scalars[name] = scalars.get(name, 0) + quantity
    return Resource(a.milli_cpu + b.milli_cpu, a.memory + b.memory, a.ephemeral_storage + b.ephemeral_storage,
                    scalar_resources=FrozenMap(scalars))


CLUSTER_INVARIANTS: Final[tuple[Callable[[Cluster], bool], ...]] = (
    inv_synced_cache_matches_api_server,
    inv_no_pod_bound_twice,
    inv_crash_in_flight_pods_resolved,
    inv_admitted_pods_fit_nodes,
)
"""Invariants of a scheduler's view that hold in every reachable state, with any number of schedulers, crashes,
restarts and late bind requests (the kubelet's given the environment assumption of its docstring)."""

OVERCOMMIT_INVARIANTS: Final[tuple[Callable[[Cluster], bool], ...]] = (
    inv_no_node_overcommitted,
    inv_bindings_fit_nodes,
)
"""The scheduler-level over-commit, in each scheduler's cache and at the API server: hold with one scheduler
(TTL 0, the assumptions of their docstrings); known violations with several, or with late bind requests."""
