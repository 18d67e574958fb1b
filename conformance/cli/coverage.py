"""``ksspec conformance coverage``: how many vectors exercise each behaviour of the inventory, per area."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from conformance.behaviours.coverage import AREAS, Row, as_json, manifest_entries, rows, unknown_tags
from conformance.behaviours.inventory import UNREACHABLE
from conformance.console import make_console
from conformance.format import VECTORS_DIR, VectorFormatError, load_manifest, load_vectors
from conformance.usage import usage_error


def coverage_table(table_rows: list[Row]) -> Table:
    """One row per behaviour (grouped by topic): vectors per area and in all; a gap shows in red."""
    table = Table(title="ksspec conformance coverage")
    table.add_column("behaviour")
    for area in AREAS:
        table.add_column(area, justify="right")
    table.add_column("total", justify="right")
    table.add_column("rule (--json adds the Kubernetes source)")
    topic = None
    for row in table_rows:
        current = row.name.split(".", 1)[0]
        if topic is not None and current != topic:
            table.add_section()
        topic = current
        counts = [str(row.by_area[a]) if row.by_area[a] else "[dim]·[/]" for a in AREAS]
        total = f"[bold red]{row.total}[/]" if row.total == 0 else str(row.total)
        table.add_row(escape(row.name), *counts, total, escape(row.description))
    return table


def conformance_coverage(args: argparse.Namespace, console: Console | None = None) -> int:
    """Print, for every behaviour of the inventory, how many vectors exercise it in each area (from the manifest).
    Exit 0 when every behaviour has a vector, 1 when one has none (a gap), 2 when the manifest or a vector file it
    lists cannot be read or does not match it."""
    console = console or make_console()
    directory: Path = args.vectors
    try:
        entries = manifest_entries(load_manifest(directory))
        load_vectors(directory)  # the counts come from the manifest; the files it lists must hold those vectors
    except (VectorFormatError, OSError, KeyError, json.JSONDecodeError) as error:
        return usage_error(console, error)  # one line, however long
    report = as_json(entries)
    if args.json:
        console.out(json.dumps(report, indent=1), highlight=False)
    else:
        console.print(coverage_table(rows(entries)))
        for name, reason in UNREACHABLE.items():
            console.print(f"[dim]unreachable[/] {escape(name)}: {escape(reason)}", highlight=False)
        unknown = unknown_tags(entries)
        if unknown:
            console.print(f"[yellow]tags outside the inventory:[/] {escape(', '.join(unknown))}", highlight=False)
        gaps = report["gaps"]
        line = f"{report['covered']} of {report['total']} behaviours exercised by at least one vector"
        console.print(f"[bold red]{line}; gaps: {escape(', '.join(gaps))}[/]" if gaps else f"[green]{line}[/]",
                      highlight=False)
    return 1 if report["gaps"] else 0


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``ksspec conformance coverage``."""
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    parser.add_argument("--vectors", type=Path, default=VECTORS_DIR, help="vector directory (default: %(default)s)")
    parser.set_defaults(handler=conformance_coverage)
