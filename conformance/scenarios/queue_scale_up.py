"""Queue scenarios for v1.37's ``UpdatePodScaleUp`` event (:attr:`spec.versions.VersionProfile.pod_scale_up_event`).

v1.37.2's ``PodSchedulingPropertiesChange`` (pkg/scheduler/framework/events.go) has the extractor
``extractPodScaleUp``: an update that raises a resource request of a pod, or adds one, is ``UpdatePodScaleUp``,
where v1.34 to v1.36 have no such extractor (nor the ``fwk.ActionType`` bit) and report the generic ``Update`` when
no other extractor fires. Two things show it at the queue's interface:

- the events ``Update`` records for a pod in flight (``addEventsIfPodInFlight``), which the observation lists;
- the hints the queue asks when it updates a pod in unschedulablePods (``isPodWorthRequeuing``): a plugin that
  registered ``UpdatePodScaleUp`` (NodeResourcesFit does in v1.37, for ``TargetPod``, with
  InPlacePodVerticalScalingSchedulerPreemption) is asked about the event, which the generic ``Update`` never
  matches (``MatchClusterEvents``: ``incomingEvent.ActionType <= ce.ActionType``). So the converse also holds: a
  registration for a specific pod update (``UpdatePodLabel``) is matched by neither, and only one that covers every
  update bit (``Update``, ``All``) is matched by both.

Expected outcomes come from the spec (:func:`conformance.traces.expand`), never from here.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from conformance.ported.scheduling_queue import Q, fail, new_queue, pod
from conformance.traces import ALL_PROFILES, Scenario
from spec.frozenmap import FrozenMap
from spec.objects import Container, Pod
from spec.quantities import SECOND, resource_list
from spec.queue.events import ActionType, ClusterEvent, EventResource
from spec.queue.operations import QueueAdd, QueueOperation, QueuePop, QueueStepClock, QueueUpdate
from spec.valuetypes import replace
from spec.versions import PROFILES

X: Final = "PluginX"
POD_UPDATE: Final = ClusterEvent(EventResource.POD, ActionType.UPDATE)
TARGET_POD_SCALE_UP: Final = ClusterEvent(EventResource.TARGET_POD, ActionType.UPDATE_POD_SCALE_UP)
"""NodeResourcesFit's v1.37 registration (``isSchedulableAfterTargetPodScaleUp``; here with a constant hint)."""
POD_LABEL: Final = ClusterEvent(EventResource.POD, ActionType.UPDATE_POD_LABEL)
PAST_BACKOFF: Final = 2 * SECOND
"""Longer than the first backoff (1 s): a pod handed back once no longer backs off."""
SCALE_UP_PROFILES: Final = tuple(name for name, profile in PROFILES.items() if profile.pod_scale_up_event)


def _requests(name: str, **quantities: int) -> Pod:
    """Pod ``name`` with one container requesting ``quantities`` (cpu in millicores, memory in bytes)."""
    return replace(pod(name), containers=(Container("c", resource_list(**quantities)),))


def _s(sid: str, description: str, ops: Sequence[QueueOperation], profiles: tuple[str, ...] = ALL_PROFILES) -> Scenario:
    return Scenario(f"queue.versions.scale_up.{sid}", description, list(ops), area="queue", profiles=profiles)


def queue_scale_up_scenarios() -> list[Scenario]:
    """The in-flight record on every profile, and the hint asked on the profiles that have the event."""
    a100, a200 = _requests("a", cpu=100), _requests("a", cpu=200)
    a300_labelled = replace(_requests("a", cpu=300), labels=FrozenMap({"app": "web"}))
    a300_memory = replace(_requests("a", cpu=300, memory=1 << 20), labels=FrozenMap({"app": "web"}))
    return [
        _s("in_flight",
           "a (100m cpu) is popped and, in flight, updated three times: its cpu request raised (200m), its cpu raised "
           "with a label added (300m), and a memory request added. Through v1.36 no extractor names a raised request, "
           "so Update records the generic Update, then UpdatePodLabel alone, then Update; v1.37's extractPodScaleUp "
           "records UpdatePodScaleUp, then UpdatePodLabel and UpdatePodScaleUp, then UpdatePodScaleUp (TargetPod "
           "events). a, rejected by PluginX, which registered Pod/Update, then goes to backoffQ on every release, "
           "Update covering both (PodSchedulingPropertiesChange, PriorityQueue.Update, MatchClusterEvents)",
           [new_queue((POD_UPDATE, [(X, Q)])), QueueAdd(a100), QueuePop(),
            QueueUpdate(a100, a200), QueueUpdate(a200, a300_labelled), QueueUpdate(a300_labelled, a300_memory),
            fail(a300_memory, X)]),
        _s("requeue",
           "a, rejected by PluginX, which registered TargetPod/UpdatePodScaleUp with a hint that queues (as "
           "NodeResourcesFit does in v1.37) and Pod/UpdatePodLabel, waits past its backoff in unschedulablePods. An "
           "update that lowers nothing and changes no label but raises its cpu request is UpdatePodScaleUp, which "
           "PluginX's registration matches: a moves to activeQ. Before extractPodScaleUp the update was the generic "
           "Update, which no specific registration matches (MatchClusterEvents: the incoming action must not exceed "
           "the registered one), and a stayed in unschedulablePods (PodSchedulingPropertiesChange, "
           "PriorityQueue.Update, PriorityQueue.isPodWorthRequeuing)",
           [new_queue((TARGET_POD_SCALE_UP, [(X, Q)]), (POD_LABEL, [(X, Q)])), QueueAdd(a100), QueuePop(),
            fail(a100, X), QueueStepClock(PAST_BACKOFF), QueueUpdate(a100, a200)],
           profiles=SCALE_UP_PROFILES),
    ]
