"""The kubelet's admission: the node's last word on whether a pod bound to it may run there.

The scheduler's decision is optimistic twice over: it is taken on a cache, and several schedulers may take
decisions about the same node without seeing each other's. The kubelet of the node is the final arbiter. When
its watch delivers pods newly bound to the node, ``HandlePodAdditions`` sorts them by creation time and admits
them one by one against the pods it already admitted and that are still active (``GetActivePods``): the
predicate admit handler builds a NodeInfo from those pods and the node (``NewNodeInfo(pods...)``, ``SetNode``)
and runs the scheduler's own checks on it (``generalFilter``: ``AdmissionCheck``, which is NodeResourcesFit's
``Fits``, the required node affinity, NodeName and NodePorts; then the ``NoExecute`` taints the pod does not
tolerate). A pod that fails is *rejected*: its phase becomes ``Failed`` with the first failure as the reason
(``OutOfcpu``, ``OutOfmemory``, ``OutOfpods``, ``OutOf<resource>``, or the predicate's name), and it never runs.
A Failed pod is terminal: the scheduler's pod informer no longer lists it (``status.phase!=Failed``), so each
scheduler's cache lets it go as if it had been deleted.

Sources (v1.35): `Kubelet.HandlePodAdditions` (pkg/kubelet/kubelet.go), `manager.AddPod` and
`manager.canAdmitPod` (pkg/kubelet/allocation/allocation_manager.go), `predicateAdmitHandler.Admit` and
`generalFilter` (pkg/kubelet/lifecycle/predicate.go), `AdmissionCheck` (pkg/scheduler/eventhandlers.go),
`Kubelet.rejectPod` (pkg/kubelet/kubelet.go). The same in v1.34 and v1.36.

A *critical* pod (priority at least 2,000,000,000, ``system-cluster-critical`` and ``system-node-critical``) that fails
only for lack of resources is not rejected: the admission failure handler (pkg/kubelet/preemption/preemption.go)
evicts running pods of lower priority, best-effort ones first, then burstable, then guaranteed, choosing in each
class the pod closest to covering what is missing, and the critical pod is admitted. The evicted pods fail with
reason ``Preempting`` (:func:`pods_to_preempt`, :func:`admit_pod`).

What is abstracted: the OS checks and the supplemental-groups check (the model's pods name no OS), device plugins
and DRA (``pluginResourceUpdateFunc``), the re-check of node affinity against a freshly fetched node, static and
mirror pods, and in-place resize. The model admits pods one at a time, in any order: each order of batches of
one is an order ``HandlePodAdditions`` can take, and a batch sorted by creation time is one such order.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from functools import reduce
from typing import Final

from spec.cache.nodeinfo import NodeInfo, add_pod, new_node_info, set_node
from spec.cycle.cycle import Cluster, CycleNotEnabled, forget_deleted_pod
from spec.cycle.filters import (
    NO_EXECUTE,
    fits_node_affinity,
    fits_node_name,
    fits_node_ports,
    insufficient_resources,
    tolerates,
)
from spec.frozenmap import FrozenMap
from spec.objects import Container, Node, Pod
from spec.quantities import is_extended_resource_name
from spec.resources import Resource, compute_pod_resource, pod_requests

INSUFFICIENT_RESOURCE_PREFIX: Final = "OutOf"
"""``lifecycle.InsufficientResourcePrefix``."""
OUT_OF: Final = {"cpu": "OutOfcpu", "memory": "OutOfmemory", "ephemeral-storage": "OutOfephemeral-storage",
                 "pods": "OutOfpods"}
"""``OutOfCPU``, ``OutOfMemory``, ``OutOfEphemeralStorage``, ``OutOfPods`` (pkg/kubelet/lifecycle/predicate.go)."""
NODE_AFFINITY: Final = "NodeAffinity"
NODE_NAME: Final = "NodeName"
NODE_PORTS: Final = "NodePorts"
TAINT_TOLERATION: Final = "TaintToleration"
"""The plugin names a ``PredicateFailureError`` carries, which become the rejection's reason."""


