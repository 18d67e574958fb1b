"""backoffQ: ``backoffQueue`` (pkg/scheduler/backend/queue/backoff_queue.go, v1.35; digest §F.1-F.2).

Two heaps ordered by backoff expiry: ``podBackoffQ`` for pods some plugin rejected and ``podErrorBackoffQ`` for
pods that failed with an error (no rejector plugin). With ``SchedulerPopFromBackoffQ`` on, expiries are truncated
to the 1 s ordering window, podBackoffQ breaks ties in the window with activeQ's order, and an idle scheduler may
pop its head early. Not locked: :class:`~refimpl.scheduler.queue.SchedulingQueue`'s lock guards it.
"""

from __future__ import annotations

from refimpl.cache.clock import Clock
from refimpl.scheduler import backoff
from refimpl.scheduler.heap import Heap
from refimpl.scheduler.queued_pod_info import LessFunc, QueuedPodInfo, queued_pod_key

_NO_BACKOFF = -(1 << 63)  # Go's zero time sorts before every real expiry.


class BackoffQueue:
    """``backoffQueue``: both heaps, seen as one queue."""

    def __init__(self, clock: Clock, initial: int, maximum: int, active_less: LessFunc, pop_from_backoff_q: bool):
        """``newBackoffQueue``: ``initial`` / ``maximum`` backoff in nanoseconds; ``active_less`` is activeQ's order,
        used to break ties when ``pop_from_backoff_q``."""
        self.clock = clock
        self.initial = initial
        self.maximum = maximum
        self.pop_from_backoff_q = pop_from_backoff_q
        self._active_less = active_less
        less = self._less_with_priority if pop_from_backoff_q else self._less
        self._backoff: Heap[QueuedPodInfo] = Heap(queued_pod_key, less)  # pods with rejector plugins
        self._errors: Heap[QueuedPodInfo] = Heap(queued_pod_key, self._less)  # pods that failed with an error

    # Expiry -------------------------------------------------------------------------------------

    def backoff_time(self, pinfo: QueuedPodInfo) -> int | None:
        """``getBackoffTime``: when the pod's backoff ends; None (Go's zero time) when it has none. Computed once
        per failure and cached in the pod info (the failure resets the cache)."""
        count = backoff.backoff_count(pinfo.unschedulable_count, pinfo.consecutive_errors_count)
        if self.maximum == 0 or count == 0:
            return None
        if pinfo.backoff_expiration is None:
            pinfo.backoff_expiration = backoff.backoff_expiration(
                pinfo.timestamp, count, self.initial, self.maximum, self.pop_from_backoff_q
            )
        return pinfo.backoff_expiration

    def is_backing_off(self, pinfo: QueuedPodInfo) -> bool:
        """``isPodBackingoff`` at the clock's current time."""
        return backoff.is_backing_off(self.backoff_time(pinfo), self.clock.now(), self.pop_from_backoff_q)

    def _sort_time(self, pinfo: QueuedPodInfo) -> int:
        expiration = pinfo.backoff_expiration  # cached while the pod sits in a heap; compute on a miss
        if expiration is None:
            expiration = self.backoff_time(pinfo)
        return _NO_BACKOFF if expiration is None else expiration

    def _less(self, a: QueuedPodInfo, b: QueuedPodInfo) -> bool:
        """``lessBackoffCompleted``."""
        return self._sort_time(a) < self._sort_time(b)

    def _less_with_priority(self, a: QueuedPodInfo, b: QueuedPodInfo) -> bool:
        """``lessBackoffCompletedWithPriority``: same window -> activeQ's order."""
        ta, tb = self._sort_time(a), self._sort_time(b)
        if ta != tb:
            return ta < tb
        return self._active_less(a, b)

    def next_completion(self) -> int | None:
        """The earliest clock time at which a flush would release a pod (None: both heaps empty)."""
        times = [self._sort_time(h) for h in (self._backoff.peek(), self._errors.peek()) if h is not None]
        if not times:
            return None
        expiration = min(times)
        if expiration == _NO_BACKOFF:
            return self.clock.now()
        if self.pop_from_backoff_q:  # backing off while expiration >= alignToWindow(now)
            return backoff.align_to_window(expiration) + backoff.BACKOFF_Q_ORDERING_WINDOW
        return expiration + 1

    # Contents -----------------------------------------------------------------------------------

    def add(self, pinfo: QueuedPodInfo) -> None:
        """``add``: into podErrorBackoffQ when the pod has no rejector plugin, else podBackoffQ (and out of the
        other heap)."""
        self.backoff_time(pinfo)  # cache the expiry before the heaps compare it
        if not pinfo.unschedulable_plugins and not pinfo.pending_plugins:
            self._backoff.delete(queued_pod_key(pinfo))
            self._errors.add_or_update(pinfo)
        else:
            self._errors.delete(queued_pod_key(pinfo))
            self._backoff.add_or_update(pinfo)

    def delete(self, key: str) -> QueuedPodInfo | None:
        """``delete`` by namespace/name (:func:`~refimpl.scheduler.queued_pod_info.pod_key`): the removed entry, or
        None if the pod was in neither heap."""
        removed = self._backoff.delete(key)
        return removed if removed is not None else self._errors.delete(key)

    def get(self, key: str) -> QueuedPodInfo | None:
        """``get`` by namespace/name."""
        found = self._backoff.get(key)
        return found if found is not None else self._errors.get(key)

    def fix(self, key: str) -> None:
        """Restore the order after the entry's pod was replaced (``update``)."""
        self._backoff.fix(key)
        self._errors.fix(key)

    def pop_backoff(self) -> QueuedPodInfo | None:
        """``popBackoff``: the head of podBackoffQ, backing off or not; never from podErrorBackoffQ."""
        return self._backoff.pop()

    def pop_all_completed(self) -> list[QueuedPodInfo]:
        """``popAllBackoffCompleted``: every pod no longer backing off, podBackoffQ's first."""
        completed: list[QueuedPodInfo] = []
        for heap in (self._backoff, self._errors):
            while (head := heap.peek()) is not None and not self.is_backing_off(head):
                heap.pop()
                completed.append(head)
        return completed

    def violations(self) -> list[str]:
        """What is wrong with the two heaps: unsound heaps, a pod in both, a pod in the wrong heap, or a cached
        expiry that differs from a recomputation. Empty when sound."""
        problems = self._backoff.violations() + self._errors.violations()
        for pinfo in self._backoff:
            if pinfo.uid in self._errors:
                problems.append(f"{pinfo.uid} is in both podBackoffQ and podErrorBackoffQ")
            if not pinfo.rejector_plugins():
                problems.append(f"{pinfo.uid} is in podBackoffQ without a rejector plugin")
        for pinfo in self._errors:
            if pinfo.rejector_plugins():
                problems.append(f"{pinfo.uid} is in podErrorBackoffQ with rejector plugins")
        for pinfo in self.entries():
            count = backoff.backoff_count(pinfo.unschedulable_count, pinfo.consecutive_errors_count)
            if self.maximum and count:
                expected = backoff.backoff_expiration(
                    pinfo.timestamp, count, self.initial, self.maximum, self.pop_from_backoff_q
                )
                if pinfo.backoff_expiration != expected:
                    problems.append(f"{pinfo.uid}'s cached backoff expiry {pinfo.backoff_expiration} != {expected}")
        return problems

    def __contains__(self, key: str) -> bool:
        return key in self._backoff or key in self._errors

    def __len__(self) -> int:
        return len(self._backoff) + len(self._errors)

    def len_backoff(self) -> int:
        """``lenBackoff``: podBackoffQ only (what PopFromBackoffQ may take)."""
        return len(self._backoff)

    def entries(self) -> list[QueuedPodInfo]:
        """``list``: podBackoffQ then podErrorBackoffQ, in heap order."""
        return [*self._backoff, *self._errors]

    def heaps(self) -> tuple[list[QueuedPodInfo], list[QueuedPodInfo]]:
        """podBackoffQ's and podErrorBackoffQ's entries, each in heap order."""
        return list(self._backoff), list(self._errors)
