"""InterPodAffinity: where a pod may go, and where it prefers to go, given the pods already placed.

The default plugin InterPodAffinity (pkg/scheduler/framework/plugins/interpodaffinity, v1.35): filtering.go's
PreFilter and Filter, scoring.go's PreScore, Score and NormalizeScore, plugin.go's namespace handling, over the
processed terms of k8s.io/kube-scheduler framework/types.go (``AffinityTerm``, ``NewPodInfo``).

**Filter.** A node passes when, for the pod being scheduled (the *incoming* pod):

1. *its required affinity*: the node has every term's topology key, and in each term's topology domain (the nodes
   sharing the node's value for the key) some existing pod matches **all** the terms, or no existing pod anywhere
   matches all of them and the incoming pod matches all its own terms (the first pod of a group that wants to be
   together); else ``UnschedulableAndUnresolvable``;
2. *its required anti-affinity*: no term's topology domain of the node holds an existing pod the term matches;
   else ``Unschedulable`` (evicting the matching pods would help);
3. *the existing pods' required anti-affinity*: no existing pod has a required anti-affinity term that matches the
   incoming pod and whose topology domain holds the node; else ``Unschedulable``.

A term matches a pod when the pod's namespace is among the term's namespaces (the owner's own when the term names
none and has no namespace selector) or the term's namespace selector selects the pod's namespace's labels, and the
term's label selector selects the pod's labels. The incoming pod's selectors are resolved against the namespaces
that exist (``mergeAffinityTermNamespacesIfNotEmpty``); an existing pod's selector is matched against the labels
of the incoming pod's namespace.

**Score.** Over the topology pairs of the nodes of existing pods: + weight for each of the incoming pod's preferred
affinity terms an existing pod matches, - weight for each preferred anti-affinity term; + ``hardPodAffinityWeight``
for each required affinity term of an existing pod the incoming pod matches; + or - weight for each preferred
(anti-)affinity term of an existing pod the incoming pod matches. A node's score is the sum over its labels;
NormalizeScore maps the scores linearly onto 0..100 (min to 0, max to 100).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Final

from spec.cache.nodeinfo import NodeInfo
from spec.cache.snapshot import Snapshot
from spec.cycle.status import Code, FilterRejection
from spec.frozenmap import FrozenMap
from spec.objects import (
    SELECTOR_IN,
    SELECTOR_NOT_IN,
    AffinityTerms,
    LabelSelector,
    LabelSelectorRequirement,
    Node,
    Pod,
    PodAffinityTerm,
    selector_matches,
)
from spec.valuetypes import replace

NAME: Final = "InterPodAffinity"
ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH: Final = "node(s) didn't satisfy existing pods anti-affinity rules"
"""``ErrReasonExistingAntiAffinityRulesNotMatch`` (filtering.go)."""
ERR_REASON_AFFINITY_RULES_NOT_MATCH: Final = "node(s) didn't match pod affinity rules"
"""``ErrReasonAffinityRulesNotMatch`` (filtering.go)."""
ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH: Final = "node(s) didn't match pod anti-affinity rules"
"""``ErrReasonAntiAffinityRulesNotMatch`` (filtering.go)."""
DEFAULT_HARD_POD_AFFINITY_WEIGHT: Final = 1
"""``InterPodAffinityArgs.HardPodAffinityWeight``'s default (pkg/scheduler/apis/config/v1/defaults.go)."""
MAX_NODE_SCORE: Final = 100
"""``fwk.MaxNodeScore``."""

NamespaceLabels = Mapping[str, FrozenMap[str, str]]
"""The namespace lister: each existing namespace's labels, by name."""
Namespaces = FrozenMap[str, FrozenMap[str, str]]
"""The namespace lister as a value: what the cycle's cluster holds (:attr:`spec.cycle.cycle.Cluster.namespaces`), and
what the cycle's remembered PreFilter and PreScore take (hashable)."""
NO_NAMESPACES: Final[Namespaces] = FrozenMap()
"""No namespace exists: a term's non-empty namespace selector selects none."""
TopologyPair = tuple[str, str]
"""``topologyPair``: a topology key and a node's value for it."""


