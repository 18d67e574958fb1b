"""Queue scenarios for the surviving mutants of refimpl's scheduling queue (issue 25, the queue in the mutation scope,
share A): behaviours of Kubernetes' ``PriorityQueue`` (pkg/scheduler/backend/queue/scheduling_queue.go, v1.35.8) that
no other queue vector shows.

- ``moveToActiveQ`` re-reads the pod's own nomination (``addNominatedPod`` with a nil nominating info, which drops a
  nomination only PostFilter made in memory) for the ``UnscheduledPodAdd`` and ``UnscheduledPodUpdate`` events
  only: a move by a cluster event, a backoff flush or ``Activate`` keeps it, and so does an update whose event is a
  specific one (``UpdatePodLabel``);
- ``isPodUpdated`` ignores the status (nominated node, start time, conditions): with QueueingHints off such an
  update leaves the pod in unschedulablePods, but ``UpdateNominatedPod`` still records the nomination;
- ``moveToActiveQ`` keeps a gated pod where it already is (activeQ, backoffQ, unschedulablePods), and
  ``moveToBackoffQ`` parks a gated pod in unschedulablePods (``AddUnschedulableIfNotPresent`` then reports it there);
- ``isPodWorthRequeuing``'s wildcard rule for a pod-targeted ``ForceActivate``, its Pending rule, and
  ``determineSchedulingHintForInFlightPod``'s walk over every recorded event;
- ``movePodsToActiveOrBackoffQueue`` going on past a skipped pod, the ``preCheck`` filter, ``flushUnschedulable
  PodsLeftover``'s age test, ``activeQueue.update``'s heap fix, and a zero ``podMaxInUnschedulablePodsDuration``.

Expected outcomes come from the spec (:func:`conformance.traces.expand`), never from here.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from conformance.ported.scheduling_queue import Q, fail, new_queue, pod
from conformance.traces import ALL_PROFILES, Scenario
from spec.frozenmap import FrozenMap
from spec.objects import Pod
from spec.quantities import SECOND
from spec.queue.events import (
    EVENT_NODE_ADD,
    EVENT_NODE_DELETE,
    EVENT_UNSCHEDULABLE_TIMEOUT,
    SCHEDULING_GATES,
    ActionType,
    ClusterEvent,
    EventResource,
)
from spec.queue.operations import (
    NewQueue,
    QueueActivate,
    QueueAdd,
    QueueAddNominatedPod,
    QueueFlushBackoff,
    QueueFlushUnschedulable,
    QueueMoveAll,
    QueueOperation,
    QueuePop,
    QueueStepClock,
    QueueUpdate,
)
from spec.valuetypes import replace
from spec.versions import PROFILES

FIT: Final = "NodeResourcesFit"
X, Y = "PluginX", "PluginY"
GATE: Final = ("example.com/gate",)
HINTS_OFF: Final = NewQueue(queueing_hints=False)
GATES: Final = NewQueue(pre_enqueue_plugins=(SCHEDULING_GATES,))
POD_UPDATE: Final = ClusterEvent(EventResource.POD, ActionType.UPDATE)
POD_LABEL: Final = ClusterEvent(EventResource.POD, ActionType.UPDATE_POD_LABEL)
SELECTOR: Final = FrozenMap({"zone": "a"})
LABELS: Final = FrozenMap({"app": "web"})
PAST_BACKOFF: Final = 2 * SECOND
"""Longer than the first backoff (1 s): a pod handed back once no longer backs off."""
THROUGH_135: Final = tuple(name for name in PROFILES if name in ("v1.34", "v1.35"))
THROUGH_136: Final = tuple(name for name, p in PROFILES.items() if not p.add_leaves_backoff_entry)
"""The releases before v1.37's queue (its moveToActiveQ, and its nominator calls in addPod)."""


def _s(sid: str, description: str, ops: Sequence[QueueOperation], profiles: Sequence[str] = ALL_PROFILES) -> Scenario:
    return Scenario(f"queue.mutants_a.{sid}", description, list(ops), area="queue", profiles=tuple(profiles))


def _unschedulable(p: Pod, *plugins: str, pending: Sequence[str] = ()) -> list[QueueOperation]:
    """Add ``p``, pop it and hand it back rejected by ``plugins``: it waits in unschedulablePods."""
    return [QueueAdd(p), QueuePop(), fail(p, *plugins, pending=pending)]


