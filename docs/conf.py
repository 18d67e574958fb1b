"""Sphinx configuration for the kube-scheduler-spec documentation."""

import re
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent / "_ext"))

project = "kube-scheduler-spec"
author = "kube-scheduler-spec contributors"
release = "0.1.0"

extensions = [
    "myst_parser",
    "sphinx.ext.autodoc",
    "sphinx.ext.napoleon",
    "sphinx.ext.doctest",
    "sphinx.ext.viewcode",
    "spec_tables",
    "spec_diagrams",
    "k8s_correspondence",
    "traceability",
    "proofs",
    "refimpl_api",
    "simulation_runs",
    "adapter_contract",
    "compatibility",
]

root_doc = "index"
exclude_patterns = ["_build"]
nitpicky = False
# spec and refimpl both define NodeInfo, Snapshot, ...: an unqualified annotation in refimpl (an instance
# attribute's, which autodoc cannot evaluate) then has two targets. The link goes to the first; no warning.
suppress_warnings = ["ref.python"]

myst_enable_extensions = ["colon_fence", "deflist"]

autodoc_member_order = "bysource"
autodoc_typehints = "description"

# The refimpl packages whose API reference docs/refimpl.md renders; a new package is one more entry.
refimpl_packages = [
    "refimpl.cache",
    "refimpl.dispatcher",
    "refimpl.kubelet",
    "refimpl.scheduler",
    "refimpl.scheduler.framework",
    "refimpl.scheduler.plugins",
    "refimpl.simulator",
]

html_theme = "furo"
html_title = "kube-scheduler-spec"
html_static_path = ["_static"]
html_css_files = ["spec.css"]


_CONTRACT_LINE = re.compile(r"^\s*(pre|post)(\[[^\]]*\])?:")


def _contracts_as_code(app: object, what: str, name: str, obj: object, options: object, lines: list[str]) -> None:
    """Render a docstring's PEP 316 ``pre:`` / ``post:`` lines (CrossHair's contracts) as a code block: they are
    Python, and read as reStructuredText their ``*args`` and ``__return__`` would be markup."""
    result: list[str] = []
    block: list[str] = []
    for line in [*lines, ""]:
        if _CONTRACT_LINE.match(line):
            block.append(line.strip())
            continue
        if block:
            result += ["", ".. code-block:: python", "", *(f"   {contract}" for contract in block), ""]
            block = []
        result.append(line)
    lines[:] = result[:-1]


def setup(app: Any) -> None:
    app.connect("autodoc-process-docstring", _contracts_as_code)
