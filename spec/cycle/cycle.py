"""The scheduling and binding cycles as a transition system over the scheduler and its cluster.

This is ``ScheduleOne``, ``schedulingCycle``, ``bindingCycle``, ``handleBindingCycleError`` and
the pod event handlers (pkg/scheduler/schedule_one.go, eventhandlers.go, v1.35; digest §C-D), at
the level a formal-methods reader needs. What it keeps:

- A scheduling cycle takes a pending pod, brings the snapshot up to date, and either places the
  pod on *any* node feasible in that snapshot (:mod:`spec.cycle.filters`) by assuming it in the cache, or
  fails and requeues it. Which feasible nodes kube-scheduler may pick (the scores, the allowed hosts, the
  search's sampling) is :mod:`spec.cycle.select`; the invariants here hold for any feasible choice.
  Reserve and Permit may still reject it; then the assumption is forgotten, so a failed
  scheduling cycle leaves the cache's contents as they were.
- A binding cycle, running concurrently, either binds the pod at the API server and calls
  ``FinishBinding``, or fails: ``FinishBinding`` if the bind was reached, then ``ForgetPod`` and
  a requeue if the pod still exists unbound.
- The informer later confirms a binding (``AddPod``); events for one pod arrive in order, but
  confirmations of different pods may be delayed and reordered.
- Deleting a pod that is assumed forgets it at once (PR #134157, v1.35); its binding then fails. So does the
  graceful deletion that sets its ``DeletionTimestamp`` (v1.35 on; v1.34 ignores it), and the API server refuses to
  bind a pod being deleted, so its binding cycle fails at Bind.
- The scheduler takes only pods whose ``schedulerName`` its profile serves (``responsibleForPod``);
  every scheduler's cache gets every bound pod (``assignedPod``).
- Namespaces are the API server's (:attr:`Cluster.namespaces`); InterPodAffinity's PreFilter and PreScore read
  their labels through the namespace lister in every cycle, so relabelling a namespace (:func:`add_namespace`)
  changes which pods a term's ``namespaceSelector`` selects from the next cycle on.
- PodDisruptionBudgets are the API server's too (:attr:`Cluster.pdbs`); DefaultPreemption lists them through the
  PDB informer's lister in every PostFilter run, so a budget created or updated (:func:`add_pdb`) weighs on the
  choice of victims and of the node from the next preemption on.

The scheduler keeps all of this in memory. :mod:`spec.cluster.restart` crashes and restarts it (the API
server's objects, the orphaned bind requests and the informers' initial list are fields here),
:mod:`spec.cluster.kubelet` is the kubelet's admission on each node, and :mod:`spec.cluster.cluster` runs several
schedulers over one API server. While the scheduler is down, users' changes reach only the API
server; while it restarts, scheduling waits until the informers' initial list is delivered.

What it abstracts: the scheduling queue's order (any pending pod may go next; the order is
``refimpl``'s), the choice among feasible nodes (stated by :mod:`spec.cycle.select`), the dispatcher
(a bind is one atomic step), Permit's waiting.
Every transition is a function ``(Cluster, ...) -> Cluster`` that raises
:class:`CycleNotEnabled` when its guard is false, so a model checker can enumerate them.
"""

from __future__ import annotations

from contextlib import suppress
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Final

from spec.cache import cache as cache_ops
from spec.cache.cache import CacheState, new_cache
from spec.cache.nodeinfo import NodeInfo
from spec.cache.snapshot import EMPTY_SNAPSHOT, Snapshot, SnapshotInconsistent, update_snapshot
from spec.cycle.failure import FailureRecord, failure_record, handle_scheduling_failure
from spec.cycle.filters import Rejection, is_feasible
from spec.cycle.interpodaffinity import NO_NAMESPACES, Namespaces
from spec.cycle.messages import filter_reasons, fit_error_message
from spec.cycle.nominated import NominatedPods, filter_with_nominated_pods
from spec.cycle.preemption import (
    Outcome,
    PreemptionResult,
    placement_message,
    preemption_message,
    preemption_outcomes,
)
from spec.cycle.select import schedule_decision
from spec.dispatcher.api_calls import NominatingInfo
from spec.errors import CacheError
from spec.frozenmap import FrozenMap
from spec.objects import DEFAULT_SCHEDULER_NAME, Namespace, Node, Pod, PodDisruptionBudget, with_node_name
from spec.quantities import Duration, Timestamp
from spec.queue.nominator import (
    CLEAR_NOMINATED_NODE,
    EMPTY_NOMINATOR,
    Nominator,
    add_nominated_pod,
    delete_nominated_pod_if_exists,
    nominated_pods_for_node,
    update_nominated_pod,
    with_nominated_node,
)
from spec.valuetypes import cached_hash, remember_by_identity, replace
from spec.versions import DEFAULT_PROFILE, VersionProfile


class CycleNotEnabled(Exception):
    """The transition's guard is false in this state (the step cannot happen now)."""


class PodAlreadyExists(CycleNotEnabled):
    """The API server refuses to create a pod: a live pod (one it still lists, a terminating one included) has its
    namespace/name (``pods "name" already exists``, an AlreadyExists error). Nothing changes."""


class FailurePoint(StrEnum):
    """Where a scheduling or binding cycle can fail after a node was chosen."""

    RESERVE = "Reserve"
    PERMIT = "Permit"
    PRE_BIND = "PreBind"
    """Before the bind call: ``FinishBinding`` is not called."""
    BIND = "Bind"
    """The bind call itself failed: ``FinishBinding`` runs (deferred), then ``ForgetPod``."""


INJECTED_FAILURES: Final[dict[FailurePoint, str]] = {
    FailurePoint.RESERVE: "rejected on reserve",
    FailurePoint.PERMIT: "rejected on permit",
    FailurePoint.PRE_BIND: 'running PreBind plugin "FakePreBind": on PreBind',
    FailurePoint.BIND: 'running Bind plugin "DefaultBinder": binder',
}
"""The status message of the cycle area's failure at each point, those of TestSchedulerScheduleOne
(pkg/scheduler/schedule_one_test.go): its ``FakeReserve`` and ``FakePermit`` plugins reject the pod ("reserve failed
with status code rejected", "permit failed with status code rejected"); its ``FakePreBind`` plugin and the bind call
(``DefaultBinder``) fail with an error, wrapped by the framework ("prebind failed with status code error", "binding
failed")."""


