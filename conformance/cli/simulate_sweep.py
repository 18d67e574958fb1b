"""``ksspec simulate --seeds A..B [--cluster ADDRESS]``: one simulation per seed, a verdict per seed
(:mod:`conformance.simulation.sweep`), in this process or as tasks of a Dask cluster.

The table has a row per seed: passed or failed, pods bound, steps, virtual time, and what failed (the invariants
violated and how often, or the final state's first problem). Exit code 0: every seed passed; 1: some seed failed
(``--seed S`` alone reruns it with the full tables); 2: bad arguments, Dask missing, or the cluster out of reach.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence

from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from conformance.cli.simulate_cluster import wants_cluster
from conformance.interrupts import received
from conformance.simulation.sweep import SeedVerdict, sweep
from conformance.usage import cluster_error, usage_error
from refimpl.simulator import SimulationConfig
from spec.quantities import SECOND
from spec.verify.dask_pool import ClusterFailed, EngineMissing

EXIT_OK = 0
EXIT_VIOLATION = 1
MAX_SEEDS = 100_000
SEED_BOUND = 2**63


def seeds(text: str) -> tuple[int, ...]:
    """An argparse type: ``--seeds``, ``A..B`` (every seed from A to B, both included) or ``S,S,...``."""
    first, dots, last = text.partition("..")
    values: Sequence[int]
    try:
        if dots:
            values = range(int(first), int(last) + 1)
        else:
            values = tuple(int(part) for part in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"--seeds wants A..B (A to B, both included) or S,S,...; got {text!r}"
        ) from None
    if not values or len(values) > MAX_SEEDS:
        raise argparse.ArgumentTypeError(f"--seeds wants 1 to {MAX_SEEDS:,} seeds, got {len(values):,} from {text!r}")
    if any(not -SEED_BOUND <= seed < SEED_BOUND for seed in values):
        raise argparse.ArgumentTypeError(f"--seeds: every seed must be a 64-bit integer, got {text!r}")
    return tuple(values)


def simulate_seeds(args: argparse.Namespace, config: SimulationConfig, every: int, console: Console) -> int:
    """Run the sweep the arguments ask for, print its table; the exit code."""
    if args.seeds is None:
        return usage_error(console, "--cluster runs a seed sweep: give --seeds A..B (one simulation per seed)")
    if wants_cluster(args):
        return usage_error(console, "--seeds sweeps the one-scheduler simulation; drop --schedulers, --crash-rate "
                                    "and --kubelets")
    where = "in this process" if args.cluster is None else f"on the Dask cluster {args.cluster}"
    console.print(f"simulating {config.pods:,} pods on {config.nodes:,} nodes for {len(args.seeds):,} seeds {where}, "
                  f"profile {config.profile.name}, invariants checked every {every} step(s)", highlight=False)
    columns = (TextColumn("seeds"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    finished: list[SeedVerdict] = []

    def done(verdict: SeedVerdict) -> None:
        finished.append(verdict)
        progress.advance(task)

    try:
        with Progress(*columns, console=console, disable=args.no_progress or not console.is_terminal) as progress:
            task = progress.add_task("seeds", total=len(args.seeds))
            verdicts = sweep(config, args.seeds, every, cluster=args.cluster, done=done)
    except KeyboardInterrupt:  # the seeds finished so far
        signals = received()
        signals.hold()
        console.print(verdicts_table(sorted(finished, key=lambda v: args.seeds.index(v.seed))))
        console.print(f"[bold red]sweep interrupted by {signals.name or 'SIGINT'}[/] after {len(finished):,} of "
                      f"{len(args.seeds):,} seeds: the table lists those finished", highlight=False)
        return signals.exit_code()
    except (EngineMissing, ClusterFailed, OSError) as error:
        return cluster_error(console, error, args.cluster)
    console.print(verdicts_table(verdicts))
    failed = [v.seed for v in verdicts if not v.passed]
    if failed:
        console.print(f"[bold red]{len(failed):,} of {len(verdicts):,} seeds failed[/]: re-run one with --seed "
                      f"{failed[0]} (and the same options) for its tables", highlight=False)
        return EXIT_VIOLATION
    console.print(f"[bold green]{len(verdicts):,} of {len(verdicts):,} seeds passed[/]: no invariant violated",
                  highlight=False)
    return EXIT_OK


def verdicts_table(verdicts: list[SeedVerdict]) -> Table:
    """A row per seed: the verdict, the counts, and what failed."""
    table = Table(title="ksspec simulate --seeds")
    table.add_column("seed", justify="right")
    table.add_column("verdict")
    table.add_column("bound", justify="right")
    table.add_column("steps", justify="right")
    table.add_column("virtual time", justify="right")
    table.add_column("what failed")
    for verdict in verdicts:
        failures = [f"{name} x{count:,}" for name, count in verdict.violations] + list(verdict.problems[:1])
        table.add_row(str(verdict.seed), "[green]passed[/]" if verdict.passed else "[red]failed[/]",
                      f"{verdict.bound:,}", f"{verdict.steps:,}", f"{verdict.virtual_nanoseconds / SECOND:,.1f} s",
                      escape("; ".join(failures)))
    return table
