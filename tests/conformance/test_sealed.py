"""The loader's sealed files (:func:`conformance.format.sealed_files`): a vector file whose bytes the manifest
records, for the current loader schema, skips the schema check, and loading returns exactly what the full check
returns; a changed file, or a manifest written for another schema, is checked in full."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from conformance.format import (
    MANIFEST_NAME,
    VECTORS_DIR,
    VectorFormatError,
    file_digest,
    load_vectors,
    loader_schema_digest,
    sealed_files,
)


def test_the_committed_manifest_seals_every_vector_file() -> None:
    manifest = json.loads((VECTORS_DIR / MANIFEST_NAME).read_text(encoding="utf-8"))
    files = sorted(p.name for p in VECTORS_DIR.glob("*.json") if p.name != MANIFEST_NAME)
    assert manifest["schema_sha256"] == loader_schema_digest()
    assert sealed_files(manifest) == {name: file_digest((VECTORS_DIR / name).read_bytes()) for name in files}


def test_sealed_and_full_loads_are_identical() -> None:
    """The speed-up leaves the result identical: every vector, in the same order, equal field by field."""
    assert load_vectors() == load_vectors(trust_sealed=False)


def test_a_manifest_for_another_schema_seals_nothing() -> None:
    manifest = {"schema_sha256": "0" * 64, "files": {"cache.curated.json": "0" * 64}}
    assert sealed_files(manifest) == {}
    assert sealed_files({"files": {"cache.curated.json": "0" * 64}}) == {}
    assert sealed_files({"schema_sha256": loader_schema_digest(), "files": [1]}) == {}


@pytest.fixture
def copy_of_vectors(tmp_path: Path) -> Path:
    directory = tmp_path / "vectors"
    directory.mkdir()
    for name in ("manifest.json", "dispatcher.exploration.json", "dispatcher.curated.json"):
        shutil.copy(VECTORS_DIR / name, directory / name)
    manifest = json.loads((directory / MANIFEST_NAME).read_text(encoding="utf-8"))
    manifest["vectors"] = [e for e in manifest["vectors"] if e["file"] in {"dispatcher.exploration.json",
                                                                          "dispatcher.curated.json"}]
    (directory / MANIFEST_NAME).write_text(json.dumps(manifest), encoding="utf-8")
    return directory


def test_a_changed_file_is_checked_in_full(copy_of_vectors: Path) -> None:
    """A schema violation in a file whose bytes changed is found although the manifest still names the file:
    the sealed path would have skipped it."""
    path = copy_of_vectors / "dispatcher.curated.json"
    content = json.loads(path.read_text(encoding="utf-8"))
    content["vectors"][0]["ttl_ns"] = "soon"
    path.write_text(json.dumps(content, indent=1), encoding="utf-8")
    with pytest.raises(VectorFormatError, match=r"(?s)dispatcher\.curated\.json\[0\].*not valid.*ttl_ns"):
        load_vectors(copy_of_vectors)


def test_a_sealed_file_still_has_its_checksums_compared(copy_of_vectors: Path) -> None:
    manifest = json.loads((copy_of_vectors / MANIFEST_NAME).read_text(encoding="utf-8"))
    victim = manifest["vectors"][0]
    victim["sha256"] = "0" * 64
    (copy_of_vectors / MANIFEST_NAME).write_text(json.dumps(manifest), encoding="utf-8")
    assert victim["file"] in sealed_files(manifest)
    with pytest.raises(VectorFormatError, match="does not match its manifest checksum"):
        load_vectors(copy_of_vectors)


def test_the_copy_loads_sealed_and_in_full_alike(copy_of_vectors: Path) -> None:
    sealed = load_vectors(copy_of_vectors)
    assert sealed and sealed == load_vectors(copy_of_vectors, trust_sealed=False)
