"""The reference adapter's modules import one another one way: refimpl_observe <- refimpl_cycle <- refimpl_adapter."""

from __future__ import annotations

import ast
from pathlib import Path

ADAPTERS = Path(__file__).resolve().parents[2] / "conformance" / "adapters"


def imported_modules(name: str) -> set[str]:
    """The modules ``conformance/adapters/<name>.py`` imports anywhere (also inside functions)."""
    tree = ast.parse((ADAPTERS / f"{name}.py").read_text())
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    return found


def test_imports_between_the_reference_adapter_modules_go_one_way() -> None:
    observe = imported_modules("refimpl_observe")
    cycle = imported_modules("refimpl_cycle")
    adapter = imported_modules("refimpl_adapter")
    assert not {"conformance.adapters.refimpl_adapter", "conformance.adapters.refimpl_cycle"} & observe
    assert "conformance.adapters.refimpl_adapter" not in cycle
    assert "conformance.adapters.refimpl_observe" in cycle
    assert {"conformance.adapters.refimpl_cycle", "conformance.adapters.refimpl_observe"} <= adapter
