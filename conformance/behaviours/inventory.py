"""The behaviour inventory: every rule the spec states that the conformance suite must exercise, named once.

A *behaviour* is one rule of the spec, with a stable dotted name (``topic.rule``), a one-line description and the
Kubernetes function or rule it comes from. Vectors are tagged with the behaviours their steps exercise, and those
tags are *observed*, not typed: the classifiers of :mod:`conformance.behaviours` look at each step of a trace and
at the spec's state before and after it (:func:`conformance.behaviours.classify_cache_step` and its siblings), so a
vector is tagged with a behaviour exactly when the spec took that path. ``ksspec conformance coverage`` counts the
vectors per behaviour, the manifest records the counts, and a test fails when a behaviour has no vector.

A *label* is a tag chosen by hand in a scenario: a topic (``ports``, ``expiry``), a provenance (``errata-1``,
``k8s-106361``) or how the trace was made (``transition-coverage``). A topic label names the behaviour prefixes that
confirm it; a test checks that every vector carrying it observes at least one of them.

:data:`UNREACHABLE` lists the rules the spec states that no sequence of the suite's operations can reach, each
with the reason, so that the inventory is complete without demanding a vector that cannot exist.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from conformance.behaviours.queue import EVENT_RECORDED, GATED, HAND_BACK_REFUSED, SHORT, UNGATED, place_behaviour
from spec.queue.lifecycle import FLUSH_BACKOFF, FLUSH_LEFTOVER, HAND_BACK, MOVE, QUEUE_POD_TRANSITIONS


@dataclass(frozen=True)
class Behaviour:
    """One rule of the spec: its tag, what it says, and the Kubernetes code it models."""

    name: str
    description: str
    source: str

    @property
    def topic(self) -> str:
        """The part of the name before the first dot (``resources``, ``cache``, ``dispatcher`` ...)."""
        return self.name.split(".", 1)[0]


@dataclass(frozen=True)
class Label:
    """A hand-chosen tag; a topic label lists the behaviour-name prefixes that confirm it."""

    name: str
    description: str
    confirmed_by: tuple[str, ...] = ()


_TYPES: Final = "pkg/scheduler/framework/types.go"
_HELPERS: Final = "component-helpers resource/helpers.go"
_CACHE: Final = "pkg/scheduler/backend/cache/cache.go"
_TREE: Final = "pkg/scheduler/backend/cache/node_tree.go"
_QUEUE: Final = "pkg/scheduler/backend/api_dispatcher/call_queue.go"
_CALLS: Final = "pkg/scheduler/framework/api_calls"
_CYCLE: Final = "pkg/scheduler/schedule_one.go"
_EVENTS: Final = "pkg/scheduler/eventhandlers.go"
_PLUGINS: Final = "pkg/scheduler/framework/plugins"
_SERVER: Final = "cmd/kube-scheduler/app/server.go"
_KUBELET: Final = "pkg/kubelet/allocation/allocation_manager.go"

_ROWS: Final[tuple[tuple[str, str, str], ...]] = (
    # -- resources: how much a pod requests ------------------------------------------------------------------
    ("resources.requests_charged", "a pod's requests are added to its node's Requested (and released on removal)",
     f"NodeInfo.update ({_TYPES})"),
    ("resources.containers_summed", "the requests of the regular containers are summed",
     f"AggregateContainerRequests ({_HELPERS})"),
    ("resources.init.not_added", "a plain init container's requests are not added to the containers' sum",
     f"AggregateContainerRequests ({_HELPERS})"),
    ("resources.init.peak_wins", "an init container's use (its requests plus the sidecars before it) exceeds the "
     "sum and sets the request (maxResourceList)", f"AggregateContainerRequests ({_HELPERS})"),
    ("resources.sidecar.added", "a restartable (sidecar) init container's requests join the sum",
     f"AggregateContainerRequests ({_HELPERS})"),
    ("resources.sidecar.before_init", "a plain init container after a sidecar runs alongside it: its use includes "
     "the sidecar's requests", f"AggregateContainerRequests ({_HELPERS})"),
    ("resources.sidecar.after_init", "a sidecar after a plain init container is not part of that init "
     "container's use", f"AggregateContainerRequests ({_HELPERS})"),
    ("resources.overhead", "the pod overhead is added to the requests (and to the non-zero figures)",
     f"PodRequests ({_HELPERS})"),
    ("resources.pod_level.replaces", "pod-level requests of cpu, memory or hugepages replace the containers' "
     "aggregate for those resources (PodLevelResources)", f"PodRequests ({_HELPERS})"),
    ("resources.pod_level.unsupported_ignored", "pod-level requests of other resources are ignored",
     f"IsSupportedPodLevelResource ({_HELPERS})"),
    ("resources.pod_level.hugepages", "a pod-level hugepages request is supported",
     f"IsSupportedPodLevelResource ({_HELPERS})"),
    ("resources.non_zero.default_cpu", "a container without a cpu request counts 100m in NonZeroRequested",
     f"PodInfo.CalculateResource, getNonMissingContainerRequests ({_TYPES})"),
    ("resources.non_zero.default_memory", "a container without a memory request counts 200Mi in "
     "NonZeroRequested", f"PodInfo.CalculateResource, getNonMissingContainerRequests ({_TYPES})"),
    ("resources.non_zero.explicit_zero", "an explicit request of 0 is present: it stays 0, the default does not "
     "replace it", f"applyNonMissing ({_HELPERS})"),
    ("resources.non_zero.pod_level_fallback", "with pod-level requests a default applies only to a resource the "
     "pod requests nowhere", f"getNonMissingContainerRequests ({_TYPES})"),
    ("resources.ephemeral_storage", "ephemeral-storage is charged in its own field", f"Resource.Add ({_TYPES})"),
    ("resources.extended", "a domain-prefixed extended resource is a scalar resource",
     "IsExtendedResourceName, schedutil.IsScalarResourceName"),
    ("resources.hugepages", "a hugepages-* resource is a scalar resource", "IsHugePageResourceName"),
    ("resources.prefixed_native", "a kubernetes.io/-prefixed resource is a scalar resource",
     "IsPrefixedNativeResource"),
    ("resources.attachable_volumes", "an attachable-volumes-* resource is a scalar resource",
     "IsAttachableVolumeResourceName"),
    ("resources.invalid_name_ignored", "a name without a domain that is no native resource is not charged",
     f"Resource.Add ({_TYPES}), schedutil.IsScalarResourceName"),
    ("resources.allocatable", "a node's Allocatable is read from its status (cpu, memory, storage, pods, "
     "scalars)", f"NodeInfo.SetNode, NewResource ({_TYPES})"),
    ("resources.allocatable.scalars", "a node's extended and hugepages allocatable are scalars",
     f"NewResource ({_TYPES})"),
    # -- host ports -------------------------------------------------------------------------------------------
    ("ports.recorded", "a container's host port is recorded in UsedPorts", f"NodeInfo.updateUsedPorts ({_TYPES})"),
    ("ports.container_port_only", "a port without a host port is not recorded", "schedutil.GetHostPorts"),
    ("ports.default_ip", "an empty host IP is recorded as 0.0.0.0", "HostPortInfo.sanitize"),
    ("ports.host_ip", "an explicit host IP is recorded as given", "HostPortInfo.Add"),
    ("ports.default_protocol", "an empty protocol is recorded as TCP", "HostPortInfo.sanitize"),
    ("ports.udp", "a UDP host port is recorded under UDP", "HostPortInfo.Add"),
    ("ports.sctp", "an SCTP host port is recorded under SCTP", "HostPortInfo.Add"),
    ("ports.sidecar_recorded", "a sidecar init container's host ports are recorded", "schedutil.GetHostPorts"),
    ("ports.init_ignored", "a plain init container's host ports are not recorded", "schedutil.GetHostPorts"),
    ("ports.released", "removing a pod frees its host ports", "HostPortInfo.Remove"),
    ("ports.shared_freed", "HostPortInfo is a set, not counted: removing one of two pods on a port frees it",
     "HostPortInfo.Remove"),
    ("ports.distinct_entries", "the same port number under another IP or protocol is a separate entry",
     "HostPortInfo.Add"),
    # -- PVC reference counts ---------------------------------------------------------------------------------
    ("pvc.counted", "each claim volume counts one reference on its node", f"NodeInfo.updatePVCRefCounts ({_TYPES})"),
    ("pvc.repeated_in_pod", "a claim named twice in one pod counts twice", f"NodeInfo.updatePVCRefCounts ({_TYPES})"),
    ("pvc.shared", "two pods on a node using one claim count it twice", f"NodeInfo.updatePVCRefCounts ({_TYPES})"),
    ("pvc.released", "removing a pod decrements its claims' counts", f"NodeInfo.updatePVCRefCounts ({_TYPES})"),
    ("pvc.deleted_at_zero", "a count that reaches 0 is deleted", f"NodeInfo.updatePVCRefCounts ({_TYPES})"),
    ("pvc.namespaced", "the key is namespace/claim", "GetNamespacedName"),
    # -- affinity lists ---------------------------------------------------------------------------------------
    ("affinity.with_terms", "a pod with pod affinity terms is in PodsWithAffinity", f"podWithAffinity ({_TYPES})"),
    ("affinity.empty_listed", "an empty (term-less, non-nil) affinity still lists the pod in PodsWithAffinity",
     f"podWithAffinity ({_TYPES})"),
    ("affinity.nil_not_listed", "a pod without affinity is in neither list", f"podWithAffinity ({_TYPES})"),
    ("affinity.required_anti", "a required anti-affinity term lists the pod in PodsWithRequiredAntiAffinity",
     f"podWithRequiredAntiAffinity ({_TYPES})"),
    ("affinity.preferred_anti_only", "preferred-only anti-affinity lists the pod in PodsWithAffinity only",
     f"podWithRequiredAntiAffinity ({_TYPES})"),
    ("affinity.pruned", "removing a pod prunes it from the affinity lists (removeFromSlice)",
     f"NodeInfo.RemovePod ({_TYPES})"),
    ("affinity.pruned_by_argument", "which lists are pruned is decided by the removed object's spec, not the "
     "stored pod's", f"NodeInfo.RemovePod ({_TYPES})"),
    # -- image states -----------------------------------------------------------------------------------------
    ("images.summary_created", "a node's image name not seen before creates a summary with its size",
     f"addNodeImageStates ({_CACHE})"),
    ("images.shared", "an image on several nodes counts them in NumNodes", f"addNodeImageStates ({_CACHE})"),
    ("images.size_first_reported", "a summary keeps the size first reported; a node reporting another size "
     "does not change it", f"addNodeImageStates ({_CACHE})"),
    ("images.multiple_names", "an image with several names has a summary per name", f"addNodeImageStates ({_CACHE})"),
    ("images.released", "a removed or updated node no longer counts for its images",
     f"removeNodeImageStates ({_CACHE})"),
    ("images.deleted_when_unused", "a summary whose last node left is deleted", f"removeNodeImageStates ({_CACHE})"),
    ("images.orphaned_in_ghost", "a ghost keeps pointing at a deleted summary: size kept, no nodes",
     f"RemoveNode, removeNodeImageStates ({_CACHE})"),
    ("images.released_by_object", "RemoveNode releases the images the removed object lists, not the cached "
     "node's", f"RemoveNode ({_CACHE})"),
    # -- node tree --------------------------------------------------------------------------------------------
    ("node_tree.zone_label", "the topology.kubernetes.io/zone label names the zone", "GetZoneKey (component-helpers)"),
    ("node_tree.beta_zone_label", "the failure-domain.beta zone label names the zone", "GetZoneKey"),
    ("node_tree.beta_label_wins", "with both labels the deprecated beta label wins", "GetZoneKey"),
    ("node_tree.region_label", "a region label makes part of the zone key", "GetZoneKey"),
    ("node_tree.region_without_zone", "a region without a zone is a zone key of its own", "GetZoneKey"),
    ("node_tree.no_zone", "a node without zone or region labels is in the zone \"\"", "GetZoneKey"),
    ("node_tree.zone_created", "a node of a new zone creates the zone at the end", f"nodeTree.addNode ({_TREE})"),
    ("node_tree.name_appended", "a node joins the end of its existing zone", f"nodeTree.addNode ({_TREE})"),
    ("node_tree.add_existing_ignored", "adding a name already in its zone changes nothing",
     f"nodeTree.addNode ({_TREE})"),
    ("node_tree.entered_twice", "a name already in another zone is entered a second time (errata quirk)",
     f"nodeTree.addNode ({_TREE})"),
    ("node_tree.name_removed", "a removed node leaves its zone", f"nodeTree.removeNode ({_TREE})"),
    ("node_tree.zone_dropped", "a zone left empty is dropped; the others keep their order",
     f"nodeTree.removeNode ({_TREE})"),
    ("node_tree.zone_change_moves", "a zone change moves the node to the end of its new zone",
     f"nodeTree.updateNode ({_TREE})"),
    ("node_tree.zone_unchanged", "an update within the zone does not move the node", f"nodeTree.updateNode ({_TREE})"),
    ("node_tree.update_old_zone_missing", "a zone change whose old zone lacks the node ignores the removal error",
     f"nodeTree.updateNode ({_TREE})"),
    ("node_tree.update_nil_old_fatal", "UpdateNode from a nil old node to a zoned node dereferences nil",
     f"nodeTree.updateNode ({_TREE})"),
    ("node_tree.round_robin", "a full rebuild lists nodes round-robin across zones", f"nodeTree.list ({_TREE})"),
    # -- the snapshot -----------------------------------------------------------------------------------------
    ("snapshot.unchanged", "an update with no newer NodeInfo changes nothing", f"UpdateSnapshot ({_CACHE})"),
    ("snapshot.changed_node_recloned", "a node changed since the last update is cloned again",
     f"UpdateSnapshot ({_CACHE})"),
    ("snapshot.older_nodes_kept", "the walk stops at the first NodeInfo not newer than the snapshot: older "
     "entries are kept as they are", f"UpdateSnapshot ({_CACHE})"),
    ("snapshot.new_node_full_rebuild", "a node new to the snapshot rebuilds the list in node-tree order",
     f"UpdateSnapshot ({_CACHE})"),
    ("snapshot.removed_nodes_dropped", "more entries than tree nodes: entries no longer live are removed and the "
     "list is rebuilt", f"removeDeletedNodesFromSnapshot ({_CACHE})"),
    ("snapshot.non_live_skipped", "placeholders and ghosts are not in the snapshot", f"UpdateSnapshot ({_CACHE})"),
    ("snapshot.affinity_list_rebuilt", "a node that starts or stops having pods with affinity rebuilds the "
     "affinity lists", f"UpdateSnapshot, updateNodeInfoSnapshotList ({_CACHE})"),
    ("snapshot.anti_affinity_list_rebuilt", "a node that starts or stops having pods with required anti-affinity "
     "rebuilds the lists", f"UpdateSnapshot ({_CACHE})"),
    ("snapshot.pvc_set_rebuilt", "a node whose claim keys changed rebuilds the used-PVC set",
     f"UpdateSnapshot ({_CACHE})"),
    ("snapshot.pvc_same_size_other_keys", "claim keys of the same number but other names also rebuild the set",
     f"UpdateSnapshot ({_CACHE})"),
    ("snapshot.list_order_stale", "known violation: the list lags the node tree (a zone change, or a node removed "
     "and re-added between updates)", f"updateNodeInfoSnapshotList ({_CACHE})"),
    ("snapshot.generation_down", "the snapshot generation is the head's and goes down when the head is deleted",
     f"UpdateSnapshot ({_CACHE})"),
    ("snapshot.inconsistent", "the list and the tree differ in length: the lists are rebuilt and the error "
     "returned", f"UpdateSnapshot ({_CACHE})"),
    ("snapshot.stale_image_count", "an unchanged snapshot entry keeps an image's old NumNodes",
     f"UpdateSnapshot ({_CACHE})"),
    # -- cache transitions ------------------------------------------------------------------------------------
    ("cache.pod_key.invalid", "a pod with an empty UID is refused (InvalidPodKey)", f"GetPodKey ({_TYPES})"),
    ("cache.assume.ok", "an absent pod is assumed and charged to its node", f"AssumePod ({_CACHE})"),
    ("cache.assume.already_assumed", "assuming an assumed pod fails (PodAlreadyInCache)", f"AssumePod ({_CACHE})"),
    ("cache.assume.already_added", "assuming an added pod fails (PodAlreadyInCache)", f"AssumePod ({_CACHE})"),
    ("cache.finish_binding.starts_clock", "FinishBinding of an assumed pod starts its expiry clock",
     f"FinishBinding ({_CACHE})"),
    ("cache.finish_binding.restarts_clock", "FinishBinding again restarts the clock", f"FinishBinding ({_CACHE})"),
    ("cache.finish_binding.ignored", "FinishBinding of an absent or added pod changes nothing",
     f"FinishBinding ({_CACHE})"),
    ("cache.finish_binding.unsupported", "FinishBinding does not exist without expiry (v1.36 on)",
     "PR #136204"),
    ("cache.forget.ok", "forgetting an assumed pod releases it", f"ForgetPod ({_CACHE})"),
    ("cache.forget.unknown_no_op", "forgetting an unknown pod is a no-op (v1.35 on, PR #134157)",
     f"ForgetPod ({_CACHE})"),
    ("cache.forget.unknown_error", "forgetting an unknown pod fails before v1.35 (PodNotAssumed)",
     f"ForgetPod ({_CACHE})"),
    ("cache.forget.other_node", "forgetting an object naming another node fails, checked first "
     "(PodAssumedOnOtherNode)", f"ForgetPod ({_CACHE})"),
    ("cache.forget.not_assumed", "forgetting an added pod fails (PodNotAssumed)", f"ForgetPod ({_CACHE})"),
    ("cache.add.new", "AddPod of an unknown pod adds it", f"AddPod ({_CACHE})"),
    ("cache.add.confirm_same_node", "AddPod confirms an assumed pod on its node", f"AddPod, updatePod ({_CACHE})"),
    ("cache.add.confirm_other_node", "AddPod confirms an assumed pod on the node it was bound to, leaving the "
     "assumed node", f"AddPod, updatePod ({_CACHE})"),
    ("cache.add.already_added", "AddPod of an added pod fails (PodAlreadyAdded)", f"AddPod ({_CACHE})"),
    ("cache.update.ok", "UpdatePod replaces an added pod's object", f"UpdatePod, updatePod ({_CACHE})"),
    ("cache.update.stale_old", "UpdatePod with an old object other than the cached one removes the old object",
     f"updatePod, removePod ({_CACHE})"),
    ("cache.update.not_added", "UpdatePod of an unknown pod fails (PodNotAdded)", f"UpdatePod ({_CACHE})"),
    ("cache.update.assumed", "UpdatePod of an assumed pod fails (AssumedPodUpdate)", f"UpdatePod ({_CACHE})"),
    ("cache.update.other_node_fatal", "UpdatePod onto another node ends the process", f"UpdatePod ({_CACHE})"),
    ("cache.update.empty_uid_after_change", "an update to an empty UID fails after removing the old pod",
     f"updatePod ({_CACHE})"),
    ("cache.update.old_not_in_node_info", "an old object naming a node that lacks the pod fails "
     "(PodNotInNodeInfo)", f"NodeInfo.RemovePod ({_TYPES})"),
    ("cache.update.old_node_missing", "an old object naming a node without a NodeInfo is tolerated",
     f"removePod ({_CACHE})"),
    ("cache.update.nil_node_fatal", "an old object naming a NodeInfo without a node that lacks the pod "
     "dereferences nil", f"NodeInfo.RemovePod ({_TYPES})"),
    ("cache.remove.added", "RemovePod of an added pod releases it", f"RemovePod ({_CACHE})"),
    ("cache.remove.assumed", "RemovePod of an assumed pod releases it", f"RemovePod ({_CACHE})"),
    ("cache.remove.not_found", "RemovePod of an unknown pod fails (PodNotFoundForRemoval)", f"RemovePod ({_CACHE})"),
    ("cache.remove.stale_empty_node_name", "RemovePod accepts an object with an empty node name and removes the "
     "cached one", f"RemovePod ({_CACHE})"),
    ("cache.remove.other_node_fatal", "RemovePod naming another node ends the process", f"RemovePod ({_CACHE})"),
    ("cache.node_info.placeholder_created", "a pod whose node is unknown creates a placeholder NodeInfo",
     f"addPod ({_CACHE})"),
    ("cache.node_info.deleted_when_empty", "a NodeInfo left with no pods and no node is deleted",
     f"removePod ({_CACHE})"),
    ("cache.node_info.remove_from_slice", "removal moves the last pod into the freed slot",
     f"removeFromSlice ({_TYPES})"),
    ("cache.recency.reordered", "the changed NodeInfo moves to the head of the recency list",
     f"moveNodeInfoToHead ({_CACHE})"),
    ("cache.error_after_change", "an error returned after the cache was already changed",
     f"RemoveNode, updatePod ({_CACHE})"),
    ("cache.add_node.new", "AddNode of an unknown node creates its NodeInfo", f"AddNode ({_CACHE})"),
    ("cache.add_node.placeholder_filled", "AddNode fills a placeholder, keeping its pods", f"AddNode ({_CACHE})"),
    ("cache.add_node.ghost_revived", "AddNode revives a ghost, keeping its pods", f"AddNode ({_CACHE})"),
    ("cache.add_node.live_again", "AddNode of a live node replaces its object and images", f"AddNode ({_CACHE})"),
    ("cache.update_node.ok", "UpdateNode replaces a known node's object", f"UpdateNode ({_CACHE})"),
    ("cache.update_node.unknown_created", "UpdateNode of an unknown node creates it", f"UpdateNode ({_CACHE})"),
    ("cache.update_node.non_live_revived", "UpdateNode of a placeholder or ghost makes it live",
     f"UpdateNode ({_CACHE})"),
    ("cache.update_node.allocatable_changed", "UpdateNode replaces Allocatable", f"NodeInfo.SetNode ({_TYPES})"),
    ("cache.update_node.stale_old", "UpdateNode with an old object other than the cached node",
     f"UpdateNode ({_CACHE})"),
    ("cache.update_node.nil_old", "UpdateNode with a nil old node", f"UpdateNode ({_CACHE})"),
    ("cache.remove_node.deleted", "RemoveNode of a node without pods deletes its NodeInfo", f"RemoveNode ({_CACHE})"),
    ("cache.remove_node.ghost_kept", "RemoveNode of a node with pods leaves a ghost", f"RemoveNode ({_CACHE})"),
    ("cache.remove_node.not_found", "RemoveNode of an unknown node fails (NodeNotFound)", f"RemoveNode ({_CACHE})"),
    ("cache.remove_node.not_in_tree", "RemoveNode whose object is not in the tree fails after changing the "
     "NodeInfo (NodeNotInTree)", f"RemoveNode ({_CACHE})"),
    ("cache.remove_node.stale_object", "RemoveNode with an object other than the cached node",
     f"RemoveNode ({_CACHE})"),
    ("cache.returned.node_info", "AddNode and UpdateNode return a clone of the NodeInfo (up to v1.36)",
     f"AddNode, UpdateNode ({_CACHE})"),
    ("cache.returned.nothing", "AddNode and UpdateNode return nothing (v1.37 on)", "PR #138445"),
    ("cache.expiry.expired", "a binding-finished assumed pod past its deadline expires",
     f"cleanupAssumedPods ({_CACHE})"),
    ("cache.expiry.not_finished_kept", "an assumed pod whose binding has not finished never expires "
     "(kubernetes#106361)", f"cleanupAssumedPods ({_CACHE})"),
    ("cache.expiry.before_deadline_kept", "a pod before its deadline stays", f"cleanupAssumedPods ({_CACHE})"),
    ("cache.expiry.at_deadline_kept", "a pod exactly at its deadline stays (now must be after it)",
     f"cleanupAssumedPods ({_CACHE})"),
    ("cache.expiry.ttl_zero_kept", "with a TTL of 0 nothing expires", f"cleanupAssumedPods ({_CACHE})"),
    ("cache.expiry.unsupported", "cleanupAssumedPods does not exist without expiry (v1.36 on)", "PR #136204"),
    ("cache.metrics.update_metrics", "updateMetrics publishes the scheduler_cache_size gauge",
     f"updateMetrics ({_CACHE})"),
    ("cache.metrics.cleanup_publishes", "cleanupAssumedPods publishes the gauge at its end",
     f"cleanupAssumedPods ({_CACHE})"),
    ("cache.metrics.counts_non_live", "the nodes gauge counts placeholders and ghosts", f"updateMetrics ({_CACHE})"),
    ("cache.metrics.counts_assumed", "the pods gauge includes assumed pods", f"updateMetrics ({_CACHE})"),
    # -- the dispatcher's call queue --------------------------------------------------------------------------
    ("dispatcher.add.new_uid", "a call for a new object joins the FIFO's tail", f"callQueue.add ({_QUEUE})"),
    ("dispatcher.add.less_relevant_skipped", "a less relevant call is skipped", f"callQueue.merge ({_QUEUE})"),
    ("dispatcher.add.more_relevant_overwrites", "a more relevant call overwrites the pending one, which is told",
     f"callQueue.merge ({_QUEUE})"),
    ("dispatcher.add.overwrites_in_flight", "a call of another type overwrites an executing call, which is told",
     f"callQueue.merge ({_QUEUE})"),
    ("dispatcher.add.waits_behind_in_flight", "PR #141745: a call of another type waits behind the executing one, "
     "which is not told", "PR #141745"),
    ("dispatcher.add.merged", "a call of the same type is merged; the old caller is told it was overwritten",
     f"callQueue.merge ({_QUEUE})"),
    ("dispatcher.add.keeps_fifo_slot", "a call replacing a pending one keeps its FIFO place",
     f"callQueue.enqueue ({_QUEUE})"),
    ("dispatcher.add.no_op_skipped", "a call that is a no-op from the start is skipped",
     f"callQueue.enqueue ({_QUEUE})"),
    ("dispatcher.add.no_op_drops_pending", "a merge ending in a no-op drops the pending call too",
     f"callQueue.enqueue ({_QUEUE})"),
    ("dispatcher.add.no_op_kept_behind_in_flight", "a no-op behind an executing call is kept and executed",
     f"callQueue.enqueue ({_QUEUE})"),
    ("dispatcher.add.after_close_kept", "v1.35: a call added after close is kept and never run",
     f"APIDispatcher.Add ({_QUEUE})"),
    ("dispatcher.add.after_close_refused", "PR #141745: a call added after close is refused", "PR #141745"),
    ("dispatcher.merge.keeps_old_condition", "a merged status patch without a condition keeps the old one",
     f"PodStatusPatchCall.Merge ({_CALLS})"),
    ("dispatcher.merge.keeps_old_nominating", "a merged status patch with Noop nominating keeps the old Override",
     f"PodStatusPatchCall.Merge ({_CALLS})"),
    ("dispatcher.merge.new_wins", "a merge keeps the new call's own fields (a binding replaces the old one)",
     f"PodBindingCall.Merge, PodStatusPatchCall.Merge ({_CALLS})"),
    ("dispatcher.pop.fifo_head", "the run loop executes the FIFO's head", f"callQueue.pop ({_QUEUE})"),
    ("dispatcher.pop.marks_executed", "a popped status patch is marked executing", f"callQueue.pop ({_QUEUE})"),
    ("dispatcher.limit.holds_back", "v1.34.0: at most 16 calls execute at once", "PR #134154"),
    ("dispatcher.limit.unbounded", "from v1.35 any number of calls execute at once (PR #134154 removed the limit)",
     f"APIDispatcher.Run ({_QUEUE})"),
    ("dispatcher.finish.success", "a successful execution is told to its caller", f"APIDispatcher.Run ({_QUEUE})"),
    ("dispatcher.finish.execution_error", "an execution error is told to its caller", f"APIDispatcher.Run ({_QUEUE})"),
    ("dispatcher.finish.forgets", "a finished call that is still tracked is forgotten",
     f"callQueue.finalize ({_QUEUE})"),
    ("dispatcher.finish.requeues_newer", "a newer call waiting behind the finished one joins the FIFO's tail",
     f"callQueue.finalize ({_QUEUE})"),
    ("dispatcher.sync.unknown", "syncing an object without a call changes nothing", f"callQueue.syncObject ({_QUEUE})"),
    ("dispatcher.sync.refreshes_base", "a pending status patch takes the synced status as its base",
     f"PodStatusPatchCall.Sync ({_CALLS})"),
    ("dispatcher.sync.drops_no_op", "a pending call that became a no-op is dropped and its caller told",
     f"callQueue.syncObject ({_QUEUE})"),
    ("dispatcher.sync.keeps_no_op_behind_in_flight", "a pending call synced to a no-op while its object has a call in "
     "flight is kept (noOp && !inFlight)", f"callQueue.syncObject ({_QUEUE})"),
    ("dispatcher.sync.executing_untouched", "an executing call keeps its base status",
     f"PodStatusPatchCall.Sync ({_CALLS})"),
    ("dispatcher.sync.binding_unchanged", "a binding is not changed by a sync", f"PodBindingCall.Sync ({_CALLS})"),
    ("dispatcher.close.silent", "v1.35: close tells no tracked call", f"callQueue.close ({_QUEUE})"),
    ("dispatcher.close.notifies", "PR #141745: close tells every tracked call", "PR #141745"),
    ("dispatcher.close.twice", "a second close changes nothing", f"callQueue.close ({_QUEUE})"),
    # -- the scheduling pipeline ------------------------------------------------------------------------------
    ("cycle.create.queued", "a created pod enters the scheduling queue", f"addPodToSchedulingQueue ({_EVENTS})"),
    ("cycle.schedule.assumed", "a scheduling cycle assumes the pod on a feasible node", f"schedulingCycle ({_CYCLE})"),
    ("cycle.select.single_feasible", "one feasible node is chosen unscored", f"schedulePod ({_CYCLE})"),
    ("cycle.select.highest_total", "among several feasible nodes only those with the highest total may be chosen",
     f"prioritizeNodes, newSortedNodeScores ({_CYCLE})"),
    ("cycle.select.tie", "several nodes share the highest total: any of them may be chosen",
     f"sortedNodeScores.Pop ({_CYCLE})"),
    ("cycle.score.least_allocated", "NodeResourcesFit's LeastAllocated scores tell feasible nodes apart",
     f"leastResourceScorer ({_PLUGINS}/noderesources/least_allocated.go)"),
    ("cycle.score.balanced_allocation", "NodeResourcesBalancedAllocation's scores tell feasible nodes apart",
     f"balancedResourceScorer ({_PLUGINS}/noderesources/balanced_allocation.go)"),
    ("cycle.score.balanced_allocation_skipped", "a best-effort pod skips NodeResourcesBalancedAllocation",
     f"BalancedAllocation.PreScore ({_PLUGINS}/noderesources/balanced_allocation.go)"),
    ("cycle.score.taint_toleration", "untolerated PreferNoSchedule taints lower a node's TaintToleration score",
     f"TaintToleration.Score, NormalizeScore ({_PLUGINS}/tainttoleration)"),
    ("cycle.score.image_locality", "a node holding the pod's images scores higher on ImageLocality",
     f"ImageLocality.Score ({_PLUGINS}/imagelocality)"),
    ("cycle.score.node_affinity", "the weights of the preferred node-affinity terms a node matches tell feasible "
     "nodes apart on NodeAffinity", f"NodeAffinity.Score, NormalizeScore ({_PLUGINS}/nodeaffinity), "
     "PreferredSchedulingTerms.Score (component-helpers/scheduling/corev1/nodeaffinity)"),
    ("cycle.score.node_affinity_all_zero", "a pod with a non-nil list of preferred node-affinity terms is scored by "
     "NodeAffinity (PreScore does not skip) though no node matches a term: every node scores 0",
     f"NodeAffinity.PreScore, DefaultNormalizeScore ({_PLUGINS}/nodeaffinity, {_PLUGINS}/helper)"),
    ("cycle.message.fit_error", "a pod that fits nowhere fails with FitError's exact text",
     "FitError.Error (pkg/scheduler/framework/types.go)"),
    ("cycle.schedule.node_not_in_snapshot", "a node absent from the snapshot (placeholder, ghost, unknown) is no "
     "candidate", f"findNodesThatPassFilters ({_CYCLE})"),
    ("cycle.filter.node_unschedulable", "NodeUnschedulable rejects a cordoned node",
     f"NodeUnschedulable.Filter ({_PLUGINS})"),
    ("cycle.filter.taint_toleration", "TaintToleration rejects an untolerated NoSchedule or NoExecute taint",
     f"TaintToleration.Filter ({_PLUGINS})"),
    ("cycle.filter.node_affinity", "NodeAffinity rejects a node without the selected labels",
     f"NodeAffinity.Filter ({_PLUGINS})"),
    ("cycle.filter.node_ports", "NodePorts rejects a host-port conflict", f"NodePorts.Filter ({_PLUGINS})"),
    ("cycle.filter.node_resources_fit", "NodeResourcesFit rejects a node without room",
     f"NodeResourcesFit.Filter ({_PLUGINS})"),
    ("cycle.filter.pod_topology_spread", "PodTopologySpread rejects a node (a missing topology key, or too much "
     "skew)", f"PodTopologySpread.Filter ({_PLUGINS}/podtopologyspread)"),
    ("cycle.filter.inter_pod_affinity", "InterPodAffinity rejects a node (the pod's affinity or anti-affinity, or "
     "an existing pod's anti-affinity)", f"InterPodAffinity.Filter ({_PLUGINS}/interpodaffinity)"),
    ("cycle.filter.first_failure_reported", "several filters reject a node; the first in profile order is "
     "reported", "RunFilterPlugins (pkg/scheduler/framework/runtime)"),
    ("cycle.spread.within_skew", "a node with every topology key whose domain stays within maxSkew passes",
     f"PodTopologySpread.Filter ({_PLUGINS}/podtopologyspread)"),
    ("cycle.spread.missing_topology_key", "a node without a DoNotSchedule constraint's topology key is "
     "UnschedulableAndUnresolvable", f"PodTopologySpread.Filter ({_PLUGINS}/podtopologyspread)"),
    ("cycle.spread.skew_exceeded", "matching pods in the node's domain, plus the pod if it matches, minus the "
     "global minimum exceed maxSkew: Unschedulable", f"PodTopologySpread.Filter ({_PLUGINS}/podtopologyspread)"),
    ("cycle.spread.min_domains_unmet", "fewer domains than minDomains: the global minimum is 0",
     f"preFilterState.minMatchNum ({_PLUGINS}/podtopologyspread)"),
    ("cycle.spread.self_not_counted", "a pod its own constraint's selector does not match adds nothing to the skew",
     f"PodTopologySpread.Filter ({_PLUGINS}/podtopologyspread)"),
    ("cycle.spread.node_excluded_by_policy", "a node the pod's node selector or taints exclude (nodeAffinityPolicy "
     "or nodeTaintsPolicy Honor) is not counted", f"matchNodeInclusionPolicies ({_PLUGINS}/podtopologyspread)"),
    ("cycle.spread.other_namespace_not_counted", "matching pods of another namespace are not counted",
     f"countPodsMatchSelector ({_PLUGINS}/podtopologyspread)"),
    ("cycle.affinity.required_matched", "a node whose domain holds a pod matching all the required affinity terms "
     "passes", f"satisfyPodAffinity ({_PLUGINS}/interpodaffinity)"),
    ("cycle.affinity.first_of_group", "no pod matches all the required affinity terms and the pod matches them "
     "itself: any node with the topology keys passes", f"satisfyPodAffinity ({_PLUGINS}/interpodaffinity)"),
    ("cycle.affinity.missing_topology_key", "a node without a required affinity term's topology key fails it",
     f"satisfyPodAffinity ({_PLUGINS}/interpodaffinity)"),
    ("cycle.affinity.required_unmatched", "the required affinity is not met on the node: "
     "UnschedulableAndUnresolvable", f"InterPodAffinity.Filter ({_PLUGINS}/interpodaffinity)"),
    ("cycle.affinity.anti_affinity_satisfied", "no pod a required anti-affinity term matches is in the node's "
     "domain", f"satisfyPodAntiAffinity ({_PLUGINS}/interpodaffinity)"),
    ("cycle.affinity.anti_affinity_rejected", "a pod a required anti-affinity term matches is in the node's domain: "
     "Unschedulable", f"InterPodAffinity.Filter ({_PLUGINS}/interpodaffinity)"),
    ("cycle.affinity.existing_anti_affinity_rejected", "an existing pod's required anti-affinity term matches the "
     "pod in the node's domain: Unschedulable", f"satisfyExistingPodsAntiAffinity ({_PLUGINS}/interpodaffinity)"),
    ("cycle.affinity.namespace_selected", "a term's non-empty namespace selector selects a namespace that exists, "
     "by its labels (the pod's own terms merged into namespaces, or an existing pod's term and the pod's namespace)",
     f"mergeAffinityTermNamespacesIfNotEmpty, GetNamespaceLabelsSnapshot ({_PLUGINS}/interpodaffinity/plugin.go)"),
    ("cycle.taint.tolerated", "a tolerated NoSchedule or NoExecute taint passes", "Toleration.ToleratesTaint"),
    ("cycle.taint.prefer_no_schedule_ignored", "a PreferNoSchedule taint does not filter",
     f"TaintToleration.Filter ({_PLUGINS})"),
    ("cycle.cordon.tolerated", "a pod tolerating the unschedulable taint passes a cordoned node",
     f"NodeUnschedulable.Filter ({_PLUGINS})"),
    ("cycle.selector.matched", "a node carrying every selected label passes", f"NodeAffinity.Filter ({_PLUGINS})"),
    ("cycle.ports.wildcard_conflict", "0.0.0.0 conflicts with the same port and protocol on any IP",
     "HostPortInfo.CheckConflict"),
    ("cycle.ports.same_ip_conflict", "the same IP, protocol and port conflict", "HostPortInfo.CheckConflict"),
    ("cycle.ports.other_ip_no_conflict", "the same port on another specific IP does not conflict",
     "HostPortInfo.CheckConflict"),
    ("cycle.ports.other_protocol_no_conflict", "the same port under another protocol does not conflict",
     "HostPortInfo.CheckConflict"),
    ("cycle.fit.pod_count", "a node at its pod capacity is full", f"fitsRequest ({_PLUGINS}/noderesources)"),
    ("cycle.fit.cpu", "insufficient cpu", f"fitsRequest ({_PLUGINS}/noderesources)"),
    ("cycle.fit.memory", "insufficient memory", f"fitsRequest ({_PLUGINS}/noderesources)"),
    ("cycle.fit.ephemeral_storage", "insufficient ephemeral storage", f"fitsRequest ({_PLUGINS}/noderesources)"),
    ("cycle.fit.scalar", "insufficient extended or hugepages resource", f"fitsRequest ({_PLUGINS}/noderesources)"),
    ("cycle.fit.requested_not_non_zero", "fit is checked against Requested, not NonZeroRequested",
     f"fitsRequest ({_PLUGINS}/noderesources)"),
    ("cycle.fit.zero_request_skips_resources", "a pod requesting nothing is checked only for the pod count",
     f"fitsRequest ({_PLUGINS}/noderesources)"),
    ("cycle.fit.assumed_counted", "an assumed pod's requests already count against its node",
     f"AssumePod ({_CACHE}), fitsRequest"),
    ("cycle.fit.code_unschedulable", "NodeResourcesFit rejects with Unschedulable when every lacking resource "
     "fits the node's allocatable (preemption may help)", f"Fit.Filter ({_PLUGINS}/noderesources)"),
    ("cycle.fit.code_unresolvable", "NodeResourcesFit rejects with UnschedulableAndUnresolvable when the pod "
     "requests more of a resource than the node's allocatable", f"fitsRequest, Fit.Filter ({_PLUGINS}/noderesources)"),
    ("cycle.unschedulable.no_feasible_node", "a cycle with no feasible node leaves the cache alone",
     f"schedulingCycle, handleSchedulingFailure ({_CYCLE})"),
    ("cycle.unschedulable.no_nodes", "a cycle with no node at all fails", f"schedulePod ({_CYCLE})"),
    ("cycle.reserve.rejected", "Reserve rejects: the assumed pod is forgotten", f"schedulingCycle ({_CYCLE})"),
    ("cycle.permit.rejected", "Permit rejects: the assumed pod is forgotten", f"schedulingCycle ({_CYCLE})"),
    ("cycle.bind.ok", "the binding cycle binds the pod at the API server", f"bindingCycle ({_CYCLE})"),
    ("cycle.bind.finish_binding", "a bind calls FinishBinding where it exists", f"bindingCycle ({_CYCLE})"),
    ("cycle.fail_binding.prebind", "PreBind fails: no FinishBinding, ForgetPod", f"handleBindingCycleError ({_CYCLE})"),
    ("cycle.fail_binding.bind", "the bind fails: FinishBinding, then ForgetPod", f"handleBindingCycleError ({_CYCLE})"),
    ("cycle.fail_binding.requeued", "a failed binding requeues a pod that still exists unbound",
     f"handleBindingCycleError ({_CYCLE})"),
    ("cycle.fail_binding.pod_deleted", "a failed binding of a deleted pod does not requeue it",
     f"handleBindingCycleError ({_CYCLE})"),
    ("cycle.failure.bound_not_requeued", "a failed cycle of a pod the informer's lister already has bound (a "
     "predecessor's bind that landed) does not requeue it", f"handleSchedulingFailure ({_CYCLE})"),
    ("cycle.fail_binding.nominated_nowhere", "with preemption, a failed binding's handler nominates the pod to \"\" "
     "(clearNominatedNode; stored through v1.36, not from v1.37)",
     f"handleBindingCycleError, handleSchedulingFailure ({_CYCLE})"),
    ("cycle.fail_binding.already_forgotten", "ForgetPod after the delete handler forgot the pod: its result is "
     "only logged", f"handleBindingCycleError ({_CYCLE})"),
    ("cycle.confirm.assumed", "the informer's AddPod confirms the assumed pod", f"addAssignedPodToCache ({_EVENTS})"),
    ("cycle.confirm.expired_readded", "a confirmation after expiry adds the pod again", f"AddPod ({_CACHE})"),
    ("cycle.delete.pending", "deleting a pending pod takes it out of the queue", f"deletePod ({_EVENTS})"),
    ("cycle.delete.assumed_forgotten", "deleting an assumed pod forgets it at once (v1.35 on, PR #134157)",
     f"handleAssumedPodDeletion ({_EVENTS})"),
    ("cycle.delete.assumed_kept", "v1.34: deleting an assumed pod keeps it until its binding fails",
     f"deletePod ({_EVENTS})"),
    ("cycle.delete.bound_removed", "deleting a bound, confirmed pod removes it from the cache",
     f"deletePodFromCache ({_EVENTS})"),
    ("cycle.terminate.bound", "a graceful deletion of a bound pod updates it in the cache, where it keeps its node's "
     "resources until it is deleted", f"updateAssignedPodInCache ({_EVENTS})"),
    ("cycle.terminate.pending", "a graceful deletion of a pending pod updates it in the scheduling queue",
     f"updatePodInSchedulingQueue ({_EVENTS})"),
    ("cycle.terminate.assumed_forgotten", "a graceful deletion of an assumed pod (its binding in flight) forgets it "
     "at once, freeing its node's resources (v1.35 on, PR #134157)", f"handleAssumedPodDeletion ({_EVENTS})"),
    ("cycle.terminate.assumed_kept", "v1.34: the update that starts an assumed pod's graceful deletion is ignored; "
     "the pod stays assumed until its binding fails", f"updatePodInSchedulingQueue ({_EVENTS})"),
    ("cycle.terminate.bind_refused", "the API server refuses to bind a pod being deleted: the binding cycle fails at "
     "Bind (handleBindingCycleError)", "BindingREST.setPodNodeAndMetadata (pkg/registry/core/pod/storage/storage.go)"),
    ("cycle.terminate.bind_refused_requeued", "after a refused bind the failure handler requeues the terminating pod "
     "(its lister has it unbound) and records SchedulerError; the next pop skips it",
     f"handleSchedulingFailure ({_CYCLE})"),
    ("cycle.terminate.orphan_refused", "a crashed scheduler's bind request for a pod deleted gracefully since is "
     "refused when it lands", "BindingREST.setPodNodeAndMetadata (pkg/registry/core/pod/storage/storage.go)"),
    ("cycle.terminate.while_down", "a graceful deletion while the scheduler is down reaches the API server only; "
     "the restarted scheduler lists the pod as it then is", f"updatePod ({_EVENTS})"),
    ("cycle.delete.skipped", "deleting a pod ScheduleOne skipped (out of the queue, still listed) drops its "
     "nomination", f"deletePodFromSchedulingQueue ({_EVENTS})"),
    ("cycle.skip.deleting", "ScheduleOne skips a popped pod that is being deleted: no cycle, not put back (Done)",
     f"skipPodSchedule ({_CYCLE})"),
    ("cycle.skip.nomination_kept", "a skipped pod keeps its nomination until it is deleted (Pop and Done leave the "
     "nominator as it is)", f"skipPodSchedule ({_CYCLE})"),
    ("cycle.node.added", "the informer delivers a node", f"addNodeToCache ({_EVENTS})"),
    ("cycle.node.updated", "the informer delivers a changed node", f"updateNodeInCache ({_EVENTS})"),
    ("cycle.node.cordoned", "a node update cordons or uncordons the node", f"updateNodeInCache ({_EVENTS})"),
    ("cycle.node.removed", "the informer delivers a node deletion", f"deleteNodeFromCache ({_EVENTS})"),
    ("cycle.node.removed_ghost", "a removed node with pods stays as a ghost, no longer a candidate",
     f"RemoveNode ({_CACHE})"),
    ("cycle.node.ghost_revived", "a ghost's node returns with its pods", f"AddNode ({_CACHE})"),
    ("cycle.namespace.added", "a namespace is created; the namespace lister lists it from the next cycle",
     f"GetNamespaceLabelsSnapshot ({_PLUGINS}/interpodaffinity/plugin.go)"),
    ("cycle.namespace.relabelled", "a namespace's labels change; the next cycle's namespace selectors see the new "
     "ones", f"mergeAffinityTermNamespacesIfNotEmpty ({_PLUGINS}/interpodaffinity/plugin.go)"),
    ("cycle.pdb.added", "a PodDisruptionBudget is created; DefaultPreemption's PDB lister lists it from the next "
     "PostFilter on", f"getPodDisruptionBudgets ({_PLUGINS}/defaultpreemption/default_preemption.go)"),
    ("cycle.pdb.updated", "a PodDisruptionBudget is replaced (selector or status); the next PostFilter reads the new "
     "one", f"getPodDisruptionBudgets ({_PLUGINS}/defaultpreemption/default_preemption.go)"),
    ("cycle.tick.cleanup", "time passes and the cache's cleanup runs (profiles with expiry)",
     f"cacheImpl.run, cleanupAssumedPods ({_CACHE})"),
    ("cycle.tick.no_cleanup", "time passes; without expiry (v1.36 on) nothing expires", "PR #136204"),
    ("cycle.tick.expires", "time passes and an assumed pod past its deadline expires",
     f"cleanupAssumedPods ({_CACHE})"),
    ("cycle.overcommit", "known violation with a TTL: a late confirmation overcommits the node (kubernetes#106361)",
     f"cleanupAssumedPods ({_CACHE})"),
    # -- the scheduler in its cluster: crash and restart, responsibility, the kubelet ---------------------------
    ("cycle.create.other_scheduler", "a pod naming another scheduler is not queued", f"responsibleForPod ({_EVENTS})"),
    ("cycle.create.while_down", "a pod created while the scheduler is down waits at the API server",
     f"addPod ({_EVENTS})"),
    ("cycle.create.name_taken", "the API server refuses a pod whose namespace/name a live pod (a terminating one too) "
     "has: AlreadyExists, nothing changes",
     "Store.Create (staging/src/k8s.io/apiserver/pkg/registry/generic/registry/store.go)"),
    ("cycle.crash.memory_lost", "a crash loses the cache, the snapshot and the queue", f"runCommand ({_SERVER})"),
    ("cycle.crash.binding_orphaned", "a crash leaves each binding cycle's bind request behind",
     f"runCommand ({_SERVER})"),
    ("cycle.restart.cache_rebuilt", "a restart adds the listed nodes and bound pods to the new cache",
     f"addNodeToCache, addPod ({_EVENTS})"),
    ("cycle.restart.pending_requeued", "a restart queues the unassigned pods it is responsible for",
     f"addPod ({_EVENTS})"),
    ("cycle.orphan.landed", "a crashed process's bind request binds the pod", "BindingREST.Create"),
    ("cycle.orphan.landed_while_down", "an orphaned bind lands while no scheduler runs: the restart lists the "
     "pod bound", "BindingREST.Create"),
    ("cycle.orphan.refused", "an orphaned bind of a pod bound or deleted meanwhile changes nothing",
     "BindingREST.setPodNodeAndMetadata"),
    ("cycle.orphan.dropped", "an orphaned bind request never arrives", f"runCommand ({_SERVER})"),
    ("cycle.kubelet.admitted", "the kubelet admits a pod that fits beside the pods it runs",
     f"canAdmitPod ({_KUBELET})"),
    ("cycle.kubelet.rejected", "the kubelet rejects a pod that does not fit (OutOfcpu, ...): Failed, and the "
     "scheduler lets it go", f"canAdmitPod ({_KUBELET})"),
    ("cycle.kubelet.critical_evicts", "a critical pod lacking only resources makes the kubelet evict lower-priority "
     "pods (Failed, reason Preempting) and is admitted",
     "CriticalPodAdmissionHandler.HandleAdmissionFailure (pkg/kubelet/preemption/preemption.go)"),
    ("cycle.kubelet.critical_rejected", "the kubelet rejects a critical pod all the same: a failure other than "
     "resources (NodeAffinity, NodePorts, TaintToleration), or no set of pods frees enough "
     "(UnexpectedAdmissionError); nothing is evicted",
     "CriticalPodAdmissionHandler.HandleAdmissionFailure (pkg/kubelet/preemption/preemption.go)"),
    # -- PostFilter: DefaultPreemption and the nominator (a vector with "preemption") ---------------------------
    ("preemption.success", "no node fits; evicting pods of lower priority makes one fit: they are deleted and the "
     "pod is nominated there", "Evaluator.Preempt (pkg/scheduler/framework/preemption)"),
    ("preemption.bind_after", "a nominated pod is placed on its node in a later cycle and binds; its nomination "
     "goes", "PriorityQueue.Delete, DeleteNominatedPodIfExists (pkg/scheduler/backend/queue/scheduling_queue.go)"),
    ("preemption.no_victims", "no candidate node has pods of lower priority: no victims, the pod is nominated "
     "to no node", "Evaluator.findCandidates, DryRunPreemption (pkg/scheduler/framework/preemption)"),
    ("preemption.not_helpful", "every rejection is UnschedulableAndUnresolvable: no node is a candidate, "
     "'Preemption is not helpful for scheduling'",
     "Evaluator.findCandidates: NodesForStatusCode(Unschedulable) (pkg/scheduler/framework/preemption)"),
    ("preemption.insufficient", "even without its pods of lower priority no node fits: the dry run's reasons are "
     "the message", "SelectVictimsOnNode (pkg/scheduler/framework/plugins/defaultpreemption)"),
    ("preemption.reprieve", "the removed pods are added back most important first while the pod still fits: "
     "only the rest are victims", "SelectVictimsOnNode (pkg/scheduler/framework/plugins/defaultpreemption)"),
    ("preemption.select", "among candidate nodes pickOneNodeForPreemption's criteria in order decide the node",
     "pickOneNodeForPreemption (pkg/scheduler/framework/preemption)"),
    ("preemption.not_eligible", "PreemptionPolicy Never: PostFilter preempts nothing and nominates nowhere",
     "DefaultPreemption.PodEligibleToPreemptOthers (pkg/scheduler/framework/plugins/defaultpreemption)"),
    ("preemption.nominated_held", "a nominated pod's resources are held on its node against pods of lower or "
     "equal priority, not higher", "RunFilterPluginsWithNominatedPods (pkg/scheduler/framework/runtime)"),
    ("preemption.nomination_cleared", "a preemption on a node clears the nominations of pods of lower priority "
     "there", "getLowerPriorityNominatedPods, clearNominatedNodeName (pkg/scheduler/framework/preemption)"),
    ("preemption.nominated_deleted", "deleting a nominated pod removes its nomination and frees the room it held",
     "PriorityQueue.Delete, DeleteNominatedPodIfExists (pkg/scheduler/backend/queue/scheduling_queue.go)"),
    ("preemption.nominated_cleared_on_failure", "a nominated pod rejected at Reserve loses its assumption; the "
     "failure handler keeps or clears the nomination as Go's does", f"handleSchedulingFailure ({_CYCLE})"),
    ("preemption.no_nodes", "with no node at all PostFilter does not run and the nomination is cleared",
     f"schedulingCycle, handleSchedulingFailure ({_CYCLE})"),
    ("preemption.pdb_violation", "a victim whose eviction drives a PodDisruptionBudget's allowed disruptions below "
     "zero counts as a violation; such pods are reprieved before the others",
     "filterPodsWithPDBViolation, SelectVictimsOnNode (pkg/scheduler/framework/plugins/defaultpreemption)"),
    ("preemption.pdb_disrupted_pods", "a pod in a budget's DisruptedPods (its eviction already processed) uses none "
     "of the budget's disruptions", "filterPodsWithPDBViolation (pkg/scheduler/framework/plugins/defaultpreemption)"),
    ("preemption.pdb_fewest_violations", "among candidate nodes the one whose victims violate the fewest budgets is "
     "chosen, before any priority criterion", "pickOneNodeForPreemption (pkg/scheduler/framework/preemption)"),
    ("preemption.pdb_scope", "a budget covers only the pods of its namespace carrying its selector's labels; an empty "
     "selector covers none", "filterPodsWithPDBViolation (pkg/scheduler/framework/plugins/defaultpreemption)"),
    ("preemption.pre_filter_extensions", "preemption's dry run and Filter with nominated pods count each pod they "
     "remove or add in PodTopologySpread's and InterPodAffinity's PreFilter state (PreFilterExtensions)",
     "SelectVictimsOnNode, addGENominatedPods: RunPreFilterExtensionRemovePod, RunPreFilterExtensionAddPod "
     "(pkg/scheduler/framework/plugins/defaultpreemption, pkg/scheduler/framework/runtime)"),
    ("preemption.not_eligible_terminating", "a pod nominated to a node where a pod of lower priority is terminating "
     "by preemption (DisruptionTarget, PreemptionByScheduler) does not preempt again while that node's rejection is "
     "resolvable", "DefaultPreemption.PodEligibleToPreemptOthers, podTerminatingByPreemption "
     "(pkg/scheduler/framework/plugins/defaultpreemption)"),
    ("preemption.eligible_terminating", "a terminating pod on the nominated node does not stop preemption when it "
     "is not the scheduler's victim, is not of lower priority, or the node's rejection is "
     "UnschedulableAndUnresolvable", "DefaultPreemption.PodEligibleToPreemptOthers "
     "(pkg/scheduler/framework/plugins/defaultpreemption)"),
    ("preemption.terminating_victims_skipped", "from v1.35 a victim already terminating gets no API call, and when "
     "every victim is terminating the nominations of lower priority on the node are not cleared (v1.34 calls and "
     "clears all the same)", "Evaluator.prepareCandidateAsync (pkg/scheduler/framework/preemption)"),
    ("preemption.nominated_node_absent", "a pod nominated to a node the snapshot does not hold: the node has the "
     "absent nodes' status (UnschedulableAndUnresolvable), so the pod may preempt elsewhere",
     "NodeToStatus.Get (pkg/scheduler/framework/types.go), DefaultPreemption.PodEligibleToPreemptOthers"),
    ("queue.nominator.update", "an update of a queued pod re-adds its nomination: the node held in memory when "
     "neither object names one, otherwise the new object's node (none if it names none)",
     "nominator.UpdateNominatedPod (pkg/scheduler/backend/queue/nominator.go)"),
)

_SCHEDULING_QUEUE: Final = "pkg/scheduler/backend/queue/scheduling_queue.go"
_QUEUE_FUNCTIONS: Final = {
    "add": "PriorityQueue.Add", "pop": "PriorityQueue.Pop", "done": "PriorityQueue.Done",
    "close": "PriorityQueue.Close", HAND_BACK: "PriorityQueue.AddUnschedulableIfNotPresent",
    MOVE: "PriorityQueue.MoveAllToActiveOrBackoffQueue", "activate": "PriorityQueue.Activate",
    "update": "PriorityQueue.Update", "delete": "PriorityQueue.Delete",
    FLUSH_BACKOFF: "PriorityQueue.flushBackoffQCompleted",
    FLUSH_LEFTOVER: "PriorityQueue.flushUnschedulablePodsLeftover",
}  # fmt: skip


def _queue_rows() -> tuple[tuple[str, str, str], ...]:
    """One behaviour per (call, from, to) of the scheduling queue's pod-place table (:mod:`spec.queue.lifecycle`), its
    rows' conditions joined; then the refused hand-back and the recorded in-flight event."""
    rows: dict[str, tuple[list[str], str]] = {}
    for row in QUEUE_POD_TRANSITIONS:
        if row.operation not in SHORT:
            continue
        name = place_behaviour(row.operation, row.source, row.target)
        when = row.when + (f" (QueueingHints {row.gate.removeprefix('hints-')})" if row.gate else "")
        source = f"{_QUEUE_FUNCTIONS[row.operation]} ({_SCHEDULING_QUEUE})"
        rows.setdefault(name, ([], source))[0].append(when)
    found = [(name, f"{name.split('.')[1]}: {'; or '.join(whens)}", source) for name, (whens, source) in rows.items()]
    return (
        *found,
        (HAND_BACK_REFUSED, "a hand-back of a pod already in a sub-queue is refused with an error",
         f"PriorityQueue.AddUnschedulableIfNotPresent ({_SCHEDULING_QUEUE})"),
        (EVENT_RECORDED, "QueueingHints on: a cluster event or a pod update is recorded for the pods in flight",
         f"PriorityQueue.MoveAllToActiveOrBackoffQueue, Update ({_SCHEDULING_QUEUE})"),
        (GATED, "a PreEnqueue plugin (SchedulingGates) rejects a pod: it waits in unschedulablePods, gated",
         f"PriorityQueue.moveToActiveQ, runPreEnqueuePlugins ({_SCHEDULING_QUEUE})"),
        (UNGATED, "a gated pod passes PreEnqueue (its last gate removed) and leaves unschedulablePods",
         f"PriorityQueue.Update, moveToActiveQ ({_SCHEDULING_QUEUE})"),
    )


