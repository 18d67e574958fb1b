"""How much a pod requests, and the scheduler's fixed-field ``Resource``.

This is refimpl's own implementation of ``PodInfo.CalculateResource`` (pkg/scheduler/framework/types.go) on top of
``PodRequests`` / ``AggregateContainerRequests`` (k8s.io/component-helpers resource/helpers.go, tag v0.35.0), of
``framework.Resource`` and of ``schedutil.GetHostPorts``. It deliberately shares no code with ``spec.resources``:
the spec is the oracle this module is tested against. Quantities are integers in the scheduler's units (cpu in
millicores, everything else in ``Value()`` units), as in :mod:`spec.quantities`.

The ``pre:``/``post:`` lines in docstrings are contracts that ``ksspec prove`` checks with CrossHair; those of the
functions that take a Pod are in :mod:`refimpl.cache.contracts`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from functools import cache
from typing import Final

from spec.objects import RESTART_POLICY_ALWAYS, ContainerPort, Pod
from spec.quantities import CPU, EPHEMERAL_STORAGE, HUGEPAGES_PREFIX, MEMORY, PODS, is_scalar_resource_name

DEFAULT_MILLI_CPU_REQUEST: Final = 100
"""``schedutil.DefaultMilliCPURequest`` (pkg/scheduler/util/pod_resources.go): 0.1 core."""
DEFAULT_MEMORY_REQUEST: Final = 200 * 1024 * 1024
"""``schedutil.DefaultMemoryRequest``: 200 MiB."""

NON_ZERO_DEFAULTS: Final = {CPU: DEFAULT_MILLI_CPU_REQUEST, MEMORY: DEFAULT_MEMORY_REQUEST}


@cache
def is_scalar(name: str) -> bool:
    """``schedutil.IsScalarResourceName``, memoised per name: a cluster uses a handful of resource names, and the
    check runs a regex. (``functools.cache`` rather than a dict: CrossHair bypasses it, so the memo is not
    observable to the contracts.)"""
    return is_scalar_resource_name(name)


_new_object = object.__new__


class Resource:
    """``framework.Resource``: cpu, memory, ephemeral storage, pod count and scalar resources, mutable in place.

    ``scalar_resources`` is None until a scalar is added, like Go's nil map. Entries that return to 0 stay.
    """

    __slots__ = ("allowed_pod_number", "ephemeral_storage", "memory", "milli_cpu", "scalar_resources")

    def __init__(
        self,
        milli_cpu: int = 0,
        memory: int = 0,
        ephemeral_storage: int = 0,
        allowed_pod_number: int = 0,
        scalar_resources: dict[str, int] | None = None,
    ) -> None:
        self.milli_cpu = milli_cpu
        self.memory = memory
        self.ephemeral_storage = ephemeral_storage
        self.allowed_pod_number = allowed_pod_number
        self.scalar_resources = scalar_resources

    @classmethod
    def from_list(cls, resources: Mapping[str, int]) -> Resource:
        """``NewResource(rl)``: a Resource holding ``resources``."""
        result = cls()
        result.add(resources)
        return result

    def add(self, resources: Mapping[str, int]) -> None:
        """``Resource.Add``: cpu, memory, pods, ephemeral storage and scalar names; other names are ignored.

        pre: _named(resources) and _named(_scalars(self))
        pre: all(map(is_scalar_resource_name, _scalars(self)))
        post[self]: [a - b for a, b in zip(_fixed(self), _fixed(__old__.self))] == [resources.get(n, 0) for n in _FIXED]
        post: _scalars(self).keys() == _scalars(__old__.self).keys() | set(filter(is_scalar_resource_name, resources))
        post: all(q == _scalars(__old__.self).get(n, 0) + resources.get(n, 0) for n, q in _scalars(self).items())
        """
        for name, quantity in resources.items():
            if name == CPU:
                self.milli_cpu += quantity
            elif name == MEMORY:
                self.memory += quantity
            elif name == PODS:
                self.allowed_pod_number += quantity
            elif name == EPHEMERAL_STORAGE:
                self.ephemeral_storage += quantity
            elif is_scalar(name):
                if self.scalar_resources is None:
                    self.scalar_resources = {}
                self.scalar_resources[name] = self.scalar_resources.get(name, 0) + quantity

    def clone(self) -> Resource:
        """``Resource.Clone``: a copy whose scalar map is a copy too (a nil map stays nil)."""
        # Slots written one by one into a bare object: a snapshot clones two per node, and this is a fifth fewer
        # instructions than calling the class (its __init__) or assigning a tuple.
        clone: Resource = _new_object(Resource)
        clone.milli_cpu = self.milli_cpu
        clone.memory = self.memory
        clone.ephemeral_storage = self.ephemeral_storage
        clone.allowed_pod_number = self.allowed_pod_number
        scalars = self.scalar_resources
        clone.scalar_resources = None if scalars is None else dict(scalars)
        return clone

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Resource):
            return NotImplemented
        return (
            self.milli_cpu == other.milli_cpu
            and self.memory == other.memory
            and self.ephemeral_storage == other.ephemeral_storage
            and self.allowed_pod_number == other.allowed_pod_number
            and (self.scalar_resources or {}) == (other.scalar_resources or {})
        )

    __hash__ = None  # type: ignore[assignment]  # mutable

    def __repr__(self) -> str:
        return (
            f"Resource(milli_cpu={self.milli_cpu}, memory={self.memory}, ephemeral_storage={self.ephemeral_storage}, "
            f"allowed_pod_number={self.allowed_pod_number}, scalar_resources={self.scalar_resources})"
        )


_NAMES: Final = (CPU, MEMORY, EPHEMERAL_STORAGE, PODS, "hugepages-2Mi", "example.com/gpu", "example")
"""Resource names the contracts draw from, one of each kind ``Resource.add`` tells apart: CrossHair finds two
symbolic dicts sharing a string key only by luck, and these functions only compare names."""
_FIXED: Final = (CPU, MEMORY, EPHEMERAL_STORAGE, PODS)
"""The resource names with a field of their own in ``Resource`` (for the contracts)."""


def _named(resources: Iterable[str]) -> bool:
    """Every name is one of :data:`_NAMES` (for the contracts)."""
    return all(name in _NAMES for name in resources)


def _fixed(resource: Resource) -> tuple[int, int, int, int]:
    """The fields of the :data:`_FIXED` names, in that order (for the contracts)."""
    return resource.milli_cpu, resource.memory, resource.ephemeral_storage, resource.allowed_pod_number


def _scalars(resource: Resource) -> dict[str, int]:
    """The scalar resources, {} for a nil map (for the contracts)."""
    return resource.scalar_resources or {}


class PodResource:
    """``fwk.PodResource``: a pod's requests and the cpu and memory it counts as when it requests none."""

    __slots__ = ("non0_cpu", "non0_mem", "resource")

    def __init__(self, resource: Resource, non0_cpu: int, non0_mem: int) -> None:
        self.resource = resource
        self.non0_cpu = non0_cpu
        self.non0_mem = non0_mem

    def __repr__(self) -> str:
        return f"PodResource({self.resource!r}, non0_cpu={self.non0_cpu}, non0_mem={self.non0_mem})"