def injected_failure(point: FailurePoint) -> tuple[bool, str]:
    """Whether the cycle area's failure at ``point`` is a rejection, and the status message the failure handler gets.
    A Reserve or Permit plugin rejects the pod on the chosen node, which ``schedulingCycle`` turns into a ``FitError``
    of one node (``"0/1 nodes are available: 1 rejected on reserve."``); PreBind and Bind return an error, whose
    text is the message (:data:`INJECTED_FAILURES`). Never fails.

    Kubernetes: `Scheduler.schedulingCycle` (pkg/scheduler/schedule_one.go)
    """
    if point in (FailurePoint.RESERVE, FailurePoint.PERMIT):
        return True, fit_error_message(1, ((INJECTED_FAILURES[point],),))
    return False, INJECTED_FAILURES[point]


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
    scheduler_name: str = DEFAULT_SCHEDULER_NAME
    """The scheduler name this scheduler's profile serves (``profiles.HandlesSchedulerName``)."""
    nodes: FrozenMap[str, Node] = field(default_factory=FrozenMap)
    """The API server's nodes, by name (the cache holds them only while the scheduler runs)."""
    running: bool = True
    """The scheduler process is up; False from a crash to its restart (:mod:`spec.cluster.restart`)."""
    unlisted_nodes: tuple[str, ...] = ()
    """After a restart: names of the nodes in the node informer's initial list not delivered yet, in list order."""
    unlisted_pods: tuple[str, ...] = ()
    """After a restart: UIDs of the pods in the pod informer's initial list not delivered yet, in list order."""
    orphaned: FrozenMap[str, Pod] = field(default_factory=FrozenMap)
    """Bind requests of a crashed scheduler the API server has not answered: the assumed pod by UID."""
    bind_count: FrozenMap[str, int] = field(default_factory=FrozenMap)
    """How many binding requests for each pod the API server accepted (a history variable)."""
    crashed_in_flight: frozenset[str] = frozenset()
    """Pods whose binding cycle was in flight when the scheduler last crashed (a history variable)."""
    admitted: frozenset[str] = frozenset()
    """Pods the kubelet of the node they are bound to admitted (:mod:`spec.cluster.kubelet`)."""
    failed: FrozenMap[str, str] = field(default_factory=FrozenMap)
    """Pods a kubelet rejected, with the reason: phase ``Failed``, terminal; no scheduler's informer lists them."""
    next_start_node_index: int = 0
    """``Scheduler.nextStartNodeIndex``: where the next scheduling cycle's search of the node list starts. Every cycle
    moves it past the nodes its search processed (:func:`record_search`); it moves only with 100 nodes or more, as
    below that the search processes every node."""
    namespaces: Namespaces = field(default_factory=FrozenMap)
    """The API server's namespaces: each one's labels, by name. InterPodAffinity reads them through its namespace
    lister (``GetNamespaceLabelsSnapshot``, ``mergeAffinityTermNamespacesIfNotEmpty``) in every scheduling cycle."""
    preemption: bool = False
    """The profile's PostFilter runs DefaultPreemption (:func:`fail_scheduling`). False is a profile with
    DefaultPreemption disabled, which ``KubeSchedulerConfiguration`` allows: no PostFilter plugin, so no pod is ever
    nominated (``HasPostFilterPlugins`` is false and the failure clears a nomination no one made)."""
    nominator: Nominator = EMPTY_NOMINATOR
    """The scheduling queue's nominator (:mod:`spec.queue.nominator`): which pending pods are nominated to which node.
    Kept only with :attr:`preemption`; lost in a crash, like every in-memory structure."""
    pdbs: FrozenMap[str, PodDisruptionBudget] = field(default_factory=FrozenMap)
    """The API server's PodDisruptionBudgets, by ``namespace/name`` (:func:`add_pdb`). DefaultPreemption lists them
    (``getPodDisruptionBudgets``) when it selects victims; nothing else in the scheduler reads them."""
    failures: FrozenMap[str, FailureRecord] = field(default_factory=FrozenMap)
    """What the scheduler's failure handler last wrote for each pod the API server has, by UID
    (:func:`handle_failure`): the ``PodScheduled`` condition its status patch set (``False``, reason
    ``Unschedulable`` or ``SchedulerError``, the full message) and the note of its ``FailedScheduling`` event. Only
    what the scheduler writes is kept: the API server's binding sets ``PodScheduled`` to ``True``
    (``BindingREST.setPodNodeAndMetadata``) and the kubelet writes the pod's status later, neither of which is
    modelled, so an entry stays until the handler writes again or the pod leaves the API server. The API server keeps
    it across a crash of the scheduler. No transition reads it."""


def new_cluster(profile: VersionProfile = DEFAULT_PROFILE, ttl: Duration = 0, preemption: bool = False) -> Cluster:
    """An empty cluster whose scheduler runs ``profile`` with the assumed-pod ``ttl``, with DefaultPreemption as its
    PostFilter if ``preemption`` (the default profile has it; False disables it).

    Kubernetes: `New` (pkg/scheduler/scheduler.go)
    """
    return Cluster(cache=new_cache(profile, ttl), preemption=preemption)


def nominated_pods(cluster: Cluster) -> NominatedPods | None:
    """The queue's nominated pods of a node (``NominatedPodsForNode``: the pod objects, in the order nominated), or
    None without preemption (no pod is then ever nominated).

    Kubernetes: `nominator.NominatedPodsForNode` (pkg/scheduler/backend/queue/nominator.go)
    """
    if not cluster.preemption:
        return None
    nominator, pods = cluster.nominator, cluster.api_pods

    def for_node(node: str) -> tuple[Pod, ...]:
        return tuple(pods[uid] for uid in nominated_pods_for_node(nominator, node) if uid in pods)
    return for_node


@remember_by_identity(maxsize=16)
def feasible_nodes(snapshot: Snapshot, pod: Pod, namespaces: Namespaces = NO_NAMESPACES,
                   nominated: NominatedPods | None = None) -> tuple[str, ...]:
    """The nodes of the snapshot, in list order, on which every filter passes for ``pod`` when ``namespaces`` are
    the namespaces that exist (the cluster's: :attr:`Cluster.namespaces`) and ``nominated`` gives the pods
    nominated to a node (:func:`nominated_pods`; None: none is), which Filter counts when their priority is at
    least the pod's (:func:`spec.cycle.nominated.filter_with_nominated_pods`). Remembered per objects: the guards of
    a failed cycle on each node and at each point read the same nodes.

    Kubernetes: `Scheduler.findNodesThatPassFilters` (pkg/scheduler/schedule_one.go)
    Kubernetes: `frameworkImpl.RunFilterPluginsWithNominatedPods` (pkg/scheduler/framework/runtime/framework.go)
    """
    if nominated is None:
        return tuple(name for name in snapshot.node_info_list
                     if is_feasible(pod, snapshot.node_info_map[name], snapshot, namespaces))
    return tuple(name for name in snapshot.node_info_list
                 if filter_with_nominated_pods(pod, snapshot.node_info_map[name], nominated(name), snapshot,
                                               namespaces) is None)


def _forget_nomination(cluster: Cluster, uid: str) -> Nominator:
    """The nominator without ``uid`` (``DeleteNominatedPodIfExists``)."""
    return delete_nominated_pod_if_exists(cluster.nominator, uid)


def search_start(cluster: Cluster, num_nodes: int) -> int:
    """Where this cycle's search of ``num_nodes`` nodes starts: ``nodes[(nextStartNodeIndex + i) % numAllNodes]``
    from ``i = 0`` (the node list may have shrunk since the index was set).

    Kubernetes: `Scheduler.findNodesThatPassFilters` (pkg/scheduler/schedule_one.go)
    """
    return cluster.next_start_node_index % num_nodes if num_nodes else 0


