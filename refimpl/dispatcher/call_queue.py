"""The call queue: one call per object, merged, replaced or skipped, popped in FIFO order.

``callQueue`` (pkg/scheduler/backend/api_dispatcher/call_queue.go; v1.34.0 at commit c4b5de20, v1.35.0 with PR
#135180, PR #141745 at 324d94f5; digest §A.3-A.7). One lock guards four fields; a condition on it wakes ``pop``:

- ``_api_calls``: the one call kept per object UID, pending or in flight (or waiting behind an in-flight one);
- ``_fifo``: UIDs of pending calls in execution order, each once, none in flight;
- ``_in_flight``: UIDs popped and not yet finalized;
- ``_call_id_counter``: the next call ID; every ``add`` before close takes one, even a refused one.

Callers learn outcomes through an :class:`OnFinish` channel, sent to without blocking: a full channel drops the
value, as Go's ``select``/``default`` does. :class:`ResultChannel` is Go's ``make(chan error, 1)``.

Profile differences (:class:`~spec.versions.VersionProfile`): ``dispatcher_close_notifies`` (close tells every
tracked call "api dispatcher is closed", add after close is refused, pop after close returns nothing) and
``dispatcher_waits_behind_in_flight`` (a call of another type waits behind an in-flight call, which is not told;
from v1.35, PR #135180).
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Final, Protocol

from refimpl.dispatcher.api_calls import RELEVANCES, APICall, CallOverwritten, CallSkipped, MergeError, PodStatus
from refimpl.dispatcher.metrics import DispatcherMetrics
from spec.versions import DEFAULT_PROFILE, VersionProfile

SKIPPED_LESS_RELEVANT: Final = "a more relevant call is already enqueued for this object: call skipped"
OVERWRITTEN_BY_MORE_RELEVANT: Final = "a more relevant call was enqueued for this object: call overwritten"
OVERWRITTEN_BY_SAME_TYPE: Final = "a call of the same type was enqueued for this object: call overwritten"
SKIPPED_NO_OP: Final = "call does not need to be executed because it has no effect: call skipped"
SKIPPED_NO_OP_AFTER_SYNC: Final = "call does not need to be executed because after sync it has no effect: call skipped"
DISPATCHER_CLOSED: Final = "api dispatcher is closed"


class MergeFailed(Exception):
    """``Merge`` refused the old call: "failed to merge API calls: <its error>" (an unexpected error)."""


class DispatcherClosed(Exception):
    """The dispatcher is closed: "api dispatcher is closed" (``dispatcher_close_notifies``; an unexpected error)."""

    def __init__(self) -> None:
        super().__init__(DISPATCHER_CLOSED)


# --------------------------------------------------------------------------------------------
# Channels
# --------------------------------------------------------------------------------------------


class OnFinish(Protocol):
    """The sending end of a caller's ``OnFinish`` channel."""

    def offer(self, error: Exception | None) -> bool:
        """Send without blocking (None means success); return False if the value was dropped."""
        ...


class ResultChannel:
    """A buffered channel of ``capacity`` outcomes (Go's ``make(chan error, capacity)``); thread-safe."""

    __slots__ = ("_capacity", "_ready", "_values")

    def __init__(self, capacity: int = 1) -> None:
        if capacity < 1:
            raise ValueError(f"a result channel needs a buffer of at least 1, got {capacity}")
        self._capacity = capacity
        self._values: deque[Exception | None] = deque()  # at most _capacity values, oldest first
        self._ready = threading.Condition(threading.Lock())

    def offer(self, error: Exception | None) -> bool:
        """Buffer the value unless the buffer is full."""
        with self._ready:
            if len(self._values) >= self._capacity:
                return False
            self._values.append(error)
            self._ready.notify()
            return True

    def ready(self) -> bool:
        """Whether a value is buffered (a poll: the answer may be stale by the time it is read)."""
        return bool(self._values)

    def receive(self, timeout: float | None = None) -> Exception | None:
        """Take the next value, waiting at most ``timeout`` seconds (forever if None); raises ``TimeoutError``."""
        with self._ready:
            if not self._values and timeout is not None and timeout <= 0:  # a poll: no wait (Go's select default)
                raise TimeoutError(f"no value within {timeout} s")
            if not self._ready.wait_for(lambda: self._values, timeout):
                raise TimeoutError(f"no value within {timeout} s")
            return self._values.popleft()


