"""SchedulingGates: a pod with scheduling gates waits before the queue (plugins/schedulinggates/scheduling_gates.go,
v1.35). A PreEnqueue plugin: the queue (:class:`refimpl.scheduler.queue.SchedulingQueue`, ``pre_enqueue_plugins``)
keeps a pod it rejects in unschedulablePods until the update that removes its last gate."""

from __future__ import annotations

from typing import Final

from refimpl.scheduler.events import ActionType, ClusterEvent, EventResource, QueueingHint, QueueingHintFunction
from spec.objects import Pod

NAME: Final = "SchedulingGates"
GATES_ELIMINATED: Final = ClusterEvent(EventResource.POD, ActionType.UPDATE_POD_SCHEDULING_GATES_ELIMINATED)
"""The event ``EventsToRegister`` names (QueueingHints on)."""


class SchedulingGates:
    """``SchedulingGates``: PreEnqueue rejects (UnschedulableAndUnresolvable) a pod with any scheduling gate."""

    name = NAME

    def pre_enqueue(self, pod: Pod) -> str | None:
        """``PreEnqueue``: None for a pod without gates, else "waiting for scheduling gates: [a b]"."""
        if not pod.scheduling_gates:
            return None
        return f"waiting for scheduling gates: [{' '.join(pod.scheduling_gates)}]"

    def events_to_register(self, queueing_hints_enabled: bool = True) -> dict[ClusterEvent, list[QueueingHintFunction]]:
        """``EventsToRegister``: :func:`scheduling_gates_hints`."""
        return scheduling_gates_hints(queueing_hints_enabled)


def is_schedulable_after_gates_eliminated(pod: Pod, old: object | None, new: object | None) -> QueueingHint:
    """``isSchedulableAfterUpdatePodSchedulingGatesEliminated``: Queue for an update of the pod itself, else Skip."""
    return QueueingHint.QUEUE if isinstance(new, Pod) and new.uid == pod.uid else QueueingHint.QUEUE_SKIP


def scheduling_gates_hints(queueing_hints_enabled: bool = True) -> dict[ClusterEvent, list[QueueingHintFunction]]:
    """SchedulingGates' registrations for a hint map: the gates-eliminated event with its hint (none with
    QueueingHints off, where the plugin registers nothing)."""
    if not queueing_hints_enabled:
        return {}
    return {GATES_ELIMINATED: [QueueingHintFunction(NAME, is_schedulable_after_gates_eliminated)]}
