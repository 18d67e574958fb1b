"""``ksspec simulate``: run the deterministic simulator (:mod:`refimpl.simulator`) and check the spec's invariants.

The run is reproducible from ``--seed``. Invariants are checked by :class:`conformance.simulation.checks.
InvariantChecker` after every step, or after every K-th step on large clusters (``--check-every``; each check
translates the whole cache to spec terms); the final state is always checked once the cluster has settled: no
assumed pod left behind, and no unbound pod that fits a node. Exit code 0: no violation; 1: a violation or a
final-state problem; 2: bad arguments (argparse's usage error). ``--schedulers``, ``--crash-rate`` and ``--kubelets``
run the cluster simulation instead (:mod:`conformance.cli.simulate_cluster`); ``--seeds A..B`` runs one simulation
per seed, in this process or on a Dask cluster (``--cluster``), and prints a verdict per seed
(:mod:`conformance.cli.simulate_sweep`).
"""

from __future__ import annotations

import argparse
import dataclasses
from collections.abc import Callable

from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from conformance.arguments import cluster, finite_number, int_in, non_negative, positive, profile_name
from conformance.cli.simulate_cluster import cluster_config, simulate_cluster, wants_cluster
from conformance.cli.simulate_sweep import seeds, simulate_seeds
from conformance.console import make_console
from conformance.interrupts import received
from conformance.simulation.checks import KNOWN_VIOLATIONS_WITH_TTL, InvariantChecker, check_final_state
from conformance.simulation.queue_counts import QueueCounter, queue_table
from refimpl.simulator import Churn, Faults, Simulation, SimulationConfig, Stats
from refimpl.simulator.cluster import MAX_SCHEDULERS
from refimpl.simulator.world import TERMINATED_POD_GC_THRESHOLD
from spec.quantities import MILLISECOND, SECOND
from spec.versions import PROFILES, get_profile

EXIT_OK = 0
EXIT_VIOLATION = 1
AUTO_CHECK_BUDGET = 250_000
"""With ``--check-every auto``: how many objects (nodes + pods) x checks a run may spend on invariants (a check
costs roughly 40 µs per object, so about 10 s)."""
MAX_NODES = 1_000_000
MAX_PODS = 10_000_000




# --------------------------------------------------------------------------------------------
# Argument types: each names what was wrong
# --------------------------------------------------------------------------------------------


def rate(what: str, *, below_one: bool = False) -> Callable[[str], float]:
    """An argparse type: a probability in [0, 1], or [0, 1) when ``below_one`` (a bind that always fails would
    retry forever)."""

    def parse(text: str) -> float:
        value = finite_number(text, what)
        if value < 0 or value > 1 or (below_one and value == 1):
            bound = "below 1" if below_one else "at most 1"
            raise argparse.ArgumentTypeError(f"{what} must be at least 0 and {bound}, got {text}")
        return value

    return parse


def check_every(text: str) -> int | None:
    """``auto`` (None) or a whole number >= 1."""
    if text == "auto":
        return None
    return int_in(1, 10**12, "--check-every")(text)


# --------------------------------------------------------------------------------------------
# The command
# --------------------------------------------------------------------------------------------


def priorities(text: str) -> tuple[int, ...]:
    """``--priorities``: comma-separated integers within Kubernetes' priority range."""
    try:
        values = tuple(int(part) for part in text.split(",") if part.strip())
    except ValueError:
        raise argparse.ArgumentTypeError(f"--priorities wants comma-separated integers, got {text!r}") from None
    if not values or any(not -(2**31) <= v <= 2**31 - 1 for v in values):
        raise argparse.ArgumentTypeError(f"--priorities wants at least one 32-bit integer, got {text!r}")
    return values


def config_from(args: argparse.Namespace) -> SimulationConfig:
    """The simulation the arguments describe. Fails with ``ValueError`` on a combination the profile rejects."""
    profile = get_profile(args.profile)
    ttl = round(args.ttl_seconds * SECOND)
    if ttl and not profile.assumed_pod_expiry:
        raise ValueError(f"profile {profile.name} has no assumed-pod expiry, so --ttl-seconds must be 0")
    churn_rate: float = args.churn
    churn = Churn(pod_deletions=churn_rate * 0.5, node_updates=churn_rate * 0.3, node_additions=churn_rate * 0.1,
                  node_deletions=churn_rate * 0.1)
    return SimulationConfig(
        nodes=args.nodes,
        pods=args.pods,
        seed=args.seed,
        profile=profile,
        ttl=ttl,
        faults=Faults(bind_failure_rate=args.bind_failure_rate, conflict_rate=args.conflict_rate),
        min_latency=0,
        max_latency=round(args.latency_ms * MILLISECOND),
        min_informer_delay=0,
        max_informer_delay=round(args.informer_delay_ms * MILLISECOND),
        arrival_rate=args.arrival_rate,
        churn=churn,
        identical_pods=args.identical_pods,
        uniform_nodes=args.identical_pods,
        opportunistic_batching=not args.no_batching,
        max_virtual_time=round(args.max_virtual_seconds * SECOND),
        pod_lifetime=round(args.pod_lifetime_seconds * SECOND),
        priorities=args.priorities,
    )


