"""PodTopologySpread (plugins/podtopologyspread: common.go, filtering.go, scoring.go, plugin.go, v1.35).

PreFilter counts, once per cycle, the matching pods per topology value of each DoNotSchedule constraint and keeps
the two smallest counts (``criticalPaths``), so Filter is a few dict lookups per node. The inclusion policies
(``nodeAffinityPolicy``, ``nodeTaintsPolicy``) are GA in v1.35 and always read. Without constraints of its own a pod
is spread by the profile's defaults (system defaulting: hostname maxSkew 3, zone maxSkew 5, ScheduleAnyway) with the
selector of the Services and controllers that select it, which ``default_selector`` supplies (none by default).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
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
from refimpl.scheduler.framework.handle import Handle
from refimpl.scheduler.framework.interfaces import MAX_NODE_SCORE
from refimpl.scheduler.framework.status import Code
from refimpl.scheduler.plugins.labels import EVERYTHING, Labels, Matcher, compile_selector
from refimpl.scheduler.plugins.taint_toleration import NO_EXECUTE, NO_SCHEDULE, tolerations_tolerate_taint
from spec.objects import (
    DO_NOT_SCHEDULE,
    LABEL_HOSTNAME,
    LABEL_TOPOLOGY_ZONE,
    SCHEDULE_ANYWAY,
    LabelSelector,
    LabelSelectorRequirement,
    Node,
    Pod,
    TopologySpreadConstraint,
)

NAME: Final = "PodTopologySpread"
ERR_REASON_CONSTRAINTS_NOT_MATCH: Final = "node(s) didn't match pod topology spread constraints"
ERR_REASON_NODE_LABEL_NOT_MATCH: Final = ERR_REASON_CONSTRAINTS_NOT_MATCH + " (missing required label)"
SYSTEM_DEFAULT_CONSTRAINTS: Final = (
    TopologySpreadConstraint(3, LABEL_HOSTNAME, SCHEDULE_ANYWAY),
    TopologySpreadConstraint(5, LABEL_TOPOLOGY_ZONE, SCHEDULE_ANYWAY),
)
"""``systemDefaultConstraints`` (plugin.go)."""
SYSTEM_DEFAULTING: Final = "System"
LIST_DEFAULTING: Final = "List"
_PRE_FILTER_KEY: Final = "PreFilter" + NAME
_PRE_SCORE_KEY: Final = "PreScore" + NAME
_SKIP: Final = Status(Code.SKIP)
_LABEL_MISSING: Final = Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ERR_REASON_NODE_LABEL_NOT_MATCH)
_SKEWED: Final = Status(Code.UNSCHEDULABLE, ERR_REASON_CONSTRAINTS_NOT_MATCH)
_MAX_INT32: Final = 2**31 - 1
_MAX_INT64: Final = 2**63 - 1

DefaultSelector = Callable[[Pod], LabelSelector | None]
"""``helper.DefaultSelector``: the selector of the Services, ReplicationControllers, ReplicaSets and StatefulSets
that select a pod (None or empty: none)."""


def no_default_selector(pod: Pod) -> LabelSelector | None:
    """A cluster without Services or controllers: no pod has a default selector."""
    return None


class Constraint:
    """``topologySpreadConstraint``: the selector compiled and merged with ``matchLabelKeys``, defaults filled."""

    __slots__ = ("empty", "honor_affinity", "honor_taints", "matches", "max_skew", "min_domains", "topology_key")

    def __init__(self, c: TopologySpreadConstraint, labels: Labels, selector: LabelSelector | None) -> None:
        added = tuple(LabelSelectorRequirement(k, "In", (labels[k],)) for k in c.match_label_keys if k in labels)
        if selector is not None and added:
            selector = LabelSelector(selector.match_labels, added + selector.match_expressions)
        self.matches: Matcher = compile_selector(selector)
        self.empty = self.matches is EVERYTHING
        """``Selector.Empty()``: counting pods then finds none (``countPodsMatchSelector``)."""
        self.max_skew = c.max_skew
        self.topology_key = c.topology_key
        self.min_domains = 1 if c.min_domains is None else c.min_domains
        self.honor_affinity = (c.node_affinity_policy or "Honor") == "Honor"
        self.honor_taints = (c.node_taints_policy or "Ignore") == "Honor"

    def count(self, info: NodeInfo, namespace: str) -> int:
        """``countPodsMatchSelector`` over the node's pods in ``namespace``."""
        if self.empty:
            return 0
        matches = self.matches
        return sum(1 for p in info.pods if p.pod.namespace == namespace and matches(p.pod.labels))

    def includes(self, pod: Pod, node: Node) -> bool:
        """``matchNodeInclusionPolicies``: Honor checks the node selector and the NoSchedule/NoExecute taints."""
        if self.honor_affinity:
            labels = node.labels
            for key, value in pod.node_selector.items():
                if labels.get(key) != value:
                    return False
        if self.honor_taints:
            for taint in node.taints:
                if taint.effect in (NO_SCHEDULE, NO_EXECUTE) and not tolerations_tolerate_taint(pod.tolerations, taint):
                    return False
        return True


