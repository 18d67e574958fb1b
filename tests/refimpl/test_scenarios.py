"""Kubernetes' own cache tests, replayed on refimpl (and, in lockstep, on the spec).

Each test follows one Go test of pkg/scheduler/backend/cache/cache_test.go (TTL-era commit 0452ae40; digest §13)
with the same pods, operations and expected NodeInfo figures. Quantities are written in scheduler units: "100m" cpu
is 100, a memory of "1Ki" is 1024. Every step runs on both implementations through :class:`Twin`, which also
requires them to agree; the assertions then check Kubernetes' expectations on refimpl.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from refimpl.cache import NodeInfo
from refimpl.cache.resources import DEFAULT_MEMORY_REQUEST, DEFAULT_MILLI_CPU_REQUEST
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
from spec.errors import CacheError, ErrorKind
from spec.frozenmap import FrozenMap
from spec.objects import Container, ContainerImage, ContainerPort, Node, Pod, Taint
from spec.quantities import SECOND, resource_list, resources_from
from spec.versions import V1_34, V1_35, V1_36, V1_37, VersionProfile
from tests.refimpl.driver import Twin, differences

TTL = 10 * SECOND
NOW = 1_000 * SECOND
MB = 1024 * 1024


def make_base_pod(
    node: str, name: str, cpu: int | None, mem: int = 0, extended: tuple[str, int] | None = None,
    ports: tuple[ContainerPort, ...] = (),
) -> Pod:
    """``makeBasePod``: one container named "container" with image "pause"; no cpu means no requests at all."""
    requests: dict[str, int] = {}
    if cpu is not None:
        requests = {"cpu": cpu, "memory": mem}
        if extended is not None:
            requests[extended[0]] = extended[1]
    container = Container("container", requests=resources_from(requests), ports=ports, image="pause")
    return Pod(uid=name, name=name, namespace="node_info_cache_test", node_name=node, containers=(container,))


def port(host_port: int, ip: str = "127.0.0.1", protocol: str = "TCP") -> ContainerPort:
    return ContainerPort(container_port=host_port, host_port=host_port, protocol=protocol, host_ip=ip)


def assert_node_info(
    info: NodeInfo | None, requested: tuple[int, int], non_zero: tuple[int, int], pods: list[Pod],
    ports: set[tuple[str, str, int]], scalars: dict[str, int] | None = None, ephemeral: int = 0,
) -> None:
    """``deepEqualWithoutGeneration`` for the fields Kubernetes' expected NodeInfos set."""
    assert info is not None
    assert (info.requested.milli_cpu, info.requested.memory) == requested
    assert info.requested.ephemeral_storage == ephemeral
    assert (info.requested.scalar_resources or {}) == (scalars or {})
    assert (info.non_zero_requested.milli_cpu, info.non_zero_requested.memory) == non_zero
    assert [p.pod for p in info.pods] == pods
    assert {(ip, proto, number) for ip, used in info.used_ports.items() for proto, number in used} == ports
    assert info.image_states == {}


def is_forgotten(twin: Twin, pod: Pod) -> bool:
    """``isForgottenFromCache``: neither assumed nor in the cache."""
    if twin.cache.is_assumed_pod(pod):
        return False
    try:
        twin.cache.get_pod(pod)
    except CacheError as error:
        return error.kind is ErrorKind.POD_NOT_FOUND
    return False


ASSUME_PODS = [
    make_base_pod("node", "test-resource-request-and-port-0", 100, 500, ports=(port(80),)),
    make_base_pod("node", "test-resource-request-and-port-1", 100, 500, ports=(port(80),)),
    make_base_pod("node", "test-resource-request-and-port-2", 200, 1024, ports=(port(8080),)),
    make_base_pod("node", "test-nonzero-request", None, ports=(port(80),)),
    make_base_pod("node", "test-extended-resource-1", 100, 500, ("example.com/foo", 3), ports=(port(80),)),
    make_base_pod("node", "test-extended-resource-2", 200, 1024, ("example.com/foo", 5), ports=(port(8080),)),
    make_base_pod("node", "test-extended-key", 100, 500, ("random-invalid-extended-key", 100),
                  ports=(ContainerPort(0),)),
]
LOCAL_80 = ("127.0.0.1", "TCP", 80)
LOCAL_8080 = ("127.0.0.1", "TCP", 8080)


