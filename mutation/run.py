"""``make mutation``: mutmut against the conformance suite, and the verdict on its survivors.

mutmut mutates the scope ``[tool.mutmut]`` names in ``pyproject.toml`` and judges every mutant by
``mutation/test_vectors.py`` (the conformance vectors against the bundled reference adapter, one test per
vector, so a mutant runs only the vectors that reach its function). This script runs mutmut, reads its results
and prints, per package, the mutants, killed, timeout (a hung adapter fails its vector, so these are killed too),
equivalent (survived, and listed in ``mutation/equivalents.toml`` with the reason no vector can tell it apart),
known gap (survived, and listed as a hole in the suite), survived (neither) and not reached (no vector calls the
function). It fails when a mutant survives that the list does not name, when a listed mutant was killed or not
reached (the list is stale; a sample only reports those, since it sees some of the entries and a vector that kills a
listed mutant is progress), or when mutmut reports anything else (a crash, an interrupted run).

Only the mutants of functions ``mutation/scope.toml`` keeps in scope are run and counted; the table says how many
it leaves out, and ends each row with the score, killed / (mutants - equivalent). ``--sample N`` runs a
deterministic subset: N of the in-scope mutants drawn with ``--seed``, for CI. ``--package P`` (repeatable:
``refimpl.cache``, ``refimpl.dispatcher``...) keeps only the in-scope mutants of those packages, before any sample:
a full run of one area's mutants; the table then shows those packages only. ``--function PATTERN`` (repeatable; an
``fnmatch`` pattern over ``package.module:Class.method``, as ``mutation/scope.toml``'s) narrows them further to the
functions it matches: the run of the code a change touched. ``--unlisted-only`` leaves out the mutants the equivalents
file lists: the verdict on survivors is the same at a fraction of the cost, but stale entries go unseen.
``--listed-only`` is its complement, the listed mutants alone: it finds the stale entries, and an ``--unlisted-only``
run and a ``--listed-only`` run of the same code judge every in-scope mutant the full run does. Exit status: 0 all
accounted for; 1 a survivor not listed, or a stale entry (the full and listed-only runs); 2 the equivalents file
does not match the current mutants (or names an out-of-scope one), or mutmut failed.
"""

from __future__ import annotations

import argparse
import fnmatch
import json
import random
import resource
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
    CATEGORIES,
    GAP,
    ROOT,
    Equivalent,
    Matching,
    Mutation,
    in_scope,
    load_equivalents,
    load_scope,
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
    # SIGKILL (mutmut's "segfault"): the kernel's OOM killer stopped a mutant whose memory grew without bound (an index
    # that never advances), which MEMORY_LIMIT should turn into a MemoryError first. Like a hang, it fails its vector.
    -9: Verdict.TIMEOUT,
}
"""mutmut's exit codes per mutant (mutmut/stats.py ``status_by_exit_code``, mutmut 3.8.1) as verdicts here."""

COLUMNS: Final = (Verdict.KILLED, Verdict.TIMEOUT, Verdict.EQUIVALENT, Verdict.KNOWN_GAP, Verdict.SURVIVED,
                  Verdict.NOT_REACHED)
EQUIVALENT_CATEGORIES: Final = tuple(c for c in CATEGORIES if c != GAP)
"""The reasons a listed survivor counts as equivalent (every category but ``gap``): the table's sub-columns."""


# --------------------------------------------------------------------------------------------
# Reading mutmut's results
# --------------------------------------------------------------------------------------------


