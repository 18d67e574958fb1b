"""Observed behaviours of pod accounting: which resource, port, claim and affinity rules a step exercised.

A step exercises these rules for every pod it charges to a NodeInfo or releases from one: the pods whose objects
appear in, or leave, a NodeInfo's pod list between the cache state before the step and the one after. The rules
are read off the spec's own functions (:mod:`spec.resources`, :mod:`spec.cache.nodeinfo`), applied to those pods.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from spec.cache.cache import CacheState
from spec.cache.nodeinfo import HostPort, NodeInfo, host_port, pod_with_affinity, pod_with_required_anti_affinity
from spec.objects import PROTOCOL_SCTP, PROTOCOL_UDP, Container, Pod
from spec.quantities import (
    CPU,
    EMPTY_RESOURCES,
    EPHEMERAL_STORAGE,
    MEMORY,
    PODS,
    ResourceList,
    is_attachable_volume_resource_name,
    is_extended_resource_name,
    is_hugepage_resource_name,
    is_prefixed_native_resource,
    is_scalar_resource_name,
)
from spec.resources import (
    add_resource_lists,
    aggregate_container_requests,
    compute_pod_resource,
    get_host_ports,
    is_pod_level_requests_set,
    is_supported_pod_level_resource,
    pod_requests,
)

_FIXED = (CPU, MEMORY, EPHEMERAL_STORAGE, PODS)


def pods_moved(before: CacheState, after: CacheState) -> tuple[list[tuple[str, Pod]], list[tuple[str, Pod]]]:
    """The (node name, pod) pairs charged by the step and those released by it.

    Pod objects are compared by identity: the cache stores the objects the operations carry, and a NodeInfo the step
    did not touch is the same object before and after, so only changed NodeInfos are compared (a speed-up for
    exploration, which classifies every step it tries).
    """
    charged: list[tuple[str, Pod]] = []
    released: list[tuple[str, Pod]] = []
    if before.nodes is after.nodes:
        return charged, released
    for name in before.nodes.keys() | after.nodes.keys():
        old, new = before.nodes.get(name), after.nodes.get(name)
        if old is new:
            continue
        old_pods = Counter(map(id, old.pods)) if old is not None else Counter()
        new_pods = Counter(map(id, new.pods)) if new is not None else Counter()
        by_id = {id(pod): pod for info in (old, new) if info is not None for pod in info.pods}
        charged += [(name, by_id[i]) for i in (new_pods - old_pods).elements()]
        released += [(name, by_id[i]) for i in (old_pods - new_pods).elements()]
    return charged, released


_MEMO: dict[tuple[int, bool], tuple[Pod, frozenset[str]]] = {}
"""Shape behaviours by pod object (kept alive with its entry, so its id stays its own) and pod-level gate."""


def pod_behaviours(pod: Pod, pod_level_resources: bool) -> frozenset[str]:
    """The resource, port, claim and affinity rules ``pod``'s shape exercises (computed once per pod object)."""
    key = (id(pod), pod_level_resources)
    entry = _MEMO.get(key)
    if entry is None or entry[0] is not pod:
        tags = resource_behaviours(pod, pod_level_resources) | port_behaviours(pod) | claim_and_affinity_behaviours(pod)
        entry = _MEMO[key] = (pod, frozenset(tags))
    return entry[1]


def _names(pod: Pod) -> Iterable[str]:
    for container in (*pod.containers, *pod.init_containers):
        yield from container.requests
    yield from pod.overhead
    yield from pod.pod_level_requests


def _nonzero(requests: ResourceList) -> bool:
    return any(quantity > 0 for quantity in requests.values())


def resource_behaviours(pod: Pod, pod_level_resources: bool) -> set[str]:
    """The request-computation rules that shape ``pod``'s requests (:func:`spec.resources.compute_pod_resource`)."""
    tags: set[str] = set()
    if _nonzero(pod_requests(pod, pod_level_resources=pod_level_resources)):
        tags.add("resources.requests_charged")
    if sum(1 for c in pod.containers if _nonzero(c.requests)) >= 2:
        tags.add("resources.containers_summed")
    tags |= _init_container_behaviours(pod)
    if _nonzero(pod.overhead):
        tags.add("resources.overhead")
    if pod.pod_level_requests:
        if pod_level_resources and is_pod_level_requests_set(pod):
            tags.add("resources.pod_level.replaces")
        if any(not is_supported_pod_level_resource(name) for name in pod.pod_level_requests):
            tags.add("resources.pod_level.unsupported_ignored")
        if any(is_hugepage_resource_name(name) for name in pod.pod_level_requests):
            tags.add("resources.pod_level.hugepages")
    requests = pod_requests(pod, pod_level_resources=pod_level_resources)
    figures = compute_pod_resource(pod, pod_level_resources=pod_level_resources)
    pod_level = pod_level_resources and is_pod_level_requests_set(pod)
    if figures.non0_cpu != requests.get(CPU, 0):
        tags.add("resources.non_zero.pod_level_fallback" if pod_level else "resources.non_zero.default_cpu")
    if figures.non0_mem != requests.get(MEMORY, 0):
        tags.add("resources.non_zero.pod_level_fallback" if pod_level else "resources.non_zero.default_memory")
    if any(c.requests.get(name) == 0 for c in (*pod.containers, *pod.init_containers) for name in (CPU, MEMORY)):
        tags.add("resources.non_zero.explicit_zero")
    tags |= resource_name_behaviours(_names(pod))
    return tags


