"""Every pipeline obligation can fail: a deliberately broken transition refutes it, with a counterexample.

As for the cache and the dispatcher: realistic bugs in the scheduling pipeline (a fit check left
out or made against a stale snapshot, a forgotten ``ForgetPod``, a node shrinking under its pods,
an assumption that expires), each refuting the obligation that exists to catch it; and for
*every* obligation, its transition (or the initial state) followed by a corruption of exactly
what the invariant reads, so no proof is vacuous.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

import pytest

from spec.verify.cycle.obligations import cycle_obligations
from spec.verify.cycle.symbolic import STAGES, CycleBounds, PipelineState, Stage, initial_pipeline, is_stage
from spec.verify.cycle.transitions import (
    PIPELINE_TRANSITIONS,
    RESOURCE_RANGE,
    CycleArgs,
    PipelineStep,
    PipelineTransition,
    charge,
    move,
    release,
    stage_of,
    terminating_of,
)
from spec.verify.obligations import Obligation, Verdict, discharge
from spec.verify.terms import and_, ite, not_, or_, pick, put, select_fields
from tests.support import proof_mutants
from tests.support.proof_mutants import assert_refuted, obligation

BOUNDS = CycleBounds(2, 2)
"""Small bounds: two pods and two nodes suffice for every broken transition below."""


def mutated(name: str, apply: Callable[[PipelineState, CycleArgs], PipelineStep]) -> dict[str, PipelineTransition]:
    return proof_mutants.mutated(PIPELINE_TRANSITIONS, name, apply)


def after(name: str, change: Callable[[PipelineState, PipelineState, CycleArgs], PipelineState]) -> Callable[..., Any]:
    """The real transition, then ``change(pre, post, args)`` on its post-state."""
    return proof_mutants.after(PIPELINE_TRANSITIONS, name, change)


def real(name: str, s: PipelineState, a: CycleArgs) -> PipelineStep:
    return PIPELINE_TRANSITIONS[name].apply(s, a)


# ============================================================================================
# Realistic bugs
# ============================================================================================


def schedule_without_fit(s: PipelineState, a: CycleArgs) -> PipelineStep:
    """NodeResourcesFit left out: any live node is feasible."""
    step = real("SchedulePod", s, a)
    return replace(step, enabled=and_(stage_of(s, a["pod"]) == int(Stage.PENDING), pick(s.live, a["node"])))


def schedule_without_pod_count(s: PipelineState, a: CycleArgs) -> PipelineStep:
    """``fitsRequest`` without its first check: the node's pod capacity is ignored."""
    step = real("SchedulePod", s, a)
    unlimited = replace(s, capacity=tuple(c + 1 + n for c, n in zip(s.capacity, s.pod_count, strict=True)))
    return replace(step, enabled=real("SchedulePod", unlimited, a).enabled)


def schedule_on_a_stale_snapshot(s: PipelineState, a: CycleArgs) -> PipelineStep:
    """The snapshot is not refreshed: the fit check sees Requested without the pods assumed since
    (those whose binding cycle is in flight or unconfirmed), the reason ``AssumePod`` exists."""
    step = real("SchedulePod", s, a)
    assumed = [is_stage(s, p, Stage.BINDING, Stage.UNCONFIRMED) for p in range(s.pods)]
    stale_rows = tuple(
        tuple(
            s.requested[n][r]
            - sum((ite(and_(assumed[p], s.node[p] == n), s.request[p][r], 0) for p in range(s.pods)), 0)
            for r in RESOURCE_RANGE
        )
        for n in range(s.nodes)
    )
    stale_counts = tuple(
        s.pod_count[n] - sum((ite(and_(assumed[p], s.node[p] == n), 1, 0) for p in range(s.pods)), 0)
        for n in range(s.nodes)
    )
    stale = replace(s, requested=stale_rows, pod_count=stale_counts)
    return replace(step, enabled=real("SchedulePod", stale, a).enabled)


def fail_binding_without_forget(s: PipelineState, a: CycleArgs) -> PipelineStep:
    """``handleBindingCycleError`` without ``ForgetPod``: the requeued pod's resources stay charged."""
    step = real("FailBinding", s, a)
    kept = replace(step.post, requested=s.requested, pod_count=s.pod_count)
    return replace(step, post=kept)


