"""The scheduling queue: activeQ, backoffQ, unschedulablePods, and the pods in flight.

This is ``PriorityQueue`` (pkg/scheduler/backend/queue/scheduling_queue.go, active_queue.go,
backoff_queue.go and unschedulable_pods.go, v1.35; digest ``k8s-dispatcher-cycle.md`` §F). Every
pod waiting to be scheduled is in one of three places:

- **activeQ**, ordered by the default QueueSort (``PrioritySort``: higher priority first, then
  earlier timestamp); ``Pop`` takes its head;
- **backoffQ**, two heaps ordered by backoff expiry: ``podBackoffQ`` for pods plugins rejected and
  ``podErrorBackoffQ`` for pods whose attempt failed with an error; the backoff flush moves pods
  whose backoff is over to activeQ, and with SchedulerPopFromBackoffQ an idle ``Pop`` may take
  the head of podBackoffQ early;
- **unschedulablePods**, pods waiting for a cluster event that their rejector plugins' queueing
  hints say may make them schedulable, or for the leftover flush after 5 minutes.

A popped pod is *in flight* until ``Done``. With QueueingHints on, the queue records the cluster
events that happen meanwhile (``inFlightEvents``, a list of pod markers and events in arrival
order), so that when the attempt fails :func:`add_unschedulable_if_not_present` can tell whether one
of them may already have made the pod schedulable. With QueueingHints off it falls back to the
``moveRequestCycle`` rule: a pod whose attempt started at or before the last move request goes to
backoffQ.

The queue reads a clock (``now``): :func:`step_clock` moves it as a test's fake clock does;
:func:`run_for` lets time pass with ``Run``'s two loops flushing on their schedules.

The state and its queries are in :mod:`spec.queue.state`; heap order among pods that compare equal
is left open there (:func:`~spec.queue.state.pop_candidates`). The sub-queues hold a pod by its namespace/name, as
Kubernetes' do (:func:`~spec.queue.state.pod_key`, :func:`~spec.queue.state.holder`): ``Add`` of a pod whose
namespace/name is queued under another UID replaces that entry, ``Update`` finds the entry by the old object's
namespace/name and ``Delete`` removes the one its namespace/name names, and a hand-back is refused while another UID
of its namespace/name waits in a sub-queue. The pods in flight and the nominator go by UID, as Kubernetes' do.
PreEnqueue plugins and
scheduling gates are in :mod:`spec.queue.gates`, the nominator in :mod:`spec.queue.nominator`. Not
modelled: metrics, and the opaque hint functions of
the default plugins (:mod:`spec.queue.events`). v1.36 moved the clearing of a popped pod's
rejector plugins from ``Pop`` to the failure handler, which sets them afresh before handing the pod
back; the queue sees the same pod either way, so no profile is needed for it.
"""

from __future__ import annotations

from typing import Final

from spec.dispatcher.api_calls import NominatingInfo
from spec.frozenmap import FrozenMap
from spec.objects import Pod, klog_kobj
from spec.quantities import Duration
from spec.queue.backoff import BACKOFF_Q_ORDERING_WINDOW
from spec.queue.events import (
    EVENT_FORCE_ACTIVATE,
    EVENT_UNSCHEDULABLE_TIMEOUT,
    ActionType,
    ClusterEvent,
    QueueingHint,
    is_event_of_interest,
    is_wildcard,
    matching_hints,
    pod_scheduling_properties_change,
)
from spec.queue.gates import is_gated, run_pre_enqueue_plugins
from spec.queue.nominator import (
    add_nominated_pod,
    delete_nominated_pod_if_exists,
    nominated_pods_for_node,
    update_nominated_pod,
)
from spec.queue.state import (
    PodPopped,
    QueueConfig,
    QueuedPod,
    QueueError,
    QueueErrorKind,
    QueueingStrategy,
    QueueName,
    QueueNotEnabled,
    RecordedEvent,
    SchedulingQueue,
    events_for_pod,
    holder,
    is_pod_backing_off,
    pod_key,
    pop_candidates,
    where,
)
from spec.valuetypes import replace

# ============================================================================================
# Queueing hints: where an event sends a pod
# ============================================================================================


def is_pod_worth_requeuing(config: QueueConfig, pinfo: QueuedPod, recorded: RecordedEvent) -> QueueingStrategy:
    """Ask the hints of the plugins that rejected ``pinfo`` about an event.

    No rejector plugin: back off (the pod failed with an error). A wildcard event: back off, unless
    it names another pod. A pod of a profile without a hint map: back off. Otherwise a ``Queue`` from
    a Pending plugin requeues at once, one from an unschedulable plugin after backoff, and none skips.

    Kubernetes: `PriorityQueue.isPodWorthRequeuing` (pkg/scheduler/backend/queue/scheduling_queue.go)
    """
    rejectors = pinfo.rejector_plugins
    if not rejectors:
        return QueueingStrategy.QUEUE_AFTER_BACKOFF
    if is_wildcard(recorded.event):
        if recorded.target is not None and recorded.target != pinfo.uid:
            return QueueingStrategy.QUEUE_SKIP
        return QueueingStrategy.QUEUE_AFTER_BACKOFF
    if pinfo.pod.scheduler_name not in config.scheduler_names:
        return QueueingStrategy.QUEUE_AFTER_BACKOFF
    strategy = QueueingStrategy.QUEUE_SKIP
    for function in matching_hints(config.hints, recorded.event):
        if function.plugin not in rejectors or function.answer(pinfo.uid, recorded.target) is QueueingHint.QUEUE_SKIP:
            continue
        if function.plugin in pinfo.pending_plugins:
            return QueueingStrategy.QUEUE_IMMEDIATELY
        strategy = QueueingStrategy.QUEUE_AFTER_BACKOFF
    return strategy


