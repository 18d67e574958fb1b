"""State diagrams built from the spec's own transition tables, and the directive that draws them.

- ``pod-states``: :data:`spec.cache.lifecycle.POD_TRANSITIONS`, one diagram per group of version profiles
  whose rows draw the same picture. Rows that fail with an error leave the pod where it was and
  are not drawn (the pod-state table lists them); rows where the process exits go to "process
  exits".
- ``call-lifecycle``: :data:`spec.dispatcher.lifecycle.CALL_TRANSITIONS`, one diagram per group of profiles.
- ``pod-pipeline``: :data:`spec.cycle.lifecycle.CYCLE_POD_TRANSITIONS`.
- ``queue-pod``: :data:`spec.queue.lifecycle.QUEUE_POD_TRANSITIONS`, one diagram per QueueingHints setting (the
  same in every profile).

``tests/test_docs_diagrams.py`` checks that the SVG's arrows are exactly the tables' rows.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.util.docutils import SphinxDirective
from statediagram import Diagram, State, Transition, render, width_of

from spec.cache.lifecycle import POD_TRANSITIONS, Guard, PodPhase
from spec.cycle.lifecycle import CYCLE_POD_TRANSITIONS, PodStage
from spec.dispatcher.lifecycle import CALL_TRANSITIONS, CallStage
from spec.queue.lifecycle import HINTS_OFF, HINTS_ON, QUEUE_POD_TRANSITIONS, PodPlace
from spec.versions import PROFILES

EXIT = "process exits"
INITIAL_CALL_STAGE = CallStage.NOT_ADDED


def _group_profiles(build: Callable[[str], Diagram]) -> list[tuple[list[str], Diagram]]:
    """One diagram per group of profiles that draw the same one, in profile order."""
    groups: list[tuple[list[str], Diagram]] = []
    for profile in PROFILES:
        diagram = build(profile)
        for names, existing in groups:
            if existing == diagram:
                names.append(profile)
                break
        else:
            groups.append(([profile], diagram))
    return groups


WRAP = 24
MAX_WIDTH = 720
"""The widest diagram drawn with its labels in full (px): about furo's text column. A wider one gets keys."""


def _wrap(line: str) -> list[str]:
    """A long ``Operation (guards)`` line as the operation, then its guards, so that labels stay narrow."""
    if len(line) <= WRAP or " (" not in line:
        return [line]
    operation, guards = line.split(" (", 1)
    return [operation, f"({guards}"]


def _merge(
    name: str,
    order: Iterable[str],
    kinds: dict[str, str],
    edges: list[tuple[str, str, str, str]],
) -> Diagram:
    """A diagram from (source, target, operation, line) rows: rows between the same two states
    share an arrow, rows from a state to itself are written in its box."""
    loops: dict[str, list[str]] = defaultdict(list)
    arrows: dict[tuple[str, str], list[tuple[str, str]]] = defaultdict(list)
    for source, target, operation, line in edges:
        if source == target:
            if line not in loops[source]:
                loops[source].append(line)
        elif (operation, line) not in arrows[(source, target)]:
            arrows[(source, target)].append((operation, line))
    used = {s for s, _ in arrows} | {t for _, t in arrows} | set(loops)
    initial = [state for state in order if kinds.get(state) == "initial"]
    reachable, frontier = set(initial), list(initial)
    while frontier:
        source = frontier.pop()
        for s, t in arrows:
            if s == source and t not in reachable:
                reachable.add(t)
                frontier.append(t)
    states = tuple(
        State(
            state,
            state,
            tuple(f"↻ {line}" for line in loops[state]),
            kinds.get(state, "state") if state in reachable or not initial else "unreachable",
        )
        for state in order
        if state in used
    )
    transitions = tuple(
        Transition(s, t, tuple(part for _, line in rows for part in _wrap(line)), tuple(op for op, _ in rows))
        for (s, t), rows in arrows.items()
    )
    diagram = Diagram(name, states, transitions)
    if width_of(diagram) <= MAX_WIDTH:
        return diagram
    # Too wide for the text column: each arrow is labelled with numbers, and the legend under it says what each
    # key stands for (keys in order of first use, so that a reader finds them top to bottom).
    keys: dict[str, str] = {}
    for rows in arrows.values():
        for _, line in rows:
            keys.setdefault(line, _key(len(keys)))
    keyed = tuple(
        Transition(s, t, (", ".join(keys[line] for _, line in rows),), tuple(op for op, _ in rows))
        for (s, t), rows in arrows.items()
    )
    return Diagram(name, states, keyed, tuple((key, line) for line, key in keys.items()))


