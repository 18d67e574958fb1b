"""Kubernetes' own scheduling-queue tests, ported as queue-area scenarios.

Each :class:`GoCase` is one case of a table test in pkg/scheduler/backend/queue (scheduling_queue_test.go,
backoff_queue_test.go, active_queue_test.go, v1.35), reached through the queue's public calls only (where the Go
test puts a pod straight into a sub-queue, the case adds, pops and hands it back so that it lands there), with what
the Go test asserts in :class:`Want`. ``tests/spec/queue/test_kubernetes.py`` checks every ``Want`` against the spec;
the vectors' expectations come from the spec (:func:`conformance.traces.expand`), never from here.
:mod:`conformance.scenarios.queue` adds the spec's own curated behaviours, exploration and random traces.

Go tests start their fake clock at ``time.Now()``, which is never on a whole second; the cases whose outcome depends
on where the 1 s ordering windows fall step the clock by half a second first, as that start would.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final

from conformance.traces import ALL_PROFILES, Scenario
from spec.frozenmap import FrozenMap
from spec.objects import Pod, Toleration
from spec.quantities import MILLISECOND, SECOND
from spec.queue.backoff import DEFAULT_POD_MAX_BACKOFF, DEFAULT_POD_MAX_IN_UNSCHEDULABLE_PODS_DURATION
from spec.queue.events import (
    EVENT_ASSIGNED_POD_ADD,
    EVENT_FORCE_ACTIVATE,
    EVENT_NODE_ADD,
    EVENT_UNSCHEDULABLE_TIMEOUT,
    EVENT_UNSCHEDULED_POD_UPDATE,
    ActionType,
    ClusterEvent,
    EventResource,
    HintFunction,
    HintMap,
    HintRegistration,
    QueueingHint,
)
from spec.queue.operations import (
    NewQueue,
    QueueActivate,
    QueueAdd,
    QueueAddNominatedPod,
    QueueAddUnschedulable,
    QueueClose,
    QueueDelete,
    QueueDeleteNominatedPod,
    QueueFlushBackoff,
    QueueFlushUnschedulable,
    QueueMoveAll,
    QueueOperation,
    QueuePop,
    QueueStepClock,
    QueueUpdate,
)

PV_ADD: Final = ClusterEvent(EventResource.PERSISTENT_VOLUME, ActionType.ADD)
PV_UPDATE: Final = ClusterEvent(EventResource.PERSISTENT_VOLUME, ActionType.UPDATE)
PVC_ADD: Final = ClusterEvent(EventResource.PERSISTENT_VOLUME_CLAIM, ActionType.ADD)
CSI_NODE_UPDATE: Final = ClusterEvent(EventResource.CSI_NODE, ActionType.UPDATE)
NODE_TAINT: Final = ClusterEvent(EventResource.NODE, ActionType.UPDATE_NODE_TAINT)
Q, SKIP = QueueingHint.QUEUE, QueueingHint.QUEUE_SKIP
HALF_SECOND: Final = 500 * MILLISECOND
NO_HINT_MAP: Final = NewQueue(scheduler_names=frozenset())
"""``NewTestQueue`` without ``WithQueueingHintMapPerProfile``: no profile has a hint map."""


def pod(name: str, priority: int = 0, **fields: object) -> Pod:
    """A pod whose UID is its name (``st.MakePod().Name(name).UID(name)``)."""
    return Pod(name, name, namespace="ns1", priority=priority, **fields)  # type: ignore[arg-type]


def hints(*registrations: tuple[ClusterEvent, Sequence[tuple[str, QueueingHint]]]) -> HintMap:
    """A hint map: each event with (plugin, constant hint) pairs, in order."""
    return tuple(HintRegistration(e, tuple(HintFunction(p, h) for p, h in fs)) for e, fs in registrations)


def new_queue(*registrations: tuple[ClusterEvent, Sequence[tuple[str, QueueingHint]]], **options: object) -> NewQueue:
    """``NewTestQueue`` with ``WithQueueingHintMapPerProfile`` (and other options)."""
    return NewQueue(hints=hints(*registrations), **options)  # type: ignore[arg-type]


def fail(p: Pod, *plugins: str, pending: Sequence[str] = (), cycle: int | None = None) -> QueueAddUnschedulable:
    """Hand ``p`` back, rejected by ``plugins`` (none: an error) and Pending on ``pending``."""
    return QueueAddUnschedulable(p, frozenset(plugins), frozenset(pending), cycle)


def initial(*pods: Pod) -> list[QueueOperation]:
    """``Test_InFlightPods``' initial pods: each added, then the fake clock stepped by a second."""
    ops: list[QueueOperation] = []
    for p in pods:
        ops += [QueueAdd(p), QueueStepClock(SECOND)]
    return ops


def into_backoff(p: Pod, *plugins: str) -> list[QueueOperation]:
    """Reach backoffQ through the public calls: add, pop, a wildcard event during the attempt, hand back."""
    return [QueueAdd(p), QueuePop(), QueueMoveAll(EVENT_UNSCHEDULABLE_TIMEOUT), fail(p, *plugins)]


