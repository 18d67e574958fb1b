"""Curated cycle vectors for the mutants of ``refimpl.scheduler.plugins.inter_pod_affinity``,
``pod_topology_spread`` and ``labels`` that the mutation runs of 2026-11-30 found no vector killed (issue 24).

InterPodAffinity's PreFilter state counts, per topology pair, the pods matching a term
(``topologyToMatchedTermCount.update``, pkg/scheduler/framework/plugins/interpodaffinity/filtering.go, v1.35.8); the
count of a pair is the number of such pods in that domain, and preemption's dry run (``SelectVictimsOnNode``) lowers
it by one for each pod it removes (``RemovePod`` of the PreFilterExtensions). As everywhere, the expected outcomes
come from the spec (:func:`conformance.traces.expand`), never from here.
"""

from __future__ import annotations

from typing import Final

from conformance.operations import (
    ClusterAddNamespace,
    ClusterAddNode,
    CreatePod,
    CycleOperation,
    FailScheduling,
    SchedulePod,
)
from conformance.scenarios.cycle import node, placed, pod
from conformance.scenarios.preemption import HIGH, LOW, VERY_HIGH, _bound, _pod
from conformance.traces import ALL_PROFILES, Scenario
from spec.frozenmap import FrozenMap
from spec.objects import (
    AffinityTerms,
    Container,
    ContainerImage,
    LabelSelector,
    Namespace,
    Node,
    Pod,
    PodAffinityTerm,
    Taint,
    Toleration,
    TopologySpreadConstraint,
    WeightedPodAffinityTerm,
)
from spec.quantities import resource_list

FILTERING_GO: Final = "pkg/scheduler/framework/plugins/interpodaffinity/filtering.go"
SPREAD_COMMON_GO: Final = "pkg/scheduler/framework/plugins/podtopologyspread/common.go"
SPREAD_FILTERING_GO: Final = "pkg/scheduler/framework/plugins/podtopologyspread/filtering.go"
LEAST_ALLOCATED_GO: Final = "pkg/scheduler/framework/plugins/noderesources/least_allocated.go"
TYPES_GO: Final = "pkg/scheduler/framework/types.go"
IMAGE_LOCALITY_GO: Final = "pkg/scheduler/framework/plugins/imagelocality/image_locality.go"
IPA_SCORING_GO: Final = "pkg/scheduler/framework/plugins/interpodaffinity/scoring.go"
SPREAD_SCORING_GO: Final = "pkg/scheduler/framework/plugins/podtopologyspread/scoring.go"
TAINT_TOLERATION_GO: Final = "pkg/scheduler/framework/plugins/tainttoleration/taint_toleration.go"


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


def two_label_selector_scenarios() -> list[Scenario]:
    """An anti-affinity term whose labelSelector has two ``matchLabels`` and no expression: both must match."""
    front = FrozenMap({"app": "web", "tier": "front"})
    away_from_front = AffinityTerms(required_terms=(PodAffinityTerm(LabelSelector(front), topology_key="hostname"),))
    return [
        Scenario("cycle.plugin_mutants.anti_affinity_two_label_selector",
                 "LabelSelectorAsSelector of matchLabels {app: web, tier: front} (apimachinery "
                 "pkg/apis/meta/v1/helpers.go): a pod matches only if it carries both labels. n1 runs a (app=web, "
                 "tier=front), n2 runs b (app=web only), n3 nothing, each node its own hostname domain; p has a "
                 f"required anti-affinity against that selector per hostname ({FILTERING_GO}, "
                 "satisfyPodAntiAffinity), so InterPodAffinity rejects n1 alone and p may go to n2 or n3 (n3, the "
                 "emptier, scores higher). A selector matching on either label alone would reject n2 as well",
                 [*(ClusterAddNode(node(n, labels=FrozenMap({"hostname": n}))) for n in ("n1", "n2", "n3")),
                  *_bound((pod("a", labels=front), "n1"), (pod("b", labels=FrozenMap({"app": "web"})), "n2")),
                  CreatePod(pod("p", pod_anti_affinity=away_from_front)), SchedulePod("p", "n3")],
                 area="cycle", behaviours=("pod-affinity",), profiles=ALL_PROFILES),
    ]


