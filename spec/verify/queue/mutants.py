"""Broken scheduling queues the model checker must catch: one per queue property.

Each :class:`Mutant` replaces :func:`spec.queue.operations.apply_queue_operation` by a step that does what the
spec does except for one rule, names the universe it is explored in and the property whose shortest violation
:mod:`spec.verify.queue.system` must find. They are how the properties are shown to be able to fail
(``tests/verify/queue/test_system.py``, ``ksspec check --system queue --mutant NAME``), the way the proofs keep a
broken transition each. Nothing else uses them.

The first is the one the spec is built around: with QueueingHints off, a failed pod goes to backoffQ only if a
move request came *at or after* the cycle its attempt started in; a rule that asks for *after* (``>``) loses the
wake-up of an event that arrived during the attempt's own cycle.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Final

from spec.frozenmap import FrozenMap
from spec.quantities import SECOND
from spec.queue import queue as q
from spec.queue.invariants import (
    inv_attempting_pod_not_queued,
    inv_backoff_expiry_bounded,
    inv_in_flight_events_pruned,
    inv_move_request_cycle_not_ahead,
    inv_no_lost_wake_up,
    inv_pod_in_one_sub_queue,
    inv_popped_pod_in_flight_until_done,
    inv_rejector_plugins_match_sub_queue,
    inv_unschedulable_pods_leave_in_time,
    trans_backoff_grows_with_failures,
)
from spec.queue.operations import (
    QueueActivate,
    QueueAddUnschedulable,
    QueueDone,
    QueueMoveAll,
    QueueOperation,
    QueuePop,
    QueueRunFor,
    QueueUpdate,
    QueueWorld,
    apply_queue_operation,
)
from spec.queue.state import PodPopped, SchedulingQueue
from spec.verify.queue.universe import QueueUniverse

Step = Callable[[QueueWorld, QueueOperation], QueueWorld]


def _spec(world: QueueWorld, op: QueueOperation) -> QueueWorld:
    return apply_queue_operation(world, op)[0]


def _with_queue(world: QueueWorld, queue: SchedulingQueue) -> QueueWorld:
    return replace(world, queue=queue)


def strict_move_request_cycle(world: QueueWorld, op: QueueOperation) -> QueueWorld:
    """QueueingHints off: a hand-back goes to backoffQ only if the last move request came *after* the attempt's
    cycle (``moveRequestCycle > podSchedulingCycle``), not at it."""
    after = _spec(world, op)
    queue = world.queue
    rejected = isinstance(op, QueueAddUnschedulable) and bool(op.unschedulable_plugins | op.pending_plugins)
    if isinstance(op, QueueAddUnschedulable) and rejected and not queue.config.queueing_hints:
        cycle = queue.scheduling_cycle if op.cycle is None else op.cycle
        uid = op.pod.uid
        if queue.move_request_cycle == cycle and uid in after.queue.backoff_q:
            pinfo = after.queue.backoff_q[uid]
            moved = replace(after.queue, backoff_q=after.queue.backoff_q.remove(uid),
                            unschedulable_pods=after.queue.unschedulable_pods.set(uid, pinfo))
            return _with_queue(after, moved)
    return after


def events_not_recorded(world: QueueWorld, op: QueueOperation) -> QueueWorld:
    """QueueingHints on: a move request is not recorded for the pods in flight."""
    after = _spec(world, op)
    if isinstance(op, QueueMoveAll):
        return _with_queue(after, replace(after.queue, in_flight_events=world.queue.in_flight_events))
    return after


def pop_not_tracked(world: QueueWorld, op: QueueOperation) -> QueueWorld:
    """A popped pod is not put in flight."""
    after = _spec(world, op)
    if isinstance(op, QueuePop):
        return _with_queue(after, replace(after.queue, in_flight_pods=world.queue.in_flight_pods,
                                          in_flight_events=world.queue.in_flight_events))
    return after


def done_keeps_marker(world: QueueWorld, op: QueueOperation) -> QueueWorld:
    """``Done`` forgets the pod but leaves its marker in the in-flight list."""
    after = _spec(world, op)
    if isinstance(op, QueueDone) and op.uid in world.queue.in_flight_pods:
        return _with_queue(after, replace(after.queue, in_flight_events=(*after.queue.in_flight_events,
                                                                          PodPopped(op.uid))))
    return after


def requeue_keeps_unschedulable(world: QueueWorld, op: QueueOperation) -> QueueWorld:
    """A move request requeues a pod without taking it out of unschedulablePods."""
    after = _spec(world, op)
    if isinstance(op, QueueMoveAll):
        left = {u: p for u, p in world.queue.unschedulable_pods.items() if u not in after.queue.unschedulable_pods}
        kept = FrozenMap({**after.queue.unschedulable_pods, **left})
        return _with_queue(after, replace(after.queue, unschedulable_pods=kept))
    return after


def errors_to_backoff_heap(world: QueueWorld, op: QueueOperation) -> QueueWorld:
    """A pod whose attempt failed with an error goes to podBackoffQ, not podErrorBackoffQ."""
    after = _spec(world, op)
    errors = after.queue.error_backoff_q
    if isinstance(op, QueueAddUnschedulable) and op.pod.uid in errors:
        uid = op.pod.uid
        moved = replace(after.queue, error_backoff_q=errors.remove(uid), backoff_q=after.queue.backoff_q.set(uid,
                                                                                                          errors[uid]))
        return _with_queue(after, moved)
    return after


def stamp_in_future(world: QueueWorld, op: QueueOperation) -> QueueWorld:
    """A hand-back stamps the pod a minute ahead of the clock."""
    if isinstance(op, QueueAddUnschedulable):
        ahead = replace(world.queue, now=world.queue.now + 60 * SECOND)
        after = _spec(_with_queue(world, ahead), op)
        return _with_queue(after, replace(after.queue, now=world.queue.now))
    return _spec(world, op)


def leftover_flush_skipped(world: QueueWorld, op: QueueOperation) -> QueueWorld:
    """Time passes without the leftover flush."""
    if isinstance(op, QueueRunFor):
        queue = world.queue
        end = queue.now + op.elapsed
        while queue.now < end:
            step = min(end - queue.now, SECOND)
            queue = q.flush_backoff_q_completed(q.step_clock(queue, step))
        return _with_queue(world, queue)
    return _spec(world, op)


def failure_not_counted(world: QueueWorld, op: QueueOperation) -> QueueWorld:
    """A hand-back after a rejection does not count the rejection."""
    after = _spec(world, op)
    uid = op.pod.uid if isinstance(op, QueueAddUnschedulable) else ""
    pods = after.queue.unschedulable_pods
    if isinstance(op, QueueAddUnschedulable) and uid in pods and pods[uid].unschedulable_count > 1:
        pinfo = replace(pods[uid], unschedulable_count=pods[uid].unschedulable_count - 1)
        return _with_queue(after, replace(after.queue, unschedulable_pods=pods.set(uid, pinfo)))
    return after


def update_requeues_in_flight(world: QueueWorld, op: QueueOperation) -> QueueWorld:
    """QueueingHints on: an update of a pod in flight adds it to activeQ instead of recording the update."""
    if isinstance(op, QueueUpdate) and op.new.uid in world.queue.in_flight_pods:
        off = replace(world.queue, config=replace(world.queue.config, queueing_hints=False))
        queue = q.update(off, op.old, op.new)
        return _with_queue(world, replace(queue, config=world.queue.config))
    return _spec(world, op)


def move_request_ahead(world: QueueWorld, op: QueueOperation) -> QueueWorld:
    """``Activate`` of a pod it cannot find sets ``moveRequestCycle`` one cycle ahead."""
    after = _spec(world, op)
    if isinstance(op, QueueActivate) and after.queue.move_request_cycle == after.queue.scheduling_cycle:
        return _with_queue(after, replace(after.queue, move_request_cycle=after.queue.scheduling_cycle + 1))
    return after


@dataclass(frozen=True)
class Mutant:
    """A broken step, the universe to explore it in, and the property the checker must find broken."""

    name: str
    step: Step
    property: str
    universe: QueueUniverse
    description: str


def _name(function: Callable[..., object]) -> str:
    return function.__name__.replace("_", "-")


SMALL: Final = QueueUniverse(pods=2, pops=1, events=1, activations=0)
HINTS_OFF: Final = replace(SMALL, queueing_hints=False, cycle_rule="attempt")
ONE_POD: Final = QueueUniverse(pods=1, pops=3, events=1, activations=1)

MUTANTS: Final = {
    m.name: m
    for m in (
        Mutant(_name(strict_move_request_cycle), strict_move_request_cycle, inv_no_lost_wake_up.__name__, HINTS_OFF,
               strict_move_request_cycle.__doc__ or ""),
        Mutant(_name(events_not_recorded), events_not_recorded, inv_no_lost_wake_up.__name__, SMALL,
               events_not_recorded.__doc__ or ""),
        Mutant(_name(pop_not_tracked), pop_not_tracked, inv_popped_pod_in_flight_until_done.__name__, SMALL,
               pop_not_tracked.__doc__ or ""),
        Mutant(_name(done_keeps_marker), done_keeps_marker, inv_in_flight_events_pruned.__name__, SMALL,
               done_keeps_marker.__doc__ or ""),
        Mutant(_name(requeue_keeps_unschedulable), requeue_keeps_unschedulable, inv_pod_in_one_sub_queue.__name__,
               SMALL, requeue_keeps_unschedulable.__doc__ or ""),
        Mutant(_name(errors_to_backoff_heap), errors_to_backoff_heap, inv_rejector_plugins_match_sub_queue.__name__,
               SMALL, errors_to_backoff_heap.__doc__ or ""),
        Mutant(_name(stamp_in_future), stamp_in_future, inv_backoff_expiry_bounded.__name__, SMALL,
               stamp_in_future.__doc__ or ""),
        Mutant(_name(leftover_flush_skipped), leftover_flush_skipped, inv_unschedulable_pods_leave_in_time.__name__,
               SMALL, leftover_flush_skipped.__doc__ or ""),
        Mutant(_name(failure_not_counted), failure_not_counted, trans_backoff_grows_with_failures.__name__, ONE_POD,
               failure_not_counted.__doc__ or ""),
        Mutant(_name(update_requeues_in_flight), update_requeues_in_flight, inv_attempting_pod_not_queued.__name__,
               SMALL, update_requeues_in_flight.__doc__ or ""),
        Mutant(_name(move_request_ahead), move_request_ahead, inv_move_request_cycle_not_ahead.__name__, ONE_POD,
               move_request_ahead.__doc__ or ""),
    )
}
"""Every mutant by its command-line name."""
