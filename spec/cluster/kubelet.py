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
from spec.resources import Resource, compute_pod_resource

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


def admitted_pods_on(cluster: Cluster, node: str) -> tuple[Pod, ...]:
    """The pods the kubelet of ``node`` admitted and that still exist, by UID."""
    return tuple(cluster.api_pods[uid] for uid in sorted(cluster.admitted)
                 if uid in cluster.api_pods and cluster.api_pods[uid].node_name == node)


def admit_pod(cluster: Cluster, uid: str) -> Cluster:
    """The kubelet of the node pod ``uid`` is bound to handles it: admitted, it runs there (``admitted``);
    rejected, its phase becomes ``Failed`` with :func:`admission_reason` (``failed``), the API server's
    informers stop listing it, and the scheduler's cache lets it go.

    Enabled for a pod bound to a node the API server has, not handled yet. A rejection reaches the scheduler
    after the pod's binding does (a pod's events arrive in order), so it waits while the binding is unconfirmed.

    Kubernetes: `Kubelet.HandlePodAdditions` (pkg/kubelet/kubelet.go)
    Kubernetes: `manager.canAdmitPod` (pkg/kubelet/allocation/allocation_manager.go)
    Kubernetes: `Kubelet.rejectPod` (pkg/kubelet/kubelet.go)
    """
    pod = cluster.api_pods.get(uid)
    if pod is None or pod.node_name == "" or pod.node_name not in cluster.nodes or uid in cluster.admitted:
        raise CycleNotEnabled(f"pod {uid} is not bound to a node whose kubelet has yet to handle it")
    reason = admission_reason(pod, cluster.nodes[pod.node_name], admitted_pods_on(cluster, pod.node_name))
    if reason is None:
        return replace(cluster, admitted=cluster.admitted | {uid})
    if uid in cluster.unconfirmed:
        raise CycleNotEnabled(f"pod {uid}'s binding has not reached the scheduler yet")
    after = forget_deleted_pod(cluster, uid)
    return replace(after, failed=cluster.failed.set(uid, reason))