def kubelet_node_info(node: Node, pods: Iterable[Pod]) -> NodeInfo:
    """The NodeInfo the admit handler checks against: the active admitted pods, then the node.

    Kubernetes: `predicateAdmitHandler.Admit` (pkg/kubelet/lifecycle/predicate.go)
    """
    info = reduce(lambda acc, pod: add_pod(acc, pod, 0), pods, new_node_info(0))
    return set_node(info, node, 0)


def without_missing_extended_resources(pod: Pod, info: NodeInfo) -> Pod:
    """The pod as the admit handler checks it: every container's and init container's request of an extended
    resource the node's allocatable does not name is left out (cluster-level and DRA-backed extended resources).

    Kubernetes: `removeMissingExtendedResources` (pkg/kubelet/lifecycle/predicate.go)
    """

    def keep(container: Container) -> Container:
        kept = {name: q for name, q in container.requests.items()
                if not is_extended_resource_name(name) or name in info.allocatable.scalar_resources}
        return replace(container, requests=FrozenMap(kept))

    containers, init_containers = tuple(map(keep, pod.containers)), tuple(map(keep, pod.init_containers))
    return replace(pod, containers=containers, init_containers=init_containers)


def admitted_request(pod: Pod, info: NodeInfo) -> Resource:
    """The requests the kubelet of ``info``'s node counts for ``pod`` (:func:`without_missing_extended_resources`)."""
    return compute_pod_resource(without_missing_extended_resources(pod, info)).resource


def admission_failures(pod: Pod, node: Node, admitted: Iterable[Pod]) -> list[str]:
    """Every reason ``generalFilter`` finds to reject ``pod`` on ``node`` that already runs ``admitted``, in its
    order: each insufficient resource (``OutOf<name>``; the pod count first, then cpu, memory, ephemeral
    storage and scalar resources in name order), then ``NodeAffinity`` (the node selector), ``NodeName``,
    ``NodePorts``, and ``TaintToleration`` for a ``NoExecute`` taint the pod does not tolerate. [] admits it.

    Kubernetes: `generalFilter` (pkg/kubelet/lifecycle/predicate.go)
    Kubernetes: `AdmissionCheck` (pkg/scheduler/eventhandlers.go)
    """
    info = kubelet_node_info(node, admitted)
    lacking = insufficient_resources(admitted_request(pod, info), info)
    fixed = [name for name in lacking if name in OUT_OF]
    scalars = sorted(name for name in lacking if name not in OUT_OF)
    reasons = [OUT_OF.get(name, INSUFFICIENT_RESOURCE_PREFIX + name) for name in (*fixed, *scalars)]
    predicates = ((NODE_AFFINITY, fits_node_affinity), (NODE_NAME, fits_node_name), (NODE_PORTS, fits_node_ports))
    reasons += [name for name, passes in predicates if not passes(pod, node, info)]
    no_execute = [t for t in node.taints if t.effect == NO_EXECUTE]
    if any(not any(tolerates(toleration, t) for toleration in pod.tolerations) for t in no_execute):
        reasons.append(TAINT_TOLERATION)
    return reasons


def admission_reason(pod: Pod, node: Node, admitted: Iterable[Pod]) -> str | None:
    """The reason the kubelet of ``node`` rejects ``pod`` (the first failure), or None if it admits it.

    Kubernetes: `predicateAdmitHandler.Admit` (pkg/kubelet/lifecycle/predicate.go)
    """
    failures = admission_failures(pod, node, admitted)
    return failures[0] if failures else None


# ============================================================================================
# The kubelet in the cluster (spec.cycle.cycle.Cluster)
# ============================================================================================


# ============================================================================================
# Critical pods: the admission failure handler
# ============================================================================================

