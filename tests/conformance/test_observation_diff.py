""":func:`conformance.runner.observation_diff` compares equal observations in C before walking them; the lines it
returns must be the walk's, for every pair."""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from conformance.runner import _short, observation_diff


def walked_diff(expected: Any, actual: Any, path: str = "") -> list[str]:
    """The walk alone, as it was before the shortcut (commit 434b25e): the oracle."""
    if isinstance(expected, dict) and isinstance(actual, dict):
        lines = []
        for key in expected:
            where = f"{path}.{key}" if path else key
            if key not in actual:
                lines.append(f"{where}: missing, expected {_short(expected[key])}")
            else:
                lines += walked_diff(expected[key], actual[key], where)
        extra = sorted(set(actual) - set(expected))
        if path and extra:
            lines += [f"{path}.{k}: unexpected entry {_short(actual[k])}" for k in extra]
        return lines
    if expected != actual:
        return [f"{path}: expected {_short(expected)}, got {_short(actual)}"]
    return []


leaves = st.one_of(st.integers(-2, 2), st.sampled_from(["a", "b"]), st.booleans(), st.none(), st.just(1.0))
observations = st.recursive(leaves, lambda inner: st.one_of(
    st.lists(inner, max_size=3), st.dictionaries(st.sampled_from(["n1", "n2", "pods"]), inner, max_size=3)),
    max_leaves=20)


@given(observations, observations)
def test_the_shortcut_returns_what_the_walk_returns(expected: Any, actual: Any) -> None:
    assert observation_diff(expected, actual) == walked_diff(expected, actual)


@given(observations)
def test_equal_observations_differ_nowhere(observation: Any) -> None:
    assert observation_diff(observation, observation) == walked_diff(observation, observation) == []


def test_a_difference_is_still_found_below_an_equal_sibling() -> None:
    expected = {"nodes": {"n1": {"pods": ["a"]}, "n2": {"pods": []}}}
    actual = {"nodes": {"n1": {"pods": ["a"]}, "n2": {"pods": ["b"]}}}
    assert observation_diff(expected, actual) == ['nodes.n2.pods: expected [], got ["b"]']


def test_a_key_the_spec_leaves_out_must_hold_its_default() -> None:
    """The spec leaves ``nominated``, ``scheduler`` and ``kubelet`` out while they hold their default: an
    implementation that reports them otherwise differs (before, any key the vector did not expect was ignored, so
    a nominator that kept a nomination the spec had dropped passed)."""
    expected = {"now": 0}
    assert observation_diff(expected, {"now": 0, "nominated": {}}) == []
    assert observation_diff(expected, {"now": 0, "nominated": {"n1": ["a"]}}) == [
        'nominated.n1: unexpected entry ["a"]']
    assert observation_diff(expected, {"now": 0, "scheduler": {"running": True, "orphaned": {}}}) == []
    assert observation_diff(expected, {"now": 0, "scheduler": {"running": False, "orphaned": {}}}) == [
        "scheduler.running: expected true, got false"]
    assert observation_diff(expected, {"now": 0, "kubelet": {"admitted": ["a"], "failed": {}}}) == [
        'kubelet.admitted: expected [], got ["a"]']
    assert observation_diff(expected, {"now": 0, "future_key": 1}) == []  # other keys stay forward-compatible
