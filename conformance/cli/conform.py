"""``ksspec conform``: run the vectors against an implementation (:mod:`conformance.runner`) and report.

Also registers the ``conformance`` command group (``generate``, :mod:`conformance.cli.generate`; ``coverage``,
:mod:`conformance.cli.coverage`).
"""


from __future__ import annotations

import argparse
import signal
import sys
import time
from pathlib import Path
from typing import Any

from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from conformance import runner, smoke
from conformance.adapters.refimpl_adapter import load_adapter
from conformance.arguments import check_program, check_readable_file, int_in, non_empty, positive
from conformance.cli import coverage as coverage_command
from conformance.cli import export as export_command
from conformance.cli.generate import conformance_generate
from conformance.console import make_console
from conformance.format import SCHEMA_DIR, VECTORS, VECTORS_DIR, Vector, load_vectors
from conformance.interrupts import Interrupts, child_subreaper
from conformance.report import print_failures, printable, summary_table, write_reports
from conformance.sessions import DEFAULT_STARTUP_TIMEOUT, split_command
from conformance.usage import check_report_path, check_version_profile, usage_error

MAX_WORKERS = 256


CONFORM = "ksspec conform"


def _read_text(path: Path, flag: str) -> str:
    """The text of the file a flag names; fails with ``ValueError`` naming the flag if it is not UTF-8 text."""
    try:
        return path.read_text(encoding="utf-8")
    except UnicodeDecodeError as error:
        raise ValueError(f"{flag} {path}: not a UTF-8 text file ({error.reason} at byte {error.start})") from None


def _load_target(args: argparse.Namespace) -> runner.Target:
    """The target the arguments name, checked: the adapter command parses and names a program, or the
    in-process implementation loads. Fails with ``ValueError`` (one line)."""
    if args.adapter is not None:
        check_program(split_command(args.adapter), "--adapter")
    else:
        try:
            factory = load_adapter(args.impl)
        except ValueError:
            raise
        except Exception as error:  # importing the module ran its code: anything may go wrong
            raise ValueError(f"--impl {args.impl!r}: cannot load it ({type(error).__name__}: {error})") from None
        if not callable(factory):
            raise ValueError(f"--impl {args.impl!r}: {type(factory).__name__} object is not an adapter class")
        try:
            instance = factory()
        except Exception as error:  # a class that needs arguments, or a function that fails
            raise ValueError(f"--impl {args.impl!r}: cannot make an adapter of it ({type(error).__name__}: "
                             f"{error})") from None
        missing = [name for name in ("hello", "reset", "step") if not callable(getattr(instance, name, None))]
        if missing:
            raise ValueError(f"--impl {args.impl!r}: it made a {type(instance).__name__}, which has no "
                             f"{', '.join(missing)} method (not an adapter: see conformance/protocol.py)")
    return runner.Target(impl=None if args.adapter else args.impl, adapter=args.adapter, timeout=args.timeout,
                         profile=args.profile, startup_timeout=args.startup_timeout,
                         handshake_failures=args.handshake_failures)


def _check_tags(vectors: list[Vector], tags: list[str]) -> None:
    for tag in tags:
        if not any(v.matches_tag(tag) for v in vectors):
            raise ValueError(f"--tag {tag!r} matches no vector (an area, origin, behaviour, profile or id prefix)")


def conform(args: argparse.Namespace) -> int:
    """Run the conformance vectors against an implementation. Exit 0: all selected vectors passed (or failed as
    expected), and at least one ran; 1: a vector failed, or an expected failure passed; 2: bad usage or vector
    files, a report that could not be written, an adapter error (crash, hang, garbage, out-of-order answer,
    protocol version), or no vector ran (all skipped; --allow-no-vectors-run accepts that);
    130 (143): interrupted by SIGINT (SIGTERM), with the reports of the vectors run so far written and marked
    interrupted."""
    with Interrupts() as signals:
        try:
            with child_subreaper():  # no adapter, worker or anything they started outlives the command
                return _conform(args, signals)
        except KeyboardInterrupt:  # before the run started: nothing to report
            signals.hold()
            print(f"{CONFORM}: interrupted by {signals.name or 'SIGINT'} before the run started", file=sys.stderr)
            return signals.exit_code()