def read_exit_codes(root: Path = ROOT) -> dict[str, int | None]:
    """Each mutant's exit code as mutmut recorded it (``mutants/**/*.meta``); None: not run yet."""
    codes: dict[str, int | None] = {}
    for meta in sorted((root / MUTANTS_DIR).rglob("*.py.meta")):
        codes.update(json.loads(meta.read_text())["exit_code_by_key"])
    return codes


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
    listed: dict[str, str] = field(default_factory=dict)
    """Each listed survivor's category."""

    def table(self) -> list[tuple[str, Counter[str]]]:
        """Per package and in total: each verdict's count, and each listed survivor category's (``cat:NAME``)."""
        by_package: dict[str, Counter[str]] = {}
        for name, verdict in self.verdicts.items():
            counts = by_package.setdefault(package_of(name), Counter())
            counts[verdict] += 1
            if name in self.listed:
                counts["cat:" + self.listed[name]] += 1
        total: Counter[str] = Counter()
        for counts in by_package.values():
            total += counts
        return [*sorted(by_package.items()), ("total", total)]

    @property
    def ok(self) -> bool:
        return not (self.unlisted or self.stale or self.other)

    def ok_for_sample(self) -> bool:
        """A sample's verdict: a stale entry is reported but does not fail it. A new vector that kills a listed
        mutant is progress, and the sample sees only some of the entries; the full run fails on every one."""
        return not (self.unlisted or self.other)


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
            report.listed[name] = entry.category
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


MEMORY_LIMIT: Final = 4 * 2**30
"""Address space each mutmut process may map (``RLIMIT_AS``; its children, the mutants, inherit it): a judge takes
about 0.6 GiB, and a mutant whose memory grows without bound (an index that never advances) then fails with
``MemoryError`` instead of taking the machine's memory until the kernel's OOM killer stops it (2026-11-30: two such
mutants reached 12 and 14 GiB of a 23 GiB machine)."""


def limit_memory() -> None:
    """Cap this process's address space at :data:`MEMORY_LIMIT` (``preexec_fn`` of the mutmut command)."""
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))


def run_mutmut(names: Sequence[str], workers: int, root: Path = ROOT) -> None:
    """``mutmut run`` (all mutants, or just ``names``), its output appended to ``mutants/mutmut.log``, with each of
    its processes' memory capped (:func:`limit_memory`)."""
    (root / MUTANTS_DIR).mkdir(exist_ok=True)
    log = root / MUTANTS_DIR / LOG_NAME
    with log.open("a") as out:
        status = subprocess.run([mutmut_command(), "run", "--max-children", str(workers), *names],
                                cwd=root, stdout=out, stderr=subprocess.STDOUT, check=False,
                                preexec_fn=limit_memory).returncode
    if status != 0:
        tail = log.read_text().replace("\r", "\n").splitlines()[-15:]
        raise SystemExit("mutation: mutmut run failed (exit {}); the end of {}:\n{}".format(
            status, log.relative_to(root), "\n".join(tail)))


def restrict_to_packages(scoped: Mapping[str, Mutation], packages: Sequence[str]) -> dict[str, Mutation]:
    """The in-scope mutants of ``packages`` (all of them when none is given). Raises ValueError naming a package
    that has no in-scope mutant (a typo would otherwise run nothing and report a clean table)."""
    if not packages:
        return dict(scoped)
    known = {package_of(name) for name in scoped}
    unknown = sorted(set(packages) - known)
    if unknown:
        raise ValueError("no in-scope mutant in package(s) {}; the packages are: {}".format(
            ", ".join(unknown), ", ".join(sorted(known))))
    return {name: mutation for name, mutation in scoped.items() if package_of(name) in packages}


def restrict_to_functions(scoped: Mapping[str, Mutation], patterns: Sequence[str]) -> dict[str, Mutation]:
    """The in-scope mutants of the functions ``patterns`` match (``fnmatch`` over ``module:Class.method``; all of
    them when none is given). Raises ValueError naming a pattern that matches no in-scope mutant."""
    if not patterns:
        return dict(scoped)
    unmatched = [p for p in patterns if not any(fnmatch.fnmatchcase(m.function, p) for m in scoped.values())]
    if unmatched:
        raise ValueError("no in-scope mutant of a function matching {} (patterns are fnmatch over "
                         "'package.module:Class.method')".format(", ".join(unmatched)))
    return {name: m for name, m in scoped.items() if any(fnmatch.fnmatchcase(m.function, p) for p in patterns)}


