"""DefaultPreemption in the spec (spec/cycle/preemption.py), on Kubernetes' own table tests.

Each test names the Go test whose cases it ports (pkg/scheduler/framework/plugins/defaultpreemption/
default_preemption_test.go, v1.35): the same nodes, pods, priorities and requests (the Go tests' ``smallRes`` ...
``veryLargeRes``: 100m/100 ... 500m/500; nodes of ``veryLargeRes`` with room for 32 pods), and the expected
victims or chosen nodes as Kubernetes asserts them.
"""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from spec.cache import cache as cache_ops
from spec.cache.snapshot import EMPTY_SNAPSHOT, Snapshot, update_snapshot
from spec.cycle.filters import Code, Rejection, first_rejection
from spec.cycle.invariants import inv_no_pod_preempted_by_lower_or_equal, inv_preemption_victims_have_lower_priority
from spec.cycle.nominated import filter_with_nominated_pods
from spec.cycle.preemption import (
    NO_VICTIMS,
    NOT_ELIGIBLE_POLICY,
    NOT_ELIGIBLE_TERMINATING,
    Outcome,
    PreemptionResult,
    Victims,
    best_preemption_nodes,
    filter_pods_with_pdb_violation,
    num_candidates,
    pod_eligible_to_preempt_others,
    preemption_outcomes,
    preparation,
    select_victims_on_node,
)
from spec.frozenmap import FrozenMap
from spec.objects import (
    PREEMPT_NEVER,
    AffinityTerms,
    Container,
    LabelSelector,
    Node,
    Pod,
    PodAffinityTerm,
    PodDisruptionBudget,
)
from spec.quantities import resource_list

NEG, LOW, MID, HIGH, VERY_HIGH = -100, 0, 100, 1000, 10000
SMALL, MEDIUM, LARGE, VERY_LARGE = (100, 100), (200, 200), (300, 300), (500, 500)
FOO = FrozenMap({"app": "foo"})


def make_pod(name: str, priority: int, res: tuple[int, int], node: str = "", start: int | None = None,
             **fields: object) -> Pod:
    """``st.MakePod().Name(name).UID(name).Node(node).Priority(p).Req(res).StartTime(start)``."""
    cpu, memory = res
    container = Container("c", resource_list(cpu=cpu, memory=memory))
    return Pod(name, name, node_name=node, containers=(container,), priority=priority, start_time=start,
               **fields)  # type: ignore[arg-type]


def make_snapshot(node_names: Sequence[str], pods: Sequence[Pod], res: tuple[int, int] = VERY_LARGE) -> Snapshot:
    """Nodes of ``res`` (and 32 pods) with ``pods`` bound to them, as a scheduling cycle's snapshot."""
    state = cache_ops.new_cache()
    for name in node_names:
        state = cache_ops.add_node(state, Node(name, resource_list(cpu=res[0], memory=res[1], pods=32)))
    for pod in pods:
        state = cache_ops.add_pod(state, pod)
    return update_snapshot(state, EMPTY_SNAPSHOT)


def filter_statuses(snapshot: Snapshot, pod: Pod) -> dict[str, Rejection]:
    """``Diagnosis.NodeToStatus`` of a cycle that found no node: each node's first rejection."""
    found = {name: first_rejection(pod, snapshot.node_info_map[name], snapshot) for name in snapshot.node_info_list}
    return {name: r for name, r in found.items() if r is not None}


def no_nominations(node: str) -> tuple[Pod, ...]:
    return ()


def outcomes(pod: Pod, snapshot: Snapshot, pdbs: Sequence[PodDisruptionBudget] = ()) -> tuple[PreemptionResult, ...]:
    return preemption_outcomes(pod, snapshot, filter_statuses(snapshot, pod), pdbs, no_nominations, now=1000)


def victim_names(victims: Victims | Rejection) -> list[str]:
    assert isinstance(victims, Victims), victims
    return [p.uid for p in victims.pods]


# ============================================================================================
# TestDryRunPreemption (victims per node)
# ============================================================================================


def test_medium_priority_pod_is_preempted_but_the_small_lower_one_stays() -> None:
    """TestDryRunPreemption: "medium priority pod is preempted, but lower priority one stays as it is small"."""
    p = make_pod("p", HIGH, LARGE)
    snapshot = make_snapshot(["node1", "node2"], [
        make_pod("p1.1", LOW, SMALL, "node1"), make_pod("p1.2", MID, LARGE, "node1"),
        make_pod("p2", MID, LARGE, "node2")])
    node1 = select_victims_on_node(p, snapshot.node_info_map["node1"], (), (), 0)
    node2 = select_victims_on_node(p, snapshot.node_info_map["node2"], (), (), 0)
    assert victim_names(node1) == ["p1.2"]
    assert victim_names(node2) == ["p2"]


