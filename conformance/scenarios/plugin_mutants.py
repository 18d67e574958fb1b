"""Curated cycle vectors for the mutants of ``refimpl.scheduler.plugins.inter_pod_affinity`` and
``pod_topology_spread`` that the mutation run of 2026-11-30 found no vector killed (issue 24).

InterPodAffinity's PreFilter state counts, per topology pair, the pods matching a term
(``topologyToMatchedTermCount.update``, pkg/scheduler/framework/plugins/interpodaffinity/filtering.go, v1.35.8); the
count of a pair is the number of such pods in that domain, and preemption's dry run (``SelectVictimsOnNode``) lowers
it by one for each pod it removes (``RemovePod`` of the PreFilterExtensions). As everywhere, the expected outcomes
come from the spec (:func:`conformance.traces.expand`), never from here.
"""

from __future__ import annotations

from typing import Final

from conformance.operations import ClusterAddNode, CreatePod, CycleOperation, FailScheduling, SchedulePod
from conformance.scenarios.cycle import node, pod
from conformance.scenarios.preemption import HIGH, LOW, VERY_HIGH, _bound, _pod
from conformance.traces import ALL_PROFILES, Scenario
from spec.frozenmap import FrozenMap
from spec.objects import AffinityTerms, LabelSelector, PodAffinityTerm, TopologySpreadConstraint

FILTERING_GO: Final = "pkg/scheduler/framework/plugins/interpodaffinity/filtering.go"
SPREAD_COMMON_GO: Final = "pkg/scheduler/framework/plugins/podtopologyspread/common.go"


def _mutant(sid: str, description: str, ops: list[CycleOperation], *behaviours: str) -> Scenario:
    return Scenario(f"cycle.plugin_mutants.{sid}", description, ops, area="cycle",
                    behaviours=("preemption", *behaviours), profiles=ALL_PROFILES, preemption=True)


def anti_affinity_count_scenarios() -> list[Scenario]:
    """Two pods matching the incoming pod's anti-affinity term in one domain, only one of them a possible victim."""
    web = FrozenMap({"app": "web"})
    away_from_web = AffinityTerms(required_terms=(PodAffinityTerm(LabelSelector(web), topology_key="hostname"),))
    return [
        _mutant("anti_affinity_count_of_two",
                f"topologyToMatchedTermCount.update ({FILTERING_GO}) with two matching pods in one domain, then "
                "updateWithPod's removal of one (RemovePod in SelectVictimsOnNode's dry run): n1 runs a (low "
                "priority) and b (very high priority), both app=web; p (high priority) has a required anti-affinity "
                "against app=web per hostname, so n1 rejects it (Unschedulable). The count of (hostname, n1) is 2; "
                "the dry run removes a, the only pod of lower priority, leaving 1: n1 still rejects p, so n1 is no "
                "candidate and nothing is preempted; p stays pending and nominated nowhere. Were each update to "
                "set the count rather than add to it, the removal would leave -1, n1 would accept p and a would be "
                "evicted",
                [ClusterAddNode(node("n1", labels=FrozenMap({"hostname": "n1"}))),
                 *_bound((_pod("a", 100, LOW, labels=web), "n1"), (_pod("b", 100, VERY_HIGH, labels=web), "n1")),
                 CreatePod(_pod("p", 200, HIGH, pod_anti_affinity=away_from_web)), FailScheduling("p")],
                "preemption.insufficient", "preemption.pre_filter_extensions"),
    ]


def spread_empty_selector_scenarios() -> list[Scenario]:
    """A spread constraint whose labelSelector is empty (``{}``): Kubernetes counts no pod for it."""
    everything = TopologySpreadConstraint(1, "zone", "DoNotSchedule", LabelSelector(FrozenMap()))
    return [
        Scenario("cycle.plugin_mutants.spread_empty_selector_counts_nothing",
                 f"countPodsMatchSelector ({SPREAD_COMMON_GO}) returns 0 for a selector that is Empty(): an empty "
                 "labelSelector converts to labels.Everything(), so a constraint with one counts no pod in any "
                 "domain. Zone a has n1 and n2, zone b n3, no pod runs; p spreads over zones with maxSkew 1 and "
                 "that selector: every domain counts 0, p matches its own selector (selfMatchNum 1), 0 + 1 - 0 <= 1 "
                 "on every node, so all three are feasible. Were each node to count 1 instead, zone a would count "
                 "2 against b's 1 and n1 and n2 would be rejected",
                 [ClusterAddNode(node("n1", labels=FrozenMap({"zone": "a"}))),
                  ClusterAddNode(node("n2", labels=FrozenMap({"zone": "a"}))),
                  ClusterAddNode(node("n3", labels=FrozenMap({"zone": "b"}))),
                  CreatePod(pod("p", topology_spread_constraints=(everything,))), SchedulePod("p", "n1")],
                 area="cycle", behaviours=("topology-spread",), profiles=ALL_PROFILES),
    ]


def plugin_mutant_scenarios() -> list[Scenario]:
    """Every scenario of this module, for every profile."""
    return [*anti_affinity_count_scenarios(), *spread_empty_selector_scenarios()]
