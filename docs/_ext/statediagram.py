"""A small, deterministic, pure-Python layered layout and SVG renderer for state diagrams.

Graphviz would do this better, but its ``dot`` binary is not something a fresh clone with only
Python can count on, so the documentation draws its few small diagrams itself. The method is the
usual layered (Sugiyama) one, kept simple:

1. back edges are found by a depth-first search in the given node order and reversed;
2. states get ranks by longest path; every edge becomes a chain ``source -> label -> dummy ... ->
   target`` through the layers in between, so that each edge label is a box in the layout;
3. layers are ordered by barycentre sweeps (the order with the fewest edge crossings is kept) and adjacent
   swaps that remove crossings, and boxes are placed left to right at their neighbours'
   mean position, never closer than a gap;
4. every segment of an edge runs between two adjacent layers, as a vertical-tangent curve, so it
   can only touch its own boxes: no edge crosses a box, and no two boxes overlap.

Transitions that leave a state where it is (self-loops) are written inside the state's box under a
rule, prefixed with "↻". Everything is computed from the input alone, in a fixed order, so the same
input always gives the same SVG bytes.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from html import escape
from itertools import pairwise

FONT = "DejaVu Sans, Verdana, Arial, sans-serif"
TITLE_SIZE = 13
TEXT_SIZE = 11
TITLE_CHAR = 8.2  # generous average glyph widths, so that text never overflows its box
TEXT_CHAR = 6.9
LINE = 14
PAD_X = 10
PAD_Y = 6
GAP_X = 26
GAP_Y = 22
DUMMY_WIDTH = 12
MARGIN = 12


@dataclass(frozen=True)
class State:
    """A box: a state of the machine."""

    id: str
    label: str
    loops: tuple[str, ...] = ()
    """Transitions that stay in this state, one line each."""
    kind: str = "state"
    """``state``, ``initial`` (drawn with a heavier border), ``final``, ``exit`` (a dead end: the process
    exits, or a call is never answered) or ``unreachable`` (grey)."""


@dataclass(frozen=True)
class Transition:
    """An arrow between two different states; its label lines are the transitions it stands for."""

    source: str
    target: str
    lines: tuple[str, ...]
    operations: tuple[str, ...]
    """The operation names, machine-readable (the SVG carries them for tests)."""


@dataclass(frozen=True)
class Diagram:
    name: str
    states: tuple[State, ...]
    transitions: tuple[Transition, ...]
    legend: tuple[tuple[str, str], ...] = ()
    """(key, line) for a diagram whose arrows are labelled by keys (too wide otherwise); shown under it."""


def width_of(diagram: Diagram) -> float:
    """The width :func:`render` draws ``diagram`` at, in pixels."""
    return _width(layout(diagram))


def _width(result: _Layout) -> float:
    return max(vertex.x + vertex.width / 2 for vertex in result.vertices.values()) + MARGIN


@dataclass
class _Vertex:
    key: str
    width: float
    height: float
    layer: int = 0
    x: float = 0.0  # centre
    kind: str = "dummy"  # "state", "label" or "dummy"


@dataclass
class _Chain:
    transition: Transition
    vertices: list[str]  # in the layout's downward direction
    reversed: bool


@dataclass
class _Layout:
    vertices: dict[str, _Vertex] = field(default_factory=dict)
    layers: list[list[str]] = field(default_factory=list)
    chains: list[_Chain] = field(default_factory=list)
    layer_top: list[float] = field(default_factory=list)
    layer_height: list[float] = field(default_factory=list)


def _text_width(text: str, char: float) -> float:
    return len(text) * char


def _state_size(state: State) -> tuple[float, float]:
    width = max([_text_width(state.label, TITLE_CHAR)] + [_text_width(line, TEXT_CHAR) for line in state.loops])
    height = LINE + 2 * PAD_Y + (len(state.loops) * LINE + PAD_Y if state.loops else 0)
    return width + 2 * PAD_X, height


def _label_size(lines: tuple[str, ...]) -> tuple[float, float]:
    return max(_text_width(line, TEXT_CHAR) for line in lines) + 2 * 6, len(lines) * LINE + 6


def _back_edges(diagram: Diagram) -> set[int]:
    """Indices of transitions that close a cycle in a DFS visiting states in the given order."""
    out: dict[str, list[int]] = defaultdict(list)
    for index, t in enumerate(diagram.transitions):
        out[t.source].append(index)
    colour: dict[str, int] = {}
    back: set[int] = set()

    def visit(node: str) -> None:
        colour[node] = 1
        for index in out[node]:
            target = diagram.transitions[index].target
            if colour.get(target) == 1:
                back.add(index)
            elif target not in colour:
                visit(target)
        colour[node] = 2

    for state in diagram.states:
        if state.id not in colour:
            visit(state.id)
    return back


def _ranks(diagram: Diagram, back: set[int]) -> dict[str, int]:
    rank = {s.id: 0 for s in diagram.states}
    edges = [
        (t.target, t.source) if i in back else (t.source, t.target) for i, t in enumerate(diagram.transitions)
    ]
    for _ in diagram.states:  # longest path by relaxation: at most |V| rounds on a DAG
        changed = False
        for u, v in edges:
            if rank[v] < rank[u] + 1:
                rank[v] = rank[u] + 1
                changed = True
        if not changed:
            break
    return rank


def layout(diagram: Diagram) -> _Layout:
    """Place every state, label and bend of ``diagram``."""
    result = _Layout()
    back = _back_edges(diagram)
    rank = _ranks(diagram, back)
    for state in diagram.states:
        w, h = _state_size(state)
        result.vertices[state.id] = _Vertex(state.id, w, h, 2 * rank[state.id], kind="state")
    for index, t in enumerate(diagram.transitions):
        top, bottom = (t.target, t.source) if index in back else (t.source, t.target)
        start, end = 2 * rank[top], 2 * rank[bottom]
        # The label sits in the middle gap of a long edge, which spreads labels over the layers.
        label_layer = start + 2 * (((end - start) // 2 - 1) // 2) + 1
        chain = [top]
        w, h = _label_size(t.lines)
        for layer in range(start + 1, end):
            if layer == label_layer:
                key = f"label{index}"
                result.vertices[key] = _Vertex(key, w, h, layer, kind="label")
            else:
                key = f"dummy{index}.{layer}"
                result.vertices[key] = _Vertex(key, DUMMY_WIDTH, 0, layer)
            chain.append(key)
        chain.append(bottom)
        result.chains.append(_Chain(t, chain, index in back))
    depth = max(v.layer for v in result.vertices.values()) + 1
    result.layers = [[] for _ in range(depth)]
    for key, vertex in result.vertices.items():  # insertion order: states, then chains in order
        result.layers[vertex.layer].append(key)
    _order(result)
    _place(result)
    return result


def _neighbours(result: _Layout) -> tuple[dict[str, list[str]], dict[str, list[str]]]:
    up: dict[str, list[str]] = defaultdict(list)
    down: dict[str, list[str]] = defaultdict(list)
    for chain in result.chains:
        for a, b in pairwise(chain.vertices):
            down[a].append(b)
            up[b].append(a)
    return up, down


def _crossings_between(upper: list[str], lower: list[str], down: dict[str, list[str]]) -> int:
    """Segments between two adjacent layers that cross: (a, b) and (c, d) cross when a is left of c and b right
    of d, or the other way round."""
    below = {key: i for i, key in enumerate(lower)}
    segments = [(i, below[b]) for i, a in enumerate(upper) for b in down[a] if b in below]
    return sum(1 for n, (a, b) in enumerate(segments) for c, d in segments[n + 1 :] if (a - c) * (b - d) < 0)


def crossings(result: _Layout) -> int:
    """How many pairs of edge segments cross in ``result``'s layer order (the figure :func:`_order` lowers)."""
    _, down = _neighbours(result)
    return sum(_crossings_between(a, b, down) for a, b in pairwise(result.layers))


