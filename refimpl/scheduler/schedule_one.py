"""``ScheduleOne``: the scheduling cycle of one pod, its failure handling, and the start of its binding cycle.

``Scheduler.ScheduleOne``, ``schedulingCycle``, ``schedulePod``, ``findNodesThatFitPod``,
``findNodesThatPassFilters``, ``prioritizeNodes``, ``assume``, ``handleSchedulingFailure`` and
``handleBindingCycleError`` (pkg/scheduler/schedule_one.go, v1.35; digest §C, §E). Scheduling cycles run one at a
time. A successful one leaves a :class:`~refimpl.scheduler.binding_cycle.BindingCycle` in :attr:`binding_cycles`,
which a driver steps (:meth:`Scheduler.step_binding_cycles`) or which :meth:`Scheduler.run` runs on a thread.

Filtering is sequential in round-robin order from ``nextStartNodeIndex`` and stops once ``numFeasibleNodesToFind``
nodes passed: one of the outcomes Kubernetes' 16 parallel workers can produce. For speed it filters a slice of nodes
at a time, one plugin over the whole slice, reading the default plugins' figures from columns
(:mod:`refimpl.scheduler.framework.node_slice`), and each Score plugin scores every node in one call; with
:attr:`Scheduler.fast_paths` False the cycle runs every plugin on one node at a time, as Kubernetes' code reads, with
the same results (tests/refimpl/scheduler/test_fast_paths.py). PostFilter (DefaultPreemption,
:mod:`refimpl.scheduler.plugins.default_preemption`) runs when no node fits; the failure handler records its
nomination in the queue's nominator, ``assume`` removes it, and while any pod is nominated Filter runs node by node
with the nominated pods (``RunFilterPluginsWithNominatedPods``). Not modelled: extenders, metrics.
"""

from __future__ import annotations

import logging
import random
import threading
from bisect import bisect_left
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from itertools import count as counter
from itertools import filterfalse
from operator import itemgetter, sub
from typing import Final

from refimpl.cache import Cache, NodeInfo, Snapshot
from refimpl.cache.clock import Clock, SystemClock
from refimpl.dispatcher import (
    APICacher,
    APIClient,
    APIDispatcher,
    NominatingInfo,
    NominatingMode,
    PodCondition,
    PodStatus,
)
from refimpl.dispatcher.api_calls import sync_status
from refimpl.scheduler.batching import OpportunisticBatch
from refimpl.scheduler.binding_cycle import BindingCycle
from refimpl.scheduler.events import EVENT_ASSIGNED_POD_DELETE
from refimpl.scheduler.framework import CycleState, Diagnosis, FitError, Framework, Status, as_status
from refimpl.scheduler.framework.node_slice import NodeColumns, NodeSlice, gather
from refimpl.scheduler.framework.status import Code, fit_error_on_one_node, is_success
from refimpl.scheduler.queue import QueuedPodInfo, SchedulingQueue
from refimpl.scheduler.select_host import SortedScoredNodes, num_feasible_nodes_to_find, select_host
from spec.errors import CacheError
from spec.objects import Pod, klog_kobj, with_node_name
from spec.versions import DEFAULT_PROFILE, VersionProfile

LOGGER: Final = logging.getLogger(__name__)

ERR_NO_NODES_AVAILABLE: Final = "no nodes available to schedule pods"
"""``ErrNoNodesAvailable``."""
CLEAR_NOMINATED_NODE: Final = NominatingInfo(NominatingMode.OVERRIDE, "")
"""``clearNominatedNode``."""
POD_SCHEDULED: Final = "PodScheduled"
REASON_UNSCHEDULABLE: Final = "Unschedulable"
REASON_SCHEDULER_ERROR: Final = "SchedulerError"
NOTE_LENGTH_LIMIT: Final = 1024
"""``validation.NoteLengthLimit``: the longest event note."""
TRUNCATION_SUFFIX: Final = " ..."

PodLister = Callable[[str, str], Pod | None]
"""The informer's lister: the current pod ``namespace/name``, or None."""
EventRecorder = Callable[[Pod, str, str, str], None]
"""``(pod, type, reason, message)``: an event the scheduler emits (Warning FailedScheduling, Normal Scheduled)."""


class NoNodesAvailable(Exception):
    """``ErrNoNodesAvailable``."""

    def __init__(self) -> None:
        super().__init__(ERR_NO_NODES_AVAILABLE)


class Outcome(StrEnum):
    """How a scheduling cycle ended."""

    SKIPPED = "skipped"
    """Not attempted: no profile for its scheduler name, or already assumed."""
    UNSCHEDULABLE = "unschedulable"
    """Rejected (no node fits, or Reserve/Permit rejected it); requeued."""
    ERROR = "error"
    """An error; requeued to the error backoff."""
    BINDING = "binding"
    """A node was chosen and assumed; the binding cycle is registered."""


@dataclass(frozen=True)
class ScheduleResult:
    """``ScheduleResult``: the chosen node, how many nodes were evaluated and how many were feasible."""

    suggested_host: str
    evaluated_nodes: int
    feasible_nodes: int


