"""The named Z3 proof obligations for the scheduling pipeline: no node is ever overcommitted.

For every abstract invariant ``I`` of :data:`spec.verify.cycle.symbolic.PIPELINE_INVARIANTS`
(the abstraction's well-formedness, the cache's books matching the pipeline, and the headline
:func:`~spec.verify.cycle.symbolic.inv_no_node_overcommitted`):

- ``base/I``: ``new_cluster`` (TTL 0, any profile) satisfies ``I``;
- ``step/T/I`` for every pipeline transition ``T`` (:data:`spec.verify.cycle.transitions.PIPELINE_TRANSITIONS`):
  from any pipeline satisfying every invariant, a step of ``T`` whose guard holds, and whose
  environment assumption holds (node events: allocatable never shrinks under the node's pods),
  leads to a pipeline satisfying ``I``.

Together they prove the conjunction inductive, so every cluster the pipeline reaches with TTL 0
satisfies it, for every request, allocatable and capacity, every order of events, every choice
the filters make, every graceful deletion (:func:`spec.cycle.cycle.terminate_pod`: a terminating pod's binding
refused, the pod skipped once popped), and both behaviours of deleting an assumed pod or setting its
``DeletionTimestamp`` (v1.34 and v1.35).

The obligations are built from the cache's :class:`~spec.verify.obligations.Obligation` and
:class:`~spec.verify.obligations.Query` and discharged the same way (``ksspec prove``, group ``cycle``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Final

import z3

from spec.verify.cycle.abstraction import describe_pipeline
from spec.verify.cycle.symbolic import (
    PIPELINE_INVARIANTS,
    CycleBounds,
    PipelineInvariant,
    PipelineState,
    fresh_pipeline,
    initial_pipeline,
    map_pipeline,
)
from spec.verify.cycle.transitions import (
    PIPELINE_TRANSITIONS,
    PipelineTransition,
    cycle_args_in_domain,
    fresh_cycle_args,
)
from spec.verify.obligations import Obligation, Query
from spec.verify.terms import Bool

GROUP: Final = "cycle"
PREMISE: Final = "TTL 0; allocatable never shrinks under its pods"
"""What every cycle obligation assumes besides the invariants (the headline's docstring states both)."""

PipelineInit = Callable[[CycleBounds, Bool], PipelineState]


def _query(hypotheses: tuple[Bool, ...], goal: Bool, post: PipelineState, **rest: object) -> Query:
    return Query(hypotheses, goal, post, evaluate=map_pipeline, describe=describe_pipeline, **rest)  # type: ignore[arg-type]


def pipeline_base_obligation(inv: PipelineInvariant, bounds: CycleBounds, init: PipelineInit) -> Obligation:
    """``base/I``: the initial pipeline, with either behaviour on deletion, satisfies ``inv``; fails
    (is refuted) if ``init`` builds a state that violates it."""

    def build() -> Query:
        start = init(bounds, z3.Bool("forget_on_delete"))
        return _query((), inv.formula(start), start, operation="new_cluster")

    return Obligation(f"base/{inv.name}", "base", inv.name, None, PREMISE, bounds, build, GROUP)


def pipeline_step_obligation(inv: PipelineInvariant, transition: PipelineTransition, bounds: CycleBounds) -> Obligation:
    """``step/T/I``: an enabled step of ``transition`` whose assumption holds, from a pipeline
    satisfying every invariant, satisfies ``inv``; refuted by a step that breaks it."""

    def build() -> Query:
        pre = fresh_pipeline(bounds, "pre")
        args = fresh_cycle_args(transition, "op")
        step = transition.apply(pre, args)
        hypotheses = (
            cycle_args_in_domain(transition, args, bounds),
            *(i.formula(pre) for i in PIPELINE_INVARIANTS),
            step.enabled,
            step.assumption,
        )
        return _query(hypotheses, inv.formula(step.post), step.post, pre=pre, operation=transition.name, args=args)

    name = f"step/{transition.name}/{inv.name}"
    return Obligation(name, "step", inv.name, transition.name, PREMISE, bounds, build, GROUP)


def cycle_obligations(
    bounds: CycleBounds = CycleBounds(),
    transitions: Mapping[str, PipelineTransition] = PIPELINE_TRANSITIONS,
    init: PipelineInit = initial_pipeline,
) -> list[Obligation]:
    """Every pipeline obligation: base and step per invariant. ``transitions`` and ``init`` are
    parameters so that tests can substitute broken ones."""
    result = [pipeline_base_obligation(inv, bounds, init) for inv in PIPELINE_INVARIANTS]
    for transition in transitions.values():
        result.extend(pipeline_step_obligation(inv, transition, bounds) for inv in PIPELINE_INVARIANTS)
    return result