def record_search(cluster: Cluster, next_start: int) -> Cluster:
    """A scheduling cycle's search ended and moved the start index to ``next_start``
    (:func:`spec.cycle.select.next_start_node_index`), whatever the cycle goes on to decide.

    Kubernetes: `Scheduler.findNodesThatFitPod` (pkg/scheduler/schedule_one.go)
    """
    return replace(cluster, next_start_node_index=next_start)


def _require(condition: bool, why: str) -> None:
    if not condition:
        raise CycleNotEnabled(why)


def responsible_for_pod(cluster: Cluster, pod: Pod) -> bool:
    """Whether this scheduler takes ``pod`` when it is unassigned: its profile serves the pod's scheduler name.

    Kubernetes: `responsibleForPod` (pkg/scheduler/eventhandlers.go)
    """
    return pod.scheduler_name == cluster.scheduler_name


def watches_pod(cluster: Cluster, uid: str) -> bool:
    """Whether the scheduler's pod informer delivers events of ``uid`` now: the process runs, and after a
    restart the pod's entry of the initial list has been delivered (an entry not delivered yet is delivered
    as the object then is, so the events before it are absorbed).

    Kubernetes: `sharedIndexInformer.HandleDeltas` (staging/src/k8s.io/client-go/tools/cache/shared_informer.go)
    """
    return cluster.running and uid not in cluster.unlisted_pods


def watches_node(cluster: Cluster, name: str) -> bool:
    """Whether the scheduler's node informer delivers events of node ``name`` now (as :func:`watches_pod`).

    Kubernetes: `sharedIndexInformer.HandleDeltas` (staging/src/k8s.io/client-go/tools/cache/shared_informer.go)
    """
    return cluster.running and name not in cluster.unlisted_nodes


def is_synced(cluster: Cluster) -> bool:
    """The scheduler runs and its handlers have received the informers' initial lists: scheduling may start.

    Kubernetes: `Scheduler.WaitForHandlersSync` (pkg/scheduler/eventhandlers.go)
    """
    return cluster.running and not cluster.unlisted_nodes and not cluster.unlisted_pods


def uid_in_use(cluster: Cluster, uid: str) -> bool:
    """Whether the API server has or had an object with ``uid`` (it never reuses one).

    Kubernetes: none (the API server generates UIDs, `uuid.NewUUID` in `FillObjectMetaSystemFields`, never reused)
    """
    return uid in cluster.api_pods or uid in cluster.deleted or uid in cluster.failed


@remember_by_identity(maxsize=16)
def refreshed_snapshot(cluster: Cluster) -> Snapshot:
    """The snapshot a scheduling cycle reads: ``UpdateSnapshot`` of the cluster's snapshot from its cache, the
    cycle's first step. Never fails: an inconsistency fails the cycle in Kubernetes, and the snapshot it leaves
    (rebuilt for the next cycle) is returned. Remembered per cluster object: a step's guard and its cycle read the
    same snapshot (and so do the conformance generator's observers, which also try every step from one state).

    Kubernetes: `Scheduler.schedulePod` (pkg/scheduler/schedule_one.go)
    """
    try:
        return update_snapshot(cluster.cache, cluster.snapshot)
    except SnapshotInconsistent as error:
        return error.snapshot_after


# ============================================================================================
# Pods entering and leaving the cluster
# ============================================================================================


def live_pod_named(cluster: Cluster, namespace: str, name: str) -> Pod | None:
    """The pod the API server lists as ``namespace/name``, None if none: a pod's key in the API server's store is its
    namespace and name, so at most one live pod has it (a terminating pod is listed, and holds its name, until it is
    removed; a deleted or terminal one no longer does).

    Kubernetes: `Store.Create` (staging/src/k8s.io/apiserver/pkg/registry/generic/registry/store.go)
    """
    for pod in cluster.api_pods.values():
        if pod.namespace == namespace and pod.name == name:
            return pod
    return None


def create_pod(cluster: Cluster, pod: Pod) -> Cluster:
    """A user creates an unscheduled pod; the informer hands it to the scheduling queue.

    The pod is queued only if the scheduler runs and is responsible for it (``responsibleForPod``);
    a pod for another scheduler, or created while this one is down, exists at the API server only.
    Fails with :class:`CycleNotEnabled` if the UID is or was in use, or the pod already names a node or is terminating
    (``BeforeCreate`` clears ``DeletionTimestamp``; :func:`terminate_pod` makes a pod terminating), and with
    :class:`PodAlreadyExists` (the API server's refusal) if a live pod has its namespace/name
    (:func:`live_pod_named`).

    With preemption, a pod whose ``NominatedNodeName`` is set is nominated there.

    Kubernetes: `Scheduler.addPod` (pkg/scheduler/eventhandlers.go)
    Kubernetes: `Scheduler.addPodToSchedulingQueue` (pkg/scheduler/eventhandlers.go)
    Kubernetes: `PriorityQueue.Add` (pkg/scheduler/backend/queue/scheduling_queue.go)
    """
    _require(pod.uid != "" and not uid_in_use(cluster, pod.uid), f"pod {pod.uid!r} has no UID or one already used")
    _require(pod.node_name == "", "a created pod must be unscheduled")
    _require(not pod.terminating, "a created pod is not terminating (the API server clears its DeletionTimestamp): "
             "terminate_pod deletes it gracefully")
    if live_pod_named(cluster, pod.namespace, pod.name) is not None:
        raise PodAlreadyExists(f'pods "{pod.name}" already exists')
    pending, nominator = cluster.pending, cluster.nominator
    if cluster.running and responsible_for_pod(cluster, pod):
        pending = pending.set(pod.uid, pod)
        if cluster.preemption:  # PriorityQueue.Add: AddNominatedPod with no info (the pod's NominatedNodeName)
            nominator = add_nominated_pod(nominator, pod, None, pod, cluster.cache.profile.empty_nomination_clears)
    return replace(cluster, api_pods=cluster.api_pods.set(pod.uid, pod), pending=pending, nominator=nominator)


def delete_pod(cluster: Cluster, uid: str) -> Cluster:
    """A user deletes a pod; the informer's delete event is handled (``deletePod``).

    A pending pod leaves the queue. A confirmed pod is removed from the cache. A pod that is
    assumed is forgotten at once (``handleAssumedPodDeletion``, PR #134157, from v1.35); in v1.34
    it stays assumed until its binding fails. Events of one pod arrive in order, so a pod whose
    binding is not yet confirmed cannot be deleted first (:class:`CycleNotEnabled`). A scheduler that
    is down, or has not been delivered the pod yet, sees nothing; the pod's kubelet stops it.

    Kubernetes: `Scheduler.deletePod` (pkg/scheduler/eventhandlers.go)
    Kubernetes: `Scheduler.handleAssumedPodDeletion` (pkg/scheduler/eventhandlers.go)
    """
    _require(uid in cluster.api_pods and uid not in cluster.unconfirmed, f"pod {uid} cannot be deleted now")
    after = forget_deleted_pod(cluster, uid)
    return replace(after, deleted=cluster.deleted | {uid})


