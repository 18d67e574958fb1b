"""Every model-checker run the project uses, and the figures each gave before the checker was made fast.

A *run* is the arguments of one ``ksspec check`` command line, optionally with a broken step
function from the tests. :data:`RUNS` lists every universe ``ksspec verify`` checks, the docs
cite (docs/proofs.md: its commands, its measured figures and its known-violation traces; the
traceability probes of docs/_ext/checker_coverage.py at their deepest depth) and the tests
explore (tests/verify/test_checker.py, test_checker_systems.py), with every system, mode and
profile among them.

``checker_baseline.json`` beside this file holds what each run reported on main before issue 16
(commit 59a610d): distinct states, transitions, depth, coverage, how it stopped and every
violation with its whole trace. It was written by running this module as a script on that commit::

    PYTHONPATH=/path/to/checkout-at-59a610d .venv/bin/python tests/verify/checker_universes.py --write

``tests/verify/test_checker_baseline.py`` requires the checker to report exactly the same today.

A deliberate change of the spec changes some runs' figures; those runs are re-recorded the same way, by
the checker of 59a610d on 59a610d with only the spec change applied, and the file's ``amended`` entry
lists them and says how. So far one: commit 3af4dcb (v1.35's ``callQueue.merge``, PR #135180) changed
six default-profile dispatcher runs; their pr141745 and v1.34 runs kept their figures::

    git worktree add --detach /tmp/base 59a610d && cd /tmp/base && git show 3af4dcb -- spec/ | git apply
    # then explore the runs as main() does, with /tmp/base first on sys.path

The cluster model (adab59d) widened the cycle system's state itself (the API server's nodes, whether the
scheduler runs, the informers' lists, orphaned binds, the kubelets' verdicts), so 59a610d's checker cannot
explore it; the changed cycle runs (``amended_cluster``) are recorded by the checker of that commit's branch.
From there on they guard later speed-ups the same way.
"""

from __future__ import annotations

import argparse
import importlib
import json
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

BASELINE: Final = Path(__file__).with_name("checker_baseline.json")


@dataclass(frozen=True)
class Run:
    """One ``ksspec check`` command line (the arguments after ``check``), with an optional broken step."""

    argv: tuple[str, ...]
    step: str = ""
    """``module:function`` of a step function replacing the system's own (a test's broken transition)."""

    @property
    def name(self) -> str:
        return " ".join(("check", *self.argv)) + (f" [step {self.step.rsplit(':', 1)[1]}]" if self.step else "")


_CACHE_SMALL = ("--nodes", "2", "--pods", "1", "--pod-variants", "2", "--node-variants", "1")
_TESTS = "tests.verify.test_checker"
_SYSTEM_TESTS = "tests.verify.test_checker_systems"

RUNS: Final = (
    # ksspec verify (conformance/cli/main.py CHECKS), also docs/proofs.md's "Running everything"
    Run(()),
    Run(("--mode", "adversarial", "--nodes", "2", "--pods", "1")),
    Run(("--system", "dispatcher")),
    Run(("--system", "dispatcher", "--profile", "pr141745")),
    Run(("--system", "cycle")),
    # docs/proofs.md: known-violation traces and the commands it lists
    Run(("--known-violations",)),
    Run(("--system", "dispatcher", "--known-violations", "--keep-going")),
    Run(("--system", "dispatcher", "--profile", "pr141745", "--known-violations", "--keep-going")),
    Run(("--system", "cycle", "--pod-variants", "2", "--known-violations", "--keep-going")),
    Run(("--system", "cycle", "--ttl", "0", "--pods", "3")),
    Run(("--system", "cycle", "--known-violations", "--keep-going")),
    Run(("--nodes", "3", "--pods", "1", "--ttl", "0")),
    # docs/proofs.md: measured figures
    Run(("--system", "dispatcher", "--uids", "3", "--adds", "4", "--call-variants", "2")),
    Run(("--system", "cycle", "--pods", "4")),
    Run(("--system", "cycle", "--nodes", "3", "--pods", "1")),
    # docs/_ext/checker_coverage.py: every system x mode x TTL x --known-violations, to its deepest probe
    *(
        Run((*mode, "--ttl", ttl, *known, "--depth", "6"))
        for mode in ((), ("--mode", "adversarial"))
        for ttl in ("0", "1")
        for known in ((), ("--known-violations",))
    ),
    *(Run(("--system", "dispatcher", *known, "--depth", "6")) for known in ((), ("--known-violations",))),
    *(
        Run(("--system", "cycle", "--ttl", ttl, *known, "--depth", "6"))
        for ttl in ("0", "1")
        for known in ((), ("--known-violations",))
    ),
    # tests/verify/test_checker.py
    Run(_CACHE_SMALL),
    Run((*_CACHE_SMALL, "--no-symmetry")),
    Run(("--mode", "adversarial", "--nodes", "1", "--pods", "1", "--pod-variants", "1", "--node-variants", "2")),
    Run(("--nodes", "2", "--pods", "3", "--pod-variants", "1", "--node-variants", "1", "--depth", "3")),
    Run(("--nodes", "2", "--pods", "1", "--pod-variants", "1", "--node-variants", "2", "--known-violations")),
    Run(_CACHE_SMALL, step=f"{_TESTS}:assume_without_charging"),
    Run((*_CACHE_SMALL, "--no-symmetry"), step=f"{_TESTS}:assume_without_charging"),
    Run(_CACHE_SMALL, step=f"{_TESTS}:cleanup_ignoring_binding"),
    Run((*_CACHE_SMALL, "--keep-going"), step=f"{_TESTS}:stale_snapshot"),
    # tests/verify/test_checker_systems.py
    Run(("--system", "dispatcher", "--uids", "2", "--adds", "2", "--call-variants", "4", "--profile", "pr141745")),
    Run(("--system", "dispatcher", "--uids", "2", "--adds", "2", "--call-variants", "4", "--profile", "v1.34")),
    Run(("--system", "dispatcher", "--uids", "2", "--adds", "2")),
    Run(("--system", "dispatcher", "--uids", "2", "--adds", "2", "--no-symmetry")),
    Run(("--system", "dispatcher", "--uids", "2", "--adds", "2"), step=f"{_SYSTEM_TESTS}:finish_keeping_the_call"),
    Run(("--system", "dispatcher", "--uids", "1", "--adds", "2"), step=f"{_SYSTEM_TESTS}:add_ignoring_relevance"),
    Run(("--system", "cycle", "--nodes", "1", "--pods", "2", "--node-variants", "2", "--ttl", "0", "--profile",
         "v1.34")),
    Run(("--system", "cycle", "--nodes", "2", "--pods", "1", "--ttl", "0")),
    Run(("--system", "cycle", "--nodes", "2", "--pods", "1", "--ttl", "0", "--no-symmetry")),
    Run(("--system", "cycle", "--ttl", "0"), step=f"{_SYSTEM_TESTS}:schedule_without_filters"),
    Run(("--system", "cycle", "--pods", "1", "--ttl", "0"), step=f"{_SYSTEM_TESTS}:fail_binding_without_forget"),
    Run(("--system", "cycle", "--pods", "2", "--pod-variants", "2", "--ttl", "1", "--known-violations",
         "--keep-going")),
    Run(("--system", "cycle", "--pods", "2", "--pod-variants", "2", "--ttl", "1")),
)


