"""One pod info in backoffQ and unschedulablePods at once (SchedulerPopFromBackoffQ off): ``Update``'s requeue loop
goes on after backoffQ and a skipped event puts the same ``*QueuedPodInfo`` into unschedulablePods, so an update
through backoffQ changes both (``PriorityQueue.Update`` and ``backoffQueue.update``,
pkg/scheduler/backend/queue, read in v1.35.8). Before :func:`spec.queue.queue._update_shared_entry` the spec updated
the backoffQ entry only, and the assertion on unschedulablePods failed."""

from __future__ import annotations

import pytest

from spec.frozenmap import FrozenMap
from spec.objects import Pod, Toleration
from spec.queue import queue as q
from spec.queue.events import ActionType, ClusterEvent, EventResource, HintFunction, HintRegistration, QueueingHint
from spec.queue.operations import QueueAdd, QueueAddUnschedulable, QueuePop, apply_queue_operation, new_queue_world
from spec.queue.state import SchedulingQueue, new_scheduling_queue
from spec.valuetypes import replace
from spec.versions import V1_35

A = Pod("a", "a", "ns")
CHANGED = replace(A, labels=FrozenMap({"app": "web"}), tolerations=(Toleration(key="k"),))
HINTS = (
    HintRegistration(ClusterEvent(EventResource.POD, ActionType.UPDATE_POD_LABEL), (HintFunction("X"),)),
    HintRegistration(ClusterEvent(EventResource.POD, ActionType.UPDATE_POD_TOLERATION),
                     (HintFunction("X", QueueingHint.QUEUE_SKIP),)),
)


def _rejected(pop_from_backoff_q: bool) -> SchedulingQueue:
    world = replace(new_queue_world(V1_35), queue=new_scheduling_queue(V1_35, hints=HINTS,
                                                                       pop_from_backoff_q=pop_from_backoff_q))
    for op in (QueueAdd(A), QueuePop(), QueueAddUnschedulable(A, frozenset({"X"}))):
        world, _ = apply_queue_operation(world, op)
    return world.queue


@pytest.mark.parametrize("pop_from_backoff_q", [True, False])
def test_the_update_loop_leaves_the_pod_in_both_only_with_the_gate_off(pop_from_backoff_q: bool) -> None:
    queue = q.update(_rejected(pop_from_backoff_q), A, CHANGED)
    assert set(queue.backoff_q) == {"a"}
    assert set(queue.unschedulable_pods) == (set() if pop_from_backoff_q else {"a"})


def test_an_update_through_backoff_q_changes_the_shared_pod_info() -> None:
    queue = q.update(_rejected(False), A, CHANGED)
    raised = replace(CHANGED, priority=10)
    queue = q.update(queue, CHANGED, raised)
    assert queue.backoff_q["a"].pod == raised
    assert queue.unschedulable_pods["a"].pod == raised


def test_another_uid_under_the_same_name_is_not_shared() -> None:
    """unschedulablePods' entry of another pod is left alone (only the pod's own entry is the shared pod info)."""
    queue = q.update(_rejected(False), A, CHANGED)
    other = Pod("b", "b", "ns")
    queue = replace(queue, unschedulable_pods=queue.unschedulable_pods.set("b", replace(queue.unschedulable_pods["a"],
                                                                                            pod=other)))
    queue = q.update(queue, CHANGED, replace(CHANGED, priority=10))
    assert queue.unschedulable_pods["b"].pod == other
