"""The traceability matrix's scanner finds what checks each invariant, and nothing it should not."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent.parent / "docs" / "_ext"))

import traceability

from spec import call_queue_invariants, cycle_invariants, invariants
from spec.invariants import ALWAYS, STATE_INVARIANTS


def test_the_catalogue_has_every_registered_predicate() -> None:
    listed = {inv.function for inv in traceability.invariants()}
    registered = {inv.predicate for inv in STATE_INVARIANTS} | set(invariants.KNOWN_VIOLATIONS)
    registered |= set(call_queue_invariants.CALL_QUEUE_INVARIANTS)
    registered |= set(call_queue_invariants.CALL_QUEUE_KNOWN_VIOLATIONS)
    registered |= set(cycle_invariants.CYCLE_INVARIANTS)
    assert registered <= listed


def test_every_invariant_that_always_holds_is_checked_by_a_hypothesis_test() -> None:
    references = traceability.test_references()
    unchecked = [
        inv.name
        for inv in traceability.invariants()
        if inv.holds in ("always", "under the informer contract")
        and not any(ref.hypothesis for ref in references.get(inv.qualname, ()))
    ]
    assert unchecked == []


def test_a_machine_that_checks_only_the_always_invariants_is_not_listed_for_the_others() -> None:
    references = traceability.test_references()
    adversarial = "tests/spec/test_cache_stateful.py::AdversarialCacheMachine"
    for inv in STATE_INVARIANTS:
        labels = {ref.label for ref in references.get(("spec.invariants", inv.name), ())}
        assert (adversarial in labels) == (inv.holds == ALWAYS), inv.name


def test_z3_obligations_are_found_for_the_abstracted_invariants_only() -> None:
    from spec.verify.symbolic import INVARIANTS

    abstracted = {inv.spec_predicate.__name__ for inv in INVARIANTS if inv.spec_predicate is not None}
    for inv in traceability.invariants():
        has_obligations = traceability.z3_summary(inv.name) != "none"
        expected = inv.name in abstracted or inv.name == "trans_expiry_only_after_finish_binding"
        assert has_obligations == expected, inv.name
