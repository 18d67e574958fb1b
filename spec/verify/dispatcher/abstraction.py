"""From the executable call queue to the abstract one: queues, operations, and a step comparison.

:func:`abstract_queue` maps a concrete :class:`~spec.dispatcher.call_queue.CallQueue` to the
:class:`~spec.verify.dispatcher.symbolic.QueueState` of plain values the proofs quantify over;
:func:`abstract_queue_operation` maps an operation to its encoding's arguments, computing with
:mod:`spec.dispatcher.api_calls` the decisions the abstraction leaves free (no-op, merge refused).
:func:`queue_disagreements` runs the encoding on the abstraction of a pre-state and compares it
with what the spec did: that ties the dispatcher proofs to the spec.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from spec.dispatcher.api_calls import (
    POD_BINDING,
    POD_STATUS_PATCH,
    MergeError,
    is_no_op,
    merge_calls,
    relevance,
    sync_call,
)
from spec.dispatcher.call_queue import AddError, CallQueue
from spec.dispatcher.operations import AddCall, CallQueueOperation, CloseDispatcher, FinishCall, PopCall, SyncObject
from spec.verify.dispatcher.symbolic import QUEUE_INVARIANTS, DispatcherBounds, QueueState
from spec.verify.dispatcher.transitions import QUEUE_TRANSITIONS, QueueStep


@dataclass(frozen=True)
class QueueNaming:
    """Which UIDs and call types the abstract indices stand for."""

    uids: tuple[str, ...]
    call_types: tuple[str, ...] = (POD_STATUS_PATCH, POD_BINDING)

    def __post_init__(self) -> None:
        if len(set(self.uids)) != len(self.uids) or len(set(self.call_types)) != len(self.call_types):
            raise ValueError(f"UIDs and call types must be distinct, got {self.uids} and {self.call_types}")

    @property
    def bounds(self) -> DispatcherBounds:
        return DispatcherBounds(len(self.uids), len(self.call_types))


def queue_representable(queue: CallQueue, naming: QueueNaming) -> bool:
    """Every UID and call type the queue holds is in ``naming``, and calls are keyed by their UID."""
    tracked = (*queue.calls.items(), *queue.in_flight.items())
    return (
        all(uid in naming.uids and q.call.uid == uid for uid, q in tracked)
        and all(q.call.call_type in naming.call_types for _, q in tracked)
        and all(uid in naming.uids for uid in queue.fifo)
    )


def abstract_queue(queue: CallQueue, naming: QueueNaming) -> QueueState | None:
    """The abstract queue of ``queue``, or None if it is not :func:`queue_representable`."""
    if not queue_representable(queue, naming):
        return None
    profile = queue.profile
    kept = [queue.calls.get(uid) for uid in naming.uids]
    flying = [queue.in_flight.get(uid) for uid in naming.uids]
    ids = [n.call_id for n in queue.sends]
    return QueueState(
        relevance=tuple(relevance(queue.relevances, t) for t in naming.call_types),
        close_notifies=profile.dispatcher_close_notifies,
        waits_behind=profile.dispatcher_waits_behind_in_flight,
        has_limit=profile.dispatcher_max_in_flight is not None,
        limit=profile.dispatcher_max_in_flight or 0,
        kept=tuple(q is not None for q in kept),
        kept_type=tuple(naming.call_types.index(q.call.call_type) if q else 0 for q in kept),
        kept_id=tuple(q.call_id if q else 0 for q in kept),
        queued=tuple(queue.fifo.count(uid) for uid in naming.uids),
        flying=tuple(q is not None for q in flying),
        flying_type=tuple(naming.call_types.index(q.call.call_type) if q else 0 for q in flying),
        flying_id=tuple(q.call_id if q else 0 for q in flying),
        closed=queue.closed,
        callers=queue.callers,
        notified=bool(ids),
        min_notified=min(ids, default=0),
        max_notified=max(ids, default=0),
    )


def _add_is_no_op(queue: CallQueue, op: AddCall) -> tuple[bool, bool]:
    """Whether the call ``add`` would keep is a no-op, and whether ``Merge`` refuses, as ``_merge``
    decides them (merging only with an old call of the same type)."""
    old = queue.calls.get(op.call.uid)
    if old is None or old.call.call_type != op.call.call_type:
        return is_no_op(op.call), False
    try:
        return is_no_op(merge_calls(op.call, old.call)), False
    except MergeError:
        return is_no_op(op.call), True


def abstract_queue_operation(
    op: CallQueueOperation, naming: QueueNaming, queue: CallQueue
) -> tuple[str, dict[str, Any]] | None:
    """The encoding's name and arguments for ``op`` in ``queue``, or None if outside ``naming``
    (or a pop from an empty FIFO)."""
    match op:
        case AddCall(call):
            if call.uid not in naming.uids or call.call_type not in naming.call_types:
                return None
            noop, refused = _add_is_no_op(queue, op)
            args = {
                "uid": naming.uids.index(call.uid),
                "type": naming.call_types.index(call.call_type),
                "noop": noop,
                "merge_refused": refused,
            }
            return "AddCall", args
        case PopCall():
            if not queue.fifo or queue.fifo[0] not in naming.uids:
                return None
            return "PopCall", {"uid": naming.uids.index(queue.fifo[0])}
        case FinishCall(uid, _):
            return None if uid not in naming.uids else ("FinishCall", {"uid": naming.uids.index(uid)})
        case SyncObject(uid, status):
            if uid not in naming.uids:
                return None
            tracked = queue.calls.get(uid)
            noop = tracked is not None and is_no_op(sync_call(tracked.call, status)[0])
            return "SyncObject", {"uid": naming.uids.index(uid), "noop": noop}
        case CloseDispatcher():
            return "CloseDispatcher", {}


def encode_step(
    queue: CallQueue, op: CallQueueOperation, naming: QueueNaming
) -> tuple[QueueState, str, dict[str, Any], QueueStep] | None:
    """The abstract pre-state, encoding name, arguments and step of ``op`` on ``queue``, or None."""
    pre = abstract_queue(queue, naming)
    covered = abstract_queue_operation(op, naming, queue)
    if pre is None or covered is None:
        return None
    name, args = covered
    return pre, name, args, QUEUE_TRANSITIONS[name].apply(pre, args)


def queue_disagreements(
    before: CallQueue,
    op: CallQueueOperation,
    enabled: bool,
    error: AddError | None,
    after: CallQueue | None,
    naming: QueueNaming,
) -> list[str] | None:
    """Compare the encoding of ``op`` with the spec's step: same enabledness, no crash, same
    ``Add`` error status, same abstract post-state. None when the step is outside the encoding."""
    encoded = encode_step(before, op, naming)
    if encoded is None:
        return None
    _, name, _, step = encoded
    problems: list[str] = []
    if step.enabled != enabled:
        return [f"{name}: encoding says enabled={step.enabled}, spec {enabled}"]
    if not enabled:
        return problems
    if step.crash:
        return [f"{name}: encoding says the spec crashes, but it stepped"]
    if step.refused != (error is not None):
        problems.append(f"{name}: encoding says refused={step.refused}, spec error {error}")
    post = abstract_queue(after, naming) if after is not None else None
    if post is None:
        return None
    for field_name in QueueState.__dataclass_fields__:
        a, b = getattr(step.post, field_name), getattr(post, field_name)
        if a != b:
            problems.append(f"{name}: {field_name}: encoding {a} != spec {b}")
    return problems


def queue_invariant_disagreements(queue: CallQueue, naming: QueueNaming) -> list[str] | None:
    """Each abstract invariant on the abstraction of ``queue`` against its spec predicate."""
    abstract = abstract_queue(queue, naming)
    if abstract is None:
        return None
    problems = []
    for inv in QUEUE_INVARIANTS:
        value, expected = inv.formula(abstract), inv.spec_predicate(queue)
        if value != expected:
            problems.append(f"{inv.name}: abstract {value}, spec {expected}")
    return problems


def describe_queue(state: QueueState, *, indent: str = "  ") -> list[str]:
    """Lines describing a concrete abstract queue, for counterexamples."""
    flags = [
        name
        for name, on in (("close_notifies", state.close_notifies), ("waits_behind_in_flight", state.waits_behind))
        if on
    ]
    limit = f"max in flight {state.limit}" if state.has_limit else "no goroutine limit"
    lines = [
        f"{indent}relevances {list(state.relevance)}; profile flags {flags or 'none'}; {limit}",
        f"{indent}closed={state.closed} callers={state.callers} "
        + (f"notified ids {state.min_notified}..{state.max_notified}" if state.notified else "nothing notified"),
    ]
    for u in range(state.uids):
        if not state.kept[u] and not state.flying[u] and not state.queued[u]:
            continue
        parts = []
        parts.append(f"kept call #{state.kept_id[u]} type {state.kept_type[u]}" if state.kept[u] else "no kept call")
        parts.append(f"in FIFO x{state.queued[u]}")
        if state.flying[u]:
            parts.append(f"in flight call #{state.flying_id[u]} type {state.flying_type[u]}")
        lines.append(f"{indent}uid {u}: " + ", ".join(parts))
    return lines