def test_mixed_priority_pods_are_preempted() -> None:
    """TestDryRunPreemption: "mixed priority pods are preempted": the higher-priority pod stays, and of the
    others the most important are reprieved first; victims listed most important first."""
    p = make_pod("p", HIGH, LARGE)
    info = make_snapshot(["node1"], [
        make_pod("p1.1", MID, SMALL, "node1"), make_pod("p1.2", LOW, SMALL, "node1"),
        make_pod("p1.3", MID, MEDIUM, "node1"), make_pod("p1.4", HIGH, SMALL, "node1")]).node_info_map["node1"]
    assert victim_names(select_victims_on_node(p, info, (), (), 0)) == ["p1.3", "p1.2"]


def test_equal_priority_victims_pick_the_later_start_time() -> None:
    """TestDryRunPreemption: "mixed priority pods are preempted, pick later StartTime one when priorities are
    equal": the older pod is more important and is reprieved."""
    p = make_pod("p", HIGH, LARGE)
    info = make_snapshot(["node1"], [
        make_pod("p1.1", LOW, SMALL, "node1", 5), make_pod("p1.2", LOW, SMALL, "node1", 4),
        make_pod("p1.3", MID, MEDIUM, "node1", 3), make_pod("p1.4", HIGH, SMALL, "node1", 2)]).node_info_map["node1"]
    assert victim_names(select_victims_on_node(p, info, (), (), 0)) == ["p1.3", "p1.1"]


def test_no_lower_priority_pod_means_no_victims() -> None:
    """TestDryRunPreemption: "a pod that would fit on the nodes, but other pods running are higher priority, no
    preemption would happen"."""
    p = make_pod("p", LOW, LARGE)
    info = make_snapshot(["node1"], [make_pod("p1", MID, VERY_LARGE, "node1")]).node_info_map["node1"]
    assert select_victims_on_node(p, info, (), (), 0) == NO_VICTIMS


def test_a_pod_that_does_not_fit_even_without_the_lower_priority_pods() -> None:
    """TestDryRunPreemption: "a pod that does not fit on any node": removing every lower-priority pod is not
    enough; the node's status is the Filter's."""
    p = make_pod("p", HIGH, (600, 600))
    info = make_snapshot(["node1"], [make_pod("p1", MID, SMALL, "node1")]).node_info_map["node1"]
    found = select_victims_on_node(p, info, (), (), 0)
    assert isinstance(found, Rejection) and found.plugin == "NodeResourcesFit"


@pytest.mark.parametrize(("disrupted", "violations", "extra"), [
    (frozenset(), 1, False),          # "preemption with violation of same pdb"
    (frozenset({"p2"}), 1, False),    # "... the victim doesn't belong to DisruptedPods"
    (frozenset({"p1.2"}), 0, False),  # "... the victim belongs to DisruptedPods"
    (frozenset({"p1.3"}), 1, True),   # "... the victim which belongs to DisruptedPods is treated as 'nonViolating'"
])
def test_pdb_violations(disrupted: frozenset[str], violations: int, extra: bool) -> None:
    """TestDryRunPreemption's four PodDisruptionBudget cases: a budget allowing one disruption; a pod the API server
    already counts as disrupted uses none of it."""
    p = make_pod("p", HIGH, VERY_LARGE)
    pods = [make_pod(f"p1.{i}", MID, MEDIUM, "node1", labels=FOO) for i in (1, 2, 3 if extra else 2)]
    pods = list({q.uid: q for q in pods}.values())
    info = make_snapshot(["node1"], pods).node_info_map["node1"]
    pdb = PodDisruptionBudget("pdb", selector=FOO, disruptions_allowed=1, disrupted_pods=disrupted)
    found = select_victims_on_node(p, info, (pdb,), (), 0)
    assert isinstance(found, Victims)
    assert sorted(q.uid for q in found.pods) == [q.uid for q in pods]  # the Go test sorts the victims by name
    assert found.num_pdb_violations == violations


