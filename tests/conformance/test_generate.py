"""The generator: determinism, committed vectors match the spec, drift is detected and named."""

from __future__ import annotations

import functools
import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from conformance import generate
from conformance.codec import OPERATIONS
from conformance.format import GENERATED_BY, VECTORS_DIR, Step, Vector, load_vectors, render_files
from conformance.observe import merge_patch
from tests.conformance.cli import ksspec


def observed(vector: Vector) -> list[tuple[Step, Any]]:
    """Each step with its full expected observation (the vector stores merge patches)."""
    full, out = vector.initial_observation, []
    for step in vector.steps:
        full = merge_patch(full, step.expect.observation)
        out.append((step, full))
    return out


# One generation of every vector costs minutes: the module's tests share it, on one xdist worker (`--dist
# loadgroup`, Makefile and .ci/run), where plain `--dist load` would build it once per worker. It is kept for the
# process (a module-scoped fixture was built twice on one worker: xdist need not run a group's tests back to back).
pytestmark = pytest.mark.xdist_group("generate")


@functools.cache
def _generation() -> tuple[Vector, ...]:
    return tuple(generate.generate_all())


@pytest.fixture
def generated() -> list[Vector]:
    return list(_generation())


def test_committed_vectors_match_the_spec(generated: list[Vector]) -> None:
    """What CI runs as `ksspec conformance generate --check`."""
    assert generate.drift(generated, VECTORS_DIR) == []


def test_generation_is_deterministic(generated: list[Vector]) -> None:
    """A second generation in the same process renders byte for byte as the module's first one (no state leaks from
    one generation into the next); the committed files, written by another process, are a third."""
    assert render_files(generate.generate_all()) == render_files(generated)


def test_drift_names_the_modified_vector(generated: list[Vector], tmp_path: Path) -> None:
    directory = tmp_path / "vectors"
    shutil.copytree(VECTORS_DIR, directory)
    path = directory / "cache.curated.json"
    content = json.loads(path.read_text())
    victim = content["vectors"][3]
    victim["steps"][0]["expect"]["status"] = "error"
    victim["steps"][0]["expect"]["kind"] = "PodNotFound"
    path.write_text(json.dumps(content, indent=1))
    problems = generate.drift(generated, directory)
    assert problems == [f"{victim['id']}: committed vector differs from the spec's"]
    with pytest.raises(ValueError, match="does not match its manifest checksum"):
        load_vectors(directory)


def test_version_dependent_behaviour_is_split_and_tagged(generated: list[Vector]) -> None:
    by_id = {v.id: v for v in generated}
    old, new = by_id["cache.forget.twice.v1_34"], by_id["cache.forget.twice.v1_35"]
    assert old.tags.profiles == ("v1.34",) and "v1.35" in new.tags.profiles
    assert "version-dependent" in old.tags.behaviours
    assert old.steps[2].expect.kind == "PodNotAssumed" and new.steps[2].expect.status == "ok"


def test_every_area_and_origin_is_covered(generated: list[Vector]) -> None:
    assert {v.tags.area for v in generated} == {"cache", "snapshot", "node_tree", "dispatcher", "cycle", "queue"}
    assert {(v.tags.area, v.tags.origin) for v in generated} >= {
        (area, origin) for area in ("cycle", "queue") for origin in ("curated", "exploration", "random")}
    explored = {v.id for v in generated if v.tags.origin == "exploration"}
    assert "explore.cache.remove_node.nodenotintree.node_ghost" in explored
    assert any(i.startswith("explore.dispatcher.add_call.skipped.") for i in explored)
    # one vector for every profile: TaintToleration's message names no taint in v1.34.12 either (it did in v1.34.0,
    # whose profile setting taint_reason_names_the_taint no profile sets now)
    assert "explore.cycle.schedule_pod.unschedulable_tainttoleration.pending.node_live" in explored
    assert "explore.cycle.confirm_binding.ok.unconfirmed_expired" in explored  # the k8s-106361 path
    assert "explore.queue.hints_on.queue_add_unschedulable.unschedulable.in_flight" in explored
    assert "explore.queue.hints_off.queue_add_unschedulable.backoff.out" in explored  # moveRequestCycle