def without_listed(scoped: Mapping[str, Mutation], matching: Matching) -> dict[str, Mutation]:
    """The mutants of ``scoped`` that no equivalents entry lists (``--unlisted-only``). The run's verdict, "every
    surviving mutant is listed", needs only these: a listed mutant is accounted for whether it survives or not.
    Skipped, the listed ones cost nothing, and they are most of the survivors, the mutants that run every vector
    reaching their function where a killed one stops at its first failing vector (mutmut runs pytest with -x)."""
    return {name: mutation for name, mutation in scoped.items() if name not in matching.by_mutant}


def only_listed(scoped: Mapping[str, Mutation], matching: Matching) -> dict[str, Mutation]:
    """The mutants of ``scoped`` that an equivalents entry lists (``--listed-only``): the complement of
    :func:`without_listed`, the run that finds stale entries (a listed mutant that a vector now kills)."""
    return {name: mutation for name, mutation in scoped.items() if name in matching.by_mutant}


def choose_sample(scoped: Iterable[str], size: int, seed: int) -> list[str]:
    """``size`` of the in-scope mutants, drawn with ``seed``, sorted. (Not only the reached ones: a mutant no
    vector reaches counts against the score, so the sample estimates the same ratio as the full run; and the
    sample needs no run beforehand to learn what is reached.)"""
    pool = sorted(scoped)
    return sorted(random.Random(seed).sample(pool, min(size, len(pool))))


# --------------------------------------------------------------------------------------------
# Printing
# --------------------------------------------------------------------------------------------


def score(counts: Mapping[str, int]) -> float | None:
    """killed (timeouts included) / (mutants - equivalent): the share of the mutants that can be told apart that
    the suite tells apart. Known gaps, unlisted survivors and unreached mutants count against it. None: no mutant
    could be told apart."""
    mutants = sum(counts.get(v, 0) for v in Verdict)
    told_apart = mutants - counts.get(Verdict.EQUIVALENT, 0)
    return (counts.get(Verdict.KILLED, 0) + counts.get(Verdict.TIMEOUT, 0)) / told_apart if told_apart else None