@dataclass(frozen=True)
class ScheduleOneResult:
    """What one ``schedule_one`` did."""

    pod: Pod
    outcome: Outcome
    status: Status | None = None
    node: str | None = None
    result: ScheduleResult | None = None
    binding_cycle: BindingCycle | None = None


class Scheduler:
    """``Scheduler``: the scheduling loop over a cache, a queue and one framework per scheduler name."""

    def __init__(
        self,
        cache: Cache,
        queue: SchedulingQueue,
        frameworks: Framework | Mapping[str, Framework],
        *,
        client: APIClient | None = None,
        dispatcher: APIDispatcher | None = None,
        pod_lister: PodLister | None = None,
        profile: VersionProfile = DEFAULT_PROFILE,
        clock: Clock | None = None,
        rng: random.Random | None = None,
        opportunistic_batching: bool | None = None,
        percentage_of_nodes_to_score: int = 0,
        event_recorder: EventRecorder | None = None,
    ) -> None:
        """``dispatcher`` None means ``SchedulerAsyncAPICalls`` off: the binder and the status patches call
        ``client`` synchronously. ``opportunistic_batching`` None follows the profile. Every framework's handle is
        pointed at this scheduler's snapshot, clock and API access. Fails with ``ValueError`` if neither a client
        nor a dispatcher is given, or on a percentage outside [0, 100]."""
        if client is None and dispatcher is None:
            raise ValueError("a scheduler needs an API client or an API dispatcher to bind pods")
        if not 0 <= percentage_of_nodes_to_score <= 100:
            raise ValueError(f"percentageOfNodesToScore must be in [0, 100], got {percentage_of_nodes_to_score}")
        self.cache = cache
        self.queue = queue
        self.profile = profile
        self.clock: Clock = clock if clock is not None else SystemClock()
        self.rng = rng if rng is not None else random.Random()
        self.client = client
        self.dispatcher = dispatcher
        self.api_cacher = APICacher(dispatcher) if dispatcher is not None else None
        self.pod_lister = pod_lister
        self.event_recorder = event_recorder
        self.percentage_of_nodes_to_score = percentage_of_nodes_to_score
        if isinstance(frameworks, Framework):
            frameworks = {frameworks.scheduler_name: frameworks}
        self.frameworks = dict(frameworks)
        handles = {id(f.handle): f.handle for f in self.frameworks.values()}
        if len(handles) != 1:
            raise ValueError("every profile of one scheduler must share one handle (snapshot)")
        self.handle = next(iter(handles.values()))
        self.handle.clock = self.clock
        self.handle.client = client
        self.handle.api_cacher = self.api_cacher
        self.snapshot = self.handle.snapshot
        self.handle.nominated_pods_for_node = queue.nominated_pods_for_node
        self.handle.clear_nominated_node_name = self._clear_nominated_node_name
        if queue.nominator.pod_lister is None:
            queue.nominator.pod_lister = pod_lister
        for fwk in self.frameworks.values():
            fwk.clock = self.clock
        batching = profile.opportunistic_batching if opportunistic_batching is None else opportunistic_batching
        self.batches: dict[str, OpportunisticBatch] | None = (
            {name: OpportunisticBatch(fwk, self.clock) for name, fwk in self.frameworks.items()} if batching else None
        )
        self.next_start_node_index = 0
        self.fast_paths = True
        """Filter and score the nodes with the framework's fast paths (slices of nodes, one plugin call per slice);
        False runs every plugin on one node at a time, as Kubernetes' code reads. The results are the same
        (tests/refimpl/scheduler/test_fast_paths.py); False is for those tests and for benchmarks."""
        self._columns: NodeColumns | None = None
        """The rows of the snapshot's node list (:mod:`refimpl.scheduler.framework.node_slice`), once used."""
        self.binding_cycles: dict[str, BindingCycle] = {}
        """Live binding cycles by pod UID, in start order (finished ones are dropped when stepped)."""
        self._threads: list[threading.Thread] = []

    # ========================================================================================
    # ScheduleOne
    # ========================================================================================

    def schedule_one(self) -> ScheduleOneResult | None:
        """``ScheduleOne`` without blocking: pop a pod (None if there is none) and run its scheduling cycle."""
        pinfo = self.queue.pop()
        if pinfo is None:
            return None
        return self.schedule_pod_info(pinfo)

    def schedule_pod_info(self, pinfo: QueuedPodInfo) -> ScheduleOneResult:
        """``ScheduleOne`` after ``NextPod``: the scheduling cycle of a popped pod."""
        pod = pinfo.pod
        fwk = self.frameworks.get(pod.scheduler_name)
        if fwk is None:
            LOGGER.error("Error occurred: profile not found for scheduler name %r", pod.scheduler_name)
            self.queue.done(pod.uid)
            return ScheduleOneResult(pod, Outcome.SKIPPED, as_status(RuntimeError(
                f"profile not found for scheduler name \"{pod.scheduler_name}\"")))
        if self._skip_pod_schedule(pod):
            self.queue.done(pod.uid)
            return ScheduleOneResult(pod, Outcome.SKIPPED)
        start = self.clock.now()
        state = CycleState()
        result, assumed, status, nominating = self._scheduling_cycle(fwk, state, pinfo)
        if not is_success(status):
            assert status is not None
            self.handle_scheduling_failure(fwk, assumed, status, nominating, start)
            outcome = Outcome.UNSCHEDULABLE if status.is_rejected() else Outcome.ERROR
            return ScheduleOneResult(pod, outcome, status, result.suggested_host or None, result)
        cycle = BindingCycle(self, fwk, state, assumed, result.suggested_host, start)
        self.binding_cycles[pod.uid] = cycle
        return ScheduleOneResult(pod, Outcome.BINDING, status, result.suggested_host, result, cycle)

    def _skip_pod_schedule(self, pod: Pod) -> bool:
        """``skipPodSchedule`` (:func:`skip_pod_schedule`): a pod being deleted is skipped, with a FailedScheduling
        event; an assumed pod (re-queued by an update) is not scheduled again."""
        if pod.terminating:
            self._record_event(pod, "Warning", "FailedScheduling",
                               f"skip schedule deleting pod: {pod.namespace}/{pod.name}")
        try:
            assumed = self.cache.is_assumed_pod(pod)
        except CacheError:
            assumed = False
        return skip_pod_schedule(pod, assumed)

    # ========================================================================================
    # Scheduling cycle
    # ========================================================================================

    def _scheduling_cycle(
        self, fwk: Framework, state: CycleState, pinfo: QueuedPodInfo
    ) -> tuple[ScheduleResult, QueuedPodInfo, Status | None, NominatingInfo | None]:
        """``schedulingCycle``: the result, the (assumed) pod info, the status (None: success or Wait) and the
        nominating info for the failure handler."""
        pod = pinfo.pod
        empty = ScheduleResult("", 0, 0)
        try:
            result = self.schedule_pod(fwk, state, pod)
        except NoNodesAvailable as error:
            return empty, pinfo, Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, str(error), error=error), \
                CLEAR_NOMINATED_NODE
        except FitError as error:
            if not fwk.has_post_filter_plugins():
                return empty, pinfo, Status(Code.UNSCHEDULABLE, str(error), error=error), None
            nominated, post_status = fwk.run_post_filter_plugins(state, pod, error.diagnosis.node_to_status)
            error.diagnosis.post_filter_msg = post_status.message()
            nominating = NominatingInfo(NominatingMode.OVERRIDE, nominated) if nominated is not None else None
            return empty, pinfo, Status(Code.UNSCHEDULABLE, str(error), error=error), nominating
        except (CacheError, SchedulingError) as error:
            LOGGER.error("Error selecting node for pod %s: %s", klog_kobj(pod), error)
            return empty, pinfo, as_status(error), CLEAR_NOMINATED_NODE

        host = result.suggested_host
        assumed = QueuedPodInfo(with_node_name(pod, host), pinfo.timestamp)
        _copy_history(pinfo, assumed)
        try:
            self.cache.assume_pod(assumed.pod)
        except CacheError as error:
            return result, assumed, as_status(error), CLEAR_NOMINATED_NODE
        self.queue.delete_nominated_pod_if_exists(assumed.pod)  # assume: an assumed pod is no longer nominated

        status = fwk.run_reserve_plugins_reserve(state, assumed.pod, host)
        if not is_success(status):
            assert status is not None
            return result, assumed, self._undo_assume(fwk, state, assumed.pod, host, status), CLEAR_NOMINATED_NODE

        status = fwk.run_permit_plugins(state, assumed.pod, host)
        if status is not None and status.code not in (Code.SUCCESS, Code.WAIT):
            return result, assumed, self._undo_assume(fwk, state, assumed.pod, host, status), CLEAR_NOMINATED_NODE

        if state.pods_to_activate:
            self.queue.activate(list(state.pods_to_activate.values()))
            state.pods_to_activate.clear()
        return result, assumed, None, None

    def _undo_assume(self, fwk: Framework, state: CycleState, assumed: Pod, host: str, status: Status) -> Status:
        """A Reserve or Permit failure: Unreserve, ``ForgetPod``, and a FitError on the one node if rejected."""
        fwk.run_reserve_plugins_unreserve(state, assumed, host)
        try:
            self.cache.forget_pod(assumed)
        except CacheError as error:
            LOGGER.error("Scheduler cache ForgetPod failed: %s", error)
        if status.is_rejected():
            fit_error = fit_error_on_one_node(assumed.uid, host, status)
            return Status(status.code, str(fit_error), error=fit_error)
        return status

    def schedule_pod(self, fwk: Framework, state: CycleState, pod: Pod) -> ScheduleResult:
        """``schedulePod``: refresh the snapshot, filter, score, select. Raises :class:`NoNodesAvailable`,
        :class:`FitError`, ``CacheError`` (snapshot) or :class:`SchedulingError` (a plugin error)."""
        self.cache.update_snapshot(self.snapshot)
        if self.snapshot.num_nodes() == 0:
            raise NoNodesAvailable()
        feasible, diagnosis, hint, signature = self._find_nodes_that_fit_pod(fwk, state, pod)
        if not feasible:
            raise FitError(pod.uid, self.snapshot.num_nodes(), diagnosis)
        batch = self.batches[fwk.scheduler_name] if self.batches is not None else None
        cycle = self.queue.scheduling_cycle()
        if len(feasible) == 1:
            host = feasible[0].name
            if batch is not None:
                batch.store_schedule_results(signature, hint, host, None, cycle)
            return ScheduleResult(host, 1 + len(diagnosis.node_to_status), 1)
        names, keys = self._prioritize_nodes(fwk, state, pod, feasible)
        host, others = select_host(names, keys, reservoir_sampling=self.profile.select_host_reservoir_sampling,
                                   intn=self.rng.randrange)
        if batch is not None:
            batch.store_schedule_results(signature, hint, host, others, cycle)
        return ScheduleResult(host, len(feasible) + len(diagnosis.node_to_status), len(feasible))

    def _find_nodes_that_fit_pod(
        self, fwk: Framework, state: CycleState, pod: Pod
    ) -> tuple[list[NodeInfo], Diagnosis, str, bytes | None]:
        """``findNodesThatFitPod``: PreFilter, the batching hint, then filtering from the round-robin start.
        A Filter error on the hinted node is only logged, and the search goes on over every node
        (``evaluateNominatedNode``); a Filter error there raises :class:`SchedulingError`, after the round-robin
        start has moved past the nodes processed."""
        diagnosis = Diagnosis()
        all_nodes = self.snapshot.list_nodes()
        restriction, status, narrowing = fwk.run_pre_filter_plugins(state, pod, all_nodes)
        if not is_success(status):
            assert status is not None
            if not status.is_rejected():
                raise SchedulingError(status)
            diagnosis.node_to_status.absent_nodes_status = status
            diagnosis.pre_filter_msg = status.message()
            diagnosis.add_plugin_status(status)
            return [], diagnosis, "", None
        hint, signature = "", None
        if self.batches is not None:
            hint, signature = self.batches[fwk.scheduler_name].get_node_hint(
                state, pod, self.queue.scheduling_cycle(), self.snapshot)
        target = pod.nominated_node_name or hint  # evaluateNominatedNode: the nominated node first, else the hint
        if target:
            info = self.snapshot.node_info_map.get(target)
            if info is not None and info.node is not None:
                hinted, error = self._find_nodes_that_pass_filters(fwk, state, pod, diagnosis, [info], 0)
                if error is not None:
                    LOGGER.error("Evaluation failed on nominated node %s for pod %s: %s", target, klog_kobj(pod),
                                 error.message())
                if hinted:
                    return hinted, diagnosis, hint, signature
        nodes = all_nodes
        if restriction is not None and restriction.node_names is not None:
            nodes = [self.snapshot.node_info_map[n] for n in sorted(restriction.node_names)
                     if n in self.snapshot.node_info_map and self.snapshot.node_info_map[n].node is not None]
            plugins = " ".join(sorted(narrowing))
            diagnosis.node_to_status.absent_nodes_status = Status(
                Code.UNSCHEDULABLE_AND_UNRESOLVABLE, f"node(s) didn't satisfy plugin(s) [{plugins}]")
        feasible, error = self._find_nodes_that_pass_filters(fwk, state, pod, diagnosis, nodes,
                                                             self.next_start_node_index)
        # Even after an error, so that every node gets its turn.
        processed = len(feasible) + len(diagnosis.node_to_status)
        self.next_start_node_index = (self.next_start_node_index + processed) % len(all_nodes)
        if error is not None:
            raise SchedulingError(error)
        return feasible, diagnosis, hint, signature

    def _find_nodes_that_pass_filters(
        self, fwk: Framework, state: CycleState, pod: Pod, diagnosis: Diagnosis, nodes: list[NodeInfo], start: int
    ) -> tuple[list[NodeInfo], Status | None]:
        """``findNodesThatPassFilters``: up to ``numFeasibleNodesToFind`` nodes (1 without scoring) that pass
        every filter, checked in round-robin order from ``start``, and the Error status a plugin returned (the
        search stops at that node). Each rejected node's status goes into ``diagnosis``.

        The result is that of checking the nodes one by one (:meth:`_pass_filters_node_by_node`, which
        :attr:`fast_paths` False runs): this checks them in slices (:meth:`_pass_filters_in_slices`)."""
        count = len(nodes)
        if count == 0:
            return [], None
        to_find = num_feasible_nodes_to_find(count, fwk.percentage_of_nodes_to_score,
                                             self.percentage_of_nodes_to_score)
        if not fwk.has_score_plugins():
            to_find = 1
        if not fwk.has_filter_plugins():
            return [nodes[(start + i) % count] for i in range(to_find)], None
        columns = None
        if self.queue.has_nominated_pods():  # RunFilterPluginsWithNominatedPods, node by node
            in_order = nodes[start:] + nodes[:start] if start else nodes
            return pass_filters_with_nominated_pods(fwk, state, pod, diagnosis, in_order, to_find)
        if self.fast_paths and nodes is self.snapshot.node_info_list:  # the whole list: its rows are known
            columns = self._columns = snapshot_columns(self.snapshot, self._columns)
        return pass_filters(fwk, state, pod, diagnosis, nodes, start, to_find, columns, fast_paths=self.fast_paths)

    def _prioritize_nodes(
        self, fwk: Framework, state: CycleState, pod: Pod, nodes: list[NodeInfo]
    ) -> tuple[list[str], list[int]]:
        """``prioritizeNodes``: PreScore and Score; every node scores 1 without Score plugins. The totals are
        the heap keys: the randomizer is set only from extender scores, so it is 0 for every node."""
        names = nodes.names() if isinstance(nodes, NodeSlice) else [info.name for info in nodes]
        if not fwk.has_score_plugins():
            return names, [1] * len(nodes)
        status = fwk.run_pre_score_plugins(state, pod, nodes)
        if not is_success(status):
            assert status is not None
            raise SchedulingError(status)
        if self.fast_paths:
            totals, status = fwk.run_score_plugins_totals(state, pod, nodes, names)
        else:
            scores, status = fwk.run_score_plugins(state, pod, nodes)
            totals = [node.total_score for node in scores]
        if not is_success(status):
            assert status is not None
            raise SchedulingError(status)
        return names, totals

    # ========================================================================================
    # Binding cycles
    # ========================================================================================

    def step_binding_cycles(self) -> int:
        """Step every live binding cycle once, in start order; how many progressed. Finished cycles leave
        :attr:`binding_cycles`."""
        progressed = 0
        for uid, cycle in list(self.binding_cycles.items()):
            if cycle.step():
                progressed += 1
            if cycle.done and self.binding_cycles.get(uid) is cycle:
                del self.binding_cycles[uid]
        return progressed

    def finish_binding(self, pod: Pod, node: str, status: Status | None) -> None:
        """``finishBinding``: ``Cache.FinishBinding`` where the profile has it (errors are logged), then the
        Scheduled event on success."""
        if self.profile.assumed_pod_expiry:
            try:
                self.cache.finish_binding(pod)
            except CacheError as error:
                LOGGER.error("Scheduler cache FinishBinding failed: %s", error)
        if is_success(status):
            self._record_event(pod, "Normal", "Scheduled",
                               f"Successfully assigned {pod.namespace}/{pod.name} to {node}")

    def reject_waiting_pod(self, uid: str) -> bool:
        """``RejectWaitingPod`` in whichever profile the pod waits: "removed"; False if it does not wait."""
        return any(fwk.reject_waiting_pod(uid) for fwk in self.frameworks.values())

    def get_waiting_pod_framework(self, uid: str) -> Framework | None:
        """The profile in which the pod waits at Permit, if any."""
        for fwk in self.frameworks.values():
            if fwk.get_waiting_pod(uid) is not None:
                return fwk
        return None

    # ========================================================================================
    # Failure handling
    # ========================================================================================

    def handle_binding_cycle_error(
        self, fwk: Framework, state: CycleState, pinfo: QueuedPodInfo, node: str, status: Status, start: int
    ) -> None:
        """``handleBindingCycleError``: Unreserve, ``ForgetPod``; if forgetting worked, an AssignedPodDelete move
        (after the requeue, excluding the pod itself, when it was rejected); then the failure handler."""
        assumed = pinfo.pod
        fwk.run_reserve_plugins_unreserve(state, assumed, node)
        forgotten = True
        try:
            self.cache.forget_pod(assumed)
        except CacheError as error:
            forgotten = False
            LOGGER.error("scheduler cache ForgetPod failed: %s", error)
        if forgotten and not status.is_rejected():
            self.queue.move_all_to_active_or_backoff_queue(EVENT_ASSIGNED_POD_DELETE, assumed, None, None)
        self.handle_scheduling_failure(fwk, pinfo, status, CLEAR_NOMINATED_NODE, start)
        if forgotten and status.is_rejected():  # Go defers it past the failure handler
            uid = assumed.uid
            self.queue.move_all_to_active_or_backoff_queue(
                EVENT_ASSIGNED_POD_DELETE, assumed, None, lambda other: other.uid != uid)

    def handle_scheduling_failure(
        self, fwk: Framework, pinfo: QueuedPodInfo, status: Status, nominating: NominatingInfo | None, start: int
    ) -> None:
        """``handleSchedulingFailure``: record the rejecting plugins, requeue the pod as the informer now has it
        (not if it is gone, bound or recreated: :func:`failure_handling`), record the nomination, emit
        FailedScheduling and patch the PodScheduled=False condition (:func:`failure_condition`); for a recreated pod
        only ``Done``."""
        pod = pinfo.pod
        error = status.error
        if isinstance(error, FitError):
            pinfo.unschedulable_plugins = set(error.diagnosis.unschedulable_plugins)
            pinfo.pending_plugins = set(error.diagnosis.pending_plugins)
        elif not isinstance(error, NoNodesAvailable):
            LOGGER.info("Error scheduling pod %s; retrying: %s", klog_kobj(pod), status.message())
        if self.pod_lister is not None:
            current = self.pod_lister(pod.namespace, pod.name)
        else:  # no informer view: the pod as it was before this cycle assumed it
            current = with_node_name(pod, "")
        handling = failure_handling(pod, current)
        if handling.requeue is not None:
            pinfo.pod = handling.requeue
            try:
                self.queue.add_unschedulable_if_not_present(pinfo, self.queue.scheduling_cycle())
            except Exception as failed:  # Kubernetes logs "Error occurred" and goes on
                LOGGER.error("Error occurred: %s", failed)
        else:
            LOGGER.info("Pod %s is gone, bound or recreated in the informer cache; not requeued", klog_kobj(pod))
            self.queue.done(pod.uid)
        if handling.nominee is None:  # recreated: no nomination, event or status patch
            return
        # AddNominatedPod before the patch, so the next cycle counts the nomination (the nominator checks the lister)
        self.queue.add_nominated_pod(handling.nominee, nominating)
        condition = failure_condition(status)
        self._record_event(pod, "Warning", "FailedScheduling", truncate_message(condition.message))
        self.update_pod_status(pod, condition, nominating)

    def update_pod_status(self, pod: Pod, condition: PodCondition | None, nominating: NominatingInfo | None) -> None:
        """``updatePod``: through the API cacher without waiting; or, without a dispatcher, a synchronous patch
        when something changes. Errors are logged."""
        try:
            if self.api_cacher is not None:
                _, error = self.api_cacher.patch_pod_status(pod, condition, nominating)
                if error is not None:
                    LOGGER.error("Error updating pod %s: %s", klog_kobj(pod), error)
                return
            if self.client is None:
                return
            old = PodStatus(nominated_node_name=pod.nominated_node_name)
            new, changed = sync_status(old, condition, nominating)
            if changed:
                self.client.patch_pod_status(pod.namespace, pod.name, old, new, self.handle.context)
        except Exception as failed:  # the API server's refusal is only logged
            LOGGER.error("Error updating pod %s: %s", klog_kobj(pod), failed)

    def _clear_nominated_node_name(self, pod: Pod) -> None:
        """``clearNominatedNodeName`` for one pod: through the API cacher, or a direct patch if it has a node."""
        if self.api_cacher is None and not pod.nominated_node_name:
            return
        self.update_pod_status(pod, None, CLEAR_NOMINATED_NODE)

    def _record_event(self, pod: Pod, event_type: str, reason: str, message: str) -> None:
        if self.event_recorder is not None:
            self.event_recorder(pod, event_type, reason, message)

    # ========================================================================================
    # Threaded operation
    # ========================================================================================

    def run(self, stop: threading.Event, poll: float = 0.05) -> None:
        """``Run``'s scheduling loop on this thread until ``stop`` is set: pop (blocking up to ``poll`` seconds),
        schedule, and run each binding cycle to its end on a thread of its own. Start the dispatcher with
        ``dispatcher.run()`` beforehand."""
        while not stop.is_set():
            pinfo = self.queue.pop_blocking(poll)
            if pinfo is None:
                continue
            result = self.schedule_pod_info(pinfo)
            cycle = result.binding_cycle
            if cycle is not None:
                self.binding_cycles.pop(pinfo.pod.uid, None)
                thread = threading.Thread(target=cycle.run_blocking, name=f"binding-{pinfo.pod.uid}", daemon=True)
                self._threads.append(thread)
                thread.start()
            self._threads = [t for t in self._threads if t.is_alive()]

    def wait_for_binding_cycles(self, timeout: float | None = None) -> bool:
        """Join the binding-cycle threads :meth:`run` started; whether all ended."""
        for thread in list(self._threads):
            thread.join(timeout)
        return not any(t.is_alive() for t in self._threads)


