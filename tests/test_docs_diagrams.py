"""The documentation's state diagrams draw exactly the spec's transition tables, legibly.

The SVG carries, on every arrow, its source, target and operations, and on every state the
transitions that stay in it; the expected sets are computed here from the tables themselves.
"""

from __future__ import annotations

import sys
import xml.etree.ElementTree as ET
from itertools import combinations
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent.parent / "docs" / "_ext"))

import spec_diagrams
from statediagram import Diagram, State, Transition, crossings, layout, render, width_of

from spec.cache.lifecycle import POD_TRANSITIONS
from spec.cycle.lifecycle import CYCLE_POD_TRANSITIONS
from spec.dispatcher.lifecycle import CALL_TRANSITIONS
from spec.queue.lifecycle import HINTS_OFF, HINTS_ON, QUEUE_POD_TRANSITIONS
from spec.versions import PROFILES

SVG = "{http://www.w3.org/2000/svg}"
Row = tuple[str, str, str]


def drawn(svg: str) -> set[Row]:
    """(source, target, operation) of every arrow and every in-box loop in ``svg``."""
    root = ET.fromstring(svg)
    rows: set[Row] = set()
    for group in root.iter(f"{SVG}g"):
        classes = group.get("class", "").split()
        if "edge" in classes:
            for operation in group.get("data-operations", "").split(";"):
                rows.add((group.get("data-source", ""), group.get("data-target", ""), operation))
        if "node" in classes and group.get("data-loops"):
            state = group.get("data-id", "")
            for line in group.get("data-loops", "").split(";"):
                rows.add((state, state, line.removeprefix("↻ ").split(" ")[0]))
    return rows


def boxes(svg: str) -> list[tuple[float, float, float, float]]:
    root = ET.fromstring(svg)
    return [
        (float(r.get("x", 0)), float(r.get("y", 0)), float(r.get("width", 0)), float(r.get("height", 0)))
        for r in root.iter(f"{SVG}rect")
        if "box" in r.get("class", "").split()
    ]


@pytest.mark.parametrize("profile", sorted(PROFILES))
def test_pod_state_diagram_is_the_pod_state_table(profile: str) -> None:
    expected = set()
    for row in POD_TRANSITIONS:
        if row.profiles is not None and profile not in row.profiles:
            continue
        if row.fatal is not None:
            expected.add((row.source.value, spec_diagrams.EXIT, row.operation))
        elif row.target is not None:
            expected.add((row.source.value, row.target.value, row.operation))
    assert drawn(render(spec_diagrams.pod_state_diagram(profile))) == expected


@pytest.mark.parametrize("profile", sorted(PROFILES))
def test_call_lifecycle_diagram_is_the_call_table(profile: str) -> None:
    expected = {
        (row.source.value, row.target.value, row.operation)
        for row in CALL_TRANSITIONS
        if row.profiles is None or profile in row.profiles
    }
    assert drawn(render(spec_diagrams.call_lifecycle_diagram(profile))) == expected


def test_pipeline_diagram_is_the_pipeline_table() -> None:
    expected = {(row.source.value, row.target.value, row.operation) for row in CYCLE_POD_TRANSITIONS}
    assert drawn(render(spec_diagrams.pod_pipeline_diagram())) == expected


@pytest.mark.parametrize("name", ["pod-states", "call-lifecycle", "pod-pipeline"])
def test_diagrams_cover_every_profile_once_have_no_overlapping_boxes_and_are_deterministic(name: str) -> None:
    groups = spec_diagrams.diagrams(name)
    assert sorted(p for profiles, _ in groups for p in profiles) == sorted(PROFILES)
    for _, diagram in groups:
        svg = render(diagram)
        assert svg == render(diagram)
        for (x1, y1, w1, h1), (x2, y2, w2, h2) in combinations(boxes(svg), 2):
            apart = x1 + w1 <= x2 or x2 + w2 <= x1 or y1 + h1 <= y2 or y2 + h2 <= y1
            assert apart, f"boxes overlap in {name}: {(x1, y1, w1, h1)} and {(x2, y2, w2, h2)}"