def forget_deleted_pod(cluster: Cluster, uid: str) -> Cluster:
    """The API server no longer lists pod ``uid`` (deleted, or terminal), and the scheduler's handlers react:
    a bound pod leaves the cache, an assumed one is forgotten (v1.35+), a pending one leaves the queue and loses its
    nomination. The pod's UID is not recorded anywhere; the caller does that.

    Kubernetes: `Scheduler.deletePod` (pkg/scheduler/eventhandlers.go)
    Kubernetes: `PriorityQueue.Delete` (pkg/scheduler/backend/queue/scheduling_queue.go)
    """
    pod = cluster.api_pods[uid]
    state = cluster.cache
    if watches_pod(cluster, uid):
        if pod.node_name and not cache_ops.is_assumed_pod(state, pod):
            state = cache_ops.remove_pod(state, pod)
        elif uid in state.assumed_pods and state.profile.forget_assumed_pod_on_delete:
            state = cache_ops.forget_pod(state, cache_ops.get_pod(state, pod))
    return replace(
        cluster,
        cache=state,
        api_pods=cluster.api_pods.remove(uid),
        pending=cluster.pending.remove(uid),
        unlisted_pods=tuple(u for u in cluster.unlisted_pods if u != uid),
        admitted=cluster.admitted - {uid},
        nominator=_forget_nomination(cluster, uid) if watches_pod(cluster, uid) else cluster.nominator,
        failures=cluster.failures.remove(uid),
    )


def terminate_pod(cluster: Cluster, uid: str) -> Cluster:
    """A user deletes pod ``uid`` gracefully: the API server sets its ``DeletionTimestamp`` (the pod is terminating),
    keeps listing it under its namespace and name until it is removed (:func:`delete_pod`), and the informer delivers
    the update to the scheduler's pod handler.

    A bound pod is updated in the cache (``updateAssignedPodInCache``: ``UpdatePod``): it keeps its node's resources
    until it is deleted. An unbound pod in the scheduling queue is updated there (``updatePodInSchedulingQueue``: the
    queue's ``Update``, whose nominator re-adds it as :func:`spec.queue.nominator.update_nominated_pod` does); the
    next cycle that pops it skips it (:func:`skip_pod`). A pod whose binding cycle is in flight is assumed in the
    cache, and its update is handled by :func:`terminate_assumed_pod` (the binding cycle goes on: its bind is refused,
    :func:`bind_pod`). A scheduler that is down, or that has not been delivered the pod yet, sees nothing (its
    informer lists the pod later as it then is); a crashed scheduler's orphaned bind request for it is then refused
    when it lands (:func:`api_bind`).

    Not enabled for a pod already terminating (a second delete only shortens the grace period, not modelled), nor
    for one whose binding the informer has not delivered yet (:attr:`Cluster.unconfirmed`: events of one pod arrive
    in order, so the update cannot overtake the binding's).

    Kubernetes: `Scheduler.updatePod` (pkg/scheduler/eventhandlers.go)
    """
    _require(uid in cluster.api_pods and not cluster.api_pods[uid].terminating, f"pod {uid} is gone or terminating")
    _require(uid not in cluster.unconfirmed, f"pod {uid}'s binding has not reached the scheduler's informer yet")
    old = cluster.api_pods[uid]
    new = replace(old, terminating=True)
    state, pending, nominator = cluster.cache, cluster.pending, cluster.nominator
    if watches_pod(cluster, uid):
        if old.node_name:
            state = cache_ops.update_pod(state, old, new)
        elif uid in state.assumed_pods:
            state = terminate_assumed_pod(state, new)
        elif uid in pending:
            pending = pending.set(uid, new)
            if cluster.preemption:
                nominator = update_nominated_pod(nominator, old, new, new, state.profile.empty_nomination_clears)
    return replace(cluster, cache=state, api_pods=cluster.api_pods.set(uid, new), pending=pending, nominator=nominator)


def terminate_assumed_pod(state: CacheState, pod: Pod) -> CacheState:
    """The cache after the update that sets ``DeletionTimestamp`` on ``pod``, which the cache assumes (its binding
    cycle is in flight), reaches ``updatePodInSchedulingQueue``. From v1.35 (PR #134157, with the deletion of an
    assumed pod: :attr:`spec.versions.VersionProfile.forget_assumed_pod_on_delete`) it is the start of the assumed
    pod's deletion (``handleAssumedPodDeletion``): a pod waiting on Permit would be rejected there
    (``RejectWaitingPod``), but no pod of the modelled profile waits (no Permit plugin returns ``Wait``), so the
    cached pod is forgotten at once (``ForgetPod``; v1.37's ``RemoveAssumedPod`` differs only for pod-group
    members) and frees its node's resources; the ``AssignedPodDelete`` move is the queue's (not modelled here). In
    v1.34 the update of an assumed pod is ignored: the pod stays assumed until its binding cycle fails. Never fails.

    Kubernetes: `Scheduler.updatePodInSchedulingQueue` (pkg/scheduler/eventhandlers.go)
    """
    if not state.profile.forget_assumed_pod_on_delete:
        return state
    return cache_ops.forget_pod(state, cache_ops.get_pod(state, pod))


# ============================================================================================
# Scheduling cycle
# ============================================================================================


def skip_pod_schedule(pod: Pod) -> bool:
    """Whether ``ScheduleOne`` skips ``pod`` once popped: it is being deleted (``DeletionTimestamp`` set).
    ``skipPodSchedule``'s other case, an assumed pod popped again, needs an update delivered between a cycle's pop and
    its assume, which this system's atomic steps do not interleave. The same in v1.34 to v1.37.

    Kubernetes: `Scheduler.skipPodSchedule` (pkg/scheduler/schedule_one.go)
    """
    return pod.terminating


def skip_pod(cluster: Cluster, uid: str) -> Cluster:
    """``ScheduleOne`` pops pending pod ``uid`` and skips it (:func:`skip_pod_schedule`): no scheduling cycle runs
    (the snapshot is not refreshed), and the pod is not put back (``Done``), so it leaves the queue and stays listed
    until it is deleted. Kubernetes records the event ``FailedScheduling`` "skip schedule deleting pod: <namespace>/
    <name>" and patches nothing (the cycle area observes only what the failure handler writes). Its nomination, if
    any, stays: neither ``Pop`` nor ``Done`` touches the nominator, so Filter keeps counting the pod on its nominated
    node for pods of lower or equal priority until its deletion (the queue's ``Delete``) removes it. Enabled only for
    a pod ``ScheduleOne`` skips, which :func:`schedule_pod` and :func:`fail_scheduling` are not enabled for.

    Kubernetes: `Scheduler.ScheduleOne` (pkg/scheduler/schedule_one.go)
    """
    _require(uid in cluster.pending and is_synced(cluster), f"pod {uid} is not pending, or the scheduler waits")
    _require(skip_pod_schedule(cluster.pending[uid]), f"pod {uid} is not skipped")
    return replace(cluster, pending=cluster.pending.remove(uid))


def _require_not_skipped(cluster: Cluster, uid: str) -> None:
    """A popped pod that ``ScheduleOne`` skips (:func:`skip_pod`) gets no scheduling cycle."""
    _require(not skip_pod_schedule(cluster.pending[uid]), f"pod {uid} is terminating: ScheduleOne skips it")


