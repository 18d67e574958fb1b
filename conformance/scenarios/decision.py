"""Random traces of scheduling decisions: clusters whose nodes differ in every way a default Score plugin reads, and
pods that ask for every kind of preference, scheduled one after the other.

The cycle's curated vectors pin one rule each, with two or three nodes; these traces make many nodes feasible at
once, so each step's decision (every feasible node's per-plugin scores, their totals and the allowed hosts) tells a
wrong score, a wrong weight, a wrong normalisation or a wrong choice apart. Each trace adds four to seven nodes
(zones, regions, hostnames, a disk label, PreferNoSchedule and NoSchedule taints, cached images of several sizes,
different allocatable), then creates pods one by one, each with a random mix of requests, images, tolerations,
preferred and required pod affinity and anti-affinity, topology spread constraints (either ``whenUnsatisfiable``,
``minDomains``, the node inclusion policies, ``matchLabelKeys``) and a node selector (and, in the traces of
:data:`NODE_AFFINITY_SEEDS`, preferred node-affinity terms); the pod is placed on one of the
hosts the spec allows (bound, or left binding, or its binding failed) or its cycle fails, and now and then a pod is
deleted or a node relabelled. Which host among the allowed ones, and every other choice, comes from the seed; every
expected outcome comes from the spec (:func:`conformance.traces.expand`).
"""

from __future__ import annotations

import random
from dataclasses import replace
from typing import Final

from conformance.operations import (
    BindPod,
    ClusterAddNode,
    ClusterUpdateNode,
    ConfirmBinding,
    CreatePod,
    CycleOperation,
    DeletePod,
    FailBinding,
    FailScheduling,
    SchedulePod,
    cycle_decision,
    refreshed_snapshot,
)
from conformance.scenarios.cycle import MIB, CycleTrace
from conformance.traces import ALL_PROFILES, Scenario
from spec.cycle.cycle import FailurePoint, new_cluster
from spec.frozenmap import FrozenMap
from spec.objects import (
    DO_NOT_SCHEDULE,
    LABEL_HOSTNAME,
    LABEL_TOPOLOGY_ZONE,
    NODE_INCLUSION_HONOR,
    NODE_INCLUSION_IGNORE,
    NODE_NAME_FIELD,
    NODE_SELECTOR_GT,
    NODE_SELECTOR_LT,
    SCHEDULE_ANYWAY,
    SELECTOR_DOES_NOT_EXIST,
    SELECTOR_EXISTS,
    SELECTOR_IN,
    SELECTOR_NOT_IN,
    AffinityTerms,
    Container,
    ContainerImage,
    LabelSelector,
    LabelSelectorRequirement,
    Node,
    NodeSelectorRequirement,
    NodeSelectorTerm,
    Pod,
    PodAffinityTerm,
    PreferredSchedulingTerm,
    Taint,
    Toleration,
    TopologySpreadConstraint,
    WeightedPodAffinityTerm,
)
from spec.quantities import resource_list

SEEDS: Final = tuple(range(1, 17))
NODE_AFFINITY_SEEDS: Final = tuple(range(17, 23))
"""Seeds whose nodes also carry a numbered ``generation`` label and whose pods may have preferred node-affinity
terms (the first seeds' traces predate them and stay as they were)."""
PODS_PER_TRACE: Final = 14
ZONES: Final = ("zone-a", "zone-b", "zone-c")
REGION: Final = "region"
DISK: Final = "disk"
APPS: Final = ("web", "db", "cache")
IMAGES: Final = (("registry.k8s.io/pause:3.10", 40 * MIB), ("nginx:1.27", 300 * MIB), ("postgres:17", 900 * MIB),
                 ("example.com/big:v1", 2000 * MIB))
"""Image names and sizes: below ImageLocality's 23 MiB floor none is, one is near its 1000 MiB per-container cap."""
SPOT: Final = Taint("spot", "true", "PreferNoSchedule")
GPU: Final = Taint("gpu", "true", "PreferNoSchedule")
DEDICATED: Final = Taint("dedicated", "infra", "NoSchedule")
TOPOLOGY_KEYS: Final = (LABEL_HOSTNAME, LABEL_TOPOLOGY_ZONE, REGION)
GENERATION: Final = "generation"
"""A numbered node label, for node-affinity terms' ``Gt`` and ``Lt``."""


