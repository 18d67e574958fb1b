"""The choice of a scheduling cycle: which nodes it examines, how it scores the feasible ones, and which it may pick.

This is ``schedulePod``, ``findNodesThatPassFilters``, ``numFeasibleNodesToFind``, ``prioritizeNodes`` and the
host selection after them (pkg/scheduler/schedule_one.go, v1.35; ``RunScorePlugins`` in
pkg/scheduler/framework/runtime/framework.go), for the default profile without extenders:

1. A snapshot without nodes fails the cycle with ``ErrNoNodesAvailable``.
2. The search (:func:`find_nodes_that_pass_filters`) runs the filters on the snapshot's nodes in round-robin order
   from ``nextStartNodeIndex`` and stops once :func:`num_feasible_nodes_to_find` nodes passed; the index then moves
   past the nodes it processed (:func:`next_start_node_index`). Below 100 nodes every node is searched, so the index
   never moves.
3. No feasible node: the cycle fails with a ``FitError`` (:func:`spec.cycle.messages.fit_error_message`).
   One feasible node: it is the choice, unscored.
4. Otherwise every Score plugin that PreScore does not skip scores every feasible node, NormalizeScore rescales a
   plugin's scores, each is multiplied by the plugin's weight, and a node's total is their sum
   (:func:`prioritize_nodes`). The cycle picks a node with the highest total: :func:`allowed_hosts` is the set it
   may pick from.

What Go leaves to chance, the spec leaves open. Kubernetes filters on 16 goroutines, so once enough nodes passed,
*which* nodes were found first can differ from the sequential order stated here (only with 100 nodes or more, where
the search stops early). Among nodes with the same highest total, v1.34 picks uniformly at random (reservoir
sampling in ``selectHost``); v1.35 pops a max-heap of the scores, whose top among equal totals depends on the order
the parallel search found the nodes in. Either way the chosen node is in :func:`allowed_hosts`, and every node of it
can be chosen. Opportunistic batching (v1.35) may take the next node of the previous cycle's ranking instead of
scoring again; it does so only for a pod of the same signature whose previous node became full, where that node is
again among the highest-scored (the default Score plugins score a node from that node alone, and normalising keeps
the order).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from spec.cache.nodeinfo import NodeInfo
from spec.cache.snapshot import Snapshot
from spec.cycle.filters import Rejection, first_rejection
from spec.cycle.interpodaffinity import NO_NAMESPACES, Namespaces
from spec.cycle.messages import ERR_NO_NODES_AVAILABLE, filter_reasons, fit_error_message
from spec.cycle.nominated import NominatedPods, nominated_rejection
from spec.cycle.scores import (
    DEFAULT_SCORE_PLUGINS,
    MAX_NODE_SCORE,
    MIN_NODE_SCORE,
    ScoreContext,
    ScorePlugin,
    score_plugins,
)
from spec.objects import Pod
from spec.versions import DEFAULT_PROFILE, VersionProfile

MIN_FEASIBLE_NODES_TO_FIND: Final = 100
"""``minFeasibleNodesToFind``: below this many nodes every node is searched, and the search finds at least this
many feasible nodes (if there are)."""
MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND: Final = 5
"""``minFeasibleNodesPercentageToFind``: the adaptive percentage never goes below it."""
DEFAULT_PERCENTAGE_OF_NODES_TO_SCORE: Final = 0
"""``DefaultPercentageOfNodesToScore`` (the global ``percentageOfNodesToScore``): 0 means adaptive."""


# ============================================================================================
# The search
# ============================================================================================


def num_feasible_nodes_to_find(num_all_nodes: int, profile_percentage: int | None = None,
                               global_percentage: int = DEFAULT_PERCENTAGE_OF_NODES_TO_SCORE) -> int:
    """``numFeasibleNodesToFind``: how many feasible nodes the search stops after. Below 100 nodes, all of them.
    Otherwise the profile's ``percentageOfNodesToScore`` if set, else the global one; 0 means the adaptive
    ``50 - numAllNodes/125`` percent, at least 5; the result is at least 100.

    Kubernetes: `Scheduler.numFeasibleNodesToFind` (pkg/scheduler/schedule_one.go)
    """
    if num_all_nodes < MIN_FEASIBLE_NODES_TO_FIND:
        return num_all_nodes
    percentage = profile_percentage if profile_percentage is not None else global_percentage
    if percentage == 0:
        percentage = max(50 - num_all_nodes // 125, MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND)
    return max(num_all_nodes * percentage // 100, MIN_FEASIBLE_NODES_TO_FIND)


def next_start_node_index(start: int, processed: int, num_all_nodes: int) -> int:
    """Where the next cycle's search starts: past the nodes this one processed (feasible or rejected), modulo the
    number of nodes. Updated even when the search ends in an error, so that every node gets its turn.

    Kubernetes: `Scheduler.findNodesThatFitPod` (pkg/scheduler/schedule_one.go)
    """
    return (start + processed) % num_all_nodes


@dataclass(frozen=True)
class Search:
    """What the search found: the feasible nodes in the order found, each rejected node with the first filter that
    rejected it, and the next cycle's start index."""

    feasible: tuple[str, ...]
    rejected: tuple[tuple[str, Rejection], ...]
    next_start: int


