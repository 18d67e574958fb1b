"""The ``ksspec`` command line, the project's front door.

``ksspec verify`` runs every check in :data:`CHECKS` and prints a summary table. A check whose test
directory does not exist yet is reported as NOT RUN, never as PASS.
"""

from __future__ import annotations

import argparse
import enum
import os
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from conformance import commands as conformance_commands
from conformance import proof_commands, simulate_command
from conformance.console import make_console


@dataclass(frozen=True)
class Check:
    """One row of ``ksspec verify``: a pytest suite (or a ksspec subcommand), named for what it establishes."""

    name: str
    test_dir: str  # relative to the project root; the check is NOT RUN while this directory is missing
    command: tuple[str, ...] = ()  # if set, run `ksspec <command>` in the project root instead of pytest


ADVERSARIAL_CHECK = ("check", "--mode", "adversarial", "--nodes", "2", "--pods", "1")
"""``ksspec verify``'s adversarial model-checking run: a universe it exhausts in a few seconds."""
DISPATCHER_CHECK = ("check", "--system", "dispatcher")
"""The dispatcher's call queue over its default universe (a few seconds)."""
CYCLE_CHECK = ("check", "--system", "cycle")
"""The scheduling pipeline over its default universe (a few seconds)."""
QUEUE_CHECK = ("check", "--system", "queue")
"""The scheduling queue and its scheduler over their default universe (seconds)."""

# The checks ``ksspec verify`` runs, in this order. A new verification floor adds a row here.
STDIO_REFIMPL_ADAPTER = f"{sys.executable} -m conformance.adapters.stdio_main"
"""The bundled reference implementation as a stdio adapter, so verify exercises the protocol path too."""

# The checks ``ksspec verify`` runs, in this order: the main job, every check of the bundled reference
# implementation against the spec. The spec's own tests are ``make test``'s. A new floor adds a row here.
CHECKS: tuple[Check, ...] = (
    Check("refimpl refines spec (Hypothesis stateful)", "tests/refimpl"),
    Check("vectors match the spec (ksspec conformance generate --check)", "conformance/vectors",
          ("conformance", "generate", "--check")),
    Check("conformance, refimpl in-process (ksspec conform --impl refimpl)", "conformance/vectors",
          ("conform", "--impl", "refimpl", "--no-progress")),
    Check("conformance, refimpl over stdio (ksspec conform --adapter ...)", "conformance/vectors",
          ("conform", "--adapter", STDIO_REFIMPL_ADAPTER, "--no-progress")),
    Check("Z3 obligations and CrossHair contracts (ksspec prove)", "spec/verify", ("prove",)),
    Check("model checker, default universe (ksspec check)", "spec/verify", ("check",)),
    Check("model checker, adversarial (ksspec check --mode adversarial)", "spec/verify", ADVERSARIAL_CHECK),
    Check("model checker, dispatcher (ksspec check --system dispatcher)", "spec/verify", DISPATCHER_CHECK),
    Check("model checker, dispatcher PR #141745", "spec/verify", (*DISPATCHER_CHECK, "--profile", "pr141745")),
    Check("model checker, scheduling cycle (ksspec check --system cycle)", "spec/verify", CYCLE_CHECK),
    Check("model checker, scheduling queue (ksspec check --system queue)", "spec/verify", QUEUE_CHECK),
)

DEFAULT_HYPOTHESIS_PROFILE = "ci"
PYTEST_OK = 0
PYTEST_NO_TESTS_COLLECTED = 5  # pytest.ExitCode.NO_TESTS_COLLECTED
FAILURE_OUTPUT_TAIL_LINES = 80  # lines of a failing check's output shown before the summary table


class Status(enum.Enum):
    PASS = "PASS"
    FAIL = "FAIL"
    NOT_RUN = "NOT RUN"


@dataclass(frozen=True)
class CheckResult:
    check: Check
    status: Status
    duration: float | None  # seconds; None exactly when status is NOT_RUN
    detail: str
    output: str = ""  # pytest's combined stdout and stderr; empty when the check did not run


def default_project_root() -> Path:
    """The checkout this module lives in when installed editable, else the working directory."""
    checkout = Path(__file__).resolve().parent.parent
    if (checkout / "pyproject.toml").is_file():
        return checkout
    return Path.cwd()


PYTEST_WORKERS = "2"  # pytest-xdist workers: the project's machines have 2 cores


def pytest_command(check: Check) -> list[str]:
    if check.command:
        return [sys.executable, "-m", "conformance.cli", *check.command]
    return [sys.executable, "-m", "pytest", "-q", "-n", PYTEST_WORKERS, check.test_dir]


def last_line(output: str) -> str:
    """The last non-blank line of ``output`` without pytest's ``=====`` framing (its summary line)."""
    lines = [line.strip().strip("=").strip() for line in output.splitlines()]
    non_blank = [line for line in lines if line]
    return non_blank[-1] if non_blank else ""


