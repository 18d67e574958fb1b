"""The generator: determinism, committed vectors match the spec, drift is detected and named."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from conformance import generate
from conformance.format import VECTORS_DIR, Vector, load_vectors, render_files
from conformance.scenarios import curated
from conformance.traces import expand


@pytest.fixture(scope="module")
def generated() -> list[Vector]:
    return generate.generate_all()


def test_committed_vectors_match_the_spec(generated: list[Vector]) -> None:
    """What CI runs as `ksspec conformance generate --check`."""
    assert generate.drift(generated, VECTORS_DIR) == []


def test_generation_is_deterministic() -> None:
    once = [v for s in [*curated(), *generate.random_scenarios()] for v in expand(s)]
    again = [v for s in [*curated(), *generate.random_scenarios()] for v in expand(s)]
    assert render_files(once) == render_files(again)


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
    assert {v.tags.area for v in generated} == {"cache", "snapshot", "node_tree", "dispatcher"}
    assert {v.tags.origin for v in generated} == {"curated", "exploration", "random"}
    explored = {v.id for v in generated if v.tags.origin == "exploration"}
    assert "explore.cache.remove_node.nodenotintree.node_ghost" in explored
    assert any(i.startswith("explore.dispatcher.add_call.skipped.") for i in explored)
