"""Directives of the "Proofs and model checking" page, generated from the proof and checker code.

- ``z3-bounds``: the default bounds of ``ksspec prove`` and the bounds the test suite proves at
  (read from the ``parametrize`` decorators of ``tests/verify/test_proofs.py``).
- ``z3-obligations``: every obligation of :func:`spec.verify.proof_groups.all_obligations` at the
  default bounds, one row per group, invariant and kind, with the transitions (names only: Z3 is
  not run here, ``ksspec prove`` takes about ten seconds).
- ``checker-systems``: each ``ksspec check`` system's default universe, as the command builds it.
- ``verify-checks``: the model-checking runs of ``ksspec verify`` and their universes.
- ``model-checked-only``: the predicates a model-checker run evaluates that no Z3 obligation is about.
- ``known-violation-trace``: runs ``ksspec check`` with the arguments given (HTML builder only) and
  shows each violation's shortest trace.
- ``crosshair-contracts``: every refimpl function whose docstring states ``pre:``/``post:``
  conditions, found the way ``ksspec prove`` finds them.
"""

from __future__ import annotations

import ast
import inspect
from collections import defaultdict
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any, ClassVar, Final, TypeAlias

import doc_tables
from checker_coverage import parse_check_arguments, probes
from docutils import nodes
from docutils.parsers.rst import directives
from sphinx import addnodes
from sphinx.application import Sphinx
from sphinx.util.docutils import SphinxDirective
from traceability import ROOT, _rich, abstracted_predicates, invariants, z3_obligations

from conformance.cli import check as check_command
from conformance.cli import crosshair as crosshair_runner
from conformance.cli import prove as proof_commands
from conformance.cli.verify import CHECKS
from spec.verify.cache.symbolic import Bounds
from spec.verify.checker import explore
from spec.verify.cycle.symbolic import CycleBounds
from spec.verify.dispatcher.symbolic import DispatcherBounds
from spec.verify.obligations import Obligation
from spec.verify.proof_groups import all_obligations

PROOF_TESTS: Final = ROOT / "tests" / "verify" / "test_proofs.py"
BOUND_CLASSES: Final = {
    "Bounds": ("cache", "P", "N"),
    "DispatcherBounds": ("dispatcher", "U", "T"),
    "CycleBounds": ("cycle", "P", "N"),
}

Cell: TypeAlias = str | nodes.Node | Sequence[str | nodes.Node]


def _paragraph(cell: Cell) -> nodes.paragraph:
    paragraph = nodes.paragraph()
    for part in [cell] if isinstance(cell, str | nodes.Node) else cell:
        paragraph += nodes.Text(part) if isinstance(part, str) else part
    return paragraph


def _entry(cell: Cell) -> nodes.entry:
    """A table cell: a block (a literal block) as it is, anything else in a paragraph."""
    entry = nodes.entry()
    entry += cell if isinstance(cell, nodes.literal_block) else _paragraph(cell)
    return entry


def _table(header: Sequence[str], rows: Iterable[Sequence[Cell]], widths: Sequence[int] | None = None) -> nodes.table:
    classes = ["spec-table"] + (["colwidths-given"] if widths else [])
    return doc_tables.table(
        [_entry(title) for title in header], ([_entry(cell) for cell in cells] for cells in rows), widths, classes
    )


def _func_ref(target: str, shown: str) -> nodes.Node:
    ref = addnodes.pending_xref("", refdomain="py", reftype="func", reftarget=target, refexplicit=True, refwarn=False)
    ref += nodes.literal(text=shown)
    return ref


def _literal_list(items: Iterable[str]) -> list[nodes.Node | str]:
    parts: list[nodes.Node | str] = []
    for item in items:
        if parts:
            parts.append(", ")
        parts.append(nodes.literal(text=item))
    return parts


@cache
def _predicate_modules() -> dict[str, str]:
    """Spec predicate name -> its module, for every predicate of the invariant catalogue."""
    return {inv.name: inv.module for inv in invariants()}


def _predicate(name: str) -> nodes.Node:
    """A link to the spec predicate ``name`` (plain code if it is not one)."""
    module = _predicate_modules().get(name)
    return _func_ref(f"{module}.{name}", name) if module else nodes.literal(text=name)


