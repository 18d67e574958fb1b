"""TaintToleration: Filter on NoSchedule/NoExecute taints, Score on PreferNoSchedule ones
(plugins/tainttoleration/taint_toleration.go and ``v1.Toleration.ToleratesTaint``, v1.35).

The comparison operators ``Lt``/``Gt`` (``TaintTolerationComparisonOperators``, alpha in v1.35, off by default) are
not modelled: an operator other than ``Equal``, "" or ``Exists`` tolerates nothing.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from typing import Final

from refimpl.cache import NodeInfo
from refimpl.scheduler.framework import (
    MAX_NODE_SCORE,
    CycleState,
    FilterPlugin,
    NodeScore,
    PreScorePlugin,
    ScorePlugin,
    SignFragment,
    SignPlugin,
    Status,
)
from refimpl.scheduler.framework.node_slice import NO_NODE, TAINTED, columns_of, flagged
from refimpl.scheduler.framework.status import Code
from spec.objects import Pod, Taint, Toleration

NAME: Final = "TaintToleration"
NO_SCHEDULE: Final = "NoSchedule"
NO_EXECUTE: Final = "NoExecute"
PREFER_NO_SCHEDULE: Final = "PreferNoSchedule"
SIGNATURE_KEY: Final = "v1.Pod.Spec.Tolerations"
_PRE_SCORE_KEY: Final = "PreScore" + NAME


def tolerates(toleration: Toleration, taint: Taint) -> bool:
    """``Toleration.ToleratesTaint``: effects match (empty matches all), keys match (empty matches all), and the
    value is equal under ``Equal``/"" or anything under ``Exists``."""
    if toleration.effect and toleration.effect != taint.effect:
        return False
    if toleration.key and toleration.key != taint.key:
        return False
    operator = toleration.operator
    if operator == "Exists":
        return True
    return operator in ("", "Equal") and toleration.value == taint.value


def tolerations_tolerate_taint(tolerations: Iterable[Toleration], taint: Taint) -> bool:
    """``TolerationsTolerateTaint``."""
    return any(tolerates(t, taint) for t in tolerations)


def sign_tolerations(pod: Pod) -> SignFragment:
    """The tolerations, sorted by (key, value), as canonical JSON."""
    tolerations = sorted(pod.tolerations, key=lambda t: (t.key, t.value, t.operator, t.effect))
    value = json.dumps([[t.key, t.operator, t.value, t.effect] for t in tolerations])
    return SIGNATURE_KEY, value


ERR_REASON_UNTOLERATED: Final = "node(s) had untolerated taint(s)"
"""Filter's reason from v1.35 (v1.34 named the taint)."""


