"""Refinement: refimpl's call queue does exactly what the spec's does, on every interleaving of add, pop, finish,
sync and close (see :class:`~tests.refimpl.dispatcher.call_queue_harness.RefinementPair` for what is compared).

Two searches, each in three profiles (v1.35, PR #141745, v1.34.0 with its goroutine limit lowered to 1):

- a Hypothesis state machine over a small universe of calls and statuses (at least 500 examples in ``ci``);
- a bounded exhaustive search: every sequence of up to :data:`DEPTH` operations from a fixed alphabet (up to
  states the spec considers equal), which reaches rare corners random runs can miss, such as a no-op call waiting
  behind an in-flight call of its UID and then synced.
"""

from __future__ import annotations

import os
from collections import deque
from dataclasses import replace
from unittest import TestCase

import pytest
from hypothesis import event, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, precondition, rule

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
from spec.call_queue_operations import (
    AddCall,
    CallQueueOperation,
    CloseDispatcher,
    FinishCall,
    PopCall,
    SyncObject,
    apply_call_queue,
    is_enabled,
)
from spec.frozenmap import FrozenMap
from spec.versions import PR_141745, V1_34, V1_35, VersionProfile
from tests.refimpl.dispatcher.call_queue_harness import RefinementPair

UNSCHEDULABLE = PodCondition("PodScheduled", "False", "Unschedulable")
EMPTY = PodStatus()
ALREADY_UNSCHEDULABLE = PodStatus(FrozenMap({"PodScheduled": UNSCHEDULABLE}))
NOMINATED_N2 = PodStatus(nominated_node_name="n2")
OVERRIDE_N2 = NominatingInfo(NominatingMode.OVERRIDE, "n2")

PROFILES = (V1_35, PR_141745, replace(V1_34, dispatcher_max_in_flight=1))

# ----------------------------------------------------------------------------------------------
# Hypothesis
# ----------------------------------------------------------------------------------------------

UIDS = ("u1", "u1", "u2", "u3")  # u1 twice: calls for one object collide more often
CONDITIONS = (None, UNSCHEDULABLE, PodCondition("PodScheduled", "False", "SchedulerError"))
NOMINATIONS = (None, NominatingInfo(NominatingMode.NOOP), OVERRIDE_N2)
STATUSES = (EMPTY, ALREADY_UNSCHEDULABLE, NOMINATED_N2)

statuses = st.sampled_from(STATUSES)
calls: st.SearchStrategy[APICall] = st.one_of(
    st.builds(PodBindingCall, st.sampled_from(UIDS), st.sampled_from(("n1", "n2"))),
    st.builds(
        PodStatusPatchCall, st.sampled_from(UIDS), statuses, st.sampled_from(CONDITIONS), st.sampled_from(NOMINATIONS)
    ),
)

STATEFUL_EXAMPLES = {"ci": 500, "dev": 200, "thorough": 5000}


class CallQueueRefinement(RuleBasedStateMachine):
    profile: VersionProfile = V1_35

    def __init__(self) -> None:
        super().__init__()
        self.pair = RefinementPair(self.profile)

    def step(self, op: CallQueueOperation) -> None:
        told = len(self.pair.spec.sends)
        event(self.pair.step(op))
        for sent in self.pair.spec.sends[told:]:
            event(f"sent: {sent.kind.value}")

    @property
    def spec(self) -> CallQueue:
        return self.pair.spec

    @rule(call=calls)
    def add(self, call: APICall) -> None:
        self.step(AddCall(call))

    @precondition(lambda self: can_pop(self.spec))
    @rule()
    def pop(self) -> None:
        self.step(PopCall())

    @precondition(lambda self: bool(self.spec.in_flight))
    @rule(data=st.data(), error=st.sampled_from((None, "conflict", "context canceled")))
    def finish(self, data: st.DataObject, error: str | None) -> None:
        uid = data.draw(st.sampled_from(sorted(self.spec.in_flight)))
        self.step(FinishCall(uid, error))

    @rule(uid=st.sampled_from(UIDS), status=statuses)
    def sync(self, uid: str, status: PodStatus) -> None:
        self.step(SyncObject(uid, status))

    @precondition(lambda self: not self.spec.closed)
    @rule(coin=st.integers(0, 3))
    def close(self, coin: int) -> None:
        if coin == 0:  # rarer than the other operations, so runs go on past it less often
            self.step(CloseDispatcher())

    @precondition(lambda self: self.spec.closed)
    @rule()
    def close_again(self) -> None:
        """Closing twice changes nothing more (PR #141745's close returns at once; v1.35's sets the flag again)."""
        self.step(CloseDispatcher())


