"""Scenario tests of the scheduling queue, after Kubernetes' pkg/scheduler/backend/queue/scheduling_queue_test.go
(TestPriorityQueue_Add / _Pop, TestBackOffFlow, TestPriorityQueue_AddUnschedulableIfNotPresent,
TestHighPriorityFlushUnschedulablePodsLeftover, TestPriorityQueue_Update, TestPriorityQueue_Delete,
TestPriorityQueue_Activate, TestPopFromBackoffQ...). Expected values are Kubernetes' defaults: 1 s initial backoff
doubling to 10 s, 5 min in unschedulablePods, 1 s backoff ordering window."""

from __future__ import annotations

import threading

import pytest
from hypothesis import given
from hypothesis import strategies as st

from refimpl.cache.clock import FakeClock
from refimpl.scheduler.backoff import (
    DEFAULT_POD_MAX_IN_UNSCHEDULABLE_PODS_DURATION,
    SECOND,
    align_to_window,
    backoff_count,
    backoff_expiration,
    calculate_backoff_duration,
    is_backing_off,
)
from refimpl.scheduler.events import (
    EVENT_ASSIGNED_POD_DELETE,
    EVENT_NODE_ADD,
    ActionType,
    ClusterEvent,
    EventResource,
    QueueingHint,
    QueueingHintFunction,
)
from refimpl.scheduler.heap import Heap
from refimpl.scheduler.queue import QueuedPodInfo, QueueError, QueueName, SchedulingQueue
from spec.frozenmap import FrozenMap
from spec.objects import Container, Pod, Toleration
from spec.quantities import resource_list

START = 1_000 * SECOND  # a whole second, so window alignment is easy to read
FIT = "NodeResourcesFit"
TAINT = "TaintToleration"
NODE_ALLOCATABLE = ClusterEvent(EventResource.NODE, ActionType.UPDATE_NODE_ALLOCATABLE)
NODE_LABEL = ClusterEvent(EventResource.NODE, ActionType.UPDATE_NODE_LABEL)


def pod(uid: str, priority: int = 0, cpu: int = 100) -> Pod:
    return Pod(uid=uid, name=uid, priority=priority, containers=(Container("c", resource_list(cpu=cpu)),))


def new_queue(**kwargs: object) -> tuple[FakeClock, SchedulingQueue]:
    clock = FakeClock(START)
    return clock, SchedulingQueue(clock, **kwargs)  # type: ignore[arg-type]


def add_in_order(clock: FakeClock, q: SchedulingQueue, *uids: str) -> None:
    """Add pods 1 ns apart, so PrioritySort pops them in this order (equal timestamps leave heap order)."""
    for uid in uids:
        q.add(pod(uid))
        clock.advance(1)


def fail(q: SchedulingQueue, pinfo: QueuedPodInfo, *plugins: str, pending: tuple[str, ...] = ()) -> QueueName:
    """What handleSchedulingFailure does: set the rejector plugins, hand the pod back with the current cycle."""
    pinfo.unschedulable_plugins.update(plugins)
    pinfo.pending_plugins.update(pending)
    return q.add_unschedulable_if_not_present(pinfo, q.scheduling_cycle())


def pop(q: SchedulingQueue) -> QueuedPodInfo:
    pinfo = q.pop()
    assert pinfo is not None, "the queue had nothing to pop"
    return pinfo


# ============================================================================================
# Backoff arithmetic
# ============================================================================================


