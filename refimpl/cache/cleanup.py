"""The background worker that runs the cache's cleanup cycle every period (``wait.Until`` in ``cacheImpl.run``).

Like ``wait.Until`` with sliding timing, it runs the cycle at once, then waits a full period after each cycle ends,
until stopped. ``stop()`` sets the stop event, wakes the clock and joins the thread, so no thread outlives it.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Final

from refimpl.cache.clock import Clock

DEFAULT_CLEANUP_PERIOD: Final = 1.0
"""``cleanAssumedPeriod``: one second."""

THREAD_NAME: Final = "scheduler-cache-cleanup"


class CleanupWorker:
    """Runs ``tick`` every ``period`` seconds of ``clock`` time on a daemon thread, between start and stop.

    If ``tick`` raises (``SchedulerExit`` would end the Kubernetes process), the worker records the exception in
    :attr:`error` and stops ticking.
    """

    def __init__(self, tick: Callable[[], None], clock: Clock, period: float = DEFAULT_CLEANUP_PERIOD) -> None:
        if period <= 0:
            raise ValueError(f"the cleanup period must be positive, got {period}")
        self._tick = tick
        self._clock = clock
        self._period = period
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._progress = threading.Condition()
        self._ticks = 0
        self._done = False
        self.error: BaseException | None = None
        """The exception that stopped the worker, if any."""

    @property
    def running(self) -> bool:
        """Whether the thread is alive."""
        return self._thread is not None and self._thread.is_alive()

    @property
    def ticks(self) -> int:
        """Cycles completed so far."""
        with self._progress:
            return self._ticks

    def start(self) -> None:
        """Start the thread. Fails with ``RuntimeError`` if it was started before."""
        if self._thread is not None:
            raise RuntimeError("the cleanup worker was already started; create a new one to start again")
        self._thread = threading.Thread(target=self._run, name=THREAD_NAME, daemon=True)
        self._thread.start()

    def stop(self, timeout: float | None = 10.0) -> None:
        """Stop the thread and wait for it to end. Fails with ``RuntimeError`` if it did not end within ``timeout``."""
        self._stop.set()
        self._clock.wake()
        thread = self._thread
        if thread is not None and thread is not threading.current_thread():
            thread.join(timeout)
            if thread.is_alive():
                raise RuntimeError(f"the cleanup worker did not stop within {timeout} s")
        with self._progress:
            self._progress.notify_all()

    def wait_for_ticks(self, count: int, timeout: float = 10.0) -> bool:
        """Block until ``count`` cycles completed or the worker ended; return whether ``count`` was reached."""
        with self._progress:
            self._progress.wait_for(lambda: self._ticks >= count or self._done, timeout)
            return self._ticks >= count

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                self._tick()
            except BaseException as error:  # The cycle's failure ends the worker, never silently.
                self.error = error
                break
            with self._progress:
                self._ticks += 1
                self._progress.notify_all()
            if self._clock.wait(self._stop, self._period):
                break
        with self._progress:
            self._done = True
            self._progress.notify_all()
