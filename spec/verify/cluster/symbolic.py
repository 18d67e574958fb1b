"""The bounded abstract API server and kubelets the Z3 proofs of the cluster invariants reason about.

Two invariants of :mod:`spec.cluster.invariants` rest on an inductive argument small enough to prove for every
cluster within the bounds, whatever the schedulers do: :func:`~spec.cluster.invariants.inv_no_pod_bound_twice`
(the API server binds only an unbound pod) and :func:`~spec.cluster.invariants.inv_admitted_pods_fit_nodes` (a
kubelet admits a pod only if it fits beside the pods it admitted). Neither depends on the schedulers' caches,
queues or crashes: every scheduler step that is not a binding leaves the API server's pods, the nodes and the
kubelets' verdicts as they are, and a binding is the same step whoever asks for it (a binding cycle, a crashed
scheduler's orphaned request, another scheduler). So the abstraction keeps, for ``P`` pods and ``N`` nodes:

- per pod: its :class:`PodPhase` at the API server, the node it is bound to, whether its node's kubelet admitted
  it, how many bindings of it the API server accepted, and its requests of cpu and memory;
- per node: whether the API server has it, its allocatable cpu and memory, and its pod capacity.

The transitions (:data:`CLUSTER_TRANSITIONS`) are the API server's: a pod created, a binding accepted, a pod
deleted, a kubelet's verdict, a node added or changed (assuming its new allocatable and capacity still hold the
pods its kubelet admitted: the environment assumption of the kubelet-level invariant) or removed. What is
abstracted: the kubelet's checks other than NodeResourcesFit's (node selector, node name, host ports, NoExecute
taints) are a free argument of :data:`ADMIT_POD` (they can only reject more); ephemeral storage and scalar
resources (the abstraction represents clusters that request none); everything the schedulers keep in memory.

:func:`abstract_cluster` maps a concrete :class:`~spec.cycle.cycle.Cluster` (one scheduler's view) to this state, and
:func:`cluster_step_encoding` a concrete step to its encoded transition (or to none, for the steps that change
nothing here: a graceful deletion, a bind the API server refuses); ``tests/verify/cluster/test_proofs.py`` checks
both against the spec on reachable clusters, with and without graceful deletions.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from enum import IntEnum, StrEnum
from typing import Any, Final

import z3

from spec.cluster.invariants import inv_admitted_pods_fit_nodes as spec_admitted_pods_fit_nodes
from spec.cluster.invariants import inv_no_pod_bound_twice as spec_no_pod_bound_twice
from spec.cluster.kubelet import admission_failures, admitted_pods_on
from spec.cycle.cycle import Cluster, bind_refusal
from spec.resources import compute_pod_resource, resource_from_list
from spec.verify.terms import (
    Bool,
    Int,
    and_,
    count,
    fresh_constants,
    implies,
    in_range,
    ite,
    map_fields,
    not_,
    or_,
    pick,
    put,
)

CLUSTER_RESOURCES: Final = ("milli_cpu", "memory")
RESOURCES: Final = range(len(CLUSTER_RESOURCES))
DEFAULT_CLUSTER_PODS: Final = 3
DEFAULT_CLUSTER_NODES: Final = 2


class PodPhase(IntEnum):
    """A pod at the API server."""

    ABSENT = 0
    """The UID was never used."""
    UNBOUND = 1
    BOUND = 2
    GONE = 3
    """Deleted, or Failed (rejected by its kubelet); a UID is never reused."""


PHASES: Final = len(PodPhase)


@dataclass(frozen=True)
class ClusterBounds:
    """``pods`` pod UIDs and ``nodes`` node names."""

    pods: int = DEFAULT_CLUSTER_PODS
    nodes: int = DEFAULT_CLUSTER_NODES

    def __post_init__(self) -> None:
        if self.pods < 1 or self.nodes < 1:
            raise ValueError(f"bounds need at least one pod and one node name, got {self.pods} and {self.nodes}")

    def describe(self) -> str:
        return (f"P={self.pods} pods, N={self.nodes} node names, {len(CLUSTER_RESOURCES)} resources "
                f"({', '.join(CLUSTER_RESOURCES)}) and the pod count; any number of schedulers, crashes and "
                "restarts; requests, allocatables and capacities unbounded")


@dataclass(frozen=True)
class ApiState:
    """The abstract API server and kubelets. Fields hold Z3 terms (proofs) or bools and ints (concrete).
    Canonical values: an absent pod has node 0, no binding and no request; a node the API server does not have
    has allocatable and capacity 0."""

    phase: tuple[Int, ...]
    node: tuple[Int, ...]
    admitted: tuple[Bool, ...]
    binds: tuple[Int, ...]
    request: tuple[tuple[Int, ...], ...]
    present: tuple[Bool, ...]
    allocatable: tuple[tuple[Int, ...], ...]
    capacity: tuple[Int, ...]

    @property
    def pods(self) -> int:
        return len(self.phase)

    @property
    def nodes(self) -> int:
        return len(self.present)


def map_cluster(state: ApiState, leaf: Callable[[Any], Any]) -> ApiState:
    """Apply ``leaf`` to every term of ``state``."""
    return map_fields(state, leaf)


def fresh_cluster(bounds: ClusterBounds, tag: str) -> ApiState:
    """A state of fresh Z3 constants named ``tag.field[index]``."""
    pods, nodes = range(bounds.pods), range(bounds.nodes)

    def i(name: str) -> Int:
        return z3.Int(f"{tag}.{name}")

    return ApiState(
        phase=tuple(i(f"phase[{p}]") for p in pods),
        node=tuple(i(f"node[{p}]") for p in pods),
        admitted=tuple(z3.Bool(f"{tag}.admitted[{p}]") for p in pods),
        binds=tuple(i(f"binds[{p}]") for p in pods),
        request=tuple(tuple(i(f"request[{p}][{r}]") for r in RESOURCES) for p in pods),
        present=tuple(z3.Bool(f"{tag}.present[{n}]") for n in nodes),
        allocatable=tuple(tuple(i(f"allocatable[{n}][{r}]") for r in RESOURCES) for n in nodes),
        capacity=tuple(i(f"capacity[{n}]") for n in nodes),
    )


def initial_cluster(bounds: ClusterBounds) -> ApiState:
    """An API server with no pod and no node (``new_cluster``)."""
    zeros = (0,) * len(CLUSTER_RESOURCES)
    return ApiState(
        phase=(int(PodPhase.ABSENT),) * bounds.pods, node=(0,) * bounds.pods, admitted=(False,) * bounds.pods,
        binds=(0,) * bounds.pods, request=(zeros,) * bounds.pods, present=(False,) * bounds.nodes,
        allocatable=(zeros,) * bounds.nodes, capacity=(0,) * bounds.nodes,
    )


def admitted_on(s: ApiState, pod: int, node: Int) -> Bool:
    """Pod ``pod`` is bound to ``node`` and its kubelet admitted it."""
    return and_(s.admitted[pod], s.phase[pod] == int(PodPhase.BOUND), s.node[pod] == node)


def used(s: ApiState, node: Int) -> tuple[tuple[Int, ...], Int]:
    """What the pods ``node``'s kubelet admitted request together, and how many they are."""
    flags = [admitted_on(s, p, node) for p in range(s.pods)]
    totals = tuple(sum((ite(flags[p], s.request[p][r], 0) for p in range(s.pods)), 0) for r in RESOURCES)
    return totals, count(flags)


