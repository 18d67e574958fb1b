"""NodeInfo: what the scheduler knows about one node and the pods charged to it.

This is ``framework.NodeInfo`` (pkg/scheduler/framework/types.go, v1.35). Every change that
adds or removes a pod, sets or removes the node, takes a fresh *generation* from one global
counter; the cache passes it in, because the counter belongs to the cache state here.

A NodeInfo whose ``node`` is None is a *placeholder* (pods arrived before their node) or a
*ghost* (the node was removed while pods remained); see :mod:`spec.cache.cache`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from spec.cache.imagestates import ImageStateSummary
from spec.errors import CacheError, ErrorKind, FatalKind, SchedulerExit
from spec.frozenmap import FrozenMap
from spec.objects import PROTOCOL_TCP, Node, Pod, pvc_key
from spec.quantities import ResourceList
from spec.resources import (
    EMPTY_RESOURCE,
    PodResource,
    Resource,
    compute_pod_resource,
    get_host_ports,
    resource_from_list,
)
from spec.valuetypes import cached_hash, replace

DEFAULT_BIND_ALL_HOST_IP = "0.0.0.0"
"""``DefaultBindAllHostIP``: the host IP of a port that names none."""


@cached_hash
@dataclass(frozen=True, order=True)
class HostPort:
    """One entry of ``HostPortInfo``: a host IP, a protocol and a port, after sanitising."""

    ip: str
    protocol: str
    port: int


def host_port(ip: str, protocol: str, port: int) -> HostPort:
    """``HostPortInfo.sanitize``: an empty IP means 0.0.0.0 and an empty protocol means TCP.

    Kubernetes: `HostPortInfo.sanitize` (staging/src/k8s.io/kube-scheduler/framework/types.go)
    """
    return HostPort(ip or DEFAULT_BIND_ALL_HOST_IP, protocol or PROTOCOL_TCP, port)


@cached_hash
@dataclass(frozen=True)
class NodeInfo:
    """``framework.NodeInfo``; every field is derived from ``node`` and ``pods`` except the order
    of the pod lists and ``generation``.

    Field invariants (checked by :mod:`spec.cache.invariants`): ``requested`` and
    ``non_zero_requested`` are the sums over ``pods``; ``pods_with_affinity`` and
    ``pods_with_required_anti_affinity`` are the pods that have them; ``used_ports`` is the union
    of the pods' host ports; ``pvc_ref_counts`` counts the pods' claim volumes.
    """

    node: Node | None = None
    pods: tuple[Pod, ...] = ()
    """In the order added; removal moves the last pod into the freed slot (``removeFromSlice``)."""
    pods_with_affinity: tuple[Pod, ...] = ()
    pods_with_required_anti_affinity: tuple[Pod, ...] = ()
    used_ports: frozenset[HostPort] = frozenset()
    requested: Resource = EMPTY_RESOURCE
    non_zero_requested: Resource = EMPTY_RESOURCE
    allocatable: Resource = EMPTY_RESOURCE
    image_states: FrozenMap[str, ImageStateSummary] = field(default_factory=FrozenMap)
    """Filled only in clones (dump, snapshot); inside the cache the pointers live in the cache
    state (:mod:`spec.cache.imagestates`)."""
    pvc_ref_counts: FrozenMap[str, int] = field(default_factory=FrozenMap)
    generation: int = 0

    @property
    def name(self) -> str:
        """The node's name, or "" for a NodeInfo without a node."""
        return self.node.name if self.node is not None else ""


def new_node_info(generation: int) -> NodeInfo:
    """``NewNodeInfo()``: an empty NodeInfo with no node, at ``generation``.

    Kubernetes: `NewNodeInfo` (pkg/scheduler/framework/types.go)
    """
    return NodeInfo(generation=generation)


def pod_with_affinity(pod: Pod) -> bool:
    """``podWithAffinity``: the pod has a PodAffinity or PodAntiAffinity, even one with no terms.

    Kubernetes: `podWithAffinity` (pkg/scheduler/framework/types.go)
    """
    return pod.pod_affinity is not None or pod.pod_anti_affinity is not None


def pod_with_required_anti_affinity(pod: Pod) -> bool:
    """``podWithRequiredAntiAffinity``: the pod has at least one required anti-affinity term.

    Kubernetes: `podWithRequiredAntiAffinity` (pkg/scheduler/framework/types.go)
    """
    return pod.pod_anti_affinity is not None and pod.pod_anti_affinity.required > 0


def _add_scaled(total: ResourceList, delta: ResourceList, sign: int) -> ResourceList:
    updated = dict(total)
    for name, quantity in delta.items():
        updated[name] = updated.get(name, 0) + sign * quantity
    return FrozenMap(updated)


def _charge(requested: Resource, pod_resource: Resource, sign: int) -> Resource:
    """The part of ``NodeInfo.update`` on Requested: cpu, memory, ephemeral storage, scalars."""
    return Resource(
        milli_cpu=requested.milli_cpu + sign * pod_resource.milli_cpu,
        memory=requested.memory + sign * pod_resource.memory,
        ephemeral_storage=requested.ephemeral_storage + sign * pod_resource.ephemeral_storage,
        allowed_pod_number=requested.allowed_pod_number,
        scalar_resources=_add_scaled(requested.scalar_resources, pod_resource.scalar_resources, sign),
    )


def _charge_non_zero(non_zero: Resource, pod_resource: PodResource, sign: int) -> Resource:
    return replace(
        non_zero,
        milli_cpu=non_zero.milli_cpu + sign * pod_resource.non0_cpu,
        memory=non_zero.memory + sign * pod_resource.non0_mem,
    )


