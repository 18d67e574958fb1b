"""The cycle area on the reference implementation: a small cluster around :class:`refimpl.cache.Cache`.

The harness plays the API server and the informer (pods created, bound, deleted; node events) as
:mod:`spec.cycle.cycle` does, and drives the scheduler's side with the reference implementation: the cache, the
cycle's :class:`refimpl.cache.Snapshot`, and the default profile's PreFilter and Filter plugins of
:mod:`refimpl.scheduler` as ``findNodesThatFitPod`` runs them (``RunPreFilterPlugins``, then the scheduler's own
search over the nodes with its fast paths, :func:`refimpl.scheduler.schedule_one.pass_filters`). Reserve, Permit,
PreBind and Bind failures are the step's own: the harness applies what ``schedulingCycle`` and
``handleBindingCycleError`` do after them.

With preemption (a vector's ``preemption``, :meth:`RefimplCycle.enable_preemption`) the framework has DefaultPreemption
(:class:`refimpl.scheduler.plugins.default_preemption.DefaultPreemption`) as its PostFilter and the queue's nominator
(:class:`refimpl.scheduler.nominator.Nominator`): the search runs ``RunFilterPluginsWithNominatedPods`` on every node
(:func:`refimpl.scheduler.schedule_one.pass_filters_with_nominated_pods`), a cycle that finds no node runs
``RunPostFilterPlugins``, and the harness applies what the plugin asked for: the failure handler's ``AddNominatedPod``,
each victim deleted at the API server (then handled as the informer's delete), the lower-priority pods' nominations
cleared; assuming or deleting a pod removes its nomination.

Subclasses override one method each to introduce a bug (``tests/conformance/gallery``).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from contextlib import suppress
from dataclasses import replace
from typing import Any, Final

from conformance.adapters.refimpl_observe import cache_json
from conformance.observe import cluster_json, decision_json, metrics_json, preemption_json
from conformance.operations import (
    ALREADY_EXISTS,
    NODE_NOT_IN_SNAPSHOT,
    NOT_ENABLED,
    UNSCHEDULABLE,
    AdmitPod,
    BindPod,
    ClusterAddNamespace,
    ClusterAddNode,
    ClusterAddPodDisruptionBudget,
    ClusterRemoveNode,
    ClusterUpdateNode,
    ConfirmBinding,
    CrashScheduler,
    CreatePod,
    DeletePod,
    DropOrphanedBind,
    FailBinding,
    FailScheduling,
    LandOrphanedBind,
    RestartScheduler,
    SchedulePod,
    SkipPod,
    TerminatePod,
    Tick,
)
from refimpl.cache import Cache, FakeClock, GenerationCounter, NodeInfo, Snapshot
from refimpl.dispatcher import NominatingInfo, NominatingMode, PodStatus
from refimpl.dispatcher.api_calls import nominated_node_needs_update
from refimpl.kubelet.admission import can_admit_pod
from refimpl.kubelet.preemption import PREEMPTING
from refimpl.scheduler.framework import CycleState, Diagnosis, FitError, Framework, Status
from refimpl.scheduler.framework.node_slice import NodeColumns
from refimpl.scheduler.framework.status import CODE_NAMES, Code, as_status, fit_error_on_one_node, is_success
from refimpl.scheduler.nominator import Nominator
from refimpl.scheduler.plugins import new_default_framework
from refimpl.scheduler.plugins.default_preemption import DefaultPreemption
from refimpl.scheduler.schedule_one import (
    CLEAR_NOMINATED_NODE,
    ERR_NO_NODES_AVAILABLE,
    NoNodesAvailable,
    failure_condition,
    failure_handling,
    pass_filters,
    pass_filters_with_nominated_pods,
    skip_pod_schedule,
    snapshot_columns,
    truncate_message,
)
from refimpl.scheduler.select_host import num_feasible_nodes_to_find, select_host
from spec.cycle.cycle import INJECTED_FAILURES, FailurePoint
from spec.errors import CacheError
from spec.frozenmap import FrozenMap
from spec.objects import DEFAULT_SCHEDULER_NAME, Node, Pod, PodDisruptionBudget
from spec.versions import VersionProfile

JSON = Any
SCHEDULING_FAILURES: Final = (FailurePoint.RESERVE, FailurePoint.PERMIT)
BINDING_FAILURES: Final = (FailurePoint.PRE_BIND, FailurePoint.BIND)


class NotEnabled(Exception):
    """The step's guard is false here (answered as an error of kind ``NotEnabled``)."""


class Rejected(Exception):
    """A ``schedule_pod`` the implementation refuses: ``kind`` and the step's filter verdicts."""

    def __init__(self, kind: str, message: str, filters: dict[str, tuple[str, str]]) -> None:
        super().__init__(message)
        self.kind, self.filters = kind, filters


