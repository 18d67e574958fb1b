"""Figures the README and the docs state in prose, checked against what they count, so they cannot go stale.

Tables that are generated (the vector counts, the gallery, Kubernetes' results, behaviour coverage) have tests of their
own; this file holds the figures written in sentences.
"""

from __future__ import annotations

import re
from pathlib import Path

from conformance.format import FORMAT_VERSION, VECTORS_DIR, load_manifest
from spec.verify.proof_groups import all_obligations

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text()
CONFORMANCE = (ROOT / "docs" / "conformance.md").read_text()
LAST_MINOR = {"1": 0, "2": 7}
"""The last minor version of each earlier major format version (2.7.0 came last of 2.x, merged before 3.0.0)."""


def test_the_readme_states_the_number_of_z3_obligations() -> None:
    stated = re.search(r"proves the (\d+) Z3 obligations", README)
    assert stated is not None
    assert int(stated.group(1)) == len(all_obligations())


def test_the_vector_files_size_count_and_format() -> None:
    stated = re.search(r"The vector files\s+total ([\d.]+) MB with their manifest \((\d+) vectors, format ([\d.]+);",
                       CONFORMANCE)
    assert stated is not None
    size = sum(p.stat().st_size for p in VECTORS_DIR.glob("*.json")) / 1e6
    assert float(stated.group(1)) == round(size, 1)
    assert int(stated.group(2)) == len(load_manifest()["vectors"])
    assert stated.group(3) == FORMAT_VERSION


def test_the_format_history_names_every_minor_version() -> None:
    named = set(re.findall(r"\*\*(\d+\.\d+)\.0\*\*", CONFORMANCE))
    major, minor, _ = FORMAT_VERSION.split(".")
    expected = {f"{m}.{n}" for m, last in LAST_MINOR.items() for n in range(last + 1) if m != "1"}
    expected |= {f"{major}.{n}" for n in range(int(minor) + 1)}
    assert expected - named == set()


def test_the_version_dependent_and_ported_counts() -> None:
    """docs/conformance.md's counts of `version-dependent` and `ported` vectors: the ported table cases, plus the
    score memo's re-runs of them (which carry the behaviour too), add up to every `ported` vector."""
    stated = re.search(r"([\d,]+) vectors are `version-dependent`.*?; ([\d,]+) port Kubernetes' table tests .*?and "
                       r"(\d+) more carry the `ported` behaviour.*?, ([\d,]+) in all;", CONFORMANCE, re.S)
    assert stated is not None
    dependent, ported, memo, total = (int(g.replace(",", "")) for g in stated.groups())
    vectors = load_manifest()["vectors"]
    assert dependent == sum(1 for v in vectors if "version-dependent" in v["behaviours"])
    tagged = [v["id"] for v in vectors if "ported" in v["behaviours"]]
    assert total == len(tagged)
    assert memo == sum(1 for i in tagged if i.startswith("cycle.score.memo."))
    assert ported == total - memo
