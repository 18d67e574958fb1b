"""Reports of a conformance run: the summary table, the first divergence of each failing vector, JUnit XML, JSON."""

from __future__ import annotations

import contextlib
import json
import os
import re
import tempfile
import xml.etree.ElementTree as ET
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from conformance.runner import Outcome, VectorResult, exit_code, iter_failures

JSON = Any

COLUMNS = (Outcome.PASS, Outcome.FAIL, Outcome.ERROR, Outcome.XFAIL, Outcome.XPASS, Outcome.SKIP)
"""The summary's columns; an interrupted run's table adds :attr:`Outcome.NOT_RUN`."""
STYLE = {Outcome.PASS: "green", Outcome.FAIL: "bold red", Outcome.ERROR: "bold magenta", Outcome.XFAIL: "yellow",
         Outcome.XPASS: "bold red", Outcome.SKIP: "dim", Outcome.NOT_RUN: "yellow"}


def _columns(results: Sequence[VectorResult]) -> tuple[Outcome, ...]:
    return COLUMNS + ((Outcome.NOT_RUN,) if any(r.outcome is Outcome.NOT_RUN for r in results) else ())


def summary_table(results: Sequence[VectorResult], title: str = "ksspec conform") -> Table:
    """Counts per area and outcome, with a total row."""
    table = Table(title=title)
    table.add_column("Area")
    columns = _columns(results)
    for outcome in columns:
        table.add_column(outcome.value, justify="right", style=STYLE[outcome])
    by_area: dict[str, Counter[Outcome]] = {}
    for result in results:
        by_area.setdefault(result.area, Counter())[result.outcome] += 1
    for area, counts in sorted(by_area.items()):
        table.add_row(escape(area), *(str(counts[o]) for o in columns))
    totals = Counter(r.outcome for r in results)
    table.add_row("[bold]total[/]", *(str(totals[o]) for o in columns))
    return table


def print_failures(console: Console, results: Sequence[VectorResult], limit: int = 50) -> None:
    """The first divergence of each failing vector, with its diff."""
    failures = list(iter_failures(results))
    for result in failures[:limit]:
        console.print(f"[{STYLE[result.outcome]}]{result.outcome.value.upper()}[/] {escape(result.id)} "
                      f"[dim]({escape(result.profile)})[/]: {escape(printable(result.detail))}", highlight=False)
        for line in result.diff:
            console.print(f"    {escape(printable(line))}", highlight=False)
    if len(failures) > limit:
        console.print(f"... and {len(failures) - limit} more (see the JSON report)")


_NOT_XML_CHAR = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")
"""A character XML 1.0 does not allow (control characters, lone surrogates, U+FFFE and U+FFFF)."""
_NOT_PRINTABLE = re.compile("[\x00-\x08\x0b-\x1f\x7f\ud800-\udfff]")


def _escaped(match: re.Match[str]) -> str:
    return ascii(match.group())[1:-1]  # the character as a Python escape: \x1b, \ud800


def xml_text(text: str) -> str:
    """``text`` with each character XML 1.0 forbids written as its escape (``\x1b``), so the report is valid."""
    return _NOT_XML_CHAR.sub(_escaped, text)


def printable(text: str) -> str:
    """``text`` with control characters (but newlines and tabs) and lone surrogates written as escapes, so an
    adapter's message cannot move the terminal's cursor or fail to encode."""
    return _NOT_PRINTABLE.sub(_escaped, text)


