"""CrossHair contracts for the cache's functions that take API objects.

CrossHair cannot generate a ``spec.objects.Pod`` (its proxy maker fails on ``FrozenMap.__init__``'s union
annotation), so each function here builds the objects from plain values (ints, lists, tuples), calls the reference
implementation, and states the Kubernetes rule as ``post:`` conditions. :class:`PodShape` holds a pod's requests
and states the rule of ``PodRequests`` (component-helpers resource/helpers.go, v0.35.0) in closed form: a resource
is requested at the peak of the pod's phases (the init containers one by one, each with the sidecars started
before it; then the app containers with every sidecar), unless pod-level requests replace it; overhead is added.
The implementation computes it incrementally, so the two are independent statements of one rule.

Preconditions keep the search where the rule lives: non-negative quantities (the API server rejects negative ones;
a missing name counts as 0 only then), names from :data:`NAMES` (the rule treats names as opaque except for the
pod-level classes cpu, memory and ``hugepages-*``), one or two containers and at most two init containers.
:func:`node_tree_order` covers ``nodeTree.list`` and the host-port functions ``HostPortInfo.CheckConflict`` and
``Remove``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Final, NamedTuple

from refimpl.cache.generation import GenerationCounter
from refimpl.cache.node_info import DEFAULT_BIND_ALL_HOST_IP, HostPortInfo, NodeInfo
from refimpl.cache.node_tree import NodeTree
from refimpl.cache.resources import (
    DEFAULT_MEMORY_REQUEST,
    DEFAULT_MILLI_CPU_REQUEST,
    Resource,
    compute_pod_resource,
    pod_requests,
)
from spec.frozenmap import FrozenMap
from spec.objects import LABEL_TOPOLOGY_ZONE, PROTOCOL_TCP, RESTART_POLICY_ALWAYS, Container, Node, Pod
from spec.quantities import CPU, MEMORY

NAMES: Final = (CPU, MEMORY, "hugepages-2Mi", "example.com/gpu")
"""The resource names the contracts draw from: both defaulted names, a pod-level one, and one pod level ignores."""
MAX_CONTAINERS: Final = 2
EMPTY: Final[Mapping[str, int]] = MappingProxyType({})


class Requests(NamedTuple):
    """A container's (or the overhead's, or the pod-level) requests of the :data:`NAMES`, None where it states
    none. Fields rather than a dict: CrossHair finds two symbolic dicts sharing a string key only by luck."""

    cpu: int | None = None
    memory: int | None = None
    hugepages: int | None = None
    gpu: int | None = None

    def as_dict(self) -> dict[str, int]:
        return {name: quantity for name, quantity in zip(NAMES, self, strict=True) if quantity is not None}

    def is_valid(self) -> bool:
        return all(quantity is None or quantity >= 0 for quantity in self)


@dataclass(frozen=True)
class PodShape:
    """The resource-relevant part of a pod: each container's requests, each init container's requests and whether
    it is a sidecar (restartPolicy Always), the overhead and the pod-level requests."""

    containers: list[Requests]
    init_containers: list[tuple[Requests, bool]]
    overhead: Requests
    pod_level: Requests

    def is_valid(self) -> bool:
        """One or two containers, at most two init containers, quantities >= 0."""
        if not (1 <= len(self.containers) <= MAX_CONTAINERS and len(self.init_containers) <= MAX_CONTAINERS):
            return False  # lengths first: CrossHair then explores only short lists
        requests = [*self.containers, *(r for r, _ in self.init_containers), self.overhead, self.pod_level]
        return all(r.is_valid() for r in requests)

    def pod(self) -> Pod:
        """The pod of this shape."""
        return Pod(
            uid="contract",
            containers=tuple(Container(f"c{i}", FrozenMap(r.as_dict())) for i, r in enumerate(self.containers)),
            init_containers=tuple(
                Container(f"i{i}", FrozenMap(r.as_dict()), restart_policy=RESTART_POLICY_ALWAYS if sidecar else None)
                for i, (r, sidecar) in enumerate(self.init_containers)
            ),
            overhead=FrozenMap(self.overhead.as_dict()),
            pod_level_requests=FrozenMap(self.pod_level.as_dict()),
        )

    # -- the rule -------------------------------------------------------------------------------

    def _lists(self) -> tuple[list[dict[str, int]], list[tuple[dict[str, int], bool]]]:
        return [r.as_dict() for r in self.containers], [(r.as_dict(), s) for r, s in self.init_containers]

    def peak(self, name: str, defaults: Mapping[str, int]) -> int:
        """The most of ``name`` the pod's containers use at once: the largest of every init container's own
        request plus the sidecars started before it, and the app containers' requests plus every sidecar's.
        A container that states no request for a name in ``defaults`` requests the default."""
        containers, inits = self._lists()
        containers = [{**defaults, **r} for r in containers]
        inits = [({**defaults, **r}, s) for r, s in inits]
        sidecars_before = [sum(r.get(name, 0) for r, s in inits[:i] if s) for i in range(len(inits) + 1)]
        phases = [r.get(name, 0) + sidecars_before[i] for i, (r, _) in enumerate(inits)]
        running = sum(r.get(name, 0) for r in containers) + sidecars_before[-1]
        return max([running, *phases])

    def overridden(self, pod_level_resources: bool) -> set[str]:
        """The names pod-level requests replace: cpu, memory and hugepages-* ones, if the gate is on (and so only
        when the pod requests one of those at pod level)."""
        supported = {n for n in self.pod_level.as_dict() if n in (CPU, MEMORY) or n.startswith("hugepages-")}
        return supported if pod_level_resources else set()

    def names(self, pod_level_resources: bool) -> set[str]:
        """Every name requested by a container, the overhead or (when it applies) at pod level."""
        containers, inits = self._lists()
        named = {n for r in containers for n in r} | {n for r, _ in inits for n in r}
        return named | set(self.overhead.as_dict()) | self.overridden(pod_level_resources)

    def expected(self, name: str, pod_level_resources: bool, defaults: Mapping[str, int] = EMPTY) -> int:
        """``name``'s request by the rule: the pod-level value or the containers' peak, plus the overhead."""
        if name in self.overridden(pod_level_resources):
            own = self.pod_level.as_dict()[name]
        else:
            own = self.peak(name, defaults)
        return own + self.overhead.as_dict().get(name, 0)

    def requests(self, pod_level_resources: bool) -> dict[str, int]:
        """The pod's requests by the rule: every name it requests, at :meth:`expected`."""
        return {name: self.expected(name, pod_level_resources) for name in self.names(pod_level_resources)}

    def states_everywhere(self, name: str) -> bool:
        """Every container and init container states a request for ``name`` (0 counts)."""
        containers, inits = self._lists()
        return all(name in r for r in containers) and all(name in r for r, _ in inits)


