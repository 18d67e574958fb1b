"""The kube-scheduler cache and snapshot: ``pkg/scheduler/backend/cache`` and ``framework.NodeInfo``, in Python.

Modules, one concept each: :mod:`~refimpl.cache.resources` (pod requests, ``Resource``),
:mod:`~refimpl.cache.node_info` (``NodeInfo``, ``PodInfo``, ``HostPortInfo``), :mod:`~refimpl.cache.node_tree`,
:mod:`~refimpl.cache.image_states`, :mod:`~refimpl.cache.generation`, :mod:`~refimpl.cache.node_list` (the
most-recently-updated list), :mod:`~refimpl.cache.cache`, :mod:`~refimpl.cache.snapshot`,
:mod:`~refimpl.cache.views` (``Dump`` and inspection), :mod:`~refimpl.cache.clock`,
:mod:`~refimpl.cache.cleanup` (the background worker) and :mod:`~refimpl.cache.metrics`.
"""

from refimpl.cache.cache import Cache, OperationHook, get_pod_key
from refimpl.cache.cleanup import DEFAULT_CLEANUP_PERIOD, CleanupWorker
from refimpl.cache.clock import Clock, FakeClock, SystemClock
from refimpl.cache.generation import DEFAULT_GENERATIONS, GenerationCounter
from refimpl.cache.image_states import ImageStateSummary
from refimpl.cache.metrics import CacheMetrics, CacheSize
from refimpl.cache.node_info import HostPortInfo, NodeInfo, PodInfo
from refimpl.cache.resources import PodResource, Resource, compute_pod_resource
from refimpl.cache.snapshot import Snapshot
from refimpl.cache.views import CacheDump, CacheInternals, PodStateView

__all__ = [
    "DEFAULT_CLEANUP_PERIOD",
    "DEFAULT_GENERATIONS",
    "Cache",
    "CacheDump",
    "CacheInternals",
    "CacheMetrics",
    "CacheSize",
    "CleanupWorker",
    "Clock",
    "FakeClock",
    "GenerationCounter",
    "HostPortInfo",
    "ImageStateSummary",
    "NodeInfo",
    "OperationHook",
    "PodInfo",
    "PodResource",
    "PodStateView",
    "Resource",
    "Snapshot",
    "SystemClock",
    "compute_pod_resource",
    "get_pod_key",
]
