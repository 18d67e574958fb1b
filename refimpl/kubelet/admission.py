"""The kubelet's admission of a pod bound to its node: the scheduler's own checks, run against what the node runs.

``manager.canAdmitPod`` (pkg/kubelet/allocation/allocation_manager.go, v1.35) asks each admit handler; the one that
decides placement is the predicate admit handler (pkg/kubelet/lifecycle/predicate.go): it builds a NodeInfo from
the active admitted pods and the node (``NewNodeInfo(pods...)``, ``SetNode``), drops the pod's requests of extended
resources the node does not have at all (``removeMissingExtendedResources``), and runs ``generalFilter``: the
scheduler's ``AdmissionCheck`` (NodeResourcesFit's ``Fits``, the required node affinity, NodeName, NodePorts, all
failures) and then the ``NoExecute`` taints the pod does not tolerate. The first failure is the reason:
``OutOf<resource>`` for a resource (``OutOfcpu``, ``OutOfpods``, ...), else the predicate's name.

The checks are the default plugins' own (:mod:`refimpl.scheduler.plugins`), as the kubelet calls the scheduler's.
Not modelled: the OS and supplemental-groups checks, device plugins, the re-fetch of the node when only node
affinity fails, and the other admit handlers (eviction, sysctl, topology manager).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import Final

from refimpl.cache import NodeInfo, compute_pod_resource
from refimpl.kubelet.preemption import (
    UNEXPECTED_ADMISSION_ERROR,
    NoVictims,
    Requirement,
    get_pods_to_preempt,
    is_critical_pod,
)
from refimpl.scheduler.framework import CycleState
from refimpl.scheduler.plugins.node_affinity import NodeAffinity
from refimpl.scheduler.plugins.node_name import NodeName
from refimpl.scheduler.plugins.node_ports import NodePorts
from refimpl.scheduler.plugins.node_resources_fit import insufficient_resources
from refimpl.scheduler.plugins.taint_toleration import NO_EXECUTE, tolerations_tolerate_taint
from spec.frozenmap import FrozenMap
from spec.objects import Container, Node, Pod
from spec.quantities import is_extended_resource_name

INSUFFICIENT_RESOURCE_PREFIX: Final = "OutOf"
"""``lifecycle.InsufficientResourcePrefix``: ``OutOfcpu``, ``OutOfmemory``, ``OutOfephemeral-storage``,
``OutOfpods``, ``OutOf<extended resource>``."""
TOO_MANY_PODS: Final = "Too many pods"
INSUFFICIENT: Final = "Insufficient "
_PREDICATES: Final = (NodeAffinity(), NodeName(), NodePorts())
"""``AdmissionCheck``'s predicates after ``Fits``, in its order."""
TAINT_TOLERATION: Final = "TaintToleration"


@dataclass(frozen=True)
class PodAdmitResult:
    """``lifecycle.PodAdmitResult``."""

    admit: bool
    reason: str = ""
    message: str = ""
    evicted: tuple[Pod, ...] = ()
    """The running pods the kubelet killed to admit a critical pod (phase Failed, reason ``Preempting``)."""


def node_info_for(node: Node, pods: Iterable[Pod]) -> NodeInfo:
    """``NewNodeInfo(pods...)`` then ``SetNode(node)``."""
    info = NodeInfo()
    for pod in pods:
        info.add_pod(pod)
    info.set_node(node)
    return info


def remove_missing_extended_resources(pod: Pod, info: NodeInfo) -> Pod:
    """``removeMissingExtendedResources``: the pod with every container's and init container's request of an
    extended resource the node's allocatable does not name left out."""
    known = info.allocatable.scalar_resources or {}

    def keep(container: Container) -> Container:
        requests = {name: quantity for name, quantity in container.requests.items()
                    if not is_extended_resource_name(name) or name in known}
        return replace(container, requests=FrozenMap(requests))

    return replace(pod, containers=tuple(map(keep, pod.containers)),
                   init_containers=tuple(map(keep, pod.init_containers)))


