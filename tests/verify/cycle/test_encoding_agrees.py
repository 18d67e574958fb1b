"""The pipeline's Z3 encoding is the spec's: same enabledness, same post-states, same headline verdict.

Hypothesis draws runs of :mod:`spec.cycle.cycle` transitions over two node names and three pod UIDs
(pods requesting cpu and memory, some with a host port or tolerating every taint; nodes of
several sizes, some cordoned or tainted), with TTL 0 in the v1.34, v1.35 and v1.36 profiles; graceful
deletions (``terminate_pod``, at any stage, so bindings of terminating pods are refused) and the skip of a popped
terminating pod (``skip_pod``) included.
Every step, enabled or not, is also run through its encoding on the abstraction of the
pre-state, with plain values, and must give the abstraction of the spec's post-state; the
abstract headline must give the spec predicate's verdict on every cluster reached (node updates
that break the environment assumption are drawn too, so both verdicts occur), and the
auxiliary invariants must hold on every cluster reached. A sample of steps is also evaluated
through Z3, to check that the symbolic encoding computes what the plain one does.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import fields
from typing import Any

import pytest
import z3
from hypothesis import event, given
from hypothesis import strategies as st

from spec.cycle.cycle import Cluster, CycleNotEnabled, FailurePoint, new_cluster
from spec.cycle.invariants import inv_no_node_overcommitted
from spec.objects import Container, ContainerPort, Node, Pod, Taint, Toleration
from spec.quantities import SECOND, resource_list
from spec.verify.cycle.abstraction import (
    CycleNaming,
    abstract_cluster,
    cycle_disagreements,
    encode_cycle_step,
    invariant_verdicts,
)
from spec.verify.cycle.symbolic import CycleBounds, PipelineState, Stage, fresh_pipeline, map_pipeline
from spec.verify.cycle.system import CycleStep
from spec.verify.cycle.transitions import PIPELINE_TRANSITIONS, fresh_cycle_args
from spec.versions import V1_34, V1_35, V1_36

PODS = ("p0", "p1", "p2")
NODES = ("n0", "n1")
NAMING = CycleNaming(PODS, NODES)
MIB = 2**20


def make_pod(uid: str, cpu: int, memory: int, port: bool, tolerant: bool) -> Pod:
    ports = (ContainerPort(80, host_port=8080),) if port else ()
    container = Container("c", resource_list(cpu=cpu, memory=memory), ports)
    tolerations = (Toleration(operator="Exists"),) if tolerant else ()
    return Pod(uid, uid, containers=(container,), tolerations=tolerations)


def make_node(name: str, cpu: int, memory: int, pods: int, kind: int) -> Node:
    taints = (Taint("dedicated", "x"),) if kind == 2 else ()
    return Node(name, resource_list(cpu=cpu, memory=memory, pods=pods), unschedulable=kind == 1, taints=taints)


uids = st.sampled_from(PODS)
names = st.sampled_from(NODES)
POD_FIELDS = (st.sampled_from([0, 300, 600]), st.sampled_from([0, MIB, 3 * MIB]), st.booleans(), st.booleans())
pods = st.builds(make_pod, uids, *POD_FIELDS)
nodes = st.builds(
    make_node, names, st.sampled_from([0, 500, 1000]), st.sampled_from([MIB, 4 * MIB]), st.integers(0, 3),
    st.sampled_from([0, 0, 1, 2]),
)  # fmt: skip
progress = st.one_of(
    st.builds(lambda u, n: CycleStep("schedule_pod", (u, n)), uids, names),
    st.builds(lambda u: CycleStep("bind_pod", (u,)), uids),
    st.builds(lambda u: CycleStep("confirm_binding", (u,)), uids),
)
steps = st.one_of(
    progress,
    progress,
    st.builds(lambda p: CycleStep("create_pod", (p,)), pods),
    st.builds(lambda u, n: CycleStep("schedule_pod", (u, n)), uids, names),
    st.builds(lambda u: CycleStep("fail_scheduling", (u, None, None)), uids),
    st.builds(lambda u, n: CycleStep("fail_scheduling", (u, n, FailurePoint.RESERVE)), uids, names),
    st.builds(lambda u: CycleStep("bind_pod", (u,)), uids),
    st.builds(
        lambda u, p: CycleStep("fail_binding", (u, p)),
        uids,
        st.sampled_from([FailurePoint.PRE_BIND, FailurePoint.BIND]),
    ),
    st.builds(lambda u: CycleStep("confirm_binding", (u,)), uids),
    st.builds(lambda u: CycleStep("delete_pod", (u,)), uids),
    st.builds(lambda u: CycleStep("terminate_pod", (u,)), uids),
    st.builds(lambda u: CycleStep("skip_pod", (u,)), uids),
    st.builds(lambda n: CycleStep("add_node", (n,)), nodes),
    st.builds(lambda n: CycleStep("update_node", (n,)), nodes),
    st.builds(lambda n: CycleStep("remove_node", (n,)), names),
    st.just(CycleStep("tick", (5 * SECOND,))),
)
"""Every :mod:`spec.cycle.cycle` transition, with arguments from the small universe (some not enabled);
the steps that move a pod forward are drawn more often."""


def run(cluster: Cluster, step: CycleStep) -> Cluster | None:
    try:
        return step.apply(cluster)
    except CycleNotEnabled:
        return None


def check_cluster(cluster: Cluster, naming: CycleNaming = NAMING) -> str:
    """Check the invariants' verdicts on ``cluster``; whether the headline holds there."""
    verdicts = invariant_verdicts(cluster, naming)
    assert verdicts is not None, "a reached cluster the abstraction cannot represent"
    for name, (abstract, spec) in verdicts.items():
        if spec is None:
            assert abstract, f"{name} fails on a reached cluster"
        else:
            assert abstract == spec, f"{name}: abstract {abstract}, spec {spec}"
    return f"headline {'holds' if verdicts[inv_no_node_overcommitted.__name__][0] else 'fails'}"


