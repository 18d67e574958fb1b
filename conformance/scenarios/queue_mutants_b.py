"""Queue scenarios that mutation testing of the scheduling queue (issue 25) showed missing: backoff durations with
non-default bounds, the ordering window, podBackoffQ's tie-break, the heaps' re-sorting on update and delete, the
in-flight event log over many events, event matching, and the update events of ``PodSchedulingPropertiesChange``.

Each scenario names the Go function it shows (pkg/scheduler/backend/queue/ and pkg/scheduler/framework/, v1.35.8).
Expected outcomes come from the spec (:func:`conformance.traces.expand`), never from here.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Final

from conformance.ported.scheduling_queue import NODE_TAINT, Q, fail, new_queue, pod
from conformance.traces import ALL_PROFILES, Scenario
from spec.frozenmap import FrozenMap
from spec.objects import RESTART_POLICY_ALWAYS, Container, Pod
from spec.quantities import SECOND, resource_list
from spec.queue.events import EVENT_NODE_ADD
from spec.queue.operations import (
    NewQueue,
    QueueAdd,
    QueueDelete,
    QueueDone,
    QueueFlushBackoff,
    QueueMoveAll,
    QueueOperation,
    QueuePop,
    QueueRunFor,
    QueueStepClock,
    QueueUpdate,
)

FIT: Final = "NodeResourcesFit"
JUST_BEFORE_A_WINDOW: Final = SECOND - 1
"""A clock step that leaves the clock 1 ns before a whole second, where a 1 ns longer backoff ends in the next
ordering window."""


def _s(sid: str, description: str, ops: list[QueueOperation], *labels: str,
       profiles: tuple[str, ...] = ALL_PROFILES) -> Scenario:
    return Scenario(f"queue.mutants_b.{sid}", description, ops, area="queue", behaviours=labels, profiles=profiles)


def _cpu(name: str, *millis: int, **fields: Any) -> Pod:
    """Pod ``name`` with one container per cpu request in ``millis``."""
    containers = tuple(Container(f"c{i}", resource_list(cpu=m)) for i, m in enumerate(millis))
    return replace(pod(name), containers=containers, **fields)


def _backoff_scenarios() -> list[Scenario]:
    a = pod("a")
    return [
        _s(
            "backoff.max_one_nanosecond",
            "calculateBackoffDuration and getBackoffTime with podMaxBackoffDuration 1 ns: a pod that failed with an "
            "error at 1 ns before a whole second backs off for 1 ns (the cap), so its expiry is the next window's "
            "start and it waits in podErrorBackoffQ (isPodBackingoff)",
            [NewQueue(pod_max_backoff=1), QueueAdd(a), QueuePop(), QueueStepClock(JUST_BEFORE_A_WINDOW), fail(a)],
            "backoff",
        ),
        _s(
            "backoff.capped_below_default",
            "calculateBackoffDuration caps at the queue's podMaxBackoffDuration (2 s here), not the default 10 s: the "
            "third consecutive error backs off 2 s, not 4 s",
            [NewQueue(pod_max_backoff=2 * SECOND), QueueAdd(a), QueuePop(), fail(a), QueueRunFor(3 * SECOND),
             QueuePop(), fail(a), QueueRunFor(3 * SECOND), QueuePop(), fail(a)],
            "backoff",
        ),
        _s(
            "backoff.cap_test_is_strict",
            "calculateBackoffDuration caps only when initial > max >> (count-1): with initial 1 s and max 2 s + 1 ns "
            "the second error backs off exactly 2 s (1 s << 1), so a failure 1 ns before a whole second expires in "
            "that window, not the next",
            [NewQueue(pod_max_backoff=2 * SECOND + 1), QueueAdd(a), QueuePop(), fail(a), QueueRunFor(3 * SECOND),
             QueuePop(), QueueStepClock(JUST_BEFORE_A_WINDOW), fail(a)],
            "backoff",
        ),
        _s(
            "backoff.initial_zero",
            "calculateBackoffDuration with podInitialBackoffDuration 0: a failed pod's backoff is 0 (no error), so "
            "it expires at its failure time",
            [NewQueue(pod_initial_backoff=0), QueueAdd(a), QueuePop(), QueueStepClock(SECOND // 2), fail(a)],
            "backoff",
        ),
        _s(
            "backoff.max_zero_two_errors",
            "getBackoffTime with podMaxBackoffDuration 0 gives the zero time (no backoff): with QueueingHints off two "
            "pods that failed with an error both go to podErrorBackoffQ (AddUnschedulableIfNotPresent), whose heap "
            "compares their zero expiries (lessBackoffCompleted), and the next flush moves both to activeQ",
            [NewQueue(queueing_hints=False, pod_max_backoff=0), QueueAdd(pod("x", 2)), QueueAdd(pod("y", 1)),
             QueuePop(), QueuePop(), fail(pod("x", 2)), fail(pod("y", 1)), QueueFlushBackoff()],
            "backoff", "hints-off",
        ),
        _s(
            "backoff.unaligned_now",
            "isPodBackingoff with SchedulerPopFromBackoffQ off compares the expiry with now itself (alignToWindow is "
            "off): a pod whose backoff ended at 1.5 s is flushed to activeQ at 1.7 s (flushBackoffQCompleted)",
            [NewQueue(pop_from_backoff_q=False), QueueAdd(a), QueuePop(), QueueStepClock(SECOND // 2), fail(a),
             QueueStepClock(SECOND + SECOND // 5), QueueFlushBackoff()],
            "backoff",
        ),
    ]


def _backoff_order_scenarios() -> list[Scenario]:
    lo, hi = pod("lo", 1), pod("hi", 5)
    x, y = pod("x", 2), pod("y", 1)
    return [
        _s(
            "order.window_tie_by_priority",
            "lessBackoffCompletedWithPriority: two pods whose backoffs end in the same window are ordered by activeQ's "
            "order, so Pop with an empty activeQ (SchedulerPopFromBackoffQ) takes the higher-priority one though the "
            "other entered podBackoffQ first",
            [QueueAdd(lo), QueueAdd(hi), QueuePop(), QueuePop(), fail(lo, FIT), fail(hi, FIT),
             QueueMoveAll(EVENT_NODE_ADD), QueuePop()],
            "pop-from-backoffq",
        ),
        _s(
            "order.earlier_window_first",
            "lessBackoffCompletedWithPriority: a pod whose backoff ends in an earlier window comes first whatever "
            "the priorities, so Pop with an empty activeQ takes the low-priority pod that failed a second earlier",
            [QueueAdd(lo), QueueAdd(hi), QueuePop(), QueuePop(), fail(lo, FIT), QueueStepClock(SECOND),
             fail(hi, FIT), QueueMoveAll(EVENT_NODE_ADD), QueuePop()],
            "pop-from-backoffq",
        ),
        _s(
            "order.update_in_backoff_resorts",
            "Update of a pod in podBackoffQ re-sorts the heap (backoffQueue.update, heap.AddOrUpdate): y, raised above "
            "x's priority while both back off in the same window, is the one Pop takes from podBackoffQ",
            [QueueAdd(x), QueueAdd(y), QueuePop(), QueuePop(), fail(x, FIT), fail(y, FIT),
             QueueMoveAll(EVENT_NODE_ADD), QueueUpdate(y, pod("y", 3)), QueuePop()],
            "pop-from-backoffq",
        ),
    ]


def _heap_scenarios() -> list[Scenario]:
    a, b, c = pod("a", 2), pod("b", 1), pod("c", 0)
    up = [pod(f"u{p}", p) for p in (4, 6, 12, 10, 2)]
    rem = [pod(f"r{p}", p) for p in (4, 2, 6, 1, 16, 7, 13)]
    return [
        _s(
            "heap.update_in_active_resorts",
            "Update of a pod in activeQ re-sorts the heap (activeQueue.update, heap.AddOrUpdate then heap.Fix): c, "
            "raised to the highest priority, is popped first",
            [QueueAdd(a), QueueAdd(b), QueueAdd(c), QueueUpdate(c, pod("c", 5)), QueuePop()],
            "queue-sort",
        ),
        _s(
            "heap.sift_up_parent",
            "heap.Push sifts a new item up past its parent ((j-1)/2): five pods of priorities 4, 6, 12, 10, 2 added "
            "in that order pop by priority",
            [*(QueueAdd(p) for p in up), *(QueuePop() for _ in up)],
            "queue-sort",
        ),
        _s(
            "heap.delete_sifts_up",
            "heap.Delete (container/heap.Remove) sifts the moved last item up when it cannot go down: after deleting "
            "the priority-1 pod from seven, the other six pop by priority",
            [*(QueueAdd(p) for p in rem), QueueDelete(rem[3]), *(QueuePop() for _ in rem[1:])],
            "queue-sort",
        ),
    ]


def _in_flight_log_scenarios() -> list[Scenario]:
    a, b, c = pod("a", 3), pod("b", 2), pod("c", 1)
    moves: list[QueueOperation] = [QueueMoveAll(EVENT_NODE_ADD) for _ in range(65)]
    return [
        _s(
            "in_flight.long_event_log",
            "activeQueue's inFlightEvents over many events (addEventIfAnyInFlight, done pruning the list's head): a is "
            "popped, 65 Node/Add events are recorded, b is popped and a done; 65 more events, c popped, one more "
            "event, b done: the in-flight list still holds c and the event after it",
            [QueueAdd(a), QueueAdd(b), QueueAdd(c), QueuePop(), *moves, QueuePop(), QueueDone("a"), *moves,
             QueuePop(), QueueMoveAll(EVENT_NODE_ADD), QueueDone("b")],
            "in-flight",
            profiles=("v1.35",),
        ),
    ]


def _event_scenarios() -> list[Scenario]:
    a = pod("a")
    base = _cpu("a", 100, 100)
    sidecar = Container("s", resource_list(cpu=100), restart_policy=RESTART_POLICY_ALWAYS)
    init = Container("i", resource_list(cpu=150))
    return [
        _s(
            "events.disjoint_actions_do_not_match",
            "MatchClusterEvents needs the actions to overlap: a plugin registered for Node/UpdateNodeTaint only is "
            "not asked about Node/Add (whose bit is lower), so the pod it rejected stays in unschedulablePods and no "
            "move request is made",
            [new_queue((NODE_TAINT, [("P", Q)])), QueueAdd(a), QueuePop(), fail(a, "P"),
             QueueMoveAll(EVENT_NODE_ADD)],
            "hints",
        ),
        _s(
            "events.update_kinds_in_flight",
            "PodSchedulingPropertiesChange, recorded for the pod in flight (addEventsIfPodInFlight): a label change "
            "with equal requests is UpdatePodLabel only (no UpdatePodScaleDown: a request kept is not lowered); "
            "lowered requests are UpdatePodScaleDown; a bound new object gives AssignedPod events",
            [QueueAdd(base), QueuePop(),
             QueueUpdate(base, _cpu("a", 100, 100, labels=FrozenMap({"k": "v"}))),
             QueueUpdate(base, _cpu("a", 50, 100)),
             QueueUpdate(base, _cpu("a", 100, 100, node_name="n1"))],
            "in-flight",
        ),
        _s(
            "events.pod_requests_in_flight",
            "extractPodScaleDown compares resource.PodRequests: containers summed, each init container (with the "
            "sidecars before it) as a peak, a sidecar's requests added to the sum, pod-level requests replacing the "
            "aggregate, overhead added last; each update of the in-flight pod is recorded as UpdatePodScaleDown or "
            "the generic Update",
            [QueueAdd(base), QueuePop(),
             # a sidecar joins the sum: 100+100 -> 150+40 lowers it
             QueueUpdate(_cpu("a", 100, init_containers=(sidecar,)),
                         _cpu("a", 150, init_containers=(replace(sidecar, requests=resource_list(cpu=40)),))),
             # an init container is a peak: max(200, 150) -> max(150, 150) lowers it
             QueueUpdate(_cpu("a", 100, 100, init_containers=(init,)), _cpu("a", 50, 100, init_containers=(init,))),
             # an init container above the sum: max(100, 150) -> max(50, 150) is no scale-down
             QueueUpdate(_cpu("a", 100, init_containers=(init,)), _cpu("a", 50, init_containers=(init,))),
             # overhead is added: 200+10 -> 150+10
             QueueUpdate(_cpu("a", 100, 100, overhead=resource_list(cpu=10)),
                         _cpu("a", 50, 100, overhead=resource_list(cpu=10))),
             # overhead alone: 10 -> a 10 container request is no scale-down
             QueueUpdate(pod("a", overhead=resource_list(cpu=10)), _cpu("a", 10)),
             # pod-level requests replace the aggregate, then overhead is added: 300+10 -> 300+5
             QueueUpdate(_cpu("a", 100, pod_level_requests=resource_list(cpu=300), overhead=resource_list(cpu=10)),
                         _cpu("a", 100, pod_level_requests=resource_list(cpu=300), overhead=resource_list(cpu=5))),
             # pod-level requests stand for the containers': 300 -> 300 with a container lowered is no scale-down
             QueueUpdate(_cpu("a", 100, pod_level_requests=resource_list(cpu=300)),
                         _cpu("a", 50, pod_level_requests=resource_list(cpu=300))),
             # an init container request of 0 is a request: 0 -> a 0 container request is no scale-down
             QueueUpdate(pod("a", init_containers=(Container("z", resource_list(cpu=0)),)), _cpu("a", 0))],
            "in-flight",
        ),
    ]


def queue_mutants_b_scenarios() -> list[Scenario]:
    """Every scenario of this module."""
    return [*_backoff_scenarios(), *_backoff_order_scenarios(), *_heap_scenarios(), *_in_flight_log_scenarios(),
            *_event_scenarios()]
