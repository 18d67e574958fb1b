"""Ported from pkg/scheduler/framework/plugins/interpodaffinity/scoring_test.go: TestPreferredAffinity and
TestPreferredAffinityWithHardPodAffinitySymmetricWeight, case by case, with the scores Go expects after
NormalizeScore (or ``Skip`` from PreScore).

Go's pods have the namespace "" unless a case names one, and the test's namespace lister holds :data:`NAMESPACES`.
Go names a repeated subtest name ``name#01``; the two repeated names here get that suffix. Not ported: "invalid
Affinity fails PreScore" and "invalid AntiAffinity fails PreScore" (a label value the API server rejects; the spec's
selectors do not validate values).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Final

from conformance.ported.score_cases import ScoreCase, named
from conformance.ported.score_cases import scenarios as score_scenarios
from conformance.ported.wrappers import selector
from conformance.traces import Scenario
from spec.frozenmap import FrozenMap
from spec.objects import (
    SELECTOR_DOES_NOT_EXIST,
    SELECTOR_EXISTS,
    SELECTOR_IN,
    SELECTOR_NOT_IN,
    AffinityTerms,
    Container,
    LabelSelector,
    Node,
    Pod,
    PodAffinityTerm,
    WeightedPodAffinityTerm,
)
from spec.quantities import resource_list

FILE: Final = "framework/plugins/interpodaffinity/scoring_test.go"
PREFERRED_AFFINITY: Final = "TestPreferredAffinity"
HARD_SYMMETRIC_WEIGHT: Final = "TestPreferredAffinityWithHardPodAffinitySymmetricWeight"
MAX: Final = 100
"""``fwk.MaxNodeScore``."""

_T1: Final = FrozenMap({"team": "team1"})
_T2: Final = FrozenMap({"team": "team2"})
NAMESPACES: Final = FrozenMap({"subteam1.team1": _T1, "subteam2.team1": _T1, "subteam1.team2": _T2,
                               "subteam2.team2": _T2})
"""The test file's ``namespaces``."""

Affinity = tuple[AffinityTerms | None, AffinityTerms | None]
"""A ``v1.Affinity``: its PodAffinity and PodAntiAffinity."""
NO_AFFINITY: Final[Affinity] = (None, None)


def _security(op: str, *values: str) -> LabelSelector:
    return selector(None, ("security", op, tuple(values)))


def _preferred(weight: int, label_selector: LabelSelector, topology_key: str, namespaces: tuple[str, ...] = (),
               namespace_selector: LabelSelector | None = None) -> WeightedPodAffinityTerm:
    return WeightedPodAffinityTerm(weight, PodAffinityTerm(label_selector, namespaces, topology_key,
                                                           namespace_selector))


def _affinity(*preferred: WeightedPodAffinityTerm) -> AffinityTerms:
    return AffinityTerms(preferred_terms=preferred)


_TEAM1: Final = selector(None, ("team", SELECTOR_IN, ("team1",)))
STAY_WITH_S1_IN_REGION: Final[Affinity] = (_affinity(_preferred(5, _security(SELECTOR_IN, "S1"), "region")), None)
STAY_WITH_S2_IN_REGION: Final[Affinity] = (_affinity(_preferred(6, _security(SELECTOR_IN, "S2"), "region")), None)
AFFINITY3: Final[Affinity] = (_affinity(
    _preferred(8, selector(None, ("security", SELECTOR_NOT_IN, ("S1",)), ("security", SELECTOR_IN, ("S2",))),
               "region"),
    _preferred(2, selector(None, ("security", SELECTOR_EXISTS, ()), ("wrongkey", SELECTOR_DOES_NOT_EXIST, ())),
               "region")), None)
HARD_AFFINITY: Final[Affinity] = (AffinityTerms(required_terms=(
    PodAffinityTerm(_security(SELECTOR_IN, "S1", "value2"), topology_key="region"),
    PodAffinityTerm(selector(None, ("security", SELECTOR_EXISTS, ()), ("wrongkey", SELECTOR_DOES_NOT_EXIST, ())),
                    topology_key="region"))), None)
AWAY_FROM_S1_IN_AZ: Final[Affinity] = (None, _affinity(_preferred(5, _security(SELECTOR_IN, "S1"), "az")))
AWAY_FROM_S2_IN_AZ: Final[Affinity] = (None, _affinity(_preferred(5, _security(SELECTOR_IN, "S2"), "az")))
STAY_WITH_S1_IN_REGION_AWAY_FROM_S2_IN_AZ: Final[Affinity] = (
    _affinity(_preferred(8, _security(SELECTOR_IN, "S1"), "region")),
    _affinity(_preferred(5, _security(SELECTOR_IN, "S2"), "az")))