def random_node(rng: random.Random, index: int, numbered: bool = False) -> Node:
    """Node ``node-<index>``: a zone (or none), a region, a hostname, perhaps a disk label, taints and images; when
    ``numbered``, perhaps a :data:`GENERATION` label (1 to 5)."""
    name = f"node-{index}"
    labels = {LABEL_HOSTNAME: name, REGION: rng.choice(("r1", "r2"))}
    if numbered and rng.random() < 0.7:
        labels[GENERATION] = str(rng.randint(1, 5))
    if rng.random() < 0.85:
        labels[LABEL_TOPOLOGY_ZONE] = rng.choice(ZONES)
    if rng.random() < 0.5:
        labels[DISK] = rng.choice(("ssd", "hdd"))
    taints = tuple(t for t, p in ((SPOT, 0.3), (GPU, 0.15), (DEDICATED, 0.1)) if rng.random() < p)
    images = tuple(ContainerImage((image,), size) for image, size in IMAGES if rng.random() < 0.4)
    allocatable = resource_list(cpu=rng.choice((2000, 4000, 8000)), memory=rng.choice((4, 8, 16)) * 1024 * MIB,
                                pods=rng.choice((4, 8, 16)))
    return Node(name, allocatable, labels=FrozenMap(labels), taints=taints, images=images)


def _selector(rng: random.Random) -> LabelSelector:
    """A label selector over the pods' ``app`` and ``tier`` labels."""
    kind = rng.random()
    if kind < 0.5:
        return LabelSelector(FrozenMap({"app": rng.choice(APPS)}))
    if kind < 0.75:
        values = tuple(sorted(rng.sample(APPS, 2)))
        return LabelSelector(match_expressions=(LabelSelectorRequirement("app", rng.choice((SELECTOR_IN,
                                                                                           SELECTOR_NOT_IN)),
                                                                         values),))
    return LabelSelector(match_expressions=(LabelSelectorRequirement("tier", SELECTOR_EXISTS, ()),))


def _term(rng: random.Random) -> PodAffinityTerm:
    return PodAffinityTerm(_selector(rng), topology_key=rng.choice(TOPOLOGY_KEYS))


def _affinity(rng: random.Random, required: float) -> AffinityTerms | None:
    """Preferred terms (weights 1 to 100) and, with probability ``required``, a required term; None half the time."""
    if rng.random() < 0.5:
        return None
    preferred = tuple(WeightedPodAffinityTerm(rng.randint(1, 100), _term(rng)) for _ in range(rng.randint(0, 2)))
    required_terms = (_term(rng),) if rng.random() < required else ()
    if not preferred and not required_terms:
        return None
    return AffinityTerms(required_terms=required_terms, preferred_terms=preferred)


def _constraint(rng: random.Random) -> TopologySpreadConstraint:
    when = SCHEDULE_ANYWAY if rng.random() < 0.7 else DO_NOT_SCHEDULE
    return TopologySpreadConstraint(
        rng.randint(1, 2), rng.choice(TOPOLOGY_KEYS), when, _selector(rng),
        min_domains=rng.choice((None, 2, 3)) if when == DO_NOT_SCHEDULE else None,
        node_affinity_policy=rng.choice((None, NODE_INCLUSION_IGNORE)),
        node_taints_policy=rng.choice((None, None, NODE_INCLUSION_HONOR)),
        match_label_keys=("tier",) if rng.random() < 0.2 else ())


def _node_requirement(rng: random.Random) -> NodeSelectorRequirement:
    """An expression over the nodes' labels: zone, disk or region In or NotIn, Exists or DoesNotExist, or the
    generation Gt or Lt a number."""
    kind = rng.random()
    if kind < 0.4:
        key, values = rng.choice(((LABEL_TOPOLOGY_ZONE, ZONES), (DISK, ("ssd", "hdd")), (REGION, ("r1", "r2"))))
        return NodeSelectorRequirement(key, rng.choice((SELECTOR_IN, SELECTOR_NOT_IN)),
                                       tuple(sorted(rng.sample(values, rng.randint(1, 2)))))
    if kind < 0.6:
        return NodeSelectorRequirement(rng.choice((DISK, LABEL_TOPOLOGY_ZONE, GENERATION)),
                                       rng.choice((SELECTOR_EXISTS, SELECTOR_DOES_NOT_EXIST)))
    return NodeSelectorRequirement(GENERATION, rng.choice((NODE_SELECTOR_GT, NODE_SELECTOR_LT)),
                                   (str(rng.randint(0, 6)),))


