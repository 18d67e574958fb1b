"""Cycle-area scenarios with DefaultPreemption as the profile's PostFilter (a vector's ``preemption``).

A cycle that finds no feasible node runs PostFilter (:func:`spec.cycle.cycle.fail_scheduling`): the pod is nominated
to the node chosen, the victims are deleted at the API server, the pods of lower priority nominated there lose their
nomination, and from then on every Filter of a pod of lower or equal priority counts the nominated pod on its node
(:mod:`spec.cycle.nominated`). Each scenario that ports a case of Kubernetes' own tests names it (v1.35
pkg/scheduler/framework/plugins/defaultpreemption/default_preemption_test.go); there the Filter statuses are given,
here they come from the default filters, so the clusters are built to give those statuses. No scenario leaves
Kubernetes' choice open: every preemption has one best node (``pickOneNodeForPreemption`` breaks a tie left after
its five criteria by Go's map order), and the victims' priorities or start times decide every order that matters.
Expected outcomes come from the spec (:func:`conformance.traces.expand`), never from here.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Final

from conformance.operations import (
    ClusterAddNode,
    ClusterAddPodDisruptionBudget,
    ClusterUpdateNode,
    CrashScheduler,
    CreatePod,
    CycleOperation,
    DeletePod,
    FailScheduling,
    RestartScheduler,
    SchedulePod,
)
from conformance.scenarios.cycle import node, placed, pod
from conformance.traces import ALL_PROFILES, Scenario
from spec.cycle.cycle import FailurePoint
from spec.frozenmap import FrozenMap
from spec.objects import (
    DO_NOT_SCHEDULE,
    PREEMPT_NEVER,
    AffinityTerms,
    LabelSelector,
    LabelSelectorRequirement,
    Pod,
    PodAffinityTerm,
    PodDisruptionBudget,
    TopologySpreadConstraint,
)

LOW, MID, HIGH, VERY_HIGH = 1, 5, 10, 100
"""Priorities, as default_preemption_test.go's lowPriority, midPriority, highPriority, veryHighPriority order them."""
TEST_FILE: Final = "default_preemption_test.go"


def _pod(uid: str, cpu: int, priority: int, **fields: object) -> Pod:
    """A pending pod of :func:`conformance.scenarios.cycle.pod` with ``priority`` and any other pod ``fields``."""
    return replace(pod(uid, cpu), priority=priority, **fields)  # type: ignore[arg-type]


def _bound(*pods: tuple[Pod, str]) -> list[CycleOperation]:
    """Create each pod and place it (schedule, bind, confirm) on its node, in order."""
    ops: list[CycleOperation] = []
    for p, name in pods:
        ops += [CreatePod(p), *placed(p.uid, name)]
    return ops


def _pre(sid: str, description: str, ops: Sequence[CycleOperation], *behaviours: str) -> Scenario:
    return Scenario(f"cycle.preemption.{sid}", description, ops, area="cycle", behaviours=("preemption", *behaviours),
                    profiles=ALL_PROFILES, preemption=True)