def into_unschedulable(p: Pod, *plugins: str) -> list[QueueOperation]:
    """Reach unschedulablePods: add, pop, hand back with ``plugins`` and no event in between."""
    return [QueueAdd(p), QueuePop(), fail(p, *plugins)]


@dataclass(frozen=True)
class Want:
    """What the Go test asserts at the end (None: not asserted). Pod lists are UIDs; ``active``, ``backoff``,
    ``unschedulable`` and ``in_flight`` are compared as sets (the Go tests sort them), ``in_flight_events`` in order
    (a pod's marker is its UID), ``popped`` is the sequence of pods the pops returned."""

    active: tuple[str, ...] | None = None
    backoff: tuple[str, ...] | None = None
    unschedulable: tuple[str, ...] | None = None
    in_flight: tuple[str, ...] | None = None
    in_flight_events: tuple[str | ClusterEvent, ...] | None = None
    popped: tuple[str, ...] | None = None
    backoff_order: tuple[str, ...] | None = None
    """podBackoffQ's pods in heap order."""
    nominated: tuple[tuple[str, tuple[str, ...]], ...] | None = None
    """The nominator: (node, pods in the order nominated), by node."""


@dataclass(frozen=True)
class GoCase:
    """One Kubernetes queue test case, ported."""

    id: str
    go_test: str
    case: str
    ops: tuple[QueueOperation, ...]
    want: Want

    def scenario(self) -> Scenario:
        return Scenario(
            f"queue.k8s.{self.id}",
            f"{self.go_test}: {self.case}",
            self.ops,
            area="queue",
            behaviours=("ported",),
            profiles=ALL_PROFILES,
        )


P1, P2, P3 = pod("pod1"), pod("pod2"), pod("pod3")
HIGH, MEDIUM, LOW = 1000, 500, 0
HPP, HPP2, MPP, UP = pod("hpp", HIGH), pod("hpp2", HIGH), pod("mpp", MEDIUM), pod("up", LOW)
FOO = "fooPlugin1"
EVENTS_123 = ((PV_ADD, [(FOO, Q)]), (EVENT_NODE_ADD, [(FOO, Q)]), (PVC_ADD, [(FOO, Q)]))


def want_only(field: str, pods: tuple[str, ...]) -> dict[str, Any]:
    """``Want``'s keyword arguments asserting only ``field`` (a sub-queue's pods)."""
    return {field: pods}


