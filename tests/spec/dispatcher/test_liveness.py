"""Liveness of the dispatcher, explored exhaustively over a small universe.

From every state reachable within a few operations, the run loop drains the queue (finishing and
popping until nothing is left) and every caller must then have been told an outcome.

- v1.35's close tells pending callers nothing: the search finds the shortest such trace.
- PR #141745's close tells every tracked call: over operations that never replace a call waiting
  behind an in-flight one, no violation exists within the bound.
- But from v1.35 (PR #135180) a call of another type replaces, untold, a call waiting behind an
  in-flight one: without close, and with a binding for u1 in the operations, the search finds
  that trace in v1.35 and in PR #141745 (v1.34, which tells the replaced call, has no such trace).

The other property Kubernetes does not keep, "no caller is told twice", is shown with its trace too.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence

from spec.dispatcher.api_calls import PodBindingCall, PodCondition, PodStatus, PodStatusPatchCall
from spec.dispatcher.call_queue import CallQueue, can_pop, new_call_queue
from spec.dispatcher.invariants import inv_no_caller_told_twice, is_quiescent, liveness_every_caller_told
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
from spec.versions import PR_141745, V1_34, V1_35, VersionProfile

CONDITION = PodCondition("PodScheduled", "False", "Unschedulable")
PATCH_U1 = AddCall(PodStatusPatchCall("u1", PodStatus(), CONDITION))
BIND_U1 = AddCall(PodBindingCall("u1", "n1"))
OPERATIONS: tuple[CallQueueOperation, ...] = (
    BIND_U1,
    PATCH_U1,
    AddCall(PodBindingCall("u2", "n1")),
    PopCall(),
    FinishCall("u1"),
    FinishCall("u2", "conflict"),
    SyncObject("u1", PodStatus()),
    CloseDispatcher(),
)
DEPTH = 5


def drain(queue: CallQueue) -> CallQueue:
    """Run the loop to quiescence: finish what executes, pop what is pending, repeat."""
    while not is_quiescent(queue):
        for uid in sorted(queue.in_flight):
            queue, _ = apply_call_queue(queue, FinishCall(uid))
        while can_pop(queue):
            queue, _ = apply_call_queue(queue, PopCall())
    return queue


def search(
    profile: VersionProfile, operations: Sequence[CallQueueOperation] = OPERATIONS
) -> tuple[int, Sequence[CallQueueOperation] | None, Sequence[CallQueueOperation] | None]:
    """Breadth-first to DEPTH; returns (states seen, shortest liveness trace, shortest told-twice trace)."""
    start = new_call_queue(profile)
    frontier: deque[tuple[CallQueue, tuple[CallQueueOperation, ...]]] = deque([(start, ())])
    seen = {start}
    liveness_trace: tuple[CallQueueOperation, ...] | None = None
    twice_trace: tuple[CallQueueOperation, ...] | None = None
    while frontier:
        queue, trace = frontier.popleft()
        if liveness_trace is None and not liveness_every_caller_told(drain(queue)):
            liveness_trace = trace
        if twice_trace is None and not inv_no_caller_told_twice(queue):
            twice_trace = trace
        if len(trace) == DEPTH:
            continue
        for op in operations:
            if is_enabled(queue, op):
                successor, _ = apply_call_queue(queue, op)
                if successor not in seen:
                    seen.add(successor)
                    frontier.append((successor, (*trace, op)))
    return len(seen), liveness_trace, twice_trace


WITHOUT_BIND_U1 = tuple(op for op in OPERATIONS if op != BIND_U1)


def test_v1_35_close_leaves_a_caller_without_an_outcome() -> None:
    for operations in (OPERATIONS, WITHOUT_BIND_U1):
        states, liveness_trace, _ = search(V1_35, operations)
        assert states > 100
        assert liveness_trace is not None and liveness_trace[-1] == CloseDispatcher() and len(liveness_trace) == 2


def test_pr_141745_close_tells_every_caller_within_the_bound() -> None:
    states, liveness_trace, _ = search(PR_141745, WITHOUT_BIND_U1)
    assert states > 100
    assert liveness_trace is None


WITHOUT_CLOSE = tuple(op for op in OPERATIONS if op != CloseDispatcher())


def test_from_v1_35_a_waiting_call_is_dropped_untold() -> None:
    for profile in (V1_35, PR_141745):
        _, liveness_trace, _ = search(profile, WITHOUT_CLOSE)
        assert liveness_trace == (PATCH_U1, PopCall(), PATCH_U1, BIND_U1)
    queue = new_call_queue(V1_34)
    for op in (PATCH_U1, PopCall(), PATCH_U1, BIND_U1):
        queue, _ = apply_call_queue(queue, op)
    assert liveness_every_caller_told(drain(queue))  # v1.34 tells the replaced call "overwritten"
    _, v1_34_trace, _ = search(V1_34, WITHOUT_CLOSE)
    assert v1_34_trace is None


def test_every_profile_tells_an_overwritten_in_flight_caller_twice() -> None:
    for profile in (V1_34, V1_35, PR_141745):
        _, _, twice = search(profile)
        assert twice is not None and len(twice) == 4
        assert isinstance(twice[0], AddCall) and twice[1] == PopCall() and isinstance(twice[-1], FinishCall)
