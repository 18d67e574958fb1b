"""Curated scenarios that mutation testing showed the suite lacked.

``make mutation`` (``mutation/``) runs mutmut over the reference implementation and judges each mutant by the
conformance vectors alone. Each scenario here pins a Kubernetes behaviour that a surviving mutant broke without any
vector noticing; it is named after the behaviour, and its description names the Kubernetes function. As with every
curated scenario, the expected outcomes are not written here: :func:`conformance.traces.expand` takes them from
the spec.
"""

from __future__ import annotations

from conformance.scenarios import UNSCHEDULABLE, node, patch, pod
from conformance.traces import EXPIRY_PROFILES, Scenario
from spec.api_calls import NominatingInfo, NominatingMode, PodCondition
from spec.call_queue_operations import AddCall, PopCall
from spec.operations import AddNode, AddPod, AssumePod, CleanupAssumedPods, FinishBinding, RemovePod
from spec.quantities import SECOND


def cache_scenarios() -> list[Scenario]:
    """The cache's ``cleanupAssumedPods`` and ``finishBinding`` (backend/cache/cache.go) and ``HostPortInfo``
    (framework/types.go)."""
    a, b = pod("a", "n1", 100), pod("b", "n1", 200)
    low = pod("low", "n1", host_port=1)
    return [
        Scenario("cache.expiry.one_nanosecond_ttl", "finishBinding sets a deadline for any non-zero TTL, 1 ns too; "
                 "cleanupAssumedPods expires the pod once now is past it", [AssumePod(a), FinishBinding(a, 0),
                 CleanupAssumedPods(1), CleanupAssumedPods(2)], behaviours=("expiry",), ttl=1,
                 profiles=EXPIRY_PROFILES),
        Scenario("cache.expiry.unfinished_pod_does_not_shield_others", "cleanupAssumedPods skips an assumed pod "
                 "whose binding is in flight and goes on to expire the next one", [AssumePod(a), AssumePod(b),
                 FinishBinding(b, 0), CleanupAssumedPods(20 * SECOND)], behaviours=("expiry", "k8s-106361"),
                 ttl=10 * SECOND, profiles=EXPIRY_PROFILES),
        Scenario("cache.host_port.lowest_is_recorded", "HostPortInfo.Add and Remove ignore only ports <= 0: host "
                 "port 1 is recorded and freed", [AddNode(node("n1")), AddPod(low), RemovePod(low)],
                 behaviours=("ports",)),
    ]


def _ds(sid: str, description: str, ops: list[object], *behaviours: str) -> Scenario:
    return Scenario(f"dispatcher.{sid}", description, ops, area="dispatcher", behaviours=behaviours)


def dispatcher_scenarios() -> list[Scenario]:
    """The status patch's ``Merge`` (pkg/scheduler/framework/api_calls/pod_status_patch.go) and the queue's
    ``merge`` (call_queue.go)."""
    to_n2 = NominatingInfo(NominatingMode.OVERRIDE, "n2")
    to_n3 = NominatingInfo(NominatingMode.OVERRIDE, "n3")
    scheduled = PodCondition("PodScheduled", "False", "SchedulerError", "binding rejected")
    return [
        _ds("merge.newer_nomination_wins", "PodStatusPatchCall.Merge keeps the old Override nomination only when "
            "the new call's is Noop: a newer Override replaces it", [AddCall(patch("u1", nominating_info=to_n2)),
            AddCall(patch("u1", nominating_info=to_n3)), PopCall()], "merge"),
        _ds("merge.newer_condition_wins", "PodStatusPatchCall.Merge keeps the old condition only when the new call "
            "has none: a newer condition replaces it", [AddCall(patch("u1", condition=UNSCHEDULABLE)),
            AddCall(patch("u1", condition=scheduled)), PopCall()], "merge"),
    ]


def curated() -> list[Scenario]:
    """Every scenario of this module."""
    return [*cache_scenarios(), *dispatcher_scenarios()]
