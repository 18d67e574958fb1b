"""The reference implementation behind the conformance protocol.

Cache, snapshot and node-tree vectors drive a :class:`refimpl.cache.Cache` (with its own generation counter and a
fake clock) and the cycle's :class:`refimpl.cache.Snapshot`; dispatcher vectors drive a
:class:`refimpl.dispatcher.call_queue.CallQueue` directly, popping and finalizing as the run loop and its workers
would; cycle vectors drive :class:`conformance.adapters.refimpl_cycle.RefimplCycle` (the cache and the scheduler's
filter plugins in a small cluster); queue vectors drive :class:`conformance.adapters.refimpl_queue.RefimplQueue`
(refimpl's scheduling queue and the scheduler's side of it). The observations of refimpl objects live in
:mod:`conformance.adapters.refimpl_observe`, which the cycle harness shares, so imports between the three modules go
one way.

Subclasses override :meth:`RefimplAdapter.new_cache`, :meth:`RefimplAdapter.new_queue`,
:meth:`RefimplAdapter.new_cycle` or the ``apply_*`` methods; that is how the faulty-implementation gallery
(``tests/conformance/gallery``) introduces one bug each.
"""

from __future__ import annotations

import importlib
import importlib.metadata
from collections.abc import Callable
from typing import Any, Final

from conformance.adapters.refimpl_cycle import RefimplCycle
from conformance.adapters.refimpl_observe import cache_json, node_info_json, snapshot_json
from conformance.codec import (
    CYCLE_OPERATION_NAMES,
    DISPATCHER_OPERATION_NAMES,
    QUEUE_OPERATION_NAMES,
    CodecError,
    decode_operation,
)
from conformance.observe import CALL_TYPES, NOTHING_RETURNED, condition_json, metrics_json, nominating_json
from conformance.operations import UpdateMetrics
from refimpl.cache import Cache, FakeClock, GenerationCounter, NodeInfo, Snapshot
from refimpl.dispatcher import api_calls as ref
from refimpl.dispatcher.call_queue import CallQueue, DispatcherClosed, MergeFailed, QueuedCall
from spec.cache.operations import (
    AddNode,
    AddPod,
    AssumePod,
    CleanupAssumedPods,
    FinishBinding,
    ForgetPod,
    RemoveNode,
    RemovePod,
    UpdateNode,
    UpdatePod,
    UpdateSnapshot,
)
from spec.dispatcher import api_calls as spec_calls
from spec.dispatcher.operations import AddCall, CloseDispatcher, FinishCall, PopCall, SyncObject
from spec.errors import CacheError, SchedulerExit
from spec.versions import PROFILES, VersionProfile

JSON = Any
CACHE_AREAS: Final = ("cache", "snapshot", "node_tree")


AREAS: Final = (*CACHE_AREAS, "dispatcher", "cycle", "queue")


def to_ref_status(status: spec_calls.PodStatus) -> ref.PodStatus:
    conditions = tuple(ref.PodCondition(c.type, c.status, c.reason, c.message) for _, c in
                       sorted(status.conditions.items()))
    return ref.PodStatus(conditions, status.nominated_node_name)


def to_ref_call(call: spec_calls.APICall) -> ref.APICall:
    if isinstance(call, spec_calls.PodBindingCall):
        return ref.PodBindingCall(ref.Binding("", "", call.uid, call.node_name))
    condition = None if call.condition is None else ref.PodCondition(*vars(call.condition).values())
    info = None if call.nominating_info is None else ref.NominatingInfo(
        ref.NominatingMode(call.nominating_info.mode.value), call.nominating_info.nominated_node_name)
    return ref.PodStatusPatchCall(call.uid, "", "", to_ref_status(call.status), condition, info)


def ref_call_json(call: ref.APICall) -> JSON:
    if isinstance(call, ref.PodBindingCall):
        return {"call_type": call.call_type, "uid": call.uid, "node_name": call.binding.node_name}
    assert isinstance(call, ref.PodStatusPatchCall)
    status = {"conditions": [condition_json(c) for c in sorted(call.status.conditions, key=lambda c: c.type)],
              "nominated_node_name": call.status.nominated_node_name}
    out: dict[str, JSON] = {"call_type": call.call_type, "uid": call.uid, "status": status}
    if call.condition is not None:
        out["condition"] = condition_json(call.condition)
    if call.nominating_info is not None:
        out["nominating_info"] = nominating_json(call.nominating_info)
    out["executed"] = call.executed
    return out


def outcome_kind(error: BaseException | None) -> str:
    """The normalised outcome kind of a value sent to a caller (``OutcomeKind`` in
    :mod:`spec.dispatcher.call_queue`)."""
    if error is None:
        return "Success"
    if isinstance(error, ref.CallSkipped):
        return "Skipped"
    if isinstance(error, ref.CallOverwritten):
        return "Overwritten"
    if isinstance(error, MergeFailed):
        return "MergeFailed"
    if isinstance(error, DispatcherClosed):
        return "Closed"
    return "ExecutionError"


