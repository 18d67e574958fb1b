"""The dispatcher's Z3 encoding is the spec's: same enabledness, same post-states, same invariant verdicts.

The Hypothesis state machine of ``tests/spec/dispatcher/test_stateful.py`` drives the executable
call queue in three profiles. Here every step it takes is also run through the transition
encoding (on the abstraction of the pre-state, with plain values) and must give the abstraction
of the spec's post-state; the abstract invariants must give the spec predicates' verdicts on
every queue reached and on corrupted copies; and the abstract transition properties must agree
with the spec's. A seeded walk, which also tries disabled operations, checks that every encoding
is compared in every outcome, and a sample of steps is evaluated through Z3 as well.
"""

from __future__ import annotations

import functools
import random
from collections import Counter
from dataclasses import fields, replace
from typing import Any
from unittest import TestCase

import pytest
import z3
from hypothesis import event

from spec.dispatcher.api_calls import APICall, PodBindingCall, PodStatusPatchCall
from spec.dispatcher.call_queue import CallQueue, QueuedCall, new_call_queue
from spec.dispatcher.invariants import trans_add_keeps_the_more_relevant_call, trans_more_relevant_call_never_dropped
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
from spec.frozenmap import FrozenMap
from spec.verify.dispatcher import symbolic
from spec.verify.dispatcher.abstraction import (
    QueueNaming,
    abstract_queue,
    encode_step,
    queue_disagreements,
    queue_invariant_disagreements,
)
from spec.verify.dispatcher.symbolic import QUEUE_INVARIANTS, QueueState, fresh_queue, map_queue
from spec.verify.dispatcher.transitions import QUEUE_TRANSITIONS, added_call, fresh_queue_args
from spec.versions import PR_141745, V1_34, V1_35, VersionProfile
from tests.spec.dispatcher.test_stateful import CONDITIONS, NOMINATIONS, STATUSES, UIDS, CallQueueMachine
from tests.support.machines import configured_test_case, machine_settings

NAMING = QueueNaming((*UIDS, "u9"))
"""The stateful test's UIDs and one that never gets a call."""

PROFILES = (V1_35, PR_141745, replace(V1_34, dispatcher_max_in_flight=1))
EXAMPLES = {"ci": 60, "dev": 40, "thorough": 1000}


def check_step(before: CallQueue, op: CallQueueOperation, after: CallQueue, error: Any) -> None:
    problems = queue_disagreements(before, op, True, error, after, NAMING)
    assert problems is not None, f"{op} on a queue the abstraction cannot represent"
    event(f"compared {type(op).__name__}")
    assert not problems, f"encoding disagrees with the spec on {op}: {problems}"
    check_properties(before, op, after)
    check_invariant_verdicts(after)


def check_properties(before: CallQueue, op: CallQueueOperation, after: CallQueue) -> None:
    """The abstract transition properties give the spec predicates' verdicts on this step."""
    encoded = encode_step(before, op, NAMING)
    assert encoded is not None
    pre, name, args, _ = encoded
    post = abstract_queue(after, NAMING)
    assert post is not None
    added = op.call if isinstance(op, AddCall) else None
    expected = trans_more_relevant_call_never_dropped(before, after, added)
    assert symbolic.trans_more_relevant_call_never_dropped(pre, post, added_call(name, args)) == expected
    if added is not None:
        expected = trans_add_keeps_the_more_relevant_call(before, after, added)
        assert expected, f"{op} kept a less relevant call"
        assert symbolic.trans_add_keeps_the_more_relevant_call(pre, post, args["uid"], args["type"]) == expected


def check_invariant_verdicts(queue: CallQueue) -> None:
    problems = queue_invariant_disagreements(queue, NAMING)
    assert problems == [], f"invariant formulas disagree with the spec: {problems}"
    for label, corrupted in corruptions(queue):
        verdicts = queue_invariant_disagreements(corrupted, NAMING)
        assert verdicts == [], f"invariant formulas disagree with the spec on {label}: {verdicts}"