def scheduling_hint_for_in_flight_pod(queue: SchedulingQueue, pinfo: QueuedPod) -> QueueingStrategy:
    """The strongest strategy any event recorded during ``pinfo``'s attempt gives it (immediately
    over after-backoff over skip). No rejector plugin, or a pod not in flight: back off.

    Kubernetes: `PriorityQueue.determineSchedulingHintForInFlightPod` (pkg/scheduler/backend/queue/scheduling_queue.go)
    """
    if not pinfo.rejector_plugins:
        return QueueingStrategy.QUEUE_AFTER_BACKOFF
    events = events_for_pod(queue, pinfo.uid)
    if events is None:  # Kubernetes logs "in flight Pod isn't found in the scheduling queue"
        return QueueingStrategy.QUEUE_AFTER_BACKOFF
    strategies = {is_pod_worth_requeuing(queue.config, pinfo, e) for e in events}
    for strongest in (QueueingStrategy.QUEUE_IMMEDIATELY, QueueingStrategy.QUEUE_AFTER_BACKOFF):
        if strongest in strategies:
            return strongest
    return QueueingStrategy.QUEUE_SKIP


# ============================================================================================
# Moving pods between sub-queues
# ============================================================================================


def _remove_key(pods: FrozenMap[str, QueuedPod], pod: Pod) -> FrozenMap[str, QueuedPod]:
    """``Delete``: ``pods`` without the entry holding ``pod``'s namespace/name (whatever its UID)."""
    uid = holder(pods, pod)
    return pods if uid is None else pods.remove(uid)


def _put(pods: FrozenMap[str, QueuedPod], pinfo: QueuedPod) -> FrozenMap[str, QueuedPod]:
    """``AddOrUpdate``: ``pinfo`` replaces the entry holding its pod's namespace/name, if any."""
    return _remove_key(pods, pinfo.pod).set(pinfo.uid, pinfo)


def _entry(pods: FrozenMap[str, QueuedPod], pod: Pod) -> QueuedPod | None:
    """``Get``: the entry of ``pods`` holding ``pod``'s namespace/name, or None."""
    uid = holder(pods, pod)
    return None if uid is None else pods[uid]


def _without(queue: SchedulingQueue, pod: Pod, keep_backoff: bool = False) -> SchedulingQueue:
    """``queue`` with ``pod``'s namespace/name out of unschedulablePods and (unless ``keep_backoff``) both backoff
    heaps."""
    if keep_backoff:
        return replace(queue, unschedulable_pods=_remove_key(queue.unschedulable_pods, pod))
    return replace(
        queue,
        unschedulable_pods=_remove_key(queue.unschedulable_pods, pod),
        backoff_q=_remove_key(queue.backoff_q, pod),
        error_backoff_q=_remove_key(queue.error_backoff_q, pod),
    )


def _park_gated(queue: SchedulingQueue, pinfo: QueuedPod, fresh: bool) -> SchedulingQueue:
    """A gated pod: into unschedulablePods, unless activeQ or a backoff heap holds its namespace/name (v1.37 does not
    look: :attr:`spec.versions.VersionProfile.add_leaves_backoff_entry`). A pod info the caller took from
    unschedulablePods (``fresh`` False) replaces the entry there, as Kubernetes updates that same pod info in place;
    a new one (``Add``, an update of a pod in no sub-queue) leaves the entry as it was through v1.35, and replaces it
    from v1.36 (:attr:`spec.versions.VersionProfile.gated_add_updates_unschedulable_entry`).

    Kubernetes: `PriorityQueue.moveToActiveQ` (pkg/scheduler/backend/queue/scheduling_queue.go)
    """
    pod, c = pinfo.pod, queue.config
    held = (queue.active_q, queue.backoff_q, queue.error_backoff_q)
    if not c.add_leaves_backoff_entry and any(holder(pods, pod) is not None for pods in held):
        return queue
    if fresh and not c.gated_add_updates_unschedulable_entry and holder(queue.unschedulable_pods, pod) is not None:
        return queue
    return replace(queue, unschedulable_pods=_put(queue.unschedulable_pods, pinfo))


