"""The README's install lines work: no placeholder URL, the local forms pip accepts, the ksspec lines valid."""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from conformance.cli.main import build_parser

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text()


def _install_block() -> str:
    start = README.index("**Installed, to run the conformance suite")
    block = re.search(r"```sh\n(.*?)```", README[start:], re.S)
    assert block is not None
    return block.group(1)


def test_no_placeholder_url() -> None:
    assert "github.com/example" not in README


def test_the_ksspec_lines_of_the_install_block_parse() -> None:
    lines = [line.split("#")[0].strip() for line in _install_block().splitlines()]
    commands = [shlex.split(line)[1:] for line in lines if line.startswith("ksspec ") and "--version" not in line]
    assert len(commands) >= 3
    for argv in commands:
        build_parser().parse_args(argv)  # exits 2 on a bad line


@pytest.mark.packaging
@pytest.mark.parametrize("requirement", [f"{ROOT}[crosshair]", f"git+file://{ROOT}@HEAD"])
def test_the_local_install_forms_resolve(requirement: str) -> None:
    """What the README says works for a checkout: a path with extras, a bare git+file URL at a commit (pip's dry run,
    no dependencies; pip fetches the build backend, so this runs with --run-packaging, as make test-packaging does)."""
    if requirement.endswith("@HEAD"):
        commit = subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True).stdout.strip()
        requirement = requirement.replace("@HEAD", f"@{commit}")
    done = subprocess.run([sys.executable, "-m", "pip", "install", "--dry-run", "--no-deps", "--quiet", "--report", "-",
                           requirement], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    assert '"name": "kube-scheduler-spec"' in done.stdout