def preemption_scenarios() -> list[Scenario]:
    """The curated preemption scenarios: TestPostFilter, TestDryRunPreemption and TestSelectBestCandidate cases that
    fit the cycle area, and the nominator's effects in later cycles."""
    n1, n2 = node("n1"), node("n2")
    return [
        # -- TestPostFilter (default_preemption_test.go) -------------------------------------------------------------
        _pre("post_filter.higher_priority_made_schedulable",
             f"TestPostFilter ({TEST_FILE}) 'pod with higher priority can be made schedulable': the lower-priority "
             "pod is deleted, the pod nominated to its node; the next cycle places it there and it binds",
             [ClusterAddNode(n1), *_bound((_pod("p1", 600, 0), "n1")), CreatePod(_pod("p", 600, HIGH)),
              FailScheduling("p"), *placed("p", "n1")], "preemption.success", "preemption.bind_after"),
        _pre("post_filter.tied_priority_unschedulable",
             f"TestPostFilter ({TEST_FILE}) 'pod with tied priority is still unschedulable': no pod of lower "
             "priority, so no victims; the pod is nominated to no node (\"\") and the message says why",
             [ClusterAddNode(n1), *_bound((_pod("p1", 600, 0), "n1")), CreatePod(_pod("p", 600, 0)),
              FailScheduling("p")], "preemption.no_victims"),
        _pre("post_filter.unresolvable_not_helpful",
             f"TestPostFilter ({TEST_FILE}) 'preemption should respect filteredNodesStatuses': the only node's "
             "rejection is UnschedulableAndUnresolvable (cordoned), so no node is a candidate: 'Preemption is not "
             "helpful for scheduling'",
             [ClusterAddNode(n1), *_bound((_pod("p1", 600, 0), "n1")),
              *_cordon("n1"), CreatePod(_pod("p", 600, HIGH)), FailScheduling("p")], "preemption.not_helpful"),
        _pre("post_filter.one_node",
             f"TestPostFilter ({TEST_FILE}) 'pod can be made schedulable on one node': node1's pod has a higher "
             "priority than the preemptor, node2's a lower one: node2 is chosen",
             [ClusterAddNode(n1), ClusterAddNode(n2),
              *_bound((_pod("p1", 600, HIGH), "n1"), (_pod("p2", 600, LOW), "n2")),
              CreatePod(_pod("p", 600, MID)), FailScheduling("p"), *placed("p", "n2")], "preemption.success"),
        _pre("post_filter.min_highest_priority_node",
             f"TestPostFilter ({TEST_FILE}) 'pod can be made schedulable on minHighestPriority node' (without its "
             "PodDisruptionBudgets, which the cycle area has none of): node1's victim has a higher priority than "
             "node2's, so node2 is chosen",
             [ClusterAddNode(n1), ClusterAddNode(n2),
              *_bound((_pod("p1", 600, HIGH), "n1"), (_pod("p3", 600, MID), "n2")),
              CreatePod(_pod("p", 600, VERY_HIGH)), FailScheduling("p")], "preemption.success"),
        _pre("post_filter.insufficient_after_removal",
             f"TestPostFilter ({TEST_FILE}) 'no candidate nodes found, no enough resource after removing low "
             "priority pods': without its pods of lower priority each node still lacks cpu (a pod of higher "
             "priority stays): the dry run's reasons are the message",
             [ClusterAddNode(n1), ClusterAddNode(n2),
              *_bound((_pod("h1", 500, VERY_HIGH), "n1"), (_pod("l1", 400, 0), "n1"),
                      (_pod("h2", 500, VERY_HIGH), "n2"), (_pod("l2", 400, 0), "n2")),
              CreatePod(_pod("p", 600, HIGH)), FailScheduling("p")], "preemption.insufficient"),
        _pre("post_filter.mixed_reasons",
             f"TestPostFilter ({TEST_FILE}) 'no candidate nodes found with mixed reasons, no lower priority pod and "
             "no enough CPU resource': node1 has no pod of lower priority, node2 lacks cpu even without them",
             [ClusterAddNode(n1), ClusterAddNode(n2),
              *_bound((_pod("p1", 600, HIGH), "n1"), (_pod("h2", 500, VERY_HIGH), "n2"), (_pod("p2", 400, 0), "n2")),
              CreatePod(_pod("p", 600, HIGH)), FailScheduling("p")], "preemption.no_victims",
             "preemption.insufficient"),
        # -- TestDryRunPreemption / TestSelectBestCandidate ----------------------------------------------------------
        _pre("dry_run.medium_preempted_small_low_stays",
             f"TestDryRunPreemption ({TEST_FILE}) 'medium priority pod is preempted, but lower priority one stays "
             "as it is small': every pod of lower priority is removed, then added back most important first while "
             "the preemptor still fits: the medium one does not fit back, the small low one does",
             [ClusterAddNode(n1), *_bound((_pod("mid", 700, MID), "n1"), (_pod("low", 100, LOW), "n1")),
              CreatePod(_pod("p", 400, HIGH)), FailScheduling("p"), *placed("p", "n1")], "preemption.reprieve"),
        _pre("select.min_highest_priority",
             f"TestSelectBestCandidate ({TEST_FILE}) 'a pod that fits on a machine with no preemption' is not a "
             "PostFilter case; this is its 'a pod that fits on both nodes when lower priority pods are preempted' "
             "made one-sided: both nodes need one victim, the one of lower priority decides",
             [ClusterAddNode(n1), ClusterAddNode(n2),
              *_bound((_pod("a", 700, MID), "n1"), (_pod("b", 700, LOW), "n2")),
              CreatePod(_pod("p", 600, HIGH)), FailScheduling("p")], "preemption.select"),
        _pre("select.min_sum_priorities",
             f"TestSelectBestCandidate ({TEST_FILE}) criterion 3: the same highest victim priority on both nodes, "
             "the smaller sum of victim priorities (node2: one victim, node1: two) wins",
             [ClusterAddNode(n1), ClusterAddNode(n2),
              *_bound((_pod("a1", 400, LOW), "n1"), (_pod("a2", 400, LOW), "n1"), (_pod("b", 800, LOW), "n2")),
              CreatePod(_pod("p", 900, HIGH)), FailScheduling("p")], "preemption.select"),
        _pre("select.latest_start_time",
             f"TestSelectBestCandidate ({TEST_FILE}) criterion 5: one victim of the same priority on each node; the "
             "node whose victim started latest is chosen",
             [ClusterAddNode(n1), ClusterAddNode(n2),
              *_bound((_pod("a", 800, LOW, start_time=100), "n1"), (_pod("b", 800, LOW, start_time=200), "n2")),
              CreatePod(_pod("p", 800, HIGH)), FailScheduling("p")], "preemption.select"),
        # -- eligibility --------------------------------------------------------------------------------------------
        _pre("policy_never",
             "PreemptionPolicy Never (PodEligibleToPreemptOthers): PostFilter does not preempt, the result is nil, "
             "the pod is not nominated and its lower-priority neighbour stays",
             [ClusterAddNode(n1), *_bound((_pod("low", 600, LOW), "n1")),
              CreatePod(_pod("p", 600, HIGH, preemption_policy=PREEMPT_NEVER)), FailScheduling("p")],
             "preemption.not_eligible"),
        # -- the nominator in later cycles --------------------------------------------------------------------------
        _pre("nominated.holds_against_lower_and_equal",
             "After a preemption the nominated pod's resources are held on its node in every Filter of a pod of "
             "lower or equal priority (RunFilterPluginsWithNominatedPods adds the nominated pods of equal or higher "
             "priority): such pods are rejected there and find no victims; a pod of higher priority ignores the "
             "nomination and is placed",
             [ClusterAddNode(n1), *_bound((_pod("low", 600, LOW), "n1")), CreatePod(_pod("m", 600, MID)),
              FailScheduling("m"), CreatePod(_pod("lower", 600, LOW + 1)), FailScheduling("lower"),
              CreatePod(_pod("equal", 600, MID)), SchedulePod("equal", "n1"), FailScheduling("equal"),
              CreatePod(_pod("higher", 600, HIGH)), *placed("higher", "n1")], "preemption.nominated_held"),
        _pre("nominated.lower_loses_nomination",
             "A pod of higher priority preempts on the node a lower-priority pod is nominated to: that pod loses its "
             "nomination (getLowerPriorityNominatedPods, clearNominatedNodeName) and the preemptor is nominated",
             [ClusterAddNode(n1), *_bound((_pod("l", 600, LOW), "n1"), (_pod("x", 400, MID - 2), "n1")),
              CreatePod(_pod("m", 600, MID)), FailScheduling("m"), CreatePod(_pod("h", 1000, HIGH)),
              FailScheduling("h"), *placed("h", "n1"), FailScheduling("m")], "preemption.nomination_cleared"),
        _pre("nominated.deleted_frees_node",
             "Deleting a nominated pod removes its nomination: a pod of lower priority then fits where the room "
             "was held",
             [ClusterAddNode(n1), *_bound((_pod("low", 600, LOW), "n1")), CreatePod(_pod("m", 600, MID)),
              FailScheduling("m"), CreatePod(_pod("other", 600, LOW)), SchedulePod("other", "n1"), DeletePod("m"),
              *placed("other", "n1")], "preemption.nominated_deleted"),
        _pre("nominated.reserve_failure_clears",
             "A nominated pod whose cycle fails at Reserve loses its nomination to the node: assume removed it and "
             "the failure handler nominates the pod to no node (clearNominatedNode)",
             [ClusterAddNode(n1), *_bound((_pod("low", 600, LOW), "n1")), CreatePod(_pod("m", 600, MID)),
              FailScheduling("m"), FailScheduling("m", "n1", FailurePoint.RESERVE), *placed("m", "n1")],
             "preemption.nominated_cleared_on_failure"),
        _pre("no_nodes",
             "With no node at all the cycle fails with ErrNoNodesAvailable: no PostFilter runs, and the pod is "
             "nominated to no node (clearNominatedNode)",
             [CreatePod(_pod("p", 100, HIGH)), FailScheduling("p"), ClusterAddNode(n1), *placed("p", "n1")],
             "preemption.no_nodes"),
    ]


