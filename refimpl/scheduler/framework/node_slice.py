"""Nodes that a cycle filters or scores together, with the figures the default plugins read kept in columns.

A refimpl-only speed-up; Kubernetes has nothing of the kind. In a cluster of thousands of nodes the NodeInfos a
cycle reads are cold in the CPU cache, and each figure a filter reads (the Node's ``unschedulable``, Requested's
``milli_cpu``, ...) is another object to reach: those reads, not the arithmetic, were most of a cycle's cost. So
:class:`NodeColumns` keeps the figures the default plugins' common cases read in columns (lists, and a bytearray of
flags), one row per position in the snapshot's node list, and a :class:`NodeSlice` is a list of NodeInfos that
knows their rows. A plugin's ``filter_nodes`` or ``score_nodes`` may read the rows instead of the NodeInfos; it
must give the answers that reading the NodeInfos gives (tests/refimpl/scheduler/test_fast_paths.py).

A row is refreshed from its NodeInfo whenever the NodeInfo's generation is no longer the object the row was
computed from: every change to a NodeInfo takes a fresh generation, and a snapshot entry changes only when the
snapshot is updated.
"""

from __future__ import annotations

from collections.abc import Hashable, ItemsView, Iterable, Sequence
from itertools import compress, count, repeat
from operator import attrgetter, is_not, itemgetter
from typing import Any, Final, TypeVar

from refimpl.cache import ImageStateSummary, NodeInfo, Snapshot

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

_generation = attrgetter("generation")
_NO_LABELS: Final[ItemsView[str, str]] = {}.items()
_NO_IMAGES: Final[dict[str, ImageStateSummary]] = {}
MAX_MEMO_COLUMNS: Final = 32
"""The most keys :meth:`NodeColumns.memo_column` keeps columns for: each costs a store per refreshed row."""
MAX_IMAGE_COLUMNS: Final = 16
"""The most image names :meth:`NodeColumns.image_column` keeps columns for: each costs a lookup per refreshed row."""
T = TypeVar("T")


