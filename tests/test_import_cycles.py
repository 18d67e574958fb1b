"""Imports go one way: refimpl/ has no import cycle, and spec/ and conformance/ have only the ones listed here.

The module graph is read from the sources (``ast``, as tests/test_project.py reads the floors): every import counts,
also one under ``if TYPE_CHECKING:`` or inside a function, since both only hide a cycle from the interpreter. An
import of ``a.b.c`` also points at the packages ``a.b`` and ``a`` whose ``__init__`` it runs (not at the importing
module's own packages, which are loaded already). A cycle is a strongly connected component of that graph.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

import pytest

from tests.test_project import PACKAGES, imported_modules, package_modules

KNOWN_CYCLES: set[frozenset[str]] = set()
"""Cycles outside refimpl/ that are known and not yet untangled. A listed cycle that is gone fails the test, so
that the list does not rot."""


def module_graph(sources: Mapping[str, tuple[str, bool]]) -> dict[str, set[str]]:
    """The import graph of ``sources`` (module name -> (source, is_package)): each module to the modules among
    ``sources`` it imports, and the packages whose ``__init__`` those imports run."""
    graph: dict[str, set[str]] = {}
    for module, (source, is_package) in sources.items():
        own_package = module if is_package else module.rpartition(".")[0]
        targets: set[str] = set()
        for _, imported in imported_modules(source, module, is_package):
            parts = imported.split(".")
            while parts and ".".join(parts) not in sources:  # "from a import name": the module a
                parts.pop()
            while parts:
                target = ".".join(parts)
                if target != module and not (own_package == target or own_package.startswith(target + ".")):
                    targets.add(target)
                parts.pop()
        graph[module] = targets
    return graph


def cycles(graph: Mapping[str, Iterable[str]]) -> list[frozenset[str]]:
    """The strongly connected components of ``graph`` with more than one module (Tarjan's algorithm), each once."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[frozenset[str]] = []

    def visit(module: str) -> None:
        index[module] = low[module] = len(index)
        stack.append(module)
        on_stack.add(module)
        for target in graph.get(module, ()):
            if target not in index:
                visit(target)
                low[module] = min(low[module], low[target])
            elif target in on_stack:
                low[module] = min(low[module], index[target])
        if low[module] == index[module]:
            component = set()
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.add(member)
                if member == module:
                    break
            if len(component) > 1:
                found.append(frozenset(component))

    for module in sorted(graph):
        if module not in index:
            visit(module)
    return found


def repository_graph() -> dict[str, set[str]]:
    sources = {}
    for package in PACKAGES:
        for path, module, is_package in package_modules(package):
            sources[module] = (path.read_text(encoding="utf-8"), is_package)
    return module_graph(sources)


def describe(graph: Mapping[str, Iterable[str]], cycle: frozenset[str]) -> str:
    return "; ".join(f"{module} -> {', '.join(sorted(set(graph[module]) & cycle))}" for module in sorted(cycle))


def test_refimpl_has_no_import_cycle() -> None:
    graph = repository_graph()
    in_refimpl = [cycle for cycle in cycles(graph) if any(module.startswith("refimpl.") for module in cycle)]
    assert not in_refimpl, "import cycles in refimpl/: " + " | ".join(describe(graph, c) for c in in_refimpl)


def test_spec_and_conformance_have_only_the_known_cycles() -> None:
    graph = repository_graph()
    found = {cycle for cycle in cycles(graph) if not any(module.startswith("refimpl.") for module in cycle)}
    new = found - KNOWN_CYCLES
    assert not new, "new import cycles: " + " | ".join(describe(graph, c) for c in new)
    assert not KNOWN_CYCLES - found, f"no longer cycles, remove them from KNOWN_CYCLES: {KNOWN_CYCLES - found}"


@pytest.mark.parametrize(
    ("sources", "expected"),
    [
        # A function-local import and a TYPE_CHECKING one are imports too.
        ({"p": ("", True), "p.a": ("def f():\n    from p.b import g\n", False),
          "p.b": ("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from p.a import f\n", False)},
         [frozenset({"p.a", "p.b"})]),
        # Importing a submodule runs its package's __init__, which imports the importer.
        ({"p": ("", True), "p.q": ("from p.a import x\n", True), "p.q.m": ("", False),
          "p.a": ("import p.q.m\n", False)},
         [frozenset({"p.a", "p.q"})]),
        # A package importing its own submodules, which import siblings: no cycle.
        ({"p": ("from p.a import x\nfrom p.b import y\n", True), "p.a": ("from p.b import y\n", False),
          "p.b": ("y = 1\n", False)},
         []),
    ],
)
def test_the_graph_finds_the_cycles_it_should(sources: dict[str, tuple[str, bool]],
                                              expected: list[frozenset[str]]) -> None:
    assert cycles(module_graph(sources)) == expected