@dataclass(frozen=True)
class FailureHandling:
    """What ``handleSchedulingFailure`` does with a failed pod, given the informer's view of it."""

    requeue: Pod | None
    """The informer's version of the pod, handed back to the queue (``AddUnschedulableIfNotPresent``); None when the
    pod is gone, bound or recreated (``Done`` instead)."""
    nominee: Pod | None
    """The pod ``AddNominatedPod`` records with the cycle's nominating info: the requeued version, else the cycle's;
    None when the pod was recreated (Kubernetes returns before the nomination, the event and the status patch)."""


def failure_handling(pod: Pod, current: Pod | None) -> FailureHandling:
    """The failure handler's requeue decision for ``pod`` (as the cycle had it), from ``current``, the pod the
    informer's lister has under its namespace and name now (None: deleted): a pod gone, or bound meanwhile (an
    extender's or a crashed predecessor's bind), is not requeued but still nominated as the cycle had it; a pod
    recreated under its name (another UID) is neither requeued nor nominated; otherwise the informer's version is
    requeued and nominated.

    Kubernetes: `Scheduler.handleSchedulingFailure` (pkg/scheduler/schedule_one.go)
    """
    if current is None or current.node_name:
        return FailureHandling(None, pod)
    if current.uid != pod.uid:
        return FailureHandling(None, None)
    return FailureHandling(current, current)


