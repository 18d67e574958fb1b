"""What each model-checker run checks, found by running it rather than by reading it.

A *run* is one ``ksspec check`` command line (:data:`RUNS`): a system (cache, dispatcher, cycle),
its mode (the cache's contract or adversarial streams), one TTL of its default universe, and
whether ``--known-violations`` is given. The system is built exactly as the command builds it
(:func:`conformance.cli.check.build_system`, over the system's default universe) and explored
breadth first to a small depth with a profiler hook that records every invariant predicate of
the catalogue the system calls itself (not one predicate calling another). The depth grows until
a further level records nothing new (:func:`probe`), so a property evaluated only on some steps
(``trans_expiry_only_after_finish_binding`` on a successful cleanup,
``trans_failed_scheduling_keeps_the_cache`` on a failed cycle) is found too.

``tests/test_docs_traceability.py`` checks the result another way: with every predicate replaced
by one that always fails, the properties each run *reports* on the same states are exactly the
ones recorded here.

``ksspec simulate`` checks the same predicates on the reference implementation while it runs
(:mod:`conformance.simulation.checks`). :func:`simulator_checks` runs a small seeded simulation
per TTL, built as the command builds it, and keeps the predicates it checked at least once.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import cache
from types import CodeType, FrameType
from typing import Any, Final

from conformance.cli import check as check_command
from conformance.cli.verify import CHECKS
from spec.quantities import SECOND
from spec.verify.cache.universe import DEFAULT_UNIVERSE, Mode
from spec.verify.checker import explore
from spec.verify.cycle.system import DEFAULT_CYCLE_UNIVERSE
from spec.verify.transition_system import TransitionSystem

MIN_DEPTH: Final = 2
MAX_DEPTH: Final = 6
"""Probing stops at the first depth that records nothing new beyond the one before (at least
:data:`MIN_DEPTH`), or at this one."""


@dataclass(frozen=True)
class Run:
    """One ``ksspec check`` command line."""

    system: str
    mode: str | None
    """The cache's stream mode (None for the other systems)."""
    ttl: float | None
    """The one TTL (seconds) of the run's initial state, for the systems with TTLs; None otherwise."""
    known_violations: bool

    @property
    def argv(self) -> tuple[str, ...]:
        """The arguments of ``ksspec check`` (``--ttl`` included) that build this run."""
        args: list[str] = [] if self.system == "cache" else ["--system", self.system]
        if self.mode is not None and self.mode != Mode.CONTRACT.value:
            args += ["--mode", self.mode]
        if self.ttl is not None:
            args += ["--ttl", f"{self.ttl:g}"]
        if self.known_violations:
            args.append("--known-violations")
        return tuple(args)

    @property
    def command(self) -> str:
        """The command without ``--ttl``: the default universe has every TTL of the system."""
        args = [a for a in self.argv if a != "--ttl" and (self.ttl is None or a != f"{self.ttl:g}")]
        return " ".join(["ksspec check", *args])

    def build(self) -> TransitionSystem[Any]:
        """The system ``ksspec check`` builds from :attr:`argv`."""
        system, _, _ = check_command.build_system(parse_check_arguments(self.argv))
        return system


def parse_check_arguments(argv: tuple[str, ...]) -> argparse.Namespace:
    """``ksspec check``'s arguments, parsed by its own parser."""
    parser = argparse.ArgumentParser(prog="ksspec check", add_help=False)
    check_command.add_check_arguments(parser)
    return parser.parse_args(list(argv))


def _ttls(system: str) -> tuple[float | None, ...]:
    """The TTLs of the system's default universe, one run each (None: the system has no TTL)."""
    if system == "cache":
        return tuple(t / SECOND for t in DEFAULT_UNIVERSE.ttls)
    if system == "cycle":
        return tuple(t / SECOND for t in DEFAULT_CYCLE_UNIVERSE.ttls)
    return (None,)


def _runs() -> Iterator[Run]:
    for system in check_command.SYSTEMS:
        modes: tuple[str | None, ...] = tuple(m.value for m in Mode) if system == "cache" else (None,)
        for mode in modes:
            for ttl in _ttls(system):
                for known in (False, True):
                    yield Run(system, mode, ttl, known)


RUNS: Final = tuple(_runs())
"""Every system x mode x default TTL x ``--known-violations``."""


# ============================================================================================
# Probing
# ============================================================================================


def _record_calls(codes: dict[CodeType, str], found: set[str]) -> Callable[[FrameType, str, Any], None]:
    def hook(frame: FrameType, event: str, arg: Any) -> None:
        if event == "call":
            name = codes.get(frame.f_code)
            if name is not None and (frame.f_back is None or frame.f_back.f_code not in codes):
                found.add(name)

    return hook


def evaluated(run: Run, predicates: dict[CodeType, str], depth: int) -> frozenset[str]:
    """The predicates (by name) ``run``'s system calls while exploring to ``depth``."""
    found: set[str] = set()
    system = run.build()
    previous = sys.getprofile()
    sys.setprofile(_record_calls(predicates, found))
    try:
        explore(system, depth_limit=depth, stop_at_first=False)
    finally:
        sys.setprofile(previous)
    return frozenset(found)


