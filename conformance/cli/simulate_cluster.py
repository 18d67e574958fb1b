"""``ksspec simulate --schedulers N --crash-rate R``: the cluster simulation (:mod:`refimpl.simulator.cluster`).

Several schedulers over one API server, each crashing after a scheduling cycle with probability R and restarting
``--restart-delay-seconds`` later, and a kubelet on every node admitting or rejecting the pods bound to it (and, with
``--pod-lifetime-seconds``, marking each admitted pod Succeeded that long after admission). The
invariants are checked at two levels (:mod:`conformance.simulation.cluster_checks`): per scheduler, and at the API
server and the kubelets. The report: a table per scheduler (what it scheduled, bound, lost in crashes, how many of
its pods the kubelets rejected), the kubelets' admissions and rejections by reason, and the invariant table, in
which a known violation (the scheduler-level over-commit with several schedulers) is counted but does not fail
the run. Exit code 0: no other invariant violated and the cluster settled; 1 otherwise.
"""

from __future__ import annotations

import argparse

from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from conformance.simulation.checks import InvariantChecker, Tally
from conformance.simulation.cluster_checks import ClusterChecker, final_problems
from refimpl.simulator import SimulationConfig
from refimpl.simulator.cluster import ClusterConfig, ClusterSimulation
from spec.quantities import MILLISECOND, SECOND

EXIT_OK = 0
EXIT_VIOLATION = 1


def wants_cluster(args: argparse.Namespace) -> bool:
    """Whether the arguments ask for the cluster simulation (several schedulers, crashes or kubelets)."""
    return bool(args.schedulers > 1 or args.crash_rate > 0 or args.kubelets)


def cluster_config(args: argparse.Namespace, simulation: SimulationConfig) -> ClusterConfig:
    """The cluster the arguments describe around ``simulation``. Fails with ``ValueError`` on a bad combination."""
    return ClusterConfig(
        simulation=simulation,
        schedulers=args.schedulers,
        crash_rate=args.crash_rate,
        restart_delay=round(args.restart_delay_seconds * SECOND),
        min_kubelet_delay=0,
        max_kubelet_delay=round(args.kubelet_delay_ms * MILLISECOND),
        terminated_pod_gc_threshold=args.terminated_pod_gc_threshold,
    )


def late_binds_possible(config: ClusterConfig) -> bool:
    """Whether a crashed process's bind request may land after its successor started: crashes happen and the
    restart delay is shorter than the longest API request."""
    return config.crash_rate > 0 and config.restart_delay <= config.simulation.max_latency


def simulate_cluster(console: Console, config: ClusterConfig, every: int, show_progress: bool) -> int:
    """Run the cluster simulation, print its tables; the exit code."""
    base = config.simulation
    checker = ClusterChecker(config.schedulers, every, late_binds=late_binds_possible(config))
    sim = ClusterSimulation(config, (checker,), checker.scheduler_observers)
    checker.attach(sim)
    lifetime = f", each pod finishing {base.pod_lifetime / SECOND:g} s after admission" if base.pod_lifetime else ""
    console.print(
        f"simulating {base.pods:,} pods on {base.nodes:,} nodes with {config.schedulers} scheduler(s), crash rate "
        f"{config.crash_rate} per scheduling cycle, restart after {config.restart_delay / SECOND:g} s, kubelet "
        f"admission on every node{lifetime}, seed {base.seed}, profile {base.profile.name}, invariants checked "
        f"every {every} step(s)", highlight=False)
    columns = (TextColumn("[progress.description]{task.description}"), BarColumn(), MofNCompleteColumn(),
               TimeElapsedColumn(), TextColumn("{task.fields[detail]}"))
    with Progress(*columns, console=console, disable=not (show_progress and console.is_terminal)) as progress:
        task = progress.add_task("admitted", total=max(base.pods, 1), detail="")

        def report(s: ClusterSimulation) -> None:
            progress.update(task, completed=s.kubelets.admitted_total,
                            detail=f"t={s.clock.now() / SECOND:.1f}s virtual, {s.stats.crashes} crash(es), "
                                   f"{sum(s.kubelets.rejected.values())} rejected")

        sim.run(report)
        settled = sim.stats.quiet
        if settled:
            sim.drain(report)
            settled = sim.stats.quiet
    problems = final_problems(sim) if settled else [
        f"the cluster did not settle within {base.max_virtual_time / SECOND:,.0f} s of virtual time"]
    console.print(schedulers_table(sim, checker.per_scheduler))
    console.print(kubelets_table(sim))
    console.print(cluster_invariants_table(checker, sim, problems))
    for problem in problems[:20]:
        console.print(f"[red]final state:[/] {escape(problem)}", highlight=False)
    if checker.violations or problems:
        console.print(f"[bold red]simulation failed[/]: re-run with --seed {base.seed} to reproduce")
        return EXIT_VIOLATION
    console.print("[bold green]simulation passed[/]: no invariant violated (known violations are counted above)")
    return EXIT_OK


