"""Run CrossHair over every function whose docstring states ``pre:`` / ``post:`` contracts.

CrossHair (https://crosshair.readthedocs.io) executes a function symbolically and searches for
inputs that satisfy its ``pre:`` conditions and falsify a ``post:`` condition (or raise). It finds
counterexamples; when it finds none within its per-condition timeout that is evidence, not a
proof, so the verdict is "no counterexample" (or "confirmed" when CrossHair exhausted every path).
Contracts are written in docstrings (PEP 316), one condition per line::

    def add_into(total: dict[str, int], delta: Mapping[str, int]) -> None:
        \"\"\"...
        post: all(total[k] == __old__.total.get(k, 0) + delta[k] for k in delta)
        \"\"\"

The budget is explicit: CrossHair spends at most ``per_condition_timeout`` CPU seconds on each
condition, the functions are checked ``jobs`` at a time (one process each), and when the
conditions found would need more than ``budget`` seconds the per-condition timeout is lowered to
fit (never below :data:`MIN_PER_CONDITION_TIMEOUT`). A function's process is killed after
:func:`target_deadline` seconds. ``ksspec prove`` runs :func:`check_targets` over ``refimpl/``
after the Z3 obligations; any module added there with contracts is picked up.
"""

from __future__ import annotations

import ast
import re
import subprocess
import sys
import time
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Final

DEFAULT_ROOTS: Final = ("refimpl",)
DEFAULT_PER_CONDITION_TIMEOUT: Final = 6.0
"""CPU seconds CrossHair spends searching for a counterexample to each condition. The mutants of
tests/verify/test_crosshair_mutants.py are found in 0.3 to 7 CPU seconds, except the NodeInfo one (about 12)."""
DEFAULT_BUDGET: Final = 100.0
"""Seconds of search all CrossHair checks may take together (``jobs`` at a time): 33 conditions at the
default timeout. With ``ksspec prove``'s Z3 obligations (5-10 s) and CrossHair's start-up this keeps it
within about 2 minutes on 2 idle cores, and 3.5 with one core taken by other work."""
DEFAULT_JOBS: Final = 2
"""CrossHair processes run at once: the project's machines have 2 cores."""
MIN_PER_CONDITION_TIMEOUT: Final = 1.0
"""The budget never lowers the per-condition timeout below this (then the budget is exceeded)."""
STARTUP_ALLOWANCE: Final = 60.0
"""Seconds allowed on top of a function's conditions for starting CrossHair and waiting for a core."""
CPU_MARKER: Final = "crosshair-runner: cpu seconds "
"""How :func:`main` reports the CPU time of the CrossHair process it ran."""

_HEADER = re.compile(r"^(?P<indent>\s*)(?P<kind>pre|post)(\[[^\]]*\])?:(?P<expr>.*)$")
_CONTRACT_LINE = re.compile(r"^\s*(pre|post)(\[[^\]]*\])?:", re.MULTILINE)
_MESSAGE = re.compile(r"^(?P<path>[^\n]+?):(?P<line>\d+): (?P<level>error|info): (?P<message>.*)$", re.MULTILINE)


class CrosshairVerdict(StrEnum):
    CONFIRMED = "confirmed"
    """CrossHair explored every path of every condition: a proof for the inputs the preconditions allow."""
    NO_COUNTEREXAMPLE = "no counterexample"
    COUNTEREXAMPLE = "counterexample"
    UNMET_PRECONDITION = "precondition never met"
    """CrossHair found no input satisfying the preconditions: the contract checked nothing."""
    ERROR = "error"

    @property
    def ok(self) -> bool:
        return self in (CrosshairVerdict.CONFIRMED, CrosshairVerdict.NO_COUNTEREXAMPLE)


@dataclass(frozen=True)
class Target:
    """One function with contracts."""

    path: Path
    qualname: str
    """``function`` or ``Class.method``."""
    line: int
    """The line of its ``def``."""
    conditions: int
    """Its ``post:`` conditions: CrossHair searches each for up to the per-condition timeout."""


@dataclass(frozen=True)
class TargetResult:
    """What CrossHair found for one function."""

    target: Target
    verdict: CrosshairVerdict
    seconds: float
    """Wall-clock seconds."""
    cpu_seconds: float | None
    """CPU seconds of the CrossHair process (None if it did not report them): unlike wall-clock time, this does
    not grow when other processes share the cores."""
    findings: tuple[str, ...]
    """One line per counterexample: ``path:line: error: message``."""
    output: str