SYSTEM_CRITICAL_PRIORITY: Final = 2 * 1_000_000_000
"""``scheduling.SystemCriticalPriority`` (pkg/apis/scheduling/types.go): a pod at or above it is critical."""
PREEMPTING: Final = "Preempting"
"""``events.PreemptContainer``: the reason of a pod the kubelet evicted for a critical pod."""
UNEXPECTED_ADMISSION_ERROR: Final = "UnexpectedAdmissionError"
"""``lifecycle.UnexpectedAdmissionError``: the critical pod's rejection when no set of pods frees enough."""
BEST_EFFORT, BURSTABLE, GUARANTEED = "BestEffort", "Burstable", "Guaranteed"


def is_critical_pod(pod: Pod) -> bool:
    """``IsCriticalPod``: the pod's priority is at least :data:`SYSTEM_CRITICAL_PRIORITY` (static and mirror pods,
    also critical, are not modelled).

    Kubernetes: `IsCriticalPod` (pkg/kubelet/types/pod_update.go)
    """
    return pod.priority >= SYSTEM_CRITICAL_PRIORITY


def preemptable(preemptor: Pod, preemptee: Pod) -> bool:
    """``Preemptable``: a critical pod may evict a non-critical one, and any pod one of lower priority.

    Kubernetes: `Preemptable` (pkg/kubelet/types/pod_update.go)
    """
    return (is_critical_pod(preemptor) and not is_critical_pod(preemptee)) or preemptor.priority > preemptee.priority


def qos_class(pod: Pod) -> str:
    """``GetPodQOS`` for the model's pods, which have requests but no limits: best-effort without a cpu or memory
    request, else burstable (guaranteed needs limits equal to the requests, so no model pod is).

    Kubernetes: `GetPodQOS` (pkg/apis/core/v1/helper/qos/qos.go)
    """
    containers = (*pod.containers, *pod.init_containers)
    requested = any(c.requests.get(name, 0) > 0 for c in containers for name in ("cpu", "memory"))
    requested = requested or any(pod.pod_level_requests.get(name, 0) > 0 for name in ("cpu", "memory"))
    return BURSTABLE if requested else BEST_EFFORT


def resource_request(pod: Pod, name: str) -> int:
    """``GetResourceRequest``: 1 for ``pods``; else the pod's request of ``name`` (pod-level requests where set),
    plus its overhead when that request is not zero.

    Kubernetes: `GetResourceRequest` (pkg/api/v1/resource/helpers.go)
    """
    if name == "pods":
        return 1
    total = pod_requests(replace(pod, overhead=FrozenMap()), pod_level_resources=True).get(name, 0)
    return total + pod.overhead.get(name, 0) if total else 0


Requirements = tuple[tuple[str, int], ...]
"""``admissionRequirementList``: (resource, quantity still missing), in the order of the admission failures."""


def subtract(requirements: Requirements, pods: Iterable[Pod]) -> Requirements:
    """``admissionRequirementList.subtract``: what is still missing once ``pods`` are gone.

    Kubernetes: `admissionRequirementList.subtract` (pkg/kubelet/preemption/preemption.go)
    """
    pods = tuple(pods)
    left = []
    for name, quantity in requirements:
        for pod in pods:
            quantity -= resource_request(pod, name)
            if quantity <= 0:
                break
        if quantity > 0:
            left.append((name, quantity))
    return tuple(left)


def distance(requirements: Requirements, pod: Pod) -> float:
    """``admissionRequirementList.distance``: the sum of the squared fractions of each requirement ``pod`` leaves.

    Kubernetes: `admissionRequirementList.distance` (pkg/kubelet/preemption/preemption.go)
    """
    return sum(((q - resource_request(pod, n)) / q) ** 2 for n, q in requirements if q - resource_request(pod, n) > 0)


def smaller_resource_request(a: Pod, b: Pod) -> bool:
    """``smallerResourceRequest``: memory, then cpu; equal requests count as smaller.

    Kubernetes: `smallerResourceRequest` (pkg/kubelet/preemption/preemption.go)
    """
    for name in ("memory", "cpu"):
        if resource_request(a, name) != resource_request(b, name):
            return resource_request(a, name) < resource_request(b, name)
    return True