def spread_uncounted_domain_scenarios() -> list[Scenario]:
    """A node whose domain for one constraint PreFilter never counted, because the node lacks another's key."""
    web = FrozenMap({"app": "web"})
    by_zone, by_rack = (TopologySpreadConstraint(1, key, "DoNotSchedule", LabelSelector(web))
                        for key in ("zone", "rack"))
    return [
        Scenario("cycle.plugin_mutants.spread_uncounted_domain_counts_zero",
                 f"PodTopologySpread's Filter ({SPREAD_FILTERING_GO}) takes a domain missing from "
                 "TpValueToMatchNum as 0 matching pods. p (app=web, 100m) spreads over zone, then rack, maxSkew 1, "
                 "selector app=web. n1 (zone a, rack r1) has 50m, too little for p: NodeResourcesFit rejects it, "
                 "but PreFilter counts it (zone a: 0, rack r1: 0). n2 (zone b) has no rack label, so PreFilter "
                 "(nodeLabelsMatchSpreadConstraints) counts nothing for it and zone b is missing from the counts. "
                 "On n2 the zone constraint passes (0 + 1 - 0 <= 1) and the rack label is missing: "
                 "UnschedulableAndUnresolvable, \"node(s) didn't match pod topology spread constraints (missing "
                 "required label)\". Were a missing domain counted as 1, the zone constraint would already fail "
                 "(1 + 1 - 0 > 1) with the plain, resolvable reason",
                 [ClusterAddNode(node("n1", cpu=50, labels=FrozenMap({"zone": "a", "rack": "r1"}))),
                  ClusterAddNode(node("n2", labels=FrozenMap({"zone": "b"}))),
                  CreatePod(pod("p", labels=web, topology_spread_constraints=(by_zone, by_rack))),
                  FailScheduling("p")],
                 area="cycle", behaviours=("topology-spread",), profiles=ALL_PROFILES),
    ]


def least_requested_capacity_one_scenarios() -> list[Scenario]:
    """A node with 1 millicore, scored for a pod that asks for 0 cpu explicitly (the non-zero default of 100m stands
    in only for a missing request)."""
    return [
        Scenario("cycle.plugin_mutants.least_requested_capacity_one",
                 f"leastRequestedScore ({LEAST_ALLOCATED_GO}) returns 0 only for a capacity of 0 or a request above "
                 "it: n1 has 1 millicore, n2 1,000; p asks for cpu 0 explicitly (getNonzeroRequests keeps an "
                 "explicit 0; the 100m default is for a missing request) and 64 MiB. On n1 the cpu score is "
                 "(1 - 0) * 100 / 1 = 100, as on n2, so NodeResourcesFit scores both nodes alike; a capacity of 1 "
                 "taken for none would score n1's cpu 0",
                 [ClusterAddNode(node("n1", cpu=1)), ClusterAddNode(node("n2")),
                  CreatePod(pod("p", cpu=0)), SchedulePod("p", "n1")],
                 area="cycle", behaviours=("resources",), profiles=ALL_PROFILES),
    ]


