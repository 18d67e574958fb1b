"""The API dispatcher pumped by hand: its run loop and per-call goroutines as explicit, single-threaded steps.

For tests and single-threaded drivers: an :class:`~refimpl.dispatcher.APIDispatcher` that is never ``run()`` keeps
its call queue; :meth:`ManualDispatcher.start_next` is one turn of the run loop (pop: the call is now in flight)
and :meth:`ManualDispatcher.complete` the end of that call's goroutine (execute against the client, finalize, then
notify the caller, in Kubernetes' order; digest §A.5). Between the two a driver may change the world, for example
delete the pod whose binding is in flight. (The simulator has its own latency-aware stepper.)
"""

from __future__ import annotations

from refimpl.dispatcher import APIClient, APIDispatcher, Context, QueuedCall


class ManualDispatcher:
    """Steps one dispatcher against one client. Not thread-safe."""

    def __init__(self, dispatcher: APIDispatcher, client: APIClient) -> None:
        self.dispatcher = dispatcher
        self.client = client
        self.context = Context()
        self.in_flight: list[QueuedCall] = []
        """Calls popped and not completed, oldest first."""

    def pending(self) -> int:
        """Calls waiting in the FIFO."""
        return self.dispatcher.queue.pending()

    def start_next(self) -> QueuedCall | None:
        """Pop the FIFO's head (None if empty): the call is in flight until :meth:`complete`."""
        if self.pending() == 0:
            return None
        queued = self.dispatcher.queue.pop()  # does not block: the FIFO is not empty
        if queued is not None:
            self.in_flight.append(queued)
        return queued

    def complete(self, queued: QueuedCall) -> Exception | None:
        """Execute the in-flight call now, finalize it, then send its outcome; returns the outcome."""
        self.in_flight.remove(queued)
        error: Exception | None = None
        try:
            queued.call.execute(self.context, self.client)
        except Exception as failed:  # the call's failure is its outcome, for its caller
            error = failed
        self.dispatcher.queue.finalize(queued)
        queued.send_on_finish(error)
        return error

    def run_one(self) -> bool:
        """Start and complete the next call; False if none was pending."""
        queued = self.start_next()
        if queued is None:
            return False
        self.complete(queued)
        return True

    def run_all(self) -> int:
        """Run calls until the FIFO is empty (calls queued meanwhile included); how many ran."""
        count = 0
        while self.run_one():
            count += 1
        return count
