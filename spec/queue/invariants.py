"""Invariants of the scheduling queue, once each, as named predicates.

State invariants of the queue alone take a :class:`~spec.queue.state.SchedulingQueue`; those about
the pods its callers popped take a :class:`~spec.queue.operations.QueueWorld`. The transition
invariant :func:`trans_backoff_grows_with_failures` compares a pod before and after a hand-back.

:data:`QUEUE_INVARIANTS` and :data:`WORLD_INVARIANTS` hold in every state of the model checker's
universe (:mod:`spec.verify.queue.system`) with Kubernetes' default gates. Three hold only under
conditions Kubernetes does not always meet; each docstring says which, and the model checker
finds the shortest trace that breaks it when they are not met (:data:`KNOWN_VIOLATIONS`).
"""

from __future__ import annotations

from collections.abc import Callable
from itertools import combinations
from typing import Final

from spec.queue.backoff import BACKOFF_Q_ORDERING_WINDOW, backoff_count, calculate_backoff_duration
from spec.queue.nominator import Nominator
from spec.queue.operations import QueueWorld
from spec.queue.queue import is_pod_worth_requeuing
from spec.queue.state import (
    PodPopped,
    QueueConfig,
    QueuedPod,
    QueueingStrategy,
    RecordedEvent,
    SchedulingQueue,
    backoff_time,
)

# ============================================================================================
# The queue alone
# ============================================================================================


def inv_pod_in_one_sub_queue(queue: SchedulingQueue) -> bool:
    """A pending pod is in at most one of activeQ, podBackoffQ, podErrorBackoffQ and unschedulablePods.

    Holds with SchedulerPopFromBackoffQ on (every profile). With it off, ``Update`` of an
    unschedulable pod requeues it once per update event and stops only at activeQ: a first event
    that sends it to backoffQ and a second that its hints skip leave it in backoffQ *and*
    unschedulablePods (a single update that both lowers a request and adds a toleration, for a pod
    NodeResourcesFit rejected). ``Delete`` then removes it from backoffQ only.
    """
    places = (queue.active_q, queue.backoff_q, queue.error_backoff_q, queue.unschedulable_pods)
    return all(not set(a) & set(b) for a, b in combinations(places, 2))


def inv_in_flight_pods_not_queued(queue: SchedulingQueue) -> bool:
    """A pod in flight (popped, ``Done`` not called) is in no sub-queue."""
    queued = {*queue.active_q, *queue.backoff_q, *queue.error_backoff_q, *queue.unschedulable_pods}
    return not queued & set(queue.in_flight_pods)


def inv_in_flight_events_pruned(queue: SchedulingQueue) -> bool:
    """The in-flight list holds exactly one marker per in-flight pod, starts with a marker, and is
    empty with QueueingHints off: events no in-flight pod can need are dropped, so it does not grow
    without bound (the reason ``Done`` prunes its head)."""
    markers = [e.uid for e in queue.in_flight_events if isinstance(e, PodPopped)]
    if not queue.config.queueing_hints:
        return not queue.in_flight_events and not queue.in_flight_pods
    starts = not queue.in_flight_events or isinstance(queue.in_flight_events[0], PodPopped)
    return starts and len(markers) == len(set(markers)) and set(markers) == set(queue.in_flight_pods)


def inv_rejector_plugins_match_sub_queue(queue: SchedulingQueue) -> bool:
    """Every pod in unschedulablePods or podBackoffQ has a rejector plugin whose hints can wake it;
    every pod in podErrorBackoffQ has none (its attempt failed with an error)."""
    return (
        all(p.rejector_plugins for p in queue.unschedulable_pods.values())
        and all(p.rejector_plugins for p in queue.backoff_q.values())
        and not any(p.rejector_plugins for p in queue.error_backoff_q.values())
    )


