"""The invariant catalogue and the traceability matrix, generated from the spec and the test suite.

Invariants are the functions named ``inv_*``, ``trans_*`` and ``liveness_*`` of the invariant
modules (:data:`INVARIANT_MODULES`); where each holds comes from the registry it is in. For each,
the matrix gives what checks it, found mechanically:

- **Hypothesis tests**: every top-level function or class under ``tests/`` whose code (or a
  module-level helper of the same file that it calls, transitively) names the predicate or a
  registry holding it, with names resolved through the file's imports. A registry filtered by
  ``ALWAYS`` (``inv.holds == ALWAYS``, ``violated_state_invariants(..., contract=False)``) counts
  only for its ``always`` entries. A unit is a Hypothesis test if it is a ``RuleBasedStateMachine``
  (also through a base class in ``tests/``) or uses ``@given``; others are listed as examples.
- **Z3 obligations**: :func:`spec.verify.proof_groups.all_obligations`, by the spec predicate each
  abstract invariant stands for (:data:`spec.verify.cache.symbolic.INVARIANTS`,
  :data:`spec.verify.dispatcher.symbolic.QUEUE_INVARIANTS`) or, for a transition property, by the
  predicate it names.
- **Model checker**: the ``ksspec check`` runs (every system, mode, TTL and
  ``--known-violations``) that evaluate the predicate, found by running each
  (:mod:`checker_coverage`), and which of those ``ksspec verify`` makes.
- **Conformance vectors**: vectors evaluate no predicate; they hold an implementation to the
  spec's observation after every step. The count is of the vectors of the invariant's area, from
  ``conformance/vectors/manifest.json``.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import json
import re
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any, Final

import doc_tables
from checker_coverage import Attribution, attributions
from docutils import nodes
from sphinx import addnodes
from sphinx.application import Sphinx
from sphinx.util.docutils import SphinxDirective

ROOT: Final = Path(__file__).resolve().parent.parent.parent
TESTS: Final = ROOT / "tests"
MANIFEST: Final = ROOT / "conformance" / "vectors" / "manifest.json"

INVARIANT_MODULES: Final = (
    "spec.cache.invariants", "spec.dispatcher.invariants", "spec.cycle.invariants", "spec.cluster.invariants",
    "spec.queue.invariants"
)
PREFIXES: Final = ("inv_", "trans_", "liveness_")
AREAS: Final = {
    "spec.cache.invariants": ("cache", "snapshot", "node_tree"),
    "spec.dispatcher.invariants": ("dispatcher",),
    "spec.cycle.invariants": ("cycle",),
    "spec.cluster.invariants": ("cycle",),
    "spec.queue.invariants": ("queue",),
}
ALWAYS_NAME: Final = ("spec.cache.invariants", "ALWAYS")

QualName = tuple[str, str]
"""(module, name) of a predicate or registry."""


@dataclass(frozen=True)
class Invariant:
    module: str
    function: Callable[..., Any]
    holds: str

    @property
    def name(self) -> str:
        return self.function.__name__

    @property
    def qualname(self) -> QualName:
        return (self.module, self.name)


def _registries() -> dict[QualName, list[tuple[QualName, str]]]:
    """Every registry: its entries, each with where it holds."""
    from spec.cache import invariants
    from spec.cluster import invariants as cluster_invariants
    from spec.cycle import invariants as cycle_invariants
    from spec.dispatcher import invariants as call_queue_invariants
    from spec.queue import invariants as queue_invariants
    from spec.verify.cache import symbolic

    state = [(("spec.cache.invariants", inv.name), inv.holds) for inv in invariants.STATE_INVARIANTS]
    return {
        ("spec.cache.invariants", "STATE_INVARIANTS"): state,
        ("spec.cache.invariants", "violated_state_invariants"): state,
        ("spec.cache.invariants", "KNOWN_VIOLATIONS"): [
            (("spec.cache.invariants", p.__name__), "known violation") for p in invariants.KNOWN_VIOLATIONS
        ],
        ("spec.dispatcher.invariants", "CALL_QUEUE_INVARIANTS"): [
            (("spec.dispatcher.invariants", p.__name__), "always") for p in call_queue_invariants.CALL_QUEUE_INVARIANTS
        ],
        ("spec.dispatcher.invariants", "CALL_QUEUE_KNOWN_VIOLATIONS"): [
            (("spec.dispatcher.invariants", p.__name__), "known violation")
            for p in call_queue_invariants.CALL_QUEUE_KNOWN_VIOLATIONS
        ],
        ("spec.cycle.invariants", "CYCLE_INVARIANTS"): [
            (("spec.cycle.invariants", p.__name__), "always") for p in cycle_invariants.CYCLE_INVARIANTS
        ],
        ("spec.cluster.invariants", "CLUSTER_INVARIANTS"): [
            (("spec.cluster.invariants", p.__name__), "always") for p in cluster_invariants.CLUSTER_INVARIANTS
        ],
        ("spec.cluster.invariants", "OVERCOMMIT_INVARIANTS"): [
            (("spec.cluster.invariants", p.__name__), "one scheduler, TTL 0; known violation with several")
            for p in cluster_invariants.OVERCOMMIT_INVARIANTS
            if p.__module__ == "spec.cluster.invariants"
        ],
        ("spec.queue.invariants", "KNOWN_VIOLATIONS"): [
            (("spec.queue.invariants", name), f"known violation ({setting})")
            for name, setting in queue_invariants.KNOWN_VIOLATIONS.items()
        ],
        ("spec.queue.invariants", "QUEUE_INVARIANTS"): [
            (("spec.queue.invariants", p.__name__), "always") for p in queue_invariants.QUEUE_INVARIANTS
        ],
        ("spec.queue.invariants", "WORLD_INVARIANTS"): [
            (("spec.queue.invariants", p.__name__), "always") for p in queue_invariants.WORLD_INVARIANTS
        ],
        ("spec.verify.cache.symbolic", "INVARIANTS"): [
            (("spec.cache.invariants", inv.spec_predicate.__name__), inv.premise)
            for inv in symbolic.INVARIANTS
            if inv.spec_predicate is not None
        ],
    }


def invariants() -> list[Invariant]:
    """Every invariant predicate, module by module in source order, with where it holds."""
    holds: dict[QualName, str] = {}
    for entries in _registries().values():
        for name, where in entries:
            holds.setdefault(name, where)
    found = []
    for module_name in INVARIANT_MODULES:
        module = importlib.import_module(module_name)
        functions = [
            f
            for name, f in vars(module).items()
            if inspect.isfunction(f) and f.__module__ == module_name and name.startswith(PREFIXES)
        ]
        for f in sorted(functions, key=lambda f: f.__code__.co_firstlineno):
            default = "transition property" if f.__name__.startswith("trans_") else "conditional (see its meaning)"
            found.append(Invariant(module_name, f, holds.get((module_name, f.__name__), default)))
    return found


# ============================================================================================
# Tests that check each invariant
# ============================================================================================


@dataclass
class _Unit:
    """A top-level function or class of a test file."""

    path: str
    name: str
    node: ast.stmt  # a FunctionDef, AsyncFunctionDef or ClassDef
    hypothesis: bool = False
    bases: list[QualName] = field(default_factory=list)


@dataclass(frozen=True)
class TestReference:
    path: str
    unit: str
    hypothesis: bool
    via: str | None
    """The registry the unit names, or None if it names the predicate itself."""

    @property
    def label(self) -> str:
        return f"{self.path}::{self.unit}"


def _module_of(path: Path) -> str:
    return ".".join(path.relative_to(ROOT).with_suffix("").parts)


def _imports(tree: ast.Module) -> dict[str, QualName | str]:
    """Local name -> (module, name) for ``from m import n``, or module name for ``import m``/``from p import m``."""
    names: dict[str, QualName | str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            for alias in node.names:
                candidate = f"{node.module}.{alias.name}"
                is_module = _safe_module(candidate) and _is_module(candidate)
                names[alias.asname or alias.name] = candidate if is_module else (node.module, alias.name)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                top = alias.name.split(".")[0]
                names[alias.asname or top] = alias.name if alias.asname else top
    return names


def _is_module(name: str) -> bool:
    """Whether ``name`` is a module of this project (by its file: nothing is imported)."""
    path = ROOT.joinpath(*name.split("."))
    return path.with_suffix(".py").is_file() or (path / "__init__.py").is_file()


def _safe_module(name: str) -> bool:
    return name.startswith(("spec.", "tests.", "conformance.", "refimpl."))


def _references(node: ast.AST, imports: dict[str, QualName | str], module: str) -> Iterator[QualName]:
    """Every (module, name) that ``node`` names, resolved through the imports; local names as (module, name)."""
    for child in ast.walk(node):
        if isinstance(child, ast.Name):
            target = imports.get(child.id)
            yield target if isinstance(target, tuple) else (module, child.id)
        elif isinstance(child, ast.Attribute) and isinstance(child.value, ast.Name):
            target = imports.get(child.value.id)
            if isinstance(target, str):
                yield (target, child.attr)


def _filters_to_always(node: ast.AST, imports: dict[str, QualName | str], module: str) -> bool:
    if ALWAYS_NAME in set(_references(node, imports, module)):
        return True
    for child in ast.walk(node):
        if isinstance(child, ast.Call):
            name = child.func.id if isinstance(child.func, ast.Name) else getattr(child.func, "attr", "")
            if name == "violated_state_invariants" and any(
                k.arg == "contract" and isinstance(k.value, ast.Constant) and k.value.value is False
                for k in child.keywords
            ):
                return True
    return False


def _is_given(decorator: ast.expr) -> bool:
    target = decorator.func if isinstance(decorator, ast.Call) else decorator
    return (isinstance(target, ast.Name) and target.id == "given") or (
        isinstance(target, ast.Attribute) and target.attr == "given"
    )


@cache
def test_references() -> dict[QualName, tuple[TestReference, ...]]:
    """For every predicate, the test units that check it (see the module docstring)."""
    registries = _registries()
    units: dict[QualName, _Unit] = {}
    per_file = []
    for path in sorted(TESTS.rglob("*.py")):
        if "crosshair_examples" in path.parts or path.name.startswith("test_docs_"):
            continue  # example inputs of the CrossHair tests, and the documentation's own tests
        tree = ast.parse(path.read_text(encoding="utf-8"))
        module = _module_of(path)
        imports = _imports(tree)
        helpers = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)}
        local = []
        for node in tree.body:
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                unit = _Unit(str(path.relative_to(ROOT)), node.name, node)
                if isinstance(node, ast.ClassDef):
                    unit.bases = [
                        r for base in node.bases for r in _references(base, imports, module)
                    ]
                    unit.hypothesis = any(name == "RuleBasedStateMachine" for _, name in unit.bases) or any(
                        _is_given(d) for m in node.body if isinstance(m, ast.FunctionDef) for d in m.decorator_list
                    )
                else:
                    unit.hypothesis = any(_is_given(d) for d in node.decorator_list)
                units[(module, node.name)] = unit
                local.append(unit)
        per_file.append((module, imports, helpers, local))
    changed = True
    while changed:  # a class whose base is a Hypothesis machine in tests/ is one too
        changed = False
        for unit in units.values():
            if not unit.hypothesis and any(units.get(b) is not None and units[b].hypothesis for b in unit.bases):
                unit.hypothesis = changed = True
    found: dict[QualName, set[TestReference]] = defaultdict(set)
    for module, imports, helpers, local in per_file:
        for unit in local:
            if unit.name in helpers and not unit.name.startswith("test"):
                continue  # a helper is reached through the tests that call it
            reached, frontier = {unit.name}, [unit.node]
            names: set[QualName] = set()
            always_only = False
            while frontier:
                node = frontier.pop()
                refs = set(_references(node, imports, module))
                names |= refs
                always_only |= _filters_to_always(node, imports, module)
                for m, n in refs:
                    if m == module and n in helpers and n not in reached:
                        reached.add(n)
                        frontier.append(helpers[n])
            for name in names:
                if name in registries:
                    for predicate, holds in registries[name]:
                        if always_only and name[1] in ("STATE_INVARIANTS", "violated_state_invariants") and (
                            holds != "always"
                        ):
                            continue
                        found[predicate].add(TestReference(unit.path, unit.name, unit.hypothesis, name[1]))
                else:
                    found[name].add(TestReference(unit.path, unit.name, unit.hypothesis, None))
    return {name: tuple(sorted(refs, key=lambda r: (not r.hypothesis, r.label))) for name, refs in found.items()}


# ============================================================================================
# Z3, model checker, vectors
# ============================================================================================


def abstracted_predicates() -> dict[str, str]:
    """Abstract invariant name -> the spec predicate it stands for, for every Z3 encoding."""
    from spec.verify.cache import symbolic
    from spec.verify.cluster import symbolic as cluster_symbolic
    from spec.verify.cycle import symbolic as cycle_symbolic
    from spec.verify.dispatcher import symbolic as dispatcher_symbolic

    found = {inv.name: inv.spec_predicate.__name__ for inv in symbolic.INVARIANTS if inv.spec_predicate}
    cluster = cluster_symbolic.CLUSTER_PROOF_INVARIANTS
    found.update({inv.name: inv.spec_predicate.__name__ for inv in cluster if inv.spec_predicate})
    found.update({inv.name: inv.spec_predicate.__name__ for inv in dispatcher_symbolic.QUEUE_INVARIANTS})
    found.update(
        {inv.name: inv.spec_predicate.__name__ for inv in cycle_symbolic.PIPELINE_INVARIANTS if inv.spec_predicate}
    )
    return found


@cache
def z3_obligations() -> dict[str, list[Any]]:
    """Spec predicate name -> the obligations about it. An obligation about a transition property
    names the predicate itself (the abstract one has the spec one's name); the dispatcher's
    "no missing calls entry" and the well-formedness of the cache abstraction name none."""
    from spec.verify.proof_groups import all_obligations

    spec_name = abstracted_predicates()
    found: dict[str, list[Any]] = defaultdict(list)
    for obligation in all_obligations():
        found[spec_name.get(obligation.invariant, obligation.invariant)].append(obligation)
    return found


OBLIGATION_KINDS: Final = ("base", "step", "expiry", "relevance", "total")


def z3_summary(name: str) -> str:
    obligations = z3_obligations().get(name, [])
    if not obligations:
        return "none"
    kinds = Counter(o.kind for o in obligations)
    unknown = set(kinds) - set(OBLIGATION_KINDS)
    if unknown:
        raise ValueError(f"obligation kinds {sorted(unknown)} are not in OBLIGATION_KINDS; add them")
    premise = {o.premise for o in obligations}
    parts = [f"{kinds[k]} {k}" for k in OBLIGATION_KINDS if kinds[k]]
    return f"{len(obligations)} ({', '.join(parts)}); premise: {', '.join(sorted(premise))}"


def model_checker(invariant: Invariant) -> list[Attribution]:
    """The ``ksspec check`` commands that evaluate ``invariant`` (see :mod:`checker_coverage`)."""
    return attributions(invariant.name)


@cache
def vector_counts() -> Counter[str]:
    manifest = json.loads(MANIFEST.read_text(encoding="utf-8"))
    return Counter(v["area"] for v in manifest["vectors"])


def vectors_summary(invariant: Invariant) -> str:
    counts = vector_counts()
    areas = AREAS[invariant.module]
    total = sum(counts[a] for a in areas)
    if total == 0:
        return f"none yet (area {', '.join(areas)})"
    return ", ".join(f"{a} {counts[a]}" for a in areas if counts[a]) + f" ({total}, indirect)"


# ============================================================================================
# Directives
# ============================================================================================


def _func_ref(module: str, name: str) -> nodes.Node:
    ref = addnodes.pending_xref(
        "", refdomain="py", reftype="func", reftarget=f"{module}.{name}", refexplicit=False, refwarn=False
    )
    ref += nodes.literal(text=name)
    return ref


def _cell(*children: nodes.Node | str) -> nodes.entry:
    entry = nodes.entry()
    paragraph = nodes.paragraph()
    for child in children:
        paragraph += nodes.Text(child) if isinstance(child, str) else child
    entry += paragraph
    return entry


def _list_cell(items: Iterable[nodes.Node | str]) -> nodes.entry:
    """A bullet list in a cell; "none" when empty."""
    entry = nodes.entry()
    items = list(items)
    if not items:
        entry += nodes.paragraph(text="none")
        return entry
    bullets = nodes.bullet_list()
    for item in items:
        li = nodes.list_item()
        paragraph = nodes.paragraph()
        paragraph += nodes.Text(item) if isinstance(item, str) else item
        li += paragraph
        bullets += li
    entry += bullets
    return entry


def _table(header: tuple[str, ...], widths: tuple[int, ...], rows: list[list[nodes.entry]]) -> nodes.table:
    return doc_tables.table([_cell(title) for title in header], rows, widths)


def _summary(f: Callable[..., Any]) -> str:
    return (inspect.getdoc(f) or "").split("\n\n")[0].replace("\n", " ")


INLINE: Final = re.compile(r"``(?P<code>[^`]+)``|:[a-z:]+:`~?(?P<role>[^`<]+?)(?: <[^>]+>)?`")


def _rich(text: str) -> list[nodes.Node]:
    """A docstring sentence as text and literals: ``code`` and :role:`target` become code."""
    parts: list[nodes.Node] = []
    position = 0
    for match in INLINE.finditer(text):
        parts.append(nodes.Text(text[position : match.start()]))
        shown = match["code"] or match["role"].split(".")[-1]
        parts.append(nodes.literal(text=shown))
        position = match.end()
    parts.append(nodes.Text(text[position:]))
    return parts


class InvariantCatalogue(SphinxDirective):
    """``invariant-catalogue``: every invariant, where it holds, and its docstring's meaning."""

    def run(self) -> list[nodes.Node]:
        rows = [
            [_cell(_func_ref(inv.module, inv.name)), _cell(inv.holds), _cell(*_rich(_summary(inv.function)))]
            for inv in invariants()
        ]
        return [_table(("Invariant", "Holds", "Meaning"), (3, 2, 7), rows)]


def _attribution(attribution: Attribution) -> nodes.Node:
    """The run in short words (the system, then its flags and TTL), and a dagger if ``ksspec verify`` makes it."""
    return nodes.Text(attribution.label + (" †" if attribution.in_verify else ""))


def _unit_text(ref: TestReference) -> str:
    return ref.unit + (f" (via {ref.via})" if ref.via else "")


class TraceabilityMatrix(SphinxDirective):
    """``traceability-matrix``: for every invariant, what checks it; the tests in full follow."""

    def run(self) -> list[nodes.Node]:
        references = test_references()
        rows = []
        for inv in invariants():
            refs = references.get(inv.qualname, ())
            machines = sorted({ref.unit for ref in refs if ref.hypothesis})
            examples = [ref for ref in refs if not ref.hypothesis]
            tests: list[nodes.Node | str] = [nodes.literal(text=m) for m in machines]
            if examples:
                tests.append(f"{len(examples)} example test{'s' if len(examples) > 1 else ''}")
            rows.append(
                [
                    _cell(_func_ref(inv.module, inv.name)),
                    _list_cell(tests),
                    _cell(z3_summary(inv.name)),
                    _list_cell(_attribution(a) for a in model_checker(inv)),
                    _cell(vectors_summary(inv)),
                ]
            )
        header = ("Invariant", "Hypothesis tests", "Z3 obligations", "Model checker", "Conformance vectors")
        table = _table(header, (31, 27, 13, 14, 15), rows)
        table["classes"] += ["trace-matrix", "colwidths-given"]  # the widths are percentages of the page
        return [table, *self.details(references)]

    def details(self, references: dict[QualName, tuple[TestReference, ...]]) -> list[nodes.Node]:
        """Every test unit per invariant, by file: the precise list behind the matrix's column."""
        result: list[nodes.Node] = []
        section = nodes.rubric(text="Every test, per invariant")
        result.append(section)
        outer = nodes.bullet_list(classes=["trace-details"])
        for inv in invariants():
            item = nodes.list_item()
            head = nodes.paragraph()
            head += _func_ref(inv.module, inv.name)
            item += head
            by_file: dict[str, list[TestReference]] = defaultdict(list)
            for ref in references.get(inv.qualname, ()):
                by_file[ref.path].append(ref)
            inner = nodes.bullet_list()
            for path, refs in by_file.items():
                line = nodes.list_item()
                paragraph = nodes.paragraph()
                paragraph += nodes.literal(text=path)
                hypothesis = [_unit_text(r) for r in refs if r.hypothesis]
                examples = [_unit_text(r) for r in refs if not r.hypothesis]
                text = ", ".join(hypothesis)
                if examples:
                    text += ("; " if text else "") + "example: " + ", ".join(examples)
                paragraph += nodes.Text(": " + text)
                line += paragraph
                inner += line
            if not by_file:
                none = nodes.list_item()
                none += nodes.paragraph(text="no test names it")
                inner += none
            item += inner
            outer += item
        result.append(outer)
        return result


def setup(app: Sphinx) -> dict[str, Any]:
    app.add_directive("invariant-catalogue", InvariantCatalogue)
    app.add_directive("traceability-matrix", TraceabilityMatrix)
    return {"parallel_read_safe": True, "version": "1"}