class CriticalPaths:
    """``criticalPaths``: the two topology values with the fewest matching pods (the first always the minimum)."""

    __slots__ = ("paths",)

    def __init__(self) -> None:
        self.paths: list[list[object]] = [["", _MAX_INT32], ["", _MAX_INT32]]

    def update(self, value: str, num: int) -> None:
        """``criticalPaths.update``."""
        p = self.paths
        i = 0 if value == p[0][0] else 1 if value == p[1][0] else -1
        if i >= 0:
            p[i][1] = num
            if p[0][1] > p[1][1]:  # type: ignore[operator]
                p[0], p[1] = p[1], p[0]
        elif num < p[0][1]:  # type: ignore[operator]
            p[1] = p[0]
            p[0] = [value, num]
        elif num < p[1][1]:  # type: ignore[operator]
            p[1] = [value, num]

    def clone(self) -> CriticalPaths:
        copy = CriticalPaths()
        copy.paths = [list(self.paths[0]), list(self.paths[1])]
        return copy


@dataclass
class PreFilterState:
    """``preFilterState``."""

    constraints: list[Constraint]
    critical_paths: list[CriticalPaths]
    tp_value_to_match_num: list[dict[str, int]]

    def min_match_num(self, index: int) -> int:
        """``minMatchNum``: 0 while there are fewer domains than ``minDomains``."""
        if len(self.tp_value_to_match_num[index]) < self.constraints[index].min_domains:
            return 0
        value = self.critical_paths[index].paths[0][1]
        assert isinstance(value, int)
        return value

    def clone(self) -> PreFilterState:
        return PreFilterState(self.constraints, [p.clone() for p in self.critical_paths],
                              [dict(m) for m in self.tp_value_to_match_num])


@dataclass
class PreScoreState:
    """``preScoreState``."""

    constraints: list[Constraint]
    ignored_nodes: set[str]
    counts: list[dict[str, int]]
    weights: list[float]


