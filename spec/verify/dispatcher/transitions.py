"""Every call-queue transition of :mod:`spec.dispatcher.call_queue`, encoded over the abstract queue.

Each encoding follows its transition line by line (``add`` through ``_merge`` and ``_enqueue``,
``pop``, ``finish``, ``sync_object``, ``close``) and yields a :class:`QueueStep`: the post-state,
whether the operation is enabled (:func:`spec.dispatcher.operations.is_enabled`), whether the
spec would fail a lookup (``crash``: a ``KeyError`` in ``pop`` or ``finish``, which the proofs
show never happens from a state satisfying the invariants), and whether ``Add`` returned an error.

What the abstraction does not see is an argument: whether the call an ``Add`` would keep (after
merging) is a no-op, whether ``Merge`` refuses the old call, and whether the call a sync leaves
is a no-op. In proofs they are free, so the proofs hold for every call content; on concrete
steps :mod:`spec.verify.dispatcher.abstraction` computes them with :mod:`spec.dispatcher.api_calls`.
``PopCall`` takes the UID it pops (the FIFO's head in the spec; any pending UID here).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from enum import StrEnum
from typing import Any, Final

from spec.verify.dispatcher.symbolic import DispatcherBounds, QueueState, relevance_of, select_queue
from spec.verify.terms import Bool, Int, and_, count, fresh_constants, in_range, ite, not_, or_, pick, put


@dataclass(frozen=True)
class QueueStep:
    """What one operation does to an abstract queue."""

    post: QueueState
    enabled: Bool = True
    crash: Bool = False
    """The spec raises (a missing ``calls`` entry); ``post`` is then meaningless."""
    refused: Bool = False
    """``Add`` returned an error (the call was not kept)."""


class QueueSort(StrEnum):
    UID = "uid"
    TYPE = "type"
    FLAG = "flag"


QueueArgs = Mapping[str, Any]


@dataclass(frozen=True)
class QueueTransition:
    """One call-queue operation: its arguments and its effect."""

    name: str
    """The operation's class name in :mod:`spec.dispatcher.operations`."""
    params: tuple[tuple[str, QueueSort], ...]
    apply: Callable[[QueueState, QueueArgs], QueueStep]


def fresh_queue_args(transition: QueueTransition, tag: str) -> dict[str, Any]:
    """Fresh Z3 constants for the transition's arguments."""
    return fresh_constants(transition.params, tag, QueueSort.FLAG)


def queue_args_in_domain(transition: QueueTransition, args: QueueArgs, bounds: DispatcherBounds) -> Bool:
    """UIDs and types in range."""
    clauses = []
    for name, sort in transition.params:
        if sort is QueueSort.UID:
            clauses.append(in_range(args[name], bounds.uids))
        elif sort is QueueSort.TYPE:
            clauses.append(in_range(args[name], bounds.call_types))
    return and_(*clauses)


# ============================================================================================
# Helpers
# ============================================================================================


def notify(s: QueueState, call_id: Int, when: Bool = True) -> QueueState:
    """``sendOnFinish`` to ``call_id`` if ``when``: the notified id range grows to include it."""
    first = not_(s.notified)
    return replace(
        s,
        notified=or_(s.notified, when),
        min_notified=ite(when, ite(or_(first, call_id < s.min_notified), call_id, s.min_notified), s.min_notified),
        max_notified=ite(when, ite(or_(first, call_id > s.max_notified), call_id, s.max_notified), s.max_notified),
    )


def forget_kept(s: QueueState, uid: Int) -> QueueState:
    """The UID leaves ``calls`` (canonical values)."""
    return replace(s, kept=put(s.kept, uid, False), kept_type=put(s.kept_type, uid, 0), kept_id=put(s.kept_id, uid, 0))


def remove_pending(s: QueueState, uid: Int) -> QueueState:
    """``_remove_pending``: forget the UID's call, and take it out of the FIFO unless it is in flight."""
    tracked = pick(s.kept, uid)
    removed = forget_kept(replace(s, queued=put(s.queued, uid, ite(pick(s.flying, uid), pick(s.queued, uid), 0))), uid)
    return select_queue(tracked, removed, s)


# ============================================================================================
# Transitions
# ============================================================================================