def _cordon(name: str) -> list[CycleOperation]:
    """The node ``name`` cordoned (its Filter rejection, NodeUnschedulable, is UnschedulableAndUnresolvable)."""
    return [ClusterUpdateNode(replace(node(name), unschedulable=True))]


# ============================================================================================
# PodDisruptionBudgets (issue 25): DefaultPreemption's victims and node choice read the cluster's budgets
# ============================================================================================

PREEMPTION_TEST_FILE: Final = "preemption_test.go"
"""v1.35 pkg/scheduler/framework/preemption/preemption_test.go."""
MAX_INT32: Final = 2**31 - 1
FOO: Final = FrozenMap({"app": "foo"})
"""The ``app: foo`` label TestDryRunPreemption's budgets select."""
VIOLATING_KEY: Final = "test.kubernetes.io/is-violating-pdb"
"""TestPostFilter's LabelKeyIsViolatingPDB."""


def _pdb(name: str, allowed: int, selector: FrozenMap[str, str] | None = FOO, disrupted: Sequence[str] = (),
         namespace: str = "default") -> ClusterAddPodDisruptionBudget:
    """A budget created (or replaced) at the API server: ``selector`` as ``matchLabels``, ``allowed`` as
    ``Status.DisruptionsAllowed``, the pod names in ``disrupted`` as ``Status.DisruptedPods``."""
    return ClusterAddPodDisruptionBudget(PodDisruptionBudget(name, namespace, selector, allowed, frozenset(disrupted)))


def _foo(uid: str, cpu: int, priority: int, **fields: object) -> Pod:
    """A pod labelled ``app: foo`` (TestDryRunPreemption's ``Label("app", "foo")``)."""
    return _pod(uid, cpu, priority, labels=FOO, **fields)


