"""The dispatcher's metrics (pkg/scheduler/metrics/metrics.go, subsystem "scheduler"; digest §A.5, §A.7).

- ``async_api_call_execution_total{call_type, result}``: executed calls, ``result`` "success" or "error";
- ``async_api_call_execution_duration_seconds{call_type, result}``: a histogram of ``Execute`` durations, buckets
  ``ExponentialBuckets(0.001, 2, 15)``;
- ``pending_async_api_calls{call_type}``: UIDs waiting in the FIFO.
"""

from __future__ import annotations

import bisect
import threading
from collections import Counter
from dataclasses import dataclass
from typing import Final

RESULT_SUCCESS: Final = "success"
"""``metrics.GoroutineResultSuccess``."""
RESULT_ERROR: Final = "error"
"""``metrics.GoroutineResultError``."""

DURATION_BUCKETS: Final = tuple(0.001 * 2**i for i in range(15))
"""``metrics.ExponentialBuckets(0.001, 2, 15)``: upper bounds from 1 ms to about 16 s."""


@dataclass(frozen=True)
class Histogram:
    """One label set's histogram: cumulative counts per upper bound (the last is +Inf), the sum and the count."""

    bucket_counts: tuple[int, ...]
    sum: float
    count: int


class DispatcherMetrics:
    """The three metrics, thread-safe. Labels are ``(call_type, result)`` and ``call_type``."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._calls: Counter[tuple[str, str]] = Counter()
        self._buckets: dict[tuple[str, str], list[int]] = {}
        self._sums: dict[tuple[str, str], float] = {}
        self._pending: Counter[str] = Counter()

    def call_executed(self, call_type: str, result: str, seconds: float) -> None:
        """Count one executed call and observe its duration."""
        key = (call_type, result)
        with self._lock:
            self._calls[key] += 1
            self._sums[key] = self._sums.get(key, 0.0) + seconds
            buckets = self._buckets.setdefault(key, [0] * (len(DURATION_BUCKETS) + 1))
            buckets[bisect.bisect_left(DURATION_BUCKETS, seconds)] += 1

    def pending_changed(self, call_type: str, delta: int) -> None:
        """Add ``delta`` to the pending-calls gauge of ``call_type``."""
        with self._lock:
            self._pending[call_type] += delta

    def calls_total(self) -> dict[tuple[str, str], int]:
        """``async_api_call_execution_total`` by ``(call_type, result)``."""
        with self._lock:
            return dict(self._calls)

    def duration(self, call_type: str, result: str) -> Histogram:
        """``async_api_call_execution_duration_seconds`` for one label set (all zero if never observed)."""
        key = (call_type, result)
        with self._lock:
            per_bucket = self._buckets.get(key, [0] * (len(DURATION_BUCKETS) + 1))
            cumulative = tuple(sum(per_bucket[: i + 1]) for i in range(len(per_bucket)))
            return Histogram(cumulative, self._sums.get(key, 0.0), self._calls[key])

    def pending_calls(self) -> dict[str, int]:
        """``pending_async_api_calls`` by ``call_type`` (types never pending are absent)."""
        with self._lock:
            return dict(self._pending)