def schedule_pod(cluster: Cluster, uid: str, node: str) -> Cluster:
    """A scheduling cycle that places pending pod ``uid`` on ``node`` and starts its binding cycle.

    Enabled when ``node`` is feasible for the pod in the refreshed snapshot (Filter counting the nominated pods of
    equal or higher priority). The pod is assumed on ``node`` (``AssumePod``), which removes its nomination
    (``DeleteNominatedPodIfExists``), Reserve and Permit pass, and the binding cycle begins.

    Kubernetes: `Scheduler.schedulingCycle` (pkg/scheduler/schedule_one.go)
    Kubernetes: `Scheduler.assume` (pkg/scheduler/schedule_one.go)
    """
    _require(uid in cluster.pending and is_synced(cluster), f"pod {uid} is not pending, or the scheduler waits")
    _require_not_skipped(cluster, uid)
    snapshot = refreshed_snapshot(cluster)
    pod = cluster.pending[uid]
    _require(node in feasible_nodes(snapshot, pod, cluster.namespaces, nominated_pods(cluster)),
             f"node {node} is not feasible for pod {uid}")
    assumed = with_node_name(pod, node)
    return replace(
        cluster,
        cache=cache_ops.assume_pod(cluster.cache, assumed),
        snapshot=snapshot,
        pending=cluster.pending.remove(uid),
        binding=cluster.binding.set(uid, assumed),
        nominator=_forget_nomination(cluster, uid),
    )


def fail_scheduling(cluster: Cluster, uid: str, node: str | None, point: FailurePoint | None,
                    preempt_on: str | None = None) -> Cluster:
    """A scheduling cycle for pending pod ``uid`` that fails; the pod is requeued.

    With ``node`` None, no node is feasible (enabled only then). Without preemption the cache is not touched. With
    it and no node at all (``ErrNoNodesAvailable``) the pod's nomination is cleared; with nodes, PostFilter runs
    DefaultPreemption (:func:`post_filter`) and the failure handler records its outcome
    (:func:`apply_post_filter`): the pod nominated to the node chosen, the victims deleted at the API server. Where
    Kubernetes' choice among equally good nodes is left open (Go's map order), ``preempt_on`` names the node
    (enabled only for one of them); with a single best node it may be omitted. With a feasible ``node`` and
    ``point`` Reserve or Permit, the pod is assumed, rejected there, and forgotten (``Unreserve``, ``ForgetPod``),
    which restores the cache's contents.

    Kubernetes: `Scheduler.schedulingCycle` (pkg/scheduler/schedule_one.go)
    Kubernetes: `Scheduler.handleSchedulingFailure` (pkg/scheduler/schedule_one.go)
    """
    _require(uid in cluster.pending and is_synced(cluster), f"pod {uid} is not pending, or the scheduler waits")
    _require_not_skipped(cluster, uid)
    snapshot = refreshed_snapshot(cluster)
    pod = cluster.pending[uid]
    feasible = feasible_nodes(snapshot, pod, cluster.namespaces, nominated_pods(cluster))
    if node is None:
        _require(not feasible, f"pod {uid} fits somewhere")
        after = replace(cluster, snapshot=snapshot)
        if cluster.preemption and snapshot.node_info_list:
            return apply_post_filter(after, uid, choose_post_filter_result(post_filter(after, uid), preempt_on))
        # ErrNoNodesAvailable: no PostFilter, the nomination is cleared; a FitError without PostFilter: nil
        nominating = None if snapshot.node_info_list else CLEAR_NOMINATED_NODE
        return handle_failure(after, uid, pod, nominating, cluster.nominator, True, no_fit_message(after, uid))
    _require(node in feasible and point in (FailurePoint.RESERVE, FailurePoint.PERMIT), "not a scheduling failure")
    assumed = with_node_name(pod, node)
    state = cache_ops.forget_pod(cache_ops.assume_pod(cluster.cache, assumed), assumed)
    after = replace(cluster, cache=state, snapshot=snapshot)
    # assume removed the nomination; the failure re-adds it cleared (clearNominatedNode)
    assert point is not None  # the guard above
    rejected, message = injected_failure(point)
    return handle_failure(after, uid, pod, CLEAR_NOMINATED_NODE, _forget_nomination(cluster, uid), rejected, message)


def no_fit_message(cluster: Cluster, uid: str) -> str:
    """The error of a scheduling cycle of pending pod ``uid`` that found no feasible node in the cluster's (refreshed)
    snapshot, before PostFilter: ``ErrNoNodesAvailable``'s text without nodes, else ``FitError.Error()`` with the
    reasons of every node Filter rejected (with the queue's nominated pods) and no PostFilter message.

    Kubernetes: `Scheduler.schedulePod` (pkg/scheduler/schedule_one.go)
    """
    return schedule_decision(cluster.snapshot, cluster.pending[uid], cluster.cache.profile,
                             namespaces=cluster.namespaces, nominated=nominated_pods(cluster)).message


def handle_failure(cluster: Cluster, uid: str, pod: Pod, nominating: NominatingInfo | None,
                   nominator: Nominator, rejected: bool, message: str) -> Cluster:
    """What the failure handler leaves in ``cluster`` for pod ``uid`` (``pod`` as its cycle had it), starting from
    ``nominator``: the informer's lister finds the pod by namespace and name (the API server's pod of that name: the
    pod itself while it exists, as live pods' names are unique, else a pod created under its name since); the
    pod stays queued as listed, or leaves the queue when the lister has it gone, bound (a crashed predecessor's bind
    that landed, its event not delivered yet) or recreated (another UID under its name: deleted and created again);
    with preemption, the queue's nominator records ``nominating``
    (:func:`spec.cycle.failure.handle_scheduling_failure`). Without preemption the cluster keeps no nominator (no pod
    is ever nominated there). Unless the pod was recreated, the handler records the ``FailedScheduling`` event and
    patches the pod's ``PodScheduled`` condition (``Unschedulable`` if ``rejected``, else ``SchedulerError``, with
    ``message``): :attr:`Cluster.failures` gets both for the pod if the API server still has it (the patch of a
    deleted pod fails with ``NotFound``; a pod bound meanwhile is patched). The same patch writes the nominated node
    when ``nominating`` overrides it with another value (``updatePod``), and the informer delivers the patched pod as
    an update: the queue keeps the new object and its nominator re-adds it (``UpdateNominatedPod``,
    :func:`spec.queue.nominator.update_nominated_pod`), so a patch clearing ``NominatedNodeName`` drops the ``""``
    nomination that releases before v1.37 store (:attr:`spec.versions.VersionProfile.empty_nomination_clears`).

    Kubernetes: `Scheduler.handleSchedulingFailure` (pkg/scheduler/schedule_one.go)
    Kubernetes: `Scheduler.updatePodInSchedulingQueue` (pkg/scheduler/eventhandlers.go)
    """
    listed = cluster.api_pods.get(uid) or next(
        (p for p in cluster.api_pods.values() if (p.namespace, p.name) == (pod.namespace, pod.name)), None)
    empty_clears = cluster.cache.profile.empty_nomination_clears
    handled = handle_scheduling_failure(pod, rejected, message, nominating, listed, nominator, empty_clears)
    pending = cluster.pending.set(uid, handled.requeued) if handled.requeued is not None \
        else cluster.pending.remove(uid)
    record = failure_record(handled)
    after = replace(cluster, pending=pending, nominator=handled.nominator if cluster.preemption else cluster.nominator)
    if record is None or uid not in cluster.api_pods:  # recreated, or deleted: no patch lands
        return after
    after = replace(after, failures=after.failures.set(uid, record))
    return patch_pod_status(after, uid, handled.nominated_node_patch)