def anti_affinity_own_namespace_scenarios() -> list[Scenario]:
    """A required anti-affinity term that names its namespaces (by name or by a namespace selector) leaves out the
    owning pod's own namespace: only a term with neither defaults to it."""
    db = FrozenMap({"app": "db"})
    by_selector = PodAffinityTerm(LabelSelector(db), topology_key="hostname",
                                  namespace_selector=LabelSelector(FrozenMap({"team": "a"})))
    by_name = PodAffinityTerm(LabelSelector(db), topology_key="hostname", namespaces=("other",))
    n1 = ClusterAddNode(node("n1", labels=FrozenMap({"hostname": "n1"})))
    return [
        Scenario("cycle.plugin_mutants.anti_affinity_namespace_selector_skips_own_namespace",
                 f"getNamespacesFromPodAffinityTerm ({TYPES_GO}, newAffinityTerm) defaults a term's namespaces to "
                 "the owning pod's only when the term has neither namespaces nor a namespace selector. db (app=db) "
                 "runs on n1 in namespace default, labelled team=b; p, also in default, has a required "
                 "anti-affinity against app=db per hostname whose namespaceSelector is team=a. No namespace is "
                 "labelled team=a, so the term matches no pod and p fits n1. Were default added to the term's "
                 "namespaces as well, db would match and n1 would reject p",
                 [ClusterAddNamespace(Namespace("default", FrozenMap({"team": "b"}))), n1,
                  CreatePod(pod("db", labels=db)), *placed("db", "n1"),
                  CreatePod(pod("p", pod_anti_affinity=AffinityTerms(required_terms=(by_selector,)))),
                  SchedulePod("p", "n1")],
                 area="cycle", behaviours=("pod-affinity", "namespaces"), profiles=ALL_PROFILES),
        Scenario("cycle.plugin_mutants.anti_affinity_namespaces_skip_own_namespace",
                 f"getNamespacesFromPodAffinityTerm ({TYPES_GO}): a term that names its namespaces (here only "
                 "\"other\", without a namespace selector) counts pods of those namespaces alone. db (app=db) runs on "
                 "n1 in namespace default; p, also in default, has a required anti-affinity against app=db per "
                 "hostname in namespace other, where no pod runs: p fits n1. Were the term's namespaces the owning "
                 "pod's instead, db would match and n1 would reject p",
                 [n1, CreatePod(pod("db", labels=db)), *placed("db", "n1"),
                  CreatePod(pod("p", pod_anti_affinity=AffinityTerms(required_terms=(by_name,)))),
                  SchedulePod("p", "n1")],
                 area="cycle", behaviours=("pod-affinity",), profiles=ALL_PROFILES),
    ]


def image_name_scenarios() -> list[Scenario]:
    """``normalizedImageName``: a pod's image name gains ":latest" when no ':' follows its last '/'."""
    mib = 2**20

    def holding(image: str) -> list[CycleOperation]:
        def roomy(name: str, *images: str) -> Node:
            return Node(name, resource_list(cpu=4000, memory=8 * 1024 * mib, pods=110),
                        images=tuple(ContainerImage((i,), 300 * mib) for i in images))
        return [ClusterAddNode(roomy("held", image)), ClusterAddNode(roomy("bare"))]

    def wants(image: str) -> Pod:
        return Pod("p", "pod-p", containers=(Container("c", resource_list(cpu=100), image=image),))

    with_port = "registry.example:5000/app:v1"
    return [
        Scenario("cycle.plugin_mutants.image_locality_registry_port",
                 f"normalizedImageName ({IMAGE_LOCALITY_GO}) compares the last ':' with the last '/': "
                 f"{with_port} has its tag after the registry's port, so it is kept as it is and matches the image "
                 "node held reports (300 MiB): ImageLocality scores held above bare. Taking the first ':' (the "
                 "port's) for the tag's would name it ...:v1:latest, which no node has",
                 [*holding(with_port), CreatePod(wants(with_port)), SchedulePod("p", "held")],
                 area="cycle", profiles=ALL_PROFILES),
        Scenario("cycle.plugin_mutants.image_locality_bare_name",
                 f"normalizedImageName ({IMAGE_LOCALITY_GO}) appends :latest to a name with neither ':' nor '/' "
                 "(both LastIndex -1, and -1 <= -1): the pod's nginx is nginx:latest, the image node held reports "
                 "(300 MiB), so ImageLocality scores held above bare. A strict comparison would keep nginx, which "
                 "no node has",
                 [*holding("nginx:latest"), CreatePod(wants("nginx")), SchedulePod("p", "held")],
                 area="cycle", profiles=ALL_PROFILES),
    ]


def image_count_refresh_scenarios() -> list[Scenario]:
    """An entry refreshed by UpdateSnapshot freezes the image counts of now, seen through ImageLocality's score."""
    mib = 2**20
    image = "registry.example/app:v1"

    def roomy(name: str) -> Node:
        return Node(name, resource_list(cpu=4000, memory=8 * 1024 * mib, pods=110),
                    images=(ContainerImage((image,), 300 * mib),))

    wants = Pod("p2", "pod-p2", containers=(Container("c", resource_list(cpu=100), image=image),))
    return [
        Scenario("cycle.plugin_mutants.image_count_refreshed_with_the_entry",
                 "UpdateSnapshot clones a changed node's entry with the image summaries as they are now "
                 f"(NodeInfo.Snapshot freezes {{size, numNodes}}, {TYPES_GO}): p1's cycle snapshots a, the only "
                 "node holding the 300 MiB image (1 node of 1); b, holding it too, joins; p1's assumption changed "
                 "a, so p2's cycle clones a again and ImageLocality scores both nodes for 2 of 2 nodes. Were a's "
                 "frozen summaries of p1's cycle reused, a would score for 1 node of 2, below b",
                 [ClusterAddNode(roomy("a")), CreatePod(pod("p1")), SchedulePod("p1", "a"),
                  ClusterAddNode(roomy("b")), CreatePod(wants), SchedulePod("p2", "b")],
                 area="cycle", profiles=ALL_PROFILES),
    ]


