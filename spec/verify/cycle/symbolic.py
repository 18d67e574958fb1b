"""The bounded abstract scheduling pipeline the Z3 proof of "no node overcommitted" reasons about.

:func:`spec.cycle.invariants.inv_no_node_overcommitted` is the pipeline's headline: on every node,
the pods the scheduler assumed or bound there fit its allocatable, and their number fits its pod
capacity. The model checker (``ksspec check --system cycle``) checks it on a few small clusters;
the obligations of :mod:`spec.verify.cycle.obligations` prove it for every cluster within the
bounds, every request and every allocatable, with two restrictions that its docstring states:

- **TTL 0** (the production value since k8s #106361): no assumed pod ever expires. With a non-zero
  TTL the property is a known violation (an expired assumption confirmed late), so there is
  nothing to prove; the abstraction has no clock and ``Tick`` changes nothing.
- **The environment assumptions**: (1) a node's allocatable never shrinks under its pods, which
  ``AddNode`` and ``UpdateNode`` assume (:mod:`spec.verify.cycle.transitions`); (2) every pod on a
  node was placed by this scheduler, which :func:`spec.cycle.cycle.create_pod` already guarantees (a
  created pod is unscheduled, and only a binding cycle gives it a node).

The abstraction keeps, for each of ``P`` pods and ``N`` node names:

- per pod, its **stage** in the pipeline (:class:`Stage`), whether it is **terminating** (its graceful deletion,
  :func:`spec.cycle.cycle.terminate_pod`, set its ``DeletionTimestamp``), the node its binding cycle or binding
  names, and its requests of the two resources the filter checks here (cpu and memory);
- per node, whether the cache has it live (a NodeInfo with a node), its allocatable cpu and memory
  and its pod capacity (``AllowedPodNumber``), and what the cache's NodeInfo holds: Requested cpu
  and memory and the number of pods;
- whether deleting an assumed pod, or setting its ``DeletionTimestamp``, forgets it at once (profile
  ``forget_assumed_pod_on_delete``, PR #134157, v1.35); symbolic, so the proofs cover v1.34 and later.

Requested and the pod count are the cache's own fields, not sums computed from the stages:
that they *are* the sums over the pods the pipeline placed on the node is the auxiliary
invariant :func:`inv_requested_is_sum_of_placed_pods`, proved alongside the headline. A binding
that fails without ``ForgetPod`` keeps the headline true (the node only looks fuller) but breaks
that invariant; ``tests/verify/cycle/test_proofs_can_fail.py`` shows Z3 finding it.

What is abstracted away: pod and node identities beyond their index, the filters other than
NodeResourcesFit (they only restrict where a pod may go, so they are a free argument of
``SchedulePod``), ephemeral storage and scalar resources (the abstraction represents only
clusters that request none), the API server's objects beyond what the stage says, the snapshot
(``schedule_pod`` refreshes it from the cache first, :func:`spec.cycle.cycle.refreshed_snapshot`, so the fit
check reads the cache's NodeInfo), generations, ports, images and time.

``tests/verify/cycle/test_encoding_agrees.py`` checks the abstraction and every encoded
transition against :mod:`spec.cycle.cycle` on concrete clusters.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from enum import IntEnum
from typing import Any, Final

import z3

from spec.cycle import invariants as cycle_invariants
from spec.cycle.cycle import Cluster
from spec.verify.terms import Bool, Int, and_, count, implies, in_range, ite, map_fields, not_, or_, select_fields

CYCLE_RESOURCES: Final = ("milli_cpu", "memory")
"""The resources of a pod's request and a node's allocatable the abstraction keeps (``Resource`` fields)."""

DEFAULT_CYCLE_PODS: Final = 4
DEFAULT_CYCLE_NODES: Final = 3


class Stage(IntEnum):
    """Where a pod is in the pipeline (:class:`spec.cycle.cycle.Cluster` puts each pod in one place)."""

    ABSENT = 0
    """The UID was never used."""
    PENDING = 1
    """In the scheduling queue (``Cluster.pending``)."""
    BINDING = 2
    """Assumed in the cache, its binding cycle in flight, the API server's pod unbound."""
    ORPHANED = 3
    """Its binding cycle in flight, but the pod was deleted meanwhile (forgotten at once from v1.35)."""
    UNCONFIRMED = 4
    """Bound at the API server; still assumed in the cache, the informer's event not yet arrived."""
    CONFIRMED = 5
    """Bound, and the informer's ``AddPod`` confirmed it in the cache."""
    DELETED = 6
    """Deleted, with no binding cycle left; a UID is never reused."""
    SKIPPED = 7
    """Terminating, popped and skipped by ``ScheduleOne`` (:func:`spec.cycle.cycle.skip_pod`): the API server still
    lists it, unbound, and no cycle will take it again; only its deletion follows."""


STAGES: Final = len(Stage)


