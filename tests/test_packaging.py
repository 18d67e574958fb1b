"""The installed ``ksspec``: the sdist and the wheel carry everything it reads at run time, and a wheel installed
into a fresh virtual environment passes the suite from a directory that is not the checkout.

The sdist is built from a copy holding only what a source distribution needs (``pyproject.toml``, the README and
the three packages), the wheel from the sdist (``python -m build``'s default), so a file the build leaves out fails
here. Installing pulls the dependencies from the package index, pinned by ``requirements/constraints.txt``: these
tests need the network, take a minute or two, and run in their own CI stage (``make test-packaging``); ``make
test`` skips them (they are marked ``packaging``; ``pytest --run-packaging`` runs them).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tarfile
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from conformance.cli.verify import CHECKS
from conformance.format import FORMAT_VERSION

pytestmark = pytest.mark.packaging

ROOT = Path(__file__).resolve().parent.parent
CONSTRAINTS = ROOT / "requirements" / "constraints.txt"
SDIST_SOURCES = ("pyproject.toml", "README.md", "spec", "refimpl", "conformance")
PACKAGE_DATA = sorted(
    str(path.relative_to(ROOT))
    for pattern in ("conformance/vectors/*.json", "conformance/schema/*.json")
    for path in ROOT.glob(pattern)
)
"""What ksspec reads at run time besides the code: every vector file, the manifest and the schema."""
INSTALL_TIMEOUT = 900  # seconds: the dependencies (z3-solver is ~30 MB) come from the package index


def clean_env(**extra: str) -> dict[str, str]:
    """The environment without anything pointing at the checkout or its virtual environment."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME")}
    env["PATH"] = os.pathsep.join(p for p in env.get("PATH", "").split(os.pathsep) if not p.startswith(str(ROOT)))
    env.setdefault("COLUMNS", "160")
    return {**env, **extra}


def run(argv: list[str | Path], cwd: Path, timeout: float = INSTALL_TIMEOUT, **env: str
        ) -> subprocess.CompletedProcess[str]:
    """``argv`` in ``cwd`` with :func:`clean_env` (plus ``env``); its output as text."""
    return subprocess.run([str(a) for a in argv], cwd=cwd, env=clean_env(**env), capture_output=True, text=True,
                          timeout=timeout, check=False)


def ok(completed: subprocess.CompletedProcess[str]) -> str:
    assert completed.returncode == 0, f"{completed.args} exited {completed.returncode}:\n{completed.stdout}\n" \
                                      f"{completed.stderr}"
    return completed.stdout


@dataclass(frozen=True)
class Installed:
    venv: Path
    site_packages: Path
    elsewhere: Path
    """A directory with no checkout in or above it: where the user runs ksspec."""

    @property
    def python(self) -> Path:
        return self.venv / "bin" / "python"

    @property
    def ksspec(self) -> Path:
        return self.venv / "bin" / "ksspec"