class PodTopologySpread(PreFilterPlugin, FilterPlugin, PreScorePlugin, ScorePlugin, SignPlugin):
    """``PodTopologySpread`` with ``PodTopologySpreadArgs``: ``defaulting_type`` System (the default profile's) or
    List with ``default_constraints``."""

    name = NAME
    filters_any_node = True
    has_normalize = True

    def __init__(self, handle: Handle, defaulting_type: str = SYSTEM_DEFAULTING,
                 default_constraints: Sequence[TopologySpreadConstraint] = (),
                 default_selector: DefaultSelector = no_default_selector) -> None:
        self.handle = handle
        self.system_defaulted = defaulting_type == SYSTEM_DEFAULTING
        self.default_constraints = tuple(SYSTEM_DEFAULT_CONSTRAINTS if self.system_defaulted else default_constraints)
        self.default_selector = default_selector

    def _constraints(self, pod: Pod, action: str) -> list[Constraint]:
        """``getConstraints`` / ``buildDefaultConstraints``."""
        labels = pod.labels
        if pod.topology_spread_constraints:
            return [Constraint(c, labels, c.label_selector) for c in pod.topology_spread_constraints
                    if c.when_unsatisfiable == action]
        defaults = [c for c in self.default_constraints if c.when_unsatisfiable == action]
        if not defaults:
            return []
        selector = self.default_selector(pod)
        if selector is None or not (selector.match_labels or selector.match_expressions):
            return []
        return [Constraint(TopologySpreadConstraint(c.max_skew, c.topology_key, c.when_unsatisfiable,
                                                    min_domains=c.min_domains,
                                                    node_affinity_policy=c.node_affinity_policy,
                                                    node_taints_policy=c.node_taints_policy),
                           labels, selector) for c in defaults]

    # -- PreFilter and Filter (filtering.go) ------------------------------------------------

    def pre_filter(
        self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
    ) -> tuple[PreFilterResult | None, Status | None]:
        """``PreFilter`` (``calPreFilterState``): Skip without DoNotSchedule constraints."""
        constraints = self._constraints(pod, DO_NOT_SCHEDULE)
        if not constraints:
            return None, _SKIP
        keys = [c.topology_key for c in constraints]
        counts: list[dict[str, int]] = [{} for _ in constraints]
        namespace = pod.namespace
        for info in nodes:
            node = info.node
            assert node is not None
            labels = node.labels
            if not all(key in labels for key in keys):
                continue
            for c, by_value in zip(constraints, counts, strict=True):
                if not c.includes(pod, node):
                    continue
                value = labels[c.topology_key]
                by_value[value] = by_value.get(value, 0) + c.count(info, namespace)
        paths = []
        for by_value in counts:
            critical = CriticalPaths()
            for value, num in by_value.items():
                critical.update(value, num)
            paths.append(critical)
        state.write(_PRE_FILTER_KEY, PreFilterState(constraints, paths, counts))
        return None, None

    def add_pod(self, state: CycleState, pod: Pod, pod_to_add: Pod, node_info: NodeInfo) -> Status | None:
        """``AddPod`` (PreFilterExtensions)."""
        return self._update(state, pod, pod_to_add, node_info, 1)

    def remove_pod(self, state: CycleState, pod: Pod, pod_to_remove: Pod, node_info: NodeInfo) -> Status | None:
        """``RemovePod`` (PreFilterExtensions)."""
        return self._update(state, pod, pod_to_remove, node_info, -1)

    def _update(self, state: CycleState, pod: Pod, other: Pod, node_info: NodeInfo, delta: int) -> Status | None:
        """``updateWithPod``."""
        data = state.get(_PRE_FILTER_KEY)
        if not isinstance(data, PreFilterState):
            return Status(Code.ERROR, f'reading "{_PRE_FILTER_KEY}" from cycleState: not found')
        node = node_info.node
        if other.namespace != pod.namespace or node is None:
            return None
        labels = node.labels
        if not all(c.topology_key in labels for c in data.constraints):
            return None
        for i, c in enumerate(data.constraints):
            if not c.matches(other.labels) or not c.includes(pod, node):
                continue
            value = labels[c.topology_key]
            data.tp_value_to_match_num[i][value] = data.tp_value_to_match_num[i].get(value, 0) + delta
            data.critical_paths[i].update(value, data.tp_value_to_match_num[i][value])
        return None

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        """``Filter``: a missing topology label is UnschedulableAndUnresolvable; a skew above maxSkew
        Unschedulable."""
        data = state.get(_PRE_FILTER_KEY)
        if not isinstance(data, PreFilterState):
            return Status(Code.ERROR, f'reading "{_PRE_FILTER_KEY}" from cycleState: not found')
        node = node_info.node
        if node is None:
            return Status(Code.ERROR, "node not found")
        labels = node.labels
        pod_labels = pod.labels
        for i, c in enumerate(data.constraints):
            key = c.topology_key
            if key not in labels:
                return _LABEL_MISSING
            self_match = 1 if c.matches(pod_labels) else 0
            if data.tp_value_to_match_num[i].get(labels[key], 0) + self_match - data.min_match_num(i) > c.max_skew:
                return _SKEWED
        return None

    # -- PreScore, Score, NormalizeScore (scoring.go) --------------------------------------

    def pre_score(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]) -> Status | None:
        """``PreScore`` over the feasible ``nodes``: Skip without nodes or ScheduleAnyway constraints."""
        all_nodes = self.handle.snapshot.list_nodes()
        if not all_nodes:
            return _SKIP
        require_all = bool(pod.topology_spread_constraints) or not self.system_defaulted
        constraints = self._constraints(pod, SCHEDULE_ANYWAY)
        if not constraints:
            return _SKIP
        keys = [c.topology_key for c in constraints]
        counts: list[dict[str, int]] = [{} for _ in constraints]
        ignored: set[str] = set()
        for info in nodes:
            node = info.node
            assert node is not None
            labels = node.labels
            if require_all and not all(key in labels for key in keys):
                ignored.add(node.name)
                continue
            for c, by_value in zip(constraints, counts, strict=True):
                if c.topology_key != LABEL_HOSTNAME:
                    by_value.setdefault(labels.get(c.topology_key, ""), 0)
        weights = [math.log((len(nodes) - len(ignored) if c.topology_key == LABEL_HOSTNAME else len(by_value)) + 2)
                   for c, by_value in zip(constraints, counts, strict=True)]
        namespace = pod.namespace
        for info in all_nodes:
            node = info.node
            assert node is not None
            labels = node.labels
            if require_all and not all(key in labels for key in keys):
                continue
            for c, by_value in zip(constraints, counts, strict=True):
                if not c.includes(pod, node):
                    continue
                value = labels.get(c.topology_key, "")
                if value in by_value:
                    by_value[value] += c.count(info, namespace)
        state.write(_PRE_SCORE_KEY, PreScoreState(constraints, ignored, counts, weights))
        return None

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> tuple[int, Status | None]:
        """``Score``: the rounded sum of ``count * weight + maxSkew - 1`` over the node's constraints."""
        data = state.get(_PRE_SCORE_KEY)
        if not isinstance(data, PreScoreState):
            return 0, Status(Code.ERROR, f'error reading "{_PRE_SCORE_KEY}" from cycleState')
        node = node_info.node
        assert node is not None
        if node.name in data.ignored_nodes:
            return 0, None
        labels = node.labels
        total = 0.0
        for i, c in enumerate(data.constraints):
            key = c.topology_key
            if key not in labels:
                continue
            count = c.count(node_info, pod.namespace) if key == LABEL_HOSTNAME else data.counts[i][labels[key]]
            total += count * data.weights[i] + (c.max_skew - 1)
        return go_round(total), None

    def normalize_score(self, state: CycleState, pod: Pod, scores: list[NodeScore]) -> Status | None:
        """``NormalizeScore``: ignored nodes 0; ``MaxNodeScore * (max + min - s) / max``, or 100 when max is 0."""
        data = state.get(_PRE_SCORE_KEY)
        if not isinstance(data, PreScoreState):
            return Status(Code.ERROR, f'error reading "{_PRE_SCORE_KEY}" from cycleState')
        ignored = data.ignored_nodes
        low, high = _MAX_INT64, 0
        for s in scores:
            if s.name in ignored:
                s.score = -1
                continue
            low = min(low, s.score)
            high = max(high, s.score)
        for s in scores:
            if s.score == -1:
                s.score = 0
            elif high == 0:
                s.score = MAX_NODE_SCORE
            else:
                s.score = MAX_NODE_SCORE * (high + low - s.score) // high
        return None

    def sign_pod(self, pod: Pod) -> tuple[list[SignFragment], Status | None]:
        """``SignPod``: a pod with constraints, or any pod while the profile has default constraints (the default
        profile's system defaulting), cannot be signed."""
        if pod.topology_spread_constraints:
            return [], Status(Code.UNSCHEDULABLE, "pods with topology constraints are not signable")
        if self.default_constraints:
            return [], Status(Code.UNSCHEDULABLE, "pods with default topology constraints are not signable")
        return [], None


def go_round(value: float) -> int:
    """Go's ``math.Round``: halves away from zero."""
    return int(math.copysign(math.floor(abs(value) + 0.5), value))