def nomination_scenarios() -> list[Scenario]:
    """``moveToActiveQ``'s ``addNominatedPod`` for the Add and Update events only."""
    a, b, c = pod("a"), pod("b"), pod("c")
    a_sel = replace(a, node_selector=SELECTOR)
    b_label = replace(b, labels=LABELS)
    generic_and_label = new_queue((POD_UPDATE, [(X, Q)]), (POD_LABEL, [(X, Q)]))
    return [
        _s("nomination.kept_by_moves",
           "moveToActiveQ re-reads the pod's nomination only for the UnscheduledPodAdd and UnscheduledPodUpdate events "
           "(PriorityQueue.moveToActiveQ): b (in backoffQ: a wildcard event came during its attempt), a and c (in "
           "unschedulablePods), each nominated to node1 in memory (AddNominatedPod, Override, as PostFilter does) "
           "after their attempt failed, keep that nomination when a wildcard move (MoveAllToActiveOrBackoffQueue, "
           "past a's backoff, its preCheck passing a only), a backoff flush (flushBackoffQCompleted) and Activate take "
           "them to activeQ",
           [QueueAdd(b), QueuePop(), QueueMoveAll(EVENT_UNSCHEDULABLE_TIMEOUT), fail(b, FIT), *_unschedulable(a, FIT),
            *_unschedulable(c, FIT),
            QueueAddNominatedPod(a, "node1"), QueueAddNominatedPod(b, "node1"), QueueAddNominatedPod(c, "node1"),
            QueueStepClock(PAST_BACKOFF), QueueMoveAll(EVENT_UNSCHEDULABLE_TIMEOUT, frozenset({"a"})),
            QueueFlushBackoff(), QueueActivate(c)]),
        _s("nomination.override_empty",
           "AddNominatedPod with an Override to the node \"\" (what clearNominatedNode sends): through v1.36 "
           "addNominatedPodUnlocked stores a under the node name \"\", v1.37's returns after dropping its nomination "
           "to node1 (nominator.addNominatedPodUnlocked)",
           [QueueAdd(a), QueueAddNominatedPod(a, "node1"), QueueAddNominatedPod(a, "")]),
        _s("nomination.update_hints_off",
           "With QueueingHints off, an update (isPodUpdated: a node selector) of a, past its backoff in "
           "unschedulablePods, moves it to activeQ with the UnscheduledPodUpdate event: UpdateNominatedPod first keeps "
           "the in-memory nomination to node1 (neither object names a node), then moveToActiveQ's addNominatedPod "
           "with a nil nominating info drops it, a's object naming no node (PriorityQueue.Update)",
           [HINTS_OFF, *_unschedulable(a, FIT), QueueStepClock(PAST_BACKOFF), QueueAddNominatedPod(a, "node1"),
            QueueUpdate(a, a_sel)]),
        _s("nomination.update_unknown_pod",
           "Update of a pod in no sub-queue (and not in flight) adds it to activeQ with the UnscheduledPodUpdate event "
           "(PriorityQueue.Update): a, nominated to node1 in memory only, loses that nomination (moveToActiveQ's "
           "addNominatedPod with a nil nominating info; a's object names no node)",
           [QueueAddNominatedPod(a, "node1"), QueueUpdate(a, a_sel)]),
        _s("nomination.update_hint_generic",
           "With QueueingHints, requeuePodWithQueueingStrategy passes the update's event label to moveToActiveQ "
           "(PriorityQueue.Update): a, rejected by PluginX and past its backoff, is updated in a way no extractor "
           "names (a node selector: the generic UnscheduledPodUpdate event), PluginX's hint queues it, and the move "
           "drops its in-memory nomination to node1. Through v1.36: v1.37's moveToActiveQ nominates nothing (its "
           "addPod does, before it), so there a keeps node1: queue.versions.add_pod_nominates shows it on every "
           "profile",
           [generic_and_label, *_unschedulable(a, X), QueueStepClock(PAST_BACKOFF), QueueAddNominatedPod(a, "node1"),
            QueueUpdate(a, a_sel)], THROUGH_136),
        _s("nomination.update_hint_label",
           "With QueueingHints, requeuePodWithQueueingStrategy passes the update's event label to moveToActiveQ "
           "(PriorityQueue.Update): b, rejected by PluginX and past its backoff, is updated in its labels "
           "(UpdatePodLabel), PluginX's hint queues it to activeQ, and b keeps its in-memory nomination to node1 "
           "(only the UnscheduledPodAdd and UnscheduledPodUpdate labels re-read it)",
           [generic_and_label, *_unschedulable(b, X), QueueStepClock(PAST_BACKOFF), QueueAddNominatedPod(b, "node1"),
            QueueUpdate(b, b_label)]),
    ]


