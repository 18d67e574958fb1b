"""InterPodAffinity (plugins/interpodaffinity: filtering.go, scoring.go, plugin.go, v1.35; the processed terms of
k8s.io/kube-scheduler framework/types.go).

PreFilter computes, once per cycle, the counts per topology pair Filter reads: existing pods' required anti-affinity
terms matching the pod (over the snapshot's nodes with such pods only), and existing pods matching the pod's own
required (anti-)affinity terms (over every node, only when it has such terms). Filter is then a few dict lookups
per node. PreScore sums the preferred weights per topology pair the same way; Score reads them per node.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Final

from refimpl.cache import NodeInfo
from refimpl.scheduler.framework import (
    CycleState,
    FilterPlugin,
    Handle,
    NodeScore,
    PreFilterPlugin,
    PreFilterResult,
    PreScorePlugin,
    ScorePlugin,
    SignFragment,
    SignPlugin,
    Status,
)
from refimpl.scheduler.framework.interfaces import MAX_NODE_SCORE
from refimpl.scheduler.framework.status import Code
from refimpl.scheduler.plugins.labels import NOTHING, Labels, Matcher, compile_selector
from spec.frozenmap import FrozenMap
from spec.objects import AffinityTerms, Node, Pod, PodAffinityTerm

NAME: Final = "InterPodAffinity"
ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH: Final = "node(s) didn't satisfy existing pods anti-affinity rules"
ERR_REASON_AFFINITY_RULES_NOT_MATCH: Final = "node(s) didn't match pod affinity rules"
ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH: Final = "node(s) didn't match pod anti-affinity rules"
"""``ErrReason*`` (filtering.go)."""
DEFAULT_HARD_POD_AFFINITY_WEIGHT: Final = 1
"""``InterPodAffinityArgs.HardPodAffinityWeight``'s default (apis/config/v1/defaults.go)."""
LABELS_SIGNATURE_KEY: Final = "v1.Pod.Labels"
"""``fwk.LabelsSignerName``."""
_PRE_FILTER_KEY: Final = "PreFilter" + NAME
_PRE_SCORE_KEY: Final = "PreScore" + NAME
_SKIP: Final = Status(Code.SKIP)
_AFFINITY_REJECTED: Final = Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ERR_REASON_AFFINITY_RULES_NOT_MATCH)
_ANTI_AFFINITY_REJECTED: Final = Status(Code.UNSCHEDULABLE, ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH)
_EXISTING_REJECTED: Final = Status(Code.UNSCHEDULABLE, ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH)
_NO_LABELS: Final[FrozenMap[str, str]] = FrozenMap()

Pair = tuple[str, str]
Namespaces = Mapping[str, Mapping[str, str]]


class Term:
    """``fwk.AffinityTerm``: namespaces, a compiled selector, the topology key and a compiled namespace selector
    (NOTHING for nil, or once merged into the namespaces)."""

    __slots__ = ("namespace_matcher", "namespaces", "selector", "topology_key")

    def __init__(self, namespaces: frozenset[str], selector: Matcher, topology_key: str,
                 namespace_matcher: Matcher) -> None:
        self.namespaces = namespaces
        self.selector = selector
        self.topology_key = topology_key
        self.namespace_matcher = namespace_matcher

    def matches(self, pod: Pod, namespace_labels: Labels) -> bool:
        """``AffinityTerm.Matches``."""
        if pod.namespace in self.namespaces or self.namespace_matcher(namespace_labels):
            return self.selector(pod.labels)
        return False


def new_term(owner: Pod, term: PodAffinityTerm) -> Term:
    """``newAffinityTerm``: the owner's namespace when the term names none and has no namespace selector."""
    if not term.namespaces and term.namespace_selector is None:
        namespaces = frozenset((owner.namespace,))
    else:
        namespaces = frozenset(term.namespaces)
    return Term(namespaces, compile_selector(term.label_selector), term.topology_key,
                compile_selector(term.namespace_selector))


def incoming_term(owner: Pod, term: PodAffinityTerm, namespaces: Namespaces) -> Term:
    """``newAffinityTerm`` then ``mergeAffinityTermNamespacesIfNotEmpty``: a non-empty namespace selector becomes
    the existing namespaces it selects."""
    made = new_term(owner, term)
    selector = term.namespace_selector
    if selector is not None and (selector.match_labels or selector.match_expressions):
        matcher = made.namespace_matcher
        made.namespaces = made.namespaces | {name for name, labels in namespaces.items() if matcher(labels)}
        made.namespace_matcher = NOTHING
    return made


