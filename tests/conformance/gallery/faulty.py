"""Faulty implementations: each class is the reference adapter with one documented, realistic bug.

The cache bugs subclass :class:`refimpl.cache.Cache` (reaching into its internals where the bug lives); the
dispatcher bugs subclass :class:`refimpl.dispatcher.call_queue.CallQueue`; the scheduling-pipeline bugs subclass
:class:`conformance.adapters.refimpl_cycle.RefimplCycle` (the cycle's failure handling, or its filter plugins); a
few change what the adapter does around the implementation (the snapshot update). :data:`GALLERY` lists them all.
"""

from __future__ import annotations

from typing import Any

from conformance.adapters.refimpl_adapter import RefimplAdapter
from conformance.adapters.refimpl_cycle import RefimplCycle
from refimpl.cache import Cache, FakeClock, GenerationCounter, Snapshot
from refimpl.cache import snapshot as snapshots
from refimpl.cache.node_info import NodeInfo, PodInfo
from refimpl.cache.node_tree import NodeTree
from refimpl.dispatcher.api_calls import APICall
from refimpl.dispatcher.call_queue import CallQueue, QueuedCall
from refimpl.scheduler.framework import Framework
from spec.errors import CacheError, ErrorKind
from spec.objects import Node, Pod
from spec.versions import VersionProfile
from tests.conformance.gallery import faulty_accounting as acc


def _adapter(cache_type: type[Cache], doc: str) -> type[RefimplAdapter]:
    class Faulty(RefimplAdapter):
        def new_cache(self, profile: VersionProfile, ttl_ns: int) -> Cache:
            return cache_type(profile=profile, ttl=ttl_ns, clock=FakeClock(0), generations=GenerationCounter())

    Faulty.__name__ = Faulty.__qualname__ = cache_type.__name__ + "Adapter"
    Faulty.__doc__ = doc
    return Faulty


def _queue_adapter(queue_type: type[CallQueue], doc: str) -> type[RefimplAdapter]:
    class Faulty(RefimplAdapter):
        def new_queue(self, profile: VersionProfile) -> CallQueue:
            return queue_type(profile)

    Faulty.__name__ = Faulty.__qualname__ = queue_type.__name__ + "Adapter"
    Faulty.__doc__ = doc
    return Faulty


# --------------------------------------------------------------------------------------------
# Cache bugs
# --------------------------------------------------------------------------------------------


class ForgetsAddedPods(Cache):
    def forget_pod(self, pod: Pod) -> None:
        state = self._pod_states.get(pod.uid)
        if state is not None and pod.uid not in self._assumed_pods and state.pod.node_name == pod.node_name:
            with self._lock:
                self._remove_pod(pod)
            return
        super().forget_pod(pod)


class DeadlineAtAssume(Cache):
    def assume_pod(self, pod: Pod) -> None:
        super().assume_pod(pod)
        if self.profile.assumed_pod_expiry:
            self.finish_binding(pod, 0)


class RequestedIgnoresAssumed(Cache):
    def _add_pod(self, pod: Pod, assume: bool) -> None:
        super()._add_pod(pod, assume)
        if assume:
            info = self._nodes.items[pod.node_name].info
            resource = PodInfo(pod).calculate_resource().resource
            info.requested.milli_cpu -= resource.milli_cpu
            info.requested.memory -= resource.memory


class NoGenerationBumpOnUpdateNode(Cache):
    def update_node(self, old: Node | None, new: Node) -> NodeInfo | None:
        item = self._nodes.get(new.name)
        before = item.info.generation if item is not None else None
        returned = super().update_node(old, new)
        if before is not None:
            self._nodes.items[new.name].info.generation = before
        return returned


class PortsNotReleased(Cache):
    def _remove_pod(self, pod: Pod) -> None:
        stored = self._pod_states.get(pod.uid)
        super()._remove_pod(pod)
        item = self._nodes.get(pod.node_name)
        if stored is not None and item is not None:
            for ip, protocol, port in PodInfo(stored.pod).host_ports:
                item.info.used_ports.add(ip, protocol, port)
            item.info.refresh_empty_containers()


class GhostDropped(Cache):
    def remove_node(self, node: Node) -> None:
        super().remove_node(node)
        if self._nodes.get(node.name) is not None:
            self._nodes.remove(node.name)


class AddKeepsPodAssumed(Cache):
    def add_pod(self, pod: Pod) -> None:
        was_assumed = pod.uid in self._assumed_pods
        super().add_pod(pod)
        if was_assumed:
            self._assumed_pods.add(pod.uid)


