"""NodeInfo: one node and the pods charged to it, with its accounting kept up to date incrementally.

This is ``framework.NodeInfo``, ``PodInfo`` and ``HostPortInfo`` (pkg/scheduler/framework/types.go, v1.35). Adding
or removing a pod adjusts Requested, NonZeroRequested, the used host ports and the PVC counts by that pod's own
figures, which its PodInfo computes once; nothing is ever recomputed from the whole pod list. Every change takes a
fresh generation from the cache's :class:`~refimpl.cache.generation.GenerationCounter`.

A NodeInfo whose node is None is a *placeholder* (pods arrived before their node) or a *ghost* (the node was
removed while pods remained).
"""

from __future__ import annotations

from refimpl.cache.generation import DEFAULT_GENERATIONS, GenerationCounter
from refimpl.cache.image_states import ImageStateSummary
from refimpl.cache.resources import PodResource, Resource, compute_pod_resource, get_host_ports
from spec.errors import CacheError, ErrorKind, FatalKind, SchedulerExit
from spec.objects import PROTOCOL_TCP, Node, Pod, pvc_key

DEFAULT_BIND_ALL_HOST_IP = "0.0.0.0"
"""``DefaultBindAllHostIP``: the host IP of a port that names none."""

EMPTY_AFFINITY = 1
EMPTY_ANTI_AFFINITY = 2
EMPTY_PORTS = 4
EMPTY_PVCS = 8
ALL_EMPTY = EMPTY_AFFINITY | EMPTY_ANTI_AFFINITY | EMPTY_PORTS | EMPTY_PVCS
"""Bits of :attr:`NodeInfo.empty_containers`."""

_new_object = object.__new__
"""A bare instance of a class with slots, its slots then written one by one (``NodeInfo.snapshot``'s clone)."""

ProtocolPort = tuple[str, int]
"""``ProtocolPort``: a protocol and a port number."""


class HostPortInfo(dict[str, set[ProtocolPort]]):
    """``HostPortInfo``: host IP to the set of (protocol, port) in use on it. Not reference-counted."""

    @staticmethod
    def sanitize(ip: str, protocol: str) -> tuple[str, str]:
        """``sanitize``: an empty IP means 0.0.0.0 and an empty protocol means TCP."""
        return ip or DEFAULT_BIND_ALL_HOST_IP, protocol or PROTOCOL_TCP

    def add(self, ip: str, protocol: str, port: int) -> None:
        """``Add``: mark the port used (ports <= 0 are ignored)."""
        if port <= 0:
            return
        ip, protocol = self.sanitize(ip, protocol)
        used = self.get(ip)
        if used is None:
            self[ip] = {(protocol, port)}
        else:
            used.add((protocol, port))

    def remove(self, ip: str, protocol: str, port: int) -> None:
        """``Remove``: free the port, whoever else uses it too, and drop the IP when it has no port left."""
        if port <= 0:
            return
        ip, protocol = self.sanitize(ip, protocol)
        used = self.get(ip)
        if used is not None:
            used.discard((protocol, port))
            if not used:
                del self[ip]

    def check_conflict(self, ip: str, protocol: str, port: int) -> bool:
        """``CheckConflict``: the (protocol, port) is in use on ``ip``, or on any IP when ``ip`` is 0.0.0.0, or on
        0.0.0.0 (ports <= 0 never conflict)."""
        if port <= 0:
            return False
        ip, protocol = self.sanitize(ip, protocol)
        wanted = (protocol, port)
        if ip == DEFAULT_BIND_ALL_HOST_IP:
            return any(wanted in used for used in self.values())
        return any(wanted in self.get(key, ()) for key in (DEFAULT_BIND_ALL_HOST_IP, ip))

    def clone(self) -> HostPortInfo:
        """A deep copy (``SnapshotConcrete`` copies every inner set)."""
        return HostPortInfo({ip: set(ports) for ip, ports in self.items()})


