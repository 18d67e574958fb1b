"""The API calls the scheduler sends through its dispatcher, and how two calls for one object combine.

This is ``fwk.APICall`` and the in-tree call types (k8s.io/kube-scheduler framework/api_dispatcher.go,
identical at v0.34.0 and v0.35.0; pkg/scheduler/framework/api_calls; digest §A.1-A.2). A call
targets one object, identified by UID. For one UID at most one call is kept: a new call of the
same *type* is merged into the old one, a new call of another type replaces it if at least as
*relevant*, and a less relevant call is skipped. A call can also be a *no-op* (nothing to send)
from the start, after a merge, or after syncing with the object the informer delivered.

Two call types exist in v1.34 and v1.35: the pod binding (relevance 2) and the pod status patch
(relevance 1), so a binding always wins over a status patch for the same pod. A pod preemption
call exists only in development snapshots after v1.35 and is not modelled.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Final

from spec.frozenmap import FrozenMap
from spec.valuetypes import replace

POD_STATUS_PATCH: Final = "pod_status_patch"
"""``apicalls.PodStatusPatch``."""
POD_BINDING: Final = "pod_binding"
"""``apicalls.PodBinding``."""

RELEVANCES: Final[FrozenMap[str, int]] = FrozenMap({POD_STATUS_PATCH: 1, POD_BINDING: 2})
"""``apicalls.Relevances``: a more relevant call overwrites a less relevant one for the same object."""


def relevance(relevances: FrozenMap[str, int], call_type: str) -> int:
    """The relevance of ``call_type``; a type missing from the map has relevance 0 (Go's zero value)."""
    return relevances.get(call_type, 0)


def is_less_relevant(relevances: FrozenMap[str, int], old_type: str, new_type: str) -> bool:
    """``isLessRelevant``: the new call's type is *strictly* less relevant than the old call's."""
    return relevance(relevances, new_type) < relevance(relevances, old_type)


# --------------------------------------------------------------------------------------------
# Pod status, conditions, nominating info
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class PodCondition:
    """``v1.PodCondition`` as far as a status patch compares it (the timestamps are not modelled)."""

    type: str
    status: str
    reason: str = ""
    message: str = ""


@dataclass(frozen=True)
class PodStatus:
    """The part of ``v1.PodStatus`` a status patch writes: conditions by type and the nominated node."""

    conditions: FrozenMap[str, PodCondition] = field(default_factory=FrozenMap)
    nominated_node_name: str = ""


class NominatingMode(StrEnum):
    """``fwk.NominatingMode``."""

    NOOP = "Noop"
    OVERRIDE = "Override"


@dataclass(frozen=True)
class NominatingInfo:
    """``fwk.NominatingInfo``: whether and to what to set the pod's nominated node name."""

    mode: NominatingMode
    nominated_node_name: str = ""


def nominating_mode(info: NominatingInfo | None) -> NominatingMode:
    """``NominatingInfo.Mode()``: a nil NominatingInfo means Noop."""
    return info.mode if info is not None else NominatingMode.NOOP


def condition_needs_update(status: PodStatus, condition: PodCondition) -> bool:
    """``conditionNeedsUpdate``: the pod lacks this condition, or has it with another status, reason or message."""
    return status.conditions.get(condition.type) != condition


def nominated_node_needs_update(status: PodStatus, info: NominatingInfo | None) -> bool:
    """``nnnNeedsUpdate``: Override mode with a node name other than the pod's nominated node."""
    return nominating_mode(info) is NominatingMode.OVERRIDE and (
        info is not None and status.nominated_node_name != info.nominated_node_name
    )


def apply_status_patch(status: PodStatus, condition: PodCondition | None, info: NominatingInfo | None) -> PodStatus:
    """``syncStatus``: the status with the condition set and the nominated node updated where needed."""
    if condition is not None and condition_needs_update(status, condition):
        status = replace(status, conditions=status.conditions.set(condition.type, condition))
    if info is not None and nominated_node_needs_update(status, info):
        status = replace(status, nominated_node_name=info.nominated_node_name)
    return status


# --------------------------------------------------------------------------------------------
# Calls
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class PodBindingCall:
    """``PodBindingCall``: bind the pod with ``uid`` to ``node_name``. Never a no-op; merge keeps the new call."""

    uid: str
    node_name: str
    call_type: str = POD_BINDING


@dataclass(frozen=True)
class PodStatusPatchCall:
    """``PodStatusPatchCall``: set a condition and/or the nominated node on the pod's status.

    ``status`` is the pod status the call was created from, refreshed by :func:`sync_call` until
    the call starts executing.
    """

    uid: str
    status: PodStatus
    condition: PodCondition | None = None
    nominating_info: NominatingInfo | None = None
    executed: bool = False
    """Set when the call starts executing; from then on :func:`sync_call` no longer refreshes ``status``."""
    call_type: str = POD_STATUS_PATCH


APICall = PodBindingCall | PodStatusPatchCall
"""Every call type the spec knows."""


def is_no_op(call: APICall) -> bool:
    """``IsNoOp``: the call would change nothing. A binding never is; a status patch is when its nominated
    node needs no update and it has no condition, or its condition is already on the pod."""
    if isinstance(call, PodBindingCall):
        return False
    if nominated_node_needs_update(call.status, call.nominating_info):
        return False
    return call.condition is None or not condition_needs_update(call.status, call.condition)


class MergeError(Exception):
    """``Merge`` refused: the old call is not of the new call's concrete type."""


def merge_calls(new: APICall, old: APICall) -> APICall:
    """``new.Merge(old)`` for two calls of the same type: the new call absorbs what it lacks.

    A binding ignores the old binding. A status patch keeps the old nominating info if its own is
    Noop and the old one's is Override, and the old condition if it has none; its status stays its
    own. Fails with :class:`MergeError` if ``old`` is of another concrete type.
    """
    if isinstance(new, PodBindingCall):
        return new
    if not isinstance(old, PodStatusPatchCall):
        raise MergeError(f"unexpected error: call of type {type(old).__name__} is not of type *PodStatusPatchCall")
    merged = new
    if nominating_mode(new.nominating_info) is NominatingMode.NOOP and (
        nominating_mode(old.nominating_info) is NominatingMode.OVERRIDE
    ):
        merged = replace(merged, nominating_info=old.nominating_info)
    if new.condition is None and old.condition is not None:
        merged = replace(merged, condition=old.condition)
    return merged


def sync_call(call: APICall, status: PodStatus) -> tuple[APICall, PodStatus]:
    """``Sync(obj)``: align the call with the pod status the informer delivered.

    A status patch that has not started executing takes ``status`` as its base; the returned
    status is ``status`` with the call's intent applied (which v1.35 discards). A binding is
    unchanged and returns ``status`` as it is.
    """
    if isinstance(call, PodBindingCall):
        return call, status
    if not call.executed:
        call = replace(call, status=status)
    return call, apply_status_patch(status, call.condition, call.nominating_info)
