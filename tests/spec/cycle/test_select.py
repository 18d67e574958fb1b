"""The choice of a scheduling cycle (spec/cycle/select.py, scores.py, messages.py), against Kubernetes' own tables
and against the reference implementation."""

from __future__ import annotations

import pytest

from refimpl.scheduler.framework import Diagnosis, FitError, Status
from refimpl.scheduler.framework.status import Code
from refimpl.scheduler.plugins import DEFAULT_SCORE_WEIGHTS
from refimpl.scheduler.plugins.node_resources_balanced_allocation import (
    balanced_resource_score as refimpl_balanced_resource_score,
)
from refimpl.scheduler.select_host import num_feasible_nodes_to_find as refimpl_num_feasible_nodes_to_find
from spec.cache import cache as spec_cache
from spec.cache.snapshot import EMPTY_SNAPSHOT, Snapshot, update_snapshot
from spec.cycle import cycle
from spec.cycle.messages import ERR_NO_NODES_AVAILABLE, fit_error_message
from spec.cycle.scores import (
    DEFAULT_SCORE_PLUGINS,
    balanced_resource_score,
    calculate_priority,
    default_normalize_score,
    least_requested_score,
    score_plugins,
)
from spec.cycle.select import (
    NodeScore,
    allowed_hosts,
    find_nodes_that_pass_filters,
    num_feasible_nodes_to_find,
    schedule_decision,
)
from spec.frozenmap import FrozenMap
from spec.objects import (
    LABEL_HOSTNAME,
    SCHEDULE_ANYWAY,
    Container,
    LabelSelector,
    Node,
    Pod,
    PodAffinityTerm,
    Taint,
    TopologySpreadConstraint,
    WeightedPodAffinityTerm,
    pod_affinity,
)
from spec.quantities import resource_list
from spec.valuetypes import replace
from spec.versions import DEFAULT_PROFILE, PROFILES

# TestNumFeasibleNodesToFind (schedule_one_test.go): (global, profile, all nodes, wanted)
NUM_FEASIBLE = [
    (0, None, 10, 10), (0, 40, 10, 10), (0, None, 1000, 420), (0, 40, 1000, 400), (100, 40, 1000, 400),
    (40, None, 1000, 400), (0, None, 6000, 300), (0, 40, 6000, 2400),
]


@pytest.mark.parametrize(("global_percentage", "profile_percentage", "nodes", "wanted"), NUM_FEASIBLE)
def test_num_feasible_nodes_to_find_as_kubernetes_tests_it(
        global_percentage: int, profile_percentage: int | None, nodes: int, wanted: int) -> None:
    assert num_feasible_nodes_to_find(nodes, profile_percentage, global_percentage) == wanted
    assert refimpl_num_feasible_nodes_to_find(nodes, profile_percentage, global_percentage) == wanted


def test_num_feasible_nodes_to_find_floors() -> None:
    assert num_feasible_nodes_to_find(99) == 99
    assert num_feasible_nodes_to_find(100) == 100  # 50% of 100 is 50, below the minimum of 100
    assert num_feasible_nodes_to_find(100_000) == 5_000  # the adaptive 50 - 800 is floored at 5%
    assert num_feasible_nodes_to_find(1000, 1) == 100


def _node(name: str, cpu: int = 1000, memory: int = 2**31, **fields: object) -> Node:
    return Node(name, resource_list(cpu=cpu, memory=memory, pods=10), **fields)  # type: ignore[arg-type]


def _snapshot(*nodes: Node) -> Snapshot:
    c = cycle.new_cluster()
    for node in nodes:
        c = cycle.add_node(c, node)
    return cycle.refreshed_snapshot(c)