class ForgetUnknownIsError(Cache):
    def forget_pod(self, pod: Pod) -> None:
        if pod.uid and pod.uid not in self._pod_states:
            raise CacheError(ErrorKind.POD_NOT_ASSUMED, "pod wasn't assumed so cannot be forgotten")
        super().forget_pod(pod)


class UpdateDoubleCounts(Cache):
    def _update_pod(self, old: Pod, new: Pod) -> None:
        super()._update_pod(old, new)
        info = self._nodes.items[new.node_name].info
        resource = PodInfo(old).calculate_resource().resource
        info.requested.milli_cpu += resource.milli_cpu


class OrderPreservingRemoval(Cache):
    def _remove_pod(self, pod: Pod) -> None:
        item = self._nodes.get(pod.node_name)
        order = [p for p in item.info.pods if p.pod.uid != pod.uid] if item is not None else None
        super()._remove_pod(pod)
        if order is not None and item is not None and len(order) == len(item.info.pods):
            item.info.pods[:] = order


class NonZeroWithoutDefaults(Cache):
    def _add_pod(self, pod: Pod, assume: bool) -> None:
        super()._add_pod(pod, assume)
        info = self._nodes.items[pod.node_name].info
        resource = PodInfo(pod).calculate_resource()
        info.non_zero_requested.milli_cpu += resource.resource.milli_cpu - resource.non0_cpu


class PvcNotDecremented(Cache):
    def _remove_pod(self, pod: Pod) -> None:
        stored = self._pod_states.get(pod.uid)
        super()._remove_pod(pod)
        item = self._nodes.get(pod.node_name)
        if stored is not None and item is not None:
            for key in PodInfo(stored.pod).pvc_keys:
                item.info.pvc_ref_counts[key] = item.info.pvc_ref_counts.get(key, 0) + 1
            item.info.refresh_empty_containers()


class AffinityNotPruned(Cache):
    def _remove_pod(self, pod: Pod) -> None:
        item = self._nodes.get(pod.node_name)
        kept = list(item.info.pods_with_affinity) if item is not None else []
        super()._remove_pod(pod)
        if item is not None and self._nodes.get(pod.node_name) is item:
            item.info.pods_with_affinity[:] = kept
            item.info.refresh_empty_containers()


class FlatNodeTree(NodeTree):
    def list_nodes(self) -> list[str]:
        return sorted(super().list_nodes())


class IgnoresZones(Cache):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._node_tree = FlatNodeTree()


class DoubleAssume(Cache):
    def assume_pod(self, pod: Pod) -> None:
        if pod.uid in self._assumed_pods:
            with self._lock:
                self._add_pod(pod, assume=True)
            return
        super().assume_pod(pod)


class ExpiresAtDeadline(Cache):
    def cleanup_assumed_pods(self, now: int | None = None) -> None:
        super().cleanup_assumed_pods(None if now is None else now + 1)


class UpdateNodeKeepsAllocatable(Cache):
    def update_node(self, old: Node | None, new: Node) -> NodeInfo | None:
        item = self._nodes.get(new.name)
        before = item.info.allocatable.clone() if item is not None else None
        returned = super().update_node(old, new)
        if before is not None:
            self._nodes.items[new.name].info.allocatable = before
        return returned


class EmptyGhostKept(Cache):
    def _remove_pod(self, pod: Pod) -> None:
        item = self._nodes.get(pod.node_name)
        super()._remove_pod(pod)
        if item is not None and self._nodes.get(pod.node_name) is None:
            self._nodes.add(pod.node_name, item.info)


class UpdateNodeReturnsNothing(Cache):
    def update_node(self, old: Node | None, new: Node) -> NodeInfo | None:
        super().update_node(old, new)
        return None


class AddNodeReturnsStaleClone(Cache):
    def add_node(self, node: Node) -> NodeInfo | None:
        item = self._nodes.get(node.name)
        before = item.info.snapshot() if item is not None else None
        returned = super().add_node(node)
        return before if before is not None and returned is not None else returned


class MetricsSkipGhosts(Cache):
    def _update_metrics(self) -> None:
        live = sum(1 for item in self._nodes.items.values() if item.info.node is not None)
        self.metrics.set(len(self._assumed_pods), len(self._pod_states), live)


