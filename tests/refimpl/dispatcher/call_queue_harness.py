"""The refinement harness: the spec's call queue and refimpl's side by side, and translation between them.

Spec values go to refimpl with ``to_refimpl_*``; refimpl values come back as spec values with ``abstract_*``, so the
two sides are compared as spec values. A :class:`RecordingChannel` is a caller's ``OnFinish`` channel of capacity 1
that also records every value offered to it, dropped or not, so the spec's ``sends`` can be compared exactly.

:class:`RefinementPair` applies one :mod:`spec.dispatcher.operations` operation to both sides, refimpl's driven
synchronously (no threads): a pop is ``pop`` followed by the start of ``execute`` (as the worker thread would start
at once), a finish is ``finalize`` and then the send to the caller, as the worker does. After every step the two must
agree on ``add``'s error (kind and message), the synced status, the tracked calls (UID to call ID and contents), the
FIFO order, the calls in flight, the call-ID counter, the closed flag, the pending-calls gauge, and every value sent
to every caller, dropped or not. With a goroutine limit (v1.34.0), the limiter must grant a slot exactly when the
spec lets the loop pop.
"""

from __future__ import annotations

from collections import Counter

from refimpl.dispatcher import api_calls as impl
from refimpl.dispatcher.call_queue import CallQueue as ImplCallQueue
from refimpl.dispatcher.call_queue import DispatcherClosed, MergeFailed, QueuedCall, ResultChannel
from refimpl.dispatcher.context import Context
from refimpl.dispatcher.dispatcher import GoroutinesLimiter
from spec.dispatcher import api_calls as spec_calls
from spec.dispatcher import call_queue as spec_call_queue
from spec.dispatcher.call_queue import CallQueue, OutcomeKind, new_call_queue
from spec.dispatcher.operations import (
    AddCall,
    CallQueueOperation,
    CloseDispatcher,
    FinishCall,
    PopCall,
    SyncObject,
    apply_call_queue,
)
from spec.frozenmap import FrozenMap
from spec.versions import VersionProfile

NAMESPACE = "default"


class ExecutionFailed(Exception):
    """The error a harness-driven execution returns (its text is the spec's ``FinishCall.error``)."""


class RecordingChannel(ResultChannel):
    """A capacity-1 channel that remembers every value offered to it."""

    def __init__(self) -> None:
        super().__init__(1)
        self.offered: list[Exception | None] = []

    def offer(self, error: Exception | None) -> bool:
        self.offered.append(error)
        return super().offer(error)


class NullClient:
    """An API client whose every request succeeds at once; it counts the requests."""

    def __init__(self) -> None:
        self.requests = 0

    def bind(self, binding: impl.Binding, ctx: Context) -> None:
        self.requests += 1

    def patch_pod_status(
        self, namespace: str, name: str, old: impl.PodStatus, new: impl.PodStatus, ctx: Context
    ) -> None:
        self.requests += 1


# ----------------------------------------------------------------------------------------------
# spec -> refimpl
# ----------------------------------------------------------------------------------------------


def to_refimpl_condition(condition: spec_calls.PodCondition | None) -> impl.PodCondition | None:
    if condition is None:
        return None
    return impl.PodCondition(condition.type, condition.status, condition.reason, condition.message)


def to_refimpl_status(status: spec_calls.PodStatus) -> impl.PodStatus:
    conditions = [to_refimpl_condition(c) for _, c in sorted(status.conditions.items())]
    return impl.PodStatus(tuple(c for c in conditions if c is not None), status.nominated_node_name)


def to_refimpl_nominating_info(info: spec_calls.NominatingInfo | None) -> impl.NominatingInfo | None:
    if info is None:
        return None
    return impl.NominatingInfo(impl.NominatingMode(info.mode.value), info.nominated_node_name)


def to_refimpl_call(call: spec_calls.APICall) -> impl.APICall:
    if isinstance(call, spec_calls.PodBindingCall):
        return impl.PodBindingCall(impl.Binding(NAMESPACE, call.uid, call.uid, call.node_name))
    patch = impl.PodStatusPatchCall(
        call.uid,
        NAMESPACE,
        call.uid,
        to_refimpl_status(call.status),
        to_refimpl_condition(call.condition),
        to_refimpl_nominating_info(call.nominating_info),
    )
    patch.executed = call.executed
    return patch


# ----------------------------------------------------------------------------------------------
# refimpl -> spec
# ----------------------------------------------------------------------------------------------


def abstract_condition(condition: impl.PodCondition | None) -> spec_calls.PodCondition | None:
    if condition is None:
        return None
    return spec_calls.PodCondition(condition.type, condition.status, condition.reason, condition.message)


def abstract_status(status: impl.PodStatus) -> spec_calls.PodStatus:
    assert len({c.type for c in status.conditions}) == len(status.conditions), f"duplicate condition types: {status}"
    conditions = [abstract_condition(c) for c in status.conditions]
    return spec_calls.PodStatus(FrozenMap({c.type: c for c in conditions if c is not None}), status.nominated_node_name)


def abstract_nominating_info(info: impl.NominatingInfo | None) -> spec_calls.NominatingInfo | None:
    if info is None:
        return None
    return spec_calls.NominatingInfo(spec_calls.NominatingMode(info.mode.value), info.nominated_node_name)