# ============================================================================================
# Z3
# ============================================================================================


def proof_test_bounds() -> dict[str, list[tuple[int, int]]]:
    """Group -> the bounds ``tests/verify/test_proofs.py`` parametrizes its proofs with."""
    tree = ast.parse(PROOF_TESTS.read_text(encoding="utf-8"))
    found: dict[str, list[tuple[int, int]]] = defaultdict(list)
    for node in ast.walk(tree):
        if not isinstance(node, ast.FunctionDef):
            continue
        for decorator in node.decorator_list:
            if not (isinstance(decorator, ast.Call) and getattr(decorator.func, "attr", "") == "parametrize"):
                continue
            for call in ast.walk(decorator):
                if isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id in BOUND_CLASSES:
                    values = [a.value for a in call.args if isinstance(a, ast.Constant) and isinstance(a.value, int)]
                    if len(values) == 2 == len(call.args):
                        bounds = (values[0], values[1])
                        group = BOUND_CLASSES[call.func.id][0]
                        if bounds not in found[group]:
                            found[group].append(bounds)
    return found


class Z3Bounds(SphinxDirective):
    def run(self) -> list[nodes.Node]:
        tested = proof_test_bounds()
        items = [
            ("cache", Bounds().describe(), "Bounds"),
            ("dispatcher", DispatcherBounds().describe(), "DispatcherBounds"),
            ("cycle", CycleBounds().describe(), "CycleBounds"),
        ]
        bullets = nodes.bullet_list()
        for group, text, cls in items:
            _, first, second = BOUND_CLASSES[cls]
            also = "; ".join(f"{first}={a}, {second}={b}" for a, b in tested.get(group, []))
            item = nodes.list_item()
            item += _paragraph([nodes.strong(text=group), f": {text}."])
            if also:
                item += _paragraph(f"tests/verify/test_proofs.py also proves every {group} obligation at {also}.")
            bullets += item
        return [bullets]


@dataclass(frozen=True)
class ObligationRow:
    group: str
    invariant: str
    kind: str
    premise: str
    transitions: tuple[str, ...]


def obligation_rows(obligations: list[Obligation] | None = None) -> list[ObligationRow]:
    """The obligations grouped by group, invariant and kind, in ``all_obligations`` order."""
    grouped: dict[tuple[str, str, str, str], list[str]] = {}
    for ob in obligations if obligations is not None else all_obligations():
        key = (ob.group, ob.invariant, ob.kind, proof_commands.premise_label(ob))
        grouped.setdefault(key, []).append(ob.transition or "")
    rows = [ObligationRow(*key, tuple(t for t in ts if t)) for key, ts in grouped.items()]
    first: dict[tuple[str, str], int] = {}  # each invariant where it first appears, and its kinds in that order
    for index, row in enumerate(rows):
        first.setdefault((row.group, row.invariant), index)
    return sorted(rows, key=lambda r: first[(r.group, r.invariant)])


def _invariant_cell(name: str) -> Cell:
    spec_name: str = abstracted_predicates().get(name, name)
    if spec_name in _predicate_modules():
        return _predicate(spec_name)
    if name == "inv_wf_abstraction":
        return [nodes.literal(text=name), " (the abstraction is well formed)"]
    return name


def group_transitions(obligations: list[Obligation]) -> dict[str, list[str]]:
    """Group -> its transitions, in the order its obligations name them."""
    found: dict[str, list[str]] = {}
    for ob in obligations:
        names = found.setdefault(ob.group, [])
        if ob.transition and ob.transition not in names:
            names.append(ob.transition)
    return found


