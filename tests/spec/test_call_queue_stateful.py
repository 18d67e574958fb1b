"""A Hypothesis state machine over the call queue: adds, pops, finishes, syncs and close, in three
profiles. Every invariant after every step, and Add's error is always what its caller is sent.
(The liveness property is a known violation in every profile: see test_call_queue_liveness.py.)"""

from __future__ import annotations

import os
from dataclasses import replace

from hypothesis import event, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule

from spec.api_calls import (
    APICall,
    NominatingInfo,
    NominatingMode,
    PodBindingCall,
    PodCondition,
    PodStatus,
    PodStatusPatchCall,
)
from spec.call_queue import CallQueue, can_pop, new_call_queue
from spec.call_queue_invariants import (
    CALL_QUEUE_INVARIANTS,
    trans_more_relevant_call_never_dropped,
)
from spec.call_queue_operations import (
    AddCall,
    CallQueueOperation,
    CloseDispatcher,
    FinishCall,
    PopCall,
    SyncObject,
    apply_call_queue,
)
from spec.frozenmap import FrozenMap
from spec.versions import PR_141745, V1_34, V1_35, VersionProfile

UIDS = ("u1", "u2")
CONDITIONS = (
    None,
    PodCondition("PodScheduled", "False", "Unschedulable"),
    PodCondition("PodScheduled", "False", "SchedulerError"),
)
NOMINATIONS = (None, NominatingInfo(NominatingMode.NOOP), NominatingInfo(NominatingMode.OVERRIDE, "n2"))
STATUSES = (
    PodStatus(),
    PodStatus(FrozenMap({"PodScheduled": PodCondition("PodScheduled", "False", "Unschedulable")})),
    PodStatus(nominated_node_name="n2"),
)

statuses = st.sampled_from(STATUSES)
calls: st.SearchStrategy[APICall] = st.one_of(
    st.builds(PodBindingCall, st.sampled_from(UIDS), st.sampled_from(("n1", "n2"))),
    st.builds(
        PodStatusPatchCall, st.sampled_from(UIDS), statuses, st.sampled_from(CONDITIONS), st.sampled_from(NOMINATIONS)
    ),
)

STATEFUL_EXAMPLES = {"ci": 500, "dev": 200, "thorough": 5000}


class CallQueueMachine(RuleBasedStateMachine):
    profile: VersionProfile = V1_35

    def __init__(self) -> None:
        super().__init__()
        self.queue: CallQueue = new_call_queue(self.profile)

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

    @rule(call=calls)
    def add(self, call: APICall) -> None:
        self.step(AddCall(call))

    @precondition(lambda self: can_pop(self.queue))
    @rule()
    def pop(self) -> None:
        self.step(PopCall())

    @precondition(lambda self: bool(self.queue.in_flight))
    @rule(data=st.data(), error=st.sampled_from((None, "conflict", "context canceled")))
    def finish(self, data: st.DataObject, error: str | None) -> None:
        uid = data.draw(st.sampled_from(sorted(self.queue.in_flight)))
        self.step(FinishCall(uid, error))

    @rule(uid=st.sampled_from(UIDS), status=statuses)
    def sync(self, uid: str, status: PodStatus) -> None:
        self.step(SyncObject(uid, status))

    @precondition(lambda self: not self.queue.closed)
    @rule(coin=st.integers(0, 3))
    def close(self, coin: int) -> None:
        if coin == 0:  # rarer than the other operations, so runs go on past it less often
            self.step(CloseDispatcher())

    @invariant()
    def invariants_hold(self) -> None:
        for predicate in CALL_QUEUE_INVARIANTS:
            assert predicate(self.queue), predicate.__name__


def _settings() -> settings:
    profile = os.environ.get("HYPOTHESIS_PROFILE", "dev")
    examples = STATEFUL_EXAMPLES.get(profile, 200)
    return settings(settings.get_profile(profile), max_examples=examples, stateful_step_count=30)


def _configured(profile: VersionProfile) -> type:
    machine = type(f"CallQueueMachine_{profile.name}", (CallQueueMachine,), {"profile": profile})
    test_case: type = machine.TestCase
    test_case.settings = _settings()
    return test_case


TestCallQueue_v1_35 = _configured(V1_35)
TestCallQueue_pr141745 = _configured(PR_141745)
TestCallQueue_v1_34_limit1 = _configured(replace(V1_34, dispatcher_max_in_flight=1))