def _required(affinity: AffinityTerms | None) -> tuple[PodAffinityTerm, ...]:
    if affinity is None:
        return ()
    return affinity.required_terms or (PodAffinityTerm(),) * affinity.required


def _weighted(affinity: AffinityTerms | None) -> list[tuple[PodAffinityTerm, int]]:
    if affinity is None:
        return []
    if affinity.preferred_terms:
        return [(w.pod_affinity_term, w.weight) for w in affinity.preferred_terms]
    return [(PodAffinityTerm(), 0)] * affinity.preferred


class _ExistingTerms:
    """An existing pod's processed terms, built on first use and kept per pod object (pods are immutable)."""

    __slots__ = ("anti", "preferred", "preferred_anti", "required")

    def __init__(self, pod: Pod) -> None:
        self.required = [new_term(pod, t) for t in _required(pod.pod_affinity)]
        self.anti = [new_term(pod, t) for t in _required(pod.pod_anti_affinity)]
        self.preferred = [(new_term(pod, t), w) for t, w in _weighted(pod.pod_affinity)]
        self.preferred_anti = [(new_term(pod, t), w) for t, w in _weighted(pod.pod_anti_affinity)]


_TERMS: dict[int, tuple[Pod, _ExistingTerms]] = {}


def existing_terms(pod: Pod) -> _ExistingTerms:
    """The processed terms of an existing pod, as ``PodInfo`` keeps them; remembered by identity (held with the pod,
    so an id is never reused while remembered), so each pod's selectors compile once, not once per cycle."""
    entry = _TERMS.get(id(pod))
    if entry is not None and entry[0] is pod:
        return entry[1]
    if len(_TERMS) > 100_000:
        _TERMS.clear()
    terms = _ExistingTerms(pod)
    _TERMS[id(pod)] = (pod, terms)
    return terms


def _add(counts: dict[Pair, int], node: Node, key: str, value: int = 1) -> None:
    """``topologyToMatchedTermCount.update``: only a node with the key counts; an entry at 0 is removed."""
    labels = node.labels
    if key in labels:
        pair = (key, labels[key])
        total = counts.get(pair, 0) + value
        if total:
            counts[pair] = total
        else:
            counts.pop(pair, None)


@dataclass
class PreFilterState:
    """``preFilterState``."""

    existing_anti_affinity_counts: dict[Pair, int]
    affinity_counts: dict[Pair, int]
    anti_affinity_counts: dict[Pair, int]
    pod: Pod
    affinity: list[Term]
    anti_affinity: list[Term]
    namespace_labels: Labels

    def clone(self) -> PreFilterState:
        """``Clone``: the counts copied (AddPod and RemovePod change them)."""
        return PreFilterState(dict(self.existing_anti_affinity_counts), dict(self.affinity_counts),
                              dict(self.anti_affinity_counts), self.pod, self.affinity, self.anti_affinity,
                              self.namespace_labels)

    def update_with_pod(self, existing: Pod, node: Node, multiplier: int) -> None:
        """``updateWithPod``: the counts as if ``existing`` were added to (1) or removed from (-1) ``node``."""
        for term in existing_terms(existing).anti:
            if term.matches(self.pod, self.namespace_labels):
                _add(self.existing_anti_affinity_counts, node, term.topology_key, multiplier)
        if self.affinity and all(t.matches(existing, _NO_LABELS) for t in self.affinity):
            for term in self.affinity:
                _add(self.affinity_counts, node, term.topology_key, multiplier)
        for term in self.anti_affinity:
            if term.matches(existing, _NO_LABELS):
                _add(self.anti_affinity_counts, node, term.topology_key, multiplier)