def _move_to_active_q(
    queue: SchedulingQueue, pinfo: QueuedPod, from_backoff: bool = False, fresh: bool = False, nominate: bool = False
) -> SchedulingQueue:
    """``moveToActiveQ``: run the PreEnqueue plugins (:mod:`spec.queue.gates`; skipped for a pod coming straight
    from backoffQ with PopFromBackoffQ, which ran them on the way in); a gated pod waits in unschedulablePods
    (:func:`_park_gated`; ``fresh``: ``pinfo`` is ``addPod``'s new pod info). Otherwise stamp the first attempt, take
    the pod out of unschedulablePods and backoffQ (v1.37's ``addPod`` leaves backoffQ as it is:
    :attr:`spec.versions.VersionProfile.add_leaves_backoff_entry`), add or update it in activeQ, and (``nominate``:
    for the unscheduled-pod Add and Update events, through v1.36:
    :attr:`spec.versions.VersionProfile.add_pod_nominates`) record the nominated node the pod object names.

    Kubernetes: `PriorityQueue.moveToActiveQ` (pkg/scheduler/backend/queue/scheduling_queue.go)
    """
    c = queue.config
    if not (from_backoff and c.pop_from_backoff_q):
        pinfo = run_pre_enqueue_plugins(c, pinfo)
    if is_gated(pinfo):
        return _park_gated(queue, pinfo, fresh)
    if pinfo.initial_attempt_timestamp is None:
        pinfo = replace(pinfo, initial_attempt_timestamp=queue.now)
    queue = _without(queue, pinfo.pod, keep_backoff=fresh and c.add_leaves_backoff_entry)
    queue = replace(queue, active_q=_put(queue.active_q, pinfo))
    if nominate and not c.add_pod_nominates:
        queue = replace(queue, nominator=add_nominated_pod(queue.nominator, pinfo.pod, None, pinfo.pod,
                                                           c.empty_nomination_clears))
    return queue


def _add_pod(queue: SchedulingQueue, pod: Pod) -> SchedulingQueue:
    """``addPod``: a fresh pod info stamped now, moved to activeQ with the ``UnscheduledPodAdd`` event. v1.37 records
    the nominated node the pod object names first, whether or not the pod is gated
    (:attr:`spec.versions.VersionProfile.add_pod_nominates`); earlier releases in ``moveToActiveQ``, once the pod
    entered activeQ.

    Kubernetes: `PriorityQueue.addPod` (pkg/scheduler/backend/queue/scheduling_queue.go)
    """
    if queue.config.add_pod_nominates:
        queue = replace(queue, nominator=add_nominated_pod(queue.nominator, pod, None, pod,
                                                           queue.config.empty_nomination_clears))
    return _move_to_active_q(queue, QueuedPod(pod, queue.now), fresh=True, nominate=True)


def _move_to_backoff_q(queue: SchedulingQueue, pinfo: QueuedPod) -> SchedulingQueue:
    """``moveToBackoffQ``: with PopFromBackoffQ, run the PreEnqueue plugins first (a gated pod waits in
    unschedulablePods, added there if it is not already); then out of unschedulablePods, into podErrorBackoffQ
    when the pod has no rejector plugin, else podBackoffQ (and out of the other heap).

    Kubernetes: `PriorityQueue.moveToBackoffQ` (pkg/scheduler/backend/queue/scheduling_queue.go)
    Kubernetes: `backoffQueue.add` (pkg/scheduler/backend/queue/backoff_queue.go)
    """
    uid, pod = pinfo.uid, pinfo.pod
    if queue.config.pop_from_backoff_q:
        pinfo = run_pre_enqueue_plugins(queue.config, pinfo)
        if is_gated(pinfo):  # the pod info is the one in unschedulablePods if any: updated there
            return replace(queue, unschedulable_pods=_put(queue.unschedulable_pods, pinfo))
    queue = replace(queue, unschedulable_pods=_remove_key(queue.unschedulable_pods, pod))
    backoff, errors = _remove_key(queue.backoff_q, pod), _remove_key(queue.error_backoff_q, pod)
    if pinfo.rejector_plugins:
        return replace(queue, backoff_q=backoff.set(uid, pinfo), error_backoff_q=errors)
    return replace(queue, backoff_q=backoff, error_backoff_q=errors.set(uid, pinfo))


def _requeue(
    queue: SchedulingQueue, pinfo: QueuedPod, strategy: QueueingStrategy, nominate: bool = False
) -> tuple[SchedulingQueue, QueueName]:
    """Skip: (stay) in unschedulablePods. After backoff while backing off: backoffQ. Else activeQ. A pod that
    PreEnqueue gates on the way stays in unschedulablePods.

    Kubernetes: `PriorityQueue.requeuePodWithQueueingStrategy` (pkg/scheduler/backend/queue/scheduling_queue.go)
    """
    if strategy is QueueingStrategy.QUEUE_SKIP:
        unschedulable = _put(queue.unschedulable_pods, pinfo)
        return replace(queue, unschedulable_pods=unschedulable), QueueName.UNSCHEDULABLE
    if strategy is QueueingStrategy.QUEUE_AFTER_BACKOFF and is_pod_backing_off(queue, pinfo):
        queue = _move_to_backoff_q(queue, pinfo)
    else:
        queue = _move_to_active_q(queue, pinfo, nominate=nominate)
    went = where(queue, pinfo.uid)
    assert went is not None, "a requeued pod is in some sub-queue"
    return queue, went


def _request_move(queue: SchedulingQueue) -> SchedulingQueue:
    """A move request: ``moveRequestCycle`` becomes the current cycle, where the release keeps it (through v1.36;
    :attr:`spec.queue.state.QueueConfig.keeps_move_request_cycle`)."""
    if not queue.config.keeps_move_request_cycle:
        return queue
    return replace(queue, move_request_cycle=queue.scheduling_cycle)


def _record_event_if_any_in_flight(queue: SchedulingQueue, recorded: RecordedEvent) -> SchedulingQueue:
    """``addEventIfAnyInFlight``."""
    if not queue.in_flight_pods:
        return queue
    return replace(queue, in_flight_events=(*queue.in_flight_events, recorded))


# ============================================================================================
# Adding, popping, handing back
# ============================================================================================


