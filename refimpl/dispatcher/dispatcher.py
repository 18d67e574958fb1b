"""The API dispatcher: a run loop that pops calls from the call queue and executes each on its own thread.

``APIDispatcher`` (pkg/scheduler/backend/api_dispatcher/api_dispatcher.go; digest §A.5).

**Threads, not asyncio.** The work is blocking I/O against the API server, done by a client that blocks; Kubernetes
runs each call on its own goroutine and the call queue's ``pop`` blocks on a condition variable. Threads map one to
one onto that design (the loop goroutine, one goroutine per call, ``sync.Cond``), keep ``add`` callable from any
thread without an event loop, and let a refinement test drive the very same :class:`CallQueue` synchronously.
asyncio would need every client, caller and test to run inside one event loop.

**Run loop.** Until close: (v1.34.0 only) acquire a slot of the goroutine limiter, pop, and start a
worker. The worker executes the call under the dispatcher's context, records the metrics, **finalizes** the call (a
newer call for the same object is queued then) and only **then** sends the result to the caller, as Kubernetes does.
Without a limit (v1.35) there are as many worker threads as calls executing, as Kubernetes has goroutines.

**Close.** Stops the loop, closes the queue (which wakes ``pop``) and the limiter, and cancels the context so that
executing calls fail with "context canceled": at once in v1.35 (``Close`` calls ``cancel``), when the loop has
exited in v1.34.0 (its loop goroutine deferred ``cancel``). Then it joins the loop and every worker, so that no
thread outlives it. What pending callers are told follows the profile (:mod:`refimpl.dispatcher.call_queue`): in
v1.34/v1.35, nothing. In v1.35, as in Kubernetes, a ``pop`` racing with close may still hand out a call that a
cancelled execution finalized back into the FIFO; that call then runs with the cancelled context.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Mapping
from typing import Final

from refimpl.dispatcher.api_calls import RELEVANCES, APICall, APIClient, PodStatus
from refimpl.dispatcher.call_queue import CallQueue, OnFinish, QueuedCall
from refimpl.dispatcher.context import Context
from refimpl.dispatcher.metrics import RESULT_ERROR, RESULT_SUCCESS, DispatcherMetrics
from spec.versions import DEFAULT_PROFILE, VersionProfile

LOGGER: Final = logging.getLogger(__name__)

LOOP_THREAD_NAME: Final = "api-dispatcher-loop"
WORKER_THREAD_PREFIX: Final = "api-dispatcher-call-"
PRUNE_WORKERS_AT: Final = 256
"""How many worker threads the dispatcher remembers before it forgets those that ended."""
DEFAULT_CLOSE_TIMEOUT: Final = 5.0
"""Seconds :meth:`APIDispatcher.close` waits for the loop and the workers to end."""


class GoroutinesLimiter:
    """``goroutinesLimiter`` (v1.34.0 only): at most ``max_goroutines`` calls execute at once."""

    def __init__(self, max_goroutines: int) -> None:
        if max_goroutines < 1:
            raise ValueError(f"the goroutine limit must be at least 1, got {max_goroutines}")
        self._max = max_goroutines
        self._cond = threading.Condition()
        self._goroutines = 0  # 0 <= _goroutines, and <= _max except after acquires that raced with close
        self._closed = False

    def acquire(self) -> bool:
        """``acquire``: wait for a free slot and take it; False if the limiter is closed while none is free."""
        with self._cond:
            while self._goroutines >= self._max:
                if self._closed:
                    return False
                self._cond.wait()
            self._goroutines += 1
            return True

    def try_acquire(self) -> bool:
        """Take a free slot without waiting; False if none is free."""
        with self._cond:
            if self._goroutines >= self._max:
                return False
            self._goroutines += 1
            return True

    def release(self) -> None:
        """``release``: give a slot back."""
        with self._cond:
            assert self._goroutines > 0, "release without acquire"
            self._goroutines -= 1
            self._cond.notify_all()

    def close(self) -> None:
        """``close``: wake waiters, which then fail to acquire."""
        with self._cond:
            self._closed = True
            self._cond.notify_all()


class APIDispatcher:
    """``APIDispatcher``: ``add`` and ``sync_object`` from any thread; ``run`` once, ``close`` once it is done."""

    def __init__(
        self,
        client: APIClient,
        profile: VersionProfile = DEFAULT_PROFILE,
        relevances: Mapping[str, int] = RELEVANCES,
        *,
        metrics: DispatcherMetrics | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._client = client
        self._profile = profile
        self.metrics = metrics if metrics is not None else DispatcherMetrics()
        self.queue = CallQueue(profile, relevances, self.metrics)
        self._clock = clock
        limit = profile.dispatcher_max_in_flight
        self._limiter = GoroutinesLimiter(limit) if limit is not None else None
        self._ctx = Context()  # passed to every Execute; cancelled by close
        self._stopped = threading.Event()  # the loop's "ctx.Done()" (v1.35) or "ad.stop" (v1.34.0) check
        self._loop: threading.Thread | None = None
        self._workers_lock = threading.Lock()
        self._workers: set[threading.Thread] = set()  # every worker started and not yet known to have ended
        self._prune_at = PRUNE_WORKERS_AT

    @property
    def profile(self) -> VersionProfile:
        return self._profile

    def add(self, call: APICall, on_finish: OnFinish | None = None) -> Exception | None:
        """``Add``: None if the call is kept, else why not (also sent to ``on_finish``)."""
        return self.queue.add(call, on_finish)

    def sync_object(self, uid: str, status: PodStatus) -> PodStatus:
        """``SyncObject``: see :meth:`CallQueue.sync_object`."""
        return self.queue.sync_object(uid, status)

    # -- run ------------------------------------------------------------------------------

    def run(self) -> None:
        """``Run``: start the loop thread. Fails with ``RuntimeError`` if called twice."""
        if self._loop is not None:
            raise RuntimeError("the API dispatcher is already running; run() may be called once")
        self._loop = threading.Thread(target=self._run_loop, name=LOOP_THREAD_NAME, daemon=True)
        self._loop.start()

    def _run_loop(self) -> None:
        try:
            while not self._stopped.is_set():
                if self._limiter is not None and not self._limiter.acquire():
                    return
                try:
                    queued = self.queue.pop()
                except LookupError:
                    LOGGER.exception("popping API call from call controller failed")
                    self._release()
                    continue
                if queued is None:
                    self._release()
                    return
                self._start_worker(queued)
        finally:
            if self._limiter is not None:
                self._ctx.cancel()  # v1.34.0: ``defer cancel()`` in the loop goroutine

    def _start_worker(self, queued: QueuedCall) -> None:
        worker = threading.Thread(
            target=self._execute, args=(queued,), name=f"{WORKER_THREAD_PREFIX}{queued.call.uid}", daemon=True
        )
        with self._workers_lock:
            if len(self._workers) >= self._prune_at:  # forget ended workers now and then; close joins the rest
                self._workers = {w for w in self._workers if w.is_alive()}
                self._prune_at = max(PRUNE_WORKERS_AT, 2 * len(self._workers))
            self._workers.add(worker)
        try:
            worker.start()
        except RuntimeError as refused:  # "can't start new thread": the call fails, its caller is told
            self._finish(queued, refused)
            self._release()

    def _execute(self, queued: QueuedCall) -> None:
        """A worker: execute, record the metrics, finalize, then tell the caller."""
        try:
            started = self._clock()
            error: Exception | None = None
            try:
                queued.call.execute(self._ctx, self._client)
            except Exception as failed:  # any failure is the call's result, for its caller to see
                error = failed
            result = RESULT_SUCCESS if error is None else RESULT_ERROR
            self.metrics.call_executed(queued.call.call_type, result, self._clock() - started)
            self._finish(queued, error)
        finally:
            self._release()

    def _finish(self, queued: QueuedCall, error: Exception | None) -> None:
        """Finalize first (a newer call for the object joins the FIFO), then tell the caller."""
        self.queue.finalize(queued)
        queued.send_on_finish(error)

    def _release(self) -> None:
        if self._limiter is not None:
            self._limiter.release()

    # -- close ----------------------------------------------------------------------------

    def close(self, timeout: float = DEFAULT_CLOSE_TIMEOUT) -> bool:
        """``Close``, then wait up to ``timeout`` seconds for the loop and every worker to end; return whether all
        did (a worker whose client ignores cancellation may not)."""
        self._stopped.set()
        self.queue.close()
        if self._limiter is not None:
            self._limiter.close()
        if self._limiter is None or self._loop is None:
            self._ctx.cancel()
        deadline = time.monotonic() + timeout
        if self._loop is not None:
            self._loop.join(max(0.0, deadline - time.monotonic()))
            if self._loop.is_alive():
                return False
        with self._workers_lock:
            workers = list(self._workers)
        for worker in workers:
            worker.join(max(0.0, deadline - time.monotonic()))
        return not any(worker.is_alive() for worker in workers)

    def running_workers(self) -> int:
        """How many worker threads are executing a call now."""
        with self._workers_lock:
            return sum(1 for worker in self._workers if worker.is_alive())
