"""Faulty implementations of the accounting, node-tree and incremental-snapshot rules (issue 13).

Each is the reference cache with one realistic bug, of the kind a reimplementation of ``PodInfo.CalculateResource``,
``GetHostPorts``, ``Resource.Add``, ``GetZoneKey``, ``nodeTree`` or ``UpdateSnapshot`` makes. The pod-resource bugs
replace the PodInfo the cache charges (:class:`FaultyPodInfoCache`); the node-tree bugs replace the cache's node
tree; the snapshot bugs replace the incremental update (:func:`faulty_update_snapshot`, the algorithm of
:mod:`refimpl.cache.snapshot` with one condition broken). :mod:`tests.conformance.gallery.faulty` lists them.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from contextlib import suppress
from typing import Any

from conformance.adapters.refimpl_adapter import RefimplAdapter
from refimpl.cache import Cache, Snapshot
from refimpl.cache.cache import PodState, get_pod_key
from refimpl.cache.node_info import NodeInfo, PodInfo
from refimpl.cache.node_list import NodeInfoList
from refimpl.cache.node_tree import NodeTree, get_zone_key
from refimpl.cache.resources import (
    DEFAULT_MEMORY_REQUEST,
    DEFAULT_MILLI_CPU_REQUEST,
    PodResource,
    Resource,
    is_pod_level_requests_set,
    is_supported_pod_level_resource,
)
from refimpl.cache.snapshot import remove_deleted_nodes_from_snapshot, update_node_info_snapshot_list
from spec.errors import CacheError, ErrorKind, FatalKind, SchedulerExit
from spec.objects import (
    LABEL_FAILURE_DOMAIN_BETA_REGION,
    LABEL_FAILURE_DOMAIN_BETA_ZONE,
    LABEL_TOPOLOGY_REGION,
    LABEL_TOPOLOGY_ZONE,
    RESTART_POLICY_ALWAYS,
    Container,
    Node,
    Pod,
)
from spec.quantities import CPU, EPHEMERAL_STORAGE, MEMORY, PODS, is_scalar_resource_name

# --------------------------------------------------------------------------------------------
# Pod requests
# --------------------------------------------------------------------------------------------


def _add(total: dict[str, int], delta: Mapping[str, int]) -> None:
    for name, quantity in delta.items():
        total[name] = total.get(name, 0) + quantity


def _raise(total: dict[str, int], other: Mapping[str, int]) -> None:
    for name, quantity in other.items():
        if name not in total or quantity > total[name]:
            total[name] = quantity


class Faults:
    """Which rule of the request computation a faulty PodInfo gets wrong (all False: the correct computation)."""

    sum_init = False
    sidecar_as_plain = False
    ignore_overhead = False
    ignore_pod_level = False
    zero_is_missing = False
    undomained_scalar = False


def faulty_requests(pod: Pod, defaults: Mapping[str, int], faults: type[Faults]) -> dict[str, int]:
    """``PodRequests`` with the given faults, filling ``defaults`` into each container that lacks them."""
    def own(container: Container) -> dict[str, int]:
        requests = dict(container.requests)
        for name, value in defaults.items():
            if name not in requests or (faults.zero_is_missing and requests[name] == 0):
                requests[name] = value
        return requests

    total: dict[str, int] = {}
    for container in pod.containers:
        _add(total, own(container))
    sidecars: dict[str, int] = {}
    peak: dict[str, int] = {}
    for container in pod.init_containers:
        requests = own(container)
        if faults.sum_init:
            _add(total, requests)
            continue
        if container.restart_policy == RESTART_POLICY_ALWAYS and not faults.sidecar_as_plain:
            _add(total, requests)
            _add(sidecars, requests)
            use = dict(sidecars)
        else:
            use = dict(requests)
            _add(use, sidecars)
        _raise(peak, use)
    _raise(total, peak)
    if not faults.ignore_pod_level and is_pod_level_requests_set(pod):
        total.update({n: v for n, v in pod.pod_level_requests.items() if is_supported_pod_level_resource(n)})
    if not faults.ignore_overhead:
        _add(total, pod.overhead)
    return total


def faulty_resource(requests: Mapping[str, int], faults: type[Faults]) -> Resource:
    """``Resource.Add``; with ``undomained_scalar``, every other name is a scalar resource."""
    resource = Resource()
    fixed = {CPU: "milli_cpu", MEMORY: "memory", PODS: "allowed_pod_number", EPHEMERAL_STORAGE: "ephemeral_storage"}
    for name, quantity in requests.items():
        if name in fixed:
            setattr(resource, fixed[name], getattr(resource, fixed[name]) + quantity)
        elif is_scalar_resource_name(name) or faults.undomained_scalar:
            resource.scalar_resources = {**(resource.scalar_resources or {}), name: quantity}
    return resource


def faulty_pod_info(faults: type[Faults]) -> type[PodInfo]:
    """A PodInfo whose ``calculate_resource`` has ``faults``."""
    class FaultyPodInfo(PodInfo):
        def calculate_resource(self) -> PodResource:
            pod = self.pod
            requests = faulty_requests(pod, {}, faults)
            level = is_pod_level_requests_set(pod) and not faults.ignore_pod_level
            defaults = {CPU: DEFAULT_MILLI_CPU_REQUEST, MEMORY: DEFAULT_MEMORY_REQUEST}
            if level:
                defaults = {n: v for n, v in defaults.items() if n not in requests}
            non0 = faulty_requests(pod, defaults, faults) if defaults else requests
            return PodResource(faulty_resource(requests, faults), non0.get(CPU, 0), non0.get(MEMORY, 0))

    return FaultyPodInfo


class FaultyPodInfoCache(Cache):
    """The reference cache charging every pod through :attr:`pod_info` (``addPod`` as in refimpl)."""

    pod_info: type[PodInfo] = PodInfo

    def _add_pod(self, pod: Pod, assume: bool) -> None:
        key = get_pod_key(pod)
        name = pod.node_name
        item = self._nodes.get(name)
        if item is None:
            item = self._nodes.add(name, NodeInfo(self._generations))
        item.info.add_pod_info(self.pod_info(pod, pod_level_resources=self._pod_level_resources))
        self._nodes.move_to_head(name)
        self._pod_states[key] = PodState(pod)
        if assume:
            self._assumed_pods.add(key)


def _with_faults(name: str, **faults: bool) -> type[Cache]:
    rules = type(f"{name}Faults", (Faults,), faults)
    return type(name, (FaultyPodInfoCache,), {"pod_info": faulty_pod_info(rules)})


InitContainersSummed = _with_faults("InitContainersSummed", sum_init=True)
SidecarAsPlainInit = _with_faults("SidecarAsPlainInit", sidecar_as_plain=True)
OverheadIgnored = _with_faults("OverheadIgnored", ignore_overhead=True)
PodLevelRequestsIgnored = _with_faults("PodLevelRequestsIgnored", ignore_pod_level=True)
ExplicitZeroDefaulted = _with_faults("ExplicitZeroDefaulted", zero_is_missing=True)
UndomainedNameAsScalar = _with_faults("UndomainedNameAsScalar", undomained_scalar=True)


class InitPortsPodInfo(PodInfo):
    def __init__(self, pod: Pod, *, pod_level_resources: bool = True) -> None:
        super().__init__(pod, pod_level_resources=pod_level_resources)
        self.host_ports = tuple((p.host_ip, p.protocol, p.host_port) for c in (*pod.init_containers, *pod.containers)
                                for p in c.ports if p.host_port > 0)


PlainInitPortsRecorded = type("PlainInitPortsRecorded", (FaultyPodInfoCache,), {"pod_info": InitPortsPodInfo})


# --------------------------------------------------------------------------------------------
# The node tree
# --------------------------------------------------------------------------------------------


class KeyedNodeTree(NodeTree):
    """``nodeTree`` with the zone key computed by :meth:`key` (refimpl's algorithm otherwise)."""

    def key(self, node: Node) -> str:
        return get_zone_key(node)

    def add_node(self, node: Node) -> None:
        zone = self.key(node)
        names = self.tree.get(zone)
        if names is None:
            self.zones.append(zone)
            self.tree[zone] = {node.name: None}
        elif node.name in names:
            return
        else:
            names[node.name] = None
        self.num_nodes += 1

    def remove_node(self, node: Node) -> None:
        zone = self.key(node)
        names = self.tree.get(zone)
        if names is None or node.name not in names:
            raise CacheError(ErrorKind.NODE_NOT_IN_TREE, f"node {node.name} in group {zone} was not found")
        del names[node.name]
        if not names:
            del self.tree[zone]
            self.zones.remove(zone)
        self.num_nodes -= 1

    def update_node(self, old: Node | None, new: Node) -> None:
        old_zone = self.key(old) if old is not None else ""
        if old_zone == self.key(new):
            return
        if old is None:
            raise SchedulerExit(FatalKind.NIL_NODE_DEREFERENCE, "nodeTree.updateNode: old node is nil")
        with suppress(CacheError):
            self.remove_node(old)
        self.add_node(new)


def _keyed(zone_labels: tuple[str, ...], region_labels: tuple[str, ...]) -> Callable[[Node], str]:
    def key(node: Node) -> str:
        zone = next((node.labels[k] for k in zone_labels if k in node.labels), "")
        region = next((node.labels[k] for k in region_labels if k in node.labels), "")
        return "" if not zone and not region else f"{region}:\x00:{zone}"

    return key


class BetaLabelsIgnoredTree(KeyedNodeTree):
    key = staticmethod(_keyed((LABEL_TOPOLOGY_ZONE,), (LABEL_TOPOLOGY_REGION,)))  # type: ignore[assignment]


class GaLabelsWinTree(KeyedNodeTree):
    key = staticmethod(_keyed((LABEL_TOPOLOGY_ZONE, LABEL_FAILURE_DOMAIN_BETA_ZONE),  # type: ignore[assignment]
                              (LABEL_TOPOLOGY_REGION, LABEL_FAILURE_DOMAIN_BETA_REGION)))


class RegionIgnoredTree(KeyedNodeTree):
    key = staticmethod(_keyed((LABEL_FAILURE_DOMAIN_BETA_ZONE, LABEL_TOPOLOGY_ZONE), ()))  # type: ignore[assignment]


class ZoneChangeIgnoredTree(NodeTree):
    def update_node(self, old: Node | None, new: Node) -> None:
        if old is None:
            super().update_node(old, new)


class MovedToZoneFrontTree(NodeTree):
    def update_node(self, old: Node | None, new: Node) -> None:
        super().update_node(old, new)
        zone = get_zone_key(new)
        names = self.tree.get(zone, {})
        if old is not None and get_zone_key(old) != zone and new.name in names:
            self.tree[zone] = {new.name: None, **{n: None for n in names if n != new.name}}


class EmptyZoneKeptTree(NodeTree):
    def remove_node(self, node: Node) -> None:
        zone = get_zone_key(node)
        zones = list(self.zones)
        super().remove_node(node)
        if zone not in self.tree and zone in zones:
            self.zones = zones
            self.tree[zone] = {}


class AddMovesBetweenZonesTree(NodeTree):
    def add_node(self, node: Node) -> None:
        zone = get_zone_key(node)
        for other in list(self.zones):
            if other != zone and node.name in self.tree[other]:
                with suppress(CacheError):
                    self.remove_node(Node(node.name, labels=_labels_of(other)))
        super().add_node(node)


def _labels_of(zone_key: str) -> Any:
    """Labels whose zone key is ``zone_key`` (region and zone as GA labels)."""
    from spec.frozenmap import FrozenMap

    region, _, zone = zone_key.partition(":\x00:")
    return FrozenMap({k: v for k, v in ((LABEL_TOPOLOGY_REGION, region), (LABEL_TOPOLOGY_ZONE, zone)) if v})


def with_tree(tree: type[NodeTree]) -> type[Cache]:
    """The reference cache with the node tree ``tree``."""
    def __init__(self: Cache, *args: Any, **kwargs: Any) -> None:
        Cache.__init__(self, *args, **kwargs)
        self._node_tree = tree()

    return type(tree.__name__.removesuffix("Tree"), (Cache,), {"__init__": __init__})


# --------------------------------------------------------------------------------------------
# The incremental snapshot
# --------------------------------------------------------------------------------------------


def faulty_update_snapshot(nodes: NodeInfoList, tree: NodeTree, snapshot: Snapshot, *, ignore_affinity: bool = False,
                           ignore_pvc: bool = False, pvc_by_count: bool = False, append_new: bool = False,
                           no_consistency_check: bool = False, include_non_live: bool = False) -> None:
    """``UpdateSnapshot`` (refimpl's algorithm, without its entry memo) with one condition broken."""
    last_seen = snapshot.generation
    update_all = update_affinity = update_anti = update_pvc = False
    appended: list[NodeInfo] = []
    item = nodes.head
    while item is not None and item.info.generation > last_seen:
        info = item.info
        if info.node is not None or include_non_live:
            existing = snapshot.node_info_map.get(item.name)
            if existing is None:
                existing = snapshot.node_info_map[item.name] = NodeInfo.empty()
                update_all = not append_new
                appended.append(existing)
            had = (bool(existing.pods_with_affinity), bool(existing.pods_with_required_anti_affinity),
                   set(existing.pvc_ref_counts))
            info.snapshot(existing)
            update_affinity |= had[0] != bool(existing.pods_with_affinity) and not ignore_affinity
            update_anti |= had[1] != bool(existing.pods_with_required_anti_affinity) and not ignore_affinity
            keys = set(existing.pvc_ref_counts)
            changed = len(keys) != len(had[2]) if pvc_by_count else keys != had[2]
            update_pvc |= changed and not ignore_pvc
        item = item.next
    if nodes.head is not None:
        snapshot.generation = nodes.head.info.generation
    if len(snapshot.node_info_map) > tree.num_nodes:
        remove_deleted_nodes_from_snapshot(nodes, tree, snapshot)
        update_all = True
    if append_new and appended:
        snapshot.node_info_list = [*snapshot.node_info_list, *reversed(appended)]
        update_affinity = True
    if update_all or update_affinity or update_anti or update_pvc:
        update_node_info_snapshot_list(tree, snapshot, update_all)
    if len(snapshot.node_info_list) != tree.num_nodes and not no_consistency_check:
        update_node_info_snapshot_list(tree, snapshot, True)
        raise CacheError(ErrorKind.SNAPSHOT_INCONSISTENT, "snapshot state is not consistent")


def snapshot_adapter(doc: str, **fault: bool) -> type[RefimplAdapter]:
    """The reference adapter whose snapshot update has ``fault``."""
    def update_snapshot(self: RefimplAdapter, cache: Cache, snapshot: Snapshot) -> None:
        faulty_update_snapshot(cache._nodes, cache._node_tree, snapshot, **fault)

    name = "Snapshot" + "".join(part.title() for part in next(iter(fault)).split("_"))
    return type(name, (RefimplAdapter,), {"update_snapshot": update_snapshot, "__doc__": doc})
