"""``simulation-run``: a ``ksspec simulate`` run shown in the page, produced when the page is built.

The directive's argument is the command line after ``simulate``; the HTML builder runs the command in-process (the
runs are deterministic by seed: only the wall-clock figures change from build to build) and shows its output under
the command. ``:expect-exit:`` (default 0) is the exit code the page claims; another fails the build. Other builders
show the command only.
"""

from __future__ import annotations

import io
import os
from contextlib import redirect_stdout
from typing import Any, ClassVar

from docutils import nodes
from docutils.parsers.rst import directives
from sphinx.application import Sphinx
from sphinx.util.docutils import SphinxDirective

from conformance.cli.main import main

WIDTH = 118
"""The console width of the runs shown (rich wraps its tables to it)."""


def simulate_output(argv: list[str]) -> tuple[int, str]:
    """Run ``ksspec simulate --no-progress`` with ``argv``; its exit code and output."""
    previous = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = str(WIDTH)
    buffer = io.StringIO()
    try:
        with redirect_stdout(buffer):
            code = main(["simulate", "--no-progress", *argv])
    finally:
        if previous is None:
            del os.environ["COLUMNS"]
        else:
            os.environ["COLUMNS"] = previous
    return code, buffer.getvalue()


class SimulationRun(SphinxDirective):
    required_arguments = 1
    final_argument_whitespace = True
    option_spec: ClassVar[dict[str, Any]] = {"expect-exit": directives.nonnegative_int}

    def run(self) -> list[nodes.Node]:
        argv = self.arguments[0].split()
        command = nodes.literal_block(text=" ".join(("ksspec simulate", *argv)), language="text")
        if self.env.app.builder.name != "html":
            return [command]
        code, output = simulate_output(argv)
        expected = self.options.get("expect-exit", 0)
        if code != expected:
            raise self.error(f"ksspec simulate {' '.join(argv)} exited {code}, the page expects {expected}")
        return [command, nodes.literal_block(text=output.rstrip(), language="text", classes=["simulation-run"])]


def setup(app: Sphinx) -> dict[str, Any]:
    app.add_directive("simulation-run", SimulationRun)
    return {"parallel_read_safe": True, "version": "1"}
