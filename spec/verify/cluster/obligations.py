"""The named Z3 proof obligations for the cluster: no pod is bound twice, and no kubelet over-commits its node.

For every invariant ``I`` of :data:`spec.verify.cluster.symbolic.CLUSTER_PROOF_INVARIANTS`:

- ``base/I``: the empty API server satisfies ``I``;
- ``step/T/I`` for every transition ``T`` of :data:`spec.verify.cluster.symbolic.CLUSTER_TRANSITIONS`: from any
  state satisfying every invariant, an enabled step of ``T`` whose environment assumption holds (a node's new
  allocatable and capacity still hold the pods its kubelet admitted) satisfies ``I``.

Every other step of the cluster (scheduling and binding cycles but the bind, informer deliveries, crashes,
restarts, an orphaned request lost) leaves the abstraction unchanged, so together these prove both invariants
for every cluster within the bounds, with any number of schedulers, crashes and late bind requests, every
request, allocatable and capacity, and every verdict of the kubelet's other checks (``ksspec prove``, group
``cluster``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Final

from spec.verify.cluster.symbolic import (
    CLUSTER_PROOF_INVARIANTS,
    CLUSTER_TRANSITIONS,
    ApiState,
    ClusterBounds,
    ClusterInvariant,
    ClusterTransition,
    cluster_args_in_domain,
    describe_api_state,
    fresh_cluster,
    fresh_cluster_args,
    initial_cluster,
    map_cluster,
)
from spec.verify.obligations import Obligation, Query
from spec.verify.terms import Bool

GROUP: Final = "cluster"
PREMISE: Final = "allocatable never shrinks under admitted pods"
"""What every cluster obligation assumes besides the invariants."""


def _query(hypotheses: tuple[Bool, ...], goal: Bool, post: ApiState, **rest: object) -> Query:
    return Query(hypotheses, goal, post, evaluate=map_cluster, describe=describe_api_state, **rest)  # type: ignore[arg-type]


def cluster_base_obligation(
    inv: ClusterInvariant, bounds: ClusterBounds, init: Callable[[ClusterBounds], ApiState]
) -> Obligation:
    """``base/I``: the empty API server satisfies ``inv``."""

    def build() -> Query:
        start = init(bounds)
        return _query((), inv.formula(start), start, operation="new_cluster")

    return Obligation(f"base/{inv.name}", "base", inv.name, None, PREMISE, bounds, build, GROUP)


def cluster_step_obligation(inv: ClusterInvariant, transition: ClusterTransition, bounds: ClusterBounds) -> Obligation:
    """``step/T/I``: an enabled step of ``transition`` whose assumption holds, from a state satisfying every
    invariant, satisfies ``inv``."""

    def build() -> Query:
        pre = fresh_cluster(bounds, "pre")
        args = fresh_cluster_args(transition, "op")
        step = transition.apply(pre, args)
        hypotheses = (
            cluster_args_in_domain(transition, args, bounds),
            *(i.formula(pre) for i in CLUSTER_PROOF_INVARIANTS),
            step.enabled,
            step.assumption,
        )
        return _query(hypotheses, inv.formula(step.post), step.post, pre=pre, operation=transition.name, args=args)

    name = f"step/{transition.name}/{inv.name}"
    return Obligation(name, "step", inv.name, transition.name, PREMISE, bounds, build, GROUP)


def cluster_obligations(
    bounds: ClusterBounds = ClusterBounds(),
    transitions: Mapping[str, ClusterTransition] = CLUSTER_TRANSITIONS,
    init: Callable[[ClusterBounds], ApiState] = initial_cluster,
) -> list[Obligation]:
    """Every cluster obligation: base and step per invariant. ``transitions`` and ``init`` are parameters so
    that tests can substitute broken ones."""
    result = [cluster_base_obligation(inv, bounds, init) for inv in CLUSTER_PROOF_INVARIANTS]
    for transition in transitions.values():
        result.extend(cluster_step_obligation(inv, transition, bounds) for inv in CLUSTER_PROOF_INVARIANTS)
    return result