def _preference(rng: random.Random) -> NodeSelectorTerm:
    """A node selector term: one or two expressions, perhaps a ``metadata.name`` field requirement (rarely only
    that, rarely nothing: an empty term scores nothing)."""
    fields = (NodeSelectorRequirement(NODE_NAME_FIELD, rng.choice((SELECTOR_IN, SELECTOR_NOT_IN)),
                                      (f"node-{rng.randint(0, 6)}",)),) if rng.random() < 0.2 else ()
    count = rng.choice((0, 1, 1, 1, 2, 2))
    return NodeSelectorTerm(tuple(_node_requirement(rng) for _ in range(count)), fields)


def _preferred_node_affinity(rng: random.Random) -> tuple[PreferredSchedulingTerm, ...] | None:
    """Preferred node-affinity terms (weights 1 to 100, now and then 0) half the time, else None (nil); now and
    then an empty list, which NodeAffinity's PreScore does not skip."""
    if rng.random() < 0.5:
        return None
    return tuple(PreferredSchedulingTerm(0 if rng.random() < 0.1 else rng.randint(1, 100), _preference(rng))
                 for _ in range(rng.choice((0, 1, 1, 2, 2, 3))))


def random_pod(rng: random.Random, index: int, node_affinity: bool = False) -> Pod:
    """Pod ``p<index>``: labels, one or two containers (requests, perhaps none; an image), perhaps pod-level
    requests, tolerations, affinity, anti-affinity, spread constraints and perhaps a node selector; with
    ``node_affinity``, perhaps preferred node-affinity terms."""
    labels = {"app": rng.choice(APPS)}
    if rng.random() < 0.6:
        labels["tier"] = rng.choice(("front", "back"))
    containers = []
    for c in range(rng.randint(1, 2)):
        cpu, memory = rng.choice((0, 100, 250, 500, 1000)), rng.choice((0, 64, 256, 1024)) * MIB
        requests = resource_list(cpu=cpu, memory=memory) if cpu or memory else FrozenMap()
        image = rng.choice((*(name for name, _ in IMAGES), ""))
        containers.append(Container(f"c{c}", requests, image=image))
    tolerations = tuple(Toleration(t.key, "Equal", t.value, t.effect)
                        for t, p in ((SPOT, 0.4), (GPU, 0.2), (DEDICATED, 0.2)) if rng.random() < p)
    spread = tuple(_constraint(rng) for _ in range(rng.choice((0, 0, 1, 1, 2))))
    node_selector = FrozenMap({DISK: "ssd"}) if rng.random() < 0.1 else FrozenMap()
    pod_level = resource_list(cpu=rng.choice((300, 1200)), memory=rng.choice((128, 512)) * MIB) \
        if rng.random() < 0.1 else FrozenMap()
    uid = f"p{index}"
    pod = Pod(uid, uid, containers=tuple(containers), labels=FrozenMap(labels), tolerations=tolerations,
              pod_level_requests=pod_level,
              pod_affinity=_affinity(rng, 0.15), pod_anti_affinity=_affinity(rng, 0.2),
              topology_spread_constraints=spread, node_selector=node_selector)
    if not node_affinity:
        return pod
    preferred = _preferred_node_affinity(rng)
    return replace(pod, has_node_affinity=preferred is not None, preferred_node_affinity=preferred)


def random_decision_trace(seed: int) -> list[CycleOperation]:
    """The trace of ``seed``: the nodes join, then :data:`PODS_PER_TRACE` pods are created and scheduled one by one
    (each onto a host the spec allows, picked by the seed, or its cycle fails), with deletions and relabelling."""
    rng = random.Random(seed)
    numbered = seed in NODE_AFFINITY_SEEDS
    trace = CycleTrace(new_cluster())
    step = trace.step
    nodes = [random_node(rng, i, numbered) for i in range(rng.randint(4, 7))]
    for node in nodes:
        step(ClusterAddNode(node))
    bound: list[str] = []
    for index in range(PODS_PER_TRACE):
        pod = random_pod(rng, index, numbered)
        step(CreatePod(pod))
        decision = cycle_decision(trace.cluster, refreshed_snapshot(trace.cluster), pod)
        if not decision.allowed:
            step(FailScheduling(pod.uid))
            continue
        step(SchedulePod(pod.uid, rng.choice(decision.allowed)))
        fate = rng.random()
        if fate < 0.8:
            step(BindPod(pod.uid))
            step(ConfirmBinding(pod.uid))
            bound.append(pod.uid)
        elif fate < 0.9:
            step(FailBinding(pod.uid, FailurePoint.BIND))
        if bound and rng.random() < 0.1:
            step(DeletePod(bound.pop(rng.randrange(len(bound)))))
        if rng.random() < 0.08:
            at = rng.randrange(len(nodes))
            nodes[at] = replace(nodes[at], labels=FrozenMap({**nodes[at].labels,
                                                             LABEL_TOPOLOGY_ZONE: rng.choice(ZONES)}))
            step(ClusterUpdateNode(nodes[at]))
    return trace.ops


