"""Sphinx directives that render tables from the spec's own data, so the pages cannot drift from it.

- ``pod-state-table``: :data:`spec.cache.lifecycle.POD_TRANSITIONS`.
- ``version-profiles``: :data:`spec.versions.PROFILES`.
- ``call-transition-table``: :data:`spec.dispatcher.lifecycle.CALL_TRANSITIONS`.
- ``pipeline-transition-table``: :data:`spec.cycle.lifecycle.CYCLE_POD_TRANSITIONS`.
- ``queue-transition-table``: :data:`spec.queue.lifecycle.QUEUE_POD_TRANSITIONS`.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterable, Sequence
from dataclasses import fields
from typing import Any

import doc_tables
from docutils import nodes
from sphinx import addnodes
from sphinx.application import Sphinx
from sphinx.util.docutils import SphinxDirective

from spec.cache.lifecycle import POD_TRANSITIONS
from spec.cycle.lifecycle import CYCLE_POD_TRANSITIONS
from spec.dispatcher.lifecycle import CALL_TRANSITIONS
from spec.queue.lifecycle import QUEUE_POD_TRANSITIONS
from spec.versions import PROFILES, VersionProfile

Cell = str | nodes.Node


def _func_ref(module: str, name: str) -> nodes.Node:
    """A cross-reference to a documented function, shown as its name."""
    ref = addnodes.pending_xref(
        "", refdomain="py", reftype="func", reftarget=f"{module}.{name}", refexplicit=False, refwarn=False
    )
    ref += nodes.literal(text=name)
    return ref


def _entry(cell: Cell) -> nodes.entry:
    paragraph = nodes.paragraph()
    paragraph += nodes.Text(cell) if isinstance(cell, str) else cell
    entry = nodes.entry()
    entry += paragraph
    return entry


def _table(header: Sequence[str], rows: Iterable[Sequence[Cell]]) -> nodes.table:
    """A table of equal-width columns with ``header`` and ``rows`` as cells."""
    return doc_tables.table([_entry(title) for title in header], ([_entry(cell) for cell in cells] for cells in rows))


def _summary(obj: Callable[..., Any]) -> str:
    doc = inspect.getdoc(obj) or ""
    return doc.split("\n\n")[0].replace("\n", " ")


class _TableDirective(SphinxDirective):
    def table(self) -> nodes.table:
        raise NotImplementedError

    def run(self) -> list[nodes.Node]:
        return [self.table()]


class PodStateTable(_TableDirective):
    """Every row of the pod state table."""

    def table(self) -> nodes.table:
        rows = []
        for row in POD_TRANSITIONS:
            outcome = row.target.value if row.target else (f"error {row.error.value}" if row.error else "")
            if row.fatal:
                outcome = f"process exits ({row.fatal.value})"
            profiles = ", ".join(sorted(row.profiles)) if row.profiles else "all"
            rows.append((row.operation, row.source.value, row.guard.value, outcome, profiles))
        return _table(("Operation", "From", "When", "Outcome", "Profiles"), rows)


class CallTransitionTable(_TableDirective):
    """Every row of the call-lifecycle table."""

    def table(self) -> nodes.table:
        rows = [
            (
                _func_ref("spec.dispatcher.call_queue", row.operation),
                row.source.value,
                row.when,
                row.target.value,
                ", ".join(sorted(row.profiles)) if row.profiles else "all",
            )
            for row in CALL_TRANSITIONS
        ]
        return _table(("Transition", "From", "When", "To", "Profiles"), rows)


class PipelineTransitionTable(_TableDirective):
    """Every row of the pipeline table."""

    def table(self) -> nodes.table:
        rows = [
            (_func_ref("spec.cycle.cycle", row.operation), row.source.value, row.when, row.target.value)
            for row in CYCLE_POD_TRANSITIONS
        ]
        return _table(("Transition", "From", "When", "To"), rows)


class QueueTransitionTable(_TableDirective):
    """Every row of the scheduling queue's pod-place table."""

    def table(self) -> nodes.table:
        rows = []
        for row in QUEUE_POD_TRANSITIONS:
            name: Cell = row.operation if row.operation == "bound" else _func_ref("spec.queue.queue", row.operation)
            rows.append((name, row.source.value, row.when, row.target.value, row.gate or "either"))
        return _table(("Transition", "From", "When", "To", "QueueingHints"), rows)


class VersionProfiles(_TableDirective):
    """One column per profile, one row per behaviour that differs."""

    def table(self) -> nodes.table:
        profiles = list(PROFILES.values())
        names = [f.name for f in fields(VersionProfile) if f.name not in ("name", "description")]
        rows = [(name, *(str(getattr(p, name)).replace("{key}({obj})", "%v(%v)") for p in profiles)) for name in names]
        rows.insert(0, ("description", *(p.description for p in profiles)))
        return _table(("Behaviour", *(p.name for p in profiles)), rows)


def setup(app: Sphinx) -> dict[str, Any]:
    app.add_directive("pod-state-table", PodStateTable)
    app.add_directive("version-profiles", VersionProfiles)
    app.add_directive("call-transition-table", CallTransitionTable)
    app.add_directive("pipeline-transition-table", PipelineTransitionTable)
    app.add_directive("queue-transition-table", QueueTransitionTable)
    return {"parallel_read_safe": True, "version": "1"}