def insufficient_amounts(pod: Pod, info: NodeInfo) -> list[Requirement]:
    """``InsufficientResourceError.GetInsufficientAmount`` of each lacking resource: requested - (capacity -
    used), in ``generalFilter``'s order."""
    request = compute_pod_resource(pod).resource
    allocatable, used = info.allocatable, info.requested
    amounts = []
    for reason, _ in insufficient_resources(compute_pod_resource(pod), info):
        name = "pods" if reason == TOO_MANY_PODS else reason.removeprefix(INSUFFICIENT)
        if name == "pods":
            wanted, capacity, in_use = 1, allocatable.allowed_pod_number, len(info.pods)
        elif name == "cpu":
            wanted, capacity, in_use = request.milli_cpu, allocatable.milli_cpu, used.milli_cpu
        elif name == "memory":
            wanted, capacity, in_use = request.memory, allocatable.memory, used.memory
        elif name == "ephemeral-storage":
            wanted, capacity, in_use = request.ephemeral_storage, allocatable.ephemeral_storage, used.ephemeral_storage
        else:
            wanted = (request.scalar_resources or {}).get(name, 0)
            capacity = (allocatable.scalar_resources or {}).get(name, 0)
            in_use = (used.scalar_resources or {}).get(name, 0)
        amounts.append(Requirement(name, wanted - (capacity - in_use)))
    return amounts


def general_filter(pod: Pod, info: NodeInfo) -> list[str]:
    """Every failure reason, in ``generalFilter``'s order, as ``PodAdmitResult`` names it."""
    reasons = []
    for reason, _ in insufficient_resources(compute_pod_resource(pod), info):
        resource = "pods" if reason == TOO_MANY_PODS else reason.removeprefix(INSUFFICIENT)
        reasons.append(INSUFFICIENT_RESOURCE_PREFIX + resource)
    state = CycleState()
    for plugin in _PREDICATES:
        status = plugin.filter(state, pod, info)
        if status is not None and not status.is_success():
            reasons.append(plugin.name)
    node = info.node
    assert node is not None
    if any(t.effect == NO_EXECUTE and not tolerations_tolerate_taint(pod.tolerations, t) for t in node.taints):
        reasons.append(TAINT_TOLERATION)
    return reasons


def can_admit_pod(pod: Pod, node: Node, admitted: Iterable[Pod]) -> PodAdmitResult:
    """Whether the kubelet of ``node``, running the ``admitted`` pods, admits ``pod``; if not, the first reason.

    Kubernetes: `manager.canAdmitPod` (pkg/kubelet/allocation/allocation_manager.go)
    Kubernetes: `predicateAdmitHandler.Admit` (pkg/kubelet/lifecycle/predicate.go)

    A critical pod lacking only resources is admitted with the pods it evicts in ``evicted``
    (:mod:`refimpl.kubelet.preemption`); the caller kills them.
    """
    running = [p for p in admitted if p.uid != pod.uid]
    info = node_info_for(node, running)
    checked = remove_missing_extended_resources(pod, info)
    reasons = general_filter(checked, info)
    if not reasons:
        return PodAdmitResult(True)
    if is_critical_pod(pod):  # CriticalPodAdmissionHandler.HandleAdmissionFailure
        other = [r for r in reasons if not r.startswith(INSUFFICIENT_RESOURCE_PREFIX)]
        if other:
            return PodAdmitResult(False, other[0], f"Pod was rejected: {other[0]}")
        try:
            victims = get_pods_to_preempt(pod, running, insufficient_amounts(checked, info))
        except NoVictims as error:
            message = f"Unexpected error while attempting to recover from admission failure: preemption: {error}"
            return PodAdmitResult(False, UNEXPECTED_ADMISSION_ERROR, message)
        return PodAdmitResult(True, evicted=tuple(victims))
    return PodAdmitResult(False, reasons[0], f"Pod was rejected: {reasons[0]}")