def patch_pod_status(cluster: Cluster, uid: str, nominated_node: str | None) -> Cluster:
    """A status patch of pod ``uid`` lands at the API server, writing ``nominated_node`` as its
    ``NominatedNodeName`` (None: the patch leaves it), and the informer delivers the update: a pod still queued is
    kept as the new object and, with preemption, re-added to the nominator (``UpdateNominatedPod``: a nomination
    the new object no longer names is dropped, :func:`spec.queue.nominator.update_nominated_pod`). A bound pod's
    update changes nothing the cycle area observes.

    Kubernetes: `Scheduler.updatePodInSchedulingQueue` (pkg/scheduler/eventhandlers.go)
    """
    old = cluster.api_pods[uid]
    new = old if nominated_node is None else with_nominated_node(old, nominated_node)
    if uid not in cluster.pending or old.node_name:
        return replace(cluster, api_pods=cluster.api_pods.set(uid, new))
    nominator = update_nominated_pod(cluster.nominator, old, new, new, cluster.cache.profile.empty_nomination_clears) \
        if cluster.preemption else cluster.nominator
    return replace(cluster, api_pods=cluster.api_pods.set(uid, new), pending=cluster.pending.set(uid, new),
                   nominator=nominator)


def clear_nominated_node_name(cluster: Cluster, uid: str) -> Cluster:
    """Preemption clears the ``NominatedNodeName`` of pod ``uid`` (a pod of lower priority nominated to the chosen
    node): a status patch when the API server's object names a node (:func:`patch_pod_status`), nothing otherwise
    (the nominator then keeps it).

    Kubernetes: `ClearNominatedNodeName` (pkg/scheduler/util/utils.go)
    """
    listed = cluster.api_pods.get(uid)
    if listed is None or not listed.nominated_node_name:
        return cluster
    return patch_pod_status(cluster, uid, "")


# ============================================================================================
# PostFilter: DefaultPreemption (spec/cycle/preemption.py) in the cycle
# ============================================================================================


def filter_statuses(cluster: Cluster, pod: Pod) -> dict[str, Rejection]:
    """Filter's status of ``pod`` on every node of the cluster's snapshot that rejects it, with the nominated pods
    (``Diagnosis.NodeToStatus``: the statuses PostFilter reads).

    Kubernetes: `Scheduler.findNodesThatPassFilters` (pkg/scheduler/schedule_one.go)
    """
    snapshot, nominated = cluster.snapshot, nominated_pods(cluster) or _no_nominated
    statuses = {}
    for name in snapshot.node_info_list:
        rejection = filter_with_nominated_pods(pod, snapshot.node_info_map[name], nominated(name), snapshot,
                                               cluster.namespaces)
        if rejection is not None:
            statuses[name] = rejection
    return statuses


def _no_nominated(node: str) -> tuple[Pod, ...]:
    return ()


def post_filter(cluster: Cluster, uid: str) -> tuple[PreemptionResult, ...]:
    """Every result DefaultPreemption's PostFilter may give pending pod ``uid`` when Filter rejected every node of
    the cluster's (refreshed) snapshot: :func:`spec.cycle.preemption.preemption_outcomes` with the pod as the
    informer has it, the statuses of :func:`filter_statuses`, the cluster's PodDisruptionBudgets (the PDB lister's
    list: :attr:`Cluster.pdbs`, whose order does not matter, as each budget counts its own disruptions), the queue's
    nominated pods and the cluster's clock. The dry run starts at offset 0 (its random offset matters only with more
    than 100 candidate nodes).

    Kubernetes: `DefaultPreemption.PostFilter` (pkg/scheduler/framework/plugins/defaultpreemption/default_preemption.go)
    Kubernetes: `Evaluator.Preempt` (pkg/scheduler/framework/preemption/preemption.go)
    Kubernetes: `getPodDisruptionBudgets` (pkg/scheduler/framework/plugins/defaultpreemption/default_preemption.go)
    """
    pod = cluster.api_pods.get(uid)
    statuses = filter_statuses(cluster, cluster.pending[uid]) if pod is not None else {}
    return preemption_outcomes(pod, cluster.snapshot, statuses, tuple(cluster.pdbs.values()),
                               nominated_pods(cluster) or _no_nominated, cluster.now, namespaces=cluster.namespaces,
                               skips_terminating=cluster.cache.profile.preemption_skips_terminating_victims)


def choose_post_filter_result(results: tuple[PreemptionResult, ...], node: str | None) -> PreemptionResult:
    """The result the step takes: the one nominating ``node``, or the only one when ``node`` is None. Fails with
    :class:`CycleNotEnabled` when ``node`` is not a best node, or is None while Kubernetes' choice is open.

    Kubernetes: `pickOneNodeForPreemption` (pkg/scheduler/framework/preemption/preemption.go)
    """
    if node is None:
        _require(len(results) == 1, f"preemption may choose any of {[r.nominated_node for r in results]}")
        return results[0]
    chosen = [r for r in results if r.nominated_node == node and r.outcome is Outcome.SUCCESS]
    _require(bool(chosen), f"preemption does not choose node {node}")
    return chosen[0]


def post_filter_message(cluster: Cluster, uid: str, result: PreemptionResult) -> str:
    """``Diagnosis.PostFilterMsg`` of ``result`` for pending pod ``uid`` in ``cluster`` (before the result was
    applied): when preemption succeeded, DefaultPreemption's message alone (``RunPostFilterPlugins`` returns the first
    success): :func:`spec.cycle.preemption.placement_message` where the release gives one
    (:attr:`spec.versions.VersionProfile.preemption_reports_placement`, v1.37), else ""; otherwise the reasons of the
    default profile's PostFilter plugins joined with ", ": DynamicResources'
    (:attr:`spec.versions.VersionProfile.dynamic_resources_post_filter_reason`), then
    :func:`spec.cycle.preemption.preemption_message`'s, whose reasons are read as Filter's messages read them.

    Kubernetes: `Scheduler.schedulingCycle` (pkg/scheduler/schedule_one.go)
    Kubernetes: `frameworkImpl.RunPostFilterPlugins` (pkg/scheduler/framework/runtime/framework.go)
    Kubernetes: `DynamicResources.PostFilter` (pkg/scheduler/framework/plugins/dynamicresources/dynamicresources.go)
    """
    pod = cluster.pending[uid]
    profile, namespaces = cluster.cache.profile, cluster.namespaces

    def reasons(plugin: str, rejection: Rejection, info: NodeInfo, snapshot: Snapshot) -> tuple[str, ...]:
        return filter_reasons(plugin, pod, info, snapshot, profile, namespaces)
    message = preemption_message(pod, cluster.snapshot, result, nominated_pods(cluster) or _no_nominated, reasons,
                                 namespaces)
    if result.outcome is Outcome.SUCCESS:
        return placement_message(result) if profile.preemption_reports_placement else message
    return ", ".join(m for m in (profile.dynamic_resources_post_filter_reason, message) if m)


