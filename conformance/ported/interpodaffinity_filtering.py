"""Ported from pkg/scheduler/framework/plugins/interpodaffinity/filtering_test.go: TestRequiredAffinitySingleNode
and TestRequiredAffinityMultipleNodes, case by case, with the status code the Go case expects on each node.

:func:`cases` keeps each case's objects and Go's expected codes; ``tests/spec/cycle/test_ported_affinity.py`` checks
the spec's Filter (:func:`spec.cycle.interpodaffinity.filter_node`) and refimpl's plugin against them, and
:func:`scenarios` makes each a cycle vector (:func:`conformance.ported.filter_cases.scenario`; ids
``cycle.ported.required_affinity_single_node.*`` and ``cycle.ported.required_affinity_multiple_nodes.*``). Go's
``defaultNamespace`` is "", and the cases with a namespace selector have the namespace lister of the test file's
``namespaces`` (:data:`conformance.ported.interpodaffinity_scoring.NAMESPACES`; their vectors create them first).
Not ported: TestRequiredAffinitySingleNode's two cases whose PreFilter fails on an invalid label value (the spec's
selectors do not validate label syntax). Cases that are not vectors are named in :data:`NOT_VECTORS`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

from conformance.ported.filter_cases import FilterCase, scenario, unique_ids
from conformance.ported.interpodaffinity_scoring import NAMESPACES
from conformance.ported.wrappers import make_node, make_pod, selector
from conformance.traces import Scenario
from spec.cycle.status import Code
from spec.frozenmap import FrozenMap
from spec.objects import SELECTOR_DOES_NOT_EXIST, SELECTOR_EXISTS, SELECTOR_IN, SELECTOR_NOT_IN, LabelSelector

FILE: Final = "framework/plugins/interpodaffinity/filtering_test.go"
SINGLE: Final = "TestRequiredAffinitySingleNode"
MULTIPLE: Final = "TestRequiredAffinityMultipleNodes"
U, UU = Code.UNSCHEDULABLE, Code.UNSCHEDULABLE_AND_UNRESOLVABLE


def single_node() -> list[FilterCase]:
    """TestRequiredAffinitySingleNode: ``pod`` (service=securityscan) on node1 (region r1, zone z11)."""
    service = {"service": "securityscan"}
    existing = make_pod().name("existing").labels(service).node("node1").obj()
    node1 = make_node().name("node1").labels({"region": "r1", "zone": "z11"}).obj()
    s1 = {"security": "S1"}

    def case(name: str, pod_: object, want: Code | None, pods: tuple[object, ...] = (existing,),
             namespaces: FrozenMap[str, FrozenMap[str, str]] = FrozenMap()) -> FilterCase:
        return FilterCase(SINGLE, name, pod_, pods, (node1,), {"node1": want}, namespaces)  # type: ignore[arg-type]

    team1 = selector(None, ("team", SELECTOR_IN, ("team1",)))
    securityscan = selector(None, ("service", SELECTOR_IN, ("securityscan", "value2")))

    def in_namespace(namespace: str) -> tuple[object, ...]:
        return (make_pod().name("existing").namespace(namespace).labels(service).node("node1").obj(),)

    def namespace_case(name: str, pod_: object, want: Code | None, namespace: str) -> FilterCase:
        return case(name, pod_, want, in_namespace(namespace), NAMESPACES)

    return [
        case("A pod that has no required pod affinity scheduling rules can schedule onto a node with no existing "
             "pods", make_pod().name("incoming").obj(), None, ()),
        case("satisfies with requiredDuringSchedulingIgnoredDuringExecution in PodAffinity using In operator that "
             "matches the existing pod",
             make_pod().name("incoming").labels(s1).pod_affinity_in("service", "region",
                                                                   ("securityscan", "value2")).obj(), None),
        case("satisfies the pod with requiredDuringSchedulingIgnoredDuringExecution in PodAffinity using not in "
             "operator in labelSelector that matches the existing pod",
             make_pod().name("incoming").labels(s1).pod_affinity_not_in("service", "region",
                                                                       ("securityscan3", "value3")).obj(), None),
        case("Doesn't satisfy the PodAffinity because of unmatching labelSelector with the existing pod",
             make_pod().name("incoming").labels(service).pod_affinity_in(
                 "service", "", ("antivirusscan", "value2")).obj(), UU),
        case("satisfies the PodAffinity and PodAntiAffinity with the existing pod",
             make_pod().name("incoming").labels(s1).pod_affinity_in("service", "region", ("securityscan", "value2"))
             .pod_anti_affinity_in("service", "node", ("antivirusscan", "value2")).obj(), None),
        case("satisfies the PodAffinity but doesn't satisfy the PodAntiAffinity with the existing pod",
             make_pod().name("incoming").labels(s1).pod_affinity_in("service", "region", ("securityscan", "value2"))
             .pod_anti_affinity_in("service", "zone", ("securityscan", "value2")).obj(), U),
        case("satisfies the PodAffinity and PodAntiAffinity but doesn't satisfy PodAntiAffinity symmetry with the "
             "existing pod",
             make_pod().name("incoming").labels(service).pod_affinity_in("service", "region",
                                                                        ("securityscan", "value2"))
             .pod_anti_affinity_in("service", "node", ("antivirusscan", "value2")).obj(), U,
             (make_pod().name("existing").labels(service).node("node1")
              .pod_anti_affinity_in("service", "zone", ("securityscan", "value2")).obj(),)),
        case("verify that PodAntiAffinity from existing pod is respected when pod has no AntiAffinity constraints. "
             "doesn't satisfy PodAntiAffinity symmetry with the existing pod",
             make_pod().name("incoming").labels(service).obj(), U,
             (make_pod().name("existing").node("node1").labels(service)
              .pod_anti_affinity_in("service", "zone", ("securityscan", "value2")).obj(),)),
        case("verify that PodAntiAffinity from existing pod is respected when pod has no AntiAffinity constraints. "
             "satisfy PodAntiAffinity symmetry with the existing pod",
             make_pod().name("incoming").labels(service).obj(), None,
             (make_pod().name("existing").node("node1").labels(service)
              .pod_anti_affinity_not_in("service", "zone", ("securityscan", "value2")).obj(),)),
        case("PodAntiAffinity symmetry check a1: incoming pod and existing pod partially match each other on "
             "AffinityTerms",
             make_pod().name("incoming").labels(service).pod_anti_affinity_exists("service", "zone")
             .pod_anti_affinity_exists("security", "zone").obj(), U,
             (make_pod().name("existing").node("node1").labels(s1)
              .pod_anti_affinity_exists("security", "zone").obj(),)),
        case("Does not satisfy the PodAffinity with labelSelector because of diff Namespace",
             make_pod().name("incoming").labels(s1)
             .pod_affinity("", securityscan, namespaces=("DiffNameSpace",)).obj(), UU,
             (make_pod().name("existing").namespace("ns").label("service", "securityscan").node("node1").obj(),)),
        case("satisfies the PodAffinity with different label Operators in multiple "
             "RequiredDuringSchedulingIgnoredDuringExecution ",
             make_pod().name("incoming").labels(s1)
             .pod_affinity("region", selector(None, ("service", SELECTOR_EXISTS, ()),
                                              ("wrongkey", SELECTOR_DOES_NOT_EXIST, ())))
             .pod_affinity("region", selector(None, ("service", SELECTOR_IN, ("securityscan",)),
                                              ("service", SELECTOR_NOT_IN, ("WrongValue",)))).obj(), None),
        case("The labelSelector requirements(items of matchExpressions) are ANDed, the pod cannot schedule onto the "
             "node because one of the matchExpression item don't match.",
             make_pod().name("incoming").labels(s1)
             .pod_affinity("region", selector(None, ("service", SELECTOR_EXISTS, ()),
                                              ("wrongkey", SELECTOR_DOES_NOT_EXIST, ())))
             .pod_affinity("region", selector(None, ("service", SELECTOR_IN, ("securityscan2",)),
                                              ("service", SELECTOR_NOT_IN, ("WrongValue",)))).obj(), UU),
        case("satisfies the PodAffinity and PodAntiAffinity and PodAntiAffinity symmetry with the existing pod",
             make_pod().name("incoming").labels(s1).pod_affinity_in("service", "region", ("securityscan", "value2"))
             .pod_anti_affinity_in("service", "node", ("antivirusscan", "value2")).obj(), None,
             (make_pod().name("existing").node("node1").labels(service)
              .pod_anti_affinity_in("service", "node", ("antivirusscan", "value2")).obj(),)),
        case("pod matches its own Label in PodAffinity and that matches the existing pod Labels",
             make_pod().name("incoming").labels(service)
             .pod_affinity_not_in("service", "region", ("securityscan", "value2")).obj(), UU,
             (make_pod().name("existing").label("service", "securityscan").node("node2").obj(),)),
        case("satisfies the PodAntiAffinity with existing pod but doesn't satisfy PodAntiAffinity symmetry with "
             "incoming pod",
             make_pod().name("incoming").labels(service).pod_anti_affinity_exists("service", "region")
             .pod_anti_affinity_exists("security", "region").obj(), U,
             (make_pod().name("existing").node("node1").labels(s1)
              .pod_anti_affinity_exists("security", "zone").obj(),)),
        case("PodAntiAffinity symmetry check a2: incoming pod and existing pod partially match each other on "
             "AffinityTerms",
             make_pod().name("incoming").labels(s1).pod_anti_affinity_exists("security", "zone").obj(), U,
             (make_pod().name("existing").node("node1").labels(service)
              .pod_anti_affinity_exists("service", "zone").pod_anti_affinity_exists("security", "zone").obj(),)),
        case("PodAntiAffinity symmetry check b1: incoming pod and existing pod partially match each other on "
             "AffinityTerms",
             make_pod().name("incoming").labels({"abc": "", "xyz": ""}).pod_anti_affinity_exists("abc", "zone")
             .pod_anti_affinity_exists("def", "zone").obj(), U,
             (make_pod().name("existing").node("node1").labels({"def": "", "xyz": ""})
              .pod_anti_affinity_exists("abc", "zone").pod_anti_affinity_exists("def", "zone").obj(),)),
        case("PodAntiAffinity symmetry check b2: incoming pod and existing pod partially match each other on "
             "AffinityTerms",
             make_pod().name("incoming").labels({"def": "", "xyz": ""}).pod_anti_affinity_exists("abc", "zone")
             .pod_anti_affinity_exists("def", "zone").obj(), U,
             (make_pod().name("existing").node("node1").labels({"abc": "", "xyz": ""})
              .pod_anti_affinity_exists("abc", "zone").pod_anti_affinity_exists("def", "zone").obj(),)),
        namespace_case("affinity with NamespaceSelector",
                       make_pod().name("incoming").labels(s1)
                       .pod_affinity("region", securityscan, namespace_selector=team1).obj(), None, "subteam1.team1"),
        namespace_case("affinity with non-matching NamespaceSelector",
                       make_pod().name("incoming").labels(s1)
                       .pod_affinity("region", securityscan, namespace_selector=team1).obj(), UU, "subteam1.team2"),
        namespace_case("anti-affinity with matching NamespaceSelector",
                       make_pod().name("incoming").namespace("subteam1.team1").labels(s1)
                       .pod_anti_affinity("zone", securityscan, namespace_selector=team1).obj(), U, "subteam2.team1"),
        namespace_case("anti-affinity with matching all NamespaceSelector",
                       make_pod().name("incoming").namespace("subteam1.team1").labels(s1)
                       .pod_anti_affinity("zone", securityscan, namespace_selector=LabelSelector()).obj(), U,
                       "subteam2.team1"),
        namespace_case("anti-affinity with non-matching NamespaceSelector",
                       make_pod().name("incoming").namespace("subteam1.team1").labels(s1)
                       .pod_anti_affinity("zone", securityscan, namespace_selector=team1).obj(), None,
                       "subteam1.team2"),
    ]


def multiple_nodes() -> list[FilterCase]:
    """TestRequiredAffinityMultipleNodes."""
    china = {"region": "China"}
    china_az1 = {"region": "China", "az": "az1"}
    india = {"region": "India"}

    def nodes(*specs: tuple[str, dict[str, str]]) -> tuple[object, ...]:
        return tuple(make_node().name(n).labels(labels).obj() for n, labels in specs)

    def case(name: str, pod_: object, pods: tuple[object, ...], nodes_: tuple[object, ...],
             want: tuple[Code | None, ...]) -> FilterCase:
        names = [n.name for n in nodes_]  # type: ignore[attr-defined]
        return FilterCase(MULTIPLE, name, pod_, pods, nodes_, dict(zip(names, want, strict=True)))  # type: ignore[arg-type]

    az = {"zone": "az1", "hostname": "h1"}, {"zone": "az2", "hostname": "h2"}
    return [
        case("A pod can be scheduled onto all the nodes that have the same topology key & label value with one of "
             "them has an existing pod that matches the affinity rules",
             make_pod().name("incoming").pod_affinity_in("foo", "region", ("bar",)).obj(),
             (make_pod().name("p1").node("node1").labels({"foo": "bar"}).obj(),),
             nodes(("node1", china), ("node2", china_az1), ("node3", india)), (None, None, UU)),
        case("The affinity rule is to schedule all of the pods of this collection to the same zone. The first pod "
             "of the collection should not be blocked from being scheduled onto any node, even there's no existing "
             "pod that matches the rule anywhere.",
             make_pod().name("incoming").labels({"foo": "bar", "service": "securityscan"})
             .pod_affinity_in("foo", "zone", ("bar",)).pod_affinity_in("service", "zone", ("securityscan",)).obj(),
             (make_pod().name("p1").node("nodeA").labels({"foo": "bar"}).obj(),),
             nodes(("nodeA", az[0]), ("nodeB", az[1])), (None, None)),
        case("The first pod of the collection can only be scheduled on nodes labelled with the requested topology "
             "keys",
             make_pod().name("incoming").labels({"foo": "bar", "service": "securityscan"})
             .pod_affinity_in("foo", "zone", ("bar",)).pod_affinity_in("service", "zone", ("securityscan",)).obj(),
             (make_pod().name("p1").node("nodeA").labels({"foo": "bar"}).obj(),),
             nodes(("nodeA", {"zoneLabel": "az1", "hostname": "h1"}),
                   ("nodeB", {"zoneLabel": "az2", "hostname": "h2"})),
             (UU, UU)),
        case("NodeA and nodeB have same topologyKey and label value. NodeA has an existing pod that matches the inter "
             "pod affinity rule. The pod can not be scheduled onto nodeA and nodeB.",
             make_pod().name("incoming").pod_anti_affinity_in("foo", "region", ("abc",)).obj(),
             (make_pod().name("p1").node("nodeA").labels({"foo": "abc"}).obj(),),
             nodes(("nodeA", {"region": "r1", "hostname": "nodeA"}), ("nodeB", {"region": "r1", "hostname": "nodeB"})),
             (U, U)),
        case("This test ensures that anti-affinity matches a pod when any term of the anti-affinity rule matches a "
             "pod.",
             make_pod().name("incoming").pod_anti_affinity_in("foo", "region", ("abc",))
             .pod_anti_affinity_in("service", "zone", ("securityscan",)).obj(),
             (make_pod().name("p1").node("nodeA").labels({"foo": "abc", "service": "securityscan"}).obj(),),
             nodes(("nodeA", {"region": "r1", "zone": "z1", "hostname": "nodeA"}),
                   ("nodeB", {"region": "r1", "zone": "z2", "hostname": "nodeB"})),
             (U, U)),
        *_multiple_nodes_more(nodes, case, china, china_az1, india),
    ]


def _multiple_nodes_more(nodes: Callable[..., tuple[object, ...]], case: Callable[..., FilterCase],
                         china: dict[str, str], china_az1: dict[str, str], india: dict[str, str]) -> list[FilterCase]:
    """TestRequiredAffinityMultipleNodes, its later cases: anti-affinity across regions and namespaces, topology
    keys no node has, and several terms matched by one pod or by several. Go's nameless existing pods are named
    ``p1``, ``p2`` here (the cache needs a UID)."""
    def zoned(*zones: str, region: str = "r1") -> tuple[object, ...]:
        return nodes(*((f"node{n}", {"region": region, "zone": z, "hostname": f"node{n}"})
                       for n, z in zip("ABC", zones, strict=False)))

    abc_china = nodes(("nodeA", china), ("nodeB", china_az1), ("nodeC", india))
    return [
        case("NodeA and nodeB have same topologyKey and label value. NodeA has an existing pod that matches the inter "
             "pod affinity rule. The pod can not be scheduled onto nodeA and nodeB but can be scheduled onto nodeC",
             make_pod().name("incoming").pod_anti_affinity_in("foo", "region", ("abc",)).obj(),
             (make_pod().name("p1").node("nodeA").labels({"foo": "abc"}).obj(),), abc_china, (U, U, None)),
        case("NodeA and nodeB have same topologyKey and label value. NodeA has an existing pod that matches the inter "
             "pod affinity rule. The pod can not be scheduled onto nodeA, nodeB, but can be scheduled onto nodeC "
             "(NodeC has an existing pod that match the inter pod affinity rule but in different namespace)",
             make_pod().name("incoming").namespace("NS1").labels({"foo": "123"})
             .pod_anti_affinity_in("foo", "region", ("bar",)).obj(),
             (make_pod().name("p1").node("nodeA").namespace("NS1").labels({"foo": "bar"}).obj(),
              make_pod().name("p2").node("nodeC").namespace("NS2").pod_anti_affinity_in("foo", "region", ("123",))
              .obj()), abc_china, (U, U, None)),
        case("Test existing pod's anti-affinity: if an existing pod has a term with invalid topologyKey, "
             "labelSelector of the term is firstly checked, and then topologyKey of the term is also checked",
             make_pod().name("incoming").label("foo", "").obj(),
             (make_pod().name("p1").node("nodeA").pod_anti_affinity_exists("foo", "invalid-node-label").obj(),),
             zoned("z1", "z1"), (None, None)),
        case("Test incoming pod's anti-affinity: even if labelSelector matches, we still check if topologyKey matches",
             make_pod().name("incoming").node("nodeA").pod_anti_affinity_exists("foo", "invalid-node-label").obj(),
             (make_pod().name("p1").node("nodeA").labels({"foo": ""}).obj(),), zoned("z1", "z1"), (None, None)),
        case("Test existing pod's anti-affinity: incoming pod wouldn't considered as a fit as it violates each "
             "existingPod's terms on all nodes",
             make_pod().name("incoming").label("foo", "").label("bar", "").obj(),
             (make_pod().name("p1").node("nodeA").pod_anti_affinity_exists("foo", "zone").obj(),
              make_pod().name("p2").node("nodeA").pod_anti_affinity_exists("bar", "region").obj()),
             zoned("z1", "z2"), (U, U)),
        case("Test incoming pod's anti-affinity: incoming pod wouldn't considered as a fit as it at least violates "
             "one anti-affinity rule of existingPod",
             make_pod().name("incoming").pod_anti_affinity_exists("foo", "zone")
             .pod_anti_affinity_exists("bar", "region").obj(),
             (make_pod().name("p1").node("nodeA").labels({"foo": ""}).obj(),
              make_pod().name("p2").node("nodeB").labels({"bar": ""}).obj()), zoned("z1", "z2"), (U, U)),
        case("Test existing pod's anti-affinity: only when labelSelector and topologyKey both match, it's counted as "
             "a single term match - case when one term has invalid topologyKey",
             make_pod().name("incoming").label("foo", "").label("bar", "").obj(),
             (make_pod().name("p1").node("nodeA").pod_anti_affinity_exists("foo", "invalid-node-label")
              .pod_anti_affinity_exists("bar", "zone").obj(),), zoned("z1", "z2"), (U, None)),
        case("Test incoming pod's anti-affinity: only when labelSelector and topologyKey both match, it's counted as "
             "a single term match - case when one term has invalid topologyKey",
             make_pod().name("incoming").pod_anti_affinity_exists("foo", "invalid-node-label")
             .pod_anti_affinity_exists("bar", "zone").obj(),
             (make_pod().name("podA").node("nodeA").labels({"foo": "", "bar": ""}).obj(),), zoned("z1", "z2"),
             (U, None)),
        case("Test existing pod's anti-affinity: only when labelSelector and topologyKey both match, it's counted as "
             "a single term match - case when all terms have valid topologyKey",
             make_pod().name("incoming").label("foo", "").label("bar", "").obj(),
             (make_pod().name("p1").node("nodeA").pod_anti_affinity_exists("foo", "region")
              .pod_anti_affinity_exists("bar", "zone").obj(),), zoned("z1", "z2"), (U, U)),
        case("Test incoming pod's anti-affinity: only when labelSelector and topologyKey both match, it's counted as "
             "a single term match - case when all terms have valid topologyKey",
             make_pod().name("incoming").pod_anti_affinity_exists("foo", "region")
             .pod_anti_affinity_exists("bar", "zone").obj(),
             (make_pod().name("p1").node("nodeA").labels({"foo": "", "bar": ""}).obj(),), zoned("z1", "z2"),
             (U, U)),
        case("Test existing pod's anti-affinity: existingPod on nodeA and nodeB has at least one anti-affinity term "
             "matches incoming pod, so incoming pod can only be scheduled to nodeC",
             make_pod().name("incoming").label("foo", "").label("bar", "").obj(),
             (make_pod().name("p1").node("nodeA").pod_anti_affinity_exists("foo", "zone")
              .pod_anti_affinity_exists("labelA", "zone").obj(),
              make_pod().name("p2").node("nodeB").pod_anti_affinity_exists("bar", "zone")
              .pod_anti_affinity_exists("labelB", "zone").obj()), zoned("z1", "z2", "z3"), (U, U, None)),
        case("Test incoming pod's affinity: firstly check if all affinityTerms match, and then check if all "
             "topologyKeys match",
             make_pod().name("incoming").pod_affinity_exists("foo", "region").pod_affinity_exists("bar", "zone").obj(),
             (make_pod().name("pod1").labels({"foo": "", "bar": ""}).node("nodeA").obj(),), zoned("z1", "z1"),
             (None, None)),
        case("Test incoming pod's affinity: firstly check if all affinityTerms match, and then check if all "
             "topologyKeys match, and the match logic should be satisfied on the same pod",
             make_pod().name("incoming").pod_affinity_exists("foo", "region").pod_affinity_exists("bar", "zone").obj(),
             (make_pod().name("pod1").node("nodeA").labels({"foo": ""}).obj(),
              make_pod().name("pod2").node("nodeB").labels({"bar": ""}).obj()), zoned("z1", "z2"), (UU, UU)),
    ]


def cases() -> list[FilterCase]:
    """Every ported filter case of this file."""
    return [*single_node(), *multiple_nodes()]


def _has_terms(case: FilterCase) -> bool:
    """Whether some pod of the case has (anti-)affinity (else InterPodAffinity skips: no ``pod-affinity`` label)."""
    return any(p.pod_affinity is not None or p.pod_anti_affinity is not None for p in (case.pod, *case.pods))


NOT_VECTORS: Final = {
    "pod matches its own Label in PodAffinity and that matches the existing pod Labels":
        "the existing pod is on node2, which is not in the case's snapshot: the scheduler cannot place it there",
    "Test incoming pod's anti-affinity: even if labelSelector matches, we still check if topologyKey matches":
        "the incoming pod already names nodeA (Spec.NodeName), which a pod the scheduler schedules does not",
}
"""The cases that are not cycle vectors, and why (``tests/conformance/test_ported.py`` keeps it exact)."""


def scenarios() -> list[Scenario]:
    """Each case as a cycle vector (:func:`conformance.ported.filter_cases.scenario`; :data:`NOT_VECTORS` names
    those that cannot be one)."""
    built = (scenario(c, FILE, *(("pod-affinity",) if _has_terms(c) else ())) for c in cases())
    return unique_ids([s for s in built if s is not None])
