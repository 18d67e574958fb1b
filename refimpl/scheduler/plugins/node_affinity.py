"""NodeAffinity, as far as :class:`spec.objects.Pod` models it: the node selector and the preferred terms
(plugins/nodeaffinity, v1.35).

``spec.objects.Pod`` does not model required node-affinity terms: Filter checks ``Spec.NodeSelector``, and
PreFilter skips when the pod has none, which then skips Filter. PreScore parses the preferred terms
(``PreferredDuringSchedulingIgnoredDuringExecution``) and skips when the pod's list is nil; Score sums the weights of
the terms a node matches; NormalizeScore is ``DefaultNormalizeScore(MaxNodeScore, reverse=false)``.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from itertools import compress, count, repeat
from operator import not_
from typing import Final

from refimpl.cache import NodeInfo
from refimpl.scheduler.framework import (
    MAX_NODE_SCORE,
    CycleState,
    FilterPlugin,
    NodeScore,
    PreFilterPlugin,
    PreFilterResult,
    PreScorePlugin,
    ScorePlugin,
    SignFragment,
    SignPlugin,
    Status,
)
from refimpl.scheduler.framework.node_slice import NO_NODE, columns_of, flagged, gather
from refimpl.scheduler.framework.status import Code
from refimpl.scheduler.plugins.taint_toleration import default_normalize_score, default_normalized_values
from spec.objects import Node, NodeSelectorTerm, Pod

NAME: Final = "NodeAffinity"
ERR_REASON_POD: Final = "node(s) didn't match Pod's node affinity/selector"
"""``ErrReasonPod``."""
SIGNATURE_KEY_AFFINITY: Final = "v1.Pod.Spec.Affinity.NodeAffinity"
SIGNATURE_KEY_SELECTOR: Final = "v1.Pod.Spec.Affinity.NodeSelector"
_SKIP: Final = Status(Code.SKIP)
_PRE_SCORE_KEY: Final = "PreScore" + NAME

WeightedTerms = list[tuple[int, NodeSelectorTerm]]
"""``PreferredSchedulingTerms``: the parsed terms, each with its weight."""


def preferred_terms(pod: Pod) -> WeightedTerms | None:
    """``getPodPreferredNodeAffinity``: None for a nil list, else ``NewPreferredSchedulingTerms`` of it (terms of
    weight 0 and empty terms dropped; parse errors cannot occur, :class:`spec.objects.NodeSelectorTerm` rejects
    them at construction)."""
    terms = pod.preferred_node_affinity
    if terms is None:
        return None
    return [(t.weight, t.preference) for t in terms
            if t.weight != 0 and (t.preference.match_expressions or t.preference.match_fields)]


def score_terms(terms: WeightedTerms, node: Node) -> int:
    """``PreferredSchedulingTerms.Score``: the summed weights of the terms ``node`` matches."""
    labels = node.labels
    name = node.name
    total = 0
    for weight, term in terms:
        if not all(r.matches(labels) for r in term.match_expressions):
            continue
        if name and term.match_fields and not all(r.matches_field({"metadata.name": name}) for r in term.match_fields):
            continue
        total += weight
    return total


class NodeAffinity(PreFilterPlugin, FilterPlugin, PreScorePlugin, ScorePlugin, SignPlugin):
    """``NodeAffinity`` (node selector and preferred terms)."""

    name = NAME
    filters_any_node = True
    has_normalize = True

    def pre_filter(
        self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
    ) -> tuple[PreFilterResult | None, Status | None]:
        """``PreFilter``: Skip when there is nothing to match (no selector)."""
        if not pod.node_selector:
            return None, _SKIP
        return None, None

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        """``Filter``: every selected label has the selected value on the node (UnschedulableAndUnresolvable)."""
        node = node_info.node
        if node is None:
            return Status(Code.ERROR, "node not found")
        labels = node.labels
        for key, value in pod.node_selector.items():
            if labels.get(key) != value:
                return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ERR_REASON_POD)
        return None

    def filter_nodes(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]) -> list[tuple[int, Status]]:
        """:meth:`filter` of each node, in one loop (the selector is read once); on rows, the selector's pairs are
        matched against each row's labels in C (a subset test of set views: every key there with the value)."""
        columns = columns_of(nodes)
        if columns is not None and pod.node_selector:  # (a node without a Node fails even an empty selector)
            table, rows = columns
            wanted = pod.node_selector.items()
            unmatched_rows = list(compress(count(), map(not_, map(wanted.__le__, gather(table.labels, rows)))))
            if not unmatched_rows:
                return []
            unmatched_status = Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ERR_REASON_POD)
            without_node = flagged(table, rows, NO_NODE)  # labels of none, so unmatched: an Error instead
            if not without_node:
                return list(zip(unmatched_rows, repeat(unmatched_status)))
            errors = set(without_node)
            return [(i, Status(Code.ERROR, "node not found") if i in errors else unmatched_status)
                    for i in unmatched_rows]
        selector = list(pod.node_selector.items())
        rejected: list[tuple[int, Status]] = []
        unmatched = Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ERR_REASON_POD)  # never changed: one per call
        for i, info in enumerate(nodes):
            node = info.node
            if node is None:
                rejected.append((i, Status(Code.ERROR, "node not found")))
                continue
            labels = node.labels
            for key, value in selector:
                if labels.get(key) != value:
                    rejected.append((i, unmatched))
                    break
        return rejected

    def pre_score(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]) -> Status | None:
        """``PreScore``: Skip for a pod whose preferred terms are nil, else the parsed terms for Score."""
        terms = preferred_terms(pod)
        if terms is None:
            return _SKIP
        state.write(_PRE_SCORE_KEY, terms)
        return None

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> tuple[int, Status | None]:
        """``Score``: the sum of the weights of the preferred terms the node matches (the terms parsed here when
        PreScore did not run)."""
        node = node_info.node
        if node is None:
            return 0, Status(Code.ERROR, "node not found")
        terms = state.get(_PRE_SCORE_KEY)
        if not isinstance(terms, list):
            terms = preferred_terms(pod) or []
        return score_terms(terms, node), None

    def normalize_score(self, state: CycleState, pod: Pod, scores: list[NodeScore]) -> Status | None:
        """``NormalizeScore``: ``DefaultNormalizeScore(MaxNodeScore, reverse=false)``."""
        default_normalize_score(MAX_NODE_SCORE, False, scores)
        return None

    def normalize_values(
        self, state: CycleState, pod: Pod, names: Sequence[str], values: list[int]
    ) -> tuple[list[int], Status | None]:
        """:meth:`normalize_score` over the integers."""
        return default_normalized_values(MAX_NODE_SCORE, False, values), None

    def sign_pod(self, pod: Pod) -> tuple[list[SignFragment], Status | None]:
        selector = json.dumps(sorted(pod.node_selector.items()))
        affinity = json.dumps([pod.has_node_affinity, repr(pod.preferred_node_affinity)])
        return [(SIGNATURE_KEY_AFFINITY, affinity), (SIGNATURE_KEY_SELECTOR, selector)], None
