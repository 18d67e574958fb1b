"""A cancellation context: the part of Go's ``context.Context`` the dispatcher passes to ``Execute``.

``APIDispatcher.Run`` creates one context and cancels it on ``Close``, so that executing calls see their request
fail with "context canceled". Go code waits on ``ctx.Done()`` together with other channels in a ``select``; Python has
no ``select`` over arbitrary waits, so a waiter that also waits on something else registers a function with
:meth:`Context.after_cancel` (Go's ``context.AfterFunc``) that wakes it.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Final

CONTEXT_CANCELED: Final = "context canceled"
"""``context.Canceled.Error()``."""


class ContextCanceled(Exception):
    """``context.Canceled``: the request was abandoned because its context was cancelled."""

    def __init__(self, message: str = CONTEXT_CANCELED) -> None:
        super().__init__(message)


class Context:
    """A cancellable context. Thread-safe; cancelling twice is harmless."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._done = threading.Event()
        self._callbacks: list[Callable[[], None]] = []
        # Invariant: once _done is set, _callbacks is empty and stays so (each callback ran exactly once).

    def cancel(self) -> None:
        """Cancel the context: :meth:`wait` returns, and every registered function runs once, in this thread."""
        with self._lock:
            if self._done.is_set():
                return
            self._done.set()
            callbacks, self._callbacks = self._callbacks, []
        for callback in callbacks:
            callback()

    @property
    def cancelled(self) -> bool:
        """``ctx.Err() != nil``."""
        return self._done.is_set()

    def wait(self, timeout: float | None = None) -> bool:
        """Block until the context is cancelled or ``timeout`` seconds pass; return whether it is cancelled."""
        return self._done.wait(timeout)

    def after_cancel(self, callback: Callable[[], None]) -> Callable[[], bool]:
        """``context.AfterFunc``: run ``callback`` when the context is cancelled (at once if it already is).

        Returns ``stop``, which unregisters the callback and says whether it did so before the callback ran.
        """
        with self._lock:
            registered = not self._done.is_set()
            if registered:
                self._callbacks.append(callback)
        if not registered:
            callback()

        def stop() -> bool:
            with self._lock:
                if callback in self._callbacks:
                    self._callbacks.remove(callback)
                    return True
                return False

        return stop
