"""The pod state table is complete and unambiguous, and agrees with the concrete transitions.

The stateful machines check agreement on random streams; this checks the table itself, and
walks every (profile, phase, operation, guard) cell once on a concrete state.
"""

from __future__ import annotations

import itertools
from collections import Counter

import pytest

from spec.cache import cache
from spec.cache.cache import CacheState, new_cache
from spec.cache.lifecycle import POD_TRANSITIONS, Guard, PodPhase, expected_transition, pod_phase
from spec.cache.operations import (
    AddPod,
    AssumePod,
    FinishBinding,
    ForgetPod,
    Operation,
    RemovePod,
    Status,
    UpdatePod,
    World,
    apply,
)
from spec.errors import ErrorKind
from spec.objects import Pod, with_node_name
from spec.quantities import SECOND
from spec.versions import PROFILES

OPERATIONS = ("AssumePod", "FinishBinding", "ForgetPod", "AddPod", "UpdatePod", "RemovePod")
NODE_GUARDS = (Guard.SAME_NODE, Guard.OTHER_NODE, Guard.EMPTY_NODE)


def test_no_two_rows_share_a_cell() -> None:
    cells = Counter(
        (row.operation, row.source, row.guard, profile)
        for row in POD_TRANSITIONS
        for profile in (row.profiles or PROFILES)
    )
    assert [cell for cell, count in cells.items() if count > 1] == []


def test_every_row_has_exactly_one_outcome() -> None:
    for row in POD_TRANSITIONS:
        assert sum(x is not None for x in (row.target, row.error, row.fatal)) == 1, row


POD = Pod("u", "p", "ns", "n1")


def state_in(phase: PodPhase, profile: str) -> CacheState:
    state = new_cache(PROFILES[profile], 10 * SECOND if PROFILES[profile].assumed_pod_expiry else 0)
    if phase is PodPhase.ADDED:
        return cache.add_pod(state, POD)
    if phase in (PodPhase.ASSUMED, PodPhase.BINDING_FINISHED):
        state = cache.assume_pod(state, POD)
    if phase is PodPhase.BINDING_FINISHED:
        state = cache.finish_binding(state, POD, 0)
    return state


def operation(name: str, pod: Pod) -> Operation:
    ops: dict[str, Operation] = {
        "AssumePod": AssumePod(pod), "FinishBinding": FinishBinding(pod, 0), "ForgetPod": ForgetPod(pod),
        "AddPod": AddPod(pod), "UpdatePod": UpdatePod(pod, pod), "RemovePod": RemovePod(pod),
    }
    return ops[name]


GUARD_NODE = {Guard.SAME_NODE: "n1", Guard.OTHER_NODE: "n2", Guard.EMPTY_NODE: ""}


@pytest.mark.parametrize(
    ("profile", "phase", "op", "guard"),
    [
        cell
        for cell in itertools.product(PROFILES, PodPhase, OPERATIONS, NODE_GUARDS)
        if PROFILES[cell[0]].assumed_pod_expiry or cell[1] is not PodPhase.BINDING_FINISHED
    ],
)
def test_every_cell_matches_the_transitions(profile: str, phase: PodPhase, op: str, guard: Guard) -> None:
    state = state_in(phase, profile)
    argument = with_node_name(POD, GUARD_NODE[guard])
    if phase is PodPhase.ABSENT:
        guard = Guard.SAME_NODE  # nothing cached to differ from
    if op == "UpdatePod":  # the old object is the cached one; the guard is about the new object's node
        world, outcome = apply(World(state), UpdatePod(POD, argument))
    else:
        world, outcome = apply(World(state), operation(op, argument))
    row = expected_transition(profile, op, phase, guard)
    if row is None:
        assert outcome.kind == ErrorKind.UNSUPPORTED_OPERATION and op == "FinishBinding"
        return
    if row.fatal is not None:
        assert (outcome.status, outcome.kind) == (Status.FATAL, row.fatal)
    elif row.error is not None:
        assert (outcome.status, outcome.kind) == (Status.ERROR, row.error)
    else:
        assert outcome.status is Status.OK, outcome
        assert pod_phase(world.cache, POD.uid) == row.target
