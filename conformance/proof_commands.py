"""``ksspec prove`` and ``ksspec check``: the Z3 obligations and the explicit-state model checker.

Both print rich tables and return a process exit code: 0 only when every obligation is proved,
or when the exploration finished (within its depth limit) without a violation.
"""

from __future__ import annotations

import argparse
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from conformance import crosshair_runner
from conformance.crosshair_runner import (
    DEFAULT_BUDGET,
    DEFAULT_JOBS,
    DEFAULT_PER_CONDITION_TIMEOUT,
    DEFAULT_ROOTS,
    CrosshairVerdict,
    TargetResult,
)
from conformance.queue_check import add_queue_check_arguments, build_queue_system
from spec.quantities import SECOND
from spec.verify.cache_system import CacheSystem
from spec.verify.checker import Report, TransitionSystem, explore
from spec.verify.cycle_symbolic import CycleBounds
from spec.verify.cycle_system import DEFAULT_CYCLE_UNIVERSE, CycleSystem, CycleUniverse
from spec.verify.dispatcher_symbolic import DEFAULT_CALL_TYPES, DEFAULT_UIDS, DispatcherBounds
from spec.verify.dispatcher_system import DEFAULT_DISPATCHER_UNIVERSE, DispatcherSystem, DispatcherUniverse
from spec.verify.obligations import (
    DEFAULT_TIMEOUT_MS,
    PENDING,
    Obligation,
    Result,
    Verdict,
    all_obligations,
    discharge,
)
from spec.verify.symbolic import ALWAYS, DEFAULT_NODES, DEFAULT_PODS, Bounds
from spec.verify.universe import DEFAULT_DEPTH, DEFAULT_UNIVERSE, Mode, Universe
from spec.versions import PROFILES, get_profile

CROSSHAIR_STYLE = {
    CrosshairVerdict.CONFIRMED: "bold green",
    CrosshairVerdict.NO_COUNTEREXAMPLE: "green",
    CrosshairVerdict.COUNTEREXAMPLE: "bold red",
    CrosshairVerdict.UNMET_PRECONDITION: "bold red",
    CrosshairVerdict.ERROR: "bold red",
}
VERDICT_STYLE = {Verdict.PROVED: "bold green", Verdict.REFUTED: "bold red", Verdict.UNKNOWN: "yellow"}


# ============================================================================================
# ksspec prove
# ============================================================================================


def prove(args: argparse.Namespace, console: Console) -> int:
    """Discharge every Z3 obligation and print a table of them with their times; print a
    counterexample (pre-state, operation, post-state) for each refuted one."""
    if args.crosshair_root is None:
        args.crosshair_root = list(DEFAULT_ROOTS)
    bounds = Bounds(args.pods, args.nodes)
    dispatcher_bounds = DispatcherBounds(args.uids, args.call_types)
    obligations = [ob for ob in all_obligations(bounds, dispatcher_bounds) if args.only is None or args.only in ob.name]
    console.print(f"cache bounds: {escape(bounds.describe())}", highlight=False, soft_wrap=True)
    console.print(f"dispatcher bounds: {escape(dispatcher_bounds.describe())}", highlight=False, soft_wrap=True)
    console.print(f"cycle bounds: {escape(CycleBounds().describe())}", highlight=False, soft_wrap=True)
    results: list[Result] = []
    with console.status("discharging obligations ...") as status:
        for i, obligation in enumerate(obligations, 1):
            status.update(f"[{i}/{len(obligations)}] {escape(obligation.name)}")
            results.append(discharge(obligation, args.timeout_ms))
    console.print(obligations_table(results, bounds, dispatcher_bounds))
    for result in results:
        if result.counterexample is not None:
            console.rule(f"[bold red]REFUTED[/] {escape(result.obligation.name)}")
            console.out(result.counterexample.render(), highlight=False)
        elif result.verdict is Verdict.UNKNOWN:
            console.print(f"[yellow]UNKNOWN[/] {escape(result.obligation.name)}: {escape(result.reason)}")
    proved = sum(r.verdict is Verdict.PROVED for r in results)
    total_time = sum(r.seconds for r in results)
    pending = f" ({len(PENDING)} group(s) not yet encoded: {', '.join(name for name, _ in PENDING)})" if PENDING else ""
    console.print(
        f"{proved}/{len(results)} obligations proved in {total_time:.1f}s{pending}", highlight=False, soft_wrap=True
    )
    crosshair_ok, crosshair_summary = True, "CrossHair not run"
    if not args.no_crosshair:
        crosshair_ok, crosshair_summary = run_crosshair_checks(args, console)
    # The last line is the run's summary (``ksspec verify`` shows it as the row's detail).
    console.print(f"{proved}/{len(results)} Z3 obligations proved; {crosshair_summary}", highlight=False,
                  soft_wrap=True)
    return 0 if results and proved == len(results) and crosshair_ok else 1