class InterPodAffinity(PreFilterPlugin, FilterPlugin, PreScorePlugin, ScorePlugin, SignPlugin):
    """``InterPodAffinity``. ``namespaces`` is the namespace lister (name -> labels); by default the handle's
    (:attr:`refimpl.scheduler.framework.handle.Handle.namespaces`, as ``New`` takes
    ``handle.SharedInformerFactory().Core().V1().Namespaces().Lister()`` in plugin.go)."""

    name = NAME
    filters_any_node = True
    has_normalize = True

    def __init__(self, handle: Handle, namespaces: Namespaces | None = None,
                 hard_pod_affinity_weight: int = DEFAULT_HARD_POD_AFFINITY_WEIGHT,
                 ignore_preferred_terms_of_existing_pods: bool = False) -> None:
        self.handle = handle
        self._namespaces = namespaces
        self.hard_pod_affinity_weight = hard_pod_affinity_weight
        self.ignore_preferred_terms_of_existing_pods = ignore_preferred_terms_of_existing_pods

    @property
    def namespaces(self) -> Namespaces:
        """The namespace lister: the one given, else the handle's (read afresh in every cycle, as a lister is)."""
        return self._namespaces if self._namespaces is not None else self.handle.namespaces

    # -- PreFilter and Filter (filtering.go) ------------------------------------------------

    def pre_filter(
        self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
    ) -> tuple[PreFilterResult | None, Status | None]:
        """``PreFilter``: Skip when no existing pod's anti-affinity matches the pod and it has no required terms."""
        namespaces = self.namespaces
        ns_labels = namespaces.get(pod.namespace, _NO_LABELS)
        existing: dict[Pair, int] = {}
        snapshot = self.handle.snapshot
        if nodes is snapshot.list_nodes():  # the snapshot's own list: it keeps the nodes with such pods
            with_anti: Sequence[NodeInfo] = snapshot.have_pods_with_required_anti_affinity_list()
        else:
            with_anti = [info for info in nodes if info.pods_with_required_anti_affinity]
        for info in with_anti:
            node = info.node
            assert node is not None
            for pod_info in info.pods_with_required_anti_affinity:
                for term in existing_terms(pod_info.pod).anti:
                    if term.matches(pod, ns_labels):
                        _add(existing, node, term.topology_key)
        affinity = [incoming_term(pod, t, namespaces) for t in _required(pod.pod_affinity)]
        anti = [incoming_term(pod, t, namespaces) for t in _required(pod.pod_anti_affinity)]
        affinity_counts: dict[Pair, int] = {}
        anti_counts: dict[Pair, int] = {}
        if affinity or anti:
            for info in nodes:
                node = info.node
                assert node is not None
                for pod_info in info.pods:
                    other = pod_info.pod
                    if affinity and all(t.matches(other, _NO_LABELS) for t in affinity):
                        for term in affinity:
                            _add(affinity_counts, node, term.topology_key)
                    for term in anti:
                        if term.matches(other, _NO_LABELS):
                            _add(anti_counts, node, term.topology_key)
        if not existing and not affinity and not anti:
            return None, _SKIP
        state.write(_PRE_FILTER_KEY, PreFilterState(existing, affinity_counts, anti_counts, pod, affinity, anti,
                                                    ns_labels))
        return None, None

    def add_pod(self, state: CycleState, pod: Pod, pod_to_add: Pod, node_info: NodeInfo) -> Status | None:
        """``AddPod`` (PreFilterExtensions): count ``pod_to_add`` as if it ran on the node."""
        return self._update(state, pod_to_add, node_info, 1)

    def remove_pod(self, state: CycleState, pod: Pod, pod_to_remove: Pod, node_info: NodeInfo) -> Status | None:
        """``RemovePod`` (PreFilterExtensions): count ``pod_to_remove`` as if it left the node."""
        return self._update(state, pod_to_remove, node_info, -1)

    def _update(self, state: CycleState, other: Pod, node_info: NodeInfo, multiplier: int) -> Status | None:
        data = state.get(_PRE_FILTER_KEY)
        if not isinstance(data, PreFilterState) or node_info.node is None:
            return Status(Code.ERROR, f'error reading "{_PRE_FILTER_KEY}" from cycleState')
        data.update_with_pod(other, node_info.node, multiplier)
        return None

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        """``Filter``: the pod's affinity (UnschedulableAndUnresolvable), its anti-affinity, then the existing
        pods' anti-affinity (Unschedulable)."""
        data = state.get(_PRE_FILTER_KEY)
        if not isinstance(data, PreFilterState):
            return Status(Code.ERROR, f'error reading "{_PRE_FILTER_KEY}" from cycleState: not found')
        node = node_info.node
        if node is None:
            return Status(Code.ERROR, "node not found")
        labels = node.labels
        if data.affinity and not _satisfies_affinity(data, labels):
            return _AFFINITY_REJECTED
        counts = data.anti_affinity_counts
        if counts:
            for term in data.anti_affinity:
                key = term.topology_key
                if key in labels and counts.get((key, labels[key]), 0) > 0:
                    return _ANTI_AFFINITY_REJECTED
        existing = data.existing_anti_affinity_counts
        if existing:
            for pair in labels.items():
                if existing.get(pair, 0) > 0:
                    return _EXISTING_REJECTED
        return None

    # -- PreScore, Score, NormalizeScore (scoring.go) --------------------------------------

    def pre_score(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]) -> Status | None:
        """``PreScore``: the summed weights per topology key and value; Skip when none."""
        preferred = _weighted(pod.pod_affinity)
        preferred_anti = _weighted(pod.pod_anti_affinity)
        has_constraints = bool(preferred or preferred_anti)
        if self.ignore_preferred_terms_of_existing_pods and not has_constraints:
            return _SKIP
        snapshot = self.handle.snapshot
        infos = snapshot.list_nodes() if has_constraints else snapshot.have_pods_with_affinity_list()
        namespaces = self.namespaces
        ns_labels = namespaces.get(pod.namespace, _NO_LABELS)
        weighted = [(incoming_term(pod, t, namespaces), w) for t, w in preferred]
        weighted += [(incoming_term(pod, t, namespaces), -w) for t, w in preferred_anti]
        hard = self.hard_pod_affinity_weight
        scores: dict[str, dict[str, int]] = {}
        any_score = False
        for info in infos:
            node = info.node
            assert node is not None
            labels = node.labels
            if not labels:
                continue
            for pod_info in info.pods if has_constraints else info.pods_with_affinity:
                other = pod_info.pod
                for term, weight in weighted:
                    if term.matches(other, _NO_LABELS):
                        any_score |= _score_pair(scores, labels, term.topology_key, weight)
                if other.pod_affinity is None and other.pod_anti_affinity is None:
                    continue
                terms = existing_terms(other)
                if hard > 0:
                    for term in terms.required:
                        if term.matches(pod, ns_labels):
                            any_score |= _score_pair(scores, labels, term.topology_key, hard)
                for term, weight in terms.preferred:
                    if term.matches(pod, ns_labels):
                        any_score |= _score_pair(scores, labels, term.topology_key, weight)
                for term, weight in terms.preferred_anti:
                    if term.matches(pod, ns_labels):
                        any_score |= _score_pair(scores, labels, term.topology_key, -weight)
        if not any_score:
            return _SKIP
        state.write(_PRE_SCORE_KEY, scores)
        return None

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> tuple[int, Status | None]:
        """``Score``: the summed weights of the node's pairs."""
        scores = state.get(_PRE_SCORE_KEY)
        if not isinstance(scores, dict):
            return 0, Status(Code.ERROR, f'failed to read "{_PRE_SCORE_KEY}" from cycleState')
        node = node_info.node
        assert node is not None
        labels = node.labels
        total = 0
        for key, by_value in scores.items():
            if key in labels:
                total += by_value.get(labels[key], 0)
        return total, None

    def normalize_score(self, state: CycleState, pod: Pod, scores: list[NodeScore]) -> Status | None:
        """``NormalizeScore``: ``MaxNodeScore * (s - min) / (max - min)``, truncated; 0 when all are equal."""
        topology = state.get(_PRE_SCORE_KEY)
        if not isinstance(topology, dict):
            return Status(Code.ERROR, f'failed to read "{_PRE_SCORE_KEY}" from cycleState')
        if not topology or not scores:
            return None
        low = min(s.score for s in scores)
        spread = max(s.score for s in scores) - low
        for s in scores:
            s.score = int(MAX_NODE_SCORE * ((s.score - low) / spread)) if spread > 0 else 0
        return None

    def sign_pod(self, pod: Pod) -> tuple[list[SignFragment], Status | None]:
        """``SignPod``: a pod with (anti-)affinity cannot be signed; otherwise its labels matter (unless existing
        pods' preferred terms are ignored)."""
        if pod.pod_affinity is not None or pod.pod_anti_affinity is not None:
            return [], Status(Code.UNSCHEDULABLE, "pods with InterPodAffinity are not signable")
        if self.ignore_preferred_terms_of_existing_pods:
            return [], None
        return [(LABELS_SIGNATURE_KEY, json.dumps(dict(sorted(pod.labels.items()))))], None


def _score_pair(scores: dict[str, dict[str, int]], labels: Labels, key: str, weight: int) -> bool:
    """``scoreMap.processTerm`` after the match: add ``weight`` at the node's pair; True if the node has the key."""
    if key not in labels:
        return False
    by_value = scores.setdefault(key, {})
    value = labels[key]
    by_value[value] = by_value.get(value, 0) + weight
    return True


def _satisfies_affinity(data: PreFilterState, labels: Labels) -> bool:
    """``satisfyPodAffinity``."""
    pods_exist = True
    counts = data.affinity_counts
    for term in data.affinity:
        key = term.topology_key
        if key not in labels:
            return False
        if counts.get((key, labels[key]), 0) <= 0:
            pods_exist = False
    if pods_exist:
        return True
    return not counts and all(t.matches(data.pod, _NO_LABELS) for t in data.affinity)


__all__ = ["NAME", "InterPodAffinity", "PreFilterState", "Term", "existing_terms", "new_term"]