def fail_binding_forgets_twice(s: PipelineState, a: CycleArgs) -> PipelineStep:
    """A pod forgotten on deletion (v1.35) is released again when its binding fails."""
    step = real("FailBinding", s, a)
    orphaned = and_(stage_of(s, a["pod"]) == int(Stage.ORPHANED), s.forget_on_delete)
    twice = replace(step.post, requested=release(s, a["pod"]).requested, pod_count=release(s, a["pod"]).pod_count)
    return replace(step, post=select_fields(orphaned, twice, step.post))


def delete_keeping_a_confirmed_pod(s: PipelineState, a: CycleArgs) -> PipelineStep:
    """``deletePod`` drops the pod from the pipeline but never calls ``RemovePod``."""
    step = real("DeletePod", s, a)
    return replace(step, post=replace(step.post, requested=s.requested, pod_count=s.pod_count))


def confirm_charging_again(s: PipelineState, a: CycleArgs) -> PipelineStep:
    """The informer's ``AddPod`` adds the assumed pod as a new one instead of confirming it."""
    step = real("ConfirmBinding", s, a)
    return replace(step, post=charge(step.post, a["pod"], pick(s.node, a["pod"])))


def update_node_without_assumption(s: PipelineState, a: CycleArgs) -> PipelineStep:
    """Environment assumption 1 dropped: a node update may shrink allocatable under its pods."""
    return replace(real("UpdateNode", s, a), assumption=True)


def add_node_without_assumption(s: PipelineState, a: CycleArgs) -> PipelineStep:
    """Environment assumption 1 dropped for a ghost node that comes back smaller than its pods."""
    return replace(real("AddNode", s, a), assumption=True)


def tick_expiring_an_assumption(s: PipelineState, a: CycleArgs) -> PipelineStep:
    """A non-zero TTL: ``cleanupAssumedPods`` expires a pod whose binding finished (here pod 0, bound
    but unconfirmed), whose late confirmation will not give its resources back to the books."""
    expires = stage_of(s, 0) == int(Stage.UNCONFIRMED)
    return PipelineStep(select_fields(expires, release(s, 0), s))


def terminate_forgetting_in_v1_34(s: PipelineState, a: CycleArgs) -> PipelineStep:
    """The update that sets an assumed pod's ``DeletionTimestamp`` forgets it in every profile, v1.34 included,
    where the cache goes on holding it until its binding cycle fails."""
    step = real("TerminatePod", s, a)
    binding = stage_of(s, a["pod"]) == int(Stage.BINDING)
    forgotten = release(step.post, a["pod"])
    return replace(step, post=select_fields(and_(binding, not_(s.forget_on_delete)), forgotten, step.post))


def terminate_keeping_the_assumed_pod(s: PipelineState, a: CycleArgs) -> PipelineStep:
    """``updatePodInSchedulingQueue`` ignores an assumed pod's ``DeletionTimestamp`` in v1.35 too (no
    ``handleAssumedPodDeletion``): the cache keeps a pod it no longer accounts as held."""
    step = real("TerminatePod", s, a)
    return replace(step, post=replace(step.post, requested=s.requested, pod_count=s.pod_count))


def bind_without_refusal(s: PipelineState, a: CycleArgs) -> PipelineStep:
    """The API server binds a pod being deleted (no ``bind_refusal``): in v1.35 the cache forgot it when it became
    terminating, so it is bound on a node whose books do not count it."""
    step = real("BindPod", s, a)
    return replace(step, post=move(s, a["pod"], Stage.UNCONFIRMED))


def refused_bind_not_forgotten(s: PipelineState, a: CycleArgs) -> PipelineStep:
    """A refused bind requeues the pod without ``ForgetPod``: in v1.34, which kept the terminating pod assumed, its
    resources stay charged."""
    step = real("BindPod", s, a)
    return replace(step, post=replace(step.post, requested=s.requested, pod_count=s.pod_count))


def schedule_a_terminating_pod(s: PipelineState, a: CycleArgs) -> PipelineStep:
    """``ScheduleOne`` without ``skipPodSchedule``: a pod being deleted is assumed on a node, which in v1.35 charges
    a pod the cache accounts as forgotten."""
    pending = replace(s, terminating=put(s.terminating, a["pod"], False))
    return replace(real("SchedulePod", s, a), enabled=real("SchedulePod", pending, a).enabled)