def run_crosshair_checks(args: argparse.Namespace, console: Console) -> tuple[bool, str]:
    """Run CrossHair on every function with ``pre:``/``post:`` contracts, within the budget; print a table of
    them with their verdicts and times. True if each is confirmed or has no counterexample, and a one-line summary."""
    roots = tuple(args.crosshair_root)
    targets = crosshair_runner.find_targets(args.root, roots)
    budget_plan = crosshair_runner.plan(targets, args.crosshair_timeout, args.crosshair_budget, args.crosshair_jobs)
    console.print(f"CrossHair budget: {escape(budget_plan.describe())}", highlight=False, soft_wrap=True)
    table = Table(title=f"CrossHair contracts ({', '.join(roots)})")
    for column in ("Module", "Function"):
        table.add_column(column)
    table.add_column("Conditions", justify="right")
    table.add_column("Verdict")
    table.add_column("CPU", justify="right")
    table.add_column("Time", justify="right")
    if not targets:
        table.add_row(f"no module under {', '.join(roots)} states pre:/post: contracts yet", "", "", "[yellow]none[/]",
                      "-", "-")
        console.print(table)
        return True, "no CrossHair contracts"
    done: list[TargetResult] = []
    started = time.perf_counter()
    with console.status("running CrossHair ...") as status:

        def progress(result: TargetResult) -> None:
            done.append(result)  # list.append is atomic; the pool's threads share this list
            status.update(f"CrossHair: {len(done)}/{len(targets)} functions checked")

        results = crosshair_runner.check_targets(targets, args.root, budget_plan, progress)
    elapsed = time.perf_counter() - started
    for r in results:
        style = CROSSHAIR_STYLE[r.verdict]
        table.add_row(
            escape(_relative(r.target.path, args.root)),
            escape(r.target.qualname),
            str(r.target.conditions),
            f"[{style}]{r.verdict.value}[/]",
            "-" if r.cpu_seconds is None else f"{r.cpu_seconds:.1f}s",
            f"{r.seconds:.1f}s",
        )
    ok = sum(r.verdict.ok for r in results)
    cpu = sum(r.cpu_seconds or 0.0 for r in results)
    table.caption = (
        f"{ok}/{len(results)} functions without counterexample in {elapsed:.1f}s wall-clock, {cpu:.1f}s CPU "
        f"(search alone: at most {budget_plan.predicted_seconds * budget_plan.jobs:.0f}s CPU); confirmed = every "
        "path explored, no counterexample = none found within the timeout; CPU = the process's CPU time, Time = "
        "wall-clock"
    )
    console.print(table)
    for r in results:
        if not r.verdict.ok:
            name = f"{_relative(r.target.path, args.root)}:{r.target.qualname}"
            console.rule(f"[bold red]{r.verdict.value.upper()}[/] {escape(name)}")
            console.out("\n".join(r.findings) or r.output, highlight=False)
    conditions = sum(r.target.conditions for r in results)
    summary = f"{ok}/{len(results)} CrossHair-contracted functions ({conditions} conditions) without counterexample"
    return ok == len(results), summary


def _relative(path: Path, root: Path) -> str:
    try:
        return str(path.resolve().relative_to(root.resolve()))
    except ValueError:
        return str(path)


def premise_label(obligation: Obligation) -> str:
    """What a step obligation assumes about the operation: nothing, the informer contract, or (the
    pipeline) TTL 0 and the environment assumption on node events."""
    if obligation.kind == "base":
        return "-"
    if obligation.group == "cycle":
        return obligation.premise
    if obligation.group != "cache":
        return "any enabled operation"
    if obligation.kind != "step":
        return obligation.premise
    return "any operation" if obligation.premise == ALWAYS else "informer contract"