def _spread_past_excluded_node(when_unsatisfiable: str) -> list[CycleOperation]:
    """The cluster of the two "constraint excludes node" vectors, up to p's creation: p (app=web) spreads over zone
    (nodeTaintsPolicy Honor) and over rack (Ignore, the default), both ``when_unsatisfiable``, maxSkew 1; n1 (zone a,
    rack r1) is tainted and runs w (app=web, tolerating), n2 is zone a, rack r1, n3 zone b, rack r2."""
    web = FrozenMap({"app": "web"})
    by_zone = TopologySpreadConstraint(1, "zone", when_unsatisfiable, LabelSelector(web), node_taints_policy="Honor")
    by_rack = TopologySpreadConstraint(1, "rack", when_unsatisfiable, LabelSelector(web))
    tainted = node("n1", labels=FrozenMap({"zone": "a", "rack": "r1"}), taints=(Taint("dedicated", "infra"),))
    tolerates = (Toleration("dedicated", "Equal", "infra", "NoSchedule"),)
    return [ClusterAddNode(tainted), ClusterAddNode(node("n2", labels=FrozenMap({"zone": "a", "rack": "r1"}))),
            ClusterAddNode(node("n3", labels=FrozenMap({"zone": "b", "rack": "r2"}))),
            CreatePod(pod("w", labels=web, tolerations=tolerates)), *placed("w", "n1"),
            CreatePod(pod("p", labels=web, topology_spread_constraints=(by_zone, by_rack)))]


def pre_score_skip_scenarios() -> list[Scenario]:
    """PreScore's walk over every node skips one node (or one constraint on it) and goes on with the rest."""
    web = FrozenMap({"app": "web"})
    near_web = WeightedPodAffinityTerm(10, PodAffinityTerm(LabelSelector(web), topology_key="hostname"))
    return [
        Scenario("cycle.plugin_mutants.affinity_score_skips_unlabelled_node",
                 f"InterPodAffinity's PreScore ({IPA_SCORING_GO}, processExistingPod) skips a node without labels "
                 "and goes on with the next: n1 has no labels and is listed first, n2 (hostname n2) runs w "
                 "(app=web); p prefers app=web per hostname (weight 10), so n2's pair scores 10 and p goes to n2, "
                 "although n1 is emptier. Were the walk to stop at n1, no pair would score and n1 would win",
                 [ClusterAddNode(node("n1")), ClusterAddNode(node("n2", labels=FrozenMap({"hostname": "n2"}))),
                  CreatePod(pod("w", labels=web)), *placed("w", "n2"),
                  CreatePod(pod("p", pod_affinity=AffinityTerms(preferred_terms=(near_web,)))),
                  SchedulePod("p", "n2")],
                 area="cycle", profiles=ALL_PROFILES),
        Scenario("cycle.plugin_mutants.spread_score_constraint_excludes_node",
                 f"PodTopologySpread's PreScore ({SPREAD_SCORING_GO}) counts a node for each constraint that "
                 "includes it, on its own: p (app=web) spreads over zone with nodeTaintsPolicy Honor and over rack "
                 "(Ignore, the default), both ScheduleAnyway. n1 (zone a, rack r1) is tainted and runs w (app=web, "
                 "tolerating); n2 is zone a, rack r1, n3 zone b, rack r2. The zone constraint leaves n1 out (p does "
                 "not tolerate its taint), the rack constraint counts w in r1, so n2 scores below n3. Were the "
                 "first constraint's exclusion to end n1's count, r1 would count 0 and n2 and n3 would score alike",
                 [*_spread_past_excluded_node("ScheduleAnyway"), SchedulePod("p", "n3")],
                 area="cycle", profiles=ALL_PROFILES),
    ]