# ============================================================================================
# Invariants
# ============================================================================================


def inv_wf_cluster_abstraction(s: ApiState) -> Bool:
    """The abstraction is well formed: phases and nodes in range, amounts non-negative, canonical values where
    they apply (an absent or gone pod has node 0 and no request), and only a bound pod admitted."""
    clauses = []
    for p in range(s.pods):
        absent = or_(s.phase[p] == int(PodPhase.ABSENT), s.phase[p] == int(PodPhase.GONE))
        clauses += [
            in_range(s.phase[p], PHASES), in_range(s.node[p], s.nodes), s.binds[p] >= 0,
            *(q >= 0 for q in s.request[p]),
            implies(absent, and_(s.node[p] == 0, *(q == 0 for q in s.request[p]))),
            implies(s.admitted[p], s.phase[p] == int(PodPhase.BOUND)),
        ]
    for n in range(s.nodes):
        clauses += [s.capacity[n] >= 0, *(a >= 0 for a in s.allocatable[n]),
                    implies(not_(s.present[n]), and_(s.capacity[n] == 0, *(a == 0 for a in s.allocatable[n])))]
    return and_(*clauses)


def inv_bindings_match_phases(s: ApiState) -> Bool:
    """The API server accepted no binding of a pod that is absent or unbound, exactly one of a bound pod, and
    at most one of a pod gone (the auxiliary invariant that makes :func:`inv_no_pod_bound_twice` inductive)."""
    return and_(*(
        and_(implies(or_(s.phase[p] == int(PodPhase.ABSENT), s.phase[p] == int(PodPhase.UNBOUND)), s.binds[p] == 0),
             implies(s.phase[p] == int(PodPhase.BOUND), s.binds[p] == 1))
        for p in range(s.pods)
    ))