def _key(index: int) -> str:
    """The ``index``-th arrow key: 1, 2, ... (digits: a lower-case l would read as a one)."""
    return str(index + 1)


# ============================================================================================
# The three machines
# ============================================================================================


def _pod_state_edges(profile: str) -> list[tuple[str, str, str, str]]:
    edges = []
    for row in POD_TRANSITIONS:
        if row.profiles is not None and profile not in row.profiles:
            continue
        guard = "" if row.guard is Guard.ANY else f" ({row.guard.value})"
        if row.fatal is not None:
            edges.append((row.source.value, EXIT, row.operation, f"{row.operation}{guard}"))
        elif row.target is not None:
            edges.append((row.source.value, row.target.value, row.operation, f"{row.operation}{guard}"))
    return _combine_guards(edges)


def _combine_guards(edges: list[tuple[str, str, str, str]]) -> list[tuple[str, str, str, str]]:
    """``RemovePod (same node)`` and ``RemovePod (empty node name)`` on one arrow become one line."""
    guards: dict[tuple[str, str, str], list[str]] = defaultdict(list)
    for source, target, operation, line in edges:
        guard = line[len(operation) :].strip(" ()")
        guards[(source, target, operation)].append(guard)
    combined = []
    for (source, target, operation), found in guards.items():
        named = [g for g in found if g]
        if len(named) < len(found):
            combined.append((source, target, operation, operation))
        else:
            combined.append((source, target, operation, f"{operation} ({', '.join(named)})"))
    return combined


def pod_state_diagram(profile: str) -> Diagram:
    """The cache's pod state machine in ``profile``."""
    order = [p.value for p in PodPhase] + [EXIT]
    kinds = {PodPhase.ABSENT.value: "initial", EXIT: "exit"}
    return _merge("the cache's pod state machine", order, kinds, _pod_state_edges(profile))


def call_lifecycle_diagram(profile: str) -> Diagram:
    """One call's life in the dispatcher in ``profile``."""
    edges = [
        (row.source.value, row.target.value, row.operation, row.operation)
        for row in CALL_TRANSITIONS
        if row.profiles is None or profile in row.profiles
    ]
    told = {CallStage.SUCCEEDED, CallStage.FAILED, CallStage.SKIPPED, CallStage.OVERWRITTEN, CallStage.CLOSED}
    kinds = {INITIAL_CALL_STAGE.value: "initial"} | {s.value: "final" for s in told}
    kinds |= {CallStage.LOST.value: "exit", CallStage.STRANDED.value: "exit"}
    return _merge("one call's life in the API dispatcher", [s.value for s in CallStage], kinds, edges)


def pod_pipeline_diagram() -> Diagram:
    """One pod's way through the scheduling and binding cycles (the same in every profile)."""
    edges = [(row.source.value, row.target.value, row.operation, row.operation) for row in CYCLE_POD_TRANSITIONS]
    kinds = {PodStage.ABSENT.value: "initial", PodStage.CONFIRMED.value: "final", PodStage.DELETED.value: "final"}
    return _merge("one pod's way from the scheduling queue to a confirmed binding", [s.value for s in PodStage],
                  kinds, edges)


QUEUE_GATES = {HINTS_ON: "QueueingHints on", HINTS_OFF: "QueueingHints off"}