def _in_flight_cases() -> list[GoCase]:
    t = "Test_InFlightPods"
    return [
        GoCase(
            "in_flight.hints_off",
            t,
            "when SchedulingQueueHint is disabled, inFlightPods and inFlightEvents should be empty",
            (new_queue((PV_ADD, [(FOO, Q)]), queueing_hints=False), *initial(P1), QueuePop(), QueueMoveAll(PV_ADD)),
            Want(in_flight=(), in_flight_events=()),
        ),
        GoCase(
            "in_flight.registered",
            t,
            "Pod and interested events are registered in inFlightPods/inFlightEvents",
            (
                new_queue((PV_ADD, [(FOO, Q)])),
                *initial(P1),
                QueueMoveAll(PVC_ADD),
                QueuePop(),
                QueueMoveAll(PV_ADD),
                QueueMoveAll(PV_UPDATE),
            ),
            Want(in_flight=("pod1",), in_flight_events=("pod1", PV_ADD)),
        ),
        GoCase(
            "in_flight.enqueued_back_to_backoff",
            t,
            "Pod, registered in inFlightPods, is enqueued back to backoffQ",
            (
                new_queue(*EVENTS_123),
                *initial(P1, P2),
                QueueMoveAll(PVC_ADD),
                QueuePop(),
                QueueMoveAll(PV_ADD),
                QueuePop(),
                QueueMoveAll(EVENT_NODE_ADD),
                fail(P1),
            ),
            Want(backoff=("pod1",), in_flight=("pod2",), in_flight_events=("pod2", EVENT_NODE_ADD)),
        ),
        GoCase(
            "in_flight.all_enqueued_back",
            t,
            "All Pods registered in inFlightPods are enqueued back to activeQ",
            (
                new_queue(*EVENTS_123, (CSI_NODE_UPDATE, [(FOO, Q)])),
                *initial(P1, P2),
                QueueMoveAll(PVC_ADD),
                QueuePop(),
                QueueMoveAll(PV_ADD),
                QueuePop(),
                QueueMoveAll(EVENT_NODE_ADD),
                fail(P1),
                QueueMoveAll(CSI_NODE_UPDATE),
                fail(P2),
            ),
            Want(backoff=("pod1", "pod2"), in_flight=()),
        ),
        GoCase(
            "in_flight.intermediate_pod",
            t,
            "One intermediate Pod registered in inFlightPods is enqueued back to activeQ",
            (
                new_queue((PV_ADD, [(FOO, Q)]), (EVENT_NODE_ADD, [(FOO, Q)]), (EVENT_ASSIGNED_POD_ADD, [(FOO, Q)])),
                *initial(P1, P2, P3),
                QueueMoveAll(PVC_ADD),
                QueuePop(),
                QueueMoveAll(PV_ADD),
                QueuePop(),
                QueueMoveAll(EVENT_NODE_ADD),
                QueuePop(),
                QueueMoveAll(EVENT_ASSIGNED_POD_ADD),
                fail(P2),
            ),
            Want(
                backoff=("pod2",),
                in_flight=("pod1", "pod3"),
                in_flight_events=("pod1", PV_ADD, EVENT_NODE_ADD, "pod3", EVENT_ASSIGNED_POD_ADD),
            ),
        ),
        GoCase(
            "in_flight.hints_off_move_request",
            t,
            "pod is enqueued to queue without QueueingHint when SchedulingQueueHint is disabled",
            (
                new_queue((EVENT_ASSIGNED_POD_ADD, [(FOO, SKIP)]), queueing_hints=False),
                *initial(P1),
                QueuePop(),
                QueueMoveAll(EVENT_ASSIGNED_POD_ADD),
                fail(P1, FOO),
            ),
            Want(backoff=("pod1",), in_flight=(), in_flight_events=()),
        ),
        GoCase(
            "in_flight.events_before_pop_ignored",
            t,
            "events before popping Pod are ignored when Pod is enqueued back to queue",
            (
                new_queue((EVENT_ASSIGNED_POD_ADD, [(FOO, SKIP)])),
                *initial(P1),
                QueueMoveAll(EVENT_UNSCHEDULABLE_TIMEOUT),
                QueuePop(),
                QueueMoveAll(EVENT_ASSIGNED_POD_ADD),
                fail(P1, FOO),
            ),
            Want(unschedulable=("pod1",), in_flight=(), in_flight_events=()),
        ),
        GoCase(
            "in_flight.no_failed_plugin",
            t,
            "pod is enqueued to backoff if no failed plugin",
            (
                new_queue((EVENT_ASSIGNED_POD_ADD, [(FOO, Q)])),
                *initial(P1),
                QueuePop(),
                QueueMoveAll(EVENT_ASSIGNED_POD_ADD),
                fail(P1),
            ),
            Want(backoff=("pod1",), in_flight=()),
        ),
        GoCase(
            "in_flight.no_interesting_event",
            t,
            "pod is enqueued to unschedulable pod pool if no events that can make the pod schedulable",
            (
                new_queue((EVENT_ASSIGNED_POD_ADD, [(FOO, Q)])),
                *initial(P1),
                QueuePop(),
                QueueMoveAll(EVENT_NODE_ADD),
                fail(P1, FOO),
            ),
            Want(unschedulable=("pod1",), in_flight=()),
        ),
        GoCase(
            "in_flight.hint_skip",
            t,
            "pod is enqueued to unschedulable pod pool because the failed plugin has a hint fn but it returns Skip",
            (
                new_queue((EVENT_ASSIGNED_POD_ADD, [(FOO, SKIP)])),
                *initial(P1),
                QueuePop(),
                QueueMoveAll(EVENT_ASSIGNED_POD_ADD),
                fail(P1, FOO),
            ),
            Want(unschedulable=("pod1",)),
        ),
        GoCase(
            "in_flight.pending_plugin_queue",
            t,
            "pod is enqueued to activeQ because the Pending plugins has a hint fn and it returns Queue",
            (
                new_queue((EVENT_ASSIGNED_POD_ADD, [("fooPlugin3", SKIP), ("fooPlugin2", Q), (FOO, Q)])),
                *initial(P1),
                QueuePop(),
                QueueMoveAll(EVENT_ASSIGNED_POD_ADD),
                fail(P1, "fooPlugin2", "fooPlugin3", pending=(FOO,)),
            ),
            Want(active=("pod1",), in_flight=()),
        ),
        GoCase(
            "in_flight.failed_plugin_queue",
            t,
            "pod is enqueued to backoffQ because the failed plugin has a hint fn and it returns Queue",
            (
                new_queue((EVENT_ASSIGNED_POD_ADD, [("fooPlugin2", SKIP), (FOO, Q)])),
                *initial(P1),
                QueuePop(),
                QueueMoveAll(EVENT_ASSIGNED_POD_ADD),
                fail(P1, FOO, "fooPlugin2"),
            ),
            Want(backoff=("pod1",)),
        ),
        GoCase(
            "in_flight.concurrent_event",
            t,
            "pod is enqueued to activeQ because the pending plugin has a hint fn "
            "and it returns Queue for a concurrent event that was received while some other pod was in flight",
            (
                new_queue((EVENT_ASSIGNED_POD_ADD, [("fooPlugin3", SKIP), ("fooPlugin2", Q), (FOO, Q)])),
                *initial(P1, P2),
                QueuePop(),
                QueueMoveAll(EVENT_NODE_ADD),
                QueuePop(),
                QueueMoveAll(EVENT_ASSIGNED_POD_ADD),
                fail(P1),
                fail(P2, "fooPlugin2", "fooPlugin3", pending=(FOO,)),
            ),
            Want(active=("pod2",), backoff=("pod1",), in_flight=()),
        ),
        GoCase(
            "in_flight.popped_pod_plugins_cleared",
            t,
            "popped pod must have empty UnschedulablePlugins and PendingPlugins",
            (
                new_queue((PV_ADD, [(FOO, Q)])),
                *initial(P1),
                QueuePop(),
                fail(P1, "fooPlugin2", pending=(FOO,)),
                QueueMoveAll(PV_ADD),
                QueuePop(),
                fail(P1),
            ),
            Want(popped=("pod1", "pod1"), backoff=("pod1",)),
        ),
        GoCase(
            "in_flight.pop_twice",
            t,
            "Pop is made twice for the same Pod, but the cleanup still happen correctly "
            "(the Go test injects pod1 into activeQ while it is in flight; here it is added again)",
            (
                new_queue(*EVENTS_123, (CSI_NODE_UPDATE, [(FOO, Q)])),
                *initial(P1, P2),
                QueueMoveAll(PVC_ADD),
                QueuePop(),
                QueueMoveAll(PV_ADD),
                QueuePop(),
                QueueAdd(P1),
                QueueStepClock(SECOND),
                QueueAdd(P3),
                QueuePop(),
                QueueMoveAll(EVENT_NODE_ADD),
                fail(P1),
                QueueMoveAll(CSI_NODE_UPDATE),
                fail(P2),
                fail(P3),
            ),
            Want(active=(), backoff=("pod1", "pod2", "pod3"), in_flight=(), popped=("pod1", "pod2", "pod3")),
        ),
    ]