def inv_backoff_expiry_bounded(queue: SchedulingQueue) -> bool:
    """Every pod in backoffQ was stamped at or before now, and ends its backoff at most
    ``pod_max_backoff`` after that (so at most that long from now), aligned down at most a window."""
    limit = queue.config.pod_max_backoff
    for pinfo in (*queue.backoff_q.values(), *queue.error_backoff_q.values()):
        expiry = backoff_time(queue, pinfo)
        if pinfo.timestamp > queue.now:
            return False
        if expiry is not None and not pinfo.timestamp - BACKOFF_Q_ORDERING_WINDOW < expiry <= pinfo.timestamp + limit:
            return False
    return True


def inv_unschedulable_pods_leave_in_time(queue: SchedulingQueue) -> bool:
    """No pod stays in unschedulablePods longer than ``pod_max_in_unschedulable_pods_duration`` plus
    one leftover-flush period after its last attempt.

    Holds when time passes as ``Run`` lets it (:func:`spec.queue.queue.run_for`): the leftover flush runs
    every period and moves every pod past the maximum. A clock stepped without the flush breaks it. A gated pod
    (:mod:`spec.queue.gates`) is exempt: PreEnqueue sends it back every time, until the update that ungates it.
    """
    c = queue.config
    bound = c.pod_max_in_unschedulable_pods_duration + c.unschedulable_flush_period
    return all(queue.now - p.timestamp <= bound for p in queue.unschedulable_pods.values() if not p.gating_plugin)


def inv_move_request_cycle_not_ahead(queue: SchedulingQueue) -> bool:
    """``moveRequestCycle`` is a scheduling cycle that happened (or -1 before any move request)."""
    return -1 <= queue.move_request_cycle <= queue.scheduling_cycle


# ============================================================================================
# The queue and the attempts of its callers
# ============================================================================================


def inv_popped_pod_in_flight_until_done(world: QueueWorld) -> bool:
    """With QueueingHints on, the pods in flight are exactly the popped pods whose attempt has not
    called ``Done`` and was not handed back: a popped pod is in flight until ``Done``, so the
    events of its attempt are recorded for it."""
    if not world.queue.config.queueing_hints:
        return True
    running = {uid for uid, attempt in world.attempts.items() if not attempt.done}
    return running == set(world.queue.in_flight_pods)


def inv_attempting_pod_not_queued(world: QueueWorld) -> bool:
    """A pod whose attempt is running (popped, not handed back, ``Done`` not called) is in no
    sub-queue: a pending pod is in exactly one place, so it is never scheduled twice at once.

    KNOWN VIOLATION with QueueingHints off: ``Update`` of a pod in its scheduling cycle (not yet
    assumed, so the event handler passes it on) finds it in no sub-queue and adds it to activeQ,
    from where it may be popped while its first attempt runs (the duplicate kubernetes#96071 guards
    against only for updates that change nothing). With QueueingHints on the update is recorded
    for the in-flight pod instead.
    """
    queued = {*world.queue.active_q, *world.queue.backoff_q, *world.queue.error_backoff_q}
    queued |= set(world.queue.unschedulable_pods)
    return not any(uid in queued for uid, attempt in world.attempts.items() if not attempt.done)


def inv_no_lost_wake_up(world: QueueWorld) -> bool:
    """No pod waits in unschedulablePods although a cluster event since its attempt started is one
    its rejector plugins' hints say may make it schedulable (:func:`spec.queue.queue.is_pod_worth_requeuing`).

    Such a pod would wait for another event or the 5-minute flush: the queue lost its wake-up.
    With QueueingHints on the events recorded in flight prevent it. With them off the
    ``moveRequestCycle`` rule prevents it only when the failed pod is handed back with the cycle
    its attempt started in. KNOWN VIOLATION: Kubernetes' failure handler passes the cycle current
    at the failure (``SchedulingQueue.SchedulingCycle()``), so a pod rejected at Permit in its
    binding cycle after another pod was popped misses a move request made in between.
    """
    queue = world.queue
    elsewhere = {*queue.active_q, *queue.backoff_q, *queue.error_backoff_q}  # it leaves unschedulablePods with them
    for uid, pinfo in queue.unschedulable_pods.items():
        if uid not in elsewhere and any(_wakes(queue.config, pinfo, e) for e in world.since_pop.get(uid, ())):
            return False
    return True


