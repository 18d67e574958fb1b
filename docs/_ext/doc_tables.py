"""The table node every extension here builds: a header row, body rows, column widths, the ``spec-table`` class.

Built directly as docutils nodes: MyST pages would parse RST table text as Markdown. Each extension
makes its own cells (:class:`docutils.nodes.entry`); this module only lays them out.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from docutils import nodes


def table(
    header: Sequence[nodes.entry],
    rows: Iterable[Sequence[nodes.entry]],
    widths: Sequence[int] | None = None,
    classes: Sequence[str] = ("spec-table",),
) -> nodes.table:
    """A table with the ``header`` cells as its head row and one body row per item of ``rows``.

    ``widths`` are the relative column widths (all equal when None). Fails with ``ValueError`` when
    ``widths`` does not give one width per header cell.
    """
    if widths is not None and len(widths) != len(header):
        raise ValueError(f"table: {len(widths)} column widths for {len(header)} columns")
    group = nodes.tgroup(cols=len(header))
    for width in widths if widths is not None else [1] * len(header):
        group += nodes.colspec(colwidth=width)
    head = nodes.thead()
    head_row = nodes.row()
    for title in header:
        head_row += title
    head += head_row
    body = nodes.tbody()
    for cells in rows:
        row = nodes.row()
        for cell in cells:
            row += cell
        body += row
    group += head
    group += body
    result = nodes.table(classes=list(classes))
    result += group
    return result
