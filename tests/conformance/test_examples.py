"""The implementer's examples in examples/ work: the minimal Python adapter passes through ``ksspec conform
--adapter``; the Node.js adapter's recorded session is a real, passing exchange (and, where Node.js is installed,
the adapter itself passes every dispatcher vector); the GitHub Actions workflow's command line is valid."""

from __future__ import annotations

import argparse
import json
import re
import shlex
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml  # type: ignore[import-untyped]

from conformance.adapters.refimpl_adapter import RefimplAdapter
from conformance.cli.conform import register
from conformance.format import Vector
from conformance.observe import merge_patch
from conformance.protocol import decode, handle, hello_request
from conformance.runner import EXIT_OK, judge_step, read_expected_failures
from conformance.sessions import SubprocessSession
from tests.conformance.cli import ksspec
from tests.conformance.docs_tables import counts_markdown

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
NODE_ADAPTER = f"node {EXAMPLES / 'node-adapter' / 'adapter.js'}"
SESSION = EXAMPLES / "node-adapter" / "session.txt"
DOCS = ROOT / "docs" / "conformance.md"




def transcript() -> list[tuple[Any, Any]]:
    """(request, response) pairs of the recorded session: lines '> request' and '< response' alternate."""
    lines = SESSION.read_text().splitlines()
    assert [line[:2] for line in lines] == ["> ", "< "] * (len(lines) // 2), "session.txt must alternate > and <"
    return [(decode(lines[i][2:]), decode(lines[i + 1][2:])) for i in range(0, len(lines), 2)]


def test_minimal_python_adapter_passes_through_ksspec_conform(tmp_path: Path) -> None:
    report = tmp_path / "report.json"
    adapter = f"{sys.executable} {EXAMPLES / 'minimal_adapter.py'}"
    assert ksspec("conform", "--adapter", adapter, "--no-progress", "--json", str(report)) == EXIT_OK
    data = json.loads(report.read_text())
    areas = {r["area"] for r in data["results"] if r["outcome"] == "pass"}
    assert areas == {"cache", "snapshot", "node_tree"}  # what it declares; the other areas are skipped
    assert data["summary"]["fail"] == data["summary"]["error"] == 0


def test_recorded_session_is_a_passing_exchange(vectors: list[Vector]) -> None:
    pairs = transcript()
    requests = [request for request, _ in pairs]
    assert requests[0] == hello_request(1) and requests[-1]["type"] == "bye"
    reset = requests[1]
    vector = next(v for v in vectors if v.id == reset["vector"])
    steps = [(request, response) for request, response in pairs if request["type"] == "step"]
    assert [(r["op"], r["args"]) for r, _ in steps] == [(s.op, s.args) for s in vector.steps]
    expected = vector.initial_observation
    for (request, response), step in zip(steps, vector.steps, strict=True):
        expected = merge_patch(expected, step.expect.observation)
        assert response["id"] == request["id"]
        assert judge_step(request["index"], step, response, expected) is None


def test_reference_implementation_answers_the_recorded_requests_alike() -> None:
    """The same requests to the reference adapter get the same answers, except the hello's self-description."""
    adapter = RefimplAdapter()
    for request, recorded in transcript():
        answered = handle(adapter, request)
        if request["type"] == "hello":
            assert answered["protocol_version"] == recorded["protocol_version"]
        else:
            assert answered == recorded


@pytest.mark.parametrize("example", [SESSION, EXAMPLES / "github-actions" / "conformance.yml"])
def test_docs_show_the_example_verbatim(example: Path) -> None:
    text = DOCS.read_text()
    missing = [line for line in example.read_text().splitlines() if line not in text]
    assert not missing, f"docs/conformance.md lacks {len(missing)} line(s) of {example.relative_to(ROOT)}"


@pytest.mark.skipif(shutil.which("node") is None, reason="Node.js is not installed")
def test_node_adapter_passes_every_dispatcher_vector(tmp_path: Path) -> None:
    report = tmp_path / "report.json"
    assert ksspec("conform", "--adapter", NODE_ADAPTER, "--tag", "dispatcher", "--no-progress",
                  "--json", str(report)) == EXIT_OK
    summary = json.loads(report.read_text())["summary"]
    assert summary["pass"] > 0 and summary["fail"] == summary["error"] == 0


@pytest.mark.skipif(shutil.which("node") is None, reason="Node.js is not installed")
def test_node_adapter_reproduces_the_recorded_session() -> None:
    session = SubprocessSession(NODE_ADAPTER, timeout=10)
    try:
        for request, recorded in transcript():
            assert session.request(request) == recorded
    finally:
        session.kill()


def test_github_actions_example_runs_a_valid_conform_command() -> None:
    workflow = yaml.safe_load((EXAMPLES / "github-actions" / "conformance.yml").read_text())
    steps = {step.get("name"): step for step in workflow["jobs"]["conform"]["steps"]}
    argv = shlex.split(steps["Conform"]["run"].replace("${{ matrix.shard }}", "1/2"))
    assert argv[0] == "ksspec"
    parser = argparse.ArgumentParser(prog="ksspec")
    register(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(argv[1:])  # exits (fails the test) on an option ksspec does not have
    assert args.adapter == "./bin/ksspec-adapter" and args.shard == "1/2" and args.junit and args.json


def test_github_actions_example_installs_ksspec_from_a_pinned_commit_not_editable() -> None:
    """The workflow installs a pinned commit as a user would (tests/test_packaging.py installs such a URL)."""
    workflow = yaml.safe_load((EXAMPLES / "github-actions" / "conformance.yml").read_text())
    install = next(step for step in workflow["jobs"]["conform"]["steps"] if step.get("name") == "Install ksspec")
    assert re.fullmatch(r"git\+https://\S+\.git@[0-9a-f]{40}", install["env"]["KSSPEC"])
    pip = shlex.split(install["run"].splitlines()[0])
    assert pip == ["python", "-m", "pip", "install", "kube-scheduler-spec @ $KSSPEC"]  # not -e: no checkout needed
    assert install["run"].splitlines()[1] == "ksspec --version"


def test_docs_expected_failures_example_names_real_vectors(vectors: list[Vector]) -> None:
    text = DOCS.read_text()
    block = text[text.index("# expected-failures.txt"):]
    block = block[:block.index("```")]
    listed = read_expected_failures(block)
    assert listed and listed <= {v.id for v in vectors}


def test_docs_vector_counts_match_the_manifest() -> None:
    assert counts_markdown() in DOCS.read_text(), "regenerate the table: python -m tests.conformance.docs_tables"


def test_minimal_python_adapter_on_areas_it_does_not_serve_fails_for_running_nothing(
        capsys: pytest.CaptureFixture[str]) -> None:
    adapter = f"{sys.executable} {EXAMPLES / 'minimal_adapter.py'}"
    assert ksspec("conform", "--adapter", adapter, "--tag", "cycle", "--no-progress") == 2
    out = capsys.readouterr().out
    assert "no vector ran" in out and "adapter does not support area 'cycle'" in out
