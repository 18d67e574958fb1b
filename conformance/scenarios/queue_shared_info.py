"""Queue scenarios for one pod info held in backoffQ and unschedulablePods at once (SchedulerPopFromBackoffQ off).

``PriorityQueue.Update`` (pkg/scheduler/backend/queue/scheduling_queue.go, read in v1.35.8 and v1.37.2) requeues a
pod of unschedulablePods once per update event and stops at the first event that took it to activeQ, or to backoffQ
only with PopFromBackoffQ on (``if queue == activeQ || (p.isPopFromBackoffQEnabled && queue == backoffQ)``). With
the gate off the loop goes on: an event the hints queue moves the pod to backoffQ (``moveToBackoffQ``), and a later
event the hints skip puts the same ``*QueuedPodInfo`` back into unschedulablePods
(``requeuePodWithQueueingStrategy``: ``unschedulablePods.addOrUpdate``). One pod info is then in both, so a later
``Update``, which finds the pod in backoffQ (``backoffQueue.update``: ``pInfo.Update(newPod)`` in place), changes the
pod unschedulablePods holds too (:func:`spec.queue.queue._update_shared_entry`).

Expected outcomes come from the spec (:func:`conformance.traces.expand`), never from here.
"""

from __future__ import annotations

from typing import Final

from conformance.ported.scheduling_queue import SKIP, Q, fail, new_queue, pod
from conformance.traces import ALL_PROFILES, Scenario
from spec.frozenmap import FrozenMap
from spec.objects import Toleration
from spec.quantities import SECOND
from spec.queue.events import EVENT_NODE_ADD, ActionType, ClusterEvent, EventResource
from spec.queue.operations import QueueAdd, QueueFlushBackoff, QueueMoveAll, QueuePop, QueueStepClock, QueueUpdate
from spec.valuetypes import replace

X: Final = "PluginX"
POD_LABEL: Final = ClusterEvent(EventResource.POD, ActionType.UPDATE_POD_LABEL)
POD_TOLERATION: Final = ClusterEvent(EventResource.POD, ActionType.UPDATE_POD_TOLERATION)


def queue_shared_info_scenarios() -> list[Scenario]:
    """The shared pod info updated through backoffQ, then read through unschedulablePods, on every profile."""
    a, b = pod("a"), pod("b", priority=5)
    labelled_tolerating = replace(a, labels=FrozenMap({"app": "web"}), tolerations=(Toleration(key="k"),))
    raised = replace(labelled_tolerating, priority=10)
    return [
        Scenario(
            "queue.versions.shared_info.update_through_backoff",
            "SchedulerPopFromBackoffQ off. a, rejected by PluginX and backing off in unschedulablePods, is "
            "updated with a label and a toleration: PluginX's hint queues UpdatePodLabel, so a moves to backoffQ,"
            " and the loop goes on (it stops at backoffQ only with the gate on); PluginX's hint skips "
            "UpdatePodToleration, so the same pod info goes back into unschedulablePods: a is in both. a's "
            "priority is then raised to 10: Update finds a in backoffQ and updates its pod info in place, which "
            "unschedulablePods holds too. A Node/Add event requeues a from unschedulablePods to backoffQ with "
            "that pod info, and after the flush a (priority 10) is ahead of b (priority 5) in activeQ; a copy in "
            "unschedulablePods that kept priority 0 would have put b first (PriorityQueue.Update, "
            "requeuePodWithQueueingStrategy, backoffQueue.update)",
            [new_queue((POD_LABEL, [(X, Q)]), (POD_TOLERATION, [(X, SKIP)]), (EVENT_NODE_ADD, [(X, Q)]),
                       pop_from_backoff_q=False),
             QueueAdd(a), QueuePop(), fail(a, X), QueueUpdate(a, labelled_tolerating),
             QueueUpdate(labelled_tolerating, raised), QueueMoveAll(EVENT_NODE_ADD), QueueStepClock(2 * SECOND),
             QueueFlushBackoff(), QueueAdd(b)],
            area="queue", profiles=ALL_PROFILES),
    ]
