"""Observed behaviours of a queue-area step: which row of the scheduling queue's pod-place table it took.

:func:`queue_step_behaviours` compares where every pod is before and after the step
(:func:`spec.queue.lifecycle.pod_place`)
and names each change of place by its row of :data:`spec.queue.lifecycle.QUEUE_POD_TRANSITIONS`
(``queue.<operation>.<from>_to_<to>``; a change of place no row names, as calls outside the scheduler's contract
make, is no behaviour); a hand-back the queue refuses, and an event recorded for the pods in flight,
are behaviours of their own.
"""

from __future__ import annotations

from typing import Final

from spec.queue.lifecycle import (
    FLUSH_BACKOFF,
    FLUSH_LEFTOVER,
    HAND_BACK,
    MOVE,
    QUEUE_POD_TRANSITIONS,
    PodPlace,
    pod_place,
)
from spec.queue.operations import (
    QueueActivate,
    QueueAdd,
    QueueAddUnschedulable,
    QueueClose,
    QueueDelete,
    QueueDone,
    QueueFlushBackoff,
    QueueFlushUnschedulable,
    QueueMoveAll,
    QueueOperation,
    QueueOutcome,
    QueuePop,
    QueueRunFor,
    QueueStepClock,
    QueueUpdate,
    QueueWorld,
)
from spec.queue.state import RecordedEvent

SHORT: Final = {
    "add": "add", "pop": "pop", "done": "done", "close": "close", HAND_BACK: "hand_back", MOVE: "move",
    "activate": "activate", "update": "update", "delete": "delete", FLUSH_BACKOFF: "flush_backoff",
    FLUSH_LEFTOVER: "flush_leftover",
}  # fmt: skip
"""The table's operation names, shortened for behaviour names (``bound`` is the scheduler's, never a queue call)."""

HAND_BACK_REFUSED: Final = "queue.hand_back.refused"
EVENT_RECORDED: Final = "queue.in_flight.event_recorded"
GATED: Final = "queue.pre_enqueue.gated"
"""A PreEnqueue plugin (SchedulingGates) rejected a pod: it waits in unschedulablePods, gated (spec/queue/gates.py)."""
UNGATED: Final = "queue.pre_enqueue.ungated"
"""A gated pod passed PreEnqueue and left unschedulablePods."""


def place_behaviour(operation: str, source: PodPlace, target: PodPlace) -> str:
    """The behaviour name of one row of the pod-place table."""
    return f"queue.{SHORT[operation]}.{source.value.lower()}_to_{target.value.lower()}"


def _operation(op: QueueOperation, source: PodPlace) -> str | None:
    match op:
        case QueueAdd():
            return "add"
        case QueuePop():
            return "pop"
        case QueueDone():
            return "done"
        case QueueClose():
            return "close"
        case QueueAddUnschedulable():
            return HAND_BACK
        case QueueMoveAll():
            return MOVE
        case QueueActivate():
            return "activate"
        case QueueUpdate():
            return "update"
        case QueueDelete():
            return "delete"
        case QueueFlushBackoff() | QueueFlushUnschedulable() | QueueRunFor() | QueueStepClock():
            return FLUSH_BACKOFF if source is PodPlace.BACKOFF else FLUSH_LEFTOVER
    return None


def _table_names() -> frozenset[str]:
    return frozenset(
        f"queue.{SHORT[r.operation]}.{r.source.value.lower()}_to_{r.target.value.lower()}"
        for r in QUEUE_POD_TRANSITIONS
        if r.operation in SHORT
    )


def queue_step_behaviours(before: QueueWorld, op: QueueOperation, after: QueueWorld, outcome: QueueOutcome) -> set[str]:
    """Every behaviour of the inventory that the queue step ``op`` exercised."""
    tags = set()
    uids = {*before.attempts, *after.attempts}
    for world in (before, after):
        queue = world.queue
        uids |= {*queue.active_q, *queue.backoff_q, *queue.error_backoff_q, *queue.unschedulable_pods}
    for uid in sorted(uids):
        source, target = pod_place(before, uid), pod_place(after, uid)
        operation = _operation(op, source)
        if source != target and operation is not None and operation in SHORT:
            name = place_behaviour(operation, source, target)
            if name in TABLE_NAMES:  # calls outside the scheduler's contract (an Add of a pod in flight) are not rows
                tags.add(name)
    if outcome.error is not None:
        tags.add(HAND_BACK_REFUSED)
    gated_before = {uid for uid, p in before.queue.unschedulable_pods.items() if p.gating_plugin}
    gated_after = {uid for uid, p in after.queue.unschedulable_pods.items() if p.gating_plugin}
    if gated_after - gated_before:
        tags.add(GATED)
    if any(uid not in after.queue.unschedulable_pods and pod_place(after, uid) is not PodPlace.ABSENT
           for uid in gated_before):
        tags.add(UNGATED)
    recorded_before = sum(isinstance(e, RecordedEvent) for e in before.queue.in_flight_events)
    if sum(isinstance(e, RecordedEvent) for e in after.queue.in_flight_events) > recorded_before:
        tags.add(EVENT_RECORDED)
    return tags


TABLE_NAMES: Final = _table_names()
"""The behaviour names of the table's rows."""
