"""The spec's scheduling queue does what Kubernetes' own queue tests assert (pkg/scheduler/backend/queue, v1.35).

Every ported table case (:func:`conformance.scenarios.queue.go_cases`) is run through :mod:`spec.queue.operations`
under the default profile, and what the Go test asserts (:class:`~conformance.scenarios.queue.Want`) is compared
with the spec's state at the end. The conformance vectors are generated from the same operations, so this is what
ties their expectations to Kubernetes.
"""

from __future__ import annotations

import pytest

from conformance.ported.scheduling_queue import Want, go_cases, pod
from spec.quantities import SECOND
from spec.queue.backoff import BACKOFF_Q_ORDERING_WINDOW
from spec.queue.events import ClusterEvent
from spec.queue.operations import QueueMoveAll, QueueOperation, QueueWorld, apply_queue_operation, new_queue_world
from spec.queue.state import PodPopped, RecordedEvent, backoff_q_order, backoff_time, get_pod

CASES = {case.id: case for case in go_cases()}


def run(ops: tuple[QueueOperation, ...]) -> tuple[QueueWorld, list[str]]:
    world, popped = new_queue_world(), []
    for op in ops:
        world, outcome = apply_queue_operation(world, op)
        if outcome.popped is not None:
            popped.append(outcome.popped.uid)
        assert outcome.error is None, f"{op}: {outcome.error}"
    return world, popped


UNORDERED = ("active", "backoff", "unschedulable", "in_flight")


def normalised(want: Want) -> Want:
    """``want`` with the fields the Go tests compare as sets sorted."""
    fields = {name: getattr(want, name) for name in Want.__dataclass_fields__}
    return Want(**{n: tuple(sorted(v)) if n in UNORDERED and v is not None else v for n, v in fields.items()})


def observed(world: QueueWorld, popped: list[str], want: Want) -> Want:
    """The spec's state in :class:`Want`'s terms, for the fields ``want`` asserts."""
    queue = world.queue
    events: list[str | ClusterEvent] = []
    for entry in queue.in_flight_events:
        events.append(entry.uid if isinstance(entry, PodPopped) else entry.event)
    got = Want(
        active=tuple(sorted(queue.active_q)),
        backoff=tuple(sorted({*queue.backoff_q, *queue.error_backoff_q})),
        unschedulable=tuple(sorted(queue.unschedulable_pods)),
        in_flight=tuple(sorted(queue.in_flight_pods)),
        in_flight_events=tuple(events),
        popped=tuple(popped),
        backoff_order=backoff_q_order(queue),
        nominated=tuple(sorted(queue.nominator.nominated_pods.items())),
    )
    return Want(**{n: getattr(got, n) if getattr(want, n) is not None else None for n in Want.__dataclass_fields__})


@pytest.mark.parametrize("case_id", sorted(CASES))
def test_spec_does_what_the_kubernetes_test_asserts(case_id: str) -> None:
    case = CASES[case_id]
    world, popped = run(case.ops)
    assert observed(world, popped, case.want) == normalised(case.want), f"{case.go_test}: {case.case}"


def test_backoff_flow_durations() -> None:
    """``TestBackOffFlow``: after each failure the pod backs off 1, 2, 4, 8, 10, 10, 10 seconds, measured as the Go
    test measures it (with PopFromBackoffQ, the expiry is aligned down to the window, so a window is added back)."""
    for on in (True, False):
        case = CASES[f"backoff_flow.pop_from_backoff_{str(on).lower()}"]
        world, durations = new_queue_world(), []
        for op in case.ops:
            before = world.queue.now
            world, _ = apply_queue_operation(world, op)
            if isinstance(op, QueueMoveAll):
                pinfo = get_pod(world.queue, "test-pod")
                assert pinfo is not None and pinfo.uid in world.queue.backoff_q
                expiry = backoff_time(world.queue, pinfo)
                assert expiry is not None
                backoff = expiry - before
                if on:
                    backoff = backoff - backoff % BACKOFF_Q_ORDERING_WINDOW + BACKOFF_Q_ORDERING_WINDOW
                durations.append(backoff // SECOND)
        assert durations == [1, 2, 4, 8, 10, 10, 10], on


def test_cases_cover_the_kubernetes_tests() -> None:
    """The ported tests, by name: a renamed or dropped port fails here."""
    assert {case.go_test for case in CASES.values()} == {
        "Test_InFlightPods", "TestPop", "TestPriorityQueue_AddUnschedulableIfNotPresent",
        "TestPriorityQueue_AddUnschedulableIfNotPresent_Backoff", "TestPriorityQueue_UpdateWhenInflight",
        "TestRecentlyTriedPodsGoBack", "TestPodFailedSchedulingMultipleTimesDoesNotBlockNewerPod",
        "TestHighPriorityBackoff", "TestHighPriorityFlushUnschedulablePodsLeftover", "TestPriorityQueue_Update",
        "TestPriorityQueue_Activate", "TestPriorityQueue_MoveAllToActiveOrBackoffQueueWithQueueingHint",
        "TestBackOffFlow", "TestBackoffQueueOrdering", "TestClose", "TestSchedulingQueue_Close",
        "TestPriorityQueue_Delete", "TestPriorityQueue_moveToActiveQ", "TestPriorityQueue_NominatedPodsForNode",
        "TestPriorityQueue_NominatedPodDeleted", "TestPriorityQueue_UpdateNominatedPodForNode",
    }
    assert len(CASES) >= 50


def test_in_flight_events_keep_the_update_target() -> None:
    """``TestPriorityQueue_Activate`` compares the recorded event with its new object, the activated pod."""
    world, _ = run(CASES["activate.in_flight"].ops)
    assert world.queue.in_flight_events[-1] == RecordedEvent(world.queue.in_flight_events[-1].event, "hpp")  # type: ignore[union-attr]
    assert pod("hpp").uid == "hpp"