def add(queue: SchedulingQueue, pod: Pod) -> SchedulingQueue:
    """A new unscheduled pod: a fresh pod info stamped now, into activeQ, replacing any entry of its namespace/name
    (of whichever UID) in activeQ, backoffQ or unschedulablePods (:func:`_add_pod`; a gated pod into
    unschedulablePods, where through v1.35 an entry already there is kept: :func:`_park_gated`). Fails with
    :class:`QueueNotEnabled` where the release would leave the pod in two sub-queues
    (:attr:`spec.versions.VersionProfile.add_leaves_backoff_entry`, v1.37): a backoff heap holds its namespace/name,
    or a PreEnqueue plugin gates it while activeQ holds it.

    Kubernetes: `PriorityQueue.Add`, `addPod`, `moveToActiveQ` (pkg/scheduler/backend/queue/scheduling_queue.go)
    """
    if queue.config.add_leaves_backoff_entry:
        gated = is_gated(run_pre_enqueue_plugins(queue.config, QueuedPod(pod, queue.now)))
        for held in (queue.backoff_q, queue.error_backoff_q, *((queue.active_q,) if gated else ())):
            if holder(held, pod) is not None:
                raise QueueNotEnabled(f"Add of pod {pod.uid}, which a sub-queue holds: this release's moveToActiveQ "
                                      "leaves it there too, a state the spec does not state")
    return _add_pod(queue, pod)


def pop_head(queue: SchedulingQueue, uid: str) -> tuple[SchedulingQueue, QueuedPod | None]:
    """One turn of ``Pop``'s loop: take the head ``uid`` (one of :func:`pop_candidates`) out of its
    sub-queue. With QueueingHints on, a pod already in flight is discarded ("the same pod is tracked
    in multiple places in the scheduler, and just discard it"): None. Otherwise the pod counts an
    attempt and a scheduling cycle, has its rejector plugins cleared for the new attempt, and (QueueingHints
    on) is in flight from now on. Fails with :class:`QueueNotEnabled` if ``uid`` is not a candidate.

    Kubernetes: `activeQueue.unlockedPop` (pkg/scheduler/backend/queue/active_queue.go)
    """
    candidates = pop_candidates(queue)
    if uid not in candidates:
        heads = ", ".join(candidates) or "none"
        raise QueueNotEnabled(f"pod {uid} is not at the head of the queue; candidates: {heads}")
    if uid in queue.active_q:
        pinfo, queue = queue.active_q[uid], replace(queue, active_q=queue.active_q.remove(uid))
    else:
        pinfo, queue = queue.backoff_q[uid], replace(queue, backoff_q=queue.backoff_q.remove(uid))
    if queue.config.queueing_hints:
        if uid in queue.in_flight_pods:
            return queue, None
        queue = replace(
            queue,
            in_flight_pods=queue.in_flight_pods.set(uid, pinfo.pod),
            in_flight_events=(*queue.in_flight_events, PodPopped(uid)),
        )
    popped = replace(pinfo, attempts=pinfo.attempts + 1, unschedulable_plugins=frozenset(), pending_plugins=frozenset())
    return replace(queue, scheduling_cycle=queue.scheduling_cycle + 1), popped


def pop(queue: SchedulingQueue, uid: str | None = None) -> tuple[SchedulingQueue, QueuedPod | None]:
    """``Pop``: take heads (:func:`pop_head`) until one is not discarded, and return it; the first head
    taken is ``uid`` (None: the only candidate), every later one must be the only candidate. Returns
    None when nothing is left to take and the queue is closed. Fails with :class:`QueueNotEnabled` when ``Pop``
    would block: from the start, or once a discarded in-flight duplicate emptied an open queue (Kubernetes' ``pop``
    then waits on its condition variable until a pod is added); and when a choice among pods that compare equal is
    not named.

    Kubernetes: `PriorityQueue.Pop` (pkg/scheduler/backend/queue/scheduling_queue.go)
    """
    discarded = False
    while True:
        candidates = pop_candidates(queue)
        if not candidates:
            if queue.closed:
                return queue, None
            if discarded:
                raise QueueNotEnabled("Pop discarded an in-flight duplicate and would block until a pod is added")
            raise QueueNotEnabled("nothing to pop: Pop would block until a pod is added")
        if uid is None:
            if len(candidates) > 1:
                raise QueueNotEnabled(f"pods {', '.join(candidates)} compare equal: name the one popped")
            uid = candidates[0]
        queue, popped = pop_head(queue, uid)
        if popped is not None:
            return queue, popped
        discarded, uid = True, None


def done(queue: SchedulingQueue, uid: str) -> SchedulingQueue:
    """The attempt that popped ``uid`` is over for the queue: it is no longer in flight, and the
    events at the head of the in-flight list that no remaining in-flight pod needs are dropped.
    A no-op with QueueingHints off, and for a pod not in flight.

    Kubernetes: `PriorityQueue.Done` (pkg/scheduler/backend/queue/scheduling_queue.go)
    Kubernetes: `activeQueue.unlockedDone` (pkg/scheduler/backend/queue/active_queue.go)
    """
    if not queue.config.queueing_hints or uid not in queue.in_flight_pods:
        return queue
    entries = [e for e in queue.in_flight_events if e != PodPopped(uid)]
    while entries and isinstance(entries[0], RecordedEvent):
        entries.pop(0)
    return replace(queue, in_flight_pods=queue.in_flight_pods.remove(uid), in_flight_events=tuple(entries))


