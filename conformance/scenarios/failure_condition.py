"""Cycle-area scenarios for what the failure handler writes: the ``PodScheduled`` condition and the
``FailedScheduling`` event (``Scheduler.handleSchedulingFailure``, ``truncateMessage``, pkg/scheduler/schedule_one.go).

After every failed scheduling cycle or binding the handler records a ``FailedScheduling`` event whose note is the
status message cut to 1,024 bytes, and patches the pod's ``PodScheduled`` condition to ``False`` with the reason
``Unschedulable`` (a rejection) or ``SchedulerError`` (an error) and the full message; a pod recreated under its name
meanwhile gets neither, and the patch of a deleted pod fails. The observation's ``failures`` shows both for each pod
the API server has (format 4.6.0). Each scenario names the Kubernetes test it ports (v1.35.8
pkg/scheduler/schedule_one_test.go). Expected outcomes come from the spec (:func:`conformance.traces.expand`), never
from here.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Final

from conformance.operations import (
    ClusterAddNode,
    CreatePod,
    CycleOperation,
    DeletePod,
    FailBinding,
    FailScheduling,
    SchedulePod,
)
from conformance.scenarios.cycle import MIB, node, placed, pod
from conformance.traces import ALL_PROFILES, Scenario
from spec.cycle.cycle import FailurePoint
from spec.objects import Container, Node, Pod
from spec.quantities import resource_list, resources_from

_TEST: Final = "schedule_one_test.go"
LONG_RESOURCES: Final = 40
NOTE_BOUNDARY_RESOURCES: Final = 14
"""How many extended resources the pods of ``note_limit.*`` request: their FitError message ("0/2 nodes are
available: " and one "2 Insufficient example.com/..." reason each) is 976 bytes before the names are padded to
reach 1,024 or 1,025 bytes (``tests/conformance/test_failure_condition.py`` checks the lengths)."""
"""How many extended resources the pod of ``long_message`` requests that its node lacks: each adds a reason
("1 Insufficient example.com/...") to the FitError message, which then passes 1,024 bytes."""


def _cond(sid: str, description: str, ops: list[CycleOperation], preemption: bool = False) -> Scenario:
    return Scenario(f"cycle.failure.condition.{sid}{'.preemption' if preemption else ''}", description, ops,
                    area="cycle", profiles=ALL_PROFILES, preemption=preemption)


def _big_pod(uid: str) -> Pod:
    """TestSchedulerFailedSchedulingReasons' pod: 4 cpu and 4 GiB (twice what each of its nodes has)."""
    return Pod(uid, f"pod-{uid}", containers=(Container("c", resource_list(cpu=4000, memory=4096 * MIB)),))


def _small_node(name: str) -> Node:
    """TestSchedulerFailedSchedulingReasons' node: 2 cpu and 2 GiB."""
    return Node(name, resource_list(cpu=2000, memory=2048 * MIB, pods=10))


def _greedy_pod(uid: str) -> Pod:
    """A pod requesting :data:`LONG_RESOURCES` extended resources with long names, none of which a node has."""
    requests = {"cpu": 100, **{f"example.com/a-rather-long-extended-resource-name-{i:02}": 1
                               for i in range(LONG_RESOURCES)}}
    return Pod(uid, f"pod-{uid}", containers=(Container("c", resources_from(requests)),))


def _padded_pod(uid: str, padding: int) -> Pod:
    """A pod requesting :data:`NOTE_BOUNDARY_RESOURCES` extended resources no node has, their names ``padding``
    characters longer in all than ``example.com/a-rather-long-extended-resource-name-NN`` (each name stays within a
    qualified name's 63 characters)."""
    names = []
    for i in range(NOTE_BOUNDARY_RESOURCES):
        extra = padding // NOTE_BOUNDARY_RESOURCES + (1 if i < padding % NOTE_BOUNDARY_RESOURCES else 0)
        names.append(f"example.com/a-rather-long-extended-resource-name-{i:02}{'x' * extra}")
    requests = {"cpu": 100, **{name: 1 for name in names}}
    return Pod(uid, f"pod-{uid}", containers=(Container("c", resources_from(requests)),))


def condition_scenarios() -> list[Scenario]:
    """The condition and the event after each kind of failure, a long message, a recreated and a deleted pod."""
    many_nodes = [ClusterAddNode(_small_node(f"n{i:03}")) for i in range(100)]
    scenarios = [
        _cond("many_nodes",
              f"TestSchedulerFailedSchedulingReasons ({_TEST}): 100 nodes of 2 cpu and 2 GiB, a pod of 4 cpu and "
              "4 GiB: the condition (Unschedulable) and the event carry the rolled-up reasons, '0/100 nodes are "
              "available: 100 Insufficient cpu, 100 Insufficient memory.'",
              [*many_nodes, CreatePod(_big_pod("p")), FailScheduling("p")]),
        _cond("no_nodes",
              f"TestSchedulerScheduleOne ({_TEST}) 'schedule pod failed', with schedulePod's ErrNoNodesAvailable: "
              "no node exists, the cycle fails UnschedulableAndUnresolvable, so the condition's reason is "
              "Unschedulable and its message 'no nodes available to schedule pods'",
              [CreatePod(pod("p", 600)), FailScheduling("p")]),
        _cond("reserve_rejected",
              f"TestSchedulerScheduleOne ({_TEST}) 'reserve failed with status code rejected': Reserve rejects the "
              "pod on its node ('rejected on reserve'), which schedulingCycle reports as a FitError of one node: "
              "reason Unschedulable, '0/1 nodes are available: 1 rejected on reserve.'",
              [ClusterAddNode(node("n1")), CreatePod(pod("p", 600)), FailScheduling("p", "n1", FailurePoint.RESERVE)]),
        _cond("permit_rejected",
              f"TestSchedulerScheduleOne ({_TEST}) 'permit failed with status code rejected': Permit rejects the "
              "pod ('rejected on permit'): reason Unschedulable, '0/1 nodes are available: 1 rejected on permit.'",
              [ClusterAddNode(node("n1")), CreatePod(pod("p", 600)), FailScheduling("p", "n1", FailurePoint.PERMIT)]),
        _cond("prebind_error",
              f"TestSchedulerScheduleOne ({_TEST}) 'prebind failed with status code error': PreBind fails with an "
              "error, the binding cycle's failure handler writes reason SchedulerError and the framework's wrapped "
              "error; the pod is requeued and then scheduled, and the condition the handler wrote stays (the API "
              "server's binding, which sets PodScheduled True, is not the scheduler's)",
              [ClusterAddNode(node("n1")), CreatePod(pod("p", 600)), SchedulePod("p", "n1"),
               FailBinding("p", FailurePoint.PRE_BIND), *placed("p", "n1")]),
        _cond("binding_failed",
              f"TestSchedulerScheduleOne ({_TEST}) 'binding failed': the bind call fails, reason SchedulerError, "
              "message 'running Bind plugin \"DefaultBinder\": binder'; an earlier rejection of the same pod is "
              "overwritten (the handler patches the one PodScheduled condition)",
              [ClusterAddNode(node("n1")), CreatePod(pod("p", 600)), FailScheduling("p", "n1", FailurePoint.RESERVE),
               SchedulePod("p", "n1"), FailBinding("p", FailurePoint.BIND)]),
        _cond("long_message",
              f"truncateMessage ({_TEST}'s handler, validation.NoteLengthLimit): a pod requesting "
              f"{LONG_RESOURCES} extended resources no node has gets a FitError message longer than 1,024 bytes; the "
              "event's note is cut to 1,024 bytes ending in ' ...', the condition's message is not",
              [ClusterAddNode(node("n1")), ClusterAddNode(node("n2")), CreatePod(_greedy_pod("p")),
               FailScheduling("p")]),
        _cond("note_limit.exact",
              f"truncateMessage ({_TEST}'s handler, validation.NoteLengthLimit): a FitError message of exactly 1,024 "
              "bytes is the event's note unchanged (len(message) <= NoteLengthLimit), not cut",
              [ClusterAddNode(node("n1")), ClusterAddNode(node("n2")), CreatePod(_padded_pod("p", 48)),
               FailScheduling("p")]),
        _cond("note_limit.exceeded_by_one",
              f"truncateMessage ({_TEST}'s handler, validation.NoteLengthLimit): a FitError message of 1,025 bytes "
              "is cut to its first 1,020 bytes and ' ...' in the event's note; the condition keeps all of it",
              [ClusterAddNode(node("n1")), ClusterAddNode(node("n2")), CreatePod(_padded_pod("p", 49)),
               FailScheduling("p")]),
        _cond("recreated",
              f"TestHandleSchedulingFailureSkipsRecreatedPod ({_TEST}): p fails once (a condition and an event), is "
              "assumed, then deleted and created again under its name with another UID before its binding fails: "
              "the handler finds the new pod in its lister and writes nothing (no event, no patch); the new pod has "
              "no condition and the old one's left with it",
              [ClusterAddNode(node("n1", cpu=500)), CreatePod(pod("p", 600)), FailScheduling("p"),
               ClusterAddNode(node("n2")), SchedulePod("p", "n2"), DeletePod("p"),
               CreatePod(replace(pod("p2", 600), name="pod-p")), FailBinding("p", FailurePoint.BIND)]),
        _cond("deleted_during_binding",
              f"TestSchedulerScheduleOne ({_TEST}) 'binding failed', the pod deleted first: its binding fails and "
              "the handler records the event, but its status patch finds no pod (NotFound), so no pod has a "
              "condition",
              [ClusterAddNode(node("n1")), CreatePod(pod("p", 600)), SchedulePod("p", "n1"), DeletePod("p"),
               FailBinding("p", FailurePoint.BIND)]),
    ]
    for preemption in (False, True):
        scenarios.append(_cond(
            "no_fit",
            f"TestSchedulerScheduleOne ({_TEST}) 'schedule pod failed' with a FitError: a pod of 600m fits on "
            "neither node (one full, one too small); the condition and the event carry FitError.Error(), with "
            "DefaultPreemption also PostFilter's message",
            [ClusterAddNode(node("n1")), ClusterAddNode(node("n2", cpu=500)), CreatePod(pod("q", 600)),
             *placed("q", "n1"), CreatePod(pod("p", 600, priority=10)), FailScheduling("p")],
            preemption=preemption))
    return scenarios
