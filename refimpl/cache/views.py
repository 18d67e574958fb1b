"""The read-only views the cache hands out: ``Dump()``'s value and, for tests and debugging, all its internals."""

from __future__ import annotations

from dataclasses import dataclass

from refimpl.cache.image_states import ImageStateSummary
from refimpl.cache.node_info import NodeInfo
from spec.objects import Pod


@dataclass(frozen=True)
class CacheDump:
    """``Dump()``: a clone of every NodeInfo (placeholders and ghosts included) and the assumed keys."""

    nodes: dict[str, NodeInfo]
    assumed_pods: frozenset[str]


@dataclass(frozen=True)
class PodStateView:
    """A copy of one pod state, for inspection."""

    pod: Pod
    deadline: int | None
    binding_finished: bool


@dataclass(frozen=True)
class CacheInternals:
    """Everything the cache holds, read under its lock (see :meth:`Cache.internals`)."""

    pod_states: dict[str, PodStateView]
    assumed_pods: frozenset[str]
    node_infos: dict[str, NodeInfo]
    """The live NodeInfo objects: read them, never change them."""
    names_by_recency: list[str]
    node_tree_zones: tuple[tuple[str, tuple[str, ...]], ...]
    node_tree_num_nodes: int
    image_states: dict[str, ImageStateSummary]
    """The live global summaries: read them, never change them."""
    generation: int
    """The last value of the cache's generation counter."""
    pvc_ref_counts_delta: dict[str, int] | None = None
    """Profiles with ``incremental_pvc_ref_counts``: ``pvcRefCountsDelta``, the change of the claims' counts that the
    next ``UpdateSnapshot`` applies (zero entries dropped); None in the others."""