def _conform(args: argparse.Namespace, signals: Interrupts) -> int:
    console = make_console()
    try:
        target = _load_target(args)
        if args.profile is not None:
            check_version_profile("--profile", args.profile)
        for flag, report in (("--junit", args.junit), ("--json", args.json)):
            if report is not None:
                check_report_path(flag, report)
        if args.junit is not None and args.json is not None and args.junit.resolve() == args.json.resolve():
            raise ValueError(f"--junit and --json name the same file {args.junit}")
        shard = runner.parse_shard(args.shard) if args.shard else None
        vectors = load_vectors(args.vectors)
        if args.expected_failures is not None:
            check_readable_file(args.expected_failures, "--expected-failures")
        listed = _read_text(args.expected_failures, "--expected-failures") if args.expected_failures else ""
        expected = runner.read_expected_failures(listed)
        _check_tags(vectors, args.tag)
    except (ValueError, OSError) as error:
        return usage_error(console, error)  # one line, however long
    unknown = sorted(expected - {v.id for v in vectors})
    if unknown:
        return usage_error(console, f"the expected-failures file lists unknown vectors: {', '.join(unknown)}")
    selected = runner.select(vectors, args.tag, shard)
    name = args.adapter or args.impl
    hello, code = _hello(args, target, console)
    if code is not None:
        return code
    if args.smoke:
        selected = smoke.smoke_selection(selected, hello, args.profile)
        console.print(f"smoke: {len(selected)} vectors, up to {smoke.PER_AREA} per declared area "
                      f"({', '.join(sorted(hello['capabilities']['areas'])) or 'none declared'})")
    console.print(f"{len(selected)} of {len(vectors)} vectors selected; implementation {escape(name)}")
    started = time.perf_counter()
    columns = (TextColumn("[progress.description]{task.description}"), BarColumn(), MofNCompleteColumn(),
               TimeElapsedColumn())
    interrupted: str | None = None
    try:
        with Progress(*columns, console=console, disable=args.no_progress or not console.is_terminal) as progress:
            task = progress.add_task("conform", total=len(selected))
            results = runner.run_vectors(target, selected, args.workers, lambda _: progress.advance(task))
    except KeyboardInterrupt as stop:  # RunInterrupted, unless it came between the run and the progress bar
        signals.hold()
        results = stop.results if isinstance(stop, runner.RunInterrupted) else runner.not_run(selected)
        interrupted = signals.name or "SIGINT"
    signals.hold()
    if interrupted is None and signals.caught:  # the KeyboardInterrupt was lost on its way: the run still was cut
        interrupted = signals.name
    seconds = time.perf_counter() - started
    runner.apply_expected_failures(results, expected)
    code = runner.exit_code(results)
    empty = None if args.allow_no_vectors_run else runner.nothing_executed(results)
    if empty is not None and code == runner.EXIT_OK:
        code = runner.EXIT_USAGE_OR_ADAPTER
    if interrupted is not None:
        code = 128 + signal.Signals[interrupted].value
    problems = write_reports(results, name, seconds, args.junit, args.json, interrupted=interrupted, code=code,
                             metadata=None if hello is None else smoke.metadata(hello, name))
    print_failures(console, results)
    if args.smoke:
        _explain_first_failure(console, results, selected)
    console.print(summary_table(results))
    not_selected = len(vectors) - len(selected)
    console.print(f"{len(results)} run, {not_selected} not selected (tag/shard filters); {seconds:.2f}s")
    for problem in problems:
        console.print(f"[bold red]error:[/] {escape(problem)}", highlight=False, soft_wrap=True)
    if interrupted is not None:
        ran = sum(r.outcome is not runner.Outcome.NOT_RUN for r in results)
        console.print(f"[bold red]conform interrupted by {interrupted}[/]: {ran} of {len(results)} vectors have "
                      "results; the reports say so", highlight=False)
        return code
    if problems:
        return runner.EXIT_USAGE_OR_ADAPTER
    if empty is not None:
        console.print(f"[bold red]conform failed: {escape(empty)}[/]; a run that executes nothing passes only "
                      "with --allow-no-vectors-run", highlight=False, soft_wrap=True)
        return code
    console.print({0: "[bold green]conform passed[/]", 1: "[bold red]conform failed: divergences[/]",
                   2: "[bold red]conform failed: adapter errors[/]"}[code])
    return code


def _hello(args: argparse.Namespace, target: runner.Target, console: Any) -> tuple[Any, int | None]:
    """The adapter's hello, asked before the run when a report or ``--smoke`` needs it (None otherwise), and the exit
    code to stop with (a failed handshake under ``--smoke``), else None."""
    if not (args.smoke or args.json is not None or args.junit is not None):
        return None, None
    try:
        return smoke.probe(target), None
    except smoke.AdapterFailure as failure:
        if args.smoke:
            console.print(f"[bold red]smoke: the handshake failed[/]: {escape(str(failure))}", highlight=False)
            return None, runner.EXIT_USAGE_OR_ADAPTER
        return None, None  # the run reports the handshake failure against each vector


