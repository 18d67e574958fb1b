"""How much a pod requests: Kubernetes' pod request computation and the non-zero defaults.

This is ``PodInfo.CalculateResource`` (k8s.io/kubernetes pkg/scheduler/framework/types.go) on top
of ``PodRequests`` / ``AggregateContainerRequests`` (k8s.io/component-helpers resource/helpers.go,
tag v0.35.0), plus ``Resource`` and ``GetHostPorts``. All quantities are exact integers in the
units of :mod:`spec.quantities`.

Not modelled: ``UseStatusResources`` (requests read from container status during an in-place
resize). The cache spec has no container status; a pod's requests are its spec's requests.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Final

from spec.frozenmap import FrozenMap
from spec.objects import Container, ContainerPort, Pod
from spec.quantities import (
    CPU,
    EMPTY_RESOURCES,
    EPHEMERAL_STORAGE,
    MEMORY,
    PODS,
    ResourceList,
    is_hugepage_resource_name,
    is_scalar_resource_name,
)
from spec.valuetypes import cached_hash

DEFAULT_MILLI_CPU_REQUEST: Final = 100
"""``schedutil.DefaultMilliCPURequest`` (pkg/scheduler/util/pod_resources.go): 0.1 core."""
DEFAULT_MEMORY_REQUEST: Final = 200 * 1024 * 1024
"""``schedutil.DefaultMemoryRequest``: 200 MiB (the Go comment says "200 MB")."""


# --------------------------------------------------------------------------------------------
# Resource (framework/types.go)
# --------------------------------------------------------------------------------------------


@cached_hash
@dataclass(frozen=True)
class Resource:
    """``framework.Resource``: the scheduler's fixed-field view of a ResourceList."""

    milli_cpu: int = 0
    memory: int = 0
    ephemeral_storage: int = 0
    allowed_pod_number: int = 0
    scalar_resources: ResourceList = EMPTY_RESOURCES
    """Extended, hugepages, prefixed-native and attachable-volume resources. An entry that
    returns to 0 after pods leave is kept at 0, as Kubernetes does."""


EMPTY_RESOURCE: Final = Resource()


def resource_from_list(requests: ResourceList) -> Resource:
    """``Resource.Add`` on an empty Resource: cpu, memory, pods, ephemeral-storage and scalars.

    Names that are none of these are ignored, as Kubernetes ignores them.
    """
    scalars: dict[str, int] = {}
    milli_cpu = memory = ephemeral = pods = 0
    for name, quantity in requests.items():
        if name == CPU:
            milli_cpu += quantity
        elif name == MEMORY:
            memory += quantity
        elif name == PODS:
            pods += quantity
        elif name == EPHEMERAL_STORAGE:
            ephemeral += quantity
        elif is_scalar_resource_name(name):
            scalars[name] = scalars.get(name, 0) + quantity
    return Resource(milli_cpu, memory, ephemeral, pods, FrozenMap(scalars))


# --------------------------------------------------------------------------------------------
# ResourceList arithmetic (component-helpers resource/helpers.go)
# --------------------------------------------------------------------------------------------


def add_resource_lists(a: ResourceList, b: ResourceList) -> ResourceList:
    """``addResourceList``: the sum over the union of names."""
    total = dict(a)
    for name, quantity in b.items():
        total[name] = total.get(name, 0) + quantity
    return FrozenMap(total)


def max_resource_lists(a: ResourceList, b: ResourceList) -> ResourceList:
    """``maxResourceList``: the element-wise maximum over the union of names."""
    result = dict(a)
    for name, quantity in b.items():
        result[name] = max(result.get(name, quantity), quantity)
    return FrozenMap(result)


def apply_non_missing(requests: ResourceList, non_missing: ResourceList) -> ResourceList:
    """``applyNonMissing``: fill each name absent from ``requests`` from ``non_missing``.

    An explicit request of 0 is present, so it stays 0.
    """
    filled = dict(requests)
    for name, quantity in non_missing.items():
        if name not in requests:
            filled[name] = quantity
    return FrozenMap(filled)


# --------------------------------------------------------------------------------------------
# Pod requests
# --------------------------------------------------------------------------------------------


def _container_requests(container: Container, non_missing: ResourceList) -> ResourceList:
    if len(non_missing) > 0:
        return apply_non_missing(container.requests, non_missing)
    return container.requests


