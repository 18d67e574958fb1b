"""v1.37's ``UpdatePodScaleUp`` event, per profile (``extractPodScaleUp`` in ``PodSchedulingPropertiesChange``,
pkg/scheduler/framework/events.go, read in v1.34.12, v1.35.8, v1.36.5 and v1.37.2; ``MatchClusterEvents``,
pkg/scheduler/framework/types.go). Before :attr:`spec.versions.VersionProfile.pod_scale_up_event`, the spec reported
the generic ``Update`` for raised requests in every profile, and the v1.37 assertions below failed."""

from __future__ import annotations

import pytest

from spec.frozenmap import FrozenMap
from spec.objects import Container, Pod
from spec.quantities import resource_list
from spec.queue import queue as q
from spec.queue.events import (
    ActionType,
    ClusterEvent,
    EventResource,
    HintFunction,
    HintRegistration,
    match_cluster_events,
    pod_scheduling_properties_change,
)
from spec.queue.operations import QueueAdd, QueueAddUnschedulable, QueuePop, apply_queue_operation, new_queue_world
from spec.queue.state import RecordedEvent, new_scheduling_queue
from spec.valuetypes import replace
from spec.versions import PROFILES, V1_34, V1_35, V1_36, V1_37, VersionProfile

_A = ActionType


def _pod(**requests: int) -> Pod:
    return Pod("a", "a", "ns", containers=(Container("c", resource_list(**requests)),))


def test_only_v1_37_and_later_name_a_scale_up() -> None:
    assert [name for name, profile in PROFILES.items() if profile.pod_scale_up_event] == ["v1.37", "pr141745"]


def test_the_bits_are_v1_37s_declaration_order() -> None:
    """fwk.ActionType in v1.37.2 (staging kube-scheduler framework/types.go): ... DeclaredFeature,
    PreemptionPolicy, PodLabel, PodScaleDown, PodScaleUp, PodToleration ..., ``Update`` every update bit."""
    bits = (_A.UPDATE_NODE_PREEMPTION_POLICY, _A.UPDATE_POD_LABEL, _A.UPDATE_POD_SCALE_UP, _A.UPDATE_POD_TOLERATION)
    assert bits == (1 << 8, 1 << 9, 1 << 11, 1 << 12)
    assert (int(_A.UPDATE), int(_A.ALL)) == (32764, 32767)
    assert _A.UPDATE & _A.UPDATE_POD_SCALE_UP


@pytest.mark.parametrize(("old", "new"), [
    (_pod(cpu=100), _pod(cpu=200)),  # raised
    (_pod(cpu=100), _pod(cpu=100, memory=1 << 20)),  # added
])
def test_raised_or_added_requests_are_a_scale_up_only_with_the_extractor(old: Pod, new: Pod) -> None:
    scaled_up = pod_scheduling_properties_change(new, old, target_pod=True, scale_up=True)
    assert scaled_up == (ClusterEvent(EventResource.TARGET_POD, _A.UPDATE_POD_SCALE_UP),)
    assert pod_scheduling_properties_change(new, old) == (ClusterEvent(EventResource.UNSCHEDULABLE_POD, _A.UPDATE),)


def test_scale_up_follows_the_extractor_order() -> None:
    """Labels, scale-down, scale-up: one resource lowered and another raised is both, in that order."""
    old, new = _pod(cpu=200, memory=100), replace(_pod(cpu=100, memory=200), labels=FrozenMap({"app": "web"}))
    actions = [e.action_type for e in pod_scheduling_properties_change(new, old, scale_up=True)]
    assert actions == [_A.UPDATE_POD_LABEL, _A.UPDATE_POD_SCALE_DOWN, _A.UPDATE_POD_SCALE_UP]
    assert pod_scheduling_properties_change(_pod(cpu=100), _pod(cpu=100), scale_up=True)[0].action_type == _A.UPDATE


def test_matching_scale_up_and_the_generic_update() -> None:
    """A specific registration is matched by the specific event only; ``Update`` and ``Pod`` cover both."""
    scale_up = ClusterEvent(EventResource.TARGET_POD, _A.UPDATE_POD_SCALE_UP)
    generic = ClusterEvent(EventResource.UNSCHEDULABLE_POD, _A.UPDATE)
    registered = ClusterEvent(EventResource.POD, _A.UPDATE_POD_SCALE_UP)
    assert match_cluster_events(registered, scale_up) and not match_cluster_events(registered, generic)
    label = ClusterEvent(EventResource.POD, _A.UPDATE_POD_LABEL)
    assert not match_cluster_events(label, scale_up) and not match_cluster_events(label, generic)
    update = ClusterEvent(EventResource.POD, _A.UPDATE)
    assert match_cluster_events(update, scale_up) and match_cluster_events(update, generic)


@pytest.mark.parametrize("profile", [V1_34, V1_35, V1_36, V1_37], ids=lambda p: p.name)
def test_an_in_flight_pods_raised_request_is_recorded_per_release(profile: VersionProfile) -> None:
    world = new_queue_world(profile)
    for op in (QueueAdd(_pod(cpu=100)), QueuePop()):
        world, _ = apply_queue_operation(world, op)
    queue = q.update(world.queue, _pod(cpu=100), _pod(cpu=200))
    expected = (ClusterEvent(EventResource.TARGET_POD, _A.UPDATE_POD_SCALE_UP) if profile.name == "v1.37"
                else ClusterEvent(EventResource.UNSCHEDULABLE_POD, _A.UPDATE))
    assert queue.in_flight_events[-1] == RecordedEvent(expected, "a")


@pytest.mark.parametrize("scale_up", [True, False])
def test_a_scale_up_registration_requeues_an_unschedulable_pod_in_v1_37(scale_up: bool) -> None:
    """Only v1.37 can register ``UpdatePodScaleUp`` (earlier releases have no such bit), so the field is turned off
    on v1.37's queue to show what the generic event did."""
    hints = (HintRegistration(ClusterEvent(EventResource.POD, _A.UPDATE_POD_SCALE_UP), (HintFunction("X"),)),)
    queue = new_scheduling_queue(V1_37, hints=hints, pod_scale_up_event=scale_up)
    world = replace(new_queue_world(V1_37), queue=queue)
    for op in (QueueAdd(_pod(cpu=100)), QueuePop(), QueueAddUnschedulable(_pod(cpu=100), frozenset({"X"}))):
        world, _ = apply_queue_operation(world, op)
    assert set(world.queue.unschedulable_pods) == {"a"}
    queue = q.update(q.step_clock(world.queue, 2_000_000_000), _pod(cpu=100), _pod(cpu=200))
    assert (set(queue.active_q), set(queue.unschedulable_pods)) == (({"a"}, set()) if scale_up else (set(), {"a"}))
