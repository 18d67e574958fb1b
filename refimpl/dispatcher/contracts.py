"""CrossHair contracts for the dispatcher's resolution rules, checked through the real :class:`CallQueue`.

When a call arrives for an object that already has one (``callQueue.add`` -> ``merge``, call_queue.go; digest
§A.3), Kubernetes keeps one call per object and never drops a more relevant one: the new call is skipped if it
is strictly less relevant than the old, else it replaces the old, merging it first when both are of one type
(``PodStatusPatchCall.Merge`` keeps the old condition and an old Override nomination the new call lacks). The
functions here drive the queue with plain arguments (call types, relevances, whether the old call is in flight)
and state those rules as ``post:`` conditions.
"""

from __future__ import annotations

from dataclasses import replace
from typing import NamedTuple

from refimpl.dispatcher.api_calls import (
    CallOverwritten,
    CallSkipped,
    NominatingInfo,
    NominatingMode,
    PodCondition,
    PodStatus,
    PodStatusPatchCall,
    nominating_mode,
)
from refimpl.dispatcher.call_queue import CallQueue, ResultChannel
from refimpl.dispatcher.context import Context
from spec.versions import DEFAULT_PROFILE

UID = "pod-uid"
OVERRIDE = NominatingMode.OVERRIDE
_mode = nominating_mode


class _TypedCall:
    """An API call of any type for :data:`UID` that is never a no-op and records the call it merged."""

    def __init__(self, call_type: str) -> None:
        self._call_type = call_type
        self.merged: object = None

    @property
    def call_type(self) -> str:
        return self._call_type

    @property
    def uid(self) -> str:
        return UID

    def execute(self, ctx: Context, client: object) -> None:
        """Never executed here."""

    def merge(self, old: object) -> None:
        self.merged = old

    def sync(self, status: PodStatus) -> PodStatus:
        return status

    def is_no_op(self) -> bool:
        return False


class Resolution(NamedTuple):
    """What the queue did with two calls for one object."""

    keeps_new: bool
    """The queue tracks the new call (else the old one)."""
    new_merged_old: bool
    old_told: str
    """What the old call's caller heard: "overwritten", "skipped" or "" (nothing yet)."""
    new_told: str
    tracked: int
    """Calls the queue tracks for the object."""
    queued: int
    """Times the object is in the FIFO."""


def _told(channel: ResultChannel) -> str:
    try:
        error = channel.receive(timeout=0)
    except TimeoutError:
        return ""
    if isinstance(error, CallOverwritten):
        return "overwritten"
    return "skipped" if isinstance(error, CallSkipped) else repr(error)


def resolve(
    relevances: dict[str, int], old_type: str, new_type: str, old_in_flight: bool, waits_behind: bool
) -> Resolution:
    """Add a call of ``old_type``, pop it if ``old_in_flight``, then add a call of ``new_type`` for the same object.

    A type missing from ``relevances`` has relevance 0 (``isLessRelevant``). ``waits_behind`` is the profile flag
    by which a call of another type waits behind an in-flight one without telling it (v1.35).

    post: __return__.tracked == 1 and __return__.queued <= 1
    post: __return__.keeps_new == (relevances.get(new_type, 0) >= relevances.get(old_type, 0))
    post: __return__.new_told == ("" if __return__.keeps_new else "skipped")
    post: __return__.old_told == _old_hears(__return__, old_type != new_type and old_in_flight and waits_behind)
    post: __return__.new_merged_old == (old_type == new_type)
    """
    queue = CallQueue(replace(DEFAULT_PROFILE, dispatcher_waits_behind_in_flight=waits_behind), relevances)
    old, new = _TypedCall(old_type), _TypedCall(new_type)
    old_channel, new_channel = ResultChannel(), ResultChannel()
    queue.add(old, old_channel)
    if old_in_flight:
        queue.pop()
    queue.add(new, new_channel)
    state = queue.state()
    return Resolution(
        keeps_new=state.calls[UID].call is new,
        new_merged_old=new.merged is old,
        old_told=_told(old_channel),
        new_told=_told(new_channel),
        tracked=len(state.calls),
        queued=state.fifo.count(UID),
    )


def _old_hears(resolution: Resolution, waits: bool) -> str:
    """The old call is told it is overwritten when the new one is kept, unless the new one waits behind it (a call
    of another type behind an in-flight one, with ``waits_behind``) (for the contract)."""
    return "overwritten" if resolution.keeps_new and not waits else ""


def merged_status_patch(
    new_condition: PodCondition | None,
    new_nomination: NominatingInfo | None,
    old_condition: PodCondition | None,
    old_nomination: NominatingInfo | None,
) -> tuple[PodCondition | None, NominatingInfo | None]:
    """The condition and nomination of a status patch after it merges an older one for the same pod.

    A merge loses neither intent: the new condition wins, or the old one is kept; an Override nomination wins over
    a Noop (or none), the new one over the old.

    post: __return__[0] == (old_condition if new_condition is None else new_condition)
    post: (_mode(__return__[1]) is OVERRIDE) == (OVERRIDE in (_mode(new_nomination), _mode(old_nomination)))
    post: _mode(new_nomination) is not OVERRIDE or __return__[1] == new_nomination
    """
    status = PodStatus()
    new = PodStatusPatchCall(UID, "ns", "pod", status, new_condition, new_nomination)
    new.merge(PodStatusPatchCall(UID, "ns", "pod", status, old_condition, old_nomination))
    return new.condition, new.nominating_info