@dataclass(frozen=True)
class Plan:
    """The per-condition timeout the budget allows, and the time it predicts."""

    per_condition_timeout: float
    requested_timeout: float
    budget: float
    jobs: int
    conditions: int

    @property
    def predicted_seconds(self) -> float:
        return self.conditions * self.per_condition_timeout / self.jobs

    def describe(self) -> str:
        lowered = (
            f" (lowered from {self.requested_timeout:g}s to fit the budget)"
            if self.per_condition_timeout < self.requested_timeout
            else ""
        )
        return (
            f"{self.per_condition_timeout:g}s CPU per condition{lowered}, {self.conditions} conditions, "
            f"{self.jobs} at a time, budget {self.budget:g}s"
        )


# --------------------------------------------------------------------------------------------
# Discovery
# --------------------------------------------------------------------------------------------


def count_conditions(docstring: str, kind: str = "post") -> int:
    """The ``kind`` (pre or post) conditions of a PEP 316 docstring: one per inline header, else one per line of
    the indented block under a bare header (CrossHair's parsing)."""
    count = 0
    block_indent: int | None = None
    for line in docstring.splitlines():
        if not line.strip():
            continue
        if block_indent is not None:
            if len(line) - len(line.lstrip()) > block_indent:
                count += 1
                continue
            block_indent = None
        match = _HEADER.match(line)
        if match and match.group("kind") == kind:
            if match.group("expr").strip():
                count += 1
            else:
                block_indent = len(match.group("indent"))
    return count


def contract_targets(path: Path) -> list[Target]:
    """The module-level functions and methods of ``path`` whose docstrings state a ``pre:`` or ``post:``
    condition, in source order. A file that does not parse has none."""
    try:
        tree = ast.parse(path.read_text(encoding="utf-8"))
    except (SyntaxError, UnicodeDecodeError):
        return []
    targets: list[Target] = []

    def visit(body: Iterable[ast.stmt], prefix: str) -> None:
        for node in body:
            if isinstance(node, ast.ClassDef):
                visit(node.body, f"{prefix}{node.name}.")
            elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                docstring = ast.get_docstring(node)
                if docstring and _CONTRACT_LINE.search(docstring):
                    targets.append(Target(path, prefix + node.name, node.lineno, count_conditions(docstring)))

    visit(tree.body, "")
    return targets


def has_contracts(path: Path) -> bool:
    """Whether a function in ``path`` states a ``pre:`` or ``post:`` condition."""
    return bool(contract_targets(path))


def modules_with_contracts(root: Path, roots: tuple[str, ...] = DEFAULT_ROOTS) -> list[Path]:
    """Every ``.py`` file under ``roots`` (relative to ``root``, files or directories) with contracts."""
    found: list[Path] = []
    for name in roots:
        base = root / name
        candidates = [base] if base.is_file() else sorted(base.rglob("*.py")) if base.is_dir() else []
        found.extend(path for path in candidates if has_contracts(path))
    return found


def find_targets(root: Path, roots: tuple[str, ...] = DEFAULT_ROOTS) -> list[Target]:
    """Every function with contracts in the modules under ``roots``."""
    return [target for path in modules_with_contracts(root, roots) for target in contract_targets(path)]


# --------------------------------------------------------------------------------------------
# Budget
# --------------------------------------------------------------------------------------------


def plan(
    targets: list[Target],
    per_condition_timeout: float = DEFAULT_PER_CONDITION_TIMEOUT,
    budget: float = DEFAULT_BUDGET,
    jobs: int = DEFAULT_JOBS,
) -> Plan:
    """The per-condition timeout: ``per_condition_timeout``, lowered so that every condition fits in ``budget``
    seconds ``jobs`` at a time, but not below :data:`MIN_PER_CONDITION_TIMEOUT`.

    Fails with ``ValueError`` on a non-positive timeout, budget or job count.
    """
    if per_condition_timeout <= 0 or budget <= 0 or jobs < 1:
        raise ValueError(
            f"CrossHair needs a positive per-condition timeout, budget and job count; got {per_condition_timeout:g}s,"
            f" {budget:g}s and {jobs} job(s)"
        )
    conditions = sum(max(t.conditions, 1) for t in targets)
    timeout = per_condition_timeout
    if conditions and conditions * timeout / jobs > budget:
        timeout = max(MIN_PER_CONDITION_TIMEOUT, round(budget * jobs / conditions, 1))
    return Plan(timeout, per_condition_timeout, budget, jobs, conditions)