def pods_to_preempt_by_distance(pods: list[Pod], requirements: Requirements) -> list[Pod] | None:
    """``getPodsToPreemptByDistance``: while something is missing, evict the pod closest to covering it (ties: the
    smaller request, the later one winning equal requests; the chosen pod's place is taken by the last); None if
    the pods run out first.

    Kubernetes: `getPodsToPreemptByDistance` (pkg/kubelet/preemption/preemption.go)
    """
    pods, chosen = list(pods), []
    while requirements:
        if not pods:
            return None
        best, best_distance = 0, float(len(requirements) + 1)
        for i, pod in enumerate(pods):
            d = distance(requirements, pod)
            if d < best_distance or (d == best_distance and smaller_resource_request(pod, pods[best])):
                best, best_distance = i, d
        requirements = subtract(requirements, [pods[best]])
        chosen.append(pods[best])
        pods[best] = pods[-1]
        pods.pop()
    return chosen


def pods_to_preempt(pod: Pod, running: Iterable[Pod], requirements: Requirements) -> list[Pod] | None:
    """``getPodsToPreempt``: the pods ``pod`` evicts among the ``running`` ones it may preempt: as few guaranteed
    pods as the others cannot cover, then burstable, then best-effort ones; None if all of them together do not
    free enough.

    Kubernetes: `getPodsToPreempt` (pkg/kubelet/preemption/preemption.go)
    """
    classes: dict[str, list[Pod]] = {BEST_EFFORT: [], BURSTABLE: [], GUARANTEED: []}
    for other in running:
        if preemptable(pod, other):
            classes[qos_class(other)].append(other)
    best_effort, burstable, guaranteed = classes[BEST_EFFORT], classes[BURSTABLE], classes[GUARANTEED]
    if subtract(requirements, [*best_effort, *burstable, *guaranteed]):
        return None
    evict_guaranteed = pods_to_preempt_by_distance(guaranteed, subtract(requirements, [*best_effort, *burstable]))
    if evict_guaranteed is None:
        return None
    evict_burstable = pods_to_preempt_by_distance(burstable, subtract(requirements, [*best_effort, *evict_guaranteed]))
    if evict_burstable is None:
        return None
    evict_best_effort = pods_to_preempt_by_distance(
        best_effort, subtract(requirements, [*evict_burstable, *evict_guaranteed]))
    if evict_best_effort is None:
        return None
    return [*evict_best_effort, *evict_burstable, *evict_guaranteed]


def insufficient_amounts(pod: Pod, node: Node, admitted: Iterable[Pod]) -> Requirements:
    """Each resource ``generalFilter`` finds lacking, with how much is missing (``GetInsufficientAmount``:
    requested - (allocatable - used)), in :func:`admission_failures`' order.

    Kubernetes: `InsufficientResourceError.GetInsufficientAmount` (pkg/kubelet/lifecycle/predicate.go)
    """
    info = kubelet_node_info(node, admitted)
    request = admitted_request(pod, info)
    free, used = info.allocatable, info.requested
    wanted = {"pods": 1, "cpu": request.milli_cpu, "memory": request.memory,
              "ephemeral-storage": request.ephemeral_storage, **request.scalar_resources}
    capacity = {"pods": free.allowed_pod_number, "cpu": free.milli_cpu, "memory": free.memory,
                "ephemeral-storage": free.ephemeral_storage, **free.scalar_resources}
    in_use = {"pods": len(info.pods), "cpu": used.milli_cpu, "memory": used.memory,
              "ephemeral-storage": used.ephemeral_storage, **used.scalar_resources}
    lacking = insufficient_resources(request, info)
    ordered = [n for n in lacking if n in OUT_OF] + sorted(n for n in lacking if n not in OUT_OF)
    return tuple((n, wanted[n] - (capacity.get(n, 0) - in_use.get(n, 0))) for n in ordered)