class MetricsCountAddedPodsOnly(Cache):
    def _update_metrics(self) -> None:
        self.metrics.set(len(self._assumed_pods), len(self._pod_states) - len(self._assumed_pods), len(self._nodes))


# --------------------------------------------------------------------------------------------
# Scheduling-pipeline bugs (the cycle area)
# --------------------------------------------------------------------------------------------


def _cycle_adapter(cycle_type: type[RefimplCycle], doc: str) -> type[RefimplAdapter]:
    class Faulty(RefimplAdapter):
        def new_cycle(self, profile: VersionProfile, ttl_ns: int) -> Any:
            return cycle_type(profile, self.new_cache(profile, ttl_ns))

    Faulty.__name__ = Faulty.__qualname__ = cycle_type.__name__ + "Adapter"
    Faulty.__doc__ = doc
    return Faulty


def _without_filter(name: str) -> type[RefimplCycle]:
    class WithoutFilter(RefimplCycle):
        def new_framework(self, profile: VersionProfile) -> Framework:
            framework = super().new_framework(profile)
            framework.filter_plugins = [p for p in framework.filter_plugins if p.name != name]
            return framework

    WithoutFilter.__name__ = WithoutFilter.__qualname__ = f"Without{name}"
    return WithoutFilter


class ResourcesBeforePorts(RefimplCycle):
    def new_framework(self, profile: VersionProfile) -> Framework:
        framework = super().new_framework(profile)
        framework.filter_plugins.sort(key=lambda p: p.name != "NodeResourcesFit")
        return framework


class RejectionLeavesPodAssumed(RefimplCycle):
    def reject_after_assume(self, assumed: Pod, status: Any) -> None:
        self.cache.assume_pod(assumed)


class FailedBindingNotForgotten(RefimplCycle):
    def forget_after_binding_failure(self, assumed: Pod) -> None:
        pass


class FailedBindingNotRequeued(RefimplCycle):
    def fail_binding(self, uid: str, point: Any) -> None:
        pending = dict(self.pending)
        super().fail_binding(uid, point)
        self.pending = pending


class DeleteKeepsAssumedPod(RefimplCycle):
    def delete_pod(self, uid: str) -> None:
        pod = self.api_pods.get(uid)
        if pod is not None and pod.node_name == "" and self.cache.is_assumed_pod(pod):
            self.api_pods.pop(uid)
            self.pending.pop(uid, None)
            self.deleted.add(uid)
            return
        super().delete_pod(uid)


class BindWithoutFinishBinding(RefimplCycle):
    def finish_binding(self, assumed: Pod) -> None:
        pass


class SnapshotNotRefreshed(RefimplCycle):
    def refresh_snapshot(self) -> Snapshot:
        if not self.snapshot.node_info_list:
            return super().refresh_snapshot()
        return self.snapshot


class RestartForgetsBoundPods(RefimplCycle):
    def restart(self) -> None:
        bound = {uid: pod for uid, pod in self.api_pods.items() if pod.node_name}
        self.api_pods = {uid: pod for uid, pod in self.api_pods.items() if not pod.node_name}
        try:
            super().restart()
        finally:
            self.api_pods.update(bound)


class KubeletAdmitsEverything(RefimplCycle):
    def admit_pod(self, uid: str) -> None:
        pod = self.api_pods.get(uid)
        if pod is not None and pod.node_name in self.live_nodes:
            self.admitted.add(uid)
            return
        super().admit_pod(uid)


class QueuesOtherSchedulersPods(RefimplCycle):
    def create_pod(self, pod: Pod) -> None:
        super().create_pod(pod)
        if self.running:
            self.pending[pod.uid] = pod


# --------------------------------------------------------------------------------------------
# Snapshot bugs (around the implementation)
# --------------------------------------------------------------------------------------------


class SnapshotKeepsRemovedNodes(RefimplAdapter):
    """Snapshot not updated after node removal: ``removeDeletedNodesFromSnapshot`` is never called."""

    def update_snapshot(self, cache: Cache, snapshot: Snapshot) -> None:
        before = dict(snapshot.node_info_map)
        cache.update_snapshot(snapshot)
        for name, info in before.items():
            if name not in snapshot.node_info_map:
                snapshot.node_info_map[name] = info
                snapshot.node_info_list.append(info)


class SnapshotAlwaysRebuilt(RefimplAdapter):
    """Every update rebuilds the node list from the tree: "fixes" a Kubernetes quirk, so it diverges from it."""

    def update_snapshot(self, cache: Cache, snapshot: Snapshot) -> None:
        cache.update_snapshot(snapshot)
        snapshots.update_node_info_snapshot_list(cache._node_tree, snapshot, True)


