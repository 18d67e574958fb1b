"""Informer event handlers feeding the cache and the scheduling queue (pkg/scheduler/eventhandlers.go, v1.35;
digest ``k8s-dispatcher-cycle.md`` §D).

One pod handler and one node handler, as in Kubernetes:

- a pod with a node name is *assigned*: its events go to the cache (``AddPod`` / ``UpdatePod`` / ``RemovePod``)
  and then move unschedulable pods (``AssignedPod`` events);
- an unassigned pod whose scheduler name is one of this scheduler's profiles (``responsibleForPod``) goes to the
  scheduling queue; an update that assigns it is the binding being observed: the cache confirms the assumed pod
  and the queue forgets it;
- deleting a pod that is still *assumed* (its binding cycle in flight) forgets it at once and tells the queue
  (``handleAssumedPodDeletion``, PR #134157, v1.35; version profiles without ``forget_assumed_pod_on_delete``
  leave it to the failing binding cycle);
- node events update the cache, then move unschedulable pods (a node is removed from the cache *after* the move).

Cache errors are logged, never raised, as Kubernetes' ``utilruntime.HandleErrorWithLogger`` does: they are kept in
:attr:`EventHandlers.errors`. :class:`~spec.errors.SchedulerExit` (where Kubernetes would exit) propagates.

:class:`spec.objects.Pod` carries no ``ResourceVersion`` or ``DeletionTimestamp``: an update whose old and new
objects are equal is treated as a resync (Kubernetes compares resource versions), and a pod's deletion is only
seen as its delete event.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from refimpl.cache import Cache, NodeInfo
from refimpl.scheduler.events import (
    EVENT_ASSIGNED_POD_ADD,
    EVENT_ASSIGNED_POD_DELETE,
    EVENT_NODE_ADD,
    EVENT_NODE_DELETE,
    node_scheduling_properties_change,
    pod_scheduling_properties_change,
)
from refimpl.scheduler.queue import PreEnqueueCheck, SchedulingQueue
from spec.errors import CacheError
from spec.objects import DEFAULT_SCHEDULER_NAME, Node, Pod, klog_kobj
from spec.versions import DEFAULT_PROFILE, VersionProfile

RejectWaitingPod = Callable[[str], bool]
"""``Framework.RejectWaitingPod(uid)``: reject the pod if it waits in Permit; whether it did."""
NodePreCheck = Callable[[NodeInfo | None], PreEnqueueCheck | None]
"""``preCheckForNode``: with QueueingHints off, which unschedulable pods a node event may help."""


def assigned_pod(pod: Pod) -> bool:
    """``assignedPod``: the pod has a node name (it is bound, or the informer reports it as bound)."""
    return pod.node_name != ""


class EventHandlers:
    """The scheduler's pod and node informer handlers. Not locked itself: the cache and queue are thread-safe,
    and an informer delivers one object's events in order."""

    def __init__(
        self,
        cache: Cache,
        queue: SchedulingQueue,
        *,
        scheduler_names: Iterable[str] = (DEFAULT_SCHEDULER_NAME,),
        profile: VersionProfile = DEFAULT_PROFILE,
        reject_waiting_pod: RejectWaitingPod | None = None,
        sync_pod_with_dispatcher: Callable[[Pod], object] | None = None,
        node_pre_check: NodePreCheck | None = None,
    ) -> None:
        """``scheduler_names`` are the profiles' names (``profiles.HandlesSchedulerName``). ``reject_waiting_pod``
        is the framework's Permit rejection (None: no pod ever waits). ``sync_pod_with_dispatcher`` is
        ``APIDispatcher.SyncObject`` when async API calls are on (its result is discarded, as in v1.35).
        ``node_pre_check`` is used only with QueueingHints off."""
        self.cache = cache
        self.queue = queue
        self.scheduler_names = frozenset(scheduler_names)
        self.profile = profile
        self.reject_waiting_pod = reject_waiting_pod
        self.sync_pod_with_dispatcher = sync_pod_with_dispatcher
        self.node_pre_check = node_pre_check
        self.errors: list[str] = []
        """What Kubernetes would log as errors, in order."""

    def responsible_for_pod(self, pod: Pod) -> bool:
        """``responsibleForPod``: one of this scheduler's profiles handles the pod's scheduler name."""
        return pod.scheduler_name in self.scheduler_names

    def _log(self, what: str, error: CacheError) -> None:
        self.errors.append(f"{what}: {error}")

    @property
    def _hints(self) -> bool:
        return self.queue.queueing_hints_enabled

    # ========================================================================================
    # Pods
    # ========================================================================================

    def on_add_pod(self, pod: Pod) -> None:
        """``addPod``: an assigned pod goes to the cache; an unassigned one this scheduler handles, to the queue."""
        if assigned_pod(pod):
            self._add_assigned_pod_to_cache(pod)
        elif self.responsible_for_pod(pod):
            self.queue.add(pod)

    def on_update_pod(self, old: Pod, new: Pod) -> None:
        """``updatePod``: by the old object's state: assigned -> cache update; becoming assigned -> the binding is
        observed (cache add, queue delete); unassigned and ours -> queue update."""
        if assigned_pod(old):
            self._update_assigned_pod_in_cache(old, new)
        elif assigned_pod(new):
            self._add_assigned_pod_to_cache(new)
            if self.responsible_for_pod(old):
                self.queue.delete(old)  # deletePodFromSchedulingQueue(old, inBinding=true)
        elif self.responsible_for_pod(old):
            self._update_pod_in_scheduling_queue(old, new)

    def on_delete_pod(self, pod: Pod, final_state_unknown: bool = False) -> None:
        """``deletePod``. ``final_state_unknown`` is ``DeletedFinalStateUnknown``: the object may be stale, so the
        cache removal is tried whatever its node name says, and the queue is told too if the pod is ours."""
        if final_state_unknown:
            self._delete_assigned_pod_from_cache(pod)
            if self.responsible_for_pod(pod):
                self._delete_pod_from_scheduling_queue(pod)
            return
        if assigned_pod(pod):
            self._delete_assigned_pod_from_cache(pod)
        elif self.responsible_for_pod(pod):
            self._delete_pod_from_scheduling_queue(pod)

    def _add_assigned_pod_to_cache(self, pod: Pod) -> None:
        try:
            self.cache.add_pod(pod)
        except CacheError as error:
            self._log(f"Scheduler cache AddPod failed pod={klog_kobj(pod)}", error)
        if self._hints:
            self.queue.move_all_to_active_or_backoff_queue(EVENT_ASSIGNED_POD_ADD, None, pod)
        else:
            self.queue.assigned_pod_added(pod)

    def _update_assigned_pod_in_cache(self, old: Pod, new: Pod) -> None:
        if self.sync_pod_with_dispatcher is not None:
            self.sync_pod_with_dispatcher(new)
        try:
            self.cache.update_pod(old, new)
        except CacheError as error:
            self._log(f"Scheduler cache UpdatePod failed pod={klog_kobj(old)}", error)
        # v1.37 names a raised or added request UpdatePodScaleUp (extractPodScaleUp); earlier releases send Update.
        for event in pod_scheduling_properties_change(new, old, scale_up=self.profile.pod_scale_up_event):
            if self._hints:
                self.queue.move_all_to_active_or_backoff_queue(event, old, new)
            else:
                self.queue.assigned_pod_updated(old, new, event)

    def _delete_assigned_pod_from_cache(self, pod: Pod) -> None:
        try:
            self.cache.remove_pod(pod)
        except CacheError as error:
            self._log(f"Scheduler cache RemovePod failed pod={klog_kobj(pod)}", error)
        self.queue.move_all_to_active_or_backoff_queue(EVENT_ASSIGNED_POD_DELETE, pod, None)

    def _is_assumed(self, pod: Pod) -> bool:
        try:
            return self.cache.is_assumed_pod(pod)
        except CacheError as error:
            self._log(f"Failed to check whether pod is assumed pod={klog_kobj(pod)}", error)
            return False

    def _update_pod_in_scheduling_queue(self, old: Pod, new: Pod) -> None:
        if old == new:  # same ResourceVersion: a resync carrying identical objects (#96071)
            return
        if self.sync_pod_with_dispatcher is not None:
            self.sync_pod_with_dispatcher(new)
        if self._is_assumed(new):
            # An assumed pod's update is not applied to any structure; from v1.35 (PR #134157) an update that starts
            # its deletion (DeletionTimestamp set) is handled as the deletion of an assumed pod.
            if new.terminating and not old.terminating and self.profile.forget_assumed_pod_on_delete:
                self.handle_assumed_pod_deletion(new)
            return
        self.queue.update(old, new)

    def _delete_pod_from_scheduling_queue(self, pod: Pod) -> None:
        self.queue.delete(pod)
        if not self.profile.forget_assumed_pod_on_delete:
            # Before PR #134157 (v1.34): only a pod waiting in Permit is rejected; the assumed pod stays in the
            # cache until its binding cycle fails and forgets it.
            if self.reject_waiting_pod is not None and self.reject_waiting_pod(pod.uid):
                self.queue.move_all_to_active_or_backoff_queue(EVENT_ASSIGNED_POD_DELETE, pod, None)
            return
        if self._is_assumed(pod):
            self.handle_assumed_pod_deletion(pod)

    def handle_assumed_pod_deletion(self, pod: Pod) -> None:
        """``handleAssumedPodDeletion``: an assumed pod was deleted. Use the cached object (it carries the node);
        if the pod waits in Permit, reject it (its binding cycle then cleans up), else forget it now so its
        resources are freed at once. Then move pods with ``AssignedPodDelete``. Nothing happens if the cache no
        longer knows the pod."""
        try:
            cached = self.cache.get_pod(pod)
        except CacheError:
            return  # "Assumed pod was already forgotten"
        if self.reject_waiting_pod is None or not self.reject_waiting_pod(cached.uid):
            try:
                self.cache.forget_pod(cached)
            except CacheError as error:
                self._log(f"Scheduler cache ForgetPod failed pod={klog_kobj(cached)}", error)
        self.queue.move_all_to_active_or_backoff_queue(EVENT_ASSIGNED_POD_DELETE, cached, None)

    # ========================================================================================
    # Nodes
    # ========================================================================================

    def _pre_check(self, info: NodeInfo | None) -> PreEnqueueCheck | None:
        if self._hints or self.node_pre_check is None:
            return None
        return self.node_pre_check(info)

    def on_add_node(self, node: Node) -> None:
        """``addNodeToCache``: cache first, then move pods with ``Node/Add``."""
        info = self.cache.add_node(node)
        self.queue.move_all_to_active_or_backoff_queue(EVENT_NODE_ADD, None, node, self._pre_check(info))

    def on_update_node(self, old: Node, new: Node) -> None:
        """``updateNodeInCache``: cache first, then one move per ``NodeSchedulingPropertiesChange`` event (none if
        nothing the scheduler reads changed)."""
        info = self.cache.update_node(old, new)
        for event in node_scheduling_properties_change(new, old):
            self.queue.move_all_to_active_or_backoff_queue(event, old, new, self._pre_check(info))

    def on_delete_node(self, node: Node) -> None:
        """``deleteNodeFromCache``: move pods with ``Node/Delete`` *first*, then remove the node from the cache
        (errors logged)."""
        self.queue.move_all_to_active_or_backoff_queue(EVENT_NODE_DELETE, node, None)
        try:
            self.cache.remove_node(node)
        except CacheError as error:
            self._log("Scheduler cache RemoveNode failed", error)