# --------------------------------------------------------------------------------------------
# State
# --------------------------------------------------------------------------------------------


class QueuedCall:
    """``queuedAPICall``: a call, its caller's channel, and the ID its ``add`` was given."""

    __slots__ = ("call", "call_id", "on_finish")

    def __init__(self, call: APICall, on_finish: OnFinish | None, call_id: int = -1) -> None:
        self.call = call
        self.on_finish = on_finish
        self.call_id = call_id

    def send_on_finish(self, error: Exception | None) -> None:
        """``sendOnFinish``: a non-blocking send; nothing for a caller without a channel."""
        if self.on_finish is not None:
            self.on_finish.offer(error)

    def __repr__(self) -> str:
        return f"QueuedCall({self.call!r}, call_id={self.call_id})"


@dataclass(frozen=True)
class CallQueueState:
    """A consistent copy of the queue's fields, for tests and diagnostics (the calls themselves are shared)."""

    calls: Mapping[str, QueuedCall]
    fifo: tuple[str, ...]
    in_flight: frozenset[str]
    next_call_id: int
    closed: bool


class CallQueue:
    """``callQueue``. Every method is thread-safe; :meth:`pop` blocks until a call is pending or the queue closes."""

    def __init__(
        self,
        profile: VersionProfile = DEFAULT_PROFILE,
        relevances: Mapping[str, int] = RELEVANCES,
        metrics: DispatcherMetrics | None = None,
    ) -> None:
        self._profile = profile
        self._relevances = relevances
        self.metrics = metrics if metrics is not None else DispatcherMetrics()
        self._lock = threading.Lock()
        self._cond = threading.Condition(self._lock)
        self._closed = False
        self._call_id_counter = 0
        self._api_calls: dict[str, QueuedCall] = {}  # keys == set(_fifo) | _in_flight
        self._fifo: deque[str] = deque()  # each UID once, none in _in_flight
        self._in_flight: set[str] = set()

    # -- add ------------------------------------------------------------------------------

    def _is_less_relevant(self, old_type: str, new_type: str) -> bool:
        """``isLessRelevant``: strictly less relevant; a type missing from the map has relevance 0."""
        return self._relevances.get(new_type, 0) < self._relevances.get(old_type, 0)

    def _merge(self, old: QueuedCall, new: QueuedCall) -> Exception | None:
        """``merge``: skip the new call, or tell the old one it is overwritten (merging first if same type)."""
        if self._is_less_relevant(old.call.call_type, new.call.call_type):
            skipped = CallSkipped(SKIPPED_LESS_RELEVANT)
            new.send_on_finish(skipped)
            return skipped
        if old.call.call_type != new.call.call_type:
            in_flight = old.call.uid in self._in_flight
            if in_flight and self._profile.dispatcher_waits_behind_in_flight:
                return None
            if not in_flight:
                self.metrics.pending_changed(old.call.call_type, -1)
                self.metrics.pending_changed(new.call.call_type, +1)
            old.send_on_finish(CallOverwritten(OVERWRITTEN_BY_MORE_RELEVANT))
            return None
        try:
            new.call.merge(old.call)
        except MergeError as refused:
            failed = MergeFailed(f"failed to merge API calls: {refused}")
            new.send_on_finish(failed)
            return failed
        old.send_on_finish(CallOverwritten(OVERWRITTEN_BY_SAME_TYPE))
        return None

    def _enqueue(self, new: QueuedCall, old_present: bool) -> Exception | None:
        """``enqueue``: skip a no-op whose UID is not in flight; else keep the call, queueing a new UID."""
        uid = new.call.uid
        if new.call.is_no_op() and uid not in self._in_flight:
            if old_present:
                self._remove_pending(uid)
            new.send_on_finish(CallSkipped(SKIPPED_NO_OP))
            return CallSkipped(SKIPPED_NO_OP)
        self._api_calls[uid] = new
        if old_present:
            return None  # it takes the old call's FIFO place, or waits for the in-flight one's finalize
        self._fifo.append(uid)
        self.metrics.pending_changed(new.call.call_type, +1)
        self._cond.notify_all()
        return None

    def _remove_pending(self, uid: str) -> None:
        """``removePending``: forget the UID's call; take it out of the FIFO (by rebuilding it, as Go does) unless
        it is in flight."""
        removed = self._api_calls.pop(uid, None)
        if removed is None:
            return
        if uid not in self._in_flight:
            self._fifo = deque(u for u in self._fifo if u != uid)
            self.metrics.pending_changed(removed.call.call_type, -1)

    def add(self, call: APICall, on_finish: OnFinish | None = None) -> Exception | None:
        """``add``: returns None if the call is kept, else the error also sent to ``on_finish``: a
        :class:`~refimpl.dispatcher.api_calls.CallSkipped`, a :class:`MergeFailed` or a :class:`DispatcherClosed`."""
        new = QueuedCall(call, on_finish)
        with self._lock:
            if self._closed and self._profile.dispatcher_close_notifies:
                closed = DispatcherClosed()
                new.send_on_finish(closed)
                return closed
            new.call_id = self._call_id_counter
            self._call_id_counter += 1
            old = self._api_calls.get(call.uid)
            if old is not None:
                refused = self._merge(old, new)
                if refused is not None:
                    return refused
            return self._enqueue(new, old is not None)

    # -- pop, finalize --------------------------------------------------------------------

    def pop(self) -> QueuedCall | None:
        """``pop``: wait for a pending call and mark its UID in flight; None once closed with nothing pending (with
        ``dispatcher_close_notifies``: once closed). The caller must :meth:`finalize` the call."""
        with self._lock:
            if self._closed and self._profile.dispatcher_close_notifies:
                return None
            while not self._fifo:
                if self._closed:
                    return None
                self._cond.wait()
            uid = self._fifo.popleft()
            popped = self._api_calls.get(uid)
            if popped is None:
                raise LookupError(f"object {uid} is not present in a map with API calls details")
            self._in_flight.add(uid)
            self.metrics.pending_changed(popped.call.call_type, -1)
            return popped

    def finalize(self, finished: QueuedCall) -> None:
        """``finalize``: forget the finished call, or queue the newer call that replaced it while it ran."""
        uid = finished.call.uid
        with self._lock:
            current = self._api_calls[uid]
            if current.call_id == finished.call_id:
                del self._api_calls[uid]
            else:
                self._fifo.append(uid)
                self.metrics.pending_changed(current.call.call_type, +1)
                self._cond.notify_all()
            self._in_flight.discard(uid)

    # -- sync, close ----------------------------------------------------------------------

    def sync_object(self, uid: str, status: PodStatus) -> PodStatus:
        """``syncObject``: sync the UID's call with the informer's ``status``; drop it if that makes it a no-op
        and it is not in flight. Returns the status with the call's intent applied."""
        with self._lock:
            tracked = self._api_calls.get(uid)
            if tracked is None:
                return status
            synced = tracked.call.sync(status)
            if tracked.call.is_no_op() and uid not in self._in_flight:
                self._remove_pending(uid)
                tracked.send_on_finish(CallSkipped(SKIPPED_NO_OP_AFTER_SYNC))
            return synced

    def close(self) -> None:
        """``close``: wake ``pop`` for good. With ``dispatcher_close_notifies``, tell every tracked call, once (Go
        visits them in map order; here in call-ID order)."""
        with self._lock:
            if self._closed and self._profile.dispatcher_close_notifies:
                return
            if self._profile.dispatcher_close_notifies:
                for tracked in sorted(self._api_calls.values(), key=lambda q: q.call_id):
                    tracked.send_on_finish(DispatcherClosed())
            self._closed = True
            self._cond.notify_all()

    # -- observation ----------------------------------------------------------------------

    def state(self) -> CallQueueState:
        """A consistent copy of the fields."""
        with self._lock:
            return CallQueueState(
                calls=dict(self._api_calls),
                fifo=tuple(self._fifo),
                in_flight=frozenset(self._in_flight),
                next_call_id=self._call_id_counter,
                closed=self._closed,
            )

    def pending(self) -> int:
        """How many calls wait in the FIFO."""
        with self._lock:
            return len(self._fifo)

    def __len__(self) -> int:
        """How many calls are tracked (pending, in flight, or waiting behind one)."""
        with self._lock:
            return len(self._api_calls)