BEHAVIOURS: Final[tuple[Behaviour, ...]] = tuple(Behaviour(*row) for row in (*_ROWS, *_queue_rows()))
"""Every behaviour, in inventory order (grouped by topic)."""
BY_NAME: Final[dict[str, Behaviour]] = {b.name: b for b in BEHAVIOURS}

UNREACHABLE: Final[dict[str, str]] = {
    "cache.expiry.assumed_without_state": "cleanupAssumedPods exits when an assumed key has no pod state; "
    "every transition keeps assumed_pods a subset of pod_states (inv_assumed_subset_of_pod_states)",
    "cache.add.confirm_error_logged": "AddPod logs an error while confirming an assumed pod; removing the cached "
    "object from its own node and adding a pod with a UID cannot fail",
    "dispatcher.add.merge_failed": "Merge refuses a call of another concrete type; the call type determines the "
    "concrete type, and merge is only reached for calls of the same type",
    "node_tree.list_exhausted": "nodeTree.list fails when numNodes exceeds the names stored; every operation keeps "
    "them equal (TestNodeTree_List_Exhausted corrupts numNodes by hand)",
    "cycle.filter.node_name": "NodeName rejects a pod naming another node; create_pod accepts only unscheduled pods",
}
"""Rules the spec states that no sequence of the suite's operations reaches, with the reason."""