def _order(result: _Layout) -> None:
    """Barycentre sweeps, down then up, keeping the order with the fewest crossings (ties keep the earlier);
    then adjacent boxes are swapped wherever that removes crossings (the usual transposition heuristic)."""
    up, down = _neighbours(result)
    best, fewest = [list(layer) for layer in result.layers], crossings(result)
    for _ in range(6):
        for layers, adjacent in ((range(1, len(result.layers)), up), (range(len(result.layers) - 2, -1, -1), down)):
            for index in layers:
                reference = result.layers[index - 1] if adjacent is up else result.layers[index + 1]
                position = {key: i for i, key in enumerate(reference)}
                current = result.layers[index]

                def centre(
                    key: str,
                    current: list[str] = current,
                    position: dict[str, int] = position,
                    adjacent: dict[str, list[str]] = adjacent,
                ) -> float:
                    linked = [position[n] for n in adjacent[key] if n in position]
                    return sum(linked) / len(linked) if linked else float(current.index(key))

                result.layers[index] = sorted(current, key=centre)
            count = crossings(result)
            if count < fewest:
                best, fewest = [list(layer) for layer in result.layers], count
    result.layers = best
    _transpose(result, down)


def _transpose(result: _Layout, down: dict[str, list[str]]) -> None:
    """Swap two neighbouring boxes of a layer while that lowers the crossings with the layers above and below."""
    layers = result.layers

    def local(index: int) -> int:
        above = _crossings_between(layers[index - 1], layers[index], down) if index > 0 else 0
        below = _crossings_between(layers[index], layers[index + 1], down) if index + 1 < len(layers) else 0
        return above + below

    improved = True
    while improved:  # each swap lowers the total, so this ends
        improved = False
        for index, layer in enumerate(layers):
            for i in range(len(layer) - 1):
                before = local(index)
                layer[i], layer[i + 1] = layer[i + 1], layer[i]
                if local(index) < before:
                    improved = True
                else:
                    layer[i], layer[i + 1] = layer[i + 1], layer[i]


