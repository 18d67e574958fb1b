"""Curated scenarios: each Kubernetes behaviour the spec models, as a named operation sequence.

They follow the scenario tests in ``tests/spec`` (``test_cache_scenarios.py``, ``test_snapshot.py``,
``test_call_queue.py``), which name the Kubernetes tests (cache_test.go, call_queue_test.go) they come from. The
expected outcomes are not written here: :func:`conformance.traces.expand` takes them from the spec.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Final, TypedDict

from conformance.operations import UpdateMetrics
from conformance.traces import EXPIRY_PROFILES, Scenario
from spec.cache.operations import (
    AddNode,
    AddPod,
    AssumePod,
    CleanupAssumedPods,
    FinishBinding,
    ForgetPod,
    RemoveNode,
    RemovePod,
    UpdateNode,
    UpdatePod,
    UpdateSnapshot,
)
from spec.dispatcher.api_calls import (
    NominatingInfo,
    NominatingMode,
    PodBindingCall,
    PodCondition,
    PodStatus,
    PodStatusPatchCall,
)
from spec.dispatcher.operations import AddCall, CloseDispatcher, FinishCall, PopCall, SyncObject
from spec.frozenmap import FrozenMap
from spec.objects import (
    LABEL_TOPOLOGY_ZONE,
    AffinityTerms,
    Container,
    ContainerImage,
    ContainerPort,
    Node,
    Pod,
    with_node_name,
)
from spec.quantities import SECOND, resource_list

MIB: Final = 2**20
TTL: Final = 10 * SECOND
NGINX: Final = ContainerImage(("nginx:1",), 100)


def pod(uid: str, node: str, cpu: int = 0, memory: int = 0, host_port: int = 0, **fields: object) -> Pod:
    """cache_test.go's makeBasePod: one container with the given requests and host port."""
    requests = resource_list(**{k: v for k, v in {"cpu": cpu, "memory": memory}.items() if v})
    ports = (ContainerPort(80, host_port=host_port),) if host_port else ()
    return Pod(uid, f"pod-{uid}", "node_info_cache_test", node, (Container("c", requests, ports),), **fields)  # type: ignore[arg-type]


def node(name: str, zone: str = "", images: tuple[ContainerImage, ...] = (), cpu: int = 1000) -> Node:
    labels = FrozenMap({LABEL_TOPOLOGY_ZONE: zone}) if zone else FrozenMap()
    return Node(name, resource_list(cpu=cpu, memory=100 * MIB, pods=10), labels=labels, images=images)


P1, P2 = pod("t1", "n1", 100, 500, 80), pod("t2", "n1", 200, 1024, 8080)
V1, V2 = pod("a", "n1", 100, 500, 80), pod("a", "n1", 200, 1024, 8080)
A, B, C = pod("a", "n1", 100), pod("b", "n1", 200), pod("c", "n1", 300)
EMPTY_UID: Final = Pod("", "nameless", node_name="n1")
S = UpdateSnapshot()


class _Expiry(TypedDict):
    ttl: int
    profiles: tuple[str, ...]


EXPIRY: Final[_Expiry] = {"ttl": TTL, "profiles": EXPIRY_PROFILES}
"""Scenarios about assumed-pod expiry: a 10 s TTL, only in the profiles that have expiry."""