AFFINITY_NAMESPACE_SELECTOR: Final[Affinity] = (
    _affinity(_preferred(5, _security(SELECTOR_IN, "S1"), "region", ("subteam2.team2",), _TEAM1)), None)
ANTI_AFFINITY_NAMESPACE_SELECTOR: Final[Affinity] = (
    None, _affinity(_preferred(5, _security(SELECTOR_IN, "S1"), "region", ("subteam2.team2",), _TEAM1)))
HARD_POD_AFFINITY: Final[Affinity] = (AffinityTerms(required_terms=(
    PodAffinityTerm(selector(None, ("service", SELECTOR_IN, ("S1",))), ("", "subteam2.team2"), "region", _TEAM1),)),
    None)
"""TestPreferredAffinityWithHardPodAffinitySymmetricWeight's ``hardPodAffinity``."""

CHINA: Final = {"region": "China"}
INDIA: Final = {"region": "India"}
AZ1: Final = {"az": "az1"}
AZ2: Final = {"az": "az2"}
CHINA_AZ1: Final = {"region": "China", "az": "az1"}
S1: Final = {"security": "S1"}
S2: Final = {"security": "S2"}


def pod(labels: dict[str, str] | None = None, node: str = "", affinity: Affinity = NO_AFFINITY,
        namespace: str = "") -> Pod:
    """A ``&v1.Pod{...}`` of the test: its labels, node, affinity and namespace (unnamed: :func:`named` names it)."""
    return Pod("", namespace=namespace, node_name=node, labels=FrozenMap(labels or {}), containers=(Container("c"),),
               pod_affinity=affinity[0], pod_anti_affinity=affinity[1])


def nodes(*labels: dict[str, str]) -> tuple[Node, ...]:
    """``node1``, ``node2``, ... with these labels (and room for the pods, as the Go test's nodes need none)."""
    return tuple(Node(f"node{i}", resource_list(cpu=32000, memory=64 * 2**30, pods=110), labels=FrozenMap(lab))
                 for i, lab in enumerate(labels, start=1))


def _case(test: str, name: str, incoming: Pod, pods: tuple[Pod, ...], nodes_: tuple[Node, ...],
          want: tuple[int, ...] | None, **args: object) -> ScoreCase:
    wanted = None if want is None else dict(zip((n.name for n in nodes_), want, strict=True))
    case = ScoreCase(test, name, replace(incoming, uid="incoming", name="incoming"), named(pods), nodes_, wanted,
                     namespaces=NAMESPACES)
    return replace(case, **args)  # type: ignore[arg-type]


