"""NodeAffinity, as far as :class:`spec.objects.Pod` models it: the node selector (plugins/nodeaffinity, v1.35).

``spec.objects.Pod`` records only *whether* ``Spec.Affinity.NodeAffinity`` is set, not its terms, so required and
preferred node-affinity terms are not modelled: Filter checks ``Spec.NodeSelector``; PreScore skips (no preferred
terms), so this plugin never scores. PreFilter skips when the pod has no node selector, which then skips Filter.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from itertools import compress, count, repeat
from operator import not_
from typing import Final

from refimpl.cache import NodeInfo
from refimpl.scheduler.framework import (
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
from spec.objects import Pod

NAME: Final = "NodeAffinity"
ERR_REASON_POD: Final = "node(s) didn't match Pod's node affinity/selector"
"""``ErrReasonPod``."""
SIGNATURE_KEY_AFFINITY: Final = "v1.Pod.Spec.Affinity.NodeAffinity"
SIGNATURE_KEY_SELECTOR: Final = "v1.Pod.Spec.Affinity.NodeSelector"
_SKIP: Final = Status(Code.SKIP)


class NodeAffinity(PreFilterPlugin, FilterPlugin, PreScorePlugin, ScorePlugin, SignPlugin):
    """``NodeAffinity`` (node selector only)."""

    name = NAME
    filters_any_node = True

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
        """``PreScore``: Skip: no preferred scheduling terms are modelled."""
        return _SKIP

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> tuple[int, Status | None]:
        """``Score``: the sum of matching preferred terms' weights; none are modelled."""
        return 0, None

    def normalize_score(self, state: CycleState, pod: Pod, scores: list[NodeScore]) -> Status | None:
        return None

    def sign_pod(self, pod: Pod) -> tuple[list[SignFragment], Status | None]:
        selector = json.dumps(sorted(pod.node_selector.items()))
        return [(SIGNATURE_KEY_AFFINITY, json.dumps(pod.has_node_affinity)), (SIGNATURE_KEY_SELECTOR, selector)], None