def cache_scenarios() -> list[Scenario]:
    assumed_elsewhere = pod("a", "assumed-node", 100, 500)
    bound = with_node_name(assumed_elsewhere, "actual-node")
    aff = pod("a", "n1", pod_affinity=AffinityTerms(), pod_anti_affinity=AffinityTerms(required=1))
    pref = pod("b", "n1", pod_anti_affinity=AffinityTerms(preferred=1))
    pvc = pod("a", "n1", pvc_claims=("data", "data", "logs"))
    return [
        Scenario("cache.assume.aggregates_requests_and_ports", "TestAssumePodScheduled: assumed pods are charged "
                 "to a placeholder NodeInfo; assuming again fails; forgetting both deletes the placeholder",
                 [AssumePod(P1), AssumePod(P2), AssumePod(P1), ForgetPod(P1), ForgetPod(P2)],
                 behaviours=("assume", "forget", "placeholder")),
        Scenario("cache.assume.non_zero_defaults", "A pod without requests counts 100m/200Mi in NonZeroRequested only",
                 [AssumePod(pod("t", "n1"))], behaviours=("non-zero-requests",)),
        Scenario("cache.assume.add_on_other_node", "TestAddPodWillReplaceAssumed: AddPod confirms an assumed pod "
                 "on the node it was bound to, leaving the assumed node", [AssumePod(assumed_elsewhere), AddPod(bound),
                 UpdatePod(bound, replace(bound, priority=3))], behaviours=("assume", "add", "confirm")),
        Scenario("cache.forget.checks_node_before_state", "ForgetPod refuses an object naming another node before it "
                 "checks the assumed state", [AddPod(A), ForgetPod(with_node_name(A, "n2")), ForgetPod(A)],
                 behaviours=("forget",)),
        Scenario("cache.forget.twice", "TestForgetPod: forgetting a pod a second time (error before v1.35, "
                 "PR #134157)", [AssumePod(A), ForgetPod(A), ForgetPod(A)], behaviours=("forget", "errata-1")),
        Scenario("cache.expiry.only_after_finish_binding", "TestExpirePod: only a binding-finished pod past its "
                 "deadline expires; removal swaps the last pod into the freed slot",
                 [AssumePod(A), AssumePod(B), AssumePod(C), FinishBinding(A, 0), FinishBinding(C, 15 * SECOND),
                  CleanupAssumedPods(20 * SECOND)], behaviours=("expiry", "k8s-106361", "remove-from-slice"), **EXPIRY),
        Scenario("cache.expiry.strictly_after_deadline", "Expiry needs now strictly after the deadline",
                 [AssumePod(A), FinishBinding(A, 5 * SECOND), CleanupAssumedPods(15 * SECOND),
                  CleanupAssumedPods(15 * SECOND + 1)], behaviours=("expiry",), **EXPIRY),
        Scenario("cache.expiry.ttl_zero_never_expires", "With the production TTL 0 nothing expires",
                 [AssumePod(A), FinishBinding(A, 0), CleanupAssumedPods(10**6 * SECOND)],
                 behaviours=("expiry", "version-removed-expiry")),
        Scenario("cache.expiry.finish_binding_restarts_clock", "FinishBinding again restarts the clock; it ignores "
                 "added and unknown pods", [AssumePod(A), FinishBinding(A, 0), FinishBinding(A, 7 * SECOND),
                 CleanupAssumedPods(16 * SECOND), AddPod(A), FinishBinding(A, 0), FinishBinding(B, 0),
                 CleanupAssumedPods(30 * SECOND)], behaviours=("expiry",), **EXPIRY),
        Scenario("cache.expiry.add_after_expiration", "TestAddPodAfterExpiration", [AssumePod(V1),
                 FinishBinding(V1, 0), CleanupAssumedPods(20 * SECOND), AddPod(V1)],
                 behaviours=("expiry", "add"), **EXPIRY),
        Scenario("cache.expiry.confirmed_survives_cleanup", "TestAddPodWillConfirm: the confirmed pod survives, the "
                 "other expires; adding it again fails", [AssumePod(P1), FinishBinding(P1, 0), AssumePod(P2),
                 FinishBinding(P2, 0), AddPod(P1), CleanupAssumedPods(20 * SECOND), AddPod(P1)],
                 behaviours=("expiry", "confirm"), **EXPIRY),
        Scenario("cache.expiry.expire_add_update", "TestExpireAddUpdatePod", [AssumePod(V1), FinishBinding(V1, 0),
                 CleanupAssumedPods(20 * SECOND), AddPod(V1), UpdatePod(V1, V2)],
                 behaviours=("expiry", "update"), **EXPIRY),
        Scenario("cache.add.updates_pod_object", "TestAddPodAlwaysUpdatesPodInfoInNodeInfo: AddPod stores the "
                 "informer's object", [AssumePod(A), AddPod(pod("a", "n1", 300, 700))], behaviours=("add", "confirm")),
        Scenario("cache.update.replaces_resources_and_ports", "TestUpdatePod", [AddPod(V1), UpdatePod(V1, V2),
                 UpdatePod(V2, V1)], behaviours=("update", "ports")),
        Scenario("cache.update.unknown_and_assumed_fail", "TestUpdatePodAndGet: unknown and assumed pods cannot be "
                 "updated", [UpdatePod(A, A), AssumePod(A), UpdatePod(A, A)], behaviours=("update",)),
        Scenario("cache.update.onto_other_node_is_fatal", "UpdatePod onto another node ends the process",
                 [AddPod(A), UpdatePod(A, with_node_name(A, "n2"))], behaviours=("update", "fatal")),
        Scenario("cache.update.to_empty_uid_removes_first", "updatePod removes the old pod before addPod reads the "
                 "new key", [AddPod(A), UpdatePod(A, replace(A, uid=""))], behaviours=("update", "error-after-change")),
        Scenario("cache.remove.added_pod", "TestRemovePod: removal of an added pod, then again",
                 [AddNode(node("n1")), AddNode(node("n2")), AddPod(A), RemovePod(A), RemovePod(A)],
                 behaviours=("remove",)),
        Scenario("cache.remove.assumed_pod", "TestRemovePod: removal of an assumed pod",
                 [AddNode(node("n1")), AddNode(node("n2")), AssumePod(A), RemovePod(A), RemovePod(A)],
                 behaviours=("remove", "assume")),
        Scenario("cache.remove.stale_object_without_node", "RemovePod accepts the last object with an empty node name",
                 [AddPod(A), RemovePod(with_node_name(A, ""))], behaviours=("remove",)),
        Scenario("cache.remove.other_node_is_fatal", "RemovePod naming another node ends the process",
                 [AddPod(A), RemovePod(with_node_name(A, "n2"))], behaviours=("remove", "fatal")),
        Scenario("cache.pod_key.empty_uid", "Every pod operation rejects an empty UID", [AssumePod(EMPTY_UID),
                 ForgetPod(EMPTY_UID), AddPod(EMPTY_UID), UpdatePod(EMPTY_UID, EMPTY_UID), RemovePod(EMPTY_UID)],
                 behaviours=("pod-key",)),
        Scenario("cache.affinity.lists_follow_pods", "A term-less affinity still counts; required anti-affinity "
                 "lists", [AddPod(aff), AddPod(pref), RemovePod(aff), S], behaviours=("affinity",)),
        Scenario("cache.ports.not_reference_counted", "HostPortInfo is a set: removing one of two pods on a port "
                 "frees it", [AddPod(pod("a", "n1", host_port=80)), AddPod(pod("b", "n1", host_port=80)),
                 RemovePod(pod("a", "n1", host_port=80))], behaviours=("ports",)),
        Scenario("cache.pvc.ref_counts", "PVC reference counts per claim volume", [AddNode(node("n1")), AddPod(pvc),
                 S, RemovePod(pvc), S], behaviours=("pvc",)),
        Scenario("cache.node.ghosts", "TestNodeOperators: a removed node with pods stays as a ghost; a second removal "
                 "fails after changing it; removing the last pod deletes it", [AddPod(pod("a", "n1", 100, 500)),
                 AddNode(node("n1", "z1")), S, RemoveNode(node("n1", "z1")), S, RemoveNode(node("n1", "z1")),
                 RemovePod(pod("a", "n1", 100, 500)), S], behaviours=("ghost", "placeholder", "error-after-change")),
        Scenario("cache.node.remove_unknown_and_empty", "RemoveNode of an unknown node fails; of a node without pods "
                 "deletes it", [RemoveNode(node("x")), AddNode(node("x")), RemoveNode(node("x")),
                                RemoveNode(node("x"))],
                 behaviours=("node",)),
        Scenario("cache.images.num_nodes_and_ghosts", "Image summaries count nodes; a ghost keeps a dangling "
                 "summary", [AddNode(node("n1", images=(NGINX,))), AddNode(node("n2", images=(NGINX,
                 ContainerImage(("nginx:1",), 999)))), AddPod(pod("a", "n1")), RemoveNode(node("n1", images=(NGINX,))),
                 RemoveNode(node("n2", images=(NGINX,))),
                 AddNode(node("n3", images=(ContainerImage(("nginx:1",), 555),)))],
                 behaviours=("images", "ghost")),
        Scenario("cache.metrics.published_by_update_metrics", "updateMetrics publishes scheduler_cache_size: assumed "
                 "pods, all pods, and NodeInfos including placeholders and ghosts; nothing else publishes it",
                 [AddNode(node("n1")), AssumePod(A), AddPod(pod("b", "n2", 200)), UpdateMetrics(),
                  RemoveNode(node("n1")), AddNode(node("n3")), UpdateMetrics(), ForgetPod(A), UpdateMetrics()],
                 behaviours=("metrics", "ghost", "placeholder")),
        Scenario("cache.metrics.published_by_cleanup", "cleanupAssumedPods publishes the gauge after expiring",
                 [AssumePod(A), AssumePod(pod("b", "n2", 200)), FinishBinding(A, 0), CleanupAssumedPods(20 * SECOND)],
                 behaviours=("metrics", "expiry"), **EXPIRY),
        Scenario("cache.node.add_and_update_return_node_info", "AddNode and UpdateNode return a clone of the NodeInfo "
                 "(pods, requests, image summaries) up to v1.36, nothing from v1.37",
                 [AddPod(pod("a", "n1", 100, 500, 80)), AddNode(node("n1", "z1", images=(NGINX,))),
                  AddNode(node("n2", images=(NGINX,))), UpdateNode(node("n1", "z1", images=(NGINX,)),
                  node("n1", "z1", cpu=3000)), RemoveNode(node("n2", images=(NGINX,))),
                  UpdateNode(None, node("n2"))],
                 behaviours=("node", "returned-node-info", "images")),
        Scenario("cache.node.recency", "Generations are global; the most recently updated NodeInfo comes first",
                 [AddNode(node("a")), AddNode(node("b")), AddNode(node("c")), AddPod(pod("p", "a")), S],
                 behaviours=("generation",)),
        Scenario("node_tree.update_node_zone_and_allocatable", "UpdateNode changes Allocatable and moves the node to "
                 "its new zone", [AddNode(node("a", "z1")), AddNode(node("b", "z2")), S,
                 UpdateNode(node("a", "z1"), node("a", "z2", cpu=8000)), S], area="node_tree",
                 behaviours=("zones",)),
        Scenario("node_tree.add_node_other_zone_enters_twice", "Errata quirk: AddNode of a cached node with another "
                 "zone enters it twice; the snapshot then lists it twice and later reports an inconsistency",
                 [AddNode(node("a", "z1")), AddNode(node("a", "z2")), S, RemoveNode(node("a", "z1")), S, S],
                 area="node_tree", behaviours=("zones", "quirk", "snapshot-inconsistent")),
        Scenario("node_tree.update_from_nil_to_zoned_is_fatal", "UpdateNode from a nil old node to a zoned node "
                 "dereferences nil in Go", [AddNode(node("a")), UpdateNode(None, node("a", "z1"))], area="node_tree",
                 behaviours=("zones", "fatal")),
        Scenario("node_tree.round_robin_across_zones", "TestSchedulerCache_updateNodeInfoSnapshotList (bug 91601)",
                 [AddNode(node("a", "z1")), AddNode(node("b", "z1")), AddNode(node("c", "z2")), S], area="node_tree",
                 behaviours=("zones",)),
    ]