def _hand_back_cases() -> list[GoCase]:
    pods10 = [pod(f"pod{i}", i) for i in range(10)]
    backoff_case: tuple[QueueOperation, ...] = (
        NO_HINT_MAP,
        *(QueueAdd(p) for p in pods10),
        *(QueuePop() for _ in range(9)),
        QueueMoveAll(EVENT_UNSCHEDULABLE_TIMEOUT),
        QueuePop(),
        *(fail(p, "plugin", cycle=9) for p in pods10[1:]),
    )
    on_off = [
        GoCase(
            f"pop.{name}",
            "TestPop",
            f"{name}: a pod Pending on a plugin comes back at once on that plugin's "
            "event, and is popped with no rejector plugins",
            (
                new_queue((PV_ADD, [(FOO, Q)]), queueing_hints=on),
                QueueAdd(P1),
                QueuePop(),
                fail(P1, pending=(FOO,)),
                QueueMoveAll(PV_ADD),
                QueuePop(),
            ),
            Want(popped=("pod1", "pod1")),
        )
        for name, on in (("with_hints", True), ("without_hints", False))
    ]
    return [
        *on_off,
        GoCase(
            "add_unschedulable.no_event",
            "TestPriorityQueue_AddUnschedulableIfNotPresent",
            "a pod handed back with no event during its attempt waits in unschedulablePods",
            (NO_HINT_MAP, QueueAdd(UP), QueuePop(), QueueAdd(HPP), fail(UP, "plugin"), QueuePop()),
            Want(popped=("up", "hpp"), unschedulable=("up",)),
        ),
        GoCase(
            "add_unschedulable.backoff",
            "TestPriorityQueue_AddUnschedulableIfNotPresent_Backoff",
            "pods whose attempts were under way at a move request go to backoffQ",
            backoff_case,
            Want(
                backoff=tuple(f"pod{i}" for i in range(1, 10)),
                popped=tuple(f"pod{i}" for i in (9, 8, 7, 6, 5, 4, 3, 2, 1, 0)),
            ),
        ),
        GoCase(
            "update_when_in_flight",
            "TestPriorityQueue_UpdateWhenInflight",
            "an update while in flight that may make the pod schedulable sends it to backoffQ when it is rejected",
            (
                new_queue((EVENT_UNSCHEDULED_POD_UPDATE, [("fakePlugin", Q)])),
                QueueAdd(P1),
                QueuePop(),
                QueueUpdate(P1, pod("pod1", tolerations=(Toleration("foo", effect="NoSchedule"),))),
                fail(pod("pod1", tolerations=(Toleration("foo", effect="NoSchedule"),)), "fakePlugin"),
            ),
            Want(backoff=("pod1",)),
        ),
        GoCase(
            "recently_tried_pods_go_back",
            "TestRecentlyTriedPodsGoBack",
            "a pod tried and moved back goes behind "
            "the pods of its priority that were never tried (added a millisecond apart: pods added at the same "
            "instant compare equal)",
            (
                NO_HINT_MAP,
                *(op for i in range(5) for op in (QueueAdd(pod(f"test-pod-{i}", HIGH)), QueueStepClock(MILLISECOND))),
                QueuePop(),
                fail(pod("test-pod-0", HIGH), "plugin"),
                QueueStepClock(DEFAULT_POD_MAX_BACKOFF),
                QueueMoveAll(EVENT_UNSCHEDULABLE_TIMEOUT),
                QueueFlushBackoff(),
                *(QueuePop() for _ in range(4)),
            ),
            Want(popped=("test-pod-0", "test-pod-1", "test-pod-2", "test-pod-3", "test-pod-4"), active=("test-pod-0",)),
        ),
        GoCase(
            "failed_twice_does_not_block_newer",
            "TestPodFailedSchedulingMultipleTimesDoesNotBlockNewerPod",
            "a pod rejected twice does not block a newer pod of its priority",
            (
                NO_HINT_MAP,
                QueueStepClock(HALF_SECOND),
                QueueAdd(pod("unscheduled", HIGH)),
                QueuePop(),
                fail(pod("unscheduled", HIGH), "plugin"),
                QueueStepClock(2 * SECOND),
                QueueMoveAll(EVENT_UNSCHEDULABLE_TIMEOUT),
                QueuePop(),
                QueueAdd(pod("newer", HIGH)),
                fail(pod("unscheduled", HIGH), "plugin"),
                QueueStepClock(2 * SECOND),
                QueueMoveAll(EVENT_UNSCHEDULABLE_TIMEOUT),
                QueuePop(),
            ),
            Want(popped=("unscheduled", "unscheduled", "newer")),
        ),
        GoCase(
            "high_priority_backoff",
            "TestHighPriorityBackoff",
            "a high-priority pod backing off does not block lower ones",
            (
                NO_HINT_MAP,
                QueueAdd(pod("mid", 100)),
                QueueAdd(pod("high", HIGH)),
                QueuePop(),
                fail(pod("high", HIGH), "fooPlugin"),
                QueueMoveAll(EVENT_UNSCHEDULABLE_TIMEOUT),
                QueuePop(),
            ),
            Want(popped=("high", "mid"), backoff=("high",)),
        ),
        GoCase(
            "high_priority_leftover_flush",
            "TestHighPriorityFlushUnschedulablePodsLeftover",
            "the leftover flush moves pods in unschedulablePods past the maximum; they pop in priority order",
            (
                new_queue((EVENT_NODE_ADD, [("fakePlugin", Q)])),
                QueueAdd(pod("high", HIGH)),
                QueuePop(),
                QueueAdd(pod("mid", 100)),
                QueuePop(),
                fail(pod("high", HIGH), "fakePlugin"),
                fail(pod("mid", 100), "fakePlugin"),
                QueueStepClock(DEFAULT_POD_MAX_IN_UNSCHEDULABLE_PODS_DURATION + SECOND),
                QueueFlushUnschedulable(),
                QueuePop(),
                QueuePop(),
            ),
            Want(popped=("high", "mid", "high", "mid")),
        ),
    ]


