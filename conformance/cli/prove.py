"""``ksspec prove``: the Z3 proof obligations of :mod:`spec.verify` and CrossHair's search of refimpl's contracts.

It prints rich tables and returns a process exit code: 0 only when every obligation is proved.
"""


from __future__ import annotations

import argparse
import time
from pathlib import Path

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from conformance.arguments import MAX_BOUND, existing_directory, int_in, non_empty, positive
from conformance.cli import crosshair as crosshair_runner
from conformance.cli.crosshair import (
    DEFAULT_BUDGET,
    DEFAULT_JOBS,
    DEFAULT_PER_CONDITION_TIMEOUT,
    DEFAULT_ROOTS,
    CrosshairVerdict,
    TargetResult,
)
from conformance.cli.verify import default_project_root
from conformance.console import make_console
from conformance.interrupts import received
from conformance.usage import usage_error
from spec.verify.cache.symbolic import ALWAYS, DEFAULT_NODES, DEFAULT_PODS, Bounds
from spec.verify.cluster.symbolic import ClusterBounds
from spec.verify.cycle.symbolic import CycleBounds
from spec.verify.dispatcher.symbolic import DEFAULT_CALL_TYPES, DEFAULT_UIDS, DispatcherBounds
from spec.verify.obligations import (
    DEFAULT_TIMEOUT_MS,
    PENDING,
    Obligation,
    Result,
    Verdict,
    discharge,
)
from spec.verify.proof_groups import all_obligations

CROSSHAIR_STYLE = {
    CrosshairVerdict.CONFIRMED: "bold green",
    CrosshairVerdict.NO_COUNTEREXAMPLE: "green",
    CrosshairVerdict.COUNTEREXAMPLE: "bold red",
    CrosshairVerdict.UNMET_PRECONDITION: "bold red",
    CrosshairVerdict.ERROR: "bold red",
}
Z3_CANCELED = "canceled"
"""Z3's reason for ``unknown`` when a Ctrl-C reached it during a check (it catches SIGINT itself)."""
VERDICT_STYLE = {Verdict.PROVED: "bold green", Verdict.REFUTED: "bold red", Verdict.UNKNOWN: "yellow"}


# ============================================================================================
# ksspec prove
# ============================================================================================


def prove(args: argparse.Namespace, console: Console) -> int:
    """Discharge every Z3 obligation and print a table of them with their times; print a
    counterexample (pre-state, operation, post-state) for each refuted one."""
    if args.crosshair_root is None:
        args.crosshair_root = list(DEFAULT_ROOTS)
    if args.no_z3 and args.no_crosshair:
        return usage_error(console, "--no-z3 with --no-crosshair leaves nothing to run")
    if args.no_z3 and args.only is not None:
        return usage_error(console, "--only selects Z3 obligations, which --no-z3 skips")
    if args.no_z3:
        return crosshair_only(args, console)
    bounds = Bounds(args.pods, args.nodes)
    dispatcher_bounds = DispatcherBounds(args.uids, args.call_types)
    obligations = [ob for ob in all_obligations(bounds, dispatcher_bounds) if args.only is None or args.only in ob.name]
    if not obligations:
        return usage_error(console, f"--only {args.only!r} matches no obligation")
    console.print(f"cache bounds: {escape(bounds.describe())}", highlight=False, soft_wrap=True)
    console.print(f"dispatcher bounds: {escape(dispatcher_bounds.describe())}", highlight=False, soft_wrap=True)
    console.print(f"cycle bounds: {escape(CycleBounds().describe())}", highlight=False, soft_wrap=True)
    console.print(f"cluster bounds: {escape(ClusterBounds().describe())}", highlight=False, soft_wrap=True)
    results: list[Result] = []
    signals = received()
    interrupted = False
    # Z3's own SIGINT handler, installed during each check, takes a Ctrl-C that comes as a check ends, and the check
    # then returns its verdict: the signal was lost (2026-11-30, 3 runs of 8 of tests/test_interrupts.py). Without
    # it the signal reaches the Interrupts handler once the check returns (each takes well under a second).
    import z3  # the Z3 bindings load with the obligations, not with the command line

    z3.set_param("ctrl_c", False)
    try:
        with console.status("discharging obligations ...") as status:
            for i, obligation in enumerate(obligations, 1):
                status.update(f"[{i}/{len(obligations)}] {escape(obligation.name)}")
                result = discharge(obligation, args.timeout_ms)
                if result.verdict is Verdict.UNKNOWN and result.reason == Z3_CANCELED:  # Z3 took the Ctrl-C
                    interrupted = True
                    break
                results.append(result)
    except KeyboardInterrupt:
        interrupted = True
    except Exception:
        if not signals.caught:
            raise
        interrupted = True  # a KeyboardInterrupt inside Z3's Python layer leaves its objects half made
    if interrupted or signals.caught:
        signals.hold()
        console.print(obligations_table(results, bounds, dispatcher_bounds))
        console.print(f"[bold red]prove interrupted by {signals.name or 'SIGINT'}[/]: {len(results)} of "
                      f"{len(obligations)} obligations discharged, "
                      f"{sum(r.verdict is Verdict.PROVED for r in results)} proved; CrossHair not run",
                      highlight=False)
        return signals.exit_code()
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
        try:
            crosshair_ok, crosshair_summary = run_crosshair_checks(args, console)
        except KeyboardInterrupt:
            signals.hold()
            console.print(f"[bold red]prove interrupted by {signals.name or 'SIGINT'}[/] during CrossHair: "
                          f"{proved}/{len(results)} Z3 obligations proved", highlight=False)
            return signals.exit_code()
    # The last line is the run's summary (``ksspec verify`` shows it as the row's detail).
    console.print(f"{proved}/{len(results)} Z3 obligations proved; {crosshair_summary}", highlight=False,
                  soft_wrap=True)
    return 0 if results and proved == len(results) and crosshair_ok else 1