def inv_no_pod_bound_twice(s: ApiState) -> Bool:
    """Abstracts :func:`spec.cluster.invariants.inv_no_pod_bound_twice`: at most one binding per pod."""
    return and_(*(s.binds[p] <= 1 for p in range(s.pods)))


def inv_admitted_pods_fit_nodes(s: ApiState) -> Bool:
    """Abstracts :func:`spec.cluster.invariants.inv_admitted_pods_fit_nodes`: on every node the API server has,
    the pods its kubelet admitted fit its allocatable and capacity."""
    clauses = []
    for n in range(s.nodes):
        totals, number = used(s, n)
        clauses.append(implies(s.present[n], and_(number <= s.capacity[n],
                                                  *(totals[r] <= s.allocatable[n][r] for r in RESOURCES))))
    return and_(*clauses)


@dataclass(frozen=True)
class ClusterInvariant:
    """An invariant of the abstraction and the spec predicate it abstracts (None: the abstraction's own)."""

    formula: Callable[[ApiState], Bool]
    spec_predicate: Callable[[Cluster], bool] | None = None

    @property
    def name(self) -> str:
        return self.formula.__name__


CLUSTER_PROOF_INVARIANTS: Final = (
    ClusterInvariant(inv_wf_cluster_abstraction),
    ClusterInvariant(inv_bindings_match_phases),
    ClusterInvariant(inv_no_pod_bound_twice, spec_no_pod_bound_twice),
    ClusterInvariant(inv_admitted_pods_fit_nodes, spec_admitted_pods_fit_nodes),
)
"""The conjunction the proofs establish inductive."""


# ============================================================================================
# Transitions
# ============================================================================================


class Sort(StrEnum):
    POD = "pod"
    NODE = "node"
    FLAG = "flag"
    AMOUNT = "amount"


ClusterArgs = Mapping[str, Any]


@dataclass(frozen=True)
class ApiStep:
    """What one transition does: the post-state, its guard, and the environment assumption it needs."""

    post: ApiState
    enabled: Bool = True
    assumption: Bool = True


@dataclass(frozen=True)
class ClusterTransition:
    """One transition of the API server and the kubelets; ``functions`` are the spec functions it encodes."""

    name: str
    functions: tuple[str, ...]
    params: tuple[tuple[str, Sort], ...]
    apply: Callable[[ApiState, ClusterArgs], ApiStep]


def fresh_cluster_args(transition: ClusterTransition, tag: str) -> dict[str, Any]:
    return fresh_constants(transition.params, tag, Sort.FLAG)


def cluster_args_in_domain(transition: ClusterTransition, args: ClusterArgs, bounds: ClusterBounds) -> Bool:
    """Pods and nodes in range, amounts non-negative."""
    clauses = []
    for name, sort in transition.params:
        if sort is Sort.POD:
            clauses.append(in_range(args[name], bounds.pods))
        elif sort is Sort.NODE:
            clauses.append(in_range(args[name], bounds.nodes))
        elif sort is Sort.AMOUNT:
            clauses.append(args[name] >= 0)
    return and_(*clauses)