# --------------------------------------------------------------------------------------------
# ResourceList arithmetic on plain dicts (component-helpers resource/helpers.go)
# --------------------------------------------------------------------------------------------


def _add_into(total: dict[str, int], delta: Mapping[str, int]) -> None:
    """``addResourceList``: add ``delta`` to ``total`` over the union of names.

    pre: _named(total) and _named(delta)
    post[total]: set(total) == set(__old__.total) | set(delta)
    post: all(total[n] == __old__.total.get(n, 0) + delta.get(n, 0) for n in total)
    """
    for name, quantity in delta.items():
        total[name] = total.get(name, 0) + quantity


def _max_into(total: dict[str, int], other: Mapping[str, int]) -> None:
    """``maxResourceList``: raise each entry of ``total`` to ``other``'s, adding the names it lacks.

    A name only one side has keeps that side's quantity (even a negative one: a missing name is not 0).

    pre: _named(total) and _named(other)
    post[total]: set(total) == set(__old__.total) | set(other)
    post: all(total[n] == max(q for q in (__old__.total.get(n), other.get(n)) if q is not None) for n in total)
    """
    for name, quantity in other.items():
        current = total.get(name)
        if current is None or quantity > current:
            total[name] = quantity


def _with_defaults(requests: Mapping[str, int], non_missing: Mapping[str, int] | None) -> Mapping[str, int]:
    """``applyNonMissing``: fill in the names a container does not request; an explicit 0 stays 0.

    pre: _named(requests) and _named(non_missing or ())
    post[]: set(__return__) == set(requests) | set(non_missing or {})
    post: all(__return__[n] == (requests[n] if n in requests else (non_missing or {})[n]) for n in __return__)
    """
    if not non_missing:
        return requests
    filled = dict(requests)
    for name, quantity in non_missing.items():
        if name not in filled:
            filled[name] = quantity
    return filled


