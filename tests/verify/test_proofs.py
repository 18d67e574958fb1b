"""Every Z3 obligation is discharged, at small bounds and at the bounds ``ksspec prove`` uses by default."""

from __future__ import annotations

import pytest

from spec.verify.cache.obligations import cache_obligations
from spec.verify.cache.symbolic import INVARIANTS, Bounds
from spec.verify.cache.transitions import TRANSITIONS
from spec.verify.cycle.obligations import cycle_obligations
from spec.verify.cycle.symbolic import PIPELINE_INVARIANTS, CycleBounds
from spec.verify.cycle.transitions import PIPELINE_TRANSITIONS
from spec.verify.dispatcher.obligations import dispatcher_obligations
from spec.verify.dispatcher.symbolic import QUEUE_INVARIANTS, DispatcherBounds
from spec.verify.dispatcher.transitions import QUEUE_TRANSITIONS
from spec.verify.obligations import PENDING, Obligation, Verdict, discharge
from spec.verify.proof_groups import all_obligations


def test_obligations_cover_every_invariant_and_transition() -> None:
    obligations = cache_obligations(Bounds(2, 1))
    names = {ob.name for ob in obligations}
    for inv in INVARIANTS:
        assert f"base/{inv.name}" in names
        for transition in TRANSITIONS:
            assert f"step/{transition}/{inv.name}" in names
    assert any(ob.kind == "expiry" for ob in obligations)
    assert len(obligations) == len(INVARIANTS) * (1 + len(TRANSITIONS)) + 1
    headlines = {inv.headline for inv in INVARIANTS if inv.headline}
    assert headlines == {
        "no double-booking",
        "Requested = sum of assumed and added pods",
        "expiry only after finish_binding",
    }


def test_no_obligation_group_is_pending() -> None:
    assert PENDING == ()


def test_dispatcher_obligations_cover_every_invariant_and_transition() -> None:
    obligations = dispatcher_obligations(DispatcherBounds(2, 2))
    names = {ob.name for ob in obligations}
    for inv in QUEUE_INVARIANTS:
        assert f"base/{inv.name}" in names
        for transition in QUEUE_TRANSITIONS:
            assert f"step/{transition}/{inv.name}" in names
    for transition in QUEUE_TRANSITIONS:
        assert f"relevance/{transition}/trans_more_relevant_call_never_dropped" in names
    assert "relevance/AddCall/trans_add_keeps_the_more_relevant_call" in names
    assert {"total/PopCall", "total/FinishCall"} <= names
    assert len(obligations) == len(QUEUE_INVARIANTS) * (1 + len(QUEUE_TRANSITIONS)) + len(QUEUE_TRANSITIONS) + 3
    groups = {ob.group for ob in all_obligations(Bounds(1, 1), DispatcherBounds(1, 1), CycleBounds(1, 1))}
    assert groups == {"cache", "dispatcher", "cycle", "cluster"}


def assert_all_proved(obligations: list[Obligation]) -> None:
    """Discharge each obligation; each must be proved (a counterexample is shown if not)."""
    for obligation in obligations:
        result = discharge(obligation)
        assert result.verdict is Verdict.PROVED, (
            result.counterexample.render() if result.counterexample else f"{obligation.name}: {result.reason}"
        )


def test_cycle_obligations_cover_every_invariant_and_transition() -> None:
    obligations = cycle_obligations(CycleBounds(2, 2))
    names = {ob.name for ob in obligations}
    for inv in PIPELINE_INVARIANTS:
        assert f"base/{inv.name}" in names
        for transition in PIPELINE_TRANSITIONS:
            assert f"step/{transition}/{inv.name}" in names
    assert len(obligations) == len(PIPELINE_INVARIANTS) * (1 + len(PIPELINE_TRANSITIONS))
    assert {inv.headline for inv in PIPELINE_INVARIANTS if inv.headline} == {"no node overcommitted"}


@pytest.mark.parametrize(
    "bounds", [CycleBounds(1, 1), CycleBounds(2, 2), CycleBounds(4, 3), CycleBounds(5, 4)], ids=str
)
def test_every_cycle_obligation_is_proved(bounds: CycleBounds) -> None:
    assert_all_proved(cycle_obligations(bounds))


@pytest.mark.parametrize(
    "bounds", [DispatcherBounds(1, 1), DispatcherBounds(2, 2), DispatcherBounds(4, 3), DispatcherBounds(6, 4)], ids=str
)
def test_every_dispatcher_obligation_is_proved(bounds: DispatcherBounds) -> None:
    assert_all_proved(dispatcher_obligations(bounds))


@pytest.mark.parametrize("bounds", [Bounds(1, 1), Bounds(2, 2), Bounds(3, 2)], ids=str)
def test_every_obligation_is_proved(bounds: Bounds) -> None:
    assert_all_proved(all_obligations(bounds, DispatcherBounds(bounds.pods, 2), CycleBounds(bounds.pods, bounds.nodes)))
