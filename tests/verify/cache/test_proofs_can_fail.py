"""Every proof obligation can fail: a deliberately broken transition refutes it, with a counterexample.

Two kinds of breakage:

- realistic bugs (an assume that charges nothing, a forget that leaves the pod on its node, an
  expiry that ignores the binding, a confirm that forgets the assumed node, ...), each refuting
  the obligation that exists to catch it;
- for *every* obligation, its transition (or the initial state) followed by a corruption of
  exactly what its invariant reads. A proof that still went through would be vacuous: its
  hypotheses unsatisfiable, or its goal not about the post-state.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

import pytest

from spec.verify.cache import transitions
from spec.verify.cache.obligations import cache_obligations
from spec.verify.cache.symbolic import AbstractState, Bounds, initial_state, select
from spec.verify.cache.transitions import (
    TRANSITIONS,
    Args,
    Step,
    TransitionEncoding,
    add_pod_helper,
    remove_pod_helper,
)
from spec.verify.obligations import Obligation, Verdict, discharge
from spec.verify.terms import Bool, Int, and_, ite, not_, pick, put
from tests.support import proof_mutants
from tests.support.proof_mutants import assert_refuted, obligation

BOUNDS = Bounds(2, 1)
"""Small bounds: a broken transition fails already with two pods and one node name (plus "")."""


def mutated(name: str, apply: Callable[[AbstractState, Args], Step]) -> dict[str, TransitionEncoding]:
    return proof_mutants.mutated(TRANSITIONS, name, apply)


def after(name: str, change: Callable[[AbstractState, AbstractState, Args], AbstractState]) -> Callable[..., Step]:
    """The real transition, then ``change(pre, post, args)`` on its post-state."""
    return proof_mutants.after(TRANSITIONS, name, change)


# ============================================================================================
# Realistic bugs
# ============================================================================================


def assume_without_charging(s: AbstractState, post: AbstractState, a: Args) -> AbstractState:
    return replace(post, requested=s.requested)


def forget_leaving_the_node_info(s: AbstractState, post: AbstractState, a: Args) -> AbstractState:
    return replace(post, on=s.on, requested=s.requested, has_info=s.has_info)


def finish_binding_always_sets_deadline(s: AbstractState, post: AbstractState, a: Args) -> AbstractState:
    current = and_(pick(s.in_cache, a["pod"]), pick(s.assumed, a["pod"]))
    return replace(post, has_deadline=put(post.has_deadline, a["pod"], current))


def remove_node_dropping_the_ghost(s: AbstractState, post: AbstractState, a: Args) -> AbstractState:
    n = a["node"]
    return replace(
        post,
        has_info=put(post.has_info, n, False),
        on=tuple(put(row, n, False) for row in post.on),
        requested=tuple(tuple(ite(n == i, 0, q) for q in row) for i, row in enumerate(post.requested)),
    )


def add_pod_confirm_without_removal(s: AbstractState, a: Args) -> Step:
    """AddPod of an assumed pod adds it to the new node but never takes it off the assumed one."""
    real = TRANSITIONS["AddPod"].apply(s, a)
    confirming = and_(pick(s.in_cache, a["pod"]), pick(s.assumed, a["pod"]))
    sloppy = add_pod_helper(s, a["pod"], a["node"], a["request"], assume=False)
    return replace(real, post=select(confirming, sloppy, real.post), fatal=and_(not_(confirming), real.fatal))


def update_pod_without_release(s: AbstractState, a: Args) -> Step:
    """UpdatePod adds the new object without releasing the old object's requests."""
    real = TRANSITIONS["UpdatePod"].apply(s, a)
    removal = remove_pod_helper(s, a["pod"], a["old_node"])
    leaky = add_pod_helper(replace(removal.state, requested=s.requested), a["pod"], a["new_node"], a["request"], False)
    return replace(real, post=select(and_(not_(real.error), removal.ok), leaky, real.post))


def expired_ignoring_binding(s: AbstractState, pod: int, now: Int) -> Bool:
    return and_(s.ttl != 0, now > s.deadline[pod])


def expired_at_the_deadline(s: AbstractState, pod: int, now: Int) -> Bool:
    return and_(s.finished[pod], s.ttl != 0, s.has_deadline[pod], now >= s.deadline[pod])


