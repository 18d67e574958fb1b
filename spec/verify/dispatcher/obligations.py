"""The named Z3 proof obligations for the API dispatcher's call queue.

For every abstract invariant ``I`` (:data:`spec.verify.dispatcher.symbolic.QUEUE_INVARIANTS`):

- ``base/I``: ``new_call_queue`` (any profile, any relevances, any goroutine limit) satisfies ``I``;
- ``step/T/I`` for every call-queue operation ``T``: from any well-typed queue satisfying every
  invariant, an enabled step of ``T`` leads to a queue satisfying ``I``.

Together they prove the conjunction inductive. In addition:

- ``relevance/T/trans_more_relevant_call_never_dropped`` for every ``T``: a kept call is replaced
  only by a call at least as relevant, and an ``Add`` never removes a more relevant call;
- ``relevance/AddCall/trans_add_keeps_the_more_relevant_call``: after an ``Add``, the call kept
  for the UID is the old or the added (possibly merged) one, and at least as relevant as both;
- ``total/PopCall`` and ``total/FinishCall``: from a queue satisfying the invariants, an enabled
  pop or finish never misses the ``calls`` entry it reads (the spec would raise ``KeyError``).

Call contents, the FIFO's order and the relevance map are free in every obligation (see
:mod:`spec.verify.dispatcher.symbolic`), so the proofs hold for all of them.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

import z3

from spec.verify.dispatcher.abstraction import describe_queue
from spec.verify.dispatcher.symbolic import (
    QUEUE_INVARIANTS,
    DispatcherBounds,
    QueueInvariant,
    QueueState,
    fresh_queue,
    initial_queue,
    map_queue,
    trans_add_keeps_the_more_relevant_call,
    trans_more_relevant_call_never_dropped,
    well_typed_queue,
)
from spec.verify.dispatcher.transitions import (
    QUEUE_TRANSITIONS,
    QueueTransition,
    added_call,
    fresh_queue_args,
    queue_args_in_domain,
)
from spec.verify.obligations import Obligation, Query
from spec.verify.terms import Bool, not_

EVERY_INVARIANT = "every invariant"
GROUP = "dispatcher"

QueueInit = Callable[..., QueueState]


def _query(hypotheses: tuple[Bool, ...], goal: Bool, post: QueueState, **rest: object) -> Query:
    return Query(hypotheses, goal, post, evaluate=map_queue, describe=describe_queue, **rest)  # type: ignore[arg-type]


def _invariants(state: QueueState) -> tuple[Bool, ...]:
    return tuple(inv.formula(state) for inv in QUEUE_INVARIANTS)


def queue_base_obligation(inv: QueueInvariant, bounds: DispatcherBounds, init: QueueInit) -> Obligation:
    def build() -> Query:
        relevance = tuple(z3.Int(f"relevance[{t}]") for t in range(bounds.call_types))
        start = init(
            bounds, relevance, z3.Bool("close_notifies"), z3.Bool("waits_behind"), z3.Bool("has_limit"),
            z3.Int("limit"),
        )  # fmt: skip
        return _query((well_typed_queue(start),), inv.formula(start), start, operation="new_call_queue")

    return Obligation(f"base/{inv.name}", "base", inv.name, None, EVERY_INVARIANT, bounds, build, GROUP)


def _pre_step(
    transition: QueueTransition, bounds: DispatcherBounds
) -> tuple[QueueState, dict[str, object], list[Bool]]:
    """A symbolic pre-state satisfying every invariant, arguments in range, and the enabled step's hypotheses."""
    pre = fresh_queue(bounds, "pre")
    args = fresh_queue_args(transition, "op")
    hypotheses = [well_typed_queue(pre), queue_args_in_domain(transition, args, bounds), *_invariants(pre)]
    return pre, args, hypotheses


def queue_step_obligation(inv: QueueInvariant, transition: QueueTransition, bounds: DispatcherBounds) -> Obligation:
    def build() -> Query:
        pre, args, hypotheses = _pre_step(transition, bounds)
        step = transition.apply(pre, args)
        hypotheses += [step.enabled, not_(step.crash)]
        return _query(tuple(hypotheses), inv.formula(step.post), step.post, pre=pre, operation=transition.name,
                      args=args)  # fmt: skip

    name = f"step/{transition.name}/{inv.name}"
    return Obligation(name, "step", inv.name, transition.name, EVERY_INVARIANT, bounds, build, GROUP)


def never_dropped_obligation(transition: QueueTransition, bounds: DispatcherBounds) -> Obligation:
    def build() -> Query:
        pre, args, hypotheses = _pre_step(transition, bounds)
        step = transition.apply(pre, args)
        hypotheses += [step.enabled, not_(step.crash)]
        goal = trans_more_relevant_call_never_dropped(pre, step.post, added_call(transition.name, args))
        return _query(tuple(hypotheses), goal, step.post, pre=pre, operation=transition.name, args=args)

    invariant = trans_more_relevant_call_never_dropped.__name__
    name = f"relevance/{transition.name}/{invariant}"
    return Obligation(name, "relevance", invariant, transition.name, EVERY_INVARIANT, bounds, build, GROUP)


def keeps_more_relevant_obligation(transition: QueueTransition, bounds: DispatcherBounds) -> Obligation:
    def build() -> Query:
        pre, args, hypotheses = _pre_step(transition, bounds)
        step = transition.apply(pre, args)
        hypotheses += [step.enabled, not_(step.crash)]
        goal = trans_add_keeps_the_more_relevant_call(pre, step.post, args["uid"], args["type"])
        return _query(tuple(hypotheses), goal, step.post, pre=pre, operation=transition.name, args=args)

    invariant = trans_add_keeps_the_more_relevant_call.__name__
    name = f"relevance/{transition.name}/{invariant}"
    return Obligation(name, "relevance", invariant, transition.name, EVERY_INVARIANT, bounds, build, GROUP)


def total_obligation(transition: QueueTransition, bounds: DispatcherBounds) -> Obligation:
    def build() -> Query:
        pre, args, hypotheses = _pre_step(transition, bounds)
        step = transition.apply(pre, args)
        hypotheses.append(step.enabled)
        return _query(tuple(hypotheses), not_(step.crash), step.post, pre=pre, operation=transition.name, args=args)

    name = f"total/{transition.name}"
    return Obligation(name, "total", "no missing calls entry", transition.name, EVERY_INVARIANT, bounds, build, GROUP)


def dispatcher_obligations(
    bounds: DispatcherBounds = DispatcherBounds(),
    transitions: Mapping[str, QueueTransition] = QUEUE_TRANSITIONS,
    init: QueueInit = initial_queue,
) -> list[Obligation]:
    """Every dispatcher obligation; ``transitions`` and ``init`` are parameters so that tests can
    substitute broken ones."""
    result = [queue_base_obligation(inv, bounds, init) for inv in QUEUE_INVARIANTS]
    for transition in transitions.values():
        result.extend(queue_step_obligation(inv, transition, bounds) for inv in QUEUE_INVARIANTS)
    result.extend(never_dropped_obligation(t, bounds) for t in transitions.values())
    result.append(keeps_more_relevant_obligation(transitions["AddCall"], bounds))
    result.extend(total_obligation(transitions[name], bounds) for name in ("PopCall", "FinishCall"))
    return result