def _put_row(rows: tuple[tuple[Int, ...], ...], index: Int, row: tuple[Int, ...]) -> tuple[tuple[Int, ...], ...]:
    return tuple(tuple(ite(index == i, row[r], old[r]) for r in RESOURCES) for i, old in enumerate(rows))


def _row(rows: tuple[tuple[Int, ...], ...], index: Int) -> tuple[Int, ...]:
    return tuple(pick(tuple(row[r] for row in rows), index) for r in RESOURCES)


def create_pod(s: ApiState, a: ClusterArgs) -> ApiStep:
    """:func:`spec.cycle.cycle.create_pod`: a fresh UID, unscheduled."""
    request = tuple(a[name] for name in CLUSTER_RESOURCES)
    post = replace(s, phase=put(s.phase, a["pod"], int(PodPhase.UNBOUND)),
                   request=_put_row(s.request, a["pod"], request))
    return ApiStep(post, enabled=pick(s.phase, a["pod"]) == int(PodPhase.ABSENT))


def bind(s: ApiState, a: ClusterArgs) -> ApiStep:
    """:func:`spec.cycle.cycle.api_bind` (a binding cycle's bind, an orphaned request landing, another scheduler's):
    the pod must exist unbound, whatever its node's room. Wider than the spec: the API server also refuses to bind
    a pod being deleted (:func:`spec.cycle.cycle.bind_refusal`), which the abstraction does not track (a graceful
    deletion changes nothing it keeps), so the proofs cover that binding too."""
    pod = a["pod"]
    post = replace(s, phase=put(s.phase, pod, int(PodPhase.BOUND)), node=put(s.node, pod, a["node"]),
                   binds=put(s.binds, pod, pick(s.binds, pod) + 1))
    return ApiStep(post, enabled=pick(s.phase, pod) == int(PodPhase.UNBOUND))


def delete_pod(s: ApiState, a: ClusterArgs) -> ApiStep:
    """:func:`spec.cycle.cycle.delete_pod`: the pod is gone and its kubelet stops it."""
    pod = a["pod"]
    phase = pick(s.phase, pod)
    post = replace(_gone(s, pod, True), admitted=put(s.admitted, pod, False))
    return ApiStep(post, enabled=or_(phase == int(PodPhase.UNBOUND), phase == int(PodPhase.BOUND)))


def _gone(s: ApiState, pod: Int, condition: Bool) -> ApiState:
    """Where ``condition`` holds, the pod is gone: its phase GONE, its node and request the canonical 0."""
    return replace(
        s,
        phase=put(s.phase, pod, ite(condition, int(PodPhase.GONE), pick(s.phase, pod))),
        node=put(s.node, pod, ite(condition, 0, pick(s.node, pod))),
        request=_put_row(s.request, pod, tuple(ite(condition, 0, q) for q in _row(s.request, pod))),
    )


def admit_pod(s: ApiState, a: ClusterArgs) -> ApiStep:
    """:func:`spec.cluster.kubelet.admit_pod`: NodeResourcesFit's ``Fits`` against the admitted pods (the pod count
    first; a resource the pod requests none of is not checked) and ``others_pass`` (the other checks):
    admitted, or Failed (gone)."""
    pod, node = a["pod"], pick(s.node, a["pod"])
    totals, number = used(s, node)
    request, allocatable = _row(s.request, pod), _row(s.allocatable, node)
    fits = and_(number + 1 <= pick(s.capacity, node),
                *(or_(request[r] == 0, request[r] <= allocatable[r] - totals[r]) for r in RESOURCES))
    admitted = and_(fits, a["others_pass"])
    post = replace(_gone(s, pod, not_(admitted)), admitted=put(s.admitted, pod, admitted))
    enabled = and_(pick(s.phase, pod) == int(PodPhase.BOUND), not_(pick(s.admitted, pod)), pick(s.present, node))
    return ApiStep(post, enabled=enabled)