@pytest.mark.parametrize(
    ("pods", "requested", "non_zero", "ports", "scalars"),
    [
        pytest.param([0], (100, 500), (100, 500), {LOCAL_80}, None, id="one pod with requests and ports"),
        pytest.param([1, 2], (300, 1524), (300, 1524), {LOCAL_80, LOCAL_8080}, None, id="sum of two pods"),
        pytest.param([3], (0, 0), (DEFAULT_MILLI_CPU_REQUEST, DEFAULT_MEMORY_REQUEST), {LOCAL_80}, None,
                     id="no requests count as the non-zero defaults"),
        pytest.param([4], (100, 500), (100, 500), {LOCAL_80}, {"example.com/foo": 3}, id="extended resource"),
        pytest.param([4, 5], (300, 1524), (300, 1524), {LOCAL_80, LOCAL_8080}, {"example.com/foo": 8},
                     id="two pods with extended resources"),
        pytest.param([6], (100, 500), (100, 500), set(), None, id="an invalid extended key is ignored"),
    ],
)
def test_assume_pod_scheduled(
    pods: list[int], requested: tuple[int, int], non_zero: tuple[int, int], ports: set[tuple[str, str, int]],
    scalars: dict[str, int] | None,
) -> None:
    """TestAssumePodScheduled: assumed pods are charged to their node; re-assuming fails; forgetting undoes it."""
    twin = Twin(V1_35, TTL)
    for index in pods:
        twin.ok(AssumePod(ASSUME_PODS[index]))
        twin.fails(AssumePod(ASSUME_PODS[index]), ErrorKind.POD_ALREADY_IN_CACHE)
    assert_node_info(twin.node_info("node"), requested, non_zero, [ASSUME_PODS[i] for i in pods], ports, scalars)
    for index in pods:
        twin.ok(ForgetPod(ASSUME_PODS[index]))
        assert is_forgotten(twin, ASSUME_PODS[index])


EXPIRE_PODS = [
    make_base_pod("node", "test-1", 100, 500, ports=(port(80),)),
    make_base_pod("node", "test-2", 200, 1024, ports=(port(8080),)),
    make_base_pod("node", "test-3", 200, 1024, ports=(port(8080),)),
]


def test_expire_pod_one_pod_expires() -> None:
    """TestExpirePod "assumed pod would expire": the node's placeholder NodeInfo goes with its only pod."""
    twin = Twin(V1_35, TTL)
    twin.ok(AssumePod(EXPIRE_PODS[0]), FinishBinding(EXPIRE_PODS[0], NOW), CleanupAssumedPods(NOW + 2 * TTL))
    assert twin.node_info("node") is None