def skip_pod_schedule(pod: Pod, assumed: bool) -> bool:
    """Whether ``ScheduleOne`` skips a popped ``pod``: it is being deleted (``DeletionTimestamp`` set), or the cache
    ``assumed`` it (an update re-queued it during its cycle). The pod is then not put back (``Done``).

    Kubernetes: `Scheduler.skipPodSchedule` (pkg/scheduler/schedule_one.go)
    """
    return pod.terminating or assumed


def failure_condition(status: Status) -> PodCondition:
    """The ``PodScheduled`` condition the failure handler patches: ``False``, reason ``Unschedulable`` for a rejection
    and ``SchedulerError`` for an error, the status message.

    Kubernetes: `Scheduler.handleSchedulingFailure` (pkg/scheduler/schedule_one.go)
    """
    reason = REASON_UNSCHEDULABLE if status.is_rejected() else REASON_SCHEDULER_ERROR
    return PodCondition(POD_SCHEDULED, "False", reason, status.message())


def truncate_message(message: str) -> str:
    """``message`` cut to :data:`NOTE_LENGTH_LIMIT` bytes, ending in " ..." when it was longer (Go slices bytes).

    Kubernetes: `truncateMessage` (pkg/scheduler/schedule_one.go)
    """
    raw = message.encode()
    if len(raw) <= NOTE_LENGTH_LIMIT:
        return message
    return raw[: NOTE_LENGTH_LIMIT - len(TRUNCATION_SUFFIX)].decode(errors="replace") + TRUNCATION_SUFFIX


