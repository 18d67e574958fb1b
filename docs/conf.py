"""Sphinx configuration for the kube-scheduler-spec documentation."""

project = "kube-scheduler-spec"
author = "kube-scheduler-spec contributors"
release = "0.1.0"

extensions = [
    "myst_parser",
    "sphinx.ext.autodoc",
    "sphinx.ext.napoleon",
    "sphinx.ext.doctest",
    "sphinx.ext.viewcode",
]

root_doc = "index"
exclude_patterns = ["_build"]
nitpicky = False

myst_enable_extensions = ["colon_fence"]

autodoc_member_order = "bysource"
autodoc_typehints = "description"

html_theme = "furo"
html_title = "kube-scheduler-spec"
