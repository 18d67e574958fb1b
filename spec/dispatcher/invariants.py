"""Invariants of the API dispatcher's call queue, once each, as named predicates.

:data:`CALL_QUEUE_INVARIANTS` hold in every reachable state of every profile. The two
properties in :data:`CALL_QUEUE_KNOWN_VIOLATIONS` are what a reader would expect of a dispatcher
but Kubernetes does not keep; tests show each failing with a concrete trace, and the liveness
property holding for the profile that fixes it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import Final

from spec.dispatcher.api_calls import APICall, relevance
from spec.dispatcher.call_queue import CallQueue


def inv_one_call_per_uid(queue: CallQueue) -> bool:
    """At most one call is kept per object UID, and it is either pending (in the FIFO, once) or in
    flight (possibly with a newer call waiting behind it), never both.

    This is what serialises the API requests for one object: two calls for a pod never execute
    at once.
    """
    fifo = set(queue.fifo)
    in_flight = set(queue.in_flight)
    return len(fifo) == len(queue.fifo) and not fifo & in_flight and set(queue.calls) == fifo | in_flight


def inv_call_ids_identify_callers(queue: CallQueue) -> bool:
    """Every kept, executing or notified call belongs to an ``Add`` that was made, and kept calls
    belong to distinct callers."""
    kept = [q.call_id for q in queue.calls.values()]
    ids = kept + [q.call_id for q in queue.in_flight.values()] + [n.call_id for n in queue.sends]
    return len(set(kept)) == len(kept) and all(0 <= i < queue.callers for i in ids)


def trans_more_relevant_call_never_dropped(before: CallQueue, after: CallQueue, added: APICall | None) -> bool:
    """A kept call is replaced only by a call at least as relevant, and an ``Add`` of a less relevant
    call never removes it.

    With ``added`` the call an ``Add`` transition brought (None for other transitions). Guards
    the rule that lets a binding win over a status patch for the same pod.
    """
    for uid, old in before.calls.items():
        old_relevance = relevance(before.relevances, old.call.call_type)
        now = after.calls.get(uid)
        replaced_by = now.call if now is not None and now.call_id != old.call_id else None
        if now is None and added is not None and added.uid == uid:
            replaced_by = added  # the new call went too (a merge that ends in a no-op)
        if replaced_by is not None and relevance(before.relevances, replaced_by.call_type) < old_relevance:
            return False
    return True


def trans_add_keeps_the_more_relevant_call(before: CallQueue, after: CallQueue, added: APICall) -> bool:
    """After an ``Add`` of ``added``, the call kept for its UID (if any) is the old call, at least as
    relevant as ``added``, or the added call (merged or not: its type, the new caller's id), at
    least as relevant as the old one.

    So when two calls for one object meet, the one kept is the more relevant (a merge keeps the
    common type). A call ``Add`` refuses because the dispatcher is closed (profile
    ``dispatcher_close_notifies``) is not resolved at all and is exempt. No call kept means the
    result was a no-op: :func:`trans_more_relevant_call_never_dropped` covers what went with it.
    """
    if before.closed and before.profile.dispatcher_close_notifies:
        return True
    old = before.calls.get(added.uid)
    kept = after.calls.get(added.uid)
    if kept is None:
        return True
    new_relevance = relevance(before.relevances, added.call_type)
    if old is not None and kept.call_id == old.call_id:
        return kept.call.call_type == old.call.call_type and relevance(before.relevances, old.call.call_type) >= (
            new_relevance
        )
    old_relevance = relevance(before.relevances, old.call.call_type) if old is not None else new_relevance
    return kept.call_id == before.callers and kept.call.call_type == added.call_type and new_relevance >= old_relevance


def inv_no_caller_told_twice(queue: CallQueue) -> bool:
    """No ``OnFinish`` channel is sent two values.

    KNOWN VIOLATION in v1.34-v1.37: a call overwritten while it executes is told "overwritten" at
    once and its own result when it finishes (Add, pop, Add, finish). From v1.35 (PR #135180) only
    a call of the same type overwrites an executing call; one of another type waits behind it.

    KNOWN VIOLATION in PR #141745 (read at commit 324d94f5), three ways. (1) The same. ``Close``
    tells every tracked call "api dispatcher is closed" and leaves it tracked, so (2) a call
    executing at that moment is told its own result too when it finishes (Add, pop, Close,
    finish), and (3) a pending call that a later ``SyncObject`` turns into a no-op is dropped and
    told "skipped" too (Add, Close, Sync: the shortest trace, 3 steps). The
    Go code at that commit does the same: ``callQueue.close`` sends to every call in ``apiCalls``
    and removes none, and ``callQueue.syncObject`` does not check ``closed``.

    In-tree callers use channels of capacity 1 and read once, so they observe the first value and
    the second is dropped or never read.
    """
    counts = Counter(n.call_id for n in queue.sends)
    return all(count == 1 for count in counts.values())


def is_quiescent(queue: CallQueue) -> bool:
    """Nothing more will happen without a new call: nothing executes, and nothing can be popped."""
    return not queue.in_flight and (not queue.fifo or queue.closed)


def liveness_every_caller_told(queue: CallQueue) -> bool:
    """Once the dispatcher is quiescent, every caller has been told an outcome.

    Checked in quiescent states only (:func:`is_quiescent`); together with the capacity-1
    channels of in-tree callers it means every caller observes exactly one outcome.

    KNOWN VIOLATION in v1.34-v1.37: close notifies no pending call and keeps calls added after it,
    so their callers wait forever. PR #141745 fixes that (``dispatcher_close_notifies``).

    KNOWN VIOLATION from v1.35 on (PR #135180, ``dispatcher_waits_behind_in_flight``): a call
    waiting behind an in-flight call of the same UID is replaced, untold, by a call of another
    type (``merge`` returns early for an in-flight UID), so its caller is never told anything
    (Add patch, pop, Add patch, Add binding). v1.34 tells it "overwritten". Found by the spec
    (tests/spec/dispatcher/test_liveness.py) and shown on Kubernetes v1.35.0's own call queue by
    the vector ``dispatcher.waiting_call_replaced_untold``.
    """
    told = {n.call_id for n in queue.sends}
    return not is_quiescent(queue) or told == set(range(queue.callers))


CALL_QUEUE_INVARIANTS: Final[tuple[Callable[[CallQueue], bool], ...]] = (
    inv_one_call_per_uid,
    inv_call_ids_identify_callers,
)
"""State invariants that hold in every reachable state of every profile."""

CALL_QUEUE_KNOWN_VIOLATIONS: Final[tuple[Callable[[CallQueue], bool], ...]] = (
    inv_no_caller_told_twice,
    liveness_every_caller_told,
)
"""Expected properties Kubernetes does not keep (see each docstring for where and why)."""