class SchedulingError(Exception):
    """A plugin returned an error during filtering or scoring."""

    def __init__(self, status: Status) -> None:
        super().__init__(status.message())
        self.status = status


def snapshot_columns(snapshot: Snapshot, columns: NodeColumns | None) -> NodeColumns:
    """The rows of ``snapshot``'s node list: ``columns`` if they are that list's, else new rows that follow the
    snapshot's log of refreshed entries (:meth:`NodeColumns.follow`). A refimpl-only speed-up."""
    nodes = snapshot.node_info_list
    if columns is None or columns.nodes is not nodes:
        columns = NodeColumns(nodes)
        columns.follow(snapshot)
    return columns


def pass_filters(
    fwk: Framework, state: CycleState, pod: Pod, diagnosis: Diagnosis, nodes: list[NodeInfo], start: int,
    to_find: int, columns: NodeColumns | None, *, fast_paths: bool = True,
) -> tuple[list[NodeInfo], Status | None]:
    """``findNodesThatPassFilters``' search once PreFilter ran: up to ``to_find`` nodes of ``nodes`` that pass every
    filter, checked in round-robin order from ``start``, and the Error status a plugin returned (the search stops
    at that node); each rejected node's status goes into ``diagnosis``. ``fast_paths`` filters slices of nodes
    (:func:`_pass_filters_in_slices`, reading ``columns``, the rows of ``nodes`` if known); else one node after
    another (:func:`_pass_filters_node_by_node`), with the same result (tests/refimpl/scheduler/test_fast_paths.py).
    The cycle-area adapter (conformance/adapters/refimpl_cycle.py) runs this too."""
    if fast_paths:
        return _pass_filters_in_slices(fwk, state, pod, diagnosis, nodes, start, to_find, columns)
    in_order = nodes[start:] + nodes[:start] if start else nodes
    return _pass_filters_node_by_node(fwk, state, pod, diagnosis, in_order, to_find)