def corruptions(queue: CallQueue) -> list[tuple[str, CallQueue]]:
    """Copies of ``queue`` broken in ways the abstract invariants must notice as the spec does."""
    result = []
    for uid, kept in queue.calls.items():
        result.append((f"{uid} queued twice", replace(queue, fifo=(*queue.fifo, uid, uid))))
        result.append((f"{uid} forgotten", replace(queue, calls=queue.calls.remove(uid))))
        result.append((f"{uid} id from the future", _with_call(queue, uid, replace(kept, call_id=queue.callers))))
        for other in queue.calls:
            if other != uid:
                result.append(
                    (f"{uid} shares an id", _with_call(queue, other, replace(queue.calls[other], call_id=kept.call_id)))
                )
    for uid, running in queue.in_flight.items():
        result.append((f"{uid} also queued", replace(queue, fifo=(*queue.fifo, uid))))
        result.append(
            (
                f"{uid} in flight with id -1",
                replace(queue, in_flight=queue.in_flight.set(uid, replace(running, call_id=-1))),
            )
        )
    if queue.sends:
        result.append(("callers forgotten", replace(queue, callers=0)))
    call = PodBindingCall(NAMING.uids[-1], "n1")
    result.append(("pending without a call", replace(queue, fifo=(*queue.fifo, call.uid))))
    result.append(("call without a place", _with_call(queue, call.uid, QueuedCall(call, 0))))
    return result


def _with_call(queue: CallQueue, uid: str, queued: QueuedCall) -> CallQueue:
    return replace(queue, calls=queue.calls.set(uid, queued))


class AgreeingCallQueueMachine(CallQueueMachine):
    def step(self, op: CallQueueOperation) -> None:
        before = self.queue
        super().step(op)
        after, error = apply_call_queue(before, op)
        assert after == self.queue
        check_step(before, op, after, error)


def _configured(profile: VersionProfile) -> type[TestCase]:
    return configured_test_case(
        AgreeingCallQueueMachine, f"Agreeing_{profile.name}", {"profile": profile}, machine_settings(EXAMPLES, 30)
    )


TestAgrees_v1_35 = _configured(PROFILES[0])
TestAgrees_pr141745 = _configured(PROFILES[1])
TestAgrees_v1_34_limit1 = _configured(PROFILES[2])


# ============================================================================================
# A seeded walk: every encoding compared in every outcome, disabled operations included
# ============================================================================================


def _calls(uid: str) -> list[APICall]:
    patches: list[APICall] = [
        PodStatusPatchCall(uid, status, condition, nomination)
        for status in STATUSES
        for condition in CONDITIONS
        for nomination in NOMINATIONS
    ]
    return [PodBindingCall(uid, "n1"), PodBindingCall(uid, "n2"), *patches]


def seeded_walk(seed: int, runs: int, steps: int) -> list[tuple[CallQueue, CallQueueOperation]]:
    """Random operation sequences, each operation tried whether or not it is enabled."""
    rng = random.Random(seed)
    walk: list[tuple[CallQueue, CallQueueOperation]] = []
    for _ in range(runs):
        queue = new_call_queue(rng.choice(PROFILES))
        for _ in range(steps):
            uid = rng.choice(NAMING.uids)
            options: list[CallQueueOperation] = [
                AddCall(rng.choice(_calls(uid))),
                AddCall(rng.choice(_calls(uid))),
                PopCall(),
                PopCall(),
                FinishCall(uid, rng.choice((None, "conflict"))),
                FinishCall(uid, None),
                SyncObject(uid, rng.choice(STATUSES)),
                CloseDispatcher() if rng.random() < 0.2 else PopCall(),
            ]
            op = rng.choice(options)
            walk.append((queue, op))
            if is_enabled(queue, op):
                queue = apply_call_queue(queue, op)[0]
    return walk


WALK_SEED = 20261121


