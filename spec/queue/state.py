"""The scheduling queue's state and what can be read from it without changing it.

The state is ``PriorityQueue``'s (pkg/scheduler/backend/queue/scheduling_queue.go, active_queue.go,
backoff_queue.go, unschedulable_pods.go, v1.35): the three sub-queues of pending pods, the pods in
flight and the events recorded meanwhile, the scheduling-cycle counter and ``moveRequestCycle``,
and the clock it reads. The transitions are in :mod:`spec.queue.queue`; the invariants in
:mod:`spec.queue.invariants`.

Heap order among pods that compare equal (same priority and timestamp) is Go's heap's business;
the spec leaves it open: :func:`pop_candidates` are all the pods a ``Pop`` may return.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum

from spec.frozenmap import FrozenMap
from spec.objects import DEFAULT_SCHEDULER_NAME, Pod
from spec.quantities import Duration, Timestamp
from spec.queue.backoff import (
    DEFAULT_POD_INITIAL_BACKOFF,
    DEFAULT_POD_MAX_BACKOFF,
    DEFAULT_POD_MAX_IN_UNSCHEDULABLE_PODS_DURATION,
    UNSCHEDULABLE_FLUSH_PERIOD,
    backoff_count,
    backoff_expiration,
    is_backing_off,
)
from spec.queue.events import SCHEDULING_GATES, ClusterEvent, HintMap, default_hint_map, scheduling_gates_hints
from spec.queue.nominator import EMPTY_NOMINATOR, Nominator
from spec.versions import DEFAULT_PROFILE, VersionProfile

# ============================================================================================
# Names, errors
# ============================================================================================


class QueueName(StrEnum):
    """Where a pending pod is (Kubernetes' ``activeQ``, ``backoffQ``, ``unschedulableQ`` names)."""

    ACTIVE = "Active"
    BACKOFF = "Backoff"
    UNSCHEDULABLE = "Unschedulable"


class QueueErrorKind(StrEnum):
    """The errors ``AddUnschedulableIfNotPresent`` returns."""

    ALREADY_UNSCHEDULABLE = "PodAlreadyUnschedulable"
    """"Pod %v is already present in unschedulable queue"."""
    ALREADY_ACTIVE = "PodAlreadyActive"
    """"Pod %v is already present in the active queue"."""
    ALREADY_BACKING_OFF = "PodAlreadyBackingOff"
    """"Pod %v is already present in the backoff queue"."""


class QueueError(Exception):
    """A queue call returned an error. Unlike a cache error it changes state: ``queue_after`` is the
    queue after the call (``AddUnschedulableIfNotPresent`` calls ``Done`` in every case)."""

    def __init__(self, kind: QueueErrorKind, message: str, queue_after: SchedulingQueue) -> None:
        super().__init__(message)
        self.kind, self.message, self.queue_after = kind, message, queue_after


class QueueNotEnabled(Exception):
    """The call cannot happen now: ``Pop`` would block (nothing to pop, queue open), or a UID given
    to :func:`pop` is not one it may return."""


class QueueingStrategy(StrEnum):
    """``queueingStrategy``: where a pod an event may have made schedulable goes."""

    QUEUE_SKIP = "QueueSkip"
    QUEUE_AFTER_BACKOFF = "QueueAfterBackoff"
    QUEUE_IMMEDIATELY = "QueueImmediately"


# ============================================================================================
# State
# ============================================================================================


@dataclass(frozen=True)
class QueuedPod:
    """``framework.QueuedPodInfo``: a pod and its scheduling history."""

    pod: Pod
    timestamp: Timestamp
    """When the pod was added, or last handed back after a failed attempt."""
    initial_attempt_timestamp: Timestamp | None = None
    """When the pod first entered activeQ."""
    attempts: int = 0
    """How often it was popped."""
    unschedulable_count: int = 0
    """Failed attempts with a rejector plugin."""
    consecutive_errors_count: int = 0
    """Failed attempts in a row without one (errors)."""
    unschedulable_plugins: frozenset[str] = frozenset()
    pending_plugins: frozenset[str] = frozenset()
    gating_plugin: str = ""
    """``GatingPlugin``: the PreEnqueue plugin that last rejected the pod, "" once all passed
    (:mod:`spec.queue.gates`)."""

    @property
    def uid(self) -> str:
        return self.pod.uid

    @property
    def rejector_plugins(self) -> frozenset[str]:
        """``UnschedulablePlugins.Union(PendingPlugins)``: the plugins whose hints may wake the pod."""
        return self.unschedulable_plugins | self.pending_plugins


@dataclass(frozen=True)
class QueueConfig:
    """The queue's options (``NewPriorityQueue``'s) and feature gates, fixed at creation."""

    queueing_hints: bool = True
    """The SchedulerQueueingHints gate."""
    pop_from_backoff_q: bool = True
    """The SchedulerPopFromBackoffQ gate."""
    activate_moves_from_backoff_q: bool = True
    """``Activate`` skips the PreEnqueue plugins for a pod it takes from backoffQ (with ``pop_from_backoff_q``): the
    release's :attr:`spec.versions.VersionProfile.activate_moves_from_backoff_q`."""
    keeps_move_request_cycle: bool = True
    """The queue keeps ``moveRequestCycle`` (through v1.36): the release's
    :attr:`spec.versions.VersionProfile.queueing_hints_gate`."""
    target_pod_update_events: bool = False
    """``Update`` derives ``TargetPod`` events (v1.37): the release's
    :attr:`spec.versions.VersionProfile.target_pod_update_events`."""
    update_requires_same_uid: bool = False
    """``Update`` to an object of another UID adds it as a new pod instead of updating the entry (v1.37): the
    release's :attr:`spec.versions.VersionProfile.update_requires_same_uid`."""
    add_leaves_backoff_entry: bool = False
    """``Add`` of a pod a backoff heap holds leaves it there too (v1.37), so the spec refuses that ``Add``: the
    release's :attr:`spec.versions.VersionProfile.add_leaves_backoff_entry`."""
    empty_nomination_clears: bool = False
    """The nominator drops a nomination to ``""`` instead of storing it (v1.37): the release's
    :attr:`spec.versions.VersionProfile.empty_nomination_clears`."""
    gated_add_updates_unschedulable_entry: bool = False
    """A new gated pod info replaces the entry unschedulablePods holds (v1.36 on): the release's
    :attr:`spec.versions.VersionProfile.gated_add_updates_unschedulable_entry`."""
    add_pod_nominates: bool = False
    """``addPod`` records the pod's nomination, gated or not, and ``moveToActiveQ`` none (v1.37): the release's
    :attr:`spec.versions.VersionProfile.add_pod_nominates`."""
    pod_scale_up_event: bool = False
    """``Update`` names raised or added requests ``UpdatePodScaleUp`` (v1.37): the release's
    :attr:`spec.versions.VersionProfile.pod_scale_up_event`."""
    pod_initial_backoff: Duration = DEFAULT_POD_INITIAL_BACKOFF
    pod_max_backoff: Duration = DEFAULT_POD_MAX_BACKOFF
    pod_max_in_unschedulable_pods_duration: Duration = DEFAULT_POD_MAX_IN_UNSCHEDULABLE_PODS_DURATION
    hints: HintMap = field(default_factory=default_hint_map)
    """The ``QueueingHintMap`` of the profiles in ``scheduler_names``."""
    scheduler_names: frozenset[str] = frozenset({DEFAULT_SCHEDULER_NAME})
    """The profiles ``hints`` is registered for; a pod of another scheduler name has no hint map."""
    pre_enqueue_plugins: tuple[str, ...] = ()
    """The PreEnqueue plugins of the profiles, in order (``WithPreEnqueuePluginMap``; :mod:`spec.queue.gates`):
    none by default, as in Kubernetes' queue tests; ``("SchedulingGates",)`` in the default profile."""
    unschedulable_flush_period: Duration = UNSCHEDULABLE_FLUSH_PERIOD
    """How often ``Run`` flushes leftover unschedulable pods (30 s; a parameter so a small model can
    shrink it)."""

    @property
    def registered_hints(self) -> HintMap:
        """``queueingHintMap`` as the queue consults it for events (``isEventOfInterest``): the hints, unless no
        profile has them."""
        return self.hints if self.scheduler_names else ()

    def __hash__(self) -> int:  # hashed with every state a model checker stores: computed once (the config is frozen)
        cached: int | None = self.__dict__.get("_hash")
        if cached is None:
            cached = hash(tuple(getattr(self, name) for name in self.__dataclass_fields__))
            object.__setattr__(self, "_hash", cached)
        return cached


@dataclass(frozen=True)
class RecordedEvent:
    """``clusterEvent``: an event as the queue saw it; ``target`` is the UID of the pod that is the
    event's new object (an update of that pod, ``ForceActivate`` for it), else None."""

    event: ClusterEvent
    target: str | None = None


@dataclass(frozen=True)
class PodPopped:
    """A pod's marker in the in-flight list: the events after it happened during its attempt."""

    uid: str


InFlightEntry = PodPopped | RecordedEvent


@dataclass(frozen=True)
class SchedulingQueue:
    """``PriorityQueue``. The four sub-queue maps are keyed by the UID of the pod each entry holds, but hold a pod
    by its :func:`pod_key` (namespace/name), as Kubernetes' heaps and unschedulablePods do: every transition finds an
    entry with :func:`holder`, so a pod object of another UID with the same namespace and name finds, replaces or
    removes the entry. A key is in at most one entry of the four maps, except in v1.37 after an ``Update`` to another
UID of a pod in backoffQ (:attr:`spec.versions.VersionProfile.add_leaves_backoff_entry`). The in-flight
    pods and the nominator are keyed by UID, as Kubernetes' are (``inFlightPods``, ``nominatedPodToNode``)."""

    config: QueueConfig
    now: Timestamp = 0
    active_q: FrozenMap[str, QueuedPod] = field(default_factory=FrozenMap)
    backoff_q: FrozenMap[str, QueuedPod] = field(default_factory=FrozenMap)
    """``podBackoffQ``: every pod here has a rejector plugin."""
    error_backoff_q: FrozenMap[str, QueuedPod] = field(default_factory=FrozenMap)
    """``podErrorBackoffQ``: pods whose last attempt failed with an error (no rejector plugin)."""
    unschedulable_pods: FrozenMap[str, QueuedPod] = field(default_factory=FrozenMap)
    in_flight_pods: FrozenMap[str, Pod] = field(default_factory=FrozenMap)
    """``inFlightPods``: popped, ``Done`` not yet called (QueueingHints on only), with the pod as popped."""
    in_flight_events: tuple[InFlightEntry, ...] = ()
    """``inFlightEvents``: markers of in-flight pods and the events recorded after the first of them."""
    scheduling_cycle: int = 0
    """``schedCycle``: incremented by every pop."""
    move_request_cycle: int = -1
    """``moveRequestCycle``: the scheduling cycle at the last move request (QueueingHints off reads it); -1 where
    the release keeps none (:attr:`QueueConfig.keeps_move_request_cycle`)."""
    closed: bool = False
    nominator: Nominator = EMPTY_NOMINATOR
    """The pods nominated to nodes (:mod:`spec.queue.nominator`), which the queue owns."""


def pod_key(pod: Pod) -> str:
    """The key a sub-queue holds ``pod`` under: ``namespace/name``. A pod with an empty name (the API server admits
    none; the spec's own tests make them) is keyed as if its UID were its name.

    Kubernetes: `podInfoKeyFunc` (pkg/scheduler/backend/queue/scheduling_queue.go): activeQ's and backoffQ's key
    Kubernetes: `GetPodFullName` (pkg/scheduler/util/utils.go): unschedulablePods' key, ``name_namespace``
    """
    return f"{pod.namespace}/{pod.name or pod.uid}"


def holder(pods: FrozenMap[str, QueuedPod], pod: Pod) -> str | None:
    """The UID of the entry of ``pods`` (a sub-queue map) that holds ``pod``'s :func:`pod_key`, or None: the pod
    Kubernetes' ``Get``, ``Has``, ``Delete`` and ``AddOrUpdate`` find for ``pod``, whatever its UID."""
    if pod.uid in pods and pod_key(pods[pod.uid].pod) == pod_key(pod):
        return pod.uid
    key = pod_key(pod)
    return next((uid for uid, entry in pods.items() if pod_key(entry.pod) == key), None)


def new_scheduling_queue(
    profile: VersionProfile = DEFAULT_PROFILE,
    *,
    queueing_hints: bool | None = None,
    pop_from_backoff_q: bool | None = None,
    pod_initial_backoff: Duration = DEFAULT_POD_INITIAL_BACKOFF,
    pod_max_backoff: Duration = DEFAULT_POD_MAX_BACKOFF,
    pod_max_in_unschedulable_pods_duration: Duration = DEFAULT_POD_MAX_IN_UNSCHEDULABLE_PODS_DURATION,
    hints: HintMap | None = None,
    scheduler_names: frozenset[str] = frozenset({DEFAULT_SCHEDULER_NAME}),
    unschedulable_flush_period: Duration = UNSCHEDULABLE_FLUSH_PERIOD,
    now: Timestamp = 0,
    pre_enqueue_plugins: tuple[str, ...] = (),
    activate_moves_from_backoff_q: bool | None = None,
    keeps_move_request_cycle: bool | None = None,
    target_pod_update_events: bool | None = None,
    update_requires_same_uid: bool | None = None,
    empty_nomination_clears: bool | None = None,
    add_leaves_backoff_entry: bool | None = None,
    gated_add_updates_unschedulable_entry: bool | None = None,
    add_pod_nominates: bool | None = None,
    pod_scale_up_event: bool | None = None,
) -> SchedulingQueue:
    """An empty queue. The gates (and the release's behaviours ``activate_moves_from_backoff_q``,
    ``keeps_move_request_cycle``, ``target_pod_update_events``, ``update_requires_same_uid``,
    ``empty_nomination_clears``, ``add_leaves_backoff_entry``, ``gated_add_updates_unschedulable_entry``,
    ``add_pod_nominates`` and ``pod_scale_up_event``) default to
    ``profile``'s; ``hints`` to the
    default plugins' map for the QueueingHints setting, registered for the profiles ``scheduler_names`` (none: no
    profile has a hint map, as in Kubernetes' tests that set none); ``pre_enqueue_plugins`` are the
    PreEnqueue plugins (:mod:`spec.queue.gates`; SchedulingGates' registrations,
    :func:`spec.queue.events.scheduling_gates_hints`, join the default map). Fails with
    ``ValueError`` on a negative duration or time, a flush period that is not positive, an unknown PreEnqueue
    plugin, or QueueingHints off in a release without the gate (one that keeps no ``moveRequestCycle``: v1.37).

    Kubernetes: `NewPriorityQueue` (pkg/scheduler/backend/queue/scheduling_queue.go)
    """
    for name, value in (
        ("pod_initial_backoff", pod_initial_backoff),
        ("pod_max_backoff", pod_max_backoff),
        ("pod_max_in_unschedulable_pods_duration", pod_max_in_unschedulable_pods_duration),
        ("now", now),
    ):
        if value < 0:
            raise ValueError(f"{name} must not be negative, got {value} ns")
    if unschedulable_flush_period <= 0:
        raise ValueError(f"unschedulable_flush_period must be positive, got {unschedulable_flush_period} ns")
    unknown = sorted(set(pre_enqueue_plugins) - {SCHEDULING_GATES})
    if unknown:
        raise ValueError(f"unknown PreEnqueue plugin(s) {unknown}; the spec models {SCHEDULING_GATES!r}")
    gate = profile.queueing_hints if queueing_hints is None else queueing_hints
    keeps_cycle = profile.queueing_hints_gate if keeps_move_request_cycle is None else keeps_move_request_cycle
    target_pod = profile.target_pod_update_events if target_pod_update_events is None else target_pod_update_events
    if not gate and not keeps_cycle:
        raise ValueError("the release has no SchedulerQueueingHints gate (v1.37 removed it with moveRequestCycle): "
                         "its queue always runs the queueing hints")
    config = QueueConfig(
        queueing_hints=gate,
        pop_from_backoff_q=profile.pop_from_backoff_q if pop_from_backoff_q is None else pop_from_backoff_q,
        pod_initial_backoff=pod_initial_backoff,
        pod_max_backoff=pod_max_backoff,
        pod_max_in_unschedulable_pods_duration=pod_max_in_unschedulable_pods_duration,
        hints=_default_hints(gate, pre_enqueue_plugins, target_pod) if hints is None else hints,
        scheduler_names=scheduler_names,
        unschedulable_flush_period=unschedulable_flush_period,
        pre_enqueue_plugins=pre_enqueue_plugins,
        activate_moves_from_backoff_q=(profile.activate_moves_from_backoff_q if activate_moves_from_backoff_q is None
                                       else activate_moves_from_backoff_q),
        keeps_move_request_cycle=keeps_cycle,
        target_pod_update_events=target_pod,
        update_requires_same_uid=(profile.update_requires_same_uid if update_requires_same_uid is None
                                  else update_requires_same_uid),
        empty_nomination_clears=(profile.empty_nomination_clears if empty_nomination_clears is None
                                 else empty_nomination_clears),
        add_leaves_backoff_entry=(profile.add_leaves_backoff_entry if add_leaves_backoff_entry is None
                                  else add_leaves_backoff_entry),
        gated_add_updates_unschedulable_entry=(
            profile.gated_add_updates_unschedulable_entry if gated_add_updates_unschedulable_entry is None
            else gated_add_updates_unschedulable_entry),
        add_pod_nominates=profile.add_pod_nominates if add_pod_nominates is None else add_pod_nominates,
        pod_scale_up_event=profile.pod_scale_up_event if pod_scale_up_event is None else pod_scale_up_event,
    )
    return SchedulingQueue(config, now=now)


def _default_hints(queueing_hints: bool, pre_enqueue_plugins: tuple[str, ...], target_pod: bool) -> HintMap:
    """The default plugins' hint map, with SchedulingGates' registrations when it is a PreEnqueue plugin
    (:func:`spec.queue.events.scheduling_gates_hints`: none with QueueingHints off through v1.36)."""
    hints = default_hint_map(queueing_hints)
    if SCHEDULING_GATES in pre_enqueue_plugins:
        hints = (*hints, *scheduling_gates_hints(queueing_hints, target_pod))
    return hints


# ============================================================================================
# Queries
# ============================================================================================


def backoff_time(queue: SchedulingQueue, pinfo: QueuedPod) -> Timestamp | None:
    """When ``pinfo``'s backoff ends (None: it has none). Kubernetes caches it in the pod info and
    resets the cache whenever the count or timestamp changes, so the cache is never observable.

    Kubernetes: `backoffQueue.getBackoffTime` (pkg/scheduler/backend/queue/backoff_queue.go)
    """
    c = queue.config
    count = backoff_count(pinfo.unschedulable_count, pinfo.consecutive_errors_count)
    return backoff_expiration(pinfo.timestamp, count, c.pod_initial_backoff, c.pod_max_backoff, c.pop_from_backoff_q)


def is_pod_backing_off(queue: SchedulingQueue, pinfo: QueuedPod) -> bool:
    """Whether ``pinfo`` must still wait at ``queue.now``.

    Kubernetes: `backoffQueue.isPodBackingoff` (pkg/scheduler/backend/queue/backoff_queue.go)
    """
    return is_backing_off(backoff_time(queue, pinfo), queue.now, queue.config.pop_from_backoff_q)


def queue_sort_key(pinfo: QueuedPod) -> tuple[int, Timestamp]:
    """``PrioritySort.Less`` as a key: higher priority first, then the earlier timestamp.

    Kubernetes: `PrioritySort.Less` (pkg/scheduler/framework/plugins/queuesort/priority_sort.go)
    """
    return (-pinfo.pod.priority, pinfo.timestamp)


def backoff_sort_key(queue: SchedulingQueue, pinfo: QueuedPod, error_queue: bool = False) -> tuple[int, ...]:
    """The backoff heaps' order: expiry (no backoff first); with PopFromBackoffQ, podBackoffQ breaks
    ties within a window by the QueueSort.

    Kubernetes: `backoffQueue.lessBackoffCompletedWithPriority` (pkg/scheduler/backend/queue/backoff_queue.go)
    """
    expiry = backoff_time(queue, pinfo)
    key = (-1 if expiry is None else expiry,)
    if queue.config.pop_from_backoff_q and not error_queue:
        return key + queue_sort_key(pinfo)
    return key


def active_q_order(queue: SchedulingQueue) -> tuple[str, ...]:
    """The UIDs in activeQ in QueueSort order; pods that compare equal appear in UID order."""
    return tuple(sorted(queue.active_q, key=lambda uid: (queue_sort_key(queue.active_q[uid]), uid)))


def backoff_q_order(queue: SchedulingQueue, error_queue: bool = False) -> tuple[str, ...]:
    """The UIDs in podBackoffQ (or podErrorBackoffQ) in heap order; equal pods in UID order."""
    pods = queue.error_backoff_q if error_queue else queue.backoff_q
    return tuple(sorted(pods, key=lambda uid: (backoff_sort_key(queue, pods[uid], error_queue), uid)))


def _heads(pods: FrozenMap[str, QueuedPod], key: object) -> tuple[str, ...]:
    keys = {uid: key(p) for uid, p in pods.items()}  # type: ignore[operator]
    if not keys:
        return ()
    best = min(keys.values())
    return tuple(sorted(uid for uid, k in keys.items() if k == best))


def pop_candidates(queue: SchedulingQueue) -> tuple[str, ...]:
    """The pods the next ``Pop`` may return: the heads of activeQ, or, when activeQ is empty and
    PopFromBackoffQ is on, the heads of podBackoffQ (backing off or not; never podErrorBackoffQ).
    Several when they compare equal: which one Kubernetes takes depends on its heap's history.

    Kubernetes: `activeQueue.unlockedPop` (pkg/scheduler/backend/queue/active_queue.go)
    """
    if queue.active_q:
        return _heads(queue.active_q, queue_sort_key)
    if queue.config.pop_from_backoff_q:
        return _heads(queue.backoff_q, lambda p: backoff_sort_key(queue, p))
    return ()


def can_pop(queue: SchedulingQueue) -> bool:
    """Whether ``Pop`` returns now rather than blocking: a pod can be popped, or the queue is closed."""
    return bool(pop_candidates(queue)) or queue.closed


def where(queue: SchedulingQueue, uid: str) -> QueueName | None:
    """The sub-queue holding ``uid`` (activeQ first, as ``GetPod`` finds it), or None."""
    for name, pods in (
        (QueueName.ACTIVE, queue.active_q),
        (QueueName.BACKOFF, queue.backoff_q),
        (QueueName.BACKOFF, queue.error_backoff_q),
        (QueueName.UNSCHEDULABLE, queue.unschedulable_pods),
    ):
        if uid in pods:
            return name
    return None


def get_pod(queue: SchedulingQueue, uid: str) -> QueuedPod | None:
    """``GetPod`` (by UID): the pod's entry in a sub-queue, or None.

    Kubernetes: `PriorityQueue.GetPod` (pkg/scheduler/backend/queue/scheduling_queue.go)
    """
    for pods in (queue.active_q, queue.backoff_q, queue.error_backoff_q, queue.unschedulable_pods):
        if uid in pods:
            return pods[uid]
    return None


def pending_counts(queue: SchedulingQueue) -> dict[str, int]:
    """``PendingPods``' summary: how many pods activeQ, backoffQ and unschedulablePods hold.

    Kubernetes: `PriorityQueue.PendingPods` (pkg/scheduler/backend/queue/scheduling_queue.go)
    """
    backoff = len(queue.backoff_q) + len(queue.error_backoff_q)
    return {"activeQ": len(queue.active_q), "backoffQ": backoff, "unschedulablePods": len(queue.unschedulable_pods)}


def events_for_pod(queue: SchedulingQueue, uid: str) -> tuple[RecordedEvent, ...] | None:
    """The events recorded since ``uid`` was popped; None if it is not in flight.

    Kubernetes: `activeQueue.clusterEventsForPod` (pkg/scheduler/backend/queue/active_queue.go)
    """
    entries = queue.in_flight_events
    for index, entry in enumerate(entries):
        if entry == PodPopped(uid):
            return tuple(e for e in entries[index + 1 :] if isinstance(e, RecordedEvent))
    return None