def test_filter_pods_with_pdb_violation_keeps_order_and_skips_unlabelled_pods() -> None:
    """``filterPodsWithPDBViolation``: stable; a pod without labels matches no budget; a nil selector matches no pod."""
    pods = [make_pod("a", LOW, SMALL, labels=FOO), make_pod("b", LOW, SMALL), make_pod("c", LOW, SMALL, labels=FOO)]
    pdbs = (PodDisruptionBudget("one", selector=FOO, disruptions_allowed=1), PodDisruptionBudget("nil"))
    violating, fine = filter_pods_with_pdb_violation(pods, pdbs)
    assert [p.uid for p in violating] == ["c"] and [p.uid for p in fine] == ["a", "b"]


# ============================================================================================
# TestSelectBestCandidate (pickOneNodeForPreemption)
# ============================================================================================

BEST_CANDIDATE_CASES = [
    ("a pod that fits on both nodes when lower priority pods are preempted", ["node1", "node2"], LARGE,
     HIGH, [("p1", "node1", MID, LARGE, 0), ("p2", "node2", MID, LARGE, 0)], {"node1", "node2"}),
    ("node with min highest priority pod is picked", ["node1", "node2", "node3"], VERY_LARGE, HIGH,
     [("p1.1", "node1", MID, MEDIUM, 0), ("p1.2", "node1", MID, LARGE, 0), ("p2.1", "node2", MID, MEDIUM, 0),
      ("p2.2", "node2", LOW, MEDIUM, 0), ("p3.1", "node3", LOW, MEDIUM, 0), ("p3.2", "node3", LOW, MEDIUM, 0)],
     {"node3"}),
    ("when highest priorities are the same, minimum sum of priorities is picked", ["node1", "node2", "node3"],
     VERY_LARGE, HIGH,
     [("p1.1", "node1", MID, MEDIUM, 0), ("p1.2", "node1", MID, LARGE, 0), ("p2.1", "node2", MID, LARGE, 0),
      ("p2.2", "node2", LOW, MEDIUM, 0), ("p3.1", "node3", MID, MEDIUM, 0), ("p3.2", "node3", MID, MEDIUM, 0)],
     {"node2"}),
    ("when highest priority and sum are the same, minimum number of pods is picked", ["node1", "node2", "node3"],
     VERY_LARGE, HIGH,
     [("p1.1", "node1", MID, SMALL, 0), ("p1.2", "node1", NEG, SMALL, 0), ("p1.3", "node1", MID, SMALL, 0),
      ("p1.4", "node1", NEG, SMALL, 0), ("p2.1", "node2", MID, LARGE, 0), ("p2.2", "node2", NEG, MEDIUM, 0),
      ("p3.1", "node3", MID, MEDIUM, 0), ("p3.2", "node3", NEG, SMALL, 0), ("p3.3", "node3", LOW, SMALL, 0)],
     {"node2"}),
    ("sum of adjusted priorities is considered", ["node1", "node2", "node3"], VERY_LARGE, HIGH,
     [("p1.1", "node1", MID, SMALL, 0), ("p1.2", "node1", NEG, SMALL, 0), ("p1.3", "node1", NEG, SMALL, 0),
      ("p2.1", "node2", MID, LARGE, 0), ("p2.2", "node2", NEG, MEDIUM, 0), ("p3.1", "node3", MID, MEDIUM, 0),
      ("p3.2", "node3", NEG, SMALL, 0), ("p3.3", "node3", LOW, SMALL, 0)], {"node2"}),
    ("non-overlapping lowest high priority, sum priorities, and number of pods",
     ["node1", "node2", "node3", "node4"], VERY_LARGE, VERY_HIGH,
     [("p1.1", "node1", MID, SMALL, 0), ("p1.2", "node1", LOW, SMALL, 0), ("p1.3", "node1", LOW, SMALL, 0),
      ("p2.1", "node2", HIGH, LARGE, 0), ("p3.1", "node3", MID, MEDIUM, 0), ("p3.2", "node3", LOW, SMALL, 0),
      ("p3.3", "node3", LOW, SMALL, 0), ("p3.4", "node3", LOW, MEDIUM, 0), ("p4.1", "node4", MID, MEDIUM, 0),
      ("p4.2", "node4", MID, SMALL, 0), ("p4.3", "node4", MID, SMALL, 0), ("p4.4", "node4", NEG, SMALL, 0)],
     {"node1"}),
    ("same priority, same number of victims, different start time for each node's pod", ["node1", "node2", "node3"],
     VERY_LARGE, HIGH,
     [("p1.1", "node1", MID, MEDIUM, 2), ("p1.2", "node1", MID, MEDIUM, 2), ("p2.1", "node2", MID, MEDIUM, 3),
      ("p2.2", "node2", MID, MEDIUM, 3), ("p3.1", "node3", MID, MEDIUM, 1), ("p3.2", "node3", MID, MEDIUM, 1)],
     {"node2"}),
    ("same priority, same number of victims, different start time for all pods", ["node1", "node2", "node3"],
     VERY_LARGE, HIGH,
     [("p1.1", "node1", MID, MEDIUM, 4), ("p1.2", "node1", MID, MEDIUM, 2), ("p2.1", "node2", MID, MEDIUM, 5),
      ("p2.2", "node2", MID, MEDIUM, 1), ("p3.1", "node3", MID, MEDIUM, 3), ("p3.2", "node3", MID, MEDIUM, 6)],
     {"node3"}),
    ("different priority, same number of victims, different start time for all pods", ["node1", "node2", "node3"],
     VERY_LARGE, HIGH,
     [("p1.1", "node1", LOW, MEDIUM, 4), ("p1.2", "node1", MID, MEDIUM, 2), ("p2.1", "node2", MID, MEDIUM, 6),
      ("p2.2", "node2", LOW, MEDIUM, 1), ("p3.1", "node3", LOW, MEDIUM, 3), ("p3.2", "node3", MID, MEDIUM, 5)],
     {"node2"}),
]


