"""Cycle-area scenarios for the failure handler (``Scheduler.handleSchedulingFailure``, pkg/scheduler/schedule_one.go).

The handler asks the informer's lister for the failed pod as it is now: a pod bound meanwhile (here a crashed
predecessor's bind request that the API server answered after the restart, its event not yet delivered) leaves the
queue instead of being requeued; any other pod is requeued as listed and, with DefaultPreemption, nominated with the
cycle's nominating info (``clearNominatedNode`` after a Reserve, Permit or binding failure: the node ``""``, which
v1.34 to v1.36 store and v1.37 does not). Each scenario names the Kubernetes test it ports (v1.35.8
pkg/scheduler/scheduler_test.go, schedule_one_test.go). Expected outcomes come from the spec
(:func:`conformance.traces.expand`), never from here.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Final

from conformance.operations import (
    ClusterAddNode,
    ClusterRemoveNode,
    ConfirmBinding,
    CrashScheduler,
    CreatePod,
    CycleOperation,
    DeletePod,
    FailBinding,
    FailScheduling,
    LandOrphanedBind,
    RestartScheduler,
    SchedulePod,
)
from conformance.scenarios.cycle import node, placed, pod
from conformance.traces import ALL_PROFILES, Scenario
from spec.cycle.cycle import FailurePoint

_FAILH_SCHEDULER_TEST: Final = "scheduler_test.go"
_FAILH_SCHEDULE_ONE_TEST: Final = "schedule_one_test.go"


def _failh(sid: str, description: str, ops: Sequence[CycleOperation], *behaviours: str,
           preemption: bool = False, requeue: bool = True) -> Scenario:
    """A failure-handler scenario; ``requeue`` labels it ``requeue`` (its steps must then observe a requeue
    decision of the cycle area: ``cycle.failure.*``, ``cycle.fail_binding.requeued`` ...)."""
    labels = ("requeue", *behaviours) if requeue else behaviours
    return Scenario(f"cycle.failure.{sid}{'.preemption' if preemption else ''}", description, ops, area="cycle",
                    behaviours=labels, profiles=ALL_PROFILES, preemption=preemption)


def _failh_landed_then(failure: CycleOperation) -> list[CycleOperation]:
    """Pod p is assumed on n1 and the process crashes with its bind request pending; after the restart p is queued
    again, q fills n1, and p's old bind lands (the API server binds p, its event not yet delivered); then ``failure``
    (a cycle of p that fails) and the event's delivery."""
    return [ClusterAddNode(node("n1")), CreatePod(pod("p", 600)), SchedulePod("p", "n1"), CrashScheduler(),
            RestartScheduler(), CreatePod(pod("q", 600)), *placed("q", "n1"), LandOrphanedBind("p"), failure,
            ConfirmBinding("p")]