def parse(argv: tuple[str, ...]) -> argparse.Namespace:
    """``ksspec check``'s arguments, parsed by its own parser."""
    from conformance.cli import check as check_command

    parser = argparse.ArgumentParser(prog="ksspec check", add_help=False)
    check_command.add_check_arguments(parser)
    return parser.parse_args(list(argv))


def build(run: Run) -> tuple[Any, str, argparse.Namespace]:
    """The system ``ksspec check`` builds for ``run`` (with its broken step, if any), its name and arguments."""
    from conformance.cli import check as check_command

    args = parse(run.argv)
    system, name, _ = check_command.build_system(args)
    if hasattr(system, "abstract_snapshots"):
        # recorded before the snapshot abstraction (now ksspec check's default): these runs guard every figure with
        # it off; tests/verify/test_snapshot_abstraction.py checks the runs with it on
        system.abstract_snapshots = False
    if run.step:
        module, function = run.step.split(":")
        step: Callable[..., Any] = getattr(importlib.import_module(module), function)
        system.step = step  # type: ignore[attr-defined]  # every system has one
    return system, name, args


def figures(report: Any) -> dict[str, Any]:
    """What a report says, as JSON: everything but the time."""
    return {
        "states": report.states,
        "transitions": report.transitions,
        "max_depth": report.max_depth,
        "complete": report.complete,
        "exhausted": report.exhausted,
        "stopped_by": report.stopped_by,
        "pruned": report.pruned,
        "coverage": dict(sorted(report.coverage.items())),
        "violations": [
            {
                "property": v.property,
                "initial": v.initial,
                "trace": [[step.action, step.result] for step in v.trace],
                "final_state": v.final_state,
            }
            for v in report.violations
        ],
    }


def explore_run(run: Run, **options: Any) -> tuple[dict[str, Any], float]:
    """Explore ``run`` as ``ksspec check`` does (``options`` go to ``explore``); its figures and seconds."""
    from spec.verify.checker import explore

    system, name, args = build(run)
    depth = None if args.depth <= 0 else args.depth
    started = time.perf_counter()
    report = explore(system, name=name, depth_limit=depth, stop_at_first=not args.keep_going, **options)
    return figures(report), time.perf_counter() - started


def load() -> dict[str, dict[str, Any]]:
    """The recorded figures, by run name."""
    recorded: dict[str, dict[str, Any]] = json.loads(BASELINE.read_text())["runs"]
    return recorded


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--write", action="store_true", help=f"write {BASELINE.name} (else only print the figures)")
    parser.add_argument("--commit", default="", help="the commit the figures are taken from (recorded in the file)")
    args = parser.parse_args(argv)
    runs: dict[str, dict[str, Any]] = {}
    for run in RUNS:
        result, seconds = explore_run(run)
        runs[run.name] = result
        print(f"{seconds:7.1f}s {result['states']:>9,} states  {run.name}", flush=True)
    if args.write:
        BASELINE.write_text(json.dumps({"commit": args.commit, "runs": runs}, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
    raise SystemExit(main())
