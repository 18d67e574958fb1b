"""``ksspec verify``: the checks of a profile, a few at a time, and a summary table.

By default the fast profile (:data:`FAST`, :data:`CHECKS`: what a first-time user waits for), with ``--thorough``
the full run (:data:`THOROUGH`). The checks run a few at a time (one per core by default), the lightest first and
then the heaviest first, with a progress bar across them. A check whose directory does not exist is reported as NOT
RUN, never as PASS: outside a checkout (ksspec installed from a wheel), the rows that need the project's test suite
are NOT RUN and the rest run from the installed package.
"""


from __future__ import annotations

import argparse
import contextlib
import enum
import os
import shlex
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, SpinnerColumn, TextColumn, TimeElapsedColumn
from rich.table import Column, Table

from conformance.arguments import existing_directory
from conformance.console import make_console
from conformance.format import PACKAGE_DATA
from conformance.interrupts import descendants, received
from conformance.usage import UsageError, check_choice, usage_error


@dataclass(frozen=True)
class Check:
    """One row of ``ksspec verify``: a pytest suite (or a ksspec subcommand), named for what it establishes."""

    name: str
    test_dir: str  # relative to the project root; the check is NOT RUN while this directory is missing
    command: tuple[str, ...] = ()  # if set, run `ksspec <command>` in the project root instead of pytest
    weight: float = 1.0
    """Its rough cost relative to the others: ``ksspec verify`` starts the lightest first, then the heaviest first.
    The rows' weights are the CPU-seconds each took alone (fast profile, 1,975 vectors, at a load of 4 to 8 on 2
    cores, 2026-11-29; the README's table), so that the two cores finish together."""
    pytest_args: tuple[str, ...] = ("-n", "2")
    """A pytest row's options (default: 2 pytest-xdist workers, the project's machines' cores)."""


ADVERSARIAL_CHECK = ("check", "--mode", "adversarial", "--nodes", "2", "--pods", "1")
"""``ksspec verify``'s adversarial model-checking run: a universe it exhausts in a few seconds."""
DISPATCHER_CHECK = ("check", "--system", "dispatcher")
"""The dispatcher's call queue over its default universe (a few seconds)."""
CYCLE_CHECK = ("check", "--system", "cycle")
"""The scheduling pipeline over its default universe (a few seconds)."""
QUEUE_CHECK = ("check", "--system", "queue")
"""The scheduling queue and its scheduler over their default universe (seconds)."""

STDIO_REFIMPL_ADAPTER = f"{shlex.quote(sys.executable)} -m conformance.adapters.stdio_main"
"""The bundled reference implementation as a stdio adapter, so verify exercises the protocol path too (quoted: an
installed ksspec's interpreter may live under a path with spaces)."""

REFINEMENT_DIR: Final = "tests/refimpl"
"""The refinement suite: the one row that needs a checkout (the tests are not installed with the package)."""


FAST_REFINEMENT_ARGS: Final = ("-n", "0", "-m", "not heavy")
"""The fast profile's refinement row: one process (the other checks keep the second core busy, and pytest-xdist's
workers would each import and collect the suite again) and without the tests marked ``heavy`` (whole simulations
run twice to compare refimpl's fast paths with its node-by-node ones, and the benchmark harness's tests)."""


