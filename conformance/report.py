"""Reports of a conformance run: the summary table, the first divergence of each failing vector, JUnit XML, JSON."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from conformance.runner import Outcome, VectorResult, exit_code, iter_failures

COLUMNS = (Outcome.PASS, Outcome.FAIL, Outcome.ERROR, Outcome.XFAIL, Outcome.XPASS, Outcome.SKIP)
STYLE = {Outcome.PASS: "green", Outcome.FAIL: "bold red", Outcome.ERROR: "bold magenta", Outcome.XFAIL: "yellow",
         Outcome.XPASS: "bold red", Outcome.SKIP: "dim"}


def summary_table(results: Sequence[VectorResult], title: str = "ksspec conform") -> Table:
    """Counts per area and outcome, with a total row."""
    table = Table(title=title)
    table.add_column("Area")
    for outcome in COLUMNS:
        table.add_column(outcome.value, justify="right", style=STYLE[outcome])
    by_area: dict[str, Counter[Outcome]] = {}
    for result in results:
        by_area.setdefault(result.area, Counter())[result.outcome] += 1
    for area, counts in sorted(by_area.items()):
        table.add_row(area, *(str(counts[o]) for o in COLUMNS))
    totals = Counter(r.outcome for r in results)
    table.add_row("[bold]total[/]", *(str(totals[o]) for o in COLUMNS))
    return table


def print_failures(console: Console, results: Sequence[VectorResult], limit: int = 50) -> None:
    """The first divergence of each failing vector, with its diff."""
    failures = list(iter_failures(results))
    for result in failures[:limit]:
        console.print(f"[{STYLE[result.outcome]}]{result.outcome.value.upper()}[/] {escape(result.id)} "
                      f"[dim]({escape(result.profile)})[/]: {escape(result.detail)}", highlight=False)
        for line in result.diff:
            console.print(f"    {escape(line)}", highlight=False)
    if len(failures) > limit:
        console.print(f"... and {len(failures) - limit} more (see the JSON report)")


def junit_xml(results: Sequence[VectorResult]) -> str:
    """One testsuite per area, one testcase per vector."""
    root = ET.Element("testsuites", name="ksspec conform")
    by_area: dict[str, list[VectorResult]] = {}
    for result in results:
        by_area.setdefault(result.area, []).append(result)
    for area, group in sorted(by_area.items()):
        counts = Counter(r.outcome for r in group)
        suite = ET.SubElement(root, "testsuite", name=area, tests=str(len(group)),
                              failures=str(counts[Outcome.FAIL] + counts[Outcome.XPASS]),
                              errors=str(counts[Outcome.ERROR]),
                              skipped=str(counts[Outcome.SKIP] + counts[Outcome.XFAIL]),
                              time=f"{sum(r.seconds for r in group):.3f}")
        for result in group:
            case = ET.SubElement(suite, "testcase", name=result.id, classname=f"conformance.{area}",
                                 time=f"{result.seconds:.4f}")
            text = "\n".join([result.detail, *result.diff])
            if result.outcome in (Outcome.FAIL, Outcome.XPASS):
                ET.SubElement(case, "failure", message=result.detail).text = text
            elif result.outcome is Outcome.ERROR:
                ET.SubElement(case, "error", message=result.detail).text = text
            elif result.outcome in (Outcome.SKIP, Outcome.XFAIL):
                ET.SubElement(case, "skipped", message=result.detail)
    return ET.tostring(root, encoding="unicode")


def json_report(results: Sequence[VectorResult], implementation: str, seconds: float) -> str:
    counts = Counter(r.outcome.value for r in results)
    return json.dumps({
        "implementation": implementation,
        "exit_code": exit_code(results),
        "seconds": round(seconds, 3),
        "summary": {o.value: counts[o.value] for o in COLUMNS},
        "results": [r.to_json() for r in results],
    }, indent=1) + "\n"


def write_reports(results: Sequence[VectorResult], implementation: str, seconds: float,
                  junit: Path | None, json_path: Path | None) -> None:
    if junit is not None:
        junit.write_text(junit_xml(results) + "\n")
    if json_path is not None:
        json_path.write_text(json_report(results, implementation, seconds))