def add_unschedulable_if_not_present(
    queue: SchedulingQueue, pinfo: QueuedPod, pod_scheduling_cycle: int
) -> tuple[SchedulingQueue, QueueName]:
    """Hand back a pod whose attempt failed; returns the queue and where the pod went.

    The failure counts as an error when the pod has no rejector plugin, else as unschedulable (and
    ends a run of errors); the pod is stamped now, so its backoff restarts. With QueueingHints on,
    the events recorded during its attempt decide (:func:`scheduling_hint_for_in_flight_pod`): skip
    to unschedulablePods, else backoffQ while backing off, else activeQ. With them off: backoffQ if
    the last move request came at or after ``pod_scheduling_cycle`` or the pod has no rejector
    plugin, else unschedulablePods. ``Done`` is called in every case, last.

    Fails with :class:`QueueError` (its ``queue_after`` is ``Done``'s result) if the pod's namespace/name is
    already in unschedulablePods, activeQ or backoffQ (under any UID), checked in that order.

    Kubernetes: `PriorityQueue.AddUnschedulableIfNotPresent` (pkg/scheduler/backend/queue/scheduling_queue.go)
    Kubernetes: `PriorityQueue.addUnschedulableWithoutQueueingHint` (pkg/scheduler/backend/queue/scheduling_queue.go)
    """
    uid, pod, obj = pinfo.uid, pinfo.pod, klog_kobj(pinfo.pod)
    backing_off = holder(queue.backoff_q, pod) is not None or holder(queue.error_backoff_q, pod) is not None
    for present, kind, text in (
        (holder(queue.unschedulable_pods, pod) is not None, QueueErrorKind.ALREADY_UNSCHEDULABLE,
         "in unschedulable queue"),
        (holder(queue.active_q, pod) is not None, QueueErrorKind.ALREADY_ACTIVE, "in the active queue"),
        (backing_off, QueueErrorKind.ALREADY_BACKING_OFF, "in the backoff queue"),
    ):
        if present:
            raise QueueError(kind, f"Pod {obj} is already present {text}", done(queue, uid))
    if pinfo.rejector_plugins:
        pinfo = replace(pinfo, unschedulable_count=pinfo.unschedulable_count + 1, consecutive_errors_count=0)
    else:
        pinfo = replace(pinfo, consecutive_errors_count=pinfo.consecutive_errors_count + 1)
    pinfo = replace(pinfo, timestamp=queue.now)
    if not queue.config.queueing_hints:
        if queue.move_request_cycle >= pod_scheduling_cycle or not pinfo.rejector_plugins:
            queue = _move_to_backoff_q(queue, pinfo)  # PreEnqueue may gate it (PopFromBackoffQ)
            return queue, where(queue, uid) or QueueName.BACKOFF
        return replace(queue, unschedulable_pods=queue.unschedulable_pods.set(uid, pinfo)), QueueName.UNSCHEDULABLE
    queue, went = _requeue(queue, pinfo, scheduling_hint_for_in_flight_pod(queue, pinfo))
    return done(queue, uid), went


# ============================================================================================
# Cluster events
# ============================================================================================


def move_pods_to_active_or_backoff_queue(
    queue: SchedulingQueue, uids: frozenset[str], event: ClusterEvent, target: str | None = None
) -> SchedulingQueue:
    """Requeue each unschedulable pod of ``uids`` that a rejector plugin's hint says ``event`` may
    make schedulable; then ``moveRequestCycle`` becomes the current cycle and (QueueingHints on) the
    event is recorded for the pods in flight. Nothing at all happens for an event no plugin
    registered (unless it is a wildcard).

    Kubernetes: `PriorityQueue.movePodsToActiveOrBackoffQueue` (pkg/scheduler/backend/queue/scheduling_queue.go)
    """
    c = queue.config
    if not is_event_of_interest(c.registered_hints, event):
        return queue
    recorded = RecordedEvent(event, target)
    for uid in sorted(uids & set(queue.unschedulable_pods)):
        pinfo = queue.unschedulable_pods[uid]
        strategy = is_pod_worth_requeuing(c, pinfo, recorded)
        if strategy is not QueueingStrategy.QUEUE_SKIP:
            queue = replace(queue, unschedulable_pods=queue.unschedulable_pods.remove(uid))
            queue = _requeue(queue, pinfo, strategy)[0]
    queue = _request_move(queue)
    return _record_event_if_any_in_flight(queue, recorded) if c.queueing_hints else queue


def move_all_to_active_or_backoff_queue(
    queue: SchedulingQueue, event: ClusterEvent, pre_check: frozenset[str] | None = None
) -> SchedulingQueue:
    """A cluster event happened: :func:`move_pods_to_active_or_backoff_queue` for every unschedulable
    pod passing ``pre_check`` (the UIDs it accepts; None accepts all).

    Kubernetes: `PriorityQueue.MoveAllToActiveOrBackoffQueue` (pkg/scheduler/backend/queue/scheduling_queue.go)
    """
    candidates = frozenset(queue.unschedulable_pods) if pre_check is None else pre_check
    return move_pods_to_active_or_backoff_queue(queue, candidates, event)