def obligations_table(results: list[Result], bounds: Bounds, dispatcher_bounds: DispatcherBounds) -> Table:
    title = (
        f'ksspec prove (cache: {bounds.pods} pods, {bounds.nodes} node names + ""; '
        f"dispatcher: {dispatcher_bounds.uids} UIDs, {dispatcher_bounds.call_types} call types; "
        f"cycle: {CycleBounds().pods} pods, {CycleBounds().nodes} nodes)"
    )
    table = Table(title=title)
    for column in ("Group", "Obligation", "Premise", "Verdict"):
        table.add_column(column)
    table.add_column("Time", justify="right")
    table.caption = "premise: what a step may assume about its operation, besides the invariants before it"
    for r in results:
        verdict = f"[{VERDICT_STYLE[r.verdict]}]{r.verdict.value}[/]"
        ob = r.obligation
        table.add_row(ob.group, escape(ob.name), premise_label(ob), verdict, f"{r.seconds:.2f}s")
    for name, reason in PENDING:
        table.add_row("", escape(name), "-", "[yellow]not yet[/]", "-")
        table.add_row("", f"  [dim]{escape(reason)}[/]", "", "", "")
    return table


# ============================================================================================
# ksspec check
# ============================================================================================


SYSTEMS = ("cache", "dispatcher", "cycle", "queue")


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
        )
        return CycleSystem(pipeline, symmetry=symmetry, known_violations=known), "cycle", pipeline.describe()
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
    cache = CacheSystem(universe, mode, symmetry=symmetry, known_violations=known)
    return cache, f"cache ({mode.value})", f"{universe.describe()}; mode {mode.value}"


def _given(value: Any, default: Any) -> Any:
    return default if value is None else value


def check(args: argparse.Namespace, console: Console) -> int:
    """Explore a system's state space (the cache, the dispatcher's call queue, the scheduling
    pipeline or the scheduling queue) breadth first over a finite universe, checking every
    invariant in every state; print the figures, the coverage and a shortest trace per violation."""
    try:
        system, name, universe_text = build_system(args)
    except ValueError as error:
        console.print(f"[bold red]invalid universe[/]: {escape(str(error))}")
        return 2
    depth = None if args.depth <= 0 else args.depth
    console.print(f"universe: {escape(universe_text)}", highlight=False, soft_wrap=True)
    with console.status("exploring ..."):
        report = explore(
            system,
            name=name,
            depth_limit=depth,
            time_limit=args.time_limit,
            stop_at_first=not args.keep_going,
        )
    console.print(figures_table(report, symmetry=not args.no_symmetry))
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


def figures_table(report: Report, *, symmetry: bool) -> Table:
    table = Table(title=f"ksspec check: {report.system}")
    table.add_column("Figure")
    table.add_column("Value", justify="right")
    rows = (
        ("distinct states", f"{report.states:,}"),
        ("transitions", f"{report.transitions:,}"),
        ("max depth", str(report.max_depth)),
        ("depth limit", "none" if report.depth_limit is None else str(report.depth_limit)),
        ("time", f"{report.seconds:.1f}s"),
        ("states/s", f"{report.states_per_second:,.0f}"),
        ("symmetry reduction", "on" if symmetry else "off"),
        ("states pruned (outside the bounds)", f"{report.pruned:,}"),
        ("exhausted", _exhausted(report)),
    )
    for name, value in rows:
        table.add_row(name, value)
    return table


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


def _positive(kind: type[float] | type[int]) -> Callable[[str], float]:
    """An argparse type: a number of ``kind`` greater than 0."""

    def parse(text: str) -> float:
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a {kind.__name__}, got {text!r}") from None
        if value <= 0:
            raise argparse.ArgumentTypeError(f"must be greater than 0, got {text}")
        return value

    return parse