def _pdb_scenario(sid: str, description: str, ops: Sequence[CycleOperation], *behaviours: str) -> Scenario:
    return _pre(f"pdb.{sid}", description, ops, *behaviours)


def _against_clean_node(budget: ClusterAddPodDisruptionBudget, victims: Sequence[Pod]) -> list[CycleOperation]:
    """TestDryRunPreemption's one-node cases made observable: ``victims`` fill node1 (the preemptor needs all of it,
    so each is a victim, as veryLargeRes makes them there), and node2 holds one pod of a priority between theirs and
    the preemptor's, covered by no budget. The candidates' violation counts are not observed, but the choice shows
    them: node1 with a violation loses to node2 (fewest violations first), node1 without one wins (its highest victim
    priority is lower)."""
    n1, n2 = node("n1"), node("n2")
    return [ClusterAddNode(n1), ClusterAddNode(n2), budget,
            *_bound(*((v, "n1") for v in victims), (_pod("q", 1000, MID + 2), "n2")),
            CreatePod(_pod("p", 1000, HIGH)), FailScheduling("p")]


def _updated_between(between: Sequence[CycleOperation]) -> list[CycleOperation]:
    """Two preemptions over four nodes, the budget covering node1's and node4's pods lowered from 1 allowed
    disruption to 0 after the first, then the ``between`` steps."""
    return [*(ClusterAddNode(node(f"n{i}")) for i in range(1, 5)), _pdb("pdb", 1),
            *_bound((_foo("a", 1000, LOW, start_time=200), "n1"), (_pod("q", 1000, MID, start_time=200), "n2"),
                    (_pod("q3", 1000, MID, start_time=100), "n3"), (_foo("a4", 1000, LOW, start_time=100), "n4")),
            CreatePod(_pod("p", 1000, HIGH)), FailScheduling("p"), *placed("p", "n1"), _pdb("pdb", 0), *between,
            CreatePod(_pod("r", 1000, HIGH)), FailScheduling("r"), *placed("r", "n2")]