def find_nodes_that_pass_filters(snapshot: Snapshot, pod: Pod, start: int = 0, to_find: int | None = None,
                                 namespaces: Namespaces = NO_NAMESPACES,
                                 nominated: NominatedPods | None = None) -> Search:
    """Run the filters on the snapshot's nodes in round-robin order from ``start`` (``nodes[(start + i) % n]``) until
    ``to_find`` nodes passed (default :func:`num_feasible_nodes_to_find` of the node count); the search as one
    goroutine would run it, with the cluster's ``namespaces``. With ``nominated`` (the queue's nominated pods of a
    node), each node's Filter counts them (:func:`spec.cycle.nominated.filter_with_nominated_pods`); without, no pod
    is nominated. Fails with ``ValueError`` on a start outside the node list.

    Kubernetes: `Scheduler.findNodesThatPassFilters` (pkg/scheduler/schedule_one.go)
    """
    names = snapshot.node_info_list
    count = len(names)
    if not 0 <= start < max(count, 1):
        raise ValueError(f"start index {start} is outside a list of {count} node(s)")
    wanted = num_feasible_nodes_to_find(count) if to_find is None else to_find
    feasible: list[str] = []
    rejected: list[tuple[str, Rejection]] = []
    for i in range(count):
        if len(feasible) >= wanted:
            break
        name = names[(start + i) % count]
        rejection = _node_rejection(snapshot, pod, name, namespaces, nominated)
        if rejection is None:
            feasible.append(name)
        else:
            rejected.append((name, rejection))
    processed = len(feasible) + len(rejected)
    return Search(tuple(feasible), tuple(rejected), next_start_node_index(start, processed, count) if count else 0)


def _node_rejection(snapshot: Snapshot, pod: Pod, name: str, namespaces: Namespaces,
                    nominated: NominatedPods | None) -> Rejection | None:
    """Filter's status of ``pod`` on node ``name``, with the nominated pods if there is a nominator."""
    info = snapshot.node_info_map[name]
    if nominated is None:
        return first_rejection(pod, info, snapshot, namespaces)
    found = nominated_rejection(pod, info, nominated(name), snapshot, namespaces)
    return None if found is None else found[0]


def rejection_reasons(snapshot: Snapshot, pod: Pod, name: str, plugin: str, profile: VersionProfile,
                      namespaces: Namespaces = NO_NAMESPACES,
                      nominated: NominatedPods | None = None) -> tuple[str, ...]:
    """The reasons of the status filter ``plugin`` rejected ``pod`` with on node ``name``: read on the NodeInfo the
    rejecting pass of ``RunFilterPluginsWithNominatedPods`` saw (with the nominated pods, if ``nominated`` is given
    and they made the difference).

    Kubernetes: `frameworkImpl.RunFilterPluginsWithNominatedPods` (pkg/scheduler/framework/runtime/framework.go)
    """
    info, seen = snapshot.node_info_map[name], snapshot
    if nominated is not None:
        found = nominated_rejection(pod, info, nominated(name), snapshot, namespaces)
        if found is not None:
            _, info, seen = found
    return filter_reasons(plugin, pod, info, seen, profile, namespaces)


# ============================================================================================
# Scoring
# ============================================================================================


@dataclass(frozen=True)
class NodeScore:
    """``fwk.NodePluginScores``: a node's weighted score from each plugin that ran, in the profile's order, and
    their total."""

    node: str
    plugins: tuple[tuple[str, int], ...]
    total: int


def plugins_run(pod: Pod, context: ScoreContext,
                plugins: tuple[ScorePlugin, ...] = DEFAULT_SCORE_PLUGINS) -> tuple[ScorePlugin, ...]:
    """The Score plugins PreScore does not skip, in the profile's order.

    Kubernetes: `frameworkImpl.RunPreScorePlugins` (pkg/scheduler/framework/runtime/framework.go)
    """
    return tuple(p for p in plugins if p.skips is None or not p.skips(pod, context))