class PodInfo:
    """``framework.PodInfo``: a pod object with what the NodeInfo needs from it, computed once.

    Kubernetes caches only the resource figures (``cachedResource``); the pod object is immutable, so this also
    caches the host ports, the PVC keys and the two affinity predicates.
    """

    __slots__ = ("_resource", "host_ports", "pod", "pod_level_resources", "pvc_keys", "with_affinity",
                 "with_required_anti_affinity")

    def __init__(self, pod: Pod, *, pod_level_resources: bool = True) -> None:
        self.pod = pod
        self.pod_level_resources = pod_level_resources
        self._resource: PodResource | None = None
        self.host_ports = tuple((p.host_ip, p.protocol, p.host_port) for p in get_host_ports(pod))
        self.pvc_keys = tuple(pvc_key(pod.namespace, claim) for claim in pod.pvc_claims)
        self.with_affinity = pod_with_affinity(pod)
        self.with_required_anti_affinity = pod_with_required_anti_affinity(pod)

    def calculate_resource(self) -> PodResource:
        """``CalculateResource``: computed on first use and cached, so removal subtracts exactly what was added."""
        resource = self._resource
        if resource is None:
            resource = self._resource = compute_pod_resource(self.pod, pod_level_resources=self.pod_level_resources)
        return resource

    def __repr__(self) -> str:
        return f"PodInfo({self.pod.uid!r})"


def pod_with_affinity(pod: Pod) -> bool:
    """``podWithAffinity``: a PodAffinity or PodAntiAffinity is set, even one without terms."""
    return pod.pod_affinity is not None or pod.pod_anti_affinity is not None


def pod_with_required_anti_affinity(pod: Pod) -> bool:
    """``podWithRequiredAntiAffinity``: at least one required anti-affinity term."""
    return pod.pod_anti_affinity is not None and pod.pod_anti_affinity.required > 0


def remove_from_slice(items: list[PodInfo], uid: str) -> PodInfo | None:
    """``removeFromSlice``: remove the first PodInfo with ``uid`` by moving the last one into its slot."""
    for index, info in enumerate(items):
        if info.pod.uid == uid:
            last = items.pop()
            if index < len(items):
                items[index] = last
            return info
    return None


