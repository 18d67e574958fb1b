"""Ported from pkg/scheduler/framework/plugins/noderesources/balanced_allocation_test.go: cases of
TestNodeResourcesBalancedAllocation over cpu and memory (the default resources; the scalar-resource cases use
non-default arguments). Nodes get room for ten pods, as ``makeNode`` does not say; existing pods are placed on their
node by the cycle (created, scheduled there, bound and confirmed)."""

from __future__ import annotations

from typing import Final

from conformance.operations import BindPod, ClusterAddNode, ConfirmBinding, CreatePod, SchedulePod
from conformance.ported.common import GO_SCORES, go_case, score_case
from conformance.scenarios.shapes import container
from conformance.traces import Scenario
from spec.objects import Node, Pod
from spec.quantities import resource_list

FILE: Final = "framework/plugins/noderesources/balanced_allocation_test.go"
TEST: Final = "TestNodeResourcesBalancedAllocation"
PLUGIN: Final = "NodeResourcesBalancedAllocation"


def _node(name: str, milli_cpu: int, memory: int) -> Node:
    return Node(name, resource_list(cpu=milli_cpu, memory=memory, pods=10))


def _cpu_and_memory(uid: str) -> Pod:
    """``cpuAndMemory``: 1000m/2000 and 2000m/3000."""
    return Pod(uid, uid, containers=(container("a", cpu=1000, memory=2000), container("b", cpu=2000, memory=3000)))


def _cpu_only(uid: str) -> Pod:
    """``cpuOnly``: 1000m and 2000m, memory 0."""
    return Pod(uid, uid, containers=(container("a", cpu=1000, memory=0), container("b", cpu=2000, memory=0)))


def scenarios() -> list[Scenario]:
    """Two cases: differently sized empty nodes; nodes holding pods."""
    first = score_case(FILE, TEST, "nothing scheduled, resources requested, differently sized nodes",
                       [_node("node1", 4000, 10000), _node("node2", 6000, 10000)], _cpu_and_memory("pod"), "node2",
                       PLUGIN, {"node1": 87, "node2": 100})
    existing = [(_cpu_only("p1"), "node1"), (_cpu_and_memory("p2"), "node2")]
    ops: list[object] = [ClusterAddNode(_node("node1", 10000, 20000)), ClusterAddNode(_node("node2", 10000, 20000))]
    for pod, node in existing:
        ops += [CreatePod(pod), SchedulePod(pod.uid, node), BindPod(pod.uid), ConfirmBinding(pod.uid)]
    pod = _cpu_and_memory("pod")
    ops += [CreatePod(pod), SchedulePod(pod.uid, "node2")]
    second = go_case("cycle", FILE, TEST, "resources requested, pods scheduled with resources", ops, "score")
    GO_SCORES[second.id] = (PLUGIN, {"node1": 82, "node2": 95})
    return [first, second]
