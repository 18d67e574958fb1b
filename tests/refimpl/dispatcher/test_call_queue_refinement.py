"""Refinement: refimpl's call queue does exactly what the spec's does, on every interleaving of add, pop, finish,
sync and close (see :class:`~tests.refimpl.dispatcher.call_queue_harness.RefinementPair` for what is compared).

Two searches, each in three profiles (v1.35, PR #141745, v1.34.0 with its goroutine limit lowered to 1):

- a Hypothesis state machine over a small universe of calls and statuses (at least 500 examples in ``ci``),
  drawing its operations from :mod:`tests.support.call_queue_rules` as the spec's own machine does;
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
from hypothesis import event

from spec.dispatcher.api_calls import PodBindingCall, PodStatusPatchCall
from spec.dispatcher.call_queue import CallQueue, new_call_queue
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
from tests.refimpl.dispatcher.call_queue_harness import RefinementPair
from tests.support.call_queue_rules import (
    ALREADY_UNSCHEDULABLE,
    EMPTY,
    NOMINATED_N2,
    OVERRIDE_N2,
    UNSCHEDULABLE,
    CallQueueRules,
)
from tests.support.machines import configured_test_case, machine_settings

PROFILES = (V1_35, PR_141745, replace(V1_34, dispatcher_max_in_flight=1))

# ----------------------------------------------------------------------------------------------
# Hypothesis
# ----------------------------------------------------------------------------------------------

STATEFUL_EXAMPLES = {"ci": 500, "dev": 200, "thorough": 5000, "fast": 50}
STEPS_PER_EXAMPLE = 30


class CallQueueRefinement(CallQueueRules):
    def __init__(self) -> None:
        super().__init__()
        self.pair = RefinementPair(self.profile)

    def step(self, op: CallQueueOperation) -> None:
        told = len(self.pair.spec.sends)
        event(self.pair.step(op))
        for sent in self.pair.spec.sends[told:]:
            event(f"sent: {sent.kind.value}")

    def current(self) -> CallQueue:
        return self.pair.spec


def _configured(profile: VersionProfile) -> type[TestCase]:
    return configured_test_case(
        CallQueueRefinement, f"CallQueueRefinement_{profile.name}", {"profile": profile},
        machine_settings(STATEFUL_EXAMPLES, STEPS_PER_EXAMPLE),
    )


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