def activate(queue: SchedulingQueue, pod: Pod) -> SchedulingQueue:
    """Move the entry of ``pod``'s namespace/name from unschedulablePods or backoffQ to activeQ (from backoffQ
    without the PreEnqueue plugins
    where the release passes ``movesFromBackoffQ``: :attr:`QueueConfig.activate_moves_from_backoff_q`, v1.35 on).
    A pod that does not reach activeQ
    (in neither, or kept in unschedulablePods by a PreEnqueue plugin) gets ``ForceActivate`` recorded
    if it is in flight, and ``moveRequestCycle`` becomes the current cycle, so it is retried when it
    comes back; an unknown pod is otherwise ignored.

    Kubernetes: `PriorityQueue.Activate` (pkg/scheduler/backend/queue/scheduling_queue.go): what follows
    ``if p.activate(logger, pod) { continue }`` runs whenever ``activate`` returns false, a gated pod's
    refused ``moveToActiveQ`` included (found by the Go adapter on v1.34.12, v1.35.8 and v1.36.5)
    """
    uid = pod.uid
    pinfo = _entry(queue.unschedulable_pods, pod)
    if pinfo is not None:
        queue = _move_to_active_q(queue, pinfo)
        if pinfo.uid in queue.active_q:
            return queue
    else:
        pinfo = _entry(queue.backoff_q, pod) or _entry(queue.error_backoff_q, pod)
        if pinfo is not None:  # deleted from backoffQ first, as Kubernetes does
            backoff, errors = _remove_key(queue.backoff_q, pod), _remove_key(queue.error_backoff_q, pod)
            queue = replace(queue, backoff_q=backoff, error_backoff_q=errors)
            queue = _move_to_active_q(queue, pinfo, from_backoff=queue.config.activate_moves_from_backoff_q)
            if pinfo.uid in queue.active_q:
                return queue
    if uid in queue.in_flight_pods:
        queue = replace(queue, in_flight_events=(*queue.in_flight_events, RecordedEvent(EVENT_FORCE_ACTIVATE, uid)))
    return _request_move(queue)


def _update_shared_entry(queue: SchedulingQueue, entry: QueuedPod, new: Pod) -> SchedulingQueue:
    """``entry``, updated to ``new`` in a backoff heap, is also the entry of its UID in unschedulablePods, if that
    holds one: with PopFromBackoffQ off, ``Update``'s requeue loop goes on after an event moved the pod to backoffQ,
    and a later event that the hints skip puts the same ``*QueuedPodInfo`` into unschedulablePods
    (``requeuePodWithQueueingStrategy``'s ``unschedulablePods.addOrUpdate``), so one pod info is in both. Updating it
    in backoffQ (``PodInfo.Update``, in place) updates it there too: the two entries keep one pod object.

    Kubernetes: `backoffQueue.update` (pkg/scheduler/backend/queue/backoff_queue.go)
    """
    shared = queue.unschedulable_pods.get(entry.uid)
    if shared is None or pod_key(shared.pod) != pod_key(entry.pod):
        return queue
    return replace(queue, unschedulable_pods=_put(queue.unschedulable_pods, replace(shared, pod=new)))


def update(queue: SchedulingQueue, old: Pod, new: Pod) -> SchedulingQueue:
    """An unscheduled pod changed from ``old`` to ``new``.

    QueueingHints on and the pod in flight: its update events (``PodSchedulingPropertiesChange``)
    are recorded, nothing else. In activeQ or backoffQ: updated in place. In unschedulablePods:
    updated, then with QueueingHints on requeued per update event by the hints until it reaches
    activeQ (or backoffQ, with PopFromBackoffQ); with them off moved to backoffQ (backing off) or
    activeQ if it changed at all. In no sub-queue: added to activeQ as a new pod. A pod info in backoffQ that
    unschedulablePods also holds (PopFromBackoffQ off) is updated in both (:func:`_update_shared_entry`).
    In flight goes by ``new``'s UID;
    activeQ and backoffQ are searched for ``old``'s namespace/name, unschedulablePods for ``new``'s (the API server
    renames no pod, so they are the same): an entry of another UID found there takes ``new`` as its pod, or, where
    the release's ``PodInfo.Update`` refuses another UID (:attr:`spec.versions.VersionProfile.update_requires_same_uid`,
    v1.37), is left as it is and ``new`` is added as a new pod (:func:`_add_pod`), which replaces the entry by key,
    except one in backoffQ, which v1.37's ``moveToActiveQ`` leaves there
    (:attr:`spec.versions.VersionProfile.add_leaves_backoff_entry`).

    Kubernetes: `PriorityQueue.Update` (pkg/scheduler/backend/queue/scheduling_queue.go)
    Kubernetes: `PodInfo.Update` (pkg/scheduler/framework/types.go)
    """
    c, uid = queue.config, new.uid
    events = (pod_scheduling_properties_change(new, old, c.target_pod_update_events, c.pod_scale_up_event)
              if c.queueing_hints else ())
    if c.queueing_hints and uid in queue.in_flight_pods:
        recorded = tuple(RecordedEvent(e, uid) for e in events)
        return replace(queue, in_flight_events=(*queue.in_flight_events, *recorded))
    renominated = replace(queue, nominator=update_nominated_pod(queue.nominator, old, new, new,
                                                                c.empty_nomination_clears))

    def refused(entry: QueuedPod) -> bool:  # PodInfo.Update: v1.37's refuses an object of another UID
        return c.update_requires_same_uid and entry.uid != uid

    entry = _entry(queue.active_q, old)
    if entry is not None and not refused(entry):
        return replace(renominated, active_q=_put(queue.active_q, replace(entry, pod=new)))
    entry = _entry(queue.backoff_q, old)
    if entry is not None and not refused(entry):
        renominated = replace(renominated, backoff_q=_put(queue.backoff_q, replace(entry, pod=new)))
        return _update_shared_entry(renominated, entry, new)
    entry = _entry(queue.error_backoff_q, old)
    if entry is not None and not refused(entry):
        renominated = replace(renominated, error_backoff_q=_put(queue.error_backoff_q, replace(entry, pod=new)))
        return _update_shared_entry(renominated, entry, new)
    entry = _entry(queue.unschedulable_pods, new)
    if entry is None or refused(entry):
        return _add_pod(queue, new)
    queue = renominated
    pinfo = replace(entry, pod=new)
    if c.queueing_hints:
        queue = replace(queue, unschedulable_pods=_put(queue.unschedulable_pods, pinfo))
        for event in events:
            strategy = is_pod_worth_requeuing(c, pinfo, RecordedEvent(event, uid))
            queue, went = _requeue(queue, pinfo, strategy, nominate=event.action_type == ActionType.UPDATE)
            if went is QueueName.ACTIVE or (c.pop_from_backoff_q and went is QueueName.BACKOFF):
                break
        return queue
    if is_pod_updated(old, new):
        if is_pod_backing_off(queue, pinfo):
            return _move_to_backoff_q(queue, pinfo)
        return _move_to_active_q(queue, pinfo, nominate=True)
    return replace(queue, unschedulable_pods=_put(queue.unschedulable_pods, pinfo))


