"""Image states: which nodes hold which container image, and how a NodeInfo sees them.

Kubernetes keeps one cache-global ``imageStates`` map, image name to a shared
``ImageStateSummary{Size, Nodes}`` (pkg/scheduler/backend/cache/cache.go,
``addNodeImageStates`` / ``removeNodeImageStates``). Each NodeInfo holds *pointers* to those
shared summaries; cloning a NodeInfo freezes them into ``{Size, NumNodes = len(Nodes)}``.

The spec models the pointers exactly: every global summary has a serial number, and a NodeInfo
keeps, per image name, an :class:`ImageRef` to the summary it pointed at. A summary whose last
node left is deleted from the global map, but a ghost NodeInfo may still point at it; such an
orphan keeps its size and has no nodes. That is what Kubernetes' pointers do.
"""

from __future__ import annotations

from dataclasses import dataclass

from spec.frozenmap import FrozenMap
from spec.objects import Node
from spec.valuetypes import cached_hash


@cached_hash
@dataclass(frozen=True)
class ImageState:
    """A cache-global ``ImageStateSummary``: the size first recorded and the nodes holding it."""

    size: int
    """``SizeBytes`` of the first node that reported the image; never updated afterwards."""
    nodes: frozenset[str]
    serial: int
    """Identifies this summary object, so that a NodeInfo's pointer to it can be followed."""


@cached_hash
@dataclass(frozen=True)
class ImageRef:
    """A NodeInfo's pointer to a global summary (its serial) and that summary's size."""

    serial: int
    size: int


@cached_hash
@dataclass(frozen=True)
class ImageStateSummary:
    """``fwk.ImageStateSummary`` as a cloned NodeInfo carries it: size and number of nodes."""

    size: int
    num_nodes: int


ImageStates = FrozenMap[str, ImageState]
"""The cache-global map from image name to its summary."""
ImageRefs = FrozenMap[str, ImageRef]
"""One NodeInfo's ``ImageStates`` map, as pointers."""


def add_node_image_states(
    states: ImageStates, next_serial: int, node: Node
) -> tuple[ImageStates, ImageRefs, int]:
    """``addNodeImageStates``: record that ``node`` holds its images.

    For each name of each image: create a summary with this image's size if the name is new,
    else add the node to it (the size is left as it was). Returns the new global map, the
    NodeInfo's new pointer map, and the next unused serial. Never fails.
    """
    updated = dict(states)
    refs: dict[str, ImageRef] = {}
    for image in node.images:
        for name in image.names:
            state = updated.get(name)
            if state is None:
                state = ImageState(image.size_bytes, frozenset({node.name}), next_serial)
                next_serial += 1
            else:
                state = ImageState(state.size, state.nodes | {node.name}, state.serial)
            updated[name] = state
            refs.setdefault(name, ImageRef(state.serial, state.size))
    return FrozenMap(updated), FrozenMap(refs), next_serial


def remove_node_image_states(states: ImageStates, node: Node | None) -> ImageStates:
    """``removeNodeImageStates``: ``node`` no longer holds the images *its object lists*.

    A nil node changes nothing. A summary left with no nodes is deleted from the global map.
    Never fails.
    """
    if node is None:
        return states
    updated = dict(states)
    for image in node.images:
        for name in image.names:
            state = updated.get(name)
            if state is None:
                continue
            remaining = state.nodes - {node.name}
            if remaining:
                updated[name] = ImageState(state.size, remaining, state.serial)
            else:
                del updated[name]
    return FrozenMap(updated)


def summarize_image_refs(refs: ImageRefs, states: ImageStates) -> FrozenMap[str, ImageStateSummary]:
    """``ImageStateSummary.Snapshot()`` for each pointer: its size and its current node count.

    An orphaned summary (no longer in the global map under the same serial) has no nodes.
    """
    summaries: dict[str, ImageStateSummary] = {}
    for name, ref in refs.items():
        current = states.get(name)
        live = current is not None and current.serial == ref.serial
        summaries[name] = ImageStateSummary(ref.size, len(current.nodes) if current and live else 0)
    return FrozenMap(summaries)