def pod_requests_of(shape: PodShape, pod_level_resources: bool) -> dict[str, int]:
    """:func:`~refimpl.cache.resources.pod_requests` of the shape's pod.

    pre: shape.is_valid()
    post: __return__ == shape.requests(pod_level_resources)
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
    post: __return__[2:] == _expected_non_zero(shape, pod_level_resources)
    post: not shape.states_everywhere(CPU) or __return__[2] == __return__[0]
    """
    resource = compute_pod_resource(shape.pod(), pod_level_resources=pod_level_resources)
    return resource.resource.milli_cpu, resource.resource.memory, resource.non0_cpu, resource.non0_mem


def _expected_non_zero(shape: PodShape, pod_level_resources: bool) -> tuple[int, int]:
    """The non-zero cpu and memory requests by the rule (for the contract)."""
    defaults = {CPU: DEFAULT_MILLI_CPU_REQUEST, MEMORY: DEFAULT_MEMORY_REQUEST}
    requested = shape.names(pod_level_resources)
    if shape.overridden(pod_level_resources):
        defaults = {n: q for n, q in defaults.items() if n not in requested}

    def non_zero(name: str) -> int:
        if name not in requested and name not in defaults:
            return 0
        return shape.expected(name, pod_level_resources, defaults)

    return non_zero(CPU), non_zero(MEMORY)


