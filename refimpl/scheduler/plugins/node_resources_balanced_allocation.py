"""NodeResourcesBalancedAllocation: Score only, favouring nodes whose cpu and memory would be used evenly
(plugins/noderesources/balanced_allocation.go, resource_allocation.go, v1.35).

With the default resources (cpu and memory, weight 1 each; the weights play no part in this score) the score is
``int64((1 - |fcpu - fmem| / 2) * 100)`` in float64, where each fraction is the node's Requested (not NonZeroRequested)
plus the pod's requests (without the non-zero defaults: ``useRequested``), over Allocatable, capped at 1; a resource
the node has none of is left out. PreScore skips a pod that requests neither (best effort). No NormalizeScore.
DRA-backed extended resources (alpha in v1.35) are not modelled.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final, cast

from refimpl.cache import NodeInfo
from refimpl.cache.resources import pod_requests
from refimpl.scheduler.framework import (
    MAX_NODE_SCORE,
    CycleState,
    PreScorePlugin,
    ScorePlugin,
    SignFragment,
    SignPlugin,
    Status,
)
from refimpl.scheduler.framework.node_slice import columns_of, gather
from refimpl.scheduler.framework.status import Code
from refimpl.scheduler.plugins.node_resources_fit import NodeResourcesFit
from spec.objects import Pod
from spec.quantities import CPU, MEMORY

NAME: Final = "NodeResourcesBalancedAllocation"
_PRE_SCORE_KEY: Final = "PreScore" + NAME
_SKIP: Final = Status(Code.SKIP)


def balanced_resource_score(requested: Sequence[int], allocatable: Sequence[int]) -> int:
    """``balancedResourceScorer``: 100 times one minus the standard deviation of the requested fractions (each
    capped at 1) of the resources with allocatable above 0; with two, the deviation is half their difference."""
    fractions = [min(float(r) / float(a), 1.0) for r, a in zip(requested, allocatable, strict=True) if a != 0]
    std = 0.0
    if len(fractions) == 2:
        std = abs((fractions[0] - fractions[1]) / 2)
    elif len(fractions) > 2:
        mean = sum(fractions) / float(len(fractions))
        std = (sum((f - mean) * (f - mean) for f in fractions) / float(len(fractions))) ** 0.5
    return int((1 - std) * float(MAX_NODE_SCORE))


class NodeResourcesBalancedAllocation(PreScorePlugin, ScorePlugin, SignPlugin):
    """``BalancedAllocation`` with the default resources, cpu and memory."""

    name = NAME

    def __init__(self, pod_level_resources: bool = True, scores_change: bool = False) -> None:
        self.pod_level_resources = pod_level_resources
        self.scores_change = scores_change  # v1.36's balancedResourceScorer: the change in balance the pod brings
        self._signer = NodeResourcesFit(pod_level_resources)

    def pod_requests(self, pod: Pod) -> tuple[int, int]:
        """``calculatePodResourceRequestList``: the pod's cpu and memory, without the non-zero defaults."""
        requests = pod_requests(pod, pod_level_resources=self.pod_level_resources)
        return requests.get(CPU, 0), requests.get(MEMORY, 0)

    def pre_score(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]) -> Status | None:
        """``PreScore``: Skip for a best-effort pod (it requests neither resource); else keep its requests."""
        requests = self.pod_requests(pod)
        if requests == (0, 0):
            return _SKIP
        state.write(_PRE_SCORE_KEY, requests)
        return None

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> tuple[int, Status | None]:
        """``Score``: :func:`balanced_resource_score` of the node's Requested plus the pod's requests against its
        Allocatable; with ``scores_change`` (v1.36 on) ``50 + (50 + with - without)/2`` of that and the node's
        balance without the pod. Without PreScore's state, a best-effort pod scores 0."""
        requests = state.get(_PRE_SCORE_KEY)
        if not isinstance(requests, tuple):
            requests = self.pod_requests(pod)
            if requests == (0, 0):
                return 0, None
        cpu, memory = requests
        allocatable = (node_info.allocatable.milli_cpu, node_info.allocatable.memory)
        requested = node_info.requested
        with_pod = balanced_resource_score((requested.milli_cpu + cpu, requested.memory + memory), allocatable)
        if not self.scores_change:
            return with_pod, None
        without_pod = balanced_resource_score((requested.milli_cpu, requested.memory), allocatable)
        inner = MAX_NODE_SCORE // 2 + with_pod - without_pod  # Go's integer division truncates toward zero
        return MAX_NODE_SCORE // 2 + (inner // 2 if inner >= 0 else -(-inner // 2)), None

    def score_nodes(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]) -> tuple[list[int], Status | None]:
        """:meth:`score` for every node: the score reads only the node's cpu and memory, requested and allocatable,
        so on the rows each row's score for these requests is kept until the row changes, and otherwise each
        distinct (requested, allocatable) is scored once (most nodes of a large cluster share a shape)."""
        requests = state.get(_PRE_SCORE_KEY)
        if not isinstance(requests, tuple):
            return super().score_nodes(state, pod, nodes)
        score = self.score
        columns = columns_of(nodes)
        if columns is not None:
            table, rows = columns
            memo = table.memo_column((NAME, self.scores_change, *requests))
            if memo is not None:
                held: list[int | None] = list(gather(memo, rows))
                for i, value in enumerate(held):
                    if value is None:
                        held[i] = memo[rows[i]] = score(state, pod, nodes[i])[0]
                return cast(list[int], held), None
        by_figures: dict[tuple[int, int, int, int], int] = {}
        values: list[int] = []
        append = values.append
        for info in nodes:
            requested, allocatable = info.requested, info.allocatable
            key = (requested.milli_cpu, requested.memory, allocatable.milli_cpu, allocatable.memory)
            value = by_figures.get(key)
            if value is None:
                value = by_figures[key] = score(state, pod, info)[0]
            append(value)
        return values, None

    def sign_pod(self, pod: Pod) -> tuple[list[SignFragment], Status | None]:
        """``SignPod``: the pod's resource requests, the same fragment as NodeResourcesFit's."""
        return self._signer.sign_pod(pod)
