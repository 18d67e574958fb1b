"""The Go adapter over Kubernetes' own cache, call queue and scheduling queue (examples/kubernetes-adapter) speaks the
protocol.

Where ``go`` is installed, the default release's adapter (releases.txt's first line) is built (the k8s.io modules
come from the Go module cache, or the module proxy) and run on a few vectors covering every path of the protocol: TTL
expiry through the linked cleanup, the node tree, the snapshot, a klog.FlushAndExit and a nil dereference answered as
``fatal``, the call queue popped and finished step by step, and the scheduling queue's fake clock and flushes, and
the scheduler's own cycle (scheduler.New, the linked search and scoring) with the kubelet's admission. Each release
then runs every vector, as ``make conform-kubernetes`` does, and its result table in docs/conformance.md must be its
own: the default release always, the others when Go's build cache is warm for them (a cold build takes minutes;
``make conform-kubernetes`` warms it). The releases file and the expected-failures files are checked without Go.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from conformance.format import Vector
from conformance.observe import merge_patch
from conformance.protocol import hello_request
from conformance.runner import EXIT_OK, judge_step, read_expected_failures
from conformance.sessions import SubprocessSession
from tests.conformance.cli import ksspec
from tests.conformance.kubernetes_results import ADAPTER, BUILDS, DEFAULT, build, is_warm, results_markdown, run

DOCS = Path(__file__).resolve().parents[2] / "docs" / "conformance.md"
EXPECTED_FAILURES = sorted(ADAPTER.glob("expected-failures-*.txt"))
# One vector per path of the adapter; all hold for v1.35.
SAMPLE = (
    "cache.expiry.only_after_finish_binding",        # finishBinding and cleanupAssumedPods at the vector's times
    "cache.metrics.published_by_cleanup",            # the scheduler_cache_size gauge
    "cache.update.onto_other_node_is_fatal",         # klog.FlushAndExit through klog.OsExit
    "node_tree.update_from_nil_to_zoned_is_fatal",   # a nil dereference, recovered
    "node_tree.round_robin_across_zones",            # the cache's node tree, through UpdateSnapshot
    "snapshot.quirk.stale_image_counts",             # the Snapshot's listers and lookups
    "dispatcher.in_flight_overwritten",              # pop and finalize, PR #135180's wait behind an in-flight call
    "dispatcher.execution_error_reaches_caller",     # sendOnFinish with the execution's error
    "queue.k8s.backoff_flow.pop_from_backoff_true",  # PriorityQueue: the fake clock, the linked backoff flush
    "queue.leftover.run_loop",                       # queue_run_for: Run's two loops' flushes at their instants
    "cycle.happy_path",                              # scheduler.New, findNodesThatFitPod, assume, bind, confirm
    "cycle.filter.memory",                           # the Filter statuses and FitError.Error()
    "cycle.ported.required_affinity_single_node.affinity_with_namespace_selector",  # the namespace informer's lister
    "cycle.restart.orphan_landed_while_down",        # crash and restart: a new scheduler.New over the same objects
    "cycle.kubelet.critical_pod_evicts_the_later_of_equals",  # the kubelet's admission, critical-pod preemption
)

needs_go = pytest.mark.skipif(
    shutil.which("go") is None,
    reason="Go is not installed: the Kubernetes adapter (examples/kubernetes-adapter) is a Go program; "
    "install Go to run it here, and 'make conform-kubernetes' to run every vector",
)


# The module's fixtures build the adapter, minutes of CPU on a cold Go build cache: on one xdist worker (`--dist
# loadgroup`), where plain `--dist load` would build it on each worker at once (Go does not share a build in progress).
pytestmark = pytest.mark.xdist_group("kubernetes-adapter")


@pytest.fixture(scope="module")
def build_directory(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("kubernetes-adapter")


@pytest.fixture(scope="module")
def adapter(build_directory: Path) -> str:
    """The default release's adapter, built once (the k8s.io packages compile once into Go's build cache, shared
    with make)."""
    return str(build(DEFAULT, build_directory))


@needs_go
def test_the_real_cache_and_call_queue_pass_a_sample_of_vectors(adapter: str, tmp_path: Path) -> None:
    report = tmp_path / "report.json"
    tags = [arg for vector_id in SAMPLE for arg in ("--tag", vector_id)]
    code = ksspec("conform", "--adapter", adapter, "--profile", "v1.35", *tags, "--no-progress", "--json", str(report))
    data = json.loads(report.read_text())
    outcomes = {r["id"]: r["outcome"] for r in data["results"] if r["outcome"] != "skip"}
    assert code == EXIT_OK, [r for r in data["results"] if r["outcome"] not in ("pass", "skip")]
    assert {vector_id.split(".v1_")[0] for vector_id in outcomes} == set(SAMPLE)
    assert set(outcomes.values()) == {"pass"}


@needs_go
def test_the_adapter_reports_what_kubernetes_does_not_what_a_vector_expects(
    adapter: str, vectors: list[Vector]
) -> None:
    """Fed v1.34's expectations, the v1.35.0 build answers as v1.35.0 does, so the runner sees the divergence:
    ForgetPod of a pod the cache no longer knows returns nil (PR #134157), not "wasn't assumed"."""
    vector = next(v for v in vectors if v.id == "cache.forget.twice.v1_34")
    session = SubprocessSession(adapter, timeout=30)
    try:
        hello = session.request(hello_request(1))
        assert hello["capabilities"] == {"areas": ["cache", "snapshot", "node_tree", "dispatcher", "queue", "cycle"],
                                         "profiles": ["v1.35"]}
        assert BUILDS["v1.35"][0] in hello["implementation"]
        refused = session.request({"type": "reset", "id": 2, "vector": vector.id, "area": "cache",
                                   "profile": "v1.34", "ttl_ns": 0})
        assert refused["type"] == "failure" and "profile \"v1.35\" only" in refused["message"]
        assert session.request({"type": "reset", "id": 3, "vector": vector.id, "area": "cache", "profile": "v1.35",
                                "ttl_ns": 0})["type"] == "ready"
        expected, verdicts = vector.initial_observation, []
        for index, step in enumerate(vector.steps):
            answer = session.request({"type": "step", "id": 4 + index, "index": index, "op": step.op,
                                      "args": step.args})
            expected = merge_patch(expected, step.expect.observation)
            verdicts.append(judge_step(index, step, answer, expected))
    finally:
        session.kill()
    assert verdicts[:-1] == [None, None]
    assert verdicts[-1] is not None
    assert verdicts[-1][0] == "step 2 (forget_pod): adapter answered ok, expected error kind 'PodNotAssumed'"


@needs_go
@pytest.mark.parametrize("profile", list(BUILDS))
def test_docs_show_the_result_table_of_each_release(profile: str, adapter: str, build_directory: Path) -> None:
    if profile != DEFAULT and not is_warm(profile):
        pytest.skip(f"Go's build cache is cold for {BUILDS[profile][0]}: 'make conform-kubernetes' builds it")
    binary = Path(adapter) if profile == DEFAULT else build(profile, build_directory)
    table = results_markdown({profile: run(profile, binary)})
    assert table in DOCS.read_text(), f"regenerate it: python -m tests.conformance.kubernetes_results\n{table}"


@pytest.mark.parametrize("path", EXPECTED_FAILURES, ids=lambda p: p.name)
def test_every_expected_failure_is_a_vector_with_a_reason(path: Path, vectors: list[Vector]) -> None:
    ids = {v.id for v in vectors}
    for line in path.read_text().splitlines():
        entry, _, reason = line.partition("#")
        if entry.strip():
            assert entry.strip() in ids, f"{path.name}: {entry.strip()} is not a vector"
            assert reason.strip(), f"{path.name}: {entry.strip()} has no reason (write it after '#')"
    assert read_expected_failures(path.read_text()) <= ids


def test_there_is_an_expected_failures_file_per_release() -> None:
    assert [p.name for p in EXPECTED_FAILURES] == sorted(f"expected-failures-{profile}.txt" for profile in BUILDS)


def test_every_release_has_its_module_file_and_release_file() -> None:
    """releases.txt names the newest patch release of each profile the adapter builds, with the module file that
    requires it and the build tag of its release file (the default release: go.mod, no tag)."""
    assert list(BUILDS) == ["v1.35", "v1.34", "v1.36", "v1.37"]
    for profile, (version, flags) in BUILDS.items():
        assert version.startswith(profile + "."), (profile, version)
        modfile = ADAPTER / flags[0].removeprefix("-modfile=")
        assert f"\tk8s.io/kubernetes {version}\n" in modfile.read_text(), f"{modfile.name} does not require {version}"
        release_file = ADAPTER / f"release_{profile.replace('.', '_')}.go"
        text = release_file.read_text()
        assert f'kubernetesVersion = "{version}"' in text
        assert ("-tags" in flags) == (profile != DEFAULT)
        if profile != DEFAULT:
            assert text.startswith(f"//go:build {flags[2]}\n"), release_file.name
