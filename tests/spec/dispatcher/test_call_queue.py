"""Call-queue scenarios: each row of the digest's resolution table (§A.4), sync, close, and the limit.

Expected outcomes are those of call_queue.go: v1.34.0 (as the digest read it at c4b5de20), v1.35.0 (with PR #135180: a
call of another type waits behind an in-flight call) and PR #141745 at 324d94f5. The conformance suite checks v1.34.0's
and v1.35.0's against Kubernetes' own code (examples/kubernetes-adapter).
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from spec.dispatcher.api_calls import (
    NominatingInfo,
    NominatingMode,
    PodBindingCall,
    PodCondition,
    PodStatus,
    PodStatusPatchCall,
    is_no_op,
    merge_calls,
)
from spec.dispatcher.call_queue import (
    DISPATCHER_CLOSED,
    OVERWRITTEN_BY_MORE_RELEVANT,
    OVERWRITTEN_BY_SAME_TYPE,
    SKIPPED_LESS_RELEVANT,
    SKIPPED_NO_OP,
    SKIPPED_NO_OP_AFTER_SYNC,
    CallQueue,
    Notification,
    OutcomeKind,
    add,
    can_pop,
    close,
    finish,
    new_call_queue,
    pop,
    sync_object,
)
from spec.frozenmap import FrozenMap
from spec.versions import PR_141745, V1_34, V1_35, VersionProfile

UNSCHEDULABLE = PodCondition("PodScheduled", "False", "Unschedulable", "0/3 nodes are available")
EMPTY = PodStatus()


def patch(uid: str = "u1", condition: PodCondition | None = UNSCHEDULABLE, **fields: object) -> PodStatusPatchCall:
    return PodStatusPatchCall(uid, EMPTY, condition, **fields)  # type: ignore[arg-type]


def bind(uid: str = "u1", node: str = "n1") -> PodBindingCall:
    return PodBindingCall(uid, node)


def added(queue: CallQueue, *calls: object) -> CallQueue:
    for call in calls:
        queue, error = add(queue, call)  # type: ignore[arg-type]
        assert error is None, error
    return queue


def told(queue: CallQueue, call_id: int) -> list[tuple[OutcomeKind, str]]:
    return [(n.kind, n.message) for n in queue.sends if n.call_id == call_id]


# ----------------------------------------------------------------------------------------------
# Calls
# ----------------------------------------------------------------------------------------------


def test_status_patch_no_op_rules() -> None:
    assert not is_no_op(bind())
    assert is_no_op(patch(condition=None))  # nothing to set
    assert not is_no_op(patch())
    already = PodStatus(FrozenMap({"PodScheduled": UNSCHEDULABLE}))
    assert is_no_op(PodStatusPatchCall("u1", already, UNSCHEDULABLE))
    override = NominatingInfo(NominatingMode.OVERRIDE, "n2")
    assert not is_no_op(PodStatusPatchCall("u1", already, UNSCHEDULABLE, override))
    assert is_no_op(PodStatusPatchCall("u1", PodStatus(nominated_node_name="n2"), None, override))


def test_status_patch_merge_keeps_what_the_new_call_lacks() -> None:
    override = NominatingInfo(NominatingMode.OVERRIDE, "n2")
    merged = merge_calls(patch(condition=None), patch(nominating_info=override))
    assert isinstance(merged, PodStatusPatchCall)
    assert merged.condition == UNSCHEDULABLE and merged.nominating_info == override
    newer = PodCondition("PodScheduled", "False", "SchedulerError")
    kept = merge_calls(patch(condition=newer), patch())
    assert isinstance(kept, PodStatusPatchCall) and kept.condition == newer


# ----------------------------------------------------------------------------------------------
# Add: the resolution table
# ----------------------------------------------------------------------------------------------


def test_new_uids_are_executed_in_fifo_order() -> None:
    queue = added(new_call_queue(), bind("a"), bind("b"), patch("c"))
    order = []
    while can_pop(queue):
        queue, popped = pop(queue)
        order.append(popped.call.uid)
    assert order == ["a", "b", "c"]


def test_pending_call_and_less_relevant_new_call_skips_the_new_call() -> None:
    queue = added(new_call_queue(), bind())
    queue, error = add(queue, patch())
    assert error is not None and (error.kind, error.message) == (OutcomeKind.SKIPPED, SKIPPED_LESS_RELEVANT)
    assert told(queue, 1) == [(OutcomeKind.SKIPPED, SKIPPED_LESS_RELEVANT)] and told(queue, 0) == []
    assert queue.calls["u1"].call == bind()


def test_more_relevant_call_overwrites_and_keeps_the_fifo_slot() -> None:
    queue = added(new_call_queue(), patch("u1"), bind("u2"), bind("u1", "n7"))
    assert told(queue, 0) == [(OutcomeKind.OVERWRITTEN, OVERWRITTEN_BY_MORE_RELEVANT)]
    assert queue.fifo == ("u1", "u2") and queue.calls["u1"].call == bind("u1", "n7")


def test_same_type_is_merged_into_the_old_slot() -> None:
    override = NominatingInfo(NominatingMode.OVERRIDE, "n2")
    queue = added(new_call_queue(), patch("u1", nominating_info=override), bind("u2"), patch("u1", condition=None))
    assert told(queue, 0) == [(OutcomeKind.OVERWRITTEN, OVERWRITTEN_BY_SAME_TYPE)]
    merged = queue.calls["u1"].call
    assert isinstance(merged, PodStatusPatchCall) and merged.nominating_info == override
    assert merged.condition == UNSCHEDULABLE and queue.fifo == ("u1", "u2")


def test_merge_that_ends_in_a_no_op_drops_both_calls() -> None:
    already = PodStatus(FrozenMap({"PodScheduled": UNSCHEDULABLE}))
    # A call that is a no-op from the start is skipped, not kept.
    queue, _ = add(new_call_queue(), patch("u1", condition=None, nominating_info=NominatingInfo(NominatingMode.NOOP)))
    assert queue.calls == FrozenMap() and told(queue, 0) == [(OutcomeKind.SKIPPED, SKIPPED_NO_OP)]
    queue = added(new_call_queue(), patch("u1"))
    queue, error = add(queue, PodStatusPatchCall("u1", already, None))
    assert error is not None and error.message == SKIPPED_NO_OP
    assert told(queue, 0) == [(OutcomeKind.OVERWRITTEN, OVERWRITTEN_BY_SAME_TYPE)]
    assert queue.calls == FrozenMap() and queue.fifo == ()


def test_v1_34_tells_an_in_flight_call_it_was_overwritten_and_the_new_call_runs_after_it() -> None:
    queue, running = pop(added(new_call_queue(V1_34), patch("u1")))
    queue = added(queue, bind("u1"))
    assert told(queue, 0) == [(OutcomeKind.OVERWRITTEN, OVERWRITTEN_BY_MORE_RELEVANT)]
    assert queue.fifo == () and not can_pop(queue)  # waits for finalize
    queue = finish(queue, "u1")
    assert queue.fifo == ("u1",) and queue.calls["u1"].call == bind("u1")
    assert told(queue, 0)[-1] == (OutcomeKind.SUCCESS, "")  # a second value: see inv_no_caller_told_twice
    assert running.call_id == 0


@pytest.mark.parametrize("profile", [V1_35, PR_141745], ids=lambda p: p.name)
def test_from_v1_35_a_call_of_another_type_waits_behind_an_in_flight_call_untold(profile: VersionProfile) -> None:
    """PR #135180 (in v1.35.0): ``merge`` returns early when the old call's UID is in flight."""
    queue, _ = pop(added(new_call_queue(profile), patch("u1")))
    queue = added(queue, bind("u1"))
    assert told(queue, 0) == [] and queue.calls["u1"].call == bind("u1") and queue.fifo == ()
    queue = finish(queue, "u1")
    assert told(queue, 0) == [(OutcomeKind.SUCCESS, "")] and queue.fifo == ("u1",)


