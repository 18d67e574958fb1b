"""``ksspec report``: JSON reports of several ``ksspec conform`` runs as one compatibility matrix
(:mod:`conformance.matrix`): implementation x area x profile, with passed, failed, expected failures and not
applicable."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from rich.markup import escape

from conformance.console import make_console
from conformance.matrix import ReportError, as_json, markdown, read_reports
from conformance.report import write_atomically
from conformance.usage import check_report_path, usage_error


def report(args: argparse.Namespace) -> int:
    """Read the JSON reports of ``ksspec conform --json`` runs and print their compatibility matrix as Markdown
    (or, with --json, as JSON); --output writes it to a file. Exit 0, or 2 when a report cannot be read or the
    output cannot be written (one line naming the file)."""
    console = make_console()
    try:
        if args.output is not None:
            check_report_path("--output", args.output)
        runs = read_reports(args.reports)
    except (ReportError, ValueError, OSError) as error:
        return usage_error(console, error)
    text = json.dumps(as_json(runs), indent=1) + "\n" if args.json else markdown(runs)
    if args.output is None:
        console.out(text, highlight=False, end="")
        return 0
    try:
        write_atomically(args.output, text)
    except OSError as error:
        return usage_error(console, f"--output {args.output}: cannot write it ({error.strerror or error})")
    console.print(f"wrote the matrix of {len(runs)} run(s) to {escape(str(args.output))}")
    return 0


def register(subparsers: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """Add ``report`` to the ``ksspec`` command line."""
    parser = subparsers.add_parser("report", help="a compatibility matrix from several conform --json reports",
                                   description=report.__doc__)
    parser.add_argument("reports", nargs="+", type=Path, metavar="REPORT.json",
                        help="reports written by `ksspec conform --json`, one per implementation or run")
    parser.add_argument("--json", action="store_true", help="print the matrix as JSON instead of Markdown")
    parser.add_argument("--output", type=Path, help="write the matrix to this file")
    parser.set_defaults(handler=report)
