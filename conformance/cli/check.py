"""``ksspec check``: the explicit-state model checker of :mod:`spec.verify.checker` over one area's universe.

It prints rich tables and returns a process exit code: 0 only when the exploration finished (within its depth
limit) without a violation.
"""


from __future__ import annotations

import argparse
from array import array
from collections import Counter
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from conformance.arguments import MAX_BOUND, cluster, int_in, non_negative, positive
from conformance.cli.check_queue import add_queue_check_arguments, build_queue_system, queue_only_flags
from conformance.console import make_console
from conformance.interrupts import received
from conformance.usage import UsageError, check_report_path, cluster_error, usage_error
from spec.quantities import SECOND
from spec.verify.cache.snapshot_abstraction import SnapshotAbstractionInexact
from spec.verify.cache.system import CacheSystem
from spec.verify.cache.universe import (
    DEFAULT_DEPTH,
    DEFAULT_UNIVERSE,
    MAX_NODE_VARIANTS,
    MAX_POD_VARIANTS,
    Mode,
    Universe,
)
from spec.verify.checker import INTERRUPTED, explore
from spec.verify.cluster.system import DEFAULT_CLUSTER_UNIVERSE, ClusterSystem, ClusterUniverse
from spec.verify.cycle.system import DEFAULT_CYCLE_UNIVERSE, CycleSystem, CycleUniverse
from spec.verify.dask_pool import ClusterFailed, EngineMissing
from spec.verify.dispatcher.system import (
    DEFAULT_DISPATCHER_UNIVERSE,
    MAX_CALL_VARIANTS,
    DispatcherSystem,
    DispatcherUniverse,
)
from spec.verify.exploration import Report
from spec.verify.transition_system import TransitionSystem
from spec.versions import PROFILES, get_profile

# ============================================================================================
# ksspec check
# ============================================================================================


SYSTEMS = ("cache", "dispatcher", "cycle", "cluster", "queue")


def build_system(args: argparse.Namespace) -> tuple[TransitionSystem[Any], str, str]:
    """The system ``--system`` names over the universe the other arguments set; its name and universe text."""
    symmetry = not args.no_symmetry
    known = args.known_violations
    if args.system == "queue":
        return build_queue_system(args)
    if args.system == "dispatcher":
        d = DEFAULT_DISPATCHER_UNIVERSE
        dispatcher = DispatcherUniverse(
            uids=_given(args.uids, d.uids),
            adds=_given(args.adds, d.adds),
            call_variants=_given(args.call_variants, d.call_variants),
            profile=get_profile(_given(args.profile, d.profile.name)),
        )
        system: TransitionSystem[Any] = DispatcherSystem(dispatcher, symmetry=symmetry, known_violations=known)
        return system, "dispatcher", dispatcher.describe()
    if args.system == "cycle":
        c = DEFAULT_CYCLE_UNIVERSE
        ttls = c.ttls if args.ttl is None else tuple(round(t * SECOND) for t in args.ttl)
        pipeline = CycleUniverse(
            nodes=_given(args.nodes, c.nodes),
            pods=_given(args.pods, c.pods),
            pod_variants=_given(args.pod_variants, c.pod_variants),
            node_variants=_given(args.node_variants, c.node_variants),
            ttls=ttls,
            tick=c.tick if args.tick is None else round(args.tick * SECOND),
            horizon=c.horizon if args.horizon is None else round(args.horizon * SECOND),
            profile=get_profile(_given(args.profile, c.profile.name)),
            crashes=args.crashes or args.late_binds,
            kubelet=args.kubelet,
            late_binds=args.late_binds,
            terminations=args.terminations,
        )
        return CycleSystem(pipeline, symmetry=symmetry, known_violations=known), "cycle", pipeline.describe()
    if args.system == "cluster":
        k = DEFAULT_CLUSTER_UNIVERSE
        fleet = ClusterUniverse(
            schedulers=_given(args.schedulers, k.schedulers),
            nodes=_given(args.nodes, k.nodes),
            pods=_given(args.pods, k.pods),
            crashes=args.crashes or args.late_binds,
            late_binds=args.late_binds,
            profile=get_profile(_given(args.profile, k.profile.name)),
            terminations=args.terminations,
        )
        return ClusterSystem(fleet, known_violations=known), "cluster", fleet.describe()
    u = DEFAULT_UNIVERSE
    universe = Universe(
        nodes=_given(args.nodes, u.nodes),
        pods=_given(args.pods, u.pods),
        pod_variants=_given(args.pod_variants, u.pod_variants),
        node_variants=_given(args.node_variants, u.node_variants),
        ttls=u.ttls if args.ttl is None else tuple(round(t * SECOND) for t in args.ttl),
        profile=get_profile(_given(args.profile, u.profile.name)),
    )
    mode = Mode(args.mode)
    cache = CacheSystem(  # adversarial streams can defeat the abstraction (a run then stops): contract mode only
        universe, mode, symmetry=symmetry, known_violations=known,
        abstract_snapshots=args.abstract_snapshots and mode is Mode.CONTRACT,
    )
    return cache, f"cache ({mode.value})", f"{universe.describe()}; mode {mode.value}"