MIN_FILTER_SLICE: Final = 64
"""The fewest nodes :func:`_pass_filters_in_slices` filters at a time: near the end of a search, filtering a few
nodes more than needed costs less than filtering them a few at a time."""


def _pass_filters_in_slices(
    fwk: Framework, state: CycleState, pod: Pod, diagnosis: Diagnosis, nodes: list[NodeInfo], start: int,
    to_find: int, columns: NodeColumns | None,
) -> tuple[NodeSlice, Status | None]:
    """:func:`_pass_filters_node_by_node`'s result for ``nodes`` from ``start`` on (round robin), filtering a slice
    of nodes at a time: as many as are still to be found (at least :data:`MIN_FILTER_SLICE`), each plugin over the
    whole slice (:meth:`Framework.nodes_filter_runner`). The slice's verdicts are then taken in order, up to the
    node the node-by-node search stops at; the verdicts on nodes after it are dropped, as Kubernetes drops its
    workers' once enough nodes were found. Filter plugins read only their arguments, so the result is the same.
    With ``columns`` (the rows of ``nodes``), each slice carries its refreshed rows."""
    run_filters = fwk.nodes_filter_runner(state, pod)
    statuses = diagnosis.node_to_status.node_to_status
    pending, unschedulable = diagnosis.pending_plugins, diagnosis.unschedulable_plugins
    feasible = NodeSlice(columns=columns)
    feasible_rows: list[int] = []
    count = len(nodes)
    begin = 0
    while begin < count:
        end = min(count, begin + max(to_find - len(feasible), MIN_FILTER_SLICE))
        first, last = start + begin, start + end  # positions in nodes, modulo count
        rows: Sequence[int]
        if last <= count:
            infos, rows = nodes[first:last], range(first, last)
        elif first >= count:
            infos, rows = nodes[first - count:last - count], range(first - count, last - count)
        else:
            infos, rows = nodes[first:] + nodes[:last - count], [*range(first, count), *range(last - count)]
        if columns is not None:
            columns.refresh(infos, rows)
        batch = NodeSlice(infos, columns, rows)
        found = run_filters(batch)
        needed = to_find - len(feasible)
        # The k-th rejection (from 0) at index i has i - k passing nodes before it: the search stops before the
        # first whose count reaches what is still needed, and after the needed passing nodes.
        k = bisect_left(list(map(sub, map(_first, found), counter())), needed)
        stop = min(len(batch), needed + k)
        found = found[:k]
        indices = list(map(_first, found))
        rejected = list(map(_second, found))
        distinct = dict(zip(map(id, rejected), rejected, strict=True))  # plugins share statuses
        if any(status.code is Code.ERROR for status in distinct.values()):
            error_at = next(j for j, status in enumerate(rejected) if status.code is Code.ERROR)
            stop, error = indices[error_at], rejected[error_at]
            indices, rejected = indices[:error_at], rejected[:error_at]
            distinct = dict(zip(map(id, rejected), rejected, strict=True))
            _record(indices, rejected, distinct, batch, statuses, pending, unschedulable)
            _take_passing(indices, batch, rows, stop, feasible, feasible_rows)
            feasible.rows = feasible_rows
            return feasible, error
        _record(indices, rejected, distinct, batch, statuses, pending, unschedulable)
        _take_passing(indices, batch, rows, stop, feasible, feasible_rows)
        if len(feasible) >= to_find:
            break
        begin = end
    feasible.rows = feasible_rows
    return feasible, None