@pytest.fixture(scope="module")
def dist(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The sdist and the wheel (built from the sdist) of a copy of the project's sources."""
    source = tmp_path_factory.mktemp("source")
    for name in SDIST_SOURCES:
        if (ROOT / name).is_dir():
            shutil.copytree(ROOT / name, source / name, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy2(ROOT / name, source / name)
    out = tmp_path_factory.mktemp("dist")
    ok(run([sys.executable, "-m", "build", "--outdir", out, source], cwd=out))
    return out


@pytest.fixture(scope="module")
def wheel(dist: Path) -> Path:
    (built,) = dist.glob("*.whl")
    return built


@pytest.fixture(scope="module")
def installed(wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Installed:
    """The wheel installed (not editable) with its pinned dependencies into a fresh virtual environment."""
    base = tmp_path_factory.mktemp("installed")
    venv = base / "venv"
    ok(run([sys.executable, "-m", "venv", venv], cwd=base))
    ok(run([venv / "bin" / "python", "-m", "pip", "install", "-q", "-c", CONSTRAINTS, wheel], cwd=base))
    site = ok(run([venv / "bin" / "python", "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                  cwd=base))
    elsewhere = base / "elsewhere"
    elsewhere.mkdir()
    return Installed(venv, Path(site.strip()), elsewhere)


def test_the_wheel_and_the_sdist_carry_the_vectors_manifest_and_schema(dist: Path, wheel: Path) -> None:
    assert {"conformance/vectors/manifest.json", "conformance/schema/vector.schema.json"} <= set(PACKAGE_DATA)
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
    assert [name for name in PACKAGE_DATA if name not in names] == []
    assert {"conformance/cli/main.py", "refimpl/cache/cache.py", "spec/verify/checker.py"} <= names
    (sdist,) = dist.glob("*.tar.gz")
    with tarfile.open(sdist) as archive:
        members = {name.split("/", 1)[1] for name in archive.getnames() if "/" in name}
    assert [name for name in PACKAGE_DATA if name not in members] == []
    with zipfile.ZipFile(wheel) as archive:
        for name in PACKAGE_DATA:  # the very bytes of the checkout
            assert archive.read(name) == (ROOT / name).read_bytes(), name


def test_the_installed_packages_are_imported_from_the_environment_not_the_checkout(installed: Installed) -> None:
    out = ok(run([installed.python, "-c", "import conformance, refimpl, spec; "
                  "print(conformance.__file__, refimpl.__file__, spec.__file__)"], cwd=installed.elsewhere))
    for path in out.split():
        assert Path(path).is_relative_to(installed.site_packages), path


def test_version_prints_the_package_version_and_the_vectors_format_version(installed: Installed) -> None:
    out = ok(run([installed.ksspec, "--version"], cwd=installed.elsewhere))
    manifest = json.loads((ROOT / "conformance" / "vectors" / "manifest.json").read_text())
    assert out.startswith(f"ksspec 0.1.0; vectors format_version {FORMAT_VERSION} ({len(manifest['vectors'])} ")
    assert str(installed.site_packages / "conformance" / "vectors") in out


def test_installed_ksspec_conforms_the_reference_implementation_from_elsewhere(installed: Installed) -> None:
    report = installed.elsewhere / "refimpl.json"
    out = ok(run([installed.ksspec, "conform", "--impl", "refimpl", "--no-progress", "--json", report],
                 cwd=installed.elsewhere))
    assert "conform passed" in out
    summary = json.loads(report.read_text())["summary"]
    assert summary["pass"] == len(json.loads((ROOT / "conformance/vectors/manifest.json").read_text())["vectors"])
    assert summary["fail"] == summary["error"] == 0


def test_installed_ksspec_conforms_the_example_adapter_copied_elsewhere(installed: Installed) -> None:
    """The minimal adapter, copied into the user's project, runs with the installed packages."""
    shutil.copy2(ROOT / "examples" / "minimal_adapter.py", installed.elsewhere / "minimal_adapter.py")
    report = installed.elsewhere / "adapter.json"
    adapter = f"{installed.python} minimal_adapter.py"
    out = ok(run([installed.ksspec, "conform", "--adapter", adapter, "--no-progress", "--json", report],
                 cwd=installed.elsewhere))
    assert "conform passed" in out
    data = json.loads(report.read_text())
    assert {r["area"] for r in data["results"] if r["outcome"] == "pass"} == {"cache", "snapshot", "node_tree"}
    assert data["summary"]["fail"] == data["summary"]["error"] == 0


def test_installed_ksspec_verify_runs_what_the_package_carries(installed: Installed) -> None:
    """Outside a checkout: the refinement row needs the test suite (NOT RUN, said why), every other row runs."""
    completed = run([installed.ksspec, "verify", "--no-progress"], cwd=installed.elsewhere)
    out = ok(completed)
    assert f"in {installed.site_packages}" in out and "not a checkout" in out
    rows = [line for line in out.splitlines() if line.startswith("│ ") and ("PASS" in line or "NOT RUN" in line)]
    assert len(rows) == len(CHECKS)  # one row per check of the fast profile
    (not_run,) = [row for row in rows if "NOT RUN" in row]
    assert not_run.startswith("│ refimpl refines spec") and "needs a checkout" in not_run
    assert "verify passed" in out


@pytest.fixture
def damaged(installed: Installed) -> Iterator[Path]:
    """The installed vector directory, restored after the test damages it."""
    vectors = installed.site_packages / "conformance" / "vectors"
    backup = installed.venv.parent / "vectors-backup"
    shutil.copytree(vectors, backup)
    yield vectors
    shutil.rmtree(vectors)
    shutil.copytree(backup, vectors)
    shutil.rmtree(backup)


def one_line_exit_2(completed: subprocess.CompletedProcess[str]) -> str:
    lines = [line for line in (completed.stdout + completed.stderr).splitlines() if line.strip()]
    assert completed.returncode == 2 and len(lines) == 1, (completed.returncode, lines)
    return lines[0]


def test_a_missing_installed_vector_file_is_one_line_and_exit_2(installed: Installed, damaged: Path) -> None:
    (damaged / "snapshot.curated.json").unlink()
    line = one_line_exit_2(run([installed.ksspec, "conform", "--impl", "refimpl"], cwd=installed.elsewhere))
    assert line.startswith(f"error: vector file {damaged / 'snapshot.curated.json'} is missing")
    assert "reinstall kube-scheduler-spec" in line


def test_a_corrupted_installed_vector_file_is_one_line_and_exit_2(installed: Installed, damaged: Path) -> None:
    path = damaged / "cycle.curated.json"
    path.write_text(path.read_text()[:1000])
    line = one_line_exit_2(run([installed.ksspec, "conform", "--impl", "refimpl"], cwd=installed.elsewhere))
    assert line.startswith(f"error: vector file {path} is not valid JSON (line ")


def test_a_corrupted_installed_manifest_is_one_line_and_exit_2(installed: Installed, damaged: Path) -> None:
    (damaged / "manifest.json").write_text("{")
    line = one_line_exit_2(run([installed.ksspec, "conform", "--impl", "refimpl"], cwd=installed.elsewhere))
    assert line.startswith(f"error: the manifest {damaged / 'manifest.json'} is not valid JSON")
    version = run([installed.ksspec, "--version"], cwd=installed.elsewhere)
    assert version.returncode == 2 and "is not valid JSON" in version.stdout


def test_pipx_installs_ksspec_from_a_pinned_git_url(tmp_path: Path) -> None:
    """As the CI example does, but with pipx: a commit of this repository, by URL, not editable."""
    if not (ROOT / ".git").exists():
        pytest.skip("not a git checkout")
    commit = ok(run(["git", "rev-parse", "HEAD"], cwd=ROOT)).strip()
    home, bin_dir = tmp_path / "pipx-home", tmp_path / "bin"
    url = f"kube-scheduler-spec @ git+file://{ROOT}@{commit}"
    pipx = [sys.executable, "-m", "pipx"]
    ok(run([*pipx, "install", "--pip-args", f"-c {CONSTRAINTS}", url], cwd=tmp_path, PIPX_HOME=str(home),
           PIPX_BIN_DIR=str(bin_dir), PIPX_MAN_DIR=str(tmp_path / "man")))
    out = ok(run([bin_dir / "ksspec", "--version"], cwd=tmp_path))
    assert out.startswith("ksspec 0.1.0; vectors format_version ") and str(home) in out
    out = ok(run([bin_dir / "ksspec", "conform", "--impl", "refimpl", "--no-progress"], cwd=tmp_path))
    assert "conform passed" in out
