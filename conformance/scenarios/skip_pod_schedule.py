"""Cycle-area scenarios for pods being deleted: the graceful deletion at the API server (``terminate_pod``:
``DeletionTimestamp`` set, the pod still listed under its name, the informer's update handled by ``updatePod``,
pkg/scheduler/eventhandlers.go) and ``ScheduleOne``'s ``skipPodSchedule`` (pkg/scheduler/schedule_one.go), which skips
a popped pod that is being deleted (``skip_pod``: no scheduling cycle, the pod not put back, ``Done``).

The skip is the same in v1.34.12, v1.35.8, v1.36.5 and v1.37.2 (v1.36 moved it to ``scheduleOnePod``). Scenarios that
port a Kubernetes test name it (v1.35.8 pkg/scheduler/schedule_one_test.go; there is no ``TestSkipPodSchedule``); the
others follow the handlers the description names. Expected outcomes come from the spec
(:func:`conformance.traces.expand`), never from here.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Final

from conformance.operations import (
    ClusterAddNode,
    CrashScheduler,
    CreatePod,
    CycleOperation,
    DeletePod,
    FailScheduling,
    RestartScheduler,
    SchedulePod,
    SkipPod,
    TerminatePod,
)
from conformance.scenarios.cycle import node, placed, pod
from conformance.traces import ALL_PROFILES, Scenario

_SKIP_TEST: Final = "schedule_one_test.go"


def _skip(sid: str, description: str, ops: list[CycleOperation], *behaviours: str,
          preemption: bool = False) -> Scenario:
    return Scenario(f"cycle.skip.{sid}", description, ops, area="cycle", behaviours=("terminating", *behaviours),
                    profiles=ALL_PROFILES, preemption=preemption)


def skip_pod_schedule_scenarios() -> list[Scenario]:
    """Graceful deletions of pending and bound pods, and the skip of a popped pod being deleted."""
    n1 = node("n1")
    return [
        _skip("deleting_pod",
              f"TestSchedulerScheduleOne 'deleting pod' ({_SKIP_TEST}; TestScheduleOneMarksPodAsProcessedBeforePreBind "
              "has the same case): a pending pod being deleted is popped and skipped (skipPodSchedule: a "
              "FailedScheduling event, 'skip schedule deleting pod: default/pod-foo'); no cycle runs, nothing is "
              "assumed or bound, no condition is patched, and the pod leaves the queue (Done) while the API server "
              "still lists it, until its deletion",
              [ClusterAddNode(n1), CreatePod(pod("foo")), TerminatePod("foo"), SkipPod("foo"), DeletePod("foo")],
              "delete"),
        _skip("bound_pod_still_counted",
              "A bound pod deleted gracefully (updateAssignedPodInCache: the cache's UpdatePod) keeps its node's "
              "resources until it is deleted: a pod that needs them fails to fit while it terminates, and is placed "
              "once it is gone",
              [ClusterAddNode(n1), CreatePod(pod("a", 600)), *placed("a", "n1"), TerminatePod("a"),
               CreatePod(pod("b", 600)), FailScheduling("b"), DeletePod("a"), *placed("b", "n1")],
              "delete", "unschedulable"),
        _skip("after_failure",
              "A pod whose cycle failed (its PodScheduled condition and FailedScheduling event written) is deleted "
              "gracefully while queued (updatePodInSchedulingQueue: the queue's Update) and skipped when popped: "
              "what the failure handler wrote stays on the pod until its deletion removes it",
              [CreatePod(pod("p")), FailScheduling("p"), TerminatePod("p"), SkipPod("p"), DeletePod("p")],
              "delete", "unschedulable"),
        _skip("nomination_kept",
              "A pod nominated to n1 (its own nominatedNodeName) is deleted gracefully and skipped: neither Pop nor "
              "Done touches the nominator, so Filter keeps counting it on n1 for the pod of lower priority, which "
              "does not fit and has no victim to preempt; once the deletion removes the nomination (the queue's "
              "Delete: DeleteNominatedPodIfExists) the pod is placed",
              [ClusterAddNode(n1), CreatePod(replace(pod("m", 600), priority=10, nominated_node_name="n1")),
               TerminatePod("m"), SkipPod("m"), CreatePod(replace(pod("q", 600), priority=1)), FailScheduling("q"),
               DeletePod("m"), *placed("q", "n1")],
              "delete", preemption=True),
        _skip("restart_lists_again",
              "A skipped pod being deleted is still listed: a restarted scheduler's informer delivers it to the "
              "queue again (addPod), and the next pop skips it again",
              [ClusterAddNode(n1), CreatePod(pod("p")), TerminatePod("p"), SkipPod("p"), CrashScheduler(),
               RestartScheduler(), SkipPod("p"), DeletePod("p")],
              "crash", "restart", "delete"),
        _skip("terminated_while_down",
              "A bound pod deleted gracefully while the scheduler is down: the restarted scheduler's cache lists it "
              "as it now is, terminating on its node, and counts its resources until it is deleted",
              [ClusterAddNode(n1), CreatePod(pod("a", 600)), *placed("a", "n1"), CrashScheduler(), TerminatePod("a"),
               RestartScheduler(), CreatePod(pod("b", 600)), FailScheduling("b"), DeletePod("a"),
               SchedulePod("b", "n1")],
              "crash", "restart", "unschedulable"),
    ]
