"""Call-queue operations as data, and one step function, for tests, the model checker and vectors."""

from __future__ import annotations

from dataclasses import dataclass

from spec.dispatcher import call_queue
from spec.dispatcher.api_calls import APICall, PodStatus
from spec.dispatcher.call_queue import AddError, CallQueue, can_pop


@dataclass(frozen=True)
class AddCall:
    """:func:`spec.dispatcher.call_queue.add`."""

    call: APICall


@dataclass(frozen=True)
class PopCall:
    """:func:`spec.dispatcher.call_queue.pop`: the run loop takes the next call for execution."""


@dataclass(frozen=True)
class FinishCall:
    """:func:`spec.dispatcher.call_queue.finish`: the execution for ``uid`` returned ``error`` (None: success)."""

    uid: str
    error: str | None = None


@dataclass(frozen=True)
class SyncObject:
    """:func:`spec.dispatcher.call_queue.sync_object`."""

    uid: str
    status: PodStatus


@dataclass(frozen=True)
class CloseDispatcher:
    """:func:`spec.dispatcher.call_queue.close`."""


CallQueueOperation = AddCall | PopCall | FinishCall | SyncObject | CloseDispatcher


def is_enabled(queue: CallQueue, op: CallQueueOperation) -> bool:
    """Whether ``op`` can happen now: pops need :func:`can_pop`, finishes a call in flight."""
    if isinstance(op, PopCall):
        return can_pop(queue)
    if isinstance(op, FinishCall):
        return op.uid in queue.in_flight
    return True


def apply_call_queue(queue: CallQueue, op: CallQueueOperation) -> tuple[CallQueue, AddError | None]:
    """Apply an enabled ``op``; returns the queue and, for an add, its error. Fails with ``ValueError``
    if ``op`` is not enabled."""
    if not is_enabled(queue, op):
        raise ValueError(f"{op} is not enabled")
    match op:
        case AddCall(call):
            return call_queue.add(queue, call)
        case PopCall():
            return call_queue.pop(queue)[0], None
        case FinishCall(uid, error):
            return call_queue.finish(queue, uid, error), None
        case SyncObject(uid, status):
            return call_queue.sync_object(queue, uid, status)[0], None
        case CloseDispatcher():
            return call_queue.close(queue), None
    raise TypeError(f"not a call-queue operation: {op!r}")