def plugin_scores(plugin: ScorePlugin, pod: Pod, context: ScoreContext) -> tuple[int, ...]:
    """One plugin's score of every feasible node, normalised if the plugin normalises, before its weight. Each must
    be in [0, 100] (Kubernetes fails the cycle otherwise; no modelled plugin does).

    Kubernetes: `frameworkImpl.RunScorePlugins` (pkg/scheduler/framework/runtime/framework.go)
    """
    raw = tuple((info.name, plugin.score(pod, info, context)) for info in context.feasible)
    scores = plugin.normalize(pod, raw, context) if plugin.normalize is not None else tuple(s for _, s in raw)
    assert all(MIN_NODE_SCORE <= s <= MAX_NODE_SCORE for s in scores), f"{plugin.name} scored outside [0, 100]"
    return scores


def prioritize_nodes(pod: Pod, context: ScoreContext,
                     plugins: tuple[ScorePlugin, ...] = DEFAULT_SCORE_PLUGINS) -> tuple[NodeScore, ...]:
    """Every feasible node's weighted plugin scores and total, in the feasible nodes' order. Without a Score plugin
    every node scores 1.

    Kubernetes: `prioritizeNodes` (pkg/scheduler/schedule_one.go)
    """
    if not plugins:
        return tuple(NodeScore(info.name, (), 1) for info in context.feasible)
    running = plugins_run(pod, context, plugins)
    columns = [plugin_scores(plugin, pod, context) for plugin in running]
    result = []
    for i, info in enumerate(context.feasible):
        weighted = tuple((plugin.name, column[i] * plugin.weight) for plugin, column in zip(running, columns,
                                                                                                 strict=True))
        result.append(NodeScore(info.name, weighted, sum(score for _, score in weighted)))
    return tuple(result)


def allowed_hosts(scores: tuple[NodeScore, ...]) -> frozenset[str]:
    """The nodes the cycle may pick: every node with the highest total (none if there are no scores).

    Kubernetes: `newSortedNodeScores` and `sortedNodeScores.Pop` (pkg/scheduler/schedule_one.go)
    """
    if not scores:
        return frozenset()
    top = max(s.total for s in scores)
    return frozenset(s.node for s in scores if s.total == top)


# ============================================================================================
# A scheduling cycle's decision
# ============================================================================================


@dataclass(frozen=True)
class Decision:
    """What ``schedulePod`` decides for a pod: the feasible nodes found (sorted), their scores (empty unless at
    least two are feasible: one feasible node is chosen unscored), the nodes it may choose (sorted), the failure
    message ("" if it chose a node), each rejected node with its first rejecting filter, and the next start index."""

    feasible: tuple[str, ...]
    scores: tuple[NodeScore, ...]
    allowed: tuple[str, ...]
    message: str
    rejected: tuple[tuple[str, Rejection], ...] = ()
    next_start: int = 0


def schedule_decision(snapshot: Snapshot, pod: Pod, profile: VersionProfile = DEFAULT_PROFILE, *, start: int = 0,
                      to_find: int | None = None,
                      plugins: tuple[ScorePlugin, ...] | None = None,
                      namespaces: Namespaces = NO_NAMESPACES, nominated: NominatedPods | None = None) -> Decision:
    """``schedulePod`` on a refreshed ``snapshot``: the search from ``start`` (stopping after ``to_find`` feasible
    nodes, default :func:`num_feasible_nodes_to_find`), then the failure, the single node, or the scores and the
    nodes with the highest total, scored by ``plugins`` (default: the release's, :func:`score_plugins`).
    InterPodAffinity's namespace lister lists ``namespaces`` (the cluster's); ``nominated`` gives the queue's
    nominated pods of a node, which Filter counts (None: no pod is nominated). Fails
    with ``ValueError`` on a start outside the node list.

    Kubernetes: `Scheduler.schedulePod` (pkg/scheduler/schedule_one.go)
    """
    count = len(snapshot.node_info_list)
    if count == 0:
        return Decision((), (), (), ERR_NO_NODES_AVAILABLE)
    search = find_nodes_that_pass_filters(snapshot, pod, start, to_find, namespaces, nominated)
    feasible = search.feasible
    if not feasible:
        reasons = (rejection_reasons(snapshot, pod, name, r.plugin, profile, namespaces, nominated)
                   for name, r in search.rejected)
        message = fit_error_message(count, reasons)
        return Decision((), (), (), message, search.rejected, search.next_start)
    if len(feasible) == 1:
        return Decision(feasible, (), feasible, "", search.rejected, search.next_start)
    infos: tuple[NodeInfo, ...] = tuple(snapshot.node_info_map[name] for name in feasible)
    scores = prioritize_nodes(pod, ScoreContext(snapshot, infos, profile, namespaces),
                              score_plugins(profile) if plugins is None else plugins)
    return Decision(tuple(sorted(feasible)), scores, tuple(sorted(allowed_hosts(scores))), "", search.rejected,
                    search.next_start)
