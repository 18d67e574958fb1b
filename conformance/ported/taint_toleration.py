"""Ported from pkg/scheduler/framework/plugins/tainttoleration/taint_toleration_test.go: the Score cases of
TestTaintTolerationScore (its Filter cases are the curated cycle vectors' ground). Each node gets room for a pod
(``pods: 10``), which the Go test's nodes need not have: it calls Score without filtering."""

from __future__ import annotations

from typing import Final

from conformance.ported.common import score_case
from conformance.traces import Scenario
from spec.objects import Node, Pod, Taint, Toleration
from spec.quantities import resource_list

FILE: Final = "framework/plugins/tainttoleration/taint_toleration_test.go"
TEST: Final = "TestTaintTolerationScore"
PREFER: Final = "PreferNoSchedule"


def _node(name: str, *taints: tuple[str, str]) -> Node:
    return Node(name, resource_list(pods=10), taints=tuple(Taint(k, v, PREFER) for k, v in taints))


def _pod(*tolerations: tuple[str, str]) -> Pod:
    return Pod("pod1", "pod1", tolerations=tuple(Toleration(k, "Equal", v, PREFER) for k, v in tolerations))


def scenarios() -> list[Scenario]:
    """Three cases: a tolerated taint beats an untolerated one; tolerated taints do not count; each untolerated
    PreferNoSchedule taint lowers the score."""
    return [
        score_case(FILE, TEST, "node with taints tolerated by the pod, gets a higher score than those node with "
                   "intolerable taints", [_node("nodeA", ("foo", "bar")), _node("nodeB", ("foo", "blah"))],
                   _pod(("foo", "bar")), "nodeA", "TaintToleration", {"nodeA": 100, "nodeB": 0}),
        score_case(FILE, TEST, "the nodes that all of their taints are tolerated by the pod, get the same score",
                   [_node("nodeA"), _node("nodeB", ("cpu-type", "arm64")),
                    _node("nodeC", ("cpu-type", "arm64"), ("disk-type", "ssd"))],
                   _pod(("cpu-type", "arm64"), ("disk-type", "ssd")), "nodeB", "TaintToleration",
                   {"nodeA": 100, "nodeB": 100, "nodeC": 100}),
        score_case(FILE, TEST, "the more intolerable taints a node has, the lower score it gets",
                   [_node("nodeA"), _node("nodeB", ("cpu-type", "arm64")),
                    _node("nodeC", ("cpu-type", "arm64"), ("disk-type", "ssd"))],
                   _pod(("foo", "bar")), "nodeA", "TaintToleration", {"nodeA": 100, "nodeB": 50, "nodeC": 0}),
    ]