class Caller:
    """One ``add``'s OnFinish channel: records every value sent to it, in order, in the adapter's log."""

    def __init__(self, log: list[list[JSON]], number: int) -> None:
        self.log = log
        self.number = number

    def offer(self, error: Exception | None) -> bool:
        self.log.append([self.number, outcome_kind(error)])
        return True


# --------------------------------------------------------------------------------------------
# The adapter
# --------------------------------------------------------------------------------------------


def package_version() -> str:
    """The installed kube-scheduler-spec's version (the reference implementation's), or ``unknown``."""
    try:
        return importlib.metadata.version("kube-scheduler-spec")
    except importlib.metadata.PackageNotFoundError:
        return "unknown"


class RefimplAdapter:
    """The reference implementation as a conformance adapter (see the module docstring)."""

    name = "refimpl"

    def __init__(self) -> None:
        self.profile: VersionProfile = PROFILES["v1.35"]
        self.area = "cache"
        self.cache: Cache | None = None
        self.snapshot = Snapshot()
        self.queue: CallQueue | None = None
        self.told: list[list[JSON]] = []
        self.callers = 0
        self.running: dict[str, QueuedCall] = {}
        self.cycle: Any = None
        self.scheduling_queue: Any = None

    def hello(self) -> JSON:
        return {"implementation": self.name, "language": "python", "version": package_version(),
                "capabilities": {"areas": list(AREAS), "profiles": list(PROFILES)}}

    # -- construction hooks -------------------------------------------------------------------

    def new_cache(self, profile: VersionProfile, ttl_ns: int) -> Cache:
        return Cache(profile=profile, ttl=ttl_ns, clock=FakeClock(0), generations=GenerationCounter())

    def new_queue(self, profile: VersionProfile) -> CallQueue:
        return CallQueue(profile)

    def new_cycle(self, profile: VersionProfile, ttl_ns: int) -> Any:
        """A :class:`~conformance.adapters.refimpl_cycle.RefimplCycle` around a new cache."""
        return RefimplCycle(profile, self.new_cache(profile, ttl_ns), lambda: self.new_cache(profile, ttl_ns))

    def new_scheduling_queue(self, profile: VersionProfile) -> Any:
        """A :class:`~conformance.adapters.refimpl_queue.RefimplQueue` (refimpl's scheduling queue and its caller)."""
        from conformance.adapters.refimpl_queue import RefimplQueue

        return RefimplQueue(profile)

    def reset(self, area: str, profile: str, ttl_ns: int, preemption: bool = False) -> None:
        if area not in AREAS:
            raise ValueError(f"area {area!r} is not supported; supported: {', '.join(AREAS)}")
        if profile not in PROFILES:
            raise ValueError(f"unknown profile {profile!r}")
        self.area, self.profile = area, PROFILES[profile]
        self.told, self.callers, self.running = [], 0, {}
        self.cycle = self.scheduling_queue = None
        if area == "queue":
            self.scheduling_queue, self.cache, self.queue = self.new_scheduling_queue(self.profile), None, None
        elif area == "dispatcher":
            self.queue, self.cache = self.new_queue(self.profile), None
        elif area == "cycle":
            self.cycle, self.cache, self.queue = self.new_cycle(self.profile, ttl_ns), None, None
            if preemption:
                self.cycle.enable_preemption()
        else:
            self.cache, self.snapshot, self.queue = self.new_cache(self.profile, ttl_ns), Snapshot(), None

    # -- steps ----------------------------------------------------------------------------------

    def step(self, op: str, args: JSON) -> JSON:
        try:
            operation = decode_operation(op, args)
        except CodecError as error:
            return {"status": "error", "kind": "BadRequest", "message": str(error)}
        if op in DISPATCHER_OPERATION_NAMES:
            return self.dispatcher_step(operation)
        if op in CYCLE_OPERATION_NAMES:
            assert self.cycle is not None, "reset with the cycle area first"
            result: JSON = self.cycle.step(operation)
            return result
        if op in QUEUE_OPERATION_NAMES:
            assert self.scheduling_queue is not None, "reset with the queue area first"
            queued: JSON = self.scheduling_queue.step(operation)
            return queued
        return self.cache_step(operation)

    def cache_step(self, op: Any) -> JSON:
        assert self.cache is not None, "reset with a cache area first"
        try:
            returned = self.apply_cache(self.cache, op)
        except CacheError as error:
            return {"status": "error", "kind": str(error.kind), "message": error.message,
                    "observation": self.observe_cache(NOTHING_RETURNED)}
        except SchedulerExit as error:
            return {"status": "fatal", "kind": str(error.kind), "message": error.message}
        observed = NOTHING_RETURNED if returned is None else node_info_json(returned)
        return {"status": "ok", "observation": self.observe_cache(observed)}

    def apply_cache(self, cache: Cache, op: Any) -> NodeInfo | None:
        """Apply ``op``; return what the call returned (``AddNode``/``UpdateNode``'s NodeInfo clone, or None)."""
        match op:
            case AddNode(node):
                return cache.add_node(node)
            case UpdateNode(old, new):
                return cache.update_node(old, new)
            case UpdateMetrics():
                cache.update_metrics()
            case AssumePod(pod):
                cache.assume_pod(pod)
            case FinishBinding(pod, now):
                cache.finish_binding(pod, now)
            case ForgetPod(pod):
                cache.forget_pod(pod)
            case AddPod(pod):
                cache.add_pod(pod)
            case UpdatePod(old, new):
                cache.update_pod(old, new)
            case RemovePod(pod):
                cache.remove_pod(pod)
            case RemoveNode(node):
                cache.remove_node(node)
            case CleanupAssumedPods(now):
                cache.cleanup_assumed_pods(now)
            case UpdateSnapshot():
                self.update_snapshot(cache, self.snapshot)
            case _:
                raise TypeError(f"not a cache operation: {op!r}")
        return None

    def update_snapshot(self, cache: Cache, snapshot: Snapshot) -> None:
        cache.update_snapshot(snapshot)

    def observe_cache(self, returned: JSON) -> JSON:
        assert self.cache is not None
        return {**cache_json(self.cache), "snapshot": snapshot_json(self.snapshot),
                "metrics": metrics_json(self.cache.cache_size), "returned": returned}

    # -- dispatcher -------------------------------------------------------------------------------

    def can_pop(self, queue: CallQueue) -> bool:
        state = queue.state()
        limit = self.profile.dispatcher_max_in_flight
        return bool(state.fifo) and not state.closed and (limit is None or len(state.in_flight) < limit)

    def dispatcher_step(self, op: Any) -> JSON:
        queue = self.queue
        assert queue is not None, "reset with the dispatcher area first"
        before = len(self.told)
        error: Exception | None = None
        match op:
            case AddCall(call):
                caller = Caller(self.told, self.callers)
                self.callers += 1
                error = queue.add(to_ref_call(call), caller)
            case PopCall():
                if not self.can_pop(queue):
                    return {"status": "error", "kind": "NotEnabled", "message": "nothing can be popped now",
                            "observation": self.observe_queue(before)}
                popped = queue.pop()
                assert popped is not None
                if isinstance(popped.call, ref.PodStatusPatchCall):
                    popped.call.executed = True  # its worker starts executing at once
                self.running[popped.call.uid] = popped
            case FinishCall(uid, message):
                finished = self.running.pop(uid)
                queue.finalize(finished)
                finished.send_on_finish(None if message is None else RuntimeError(message))
            case SyncObject(uid, status):
                queue.sync_object(uid, to_ref_status(status))
            case CloseDispatcher():
                queue.close()
        observation = self.observe_queue(before)
        if error is not None:
            return {"status": "error", "kind": outcome_kind(error), "message": str(error), "observation": observation}
        return {"status": "ok", "observation": observation}

    def observe_queue(self, told_before: int) -> JSON:
        assert self.queue is not None
        state = self.queue.state()
        calls = {}
        for uid, queued in sorted(state.calls.items()):
            caller = queued.on_finish
            assert isinstance(caller, Caller)
            calls[uid] = {"caller": caller.number, "call": ref_call_json(queued.call)}
        pending = self.queue.metrics.pending_calls()
        return {"fifo": list(state.fifo), "in_flight": sorted(state.in_flight), "closed": state.closed,
                "calls": calls, "told": self.told[told_before:], "can_pop": self.can_pop(self.queue),
                "metrics": {"pending_calls": {t: pending.get(t, 0) for t in CALL_TYPES}}}


AdapterFactory = Callable[[], Any]


def load_adapter(spec: str) -> AdapterFactory:
    """``refimpl`` or ``package.module:Class``: the factory of an in-process adapter; fails with ``ValueError``."""
    if spec == "refimpl":
        return RefimplAdapter
    module_name, _, attr = spec.partition(":")
    if not attr:
        raise ValueError(f"--impl {spec!r}: expected 'refimpl' or 'package.module:Class'")
    try:
        factory: AdapterFactory = getattr(importlib.import_module(module_name), attr)
    except (ImportError, AttributeError) as error:
        raise ValueError(f"--impl {spec!r}: cannot load it ({error})") from None
    return factory
