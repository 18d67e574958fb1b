"""Run CrossHair over every module whose functions state ``pre:`` / ``post:`` contracts.

CrossHair (https://crosshair.readthedocs.io) executes a function symbolically and searches for
inputs that satisfy its ``pre:`` conditions and falsify a ``post:`` condition (or raise). It finds
counterexamples; when it finds none within its per-condition timeout that is evidence, not a
proof, so the verdict is "no counterexample". Contracts are written in docstrings (PEP 316)::

    def add_into(total: dict[str, int], delta: Mapping[str, int]) -> None:
        \"\"\"...
        post: all(total[k] == __old__.total.get(k, 0) + delta[k] for k in delta)
        \"\"\"

``ksspec prove`` runs :func:`check_all` over ``refimpl/`` after the Z3 obligations.
"""

from __future__ import annotations

import ast
import re
import subprocess
import sys
import time
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Final

DEFAULT_ROOTS: Final = ("refimpl",)
DEFAULT_PER_CONDITION_TIMEOUT: Final = 5.0
"""Seconds CrossHair spends on each condition of each function."""
MODULE_TIMEOUT: Final = 600.0
"""Seconds after which a module's run is abandoned (reported as an error)."""

_CONTRACT_LINE = re.compile(r"^\s*(pre|post)(\[[^\]]*\])?:", re.MULTILINE)
_FINDING = re.compile(r"^(?P<path>[^:\n]+):(?P<line>\d+): error: (?P<message>.*)$", re.MULTILINE)


class CrosshairVerdict(StrEnum):
    NO_COUNTEREXAMPLE = "no counterexample"
    COUNTEREXAMPLE = "counterexample"
    ERROR = "error"


@dataclass(frozen=True)
class CrosshairResult:
    """What CrossHair found in one module."""

    path: Path
    verdict: CrosshairVerdict
    seconds: float
    findings: tuple[str, ...]
    """One line per counterexample: ``path:line: error: message``."""
    output: str


def has_contracts(path: Path) -> bool:
    """Whether a function or class docstring in ``path`` states a ``pre:`` or ``post:`` condition."""
    try:
        tree = ast.parse(path.read_text(encoding="utf-8"))
    except (SyntaxError, UnicodeDecodeError):
        return False
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            docstring = ast.get_docstring(node)
            if docstring and _CONTRACT_LINE.search(docstring):
                return True
    return False


def modules_with_contracts(root: Path, roots: tuple[str, ...] = DEFAULT_ROOTS) -> list[Path]:
    """Every ``.py`` file under ``roots`` (relative to ``root``, files or directories) with contracts."""
    found: list[Path] = []
    for name in roots:
        base = root / name
        candidates = [base] if base.is_file() else sorted(base.rglob("*.py")) if base.is_dir() else []
        found.extend(path for path in candidates if has_contracts(path))
    return found


def run_crosshair(
    path: Path, root: Path, per_condition_timeout: float = DEFAULT_PER_CONDITION_TIMEOUT
) -> CrosshairResult:
    """``crosshair check`` on one file, from ``root`` (so its imports resolve as in the project)."""
    command = [
        sys.executable,
        "-m",
        "crosshair",
        "check",
        "--per_condition_timeout",
        str(per_condition_timeout),
        str(path),
    ]
    started = time.perf_counter()
    try:
        completed = subprocess.run(
            command, cwd=root, capture_output=True, text=True, check=False, timeout=MODULE_TIMEOUT
        )
    except subprocess.TimeoutExpired:
        seconds = time.perf_counter() - started
        return CrosshairResult(path, CrosshairVerdict.ERROR, seconds, (), f"timed out after {MODULE_TIMEOUT:g}s")
    seconds = time.perf_counter() - started
    output = completed.stdout + completed.stderr
    findings = tuple(m.group(0) for m in _FINDING.finditer(output))
    if completed.returncode == 0:
        return CrosshairResult(path, CrosshairVerdict.NO_COUNTEREXAMPLE, seconds, (), output)
    if findings:
        return CrosshairResult(path, CrosshairVerdict.COUNTEREXAMPLE, seconds, findings, output)
    return CrosshairResult(path, CrosshairVerdict.ERROR, seconds, (), output)


def check_all(
    root: Path,
    roots: tuple[str, ...] = DEFAULT_ROOTS,
    per_condition_timeout: float = DEFAULT_PER_CONDITION_TIMEOUT,
) -> list[CrosshairResult]:
    """Run CrossHair on every module with contracts under ``roots``."""
    return [run_crosshair(path, root, per_condition_timeout) for path in modules_with_contracts(root, roots)]
