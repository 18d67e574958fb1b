"""Universes of pods, nodes and API calls that exploration and random traces draw from.

The cache universe has pods ``a``, ``b`` and ``c``, each in several shapes (:data:`POD_SHAPES`): plain; "rich" (a
host port, a required anti-affinity term, a claim, an extended resource, an image); an init container whose peak
sets the request and whose host port is not recorded; sidecars before and after a plain init container, with UDP
and SCTP host ports on host IPs; overhead with pod-level cpu, memory and hugepages requests; explicit zero requests
with extended, hugepages and domain-less resource names; a claim repeated in one pod, in another namespace; an empty
affinity with preferred-only anti-affinity. Nodes ``n1``, ``n2`` and ``n3`` come in shapes (:data:`NODE_SHAPES`)
with GA and beta zone and region labels, zones that change, and images shared across nodes with different sizes.
A pod with an empty UID exercises the key check.

Exploration draws from :func:`cache_operations` with ``rich=False`` (fewer shapes, so the breadth-first search
reaches deeper within its budget); random traces draw from the whole universe. Every list is in a fixed order, so
generation is deterministic.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Final

from conformance.operations import UpdateMetrics
from conformance.scenarios.shapes import container, host_port, node, zone_labels
from spec.cache.operations import (
    AddNode,
    AddPod,
    AssumePod,
    CleanupAssumedPods,
    FinishBinding,
    ForgetPod,
    Operation,
    RemoveNode,
    RemovePod,
    UpdateNode,
    UpdatePod,
    UpdateSnapshot,
)
from spec.dispatcher.api_calls import (
    NominatingInfo,
    NominatingMode,
    PodBindingCall,
    PodCondition,
    PodStatus,
    PodStatusPatchCall,
)
from spec.dispatcher.operations import AddCall, CallQueueOperation, CloseDispatcher, FinishCall, PopCall, SyncObject
from spec.frozenmap import FrozenMap
from spec.objects import (
    PROTOCOL_SCTP,
    PROTOCOL_UDP,
    AffinityTerms,
    Container,
    ContainerImage,
    ContainerPort,
    Node,
    Pod,
)
from spec.quantities import SECOND, resource_list, resources_from

MIB: Final = 2**20
TTL: Final = 10 * SECOND
"""The TTL of exploration and random traces in profiles with assumed-pod expiry."""
TIMES: Final = (0, 5 * SECOND, 20 * SECOND)
"""Times for FinishBinding and CleanupAssumedPods: before, inside and after a 10 s TTL."""
UIDS: Final = ("a", "b", "c")
NODE_NAMES: Final = ("n1", "n2", "n3")
GPU: Final = "example.com/gpu"
HUGE: Final = "hugepages-2Mi"


def _pod(uid: str, node_name: str, *containers: Container, **fields: object) -> Pod:
    return Pod(uid, f"pod-{uid}", node_name=node_name, containers=containers, **fields)  # type: ignore[arg-type]


def plain_pod(uid: str, node_name: str) -> Pod:
    return _pod(uid, node_name, container(cpu=100, memory=MIB))


def rich_pod(uid: str, node_name: str) -> Pod:
    requests = resource_list(cpu=200, memory=2 * MIB, **{GPU: 1})
    return _pod(uid, node_name, Container("c", requests, (ContainerPort(80, host_port=8080),), image="nginx:1"),
                pod_anti_affinity=AffinityTerms(required=1), pvc_claims=("data",))


def init_pod(uid: str, node_name: str) -> Pod:
    return _pod(uid, node_name, container(cpu=100, memory=MIB),
                init_containers=(container("i", cpu=400, memory=8 * MIB, ports=(host_port(7000),)),))


def sidecar_pod(uid: str, node_name: str) -> Pod:
    sidecar = container("s", cpu=50, memory=MIB, sidecar=True,
                        ports=(host_port(9000, PROTOCOL_UDP, "10.0.0.1"), host_port(9000, PROTOCOL_SCTP)))
    late = container("t", cpu=30, sidecar=True)
    return _pod(uid, node_name, container(cpu=100, memory=MIB, ports=(host_port(8080, host_ip="127.0.0.1"),)),
                init_containers=(sidecar, container("i", cpu=200, memory=4 * MIB), late))


def pod_level_pod(uid: str, node_name: str) -> Pod:
    return _pod(uid, node_name, container(cpu=100), container("d"),
                overhead=resources_from({"cpu": 50, "memory": MIB}),
                pod_level_requests=resources_from({"cpu": 300, "memory": 4 * MIB, HUGE: 2 * MIB,
                                                   "ephemeral-storage": MIB}))


def names_pod(uid: str, node_name: str) -> Pod:
    return _pod(uid, node_name, container(cpu=0, memory=0, extra={"foo": 1, HUGE: 2 * MIB, GPU: 2,
                                                                  "ephemeral-storage": 3 * MIB}))


def claims_pod(uid: str, node_name: str) -> Pod:
    return replace(_pod(uid, node_name, container(cpu=100), pvc_claims=("data", "data", "logs")), namespace="other")


def affinity_pod(uid: str, node_name: str) -> Pod:
    return _pod(uid, node_name, container(memory=MIB), pod_affinity=AffinityTerms(),
                pod_anti_affinity=AffinityTerms(preferred=1))


POD_SHAPES: Final = (plain_pod, rich_pod, init_pod, sidecar_pod, pod_level_pod, names_pod, claims_pod, affinity_pod)
EXPLORED_SHAPES: Final = {"a": (plain_pod, rich_pod, init_pod), "b": (plain_pod, sidecar_pod, affinity_pod)}
"""The shapes exploration gives each UID (two UIDs, so the search reaches deeper within its budget)."""

NGINX: Final = ContainerImage(("nginx:1", "docker.io/nginx:1"), 100 * MIB)
REDIS: Final = ContainerImage(("redis:7",), 30 * MIB)


def node_shapes(name: str) -> tuple[Node, ...]:
    """The objects the universe has for node ``name``: zones by GA and beta labels, a region, images."""
    return {
        "n1": (node("n1", 4000, 8192 * MIB, labels=zone_labels(zone="z1")),
               node("n1", 4000, 8192 * MIB, labels=zone_labels(zone="z1", beta_zone="z2", region="r1"),
                    images=(NGINX,))),
        "n2": (node("n2", 4000, 8192 * MIB, labels=zone_labels(zone="z2"), images=(NGINX,), extra={GPU: 4}),
               node("n2", 2000, 4096 * MIB, labels=zone_labels(beta_zone="z1", beta_region="r1"),
                    images=(replace(NGINX, size_bytes=120 * MIB), REDIS))),
        "n3": (node("n3", 1000, 2048 * MIB),
               node("n3", 1000, 2048 * MIB, labels=zone_labels(region="r2"), images=(REDIS,))),
    }[name]


EMPTY_UID_POD: Final = Pod("", "nameless", node_name="n1")


def pods(rich: bool = True) -> tuple[Pod, ...]:
    """Every pod object of the universe (with ``rich=False``, exploration's smaller set)."""
    if not rich:
        return tuple(make(uid, n) for uid, shapes in EXPLORED_SHAPES.items() for n in NODE_NAMES[:2] for make in shapes)
    return tuple(make(uid, n) for uid in UIDS for n in NODE_NAMES for make in POD_SHAPES)


def nodes(rich: bool = True) -> tuple[Node, ...]:
    """Every node object of the universe (with ``rich=False``, nodes n1 and n2 only)."""
    return tuple(v for name in (NODE_NAMES if rich else NODE_NAMES[:2]) for v in node_shapes(name))


def cache_operations(
    with_expiry: bool, with_metrics: bool = False, rich: bool = True
) -> tuple[Operation | UpdateMetrics, ...]:
    """Every cache operation over the universe, in a fixed order; ``update_metrics`` only ``with_metrics`` (random
    traces: it always succeeds and only writes the gauge, so exploration would just double its states). An update
    changes a pod into another shape on its node, or onto the other node (the fatal path)."""
    ops: list[Operation | UpdateMetrics] = [UpdateSnapshot(), *([UpdateMetrics()] if with_metrics else [])]
    all_nodes, all_pods = nodes(rich), pods(rich)
    for n in all_nodes:
        ops += [AddNode(n), RemoveNode(n), UpdateNode(None, n)]
        ops += [UpdateNode(old, n) for old in all_nodes if old.name == n.name]
    for p in all_pods:
        ops += [AssumePod(p), AddPod(p), ForgetPod(p), RemovePod(p)]
        ops += [UpdatePod(p, new) for new in all_pods if new.uid == p.uid and (new.node_name == p.node_name
                                                                               or new.containers == p.containers)]
    ops += [AssumePod(EMPTY_UID_POD), AddPod(EMPTY_UID_POD)]
    if with_expiry:
        ops += [FinishBinding(p, t) for p in all_pods for t in TIMES[:2]]
        ops += [CleanupAssumedPods(t) for t in TIMES]
    return tuple(ops)


def node_operations() -> tuple[Operation, ...]:
    """Node operations and snapshot updates only, over every node shape: the node-tree area's universe."""
    all_nodes = nodes()
    ops: list[Operation] = [UpdateSnapshot()]
    for n in all_nodes:
        ops += [AddNode(n), RemoveNode(n)]
        ops += [UpdateNode(old, n) for old in all_nodes if old.name == n.name]
    return tuple(ops)


SCHEDULED: Final = PodCondition("PodScheduled", "False", "Unschedulable", "0/2 nodes are available")
SCHEDULED_STATUS: Final = PodStatus(FrozenMap({"PodScheduled": SCHEDULED}))
OTHER_REASON: Final = PodCondition("PodScheduled", "False", "SchedulerError", "binding rejected")
NOMINATE: Final = NominatingInfo(NominatingMode.OVERRIDE, "n2")
NO_NOMINATION: Final = NominatingInfo(NominatingMode.NOOP)


def dispatcher_operations(rich: bool = False) -> tuple[CallQueueOperation, ...]:
    """Every call-queue operation over the universe (some are not enabled in a given queue). ``rich`` adds a third
    object, a second condition, Noop nominations and syncs that nominate (exploration and random traces)."""
    ops: list[CallQueueOperation] = [PopCall(), CloseDispatcher()]
    for uid in ("u1", "u2", "u3") if rich else ("u1", "u2"):
        ops += [
            AddCall(PodBindingCall(uid, "n1")),
            AddCall(PodStatusPatchCall(uid, PodStatus(), SCHEDULED)),
            AddCall(PodStatusPatchCall(uid, PodStatus(), None, NOMINATE)),
            AddCall(PodStatusPatchCall(uid, SCHEDULED_STATUS, SCHEDULED)),
            FinishCall(uid), FinishCall(uid, "conflict"),
            SyncObject(uid, SCHEDULED_STATUS), SyncObject(uid, PodStatus(nominated_node_name="n2")),
        ]
        if rich:
            ops += [
                AddCall(PodBindingCall(uid, "n2")),
                AddCall(PodStatusPatchCall(uid, PodStatus(), OTHER_REASON, NO_NOMINATION)),
                AddCall(PodStatusPatchCall(uid, SCHEDULED_STATUS, None, NO_NOMINATION)),
                SyncObject(uid, PodStatus(FrozenMap({"PodScheduled": OTHER_REASON}), "n2")),
            ]
    return tuple(ops)
