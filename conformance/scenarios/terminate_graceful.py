"""Cycle-area scenarios for a pod deleted gracefully while its binding is in flight, unconfirmed or an orphaned
request (``terminate_pod``: ``DeletionTimestamp`` set, the pod still listed under its name).

Two pieces of Kubernetes meet here. The scheduler's update handler (``updatePodInSchedulingQueue``,
pkg/scheduler/eventhandlers.go) starts the deletion of a pod the cache assumes (``handleAssumedPodDeletion``: a pod
waiting on Permit is rejected, any other is forgotten at once) from v1.35.8 on (PR #134157, with the deletion of an
assumed pod: ``forget_assumed_pod_on_delete``); v1.34.12 ignores the update of an assumed pod. And the API server
refuses to bind a pod being deleted (``BindingREST.setPodNodeAndMetadata``, pkg/registry/core/pod/storage/storage.go:
"pod <name> is being deleted, cannot be assigned to a host"), so the binding cycle fails at Bind
(``handleBindingCycleError``) and the failure handler requeues the terminating pod, which the next pop skips.

No pod of the cycle area waits on Permit (the default profile has no Permit plugin that returns ``Wait``), so the
``RejectWaitingPod`` branch is never taken: a pod terminated between Permit and its bind is forgotten. Scenarios that
port a Kubernetes test name it (v1.35.8 pkg/scheduler/eventhandlers_test.go); the others follow the functions the
description names. Expected outcomes come from the spec (:func:`conformance.traces.expand`), never from here.
"""

from __future__ import annotations

from typing import Final

from conformance.operations import (
    BindPod,
    ClusterAddNode,
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
    SkipPod,
    TerminatePod,
)
from conformance.scenarios.cycle import node, pod
from conformance.traces import ALL_PROFILES, Scenario
from spec.cycle.cycle import FailurePoint
from spec.versions import PROFILES

_EVENTS_TEST: Final = "eventhandlers_test.go"


_FORGETTING: Final = tuple(name for name in ALL_PROFILES if PROFILES[name].forget_assumed_pod_on_delete)
"""The profiles whose update handler forgets an assumed pod being deleted (v1.35 on)."""
_IGNORING: Final = tuple(name for name in ALL_PROFILES if not PROFILES[name].forget_assumed_pod_on_delete)
"""The profiles that ignore the update of an assumed pod (v1.34)."""


def _terminate(sid: str, description: str, ops: list[CycleOperation], *behaviours: str,
               preemption: bool = False, profiles: tuple[str, ...] = ALL_PROFILES) -> Scenario:
    return Scenario(f"cycle.terminate.{sid}", description, ops, area="cycle", behaviours=("terminating", *behaviours),
                    profiles=profiles, preemption=preemption)


def terminate_graceful_scenarios() -> list[Scenario]:
    """Graceful deletions of a pod whose binding is in flight or orphaned, and the refused bind. (A pod whose binding
    the informer has not delivered cannot be terminated first: a scenario holds only steps that can happen.)"""
    n1 = node("n1")
    return [
        _terminate("assumed_pod",
                   f"TestUpdatePod 'delete assumed pod with deletion timestamp' ({_EVENTS_TEST}): the update that "
                   "sets the DeletionTimestamp of a pod the cache assumes (its binding in flight) is the start of its "
                   "deletion (handleAssumedPodDeletion: ForgetPod), so the pod is in neither the cache nor the queue "
                   "(v1.35 on); v1.34's updatePodInSchedulingQueue ignores the update of an assumed pod, which stays "
                   "in the cache. The bind then reaches the API server, which refuses a pod being deleted; the "
                   "binding cycle fails at Bind, the failure handler requeues the terminating pod with a "
                   "SchedulerError condition, the next pop skips it, and the deletion removes it",
                   [ClusterAddNode(n1), CreatePod(pod("a")), SchedulePod("a", "n1"), TerminatePod("a"), BindPod("a"),
                    SkipPod("a"), DeletePod("a")],
                   "delete"),
        _terminate("frees_resources",
                   "A pod terminated after assume and before its bind frees its node's resources at once "
                   "(handleAssumedPodDeletion's ForgetPod, v1.35 on): a pod needing them is placed while the binding "
                   "cycle is still in flight, whose bind the API server then refuses",
                   [ClusterAddNode(n1), CreatePod(pod("a", 600)), SchedulePod("a", "n1"), TerminatePod("a"),
                    CreatePod(pod("b", 600)), SchedulePod("b", "n1"), BindPod("a"), BindPod("b"), ConfirmBinding("b"),
                    SkipPod("a"), DeletePod("a")],
                   "delete", profiles=_FORGETTING),
        _terminate("keeps_resources_v1_34",
                   "v1.34: a pod terminated after assume and before its bind keeps its node's resources (the update "
                   "of an assumed pod is ignored), so a pod needing them finds no node; the refused bind then forgets "
                   "it (handleBindingCycleError's ForgetPod), and the other pod is placed",
                   [ClusterAddNode(n1), CreatePod(pod("a", 600)), SchedulePod("a", "n1"), TerminatePod("a"),
                    CreatePod(pod("b", 600)), FailScheduling("b"), BindPod("a"), SchedulePod("b", "n1"), BindPod("b"),
                    ConfirmBinding("b"), SkipPod("a"), DeletePod("a")],
                   "delete", "unschedulable", profiles=_IGNORING),
        _terminate("prebind_fails",
                   "A pod terminated while its binding cycle runs PreBind, which then fails: handleBindingCycleError's "
                   "ForgetPod finds the pod already forgotten on v1.35 on (its error only logged) and forgets it on "
                   "v1.34; either way the failure handler requeues the terminating pod with PreBind's error, and the "
                   "next pop skips it",
                   [ClusterAddNode(n1), CreatePod(pod("a")), SchedulePod("a", "n1"), TerminatePod("a"),
                    FailBinding("a", FailurePoint.PRE_BIND), SkipPod("a"), DeletePod("a")],
                   "delete"),
        _terminate("refused_bind_nomination",
                   "With preemption, the failure handler of a refused bind nominates the terminating pod to no node "
                   "(clearNominatedNode), which releases before v1.37 store under \"\" and its status patch then "
                   "drops; the skipped pod keeps what is left until its deletion",
                   [ClusterAddNode(n1), CreatePod(pod("a")), SchedulePod("a", "n1"), TerminatePod("a"), BindPod("a"),
                    SkipPod("a"), DeletePod("a")],
                   "delete", preemption=True),
        _terminate("orphaned_bind_refused",
                   "A pod whose binding cycle was in flight when the scheduler crashed is deleted gracefully while it "
                   "is down; the restarted scheduler lists it as it now is (queued, terminating) and its pop skips "
                   "it; the crashed scheduler's bind request then lands and the API server refuses it (the pod is "
                   "being deleted), so the pod stays unbound until its deletion",
                   [ClusterAddNode(n1), CreatePod(pod("a")), SchedulePod("a", "n1"), CrashScheduler(),
                    TerminatePod("a"), RestartScheduler(), SkipPod("a"), LandOrphanedBind("a"), DeletePod("a")],
                   "crash", "restart", "delete"),
    ]
