"""Observed behaviours of a dispatcher-area step: how the call queue resolved it and whom it told.

:func:`dispatcher_step_behaviours` reads the call queue before and after the step and the values sent to callers
during it (:mod:`spec.dispatcher.call_queue`); the merge rules are read off
:func:`spec.dispatcher.api_calls.merge_calls`.
"""

from __future__ import annotations

from spec.dispatcher.api_calls import (
    NominatingMode,
    PodBindingCall,
    PodStatusPatchCall,
    is_less_relevant,
    is_no_op,
    nominating_mode,
)
from spec.dispatcher.call_queue import AddError, CallQueue, OutcomeKind, can_pop
from spec.dispatcher.operations import AddCall, CallQueueOperation, CloseDispatcher, FinishCall, PopCall, SyncObject

UNBOUNDED_FROM = 16
"""v1.34.0's goroutine limit: a pop enabled with this many calls executing shows that a profile has none."""


def dispatcher_step_behaviours(
    before: CallQueue, op: CallQueueOperation, after: CallQueue, error: AddError | None
) -> set[str]:
    """Every behaviour of the inventory that the call-queue step ``op`` exercised."""
    sent = after.sends[len(before.sends):]
    tags: set[str] = set()
    match op:
        case AddCall(call):
            tags |= _add(before, call, after, error, sent)
        case PopCall():
            uid = before.fifo[0]
            tags.add("dispatcher.pop.fifo_head")
            if isinstance(before.calls[uid].call, PodStatusPatchCall):
                tags.add("dispatcher.pop.marks_executed")
        case FinishCall(uid, failure):
            tags.add("dispatcher.finish.success" if failure is None else "dispatcher.finish.execution_error")
            tags.add("dispatcher.finish.requeues_newer" if uid in after.calls else "dispatcher.finish.forgets")
        case SyncObject(uid, _):
            tags |= _sync(before, uid, after)
        case CloseDispatcher():
            if before.closed:
                tags.add("dispatcher.close.twice")
            elif sent:
                tags.add("dispatcher.close.notifies")
            elif before.calls:
                tags.add("dispatcher.close.silent")
    if after.fifo and not after.closed and not can_pop(after):
        tags.add("dispatcher.limit.holds_back")
    if len(after.in_flight) >= UNBOUNDED_FROM and can_pop(after) and after.profile.dispatcher_max_in_flight is None:
        tags.add("dispatcher.limit.unbounded")
    return tags


def _add(before: CallQueue, call: object, after: CallQueue, error: AddError | None, sent: object) -> set[str]:
    assert isinstance(call, PodBindingCall | PodStatusPatchCall)
    if before.closed:
        return {"dispatcher.add.after_close_refused" if error is not None and error.kind is OutcomeKind.CLOSED
                else "dispatcher.add.after_close_kept"}
    old = before.calls.get(call.uid)
    if old is None:
        return {"dispatcher.add.no_op_skipped" if error is not None else "dispatcher.add.new_uid"}
    if is_less_relevant(before.relevances, old.call.call_type, call.call_type):
        return {"dispatcher.add.less_relevant_skipped"}
    in_flight = call.uid in before.in_flight
    told_old = any(n.call_id == old.call_id and n.kind is OutcomeKind.OVERWRITTEN
                   for n in after.sends[len(before.sends):])
    tags: set[str] = set()
    if old.call.call_type != call.call_type:
        if not told_old:
            tags.add("dispatcher.add.waits_behind_in_flight")
        else:
            tags.add("dispatcher.add.overwrites_in_flight" if in_flight else "dispatcher.add.more_relevant_overwrites")
    else:
        tags.add("dispatcher.add.merged")
        tags |= _merge(call, old.call)
    if error is not None and error.kind is OutcomeKind.SKIPPED:
        tags.add("dispatcher.add.no_op_drops_pending")
    elif in_flight and call.uid in after.calls and is_no_op(after.calls[call.uid].call):
        tags.add("dispatcher.add.no_op_kept_behind_in_flight")
    elif not in_flight and call.uid in after.fifo and after.fifo[-1] != call.uid:
        tags.add("dispatcher.add.keeps_fifo_slot")
    return tags


def _merge(new: object, old: object) -> set[str]:
    if isinstance(new, PodBindingCall):
        return {"dispatcher.merge.new_wins"}
    assert isinstance(new, PodStatusPatchCall) and isinstance(old, PodStatusPatchCall)
    tags = set()
    if new.condition is None and old.condition is not None:
        tags.add("dispatcher.merge.keeps_old_condition")
    if nominating_mode(new.nominating_info) is NominatingMode.NOOP and (
            nominating_mode(old.nominating_info) is NominatingMode.OVERRIDE):
        tags.add("dispatcher.merge.keeps_old_nominating")
    if new.condition is not None and old.condition is not None and new.condition != old.condition:
        tags.add("dispatcher.merge.new_wins")
    return tags


def _sync(before: CallQueue, uid: str, after: CallQueue) -> set[str]:
    tracked = before.calls.get(uid)
    if tracked is None:
        return {"dispatcher.sync.unknown"}
    if isinstance(tracked.call, PodBindingCall):
        return {"dispatcher.sync.binding_unchanged"}
    if tracked.call.executed:
        return {"dispatcher.sync.executing_untouched"}
    if uid not in after.calls:
        return {"dispatcher.sync.drops_no_op"}
    if is_no_op(after.calls[uid].call):
        return {"dispatcher.sync.refreshes_base", "dispatcher.sync.keeps_no_op_behind_in_flight"}
    return {"dispatcher.sync.refreshes_base"}
