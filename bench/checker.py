"""Benchmarks of the model checker (issue #16): states per second on one core, memory per state, what splitting a
run into parts costs, a bounded -j 2 sample, and (with ``--full``) the large universes with -j 2.

``bench/run.py`` (``make bench``) runs this script in a fresh interpreter and prints its rows: the quick ones, about a
minute. ``python -P bench/checker.py`` prints them alone, as JSON lines (``-P``: bench/conformance.py must not shadow
the conformance package); ``python -P bench/checker.py --full`` adds the issue's large universes (the cache with 3
nodes x 3 pods, with the snapshot abstraction that is ``ksspec check``'s default, and the cycle system with 2 nodes x 3
pods, -j 2, up to 600 s each: on a quiet 2-core machine both were exhausted, in 114 s and 76 s, on 2026-11-30
(docs/proofs.md); up to 20 minutes when the machine is shared). The issue's figures (main before issue 16, on the
project's 2-core machine): 1,366 distinct states/s for the
default cache universe, and neither large universe exhausted within 600 s.
"""

from __future__ import annotations

import argparse
import json
import time
from typing import Any, Final

from conformance.cli import check as check_command
from spec.verify.checker import explore
from spec.verify.exploration import Report

TODAY_STATES_PER_SECOND: Final = 1_366
"""Issue 16's measurement of ``ksspec check`` (default cache universe) on main: 27,176 states in 19.9 s."""
TARGET: Final = 30_000
STRETCH: Final = 50_000
LARGE_TIME_LIMIT: Final = 600.0
"""The issue's bound for the large universes with -j 2."""
TODAY_LARGE: Final = {
    "cache, 3 nodes x 3 pods": "not exhausted in 600 s (582,623 states, depth 9, measured in 688 s)",
    "cycle, 2 nodes x 3 pods": "not exhausted in 600 s",
}
"""The issue's figures for the large universes (the cache's with the overrun the time limit then had)."""
CONCRETE: Final = ("--no-abstract-snapshots",)
"""The rows that compare with figures measured before the snapshot abstraction run without it (same states)."""
SAMPLE: Final = ("--nodes", "3", "--pods", "3", "--depth", "6", *CONCRETE)
"""The quick -j 2 row: the 3 x 3 cache universe to depth 6 (a few tens of thousands of states)."""
REPEATS: Final = 3
PROFILE: Final = "docs/proofs.md, Measured figures"
"""Where a missed target's explanation is: the profile of the default universe and the 3 x 3 universe's growth."""


def check(argv: tuple[str, ...], **options: Any) -> Report:
    """Explore as ``ksspec check`` with ``argv`` does, with ``options`` for :func:`explore`."""
    parser = argparse.ArgumentParser(prog="ksspec check", add_help=False)
    check_command.add_check_arguments(parser)
    args = parser.parse_args(list(argv))
    system, name, _ = check_command.build_system(args)
    options.setdefault("depth_limit", None if args.depth <= 0 else args.depth)
    return explore(system, name=name, stop_at_first=not args.keep_going, **options)


def timed_check(argv: tuple[str, ...]) -> tuple[Report, float]:
    """:func:`check`, and the CPU seconds it took (on a shared machine, wall time also counts other processes')."""
    started = time.process_time()
    report = check(argv)
    return report, time.process_time() - started


def one_core() -> list[dict[str, str]]:
    """The default cache universe in this process, the best of :data:`REPEATS` runs (the machine is shared: another
    process only ever adds time). Each run builds its system afresh; the module-level tables (fingerprints of small
    values, renamed NodeInfos, pod resources) stay warm after the first run, so its figure, as a fresh
    ``ksspec check`` process would see it, is given too."""
    runs = [timed_check(CONCRETE) for _ in range(REPEATS)]
    best = min((report for report, _ in runs), key=lambda r: r.seconds)
    cpu = min(seconds for _, seconds in runs)
    first, first_cpu = runs[0]
    rate = best.states_per_second
    verdict = "✓" if rate >= TARGET else f"✗ (where the time goes: {PROFILE})"
    return [
        {
            "benchmark": "ksspec check (one core)",
            "parameters": f"cache default universe, 2 nodes x 2 pods, contract; best of {REPEATS}",
            "result": f"{rate:,.0f} states/s ({best.states:,} in {best.seconds:.2f} s), "
            f"{rate / TODAY_STATES_PER_SECOND:.1f}x today's {TODAY_STATES_PER_SECOND:,}/s; "
            f"{best.states / cpu:,.0f} states per CPU second ({cpu:.2f} s of CPU); first run "
            f"{first.states_per_second:,.0f}/s, {first.states / first_cpu:,.0f} per CPU second",
            "target": f"≥ {TARGET:,}/s {verdict} (stretch {STRETCH:,})",
        },
        {
            "benchmark": "",
            "parameters": "memory: fingerprint store (set of 64-bit fingerprints, parent, edge)",
            "result": f"{best.bytes_per_state:,.0f} bytes/state ({best.store_bytes / 2**20:.1f} MiB), "
            f"peak RSS {best.peak_rss_bytes / 2**20:,.0f} MiB",
            "target": "reported",
        },
    ]


