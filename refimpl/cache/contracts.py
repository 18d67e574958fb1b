"""CrossHair contracts for the cache's functions that take API objects.

CrossHair cannot generate a ``spec.objects.Pod`` (its proxy maker fails on ``FrozenMap.__init__``'s union
annotation), so each function here builds the objects from plain dicts, lists and tuples, calls the reference
implementation, and states the Kubernetes rule as ``post:`` conditions. :class:`PodShape` holds a pod's requests
and states the rule of ``PodRequests`` (component-helpers resource/helpers.go, v0.35.0) in closed form: a resource
is requested at the peak of the pod's phases (the init containers one by one, each with the sidecars started
before it; then the app containers with every sidecar), unless pod-level requests replace it; overhead is added.
The implementation computes it incrementally, so the two are independent statements of one rule.

Preconditions keep the search where the rule lives: non-negative quantities (the API server rejects negative ones;
a missing name counts as 0 only then), names from :data:`NAMES` (the rule treats names as opaque except for the
pod-level classes cpu, memory and hugepages-*), at most three containers of each kind.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Final

from refimpl.cache.generation import GenerationCounter
from refimpl.cache.node_info import DEFAULT_BIND_ALL_HOST_IP, HostPortInfo, NodeInfo
from refimpl.cache.resources import (
    DEFAULT_MEMORY_REQUEST,
    DEFAULT_MILLI_CPU_REQUEST,
    Resource,
    compute_pod_resource,
    pod_requests,
)
from spec.frozenmap import FrozenMap
from spec.objects import PROTOCOL_TCP, RESTART_POLICY_ALWAYS, Container, Pod
from spec.quantities import CPU, MEMORY

NAMES: Final = (CPU, MEMORY, "hugepages-2Mi", "example.com/gpu")
"""The resource names the contracts draw from: both defaulted names, a pod-level one, and one pod level ignores."""
MAX_CONTAINERS: Final = 3

Requests = dict[str, int]


@dataclass(frozen=True)
class PodShape:
    """The resource-relevant part of a pod: each container's requests, each init container's requests and whether
    it is a sidecar (restartPolicy Always), the overhead and the pod-level requests."""

    containers: list[Requests] = field(default_factory=list)
    init_containers: list[tuple[Requests, bool]] = field(default_factory=list)
    overhead: Requests = field(default_factory=dict)
    pod_level: Requests = field(default_factory=dict)

    def is_valid(self) -> bool:
        """At least one container, at most :data:`MAX_CONTAINERS` of each kind, names from :data:`NAMES`,
        quantities >= 0."""
        if not (1 <= len(self.containers) <= MAX_CONTAINERS and len(self.init_containers) <= MAX_CONTAINERS):
            return False  # lengths first: CrossHair then explores only short lists
        lists = [*self.containers, *(r for r, _ in self.init_containers), self.overhead, self.pod_level]
        return all(name in NAMES and quantity >= 0 for r in lists for name, quantity in r.items())

    def pod(self) -> Pod:
        """The pod of this shape."""
        return Pod(
            uid="contract",
            containers=tuple(Container(f"c{i}", FrozenMap(r)) for i, r in enumerate(self.containers)),
            init_containers=tuple(
                Container(f"i{i}", FrozenMap(r), restart_policy=RESTART_POLICY_ALWAYS if sidecar else None)
                for i, (r, sidecar) in enumerate(self.init_containers)
            ),
            overhead=FrozenMap(self.overhead),
            pod_level_requests=FrozenMap(self.pod_level),
        )

    # -- the rule -------------------------------------------------------------------------------

    def peak(self, name: str) -> int:
        """The most of ``name`` the pod's containers use at once: the largest of every init container's own
        request plus the sidecars started before it, and the app containers' requests plus every sidecar's."""
        sidecars_before = [sum(r.get(name, 0) for r, s in self.init_containers[:i] if s)
                           for i in range(len(self.init_containers) + 1)]
        phases = [r.get(name, 0) + sidecars_before[i] for i, (r, _) in enumerate(self.init_containers)]
        running = sum(r.get(name, 0) for r in self.containers) + sidecars_before[-1]
        return max([running, *phases])

    def overridden(self, pod_level_resources: bool) -> set[str]:
        """The names pod-level requests replace: cpu, memory and hugepages-* ones, if the gate is on and the pod
        requests at least one of those at pod level."""
        supported = {n for n in self.pod_level if n in (CPU, MEMORY) or n.startswith("hugepages-")}
        return supported if pod_level_resources else set()

    def names(self, pod_level_resources: bool) -> set[str]:
        """Every name requested by a container, the overhead or (when it applies) at pod level."""
        named = {n for r in self.containers for n in r} | {n for r, _ in self.init_containers for n in r}
        return named | set(self.overhead) | self.overridden(pod_level_resources)

    def expected(self, name: str, pod_level_resources: bool) -> int:
        """``name``'s request by the rule: the pod-level value or the containers' peak, plus the overhead."""
        own = self.pod_level[name] if name in self.overridden(pod_level_resources) else self.peak(name)
        return own + self.overhead.get(name, 0)

    def with_defaults(self, defaults: Requests) -> PodShape:
        """The shape with each container's (and init container's) missing names in ``defaults`` filled in."""
        return PodShape(
            [{**defaults, **r} for r in self.containers],
            [({**defaults, **r}, s) for r, s in self.init_containers],
            self.overhead,
            self.pod_level,
        )

    def states_everywhere(self, name: str) -> bool:
        """Every container and init container states a request for ``name`` (0 counts)."""
        return all(name in r for r in self.containers) and all(name in r for r, _ in self.init_containers)


def pod_requests_of(shape: PodShape, pod_level_resources: bool) -> dict[str, int]:
    """:func:`~refimpl.cache.resources.pod_requests` of the shape's pod.

    pre: shape.is_valid()
    post: set(__return__) == shape.names(pod_level_resources)
    post: all(__return__[n] == shape.expected(n, pod_level_resources) for n in __return__)
    """
    return pod_requests(shape.pod(), pod_level_resources=pod_level_resources)


def non_zero_of(shape: PodShape, pod_level_resources: bool) -> tuple[int, int, int, int]:
    """:func:`~refimpl.cache.resources.compute_pod_resource` of the shape's pod: requested cpu and memory, then its
    non-zero cpu and memory.

    The non-zero figures fill in 100m cpu and 200 MiB memory for each container that does not state them (an
    explicit 0 stays 0); with pod-level requests, only for a resource the pod requests nowhere (``requests`` lacks
    it).

    pre: shape.is_valid()
    post: __return__[2] >= __return__[0] and __return__[3] >= __return__[1]
    post: __return__[2] == _expected_non_zero(shape, pod_level_resources, CPU)
    post: __return__[3] == _expected_non_zero(shape, pod_level_resources, MEMORY)
    post: not shape.states_everywhere(CPU) or __return__[2] == __return__[0]
    """
    resource = compute_pod_resource(shape.pod(), pod_level_resources=pod_level_resources)
    return resource.resource.milli_cpu, resource.resource.memory, resource.non0_cpu, resource.non0_mem


def _expected_non_zero(shape: PodShape, pod_level_resources: bool, name: str) -> int:
    """``name``'s non-zero request by the rule (for the contract)."""
    defaults = {CPU: DEFAULT_MILLI_CPU_REQUEST, MEMORY: DEFAULT_MEMORY_REQUEST}
    if shape.overridden(pod_level_resources):
        requested = shape.names(pod_level_resources)
        defaults = {n: q for n, q in defaults.items() if n not in requested}
    filled = shape.with_defaults(defaults)
    if name not in filled.names(pod_level_resources):
        return 0
    return filled.expected(name, pod_level_resources)