def check_run(profile: Any, run_steps: list[CycleStep], naming: CycleNaming = NAMING) -> Counter[str]:
    cluster = new_cluster(profile, ttl=0)
    outcomes: Counter[str] = Counter([check_cluster(cluster, naming)])
    for step in run_steps:
        after = run(cluster, step)
        problems = cycle_disagreements(cluster, step, after, naming)
        assert problems is not None, f"{step} is outside the encoding"
        assert not problems, f"encoding disagrees with the spec on {step}: {problems}"
        outcomes[f"{step.name}: {'enabled' if after is not None else 'not enabled'}"] += 1
        if after is not None:
            cluster = after
            outcomes[check_cluster(cluster, naming)] += 1
    return outcomes


def node_named(name: str) -> st.SearchStrategy[Node]:
    return st.builds(make_node, st.just(name), st.sampled_from([500, 1000]), st.just(4 * MIB), st.integers(1, 3),
                     st.just(0))  # fmt: skip


setups = st.tuples(node_named("n0"), node_named("n1"), *(st.builds(make_pod, st.just(u), *POD_FIELDS) for u in PODS))
"""Two schedulable nodes and three created pods, so that most drawn runs schedule something."""


@given(st.sampled_from([V1_34, V1_35, V1_36]), setups, st.lists(steps, min_size=20, max_size=50))
def test_every_step_agrees_with_the_spec(profile: Any, setup: tuple[Any, ...], run_steps: list[CycleStep]) -> None:
    first = [CycleStep("add_node" if isinstance(x, Node) else "create_pod", (x,)) for x in setup]
    for outcome in check_run(profile, first + run_steps):
        event(outcome)


def scheduling_run() -> list[CycleStep]:
    """A fixed run through every transition and stage: two pods fill a node, one is refused, one is
    deleted while binding, one binding fails, the node shrinks to its pods and is removed and re-added."""
    big, small, other = (
        make_pod("p0", 600, MIB, False, False),
        make_pod("p1", 300, MIB, True, False),
        make_pod("p2", 600, 0, False, True),
    )
    return [
        CycleStep("add_node", (make_node("n0", 1000, 4 * MIB, 2, 0),)),
        CycleStep("add_node", (make_node("n1", 500, MIB, 1, 2),)),
        *(CycleStep("create_pod", (p,)) for p in (big, small, other)),
        CycleStep("schedule_pod", ("p0", "n0")),
        CycleStep("schedule_pod", ("p2", "n0")),  # does not fit next to p0
        CycleStep("schedule_pod", ("p2", "n1")),  # tolerates the taint, but 600m > 500m
        CycleStep("fail_scheduling", ("p2", None, None)),
        CycleStep("schedule_pod", ("p1", "n1")),  # tainted: p1 does not tolerate it
        CycleStep("schedule_pod", ("p1", "n0")),
        CycleStep("bind_pod", ("p0",)),
        CycleStep("confirm_binding", ("p0",)),
        CycleStep("delete_pod", ("p1",)),
        CycleStep("fail_binding", ("p1", FailurePoint.BIND)),
        CycleStep("update_node", (make_node("n0", 600, MIB, 1, 0),)),  # shrinks exactly to its pod
        CycleStep("schedule_pod", ("p2", "n0")),
        CycleStep("remove_node", ("n0",)),
        CycleStep("add_node", (make_node("n0", 1200, 4 * MIB, 3, 0),)),
        CycleStep("schedule_pod", ("p2", "n0")),
        CycleStep("fail_binding", ("p2", FailurePoint.PRE_BIND)),
        CycleStep("tick", (5 * SECOND,)),
        CycleStep("delete_pod", ("p0",)),
        CycleStep("delete_pod", ("p2",)),
    ]


