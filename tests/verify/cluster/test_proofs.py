"""The cluster's Z3 obligations: all proved; each can fail (a broken transition refutes it, with a
counterexample); and the encoding is the spec's (on reachable clusters, every step's encoding gives the
abstraction of the spec's post-state, and the abstract invariants give the spec predicates' verdicts)."""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from dataclasses import replace
from typing import Any

import pytest

from spec.cycle.cycle import Cluster, CycleNotEnabled
from spec.verify.cluster.obligations import cluster_obligations
from spec.verify.cluster.symbolic import (
    CLUSTER_PROOF_INVARIANTS,
    CLUSTER_TRANSITIONS,
    ApiState,
    ApiStep,
    ClusterArgs,
    ClusterBounds,
    ClusterNaming,
    PodPhase,
    abstract_cluster,
    cluster_step_encoding,
    initial_cluster,
)
from spec.verify.cycle.system import CycleStep, CycleUniverse
from spec.verify.obligations import Verdict, discharge
from spec.verify.terms import and_, ite, or_, pick, put
from tests.support import proof_mutants
from tests.support.proof_mutants import assert_refuted, obligation

BOUNDS = ClusterBounds(2, 2)


def test_every_cluster_obligation_is_proved() -> None:
    obligations = cluster_obligations()
    assert len(obligations) == len(CLUSTER_PROOF_INVARIANTS) * (1 + len(CLUSTER_TRANSITIONS)) == 28
    for ob in obligations:
        result = discharge(ob)
        assert result.verdict is Verdict.PROVED, f"{ob.name}: {result.reason}"


def real(name: str, s: ApiState, a: ClusterArgs) -> ApiStep:
    return CLUSTER_TRANSITIONS[name].apply(s, a)


def refuted_with(name: str, apply: Callable[[ApiState, ClusterArgs], ApiStep], target: str) -> str:
    broken = proof_mutants.mutated(CLUSTER_TRANSITIONS, name, apply)
    return assert_refuted(discharge(obligation(cluster_obligations(BOUNDS, broken), target)))


# ============================================================================================
# Realistic bugs
# ============================================================================================


def bind_without_conflict(s: ApiState, a: ClusterArgs) -> ApiStep:
    """The API server binds a pod that is already bound (no "already assigned" check)."""
    step = real("Bind", s, a)
    phase = pick(s.phase, a["pod"])
    return replace(step, enabled=or_(phase == int(PodPhase.UNBOUND), phase == int(PodPhase.BOUND)))


def admit_without_fit(s: ApiState, a: ClusterArgs) -> ApiStep:
    """The kubelet admits whatever passes its other checks."""
    step = real("AdmitPod", s, a)
    admitted = a["others_pass"]
    post = replace(step.post, admitted=put(s.admitted, a["pod"], admitted),
                   phase=put(s.phase, a["pod"], ite(admitted, int(PodPhase.BOUND), int(PodPhase.GONE))))
    return replace(step, post=post)


def admit_against_allocatable_alone(s: ApiState, a: ClusterArgs) -> ApiStep:
    """The kubelet checks the pod against the node's allocatable, not against what is left of it."""
    nobody = replace(s, admitted=(False,) * s.pods)
    step = real("AdmitPod", nobody, a)
    return replace(step, enabled=real("AdmitPod", s, a).enabled,
                   post=replace(step.post, admitted=put(s.admitted, a["pod"], pick(step.post.admitted, a["pod"]))))


def set_node_shrinking(s: ApiState, a: ClusterArgs) -> ApiStep:
    """A node's allocatable shrinks under its admitted pods (the environment assumption dropped)."""
    return replace(real("SetNode", s, a), assumption=True)


def delete_keeping_admission(s: ApiState, a: ClusterArgs) -> ApiStep:
    """A deleted pod stays on its kubelet's books."""
    step = real("DeletePod", s, a)
    return replace(step, post=replace(step.post, admitted=s.admitted))


def create_reusing_a_uid(s: ApiState, a: ClusterArgs) -> ApiStep:
    """A UID is used again after its pod was deleted."""
    step = real("CreatePod", s, a)
    phase = pick(s.phase, a["pod"])
    return replace(step, enabled=or_(phase == int(PodPhase.ABSENT), phase == int(PodPhase.GONE)))


@pytest.mark.parametrize(
    ("transition", "broken", "target"),
    [
        ("Bind", bind_without_conflict, "step/Bind/inv_no_pod_bound_twice"),
        ("AdmitPod", admit_without_fit, "step/AdmitPod/inv_admitted_pods_fit_nodes"),
        ("AdmitPod", admit_against_allocatable_alone, "step/AdmitPod/inv_admitted_pods_fit_nodes"),
        ("SetNode", set_node_shrinking, "step/SetNode/inv_admitted_pods_fit_nodes"),
        ("DeletePod", delete_keeping_admission, "step/DeletePod/inv_wf_cluster_abstraction"),
        ("CreatePod", create_reusing_a_uid, "step/CreatePod/inv_bindings_match_phases"),
    ],
)
def test_a_realistic_bug_refutes_the_obligation_that_guards_against_it(
    transition: str, broken: Callable[[ApiState, ClusterArgs], ApiStep], target: str
) -> None:
    text = refuted_with(transition, broken, target)
    assert "counterexample to" in text