def _init_container_behaviours(pod: Pod) -> set[str]:
    tags: set[str] = set()
    sidecars = EMPTY_RESOURCES
    plain_seen = False
    for container in pod.init_containers:
        if container.is_restartable_init_container:
            if _nonzero(container.requests):
                tags.add("resources.sidecar.added")
                if plain_seen:
                    tags.add("resources.sidecar.after_init")
            sidecars = add_resource_lists(sidecars, container.requests)
        else:
            plain_seen = True
            if _nonzero(container.requests):
                tags.add("resources.init.not_added")
                if _nonzero(sidecars):
                    tags.add("resources.sidecar.before_init")
    summed = EMPTY_RESOURCES
    for container in (*pod.containers, *(c for c in pod.init_containers if c.is_restartable_init_container)):
        summed = add_resource_lists(summed, container.requests)
    if aggregate_container_requests(pod) != summed:
        tags.add("resources.init.peak_wins")
    return tags


def resource_name_behaviours(names: Iterable[str]) -> set[str]:
    """Which resource-name classes ``names`` fall in (:func:`spec.quantities.is_scalar_resource_name`)."""
    tags: set[str] = set()
    for name in names:
        if name == EPHEMERAL_STORAGE:
            tags.add("resources.ephemeral_storage")
        elif name in _FIXED:
            continue
        elif is_extended_resource_name(name):
            tags.add("resources.extended")
        elif is_hugepage_resource_name(name):
            tags.add("resources.hugepages")
        elif is_prefixed_native_resource(name):
            tags.add("resources.prefixed_native")
        elif is_attachable_volume_resource_name(name):
            tags.add("resources.attachable_volumes")
        if name not in _FIXED and not is_scalar_resource_name(name):
            tags.add("resources.invalid_name_ignored")
    return tags


def port_behaviours(pod: Pod) -> set[str]:
    """The host-port rules ``pod``'s ports exercise (:func:`spec.resources.get_host_ports`, ``sanitize``)."""
    tags: set[str] = set()
    counted: list[Container] = [c for c in pod.init_containers if c.is_restartable_init_container]
    for container in pod.init_containers:
        if not container.is_restartable_init_container and any(p.host_port > 0 for p in container.ports):
            tags.add("ports.init_ignored")
        elif container.is_restartable_init_container and any(p.host_port > 0 for p in container.ports):
            tags.add("ports.sidecar_recorded")
    for container in (*counted, *pod.containers):
        for port in container.ports:
            if port.host_port <= 0:
                tags.add("ports.container_port_only")
                continue
            tags.add("ports.recorded")
            tags.add("ports.host_ip" if port.host_ip else "ports.default_ip")
            if port.protocol == "":
                tags.add("ports.default_protocol")
            elif port.protocol == PROTOCOL_UDP:
                tags.add("ports.udp")
            elif port.protocol == PROTOCOL_SCTP:
                tags.add("ports.sctp")
    return tags


def claim_and_affinity_behaviours(pod: Pod) -> set[str]:
    """The PVC and affinity-list rules ``pod`` exercises."""
    tags: set[str] = set()
    if pod.pvc_claims:
        tags.add("pvc.counted")
        if len(set(pod.pvc_claims)) < len(pod.pvc_claims):
            tags.add("pvc.repeated_in_pod")
        if pod.namespace != "default":
            tags.add("pvc.namespaced")
    affinity, anti = pod.pod_affinity, pod.pod_anti_affinity
    if not pod_with_affinity(pod):
        tags.add("affinity.nil_not_listed")
    if affinity is not None and (affinity.required or affinity.preferred):
        tags.add("affinity.with_terms")
    if any(a is not None and a.required == 0 and a.preferred == 0 for a in (affinity, anti)):
        tags.add("affinity.empty_listed")
    if pod_with_required_anti_affinity(pod):
        tags.add("affinity.required_anti")
    elif anti is not None and anti.preferred > 0:
        tags.add("affinity.preferred_anti_only")
    return tags


def _shared_claims(info: NodeInfo) -> bool:
    users = Counter(key for pod in info.pods for key in {f"{pod.namespace}/{c}" for c in pod.pvc_claims})
    return any(count >= 2 for count in users.values())


def _distinct_port_entries(info: NodeInfo) -> bool:
    by_port = Counter(p.port for p in info.used_ports)
    return any(count >= 2 for count in by_port.values())


def accounting_behaviours(before: CacheState, after: CacheState) -> set[str]:
    """Every pod-accounting rule exercised by a step that took the cache from ``before`` to ``after``."""
    charged, released = pods_moved(before, after)
    level = after.profile.pod_level_resources
    tags: set[str] = set()
    for _, pod in (*charged, *released):
        tags |= pod_behaviours(pod, level)
    for name, pod in charged:
        info = after.nodes[name]
        if _shared_claims(info) and pod.pvc_claims:
            tags.add("pvc.shared")
        if _distinct_port_entries(info) and "ports.recorded" in tags:
            tags.add("ports.distinct_entries")
    for name, pod in released:
        old = before.nodes[name]
        new = after.nodes.get(name)
        if pod.pvc_claims:
            tags.add("pvc.released")
            if new is None or any(key not in new.pvc_ref_counts for key in old.pvc_ref_counts):
                tags.add("pvc.deleted_at_zero")
        if pod_with_affinity(pod):
            tags.add("affinity.pruned")
        freed = set(old.used_ports) - set(new.used_ports if new is not None else ())
        if freed:
            tags.add("ports.released")
            if any(_still_used_by_other(port, pod, new) for port in freed):
                tags.add("ports.shared_freed")
    return tags


def _still_used_by_other(port: HostPort, removed: Pod, info: NodeInfo | None) -> bool:
    """Whether another pod left on ``info`` declares the (sanitised) host port ``port``."""
    if info is None:
        return False
    return any(host_port(p.host_ip, p.protocol, p.host_port) == port
               for other in info.pods if other.uid != removed.uid for p in get_host_ports(other))