def snapshot_scenarios() -> list[Scenario]:
    def sn(sid: str, description: str, ops: list[object], *behaviours: str) -> Scenario:
        return Scenario(f"snapshot.{sid}", description, ops, area="snapshot", behaviours=behaviours)

    return [
        sn("affinity_lists_and_pvc_set", "Affinity lists in list order; the used-PVC set", [AddNode(node("a")),
           AddNode(node("b")), AddPod(Pod("p", node_name="b", pod_affinity=AffinityTerms(), pvc_claims=("data",))),
           AddPod(Pod("q", node_name="a", pod_anti_affinity=AffinityTerms(required=1))), S], "affinity", "pvc"),
        sn("no_change_is_identity", "A second update with no change changes nothing",
           [AddNode(node("a")), AddNode(node("b")), S, S]),
        sn("only_changed_nodes_recloned", "Only NodeInfos newer than the snapshot are cloned again",
           [AddNode(node("a")), AddNode(node("b")), S, AddPod(Pod("p", node_name="a")), S]),
        sn("removed_node_leaves", "A removed node leaves the map and the list",
           [AddNode(node("a")), AddNode(node("b")), S, RemoveNode(node("a")), S]),
        sn("ghost_and_placeholder_excluded", "Ghosts and placeholders are not in the snapshot",
           [AddNode(node("a")), AddPod(Pod("p", node_name="a")), RemoveNode(node("a")), AddPod(Pod("q", node_name="b")),
            S], "ghost", "placeholder"),
        sn("generation_goes_down", "The snapshot generation is the head's, and the head can be deleted",
           [AddNode(node("a")), AddNode(node("b")), S, RemoveNode(node("b")), S, AddPod(Pod("p", node_name="a")), S]),
        sn("quirk.zone_change_keeps_list_order", "Known violation: a zone change does not reorder the list",
           [AddNode(node("a", "z1")), AddNode(node("b", "z1")), AddNode(node("c", "z2")), S,
            UpdateNode(node("a", "z1"), node("a", "z2")), S], "quirk", "zones"),
        sn("quirk.removed_and_readded_keeps_place", "Known violation: a node removed and re-added between two "
           "updates keeps its old place", [AddNode(node("a", "z1")), AddNode(node("b", "z2")), S,
           RemoveNode(node("a", "z1")), AddNode(node("a", "z1")), S], "quirk", "zones"),
        sn("pvc_on_placeholder_counted_until_rebuild", "v1.37 counts the claims of a pod on a node the cache has no "
           "node object for (refreshPVCRefCountsDelta) until the next full rebuild; earlier releases count the listed "
           "nodes' claims only", [AddNode(node("a")), S, AddPod(Pod("p", node_name="x", pvc_claims=("data",))), S,
           AddNode(node("b")), S], "pvc", "placeholder"),
        sn("pvc_ghost_claims_subtracted_twice", "v1.37: RemoveNode subtracts a ghost's claims and removing its pod "
           "subtracts them again; the count below zero makes UpdateSnapshot rebuild every list, which puts the list "
           "back in node-tree order", [AddNode(node("a", "z1")), AddNode(node("b", "z2")), AddNode(node("g", "z1")),
           AddPod(Pod("p", node_name="g", pvc_claims=("data",))), S, RemoveNode(node("g", "z1")), S,
           RemoveNode(node("a", "z1")), AddNode(node("a", "z1")), S,
           RemovePod(Pod("p", node_name="g", pvc_claims=("data",))), S], "pvc", "ghost", "zones"),
        sn("quirk.stale_image_counts", "An image's num_nodes in an unchanged snapshot NodeInfo is stale",
           [AddNode(node("a", images=(NGINX,))), S, AddNode(node("b", images=(NGINX,))), S], "quirk", "images"),
    ]