def large(label: str, argv: tuple[str, ...]) -> dict[str, str]:
    report = check(argv, jobs=2, time_limit=LARGE_TIME_LIMIT)
    if report.exhausted:
        result = f"exhausted: {report.states:,} states, depth {report.max_depth}, {report.seconds:.0f} s"
    else:
        result = f"not exhausted in {report.seconds:.0f} s: {report.states:,} states, depth {report.max_depth}"
    ok = report.exhausted and report.seconds < LARGE_TIME_LIMIT
    return {
        "benchmark": "ksspec check -j 2",
        "parameters": f"{label} ({' '.join(argv)}); peak RSS {report.peak_rss_bytes / 2**20:,.0f} MiB per process",
        "result": result,
        "target": f"exhausted < {LARGE_TIME_LIMIT:.0f} s "
        + ("✓" if ok else f"✗ (growth per depth and profile: {PROFILE})") + f" (today: {TODAY_LARGE[label]})",
    }


def sample() -> dict[str, str]:
    """The 3 x 3 cache universe to depth 6, in one process and with -j 2: the same states, and the speed-up of two
    processes (on a shared machine the CPU time is the steadier figure: the workers' is not counted in this
    process's, so the row gives wall time)."""
    one = check(SAMPLE)
    two = check(SAMPLE, jobs=2)
    same = (one.states, one.transitions, one.max_depth) == (two.states, two.transitions, two.max_depth)
    return {
        "benchmark": "ksspec check -j 2 (sample)",
        "parameters": f"cache, 3 nodes x 3 pods, depth 6 ({' '.join(SAMPLE)})",
        "result": f"{two.states:,} states in {two.seconds:.1f} s ({two.states_per_second:,.0f}/s) against "
        f"{one.seconds:.1f} s in one process: {one.seconds / two.seconds:.2f}x",
        "target": "same states as one process " + ("✓" if same else "✗"),
    }


def split(parts: int = 2) -> dict[str, str]:
    """The default cache universe whole, then as ``parts`` parts run one after the other (as separate machines
    would run them at once): the states the parts explore together, and their time."""
    whole = check(CONCRETE)
    reports = [check(CONCRETE, partition=(part, parts)) for part in range(parts)]
    explored = sum(r.states for r in reports)
    slowest = max(r.seconds for r in reports)
    return {
        "benchmark": "split run (--partition K/N)",
        "parameters": f"cache default universe in {parts} parts, split at depth {reports[0].split_depth}",
        "result": f"parts explore {explored / whole.states:.2f}x the states; slowest part "
        f"{slowest / whole.seconds:.2f}x the whole run's {whole.seconds:.1f} s",
        "target": "reported",
    }


def run(full: bool = False) -> list[dict[str, str]]:
    """The quick rows; with ``full``, the large universes too."""
    rows = one_core()
    rows.append(split())
    rows.append(sample())
    if full:
        rows.append(large("cache, 3 nodes x 3 pods", ("--nodes", "3", "--pods", "3")))
        rows.append(large("cycle, 2 nodes x 3 pods", ("--system", "cycle", "--nodes", "2", "--pods", "3")))
    return rows


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument(
        "--full",
        action="store_true",
        help="add the large universes with -j 2, up to 600 s each (about 3 minutes on a quiet machine)",
    )
    started = time.perf_counter()
    for row in run(parser.parse_args().full):
        print(json.dumps(row), flush=True)
    print(f"total {time.perf_counter() - started:.0f} s")