def apply_post_filter(cluster: Cluster, uid: str, result: PreemptionResult) -> Cluster:
    """What PostFilter's ``result`` leaves for pending pod ``uid``: the failure handler records the nomination in the
    queue's nominator (``AddNominatedPod``: the chosen node, "" after a preemption that found no candidate, the
    pod's own ``NominatedNodeName`` when the result is nil); each victim the result deletes (from v1.35 not those
    already terminating: :func:`spec.cycle.preemption.preparation`) is deleted at the API server and its
    informer's delete event handled (:func:`delete_pod`); the pods of lower priority nominated to the chosen node
    that the result clears lose their nomination (:func:`clear_nominated_node_name`).

    This is one atomic step. In Kubernetes the victims' API calls and the clearing of the lower-priority pods'
    ``NominatedNodeName`` run in a goroutine (``prepareCandidateAsync``, SchedulerAsyncPreemption, on in every
    modelled profile), and the clearing reaches the nominator through the API server and the informer's update
    (``UpdateNominatedPod``); the preemptor's own PreEnqueue keeps it out of activeQ until the goroutine ends, so no
    cycle of it sees the state in between. The preemptor's ``NominatedNodeName`` (the failure handler's patch, with
    the ``PodScheduled`` condition and the event: :attr:`Cluster.failures`, the ``FitError`` message with
    PostFilter's) and the clearing are status patches the informer delivers back (:func:`patch_pod_status`). Fails
    with :class:`CycleNotEnabled` when a victim's binding has not reached the informer yet (the delete event cannot
    come before the add).

    Kubernetes: `Scheduler.handleSchedulingFailure` (pkg/scheduler/schedule_one.go)
    Kubernetes: `Evaluator.prepareCandidateAsync` (pkg/scheduler/framework/preemption/preemption.go)
    """
    pod = cluster.pending[uid]
    _require(not any(v.uid in cluster.unconfirmed for v in result.deleted),
             "a victim's binding has not reached the scheduler's informer yet")
    message, post = no_fit_message(cluster, uid), post_filter_message(cluster, uid, result)
    message = f"{message} {post}" if post else message  # FitError.Error() with Diagnosis.PostFilterMsg
    after = cluster
    for cleared in result.cleared:
        after = clear_nominated_node_name(after, cleared.uid)
    after = handle_failure(after, uid, pod, result.nominating, after.nominator, True, message)
    for victim in result.deleted:
        after = delete_pod(after, victim.uid)
    return after


# ============================================================================================
# Binding cycle
# ============================================================================================


def bind_pod(cluster: Cluster, uid: str) -> Cluster:
    """The binding cycle of ``uid`` reaches the bind call without a failure of its own: the API server binds the pod,
    then ``FinishBinding``; or, for a pod being deleted, the API server refuses the binding (:func:`bind_refusal`) and
    the binding cycle fails at Bind with that error (:func:`binding_cycle_error`).

    Enabled while the pod exists unbound at the API server (a pod deleted or bound meanwhile gets ``NotFound`` or
    ``Conflict``: :func:`fail_binding` is that step). The informer's confirmation follows later
    (:func:`confirm_binding`).

    Kubernetes: `Scheduler.bindingCycle` (pkg/scheduler/schedule_one.go)
    """
    _require(uid in cluster.binding, f"pod {uid} has no binding cycle")
    assumed = cluster.binding[uid]
    current = cluster.api_pods.get(assumed.uid)
    if current is not None and current.node_name == "":
        refusal = bind_refusal(current)
        if refusal is not None:
            return binding_cycle_error(cluster, uid, True, False, f'running Bind plugin "DefaultBinder": {refusal}')
    bound = api_bind(cluster, assumed)
    return replace(
        bound,
        cache=_finish_binding(cluster.cache, assumed, cluster.now),
        binding=cluster.binding.remove(uid),
        unconfirmed=cluster.unconfirmed | {uid},
    )


def bind_refusal(current: Pod) -> str | None:
    """The API server's error for a binding of ``current`` (the pod it stores, unbound) that it refuses: the pod is
    being deleted (``DeletionTimestamp`` set: "pod <name> is being deleted, cannot be assigned to a host"); None
    when it accepts. The error is not a status error, so the client gets it as an internal error whose message is
    this text, which ``DefaultBinder`` returns and ``RunBindPlugins`` wraps. The same in v1.34 to v1.37.

    Kubernetes: `BindingREST.setPodNodeAndMetadata` (pkg/registry/core/pod/storage/storage.go)
    """
    return f"pod {current.name} is being deleted, cannot be assigned to a host" if current.terminating else None


def api_bind(cluster: Cluster, assumed: Pod) -> Cluster:
    """The API server accepts a binding of ``assumed``'s UID to its node: the pod exists, is unbound and is not being
    deleted (:class:`CycleNotEnabled` otherwise: a pod already bound gets a ``Conflict``, a deleted one ``NotFound``,
    a terminating one :func:`bind_refusal`'s error). Only the API server's objects change.

    Kubernetes: `BindingREST.setPodNodeAndMetadata` (pkg/registry/core/pod/storage/storage.go)
    """
    current = cluster.api_pods.get(assumed.uid)
    if current is None or current.node_name != "":
        raise CycleNotEnabled(f"pod {assumed.uid} is gone or bound")
    refusal = bind_refusal(current)
    if refusal is not None:
        raise CycleNotEnabled(refusal)
    return replace(
        cluster,
        api_pods=cluster.api_pods.set(assumed.uid, with_node_name(current, assumed.node_name)),
        bind_count=cluster.bind_count.set(assumed.uid, cluster.bind_count.get(assumed.uid, 0) + 1),
    )


def fail_binding(cluster: Cluster, uid: str, point: FailurePoint) -> Cluster:
    """The binding cycle of ``uid`` fails at PreBind or at the bind call with the cycle area's injected error
    (:func:`injected_failure`), handled as :func:`binding_cycle_error` handles it.

    Kubernetes: `Scheduler.handleBindingCycleError` (pkg/scheduler/schedule_one.go)
    """
    _require(uid in cluster.binding and point in (FailurePoint.PRE_BIND, FailurePoint.BIND), "no such binding")
    return binding_cycle_error(cluster, uid, point is FailurePoint.BIND, *injected_failure(point))