def skip_a_pod_not_being_deleted(s: PipelineState, a: CycleArgs) -> PipelineStep:
    """``skipPodSchedule`` skips a pod without ``DeletionTimestamp``: a live pod leaves the queue for good."""
    return replace(real("SkipPod", s, a), enabled=stage_of(s, a["pod"]) == int(Stage.PENDING))


def delete_forgetting_a_terminating_pod_again(s: PipelineState, a: CycleArgs) -> PipelineStep:
    """``deletePod`` forgets an assumed pod that its ``DeletionTimestamp`` already made the cache forget (v1.35)."""
    step = real("DeletePod", s, a)
    again = and_(stage_of(s, a["pod"]) == int(Stage.BINDING), terminating_of(s, a["pod"]), s.forget_on_delete)
    twice = release(step.post, a["pod"])
    return replace(step, post=select_fields(again, replace(step.post, requested=twice.requested,
                                                           pod_count=twice.pod_count), step.post))


REALISTIC: list[tuple[str, str, Callable[..., PipelineStep], str]] = [
    ("no fit check", "SchedulePod", schedule_without_fit, "step/SchedulePod/inv_no_node_overcommitted"),
    ("no pod-count check", "SchedulePod", schedule_without_pod_count, "step/SchedulePod/inv_no_node_overcommitted"),
    ("stale snapshot", "SchedulePod", schedule_on_a_stale_snapshot, "step/SchedulePod/inv_no_node_overcommitted"),
    ("failed binding not forgotten", "FailBinding", fail_binding_without_forget,
     "step/FailBinding/inv_requested_is_sum_of_placed_pods"),
    ("forgotten twice", "FailBinding", fail_binding_forgets_twice,
     "step/FailBinding/inv_requested_is_sum_of_placed_pods"),
    ("deleted pod kept in the cache", "DeletePod", delete_keeping_a_confirmed_pod,
     "step/DeletePod/inv_requested_is_sum_of_placed_pods"),
    ("confirmation charges again", "ConfirmBinding", confirm_charging_again,
     "step/ConfirmBinding/inv_no_node_overcommitted"),
    ("node shrinks under its pods", "UpdateNode", update_node_without_assumption,
     "step/UpdateNode/inv_no_node_overcommitted"),
    ("ghost comes back smaller", "AddNode", add_node_without_assumption, "step/AddNode/inv_no_node_overcommitted"),
    ("assumption expires (TTL > 0)", "Tick", tick_expiring_an_assumption,
     "step/Tick/inv_requested_is_sum_of_placed_pods"),
    ("termination forgets in v1.34", "TerminatePod", terminate_forgetting_in_v1_34,
     "step/TerminatePod/inv_requested_is_sum_of_placed_pods"),
    ("termination keeps the assumed pod in v1.35", "TerminatePod", terminate_keeping_the_assumed_pod,
     "step/TerminatePod/inv_requested_is_sum_of_placed_pods"),
    ("terminating pod bound", "BindPod", bind_without_refusal, "step/BindPod/inv_requested_is_sum_of_placed_pods"),
    ("refused bind not forgotten", "BindPod", refused_bind_not_forgotten,
     "step/BindPod/inv_requested_is_sum_of_placed_pods"),
    ("terminating pod scheduled", "SchedulePod", schedule_a_terminating_pod,
     "step/SchedulePod/inv_requested_is_sum_of_placed_pods"),
    ("live pod skipped", "SkipPod", skip_a_pod_not_being_deleted, "step/SkipPod/inv_wf_pipeline_abstraction"),
    ("terminating pod forgotten twice", "DeletePod", delete_forgetting_a_terminating_pod_again,
     "step/DeletePod/inv_requested_is_sum_of_placed_pods"),
]  # fmt: skip


@pytest.mark.parametrize(("bug", "transition", "apply", "name"), REALISTIC, ids=[r[0] for r in REALISTIC])
def test_realistic_bug_is_refuted(bug: str, transition: str, apply: Callable[..., PipelineStep], name: str) -> None:
    result = discharge(obligation(cycle_obligations(BOUNDS, mutated(transition, apply)), name))
    print(f"{bug}:\n{assert_refuted(result)}")


