"""SchedulingGates: a pod with scheduling gates waits before the queue (plugins/schedulinggates/scheduling_gates.go,
v1.35). A PreEnqueue plugin: the queue (:class:`refimpl.scheduler.queue.SchedulingQueue`, ``pre_enqueue_plugins``)
keeps a pod it rejects in unschedulablePods until the update that removes its last gate. Its ``EventsToRegister``
is what the queue's hint map holds for it (``buildQueueingHintMap``): through v1.36 ``Pod`` gates-eliminated updates
with a hint that queues the pod for its own update only (QueueingHints on; nothing with them off), from v1.37
``TargetPod`` gates-eliminated updates with a hint that always queues (``target_pod``)."""

from __future__ import annotations

from typing import Final

from refimpl.scheduler.events import ActionType, ClusterEvent, EventResource, QueueingHint, QueueingHintFunction
from spec.objects import Pod

NAME: Final = "SchedulingGates"
GATES_ELIMINATED: Final = ClusterEvent(EventResource.POD, ActionType.UPDATE_POD_SCHEDULING_GATES_ELIMINATED)
"""The event ``EventsToRegister`` names through v1.36 (QueueingHints on)."""
TARGET_POD_GATES_ELIMINATED: Final = ClusterEvent(EventResource.TARGET_POD,
                                                  ActionType.UPDATE_POD_SCHEDULING_GATES_ELIMINATED)
"""The event ``EventsToRegister`` names from v1.37."""


class SchedulingGates:
    """``SchedulingGates``: PreEnqueue rejects (UnschedulableAndUnresolvable) a pod with any scheduling gate.
    ``target_pod`` is v1.37's registration (:attr:`spec.versions.VersionProfile.target_pod_update_events`)."""

    name = NAME

    def __init__(self, target_pod: bool) -> None:
        self.target_pod = target_pod

    def pre_enqueue(self, pod: Pod) -> str | None:
        """``PreEnqueue``: None for a pod without gates, else "waiting for scheduling gates: [a b]"."""
        if not pod.scheduling_gates:
            return None
        return f"waiting for scheduling gates: [{' '.join(pod.scheduling_gates)}]"

    def events_to_register(self, queueing_hints_enabled: bool) -> dict[ClusterEvent, list[QueueingHintFunction]]:
        """``EventsToRegister``: :func:`scheduling_gates_hints`."""
        return scheduling_gates_hints(queueing_hints_enabled, self.target_pod)


def is_schedulable_after_gates_eliminated(pod: Pod, old: object | None, new: object | None) -> QueueingHint:
    """``isSchedulableAfterUpdatePodSchedulingGatesEliminated`` (through v1.36): Queue for an update of the pod
    itself, else Skip (Kubernetes is never asked about an event without a pod object; it would dereference it)."""
    return QueueingHint.QUEUE if isinstance(new, Pod) and new.uid == pod.uid else QueueingHint.QUEUE_SKIP


def scheduling_gates_hints(
    queueing_hints_enabled: bool, target_pod: bool
) -> dict[ClusterEvent, list[QueueingHintFunction]]:
    """SchedulingGates' registrations for a hint map: from v1.37 (``target_pod``) the TargetPod event with the
    framework's always-Queue hint; through v1.36 the Pod event with :func:`is_schedulable_after_gates_eliminated`,
    or none with QueueingHints off, where the plugin registers nothing."""
    if target_pod:
        return {TARGET_POD_GATES_ELIMINATED: [QueueingHintFunction(NAME)]}
    if not queueing_hints_enabled:
        return {}
    return {GATES_ELIMINATED: [QueueingHintFunction(NAME, is_schedulable_after_gates_eliminated)]}
