"""A finite universe of pods, nodes, times and TTLs, and the cache operations over it.

The model checker explores every state the cache can reach by the operations enumerated here.
Everything is finite: ``pods`` UIDs, each with ``pod_variants`` objects (different requests;
the second variant also has a host port, a required anti-affinity term and a claim), ``nodes``
names each with ``node_variants`` objects (different zones; the second also lists an image),
a few timestamps for ``FinishBinding`` and ``CleanupAssumedPods`` (not a clock: any of them may
come in any order; chosen so that cleanups fall before, at and after each deadline), and a few
TTLs, one initial cache per TTL.

All UIDs have the same variants, and all node names the same variants, so pods are
interchangeable among themselves, and so are nodes: that is what makes symmetry reduction
(:mod:`spec.verify.cache.symmetry`) applicable.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from enum import StrEnum
from functools import cached_property
from typing import Final

from spec.cache.cache import new_cache
from spec.cache.contract import follows_informer_contract
from spec.cache.operations import (
    AddNode,
    AddPod,
    AssumePod,
    CleanupAssumedPods,
    FinishBinding,
    ForgetPod,
    Operation,
    RemoveNode,
    RemovePod,
    UpdateNode,
    UpdatePod,
    UpdateSnapshot,
    World,
)
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
)
from spec.quantities import SECOND, Duration, Timestamp, resource_list
from spec.verify.cache.symmetry import intern_object
from spec.versions import DEFAULT_PROFILE, VersionProfile


class Mode(StrEnum):
    """Which operations the model checker issues, and which invariants it then requires."""

    CONTRACT = "contract"
    """Only operations that follow :mod:`spec.cache.contract`; every invariant must hold, no process exit."""
    ADVERSARIAL = "adversarial"
    """Any operation over the universe's objects; only the ALWAYS invariants; an exit ends a path."""


MAX_POD_VARIANTS: Final = 3
MAX_NODE_VARIANTS: Final = 3
IMAGE: Final = ContainerImage(("img:1",), 100)
ZONES: Final = ("z0", "z1", "")


def pod_variant(uid: str, variant: int, node_name: str) -> Pod:
    """Variant 0: 100m and 64 MiB. Variant 1: 200m and 128 MiB, host port 8080, a required
    anti-affinity term and the claim "data". Variant 2: no requests (non-zero defaults) and an
    empty PodAffinity."""
    if variant == 0:
        containers = (Container("c", resource_list(cpu=100, memory=64 * 2**20)),)
        return Pod(uid, uid, node_name=node_name, containers=containers)
    if variant == 1:
        port = ContainerPort(80, host_port=8080)
        containers = (Container("c", resource_list(cpu=200, memory=128 * 2**20), (port,)),)
        return Pod(
            uid,
            uid,
            node_name=node_name,
            containers=containers,
            pod_anti_affinity=AffinityTerms(required=1),
            pvc_claims=("data",),
        )
    return Pod(uid, uid, node_name=node_name, containers=(Container("c"),), pod_affinity=AffinityTerms())


def node_variant(name: str, variant: int) -> Node:
    """Variant 0: zone z0. Variant 1: zone z1 and an image. Variant 2: no zone labels."""
    zone = ZONES[variant]
    labels = FrozenMap({LABEL_TOPOLOGY_REGION: "r", LABEL_TOPOLOGY_ZONE: zone}) if zone else FrozenMap()
    images = (IMAGE,) if variant == 1 else ()
    return Node(name, resource_list(cpu=1000, memory=2**30, pods=10), labels, images=images)


def _seconds(values: tuple[int, ...]) -> str:
    return "{" + ", ".join(f"{t / SECOND:g}s" for t in values) + "}"


