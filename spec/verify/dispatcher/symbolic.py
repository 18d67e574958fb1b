"""The bounded abstract call queue the dispatcher's Z3 proofs reason about, and its invariants.

The abstraction keeps what the call-queue invariants (:mod:`spec.dispatcher.invariants`) and the
resolution rules read, for each of ``U`` object UIDs and ``T`` call types:

- per UID, whether a call is kept for it (``calls``), that call's type and call id; how many
  times the UID is in the FIFO; whether a call for it is in flight, with that call's type and id;
- per call type, its relevance (symbolic: the proofs hold for *every* relevance map, the in-tree
  one ``{pod_status_patch: 1, pod_binding: 2}`` included);
- the dispatcher's profile flags (symbolic, so every profile is covered), whether it is closed,
  how many ``Add`` calls were made, and the smallest and largest call id ever notified.

Two things are abstracted on purpose:

- **The FIFO's order.** It is kept as a multiplicity per UID, and a pop may take *any* pending
  UID, not only the head. No invariant reads the order and no transition but pop depends on it,
  so every concrete step is an abstract step and the proofs cover every pop order.
- **Call contents** (statuses, conditions, nominations, the node of a binding). They decide only
  whether a call is a no-op and whether a merge is refused; the transitions take those decisions
  as free arguments (:mod:`spec.verify.dispatcher.transitions`), so the proofs hold whatever
  they are.

Every invariant names the spec predicate it abstracts; ``tests/verify/dispatcher/test_encoding_agrees.py``
checks that both agree on the same states.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final

import z3

from spec.dispatcher import invariants as spec_invariants
from spec.dispatcher.call_queue import CallQueue
from spec.verify.terms import Bool, Int, and_, iff, implies, in_range, map_fields, not_, or_, pick, select_fields

DEFAULT_UIDS: Final = 4
DEFAULT_CALL_TYPES: Final = 3


@dataclass(frozen=True)
class DispatcherBounds:
    """The size of the bounded universe: ``uids`` object UIDs and ``call_types`` call types."""

    uids: int = DEFAULT_UIDS
    call_types: int = DEFAULT_CALL_TYPES

    def __post_init__(self) -> None:
        if self.uids < 1 or self.call_types < 1:
            raise ValueError(f"bounds need at least one UID and one call type, got {self.uids} and {self.call_types}")

    def describe(self) -> str:
        return (
            f"U={self.uids} UIDs, T={self.call_types} call types; relevances, call ids, the goroutine limit "
            f"and the profile flags symbolic (unbounded)"
        )


@dataclass(frozen=True)
class QueueState:
    """One abstract call queue. Fields hold Z3 terms (in proofs) or bools and ints (on concrete queues).

    ``[u]`` indexes UIDs, ``[t]`` call types. A UID with no kept call (or none in flight) has the
    canonical values 0 in the corresponding type and id fields.
    """

    relevance: tuple[Int, ...]
    """``relevances`` of each call type; never changed by a transition."""
    close_notifies: Bool
    """Profile ``dispatcher_close_notifies`` (PR #141745); constant."""
    waits_behind: Bool
    """Profile ``dispatcher_waits_behind_in_flight`` (from v1.35, PR #135180); constant."""
    has_limit: Bool
    """Profile ``dispatcher_max_in_flight`` is set (v1.34.0's goroutine limiter); constant."""
    limit: Int
    """That limit (0 when unset); constant."""
    kept: tuple[Bool, ...]
    """The UID is in ``calls``."""
    kept_type: tuple[Int, ...]
    """The kept call's type (an index into the call types)."""
    kept_id: tuple[Int, ...]
    """The kept call's ``call_id``."""
    queued: tuple[Int, ...]
    """How many times the UID is in ``fifo``."""
    flying: tuple[Bool, ...]
    """The UID is in ``in_flight``."""
    flying_type: tuple[Int, ...]
    flying_id: tuple[Int, ...]
    closed: Bool
    callers: Int
    """How many ``Add`` calls were made."""
    notified: Bool
    """Some value was sent (``sends`` is not empty)."""
    min_notified: Int
    """The smallest call id in ``sends`` (0 when none)."""
    max_notified: Int
    """The largest call id in ``sends`` (0 when none)."""

    @property
    def uids(self) -> int:
        return len(self.kept)

    @property
    def call_types(self) -> int:
        return len(self.relevance)


def map_queue(state: QueueState, leaf: Callable[[Any], Any]) -> QueueState:
    """Apply ``leaf`` to every term of ``state``."""
    return map_fields(state, leaf)


def select_queue(condition: Bool, then: QueueState, otherwise: QueueState) -> QueueState:
    """The state ``then`` where ``condition`` holds, else ``otherwise``, field by field."""
    return select_fields(condition, then, otherwise)


def fresh_queue(bounds: DispatcherBounds, tag: str) -> QueueState:
    """An abstract queue of fresh Z3 constants named ``tag.field[index]``."""
    uids, types = range(bounds.uids), range(bounds.call_types)

    def b(name: str) -> Bool:
        return z3.Bool(f"{tag}.{name}")

    def i(name: str) -> Int:
        return z3.Int(f"{tag}.{name}")

    return QueueState(
        relevance=tuple(i(f"relevance[{t}]") for t in types),
        close_notifies=b("close_notifies"),
        waits_behind=b("waits_behind"),
        has_limit=b("has_limit"),
        limit=i("limit"),
        kept=tuple(b(f"kept[{u}]") for u in uids),
        kept_type=tuple(i(f"kept_type[{u}]") for u in uids),
        kept_id=tuple(i(f"kept_id[{u}]") for u in uids),
        queued=tuple(i(f"queued[{u}]") for u in uids),
        flying=tuple(b(f"flying[{u}]") for u in uids),
        flying_type=tuple(i(f"flying_type[{u}]") for u in uids),
        flying_id=tuple(i(f"flying_id[{u}]") for u in uids),
        closed=b("closed"),
        callers=i("callers"),
        notified=b("notified"),
        min_notified=i("min_notified"),
        max_notified=i("max_notified"),
    )


def initial_queue(
    bounds: DispatcherBounds,
    relevance: tuple[Int, ...],
    close_notifies: Bool,
    waits_behind: Bool,
    has_limit: Bool,
    limit: Int,
) -> QueueState:
    """``new_call_queue(profile)`` with any relevances: nothing kept, queued or in flight; open; no caller."""
    zeros = (0,) * bounds.uids
    return QueueState(
        relevance=relevance,
        close_notifies=close_notifies,
        waits_behind=waits_behind,
        has_limit=has_limit,
        limit=limit,
        kept=(False,) * bounds.uids,
        kept_type=zeros,
        kept_id=zeros,
        queued=zeros,
        flying=(False,) * bounds.uids,
        flying_type=zeros,
        flying_id=zeros,
        closed=False,
        callers=0,
        notified=False,
        min_notified=0,
        max_notified=0,
    )


def well_typed_queue(state: QueueState) -> Bool:
    """The domain of every abstract queue: types in range, multiplicities and counters
    non-negative, and a limit only when the profile has one."""
    types = state.call_types
    return and_(
        *(in_range(t, types) for t in state.kept_type),
        *(in_range(t, types) for t in state.flying_type),
        *(q >= 0 for q in state.queued),
        state.callers >= 0,
        implies(not_(state.has_limit), state.limit == 0),
        state.limit >= 0,
    )


def relevance_of(state: QueueState, call_type: Int) -> Int:
    """:func:`spec.dispatcher.api_calls.relevance` of a (possibly symbolic) type index."""
    return pick(state.relevance, call_type)


# ============================================================================================
# Invariants
# ============================================================================================


def inv_one_call_per_uid(s: QueueState) -> Bool:
    """Abstracts :func:`spec.dispatcher.invariants.inv_one_call_per_uid`: a UID is in the FIFO at
    most once, never while in flight, and a call is kept for it iff it is queued or in flight."""
    return and_(
        *(
            and_(
                s.queued[u] >= 0,
                s.queued[u] <= 1,
                not_(and_(s.queued[u] >= 1, s.flying[u])),
                iff(s.kept[u], or_(s.queued[u] >= 1, s.flying[u])),
            )
            for u in range(s.uids)
        )
    )


def inv_call_ids_identify_callers(s: QueueState) -> Bool:
    """Abstracts :func:`spec.dispatcher.invariants.inv_call_ids_identify_callers`: kept calls have
    distinct ids, and every kept, executing or notified id is that of an ``Add`` made."""

    def made(call_id: Int) -> Bool:
        return and_(call_id >= 0, call_id < s.callers)

    return and_(
        *(
            implies(and_(s.kept[u], s.kept[v]), s.kept_id[u] != s.kept_id[v])
            for u in range(s.uids)
            for v in range(u + 1, s.uids)
        ),
        *(implies(s.kept[u], made(s.kept_id[u])) for u in range(s.uids)),
        *(implies(s.flying[u], made(s.flying_id[u])) for u in range(s.uids)),
        implies(s.notified, and_(made(s.min_notified), made(s.max_notified))),
    )


@dataclass(frozen=True)
class QueueInvariant:
    """An invariant of the abstract queue and the spec predicate it abstracts."""

    formula: Callable[[QueueState], Bool]
    spec_predicate: Callable[[CallQueue], bool]
    headline: str = ""

    @property
    def name(self) -> str:
        return self.formula.__name__


QUEUE_INVARIANTS: Final = (
    QueueInvariant(inv_one_call_per_uid, spec_invariants.inv_one_call_per_uid, "one pending call per UID"),
    QueueInvariant(inv_call_ids_identify_callers, spec_invariants.inv_call_ids_identify_callers),
)
"""Every state invariant of :data:`spec.dispatcher.invariants.CALL_QUEUE_INVARIANTS`; their
conjunction is the inductive invariant the proofs establish. The known violations
(:data:`~spec.dispatcher.invariants.CALL_QUEUE_KNOWN_VIOLATIONS`) are not invariants and are not
proved; the model checker shows them failing."""

assert {inv.spec_predicate for inv in QUEUE_INVARIANTS} == set(spec_invariants.CALL_QUEUE_INVARIANTS)


# ============================================================================================
# Transition properties
# ============================================================================================


def trans_more_relevant_call_never_dropped(pre: QueueState, post: QueueState, added: tuple[Int, Int] | None) -> Bool:
    """Abstracts :func:`spec.dispatcher.invariants.trans_more_relevant_call_never_dropped`; ``added``
    is the (UID, type) an ``Add`` brought, None for other transitions."""
    clauses = []
    for u in range(pre.uids):
        old_relevance = relevance_of(pre, pre.kept_type[u])
        replaced = and_(post.kept[u], post.kept_id[u] != pre.kept_id[u])
        clauses.append(implies(and_(pre.kept[u], replaced), relevance_of(pre, post.kept_type[u]) >= old_relevance))
        if added is not None:
            uid, call_type = added
            gone_with_it = and_(pre.kept[u], not_(post.kept[u]), uid == u)
            clauses.append(implies(gone_with_it, relevance_of(pre, call_type) >= old_relevance))
    return and_(*clauses)


def trans_add_keeps_the_more_relevant_call(pre: QueueState, post: QueueState, uid: Int, call_type: Int) -> Bool:
    """Abstracts :func:`spec.dispatcher.invariants.trans_add_keeps_the_more_relevant_call` for an
    ``Add`` of a call of ``call_type`` for ``uid``."""
    refused_at_close = and_(pre.closed, pre.close_notifies)
    old = pick(pre.kept, uid)
    old_type, old_id = pick(pre.kept_type, uid), pick(pre.kept_id, uid)
    kept, kept_type, kept_id = pick(post.kept, uid), pick(post.kept_type, uid), pick(post.kept_id, uid)
    old_wins = and_(
        old, kept_id == old_id, kept_type == old_type, relevance_of(pre, old_type) >= relevance_of(pre, call_type)
    )
    new_wins = and_(
        kept_id == pre.callers,
        kept_type == call_type,
        implies(old, relevance_of(pre, call_type) >= relevance_of(pre, old_type)),
    )
    return or_(refused_at_close, not_(kept), old_wins, new_wins)
