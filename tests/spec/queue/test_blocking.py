"""Steps Kubernetes' ``PriorityQueue`` never completes, which the spec's queue therefore refuses as not enabled
(issue 26): a ``Pop`` that blocks after discarding an in-flight duplicate, and a second ``Close``, which panics."""

from __future__ import annotations

from dataclasses import replace

import pytest

from spec.objects import Pod
from spec.queue import queue as q
from spec.queue.state import QueuedPod, QueueNotEnabled, new_scheduling_queue

A = Pod("a", "a")


def test_pop_that_discards_the_only_candidate_blocks() -> None:
    """``activeQueue.unlockedPop`` discards a pod already in flight and goes on waiting: with nothing else to take
    and the queue open, ``Pop`` does not return, so it is not a step (it returned None before)."""
    queue = new_scheduling_queue()
    queue = replace(queue, active_q=queue.active_q.set("a", QueuedPod(A, 0)),
                    in_flight_pods=queue.in_flight_pods.set("a", A))
    with pytest.raises(QueueNotEnabled, match="discarded an in-flight duplicate"):
        q.pop(queue)


def test_pop_that_discards_on_a_closed_queue_returns_nothing() -> None:
    queue = q.close(new_scheduling_queue())
    queue = replace(queue, active_q=queue.active_q.set("a", QueuedPod(A, 0)),
                    in_flight_pods=queue.in_flight_pods.set("a", A))
    after, popped = q.pop(queue)
    assert popped is None and "a" not in after.active_q


def test_a_second_close_is_not_a_step() -> None:
    """``PriorityQueue.Close`` closes ``p.stop`` unconditionally: a second call panics."""
    queue = q.close(new_scheduling_queue())
    assert queue.closed
    with pytest.raises(QueueNotEnabled, match="already closed"):
        q.close(queue)
