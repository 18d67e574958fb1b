"""The kubelet's admission failure handler: a critical pod evicts others instead of being rejected.

``CriticalPodAdmissionHandler`` (pkg/kubelet/preemption/preemption.go, v1.35). When ``generalFilter`` rejects a pod
whose priority is at least ``SystemCriticalPriority`` (2,000,000,000) and every failure is an insufficient
resource, the handler picks running pods the critical pod may preempt (``Preemptable``): best-effort first, then
burstable, then guaranteed, in each class by distance to what is still missing (``getPodsToPreemptByDistance``),
kills them (phase ``Failed``, reason ``Preempting``) and the pod is admitted. Static and mirror pods, also critical,
are not modelled; the model's pods have no limits, so none is guaranteed.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Final

from refimpl.cache.resources import pod_requests
from spec.objects import Pod

SYSTEM_CRITICAL_PRIORITY: Final = 2_000_000_000
"""``scheduling.SystemCriticalPriority``."""
PREEMPTING: Final = "Preempting"
"""``events.PreemptContainer``: the evicted pods' reason."""
MESSAGE: Final = "Preempted in order to admit critical pod"
UNEXPECTED_ADMISSION_ERROR: Final = "UnexpectedAdmissionError"


class NoVictims(Exception):
    """``getPodsToPreempt``'s error: no set of running pods frees enough."""


def is_critical_pod(pod: Pod) -> bool:
    """``kubetypes.IsCriticalPod`` (by priority)."""
    return pod.priority >= SYSTEM_CRITICAL_PRIORITY


def preemptable(preemptor: Pod, preemptee: Pod) -> bool:
    """``kubetypes.Preemptable``."""
    if is_critical_pod(preemptor) and not is_critical_pod(preemptee):
        return True
    return preemptor.priority > preemptee.priority


def qos_class(pod: Pod) -> str:
    """``GetPodQOS`` without limits: BestEffort without a cpu or memory request, else Burstable."""
    for container in (*pod.containers, *pod.init_containers):
        if container.requests.get("cpu", 0) > 0 or container.requests.get("memory", 0) > 0:
            return "Burstable"
    if pod.pod_level_requests.get("cpu", 0) > 0 or pod.pod_level_requests.get("memory", 0) > 0:
        return "Burstable"
    return "BestEffort"


def get_resource_request(pod: Pod, name: str) -> int:
    """``resource.GetResourceRequest``: 1 for pods; the request without overhead, plus the overhead if non-zero."""
    if name == "pods":
        return 1
    without_overhead = pod_requests(Pod(pod.uid, containers=pod.containers, init_containers=pod.init_containers,
                                        pod_level_requests=pod.pod_level_requests), pod_level_resources=True)
    total = without_overhead.get(name, 0)
    if total:
        total += pod.overhead.get(name, 0)
    return total


class Requirement:
    """``admissionRequirement``."""

    __slots__ = ("name", "quantity")

    def __init__(self, name: str, quantity: int) -> None:
        self.name = name
        self.quantity = quantity


def subtract(requirements: list[Requirement], pods: Sequence[Pod]) -> list[Requirement]:
    """``admissionRequirementList.subtract``."""
    left = []
    for req in requirements:
        quantity = req.quantity
        for pod in pods:
            quantity -= get_resource_request(pod, req.name)
            if quantity <= 0:
                break
        if quantity > 0:
            left.append(Requirement(req.name, quantity))
    return left


def distance(requirements: list[Requirement], pod: Pod) -> float:
    """``admissionRequirementList.distance``."""
    dist = 0.0
    for req in requirements:
        remaining = float(req.quantity - get_resource_request(pod, req.name))
        if remaining > 0:
            dist += math.pow(remaining / float(req.quantity), 2)
    return dist


def smaller_resource_request(a: Pod, b: Pod) -> bool:
    """``smallerResourceRequest``: memory, then cpu; true when equal."""
    for name in ("memory", "cpu"):
        ra, rb = get_resource_request(a, name), get_resource_request(b, name)
        if ra < rb:
            return True
        if ra > rb:
            return False
    return True


def get_pods_to_preempt_by_distance(pods: list[Pod], requirements: list[Requirement]) -> list[Pod]:
    """``getPodsToPreemptByDistance`` (mutates ``pods`` as Go does). Raises :class:`NoVictims`."""
    chosen: list[Pod] = []
    while requirements:
        if not pods:
            raise NoVictims("no set of running pods found to reclaim resources")
        best_distance = float(len(requirements) + 1)
        best = 0
        for i, pod in enumerate(pods):
            d = distance(requirements, pod)
            if d < best_distance or (best_distance == d and smaller_resource_request(pod, pods[best])):
                best_distance = d
                best = i
        requirements = subtract(requirements, [pods[best]])
        chosen.append(pods[best])
        pods[best] = pods[-1]
        pods.pop()
    return chosen


def get_pods_to_preempt(pod: Pod, pods: Sequence[Pod], requirements: list[Requirement]) -> list[Pod]:
    """``getPodsToPreempt``. Raises :class:`NoVictims`."""
    best_effort: list[Pod] = []
    burstable: list[Pod] = []
    guaranteed: list[Pod] = []
    for other in pods:
        if preemptable(pod, other):
            (best_effort if qos_class(other) == "BestEffort" else burstable).append(other)
    if subtract(requirements, [*best_effort, *burstable, *guaranteed]):
        raise NoVictims("no set of running pods found to reclaim resources")
    guaranteed_evict = get_pods_to_preempt_by_distance(guaranteed, subtract(requirements, [*best_effort, *burstable]))
    burstable_evict = get_pods_to_preempt_by_distance(burstable,
                                                      subtract(requirements, [*best_effort, *guaranteed_evict]))
    best_effort_evict = get_pods_to_preempt_by_distance(best_effort,
                                                        subtract(requirements, [*burstable_evict, *guaranteed_evict]))
    return [*best_effort_evict, *burstable_evict, *guaranteed_evict]