def _given(value: Any, default: Any) -> Any:
    return default if value is None else value


def check(args: argparse.Namespace, console: Console) -> int:
    """Explore a system's state space (the cache, the dispatcher's call queue, the scheduling
    pipeline or the scheduling queue) breadth first over a finite universe, checking every
    invariant in every state; print the figures, the coverage and a shortest trace per violation."""
    stray = queue_only_flags(args) if args.system != "queue" else []
    if stray:
        them = "them" if len(stray) > 1 else "it"
        return usage_error(console, f"{', '.join(stray)}: only --system queue reads {them} (this run explores "
                                    f"--system {args.system})")
    try:
        system, name, universe_text = build_system(args)
    except ValueError as error:
        console.print(f"[bold red]invalid universe[/]: {escape(str(error))}")
        return 2
    if args.merge_fingerprints:
        return merge_fingerprints(args.merge_fingerprints, console)
    if args.partition is not None and (args.jobs > 1 or args.cluster is not None):
        console.print("[bold red]invalid options[/]: --partition runs one part in one process; drop -j and --cluster")
        return 2
    if args.cluster is not None and args.jobs > 1:
        return usage_error(console, "-j is for one machine; with --cluster the search has one partition per Dask "
                                    "worker (start the workers with --nthreads 1): drop -j")
    if args.save_fingerprints is not None:
        try:
            check_report_path("--save-fingerprints", args.save_fingerprints)
        except UsageError as error:
            return usage_error(console, error)
    depth = None if args.depth <= 0 else args.depth
    console.print(f"universe: {escape(universe_text)}", highlight=False, soft_wrap=True)
    try:
        with console.status("exploring ..."):
            report = explore(
                system,
                name=name,
                depth_limit=depth,
                time_limit=args.time_limit,
                max_states=args.max_states,
                stop_at_first=not args.keep_going,
                jobs=args.jobs,
                partition=args.partition,
                split_depth=args.split_depth,
                cluster=args.cluster,
            )
    except (EngineMissing, ClusterFailed, OSError) as error:
        return cluster_error(console, error, args.cluster)
    except SnapshotAbstractionInexact as error:
        console.print(f"[bold red]inexact abstraction[/]: {escape(str(error))}", highlight=False)
        return 2
    except KeyboardInterrupt:  # with -j or --cluster: the parts' figures died with their processes (or actors)
        signals = received()
        signals.hold()
        where = f"{args.jobs} processes" if args.cluster is None else f"the Dask cluster {escape(args.cluster)}"
        console.print(f"[bold red]check interrupted by {signals.name or 'SIGINT'}[/] while {where} "
                      "explored: no figures", highlight=False)
        return signals.exit_code()
    if report.stopped_by == INTERRUPTED:
        signals = received()
        signals.hold()
        console.print(figures_table(report, symmetry=not args.no_symmetry and name != "cluster",
                                abstraction=args.abstract_snapshots and name == "cache (contract)"))
        for violation in report.violations:
            console.rule(f"[bold red]VIOLATION[/] {escape(violation.property)}")
            console.out(violation.render(), highlight=False)
        console.print(f"[bold red]check interrupted by {signals.name or 'SIGINT'}[/]: the figures above are those "
                      f"of the {report.states:,} states explored so far (not complete)", highlight=False)
        return signals.exit_code()
    if args.save_fingerprints is not None:
        save_fingerprints(report, args.save_fingerprints)
    console.print(figures_table(report, symmetry=not args.no_symmetry and name != "cluster",
                                abstraction=args.abstract_snapshots and name == "cache (contract)"))
    console.print(coverage_table(report.coverage))
    for violation in report.violations:
        console.rule(f"[bold red]VIOLATION[/] {escape(violation.property)}")
        console.out(violation.render(), highlight=False)
    if report.violations:
        console.print(f"[bold red]{len(report.violations)} propert(ies) violated[/]")
        return 1
    if not report.complete:
        console.print(f"[bold red]not complete[/]: stopped by {escape(report.stopped_by)}")
        return 1
    if report.exhausted:
        scope = "every reachable state"
    elif report.pruned == 0:
        scope = f"every state within depth {report.depth_limit}"
    else:
        scope = "every reachable state within the bounds" + (
            f" and depth {report.depth_limit}" if report.depth_limit is not None else ""
        )
    console.print(f"[bold green]no violation[/] in {scope}", highlight=False)
    return 0