# ============================================================================================
# Processed terms (framework/types.go)
# ============================================================================================


@dataclass(frozen=True)
class AffinityTerm:
    """``fwk.AffinityTerm``: a ``v1.PodAffinityTerm`` with its namespaces resolved for its owner.

    ``namespace_selector`` None is ``labels.Nothing()`` (a nil selector, or one merged into ``namespaces``).
    """

    namespaces: frozenset[str]
    selector: LabelSelector | None
    topology_key: str
    namespace_selector: LabelSelector | None

    def matches(self, pod: Pod, namespace_labels: Mapping[str, str]) -> bool:
        """``AffinityTerm.Matches``: the pod's namespace is one of the term's (or its labels, ``namespace_labels``,
        are selected), and the pod's labels are selected."""
        if pod.namespace in self.namespaces or selector_matches(self.namespace_selector, namespace_labels):
            return selector_matches(self.selector, pod.labels)
        return False


@dataclass(frozen=True)
class WeightedAffinityTerm:
    """``fwk.WeightedAffinityTerm``."""

    term: AffinityTerm
    weight: int


def affinity_term(owner: Pod, term: PodAffinityTerm) -> AffinityTerm:
    """``newAffinityTerm``: the namespaces are the term's, or the owner's own if the term names none and has no
    namespace selector (``getNamespacesFromPodAffinityTerm``).

    Kubernetes: `newAffinityTerm` (staging/src/k8s.io/kube-scheduler/framework/types.go)
    Kubernetes: `getNamespacesFromPodAffinityTerm` (staging/src/k8s.io/kube-scheduler/framework/types.go)
    """
    if not term.namespaces and term.namespace_selector is None:
        namespaces = frozenset({owner.namespace})
    else:
        namespaces = frozenset(term.namespaces)
    return AffinityTerm(namespaces, term.label_selector, term.topology_key, term.namespace_selector)


def _required(affinity: AffinityTerms | None, owner: Pod) -> tuple[AffinityTerm, ...]:
    if affinity is None:
        return ()
    return tuple(affinity_term(owner, t) for t in affinity.required_affinity_terms())


def _preferred(affinity: AffinityTerms | None, owner: Pod) -> tuple[WeightedAffinityTerm, ...]:
    if affinity is None:
        return ()
    return tuple(WeightedAffinityTerm(affinity_term(owner, t.pod_affinity_term), t.weight)
                 for t in affinity.preferred_affinity_terms())


def required_affinity_terms(pod: Pod) -> tuple[AffinityTerm, ...]:
    """``PodInfo.GetRequiredAffinityTerms`` (``NewPodInfo``).

    Kubernetes: `PodInfo.GetRequiredAffinityTerms` (pkg/scheduler/framework/types.go)
    """
    return _required(pod.pod_affinity, pod)


def required_anti_affinity_terms(pod: Pod) -> tuple[AffinityTerm, ...]:
    """``PodInfo.GetRequiredAntiAffinityTerms``.

    Kubernetes: `PodInfo.GetRequiredAntiAffinityTerms` (pkg/scheduler/framework/types.go)
    """
    return _required(pod.pod_anti_affinity, pod)


def preferred_affinity_terms(pod: Pod) -> tuple[WeightedAffinityTerm, ...]:
    """``PodInfo.GetPreferredAffinityTerms``.

    Kubernetes: `PodInfo.GetPreferredAffinityTerms` (pkg/scheduler/framework/types.go)
    """
    return _preferred(pod.pod_affinity, pod)


def preferred_anti_affinity_terms(pod: Pod) -> tuple[WeightedAffinityTerm, ...]:
    """``PodInfo.GetPreferredAntiAffinityTerms``.

    Kubernetes: `PodInfo.GetPreferredAntiAffinityTerms` (pkg/scheduler/framework/types.go)
    """
    return _preferred(pod.pod_anti_affinity, pod)


