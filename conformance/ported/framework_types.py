"""Ported from pkg/scheduler/framework/types_test.go: Resource, NodeInfo.AddPod/RemovePod, PodInfo.CalculateResource,
updateUsedPorts.

A NodeInfo is driven through the cache: ``NewNodeInfo(pods...)`` is AddPod of each pod onto a node the cache does
not know (a placeholder), ``fakeNodeInfo`` a node added first; ``CalculateResource`` is observed as the
``requested`` and ``non_zero_requested`` of the node the pod is assumed on; ``NewResource`` as a node's
``allocatable``. Go's ``resource.MustParse`` quantities are written in the scheduler's units (``"1Ki"`` = 1024,
``"500"`` bytes = 500). Not ported: TestResourceClone, TestResourceAddScalar, TestSetMaxResource (methods of
``Resource`` the cache does not call), TestNodeInfoClone (every vector compares clones: dump and snapshot),
TestCalculatePodResourcesWithResize (container status is not modelled, :mod:`spec.resources`), TestFitError_Error,
TestCloudEvent_Match, TestSetNodeDeclaredFeatures and TestNodeInfoKMetadata (not cache behaviour).
"""

from __future__ import annotations

from typing import Any, Final

from conformance.ported.common import go_case
from conformance.scenarios.shapes import KI, MI, container, host_port
from conformance.traces import Scenario
from spec.cache.operations import AddNode, AddPod, AssumePod, RemovePod, UpdateSnapshot
from spec.objects import PROTOCOL_TCP, Container, Node, Pod
from spec.quantities import resources_from

FILE: Final = "framework/types_test.go"
NS: Final = "node_info_cache_test"
TEST_NODE: Final = Node("test-node")
"""``fakeNodeInfo``'s node: a name, nothing allocatable."""


def go_pod(uid: str, *containers: Container, init: tuple[Container, ...] = (), node_name: str = "test-node",
           **fields: Any) -> Pod:
    """``st.MakePod().UID(uid).Namespace(NS).Name(uid).Node(node_name)``."""
    return Pod(uid, uid, NS, node_name, containers, init, **fields)


def new_resource() -> list[Scenario]:
    complex_list = resources_from({"cpu": 4, "memory": 2000, "pods": 80, "ephemeral-storage": 5000,
                                   "scalar.test/scalar1": 1, "hugepages-test": 2})
    return [
        go_case("cache", FILE, "TestNewResource", "empty resource", [AddNode(Node("n")), UpdateSnapshot()],
                "resources", note="observed as a node's Allocatable"),
        go_case("cache", FILE, "TestNewResource", "complex resource", [AddNode(Node("n", complex_list)),
                                                                       UpdateSnapshot()],
                "resources", note="observed as a node's Allocatable"),
    ]


def _tcp(port: int) -> Any:
    return host_port(port, PROTOCOL_TCP, "127.0.0.1")


def node_info_pods() -> list[Scenario]:
    p1 = go_pod("test-1", container(cpu=100, memory=500, ports=(_tcp(80),)))
    p2 = go_pod("test-2", container(cpu=200, memory=KI, ports=(_tcp(8080),)))
    overhead = resources_from({"cpu": 500, "memory": 500})
    add1 = go_pod("test-1", container(cpu=100, memory=500, ports=(_tcp(80),)), overhead=resources_from({"cpu": 500}),
                  pvc_claims=("pvc-1",))
    add2 = go_pod("test-2", container(cpu=200, ports=(_tcp(8080),)), overhead=overhead, pvc_claims=("pvc-1",))
    add3 = go_pod("test-3", container(cpu=200, ports=(_tcp(8080),)), init=(container("i", cpu=500, memory=200 * MI),),
                  overhead=overhead, pvc_claims=("pvc-2",))
    rm1 = go_pod("test-1", container(cpu=100, memory=500, ports=(_tcp(80),)), overhead=overhead, pvc_claims=("pvc-1",))
    rm2 = go_pod("test-2", container(cpu=200, memory=KI, ports=(_tcp(8080),)), overhead=overhead)
    return [
        go_case("cache", FILE, "TestNewNodeInfo", "two pods", [AddPod(p1), AddPod(p2)], "placeholder",
                note="NewNodeInfo(pods...) is a NodeInfo without a node: pods added before their node"),
        go_case("cache", FILE, "TestNodeInfoAddPod", "three pods with overhead, claims and an init container",
                [AddNode(TEST_NODE), AddPod(add1), AddPod(add2), AddPod(add3)], "resources", "pvc", "ports"),
        go_case("cache", FILE, "TestNodeInfoRemovePod", "non-exist",
                [AddNode(TEST_NODE), AddPod(rm1), AddPod(rm2), RemovePod(go_pod("non-exist"))], "remove",
                note="through the cache the unknown pod is refused before NodeInfo.RemovePod (PodNotFoundForRemoval)"),
        go_case("cache", FILE, "TestNodeInfoRemovePod", "test-1",
                [AddNode(TEST_NODE), AddPod(rm1), AddPod(rm2), RemovePod(rm1)], "remove", "pvc"),
    ]


