"""PodTopologySpread: spread matching pods evenly over topology domains.

The default plugin PodTopologySpread (pkg/scheduler/framework/plugins/podtopologyspread, v1.35): common.go (the
constraints, the node inclusion policies, the pod counting), filtering.go (PreFilter, Filter), scoring.go (PreScore,
Score, NormalizeScore) and plugin.go (the system default constraints).

**Constraints.** A pod's own ``topologySpreadConstraints`` with the ``whenUnsatisfiable`` at hand
(``DoNotSchedule`` for Filter, ``ScheduleAnyway`` for Score); when it has none, the profile's default constraints,
which v1.35's default profile takes from the system (:data:`SYSTEM_DEFAULT_CONSTRAINTS`, ``defaultingType:
System``), with the selector of the Services and controllers that select the pod; with no such selector, none.
Each constraint's selector gets ``key In (value)`` for each ``matchLabelKeys`` key the pod has a label for; a nil
``minDomains`` is 1, a nil ``nodeAffinityPolicy`` Honor, a nil ``nodeTaintsPolicy`` Ignore.

**Filter.** PreFilter counts, for each constraint and each domain (a value of its topology key), the pods in the
incoming pod's namespace the selector matches on the nodes that have every constraint's key and that the
constraint's policies include (Honor: the node matches the pod's node selector; the node's NoSchedule and NoExecute
taints are tolerated). A node without some constraint's key is ``UnschedulableAndUnresolvable``; otherwise it is
``Unschedulable`` when, for some constraint, ``count(node's domain) + (1 if the pod matches the selector) - global
minimum > maxSkew``, where the global minimum is the smallest domain count, or 0 when there are fewer domains than
``minDomains``.

**Score.** For ScheduleAnyway constraints, over the feasible nodes: each node scores ``sum(count * log(domains + 2)
+ maxSkew - 1)`` rounded, where the count is of its domain (its own pods for ``kubernetes.io/hostname``), and
NormalizeScore maps a lower score to a higher one: ``100 * (max + min - s) / max``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Final

from spec.cache.nodeinfo import NodeInfo
from spec.cache.snapshot import Snapshot
from spec.cycle.status import Code, FilterRejection
from spec.frozenmap import FrozenMap
from spec.objects import (
    DO_NOT_SCHEDULE,
    LABEL_HOSTNAME,
    LABEL_TOPOLOGY_ZONE,
    NODE_INCLUSION_HONOR,
    NODE_INCLUSION_IGNORE,
    SCHEDULE_ANYWAY,
    SELECTOR_IN,
    LabelSelector,
    LabelSelectorRequirement,
    Node,
    Pod,
    TopologySpreadConstraint,
    selector_matches,
)

NAME: Final = "PodTopologySpread"
ERR_REASON_CONSTRAINTS_NOT_MATCH: Final = "node(s) didn't match pod topology spread constraints"
"""``ErrReasonConstraintsNotMatch`` (plugin.go)."""
ERR_REASON_NODE_LABEL_NOT_MATCH: Final = ERR_REASON_CONSTRAINTS_NOT_MATCH + " (missing required label)"
"""``ErrReasonNodeLabelNotMatch`` (plugin.go)."""
MAX_NODE_SCORE: Final = 100
"""``fwk.MaxNodeScore``."""

SYSTEM_DEFAULT_HOSTNAME_MAX_SKEW: Final = 3
SYSTEM_DEFAULT_ZONE_MAX_SKEW: Final = 5
SYSTEM_DEFAULT_CONSTRAINTS: Final = (
    TopologySpreadConstraint(SYSTEM_DEFAULT_HOSTNAME_MAX_SKEW, LABEL_HOSTNAME, SCHEDULE_ANYWAY),
    TopologySpreadConstraint(SYSTEM_DEFAULT_ZONE_MAX_SKEW, LABEL_TOPOLOGY_ZONE, SCHEDULE_ANYWAY),
)
"""``systemDefaultConstraints`` (plugin.go): what a pod without constraints of its own is spread by under
``defaultingType: System``: at most 3 more per node and 5 more per zone, as a preference only."""


class DefaultingType(StrEnum):
    """``PodTopologySpreadConstraintsDefaulting`` (pkg/scheduler/apis/config/types_pluginargs.go)."""

    SYSTEM = "System"
    """The default (``SetDefaults_PodTopologySpreadArgs``): :data:`SYSTEM_DEFAULT_CONSTRAINTS`."""
    LIST = "List"
    """The profile's ``defaultConstraints`` list (none when empty)."""


