"""Three queue behaviours that changed after v1.35, per profile (``moveToActiveQ`` and ``addPod``,
pkg/scheduler/backend/queue/scheduling_queue.go, read in v1.35.8, v1.36.5 and v1.37.2): a second ``Add`` of a gated
pod replaces its unschedulablePods entry from v1.36; v1.37's ``addPod`` nominates a gated pod; v1.37's ``Update`` of a
pod in backoffQ to an object of another UID leaves the old entry there. Before the profile fields, the spec did the
v1.35 thing in every profile, and the v1.36 / v1.37 assertions below failed."""

from __future__ import annotations

import pytest

from spec.objects import Pod
from spec.queue import queue as q
from spec.queue.events import EVENT_UNSCHEDULABLE_TIMEOUT, SCHEDULING_GATES
from spec.queue.nominator import nominated_pods_for_node
from spec.queue.operations import (
    QueueAdd,
    QueueAddUnschedulable,
    QueueMoveAll,
    QueuePop,
    apply_queue_operation,
    new_queue_world,
)
from spec.queue.state import new_scheduling_queue
from spec.valuetypes import replace
from spec.versions import V1_34, V1_35, V1_36, V1_37, VersionProfile

A = Pod("a", "a", "ns")
GATED = replace(A, scheduling_gates=("example.com/gate",))


@pytest.mark.parametrize("profile", [V1_34, V1_35, V1_36, V1_37], ids=lambda p: p.name)
def test_a_second_add_of_a_gated_pod_replaces_its_entry_from_v1_36(profile: VersionProfile) -> None:
    queue = q.add(new_scheduling_queue(profile, pre_enqueue_plugins=(SCHEDULING_GATES,)), GATED)
    queue = q.add(q.step_clock(queue, 1_000_000_000), GATED)
    replaced = profile.name in ("v1.36", "v1.37")
    assert profile.gated_add_updates_unschedulable_entry is replaced
    assert queue.unschedulable_pods["a"].timestamp == (1_000_000_000 if replaced else 0)


@pytest.mark.parametrize("profile", [V1_35, V1_36, V1_37], ids=lambda p: p.name)
def test_a_gated_pod_naming_a_node_is_nominated_in_v1_37_only(profile: VersionProfile) -> None:
    queue = new_scheduling_queue(profile, pre_enqueue_plugins=(SCHEDULING_GATES,))
    queue = q.add(queue, replace(GATED, nominated_node_name="node1"))
    assert "a" in queue.unschedulable_pods
    expected = ("a",) if profile.name == "v1.37" else ()
    assert nominated_pods_for_node(queue.nominator, "node1") == expected


@pytest.mark.parametrize("profile", [V1_36, V1_37], ids=lambda p: p.name)
def test_an_update_to_another_uid_of_a_backing_off_pod_keeps_the_old_entry_in_v1_37(profile: VersionProfile) -> None:
    world = new_queue_world(profile)
    for op in (QueueAdd(A), QueuePop(), QueueMoveAll(EVENT_UNSCHEDULABLE_TIMEOUT),
               QueueAddUnschedulable(A, frozenset({"NodeResourcesFit"}))):
        world, _ = apply_queue_operation(world, op)
    assert set(world.queue.backoff_q) == {"a"}
    queue = q.update(world.queue, A, Pod("a2", "a", "ns"))
    if profile.name == "v1.37":
        assert (set(queue.backoff_q), set(queue.active_q)) == ({"a"}, {"a2"})
    else:
        assert (set(queue.backoff_q), set(queue.active_q)) == ({"a2"}, set())