class NodeInfo:
    """``framework.NodeInfo``. Mutable inside the cache; :meth:`snapshot` clones are never mutated afterwards.

    Field invariants: ``requested`` and ``non_zero_requested`` are the sums of the pods' figures (scalar entries
    may sit at 0); the affinity lists hold the pods that have such terms; ``used_ports`` is the union of the pods'
    host ports; ``pvc_ref_counts`` counts the pods' claim volumes and has no entry <= 0.
    """

    __slots__ = ("_frozen_images", "_frozen_version", "_generations", "allocatable", "empty_containers", "generation",
                 "image_states", "node", "non_zero_requested", "pods", "pods_with_affinity",
                 "pods_with_required_anti_affinity", "pvc_ref_counts", "requested", "used_ports")

    def __init__(self, generations: GenerationCounter = DEFAULT_GENERATIONS) -> None:
        """``NewNodeInfo()``: empty, without a node, at a fresh generation."""
        self._generations = generations
        self.node: Node | None = None
        self.pods: list[PodInfo] = []
        self.pods_with_affinity: list[PodInfo] = []
        self.pods_with_required_anti_affinity: list[PodInfo] = []
        self.used_ports = HostPortInfo()
        self.requested = Resource()
        self.non_zero_requested = Resource()
        self.allocatable = Resource()
        self.image_states: dict[str, ImageStateSummary] = {}
        self.pvc_ref_counts: dict[str, int] = {}
        self._frozen_images: dict[str, ImageStateSummary] | None = None
        self._frozen_version: int | None = None
        """The image version at which :attr:`_frozen_images` was last found current (None: unknown)."""
        self.empty_containers = ALL_EMPTY
        """Which of the affinity lists, ports and PVC counts are empty (``EMPTY_*`` bits), kept up to date by
        every change, so a clone need not read an empty container to learn that it is empty."""
        self.generation = generations.next()

    @property
    def name(self) -> str:
        """The node's name, or "" without a node."""
        return self.node.name if self.node is not None else ""

    # ----------------------------------------------------------------------------------------
    # Pods
    # ----------------------------------------------------------------------------------------

    def add_pod(self, pod: Pod, *, pod_level_resources: bool = True) -> None:
        """``AddPod``: wrap the pod in a new PodInfo and add it. Never fails."""
        self.add_pod_info(PodInfo(pod, pod_level_resources=pod_level_resources))

    def add_pod_info(self, info: PodInfo) -> None:
        """``AddPodInfo``: append the pod (and to the affinity lists it belongs in), then charge it."""
        self.pods.append(info)
        if info.with_affinity:
            self.pods_with_affinity.append(info)
            self.empty_containers &= ~EMPTY_AFFINITY
        if info.with_required_anti_affinity:
            self.pods_with_required_anti_affinity.append(info)
            self.empty_containers &= ~EMPTY_ANTI_AFFINITY
        self._update(info, +1)

    def remove_pod(self, pod: Pod) -> None:
        """``RemovePod``: remove the stored pod with ``pod.uid`` and release what *it* was charged.

        Which affinity lists are pruned is decided by the *argument's* spec, before the pod is looked up, so a
        failure may already have pruned them. Fails with ``PodNotInNodeInfo``; exits (nil dereference) when, in
        addition, there is no node to name in the message.
        """
        uid = pod.uid
        if pod_with_affinity(pod):
            remove_from_slice(self.pods_with_affinity, uid)
            if not self.pods_with_affinity:
                self.empty_containers |= EMPTY_AFFINITY
        if pod_with_required_anti_affinity(pod):
            remove_from_slice(self.pods_with_required_anti_affinity, uid)
            if not self.pods_with_required_anti_affinity:
                self.empty_containers |= EMPTY_ANTI_AFFINITY
        stored = remove_from_slice(self.pods, uid)
        if stored is None:
            if self.node is None:
                raise SchedulerExit(
                    FatalKind.NIL_NODE_DEREFERENCE,
                    f"NodeInfo.RemovePod: pod {pod.name} not found on a NodeInfo without a node",
                )
            raise CacheError(ErrorKind.POD_NOT_IN_NODE_INFO, f"no corresponding pod {pod.name} in pods of node "
                             f"{self.node.name}")
        self._update(stored, -1)

    def _update(self, info: PodInfo, sign: int) -> None:
        """``update``: charge (+1) or release (-1) the pod's requests, ports and claims; take a new generation."""
        resource = info.calculate_resource()
        pod_resource = resource.resource
        requested = self.requested
        requested.milli_cpu += sign * pod_resource.milli_cpu
        requested.memory += sign * pod_resource.memory
        requested.ephemeral_storage += sign * pod_resource.ephemeral_storage
        scalars = pod_resource.scalar_resources
        if scalars:
            totals = requested.scalar_resources
            if totals is None:
                totals = requested.scalar_resources = {}
            for name, quantity in scalars.items():
                totals[name] = totals.get(name, 0) + sign * quantity
        non_zero = self.non_zero_requested
        non_zero.milli_cpu += sign * resource.non0_cpu
        non_zero.memory += sign * resource.non0_mem
        if info.host_ports:
            change = self.used_ports.add if sign > 0 else self.used_ports.remove
            for ip, protocol, port in info.host_ports:
                change(ip, protocol, port)
            self._mark(EMPTY_PORTS, not self.used_ports)
        if info.pvc_keys:
            counts = self.pvc_ref_counts
            for key in info.pvc_keys:
                count = counts.get(key, 0) + sign
                if count <= 0:
                    counts.pop(key, None)
                else:
                    counts[key] = count
            self._mark(EMPTY_PVCS, not counts)
        self.generation = self._generations.next()

    def _mark(self, bit: int, empty: bool) -> None:
        if empty:
            self.empty_containers |= bit
        else:
            self.empty_containers &= ~bit

    def container_emptiness(self) -> int:
        """The ``EMPTY_*`` bits read from the containers themselves (what :attr:`empty_containers` must equal)."""
        return (
            (0 if self.pods_with_affinity else EMPTY_AFFINITY)
            | (0 if self.pods_with_required_anti_affinity else EMPTY_ANTI_AFFINITY)
            | (0 if self.used_ports else EMPTY_PORTS)
            | (0 if self.pvc_ref_counts else EMPTY_PVCS)
        )

    def refresh_empty_containers(self) -> None:
        """Recompute :attr:`empty_containers`. NodeInfo's own methods keep it current; code that changes an affinity
        list, the ports or the PVC counts directly (the conformance gallery's planted faults do) calls this after."""
        self.empty_containers = self.container_emptiness()

    # ----------------------------------------------------------------------------------------
    # Node
    # ----------------------------------------------------------------------------------------

    def set_node(self, node: Node) -> None:
        """``SetNode``: record the node and replace Allocatable with its allocatable."""
        self.node = node
        self.allocatable = Resource.from_list(node.allocatable)
        self.generation = self._generations.next()

    def remove_node(self) -> None:
        """``RemoveNode``: forget the node; pods, requests, Allocatable and images stay."""
        self.node = None
        self.generation = self._generations.next()

    # ----------------------------------------------------------------------------------------
    # Clone
    # ----------------------------------------------------------------------------------------

    def snapshot(self, into: NodeInfo | None = None, image_version: int | None = None) -> NodeInfo:
        """``SnapshotConcrete``: a read-only clone sharing the node and the PodInfos, copying what the cache
        changes in place.

        Image summaries are frozen into {size, num_nodes}; the map of them, and Allocatable (which the cache
        replaces on ``set_node``, never changing it in place), are shared rather than copied. With ``into``, the
        clone is written into that object (``*existing = *clone`` in ``UpdateSnapshot``, which keeps the pointer
        the snapshot's lists hold), and a container that was empty there and is empty here is left as it is: every
        NodeInfo records which of its containers are empty (:attr:`empty_containers`), so refreshing a snapshot
        entry neither reads nor replaces them, here or there. In a large cluster they are cold in the CPU cache.
        The Requested and NonZeroRequested of ``into`` belong to it alone (a clone never shares them), so they are
        overwritten in place rather than replaced by new objects.
        ``image_version`` (the cache's image-state version) lets an unchanged image map be reused unread (see
        :meth:`_frozen_image_states`). Never fails.
        """
        # The image map's check is inlined: in an update that refreshes one node, each call is a tenth of the cost.
        images = self._frozen_images
        if images is None or image_version is None or self._frozen_version != image_version:
            images = self._frozen_image_states(image_version)
        empty = self.empty_containers
        if into is None:
            # A new object, every slot written once: what ``NodeInfo.empty()`` then a refresh into it would give.
            clone: NodeInfo = _new_object(NodeInfo)
            clone._frozen_images = None
            clone._frozen_version = None
            clone._generations = self._generations
            clone.node = self.node
            clone.allocatable = self.allocatable
            clone.image_states = images
            clone.pods = list(self.pods)
            clone.pods_with_affinity = [] if empty & EMPTY_AFFINITY else list(self.pods_with_affinity)
            clone.pods_with_required_anti_affinity = (
                [] if empty & EMPTY_ANTI_AFFINITY else list(self.pods_with_required_anti_affinity))
            clone.used_ports = HostPortInfo() if empty & EMPTY_PORTS else self.used_ports.clone()
            clone.pvc_ref_counts = {} if empty & EMPTY_PVCS else dict(self.pvc_ref_counts)
            clone.requested = self.requested.clone()
            clone.non_zero_requested = self.non_zero_requested.clone()
            clone.generation = self.generation
            clone.empty_containers = empty
            return clone
        clone = into
        # One statement reads every field of the entry this refresh needs: in a large cluster the entry is cold
        # in the CPU cache, and reads issued together wait for memory together instead of one after another.
        kept, generations, node, allocatable, old_images, requested, non_zero = (
            into.empty_containers, into._generations, into.node, into.allocatable, into.image_states,
            into.requested, into.non_zero_requested)
        # A field is rebound only when it changed: rebinding writes the entry and two reference counts.
        if generations is not self._generations:
            clone._generations = self._generations
        if node is not self.node:
            clone.node = self.node
        if allocatable is not self.allocatable:
            clone.allocatable = self.allocatable
        if old_images is not images:
            clone.image_states = images
        clone.pods = list(self.pods)
        if not empty & EMPTY_AFFINITY:
            clone.pods_with_affinity = list(self.pods_with_affinity)
        elif not kept & EMPTY_AFFINITY:
            clone.pods_with_affinity = []
        if not empty & EMPTY_ANTI_AFFINITY:
            clone.pods_with_required_anti_affinity = list(self.pods_with_required_anti_affinity)
        elif not kept & EMPTY_ANTI_AFFINITY:
            clone.pods_with_required_anti_affinity = []
        if not empty & EMPTY_PORTS:
            clone.used_ports = self.used_ports.clone()
        elif not kept & EMPTY_PORTS:
            clone.used_ports = HostPortInfo()
        if not empty & EMPTY_PVCS:
            clone.pvc_ref_counts = dict(self.pvc_ref_counts)
        elif not kept & EMPTY_PVCS:
            clone.pvc_ref_counts = {}
        # Requested and NonZeroRequested copied in place (``*r = *other.Clone()``), inlined: two of the few Python
        # calls a one-node update makes.
        source = self.requested
        requested.milli_cpu = source.milli_cpu
        requested.memory = source.memory
        requested.ephemeral_storage = source.ephemeral_storage
        requested.allowed_pod_number = source.allowed_pod_number
        scalars = source.scalar_resources
        requested.scalar_resources = None if scalars is None else dict(scalars)
        source = self.non_zero_requested
        non_zero.milli_cpu = source.milli_cpu
        non_zero.memory = source.memory
        non_zero.ephemeral_storage = source.ephemeral_storage
        non_zero.allowed_pod_number = source.allowed_pod_number
        scalars = source.scalar_resources
        non_zero.scalar_resources = None if scalars is None else dict(scalars)
        clone.generation = self.generation
        clone.empty_containers = empty
        return clone

    def _frozen_image_states(self, image_version: int | None) -> dict[str, ImageStateSummary]:
        """The clone's image map: {name: frozen summary}, shared by successive read-only clones until a summary
        changes (the frozen summaries are cached per node count, so identity says whether anything changed).

        ``image_version`` is the cache's :attr:`~refimpl.cache.image_states.ImageStates.version`: while it is the
        one the map was last checked at, no summary has changed and the map is returned without reading it. None
        (a clone outside UpdateSnapshot: ``Dump``, the NodeInfo AddNode returns, a plugin's scratch copy) gives a
        new map and leaves the memo as UpdateSnapshot left it, so observing the cache changes nothing in it.
        """
        if image_version is None:
            return {name: summary.snapshot() for name, summary in self.image_states.items()}
        frozen = self._frozen_images
        if frozen is not None and self._frozen_version == image_version:
            return frozen
        states = self.image_states
        if frozen is None or len(frozen) != len(states) or any(
            frozen.get(name) is not summary.snapshot() for name, summary in states.items()
        ):
            frozen = self._frozen_images = {name: summary.snapshot() for name, summary in states.items()}
        self._frozen_version = image_version
        return frozen

    @classmethod
    def empty(cls) -> NodeInfo:
        """``&framework.NodeInfo{}``: a zero NodeInfo that takes no generation (``UpdateSnapshot``'s new entries)."""
        info = cls.__new__(cls)
        info._generations = DEFAULT_GENERATIONS
        info.node = None
        info.pods = []
        info.pods_with_affinity = []
        info.pods_with_required_anti_affinity = []
        info.used_ports = HostPortInfo()
        info.requested = Resource()
        info.non_zero_requested = Resource()
        info.allocatable = Resource()
        info.image_states = {}
        info.pvc_ref_counts = {}
        info.generation = 0
        info._frozen_images = None
        info._frozen_version = None
        info.empty_containers = ALL_EMPTY
        return info

    def __repr__(self) -> str:
        return f"NodeInfo(node={self.name!r}, pods={[p.pod.uid for p in self.pods]}, generation={self.generation})"
