"""The scheduling and binding cycles as a transition system over the scheduler and its cluster.

This is ``ScheduleOne``, ``schedulingCycle``, ``bindingCycle``, ``handleBindingCycleError`` and
the pod event handlers (pkg/scheduler/schedule_one.go, eventhandlers.go, v1.35; digest §C-D), at
the level a formal-methods reader needs. What it keeps:

- A scheduling cycle takes a pending pod, brings the snapshot up to date, and either places the
  pod on *any* node feasible in that snapshot (:mod:`spec.filters`; scoring only narrows the
  choice, so the spec leaves it open) by assuming it in the cache, or fails and requeues it.
  Reserve and Permit may still reject it; then the assumption is forgotten, so a failed
  scheduling cycle leaves the cache's contents as they were.
- A binding cycle, running concurrently, either binds the pod at the API server and calls
  ``FinishBinding``, or fails: ``FinishBinding`` if the bind was reached, then ``ForgetPod`` and
  a requeue if the pod still exists unbound.
- The informer later confirms a binding (``AddPod``); events for one pod arrive in order, but
  confirmations of different pods may be delayed and reordered.
- Deleting a pod that is assumed forgets it at once (PR #134157, v1.35); its binding then fails.

What it abstracts: the scheduling queue's order (any pending pod may go next; the order is
``refimpl``'s), scores, the dispatcher (a bind is one atomic step), Permit's waiting.
Every transition is a function ``(Cluster, ...) -> Cluster`` that raises
:class:`CycleNotEnabled` when its guard is false, so a model checker can enumerate them.
"""

from __future__ import annotations

from contextlib import suppress
from dataclasses import dataclass, field
from enum import StrEnum

from spec import cache as cache_ops
from spec.cache import CacheState, new_cache
from spec.errors import CacheError
from spec.filters import is_feasible
from spec.frozenmap import FrozenMap
from spec.objects import Node, Pod, with_node_name
from spec.quantities import Duration, Timestamp
from spec.snapshot import EMPTY_SNAPSHOT, Snapshot, SnapshotInconsistent, update_snapshot
from spec.valuetypes import cached_hash, replace
from spec.versions import DEFAULT_PROFILE, VersionProfile


class CycleNotEnabled(Exception):
    """The transition's guard is false in this state (the step cannot happen now)."""


class FailurePoint(StrEnum):
    """Where a scheduling or binding cycle can fail after a node was chosen."""

    RESERVE = "Reserve"
    PERMIT = "Permit"
    PRE_BIND = "PreBind"
    """Before the bind call: ``FinishBinding`` is not called."""
    BIND = "Bind"
    """The bind call itself failed: ``FinishBinding`` runs (deferred), then ``ForgetPod``."""


@cached_hash
@dataclass(frozen=True)
class Cluster:
    """The scheduler (cache, snapshot, queue, binding cycles) and what it talks to (API server, informer)."""

    cache: CacheState = field(default_factory=new_cache)
    snapshot: Snapshot = EMPTY_SNAPSHOT
    pending: FrozenMap[str, Pod] = field(default_factory=FrozenMap)
    """The scheduling queue: unscheduled pods waiting for a cycle, by UID."""
    binding: FrozenMap[str, Pod] = field(default_factory=FrozenMap)
    """Binding cycles in flight: the assumed pod (with its node) by UID."""
    api_pods: FrozenMap[str, Pod] = field(default_factory=FrozenMap)
    """The API server's pods; a bound pod has its node name."""
    unconfirmed: frozenset[str] = frozenset()
    """Pods the API server bound whose informer event has not reached the cache yet."""
    deleted: frozenset[str] = frozenset()
    """UIDs of deleted pods: the API server never gives a UID to a second object."""
    now: Timestamp = 0


def new_cluster(profile: VersionProfile = DEFAULT_PROFILE, ttl: Duration = 0) -> Cluster:
    """An empty cluster whose scheduler runs ``profile`` with the assumed-pod ``ttl``.

    Kubernetes: `New` (pkg/scheduler/scheduler.go)
    """
    return Cluster(cache=new_cache(profile, ttl))


def feasible_nodes(snapshot: Snapshot, pod: Pod) -> tuple[str, ...]:
    """The nodes of the snapshot, in list order, on which every filter passes for ``pod``.

    Kubernetes: `Scheduler.findNodesThatPassFilters` (pkg/scheduler/schedule_one.go)
    """
    return tuple(name for name in snapshot.node_info_list if is_feasible(pod, snapshot.node_info_map[name]))


def _require(condition: bool, why: str) -> None:
    if not condition:
        raise CycleNotEnabled(why)


def refreshed_snapshot(cluster: Cluster) -> Snapshot:
    """The snapshot a scheduling cycle reads: ``UpdateSnapshot`` of the cluster's snapshot from its cache, the
    cycle's first step. Never fails: an inconsistency fails the cycle in Kubernetes, and the snapshot it leaves
    (rebuilt for the next cycle) is returned.

    Kubernetes: `Scheduler.schedulePod` (pkg/scheduler/schedule_one.go)
    """
    try:
        return update_snapshot(cluster.cache, cluster.snapshot)
    except SnapshotInconsistent as error:
        return error.snapshot_after


