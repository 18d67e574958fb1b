"""Simulated informers: watch events delivered late and out of order across objects, in order per object.

A client-go informer (``SharedIndexInformer``) receives a watch stream, updates its indexer (the lister the
scheduler reads, e.g. in ``handleSchedulingFailure``), then calls the registered handlers (``addPod``,
``updatePod``, ``deletePod``, ``addNodeToCache``, ... in pkg/scheduler/eventhandlers.go). Events of one object are
delivered in the order the API server produced them; events of different objects, and of the pod and node
informers, reach the scheduler with independent delays, so they may be reordered relative to each other (digest
§D; ``spec.cycle.cycle`` makes the same assumption).

Here each event gets a due time ``emitted + delay``, raised to the due time of the previous event of the same
object, so per-object order is kept whatever the delays. A driver delivers an event when its time comes
(:meth:`Informer.next_due`, :meth:`Informer.deliver_next`), or picks any event that is first for its object
(:meth:`Informer.deliverable`, :meth:`Informer.deliver`) to explore other orders.
"""

from __future__ import annotations

import heapq
import random
from collections import deque
from dataclasses import dataclass
from enum import StrEnum
from typing import Protocol

from spec.objects import Node, Pod


class EventType(StrEnum):
    """``watch.EventType``."""

    ADDED = "ADDED"
    MODIFIED = "MODIFIED"
    DELETED = "DELETED"


class Kind(StrEnum):
    """Which informer an event belongs to."""

    POD = "pod"
    NODE = "node"


@dataclass(frozen=True)
class WatchEvent:
    """One watch event: ``old`` for MODIFIED (the object the informer had), ``new`` for ADDED and MODIFIED, the
    last state for DELETED. ``seq`` numbers events in the order they were emitted."""

    seq: int
    kind: Kind
    type: EventType
    key: str
    old: Pod | Node | None
    new: Pod | Node | None
    due: int
    """Virtual time (ns) at which the event reaches the scheduler if the driver follows the clock."""

    def describe(self) -> str:
        """A short human-readable form, for traces and failure messages."""
        return f"{self.kind} {self.type} {self.key} (due {self.due} ns)"


class InformerHandlers(Protocol):
    """The scheduler's event handlers, as the informers call them (eventhandlers.go)."""

    def on_add_pod(self, pod: Pod) -> None:
        """``addPod``."""
        ...

    def on_update_pod(self, old: Pod, new: Pod) -> None:
        """``updatePod``."""
        ...

    def on_delete_pod(self, pod: Pod) -> None:
        """``deletePod``."""
        ...

    def on_add_node(self, node: Node) -> None:
        """``addNodeToCache``."""
        ...

    def on_update_node(self, old: Node, new: Node) -> None:
        """``updateNodeInCache``."""
        ...

    def on_delete_node(self, node: Node) -> None:
        """``deleteNodeFromCache``."""
        ...


def pod_key(pod: Pod) -> str:
    """The informer's key of a pod: ``namespace/name``."""
    return f"{pod.namespace}/{pod.name}"