def figures_table(report: Report, *, symmetry: bool, abstraction: bool = False) -> Table:
    table = Table(title=f"ksspec check: {report.system}")
    table.add_column("Figure")
    table.add_column("Value", justify="right")
    rows: tuple[tuple[str, str], ...] = (
        ("distinct states", f"{report.states:,}"),
        ("transitions", f"{report.transitions:,}"),
        ("max depth", str(report.max_depth)),
        ("new states per depth", " ".join(f"{n:,}" for n in report.level_states) or "-"),
        ("depth limit", "none" if report.depth_limit is None else str(report.depth_limit)),
        ("time", f"{report.seconds:.1f}s"),
        ("states/s", f"{report.states_per_second:,.0f}"),
        ("symmetry reduction", "on" if symmetry else "off"),
        *((("snapshot abstraction", "on: states are abstract worlds (--no-abstract-snapshots: concrete)"),)
          if abstraction else ()),
        ("states pruned (outside the bounds)", f"{report.pruned:,}"),
        ("exhausted", _exhausted(report)),
        ("processes (-j)", str(report.jobs)) if report.cluster is None
        else ("Dask workers (--cluster)", f"{report.jobs} at {escape(report.cluster)}"),
        ("fingerprint store", f"{report.store_bytes / 2**20:,.1f} MiB, {report.bytes_per_state:,.0f} bytes/state"),
        ("peak memory (RSS)", f"{report.peak_rss_bytes / 2**20:,.0f} MiB"),
        ("fingerprint collision probability", f"{report.collision_probability:.1e} (optimistic), "
         f"{report.collision_probability_observed:.1e} (from the fingerprints)"),
    )
    if report.partition is not None:
        depth = "never reached" if report.split_depth is None else str(report.split_depth)
        rows += (("partition", f"{report.partition[0]}/{report.partition[1]}, split at depth {depth}"),)
    for name, value in rows:
        table.add_row(name, value)
    return table


def save_fingerprints(report: Report, path: Path) -> None:
    """Write the fingerprints of the states a (sequential) run stored: 8 bytes each, little-endian, sorted."""
    if report.fingerprints is None:
        raise SystemExit("--save-fingerprints needs a run in one process (no -j)")
    path.write_bytes(array("Q", sorted(report.fingerprints.fingerprints)).tobytes())


def merge_fingerprints(paths: list[Path], console: Console) -> int:
    """Print how many distinct states the parts of a split run found together (the union of their fingerprints)."""
    union: set[int] = set()
    table = Table(title="ksspec check: the parts of a split run")
    table.add_column("File")
    table.add_column("States", justify="right")
    for path in paths:
        try:
            part = array("Q", path.read_bytes())
        except (OSError, ValueError) as error:
            console.print(f"[bold red]cannot read {escape(str(path))}[/]: {escape(str(error))}")
            return 2
        union.update(part)
        table.add_row(escape(str(path)), f"{len(part):,}")
    table.add_row("union (distinct states)", f"{len(union):,}")
    console.print(table)
    return 0