def target_deadline(target: Target, per_condition_timeout: float) -> float:
    """Wall-clock seconds after which a function's CrossHair process is killed: its conditions' CPU time three
    times over (the timeout counts CPU seconds, cores may be shared, and a path under way runs on for up to the
    square root of the timeout) plus :data:`STARTUP_ALLOWANCE`."""
    return 3 * max(target.conditions, 1) * per_condition_timeout + STARTUP_ALLOWANCE


# --------------------------------------------------------------------------------------------
# Running
# --------------------------------------------------------------------------------------------


def crosshair_installed() -> bool:
    """Whether CrossHair can be run: it is a development dependency (and the ``crosshair`` extra), not a runtime one."""
    import importlib.util

    return importlib.util.find_spec("crosshair") is not None


def crosshair_command(target: Target, per_condition_timeout: float) -> list[str]:
    return [
        sys.executable,
        "-m",
        "conformance.cli.crosshair",
        "check",
        "--report_all",
        "--per_condition_timeout",
        str(per_condition_timeout),
        f"{target.path}:{target.line}",
    ]


def verdict_of(returncode: int, output: str) -> tuple[CrosshairVerdict, tuple[str, ...]]:
    """Read CrossHair's ``--report_all`` output: a verdict and the counterexample lines."""
    messages = list(_MESSAGE.finditer(output))
    findings = tuple(m.group(0) for m in messages if m.group("level") == "error")
    if findings:
        return CrosshairVerdict.COUNTEREXAMPLE, findings
    if returncode != 0 or not messages:
        return CrosshairVerdict.ERROR, ()
    infos = [m.group("message") for m in messages]
    if any("Unable to meet precondition" in info for info in infos):
        return CrosshairVerdict.UNMET_PRECONDITION, ()
    if all("Confirmed over all paths" in info for info in infos):
        return CrosshairVerdict.CONFIRMED, ()
    return CrosshairVerdict.NO_COUNTEREXAMPLE, ()


def check_target(target: Target, root: Path, per_condition_timeout: float) -> TargetResult:
    """``crosshair check`` on one function, from ``root`` (so its imports resolve as in the project)."""
    deadline = target_deadline(target, per_condition_timeout)
    started = time.perf_counter()
    try:
        completed = subprocess.run(
            crosshair_command(target, per_condition_timeout),
            cwd=root,
            capture_output=True,
            text=True,
            check=False,
            timeout=deadline,
        )
    except subprocess.TimeoutExpired:
        seconds = time.perf_counter() - started
        message = f"timed out: killed after {deadline:g}s wall-clock"
        return TargetResult(target, CrosshairVerdict.ERROR, seconds, None, (), message)
    seconds = time.perf_counter() - started
    output = completed.stdout + completed.stderr
    verdict, findings = verdict_of(completed.returncode, output)
    cpu = re.search(re.escape(CPU_MARKER) + r"([0-9.]+)", output)
    return TargetResult(target, verdict, seconds, float(cpu.group(1)) if cpu else None, findings, output)


def check_targets(
    targets: list[Target],
    root: Path,
    budget_plan: Plan,
    on_done: Callable[[TargetResult], None] | None = None,
) -> list[TargetResult]:
    """Check every target, ``budget_plan.jobs`` at a time, with the plan's per-condition timeout; results in the
    order of ``targets``."""

    def run(target: Target) -> TargetResult:
        result = check_target(target, root, budget_plan.per_condition_timeout)
        if on_done is not None:
            on_done(result)
        return result

    with ThreadPoolExecutor(max_workers=budget_plan.jobs) as pool:
        return list(pool.map(run, targets))


def main(argv: list[str]) -> None:
    """``python -m conformance.cli.crosshair <crosshair arguments>``: run CrossHair's command line, then print
    the process's CPU seconds (with :data:`CPU_MARKER`) on stderr."""
    import atexit
    import resource
    import runpy

    def report() -> None:
        usage = resource.getrusage(resource.RUSAGE_SELF)
        print(f"{CPU_MARKER}{usage.ru_utime + usage.ru_stime:.2f}", file=sys.stderr)

    atexit.register(report)
    sys.argv = ["crosshair", *argv]
    runpy.run_module("crosshair", run_name="__main__", alter_sys=True)


if __name__ == "__main__":
    main(sys.argv[1:])