def schedulers_table(sim: ClusterSimulation, checkers: list[InvariantChecker]) -> Table:
    """Per scheduler, summed over its incarnations, with its invariant violations (``checkers``, one per
    scheduler): those that fail the run, and in brackets the known ones."""
    table = Table(title="schedulers")
    table.add_column("scheduler", no_wrap=True)
    for name in ("scheduled", "bound", "failed binding cycles", "cycles without a node", "crashes",
                 "in flight at a crash", "rejected by kubelets", "violations (known)"):
        table.add_column(name, justify="right")
    for record, checker in zip(sim.records, checkers, strict=True):
        known = sum(t.violations for t in checker.tallies.values() if t.known)
        table.add_row(record.name, f"{record.total('scheduled'):,}", f"{record.total('bound'):,}",
                      f"{record.total('binding_failures'):,}", f"{record.total('unschedulable'):,}",
                      f"{record.crashes:,}", f"{record.in_flight_count:,}",
                      f"{sim.kubelets.rejected_by_scheduler.get(record.name, 0):,}",
                      f"{checker.violations:,} ({known:,})")
    return table


def kubelets_table(sim: ClusterSimulation) -> Table:
    """The API server and the kubelets: bindings, admissions, rejections by reason, crashed processes' calls."""
    table = Table(title="API server and kubelets")
    table.add_column("measure")
    table.add_column("value", justify="right")
    world, kubelets, stats = sim.world, sim.kubelets, sim.stats
    rows = [
        ("pods created / deleted", f"{stats.pods_created:,} / {stats.pods_deleted:,}"),
        ("bindings accepted", f"{world.binds_applied:,}"),
        ("admitted by kubelets", f"{kubelets.admitted_total:,}"),
        ("rejected by kubelets (Failed)", f"{sum(kubelets.rejected.values()):,}"),
        *((f"  rejected: {reason}", f"{count:,}") for reason, count in sorted(kubelets.rejected.items())),
        ("finished (Succeeded)", f"{kubelets.finished:,}"),
        ("terminated pods kept / collected", f"{world.terminated:,} / {world.pods_collected:,}"),
        ("pods still unbound", f"{len(world.unbound_pods()):,}"),
        ("crashes / restarts", f"{stats.crashes:,} / {stats.restarts:,}"),
        ("calls in flight at a crash", f"{stats.orphaned_calls:,}"),
        ("their binds landed / failed", f"{stats.orphaned_binds_landed:,} / {stats.orphaned_binds_failed:,}"),
        ("virtual time", f"{stats.virtual_seconds:,.3f} s"),
        ("wall time (with invariant checks)", f"{stats.wall_seconds:,.2f} s"),
    ]
    for name, value in rows:
        table.add_row(name, value)
    return table


def _row(table: Table, level: str, name: str, tally: Tally, note: str = "") -> None:
    style = "yellow" if tally.known and tally.violations else (
        "red" if tally.violations else ("green" if tally.checked else "yellow"))
    where = escape(tally.first_violation or "")
    if tally.known:
        where = f"known violation: {where}" if tally.violations else "known violation, not seen"
    table.add_row(level, name, f"{tally.checked:,}", f"[{style}]{tally.violations:,}[/]", note or where)


def merged(name: str, sim: ClusterSimulation, checkers: list[InvariantChecker]) -> Tally:
    """Invariant ``name`` over every scheduler: checks and violations summed, the first violation of the first
    scheduler that had one, named."""
    total = Tally(known=checkers[0].tallies[name].known)
    for record, checker in zip(sim.records, checkers, strict=True):
        tally = checker.tallies[name]
        total.checked += tally.checked
        total.violations += tally.violations
        if total.first_violation is None and tally.first_violation is not None:
            total.first_violation = f"{record.name}: {tally.first_violation}"
    return total


def cluster_invariants_table(checker: ClusterChecker, sim: ClusterSimulation, problems: list[str]) -> Table:
    """Every invariant at every level: how often checked, how often violated, where first."""
    table = Table(title="invariants")
    names = [*checker.tallies, *(n for c in checker.per_scheduler for n in c.tallies)]
    table.add_column("level", no_wrap=True)
    table.add_column("invariant", no_wrap=True, min_width=max(map(len, names)))
    table.add_column("checked", justify="right")
    table.add_column("violations", justify="right")
    table.add_column("first violation")
    for name, tally in checker.tallies.items():
        level = "kubelet" if name == "inv_admitted_pods_fit_nodes" else "cluster"
        _row(table, level, name, tally)
    for name in checker.per_scheduler[0].tallies:
        _row(table, "each scheduler", name, merged(name, sim, checker.per_scheduler))
    table.add_row("cluster", "final state", "1", f"[{'red' if problems else 'green'}]{len(problems):,}[/]",
                  escape(problems[0] if problems else "no assumed pod left, every fitting pod bound, every pod in "
                                                      "flight at a crash bound and cached or pending again"))
    return table