def _exhausted(report: Report) -> str:
    if report.exhausted:
        return "yes"
    if not report.complete:
        return "no"
    return "within the depth limit" if report.pruned == 0 else "within the bounds"


def coverage_table(coverage: Counter[str]) -> Table:
    """Transitions taken per operation and outcome."""
    table = Table(title="transitions covered (operation: outcome)")
    table.add_column("Operation")
    table.add_column("Outcome")
    table.add_column("Count", justify="right")
    for key in sorted(coverage):
        operation, _, outcome = key.partition(": ")
        table.add_row(escape(operation), escape(outcome), f"{coverage[key]:,}")
    return table


# ============================================================================================
# Argument parsing
# ============================================================================================


def _partition(text: str) -> tuple[int, int]:
    """An argparse type: ``K/N`` with 0 <= K < N."""
    part, _, parts = text.partition("/")
    try:
        k, n = int(part), int(parts)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected K/N, got {text!r}") from None
    if not 0 <= k < n:
        raise argparse.ArgumentTypeError(f"expected K/N with 0 <= K < N, got {text}")
    return k, n


def add_check_arguments(parser: argparse.ArgumentParser) -> None:
    d, q, c, k = DEFAULT_UNIVERSE, DEFAULT_DISPATCHER_UNIVERSE, DEFAULT_CYCLE_UNIVERSE, DEFAULT_CLUSTER_UNIVERSE
    parser.add_argument(
        "--system", choices=SYSTEMS, default="cache", help="what to explore (default cache; see --help for each)"
    )
    parser.add_argument(
        "--schedulers", type=int_in(1, MAX_BOUND, "--schedulers"), default=None,
        help=f"cluster: schedulers over one API server (default {k.schedulers})",
    )
    parser.add_argument("--crashes", action="store_true", help="cycle, cluster: schedulers may crash and restart")
    parser.add_argument(
        "--late-binds",
        action="store_true",
        help="cycle, cluster: with --crashes, a crashed scheduler's bind may land after its successor listed the pods",
    )
    parser.add_argument(
        "--kubelet",
        action="store_true",
        help="cycle: kubelets admit or reject bound pods (the cluster always has them)",
    )
    parser.add_argument(
        "--terminations",
        action="store_true",
        help="cycle, cluster: users may delete pods gracefully (terminate_pod) and ScheduleOne skips them (skip_pod)",
    )
    parser.add_argument("--nodes", type=int_in(1, MAX_BOUND, "--nodes"), default=None,
                        help=f"node names (cache {d.nodes}, cycle {c.nodes}, cluster {k.nodes})")
    parser.add_argument("--pods", type=int_in(1, MAX_BOUND, "--pods"), default=None,
                        help=f"pod UIDs (cache {d.pods}, cycle {c.pods}, cluster {k.pods})")
    parser.add_argument(
        "--pod-variants",
        type=int_in(1, MAX_POD_VARIANTS, "--pod-variants"),
        default=None,
        help=f"objects per pod (cache {d.pod_variants}, cycle {c.pod_variants})",
    )
    parser.add_argument(
        "--node-variants",
        type=int_in(1, MAX_NODE_VARIANTS, "--node-variants"),
        default=None,
        help=f"objects per node (cache {d.node_variants}, cycle {c.node_variants})",
    )
    parser.add_argument("--uids", type=int_in(1, MAX_BOUND, "--uids"), default=None,
                        help=f"dispatcher: object UIDs (default {q.uids})")
    parser.add_argument(
        "--adds", type=int_in(0, MAX_BOUND, "--adds"), default=None,
        help=f"dispatcher: most Add calls a run makes (default {q.adds})"
    )
    parser.add_argument(
        "--call-variants",
        type=int_in(1, MAX_CALL_VARIANTS, "--call-variants"),
        default=None,
        help=f"dispatcher: calls per UID, of binding, condition, nomination, no-op (default {q.call_variants})",
    )
    parser.add_argument(
        "--depth",
        type=int_in(0, MAX_BOUND, "--depth"),
        default=DEFAULT_DEPTH,
        help=f"longest operation sequence explored; 0 for no limit (default {DEFAULT_DEPTH})",
    )
    parser.add_argument(
        "--ttl",
        type=non_negative("--ttl"),
        nargs="+",
        default=None,
        help=f"cache, cycle: TTLs in seconds, one initial state each (default {[t / SECOND for t in d.ttls]})",
    )
    parser.add_argument(
        "--tick", type=positive("--tick"), default=None, help=f"cycle: seconds per tick (default {c.tick / SECOND:g})"
    )
    parser.add_argument(
        "--horizon", type=non_negative("--horizon"), default=None,
        help=f"cycle: last time a tick reaches (default {c.horizon / SECOND:g})"
    )
    parser.add_argument(
        "--profile",
        choices=sorted(PROFILES),
        default=None,
        help=f"version profile (default {d.profile.name})",
    )
    parser.add_argument(
        "--mode",
        choices=[m.value for m in Mode],
        default=Mode.CONTRACT.value,
        help="cache: operation streams (default contract)",
    )
    parser.add_argument("--no-symmetry", action="store_true", help="do not identify states that differ by renaming")
    parser.add_argument(
        "--abstract-snapshots", action=argparse.BooleanOptionalAction, default=True,
        help="cache, contract mode: summarise the snapshot entries UpdateSnapshot will overwrite or delete (default "
        "on: fewer states, and distinct states count abstract worlds; a run stops with exit 2 if the abstraction is "
        "inexact on a path); --no-abstract-snapshots counts concrete worlds, as before",
    )
    parser.add_argument("--time-limit", type=positive("--time-limit"), default=None,
                        help="stop after this many seconds of exploring (then exit 1)")
    parser.add_argument(
        "--max-states", type=int_in(1, 10**12, "--max-states"), default=None,
        help="stop after this many distinct states (then exit 1)"
    )
    parser.add_argument(
        "-j",
        "--jobs",
        type=int_in(1, 256, "--jobs"),
        default=1,
        help="explore in this many processes, states partitioned by fingerprint (same result as one)",
    )
    parser.add_argument(
        "--cluster",
        type=cluster,
        default=None,
        metavar="ADDRESS",
        help="explore on a Dask cluster, one partition per worker (same result as one process): a scheduler "
        "address (tcp://host:8786) or local:N (N worker processes here); needs the distributed extra",
    )
    parser.add_argument(
        "--partition",
        type=_partition,
        default=None,
        metavar="K/N",
        help="explore part K of N of a split run (0 <= K < N), for separate machines or CI jobs",
    )
    parser.add_argument(
        "--split-depth",
        type=int_in(0, MAX_BOUND, "--split-depth"),
        default=None,
        help="with --partition: the depth at which the parts split (default: the first with 64 x N states)",
    )
    parser.add_argument(
        "--save-fingerprints", type=Path, default=None, metavar="FILE", help="write the states' fingerprints"
    )
    parser.add_argument(
        "--merge-fingerprints",
        type=Path,
        nargs="+",
        default=None,
        metavar="FILE",
        help="print the distinct states of the union of the parts' --save-fingerprints files (explores nothing)",
    )
    parser.add_argument(
        "--keep-going",
        action="store_true",
        help="find a shortest trace for every violated property, not only the first",
    )
    parser.add_argument(
        "--known-violations",
        action="store_true",
        help="also check the properties Kubernetes is documented to break (cache: snapshot order; dispatcher: "
        "told twice, liveness; cycle: overcommit with a non-zero TTL or late binds; cluster: overcommit by "
        "several schedulers; queue: those its gates and cycle rule break)",
    )
    add_queue_check_arguments(parser)


def register(subparsers: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """Add ``check`` to the ``ksspec`` command line."""
    parser = subparsers.add_parser(
        "check",
        help="model-check the cache, the dispatcher or the scheduling cycle over a finite universe",
        description=check.__doc__,
    )
    add_check_arguments(parser)
    parser.set_defaults(handler=lambda a: check(a, make_console()))
