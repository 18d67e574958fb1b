"""The nominator (spec/queue/nominator.py) and the failure handler's use of it (spec/cycle/failure.py).

The cases follow Kubernetes' nominator behaviour as its queue tests check it (pkg/scheduler/backend/queue/
scheduling_queue_test.go, v1.35: TestPriorityQueue_AddNominatedPod..., TestPriorityQueue_UpdateNominatedPodForNode,
TestPriorityQueue_NominatedPodDeleted) and handleSchedulingFailure (schedule_one_test.go, TestHandleSchedulingFailure).
"""

from __future__ import annotations

from spec.cache import cache as cache_ops
from spec.cycle.failure import (
    NOTE_LENGTH_LIMIT,
    REASON_SCHEDULER_ERROR,
    REASON_UNSCHEDULABLE,
    FailureHandling,
    handle_scheduling_failure,
    truncate_message,
)
from spec.cycle.invariants import inv_nominated_resources_not_double_counted
from spec.dispatcher.api_calls import NominatingInfo, NominatingMode
from spec.objects import Node, Pod, with_node_name
from spec.quantities import resource_list
from spec.queue.invariants import nominator_consistent
from spec.queue.nominator import (
    CLEAR_NOMINATED_NODE,
    EMPTY_NOMINATOR,
    add_nominated_pod,
    delete_nominated_pod_if_exists,
    nominated_node_of,
    nominated_pods_for_node,
    update_nominated_pod,
    with_nominated_node,
)

A, B = Pod("a", "a"), Pod("b", "b")
TO_N1 = NominatingInfo(NominatingMode.OVERRIDE, "n1")


def test_override_nominates_and_a_pod_is_held_once() -> None:
    n = add_nominated_pod(EMPTY_NOMINATOR, A, TO_N1, A, False)
    n = add_nominated_pod(n, B, TO_N1, B, False)
    n = add_nominated_pod(n, A, NominatingInfo(NominatingMode.OVERRIDE, "n2"), A, False)
    assert nominated_pods_for_node(n, "n1") == ("b",)
    assert nominated_pods_for_node(n, "n2") == ("a",)
    assert nominator_consistent(n)


def test_noop_takes_the_pods_own_nominated_node() -> None:
    n = add_nominated_pod(EMPTY_NOMINATOR, with_nominated_node(A, "n3"), None, A, False)
    assert nominated_node_of(n, "a") == "n3"
    assert add_nominated_pod(EMPTY_NOMINATOR, A, None, A, False) == EMPTY_NOMINATOR


def test_a_pod_gone_or_bound_is_not_nominated() -> None:
    """``addNominatedPodUnlocked``'s lister check."""
    assert add_nominated_pod(EMPTY_NOMINATOR, A, TO_N1, None, False) == EMPTY_NOMINATOR
    held = add_nominated_pod(EMPTY_NOMINATOR, A, TO_N1, A, False)
    assert add_nominated_pod(held, A, TO_N1, with_node_name(A, "n1"), False) == EMPTY_NOMINATOR


def test_an_update_without_nominated_node_keeps_the_nomination_in_memory() -> None:
    """``UpdateNominatedPod``: the update from the API server may arrive before the patch; the node stays."""
    n = add_nominated_pod(EMPTY_NOMINATOR, A, TO_N1, A, False)
    updated = Pod("a", "a", priority=5)
    assert nominated_node_of(update_nominated_pod(n, A, updated, updated, False), "a") == "n1"
    moved = with_nominated_node(updated, "n2")
    assert nominated_node_of(update_nominated_pod(n, A, moved, moved, False), "a") == "n2"


def test_an_empty_override_is_stored_through_v1_36_and_clears_from_v1_37() -> None:
    """``addNominatedPodUnlocked``: v1.36.5 keys the pod under ``""``; v1.37.2 returns after the delete
    (:attr:`spec.versions.VersionProfile.empty_nomination_clears`)."""
    held = add_nominated_pod(EMPTY_NOMINATOR, A, TO_N1, A, False)
    assert nominated_pods_for_node(add_nominated_pod(held, A, CLEAR_NOMINATED_NODE, A, False), "") == ("a",)
    assert add_nominated_pod(held, A, CLEAR_NOMINATED_NODE, A, True) == EMPTY_NOMINATOR
    assert handle_scheduling_failure(A, True, "m", CLEAR_NOMINATED_NODE, A, held, True).nominator == EMPTY_NOMINATOR