def _explain_first_failure(console: Any, results: list[runner.VectorResult], selected: list[Vector]) -> None:
    failure = smoke.first_failure(results)
    if failure is None:
        return
    vector = next(v for v in selected if v.id == failure.id)
    console.print("[bold]the first failure, explained:[/]")
    for line in smoke.explain(failure, vector):
        console.print(escape(printable(line)), highlight=False, soft_wrap=True)


def register(subparsers: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """Add ``conformance generate`` and ``conform`` to the ``ksspec`` command line."""
    conformance = subparsers.add_parser("conformance", help="conformance vectors")
    sub = conformance.add_subparsers(dest="conformance_command", required=True, metavar="SUBCOMMAND")
    gen = sub.add_parser("generate", help="generate the vectors from the spec",
                         description=conformance_generate.__doc__)
    gen.add_argument("--check", action="store_true", help="fail if the committed vectors drift from the spec")
    gen.add_argument("--directory", type=Path, default=VECTORS_DIR, help="vector directory (default: %(default)s)")
    gen.add_argument("--schema-directory", type=Path, default=SCHEMA_DIR,
                     help="JSON Schema directory (default: %(default)s)")
    gen.set_defaults(handler=conformance_generate)
    coverage_command.add_arguments(sub.add_parser("coverage", help="vectors per behaviour of the inventory",
                                                  description=coverage_command.conformance_coverage.__doc__))
    export_command.add_arguments(sub.add_parser("export", help="the vectors, manifest and schemas as one archive",
                                                description=export_command.conformance_export.__doc__))

    run = subparsers.add_parser("conform", help="run the vectors against an implementation",
                                description=conform.__doc__)
    which = run.add_mutually_exclusive_group()
    which.add_argument("--impl", default="refimpl", type=non_empty("--impl"),
                       help="in-process adapter: refimpl or module:Class (default)")
    which.add_argument("--adapter", metavar="CMD", type=non_empty("--adapter"),
                       help="adapter command speaking the JSON-lines protocol (run in its own process group)")
    run.add_argument("--tag", action="append", default=[], type=non_empty("--tag"),
                     help="run vectors with this area, origin, behaviour, profile or id prefix (repeatable; any "
                          "matches; one that matches no vector is an error)")
    run.add_argument("--shard", help="run shard i of n (1-based), e.g. 2/4")
    run.add_argument("--profile", help="run only vectors that hold for this profile, under it (default: each "
                     "vector under a profile it holds for that the adapter supports)")
    run.add_argument("-j", "--workers", type=int_in(1, MAX_WORKERS, "--workers"), default=1,
                     help="parallel worker processes (default 1: the runner's own process)")
    run.add_argument("--timeout", type=positive("--timeout"), default=runner.DEFAULT_TIMEOUT,
                     help="seconds an adapter may take per request (default %(default)g)")
    run.add_argument("--startup-timeout", type=positive("--startup-timeout"), default=DEFAULT_STARTUP_TIMEOUT,
                     help="seconds an adapter may take to answer hello, as it starts (default %(default)g)")
    run.add_argument("--handshake-failures", type=int_in(1, 1_000_000, "--handshake-failures"),
                     default=runner.DEFAULT_HANDSHAKE_FAILURES,
                     help="after this many handshakes in a row fail, report the remaining vectors as errors at once "
                          "(default %(default)d)")
    run.add_argument("--expected-failures", type=Path,
                     help="file of vector ids expected to fail (# comments)")
    run.add_argument("--junit", type=Path, help="write a JUnit XML report here (checked before the run)")
    run.add_argument("--json", type=Path, help="write a JSON report here (checked before the run)")
    run.add_argument("--vectors", type=Path, default=VECTORS,
                     help="vector directory (default: the vectors installed with ksspec, %(default)s)")
    run.add_argument("--allow-no-vectors-run", action="store_true",
                     help="exit 0 even if the adapter ran none of the selected vectors (every one skipped: it "
                          "declares none of their areas or profiles); by default such a run fails with exit code 2")
    run.add_argument("--no-progress", action="store_true", help="no progress bar")
    run.add_argument("--smoke", action="store_true",
                     help=f"a quick check: {smoke.PER_AREA} curated vectors per area the adapter declares, and the "
                          "first failure explained in full")
    run.set_defaults(handler=conform)