def run_check(check: Check, root: Path, hypothesis_profile: str) -> CheckResult:
    """Run ``check`` in ``root``: NOT RUN if its directory is missing, else PASS or FAIL by pytest."""
    if not (root / check.test_dir).is_dir():
        return CheckResult(check, Status.NOT_RUN, None, f"not yet implemented ({check.test_dir}/ is missing)")
    env = {**os.environ, "HYPOTHESIS_PROFILE": hypothesis_profile}
    started = time.monotonic()
    completed = subprocess.run(
        pytest_command(check),
        cwd=root,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        check=False,
    )
    duration = time.monotonic() - started
    output = completed.stdout
    if completed.returncode == PYTEST_OK:
        return CheckResult(check, Status.PASS, duration, last_line(output), output)
    if check.command:
        detail = f"{last_line(output)} (exit code {completed.returncode})"
        return CheckResult(check, Status.FAIL, duration, detail, output)
    if completed.returncode == PYTEST_NO_TESTS_COLLECTED:
        detail = f"pytest collected no tests in {check.test_dir}/; add tests or remove the directory"
        return CheckResult(check, Status.FAIL, duration, detail, output)
    detail = f"{last_line(output)} (pytest exit code {completed.returncode})"
    return CheckResult(check, Status.FAIL, duration, detail, output)


def exit_code(results: Sequence[CheckResult]) -> int:
    """0 only if at least one check ran and every check that ran passed; 1 otherwise."""
    ran = [result for result in results if result.status is not Status.NOT_RUN]
    if not ran:
        return 1
    if any(result.status is Status.FAIL for result in ran):
        return 1
    return 0


STATUS_STYLE = {Status.PASS: "bold green", Status.FAIL: "bold red", Status.NOT_RUN: "yellow"}


def summary_table(results: Sequence[CheckResult]) -> Table:
    table = Table(title="ksspec verify")
    table.add_column("Check")
    table.add_column("Status")
    table.add_column("Duration", justify="right")
    table.add_column("Detail")
    for result in results:
        duration = "-" if result.duration is None else f"{result.duration:.1f}s"
        status = f"[{STATUS_STYLE[result.status]}]{result.status.value}[/]"
        table.add_row(escape(result.check.name), status, duration, escape(result.detail))
    return table


def show_failure(console: Console, result: CheckResult) -> None:
    tail = result.output.splitlines()[-FAILURE_OUTPUT_TAIL_LINES:]
    rerun = " ".join(["python", *pytest_command(result.check)[1:]])
    if result.check.command:
        rerun = " ".join(["ksspec", *result.check.command])
    console.rule(f"[bold red]FAIL[/] {escape(result.check.name)}")
    console.out("\n".join(tail), highlight=False)
    console.print(f"re-run with: HYPOTHESIS_PROFILE=ci {escape(rerun)}", highlight=False)




def verify(args: argparse.Namespace) -> int:
    """Run every check and print a summary table. Exit 0 only if at least one check ran and all that ran
    passed; a check whose test directory does not exist yet is NOT RUN."""
    console = make_console()
    root: Path = args.root
    results: list[CheckResult] = []
    for check in CHECKS:
        console.print(f"running {escape(check.name)} ...", highlight=False)
        results.append(run_check(check, root, args.hypothesis_profile))
    for result in results:
        if result.status is Status.FAIL:
            show_failure(console, result)
    console.print(summary_table(results))
    code = exit_code(results)
    if all(result.status is Status.NOT_RUN for result in results):
        console.print("[bold red]no check ran[/]: none of the test directories exists yet")
    console.print("[bold green]verify passed[/]" if code == 0 else "[bold red]verify failed[/]")
    return code


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="ksspec",
        description="Check the kube-scheduler cache specification, reference implementation and conformance.",
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    verify_parser = commands.add_parser(
        "verify", help="run every check and print a summary table", description=verify.__doc__
    )
    verify_parser.add_argument(
        "--hypothesis-profile",
        default=DEFAULT_HYPOTHESIS_PROFILE,
        help=f"Hypothesis settings profile for the checks (default: {DEFAULT_HYPOTHESIS_PROFILE})",
    )
    verify_parser.add_argument(
        "--root",
        type=Path,
        default=default_project_root(),
        help="project checkout containing tests/ (default: the checkout ksspec is installed from)",
    )
    verify_parser.set_defaults(handler=verify)
    prove_parser = commands.add_parser(
        "prove", help="discharge the Z3 proof obligations and print a table", description=proof_commands.prove.__doc__
    )
    proof_commands.add_prove_arguments(prove_parser)
    prove_parser.set_defaults(handler=lambda a: proof_commands.prove(a, make_console()), root=default_project_root())
    check_parser = commands.add_parser(
        "check",
        help="model-check the cache, the dispatcher or the scheduling cycle over a finite universe",
        description=proof_commands.check.__doc__,
    )
    proof_commands.add_check_arguments(check_parser)
    check_parser.set_defaults(handler=lambda a: proof_commands.check(a, make_console()))
    conformance_commands.register(commands)
    simulate_command.register(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    handler: Callable[[argparse.Namespace], int] = args.handler
    return handler(args)


if __name__ == "__main__":
    sys.exit(main())
