"""The "Proofs and model checking" page: its generated tables say what the proof and checker code does."""

from __future__ import annotations

import re
import shlex
import sys
from functools import cache
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parent.parent / "docs" / "_ext"))

import checker_coverage
import proofs
import traceability

from conformance.cli import crosshair as crosshair_runner
from conformance.cli.main import build_parser
from spec.cache import invariants
from spec.cycle import invariants as cycle_invariants
from spec.dispatcher import invariants as call_queue_invariants
from spec.verify.proof_groups import all_obligations

PAGE = Path(__file__).parent.parent / "docs" / "proofs.md"
DIRECTIVE = re.compile(r"```\{known-violation-trace\} (?P<args>[^\n]+)\n:expect: (?P<expect>[^\n]+)\n```")


def test_the_obligation_table_lists_every_obligation_once() -> None:
    obligations = all_obligations()
    rows = proofs.obligation_rows(obligations)
    listed = [
        (row.group, row.invariant, row.kind, transition)
        for row in rows
        for transition in (row.transitions or (None,))
    ]
    assert sorted(listed, key=str) == sorted(
        ((ob.group, ob.invariant, ob.kind, ob.transition) for ob in obligations), key=str
    )


def test_the_bounds_read_from_the_proof_tests_are_the_ones_they_run() -> None:
    from tests.verify import test_proofs

    run: dict[str, set[tuple[int, int]]] = {"cache": set(), "dispatcher": set(), "cycle": set()}
    tests = (
        test_proofs.test_every_obligation_is_proved,
        test_proofs.test_every_dispatcher_obligation_is_proved,
        test_proofs.test_every_cycle_obligation_is_proved,
    )
    for test in tests:
        for mark in getattr(test, "pytestmark", []):
            if mark.name == "parametrize":
                for bounds in mark.args[1]:
                    group, _, _ = proofs.BOUND_CLASSES[type(bounds).__name__]
                    first, second = vars(bounds).values()
                    run[group].add((first, second))
    read = proofs.proof_test_bounds()
    assert run["cache"] and run["dispatcher"] and run["cycle"]
    assert {group: set(bounds) for group, bounds in read.items()} == run


def test_contracts_are_every_function_with_pre_or_post_lines() -> None:
    from tests.verify.crosshair_examples import broken_arithmetic, correct_arithmetic

    root = Path(__file__).parent.parent
    found = proofs.contracts(root, ("tests/verify/crosshair_examples",))
    expected = {
        (Path(module.__file__ or "").name, name)
        for module in (broken_arithmetic, correct_arithmetic)
        for name, f in vars(module).items()
        if callable(f) and getattr(f, "__module__", "") == module.__name__ and "post:" in (f.__doc__ or "")
    }
    assert {(Path(c.path).name, c.qualname) for c in found} == expected
    correct = next(c for c in found if c.path.endswith("correct_arithmetic.py"))
    assert correct.conditions[-1] == "post: set(total) == set(__old__.total) | set(other)"
    assert all(crosshair_runner.has_contracts(root / c.path) for c in found)


def test_model_checked_only_lists_predicates_without_obligations_that_a_plain_run_evaluates() -> None:
    proved = set(traceability.z3_obligations())
    for system, names in proofs.model_checked_only().items():
        evaluated = set().union(
            *(p.checks for p in checker_coverage.probes() if p.run.system == system and not p.run.known_violations)
        )
        assert set(names) == evaluated - proved, system


def _page_commands() -> list[list[str]]:
    text = PAGE.read_text(encoding="utf-8")
    commands = [shlex.split(line.split("#")[0]) for line in text.splitlines() if line.startswith("ksspec ")]
    commands += [["ksspec", "check", *m["args"].split()] for m in DIRECTIVE.finditer(text)]
    return commands


def test_every_command_on_the_page_is_a_valid_ksspec_command() -> None:
    commands = _page_commands()
    assert len(commands) > 10
    for command in commands:
        build_parser().parse_args(command[1:])  # exits (failing the test) on an unknown option or value


def test_the_page_reproduces_every_known_violation() -> None:
    expected = {p.__name__ for p in invariants.KNOWN_VIOLATIONS}
    expected |= {p.__name__ for p in call_queue_invariants.CALL_QUEUE_KNOWN_VIOLATIONS}
    expected.add(cycle_invariants.inv_no_node_overcommitted.__name__)
    shown = {name for m in DIRECTIVE.finditer(PAGE.read_text(encoding="utf-8")) for name in m["expect"].split()}
    assert expected <= shown


@cache
def _known_violation_run(argv: str) -> tuple[str, Any]:
    run: tuple[str, Any] = proofs.known_violation_runs(argv.split())
    return run


@pytest.mark.parametrize(
    ("argv", "prop", "steps"),
    [
        # spec/cycle/invariants.py's docstring: the host-port entry is lost in 10 steps, the overcommit in 9
        ("--system cycle --pod-variants 2 --known-violations --keep-going", "inv_used_ports_are_union_of_pods", 10),
        ("--system cycle --pod-variants 2 --known-violations --keep-going", "inv_no_node_overcommitted", 9),
        # spec/dispatcher/invariants.py's inv_no_caller_told_twice: Add, Close, Sync under PR #141745
        ("--system dispatcher --profile pr141745 --known-violations --keep-going", "inv_no_caller_told_twice", 3),
    ],
)
def test_the_shortest_traces_the_docstrings_cite(argv: str, prop: str, steps: int) -> None:
    _, report = _known_violation_run(argv)
    violation = next(v for v in report.violations if v.property == prop)
    assert len(violation.trace) == steps
    if prop == "inv_no_caller_told_twice":
        actions = [step.action.split("(")[0] for step in violation.trace]
        assert actions == ["Add", "CloseDispatcher", "Sync"]
