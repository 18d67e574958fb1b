"""The refimpl API reference renders every package of refimpl/, each module once."""

from __future__ import annotations

import runpy
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent.parent / "docs" / "_ext"))

from refimpl_api import modules_of

ROOT = Path(__file__).parent.parent


def _packages_on_disk() -> set[str]:
    return {
        ".".join(init.parent.relative_to(ROOT).parts)
        for init in (ROOT / "refimpl").rglob("__init__.py")
        if init.parent != ROOT / "refimpl"
    }


def test_every_refimpl_package_is_in_the_reference() -> None:
    configured = runpy.run_path(str(ROOT / "docs" / "conf.py"))["refimpl_packages"]
    assert set(configured) == _packages_on_disk()
    assert len(configured) == len(set(configured))


def test_no_module_is_rendered_twice() -> None:
    configured = runpy.run_path(str(ROOT / "docs" / "conf.py"))["refimpl_packages"]
    rendered = [module for package in configured for module in [package, *modules_of(package)]]
    assert len(rendered) == len(set(rendered))
    modules_on_disk = {
        ".".join(path.relative_to(ROOT).with_suffix("").parts)
        for path in (ROOT / "refimpl").rglob("*.py")
        if path.name != "__init__.py"
    }
    assert modules_on_disk <= set(rendered)