# ============================================================================================
# Every obligation can fail: the transition, then a corruption of what the invariant reads
# ============================================================================================


def corrupt(invariant: str, s: ApiState) -> ApiState:
    """``s`` changed so that ``invariant`` fails, whatever ``s`` was."""
    if invariant == "inv_wf_cluster_abstraction":
        return replace(s, phase=put(s.phase, 0, 99))
    if invariant == "inv_bindings_match_phases":
        return replace(s, phase=put(s.phase, 0, int(PodPhase.UNBOUND)), binds=put(s.binds, 0, 1))
    if invariant == "inv_no_pod_bound_twice":
        return replace(s, binds=put(s.binds, 0, 2))
    assert invariant == "inv_admitted_pods_fit_nodes"
    return replace(s, phase=put(s.phase, 0, int(PodPhase.BOUND)), node=put(s.node, 0, 0),
                   admitted=put(s.admitted, 0, True), present=put(s.present, 0, True), capacity=put(s.capacity, 0, 0))


@pytest.mark.parametrize("name", [ob.name for ob in cluster_obligations(BOUNDS)])
def test_every_obligation_rejects_a_corrupted_post_state(name: str) -> None:
    target = next(ob for ob in cluster_obligations(BOUNDS) if ob.name == name)
    if target.transition is None:
        obligations = cluster_obligations(BOUNDS, init=lambda b: corrupt(target.invariant, initial_cluster(b)))
    else:
        broken = {**CLUSTER_TRANSITIONS, target.transition: replace(
            CLUSTER_TRANSITIONS[target.transition],
            apply=proof_mutants.after(CLUSTER_TRANSITIONS, target.transition,
                                      lambda pre, post, args: corrupt(target.invariant, post)))}
        obligations = cluster_obligations(BOUNDS, broken)
    assert_refuted(discharge(obligation(obligations, name)))


# ============================================================================================
# The encoding is the spec's
# ============================================================================================

UNIVERSE = CycleUniverse(nodes=2, pods=2, pod_variants=2, node_variants=2, ttls=(0,), crashes=True, kubelet=True,
                         late_binds=True)
NAMING = ClusterNaming(UNIVERSE.pod_uids, UNIVERSE.node_names)
STATES = 1500


def reachable(universe: CycleUniverse = UNIVERSE) -> list[Cluster]:
    """The first :data:`STATES` clusters of ``universe``, breadth first."""
    start = universe.initial_states()[0]
    seen, queue, found = {start}, deque([start]), [start]
    while queue and len(found) < STATES:
        cluster = queue.popleft()
        for step in universe.steps(cluster):
            try:
                after = step.apply(cluster)
            except CycleNotEnabled:
                continue
            if after not in seen:
                seen.add(after)
                found.append(after)
                queue.append(after)
    return found


@pytest.mark.parametrize("terminations", [False, True], ids=["", "graceful deletions"])
def test_the_encoding_computes_the_spec_and_the_invariants_agree(terminations: bool) -> None:
    """With ``terminations`` a pod's graceful deletion (which changes nothing the abstraction keeps) and a refused
    bind of a terminating pod (no encoded step) occur too."""
    universe = replace(UNIVERSE, terminations=terminations)
    used_transitions: set[str] = set()
    steps_taken: set[str] = set()
    for cluster in reachable(universe):
        pre = abstract_cluster(cluster, NAMING)
        for inv in CLUSTER_PROOF_INVARIANTS:
            expected = True if inv.spec_predicate is None else inv.spec_predicate(cluster)
            assert inv.formula(pre) is expected, inv.name
        for step in universe.steps(cluster):
            try:
                after = step.apply(cluster)
            except CycleNotEnabled:
                continue
            check_step(cluster, step, after, pre, used_transitions)
            refused = step.name == "bind_pod" and step.args[0] in after.pending
            steps_taken.add(f"{step.name}: refused" if refused else step.name)
    assert used_transitions == set(CLUSTER_TRANSITIONS)
    assert ({"terminate_pod", "skip_pod", "bind_pod: refused"} <= steps_taken) is terminations


def check_step(cluster: Cluster, step: CycleStep, after: Cluster, pre: ApiState, used_transitions: set[str]) -> None:
    encoded = cluster_step_encoding(step.name, step.args, cluster, NAMING)
    post = abstract_cluster(after, NAMING)
    if encoded is None:
        assert post == pre, step
        return
    name, args = encoded
    result: Any = CLUSTER_TRANSITIONS[name].apply(pre, args)
    assert result.enabled is True, step
    if result.assumption is True:
        assert result.post == post, (step, result.post, post)
        used_transitions.add(name)


def test_the_abstraction_of_a_new_cluster_is_the_initial_state() -> None:
    start = UNIVERSE.initial_states()[0]
    assert abstract_cluster(start, NAMING) == initial_cluster(NAMING.bounds)
    assert and_(*(inv.formula(initial_cluster(NAMING.bounds)) for inv in CLUSTER_PROOF_INVARIANTS)) is True
