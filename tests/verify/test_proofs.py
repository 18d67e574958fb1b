"""Every Z3 obligation is discharged, at small bounds and at the bounds ``ksspec prove`` uses by default."""

from __future__ import annotations

import pytest

from spec.verify.obligations import PENDING, Verdict, all_obligations, cache_obligations, discharge
from spec.verify.symbolic import INVARIANTS, Bounds
from spec.verify.transitions import TRANSITIONS


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


def test_dispatcher_obligations_are_listed_as_pending() -> None:
    assert [name for name, _ in PENDING] == ["dispatcher resolution rules"]


@pytest.mark.parametrize("bounds", [Bounds(1, 1), Bounds(2, 2), Bounds(3, 2)], ids=str)
def test_every_obligation_is_proved(bounds: Bounds) -> None:
    for obligation in all_obligations(bounds):
        result = discharge(obligation)
        assert result.verdict is Verdict.PROVED, (
            result.counterexample.render() if result.counterexample else f"{obligation.name}: {result.reason}"
        )