def pdb_scenarios() -> list[Scenario]:
    """PodDisruptionBudgets in preemption: Kubernetes' own PDB table cases (TestDryRunPreemption and TestPostFilter of
    default_preemption_test.go, TestDryRunPreemption of preemption_test.go), each made observable through the node
    PostFilter chooses or the victims it deletes, and curated cases of a budget's scope, its update and reprieve
    order. The budgets are created with ``cluster_add_pod_disruption_budget`` (format 4.5.0)."""
    n1, n2 = node("n1"), node("n2")
    mid = [_foo("p1.1", 500, MID), _foo("p1.2", 500, MID)]
    thirds = [_foo("p1.1", 330, MID), _foo("p1.2", 330, MID), _foo("p1.3", 330, MID)]
    violating = FrozenMap({VIOLATING_KEY: "violating"})
    non_violating = FrozenMap({VIOLATING_KEY: "non-violating"})
    return [
        # -- TestDryRunPreemption (default_preemption_test.go) ------------------------------------------------------
        _pdb_scenario(
            "dry_run.violation_of_same_pdb",
            f"TestDryRunPreemption ({TEST_FILE}) 'preemption with violation of same pdb': node1's two victims share a "
            "budget allowing 1 disruption, so one violates it (NumPDBViolations 1); node2's victim, of higher priority "
            "but covered by no budget, is chosen instead",
            _against_clean_node(_pdb("pdb", 1), mid), "preemption.pdb_violation", "preemption.pdb_fewest_violations"),
        _pdb_scenario(
            "dry_run.disrupted_pods_other_pod",
            f"TestDryRunPreemption ({TEST_FILE}) 'preemption with violation of the pdb with pod whose eviction was "
            "processed, the victim doesn't belong to DisruptedPods': the budget's DisruptedPods names a pod that is "
            "not a victim, so node1 still has 1 violation and node2 is chosen",
            _against_clean_node(_pdb("pdb", 1, disrupted=("pod-p2",)), mid), "preemption.pdb_violation",
            "preemption.pdb_fewest_violations"),
        _pdb_scenario(
            "dry_run.disrupted_pods_victim",
            f"TestDryRunPreemption ({TEST_FILE}) 'preemption with violation of the pdb with pod whose eviction was "
            "processed, the victim belongs to DisruptedPods': p1.2 is in DisruptedPods, so it uses no disruption and "
            "node1 has no violation (NumPDBViolations 0): node1, with the lower highest victim priority, is chosen",
            _against_clean_node(_pdb("pdb", 1, disrupted=("pod-p1.2",)), mid), "preemption.pdb_disrupted_pods"),
        _pdb_scenario(
            "dry_run.disrupted_pods_non_violating",
            f"TestDryRunPreemption ({TEST_FILE}) 'preemption with violation of the pdb with pod whose eviction was "
            "processed, the victim which belongs to DisruptedPods is treated as 'nonViolating'': three victims, "
            "p1.3 in DisruptedPods, one disruption allowed: p1.2 violates (NumPDBViolations 1) and node2 is chosen",
            _against_clean_node(_pdb("pdb", 1, disrupted=("pod-p1.3",)), thirds), "preemption.pdb_violation",
            "preemption.pdb_disrupted_pods", "preemption.pdb_fewest_violations"),
        _pdb_scenario(
            "dry_run.looks_past_violating_nodes",
            f"TestDryRunPreemption ({TEST_FILE}) 'preemption looks past numCandidates until a non-PDB violating "
            "node is found', with the default DefaultPreemptionArgs (every node is a candidate): node1, node2 and "
            "node5's victims violate a budget allowing no disruption, node3's and node4's do not; the clean nodes win "
            "although the others' victims have the lower priority, and node4's victim, started later, decides between "
            "them",
            [*(ClusterAddNode(node(f"n{i}")) for i in range(1, 6)), _pdb("pdb", 0),
             *_bound((_foo("p1", 1000, LOW), "n1"), (_foo("p2", 1000, LOW), "n2"),
                     (_pod("p3", 1000, MID, start_time=100), "n3"), (_pod("p4", 1000, MID, start_time=200), "n4"),
                     (_foo("p5", 1000, LOW), "n5")),
             CreatePod(_pod("p", 1000, HIGH)), FailScheduling("p"), *placed("p", "n4")],
            "preemption.pdb_violation", "preemption.pdb_fewest_violations", "preemption.success"),
        # -- TestPostFilter (default_preemption_test.go) ------------------------------------------------------------
        _pdb_scenario(
            "post_filter.min_highest_priority_node",
            f"TestPostFilter ({TEST_FILE}) 'pod can be made schedulable on minHighestPriority node' with its two "
            "budgets: violating-pdb (minAvailable 100%: no disruption allowed) covers p2 and p3, non-violating-pdb "
            "(MaxInt32 allowed) covers p1; node1 (victims p1, p2) and node2 (victim p3) have one violation each, so "
            "the lower highest victim priority decides: node2",
            [ClusterAddNode(n1), ClusterAddNode(n2), _pdb("violating-pdb", 0, violating),
             _pdb("non-violating-pdb", MAX_INT32, non_violating),
             *_bound((_pod("p1", 600, HIGH, labels=non_violating), "n1"),
                     (_pod("p2", 400, LOW, labels=violating), "n1"), (_pod("p3", 1000, MID, labels=violating), "n2")),
             CreatePod(_pod("p", 1000, VERY_HIGH)), FailScheduling("p")],
            "preemption.pdb_violation", "preemption.select"),
        # -- TestDryRunPreemption (preemption_test.go) --------------------------------------------------------------
        _pdb_scenario(
            "evaluator.violation_on_each_node",
            f"TestDryRunPreemption ({PREEMPTION_TEST_FILE}) 'pdb violation on each node' (there a fake plugin reports "
            "one violation per node; here a budget allowing no disruption covers both victims): both candidates have "
            "NumPDBViolations 1, so the later criteria decide: node2's victim started later",
            [ClusterAddNode(n1), ClusterAddNode(n2), _pdb("pdb", 0),
             *_bound((_foo("p1", 1000, MID, start_time=100), "n1"), (_foo("p2", 1000, MID, start_time=200), "n2")),
             CreatePod(_pod("p", 1000, HIGH)), FailScheduling("p")],
            "preemption.pdb_violation", "preemption.select"),
        # -- curated -------------------------------------------------------------------------------------------------
        _pdb_scenario(
            "reprieve_violating_first",
            "SelectVictimsOnNode reprieves the pods whose eviction would violate a budget before the others "
            "(filterPodsWithPDBViolation): of the medium pod and the budget-covered low one only one can stay; "
            "without the budget the medium one would stay, with it the low one does and the medium one is the victim",
            [ClusterAddNode(n1), _pdb("pdb", 0),
             *_bound((_pod("b", 500, MID), "n1"), (_foo("a", 500, LOW), "n1")),
             CreatePod(_pod("p", 500, HIGH)), FailScheduling("p")], "preemption.pdb_violation", "preemption.reprieve"),
        _pdb_scenario(
            "scope",
            "filterPodsWithPDBViolation: a budget covers only pods of its own namespace whose labels include all of "
            "its selector's; a nil or empty selector covers none. None of the four budgets allowing no disruption "
            "covers node1's victim, so node1 has no violation and wins on its lower victim priority",
            [ClusterAddNode(n1), ClusterAddNode(n2), _pdb("elsewhere", 0, namespace="other"),
             _pdb("empty", 0, FrozenMap()), _pdb("nil", 0, None),
             _pdb("narrower", 0, FrozenMap({"app": "foo", "tier": "db"})),
             *_bound((_foo("a", 1000, MID), "n1"), (_pod("q", 1000, MID + 2), "n2")),
             CreatePod(_pod("p", 1000, HIGH)), FailScheduling("p")], "preemption.pdb_scope"),
        _pdb_scenario(
            "updated_between_preemptions",
            "A budget's status is replaced between two preemptions (the disruption controller lowers "
            "DisruptionsAllowed from 1 to 0): the first preemption finds node1's and node4's covered victims clean "
            "and takes node1 (lowest victim priority, latest start); the second counts node4's victim as a "
            "violation and takes node2, whose clean victim started later than node3's",
            _updated_between([]), "preemption.pdb_violation", "preemption.pdb_fewest_violations",
            "preemption.success"),
        _pdb_scenario(
            "updated_then_restart",
            "As updated_between_preemptions, with the scheduler crashed and restarted after the update: the new "
            "process's PDB informer lists the budget as it is now, so the second preemption still avoids node4",
            _updated_between([CrashScheduler(), RestartScheduler()]), "preemption.pdb_violation",
            "preemption.pdb_fewest_violations", "preemption.success"),
    ]