def test_backoff_doubles_from_one_second_and_caps_at_ten() -> None:
    # TestBackOffFlow: 1s, 2s, 4s, 8s, 10s, 10s, 10s for attempts 1..7; no backoff before the first failure.
    assert [calculate_backoff_duration(n) // SECOND for n in range(9)] == [0, 1, 2, 4, 8, 10, 10, 10, 10]
    assert calculate_backoff_duration(200) == 10 * SECOND  # the shifted maximum is 0: still capped, no overflow


def test_backoff_with_other_bounds_and_disabled() -> None:
    assert [calculate_backoff_duration(n, 3, 20) for n in range(1, 6)] == [3, 6, 12, 20, 20]
    assert calculate_backoff_duration(5, SECOND, 0) == 0  # podMaxBackoff 0 disables backoff
    with pytest.raises(ValueError, match="non-negative"):
        calculate_backoff_duration(-1)


def test_backoff_count_prefers_consecutive_errors() -> None:
    assert backoff_count(unschedulable_count=7, consecutive_errors_count=0) == 7
    assert backoff_count(unschedulable_count=7, consecutive_errors_count=2) == 2


def test_expiry_is_truncated_to_the_window_and_backing_off_includes_it() -> None:
    t = START + SECOND // 2
    assert backoff_expiration(t, 1) == START + SECOND  # 1.5 s after START truncated to START + 1 s
    assert backoff_expiration(t, 1, aligned=False) == t + SECOND
    assert backoff_expiration(t, 0) is None
    assert align_to_window(START + 999_999_999) == START
    # !expiration.Before(alignToWindow(now)): the whole window of the expiry is still backing off.
    assert is_backing_off(START + SECOND, START + 2 * SECOND - 1)
    assert not is_backing_off(START + SECOND, START + 2 * SECOND)
    assert not is_backing_off(None, START)


@given(st.integers(0, 70), st.integers(0, 10**12), st.integers(0, 10**12))
def test_backoff_contracts(count: int, initial: int, maximum: int) -> None:
    duration = calculate_backoff_duration(count, initial, maximum)
    assert 0 <= duration <= maximum
    if count >= 1 and maximum > 0 and initial <= maximum:
        assert duration == min(initial * 2 ** (count - 1), maximum)
    if count >= 2:
        assert duration >= calculate_backoff_duration(count - 1, initial, maximum)


# ============================================================================================
# Ordering
# ============================================================================================


def test_pop_order_is_priority_then_arrival() -> None:
    clock, q = new_queue()
    for uid, priority in [("low", 0), ("mid1", 5), ("high", 10), ("mid2", 5), ("low2", 0)]:
        q.add(pod(uid, priority))
        clock.advance(1)
    assert [pop(q).uid for _ in range(5)] == ["high", "mid1", "mid2", "low", "low2"]
    assert q.pop() is None
    assert q.scheduling_cycle() == 5


def test_pop_counts_attempts_and_marks_in_flight() -> None:
    _, q = new_queue()
    q.add(pod("a"))
    pinfo = pop(q)
    assert (pinfo.attempts, q.where("a"), q.in_flight_pods()) == (1, QueueName.IN_FLIGHT, [pinfo.pod])


@given(st.lists(st.tuples(st.integers(0, 5), st.integers(0, 1000)), max_size=40))
def test_heap_pops_in_less_order(items: list[tuple[int, int]]) -> None:
    heap: Heap[tuple[str, int, int]] = Heap(lambda x: x[0], lambda a, b: (a[1], a[2]) < (b[1], b[2]))
    for i, (a, b) in enumerate(items):
        heap.add_or_update((str(i), a, b))
    for i in range(0, len(items), 3):  # delete every third, update others to a new key
        heap.delete(str(i))
    for i in range(1, len(items), 3):
        heap.add_or_update((str(i), 0, items[i][1]))
    expected = sorted((x for x in heap), key=lambda x: (x[1], x[2]))
    popped = []
    while (item := heap.pop()) is not None:
        popped.append(item)
    assert [(x[1], x[2]) for x in popped] == [(x[1], x[2]) for x in expected]


# ============================================================================================
# Backoff in the queue
# ============================================================================================


def test_backoff_flow_per_attempt() -> None:
    # TestBackOffFlow: each failure followed by a move request lands in backoffQ for 1, 2, 4, 8, 10, 10 s.
    clock, q = new_queue(pop_from_backoff_q=False)
    q.add(pod("a"))
    for want in [1, 2, 4, 8, 10, 10]:
        pinfo = pop(q)
        q.move_all_to_active_or_backoff_queue(EVENT_NODE_ADD)  # while in flight: recorded for the pod
        assert fail(q, pinfo, FIT) is QueueName.BACKOFF
        assert pinfo.backoff_expiration == clock.now() + want * SECOND
        clock.advance(want * SECOND - 1)
        assert q.flush_backoff_q_completed() == []
        assert q.pop() is None, "a pod still backing off was popped"
        clock.advance(SECOND)  # past the expiry's window
        assert q.flush_backoff_q_completed() == ["a"]
        assert q.where("a") is QueueName.ACTIVE


def test_pod_in_backoff_is_not_popped_before_expiry_without_pop_from_backoff() -> None:
    clock, q = new_queue(pop_from_backoff_q=False)
    q.add(pod("a"))
    pinfo = pop(q)
    q.move_all_to_active_or_backoff_queue(EVENT_NODE_ADD)
    fail(q, pinfo, FIT)
    # Without PopFromBackoffQ the expiry is not aligned: released once the clock is past it.
    assert q.next_backoff_completion() == clock.now() + SECOND + 1
    clock.set(START + SECOND)
    q.flush_backoff_q_completed()
    assert q.pop() is None
    clock.advance(1)
    q.flush_backoff_q_completed()
    assert pop(q).uid == "a"


def test_aligned_expiry_is_released_when_its_window_ends() -> None:
    clock, q = new_queue()
    clock.advance(SECOND // 2)
    q.add(pod("a"))
    pinfo = pop(q)
    q.move_all_to_active_or_backoff_queue(EVENT_NODE_ADD)
    fail(q, pinfo, FIT)
    assert pinfo.backoff_expiration == START + SECOND  # START + 1.5 s truncated
    assert q.next_backoff_completion() == START + 2 * SECOND
    clock.set(START + 2 * SECOND - 1)
    assert q.flush_backoff_q_completed() == []
    clock.advance(1)
    assert q.flush_backoff_q_completed() == ["a"]


def test_pop_from_backoff_q_takes_a_backing_off_pod_only_when_active_is_empty() -> None:
    # SchedulerPopFromBackoffQ (on in v1.35): an idle scheduler retries a rejected pod early; never an error pod.
    clock, q = new_queue()
    add_in_order(clock, q, "rejected", "errored")
    rejected, errored = pop(q), pop(q)
    q.move_all_to_active_or_backoff_queue(EVENT_NODE_ADD)
    assert fail(q, rejected, FIT) is QueueName.BACKOFF
    assert fail(q, errored) is QueueName.BACKOFF  # no rejector plugin: podErrorBackoffQ
    q.add(pod("fresh"))
    assert pop(q).uid == "fresh"  # activeQ first
    popped = pop(q)
    assert popped.uid == "rejected" and q.is_pod_backing_off(popped)
    assert q.pop() is None  # the error pod waits for its backoff
    assert q.where("errored") is QueueName.BACKOFF
    clock.advance(2 * SECOND)
    assert q.flush_backoff_q_completed() == ["errored"]


def test_error_backoff_counts_consecutive_errors_and_resets_on_a_rejection() -> None:
    clock, q = new_queue(pop_from_backoff_q=False)
    q.add(pod("a"))
    durations = []
    for plugins in [(), (), (), (FIT,), ()]:
        pinfo = pop(q)
        q.move_all_to_active_or_backoff_queue(EVENT_NODE_ADD)
        fail(q, pinfo, *plugins)
        assert pinfo.backoff_expiration is not None
        durations.append((pinfo.backoff_expiration - clock.now()) // SECOND)
        clock.advance(20 * SECOND)
        q.flush_backoff_q_completed()
    # errors 1, 2, 3 -> 1, 2, 4 s; a rejection (unschedulable count 1) -> 1 s and resets errors; error 1 -> 1 s.
    assert durations == [1, 2, 4, 1, 1]


# ============================================================================================
# Where a failed pod goes
# ============================================================================================


def test_failed_pod_without_events_waits_in_unschedulable_pods() -> None:
    _, q = new_queue()
    q.add(pod("a"))
    pinfo = pop(q)
    assert fail(q, pinfo, FIT) is QueueName.UNSCHEDULABLE
    assert q.where("a") is QueueName.UNSCHEDULABLE
    assert (pinfo.unschedulable_count, pinfo.consecutive_errors_count) == (1, 0)


def test_move_event_during_scheduling_cycle_sends_pod_to_backoff() -> None:
    clock, q = new_queue()
    q.add(pod("a"))
    pinfo = pop(q)
    q.move_all_to_active_or_backoff_queue(NODE_ALLOCATABLE)  # NodeResourcesFit registered Node/UpdateNodeAllocatable
    assert fail(q, pinfo, FIT) is QueueName.BACKOFF
    clock.advance(2 * SECOND)
    assert q.flush_backoff_q_completed() == ["a"]


def test_event_irrelevant_to_the_rejector_does_not_requeue_an_in_flight_pod() -> None:
    _, q = new_queue()
    q.add(pod("a"))
    pinfo = pop(q)
    q.move_all_to_active_or_backoff_queue(NODE_ALLOCATABLE)  # TaintToleration did not register allocatable changes
    assert fail(q, pinfo, TAINT) is QueueName.UNSCHEDULABLE


def test_event_before_the_pop_is_not_seen_by_the_pod() -> None:
    _, q = new_queue()
    q.add(pod("other"))
    other = pop(q)  # keeps the in-flight list alive
    q.move_all_to_active_or_backoff_queue(EVENT_NODE_ADD)
    q.add(pod("a"))
    pinfo = pop(q)
    assert fail(q, pinfo, FIT) is QueueName.UNSCHEDULABLE
    assert fail(q, other, FIT) is QueueName.BACKOFF


def test_without_queueing_hints_the_move_request_cycle_decides() -> None:
    clock, q = new_queue(queueing_hints_enabled=False)
    add_in_order(clock, q, "a", "b")
    a = pop(q)
    cycle_a = q.scheduling_cycle()
    assert q.in_flight_pods() == []  # Kubernetes does not track in-flight pods without QueueingHints
    q.move_all_to_active_or_backoff_queue(EVENT_NODE_ADD)  # moveRequestCycle = 1
    b = pop(q)
    assert q.add_unschedulable_if_not_present(a, cycle_a) is QueueName.BACKOFF  # moveRequestCycle >= 1
    a.unschedulable_plugins.add(FIT)
    b.unschedulable_plugins.add(FIT)
    assert q.add_unschedulable_if_not_present(b, q.scheduling_cycle()) is QueueName.UNSCHEDULABLE  # 1 < 2


def test_pending_plugin_queue_hint_skips_backoff() -> None:
    hints = {"default-scheduler": {NODE_LABEL: [QueueingHintFunction("Gate")]}}
    _, q = new_queue(queueing_hints=hints)
    q.add(pod("a"))
    pinfo = pop(q)
    q.move_all_to_active_or_backoff_queue(NODE_LABEL)
    assert fail(q, pinfo, pending=("Gate",)) is QueueName.ACTIVE  # queueImmediately, although backing off


def test_hint_functions_decide_and_an_error_counts_as_queue() -> None:
    def boom(p: Pod, old: object, new: object) -> QueueingHint:
        raise RuntimeError("hint failed")

    hints = {
        "default-scheduler": {
            NODE_LABEL: [QueueingHintFunction("Skipper", lambda p, o, n: QueueingHint.QUEUE_SKIP)],
            NODE_ALLOCATABLE: [QueueingHintFunction("Broken", boom)],
        }
    }
    clock, q = new_queue(queueing_hints=hints)
    add_in_order(clock, q, "skipped", "broken")
    skipped, broken = pop(q), pop(q)
    fail(q, skipped, "Skipper")
    fail(q, broken, "Broken")
    assert q.move_all_to_active_or_backoff_queue(NODE_LABEL) == []
    assert q.move_all_to_active_or_backoff_queue(NODE_ALLOCATABLE) == ["broken"]


def test_add_unschedulable_refuses_a_pod_already_queued_and_still_calls_done() -> None:
    _, q = new_queue()
    q.add(pod("a"))
    pinfo = pop(q)
    q.add(pod("a"))  # the informer re-added it while it was in flight
    with pytest.raises(QueueError, match=r"Pod default/a is already present in the active queue"):
        fail(q, pinfo, FIT)
    assert q.in_flight_pods() == []


# ============================================================================================
# Flushes, moves, updates, deletes, activation, done
# ============================================================================================


def test_unschedulable_pod_is_flushed_after_five_minutes() -> None:
    clock, q = new_queue()
    q.add(pod("a"))
    fail(q, pop(q), FIT)
    clock.advance(DEFAULT_POD_MAX_IN_UNSCHEDULABLE_PODS_DURATION)
    assert q.flush_unschedulable_pods_leftover() == []  # strictly longer than 5 min
    clock.advance(1)
    assert q.flush_unschedulable_pods_left_over() == ["a"]
    assert q.where("a") is QueueName.ACTIVE  # backoff long over


def test_leftover_flush_respects_a_backoff_still_running() -> None:
    clock, q = new_queue(pod_max_in_unschedulable_pods_duration=SECOND // 2, pop_from_backoff_q=False)
    q.add(pod("a"))
    fail(q, pop(q), FIT)
    clock.advance(SECOND // 2 + 1)
    assert q.flush_unschedulable_pods_leftover() == ["a"]
    assert q.where("a") is QueueName.BACKOFF


def test_node_event_moves_only_pods_whose_rejector_registered_it() -> None:
    clock, q = new_queue()
    add_in_order(clock, q, "fit", "taint")
    fit, taint = pop(q), pop(q)
    fail(q, fit, FIT)
    fail(q, taint, TAINT)
    clock.advance(5 * SECOND)
    assert q.move_all_to_active_or_backoff_queue(NODE_ALLOCATABLE) == ["fit"]
    assert (q.where("fit"), q.where("taint")) == (QueueName.ACTIVE, QueueName.UNSCHEDULABLE)
    assert q.move_all_to_active_or_backoff_queue(EVENT_NODE_ADD, pre_check=lambda p: False) == []
    assert q.move_all_to_active_or_backoff_queue(EVENT_NODE_ADD) == ["taint"]
    assert q.move_request_cycle() == 2


def test_update_that_may_help_reactivates_an_unschedulable_pod() -> None:
    clock, q = new_queue()
    q.add(pod("a", cpu=500))
    fail(q, pop(q), FIT)
    assert q.update(pod("a", cpu=500), pod("a", priority=3, cpu=500)) is QueueName.UNSCHEDULABLE  # generic update
    assert q.update(pod("a", cpu=500), pod("a", cpu=400)) is QueueName.BACKOFF  # scale-down, still backing off
    clock.advance(3 * SECOND)
    q.flush_backoff_q_completed()
    fail(q, pop(q), FIT)
    clock.advance(5 * SECOND)
    assert q.update(pod("a", cpu=400), pod("a", cpu=300)) is QueueName.ACTIVE
    assert q.get("a") is not None and q.get("a").pod.containers[0].requests["cpu"] == 300  # type: ignore[union-attr]


def test_update_adding_a_toleration_reactivates_a_pod_rejected_by_taints() -> None:
    clock, q = new_queue()
    q.add(pod("a"))
    fail(q, pop(q), TAINT)
    clock.advance(5 * SECOND)
    tolerating = Pod(uid="a", name="a", containers=pod("a").containers, tolerations=(Toleration(key="k"),))
    assert q.update(pod("a"), tolerating) is QueueName.ACTIVE


def test_update_without_queueing_hints_reactivates_on_any_change() -> None:
    clock, q = new_queue(queueing_hints_enabled=False)
    q.add(pod("a"))
    fail(q, pop(q), FIT)
    assert q.update(pod("a"), pod("a")) is QueueName.UNSCHEDULABLE  # isPodUpdated: nothing changed
    clock.advance(5 * SECOND)
    assert q.update(pod("a"), pod("a", priority=1)) is QueueName.ACTIVE


def test_update_in_place_in_active_and_backoff_and_of_unknown_pod() -> None:
    _, q = new_queue()
    q.add(pod("a"))
    q.add(pod("b"))
    assert q.update(pod("b"), pod("b", priority=9)) is QueueName.ACTIVE
    assert pop(q).uid == "b"  # re-sorted in place
    assert q.update(None, pod("new")) is QueueName.ACTIVE


def test_update_of_in_flight_pod_is_recorded_and_requeues_it_on_failure() -> None:
    _, q = new_queue()
    q.add(pod("a", cpu=500))
    pinfo = pop(q)
    assert q.update(pod("a", cpu=500), pod("a", cpu=100)) is QueueName.IN_FLIGHT
    assert q.where("a") is QueueName.IN_FLIGHT
    assert fail(q, pinfo, FIT) is QueueName.BACKOFF


@pytest.mark.parametrize("place", ["active", "backoff", "unschedulable"])
def test_delete_removes_the_pod_from_every_sub_queue(place: str) -> None:
    _, q = new_queue()
    q.add(pod("a"))
    q.add(pod("keep"))
    if place != "active":
        pinfo = pop(q)
        if place == "backoff":
            q.move_all_to_active_or_backoff_queue(EVENT_NODE_ADD)
        fail(q, pinfo, FIT)
    assert q.where("a") is QueueName(place.capitalize())
    q.delete(pod("a"))
    assert q.where("a") is None and q.get("a") is None
    assert len(q) == 1 and q.pending_pods()[0] == [pod("keep")]


def test_delete_of_in_flight_pod_leaves_tracking_to_done() -> None:
    _, q = new_queue()
    q.add(pod("a"))
    pop(q)
    q.delete(pod("a"))
    assert q.where("a") is QueueName.IN_FLIGHT
    q.done("a")
    assert q.where("a") is None


def test_done_clears_in_flight_and_its_events() -> None:
    clock, q = new_queue()
    add_in_order(clock, q, "a", "b")
    a, b = pop(q), pop(q)
    q.move_all_to_active_or_backoff_queue(EVENT_ASSIGNED_POD_DELETE)
    assert q.in_flight_event_count() == 3  # two pod markers, one event
    q.done(a.uid)
    assert q.in_flight_event_count() == 2 and q.where("a") is None
    q.done(b.uid)
    q.done(b.uid)  # idempotent
    assert q.in_flight_event_count() == 0 and q.in_flight_pods() == []
    q.move_all_to_active_or_backoff_queue(EVENT_ASSIGNED_POD_DELETE)
    assert q.in_flight_event_count() == 0  # nothing in flight: nothing recorded


def test_activate_moves_unschedulable_and_backoff_pods_and_marks_in_flight_ones() -> None:
    clock, q = new_queue(pop_from_backoff_q=False)
    for uid in ("u", "b", "f"):
        q.add(pod(uid))
        clock.advance(1)
    u, b, f = pop(q), pop(q), pop(q)
    fail(q, u, TAINT)
    q.move_all_to_active_or_backoff_queue(NODE_ALLOCATABLE)  # only NodeResourcesFit registered it
    fail(q, b, FIT)
    assert (q.where("u"), q.where("b")) == (QueueName.UNSCHEDULABLE, QueueName.BACKOFF)
    assert q.activate([pod("u"), pod("b"), pod("f"), pod("unknown")]) == ["u", "b"]
    assert (q.where("u"), q.where("b")) == (QueueName.ACTIVE, QueueName.ACTIVE)
    assert fail(q, f, TAINT) is QueueName.BACKOFF  # the ForceActivate recorded while in flight


def test_pop_blocking_times_out_and_wakes_on_add_and_close() -> None:
    _, q = new_queue()
    assert q.pop_blocking(timeout=0.01) is None
    got: list[QueuedPodInfo | None] = []
    waiter = threading.Thread(target=lambda: got.append(q.pop_blocking(timeout=10)))
    waiter.start()
    q.add(pod("a"))
    waiter.join(10)
    assert [p.uid for p in got if p is not None] == ["a"]
    closer = threading.Thread(target=lambda: got.append(q.pop_blocking(timeout=10)))
    closer.start()
    q.close()
    closer.join(10)
    assert got[-1] is None and q.closed and q.pop() is None


def test_flush_worker_runs_the_loops_on_the_fake_clock() -> None:
    clock, q = new_queue(pop_from_backoff_q=False)
    q.add(pod("a"))
    pinfo = pop(q)
    q.move_all_to_active_or_backoff_queue(EVENT_NODE_ADD)
    fail(q, pinfo, FIT)
    worker = q.start_flush_threads()
    try:
        while clock.waiters < 2:
            threading.Event().wait(0.001)
        clock.advance(3 * SECOND)
        for _ in range(1000):
            if q.where("a") is QueueName.ACTIVE:
                break
            threading.Event().wait(0.005)
    finally:
        worker.stop()
    assert q.where("a") is QueueName.ACTIVE


def test_negative_duration_is_refused_with_its_name() -> None:
    with pytest.raises(ValueError, match="pod_max_backoff must not be negative"):
        SchedulingQueue(FakeClock(), pod_max_backoff=-1)


def test_invariant_violations_are_reported() -> None:
    clock, q = new_queue()
    add_in_order(clock, q, "a", "b")
    fail(q, pop(q), FIT)
    assert q.invariant_violations() == []
    info = q.get("a")
    assert info is not None
    info.unschedulable_plugins.clear()  # corrupt it: nothing could ever wake the pod
    q._active.add(info)  # and queue it twice
    problems = q.invariant_violations()
    assert "a is in both activeQ and unschedulablePods" in problems
    assert "a waits in unschedulablePods without a rejector plugin" in problems
    info.timestamp = -1  # its sort key changed behind the heap's back: it now precedes its parent b
    assert any("ordered before its parent" in p for p in q.invariant_violations())


def test_close_dones_in_flight_pods_and_still_hands_out_what_it_holds() -> None:
    """``TestClose`` (active_queue_test.go): ``close`` calls ``done`` for every in-flight pod, so the in-flight list
    empties; ``activeQueue.unlockedPop`` checks ``closed`` only when there is nothing to pop. refimpl used to keep
    the in-flight pods and to refuse every pop after close (found by the queue refinement test)."""
    clock, q = new_queue()
    add_in_order(clock, q, "p1", "p2", "p3")
    pop(q), pop(q)
    q.move_all_to_active_or_backoff_queue(EVENT_NODE_ADD)
    assert len(q.in_flight_entries()) == 3 and len(q.in_flight_pods()) == 2
    q.close()
    assert q.in_flight_entries() == [] and q.in_flight_pods() == [] and q.in_flight_event_count() == 0
    assert pop(q).uid == "p3" and q.pop() is None and q.closed


# ============================================================================================
# Keyed by namespace/name (podInfoKeyFunc); in flight by UID
# ============================================================================================


def recreated(uid: str, name: str) -> Pod:
    """The pod ``name`` re-created under another UID (same namespace and name)."""
    return Pod(uid=uid, name=name, priority=0, containers=(Container("c", resource_list(cpu=100)),))


def test_add_of_another_uid_replaces_the_entry_and_delete_by_it_removes_it() -> None:
    _clock, q = new_queue()
    q.add(pod("a"))
    q.add(recreated("a2", "a"))
    assert [p.uid for p in q.pods_in_active_q()] == ["a2"]
    q.delete(pod("a"))
    assert len(q) == 0


def test_hand_back_refused_while_another_uid_holds_the_key() -> None:
    _clock, q = new_queue()
    q.add(pod("a"))
    popped = pop(q)
    q.add(recreated("a2", "a"))
    assert q.where("a") is QueueName.IN_FLIGHT and q.where("a2") is QueueName.ACTIVE
    with pytest.raises(QueueError, match="already present in the active queue"):
        fail(q, popped, FIT)
    assert q.in_flight_pods() == [] and pop(q).uid == "a2"


def test_activate_by_another_uid_moves_the_entry() -> None:
    _clock, q = new_queue()
    q.add(pod("a"))
    assert fail(q, pop(q), FIT) is QueueName.UNSCHEDULABLE
    assert q.activate([recreated("a2", "a")]) == ["a2"]
    assert q.where("a") is QueueName.ACTIVE


@pytest.mark.parametrize("same_uid_only", [False, True])
def test_update_across_uids(same_uid_only: bool) -> None:
    """Through v1.36 the unschedulable entry takes the new object; v1.37's ``PodInfo.Update`` refuses another UID,
    so the new object is added as a new pod (``addPod``), replacing the entry by key."""
    _clock, q = new_queue(update_requires_same_uid=same_uid_only)
    q.add(pod("a"))
    assert fail(q, pop(q), TAINT) is QueueName.UNSCHEDULABLE
    q.update(pod("a"), recreated("a2", "a"))
    entry = q.get("a2")
    assert entry is not None and q.get("a") is None
    assert entry.attempts == (0 if same_uid_only else 1)
    # The objects differ only in UID: no update event, so the entry that took it stays unschedulable.
    assert q.where("a2") is (QueueName.ACTIVE if same_uid_only else QueueName.UNSCHEDULABLE)


@pytest.mark.parametrize("leaves", [False, True])
def test_add_of_a_backing_off_pod_leaves_it_in_backoff_q_in_v1_37(leaves: bool) -> None:
    """v1.37.2's ``moveToActiveQ`` has no ``backoffQ.delete``: ``Add`` of a pod in podErrorBackoffQ puts a fresh pod
    info into activeQ and leaves the old one backing off (``add_leaves_backoff_entry``; the spec refuses the step)."""
    clock = FakeClock()
    queue = SchedulingQueue(clock, add_leaves_backoff_entry=leaves)
    a = Pod("a", "a")
    queue.add(a)
    popped = queue.pop()
    assert popped is not None
    queue.add_unschedulable_if_not_present(popped, queue.scheduling_cycle())
    assert [p.uid for p in queue.pods_in_backoff_q()] == ["a"]
    queue.add(a)
    assert [p.uid for p in queue.pods_in_active_q()] == ["a"]
    assert [p.uid for p in queue.pods_in_backoff_q()] == (["a"] if leaves else [])


@pytest.mark.parametrize("updates", [False, True])
def test_a_second_add_of_a_gated_pod_replaces_its_entry_from_v1_36(updates: bool) -> None:
    """v1.36.5's ``moveToActiveQ`` puts a gated pod info in unschedulablePods even when an entry is there
    (``unschedulablePods.addOrUpdate``); v1.35.8's keeps the first (``gated_add_updates_unschedulable_entry``)."""
    from refimpl.scheduler.plugins.scheduling_gates import SchedulingGates

    clock = FakeClock()
    queue = SchedulingQueue(clock, gated_add_updates_unschedulable_entry=updates,
                            pre_enqueue_plugins={"default-scheduler": [SchedulingGates(False)]})
    gated = Pod("a", "a", scheduling_gates=("example.com/gate",))
    queue.add(gated)
    clock.advance(1_000_000_000)
    queue.add(gated)
    [entry] = queue.sub_queues()["unschedulable"]
    assert entry.timestamp == (1_000_000_000 if updates else 0)


@pytest.mark.parametrize("nominates", [False, True])
def test_add_pod_nominates_a_gated_pod_in_v1_37(nominates: bool) -> None:
    """v1.37.2's ``addPod`` records the nomination before ``moveToActiveQ``, a gated pod's too (``add_pod_nominates``);
    earlier releases only for a pod that enters activeQ."""
    from refimpl.scheduler.plugins.scheduling_gates import SchedulingGates

    queue = SchedulingQueue(FakeClock(), add_pod_nominates=nominates,
                            pre_enqueue_plugins={"default-scheduler": [SchedulingGates(False)]})
    queue.add(Pod("a", "a", scheduling_gates=("example.com/gate",), nominated_node_name="node1"))
    assert [r.uid for r in queue.nominator.nominated_pods_for_node("node1")] == (["a"] if nominates else [])


def test_an_update_through_backoff_q_changes_the_pod_info_unschedulable_pods_shares() -> None:
    """SchedulerPopFromBackoffQ off: ``Update``'s requeue loop goes on after backoffQ, and a skipped event puts the same
    pod info into unschedulablePods (``requeuePodWithQueueingStrategy``); a later update through backoffQ
    (``backoffQueue.update``: ``pInfo.Update`` in place) changes the pod both hold, as in Kubernetes v1.35.8."""
    label, toleration = (ClusterEvent(EventResource.POD, action)
                         for action in (ActionType.UPDATE_POD_LABEL, ActionType.UPDATE_POD_TOLERATION))
    hints = {"default-scheduler": {
        label: [QueueingHintFunction("X")],
        toleration: [QueueingHintFunction("X", lambda p, o, n: QueueingHint.QUEUE_SKIP)],
    }}
    _, q = new_queue(queueing_hints=hints, pop_from_backoff_q=False)
    q.add(pod("a"))
    assert fail(q, pop(q), "X") is QueueName.UNSCHEDULABLE
    changed = Pod(uid="a", name="a", labels=FrozenMap({"app": "web"}), tolerations=(Toleration(key="k"),),
                  containers=pod("a").containers)
    q.update(pod("a"), changed)
    [in_backoff], [in_unschedulable] = q.sub_queues()["backoff"], q.sub_queues()["unschedulable"]
    assert in_backoff is in_unschedulable
    raised = Pod(uid="a", name="a", priority=10, labels=changed.labels, tolerations=changed.tolerations,
                 containers=changed.containers)
    q.update(changed, raised)
    assert q.sub_queues()["unschedulable"][0].pod == raised