def _update_cases() -> list[GoCase]:
    t = "TestPriorityQueue_Update"
    update_map = ((EVENT_UNSCHEDULED_POD_UPDATE, [("queuePlugin", Q), ("skipPlugin", SKIP)]),)
    changed = pod("mpp", MEDIUM, node_selector=FrozenMap({"foo": "test"}))
    cases: list[GoCase] = []
    for on in (True, False):
        gate = "with_hints" if on else "without_hints"
        q = new_queue(*update_map, queueing_hints=on)
        cases += [
            GoCase(
                f"update.{gate}.not_queued",
                t,
                "Update pod that didn't exist in the queue",
                (q, QueueUpdate(MPP, changed)),
                Want(active=("mpp",)),
            ),
            GoCase(
                f"update.{gate}.in_active",
                t,
                "When updating a pod that is already in activeQ, the pod should remain in activeQ after Update()",
                (q, QueueAdd(HPP), QueueUpdate(HPP, HPP)),
                Want(active=("hpp",)),
            ),
            GoCase(
                f"update.{gate}.in_backoff",
                t,
                "When updating a pod that is in backoff queue and is still backing "
                "off, it will be updated in backoff queue",
                (q, *into_backoff(MPP, "queuePlugin"), QueueUpdate(MPP, changed)),
                Want(backoff=("mpp",)),
            ),
            GoCase(
                f"update.{gate}.unschedulable_backing_off",
                t,
                "when updating a pod which is in unschedulable queue "
                "and is backing off, it will be moved to backoff queue",
                (q, *into_unschedulable(MPP, "queuePlugin"), QueueUpdate(MPP, changed)),
                Want(backoff=("mpp",)),
            ),
            GoCase(
                f"update.{gate}.unschedulable_done_backing_off",
                t,
                "when updating a pod which is in unschedulable "
                "queue and is not backing off, it will be moved to active queue",
                (
                    q,
                    *into_unschedulable(MPP, "queuePlugin"),
                    QueueStepClock(DEFAULT_POD_MAX_BACKOFF),
                    QueueUpdate(MPP, changed),
                ),
                Want(active=("mpp",)),
            ),
        ]
    cases += [
        GoCase(
            "update.with_hints.skip",
            t,
            "when updating a pod which is in unschedulable pods but the plugin returns "
            "skip, it will remain in unschedulablePods",
            (new_queue(*update_map), *into_unschedulable(MPP, "skipPlugin"), QueueUpdate(MPP, changed)),
            Want(unschedulable=("mpp",)),
        ),
        GoCase(
            "update.with_hints.in_flight",
            t,
            "when updating a pod which is in flightPods, the pod will not be added to any queue",
            (new_queue(*update_map), QueueAdd(MPP), QueuePop(), QueueUpdate(MPP, changed)),
            Want(active=(), backoff=(), unschedulable=(), in_flight=("mpp",)),
        ),
    ]
    return cases