@dataclass(frozen=True)
class SpreadArgs:
    """``PodTopologySpreadArgs``: how a pod without constraints is spread."""

    defaulting_type: DefaultingType = DefaultingType.SYSTEM
    default_constraints: tuple[TopologySpreadConstraint, ...] = ()
    """Used only with :attr:`DefaultingType.LIST`."""

    def constraints(self) -> tuple[TopologySpreadConstraint, ...]:
        """``New``: the system's constraints under System, else the list."""
        if self.defaulting_type is DefaultingType.SYSTEM:
            return SYSTEM_DEFAULT_CONSTRAINTS
        return self.default_constraints

    @property
    def system_defaulted(self) -> bool:
        return self.defaulting_type is DefaultingType.SYSTEM


DEFAULT_SPREAD_ARGS: Final = SpreadArgs()
"""v1.35's default profile: system defaulting."""

NodeCheck = Callable[[Pod, Node, NodeInfo], bool]
"""A filter's question about a node (NodeAffinity's, TaintToleration's), which the inclusion policies ask."""


# ============================================================================================
# Constraints (common.go)
# ============================================================================================


@dataclass(frozen=True)
class Constraint:
    """``topologySpreadConstraint``: a constraint with its selector merged and its defaults filled in."""

    max_skew: int
    topology_key: str
    selector: LabelSelector | None
    """None is ``labels.Nothing()``."""
    min_domains: int
    node_affinity_policy: str
    node_taints_policy: str


def merge_match_label_keys(selector: LabelSelector | None, keys: Sequence[str],
                           labels: Mapping[str, str]) -> LabelSelector | None:
    """``mergeLabelSetWithSelector`` of the pod's labels for ``keys`` (those it has): a nil selector stays nil."""
    added = tuple(LabelSelectorRequirement(k, SELECTOR_IN, (labels[k],)) for k in keys if k in labels)
    if selector is None or not added:
        return selector
    return LabelSelector(selector.match_labels, added + selector.match_expressions)


def filter_constraints(constraints: Sequence[TopologySpreadConstraint], labels: Mapping[str, str],
                       action: str) -> tuple[Constraint, ...]:
    """``filterTopologySpreadConstraints``: the constraints whose ``whenUnsatisfiable`` is ``action``, processed."""
    return tuple(
        Constraint(c.max_skew, c.topology_key, merge_match_label_keys(c.label_selector, c.match_label_keys, labels),
                   1 if c.min_domains is None else c.min_domains,
                   c.node_affinity_policy or NODE_INCLUSION_HONOR, c.node_taints_policy or NODE_INCLUSION_IGNORE)
        for c in constraints if c.when_unsatisfiable == action)


def get_constraints(pod: Pod, action: str, args: SpreadArgs = DEFAULT_SPREAD_ARGS,
                    default_selector: LabelSelector | None = None) -> tuple[Constraint, ...]:
    """``getConstraints`` (``action`` DoNotSchedule) and ``initPreScoreState``'s (ScheduleAnyway): the pod's own, or
    ``buildDefaultConstraints``: the profile's default constraints with ``default_selector`` (``DefaultSelector``:
    the pod's Services' and controller's selectors), none if that selector is empty or nil.

    Kubernetes: `PodTopologySpread.getConstraints` (pkg/scheduler/framework/plugins/podtopologyspread/plugin.go)
    Kubernetes: `buildDefaultConstraints` (pkg/scheduler/framework/plugins/podtopologyspread/common.go)
    """
    if pod.topology_spread_constraints:
        return filter_constraints(pod.topology_spread_constraints, pod.labels, action)
    defaults = filter_constraints(args.constraints(), pod.labels, action)
    if not defaults or default_selector is None or default_selector.is_empty():
        return ()
    return tuple(Constraint(c.max_skew, c.topology_key, default_selector, c.min_domains, c.node_affinity_policy,
                            c.node_taints_policy) for c in defaults)


