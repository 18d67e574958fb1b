"""examples/go-cache-adapter: a cache written from scratch in Go (standard library only) passes the cache, snapshot and
node_tree vectors through ``ksspec conform --adapter``. Skipped, with the reason, where Go is not installed."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.conformance.cli import ksspec

ADAPTER = Path(__file__).resolve().parents[2] / "examples" / "go-cache-adapter"
AREAS = ("cache", "snapshot", "node_tree")


def test_it_needs_nothing_but_the_standard_library() -> None:
    assert "require" not in (ADAPTER / "go.mod").read_text()
    for source in ADAPTER.glob("*.go"):
        block = re.search(r"^import \(\n(.*?)\n\)|^import (\"[^\"]+\")", source.read_text(), re.S | re.M)
        imports = re.findall(r'"([^"]+)"', block.group(0)) if block else []
        assert all("." not in path.split("/")[0] for path in imports), (source.name, imports)


@pytest.fixture(scope="module")
def binary(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if shutil.which("go") is None:
        pytest.skip("Go is not installed: the Go cache adapter cannot be built")
    out = tmp_path_factory.mktemp("go") / "go-cache-adapter"
    env = {**os.environ, "GOPROXY": "off", "GOFLAGS": "-mod=mod"}  # no module download can happen
    built = subprocess.run(["go", "build", "-o", str(out), "."], cwd=ADAPTER, env=env, capture_output=True,
                           text=True, timeout=600)
    assert built.returncode == 0, built.stderr
    return out


def test_smoke_passes_and_names_the_implementation(binary: Path, tmp_path: Path) -> None:
    report = tmp_path / "smoke.json"
    assert ksspec("conform", "--smoke", "--no-progress", "--adapter", str(binary), "--json", str(report)) == 0
    data = json.loads(report.read_text())
    assert data["metadata"]["name"] == "go-cache-adapter" and data["metadata"]["language"] == "go"
    assert data["metadata"]["areas"] == sorted(AREAS)
    assert {r["area"] for r in data["results"]} == set(AREAS)


@pytest.mark.parametrize("profile", ["v1.34", "v1.37"])
def test_every_cache_snapshot_and_node_tree_vector_of_the_profile_passes(binary: Path, tmp_path: Path,
                                                                          profile: str) -> None:
    report = tmp_path / "run.json"
    tags = [arg for area in AREAS for arg in ("--tag", area)]
    code = ksspec("conform", "--no-progress", "-j", "2", "--adapter", str(binary), "--profile", profile, *tags,
                  "--json", str(report))
    data = json.loads(report.read_text())
    failed = [(r["id"], r["detail"], r["diff"][:2]) for r in data["results"] if r["outcome"] not in ("pass", "skip")]
    assert (code, failed[:3]) == (0, [])
    assert data["summary"]["pass"] > 150