def _activate_cases() -> list[GoCase]:
    t = "TestPriorityQueue_Activate"
    off = NewQueue(queueing_hints=False, scheduler_names=frozenset())
    on = NewQueue(scheduler_names=frozenset())
    return [
        GoCase(
            "activate.in_active",
            t,
            "pod already in activeQ",
            (off, QueueAdd(HPP), QueueActivate(HPP)),
            Want(active=("hpp",)),
        ),
        GoCase(
            "activate.unknown", t, "pod not in unschedulablePods/backoffQ", (off, QueueActivate(HPP)), Want(active=())
        ),
        GoCase(
            "activate.in_flight",
            t,
            "[QHint] pod not in unschedulablePods/backoffQ but in-flight",
            (on, QueueAdd(HPP), QueuePop(), QueueActivate(HPP)),
            Want(active=(), in_flight_events=("hpp", EVENT_FORCE_ACTIVATE)),
        ),
        GoCase(
            "activate.other_in_flight",
            t,
            "[QHint] pod not in unschedulablePods/backoffQ and not in-flight",
            (on, QueueAdd(MPP), QueuePop(), QueueActivate(HPP)),
            Want(active=(), in_flight_events=("mpp",)),
        ),
        GoCase(
            "activate.in_unschedulable",
            t,
            "pod in unschedulablePods",
            (off, *into_unschedulable(HPP, "plugin"), QueueActivate(HPP)),
            Want(active=("hpp",), unschedulable=()),
        ),
        GoCase(
            "activate.in_backoff",
            t,
            "pod in backoffQ",
            (off, *into_backoff(HPP, "plugin"), QueueActivate(HPP)),
            Want(active=("hpp",), backoff=()),
        ),
    ]


def _move_cases() -> list[GoCase]:
    t = "TestPriorityQueue_MoveAllToActiveOrBackoffQueueWithQueueingHint"
    cases = []
    for name, plugins, pending, hint, wait, where in (
        ("pending_to_active", (), ("foo",), Q, 0, "active"),
        ("backing_off_to_backoff", ("foo",), (), Q, 0, "backoff"),
        ("done_backing_off_to_active", ("foo",), (), Q, 2 * SECOND, "active"),
        ("skip_stays", ("foo",), (), SKIP, 0, "unschedulable"),
    ):
        ops = (
            new_queue((EVENT_NODE_ADD, [("foo", hint)])),
            QueueAdd(P1),
            QueuePop(),
            fail(P1, *plugins, pending=pending),
            QueueStepClock(wait),
            QueueMoveAll(EVENT_NODE_ADD),
        )
        cases.append(
            GoCase(
                f"move_all.{name}",
                t,
                f"NodeAdd with hint {hint.value}: the pod ends in {where}",
                ops,
                Want(**want_only(where, ("pod1",))),
            )
        )
    return cases


