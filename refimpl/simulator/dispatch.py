"""The API dispatcher, stepped: the run loop and its per-call goroutines played out in virtual time.

``APIDispatcher.Run`` (digest §A.5) pops a call, starts a goroutine that executes it, and loops; the goroutine
executes, finalizes (a newer call for the same object joins the FIFO) and then notifies the caller. Here the
:class:`~refimpl.dispatcher.dispatcher.APIDispatcher`'s own :class:`~refimpl.dispatcher.call_queue.CallQueue` is
used as is, but nothing runs on a thread: :meth:`SteppedDispatcher.pop` is one iteration of the loop (the call
becomes *in flight*, due after a latency drawn from the RNG), and :meth:`SteppedDispatcher.complete` is the end of
one goroutine (execute against the client, finalize, send the result). A driver completes calls when their due time
comes, or in any order it likes, which is how concurrent requests interleave.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from refimpl.dispatcher.api_calls import APIClient
from refimpl.dispatcher.call_queue import QueuedCall
from refimpl.dispatcher.context import Context
from refimpl.dispatcher.dispatcher import APIDispatcher


@dataclass(frozen=True)
class InFlight:
    """A call popped from the queue and executing: it completes at ``due`` (ns) if the driver follows the clock."""

    seq: int
    queued: QueuedCall
    due: int

    def describe(self) -> str:
        """A short human-readable form."""
        return f"{self.queued.call.call_type} {self.queued.call.uid} (due {self.due} ns)"


class SteppedDispatcher:
    """Steps an :class:`APIDispatcher` that is never ``run()``. Not thread-safe."""

    def __init__(self, dispatcher: APIDispatcher, client: APIClient, rng: random.Random,
                 min_latency: int = 0, max_latency: int = 0) -> None:
        """Each request takes ``min_latency``..``max_latency`` ns, drawn uniformly. Fails with ``ValueError`` if
        the bounds are negative or reversed."""
        if min_latency < 0 or max_latency < min_latency:
            raise ValueError(f"latency bounds must satisfy 0 <= min <= max, got {min_latency}..{max_latency} ns")
        self.dispatcher = dispatcher
        self._client = client
        self._rng = rng
        self._min = min_latency
        self._max = max_latency
        self._ctx = Context()
        self._seq = 0
        self.in_flight: list[InFlight] = []
        """Calls executing, in the order they were popped."""
        self.executed = 0
        self.failed = 0

    def pending(self) -> int:
        """Calls waiting in the FIFO."""
        return self.dispatcher.queue.pending()

    def busy(self) -> bool:
        """Some call is pending or in flight."""
        return bool(self.in_flight) or self.pending() > 0

    def can_pop(self) -> bool:
        """The loop may start another call: v1.34.0's goroutine limiter has a free slot (v1.35: always)."""
        limit = self.dispatcher.profile.dispatcher_max_in_flight
        return limit is None or len(self.in_flight) < limit

    def pop(self, now: int) -> InFlight | None:
        """One turn of the run loop: pop the FIFO's head and start executing it; None if the FIFO is empty or the
        v1.34.0 limiter has no free slot."""
        if self.pending() == 0 or not self.can_pop():
            return None
        queued = self.dispatcher.queue.pop()  # does not block: the FIFO is not empty
        assert queued is not None
        latency = self._rng.randint(self._min, self._max) if self._max > self._min else self._min
        flight = InFlight(self._seq, queued, now + latency)
        self._seq += 1
        self.in_flight.append(flight)
        return flight

    def pop_all(self, now: int) -> int:
        """Pop until the FIFO is empty or the limiter is full (v1.35 starts a goroutine per call without limit); how
        many."""
        count = 0
        while self.pop(now) is not None:
            count += 1
        return count

    def next_due(self) -> InFlight | None:
        """The in-flight call that completes first (ties: popped first), or None."""
        return min(self.in_flight, key=lambda f: (f.due, f.seq)) if self.in_flight else None

    def complete(self, flight: InFlight) -> Exception | None:
        """The goroutine of ``flight``: execute against the client, finalize, then send the result to the caller
        (finalize first, as Kubernetes does). Returns the call's error. Fails with ``ValueError`` if ``flight`` is
        not in flight."""
        if flight not in self.in_flight:
            raise ValueError(f"call {flight.describe()} is not in flight")
        self.in_flight.remove(flight)
        error: Exception | None = None
        try:
            flight.queued.call.execute(self._ctx, self._client)
        except Exception as failed:  # any failure is the call's result, for its caller to see
            error = failed
        self.executed += 1
        if error is not None:
            self.failed += 1
        self.dispatcher.queue.finalize(flight.queued)
        flight.queued.send_on_finish(error)
        return error
