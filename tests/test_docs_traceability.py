"""The traceability matrix's scanner finds what checks each invariant, and nothing it should not."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parent.parent / "docs" / "_ext"))

import checker_coverage
import traceability

from conformance.cli.verify import CHECKS
from spec.cache import invariants
from spec.cache.invariants import ALWAYS, STATE_INVARIANTS
from spec.cycle import invariants as cycle_invariants
from spec.dispatcher import invariants as call_queue_invariants
from spec.verify.transition_system import TransitionSystem


def test_the_catalogue_has_every_registered_predicate() -> None:
    listed = {inv.function for inv in traceability.invariants()}
    registered: set[Callable[..., bool]] = {inv.predicate for inv in STATE_INVARIANTS}
    registered |= set(invariants.KNOWN_VIOLATIONS)
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
    adversarial = "tests/spec/cache/test_stateful.py::AdversarialCacheMachine"
    for inv in STATE_INVARIANTS:
        labels = {ref.label for ref in references.get(("spec.cache.invariants", inv.name), ())}
        assert (adversarial in labels) == (inv.holds == ALWAYS), inv.name


def test_z3_obligations_are_found_for_the_abstracted_invariants_only() -> None:
    from spec.verify.cache import symbolic
    from spec.verify.cluster import symbolic as cluster_symbolic
    from spec.verify.cycle import symbolic as cycle_symbolic
    from spec.verify.dispatcher import symbolic as dispatcher_symbolic

    abstracted: set[Callable[..., bool]] = {
        inv.spec_predicate for inv in symbolic.INVARIANTS if inv.spec_predicate is not None
    }
    abstracted |= {inv.spec_predicate for inv in dispatcher_symbolic.QUEUE_INVARIANTS}
    abstracted |= {inv.spec_predicate for inv in cycle_symbolic.PIPELINE_INVARIANTS if inv.spec_predicate is not None}
    abstracted |= {inv.spec_predicate for inv in cluster_symbolic.CLUSTER_PROOF_INVARIANTS if inv.spec_predicate}
    transition_properties = {
        "trans_expiry_only_after_finish_binding": invariants.trans_expiry_only_after_finish_binding,
        "trans_more_relevant_call_never_dropped": call_queue_invariants.trans_more_relevant_call_never_dropped,
        "trans_add_keeps_the_more_relevant_call": call_queue_invariants.trans_add_keeps_the_more_relevant_call,
    }
    for name, predicate in transition_properties.items():  # each has an abstraction of the same name
        assert name == predicate.__name__
        assert hasattr(symbolic, name) or hasattr(dispatcher_symbolic, name), name
    for inv in traceability.invariants():
        has_obligations = traceability.z3_summary(inv.name) != "none"
        expected = inv.function in abstracted or inv.function in transition_properties.values()
        assert has_obligations == expected, inv.name


def test_z3_obligations_are_attributed_to_the_predicate_they_are_about() -> None:
    """Every obligation is counted once, under the predicate its invariant abstracts, or under none
    (the abstractions' own well-formedness, the dispatcher's totality, the pipeline's books)."""
    from spec.verify.dispatcher.transitions import QUEUE_TRANSITIONS
    from spec.verify.proof_groups import all_obligations

    counted = sum(len(traceability.z3_obligations().get(inv.name, [])) for inv in traceability.invariants())
    own = ("inv_wf_abstraction", "no missing calls entry", "inv_wf_pipeline_abstraction",
           "inv_requested_is_sum_of_placed_pods", "inv_wf_cluster_abstraction",
           "inv_bindings_match_phases")  # fmt: skip
    unattributed = [o for o in all_obligations() if o.invariant in own]
    assert counted + len(unattributed) == len(all_obligations())
    operations = len(QUEUE_TRANSITIONS)  # one obligation per call-queue operation
    summary = traceability.z3_summary("trans_more_relevant_call_never_dropped")
    assert summary.startswith(f"{operations} ({operations} relevance)"), summary


# ============================================================================================
# The model-checker column
# ============================================================================================


def _reachable(system: TransitionSystem[Any], depth: int) -> list[Any]:
    """Every representative state within ``depth`` steps of an initial state."""
    frontier = [system.canonical(s)[0] for s in system.initial_states()]
    seen = set(frontier)
    for _ in range(depth):
        following = []
        for state in frontier:
            for edge in system.edges(state):
                if edge.target is not None:
                    rep = system.canonical(edge.target)[0]
                    if rep not in seen:
                        seen.add(rep)
                        following.append(rep)
        frontier = following
    return list(seen)


@contextmanager
def _always_failing(functions: list[Callable[..., Any]]) -> Iterator[None]:
    """Every function in ``functions`` returns False, wherever it is referenced from."""
    saved = [f.__code__ for f in functions]
    for f in functions:
        f.__code__ = (lambda *args, **kwargs: False).__code__
    try:
        yield
    finally:
        for f, code in zip(functions, saved, strict=True):
            f.__code__ = code


def _reported(probe: checker_coverage.Probe, depth: int) -> set[str]:
    """The catalogue predicates ``probe``'s run reports violated on its states within ``depth``,
    when every one of them fails."""
    catalogue = {inv.name: inv.function for inv in traceability.invariants()}
    states = _reachable(probe.run.build(), depth)
    system = probe.run.build()  # a fresh one: the cache system remembers verdicts per cache
    found: set[str] = set()
    with _always_failing(list(catalogue.values())):
        for state in states:
            found.update(system.violations(state))
            for edge in system.edges(state):
                found.update(edge.violations)
    return found & set(catalogue)


@pytest.mark.parametrize("probe", checker_coverage.probes(), ids=lambda p: " ".join(p.run.argv) or "default")
def test_each_run_is_attributed_exactly_the_predicates_it_reports(probe: checker_coverage.Probe) -> None:
    """Found by another route than the probe's: every predicate made to fail, what does the run report?
    One level deeper than the probe went, so a predicate the probe stopped too early for is caught too."""
    assert probe.checks, probe.run.argv
    assert _reported(probe, probe.depth + 1) == probe.checks


def test_every_registered_invariant_is_model_checked() -> None:
    never = [inv.name for inv in traceability.invariants() if not traceability.model_checker(inv)]
    assert never == []


def test_known_violations_are_attributed_only_to_known_violation_runs() -> None:
    known = set(invariants.KNOWN_VIOLATIONS) | set(call_queue_invariants.CALL_QUEUE_KNOWN_VIOLATIONS)
    assert not any("--known-violations" in check.command for check in CHECKS)
    for inv in traceability.invariants():
        if inv.function in known:
            commands = traceability.model_checker(inv)
            assert commands and all(a.command.endswith("--known-violations") for a in commands), inv.name
            assert not any(a.in_verify for a in commands), inv.name


def test_the_cycle_checks_contract_only_cache_invariants_with_a_ttl_only_for_known_violations() -> None:
    """As :mod:`spec.verify.cycle.system` says: every cache invariant with TTL 0, the ALWAYS ones with
    any TTL, the others (and the overcommit headline) with a non-zero TTL under --known-violations."""
    holds = {inv.name: inv.holds for inv in STATE_INVARIANTS}
    ttl = next(t for t in checker_coverage._ttls("cycle") if t)
    for inv in traceability.invariants():
        if inv.name not in holds and inv.function is not cycle_invariants.inv_no_node_overcommitted:
            continue
        cycle = {(a.command, a.ttls) for a in traceability.model_checker(inv) if "--system cycle" in a.command}
        if holds.get(inv.name) == ALWAYS:
            assert cycle == {("ksspec check --system cycle", None)}, inv.name
        else:
            expected = {
                ("ksspec check --system cycle", (0.0,)),
                ("ksspec check --system cycle --known-violations", (ttl,)),
            }
            assert cycle == expected, inv.name


def test_adversarial_cache_runs_check_the_always_invariants_only() -> None:
    for inv in STATE_INVARIANTS:
        entry = traceability.Invariant("spec.cache.invariants", inv.predicate, inv.holds)
        commands = {a.command for a in traceability.model_checker(entry)}
        assert ("ksspec check --mode adversarial" in commands) == (inv.holds == ALWAYS), inv.name


def test_the_simulator_is_attributed_what_it_checks_at_each_ttl() -> None:
    """``ksspec simulate`` checks every predicate it tallies, except with a TTL the two it exempts."""
    from conformance.simulation.checks import KNOWN_VIOLATIONS_WITH_TTL, InvariantChecker

    tallied = set(InvariantChecker().tallies)
    checks = checker_coverage.simulator_checks()
    assert 0.0 in checks and any(checks)
    for ttl, names in checks.items():
        assert names == (tallied - KNOWN_VIOLATIONS_WITH_TTL if ttl else tallied), ttl
    for inv in traceability.invariants():
        simulated = [a for a in traceability.model_checker(inv) if a.command == "ksspec simulate"]
        assert bool(simulated) == (inv.name in tallied), inv.name
        if inv.name in KNOWN_VIOLATIONS_WITH_TTL:
            assert simulated[0].ttls == (0.0,), inv.name