def decision_scenarios() -> list[Scenario]:
    """One random decision trace per seed of :data:`SEEDS`, for every profile."""
    return [Scenario(f"random.cycle.decision.seed{seed}", f"Random scheduling decisions (seed {seed}): "
                     f"{PODS_PER_TRACE} pods with preferences of every kind on four to seven differing nodes",
                     random_decision_trace(seed), area="cycle", origin="random", profiles=ALL_PROFILES,
                     behaviours=("decision-random",))
            for seed in SEEDS] + [
        Scenario(f"random.cycle.decision.seed{seed}", f"Random scheduling decisions (seed {seed}): "
                 f"{PODS_PER_TRACE} pods with preferences of every kind, preferred node affinity among them, on four "
                 "to seven differing nodes", random_decision_trace(seed), area="cycle", origin="random",
                 profiles=ALL_PROFILES, behaviours=("decision-random",))
        for seed in NODE_AFFINITY_SEEDS]


# --------------------------------------------------------------------------------------------
# Node sampling: numFeasibleNodesToFind and nextStartNodeIndex
# --------------------------------------------------------------------------------------------


def _many_nodes(count: int) -> list[Node]:
    return [Node(f"node-{i:03d}", resource_list(cpu=1000, memory=1024 * MIB, pods=10),
                 labels=FrozenMap({LABEL_HOSTNAME: f"node-{i:03d}"})) for i in range(count)]


def _small_pod(uid: str, cpu: int = 100) -> Pod:
    return Pod(uid, uid, containers=(Container("c", resource_list(cpu=cpu, memory=64 * MIB)),))


def sampling_scenarios() -> list[Scenario]:
    """The search over 100 nodes or more: it stops after ``numFeasibleNodesToFind`` feasible nodes (100 of 120; the
    adaptive 48% of 250, 120), starts where the last cycle's search stopped (``nextStartNodeIndex``, moved past the
    rejected nodes too, and by a cycle that found no node), and only the nodes it found are scored."""
    nodes = _many_nodes(120)
    cordoned = [replace(n, unschedulable=True) for n in nodes[100:105]]
    rotate: list[CycleOperation] = [*(ClusterAddNode(n) for n in nodes)]
    rotate += [CreatePod(_small_pod("p1")), SchedulePod("p1", "node-000"), BindPod("p1"), ConfirmBinding("p1"),
               CreatePod(_small_pod("p2")), SchedulePod("p2", "node-100"),
               *(ClusterUpdateNode(n) for n in cordoned),
               CreatePod(_small_pod("p3")), SchedulePod("p3", "node-080"),
               CreatePod(_small_pod("huge", cpu=5000)), FailScheduling("huge"),
               CreatePod(_small_pod("p4")), SchedulePod("p4", "node-065")]
    many = _many_nodes(250)
    adaptive: list[CycleOperation] = [*(ClusterAddNode(n) for n in many)]
    adaptive += [CreatePod(_small_pod("p1")), SchedulePod("p1", "node-000"), CreatePod(_small_pod("p2")),
                 SchedulePod("p2", "node-120")]
    return [
        Scenario("cycle.sampling.start_index_rotates", "120 nodes: each search stops after 100 feasible nodes "
                 "(numFeasibleNodesToFind) and the next starts where it stopped (nextStartNodeIndex), moved past "
                 "rejected nodes too and by a cycle that found no node", rotate, area="cycle",
                 profiles=ALL_PROFILES, behaviours=("sampling",)),
        Scenario("cycle.sampling.adaptive_percentage", "250 nodes: the adaptive percentage (50 - 250/125 = 48%, "
                 "the division an integer one) makes the search stop after 120 feasible nodes (of 250 * 48 / 100), not "
                 "100; the next search starts at the 121st", adaptive,
                 area="cycle", profiles=ALL_PROFILES, behaviours=("sampling",)),
    ]