def toleration_any_effect_scenarios() -> list[Scenario]:
    """A toleration with no effect tolerates a taint of every effect, PreferNoSchedule included."""
    prefer_not = node("n1", taints=(Taint("spot", "true", "PreferNoSchedule"),))
    any_effect = (Toleration("spot", "Exists", "", ""),)
    return [
        Scenario("cycle.plugin_mutants.toleration_without_effect_scores",
                 f"TaintToleration's PreScore ({TAINT_TOLERATION_GO}, getAllTolerationPreferNoSchedule) keeps the "
                 "tolerations whose effect is empty or PreferNoSchedule: p tolerates spot (Exists) with no effect, "
                 "so n1's PreferNoSchedule taint spot=true counts as tolerated and n1 scores as n2 does, and p may "
                 "go to either. Were only PreferNoSchedule tolerations kept, n1 would count one intolerable taint "
                 "and score below n2",
                 [ClusterAddNode(prefer_not), ClusterAddNode(node("n2")),
                  CreatePod(pod("p", tolerations=any_effect)), SchedulePod("p", "n1")],
                 area="cycle", profiles=ALL_PROFILES),
    ]


def pre_filter_scenarios() -> list[Scenario]:
    """PreFilter's counts: a node excluded by one spread constraint still counts for the next, and a pod whose
    namespace the cluster has no object for has no namespace labels (``GetNamespaceLabelsSnapshot``)."""
    web = FrozenMap({"app": "web"})
    away_from_web_in_prod = PodAffinityTerm(LabelSelector(web), topology_key="hostname",
                                            namespace_selector=LabelSelector(FrozenMap({"env": "prod"})))
    hosts = [ClusterAddNode(node(n, labels=FrozenMap({"hostname": n}))) for n in ("n1", "n2")]
    return [
        Scenario("cycle.plugin_mutants.spread_filter_constraint_excludes_node",
                 f"PodTopologySpread's PreFilter ({SPREAD_FILTERING_GO}, calPreFilterState) counts a node for each "
                 "constraint that includes it, on its own: p (app=web) spreads over zone with nodeTaintsPolicy Honor "
                 "and over rack (Ignore, the default), both DoNotSchedule, maxSkew 1. n1 (zone a, rack r1) is "
                 "tainted and runs w (app=web, tolerating); n2 is zone a, rack r1, n3 zone b, rack r2. The zone "
                 "constraint leaves n1 out, the rack constraint counts w in r1: on n2, 1 + 1 - 0 > 1, so only n3 "
                 "fits p. Were the first constraint's exclusion to end n1's count, r1 would count 0 and n2 would fit",
                 [*_spread_past_excluded_node("DoNotSchedule"), SchedulePod("p", "n3")],
                 area="cycle", profiles=ALL_PROFILES),
        Scenario("cycle.plugin_mutants.anti_affinity_namespace_without_object",
                 f"InterPodAffinity's PreFilter ({FILTERING_GO}) matches existing pods' anti-affinity terms "
                 "against the labels of the incoming pod's namespace, and a namespace the cluster has no object for "
                 "has none (GetNamespaceLabelsSnapshot returns an empty set): guard, in namespace default on n1, "
                 "keeps app=web pods of namespaces labelled env=prod off its host; web (app=web) is in namespace "
                 "shop, of which there is no object, so guard's term does not select it and n1 fits web as n2 does",
                 [*hosts, CreatePod(pod("guard", pod_anti_affinity=AffinityTerms(
                     required_terms=(away_from_web_in_prod,)))), *placed("guard", "n1"),
                  CreatePod(pod("web", labels=web, namespace="shop")), SchedulePod("web", "n2")],
                 area="cycle", profiles=ALL_PROFILES),
    ]


def plugin_mutant_scenarios() -> list[Scenario]:
    """Every scenario of this module, for every profile."""
    return [*anti_affinity_count_scenarios(), *spread_empty_selector_scenarios(), *two_label_selector_scenarios(),
            *spread_uncounted_domain_scenarios(), *least_requested_capacity_one_scenarios(),
            *anti_affinity_own_namespace_scenarios(), *image_name_scenarios(), *image_count_refresh_scenarios(),
            *pre_score_skip_scenarios(),
            *toleration_any_effect_scenarios(), *pre_filter_scenarios()]