def preferred_affinity() -> list[ScoreCase]:
    """TestPreferredAffinity."""
    t = PREFERRED_AFFINITY
    three = nodes(CHINA, INDIA, AZ1)
    in_ns = "subteam1.team1"
    return [
        _case(t, "all nodes are same priority as Affinity is nil", pod(S1), (), three, None),
        _case(t, "Affinity: pod that matches topology key & pods in nodes will get high score comparing to others"
                 "which doesn't match either pods in nodes or in topology key",
              pod(S1, affinity=STAY_WITH_S1_IN_REGION), (pod(S1, "node1"), pod(S2, "node2"), pod(S1, "node3")),
              three, (MAX, 0, 0)),
        _case(t, "All the nodes that have the same topology key & label value with one of them has an existing pod "
                 "that match the affinity rules, have the same score",
              pod(affinity=STAY_WITH_S1_IN_REGION), (pod(S1, "node1"),), nodes(CHINA, CHINA_AZ1, INDIA),
              (MAX, MAX, 0)),
        _case(t, "Affinity: nodes in one region has more matching pods comparing to other region, so the region "
                 "which has more matches will get high score",
              pod(S1, affinity=STAY_WITH_S2_IN_REGION),
              (pod(S2, "node1"), pod(S2, "node1"), pod(S2, "node2"), pod(S2, "node3"), pod(S2, "node4"),
               pod(S2, "node5")),
              nodes(CHINA, INDIA, CHINA, CHINA, INDIA), (MAX, 0, MAX, MAX, 0)),
        _case(t, "Affinity: different Label operators and values for pod affinity scheduling preference, including "
                 "some match failures ",
              pod(S1, affinity=AFFINITY3), (pod(S1, "node1"), pod(S2, "node2"), pod(S1, "node3")), three,
              (20, MAX, 0)),
        _case(t, "Affinity symmetry: considered only the preferredDuringSchedulingIgnoredDuringExecution in pod "
                 "affinity symmetry",
              pod(S2), (pod(S1, "node1", STAY_WITH_S1_IN_REGION), pod(S2, "node2", STAY_WITH_S2_IN_REGION)), three,
              (0, MAX, 0)),
        _case(t, "Affinity symmetry with namespace selector",
              pod(S1, namespace=in_ns),
              (pod(S1, "node1", AFFINITY_NAMESPACE_SELECTOR), pod(S2, "node2", STAY_WITH_S2_IN_REGION)), three,
              (MAX, 0, 0)),
        _case(t, "AntiAffinity symmetry with namespace selector",
              pod(S1, namespace=in_ns),
              (pod(S1, "node1", ANTI_AFFINITY_NAMESPACE_SELECTOR), pod(S2, "node2", STAY_WITH_S2_IN_REGION)), three,
              (0, MAX, MAX)),
        _case(t, "Affinity symmetry: considered RequiredDuringSchedulingIgnoredDuringExecution in pod affinity "
                 "symmetry",
              pod(S1), (pod(S1, "node1", HARD_AFFINITY), pod(S2, "node2", HARD_AFFINITY)), three, (MAX, MAX, 0)),
        _case(t, "Anti Affinity: pod that does not match existing pods in node will get high score ",
              pod(S1, affinity=AWAY_FROM_S1_IN_AZ), (pod(S1, "node1"), pod(S2, "node2")), nodes(AZ1, CHINA),
              (0, MAX)),
        _case(t, "Anti Affinity: pod that does not match topology key & match the pods in nodes will get higher "
                 "score comparing to others ",
              pod(S1, affinity=AWAY_FROM_S1_IN_AZ), (pod(S1, "node1"), pod(S1, "node2")), nodes(AZ1, CHINA),
              (0, MAX)),
        _case(t, "Anti Affinity: one node has more matching pods comparing to other node, so the node which has more "
                 "unmatches will get high score",
              pod(S1, affinity=AWAY_FROM_S1_IN_AZ), (pod(S1, "node1"), pod(S1, "node1"), pod(S2, "node2")),
              nodes(AZ1, INDIA), (0, MAX)),
        _case(t, "Anti Affinity symmetry: the existing pods in node which has anti affinity match will get high "
                 "score",
              pod(S2), (pod(S1, "node1", AWAY_FROM_S2_IN_AZ), pod(S2, "node2", AWAY_FROM_S1_IN_AZ)),
              nodes(AZ1, AZ2), (0, MAX)),
        _case(t, "Affinity and Anti Affinity: considered only preferredDuringSchedulingIgnoredDuringExecution in both "
                 "pod affinity & anti affinity",
              pod(S1, affinity=STAY_WITH_S1_IN_REGION_AWAY_FROM_S2_IN_AZ), (pod(S1, "node1"), pod(S1, "node2")),
              nodes(CHINA, AZ1), (MAX, 0)),
        _case(t, "Affinity and Anti Affinity: considering both affinity and anti-affinity, the pod to schedule and "
                 "existing pods have the same labels",
              pod(S1, affinity=STAY_WITH_S1_IN_REGION_AWAY_FROM_S2_IN_AZ),
              (pod(S1, "node1"), pod(S1, "node1"), pod(S1, "node2"), pod(S1, "node3"), pod(S1, "node3"),
               pod(S1, "node4"), pod(S1, "node5")),
              nodes(CHINA_AZ1, INDIA, CHINA, CHINA, INDIA), (MAX, 0, MAX, MAX, 0)),
        _case(t, "Affinity and Anti Affinity and symmetry: considered only preferredDuringSchedulingIgnoredDuring"
                 "Execution in both pod affinity & anti affinity & symmetry",
              pod(S1, affinity=STAY_WITH_S1_IN_REGION_AWAY_FROM_S2_IN_AZ),
              (pod(S1, "node1"), pod(S2, "node2"), pod(None, "node3", STAY_WITH_S1_IN_REGION_AWAY_FROM_S2_IN_AZ),
               pod(None, "node4", AWAY_FROM_S1_IN_AZ)),
              nodes(CHINA, AZ1, INDIA, AZ2), (MAX, 0, MAX, 0)),
        _case(t, "Avoid panic when partial nodes in a topology don't have pods with affinity",
              pod(S1), (pod(S1, "node1"), pod(None, "node2", STAY_WITH_S1_IN_REGION_AWAY_FROM_S2_IN_AZ)),
              nodes(CHINA, CHINA), (0, 0)),
        _case(t, "Affinity with pods matching NamespaceSelector",
              pod(S1, affinity=AFFINITY_NAMESPACE_SELECTOR, namespace=in_ns),
              (pod(S1, "node1", namespace=in_ns), pod(S1, "node1", namespace=in_ns),
               pod(S1, "node1", namespace="subteam1.team2"), pod(S1, "node2", namespace="subteam2.team1")),
              nodes(CHINA, INDIA), (MAX, 0)),
        _case(t, "Affinity with pods matching both NamespaceSelector and Namespaces fields",
              pod(S1, affinity=AFFINITY_NAMESPACE_SELECTOR, namespace=in_ns),
              (pod(S1, "node1", namespace=in_ns), pod(S1, "node1", namespace=in_ns),
               pod(S1, "node1", namespace="subteam2.team2"), pod(S1, "node2", namespace="subteam2.team1")),
              nodes(CHINA, INDIA), (MAX, 0)),
        _case(t, "Affinity with pods matching NamespaceSelector#01",
              pod(S1, affinity=ANTI_AFFINITY_NAMESPACE_SELECTOR, namespace=in_ns),
              (pod(S1, "node1", namespace=in_ns), pod(S1, "node1", namespace=in_ns),
               pod(S1, "node1", namespace="subteam1.team2"), pod(S1, "node2", namespace="subteam2.team1")),
              nodes(CHINA, INDIA), (0, MAX)),
        _case(t, "Affinity with pods matching both NamespaceSelector and Namespaces fields#01",
              pod(S1, affinity=ANTI_AFFINITY_NAMESPACE_SELECTOR, namespace=in_ns),
              (pod(S1, "node1", namespace=in_ns), pod(S1, "node1", namespace=in_ns),
               pod(S1, "node1", namespace="subteam2.team2"), pod(S1, "node2", namespace="subteam2.team1")),
              nodes(CHINA, INDIA), (0, MAX)),
        _case(t, "Ignore preferred terms of existing pods",
              pod(S2), (pod(S1, "node1", STAY_WITH_S1_IN_REGION_AWAY_FROM_S2_IN_AZ),
                        pod(S2, "node2", STAY_WITH_S2_IN_REGION)),
              nodes(CHINA, INDIA), None, ignore_preferred_terms_of_existing_pods=True),
        _case(t, "Do not ignore preferred terms of existing pods",
              pod(S2), (pod(S1, "node1", STAY_WITH_S1_IN_REGION_AWAY_FROM_S2_IN_AZ),
                        pod(S2, "node2", STAY_WITH_S2_IN_REGION)),
              nodes(CHINA, INDIA), (0, MAX)),
        _case(t, "No nodes to score", pod(S2), (), (), None),
    ]