def _backoff_cases() -> list[GoCase]:
    flow: list[QueueOperation] = [NO_HINT_MAP, QueueStepClock(HALF_SECOND), QueueAdd(pod("test-pod"))]
    for i in range(7):
        flow += [
            QueuePop(),
            fail(pod("test-pod"), "unsched-plugin", cycle=i),
            QueueMoveAll(EVENT_UNSCHEDULABLE_TIMEOUT),
            QueueStepClock(SECOND),
            QueueFlushBackoff(),
            QueueStepClock(min(2**i, 10) * SECOND),
            QueueFlushBackoff(),
        ]
    ordering = [pod(f"pod{i}", prio) for i, prio in enumerate((1, 1, 2, 1, 2, 1))]
    order_ops: list[QueueOperation] = []
    # Handed back 3 s, 2 s, 2 s, 2 s - 1 ms, 1 s and 0 s before an aligned instant, as the Go test's timestamps.
    for i, step in ((5, SECOND), (3, 0), (4, MILLISECOND), (2, SECOND - MILLISECOND), (1, SECOND), (0, 0)):
        order_ops += [
            QueueAdd(ordering[i]),
            QueuePop(),
            QueueMoveAll(EVENT_UNSCHEDULABLE_TIMEOUT),
            fail(ordering[i], "plugin"),
            QueueStepClock(step),
        ]
    return (
        [
            GoCase(
                f"backoff_flow.pop_from_backoff_{on}".lower(),
                "TestBackOffFlow",
                "backoff doubles per failure from "
                "1 s up to 10 s; the pod stays in backoffQ after an early flush and leaves it after its backoff",
                (NewQueue(pop_from_backoff_q=on, scheduler_names=frozenset()), *flow[1:]),
                Want(popped=("test-pod",) * 7, backoff=()),
            )
            for on in (True, False)
        ]
        + [
            GoCase(
                f"backoff_ordering.pop_from_backoff_{on}".lower(),
                "TestBackoffQueueOrdering",
                "pods in the same 1 s "
                "window are ordered by priority in podBackoffQ with PopFromBackoffQ, by expiry alone without it, and "
                "a flush takes those done backing off",
                (NewQueue(pop_from_backoff_q=on, scheduler_names=frozenset()), *order_ops, QueueFlushBackoff()),
                Want(backoff=("pod0", "pod1"), active=("pod5", "pod4", "pod2", "pod3")),
            )
            for on in (True, False)
        ]
        + [
            GoCase(
                f"backoff_ordering.order_pop_from_backoff_{on}".lower(),
                "TestBackoffQueueOrdering",
                "the order of podBackoffQ before the flush",
                (NewQueue(pop_from_backoff_q=on, scheduler_names=frozenset()), *order_ops),
                Want(
                    backoff_order=("pod5", "pod4", "pod2", "pod3", "pod1", "pod0")
                    if on
                    else ("pod5", "pod3", "pod4", "pod2", "pod1", "pod0")
                ),
            )
            for on in (True, False)
        ]
    )


def _close_cases() -> list[GoCase]:
    return [
        GoCase(
            "close.in_flight_cleaned",
            "TestClose",
            "close() calls done for every in-flight pod",
            (
                NO_HINT_MAP,
                QueueAdd(pod("p1")),
                QueueStepClock(SECOND),
                QueueAdd(pod("p2")),
                QueuePop(),
                QueuePop(),
                QueueMoveAll(EVENT_NODE_ADD),
                QueueMoveAll(CSI_NODE_UPDATE),
                QueueClose(),
            ),
            Want(in_flight=(), in_flight_events=()),
        ),
        GoCase(
            "close.pop_returns_nothing",
            "TestSchedulingQueue_Close",
            "Pop on an empty closed queue returns nil",
            (NO_HINT_MAP, QueueClose(), QueuePop()),
            Want(popped=()),
        ),
        GoCase(
            "delete",
            "TestPriorityQueue_Delete",
            "Delete takes a pod out of activeQ",
            (NO_HINT_MAP, QueueAdd(HPP), QueueAdd(UP), QueueDelete(HPP)),
            Want(active=("up",)),
        ),
    ]


def _pre_enqueue_cases() -> list[GoCase]:
    """``TestPriorityQueue_moveToActiveQ``, with SchedulingGates as the PreEnqueue plugin: the Go test's allow-list
    plugin rejects a pod without an allowed label, here a pod with a scheduling gate is the one rejected. The Go
    test calls ``moveToActiveQ`` directly; here the pod gets there through ``Add``, the backoff flush, ``Activate``,
    and an update that gates a pod in backoffQ (the test's direct setup)."""
    t = "TestPriorityQueue_moveToActiveQ"
    gated = pod("bar", scheduling_gates=("example.com/gate",))
    free = pod("bar")

    def queue(plugins: bool, popping: bool) -> NewQueue:
        return NewQueue(pop_from_backoff_q=popping, pre_enqueue_plugins=("SchedulingGates",) if plugins else ())

    def gated_in_backoff(popping: bool) -> list[QueueOperation]:
        return [queue(True, popping), *into_backoff(free, "plugin"), QueueUpdate(free, gated),
                QueueStepClock(2 * SECOND)]

    cases = []
    for popping in (True, False):
        on = "pop_from_backoff" if popping else "no_pop_from_backoff"
        cases += [
            GoCase(f"move_to_active.no_plugins.{on}", t, f"no plugins registered popFromBackoffQEnabled({popping})",
                   (queue(False, popping), QueueAdd(gated)), Want(active=("bar",), unschedulable=())),
            GoCase(f"move_to_active.rejected.{on}", t,
                   f"preEnqueue plugin registered, pod failed one preEnqueue plugin popFromBackoffQEnabled({popping})",
                   (queue(True, popping), QueueAdd(gated)), Want(active=(), unschedulable=("bar",))),
            GoCase(f"move_to_active.passed.{on}", t,
                   f"preEnqueue plugin registered, pod passed all preEnqueue plugins popFromBackoffQEnabled({popping})",
                   (queue(True, popping), QueueAdd(free)), Want(active=("bar",), unschedulable=())),
        ]
    return [
        *cases,
        GoCase("move_to_active.rejected_after_backoff", t, "preEnqueue plugin registered, preEnqueue rejects the pod, "
               "even if it is after backoff popFromBackoffQEnabled(false)",
               (*gated_in_backoff(False), QueueFlushBackoff()), Want(active=(), backoff=(), unschedulable=("bar",))),
        GoCase("move_to_active.from_backoff_not_run", t, "preEnqueue plugin registered, pod would fail one preEnqueue "
               "plugin, but it is moved from backoffQ after completing backoff, so preEnqueue is not executed "
               "popFromBackoffQEnabled(true)",
               (*gated_in_backoff(True), QueueFlushBackoff()), Want(active=("bar",), unschedulable=())),
        GoCase("move_to_active.activated_from_unschedulable", t, "preEnqueue plugin registered, pod failed one "
               "preEnqueue plugin when activated from unschedulablePods popFromBackoffQEnabled(true)",
               (queue(True, True), QueueAdd(gated), QueueActivate(gated)), Want(active=(), unschedulable=("bar",))),
        GoCase("move_to_active.activated_from_backoff", t, "preEnqueue plugin registered, pod would fail one "
               "preEnqueue plugin, but was activated from backoffQ, so preEnqueue is not executed "
               "popFromBackoffQEnabled(true)",
               (*gated_in_backoff(True), QueueActivate(gated)), Want(active=("bar",), backoff=())),
    ]