def _checks(prove: Check, refinement_args: tuple[str, ...] = ("-n", "2")) -> tuple[Check, ...]:
    """The rows of ``ksspec verify`` in table order, with ``prove`` as the proofs' row and ``refinement_args`` as
    the refinement row's pytest options: the main job, every check of the bundled reference implementation against
    the spec (the spec's own tests are ``make test``'s)."""
    return (
        Check("refimpl refines spec (Hypothesis stateful)", REFINEMENT_DIR, weight=97, pytest_args=refinement_args),
        Check("vectors match the spec (ksspec conformance generate --check)", "conformance/vectors",
              ("conformance", "generate", "--check"), weight=70),
        Check("conformance, refimpl in-process (ksspec conform --impl refimpl)", "conformance/vectors",
              ("conform", "--impl", "refimpl", "--no-progress"), weight=36),
        Check("conformance, refimpl over stdio (ksspec conform --adapter ...)", "conformance/vectors",
              ("conform", "--adapter", STDIO_REFIMPL_ADAPTER, "--no-progress"), weight=59),
        prove,
        Check("model checker, default universe (ksspec check)", "spec/verify", ("check",), weight=6),
        Check("model checker, adversarial (ksspec check --mode adversarial)", "spec/verify", ADVERSARIAL_CHECK,
              weight=5),
        Check("model checker, dispatcher (ksspec check --system dispatcher)", "spec/verify", DISPATCHER_CHECK,
              weight=9),
        Check("model checker, dispatcher PR #141745", "spec/verify", (*DISPATCHER_CHECK, "--profile", "pr141745"),
              weight=10),
        Check("model checker, scheduling cycle (ksspec check --system cycle)", "spec/verify", CYCLE_CHECK, weight=3),
        Check("model checker, scheduling queue (ksspec check --system queue)", "spec/verify", QUEUE_CHECK, weight=24),
    )


# The checks of each profile, in table order. A new verification floor adds a row to _checks.
FAST_CHECKS: tuple[Check, ...] = _checks(
    Check("Z3 obligations (ksspec prove --no-crosshair)", "spec/verify", ("prove", "--no-crosshair"), weight=29),
    FAST_REFINEMENT_ARGS,
)
THOROUGH_CHECKS: tuple[Check, ...] = _checks(
    Check("Z3 obligations and CrossHair contracts (ksspec prove)", "spec/verify", ("prove",), weight=100)
)
CHECKS: tuple[Check, ...] = FAST_CHECKS
"""The checks ``ksspec verify`` (and ``make verify``) runs by default."""


@dataclass(frozen=True)
class VerifyProfile:
    """What a ``ksspec verify`` run covers: its checks, the Hypothesis profile of its pytest rows, and what it leaves
    to other runs (printed before the checks start)."""

    name: str
    checks: tuple[Check, ...]
    hypothesis_profile: str
    leaves_out: str
    jobs: int | None = None
    """Checks run at once by default; None: one per core."""


FAST: Final = VerifyProfile(
    "fast",
    FAST_CHECKS,
    "fast",
    "the fast profile leaves to `make test` and `ksspec verify --thorough`: the refinement machines' full example "
    "budget (Hypothesis profile fast: 50 examples per machine and configuration, 20 per property; ci: 500 and "
    "100), the refinement suite's tests marked heavy (whole simulations compared with and without refimpl's fast "
    "paths, the benchmark harness) and CrossHair's search of refimpl's contracts (`ksspec prove`); the spec's own "
    "tests are `make test`'s",
)
THOROUGH: Final = VerifyProfile(
    "thorough",
    THOROUGH_CHECKS,
    "ci",
    "the thorough profile: the refinement suite under Hypothesis profile ci and `ksspec prove` with CrossHair, one "
    "check at a time; the spec's own tests are `make test`'s",
    # One at a time, as before the fast profile: CrossHair runs two processes of its own against wall-clock
    # deadlines, and the refinement suite two pytest workers, so running other checks beside them only
    # oversubscribes two cores (on a loaded machine CrossHair's deadlines then expire).
    jobs=1,
)

HYPOTHESIS_PROFILES: Final = ("fast", "ci", "dev", "thorough")
"""The Hypothesis settings profiles tests/conftest.py registers (``--hypothesis-profile`` takes one of them)."""
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


def packages_root() -> Path:
    """The directory the ``spec``, ``refimpl`` and ``conformance`` packages are imported from: the checkout when run
    from one (or installed editable), the environment's site-packages when installed from a wheel."""
    return Path(str(PACKAGE_DATA)).parent


def is_checkout(root: Path) -> bool:
    """Whether ``root`` is a checkout of the project (its ``pyproject.toml`` and ``tests/``), not an installation."""
    return (root / "pyproject.toml").is_file() and (root / "tests").is_dir()