def test_expire_pod_first_expires_second_and_third_do_not() -> None:
    """TestExpirePod: only a binding-finished pod past its deadline expires; removal reorders the pods."""
    twin = Twin(V1_35, TTL)
    twin.ok(AssumePod(EXPIRE_PODS[0]), FinishBinding(EXPIRE_PODS[0], NOW))
    twin.ok(AssumePod(EXPIRE_PODS[1]), FinishBinding(EXPIRE_PODS[1], NOW + 3 * TTL // 2))
    twin.ok(AssumePod(EXPIRE_PODS[2]))
    twin.ok(CleanupAssumedPods(NOW + 2 * TTL))
    # "Order gets altered when removing pods": the last pod moves into the freed slot.
    assert_node_info(twin.node_info("node"), (400, 2048), (400, 2048), [EXPIRE_PODS[2], EXPIRE_PODS[1]], {LOCAL_8080})


def test_expire_pod_never_with_ttl_zero() -> None:
    """TestExpirePod "assumed pod would never expire": a TTL of 0 means never."""
    twin = Twin(V1_35, 0)
    twin.ok(AssumePod(EXPIRE_PODS[0]), FinishBinding(EXPIRE_PODS[0], NOW), CleanupAssumedPods(NOW + 3 * TTL))
    assert_node_info(twin.node_info("node"), (100, 500), (100, 500), [EXPIRE_PODS[0]], {LOCAL_80})


def test_add_pod_will_confirm() -> None:
    """TestAddPodWillConfirm: an added pod survives cleanup; adding it twice fails."""
    twin = Twin(V1_35, TTL)
    first, second = EXPIRE_PODS[0], EXPIRE_PODS[1]
    twin.ok(AssumePod(first), FinishBinding(first, NOW), AssumePod(second), FinishBinding(second, NOW))
    twin.ok(AddPod(first))
    twin.fails(AddPod(first), ErrorKind.POD_ALREADY_ADDED)
    twin.ok(CleanupAssumedPods(NOW + 2 * TTL))
    assert_node_info(twin.node_info("node"), (100, 500), (100, 500), [first], {LOCAL_80})


def test_dump() -> None:
    """TestDump: the dump holds every NodeInfo and the assumed set."""
    twin = Twin(V1_35, TTL)
    first = EXPIRE_PODS[0]
    second = make_base_pod("node", "test-2", 200, 1024, ports=(port(80),))
    twin.ok(AssumePod(first), FinishBinding(first, NOW), AssumePod(second), FinishBinding(second, NOW))
    twin.ok(AddPod(first))
    dump = twin.cache.dump()
    assert set(dump.nodes) == {"node"}
    assert dump.assumed_pods == {"test-2"}
    live = twin.node_info("node")
    assert live is not None
    clone = dump.nodes["node"]
    assert clone is not live and clone.generation == live.generation
    assert [p.pod for p in clone.pods] == [p.pod for p in live.pods]


def test_add_pod_always_updates_pod_info_in_node_info() -> None:
    """TestAddPodAlwaysUpdatesPodInfoInNodeInfo: confirming stores the new pod object (an empty host IP is 0.0.0.0)."""
    twin = Twin(V1_35, TTL)
    assumed = make_base_pod("node1", "test-1", 100, 500, ports=(ContainerPort(80, host_port=80),))
    added = replace(assumed, priority=1)  # Kubernetes adds a PodScheduled condition; any change will do
    twin.ok(AssumePod(assumed), FinishBinding(assumed, NOW), AddPod(added))
    assert_node_info(twin.node_info("node1"), (100, 500), (100, 500), [added], {("0.0.0.0", "TCP", 80)})
    assert twin.cache.get_pod(assumed) is added


def test_add_pod_will_replace_assumed() -> None:
    """TestAddPodWillReplaceAssumed: the pod moves from the assumed node to the one it was bound to."""
    twin = Twin(V1_35, TTL)
    assumed = make_base_pod("assumed-node-1", "test-1", 100, 500, ports=(ContainerPort(80, host_port=80),))
    added = make_base_pod("actual-node", "test-1", 100, 500, ports=(ContainerPort(80, host_port=80),))
    updated = make_base_pod("actual-node", "test-1", 200, 500, ports=(ContainerPort(90, host_port=90),))
    twin.ok(AssumePod(assumed), FinishBinding(assumed, NOW), AddPod(added), UpdatePod(added, updated))
    assert twin.node_info("assumed-node-1") is None
    assert_node_info(twin.node_info("actual-node"), (200, 500), (200, 500), [updated], {("0.0.0.0", "TCP", 90)})


def test_add_pod_after_expiration() -> None:
    """TestAddPodAfterExpiration: an expired pod is forgotten; adding it brings it back as added."""
    twin = Twin(V1_35, TTL)
    pod = make_base_pod("node", "test", 100, 500, ports=(port(80),))
    twin.ok(AssumePod(pod), FinishBinding(pod, NOW), CleanupAssumedPods(NOW + 2 * TTL))
    assert is_forgotten(twin, pod)
    twin.ok(AddPod(pod))
    assert_node_info(twin.node_info("node"), (100, 500), (100, 500), [pod], {LOCAL_80})


UPDATE_PODS = [
    make_base_pod("node", "test", 100, 500, ports=(port(80),)),
    make_base_pod("node", "test", 200, 1024, ports=(port(8080),)),
]


def test_update_pod() -> None:
    """TestUpdatePod: each update replaces the pod's requests and ports."""
    twin = Twin(V1_35, TTL)
    twin.ok(AddPod(UPDATE_PODS[0]))
    twin.ok(UpdatePod(UPDATE_PODS[0], UPDATE_PODS[1]))
    assert_node_info(twin.node_info("node"), (200, 1024), (200, 1024), [UPDATE_PODS[1]], {LOCAL_8080})
    twin.ok(UpdatePod(UPDATE_PODS[1], UPDATE_PODS[0]))
    assert_node_info(twin.node_info("node"), (100, 500), (100, 500), [UPDATE_PODS[0]], {LOCAL_80})


@pytest.mark.parametrize("assume", [True, False], ids=["assumed pods are not updated", "added pods are updated"])
def test_update_pod_and_get(assume: bool) -> None:
    """TestUpdatePodAndGet: unknown pods cannot be read or updated; GetPod returns the latest object."""
    twin = Twin(V1_35, TTL)
    pod, update = UPDATE_PODS[0], UPDATE_PODS[0] if assume else UPDATE_PODS[1]
    with pytest.raises(CacheError, match="does not exist in scheduler cache"):
        twin.cache.get_pod(update)
    twin.fails(UpdatePod(pod, update), ErrorKind.POD_NOT_ADDED)
    twin.ok(AssumePod(pod) if assume else AddPod(pod))
    if not assume:
        twin.ok(UpdatePod(pod, update))
    assert twin.cache.get_pod(pod) == update


def test_expire_add_update_pod() -> None:
    """TestExpireAddUpdatePod: assume, expire, add, then update twice."""
    twin = Twin(V1_35, TTL)
    twin.ok(AssumePod(UPDATE_PODS[0]), FinishBinding(UPDATE_PODS[0], NOW), CleanupAssumedPods(NOW + 2 * TTL))
    twin.ok(AddPod(UPDATE_PODS[0]), UpdatePod(UPDATE_PODS[0], UPDATE_PODS[1]))
    assert_node_info(twin.node_info("node"), (200, 1024), (200, 1024), [UPDATE_PODS[1]], {LOCAL_8080})
    twin.ok(UpdatePod(UPDATE_PODS[1], UPDATE_PODS[0]))
    assert_node_info(twin.node_info("node"), (100, 500), (100, 500), [UPDATE_PODS[0]], {LOCAL_80})


def test_ephemeral_storage_resource() -> None:
    """TestEphemeralStorageResource: ephemeral storage is charged; cpu and memory count as the defaults."""
    twin = Twin(V1_35, SECOND)
    pod = Pod(
        uid="pod-with-ephemeral-storage", name="pod-with-ephemeral-storage", namespace="default-namespace",
        node_name="node", containers=(Container("c", requests=resource_list(ephemeral_storage=500)),),
    )
    twin.ok(AddPod(pod))
    assert_node_info(twin.node_info("node"), (0, 0), (DEFAULT_MILLI_CPU_REQUEST, DEFAULT_MEMORY_REQUEST), [pod],
                     set(), ephemeral=500)
    twin.ok(RemovePod(pod))
    assert is_forgotten(twin, pod)


@pytest.mark.parametrize("assume", [False, True], ids=["bound", "assumed"])
def test_remove_pod(assume: bool) -> None:
    """TestRemovePod: removal releases the pod (assumed ones too); a second removal fails; the node is at the head."""
    twin = Twin(V1_35, SECOND)
    pod = make_base_pod("node-1", "test", 100, 500, ports=(port(80),))
    twin.ok(AssumePod(pod) if assume else AddPod(pod))
    assert_node_info(twin.node_info("node-1"), (100, 500), (100, 500), [pod], {LOCAL_80})
    twin.ok(AddNode(Node("node-1")), AddNode(Node("node-2")), RemovePod(pod))
    assert is_forgotten(twin, pod)
    twin.fails(RemovePod(pod), ErrorKind.POD_NOT_FOUND_FOR_REMOVAL)
    assert twin.head_to_tail()[0] == "node-1"


@pytest.mark.parametrize(
    ("profile", "second_forget_fails"),
    [(V1_34, True), (V1_35, False), (V1_36, False), (V1_37, False)],
    ids=lambda value: value.name if isinstance(value, VersionProfile) else str(value),
)
def test_forget_pod(profile: VersionProfile, second_forget_fails: bool) -> None:
    """TestForgetPod: an assumed pod is forgotten; forgetting it again fails in the TTL-era test only."""
    twin = Twin(profile, TTL if profile.assumed_pod_expiry else 0)
    pod = make_base_pod("node", "test", 100, 500, ports=(port(80),))
    twin.ok(AssumePod(pod))
    if profile.assumed_pod_expiry:
        twin.ok(FinishBinding(pod, NOW))
    assert twin.cache.is_assumed_pod(pod)
    assert twin.cache.get_pod(pod).name == pod.name
    twin.ok(ForgetPod(pod))
    assert is_forgotten(twin, pod)
    if second_forget_fails:
        twin.fails(ForgetPod(pod), ErrorKind.POD_NOT_ASSUMED)
    else:
        twin.ok(ForgetPod(pod))


IMAGES_1 = (ContainerImage(("gcr.io/80:latest", "gcr.io/80:v1"), 80 * MB),
            ContainerImage(("gcr.io/300:latest", "gcr.io/300:v1"), 300 * MB))
IMAGES_2 = (ContainerImage(("gcr.io/600:latest",), 600 * MB), ContainerImage(("gcr.io/80:latest",), 80 * MB),
            ContainerImage(("gcr.io/900:latest",), 900 * MB))
TAINTS = (Taint("test-key", "test-value", "PreferNoSchedule"),)


def operator_node(name: str, second: bool) -> Node:
    allocatable = resource_list(cpu=500 if second else 1000, memory=1, **{"example.com/foo": 2 if second else 1})
    return Node(name, allocatable=allocatable, taints=TAINTS, images=IMAGES_2 if second else IMAGES_1)


def operator_pod(name: str, host_port: int | None) -> Pod:
    ports = (ContainerPort(80, host_port=host_port),) if host_port else ()
    container = Container("c", requests=resource_list(cpu=500, memory=1), ports=ports)
    return Pod(uid=name, name=name, namespace="", node_name="test-node-1", containers=(container,))


@pytest.mark.parametrize(
    ("node_count", "pods"),
    [
        pytest.param(4, [operator_pod("pod1", 80)], id="operate the node with one pod"),
        pytest.param(3, [operator_pod("pod1", None), operator_pod("pod2", None)], id="operate the node with two pods"),
    ],
)
def test_node_operators(node_count: int, pods: list[Pod]) -> None:
    """TestNodeOperators: add, update and remove a node with pods; image summaries are shared; a ghost remains."""
    twin = Twin(V1_35, SECOND)
    nodes = [operator_node(f"test-node-{i + 1}", second=i % 2 == 1) for i in range(node_count)]
    node = nodes[0]
    for each in nodes:
        twin.ok(AddNode(each))
    for pod in pods:
        twin.ok(AddPod(pod))
    info = twin.node_info(node.name)
    assert info is not None and info.node is node
    assert twin.cache.internals().node_tree_num_nodes == node_count
    assert info.allocatable.milli_cpu == 1000 and info.allocatable.scalar_resources == {"example.com/foo": 1}
    assert [p.pod for p in info.pods] == pods
    # Step 1: summaries are shared objects: every node holding gcr.io/80:latest sees the same one.
    holders = [i for i in twin.cache.internals().node_infos.values() if "gcr.io/80:latest" in i.image_states]
    assert len(holders) == node_count and len({id(i.image_states["gcr.io/80:latest"]) for i in holders}) == 1
    # Step 2: a snapshot clones the NodeInfo and freezes the summaries.
    twin.ok(UpdateSnapshot())
    cloned = twin.snapshot.node_info_map[node.name]
    assert cloned.generation == info.generation
    assert cloned.image_states["gcr.io/80:latest"].num_nodes == node_count
    assert cloned.image_states["gcr.io/300:latest"].num_nodes == (node_count + 1) // 2
    # Step 3: an update (with a nil old node and no zone) bumps the generation and replaces Allocatable.
    updated = replace(node, allocatable=resource_list(cpu=1000, memory=1, **{"example.com/foo": 1}, pods=0))
    before = info.generation
    twin.ok(UpdateNode(None, updated))
    info = twin.node_info(node.name)
    assert info is not None and info.generation > before and info.node is updated
    assert twin.cache.internals().node_tree_num_nodes == node_count
    # Step 4: removing the node keeps a ghost with its pods; removing it again fails.
    twin.ok(RemoveNode(updated))
    ghost = twin.node_info(node.name)
    assert ghost is not None and ghost.node is None
    twin.fails(RemoveNode(updated), ErrorKind.NODE_NOT_IN_TREE)
    assert twin.cache.internals().node_tree_num_nodes == node_count - 1
    for pod in pods:
        assert twin.cache.get_pod(pod) is pod
    # Step 5: the pods can still be removed, and the ghost goes with the last one.
    for pod in pods:
        twin.ok(RemovePod(pod))
        assert is_forgotten(twin, pod)
    assert twin.node_info(node.name) is None


def test_node_operations_return_a_clone_where_the_release_does() -> None:
    """AddNode/UpdateNode return a clone of the NodeInfo up to v1.36 and nothing from v1.37."""
    for profile, returns in ((V1_35, True), (V1_36, True), (V1_37, False)):
        twin = Twin(profile)
        node = Node("n", labels=FrozenMap({"topology.kubernetes.io/zone": "z"}))
        returned = twin.do(AddNode(node)).returned
        assert (returned is not None) == returns
        if returned is not None:
            assert returned is not twin.node_info("n") and returned.node is node


def test_a_pod_bound_to_an_unknown_node_creates_a_placeholder_outside_the_tree() -> None:
    """Pods may arrive before their node: the placeholder NodeInfo has no node and is not listed in snapshots."""
    twin = Twin(V1_35)
    pod = make_base_pod("later", "p", 100, 500)
    twin.ok(AddPod(pod), UpdateSnapshot())
    placeholder = twin.node_info("later")
    assert placeholder is not None and placeholder.node is None
    assert twin.cache.node_count() == 1 and twin.cache.pod_count() == 1
    assert twin.snapshot.num_nodes() == 0
    twin.ok(AddNode(Node("later")), UpdateSnapshot())
    assert [p.pod for p in twin.snapshot.get("later").pods] == [pod]


def test_v1_37_pvc_delta_is_compared_to_the_spec_not_the_spec_bookkeeping() -> None:
    """v1.37 (``incremental_pvc_ref_counts``): a claim's pod assumed onto a node the snapshot does not list still
    reaches ``pvcRefCountsDelta``; refimpl and the spec agree on the delta and on the snapshot, and the driver's
    comparison (which skips the spec's ``pvc_ref_counts_consumed`` bookkeeping) still sees a wrong delta."""
    twin = Twin(V1_37)
    pod = replace(make_base_pod("later", "p", 100, 500), pvc_claims=("data",))
    twin.ok(AddNode(Node("n1")), AssumePod(pod))
    assert twin.cache.internals().pvc_ref_counts_delta == {"node_info_cache_test/data": 1}
    twin.ok(UpdateSnapshot())
    assert twin.cache.internals().pvc_ref_counts_delta == {}
    assert differences(twin.harness, twin.world) == []
    twin.cache._pvc_delta = {"node_info_cache_test/data": 1}  # as if UpdateSnapshot had not consumed it
    assert [d for d in differences(twin.harness, twin.world) if d.startswith("pvcRefCountsDelta")] == [
        "pvcRefCountsDelta: refimpl {'node_info_cache_test/data': 1} != spec {}"
    ]


def test_fatal_paths_raise_scheduler_exit() -> None:
    """Where Kubernetes exits the process, refimpl raises SchedulerExit with the same kind as the spec."""
    twin = Twin(V1_35)
    pod = make_base_pod("n1", "p", 100, 500)
    twin.ok(AddPod(pod))
    twin.fails(UpdatePod(pod, replace(pod, node_name="n2")), "PodUpdatedOnOtherNode")
    twin = Twin(V1_35)
    twin.ok(AddPod(pod))
    twin.fails(RemovePod(replace(pod, node_name="n2")), "PodRemovedFromOtherNode")
    twin.ok(RemovePod(replace(pod, node_name="")))  # a stale object without a node name is tolerated
    twin = Twin(V1_35)
    zoned = Node("n1", labels=FrozenMap({"topology.kubernetes.io/zone": "z"}))
    twin.fails(UpdateNode(None, zoned), "NilNodeDereference")


def zoned(name: str, zone: str, images: tuple[ContainerImage, ...] = ()) -> Node:
    return Node(name, labels=FrozenMap({"topology.kubernetes.io/zone": zone}), images=images)


def test_remove_node_returns_the_tree_error_after_changing_the_node_info() -> None:
    """RemoveNode with an object in another zone: the NodeInfo is already gone when the tree says "not found",
    and the images stay recorded (errata quirk)."""
    twin = Twin(V1_35)
    twin.ok(AddNode(zoned("n1", "z1", IMAGES_1)))
    message = twin.fails(RemoveNode(zoned("n1", "z2", IMAGES_1)), ErrorKind.NODE_NOT_IN_TREE)
    assert message == 'node "n1" in group ":\\x00:z2" was not found'
    assert twin.node_info("n1") is None
    assert set(twin.cache.internals().image_states) == {name for image in IMAGES_1 for name in image.names}
    assert twin.cache.internals().node_tree_zones == ((":\x00:z1", ("n1",)),)


def test_add_node_in_another_zone_enters_the_tree_twice() -> None:
    """AddNode for a live node with a new zone label: the tree holds it twice, and the next snapshot update (which
    sees no new node, so keeps its list) reports the inconsistency after rebuilding its lists (errata quirk)."""
    twin = Twin(V1_35)
    twin.ok(AddNode(zoned("n1", "z1")), UpdateSnapshot(), AddNode(zoned("n1", "z2")))
    assert twin.cache.internals().node_tree_num_nodes == 2
    message = twin.fails(UpdateSnapshot(), ErrorKind.SNAPSHOT_INCONSISTENT)
    assert message == (
        "snapshot state is not consistent, length of NodeInfoList=1 not equal to length of nodes in tree=2 , "
        "length of NodeInfoMap=1, length of nodes in cache=1, trying to recover"
    )
    assert [info.name for info in twin.snapshot.list_nodes()] == ["n1", "n1"]