def _wakes(config: QueueConfig, pinfo: QueuedPod, event: RecordedEvent) -> bool:
    return is_pod_worth_requeuing(config, pinfo, event) is not QueueingStrategy.QUEUE_SKIP


# ============================================================================================
# Hand-backs
# ============================================================================================


def trans_backoff_grows_with_failures(config: QueueConfig, before: QueuedPod, after: QueuedPod) -> bool:
    """A hand-back counts the failure, and backs the pod off at least as long as the last failure of the
    same kind and at most ``pod_max_backoff``: the backoff is monotone in failures and bounded.

    An error adds to the consecutive errors, a rejection to the unschedulable count (ending a run of errors).
    An error after rejections backs off from its own count, so shorter: that is by design (PR #128748).
    """
    if after.consecutive_errors_count > 0:
        counted = (after.consecutive_errors_count, after.unschedulable_count) == (
            before.consecutive_errors_count + 1, before.unschedulable_count
        )
    else:
        counted = after.unschedulable_count == before.unschedulable_count + 1
    same_kind = (after.consecutive_errors_count > 0) == (before.consecutive_errors_count > 0)
    d_before, d_after = (
        calculate_backoff_duration(
            backoff_count(p.unschedulable_count, p.consecutive_errors_count), config.pod_initial_backoff,
            config.pod_max_backoff,
        )
        for p in (before, after)
    )
    return counted and d_after <= config.pod_max_backoff and (not same_kind or d_after >= d_before)


QueueInvariant = Callable[[SchedulingQueue], bool]
WorldInvariant = Callable[[QueueWorld], bool]

def inv_queue_nominations_consistent(queue: SchedulingQueue) -> bool:
    """The queue's nominator (:mod:`spec.queue.nominator`) holds each pod once, under one node
    (:func:`nominator_consistent`): ``addNominatedPodUnlocked`` deletes a pod's old entry before adding it, so a
    pod's room is never held on two nodes, nor twice on one."""
    return nominator_consistent(queue.nominator)


QUEUE_INVARIANTS: Final[tuple[QueueInvariant, ...]] = (
    inv_pod_in_one_sub_queue,
    inv_in_flight_pods_not_queued,
    inv_in_flight_events_pruned,
    inv_rejector_plugins_match_sub_queue,
    inv_backoff_expiry_bounded,
    inv_unschedulable_pods_leave_in_time,
    inv_move_request_cycle_not_ahead,
    inv_queue_nominations_consistent,
)
"""Invariants of the queue alone."""

WORLD_INVARIANTS: Final[tuple[WorldInvariant, ...]] = (
    inv_popped_pod_in_flight_until_done,
    inv_attempting_pod_not_queued,
    inv_no_lost_wake_up,
)
"""Invariants of the queue with its callers' attempts."""

KNOWN_VIOLATIONS: Final = {
    inv_pod_in_one_sub_queue.__name__: "SchedulerPopFromBackoffQ off: Update requeues past backoffQ",
    inv_attempting_pod_not_queued.__name__: "QueueingHints off: Update re-adds a pod in its scheduling cycle",
    inv_no_lost_wake_up.__name__: "QueueingHints off: the failure handler passes the current cycle; "
    "SchedulerPopFromBackoffQ off: Delete leaves a pod placed twice in unschedulablePods",
}
"""The invariants Kubernetes breaks under a setting it allows, and the setting."""


def nominator_consistent(nominator: Nominator) -> bool:
    """The two maps describe the same (pod, node) pairs, each pod once, and no node has an empty list."""
    pairs = [(uid, node) for node, uids in nominator.nominated_pods.items() for uid in uids]
    return (
        all(nominator.nominated_pods.values())
        and len(pairs) == len({uid for uid, _ in pairs})
        and dict(pairs) == dict(nominator.pod_to_node.items())
    )