def charge_and_release(first: Requests, second: Requests) -> tuple[Resource, Resource, Resource]:
    """A NodeInfo's Requested with two one-container pods requesting ``first`` and ``second`` added; then its
    Requested and NonZeroRequested after removing the first pod, and those of a NodeInfo holding only the second.
    (The pods' own requests are :func:`pod_requests_of`'s subject: one container each is enough here.)

    ``NodeInfo.update`` charges a pod's cached figures on add and subtracts exactly them on remove: Requested is the
    sum of the pods' requests, and removing a pod leaves what the others were charged (scalar entries that return
    to 0 stay, so compare non-zero entries).

    pre: first.is_valid() and second.is_valid()
    post: _sum_of(__return__[0], _one_container(first), _one_container(second))
    post: _same(__return__[1], __return__[2])
    """
    both = NodeInfo(GenerationCounter())
    first_pod = Pod(uid="first", containers=(Container("c", FrozenMap(first.as_dict())),))
    second_pod = Pod(uid="second", containers=(Container("c", FrozenMap(second.as_dict())),))
    both.add_pod(first_pod)
    both.add_pod(second_pod)
    charged = both.requested.clone()
    both.remove_pod(first_pod)
    alone = NodeInfo(GenerationCounter())
    alone.add_pod(second_pod)
    return charged, _pair(both), _pair(alone)


def _one_container(requests: Requests) -> PodShape:
    return PodShape([requests], [], Requests(), Requests())


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
# Node tree
# --------------------------------------------------------------------------------------------


def node_tree_order(zone_sizes: list[int]) -> tuple[list[str], list[list[str]]]:
    """:meth:`NodeTree.list_nodes` after adding ``zone_sizes[z]`` nodes in zone ``z``, zone by zone; and the zones'
    names in the order added.

    Every node is listed once, in (round, zone) order, where a node's round is its index in its zone: the first
    node of every zone (zones in the order they were first seen), then the second, and so on. That is fair: no
    prefix of the list has taken two nodes more from one zone than from a zone with nodes left.

    pre: len(zone_sizes) <= 4 and all(1 <= size <= 4 for size in zone_sizes)
    post: sorted(__return__[0]) == sorted(name for zone in __return__[1] for name in zone)
    post: [_round_and_zone(__return__[1])[n] for n in __return__[0]] == sorted(_round_and_zone(__return__[1]).values())
    post: _prefixes_are_fair(*__return__)
    """
    tree = NodeTree()
    zones = [[f"n{z}-{i}" for i in range(size)] for z, size in enumerate(zone_sizes)]
    for z, zone in enumerate(zones):
        for name in zone:
            tree.add_node(Node(name, labels=FrozenMap({LABEL_TOPOLOGY_ZONE: f"zone-{z}"})))
    return tree.list_nodes(), zones


def _round_and_zone(zones: list[list[str]]) -> dict[str, tuple[int, int]]:
    """Each name's (index in its zone, index of its zone): its round and its turn in that round (for the contract)."""
    return {name: (index, z) for z, zone in enumerate(zones) for index, name in enumerate(zone)}


def _prefixes_are_fair(listed: list[str], zones: list[list[str]]) -> bool:
    """In every prefix of ``listed``, each zone has given at most one name more than any zone not yet exhausted (for
    the contract)."""
    zone_of = {name: z for z, zone in enumerate(zones) for name in zone}
    taken = [0] * len(zones)
    for name in listed:
        taken[zone_of[name]] += 1
        open_zones = [count for z, count in enumerate(taken) if count < len(zones[z])]
        if open_zones and max(taken) > min(open_zones) + 1:
            return False
    return True


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
