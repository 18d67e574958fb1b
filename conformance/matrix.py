"""The compatibility matrix: JSON reports of several ``ksspec conform`` runs as one table.

Each report (``ksspec conform --json``) is one implementation's run; its ``metadata`` (from the adapter's ``hello``)
names the implementation, and each result says the area and the profile its vector ran under. The matrix counts,
per implementation, area and profile: passed, failed (fail, error, xpass), expected failures (xfail), not
applicable (skipped: an area the adapter does not declare, or no profile it follows) and not run (an interrupted
run). Like Bowtie's published results: one place that says which implementation passes what.
"""

from __future__ import annotations

import gzip
import json
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from conformance.format import AREAS
from spec.versions import PROFILES

JSON = Any
NO_PROFILE: Final = "-"
"""The profile column of results that ran under none (skipped, or an error before the profile was chosen)."""
COLUMNS: Final = ("passed", "failed", "expected failures", "not applicable", "not run")
BUCKET: Final = {"pass": "passed", "fail": "failed", "error": "failed", "xpass": "failed", "xfail": "expected failures",
                 "skip": "not applicable", "not_run": "not run"}
"""Each outcome of a report's results, in the matrix's terms."""


class ReportError(ValueError):
    """A file is not a ``ksspec conform --json`` report; the message names the file and what is wrong."""


@dataclass
class Run:
    """One report: who ran, and the counts per (area, profile)."""

    name: str
    metadata: JSON
    source: str
    exit_code: int | None
    counts: dict[tuple[str, str], Counter[str]] = field(default_factory=dict)

    @property
    def label(self) -> str:
        """The implementation's name with its version and language, when the report has them."""
        version = self.metadata.get("version")
        language = self.metadata.get("language")
        return self.name + (f" {version}" if version else "") + (f" ({language})" if language else "")


def read_report(path: Path) -> Run:
    """A report file (``.json``, or ``.json.gz`` compressed) as a :class:`Run`; fails with :class:`ReportError` when
    it cannot be read or is not a report."""
    try:
        raw = path.read_bytes()
        data = json.loads(gzip.decompress(raw) if path.name.endswith(".gz") else raw)
    except (gzip.BadGzipFile, EOFError) as error:  # BadGzipFile is an OSError: first
        raise ReportError(f"{path}: not a whole gzip file ({error})") from None
    except OSError as error:
        raise ReportError(f"{path}: cannot read it ({error.strerror or error})") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as error:
        raise ReportError(f"{path}: not JSON ({error})") from None
    if not isinstance(data, dict) or not isinstance(data.get("results"), list):
        raise ReportError(f"{path}: not a `ksspec conform --json` report (no list of results)")
    metadata: JSON = data["metadata"] if isinstance(data.get("metadata"), dict) else {}
    name = metadata.get("name") or data.get("implementation") or path.stem
    run = Run(str(name), metadata, path.name.removesuffix(".gz"), data.get("exit_code"))
    for index, result in enumerate(data["results"]):
        if not isinstance(result, dict) or result.get("outcome") not in BUCKET or not isinstance(
                result.get("area"), str):
            raise ReportError(f"{path}: results[{index}] is not a result (an object with an area and an outcome "
                              f"among {', '.join(BUCKET)})")
        key = (result["area"], str(result.get("profile") or NO_PROFILE))
        run.counts.setdefault(key, Counter())[BUCKET[result["outcome"]]] += 1
    return run


def _profiles(runs: Sequence[Run]) -> list[str]:
    found = {profile for run in runs for _, profile in run.counts}
    order = [*PROFILES, NO_PROFILE]
    return sorted(found, key=lambda p: (order.index(p) if p in order else len(order), p))


def rows(runs: Sequence[Run]) -> list[tuple[str, str, str, Counter[str]]]:
    """(implementation, area, profile, counts) for every combination that has results, in a fixed order."""
    out = []
    for run in runs:
        for area in [a for a in AREAS if any(k[0] == a for k in run.counts)]:
            for profile in _profiles([run]):
                counts = run.counts.get((area, profile))
                if counts:
                    out.append((run.label, area, profile, counts))
    return out


def verdict(run: Run, area: str) -> str:
    """One cell of the summary grid: how ``run`` did on ``area`` over every profile."""
    total: Counter[str] = Counter()
    profiles = []
    for profile in _profiles([run]):
        counts = run.counts.get((area, profile), Counter())
        if counts:
            total += counts
            if counts["passed"] or counts["failed"] or counts["expected failures"]:
                profiles.append(profile)
    ran = total["passed"] + total["failed"] + total["expected failures"]
    if not ran:
        return "n/a"
    mark = "✅" if not total["failed"] else "❌"
    text = f"{mark} {total['passed']}/{ran}"
    if total["expected failures"]:
        text += f" ({total['expected failures']} xfail)"
    return f"{text} [{', '.join(profiles)}]"


def markdown(runs: Sequence[Run]) -> str:
    """The matrix as Markdown: a grid (implementation x area) and the detail (implementation x area x profile)."""
    lines = ["| implementation | " + " | ".join(AREAS) + " |", "|---|" + "---|" * len(AREAS)]
    for run in runs:
        lines.append(f"| {_cell(run.label)} | " + " | ".join(verdict(run, area) for area in AREAS) + " |")
    lines += ["", "| implementation | area | profile | " + " | ".join(COLUMNS) + " |",
              "|---|---|---|" + "---:|" * len(COLUMNS)]
    for label, area, profile, counts in rows(runs):
        lines.append(f"| {_cell(label)} | {area} | {profile} | " + " | ".join(str(counts[c]) for c in COLUMNS) + " |")
    return "\n".join(lines) + "\n"


def as_json(runs: Sequence[Run]) -> JSON:
    """The matrix as JSON: one entry per implementation, with its metadata and counts per area and profile."""
    return [{"implementation": run.name, "metadata": run.metadata, "source": run.source,
             "results": [{"area": area, "profile": profile, **{c: counts[c] for c in COLUMNS}}
                         for label, area, profile, counts in rows([run])]}
            for run in runs]


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def merged(runs: Iterable[Run]) -> list[Run]:
    """Runs of the same implementation (same name, version and language) as one, their counts added (one run per
    profile with ``--profile``, or shards, make one row); in the order each implementation first appears."""
    out: dict[str, Run] = {}
    for run in runs:
        if run.label not in out:
            out[run.label] = Run(run.name, run.metadata, run.source, run.exit_code, {})
        into = out[run.label]
        if run is not into and into.source != run.source:
            into.source = f"{into.source}, {run.source}" if run.source not in into.source.split(", ") else into.source
        for key, counts in run.counts.items():
            into.counts[key] = into.counts.get(key, Counter()) + counts
        if run.exit_code not in (None, 0):
            into.exit_code = run.exit_code
    return list(out.values())


def read_reports(paths: Iterable[Path]) -> list[Run]:
    """Every report, merged by implementation (:func:`merged`), in the order given; fails with
    :class:`ReportError` on the first bad one."""
    return merged(read_report(path) for path in paths)