TERMINATION_NAMING = CycleNaming(("p0", "p1", "p2", "p3"), NODES)


def termination_run() -> list[CycleStep]:
    """A fixed run through every graceful deletion: a pending pod made terminating is skipped (not scheduled); a
    binding pod made terminating is forgotten (v1.35) or kept (v1.34), its bind refused and the requeued pod
    skipped; a terminating binding pod deleted, then its binding failed; a confirmed pod made terminating, then
    deleted. Terminations and skips that are not enabled are tried on the way."""
    return [
        CycleStep("add_node", (make_node("n0", 1000, 4 * MIB, 3, 0),)),
        *(CycleStep("create_pod", (make_pod(uid, 300, MIB, False, False),)) for uid in TERMINATION_NAMING.pods),
        CycleStep("skip_pod", ("p0",)),  # not terminating: scheduled, not skipped
        CycleStep("terminate_pod", ("p0",)),
        CycleStep("schedule_pod", ("p0", "n0")),  # terminating: skipped, not scheduled
        CycleStep("fail_scheduling", ("p0", None, None)),
        CycleStep("skip_pod", ("p0",)),
        CycleStep("terminate_pod", ("p0",)),  # already terminating
        CycleStep("schedule_pod", ("p1", "n0")),
        CycleStep("terminate_pod", ("p1",)),
        CycleStep("bind_pod", ("p1",)),  # refused: the binding cycle fails, the pod is requeued
        CycleStep("skip_pod", ("p1",)),
        CycleStep("delete_pod", ("p1",)),
        CycleStep("schedule_pod", ("p2", "n0")),
        CycleStep("terminate_pod", ("p2",)),
        CycleStep("delete_pod", ("p2",)),  # forgotten once (v1.35), not again
        CycleStep("fail_binding", ("p2", FailurePoint.BIND)),
        CycleStep("schedule_pod", ("p3", "n0")),
        CycleStep("bind_pod", ("p3",)),
        CycleStep("terminate_pod", ("p3",)),  # the binding has not reached the informer yet
        CycleStep("confirm_binding", ("p3",)),
        CycleStep("terminate_pod", ("p3",)),
        CycleStep("delete_pod", ("p3",)),
        CycleStep("delete_pod", ("p0",)),
    ]


def test_a_fixed_run_compares_every_transition_enabled_and_not() -> None:
    """Control for the drawn runs: each encoding is compared at least once, enabled and refused."""
    outcomes: Counter[str] = Counter()
    for profile in (V1_34, V1_35, V1_36):
        outcomes += check_run(profile, scheduling_run())
        outcomes += check_run(profile, termination_run(), TERMINATION_NAMING)
    every = {t.function for t in PIPELINE_TRANSITIONS.values()}
    assert {key.split(":")[0] for key in outcomes if key.endswith(": enabled")} == every
    refused = {key.split(":")[0] for key in outcomes if key.endswith("not enabled")}
    assert refused == {"schedule_pod", "fail_scheduling", "terminate_pod", "skip_pod"}


@pytest.mark.parametrize("profile", [V1_34, V1_35], ids=lambda p: p.name)
def test_the_abstraction_reads_a_terminating_binding(profile: Any) -> None:
    """A binding pod made terminating is still held in v1.34 and forgotten in v1.35; after its refused bind it is
    pending, terminating, then skipped."""
    cluster = new_cluster(profile, ttl=0)
    seen = []
    for step in termination_run()[:15]:
        cluster = run(cluster, step) or cluster
        state = abstract_cluster(cluster, TERMINATION_NAMING)
        assert state is not None
        seen.append((Stage(state.stage[1]), state.terminating[1], state.pod_count[0]))
    held = 0 if profile.forget_assumed_pod_on_delete else 1
    assert seen[-4:] == [(Stage.BINDING, False, 1), (Stage.BINDING, True, held), (Stage.PENDING, True, 0),
                         (Stage.SKIPPED, True, 0)]  # fmt: skip