def test_fair_evaluation_rotates_the_start_index() -> None:
    """TestFairEvaluationForNodes (schedule_one_test.go): 500 feasible nodes, 30% to find; each search starts where
    the previous one stopped."""
    snapshot = _snapshot(*(_node(str(i)) for i in range(500)))
    to_find = num_feasible_nodes_to_find(500, None, 30)
    assert to_find == 150
    start = 0
    for i in range(2 * (500 // to_find + 1)):
        search = find_nodes_that_pass_filters(snapshot, Pod("p"), start, to_find)
        assert len(search.feasible) == to_find
        assert search.next_start == (i + 1) * to_find % 500
        assert search.feasible[0] == snapshot.node_info_list[start]
        start = search.next_start


def test_a_start_outside_the_list_is_refused() -> None:
    with pytest.raises(ValueError, match="start index 3 is outside a list of 2 node"):
        find_nodes_that_pass_filters(_snapshot(_node("a"), _node("b")), Pod("p"), 3)


def test_select_host_cases_are_allowed_hosts() -> None:
    """Test_SelectHost (schedule_one_test.go): the node popped first is one with the highest total."""
    cases = [([("node1", 1), ("node2", 2)], "node2"),
             ([("node2.2", 2), ("node2.1", 2), ("node2.3", 2)], "node2.3"),
             ([("node3.1", 3), ("node2.1", 2), ("node1.1", 1), ("node3.2", 3)], "node3.2")]
    for scores, first in cases:
        allowed = allowed_hosts(tuple(NodeScore(n, (), t) for n, t in scores))
        assert first in allowed
        assert allowed == {n for n, t in scores if t == max(t for _, t in scores)}
    assert allowed_hosts(()) == frozenset()


def test_decision_without_nodes_one_feasible_and_ties() -> None:
    pod = Pod("p", "p", containers=(Container("c", resource_list(cpu=500)),))
    assert schedule_decision(Snapshot(), pod).message == ERR_NO_NODES_AVAILABLE
    single = schedule_decision(_snapshot(_node("a"), _node("small", cpu=100)), pod)
    assert (single.feasible, single.scores, single.allowed, single.message) == (("a",), (), ("a",), "")
    tie = schedule_decision(_snapshot(_node("a"), _node("b"), _node("small", cpu=100)), pod)
    assert tie.allowed == ("a", "b") and tie.feasible == ("a", "b")
    assert [s.total for s in tie.scores] == [tie.scores[0].total] * 2
    none = schedule_decision(_snapshot(_node("small", cpu=100), _node("tiny", cpu=10)), pod)
    assert none.message == "0/2 nodes are available: 2 Insufficient cpu."


def test_decision_scores_weigh_every_default_plugin() -> None:
    """Two feasible nodes: the tainted one loses TaintToleration's 3 x 100; BalancedAllocation prefers the node
    whose cpu and memory shares stay even; a best-effort pod skips BalancedAllocation; DynamicResources (no PreScore)
    scores 0 everywhere."""
    pod = Pod("p", "p", containers=(Container("c", resource_list(cpu=500, memory=2**20)),))
    snapshot = _snapshot(_node("n1"), _node("n2", cpu=2000, taints=(Taint("a", effect="PreferNoSchedule"),)))
    n1, n2 = schedule_decision(snapshot, pod).scores
    assert dict(n1.plugins) == {"TaintToleration": 300, "NodeResourcesFit": 74, "DynamicResources": 0,
                                "NodeResourcesBalancedAllocation": 75, "ImageLocality": 0}
    assert dict(n2.plugins) == {"TaintToleration": 0, "NodeResourcesFit": 87, "DynamicResources": 0,
                                "NodeResourcesBalancedAllocation": 87, "ImageLocality": 0}
    assert (n1.total, n2.total) == (449, 174)
    best_effort = schedule_decision(snapshot, Pod("q", "q"))
    assert "NodeResourcesBalancedAllocation" not in dict(best_effort.scores[0].plugins)
    assert "NodeAffinity" not in dict(best_effort.scores[0].plugins)  # no preferred terms: PreScore skips


def test_weights_are_the_default_profiles_in_spec_and_refimpl() -> None:
    """default_plugins.go (v1.35), in its order: TaintToleration 3, NodeAffinity 2, NodeResourcesFit 1,
    PodTopologySpread 2, InterPodAffinity 2, DynamicResources 2 (``applyDynamicResources``, v1.35 on),
    BalancedAllocation 1, ImageLocality 1."""
    weights = [(p.name, p.weight) for p in score_plugins(PROFILES["v1.35"])]
    assert weights == [("TaintToleration", 3), ("NodeAffinity", 2), ("NodeResourcesFit", 1),
                       ("PodTopologySpread", 2), ("InterPodAffinity", 2), ("DynamicResources", 2),
                       ("NodeResourcesBalancedAllocation", 1), ("ImageLocality", 1)]
    assert list(DEFAULT_SCORE_WEIGHTS.items()) == weights
    assert score_plugins(PROFILES["v1.34"]) == DEFAULT_SCORE_PLUGINS  # v1.34's DynamicResources has no Score
    assert score_plugins(PROFILES["v1.36"]) == score_plugins(PROFILES["v1.35"])
    for name in ("v1.37", "pr141745"):  # StorageCapacityScoring on: VolumeBinding (weight 1) after NodeResourcesFit
        names = [p.name for p in score_plugins(PROFILES[name])]
        assert names[names.index("NodeResourcesFit") + 1] == "VolumeBinding"
        assert len(names) == len(weights) + 1


@pytest.mark.parametrize(("with_pod", "without_pod", "expected"),
                         [(100, 100, 75), (100, 50, 100), (50, 100, 50), (87, 80, 78), (80, 87, 71)])
def test_v1_36_balanced_allocation_scores_the_change(with_pod: int, without_pod: int, expected: int) -> None:
    """``balancedResourceScorer`` (v1.36.5): ``MaxNodeScore/2 + (MaxNodeScore/2 + with - without)/2``."""
    from spec.cycle.scores import balance_change_score

    assert balance_change_score(with_pod, without_pod) == expected


def test_balanced_allocation_by_release() -> None:
    """The same node and pod: v1.35 scores the balance with the pod; v1.36 the change it brings, in refimpl too."""
    from refimpl.cache import NodeInfo as RefNodeInfo
    from refimpl.scheduler.framework import CycleState
    from refimpl.scheduler.plugins import NodeResourcesBalancedAllocation
    from spec.cache.nodeinfo import add_pod, new_node_info, set_node
    from spec.cycle.scores import ScoreContext, balanced_allocation_score

    node = Node("n", resource_list(cpu=4000, memory=4 * 2**30))
    existing = Pod("e", "e", containers=(Container("c", resource_list(cpu=2000, memory=2**30)),))
    info = add_pod(set_node(new_node_info(0), node, 1), existing, 2)
    pod = Pod("p", "p", containers=(Container("c", resource_list(cpu=100, memory=2**30)),))
    scores = {name: balanced_allocation_score(pod, info, ScoreContext(EMPTY_SNAPSHOT, (info,), PROFILES[name]))
              for name in ("v1.35", "v1.36")}
    # cpu and memory fractions 0.525 and 0.5 with the pod (98), 0.5 and 0.25 without (87): 50 + (50 + 98 - 87)//2
    assert scores == {"v1.35": 98, "v1.36": 80}
    ref = RefNodeInfo()
    ref.set_node(node)
    ref.add_pod(existing)
    for name, changes in (("v1.35", False), ("v1.36", True)):
        plugin = NodeResourcesBalancedAllocation(scores_change=changes)
        assert plugin.score(CycleState(), pod, ref)[0] == scores[name]


def test_fit_scores_container_requests_without_pod_level_requests() -> None:
    """NodeResourcesFit's scorer ignores pod-level requests (``NewFit`` never gives its resourceAllocationScorer
    ``enablePodLevelResources``): found on Kubernetes v1.35.8's own scheduler by the Go adapter."""
    from spec.cycle.scores import fit_requests

    pod = Pod("p", "p", containers=(Container("c", resource_list(cpu=100)),),
              pod_level_requests=resource_list(cpu=1000, memory=2**30))
    assert fit_requests(pod, PROFILES["v1.35"]) == (100, 200 * 1024 * 1024)


def test_score_formulas() -> None:
    assert least_requested_score(3000, 10000) == 70 and least_requested_score(11, 10) == 0
    assert least_requested_score(0, 0) == 0
    assert default_normalize_score(100, True, (0, 1, 2)) == (100, 50, 0)
    assert default_normalize_score(100, True, (0, 0)) == (100, 100)
    assert default_normalize_score(100, False, (0, 0)) == (0, 0)
    assert default_normalize_score(100, False, (1, 3)) == (33, 100)
    assert calculate_priority(0, 1) == 0 and calculate_priority(10**12, 1) == 100 and calculate_priority(0, 0) == 0
    for requested, allocatable in [((3000, 5000), (10000, 20000)), ((1, 1), (0, 3)), ((9, 9), (4, 20)),
                                   ((0, 0), (0, 0)), ((1, 2, 3), (4, 5, 6))]:
        assert balanced_resource_score(requested, allocatable) == refimpl_balanced_resource_score(
            requested, allocatable)
    assert balanced_resource_score((3000, 5000), (10000, 20000)) == 97  # (1 - |0.3 - 0.25| / 2) * 100 = 97.5


# TestFitError_Error (framework/types_test.go): (all nodes, PreFilter message, node reasons, PostFilter message, text)
FIT_ERRORS = [
    (3, "Node(s) failed PreFilter plugin FalsePreFilter", [("Node(s) failed PreFilter plugin FalsePreFilter",)] * 3,
     "", "0/3 nodes are available: Node(s) failed PreFilter plugin FalsePreFilter."),
    (3, "Node(s) failed PreFilter plugin FalsePreFilter", [("Node(s) failed PreFilter plugin FalsePreFilter",)] * 3,
     "Error running PostFilter plugin FailedPostFilter",
     "0/3 nodes are available: Node(s) failed PreFilter plugin FalsePreFilter. Error running PostFilter plugin "
     "FailedPostFilter"),
    (3, "", [("Node(s) failed Filter plugin FalseFilter-1",)] * 3, "",
     "0/3 nodes are available: 3 Node(s) failed Filter plugin FalseFilter-1."),
    (3, "", [("Node(s) failed Filter plugin FalseFilter-1",)] * 3, "Error running PostFilter plugin FailedPostFilter",
     "0/3 nodes are available: 3 Node(s) failed Filter plugin FalseFilter-1. Error running PostFilter plugin "
     "FailedPostFilter"),
    (3, "", [("Node(s) failed Filter plugin FalseFilter-1",)] * 2 + [("Node(s) failed Filter plugin FalseFilter-2",)],
     "Error running PostFilter plugin FailedPostFilter",
     "0/3 nodes are available: 1 Node(s) failed Filter plugin FalseFilter-2, 2 Node(s) failed Filter plugin "
     "FalseFilter-1. Error running PostFilter plugin FailedPostFilter"),
    (1, "", [("Node failed Permit plugin Permit-1",)], "", "0/1 nodes are available: 1 Node failed Permit plugin "
     "Permit-1."),
]


@pytest.mark.parametrize(("count", "pre_filter", "reasons", "post_filter", "text"), FIT_ERRORS)
def test_fit_error_text_as_kubernetes_tests_it(count: int, pre_filter: str, reasons: list[tuple[str, ...]],
                                               post_filter: str, text: str) -> None:
    """The spec's text and the reference implementation's ``FitError`` (which wrote a period after the PostFilter
    message that Go does not) both give Go's."""
    assert fit_error_message(count, reasons, pre_filter, post_filter) == text
    diagnosis = Diagnosis()
    for i, node_reasons in enumerate(reasons):
        diagnosis.node_to_status.set(f"node{i}", Status(Code.UNSCHEDULABLE, *node_reasons))
    diagnosis.pre_filter_msg, diagnosis.post_filter_msg = pre_filter, post_filter
    assert str(FitError("p", count, diagnosis)) == text


def test_fit_error_counts_the_nodes_a_prefilter_result_left_out() -> None:
    """``FitError.Error`` adds the absent nodes' status reasons once per node not listed explicitly."""
    diagnosis = Diagnosis()
    diagnosis.node_to_status.set("a", Status(Code.UNSCHEDULABLE, "Insufficient cpu"))
    diagnosis.node_to_status.absent_nodes_status = Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
                                                          "node(s) didn't satisfy plugin(s) [X]")
    assert str(FitError("p", 3, diagnosis)) == (
        "0/3 nodes are available: 1 Insufficient cpu, 2 node(s) didn't satisfy plugin(s) [X].")


def test_taint_reason_names_the_taint_only_in_v1_34_0() -> None:
    """v1.34.0 named the taint; v1.34.12 (the v1.34 profile's release) and v1.35 do not."""
    snapshot = _snapshot(_node("a", taints=(Taint("k", "v"),)))
    for name in ("v1.34", "v1.35"):
        assert schedule_decision(snapshot, Pod("p"), PROFILES[name]).message == (
            "0/1 nodes are available: 1 node(s) had untolerated taint(s).")
    v1_34_0 = replace(PROFILES["v1.34"], taint_reason_names_the_taint=True)
    assert schedule_decision(snapshot, Pod("p"), v1_34_0).message == (
        "0/1 nodes are available: 1 node(s) had untolerated taint {k: v}.")


def _bound_snapshot(nodes: tuple[Node, ...], pods: tuple[Pod, ...]) -> Snapshot:
    state = spec_cache.new_cache(DEFAULT_PROFILE)
    for node in nodes:
        state = spec_cache.add_node(state, node)
    for bound in pods:
        state = spec_cache.add_pod(state, bound)
    return update_snapshot(state, EMPTY_SNAPSHOT)


BIG = {"cpu": 10**6, "memory": 2**40}
"""Nodes so large that an existing pod's 100m/200Mi default requests leave NodeResourcesFit's and
BalancedAllocation's scores equal on both."""


def test_decision_weighs_pod_topology_spread_and_inter_pod_affinity() -> None:
    """PodTopologySpread and InterPodAffinity score in the cycle with weight 2. Two hostname domains, n1 with two
    pods labelled app=a, n2 with none.

    Spread (ScheduleAnyway, maxSkew 1, hostname): the weight is log(2 feasible + 2); n1 scores round(2 * log 4 + 0)
    = 3, n2 0; normalised 100 * (3 + 0 - s) / 3: n1 0, n2 100; weighted 0 and 200 (scoring.go). Affinity
    (preferred, weight 5, hostname, app=a): the term adds 5 at n1 for each of its two matching pods (10), n2 gets 0;
    normalised 100 * (s - 0) / (10 - 0): n1 100, n2 0; weighted 200 and 0 (scoring.go); anti-affinity subtracts,
    so the order turns round."""
    nodes = tuple(_node(n, BIG["cpu"], BIG["memory"], labels=FrozenMap({LABEL_HOSTNAME: n})) for n in ("n1", "n2"))
    app_a = FrozenMap({"app": "a"})
    pods = tuple(Pod(f"e{i}", f"e{i}", node_name="n1", labels=app_a) for i in range(2))
    snapshot = _bound_snapshot(nodes, pods)
    selector = LabelSelector(app_a)
    spread = Pod("s", "s", labels=app_a, topology_spread_constraints=(
        TopologySpreadConstraint(1, LABEL_HOSTNAME, SCHEDULE_ANYWAY, selector),))
    s1, s2 = schedule_decision(snapshot, spread).scores
    assert (dict(s1.plugins)["PodTopologySpread"], dict(s2.plugins)["PodTopologySpread"]) == (0, 200)
    assert "InterPodAffinity" not in dict(s1.plugins)  # no term anywhere: PreScore skips
    assert schedule_decision(snapshot, spread).allowed == ("n2",)
    term = WeightedPodAffinityTerm(5, PodAffinityTerm(selector, topology_key=LABEL_HOSTNAME))
    attracted = Pod("f", "f", pod_affinity=pod_affinity(preferred=(term,)))
    a1, a2 = schedule_decision(snapshot, attracted).scores
    assert (dict(a1.plugins)["InterPodAffinity"], dict(a2.plugins)["InterPodAffinity"]) == (200, 0)
    assert "PodTopologySpread" not in dict(a1.plugins)  # no constraint, no default selector: PreScore skips
    assert schedule_decision(snapshot, attracted).allowed == ("n1",)
    repelled = Pod("r", "r", pod_anti_affinity=pod_affinity(preferred=(term,)))
    r1, r2 = schedule_decision(snapshot, repelled).scores
    assert (dict(r1.plugins)["InterPodAffinity"], dict(r2.plugins)["InterPodAffinity"]) == (0, 200)


def test_fit_error_names_the_affinity_and_spread_reasons() -> None:
    """FitError's histogram carries PodTopologySpread's and InterPodAffinity's ErrReasons (filtering.go)."""
    nodes = (_node("n1", labels=FrozenMap({LABEL_HOSTNAME: "n1"})), _node("bare"))
    app_a = FrozenMap({"app": "a"})
    snapshot = _bound_snapshot(nodes, (Pod("e", "e", node_name="n1", labels=app_a),))
    term = PodAffinityTerm(LabelSelector(app_a), topology_key=LABEL_HOSTNAME)
    repelled = Pod("r", "r", pod_anti_affinity=pod_affinity(required=(term,)), topology_spread_constraints=(
        TopologySpreadConstraint(1, LABEL_HOSTNAME, label_selector=LabelSelector(app_a)),))
    assert schedule_decision(snapshot, repelled).message == (
        "0/2 nodes are available: 1 node(s) didn't match pod anti-affinity rules, 1 node(s) didn't match pod "
        "topology spread constraints (missing required label).")
    attracted = Pod("a", "a", pod_affinity=pod_affinity(required=(replace(term, topology_key="zone"),)))
    assert schedule_decision(snapshot, attracted).message == (
        "0/2 nodes are available: 2 node(s) didn't match pod affinity rules.")