def auto_check_every(config: SimulationConfig) -> int:
    """Check every step on small clusters; on larger ones, space the checks so that their total cost (objects
    translated per check, times checks) stays near :data:`AUTO_CHECK_BUDGET` x a few steps per pod."""
    objects = config.nodes + config.pods
    steps = 8 * config.pods + config.nodes  # about eight steps per pod: arrival, cycle, calls, events
    checks = max(1, AUTO_CHECK_BUDGET // max(objects, 1))
    return max(1, -(-steps // checks))


def simulate(args: argparse.Namespace) -> int:
    """Simulate scheduling M pods onto N nodes, reproducibly from a seed, with the API server's latency and
    faults and the informers' delays; print throughput, counts and an invariant summary. Exit 0 if no invariant
    was violated and the cluster settled correctly, 1 otherwise, 2 on bad arguments."""
    console = make_console()
    try:
        config = config_from(args)
    except ValueError as error:
        console.print(f"[bold red]error:[/] {escape(str(error))}", highlight=False)
        return 2
    every = args.check_every if args.check_every is not None else auto_check_every(config)
    if args.seeds is not None or args.cluster is not None:
        return simulate_seeds(args, config, every, console)
    if wants_cluster(args):
        try:
            cluster = cluster_config(args, config)
        except ValueError as error:
            console.print(f"[bold red]error:[/] {escape(str(error))}", highlight=False)
            return 2
        try:
            return simulate_cluster(console, cluster, every, not args.no_progress)
        except KeyboardInterrupt:
            signals = received()
            signals.hold()
            console.print(f"[bold red]simulation interrupted by {signals.name or 'SIGINT'}[/]", highlight=False)
            return signals.exit_code()
    checker = InvariantChecker(every)
    counter = QueueCounter()
    sim = Simulation(config, observers=(checker, counter))
    console.print(
        f"simulating {config.pods:,} pods on {config.nodes:,} nodes, seed {config.seed}, profile "
        f"{config.profile.name}, bind failure rate {config.faults.bind_failure_rate}, invariants checked every "
        f"{every} step(s)", highlight=False)
    columns = (TextColumn("[progress.description]{task.description}"), BarColumn(), MofNCompleteColumn(),
               TimeElapsedColumn(), TextColumn("{task.fields[detail]}"))
    show = not args.no_progress and console.is_terminal
    throughput: Stats | None = None
    try:
        with Progress(*columns, console=console, disable=not show) as progress:
            task = progress.add_task("bound", total=max(config.pods, 1), detail="")

            def report(s: Simulation) -> None:
                progress.update(task, completed=s.stats.bound,
                                detail=f"t={s.clock.now() / SECOND:.1f}s virtual, {s.stats.steps:,} steps")

            sim.run(report)
            settled = sim.stats.quiet
            throughput = dataclasses.replace(sim.stats)
            if settled:
                sim.drain(report)
                settled = sim.stats.quiet
    except KeyboardInterrupt:  # the tables of the run so far; the final state is not checked (it has not settled)
        signals = received()
        signals.hold()
        console.print(stats_table(throughput or sim.stats, sim.stats))
        console.print(queue_table(counter))
        console.print(invariants_table(checker, []))
        console.print(f"[bold red]simulation interrupted by {signals.name or 'SIGINT'}[/] at "
                      f"t={sim.clock.now() / SECOND:,.1f}s virtual after {sim.stats.steps:,} steps: the tables cover "
                      f"the run so far ({checker.violations:,} violation(s)); the final state was not checked",
                      highlight=False)
        return signals.exit_code()
    assert throughput is not None
    problems = check_final_state(sim) if settled else [
        f"the cluster did not settle within {config.max_virtual_time / SECOND:,.0f} s of virtual time"]
    console.print(stats_table(throughput, sim.stats))
    console.print(queue_table(counter))
    console.print(invariants_table(checker, problems))
    failed = checker.violations > 0 or bool(problems)
    for problem in problems[:20]:
        console.print(f"[red]final state:[/] {escape(problem)}", highlight=False)
    if failed:
        console.print(f"[bold red]simulation failed[/]: re-run with --seed {config.seed} to reproduce")
        return EXIT_VIOLATION
    console.print("[bold green]simulation passed[/]: no invariant violated")
    return EXIT_OK


def stats_table(run: Stats, stats: Stats) -> Table:
    """Throughput (of the run until it first went quiet, ``run``) and counts (at the end, ``stats``)."""
    table = Table(title="ksspec simulate")
    table.add_column("measure")
    table.add_column("value", justify="right")
    rows: list[tuple[str, str]] = [
        ("throughput (bound pods / wall second)", f"{run.pods_per_wall_second():,.1f}"),
        ("throughput (bound pods / virtual second)", f"{run.pods_per_virtual_second():,.1f}"),
        ("wall time until quiet (with invariant checks)", f"{run.wall_seconds:,.2f} s"),
        ("virtual time until quiet", f"{run.virtual_seconds:,.3f} s"),
        ("then: settling (every waiting pod retried)", f"{stats.wall_seconds - run.wall_seconds:,.2f} s wall, "
                                                       f"{stats.virtual_seconds - run.virtual_seconds:,.1f} s virtual"),
        ("pods created / deleted", f"{stats.pods_created:,} / {stats.pods_deleted:,}"),
        ("nodes added / updated / deleted", f"{stats.nodes_added:,} / {stats.nodes_updated:,} / "
                                            f"{stats.nodes_deleted:,}"),
        ("scheduling attempts", f"{stats.scheduling_attempts:,}"),
        ("retries", f"{stats.retries:,}"),
        ("scheduled (assumed, binding started)", f"{stats.scheduled:,}"),
        ("bound", f"{stats.bound:,}"),
        ("failed binding cycles", f"{stats.binding_failures:,}"),
        ("failed bind requests", f"{stats.failed_bind_requests:,}"),
        ("unschedulable attempts", f"{stats.unschedulable:,}"),
        ("preemptions (victims deleted)", f"{stats.preemptions:,}"),
        ("scheduling errors / skipped", f"{stats.scheduling_errors:,} / {stats.skipped:,}"),
        ("pods still unbound", f"{stats.unbound_at_end:,}"),
        ("API requests / informer events", f"{stats.api_requests:,} / {stats.events_delivered:,}"),
        ("simulation steps", f"{stats.steps:,}"),
    ]
    for name, value in rows:
        table.add_row(name, value)
    return table


def invariants_table(checker: InvariantChecker, problems: list[str]) -> Table:
    """Each invariant: how often checked, how often violated, where first."""
    table = Table(title="invariants")
    # Names are what a reader greps for: never wrapped or cut, whatever the terminal's width.
    table.add_column("invariant", no_wrap=True, min_width=max((len(name) for name in checker.tallies), default=0))
    table.add_column("checked", justify="right")
    table.add_column("violations", justify="right")
    table.add_column("first violation")
    for name, tally in checker.tallies.items():
        style = "red" if tally.violations else ("green" if tally.checked else "yellow")
        where = escape(tally.first_violation or "")
        if not tally.checked and name in KNOWN_VIOLATIONS_WITH_TTL:
            where = "not checked: a known violation with a non-zero TTL"
        table.add_row(name, f"{tally.checked:,}", f"[{style}]{tally.violations:,}[/]", where)
    table.add_row("final state", "1", f"[{'red' if problems else 'green'}]{len(problems):,}[/]",
                  escape(problems[0] if problems else "no assumed pod left, every fitting pod bound"))
    return table


def register(subparsers: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """Add ``simulate`` to the ``ksspec`` command line."""
    parser = subparsers.add_parser("simulate", help="run the deterministic scheduler simulation",
                                   description=simulate.__doc__)
    parser.add_argument("--nodes", type=int_in(1, MAX_NODES, "--nodes"), default=100, help="nodes (default 100)")
    parser.add_argument("--pods", type=int_in(0, MAX_PODS, "--pods"), default=1_000, help="pods (default 1000)")
    parser.add_argument("--bind-failure-rate", type=rate("--bind-failure-rate", below_one=True), default=0.0,
                        help="probability that a bind request fails with an internal error (default 0)")
    parser.add_argument("--conflict-rate", type=rate("--conflict-rate", below_one=True), default=0.0,
                        help="probability that a bind request fails with a Conflict (default 0)")
    parser.add_argument("--seed", type=int_in(-(2**63), 2**63 - 1, "--seed"), default=0,
                        help="random seed; the same seed gives the same run (default 0)")
    parser.add_argument("--seeds", type=seeds, default=None, metavar="A..B",
                        help="a sweep: one simulation per seed, A to B (both included) or S,S,...; a verdict per "
                             "seed (--seed is then unused)")
    parser.add_argument("--cluster", type=cluster, default=None, metavar="ADDRESS",
                        help="with --seeds: run each seed as a task on this Dask cluster, a scheduler address "
                             "(tcp://host:8786) or local:N (N worker processes here); needs the distributed extra")
    parser.add_argument("--profile", type=profile_name, default="v1.35",
                        help=f"Kubernetes version profile: {', '.join(PROFILES)} (default v1.35)")
    parser.add_argument("--ttl-seconds", type=non_negative("--ttl-seconds"), default=0.0,
                        help="assumed-pod TTL after FinishBinding (default 0: never expire, as kube-scheduler)")
    parser.add_argument("--latency-ms", type=non_negative("--latency-ms"), default=20.0,
                        help="API request latency, uniform in [0, this] ms (default 20)")
    parser.add_argument("--informer-delay-ms", type=non_negative("--informer-delay-ms"), default=50.0,
                        help="watch event delay, uniform in [0, this] ms, in order per object (default 50)")
    parser.add_argument("--arrival-rate", type=non_negative("--arrival-rate"), default=0.0,
                        help="pods created per virtual second (default 0: all at the start)")
    parser.add_argument("--churn", type=non_negative("--churn"), default=0.0,
                        help="cluster changes per virtual second while pods arrive and 10 s after: pod deletions, "
                             "node updates, additions and deletions (default 0)")
    parser.add_argument("--pod-lifetime-seconds", type=non_negative("--pod-lifetime-seconds"), default=0.0,
                        help="each pod finishes and is deleted this long after it is bound (default 0: pods run for "
                             "ever); with --arrival-rate R about R x this many pods run at once: a steady state. In "
                             "the cluster simulation a pod finishes this long after its kubelet admitted it: it "
                             "becomes Succeeded and frees its room on the node")
    parser.add_argument("--identical-pods", action="store_true",
                        help="identical pods, each filling most of a node, on identical nodes: the workload "
                             "opportunistic batching serves")
    parser.add_argument("--no-batching", action="store_true", help="turn opportunistic batching off")
    parser.add_argument("--priorities", type=priorities, default=(), metavar="P,P,...",
                        help="pod priorities the workload draws from (e.g. 0,100,1000); turns DefaultPreemption on")
    parser.add_argument("--check-every", type=check_every, default=None, metavar="K|auto",
                        help="check the invariants after every K-th step (default auto: every step on small "
                             "clusters)")
    parser.add_argument("--max-virtual-seconds", type=positive("--max-virtual-seconds"), default=3_600.0,
                        help="stop after this much virtual time (default 3600)")
    parser.add_argument("--schedulers", type=int_in(1, MAX_SCHEDULERS, "--schedulers"), default=1,
                        help="scheduler processes over one API server, the pods naming them in turn (default 1); "
                             "more than one runs the cluster simulation, with kubelet admission")
    parser.add_argument("--crash-rate", type=rate("--crash-rate", below_one=True), default=0.0,
                        help="probability that a scheduler crashes after a scheduling cycle (default 0); "
                             "non-zero runs the cluster simulation")
    parser.add_argument("--restart-delay-seconds", type=non_negative("--restart-delay-seconds"), default=2.0,
                        help="how long a crashed scheduler stays down (default 2)")
    parser.add_argument("--kubelet-delay-ms", type=non_negative("--kubelet-delay-ms"), default=10.0,
                        help="a bound pod reaches its kubelet after a delay uniform in [0, this] ms (default 10)")
    parser.add_argument("--terminated-pod-gc-threshold", type=int_in(0, MAX_PODS, "--terminated-pod-gc-threshold"),
                        default=TERMINATED_POD_GC_THRESHOLD,
                        help="cluster simulation: terminated (Failed, Succeeded) pods the API server keeps before the "
                             f"pod garbage collector deletes the oldest; 0 keeps them all (default "
                             f"{TERMINATED_POD_GC_THRESHOLD:,}, kube-controller-manager's)")
    parser.add_argument("--kubelets", action="store_true",
                        help="run the cluster simulation (kubelet admission) even with one scheduler, no crashes")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    parser.set_defaults(handler=simulate)