def hard_pod_affinity_symmetric_weight() -> list[ScoreCase]:
    """TestPreferredAffinityWithHardPodAffinitySymmetricWeight: existing pods whose required affinity term the
    incoming pod matches add ``hardPodAffinityWeight`` to their topology pairs."""
    t = HARD_SYMMETRIC_WEIGHT
    service = {"service": "S1"}
    existing = (pod(None, "node1", HARD_POD_AFFINITY), pod(None, "node2", HARD_POD_AFFINITY))
    three = nodes(CHINA, INDIA, AZ1)
    return [
        _case(t, "with default weight", pod(service), existing, three, (MAX, MAX, 0)),
        _case(t, "with zero weight", pod(service), existing, three, None, hard_pod_affinity_weight=0),
        _case(t, "with no matching namespace", pod(service, namespace="subteam1.team2"), existing, three, None),
        _case(t, "with matching NamespaceSelector", pod(service, namespace="subteam1.team1"), existing, three,
              (MAX, MAX, 0)),
        _case(t, "with matching Namespaces", pod(service, namespace="subteam2.team2"), existing, three,
              (MAX, MAX, 0)),
    ]


def cases() -> list[ScoreCase]:
    """Every ported score case of this file."""
    return [*preferred_affinity(), *hard_pod_affinity_symmetric_weight()]


_ARGUMENTS: Final = "non-default plugin arguments (the cycle runs the default profile's)"
_UNPLACEABLE: Final = ("the existing pods require a service=S1 pod in their region, and none exists, nor are they one: "
                       "the scheduler would never place them (Go's test puts them there directly)")
NOT_VECTORS: Final = {
    "Affinity symmetry: considered RequiredDuringSchedulingIgnoredDuringExecution in pod affinity symmetry":
        "the existing pod on node2 requires an S1 pod in its region, and none is there: the scheduler would never "
        "place it (Go's test puts it there directly)",
    "Ignore preferred terms of existing pods": _ARGUMENTS + ": ignorePreferredTermsOfExistingPods",
    "No nodes to score": "no node: the cycle fails before PreScore",
    "with default weight": _UNPLACEABLE,
    "with zero weight": _ARGUMENTS + ": hardPodAffinityWeight 0",
    "with no matching namespace": _UNPLACEABLE,
    "with matching NamespaceSelector": _UNPLACEABLE,
    "with matching Namespaces": _UNPLACEABLE,
}
"""The cases that are not cycle vectors, and why (``tests/conformance/test_ported.py`` keeps it exact)."""


def scenarios() -> list[Scenario]:
    """Each case that can be a cycle vector (:func:`conformance.ported.score_cases.scenario` says which cannot)."""
    return score_scenarios(cases(), FILE, "InterPodAffinity")
