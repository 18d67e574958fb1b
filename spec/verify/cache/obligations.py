"""The cache's Z3 proof obligations.

For every abstract invariant ``I`` (:data:`spec.verify.cache.symbolic.INVARIANTS`):

- ``base/I``: the initial state (``new_cache`` with any TTL and profile) satisfies ``I``;
- ``step/T/I`` for every transition ``T``: from any well-typed state satisfying the invariants
  ``I`` may assume (the ALWAYS ones, or all of them plus the informer contract on ``T``'s
  arguments), a step of ``T`` that does not end the process leads to a state satisfying ``I``.

Together they prove the conjunction of the invariants inductive, for every state, every
quantity, every time and every TTL, within the bounds. In addition, ``expiry/CleanupAssumedPods``
proves the transition property :func:`~spec.cache.invariants.trans_expiry_only_after_finish_binding`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

import z3

from spec.verify.cache.symbolic import (
    ALWAYS,
    INVARIANTS,
    AbstractInvariant,
    AbstractState,
    Bounds,
    fresh_state,
    initial_state,
    invariants_with_premise,
    trans_expiry_only_after_finish_binding,
    well_typed,
)
from spec.verify.cache.transitions import TRANSITIONS, TransitionEncoding, args_in_domain, fresh_args
from spec.verify.obligations import Obligation, Query
from spec.verify.terms import Bool, not_


def _holds(invariants: tuple[AbstractInvariant, ...], state: AbstractState) -> tuple[Bool, ...]:
    return tuple(inv.formula(state) for inv in invariants)


def base_obligation(inv: AbstractInvariant, bounds: Bounds, init: Callable[..., AbstractState]) -> Obligation:
    def build() -> Query:
        ttl, expiry = z3.Int("ttl"), z3.Bool("expiry")
        start = init(bounds, ttl, expiry)
        return Query((well_typed(start),), inv.formula(start), start)

    return Obligation(f"base/{inv.name}", "base", inv.name, None, inv.premise, bounds, build)


def step_obligation(inv: AbstractInvariant, encoding: TransitionEncoding, bounds: Bounds) -> Obligation:
    def build() -> Query:
        pre = fresh_state(bounds, "pre")
        args = fresh_args(encoding, "op")
        step = encoding.apply(pre, args)
        hypotheses = [
            well_typed(pre),
            args_in_domain(encoding, args, bounds),
            *_holds(invariants_with_premise(inv.premise), pre),
            not_(step.fatal),
        ]
        if inv.premise != ALWAYS:
            hypotheses.append(encoding.contract(pre, args))
        return Query(tuple(hypotheses), inv.formula(step.post), step.post, pre, encoding.name, args)

    name = f"step/{encoding.name}/{inv.name}"
    return Obligation(name, "step", inv.name, encoding.name, inv.premise, bounds, build)


def expiry_obligation(encoding: TransitionEncoding, bounds: Bounds) -> Obligation:
    def build() -> Query:
        pre = fresh_state(bounds, "pre")
        args = fresh_args(encoding, "op")
        step = encoding.apply(pre, args)
        hypotheses = (
            well_typed(pre),
            *_holds(INVARIANTS, pre),
            not_(step.fatal),
            not_(step.error),
        )
        goal = trans_expiry_only_after_finish_binding(pre, step.post, args["now"])
        return Query(hypotheses, goal, step.post, pre, encoding.name, args)

    name = f"expiry/{encoding.name}/trans_expiry_only_after_finish_binding"
    return Obligation(
        name, "expiry", "trans_expiry_only_after_finish_binding", encoding.name, "every invariant", bounds, build
    )


def cache_obligations(
    bounds: Bounds = Bounds(),
    transitions: Mapping[str, TransitionEncoding] = TRANSITIONS,
    init: Callable[..., AbstractState] = initial_state,
) -> list[Obligation]:
    """Every cache obligation: base and step per invariant, and the expiry property.

    ``transitions`` and ``init`` are parameters so that tests can substitute broken ones.
    """
    result = [base_obligation(inv, bounds, init) for inv in INVARIANTS]
    for encoding in transitions.values():
        result.extend(step_obligation(inv, encoding, bounds) for inv in INVARIANTS)
    result.append(expiry_obligation(transitions["CleanupAssumedPods"], bounds))
    return result
