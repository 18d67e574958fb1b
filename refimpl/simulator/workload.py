"""Workloads for the simulator: the nodes and pods of a cluster, and the churn that changes it over time.

Everything is drawn from one seeded :class:`random.Random`, so a seed names a workload. Node shapes follow a
typical cloud fleet (a few machine sizes, three zones, a few tainted or cordoned nodes); pods are replicas of a few
workloads (so many pods are identical, as opportunistic batching expects), some with a host port, a zone selector
or a toleration, so that every default filter plugin has something to reject.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, replace

from spec.frozenmap import FrozenMap
from spec.objects import (
    LABEL_HOSTNAME,
    LABEL_TOPOLOGY_REGION,
    LABEL_TOPOLOGY_ZONE,
    Container,
    ContainerImage,
    ContainerPort,
    Node,
    Pod,
    Taint,
    Toleration,
)
from spec.quantities import SECOND, resource_list

MIB = 2**20
GIB = 2**30
ZONES = ("zone-a", "zone-b", "zone-c")
IMAGES = tuple(f"registry.example/app-{i}:v1" for i in range(4))
DEDICATED_TAINT = Taint("dedicated", "batch", "NoSchedule")
DEDICATED_TOLERATION = Toleration("dedicated", "Equal", "batch", "NoSchedule")

MACHINE_SHAPES = ((4_000, 16 * GIB), (8_000, 32 * GIB), (16_000, 64 * GIB), (32_000, 128 * GIB))
"""(milli-CPU, memory) of the machine sizes."""

POD_SHAPES = ((100, 128 * MIB), (250, 256 * MIB), (500, 512 * MIB), (1_000, 1 * GIB), (2_000, 4 * GIB))
"""(milli-CPU, memory) requests of the workloads' containers."""

IDENTICAL_POD = (9_000, 8 * GIB)
"""(milli-CPU, memory) of the identical replicas: more than half of a uniform (16-CPU) node, so each node takes
one. That is the workload opportunistic batching serves (KEP-5598): a cached hint is used only once the node chosen
last no longer fits the next pod."""


def make_node(index: int, rng: random.Random, *, uniform: bool = False) -> Node:
    """Node ``node-<index>``: a random machine size and images, zone by index; 5% tainted, 2% cordoned (none of
    that when ``uniform``: every node the same 16-CPU machine)."""
    name = f"node-{index}"
    labels = FrozenMap({LABEL_TOPOLOGY_REGION: "region-1", LABEL_TOPOLOGY_ZONE: ZONES[index % len(ZONES)],
                        LABEL_HOSTNAME: name})
    if uniform:
        cpu, memory = MACHINE_SHAPES[2]
        return Node(name, allocatable=resource_list(cpu=cpu, memory=memory, pods=110), labels=labels)
    cpu, memory = rng.choice(MACHINE_SHAPES)
    images = tuple(ContainerImage((image,), 50 * MIB * (1 + k)) for k, image in enumerate(IMAGES)
                   if rng.random() < 0.5)
    roll = rng.random()
    taints = (DEDICATED_TAINT,) if roll < 0.05 else ()
    return Node(name, allocatable=resource_list(cpu=cpu, memory=memory, pods=110), labels=labels, taints=taints,
                unschedulable=0.05 <= roll < 0.07, images=images)


def make_pod(index: int, rng: random.Random, *, identical: bool = False, priorities: tuple[int, ...] = ()) -> Pod:
    """Pod ``pod-<index>`` (UID ``uid-<index>``): one container of a random workload shape; 10% with host port
    8080, 10% selecting a zone, 5% tolerating the dedicated taint (none of that when ``identical``: every pod the
    same replica of :data:`IDENTICAL_POD`); with ``priorities``, a priority drawn from them last (so a workload
    without priorities draws what it always did)."""
    pod = _make_pod(index, rng, identical=identical)
    return replace(pod, priority=rng.choice(priorities)) if priorities else pod


def _make_pod(index: int, rng: random.Random, *, identical: bool = False) -> Pod:
    name = f"pod-{index}"
    if identical:
        cpu, memory = IDENTICAL_POD
        container = Container("app", requests=resource_list(cpu=cpu, memory=memory), image=IMAGES[0])
        return Pod(uid=f"uid-{index}", name=name, namespace="sim", containers=(container,))
    cpu, memory = rng.choice(POD_SHAPES)
    ports = (ContainerPort(8080, host_port=8080),) if rng.random() < 0.1 else ()
    container = Container("app", requests=resource_list(cpu=cpu, memory=memory), ports=ports,
                          image=rng.choice(IMAGES))
    selector: FrozenMap[str, str] = FrozenMap()
    if rng.random() < 0.1:
        selector = FrozenMap({LABEL_TOPOLOGY_ZONE: rng.choice(ZONES)})
    tolerations = (DEDICATED_TOLERATION,) if rng.random() < 0.05 else ()
    return Pod(uid=f"uid-{index}", name=name, namespace="sim", containers=(container,), node_selector=selector,
               tolerations=tolerations)


@dataclass(frozen=True)
class Churn:
    """Rates (per second of virtual time) of changes while pods are being scheduled; 0 turns a change off."""

    pod_deletions: float = 0.0
    """A random existing pod (pending or bound) is deleted."""
    node_additions: float = 0.0
    node_deletions: float = 0.0
    node_updates: float = 0.0
    """A random node is cordoned, uncordoned or relabelled."""

    def __post_init__(self) -> None:
        for name in ("pod_deletions", "node_additions", "node_deletions", "node_updates"):
            if getattr(self, name) < 0:
                raise ValueError(f"churn rate {name} must not be negative, got {getattr(self, name)}")

    @property
    def total(self) -> float:
        """All rates together."""
        return self.pod_deletions + self.node_additions + self.node_deletions + self.node_updates


def next_arrival(rng: random.Random, now: int, rate: float) -> int:
    """The time (ns) of the next event of a Poisson process of ``rate`` per second, from ``now``."""
    return now + max(1, round(rng.expovariate(rate) * SECOND))


def toggled(node: Node, rng: random.Random) -> Node:
    """A node update: cordon or uncordon it, or change a label no pod selects."""
    if rng.random() < 0.5:
        return replace(node, unschedulable=not node.unschedulable)
    labels = dict(node.labels.items())
    labels["sim.example/revision"] = str(rng.randrange(1_000_000))
    return replace(node, labels=FrozenMap(labels))
