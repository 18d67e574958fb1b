"""activeQ: ``activeQueue`` (pkg/scheduler/backend/queue/active_queue.go, v1.35; digest §F.1).

The heap of pods ready to be tried, in QueueSort order; the scheduling-cycle counter; and the in-flight
bookkeeping of QueueingHints: which pods were popped and not yet ``done``, and the cluster events recorded while
they were (``inFlightPods`` / ``inFlightEvents``). Not locked: :class:`~refimpl.scheduler.queue.SchedulingQueue`'s
lock guards it.

Kubernetes keeps one linked list of pod markers and events. Here the events form a log and a pod's marker is the
number of events recorded before its pop, so "the events after the pod" is a suffix of the log, found in O(1)
instead of walking past every other in-flight pod. Events before the oldest in-flight pod's marker are dropped, as
Kubernetes prunes the list's head in ``done``.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass

from refimpl.scheduler.events import ClusterEvent
from refimpl.scheduler.heap import Heap
from refimpl.scheduler.queued_pod_info import LessFunc, QueuedPodInfo, queued_pod_key
from spec.objects import Pod


@dataclass(frozen=True)
class RecordedEvent:
    """``clusterEvent``: an event recorded while pods were in flight, with its objects."""

    event: ClusterEvent
    old: object | None
    new: object | None


class ActiveQueue:
    """``activeQueue``."""

    def __init__(self, less: LessFunc) -> None:
        self._heap: Heap[QueuedPodInfo] = Heap(queued_pod_key, less)
        self.scheduling_cycle = 0
        """``schedCycle``: incremented by every successful pop."""
        self._in_flight: dict[str, int] = {}  # uid -> its marker
        self._in_flight_pods: dict[str, Pod] = {}  # uid -> the popped pod object
        self._order: deque[tuple[int, str]] = deque()  # (marker, uid) in pop order; stale entries skipped
        self._events: list[RecordedEvent] = []  # the log from event number _base on
        self._base = 0
        self._live = 0  # number of the first event some in-flight pod still needs
        self._total = 0  # number of the next event

    # The heap -----------------------------------------------------------------------------------

    def add(self, pinfo: QueuedPodInfo) -> None:
        """``add`` (AddOrUpdate)."""
        self._heap.add_or_update(pinfo)

    def delete(self, key: str) -> QueuedPodInfo | None:
        """``delete`` by namespace/name (:func:`~refimpl.scheduler.queued_pod_info.pod_key`): the removed entry or
        None."""
        return self._heap.delete(key)

    def get(self, key: str) -> QueuedPodInfo | None:
        """``get`` by namespace/name."""
        return self._heap.get(key)

    def fix(self, key: str) -> None:
        """Restore the order after the entry's pod was replaced (``update``)."""
        self._heap.fix(key)

    def pop_head(self) -> QueuedPodInfo | None:
        """The head of the heap, removed; None when empty (``Pop`` itself is the scheduling queue's)."""
        return self._heap.pop()

    def __contains__(self, key: str) -> bool:
        return key in self._heap

    def __len__(self) -> int:
        return len(self._heap)

    def entries(self) -> list[QueuedPodInfo]:
        """``list``, in heap order."""
        return list(self._heap)

    # In flight ----------------------------------------------------------------------------------

    def move_to_in_flight(self, pinfo: QueuedPodInfo) -> bool:
        """Start tracking a popped pod; False (and nothing changes) if its UID is already in flight, the
        "same pod is tracked in multiple places" case Kubernetes discards."""
        if pinfo.uid in self._in_flight:
            return False
        self._in_flight[pinfo.uid] = self._total
        self._in_flight_pods[pinfo.uid] = pinfo.pod
        self._order.append((self._total, pinfo.uid))
        return True

    def is_in_flight(self, uid: str) -> bool:
        """Whether the pod was popped and ``done`` was not called yet."""
        return uid in self._in_flight

    def in_flight_pods(self) -> list[Pod]:
        """``listInFlightPods``, in pop order."""
        return list(self._in_flight_pods.values())

    def done(self, uid: str) -> None:
        """``done``: forget the pod; drop the events no in-flight pod needs any more. Idempotent."""
        if self._in_flight.pop(uid, None) is None:
            return
        del self._in_flight_pods[uid]
        order = self._order
        while order and self._in_flight.get(order[0][1]) != order[0][0]:
            order.popleft()
        if not order:
            self._events.clear()
            self._base = self._live = self._total
            return
        self._live = order[0][0]
        dead = self._live - self._base
        if dead > 64 and 2 * dead > len(self._events):  # compact now and then: amortised O(1) per event
            del self._events[:dead]
            self._base = self._live

    def events_for(self, uid: str) -> list[RecordedEvent] | None:
        """``clusterEventsForPod``: the events recorded since the pod was popped; None if it is not in flight."""
        marker = self._in_flight.get(uid)
        if marker is None:
            return None
        return self._events[marker - self._base :]

    def add_event_if_any_in_flight(self, event: ClusterEvent, old: object | None, new: object | None) -> bool:
        """``addEventIfAnyInFlight``: record the event if some pod is in flight; whether it was recorded."""
        if not self._in_flight:
            return False
        self._record(RecordedEvent(event, old, new))
        return True

    def add_events_if_pod_in_flight(self, old: Pod | None, new: Pod, events: Iterable[ClusterEvent]) -> bool:
        """``addEventsIfPodInFlight``: record the events if ``new``'s pod is in flight; whether it is."""
        if new.uid not in self._in_flight:
            return False
        for event in events:
            self._record(RecordedEvent(event, old, new))
        return True

    def _record(self, item: RecordedEvent) -> None:
        self._events.append(item)
        self._total += 1

    def violations(self) -> list[str]:
        """What is wrong with activeQ's structures (heap soundness; the event log pruned when nothing is in
        flight; markers within the log). Empty when sound."""
        problems = self._heap.violations()
        if not self._in_flight and self._total != self._live:
            problems.append(f"{self._total - self._live} in-flight events kept with no pod in flight")
        for uid, marker in self._in_flight.items():
            if not self._base <= marker <= self._total or marker < self._live:
                problems.append(f"in-flight pod {uid}'s marker {marker} is outside the event log")
        if set(self._in_flight) != set(self._in_flight_pods):
            problems.append("in-flight markers and in-flight pods disagree")
        return problems

    def in_flight_entries(self) -> list[str | RecordedEvent]:
        """Kubernetes' ``inFlightEvents`` list (``listInFlightEvents``): each in-flight pod's UID where it was popped,
        and the events recorded after the oldest of them, in order."""
        latest = {uid: position for position, (_, uid) in enumerate(self._order)}  # a re-popped pod's newest entry
        markers: dict[int, list[str]] = {}
        for position, (marker, uid) in enumerate(self._order):
            if latest[uid] == position and self._in_flight.get(uid) == marker:
                markers.setdefault(marker, []).append(uid)
        entries: list[str | RecordedEvent] = []
        for number in range(self._live, self._total + 1):
            entries.extend(markers.get(number, ()))
            if number < self._total:
                entries.append(self._events[number - self._base])
        return entries

    def in_flight_event_count(self) -> int:
        """What Kubernetes' ``inFlightEvents`` list holds: the live events plus one marker per in-flight pod."""
        return self._total - self._live + len(self._in_flight)