def _place(result: _Layout) -> None:
    """Horizontal positions: start packed, then pull each box towards its neighbours' mean."""
    up, down = _neighbours(result)
    v = result.vertices
    for layer in result.layers:
        x = 0.0
        for key in layer:
            v[key].x = x + v[key].width / 2
            x += v[key].width + GAP_X
    for iteration in range(24):
        for layer in result.layers if iteration % 2 == 0 else reversed(result.layers):
            wanted = []
            for key in layer:
                linked = [v[n].x for n in up[key] + down[key]]
                wanted.append(sum(linked) / len(linked) if linked else v[key].x)
            _fit(layer, wanted, v)
    _straighten(result)
    left = min(v[key].x - v[key].width / 2 for key in v)
    for vertex in v.values():
        vertex.x += MARGIN - left
    y = float(MARGIN)
    for layer in result.layers:
        height = max((v[key].height for key in layer), default=0.0)
        result.layer_top.append(y)
        result.layer_height.append(height)
        y += height + GAP_Y


def _straighten(result: _Layout) -> None:
    """Give each edge's run of bends one x where the gaps allow it, so that long edges run straight."""
    v = result.vertices
    for chain in result.chains:
        bends = [key for key in chain.vertices if v[key].kind == "dummy"]
        if len(bends) < 2:
            continue
        candidates = [sum(v[key].x for key in bends) / len(bends), v[bends[0]].x, v[bends[-1]].x]
        for x in candidates:
            if all(_free(result, key, x) for key in bends):
                for key in bends:
                    v[key].x = x
                break


def _free(result: _Layout, key: str, x: float) -> bool:
    """Whether ``key`` can move to ``x`` keeping its place in the layer's order and the gaps."""
    v = result.vertices
    layer = result.layers[v[key].layer]
    i = layer.index(key)
    if i > 0 and x - v[layer[i - 1]].x < (v[layer[i - 1]].width + v[key].width) / 2 + GAP_X:
        return False
    return not (i + 1 < len(layer) and v[layer[i + 1]].x - x < (v[layer[i + 1]].width + v[key].width) / 2 + GAP_X)


