"""Every dispatcher obligation can fail: a deliberately broken transition refutes it, with a counterexample.

As for the cache (``test_proofs_can_fail.py``): realistic bugs in the call queue, each refuting the
obligation that exists to catch it; and for *every* obligation, its transition (or the initial
queue) followed by a corruption of exactly what the property reads, so no proof is vacuous.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

import pytest

from spec.verify.dispatcher.obligations import dispatcher_obligations
from spec.verify.dispatcher.symbolic import DispatcherBounds, QueueState, initial_queue, select_queue
from spec.verify.dispatcher.transitions import QUEUE_TRANSITIONS, QueueArgs, QueueStep, QueueTransition, notify
from spec.verify.obligations import Obligation, Verdict, discharge
from spec.verify.terms import and_, ite, not_, pick, put
from tests.support import proof_mutants
from tests.support.proof_mutants import assert_refuted, obligation

BOUNDS = DispatcherBounds(2, 2)
"""Small bounds: two UIDs and two call types suffice for every broken transition below."""


def mutated(name: str, apply: Callable[[QueueState, QueueArgs], QueueStep]) -> dict[str, QueueTransition]:
    return proof_mutants.mutated(QUEUE_TRANSITIONS, name, apply)


def after(name: str, change: Callable[[QueueState, QueueState, QueueArgs], QueueState]) -> Callable[..., QueueStep]:
    """The real transition, then ``change(pre, post, args)`` on its post-state."""
    return proof_mutants.after(QUEUE_TRANSITIONS, name, change)


# ============================================================================================
# Realistic bugs
# ============================================================================================


def add_always_appends(s: QueueState, post: QueueState, a: QueueArgs) -> QueueState:
    """A replacing ``Add`` also appends the UID to the FIFO (Go's ``enqueue`` without its ``oldCall`` check)."""
    uid = a["uid"]
    replacing = and_(pick(s.kept, uid), pick(post.kept, uid), pick(post.kept_id, uid) == s.callers)
    return replace(post, queued=put(post.queued, uid, pick(post.queued, uid) + ite(replacing, 1, 0)))


def add_without_relevance(s: QueueState, a: QueueArgs) -> QueueStep:
    """``Add`` with every call type equally relevant: a status patch overwrites a binding."""
    return QUEUE_TRANSITIONS["AddCall"].apply(replace(s, relevance=(0,) * s.call_types), a)


def finish_keeping_the_call(s: QueueState, post: QueueState, a: QueueArgs) -> QueueState:
    """``finalize`` never forgets the finished call."""
    uid = a["uid"]
    return replace(
        post,
        kept=put(post.kept, uid, pick(s.kept, uid)),
        kept_type=put(post.kept_type, uid, pick(s.kept_type, uid)),
        kept_id=put(post.kept_id, uid, pick(s.kept_id, uid)),
    )


def sync_dropping_in_flight(s: QueueState, a: QueueArgs) -> QueueStep:
    """``SyncObject`` drops a call that became a no-op even while it executes."""
    uid = a["uid"]
    drop = and_(pick(s.kept, uid), a["noop"])
    gone = replace(s, kept=put(s.kept, uid, False), queued=put(s.queued, uid, 0))
    return QueueStep(select_queue(drop, notify(gone, pick(s.kept_id, uid)), s))


def add_numbering_from_one(s: QueueState, post: QueueState, a: QueueArgs) -> QueueState:
    """The kept call gets the number of callers *after* this ``Add`` (call ids counted from 1)."""
    uid = a["uid"]
    new = and_(pick(post.kept, uid), pick(post.kept_id, uid) == s.callers)
    return replace(post, kept_id=put(post.kept_id, uid, ite(new, s.callers + 1, pick(post.kept_id, uid))))


def pop_off_by_one(s: QueueState, a: QueueArgs) -> QueueStep:
    """``pop`` enabled while the FIFO has no entry for the UID."""
    step = QUEUE_TRANSITIONS["PopCall"].apply(s, a)
    return replace(step, enabled=not_(s.closed))


REALISTIC: list[tuple[str, str, Callable[..., QueueStep], str]] = [
    ("a replacing add appends again", "AddCall", after("AddCall", add_always_appends),
     "step/AddCall/inv_one_call_per_uid"),
    ("relevance ignored", "AddCall", add_without_relevance,
     "relevance/AddCall/trans_add_keeps_the_more_relevant_call"),
    ("relevance ignored drops a binding", "AddCall", add_without_relevance,
     "relevance/AddCall/trans_more_relevant_call_never_dropped"),
    ("finalize keeps the call", "FinishCall", after("FinishCall", finish_keeping_the_call),
     "step/FinishCall/inv_one_call_per_uid"),
    ("sync drops an in-flight call", "SyncObject", sync_dropping_in_flight, "step/SyncObject/inv_one_call_per_uid"),
    ("call ids counted from 1", "AddCall", after("AddCall", add_numbering_from_one),
     "step/AddCall/inv_call_ids_identify_callers"),
    ("pop without a pending entry", "PopCall", pop_off_by_one, "total/PopCall"),
]  # fmt: skip


@pytest.mark.parametrize(("bug", "transition", "apply", "name"), REALISTIC, ids=[r[0] for r in REALISTIC])
def test_realistic_bug_is_refuted(bug: str, transition: str, apply: Callable[..., QueueStep], name: str) -> None:
    result = discharge(obligation(dispatcher_obligations(BOUNDS, mutated(transition, apply)), name))
    print(f"{bug}:\n{assert_refuted(result)}")


# ============================================================================================
# Every obligation, refuted by corrupting what it reads
# ============================================================================================


def _set(values: tuple[Any, ...], index: int, value: Any) -> tuple[Any, ...]:
    return (*values[:index], value, *values[index + 1 :])


def _other_type(call_type: Any) -> Any:
    return ite(call_type == 0, 1, 0)


CORRUPT: dict[str, Callable[[QueueState, QueueState, QueueArgs], QueueState]] = {
    "inv_one_call_per_uid": lambda s, post, a: replace(post, queued=_set(post.queued, 0, 2)),
    "inv_call_ids_identify_callers": lambda s, post, a: replace(
        post, kept=_set(post.kept, 0, True), kept_id=_set(post.kept_id, 0, post.callers)
    ),
    "trans_more_relevant_call_never_dropped": lambda s, post, a: replace(
        post,
        kept=_set(post.kept, 0, True),
        kept_id=_set(post.kept_id, 0, s.kept_id[0] + 1),
        kept_type=_set(post.kept_type, 0, _other_type(s.kept_type[0])),
    ),
    "trans_add_keeps_the_more_relevant_call": lambda s, post, a: replace(
        post,
        kept=put(post.kept, a["uid"], True),
        kept_id=put(post.kept_id, a["uid"], s.callers),
        kept_type=put(post.kept_type, a["uid"], _other_type(a["type"])),
    ),
}


def _corrupted_obligation(name: str) -> Obligation:
    original = obligation(dispatcher_obligations(BOUNDS), name)
    if original.kind == "total":
        transition = original.transition
        assert transition is not None
        real = QUEUE_TRANSITIONS[transition].apply
        crashing = mutated(transition, lambda s, a: replace(real(s, a), crash=True))
        return obligation(dispatcher_obligations(BOUNDS, crashing), name)
    corrupt = CORRUPT[original.invariant]
    if original.transition is None:

        def broken_init(bounds: DispatcherBounds, *rest: Any) -> QueueState:
            start = initial_queue(bounds, *rest)
            return corrupt(start, start, {})

        return obligation(dispatcher_obligations(BOUNDS, init=broken_init), name)
    apply = after(original.transition, corrupt)
    return obligation(dispatcher_obligations(BOUNDS, mutated(original.transition, apply)), name)


def test_every_property_has_a_corruption() -> None:
    properties = {ob.invariant for ob in dispatcher_obligations(BOUNDS) if ob.kind != "total"}
    assert properties == set(CORRUPT)


@pytest.mark.parametrize("name", [ob.name for ob in dispatcher_obligations(BOUNDS)])
def test_every_obligation_fails_for_a_broken_transition(name: str) -> None:
    assert_refuted(discharge(_corrupted_obligation(name)))


def test_unbroken_obligations_are_proved_at_these_bounds() -> None:
    """Control for the tests above: the real transitions prove every obligation at the same bounds."""
    for ob in dispatcher_obligations(BOUNDS):
        assert discharge(ob).verdict is Verdict.PROVED, ob.name
