"""Scenarios for issue 25's last out-of-scope items: SchedulingGates' own registration and hint in the queue area
(``queue.gates.*``), and the API server's refusal of a pod whose namespace/name a live pod has
(``cycle.create.unique_name.*``).

SchedulingGates' ``EventsToRegister`` (pkg/scheduler/framework/plugins/schedulinggates/scheduling_gates.go) through
v1.36 registers ``Pod`` gates-eliminated updates, QueueingHints on only, with
``isSchedulableAfterUpdatePodSchedulingGatesEliminated``, which queues a pod for its own update and skips it for
another pod's; v1.37 registers ``TargetPod`` gates-eliminated updates with a hint that always queues
(:func:`spec.queue.events.scheduling_gates_hints`). Kubernetes' tests of the plugin (scheduling_gates_test.go,
v1.35.8) test only ``PreEnqueue`` (``TestPreEnqueue``, in tests/spec/queue/test_gates.py); its queue tests use
constant hints in place of the plugin's. These scenarios reach the plugin's own registration and hint through the
queue's calls.

The API server keys a pod by namespace/name (the generic registry's ``Store.Create``,
staging/src/k8s.io/apiserver/pkg/registry/generic/registry/store.go): creating a pod whose key a live pod holds (a
terminating one too) fails with AlreadyExists and changes nothing (:class:`spec.cycle.cycle.PodAlreadyExists`); once
that pod is gone the name is free. Expected outcomes come from the spec (:func:`conformance.traces.expand`), never
from here.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Final

from conformance.operations import ClusterAddNode, CreatePod, CycleOperation, DeletePod, SchedulePod, TerminatePod
from conformance.ported.scheduling_queue import fail, pod
from conformance.scenarios.cycle import node, placed
from conformance.scenarios.cycle import pod as cycle_pod
from conformance.traces import ALL_PROFILES, Scenario
from spec.queue.events import SCHEDULING_GATES, ActionType, ClusterEvent, EventResource
from spec.queue.operations import (
    NewQueue,
    QueueAdd,
    QueueDone,
    QueueMoveAll,
    QueueOperation,
    QueuePop,
    QueueUpdate,
)
from spec.versions import PROFILES

GATES: Final = NewQueue(pre_enqueue_plugins=(SCHEDULING_GATES,))
"""A queue whose profile runs SchedulingGates, with the default hint map (SchedulingGates' own registrations)."""
FIT: Final = "NodeResourcesFit"
_GATE: Final = ("example.com/gate",)


def _gates(sid: str, description: str, ops: list[QueueOperation], *labels: str) -> Scenario:
    return Scenario(f"queue.gates.{sid}", description, ops, area="queue", behaviours=labels, profiles=ALL_PROFILES)


def gates_queue_scenarios() -> list[Scenario]:
    """SchedulingGates' registration and hint, as the queue consults them."""
    a, b, g = pod("a", 2), pod("b", 1), pod("g", 0, scheduling_gates=_GATE)
    b_gated = pod("b", 1, scheduling_gates=_GATE)
    unscheduled_gates_eliminated = ClusterEvent(EventResource.UNSCHEDULABLE_POD,
                                                ActionType.UPDATE_POD_SCHEDULING_GATES_ELIMINATED)
    return [
        _gates(
            "hint_other_pod_in_flight",
            "SchedulingGates' hint reads the updated pod: a and b are in flight when b's update removes a gate "
            "(recorded for the pods in flight); a, handed back rejected by SchedulingGates, stays in "
            "unschedulablePods through v1.36 (isSchedulableAfterUpdatePodSchedulingGatesEliminated: another pod's "
            "update, QueueSkip) and backs off from v1.37 (its TargetPod hint always queues); b, handed back the "
            "same way, backs off (its own update); the gated pod g waits throughout",
            [GATES, QueueAdd(g), QueueAdd(a), QueueAdd(b), QueuePop(), QueuePop(), QueueUpdate(b_gated, b),
             fail(a, SCHEDULING_GATES), fail(b, SCHEDULING_GATES)],
            "scheduling-gates", "hints",
        ),
        _gates(
            "hints_off_registers_nothing",
            "With QueueingHints off SchedulingGates registers no event: a move for a gates-eliminated update is of no "
            "interest (isEventOfInterest), so a, rejected by NodeResourcesFit, stays in unschedulablePods and no "
            "move request is made (moveRequestCycle stays -1)",
            [NewQueue(queueing_hints=False, pre_enqueue_plugins=(SCHEDULING_GATES,)), QueueAdd(g), QueueAdd(a),
             QueuePop(), fail(a, FIT), QueueMoveAll(unscheduled_gates_eliminated)],
            "scheduling-gates", "hints-off",
        ),
        _gates(
            "registration_resource.move_request",
            "SchedulingGates' registration decides which gates-eliminated events interest the queue: through v1.36 "
            "it registers Pod, which covers UnschedulablePod, so a move of an UnschedulablePod gates-eliminated "
            "event is of interest and makes a move request (moveRequestCycle becomes the current cycle); a, rejected "
            "by NodeResourcesFit, stays in unschedulablePods (no hint of its rejector matches), and the gated pod g "
            "added afterwards waits on its gate",
            [GATES, QueueAdd(a), QueuePop(), fail(a, FIT), QueueMoveAll(unscheduled_gates_eliminated), QueueAdd(g)],
            "scheduling-gates", "hints",
        ),
        Scenario(
            "queue.gates.registration_resource.in_flight",
            "From v1.37 SchedulingGates registers TargetPod gates-eliminated updates only: a move of an "
            "UnschedulablePod gates-eliminated event while a is in flight is of no interest, so nothing is recorded "
            "for a (through v1.36 the move would reach SchedulingGates' pod-reading hint without a pod, which "
            "Kubernetes' scheduler never does)",
            [GATES, QueueAdd(a), QueuePop(), QueueMoveAll(unscheduled_gates_eliminated), QueueDone("a"), QueueAdd(g)],
            area="queue", behaviours=("scheduling-gates",),
            profiles=tuple(name for name, p in PROFILES.items() if p.target_pod_update_events),
        ),
    ]


def _unique(sid: str, description: str, ops: list[CycleOperation]) -> Scenario:
    return Scenario(f"cycle.create.unique_name.{sid}", description, ops, area="cycle", behaviours=("unique-name",),
                    profiles=ALL_PROFILES)


def unique_name_scenarios() -> list[Scenario]:
    """A created pod's namespace/name against the live pods'."""
    p = cycle_pod("p")
    twin = replace(cycle_pod("q"), name=p.name)  # another UID, p's namespace/name
    elsewhere = replace(twin, namespace="other")
    return [
        _unique("pending", "a pod named as the pending pod p (another UID) is refused: AlreadyExists, nothing "
                "changes, and p is then scheduled", [ClusterAddNode(node("n1")), CreatePod(p), CreatePod(twin),
                                                    SchedulePod("p", "n1")]),
        _unique("bound", "a pod named as p, bound and confirmed on n1, is refused: AlreadyExists",
                [ClusterAddNode(node("n1")), CreatePod(p), *placed("p", "n1"), CreatePod(twin)]),
        _unique("terminating", "a terminating pod still holds its name until it is removed: a pod named as the "
                "terminating p (deleted gracefully) is refused (AlreadyExists); after p's deletion the same name is "
                "created",
                [CreatePod(p), TerminatePod("p"), CreatePod(twin), DeletePod("p"), CreatePod(twin)]),
        _unique("other_namespace", "the key is namespace and name: a pod named as p in another namespace is "
                "created and scheduled beside it, while one named as p in p's namespace is refused",
                [ClusterAddNode(node("n1")), CreatePod(p), CreatePod(elsewhere), CreatePod(replace(twin, uid="r")),
                 SchedulePod("q", "n1")]),
    ]


def gates_skip_scenarios() -> list[Scenario]:
    """Every scenario of this module."""
    return [*gates_queue_scenarios(), *unique_name_scenarios()]