def aggregate_container_requests(pod: Pod, non_missing: Mapping[str, int] | None = None) -> dict[str, int]:
    """``AggregateContainerRequests``: the sum of the containers, raised to the peak of any init container.

    An init container runs with every sidecar (restartable init container) started before it; a sidecar's
    requests also join the sum of the regular containers.
    """
    requests: dict[str, int] = {}
    for container in pod.containers:
        _add_into(requests, _with_defaults(container.requests, non_missing))
    if pod.init_containers:
        sidecars: dict[str, int] = {}
        init_peak: dict[str, int] = {}
        for container in pod.init_containers:
            own = _with_defaults(container.requests, non_missing)
            if container.restart_policy == RESTART_POLICY_ALWAYS:
                _add_into(requests, own)
                _add_into(sidecars, own)
                _max_into(init_peak, sidecars)
            else:
                use = dict(own)
                _add_into(use, sidecars)
                _max_into(init_peak, use)
        _max_into(requests, init_peak)
    return requests


def is_supported_pod_level_resource(name: str) -> bool:
    """``IsSupportedPodLevelResource``: cpu, memory and hugepages."""
    return name in (CPU, MEMORY) or name.startswith(HUGEPAGES_PREFIX)


def is_pod_level_requests_set(pod: Pod) -> bool:
    """``IsPodLevelRequestsSet``: the pod requests a supported resource at pod level."""
    return any(is_supported_pod_level_resource(name) for name in pod.pod_level_requests)


def pod_requests(
    pod: Pod, *, pod_level_resources: bool, non_missing: Mapping[str, int] | None = None
) -> dict[str, int]:
    """``PodRequests``: the container aggregate, overridden by pod-level requests, plus the overhead."""
    requests = aggregate_container_requests(pod, non_missing)
    if pod_level_resources and pod.pod_level_requests and is_pod_level_requests_set(pod):
        for name, quantity in pod.pod_level_requests.items():
            if is_supported_pod_level_resource(name):
                requests[name] = quantity
    if pod.overhead:
        _add_into(requests, pod.overhead)
    return requests


def compute_pod_resource(pod: Pod, *, pod_level_resources: bool = True) -> PodResource:
    """``PodInfo.CalculateResource``: the pod's requests, and its non-zero cpu and memory for scoring.

    The non-zero figures replace each missing container cpu or memory request with the scheduler's default
    (or, with pod-level requests, only a resource the pod does not request at all).
    """
    requests = pod_requests(pod, pod_level_resources=pod_level_resources)
    pod_level_set = pod_level_resources and is_pod_level_requests_set(pod)
    if pod_level_set:
        non_missing = {name: value for name, value in NON_ZERO_DEFAULTS.items() if name not in requests}
    else:
        non_missing = NON_ZERO_DEFAULTS
    non0 = requests
    if non_missing:
        non0 = pod_requests(pod, pod_level_resources=pod_level_resources, non_missing=non_missing)
    return PodResource(Resource.from_list(requests), non0.get(CPU, 0), non0.get(MEMORY, 0))


def get_host_ports(pod: Pod) -> list[ContainerPort]:
    """``schedutil.GetHostPorts``: ports with a host port, from sidecar init containers first, then containers."""
    ports: list[ContainerPort] = []
    for init in pod.init_containers:
        if init.restart_policy == RESTART_POLICY_ALWAYS:
            ports.extend(p for p in init.ports if p.host_port > 0)
    for container in pod.containers:
        ports.extend(p for p in container.ports if p.host_port > 0)
    return ports