def default_project_root() -> Path:
    """The checkout this module lives in when installed editable; else where the packages are installed (the rows
    that need the test suite are then NOT RUN)."""
    return packages_root()


def default_jobs() -> int:
    """Checks run at once by default: one per core this process may use."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def pytest_command(check: Check) -> list[str]:
    if check.command:
        return [sys.executable, "-m", "conformance.cli.main", *check.command]
    return [sys.executable, "-m", "pytest", "-q", *check.pytest_args, check.test_dir]


def last_line(output: str) -> str:
    """The last non-blank line of ``output`` without pytest's ``=====`` framing (its summary line)."""
    lines = [line.strip().strip("=").strip() for line in output.splitlines()]
    non_blank = [line for line in lines if line]
    return non_blank[-1] if non_blank else ""


def run_check(check: Check, root: Path, hypothesis_profile: str) -> CheckResult:
    """Run ``check`` in ``root``: NOT RUN if its directory is missing, else PASS or FAIL by pytest (or the
    command's exit code)."""
    if not (root / check.test_dir).is_dir():
        if not is_checkout(root) and check.test_dir.startswith("tests/"):
            detail = f"needs a checkout: {check.test_dir}/ is not installed with the package (--root CHECKOUT)"
        else:
            detail = f"not yet implemented ({check.test_dir}/ is missing)"
        return CheckResult(check, Status.NOT_RUN, None, detail)
    env = {**os.environ, "HYPOTHESIS_PROFILE": hypothesis_profile}
    started = time.monotonic()
    if RUNNING.stopped():
        return CheckResult(check, Status.NOT_RUN, None, f"interrupted ({RUNNING.why}) before it started")
    completed = RUNNING.run(pytest_command(check), cwd=root, env=env)
    duration = time.monotonic() - started
    output = completed.stdout
    if RUNNING.stopped():  # killed by verify's interruption: no verdict, not a failure
        return CheckResult(check, Status.NOT_RUN, None, f"interrupted ({RUNNING.why}) after {duration:.1f}s",
                           output)
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


def run_checks(
    checks: Sequence[Check],
    root: Path,
    hypothesis_profile: str,
    jobs: int,
    on_start: Callable[[Check], None] = lambda _: None,
    on_done: Callable[[CheckResult], None] = lambda _: None,
) -> list[CheckResult]:
    """Run ``checks``, ``jobs`` at a time: the lightest first (a first result within seconds), then the heaviest
    first (so the run ends sooner); the results in the order of ``checks``. ``on_start`` and ``on_done`` are called
    from the worker threads as each check starts and ends."""
    def run(check: Check) -> CheckResult:
        on_start(check)
        result = run_check(check, root, hypothesis_profile)
        on_done(result)
        return result

    order = sorted(range(len(checks)), key=lambda i: -checks[i].weight)
    order = order[-1:] + order[:-1]
    RUNNING.reset()
    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        futures = {i: pool.submit(run, checks[i]) for i in order}  # the pool starts them in submission order
        try:
            return [futures[i].result() for i in range(len(checks))]
        except KeyboardInterrupt:  # end the checks under way at once, so that the pool's threads return
            signals = received()
            signals.hold()
            RUNNING.stop(f"by {signals.name or 'SIGINT'}")
            for future in futures.values():
                future.cancel()
            results = [CheckResult(checks[i], Status.NOT_RUN, None, f"interrupted ({RUNNING.why}) before it started")
                       if futures[i].cancelled() else futures[i].result() for i in range(len(checks))]
            raise ChecksInterrupted(results) from None