def namespace_labels(namespace: str, namespaces: NamespaceLabels) -> FrozenMap[str, str]:
    """``GetNamespaceLabelsSnapshot``: the labels of ``namespace``, empty if it does not exist (plugin.go).

    Kubernetes: `GetNamespaceLabelsSnapshot` (pkg/scheduler/framework/plugins/interpodaffinity/plugin.go)
    """
    return namespaces.get(namespace, FrozenMap())


def merge_namespaces(term: AffinityTerm, namespaces: NamespaceLabels) -> AffinityTerm:
    """``mergeAffinityTermNamespacesIfNotEmpty`` for a term of the incoming pod: a namespace selector that is not
    empty is replaced by the existing namespaces it selects (then by Nothing); an empty one (every namespace) stays,
    and so does a nil one (plugin.go).

    Kubernetes: `mergeAffinityTermNamespacesIfNotEmpty` (pkg/scheduler/framework/plugins/interpodaffinity/plugin.go)
    """
    selector = term.namespace_selector
    if selector is None or selector.is_empty():
        return term
    listed = {name for name, labels in namespaces.items() if selector.matches(labels)}
    return replace(term, namespaces=term.namespaces | listed, namespace_selector=None)


def pod_matches_all_affinity_terms(terms: Sequence[AffinityTerm], pod: Pod) -> bool:
    """``podMatchesAllAffinityTerms``: there are terms and ``pod`` matches each (the incoming pod's terms have their
    namespace selectors merged, so no namespace labels are needed).

    Kubernetes: `podMatchesAllAffinityTerms` (pkg/scheduler/framework/plugins/interpodaffinity/filtering.go)
    """
    return bool(terms) and all(t.matches(pod, FrozenMap()) for t in terms)


def apply_match_label_keys(pod: Pod) -> Pod:
    """The API server's creation of a pod: each affinity term's ``matchLabelKeys`` and ``mismatchLabelKeys`` that the
    pod has labels for are added to the term's label selector as ``key In (value)`` and ``key NotIn (value)``; a
    term with a nil selector stays nil. The scheduler reads only the result.

    Kubernetes: `mutatePodAffinity` (pkg/registry/core/pod/strategy.go)
    Kubernetes: `applyMatchLabelKeysAndMismatchLabelKeys` (pkg/registry/core/pod/strategy.go)
    """

    def applied(term: PodAffinityTerm) -> PodAffinityTerm:
        if (not term.match_label_keys and not term.mismatch_label_keys) or term.label_selector is None:
            return term
        keyed = ((term.match_label_keys, SELECTOR_IN), (term.mismatch_label_keys, SELECTOR_NOT_IN))
        added = tuple(LabelSelectorRequirement(k, op, (pod.labels[k],))
                      for keys, op in keyed for k in keys if k in pod.labels)
        selector = replace(term.label_selector, match_expressions=term.label_selector.match_expressions + added)
        return replace(term, label_selector=selector)

    def terms(affinity: AffinityTerms | None) -> AffinityTerms | None:
        if affinity is None or (not affinity.required_terms and not affinity.preferred_terms):
            return affinity
        return replace(affinity, required_terms=tuple(map(applied, affinity.required_terms)),
                       preferred_terms=tuple(replace(w, pod_affinity_term=applied(w.pod_affinity_term))
                                             for w in affinity.preferred_terms))

    return replace(pod, pod_affinity=terms(pod.pod_affinity), pod_anti_affinity=terms(pod.pod_anti_affinity))


# ============================================================================================
# PreFilter (filtering.go)
# ============================================================================================


@dataclass(frozen=True)
class PreFilterState:
    """``preFilterState``: the counts per topology pair that Filter reads, and the incoming pod's merged terms."""

    existing_anti_affinity_counts: FrozenMap[TopologyPair, int]
    """Existing pods' required anti-affinity terms that match the incoming pod, by the pair of their node."""
    affinity_counts: FrozenMap[TopologyPair, int]
    """Existing pods that match all the incoming pod's required affinity terms, per term, by pair."""
    anti_affinity_counts: FrozenMap[TopologyPair, int]
    """Existing pods matching each of the incoming pod's required anti-affinity terms, by pair."""
    pod: Pod
    affinity_terms: tuple[AffinityTerm, ...]
    anti_affinity_terms: tuple[AffinityTerm, ...]


