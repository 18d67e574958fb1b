"""The README's figures about ``make verify`` are not stale: the number of Z3 obligations it names is the number
``ksspec prove`` discharges, the checks it counts are the fast profile's, and the commit its measured run names is
in this checkout's history."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from conformance.cli.verify import FAST
from spec.verify.cache.symbolic import DEFAULT_NODES, DEFAULT_PODS, Bounds
from spec.verify.dispatcher.symbolic import DEFAULT_CALL_TYPES, DEFAULT_UIDS, DispatcherBounds
from spec.verify.proof_groups import all_obligations

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")


def _verify_section() -> str:
    start = README.index("## make verify")
    return README[start:README.index("\n## ", start + 1)]


def test_the_obligation_count_is_what_ksspec_prove_discharges() -> None:
    named = [int(n) for n in re.findall(r"proves the (\d+) Z3 obligations", _verify_section())]
    bounds = Bounds(DEFAULT_PODS, DEFAULT_NODES)
    obligations = all_obligations(bounds, DispatcherBounds(DEFAULT_UIDS, DEFAULT_CALL_TYPES))
    assert named == [len(obligations)]


def test_the_check_count_is_the_fast_profiles() -> None:
    counted = [int(n) for n in re.findall(r"its (\d+) checks", _verify_section())]
    assert counted and set(counted) == {len(FAST.checks)}


def test_the_measured_commit_is_in_this_history() -> None:
    commits = re.findall(r"fresh clone of ([0-9a-f]{7,40})", _verify_section())
    assert commits, "the README names the commit its make verify figures were measured on"
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("not a git checkout")
    shallow = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--is-shallow-repository"], capture_output=True,
                             text=True, check=False)
    if shallow.stdout.strip() == "true":
        pytest.skip("a shallow clone lacks the history")
    for commit in commits:
        done = subprocess.run(["git", "-C", str(ROOT), "merge-base", "--is-ancestor", commit, "HEAD"],
                              capture_output=True, text=True, check=False)
        assert done.returncode == 0, f"{commit} is not an ancestor of HEAD: {done.stderr.strip()}"