def set_node(s: ApiState, a: ClusterArgs) -> ApiStep:
    """:func:`spec.cycle.cycle.add_node` and :func:`spec.cycle.cycle.update_node`: the node's allocatable and capacity
    become the arguments, assuming they still hold what its kubelet admitted."""
    node = a["node"]
    allocatable = tuple(a[name] for name in CLUSTER_RESOURCES)
    totals, number = used(s, node)
    post = replace(s, present=put(s.present, node, True), allocatable=_put_row(s.allocatable, node, allocatable),
                   capacity=put(s.capacity, node, a["capacity"]))
    assumption = and_(number <= a["capacity"], *(totals[r] <= allocatable[r] for r in RESOURCES))
    return ApiStep(post, assumption=assumption)


def remove_node(s: ApiState, a: ClusterArgs) -> ApiStep:
    """:func:`spec.cycle.cycle.remove_node`: the API server no longer has the node; its pods stay bound."""
    node = a["node"]
    zeros = (0,) * len(CLUSTER_RESOURCES)
    post = replace(s, present=put(s.present, node, False), allocatable=_put_row(s.allocatable, node, zeros),
                   capacity=put(s.capacity, node, 0))
    return ApiStep(post, enabled=pick(s.present, node))


_AMOUNTS: Final = tuple((name, Sort.AMOUNT) for name in CLUSTER_RESOURCES)
CREATE_POD: Final = ClusterTransition("CreatePod", ("create_pod",), (("pod", Sort.POD), *_AMOUNTS), create_pod)
BIND: Final = ClusterTransition("Bind", ("bind_pod", "land_orphaned_bind"), (("pod", Sort.POD), ("node", Sort.NODE)),
                                bind)
DELETE_POD: Final = ClusterTransition("DeletePod", ("delete_pod",), (("pod", Sort.POD),), delete_pod)
ADMIT_POD: Final = ClusterTransition("AdmitPod", ("admit_pod",), (("pod", Sort.POD), ("others_pass", Sort.FLAG)),
                                     admit_pod)
SET_NODE: Final = ClusterTransition("SetNode", ("add_node", "update_node"),
                                    (("node", Sort.NODE), *_AMOUNTS, ("capacity", Sort.AMOUNT)), set_node)
REMOVE_NODE: Final = ClusterTransition("RemoveNode", ("remove_node",), (("node", Sort.NODE),), remove_node)
CLUSTER_TRANSITIONS: Final = {t.name: t for t in (CREATE_POD, BIND, DELETE_POD, ADMIT_POD, SET_NODE, REMOVE_NODE)}
"""Every transition of the abstraction, by name. Every other step of :mod:`spec.cycle.cycle`,
:mod:`spec.cluster.restart`
and :mod:`spec.cluster.kubelet` leaves the abstraction unchanged."""


# ============================================================================================
# The abstraction function
# ============================================================================================


@dataclass(frozen=True)
class ClusterNaming:
    """Which concrete pod UIDs and node names the abstract indices stand for."""

    pods: tuple[str, ...]
    nodes: tuple[str, ...]

    @property
    def bounds(self) -> ClusterBounds:
        return ClusterBounds(len(self.pods), len(self.nodes))


def _request(cluster: Cluster, uid: str) -> tuple[int, ...]:
    resource = compute_pod_resource(cluster.api_pods[uid]).resource
    return tuple(getattr(resource, name) for name in CLUSTER_RESOURCES)


def abstract_cluster(cluster: Cluster, naming: ClusterNaming) -> ApiState:
    """The abstraction of ``cluster``'s API server and kubelets over ``naming``; a pod bound to a node outside
    ``naming`` fails with ``ValueError``."""
    phase, node, request = [], [], []
    for uid in naming.pods:
        pod = cluster.api_pods.get(uid)
        if pod is None:
            gone = uid in cluster.deleted or uid in cluster.failed
            phase.append(int(PodPhase.GONE if gone else PodPhase.ABSENT))
            node.append(0)
            request.append((0,) * len(CLUSTER_RESOURCES))
            continue
        phase.append(int(PodPhase.BOUND if pod.node_name else PodPhase.UNBOUND))
        node.append(naming.nodes.index(pod.node_name) if pod.node_name else 0)
        request.append(_request(cluster, uid))
    zeros = (0,) * len(CLUSTER_RESOURCES)
    allocatable, capacity = [], []
    for name in naming.nodes:
        spec_node = cluster.nodes.get(name)
        if spec_node is None:
            allocatable.append(zeros)
            capacity.append(0)
            continue
        resource = resource_from_list(spec_node.allocatable)
        allocatable.append(tuple(getattr(resource, r) for r in CLUSTER_RESOURCES))
        capacity.append(resource.allowed_pod_number)
    return ApiState(
        phase=tuple(phase), node=tuple(node),
        admitted=tuple(uid in cluster.admitted and uid in cluster.api_pods for uid in naming.pods),
        binds=tuple(cluster.bind_count.get(uid, 0) for uid in naming.pods),
        request=tuple(request), present=tuple(name in cluster.nodes for name in naming.nodes),
        allocatable=tuple(allocatable), capacity=tuple(capacity),
    )