def render_table(report: Report, out_of_scope: Mapping[str, int] | None = None) -> str:
    """The table ``make mutation`` prints: per package the mutants, each verdict, the equivalents by category
    (``= message``...), and the score; and the mutants ``mutation/scope.toml`` leaves out, if given."""
    header = ["package", "mutants", *(c.value for c in COLUMNS[:3]), *(f"={c}" for c in EQUIVALENT_CATEGORIES),
              *(c.value for c in COLUMNS[3:]), "score"]
    if out_of_scope is not None:
        header.append("out of scope")
    rows = []
    for package, counts in report.table():
        value = score(counts)
        row = [package, str(sum(counts[v] for v in Verdict)), *(str(counts[c]) for c in COLUMNS[:3]),
               *(str(counts["cat:" + c]) for c in EQUIVALENT_CATEGORIES), *(str(counts[c]) for c in COLUMNS[3:]),
               "-" if value is None else f"{100 * value:.1f}%"]
        if out_of_scope is not None:
            row.append(str(sum(out_of_scope.values()) if package == "total" else out_of_scope.get(package, 0)))
        rows.append(row)
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
    parser.add_argument("--package", action="append", default=[], metavar="P",
                        help="only the in-scope mutants of package P (repeatable; e.g. refimpl.cache); default: all")
    parser.add_argument("--function", action="append", default=[], metavar="PATTERN",
                        help="only the in-scope mutants of functions PATTERN matches (repeatable; fnmatch over "
                        "'package.module:Class.method', e.g. 'refimpl.scheduler.nominator:*')")
    parser.add_argument("--unlisted-only", action="store_true",
                        help="run only the mutants mutation/equivalents.toml does not list: the same verdict on "
                        "survivors at a fraction of the cost (listed mutants are most survivors, and a survivor runs "
                        "every vector that reaches it), but a stale entry (a listed mutant now killed) goes unseen")
    parser.add_argument("--listed-only", action="store_true",
                        help="run only the mutants mutation/equivalents.toml lists: the complement of "
                        "--unlisted-only, which finds the stale entries")
    parser.add_argument("-j", "--workers", type=int, default=2, help="mutmut's --max-children (default 2)")
    parser.add_argument("--resume", action="store_true",
                        help="keep mutants/ from an earlier run: mutmut runs what has no result yet (what changed "
                        "since, and out-of-scope mutants too); the report still counts the in-scope ones only")
    args = parser.parse_args(argv)
    if args.sample is not None and args.sample < 1:
        parser.error("--sample must be at least 1")
    if args.workers < 1:
        parser.error("--workers must be at least 1")
    if args.unlisted_only and args.listed_only:
        parser.error("--unlisted-only and --listed-only together would run nothing")

    started = time.perf_counter()
    current = mutations()
    scoped = in_scope(current, load_scope())
    out_of_scope = Counter(package_of(name) for name in current
                           if name not in scoped and (not args.package or package_of(name) in args.package))
    try:
        chosen = restrict_to_packages(scoped, args.package)
    except ValueError as error:
        parser.error(f"--package: {error}")
    try:
        chosen = restrict_to_functions(chosen, args.function)
    except ValueError as error:
        parser.error(f"--function: {error}")
    matching = match_equivalents(load_equivalents(), current)
    problems = [*matching.problems, *out_of_scope_entries(matching, scoped)]
    if problems:
        print("\n\n".join(problems), file=sys.stderr)
        print(f"mutation: mutation/equivalents.toml does not match the current mutants ({len(problems)} "
              "problem(s))", file=sys.stderr)
        return 2
    left_out = 0
    if args.unlisted_only:
        unlisted = without_listed(chosen, matching)
        left_out, chosen = len(chosen) - len(unlisted), unlisted
    elif args.listed_only:
        listed = only_listed(chosen, matching)
        left_out, chosen = len(chosen) - len(listed), listed
    if not args.resume:
        shutil.rmtree(ROOT / MUTANTS_DIR, ignore_errors=True)

    of_packages = f" of {', '.join(sorted(set(args.package)))}" if args.package else ""
    if args.function:
        of_packages += f" (functions {', '.join(args.function)})"
    if args.unlisted_only:
        of_packages += f", unlisted only: {left_out} listed mutants not run"
    elif args.listed_only:
        of_packages += f", listed only: {left_out} unlisted mutants not run"
    if args.sample is None:
        names = sorted(chosen)
        what = f"full run{of_packages}"
    else:
        names = choose_sample(chosen, args.sample, args.seed)
        what = f"sample of {len(names)} of the {len(chosen)} in-scope mutants{of_packages}, seed {args.seed}"
    # Named mutants only: mutmut would otherwise run the out-of-scope ones too. (--resume runs whatever has no
    # result yet, which mutmut decides.)
    run_mutmut([] if args.resume else names, args.workers)
    report = judge(names, read_exit_codes(), current, matching)
    elapsed = time.perf_counter() - started

    print(f"mutmut against the conformance suite ({what}, {args.workers} workers, {elapsed:.0f} s)")
    print(render_table(report, out_of_scope))
    print("score = killed (timeouts too) / (mutants - equivalent); out of scope: mutated, but left out of the score "
          "by mutation/scope.toml")
    if report.categories:
        print("listed survivors, by reason: " + ", ".join(f"{k} {n}" for k, n in sorted(report.categories.items())))
    if args.sample is not None and report.ok_for_sample() and report.stale:
        print()
        print(render_problems(report, current))
        print(f"mutation: {len(report.stale)} listed mutant(s) of the sample no longer survive: the sample passes, "
              "`make mutation` (the full run) fails until their entries are removed")
        return 0
    if not report.ok:
        print()
        print(render_problems(report, current))
        return 1
    print("mutation: every surviving mutant is listed (equivalent, or a known gap)")
    return 0


def out_of_scope_entries(matching: Matching, scoped: Mapping[str, Mutation]) -> list[str]:
    """A problem for each equivalents entry whose mutant ``mutation/scope.toml`` leaves out: it is never run."""
    return [f"{entry.describe()}\n  names a mutant mutation/scope.toml leaves out of the score: remove the entry"
            for name, entry in sorted(matching.by_mutant.items(), key=lambda item: item[1].index)
            if name not in scoped]


if __name__ == "__main__":
    sys.exit(main())
