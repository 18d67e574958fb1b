"""A Hypothesis state machine over the call queue: adds, pops, finishes, syncs and close, in three
profiles. Every invariant after every step, and Add's error is always what its caller is sent.
(The liveness property is a known violation in every profile: see test_call_queue_liveness.py.)
It draws its operations from :mod:`tests.support.call_queue_rules`, as the refinement machine does."""

from __future__ import annotations

from dataclasses import replace

from hypothesis import event
from hypothesis.stateful import invariant

from spec.dispatcher.call_queue import CallQueue, new_call_queue
from spec.dispatcher.invariants import (
    CALL_QUEUE_INVARIANTS,
    trans_more_relevant_call_never_dropped,
)
from spec.dispatcher.operations import AddCall, CallQueueOperation, apply_call_queue
from spec.versions import PR_141745, V1_34, V1_35, VersionProfile

# The universe is re-exported: the verify tests drive this machine and name its UIDs.
from tests.support.call_queue_rules import CONDITIONS as CONDITIONS
from tests.support.call_queue_rules import NOMINATIONS as NOMINATIONS
from tests.support.call_queue_rules import STATUSES as STATUSES
from tests.support.call_queue_rules import UIDS as UIDS
from tests.support.call_queue_rules import CallQueueRules
from tests.support.machines import configured_test_case, machine_settings

STATEFUL_EXAMPLES = {"ci": 500, "dev": 200, "thorough": 5000}
STEPS_PER_EXAMPLE = 30


class CallQueueMachine(CallQueueRules):
    def __init__(self) -> None:
        super().__init__()
        self.queue: CallQueue = new_call_queue(self.profile)

    def current(self) -> CallQueue:
        return self.queue

    def step(self, op: CallQueueOperation) -> None:
        before = self.queue
        after, error = apply_call_queue(before, op)
        added = op.call if isinstance(op, AddCall) else None
        assert trans_more_relevant_call_never_dropped(before, after, added), f"{op} dropped a more relevant call"
        if isinstance(op, AddCall):
            caller = before.callers
            first = next((n for n in after.sends if n.call_id == caller), None)
            if error is not None:
                assert first is not None and (first.kind, first.message) == (error.kind, error.message)
            event(f"add: {error.kind.value if error else 'kept'}")
        else:
            event(type(op).__name__)
        self.queue = after

    @invariant()
    def invariants_hold(self) -> None:
        for predicate in CALL_QUEUE_INVARIANTS:
            assert predicate(self.queue), predicate.__name__


def _configured(profile: VersionProfile) -> type:
    return configured_test_case(
        CallQueueMachine, f"CallQueueMachine_{profile.name}", {"profile": profile},
        machine_settings(STATEFUL_EXAMPLES, STEPS_PER_EXAMPLE),
    )


TestCallQueue_v1_35 = _configured(V1_35)
TestCallQueue_pr141745 = _configured(PR_141745)
TestCallQueue_v1_34_limit1 = _configured(replace(V1_34, dispatcher_max_in_flight=1))