def _count(node: Node, topology_key: str, counts: Counter[TopologyPair]) -> None:
    """``topologyToMatchedTermCount.update`` with 1: only a node that has the key counts."""
    if topology_key in node.labels:
        counts[(topology_key, node.labels[topology_key])] += 1


def _nodes(snapshot: Snapshot, names: Iterable[str]) -> Iterable[tuple[Node, NodeInfo]]:
    for name in names:
        info = snapshot.node_info_map[name]
        assert info.node is not None, "the snapshot lists only nodes with a Node object"
        yield info.node, info


def existing_anti_affinity_counts(pod: Pod, labels: Mapping[str, str], snapshot: Snapshot) -> Counter[TopologyPair]:
    """``getExistingAntiAffinityCounts``: over the snapshot's nodes with pods with required anti-affinity, and each
    such pod on them, the terms matching ``pod`` (whose namespace has ``labels``), counted by their node's pair.

    Kubernetes: `getExistingAntiAffinityCounts` (pkg/scheduler/framework/plugins/interpodaffinity/filtering.go)
    """
    counts: Counter[TopologyPair] = Counter()
    for node, info in _nodes(snapshot, snapshot.have_pods_with_required_anti_affinity_list):
        for existing in info.pods_with_required_anti_affinity:
            for term in required_anti_affinity_terms(existing):
                if term.matches(pod, labels):
                    _count(node, term.topology_key, counts)
    return counts


def incoming_affinity_counts(affinity: Sequence[AffinityTerm], anti_affinity: Sequence[AffinityTerm],
                             snapshot: Snapshot) -> tuple[Counter[TopologyPair], Counter[TopologyPair]]:
    """``getIncomingAffinityAntiAffinityCounts``: over every pod of every listed node, each affinity term's pair
    counts the pod if it matches *all* the affinity terms, and each anti-affinity term's pair if it matches that
    term.

    Kubernetes: `getIncomingAffinityAntiAffinityCounts` (pkg/scheduler/framework/plugins/interpodaffinity/filtering.go)
    """
    affinity_counts: Counter[TopologyPair] = Counter()
    anti_counts: Counter[TopologyPair] = Counter()
    if not affinity and not anti_affinity:
        return affinity_counts, anti_counts
    for node, info in _nodes(snapshot, snapshot.node_info_list):
        for existing in info.pods:
            if pod_matches_all_affinity_terms(affinity, existing):
                for term in affinity:
                    _count(node, term.topology_key, affinity_counts)
            for term in anti_affinity:
                if term.matches(existing, FrozenMap()):
                    _count(node, term.topology_key, anti_counts)
    return affinity_counts, anti_counts


def pre_filter(pod: Pod, snapshot: Snapshot, namespaces: NamespaceLabels = NO_NAMESPACES) -> PreFilterState | None:
    """``InterPodAffinity.PreFilter``: the state Filter reads, or None (``Skip``: Filter passes every node) when no
    existing pod's anti-affinity matches the pod and the pod has no required (anti-)affinity terms.

    Kubernetes: `InterPodAffinity.PreFilter` (pkg/scheduler/framework/plugins/interpodaffinity/filtering.go)
    """
    affinity = tuple(merge_namespaces(t, namespaces) for t in required_affinity_terms(pod))
    anti_affinity = tuple(merge_namespaces(t, namespaces) for t in required_anti_affinity_terms(pod))
    existing = existing_anti_affinity_counts(pod, namespace_labels(pod.namespace, namespaces), snapshot)
    affinity_counts, anti_counts = incoming_affinity_counts(affinity, anti_affinity, snapshot)
    if not existing and not affinity and not anti_affinity:
        return None
    return PreFilterState(FrozenMap(existing), FrozenMap(affinity_counts), FrozenMap(anti_counts), pod, affinity,
                          anti_affinity)


# ============================================================================================
# Filter (filtering.go)
# ============================================================================================