UNSCHEDULABLE: Final = PodCondition("PodScheduled", "False", "Unschedulable", "0/3 nodes are available")
ALREADY: Final = PodStatus(FrozenMap({"PodScheduled": UNSCHEDULABLE}))
OVERRIDE: Final = NominatingInfo(NominatingMode.OVERRIDE, "n2")
SCHEDULER_ERROR: Final = PodCondition("PodScheduled", "False", "SchedulerError", "binding failed")


def patch(uid: str = "u1", condition: PodCondition | None = UNSCHEDULABLE, **fields: object) -> PodStatusPatchCall:
    return PodStatusPatchCall(uid, PodStatus(), condition, **fields)  # type: ignore[arg-type]


def bind(uid: str = "u1", node_name: str = "n1") -> AddCall:
    return AddCall(PodBindingCall(uid, node_name))


def dispatcher_scenarios() -> list[Scenario]:
    def ds(sid: str, description: str, ops: list[object], *behaviours: str) -> Scenario:
        return Scenario(f"dispatcher.{sid}", description, ops, area="dispatcher", behaviours=behaviours)

    pop, close = PopCall(), CloseDispatcher()
    return [
        ds("fifo_order", "New UIDs execute in FIFO order", [bind("a"), bind("b"), AddCall(patch("c")), pop, pop, pop,
           FinishCall("b"), FinishCall("a"), FinishCall("c")], "fifo"),
        ds("less_relevant_skipped", "A status patch after a binding for the same pod is skipped",
           [bind(), AddCall(patch())], "relevance"),
        ds("more_relevant_overwrites_keeps_slot", "A binding overwrites a pending status patch and keeps its FIFO "
           "place", [AddCall(patch("u1")), bind("u2"), bind("u1", "n7"), pop], "relevance", "fifo"),
        ds("same_type_merged", "A status patch merges into the pending one", [AddCall(patch("u1",
           nominating_info=OVERRIDE)), bind("u2"), AddCall(patch("u1", condition=None)), pop], "merge"),
        ds("no_op_skipped", "A call that is a no-op from the start is skipped",
           [AddCall(patch("u1", condition=None, nominating_info=NominatingInfo(NominatingMode.NOOP)))], "no-op"),
        ds("merge_to_no_op_drops_both", "A merge that ends in a no-op drops the pending call too",
           [AddCall(patch("u1")), AddCall(PodStatusPatchCall("u1", ALREADY, None))], "no-op", "merge"),
        ds("in_flight_overwritten", "A call of another type for an in-flight UID: v1.34 tells the in-flight call it "
           "was overwritten; from v1.35 (PR #135180) the new call waits behind it untold",
           [AddCall(patch("u1")), pop, bind("u1"), FinishCall("u1"), pop, FinishCall("u1")], "in-flight"),
        ds("no_op_behind_in_flight_kept", "A no-op behind an in-flight call is kept and executed",
           [AddCall(patch("u1")), pop, AddCall(PodStatusPatchCall("u1", ALREADY, UNSCHEDULABLE)), FinishCall("u1"),
            pop, FinishCall("u1")], "in-flight", "no-op"),
        ds("waiting_call_replaced_untold", "A status patch merged behind its pod's in-flight patch is replaced by "
           "a binding: v1.34 tells it it was overwritten; from v1.35 (PR #135180) its caller is never told "
           "(liveness_every_caller_told, a known violation)",
           [AddCall(patch("u1")), pop, AddCall(patch("u1", PodCondition("PodScheduled", "False", "SchedulerError"))),
            bind("u1"), FinishCall("u1"), pop, FinishCall("u1")], "in-flight", "merge"),
        ds("execution_error_reaches_caller", "An execution error is sent to the caller",
           [bind(), pop, FinishCall("u1", 'pods "p" not found')], "execution"),
        ds("sync_refreshes_and_drops", "Sync refreshes the base status and drops a call that became a no-op",
           [AddCall(patch("u1")), SyncObject("u1", PodStatus(nominated_node_name="n3")), SyncObject("u1", ALREADY)],
           "sync"),
        ds("sync_leaves_executing_call", "Sync does not touch an executing call",
           [AddCall(patch("u1")), pop, SyncObject("u1", ALREADY), FinishCall("u1")], "sync", "in-flight"),
        ds("no_op_sync_of_in_flight_kept", "A status patch waiting behind its object's in-flight call and synced to "
           "a no-op is kept (syncObject: noOp && !inFlight), re-queued when the in-flight call finishes, and executed",
           [AddCall(patch("u1")), pop, AddCall(patch("u1", SCHEDULER_ERROR)),
            SyncObject("u1", PodStatus(FrozenMap({"PodScheduled": SCHEDULER_ERROR}))), FinishCall("u1"), pop,
            FinishCall("u1")], "sync", "in-flight", "no-op"),
        ds("sync_unknown", "Sync of an unknown object changes nothing", [SyncObject("zz", PodStatus())], "sync"),
        ds("close", "Close: v1.35 tells no one; PR #141745 tells every tracked call and refuses later adds",
           [bind("a"), pop, bind("b"), close, bind("c"), close, FinishCall("a", "context canceled")], "close",
           "errata-3"),
        ds("v1_34_goroutine_limit", "v1.34.0 executes at most 16 calls at once (PR #134154 removed the limit)",
           [bind(f"p{i:02d}") for i in range(17)] + [pop] * 16 + [FinishCall("p00"), pop], "limit"),
    ]


def curated() -> list[Scenario]:
    """Every curated scenario."""
    return [*cache_scenarios(), *snapshot_scenarios(), *dispatcher_scenarios()]