class Informer:
    """Both informers (pods and nodes) of one scheduler, with their listers, fed by :class:`~refimpl.simulator.world.
    World`. Not thread-safe: the simulation is single-threaded."""

    def __init__(self, rng: random.Random, min_delay: int = 0, max_delay: int = 0) -> None:
        """``min_delay``..``max_delay`` (ns) bounds each event's delay, drawn uniformly from ``rng``. Fails with
        ``ValueError`` if the bounds are negative or reversed."""
        if min_delay < 0 or max_delay < min_delay:
            raise ValueError(f"informer delay bounds must satisfy 0 <= min <= max, got {min_delay}..{max_delay} ns")
        self._rng = rng
        self._min_delay = min_delay
        self._max_delay = max_delay
        self._handlers: InformerHandlers | None = None
        self._queues: dict[tuple[Kind, str], deque[WatchEvent]] = {}  # per object, in emission order
        self._heads: list[tuple[int, int, WatchEvent]] = []  # (due, seq, event) of queue heads; stale entries
        self._pending = 0  # left behind by deliver() are dropped lazily by next_due()
        self._seq = 0
        self.pods: dict[str, Pod] = {}
        """The pod lister: ``namespace/name`` -> the pod as last delivered."""
        self.nodes: dict[str, Node] = {}
        """The node lister: name -> the node as last delivered."""
        self.delivered = 0
        """How many events were delivered."""

    def set_handlers(self, handlers: InformerHandlers) -> None:
        """Register the scheduler's handlers (``addAllEventHandlers``)."""
        self._handlers = handlers

    # -- the API server side -------------------------------------------------------------

    def emit(self, now: int, kind: Kind, type_: EventType, key: str, old: Pod | Node | None,
             new: Pod | Node | None) -> WatchEvent:
        """Queue an event the API server produced at ``now``."""
        queue = self._queues.setdefault((kind, key), deque())
        delay = self._rng.randint(self._min_delay, self._max_delay) if self._max_delay > self._min_delay else (
            self._min_delay)
        due = now + delay
        if queue:
            due = max(due, queue[-1].due)  # never overtake an earlier event of the same object
        event = WatchEvent(self._seq, kind, type_, key, old, new, due)
        self._seq += 1
        queue.append(event)
        self._pending += 1
        if len(queue) == 1:
            heapq.heappush(self._heads, (event.due, event.seq, event))
        return event

    # -- the scheduler side --------------------------------------------------------------

    def pending(self) -> int:
        """How many events wait to be delivered."""
        return self._pending

    def deliverable(self) -> list[WatchEvent]:
        """The events that may be delivered now in some order: the first of each object, in emission order."""
        return sorted((q[0] for q in self._queues.values()), key=lambda e: e.seq)

    def next_due(self) -> WatchEvent | None:
        """The deliverable event with the earliest due time (ties: first emitted), or None."""
        heads = self._heads
        while heads:
            event = heads[0][2]
            queue = self._queues.get((event.kind, event.key))
            if queue and queue[0] is event:
                return event
            heapq.heappop(heads)  # delivered out of due order by deliver()
        return None

    def deliver_next(self) -> WatchEvent | None:
        """Deliver :meth:`next_due` and return it (None if nothing is pending)."""
        event = self.next_due()
        if event is not None:
            self.deliver(event)
        return event

    def deliver(self, event: WatchEvent) -> None:
        """Update the lister, then call the handler. Fails with ``ValueError`` if ``event`` is not the first pending
        event of its object (that would break per-object order)."""
        queue = self._queues.get((event.kind, event.key))
        if not queue or queue[0] is not event:
            raise ValueError(f"event {event.describe()} is not the next event of its object")
        queue.popleft()
        self._pending -= 1
        if queue:
            heapq.heappush(self._heads, (queue[0].due, queue[0].seq, queue[0]))
        else:
            del self._queues[(event.kind, event.key)]
        self.delivered += 1
        if event.kind is Kind.POD:
            self._deliver_pod(event)
        else:
            self._deliver_node(event)

    def _deliver_pod(self, event: WatchEvent) -> None:
        new, old = event.new, event.old
        if event.type is EventType.DELETED:
            assert isinstance(new, Pod)
            self.pods.pop(event.key, None)
            if self._handlers is not None:
                self._handlers.on_delete_pod(new)
            return
        assert isinstance(new, Pod)
        known = self.pods.get(event.key)
        self.pods[event.key] = new
        if self._handlers is None:
            return
        if known is None:
            self._handlers.on_add_pod(new)
        else:
            assert old is None or isinstance(old, Pod)
            self._handlers.on_update_pod(known, new)

    def _deliver_node(self, event: WatchEvent) -> None:
        new = event.new
        assert isinstance(new, Node)
        if event.type is EventType.DELETED:
            self.nodes.pop(event.key, None)
            if self._handlers is not None:
                self._handlers.on_delete_node(new)
            return
        known = self.nodes.get(event.key)
        self.nodes[event.key] = new
        if self._handlers is None:
            return
        if known is None:
            self._handlers.on_add_node(new)
        else:
            self._handlers.on_update_node(known, new)

    def get_pod(self, namespace: str, name: str) -> Pod | None:
        """The pod lister's ``Pods(namespace).Get(name)``: None if the informer has no such pod."""
        return self.pods.get(f"{namespace}/{name}")
