"""The life of one dispatcher call, as a table: stages, the transition that moves it, and where to.

This is the abstract view of :mod:`spec.dispatcher.call_queue` from one caller's side: its call is added,
waits in the FIFO (or behind an in-flight call of the same object), executes, and ends in the
outcome its caller is told, or in no outcome at all. It is a second statement of the same
behaviour: ``tests/spec/dispatcher/test_lifecycle.py`` enumerates every reachable queue of a small universe
and checks that every transition moves every caller exactly as :data:`CALL_TRANSITIONS` says, and
the documentation draws the dispatcher's state diagram from it.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Final

from spec.dispatcher.call_queue import CallQueue, OutcomeKind
from spec.versions import PROFILES


class CallStage(StrEnum):
    """Where one caller's call is."""

    NOT_ADDED = "NotAdded"
    """``Add`` was not called yet."""
    PENDING = "Pending"
    """Kept for its object and queued in the FIFO."""
    WAITING = "Waiting"
    """Kept for its object, not in the FIFO: the object's previous call is executing; it is queued
    when that one finishes."""
    EXECUTING = "Executing"
    """Popped; its goroutine runs the API request."""
    EXECUTING_REPLACED = "ExecutingReplaced"
    """Still executing, but a newer call for its object has replaced it in the queue."""
    STRANDED = "Stranded"
    """Kept after the dispatcher closed and never told anything: it will never run."""
    SUCCEEDED = "Succeeded"
    """Finished; the last value sent to its caller is success."""
    FAILED = "Failed"
    """Finished; the last value sent is the execution error."""
    SKIPPED = "Skipped"
    """Not kept; its caller was told ``ErrCallSkipped``."""
    OVERWRITTEN = "Overwritten"
    """Not kept; its caller was told ``ErrCallOverwritten``."""
    MERGE_FAILED = "MergeFailed"
    """Refused because ``Merge`` failed; its caller was told so."""
    CLOSED = "Closed"
    """Its caller was told the dispatcher is closed."""
    LOST = "Lost"
    """Not kept, not executing, and its caller was never told anything."""


_TOLD: Final = {
    OutcomeKind.SUCCESS: CallStage.SUCCEEDED,
    OutcomeKind.EXECUTION_ERROR: CallStage.FAILED,
    OutcomeKind.SKIPPED: CallStage.SKIPPED,
    OutcomeKind.OVERWRITTEN: CallStage.OVERWRITTEN,
    OutcomeKind.MERGE_FAILED: CallStage.MERGE_FAILED,
    OutcomeKind.CLOSED: CallStage.CLOSED,
}


def call_stage(queue: CallQueue, caller: int) -> CallStage:
    """The stage of the ``caller``-th ``Add`` (counted from 0) in ``queue``."""
    if caller >= queue.callers:
        return CallStage.NOT_ADDED
    for uid, running in queue.in_flight.items():
        if running.call_id == caller:
            current = queue.calls.get(uid)
            return CallStage.EXECUTING if current is not None and current.call_id == caller else (
                CallStage.EXECUTING_REPLACED
            )
    told = [n.kind for n in queue.sends if n.call_id == caller]
    for uid, kept in queue.calls.items():
        if kept.call_id == caller:
            if queue.closed:
                return _TOLD[told[-1]] if told else CallStage.STRANDED
            return CallStage.PENDING if uid in queue.fifo else CallStage.WAITING
    return _TOLD[told[-1]] if told else CallStage.LOST


@dataclass(frozen=True)
class CallTransition:
    """One row: ``operation`` (a transition of :mod:`spec.dispatcher.call_queue`) moves a caller from ``source``
    to ``target`` when ``when`` holds."""

    operation: str
    source: CallStage
    target: CallStage
    when: str
    profiles: frozenset[str] | None = None
    """The version profiles this row belongs to; None for all of them."""


S = CallStage
CLOSE_NOTIFIES: Final = frozenset(p.name for p in PROFILES.values() if p.dispatcher_close_notifies)
CLOSE_IS_SILENT: Final = frozenset(PROFILES) - CLOSE_NOTIFIES
WAITS_BEHIND: Final = frozenset(p.name for p in PROFILES.values() if p.dispatcher_waits_behind_in_flight)

CALL_TRANSITIONS: Final = (
    CallTransition("add", S.NOT_ADDED, S.PENDING, "no call kept for the object, or it replaces a pending one"),
    CallTransition("add", S.NOT_ADDED, S.WAITING, "it replaces a call that is executing"),
    CallTransition("add", S.NOT_ADDED, S.SKIPPED, "less relevant than the kept call, or a no-op"),
    CallTransition("add", S.NOT_ADDED, S.STRANDED, "the dispatcher is closed", CLOSE_IS_SILENT),
    CallTransition("add", S.NOT_ADDED, S.CLOSED, "the dispatcher is closed", CLOSE_NOTIFIES),
    CallTransition("add", S.PENDING, S.OVERWRITTEN, "a newer call replaces or absorbs it"),
    CallTransition("add", S.WAITING, S.OVERWRITTEN, "a newer call replaces or absorbs it"),
    CallTransition("add", S.STRANDED, S.OVERWRITTEN, "a newer call replaces or absorbs it", CLOSE_IS_SILENT),
    CallTransition("add", S.WAITING, S.LOST, "a call of another type replaces it", WAITS_BEHIND),
    CallTransition("add", S.EXECUTING, S.EXECUTING_REPLACED, "a newer call for its object is kept"),
    CallTransition("pop", S.PENDING, S.EXECUTING, "it is the FIFO's head"),
    CallTransition("finish", S.EXECUTING, S.SUCCEEDED, "the request succeeded"),
    CallTransition("finish", S.EXECUTING, S.FAILED, "the request failed"),
    CallTransition("finish", S.EXECUTING_REPLACED, S.SUCCEEDED, "the request succeeded"),
    CallTransition("finish", S.EXECUTING_REPLACED, S.FAILED, "the request failed"),
    CallTransition("finish", S.WAITING, S.PENDING, "the call it waits behind finished"),
    CallTransition("sync_object", S.PENDING, S.SKIPPED, "the object's status makes it a no-op"),
    CallTransition("sync_object", S.STRANDED, S.SKIPPED, "the object's status makes it a no-op", CLOSE_IS_SILENT),
    CallTransition("sync_object", S.CLOSED, S.SKIPPED, "the object's status makes it a no-op", CLOSE_NOTIFIES),
    CallTransition("close", S.PENDING, S.STRANDED, "always", CLOSE_IS_SILENT),
    CallTransition("close", S.WAITING, S.STRANDED, "always", CLOSE_IS_SILENT),
    CallTransition("close", S.PENDING, S.CLOSED, "always", CLOSE_NOTIFIES),
    CallTransition("close", S.WAITING, S.CLOSED, "always", CLOSE_NOTIFIES),
)
"""Every way a transition changes a caller's stage; a transition changes no stage in any other way.

``MergeFailed`` has no row: ``Merge`` is only asked to merge calls of one type, which never fails.
"""