def abstract_call(call: impl.APICall) -> spec_calls.APICall:
    if isinstance(call, impl.PodBindingCall):
        return spec_calls.PodBindingCall(call.binding.uid, call.binding.node_name)
    assert isinstance(call, impl.PodStatusPatchCall), f"not an in-tree call: {call!r}"
    return spec_calls.PodStatusPatchCall(
        call.pod_uid,
        abstract_status(call.status),
        abstract_condition(call.condition),
        abstract_nominating_info(call.nominating_info),
        call.executed,
    )


def abstract_outcome(error: Exception | None) -> tuple[OutcomeKind, str]:
    """The spec's (kind, message) for a value sent to a caller or returned by ``add``."""
    if error is None:
        return OutcomeKind.SUCCESS, ""
    if isinstance(error, impl.CallSkipped):
        return OutcomeKind.SKIPPED, str(error)
    if isinstance(error, impl.CallOverwritten):
        return OutcomeKind.OVERWRITTEN, str(error)
    if isinstance(error, MergeFailed):
        return OutcomeKind.MERGE_FAILED, str(error)
    if isinstance(error, DispatcherClosed):
        return OutcomeKind.CLOSED, str(error)
    return OutcomeKind.EXECUTION_ERROR, str(error)


# ----------------------------------------------------------------------------------------------
# Both sides
# ----------------------------------------------------------------------------------------------


class RefinementPair:
    """A spec call queue and a refimpl call queue (with its limiter and "workers"), stepped together."""

    def __init__(self, profile: VersionProfile) -> None:
        self.profile = profile
        self.spec: CallQueue = new_call_queue(profile)
        self.impl = ImplCallQueue(profile)
        limit = profile.dispatcher_max_in_flight
        self.limiter = GoroutinesLimiter(limit) if limit is not None else None
        self.channels: list[RecordingChannel] = []  # by caller number
        self.running: dict[str, QueuedCall] = {}  # what each "worker" executes
        self.ctx = Context()
        self.client = NullClient()

    def step(self, op: CallQueueOperation) -> str:
        """Apply an enabled ``op`` to both sides and compare them; returns a label for Hypothesis' statistics."""
        before = self.spec
        self.spec, spec_error = apply_call_queue(before, op)
        label = type(op).__name__
        match op:
            case AddCall(call):
                channel = RecordingChannel()
                self.channels.append(channel)
                impl_error = self.impl.add(to_refimpl_call(call), channel)
                expected = None if spec_error is None else (spec_error.kind, spec_error.message)
                got = None if impl_error is None else abstract_outcome(impl_error)
                assert got == expected, f"{op}: refimpl add returned {got}, spec {expected}"
                label = f"add: {spec_error.kind.value if spec_error else 'kept'}"
            case PopCall():
                if self.limiter is not None:
                    assert self.limiter.try_acquire(), "the limiter refused a slot the spec grants"
                popped = self.impl.pop()
                assert popped is not None
                popped.call.execute(self.ctx, self.client)
                self.running[popped.call.uid] = popped
            case FinishCall(uid, error):
                finished = self.running.pop(uid)
                self.impl.finalize(finished)
                finished.send_on_finish(None if error is None else ExecutionFailed(error))
                if self.limiter is not None:
                    self.limiter.release()
            case SyncObject(uid, status):
                _, spec_status = spec_call_queue.sync_object(before, uid, status)
                impl_status = self.impl.sync_object(uid, to_refimpl_status(status))
                assert abstract_status(impl_status) == spec_status, f"{op}: synced status differs"
            case CloseDispatcher():
                self.impl.close()
                if self.limiter is not None:
                    self.limiter.close()
        self.compare(op)
        return label

    def compare(self, op: CallQueueOperation) -> None:
        """Everything observable about the two queues agrees after ``op``."""
        state = self.impl.state()
        spec = self.spec
        tracked = {uid: (q.call_id, abstract_call(q.call)) for uid, q in state.calls.items()}
        assert tracked == {uid: (q.call_id, q.call) for uid, q in spec.calls.items()}, f"after {op}: tracked calls"
        assert state.fifo == spec.fifo, f"after {op}: FIFO {state.fifo} != {spec.fifo}"
        assert state.in_flight == frozenset(spec.in_flight), f"after {op}: in flight"
        running = {uid: (q.call_id, abstract_call(q.call)) for uid, q in self.running.items()}
        assert running == {uid: (q.call_id, q.call) for uid, q in spec.in_flight.items()}, f"after {op}: executing"
        assert state.next_call_id == spec.next_call_id, f"after {op}: call-ID counter"
        assert state.closed == spec.closed, f"after {op}: closed flag"
        pending = dict(Counter(spec.calls[uid].call.call_type for uid in spec.fifo))
        gauge = {t: n for t, n in self.impl.metrics.pending_calls().items() if n}
        assert gauge == pending, f"after {op}: pending gauge {gauge} != {pending}"
        assert len(self.channels) == spec.callers
        for caller, channel in enumerate(self.channels):
            got = [abstract_outcome(value) for value in channel.offered]
            expected = [(n.kind, n.message) for n in spec.sends if n.call_id == caller]
            assert got == expected, f"after {op}: caller {caller} was sent {got}, spec says {expected}"
        limit = self.profile.dispatcher_max_in_flight
        if self.limiter is not None and limit is not None:
            granted = self.limiter.try_acquire()
            if granted:
                self.limiter.release()
            assert granted == (len(spec.in_flight) < limit), f"after {op}: limiter granted={granted}"