def test_node_operations_return_node_info_up_to_v1_36(generated: list[Vector]) -> None:
    """AddNode/UpdateNode return the NodeInfo clone (Kubernetes' n.info.Snapshot()) except from v1.37."""
    by_id = {v.id: v for v in generated if v.id.startswith("cache.node.add_and_update_return_node_info")}
    assert len(by_id) == 2
    for vector in by_id.values():
        returns = "v1.36" in vector.tags.profiles
        returned = [o["returned"] for s, o in observed(vector) if s.op in ("add_node", "update_node")]
        assert returned and all((r != "none") is returns for r in returned), vector.id
        if returns:
            assert returned[0]["pods"] == ["a"] and returned[0]["node"] == "n1"  # the placeholder's pod is kept


def test_metrics_follow_the_spec_gauge(generated: list[Vector]) -> None:
    vectors = [v for v in generated if v.id.startswith("cache.metrics.published_by_update_metrics")]
    assert vectors  # split by what add_node returns
    for vector in vectors:
        published = [o["metrics"] for s, o in observed(vector) if s.op == "update_metrics"]
        assert published == [{"assumed_pods": 1, "pods": 2, "nodes": 2}, {"assumed_pods": 1, "pods": 2, "nodes": 3},
                             {"assumed_pods": 0, "pods": 1, "nodes": 2}]  # forgetting its last pod deletes the ghost


def test_schedule_pod_verdicts_name_the_first_failing_filter(generated: list[Vector]) -> None:
    vector = next(v for v in generated if v.id == "cycle.filter.first_failing_in_order")
    unresolvable = "UnschedulableAndUnresolvable"  # each of these plugins' code (spec.cycle.filters.FILTER_CODES)
    assert observed(vector)[-1][1]["filters"] == {
        "w": {"plugin": "NodeAffinity", "code": unresolvable},
        "x": {"plugin": "NodeUnschedulable", "code": unresolvable},
        "y": {"plugin": "TaintToleration", "code": unresolvable}}
    taint = next(v for v in generated if v.id == "cycle.filter.taint.v1_35")  # split by the scores of its placements
    verdicts = [(s.expect.status, s.expect.kind) for s in taint.steps if s.op == "schedule_pod"]
    assert verdicts == [("error", "Unschedulable"), ("ok", None), ("ok", None)]


def test_every_operation_is_exercised(generated: list[Vector]) -> None:
    assert {step.op for v in generated for step in v.steps} == set(OPERATIONS)


def test_write_removes_only_the_vector_files_it_wrote(tmp_path: Path) -> None:
    directory = tmp_path / "out"
    vectors = load_vectors()
    generate.write([v for v in vectors if v.tags.area in ("snapshot", "node_tree")], directory)
    assert (directory / "snapshot.curated.json").is_file()
    mine = directory / "my-settings.json"
    mine.write_text('{"keep": true}')
    other = directory / "notes.json"
    other.write_text("[]")
    generate.write([v for v in vectors if v.tags.area == "node_tree"], directory)
    assert mine.read_text() == '{"keep": true}' and other.read_text() == "[]"  # not ours: untouched
    assert not list(directory.glob("snapshot.*.json"))  # ours, no longer generated: removed
    assert json.loads((directory / "manifest.json").read_text())["generated_by"] == GENERATED_BY
    (directory / "manifest.json").write_text('{"vectors": [{"file": "my-settings.json"}, {"file": "../x.json"}]}')
    assert generate.written_before(directory) == set()  # a manifest generate did not write names nothing of ours


def test_an_unwritable_directory_is_refused_before_generating(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    def not_now() -> None:
        raise AssertionError("generated before checking the directory")

    monkeypatch.setattr(generate, "generate_all", not_now)
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    for directory, why in ((blocker / "vectors", "Not a directory"), (blocker, "not a directory")):
        assert ksspec("conformance", "generate", "--directory", str(directory)) == 2
        out = capsys.readouterr().out
        assert out.startswith(f"error: --directory {directory}: cannot write the vectors (") and why in out, out
