"""The API dispatcher's call queue: one call per object, merged, replaced or skipped, executed FIFO.

This is ``callQueue`` (pkg/scheduler/backend/api_dispatcher/call_queue.go: v1.34.0, read at commit
c4b5de20, digest §A.3-A.6; v1.35.0 adds PR #135180, profile flag ``dispatcher_waits_behind_in_flight``;
both checked against Kubernetes' own code by examples/kubernetes-adapter) and the part of
``APIDispatcher`` that drives it. The
scheduler adds a call (a binding, a status patch) and goes on; one loop pops calls in FIFO order
and executes each in its own goroutine; when a call finishes it is *finalized*, and its caller
is told the result on its ``OnFinish`` channel.

Every caller is identified by the ``call_id`` its ``Add`` was given. What a caller is told is
recorded, in order, in ``sends``. In-tree callers use channels of capacity 1 and read once, so
a caller *observes* the first value sent to it; a later send is dropped or never read.

Transitions: :func:`add`, :func:`pop`, :func:`finish`, :func:`sync_object`, :func:`close`.
:func:`can_pop` says when the run loop may pop.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Final

from spec.dispatcher.api_calls import (
    RELEVANCES,
    APICall,
    MergeError,
    PodStatus,
    PodStatusPatchCall,
    is_less_relevant,
    is_no_op,
    merge_calls,
    sync_call,
)
from spec.frozenmap import FrozenMap
from spec.valuetypes import cached_hash, replace
from spec.versions import DEFAULT_PROFILE, VersionProfile

# ============================================================================================
# Outcomes told to callers
# ============================================================================================


class OutcomeKind(StrEnum):
    """How a caller's call ended, as ``errors.Is`` would classify the value it was sent."""

    SUCCESS = "Success"
    """Executed; the API request succeeded (or was not needed)."""
    EXECUTION_ERROR = "ExecutionError"
    """Executed; the API request failed."""
    SKIPPED = "Skipped"
    """``ErrCallSkipped``: never executed, nothing was lost (less relevant, or a no-op)."""
    OVERWRITTEN = "Overwritten"
    """``ErrCallOverwritten``: replaced by, or merged into, a newer call."""
    MERGE_FAILED = "MergeFailed"
    """Unexpected: ``Merge`` refused the old call."""
    CLOSED = "Closed"
    """Unexpected: the dispatcher was closed (profile ``dispatcher_close_notifies``)."""


SKIPPED_LESS_RELEVANT: Final = "a more relevant call is already enqueued for this object: call skipped"
OVERWRITTEN_BY_MORE_RELEVANT: Final = "a more relevant call was enqueued for this object: call overwritten"
OVERWRITTEN_BY_SAME_TYPE: Final = "a call of the same type was enqueued for this object: call overwritten"
SKIPPED_NO_OP: Final = "call does not need to be executed because it has no effect: call skipped"
SKIPPED_NO_OP_AFTER_SYNC: Final = "call does not need to be executed because after sync it has no effect: call skipped"
DISPATCHER_CLOSED: Final = "api dispatcher is closed"


@cached_hash
@dataclass(frozen=True)
class Notification:
    """One value sent to a caller's ``OnFinish`` channel."""

    call_id: int
    kind: OutcomeKind
    message: str = ""
    """The error text; empty for success."""


@dataclass(frozen=True)
class AddError:
    """The error ``Add`` returns to its caller (it is also sent on ``OnFinish``)."""

    kind: OutcomeKind
    message: str


# ============================================================================================
# State
# ============================================================================================


@cached_hash
@dataclass(frozen=True)
class QueuedCall:
    """``queuedAPICall``: a call and the identity of the ``Add`` that brought it."""

    call: APICall
    call_id: int


@cached_hash
@dataclass(frozen=True)
class CallQueue:
    """``callQueue`` plus the dispatcher's in-flight executions.

    Field invariants (:mod:`spec.dispatcher.invariants`): ``calls`` has exactly the UIDs in
    ``fifo`` and in ``in_flight``; ``fifo`` holds each UID once and none that is in flight.
    """

    profile: VersionProfile = DEFAULT_PROFILE
    relevances: FrozenMap[str, int] = RELEVANCES
    calls: FrozenMap[str, QueuedCall] = field(default_factory=FrozenMap)
    """``apiCalls``: the one call kept per UID, pending or in flight (or waiting behind one)."""
    fifo: tuple[str, ...] = ()
    """``callsQueue``: UIDs of pending calls in execution order."""
    in_flight: FrozenMap[str, QueuedCall] = field(default_factory=FrozenMap)
    """Per UID in ``inFlightEntities``, the call its goroutine is executing."""
    next_call_id: int = 0
    """``callIDCounter``; every ``Add`` before close takes one, even a refused one."""
    closed: bool = False
    sends: tuple[Notification, ...] = ()
    """Every value sent to an ``OnFinish`` channel, in order."""
    callers: int = 0
    """How many ``Add`` calls were made; caller ``i`` is the ``i``-th (its ``call_id`` when it got one)."""


