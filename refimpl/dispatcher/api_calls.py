"""API calls: the framework's call interface and errors, and the two in-tree calls, binding and status patch.

``fwk.APICall`` and its sentinel errors (k8s.io/kube-scheduler framework/api_dispatcher.go, identical at v0.34.0 and
v0.35.0) and ``PodBindingCall`` / ``PodStatusPatchCall`` (pkg/scheduler/framework/api_calls, the v1.35 shape with one
optional condition; digest §A.1-A.2). Calls are mutable objects, as in Go: ``merge`` changes the new call,
``sync`` refreshes a pending status patch, ``execute`` marks a status patch as executed under its own lock.

Pod statuses are values (frozen dataclasses) so that a copy is never needed; condition timestamps are not modelled
(``LastProbeTime`` and ``LastTransitionTime`` never differ here), and ``util.PatchPodStatus``'s retry of retriable
errors is not modelled: a status patch makes at most one request.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from dataclasses import dataclass, replace
from enum import StrEnum
from types import MappingProxyType
from typing import Final, Protocol

from refimpl.dispatcher.context import Context

POD_STATUS_PATCH: Final = "pod_status_patch"
"""``apicalls.PodStatusPatch``."""
POD_BINDING: Final = "pod_binding"
"""``apicalls.PodBinding``."""

RELEVANCES: Final[Mapping[str, int]] = MappingProxyType({POD_STATUS_PATCH: 1, POD_BINDING: 2})
"""``apicalls.Relevances``: a binding overwrites a status patch for the same pod, never the reverse."""


# --------------------------------------------------------------------------------------------
# Errors
# --------------------------------------------------------------------------------------------


class CallSkipped(Exception):
    """An error wrapping ``fwk.ErrCallSkipped`` ("call skipped"): the call will not be executed, nothing is lost."""


class CallOverwritten(Exception):
    """An error wrapping ``fwk.ErrCallOverwritten`` ("call overwritten"): a newer call replaced this one."""


class MergeError(Exception):
    """``Merge`` refused the old call."""


def is_unexpected_error(error: BaseException | None) -> bool:
    """``fwk.IsUnexpectedError``: an error that is neither a skip nor an overwrite."""
    return error is not None and not isinstance(error, CallSkipped | CallOverwritten)


# --------------------------------------------------------------------------------------------
# Pod status
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class PodCondition:
    """``v1.PodCondition`` without its timestamps."""

    type: str
    status: str
    reason: str = ""
    message: str = ""


@dataclass(frozen=True)
class PodStatus:
    """The part of ``v1.PodStatus`` a status patch writes. ``conditions`` keeps Kubernetes' list order."""

    conditions: tuple[PodCondition, ...] = ()
    nominated_node_name: str = ""

    def condition(self, condition_type: str) -> PodCondition | None:
        """``podutil.GetPodCondition``: the condition of this type, or None."""
        return next((c for c in self.conditions if c.type == condition_type), None)


class NominatingMode(StrEnum):
    """``fwk.NominatingMode``."""

    NOOP = "Noop"
    OVERRIDE = "Override"


@dataclass(frozen=True)
class NominatingInfo:
    """``fwk.NominatingInfo``."""

    mode: NominatingMode
    nominated_node_name: str = ""


def nominating_mode(info: NominatingInfo | None) -> NominatingMode:
    """``NominatingInfo.Mode()``: Noop for a nil NominatingInfo."""
    return NominatingMode.NOOP if info is None else info.mode


def nominated_node_needs_update(status: PodStatus, info: NominatingInfo | None) -> bool:
    """``nnnNeedsUpdate``: Override mode naming a node other than the pod's nominated node."""
    return info is not None and info.mode is NominatingMode.OVERRIDE and (
        status.nominated_node_name != info.nominated_node_name
    )


def condition_needs_update(status: PodStatus, condition: PodCondition) -> bool:
    """``conditionNeedsUpdate``: the pod lacks the condition or has it with another status, reason or message."""
    return status.condition(condition.type) != condition


def update_pod_condition(status: PodStatus, condition: PodCondition) -> tuple[PodStatus, bool]:
    """``podutil.UpdatePodCondition``: append the condition, or replace the one of its type in place; returns the
    status and whether anything changed."""
    if status.condition(condition.type) is None:
        return replace(status, conditions=(*status.conditions, condition)), True
    if not condition_needs_update(status, condition):
        return status, False
    conditions = tuple(condition if c.type == condition.type else c for c in status.conditions)
    return replace(status, conditions=conditions), True


def sync_status(
    status: PodStatus, condition: PodCondition | None, info: NominatingInfo | None
) -> tuple[PodStatus, bool]:
    """``syncStatus``: ``status`` with the condition and nominated node applied; and whether anything changed."""
    changed = False
    if condition is not None:
        status, changed = update_pod_condition(status, condition)
    if nominated_node_needs_update(status, info):
        assert info is not None
        status, changed = replace(status, nominated_node_name=info.nominated_node_name), True
    return status, changed


# --------------------------------------------------------------------------------------------
# The API client and the call interface
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Binding:
    """``v1.Binding``: bind the pod ``namespace/name`` with ``uid`` to ``node_name``."""

    namespace: str
    name: str
    uid: str
    node_name: str