def charge_and_release(first: PodShape, second: PodShape) -> tuple[Resource, Resource, Resource, Resource]:
    """A NodeInfo's Requested and NonZeroRequested with ``first`` and ``second`` added, then after removing
    ``first``, against a NodeInfo holding only ``second``.

    ``NodeInfo.update`` charges a pod's cached figures on add and subtracts exactly them on remove: Requested is the
    sum of the pods' requests, and removing a pod leaves what the others were charged (scalar entries that return
    to 0 stay, so compare non-zero entries).

    pre: first.is_valid() and second.is_valid()
    post: _sum_of(__return__[0], first, second)
    post: _same(__return__[2], __return__[3])
    """
    both = NodeInfo(GenerationCounter())
    first_pod, second_pod = first.pod(), _renamed(second.pod())
    both.add_pod(first_pod)
    both.add_pod(second_pod)
    charged = both.requested.clone()
    both.remove_pod(first_pod)
    alone = NodeInfo(GenerationCounter())
    alone.add_pod(second_pod)
    return charged, both.non_zero_requested, _pair(both), _pair(alone)


def _renamed(pod: Pod) -> Pod:
    return Pod(uid="second", containers=pod.containers, init_containers=pod.init_containers, overhead=pod.overhead,
               pod_level_requests=pod.pod_level_requests)


