"""An in-process fake API server for tests and the simulator: pods, bindings and status patches, with latency and
faults a test scripts, and a log of every request.

It is the dispatcher's :class:`~refimpl.dispatcher.api_calls.APIClient`. A request is numbered on arrival (from 0),
waits out its latency on the :class:`~refimpl.dispatcher.sleeper.Sleeper`, then fails with the fault scripted for
it, if any, or is applied to the pod store. Applying follows the API server:

- a binding of a missing pod is ``NotFound``; of a pod with another UID, or already bound, a ``Conflict`` with the
  registry's message;
- a status patch of a missing pod is ``NotFound``; otherwise the conditions that changed from ``old`` to ``new`` are
  merged by type (a strategic merge patch) and the nominated node name is set if it changed.

A cancelled context before or during the latency ends the request with "context canceled" before it is applied.
"""

from __future__ import annotations

import copy
import threading
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Final

from refimpl.dispatcher.api_calls import Binding, PodStatus, update_pod_condition
from refimpl.dispatcher.context import Context, ContextCanceled
from refimpl.dispatcher.sleeper import RealSleeper, Sleeper

REASON_CONFLICT: Final = "Conflict"
REASON_NOT_FOUND: Final = "NotFound"
REASON_INTERNAL_ERROR: Final = "InternalError"
REASON_SERVICE_UNAVAILABLE: Final = "ServiceUnavailable"

VERB_BIND: Final = "bind"
VERB_PATCH_STATUS: Final = "patch_status"


class APIError(Exception):
    """An error status from the API server: ``reason`` is the ``metav1.StatusReason``."""

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message)
        self.reason = reason

    def __reduce__(self) -> tuple[type[APIError], tuple[str, str]]:
        """Copy and pickle with both arguments (``Exception`` would pass only ``args``)."""
        return APIError, (self.reason, str(self))


def conflict(resource: str, name: str, cause: str) -> APIError:
    """``apierrors.NewConflict``."""
    return APIError(REASON_CONFLICT, f'Operation cannot be fulfilled on {resource} "{name}": {cause}')


def not_found(name: str) -> APIError:
    """``apierrors.NewNotFound`` for a pod."""
    return APIError(REASON_NOT_FOUND, f'pods "{name}" not found')


def internal_error(cause: str = "injected fault") -> APIError:
    """``apierrors.NewInternalError``."""
    return APIError(REASON_INTERNAL_ERROR, f"Internal error occurred: {cause}")


@dataclass(frozen=True)
class StoredPod:
    """A pod as the server stores it."""

    namespace: str
    name: str
    uid: str
    node_name: str = ""
    status: PodStatus = PodStatus()


@dataclass(frozen=True)
class Request:
    """One request as it arrived. ``node_name`` for a binding; ``old_status``/``new_status`` for a patch."""

    index: int
    verb: str
    namespace: str
    name: str
    uid: str = ""
    node_name: str = ""
    old_status: PodStatus | None = None
    new_status: PodStatus | None = None


@dataclass(frozen=True)
class LoggedRequest:
    """A request and how it ended: ``done`` False while in progress; ``error`` None on success."""

    request: Request
    done: bool = False
    error: Exception | None = None

    @property
    def applied(self) -> bool:
        """The request changed the store (it succeeded)."""
        return self.done and self.error is None


ErrorSource = Exception | Callable[[Request], Exception]
"""A scripted fault: an error (raised as a copy), or a function making one from the request."""


class _Fault:
    __slots__ = ("error", "matches", "remaining")

    def __init__(self, matches: Callable[[Request], bool], error: ErrorSource, remaining: int | None) -> None:
        self.matches = matches
        self.error = error
        self.remaining = remaining  # None: every matching request