def queue_pod_diagram(gate: str) -> Diagram:
    """One pod's places in the scheduling queue with QueueingHints ``gate`` (``hints-on`` or ``hints-off``)."""
    edges = [
        (row.source.value, row.target.value, row.operation, row.operation)
        for row in QUEUE_POD_TRANSITIONS
        if row.gate in (None, gate)
    ]
    kinds = {PodPlace.ABSENT.value: "initial"}
    return _merge(f"one pod in the scheduling queue, {QUEUE_GATES[gate]}", [p.value for p in PodPlace], kinds, edges)


def diagrams(name: str) -> list[tuple[list[str], Diagram]]:
    """The diagrams of the machine ``name``, each with the profiles it holds for."""
    if name == "pod-states":
        return _group_profiles(pod_state_diagram)
    if name == "call-lifecycle":
        return _group_profiles(call_lifecycle_diagram)
    if name == "pod-pipeline":
        return [(list(PROFILES), pod_pipeline_diagram())]
    if name == "queue-pod":
        return [([f"{text} (every profile)"], queue_pod_diagram(gate)) for gate, text in QUEUE_GATES.items()]
    raise ValueError(
        f"unknown state diagram {name!r}: expected pod-states, call-lifecycle, pod-pipeline or queue-pod"
    )


# ============================================================================================
# Directive
# ============================================================================================


class StateDiagram(SphinxDirective):
    """``state-diagram NAME``: the machine's diagrams as inline SVG, one per group of profiles."""

    required_arguments = 1

    def run(self) -> list[nodes.Node]:
        try:
            found = diagrams(self.arguments[0])
        except ValueError as error:
            raise self.error(str(error)) from error
        result: list[nodes.Node] = []
        for index, (profiles, diagram) in enumerate(found):
            caption = "every profile" if len(profiles) == len(PROFILES) else "profiles " + ", ".join(profiles)
            if self.arguments[0] == "queue-pod":
                caption = "every profile"  # the diagram's name says which QueueingHints setting
            if any(state.kind == "unreachable" for state in diagram.states):
                caption += "; grey states cannot be reached from the initial state in these profiles"
            svg = render(diagram)
            file_name = f"{self.arguments[0]}-{index}.svg"
            if self.env.app.builder.format == "html":
                folder = Path(self.env.app.outdir) / "_diagrams"
                folder.mkdir(parents=True, exist_ok=True)
                (folder / file_name).write_text(svg, encoding="utf-8")
            figure = nodes.container(classes=["state-diagram-figure"])
            figure += nodes.raw("", f'<div class="state-diagram">{svg}</div>', format="html")
            paragraph = nodes.paragraph(classes=["state-diagram-caption"])
            paragraph += nodes.emphasis(text=f"{diagram.name[0].upper()}{diagram.name[1:]}: {caption}. ")
            paragraph += nodes.raw("", f'<a href="_diagrams/{file_name}">Open the SVG on its own.</a>', format="html")
            figure += paragraph
            if diagram.legend:
                figure += _legend(diagram)
            result.append(figure)
        return result


def _legend(diagram: Diagram) -> nodes.Node:
    """The keys of a keyed diagram's arrows, as a two-column table: key, then the transition it stands for."""
    table = nodes.table(classes=["state-diagram-legend"])
    group = nodes.tgroup(cols=2)
    table += group
    group += nodes.colspec(colwidth=1)
    group += nodes.colspec(colwidth=12)
    head = nodes.thead()
    group += head
    head += nodes.row("", *(nodes.entry("", nodes.paragraph(text=text)) for text in ("key", "transition")))
    body = nodes.tbody()
    group += body
    for key, line in diagram.legend:
        body += nodes.row("", nodes.entry("", nodes.paragraph(text=key)),
                          nodes.entry("", nodes.paragraph("", "", nodes.literal(text=line))))
    return table


def setup(app: Sphinx) -> dict[str, Any]:
    app.add_directive("state-diagram", StateDiagram)
    return {"parallel_read_safe": True, "version": "1"}