def failure_scenarios() -> list[Scenario]:
    """The failure handler's requeue decision and nomination, each scenario with and without DefaultPreemption."""
    scenarios = []
    for preemption in (False, True):
        scenarios += [
            _failh("bound_meanwhile.no_fit",
                   f"TestFailureHandler_PodAlreadyBound ({_FAILH_SCHEDULER_TEST}): a crashed predecessor's bind of p "
                   "lands while p is queued again; p's cycle finds no node (q fills n1) and the handler, whose lister "
                   "has p bound, does not requeue it: p leaves the queue before its binding event arrives",
                   _failh_landed_then(FailScheduling("p")), preemption=preemption),
            _failh("bound_meanwhile.reserve",
                   f"TestFailureHandler_PodAlreadyBound ({_FAILH_SCHEDULER_TEST}), after a Reserve rejection: p's old "
                   "bind lands while p is queued on an empty node; Reserve rejects p there and the handler does not "
                   "requeue it (its lister has p bound)",
                   [ClusterAddNode(node("n1")), CreatePod(pod("p", 600)), SchedulePod("p", "n1"), CrashScheduler(),
                    RestartScheduler(), LandOrphanedBind("p"), FailScheduling("p", "n1", FailurePoint.RESERVE),
                    ConfirmBinding("p")], preemption=preemption),
            _failh("binding_failed",
                   f"TestSchedulerScheduleOne ({_FAILH_SCHEDULE_ONE_TEST}) 'binding failed': the bind fails, the "
                   "pod is forgotten and requeued (expectPodInBackoffQ); with DefaultPreemption the handler nominates "
                   "it with clearNominatedNode (stored under \"\" through v1.36); then it binds",
                   [ClusterAddNode(node("n1")), CreatePod(pod("p", 600)), SchedulePod("p", "n1"),
                    FailBinding("p", FailurePoint.BIND), *placed("p", "n1")], preemption=preemption),
            _failh("prebind_failed_nominated_pod",
                   f"TestSchedulerScheduleOne ({_FAILH_SCHEDULE_ONE_TEST}) 'prebind failed with status code error' "
                   "and 'pod with existing nominated node name on scheduling error clears nomination': a pod created "
                   "nominated to n1 is assumed there (its nomination dropped), PreBind fails, and the handler "
                   "requeues it nominated to \"\" (through v1.36; v1.37 stores no nomination)",
                   [ClusterAddNode(node("n1")), CreatePod(replace(pod("p", 600), nominated_node_name="n1")),
                    SchedulePod("p", "n1"), FailBinding("p", FailurePoint.PRE_BIND)], preemption=preemption),
            _failh("permit_rejected_nominated_pod",
                   f"TestSchedulerScheduleOne ({_FAILH_SCHEDULE_ONE_TEST}) 'permit failed with status code rejected' "
                   "(expectPodInUnschedulable) with a pod created nominated to n1: the handler requeues it and, with "
                   "DefaultPreemption, overrides its nomination with \"\" (clearNominatedNode)",
                   [ClusterAddNode(node("n1")), CreatePod(replace(pod("p", 600), nominated_node_name="n1")),
                    FailScheduling("p", "n1", FailurePoint.PERMIT)], preemption=preemption),
        ]
    for preemption in (False, True):
        scenarios.append(_failh(
            "recreated_during_binding",
            f"TestHandleSchedulingFailureSkipsRecreatedPod ({_FAILH_SCHEDULE_ONE_TEST}): p is deleted during its "
            "binding cycle and a pod of the same name (another UID) is created; the bind then fails and the handler, "
            "whose lister finds the new pod under p's name, neither requeues p nor nominates it (without the UID "
            "check, AddNominatedPod would find an unbound pod of that name and keep p nominated to \"\")",
            [ClusterAddNode(node("n1")), CreatePod(pod("p", 600)), SchedulePod("p", "n1"), DeletePod("p"),
             CreatePod(replace(pod("p2", 600), name="pod-p")), FailBinding("p", FailurePoint.BIND)],
            preemption=preemption, requeue=False))
    scenarios.append(_failh(
        "bound_meanwhile.nomination_dropped",
        f"TestFailureHandler_PodAlreadyBound ({_FAILH_SCHEDULER_TEST}) with a nominated pod: p's first cycle after the "
        "restart finds no node and no victim (q has its priority), so p is nominated to \"\" (through v1.36); p's "
        "old bind then lands and n1 is removed, and p's next cycle (ErrNoNodesAvailable: no PostFilter) leaves it "
        "unqueued and drops the nomination (the handler's AddNominatedPod deletes the pod's entry before its lister "
        "finds p bound); r, nominated to \"\" the same way, keeps the nominator observed",
        [ClusterAddNode(node("n1")), CreatePod(pod("p", 600)), SchedulePod("p", "n1"), CrashScheduler(),
         RestartScheduler(), CreatePod(pod("q", 600)), *placed("q", "n1"), CreatePod(pod("r", 600)),
         FailScheduling("r"), FailScheduling("p"), LandOrphanedBind("p"), ClusterRemoveNode("n1"),
         FailScheduling("p")], preemption=True))
    return scenarios