def _settings() -> settings:
    profile = os.environ.get("HYPOTHESIS_PROFILE", "dev")
    examples = STATEFUL_EXAMPLES.get(profile, 200)
    return settings(settings.get_profile(profile), max_examples=examples, stateful_step_count=30)


def _configured(profile: VersionProfile) -> type[TestCase]:
    machine: type[CallQueueRefinement] = type(
        f"CallQueueRefinement_{profile.name}", (CallQueueRefinement,), {"profile": profile}
    )
    test_case: type[TestCase] = machine.TestCase
    test_case.settings = _settings()  # type: ignore[attr-defined]  # Hypothesis reads it from the class
    return test_case


TestCallQueueRefinement_v1_35 = _configured(PROFILES[0])
TestCallQueueRefinement_pr141745 = _configured(PROFILES[1])
TestCallQueueRefinement_v1_34_limit1 = _configured(PROFILES[2])

# ----------------------------------------------------------------------------------------------
# Bounded exhaustive search
# ----------------------------------------------------------------------------------------------

ALPHABET: tuple[CallQueueOperation, ...] = (
    AddCall(PodStatusPatchCall("u1", EMPTY, UNSCHEDULABLE)),
    AddCall(PodStatusPatchCall("u1", ALREADY_UNSCHEDULABLE)),  # a no-op, and merged with the first one too
    AddCall(PodStatusPatchCall("u1", EMPTY, None, OVERRIDE_N2)),
    AddCall(PodBindingCall("u1", "n1")),
    AddCall(PodBindingCall("u2", "n1")),
    PopCall(),
    FinishCall("u1"),
    FinishCall("u2", "conflict"),
    SyncObject("u1", ALREADY_UNSCHEDULABLE),
    SyncObject("u1", NOMINATED_N2),
    CloseDispatcher(),
)
DEPTH = 6 if os.environ.get("HYPOTHESIS_PROFILE") == "thorough" else 5
"""About 3,500 distinct spec states per profile at depth 5 (1.5 s), 15,000 at depth 6."""


def replay(profile: VersionProfile, trace: tuple[CallQueueOperation, ...]) -> None:
    pair = RefinementPair(profile)
    for op in trace:
        pair.step(op)


@pytest.mark.parametrize("profile", PROFILES, ids=lambda p: f"{p.name}-limit{p.dispatcher_max_in_flight}")
def test_every_short_trace_refines_the_spec(profile: VersionProfile) -> None:
    start = new_call_queue(profile)
    seen = {start}
    frontier: deque[tuple[CallQueue, tuple[CallQueueOperation, ...]]] = deque([(start, ())])
    replayed = 0
    while frontier:
        queue, trace = frontier.popleft()
        if len(trace) == DEPTH:
            continue
        for op in ALPHABET:
            if not is_enabled(queue, op):
                continue
            successor, _ = apply_call_queue(queue, op)
            if successor in seen:
                continue
            seen.add(successor)
            replay(profile, (*trace, op))
            replayed += 1
            frontier.append((successor, (*trace, op)))
    assert replayed > 1000, f"the search reached only {replayed} states"