def _fit(layer: list[str], wanted: list[float], v: dict[str, _Vertex]) -> None:
    """Positions as close to ``wanted`` as the order and the gaps allow (two greedy passes, averaged)."""

    def sweep(order: list[int], sign: int) -> list[float]:
        placed: list[float] = [0.0] * len(layer)
        previous: int | None = None
        for i in order:
            x = wanted[i]
            if previous is not None:
                need = (v[layer[previous]].width + v[layer[i]].width) / 2 + GAP_X
                x = max(x, placed[previous] + need) if sign > 0 else min(x, placed[previous] - need)
            placed[i] = x
            previous = i
        return placed

    forward = sweep(list(range(len(layer))), 1)
    backward = sweep(list(range(len(layer) - 1, -1, -1)), -1)
    mean = [(a + b) / 2 for a, b in zip(forward, backward, strict=True)]
    # The mean of two feasible placements of the same order is feasible: gaps are linear constraints.
    for key, x in zip(layer, mean, strict=True):
        v[key].x = x


# ============================================================================================
# SVG
# ============================================================================================


def _ports(result: _Layout) -> dict[tuple[int, str], float]:
    """Where each chain leaves or enters each state box: spread along its side in neighbour order."""
    v = result.vertices
    sides: dict[tuple[str, str], list[tuple[float, int]]] = defaultdict(list)
    for index, chain in enumerate(result.chains):
        first, second = chain.vertices[0], chain.vertices[1]
        last, before = chain.vertices[-1], chain.vertices[-2]
        sides[(first, "bottom")].append((v[second].x, index))
        sides[(last, "top")].append((v[before].x, index))
    ports: dict[tuple[int, str], float] = {}
    for (key, side), entries in sides.items():
        entries.sort()
        box = v[key]
        usable = box.width * 0.7
        for n, (_, index) in enumerate(entries):
            offset = 0.0 if len(entries) == 1 else -usable / 2 + usable * n / (len(entries) - 1)
            ports[(index, "first" if side == "bottom" else "last")] = box.x + offset
    return ports


def _curve(x1: float, y1: float, x2: float, y2: float) -> str:
    middle = (y1 + y2) / 2
    return f"C {x1:.1f} {middle:.1f} {x2:.1f} {middle:.1f} {x2:.1f} {y2:.1f}"


