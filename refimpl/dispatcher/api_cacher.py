"""The API cacher: how the scheduler sends its bindings and status patches through the dispatcher, and waits.

``APICache`` (pkg/scheduler/backend/api_cache/api_cache.go, 1.35 shape; digest §B), with the two methods it
delegates to (``Cache.BindPod``, ``SchedulingQueue.PatchPodStatus``) folded in: each makes a channel of capacity 1,
adds the call, and returns the channel with only an *unexpected* ``Add`` error (a skip is no error: the channel
holds it too). :meth:`APICacher.wait_on_finish` counts a skip or an overwrite as success.

:class:`Binder` is the binding path around it: ``DefaultBinder.Bind`` (bind through the cacher and wait), followed,
success or not, by ``Cache.FinishBinding`` as ``sched.bind``'s deferred ``finishBinding`` does in v1.34/v1.35.
"""

from __future__ import annotations

import logging
from typing import Final, Protocol

from refimpl.dispatcher.api_calls import (
    Binding,
    NominatingInfo,
    PodBindingCall,
    PodCondition,
    PodStatus,
    PodStatusPatchCall,
    is_unexpected_error,
)
from refimpl.dispatcher.call_queue import ResultChannel
from refimpl.dispatcher.dispatcher import APIDispatcher
from spec.objects import Pod
from spec.versions import DEFAULT_PROFILE, VersionProfile

LOGGER: Final = logging.getLogger(__name__)


class WaitTimedOut(Exception):
    """No outcome arrived on the channel in time (``context.DeadlineExceeded`` in Go)."""


class APICacher:
    """``APICache`` over one dispatcher."""

    def __init__(self, dispatcher: APIDispatcher) -> None:
        self._dispatcher = dispatcher

    def bind_pod(self, binding: Binding) -> tuple[ResultChannel, Exception | None]:
        """``BindPod``: add a binding call. Stores nothing: the pod is already assumed in the cache."""
        on_finish = ResultChannel(1)
        error = self._dispatcher.add(PodBindingCall(binding), on_finish)
        return on_finish, error if is_unexpected_error(error) else None

    def patch_pod_status(
        self,
        pod: Pod,
        condition: PodCondition | None,
        nominating_info: NominatingInfo | None,
        status: PodStatus = PodStatus(),
    ) -> tuple[ResultChannel, Exception | None]:
        """``PatchPodStatus``: add a status patch of ``pod`` whose current status is ``status``
        (:class:`spec.objects.Pod` does not carry a status)."""
        call = PodStatusPatchCall(pod.uid, pod.namespace, pod.name, status, condition, nominating_info)
        on_finish = ResultChannel(1)
        error = self._dispatcher.add(call, on_finish)
        return on_finish, error if is_unexpected_error(error) else None

    def wait_on_finish(self, on_finish: ResultChannel, timeout: float | None = None) -> Exception | None:
        """``WaitOnFinish``: the outcome received, None for success, a skip or an overwrite; :class:`WaitTimedOut`
        (returned, not raised) if nothing arrives within ``timeout`` seconds (None: wait forever)."""
        try:
            error = on_finish.receive(timeout)
        except TimeoutError:
            return WaitTimedOut(f"context deadline exceeded: no outcome for the API call within {timeout} s")
        return error if is_unexpected_error(error) else None


class FinishBinding(Protocol):
    """The part of the scheduler cache the binder needs (``refimpl.cache.Cache`` has it)."""

    def finish_binding(self, pod: Pod) -> None:
        """``FinishBinding``: the binding of this assumed pod is over."""
        ...


class Binder:
    """Binds assumed pods through the cacher and then tells the cache the binding finished.

    ``finish_binding`` is called only in profiles with assumed-pod expiry (v1.36 removed ``FinishBinding``). Like
    ``sched.finishBinding``, an error from it is logged, not returned.
    """

    def __init__(self, cacher: APICacher, cache: FinishBinding, profile: VersionProfile = DEFAULT_PROFILE) -> None:
        self._cacher = cacher
        self._cache = cache
        self._profile = profile

    def bind(self, pod: Pod, node_name: str, timeout: float | None = None) -> Exception | None:
        """Bind ``pod`` (as assumed) to ``node_name`` and wait; None on success, else the error."""
        try:
            binding = Binding(pod.namespace, pod.name, pod.uid, node_name)
            on_finish, error = self._cacher.bind_pod(binding)
            if error is not None:
                return error
            return self._cacher.wait_on_finish(on_finish, timeout)
        finally:
            if self._profile.assumed_pod_expiry:
                try:
                    self._cache.finish_binding(pod)
                except Exception:  # Kubernetes logs "Scheduler cache FinishBinding failed" and goes on
                    LOGGER.exception("Scheduler cache FinishBinding failed")
