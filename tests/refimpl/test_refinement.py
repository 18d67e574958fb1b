"""Refinement: on every sequence of operations, refimpl behaves exactly as the spec says.

Each state machine applies every generated operation, valid and invalid, to the spec
(:func:`spec.cache.operations.apply`)
and to a refimpl :class:`~refimpl.cache.Cache`, then requires the same outcome (status, error kind and message) and
the same observable state: ``dump`` (pods and every NodeInfo field, generations included), counts, pod states, the
most-recently-updated order, the node tree, the global image states, the metrics, and the whole snapshot including
list order. Clock advances and the cleanup worker's ticks (which read the clock) are operations too.

``ContractRefinementMachine`` issues what an informer and scheduler could issue (the operations the spec's
``follows_informer_contract`` accepts); ``AdversarialRefinementMachine`` issues anything, and stops comparing once
the spec says the process would have exited. Both run in every configuration below, so no configuration depends on
a draw. Their operations are drawn by the rules of :mod:`tests.support.cache_rules`, which the spec's own state
machines draw from too.
"""

from __future__ import annotations

from hypothesis import event

from conformance.adapters.refimpl_abstraction import abstract_cache_state
from spec.cache.contract import follows_informer_contract
from spec.cache.invariants import ALWAYS, STATE_INVARIANTS, StateInvariant
from spec.cache.operations import Operation, Outcome, Status, apply
from spec.quantities import SECOND
from tests.refimpl.driver import apply_refimpl, differences, new_harness, returned_differences
from tests.support.cache_rules import AdversarialCacheRules, CacheRules, ContractCacheRules
from tests.support.machines import add_cache_test_cases, machine_settings

STATEFUL_EXAMPLES = {"ci": 500, "dev": 100, "thorough": 5000, "fast": 50}
"""Examples per machine and configuration; the ``ci`` profile runs at least 500 (issue #3); ``fast`` (``ksspec
verify``'s default) 50."""

STEPS_PER_EXAMPLE = 25

CONFIGURATIONS = (
    ("v1_34_ttl30s", "v1.34", 30 * SECOND),  # forgetting an unknown pod is an error
    ("v1_35_ttl0", "v1.35", 0),  # production: the scheduler hard-codes a TTL of 0
    ("v1_35_ttl1s", "v1.35", 1 * SECOND),  # expiry exercised, deadlines hit exactly
    ("v1_36", "v1.36", 0),  # no expiry: FinishBinding and cleanup are unsupported
    ("v1_37", "v1.37", 0),  # as v1.36, another not-assumed message, AddNode/UpdateNode return nothing
)
"""(test name, profile, TTL in nanoseconds): all four profiles, and the TTL era with and without expiry."""


class RefinementMachineBase(CacheRules):
    """The spec world and a refimpl harness side by side, a shared clock, and one compared step."""

    checked_invariants: tuple[StateInvariant, ...] = ()
    """The spec's invariants refimpl's own state must keep after every step it is compared on."""

    def __init__(self) -> None:
        super().__init__()
        self.harness = new_harness(self.profile, self.ttl)

    def clock_advanced(self) -> None:
        self.harness.clock.set(self.now)

    def step(self, op: Operation, *, clock_time: bool = False) -> Outcome:
        """Apply ``op`` to both; require the same outcome and, unless the process exited, the same state."""
        if clock_time:
            self.harness.clock.set(self.now)
        after, outcome = apply(self.world, op)
        got = apply_refimpl(self.harness, op, clock_time=clock_time)
        assert got.matches(outcome), f"{op}: refimpl ended {got.status} {got.kind} {got.message!r}, spec {outcome}"
        self.world = after
        event(f"{type(op).__name__}: {outcome.status.value} {outcome.kind or ''}".rstrip())
        if outcome.status is Status.FATAL:
            self.exited = True
            return outcome
        state = abstract_cache_state(self.harness.cache)
        problems = returned_differences(op, got, after) + differences(self.harness, after, state)
        assert not problems, f"after {op} ({outcome.status.value}):\n  " + "\n  ".join(problems)
        broken = [inv.name for inv in self.checked_invariants if not inv.predicate(state)]
        assert not broken, f"after {op}, refimpl violates {broken}"
        return outcome


# ============================================================================================
# Contract-following streams
# ============================================================================================


class ContractRefinementMachine(RefinementMachineBase, ContractCacheRules):
    """Informer- and scheduler-shaped streams (races included); refimpl must also keep every invariant."""

    checked_invariants = STATE_INVARIANTS

    def run(self, op: Operation, *, clock_time: bool = False) -> None:
        if not follows_informer_contract(self.world.cache, op):
            event(f"{type(op).__name__}: outside the contract, skipped")
            return
        outcome = self.step(op, clock_time=clock_time)
        assert outcome.status is not Status.FATAL, f"{op} ended the process under the informer contract"


# ============================================================================================
# Adversarial streams
# ============================================================================================

class AdversarialRefinementMachine(RefinementMachineBase, AdversarialCacheRules):
    """Any operation with any objects; compared until the spec says the process exited."""

    checked_invariants = tuple(inv for inv in STATE_INVARIANTS if inv.holds == ALWAYS)

    def run(self, op: Operation, *, clock_time: bool = False) -> None:
        self.step(op, clock_time=clock_time)


add_cache_test_cases(
    globals(),
    {"TestContractRefinement": ContractRefinementMachine, "TestAdversarialRefinement": AdversarialRefinementMachine},
    CONFIGURATIONS,
    machine_settings(STATEFUL_EXAMPLES, STEPS_PER_EXAMPLE),
)
