"""Ported from pkg/scheduler/backend/cache/cache_test.go: the cache's table tests, case by case.

``makeBasePod(node, name, cpu, mem, extended, ports)`` is :func:`base_pod`. A Go test's ``newCache(ttl, ...)`` with
a TTL it never lets expire is ported without one (so the vector holds for every profile); a test that calls
``finishBinding`` or ``cleanupAssumedPods`` keeps its TTL and holds for the profiles with expiry. Go's times are
offsets from ``now`` = 0. Memory quantities such as ``"100m"`` are ``Value()``'s rounding up: 1 byte. The cases
that :mod:`conformance.scenarios.cache` already ports as one vector each (TestAddPodWillConfirm,
TestAddPodAlwaysUpdatesPodInfoInNodeInfo, TestAddPodWillReplaceAssumed, TestAddPodAfterExpiration, TestUpdatePod,
TestExpireAddUpdatePod, TestRemovePod, TestForgetPod, TestSchedulerCache_updateNodeInfoSnapshotList's first
case) are not repeated.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

from conformance.ported.common import go_case
from conformance.scenarios.shapes import KI, MI, container, host_port, zone_labels
from conformance.traces import Scenario
from spec.cache.operations import (
    AddNode,
    AddPod,
    AssumePod,
    CleanupAssumedPods,
    FinishBinding,
    ForgetPod,
    RemoveNode,
    RemovePod,
    UpdateNode,
    UpdatePod,
    UpdateSnapshot,
)
from spec.frozenmap import FrozenMap
from spec.objects import PROTOCOL_TCP, AffinityTerms, ContainerImage, ContainerPort, Node, Pod, Taint
from spec.quantities import SECOND, resources_from

FILE: Final = "backend/cache/cache_test.go"
NS: Final = "node_info_cache_test"
TTL: Final = 10 * SECOND
S: Final = UpdateSnapshot()
LOCAL_80: Final = (host_port(80, PROTOCOL_TCP, "127.0.0.1"),)
LOCAL_8080: Final = (host_port(8080, PROTOCOL_TCP, "127.0.0.1"),)


def base_pod(node: str, name: str, cpu: int | None, mem: int, extended: tuple[str, int] | None = None,
             ports: tuple[ContainerPort, ...] = ()) -> Pod:
    """``makeBasePod``: one container "container" (image pause) requesting cpu, memory and an extended resource."""
    extra = {extended[0]: extended[1]} if extended else None
    made = (container("container", cpu, mem, extra=extra, ports=ports, image="pause") if cpu is not None
            else container("container", ports=ports, image="pause"))
    return Pod(name, name, NS, node, (made,))


def assume_pod_scheduled() -> list[Scenario]:
    pods = [base_pod("node", f"test-resource-request-and-port-{i}", cpu, mem, None, ports)
            for i, (cpu, mem, ports) in enumerate([(100, 500, LOCAL_80), (100, 500, LOCAL_80), (200, KI, LOCAL_8080)])]
    pods += [base_pod("node", "test-nonzero-request", None, 0, None, LOCAL_80),
             base_pod("node", "test-extended-resource-1", 100, 500, ("example.com/foo", 3), LOCAL_80),
             base_pod("node", "test-extended-resource-2", 200, KI, ("example.com/foo", 5), LOCAL_8080),
             base_pod("node", "test-extended-key", 100, 500, ("random-invalid-extended-key", 100),
                      (ContainerPort(0),))]
    cases = [("assumed one pod with resource request and used ports", [pods[0]]),
             ("node requested resource are equal to the sum of the assumed pods requested resource, node contains "
              "host ports defined by pods", [pods[1], pods[2]]),
             ("assumed pod without resource request", [pods[3]]),
             ("assumed one pod with extended resource", [pods[4]]),
             ("assumed two pods with extended resources", [pods[4], pods[5]]),
             ("assumed pod with random invalid extended resource key", [pods[6]])]
    return [go_case("cache", FILE, "TestAssumePodScheduled", case,
                    [*(op for p in chosen for op in (AssumePod(p), AssumePod(p))), *map(ForgetPod, chosen)],
                    "assume", "forget", "resources") for case, chosen in cases]


def expire_pod() -> list[Scenario]:
    p = [base_pod("node", "test-1", 100, 500, None, LOCAL_80), base_pod("node", "test-2", 200, KI, None, LOCAL_8080),
         base_pod("node", "test-3", 200, KI, None, LOCAL_8080)]
    late = 2 * TTL
    return [
        go_case("cache", FILE, "TestExpirePod", "assumed pod would expire",
                [AssumePod(p[0]), FinishBinding(p[0], 0), CleanupAssumedPods(late)], "expiry", ttl=TTL),
        go_case("cache", FILE, "TestExpirePod", "first one would expire, second and third would not",
                [AssumePod(p[0]), FinishBinding(p[0], 0), AssumePod(p[1]), FinishBinding(p[1], 3 * TTL // 2),
                 AssumePod(p[2]), CleanupAssumedPods(late)], "expiry", "remove-from-slice", ttl=TTL),
        go_case("cache", FILE, "TestExpirePod", "assumed pod would never expire",
                [AssumePod(p[0]), FinishBinding(p[0], 0), CleanupAssumedPods(3 * TTL)], "expiry",
                note="newCache with a TTL of 0 in a profile that has expiry"),
    ]


def single_cases() -> list[Scenario]:
    p1, p2 = base_pod("node", "test-1", 100, 500, None, LOCAL_80), base_pod("node", "test-2", 200, KI, None, LOCAL_80)
    v1, v2 = base_pod("node", "test", 100, 500, None, LOCAL_80), base_pod("node", "test", 200, KI, None, LOCAL_8080)
    storage = Pod("default-namespace", "default-namespace", "default", "node",
                  (container(extra={"ephemeral-storage": 500}),))
    return [
        go_case("cache", FILE, "TestDump", "two assumed pods, one confirmed",
                [AssumePod(p1), FinishBinding(p1, 0), AssumePod(p2), FinishBinding(p2, 0), AddPod(p1)],
                "assume", "confirm", ttl=TTL),
        go_case("cache", FILE, "TestUpdatePodAndGet", "do not update pod when pod information has not changed",
                [UpdatePod(v1, v1), AssumePod(v1)], "update"),
        go_case("cache", FILE, "TestUpdatePodAndGet", "update  pod when pod information changed",
                [UpdatePod(v1, v2), AddPod(v1), UpdatePod(v1, v2)], "update"),
        go_case("cache", FILE, "TestEphemeralStorageResource", "pod with ephemeral storage",
                [AddPod(storage), RemovePod(storage)], "resources", "placeholder"),
    ]


def node_operators() -> list[Scenario]:
    """TestNodeOperators: add the nodes and pods, snapshot, update the first node's memory, remove it twice, then
    remove its pods."""
    list1 = resources_from({"pods": 32, "cpu": 1000, "memory": 1, "example.com/foo": 1})
    list2 = resources_from({"pods": 32, "cpu": 500, "memory": 1, "example.com/foo": 2})
    taints = (Taint("test-key", "test-value", "PreferNoSchedule"),)
    mb = MI

    def images(sizes: dict[str, int]) -> tuple[ContainerImage, ...]:
        return tuple(ContainerImage((name,), size) for name, size in sorted(sizes.items()))

    images1 = images({"gcr.io/80:latest": 80 * mb, "gcr.io/80:v1": 80 * mb, "gcr.io/300:latest": 300 * mb,
                      "gcr.io/300:v1": 300 * mb})
    images2 = images({"gcr.io/600:latest": 600 * mb, "gcr.io/80:latest": 80 * mb, "gcr.io/900:latest": 900 * mb})

    def node(i: int, allocatable: FrozenMap[str, int], imgs: tuple[ContainerImage, ...]) -> Node:
        return Node(f"test-node-{i}", allocatable, taints=taints, images=imgs)

    def pod(name: str, port: bool) -> Pod:
        ports = (ContainerPort(80, 80),) if port else ()
        return Pod(name, name, "", "test-node-1", (container("", 500, 1, ports=ports),))

    four = [node(1, list1, images1), node(2, list2, images2), node(3, list1, images1), node(4, list2, images2)]
    cases = [("operate the node with one pod", four, [pod("pod1", True)]),
             ("operate the node with two pods", four[:3], [pod("pod1", False), pod("pod2", False)])]
    out = []
    for case, nodes, pods in cases:
        first = nodes[0]
        updated = Node(first.name, first.allocatable.set("memory", 1), first.labels, first.taints, images=first.images)
        ops: list[object] = [*map(AddNode, nodes), *map(AddPod, pods), S, UpdateNode(None, updated),
                             RemoveNode(updated), RemoveNode(updated), S, *map(RemovePod, pods), S]
        out.append(go_case("cache", FILE, "TestNodeOperators", case, ops, "node", "ghost", "images"))
    return out


def update_snapshot() -> list[Scenario]:
    """TestSchedulerCache_UpdateSnapshot: every case, with the final update the test makes."""
    nodes = [Node(f"test-node{i}", resources_from({"cpu": 1000, "memory": 1})) for i in range(10)]
    updated = [Node(n.name, resources_from({"cpu": 2000, "memory": 1})) for n in nodes]
    pods = [Pod(f"test-puid{i}", f"test-pod{i}", "test-ns", f"test-node{i % 10}") for i in range(20)]
    updated_pods = [Pod(p.uid, p.name, p.namespace, p.node_name, priority=1000) for p in pods]
    affinity = [Pod(f"puid-affinity-{i}", f"p-affinity-{i}", "test-ns", f"test-node{i}",
                    pod_affinity=AffinityTerms(required=1)) for i in range(2)]
    pvc = [Pod(f"puid-pvc-{i}", f"p-pvc-{i}", "test-ns", f"test-node{i % 2}", pvc_claims=(f"test-pvc{i % 4}",))
           for i in range(8)]
    add_node: Callable[[int], object] = lambda i: AddNode(nodes[i])  # noqa: E731
    remove_node: Callable[[int], object] = lambda i: RemoveNode(nodes[i])  # noqa: E731
    update_node: Callable[[int], object] = lambda i: UpdateNode(nodes[i], updated[i])  # noqa: E731
    add_pod: Callable[[int], object] = lambda i: AddPod(pods[i])  # noqa: E731
    remove_pod: Callable[[int], object] = lambda i: RemovePod(pods[i])  # noqa: E731
    update_pod: Callable[[int], object] = lambda i: UpdatePod(pods[i], updated_pods[i])  # noqa: E731
    add_aff: Callable[[int], object] = lambda i: AddPod(affinity[i])  # noqa: E731
    remove_aff: Callable[[int], object] = lambda i: RemovePod(affinity[i])  # noqa: E731
    add_pvc: Callable[[int], object] = lambda i: AddPod(pvc[i])  # noqa: E731
    remove_pvc: Callable[[int], object] = lambda i: RemovePod(pvc[i])  # noqa: E731
    an, rn, un, ap, rp, up = add_node, remove_node, update_node, add_pod, remove_pod, update_pod
    cases: list[tuple[str, list[object]]] = [
        ("Empty cache", []),
        ("Single node", [an(1)]),
        ("Add node, remove it, add it again", [an(1), S, rn(1), an(1)]),
        ("Add node and remove it in the same cycle, add it again", [an(1), S, an(2), rn(1)]),
        ("Add a few nodes, and snapshot in the middle", [an(0), S, an(1), S, an(2), S, an(3)]),
        ("Add a few nodes, and snapshot in the end", [an(0), an(2), an(5), an(6)]),
        ("Update some nodes", [an(0), an(1), an(5), S, un(1)]),
        ("Add a few nodes, and remove all of them", [an(0), an(2), an(5), an(6), S, rn(0), rn(2), rn(5), rn(6)]),
        ("Add a few nodes, and remove some of them", [an(0), an(2), an(5), an(6), S, rn(0), rn(6)]),
        ("Add a few nodes, remove all of them, and add more", [an(2), an(5), an(6), S, rn(2), rn(5), rn(6), S, an(7),
                                                               an(9)]),
        ("Update nodes in particular order", [an(8), un(2), un(8), S, an(1)]),
        ("Add some nodes and some pods", [an(0), an(2), an(8), S, ap(8), ap(2)]),
        ("Updating a pod moves its node to the head", [an(0), ap(0), an(2), an(4), up(0)]),
        ("Add pod before its node", [an(0), ap(1), up(1), an(1)]),
        ("Remove node before its pods", [an(0), an(1), ap(1), ap(11), S, rn(1), S, up(1), up(11), rp(1), rp(11)]),
        ("Add Pods with affinity", [an(0), add_aff(0), S, an(1)]),
        ("Add Pods with PVC", [an(0), add_pvc(0), S, an(1)]),
        ("Add multiple nodes with pods with affinity", [an(0), add_aff(0), S, an(1), add_aff(1), S]),
        ("Add multiple nodes with pods with PVC", [an(0), add_pvc(0), S, an(1), add_pvc(1), S]),
        ("Add then Remove pods with affinity", [an(0), an(1), add_aff(0), S, remove_aff(0), S]),
        ("Add then Remove pod with PVC", [an(0), add_pvc(0), S, remove_pvc(0), add_pvc(2), S]),
        ("Add then Remove pod with PVC and add same pod again", [an(0), add_pvc(0), S, remove_pvc(0), add_pvc(0), S]),
        ("Add and Remove multiple pods with PVC with same ref count length different content",
         [an(0), an(1), add_pvc(0), add_pvc(1), S, remove_pvc(0), remove_pvc(1), add_pvc(2), add_pvc(3), S]),
        ("Add and Remove multiple pods with PVC",
         [an(0), an(1), add_pvc(0), add_pvc(1), add_pvc(2), S, remove_pvc(0), remove_pvc(1), S, add_pvc(0), S,
          add_pvc(3), add_pvc(4), add_pvc(5), S, remove_pvc(0), remove_pvc(3), remove_pvc(4), S]),
    ]
    return [go_case("snapshot", FILE, "TestSchedulerCache_UpdateSnapshot", case, [*ops, S], "generation")
            for case, ops in cases]


def update_node_info_snapshot_list() -> list[Scenario]:
    """TestSchedulerCache_updateNodeInfoSnapshotList (bug 91601): nodes in two zones, list rebuilds."""
    nodes = [Node(f"node-{i}", labels=zone_labels(region=f"region-{z}", zone=f"zone-{z}"))
             for i, z in enumerate([0, 0, 1, 1, 1, 1, 1, 1])]
    an: Callable[[int], object] = lambda i: AddNode(nodes[i])  # noqa: E731
    cases: list[tuple[str, list[object]]] = [
        ("Single node", [an(0)]),
        ("Two nodes", [an(0), S, an(1)]),
        ("bug 91601, two nodes, update the snapshot and add two nodes in different zones", [an(2), an(3), S, an(4),
                                                                                             an(0)]),
        ("bug 91601, 6 nodes, one in a different zone", [an(2), an(3), an(4), an(5), S, an(6), an(0)]),
        ("bug 91601, 7 nodes, two in a different zone", [an(2), S, an(3), an(4), S, an(5), an(6), an(0), an(1)]),
        ("bug 91601, 7 nodes, two in a different zone, different zone order", [an(2), an(1), S, an(3), an(4), S,
                                                                               an(5), an(6), an(0)]),
    ]
    note = "the Go test calls updateNodeInfoSnapshotList(true) directly; a node new to the snapshot does the same"
    return [go_case("node_tree", FILE, "TestSchedulerCache_updateNodeInfoSnapshotList", case, [*ops, S], "zones",
                    note=note) for case, ops in cases]


def scenarios() -> list[Scenario]:
    """Every port of cache_test.go."""
    return [*assume_pod_scheduled(), *expire_pod(), *single_cases(), *node_operators(), *update_snapshot(),
            *update_node_info_snapshot_list()]