class RunningChecks:
    """The processes of the checks under way, so that an interruption of ``ksspec verify`` ends each of them, and
    everything it started, at once (a check's pytest would otherwise run to its end while verify waits for it)."""

    def __init__(self) -> None:
        self.processes: set[subprocess.Popen[str]] = set()
        self.stopping = False
        self.why = ""
        self.lock = threading.Lock()

    def run(self, argv: list[str], cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
        """``subprocess.run`` of ``argv``, its output captured, that :meth:`stop` can end."""
        with self.lock:
            process = subprocess.Popen(argv, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                       text=True)
            self.processes.add(process)
        try:
            output, _ = process.communicate()
        finally:
            with self.lock:
                self.processes.discard(process)
        return subprocess.CompletedProcess(argv, process.returncode, output)

    def stop(self, why: str) -> None:
        """Kill every check's process and its descendants; checks not yet started will not start."""
        with self.lock:
            self.stopping, self.why = True, why
            for process in self.processes:
                for pid in [*descendants(process.pid), process.pid]:
                    with contextlib.suppress(ProcessLookupError, PermissionError):
                        os.kill(pid, signal.SIGKILL)

    def stopped(self) -> bool:
        """Whether :meth:`stop` was called (since the last :meth:`reset`)."""
        return self.stopping

    def reset(self) -> None:
        """Forget an earlier :meth:`stop` (a new ``ksspec verify`` run in this process)."""
        self.stopping, self.why = False, ""


RUNNING = RunningChecks()


class ChecksInterrupted(KeyboardInterrupt):
    """``ksspec verify`` was interrupted: ``results`` holds a result for every check (NOT RUN for those it cut)."""

    def __init__(self, results: list[CheckResult]) -> None:
        super().__init__("ksspec verify was interrupted")
        self.results = results


def exit_code(results: Sequence[CheckResult]) -> int:
    """0 only if at least one check ran and every check that ran passed; 1 otherwise."""
    ran = [result for result in results if result.status is not Status.NOT_RUN]
    if not ran:
        return 1
    if any(result.status is Status.FAIL for result in ran):
        return 1
    return 0


STATUS_STYLE = {Status.PASS: "bold green", Status.FAIL: "bold red", Status.NOT_RUN: "yellow"}


def summary_table(results: Sequence[CheckResult], title: str = "ksspec verify") -> Table:
    table = Table(title=title)
    table.add_column("Check")
    table.add_column("Status")
    table.add_column("Duration", justify="right")
    table.add_column("Detail")
    for result in results:
        duration = "-" if result.duration is None else f"{result.duration:.1f}s"
        status = f"[{STATUS_STYLE[result.status]}]{result.status.value}[/]"
        table.add_row(escape(result.check.name), status, duration, escape(result.detail))
    return table


def rerun_command(result: CheckResult, hypothesis_profile: str) -> str:
    """The command line that runs ``result``'s check alone."""
    if result.check.command:
        return " ".join(["ksspec", *result.check.command])
    return f"HYPOTHESIS_PROFILE={hypothesis_profile} " + shlex.join(["python", *pytest_command(result.check)[1:]])


def show_failure(console: Console, result: CheckResult, hypothesis_profile: str = "ci") -> None:
    tail = result.output.splitlines()[-FAILURE_OUTPUT_TAIL_LINES:]
    console.rule(f"[bold red]FAIL[/] {escape(result.check.name)}")
    console.out("\n".join(tail), highlight=False)
    console.print(f"re-run with: {escape(rerun_command(result, hypothesis_profile))}", highlight=False)


def result_line(result: CheckResult) -> str:
    """One line per finished check, printed as it ends: status, time, name and detail."""
    duration = "" if result.duration is None else f" {result.duration:5.1f}s"
    status = f"[{STATUS_STYLE[result.status]}]{result.status.value:<7}[/]"
    return f"{status}{duration}  {escape(result.check.name)}: [dim]{escape(result.detail)}[/]"


def verify(args: argparse.Namespace) -> int:
    """Run the checks (the fast profile by default, every check of today's full run with --thorough), a few at a
    time, and print a summary table. Exit 0 only if at least one check ran and all that ran passed; 1 if a check
    failed; 2 on bad usage. A check whose directory does not exist (outside a checkout: the test suite) is NOT RUN."""
    console = make_console()
    profile = THOROUGH if args.thorough else FAST
    hypothesis_profile = args.hypothesis_profile or profile.hypothesis_profile
    try:
        check_choice("--hypothesis-profile", hypothesis_profile, HYPOTHESIS_PROFILES, "Hypothesis profile")
    except UsageError as error:
        return usage_error(console, error)
    root: Path = args.root
    checks = profile.checks
    jobs = min(args.jobs or profile.jobs or default_jobs(), len(checks))
    console.print(f"ksspec verify, {profile.name} profile: {len(checks)} checks, {jobs} at a time, in "
                  f"{escape(str(root))} (Hypothesis profile {escape(hypothesis_profile)})", highlight=False,
                  soft_wrap=True)
    console.print(f"[dim]{escape(profile.leaves_out)}[/]", highlight=False)
    if not is_checkout(root):
        console.print(f"[yellow]not a checkout[/]: {escape(str(root))} has no tests/, so the rows that need the "
                      "project's test suite are NOT RUN; the others run from the installed package (for every "
                      "row: `make verify` in a clone, or --root CHECKOUT)", highlight=False)
    columns = (SpinnerColumn(), TextColumn("checks"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
               TextColumn("[dim]{task.fields[running]}", table_column=Column(no_wrap=True, overflow="ellipsis")))
    with Progress(*columns, console=console, disable=args.no_progress or not console.is_terminal,
                  transient=True) as progress:
        overall = progress.add_task("checks", total=len(checks), running="")
        running: list[str] = []  # the short names of the checks under way (the callbacks run in worker threads)

        def show_running() -> None:
            progress.update(overall, running="running: " + ", ".join(running) if running else "")

        def started(check: Check) -> None:
            running.append(check.name.split(" (")[0])
            show_running()

        def done(result: CheckResult) -> None:
            running.remove(result.check.name.split(" (")[0])
            progress.advance(overall)
            show_running()
            progress.console.print(result_line(result), highlight=False, soft_wrap=True)

        try:
            results = run_checks(checks, root, hypothesis_profile, jobs, started, done)
        except ChecksInterrupted as stop:
            results = stop.results
    signals = received()
    if signals.caught:  # a partial table: what ran, and NOT RUN for what the interruption cut
        signals.hold()
        console.print(summary_table(results, f"ksspec verify ({profile.name} profile), interrupted"))
        console.print(f"[bold red]verify interrupted by {signals.name}[/]: "
                      f"{sum(r.status is not Status.NOT_RUN for r in results)} of {len(results)} checks finished",
                      highlight=False)
        return signals.exit_code()
    for result in results:
        if result.status is Status.FAIL:
            show_failure(console, result, hypothesis_profile)
    console.print(summary_table(results, f"ksspec verify ({profile.name} profile)"))
    code = exit_code(results)
    if all(result.status is Status.NOT_RUN for result in results):
        console.print("[bold red]no check ran[/]: none of the test directories exists yet")
    console.print("[bold green]verify passed[/]" if code == 0 else "[bold red]verify failed[/]")
    return code


def _jobs(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {text}")
    return value


def register(subparsers: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """Add ``verify`` to the ``ksspec`` command line."""
    verify_parser = subparsers.add_parser(
        "verify", help="run the checks (fast profile; --thorough: all) and print a summary table",
        description=verify.__doc__,
    )
    verify_parser.add_argument(
        "--thorough", action="store_true",
        help="the full run: the refinement suite under Hypothesis profile ci and ksspec prove with CrossHair "
        "(several minutes)",
    )
    verify_parser.add_argument(
        "--hypothesis-profile",
        default=None,
        help=f"Hypothesis settings profile for the pytest rows, one of {', '.join(HYPOTHESIS_PROFILES)} (default: "
        f"{FAST.hypothesis_profile}; with --thorough, {THOROUGH.hypothesis_profile})",
    )
    verify_parser.add_argument(
        "--root",
        type=existing_directory("--root"),
        default=default_project_root(),
        help="project checkout containing tests/ (default: the checkout ksspec is installed from, else the installed "
        "package, without the test suite)",
    )
    verify_parser.add_argument("-j", "--jobs", type=_jobs, default=None,
                               help=f"checks run at once (default: one per core, {default_jobs()}; with --thorough, 1)")
    verify_parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    verify_parser.set_defaults(handler=verify)