def _verdict(status: Status) -> tuple[str, str]:
    """A rejected node's status as the cycle area observes it: the plugin and the code's Go name."""
    return status.plugin, CODE_NAMES[status.code]


def _require(condition: bool, why: str) -> None:
    if not condition:
        raise NotEnabled(why)


class RefimplCycle:
    """One cluster; :meth:`step` applies a cycle-area operation and reports the outcome and observation."""

    def __init__(self, profile: VersionProfile, cache: Cache, new_cache: Callable[[], Cache] | None = None) -> None:
        """``new_cache`` builds the cache of a restarted process (default: one like ``cache``, empty)."""
        self.profile = profile
        self.cache = cache
        self._new_cache = new_cache
        self.snapshot = Snapshot()
        self.columns: NodeColumns | None = None
        """The rows of the snapshot's node list, as the scheduler keeps them (``Scheduler._columns``)."""
        self.preemption = False
        """The profile has DefaultPreemption as its PostFilter (:meth:`enable_preemption`)."""
        self.nominator = Nominator(self.list_pod, empty_nomination_clears=self.profile.empty_nomination_clears)
        """The scheduling queue's nominator (its pod lister: the API server's pods)."""
        self.preemption_result: JSON | None = None
        """This step's PostFilter outcome, as observed (:func:`conformance.observe.preemption_json`)."""
        self.fit_error: tuple[CycleState, Pod, Diagnosis, int] | None = None
        """The last cycle's ``FitError`` parts (state, pod, diagnosis, node count), for PostFilter."""
        self.framework: Framework = self.new_framework(profile)
        self.pending: dict[str, Pod] = {}
        self.binding: dict[str, Pod] = {}
        self.api_pods: dict[str, Pod] = {}
        self.unconfirmed: set[str] = set()
        self.deleted: set[str] = set()
        self.live_nodes: dict[str, Node] = {}
        """The API server's nodes (while the scheduler runs, those its informer delivered and did not delete)."""
        self.now = 0
        self.filters: dict[str, tuple[str, str]] = {}
        self.failures: dict[str, tuple[str, str, str, str, str]] = {}
        """What the failure handler last wrote for each API pod: its PodScheduled condition's type, status, reason and
        message, and its FailedScheduling event's note (refimpl's
        :func:`refimpl.scheduler.schedule_one.failure_condition` and
        :func:`refimpl.scheduler.schedule_one.truncate_message`)."""
        """This step's rejections: each node's (plugin, status code), as ``Diagnosis.NodeToStatus`` holds them."""
        self.decision: JSON | None = None
        """This step's scheduling cycle, as observed (:func:`conformance.observe.decision_json`); None if none ran."""
        self.next_start_node_index = 0
        """``nextStartNodeIndex``: where the next cycle's search starts (it moves only with 100 nodes or more)."""
        self.rng = random.Random(0)
        """``rand.Intn`` for v1.34's reservoir sampling among the top-scored nodes."""
        self.scheduler_name = DEFAULT_SCHEDULER_NAME
        self.running = True
        self.orphaned: dict[str, Pod] = {}
        """A crashed process's bind requests not answered yet: the assumed pod by UID."""
        self.admitted: set[str] = set()
        self.failed: dict[str, str] = {}
        self.namespaces: dict[str, FrozenMap[str, str]] = {}
        """The API server's namespaces: each one's labels, by name (the namespace informer's lister reads them)."""
        self.pdbs: dict[str, PodDisruptionBudget] = {}
        """The API server's PodDisruptionBudgets by ``namespace/name`` (DefaultPreemption's PDB lister reads them)."""

    def new_framework(self, profile: VersionProfile) -> Framework:
        framework = new_default_framework(profile=profile, clock=FakeClock(0), preemption=self.preemption)
        framework.handle.nominated_pods_for_node = self.nominated_pods_for_node
        framework.handle.clear_nominated_node_name = self.clear_nominated_node_name
        for plugin in framework.plugins:
            if isinstance(plugin, DefaultPreemption):
                plugin.pod_lister = self.list_pod
                plugin.pdb_lister = self.list_pdbs
        return framework

    def enable_preemption(self) -> None:
        """Run DefaultPreemption as PostFilter from now on (a vector's ``preemption``: before its first step)."""
        self.preemption = True
        self.framework = self.new_framework(self.profile)

    def list_pod(self, namespace: str, name: str) -> Pod | None:
        """The informer's pod lister: the API server's pod ``namespace/name``, or None."""
        return next((p for p in self.api_pods.values() if p.namespace == namespace and p.name == name), None)

    def list_pdbs(self) -> list[PodDisruptionBudget]:
        """The PDB informer's lister (``getPodDisruptionBudgets``): the API server's PodDisruptionBudgets."""
        return list(self.pdbs.values())

    def nominated_pods_for_node(self, node: str) -> list[Pod]:
        """``NominatedPodsForNode``: the pods nominated to ``node``, in the order nominated."""
        return [self.api_pods[ref.uid] for ref in self.nominator.nominated_pods_for_node(node)
                if ref.uid in self.api_pods]

    # -- the step loop ---------------------------------------------------------------------------

    def step(self, op: Any) -> JSON:
        """Apply a decoded cycle-area operation: ``{"status", "kind"?, "message"?, "observation"}``."""
        self.filters = {}
        self.decision = None
        self.preemption_result = None
        self.fit_error = None
        try:
            self.apply(op)
        except NotEnabled as error:
            return {"status": "error", "kind": NOT_ENABLED, "message": str(error), "observation": self.observe()}
        except Rejected as rejection:
            self.filters = rejection.filters
            return {"status": "error", "kind": rejection.kind, "message": str(rejection),
                    "observation": self.observe()}
        except CacheError as error:
            return {"status": "error", "kind": str(error.kind), "message": error.message,
                    "observation": self.observe()}
        return {"status": "ok", "observation": self.observe()}

    def apply(self, op: Any) -> None:
        match op:
            case CreatePod(pod):
                self.create_pod(pod)
            case DeletePod(uid):
                self.delete_pod(uid)
            case TerminatePod(uid):
                self.terminate_pod(uid)
            case SkipPod(uid):
                self.skip_pod(uid)
            case SchedulePod(uid, node):
                self.schedule_pod(uid, node)
            case FailScheduling(uid, node, point):
                self.fail_scheduling(uid, node, point)
            case BindPod(uid):
                self.bind_pod(uid)
            case FailBinding(uid, point):
                self.fail_binding(uid, point)
            case ConfirmBinding(uid):
                self.confirm_binding(uid)
            case ClusterAddNode(node):
                _require(node.name not in self.live_nodes, f"node {node.name} exists")
                if self.running:
                    self.cache.add_node(node)
                self.live_nodes[node.name] = node
            case ClusterUpdateNode(node):
                _require(node.name in self.live_nodes, f"node {node.name} does not exist")
                if self.running:
                    self.cache.update_node(self.live_nodes[node.name], node)
                self.live_nodes[node.name] = node
            case ClusterRemoveNode(name):
                _require(name in self.live_nodes, f"node {name} does not exist")
                node = self.live_nodes.pop(name)
                if self.running:
                    self.cache.remove_node(node)
            case ClusterAddNamespace(namespace):
                self.namespaces[namespace.name] = namespace.labels  # created, or its labels replaced
            case ClusterAddPodDisruptionBudget(pdb):
                self.pdbs[f"{pdb.namespace}/{pdb.name}"] = pdb  # created, or the object replaced
            case Tick(elapsed):
                self.tick(elapsed)
            case CrashScheduler():
                self.crash()
            case RestartScheduler():
                self.restart()
            case LandOrphanedBind(uid):
                self.land_orphaned_bind(uid)
            case DropOrphanedBind(uid):
                _require(uid in self.orphaned, f"no orphaned bind request of {uid}")
                del self.orphaned[uid]
            case AdmitPod(uid):
                self.admit_pod(uid)
            case _:
                raise NotEnabled(f"not a cycle-area operation: {op!r}")

    # -- pods entering and leaving ----------------------------------------------------------------

    def create_pod(self, pod: Pod) -> None:
        """``addPod``: the pod is queued if the scheduler runs and is responsible for it (``responsibleForPod``). The
        API server refuses a pod whose namespace/name a live pod has (``AlreadyExists``)."""
        used = pod.uid in self.api_pods or pod.uid in self.deleted or pod.uid in self.failed
        _require(pod.uid != "" and not used, f"pod {pod.uid!r} has no UID or one already used")
        _require(pod.node_name == "", "a created pod must be unscheduled")
        _require(not pod.terminating, "a created pod is not terminating (BeforeCreate clears DeletionTimestamp)")
        if any(p.namespace == pod.namespace and p.name == pod.name for p in self.api_pods.values()):
            raise Rejected(ALREADY_EXISTS, f'pods "{pod.name}" already exists', {})  # the API server's store key
        self.api_pods[pod.uid] = pod
        if self.running and pod.scheduler_name == self.scheduler_name:
            self.pending[pod.uid] = pod
            if self.preemption:  # PriorityQueue.Add: AddNominatedPod(pod, nil)
                self.nominator.add_nominated_pod(pod, None)

    def delete_pod(self, uid: str) -> None:
        _require(uid in self.api_pods and uid not in self.unconfirmed, f"pod {uid} cannot be deleted now")
        self.forget_gone_pod(uid)
        self.deleted.add(uid)

    def terminate_pod(self, uid: str) -> None:
        """A graceful deletion: the API server sets the pod's DeletionTimestamp and keeps listing it; the informer's
        update (``updatePod``) updates a bound pod in the cache (``UpdatePod``) and a queued one in the queue, whose
        nominator re-adds it (``UpdateNominatedPod``). For a pod the cache assumes (its binding cycle in flight),
        ``updatePodInSchedulingQueue`` starts the assumed pod's deletion from v1.35 (``handleAssumedPodDeletion``: no
        pod waits on Permit here, so ``ForgetPod``) and ignores the update in v1.34. A pod whose binding the informer
        has not delivered yet is not enabled."""
        pod = self.api_pods.get(uid)
        _require(pod is not None and not pod.terminating, f"pod {uid} is gone or terminating")
        assert pod is not None
        _require(uid not in self.unconfirmed, f"pod {uid}'s binding has not reached the scheduler's informer yet")
        new = replace(pod, terminating=True)
        self.api_pods[uid] = new
        if not self.running:
            return
        if pod.node_name:
            self.cache.update_pod(pod, new)
        elif self.cache.is_assumed_pod(new):
            if self.profile.forget_assumed_pod_on_delete:
                self.cache.forget_pod(self.cache.get_pod(new))
        elif uid in self.pending:
            self.pending[uid] = new
            if self.preemption:
                self.nominator.update_nominated_pod(pod, new)

    def skip_pod(self, uid: str) -> None:
        """``ScheduleOne`` pops the pod and refimpl's ``skipPodSchedule`` skips it
        (:func:`refimpl.scheduler.schedule_one.skip_pod_schedule`): ``Done``, not put back; the nominator keeps it."""
        _require(uid in self.pending and self.running, f"pod {uid} is not pending")
        pod = self.pending[uid]
        _require(skip_pod_schedule(pod, self.cache.is_assumed_pod(pod)), f"pod {uid} is not skipped")
        del self.pending[uid]

    def _require_not_skipped(self, uid: str) -> None:
        pod = self.pending[uid]
        _require(not skip_pod_schedule(pod, self.cache.is_assumed_pod(pod)),
                 f"pod {uid} is skipped by ScheduleOne")

    def forget_gone_pod(self, uid: str) -> None:
        """The API server no longer lists the pod (deleted or Failed): ``deletePodFromCache`` for a bound pod,
        ``handleAssumedPodDeletion`` for an assumed one (v1.35+), out of the queue; a crashed scheduler sees
        nothing."""
        pod = self.api_pods[uid]
        if self.running:
            self.nominator.delete_nominated_pod_if_exists(pod)
        del self.api_pods[uid]
        if self.running and pod.node_name and not self.cache.is_assumed_pod(pod):
            self.cache.remove_pod(pod)
        elif self.running and self.cache.is_assumed_pod(pod) and self.profile.forget_assumed_pod_on_delete:
            self.cache.forget_pod(self.cache.get_pod(pod))
        self.pending.pop(uid, None)
        self.admitted.discard(uid)
        self.failures.pop(uid, None)

    # -- scheduling cycle ---------------------------------------------------------------------------

    def refresh_snapshot(self) -> Snapshot:
        """``UpdateSnapshot`` at the start of the cycle; an inconsistency leaves the rebuilt lists to use."""
        with suppress(CacheError):
            self.cache.update_snapshot(self.snapshot)
        return self.snapshot

    def run_filters(self, pod: Pod) -> dict[str, Status]:
        """``schedulePod`` over the refreshed snapshot, as the scheduler runs it: ``findNodesThatFitPod``
        (``RunPreFilterPlugins``, then ScheduleOne's own search, :func:`refimpl.scheduler.schedule_one.pass_filters`,
        with its fast paths over the snapshot's rows, kept from cycle to cycle as the scheduler keeps them, from
        ``nextStartNodeIndex`` until ``numFeasibleNodesToFind`` nodes passed), then the failure, the single node, or
        ``prioritizeNodes`` and the host selection. What the search and the selection returned is this step's
        :attr:`decision`; each node a plugin rejected, with its status, is returned."""
        snapshot = self.snapshot
        self.framework.handle.snapshot = snapshot  # SnapshotSharedLister: the plugins read the cycle's snapshot
        self.framework.handle.namespaces = self.namespaces  # the namespace informer's lister: the API server's
        nodes = snapshot.node_info_list
        if not nodes:
            self.decision = decision_json((), (), (), ERR_NO_NODES_AVAILABLE, "")
            return {}
        state = CycleState()
        diagnosis = Diagnosis()
        restriction, status, _ = self.framework.run_pre_filter_plugins(state, pod, nodes)
        if status is not None and not status.is_success():
            diagnosis.node_to_status.absent_nodes_status = status
            diagnosis.pre_filter_msg = status.message()
            self.fit_error = (state, pod, diagnosis, len(nodes))
            self.decision = decision_json((), (), (), str(FitError(pod.uid, len(nodes), diagnosis)), "")
            return {info.name: status for info in nodes}
        columns: NodeColumns | None = None
        searched = nodes
        if self.preemption:  # RunFilterPluginsWithNominatedPods on every node, in order (fewer than 100 nodes)
            feasible_infos, error = pass_filters_with_nominated_pods(self.framework, state, pod, diagnosis,
                                                                     list(nodes), len(nodes))
            assert error is None, error
            self.decision = self.choose(state, pod, feasible_infos, diagnosis, len(nodes))
            return dict(diagnosis.node_to_status.node_to_status)
        if restriction is not None and restriction.node_names is not None:  # as _find_nodes_that_fit_pod narrows
            absent = Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, plugin="PreFilter")
            for info in nodes:
                if info.name not in restriction.node_names:
                    diagnosis.node_to_status.set(info.name, absent)
            searched = [info for info in nodes if info.name in restriction.node_names]
        else:
            columns = self.columns = snapshot_columns(snapshot, self.columns)
        to_find = num_feasible_nodes_to_find(len(searched), self.framework.percentage_of_nodes_to_score)
        feasible, error = pass_filters(self.framework, state, pod, diagnosis, searched,
                                       self.next_start_node_index % max(len(searched), 1), to_find, columns)
        processed = len(feasible) + len(diagnosis.node_to_status)
        self.next_start_node_index = (self.next_start_node_index + processed) % len(nodes)
        rejected = dict(diagnosis.node_to_status.node_to_status)
        if error is not None:  # a plugin's Error ends the search there (never expected: the spec's filters reject)
            rejected[next(i.name for i in searched if i.name not in rejected)] = error
        self.decision = self.choose(state, pod, feasible, diagnosis, len(nodes))  # as ScheduleOne scores it
        return rejected

    def choose(self, state: CycleState, pod: Pod, feasible: list[NodeInfo], diagnosis: Diagnosis,
               num_all_nodes: int) -> JSON:
        """The rest of ``schedulePod`` after the search: a ``FitError`` without feasible nodes, the one feasible node
        unscored, or ``prioritizeNodes`` (each plugin's weighted scores and their totals, node by node as Kubernetes
        writes it; the totals again by the scheduler's fast path, which must agree) and ``selectHost`` over the
        totals. The decision as observed."""
        names = [info.name for info in feasible]
        if not feasible:
            self.fit_error = (state, pod, diagnosis, num_all_nodes)
            return decision_json((), (), (), str(FitError(pod.uid, num_all_nodes, diagnosis)), "")
        if len(feasible) == 1:
            return decision_json(names, (), names, "", names[0])
        status = self.framework.run_pre_score_plugins(state, pod, feasible)
        if status is not None and not status.is_success():
            raise NotEnabled(f"PreScore failed: {status.message()}")
        scores, status = self.framework.run_score_plugins(state, pod, feasible)
        totals, total_status = self.framework.run_score_plugins_totals(state, pod, feasible, names)
        if not is_success(status) or not is_success(total_status):
            raise NotEnabled(f"Score failed: {(status or total_status).message()}")  # type: ignore[union-attr]
        chosen, _ = select_host(names, totals, reservoir_sampling=self.profile.select_host_reservoir_sampling,
                                intn=self.rng.randrange)
        top = max(totals)
        allowed = [name for name, total in zip(names, totals, strict=True) if total == top]
        if [s.total_score for s in scores] != totals:  # the two runners must agree: a bug in either is reported
            raise AssertionError(f"RunScorePlugins' totals {[s.total_score for s in scores]} differ from the fast "
                                 f"path's {totals}")
        detail = ((s.name, ((p.name, p.score) for p in s.scores), s.total_score) for s in scores)
        return decision_json(names, detail, allowed, "", chosen)

    def post_filter(self, state: CycleState, pod: Pod, diagnosis: Diagnosis, count: int) -> None:
        """``RunPostFilterPlugins`` as ``schedulingCycle`` runs it after a ``FitError``: its message becomes
        ``Diagnosis.PostFilterMsg``; the failure handler then records the nomination (``AddNominatedPod``) and the
        harness deletes the victims DefaultPreemption asked for (the goroutine's API calls, waited for)."""
        plugin = next(p for p in self.framework.plugins if isinstance(p, DefaultPreemption))
        plugin.preempted.clear()
        node, status = self.framework.run_post_filter_plugins(state, pod, diagnosis.node_to_status)
        diagnosis.post_filter_msg = status.message()
        victims = [p.victim.uid for p in plugin.preempted]
        _require(not any(v in self.unconfirmed for v in victims),
                 "a victim's binding has not reached the scheduler's informer yet")
        nominating = NominatingInfo(NominatingMode.OVERRIDE, node) if node is not None else None
        fit_error = FitError(pod.uid, count, diagnosis)  # of ``count`` nodes, with the PostFilter message
        self.handle_failure(pod, nominating, Status(Code.UNSCHEDULABLE, str(fit_error), error=fit_error))
        for victim in victims:
            self.delete_pod(victim)
        self.preemption_result = preemption_json(CODE_NAMES[status.code], node or "", victims)

    def feasible(self, uid: str, node: str) -> Pod:
        """The pending pod, if the cycle's search found ``node`` feasible in the refreshed snapshot; else
        :class:`Rejected` (a filter rejected it, or it is not in the snapshot)."""
        _require(uid in self.pending and self.running, f"pod {uid} is not pending")
        self._require_not_skipped(uid)
        snapshot = self.refresh_snapshot()
        pod = self.pending[uid]
        status = self.run_filters(pod).get(node)
        if node not in {i.name for i in snapshot.node_info_list}:
            raise Rejected(NODE_NOT_IN_SNAPSHOT, f"node {node} is not in the snapshot", {})
        if status is not None:
            raise Rejected(UNSCHEDULABLE, f"node {node}: {status.plugin} rejects pod {uid}", {node: _verdict(status)})
        assert self.decision is not None
        _require(node in self.decision["feasible"], f"the search stopped before it examined node {node}")
        return pod

    def schedule_pod(self, uid: str, node: str) -> None:
        pod = self.feasible(uid, node)
        assumed = replace(pod, node_name=node)
        self.cache.assume_pod(assumed)
        self.nominator.delete_nominated_pod_if_exists(assumed)
        del self.pending[uid]
        self.binding[uid] = assumed

    def fail_scheduling(self, uid: str, node: str | None, point: FailurePoint | None) -> None:
        _require(uid in self.pending and self.running, f"pod {uid} is not pending")
        self._require_not_skipped(uid)
        if node is None:
            self.refresh_snapshot()
            rejected = self.run_filters(self.pending[uid])
            assert self.decision is not None
            fitting = self.decision["feasible"]
            _require(not fitting, f"pod {uid} fits on {', '.join(fitting)}")
            self.filters = {name: _verdict(status) for name, status in rejected.items()}
            if self.fit_error is None:  # ErrNoNodesAvailable: clearNominatedNode
                error = NoNodesAvailable()
                status = Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, str(error), error=error)
                self.handle_failure(self.pending[uid], CLEAR_NOMINATED_NODE, status)
            elif self.preemption:
                state, pod, diagnosis, count = self.fit_error
                self.post_filter(state, pod, diagnosis, count)
                self.decision = {**self.decision, "message": str(FitError(pod.uid, count, diagnosis))}
            else:  # a FitError without PostFilter plugins: no nominating info
                state, pod, diagnosis, count = self.fit_error
                fit_error = FitError(pod.uid, count, diagnosis)
                self.handle_failure(pod, None, Status(Code.UNSCHEDULABLE, str(fit_error), error=fit_error))
            return
        _require(point in SCHEDULING_FAILURES, f"{point} is not a scheduling-cycle failure point")
        try:
            pod = self.feasible(uid, node)
        except Rejected as rejection:
            raise NotEnabled(str(rejection)) from None
        assert point is not None
        plugin_status = Status(Code.UNSCHEDULABLE, INJECTED_FAILURES[point], plugin=f"Fake{point.value}")
        fit_error = fit_error_on_one_node(uid, node, plugin_status)  # schedulingCycle: a FitError on the chosen node
        self.reject_after_assume(replace(pod, node_name=node),
                                 Status(plugin_status.code, str(fit_error), error=fit_error))

    def reject_after_assume(self, assumed: Pod, status: Status) -> None:
        """Reserve or Permit rejected the assumed pod: ``Unreserve`` and ``ForgetPod``, then the failure handler with
        ``clearNominatedNode`` and ``status`` (:meth:`handle_failure`)."""
        self.cache.assume_pod(assumed)
        if self.preemption:
            self.nominator.delete_nominated_pod_if_exists(assumed)
        self.cache.forget_pod(assumed)
        self.handle_failure(assumed, CLEAR_NOMINATED_NODE, status)

    def handle_failure(self, pod: Pod, nominating: NominatingInfo | None, status: Status) -> None:
        """``handleSchedulingFailure`` for ``pod`` (as its cycle had it) failed with ``status``, as far as the cycle
        area observes it: refimpl's requeue decision (:func:`refimpl.scheduler.schedule_one.failure_handling`) from
        the informer's pod (the API server's): the pod stays queued as listed, or leaves the queue when it is gone,
        bound or recreated; with preemption the queue's nominator records ``nominating`` for the pod the decision
        names (``AddNominatedPod``); unless the pod was recreated, the FailedScheduling event and the PodScheduled
        condition refimpl writes (:func:`refimpl.scheduler.schedule_one.failure_condition`, the note cut by
        :func:`refimpl.scheduler.schedule_one.truncate_message`), kept for the pod while the API server has it (the
        patch of a deleted pod fails)."""
        handling = failure_handling(pod, self.list_pod(pod.namespace, pod.name))
        if handling.requeue is not None:
            self.pending[pod.uid] = handling.requeue
        else:
            self.pending.pop(pod.uid, None)
        if handling.nominee is None:  # recreated: no nomination, event or status patch
            return
        if self.preemption:
            self.nominator.add_nominated_pod(handling.nominee, nominating)
        if pod.uid in self.api_pods:
            condition = failure_condition(status)
            self.failures[pod.uid] = (condition.type, condition.status, condition.reason, condition.message,
                                      truncate_message(condition.message))
            needs = nominated_node_needs_update(PodStatus(nominated_node_name=pod.nominated_node_name), nominating)
            self.patch_pod_status(pod.uid, nominating.nominated_node_name if needs and nominating else None)

    def patch_pod_status(self, uid: str, nominated_node: str | None) -> None:
        """A status patch of the pod lands (``NominatedNodeName`` set to ``nominated_node`` unless None) and the
        informer delivers the update: a queued pod becomes the new object and the nominator re-adds it
        (``updatePodInSchedulingQueue``: ``UpdateNominatedPod``)."""
        old = self.api_pods[uid]
        new = old if nominated_node is None else replace(old, nominated_node_name=nominated_node)
        self.api_pods[uid] = new
        if uid in self.pending and not old.node_name:
            self.pending[uid] = new
            if self.preemption:
                self.nominator.update_nominated_pod(old, new)

    def clear_nominated_node_name(self, pod: Pod) -> None:
        """``ClearNominatedNodeName`` for a pod of lower priority: a patch only when the API server's object names a
        node."""
        listed = self.api_pods.get(pod.uid)
        if listed is not None and listed.nominated_node_name:
            self.patch_pod_status(pod.uid, "")

    # -- binding cycle --------------------------------------------------------------------------------

    def bind_pod(self, uid: str) -> None:
        """The bind call: the API server binds a pod that exists unbound, then ``FinishBinding``; it refuses a pod
        being deleted (``BindingREST.setPodNodeAndMetadata``), and the binding cycle fails at Bind with the error
        ``DefaultBinder`` returns, as ``RunBindPlugins`` wraps it (:meth:`binding_cycle_error`)."""
        _require(uid in self.binding, f"pod {uid} has no binding cycle")
        current = self.api_pods.get(uid)
        _require(current is not None and current.node_name == "", f"pod {uid} is gone or bound")
        assert current is not None
        if current.terminating:
            refusal = (f'running Bind plugin "DefaultBinder": pod {current.name} is being deleted, '
                       'cannot be assigned to a host')
            self.binding_cycle_error(uid, True, as_status(RuntimeError(refusal)))
            return
        assumed = self.binding.pop(uid)
        self.finish_binding(assumed)
        self.api_pods[uid] = replace(current, node_name=assumed.node_name)
        self.unconfirmed.add(uid)

    # -- crash and restart ------------------------------------------------------------------------------

    def crash(self) -> None:
        """The process dies: cache, snapshot, queue and binding cycles are gone; each binding cycle leaves its bind
        request behind."""
        _require(self.running, "the scheduler is not running")
        self.orphaned.update(self.binding)
        self.cache = self._new_cache() if self._new_cache is not None else Cache(
            profile=self.cache.profile, ttl=self.cache.ttl, clock=FakeClock(0), generations=GenerationCounter())
        self.snapshot = Snapshot()
        self.columns = None
        self.next_start_node_index = 0
        self.framework = self.new_framework(self.profile)
        self.nominator = Nominator(self.list_pod, empty_nomination_clears=self.profile.empty_nomination_clears)
        self.framework.handle.clear_nominated_node_name = self.clear_nominated_node_name
        self.pending, self.binding, self.unconfirmed = {}, {}, set()
        self.running = False

    def restart(self) -> None:
        """A new process lists the API server's nodes (by name) and pods (by key), and its handlers receive
        them before it schedules: ``AddNode``; ``AddPod`` for an assigned pod, the queue for an unassigned one it
        is responsible for."""
        _require(not self.running, "the scheduler is running")
        self.running = True
        for name in sorted(self.live_nodes):
            self.cache.add_node(self.live_nodes[name])
        for pod in sorted(self.api_pods.values(), key=lambda p: (p.namespace, p.name, p.uid)):
            if pod.node_name:
                self.cache.add_pod(pod)
            elif pod.scheduler_name == self.scheduler_name:
                self.pending[pod.uid] = pod

    def land_orphaned_bind(self, uid: str) -> None:
        """The API server answers a crashed process's bind: it binds a pod that exists unbound (a running
        scheduler's informer then has the event on its way); otherwise Conflict or NotFound, nothing changes."""
        _require(uid in self.orphaned, f"no orphaned bind request of {uid}")
        assumed = self.orphaned.pop(uid)
        current = self.api_pods.get(uid)
        if current is None or current.node_name or current.terminating:  # NotFound, Conflict, being deleted
            return
        self.api_pods[uid] = replace(current, node_name=assumed.node_name)
        if self.running:
            self.unconfirmed.add(uid)

    # -- the kubelet --------------------------------------------------------------------------------------

    def admit_pod(self, uid: str) -> None:
        """The kubelet of the pod's node admits it against the pods it admitted there, or rejects it: the pod is
        ``Failed`` and the scheduler lets it go (after its binding event, which comes first)."""
        pod = self.api_pods.get(uid)
        _require(pod is not None and pod.node_name in self.live_nodes and uid not in self.admitted,
                 f"pod {uid} is not bound to a node whose kubelet has yet to handle it")
        assert pod is not None
        running = [self.api_pods[u] for u in sorted(self.admitted) if self.api_pods[u].node_name == pod.node_name]
        result = can_admit_pod(pod, self.live_nodes[pod.node_name], running)
        if result.admit:
            _require(all(v.uid not in self.unconfirmed for v in result.evicted),
                     f"a pod that pod {uid} would evict has a binding not yet delivered to the scheduler")
            for victim in result.evicted:  # killed for a critical pod: Failed, reason Preempting
                self.forget_gone_pod(victim.uid)
                self.failed[victim.uid] = PREEMPTING
            self.admitted.add(uid)
            return
        _require(uid not in self.unconfirmed, f"pod {uid}'s binding has not reached the scheduler yet")
        self.forget_gone_pod(uid)
        self.failed[uid] = result.reason

    def finish_binding(self, assumed: Pod) -> None:
        if self.profile.assumed_pod_expiry:
            self.cache.finish_binding(assumed, self.now)

    def fail_binding(self, uid: str, point: FailurePoint) -> None:
        """``handleBindingCycleError``: FinishBinding if the bind was reached, ForgetPod (errors only logged), then
        the failure handler with ``clearNominatedNode`` (:meth:`handle_failure`): a requeue if the pod still exists
        unbound."""
        _require(uid in self.binding and point in BINDING_FAILURES, f"pod {uid} has no binding cycle to fail")
        self.binding_cycle_error(uid, point is FailurePoint.BIND, as_status(RuntimeError(INJECTED_FAILURES[point])))

    def binding_cycle_error(self, uid: str, bind_reached: bool, status: Status) -> None:
        """``handleBindingCycleError`` with ``status``: FinishBinding if the bind was reached, ForgetPod (errors only
        logged), then the failure handler with ``clearNominatedNode``."""
        assumed = self.binding.pop(uid)
        if bind_reached:
            self.finish_binding(assumed)
        self.forget_after_binding_failure(assumed)
        self.handle_failure(assumed, CLEAR_NOMINATED_NODE, status)

    def forget_after_binding_failure(self, assumed: Pod) -> None:
        with suppress(CacheError):
            self.cache.forget_pod(assumed)

    def confirm_binding(self, uid: str) -> None:
        _require(uid in self.unconfirmed, f"no binding of {uid} awaits confirmation")
        self.cache.add_pod(self.api_pods[uid])
        self.unconfirmed.discard(uid)
        self.pending.pop(uid, None)  # updatePod: a pod someone else bound leaves the queue
        self.nominator.delete_nominated_pod_if_exists(self.api_pods[uid])

    def tick(self, elapsed: int) -> None:
        _require(elapsed >= 0, "time does not go back")
        self.now += elapsed
        if self.running and self.profile.assumed_pod_expiry:
            self.cache.cleanup_assumed_pods(self.now)

    # -- observation ------------------------------------------------------------------------------------

    def observe(self) -> JSON:
        return cluster_json(cache_json(self.cache), metrics_json(self.cache.cache_size), self.pending, self.binding,
                            self.api_pods, self.unconfirmed, self.now, self.filters.items(), running=self.running,
                            orphaned=self.orphaned, admitted=self.admitted, failed=self.failed,
                            decision=self._decision_observed(),
                            nominated={node: [ref.uid for ref in refs]
                                       for node, refs in self.nominator.nominated_pods.items() if refs},
                            failures=self.failures)

    def _decision_observed(self) -> JSON | None:
        if self.decision is None or self.preemption_result is None:
            return self.decision
        return {**self.decision, "preemption": self.preemption_result}