class SnapshotRecloneAll(RefimplAdapter):
    """The snapshot generation is reset before each update, so every node is cloned again and no image count is
    stale (Kubernetes keeps them stale)."""

    def update_snapshot(self, cache: Cache, snapshot: Snapshot) -> None:
        snapshot.generation = 0
        cache.update_snapshot(snapshot)


# --------------------------------------------------------------------------------------------
# Dispatcher bugs
# --------------------------------------------------------------------------------------------


class LessRelevantOverwrites(CallQueue):
    def _is_less_relevant(self, old_type: str, new_type: str) -> bool:
        return False


class OverwriteLosesFifoSlot(CallQueue):
    def add(self, call: APICall, on_finish: Any = None) -> Exception | None:
        result = super().add(call, on_finish)
        with self._lock:
            if call.uid in self._fifo and self._fifo[-1] != call.uid:
                self._fifo.remove(call.uid)
                self._fifo.append(call.uid)
        return result


class MergeDropsOldCondition(CallQueue):
    def _merge(self, old: QueuedCall, new: QueuedCall) -> Exception | None:
        condition = getattr(new.call, "condition", "absent")
        result = super()._merge(old, new)
        if condition is None:
            new.call.condition = None  # type: ignore[attr-defined]
        return result


class CloseNotifiesInV135(CallQueue):
    def close(self) -> None:
        with self._lock:
            for tracked in sorted(self._api_calls.values(), key=lambda q: q.call_id):
                tracked.send_on_finish(RuntimeError("dispatcher closed"))
        super().close()