@pytest.mark.parametrize(("name", "nodes", "request_", "priority", "pods", "expected"), BEST_CANDIDATE_CASES,
                         ids=[case[0] for case in BEST_CANDIDATE_CASES])
def test_select_best_candidate(name: str, nodes: list[str], request_: tuple[int, int], priority: int,
                               pods: list[tuple[str, str, int, tuple[int, int], int]], expected: set[str]) -> None:
    """TestSelectBestCandidate: the node PostFilter nominates is one of those Kubernetes accepts, and every node the
    spec allows is one of them."""
    p = make_pod("p", priority, request_)
    snapshot = make_snapshot(nodes, [make_pod(uid, prio, res, node, start) for uid, node, prio, res, start in pods])
    results = outcomes(p, snapshot)
    assert {r.outcome for r in results} == {Outcome.SUCCESS}
    assert {r.nominated_node for r in results} == expected
    assert all(inv_preemption_victims_have_lower_priority(p, r) for r in results)


def test_best_preemption_nodes_of_one_candidate_is_it_without_scoring() -> None:
    assert best_preemption_nodes([], 0) == ()


# ============================================================================================
# TestPostFilter, TestPodEligibleToPreemptOthers
# ============================================================================================


def test_pod_with_tied_priority_is_still_unschedulable() -> None:
    """TestPostFilter: "pod with tied priority is still unschedulable": the nomination is cleared."""
    snapshot = make_snapshot(["node1"], [make_pod("p1", MID, VERY_LARGE, "node1")])
    (result,) = outcomes(make_pod("p", MID, LARGE), snapshot)
    assert result.outcome is Outcome.UNSCHEDULABLE and result.nominated_node == ""
    assert result.statuses == (("node1", NO_VICTIMS),)


def test_preemption_respects_unresolvable_statuses() -> None:
    """TestPostFilter: "preemption should respect filteredNodesStatuses": a node rejected as
    UnschedulableAndUnresolvable is no candidate, and absent nodes count as such."""
    snapshot = make_snapshot(["node1"], [make_pod("p1", MID, VERY_LARGE, "node1")])
    p = make_pod("p", HIGH, LARGE)
    statuses = {"node1": Rejection("TaintToleration", Code.UNSCHEDULABLE_AND_UNRESOLVABLE)}
    (result,) = preemption_outcomes(p, snapshot, statuses, (), no_nominations, 0)
    assert result.outcome is Outcome.UNSCHEDULABLE and result.victims == ()
    (absent,) = preemption_outcomes(p, snapshot, {}, (), no_nominations, 0)
    assert absent.outcome is Outcome.UNSCHEDULABLE


def test_pod_with_higher_priority_can_be_made_schedulable() -> None:
    """TestPostFilter: "pod with higher priority can be made schedulable"; the victim is deleted."""
    snapshot = make_snapshot(["node1"], [make_pod("p1", MID, VERY_LARGE, "node1")])
    (result,) = outcomes(make_pod("p", HIGH, LARGE), snapshot)
    assert result.outcome is Outcome.SUCCESS and result.nominated_node == "node1"
    assert [v.uid for v in result.deleted] == ["p1"]