class Z3Obligations(SphinxDirective):
    def run(self) -> list[nodes.Node]:
        obligations = all_obligations()
        transitions = group_transitions(obligations)
        counts: dict[str, int] = defaultdict(int)
        for ob in obligations:
            counts[ob.group] += 1
        result: list[nodes.Node] = [
            _paragraph(
                f"{len(obligations)} obligations: "
                + ", ".join(f"{group} {n}" for group, n in counts.items())
                + ". The transitions of each group:"
            )
        ]
        bullets = nodes.bullet_list()
        for group, names in transitions.items():
            item = nodes.list_item()
            item += _paragraph([nodes.strong(text=group), f" ({len(names)}): ", *_literal_list(names)])
            bullets += item
        result.append(bullets)
        merged: dict[tuple[str, str], list[ObligationRow]] = {}
        for row in obligation_rows(obligations):
            merged.setdefault((row.group, row.invariant), []).append(row)
        rows = []
        for (group, invariant), kinds in merged.items():
            every = transitions[group]
            parts: list[str | nodes.Node] = []
            for row in kinds:
                parts.append(("; " if parts else "") + f"{row.kind} ")
                if not row.transitions:
                    parts.append("(initial state)")
                elif list(row.transitions) == every:
                    parts.append(f"\N{MULTIPLICATION SIGN} every {group} transition ({len(every)})")
                else:
                    parts.extend(["(", *_literal_list(row.transitions), ")"])
            premises = sorted({row.premise for row in kinds if row.premise != "-"})
            count = sum(max(1, len(row.transitions)) for row in kinds)
            rows.append((group, _invariant_cell(invariant), str(count), parts, ", ".join(premises)))
        header = ("Group", "Invariant", "Count", "Obligations", "Premise of the steps")
        table = _table(header, rows, (15, 33, 9, 27, 16))
        table["classes"].append("proof-table")
        result.append(table)
        return result


# ============================================================================================
# Model checker
# ============================================================================================


def _universe(argv: Sequence[str]) -> str:
    _, _, universe = check_command.build_system(parse_check_arguments(tuple(argv)))
    return universe


class CheckerSystems(SphinxDirective):
    def run(self) -> list[nodes.Node]:
        rows = []
        for system in check_command.SYSTEMS:
            argv = () if system == "cache" else ("--system", system)
            command = " ".join(("ksspec check", *argv))
            rows.append((system, nodes.literal(text=command), _universe(argv)))
        return [_table(("System", "Command", "Default universe"), rows, (12, 28, 60))]


class VerifyChecks(SphinxDirective):
    def run(self) -> list[nodes.Node]:
        rows = [
            (
                check.name.split(" (ksspec")[0],  # the command is the next column
                nodes.literal(text=" ".join(("ksspec", *check.command))),
                _universe(check.command[1:]),
            )
            for check in CHECKS
            if check.command[:1] == ("check",)
        ]
        return [_table(("ksspec verify row", "Command", "Universe"), rows, (30, 30, 40))]


def model_checked_only() -> dict[str, list[str]]:
    """System -> the predicates its runs without ``--known-violations`` evaluate and no Z3 obligation is about."""
    proved = set(z3_obligations())
    found: dict[str, list[str]] = {}
    order = [inv.name for inv in invariants()]
    for p in probes():
        if p.run.known_violations:
            continue
        names = found.setdefault(p.run.system, [])
        names.extend(n for n in sorted(p.checks - proved, key=order.index) if n not in names)
    return found


class ModelCheckedOnly(SphinxDirective):
    def run(self) -> list[nodes.Node]:
        bullets = nodes.bullet_list()
        for system, names in model_checked_only().items():
            item = nodes.list_item()
            parts: list[nodes.Node | str] = [nodes.strong(text=system), ": "]
            for name in names:
                if len(parts) > 2:
                    parts.append(", ")
                parts.append(_predicate(name))
            item += _paragraph(parts if names else [nodes.strong(text=system), ": none"])
            bullets += item
        return [bullets]


def known_violation_runs(argv: Sequence[str]) -> tuple[str, Any]:
    """Run ``ksspec check`` with ``argv`` (no time limit); its universe text and the report."""
    args = parse_check_arguments(tuple(argv))
    system, name, universe = check_command.build_system(args)
    depth = None if args.depth <= 0 else args.depth
    return universe, explore(system, name=name, depth_limit=depth, stop_at_first=not args.keep_going)


