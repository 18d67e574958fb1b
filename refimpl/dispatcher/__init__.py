"""The API dispatcher: ``pkg/scheduler/backend/api_dispatcher`` and ``api_cache`` and the in-tree API calls, in Python.

Modules, one concept each: :mod:`~refimpl.dispatcher.api_calls` (the call interface, errors, binding and status
patch), :mod:`~refimpl.dispatcher.call_queue` (``callQueue`` and result channels), :mod:`~refimpl.dispatcher.dispatcher`
(the run loop, workers, goroutine limiter, close), :mod:`~refimpl.dispatcher.api_cacher` (``APICache`` and the
binder), :mod:`~refimpl.dispatcher.metrics`, :mod:`~refimpl.dispatcher.context` (cancellation),
:mod:`~refimpl.dispatcher.sleeper` and :mod:`~refimpl.dispatcher.fake_api_server` (for tests and the simulator).

Nothing here imports ``spec.dispatcher.api_calls`` or ``spec.dispatcher.call_queue``: the spec stays an independent
oracle.
"""

from refimpl.dispatcher.api_cacher import APICacher, Binder, FinishBinding, WaitTimedOut
from refimpl.dispatcher.api_calls import (
    POD_BINDING,
    POD_STATUS_PATCH,
    RELEVANCES,
    APICall,
    APIClient,
    Binding,
    CallOverwritten,
    CallSkipped,
    MergeError,
    NominatingInfo,
    NominatingMode,
    PodBindingCall,
    PodCondition,
    PodStatus,
    PodStatusPatchCall,
    is_unexpected_error,
)
from refimpl.dispatcher.call_queue import (
    CallQueue,
    CallQueueState,
    DispatcherClosed,
    MergeFailed,
    OnFinish,
    QueuedCall,
    ResultChannel,
)
from refimpl.dispatcher.context import Context, ContextCanceled
from refimpl.dispatcher.dispatcher import APIDispatcher, GoroutinesLimiter
from refimpl.dispatcher.fake_api_server import APIError, FakeAPIServer, LoggedRequest, Request, StoredPod
from refimpl.dispatcher.metrics import DispatcherMetrics, Histogram
from refimpl.dispatcher.sleeper import ManualSleeper, RealSleeper, Sleeper

__all__ = [
    "POD_BINDING",
    "POD_STATUS_PATCH",
    "RELEVANCES",
    "APICacher",
    "APICall",
    "APIClient",
    "APIDispatcher",
    "APIError",
    "Binder",
    "Binding",
    "CallOverwritten",
    "CallQueue",
    "CallQueueState",
    "CallSkipped",
    "Context",
    "ContextCanceled",
    "DispatcherClosed",
    "DispatcherMetrics",
    "FakeAPIServer",
    "FinishBinding",
    "GoroutinesLimiter",
    "Histogram",
    "LoggedRequest",
    "ManualSleeper",
    "MergeError",
    "MergeFailed",
    "NominatingInfo",
    "NominatingMode",
    "OnFinish",
    "PodBindingCall",
    "PodCondition",
    "PodStatus",
    "PodStatusPatchCall",
    "QueuedCall",
    "RealSleeper",
    "Request",
    "ResultChannel",
    "Sleeper",
    "StoredPod",
    "WaitTimedOut",
    "is_unexpected_error",
]