GALLERY: dict[str, type[RefimplAdapter]] = {
    "forget_added_pod_succeeds": _adapter(ForgetsAddedPods, "ForgetPod of an added pod removes it instead of "
                                          "failing with PodNotAssumed."),
    "expiry_before_finish_binding": _adapter(DeadlineAtAssume, "The expiry deadline starts at AssumePod, not at "
                                             "FinishBinding (kubernetes#106361)."),
    "requested_ignores_assumed": _adapter(RequestedIgnoresAssumed, "Requested does not count assumed pods."),
    "generation_not_bumped": _adapter(NoGenerationBumpOnUpdateNode, "UpdateNode does not take a new generation, "
                                      "so the snapshot misses the change."),
    "ports_not_released": _adapter(PortsNotReleased, "Host ports are not released when a pod is removed."),
    "ghost_dropped_with_pods": _adapter(GhostDropped, "RemoveNode deletes the NodeInfo even while pods remain."),
    "add_keeps_pod_assumed": _adapter(AddKeepsPodAssumed, "AddPod confirms an assumed pod but leaves it in the "
                                      "assumed set."),
    "forget_unknown_is_error": _adapter(ForgetUnknownIsError, "ForgetPod of an unknown pod fails in every profile "
                                        "(v1.34 behaviour under v1.35, errata 1)."),
    "update_double_counts": _adapter(UpdateDoubleCounts, "UpdatePod leaves the old object's CPU charged."),
    "order_preserving_removal": _adapter(OrderPreservingRemoval, "Pod removal keeps the order of the others instead "
                                         "of moving the last pod into the freed slot (removeFromSlice)."),
    "non_zero_without_defaults": _adapter(NonZeroWithoutDefaults, "NonZeroRequested CPU ignores the 100m default."),
    "pvc_not_decremented": _adapter(PvcNotDecremented, "PVC reference counts are not decremented on removal."),
    "affinity_not_pruned": _adapter(AffinityNotPruned, "pods_with_affinity is not pruned when a pod is removed."),
    "node_tree_ignores_zones": _adapter(IgnoresZones, "The node tree lists nodes by name, not round-robin across "
                                        "zones."),
    "double_assume": _adapter(DoubleAssume, "AssumePod of an assumed pod charges it again instead of failing."),
    "expires_at_deadline": _adapter(ExpiresAtDeadline, "Expiry at the deadline, not strictly after it."),
    "update_node_keeps_allocatable": _adapter(UpdateNodeKeepsAllocatable, "UpdateNode keeps the old Allocatable."),
    "empty_ghost_kept": _adapter(EmptyGhostKept, "A NodeInfo left with no pods and no node is not deleted."),
    "snapshot_keeps_removed_nodes": SnapshotKeepsRemovedNodes,
    "snapshot_always_rebuilt": SnapshotAlwaysRebuilt,
    "snapshot_reclones_all": SnapshotRecloneAll,
    "less_relevant_overwrites": _queue_adapter(LessRelevantOverwrites, "A less relevant call overwrites a more "
                                               "relevant one."),
    "overwrite_loses_fifo_slot": _queue_adapter(OverwriteLosesFifoSlot, "A call replacing a pending one goes to "
                                                "the FIFO's tail instead of keeping its slot."),
    "merge_drops_old_condition": _queue_adapter(MergeDropsOldCondition, "Merging status patches drops the old "
                                                "call's condition."),
    "close_notifies_in_v1_35": _queue_adapter(CloseNotifiesInV135, "Close tells every tracked call, as only PR "
                                              "#141745 does."),
    "update_node_returns_nothing": _adapter(UpdateNodeReturnsNothing, "UpdateNode returns nothing before v1.37 "
                                            "(v1.37's signature under older profiles)."),
    "add_node_returns_stale_clone": _adapter(AddNodeReturnsStaleClone, "AddNode of a known node returns the clone "
                                             "taken before SetNode (the old node, Allocatable and images)."),
    "metrics_skip_ghosts": _adapter(MetricsSkipGhosts, "The nodes gauge counts only NodeInfos with a node, not "
                                    "placeholders and ghosts."),
    "metrics_count_added_pods_only": _adapter(MetricsCountAddedPodsOnly, "The pods gauge leaves out assumed pods."),
    "assumes_where_pod_does_not_fit": _cycle_adapter(_without_filter("NodeResourcesFit"), "The scheduling cycle "
                                                     "does not check resources: it assumes pods onto full nodes."),
    "ignores_taints": _cycle_adapter(_without_filter("TaintToleration"), "NoSchedule and NoExecute taints do not "
                                     "filter."),
    "ignores_cordon": _cycle_adapter(_without_filter("NodeUnschedulable"), "Cordoned nodes take every pod."),
    "ignores_host_ports": _cycle_adapter(_without_filter("NodePorts"), "Host-port conflicts do not filter."),
    "ignores_node_selector": _cycle_adapter(_without_filter("NodeAffinity"), "The node selector does not filter."),
    "filters_resources_first": _cycle_adapter(ResourcesBeforePorts, "NodeResourcesFit runs before the other "
                                              "filters, so the diagnosis names the wrong plugin."),
    "failed_scheduling_leaves_pod_assumed": _cycle_adapter(RejectionLeavesPodAssumed, "A Reserve or Permit "
                                                           "rejection does not forget the assumed pod."),
    "failed_binding_not_forgotten": _cycle_adapter(FailedBindingNotForgotten, "A failed binding cycle does not "
                                                   "call ForgetPod: the pod holds its node forever."),
    "failed_binding_not_requeued": _cycle_adapter(FailedBindingNotRequeued, "A failed binding cycle loses the pod "
                                                  "instead of requeueing it."),
    "delete_keeps_assumed_pod": _cycle_adapter(DeleteKeepsAssumedPod, "Deleting an assumed pod does not forget "
                                               "it (v1.34 behaviour under v1.35, PR #134157)."),
    "bind_without_finish_binding": _cycle_adapter(BindWithoutFinishBinding, "A successful bind does not call "
                                                  "FinishBinding, so a bound assumed pod never expires."),
    "cycle_snapshot_not_refreshed": _cycle_adapter(SnapshotNotRefreshed, "The scheduling cycle filters on the "
                                                   "first snapshot it took instead of refreshing it."),
    "restart_forgets_bound_pods": _cycle_adapter(RestartForgetsBoundPods, "A restarted scheduler's cache leaves "
                                                 "out the bound pods its informer lists."),
    "kubelet_admits_everything": _cycle_adapter(KubeletAdmitsEverything, "The kubelet admits every pod bound to "
                                                "its node, whether or not it fits."),
    "queues_other_schedulers_pods": _cycle_adapter(QueuesOtherSchedulersPods, "The scheduler queues pods that name "
                                                   "another scheduler (no responsibleForPod)."),
    # Accounting, node-tree and incremental-snapshot bugs (tests/conformance/gallery/faulty_accounting.py).
    "init_containers_summed": _adapter(acc.InitContainersSummed, "Init containers are summed with the containers "
                                       "instead of taking the maximum (AggregateContainerRequests)."),
    "sidecar_as_plain_init": _adapter(acc.SidecarAsPlainInit, "A restartable (sidecar) init container is treated "
                                      "like a plain one: its requests do not join the sum."),
    "overhead_ignored": _adapter(acc.OverheadIgnored, "The pod overhead is not added to the requests."),
    "pod_level_requests_ignored": _adapter(acc.PodLevelRequestsIgnored, "Pod-level requests do not replace the "
                                           "containers' aggregate (PodLevelResources)."),
    "explicit_zero_defaulted": _adapter(acc.ExplicitZeroDefaulted, "An explicit request of 0 is replaced by the "
                                        "non-zero default in NonZeroRequested."),
    "undomained_name_as_scalar": _adapter(acc.UndomainedNameAsScalar, "A resource name without a domain prefix is "
                                          "counted as a scalar resource."),
    "plain_init_host_ports_recorded": _adapter(acc.PlainInitPortsRecorded, "The host ports of plain init "
                                               "containers are recorded in UsedPorts."),
    "beta_zone_labels_ignored": _adapter(acc.with_tree(acc.BetaLabelsIgnoredTree), "The node tree reads only the "
                                         "topology.kubernetes.io zone and region labels, not the beta ones."),
    "ga_zone_labels_win": _adapter(acc.with_tree(acc.GaLabelsWinTree), "The node tree prefers the GA zone and "
                                   "region labels to the beta ones (GetZoneKey reads the beta ones first)."),
    "zone_region_ignored": _adapter(acc.with_tree(acc.RegionIgnoredTree), "The node tree's zone key leaves the "
                                    "region out."),
    "zone_change_ignored": _adapter(acc.with_tree(acc.ZoneChangeIgnoredTree), "UpdateNode does not move a node "
                                    "whose zone changed."),
    "zone_change_moves_to_front": _adapter(acc.with_tree(acc.MovedToZoneFrontTree), "A node whose zone changed "
                                           "goes to the front of its new zone instead of the end."),
    "empty_zone_kept": _adapter(acc.with_tree(acc.EmptyZoneKeptTree), "A zone left empty keeps its place in the "
                                "zone order."),
    "add_moves_between_zones": _adapter(acc.with_tree(acc.AddMovesBetweenZonesTree), "AddNode of a node already "
                                        "in another zone moves it instead of entering it twice (errata quirk)."),
    "snapshot_affinity_lists_not_rebuilt": acc.snapshot_adapter("The incremental update does not rebuild the "
                                                                "affinity lists when a node starts or stops having "
                                                                "pods with affinity.", ignore_affinity=True),
    "snapshot_pvc_set_not_rebuilt": acc.snapshot_adapter("The incremental update does not rebuild the used-PVC set "
                                                         "when a node's claims change.", ignore_pvc=True),
    "snapshot_pvc_rebuilt_by_count": acc.snapshot_adapter("The incremental update rebuilds the used-PVC set only "
                                                          "when a node's number of claims changes.",
                                                          pvc_by_count=True),
    "snapshot_new_node_appended": acc.snapshot_adapter("A node new to the snapshot is appended to the list instead "
                                                       "of a rebuild in node-tree order.", append_new=True),
    "snapshot_no_consistency_check": acc.snapshot_adapter("The update never reports SnapshotInconsistent.",
                                                          no_consistency_check=True),
    "snapshot_includes_non_live": acc.snapshot_adapter("Placeholders and ghosts are cloned into the snapshot's "
                                                       "map.", include_non_live=True),
}


for _name, _adapter_type in GALLERY.items():
    globals()[f"GALLERY_{_name}"] = _adapter_type  # importable by name: tests.conformance.gallery.faulty:GALLERY_x


def area_of(adapter: type[RefimplAdapter]) -> str:
    """The area a variant's bug lives in, from the hook it overrides."""
    for hook, area in (("new_cycle", "cycle"), ("new_queue", "dispatcher"), ("update_snapshot", "snapshot")):
        if hook in vars(adapter):
            return area
    return "cache"


def gallery_markdown() -> str:
    """The table of variants docs/conformance.md holds (``python -m tests.conformance.gallery.faulty`` prints it)."""
    lines = ["| variant | area | bug |", "|---|---|---|"]
    for name, adapter in sorted(GALLERY.items(), key=lambda item: (area_of(item[1]), item[0])):
        doc = " ".join((adapter.__doc__ or "").split())
        lines.append(f"| `{name}` | {area_of(adapter)} | {doc} |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    print(gallery_markdown(), end="")