def crosshair_only(args: argparse.Namespace, console: Console) -> int:
    """``ksspec prove --no-z3``: the CrossHair contract checks alone (CI runs the Z3 obligations once, in
    ``make verify``'s row, and this for the row ``--thorough`` adds). Exit 0 if every contract is confirmed or has no
    counterexample."""
    signals = received()
    try:
        crosshair_ok, crosshair_summary = run_crosshair_checks(args, console)
    except KeyboardInterrupt:
        signals.hold()
        console.print(f"[bold red]prove interrupted by {signals.name or 'SIGINT'}[/] during CrossHair (Z3 not run)",
                      highlight=False)
        return signals.exit_code()
    console.print(f"Z3 obligations not run (--no-z3); {crosshair_summary}", highlight=False, soft_wrap=True)
    return 0 if crosshair_ok else 1


def run_crosshair_checks(args: argparse.Namespace, console: Console) -> tuple[bool, str]:
    """Run CrossHair on every function with ``pre:``/``post:`` contracts, within the budget; print a table of
    them with their verdicts and times. True if each is confirmed or has no counterexample, and a one-line summary."""
    if not crosshair_runner.crosshair_installed():
        console.print("[bold red]CrossHair is not installed[/]: install kube-scheduler-spec[crosshair] (or "
                      "crosshair-tool), or pass --no-crosshair for the Z3 obligations alone", highlight=False)
        return False, "CrossHair not installed"
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
    if obligation.group in ("cycle", "cluster"):
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
        f"cycle: {CycleBounds().pods} pods, {CycleBounds().nodes} nodes; "
        f"cluster: {ClusterBounds().pods} pods, {ClusterBounds().nodes} nodes)"
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


def add_prove_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--pods", type=int_in(1, MAX_BOUND, "--pods"), default=DEFAULT_PODS,
                        help=f"pod bound P (default {DEFAULT_PODS})")
    parser.add_argument(
        "--nodes",
        type=int_in(1, MAX_BOUND, "--nodes"),
        default=DEFAULT_NODES,
        help=f"node-name bound N, plus the empty name (default {DEFAULT_NODES})",
    )
    parser.add_argument(
        "--uids", type=int_in(1, MAX_BOUND, "--uids"), default=DEFAULT_UIDS,
        help=f"dispatcher UID bound U (default {DEFAULT_UIDS})"
    )
    parser.add_argument(
        "--call-types",
        type=int_in(1, MAX_BOUND, "--call-types"),
        default=DEFAULT_CALL_TYPES,
        help=f"dispatcher call-type bound T (default {DEFAULT_CALL_TYPES})",
    )
    parser.add_argument(
        "--timeout-ms",
        type=int_in(1, 2**31 - 1, "--timeout-ms"),
        default=DEFAULT_TIMEOUT_MS,
        help=f"per-obligation Z3 timeout (default {DEFAULT_TIMEOUT_MS})",
    )
    parser.add_argument("--only", type=non_empty("--only"),
                        help="discharge only the obligations whose name contains this text (it must match one)")
    parser.add_argument("--no-crosshair", action="store_true", help="skip the CrossHair contract checks")
    parser.add_argument("--no-z3", action="store_true",
                        help="skip the Z3 obligations: only the CrossHair contract checks (CI, after make verify's "
                        "Z3 row)")
    parser.add_argument(
        "--crosshair-root",
        action="append",
        default=None,
        help=f"file or directory searched for pre:/post: contracts (repeatable; default {', '.join(DEFAULT_ROOTS)})",
    )
    parser.add_argument(
        "--crosshair-timeout",
        type=positive("--crosshair-timeout"),
        default=DEFAULT_PER_CONDITION_TIMEOUT,
        help=f"CPU seconds CrossHair searches each condition (default {DEFAULT_PER_CONDITION_TIMEOUT:g}); lowered "
        "when all conditions would not fit in --crosshair-budget",
    )
    parser.add_argument(
        "--crosshair-budget",
        type=positive("--crosshair-budget"),
        default=DEFAULT_BUDGET,
        help=f"seconds all CrossHair checks may take together (default {DEFAULT_BUDGET:g})",
    )
    parser.add_argument(
        "--crosshair-jobs",
        type=int_in(1, 1024, "--crosshair-jobs"),
        default=DEFAULT_JOBS,
        help=f"CrossHair processes run at once (default {DEFAULT_JOBS})",
    )
    parser.add_argument(
        "--root",
        type=existing_directory("--root"),
        default=Path.cwd(),
        help="directory the CrossHair roots are relative to (ksspec's default: where the packages are imported from, "
        "the checkout or site-packages)",
    )


def register(subparsers: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """Add ``prove`` to the ``ksspec`` command line."""
    parser = subparsers.add_parser(
        "prove", help="discharge the Z3 proof obligations and print a table", description=prove.__doc__
    )
    add_prove_arguments(parser)
    parser.set_defaults(handler=lambda a: prove(a, make_console()), root=default_project_root())