# ================================================================================================================
# PreFilterExtensions in preemption's dry run and in Filter with nominated pods (issue 25)
# ================================================================================================================
#
# Kubernetes' SelectVictimsOnNode tells the PreFilter plugins of each pod it removes or adds back
# (RunPreFilterExtensionRemovePod / AddPod), and addGENominatedPods of each nominated pod it adds: PodTopologySpread's
# and InterPodAffinity's counts are their cycle state's, not the NodeInfo's. These vectors need those counts kept.

FOO_EXISTS: Final = LabelSelector(match_expressions=(LabelSelectorRequirement("foo", "Exists"),))
"""``st.MakeLabelSelector().Exists("foo")``."""
ZONE_SPREAD: Final = TopologySpreadConstraint(1, "zone", DO_NOT_SCHEDULE, FOO_EXISTS)
HOST_SPREAD: Final = TopologySpreadConstraint(1, "hostname", DO_NOT_SCHEDULE, FOO_EXISTS)
TEST_PREEMPT_FILE: Final = "default_preemption_test.go"


def _zoned(name: str, zone: str, cpu: int = 1000) -> CycleOperation:
    """``node-a/zone1``: a node labelled with its hostname and zone."""
    return ClusterAddNode(node(name, cpu, labels=FrozenMap({"hostname": name, "zone": zone})))


def _foo_pod(uid: str, priority: int, cpu: int = 100, **fields: object) -> Pod:
    """A pod labelled ``foo: ""`` (what the spread constraints and anti-affinity terms select)."""
    return _pod(uid, cpu, priority, labels=FrozenMap({"foo": ""}), **fields)


def _spreading(uid: str, priority: int) -> Pod:
    """A ``foo`` pod spread by zone and by hostname, maxSkew 1 each (TestPreempt's and TestDryRunPreemption's)."""
    return _foo_pod(uid, priority, topology_spread_constraints=(ZONE_SPREAD, HOST_SPREAD))


def pre_filter_extension_scenarios() -> list[Scenario]:
    """Preemption and nominated pods where PodTopologySpread's and InterPodAffinity's PreFilter state must follow
    each pod removed or added (ported from default_preemption_test.go where a case exists)."""
    zones = [_zoned("node-a", "zone1"), _zoned("node-b", "zone1"), _zoned("node-x", "zone2")]
    hosts = [ClusterAddNode(node(name, labels=FrozenMap({"hostname": name}))) for name in ("node1", "node2")]
    anti_foo = AffinityTerms(required_terms=(PodAffinityTerm(FOO_EXISTS, topology_key="hostname"),))
    return [
        _pre("extensions.spread_preempt",
             f"TestPreempt ({TEST_PREEMPT_FILE}) 'preemption for topology spread constraints': every node breaks a "
             "zone or hostname spread; only node-b has a pod of lower priority, and without it (RemovePod lowers "
             "the counts) the pod fits: node-b is nominated, p-b1 deleted",
             [*zones, *_bound((_foo_pod("p-a1", HIGH), "node-a"), (_foo_pod("p-a2", HIGH), "node-a"),
                              (_foo_pod("p-b1", LOW), "node-b"), (_foo_pod("p-x1", HIGH), "node-x"),
                              (_foo_pod("p-x2", HIGH), "node-x")),
              CreatePod(_spreading("p", HIGH)), FailScheduling("p"),
              CreatePod(_spreading("q", LOW)), FailScheduling("q"), *placed("p", "node-b")],
             "preemption.success", "preemption.pre_filter_extensions"),
        _pre("extensions.spread_dry_run",
             f"TestDryRunPreemption ({TEST_PREEMPT_FILE}) 'preemption to resolve pod topology spread filter "
             "failure': node-a and node-b are candidates, each with one victim (RemovePod, then AddPod for the pod "
             "reprieved); the victims' start times make node-b the choice",
             [*zones, *_bound((_foo_pod("pod-a1", MID), "node-a"), (_foo_pod("pod-a2", LOW, start_time=100), "node-a"),
                              (_foo_pod("pod-b1", LOW, start_time=200), "node-b"), (_foo_pod("pod-x1", HIGH), "node-x"),
                              (_foo_pod("pod-x2", HIGH), "node-x")),
              CreatePod(_spreading("p", HIGH)), FailScheduling("p"), *placed("p", "node-b")],
             "preemption.reprieve", "preemption.pre_filter_extensions"),
        _pre("extensions.anti_affinity_victim",
             f"TestDryRunPreemption ({TEST_PREEMPT_FILE}) 'pod with anti-affinity is preempted' (node2 made full, "
             "so that the pod fits nowhere): p1.1's anti-affinity keeps p off node1; removing it (RemovePod) lets p "
             "fit, and p1.2 of medium priority is reprieved",
             [*hosts, *_bound((_foo_pod("p1.1", LOW, pod_anti_affinity=anti_foo), "node1"),
                              (_pod("p1.2", 100, MID), "node1"), (_pod("p1.3", 100, HIGH), "node1"),
                              (_pod("p2", 950, HIGH), "node2")),
              CreatePod(_foo_pod("p", HIGH)), FailScheduling("p"), *placed("p", "node1")],
             "preemption.success", "preemption.pre_filter_extensions"),
    ]