def junit_xml(results: Sequence[VectorResult], interrupted: str | None = None, metadata: JSON = None) -> str:
    """One testsuite per area, one testcase per vector; every text is made valid XML 1.0 (:func:`xml_text`). An
    interrupted run says so in each testsuite's properties, and its vectors not run are skipped test cases; the
    implementation's metadata (:func:`conformance.smoke.metadata`: name, language, version, homepage) are
    properties ``implementation.<field>`` of each testsuite."""
    root = ET.Element("testsuites", name="ksspec conform")
    by_area: dict[str, list[VectorResult]] = {}
    for result in results:
        by_area.setdefault(result.area, []).append(result)
    for area, group in sorted(by_area.items()):
        counts = Counter(r.outcome for r in group)
        suite = ET.SubElement(root, "testsuite", name=xml_text(area), tests=str(len(group)),
                              failures=str(counts[Outcome.FAIL] + counts[Outcome.XPASS]),
                              errors=str(counts[Outcome.ERROR]),
                              skipped=str(counts[Outcome.SKIP] + counts[Outcome.XFAIL] + counts[Outcome.NOT_RUN]),
                              time=f"{sum(r.seconds for r in group):.3f}")
        described = {f"implementation.{k}": v for k, v in (metadata or {}).items() if isinstance(v, str)}
        if interrupted is not None or described:
            properties = ET.SubElement(suite, "properties")
            if interrupted is not None:
                ET.SubElement(properties, "property", name="interrupted", value=xml_text(interrupted))
            for name, value in described.items():
                ET.SubElement(properties, "property", name=name, value=xml_text(value))
        for result in group:
            case = ET.SubElement(suite, "testcase", name=xml_text(result.id), classname=xml_text(f"conformance.{area}"),
                                 time=f"{result.seconds:.4f}")
            detail = xml_text(result.detail)
            text = xml_text("\n".join([result.detail, *result.diff]))
            if result.outcome in (Outcome.FAIL, Outcome.XPASS):
                ET.SubElement(case, "failure", message=detail).text = text
            elif result.outcome is Outcome.ERROR:
                ET.SubElement(case, "error", message=detail).text = text
            elif result.outcome in (Outcome.SKIP, Outcome.XFAIL, Outcome.NOT_RUN):
                ET.SubElement(case, "skipped", message=detail)
    return ET.tostring(root, encoding="unicode")


def json_report(results: Sequence[VectorResult], implementation: str, seconds: float,
                interrupted: str | None = None, code: int | None = None, metadata: JSON = None) -> str:
    """The JSON report: ``interrupted`` names the signal that ended the run early (else null), ``exit_code`` is
    ``code`` (default: from the results), ``metadata`` what the adapter's ``hello`` said of the implementation
    (:func:`conformance.smoke.metadata`; null when the run did not ask)."""
    counts = Counter(r.outcome.value for r in results)
    return json.dumps({
        "implementation": implementation,
        "metadata": metadata,
        "exit_code": exit_code(results) if code is None else code,
        "interrupted": interrupted,
        "seconds": round(seconds, 3),
        "summary": {o.value: counts[o.value] for o in (*COLUMNS, Outcome.NOT_RUN)},
        "results": [r.to_json() for r in results],
    }, indent=1) + "\n"


def write_atomically(path: Path, text: str | bytes) -> None:
    """Write ``text`` (UTF-8, or bytes as they are) to a temporary file beside ``path`` and rename it over ``path``:
    a reader (or an interruption) never sees half a report."""
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        umask = os.umask(0o022)
        os.umask(umask)
        os.fchmod(handle, 0o666 & ~umask)  # as open() would create it (mkstemp makes it private)
        with os.fdopen(handle, "wb") as out:
            out.write(text.encode() if isinstance(text, str) else text)
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise


def write_reports(results: Sequence[VectorResult], implementation: str, seconds: float,
                  junit: Path | None, json_path: Path | None, *, interrupted: str | None = None,
                  code: int | None = None, metadata: JSON = None) -> list[str]:
    """Write the requested reports, each independently of the other: the problems (one line each) of those that
    could not be written, [] if all were."""
    problems = []
    reports: list[tuple[Path | None, str, Callable[[], str]]] = [
        (junit, "--junit", lambda: junit_xml(results, interrupted, metadata) + "\n"),
        (json_path, "--json", lambda: json_report(results, implementation, seconds, interrupted, code, metadata)),
    ]
    for path, option, render in reports:
        if path is None:
            continue
        try:
            write_atomically(path, render())
        except OSError as error:
            problems.append(f"{option} {path}: cannot write the report ({error.strerror or error})")
    return problems