def _pair(info: NodeInfo) -> Resource:
    """Requested and NonZeroRequested of ``info`` in one Resource: requested, with the non-zero cpu and memory as
    scalars (for the contract)."""
    pair = info.requested.clone()
    scalars = dict(pair.scalar_resources or {})
    scalars["non0-cpu"] = info.non_zero_requested.milli_cpu
    scalars["non0-memory"] = info.non_zero_requested.memory
    pair.scalar_resources = scalars
    return pair


def _sum_of(requested: Resource, *shapes: PodShape) -> bool:
    """``requested`` holds the sum of the shapes' requests, by the rule (for the contract)."""
    total = {n: sum(s.expected(n, True) for s in shapes if n in s.names(True)) for n in NAMES}
    scalars = requested.scalar_resources or {}
    return (requested.milli_cpu, requested.memory) == (total[CPU], total[MEMORY]) and all(
        scalars.get(n, 0) == total[n] for n in NAMES[2:]
    )


def _same(left: Resource, right: Resource) -> bool:
    """Equal, ignoring scalar entries at 0 (for the contract)."""
    def non_zero(r: Resource) -> dict[str, int]:
        return {n: q for n, q in (r.scalar_resources or {}).items() if q != 0}
    return (left.milli_cpu, left.memory, left.ephemeral_storage, non_zero(left)) == (
        right.milli_cpu, right.memory, right.ephemeral_storage, non_zero(right)
    )


# --------------------------------------------------------------------------------------------
# Host ports
# --------------------------------------------------------------------------------------------

HostPort = tuple[str, str, int]
"""A container port's host IP, protocol and host port."""


def _key(port: HostPort) -> HostPort:
    """The port with "" read as 0.0.0.0 and TCP, as HostPortInfo stores it (for the contracts)."""
    ip, protocol, number = port
    return ip or DEFAULT_BIND_ALL_HOST_IP, protocol or PROTOCOL_TCP, number


def _conflicts(used: list[HostPort], wanted: HostPort) -> bool:
    """The NodePorts rule: a host port conflicts with one in use with the same protocol and number on the same IP,
    where 0.0.0.0 means every IP; a port <= 0 is no host port (for the contract)."""
    ip, protocol, number = _key(wanted)
    return number > 0 and any(
        DEFAULT_BIND_ALL_HOST_IP in (ip, u_ip) or u_ip == ip
        for u_ip, u_protocol, u_number in map(_key, used)
        if (u_protocol, u_number) == (protocol, number)
    )


def _in_use(ports: HostPortInfo, port: HostPort) -> bool:
    """HostPortInfo holds ``port`` (for the contracts)."""
    ip, protocol, number = _key(port)
    return (protocol, number) in ports.get(ip, set())


def host_port_conflict(used: list[HostPort], wanted: HostPort) -> bool:
    """:meth:`HostPortInfo.check_conflict` after adding every port in ``used``.

    pre: len(used) <= 3
    post: __return__ == _conflicts(used, wanted)
    """
    ports = HostPortInfo()
    for ip, protocol, port in used:
        ports.add(ip, protocol, port)
    return ports.check_conflict(*wanted)


def host_port_release(used: list[HostPort], released: HostPort) -> HostPortInfo:
    """:meth:`HostPortInfo.remove` after adding every port in ``used``: the port is free on its IP whoever else
    used it (HostPortInfo is not reference-counted), every other port stays, and no IP is left without ports.

    pre: len(used) <= 3
    post: not _in_use(__return__, released)
    post: all(_in_use(__return__, u) for u in used if u[2] > 0 and _key(u) != _key(released))
    post: all(__return__.values())
    """
    ports = HostPortInfo()
    for ip, protocol, port in used:
        ports.add(ip, protocol, port)
    ports.remove(*released)
    return ports
