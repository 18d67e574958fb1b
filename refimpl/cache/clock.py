"""Clocks: where the cache reads the time, so that tests never read the wall clock.

Times are integer nanoseconds from an arbitrary origin, like :mod:`spec.quantities` timestamps.
"""

from __future__ import annotations

import threading
import time
from typing import Protocol


class Clock(Protocol):
    """What the cache and its cleanup worker need from a clock."""

    def now(self) -> int:
        """The current time in nanoseconds."""
        ...

    def wait(self, stop: threading.Event, seconds: float) -> bool:
        """Block for ``seconds`` of this clock's time or until ``stop`` is set; return whether it was set."""
        ...

    def wake(self) -> None:
        """Wake every :meth:`wait` so it re-checks its ``stop`` event (called after setting one)."""
        ...


class SystemClock:
    """The monotonic system clock (``time.monotonic_ns``): deadlines are immune to wall-clock jumps."""

    def now(self) -> int:
        """``time.monotonic_ns()``."""
        return time.monotonic_ns()

    def wait(self, stop: threading.Event, seconds: float) -> bool:
        """``stop.wait(seconds)``."""
        return stop.wait(seconds)

    def wake(self) -> None:
        """Nothing to do: ``Event.wait`` returns as soon as the event is set."""


class FakeClock:
    """A clock that moves only when told to; waiters wake when it passes their deadline. Thread-safe."""

    def __init__(self, start: int = 0) -> None:
        self._now = start
        self._changed = threading.Condition()
        self._waiters = 0

    def now(self) -> int:
        """The time last set."""
        with self._changed:
            return self._now

    def advance(self, nanoseconds: int) -> None:
        """Move the time forward by ``nanoseconds`` (>= 0) and wake the waiters."""
        if nanoseconds < 0:
            raise ValueError(f"a fake clock only moves forward; got an advance of {nanoseconds} ns")
        with self._changed:
            self._now += nanoseconds
            self._changed.notify_all()

    def set(self, now: int) -> None:
        """Move the time forward to ``now``; fails with ``ValueError`` if that is in the past."""
        with self._changed:
            if now < self._now:
                raise ValueError(f"a fake clock only moves forward; it is at {self._now} ns, asked for {now} ns")
            self._now = now
            self._changed.notify_all()

    def wait(self, stop: threading.Event, seconds: float) -> bool:
        """Block until the fake time reaches now + ``seconds`` or ``stop`` is set (see :meth:`wake`)."""
        with self._changed:
            deadline = self._now + round(seconds * 1_000_000_000)
            self._waiters += 1
            try:
                while not stop.is_set() and self._now < deadline:
                    self._changed.wait()
            finally:
                self._waiters -= 1
            return stop.is_set()

    def wake(self) -> None:
        """Wake every waiter so it re-checks its stop event."""
        with self._changed:
            self._changed.notify_all()

    @property
    def waiters(self) -> int:
        """How many threads are blocked in :meth:`wait` (lets a test step a worker deterministically)."""
        with self._changed:
            return self._waiters