def add_prove_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--pods", type=int, default=DEFAULT_PODS, help=f"pod bound P (default {DEFAULT_PODS})")
    parser.add_argument(
        "--nodes",
        type=int,
        default=DEFAULT_NODES,
        help=f"node-name bound N, plus the empty name (default {DEFAULT_NODES})",
    )
    parser.add_argument(
        "--uids", type=int, default=DEFAULT_UIDS, help=f"dispatcher UID bound U (default {DEFAULT_UIDS})"
    )
    parser.add_argument(
        "--call-types",
        type=int,
        default=DEFAULT_CALL_TYPES,
        help=f"dispatcher call-type bound T (default {DEFAULT_CALL_TYPES})",
    )
    parser.add_argument(
        "--timeout-ms",
        type=int,
        default=DEFAULT_TIMEOUT_MS,
        help=f"per-obligation Z3 timeout (default {DEFAULT_TIMEOUT_MS})",
    )
    parser.add_argument("--only", help="discharge only the obligations whose name contains this text")
    parser.add_argument("--no-crosshair", action="store_true", help="skip the CrossHair contract checks")
    parser.add_argument(
        "--crosshair-root",
        action="append",
        default=None,
        help=f"file or directory searched for pre:/post: contracts (repeatable; default {', '.join(DEFAULT_ROOTS)})",
    )
    parser.add_argument(
        "--crosshair-timeout",
        type=_positive(float),
        default=DEFAULT_PER_CONDITION_TIMEOUT,
        help=f"CPU seconds CrossHair searches each condition (default {DEFAULT_PER_CONDITION_TIMEOUT:g}); lowered "
        "when all conditions would not fit in --crosshair-budget",
    )
    parser.add_argument(
        "--crosshair-budget",
        type=_positive(float),
        default=DEFAULT_BUDGET,
        help=f"seconds all CrossHair checks may take together (default {DEFAULT_BUDGET:g})",
    )
    parser.add_argument(
        "--crosshair-jobs",
        type=_positive(int),
        default=DEFAULT_JOBS,
        help=f"CrossHair processes run at once (default {DEFAULT_JOBS})",
    )
    parser.add_argument(
        "--root", type=Path, default=Path.cwd(), help="project checkout the CrossHair roots are relative to"
    )


def add_check_arguments(parser: argparse.ArgumentParser) -> None:
    d, q, c = DEFAULT_UNIVERSE, DEFAULT_DISPATCHER_UNIVERSE, DEFAULT_CYCLE_UNIVERSE
    parser.add_argument(
        "--system", choices=SYSTEMS, default="cache", help="what to explore (default cache; see --help for each)"
    )
    parser.add_argument("--nodes", type=int, default=None, help=f"node names (cache {d.nodes}, cycle {c.nodes})")
    parser.add_argument("--pods", type=int, default=None, help=f"pod UIDs (cache {d.pods}, cycle {c.pods})")
    parser.add_argument(
        "--pod-variants",
        type=int,
        default=None,
        help=f"objects per pod (cache {d.pod_variants}, cycle {c.pod_variants})",
    )
    parser.add_argument(
        "--node-variants",
        type=int,
        default=None,
        help=f"objects per node (cache {d.node_variants}, cycle {c.node_variants})",
    )
    parser.add_argument("--uids", type=int, default=None, help=f"dispatcher: object UIDs (default {q.uids})")
    parser.add_argument(
        "--adds", type=int, default=None, help=f"dispatcher: most Add calls a run makes (default {q.adds})"
    )
    parser.add_argument(
        "--call-variants",
        type=int,
        default=None,
        help=f"dispatcher: calls per UID, of binding, condition, nomination, no-op (default {q.call_variants})",
    )
    parser.add_argument(
        "--depth",
        type=int,
        default=DEFAULT_DEPTH,
        help=f"longest operation sequence explored; 0 for no limit (default {DEFAULT_DEPTH})",
    )
    parser.add_argument(
        "--ttl",
        type=float,
        nargs="+",
        default=None,
        help=f"cache, cycle: TTLs in seconds, one initial state each (default {[t / SECOND for t in d.ttls]})",
    )
    parser.add_argument(
        "--tick", type=float, default=None, help=f"cycle: seconds per tick (default {c.tick / SECOND:g})"
    )
    parser.add_argument(
        "--horizon", type=float, default=None, help=f"cycle: last time a tick reaches (default {c.horizon / SECOND:g})"
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
    parser.add_argument("--time-limit", type=float, default=None, help="stop after this many seconds (then exit 1)")
    parser.add_argument(
        "--keep-going",
        action="store_true",
        help="find a shortest trace for every violated property, not only the first",
    )
    parser.add_argument(
        "--known-violations",
        action="store_true",
        help="also check the properties Kubernetes is documented to break (cache: snapshot order; dispatcher: "
        "told twice, liveness; cycle: overcommit with a non-zero TTL; queue: those its gates and cycle rule break)",
    )
    add_queue_check_arguments(parser)
