"""The runner against the reference implementation, in-process and over stdio, and its options and reports."""

from __future__ import annotations

import json
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from conformance.format import Vector
from conformance.runner import (
    EXIT_DIVERGENCE,
    EXIT_OK,
    EXIT_USAGE_OR_ADAPTER,
    Outcome,
    Target,
    apply_expected_failures,
    exit_code,
    judge_choice,
    observation_diff,
    parse_shard,
    read_expected_failures,
    run_vectors,
    select,
    without_choice,
)
from tests.conformance.cli import ksspec

STDIO = f"{sys.executable} -m conformance.adapters.stdio_main"




def test_refimpl_in_process_passes_everything(vectors: list[Vector]) -> None:
    """Every vector passes on refimpl in process. (How long it takes is a benchmark's question, bench/conformance.py,
    not a test's: a wall-clock bound here failed at 88 s on a shared machine.)"""
    results = run_vectors(Target(), vectors)
    assert [r.id for r in results if r.outcome is not Outcome.PASS] == []


def test_refimpl_over_stdio_passes_everything(vectors: list[Vector]) -> None:
    results = run_vectors(Target(impl=None, adapter=STDIO), vectors, workers=2)
    assert [r.id for r in results if r.outcome is not Outcome.PASS] == []


def test_shards_partition_the_suite(vectors: list[Vector]) -> None:
    shards = [select(vectors, shard=(i, 3)) for i in (1, 2, 3)]
    ids = sorted(v.id for shard in shards for v in shard)
    assert ids == sorted(v.id for v in vectors)
    with pytest.raises(ValueError, match="need 1 <= i <= n"):
        parse_shard("4/3")


def test_tag_filter(vectors: list[Vector]) -> None:
    chosen = select(vectors, ["version-dependent"])
    assert chosen and all("version-dependent" in v.tags.behaviours for v in chosen)
    assert all(v.tags.area == "dispatcher" for v in select(vectors, ["dispatcher"]))


def test_expected_failures_and_unexpected_passes(vectors: list[Vector]) -> None:
    results = run_vectors(Target(impl="tests.conformance.gallery.faulty:GALLERY_ports_not_released"),
                          select(vectors, ["cache.ports", "cache.pvc.ref_counts.v1_37"]))
    outcomes = {r.id: r.outcome for r in results}
    assert outcomes == {"cache.ports.not_reference_counted": Outcome.FAIL, "cache.pvc.ref_counts.v1_37": Outcome.PASS}
    listed = "cache.ports.not_reference_counted  # known\n# comment\ncache.pvc.ref_counts.v1_37\n"
    expected = read_expected_failures(listed)
    apply_expected_failures(results, expected)
    assert [r.outcome for r in results] == [Outcome.XFAIL, Outcome.XPASS]
    assert exit_code(results) == EXIT_DIVERGENCE  # a stale expected-failures entry fails the run


def test_profile_selection_skips_vectors_for_other_profiles(vectors: list[Vector]) -> None:
    chosen = select(vectors, ["cache.forget.twice"])
    results = run_vectors(Target(profile="v1.34"), chosen)
    assert {r.id: r.outcome for r in results} == {
        "cache.forget.twice.v1_34": Outcome.PASS, "cache.forget.twice.v1_35": Outcome.SKIP}


def test_observation_diff_is_minimal() -> None:
    expected = {"nodes": {"n1": {"pods": ["a"], "requested": {"milli_cpu": 100}}}, "assumed": []}
    actual = {"nodes": {"n1": {"pods": ["a"], "requested": {"milli_cpu": 0}}, "n2": {}}, "assumed": [], "extra": 1}
    assert observation_diff(expected, actual) == [
        "nodes.n1.requested.milli_cpu: expected 100, got 0", "nodes.n2: unexpected entry {}"]


def test_cli_reports_and_exit_codes(tmp_path: Path) -> None:
    junit, report = tmp_path / "junit.xml", tmp_path / "report.json"
    code = ksspec("conform", "--tag", "snapshot", "--no-progress", "--junit", str(junit), "--json", str(report))
    assert code == EXIT_OK
    data = json.loads(report.read_text())
    assert data["summary"]["pass"] == len(data["results"]) > 0
    assert ET.parse(junit).getroot().find("testsuite").get("name") == "snapshot"  # type: ignore[union-attr]
    faulty = "tests.conformance.gallery.faulty:GALLERY_snapshot_keeps_removed_nodes"
    assert ksspec("conform", "--impl", faulty, "--tag", "snapshot", "--no-progress") == EXIT_DIVERGENCE
    assert ksspec("conform", "--shard", "x", "--no-progress") == EXIT_USAGE_OR_ADAPTER
    stale = tmp_path / "xfail.txt"
    stale.write_text("no.such.vector\n")
    assert ksspec("conform", "--expected-failures", str(stale), "--no-progress") == EXIT_USAGE_OR_ADAPTER


def test_the_chosen_node_is_judged_against_the_allowed_hosts() -> None:
    """``decision.chosen`` is accepted if it is one of the spec's ``allowed`` nodes; the rest of the decision is
    compared exactly."""
    expected = {"decision": {"feasible": ["a", "b", "c"], "scores": {}, "allowed": ["a", "b"], "message": ""}}

    def answer(chosen: str | None) -> dict[str, object]:
        decision: dict[str, object] = {**expected["decision"]}
        if chosen is not None:
            decision["chosen"] = chosen
        return {"decision": decision}

    assert judge_choice(expected, answer("b")) == []
    assert observation_diff(expected, without_choice(answer("b"))) == []
    assert judge_choice(expected, answer("c")) == ['decision.chosen: expected one of ["a","b"], got "c"']
    assert judge_choice(expected, answer(None)) == ['decision.chosen: missing, expected one of ["a","b"]']
    failed = {"decision": {"feasible": [], "scores": {}, "allowed": [], "message": "0/1 nodes are available"}}
    assert judge_choice(failed, {"decision": {**failed["decision"], "chosen": ""}}) == []
    assert judge_choice(failed, {"decision": {**failed["decision"], "chosen": "a"}}) == [
        'decision.chosen: expected none (no node may be chosen), got "a"']
    assert judge_choice({}, answer("z")) == []  # a step without a scheduling cycle judges no choice