@dataclass(frozen=True)
class Universe:
    """The finite universe, as set on the command line (``--nodes``, ``--pods``, ...)."""

    nodes: int = 2
    pods: int = 2
    pod_variants: int = 2
    node_variants: int = 2
    finish_times: tuple[Timestamp, ...] = (0, 1 * SECOND)
    """When ``FinishBinding`` may be called: with a TTL of 1s, deadlines 1s and 2s."""
    cleanup_times: tuple[Timestamp, ...] = (1 * SECOND, 2 * SECOND)
    """When ``CleanupAssumedPods`` may run: before, at and after each deadline."""
    ttls: tuple[Duration, ...] = (0, 1 * SECOND)
    profile: VersionProfile = DEFAULT_PROFILE

    def __post_init__(self) -> None:
        if not 1 <= self.pod_variants <= MAX_POD_VARIANTS or not 1 <= self.node_variants <= MAX_NODE_VARIANTS:
            raise ValueError(
                f"pod and node variants must be between 1 and {MAX_POD_VARIANTS}, "
                f"got {self.pod_variants} and {self.node_variants}"
            )
        if self.nodes < 1 or self.pods < 1:
            raise ValueError(f"the universe needs at least one node and one pod, got {self.nodes} and {self.pods}")
        if not self.profile.assumed_pod_expiry and any(self.ttls):
            raise ValueError(f"profile {self.profile.name} has no expiry: use --ttl 0")

    @cached_property
    def node_names(self) -> tuple[str, ...]:
        return tuple(f"n{i}" for i in range(self.nodes))

    @cached_property
    def pod_uids(self) -> tuple[str, ...]:
        return tuple(f"p{i}" for i in range(self.pods))

    def describe(self) -> str:
        return (
            f"{self.nodes} nodes x {self.node_variants} variants, {self.pods} pods x {self.pod_variants} variants, "
            f"FinishBinding at {_seconds(self.finish_times)}, CleanupAssumedPods at {_seconds(self.cleanup_times)}, "
            f"ttl {_seconds(self.ttls)}, profile {self.profile.name}"
        )

    def initial_worlds(self) -> list[World]:
        """One empty cache per TTL."""
        return [World(new_cache(self.profile, ttl)) for ttl in self.ttls]

    @cached_property
    def _placed(self) -> dict[str, tuple[Pod, ...]]:
        """Every pod object of each UID on every node name (and "", for adversarial streams)."""
        return {
            uid: tuple(
                intern_object(pod_variant(uid, v, name))
                for v in range(self.pod_variants)
                for name in (*self.node_names, "")
            )
            for uid in self.pod_uids
        }

    @cached_property
    def _node_objects(self) -> dict[str, tuple[Node, ...]]:
        return {
            name: tuple(intern_object(node_variant(name, v)) for v in range(self.node_variants))
            for name in self.node_names
        }

    def operations(self, world: World, mode: Mode) -> list[Operation]:
        """The operations to try in ``world``, in a fixed order.

        Contract mode issues what an informer and a scheduler would (the objects the cache holds,
        unknown pods, races), then keeps those :func:`~spec.cache.contract.follows_informer_contract`
        accepts. Adversarial mode issues every operation on every object of the universe.
        """
        ops = self._contract_candidates(world) if mode is Mode.CONTRACT else self._adversarial(world)
        if mode is Mode.CONTRACT:
            ops = [op for op in ops if follows_informer_contract(world.cache, op)]
        return ops

    def _cached_or_unknown(self, world: World, uid: str) -> Pod:
        current = world.cache.pod_states.get(uid)
        return current.pod if current is not None else intern_object(pod_variant(uid, 0, self.node_names[0]))

    def _contract_candidates(self, world: World) -> list[Operation]:
        ops: list[Operation] = []
        state = world.cache
        for uid in self.pod_uids:
            placed = [p for p in self._placed[uid] if p.node_name != ""]
            ops.extend(AssumePod(p) for p in placed)
            ops.extend(AddPod(p) for p in placed)
            pod = self._cached_or_unknown(world, uid)
            if state.profile.assumed_pod_expiry:
                ops.extend(FinishBinding(pod, t) for t in self.finish_times)
            ops.append(ForgetPod(pod))
            ops.extend(
                UpdatePod(pod, intern_object(replace(p, node_name=pod.node_name)))
                for p in placed
                if p.node_name == self.node_names[0]
            )
            ops.append(RemovePod(pod))
            ops.append(RemovePod(intern_object(replace(pod, node_name=""))))
        for name in self.node_names:
            variants = self._node_objects[name]
            info = state.nodes.get(name)
            ops.extend(AddNode(n) for n in variants)
            if info is not None and info.node is not None:
                ops.extend(UpdateNode(info.node, n) for n in variants)
                ops.append(RemoveNode(info.node))
            else:
                ops.append(RemoveNode(variants[0]))
        if state.profile.assumed_pod_expiry:
            ops.extend(CleanupAssumedPods(t) for t in self.cleanup_times)
        ops.append(UpdateSnapshot())
        return ops

    def _adversarial(self, world: World) -> list[Operation]:
        ops: list[Operation] = []
        expiry = world.cache.profile.assumed_pod_expiry
        for uid in self.pod_uids:
            objects = self._placed[uid]
            current = world.cache.pod_states.get(uid)
            olds = (*objects, current.pod) if current is not None and current.pod not in objects else objects
            for pod in objects:
                ops.extend((AssumePod(pod), AddPod(pod), ForgetPod(pod), RemovePod(pod)))
                if expiry:
                    ops.extend(FinishBinding(pod, t) for t in self.finish_times)
            ops.extend(UpdatePod(old, new) for old in olds for new in objects)
        for name in self.node_names:
            variants = self._node_objects[name]
            ops.extend(AddNode(n) for n in variants)
            ops.extend(RemoveNode(n) for n in variants)
            ops.extend(UpdateNode(old, new) for old in (None, *variants) for new in variants)
        if expiry:
            ops.extend(CleanupAssumedPods(t) for t in self.cleanup_times)
        ops.append(UpdateSnapshot())
        return ops


DEFAULT_UNIVERSE: Final = Universe(nodes=2, pods=2, pod_variants=1, node_variants=1)
"""``ksspec check`` without arguments: exhausted (every reachable state) in well under a minute."""
DEFAULT_DEPTH: Final = 0
"""``ksspec check``'s default depth limit; 0 means none (explore until no new state appears)."""