def binding_cycle_error(cluster: Cluster, uid: str, bind_reached: bool, rejected: bool, message: str) -> Cluster:
    """The binding cycle of ``uid`` failed (``handleBindingCycleError``) with a status that is a rejection if
    ``rejected`` (else an error), whose message is ``message``.

    ``FinishBinding`` runs only if the bind was reached; then ``Unreserve`` and ``ForgetPod`` (its
    error, e.g. for a pod already forgotten on deletion, is only logged); then the failure handler with
    ``clearNominatedNode`` (:func:`handle_failure`): the pod is requeued if the API server still has it unbound (a
    terminating pod too, which the next cycle then skips), and with preemption nominated to no node (stored under
    ``""`` where :attr:`spec.versions.VersionProfile.empty_nomination_clears` is off); the handler records the
    ``PodScheduled`` condition (``SchedulerError`` for an error) and the ``FailedScheduling`` event with ``message``.

    Kubernetes: `Scheduler.handleBindingCycleError` (pkg/scheduler/schedule_one.go)
    """
    assumed = cluster.binding[uid]
    state = cluster.cache
    if bind_reached:
        state = _finish_binding(state, assumed, cluster.now)
    with suppress(CacheError):  # Kubernetes logs it and sends no move event.
        state = cache_ops.forget_pod(state, assumed)
    return handle_failure(replace(cluster, cache=state, binding=cluster.binding.remove(uid)), uid, assumed,
                          CLEAR_NOMINATED_NODE, cluster.nominator, rejected, message)


def _finish_binding(state: CacheState, pod: Pod, now: Timestamp) -> CacheState:
    """``FinishBinding`` where the profile has it (removed after v1.35)."""
    return cache_ops.finish_binding(state, pod, now) if state.profile.assumed_pod_expiry else state


def confirm_binding(cluster: Cluster, uid: str) -> Cluster:
    """The informer delivers the bound pod: ``AddPod`` confirms the assumption (or re-adds an expired pod,
    or adds a pod someone else bound), and a pod still queued leaves the queue.

    Kubernetes: `Scheduler.updatePod` (pkg/scheduler/eventhandlers.go)
    Kubernetes: `Scheduler.addAssignedPodToCache` (pkg/scheduler/eventhandlers.go)
    """
    _require(uid in cluster.unconfirmed, f"no binding of {uid} awaits confirmation")
    pod = cluster.api_pods[uid]
    return replace(
        cluster,
        cache=cache_ops.add_pod(cluster.cache, pod),
        unconfirmed=cluster.unconfirmed - {uid},
        pending=cluster.pending.remove(uid),
        nominator=_forget_nomination(cluster, uid),
    )


# ============================================================================================
# Nodes, namespaces and time
# ============================================================================================


def add_node(cluster: Cluster, node: Node) -> Cluster:
    """A node joins the API server and the informer delivers it (``AddNode``); enabled for a node the API
    server does not have.

    Kubernetes: `Scheduler.addNodeToCache` (pkg/scheduler/eventhandlers.go)
    """
    _require(node.name not in cluster.nodes, f"node {node.name} exists")
    state = cache_ops.add_node(cluster.cache, node) if cluster.running else cluster.cache
    return replace(cluster, cache=state, nodes=cluster.nodes.set(node.name, node))


def _api_node(cluster: Cluster, name: str) -> Node:
    if name not in cluster.nodes:
        raise CycleNotEnabled(f"node {name} does not exist")
    return cluster.nodes[name]


def update_node(cluster: Cluster, node: Node) -> Cluster:
    """A node changes at the API server and the informer delivers it (``UpdateNode`` with the cached node
    as old).

    Kubernetes: `Scheduler.updateNodeInCache` (pkg/scheduler/eventhandlers.go)
    """
    old = _api_node(cluster, node.name)
    state = cluster.cache
    if watches_node(cluster, node.name):
        state = cache_ops.update_node(state, old, node)
    return replace(cluster, cache=state, nodes=cluster.nodes.set(node.name, node))


def remove_node(cluster: Cluster, name: str) -> Cluster:
    """A node leaves the API server and the informer delivers the deletion (``RemoveNode``); pods bound there
    stay on a ghost.

    Kubernetes: `Scheduler.deleteNodeFromCache` (pkg/scheduler/eventhandlers.go)
    """
    old = _api_node(cluster, name)
    state = cluster.cache
    if watches_node(cluster, name):
        state = cache_ops.remove_node(state, old)
    return replace(
        cluster,
        cache=state,
        nodes=cluster.nodes.remove(name),
        unlisted_nodes=tuple(n for n in cluster.unlisted_nodes if n != name),
    )


def add_namespace(cluster: Cluster, namespace: Namespace) -> Cluster:
    """A namespace is created at the API server, or its labels are changed (an update of the object of that name),
    and the namespace informer delivers it: from the next scheduling cycle on, InterPodAffinity's namespace lister
    gives these labels. Never fails. The scheduler's cache, snapshot and queue are not touched (no cache handler
    takes a namespace); a scheduler that is down reads the namespace from its informer's list when it restarts
    (:mod:`spec.cluster.restart`).

    Kubernetes: `GetNamespaceLabelsSnapshot` (pkg/scheduler/framework/plugins/interpodaffinity/plugin.go)
    Kubernetes: `mergeAffinityTermNamespacesIfNotEmpty` (pkg/scheduler/framework/plugins/interpodaffinity/plugin.go)
    """
    return replace(cluster, namespaces=cluster.namespaces.set(namespace.name, namespace.labels))


def pdb_key(pdb: PodDisruptionBudget) -> str:
    """The budget's ``namespace/name``: the key of the API server's object. Never fails.

    Kubernetes: `MetaNamespaceKeyFunc` (staging/src/k8s.io/client-go/tools/cache/store.go)
    """
    return f"{pdb.namespace}/{pdb.name}"


def add_pdb(cluster: Cluster, pdb: PodDisruptionBudget) -> Cluster:
    """A PodDisruptionBudget is created at the API server, or the object of that namespace and name is replaced (its
    selector, or the status the disruption controller writes: ``DisruptionsAllowed``, ``DisruptedPods``), and the PDB
    informer delivers it: from the next PostFilter on, DefaultPreemption's PDB lister lists it. Never fails. No event
    handler of the scheduler takes a budget (the cache, snapshot and queue are not touched); a scheduler that is down
    reads it from its informer's list when it restarts (:mod:`spec.cluster.restart`).

    Kubernetes: `getPodDisruptionBudgets` (pkg/scheduler/framework/plugins/defaultpreemption/default_preemption.go)
    Kubernetes: `filterPodsWithPDBViolation` (pkg/scheduler/framework/plugins/defaultpreemption/default_preemption.go)
    """
    return replace(cluster, pdbs=cluster.pdbs.set(pdb_key(pdb), pdb))


def tick(cluster: Cluster, elapsed: Duration) -> Cluster:
    """Time passes and the cache's periodic cleanup runs (``cleanupAssumedPods`` in the TTL era).

    Kubernetes: `cacheImpl.cleanupAssumedPods` (pkg/scheduler/backend/cache/cache.go)
    """
    _require(elapsed >= 0, "time does not go back")
    now = cluster.now + elapsed
    state = cluster.cache
    if cluster.running and state.profile.assumed_pod_expiry:
        state = cache_ops.cleanup_assumed_pods(state, now)
    return replace(cluster, cache=state, now=now)