def handle_admission_failure(pod: Pod, node: Node, admitted: Iterable[Pod]) -> tuple[str | None, tuple[Pod, ...]]:
    """What the kubelet does with ``pod`` that ``generalFilter`` rejects: (the rejection reason, or None to admit
    it; the pods evicted for it). A pod that is not critical, or fails for a reason other than resources, is
    rejected with its first such reason; a critical one that lacks only resources evicts
    :func:`pods_to_preempt` and is admitted, or is rejected with :data:`UNEXPECTED_ADMISSION_ERROR` when no set
    of pods frees enough.

    Kubernetes: `CriticalPodAdmissionHandler.HandleAdmissionFailure` (pkg/kubelet/preemption/preemption.go)
    Kubernetes: `predicateAdmitHandler.Admit` (pkg/kubelet/lifecycle/predicate.go)
    """
    admitted = tuple(admitted)
    failures = admission_failures(pod, node, admitted)
    if not failures:
        return None, ()
    if not is_critical_pod(pod):
        return failures[0], ()
    other = [reason for reason in failures if not reason.startswith(INSUFFICIENT_RESOURCE_PREFIX)]
    if other:
        return other[0], ()
    victims = pods_to_preempt(pod, admitted, insufficient_amounts(pod, node, admitted))
    if victims is None:
        return UNEXPECTED_ADMISSION_ERROR, ()
    return None, tuple(victims)


def admitted_pods_on(cluster: Cluster, node: str) -> tuple[Pod, ...]:
    """The pods the kubelet of ``node`` admitted and that still exist, by UID."""
    return tuple(cluster.api_pods[uid] for uid in sorted(cluster.admitted)
                 if uid in cluster.api_pods and cluster.api_pods[uid].node_name == node)


def admit_pod(cluster: Cluster, uid: str) -> Cluster:
    """The kubelet of the node pod ``uid`` is bound to handles it: admitted, it runs there (``admitted``);
    rejected, its phase becomes ``Failed`` with its reason (``failed``), the API server's informers stop listing
    it, and the scheduler's cache lets it go. A critical pod lacking only resources is admitted after the pods
    :func:`handle_admission_failure` evicts fail with reason :data:`PREEMPTING` (and leave the caches likewise).

    Enabled for a pod bound to a node the API server has, not handled yet. A rejection reaches the scheduler
    after the pod's binding does (a pod's events arrive in order), so it waits while the binding is unconfirmed.

    Kubernetes: `Kubelet.HandlePodAdditions` (pkg/kubelet/kubelet.go)
    Kubernetes: `manager.canAdmitPod` (pkg/kubelet/allocation/allocation_manager.go)
    Kubernetes: `Kubelet.rejectPod` (pkg/kubelet/kubelet.go)
    Kubernetes: `CriticalPodAdmissionHandler.evictPodsToFreeRequests` (pkg/kubelet/preemption/preemption.go)
    """
    pod = cluster.api_pods.get(uid)
    if pod is None or pod.node_name == "" or pod.node_name not in cluster.nodes or uid in cluster.admitted:
        raise CycleNotEnabled(f"pod {uid} is not bound to a node whose kubelet has yet to handle it")
    node, running = cluster.nodes[pod.node_name], admitted_pods_on(cluster, pod.node_name)
    reason = admission_reason(pod, node, running)
    victims: tuple[Pod, ...] = ()
    if reason is not None:  # the admission failure handler: a critical pod may evict others instead
        reason, victims = handle_admission_failure(pod, node, running)
    if reason is None:
        if any(v.uid in cluster.unconfirmed for v in victims):
            raise CycleNotEnabled(f"a pod that pod {uid} would evict has a binding not yet delivered to the scheduler")
        for victim in victims:  # killed: phase Failed, reason Preempting; no informer lists it any more
            failed = cluster.failed.set(victim.uid, PREEMPTING)
            cluster = replace(forget_deleted_pod(cluster, victim.uid), failed=failed)
        return replace(cluster, admitted=cluster.admitted | {uid})
    if uid in cluster.unconfirmed:
        raise CycleNotEnabled(f"pod {uid}'s binding has not reached the scheduler yet")
    after = forget_deleted_pod(cluster, uid)
    return replace(after, failed=cluster.failed.set(uid, reason))