def test_every_encoding_is_compared_in_every_outcome() -> None:
    compared: Counter[str] = Counter()
    for queue, op in seeded_walk(WALK_SEED, runs=150, steps=30):
        enabled = is_enabled(queue, op)
        after, error = apply_call_queue(queue, op) if enabled else (None, None)
        problems = queue_disagreements(queue, op, enabled, error, after, NAMING)
        if problems is None:
            assert isinstance(op, PopCall) and not queue.fifo
            continue
        assert not problems, f"encoding disagrees with the spec on {op}: {problems}"
        outcome = "disabled" if not enabled else (error.kind.value if error is not None else "kept")
        compared[f"{type(op).__name__}: {outcome}"] += 1
    for name in QUEUE_TRANSITIONS:
        stepped = [key for key in compared if key.startswith(f"{name}:") and not key.endswith("disabled")]
        assert sum(compared[key] for key in stepped) >= 20, f"{name} compared only {compared}"
    for key in ("AddCall: Skipped", "AddCall: Closed", "PopCall: disabled", "FinishCall: disabled"):
        assert compared[key] >= 5, f"{key} compared only {compared[key]} times"


# ============================================================================================
# The same encoding, evaluated through Z3
# ============================================================================================


def _pairs(symbolic_value: Any, concrete: Any) -> list[tuple[Any, Any]]:
    if isinstance(symbolic_value, QueueState):
        return _pairs(_fields(symbolic_value), _fields(concrete))
    if isinstance(symbolic_value, tuple):
        return [pair for s, c in zip(symbolic_value, concrete, strict=True) for pair in _pairs(s, c)]
    if isinstance(symbolic_value, bool | int):
        return []
    return [(symbolic_value, z3.BoolVal(concrete) if isinstance(concrete, bool) else z3.IntVal(concrete))]


def _fields(state: QueueState) -> tuple[Any, ...]:
    return tuple(getattr(state, f.name) for f in fields(QueueState))


def _evaluate(term: Any, pairs: list[tuple[Any, Any]]) -> Any:
    if isinstance(term, bool | int):
        return term
    value = z3.simplify(z3.substitute(term, *pairs))
    if z3.is_true(value):
        return True
    if z3.is_false(value):
        return False
    return value.as_long()


Z3_SAMPLES = 8


@functools.cache
def _z3_walk() -> list[tuple[CallQueue, CallQueueOperation]]:
    return seeded_walk(WALK_SEED + 1, runs=40, steps=30)


@pytest.mark.parametrize("name", list(QUEUE_TRANSITIONS))
def test_z3_evaluation_of_the_encoding_matches_its_python_evaluation(name: str) -> None:
    transition = QUEUE_TRANSITIONS[name]
    pre_symbolic = fresh_queue(NAMING.bounds, "pre")
    args_symbolic = fresh_queue_args(transition, "op")
    step = transition.apply(pre_symbolic, args_symbolic)
    invariants = {inv.name: inv.formula(step.post) for inv in QUEUE_INVARIANTS}
    samples = 0
    for queue, op in _z3_walk():
        encoded = encode_step(queue, op, NAMING)
        if encoded is None or encoded[1] != name:
            continue
        pre, _, args, expected = encoded
        pairs = _pairs(pre_symbolic, pre) + [
            pair for key, value in args.items() for pair in _pairs(args_symbolic[key], value)
        ]
        assert _evaluate(step.enabled, pairs) == expected.enabled
        assert _evaluate(step.crash, pairs) == expected.crash
        post: QueueState = map_queue(step.post, functools.partial(_evaluate, pairs=pairs))
        assert post == expected.post, f"{name}: Z3 and Python evaluations differ on {op}"
        for inv in QUEUE_INVARIANTS:
            assert _evaluate(invariants[inv.name], pairs) == inv.formula(expected.post), inv.name
        samples += 1
        if samples == Z3_SAMPLES:
            break
    assert samples == Z3_SAMPLES, f"only {samples} samples of {name}"


def test_relevances_other_than_the_in_tree_map_are_abstracted() -> None:
    queue = replace(new_call_queue(), relevances=FrozenMap({"pod_status_patch": 5}))
    state = abstract_queue(queue, NAMING)
    assert state is not None and state.relevance == (5, 0)