def calculate_resources() -> list[Scenario]:
    c500 = container(cpu=500, memory=500 * 10**6)
    cases: list[tuple[str, Pod]] = [
        ("requestless container", go_pod("p", container())),
        ("1X container with requests", go_pod("p", c500)),
        ("2X container with requests", go_pod("p", c500, container("c2", cpu=700, memory=800 * 10**6))),
        ("1X container and 1X init container with pod-level requests",
         go_pod("p", c500, init=(container("i", cpu=500, memory=500 * 10**6),),
                pod_level_requests=resources_from({"cpu": 1200, "memory": 1200 * 10**6}))),
        ("1X container and 1X sidecar container with pod-level requests",
         go_pod("p", c500, init=(container("i", cpu=500, memory=500 * 10**6, sidecar=True),),
                pod_level_requests=resources_from({"cpu": 1200, "memory": 1200 * 10**6}))),
        ("1X container with pod-level memory requests",
         go_pod("p", container(), init=(container("i"),), pod_level_requests=resources_from({"memory": 1200 * 10**6}))),
        ("1X container with pod-level cpu requests",
         go_pod("p", container(), init=(container("i"),), pod_level_requests=resources_from({"cpu": 500}))),
        ("1X container unsupported resources and pod-level supported resources",
         go_pod("p", container(extra={"ephemeral-storage": 800 * 10**6}),
                init=(container("i", extra={"ephemeral-storage": 500 * 10**6}),),
                pod_level_requests=resources_from({"cpu": 500}))),
    ]
    return [go_case("cache", FILE, "TestPodInfoCalculateResources", name, [AssumePod(p), RemovePod(p)], "resources",
                    note="the pod's requests are the node's requested and non_zero_requested")
            for name, p in cases]


def used_ports() -> list[Scenario]:
    """TestUpdateUsedPorts_PodAdd / _PodRemove: the starting ports are those of a first pod on the node."""
    def ports(uid: str, *numbers: int) -> Pod:
        return go_pod(uid, container(ports=tuple(host_port(n, PROTOCOL_TCP) for n in numbers)))

    def init(uid: str, sidecar: bool, number: int) -> Pod:
        return go_pod(uid, init=(container("init-container", sidecar=sidecar,
                                           ports=(host_port(number, PROTOCOL_TCP),)),))

    holder = ports("holder", 8001)
    no_host = go_pod("p", container(ports=(host_port(0, PROTOCOL_TCP, container_port=8001),)))
    add_cases: list[tuple[str, list[Pod], Pod]] = [
        ("container port without host port", [], no_host),
        ("host port on an empty node", [], ports("p", 8001)),
        ("second host port", [holder], ports("p", 8002)),
        ("init container port not recorded", [], init("p", False, 8001)),
        ("init container port beside a used port", [holder], init("p", False, 8002)),
        ("sidecar port recorded", [], init("p", True, 8001)),
        ("sidecar port already used", [holder], init("p", True, 8001)),
        ("sidecar port beside a used port", [holder], init("p", True, 8002)),
    ]
    both = ports("other", 8001, 8002)
    remove_cases: list[tuple[str, list[Pod], Pod]] = [
        ("container port without host port", [], no_host),
        ("the only host port", [], ports("p", 8001)),
        ("a port beside the used one", [holder], ports("p", 8002)),
        ("a port another pod also holds", [both], ports("p", 8002)),
        ("init container port", [holder], init("p", False, 8001)),
        ("sidecar port another pod also holds", [holder], init("p", True, 8001)),
        ("sidecar port beside a used port", [holder], init("p", True, 8002)),
        ("sidecar port of two used ports", [both], init("p", True, 8002)),
    ]
    note = "the starting UsedPorts are a first pod's; the cases with a nil pod are not ported (no such step)"
    out = [go_case("cache", FILE, "TestUpdateUsedPorts_PodAdd", name, [AddNode(TEST_NODE), *map(AddPod, first),
                                                                     AddPod(pod)], "ports", note=note)
           for name, first, pod in add_cases]
    out += [go_case("cache", FILE, "TestUpdateUsedPorts_PodRemove", name,
                    [AddNode(TEST_NODE), *map(AddPod, first), AddPod(pod), RemovePod(pod)], "ports", note=note)
            for name, first, pod in remove_cases]
    return out


def scenarios() -> list[Scenario]:
    """Every port of types_test.go."""
    return [*new_resource(), *node_info_pods(), *calculate_resources(), *used_ports()]


