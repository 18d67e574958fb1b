"""The queue's sub-queues hold a pod by namespace/name, the pods in flight by UID (issue 26): Kubernetes'
``podInfoKeyFunc`` heaps and ``GetPodFullName``-keyed unschedulablePods, ``inFlightPods`` by UID. Each case is a pod
re-created under a new UID (``a2``, with ``a``'s namespace and name); the spec keyed everything by UID before, and each
assertion below failed then."""

from __future__ import annotations

import pytest

from spec.objects import Pod
from spec.queue import queue as q
from spec.queue.state import (
    QueuedPod,
    QueueError,
    QueueErrorKind,
    QueueNotEnabled,
    SchedulingQueue,
    get_pod,
    holder,
    new_scheduling_queue,
    pod_key,
)
from spec.versions import V1_35, V1_37, VersionProfile

A, A2, B = Pod("a", "a", "ns"), Pod("a2", "a", "ns"), Pod("b", "b", "ns")


def _popped_and_rejected(queue: SchedulingQueue, plugin: str = "NodeResourcesFit") -> SchedulingQueue:
    """``a`` added, popped and handed back rejected by ``plugin``: it waits in unschedulablePods."""
    queue, popped = q.pop(q.add(queue, A))
    assert popped is not None
    queue, _ = q.add_unschedulable_if_not_present(
        queue, QueuedPod(A, popped.timestamp, popped.initial_attempt_timestamp, popped.attempts,
                         unschedulable_plugins=frozenset({plugin})), queue.scheduling_cycle)
    assert "a" in queue.unschedulable_pods
    return queue


def test_pod_key_is_namespace_and_name_or_the_uid_for_an_unnamed_pod() -> None:
    assert pod_key(A) == pod_key(A2) == "ns/a" != pod_key(Pod("a", "a", "other"))
    assert pod_key(Pod("u")) == "default/u"


def test_holder_finds_the_entry_of_another_uid() -> None:
    queue = q.add(new_scheduling_queue(), A)
    assert holder(queue.active_q, A2) == "a" and holder(queue.active_q, B) is None


def test_add_replaces_the_entry_of_another_uid() -> None:
    queue = q.add(q.add(new_scheduling_queue(), A), A2)
    assert list(queue.active_q) == ["a2"]


def test_add_takes_the_unschedulable_entry_of_another_uid() -> None:
    queue = q.add(_popped_and_rejected(new_scheduling_queue()), A2)
    assert list(queue.active_q) == ["a2"] and not queue.unschedulable_pods


def test_delete_by_another_uid_removes_the_entry() -> None:
    assert not q.delete(q.add(new_scheduling_queue(), A), A2).active_q
    assert not q.delete(_popped_and_rejected(new_scheduling_queue()), A2).unschedulable_pods


def test_activate_by_another_uid_moves_the_entry() -> None:
    queue = q.activate(_popped_and_rejected(new_scheduling_queue()), A2)
    assert list(queue.active_q) == ["a"] and not queue.unschedulable_pods


def test_hand_back_is_refused_while_another_uid_holds_the_key() -> None:
    queue, popped = q.pop(q.add(new_scheduling_queue(), A))
    assert popped is not None
    queue = q.add(queue, A2)
    assert list(queue.in_flight_pods) == ["a"] and list(queue.active_q) == ["a2"]
    with pytest.raises(QueueError) as refused:
        q.add_unschedulable_if_not_present(queue, popped, queue.scheduling_cycle)
    assert refused.value.kind is QueueErrorKind.ALREADY_ACTIVE
    assert not refused.value.queue_after.in_flight_pods  # Done all the same


def test_update_across_uids_through_v1_36_gives_the_entry_the_new_object() -> None:
    queue = _popped_and_rejected(new_scheduling_queue(V1_35))
    updated = q.update(queue, A, A2)
    entry = get_pod(updated, "a2")
    assert entry is not None and entry.attempts == 1 and entry.unschedulable_count == 1
    assert get_pod(updated, "a") is None


def test_update_across_uids_on_v1_37_adds_the_new_object_as_a_new_pod() -> None:
    """v1.37's ``PodInfo.Update`` refuses another UID: ``Update`` falls through to ``addPod``."""
    queue = _popped_and_rejected(new_scheduling_queue(V1_37))
    updated = q.update(queue, A, A2)
    entry = get_pod(updated, "a2")
    assert entry is not None and entry.attempts == 0 and entry.unschedulable_count == 0
    assert list(updated.active_q) == ["a2"] and not updated.unschedulable_pods


def _backing_off(profile: VersionProfile) -> SchedulingQueue:
    """``a`` added, popped and handed back after an error (no rejector plugin): it backs off in podErrorBackoffQ."""
    queue, popped = q.pop(q.add(new_scheduling_queue(profile), A))
    assert popped is not None
    failed = QueuedPod(A, popped.timestamp, popped.initial_attempt_timestamp, popped.attempts)
    queue, _ = q.add_unschedulable_if_not_present(queue, failed, queue.scheduling_cycle)
    assert "a" in queue.error_backoff_q
    return queue


def test_add_of_a_backing_off_pod_moves_it_up_to_v1_36_and_is_no_step_in_v1_37() -> None:
    """v1.36.5's ``moveToActiveQ`` deletes the pod from backoffQ; v1.37.2's leaves it there while a fresh pod info
    enters activeQ (two sub-queues), which the spec refuses to state
    (:attr:`spec.versions.VersionProfile.add_leaves_backoff_entry`)."""
    queue = q.add(_backing_off(V1_35), A)
    assert list(queue.active_q) == ["a"] and not queue.error_backoff_q
    with pytest.raises(QueueNotEnabled, match="moveToActiveQ leaves it there too"):
        q.add(_backing_off(V1_37), A)
    assert list(q.add(_backing_off(V1_37), B).active_q) == ["b"]  # another pod is a step as before