def node_labels_match_spread_constraints(labels: Mapping[str, str], constraints: Sequence[Constraint]) -> bool:
    """``nodeLabelsMatchSpreadConstraints``: the node has every constraint's topology key."""
    return all(c.topology_key in labels for c in constraints)


def match_node_inclusion_policies(constraint: Constraint, pod: Pod, info: NodeInfo, node_affinity: NodeCheck,
                                  node_taints: NodeCheck) -> bool:
    """``matchNodeInclusionPolicies``: under Honor, the node must pass NodeAffinity's check (``nodeAffinityPolicy``)
    and TaintToleration's (``nodeTaintsPolicy``: NoSchedule and NoExecute taints tolerated)."""
    node = info.node
    assert node is not None
    if constraint.node_affinity_policy == NODE_INCLUSION_HONOR and not node_affinity(pod, node, info):
        return False
    return not (constraint.node_taints_policy == NODE_INCLUSION_HONOR and not node_taints(pod, node, info))


def count_pods_match_selector(pods: Sequence[Pod], selector: LabelSelector | None, namespace: str) -> int:
    """``countPodsMatchSelector``: the pods in ``namespace`` the selector matches; 0 for an empty selector (which
    would match every pod) as for a nil one. The spec's pods are never terminating."""
    if selector is None or selector.is_empty():
        return 0
    return sum(1 for p in pods if p.namespace == namespace and selector.matches(p.labels))


# ============================================================================================
# PreFilter and Filter (filtering.go)
# ============================================================================================


@dataclass(frozen=True)
class PreFilterState:
    """``preFilterState``: the DoNotSchedule constraints and, per constraint, the matching pods per domain.

    Go keeps the two smallest counts per constraint (``criticalPaths``) to find the minimum fast; the spec takes the
    minimum of the counts, which is what they hold after PreFilter."""

    constraints: tuple[Constraint, ...]
    tp_value_to_match_num: tuple[FrozenMap[str, int], ...]

    def min_match_num(self, index: int) -> int:
        """``minMatchNum``: the smallest domain count, or 0 while there are fewer domains than ``minDomains``."""
        counts = self.tp_value_to_match_num[index]
        if len(counts) < self.constraints[index].min_domains:
            return 0
        return min(counts.values())


def pre_filter(pod: Pod, snapshot: Snapshot, node_affinity: NodeCheck, node_taints: NodeCheck,
               args: SpreadArgs = DEFAULT_SPREAD_ARGS,
               default_selector: LabelSelector | None = None) -> PreFilterState | None:
    """``PodTopologySpread.PreFilter``: the counts over every node of the snapshot, or None (``Skip``) when the pod
    has no DoNotSchedule constraint. ``node_affinity`` and ``node_taints`` are the inclusion policies' checks.

    Kubernetes: `PodTopologySpread.calPreFilterState` (pkg/scheduler/framework/plugins/podtopologyspread/filtering.go)
    """
    constraints = get_constraints(pod, DO_NOT_SCHEDULE, args, default_selector)
    if not constraints:
        return None
    counts: list[dict[str, int]] = [{} for _ in constraints]
    for name in snapshot.node_info_list:
        info = snapshot.node_info_map[name]
        node = info.node
        assert node is not None, "the snapshot lists only nodes with a Node object"
        if not node_labels_match_spread_constraints(node.labels, constraints):
            continue
        for i, c in enumerate(constraints):
            if not match_node_inclusion_policies(c, pod, info, node_affinity, node_taints):
                continue
            value = node.labels[c.topology_key]
            counts[i][value] = counts[i].get(value, 0) + count_pods_match_selector(info.pods, c.selector,
                                                                                   pod.namespace)
    return PreFilterState(constraints, tuple(FrozenMap(c) for c in counts))


