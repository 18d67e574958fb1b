"""Random traces of the kubelet's admission under pressure: critical pods that evict others to run.

The kubelet evicts pods only when a critical pod reaches it without room (:mod:`spec.cluster.kubelet`), which the
scheduler's own checks make rare: the curated vector ``cycle.kubelet.critical_pod_evicts`` needs a crashed
scheduler's late bind. Here the node shrinks instead: pods of several priorities and QoS classes (best-effort and
burstable, with container, init-container, pod-level and overhead requests, ephemeral storage and an extended
resource) are scheduled, bound and confirmed on
one node while it is large, the node's allocatable then shrinks (``ClusterUpdateNode``), and the kubelet handles the
pods in a random order. The first pods fit; the later ones are rejected (``OutOfcpu``...) or, if critical, admitted
after the pods ``getPodsToPreempt`` chooses are evicted (reason ``Preempting``). Each trace's choices come from its
seed; every expected outcome comes from the spec (:func:`conformance.traces.expand`).
"""

from __future__ import annotations

import random
from typing import Final

from conformance.operations import (
    AdmitPod,
    BindPod,
    ClusterAddNode,
    ClusterUpdateNode,
    ConfirmBinding,
    CreatePod,
    CycleOperation,
    SchedulePod,
    is_enabled,
)
from conformance.scenarios.cycle import MIB, CycleTrace
from conformance.traces import ALL_PROFILES, Scenario
from spec.cluster.kubelet import SYSTEM_CRITICAL_PRIORITY
from spec.cycle.cycle import new_cluster
from spec.frozenmap import FrozenMap
from spec.objects import Container, Node, Pod
from spec.quantities import resource_list, resources_from

SEEDS: Final = tuple(range(1, 25))
EPHEMERAL_STORAGE: Final = "ephemeral-storage"
GPU: Final = "example.com/gpu"
"""An extended resource, which the kubelet checks like any other (``OutOfexample.com/gpu``)."""
PRIORITIES: Final = (0, 0, 100, 1000, SYSTEM_CRITICAL_PRIORITY, SYSTEM_CRITICAL_PRIORITY + 1000)
"""Ordinary priorities, ``system-cluster-critical`` and ``system-node-critical``."""


def _requests(rng: random.Random) -> FrozenMap[str, int]:
    """cpu and memory (none, a third of the time each), and now and then ephemeral storage or an extended
    resource."""
    asks = {"cpu": rng.choice((0, 0, 0, 50, 100, 150, 300, 450, 700)),
            "memory": rng.choice((0, 0, 0, 32, 64, 100, 200, 350, 500)) * MIB}
    if rng.random() < 0.2:
        asks[EPHEMERAL_STORAGE] = rng.choice((100, 400)) * MIB
    if rng.random() < 0.2:
        asks[GPU] = rng.choice((1, 2))
    return resources_from({k: v for k, v in asks.items() if v})


def random_pod(rng: random.Random, index: int) -> Pod:
    """Pod ``k<index>``: a priority, one or two containers, perhaps an init container, pod-level requests or an
    overhead."""
    containers = tuple(Container(f"c{i}", _requests(rng)) for i in range(rng.randint(1, 2)))
    init = (Container("init", _requests(rng)),) if rng.random() < 0.2 else ()
    pod_level: FrozenMap[str, int] = FrozenMap()
    if rng.random() < 0.15:  # cpu, memory or both, over containers that may ask for nothing
        pod_level = resources_from({k: v for k, v in (("cpu", rng.choice((0, 200, 600))),
                                                       ("memory", rng.choice((0, 100, 300)) * MIB)) if v})
    overhead = resource_list(cpu=50, memory=16 * MIB) if rng.random() < 0.15 else FrozenMap()
    uid = f"k{index}"
    return Pod(uid, uid, containers=containers, init_containers=init, pod_level_requests=pod_level,
               overhead=overhead, priority=rng.choice(PRIORITIES))


def random_kubelet_trace(seed: int) -> list[CycleOperation]:
    """The trace of ``seed``: a large node, five to nine pods placed on it, the node shrunk, then every pod handed
    to the kubelet in a random order (a pod another's eviction already removed is skipped)."""
    rng = random.Random(seed)
    trace = CycleTrace(new_cluster())
    step = trace.step
    big = Node("n1", resources_from({"cpu": 8000, "memory": 8192 * MIB, "pods": 20, EPHEMERAL_STORAGE: 4096 * MIB,
                                     GPU: 8}))
    step(ClusterAddNode(big))
    pods = [random_pod(rng, i) for i in range(rng.randint(5, 9))]
    for pod in pods:
        step(CreatePod(pod))
        step(SchedulePod(pod.uid, "n1"))
        step(BindPod(pod.uid))
        step(ConfirmBinding(pod.uid))
    small = resources_from({"cpu": rng.choice((600, 1000, 1500)), "memory": rng.choice((300, 600, 1000)) * MIB,
                            "pods": rng.choice((2, 3, 4, 6)), EPHEMERAL_STORAGE: rng.choice((300, 800)) * MIB,
                            GPU: rng.choice((1, 2, 3))})
    step(ClusterUpdateNode(Node("n1", small)))
    order = [p.uid for p in pods]
    rng.shuffle(order)
    for uid in order:
        if is_enabled(trace.cluster, AdmitPod(uid)):
            step(AdmitPod(uid))
    return trace.ops


def kubelet_scenarios() -> list[Scenario]:
    """One random kubelet trace per seed of :data:`SEEDS`, for every profile."""
    return [Scenario(f"random.cycle.kubelet.seed{seed}", f"Random kubelet admissions on a shrunk node (seed {seed}): "
                     "pods of several priorities and QoS classes; critical ones evict others",
                     random_kubelet_trace(seed), area="cycle", origin="random", profiles=ALL_PROFILES,
                     behaviours=("kubelet-random",))
            for seed in SEEDS]
