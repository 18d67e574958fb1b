"""``make mutation``: mutmut against the conformance suite, and the verdict on its survivors.

mutmut mutates the scope ``[tool.mutmut]`` names in ``pyproject.toml`` and judges every mutant by
``mutation/test_vectors.py`` (the conformance vectors against the bundled reference adapter, one test per
vector, so a mutant runs only the vectors that reach its function). This script runs mutmut, reads its results
and prints, per package, the mutants, killed, timeout (a hung adapter fails its vector, so these are killed too),
equivalent (survived, and listed in ``mutation/equivalents.toml`` with the reason no vector can tell it apart),
known gap (survived, and listed as a hole in the suite), survived (neither) and not reached (no vector calls the
function). It fails when a mutant survives that the list does not name, when a listed mutant was killed or not
reached (the list is stale), or when mutmut reports anything else (a crash, an interrupted run).

``--sample N`` runs a deterministic subset: N mutants drawn with ``--seed`` from those some vector reaches (mutmut
collects that first), for CI. Exit status: 0 all accounted for; 1 a survivor not listed, or a stale entry;
2 the equivalents file does not match the current mutants, or mutmut failed.
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Final

from mutation.catalogue import (
    GAP,
    ROOT,
    Equivalent,
    Matching,
    Mutation,
    load_equivalents,
    match_equivalents,
    mutations,
    occurrence_of,
    package_of,
    render_entry,
)

MUTANTS_DIR: Final = "mutants"
LOG_NAME: Final = "mutmut.log"


class Verdict(StrEnum):
    KILLED = "killed"
    TIMEOUT = "timeout"
    EQUIVALENT = "equivalent"
    KNOWN_GAP = "known gap"
    SURVIVED = "survived"
    NOT_REACHED = "not reached"
    OTHER = "other"


MUTMUT_STATUS: Final[Mapping[int | None, Verdict]] = {
    0: Verdict.SURVIVED,
    1: Verdict.KILLED,
    3: Verdict.KILLED,  # pytest's internal error: the mutant broke the judge itself
    33: Verdict.NOT_REACHED,  # mutmut's "no tests": no vector calls the mutated function
    5: Verdict.NOT_REACHED,
    36: Verdict.TIMEOUT,
    -24: Verdict.TIMEOUT,
    24: Verdict.TIMEOUT,
    152: Verdict.TIMEOUT,
    255: Verdict.TIMEOUT,
}
"""mutmut's exit codes per mutant (mutmut/stats.py ``status_by_exit_code``, mutmut 3.8.1) as verdicts here."""

COLUMNS: Final = (Verdict.KILLED, Verdict.TIMEOUT, Verdict.EQUIVALENT, Verdict.KNOWN_GAP, Verdict.SURVIVED,
                  Verdict.NOT_REACHED)


# --------------------------------------------------------------------------------------------
# Reading mutmut's results
# --------------------------------------------------------------------------------------------


def read_exit_codes(root: Path = ROOT) -> dict[str, int | None]:
    """Each mutant's exit code as mutmut recorded it (``mutants/**/*.meta``); None: not run yet."""
    codes: dict[str, int | None] = {}
    for meta in sorted((root / MUTANTS_DIR).rglob("*.py.meta")):
        codes.update(json.loads(meta.read_text())["exit_code_by_key"])
    return codes


def reached_functions(root: Path = ROOT) -> set[str]:
    """The mangled functions some vector calls, from mutmut's stats (``mutants/mutmut-stats.json``)."""
    stats = json.loads((root / MUTANTS_DIR / "mutmut-stats.json").read_text())
    return {name for name, tests in stats["tests_by_mangled_function_name"].items() if tests}


@dataclass
class Report:
    verdicts: dict[str, Verdict]
    """Each judged mutant's verdict."""
    unlisted: list[Mutation] = field(default_factory=list)
    stale: list[tuple[Equivalent, str, Verdict]] = field(default_factory=list)
    """Listed entries whose mutant did not survive: (entry, mutant, verdict)."""
    other: list[tuple[str, int | None]] = field(default_factory=list)
    categories: Counter[str] = field(default_factory=Counter)
    """The listed survivors by the category their reason gives."""

    def table(self) -> list[tuple[str, Counter[Verdict]]]:
        by_package: dict[str, Counter[Verdict]] = {}
        for name, verdict in self.verdicts.items():
            by_package.setdefault(package_of(name), Counter())[verdict] += 1
        total: Counter[Verdict] = Counter()
        for counts in by_package.values():
            total += counts
        return [*sorted(by_package.items()), ("total", total)]

    @property
    def ok(self) -> bool:
        return not (self.unlisted or self.stale or self.other)


def judge(names: Iterable[str], codes: Mapping[str, int | None], current: Mapping[str, Mutation],
          matching: Matching) -> Report:
    """The verdict on each of ``names`` from mutmut's exit ``codes`` and the matched equivalents list."""
    report = Report({})
    for name in sorted(names):
        code = codes.get(name)
        verdict = MUTMUT_STATUS.get(code, Verdict.OTHER) if name in codes else Verdict.OTHER
        entry = matching.by_mutant.get(name)
        if verdict is Verdict.OTHER:
            report.other.append((name, code))
        elif verdict is Verdict.SURVIVED and entry is not None:
            verdict = Verdict.KNOWN_GAP if entry.category == GAP else Verdict.EQUIVALENT
            report.categories[entry.category] += 1
        elif verdict is Verdict.SURVIVED:
            report.unlisted.append(current[name])
        elif entry is not None:
            report.stale.append((entry, name, verdict))
        report.verdicts[name] = verdict
    return report


