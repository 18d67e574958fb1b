"""The default plugins that decide resource placement, and the default profile built from them.

In the order of Kubernetes' default ``MultiPoint`` configuration (pkg/scheduler/apis/config/v1/default_plugins.go,
v1.35), keeping the plugins this project models: NodeUnschedulable, NodeName, TaintToleration (weight 3),
NodeAffinity (weight 2), NodePorts, NodeResourcesFit (weight 1), PodTopologySpread (weight 2), InterPodAffinity
(weight 2), NodeResourcesBalancedAllocation (weight 1), ImageLocality (weight 1), DefaultBinder, and, with
``preemption=True``, DefaultPreemption (PostFilter). SchedulingGates is a PreEnqueue plugin: the queue runs it
(``SchedulingQueue(pre_enqueue_plugins=...)``, :func:`default_pre_enqueue_plugins`). Not modelled: PrioritySort (the
queue orders pods itself), the volume plugins and DynamicResources. DefaultPreemption is off unless asked for, so
that the scheduler the conformance suite's cycle area drives (whose spec transitions do not preempt yet) keeps its
behaviour.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from refimpl.cache import NodeInfo
from refimpl.cache.clock import Clock
from refimpl.scheduler.framework import CycleState, FilterPlugin, Framework, Handle, Plugin
from refimpl.scheduler.plugins.default_binder import DefaultBinder
from refimpl.scheduler.plugins.default_preemption import DefaultPreemption
from refimpl.scheduler.plugins.dynamic_resources import (
    DynamicResources,
    DynamicResourcesPostFilter,
    ScoringDynamicResourcesPostFilter,
)
from refimpl.scheduler.plugins.fault_injection import FaultInjector, FaultPoint
from refimpl.scheduler.plugins.image_locality import ImageLocality
from refimpl.scheduler.plugins.inter_pod_affinity import InterPodAffinity
from refimpl.scheduler.plugins.node_affinity import NodeAffinity
from refimpl.scheduler.plugins.node_name import NodeName
from refimpl.scheduler.plugins.node_ports import NodePorts
from refimpl.scheduler.plugins.node_resources_balanced_allocation import NodeResourcesBalancedAllocation
from refimpl.scheduler.plugins.node_resources_fit import NodeResourcesFit
from refimpl.scheduler.plugins.node_unschedulable import NodeUnschedulable
from refimpl.scheduler.plugins.pod_topology_spread import LIST_DEFAULTING, SYSTEM_DEFAULTING, PodTopologySpread
from refimpl.scheduler.plugins.scheduling_gates import SchedulingGates
from refimpl.scheduler.plugins.taint_toleration import TaintToleration
from refimpl.scheduler.plugins.volume_binding import VolumeBinding
from spec.objects import DEFAULT_SCHEDULER_NAME, Pod
from spec.versions import DEFAULT_PROFILE, VersionProfile

DEFAULT_SCORE_WEIGHTS: Final = {"TaintToleration": 3, "NodeAffinity": 2, "NodeResourcesFit": 1, "PodTopologySpread": 2,
                                 "InterPodAffinity": 2, "DynamicResources": 2, "NodeResourcesBalancedAllocation": 1,
                                 "ImageLocality": 1}
"""The default profile's Score weights (``getDefaultPlugins``, ``applyDynamicResources``), as
:func:`spec.cycle.scores.score_plugins` gives them for v1.35 (tests/spec/cycle/test_select.py compares the two)."""


def score_weights(profile: VersionProfile) -> dict[str, int]:
    """:data:`DEFAULT_SCORE_WEIGHTS` of the plugins that score in ``profile``'s release (DynamicResources: v1.35 on)."""
    weights = {name: weight for name, weight in DEFAULT_SCORE_WEIGHTS.items()
               if name != "DynamicResources" or profile.dynamic_resources_scores}
    if profile.volume_binding_scores:
        weights["VolumeBinding"] = 1  # no weight in the profile: a Score plugin's defaults to 1
    return weights


def default_plugins(handle: Handle, *, pod_level_resources: bool = True,
                    taint_reason_names_the_taint: bool = False,
                    spread_defaulting: str = SYSTEM_DEFAULTING, dynamic_resources: bool = True,
                    balanced_allocation_scores_change: bool = False, volume_binding: bool = False) -> list[Plugin]:
    """The default plugins, in the default profile's order (the flags: the release's, :mod:`spec.versions`;
    ``spread_defaulting``: PodTopologySpread's ``defaultingType``, System in the default profile;
    ``dynamic_resources``: DynamicResources scores, v1.35 on; ``volume_binding``: VolumeBinding scores, v1.37)."""
    scoring_dra: list[Plugin] = [DynamicResources()] if dynamic_resources else []
    scoring_volumes: list[Plugin] = [VolumeBinding()] if volume_binding else []
    return [
        NodeUnschedulable(),
        NodeName(),
        TaintToleration(taint_reason_names_the_taint),
        NodeAffinity(),
        NodePorts(),
        NodeResourcesFit(pod_level_resources),
        *scoring_volumes,
        PodTopologySpread(handle, spread_defaulting),
        InterPodAffinity(handle),
        *scoring_dra,
        NodeResourcesBalancedAllocation(pod_level_resources, balanced_allocation_scores_change),
        ImageLocality(handle),
        DefaultBinder(handle),
    ]


