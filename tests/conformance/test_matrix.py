"""``ksspec report``: JSON reports of several runs as one compatibility matrix (implementation x area x profile)."""

from __future__ import annotations

import json
import re
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from conformance.cli.main import main
from conformance.matrix import ReportError, as_json, markdown, read_report, read_reports, verdict

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "docs" / "_ext"))

from compatibility import RESULTS, matrix_markdown

JSON = Any


def _report(path: Path, name: str | None, outcomes: list[tuple[str, str, str]], **extra: JSON) -> Path:
    results = [{"id": f"v{i}", "area": area, "outcome": outcome, "profile": profile}
               for i, (area, profile, outcome) in enumerate(outcomes)]
    metadata = None if name is None else {"name": name, **extra}
    path.write_text(json.dumps({"implementation": "./cmd", "metadata": metadata, "exit_code": 1, "results": results}))
    return path


def test_counts_per_implementation_area_and_profile(tmp_path: Path) -> None:
    a = _report(tmp_path / "a.json", "mine", [("cache", "v1.35", "pass"), ("cache", "v1.35", "fail"),
                                             ("cache", "v1.35", "error"), ("cache", "v1.35", "xfail"),
                                             ("cache", "v1.34", "xpass"), ("cache", "", "skip"),
                                             ("dispatcher", "", "skip"), ("queue", "v1.35", "not_run")],
                language="rust", version="0.2")
    (run,) = read_reports([a])
    assert run.label == "mine 0.2 (rust)"
    assert run.counts[("cache", "v1.35")] == Counter({"passed": 1, "failed": 2, "expected failures": 1})
    assert run.counts[("cache", "v1.34")] == Counter({"failed": 1})
    assert run.counts[("cache", "-")] == Counter({"not applicable": 1})
    assert verdict(run, "cache") == "❌ 1/5 (1 xfail) [v1.34, v1.35]"
    assert verdict(run, "dispatcher") == "n/a"
    assert verdict(run, "snapshot") == "n/a"
    page = markdown([run])
    assert "| mine 0.2 (rust) | cache | v1.35 | 1 | 2 | 1 | 0 | 0 |" in page
    assert "| mine 0.2 (rust) | queue | v1.35 | 0 | 0 | 0 | 0 | 1 |" in page


def test_runs_of_one_implementation_make_one_row(tmp_path: Path) -> None:
    one = _report(tmp_path / "one.json", "x", [("cache", "v1.34", "pass")])
    two = _report(tmp_path / "two.json", "x", [("cache", "v1.35", "pass"), ("cache", "v1.35", "pass")])
    other = _report(tmp_path / "other.json", None, [("cache", "v1.35", "fail")])
    runs = read_reports([one, two, other])
    assert [r.label for r in runs] == ["x", "./cmd"]
    assert verdict(runs[0], "cache") == "✅ 3/3 [v1.34, v1.35]"
    assert as_json(runs)[0]["source"] == "one.json, two.json"
    assert as_json(runs)[1]["results"] == [{"area": "cache", "profile": "v1.35", "passed": 0, "failed": 1,
                                            "expected failures": 0, "not applicable": 0, "not run": 0}]


@pytest.mark.parametrize("content, message", [
    ("{", "not JSON"),
    ('{"summary": {}}', "no list of results"),
    ('{"results": [{"area": "cache", "outcome": "great"}]}', "results[0] is not a result"),
])
def test_a_file_that_is_not_a_report_is_named(tmp_path: Path, content: str, message: str,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "bad.json"
    path.write_text(content)
    with pytest.raises(ReportError, match=re.escape(message)):
        read_report(path)
    assert main(["report", str(path)]) == 2
    out = capsys.readouterr().out
    assert "bad.json" in out and message in out and "Traceback" not in out


def test_the_command_prints_or_writes_the_matrix(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    report = _report(tmp_path / "a.json", "mine", [("cache", "v1.35", "pass")])
    assert main(["report", str(report)]) == 0
    assert "| mine | ✅ 1/1 [v1.35] |" in capsys.readouterr().out
    out = tmp_path / "matrix.json"
    assert main(["report", "--json", "--output", str(out), str(report)]) == 0
    assert json.loads(out.read_text())[0]["implementation"] == "mine"
    assert main(["report", "--output", str(tmp_path / "no" / "m.md"), str(report)]) == 2
    assert main(["report", str(tmp_path / "missing.json")]) == 2


def test_the_docs_page_shows_the_committed_runs() -> None:
    """docs/results holds the project's own runs; every one reads, and refimpl passes everything it ran."""
    reports = sorted(RESULTS.glob("*.json.gz"))
    assert any(p.name.startswith("refimpl") for p in reports)
    runs = read_reports(reports)
    refimpl = next(r for r in runs if r.name == "refimpl")
    assert sum(c["failed"] for c in refimpl.counts.values()) == 0
    assert "| refimpl " in matrix_markdown()
    assert "% compatibility-matrix" in (RESULTS.parent / "compatibility.md").read_text()