def test_terminating_victims_get_no_second_deletion() -> None:
    """``prepareCandidate``: a victim already being deleted gets no API call."""
    snapshot = make_snapshot(["node1"], [make_pod("p1", MID, VERY_LARGE, "node1", terminating=True)])
    (result,) = outcomes(make_pod("p", HIGH, LARGE), snapshot)
    assert [v.uid for v in result.victims] == ["p1"] and result.deleted == ()


@pytest.mark.parametrize(("name", "pod", "victim", "code", "eligible", "why"), [
    ("Pod with nominated node", make_pod("p", HIGH, SMALL, nominated_node_name="node1"),
     make_pod("v", LOW, SMALL, "node1", terminating=True, preempted_by_scheduler=True), Code.UNSCHEDULABLE, False,
     NOT_ELIGIBLE_TERMINATING),
    ("Pod without nominated node", make_pod("p", HIGH, SMALL),
     make_pod("v", LOW, SMALL, "node1", terminating=True, preempted_by_scheduler=True), None, True, ""),
    ("Pod with 'PreemptNever' preemption policy", make_pod("p", HIGH, SMALL, preemption_policy=PREEMPT_NEVER),
     make_pod("v", LOW, SMALL, "node1"), None, False, NOT_ELIGIBLE_POLICY),
    ("preemption victim pod terminating, as indicated by the dedicated DisruptionTarget condition",
     make_pod("p", HIGH, SMALL, nominated_node_name="node1"),
     make_pod("v", LOW, SMALL, "node1", terminating=True, preempted_by_scheduler=True), Code.UNSCHEDULABLE, False,
     NOT_ELIGIBLE_TERMINATING),
    ("non-victim Pods terminating", make_pod("p", HIGH, SMALL, nominated_node_name="node1"),
     make_pod("v", LOW, SMALL, "node1", terminating=True), Code.UNSCHEDULABLE, True, ""),
    ("nominated node now unresolvable", make_pod("p", HIGH, SMALL, nominated_node_name="node1"),
     make_pod("v", LOW, SMALL, "node1", terminating=True, preempted_by_scheduler=True),
     Code.UNSCHEDULABLE_AND_UNRESOLVABLE, True, ""),
])
def test_pod_eligible_to_preempt_others(name: str, pod: Pod, victim: Pod, code: Code | None, eligible: bool,
                                        why: str) -> None:
    """TestPodEligibleToPreemptOthers."""
    snapshot = make_snapshot(["node1"], [victim])
    assert pod_eligible_to_preempt_others(pod, snapshot, code) == (eligible, why)


def test_num_candidates() -> None:
    """``calculateNumCandidates``: 10% of the nodes, at least 100, at most all."""
    assert [num_candidates(n) for n in (0, 5, 100, 1000, 5000)] == [0, 5, 100, 100, 500]


# ============================================================================================
# Nominated pods (RunFilterPluginsWithNominatedPods)
# ============================================================================================


def test_room_held_for_a_higher_priority_nominated_pod_is_not_taken() -> None:
    """A nominated pod of higher or equal priority counts on its node; one of lower priority does not."""
    info = make_snapshot(["node1"], [make_pod("b", LOW, LARGE, "node1")]).node_info_map["node1"]
    nominated = make_pod("n", HIGH, MEDIUM, nominated_node_name="node1")
    assert filter_with_nominated_pods(make_pod("p", MID, SMALL), info, [nominated]) is not None
    assert filter_with_nominated_pods(make_pod("p", HIGH, SMALL), info, [nominated]) is not None
    assert filter_with_nominated_pods(make_pod("p", VERY_HIGH, SMALL), info, [nominated]) is None
    assert filter_with_nominated_pods(nominated, info, [nominated]) is None, "a pod never yields to itself"