def new_call_queue(profile: VersionProfile = DEFAULT_PROFILE) -> CallQueue:
    """``newCallQueue`` with the in-tree relevances.

    Kubernetes: `newCallQueue` (pkg/scheduler/backend/api_dispatcher/call_queue.go)
    """
    return CallQueue(profile=profile)


def _send(queue: CallQueue, call_id: int, kind: OutcomeKind, message: str = "") -> CallQueue:
    """``sendOnFinish``: record a value sent to caller ``call_id``."""
    return replace(queue, sends=(*queue.sends, Notification(call_id, kind, message)))


def _remove_pending(queue: CallQueue, uid: str) -> CallQueue:
    """``removePending``: forget the UID's call and take it out of the FIFO if it is not in flight."""
    if uid not in queue.calls:
        return queue
    fifo = queue.fifo if uid in queue.in_flight else tuple(u for u in queue.fifo if u != uid)
    return replace(queue, calls=queue.calls.remove(uid), fifo=fifo)


# ============================================================================================
# Add
# ============================================================================================


def _merge(queue: CallQueue, old: QueuedCall, new: QueuedCall) -> tuple[CallQueue, QueuedCall, AddError | None]:
    """``merge``: resolve a new call against the UID's tracked call (digest §A.4 step 3).

    Returns the queue, the (possibly merged) new call, and the error that ends ``Add`` if any.
    """
    relevances = queue.relevances
    if is_less_relevant(relevances, old.call.call_type, new.call.call_type):
        error = AddError(OutcomeKind.SKIPPED, SKIPPED_LESS_RELEVANT)
        return _send(queue, new.call_id, error.kind, error.message), new, error
    if old.call.call_type != new.call.call_type:
        if queue.profile.dispatcher_waits_behind_in_flight and old.call.uid in queue.in_flight:
            return queue, new, None
        return _send(queue, old.call_id, OutcomeKind.OVERWRITTEN, OVERWRITTEN_BY_MORE_RELEVANT), new, None
    try:
        merged = replace(new, call=merge_calls(new.call, old.call))
    except MergeError as refused:
        error = AddError(OutcomeKind.MERGE_FAILED, f"failed to merge API calls: {refused}")
        return _send(queue, new.call_id, error.kind, error.message), new, error
    return _send(queue, old.call_id, OutcomeKind.OVERWRITTEN, OVERWRITTEN_BY_SAME_TYPE), merged, None


def _enqueue(queue: CallQueue, new: QueuedCall, old_present: bool) -> tuple[CallQueue, AddError | None]:
    """``enqueue``: skip a no-op (unless its UID is in flight), else keep the call.

    A call replacing a tracked one keeps that one's FIFO place, or, if that one is in flight,
    waits to be queued when it is finalized. A new UID joins the FIFO's tail.
    """
    uid = new.call.uid
    if is_no_op(new.call) and uid not in queue.in_flight:
        if old_present:
            queue = _remove_pending(queue, uid)
        error = AddError(OutcomeKind.SKIPPED, SKIPPED_NO_OP)
        return _send(queue, new.call_id, error.kind, error.message), error
    queue = replace(queue, calls=queue.calls.set(uid, new))
    if not old_present:
        queue = replace(queue, fifo=(*queue.fifo, uid))
    return queue, None


def add(queue: CallQueue, call: APICall) -> tuple[CallQueue, AddError | None]:
    """``APIDispatcher.Add``: hand a call to the dispatcher; returns the queue and ``Add``'s error.

    The caller is the next ``callers`` number. With no call tracked for the UID the call joins
    the FIFO. Otherwise: a less relevant call is skipped; a call of another type replaces the
    old one, which is told it was overwritten (in v1.34 even while it executes; from v1.35, PR
    #135180, a call of another type waits behind an executing one, which is not told); a call
    of the same type is merged with the old one, which is told it was overwritten. A call that is then a no-op is
    skipped, and an old pending call goes with it. The error returned is also sent to the
    caller. After close, v1.35 keeps the call but never runs it; profile
    ``dispatcher_close_notifies`` refuses it with "api dispatcher is closed".

    Kubernetes: `APIDispatcher.Add` (pkg/scheduler/backend/api_dispatcher/api_dispatcher.go)
    Kubernetes: `callQueue.add` (pkg/scheduler/backend/api_dispatcher/call_queue.go)
    """
    caller = queue.callers
    queue = replace(queue, callers=caller + 1)
    if queue.closed and queue.profile.dispatcher_close_notifies:
        error = AddError(OutcomeKind.CLOSED, DISPATCHER_CLOSED)
        return _send(queue, caller, error.kind, error.message), error
    new = QueuedCall(call, caller)
    queue = replace(queue, next_call_id=queue.next_call_id + 1)
    old = queue.calls.get(call.uid)
    if old is not None:
        queue, new, refusal = _merge(queue, old, new)
        if refusal is not None:
            return queue, refusal
    return _enqueue(queue, new, old is not None)


# ============================================================================================
# Pop, finish
# ============================================================================================