def preemption_mutation_scenarios() -> list[Scenario]:
    """Curated vectors for the mutants of DefaultPreemption and the nominator that the scenarios above let survive
    (issue 25): the victims' order, each of pickOneNodeForPreemption's criteria alone, a nominated node that is
    UnschedulableAndUnresolvable, a nomination of equal priority kept, and the pod's own affinity terms counted in
    the dry run. Start times are at most the cycle's time (0), as a started pod's are: a pod not started counts as
    started now, after every other (Kubernetes reads the wall clock there)."""
    n1, n2, n3 = node("n1"), node("n2"), node("n3")
    hosts = [ClusterAddNode(node(name, labels=FrozenMap({"hostname": name}))) for name in ("n1", "n2")]
    cache = FrozenMap({"app": "cache"})
    db = FrozenMap({"app": "db"})
    to_cache = AffinityTerms(required_terms=(PodAffinityTerm(LabelSelector(cache), topology_key="hostname"),))
    from_db = AffinityTerms(required_terms=(PodAffinityTerm(LabelSelector(db), topology_key="hostname"),))
    lowest = -2**31  # the least int32 priority: its term of pickOneNodeForPreemption's sum is 0
    return [
        _pre("mutation.reprieve_in_importance_order",
             "Five pods of lower priority on one node, room for three of them beside the pod: the dry run adds them "
             "back most important first (util.MoreImportantPod: higher priority, then the earlier start, a pod not "
             "started counting as started now, after the others: v4), so v2, v1 and v3 stay and v4 and v5 are "
             "the victims",
             [ClusterAddNode(n1), *_bound((_pod("v1", 200, LOW, start_time=-5), "n1"),
                                          (_pod("v2", 200, MID), "n1"),
                                          (_pod("v3", 200, LOW, start_time=-3), "n1"),
                                          (_pod("v4", 200, LOW), "n1"),
                                          (_pod("v5", 200, LOW - 1, start_time=1), "n1")),
              CreatePod(_pod("p", 400, HIGH)), FailScheduling("p")], "preemption.reprieve"),
        _pre("mutation.fewest_victims",
             f"TestSelectBestCandidate ({TEST_FILE}) criterion 4, the fewest victims: the same highest victim "
             "priority on both nodes, and the same sum once the second victim of n1 has the least int32 priority "
             "(its term is 0): n2 with one victim wins",
             [ClusterAddNode(n1), ClusterAddNode(n2),
              *_bound((_pod("a1", 500, LOW), "n1"), (_pod("a2", 500, lowest), "n1"), (_pod("b", 1000, LOW), "n2")),
              CreatePod(_pod("p", 1000, HIGH)), FailScheduling("p")], "preemption.select"),
        _pre("mutation.unstarted_victim_starts_now",
             f"TestSelectBestCandidate ({TEST_FILE}) criterion 5 with a victim not started: it counts as started "
             "now, so of three nodes the one whose victim started latest (n3, not started) is chosen",
             [ClusterAddNode(n1), ClusterAddNode(n2), ClusterAddNode(n3),
              *_bound((_pod("a", 800, LOW, start_time=-20), "n1"), (_pod("b", 800, LOW, start_time=-10), "n2"),
                      (_pod("c", 800, LOW), "n3")),
              CreatePod(_pod("p", 800, HIGH)), FailScheduling("p")], "preemption.select"),
        _pre("mutation.three_candidates_min_highest",
             f"TestSelectBestCandidate ({TEST_FILE}) criterion 2 among three candidates: the node whose most "
             "important victim has the least priority (n2) wins, wherever the dry run started",
             [ClusterAddNode(n1), ClusterAddNode(n2), ClusterAddNode(n3),
              *_bound((_pod("a", 800, MID), "n1"), (_pod("b", 800, LOW), "n2"), (_pod("c", 800, MID - 1), "n3")),
              CreatePod(_pod("p", 800, HIGH)), FailScheduling("p")], "preemption.select"),
        _pre("mutation.best_node_first_listed",
             f"TestSelectBestCandidate ({TEST_FILE}) criterion 2 with the best node listed first: n1's victim has "
             "the lower priority, so n1 is chosen whichever node the dry run reaches first and however the "
             "candidates are ordered before the criteria",
             [ClusterAddNode(n1), ClusterAddNode(n2),
              *_bound((_pod("a", 700, LOW), "n1"), (_pod("b", 700, MID), "n2")),
              CreatePod(_pod("p", 600, HIGH)), FailScheduling("p")], "preemption.select"),
        _pre("mutation.three_candidates_best_first_listed",
             f"TestSelectBestCandidate ({TEST_FILE}) criterion 2 among three candidates, the best (n1) listed first "
             "and the others tied on their victim's priority",
             [ClusterAddNode(n1), ClusterAddNode(n2), ClusterAddNode(n3),
              *_bound((_pod("a", 800, LOW), "n1"), (_pod("b", 800, MID), "n2"), (_pod("c", 800, MID), "n3")),
              CreatePod(_pod("p", 800, HIGH)), FailScheduling("p")], "preemption.select"),
        _pre("mutation.equal_priority_nomination_kept",
             "A preemption on a node keeps the nomination of a pod of equal priority there (only lower ones are "
             "cleared, getLowerPriorityNominatedPods): m stays nominated to n1 beside h",
             [ClusterAddNode(n1), *_bound((_pod("l1", 500, LOW), "n1"), (_pod("l2", 500, LOW, start_time=-5), "n1")),
              CreatePod(_pod("m", 500, MID)), FailScheduling("m"), CreatePod(_pod("h", 400, MID)),
              FailScheduling("h")], "preemption.success", "preemption.nomination_cleared"),
        _pre("mutation.nominated_node_unresolvable",
             "PodEligibleToPreemptOthers with a nominated node whose status is UnschedulableAndUnresolvable (no "
             "case of TestPodEligibleToPreemptOthers has it): the pod names n1, which is cordoned, so it may "
             "preempt, and does so on n2",
             [ClusterAddNode(n1), ClusterAddNode(n2),
              *_bound((_pod("v", 600, LOW), "n1"), (_pod("l2", 600, LOW), "n2")),
              *_cordon("n1"), CreatePod(_pod("p", 600, HIGH, nominated_node_name="n1")), FailScheduling("p")],
             "preemption.success"),
        _pre("mutation.nominated_pod_state_is_a_copy",
             "A pending pod nominated to node a (its own nominatedNodeName) counts in a's zone for a pod of lower "
             "priority (addGENominatedPods adds it with AddPod to a clone of the cycle state); node b of the other "
             "zone is judged with the cycle state as PreFilter left it, where zone2's two pods are one too many",
             [ClusterAddNode(node("a", labels=FrozenMap({"hostname": "a", "zone": "zone1"}))),
              ClusterAddNode(node("b", labels=FrozenMap({"hostname": "b", "zone": "zone2"}))),
              *_bound((_foo_pod("w1", LOW), "a"), (_foo_pod("w2", LOW), "b"), (_foo_pod("w3", LOW), "b")),
              CreatePod(_foo_pod("n", HIGH, nominated_node_name="a")),
              CreatePod(_foo_pod("q", LOW, topology_spread_constraints=(ZONE_SPREAD,))), SchedulePod("q", "a")],
             "preemption.nominated_held", "preemption.pre_filter_extensions"),
        _pre("mutation.affinity_only_by_victim",
             "The pod's required affinity is met on n1 only by a pod of lower priority: the dry run removes it "
             "(RemovePod lowers the affinity count) and n1 fails InterPodAffinity, so n2, where a pod of higher "
             "priority meets the term, is chosen though n1's victim started later",
             [*hosts, *_bound((_pod("c1", 100, LOW, labels=cache, start_time=0), "n1"),
                              (_pod("l1", 850, LOW, start_time=9), "n1"),
                              (_pod("c2", 100, HIGH, labels=cache), "n2"), (_pod("l2", 850, LOW, start_time=1), "n2")),
              CreatePod(_pod("p", 200, HIGH, pod_affinity=to_cache)), FailScheduling("p")],
             "preemption.success", "preemption.pre_filter_extensions"),
        _pre("mutation.anti_affinity_of_the_pod",
             "The pod's own required anti-affinity rejects n1, where a db pod of lower priority runs; without it "
             "(RemovePod) the pod fits, and added back (AddPod) it does not: it is the victim",
             [*hosts, *_bound((_pod("d1", 100, LOW, labels=db), "n1"), (_pod("l1", 100, LOW), "n1"),
                              (_pod("h2", 950, HIGH), "n2")),
              CreatePod(_pod("p", 200, HIGH, pod_anti_affinity=from_db)), FailScheduling("p"), *placed("p", "n1")],
             "preemption.reprieve", "preemption.pre_filter_extensions"),
    ]
