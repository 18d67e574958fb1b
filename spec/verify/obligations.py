"""Z3 proof obligations: what one is, how it is discharged, and its counterexample.

An :class:`Obligation` names a :class:`Query`: hypotheses and a goal over symbolic states. It is
discharged by asking Z3 for a model of the hypotheses and the negated goal: none (unsat) proves it;
a model is a counterexample, printed as pre-state, operation and post-state.

The groups of obligations live in their own modules: the cache's (:mod:`spec.verify.cache.obligations`),
the dispatcher's (:mod:`spec.verify.dispatcher.obligations`), the scheduling pipeline's
(:mod:`spec.verify.cycle.obligations`: no node is overcommitted, with TTL 0) and the cluster's
(:mod:`spec.verify.cluster.obligations`: no pod bound twice, no kubelet over-commits). They build their
obligations from :class:`Obligation` and :class:`Query`, with their own state and its description;
:func:`spec.verify.proof_groups.all_obligations` lists them all. A counterexample of a query without its
own ``describe`` is described as a cache state.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Final

import z3

from spec.verify.cache.abstraction import describe, with_values
from spec.verify.cache.symbolic import map_state
from spec.verify.terms import Bool, not_

DEFAULT_TIMEOUT_MS: Final = 60_000
"""Per-obligation Z3 timeout; an obligation that times out is UNKNOWN, which fails ``ksspec prove``."""

PENDING: Final[tuple[tuple[str, str], ...]] = ()
"""Obligation groups the issue asks for that do not exist yet, with the reason (none left)."""


class Verdict(StrEnum):
    PROVED = "proved"
    REFUTED = "refuted"
    UNKNOWN = "unknown"


@dataclass(frozen=True)
class Query:
    """What Z3 is asked: hypotheses and a goal, plus the terms a counterexample shows."""

    hypotheses: tuple[Bool, ...]
    goal: Bool
    post: Any
    """The post-state (an :class:`AbstractState` or another system's abstract state)."""
    pre: Any | None = None
    operation: str = "new_cache"
    args: Mapping[str, Any] = field(default_factory=dict)
    evaluate: Callable[[Any, Callable[[Any], Any]], Any] = map_state
    """Applies a function to every term of a state (to read a counterexample off a model)."""
    describe: Callable[[Any], list[str]] | None = None
    """Lines describing a concrete state; None: the cache's :func:`describe` at the obligation's bounds."""


@dataclass(frozen=True)
class Obligation:
    """One named proof obligation."""

    name: str
    kind: str
    """``base``, ``step`` or ``expiry`` (cache); ``base``, ``step``, ``relevance`` or ``total`` (dispatcher);
    ``base`` or ``step`` (cycle)."""
    invariant: str
    transition: str | None
    premise: str
    """ALWAYS (no assumption on the operation) or UNDER_CONTRACT (the informer contract holds); for
    the other groups, what their obligations assume (e.g. the cycle's environment assumptions)."""
    bounds: Any
    """The cache's :class:`Bounds`, or the dispatcher's or the pipeline's bounds."""
    build: Callable[[], Query]
    group: str = "cache"


@dataclass(frozen=True)
class Counterexample:
    """A concrete pre-state, operation and post-state that violate an obligation."""

    obligation: str
    pre: Any | None
    operation: str
    post: Any
    describe: Callable[[Any], list[str]]

    def render(self) -> str:
        lines = [f"counterexample to {self.obligation}:"]
        if self.pre is None:
            lines.append("pre-state: none (the initial state)")
        else:
            lines.append("pre-state:")
            lines.extend(self.describe(self.pre))
        lines.append(f"operation: {self.operation}")
        lines.append("post-state:")
        lines.extend(self.describe(self.post))
        return "\n".join(lines)


@dataclass(frozen=True)
class Result:
    obligation: Obligation
    verdict: Verdict
    seconds: float
    counterexample: Counterexample | None = None
    reason: str = ""


# ============================================================================================
# Discharging
# ============================================================================================


def _value(model: z3.ModelRef, term: Any) -> Any:
    if isinstance(term, bool | int):
        return term
    value = model.eval(term, model_completion=True)
    if z3.is_true(value):
        return True
    if z3.is_false(value):
        return False
    return value.as_long()


def _args_text(model: z3.ModelRef, args: Mapping[str, Any]) -> str:
    values = {
        name: tuple(_value(model, t) for t in term) if isinstance(term, tuple) else _value(model, term)
        for name, term in args.items()
    }
    return with_values(values)


def goal_conjuncts(goal: Bool) -> list[Bool]:
    """The top-level conjuncts of ``goal``. Each is refuted separately, under the same hypotheses:
    the goal holds iff every conjunct does, and the small queries are several times faster."""
    if isinstance(goal, bool):
        return [goal]
    if z3.is_and(goal):
        return [c for child in goal.children() for c in goal_conjuncts(child)]
    return [goal]


def discharge(obligation: Obligation, timeout_ms: int = DEFAULT_TIMEOUT_MS) -> Result:
    """Ask Z3 for a counterexample to ``obligation``; time it."""
    started = time.perf_counter()
    query = obligation.build()
    solver = z3.Solver()
    solver.set("timeout", timeout_ms)
    solver.add(*query.hypotheses)
    model = None
    for conjunct in goal_conjuncts(query.goal):
        solver.push()
        solver.add(not_(conjunct))
        answer = solver.check()
        if answer == z3.unknown:
            reason = solver.reason_unknown()
            return Result(obligation, Verdict.UNKNOWN, time.perf_counter() - started, reason=reason)
        if answer == z3.sat:
            model = solver.model()
            break
        solver.pop()
    seconds = time.perf_counter() - started
    if model is None:
        return Result(obligation, Verdict.PROVED, seconds)
    describe_state = query.describe or (lambda state: describe(state, obligation.bounds))
    counterexample = Counterexample(
        obligation.name,
        None if query.pre is None else query.evaluate(query.pre, lambda t: _value(model, t)),
        f"{query.operation}({_args_text(model, query.args)})",
        query.evaluate(query.post, lambda t: _value(model, t)),
        describe_state,
    )
    return Result(obligation, Verdict.REFUTED, seconds, counterexample)


def discharge_all(
    obligations: list[Obligation],
    timeout_ms: int = DEFAULT_TIMEOUT_MS,
    on_result: Callable[[Result], None] | None = None,
) -> list[Result]:
    """Discharge every obligation in order, reporting each result as it comes."""
    results = []
    for obligation in obligations:
        result = discharge(obligation, timeout_ms)
        if on_result is not None:
            on_result(result)
        results.append(result)
    return results