def render(diagram: Diagram) -> str:
    """The SVG document for ``diagram``."""
    result = layout(diagram)
    v = result.vertices
    states = {s.id: s for s in diagram.states}
    ports = _ports(result)

    def band(key: str) -> tuple[float, float, float]:
        """(top of the layer, top of the box, bottom of the box) for ``key``; bottom of the layer separately."""
        layer = v[key].layer
        top = result.layer_top[layer]
        box_top = top + (result.layer_height[layer] - v[key].height) / 2
        return top, box_top, box_top + v[key].height

    def layer_bottom(key: str) -> float:
        layer = v[key].layer
        return result.layer_top[layer] + result.layer_height[layer]

    width = _width(result)
    height = result.layer_top[-1] + result.layer_height[-1] + MARGIN
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="state-diagram" data-diagram="{escape(diagram.name)}" '
        f'viewBox="0 0 {width:.0f} {height:.0f}" width="{width:.0f}" height="{height:.0f}" '
        f'role="img" aria-label="{escape(diagram.name)}" font-family="{FONT}">',
        f"<title>{escape(diagram.name)}</title>",
        "<defs><marker id=\"arrow\" viewBox=\"0 0 10 10\" refX=\"9\" refY=\"5\" markerWidth=\"7\" markerHeight=\"7\" "
        "orient=\"auto-start-reverse\"><path d=\"M 0 0 L 10 5 L 0 10 z\" fill=\"#444\"/></marker></defs>",
        "<style>.edge path{fill:none;stroke:#444;stroke-width:1.2}.edge.back path{stroke-dasharray:5 3}"
        ".box{stroke-width:1.2}.label-box{fill:#fff;stroke:#bbb;stroke-width:0.8}</style>",
    ]
    for index, chain in enumerate(result.chains):
        t = chain.transition
        points: list[tuple[float, float, float]] = []  # (x, y where the path enters, y where it leaves)
        for position, key in enumerate(chain.vertices):
            top, box_top, box_bottom = band(key)
            if position == 0:
                x = ports[(index, "first")]
                points.append((x, box_bottom, layer_bottom(key)))
            elif position == len(chain.vertices) - 1:
                x = ports[(index, "last")]
                points.append((x, top, box_top))
            else:
                points.append((v[key].x, top, layer_bottom(key)))
        d = [f"M {points[0][0]:.1f} {points[0][1]:.1f} L {points[0][0]:.1f} {points[0][2]:.1f}"]
        for (x1, _, leave), (x2, enter, through) in pairwise(points):
            d.append(_curve(x1, leave, x2, enter))
            d.append(f"L {x2:.1f} {through:.1f}")
        marker = 'marker-start="url(#arrow)"' if chain.reversed else 'marker-end="url(#arrow)"'
        classes = "edge back" if chain.reversed else "edge"
        out.append(
            f'<g class="{classes}" data-source="{escape(t.source)}" data-target="{escape(t.target)}" '
            f'data-operations="{escape(";".join(t.operations))}">'
            f'<path d="{" ".join(d)}" {marker}/>'
        )
        label = v[next(key for key in chain.vertices if v[key].kind == "label")]
        _, box_top, _ = band(label.key)
        out.append(
            f'<rect class="box label-box" x="{label.x - label.width / 2:.1f}" y="{box_top:.1f}" '
            f'width="{label.width:.1f}" height="{label.height:.1f}" rx="3"/>'
        )
        for n, line in enumerate(t.lines):
            y = box_top + 3 + LINE * (n + 1) - 3
            out.append(
                f'<text x="{label.x:.1f}" y="{y:.1f}" font-size="{TEXT_SIZE}" text-anchor="middle" '
                f'fill="#222">{escape(line)}</text>'
            )
        out.append("</g>")
    for state in diagram.states:
        vertex = v[state.id]
        _, box_top, _ = band(state.id)
        fill, stroke, dash, weight = {
            "initial": ("#e8f0fe", "#1a56b4", "", 2.4),
            "final": ("#eef7ee", "#2e7d32", "", 1.2),
            "exit": ("#fdecea", "#b3261e", ' stroke-dasharray="5 3"', 1.2),
            "unreachable": ("#f1f1f1", "#8a8a8a", ' stroke-dasharray="2 3"', 1.2),
        }.get(state.kind, ("#e8f0fe", "#1a56b4", "", 1.2))
        left = vertex.x - vertex.width / 2
        out.append(
            f'<g class="node" data-id="{escape(state.id)}" data-kind="{state.kind}" '
            f'data-loops="{escape(";".join(state.loops))}">'
            f'<rect class="box state-box" x="{left:.1f}" y="{box_top:.1f}" width="{vertex.width:.1f}" '
            f'height="{vertex.height:.1f}" rx="8" fill="{fill}" stroke="{stroke}" stroke-width="{weight}"{dash}/>'
        )
        out.append(
            f'<text x="{vertex.x:.1f}" y="{box_top + PAD_Y + LINE - 3:.1f}" font-size="{TITLE_SIZE}" '
            f'font-weight="bold" text-anchor="middle" fill="#111">{escape(states[state.id].label)}</text>'
        )
        if state.loops:
            rule = box_top + PAD_Y + LINE + PAD_Y / 2
            out.append(
                f'<line x1="{left:.1f}" y1="{rule:.1f}" x2="{left + vertex.width:.1f}" y2="{rule:.1f}" '
                f'stroke="{stroke}" stroke-width="0.6"/>'
            )
            for n, line in enumerate(state.loops):
                y = rule + PAD_Y / 2 + LINE * (n + 1) - 3
                out.append(
                    f'<text x="{left + PAD_X:.1f}" y="{y:.1f}" font-size="{TEXT_SIZE}" fill="#333">'
                    f"{escape(line)}</text>"
                )
        out.append("</g>")
    out.append("</svg>")
    return "\n".join(out)
