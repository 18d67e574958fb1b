"""How the default Score plugins rank the feasible nodes: each plugin's score, its normalisation and its weight.

These are the Score and NormalizeScore extension points of the default profile's scoring plugins
(pkg/scheduler/framework/plugins, v1.35), with the weights of ``getDefaultPlugins``
(pkg/scheduler/apis/config/v1/default_plugins.go): TaintToleration 3, NodeAffinity 2, NodeResourcesFit 1,
PodTopologySpread 2, InterPodAffinity 2, NodeResourcesBalancedAllocation 1, ImageLocality 1.

A plugin is one :class:`ScorePlugin` entry: a pure ``score`` of one node, an optional ``normalize`` of every node's
score, its weight, and ``skips`` (PreScore's Skip: the plugin neither scores nor appears among a node's scores).
:data:`DEFAULT_SCORE_PLUGINS` lists them in the profile's order; PodTopologySpread's and InterPodAffinity's
PreScore, Score and NormalizeScore are the pure functions of :mod:`spec.cycle.podtopologyspread` and
:mod:`spec.cycle.interpodaffinity`, whose PreScore reads the cycle's snapshot (and, for PodTopologySpread, the
feasible nodes).
:mod:`spec.cycle.select` runs them over the feasible nodes (``prioritizeNodes``).

What is left out: the plugins' arguments other than the defaults (``addedAffinity``, other scoring strategies or
resources), DRA-backed extended resources, in-place resize (container statuses), and TaintToleration's alpha
comparison operators.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from math import sqrt
from typing import Final

from spec.cache.imagestates import ImageStateSummary
from spec.cache.nodeinfo import NodeInfo
from spec.cache.snapshot import Snapshot
from spec.cycle import interpodaffinity, podtopologyspread
from spec.cycle.filters import fits_node_affinity, fits_taint_toleration, tolerates
from spec.frozenmap import FrozenMap
from spec.objects import Node, Pod, PreferredSchedulingTerm, Taint, Toleration
from spec.quantities import CPU, MEMORY, ResourceList
from spec.resources import DEFAULT_MEMORY_REQUEST, DEFAULT_MILLI_CPU_REQUEST, pod_requests
from spec.valuetypes import remember_by_identity
from spec.versions import DEFAULT_PROFILE, VersionProfile

MAX_NODE_SCORE: Final = 100
"""``fwk.MaxNodeScore``: the highest score a plugin may give a node after normalising."""
MIN_NODE_SCORE: Final = 0
"""``fwk.MinNodeScore``."""
PREFER_NO_SCHEDULE: Final = "PreferNoSchedule"
"""``v1.TaintEffectPreferNoSchedule``: the taint effect TaintToleration scores (and never filters)."""

MB: Final = 1024 * 1024
MIN_THRESHOLD: Final = 23 * MB
"""``minThreshold`` (imagelocality): an image sum at or below it scores 0."""
MAX_CONTAINER_THRESHOLD: Final = 1000 * MB
"""``maxContainerThreshold`` (imagelocality): per container; a sum at or above the product scores 100."""

SCORING_RESOURCES: Final = ((CPU, 1), (MEMORY, 1))
"""``defaultResourceSpec`` (pkg/scheduler/apis/config/v1/defaults.go): the resources, with their weights, that
NodeResourcesFit's LeastAllocated strategy and NodeResourcesBalancedAllocation score by default."""
NON_MISSING_REQUESTS: Final[ResourceList] = FrozenMap({CPU: DEFAULT_MILLI_CPU_REQUEST, MEMORY: DEFAULT_MEMORY_REQUEST})
"""``NonMissingContainerRequests`` for NodeResourcesFit's scoring: 100m cpu and 200Mi memory stand in for each
container that requests none (``resourceAllocationScorer.calculatePodResourceRequest`` with ``useRequested``
false)."""


@dataclass(frozen=True)
class ScoreContext:
    """What a Score plugin may read besides the pod and the node: the cycle's snapshot, the feasible nodes (what
    PreScore receives), the release, and the namespaces that exist (InterPodAffinity's namespace lister)."""

    snapshot: Snapshot
    feasible: tuple[NodeInfo, ...]
    profile: VersionProfile = DEFAULT_PROFILE
    namespaces: interpodaffinity.Namespaces = interpodaffinity.NO_NAMESPACES


