"""The scheduling queue: ``PriorityQueue`` (pkg/scheduler/backend/queue/scheduling_queue.go, active_queue.go,
backoff_queue.go; v1.35, digest ``k8s-dispatcher-cycle.md`` §F).

Every pending pod is in exactly one of three places, and a popped pod is *in flight* until ``done``:

- **activeQ** (:mod:`refimpl.scheduler.active_queue`): a heap in the profile's QueueSort order (PrioritySort:
  priority, then arrival), with the scheduling-cycle counter and the in-flight pods and events;
- **backoffQ** (:mod:`refimpl.scheduler.backoff_queue`): two heaps by backoff expiry, ``podBackoffQ`` (pods
  rejected by plugins) and ``podErrorBackoffQ`` (pods that failed with an error); :mod:`refimpl.scheduler.backoff`
  computes the expiry;
- **unschedulablePods**: a map of pods waiting for a cluster event that may make them schedulable, or for the
  5-minute leftover flush.

While a pod is in flight the queue records the cluster events that happen (``inFlightEvents``), so that when the
attempt fails :meth:`SchedulingQueue.add_unschedulable_if_not_present` can tell whether one of them may already
have made the pod schedulable (QueueingHints, on by default since v1.32) and send it to backoffQ or activeQ
rather than to unschedulablePods. With QueueingHints off the coarser ``moveRequestCycle`` rule applies.

The sub-queues key a pod by namespace/name, as Kubernetes' do (``podInfoKeyFunc``;
:func:`~refimpl.scheduler.queued_pod_info.pod_key`): a pod of another UID with the same namespace and name replaces,
finds or removes the entry. The pods in flight and the nominator go by UID, as Kubernetes' do.
One lock guards everything, and one condition wakes :meth:`SchedulingQueue.pop_blocking`; every other method is
non-blocking, so a deterministic simulator can drive the queue from one thread with a
:class:`~refimpl.cache.clock.FakeClock`, calling :meth:`~SchedulingQueue.flush_backoff_q_completed` and
:meth:`~SchedulingQueue.flush_unschedulable_pods_leftover` itself.

The queue owns the nominator (:mod:`refimpl.scheduler.nominator`) and runs the profiles' PreEnqueue plugins
(``runPreEnqueuePlugins``): a pod one of them rejects waits in unschedulablePods, gated, until an update lets it
pass. Not modelled: metrics, and ``AssignedPodAdded``'s affinity-term matching (approximated; see there).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import replace
from enum import Enum, StrEnum
from typing import Protocol

from refimpl.cache.clock import Clock
from refimpl.dispatcher import NominatingInfo
from refimpl.scheduler import backoff
from refimpl.scheduler.active_queue import ActiveQueue, RecordedEvent
from refimpl.scheduler.backoff_queue import BackoffQueue
from refimpl.scheduler.events import (
    EVENT_ASSIGNED_POD_ADD,
    EVENT_FORCE_ACTIVATE,
    EVENT_UNSCHEDULABLE_TIMEOUT,
    ActionType,
    ClusterEvent,
    EventResource,
    QueueingHint,
    QueueingHintFunction,
    QueueingHintMapPerProfile,
    default_queueing_hint_map,
    match_cluster_events,
    pod_scheduling_properties_change,
)
from refimpl.scheduler.nominator import Nominator, PodLister
from refimpl.scheduler.queued_pod_info import LessFunc, QueuedPodInfo, pod_key, priority_sort_less
from spec.objects import DEFAULT_SCHEDULER_NAME, Pod, klog_kobj

PreEnqueueCheck = Callable[[Pod], bool]
"""``PreEnqueueCheck``: a filter on the unschedulable pods a move request considers."""


def is_pod_updated(old: Pod | None, new: Pod) -> bool:
    """``isPodUpdated``: the pod changed other than in its status (nominated node, start time, conditions)."""
    if old is None:
        return True
    def strip(pod: Pod) -> Pod:
        return replace(pod, nominated_node_name="", start_time=None, preempted_by_scheduler=False)
    return strip(old) != strip(new)


class PreEnqueuePlugin(Protocol):
    """``fwk.PreEnqueuePlugin``: ``pre_enqueue`` returns None to admit the pod, else why it must wait."""

    name: str

    def pre_enqueue(self, pod: Pod) -> str | None: ...


class QueueName(StrEnum):
    """Where a pod is: the three sub-queues, or in flight (popped, ``done`` not yet called)."""

    ACTIVE = "Active"
    BACKOFF = "Backoff"
    UNSCHEDULABLE = "Unschedulable"
    IN_FLIGHT = "InFlight"


class QueueError(Exception):
    """A queue operation refused, with Kubernetes' message (``AddUnschedulableIfNotPresent``'s errors)."""


class QueueingStrategy(Enum):
    """``queueingStrategy``: where a pod that an event may have made schedulable goes."""

    QUEUE_SKIP = 0
    QUEUE_AFTER_BACKOFF = 1
    QUEUE_IMMEDIATELY = 2


class SchedulingQueue:
    """``PriorityQueue``. Thread-safe; see the module docstring."""

    def __init__(
        self,
        clock: Clock,
        *,
        queueing_hints: QueueingHintMapPerProfile | None = None,
        scheduler_names: Iterable[str] = (DEFAULT_SCHEDULER_NAME,),
        pod_initial_backoff: int = backoff.DEFAULT_POD_INITIAL_BACKOFF,
        pod_max_backoff: int = backoff.DEFAULT_POD_MAX_BACKOFF,
        pod_max_in_unschedulable_pods_duration: int = backoff.DEFAULT_POD_MAX_IN_UNSCHEDULABLE_PODS_DURATION,
        queueing_hints_enabled: bool = True,
        pop_from_backoff_q: bool = True,
        activate_moves_from_backoff_q: bool = True,
        keeps_move_request_cycle: bool = True,
        target_pod_update_events: bool = False,
        update_requires_same_uid: bool = False,
        empty_nomination_clears: bool = False,
        add_leaves_backoff_entry: bool = False,
        gated_add_updates_unschedulable_entry: bool = False,
        add_pod_nominates: bool = False,
        pod_scale_up_event: bool = False,
        less: LessFunc = priority_sort_less,
        pre_enqueue_plugins: Mapping[str, Sequence[PreEnqueuePlugin]] | None = None,
        pod_lister: PodLister | None = None,
    ) -> None:
        """``NewPriorityQueue``. ``queueing_hints`` maps each profile's scheduler name to its hint map; None gives
        every name in ``scheduler_names`` the default plugins' map. Durations are nanoseconds. The two flags are
        the ``SchedulerQueueingHints`` and ``SchedulerPopFromBackoffQ`` feature gates (both on in v1.35);
        ``activate_moves_from_backoff_q`` False is v1.34's ``Activate``, which runs the PreEnqueue plugins on a pod it
        takes from backoffQ. ``keeps_move_request_cycle`` False is v1.37's queue, which has no ``moveRequestCycle``
        (nor the SchedulerQueueingHints gate: ``queueing_hints_enabled`` must be on); ``target_pod_update_events`` is
        v1.37's ``Update``, whose events have the ``TargetPod`` resource; ``update_requires_same_uid`` is v1.37's
        ``PodInfo.Update``, which refuses an object of another UID (``Update`` then adds it as a new pod);
        ``empty_nomination_clears`` is v1.37's nominator, which drops a nomination to "" instead of storing it;
        ``add_leaves_backoff_entry`` is v1.37's ``moveToActiveQ``, which neither takes the pod out of backoffQ nor
        keeps a gated pod held in activeQ or backoffQ out of unschedulablePods (``Add`` of a queued pod then leaves it
        in two sub-queues, which the spec does not state and no vector exercises);
        ``gated_add_updates_unschedulable_entry`` is v1.36's ``moveToActiveQ``, which puts a new gated pod info in
        unschedulablePods even when an entry is there; ``add_pod_nominates`` is v1.37's ``addPod``, which records the
        pod's nomination before ``moveToActiveQ`` (a gated pod's too), where earlier releases' ``moveToActiveQ`` does;
        ``pod_scale_up_event`` is v1.37's ``PodSchedulingPropertiesChange``, which names raised requests
        ``UpdatePodScaleUp``.
        ``pre_enqueue_plugins`` are each profile's PreEnqueue plugins (``WithPreEnqueuePluginMap``; none by
        default, as in Kubernetes' queue tests); ``pod_lister`` is the nominator's (``WithPodLister``).
        Fails with ``ValueError`` on a negative duration, or QueueingHints off without a ``moveRequestCycle``."""
        for name, value in (
            ("pod_initial_backoff", pod_initial_backoff),
            ("pod_max_backoff", pod_max_backoff),
            ("pod_max_in_unschedulable_pods_duration", pod_max_in_unschedulable_pods_duration),
        ):
            if value < 0:
                raise ValueError(f"{name} must not be negative, got {value} ns")
        if not queueing_hints_enabled and not keeps_move_request_cycle:
            raise ValueError("a queue without moveRequestCycle (v1.37) has no SchedulerQueueingHints gate to turn off")
        self.clock = clock
        self.pod_initial_backoff = pod_initial_backoff
        self.pod_max_backoff = pod_max_backoff
        self.pod_max_in_unschedulable_pods_duration = pod_max_in_unschedulable_pods_duration
        self.queueing_hints_enabled = queueing_hints_enabled
        self.pop_from_backoff_q = pop_from_backoff_q
        self.activate_moves_from_backoff_q = activate_moves_from_backoff_q
        self.keeps_move_request_cycle = keeps_move_request_cycle
        self.target_pod_update_events = target_pod_update_events
        self.update_requires_same_uid = update_requires_same_uid
        self.add_leaves_backoff_entry = add_leaves_backoff_entry
        self.gated_add_updates_unschedulable_entry = gated_add_updates_unschedulable_entry
        self.add_pod_nominates = add_pod_nominates
        self.pod_scale_up_event = pod_scale_up_event
        if queueing_hints is None:
            queueing_hints = {name: default_queueing_hint_map(None, queueing_hints_enabled) for name in scheduler_names}
            for name, plugins in (pre_enqueue_plugins or {}).items():
                for plugin in plugins:  # PreEnqueue plugins register their events too (SchedulingGates)
                    register = getattr(plugin, "events_to_register", None)
                    if register is not None and name in queueing_hints:
                        hints = {event: list(fs) for event, fs in queueing_hints[name].items()}
                        for event, functions in register(queueing_hints_enabled).items():
                            hints.setdefault(event, []).extend(functions)
                        queueing_hints = {**queueing_hints, name: hints}
        self._hints = queueing_hints
        self._hint_cache: dict[tuple[str, ClusterEvent], list[QueueingHintFunction] | None] = {}
        self._less = less
        self._lock = threading.Lock()
        self._cond = threading.Condition(self._lock)  # notified when activeQ (or, gate on, podBackoffQ) grows
        self._active = ActiveQueue(less)  # activeQ, the scheduling cycle and the in-flight pods and events
        self._backoff = BackoffQueue(clock, pod_initial_backoff, pod_max_backoff, less, pop_from_backoff_q)
        self._unschedulable: dict[str, QueuedPodInfo] = {}
        self._move_request_cycle = -1
        self._closed = False
        self._pre_enqueue = dict(pre_enqueue_plugins or {})
        self.nominator = Nominator(pod_lister, empty_nomination_clears=empty_nomination_clears)
        """``nominator``: guarded by this queue's lock (use the queue's nominator methods)."""

    # ========================================================================================
    # Backoff
    # ========================================================================================

    def _is_backing_off(self, pinfo: QueuedPodInfo) -> bool:
        return self._backoff.is_backing_off(pinfo)

    def backoff_time(self, pinfo: QueuedPodInfo) -> int | None:
        """``getBackoffTime``: when the pod's backoff ends (None: it has none)."""
        with self._lock:
            return self._backoff.backoff_time(pinfo)

    def is_pod_backing_off(self, pinfo: QueuedPodInfo) -> bool:
        """``isPodBackingoff`` at the clock's current time."""
        with self._lock:
            return self._is_backing_off(pinfo)

    # ========================================================================================
    # Moving pods between sub-queues (callers hold the lock)
    # ========================================================================================

    def _run_pre_enqueue_plugins(self, pinfo: QueuedPodInfo) -> None:
        """``runPreEnqueuePlugins``: the gating plugin first, then the others; the first to reject becomes the
        gating plugin and joins the unschedulable plugins; if all pass, the pod is no longer gated."""
        plugins = self._pre_enqueue.get(pinfo.pod.scheduler_name, [])
        gating = [p for p in plugins if p.name == pinfo.gating_plugin]
        for plugin in gating + [p for p in plugins if p.name != pinfo.gating_plugin]:
            if plugin.pre_enqueue(pinfo.pod) is not None:
                pinfo.unschedulable_plugins.add(plugin.name)
                pinfo.gating_plugin = plugin.name
                return
        pinfo.gating_plugin = ""

    def _move_to_active(self, pinfo: QueuedPodInfo, from_backoff: bool = False, nominate: bool = False) -> bool:
        """``moveToActiveQ``: PreEnqueue first (not for a pod coming from backoffQ with PopFromBackoffQ); a gated pod
        waits in unschedulablePods (from v1.36 replacing the entry there). ``nominate`` (the Add and Update events)
        records the pod's own nominated node (through v1.36; v1.37's ``addPod`` does it). Returns whether the pod
        entered activeQ."""
        if not (from_backoff and self.pop_from_backoff_q):
            self._run_pre_enqueue_plugins(pinfo)
        key = pod_key(pinfo.pod)
        if pinfo.gated():
            held = (  # v1.36 on: addOrUpdate; v1.37 parks it whether or not activeQ or backoffQ holds it
                (not self.gated_add_updates_unschedulable_entry and key in self._unschedulable)
                or (not self.add_leaves_backoff_entry and (key in self._active or key in self._backoff)))
            if not held:
                self._unschedulable[key] = pinfo
            return False
        if pinfo.initial_attempt_timestamp is None:
            pinfo.initial_attempt_timestamp = self.clock.now()
        self._unschedulable.pop(key, None)
        if not self.add_leaves_backoff_entry:  # v1.36's p.backoffQ.delete(pInfo); v1.37's moveToActiveQ has none
            self._backoff.delete(key)
        self._active.add(pinfo)
        self._cond.notify_all()
        if nominate and not self.add_pod_nominates:
            self.nominator.add_nominated_pod(pinfo.pod, None)
        return True

    def _add_pod(self, pod: Pod) -> bool:
        """``addPod``: a new pod info to activeQ; v1.37 records the pod's nomination first, gated or not. Returns
        whether it entered activeQ."""
        if self.add_pod_nominates:
            self.nominator.add_nominated_pod(pod, None)
        return self._move_to_active(QueuedPodInfo(pod, self.clock.now()), nominate=True)

    def _move_to_backoff(self, pinfo: QueuedPodInfo) -> bool:
        """``moveToBackoffQ``: with PopFromBackoffQ, PreEnqueue first (a gated pod waits in unschedulablePods);
        then into podErrorBackoffQ when the pod has no rejector plugin, else podBackoffQ. Returns whether it did."""
        if self.pop_from_backoff_q:
            self._run_pre_enqueue_plugins(pinfo)
            if pinfo.gated():
                self._unschedulable.setdefault(pod_key(pinfo.pod), pinfo)
                return False
        self._unschedulable.pop(pod_key(pinfo.pod), None)
        self._backoff.add(pinfo)
        if self.pop_from_backoff_q and pinfo.rejector_plugins():
            self._cond.notify_all()  # Pop may take it (PopFromBackoffQ)
        return True

    def _request_move(self) -> None:
        """A move request: ``moveRequestCycle`` becomes the current cycle, where the queue keeps one (through v1.36)."""
        if self.keeps_move_request_cycle:
            self._move_request_cycle = self._active.scheduling_cycle

    def _requeue(self, pinfo: QueuedPodInfo, strategy: QueueingStrategy, nominate: bool = False) -> QueueName:
        """``requeuePodWithQueueingStrategy``: returns where the pod went (unschedulablePods if PreEnqueue gated it).
        ``nominate``: the event is the generic unscheduled-pod update, for which ``moveToActiveQ`` re-adds the
        pod's own nomination."""
        if strategy is QueueingStrategy.QUEUE_SKIP:
            self._unschedulable[pod_key(pinfo.pod)] = pinfo
            return QueueName.UNSCHEDULABLE
        if strategy is QueueingStrategy.QUEUE_AFTER_BACKOFF and self._is_backing_off(pinfo):
            return QueueName.BACKOFF if self._move_to_backoff(pinfo) else QueueName.UNSCHEDULABLE
        return QueueName.ACTIVE if self._move_to_active(pinfo, nominate=nominate) else QueueName.UNSCHEDULABLE

    # ========================================================================================
    # The nominator (the queue's lock guards it)
    # ========================================================================================

    def add_nominated_pod(self, pod: Pod, info: NominatingInfo | None) -> None:
        """``AddNominatedPod``."""
        with self._lock:
            self.nominator.add_nominated_pod(pod, info)

    def delete_nominated_pod_if_exists(self, pod: Pod) -> None:
        """``DeleteNominatedPodIfExists`` (``assume`` calls it)."""
        with self._lock:
            self.nominator.delete_nominated_pod_if_exists(pod)

    def nominated_pods_for_node(self, node: str) -> list[Pod]:
        """``NominatedPodsForNode``: the pods nominated to ``node`` as the queue holds them (``nominatedPodToInfo``:
        activeQ, then unschedulablePods, then backoffQ; a pod in none of them, e.g. in flight, is only its name,
        namespace and UID). An entry of the ref's namespace/name holding another UID counts as none, as in the spec
        (:func:`spec.queue.queue.nominated_pods`; Kubernetes would take that entry's pod)."""
        with self._lock:
            refs = self.nominator.nominated_pods_for_node(node)
            pods = []
            for ref in refs:
                key = pod_key(ref.to_pod())
                pinfo = self._active.get(key) or self._unschedulable.get(key) or self._backoff.get(key)
                pods.append(pinfo.pod if pinfo is not None and pinfo.uid == ref.uid else ref.to_pod())
            return pods

    def has_nominated_pods(self) -> bool:
        """Whether any pod is nominated to a node (a refimpl speed-up: without one, Filter needs no second pass; a
        nomination to the node named "", which a failed preemption leaves, counts on no node)."""
        with self._lock:
            return any(self.nominator.nominated_pods.keys() - {""})

    # ========================================================================================
    # Queueing hints
    # ========================================================================================

    def _is_event_of_interest(self, event: ClusterEvent) -> bool:
        if event.is_wildcard:
            return True
        return any(match_cluster_events(registered, event) for hints in self._hints.values() for registered in hints)

    def _is_pod_worth_requeuing(
        self, pinfo: QueuedPodInfo, event: ClusterEvent, old: object | None, new: object | None
    ) -> QueueingStrategy:
        """``isPodWorthRequeuing``: ask the hints of the plugins that rejected the pod about ``event``."""
        rejectors = pinfo.rejector_plugins()
        if not rejectors:
            return QueueingStrategy.QUEUE_AFTER_BACKOFF
        if event.is_wildcard:
            # A wildcard event naming a pod in its new object is meant for that pod only (ForceActivate).
            if new is not None and (not isinstance(new, Pod) or new.uid != pinfo.uid):
                return QueueingStrategy.QUEUE_SKIP
            return QueueingStrategy.QUEUE_AFTER_BACKOFF
        functions = self._matching_hints(pinfo.pod.scheduler_name, event)
        if functions is None:
            return QueueingStrategy.QUEUE_AFTER_BACKOFF  # "No QueueingHintMap is registered for this profile"
        strategy = QueueingStrategy.QUEUE_SKIP
        for function in functions:
            if function.plugin_name not in rejectors:
                continue
            if function.hint(pinfo.pod, old, new) is QueueingHint.QUEUE_SKIP:
                continue
            if function.plugin_name in pinfo.pending_plugins:
                return QueueingStrategy.QUEUE_IMMEDIATELY
            if not pinfo.pending_plugins:
                return QueueingStrategy.QUEUE_AFTER_BACKOFF
            strategy = QueueingStrategy.QUEUE_AFTER_BACKOFF
        return strategy

    def _matching_hints(self, profile: str, event: ClusterEvent) -> list[QueueingHintFunction] | None:
        """The hint functions of ``profile``'s map registered for events matching ``event``, in map order (the
        loop of ``isPodWorthRequeuing``), memoised: the maps do not change after construction."""
        key = (profile, event)
        cached = self._hint_cache.get(key)
        if cached is None and key not in self._hint_cache:
            hint_map = self._hints.get(profile)
            if hint_map is not None:
                matching = (fs for registered, fs in hint_map.items() if match_cluster_events(registered, event))
                cached = [f for fs in matching for f in fs]
            self._hint_cache[key] = cached
        return cached

    def _hint_for_in_flight_pod(self, pinfo: QueuedPodInfo) -> QueueingStrategy:
        """``determineSchedulingHintForInFlightPod``."""
        if not pinfo.unschedulable_plugins and not pinfo.pending_plugins:
            return QueueingStrategy.QUEUE_AFTER_BACKOFF
        events = self._active.events_for(pinfo.uid)
        if events is None:  # Kubernetes logs "in flight Pod isn't found in the scheduling queue"
            return QueueingStrategy.QUEUE_AFTER_BACKOFF
        strategy = QueueingStrategy.QUEUE_SKIP
        for recorded in events:
            match self._is_pod_worth_requeuing(pinfo, recorded.event, recorded.old, recorded.new):
                case QueueingStrategy.QUEUE_SKIP:
                    continue
                case QueueingStrategy.QUEUE_IMMEDIATELY:
                    return QueueingStrategy.QUEUE_IMMEDIATELY
                case QueueingStrategy.QUEUE_AFTER_BACKOFF:
                    strategy = QueueingStrategy.QUEUE_AFTER_BACKOFF
                    if not pinfo.pending_plugins:
                        return strategy
        return strategy

    # ========================================================================================
    # Adding, popping and handing back
    # ========================================================================================

    def add(self, pod: Pod) -> None:
        """``Add``: a new unscheduled pod, into activeQ (the informer's add of a pod this scheduler handles)."""
        with self._lock:
            self._add_pod(pod)

    def _pop_locked(self) -> QueuedPodInfo | None:
        # A closed queue still hands out what it holds: activeQueue.unlockedPop checks `closed` only when there is
        # nothing to pop (pkg/scheduler/backend/queue/active_queue.go, v1.35).
        while True:
            pinfo = self._active.pop_head()
            if pinfo is None and self.pop_from_backoff_q:
                pinfo = self._backoff.pop_backoff()  # even if still backing off (PopFromBackoffQ)
            if pinfo is None:
                return None
            pinfo.attempts += 1
            if self.queueing_hints_enabled and not self._active.move_to_in_flight(pinfo):
                continue  # "the same pod is tracked in multiple places in the scheduler, and just discard it"
            self._active.scheduling_cycle += 1
            pinfo.unschedulable_plugins.clear()
            pinfo.pending_plugins.clear()
            return pinfo

    def pop(self) -> QueuedPodInfo | None:
        """``Pop`` without blocking: the head of activeQ; when activeQ is empty and PopFromBackoffQ is on, the
        head of podBackoffQ even if it is still backing off (never a pod of podErrorBackoffQ). None when there is
        nothing to pop (a closed queue still hands out what it holds). Counts an attempt and a scheduling cycle, marks
        the pod in flight
        (QueueingHints on) and clears its rejector plugins for the new attempt.

        Clearing at Pop is the v1.35 code; v1.36 moved it into the failure handler (``ClearRejectorPlugins``), which
        then sets them again from the FitError. Either way the pod handed back carries exactly the plugins of its
        latest attempt, so the queue needs no version profile for it."""
        with self._lock:
            return self._pop_locked()

    def pop_blocking(self, timeout: float | None = None) -> QueuedPodInfo | None:
        """``Pop`` for threaded use: wait up to ``timeout`` seconds of real time (None: forever) for a pod.
        None on timeout or when the queue is closed."""
        deadline = None if timeout is None else time.monotonic() + timeout
        with self._cond:
            while True:
                remaining = None if deadline is None else max(0.0, deadline - time.monotonic())
                self._cond.wait_for(self._poppable, remaining)
                pinfo = self._pop_locked()
                if pinfo is not None or self._closed or (remaining is not None and remaining <= 0.0):
                    return pinfo

    def _poppable(self) -> bool:
        return self._closed or len(self._active) > 0 or (self.pop_from_backoff_q and self._backoff.len_backoff() > 0)

    def done(self, uid: str) -> None:
        """``Done``: the attempt that popped the pod is over; it is no longer in flight. Idempotent."""
        with self._lock:
            if self.queueing_hints_enabled:
                self._active.done(uid)

    def scheduling_cycle(self) -> int:
        """``SchedulingCycle``: how many pods were popped."""
        with self._lock:
            return self._active.scheduling_cycle

    def add_unschedulable_if_not_present(self, pinfo: QueuedPodInfo, pod_scheduling_cycle: int) -> QueueName:
        """``AddUnschedulableIfNotPresent``: hand back a pod whose attempt failed; returns where it went.

        The pod is counted as an error (no rejector plugin) or as unschedulable, stamped now, and its backoff
        recomputed. With QueueingHints, an event recorded while it was in flight that a rejector plugin's hint
        accepts sends it to backoffQ (still backing off) or activeQ; otherwise it waits in unschedulablePods. A pod
        without rejector plugins always goes to backoff. Without QueueingHints: backoffQ if a move request came in
        at or after ``pod_scheduling_cycle`` or there is no rejector plugin, else unschedulablePods. ``done`` is
        called in every case. Fails with ``QueueError`` if the pod is already in one of the sub-queues.
        """
        with self._lock:
            try:
                return self._add_unschedulable_locked(pinfo, pod_scheduling_cycle)
            finally:
                if self.queueing_hints_enabled:
                    self._active.done(pinfo.uid)

    def _add_unschedulable_locked(self, pinfo: QueuedPodInfo, pod_scheduling_cycle: int) -> QueueName:
        key, obj = pod_key(pinfo.pod), klog_kobj(pinfo.pod)
        if key in self._unschedulable:
            raise QueueError(f"Pod {obj} is already present in unschedulable queue")
        if key in self._active:
            raise QueueError(f"Pod {obj} is already present in the active queue")
        if key in self._backoff:
            raise QueueError(f"Pod {obj} is already present in the backoff queue")
        if not pinfo.unschedulable_plugins and not pinfo.pending_plugins:
            pinfo.consecutive_errors_count += 1
        else:
            pinfo.unschedulable_count += 1
            pinfo.consecutive_errors_count = 0
        pinfo.timestamp = self.clock.now()
        pinfo.backoff_expiration = None
        if not self.queueing_hints_enabled:
            if self._move_request_cycle >= pod_scheduling_cycle or not pinfo.rejector_plugins():
                return QueueName.BACKOFF if self._move_to_backoff(pinfo) else QueueName.UNSCHEDULABLE
            self._unschedulable[key] = pinfo
            return QueueName.UNSCHEDULABLE
        return self._requeue(pinfo, self._hint_for_in_flight_pod(pinfo))

    # ========================================================================================
    # Flushes (Run's loops; the driver calls them)
    # ========================================================================================

    def flush_backoff_q_completed(self) -> list[str]:
        """``flushBackoffQCompleted`` (every 1 s, aligned to the window): move every pod whose backoff is over
        from both backoff heaps to activeQ, podBackoffQ first. Returns the UIDs moved, in order."""
        moved: list[str] = []
        with self._lock:
            for pinfo in self._backoff.pop_all_completed():
                self._move_to_active(pinfo, from_backoff=True)
                moved.append(pinfo.uid)
        return moved

    def flush_unschedulable_pods_leftover(self) -> list[str]:
        """``flushUnschedulablePodsLeftover`` (every 30 s): pods in unschedulablePods for longer than
        ``pod_max_in_unschedulable_pods_duration`` since their last attempt move with the wildcard
        ``UnschedulableTimeout`` event, to backoffQ if still backing off, else activeQ. Returns the UIDs moved."""
        with self._lock:
            now = self.clock.now()
            stale = [
                p
                for p in self._unschedulable.values()
                if now - p.timestamp > self.pod_max_in_unschedulable_pods_duration
            ]
            if stale:
                return self._move_pods(stale, EVENT_UNSCHEDULABLE_TIMEOUT, None, None)
            return []

    flush_unschedulable_pods_left_over = flush_unschedulable_pods_leftover

    def next_backoff_completion(self) -> int | None:
        """The earliest clock time at which a flush would move a pod out of backoffQ (None: backoffQ empty). A
        simulator advances its clock to it instead of ticking every second."""
        with self._lock:
            return self._backoff.next_completion()

    # ========================================================================================
    # Cluster events
    # ========================================================================================

    def _move_pods(
        self, pinfos: list[QueuedPodInfo], event: ClusterEvent, old: object | None, new: object | None
    ) -> list[str]:
        """``movePodsToActiveOrBackoffQueue``; returns the UIDs that left unschedulablePods."""
        if not self._is_event_of_interest(event):
            return []
        moved: list[str] = []
        for pinfo in pinfos:
            strategy = self._is_pod_worth_requeuing(pinfo, event, old, new)
            if strategy is QueueingStrategy.QUEUE_SKIP:
                continue
            del self._unschedulable[pod_key(pinfo.pod)]
            self._requeue(pinfo, strategy)
            moved.append(pinfo.uid)
        self._request_move()
        if self.queueing_hints_enabled:
            self._active.add_event_if_any_in_flight(event, old, new)
        return moved

    def move_all_to_active_or_backoff_queue(
        self,
        event: ClusterEvent,
        old: object | None = None,
        new: object | None = None,
        pre_check: PreEnqueueCheck | None = None,
    ) -> list[str]:
        """``MoveAllToActiveOrBackoffQueue``: a cluster event happened. Unless no plugin registered for it (and it
        is not a wildcard), every unschedulable pod passing ``pre_check`` that a rejector plugin's hint accepts
        moves to backoffQ or activeQ; ``moveRequestCycle`` becomes the current cycle, and the event is recorded
        for the pods in flight. Returns the UIDs moved."""
        with self._lock:
            if not self._is_event_of_interest(event):
                return []
            candidates = [p for p in self._unschedulable.values() if pre_check is None or pre_check(p.pod)]
            return self._move_pods(candidates, event, old, new)

    def _cross_topology_candidates(self, pod: Pod) -> list[QueuedPodInfo]:
        """``getUnschedulablePodsWithCrossTopologyTerm``, coarsened: pods rejected by PodTopologySpread in the same
        namespace, and pods with required (anti-)affinity terms (the model keeps no label selectors to match)."""
        result = []
        for pinfo in self._unschedulable.values():
            p = pinfo.pod
            spread = "PodTopologySpread" in pinfo.unschedulable_plugins and p.namespace == pod.namespace
            affinity = p.pod_affinity is not None and p.pod_affinity.required > 0
            anti_affinity = p.pod_anti_affinity is not None and p.pod_anti_affinity.required > 0
            if spread or affinity or anti_affinity:
                result.append(pinfo)
        return result

    def assigned_pod_added(self, pod: Pod) -> list[str]:
        """``AssignedPodAdded`` (QueueingHints off): a bound pod appeared; moves pods with cross-topology terms."""
        with self._lock:
            return self._move_pods(self._cross_topology_candidates(pod), EVENT_ASSIGNED_POD_ADD, None, pod)

    def assigned_pod_updated(self, old: Pod, new: Pod, event: ClusterEvent) -> list[str]:
        """``AssignedPodUpdated`` (QueueingHints off): a scale-down moves every pod the event interests; other
        updates only pods with cross-topology terms."""
        with self._lock:
            scale_down = ClusterEvent(EventResource.POD, ActionType.UPDATE_POD_SCALE_DOWN)
            if match_cluster_events(scale_down, event):
                return self._move_pods(list(self._unschedulable.values()), event, old, new)
            return self._move_pods(self._cross_topology_candidates(new), event, old, new)

    def activate(self, pods: Iterable[Pod]) -> list[str]:
        """``Activate``: move the pods from unschedulablePods or backoffQ to activeQ. A pod that does not get there
        (in neither place, or gated by a PreEnqueue plugin) gets the wildcard ``ForceActivate`` event recorded if it
        is in flight, and ``moveRequestCycle`` is set, so it is retried when it comes back. Returns the UIDs
        activated."""
        activated: list[str] = []
        with self._lock:
            for pod in pods:
                pinfo = self._unschedulable.get(pod_key(pod))
                from_backoff = pinfo is None and self.activate_moves_from_backoff_q
                if pinfo is None:
                    pinfo = self._backoff.delete(pod_key(pod))
                if pinfo is not None and self._move_to_active(pinfo, from_backoff=from_backoff):
                    activated.append(pod.uid)
                    continue
                # Not activated (in neither place, or gated on the way): Kubernetes' Activate goes on here.
                if self.queueing_hints_enabled:
                    self._active.add_events_if_pod_in_flight(None, pod, [EVENT_FORCE_ACTIVATE])
                self._request_move()
        return activated

    def update(self, old: Pod | None, new: Pod) -> QueueName:
        """``Update``: an unscheduled pod changed; returns where it is afterwards.

        An in-flight pod only has the update recorded (QueueingHints on). A pod in activeQ or backoffQ is updated in
        place. A pod in unschedulablePods is updated and, per event of ``PodSchedulingPropertiesChange``, requeued
        if a rejector plugin's hint accepts it (QueueingHints on), or if it changed at all (off: to backoffQ while
        backing off, else activeQ). An unknown pod is added to activeQ. In flight goes by ``new``'s UID; activeQ and
        backoffQ are searched for ``old``'s namespace/name, unschedulablePods for ``new``'s: an entry of another UID
        found there takes ``new`` as its pod.
        """
        with self._lock:
            if old is None:
                target = self.target_pod_update_events
                resource = EventResource.TARGET_POD if target else EventResource.UNSCHEDULABLE_POD
                events = [ClusterEvent(resource, ActionType.UPDATE)]
            else:
                events = pod_scheduling_properties_change(
                    new, old, self.target_pod_update_events, self.pod_scale_up_event)
            if self.queueing_hints_enabled and self._active.add_events_if_pod_in_flight(old, new, events):
                return QueueName.IN_FLIGHT
            if old is not None:
                for name, sub_queue in ((QueueName.ACTIVE, self._active), (QueueName.BACKOFF, self._backoff)):
                    pinfo = sub_queue.get(pod_key(old))
                    if pinfo is not None and not self._update_refused(pinfo, new):
                        pinfo.pod = new
                        sub_queue.fix(pod_key(old))
                        self.nominator.update_nominated_pod(old, new)
                        return name
            pinfo = self._unschedulable.get(pod_key(new))
            if pinfo is not None and not self._update_refused(pinfo, new):
                pinfo.pod = new
                if old is not None:
                    self.nominator.update_nominated_pod(old, new)
                if self.queueing_hints_enabled:
                    where = QueueName.UNSCHEDULABLE
                    for event in events:
                        generic = event.action_type == ActionType.UPDATE
                        where = self._requeue(pinfo, self._is_pod_worth_requeuing(pinfo, event, old, new), generic)
                        if where is QueueName.ACTIVE or (self.pop_from_backoff_q and where is QueueName.BACKOFF):
                            break
                    return where
                if is_pod_updated(old, new):
                    if self._is_backing_off(pinfo):
                        return QueueName.BACKOFF if self._move_to_backoff(pinfo) else QueueName.UNSCHEDULABLE
                    moved = self._move_to_active(pinfo, nominate=True)
                    return QueueName.ACTIVE if moved else QueueName.UNSCHEDULABLE
                return QueueName.UNSCHEDULABLE
            return QueueName.ACTIVE if self._add_pod(new) else QueueName.UNSCHEDULABLE

    def _update_refused(self, pinfo: QueuedPodInfo, new: Pod) -> bool:
        """``PodInfo.Update``: v1.37's refuses a pod object of another UID than the entry's."""
        return self.update_requires_same_uid and pinfo.uid != new.uid

    def delete(self, pod: Pod) -> None:
        """``Delete``: remove the entry of the pod's namespace/name (of whichever UID) from whichever sub-queue holds
        it (the nomination goes by UID; in-flight tracking is left to ``done``)."""
        with self._lock:
            self.nominator.delete_nominated_pod_if_exists(pod)
            key = pod_key(pod)
            if self._active.delete(key) is not None:
                return
            if self._backoff.delete(key) is not None:
                return
            self._unschedulable.pop(key, None)

    def close(self) -> None:
        """``Close``: every in-flight pod is done (``activeQueue.close``: the in-flight events are dropped); pops
        that find nothing to pop return None from now on instead of waiting; blocked ``pop_blocking`` calls wake
        up. (Before, refimpl kept the in-flight pods and refused every pop after close; Kubernetes' ``Close`` and
        ``TestClose``, pkg/scheduler/backend/queue/active_queue.go, v1.35.)"""
        with self._lock:
            for pod in self._active.in_flight_pods():
                self._active.done(pod.uid)
            self._closed = True
            self._cond.notify_all()

    # ========================================================================================
    # Queries (for the scheduler, the simulator and tests)
    # ========================================================================================

    def where(self, uid: str) -> QueueName | None:
        """The sub-queue holding the pod, else ``IN_FLIGHT`` if it was popped and not done, else None."""
        with self._lock:
            return self._where_locked(uid)

    def _where_locked(self, uid: str) -> QueueName | None:
        for name, entries in (
            (QueueName.ACTIVE, self._active.entries()),
            (QueueName.BACKOFF, self._backoff.entries()),
            (QueueName.UNSCHEDULABLE, list(self._unschedulable.values())),
        ):
            if any(p.uid == uid for p in entries):
                return name
        if self._active.is_in_flight(uid):
            return QueueName.IN_FLIGHT
        return None

    def get(self, uid: str) -> QueuedPodInfo | None:
        """The queue entry of the pod of this UID in any sub-queue, or None (Kubernetes' ``GetPod`` takes a name and
        namespace instead)."""
        with self._lock:
            entries = [*self._active.entries(), *self._backoff.entries(), *self._unschedulable.values()]
            return next((p for p in entries if p.uid == uid), None)

    def pods_in_active_q(self) -> list[Pod]:
        """``PodsInActiveQ`` (heap order)."""
        with self._lock:
            return [p.pod for p in self._active.entries()]

    def pods_in_backoff_q(self) -> list[Pod]:
        """``PodsInBackoffQ``: podBackoffQ then podErrorBackoffQ (heap order)."""
        with self._lock:
            return [p.pod for p in self._backoff.entries()]

    def unschedulable_pods(self) -> list[Pod]:
        """``UnschedulablePods``."""
        with self._lock:
            return [p.pod for p in self._unschedulable.values()]

    def in_flight_pods(self) -> list[Pod]:
        """``InFlightPods`` (empty when QueueingHints are off: Kubernetes does not track them then)."""
        with self._lock:
            return self._active.in_flight_pods()

    def in_flight_event_count(self) -> int:
        """How many recorded events and pod markers ``inFlightEvents`` holds (it must not grow without bound)."""
        with self._lock:
            return self._active.in_flight_event_count()

    def pending_pods(self) -> tuple[list[Pod], str]:
        """``PendingPods``: every queued pod and the summary "activeQ:a; backoffQ:b; unschedulablePods:u"."""
        with self._lock:
            active = [p.pod for p in self._active.entries()]
            backing = [p.pod for p in self._backoff.entries()]
            unschedulable = [p.pod for p in self._unschedulable.values()]
        summary = f"activeQ:{len(active)}; backoffQ:{len(backing)}; unschedulablePods:{len(unschedulable)}"
        return active + backing + unschedulable, summary

    def counts(self) -> dict[QueueName, int]:
        """How many pods each place holds."""
        with self._lock:
            return {
                QueueName.ACTIVE: len(self._active),
                QueueName.BACKOFF: len(self._backoff),
                QueueName.UNSCHEDULABLE: len(self._unschedulable),
                QueueName.IN_FLIGHT: len(self._active.in_flight_pods()),
            }

    def __len__(self) -> int:
        """Pending pods: activeQ + backoffQ + unschedulablePods."""
        with self._lock:
            return len(self._active) + len(self._backoff) + len(self._unschedulable)

    def invariant_violations(self) -> list[str]:
        """Check the queue's own invariants under its lock; empty when they hold (O(n), for tests and per-step checks
        in a simulator). Every queued pod is in exactly one sub-queue; an unschedulable pod has a rejector plugin to
        wake it (a pod without one always backs off); the heaps and the in-flight log are sound."""
        with self._lock:
            problems = self._active.violations() + self._backoff.violations()
            active = {p.uid for p in self._active.entries()}
            backing = {p.uid for p in self._backoff.entries()}
            unschedulable = {p.uid for p in self._unschedulable.values()}
            for a, b, both in (
                ("activeQ", "backoffQ", active & backing),
                ("activeQ", "unschedulablePods", active & unschedulable),
                ("backoffQ", "unschedulablePods", backing & unschedulable),
            ):
                problems += [f"{uid} is in both {a} and {b}" for uid in sorted(both)]
            problems += [
                f"{pinfo.uid} waits in unschedulablePods without a rejector plugin"
                for pinfo in self._unschedulable.values()
                if not pinfo.rejector_plugins()
            ]
            return problems

    def sub_queues(self) -> dict[str, list[QueuedPodInfo]]:
        """The pod infos of ``active``, ``backoff`` (podBackoffQ), ``error_backoff`` (podErrorBackoffQ) and
        ``unschedulable``, for observers and tests (the lists are copies; the pod infos are the queue's own)."""
        with self._lock:
            backoff, errors = self._backoff.heaps()
            return {
                "active": self._active.entries(),
                "backoff": backoff,
                "error_backoff": errors,
                "unschedulable": list(self._unschedulable.values()),
            }

    def in_flight_entries(self) -> list[str | RecordedEvent]:
        """``listInFlightEvents``: the UID of each in-flight pod where it was popped, and the events recorded after
        the oldest of them, in order (empty when QueueingHints are off)."""
        with self._lock:
            return self._active.in_flight_entries()

    def move_request_cycle(self) -> int:
        """``moveRequestCycle``: the scheduling cycle of the last move request (-1: none yet)."""
        with self._lock:
            return self._move_request_cycle

    @property
    def closed(self) -> bool:
        """Whether :meth:`close` was called."""
        with self._lock:
            return self._closed

    # ========================================================================================
    # Optional background flushing (threaded use only)
    # ========================================================================================

    def start_flush_threads(self) -> FlushWorker:
        """``Run``: start the two flush loops on daemon threads, timed by the queue's clock. Stop them with the
        returned worker's ``stop()``."""
        worker = FlushWorker(self)
        worker.start()
        return worker