def _pod_host_ports(pod: Pod) -> frozenset[HostPort]:
    return frozenset(host_port(p.host_ip, p.protocol, p.host_port) for p in get_host_ports(pod))


def _count_pvcs(counts: FrozenMap[str, int], pod: Pod, sign: int) -> FrozenMap[str, int]:
    """``updatePVCRefCounts``: one count per claim volume; counts that reach 0 are deleted."""
    updated = dict(counts)
    for claim in pod.pvc_claims:
        key = pvc_key(pod.namespace, claim)
        updated[key] = updated.get(key, 0) + sign
        if updated[key] <= 0:
            del updated[key]
    return FrozenMap(updated)


def add_pod(info: NodeInfo, pod: Pod, generation: int, *, pod_level_resources: bool = True) -> NodeInfo:
    """``NodeInfo.AddPod``: append the pod, charge its requests, ports and claims. Never fails.

    Kubernetes: `NodeInfo.AddPod` (pkg/scheduler/framework/types.go)
    """
    pod_resource = compute_pod_resource(pod, pod_level_resources=pod_level_resources)
    return replace(
        info,
        pods=(*info.pods, pod),
        pods_with_affinity=(*info.pods_with_affinity, pod) if pod_with_affinity(pod) else info.pods_with_affinity,
        pods_with_required_anti_affinity=(
            (*info.pods_with_required_anti_affinity, pod)
            if pod_with_required_anti_affinity(pod)
            else info.pods_with_required_anti_affinity
        ),
        used_ports=info.used_ports | _pod_host_ports(pod),
        requested=_charge(info.requested, pod_resource.resource, +1),
        non_zero_requested=_charge_non_zero(info.non_zero_requested, pod_resource, +1),
        pvc_ref_counts=_count_pvcs(info.pvc_ref_counts, pod, +1),
        generation=generation,
    )


def remove_from_slice(pods: tuple[Pod, ...], uid: str) -> tuple[tuple[Pod, ...], Pod | None]:
    """``removeFromSlice``: drop the first pod with ``uid`` by moving the last pod into its slot.

    Kubernetes: `removeFromSlice` (pkg/scheduler/framework/types.go)
    """
    for index, pod in enumerate(pods):
        if pod.uid == uid:
            last = pods[-1]
            rest = pods[:-1]
            if index < len(rest):
                rest = (*rest[:index], last, *rest[index + 1 :])
            return rest, pod
    return pods, None


class PodNotInNodeInfo(CacheError):
    """``NodeInfo.RemovePod`` found no pod with the uid; carries the NodeInfo as Kubernetes leaves it.

    Kubernetes prunes the affinity lists *before* it looks for the pod, so even this failure
    can change the NodeInfo (without a new generation).
    """

    def __init__(self, message: str, info_after: NodeInfo) -> None:
        super().__init__(ErrorKind.POD_NOT_IN_NODE_INFO, message)
        self.info_after = info_after


def remove_pod(info: NodeInfo, pod: Pod, generation: int, *, pod_level_resources: bool = True) -> NodeInfo:
    """``NodeInfo.RemovePod``: remove the pod with ``pod.uid`` and release what it was charged.

    Which affinity lists are pruned is decided by the *argument* pod's spec; the resources,
    ports and claims released are those of the *stored* pod. Fails with
    :class:`PodNotInNodeInfo` if no stored pod has the uid, and with
    ``SchedulerExit(NilNodeDereference)`` if, in addition, the NodeInfo has no node (Go formats
    ``n.node.Name`` for the message).

    Kubernetes: `NodeInfo.RemovePod` (pkg/scheduler/framework/types.go)
    """
    with_affinity = info.pods_with_affinity
    if pod_with_affinity(pod):
        with_affinity, _ = remove_from_slice(with_affinity, pod.uid)
    with_anti = info.pods_with_required_anti_affinity
    if pod_with_required_anti_affinity(pod):
        with_anti, _ = remove_from_slice(with_anti, pod.uid)
    pods, stored = remove_from_slice(info.pods, pod.uid)
    if stored is None:
        if info.node is None:
            raise SchedulerExit(
                FatalKind.NIL_NODE_DEREFERENCE,
                f"NodeInfo.RemovePod: pod {pod.name} not found on a NodeInfo without a node",
            )
        pruned = replace(info, pods_with_affinity=with_affinity, pods_with_required_anti_affinity=with_anti)
        raise PodNotInNodeInfo(f"no corresponding pod {pod.name} in pods of node {info.node.name}", pruned)
    pod_resource = compute_pod_resource(stored, pod_level_resources=pod_level_resources)
    return replace(
        info,
        pods=pods,
        pods_with_affinity=with_affinity,
        pods_with_required_anti_affinity=with_anti,
        used_ports=info.used_ports - _pod_host_ports(stored),
        requested=_charge(info.requested, pod_resource.resource, -1),
        non_zero_requested=_charge_non_zero(info.non_zero_requested, pod_resource, -1),
        pvc_ref_counts=_count_pvcs(info.pvc_ref_counts, stored, -1),
        generation=generation,
    )


def set_node(info: NodeInfo, node: Node, generation: int) -> NodeInfo:
    """``NodeInfo.SetNode``: record the node and replace Allocatable with its allocatable.

    Kubernetes: `NodeInfo.SetNode` (pkg/scheduler/framework/types.go)
    """
    return replace(info, node=node, allocatable=resource_from_list(node.allocatable), generation=generation)


def remove_node(info: NodeInfo, generation: int) -> NodeInfo:
    """``NodeInfo.RemoveNode``: forget the node but keep pods, requests, Allocatable and images.

    Kubernetes: `NodeInfo.RemoveNode` (pkg/scheduler/framework/types.go)
    """
    return replace(info, node=None, generation=generation)