_LABEL_ROWS: Final[tuple[tuple[str, str, tuple[str, ...]], ...]] = (
    ("add", "AddPod", ("cache.add.",)),
    ("affinity", "the affinity lists", ("affinity.", "snapshot.affinity", "snapshot.anti_affinity")),
    ("assume", "assumed pods", ("cache.assume.", "cycle.schedule.assumed", "cycle.fit.assumed_counted",
                                "cycle.delete.assumed")),
    ("bind", "the binding cycle's bind", ("cycle.bind.", "cycle.fail_binding.bind")),
    ("close", "closing the dispatcher or the scheduling queue", ("dispatcher.close.", "queue.close.")),
    ("confirm", "confirmation of an assumed pod", ("cache.add.confirm", "cycle.confirm.")),
    ("cordon", "cordoned nodes", ("cycle.filter.node_unschedulable", "cycle.cordon.", "cycle.node.cordoned")),
    ("crash", "a scheduler crash: memory lost, binding cycles orphaned", ("cycle.crash.",)),
    ("delete", "pod deletion", ("cycle.delete.", "queue.delete.")),
    ("diagnosis", "which filter a rejection names", ("cycle.filter.first_failure_reported",)),
    ("errata-1", "errata 1: ForgetPod of an unknown pod (PR #134157)", ()),
    ("errata-3", "errata 3: the dispatcher's close (PR #141745)", ()),
    ("error-after-change", "errors returned after changing the cache", ("cache.error_after_change",)),
    ("execution", "call execution results", ("dispatcher.finish.",)),
    ("expiry", "assumed-pod expiry", ("cache.expiry.", "cache.finish_binding.", "cycle.tick.", "cycle.bind.finish",
                                      "cycle.confirm.expired", "cycle.overcommit")),
    ("fatal", "paths on which the process exits", ("cache.update.other_node_fatal", "cache.remove.other_node_fatal",
                                                   "cache.update.nil_node_fatal", "node_tree.update_nil_old_fatal")),
    ("fifo", "FIFO order of calls", ("dispatcher.pop.fifo_head", "dispatcher.add.keeps_fifo_slot")),
    ("filter", "the filter plugins", ("cycle.filter.", "cycle.taint.", "cycle.ports.", "cycle.fit.", "cycle.cordon.",
                                      "cycle.selector.", "cycle.spread.", "cycle.affinity.")),
    ("forget", "ForgetPod", ("cache.forget.", "cycle.reserve.", "cycle.permit.", "cycle.fail_binding.",
                             "cycle.delete.assumed_forgotten")),
    ("generation", "generations and recency", ("cache.recency.", "snapshot.")),
    ("ghost", "NodeInfos whose node was removed while pods remained", ("cache.remove_node.ghost_kept",
                                                                       "cache.add_node.ghost_revived",
                                                                       "snapshot.non_live_skipped",
                                                                       "cycle.node.removed_ghost",
                                                                       "images.orphaned_in_ghost",
                                                                       "cache.node_info.deleted_when_empty")),
    ("images", "image states", ("images.", "snapshot.stale_image_count")),
    ("in-flight", "calls executing, or pods being scheduled", ("dispatcher.add.overwrites_in_flight",
                                                                "dispatcher.add.waits_behind",
                                                                "dispatcher.add.no_op_kept_behind",
                                                                "dispatcher.sync.executing",
                                                                "dispatcher.finish.requeues_newer", "queue.pop.",
                                                                "queue.in_flight.", "queue.done.")),
    ("informer-adversarial", "random trace ignoring the informer contract", ()),
    ("informer-contract", "random trace following the informer contract", ()),
    ("k8s-106361", "kubernetes#106361: expiry only after FinishBinding", ()),
    ("kubelet", "the kubelet's admission, the final arbiter", ("cycle.kubelet.",)),
    ("limit", "v1.34.0's goroutine limit", ("dispatcher.limit.",)),
    ("merge", "merging calls", ("dispatcher.add.merged", "dispatcher.merge.")),
    ("metrics", "the scheduler_cache_size gauge", ("cache.metrics.",)),
    ("no-op", "no-op calls", ("dispatcher.add.no_op", "dispatcher.sync.drops_no_op",
                              "dispatcher.sync.keeps_no_op_behind_in_flight")),
    ("node", "node operations", ("cache.add_node.", "cache.update_node.", "cache.remove_node.")),
    ("node-churn", "nodes removed and added around pods", ("cycle.node.",)),
    ("node-selector", "the node selector", ("cycle.filter.node_affinity", "cycle.selector.")),
    ("node-update", "node updates", ("cycle.node.updated",)),
    ("non-zero-requests", "the non-zero request defaults", ("resources.non_zero.",)),
    ("orphaned-bind", "a crashed process's bind request answered late or lost", ("cycle.orphan.",)),
    ("overcommit", "the known overcommit with a TTL, or a crashed process's late bind", ("cycle.overcommit",)),
    ("permit", "Permit rejections", ("cycle.permit.",)),
    ("pipeline-random", "random trace of the scheduling pipeline", ()),
    ("sampling", "the search over 100 nodes or more: numFeasibleNodesToFind, nextStartNodeIndex", ()),
    ("kubelet-random", "random kubelet admissions on a shrunk node: rejections and critical pods' evictions", ()),
    ("decision-random", "random scheduling decisions: many feasible nodes, pods with every kind of preference", ()),
    ("placeholder", "NodeInfos created by pods before their node", ("cache.node_info.placeholder_created",
                                                                    "cache.add_node.placeholder_filled",
                                                                    "snapshot.non_live_skipped",
                                                                    "cache.node_info.deleted_when_empty",
                                                                    "cycle.schedule.node_not_in_snapshot")),
    ("pod-key", "the pod key", ("cache.pod_key.",)),
    ("pods", "the pod capacity", ("cycle.fit.pod_count",)),
    ("ports", "host ports", ("ports.", "cycle.ports.", "cycle.filter.node_ports")),
    ("prebind", "PreBind failures", ("cycle.fail_binding.prebind",)),
    ("pvc", "PVC reference counts and the used set", ("pvc.", "snapshot.pvc")),
    ("quirk", "a Kubernetes quirk the spec keeps (errata)", ()),
    ("relevance", "call relevance", ("dispatcher.add.less_relevant", "dispatcher.add.more_relevant")),
    ("remove", "RemovePod", ("cache.remove.", "cycle.delete.bound_removed")),
    ("remove-from-slice", "removeFromSlice", ("cache.node_info.remove_from_slice",)),
    ("reorder", "confirmations out of order", ("cycle.confirm.",)),
    ("requeue", "pods requeued after a failure", ("cycle.fail_binding.requeued", "cycle.unschedulable.",
                                                  "cycle.reserve.", "cycle.permit.", "cycle.failure.")),
    ("reserve", "Reserve rejections", ("cycle.reserve.",)),
    ("resources", "resource accounting and fit", ("resources.", "cycle.fit.", "cycle.filter.node_resources_fit",
                                                  "cache.update_node.allocatable_changed")),
    ("responsibility", "pods of other schedulers (responsibleForPod)", ("cycle.create.other_scheduler",)),
    ("restart", "a restart rebuilding the cache and queue from the API server", ("cycle.restart.",)),
    ("returned-node-info", "what AddNode and UpdateNode return", ("cache.returned.",)),
    ("snapshot-inconsistent", "the snapshot's consistency error", ("snapshot.inconsistent",)),
    ("sync", "syncing calls with the informer's object", ("dispatcher.sync.",)),
    ("taints", "taints and tolerations", ("cycle.filter.taint_toleration", "cycle.taint.")),
    ("terminating", "graceful deletion: pods being deleted (DeletionTimestamp set)",
     ("cycle.terminate.", "cycle.skip.")),
    ("transition-coverage", "shortest trace to a transition class (bounded exploration)", ()),
    ("unique-name", "a pod's namespace/name is its key at the API server: no two live pods share it",
     ("cycle.create.name_taken",)),
    ("unschedulable", "cycles that find no node", ("cycle.unschedulable.",)),
    ("update", "UpdatePod, or the scheduling queue's Update", ("cache.update.", "queue.update.")),
    ("version-dependent", "expectations that differ between version profiles (added by the generator)", ()),
    ("version-removed-expiry", "the production TTL 0, and expiry's removal", ("cache.expiry.ttl_zero_kept",
                                                                              "cache.expiry.unsupported",
                                                                              "cache.finish_binding.unsupported")),
    ("zones", "zones and the node tree", ("node_tree.",)),
    ("ported", "a Kubernetes table test case ported as a vector (the description names it)", ()),
    ("pod-affinity", "inter-pod affinity and anti-affinity", ("cycle.affinity.", "cycle.filter.inter_pod_affinity")),
    ("namespaces", "Namespace objects: namespace selectors read their labels", ("cycle.namespace.",
                                                                                "cycle.affinity.namespace_selected")),
    ("topology-spread", "pod topology spread constraints", ("cycle.spread.", "cycle.filter.pod_topology_spread")),
    ("score", "a ported Score case: the decision's scores are compared with the Go test's", ("cycle.score.",)),
    ("accounting", "a curated accounting case of issue 13 (pod and node shapes)", ()),
    # -- the scheduling queue -------------------------------------------------------------------------------
    ("activate", "the scheduling queue's Activate (also of a pod in no sub-queue, which moves nothing)", ()),
    ("backoff", "the scheduling queue's backoff", ("queue.hand_back.", "queue.flush_backoff.", "queue.pop.backoff",
                                                   "queue.move.unschedulable_to_backoff")),
    ("default-plugins", "the default plugins' event registrations", ("queue.move.", "queue.hand_back.",
                                                                     "queue.in_flight.")),
    ("errors", "scheduling attempts that end in an error", ("queue.hand_back.",)),
    ("hand-back", "AddUnschedulableIfNotPresent", ("queue.hand_back.",)),
    ("hints", "QueueingHints decide where a pod goes", ("queue.hand_back.", "queue.move.", "queue.update.",
                                                        "queue.in_flight.")),
    ("hints-off", "the scheduling queue with SchedulerQueueingHints off", ()),
    ("known-violation", "a property Kubernetes breaks under a setting it allows", ()),
    ("leftover-flush", "flushUnschedulablePodsLeftover", ("queue.flush_leftover.",)),
    ("lost-wake-up", "an event during a pod's attempt must not leave it in unschedulablePods",
     ("queue.hand_back.", "queue.move.")),
    ("namespace-name-key", "the sub-queues hold a pod by namespace/name (podInfoKeyFunc), in-flight pods by UID",
     ("queue.",)),
    ("pop-from-backoffq", "the scheduling queue with SchedulerPopFromBackoffQ", ()),
    ("queue-sort", "activeQ's order (PrioritySort)", ("queue.pop.",)),
    ("run", "the scheduling queue's Run: its periodic flushes", ("queue.flush_backoff.", "queue.flush_leftover.")),
    ("scheduling-gates", "PreEnqueue and SchedulingGates: gated pods wait in unschedulablePods",
     ("queue.pre_enqueue.",)),
    ("critical-pod", "the kubelet's critical-pod preemption", ("cycle.kubelet.critical_",)),
    ("preemption", "PostFilter (DefaultPreemption) and the nominator, in a vector with \"preemption\"",
     ("preemption.",)),
    ("pdb", "PodDisruptionBudgets: DefaultPreemption's victims and node choice read them",
     ("cycle.pdb.", "preemption.pdb_")),
)

LABELS: Final[dict[str, Label]] = {name: Label(name, text, prefixes) for name, text, prefixes in _LABEL_ROWS}
"""Every hand-chosen tag, by name."""


def confirms(label: Label, behaviour: str) -> bool:
    """Whether ``behaviour`` confirms topic ``label`` (its name starts with one of the label's prefixes)."""
    return any(behaviour.startswith(prefix) for prefix in label.confirmed_by)