REALISTIC: list[tuple[str, str, Callable[..., Step], str]] = [
    ("assume charges nothing", "AssumePod", after("AssumePod", assume_without_charging),
     "inv_requested_is_sum_of_pods"),
    ("forget leaves the pod on its node", "ForgetPod", after("ForgetPod", forget_leaving_the_node_info),
     "inv_pod_states_match_node_infos"),
    ("confirm forgets the assumed node", "AddPod", add_pod_confirm_without_removal, "inv_pod_on_at_most_one_node"),
    ("update keeps the old requests", "UpdatePod", update_pod_without_release, "inv_requested_is_sum_of_pods"),
    ("finish_binding sets a deadline with ttl 0", "FinishBinding",
     after("FinishBinding", finish_binding_always_sets_deadline), "inv_deadline_only_after_finish_binding"),
    ("remove_node drops a ghost with pods", "RemoveNode", after("RemoveNode", remove_node_dropping_the_ghost),
     "inv_pod_states_match_node_infos"),
]  # fmt: skip


@pytest.mark.parametrize(("bug", "transition", "apply", "invariant"), REALISTIC, ids=[r[0] for r in REALISTIC])
def test_realistic_bug_is_refuted(bug: str, transition: str, apply: Callable[..., Step], invariant: str) -> None:
    obligations = cache_obligations(BOUNDS, mutated(transition, apply))
    result = discharge(obligation(obligations, f"step/{transition}/{invariant}"))
    assert_refuted(result)
    print(f"{bug}:\n{result.counterexample.render() if result.counterexample else ''}")


@pytest.mark.parametrize("broken", [expired_ignoring_binding, expired_at_the_deadline], ids=lambda f: f.__name__)
def test_broken_expiry_is_refuted(broken: Callable[..., Bool], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(transitions, "is_expired", broken)
    obligations = cache_obligations(BOUNDS)
    result = discharge(obligation(obligations, "expiry/CleanupAssumedPods/trans_expiry_only_after_finish_binding"))
    assert_refuted(result)


def test_unbroken_expiry_is_proved() -> None:
    """Control for the test above: with the real ``is_expired`` the same obligation is proved."""
    result = discharge(
        obligation(cache_obligations(BOUNDS), "expiry/CleanupAssumedPods/trans_expiry_only_after_finish_binding")
    )
    assert result.verdict is Verdict.PROVED


# ============================================================================================
# Every obligation, refuted by corrupting what its invariant reads
# ============================================================================================


def _set(values: tuple[Any, ...], index: int, value: Any) -> tuple[Any, ...]:
    return (*values[:index], value, *values[index + 1 :])


CORRUPT: dict[str, Callable[[AbstractState], AbstractState]] = {
    "inv_wf_abstraction": lambda s: replace(s, live=_set(s.live, 0, True), has_info=_set(s.has_info, 0, False)),
    "inv_assumed_pods_subset_of_pod_states": lambda s: replace(
        s, assumed=_set(s.assumed, 0, True), in_cache=_set(s.in_cache, 0, False)
    ),
    "inv_deadline_only_after_finish_binding": lambda s: replace(
        s, in_cache=_set(s.in_cache, 0, True), assumed=_set(s.assumed, 0, False), finished=_set(s.finished, 0, True)
    ),
    "inv_pod_on_at_most_one_node": lambda s: replace(s, on=_set(s.on, 0, _set(_set(s.on[0], 0, True), 1, True))),
    "inv_pod_states_match_node_infos": lambda s: replace(
        s, in_cache=_set(s.in_cache, 0, True), node=_set(s.node, 0, 0), on=_set(s.on, 0, _set(s.on[0], 0, False))
    ),
    "inv_requested_is_sum_of_pods": lambda s: replace(
        s, requested=_set(s.requested, 0, _set(s.requested[0], 0, s.requested[0][0] + 1))
    ),
    "inv_no_empty_node_info_without_node": lambda s: replace(
        s,
        has_info=_set(s.has_info, 0, True),
        live=_set(s.live, 0, False),
        on=tuple(_set(row, 0, False) for row in s.on),
    ),
    "trans_expiry_only_after_finish_binding": lambda s: replace(
        s, in_cache=_set(s.in_cache, 0, False), assumed=_set(s.assumed, 0, False)
    ),
}


def test_every_invariant_has_a_corruption() -> None:
    assert {ob.invariant for ob in cache_obligations(BOUNDS)} == set(CORRUPT)


def _corrupted_obligation(name: str) -> Obligation:
    original = obligation(cache_obligations(BOUNDS), name)
    corrupt = CORRUPT[original.invariant]
    if original.transition is None:

        def broken_init(bounds: Bounds, ttl: Any, expiry: Any) -> AbstractState:
            return corrupt(initial_state(bounds, ttl, expiry))

        return obligation(cache_obligations(BOUNDS, init=broken_init), name)
    apply = after(original.transition, lambda s, post, a: corrupt(post))
    return obligation(cache_obligations(BOUNDS, mutated(original.transition, apply)), name)


@pytest.mark.parametrize("name", [ob.name for ob in cache_obligations(BOUNDS)])
def test_every_obligation_fails_for_a_broken_transition(name: str) -> None:
    assert_refuted(discharge(_corrupted_obligation(name)))