def _nominator_cases() -> list[GoCase]:
    """The nominator tests: ``TestPriorityQueue_NominatedPodsForNode``, ``TestPriorityQueue_NominatedPodDeleted``,
    ``TestPriorityQueue_UpdateNominatedPodForNode`` (their pods: ``hpp`` at 1000, ``mpp`` at 500 and ``up`` at 0
    nominated to node1, ``ne`` that the informer does not have, ``sp`` bound to foo)."""
    hpp, mpp, up = pod("hpp", HIGH), pod("mpp", MEDIUM, nominated_node_name="node1"), pod("up", LOW,
                                                                                         nominated_node_name="node1")
    hpp_nominated, ne, sp = pod("hpp", HIGH, nominated_node_name="node1"), pod("ne"), pod("sp")
    t = "TestPriorityQueue_UpdateNominatedPodForNode"
    start = (QueueAdd(mpp), QueueAddNominatedPod(up, "node5"), QueueAddNominatedPod(hpp, "node2"))
    after_update = (*start, QueuePop(), QueueAddNominatedPod(hpp, "node4"))
    updated = (("node1", ("mpp",)), ("node4", ("hpp",)), ("node5", ("up",)))
    return [
        GoCase("nominator.for_node", "TestPriorityQueue_NominatedPodsForNode", "the pods nominated to node1, in the "
               "order added; none to node2", (QueueAdd(mpp), QueueAdd(up), QueueAdd(hpp), QueuePop()),
               Want(popped=("hpp",), nominated=(("node1", ("mpp", "up")),))),
        GoCase("nominator.alive", "TestPriorityQueue_NominatedPodDeleted", "alive pod gets added into PodNominator",
               (QueueAddNominatedPod(mpp),), Want(nominated=(("node1", ("mpp",)),))),
        GoCase("nominator.deleted", "TestPriorityQueue_NominatedPodDeleted", "deleted pod shouldn't be added into "
               "PodNominator", (QueueAddNominatedPod(hpp_nominated, gone=True),), Want(nominated=())),
        GoCase("nominator.without_nominated_node", "TestPriorityQueue_NominatedPodDeleted", "pod without "
               ".status.nominatedPodName specified shouldn't be added into PodNominator",
               (QueueAddNominatedPod(hpp),), Want(nominated=())),
        GoCase("nominator.override", t, "nominated on a node other than the pod's, or one the pod does not name; "
               "unchanged by a pop", (*start, QueuePop()),
               Want(popped=("mpp",), nominated=(("node1", ("mpp",)), ("node2", ("hpp",)), ("node5", ("up",))))),
        GoCase("nominator.renominated", t, "update one of the nominated pods that doesn't have nominatedNodeName in "
               "the pod object", after_update, Want(nominated=updated)),
        GoCase("nominator.gone_or_bound", t, "a pod deleted from the informer cache, or already scheduled there, is "
               "not nominated", (*after_update, QueueAddNominatedPod(ne, "node1", gone=True),
                                 QueueAddNominatedPod(sp, "node1", bound_to="foo")), Want(nominated=updated)),
        GoCase("nominator.deleted_nomination", t, "delete a nominated pod that doesn't have nominatedNodeName in the "
               "pod object", (*after_update, QueueDeleteNominatedPod("hpp")),
               Want(nominated=(("node1", ("mpp",)), ("node5", ("up",))))),
    ]


def go_cases() -> list[GoCase]:
    """Every ported Kubernetes queue test case."""
    return [
        *_in_flight_cases(),
        *_hand_back_cases(),
        *_update_cases(),
        *_activate_cases(),
        *_move_cases(),
        *_backoff_cases(),
        *_close_cases(),
        *_pre_enqueue_cases(),
        *_nominator_cases(),
    ]
