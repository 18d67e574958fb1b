"""Sphinx configuration for the kube-scheduler-spec documentation."""

import sys
from pathlib import Path

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
    "refimpl.scheduler",
    "refimpl.scheduler.framework",
    "refimpl.scheduler.plugins",
    "refimpl.simulator",
]

html_theme = "furo"
html_title = "kube-scheduler-spec"
html_static_path = ["_static"]
html_css_files = ["spec.css"]
