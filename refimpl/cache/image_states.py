"""Image states: the cache-global map from image name to a shared summary of which nodes hold it.

As in Kubernetes (``addNodeImageStates`` / ``removeNodeImageStates`` in cache.go, ``fwk.ImageStateSummary``), a
NodeInfo's ``image_states`` maps each of its images to the *same* summary object the global map holds, so a
summary sees every node that comes or goes. Cloning a NodeInfo freezes each summary into {size, num_nodes}. A
summary whose last node leaves is dropped from the global map, but a ghost NodeInfo may still point at it: it then
reports no nodes, exactly as a dangling Go pointer would.
"""

from __future__ import annotations

from spec.objects import Node


class ImageStateSummary:
    """``fwk.ImageStateSummary``. In the cache: ``size`` and the live ``nodes`` set (``num_nodes`` unused, 0).

    In a clone (:meth:`snapshot`): ``size`` and ``num_nodes``, with ``nodes`` None. Clones are read-only.
    """

    __slots__ = ("_frozen", "nodes", "num_nodes", "size")

    def __init__(self, size: int, nodes: set[str] | None = None, num_nodes: int = 0) -> None:
        self.size = size
        self.nodes = nodes
        self.num_nodes = num_nodes
        self._frozen: ImageStateSummary | None = None

    def snapshot(self) -> ImageStateSummary:
        """``ImageStateSummary.Snapshot``: {size, num_nodes = how many nodes hold the image now}.

        The frozen summary is cached until the node count changes, so every clone taken meanwhile shares one
        read-only object: cloning a NodeInfo allocates (and later frees) no summary objects.
        """
        count = len(self.nodes) if self.nodes is not None else 0
        frozen = self._frozen
        if frozen is None or frozen.num_nodes != count:
            frozen = self._frozen = ImageStateSummary(self.size, None, count)
        return frozen

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ImageStateSummary):
            return NotImplemented
        return (self.size, self.num_nodes, self.nodes) == (other.size, other.num_nodes, other.nodes)

    __hash__ = None  # type: ignore[assignment]  # mutable

    def __repr__(self) -> str:
        return f"ImageStateSummary(size={self.size}, num_nodes={self.num_nodes}, nodes={self.nodes})"


class ImageStates:
    """The cache-global ``imageStates`` map. Not thread-safe: the cache lock guards it."""

    __slots__ = ("states", "version")

    def __init__(self) -> None:
        self.states: dict[str, ImageStateSummary] = {}
        self.version = 0
        """Bumped by every :meth:`add_node` and :meth:`remove_node` of a node: while it stays, no summary's node
        count has changed and no NodeInfo has been given a new pointer map (see ``NodeInfo.snapshot``)."""

    def add_node(self, node: Node) -> dict[str, ImageStateSummary]:
        """``addNodeImageStates``: record that ``node`` holds its images; return the NodeInfo's new pointer map.

        A new name gets a summary with this image's size; a known name only gains the node (its size is kept).
        A name listed twice points at the first summary.
        """
        self.version += 1
        pointers: dict[str, ImageStateSummary] = {}
        states = self.states
        for image in node.images:
            for name in image.names:
                state = states.get(name)
                if state is None:
                    state = states[name] = ImageStateSummary(image.size_bytes, {node.name})
                else:
                    assert state.nodes is not None, "a global summary always has its node set"
                    state.nodes.add(node.name)
                pointers.setdefault(name, state)
        return pointers

    def remove_node(self, node: Node | None) -> None:
        """``removeNodeImageStates``: ``node`` no longer holds the images *this node object* lists.

        A nil node changes nothing. A summary left without nodes leaves the global map.
        """
        if node is None:
            return
        self.version += 1
        states = self.states
        for image in node.images:
            for name in image.names:
                state = states.get(name)
                if state is None:
                    continue
                assert state.nodes is not None, "a global summary always has its node set"
                state.nodes.discard(node.name)
                if not state.nodes:
                    del states[name]