def filter_node(state: PreFilterState | None, pod: Pod, node: Node) -> FilterRejection | None:
    """``PodTopologySpread.Filter`` on ``node`` with the PreFilter state (None: skipped, so it passes): each
    constraint in order, ``matchNum + selfMatchNum - minMatchNum <= maxSkew``.

    Kubernetes: `PodTopologySpread.Filter` (pkg/scheduler/framework/plugins/podtopologyspread/filtering.go)
    """
    if state is None:
        return None
    for i, c in enumerate(state.constraints):
        if c.topology_key not in node.labels:
            return FilterRejection(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ERR_REASON_NODE_LABEL_NOT_MATCH)
        self_match = 1 if selector_matches(c.selector, pod.labels) else 0
        match_num = state.tp_value_to_match_num[i].get(node.labels[c.topology_key], 0)
        if match_num + self_match - state.min_match_num(i) > c.max_skew:
            return FilterRejection(Code.UNSCHEDULABLE, ERR_REASON_CONSTRAINTS_NOT_MATCH)
    return None


# ============================================================================================
# PreScore, Score, NormalizeScore (scoring.go)
# ============================================================================================


@dataclass(frozen=True)
class PreScoreState:
    """``preScoreState``: the ScheduleAnyway constraints, the feasible nodes without some topology key (scored 0),
    the matching pods per domain of the feasible nodes (hostname domains are counted at Score), and each
    constraint's weight ``log(domains + 2)``."""

    constraints: tuple[Constraint, ...]
    ignored_nodes: frozenset[str]
    topology_value_to_pod_counts: tuple[FrozenMap[str, int], ...]
    topology_normalizing_weight: tuple[float, ...]


def topology_normalizing_weight(size: int) -> float:
    """``topologyNormalizingWeight``: ``log(size + 2)``."""
    return math.log(size + 2)


def score_for_count(count: int, max_skew: int, weight: float) -> float:
    """``scoreForCount``: ``count * weight + maxSkew - 1``."""
    return count * weight + (max_skew - 1)


def pre_score(pod: Pod, snapshot: Snapshot, feasible: Sequence[str], node_affinity: NodeCheck,
              node_taints: NodeCheck, args: SpreadArgs = DEFAULT_SPREAD_ARGS,
              default_selector: LabelSelector | None = None) -> PreScoreState | None:
    """``PodTopologySpread.PreScore`` over the ``feasible`` nodes (names in ``snapshot``): None (``Skip``) when the
    snapshot has no node or the pod no ScheduleAnyway constraint. Nodes must have every topology key unless the
    constraints are the system's defaults (so a node without a zone still gets hostname spreading).

    Kubernetes: `PodTopologySpread.PreScore` (pkg/scheduler/framework/plugins/podtopologyspread/scoring.go)
    Kubernetes: `PodTopologySpread.initPreScoreState` (pkg/scheduler/framework/plugins/podtopologyspread/scoring.go)
    """
    if not snapshot.node_info_list:
        return None
    require_all = bool(pod.topology_spread_constraints) or not args.system_defaulted
    constraints = get_constraints(pod, SCHEDULE_ANYWAY, args, default_selector)
    if not constraints:
        return None
    ignored: set[str] = set()
    counts: list[dict[str, int]] = [{} for _ in constraints]
    for name in feasible:
        node = _node(snapshot, name)
        if require_all and not node_labels_match_spread_constraints(node.labels, constraints):
            ignored.add(name)
            continue
        for i, c in enumerate(constraints):
            if c.topology_key != LABEL_HOSTNAME:
                counts[i].setdefault(node.labels.get(c.topology_key, ""), 0)
    weights = tuple(topology_normalizing_weight(len(feasible) - len(ignored) if c.topology_key == LABEL_HOSTNAME
                                                else len(counts[i])) for i, c in enumerate(constraints))
    for name in snapshot.node_info_list:
        info = snapshot.node_info_map[name]
        node = _node(snapshot, name)
        if require_all and not node_labels_match_spread_constraints(node.labels, constraints):
            continue
        for i, c in enumerate(constraints):
            if not match_node_inclusion_policies(c, pod, info, node_affinity, node_taints):
                continue
            value = node.labels.get(c.topology_key, "")
            if value in counts[i]:
                counts[i][value] += count_pods_match_selector(info.pods, c.selector, pod.namespace)
    return PreScoreState(constraints, frozenset(ignored), tuple(FrozenMap(c) for c in counts), weights)


