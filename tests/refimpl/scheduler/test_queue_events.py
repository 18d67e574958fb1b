"""Cluster events: matching (framework/types_test.go TestMatchClusterEvents), update interpretation
(framework/events_test.go TestNodeSchedulingPropertiesChange / TestPodSchedulingPropertiesChange) and the hint maps
the queue consults."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from refimpl.scheduler.events import (
    EVENT_ASSIGNED_POD_DELETE,
    EVENT_FORCE_ACTIVATE,
    EVENT_NODE_ADD,
    EVENT_UNSCHEDULABLE_TIMEOUT,
    ActionType,
    ClusterEvent,
    ClusterEventWithHint,
    EventResource,
    QueueingHint,
    build_queueing_hint_map,
    default_plugin_events,
    default_queueing_hint_map,
    match_any_cluster_event,
    match_cluster_events,
    node_scheduling_properties_change,
    pod_scheduling_properties_change,
)
from spec.frozenmap import FrozenMap
from spec.objects import Container, Node, Pod, Taint, Toleration
from spec.quantities import resource_list

POD, NODE = EventResource.POD, EventResource.NODE


@pytest.mark.parametrize(
    ("registered", "incoming", "matches"),
    [
        (ClusterEvent(NODE, ActionType.UPDATE), ClusterEvent(NODE, ActionType.UPDATE_NODE_LABEL), True),
        (ClusterEvent(NODE, ActionType.UPDATE_NODE_LABEL), ClusterEvent(NODE, ActionType.UPDATE), False),
        (ClusterEvent(NODE, ActionType.ADD | ActionType.UPDATE_NODE_LABEL), EVENT_NODE_ADD, True),
        (ClusterEvent(NODE, ActionType.ADD), ClusterEvent(NODE, ActionType.DELETE), False),
        (ClusterEvent(POD, ActionType.DELETE), EVENT_ASSIGNED_POD_DELETE, True),  # Pod covers AssignedPod
        (ClusterEvent(EventResource.ASSIGNED_POD, ActionType.DELETE), ClusterEvent(POD, ActionType.DELETE), False),
        (ClusterEvent(NODE, ActionType.ALL), ClusterEvent(POD, ActionType.ADD), False),
        (ClusterEvent(EventResource.WILDCARD, ActionType.ALL), EVENT_NODE_ADD, True),
        (ClusterEvent(NODE, ActionType.ALL), EVENT_UNSCHEDULABLE_TIMEOUT, False),  # incoming wildcard
    ],
)
def test_match_cluster_events(registered: ClusterEvent, incoming: ClusterEvent, matches: bool) -> None:
    assert match_cluster_events(registered, incoming) is matches
    assert match_any_cluster_event(incoming, [EVENT_NODE_ADD, registered]) is (matches or incoming == EVENT_NODE_ADD)


def test_labels_and_wildcards() -> None:
    assert EVENT_NODE_ADD.label == "NodeAdd"
    assert ClusterEvent(NODE, ActionType.UPDATE_NODE_ALLOCATABLE).label == "NodeUpdateNodeAllocatable"
    assert EVENT_ASSIGNED_POD_DELETE.label == "AssignedPodDelete"
    assert EVENT_FORCE_ACTIVATE.label == "ForceActivate" and EVENT_FORCE_ACTIVATE.is_wildcard
    assert not EVENT_NODE_ADD.is_wildcard


def node(**changes: Any) -> Node:
    return replace(Node(name="n", allocatable=resource_list(cpu=1000), labels=FrozenMap({"a": "1"})), **changes)


def test_node_update_events_in_kubernetes_order() -> None:
    old = node(unschedulable=True)
    new = node(
        unschedulable=False,
        allocatable=resource_list(cpu=2000),
        labels=FrozenMap({"a": "2"}),
        taints=(Taint(key="k"),),
    )
    actions = [e.action_type for e in node_scheduling_properties_change(new, old)]
    assert actions == [
        ActionType.UPDATE_NODE_TAINT,  # spec.unschedulable cleared
        ActionType.UPDATE_NODE_ALLOCATABLE,
        ActionType.UPDATE_NODE_LABEL,
        ActionType.UPDATE_NODE_TAINT,
    ]
    assert node_scheduling_properties_change(node(unschedulable=True), node()) == []  # cordoning helps no pod
    assert node_scheduling_properties_change(node(), node()) == []


def pod(node_name: str = "", cpu: int = 100, tolerations: tuple[Toleration, ...] = ()) -> Pod:
    return Pod(
        uid="p", node_name=node_name, containers=(Container("c", resource_list(cpu=cpu)),), tolerations=tolerations
    )


def test_pod_update_events() -> None:
    assert pod_scheduling_properties_change(pod(cpu=50), pod(cpu=100)) == [
        ClusterEvent(EventResource.UNSCHEDULABLE_POD, ActionType.UPDATE_POD_SCALE_DOWN)
    ]
    assert pod_scheduling_properties_change(pod("n", tolerations=(Toleration(key="k"),)), pod("n")) == [
        ClusterEvent(EventResource.ASSIGNED_POD, ActionType.UPDATE_POD_TOLERATION)
    ]
    assert pod_scheduling_properties_change(pod(cpu=200), pod(cpu=100)) == [
        ClusterEvent(EventResource.UNSCHEDULABLE_POD, ActionType.UPDATE)  # scale-up: only the generic event
    ]
    # v1.37's extractPodScaleUp (scale_up): a raised request is UpdatePodScaleUp, after a lowered one's ScaleDown
    assert pod_scheduling_properties_change(pod(cpu=200), pod(cpu=100), target_pod=True, scale_up=True) == [
        ClusterEvent(EventResource.TARGET_POD, ActionType.UPDATE_POD_SCALE_UP)
    ]
    lowered_and_added = Pod(uid="p", containers=(Container("c", resource_list(cpu=50, memory=10)),))
    assert pod_scheduling_properties_change(lowered_and_added, pod(cpu=100), scale_up=True) == [
        ClusterEvent(EventResource.UNSCHEDULABLE_POD, ActionType.UPDATE_POD_SCALE_DOWN),
        ClusterEvent(EventResource.UNSCHEDULABLE_POD, ActionType.UPDATE_POD_SCALE_UP),
    ]


def test_default_registrations_with_and_without_queueing_hints() -> None:
    assert default_plugin_events("NodeName") == (EVENT_NODE_ADD,)
    widened = ActionType.ADD | ActionType.UPDATE_NODE_TAINT | ActionType.UPDATE_NODE_LABEL
    assert default_plugin_events("NodeName", queueing_hints_enabled=False) == (ClusterEvent(NODE, widened),)
    assert default_plugin_events("TaintToleration", queueing_hints_enabled=False) == (ClusterEvent(NODE, widened),)
    hints = default_queueing_hint_map(["NodePorts", "NodeResourcesFit"])
    assert [f.plugin_name for f in hints[ClusterEvent(POD, ActionType.DELETE)]] == ["NodePorts"]
    with pytest.raises(ValueError, match="'ImageLocality'"):
        default_queueing_hint_map(["ImageLocality"])


def test_hint_map_from_plugin_registrations() -> None:
    def skip(p: Pod, old: object, new: object) -> QueueingHint:
        return QueueingHint.QUEUE_SKIP

    registrations = {"P": [ClusterEventWithHint(EVENT_NODE_ADD, skip)]}
    [on] = build_queueing_hint_map(registrations)[EVENT_NODE_ADD]
    [off] = build_queueing_hint_map(registrations, queueing_hints_enabled=False)[EVENT_NODE_ADD]
    assert on.hint(pod(), None, None) is QueueingHint.QUEUE_SKIP
    assert off.hint(pod(), None, None) is QueueingHint.QUEUE
