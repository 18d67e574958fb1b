"""Scheduling gates and PreEnqueue in the spec's queue (spec/queue/gates.py, spec/queue/queue.py).

Kubernetes' cases: scheduling_queue_test.go (v1.35) TestPriorityQueue_Update "when updating a pod which is in
unschedulable queue and is gated, the pod ... removing gates" family, TestPriorityQueue_AddWithGates (a gated pod
goes to unschedulablePods), and scheduling_gates_test.go TestPreEnqueue (the message)."""

from __future__ import annotations

import pytest

from spec.objects import Pod
from spec.queue import queue as q
from spec.queue.events import SCHEDULING_GATES
from spec.queue.gates import is_gated, scheduling_gates_pre_enqueue
from spec.queue.state import QueueName, new_scheduling_queue, where

GATED = Pod("g", "g", scheduling_gates=("foo", "bar"))
UNGATED = Pod("g", "g")


def gated_queue(pop_from_backoff_q: bool = True):  # type: ignore[no-untyped-def]
    return new_scheduling_queue(pre_enqueue_plugins=(SCHEDULING_GATES,), pop_from_backoff_q=pop_from_backoff_q)


def test_the_message_lists_the_gates() -> None:
    """TestPreEnqueue: "waiting for scheduling gates: [foo bar]"."""
    assert scheduling_gates_pre_enqueue(GATED) == "waiting for scheduling gates: [foo bar]"
    assert scheduling_gates_pre_enqueue(UNGATED) is None


def test_a_gated_pod_waits_in_unschedulable_pods_not_active() -> None:
    queue = q.add(gated_queue(), GATED)
    assert where(queue, "g") is QueueName.UNSCHEDULABLE
    pinfo = queue.unschedulable_pods["g"]
    assert is_gated(pinfo) and SCHEDULING_GATES in pinfo.unschedulable_plugins
    assert pinfo.initial_attempt_timestamp is None
    queue = q.run_for(queue, 10**12)
    assert where(queue, "g") is QueueName.UNSCHEDULABLE, "no flush ungates a pod"


def test_the_ungating_update_moves_the_pod_to_active() -> None:
    queue = q.add(gated_queue(), GATED)
    queue = q.update(queue, GATED, UNGATED)
    assert where(queue, "g") is QueueName.ACTIVE
    assert not is_gated(queue.active_q["g"])


def test_an_update_that_keeps_a_gate_keeps_the_pod_gated() -> None:
    queue = q.add(gated_queue(), GATED)
    queue = q.update(queue, GATED, Pod("g", "g", scheduling_gates=("foo",)))
    assert where(queue, "g") is QueueName.UNSCHEDULABLE


def test_without_the_plugin_gates_are_ignored() -> None:
    """Kubernetes' queue tests run without PreEnqueue plugins unless they set some: gates then mean nothing."""
    assert where(q.add(new_scheduling_queue(), GATED), "g") is QueueName.ACTIVE


def test_an_unknown_pre_enqueue_plugin_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown PreEnqueue plugin"):
        new_scheduling_queue(pre_enqueue_plugins=("Nope",))


@pytest.mark.parametrize(("profile", "expected"), [("v1.34", QueueName.UNSCHEDULABLE), ("v1.35", QueueName.ACTIVE)])
def test_activate_from_backoff_runs_pre_enqueue_only_in_v1_34(profile: str, expected: QueueName) -> None:
    """A pod gated while it backed off, then activated: v1.35's ``activate`` passes ``movesFromBackoffQ`` and skips
    the PreEnqueue plugins (TestPriorityQueue_moveToActiveQ, "activated from backoffQ"); v1.34's runs them, so the
    gate keeps the pod in unschedulablePods (scheduling_queue.go ``activate``, v1.34.12)."""
    from spec.queue.events import EVENT_UNSCHEDULABLE_TIMEOUT
    from spec.queue.operations import (
        NewQueue,
        QueueActivate,
        QueueAdd,
        QueueAddUnschedulable,
        QueueMoveAll,
        QueuePop,
        QueueStepClock,
        QueueUpdate,
        apply_queue_operation,
        new_queue_world,
    )
    from spec.versions import get_profile

    world = new_queue_world(get_profile(profile))
    for op in (NewQueue(pre_enqueue_plugins=(SCHEDULING_GATES,)), QueueAdd(UNGATED), QueuePop(),
               QueueMoveAll(EVENT_UNSCHEDULABLE_TIMEOUT), QueueAddUnschedulable(UNGATED, frozenset({"plugin"})),
               QueueUpdate(UNGATED, GATED), QueueStepClock(2 * 10**9)):
        world, _ = apply_queue_operation(world, op)
    assert where(world.queue, "g") is QueueName.BACKOFF
    world, _ = apply_queue_operation(world, QueueActivate(GATED))
    assert where(world.queue, "g") is expected