def test_no_op_behind_an_in_flight_call_is_kept_and_executed() -> None:
    already = PodStatus(FrozenMap({"PodScheduled": UNSCHEDULABLE}))
    queue, _ = pop(added(new_call_queue(), patch("u1")))
    queue = added(queue, PodStatusPatchCall("u1", already, UNSCHEDULABLE))
    queue = finish(queue, "u1")
    queue, popped = pop(queue)
    assert popped.call_id == 1 and told(finish(queue, "u1"), 1) == [(OutcomeKind.SUCCESS, "")]


def test_execution_errors_reach_the_caller() -> None:
    queue, _ = pop(added(new_call_queue(), bind()))
    queue = finish(queue, "u1", "pods \"p\" not found")
    assert queue.sends == (Notification(0, OutcomeKind.EXECUTION_ERROR, 'pods "p" not found'),)
    assert queue.calls == FrozenMap() and queue.in_flight == FrozenMap()


def test_finish_and_pop_refuse_when_not_enabled() -> None:
    with pytest.raises(ValueError, match="nothing to pop"):
        pop(new_call_queue())
    with pytest.raises(ValueError, match="no call for object u1 is in flight"):
        finish(new_call_queue(), "u1")


# ----------------------------------------------------------------------------------------------
# Sync
# ----------------------------------------------------------------------------------------------