def status_update_scenarios() -> list[Scenario]:
    """``isPodUpdated`` strips the status."""
    a = pod("a")
    nominated = replace(a, nominated_node_name="node1")
    started = replace(nominated, start_time=5 * SECOND)
    preempted = replace(started, preempted_by_scheduler=True)
    return [
        _s("status_update.hints_off",
           "isPodUpdated compares the pods without their status: with QueueingHints off, a, rejected and past its "
           "backoff in unschedulablePods, stays there when its status alone changes (PriorityQueue.Update): a "
           "nominated node (which UpdateNominatedPod still records), a start time, a DisruptionTarget condition; a "
           "node selector then moves it to activeQ",
           [HINTS_OFF, *_unschedulable(a, FIT), QueueStepClock(PAST_BACKOFF), QueueUpdate(a, nominated),
            QueueUpdate(nominated, started), QueueUpdate(started, preempted),
            QueueUpdate(preempted, replace(preempted, node_selector=SELECTOR))]),
    ]


def gated_scenarios() -> list[Scenario]:
    """Gated pods in ``moveToActiveQ`` and ``moveToBackoffQ``."""
    a, b, c = pod("a"), pod("b"), pod("c")
    a_gated, b_gated, c_gated = (replace(p, scheduling_gates=GATE) for p in (a, b, c))
    return [
        _s("gated.add_again",
           "moveToActiveQ leaves a gated pod where the queue already holds it (PriorityQueue.moveToActiveQ): a, in "
           "activeQ, added again with a scheduling gate stays in activeQ only (through v1.36; v1.37's moveToActiveQ "
           "parks it in unschedulablePods as well, which the spec does not state)",
           [GATES, QueueAdd(a), QueueAdd(a_gated)], THROUGH_136),
        _s("gated.add_again.unschedulable",
           "moveToActiveQ leaves a gated pod in unschedulablePods when it is there already "
           "(PriorityQueue.moveToActiveQ): b, gated, added again a second later keeps its first entry (its "
           "timestamp). Through v1.35: v1.36's moveToActiveQ replaces the entry (unschedulablePods.addOrUpdate), "
           "as queue.versions.gated_add_twice shows on every profile",
           [GATES, QueueAdd(b_gated), QueueStepClock(SECOND), QueueAdd(b_gated)], THROUGH_135),
        _s("gated.hand_back",
           "moveToBackoffQ runs PreEnqueue with SchedulerPopFromBackoffQ and parks a gated pod in unschedulablePods "
           "(PriorityQueue.moveToBackoffQ): a, handed back after an error with a gate in its object, goes to "
           "unschedulablePods, not backoffQ, and its update removing the gate requeues that entry "
           "(SchedulingGates' hint); c, handed back Pending on NodeResourcesFit after a NodeAdd during its attempt "
           "(QueueImmediately), is gated on the way to activeQ and also waits in unschedulablePods "
           "(requeuePodWithQueueingStrategy)",
           [GATES, QueueAdd(a), QueuePop(), fail(a_gated), QueueUpdate(a_gated, a),
            QueueAdd(c), QueuePop(), QueueMoveAll(EVENT_NODE_ADD), fail(c_gated, pending=(FIT,))]),
        _s("gated.hand_back.hints_off",
           "With QueueingHints off, AddUnschedulableIfNotPresent sends a pod without a rejector plugin to "
           "moveToBackoffQ, which parks it in unschedulablePods when PreEnqueue gates it: b, handed back after an "
           "error with a gate in its object, waits there",
           [NewQueue(queueing_hints=False, pre_enqueue_plugins=(SCHEDULING_GATES,)), QueueAdd(b), QueuePop(),
            fail(b_gated)]),
    ]