def add(s: QueueState, a: QueueArgs) -> QueueStep:
    """:func:`spec.dispatcher.call_queue.add` of a call of type ``type`` for ``uid``; ``noop`` says whether
    the call it would keep (merged with the old one if of the same type) is a no-op, and
    ``merge_refused`` whether ``Merge`` refuses the old call."""
    uid, call_type, noop, merge_refused = a["uid"], a["type"], a["noop"], a["merge_refused"]
    caller = s.callers
    s = replace(s, callers=s.callers + 1)
    closed_refusal = and_(s.closed, s.close_notifies)
    old = pick(s.kept, uid)
    old_type, old_id, in_flight = pick(s.kept_type, uid), pick(s.kept_id, uid), pick(s.flying, uid)
    # _merge
    less_relevant = and_(old, relevance_of(s, call_type) < relevance_of(s, old_type))
    other_type = old_type != call_type
    refused_merge = and_(old, not_(less_relevant), not_(other_type), merge_refused)
    waits_silently = and_(other_type, s.waits_behind, in_flight)
    tell_old = and_(old, not_(less_relevant), not_(refused_merge), not_(waits_silently))
    refused = or_(closed_refusal, less_relevant, refused_merge)
    # _enqueue
    resolved = notify(s, old_id, tell_old)
    skip_no_op = and_(noop, not_(in_flight))
    dropped = notify(select_queue(old, remove_pending(resolved, uid), resolved), caller)
    kept = replace(
        resolved,
        kept=put(resolved.kept, uid, True),
        kept_type=put(resolved.kept_type, uid, call_type),
        kept_id=put(resolved.kept_id, uid, caller),
        queued=put(resolved.queued, uid, pick(resolved.queued, uid) + ite(old, 0, 1)),
    )
    enqueued = select_queue(skip_no_op, dropped, kept)
    post = select_queue(refused, notify(s, caller), enqueued)
    return QueueStep(post, refused=or_(refused, skip_no_op))


def pop(s: QueueState, a: QueueArgs) -> QueueStep:
    """:func:`spec.dispatcher.call_queue.pop` of ``uid``: enabled by :func:`spec.dispatcher.call_queue.can_pop` with
    ``uid`` pending; the UID's kept call is now in flight."""
    uid = a["uid"]
    limit_allows = or_(not_(s.has_limit), count(s.flying) < s.limit)
    enabled = and_(pick(s.queued, uid) >= 1, not_(s.closed), limit_allows)
    post = replace(
        s,
        queued=put(s.queued, uid, pick(s.queued, uid) - 1),
        flying=put(s.flying, uid, True),
        flying_type=put(s.flying_type, uid, pick(s.kept_type, uid)),
        flying_id=put(s.flying_id, uid, pick(s.kept_id, uid)),
    )
    return QueueStep(post, enabled=enabled, crash=not_(pick(s.kept, uid)))


def finish(s: QueueState, a: QueueArgs) -> QueueStep:
    """:func:`spec.dispatcher.call_queue.finish` of ``uid``'s in-flight call (its error only changes what is sent)."""
    uid = a["uid"]
    running = pick(s.flying_id, uid)
    same = pick(s.kept_id, uid) == running
    finalized = select_queue(same, forget_kept(s, uid), replace(s, queued=put(s.queued, uid, pick(s.queued, uid) + 1)))
    landed = replace(
        finalized,
        flying=put(finalized.flying, uid, False),
        flying_type=put(finalized.flying_type, uid, 0),
        flying_id=put(finalized.flying_id, uid, 0),
    )
    return QueueStep(notify(landed, running), enabled=pick(s.flying, uid), crash=not_(pick(s.kept, uid)))


def sync_object(s: QueueState, a: QueueArgs) -> QueueStep:
    """:func:`spec.dispatcher.call_queue.sync_object` for ``uid``; ``noop`` says whether the synced call is a no-op."""
    uid, noop = a["uid"], a["noop"]
    drop = and_(pick(s.kept, uid), noop, not_(pick(s.flying, uid)))
    return QueueStep(select_queue(drop, notify(remove_pending(s, uid), pick(s.kept_id, uid)), s))


def close(s: QueueState, a: QueueArgs) -> QueueStep:
    """:func:`spec.dispatcher.call_queue.close`: with ``close_notifies`` every kept call is told, once."""
    told = s
    for u in range(s.uids):
        told = notify(told, s.kept_id[u], and_(s.close_notifies, s.kept[u]))
    return QueueStep(select_queue(s.closed, s, replace(told, closed=True)))


QUEUE_TRANSITIONS: Final[dict[str, QueueTransition]] = {
    t.name: t
    for t in (
        QueueTransition(
            "AddCall",
            (
                ("uid", QueueSort.UID),
                ("type", QueueSort.TYPE),
                ("noop", QueueSort.FLAG),
                ("merge_refused", QueueSort.FLAG),
            ),
            add,
        ),
        QueueTransition("PopCall", (("uid", QueueSort.UID),), pop),
        QueueTransition("FinishCall", (("uid", QueueSort.UID),), finish),
        QueueTransition("SyncObject", (("uid", QueueSort.UID), ("noop", QueueSort.FLAG)), sync_object),
        QueueTransition("CloseDispatcher", (), close),
    )
}
"""Every call-queue operation of :data:`spec.dispatcher.operations.CallQueueOperation`, by name."""


def added_call(name: str, args: QueueArgs) -> tuple[Int, Int] | None:
    """The (UID, type) an ``AddCall`` brings, None for other operations."""
    return (args["uid"], args["type"]) if name == "AddCall" else None