def test_sync_refreshes_the_base_status_and_drops_a_call_that_became_a_no_op() -> None:
    queue = added(new_call_queue(), patch("u1"))
    nominated = PodStatus(nominated_node_name="n3")
    queue, synced = sync_object(queue, "u1", nominated)
    assert synced.conditions["PodScheduled"] == UNSCHEDULABLE
    call = queue.calls["u1"].call
    assert isinstance(call, PodStatusPatchCall) and call.status == nominated
    queue, _ = sync_object(queue, "u1", PodStatus(FrozenMap({"PodScheduled": UNSCHEDULABLE})))
    assert "u1" not in queue.calls and queue.fifo == ()
    assert told(queue, 0) == [(OutcomeKind.SKIPPED, SKIPPED_NO_OP_AFTER_SYNC)]


def test_sync_does_not_touch_an_executing_call() -> None:
    queue, _ = pop(added(new_call_queue(), patch("u1")))
    queue, _ = sync_object(queue, "u1", PodStatus(FrozenMap({"PodScheduled": UNSCHEDULABLE})))
    call = queue.calls["u1"].call
    assert isinstance(call, PodStatusPatchCall) and call.status == EMPTY and told(queue, 0) == []


def test_sync_of_an_unknown_object_returns_it_unchanged() -> None:
    queue = new_call_queue()
    assert sync_object(queue, "zz", EMPTY) == (queue, EMPTY)


# ----------------------------------------------------------------------------------------------
# Close, limit
# ----------------------------------------------------------------------------------------------


def test_close_in_v1_35_tells_no_one_and_keeps_later_calls() -> None:
    queue = close(added(new_call_queue(V1_35), bind("a")))
    queue = added(queue, bind("b"))
    assert queue.sends == () and not can_pop(queue) and set(queue.calls) == {"a", "b"}


def test_close_with_pr_141745_tells_every_tracked_call_and_refuses_new_ones() -> None:
    queue, _ = pop(added(new_call_queue(PR_141745), bind("a")))
    queue = close(added(queue, bind("b")))
    assert [(n.call_id, n.message) for n in queue.sends] == [(0, DISPATCHER_CLOSED), (1, DISPATCHER_CLOSED)]
    queue, error = add(queue, bind("c"))
    assert error is not None and (error.kind, error.message) == (OutcomeKind.CLOSED, DISPATCHER_CLOSED)
    assert close(queue) == queue  # idempotent
    assert told(finish(queue, "a", "context canceled"), 0)[-1] == (OutcomeKind.EXECUTION_ERROR, "context canceled")


def test_v1_34_goroutine_limit_holds_pops_back() -> None:
    assert V1_34.dispatcher_max_in_flight == 16 and V1_35.dispatcher_max_in_flight is None
    limited = replace(V1_34, dispatcher_max_in_flight=1)
    queue, _ = pop(added(new_call_queue(limited), bind("a"), bind("b")))
    assert not can_pop(queue)
    assert can_pop(finish(queue, "a"))


def test_a_type_without_relevance_counts_as_zero() -> None:
    queue = replace(new_call_queue(), relevances=FrozenMap({"pod_binding": 2}))
    queue = added(queue, bind("u1"))
    queue, error = add(queue, patch("u1"))
    assert error is not None and error.message == SKIPPED_LESS_RELEVANT