def hint_scenarios() -> list[Scenario]:
    """``isPodWorthRequeuing`` and ``determineSchedulingHintForInFlightPod``."""
    a, b, c = pod("a"), pod("b"), pod("c")
    two_events = new_queue((EVENT_NODE_ADD, [(Y, Q)]), (EVENT_NODE_DELETE, [(X, Q)]))
    return [
        _s("hint.force_activate_targets_pod",
           "A wildcard event naming a pod in its new object is for that pod only (isPodWorthRequeuing): a and b are "
           "in flight when Activate(b) records ForceActivate for b (PriorityQueue.Activate); a, handed back rejected, "
           "skips it and waits in unschedulablePods, while b backs off",
           [QueueAdd(a), QueueStepClock(1), QueueAdd(b), QueuePop(), QueuePop(), QueueActivate(b), fail(a, FIT),
            fail(b, FIT)]),
        _s("hint.in_flight_walks_every_event",
           "determineSchedulingHintForInFlightPod asks about every event recorded during the attempt: a's rejector "
           "PluginX skips the first (a NodeAdd, which only PluginY registered) and queues the second (a NodeDelete), "
           "so a, handed back, backs off",
           [two_events, QueueAdd(a), QueuePop(), QueueMoveAll(EVENT_NODE_ADD), QueueMoveAll(EVENT_NODE_DELETE),
            fail(a, X)]),
        _s("hint.in_flight_pending_goes_on",
           "determineSchedulingHintForInFlightPod goes on past a Queue answer while the pod has Pending plugins: b, "
           "rejected by PluginX and Pending on PluginY, sees a NodeDelete (PluginX queues it after backoff) then a "
           "NodeAdd (PluginY, Pending, queues it immediately): activeQ",
           [two_events, QueueAdd(b), QueuePop(), QueueMoveAll(EVENT_NODE_DELETE), QueueMoveAll(EVENT_NODE_ADD),
            fail(b, X, pending=(Y,))]),
        _s("hint.pending_other_plugin_backs_off",
           "isPodWorthRequeuing: when a rejector that is not Pending queues the pod and no Pending plugin does, the "
           "pod is queued after backoff: c, rejected by PluginX and Pending on PluginY, is moved by a NodeDelete "
           "(PluginX's) while still backing off: backoffQ",
           [two_events, *_unschedulable(c, X, pending=(Y,)), QueueMoveAll(EVENT_NODE_DELETE)]),
        _s("hint.same_event_twice",
           "Each pod is asked about each move (movePodsToActiveOrBackoffQueue): a (rejected by PluginY) and b "
           "(PluginX) wait in unschedulablePods; a NodeAdd, which only PluginY registered, moves a and skips b, and "
           "a second NodeAdd skips b again",
           [two_events, *_unschedulable(a, Y), *_unschedulable(b, X), QueueMoveAll(EVENT_NODE_ADD),
            QueueMoveAll(EVENT_NODE_ADD)]),
        _s("move.past_a_skipped_pod",
           "movePodsToActiveOrBackoffQueue goes on past a pod the hints skip: b (rejected by PluginX, first in "
           "unschedulablePods) is skipped by a NodeAdd and a (PluginY) behind it is moved",
           [two_events, *_unschedulable(b, X), *_unschedulable(a, Y), QueueMoveAll(EVENT_NODE_ADD)]),
        _s("move.pre_check",
           "MoveAllToActiveOrBackoffQueue moves only the unschedulable pods its preCheck passes: a and b wait "
           "rejected by NodeResourcesFit; a NodeAdd whose preCheck passes b only moves b",
           [*_unschedulable(a, FIT), *_unschedulable(b, FIT), QueueMoveAll(EVENT_NODE_ADD, frozenset({"b"})),
            QueueActivate(c)]),
    ]


def misc_scenarios() -> list[Scenario]:
    """Leftover flush age, heap fix on update, a zero leftover duration."""
    a, b = pod("a", 1), pod("b", 2)
    return [
        _s("leftover.age_since_attempt",
           "flushUnschedulablePodsLeftover moves a pod that has waited longer than podMaxInUnschedulablePodsDuration "
           "since its last attempt (now minus its timestamp): a, handed back at 200 s, is still in unschedulablePods "
           "after a flush at 250 s and leaves at 501 s",
           [QueueStepClock(200 * SECOND), *_unschedulable(a, FIT), QueueStepClock(50 * SECOND),
            QueueFlushUnschedulable(), QueueStepClock(251 * SECOND), QueueFlushUnschedulable()]),
        _s("update.reorders_active_q",
           "Update of a pod in activeQ fixes the heap (activeQueue.update): a (priority 1) behind b (priority 2) is "
           "raised to priority 3 and is popped first",
           [QueueAdd(a), QueueAdd(b), QueueUpdate(a, replace(a, priority=3)), QueuePop()]),
        _s("leftover.zero_duration",
           "NewPriorityQueue takes a zero podMaxInUnschedulablePodsDuration (WithPodMaxInUnschedulablePodsDuration): "
           "every pod handed back before now is leftover, so a, rejected, is moved by the next flush",
           [NewQueue(pod_max_in_unschedulable_pods_duration=0), *_unschedulable(a, FIT), QueueStepClock(1),
            QueueFlushUnschedulable()]),
    ]


def queue_mutants_a_scenarios() -> list[Scenario]:
    """Every scenario of this module."""
    return [*nomination_scenarios(), *status_update_scenarios(), *gated_scenarios(), *hint_scenarios(),
            *misc_scenarios()]