_first, _second = itemgetter(0), itemgetter(1)


def _record(indices: list[int], rejected: list[Status], distinct: dict[int, Status], batch: NodeSlice,
            statuses: dict[str, Status], pending: set[str], unschedulable: set[str]) -> None:
    """The status ``rejected[j]`` of each rejected node ``batch[indices[j]]`` in the diagnosis, and
    ``Diagnosis.AddPluginStatus`` for each (once per distinct status: ``distinct``, by id), in C but for one step
    per distinct status."""
    if not indices:
        return
    if batch.columns is not None:
        names = gather(batch.columns.names, gather(batch.rows, indices))
    else:
        names = [batch[i].name for i in indices]
    statuses.update(zip(names, rejected, strict=True))
    for status in distinct.values():
        if status.plugin:
            (pending if status.code is Code.PENDING else unschedulable).add(status.plugin)


def _take_passing(indices: list[int], batch: NodeSlice, rows: Sequence[int], stop: int, feasible: NodeSlice,
                  feasible_rows: list[int]) -> None:
    """Append the nodes of ``batch[:stop]`` not at ``indices`` (and their rows) to ``feasible``, taken in C."""
    if not indices:
        feasible += batch[:stop]
        feasible_rows += rows[:stop]
        return
    passing = list(filterfalse(set(indices).__contains__, range(stop)))
    if passing:
        feasible += gather(batch, passing)
        feasible_rows += gather(rows, passing)


