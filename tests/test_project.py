"""Project-level checks: the three packages import, and imports only point down the floors.

spec/ imports nothing from refimpl/ or conformance/; refimpl/ takes from spec/ only the API object types and the
shared vocabulary (spec.objects, spec.quantities, spec.frozenmap, spec.errors, spec.versions) and nothing from
conformance/: spec.resources stays out so that the spec's pod request computation remains an independent oracle.
See docs/overview.md.
"""

import ast
import importlib
import importlib.util
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("spec", "refimpl", "conformance")
REFIMPL_ALLOWED_SPEC_MODULES = ("spec.objects", "spec.quantities", "spec.frozenmap", "spec.errors", "spec.versions")
DYNAMIC_IMPORT_FUNCTIONS = ("import_module", "__import__")

# An import rule takes an absolute dotted module name and answers True if importing it is a violation.
ImportRule = Callable[[str], bool]


def is_within(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


def spec_may_not_import(module: str) -> bool:
    return is_within(module, "refimpl") or is_within(module, "conformance")


def refimpl_may_not_import(module: str) -> bool:
    if is_within(module, "conformance"):
        return True
    if is_within(module, "spec"):
        return not any(is_within(module, allowed) for allowed in REFIMPL_ALLOWED_SPEC_MODULES)
    return False


def imported_modules(source: str, module: str, is_package: bool) -> Iterator[tuple[int, str]]:
    """Yield (line, absolute dotted name) for every import in ``source``, the source of ``module``.

    ``from a import b`` yields ``a.b``: b may be a submodule or a name defined in a, and either way the
    import reaches into ``a``. Relative imports are resolved against ``module``; one that climbs above
    the top-level package yields ``<relative import beyond top-level package>``. Calls of
    ``import_module("x")`` or ``__import__("x")`` with a literal name count as imports of x.
    """
    package = module if is_package else module.rpartition(".")[0]
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                try:
                    base = importlib.util.resolve_name("." * node.level + base, package)
                except ImportError:
                    yield node.lineno, "<relative import beyond top-level package>"
                    continue
            for alias in node.names:
                yield node.lineno, base if alias.name == "*" else f"{base}.{alias.name}"
        elif isinstance(node, ast.Call) and node.args:
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
            first = node.args[0]
            if name in DYNAMIC_IMPORT_FUNCTIONS and isinstance(first, ast.Constant) and isinstance(first.value, str):
                yield node.lineno, first.value


def import_violations(
    source: str, module: str, rule: ImportRule, *, is_package: bool = False, filename: str = "<source>"
) -> list[str]:
    """Every import in ``source`` that ``rule`` forbids, as ``file:line imports name`` messages."""
    violations = []
    for line, imported in imported_modules(source, module, is_package):
        if imported.startswith("<") or rule(imported):
            violations.append(f"{filename}:{line} imports {imported}")
    return violations


def package_modules(package: str) -> list[tuple[Path, str, bool]]:
    """(path, dotted module name, is_package) for every .py file under the package's directory."""
    modules = []
    for path in sorted((REPO_ROOT / package).rglob("*.py")):
        parts = path.relative_to(REPO_ROOT).with_suffix("").parts
        is_package = parts[-1] == "__init__"
        modules.append((path, ".".join(parts[:-1] if is_package else parts), is_package))
    return modules


def package_violations(package: str, rule: ImportRule) -> list[str]:
    modules = package_modules(package)
    assert modules, f"{package}/ has no .py files under {REPO_ROOT}: nothing to check"
    violations = []
    for path, module, is_package in modules:
        violations += import_violations(
            path.read_text(encoding="utf-8"),
            module,
            rule,
            is_package=is_package,
            filename=str(path.relative_to(REPO_ROOT)),
        )
    return violations


@pytest.mark.parametrize("package", PACKAGES)
def test_package_imports(package: str) -> None:
    importlib.import_module(package)


def test_spec_imports_nothing_from_refimpl_or_conformance() -> None:
    assert package_violations("spec", spec_may_not_import) == []


def test_refimpl_imports_only_api_object_modules_from_spec() -> None:
    assert package_violations("refimpl", refimpl_may_not_import) == []


@pytest.mark.parametrize(
    "source",
    [
        "import refimpl",
        "import refimpl.cache.cache as c",
        "from refimpl.cache import Cache",
        "from refimpl import cache",
        "import conformance.cli.main",
        "from conformance.format import Vector",
        "def f():\n    from refimpl import sim\n",
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from refimpl.cache import Cache\n",
        "import importlib\nimportlib.import_module('refimpl.cache')",
        "__import__('conformance')",
        "from ... import refimpl",
    ],
)
def test_spec_checker_flags_imports_from_higher_floors(source: str) -> None:
    assert import_violations(source, "spec.verify.explorer", spec_may_not_import) != []


@pytest.mark.parametrize(
    "source",
    [
        "from spec.objects import Pod",
        "from . import objects",
        "from .invariants import inv_no_double_booking",
        "from ..cache import assume_pod",
        "import dataclasses\nfrom collections.abc import Mapping",
        "import z3",
        "import refimpl_like_name_elsewhere",
    ],
)
def test_spec_checker_accepts_imports_within_spec(source: str) -> None:
    assert import_violations(source, "spec.verify.explorer", spec_may_not_import) == []


@pytest.mark.parametrize(
    "source",
    [
        "import spec",
        "from spec import Pod",
        "from spec import cache",
        "from spec.cache.cache import assume_pod",
        "import spec.cache.invariants",
        "from spec.objects import Pod\nfrom spec.cache.nodeinfo import NodeInfo",
        "from spec import objects, cycle",
        "from spec.resources import Resource",
        "from spec import objects, resources, quantities",
        "import spec.cache.nodeinfo",
        "from spec.cache.snapshot import update_snapshot",
        "from conformance.cli.main import main",
        "from ... import spec",
        "import importlib\nimportlib.import_module('spec.cache.cache')",
    ],
)
def test_refimpl_checker_flags_spec_internals_and_conformance(source: str) -> None:
    assert import_violations(source, "refimpl.cache.cache", refimpl_may_not_import) != []


@pytest.mark.parametrize(
    "source",
    [
        "from spec.objects import Pod, Node",
        "from spec.errors import CacheError, ErrorKind",
        "from spec.versions import V1_35, VersionProfile",
        "from spec.frozenmap import FrozenMap",
        "from spec import objects, quantities, errors",
        "import spec.quantities",
        "from spec.objects.pod import Pod",
        "from .node_info import NodeInfo",
        "from ..dispatcher import call_queue",
        "import heapq",
    ],
)
def test_refimpl_checker_accepts_api_objects_and_own_modules(source: str) -> None:
    assert import_violations(source, "refimpl.cache.cache", refimpl_may_not_import) == []