def satisfy_existing_pods_anti_affinity(state: PreFilterState, node: Node) -> bool:
    """``satisfyExistingPodsAntiAffinity``: no pair of the node's labels has an existing pod's matching term.

    Kubernetes: `satisfyExistingPodsAntiAffinity` (pkg/scheduler/framework/plugins/interpodaffinity/filtering.go)
    """
    counts = state.existing_anti_affinity_counts
    return not any(counts.get((key, value), 0) > 0 for key, value in node.labels.items())


def satisfy_pod_anti_affinity(state: PreFilterState, node: Node) -> bool:
    """``satisfyPodAntiAffinity``: for no anti-affinity term does the node's pair hold a matching pod (a node without
    the term's topology key satisfies it).

    Kubernetes: `satisfyPodAntiAffinity` (pkg/scheduler/framework/plugins/interpodaffinity/filtering.go)
    """
    counts = state.anti_affinity_counts
    return not any(t.topology_key in node.labels and counts.get((t.topology_key, node.labels[t.topology_key]), 0) > 0
                   for t in state.anti_affinity_terms)


def satisfy_pod_affinity(state: PreFilterState, node: Node) -> bool:
    """``satisfyPodAffinity``: the node has every term's topology key, and each term's pair of the node holds a pod
    matching all the terms; or, when no pod in the cluster matches them all, the pod matches its own terms (the
    first pod of a group).

    Kubernetes: `satisfyPodAffinity` (pkg/scheduler/framework/plugins/interpodaffinity/filtering.go)
    """
    pods_exist = True
    for term in state.affinity_terms:
        if term.topology_key not in node.labels:
            return False
        if state.affinity_counts.get((term.topology_key, node.labels[term.topology_key]), 0) <= 0:
            pods_exist = False
    if pods_exist:
        return True
    return not state.affinity_counts and pod_matches_all_affinity_terms(state.affinity_terms, state.pod)


def filter_node(state: PreFilterState | None, node: Node) -> FilterRejection | None:
    """``InterPodAffinity.Filter`` on ``node`` with the PreFilter state (None: PreFilter skipped, so it passes).

    Kubernetes: `InterPodAffinity.Filter` (pkg/scheduler/framework/plugins/interpodaffinity/filtering.go)
    """
    if state is None:
        return None
    if not satisfy_pod_affinity(state, node):
        return FilterRejection(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ERR_REASON_AFFINITY_RULES_NOT_MATCH)
    if not satisfy_pod_anti_affinity(state, node):
        return FilterRejection(Code.UNSCHEDULABLE, ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH)
    if not satisfy_existing_pods_anti_affinity(state, node):
        return FilterRejection(Code.UNSCHEDULABLE, ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH)
    return None


# ============================================================================================
# PreScore, Score, NormalizeScore (scoring.go)
# ============================================================================================

TopologyScore = FrozenMap[str, FrozenMap[str, int]]
"""``scoreMap``: topology key -> value -> summed weight."""


def _add_term(scores: dict[str, dict[str, int]], term: AffinityTerm, weight: int, pod: Pod,
              labels: Mapping[str, str], node: Node) -> None:
    """``scoreMap.processTerm``: add ``weight`` at the node's pair if the term matches ``pod``."""
    if term.matches(pod, labels) and term.topology_key in node.labels:
        by_value = scores.setdefault(term.topology_key, {})
        value = node.labels[term.topology_key]
        by_value[value] = by_value.get(value, 0) + weight


