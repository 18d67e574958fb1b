"""``ksspec check --system queue``: the scheduling-queue universe from the command line, and its mutants.

:func:`build_queue_system` turns the parsed arguments into a :class:`~spec.verify.queue.system.QueueSystem` over a
:class:`~spec.verify.queue.universe.QueueUniverse`; ``--mutant NAME`` explores one of
:data:`spec.verify.queue.mutants.MUTANTS` in its own universe instead (the arguments given still override it), to
show the property it breaks found with a shortest trace.
"""

from __future__ import annotations

import argparse
from dataclasses import replace
from typing import Any, Final

from spec.quantities import SECOND
from spec.verify.queue.mutants import MUTANTS
from spec.verify.queue.system import QueueSystem
from spec.verify.queue.universe import CYCLE_RULES, FAILURES, QueueUniverse
from spec.versions import get_profile

DEFAULT = QueueUniverse()


def _switch(text: str) -> bool:
    if text not in ("on", "off"):
        raise argparse.ArgumentTypeError(f"expected on or off, got {text!r}")
    return text == "on"


def add_queue_check_arguments(parser: argparse.ArgumentParser) -> None:
    """The queue system's options (``--pods`` and ``--profile`` are shared with the other systems)."""
    parser.add_argument("--pops", type=int, default=None, help=f"queue: pops per pod (default {DEFAULT.pops})")
    parser.add_argument("--events", type=int, default=None, help=f"queue: cluster events (default {DEFAULT.events})")
    parser.add_argument(
        "--activations", type=int, default=None, help=f"queue: Activate calls (default {DEFAULT.activations})"
    )
    parser.add_argument(
        "--failures",
        type=int,
        default=None,
        help=f"queue: how attempts fail, the first N of {', '.join(f.name for f in FAILURES)} "
        f"(default {DEFAULT.failures})",
    )
    parser.add_argument(
        "--queueing-hints", type=_switch, default=None, help="queue: on or off (default: the profile's)"
    )
    parser.add_argument(
        "--pop-from-backoff-q", type=_switch, default=None, help="queue: on or off (default: the profile's)"
    )
    parser.add_argument(
        "--cycle-rule",
        choices=CYCLE_RULES,
        default=None,
        help="queue: the cycle a failed pod is handed back with: the current one, as Kubernetes' failure handler "
        "passes, or the one its attempt started in (default current)",
    )
    parser.add_argument("--close", action="store_true", help="queue: Close may be called")
    parser.add_argument(
        "--mutant",
        choices=sorted(MUTANTS),
        default=None,
        help="queue: explore a broken queue that breaks one property (see spec/verify/queue/mutants.py)",
    )


QUEUE_ONLY: Final = ("pops", "events", "activations", "failures", "queueing_hints", "pop_from_backoff_q",
                     "cycle_rule", "close", "mutant")
"""The options only ``--system queue`` reads."""


def queue_only_flags(args: argparse.Namespace) -> list[str]:
    """The queue-only options given on the command line (as flags): another system would silently ignore them."""
    return [f"--{name.replace('_', '-')}" for name in QUEUE_ONLY if getattr(args, name, None) not in (None, False)]


def _given(value: Any, default: Any) -> Any:
    return default if value is None else value


def build_queue_system(args: argparse.Namespace) -> tuple[QueueSystem, str, str]:
    """The queue system the arguments describe, its name and universe text; fails with ``ValueError`` naming a bad
    bound."""
    mutant = MUTANTS[args.mutant] if args.mutant else None
    base = DEFAULT if mutant is None else mutant.universe
    universe = replace(
        base,
        pods=_given(args.pods, base.pods),
        pops=_given(args.pops, base.pops),
        events=_given(args.events, base.events),
        activations=_given(args.activations, base.activations),
        failures=_given(args.failures, base.failures),
        tick=base.tick if args.tick is None else round(args.tick * SECOND),
        profile=base.profile if args.profile is None else get_profile(args.profile),
        queueing_hints=_given(args.queueing_hints, base.queueing_hints),
        pop_from_backoff_q=_given(args.pop_from_backoff_q, base.pop_from_backoff_q),
        cycle_rule=_given(args.cycle_rule, base.cycle_rule),
        close=args.close or base.close,
    )
    if not universe.hints_on and not universe.profile.queueing_hints_gate:
        raise ValueError(f"profile {universe.profile.name} has no SchedulerQueueingHints gate (v1.37 removed it): "
                         "its queue always runs the hints; drop the hints-off setting or choose v1.36 or earlier")
    symmetry = not args.no_symmetry
    if mutant is None:
        return QueueSystem(universe, symmetry=symmetry, known_violations=args.known_violations), "queue", (
            universe.describe()
        )
    system = QueueSystem(universe, symmetry=symmetry, step=mutant.step, known_violations=args.known_violations)
    text = f"{universe.describe()}; MUTANT {mutant.name}: {mutant.description} (breaks {mutant.property})"
    return system, f"queue (mutant {mutant.name})", text