class FlushWorker:
    """The background loops of ``PriorityQueue.Run``: backoff flush every second (aligned to the window), leftover
    flush every 30 s."""

    def __init__(self, queue: SchedulingQueue) -> None:
        self.queue = queue
        self._stop = threading.Event()
        self._threads = [
            threading.Thread(target=self._backoff_loop, name="flush-backoff", daemon=True),
            threading.Thread(target=self._leftover_loop, name="flush-unschedulable", daemon=True),
        ]

    def start(self) -> None:
        """Start both threads."""
        for thread in self._threads:
            thread.start()

    def _backoff_loop(self) -> None:
        clock = self.queue.clock
        window = backoff.BACKOFF_Q_ORDERING_WINDOW
        now = clock.now()
        first = (backoff.align_to_window(now + window) - now) / 1e9
        if clock.wait(self._stop, first):
            return
        while not self._stop.is_set():
            self.queue.flush_backoff_q_completed()
            if clock.wait(self._stop, window / 1e9):
                return

    def _leftover_loop(self) -> None:
        clock = self.queue.clock
        while not self._stop.is_set():
            self.queue.flush_unschedulable_pods_leftover()
            if clock.wait(self._stop, backoff.UNSCHEDULABLE_FLUSH_PERIOD / 1e9):
                return

    def stop(self, timeout: float | None = 5.0) -> None:
        """Stop both loops and join them."""
        self._stop.set()
        self.queue.clock.wake()
        for thread in self._threads:
            thread.join(timeout)


__all__ = [
    "FlushWorker",
    "PreEnqueueCheck",
    "QueueError",
    "QueueName",
    "QueuedPodInfo",
    "QueueingStrategy",
    "SchedulingQueue",
    "priority_sort_less",
]
