"""Small universes of pods, nodes and API calls that exploration and random traces draw from.

Pods ``a`` and ``b`` come in two variants on each of two nodes: a plain one (100m CPU, 1 MiB) and a "rich" one
(200m CPU, host port 8080, a required anti-affinity term, a claim, an extended resource). Nodes ``n1`` and ``n2``
come in two zones, and the second variant lists an image. A pod with an empty UID exercises the key check.
"""

from __future__ import annotations

from typing import Final

from conformance.operations import UpdateMetrics
from spec.api_calls import (
    NominatingInfo,
    NominatingMode,
    PodBindingCall,
    PodCondition,
    PodStatus,
    PodStatusPatchCall,
)
from spec.call_queue_operations import AddCall, CallQueueOperation, CloseDispatcher, FinishCall, PopCall, SyncObject
from spec.frozenmap import FrozenMap
from spec.objects import LABEL_TOPOLOGY_ZONE, AffinityTerms, Container, ContainerImage, ContainerPort, Node, Pod
from spec.operations import (
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
from spec.quantities import SECOND, resource_list

MIB: Final = 2**20
TTL: Final = 10 * SECOND
"""The TTL of exploration and random traces in profiles with assumed-pod expiry."""
TIMES: Final = (0, 5 * SECOND, 20 * SECOND)
"""Times for FinishBinding and CleanupAssumedPods: before, inside and after a 10 s TTL."""
UIDS: Final = ("a", "b")
NODE_NAMES: Final = ("n1", "n2")


def plain_pod(uid: str, node: str) -> Pod:
    return Pod(uid, f"pod-{uid}", node_name=node,
               containers=(Container("c", resource_list(cpu=100, memory=MIB)),))


def rich_pod(uid: str, node: str) -> Pod:
    requests = resource_list(cpu=200, memory=2 * MIB, **{"example.com/gpu": 1})
    return Pod(uid, f"pod-{uid}", node_name=node,
               containers=(Container("c", requests, (ContainerPort(80, host_port=8080),), image="nginx:1"),),
               pod_anti_affinity=AffinityTerms(required=1), pvc_claims=("data",))


def zoned_node(name: str, zone: str, image: bool = False) -> Node:
    images = (ContainerImage(("nginx:1",), 100 * MIB),) if image else ()
    return Node(name, resource_list(cpu=4000, memory=8192 * MIB, pods=110),
                labels=FrozenMap({LABEL_TOPOLOGY_ZONE: zone}), images=images)


PODS: Final = tuple(make(uid, node) for uid in UIDS for node in NODE_NAMES for make in (plain_pod, rich_pod))
NODES: Final = tuple(
    v for name in NODE_NAMES for v in (zoned_node(name, "z1"), zoned_node(name, "z2", image=True))
)
EMPTY_UID_POD: Final = Pod("", "nameless", node_name="n1")


def cache_operations(with_expiry: bool, with_metrics: bool = False) -> tuple[Operation | UpdateMetrics, ...]:
    """Every cache operation over the universe, in a fixed order; ``update_metrics`` only ``with_metrics`` (random
    traces: it always succeeds and only writes the gauge, so exploration would just double its states)."""
    ops: list[Operation | UpdateMetrics] = [UpdateSnapshot(), *([UpdateMetrics()] if with_metrics else [])]
    for node in NODES:
        ops += [AddNode(node), RemoveNode(node), UpdateNode(None, node)]
        ops += [UpdateNode(old, node) for old in NODES if old.name == node.name]
    for pod in PODS:
        ops += [AssumePod(pod), AddPod(pod), ForgetPod(pod), RemovePod(pod)]
        ops += [UpdatePod(pod, new) for new in PODS if new.uid == pod.uid]
    ops += [AssumePod(EMPTY_UID_POD), AddPod(EMPTY_UID_POD)]
    if with_expiry:
        ops += [FinishBinding(pod, t) for pod in PODS for t in TIMES[:2]]
        ops += [CleanupAssumedPods(t) for t in TIMES]
    return tuple(ops)


SCHEDULED: Final = PodCondition("PodScheduled", "False", "Unschedulable", "0/2 nodes are available")
SCHEDULED_STATUS: Final = PodStatus(FrozenMap({"PodScheduled": SCHEDULED}))
NOMINATE: Final = NominatingInfo(NominatingMode.OVERRIDE, "n2")


def dispatcher_operations() -> tuple[CallQueueOperation, ...]:
    """Every call-queue operation over the universe (some are not enabled in a given queue)."""
    ops: list[CallQueueOperation] = [PopCall(), CloseDispatcher()]
    for uid in ("u1", "u2"):
        ops += [
            AddCall(PodBindingCall(uid, "n1")),
            AddCall(PodStatusPatchCall(uid, PodStatus(), SCHEDULED)),
            AddCall(PodStatusPatchCall(uid, PodStatus(), None, NOMINATE)),
            AddCall(PodStatusPatchCall(uid, SCHEDULED_STATUS, SCHEDULED)),
            FinishCall(uid), FinishCall(uid, "conflict"),
            SyncObject(uid, SCHEDULED_STATUS), SyncObject(uid, PodStatus(nominated_node_name="n2")),
        ]
    return tuple(ops)
