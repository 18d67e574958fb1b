"""PreEnqueue and scheduling gates: a pod that a PreEnqueue plugin rejects waits in unschedulablePods, gated.

This is ``PriorityQueue.runPreEnqueuePlugins`` and ``runPreEnqueuePlugin`` (pkg/scheduler/backend/queue/
scheduling_queue.go) and the SchedulingGates plugin (pkg/scheduler/framework/plugins/schedulinggates/
scheduling_gates.go), v1.35. Before a pod enters activeQ (and, with SchedulerPopFromBackoffQ, backoffQ) the queue
runs the PreEnqueue plugins of its profile: the plugin that rejects it becomes its *gating plugin* and joins its
unschedulable plugins, and the pod goes to unschedulablePods instead, never to activeQ or backoffQ. SchedulingGates
rejects a pod whose ``Spec.SchedulingGates`` is not empty; the update that removes the last gate is the event
``UpdatePodSchedulingGatesEliminated``, for which SchedulingGates' hint answers Queue for that pod, and the pod then
passes PreEnqueue and moves on. The gating plugin runs first; when every plugin passes, the pod is no longer gated.
"""

from __future__ import annotations

from typing import Final

from spec.objects import Pod
from spec.queue.events import SCHEDULING_GATES, SCHEDULING_GATES_HINTS, scheduling_gates_hints
from spec.queue.state import QueueConfig, QueuedPod
from spec.valuetypes import replace


def scheduling_gates_pre_enqueue(pod: Pod) -> str | None:
    """SchedulingGates' PreEnqueue: None if the pod has no gate, else the UnschedulableAndUnresolvable status's
    message, "waiting for scheduling gates: [a b]" (Go's ``%v`` of the names).

    Kubernetes: `SchedulingGates.PreEnqueue` (pkg/scheduler/framework/plugins/schedulinggates/scheduling_gates.go)
    """
    if not pod.scheduling_gates:
        return None
    return f"waiting for scheduling gates: [{' '.join(pod.scheduling_gates)}]"


PRE_ENQUEUE_PLUGINS: Final = {SCHEDULING_GATES: scheduling_gates_pre_enqueue}
"""The PreEnqueue plugins the spec models, by name."""


__all__ = ["SCHEDULING_GATES", "SCHEDULING_GATES_HINTS", "is_gated", "run_pre_enqueue_plugins",
           "scheduling_gates_hints", "scheduling_gates_pre_enqueue"]


def run_pre_enqueue_plugins(config: QueueConfig, pinfo: QueuedPod) -> QueuedPod:
    """``pinfo`` after the profile's PreEnqueue plugins: the gating plugin runs first, then the others in order;
    the first that rejects becomes the gating plugin and joins the unschedulable plugins; if all pass, the pod is
    no longer gated. A pod of a scheduler name the queue has no profile for meets no plugin.

    Kubernetes: `PriorityQueue.runPreEnqueuePlugins` (pkg/scheduler/backend/queue/scheduling_queue.go)
    """
    if pinfo.pod.scheduler_name not in config.scheduler_names:
        return replace(pinfo, gating_plugin="")
    names = config.pre_enqueue_plugins
    if pinfo.gating_plugin in names:
        names = (pinfo.gating_plugin, *(n for n in names if n != pinfo.gating_plugin))
    for name in names:
        if PRE_ENQUEUE_PLUGINS[name](pinfo.pod) is not None:
            return replace(pinfo, gating_plugin=name, unschedulable_plugins=pinfo.unschedulable_plugins | {name})
    return replace(pinfo, gating_plugin="")


def is_gated(pinfo: QueuedPod) -> bool:
    """``QueuedPodInfo.Gated``: a PreEnqueue plugin rejected the pod last time they ran.

    Kubernetes: `QueuedPodInfo.Gated` (pkg/scheduler/framework/types.go)
    """
    return pinfo.gating_plugin != ""