def can_pop(queue: CallQueue) -> bool:
    """Whether the run loop pops now: a pending call exists, the dispatcher is open, and (v1.34.0)
    fewer calls than the goroutine limit are executing.

    After close the loop exits at its next context check (a pop racing with close may still hand
    out one call in Kubernetes; the spec takes the loop as stopped).

    Kubernetes: `APIDispatcher.Run` (pkg/scheduler/backend/api_dispatcher/api_dispatcher.go)
    """
    limit = queue.profile.dispatcher_max_in_flight
    return bool(queue.fifo) and not queue.closed and (limit is None or len(queue.in_flight) < limit)


def pop(queue: CallQueue) -> tuple[CallQueue, QueuedCall]:
    """``pop``: take the FIFO's head for execution; its UID is now in flight.

    A status patch is marked as executing (``Sync`` no longer refreshes its base status).
    Fails with ``ValueError`` when :func:`can_pop` is false (Kubernetes' pop would block).

    Kubernetes: `callQueue.pop` (pkg/scheduler/backend/api_dispatcher/call_queue.go)
    """
    if not can_pop(queue):
        raise ValueError("nothing to pop: the FIFO is empty, the dispatcher is closed, or the limit is reached")
    uid, rest = queue.fifo[0], queue.fifo[1:]
    popped = queue.calls[uid]
    if isinstance(popped.call, PodStatusPatchCall):
        popped = replace(popped, call=replace(popped.call, executed=True))
    calls = queue.calls.set(uid, popped)
    return replace(queue, fifo=rest, calls=calls, in_flight=queue.in_flight.set(uid, popped)), popped


def finish(queue: CallQueue, uid: str, error: str | None = None) -> CallQueue:
    """The execution of ``uid``'s in-flight call returned ``error`` (None for success).

    ``finalize`` first: if the tracked call is still this one it is forgotten, else the newer call
    joins the FIFO's tail. Then the caller is told the result. Fails with ``ValueError`` if no call
    for ``uid`` is in flight.

    Kubernetes: `callQueue.finalize` (pkg/scheduler/backend/api_dispatcher/call_queue.go)
    Kubernetes: `APIDispatcher.Run` (pkg/scheduler/backend/api_dispatcher/api_dispatcher.go)
    """
    running = queue.in_flight.get(uid)
    if running is None:
        raise ValueError(f"no call for object {uid} is in flight")
    current = queue.calls[uid]
    if current.call_id == running.call_id:
        queue = replace(queue, calls=queue.calls.remove(uid))
    else:
        queue = replace(queue, fifo=(*queue.fifo, uid))
    queue = replace(queue, in_flight=queue.in_flight.remove(uid))
    if error is None:
        return _send(queue, running.call_id, OutcomeKind.SUCCESS)
    return _send(queue, running.call_id, OutcomeKind.EXECUTION_ERROR, error)


# ============================================================================================
# Sync, close
# ============================================================================================


def sync_object(queue: CallQueue, uid: str, status: PodStatus) -> tuple[CallQueue, PodStatus]:
    """``SyncObject``: the informer delivered the object ``uid`` with ``status``.

    The tracked call syncs with it; if it becomes a no-op and is not in flight, it is dropped and
    its caller told it was skipped. Returns the queue and the status with the call's intent
    applied (v1.35's event handlers discard it).

    Kubernetes: `APIDispatcher.SyncObject` (pkg/scheduler/backend/api_dispatcher/api_dispatcher.go)
    Kubernetes: `callQueue.syncObject` (pkg/scheduler/backend/api_dispatcher/call_queue.go)
    """
    tracked = queue.calls.get(uid)
    if tracked is None:
        return queue, status
    synced_call, synced_status = sync_call(tracked.call, status)
    queue = replace(queue, calls=queue.calls.set(uid, replace(tracked, call=synced_call)))
    if is_no_op(synced_call) and uid not in queue.in_flight:
        queue = _remove_pending(queue, uid)
        queue = _send(queue, tracked.call_id, OutcomeKind.SKIPPED, SKIPPED_NO_OP_AFTER_SYNC)
    return queue, synced_status


def close(queue: CallQueue) -> CallQueue:
    """``Close``: stop the run loop; executing calls continue with a cancelled context.

    v1.35 tells no one: pending calls, and calls added later, never get an outcome. With
    ``dispatcher_close_notifies`` every tracked call is told the dispatcher is closed, once (Go
    visits them in map order; the spec in order of call id). A call executing while a newer one
    waits behind it is not tracked any more, so it is told only its own result.

    Kubernetes: `APIDispatcher.Close` (pkg/scheduler/backend/api_dispatcher/api_dispatcher.go)
    Kubernetes: `callQueue.close` (pkg/scheduler/backend/api_dispatcher/call_queue.go)
    """
    if queue.closed:
        return queue
    if queue.profile.dispatcher_close_notifies:
        for tracked in sorted(queue.calls.values(), key=lambda q: q.call_id):
            queue = _send(queue, tracked.call_id, OutcomeKind.CLOSED, DISPATCHER_CLOSED)
    return replace(queue, closed=True)