@dataclass(frozen=True)
class Probe:
    run: Run
    checks: frozenset[str]
    """The predicates the run evaluates."""
    depth: int
    """The depth the probe explored to."""


def probe(run: Run, predicates: dict[CodeType, str]) -> Probe:
    """What ``run`` evaluates: explored deeper until a level adds nothing (see the module docstring)."""
    depth = MIN_DEPTH
    found = evaluated(run, predicates, depth)
    while depth < MAX_DEPTH:
        deeper = evaluated(run, predicates, depth + 1)
        if deeper == found:
            break
        depth, found = depth + 1, deeper
    return Probe(run, found, depth)


@cache
def probes() -> tuple[Probe, ...]:
    """Every run's probe, over the predicates of the invariant catalogue."""
    from traceability import invariants  # it imports this module

    predicates = {inv.function.__code__: inv.name for inv in invariants()}
    return tuple(probe(run, predicates) for run in RUNS)


# ============================================================================================
# Summaries
# ============================================================================================


@dataclass(frozen=True)
class Attribution:
    """A command that checks a predicate, and when (the TTLs it is checked with, if not all)."""

    command: str
    ttls: tuple[float, ...] | None
    """The TTLs (seconds) of the runs that check it, None if every TTL of the universe (or none)."""
    in_verify: bool
    """``ksspec verify`` makes a run of this command with one of those TTLs."""

    system: str = ""
    mode: str | None = None
    known_violations: bool = False

    @property
    def condition(self) -> str:
        if self.ttls is None:
            return ""
        return "TTL " + ", ".join(f"{t:g}s" for t in self.ttls)

    @property
    def label(self) -> str:
        """Short words for a narrow column: ``cycle, known violations, TTL 1s``."""
        words = [self.system]
        if self.mode is not None and self.mode != Mode.CONTRACT.value:
            words.append(self.mode)
        if self.known_violations:
            words.append("known violations")
        if self.condition:
            words.append(self.condition)
        return ", ".join(words)


def verify_runs() -> list[argparse.Namespace]:
    """The ``ksspec check`` commands of ``ksspec verify`` (:data:`conformance.cli.verify.CHECKS`), parsed."""
    return [parse_check_arguments(check.command[1:]) for check in CHECKS if check.command[:1] == ("check",)]


def _in_verify(run: Run) -> bool:
    for args in verify_runs():
        ttls = _ttls(run.system) if args.ttl is None else tuple(args.ttl)
        mode = args.mode if run.system == "cache" else None
        if (args.system, mode, args.known_violations) == (run.system, run.mode, run.known_violations) and (
            run.ttl is None or run.ttl in ttls
        ):
            return True
    return False


SIMULATION_ARGV: Final = ("simulate", "--nodes", "8", "--pods", "40", "--seed", "1", "--no-progress")
"""A run of ``ksspec simulate`` small enough for a build (under a second) that still fails scheduling
cycles and runs the cache's cleanup, so every predicate the simulator checks is checked in it."""


@cache
def simulator_checks() -> dict[float, frozenset[str]]:
    """TTL (seconds, each of the cycle's default universe) -> the predicates that ``ksspec simulate``
    (:data:`SIMULATION_ARGV` with that ``--ttl-seconds``) checks at least once."""
    from conformance.cli import simulate as simulate_command
    from conformance.cli.main import build_parser
    from conformance.simulation.checks import InvariantChecker
    from refimpl.simulator import Simulation

    found = {}
    for ttl in _ttls("cycle"):
        assert ttl is not None
        args = build_parser().parse_args([*SIMULATION_ARGV, "--ttl-seconds", f"{ttl:g}"])
        checker = InvariantChecker()
        Simulation(simulate_command.config_from(args), observers=(checker,)).run()
        found[ttl] = frozenset(name for name, tally in checker.tallies.items() if tally.checked)
    return found


def _simulator_attribution(name: str) -> Attribution | None:
    checks = simulator_checks()
    ttls = tuple(ttl for ttl, names in checks.items() if name in names)
    if not ttls:
        return None
    return Attribution("ksspec simulate", None if len(ttls) == len(checks) else ttls, False, "simulate")


def attributions(name: str) -> list[Attribution]:
    """The commands that check the predicate ``name``: a ``--known-violations`` command only for the
    TTLs at which the command without it does not; then ``ksspec simulate`` if it checks it."""
    result = []
    by_command: dict[tuple[str, str | None, bool], list[Probe]] = {}
    for p in probes():
        by_command.setdefault((p.run.system, p.run.mode, p.run.known_violations), []).append(p)
    for (system, mode, known), group in by_command.items():
        checking = [p.run for p in group if name in p.checks]
        if known:
            plain = by_command[(system, mode, False)]
            already = {p.run.ttl for p in plain if name in p.checks}
            checking = [r for r in checking if r.ttl not in already]
        if not checking:
            continue
        every_ttl = {r.ttl for r in checking} == {p.run.ttl for p in group}
        ttls = None if every_ttl else tuple(r.ttl for r in checking if r.ttl is not None)
        in_verify = any(_in_verify(r) for r in checking)
        result.append(Attribution(checking[0].command, ttls, in_verify, system, mode, known))
    simulated = _simulator_attribution(name)
    if simulated is not None:
        result.append(simulated)
    return result