class KnownViolationTrace(SphinxDirective):
    """``known-violation-trace`` with the arguments of ``ksspec check`` (after ``check``)."""

    required_arguments = 1
    final_argument_whitespace = True
    option_spec: ClassVar[dict[str, Any]] = {"expect": directives.unchanged_required}

    def run(self) -> list[nodes.Node]:
        argv = self.arguments[0].split()
        command = nodes.literal_block(text=" ".join(("ksspec check", *argv)), language="text")
        if self.env.app.builder.name != "html":
            return [command]  # running the checker is for the pages; the doctest build has no use for it
        universe, report = known_violation_runs(argv)
        found = [v.property for v in report.violations]
        expected = self.options.get("expect", "").split()
        if expected and sorted(found) != sorted(expected):
            raise self.error(f"ksspec check {' '.join(argv)} found {found}, the page expects {expected}")
        result: list[nodes.Node] = [command]
        result.append(_paragraph(f"Universe: {universe}; {report.states:,} states explored."))
        for violation in report.violations:
            result.append(
                _paragraph([_predicate(violation.property), f" violated after {len(violation.trace)} steps:"])
            )
            result.append(nodes.literal_block(text=violation.render(), language="text", classes=["checker-trace"]))
        return result


# ============================================================================================
# CrossHair contracts
# ============================================================================================


@dataclass(frozen=True)
class Contract:
    path: str
    qualname: str
    summary: str
    conditions: tuple[str, ...]


def _functions(tree: ast.Module) -> Iterator[tuple[str, ast.FunctionDef | ast.AsyncFunctionDef]]:
    def walk(body: list[ast.stmt], prefix: str) -> Iterator[tuple[str, ast.FunctionDef | ast.AsyncFunctionDef]]:
        for node in body:
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                yield prefix + node.name, node
                yield from walk(node.body, f"{prefix}{node.name}.")
            elif isinstance(node, ast.ClassDef):
                yield from walk(node.body, f"{prefix}{node.name}.")

    return walk(tree.body, "")


def contracts(root: Path = ROOT, roots: tuple[str, ...] = crosshair_runner.DEFAULT_ROOTS) -> list[Contract]:
    """Every function or method under ``ksspec prove``'s CrossHair roots whose docstring states
    ``pre:``/``post:`` lines, in the files :func:`conformance.cli.crosshair.modules_with_contracts` finds."""
    found = []
    for path in crosshair_runner.modules_with_contracts(root, roots):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for qualname, node in _functions(tree):
            doc = ast.get_docstring(node) or ""
            lines = tuple(line.strip() for line in doc.splitlines() if crosshair_runner._CONTRACT_LINE.match(line))
            if lines:
                summary = inspect.cleandoc(doc).split("\n\n")[0].replace("\n", " ")
                found.append(Contract(str(path.relative_to(root)), qualname, summary, lines))
    return found


class CrosshairContracts(SphinxDirective):
    def run(self) -> list[nodes.Node]:
        found = contracts()
        roots = ", ".join(f"{r}/" for r in crosshair_runner.DEFAULT_ROOTS)
        if not found:
            return [_paragraph(f"No function under {roots} states a pre:/post: contract yet.")]
        timeout = crosshair_runner.DEFAULT_PER_CONDITION_TIMEOUT
        result: list[nodes.Node] = [
            _paragraph(
                [
                    f"{len(found)} functions in {len({c.path for c in found})} files under {roots}; ksspec prove "
                    f"runs CrossHair on each file with {timeout:g} s per condition (",
                    nodes.literal(text="--crosshair-timeout"),
                    ").",
                ]
            )
        ]
        for contract in found:
            module = contract.path.removesuffix(".py").replace("/", ".")
            head = _paragraph([_func_ref(f"{module}.{contract.qualname}", contract.qualname), " in "])
            head += nodes.literal(text=contract.path)
            head += nodes.Text(": ")
            for part in _rich(contract.summary):
                head += part
            block = nodes.literal_block(text="\n".join(contract.conditions), language="python", classes=["contract"])
            result += [head, block]
        return result


def setup(app: Sphinx) -> dict[str, Any]:
    app.add_directive("z3-bounds", Z3Bounds)
    app.add_directive("z3-obligations", Z3Obligations)
    app.add_directive("checker-systems", CheckerSystems)
    app.add_directive("verify-checks", VerifyChecks)
    app.add_directive("model-checked-only", ModelCheckedOnly)
    app.add_directive("known-violation-trace", KnownViolationTrace)
    app.add_directive("crosshair-contracts", CrosshairContracts)
    return {"parallel_read_safe": True, "version": "1"}
