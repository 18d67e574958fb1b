"""Queue scenarios for three behaviours of ``PriorityQueue`` (pkg/scheduler/backend/queue/scheduling_queue.go) that
changed after v1.35, each run on every profile so that the split between releases shows in the vectors:

- from v1.36, ``moveToActiveQ`` puts a gated pod that unschedulablePods already holds back with its new pod info
  (:attr:`spec.versions.VersionProfile.gated_add_updates_unschedulable_entry`);
- in v1.37, ``addPod`` records the pod's nomination before ``moveToActiveQ``, a gated pod's too, and
  ``moveToActiveQ`` records none (:attr:`spec.versions.VersionProfile.add_pod_nominates`);
- in v1.37, ``Update`` of a pod in backoffQ to an object of another UID adds the new object with ``addPod``, whose
  ``moveToActiveQ`` leaves the old entry in backoffQ (:attr:`spec.versions.VersionProfile.update_requires_same_uid`
  and :attr:`spec.versions.VersionProfile.add_leaves_backoff_entry`).

Expected outcomes come from the spec (:func:`conformance.traces.expand`), never from here.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from conformance.ported.scheduling_queue import Q, fail, into_backoff, new_queue, pod
from conformance.traces import ALL_PROFILES, Scenario
from spec.frozenmap import FrozenMap
from spec.objects import Pod
from spec.quantities import SECOND
from spec.queue.events import SCHEDULING_GATES, ActionType, ClusterEvent, EventResource
from spec.queue.operations import (
    NewQueue,
    QueueAdd,
    QueueAddNominatedPod,
    QueueOperation,
    QueuePop,
    QueueStepClock,
    QueueUpdate,
)
from spec.valuetypes import replace

FIT: Final = "NodeResourcesFit"
X: Final = "PluginX"
GATE: Final = ("example.com/gate",)
GATES: Final = NewQueue(pre_enqueue_plugins=(SCHEDULING_GATES,))
POD_UPDATE: Final = ClusterEvent(EventResource.POD, ActionType.UPDATE)
SELECTOR: Final = FrozenMap({"zone": "a"})
PAST_BACKOFF: Final = 2 * SECOND
"""Longer than the first backoff (1 s): a pod handed back once no longer backs off."""


def _s(sid: str, description: str, ops: Sequence[QueueOperation]) -> Scenario:
    return Scenario(f"queue.versions.{sid}", description, list(ops), area="queue", profiles=ALL_PROFILES)


def queue_versions_36_37_scenarios() -> list[Scenario]:
    """One scenario per behaviour, on every profile."""
    a, b = pod("a"), pod("b")
    a_gated = replace(a, scheduling_gates=GATE)
    b_gated_nominated = replace(b, scheduling_gates=GATE, nominated_node_name="node1")
    a_other_uid = Pod("a2", "a", namespace="ns1")
    return [
        _s("gated_add_twice",
           "Add of a gated pod a second time, a second later: through v1.35 moveToActiveQ returns when "
           "unschedulablePods.get finds the pod, so a keeps its first entry (timestamp 0); from v1.36 "
           "unschedulablePods.addOrUpdate puts the new pod info there (timestamp 1 s) (PriorityQueue.moveToActiveQ)",
           [GATES, QueueAdd(a_gated), QueueStepClock(SECOND), QueueAdd(a_gated)]),
        _s("add_pod_nominates",
           "a, rejected by PluginX and past its backoff in unschedulablePods, nominated to node1 in memory, is updated "
           "in a way no extractor names (the generic UnscheduledPodUpdate event) and PluginX's hint queues it: through "
           "v1.36 moveToActiveQ re-reads a's nomination from its object, which names no node, and drops node1; v1.37's "
           "moveToActiveQ records none, so a keeps node1. Then b, gated, whose object names node1, is added: v1.37's "
           "addPod records its nomination before moveToActiveQ parks it, earlier releases only for a pod that enters "
           "activeQ (PriorityQueue.addPod, PriorityQueue.moveToActiveQ)",
           [new_queue((POD_UPDATE, [(X, Q)]), pre_enqueue_plugins=(SCHEDULING_GATES,)),
            QueueAdd(a), QueuePop(), fail(a, X), QueueStepClock(PAST_BACKOFF), QueueAddNominatedPod(a, "node1"),
            QueueUpdate(a, replace(a, node_selector=SELECTOR)), QueueAdd(b_gated_nominated)]),
        _s("update_other_uid_in_backoff",
           "a, in backoffQ (a wildcard event came during its attempt), is updated to an object of its namespace/name "
           "with another UID: through v1.36 PodInfo.Update takes it and the entry in backoffQ holds the new object; "
           "v1.37's refuses it, Update adds the new object with addPod, and its moveToActiveQ leaves the old entry in "
           "backoffQ while a2 enters activeQ (PriorityQueue.Update, PriorityQueue.moveToActiveQ)",
           [*into_backoff(a, FIT), QueueUpdate(a, a_other_uid)]),
    ]
