"""The call-lifecycle table of :mod:`spec.dispatcher.lifecycle` against the call queue's transitions.

Every queue reachable in four operations over the conformance universe's calls is expanded by every
enabled operation, in every profile; every change of any caller's stage must be a row of
:data:`~spec.dispatcher.lifecycle.CALL_TRANSITIONS` for that profile, and every row must occur.
"""

from __future__ import annotations

from collections import defaultdict

import pytest

from conformance.universe import dispatcher_operations
from spec.dispatcher.call_queue import CallQueue, new_call_queue
from spec.dispatcher.lifecycle import CALL_TRANSITIONS, CallStage, call_stage
from spec.dispatcher.operations import (
    AddCall,
    CallQueueOperation,
    CloseDispatcher,
    FinishCall,
    PopCall,
    SyncObject,
    apply_call_queue,
    is_enabled,
)
from spec.versions import PROFILES

DEPTH = 4
OPERATION_NAMES = {AddCall: "add", PopCall: "pop", FinishCall: "finish", SyncObject: "sync_object",
                   CloseDispatcher: "close"}


def observed_changes(profile: str) -> dict[tuple[str, CallStage, CallStage], int]:
    """Every (operation, stage before, stage after) of a caller whose stage changed, with a count."""
    operations: tuple[CallQueueOperation, ...] = dispatcher_operations()
    start = new_call_queue(PROFILES[profile])
    seen: set[CallQueue] = {start}
    frontier = [start]
    changes: dict[tuple[str, CallStage, CallStage], int] = defaultdict(int)
    for _ in range(DEPTH):
        following = []
        for queue in frontier:
            for op in operations:
                if not is_enabled(queue, op):
                    continue
                after, _ = apply_call_queue(queue, op)
                for caller in range(after.callers):
                    before_stage, after_stage = call_stage(queue, caller), call_stage(after, caller)
                    if before_stage != after_stage:
                        changes[(OPERATION_NAMES[type(op)], before_stage, after_stage)] += 1
                if after not in seen:
                    seen.add(after)
                    following.append(after)
        frontier = following
    return changes


@pytest.mark.parametrize("profile", sorted(PROFILES))
def test_every_stage_change_is_a_row_and_every_row_happens(profile: str) -> None:
    rows = {
        (row.operation, row.source, row.target)
        for row in CALL_TRANSITIONS
        if row.profiles is None or profile in row.profiles
    }
    observed = set(observed_changes(profile))
    assert observed - rows == set(), "stage changes the table does not have"
    assert rows - observed == set(), f"rows never seen within {DEPTH} operations"


def test_a_fresh_caller_is_not_added_and_an_added_one_is_pending() -> None:
    queue = new_call_queue()
    assert call_stage(queue, 0) is CallStage.NOT_ADDED
    add = next(op for op in dispatcher_operations() if isinstance(op, AddCall))
    queue, error = apply_call_queue(queue, add)
    assert error is None
    assert call_stage(queue, 0) is CallStage.PENDING
