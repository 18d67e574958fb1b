"""Sleepers: how the fake API server waits out a request's latency, on real time or on a clock a test moves.

A sleeper's wait ends early when the request's context is cancelled, as a real request's would.
"""

from __future__ import annotations

import threading
from typing import Protocol

from refimpl.dispatcher.context import Context


class Sleeper(Protocol):
    """Waits out a latency."""

    def sleep(self, seconds: float, ctx: Context) -> bool:
        """Block for ``seconds`` or until ``ctx`` is cancelled; return True if the whole time passed uncancelled."""
        ...


class RealSleeper:
    """Sleeps on the monotonic clock."""

    def sleep(self, seconds: float, ctx: Context) -> bool:
        """``ctx.wait(seconds)``, inverted."""
        if seconds <= 0:
            return not ctx.cancelled
        return not ctx.wait(seconds)


class ManualSleeper:
    """Time that moves only when a test calls :meth:`advance`; sleepers wake when it passes their deadline or their
    context is cancelled. :meth:`advance` returns only once every sleeper it woke has left, so a test steps it
    deterministically. Thread-safe."""

    def __init__(self, settle_timeout: float = 5.0) -> None:
        self._cond = threading.Condition()
        self._now = 0.0
        self._deadlines: dict[int, float] = {}  # per sleeping thread (by ident): when it wakes
        self._settle_timeout = settle_timeout

    @property
    def now(self) -> float:
        """Seconds since the sleeper was made."""
        with self._cond:
            return self._now

    @property
    def sleepers(self) -> int:
        """How many threads are sleeping now."""
        with self._cond:
            return len(self._deadlines)

    def advance(self, seconds: float) -> None:
        """Move time forward, wake the sleepers whose deadline passed and wait (in real time, at most the settle
        timeout given at construction) until they have left; fails with ``RuntimeError`` if they do not."""
        if seconds < 0:
            raise ValueError(f"manual time only moves forward; got an advance of {seconds} s")
        with self._cond:
            self._now += seconds
            self._cond.notify_all()
            if not self._cond.wait_for(self._settled, self._settle_timeout):
                raise RuntimeError(f"sleepers did not wake within {self._settle_timeout} s of an advance")

    def _settled(self) -> bool:
        return all(deadline > self._now for deadline in self._deadlines.values())

    def wait_for_sleepers(self, count: int, timeout: float) -> bool:
        """Wait (in real time, at most ``timeout`` seconds) until exactly ``count`` threads sleep; return whether
        they do."""
        with self._cond:
            return self._cond.wait_for(lambda: len(self._deadlines) == count, timeout)

    def _wake(self) -> None:
        with self._cond:
            self._cond.notify_all()

    def sleep(self, seconds: float, ctx: Context) -> bool:
        """Block until manual time reaches now + ``seconds`` or ``ctx`` is cancelled."""
        me = threading.get_ident()
        stop = ctx.after_cancel(self._wake)
        try:
            with self._cond:
                deadline = self._now + seconds
                self._deadlines[me] = deadline
                self._cond.notify_all()
                try:
                    self._cond.wait_for(lambda: ctx.cancelled or self._now >= deadline)
                finally:
                    del self._deadlines[me]
                    self._cond.notify_all()
                return not ctx.cancelled
        finally:
            stop()