def aggregate_container_requests(pod: Pod, non_missing: ResourceList = EMPTY_RESOURCES) -> ResourceList:
    """``AggregateContainerRequests``: what the pod's containers need at the peak.

    Regular containers are summed. Init containers run one at a time, each alongside every
    restartable (sidecar) init container started before it, so an init container's use is its
    own requests plus the sidecars so far; a sidecar's requests also join the regular sum. The
    result is the element-wise maximum of the sum and every init container's use.
    """
    requests = EMPTY_RESOURCES
    for container in pod.containers:
        requests = add_resource_lists(requests, _container_requests(container, non_missing))
    sidecars = EMPTY_RESOURCES
    init_peak = EMPTY_RESOURCES
    for container in pod.init_containers:
        own = _container_requests(container, non_missing)
        if container.is_restartable_init_container:
            requests = add_resource_lists(requests, own)
            sidecars = add_resource_lists(sidecars, own)
            use = sidecars
        else:
            use = add_resource_lists(own, sidecars)
        init_peak = max_resource_lists(init_peak, use)
    return max_resource_lists(requests, init_peak)


def is_supported_pod_level_resource(name: str) -> bool:
    """``IsSupportedPodLevelResource``: cpu, memory and hugepages can be requested at pod level."""
    return name in (CPU, MEMORY) or is_hugepage_resource_name(name)


def is_pod_level_requests_set(pod: Pod) -> bool:
    """``IsPodLevelRequestsSet``: the pod has a pod-level request for a supported resource."""
    return any(is_supported_pod_level_resource(name) for name in pod.pod_level_requests)


def pod_requests(
    pod: Pod, *, pod_level_resources: bool, non_missing: ResourceList = EMPTY_RESOURCES
) -> ResourceList:
    """``PodRequests``: container aggregate, replaced by pod-level requests, plus overhead.

    ``pod_level_resources`` is the PodLevelResources feature gate (``SkipPodLevelResources`` is
    its negation). Pod-level requests replace the aggregate only for the supported resources.
    """
    requests = aggregate_container_requests(pod, non_missing)
    if pod_level_resources and is_pod_level_requests_set(pod):
        for name, quantity in pod.pod_level_requests.items():
            if is_supported_pod_level_resource(name):
                requests = requests.set(name, quantity)
    return add_resource_lists(requests, pod.overhead)


def non_missing_container_requests(requests: ResourceList, pod_level_set: bool) -> ResourceList:
    """``getNonMissingContainerRequests``: the defaults that stand in for missing cpu and memory.

    Without pod-level requests, both defaults apply (to each container that lacks them). With
    pod-level requests, a default applies only if the pod's requests lack that resource.
    """
    defaults = {CPU: DEFAULT_MILLI_CPU_REQUEST, MEMORY: DEFAULT_MEMORY_REQUEST}
    if not pod_level_set:
        return FrozenMap(defaults)
    return FrozenMap({name: value for name, value in defaults.items() if name not in requests})


@dataclass(frozen=True)
class PodResource:
    """``framework.PodResource``: a pod's requests and its non-zero cpu and memory."""

    resource: Resource
    non0_cpu: int
    """Milli-CPU with ``DEFAULT_MILLI_CPU_REQUEST`` for each container that requests no cpu."""
    non0_mem: int
    """Bytes with ``DEFAULT_MEMORY_REQUEST`` for each container that requests no memory."""


@lru_cache(maxsize=4096)
def compute_pod_resource(pod: Pod, *, pod_level_resources: bool = True) -> PodResource:
    """``PodInfo.CalculateResource``: the requests the scheduler charges a node for ``pod``.

    The non-zero figures exist so that pods without requests still spread when scoring; they
    include overhead. Never fails. Remembered per pod (a pod is an immutable value, and the model
    checker charges and releases the same few pods hundreds of thousands of times).
    """
    requests = pod_requests(pod, pod_level_resources=pod_level_resources)
    pod_level_set = pod_level_resources and is_pod_level_requests_set(pod)
    non_missing = non_missing_container_requests(requests, pod_level_set)
    non0 = requests
    if len(non_missing) > 0:
        non0 = pod_requests(pod, pod_level_resources=pod_level_resources, non_missing=non_missing)
    return PodResource(resource_from_list(requests), non0.get(CPU, 0), non0.get(MEMORY, 0))


# --------------------------------------------------------------------------------------------
# Host ports (pkg/scheduler/util/utils.go)
# --------------------------------------------------------------------------------------------


def get_host_ports(pod: Pod) -> tuple[ContainerPort, ...]:
    """``GetHostPorts``: ports with a host port, sidecar init containers first, then containers.

    Ports of ordinary init containers are not counted: they do not run alongside the pod.
    """
    sidecars = [c for c in pod.init_containers if c.is_restartable_init_container]
    return tuple(p for c in (*sidecars, *pod.containers) for p in c.ports if p.host_port > 0)