def kubelet_others_pass(cluster: Cluster, uid: str) -> bool:
    """Whether the kubelet's checks other than the resources' pass for pod ``uid`` (the free argument of
    :data:`ADMIT_POD`)."""
    pod = cluster.api_pods[uid]
    failures = admission_failures(pod, cluster.nodes[pod.node_name], admitted_pods_on(cluster, pod.node_name))
    return not [f for f in failures if not f.startswith("OutOf")]


def describe_api_state(state: ApiState) -> list[str]:
    """Lines describing a concrete abstract state (a counterexample's pre- or post-state)."""
    lines = []
    for p in range(state.pods):
        phase = PodPhase(state.phase[p]).name if 0 <= state.phase[p] < PHASES else f"phase {state.phase[p]}"
        request = ", ".join(f"{name}={q}" for name, q in zip(CLUSTER_RESOURCES, state.request[p], strict=True))
        where = f" on node {state.node[p]}" if state.phase[p] == int(PodPhase.BOUND) else ""
        admitted = ", admitted" if state.admitted[p] else ""
        lines.append(f"  pod {p}: {phase}{where}{admitted}, {state.binds[p]} binding(s), requests {request}")
    for n in range(state.nodes):
        allocatable = ", ".join(f"{name}={q}" for name, q in zip(CLUSTER_RESOURCES, state.allocatable[n], strict=True))
        present = "present" if state.present[n] else "absent"
        lines.append(f"  node {n}: {present}, allocatable {allocatable}, capacity {state.capacity[n]}")
    return lines


def cluster_step_encoding(
    name: str, args: tuple[Any, ...], cluster: Cluster, naming: ClusterNaming
) -> tuple[str, dict[str, Any]] | None:
    """The encoded transition and its arguments for the step ``name(cluster, *args)`` of :mod:`spec.cycle.cycle`,
    :mod:`spec.cluster.restart` or :mod:`spec.cluster.kubelet` taken in ``cluster`` (whose guard holds); None for a
    step that
    leaves the abstraction unchanged (a scheduler's own, an orphaned request lost or refused)."""
    if name == "create_pod":
        pod = args[0]
        resource = compute_pod_resource(pod).resource
        return "CreatePod", {"pod": naming.pods.index(pod.uid),
                             **{r: getattr(resource, r) for r in CLUSTER_RESOURCES}}
    if name in ("bind_pod", "land_orphaned_bind"):
        uid = args[0]
        request = cluster.binding.get(uid) if name == "bind_pod" else cluster.orphaned.get(uid)
        current = cluster.api_pods.get(uid)
        if request is None or current is None or current.node_name or bind_refusal(current) is not None:
            return None  # refused: Conflict, NotFound, or the pod is being deleted
        return "Bind", {"pod": naming.pods.index(uid), "node": naming.nodes.index(request.node_name)}
    if name == "delete_pod":
        return "DeletePod", {"pod": naming.pods.index(args[0])}
    if name == "admit_pod":
        return "AdmitPod", {"pod": naming.pods.index(args[0]), "others_pass": kubelet_others_pass(cluster, args[0])}
    if name in ("add_node", "update_node"):
        resource = resource_from_list(args[0].allocatable)
        return "SetNode", {"node": naming.nodes.index(args[0].name), "capacity": resource.allowed_pod_number,
                           **{r: getattr(resource, r) for r in CLUSTER_RESOURCES}}
    if name == "remove_node":
        return "RemoveNode", {"node": naming.nodes.index(args[0])}
    return None