@dataclass(frozen=True)
class CycleBounds:
    """The size of the bounded universe: ``pods`` pod UIDs and ``nodes`` node names."""

    pods: int = DEFAULT_CYCLE_PODS
    nodes: int = DEFAULT_CYCLE_NODES

    def __post_init__(self) -> None:
        if self.pods < 1 or self.nodes < 1:
            raise ValueError(f"bounds need at least one pod and one node name, got {self.pods} and {self.nodes}")

    def describe(self) -> str:
        return (
            f"P={self.pods} pods, N={self.nodes} node names, {len(CYCLE_RESOURCES)} resources "
            f"({', '.join(CYCLE_RESOURCES)}) and the pod count; TTL 0; requests, allocatables and capacities "
            "unbounded"
        )


@dataclass(frozen=True)
class PipelineState:
    """One abstract pipeline. Fields hold Z3 terms (in proofs) or bools and ints (on concrete clusters).

    ``[p]`` indexes pods, ``[n]`` nodes, ``[..][r]`` :data:`CYCLE_RESOURCES`. Canonical values: a pod
    that is absent, pending, skipped or deleted has node 0; an absent or deleted pod requests 0 and, like an
    orphaned one, is not terminating; a node that is not live has allocatable and capacity 0; a node without
    NodeInfo has Requested and count 0.
    """

    forget_on_delete: Bool
    """Profile ``forget_assumed_pod_on_delete``; never changed by a transition."""
    stage: tuple[Int, ...]
    """The pod's :class:`Stage`."""
    terminating: tuple[Bool, ...]
    """The API server's pod has its ``DeletionTimestamp`` set (``Pod.terminating``); False for a pod it does not
    list (absent, orphaned or deleted)."""
    node: tuple[Int, ...]
    """The node its binding cycle assumed it on, or it is bound to."""
    request: tuple[tuple[Int, ...], ...]
    """The pod's requests (``compute_pod_resource``)."""
    live: tuple[Bool, ...]
    """The cache has a NodeInfo with a node under this name."""
    allocatable: tuple[tuple[Int, ...], ...]
    """That node's allocatable."""
    capacity: tuple[Int, ...]
    """That node's ``AllowedPodNumber``."""
    requested: tuple[tuple[Int, ...], ...]
    """The cache NodeInfo's Requested (ghost NodeInfos included)."""
    pod_count: tuple[Int, ...]
    """How many pods the cache NodeInfo holds."""

    @property
    def pods(self) -> int:
        return len(self.stage)

    @property
    def nodes(self) -> int:
        return len(self.live)


def map_pipeline(state: PipelineState, leaf: Callable[[Any], Any]) -> PipelineState:
    """Apply ``leaf`` to every term of ``state``."""
    return map_fields(state, leaf)


def select_pipeline(condition: Bool, then: PipelineState, otherwise: PipelineState) -> PipelineState:
    """The state ``then`` where ``condition`` holds, else ``otherwise``, field by field."""
    return select_fields(condition, then, otherwise)


def fresh_pipeline(bounds: CycleBounds, tag: str) -> PipelineState:
    """An abstract pipeline of fresh Z3 constants named ``tag.field[index]``."""
    pods, nodes, res = range(bounds.pods), range(bounds.nodes), range(len(CYCLE_RESOURCES))

    def i(name: str) -> Int:
        return z3.Int(f"{tag}.{name}")

    return PipelineState(
        forget_on_delete=z3.Bool(f"{tag}.forget_on_delete"),
        stage=tuple(i(f"stage[{p}]") for p in pods),
        terminating=tuple(z3.Bool(f"{tag}.terminating[{p}]") for p in pods),
        node=tuple(i(f"node[{p}]") for p in pods),
        request=tuple(tuple(i(f"request[{p}][{r}]") for r in res) for p in pods),
        live=tuple(z3.Bool(f"{tag}.live[{n}]") for n in nodes),
        allocatable=tuple(tuple(i(f"allocatable[{n}][{r}]") for r in res) for n in nodes),
        capacity=tuple(i(f"capacity[{n}]") for n in nodes),
        requested=tuple(tuple(i(f"requested[{n}][{r}]") for r in res) for n in nodes),
        pod_count=tuple(i(f"pod_count[{n}]") for n in nodes),
    )


def initial_pipeline(bounds: CycleBounds, forget_on_delete: Bool) -> PipelineState:
    """``new_cluster(profile, ttl=0)``: no pod created, no node added, an empty cache."""
    zeros = (0,) * len(CYCLE_RESOURCES)
    return PipelineState(
        forget_on_delete=forget_on_delete,
        stage=(int(Stage.ABSENT),) * bounds.pods,
        terminating=(False,) * bounds.pods,
        node=(0,) * bounds.pods,
        request=(zeros,) * bounds.pods,
        live=(False,) * bounds.nodes,
        allocatable=(zeros,) * bounds.nodes,
        capacity=(0,) * bounds.nodes,
        requested=(zeros,) * bounds.nodes,
        pod_count=(0,) * bounds.nodes,
    )