class TaintToleration(FilterPlugin, PreScorePlugin, ScorePlugin, SignPlugin):
    """``TaintToleration``."""

    name = NAME
    filters_any_node = True
    has_normalize = True

    def __init__(self, reason_names_the_taint: bool = False) -> None:
        self.reason_names_the_taint = reason_names_the_taint
        """The reason v1.34 gives (:attr:`spec.versions.VersionProfile.taint_reason_names_the_taint`)."""

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        """``Filter``: the first NoSchedule or NoExecute taint the pod does not tolerate rejects the node
        (UnschedulableAndUnresolvable: "node(s) had untolerated taint(s)"; v1.34: "node(s) had untolerated taint
        {key: value}")."""
        node = node_info.node
        if node is None:
            return Status(Code.ERROR, "invalid nodeInfo")
        if not node.taints:
            return None
        for taint in node.taints:
            if taint.effect in (NO_SCHEDULE, NO_EXECUTE) and not tolerations_tolerate_taint(pod.tolerations, taint):
                reason = (f"node(s) had untolerated taint {{{taint.key}: {taint.value}}}"
                          if self.reason_names_the_taint else ERR_REASON_UNTOLERATED)
                return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, reason)
        return None

    def filter_nodes(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]) -> list[tuple[int, Status]]:
        """:meth:`filter` of each node: only a tainted node (or one without a Node object) can fail, so only those
        are filtered, once per distinct list of taints (its status is shared: statuses are never changed)."""
        columns = columns_of(nodes)
        if columns is not None:
            suspects = flagged(*columns, NO_NODE | TAINTED)
        else:
            suspects = [i for i, info in enumerate(nodes) if (node := info.node) is None or node.taints]
        rejected: list[tuple[int, Status]] = []
        verdicts: dict[tuple[Taint, ...], Status | None] = {}  # node.taints -> filter's status on such a node
        for i in suspects:
            info = nodes[i]
            node = info.node
            if node is None:
                status = self.filter(state, pod, info)
            else:
                taints = node.taints
                if taints in verdicts:
                    status = verdicts[taints]
                else:
                    status = verdicts[taints] = self.filter(state, pod, info)
            if status is not None and status.code is not Code.SUCCESS:
                rejected.append((i, status))
        return rejected

    def pre_score(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]) -> Status | None:
        """``PreScore``: the tolerations that can tolerate PreferNoSchedule taints (effect empty or
        PreferNoSchedule)."""
        if not nodes:
            return None
        state.write(_PRE_SCORE_KEY, [t for t in pod.tolerations if t.effect in ("", PREFER_NO_SCHEDULE)])
        return None

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> tuple[int, Status | None]:
        """``Score``: how many PreferNoSchedule taints of the node the pod does not tolerate."""
        node = node_info.node
        if node is None:
            return 0, Status(Code.ERROR, "invalid nodeInfo")
        if not node.taints:
            return 0, None
        tolerations = state.get(_PRE_SCORE_KEY)
        if not isinstance(tolerations, list):
            tolerations = [t for t in pod.tolerations if t.effect in ("", PREFER_NO_SCHEDULE)]
        count = sum(
            1 for taint in node.taints
            if taint.effect == PREFER_NO_SCHEDULE and not tolerations_tolerate_taint(tolerations, taint)
        )
        return count, None

    def score_nodes(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]) -> tuple[list[int], Status | None]:
        """:meth:`score` for every node, in one loop: untainted nodes score 0 at once."""
        columns = columns_of(nodes)
        if columns is not None:
            suspects = flagged(*columns, NO_NODE | TAINTED)
        else:
            suspects = [i for i, info in enumerate(nodes) if (node := info.node) is None or node.taints]
        values = [0] * len(nodes)
        for i in suspects:
            value, status = self.score(state, pod, nodes[i])
            if status is not None:
                return values[:i], status
            values[i] = value
        return values, None

    def normalize_score(self, state: CycleState, pod: Pod, scores: list[NodeScore]) -> Status | None:
        """``NormalizeScore``: ``DefaultNormalizeScore(MaxNodeScore, reverse=true)``."""
        default_normalize_score(MAX_NODE_SCORE, True, scores)
        return None

    def normalize_values(
        self, state: CycleState, pod: Pod, names: Sequence[str], values: list[int]
    ) -> tuple[list[int], Status | None]:
        """:meth:`normalize_score` over the integers."""
        return default_normalized_values(MAX_NODE_SCORE, True, values), None

    def sign_pod(self, pod: Pod) -> tuple[list[SignFragment], Status | None]:
        return [sign_tolerations(pod)], None


def default_normalize_score(max_priority: int, reverse: bool, scores: list[NodeScore]) -> None:
    """``helper.DefaultNormalizeScore``: scale to [0, max_priority] by the highest score (Go integer division);
    with ``reverse``, subtract from max_priority. All zero: every node gets max_priority if reversed, else 0."""
    highest = max((s.score for s in scores), default=0)
    if highest == 0:
        if reverse:
            for s in scores:
                s.score = max_priority
        return
    for s in scores:
        value = max_priority * s.score // highest  # scores are non-negative: floor equals Go's truncation
        s.score = max_priority - value if reverse else value


def default_normalized_values(max_priority: int, reverse: bool, values: list[int]) -> list[int]:
    """:func:`default_normalize_score` of scores ``values``: the new values (a new list)."""
    highest = max(values, default=0)
    if highest == 0:
        return [max_priority] * len(values) if reverse else list(values)
    if reverse:
        return [max_priority - max_priority * value // highest for value in values]
    return [max_priority * value // highest for value in values]
