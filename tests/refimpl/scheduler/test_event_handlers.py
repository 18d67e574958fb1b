"""The informer event handlers, after pkg/scheduler/eventhandlers.go (v1.35) and its eventhandlers_test.go
(TestUpdatePodInCache, TestUpdateAssignedPodInCache, TestDeletePodFromSchedulingQueue / assumed-pod deletion,
TestPreCheckForNode's node events)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from refimpl.cache import Cache
from refimpl.cache.clock import FakeClock
from refimpl.scheduler.backoff import SECOND
from refimpl.scheduler.event_handlers import EventHandlers
from refimpl.scheduler.events import ActionType, ClusterEvent, EventResource
from refimpl.scheduler.queue import QueuedPodInfo, QueueName, SchedulingQueue
from spec.errors import SchedulerExit
from spec.frozenmap import FrozenMap
from spec.objects import Container, Node, Pod, with_node_name
from spec.quantities import resource_list
from spec.versions import V1_34, V1_35, V1_36, V1_37, VersionProfile

FIT = "NodeResourcesFit"
AFFINITY = "NodeAffinity"


def pod(uid: str, node: str = "", cpu: int = 100, scheduler: str = "default-scheduler") -> Pod:
    return Pod(
        uid=uid,
        name=uid,
        node_name=node,
        scheduler_name=scheduler,
        containers=(Container("c", resource_list(cpu=cpu)),),
    )


def node(name: str, cpu: int = 1000, **labels: str) -> Node:
    return Node(name=name, allocatable=resource_list(cpu=cpu, pods=110), labels=FrozenMap(labels))


class World:
    """A cache, a queue and the handlers over them, on a fake clock."""

    def __init__(self, profile: VersionProfile = V1_35, waiting: set[str] | None = None) -> None:
        self.clock = FakeClock(1_000 * SECOND)
        self.cache = Cache(profile=profile, clock=self.clock)
        self.queue = SchedulingQueue(self.clock)
        self.waiting = waiting if waiting is not None else set()
        self.rejected: list[str] = []
        self.handlers = EventHandlers(self.cache, self.queue, profile=profile, reject_waiting_pod=self._reject)

    def _reject(self, uid: str) -> bool:
        if uid in self.waiting:
            self.waiting.discard(uid)
            self.rejected.append(uid)
            return True
        return False

    def unschedulable(self, uid: str, *plugins: str) -> QueuedPodInfo:
        """Put the pending pod ``uid`` through a failed attempt rejected by ``plugins``; well past its backoff."""
        self.handlers.on_add_pod(pod(uid))
        pinfo = self.queue.pop()
        assert pinfo is not None and pinfo.uid == uid
        pinfo.unschedulable_plugins.update(plugins)
        assert self.queue.add_unschedulable_if_not_present(pinfo, self.queue.scheduling_cycle()) is (
            QueueName.UNSCHEDULABLE
        )
        self.clock.advance(20 * SECOND)
        return pinfo

    def assume(self, uid: str, node_name: str) -> Pod:
        """A scheduling cycle that chose ``node_name``: popped, assumed in the cache, still in flight."""
        self.handlers.on_add_pod(pod(uid))
        pinfo = self.queue.pop()
        assert pinfo is not None and pinfo.uid == uid
        assumed = with_node_name(pinfo.pod, node_name)
        self.cache.assume_pod(assumed)
        return assumed


def test_unassigned_pod_goes_to_the_queue_only_for_our_scheduler_names() -> None:
    w = World()
    w.handlers.on_add_pod(pod("mine"))
    w.handlers.on_add_pod(pod("theirs", scheduler="other-scheduler"))
    assert w.queue.where("mine") is QueueName.ACTIVE
    assert w.queue.where("theirs") is None
    assert w.cache.pod_count() == 0


def test_assigned_pod_goes_to_the_cache() -> None:
    w = World()
    w.handlers.on_add_node(node("n1"))
    w.handlers.on_add_pod(pod("bound", node="n1"))
    assert w.cache.get_pod(pod("bound")).node_name == "n1"
    assert w.queue.where("bound") is None
    w.handlers.on_add_pod(pod("bound", node="n1"))  # a second add is logged, not raised
    assert w.handlers.errors and "was already in added state" in w.handlers.errors[-1]


def test_observed_binding_confirms_the_assumed_pod_and_leaves_the_queue() -> None:
    w = World()
    w.handlers.on_add_node(node("n1"))
    assumed = w.assume("a", "n1")
    w.handlers.on_update_pod(pod("a"), assumed)  # the informer sees spec.nodeName set
    assert not w.cache.is_assumed_pod(assumed)
    assert w.cache.get_pod(assumed).node_name == "n1"
    assert w.queue.where("a") is QueueName.IN_FLIGHT  # the binding cycle still has to call done
    w.queue.done("a")
    assert w.queue.where("a") is None


def test_update_of_an_unscheduled_pod_reaches_the_queue_unless_identical_or_assumed() -> None:
    w = World()
    w.unschedulable("a", FIT)
    w.handlers.on_update_pod(pod("a", cpu=100), pod("a", cpu=100))  # same object: a resync, ignored
    assert w.queue.where("a") is QueueName.UNSCHEDULABLE
    w.handlers.on_update_pod(pod("a", cpu=100), pod("a", cpu=50))  # scale-down: NodeResourcesFit may now fit
    assert w.queue.where("a") is QueueName.ACTIVE
    w.handlers.on_delete_pod(pod("a"))
    w.handlers.on_add_node(node("n1"))
    assumed = w.assume("b", "n1")
    w.handlers.on_update_pod(pod("b"), pod("b", cpu=1))  # assumed: no structure is updated
    assert w.queue.where("b") is QueueName.IN_FLIGHT
    assert w.cache.get_pod(assumed).containers[0].requests["cpu"] == 100


@pytest.mark.parametrize(
    ("profile", "action"),
    [(V1_35, ActionType.UPDATE), (V1_36, ActionType.UPDATE), (V1_37, ActionType.UPDATE_POD_SCALE_UP)],
    ids=["v1.35", "v1.36", "v1.37"],
)
def test_an_assigned_pod_scaled_up_is_update_pod_scale_up_from_v1_37(
    profile: VersionProfile, action: ActionType, monkeypatch: pytest.MonkeyPatch
) -> None:
    """updatePodInCache: ``PodSchedulingPropertiesChange`` of v1.37 runs ``extractPodScaleUp`` (framework/events.go),
    so a raised request of a bound pod is ``AssignedPod/UpdatePodScaleUp``, which NodeResourcesFit registers
    (``isSchedulableAfterAssignedPodScaleUp``); before v1.37 no extractor names it and the event is the general
    ``Update``. A scale-down is ``UpdatePodScaleDown`` in every release."""
    w = World(profile)
    w.handlers.on_add_node(node("n1"))
    w.handlers.on_add_pod(pod("bound", node="n1", cpu=100))
    moved: list[ClusterEvent] = []
    monkeypatch.setattr(w.queue, "move_all_to_active_or_backoff_queue", lambda event, *_: moved.append(event))
    w.handlers.on_update_pod(pod("bound", node="n1", cpu=100), pod("bound", node="n1", cpu=300))
    w.handlers.on_update_pod(pod("bound", node="n1", cpu=300), pod("bound", node="n1", cpu=200))
    assert moved == [
        ClusterEvent(EventResource.ASSIGNED_POD, action),
        ClusterEvent(EventResource.ASSIGNED_POD, ActionType.UPDATE_POD_SCALE_DOWN),
    ]
    assert w.cache.get_pod(pod("bound")).containers[0].requests["cpu"] == 200


def test_deleting_an_assigned_pod_frees_room_and_moves_pods() -> None:
    w = World()
    w.handlers.on_add_node(node("n1"))
    w.handlers.on_add_pod(pod("big", node="n1", cpu=900))
    w.unschedulable("waiting", FIT)
    w.handlers.on_delete_pod(pod("big", node="n1"))
    assert w.cache.pod_count() == 0
    assert w.queue.where("waiting") is QueueName.ACTIVE  # AssignedPodDelete matches NodeResourcesFit's Pod/Delete


def test_deleting_an_assumed_pod_forgets_it_at_once_in_v1_35() -> None:
    w = World()
    w.handlers.on_add_node(node("n1"))
    w.assume("a", "n1")
    w.unschedulable("waiting", FIT)
    w.handlers.on_delete_pod(pod("a"))  # the informer's object has no node name yet
    assert w.cache.pod_count() == 0  # ForgetPod: resources freed before the binding cycle fails
    assert w.queue.where("waiting") is QueueName.ACTIVE
    assert w.queue.where("a") is QueueName.IN_FLIGHT
    w.cache.forget_pod(with_node_name(pod("a"), "n1"))  # the failing binding cycle's ForgetPod is a no-op in v1.35


def test_deleting_an_assumed_pod_waiting_in_permit_rejects_it_instead() -> None:
    w = World(waiting={"a"})
    w.handlers.on_add_node(node("n1"))
    w.assume("a", "n1")
    w.handlers.on_delete_pod(pod("a"))
    assert w.rejected == ["a"]
    assert w.cache.is_assumed_pod(pod("a"))  # the rejected binding cycle will Unreserve and forget it


def test_deleting_an_assumed_pod_in_v1_34_leaves_it_to_the_binding_cycle() -> None:
    w = World(profile=V1_34)
    w.handlers.on_add_node(node("n1"))
    w.assume("a", "n1")
    w.handlers.on_delete_pod(pod("a"))
    assert w.cache.is_assumed_pod(pod("a"))
    assert w.rejected == []


def test_graceful_deletion_of_an_assumed_pod_forgets_it_from_v1_35_only() -> None:
    """updatePodInSchedulingQueue: an update that sets an assumed pod's DeletionTimestamp is handled as its deletion
    (handleAssumedPodDeletion, PR #134157) from v1.35; v1.34 applies the update to nothing."""
    w = World()
    w.handlers.on_add_node(node("n1"))
    w.assume("a", "n1")
    w.handlers.on_update_pod(pod("a"), replace(pod("a"), terminating=True))
    assert w.cache.pod_count() == 0
    old = World(profile=V1_34)
    old.handlers.on_add_node(node("n1"))
    old.assume("a", "n1")
    old.handlers.on_update_pod(pod("a"), replace(pod("a"), terminating=True))
    assert old.cache.is_assumed_pod(pod("a"))


def test_graceful_deletion_of_a_bound_pod_keeps_it_cached_on_its_node() -> None:
    """updateAssignedPodInCache: the terminating pod replaces the cached one and keeps its node's resources."""
    w = World()
    w.handlers.on_add_node(node("n1"))
    w.handlers.on_add_pod(pod("a", node="n1", cpu=600))
    w.handlers.on_update_pod(pod("a", node="n1", cpu=600), replace(pod("a", node="n1", cpu=600), terminating=True))
    assert w.cache.get_pod(pod("a")).terminating
    assert w.cache.dump().nodes["n1"].requested.milli_cpu == 600


def test_deleting_a_pending_pod_removes_it_from_the_queue() -> None:
    w = World()
    w.unschedulable("a", FIT)
    w.handlers.on_add_pod(pod("b"))
    w.handlers.on_delete_pod(pod("a"))
    w.handlers.on_delete_pod(pod("b"))
    assert (w.queue.where("a"), w.queue.where("b"), len(w.queue)) == (None, None, 0)


def test_delete_with_final_state_unknown_tries_the_cache_and_the_queue() -> None:
    w = World()
    w.handlers.on_add_pod(pod("a"))
    w.handlers.on_delete_pod(pod("a"), final_state_unknown=True)
    assert w.queue.where("a") is None
    assert any("RemovePod failed" in e for e in w.handlers.errors)  # logged, as Kubernetes does


def test_node_add_and_update_move_only_pods_they_may_help() -> None:
    w = World()
    w.unschedulable("needs-cpu", FIT)
    w.unschedulable("needs-label", AFFINITY)
    w.handlers.on_add_node(node("n1", cpu=10))
    assert w.queue.where("needs-cpu") is QueueName.ACTIVE  # Node/Add interests every default plugin
    assert w.queue.where("needs-label") is QueueName.ACTIVE
    w.queue.delete(pod("needs-cpu"))
    w.queue.delete(pod("needs-label"))
    w.unschedulable("needs-cpu", FIT)
    w.unschedulable("needs-label", AFFINITY)
    w.handlers.on_update_node(node("n1", cpu=10), node("n1", cpu=10, zone="a"))  # label change only
    assert w.queue.where("needs-cpu") is QueueName.UNSCHEDULABLE
    assert w.queue.where("needs-label") is QueueName.ACTIVE
    w.handlers.on_update_node(node("n1", cpu=10, zone="a"), node("n1", cpu=2000, zone="a"))  # allocatable
    assert w.queue.where("needs-cpu") is QueueName.ACTIVE
    assert w.cache.dump().nodes["n1"].node.allocatable["cpu"] == 2000  # type: ignore[union-attr]


def test_node_delete_moves_first_and_logs_an_unknown_node() -> None:
    w = World()
    w.handlers.on_add_node(node("n1"))
    w.handlers.on_delete_node(node("n1"))
    assert w.cache.node_count() == 0
    w.handlers.on_delete_node(node("ghost"))
    assert any("RemoveNode failed" in e for e in w.handlers.errors)


def test_scheduler_exit_is_not_swallowed() -> None:
    w = World()
    w.handlers.on_add_node(node("n1"))
    w.handlers.on_add_node(node("n2"))
    w.handlers.on_add_pod(pod("a", node="n1"))
    with pytest.raises(SchedulerExit, match="updated on a different node"):
        w.handlers.on_update_pod(pod("a", node="n1"), pod("a", node="n2"))
