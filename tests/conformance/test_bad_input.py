"""Bad input to ``ksspec conform`` is one clear line and exit code 2, before any vector runs: a missing or corrupted
vector file or manifest, a report path that cannot be written, an unknown version profile. (tests/test_packaging.py
damages the vectors of an installed wheel the same way.)"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from conformance.format import VECTORS, VectorFormatError, load_vectors
from conformance.usage import UsageError, check_report_path
from tests.conformance.cli import ksspec


@pytest.fixture
def vectors(tmp_path: Path) -> Path:
    """A copy of the packaged vectors, to damage."""
    copy = tmp_path / "vectors"
    shutil.copytree(Path(str(VECTORS)), copy)
    return copy


def one_line_exit_2(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    code = ksspec(*argv)
    captured = capsys.readouterr()
    lines = [line for line in (captured.out + captured.err).splitlines() if line.strip()]
    assert (code, len(lines)) == (2, 1), lines
    assert lines[0].startswith("error: ")
    return lines[0]


def test_a_missing_vector_file(vectors: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (vectors / "node_tree.curated.json").unlink()
    line = one_line_exit_2(capsys, "conform", "--vectors", str(vectors))
    assert line.startswith(f"error: vector file {vectors / 'node_tree.curated.json'} is missing (the manifest lists ")
    assert "regenerate them with `ksspec conformance generate`" in line and "reinstall kube-scheduler-spec" in line


def test_a_truncated_vector_file(vectors: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = vectors / "dispatcher.curated.json"
    path.write_text(path.read_text()[:500])
    line = one_line_exit_2(capsys, "conform", "--vectors", str(vectors))
    assert line.startswith(f"error: vector file {path} is not valid JSON (line ")


def test_a_vector_file_that_is_not_an_object(vectors: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (vectors / "cache.curated.json").write_text("[]")
    line = one_line_exit_2(capsys, "conform", "--vectors", str(vectors))
    assert "cache.curated.json is not a JSON object with a list of vectors" in line


@pytest.mark.parametrize(("content", "problem"), [
    ('{"vectors": ' + "[" * 200_000 + "]" * 200_000 + "}", "nested deeper than 64 levels"),
    ('{"vectors": [], "n": ' + "9" * 5_000 + "}", "an integer too long to read"),
], ids=["nested 200,000 deep", "5,000-digit integer"])
def test_a_vector_file_beyond_the_bounds(vectors: Path, capsys: pytest.CaptureFixture[str], content: str,
                                         problem: str) -> None:
    path = vectors / "cache.curated.json"
    path.write_text(content)
    line = one_line_exit_2(capsys, "conform", "--vectors", str(vectors))
    assert line.startswith(f"error: vector file {path} is not a JSON file ksspec reads ({problem}"), line
    (vectors / "manifest.json").write_text(content)
    line = one_line_exit_2(capsys, "conformance", "coverage", "--vectors", str(vectors))
    assert f"the manifest {vectors / 'manifest.json'} is not a JSON file ksspec reads ({problem}" in line, line


def test_a_missing_or_corrupted_manifest(vectors: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (vectors / "manifest.json").write_text('{"vectors": ')
    line = one_line_exit_2(capsys, "conform", "--vectors", str(vectors))
    assert line.startswith(f"error: the manifest {vectors / 'manifest.json'} is not valid JSON")
    (vectors / "manifest.json").unlink()
    line = one_line_exit_2(capsys, "conform", "--vectors", str(vectors))
    assert line.startswith(f"error: the manifest {vectors / 'manifest.json'} is missing")
    empty = vectors.parent / "nothing-here"
    line = one_line_exit_2(capsys, "conform", "--vectors", str(empty))
    assert line.startswith(f"error: the manifest {empty / 'manifest.json'} is missing")


def test_a_vector_changed_after_generation_fails_its_checksum(vectors: Path) -> None:
    path = vectors / "snapshot.curated.json"
    path.write_text(path.read_text().replace('"description": "', '"description": "edited: ', 1))
    with pytest.raises(VectorFormatError, match="does not match its manifest checksum"):
        load_vectors(vectors)


@pytest.mark.parametrize("flag", ["--json", "--junit"])
def test_a_report_path_that_cannot_be_written(flag: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    missing = tmp_path / "no-such-dir" / "report.xml"
    line = one_line_exit_2(capsys, "conform", "--tag", "snapshot", flag, str(missing))
    assert line == f"error: {flag} {missing}: the directory {missing.parent} does not exist"
    line = one_line_exit_2(capsys, "conform", "--tag", "snapshot", flag, str(tmp_path))
    assert line == f"error: {flag} {tmp_path}: is a directory, not a file"
    a_file = tmp_path / "file"
    a_file.write_text("")
    line = one_line_exit_2(capsys, "conform", "--tag", "snapshot", flag, str(a_file / "report"))
    assert line == f"error: {flag} {a_file / 'report'}: the directory {a_file} does not exist"


def test_the_report_path_probe_leaves_nothing_and_changes_nothing(tmp_path: Path) -> None:
    new = tmp_path / "new.json"
    check_report_path("--json", new)
    assert not new.exists()
    old = tmp_path / "old.json"
    old.write_text("kept")
    check_report_path("--json", old)
    assert old.read_text() == "kept"
    with pytest.raises(UsageError, match="is a directory"):
        check_report_path("--json", tmp_path)


def test_an_unknown_profile(capsys: pytest.CaptureFixture[str]) -> None:
    line = one_line_exit_2(capsys, "conform", "--profile", "v1.99")
    assert line == "error: --profile: unknown version profile 'v1.99'; known: pr141745, v1.34, v1.35, v1.36, v1.37"


def test_a_known_profile_still_runs(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    report = tmp_path / "report.json"
    assert ksspec("conform", "--profile", "v1.35", "--tag", "snapshot", "--no-progress", "--json", str(report)) == 0
    assert report.is_file() and "conform passed" in capsys.readouterr().out
