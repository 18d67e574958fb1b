"""The compatibility matrix page: ``% compatibility-matrix`` in a page becomes the matrix of the gzip-compressed JSON
reports in ``docs/results/`` (``ksspec report``'s Markdown, :mod:`conformance.matrix`), read when the page is built."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Final

from sphinx.application import Sphinx

from conformance.matrix import markdown, read_reports

MARKER: Final = "% compatibility-matrix"
RESULTS: Final = Path(__file__).resolve().parent.parent / "results"


def matrix_markdown(directory: Path = RESULTS) -> str:
    """The matrix of every report in ``directory`` (``*.json.gz``), by file name."""
    return markdown(read_reports(sorted(directory.glob("*.json.gz"))))


def on_source_read(app: Sphinx, docname: str, source: list[str]) -> None:
    """Replace the marker line by the matrix."""
    if MARKER in source[0]:
        source[0] = source[0].replace(MARKER, matrix_markdown())


def setup(app: Sphinx) -> dict[str, Any]:
    app.connect("source-read", on_source_read)
    return {"parallel_read_safe": True, "version": "1"}