def pre_score(pod: Pod, snapshot: Snapshot, namespaces: NamespaceLabels = NO_NAMESPACES,
              hard_pod_affinity_weight: int = DEFAULT_HARD_POD_AFFINITY_WEIGHT,
              ignore_preferred_terms_of_existing_pods: bool = False) -> TopologyScore | None:
    """``InterPodAffinity.PreScore``: the summed weights per topology pair, or None (``Skip``: no score) when no pair
    got any. Without preferred terms of its own, only the nodes and pods with (anti-)affinity are read.

    Kubernetes: `InterPodAffinity.PreScore` (pkg/scheduler/framework/plugins/interpodaffinity/scoring.go)
    Kubernetes: `InterPodAffinity.processExistingPod` (pkg/scheduler/framework/plugins/interpodaffinity/scoring.go)
    """
    preferred = tuple(replace(w, term=merge_namespaces(w.term, namespaces)) for w in preferred_affinity_terms(pod))
    preferred_anti = tuple(replace(w, term=merge_namespaces(w.term, namespaces))
                           for w in preferred_anti_affinity_terms(pod))
    has_constraints = bool((pod.pod_affinity is not None and pod.pod_affinity.preferred)
                           or (pod.pod_anti_affinity is not None and pod.pod_anti_affinity.preferred))
    if ignore_preferred_terms_of_existing_pods and not has_constraints:
        return None
    labels = namespace_labels(pod.namespace, namespaces)
    names = snapshot.node_info_list if has_constraints else snapshot.have_pods_with_affinity_list
    scores: dict[str, dict[str, int]] = {}
    any_node = False
    for node, info in _nodes(snapshot, names):
        if not node.labels:
            continue
        node_scores: dict[str, dict[str, int]] = {}
        for existing in info.pods if has_constraints else info.pods_with_affinity:
            for w in preferred:
                _add_term(node_scores, w.term, w.weight, existing, FrozenMap(), node)
            for w in preferred_anti:
                _add_term(node_scores, w.term, -w.weight, existing, FrozenMap(), node)
            if hard_pod_affinity_weight > 0:
                for term in required_affinity_terms(existing):
                    _add_term(node_scores, term, hard_pod_affinity_weight, pod, labels, node)
            for w in preferred_affinity_terms(existing):
                _add_term(node_scores, w.term, w.weight, pod, labels, node)
            for w in preferred_anti_affinity_terms(existing):
                _add_term(node_scores, w.term, -w.weight, pod, labels, node)
        any_node = any_node or bool(node_scores)
        for key, by_value in node_scores.items():
            merged = scores.setdefault(key, {})
            for value, weight in by_value.items():
                merged[value] = merged.get(value, 0) + weight
    if not any_node:
        return None
    return FrozenMap({key: FrozenMap(by_value) for key, by_value in scores.items()})


def score(topology_score: TopologyScore, node: Node) -> int:
    """``InterPodAffinity.Score``: the summed weights of the pairs of the node's labels.

    Kubernetes: `InterPodAffinity.Score` (pkg/scheduler/framework/plugins/interpodaffinity/scoring.go)
    """
    return sum(by_value.get(node.labels[key], 0) for key, by_value in topology_score.items() if key in node.labels)


def normalize_score(topology_score: TopologyScore, scores: Sequence[int]) -> list[int]:
    """``InterPodAffinity.NormalizeScore``: ``100 * (s - min) / (max - min)`` truncated, 0 for all if max = min;
    the scores as they are if no pair has a weight entry.

    Kubernetes: `InterPodAffinity.NormalizeScore` (pkg/scheduler/framework/plugins/interpodaffinity/scoring.go)
    """
    if not topology_score or not scores:
        return list(scores)
    low, high = min(scores), max(scores)
    spread = high - low
    return [math.trunc(MAX_NODE_SCORE * ((s - low) / spread)) if spread > 0 else 0 for s in scores]


def node_scores(pod: Pod, snapshot: Snapshot, feasible: Sequence[str], namespaces: NamespaceLabels = NO_NAMESPACES,
                hard_pod_affinity_weight: int = DEFAULT_HARD_POD_AFFINITY_WEIGHT) -> dict[str, int] | None:
    """PreScore, Score of each feasible node (names in ``snapshot``) and NormalizeScore: each node's final score,
    or None if PreScore skips (the plugin does not score this pod).

    Kubernetes: none (PreScore, Score and NormalizeScore composed, as the framework runs them for one plugin)
    """
    topology_score = pre_score(pod, snapshot, namespaces, hard_pod_affinity_weight)
    if topology_score is None:
        return None
    raw = [score(topology_score, _node_of(snapshot, name)) for name in feasible]
    return dict(zip(feasible, normalize_score(topology_score, raw), strict=True))


def _node_of(snapshot: Snapshot, name: str) -> Node:
    node = snapshot.node_info_map[name].node
    assert node is not None, f"node {name} has no Node object"
    return node