def test_delete_removes_the_node_entry_when_it_empties() -> None:
    n = delete_nominated_pod_if_exists(add_nominated_pod(EMPTY_NOMINATOR, A, TO_N1, A, False), "a")
    assert n == EMPTY_NOMINATOR and delete_nominated_pod_if_exists(n, "zz") == n


def test_failure_handler_requeues_the_listed_version_and_nominates_it() -> None:
    listed = Pod("a", "a", priority=3)
    handled = handle_scheduling_failure(A, True, "0/1 nodes are available", TO_N1, listed, EMPTY_NOMINATOR, False)
    assert handled.requeued == listed
    assert nominated_node_of(handled.nominator, "a") == "n1"
    assert handled.condition is not None
    assert handled.condition.reason == REASON_UNSCHEDULABLE and handled.condition.status == "False"
    assert handled.nominated_node_patch == "n1"


def test_failure_handler_does_not_requeue_a_deleted_or_bound_pod() -> None:
    held = add_nominated_pod(EMPTY_NOMINATOR, A, TO_N1, A, False)
    gone = handle_scheduling_failure(A, False, "boom", CLEAR_NOMINATED_NODE, None, held, False)
    assert gone.requeued is None and gone.nominator == EMPTY_NOMINATOR
    assert gone.condition is not None and gone.condition.reason == REASON_SCHEDULER_ERROR
    bound = handle_scheduling_failure(A, True, "x", None, with_node_name(A, "n9"), held, False)
    assert bound.requeued is None and bound.nominator == EMPTY_NOMINATOR and bound.nominated_node_patch is None


def test_failure_handler_skips_a_recreated_pod() -> None:
    """TestHandleSchedulingFailureSkipsRecreatedPod (pkg/scheduler/schedule_one_test.go, v1.35.8): the informer has
    another pod (another UID) under the failed pod's name: no requeue, no nomination, no event, no patch."""
    held = add_nominated_pod(EMPTY_NOMINATOR, A, TO_N1, A, False)
    recreated = Pod("a2", "a", priority=5)
    handled = handle_scheduling_failure(A, True, "m", TO_N1, recreated, held, False)
    assert handled == FailureHandling(None, held, None, None, "")


def test_the_patch_writes_the_nominated_node_only_when_it_changes() -> None:
    pod = with_nominated_node(A, "n1")
    assert handle_scheduling_failure(pod, True, "m", TO_N1, pod, EMPTY_NOMINATOR, False).nominated_node_patch is None
    assert handle_scheduling_failure(pod, True, "m", CLEAR_NOMINATED_NODE, pod, EMPTY_NOMINATOR, False) \
        .nominated_node_patch == ""


def test_truncate_message() -> None:
    assert truncate_message("short") == "short"
    long = truncate_message("x" * 2000)
    assert len(long) == NOTE_LENGTH_LIMIT and long.endswith(" ...")


def test_double_count_invariant_fails_when_assume_keeps_the_nomination() -> None:
    """``assume`` must remove the nomination (DeleteNominatedPodIfExists); a broken assume that keeps it makes the
    pod count twice on its node."""
    pod = Pod("a", "a", containers=())
    state = cache_ops.add_node(cache_ops.new_cache(), Node("n1", resource_list(cpu=1000, memory=1000, pods=5)))
    nominator = add_nominated_pod(EMPTY_NOMINATOR, pod, TO_N1, pod, False)
    assumed_state = cache_ops.assume_pod(state, with_node_name(pod, "n1"))
    assert inv_nominated_resources_not_double_counted(nominator, state)
    assert inv_nominated_resources_not_double_counted(delete_nominated_pod_if_exists(nominator, "a"), assumed_state)
    assert not inv_nominated_resources_not_double_counted(nominator, assumed_state)


def test_the_queue_resolves_nominated_pods_to_what_it_holds() -> None:
    """``NominatedPodsForNode`` / ``nominatedPodToInfo``: a queued pod as queued; one in flight is only its name and
    UID (priority 0, no requests), which is how Filter then counts it."""
    from spec.queue import queue as q
    from spec.queue.state import new_scheduling_queue

    high = Pod("h", "h", priority=7, nominated_node_name="n1")
    queue = q.add(new_scheduling_queue(), high)
    assert q.nominated_pods(queue, "n1") == (high,)
    queue, popped = q.pop(queue)
    assert popped is not None and q.nominated_pods(queue, "n1") == (Pod("h", "h"),)
    assert q.nominated_pods(q.delete(queue, high), "n1") == ()