# ============================================================================================
# The nominator
# ============================================================================================


def add_nominated(queue: SchedulingQueue, pod: Pod, info: NominatingInfo | None, listed: Pod | None) -> SchedulingQueue:
    """``AddNominatedPod``: the failure handler (or a test) nominates ``pod``; ``listed`` is the pod as the
    informer's lister has it (None: gone).

    Kubernetes: `PriorityQueue.AddNominatedPod` (pkg/scheduler/backend/queue/scheduling_queue.go)
    """
    return replace(queue, nominator=add_nominated_pod(queue.nominator, pod, info, listed,
                                                      queue.config.empty_nomination_clears))


def delete_nominated(queue: SchedulingQueue, uid: str) -> SchedulingQueue:
    """``DeleteNominatedPodIfExists`` (``assume`` calls it).

    Kubernetes: `nominator.DeleteNominatedPodIfExists` (pkg/scheduler/backend/queue/nominator.go)
    """
    return replace(queue, nominator=delete_nominated_pod_if_exists(queue.nominator, uid))


def nominated_pods(queue: SchedulingQueue, node: str) -> tuple[Pod, ...]:
    """``NominatedPodsForNode``: the pods nominated to ``node``, as the queue holds them (activeQ, then
    unschedulablePods, then backoffQ); a pod in none of them (in flight) is only its UID, name and namespace,
    so Filter counts it with priority 0 and no requests. Kubernetes looks a nominated pod up in the sub-queues by its
    namespace/name (``nominatedPodToInfo``), the spec by UID (its nominator keeps UIDs only): they differ only for a
    pod whose namespace/name another UID has taken in a sub-queue since the nomination, which no vector observes.

    Kubernetes: `PriorityQueue.NominatedPodsForNode` (pkg/scheduler/backend/queue/scheduling_queue.go)
    Kubernetes: `PriorityQueue.nominatedPodToInfo` (pkg/scheduler/backend/queue/scheduling_queue.go)
    """
    found = []
    for uid in nominated_pods_for_node(queue.nominator, node):
        pinfo = (queue.active_q.get(uid) or queue.unschedulable_pods.get(uid) or queue.backoff_q.get(uid)
                 or queue.error_backoff_q.get(uid))
        if pinfo is not None:
            found.append(pinfo.pod)
        else:
            pod = queue.in_flight_pods.get(uid)
            found.append(Pod(uid, pod.name, pod.namespace) if pod is not None else Pod(uid))
    return tuple(found)


def is_pod_updated(old: Pod, new: Pod) -> bool:
    """Whether the pod changed other than in its status (the nominated node, the start time, the conditions).

    Kubernetes: `isPodUpdated` (pkg/scheduler/backend/queue/scheduling_queue.go)
    """
    def strip(pod: Pod) -> Pod:
        return replace(pod, nominated_node_name="", start_time=None, preempted_by_scheduler=False)

    return strip(old) != strip(new)


def delete(queue: SchedulingQueue, pod: Pod) -> SchedulingQueue:
    """Remove ``pod``'s nomination (by UID), and the entry of its namespace/name (of whichever UID) from the first of
    activeQ, backoffQ and unschedulablePods that holds one (Kubernetes assumes only one does); an in-flight pod stays
    in flight until ``Done``.

    Kubernetes: `PriorityQueue.Delete` (pkg/scheduler/backend/queue/scheduling_queue.go)
    """
    queue = replace(queue, nominator=delete_nominated_pod_if_exists(queue.nominator, pod.uid))
    if holder(queue.active_q, pod) is not None:
        return replace(queue, active_q=_remove_key(queue.active_q, pod))
    if holder(queue.backoff_q, pod) is not None or holder(queue.error_backoff_q, pod) is not None:
        return replace(queue, backoff_q=_remove_key(queue.backoff_q, pod),
                       error_backoff_q=_remove_key(queue.error_backoff_q, pod))
    return replace(queue, unschedulable_pods=_remove_key(queue.unschedulable_pods, pod))


