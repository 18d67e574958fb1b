"""``ksspec conformance export``: the vectors, manifest and schemas as one deterministic, versioned tar.gz."""

from __future__ import annotations

import hashlib
import json
import tarfile
from pathlib import Path

import pytest

from conformance.cli.export import archive_bytes, archive_name
from conformance.cli.main import main
from conformance.format import FORMAT_VERSION, SCHEMA_DIR, VECTORS_DIR, load_vectors


def test_two_exports_are_byte_identical(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    first, second = tmp_path / "a.tar.gz", tmp_path / "b.tar.gz"
    assert main(["conformance", "export", "--output", str(first)]) == 0
    assert main(["conformance", "export", "--output", str(second)]) == 0
    assert first.read_bytes() == second.read_bytes()
    assert hashlib.sha256(first.read_bytes()).hexdigest() in capsys.readouterr().out


def test_the_archive_holds_the_vectors_manifest_schemas_and_version(tmp_path: Path) -> None:
    name, data = archive_bytes(VECTORS_DIR, SCHEMA_DIR)
    assert name == archive_name(FORMAT_VERSION) == f"kube-scheduler-spec-conformance-{FORMAT_VERSION}.tar.gz"
    path = tmp_path / name
    path.write_bytes(data)
    root = f"kube-scheduler-spec-conformance-{FORMAT_VERSION}"
    with tarfile.open(path) as tar:
        members = tar.getmembers()
        assert all(m.mtime == 0 and m.uid == 0 and m.uname == "" and m.mode == 0o644 for m in members)
        tar.extractall(tmp_path, filter="data")
    names = {m.name for m in members}
    assert f"{root}/vectors/manifest.json" in names
    assert {f"{root}/schema/vector.schema.json", f"{root}/schema/protocol.schema.json", f"{root}/VERSION"} <= names
    assert {p.name for p in VECTORS_DIR.glob("*.json")} == {Path(n).name for n in names if "/vectors/" in n}
    extracted = tmp_path / root
    manifest = json.loads((VECTORS_DIR / "manifest.json").read_text())
    assert len(load_vectors(extracted / "vectors")) == len(manifest["vectors"])
    for schema in ("vector.schema.json", "protocol.schema.json"):
        assert (extracted / "schema" / schema).read_bytes() == (SCHEMA_DIR / schema).read_bytes()
    assert f"format_version {FORMAT_VERSION}" in (extracted / "VERSION").read_text()
    # The extracted vectors run as they are (what an implementer pinning the archive does).
    assert main(["conform", "--smoke", "--no-progress", "--vectors", str(extracted / "vectors")]) == 0


def test_vectors_that_do_not_load_are_not_exported(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    broken = tmp_path / "vectors"
    broken.mkdir()
    for path in VECTORS_DIR.glob("*.json"):
        (broken / path.name).write_bytes(path.read_bytes())
    data = json.loads((broken / "cache.curated.json").read_text())
    data["vectors"][0]["description"] = "edited by hand"
    (broken / "cache.curated.json").write_text(json.dumps(data))
    out = tmp_path / "x.tar.gz"
    assert main(["conformance", "export", "--vectors", str(broken), "--output", str(out)]) == 2
    assert "does not match its manifest checksum" in capsys.readouterr().out
    assert not out.exists()
