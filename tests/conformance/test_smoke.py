"""``ksspec conform --smoke``: a few vectors per declared area, the first failure explained; ``hello`` metadata in
the reports."""

from __future__ import annotations

import json
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from conformance.format import Vector, load_vectors
from conformance.runner import Outcome, Target, choose_profile
from conformance.smoke import PER_AREA, metadata, probe, smoke_selection
from tests.conformance.cli import ksspec

FAULTY = "tests.conformance.gallery.faulty:GALLERY_non_zero_without_defaults"
"""A faulty cache (no non-zero defaults) that the first smoke vector of the cache area catches."""


@pytest.fixture(scope="module")
def vectors() -> list[Vector]:
    return load_vectors()


def test_the_selection_is_a_few_vectors_of_each_declared_area_under_a_declared_profile(vectors: list[Vector]) -> None:
    hello = {"capabilities": {"areas": ["dispatcher", "cache"], "profiles": ["v1.34"]}}
    chosen = smoke_selection(vectors, hello, None)
    assert [v.tags.area for v in chosen] == ["cache"] * PER_AREA + ["dispatcher"] * PER_AREA
    assert all(v.tags.origin == "curated" and "v1.34" in v.tags.profiles for v in chosen)
    assert len({v.id for v in chosen}) == len(chosen)
    assert smoke_selection(vectors, hello, None) == chosen  # deterministic
    assert max(len(v.steps) for v in chosen) > 1  # not only one-step traces
    assert smoke_selection(vectors, {"capabilities": {"areas": [], "profiles": ["v1.35"]}}, None) == []
    only = smoke_selection(vectors, hello, "v1.35")  # a profile the adapter does not declare: nothing to run
    assert [v for v in only if choose_profile(v, ["v1.34"], "v1.35") is None] == only == []


def test_metadata_keeps_the_strings_the_adapter_gave() -> None:
    hello = {"implementation": "mine", "language": "go", "version": 3, "homepage": "https://x.test/" + "a" * 500,
             "capabilities": {"areas": ["cache"], "profiles": ["v1.35"]}}
    homepage = ("https://x.test/" + "a" * 500)[:200]
    assert metadata(hello, "./cmd") == {"name": "mine", "language": "go", "homepage": homepage, "areas": ["cache"],
                                        "profiles": ["v1.35"]}
    assert probe(Target(impl="refimpl"))["language"] == "python"


def test_smoke_passes_on_refimpl_and_reports_its_metadata(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    report, junit = tmp_path / "r.json", tmp_path / "r.xml"
    assert ksspec("conform", "--smoke", "--no-progress", "--json", str(report), "--junit", str(junit)) == 0
    data = json.loads(report.read_text())
    assert data["metadata"]["name"] == "refimpl" and data["metadata"]["language"] == "python"
    areas = data["metadata"]["areas"]
    assert data["summary"]["pass"] == PER_AREA * len(areas) and len(data["results"]) == PER_AREA * len(areas)
    suites = ET.parse(junit).getroot().findall("testsuite")
    assert {p.get("name"): p.get("value") for p in suites[0].iter("property")}["implementation.language"] == "python"
    assert "up to 3 per declared area" in capsys.readouterr().out


def test_smoke_explains_the_first_failure(capsys: pytest.CaptureFixture[str]) -> None:
    assert ksspec("conform", "--smoke", "--no-progress", "--impl", FAULTY) == 1
    out = capsys.readouterr().out
    explained = out[out.index("the first failure, explained"):]
    assert "FAIL cache." in explained
    assert 'sent:     {"type":"step","index":0,"op":"assume_pod"' in explained
    assert "non_zero_requested.milli_cpu: expected 100, got 0" in explained
    assert "docs/contract/cache.md (operation assume_pod)" in explained


def test_smoke_stops_at_a_failed_handshake(capsys: pytest.CaptureFixture[str]) -> None:
    adapter = f"{sys.executable} -m tests.conformance.broken_adapter version x"
    assert ksspec("conform", "--smoke", "--no-progress", "--adapter", adapter) == 2
    assert "smoke: the handshake failed" in capsys.readouterr().out


def test_a_full_run_with_a_report_carries_the_metadata(tmp_path: Path) -> None:
    report = tmp_path / "r.json"
    assert ksspec("conform", "--no-progress", "--tag", "cache.assume.non_zero_defaults", "--json", str(report)) == 0
    data = json.loads(report.read_text())
    assert data["metadata"]["name"] == "refimpl"
    assert [r["outcome"] for r in data["results"]] == [Outcome.PASS.value]