# ============================================================================================
# Time and the flushes
# ============================================================================================


def flush_backoff_q_completed(queue: SchedulingQueue) -> SchedulingQueue:
    """Move every pod of both backoff heaps whose backoff is over to activeQ. (Kubernetes pops each
    heap while its head is done backing off; expiry orders the heaps, so that is every such pod.)

    Kubernetes: `PriorityQueue.flushBackoffQCompleted` (pkg/scheduler/backend/queue/scheduling_queue.go)
    Kubernetes: `backoffQueue.popAllBackoffCompleted` (pkg/scheduler/backend/queue/backoff_queue.go)
    """
    for pods in (queue.backoff_q, queue.error_backoff_q):
        for pinfo in pods.values():
            if not is_pod_backing_off(queue, pinfo):  # popped from its heap first: a gated pod is parked
                queue = replace(queue, backoff_q=queue.backoff_q.remove(pinfo.uid),
                                error_backoff_q=queue.error_backoff_q.remove(pinfo.uid))
                queue = _move_to_active_q(queue, pinfo, from_backoff=True)
    return queue


def flush_unschedulable_pods_leftover(queue: SchedulingQueue) -> SchedulingQueue:
    """Move the pods that have been in unschedulablePods longer than the configured maximum since
    their last attempt with the wildcard ``UnschedulableTimeout`` event: to backoffQ while backing
    off, else activeQ. With none stale, nothing happens (no move request either).

    Kubernetes: `PriorityQueue.flushUnschedulablePodsLeftover` (pkg/scheduler/backend/queue/scheduling_queue.go)
    """
    limit = queue.config.pod_max_in_unschedulable_pods_duration
    stale = frozenset(uid for uid, p in queue.unschedulable_pods.items() if queue.now - p.timestamp > limit)
    if not stale:
        return queue
    return move_pods_to_active_or_backoff_queue(queue, stale, EVENT_UNSCHEDULABLE_TIMEOUT)


def step_clock(queue: SchedulingQueue, elapsed: Duration) -> SchedulingQueue:
    """The clock moves on by ``elapsed`` and nothing else happens (a test's fake clock, ``Run`` not
    started). Fails with ``ValueError`` when ``elapsed`` is negative."""
    if elapsed < 0:
        raise ValueError(f"time does not go back: elapsed {elapsed} ns")
    return replace(queue, now=queue.now + elapsed)


def run_for(queue: SchedulingQueue, elapsed: Duration) -> SchedulingQueue:
    """Time passes by ``elapsed`` with ``Run``'s loops, started at time 0: the backoff flush at
    every whole ordering window, the leftover flush every ``unschedulable_flush_period`` (both at
    an instant that is a multiple of both; they touch different pods, so their order does not
    matter). Fails with ``ValueError`` when ``elapsed`` is negative.

    Kubernetes: `PriorityQueue.Run` (pkg/scheduler/backend/queue/scheduling_queue.go)
    Kubernetes: `backoffQueue.waitUntilAlignedWithOrderingWindow` (pkg/scheduler/backend/queue/backoff_queue.go)
    """
    if elapsed < 0:
        raise ValueError(f"time does not go back: elapsed {elapsed} ns")
    end, period = queue.now + elapsed, queue.config.unschedulable_flush_period
    while True:
        next_backoff = (queue.now // BACKOFF_Q_ORDERING_WINDOW + 1) * BACKOFF_Q_ORDERING_WINDOW
        next_leftover = (queue.now // period + 1) * period
        instant = min(next_backoff, next_leftover)
        if instant > end:
            return replace(queue, now=end)
        queue = replace(queue, now=instant)
        if instant == next_leftover:
            queue = flush_unschedulable_pods_leftover(queue)
        if instant == next_backoff:
            queue = flush_backoff_q_completed(queue)


def close(queue: SchedulingQueue) -> SchedulingQueue:
    """Close the queue: every in-flight pod is done (the in-flight list empties), and a ``Pop`` that
    finds nothing to pop returns None instead of blocking. Fails with :class:`QueueNotEnabled` on a closed queue:
    Kubernetes' ``Close`` closes its stop channel again and panics ("close of closed channel"), so no scheduler
    closes twice.

    Kubernetes: `PriorityQueue.Close` (pkg/scheduler/backend/queue/scheduling_queue.go)
    Kubernetes: `activeQueue.close` (pkg/scheduler/backend/queue/active_queue.go)
    """
    if queue.closed:
        raise QueueNotEnabled("the queue is already closed: a second Close panics (close of closed channel)")
    for uid in sorted(queue.in_flight_pods):
        queue = done(queue, uid)
    return replace(queue, closed=True)


QUEUE_TRANSITIONS: Final = (
    "add",
    "pop",
    "done",
    "add_unschedulable_if_not_present",
    "move_all_to_active_or_backoff_queue",
    "activate",
    "update",
    "delete",
    "flush_backoff_q_completed",
    "flush_unschedulable_pods_leftover",
    "close",
)
"""The transitions that move pods, by name (time passing, :func:`step_clock` and :func:`run_for`, moves them only
through the flushes)."""
