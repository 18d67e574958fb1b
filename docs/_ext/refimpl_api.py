"""``refimpl-api``: the API reference of every package in the ``refimpl_packages`` setting (in a MyST page).

Each package gets its docstring and then every module in it, in name order, with its public
members. Adding a package to the reference is one line in ``conf.py``'s ``refimpl_packages``.
"""

from __future__ import annotations

import importlib
import pkgutil
from typing import Any

from docutils import nodes
from docutils.statemachine import StringList
from sphinx.application import Sphinx
from sphinx.util.docutils import SphinxDirective


def modules_of(package: str) -> list[str]:
    """``package``'s modules, in name order; not its subpackages (each is an entry of its own)."""
    path = importlib.import_module(package).__path__
    infos = sorted(pkgutil.iter_modules(path), key=lambda i: i.name)
    return [f"{package}.{info.name}" for info in infos if not info.ispkg]


class RefimplAPI(SphinxDirective):
    def run(self) -> list[nodes.Node]:
        lines: list[str] = []
        for package in self.config.refimpl_packages:
            lines += [f".. rubric:: Package ``{package}``", "   :class: refimpl-package", ""]
            lines += [f".. automodule:: {package}", "   :no-index:", ""]
            for module in modules_of(package):
                lines += [f".. rubric:: ``{module}``", "   :class: refimpl-module", ""]
                lines += [f".. automodule:: {module}", "   :members:", "   :show-inheritance:", ""]
        # The directive lives in a MyST page, whose nested parser reads Markdown: hand it the RST in a fence.
        fenced = ["```{eval-rst}", *lines, "```"]
        container = nodes.container(classes=["refimpl-api"])
        self.state.nested_parse(StringList(fenced, source="refimpl-api"), self.content_offset, container)
        return [container]


def setup(app: Sphinx) -> dict[str, Any]:
    app.add_config_value("refimpl_packages", ["refimpl.cache", "refimpl.dispatcher"], "env")
    app.add_directive("refimpl-api", RefimplAPI)
    return {"parallel_read_safe": True, "version": "1"}