def test_an_unknown_diagram_is_refused_by_name() -> None:
    with pytest.raises(ValueError, match="unknown state diagram 'nope'"):
        spec_diagrams.diagrams("nope")


@pytest.mark.parametrize("gate", [HINTS_ON, HINTS_OFF])
def test_queue_pod_diagram_is_the_queue_table(gate: str) -> None:
    expected = {
        (row.source.value, row.target.value, row.operation)
        for row in QUEUE_POD_TRANSITIONS
        if row.gate in (None, gate)
    }
    assert drawn(render(spec_diagrams.queue_pod_diagram(gate))) == expected
    svg = render(spec_diagrams.queue_pod_diagram(gate))
    assert svg == render(spec_diagrams.queue_pod_diagram(gate))
    for (x1, y1, w1, h1), (x2, y2, w2, h2) in combinations(boxes(svg), 2):
        assert x1 + w1 <= x2 or x2 + w2 <= x1 or y1 + h1 <= y2 or y2 + h2 <= y1, "boxes overlap"


def test_crossings_counts_an_x_and_the_layout_removes_it() -> None:
    """Two edges drawn as an X cross once; the layout orders the lower layer so that they do not."""
    states = (State("a", "a"), State("b", "b"), State("c", "c"), State("d", "d"))
    diagram = Diagram("x", states, (Transition("a", "d", ("1",), ("1",)), Transition("b", "c", ("2",), ("2",))))
    result = layout(diagram)
    assert crossings(result) == 0
    result.layers[-1].reverse()
    assert crossings(result) == 1


@pytest.mark.parametrize("name", ["pod-states", "call-lifecycle", "pod-pipeline", "queue-pod"])
def test_no_swap_of_two_neighbouring_boxes_removes_a_crossing(name: str) -> None:
    """The layer order is a local optimum: swapping any two neighbours of a layer never lowers the crossings."""
    for _, diagram in spec_diagrams.diagrams(name):
        result = layout(diagram)
        fewest = crossings(result)
        for layer in result.layers:
            for i in range(len(layer) - 1):
                layer[i], layer[i + 1] = layer[i + 1], layer[i]
                assert crossings(result) >= fewest, (name, layer[i], layer[i + 1])
                layer[i], layer[i + 1] = layer[i + 1], layer[i]


@pytest.mark.parametrize("name", ["pod-states", "call-lifecycle", "pod-pipeline", "queue-pod"])
def test_every_diagram_fits_the_text_column_and_its_keys_name_its_arrows(name: str) -> None:
    """A diagram too wide for the text column labels its arrows with keys; the legend under it names each key's
    transition, every key on an arrow is in the legend, and the legend's operations are the arrow's own."""
    for _, diagram in spec_diagrams.diagrams(name):
        assert width_of(diagram) <= spec_diagrams.MAX_WIDTH, (name, width_of(diagram))
        if not diagram.legend:
            continue
        legend = dict(diagram.legend)
        assert len(legend) == len(diagram.legend)
        for transition in diagram.transitions:
            (label,) = transition.lines
            lines = [legend[key] for key in label.split(", ")]
            assert [line.split(" (")[0] for line in lines] == list(transition.operations)
        assert sorted(legend.values()) == sorted({line for t in diagram.transitions
                                                  for line in (legend[k] for k in t.lines[0].split(", "))})


def test_a_diagram_that_fits_keeps_its_labels_in_full() -> None:
    (_, pipeline), = spec_diagrams.diagrams("pod-pipeline")
    assert not pipeline.legend
    for transition in pipeline.transitions:
        assert [line.split(" (")[0] for line in transition.lines if not line.startswith("(")] == list(
            transition.operations)
