"""The abstraction function: refimpl's mutable structures, read as the spec's frozen values.

The one reading of the reference implementation in spec terms, shared by the refinement tests and the simulator's
invariant checker (:mod:`conformance.simulation.checks`); it lives in conformance/ because refimpl may not import the
spec's invariants and conformance/ may import both.

The refinement tests compare ``abstract_*(refimpl)`` with the spec's state using plain equality, so every field
the spec models is compared, generations included. Image summaries are compared by what a reader can see (size and
node count, or the global map's size and node set); the spec's serial numbers stand for Go pointer identity and are
rebuilt here from object identity where an invariant needs them.
"""

from __future__ import annotations

from dataclasses import replace

from refimpl.cache import Cache, HostPortInfo, NodeInfo, Resource, Snapshot
from refimpl.cache import CacheDump as RefCacheDump
from refimpl.cache.metrics import CacheSize
from spec.cache.cache import CacheDump, CacheSizeMetrics, CacheState, PodState
from spec.cache.imagestates import ImageRef, ImageState
from spec.cache.imagestates import ImageStateSummary as SpecImageStateSummary
from spec.cache.nodeinfo import HostPort
from spec.cache.nodeinfo import NodeInfo as SpecNodeInfo
from spec.cache.nodetree import NodeTree as SpecNodeTree
from spec.cache.snapshot import Snapshot as SpecSnapshot
from spec.frozenmap import FrozenMap
from spec.resources import Resource as SpecResource


def abstract_resource(resource: Resource) -> SpecResource:
    """A refimpl ``Resource`` as the spec's (a nil scalar map is an empty one)."""
    return SpecResource(
        milli_cpu=resource.milli_cpu,
        memory=resource.memory,
        ephemeral_storage=resource.ephemeral_storage,
        allowed_pod_number=resource.allowed_pod_number,
        scalar_resources=FrozenMap(resource.scalar_resources or {}),
    )


def abstract_ports(ports: HostPortInfo) -> frozenset[HostPort]:
    """``ip -> {(protocol, port)}`` flattened into the spec's set of host ports."""
    return frozenset(HostPort(ip, protocol, port) for ip, used in ports.items() for protocol, port in used)


def abstract_node_info(info: NodeInfo) -> SpecNodeInfo:
    """A refimpl NodeInfo *clone* (its image summaries frozen) as the spec's NodeInfo.

    Fails with ``AssertionError`` if its record of which containers are empty disagrees with the containers.
    """
    assert info.empty_containers == info.container_emptiness(), (
        f"NodeInfo {info.name!r}: empty_containers {info.empty_containers:04b}, containers say "
        f"{info.container_emptiness():04b}"
    )
    return SpecNodeInfo(
        node=info.node,
        pods=tuple(p.pod for p in info.pods),
        pods_with_affinity=tuple(p.pod for p in info.pods_with_affinity),
        pods_with_required_anti_affinity=tuple(p.pod for p in info.pods_with_required_anti_affinity),
        used_ports=abstract_ports(info.used_ports),
        requested=abstract_resource(info.requested),
        non_zero_requested=abstract_resource(info.non_zero_requested),
        allocatable=abstract_resource(info.allocatable),
        image_states=FrozenMap(
            {name: SpecImageStateSummary(s.size, s.num_nodes) for name, s in info.image_states.items()}
        ),
        pvc_ref_counts=FrozenMap(info.pvc_ref_counts),
        generation=info.generation,
    )


def abstract_dump(dump: RefCacheDump) -> CacheDump:
    """``Cache.dump()`` as ``spec.cache.cache.dump``'s value."""
    return CacheDump(
        FrozenMap({name: abstract_node_info(info) for name, info in dump.nodes.items()}), dump.assumed_pods
    )