def test_a_failed_binding_without_forget_keeps_the_headline() -> None:
    """Why the books are an invariant of their own: the leak overcommits nothing, it only wastes room."""
    broken = mutated("FailBinding", fail_binding_without_forget)
    result = discharge(obligation(cycle_obligations(BOUNDS, broken), "step/FailBinding/inv_no_node_overcommitted"))
    assert result.verdict is Verdict.PROVED


# ============================================================================================
# Every obligation, refuted by corrupting what it reads
# ============================================================================================


def _first(values: tuple[Any, ...], value: Any) -> tuple[Any, ...]:
    return (value, *values[1:])


CORRUPT: dict[str, Callable[[PipelineState, PipelineState, CycleArgs], PipelineState]] = {
    "inv_wf_pipeline_abstraction": lambda s, post, a: replace(post, stage=_first(post.stage, STAGES)),
    "inv_requested_is_sum_of_placed_pods": lambda s, post, a: replace(
        post, pod_count=_first(post.pod_count, post.pod_count[0] + 1)
    ),
    "inv_no_node_overcommitted": lambda s, post, a: replace(
        post,
        live=_first(post.live, True),
        pod_count=_first(post.pod_count, post.capacity[0] + 1),
    ),
}


def _corrupted_obligation(name: str) -> Obligation:
    original = obligation(cycle_obligations(BOUNDS), name)
    corrupt = CORRUPT[original.invariant]
    if original.transition is None:

        def broken_init(bounds: CycleBounds, forget_on_delete: Any) -> PipelineState:
            start = initial_pipeline(bounds, forget_on_delete)
            return corrupt(start, start, {})

        return obligation(cycle_obligations(BOUNDS, init=broken_init), name)
    return obligation(
        cycle_obligations(BOUNDS, mutated(original.transition, after(original.transition, corrupt))), name
    )


def test_every_invariant_has_a_corruption() -> None:
    assert {ob.invariant for ob in cycle_obligations(BOUNDS)} == set(CORRUPT)


@pytest.mark.parametrize("name", [ob.name for ob in cycle_obligations(BOUNDS)])
def test_every_obligation_fails_for_a_broken_transition(name: str) -> None:
    assert_refuted(discharge(_corrupted_obligation(name)))


def test_unbroken_obligations_are_proved_at_these_bounds() -> None:
    """Control for the tests above: the real transitions prove every obligation at the same bounds."""
    for ob in cycle_obligations(BOUNDS):
        assert discharge(ob).verdict is Verdict.PROVED, ob.name


def test_the_stale_snapshot_bug_needs_an_assumed_pod() -> None:
    """The stale-snapshot mutant differs from the real check only while some pod is assumed: with
    every pod pending, deleted or confirmed it proves the obligation (so the refutation above is
    about assumptions, not an artefact of the mutant)."""
    broken = mutated("SchedulePod", schedule_on_a_stale_snapshot)
    ob = obligation(cycle_obligations(BOUNDS, broken), "step/SchedulePod/inv_no_node_overcommitted")
    query = ob.build()
    pre = query.pre
    assert isinstance(pre, PipelineState)
    settled = and_(*(or_(*(pre.stage[p] == int(x) for x in (Stage.PENDING, Stage.DELETED, Stage.CONFIRMED)))
                     for p in range(BOUNDS.pods)))  # fmt: skip
    restricted = replace(ob, build=lambda: replace(query, hypotheses=(*query.hypotheses, settled)))
    assert discharge(restricted).verdict is Verdict.PROVED


def test_binding_a_terminating_pod_breaks_the_books_only_where_it_was_forgotten() -> None:
    """The unrefused bind differs from the real one only for a terminating pod; its books break only in a profile
    that forgot the pod when it became terminating (v1.35): with v1.34's behaviour the obligation is proved (so the
    refutation above is about the forgetting, not an artefact of the mutant)."""
    broken = mutated("BindPod", bind_without_refusal)
    ob = obligation(cycle_obligations(BOUNDS, broken), "step/BindPod/inv_requested_is_sum_of_placed_pods")
    query = ob.build()
    pre = query.pre
    assert isinstance(pre, PipelineState)
    restricted = replace(ob, build=lambda: replace(query, hypotheses=(*query.hypotheses, not_(pre.forget_on_delete))))
    assert discharge(restricted).verdict is Verdict.PROVED
