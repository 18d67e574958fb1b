"""Curated preemption and nominated-pod vectors for the mutants mutation/equivalents.toml listed as gaps (issues 24
and 25): PodTopologySpread's and InterPodAffinity's PreFilterExtensions (``updateWithPod``, ``criticalPaths.update``)
with pods their selectors, namespaces or later constraints tell apart, PodDisruptionBudgets skipped before the one
that covers a victim, a node whose victims violate budgets twice, and the victims' importance order.

Each scenario names the Kubernetes test it ports or the Go function it targets (v1.35.8
pkg/scheduler/framework/plugins/...). A cycle state's PreFilterExtensions only ever see one node's pods: the dry run
(``DryRunPreemption``) and ``RunFilterPluginsWithNominatedPods`` each clone it per node. So the PreFilter state
tests of Go (``TestPreFilterStateAddPod``/``RemovePod``), which add or remove a pod on one node, are ported here as a
nominated pod added on its node or victims removed and reprieved on theirs. As everywhere, the expected outcomes come
from the spec (:func:`conformance.traces.expand`), never from here.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Final

from conformance.operations import (
    ClusterAddNamespace,
    ClusterAddNode,
    CreatePod,
    CycleOperation,
    DeletePod,
    FailScheduling,
    SchedulePod,
)
from conformance.scenarios.cycle import _cy, node, placed
from conformance.scenarios.preemption import (
    FOO,
    HIGH,
    LOW,
    MID,
    TEST_FILE,
    ZONE_SPREAD,
    _bound,
    _foo,
    _foo_pod,
    _pdb,
    _pod,
    _pre,
    _zoned,
)
from conformance.traces import Scenario
from spec.frozenmap import FrozenMap
from spec.objects import (
    DO_NOT_SCHEDULE,
    AffinityTerms,
    Container,
    ContainerImage,
    LabelSelector,
    LabelSelectorRequirement,
    Namespace,
    Node,
    Pod,
    PodAffinityTerm,
    Taint,
    Toleration,
    TopologySpreadConstraint,
)
from spec.quantities import resource_list

SPREAD_TEST: Final = "podtopologyspread/filtering_test.go"
AFFINITY_TEST: Final = "interpodaffinity/filtering_test.go"
BAR_EXISTS: Final = LabelSelector(match_expressions=(LabelSelectorRequirement("bar", "Exists"),))
"""``st.MakeLabelSelector().Exists("bar")`` (filtering_test.go's barSelector)."""
HOST_BAR_SPREAD: Final = TopologySpreadConstraint(1, "hostname", DO_NOT_SCHEDULE, BAR_EXISTS)


def _gap(sid: str, description: str, ops: list[CycleOperation], *behaviours: str) -> Scenario:
    return _pre(f"gaps.{sid}", description, ops, *behaviours)


def _full_other_zone() -> list[CycleOperation]:
    """Nodes na (zone1) and nb (zone2), nb filled by a pod of high priority that no spread selector matches: a pod
    of lower priority can go to na only, and preempts nothing."""
    return [_zoned("na", "zone1"), _zoned("nb", "zone2"), *_bound((_pod("h", 1000, HIGH), "nb"))]


def spread_scenarios() -> list[Scenario]:
    """PodTopologySpread's ``updateWithPod`` and ``criticalPaths.update`` (podtopologyspread/filtering.go) through
    preemption's dry run and Filter with nominated pods."""
    spread_q = _foo_pod("q", LOW, topology_spread_constraints=(ZONE_SPREAD,))
    two_selectors = (ZONE_SPREAD, HOST_BAR_SPREAD)
    return [
        _gap("spread.nominated_pod_not_selected",
             f"TestPreFilterStateRemovePod ({SPREAD_TEST}) 'delete an irrelevant pod won't help', as a nominated pod "
             "added (updateWithPod's Selector.Matches): the pod nominated to na carries no foo label, so na's zone "
             "still counts 0 and q, spread by zone, fits there",
             [*_full_other_zone(), CreatePod(_pod("m", 100, HIGH, nominated_node_name="na")), CreatePod(spread_q),
              SchedulePod("q", "na")], "preemption.nominated_held", "preemption.pre_filter_extensions"),
        _gap("spread.nominated_pod_other_namespace",
             f"TestPreFilterStateAddPod ({SPREAD_TEST}) 'add a pod in a different namespace doesn't change "
             "topologyKeyToMinPodsMap': the foo pod nominated to na is in namespace other, so updateWithPod ignores "
             "it and q (namespace default), spread by zone, fits on na",
             [*_full_other_zone(), CreatePod(_foo_pod("m", HIGH, namespace="other", nominated_node_name="na")),
              CreatePod(spread_q), SchedulePod("q", "na")],
             "preemption.nominated_held", "preemption.pre_filter_extensions"),
        _gap("spread.nominated_pod_second_constraint_only",
             f"TestPreFilterStateAddPod ({SPREAD_TEST}) 'Constraints hold different labelSelectors, node a impacts "
             "topologyKeyToMinPodsMap on zone', the other way round: the pod nominated to na carries bar only, so "
             "the zone constraint (foo) skips it and the hostname one (bar) counts it; na then holds one bar pod "
             "more than nb and q cannot go there (nb is full): no node fits",
             [*_full_other_zone(),
              CreatePod(_pod("m", 100, HIGH, labels=FrozenMap({"bar": ""}), nominated_node_name="na")),
              CreatePod(_pod("q", 100, LOW, labels=FrozenMap({"foo": "", "bar": ""}),
                             topology_spread_constraints=two_selectors)),
              FailScheduling("q")], "preemption.nominated_held", "preemption.pre_filter_extensions"),
        _gap("spread.critical_paths_swap_then_grow",
             f"TestPreFilterStateRemovePod then TestPreFilterStateAddPod ({SPREAD_TEST}) on one domain, in "
             "SelectVictimsOnNode: zone2's two victims removed make it the minimum (criticalPaths.update swaps the "
             "paths), the first reprieved ties it with zone1, and the second would make it 2 again: the minimum "
             "goes back to zone1's 1, the skew to 2, so b2 is the victim and b1 stays",
             [_zoned("na", "zone1"), _zoned("nb", "zone2"),
              *_bound((_foo_pod("a1", HIGH, cpu=1000), "na"), (_foo_pod("b1", LOW, start_time=-10), "nb"),
                      (_foo_pod("b2", LOW, start_time=-5), "nb")),
              CreatePod(_foo_pod("p", HIGH, topology_spread_constraints=(ZONE_SPREAD,))), FailScheduling("p"),
              *placed("p", "nb")], "preemption.reprieve", "preemption.pre_filter_extensions"),
        _gap("spread.critical_paths_new_minimum_keeps_old",
             f"TestPreFilterStateAddPod ({SPREAD_TEST}) 'node a and b both impact current min match', twice on one "
             "domain: PreFilter meets zone2 (one foo pod) before zone1 (none), so criticalPaths.update moves zone2 to "
             "the second path; two pods nominated to na raise zone1 to 2, past zone2, whose 1 becomes the minimum: "
             "q's skew on na is 2 and no node fits",
             [_zoned("nb", "zone2"), _zoned("na", "zone1"), *_bound((_foo_pod("b1", HIGH), "nb")),
              CreatePod(_foo_pod("m1", HIGH, nominated_node_name="na")),
              CreatePod(_foo_pod("m2", HIGH, nominated_node_name="na")), CreatePod(spread_q), FailScheduling("q")],
             "preemption.nominated_held", "preemption.pre_filter_extensions"),
    ]


def affinity_scenarios() -> list[Scenario]:
    """InterPodAffinity's ``preFilterState.updateWithPod`` and ``Clone`` (interpodaffinity/filtering.go) with an
    existing pod's term that selects namespaces by label."""
    web = FrozenMap({"app": "web"})
    keep_off_web = AffinityTerms(required_terms=(PodAffinityTerm(
        LabelSelector(web), topology_key="hostname", namespace_selector=LabelSelector(FrozenMap({"team": "a"}))),))
    own_term = AffinityTerms(required_terms=(PodAffinityTerm(
        LabelSelector(FrozenMap({"app": "none"})), topology_key="hostname"),))
    hosts = [ClusterAddNode(node(name, labels=FrozenMap({"hostname": name}))) for name in ("na", "nb")]
    return [
        _gap("affinity.nominated_anti_affinity_namespace_selector",
             f"TestPreFilterStateAddRemovePod ({AFFINITY_TEST}) with a namespaceSelector: the pod nominated to na "
             "has a required anti-affinity term against app=web pods of the namespaces labelled team=a; q is such "
             "a pod (its namespace team-a carries the label), so AddPod counts the term against q on na (it reads "
             "q's namespace labels from the cloned state) and q goes to nb. q has a required anti-affinity term of "
             "its own, or PreFilter would skip the plugin",
             [ClusterAddNamespace(Namespace("team-a", FrozenMap({"team": "a"}))), *hosts,
              CreatePod(_pod("m", 100, HIGH, pod_anti_affinity=keep_off_web, nominated_node_name="na")),
              CreatePod(_pod("q", 100, LOW, namespace="team-a", labels=web, pod_anti_affinity=own_term)),
              SchedulePod("q", "nb")], "preemption.nominated_held", "preemption.pre_filter_extensions",
             "namespaces"),
    ]


def budget_scenarios() -> list[Scenario]:
    """``filterPodsWithPDBViolation`` and ``SelectVictimsOnNode``'s violation count
    (defaultpreemption/default_preemption.go) with several budgets."""
    n1, n2 = node("n1"), node("n2")
    return [
        _gap("pdb.budgets_skipped_before_the_covering_one",
             "filterPodsWithPDBViolation goes on past each budget that does not cover the victim (another "
             "namespace's, one whose selector the victim's labels miss, one listing the victim in DisruptedPods) "
             "to the last, which covers it and allows no disruption: n1's victim violates it, so n2, whose victim "
             "no budget covers, is chosen though its victim's priority is higher",
             [ClusterAddNode(n1), ClusterAddNode(n2), _pdb("elsewhere", 0, namespace="other"),
              _pdb("bar", 0, FrozenMap({"app": "bar"})), _pdb("disrupted", 0, disrupted=("pod-a",)), _pdb("pdb", 0),
              *_bound((_foo("a", 1000, MID), "n1"), (_pod("q", 1000, MID + 2), "n2")),
              CreatePod(_pod("p", 1000, HIGH)), FailScheduling("p")],
             "preemption.pdb_violation", "preemption.pdb_fewest_violations", "preemption.pdb_scope"),
        _gap("pdb.two_violations_lose_to_one",
             f"TestSelectBestCandidate ({TEST_FILE}) criterion 1 with counts above 1: a budget allowing no "
             "disruption covers every foo pod; n1's two victims each violate it (NumPDBViolations 2), n2's one "
             "(1), so n2 is chosen though n1's victims have the lower priority",
             [ClusterAddNode(n1), ClusterAddNode(n2), _pdb("pdb", 0, FOO),
              *_bound((_foo("a1", 500, LOW), "n1"), (_foo("a2", 500, LOW), "n1"), (_foo("b", 1000, MID), "n2")),
              CreatePod(_pod("p", 1000, HIGH)), FailScheduling("p")],
             "preemption.pdb_violation", "preemption.pdb_fewest_violations"),
    ]


def importance_scenarios() -> list[Scenario]:
    """``util.MoreImportantPod`` and the insertion sort Go's ``sort.Slice`` runs on fewer than 13 pods, through
    the pods SelectVictimsOnNode reprieves."""
    n1 = node("n1")
    return [
        _gap("importance.equal_priority_earlier_start_first",
             "util.MoreImportantPod at equal priority: the earlier start wins, even when the other pod also started "
             "before now: x (started at -10) is listed before y (-5) and stays ahead of it, so x is reprieved and y "
             "is the victim",
             [ClusterAddNode(n1), *_bound((_pod("x", 500, LOW, start_time=-10), "n1"),
                                          (_pod("y", 500, LOW, start_time=-5), "n1")),
              CreatePod(_pod("p", 500, HIGH)), FailScheduling("p"), *placed("p", "n1")], "preemption.reprieve"),
        _gap("importance.most_important_listed_last",
             "sort.Slice(potentialVictims, MoreImportantPod) in SelectVictimsOnNode: the most important of four "
             "lower-priority pods is listed last on the node and moves three places; room is left for one of them "
             "beside the pod, so d is reprieved and a, b and c are the victims",
             [ClusterAddNode(n1), *_bound((_pod("a", 250, MID - 1), "n1"), (_pod("b", 250, MID - 2), "n1"),
                                          (_pod("c", 250, MID - 3), "n1"), (_pod("d", 250, MID), "n1")),
              CreatePod(_pod("p", 750, HIGH)), FailScheduling("p"), *placed("p", "n1")], "preemption.reprieve"),
    ]


MIB: Final = 1024 * 1024
IMAGE_STEP_BELOW: Final = 23 * MIB + 977 * MIB // 4 - 1
"""One byte below a step of ``calculatePriority`` for one container: (sum - 23 MiB) * 100 / (1000 MiB - 23 MiB) is
24.99999... here and 25 one byte higher (977 MiB / 4 is a whole number of bytes; a smaller step is not)."""


def score_scenarios() -> list[Scenario]:
    """ImageLocality's ``sumImageScores`` and NodeResourcesFit's LeastAllocated score
    (imagelocality/image_locality.go, noderesources/least_allocated.go) at figures no other vector has."""
    big = "registry.example/big:v1"

    def holding(name: str) -> Node:
        return Node(name, resource_list(cpu=1000, memory=1024 * MIB, pods=10),
                    images=(ContainerImage((big,), IMAGE_STEP_BELOW),))

    def no_requests(uid: str) -> Pod:
        return Pod(uid, f"pod-{uid}", containers=(Container("c"),))

    def four_gib(name: str) -> Node:
        return Node(name, resource_list(cpu=1000, memory=4096 * MIB, pods=20))

    shaping = FrozenMap({"pool": "shape"})

    def shape_node(name: str) -> Node:
        return Node(name, resource_list(cpu=64000, memory=64 * 1024 * MIB, pods=110), labels=shaping,
                    taints=(Taint("pool", "shape"),))

    def two_gib(name: str) -> Node:
        return Node(name, resource_list(cpu=4000, memory=2048 * MIB, pods=20))

    def crowded(small: Callable[[str], Node], b0: Mapping[str, int]) -> list[CycleOperation]:
        """Nodes a and b of ``small``, the 36 shapes, ten pods without requests on a, b0 of ``b0`` on b, then q."""
        ops: list[CycleOperation] = [ClusterAddNode(small("a")), ClusterAddNode(small("b")),
                                     ClusterAddNode(shape_node("s1")), ClusterAddNode(shape_node("s2"))]
        for i in range(36):  # 36 pod shapes scored on s1 and s2 fill the rows' 32 memo columns
            requests = resource_list(cpu=200 + 50 * i, memory=(64 + 16 * i) * MIB)
            ops += [CreatePod(Pod(f"s{i}", f"pod-s{i}", containers=(Container("c", requests),),
                                  node_selector=shaping, tolerations=(Toleration("pool", "Equal", "shape"),))),
                    SchedulePod(f"s{i}", "s1"), DeletePod(f"s{i}")]
        for i in range(10):
            ops += [CreatePod(no_requests(f"a{i}")), *placed(f"a{i}", "a")]
        return [*ops, CreatePod(Pod("b0", "pod-b0", containers=(Container("c", resource_list(**b0)),))),
                *placed("b0", "b"), CreatePod(no_requests("q")), SchedulePod("q", "a")]

    return [
        _cy("score.gaps.image_locality_one_byte_below_a_step",
            "calculatePriority (imagelocality/image_locality.go) of an image sum one byte below a step of its "
            f"integer scale: both nodes hold the pod's one image of {IMAGE_STEP_BELOW} bytes (scaled by 2/2 nodes, "
            "unchanged), (sum - 23 MiB) * 100 / 977 MiB truncates to 24 on each (one byte more would give 25)",
            [ClusterAddNode(holding("i1")), ClusterAddNode(holding("i2")),
             CreatePod(Pod("p", "pod-p", containers=(Container("c", resource_list(cpu=100), image=big),))),
             SchedulePod("p", "i1")]),  # no "score" label: both nodes score 24, so no column differs
        _cy("score.gaps.least_allocated_non_zero_cpu_beyond_allocatable",
            "leastRequestedScore (noderesources/least_allocated.go) scores a resource 0 when the non-zero requests "
            "exceed the allocatable: node a holds ten pods without requests (100m of cpu and 200 MiB counted for "
            "each, GetNonzeroRequests), so with the incoming pod's own 100m its cpu counts 1100m of 1000m and "
            "scores 0, not below; node b's one pod of 900m leaves the pod's 100m exactly room (cpu 0 too). a's "
            "memory left makes it the higher total by 1. Thirty-six pods of as many shapes, scored first on two "
            "tainted nodes the pod does not tolerate, leave the reference implementation no memo column for this "
            "pod's shape, so it scores the nodes from the rows' figures",
            crowded(four_gib, {"cpu": 900, "memory": 2048 * MIB}), "score", "resources"),
        _cy("score.gaps.least_allocated_non_zero_memory_beyond_allocatable",
            "leastRequestedScore (noderesources/least_allocated.go) scores a resource 0 when the non-zero requests "
            "exceed the allocatable, memory this time: node a (4 cpu, 2 GiB) holds ten pods without requests (200 "
            "MiB of memory counted for each, GetNonzeroRequests), so with the incoming pod's own 200 MiB its memory "
            "counts 2200 MiB of 2048 and scores 0, not below; node b's one pod of 1848 MiB leaves the pod's 200 MiB "
            "exactly room (memory 0 too) and its 900m of cpu scores b's cpu 75 against a's 72. The same 36 shapes "
            "first leave the reference implementation no memo column for this pod's shape",
            crowded(two_gib, {"cpu": 900, "memory": 1848 * MIB}), "score", "resources"),
    ]


def gaps_b_scenarios() -> list[Scenario]:
    """Every scenario of this module."""
    return [*spread_scenarios(), *affinity_scenarios(), *budget_scenarios(), *importance_scenarios(),
            *score_scenarios()]