# --------------------------------------------------------------------------------------------
# Running mutmut
# --------------------------------------------------------------------------------------------


def mutmut_command() -> str:
    """The ``mutmut`` script of this interpreter's environment (``python -m mutmut`` would re-execute its
    ``__main__``, which mutmut warns against)."""
    script = Path(sys.executable).parent / "mutmut"
    if not script.exists():
        raise SystemExit(f"mutation: {script} is missing; run `make venv` (mutmut is a dev dependency)")
    return str(script)


def run_mutmut(names: Sequence[str], workers: int, root: Path = ROOT) -> None:
    """``mutmut run`` (all mutants, or just ``names``), its output appended to ``mutants/mutmut.log``."""
    (root / MUTANTS_DIR).mkdir(exist_ok=True)
    log = root / MUTANTS_DIR / LOG_NAME
    with log.open("a") as out:
        status = subprocess.run([mutmut_command(), "run", "--max-children", str(workers), *names],
                                cwd=root, stdout=out, stderr=subprocess.STDOUT, check=False).returncode
    if status != 0:
        tail = log.read_text().replace("\r", "\n").splitlines()[-15:]
        raise SystemExit("mutation: mutmut run failed (exit {}); the end of {}:\n{}".format(
            status, log.relative_to(root), "\n".join(tail)))


def choose_sample(current: Mapping[str, Mutation], reached: set[str], size: int, seed: int) -> list[str]:
    """``size`` of the mutants whose function some vector reaches, drawn with ``seed``, sorted."""
    pool = sorted(name for name in current if name.partition("__mutmut_")[0] in reached)
    return sorted(random.Random(seed).sample(pool, min(size, len(pool))))


# --------------------------------------------------------------------------------------------
# Printing
# --------------------------------------------------------------------------------------------


def render_table(report: Report) -> str:
    header = ["package", "mutants", *(c.value for c in COLUMNS)]
    rows = [[package, str(sum(counts.values())), *(str(counts[c]) for c in COLUMNS)]
            for package, counts in report.table()]
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header))]

    def line(cells: Sequence[str]) -> str:
        pairs = enumerate(zip(cells, widths, strict=True))
        return "  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in pairs)

    return "\n".join([line(header), *(line(row) for row in rows)])


def render_problems(report: Report, current: Mapping[str, Mutation]) -> str:
    out = []
    if report.unlisted:
        out.append(f"{len(report.unlisted)} mutant(s) survived that mutation/equivalents.toml does not list: kill each "
                   "with a curated vector, or list it with the reason it is equivalent:")
        for mutation in report.unlisted:
            out += ["", f"# {mutation.name}", render_entry(mutation, "TODO", occurrence_of(mutation, current))]
    for entry, name, verdict in report.stale:
        out.append(f"listed as equivalent but {verdict.value} ({name}): remove it\n{entry.describe()}")
    for name, code in report.other:
        out.append(f"{name}: mutmut exit code {code!r} (not run, crashed or interrupted): re-run")
    return "\n".join(out)


# --------------------------------------------------------------------------------------------
# The command
# --------------------------------------------------------------------------------------------


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m mutation.run", description=__doc__.split("\n\n")[0])
    parser.add_argument("--sample", type=int, metavar="N", help="run N mutants drawn with --seed (default: all)")
    parser.add_argument("--seed", type=int, default=13, help="seed of the sample (default 13)")
    parser.add_argument("-j", "--workers", type=int, default=2, help="mutmut's --max-children (default 2)")
    parser.add_argument("--resume", action="store_true",
                        help="keep mutants/ from an earlier run (mutmut re-runs only what changed)")
    args = parser.parse_args(argv)
    if args.sample is not None and args.sample < 1:
        parser.error("--sample must be at least 1")
    if args.workers < 1:
        parser.error("--workers must be at least 1")

    started = time.perf_counter()
    current = mutations()
    matching = match_equivalents(load_equivalents(), current)
    if matching.problems:
        print("\n\n".join(matching.problems), file=sys.stderr)
        print(f"mutation: mutation/equivalents.toml does not match the current mutants ({len(matching.problems)} "
              "problem(s))", file=sys.stderr)
        return 2
    if not args.resume:
        shutil.rmtree(ROOT / MUTANTS_DIR, ignore_errors=True)

    if args.sample is None:
        run_mutmut([], args.workers)
        names = list(current)
        what = "full run"
    else:
        # The first call makes the mutants and collects which vectors reach which function; the second runs the
        # sample (mutmut re-runs named mutants even when it has a result for them).
        run_mutmut([min(current)], args.workers)
        names = choose_sample(current, reached_functions(), args.sample, args.seed)
        run_mutmut(names, args.workers)
        what = f"sample of {len(names)} reached mutants, seed {args.seed}"
    report = judge(names, read_exit_codes(), current, matching)
    elapsed = time.perf_counter() - started

    print(f"mutmut against the conformance suite ({what}, {args.workers} workers, {elapsed:.0f} s)")
    print(render_table(report))
    if report.categories:
        print("listed survivors, by reason: " + ", ".join(f"{k} {n}" for k, n in sorted(report.categories.items())))
    if not report.ok:
        print()
        print(render_problems(report, current))
        return 1
    print("mutation: every surviving mutant is listed (equivalent, or a known gap)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
