"""The ``conformance generate``, ``conformance coverage`` and ``conform`` subcommands of ``ksspec``; the CLI calls
:func:`register`."""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from conformance import coverage_command, generate, runner
from conformance.console import make_console
from conformance.format import VECTORS, VECTORS_DIR, load_vectors
from conformance.report import print_failures, summary_table, write_reports
from conformance.usage import check_report_path, check_version_profile, usage_error


def conformance_generate(args: argparse.Namespace) -> int:
    """Generate every vector from the spec and write them with their manifest; with --check, fail (exit 1,
    naming each drifted vector) if the committed files differ from what the spec generates."""
    console = make_console()
    started = time.perf_counter()
    vectors = generate.generate_all()
    directory: Path = args.directory
    if args.check:
        problems = generate.drift(vectors, directory)
        for line in problems[:50]:
            console.print(f"[red]drift[/] {escape(line)}", highlight=False)
        if problems:
            console.print(f"[bold red]{len(problems)} difference(s)[/]: run `ksspec conformance generate` and commit")
            return 1
        console.print(f"[green]{len(vectors)} vectors match the spec[/] ({time.perf_counter() - started:.1f}s)")
        return 0
    generate.write(vectors, directory)
    console.print(f"wrote {len(vectors)} vectors to {directory} ({time.perf_counter() - started:.1f}s)")
    return 0


def conform(args: argparse.Namespace) -> int:
    """Run the conformance vectors against an implementation. Exit 0: all selected vectors passed (or failed as
    expected); 1: a vector failed, or an expected failure passed; 2: bad usage or vector files, or an adapter
    error (crash, hang, garbage, out-of-order answer, protocol version)."""
    console = make_console()
    try:
        if args.profile is not None:
            check_version_profile("--profile", args.profile)
        for flag, report in (("--junit", args.junit), ("--json", args.json)):
            if report is not None:
                check_report_path(flag, report)
        shard = runner.parse_shard(args.shard) if args.shard else None
        vectors = load_vectors(args.vectors)
        listed = args.expected_failures.read_text() if args.expected_failures else ""
        expected = runner.read_expected_failures(listed)
    except (ValueError, OSError) as error:
        return usage_error(console, error)  # one line, however long
    unknown = sorted(expected - {v.id for v in vectors})
    if unknown:
        console.print(f"[bold red]error:[/] the expected-failures file lists unknown vectors: {', '.join(unknown)}")
        return runner.EXIT_USAGE_OR_ADAPTER
    selected = runner.select(vectors, args.tag, shard)
    target = runner.Target(impl=None if args.adapter else args.impl, adapter=args.adapter, timeout=args.timeout,
                           profile=args.profile)
    name = args.adapter or args.impl
    console.print(f"{len(selected)} of {len(vectors)} vectors selected; implementation {escape(name)}")
    started = time.perf_counter()
    columns = (TextColumn("[progress.description]{task.description}"), BarColumn(), MofNCompleteColumn(),
               TimeElapsedColumn())
    with Progress(*columns, console=console, disable=args.no_progress or not console.is_terminal) as progress:
        task = progress.add_task("conform", total=len(selected))
        results = runner.run_vectors(target, selected, args.workers, lambda _: progress.advance(task))
    seconds = time.perf_counter() - started
    runner.apply_expected_failures(results, expected)
    print_failures(console, results)
    console.print(summary_table(results))
    not_selected = len(vectors) - len(selected)
    console.print(f"{len(results)} run, {not_selected} not selected (tag/shard filters); {seconds:.2f}s")
    try:
        write_reports(results, name, seconds, args.junit, args.json)
    except OSError as error:  # checked before the run, so only if the file system changed meanwhile
        return usage_error(console, f"cannot write the report: {error}")
    code = runner.exit_code(results)
    console.print({0: "[bold green]conform passed[/]", 1: "[bold red]conform failed: divergences[/]",
                   2: "[bold red]conform failed: adapter errors[/]"}[code])
    return code


def register(subparsers: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """Add ``conformance generate``, ``conformance coverage`` and ``conform`` to the ``ksspec`` command line."""
    conformance = subparsers.add_parser("conformance", help="conformance vectors")
    sub = conformance.add_subparsers(dest="conformance_command", required=True, metavar="SUBCOMMAND")
    gen = sub.add_parser("generate", help="generate the vectors from the spec",
                         description=conformance_generate.__doc__)
    gen.add_argument("--check", action="store_true", help="fail if the committed vectors drift from the spec")
    gen.add_argument("--directory", type=Path, default=VECTORS_DIR, help="vector directory (default: %(default)s)")
    gen.set_defaults(handler=conformance_generate)
    coverage_command.add_arguments(sub.add_parser("coverage", help="vectors per behaviour of the inventory",
                                                  description=coverage_command.conformance_coverage.__doc__))

    run = subparsers.add_parser("conform", help="run the vectors against an implementation",
                                description=conform.__doc__)
    which = run.add_mutually_exclusive_group()
    which.add_argument("--impl", default="refimpl", help="in-process adapter: refimpl or module:Class (default)")
    which.add_argument("--adapter", metavar="CMD", help="adapter command speaking the JSON-lines protocol")
    run.add_argument("--tag", action="append", default=[], help="run vectors with this area, origin, behaviour, "
                     "profile or id prefix (repeatable; any matches)")
    run.add_argument("--shard", help="run shard i of n (1-based), e.g. 2/4")
    run.add_argument("--profile", help="run only vectors that hold for this profile, under it (default: each "
                     "vector under a profile it holds for that the adapter supports)")
    run.add_argument("-j", "--workers", type=int, default=1, help="parallel worker processes (default 1)")
    run.add_argument("--timeout", type=float, default=10.0, help="seconds an adapter may take per request")
    run.add_argument("--expected-failures", type=Path, help="file of vector ids expected to fail (# comments)")
    run.add_argument("--junit", type=Path, help="write a JUnit XML report here")
    run.add_argument("--json", type=Path, help="write a JSON report here")
    run.add_argument("--vectors", type=Path, default=VECTORS,
                     help="vector directory (default: the vectors installed with ksspec, %(default)s)")
    run.add_argument("--no-progress", action="store_true", help="no progress bar")
    run.set_defaults(handler=conform)

