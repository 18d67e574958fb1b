"""The default plugins that decide resource placement, and the default profile built from them.

In the order of Kubernetes' default ``MultiPoint`` configuration (pkg/scheduler/apis/config/v1/default_plugins.go,
v1.35), keeping the plugins this project models: NodeUnschedulable, NodeName, TaintToleration (weight 3),
NodeAffinity (weight 2), NodePorts, NodeResourcesFit (weight 1), ImageLocality (weight 1), DefaultBinder, and, with
``preemption=True``, DefaultPreemption (PostFilter). SchedulingGates is a PreEnqueue plugin: the queue runs it
(``SchedulingQueue(pre_enqueue_plugins=...)``, :func:`default_pre_enqueue_plugins`). Not modelled: PrioritySort (the
queue orders pods itself), the volume plugins, PodTopologySpread, InterPodAffinity and
NodeResourcesBalancedAllocation. DefaultPreemption is off unless asked for, so that the scheduler the conformance
suite's cycle area drives (whose spec has no preemption) keeps its behaviour.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from refimpl.cache import NodeInfo
from refimpl.cache.clock import Clock
from refimpl.scheduler.framework import CycleState, FilterPlugin, Framework, Handle, Plugin
from refimpl.scheduler.plugins.default_binder import DefaultBinder
from refimpl.scheduler.plugins.default_preemption import DefaultPreemption
from refimpl.scheduler.plugins.fault_injection import FaultInjector, FaultPoint
from refimpl.scheduler.plugins.image_locality import ImageLocality
from refimpl.scheduler.plugins.node_affinity import NodeAffinity
from refimpl.scheduler.plugins.node_name import NodeName
from refimpl.scheduler.plugins.node_ports import NodePorts
from refimpl.scheduler.plugins.node_resources_fit import NodeResourcesFit
from refimpl.scheduler.plugins.node_unschedulable import NodeUnschedulable
from refimpl.scheduler.plugins.scheduling_gates import SchedulingGates
from refimpl.scheduler.plugins.taint_toleration import TaintToleration
from spec.objects import DEFAULT_SCHEDULER_NAME, Pod
from spec.versions import DEFAULT_PROFILE, VersionProfile

DEFAULT_SCORE_WEIGHTS: Final = {"TaintToleration": 3, "NodeAffinity": 2, "NodeResourcesFit": 1, "ImageLocality": 1}


def default_plugins(handle: Handle, *, pod_level_resources: bool = True,
                    taint_reason_names_the_taint: bool = False) -> list[Plugin]:
    """The default plugins, in the default profile's order (the flags: the release's, :mod:`spec.versions`)."""
    return [
        NodeUnschedulable(),
        NodeName(),
        TaintToleration(taint_reason_names_the_taint),
        NodeAffinity(),
        NodePorts(),
        NodeResourcesFit(pod_level_resources),
        ImageLocality(handle),
        DefaultBinder(handle),
    ]


def default_filter_plugins(*, pod_level_resources: bool = True) -> list[FilterPlugin]:
    """The default profile's Filter plugins, in its order: NodeUnschedulable, NodeName, TaintToleration,
    NodeAffinity, NodePorts, NodeResourcesFit. Each filters without its PreFilter having run."""
    return [NodeUnschedulable(), NodeName(), TaintToleration(), NodeAffinity(), NodePorts(),
            NodeResourcesFit(pod_level_resources)]


def new_default_framework(
    *,
    profile: VersionProfile = DEFAULT_PROFILE,
    percentage_of_nodes_to_score: int | None = None,
    extra_plugins: Sequence[Plugin] = (),
    scheduler_name: str = DEFAULT_SCHEDULER_NAME,
    handle: Handle | None = None,
    clock: Clock | None = None,
    signing: bool = True,
    preemption: bool = False,
) -> Framework:
    """The default profile for ``profile``'s release (``profile.NewMap`` over the default plugin configuration),
    with ``extra_plugins`` (for example a ``FaultInjector``) before the default plugins at every extension point.
    The scheduler points its handle at the snapshot, clock and API access."""
    handle = handle if handle is not None else Handle(clock=clock)
    plugins = [*extra_plugins, *default_plugins(handle, pod_level_resources=profile.pod_level_resources,
                                                taint_reason_names_the_taint=profile.taint_reason_names_the_taint)]
    if preemption:
        plugins.append(DefaultPreemption(handle))
    return Framework(
        plugins,
        score_weights=DEFAULT_SCORE_WEIGHTS,
        scheduler_name=scheduler_name,
        percentage_of_nodes_to_score=percentage_of_nodes_to_score,
        clock=clock,
        signing=signing,
        handle=handle,
    )


def first_failing_filter(pod: Pod, node_info: NodeInfo, plugins: Sequence[FilterPlugin] | None = None) -> str | None:
    """``RunFilterPlugins`` without PreFilter: the name of the first plugin (default order) that does not pass,
    or None if the pod fits the node."""
    state = CycleState()
    for plugin in plugins if plugins is not None else default_filter_plugins():
        status = plugin.filter(state, pod, node_info)
        if status is not None and not status.is_success():
            return plugin.name
    return None


__all__ = [
    "DEFAULT_SCORE_WEIGHTS",
    "DefaultBinder",
    "DefaultPreemption",
    "FaultInjector",
    "FaultPoint",
    "ImageLocality",
    "NodeAffinity",
    "NodeName",
    "NodePorts",
    "NodeResourcesFit",
    "NodeUnschedulable",
    "SchedulingGates",
    "TaintToleration",
    "default_filter_plugins",
    "default_plugins",
    "default_pre_enqueue_plugins",
    "first_failing_filter",
    "new_default_framework",
]


def default_pre_enqueue_plugins(
    scheduler_names: Sequence[str] = (DEFAULT_SCHEDULER_NAME,),
) -> dict[str, list[SchedulingGates]]:
    """The default profile's PreEnqueue plugins for each scheduler name: SchedulingGates (DefaultPreemption's
    PreEnqueue only acts while an asynchronous preemption runs, which this scheduler finishes within PostFilter)."""
    return {name: [SchedulingGates()] for name in scheduler_names}