def abstract_snapshot(snapshot: Snapshot) -> SpecSnapshot:
    """A refimpl snapshot as the spec's: lists of NodeInfo objects become lists of node names.

    Fails with ``AssertionError`` if a list entry is not the very object the map holds for that name (Kubernetes'
    ``compareCacheWithNodeInfoSnapshot`` compares pointers).
    """
    def names(infos: list[NodeInfo]) -> tuple[str, ...]:
        result = []
        for info in infos:
            assert info.node is not None, "a snapshot list holds a NodeInfo without a node"
            assert snapshot.node_info_map.get(info.node.name) is info, f"list entry {info.node.name} is not the map's"
            result.append(info.node.name)
        return tuple(result)

    return SpecSnapshot(
        node_info_map=FrozenMap({name: abstract_node_info(info) for name, info in snapshot.node_info_map.items()}),
        node_info_list=names(snapshot.node_info_list),
        have_pods_with_affinity_list=names(snapshot.have_pods_with_affinity_node_info_list),
        have_pods_with_required_anti_affinity_list=names(snapshot.have_pods_with_required_anti_affinity_node_info_list),
        used_pvc_set=frozenset(snapshot.used_pvc_set),
        generation=snapshot.generation,
        used_pvc_ref_counts=FrozenMap(snapshot.used_pvc_ref_counts),
    )


def abstract_metrics(size: CacheSize) -> CacheSizeMetrics:
    """The published gauge as the spec's metrics."""
    return CacheSizeMetrics(size.assumed_pods, size.pods, size.nodes)


def abstract_cache_state(cache: Cache) -> CacheState:
    """The whole refimpl cache as a spec ``CacheState``, so the spec's invariants can be evaluated on it.

    Each distinct summary object gets a serial (global summaries first, then orphans a ghost still points at);
    a NodeInfo's pointer becomes an ``ImageRef`` to that serial. Serials therefore differ from the spec's own,
    and a state built here is compared field by field (:func:`state_differences`), not with ``==``.
    """
    internals = cache.internals()
    serials: dict[int, int] = {}

    def serial_of(summary: object) -> int:
        return serials.setdefault(id(summary), len(serials))

    image_states = FrozenMap(
        {
            name: ImageState(s.size, frozenset(s.nodes or ()), serial_of(s))
            for name, s in internals.image_states.items()
        }
    )
    nodes = {}
    image_refs = {}
    for name, info in internals.node_infos.items():
        # Inside the spec's cache state a NodeInfo has no summaries: its pointers live in image_refs.
        nodes[name] = replace(abstract_node_info(info.snapshot()), image_states=FrozenMap())
        image_refs[name] = FrozenMap({n: ImageRef(serial_of(s), s.size) for n, s in info.image_states.items()})
    pod_states = FrozenMap(
        {key: PodState(v.pod, v.deadline, v.binding_finished) for key, v in internals.pod_states.items()}
    )
    return CacheState(
        profile=cache.profile,
        ttl=cache.ttl,
        pod_states=pod_states,
        assumed_pods=internals.assumed_pods,
        nodes=FrozenMap(nodes),
        node_list=tuple(internals.names_by_recency),
        node_tree=SpecNodeTree(internals.node_tree_zones),
        image_states=image_states,
        image_refs=FrozenMap(image_refs),
        generation=internals.generation,
        next_image_serial=len(serials),
        metrics=abstract_metrics(cache.cache_size),
    )


def _without_serials(state: CacheState) -> dict[str, object]:
    return {
        "profile": state.profile,
        "ttl": state.ttl,
        "pod_states": state.pod_states,
        "assumed_pods": state.assumed_pods,
        "nodes": state.nodes,
        "node_list": state.node_list,
        "node_tree": state.node_tree,
        "image_states": {name: (s.size, s.nodes) for name, s in state.image_states.items()},
        "generation": state.generation,
        "metrics": state.metrics,
    }


def state_differences(refimpl: CacheState, spec: CacheState) -> list[str]:
    """The fields (image serials aside) in which two cache states differ, with both values; [] if none.

    Image pointers are compared through ``spec.cache.cache.dump`` (what a clone shows), which callers compare too.
    """
    mine, theirs = _without_serials(refimpl), _without_serials(spec)
    return [f"{name}: refimpl {mine[name]!r} != spec {theirs[name]!r}" for name in mine if mine[name] != theirs[name]]