# ============================================================================================
# Pods entering and leaving the cluster
# ============================================================================================


def create_pod(cluster: Cluster, pod: Pod) -> Cluster:
    """A user creates an unscheduled pod; the informer hands it to the scheduling queue.

    Fails with :class:`CycleNotEnabled` if the UID is or was in use, or the pod already names a node.

    Kubernetes: `Scheduler.addPodToSchedulingQueue` (pkg/scheduler/eventhandlers.go)
    """
    fresh = pod.uid != "" and pod.uid not in cluster.api_pods and pod.uid not in cluster.deleted
    _require(fresh, f"pod {pod.uid!r} has no UID or one already used")
    _require(pod.node_name == "", "a created pod must be unscheduled")
    return replace(
        cluster, api_pods=cluster.api_pods.set(pod.uid, pod), pending=cluster.pending.set(pod.uid, pod)
    )


def delete_pod(cluster: Cluster, uid: str) -> Cluster:
    """A user deletes a pod; the informer's delete event is handled (``deletePod``).

    A pending pod leaves the queue. A confirmed pod is removed from the cache. A pod that is
    assumed is forgotten at once (``handleAssumedPodDeletion``, PR #134157, from v1.35); in v1.34
    it stays assumed until its binding fails. Events of one pod arrive in order, so a pod whose
    binding is not yet confirmed cannot be deleted first (:class:`CycleNotEnabled`).

    Kubernetes: `Scheduler.deletePod` (pkg/scheduler/eventhandlers.go)
    Kubernetes: `Scheduler.handleAssumedPodDeletion` (pkg/scheduler/eventhandlers.go)
    """
    _require(uid in cluster.api_pods and uid not in cluster.unconfirmed, f"pod {uid} cannot be deleted now")
    pod = cluster.api_pods[uid]
    state = cluster.cache
    if pod.node_name and not cache_ops.is_assumed_pod(state, pod):
        state = cache_ops.remove_pod(state, pod)
    elif uid in state.assumed_pods and state.profile.forget_assumed_pod_on_delete:
        state = cache_ops.forget_pod(state, cache_ops.get_pod(state, pod))
    return replace(
        cluster,
        cache=state,
        api_pods=cluster.api_pods.remove(uid),
        pending=cluster.pending.remove(uid),
        deleted=cluster.deleted | {uid},
    )


# ============================================================================================
# Scheduling cycle
# ============================================================================================


def schedule_pod(cluster: Cluster, uid: str, node: str) -> Cluster:
    """A scheduling cycle that places pending pod ``uid`` on ``node`` and starts its binding cycle.

    Enabled when ``node`` is feasible for the pod in the refreshed snapshot. The pod is assumed
    on ``node`` (``AssumePod``), Reserve and Permit pass, and the binding cycle begins.

    Kubernetes: `Scheduler.schedulingCycle` (pkg/scheduler/schedule_one.go)
    """
    _require(uid in cluster.pending, f"pod {uid} is not pending")
    snapshot = refreshed_snapshot(cluster)
    pod = cluster.pending[uid]
    _require(node in feasible_nodes(snapshot, pod), f"node {node} is not feasible for pod {uid}")
    assumed = with_node_name(pod, node)
    return replace(
        cluster,
        cache=cache_ops.assume_pod(cluster.cache, assumed),
        snapshot=snapshot,
        pending=cluster.pending.remove(uid),
        binding=cluster.binding.set(uid, assumed),
    )


def fail_scheduling(cluster: Cluster, uid: str, node: str | None, point: FailurePoint | None) -> Cluster:
    """A scheduling cycle for pending pod ``uid`` that fails; the pod is requeued.

    With ``node`` None, no node is feasible (enabled only then): the cache is not touched. With a
    feasible ``node`` and ``point`` Reserve or Permit, the pod is assumed, rejected there, and
    forgotten (``Unreserve``, ``ForgetPod``), which restores the cache's contents.

    Kubernetes: `Scheduler.schedulingCycle` (pkg/scheduler/schedule_one.go)
    Kubernetes: `Scheduler.handleSchedulingFailure` (pkg/scheduler/schedule_one.go)
    """
    _require(uid in cluster.pending, f"pod {uid} is not pending")
    snapshot = refreshed_snapshot(cluster)
    pod = cluster.pending[uid]
    feasible = feasible_nodes(snapshot, pod)
    if node is None:
        _require(not feasible, f"pod {uid} fits somewhere")
        return replace(cluster, snapshot=snapshot)
    _require(node in feasible and point in (FailurePoint.RESERVE, FailurePoint.PERMIT), "not a scheduling failure")
    assumed = with_node_name(pod, node)
    state = cache_ops.forget_pod(cache_ops.assume_pod(cluster.cache, assumed), assumed)
    return replace(cluster, cache=state, snapshot=snapshot)


# ============================================================================================
# Binding cycle
# ============================================================================================