class NodeColumns:
    """The rows of one snapshot node list (:attr:`nodes`, by identity): each NodeInfo's flags and figures.

    ``pod_room`` is allowed pods minus pods; ``free_*`` is allocatable minus requested; ``allocatable_*`` and
    ``non_zero_*`` are those figures as they are. Rows start stale and are filled by :meth:`refresh`.
    """

    __slots__ = ("allocatable_memory", "allocatable_milli_cpu", "flags", "free_ephemeral_storage", "free_memory",
                 "free_milli_cpu", "generations", "image_maps", "images", "labels", "lost", "memos",
                 "names", "nodes", "non_zero_memory", "non_zero_milli_cpu", "pod_room", "row_of", "snapshot")

    def __init__(self, nodes: list[NodeInfo]) -> None:
        """Rows for ``nodes``, all stale. The list must not change afterwards (a snapshot replaces its node list
        rather than changing it)."""
        size = len(nodes)
        self.nodes = nodes
        self.snapshot: Snapshot | None = None
        """The snapshot whose log of refreshed entries :meth:`refresh` reads (:meth:`follow`), if any."""
        self.lost = 0
        self.row_of: dict[int, int] = {}
        self.generations: list[object] = [None] * size
        """The generation object each row was computed from (None: never computed)."""
        self.names: list[str] = [""] * size
        self.flags = bytearray(size)
        self.labels: list[ItemsView[str, str]] = [_NO_LABELS] * size
        """The Node's labels as (key, value) pairs, a set view (none without a Node): a selector's pairs are a
        subset of them, tested in C."""
        self.image_maps: list[dict[str, ImageStateSummary]] = [_NO_IMAGES] * size
        """The NodeInfo's image states (its map, read-only in a snapshot)."""
        self.images: dict[str, list[tuple[int, int] | None]] = {}
        """For each image name asked for (:meth:`image_column`), each row's summary of that image as (size,
        num_nodes), or None if the node does not have it."""
        self.memos: dict[Hashable, list[Any]] = {}
        """Per-row values a plugin derives from a row's figures (:meth:`memo_column`): None until computed, reset
        to None when the row is refreshed."""
        self.pod_room = [0] * size
        self.free_milli_cpu = [0] * size
        self.free_memory = [0] * size
        self.free_ephemeral_storage = [0] * size
        self.allocatable_milli_cpu = [0] * size
        self.allocatable_memory = [0] * size
        self.non_zero_milli_cpu = [0] * size
        self.non_zero_memory = [0] * size

    def follow(self, snapshot: Snapshot) -> None:
        """From now on, find the rows to refresh in ``snapshot``'s log of refreshed entries (``nodes`` must be its
        node list) instead of comparing every row's generation: every row is filled now, and :meth:`refresh` then
        refills only the rows of the entries logged since (reading a few NodeInfos rather than thousands)."""
        self.snapshot = snapshot
        self.lost = snapshot.refreshed_lost
        snapshot.refreshed.clear()  # every row is filled from its entry as it is now
        self.row_of = {id(info): row for row, info in enumerate(self.nodes)}  # the list keeps the entries alive
        for row, info in enumerate(self.nodes):
            self._fill(row, info)

    def refresh(self, infos: Sequence[NodeInfo], rows: Sequence[int]) -> None:
        """Bring the rows ``rows`` (those of ``infos``, in step) up to date."""
        snapshot = self.snapshot
        if snapshot is not None:
            if snapshot.refreshed_lost == self.lost:
                log, row_of, generations = snapshot.refreshed, self.row_of, self.generations
                for info in log:
                    row = row_of.get(id(info))
                    if row is not None and info.generation is not generations[row]:
                        self._fill(row, info)
                log.clear()
                return
            self.follow(snapshot)  # entries were refreshed unlogged: fill every row again
            return
        generations = self.generations
        if isinstance(rows, range) and rows.step == 1:  # the usual slice: compared in C, a row at a time only if stale
            stale = compress(count(), map(is_not, map(_generation, infos), generations[rows.start:rows.stop]))
            for index in stale:
                self._fill(rows[index], infos[index])
            return
        for info, row in zip(infos, rows, strict=True):
            if info.generation is not generations[row]:
                self._fill(row, info)

    def _fill(self, row: int, info: NodeInfo) -> None:
        node = info.node
        flags = 0
        if node is None:
            flags |= NO_NODE
            self.labels[row] = _NO_LABELS
        else:
            self.labels[row] = node.labels.items()
            if node.unschedulable:
                flags |= UNSCHEDULABLE
            if node.taints:
                flags |= TAINTED
        if info.used_ports:
            flags |= USED_PORTS
        images = info.image_states
        if images:
            flags |= IMAGES
        self.image_maps[row] = images
        for memo in self.memos.values():
            memo[row] = None
        for name, column in self.images.items():
            column[row] = None if (summary := images.get(name)) is None else (summary.size, summary.num_nodes)
        free, used, non_zero = info.allocatable, info.requested, info.non_zero_requested
        self.pod_room[row] = free.allowed_pod_number - len(info.pods)
        self.free_milli_cpu[row] = free.milli_cpu - used.milli_cpu
        self.free_memory[row] = free.memory - used.memory
        self.free_ephemeral_storage[row] = free.ephemeral_storage - used.ephemeral_storage
        self.allocatable_milli_cpu[row] = free.milli_cpu
        self.allocatable_memory[row] = free.memory
        self.non_zero_milli_cpu[row] = non_zero.milli_cpu
        self.non_zero_memory[row] = non_zero.memory
        self.flags[row] = flags
        self.names[row] = info.name
        self.generations[row] = info.generation


    def image_column(self, name: str) -> list[tuple[int, int] | None] | None:
        """Each row's summary of the image ``name`` as (size, num_nodes), None where the node does not have it
        (summaries are not hashable; these pairs are), kept up to date by :meth:`refresh` from now on; None once
        :data:`MAX_IMAGE_COLUMNS` names have columns."""
        column = self.images.get(name)
        if column is None and len(self.images) < MAX_IMAGE_COLUMNS:
            # A stale row's entry is rewritten when the row is refreshed, as every other figure of it is.
            column = self.images[name] = [None if summary is None else (summary.size, summary.num_nodes)
                                          for summary in map(dict.get, self.image_maps, repeat(name))]
        return column


    def memo_column(self, key: Hashable) -> list[Any] | None:
        """The column of values derived from each row under ``key`` (say, a plugin's score for one pod shape):
        None where not computed since the row was last refreshed. The caller computes what is None from the row
        and stores it. None once :data:`MAX_MEMO_COLUMNS` keys have columns."""
        column = self.memos.get(key)
        if column is None and len(self.memos) < MAX_MEMO_COLUMNS:
            column = self.memos[key] = [None] * len(self.nodes)
        return column


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
            return list(gather(self.columns.names, self.rows))
        return [info.name for info in self]


_TABLES: dict[int, bytes] = {}
"""For each flag mask, the ``bytes.translate`` table that maps a flags byte to 1 if it has a flag of the mask."""


def gather(column: Sequence[T], rows: Sequence[int]) -> Sequence[T]:
    """``[column[row] for row in rows]``, copied in C: a slice for a run of rows, else an itemgetter's tuple."""
    if isinstance(rows, range) and rows.step == 1:
        return column[rows.start:rows.stop]
    if len(rows) > 1:
        gathered: tuple[T, ...] = itemgetter(*rows)(column)
        return gathered
    return [column[row] for row in rows]


def flagged(columns: NodeColumns, rows: Sequence[int], mask: int) -> list[int]:
    """The indices ``i`` (ascending) of the rows ``rows[i]`` with a flag of ``mask``, found in C (a bytecode loop
    over the rows cost ten times as much): the rows' flags are gathered (a slice for a run of rows), translated to
    0 and 1, and the 1s found."""
    table = _TABLES.get(mask)
    if table is None:
        table = _TABLES[mask] = bytes(1 if flags & mask else 0 for flags in range(256))
    selected: bytes | bytearray
    if isinstance(rows, range) and rows.step == 1:
        selected = columns.flags[rows.start:rows.stop].translate(table)
    elif len(rows) > 1:
        selected = bytes(itemgetter(*rows)(columns.flags)).translate(table)
    else:
        selected = bytes(columns.flags[row] for row in rows).translate(table)
    indices: list[int] = []
    index = selected.find(1)
    while index >= 0:
        indices.append(index)
        index = selected.find(1, index + 1)
    return indices


def columns_of(nodes: Sequence[NodeInfo]) -> tuple[NodeColumns, Sequence[int]] | None:
    """The columns and rows of ``nodes`` if it is a :class:`NodeSlice` with columns, else None."""
    if isinstance(nodes, NodeSlice) and nodes.columns is not None:
        return nodes.columns, nodes.rows
    return None
