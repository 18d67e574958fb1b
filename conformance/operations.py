"""Operations the suite names that the spec defines as functions rather than as data.

:mod:`spec.cache.operations` makes every cache transition a value; the scheduling pipeline (:mod:`spec.cycle.cycle`)
and the
metrics publication (:func:`spec.cache.cache.update_metrics`) are plain functions. This module gives them the same form,
so vectors can name them, and applies them to the spec (the oracle) with outcomes as values.

Cycle-area operations act on a :class:`spec.cycle.cycle.Cluster`. Their outcomes:

- ``schedule_pod`` names the node the step places the pod on, as a test harness forces a choice (the transition
  system allows any feasible node; what the scheduler itself would choose is the step's ``decision``). It is ``ok``
  when every filter passes there (the pod is assumed on it and its binding cycle starts), else an ``error``:
  ``Unschedulable`` (the step's ``filters`` observation names the first filter that rejected the node, and the
  status code it rejected with: :func:`spec.cycle.filters.first_rejection`) or
  ``NodeNotInSnapshot`` (the node is not in the cycle's snapshot: absent, a placeholder or a ghost). A rejected
  step changes nothing but the search's start index (``nextStartNodeIndex``), which every cycle moves past the
  nodes its search processed (it moves only with 100 nodes or more). With 100 nodes or more the search stops after
  ``numFeasibleNodesToFind`` feasible nodes: a step naming a node the search did not examine is not enabled.
- ``fail_scheduling`` without a node: a cycle that finds no feasible node (``filters`` names, for every node of the
  snapshot, the first filter that rejected it and its code); with a node and a failure point (``Reserve`` or
  ``Permit``): the pod is assumed there, rejected, and forgotten. The pod stays pending either way.
- Both run a scheduling cycle, and their observation has its ``decision``
  (:func:`spec.cycle.select.schedule_decision`): the feasible nodes, each one's weighted plugin scores and total,
  the nodes ``selectHost`` may return (``allowed``), and the failure message (``FitError.Error()``, the text of the
  pod's ``PodScheduled`` condition). An implementation also reports the node its own selection ``chosen``, which
  the runner accepts if it is one of ``allowed``.
- ``create_pod`` of a namespace/name that a live pod (a terminating one included) has is refused by the API server:
  an ``error`` of kind ``AlreadyExists`` that changes nothing (:class:`spec.cycle.cycle.PodAlreadyExists`).
- ``terminate_pod`` deletes a pod gracefully (format 4.7.0): it becomes terminating, stays listed under its name, and
  keeps its node's resources while bound; ``skip_pod`` is ``ScheduleOne`` popping a terminating pending pod and
  skipping it (``skipPodSchedule``): it leaves the queue without a scheduling cycle (no ``decision``), keeping any
  nomination until it is deleted. ``schedule_pod`` and ``fail_scheduling`` are not enabled for a terminating pod.
- Every other step is ``ok``; vectors contain only steps whose guard holds (as :func:`spec.cycle.cycle` defines it). An
  implementation asked for a step whose guard it finds false answers ``error`` with kind ``NotEnabled``.
- The scheduler in its cluster (:mod:`spec.cluster.restart`, :mod:`spec.cluster.kubelet`): ``crash_scheduler``
  (memory lost, binding
  cycles left as orphaned bind requests), ``restart_scheduler`` (a new process, synced: the informers' lists
  delivered), ``land_orphaned_bind`` / ``drop_orphaned_bind`` (a crashed process's request answered or lost), and
  ``admit_pod`` (the kubelet's verdict: the pod runs, or is ``Failed`` with the reason). The observation then also
  has ``scheduler`` (``running`` and the ``orphaned`` requests, while either differs from a running scheduler with
  none) and ``kubelet`` (``admitted`` and ``failed`` with reasons, once a kubelet handled a pod).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Final

from spec.cache.cache import CacheState, update_metrics
from spec.cache.snapshot import Snapshot
from spec.cluster import kubelet, restart
from spec.cycle import cycle
from spec.cycle.cycle import Cluster, CycleNotEnabled, FailurePoint, PodAlreadyExists
from spec.cycle.filters import Rejection, first_rejection
from spec.cycle.interpodaffinity import NO_NAMESPACES, Namespaces
from spec.cycle.nominated import NominatedPods, filter_with_nominated_pods
from spec.cycle.preemption import PreemptionResult
from spec.cycle.select import Decision, schedule_decision
from spec.objects import Namespace, Node, Pod, PodDisruptionBudget
from spec.quantities import Duration
from spec.valuetypes import remember_by_identity

UNSCHEDULABLE: Final = "Unschedulable"
"""A filter rejected the node the step names (Kubernetes' ``framework.Unschedulable`` status)."""
NODE_NOT_IN_SNAPSHOT: Final = "NodeNotInSnapshot"
"""The node the step names is not a candidate: it is not in the scheduling cycle's snapshot."""
ALREADY_EXISTS: Final = "AlreadyExists"
"""The API server refused to create the pod: a live pod has its namespace/name (``pods "name" already exists``;
:class:`spec.cycle.cycle.PodAlreadyExists`). Nothing changed."""
NOT_ENABLED: Final = "NotEnabled"
"""The step's guard is false in the implementation's state (never expected by a vector)."""


# --------------------------------------------------------------------------------------------
# Cache area
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class UpdateMetrics:
    """:func:`spec.cache.cache.update_metrics`: publish the ``scheduler_cache_size`` gauge. From v1.36 the cache's
    periodic loop does only this; before, ``cleanupAssumedPods`` does it at its end."""


def apply_update_metrics(state: CacheState) -> CacheState:
    """The cache after :class:`UpdateMetrics`; never fails."""
    return update_metrics(state)


# --------------------------------------------------------------------------------------------
# Cycle area (spec/cycle/cycle.py)
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class CreatePod:
    """:func:`spec.cycle.cycle.create_pod`: a user creates an unscheduled pod; it enters the scheduling queue."""

    pod: Pod


@dataclass(frozen=True)
class DeletePod:
    """:func:`spec.cycle.cycle.delete_pod`: a user deletes a pod; the informer's delete event is handled."""

    uid: str


@dataclass(frozen=True)
class TerminatePod:
    """:func:`spec.cycle.cycle.terminate_pod`: a user deletes a pod gracefully (``DeletionTimestamp`` set); the pod
    stays listed and the informer's update event is handled."""

    uid: str


@dataclass(frozen=True)
class SkipPod:
    """:func:`spec.cycle.cycle.skip_pod`: ``ScheduleOne`` pops pending pod ``uid``, which is being deleted, and skips
    it (``skipPodSchedule``): no scheduling cycle, and the pod is not put back."""

    uid: str


@dataclass(frozen=True)
class SchedulePod:
    """:func:`spec.cycle.cycle.schedule_pod`: a scheduling cycle for pending pod ``uid`` that chooses ``node``."""

    uid: str
    node: str


@dataclass(frozen=True)
class FailScheduling:
    """:func:`spec.cycle.cycle.fail_scheduling`: a scheduling cycle that fails (no feasible node, or Reserve/Permit)."""

    uid: str
    node: str | None = None
    point: FailurePoint | None = None


@dataclass(frozen=True)
class BindPod:
    """:func:`spec.cycle.cycle.bind_pod`: the binding cycle binds the pod at the API server, then ``FinishBinding``."""

    uid: str


@dataclass(frozen=True)
class FailBinding:
    """:func:`spec.cycle.cycle.fail_binding`: the binding cycle fails at PreBind or at the bind call."""

    uid: str
    point: FailurePoint


@dataclass(frozen=True)
class ConfirmBinding:
    """:func:`spec.cycle.cycle.confirm_binding`: the informer delivers the bound pod (``AddPod``)."""

    uid: str


@dataclass(frozen=True)
class ClusterAddNode:
    """:func:`spec.cycle.cycle.add_node`: the informer delivers a node the cache does not have live."""

    node: Node


@dataclass(frozen=True)
class ClusterUpdateNode:
    """:func:`spec.cycle.cycle.update_node`: the informer delivers a changed node (old: the cached node)."""

    node: Node


@dataclass(frozen=True)
class ClusterRemoveNode:
    """:func:`spec.cycle.cycle.remove_node`: the informer delivers a node deletion."""

    name: str


@dataclass(frozen=True)
class ClusterAddNamespace:
    """:func:`spec.cycle.cycle.add_namespace`: a namespace is created, or relabelled, and the namespace informer
    delivers it (InterPodAffinity's namespace lister lists its labels from the next cycle on)."""

    namespace: Namespace


@dataclass(frozen=True)
class ClusterAddPodDisruptionBudget:
    """:func:`spec.cycle.cycle.add_pdb`: a PodDisruptionBudget is created, or the object of its namespace and name
    replaced, and the PDB informer delivers it (DefaultPreemption's PDB lister lists it from the next PostFilter on)."""

    pdb: PodDisruptionBudget


@dataclass(frozen=True)
class Tick:
    """:func:`spec.cycle.cycle.tick`: time passes and the cache's periodic cleanup runs."""

    elapsed: Duration


@dataclass(frozen=True)
class CrashScheduler:
    """:func:`spec.cluster.restart.crash_scheduler`: the scheduler process dies; its binding cycles leave orphaned bind
    requests."""


@dataclass(frozen=True)
class RestartScheduler:
    """:func:`spec.cluster.restart.restart_scheduler`, then every :func:`spec.cluster.restart.list_node` and
    :func:`spec.cluster.restart.list_pod`: a new process starts and its handlers receive the informers' initial lists
    before its first scheduling cycle (``WaitForCacheSync``)."""


@dataclass(frozen=True)
class LandOrphanedBind:
    """:func:`spec.cluster.restart.land_orphaned_bind`: the API server answers a crashed process's bind request."""

    uid: str


@dataclass(frozen=True)
class DropOrphanedBind:
    """:func:`spec.cluster.restart.drop_orphaned_bind`: a crashed process's bind request never arrives."""

    uid: str


@dataclass(frozen=True)
class AdmitPod:
    """:func:`spec.cluster.kubelet.admit_pod`: the kubelet of the pod's node admits it, or rejects it (phase ``Failed``,
    the reason in the observation's ``kubelet.failed``)."""

    uid: str


CycleOperation = (
    CreatePod | DeletePod | SchedulePod | FailScheduling | BindPod | FailBinding | ConfirmBinding
    | TerminatePod | SkipPod | ClusterAddNode | ClusterUpdateNode | ClusterRemoveNode | Tick
    | CrashScheduler | RestartScheduler | LandOrphanedBind | DropOrphanedBind | AdmitPod | ClusterAddNamespace
    | ClusterAddPodDisruptionBudget
)
CYCLE_OPERATIONS: Final = (CreatePod, DeletePod, SchedulePod, FailScheduling, BindPod, FailBinding, ConfirmBinding,
                           ClusterAddNode, ClusterUpdateNode, ClusterRemoveNode, Tick, CrashScheduler,
                           RestartScheduler, LandOrphanedBind, DropOrphanedBind, AdmitPod, ClusterAddNamespace,
                           ClusterAddPodDisruptionBudget, TerminatePod, SkipPod)


@dataclass(frozen=True)
class CycleOutcome:
    """How a cycle step ended: ``kind`` None for ok; ``filters`` maps each node the step's scheduling cycle
    examined and a filter rejected to the first filter that did (in the default profile's order) and its status
    code; ``decision`` is what the step's scheduling cycle decided (:func:`spec.cycle.select.schedule_decision`:
    the feasible nodes, their scores, the nodes it may choose and the failure message), None for a step that runs
    no scheduling cycle."""

    kind: str | None = None
    message: str = ""
    filters: tuple[tuple[str, Rejection], ...] = ()
    decision: Decision | None = None
    preemption: PreemptionResult | None = None
    """What PostFilter (DefaultPreemption) decided, for a failed cycle of a cluster with preemption; its message is
    already in the decision's."""


@remember_by_identity(maxsize=16)
def cycle_decision(cluster: Cluster, snapshot: Snapshot, pod: Pod) -> Decision:
    """What the scheduling cycle of ``pod`` on the refreshed ``snapshot`` decides (``schedulePod``), under the
    cluster's release, its search starting at the cluster's ``nextStartNodeIndex`` (with 100 nodes or more it stops
    after ``numFeasibleNodesToFind`` feasible nodes; :attr:`Decision.next_start` is where the next one starts).
    InterPodAffinity reads the cluster's namespaces. Remembered per objects: exploration tries a ``schedule_pod``
    and a ``fail_scheduling`` per node from one state, which decide the same."""
    start = cycle.search_start(cluster, len(snapshot.node_info_list))
    return schedule_decision(snapshot, pod, cluster.cache.profile, start=start, namespaces=cluster.namespaces,
                             nominated=cycle.nominated_pods(cluster))


def refreshed_snapshot(cluster: Cluster) -> Snapshot:
    """The snapshot a scheduling cycle sees: ``UpdateSnapshot`` first (an inconsistency keeps the recovery):
    :func:`spec.cycle.cycle.refreshed_snapshot`, the one the step's guard read."""
    return cycle.refreshed_snapshot(cluster)


def first_failing_filter(snapshot: Snapshot, pod: Pod, node: str,
                         namespaces: Namespaces = NO_NAMESPACES,
                         nominated: NominatedPods | None = None) -> Rejection | None:
    """The first filter rejecting ``pod`` on ``node`` in ``snapshot`` (with the cluster's ``namespaces`` and, if
    given, the pods ``nominated`` to the node), with its status code (None if all pass); ``node`` must be in the
    snapshot's list."""
    if nominated is None:
        return first_rejection(pod, snapshot.node_info_map[node], snapshot, namespaces)
    return filter_with_nominated_pods(pod, snapshot.node_info_map[node], nominated(node), snapshot, namespaces)


def _rejections(snapshot: Snapshot, pod: Pod, namespaces: Namespaces,
                nominated: NominatedPods | None = None) -> tuple[tuple[str, Rejection], ...]:
    """Every node of the snapshot's list a filter rejects, with the first filter that does, sorted by node."""
    found = {name: first_failing_filter(snapshot, pod, name, namespaces, nominated)
             for name in snapshot.node_info_list}
    return tuple(sorted((name, r) for name, r in found.items() if r is not None))


def apply_cycle(cluster: Cluster, op: CycleOperation) -> tuple[Cluster, CycleOutcome]:
    """Apply ``op`` to ``cluster``: the next cluster and the outcome.

    Fails with :class:`spec.cycle.cycle.CycleNotEnabled` when the step's guard is false, except for a ``schedule_pod``
    onto a node that is not feasible and a ``create_pod`` of a namespace/name a live pod has
    (:class:`spec.cycle.cycle.PodAlreadyExists`), which are error outcomes with the cluster unchanged.
    """
    match op:
        case SchedulePod(uid, node):
            if uid not in cluster.pending:
                raise CycleNotEnabled(f"pod {uid} is not pending")
            if cycle.skip_pod_schedule(cluster.pending[uid]):
                raise CycleNotEnabled(f"pod {uid} is terminating: ScheduleOne skips it")
            snapshot = refreshed_snapshot(cluster)
            pod = cluster.pending[uid]
            decision = cycle_decision(cluster, snapshot, pod)
            searched = cycle.record_search(cluster, decision.next_start)
            if node not in snapshot.node_info_list:
                return searched, CycleOutcome(NODE_NOT_IN_SNAPSHOT, f"node {node} is not in the snapshot",
                                              decision=decision)
            failing = first_failing_filter(snapshot, pod, node, cluster.namespaces, cycle.nominated_pods(cluster))
            if failing is not None:
                _require_examined(decision, node)
                return searched, CycleOutcome(UNSCHEDULABLE, f"node {node}: {failing.plugin} rejects pod {uid}",
                                              ((node, failing),), decision)
            _require_examined(decision, node)
            return cycle.schedule_pod(searched, uid, node), CycleOutcome(decision=decision)
        case FailScheduling(uid, node, point):
            after = cycle.fail_scheduling(cluster, uid, node, point)
            decision = cycle_decision(cluster, after.snapshot, cluster.pending[uid])
            if node is not None:
                _require_examined(decision, node)
            if node is None:
                rejections = _rejections(after.snapshot, cluster.pending[uid], cluster.namespaces,
                                         cycle.nominated_pods(cluster))
                result = None
                if cluster.preemption and after.snapshot.node_info_list:
                    refreshed = replace(cluster, snapshot=after.snapshot)
                    result = cycle.choose_post_filter_result(cycle.post_filter(refreshed, uid), None)
                    message = cycle.post_filter_message(refreshed, uid, result)
                    if message:
                        decision = replace(decision, message=f"{decision.message} {message}")
                after = cycle.record_search(after, decision.next_start)
                return after, CycleOutcome(None, decision.message, rejections, decision, result)
            after = cycle.record_search(after, decision.next_start)
            return after, CycleOutcome(decision=decision)
        case CreatePod(pod):
            try:
                return cycle.create_pod(cluster, pod), CycleOutcome()
            except PodAlreadyExists as refused:
                return cluster, CycleOutcome(ALREADY_EXISTS, str(refused))
        case DeletePod(uid):
            return cycle.delete_pod(cluster, uid), CycleOutcome()
        case TerminatePod(uid):
            return cycle.terminate_pod(cluster, uid), CycleOutcome()
        case SkipPod(uid):
            return cycle.skip_pod(cluster, uid), CycleOutcome()
        case BindPod(uid):
            return cycle.bind_pod(cluster, uid), CycleOutcome()
        case FailBinding(uid, point):
            return cycle.fail_binding(cluster, uid, point), CycleOutcome()
        case ConfirmBinding(uid):
            return cycle.confirm_binding(cluster, uid), CycleOutcome()
        case ClusterAddNode(node):
            return cycle.add_node(cluster, node), CycleOutcome()
        case ClusterUpdateNode(node):
            return cycle.update_node(cluster, node), CycleOutcome()
        case ClusterRemoveNode(name):
            return cycle.remove_node(cluster, name), CycleOutcome()
        case ClusterAddNamespace(namespace):
            return cycle.add_namespace(cluster, namespace), CycleOutcome()
        case ClusterAddPodDisruptionBudget(pdb):
            return cycle.add_pdb(cluster, pdb), CycleOutcome()
        case Tick(elapsed):
            return cycle.tick(cluster, elapsed), CycleOutcome()
        case CrashScheduler():
            return restart.crash_scheduler(cluster), CycleOutcome()
        case RestartScheduler():
            return restart_and_sync(cluster), CycleOutcome()
        case LandOrphanedBind(uid):
            return restart.land_orphaned_bind(cluster, uid), CycleOutcome()
        case DropOrphanedBind(uid):
            return restart.drop_orphaned_bind(cluster, uid), CycleOutcome()
        case AdmitPod(uid):
            return kubelet.admit_pod(cluster, uid), CycleOutcome()
    raise TypeError(f"not a cycle operation: {op!r}")


def _require_examined(decision: Decision, node: str) -> None:
    """A step may name only a node the cycle's search examined (with 100 nodes or more it stops early)."""
    if node not in decision.feasible and node not in dict(decision.rejected):
        raise CycleNotEnabled(f"the search stopped before it examined node {node}")


def restart_and_sync(cluster: Cluster) -> Cluster:
    """:class:`RestartScheduler`: restart, then deliver every listed node and pod in list order."""
    cluster = restart.restart_scheduler(cluster)
    while cluster.unlisted_nodes:
        cluster = restart.list_node(cluster)
    while cluster.unlisted_pods:
        cluster = restart.list_pod(cluster)
    return cluster


def is_enabled(cluster: Cluster, op: CycleOperation) -> bool:
    """Whether a vector may contain ``op`` in ``cluster`` (its guard holds, or it is a schedule_pod verdict)."""
    try:
        apply_cycle(cluster, op)
    except CycleNotEnabled:
        return False
    return True