def test_the_abstraction_reads_the_stages() -> None:
    cluster = new_cluster(V1_35, ttl=0)
    for step in scheduling_run()[:13]:
        cluster = run(cluster, step) or cluster
    state = abstract_cluster(cluster, NAMING)
    assert state is not None
    assert [Stage(s) for s in state.stage] == [Stage.CONFIRMED, Stage.BINDING, Stage.PENDING]
    assert state.requested[0] == (900, 2 * MIB) and state.pod_count[0] == 2


def test_a_node_shrinking_under_its_pods_is_overcommitted_in_both() -> None:
    """Both headline verdicts occur: outside environment assumption 1, the spec and the abstraction
    agree that the node is overcommitted, and the encoding says the assumption is broken."""
    cluster = new_cluster(V1_35, ttl=0)
    for step in scheduling_run()[:13]:
        cluster = run(cluster, step) or cluster
    shrink = CycleStep("update_node", (make_node("n0", 500, 4 * MIB, 2, 0),))
    encoded = encode_cycle_step(cluster, shrink, NAMING)
    assert encoded is not None and encoded[3].enabled and not encoded[3].assumption
    after = run(cluster, shrink)
    assert after is not None and not inv_no_node_overcommitted(after)
    assert check_cluster(after) == "headline fails"


def _evaluate_symbolically(
    pre: PipelineState, name: str, args: dict[str, Any], naming: CycleNaming = NAMING
) -> tuple[bool, PipelineState]:
    """The encoding on fresh Z3 constants, then a model that fixes them to ``pre`` and ``args``."""
    transition = PIPELINE_TRANSITIONS[name]
    sym_pre = fresh_pipeline(naming.bounds, "pre")
    sym_args = fresh_cycle_args(transition, "op")
    step = transition.apply(sym_pre, sym_args)
    solver = z3.Solver()
    pairs: list[tuple[Any, Any]] = []
    for f in fields(PipelineState):
        pairs += _leaves(getattr(sym_pre, f.name), getattr(pre, f.name))
    pairs += [(sym_args[k], args[k]) for k in sym_args]
    solver.add(*(term == value for term, value in pairs))
    assert solver.check() == z3.sat
    model = solver.model()

    def value(term: Any) -> Any:
        if isinstance(term, bool | int):
            return term
        v = model.eval(term, model_completion=True)
        return z3.is_true(v) if z3.is_bool(v) else v.as_long()

    return bool(value(step.enabled)), map_pipeline(step.post, value)


def _leaves(terms: Any, values: Any) -> list[tuple[Any, Any]]:
    if isinstance(terms, tuple):
        return [pair for t, v in zip(terms, values, strict=True) for pair in _leaves(t, v)]
    return [(terms, values)]


@pytest.mark.parametrize("profile", [V1_34, V1_35], ids=lambda p: p.name)
def test_the_symbolic_encoding_computes_what_the_plain_one_does(profile: Any) -> None:
    compared: Counter[str] = Counter()
    for naming, fixed_run in ((NAMING, scheduling_run()), (TERMINATION_NAMING, termination_run())):
        cluster = new_cluster(profile, ttl=0)
        for step in fixed_run:
            encoded = encode_cycle_step(cluster, step, naming)
            assert encoded is not None
            pre, name, args, plain = encoded
            enabled, post = _evaluate_symbolically(pre, name, args, naming)
            assert enabled == plain.enabled, step
            if enabled:
                assert post == plain.post, step
                compared[name] += 1
            cluster = run(cluster, step) or cluster
    assert set(compared) == set(PIPELINE_TRANSITIONS)


def test_bad_bounds_names_and_steps_are_refused_clearly() -> None:
    with pytest.raises(ValueError, match="at least one pod"):
        CycleBounds(0, 1)
    with pytest.raises(ValueError, match="distinct"):
        CycleNaming(("p0", "p0"), NODES)
    with pytest.raises(TypeError, match="takes a Node"):
        encode_cycle_step(new_cluster(), CycleStep("add_node", ("n0",)), NAMING)
    outside = CycleStep("create_pod", (make_pod("p9", 0, 0, False, False),))
    assert encode_cycle_step(new_cluster(), outside, NAMING) is None
