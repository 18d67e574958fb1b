"""The spec agrees with Kubernetes' NodeResources score table tests in the cases conformance/scenarios/score_memo.py
ports past refimpl's memo columns: each vector's last v1.35 decision gives every node the score the Go test expects
(k8s.io/kubernetes@v1.35.0 least_allocated_test.go, balanced_allocation_test.go), and no case is dropped silently."""

from __future__ import annotations

from functools import cache

import pytest

from conformance.format import Vector, load_vectors
from conformance.observe import merge_patch
from conformance.scenarios.score_memo import BALANCED, GO_SCORES, LEAST, NOT_PORTED, cases, score_memo_scenarios
from spec.cycle.scores import score_plugins
from spec.versions import PROFILES

GO_CASES = {LEAST[1]: 16, BALANCED[1]: 8}
"""The number of cases of each Go test's table in v1.35.0."""


@cache
def by_id() -> dict[str, Vector]:
    return {v.id: v for v in load_vectors()}


def last_decision(vector_id: str) -> dict[str, object]:
    vector = by_id()[f"{vector_id}.v1_35"]
    full = vector.initial_observation
    for step in vector.steps:
        full = merge_patch(full, step.expect.observation)
    decision: dict[str, object] = full["decision"]
    return decision


@pytest.mark.parametrize("scenario", [s for s in score_memo_scenarios() if s.id in GO_SCORES], ids=lambda s: s.id)
def test_scores_are_the_go_tests(scenario: object) -> None:
    weights = {p.name: p.weight for p in score_plugins(PROFILES["v1.35"])}
    sid = scenario.id  # type: ignore[attr-defined]
    plugin, want = GO_SCORES[sid]
    scores = last_decision(sid)["scores"]
    assert isinstance(scores, dict) and len(scores) == 2, sid
    if want is None:  # PreScore skips: the plugin scores no node
        assert all(plugin not in s["plugins"] for s in scores.values()), sid
        return
    assert {node: s["plugins"][plugin] // weights[plugin] for node, s in scores.items()} == want, sid


def test_every_ported_case_has_its_go_scores() -> None:
    """Both variants of each ported case (crowded, with preemption) carry the Go test's scores."""
    assert len([s for s in score_memo_scenarios() if s.id in GO_SCORES]) == 2 * len(cases())


def test_every_case_is_ported_or_says_why() -> None:
    ported: dict[str, list[str]] = {}
    for case in cases():
        ported.setdefault(case.go[1], []).append(case.name)
    for test, count in GO_CASES.items():
        names = ported[test]
        assert len(set(names)) == len(names) and set(names).isdisjoint(NOT_PORTED[test]), test
        assert len(names) + len(NOT_PORTED[test]) == count, test
        assert all(reason for reason in NOT_PORTED[test].values())