def bind_pod(cluster: Cluster, uid: str) -> Cluster:
    """The binding cycle of ``uid`` succeeds: the API server binds the pod, then ``FinishBinding``.

    Enabled while the pod exists unbound at the API server (else the bind fails:
    :func:`fail_binding`). The informer's confirmation follows later (:func:`confirm_binding`).

    Kubernetes: `Scheduler.bindingCycle` (pkg/scheduler/schedule_one.go)
    """
    _require(uid in cluster.binding, f"pod {uid} has no binding cycle")
    assumed = cluster.binding[uid]
    current = cluster.api_pods.get(uid)
    if current is None or current.node_name != "":
        raise CycleNotEnabled(f"pod {uid} is gone or bound")
    return replace(
        cluster,
        cache=_finish_binding(cluster.cache, assumed, cluster.now),
        binding=cluster.binding.remove(uid),
        api_pods=cluster.api_pods.set(uid, with_node_name(current, assumed.node_name)),
        unconfirmed=cluster.unconfirmed | {uid},
    )


def fail_binding(cluster: Cluster, uid: str, point: FailurePoint) -> Cluster:
    """The binding cycle of ``uid`` fails at PreBind or at the bind call (``handleBindingCycleError``).

    ``FinishBinding`` runs only if the bind was reached; then ``Unreserve`` and ``ForgetPod`` (its
    error, e.g. for a pod already forgotten on deletion, is only logged); the pod is requeued if
    the API server still has it unbound.

    Kubernetes: `Scheduler.handleBindingCycleError` (pkg/scheduler/schedule_one.go)
    """
    _require(uid in cluster.binding and point in (FailurePoint.PRE_BIND, FailurePoint.BIND), "no such binding")
    assumed = cluster.binding[uid]
    state = cluster.cache
    if point is FailurePoint.BIND:
        state = _finish_binding(state, assumed, cluster.now)
    with suppress(CacheError):  # Kubernetes logs it and sends no move event.
        state = cache_ops.forget_pod(state, assumed)
    current = cluster.api_pods.get(uid)
    pending = cluster.pending
    if current is not None and current.node_name == "":
        pending = pending.set(uid, current)
    return replace(cluster, cache=state, binding=cluster.binding.remove(uid), pending=pending)


def _finish_binding(state: CacheState, pod: Pod, now: Timestamp) -> CacheState:
    """``FinishBinding`` where the profile has it (removed after v1.35)."""
    return cache_ops.finish_binding(state, pod, now) if state.profile.assumed_pod_expiry else state


def confirm_binding(cluster: Cluster, uid: str) -> Cluster:
    """The informer delivers the bound pod: ``AddPod`` confirms the assumption (or re-adds an expired pod).

    Kubernetes: `Scheduler.addAssignedPodToCache` (pkg/scheduler/eventhandlers.go)
    """
    _require(uid in cluster.unconfirmed, f"no binding of {uid} awaits confirmation")
    pod = cluster.api_pods[uid]
    return replace(cluster, cache=cache_ops.add_pod(cluster.cache, pod), unconfirmed=cluster.unconfirmed - {uid})


# ============================================================================================
# Nodes and time
# ============================================================================================


def add_node(cluster: Cluster, node: Node) -> Cluster:
    """The informer delivers a new node (``AddNode``); enabled for a node the cache does not have live.

    Kubernetes: `Scheduler.addNodeToCache` (pkg/scheduler/eventhandlers.go)
    """
    current = cluster.cache.nodes.get(node.name)
    _require(current is None or current.node is None, f"node {node.name} exists")
    return replace(cluster, cache=cache_ops.add_node(cluster.cache, node))


def _live_node(cluster: Cluster, name: str) -> Node:
    current = cluster.cache.nodes.get(name)
    if current is None or current.node is None:
        raise CycleNotEnabled(f"node {name} does not exist")
    return current.node


def update_node(cluster: Cluster, node: Node) -> Cluster:
    """The informer delivers a changed node (``UpdateNode`` with the cached node as old).

    Kubernetes: `Scheduler.updateNodeInCache` (pkg/scheduler/eventhandlers.go)
    """
    return replace(cluster, cache=cache_ops.update_node(cluster.cache, _live_node(cluster, node.name), node))


def remove_node(cluster: Cluster, name: str) -> Cluster:
    """The informer delivers a node deletion (``RemoveNode``); pods bound there stay on a ghost.

    Kubernetes: `Scheduler.deleteNodeFromCache` (pkg/scheduler/eventhandlers.go)
    """
    return replace(cluster, cache=cache_ops.remove_node(cluster.cache, _live_node(cluster, name)))


def tick(cluster: Cluster, elapsed: Duration) -> Cluster:
    """Time passes and the cache's periodic cleanup runs (``cleanupAssumedPods`` in the TTL era).

    Kubernetes: `cacheImpl.cleanupAssumedPods` (pkg/scheduler/backend/cache/cache.go)
    """
    _require(elapsed >= 0, "time does not go back")
    now = cluster.now + elapsed
    state = cluster.cache
    if state.profile.assumed_pod_expiry:
        state = cache_ops.cleanup_assumed_pods(state, now)
    return replace(cluster, cache=state, now=now)