class APIClient(Protocol):
    """The two requests the in-tree calls make. Each raises on failure; :class:`~refimpl.dispatcher.context.
    ContextCanceled` if ``ctx`` is cancelled before the request completes."""

    def bind(self, binding: Binding, ctx: Context) -> None:
        """``Pods(ns).Bind(ctx, binding)``."""
        ...

    def patch_pod_status(self, namespace: str, name: str, old: PodStatus, new: PodStatus, ctx: Context) -> None:
        """``util.PatchPodStatus``: a strategic merge patch of the status subresource from ``old`` to ``new``."""
        ...


class APICall(Protocol):
    """``fwk.APICall``."""

    @property
    def call_type(self) -> str:
        """``CallType()``."""
        ...

    @property
    def uid(self) -> str:
        """``UID()``: the UID of the object the call targets."""
        ...

    def execute(self, ctx: Context, client: APIClient) -> None:
        """``Execute``: make the request; raises its error."""
        ...

    def merge(self, old: APICall) -> None:
        """``Merge``: absorb what is needed from ``old``, a call of the same type; raises :class:`MergeError`."""
        ...

    def sync(self, status: PodStatus) -> PodStatus:
        """``Sync``: align with the object's ``status`` as delivered by the informer; returns it with the call's
        intent applied."""
        ...

    def is_no_op(self) -> bool:
        """``IsNoOp``."""
        ...


# --------------------------------------------------------------------------------------------
# In-tree calls
# --------------------------------------------------------------------------------------------


class PodBindingCall:
    """``PodBindingCall``: never a no-op; a newer binding simply replaces an older one."""

    __slots__ = ("binding",)

    def __init__(self, binding: Binding) -> None:
        self.binding = binding

    @property
    def call_type(self) -> str:
        return POD_BINDING

    @property
    def uid(self) -> str:
        return self.binding.uid

    def execute(self, ctx: Context, client: APIClient) -> None:
        client.bind(self.binding, ctx)

    def merge(self, old: APICall) -> None:
        """Nothing to take from the old binding."""

    def sync(self, status: PodStatus) -> PodStatus:
        return status

    def is_no_op(self) -> bool:
        return False

    def __repr__(self) -> str:
        return f"PodBindingCall({self.binding!r})"


class PodStatusPatchCall:
    """``PodStatusPatchCall``: set a condition and/or the nominated node name on a pod's status.

    ``status`` is the status the call was created from, refreshed by :meth:`sync` until :meth:`execute` starts
    (``executed``); the lock orders the two, as in Go.
    """

    __slots__ = ("_lock", "condition", "executed", "name", "namespace", "nominating_info", "pod_uid", "status")

    def __init__(
        self,
        uid: str,
        namespace: str,
        name: str,
        status: PodStatus,
        condition: PodCondition | None = None,
        nominating_info: NominatingInfo | None = None,
    ) -> None:
        self._lock = threading.Lock()
        self.executed = False
        self.pod_uid = uid
        self.namespace = namespace
        self.name = name
        self.status = status
        self.condition = condition
        self.nominating_info = nominating_info

    @property
    def call_type(self) -> str:
        return POD_STATUS_PATCH

    @property
    def uid(self) -> str:
        return self.pod_uid

    def execute(self, ctx: Context, client: APIClient) -> None:
        """Mark the call executed, then patch the status unless applying the call to it changes nothing."""
        with self._lock:
            self.executed = True
            condition, status = self.condition, self.status
        new_status, changed = sync_status(status, condition, self.nominating_info)
        if not changed:
            return
        client.patch_pod_status(self.namespace, self.name, status, new_status, ctx)

    def sync(self, status: PodStatus) -> PodStatus:
        """Take ``status`` as the base unless executing already; return it with the call applied."""
        with self._lock:
            if not self.executed:
                self.status = status
            condition = self.condition
        synced, _ = sync_status(status, condition, self.nominating_info)
        return synced

    def merge(self, old: APICall) -> None:
        """Keep the old nominating info if ours is Noop and the old one Override; the old condition if we have none."""
        if not isinstance(old, PodStatusPatchCall):
            raise MergeError(f"unexpected error: call of type {type(old).__name__} is not of type *PodStatusPatchCall")
        if nominating_mode(self.nominating_info) is NominatingMode.NOOP and (
            nominating_mode(old.nominating_info) is NominatingMode.OVERRIDE
        ):
            self.nominating_info = old.nominating_info
        if self.condition is None and old.condition is not None:
            self.condition = old.condition

    def is_no_op(self) -> bool:
        """Nothing to do: the nominated node needs no update and the condition is absent or already on the pod."""
        with self._lock:
            status = self.status
        if nominated_node_needs_update(status, self.nominating_info):
            return False
        return self.condition is None or not condition_needs_update(status, self.condition)

    def __repr__(self) -> str:
        return (
            f"PodStatusPatchCall(uid={self.pod_uid!r}, status={self.status!r}, condition={self.condition!r}, "
            f"nominating_info={self.nominating_info!r}, executed={self.executed})"
        )