def go_round(value: float) -> int:
    """Go's ``math.Round``: halves away from zero (Python's ``round`` takes halves to even)."""
    return int(math.copysign(math.floor(abs(value) + 0.5), value))


def score(state: PreScoreState, pod: Pod, info: NodeInfo) -> int:
    """``PodTopologySpread.Score``: 0 for an ignored node, else the rounded sum over the constraints whose key the
    node has of :func:`score_for_count` of its domain's count (its own matching pods for hostname).

    Kubernetes: `PodTopologySpread.Score` (pkg/scheduler/framework/plugins/podtopologyspread/scoring.go)
    """
    node = info.node
    assert node is not None
    if node.name in state.ignored_nodes:
        return 0
    total = 0.0
    for i, c in enumerate(state.constraints):
        if c.topology_key not in node.labels:
            continue
        if c.topology_key == LABEL_HOSTNAME:
            count = count_pods_match_selector(info.pods, c.selector, pod.namespace)
        else:
            count = state.topology_value_to_pod_counts[i][node.labels[c.topology_key]]
        total += score_for_count(count, c.max_skew, state.topology_normalizing_weight[i])
    return go_round(total)


def normalize_score(state: PreScoreState, names: Sequence[str], scores: Sequence[int]) -> list[int]:
    """``PodTopologySpread.NormalizeScore``: ignored nodes 0; the others ``100 * (max + min - s) / max`` (integer
    division), or 100 each when the highest score is 0. Fewer matching pods score higher.

    Kubernetes: `PodTopologySpread.NormalizeScore` (pkg/scheduler/framework/plugins/podtopologyspread/scoring.go)
    """
    valid = [s for name, s in zip(names, scores, strict=True) if name not in state.ignored_nodes]
    low = min(valid, default=(1 << 63) - 1)
    high = max([0, *valid])
    out = []
    for name, s in zip(names, scores, strict=True):
        if name in state.ignored_nodes:
            out.append(0)
        elif high == 0:
            out.append(MAX_NODE_SCORE)
        else:
            out.append(MAX_NODE_SCORE * (high + low - s) // high)
    return out


def node_scores(pod: Pod, snapshot: Snapshot, feasible: Sequence[str], node_affinity: NodeCheck,
                node_taints: NodeCheck, args: SpreadArgs = DEFAULT_SPREAD_ARGS,
                default_selector: LabelSelector | None = None) -> dict[str, int] | None:
    """PreScore, Score of each feasible node and NormalizeScore: each node's final score, or None if PreScore
    skips (the plugin does not score this pod)."""
    state = pre_score(pod, snapshot, feasible, node_affinity, node_taints, args, default_selector)
    if state is None:
        return None
    raw = [score(state, pod, snapshot.node_info_map[name]) for name in feasible]
    return dict(zip(feasible, normalize_score(state, feasible, raw), strict=True))


def _node(snapshot: Snapshot, name: str) -> Node:
    node = snapshot.node_info_map[name].node
    assert node is not None, f"node {name} has no Node object"
    return node
