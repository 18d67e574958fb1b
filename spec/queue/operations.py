"""Scheduling-queue operations as data, applied to the queue and to the scheduler's side of it.

The queue's callers hold what it does not: the ``QueuedPodInfo`` of each pod they popped, which
they hand back with ``AddUnschedulableIfNotPresent`` when the attempt fails, together with the
scheduling cycle and the plugins that rejected it (``handleSchedulingFailure``,
pkg/scheduler/schedule_one.go). A :class:`QueueWorld` is the queue with those attempts, so that an
operation can name a pod by its object alone, as vectors do; and it keeps, as ghost state that no
transition reads, the cluster events each pod has seen since its latest pop, which
:func:`spec.queue.invariants.inv_no_lost_wake_up` is stated over.

Every operation is a frozen dataclass whose name is its conformance-protocol name
(``QueueAdd`` is ``queue_add``); :func:`apply_queue_operation` applies one.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from spec.dispatcher.api_calls import NominatingInfo, NominatingMode
from spec.frozenmap import FrozenMap
from spec.objects import DEFAULT_SCHEDULER_NAME, Pod, with_node_name
from spec.quantities import Duration
from spec.queue import queue as q
from spec.queue.backoff import (
    DEFAULT_POD_INITIAL_BACKOFF,
    DEFAULT_POD_MAX_BACKOFF,
    DEFAULT_POD_MAX_IN_UNSCHEDULABLE_PODS_DURATION,
    UNSCHEDULABLE_FLUSH_PERIOD,
)
from spec.queue.events import (
    EVENT_FORCE_ACTIVATE,
    ClusterEvent,
    HintMap,
    OwnUpdateHintFunction,
    is_event_of_interest,
    matching_hints,
    pod_scheduling_properties_change,
)
from spec.queue.state import (
    QueuedPod,
    QueueError,
    QueueName,
    RecordedEvent,
    SchedulingQueue,
    new_scheduling_queue,
)
from spec.valuetypes import replace
from spec.versions import DEFAULT_PROFILE, VersionProfile

# ============================================================================================
# The world
# ============================================================================================


History = FrozenMap[str, frozenset[RecordedEvent]]
"""The ghost event history of a :class:`QueueWorld`."""


@dataclass(frozen=True)
class Attempt:
    """A scheduling attempt: the pod info ``Pop`` returned, and whether ``Done`` was called for it
    (after Permit, the binding cycle calls ``Done`` early; ``Close`` calls it for every pod)."""

    pinfo: QueuedPod
    cycle: int
    """``SchedulingCycle()`` right after the pop: the cycle the attempt started in."""
    done: bool = False


@dataclass(frozen=True)
class QueueWorld:
    """The queue, the attempts its callers run, and the ghost event history."""

    queue: SchedulingQueue
    attempts: FrozenMap[str, Attempt] = field(default_factory=FrozenMap)
    """Popped pods whose attempt was not handed back (a bound pod's attempt stays here, done)."""
    since_pop: History = field(default_factory=FrozenMap)
    """Ghost: for each pod ever popped, the set of cluster events since its latest pop that some
    plugin registered (moves, its own updates that changed it, ``ForceActivate`` for it)."""


def new_queue_world(profile: VersionProfile = DEFAULT_PROFILE) -> QueueWorld:
    """An empty queue (:func:`spec.queue.state.new_scheduling_queue` of ``profile``) and no attempts."""
    return QueueWorld(new_scheduling_queue(profile))


# ============================================================================================
# Operations
# ============================================================================================


@dataclass(frozen=True)
class NewQueue:
    """Replace the queue with a new, empty one with these options (``NewPriorityQueue``) at the
    same time. A gate left None keeps the current queue's (the profile's); ``hints`` None is the
    default plugins' map for the QueueingHints setting. Running attempts are forgotten."""

    queueing_hints: bool | None = None
    pop_from_backoff_q: bool | None = None
    pod_initial_backoff: Duration = DEFAULT_POD_INITIAL_BACKOFF
    pod_max_backoff: Duration = DEFAULT_POD_MAX_BACKOFF
    pod_max_in_unschedulable_pods_duration: Duration = DEFAULT_POD_MAX_IN_UNSCHEDULABLE_PODS_DURATION
    hints: HintMap | None = None
    scheduler_names: frozenset[str] = frozenset({DEFAULT_SCHEDULER_NAME})
    unschedulable_flush_period: Duration = UNSCHEDULABLE_FLUSH_PERIOD
    pre_enqueue_plugins: tuple[str, ...] = ()
    """The PreEnqueue plugins (:mod:`spec.queue.gates`): ``("SchedulingGates",)`` or none."""


@dataclass(frozen=True)
class QueueAdd:
    """:func:`spec.queue.queue.add`: the informer added an unscheduled pod."""

    pod: Pod


@dataclass(frozen=True)
class QueuePop:
    """:func:`spec.queue.queue.pop`: a scheduling attempt starts. ``uid`` names which of equal heads is
    taken; vectors leave it out and never pop among equal heads."""

    uid: str | None = None


@dataclass(frozen=True)
class QueueDone:
    """:func:`spec.queue.queue.done`."""

    uid: str


@dataclass(frozen=True)
class QueueAddUnschedulable:
    """:func:`spec.queue.queue.add_unschedulable_if_not_present`: the attempt of ``pod`` failed, rejected
    by these plugins (none: an error). The pod info handed back is the one its last pop returned
    (a fresh one when no attempt of it is running), with ``pod`` (the informer's current object) and
    these plugins; ``cycle`` None passes the current ``SchedulingCycle()``, as the failure handler does."""

    pod: Pod
    unschedulable_plugins: frozenset[str] = frozenset()
    pending_plugins: frozenset[str] = frozenset()
    cycle: int | None = None


@dataclass(frozen=True)
class QueueMoveAll:
    """:func:`spec.queue.queue.move_all_to_active_or_backoff_queue`; ``pre_check`` lists the UIDs it lets through."""

    event: ClusterEvent
    pre_check: frozenset[str] | None = None


@dataclass(frozen=True)
class QueueActivate:
    """:func:`spec.queue.queue.activate`."""

    pod: Pod


@dataclass(frozen=True)
class QueueUpdate:
    """:func:`spec.queue.queue.update`."""

    old: Pod
    new: Pod


@dataclass(frozen=True)
class QueueDelete:
    """:func:`spec.queue.queue.delete`."""

    pod: Pod


@dataclass(frozen=True)
class QueueFlushBackoff:
    """:func:`spec.queue.queue.flush_backoff_q_completed`."""


@dataclass(frozen=True)
class QueueFlushUnschedulable:
    """:func:`spec.queue.queue.flush_unschedulable_pods_leftover`."""


@dataclass(frozen=True)
class QueueStepClock:
    """:func:`spec.queue.queue.step_clock`: the fake clock moves on; nothing runs."""

    elapsed: Duration


@dataclass(frozen=True)
class QueueRunFor:
    """:func:`spec.queue.queue.run_for`: time passes with ``Run``'s flush loops."""

    elapsed: Duration


@dataclass(frozen=True)
class QueueClose:
    """:func:`spec.queue.queue.close`."""


@dataclass(frozen=True)
class QueueAddNominatedPod:
    """:func:`spec.queue.queue.add_nominated`: ``AddNominatedPod``. ``node`` None is a nil nominating info (Noop:
    the node the pod object names); a string overrides (``""`` clears). The informer's lister has the pod as it is,
    unless it is ``gone`` (deleted) or ``bound_to`` a node; then the pod is not nominated."""

    pod: Pod
    node: str | None = None
    gone: bool = False
    bound_to: str = ""


@dataclass(frozen=True)
class QueueDeleteNominatedPod:
    """:func:`spec.queue.queue.delete_nominated`: ``DeleteNominatedPodIfExists`` (what ``assume`` calls)."""

    uid: str


QueueOperation = (
    NewQueue | QueueAdd | QueuePop | QueueDone | QueueAddUnschedulable | QueueMoveAll | QueueActivate | QueueUpdate
    | QueueDelete | QueueFlushBackoff | QueueFlushUnschedulable | QueueStepClock | QueueRunFor | QueueClose
    | QueueAddNominatedPod | QueueDeleteNominatedPod
)
QUEUE_OPERATIONS = (
    NewQueue, QueueAdd, QueuePop, QueueDone, QueueAddUnschedulable, QueueMoveAll, QueueActivate, QueueUpdate,
    QueueDelete, QueueFlushBackoff, QueueFlushUnschedulable, QueueStepClock, QueueRunFor, QueueClose,
    QueueAddNominatedPod, QueueDeleteNominatedPod,
)


@dataclass(frozen=True)
class QueueOutcome:
    """How an operation ended: ``error`` is the :class:`~spec.queue.state.QueueError` a hand-back
    returned (None: ok); ``popped`` the pod a pop returned; ``went`` where a hand-back sent the pod."""

    error: QueueError | None = None
    popped: QueuedPod | None = None
    went: QueueName | None = None


OK = QueueOutcome()


# ============================================================================================
# Applying them
# ============================================================================================


def _seen(world: QueueWorld, uids: tuple[str, ...] | None, events: frozenset[RecordedEvent]) -> History:
    """The ghost history with ``events`` appended for each popped pod in ``uids`` (all when None)."""
    history = dict(world.since_pop)
    for uid in history if uids is None else [u for u in uids if u in history]:
        history[uid] = history[uid] | events
    return FrozenMap(history)


def apply_queue_operation(world: QueueWorld, op: QueueOperation) -> tuple[QueueWorld, QueueOutcome]:
    """Apply ``op``; returns the world and the outcome. A hand-back the queue refuses is an outcome
    (with the queue as ``Done`` left it), not an exception. Fails with
    :class:`~spec.queue.state.QueueNotEnabled` for a pop that would block or names a pod that is not
    a head, and with ``ValueError`` for a negative duration or a move that would reach a hint reading the event's
    pod (:func:`_require_no_pod_reading_hint`)."""
    queue = world.queue
    match op:
        case NewQueue():
            return QueueWorld(_new_queue(queue, op)), OK
        case QueueAdd(pod):
            return replace(world, queue=q.add(queue, pod)), OK
        case QueuePop(uid):
            queue, popped = q.pop(queue, uid)
            if popped is None:
                return replace(world, queue=queue), OK
            attempt = Attempt(popped, queue.scheduling_cycle)
            attempts, history = world.attempts.set(popped.uid, attempt), world.since_pop.set(popped.uid, frozenset())
            return QueueWorld(queue, attempts, history), QueueOutcome(popped=popped)
        case QueueDone(uid):
            attempts = world.attempts
            if uid in attempts:
                attempts = attempts.set(uid, replace(attempts[uid], done=True))
            return QueueWorld(q.done(queue, uid), attempts, world.since_pop), OK
        case QueueAddUnschedulable(pod, unschedulable, pending, cycle):
            return _hand_back(world, pod, unschedulable, pending, cycle)
        case QueueMoveAll(event, pre_check):
            _require_no_pod_reading_hint(queue, event)
            history = world.since_pop
            if is_event_of_interest(queue.config.registered_hints, event):
                history = _seen(world, None, frozenset({RecordedEvent(event)}))
            queue = q.move_all_to_active_or_backoff_queue(queue, event, pre_check)
            return QueueWorld(queue, world.attempts, history), OK
        case QueueActivate(pod):
            history = _seen(world, (pod.uid,), frozenset({RecordedEvent(EVENT_FORCE_ACTIVATE, pod.uid)}))
            return QueueWorld(q.activate(queue, pod), world.attempts, history), OK
        case QueueUpdate(old, new):
            history = world.since_pop
            if old != new:
                events = frozenset(RecordedEvent(e, new.uid) for e in pod_scheduling_properties_change(
                    new, old, queue.config.target_pod_update_events, queue.config.pod_scale_up_event))
                history = _seen(world, (new.uid,), events)
            return QueueWorld(q.update(queue, old, new), world.attempts, history), OK
        case QueueDelete(pod):
            return replace(world, queue=q.delete(queue, pod)), OK
        case QueueFlushBackoff():
            return replace(world, queue=q.flush_backoff_q_completed(queue)), OK
        case QueueFlushUnschedulable():
            return replace(world, queue=q.flush_unschedulable_pods_leftover(queue)), OK
        case QueueStepClock(elapsed):
            return replace(world, queue=q.step_clock(queue, elapsed)), OK
        case QueueRunFor(elapsed):
            return replace(world, queue=q.run_for(queue, elapsed)), OK
        case QueueClose():
            attempts = FrozenMap({u: replace(a, done=True) for u, a in world.attempts.items()})
            return QueueWorld(q.close(queue), attempts, world.since_pop), OK
        case QueueAddNominatedPod(pod, node, gone, bound_to):
            info = None if node is None else NominatingInfo(NominatingMode.OVERRIDE, node)
            listed = None if gone else with_node_name(pod, bound_to)
            return replace(world, queue=q.add_nominated(queue, pod, info, listed)), OK
        case QueueDeleteNominatedPod(uid):
            return replace(world, queue=q.delete_nominated(queue, uid)), OK
    raise TypeError(f"not a queue operation: {op!r}")


def _require_no_pod_reading_hint(queue: SchedulingQueue, event: ClusterEvent) -> None:
    """A move carries no objects, so it must not reach a hint that reads the event's pod
    (:class:`~spec.queue.events.OwnUpdateHintFunction`, SchedulingGates' through v1.36): Kubernetes' would dereference
    the missing pod, for a pod waiting in unschedulablePods now or, through the events recorded for the pods in
    flight, at a later hand-back. The scheduler never makes such a call (it sends a pod's updates with the pod:
    :class:`QueueUpdate`). Fails with ``ValueError`` naming the plugin."""
    readers = {f.plugin for f in matching_hints(queue.config.registered_hints, event)
               if isinstance(f, OwnUpdateHintFunction)}
    asked = readers & {p for pinfo in queue.unschedulable_pods.values() for p in pinfo.rejector_plugins}
    if readers and (asked or queue.in_flight_pods):
        raise ValueError(f"a move of {event.label} carries no pod, and {sorted(readers)}'s hint reads the event's "
                         "pod (Kubernetes' would dereference nil); send the pod's update with queue_update")


def _new_queue(current: SchedulingQueue, op: NewQueue) -> SchedulingQueue:
    hints_on = current.config.queueing_hints if op.queueing_hints is None else op.queueing_hints
    popping = current.config.pop_from_backoff_q if op.pop_from_backoff_q is None else op.pop_from_backoff_q
    return new_scheduling_queue(
        queueing_hints=hints_on,
        pop_from_backoff_q=popping,
        pod_initial_backoff=op.pod_initial_backoff,
        pod_max_backoff=op.pod_max_backoff,
        pod_max_in_unschedulable_pods_duration=op.pod_max_in_unschedulable_pods_duration,
        hints=op.hints,
        scheduler_names=op.scheduler_names,
        unschedulable_flush_period=op.unschedulable_flush_period,
        now=current.now,
        pre_enqueue_plugins=op.pre_enqueue_plugins,
        activate_moves_from_backoff_q=current.config.activate_moves_from_backoff_q,
        keeps_move_request_cycle=current.config.keeps_move_request_cycle,
        target_pod_update_events=current.config.target_pod_update_events,
        update_requires_same_uid=current.config.update_requires_same_uid,
        empty_nomination_clears=current.config.empty_nomination_clears,
        add_leaves_backoff_entry=current.config.add_leaves_backoff_entry,
        gated_add_updates_unschedulable_entry=current.config.gated_add_updates_unschedulable_entry,
        add_pod_nominates=current.config.add_pod_nominates,
        pod_scale_up_event=current.config.pod_scale_up_event,
    )


def _hand_back(
    world: QueueWorld, pod: Pod, unschedulable: frozenset[str], pending: frozenset[str], cycle: int | None
) -> tuple[QueueWorld, QueueOutcome]:
    queue, attempt = world.queue, world.attempts.get(pod.uid)
    base = attempt.pinfo if attempt is not None else QueuedPod(pod, queue.now)
    pinfo = replace(base, pod=pod, unschedulable_plugins=unschedulable, pending_plugins=pending)
    attempts = world.attempts.remove(pod.uid)
    try:
        given = queue.scheduling_cycle if cycle is None else cycle
        queue, went = q.add_unschedulable_if_not_present(queue, pinfo, given)
    except QueueError as error:
        return QueueWorld(error.queue_after, attempts, world.since_pop), QueueOutcome(error=error)
    return QueueWorld(queue, attempts, world.since_pop), QueueOutcome(went=went)
