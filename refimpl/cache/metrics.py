"""The ``scheduler_cache_size`` gauge (subsystem "scheduler", label ``type``), as the cache publishes it.

In the TTL era (v1.34, v1.35) ``cleanupAssumedPods`` publishes it at the end of every cycle, under the cache lock;
later releases publish it from the same one-second loop without expiring anything.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass


@dataclass(frozen=True)
class CacheSize:
    """One reading of the gauge: assumed pods, pods (assumed and added), and NodeInfos (ghosts included)."""

    assumed_pods: int = 0
    pods: int = 0
    nodes: int = 0


class CacheMetrics:
    """The gauge's current values; written by the cache under its lock, readable from any thread."""

    __slots__ = ("_lock", "_value")

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._value = CacheSize()

    def set(self, assumed_pods: int, pods: int, nodes: int) -> None:
        """``updateMetrics``: publish new values."""
        value = CacheSize(assumed_pods, pods, nodes)
        with self._lock:
            self._value = value

    @property
    def cache_size(self) -> CacheSize:
        """The values last published (all 0 before the first publication)."""
        with self._lock:
            return self._value

    def labelled(self) -> dict[str, int]:
        """The gauge as Prometheus would expose it: ``type`` label value to gauge value."""
        value = self.cache_size
        return {"assumed_pods": value.assumed_pods, "pods": value.pods, "nodes": value.nodes}
