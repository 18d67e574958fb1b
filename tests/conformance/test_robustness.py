"""The runner against adapters that crash, hang, print garbage, answer out of order or speak another version."""

from __future__ import annotations

import sys

import pytest

from conformance.format import Vector
from conformance.runner import EXIT_USAGE_OR_ADAPTER, Outcome, Target, exit_code, run_vectors, select

PREFIX = "cache.forget"


def broken(mode: str, timeout: float = 5.0) -> Target:
    return Target(impl=None, adapter=f"{sys.executable} -m tests.conformance.broken_adapter {mode} {PREFIX}",
                  timeout=timeout)


@pytest.fixture(scope="module")
def few(vectors: list[Vector]) -> list[Vector]:
    """Two victims (cache.forget.*) between vectors that must still pass."""
    chosen = select(vectors, ["cache.expiry.strictly", "cache.forget", "cache.pvc"])
    assert [v.id.startswith(PREFIX) for v in chosen].count(True) >= 2
    return chosen


@pytest.mark.parametrize(
    ("mode", "message"),
    [
        ("crash", "adapter exited (code 3) before answering; stderr: panic: runtime error"),
        ("hang", "did not answer the step request within 1 s (hung)"),
        ("garbage", "adapter printed garbage: not a JSON line"),
        ("order", "(out of order)"),
    ],
)
def test_misbehaving_adapter_fails_only_its_vector(mode: str, message: str, few: list[Vector]) -> None:
    results = run_vectors(broken(mode, timeout=1.0), few)
    assert [r.id for r in results] == [v.id for v in few]  # nothing lost, order kept
    for result in results:
        if result.id.startswith(PREFIX):
            assert result.outcome is Outcome.ERROR, result
            assert message in result.detail and result.detail.startswith("step 0 (")
        else:
            assert result.outcome is Outcome.PASS, result  # the runner restarted the adapter and went on
    assert exit_code(results) == EXIT_USAGE_OR_ADAPTER


def test_protocol_version_mismatch_is_reported_per_vector(few: list[Vector]) -> None:
    results = run_vectors(broken("version"), few[:2])
    assert all(r.outcome is Outcome.ERROR for r in results)
    assert all("adapter speaks protocol version '0'; this runner speaks '1'" in r.detail for r in results)


def test_adapter_that_cannot_start(few: list[Vector]) -> None:
    results = run_vectors(Target(impl=None, adapter="/nonexistent/adapter"), few[:1])
    assert results[0].outcome is Outcome.ERROR and "cannot start adapter" in results[0].detail