def is_stage(s: PipelineState, pod: int, *stages: Stage) -> Bool:
    """The pod's stage is one of ``stages``."""
    return or_(*(s.stage[pod] == int(stage) for stage in stages))


def held(s: PipelineState, pod: int) -> Bool:
    """The cache holds the pod on its node: assumed (binding or awaiting confirmation) or confirmed,
    but not once deleted or made terminating while binding in a profile that forgets it then (v1.35)."""
    return held_by_stage(s.forget_on_delete, s.stage[pod], s.terminating[pod])


def held_by_stage(forget_on_delete: Bool, stage: Int, terminating: Bool) -> Bool:
    """:func:`held` for a pod at ``stage``, ``terminating`` or not (the terms may be symbolic)."""
    deleting_while_binding = or_(stage == int(Stage.ORPHANED), and_(stage == int(Stage.BINDING), terminating))
    return or_(
        and_(stage == int(Stage.BINDING), not_(terminating)),
        stage == int(Stage.UNCONFIRMED),
        stage == int(Stage.CONFIRMED),
        and_(deleting_while_binding, not_(forget_on_delete)),
    )


def placed_on(s: PipelineState, pod: int, node: int) -> Bool:
    """The pipeline placed the pod on ``node`` and the cache holds it there."""
    return and_(held(s, pod), s.node[pod] == node)


# ============================================================================================
# Invariants
# ============================================================================================


def inv_wf_pipeline_abstraction(s: PipelineState) -> Bool:
    """The abstraction is well formed: stages and nodes in range, requests, allocatables and
    capacities non-negative, and the canonical values of :class:`PipelineState` where they apply."""
    clauses = []
    for p in range(s.pods):
        clauses += [
            in_range(s.stage[p], STAGES),
            in_range(s.node[p], s.nodes),
            implies(is_stage(s, p, Stage.ABSENT, Stage.PENDING, Stage.SKIPPED, Stage.DELETED), s.node[p] == 0),
            implies(s.terminating[p], is_stage(s, p, Stage.PENDING, Stage.BINDING, Stage.CONFIRMED, Stage.SKIPPED)),
            implies(is_stage(s, p, Stage.SKIPPED), s.terminating[p]),
            *(q >= 0 for q in s.request[p]),
            *(implies(is_stage(s, p, Stage.ABSENT, Stage.DELETED), q == 0) for q in s.request[p]),
        ]
    for n in range(s.nodes):
        clauses += [
            s.capacity[n] >= 0,
            *(a >= 0 for a in s.allocatable[n]),
            implies(not_(s.live[n]), and_(s.capacity[n] == 0, *(a == 0 for a in s.allocatable[n]))),
        ]
    return and_(*clauses)


def inv_requested_is_sum_of_placed_pods(s: PipelineState) -> Bool:
    """The cache's books match the pipeline: every NodeInfo's Requested is the sum of the requests of
    the pods the pipeline placed on that node and the cache holds (:func:`held`), and its pod count
    is their number.

    It combines the cache's :func:`~spec.cache.invariants.inv_requested_is_sum_of_pods` with the
    pipeline's :func:`~spec.cycle.invariants.inv_assumed_pods_have_a_binding` and
    :func:`~spec.cycle.invariants.inv_bound_pods_are_cached_where_bound`, at the level of sums.
    """
    clauses = []
    for n in range(s.nodes):
        on = [placed_on(s, p, n) for p in range(s.pods)]
        clauses.append(s.pod_count[n] == count(on))
        for r in range(len(CYCLE_RESOURCES)):
            total = sum((ite(on[p], s.request[p][r], 0) for p in range(s.pods)), 0)
            clauses.append(s.requested[n][r] == total)
    return and_(*clauses)


def inv_no_node_overcommitted(s: PipelineState) -> Bool:
    """Abstracts :func:`spec.cycle.invariants.inv_no_node_overcommitted`: on every live node,
    Requested is at most allocatable for each resource, and the pod count at most the capacity."""
    return and_(
        *(
            implies(
                s.live[n],
                and_(
                    s.pod_count[n] <= s.capacity[n],
                    *(s.requested[n][r] <= s.allocatable[n][r] for r in range(len(CYCLE_RESOURCES))),
                ),
            )
            for n in range(s.nodes)
        )
    )


@dataclass(frozen=True)
class PipelineInvariant:
    """An invariant of the abstract pipeline and the spec predicate it abstracts (None: the
    abstraction's own, checked on reachable clusters instead)."""

    formula: Callable[[PipelineState], Bool]
    spec_predicate: Callable[[Cluster], bool] | None = None
    headline: str = ""

    @property
    def name(self) -> str:
        return self.formula.__name__


PIPELINE_INVARIANTS: Final = (
    PipelineInvariant(inv_wf_pipeline_abstraction),
    PipelineInvariant(inv_requested_is_sum_of_placed_pods),
    PipelineInvariant(inv_no_node_overcommitted, cycle_invariants.inv_no_node_overcommitted, "no node overcommitted"),
)
"""The conjunction the proofs establish inductive: well-formedness, the books, and the headline."""