def default_filter_plugins(*, pod_level_resources: bool = True) -> list[FilterPlugin]:
    """The default profile's Filter plugins that read only the node, in its order: NodeUnschedulable, NodeName,
    TaintToleration, NodeAffinity, NodePorts, NodeResourcesFit. Each filters without its PreFilter having run."""
    return [NodeUnschedulable(), NodeName(), TaintToleration(), NodeAffinity(), NodePorts(),
            NodeResourcesFit(pod_level_resources)]


def snapshot_filter_plugins(handle: Handle) -> list[FilterPlugin]:
    """The default profile's Filter plugins whose PreFilter reads every node, in its order: PodTopologySpread,
    InterPodAffinity (they follow :func:`default_filter_plugins`)."""
    return [PodTopologySpread(handle), InterPodAffinity(handle)]


def new_default_framework(
    *,
    profile: VersionProfile = DEFAULT_PROFILE,
    percentage_of_nodes_to_score: int | None = None,
    extra_plugins: Sequence[Plugin] = (),
    scheduler_name: str = DEFAULT_SCHEDULER_NAME,
    handle: Handle | None = None,
    clock: Clock | None = None,
    signing: bool = True,
    spread_defaulting: str = SYSTEM_DEFAULTING,
    preemption: bool = False,
) -> Framework:
    """The default profile for ``profile``'s release (``profile.NewMap`` over the default plugin configuration),
    with ``extra_plugins`` (for example a ``FaultInjector``) before the default plugins at every extension point.
    The scheduler points its handle at the snapshot, clock and API access. Under the default ``spread_defaulting``
    (System) PodTopologySpread refuses to sign any pod, so opportunistic batching never applies, as in Kubernetes;
    ``"List"`` (no default constraints) lets pods without spread constraints or affinity be batched."""
    handle = handle if handle is not None else Handle(clock=clock)
    plugins = [*extra_plugins, *default_plugins(handle, pod_level_resources=profile.pod_level_resources,
                                                taint_reason_names_the_taint=profile.taint_reason_names_the_taint,
                                                spread_defaulting=spread_defaulting,
                                                dynamic_resources=profile.dynamic_resources_scores,
                                                balanced_allocation_scores_change=(
                                                    profile.balanced_allocation_scores_change),
                                                volume_binding=profile.volume_binding_scores)]
    if preemption:  # the default profile's PostFilter plugins, in order: DynamicResources, DefaultPreemption
        reason = profile.dynamic_resources_post_filter_reason
        plugins = [ScoringDynamicResourcesPostFilter(reason) if isinstance(p, DynamicResources) else p for p in plugins]
        if not any(isinstance(p, DynamicResourcesPostFilter) for p in plugins):
            plugins.append(DynamicResourcesPostFilter(reason))
        plugins.append(DefaultPreemption(handle, reports_placement=profile.preemption_reports_placement,
                                         skips_terminating_victims=profile.preemption_skips_terminating_victims))
    return Framework(
        plugins,
        score_weights=score_weights(profile),
        scheduler_name=scheduler_name,
        percentage_of_nodes_to_score=percentage_of_nodes_to_score,
        clock=clock,
        signing=signing,
        handle=handle,
    )


def first_failing_filter(pod: Pod, node_info: NodeInfo, plugins: Sequence[FilterPlugin] | None = None) -> str | None:
    """``RunFilterPlugins`` without PreFilter: the name of the first plugin (default order, the plugins that read
    only the node) that does not pass, or None if the pod fits the node."""
    state = CycleState()
    for plugin in plugins if plugins is not None else default_filter_plugins():
        status = plugin.filter(state, pod, node_info)
        if status is not None and not status.is_success():
            return plugin.name
    return None


__all__ = [
    "DEFAULT_SCORE_WEIGHTS",
    "LIST_DEFAULTING",
    "SYSTEM_DEFAULTING",
    "DefaultBinder",
    "DefaultPreemption",
    "DynamicResources",
    "FaultInjector",
    "FaultPoint",
    "ImageLocality",
    "InterPodAffinity",
    "NodeAffinity",
    "NodeName",
    "NodePorts",
    "NodeResourcesBalancedAllocation",
    "NodeResourcesFit",
    "NodeUnschedulable",
    "PodTopologySpread",
    "SchedulingGates",
    "TaintToleration",
    "VolumeBinding",
    "default_filter_plugins",
    "default_plugins",
    "default_pre_enqueue_plugins",
    "first_failing_filter",
    "new_default_framework",
    "snapshot_filter_plugins",
]


def default_pre_enqueue_plugins(
    scheduler_names: Sequence[str] = (DEFAULT_SCHEDULER_NAME,),
) -> dict[str, list[SchedulingGates]]:
    """The default profile's PreEnqueue plugins for each scheduler name: SchedulingGates (DefaultPreemption's
    PreEnqueue only acts while an asynchronous preemption runs, which this scheduler finishes within PostFilter)."""
    return {name: [SchedulingGates(target_pod=False)] for name in scheduler_names}  # v1.35's registration
