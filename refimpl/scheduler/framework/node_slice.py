"""Nodes that a cycle filters or scores together, with the figures the default plugins read kept in arrays.

A refimpl-only speed-up; Kubernetes has nothing of the kind. In a cluster of thousands of nodes the NodeInfos a
cycle reads are cold in the CPU cache, and each figure a filter reads (the Node's ``unschedulable``, Requested's
``milli_cpu``, ...) is another object fetched from memory: those fetches, not the arithmetic, were most of a cycle's
cost. So :class:`NodeColumns` keeps the figures the default plugins' common cases read in arrays, one row per
position in the snapshot's node list, and a :class:`NodeSlice` is a list of NodeInfos that knows their rows. A
plugin's ``filter_nodes`` or ``score_nodes`` may read the rows instead of the NodeInfos; it must give the answers
that reading the NodeInfos gives (tests/refimpl/scheduler/test_fast_paths.py).

A row is refreshed from its NodeInfo whenever the NodeInfo's generation is no longer the object the row was
computed from: every change to a NodeInfo takes a fresh generation, and a snapshot entry changes only when the
snapshot is updated. A figure that does not fit in 64 bits is not stored: the row then sends the plugins to the
NodeInfo (``pod_room`` and the allocatable figures are 0, and :data:`IRREGULAR` is set).
"""

from __future__ import annotations

from array import array
from collections.abc import Iterable, Sequence
from typing import Final

from refimpl.cache import NodeInfo

NO_NODE: Final = 1
"""Flag: the NodeInfo has no Node."""
UNSCHEDULABLE: Final = 2
"""Flag: the Node is cordoned (``Spec.Unschedulable``)."""
TAINTED: Final = 4
"""Flag: the Node has taints."""
USED_PORTS: Final = 8
"""Flag: some pod on the node uses a host port."""
IMAGES: Final = 16
"""Flag: the NodeInfo has image states."""
IRREGULAR: Final = 32
"""Flag: some figure does not fit in 64 bits; the numeric columns of the row are 0."""

_INT64_MIN: Final = -(1 << 63)
_INT64_MAX: Final = (1 << 63) - 1


class NodeColumns:
    """The rows of one snapshot node list (:attr:`nodes`, by identity): each NodeInfo's flags and figures.

    ``pod_room`` is allowed pods minus pods; ``free_*`` is allocatable minus requested; ``allocatable_*`` and
    ``non_zero_*`` are those figures as they are. Rows start stale and are filled by :meth:`refresh`.
    """

    __slots__ = ("allocatable_memory", "allocatable_milli_cpu", "flags", "free_ephemeral_storage", "free_memory",
                 "free_milli_cpu", "generations", "names", "nodes", "non_zero_memory", "non_zero_milli_cpu",
                 "pod_room")

    def __init__(self, nodes: list[NodeInfo]) -> None:
        """Rows for ``nodes``, all stale. The list must not change afterwards (a snapshot replaces its node list
        rather than changing it)."""
        count = len(nodes)
        self.nodes = nodes
        self.generations: list[object] = [None] * count
        """The generation object each row was computed from (None: never computed)."""
        self.names: list[str] = [""] * count
        self.flags = bytearray(count)
        zeros = bytes(8 * count)
        self.pod_room = array("q", zeros)
        self.free_milli_cpu = array("q", zeros)
        self.free_memory = array("q", zeros)
        self.free_ephemeral_storage = array("q", zeros)
        self.allocatable_milli_cpu = array("q", zeros)
        self.allocatable_memory = array("q", zeros)
        self.non_zero_milli_cpu = array("q", zeros)
        self.non_zero_memory = array("q", zeros)

    def refresh(self, infos: Iterable[NodeInfo], positions: Iterable[int]) -> None:
        """Bring the rows at ``positions`` (those of ``infos``, in step) up to date."""
        generations = self.generations
        for info, row in zip(infos, positions, strict=True):
            if info.generation is not generations[row]:
                self._fill(row, info)

    def _fill(self, row: int, info: NodeInfo) -> None:
        node = info.node
        flags = 0
        if node is None:
            flags |= NO_NODE
        else:
            if node.unschedulable:
                flags |= UNSCHEDULABLE
            if node.taints:
                flags |= TAINTED
        if info.used_ports:
            flags |= USED_PORTS
        if info.image_states:
            flags |= IMAGES
        free, used, non_zero = info.allocatable, info.requested, info.non_zero_requested
        figures = (free.allowed_pod_number - len(info.pods), free.milli_cpu - used.milli_cpu, free.memory - used.memory,
                   free.ephemeral_storage - used.ephemeral_storage, free.milli_cpu, free.memory, non_zero.milli_cpu,
                   non_zero.memory)
        if not all(_INT64_MIN <= figure <= _INT64_MAX for figure in figures):
            flags |= IRREGULAR
            figures = (0, 0, 0, 0, 0, 0, 0, 0)
        (self.pod_room[row], self.free_milli_cpu[row], self.free_memory[row], self.free_ephemeral_storage[row],
         self.allocatable_milli_cpu[row], self.allocatable_memory[row], self.non_zero_milli_cpu[row],
         self.non_zero_memory[row]) = figures
        self.flags[row] = flags
        self.names[row] = info.name
        self.generations[row] = info.generation


class NodeSlice(list[NodeInfo]):
    """NodeInfos and, when :attr:`columns` is not None, the row of each (:attr:`rows`, in step), refreshed."""

    __slots__ = ("columns", "rows")

    def __init__(self, infos: Iterable[NodeInfo] = (), columns: NodeColumns | None = None,
                 rows: Sequence[int] = ()) -> None:
        super().__init__(infos)
        self.columns = columns
        self.rows = rows

    def names(self) -> list[str]:
        """The node names (read from the rows when there are rows)."""
        if self.columns is not None:
            return list(map(self.columns.names.__getitem__, self.rows))
        return [info.name for info in self]


def columns_of(nodes: Sequence[NodeInfo]) -> tuple[NodeColumns, Sequence[int]] | None:
    """The columns and rows of ``nodes`` if it is a :class:`NodeSlice` with columns, else None."""
    if isinstance(nodes, NodeSlice) and nodes.columns is not None:
        return nodes.columns, nodes.rows
    return None