def test_a_nominated_pods_anti_affinity_counts_on_a_node_that_had_none() -> None:
    """InterPodAffinity's AddPod (``preFilterState.updateWithPod``, interpodaffinity/filtering.go) counts a nominated
    pod's required anti-affinity term on its node even when no pod there had one: the snapshot the filters see must
    list the node among those with such pods (cycle.preemption.gaps.affinity.* on v1.35.8 and v1.37.2)."""
    web = FrozenMap({"app": "web"})
    keep_off = AffinityTerms(required_terms=(PodAffinityTerm(LabelSelector(web), topology_key="hostname"),))
    state = cache_ops.add_node(cache_ops.new_cache(), Node("node1", resource_list(cpu=1000, memory=1000, pods=32),
                                                           labels=FrozenMap({"hostname": "node1"})))
    snapshot = update_snapshot(state, EMPTY_SNAPSHOT)
    assert snapshot.have_pods_with_required_anti_affinity_list == ()
    own = AffinityTerms(required_terms=(PodAffinityTerm(LabelSelector(FrozenMap({"app": "none"})),
                                                        topology_key="hostname"),))
    pod = make_pod("p", LOW, SMALL, labels=web, pod_anti_affinity=own)
    nominated = make_pod("n", HIGH, SMALL, pod_anti_affinity=keep_off, nominated_node_name="node1")
    info = snapshot.node_info_map["node1"]
    assert filter_with_nominated_pods(pod, info, [], snapshot) is None
    rejection = filter_with_nominated_pods(pod, info, [nominated], snapshot)
    assert rejection is not None and rejection.plugin == "InterPodAffinity"


def test_victims_are_chosen_with_the_nominated_pods_counted() -> None:
    """``SelectVictimsOnNode`` filters with the nominated pods: room held for a nominated pod of higher priority
    is not counted as freed."""
    p = make_pod("p", HIGH, MEDIUM)
    info = make_snapshot(["node1"], [make_pod("v1", LOW, MEDIUM, "node1"), make_pod("v2", LOW, MEDIUM, "node1")],
                         res=(400, 400)).node_info_map["node1"]
    assert victim_names(select_victims_on_node(p, info, (), (), 0)) == ["v2"]  # v1 comes first, so is reprieved
    held = make_pod("n", VERY_HIGH, MEDIUM)
    assert victim_names(select_victims_on_node(p, info, (), (held,), 0)) == ["v1", "v2"]


# ============================================================================================
# The invariants fail on a broken preemption
# ============================================================================================


def test_victim_invariant_fails_on_a_victim_of_equal_priority() -> None:
    p = make_pod("p", HIGH, SMALL)
    broken = PreemptionResult(Outcome.SUCCESS, "", victims=(make_pod("v", HIGH, SMALL, "node1"),))
    assert not inv_preemption_victims_have_lower_priority(p, broken)
    assert not inv_no_pod_preempted_by_lower_or_equal([(p, broken.victims[0])])
    never = make_pod("n", VERY_HIGH, SMALL, preemption_policy=PREEMPT_NEVER)
    assert not inv_no_pod_preempted_by_lower_or_equal([(never, make_pod("v", LOW, SMALL))])
    assert inv_no_pod_preempted_by_lower_or_equal([(p, make_pod("v", LOW, SMALL))])


def test_a_selection_that_also_takes_equal_priority_pods_breaks_the_invariant(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make ``isPreemptionAllowed`` admit equal priority (a broken transition): the invariant catches it."""
    from spec.cycle import preemption

    monkeypatch.setattr(preemption, "is_preemption_allowed", lambda victim, preemptor: victim.priority <= preemptor.priority)  # noqa: E501
    p = make_pod("p", MID, LARGE)
    snapshot = make_snapshot(["node1"], [make_pod("p1", MID, VERY_LARGE, "node1")])
    (result,) = outcomes(p, snapshot)
    assert result.outcome is Outcome.SUCCESS
    assert not inv_preemption_victims_have_lower_priority(p, result)


def test_preparation_skips_terminating_victims_from_v1_35() -> None:
    """``prepareCandidateAsync``: from v1.35 a terminating victim gets no API call and, when every victim is
    terminating, no goroutine starts (no nomination cleared); v1.34's calls every victim and always clears."""
    preemptor = make_pod("p", HIGH, LARGE)
    terminating, live = make_pod("t", LOW, SMALL, "n1", terminating=True), make_pod("v", LOW, SMALL, "n1")
    lower, equal = make_pod("m", MID, SMALL), make_pod("e", HIGH, SMALL)
    assert preparation(preemptor, (terminating,), (lower, equal), True) == ((), ())
    assert preparation(preemptor, (terminating, live), (lower, equal), True) == ((live,), (lower,))
    assert preparation(preemptor, (terminating,), (lower, equal), False) == ((terminating,), (lower,))
    assert preparation(preemptor, (), (lower,), False) == ((), (lower,))