def _pass_filters_node_by_node(
    fwk: Framework, state: CycleState, pod: Pod, diagnosis: Diagnosis, nodes: list[NodeInfo], to_find: int
) -> tuple[list[NodeInfo], Status | None]:
    """``findNodesThatPassFilters``' loop, one node after another: ``RunFilterPlugins`` on each of ``nodes`` in
    order, until ``to_find`` passed or a plugin returned an Error (Kubernetes' 16 workers may check a few nodes
    more; this is the outcome in which they stop exactly there)."""
    feasible: list[NodeInfo] = []
    for info in nodes:
        status = fwk.run_filter_plugins(state, pod, info)
        if status is None:
            feasible.append(info)
            if len(feasible) >= to_find:
                break
        elif status.code is Code.ERROR:
            return feasible, status
        else:
            diagnosis.node_to_status.set(info.name, status)
            diagnosis.add_plugin_status(status)
    return feasible, None


def pass_filters_with_nominated_pods(
    fwk: Framework, state: CycleState, pod: Pod, diagnosis: Diagnosis, nodes: list[NodeInfo], to_find: int
) -> tuple[list[NodeInfo], Status | None]:
    """``findNodesThatPassFilters``' loop while some pod is nominated: :func:`_pass_filters_node_by_node` with
    ``RunFilterPluginsWithNominatedPods`` on each node (the pods nominated there of equal or higher priority count)."""
    feasible: list[NodeInfo] = []
    for info in nodes:
        status = fwk.run_filter_plugins_with_nominated_pods(state, pod, info)
        if status is None:
            feasible.append(info)
            if len(feasible) >= to_find:
                break
        elif status.code is Code.ERROR:
            return feasible, status
        else:
            diagnosis.node_to_status.set(info.name, status)
            diagnosis.add_plugin_status(status)
    return feasible, None


def _copy_history(source: QueuedPodInfo, target: QueuedPodInfo) -> None:
    """``QueuedPodInfo.DeepCopy`` for the assumed copy: the same history."""
    target.initial_attempt_timestamp = source.initial_attempt_timestamp
    target.attempts = source.attempts
    target.unschedulable_count = source.unschedulable_count
    target.consecutive_errors_count = source.consecutive_errors_count
    target.backoff_expiration = source.backoff_expiration
    target.unschedulable_plugins = set(source.unschedulable_plugins)
    target.pending_plugins = set(source.pending_plugins)


__all__ = [
    "CLEAR_NOMINATED_NODE",
    "ERR_NO_NODES_AVAILABLE",
    "BindingCycle",
    "NoNodesAvailable",
    "Outcome",
    "ScheduleOneResult",
    "ScheduleResult",
    "Scheduler",
    "SchedulingError",
    "SortedScoredNodes",
    "pass_filters",
    "snapshot_columns",
]