class FakeAPIServer:
    """A thread-safe in-memory API server for pods."""

    def __init__(self, sleeper: Sleeper | None = None, latency: float | Callable[[Request], float] = 0.0, *,
                 keep_log: bool = True) -> None:
        """``keep_log=False`` keeps no request log (:meth:`log` is then empty): a long simulation would otherwise
        hold every request it ever made."""
        self._lock = threading.Lock()
        self._sleeper: Sleeper = sleeper if sleeper is not None else RealSleeper()
        self._latency = latency
        self._pods: dict[tuple[str, str], StoredPod] = {}
        self._log: list[LoggedRequest] = []
        self._keep_log = keep_log
        self._requests = 0  # requests served so far: the next one's index
        self._faults: list[_Fault] = []
        self._in_progress = 0
        self.max_in_progress = 0
        """The most requests ever in progress at once."""

    # -- set-up ---------------------------------------------------------------------------

    def create_pod(
        self, namespace: str, name: str, uid: str, node_name: str = "", status: PodStatus = PodStatus()
    ) -> None:
        """Store a pod (replacing one of the same name)."""
        with self._lock:
            self._pods[(namespace, name)] = StoredPod(namespace, name, uid, node_name, status)

    def delete_pod(self, namespace: str, name: str) -> None:
        """Forget a stored pod (no-op if there is none): later requests for it are ``NotFound``."""
        with self._lock:
            self._pods.pop((namespace, name), None)

    def set_latency(self, latency: float | Callable[[Request], float]) -> None:
        """Seconds each later request waits before it is applied: a constant or a function of the request."""
        with self._lock:
            self._latency = latency

    def fail(
        self,
        error: ErrorSource,
        *,
        index: int | None = None,
        when: Callable[[Request], bool] | None = None,
        times: int | None = 1,
    ) -> None:
        """Script a fault: the request numbered ``index``, or the next ``times`` requests (None: all) that ``when``
        accepts, fail with ``error`` instead of being applied. The first matching fault, in scripting order, wins."""
        if (index is None) == (when is None):
            raise ValueError("script a fault with exactly one of index= (a request number) or when= (a predicate)")
        if index is not None:
            wanted = index
            self._add_fault(_Fault(lambda r: r.index == wanted, error, 1))
        elif when is not None:
            self._add_fault(_Fault(when, error, times))

    def _add_fault(self, fault: _Fault) -> None:
        with self._lock:
            self._faults.append(fault)

    # -- observation ----------------------------------------------------------------------

    def get_pod(self, namespace: str, name: str) -> StoredPod | None:
        """The stored pod, or None."""
        with self._lock:
            return self._pods.get((namespace, name))

    def log(self) -> list[LoggedRequest]:
        """Every request so far, in arrival order ([] if the server keeps no log)."""
        with self._lock:
            return list(self._log)

    # -- the API client -------------------------------------------------------------------

    def bind(self, binding: Binding, ctx: Context) -> None:
        """``POST pods/{name}/binding``."""
        self._serve(
            lambda i: Request(i, VERB_BIND, binding.namespace, binding.name, binding.uid, binding.node_name),
            lambda: self._apply_binding(binding),
            ctx,
        )

    def patch_pod_status(self, namespace: str, name: str, old: PodStatus, new: PodStatus, ctx: Context) -> None:
        """``PATCH pods/{name}/status`` with the strategic merge patch from ``old`` to ``new``."""
        self._serve(
            lambda i: Request(i, VERB_PATCH_STATUS, namespace, name, old_status=old, new_status=new),
            lambda: self._apply_status_patch(namespace, name, old, new),
            ctx,
        )

    def _serve(self, make: Callable[[int], Request], apply: Callable[[], None], ctx: Context) -> None:
        with self._lock:
            request = make(self._requests)
            self._requests += 1
            if self._keep_log:
                self._log.append(LoggedRequest(request))
            fault = self._take_fault(request)
            latency = self._latency(request) if callable(self._latency) else self._latency
            self._in_progress += 1
            self.max_in_progress = max(self.max_in_progress, self._in_progress)
        error: Exception | None = None
        try:
            if ctx.cancelled or not self._sleeper.sleep(latency, ctx):
                error = ContextCanceled()
            elif fault is not None:
                error = fault
            else:
                with self._lock:
                    apply()
        except APIError as refused:
            error = refused
        finally:
            with self._lock:
                self._in_progress -= 1
                if self._keep_log:
                    self._log[request.index] = LoggedRequest(request, True, error)
        if error is not None:
            raise error

    def _take_fault(self, request: Request) -> Exception | None:
        """The error scripted for ``request``, using up one of its fault's times. Under the lock."""
        for fault in self._faults:
            if fault.remaining != 0 and fault.matches(request):
                if fault.remaining is not None:
                    fault.remaining -= 1
                return fault.error(request) if callable(fault.error) else copy.copy(fault.error)
        return None

    def _apply_binding(self, binding: Binding) -> None:
        """The registry's ``assignPod``. Under the lock."""
        pod = self._pods.get((binding.namespace, binding.name))
        if pod is None:
            raise not_found(binding.name)
        if binding.uid and binding.uid != pod.uid:
            cause = f"Precondition failed: UID in precondition: {binding.uid}, UID in object meta: {pod.uid}"
            raise conflict("pods/binding", binding.name, cause)
        if pod.node_name:
            cause = f'pod {pod.name} is already assigned to node "{pod.node_name}"'
            raise conflict("pods/binding", binding.name, cause)
        self._pods[(binding.namespace, binding.name)] = replace(pod, node_name=binding.node_name)

    def _apply_status_patch(self, namespace: str, name: str, old: PodStatus, new: PodStatus) -> None:
        """Merge what changed from ``old`` to ``new`` into the stored status. Under the lock."""
        pod = self._pods.get((namespace, name))
        if pod is None:
            raise not_found(name)
        status = pod.status
        for condition in new.conditions:
            if old.condition(condition.type) != condition:
                status, _ = update_pod_condition(status, condition)
        if new.nominated_node_name != old.nominated_node_name:
            status = replace(status, nominated_node_name=new.nominated_node_name)
        self._pods[(namespace, name)] = replace(pod, status=status)
