"""A small universe of pods and nodes, and Hypothesis strategies for cache operations over it.

Small on purpose: with three node names, two zones and five pod UIDs, random operation sequences
collide often (the same pod assumed twice, a node removed under its pods, a zone changed), which
is where the cache's edge cases live.
"""

from __future__ import annotations

from dataclasses import replace

from hypothesis import strategies as st

from spec.frozenmap import FrozenMap
from spec.objects import (
    LABEL_TOPOLOGY_REGION,
    LABEL_TOPOLOGY_ZONE,
    AffinityTerms,
    Container,
    ContainerImage,
    ContainerPort,
    Node,
    Pod,
    with_node_name,
)
from spec.quantities import SECOND, resource_list

NODE_NAMES = ("n1", "n2", "n3")
POD_UIDS = ("u1", "u2", "u3", "u4", "u5")
ZONES = ("z1", "z2")
IMAGES = (
    ContainerImage(("nginx:1", "nginx@sha256:aa"), 100),
    ContainerImage(("redis:7",), 300),
    ContainerImage(("busybox",), 5),
)


def make_node(name: str, zone: str | None, images: tuple[ContainerImage, ...] = (), cpu: int = 4000) -> Node:
    """A node with ``cpu`` millicores, 8 GiB, 110 pods, a GPU, and a zone label unless ``zone`` is None."""
    labels = FrozenMap({LABEL_TOPOLOGY_REGION: "r1", LABEL_TOPOLOGY_ZONE: zone}) if zone is not None else FrozenMap()
    return Node(
        name=name,
        allocatable=resource_list(cpu=cpu, memory=8 * 2**30, pods=110, **{"example.com/gpu": 2}),
        labels=labels,
        images=images,
    )


def node_variants(name: str) -> st.SearchStrategy[Node]:
    """Node objects for ``name``: any zone (or none), any subset of images, two sizes."""
    return st.builds(
        make_node,
        st.just(name),
        st.sampled_from((None, *ZONES)),
        st.lists(st.sampled_from(IMAGES), max_size=2, unique=True).map(tuple),
        st.sampled_from((2000, 4000)),
    )


nodes = st.sampled_from(NODE_NAMES).flatmap(node_variants)
"""Any node object of the universe."""

_containers = st.builds(
    Container,
    name=st.just("c"),
    requests=st.sampled_from(
        (
            resource_list(),
            resource_list(cpu=500),
            resource_list(cpu=0, memory=2**20),
            resource_list(cpu=1500, memory=2**30, ephemeral_storage=500),
            resource_list(cpu=100, **{"example.com/gpu": 1}),
            resource_list(**{"hugepages-2Mi": 4 * 2**20}),
        )
    ),
    ports=st.sampled_from(
        ((), (ContainerPort(80, host_port=8080),), (ContainerPort(53, host_port=53, protocol="UDP"),))
    ),
    image=st.sampled_from(("", "nginx:1", "redis:7")),
)
_sidecars = st.builds(
    Container,
    name=st.just("sidecar"),
    requests=st.sampled_from((resource_list(cpu=50), resource_list(memory=2**25))),
    restart_policy=st.sampled_from((None, "Always")),
    ports=st.sampled_from(((), (ContainerPort(9000, host_port=9000),))),
)


def pods_with_uid(uid: str) -> st.SearchStrategy[Pod]:
    """Pod objects with ``uid`` and no node name: containers, sidecars, affinity, claims, overhead."""
    return st.builds(
        Pod,
        uid=st.just(uid),
        name=st.just(f"pod-{uid}"),
        namespace=st.sampled_from(("default", "team-a")),
        containers=st.lists(_containers, min_size=1, max_size=2).map(tuple),
        init_containers=st.lists(_sidecars, max_size=1).map(tuple),
        overhead=st.sampled_from((resource_list(), resource_list(cpu=10, memory=2**20))),
        pod_level_requests=st.sampled_from((resource_list(), resource_list(cpu=2000))),
        pod_affinity=st.sampled_from((None, AffinityTerms(), AffinityTerms(required=1))),
        pod_anti_affinity=st.sampled_from((None, AffinityTerms(preferred=1), AffinityTerms(required=2))),
        pvc_claims=st.sampled_from(((), ("data",), ("data", "logs"), ("data", "data"))),
    )


pods = st.sampled_from(POD_UIDS).flatmap(pods_with_uid)
"""Any pod object of the universe, without a node name."""

node_names = st.sampled_from(NODE_NAMES)
placed_pods = st.builds(with_node_name, pods, st.sampled_from((*NODE_NAMES, "n9")))
"""Pods with a node name: a node of the universe, or one that never exists."""

times = st.integers(min_value=0, max_value=60).map(lambda s: s * SECOND)


def renamed(pod: Pod, uid: str) -> Pod:
    """The same pod with another UID."""
    return replace(pod, uid=uid, name=f"pod-{uid}")