NodeScores = tuple[tuple[str, int], ...]
"""Every feasible node's score from one plugin, ``(node, score)`` in the feasible nodes' order."""


@dataclass(frozen=True)
class ScorePlugin:
    """One Score plugin of the profile: its name and weight, ``score`` (``Score`` on one node), ``normalize``
    (``NormalizeScore`` over every node's score; None when the plugin has no ScoreExtensions) and ``skips``
    (``PreScore`` returns Skip: the plugin is not run this cycle)."""

    name: str
    weight: int
    score: Callable[[Pod, NodeInfo, ScoreContext], int]
    normalize: Callable[[Pod, NodeScores, ScoreContext], tuple[int, ...]] | None = None
    skips: Callable[[Pod, ScoreContext], bool] | None = None


# ============================================================================================
# helper.DefaultNormalizeScore
# ============================================================================================


def default_normalize_score(max_priority: int, reverse: bool, scores: tuple[int, ...]) -> tuple[int, ...]:
    """``DefaultNormalizeScore``: scale every score to [0, ``max_priority``] by the highest one (integer division),
    and with ``reverse`` subtract it from ``max_priority``. If the highest is 0 every node gets ``max_priority``
    when reversed and keeps 0 otherwise. Scores are never negative here, so Python's floor division is Go's.

    Kubernetes: `DefaultNormalizeScore` (pkg/scheduler/framework/plugins/helper/normalize_score.go)
    """
    highest = max((0, *scores))
    if highest == 0:
        return tuple(max_priority for _ in scores) if reverse else scores
    scaled = tuple(max_priority * s // highest for s in scores)
    return tuple(max_priority - s for s in scaled) if reverse else scaled


# ============================================================================================
# NodeResourcesFit: the LeastAllocated scoring strategy
# ============================================================================================


def least_requested_score(requested: int, capacity: int) -> int:
    """``leastRequestedScore``: the unused share of ``capacity`` on a 0-100 scale; 0 when nothing is allocatable or
    more is requested than allocatable.

    Kubernetes: `leastRequestedScore` (pkg/scheduler/framework/plugins/noderesources/least_allocated.go)
    """
    if capacity == 0 or requested > capacity:
        return 0
    return (capacity - requested) * MAX_NODE_SCORE // capacity


def fit_requests(pod: Pod, profile: VersionProfile) -> tuple[int, int]:
    """The pod's cpu (millicores) and memory (bytes) as NodeResourcesFit scores them: ``PodRequests`` of the
    containers with the non-missing defaults for every container that requests none (:data:`NON_MISSING_REQUESTS`),
    *ignoring pod-level requests* in every release: ``NewFit`` sets ``enablePodLevelResources`` on the plugin (its
    Filter reads them) but builds its ``resourceAllocationScorer`` (``nodeResourceStrategyTypeMap``) without it, so
    ``calculatePodResourceRequest`` runs with ``SkipPodLevelResources``. BalancedAllocation's scorer has the flag
    (:func:`balanced_requests`). Read in v1.34.12 to v1.37.2; found by running the cycle vectors on Kubernetes' own
    scheduler (v1.35.8). ``profile`` is kept for the signature the scorers share.

    Kubernetes: `resourceAllocationScorer.calculatePodResourceRequest` (plugins/noderesources/resource_allocation.go)
    Kubernetes: `NewFit` (plugins/noderesources/fit.go)
    """
    requests = pod_requests(pod, pod_level_resources=False, non_missing=NON_MISSING_REQUESTS)
    return requests.get(CPU, 0), requests.get(MEMORY, 0)


def least_allocated_score(pod: Pod, info: NodeInfo, context: ScoreContext) -> int:
    """NodeResourcesFit's Score: per scored resource the node has (allocatable above 0), the least-requested score
    of the node's non-zero requested plus the pod's (:func:`fit_requests`), weighted; their weighted mean with
    integer division (0 if the node has none of them).

    Kubernetes: `Fit.Score` (pkg/scheduler/framework/plugins/noderesources/fit.go)
    Kubernetes: `leastResourceScorer` (pkg/scheduler/framework/plugins/noderesources/least_allocated.go)
    """
    cpu, memory = fit_requests(pod, context.profile)
    figures = {CPU: (info.allocatable.milli_cpu, info.non_zero_requested.milli_cpu + cpu),
               MEMORY: (info.allocatable.memory, info.non_zero_requested.memory + memory)}
    node_score = weight_sum = 0
    for name, weight in SCORING_RESOURCES:
        allocatable, requested = figures[name]
        if allocatable == 0:
            continue
        node_score += least_requested_score(requested, allocatable) * weight
        weight_sum += weight
    return node_score // weight_sum if weight_sum else 0


# ============================================================================================
# NodeResourcesBalancedAllocation
# ============================================================================================


def balanced_requests(pod: Pod, profile: VersionProfile) -> tuple[int, int]:
    """The pod's cpu and memory as BalancedAllocation scores them: ``PodRequests`` without defaults
    (``useRequested`` true).

    Kubernetes: `resourceAllocationScorer.calculatePodResourceRequest` (plugins/noderesources/resource_allocation.go)
    """
    requests = pod_requests(pod, pod_level_resources=profile.pod_level_resources)
    return requests.get(CPU, 0), requests.get(MEMORY, 0)


def balanced_allocation_skips(pod: Pod, context: ScoreContext) -> bool:
    """BalancedAllocation's PreScore skips a best-effort pod: one that requests none of the scored resources.

    Kubernetes: `BalancedAllocation.PreScore` (pkg/scheduler/framework/plugins/noderesources/balanced_allocation.go)
    """
    return balanced_requests(pod, context.profile) == (0, 0)


def balanced_resource_score(requested: tuple[int, ...], allocatable: tuple[int, ...]) -> int:
    """``balancedResourceScorer``: 100 times one minus the standard deviation of the requested fractions (each
    capped at 1) of the resources the node has; with two resources the deviation is half their difference. In
    float64 arithmetic, truncated as Go's ``int64`` conversion truncates.

    Kubernetes: `balancedResourceScorer` (pkg/scheduler/framework/plugins/noderesources/balanced_allocation.go)
    """
    fractions = [min(float(r) / float(a), 1.0) for r, a in zip(requested, allocatable, strict=True) if a != 0]
    std = 0.0
    if len(fractions) == 2:
        std = abs((fractions[0] - fractions[1]) / 2)
    elif len(fractions) > 2:
        mean = sum(fractions) / float(len(fractions))
        std = sqrt(sum((f - mean) * (f - mean) for f in fractions) / float(len(fractions)))
    return int((1 - std) * float(MAX_NODE_SCORE))


def balanced_allocation_score(pod: Pod, info: NodeInfo, context: ScoreContext) -> int:
    """BalancedAllocation's Score: :func:`balanced_resource_score` of the node's requested (not the non-zero
    figures) plus the pod's requests, against the node's allocatable; where the release scores the change in
    balance (v1.36 on), :func:`balance_change_score` of that and the node's balance without the pod.

    Kubernetes: `BalancedAllocation.Score` (pkg/scheduler/framework/plugins/noderesources/balanced_allocation.go)
    Kubernetes: `resourceAllocationScorer.score` (pkg/scheduler/framework/plugins/noderesources/resource_allocation.go)
    """
    cpu, memory = balanced_requests(pod, context.profile)
    allocatable = (info.allocatable.milli_cpu, info.allocatable.memory)
    allocated = (info.requested.milli_cpu, info.requested.memory)
    with_pod = balanced_resource_score((allocated[0] + cpu, allocated[1] + memory), allocatable)
    if not context.profile.balanced_allocation_scores_change:
        return with_pod
    return balance_change_score(with_pod, balanced_resource_score(allocated, allocatable))


def balance_change_score(with_pod: int, without_pod: int) -> int:
    """v1.36's ``balancedResourceScorer``: ``MaxNodeScore/2 + (MaxNodeScore/2 + with - without)/2`` in Go's integer
    arithmetic (division truncating toward zero): 75 for a pod that leaves the balance as it was, towards 100 for
    one that improves it, towards 50 for one that worsens it.

    Kubernetes: `balancedResourceScorer` (pkg/scheduler/framework/plugins/noderesources/balanced_allocation.go,
    v1.36.5)
    """
    inner = MAX_NODE_SCORE // 2 + with_pod - without_pod
    return MAX_NODE_SCORE // 2 + (abs(inner) // 2) * (1 if inner >= 0 else -1)


# ============================================================================================
# ImageLocality
# ============================================================================================


def normalized_image_name(name: str) -> str:
    """``normalizedImageName``: ``name:latest`` when the name has no tag (no ``:`` after its last ``/``).

    Kubernetes: `normalizedImageName` (pkg/scheduler/framework/plugins/imagelocality/image_locality.go)
    """
    return name + ":latest" if name.rfind(":") <= name.rfind("/") else name


def scaled_image_score(summary: ImageStateSummary, total_num_nodes: int) -> int:
    """``scaledImageScore``: the image's size times the share of nodes that have it, in float64, truncated.

    Kubernetes: `scaledImageScore` (pkg/scheduler/framework/plugins/imagelocality/image_locality.go)
    """
    spread = float(summary.num_nodes) / float(total_num_nodes)
    return int(float(summary.size) * spread)


def calculate_priority(sum_scores: int, num_containers: int) -> int:
    """``calculatePriority``: the sum clamped to [min threshold, max threshold = 1000 MiB per container] and scaled
    to 0-100. The numerator is never negative and is 0 whenever the denominator is (without containers the sum is 0),
    so Python's floor division is Go's truncating one.

    Kubernetes: `calculatePriority` (pkg/scheduler/framework/plugins/imagelocality/image_locality.go)
    """
    max_threshold = MAX_CONTAINER_THRESHOLD * num_containers
    if sum_scores < MIN_THRESHOLD:
        sum_scores = MIN_THRESHOLD
    elif sum_scores > max_threshold:
        sum_scores = max_threshold
    return MAX_NODE_SCORE * (sum_scores - MIN_THRESHOLD) // (max_threshold - MIN_THRESHOLD)


def image_locality_score(pod: Pod, info: NodeInfo, context: ScoreContext) -> int:
    """ImageLocality's Score: over the init containers, then the containers, the scaled score of each image the node
    has (by normalised name), summed, then :func:`calculate_priority` over the number of containers. The share of
    nodes is over the snapshot's node list.

    Kubernetes: `ImageLocality.Score` (pkg/scheduler/framework/plugins/imagelocality/image_locality.go)
    Kubernetes: `sumImageScores` (pkg/scheduler/framework/plugins/imagelocality/image_locality.go)
    """
    total_num_nodes = len(context.snapshot.node_info_list)
    containers = pod.init_containers + pod.containers
    summaries = (info.image_states.get(normalized_image_name(c.image)) for c in containers)
    total = sum(scaled_image_score(s, total_num_nodes) for s in summaries if s is not None)
    return calculate_priority(total, len(containers))


# ============================================================================================
# TaintToleration
# ============================================================================================


def prefer_no_schedule_tolerations(pod: Pod) -> tuple[Toleration, ...]:
    """``getAllTolerationPreferNoSchedule``: the pod's tolerations whose effect is empty or PreferNoSchedule.

    Kubernetes: `getAllTolerationPreferNoSchedule` (pkg/scheduler/framework/plugins/tainttoleration/taint_toleration.go)
    """
    return tuple(t for t in pod.tolerations if t.effect in ("", PREFER_NO_SCHEDULE))


def intolerable_prefer_no_schedule(node: Node, tolerations: tuple[Toleration, ...]) -> tuple[Taint, ...]:
    """The node's PreferNoSchedule taints none of ``tolerations`` tolerates.

    Kubernetes: `TaintToleration.countIntolerableTaintsPreferNoSchedule` (plugins/tainttoleration/taint_toleration.go)
    """
    return tuple(taint for taint in node.taints if taint.effect == PREFER_NO_SCHEDULE
                 and not any(tolerates(t, taint) for t in tolerations))


def taint_toleration_score(pod: Pod, info: NodeInfo, context: ScoreContext) -> int:
    """TaintToleration's Score: how many PreferNoSchedule taints of the node the pod does not tolerate (fewer is
    better; NormalizeScore reverses it).

    Kubernetes: `TaintToleration.Score` (pkg/scheduler/framework/plugins/tainttoleration/taint_toleration.go)
    """
    assert info.node is not None, "a feasible node has its Node object"
    return len(intolerable_prefer_no_schedule(info.node, prefer_no_schedule_tolerations(pod)))


def taint_toleration_normalize(pod: Pod, scores: NodeScores, context: ScoreContext) -> tuple[int, ...]:
    """TaintToleration's NormalizeScore: ``DefaultNormalizeScore(MaxNodeScore, reverse=true)``.

    Kubernetes: `TaintToleration.NormalizeScore` (pkg/scheduler/framework/plugins/tainttoleration/taint_toleration.go)
    """
    return default_normalize_score(MAX_NODE_SCORE, True, tuple(s for _, s in scores))


# ============================================================================================
# NodeAffinity
# ============================================================================================


def preferred_scheduling_terms(pod: Pod) -> tuple[PreferredSchedulingTerm, ...] | None:
    """The pod's preferred node-affinity terms that can score: None when the pod has none (a nil list), else those
    with a non-zero weight and a non-empty node selector term (a term of weight 0 or an empty one never scores).

    Kubernetes: `getPodPreferredNodeAffinity` (pkg/scheduler/framework/plugins/nodeaffinity/node_affinity.go)
    Kubernetes: `NewPreferredSchedulingTerms` (k8s.io/component-helpers/scheduling/corev1/nodeaffinity)
    """
    if pod.preferred_node_affinity is None:
        return None
    return tuple(t for t in pod.preferred_node_affinity if t.weight != 0 and not t.preference.is_empty())


def node_affinity_skips(pod: Pod, context: ScoreContext) -> bool:
    """NodeAffinity's PreScore skips a pod whose preferred node-affinity list is nil (and no ``addedAffinity`` is in
    the plugin's arguments, none by default). A non-nil list, even empty or of terms that cannot score, does not
    skip: every node then scores 0.

    Kubernetes: `NodeAffinity.PreScore` (pkg/scheduler/framework/plugins/nodeaffinity/node_affinity.go)
    """
    return preferred_scheduling_terms(pod) is None


def node_affinity_score(pod: Pod, info: NodeInfo, context: ScoreContext) -> int:
    """NodeAffinity's Score: the sum of the weights of the pod's preferred terms the node matches.

    Kubernetes: `NodeAffinity.Score` (pkg/scheduler/framework/plugins/nodeaffinity/node_affinity.go)
    Kubernetes: `PreferredSchedulingTerms.Score` (k8s.io/component-helpers/scheduling/corev1/nodeaffinity)
    """
    node = info.node
    assert node is not None, "a feasible node has its Node object"
    terms = preferred_scheduling_terms(pod) or ()
    return sum(t.weight for t in terms if t.preference.matches(node))


def node_affinity_normalize(pod: Pod, scores: NodeScores, context: ScoreContext) -> tuple[int, ...]:
    """NodeAffinity's NormalizeScore: ``DefaultNormalizeScore(MaxNodeScore, reverse=false)``.

    Kubernetes: `NodeAffinity.NormalizeScore` (pkg/scheduler/framework/plugins/nodeaffinity/node_affinity.go)
    """
    return default_normalize_score(MAX_NODE_SCORE, False, tuple(s for _, s in scores))


# ============================================================================================
# PodTopologySpread and InterPodAffinity (their PreScore reads the snapshot)
# ============================================================================================


@remember_by_identity(maxsize=256)
def _spread_state(pod: Pod, snapshot: Snapshot, feasible: tuple[str, ...]) -> podtopologyspread.PreScoreState | None:
    """PodTopologySpread's PreScore for the cycle (remembered: every node's Score of one cycle reads it)."""
    return podtopologyspread.pre_score(pod, snapshot, feasible, fits_node_affinity, fits_taint_toleration)


def _feasible_names(context: ScoreContext) -> tuple[str, ...]:
    return tuple(info.name for info in context.feasible)


def pod_topology_spread_skips(pod: Pod, context: ScoreContext) -> bool:
    """PodTopologySpread's PreScore skips a pod without ScheduleAnyway constraints (its own, or the system's
    defaults, which need a selector from the pod's Services or controller: none is modelled, so they never apply).

    Kubernetes: `PodTopologySpread.PreScore` (pkg/scheduler/framework/plugins/podtopologyspread/scoring.go)
    """
    return _spread_state(pod, context.snapshot, _feasible_names(context)) is None


def pod_topology_spread_score(pod: Pod, info: NodeInfo, context: ScoreContext) -> int:
    """PodTopologySpread's Score: :func:`spec.cycle.podtopologyspread.score` with the cycle's PreScore state.

    Kubernetes: `PodTopologySpread.Score` (pkg/scheduler/framework/plugins/podtopologyspread/scoring.go)
    """
    state = _spread_state(pod, context.snapshot, _feasible_names(context))
    assert state is not None, "PodTopologySpread scores only a pod its PreScore does not skip"
    return podtopologyspread.score(state, pod, info)


def pod_topology_spread_normalize(pod: Pod, scores: NodeScores, context: ScoreContext) -> tuple[int, ...]:
    """PodTopologySpread's NormalizeScore: :func:`spec.cycle.podtopologyspread.normalize_score`.

    Kubernetes: `PodTopologySpread.NormalizeScore` (pkg/scheduler/framework/plugins/podtopologyspread/scoring.go)
    """
    state = _spread_state(pod, context.snapshot, _feasible_names(context))
    assert state is not None, "PodTopologySpread normalises only for a pod its PreScore does not skip"
    return tuple(podtopologyspread.normalize_score(state, [n for n, _ in scores], [s for _, s in scores]))


@remember_by_identity(maxsize=256)
def _affinity_state(pod: Pod, snapshot: Snapshot,
                    namespaces: interpodaffinity.Namespaces) -> interpodaffinity.TopologyScore | None:
    """InterPodAffinity's PreScore for the cycle, its namespace lister listing the cluster's ``namespaces``
    (hardPodAffinityWeight 1; remembered: every node's Score of one cycle reads it)."""
    return interpodaffinity.pre_score(pod, snapshot, namespaces)


def inter_pod_affinity_skips(pod: Pod, context: ScoreContext) -> bool:
    """InterPodAffinity's PreScore skips when no topology pair got a weight: neither the pod's preferred terms nor
    the existing pods' required affinity and preferred terms match anything on a labelled node.

    Kubernetes: `InterPodAffinity.PreScore` (pkg/scheduler/framework/plugins/interpodaffinity/scoring.go)
    """
    return _affinity_state(pod, context.snapshot, context.namespaces) is None


def inter_pod_affinity_score(pod: Pod, info: NodeInfo, context: ScoreContext) -> int:
    """InterPodAffinity's Score: :func:`spec.cycle.interpodaffinity.score`, the summed weights of the node's
    topology pairs (negative for anti-affinity; NormalizeScore brings it into [0, 100]).

    Kubernetes: `InterPodAffinity.Score` (pkg/scheduler/framework/plugins/interpodaffinity/scoring.go)
    """
    state = _affinity_state(pod, context.snapshot, context.namespaces)
    assert state is not None and info.node is not None, "InterPodAffinity scores a node only after its PreScore"
    return interpodaffinity.score(state, info.node)


def inter_pod_affinity_normalize(pod: Pod, scores: NodeScores, context: ScoreContext) -> tuple[int, ...]:
    """InterPodAffinity's NormalizeScore: :func:`spec.cycle.interpodaffinity.normalize_score`.

    Kubernetes: `InterPodAffinity.NormalizeScore` (pkg/scheduler/framework/plugins/interpodaffinity/scoring.go)
    """
    state = _affinity_state(pod, context.snapshot, context.namespaces)
    assert state is not None, "InterPodAffinity normalises only after its PreScore"
    return tuple(interpodaffinity.normalize_score(state, [s for _, s in scores]))


# ============================================================================================
# The default profile's Score plugins
# ============================================================================================

TAINT_TOLERATION: Final = ScorePlugin("TaintToleration", 3, taint_toleration_score, taint_toleration_normalize)
NODE_AFFINITY: Final = ScorePlugin("NodeAffinity", 2, node_affinity_score, node_affinity_normalize,
                                   node_affinity_skips)
NODE_RESOURCES_FIT: Final = ScorePlugin("NodeResourcesFit", 1, least_allocated_score)
POD_TOPOLOGY_SPREAD: Final = ScorePlugin(podtopologyspread.NAME, 2, pod_topology_spread_score,
                                         pod_topology_spread_normalize, pod_topology_spread_skips)
INTER_POD_AFFINITY: Final = ScorePlugin(interpodaffinity.NAME, 2, inter_pod_affinity_score,
                                        inter_pod_affinity_normalize, inter_pod_affinity_skips)
NODE_RESOURCES_BALANCED_ALLOCATION: Final = ScorePlugin("NodeResourcesBalancedAllocation", 1,
                                                        balanced_allocation_score, None, balanced_allocation_skips)
IMAGE_LOCALITY: Final = ScorePlugin("ImageLocality", 1, image_locality_score)


def dynamic_resources_score(pod: Pod, info: NodeInfo, context: ScoreContext) -> int:
    """DynamicResources' Score: 0 for a pod without resource claims (the spec models none), on every node.

    Kubernetes: `DynamicResources.Score` (pkg/scheduler/framework/plugins/dynamicresources/dynamicresources.go)
    """
    return 0


def dynamic_resources_normalize(pod: Pod, scores: NodeScores, context: ScoreContext) -> tuple[int, ...]:
    """DynamicResources' NormalizeScore: ``DefaultNormalizeScore`` (not reversed).

    Kubernetes: `DynamicResources.NormalizeScore` (pkg/scheduler/framework/plugins/dynamicresources/dynamicresources.go)
    """
    return default_normalize_score(MAX_NODE_SCORE, False, tuple(s for _, s in scores))


DYNAMIC_RESOURCES: Final = ScorePlugin("DynamicResources", 2, dynamic_resources_score, dynamic_resources_normalize)


def volume_binding_score(pod: Pod, info: NodeInfo, context: ScoreContext) -> int:
    """VolumeBinding's Score where its PreScore does not skip (v1.37): 0 for a pod without volumes (the spec models
    none: ``podVolumesByNode`` holds no claims to score).

    Kubernetes: `VolumeBinding.Score` (pkg/scheduler/framework/plugins/volumebinding/volume_binding.go)
    """
    return 0


VOLUME_BINDING: Final = ScorePlugin("VolumeBinding", 1, volume_binding_score, dynamic_resources_normalize)
"""VolumeBinding as a Score plugin (weight 1: the default profile gives it none, and a Score plugin's weight defaults
to 1); its NormalizeScore is ``DefaultNormalizeScore`` too (all 0 stays 0)."""

DEFAULT_SCORE_PLUGINS: Final[tuple[ScorePlugin, ...]] = (
    TAINT_TOLERATION,
    NODE_AFFINITY,
    NODE_RESOURCES_FIT,
    POD_TOPOLOGY_SPREAD,
    INTER_POD_AFFINITY,
    NODE_RESOURCES_BALANCED_ALLOCATION,
    IMAGE_LOCALITY,
)
"""The Score plugins of the default profile that the spec models in every release, in the profile's order
(``getDefaultPlugins``, pkg/scheduler/apis/config/v1/default_plugins.go, v1.35). The order fixes only the order of a
node's plugin scores; the total is their sum. :func:`score_plugins` adds DynamicResources where the release scores
with it."""


def score_plugins(profile: VersionProfile) -> tuple[ScorePlugin, ...]:
    """The default profile's Score plugins in ``profile``'s release: :data:`DEFAULT_SCORE_PLUGINS`, with
    DynamicResources after InterPodAffinity (``applyDynamicResources`` inserts it before DefaultPreemption) where
    :attr:`~spec.versions.VersionProfile.dynamic_resources_scores` holds (v1.35 on), and VolumeBinding after
    NodeResourcesFit where :attr:`~spec.versions.VersionProfile.volume_binding_scores` holds (v1.37).

    Kubernetes: `getDefaultPlugins` and `applyDynamicResources` (pkg/scheduler/apis/config/v1/default_plugins.go)
    """
    plugins = DEFAULT_SCORE_PLUGINS
    if profile.volume_binding_scores:  # VolumeBinding comes after NodeResourcesFit in the profile
        at = plugins.index(NODE_RESOURCES_FIT) + 1
        plugins = (*plugins[:at], VOLUME_BINDING, *plugins[at:])
    if profile.dynamic_resources_scores:
        at = plugins.index(INTER_POD_AFFINITY) + 1
        plugins = (*plugins[:at], DYNAMIC_RESOURCES, *plugins[at:])
    return plugins
