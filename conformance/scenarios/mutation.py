"""Curated scenarios that mutation testing showed the suite lacked.

``make mutation`` (``mutation/``) runs mutmut over the reference implementation and judges each mutant by the
conformance vectors alone. Each scenario here pins a Kubernetes behaviour that a surviving mutant broke without any
vector noticing; it is named after the behaviour, and its description names the Kubernetes function. As with every
curated scenario, the expected outcomes are not written here: :func:`conformance.traces.expand` takes them from
the spec.
"""

from __future__ import annotations

from dataclasses import replace

from conformance.operations import (
    AdmitPod,
    ClusterAddNamespace,
    ClusterAddNode,
    ClusterUpdateNode,
    CreatePod,
    CycleOperation,
    DeletePod,
    FailScheduling,
    SchedulePod,
)
from conformance.scenarios import cycle as cy
from conformance.scenarios.cache import NGINX, UNSCHEDULABLE, S, node, patch, pod
from conformance.traces import EXPIRY_PROFILES, Scenario
from spec.cache.operations import (
    AddNode,
    AddPod,
    AssumePod,
    CleanupAssumedPods,
    FinishBinding,
    RemoveNode,
    RemovePod,
    UpdateNode,
)
from spec.cluster.kubelet import SYSTEM_CRITICAL_PRIORITY
from spec.dispatcher.api_calls import NominatingInfo, NominatingMode, PodCondition, PodStatus
from spec.dispatcher.operations import AddCall, PopCall, SyncObject
from spec.frozenmap import FrozenMap
from spec.objects import (
    DO_NOT_SCHEDULE,
    AffinityTerms,
    Container,
    ContainerImage,
    ContainerPort,
    LabelSelector,
    LabelSelectorRequirement,
    Namespace,
    Node,
    Pod,
    PodAffinityTerm,
    Taint,
    Toleration,
    TopologySpreadConstraint,
    WeightedPodAffinityTerm,
)
from spec.quantities import SECOND, resource_list, resources_from

GPU = "example.com/gpu"


def cache_scenarios() -> list[Scenario]:
    """The cache's ``cleanupAssumedPods`` and ``finishBinding`` (backend/cache/cache.go) and ``HostPortInfo``
    (framework/types.go)."""
    a, b = pod("a", "n1", 100), pod("b", "n1", 200)
    low = pod("low", "n1", host_port=1)
    return [
        Scenario("cache.expiry.one_nanosecond_ttl", "finishBinding sets a deadline for any non-zero TTL, 1 ns too; "
                 "cleanupAssumedPods expires the pod once now is past it", [AssumePod(a), FinishBinding(a, 0),
                 CleanupAssumedPods(1), CleanupAssumedPods(2)], behaviours=("expiry",), ttl=1,
                 profiles=EXPIRY_PROFILES),
        Scenario("cache.expiry.unfinished_pod_does_not_shield_others", "cleanupAssumedPods skips an assumed pod "
                 "whose binding is in flight and goes on to expire the next one", [AssumePod(a), AssumePod(b),
                 FinishBinding(b, 0), CleanupAssumedPods(20 * SECOND)], behaviours=("expiry", "k8s-106361"),
                 ttl=10 * SECOND, profiles=EXPIRY_PROFILES),
        Scenario("cache.host_port.lowest_is_recorded", "HostPortInfo.Add and Remove ignore only ports <= 0: host "
                 "port 1 is recorded and freed", [AddNode(node("n1")), AddPod(low), RemovePod(low)],
                 behaviours=("ports",)),
    ]


def _labelled(name: str, **labels: str) -> Node:
    return Node(name, resource_list(cpu=1000, memory=2**30, pods=10), labels=FrozenMap(labels))


def accounting_scenarios() -> list[Scenario]:
    """``NodeInfo.AddPod``/``RemovePod`` and ``Resource.Add`` (framework/types.go), ``GetZoneKey``
    (component-helpers node/topology.go) and ``UpdateSnapshot``'s incremental rebuild (backend/cache/cache.go)."""
    rich = Node("n1", resources_from({"cpu": 4000, "memory": 2**30, "ephemeral-storage": 2**30, "pods": 10,
                                      GPU: 4, "hugepages-2Mi": 2**30}))
    a = Pod("a", "pod-a", node_name="n1", containers=(Container("c", resources_from(
        {"cpu": 100, "ephemeral-storage": 2**20, GPU: 1})),))
    b = Pod("b", "pod-b", node_name="n1", containers=(Container("c", resources_from(
        {"ephemeral-storage": 3 * 2**20, GPU: 2, "hugepages-2Mi": 2**21})),))
    beta_zone, beta_region = "failure-domain.beta.kubernetes.io/zone", "failure-domain.beta.kubernetes.io/region"
    ga_zone, ga_region = "topology.kubernetes.io/zone", "topology.kubernetes.io/region"
    zones = [_labelled("plain"), _labelled("labelled", team="a"), _labelled("plain2"),
             _labelled("beta", **{beta_zone: "z1"}), _labelled("ga", **{ga_zone: "z1"}),
             _labelled("beta_region", **{beta_region: "r1"}), _labelled("ga_region", **{ga_region: "r1"}),
             _labelled("both", **{beta_zone: "z2", ga_zone: "z1"}), _labelled("empty_beta", **{beta_zone: "",
                                                                                               ga_zone: "z1"})]
    aff = Pod("aff", "pod-aff", node_name="a", pod_affinity=AffinityTerms())
    anti = Pod("anti", "pod-anti", node_name="b", pod_anti_affinity=AffinityTerms(required=1))
    x = Pod("x", "pod-x", node_name="a", pvc_claims=("data",))
    y = Pod("y", "pod-y", node_name="a", pvc_claims=("logs",))
    def c(name: str, restart: str | None = None, port: int = 0, protocol: str = "", **requests: int) -> Container:
        ports = (ContainerPort(port, port, protocol),) if port else ()
        return Container(name, resource_list(**requests), ports, restart_policy=restart)

    init = Pod("init", "pod-init", node_name="n2", containers=(c("app", cpu=100, memory=100),),
               init_containers=(c("big", cpu=500, memory=50, port=81), c("side", "Always", cpu=50, memory=70, port=82,
                                                                          protocol="UDP"),
                                c("late", cpu=200, memory=300), c("side2", "Always", cpu=10)),
               overhead=resource_list(cpu=7, memory=11))
    level = Pod("level", "pod-level", node_name="n2", containers=(c("app", cpu=100, memory=100, ephemeral_storage=5),
                                                                  c("zero", cpu=0)),
                pod_level_requests=resources_from({"cpu": 300, GPU: 9, "hugepages-2Mi": 2**21}),
                overhead=resource_list(cpu=1))
    return [
        Scenario("cache.resources.init_sidecars_overhead_pod_level", "PodRequests (component-helpers "
                 "resource/helpers.go): containers summed, raised to the peak of each init container run beside the "
                 "sidecars started before it, sidecars also summed with the containers; pod-level cpu, memory and "
                 "hugepages replace the aggregate where the profile honours them; overhead added; sidecar host "
                 "ports (UDP too) recorded, plain init containers' not; the non-zero defaults per container",
                 [AddNode(node("n2")), AddPod(init), AddPod(level), RemovePod(init), S],
                 behaviours=("resources", "ports")),
        Scenario("cache.resources.ephemeral_storage_and_scalars", "NodeInfo.AddPod and RemovePod add and subtract "
                 "ephemeral storage and every scalar resource (extended, hugepages) pod by pod; allocatable keeps "
                 "them all", [AddNode(rich), AddPod(a), AddPod(b), RemovePod(a), S], behaviours=("resources",)),
        Scenario("node_tree.zone_keys", "GetZoneKey: the beta labels win over the GA ones (a present but empty beta "
                 "label too), a region alone makes a zone, and nodes with labels but no zone share the empty zone "
                 "with unlabelled ones", [*(AddNode(n) for n in zones), S], area="node_tree", behaviours=("zones",)),
        Scenario("snapshot.lists_follow_affinity_and_claims", "UpdateSnapshot rebuilds the affinity lists and the "
                 "used-claim set whenever a node gains or loses its first or last such pod, or its claims change "
                 "at the same count", [AddNode(node("a")), AddNode(node("b")), S, AddPod(aff), S, AddPod(anti), S,
                 AddPod(x), S, RemovePod(aff), S, RemovePod(x), AddPod(y), S, RemovePod(anti), S],
                 area="snapshot", behaviours=("affinity", "pvc")),
        Scenario("snapshot.changed_node_behind_the_head", "A node whose pod leaves moves to the head of the "
                 "most-recently-updated list, so UpdateSnapshot sees it even when another node changed after it",
                 [AddNode(node("a")), AddNode(node("b")), AddPod(pod("p", "a", 100)), AddPod(pod("q", "a", 100)),
                  AddPod(pod("r", "b", 100)), S, RemovePod(pod("p", "a", 100)), S], area="snapshot",
                 behaviours=("generation",)),
        Scenario("snapshot.image_counts_after_changes", "A NodeInfo cloned again after image changes elsewhere shows "
                 "the current image counts", [AddNode(node("a", images=(NGINX,))), S,
                 AddNode(node("b", images=(NGINX,))), AddNode(node("c", images=(NGINX,))), AddPod(pod("p", "a")), S,
                 RemoveNode(node("c", images=(NGINX,))), AddPod(pod("q", "a")), S], area="snapshot",
                 behaviours=("images",)),
        Scenario("cache.images.add_node_again_replaces_images", "AddNode of a node already cached replaces its "
                 "image summaries: the old images lose the node", [AddNode(node("a", images=(NGINX,))),
                 AddNode(node("b", images=(NGINX,))), AddNode(node("a", images=(ContainerImage(("redis:7",), 50),)))],
                 behaviours=("images", "node")),
    ]


def _ds(sid: str, description: str, ops: list[object], *behaviours: str) -> Scenario:
    return Scenario(f"dispatcher.{sid}", description, ops, area="dispatcher", behaviours=behaviours)


def dispatcher_scenarios() -> list[Scenario]:
    """The status patch's ``Merge`` (pkg/scheduler/framework/api_calls/pod_status_patch.go) and the queue's
    ``merge`` (call_queue.go)."""
    to_n2 = NominatingInfo(NominatingMode.OVERRIDE, "n2")
    to_n3 = NominatingInfo(NominatingMode.OVERRIDE, "n3")
    scheduled = PodCondition("PodScheduled", "False", "SchedulerError", "binding rejected")
    return [
        _ds("merge.newer_nomination_wins", "PodStatusPatchCall.Merge keeps the old Override nomination only when "
            "the new call's is Noop: a newer Override replaces it", [AddCall(patch("u1", nominating_info=to_n2)),
            AddCall(patch("u1", nominating_info=to_n3)), PopCall()], "merge"),
        _ds("sync.nomination_applied", "PodStatusPatchCall.Sync applies the call's Override nomination to an "
            "informer status that names another node (syncStatus), and the call stays pending",
            [AddCall(patch("u1", nominating_info=to_n2)), SyncObject("u1", PodStatus(nominated_node_name="n3")),
             PopCall()], "sync"),
        _ds("merge.newer_condition_wins", "PodStatusPatchCall.Merge keeps the old condition only when the new call "
            "has none: a newer condition replaces it", [AddCall(patch("u1", condition=UNSCHEDULABLE)),
            AddCall(patch("u1", condition=scheduled)), PopCall()], "merge"),
    ]


def _asks(uid: str, requests: dict[str, int]) -> Pod:
    """An unscheduled pod with one container requesting ``requests``."""
    return Pod(uid, f"pod-{uid}", containers=(Container("c", resources_from(requests)),))


def _ports(uid: str, *ports: ContainerPort) -> Pod:
    return Pod(uid, f"pod-{uid}", containers=(Container("c", resource_list(cpu=100), ports),))


def cycle_scenarios() -> list[Scenario]:
    """The default profile's Filter plugins (pkg/scheduler/framework/plugins): ``Fit``'s ``fitsRequest``
    (noderesources/fit.go), ``NodePorts`` (``HostPortInfo.CheckConflict``, framework/types.go) and
    ``TaintToleration`` (``Toleration.ToleratesTaint``, k8s.io/api core/v1 toleration.go)."""
    mib = 2**20
    roomy = cy.node("n1", cpu=4000)
    tainted = cy.node("t", taints=(Taint("dedicated", "gpu"),))
    half = {GPU: 1, "cpu": 2000, "memory": 2**29, "ephemeral-storage": 2**29}
    return [
        cy._cy("filter.memory", "Fit: the memory a pod asks must fit in what the node's pods leave free",
               [ClusterAddNode(roomy), CreatePod(_asks("a", {"cpu": 100, "memory": 600 * mib})),
                CreatePod(_asks("b", {"cpu": 100, "memory": 600 * mib})), *cy.placed("a", "n1"),
                SchedulePod("b", "n1")],
               "filter", "resources"),
        cy._cy("filter.ephemeral_storage", "Fit: ephemeral storage is checked like cpu and memory",
               [ClusterAddNode(Node("n1", resource_list(cpu=4000, memory=2**30, pods=10, ephemeral_storage=2**30))),
                CreatePod(_asks("a", {"ephemeral-storage": 600 * mib})),
                CreatePod(_asks("b", {"ephemeral-storage": 600 * mib})),
                CreatePod(_asks("c", {"ephemeral-storage": 424 * mib})), *cy.placed("a", "n1"),
                SchedulePod("b", "n1"), SchedulePod("c", "n1")], "filter", "resources"),
        cy._cy("filter.extended_resource", "Fit with an extended resource (fitsRequest's slow path): every "
               "resource, the extended one, cpu, memory, ephemeral storage and the pod count, fits exactly when the "
               "pod asks what is free; a node without the resource, or with too little, rejects the pod; a zero "
               "request of one resource does not end the check of the next",
               [ClusterAddNode(Node("g", resources_from({"cpu": 4000, "memory": 2**30, "ephemeral-storage": 2**30,
                                                        "pods": 2, GPU: 2}))),
                ClusterAddNode(Node("h", resources_from({"cpu": 4000, "memory": 2**30, "pods": 10, GPU: 2}))),
                ClusterAddNode(roomy), CreatePod(_asks("a", half)), CreatePod(_asks("b", {GPU: 2})),
                CreatePod(_asks("c", half)), CreatePod(_asks("d", {GPU: 1})),
                CreatePod(_asks("z", {"example.com/a": 0, GPU: 3})), SchedulePod("a", "n1"), *cy.placed("a", "g"),
                SchedulePod("b", "g"), SchedulePod("z", "g"), *cy.placed("c", "g"), SchedulePod("d", "g"),
                SchedulePod("d", "n1"), SchedulePod("b", "h"), SchedulePod("d", "h")], "filter", "resources", "pods"),
        cy._cy("filter.single_resource_on_a_full_node", "Fit: a pod asking one unit of a single resource (1m cpu, "
               "1 byte of memory or of ephemeral storage) does not fit a node that has none of it left",
               [ClusterAddNode(Node("full", resources_from({"cpu": 1000, "memory": 2**30, "ephemeral-storage": 2**30,
                                                           "pods": 10}))),
                CreatePod(_asks("all", {"cpu": 1000, "memory": 2**30, "ephemeral-storage": 2**30})),
                *(CreatePod(_asks(name, {name: 1})) for name in ("cpu", "memory", "ephemeral-storage")),
                *cy.placed("all", "full"), *(SchedulePod(name, "full") for name in ("cpu", "memory",
                                                                                   "ephemeral-storage"))],
               "filter", "resources"),
        cy._cy("filter.host_port_ip_and_protocol", "NodePorts: 0.0.0.0 conflicts with the port on any IP, a "
               "specific IP only with itself and 0.0.0.0; UDP and TCP do not conflict; host port 1 counts",
               [ClusterAddNode(roomy), CreatePod(_ports("ip", ContainerPort(80, 80, host_ip="10.0.0.1"),
                                                         ContainerPort(1, 1))),
                CreatePod(_ports("any", ContainerPort(80, 80))), CreatePod(_ports("other", ContainerPort(80, 80,
                                                                                  host_ip="10.0.0.2"))),
                CreatePod(_ports("udp", ContainerPort(80, 80, "UDP", "10.0.0.1"))),
                CreatePod(_ports("one", ContainerPort(1, 1, host_ip="10.0.0.3"))),
                *cy.placed("ip", "n1"), SchedulePod("any", "n1"), SchedulePod("other", "n1"), SchedulePod("udp", "n1"),
                SchedulePod("one", "n1")], "filter", "ports"),
        cy._cy("filter.toleration_matching", "TaintToleration: a toleration must match the taint's effect (empty: "
               "any), key (empty: any) and, under Equal or no operator, value",
               [ClusterAddNode(tainted),
                *(CreatePod(cy.pod(uid, tolerations=(t,))) for uid, t in [
                    ("effect", Toleration("dedicated", "Equal", "gpu", "NoExecute")),
                    ("key", Toleration("other", "Equal", "gpu")),
                    ("value", Toleration("dedicated", "Equal", "cpu")),
                    ("bare", Toleration("dedicated", "", "gpu")),
                    ("odd", Toleration("dedicated", "Unknown", "gpu")),
                    ("all", Toleration("", "Exists"))]),
                *(SchedulePod(uid, "t") for uid in ("effect", "key", "value", "bare", "odd", "all"))],
               "filter", "taints"),
    ]


def gap_scenarios() -> list[Scenario]:
    """The second round: what the survivors listed as gaps asked for. ``PodRequests`` with pod-level requests alone
    (component-helpers resource/helpers.go), ``schedutil.GetHostPorts`` and ``HostPortInfo.Remove``
    (framework/types.go), ``UpdateSnapshot``'s list rebuilds (backend/cache/cache.go), and ``fitsRequest``
    (noderesources/fit.go) on an overcommitted node and with pod-level requests."""
    pod_level = Pod("plc", "pod-plc", node_name="n1", containers=(Container("c", resource_list()),),
                    pod_level_requests=resources_from({"cpu": 300}))
    sidecar = Pod("side", "pod-side", node_name="n1", containers=(Container("c", resource_list(cpu=10)),),
                  init_containers=(Container("s", resource_list(cpu=5), (ContainerPort(1, 1),),
                                             restart_policy="Always"),))
    on_ip = Pod("ip", "pod-ip", node_name="n1", containers=(Container("c", resource_list(), (
        ContainerPort(80, 80, host_ip="10.0.0.1"),)),))
    other = pod("other", "n1", host_port=81)
    aff = Pod("aff", "pod-aff", node_name="a", pod_affinity=AffinityTerms())
    anti = Pod("anti", "pod-anti", node_name="a", pod_anti_affinity=AffinityTerms(required=1))
    claim = Pod("x", "pod-x", node_name="a", pvc_claims=("data",))
    other_claim = Pod("y", "pod-y", node_name="a", pvc_claims=("other",))
    logs = Pod("z", "pod-z", node_name="b", pvc_claims=("logs",))
    aff2 = Pod("aff2", "pod-aff2", node_name="a", pod_affinity=AffinityTerms())
    anti_b = Pod("anti_b", "pod-anti_b", node_name="b", pod_anti_affinity=AffinityTerms(required=1))
    aff_b = Pod("aff_b", "pod-aff_b", node_name="b", pod_affinity=AffinityTerms())
    port = pod("port", "a", host_port=8080)
    level = Pod("lvl", "pod-lvl", containers=(Container("c", resource_list(cpu=100)),),
                pod_level_requests=resources_from({"cpu": 2000}))
    big = {"cpu": 800, "memory": 800 * 2**20, "ephemeral-storage": 800 * 2**20}

    def fat(cpu: int, memory: int) -> Node:
        return Node("n1", resources_from({"cpu": cpu, "memory": memory, "ephemeral-storage": memory, "pods": 10,
                                          GPU: 2}))

    return [
        Scenario("cache.resources.pod_level_cpu_only", "PodRequests with a pod-level cpu request over a container "
                 "that requests nothing: cpu comes from the pod level, and the non-zero memory is the default "
                 "because the pod requests no memory at all (PodInfo.calculateResource)",
                 [AddNode(node("n1")), AddPod(pod_level), S], behaviours=("resources",)),
        Scenario("cache.host_port.sidecar_port_one", "GetHostPorts records a restartable init container's host "
                 "port 1, and RemovePod frees it", [AddNode(node("n1")), AddPod(sidecar), RemovePod(sidecar)],
                 behaviours=("ports",)),
        Scenario("cache.host_port.remove_on_specific_ip", "HostPortInfo.Remove frees a port bound to a specific "
                 "host IP and keeps the node's other ports", [AddNode(node("n1")), AddPod(on_ip), AddPod(other),
                 RemovePod(on_ip)], behaviours=("ports",)),
        Scenario("snapshot.lists_follow_each_kind_alone", "UpdateSnapshot rebuilds the required-anti-affinity list "
                 "when only it changes (the node keeps a pod with affinity), and keeps the lists right after a "
                 "node's ports or claims come and go", [AddNode(node("a")), S, AddPod(port), RemovePod(port), S,
                 AddPod(aff), S, AddPod(anti), S, RemovePod(anti), S, AddPod(claim), S, RemovePod(claim), S,
                 RemovePod(aff), S, AddPod(anti), S], area="snapshot", behaviours=("affinity", "pvc")),
        Scenario("snapshot.recently_updated_list_unlinks", "The cache's most-recently-updated list after moving "
                 "an item from the middle of the part changed since the last UpdateSnapshot, and after deleting a "
                 "node from the middle of it: UpdateSnapshot still reaches every node changed since the one before",
                 [*(AddNode(node(n)) for n in "abcd"), S, AddPod(pod("p", "a", 100)), AddPod(pod("q", "b", 100)),
                  AddPod(pod("r", "c", 100)), AddPod(pod("s", "b", 100)), S, AddNode(node("e")),
                  AddPod(pod("t", "d", 100)), AddPod(pod("y", "e", 100)), RemovePod(pod("y", "e", 100)),
                  AddPod(pod("v", "c", 100)), RemoveNode(node("e")), S, AddPod(pod("w", "c", 100)),
                  AddPod(pod("x", "d", 100)), S, *(AddNode(node(n)) for n in "fgh"), S,
                  *(AddPod(pod(f"k{n}", n, 100)) for n in "hgf"), S],
                 area="snapshot", behaviours=("generation",)),
        Scenario("snapshot.lists_after_last_pod_leaves", "After a node's last pod with affinity (or with required "
                 "anti-affinity) leaves, a later pod of the other kind still puts the node on its list: the "
                 "emptiness of each list is tracked apart", [AddNode(node("a")), AddNode(node("b")),
                 AddPod(aff), S, RemovePod(aff), AddPod(aff2), S, AddPod(anti), S, AddPod(anti_b), S,
                 RemovePod(anti_b), S, AddPod(aff_b), S], area="snapshot", behaviours=("affinity",)),
        Scenario("snapshot.claims_changed_before_unchanged", "UpdateSnapshot rebuilds the used-claim set when one "
                 "node's claims changed at the same count, even if it then visits a changed node whose claims did "
                 "not change", [AddNode(node("a")), AddNode(node("b")), AddPod(claim), AddPod(logs), S,
                 AddPod(pod("w", "b", 100)), RemovePod(claim), AddPod(other_claim), S], area="snapshot",
                 behaviours=("pvc",)),
        Scenario("snapshot.pvc_count_reaching_zero_keeps_list_order", "v1.37's applyPVCRefCountDelta fails only "
                 "for a count below zero: a claim whose count reaches exactly zero is dropped, and UpdateSnapshot "
                 "does not rebuild the lists, so a list a zone change left out of node-tree order stays as it was "
                 "(a, c, b, where the tree now reads b, c, a); only a count below zero rebuilds every list. Earlier "
                 "releases recount the claims on every update and keep the order too",
                 [AddNode(node("a", "z1")), AddNode(node("b", "z1")), AddNode(node("c", "z2")),
                  AddPod(Pod("p", node_name="a", pvc_claims=("data",))), S,
                  UpdateNode(node("a", "z1"), node("a", "z2")), S,
                  RemovePod(Pod("p", node_name="a", pvc_claims=("data",))), S],
                 area="snapshot", behaviours=("pvc", "zones", "quirk")),
        Scenario("snapshot.pvc_recount_then_delta_added", "v1.37's full rebuild (updateNodeInfoSnapshotList with "
                 "updateAll) recounts each claim's pods over the listed nodes, and the next UpdateSnapshot adds the "
                 "delta to that count (applyPVCRefCountDelta): p uses claim data on a, the first update recounts 1, "
                 "r (data, on a) makes it 2, and data stays used. Were the recount to subtract, data would reach 0 "
                 "and leave the used set while two pods use it",
                 [AddNode(node("a")), AddPod(Pod("p", node_name="a", pvc_claims=("data",))), S,
                  AddPod(Pod("r", node_name="a", pvc_claims=("data",))), S],
                 area="snapshot", behaviours=("pvc",)),
        Scenario("snapshot.pvc_recount_sums_nodes", "v1.37's full rebuild recounts a claim over every listed node "
                 "(p on a and q on b both use data: 2), so removing p leaves data used by q (1). Were the recount "
                 "to keep only the last node's count (1), removing p would take data to 0 and out of the used set",
                 [AddNode(node("a")), AddNode(node("b")), AddPod(Pod("p", node_name="a", pvc_claims=("data",))),
                  AddPod(Pod("q", node_name="b", pvc_claims=("data",))), S,
                  RemovePod(Pod("p", node_name="a", pvc_claims=("data",))), S],
                 area="snapshot", behaviours=("pvc",)),
        Scenario("snapshot.pvc_rebuild_clears_delta", "v1.37's full rebuild recounts the claims over the listed "
                 "nodes and clears the pending delta (updateNodeInfoSnapshotList with updateAll): p uses claim data "
                 "on x, a node the cache has no object for, and the first update, which adds a's entry, recounts "
                 "nothing for data; the next update, after q joins a, has no delta left to apply, so data stays "
                 "unused. Were the delta kept, that update would count data again",
                 [AddNode(node("a")), AddPod(Pod("p", node_name="x", pvc_claims=("data",))), S,
                  AddPod(Pod("q", node_name="a")), S],
                 area="snapshot", behaviours=("pvc", "placeholder")),
        Scenario("snapshot.pvc_recovery_recounts", "v1.37: the recovery after SnapshotInconsistent (the errata "
                 "quirk of a node entered in two zones) rebuilds every list with the claim delta, which recounts the "
                 "claims over the listed nodes: the claim of p, on x (no node object), counted by the inconsistent "
                 "update's delta, is dropped by the recount; q (data, on x) then counts 1 and its removal 0, so data "
                 "leaves the used set. Were the recovery to skip the recount, p's count would stay and q's removal "
                 "would leave data used",
                 [AddNode(node("a", "z1")), AddNode(node("a", "z2")), S,
                  AddPod(Pod("p", node_name="x", pvc_claims=("data",))), RemoveNode(node("a", "z1")), S,
                  AddPod(Pod("q", node_name="x", pvc_claims=("data",))), S,
                  RemovePod(Pod("q", node_name="x", pvc_claims=("data",))), S],
                 area="snapshot", behaviours=("pvc", "placeholder", "zones", "quirk")),
        Scenario("snapshot.refreshed_entry_freezes_current_image_counts", "An entry refreshed by UpdateSnapshot "
                 "takes the image summaries as they are now (SnapshotConcrete freezes {size, numNodes}): a holds "
                 "nginx:1 and is snapshotted; b, holding it too, makes its count 2, which a's entry keeps stale (a "
                 "did not change); once p joins a, a's entry is cloned again and counts 2. Were the frozen map of "
                 "the first clone reused, it would still count 1",
                 [AddNode(node("a", images=(NGINX,))), S, AddNode(node("b", images=(NGINX,))), S,
                  AddPod(pod("p", "a", 100)), S], area="snapshot", behaviours=("images",)),
        Scenario("snapshot.entry_ports_emptied", "An entry whose node's last host port went away is refreshed "
                 "with no used ports: q holds port 80 on a when it is snapshotted, then leaves, and the next "
                 "UpdateSnapshot clears the entry's ports",
                 [AddNode(node("a")), AddPod(pod("q", "a", 100, host_port=80)), S, RemovePod(pod("q", "a", 100,
                  host_port=80)), S], area="snapshot", behaviours=("ports",)),
        Scenario("cache.images.remove_node_unknown_name_first", "removeNodeImageStates skips an image name the "
                 "cache does not know and goes on with the image's next name",
                 [AddNode(node("a", images=(NGINX,))), AddNode(node("b", images=(NGINX,))),
                  RemoveNode(node("a", images=(ContainerImage(("redis:7", *NGINX.names), NGINX.size_bytes),)))],
                 behaviours=("images", "node")),
        cy._cy("filter.pod_level_requests", "Fit checks the pod-level cpu request, not the smaller container sum, "
               "under every profile (all honour pod-level resources)",
               [ClusterAddNode(cy.node("n1", cpu=1000)), CreatePod(level), SchedulePod("lvl", "n1")],
               "filter", "resources"),
        cy._cy("filter.overcommitted_node", "fitsRequest skips a resource the pod does not ask for, even when the "
               "node's allocatable shrank below what its pods request (free < 0)",
               [ClusterAddNode(fat(1000, 2**30)), CreatePod(_asks("a", big)), *cy.placed("a", "n1"),
                ClusterUpdateNode(fat(500, 2**29)), CreatePod(_asks("g", {GPU: 1})), SchedulePod("g", "n1")],
               "resources"),
    ]


def _sized(name: str, cpu: int, memory: int, pods: int = 10, storage: int = 2**30, **fields: object) -> Node:
    """A node with ``cpu`` millicores, ``memory`` MiB, ``storage`` bytes of ephemeral storage and room for ``pods``."""
    return Node(name, resources_from({"cpu": cpu, "memory": memory * 2**20, "ephemeral-storage": storage,
                                      "pods": pods}), **fields)  # type: ignore[arg-type]


def fast_path_scenarios() -> list[Scenario]:
    """The third round: the scheduler's own Filter search (``findNodesThatPassFilters``, schedule_one.go), which the
    cycle adapter now runs with the reference implementation's fast paths. Several nodes, each rejected for another
    reason and with another status code (``Fit.Filter``'s Unschedulable or UnschedulableAndUnresolvable,
    noderesources/fit.go), observed together by a cycle that fits nowhere; identical pods scheduled one after
    another (the verdicts the reference implementation keeps per pod shape); and nodes that change between
    cycles (``UpdateSnapshot`` refreshes their entries)."""
    mib = 2**20

    shape = {"cpu": 600, "memory": 600 * mib}
    nodes = [_sized("a", 4000, 4096, pods=1), _sized("b", 1000, 4096), _sized("c", 500, 4096), _sized("d", 4000, 1024),
             _sized("e", 4000, 512), _sized("f", 500, 512, pods=1), _sized("g", 1000, 1024)]
    fillers = {"x": ("a", {"cpu": 100}), "y": ("b", {"cpu": 600}), "z": ("d", {"memory": 700 * mib}),
               "w": ("f", {"cpu": 10}), "v": ("g", {"cpu": 500, "memory": 500 * mib})}
    labelled = {"zone": "z1"}
    others = [_sized("m", 4000, 4096),
              _sized("t1", 4000, 4096, taints=(Taint("k", "v"),), labels=FrozenMap(labelled)),
              _sized("t2", 4000, 4096, taints=(Taint("k", "v"),), labels=FrozenMap(labelled)),
              _sized("t3", 4000, 4096, taints=(Taint("k", "w", "NoExecute"),), labels=FrozenMap(labelled)),
              _sized("u", 4000, 4096, unschedulable=True, labels=FrozenMap(labelled)),
              _sized("p", 4000, 4096, labels=FrozenMap(labelled)), _sized("q", 4000, 4096, labels=FrozenMap(labelled))]
    selective = Pod("s", "pod-s", containers=(Container("c", resource_list(cpu=100), (ContainerPort(80, 80),)),),
                    node_selector=FrozenMap(labelled))
    return [
        cy._cy("fast_path.fit_verdicts_per_node", "Fit.Filter on seven nodes at once, each rejecting for another "
               "reason (the pod count; cpu or memory in use, Unschedulable; cpu or memory beyond the allocatable, "
               "UnschedulableAndUnresolvable; both), for three pods of one shape in turn: a node updated or freed "
               "between the cycles is judged anew, the others as before",
               [*(ClusterAddNode(n) for n in nodes), *(CreatePod(_asks(uid, r)) for uid, (_, r) in fillers.items()),
                *(op for uid, (n, _) in fillers.items() for op in cy.placed(uid, n)),
                *(CreatePod(_asks(uid, shape)) for uid in ("p1", "p2", "p3", "p4")),
                FailScheduling("p1"), FailScheduling("p2"), ClusterUpdateNode(_sized("c", 1000, 1024)),
                SchedulePod("p2", "c"), FailScheduling("p3"), ClusterUpdateNode(_sized("e", 4000, 1024)),
                SchedulePod("p3", "e"), FailScheduling("p4"), DeletePod("y"), SchedulePod("p4", "a"),
                SchedulePod("p4", "b"), FailScheduling("p1")],
               "filter", "resources"),
        cy._cy("fast_path.fit_other_shapes", "Fit.Filter for pods of several shapes on the same nodes: ephemeral "
               "storage, an extended resource, nothing at all, and a pod every node fits",
               [*(ClusterAddNode(n) for n in nodes), *(CreatePod(_asks(uid, r)) for uid, (_, r) in fillers.items()),
                *(op for uid, (n, _) in fillers.items() for op in cy.placed(uid, n)),
                CreatePod(_asks("big", {"cpu": 600, "memory": 600 * mib, "ephemeral-storage": 2**31})),
                CreatePod(_asks("gpu", {GPU: 1, "cpu": 600})), CreatePod(_asks("none", {})),
                CreatePod(_asks("tiny", {"cpu": 1})), FailScheduling("big"), FailScheduling("gpu"),
                SchedulePod("none", "a"), SchedulePod("none", "b"), SchedulePod("tiny", "a"),
                SchedulePod("tiny", "c")],
               "filter", "resources"),
        cy._cy("fast_path.many_pod_shapes", "Fit.Filter for forty pods of as many shapes, one after another, on "
               "the same two nodes (one roomy, one half full): each is rejected by the half-full node, with "
               "Unschedulable while it asks no more than the node's allocatable and UnschedulableAndUnresolvable "
               "beyond; the reference implementation keeps verdicts for 32 shapes, and judges the others afresh",
               [ClusterAddNode(_sized("n", 1000, 1024)), ClusterAddNode(_sized("r", 4000, 4096)),
                CreatePod(_asks("half", {"cpu": 500, "memory": 512 * mib})), *cy.placed("half", "n"),
                *(CreatePod(_asks(f"k{i}", {"cpu": 510 + 25 * i, "memory": (100 + 20 * i) * mib})) for i in range(40)),
                *(SchedulePod(f"k{i}", "n") for i in range(40)), SchedulePod("k39", "r")],
               "filter", "resources"),
        cy._cy("fast_path.fit_boundaries", "Fit.Filter at its boundaries on four nodes at once: a pod asking "
               "exactly the free cpu and memory fits, one more millicore or byte does not; asking exactly the "
               "allocatable is Unschedulable on a node whose pods hold some of it, one more is "
               "UnschedulableAndUnresolvable; the last free pod slot fits",
               [ClusterAddNode(_sized("e", 1000, 1024, pods=2)), ClusterAddNode(_sized("o", 600, 600)),
                ClusterAddNode(_sized("h", 1000, 1024)), ClusterAddNode(_sized("s", 100, 100)),
                CreatePod(_asks("hold", {"cpu": 400, "memory": 424 * mib})), *cy.placed("hold", "e"),
                CreatePod(_asks("hold2", {"cpu": 1, "memory": 1 * mib})), *cy.placed("hold2", "o"),
                CreatePod(_asks("exact", {"cpu": 600, "memory": 600 * mib})),
                CreatePod(_asks("cpu1", {"cpu": 601, "memory": 600 * mib})),
                CreatePod(_asks("mem1", {"cpu": 600, "memory": 600 * mib + 1})),
                SchedulePod("cpu1", "e"), SchedulePod("cpu1", "o"), SchedulePod("mem1", "e"),
                SchedulePod("mem1", "o"), SchedulePod("exact", "o"), SchedulePod("exact", "e")],
               "filter", "resources"),
        cy._cy("fast_path.fit_full_and_overcommitted", "Fit.Filter on nodes that are full and lack cpu or memory "
               "(Unschedulable: the pod count and a resource in use, none beyond the allocatable), and on a node "
               "whose allocatable shrank below what its pods hold: a pod asking only cpu still fits there "
               "(fitsRequest skips memory it does not ask for), a pod asking memory does not",
               [ClusterAddNode(_sized("fc", 1000, 4096, pods=1)), ClusterAddNode(_sized("fm", 4000, 1024, pods=1)),
                ClusterAddNode(_sized("ov", 4000, 1024)),
                CreatePod(_asks("hc", {"cpu": 600})), CreatePod(_asks("hm", {"memory": 600 * mib})),
                CreatePod(_asks("ho", {"cpu": 100, "memory": 800 * mib})), *cy.placed("hc", "fc"),
                *cy.placed("hm", "fm"), *cy.placed("ho", "ov"), ClusterUpdateNode(_sized("ov", 4000, 512)),
                CreatePod(_asks("both", {"cpu": 600, "memory": 600 * mib})),
                CreatePod(_asks("cpu_only", {"cpu": 100})), CreatePod(_asks("mem_only", {"memory": 100 * mib})),
                FailScheduling("both"), SchedulePod("mem_only", "ov"), SchedulePod("mem_only", "fm"),
                SchedulePod("cpu_only", "fc"), SchedulePod("cpu_only", "ov")],
               "filter", "resources"),
        cy._cy("fast_path.filters_per_node", "The other filters on seven nodes at once (a selector, taints shared "
               "and distinct, a cordon, a host port in use), for two pods of one shape in turn: each node is "
               "rejected by the first filter in profile order, and a node whose port is freed is judged anew",
               [*(ClusterAddNode(n) for n in others), CreatePod(_ports("hold", ContainerPort(80, 80))),
                CreatePod(_ports("hold2", ContainerPort(80, 80))), *cy.placed("hold", "p"),
                *cy.placed("hold2", "q"), CreatePod(selective), CreatePod(replace(selective, uid="s2", name="pod-s2")),
                FailScheduling("s"), DeletePod("hold"), SchedulePod("s", "p"), FailScheduling("s2"),
                ClusterUpdateNode(_sized("m", 4000, 4096, labels=FrozenMap(labelled))), SchedulePod("s2", "m")],
               "filter", "ports", "taints"),
    ]


def third_round_scenarios() -> list[Scenario]:
    """The third round (the cache and the dispatcher run alone, ``python -m mutation.run --package``): what the
    kubelet's ``NewNodeInfo(pods...)`` (pkg/kubelet/lifecycle/predicate.go) counts for the pods it already runs."""
    level = Pod("lvl", "pod-lvl", containers=(Container("c", resource_list(cpu=100)),),
                pod_level_requests=resources_from({"cpu": 1200}))
    return [
        cy._cy("kubelet.admitted_pod_level_requests", "The kubelet's NodeInfo (NewNodeInfo: NodeInfo.AddPod of each "
               "admitted pod) charges an admitted pod its pod-level cpu request, not its smaller container sum: "
               "after the node's allocatable shrinks, the second pod no longer fits beside it (OutOfcpu)",
               [ClusterAddNode(cy.node("n1", cpu=2000)), CreatePod(level), CreatePod(cy.pod("q", 700)),
                *cy.placed("lvl", "n1"), *cy.placed("q", "n1"), ClusterUpdateNode(cy.node("n1", cpu=1500)),
                AdmitPod("lvl"), AdmitPod("q")], "kubelet", "resources"),
    ]


def fourth_round_scenarios() -> list[Scenario]:
    """The fourth round (the scheduler's packages run alone, each vector starting with the caches a fresh process
    has): what the survivors listed as known gaps asked for. The rows the scheduler's search reads after
    ``UpdateSnapshot`` refreshed more entries than the snapshot's log keeps; a cordoned or tainted node that also
    has host ports in use; the kubelet's ``generalFilter`` (pkg/kubelet/lifecycle/predicate.go) for a pod asking one
    resource, the pod count and a node selector; ``fitsRequest`` (noderesources/fit.go) on a node overcommitted in a
    resource the pod does not ask for, on a node with one pod slot left once the kept verdicts are used up, and for
    pods asking ephemeral storage (Filter node by node); a toleration that does not match the unschedulable taint
    (``NodeUnschedulable.Filter``, nodeunschedulable/node_unschedulable.go)."""
    mib = 2**20

    relabelled = [ClusterUpdateNode(_sized("n1", 4000, 4096, labels=FrozenMap({"round": str(i)}))) for i in range(3)]
    cordoned = _sized("n2", 4000, 4096, unschedulable=True)
    unrelated = (Toleration("dedicated", "Equal", "gpu"),)
    selective = Pod("sel", "pod-sel", containers=(Container("c"),), node_selector=FrozenMap({"disk": "ssd"}))
    shapes = [_asks(f"k{i}", {"cpu": 10 + i, "memory": (10 + i) * mib}) for i in range(34)]
    return [
        cy._cy("fast_path.refreshed_log_lost", "UpdateSnapshot refreshes a node's entry in place each cycle; when "
               "the cycles between two searches refreshed more entries than the snapshot holds, the search still "
               "sees every change: a node cordoned three cycles ago rejects the pod (the cycles in between asked "
               "for a node that is not in the snapshot, so no search ran)",
               [ClusterAddNode(_sized("n1", 4000, 4096)), ClusterAddNode(_sized("n2", 4000, 4096)),
                CreatePod(_asks("a", {"cpu": 100})), CreatePod(_asks("b", {"cpu": 100})), SchedulePod("a", "n1"),
                ClusterUpdateNode(cordoned), SchedulePod("b", "nowhere"),
                *(op for update in relabelled for op in (update, SchedulePod("b", "nowhere"))),
                SchedulePod("b", "n2"), SchedulePod("b", "n1")],
               "filter"),
        cy._cy("fast_path.flags_beside_used_ports", "A node that is cordoned, or tainted, and has a host port in "
               "use: NodeUnschedulable and TaintToleration still reject a pod that does not tolerate it",
               [ClusterAddNode(_sized("u", 4000, 4096)), ClusterAddNode(_sized("t", 4000, 4096)),
                CreatePod(_ports("hu", ContainerPort(80, 80))), CreatePod(_ports("ht", ContainerPort(80, 80))),
                *cy.placed("hu", "u"), *cy.placed("ht", "t"),
                ClusterUpdateNode(_sized("u", 4000, 4096, unschedulable=True)),
                ClusterUpdateNode(_sized("t", 4000, 4096, taints=(Taint("k", "v"),))),
                CreatePod(_asks("p", {"cpu": 100})), SchedulePod("p", "u"), SchedulePod("p", "t")],
               "filter", "ports", "taints"),
        cy._cy("kubelet.admission_per_resource", "The kubelet's generalFilter for pods that were placed while the "
               "node was larger: a pod asking only 1m of cpu, or one byte of memory or of ephemeral storage, is "
               "OutOfcpu, OutOfmemory or OutOfephemeral-storage beside a pod holding all of it; a pod asking "
               "nothing is admitted while a pod slot is free and is OutOfpods once none is; a pod whose node "
               "selector the node's labels match is admitted",
               [ClusterAddNode(_sized("k", 4000, 4096, storage=2**31, labels=FrozenMap({"disk": "ssd"}))),
                CreatePod(_asks("fill", {"cpu": 1000, "memory": 1024 * mib, "ephemeral-storage": 2**30})),
                CreatePod(_asks("c1", {"cpu": 1})), CreatePod(_asks("m1", {"memory": 1})),
                CreatePod(_asks("s1", {"ephemeral-storage": 1})), CreatePod(_asks("e0", {})),
                CreatePod(_asks("e1", {})), CreatePod(selective),
                *(op for uid in ("fill", "c1", "m1", "s1", "e0", "e1", "sel") for op in cy.placed(uid, "k")),
                ClusterUpdateNode(_sized("k", 1000, 1024, pods=3, labels=FrozenMap({"disk": "ssd"}))),
                AdmitPod("fill"), AdmitPod("c1"), AdmitPod("m1"), AdmitPod("s1"), AdmitPod("sel"), AdmitPod("e0"),
                AdmitPod("e1")],
               "kubelet", "resources"),
        cy._cy("kubelet.admission_affinity_and_taints", "The kubelet's generalFilter after the node changed under "
               "pods placed on it: a pod whose node selector the node's labels no longer match fails NodeAffinity; "
               "a NoExecute taint the pod does not tolerate fails TaintToleration, one it tolerates does not, and "
               "a NoSchedule taint is not the kubelet's to check",
               [ClusterAddNode(_sized("n", 4000, 4096, labels=FrozenMap({"disk": "ssd"}))),
                CreatePod(selective), CreatePod(_asks("plain", {"cpu": 100})),
                CreatePod(Pod("tol", "pod-tol", containers=(Container("c", resource_list(cpu=100)),),
                              tolerations=(Toleration("k", "Equal", "v", "NoExecute"),))),
                *(op for uid in ("sel", "plain", "tol") for op in cy.placed(uid, "n")),
                ClusterUpdateNode(_sized("n", 4000, 4096, taints=(Taint("k", "v", "NoExecute"), Taint("s", "t")))),
                AdmitPod("tol"), AdmitPod("plain"), AdmitPod("sel")],
               "kubelet"),
        cy._cy("kubelet.admission_extended_resources", "The kubelet's removeMissingExtendedResources: a request, in "
               "a container or an init container, of an extended resource the node no longer has at all is "
               "dropped before generalFilter, so the pod is admitted; a request of one the node still has counts "
               "(OutOf<resource> once the others hold it)",
               [ClusterAddNode(Node("g", resources_from({"cpu": 4000, "memory": 2**32, "pods": 10, GPU: 4}))),
                ClusterAddNode(Node("h", resources_from({"cpu": 4000, "memory": 2**32, "pods": 10, GPU: 4}))),
                CreatePod(_asks("x", {GPU: 2})),
                CreatePod(Pod("y", "pod-y", containers=(Container("c", resource_list(cpu=100)),),
                              init_containers=(Container("i", resources_from({GPU: 1})),))),
                CreatePod(_asks("z", {GPU: 2})), CreatePod(_asks("w", {GPU: 1})),
                *cy.placed("x", "g"), *cy.placed("y", "g"), *cy.placed("z", "h"), *cy.placed("w", "h"),
                ClusterUpdateNode(Node("g", resources_from({"cpu": 4000, "memory": 2**32, "pods": 10}))),
                ClusterUpdateNode(Node("h", resources_from({"cpu": 4000, "memory": 2**32, "pods": 10, GPU: 2}))),
                AdmitPod("x"), AdmitPod("y"), AdmitPod("z"), AdmitPod("w")],
               "kubelet", "resources"),
        cy._cy("fast_path.fit_resource_not_asked_on_overcommitted_node", "fitsRequest checks only the resources a "
               "pod asks for: on a node whose allocatable cpu shrank below what its pods hold, a pod asking only "
               "memory fits, and so it does on a roomy node beside it",
               [ClusterAddNode(_sized("ov", 1000, 4096)), ClusterAddNode(_sized("roomy", 4000, 4096)),
                CreatePod(_asks("hold", {"cpu": 800})), *cy.placed("hold", "ov"),
                ClusterUpdateNode(_sized("ov", 500, 4096)),
                CreatePod(_asks("m1", {"memory": 100 * mib})), CreatePod(_asks("m2", {"memory": 100 * mib})),
                SchedulePod("m1", "roomy"), SchedulePod("m2", "ov")],
               "resources"),
        cy._cy("fast_path.fit_last_pod_slot_many_shapes", "fitsRequest's pod count for pods of many shapes: after "
               "more shapes than the reference implementation keeps verdicts for were rejected by a full node, a "
               "pod of a new shape still fits a node with one pod slot left",
               [ClusterAddNode(_sized("full", 4000, 4096, pods=1)), ClusterAddNode(_sized("one", 4000, 4096, pods=2)),
                CreatePod(_asks("h1", {"cpu": 100})), CreatePod(_asks("h2", {"cpu": 100})),
                *cy.placed("h1", "full"), *cy.placed("h2", "one"), *(CreatePod(p) for p in shapes),
                *(SchedulePod(p.uid, "full") for p in shapes[:-1]), SchedulePod(shapes[-1].uid, "one")],
               "filter", "resources", "pods"),
        cy._cy("fast_path.fit_storage_pods_node_by_node", "fitsRequest for pods asking ephemeral storage, which "
               "the reference implementation judges node by node: a node whose pod slots are all taken rejects one "
               "although every resource fits; a node whose pods hold some cpu, or memory, rejects a pod asking more "
               "than is free of it, though less than the allocatable",
               [ClusterAddNode(_sized("full", 4000, 4096, pods=1)), ClusterAddNode(_sized("cpu", 1000, 4096)),
                ClusterAddNode(_sized("mem", 4000, 1024)),
                CreatePod(_asks("h1", {"cpu": 100})), CreatePod(_asks("h2", {"cpu": 600})),
                CreatePod(_asks("h3", {"memory": 600 * mib})),
                *cy.placed("h1", "full"), *cy.placed("h2", "cpu"), *cy.placed("h3", "mem"),
                CreatePod(_asks("s1", {"ephemeral-storage": mib})),
                CreatePod(_asks("s2", {"cpu": 500, "ephemeral-storage": mib})),
                CreatePod(_asks("s3", {"memory": 500 * mib, "ephemeral-storage": mib})),
                SchedulePod("s1", "full"), SchedulePod("s2", "cpu"), SchedulePod("s3", "mem")],
               "filter", "resources", "pods"),
        cy._cy("fast_path.fit_storage_after_kept_verdicts", "fitsRequest for a pod asking ephemeral storage after a "
               "pod of the same cpu and memory without it was judged: the node lacking the storage rejects it "
               "(UnschedulableAndUnresolvable: more than its allocatable)",
               [ClusterAddNode(_sized("n1", 1000, 1024)), ClusterAddNode(_sized("full", 1000, 1024, pods=1)),
                CreatePod(_asks("h", {"cpu": 100})), *cy.placed("h", "full"), CreatePod(_asks("a", {"cpu": 100})),
                CreatePod(_asks("b", {"cpu": 100, "ephemeral-storage": 2**31})), SchedulePod("a", "n1"),
                SchedulePod("b", "n1")],
               "filter", "resources"),
        cy._cy("fast_path.fit_exact_allocatable_with_storage", "fitsRequest's code for pods asking ephemeral "
               "storage (judged node by node): asking exactly a node's allocatable cpu, memory or ephemeral storage "
               "while its pods hold some is Unschedulable, not UnschedulableAndUnresolvable",
               [ClusterAddNode(_sized("c", 1000, 4096)), ClusterAddNode(_sized("m", 4000, 1024)),
                ClusterAddNode(_sized("s", 4000, 4096, storage=2**30)),
                CreatePod(_asks("hc", {"cpu": 100})), CreatePod(_asks("hm", {"memory": 100 * mib})),
                CreatePod(_asks("hs", {"ephemeral-storage": 100 * mib})),
                *cy.placed("hc", "c"), *cy.placed("hm", "m"), *cy.placed("hs", "s"),
                CreatePod(_asks("ec", {"cpu": 1000, "ephemeral-storage": mib})),
                CreatePod(_asks("em", {"memory": 1024 * mib, "ephemeral-storage": mib})),
                CreatePod(_asks("es", {"ephemeral-storage": 2**30})),
                SchedulePod("ec", "c"), SchedulePod("em", "m"), SchedulePod("es", "s")],
               "filter", "resources"),
        cy._cy("fast_path.unschedulable_other_toleration", "NodeUnschedulable: a pod whose only toleration is for "
               "another taint does not tolerate node.kubernetes.io/unschedulable, so a cordoned node rejects it",
               [ClusterAddNode(cordoned), CreatePod(Pod("t", "pod-t", containers=(Container("c", resource_list(
                   cpu=100)),), tolerations=unrelated)), SchedulePod("t", "n2")],
               "filter"),
    ]


def decision_round_scenarios() -> list[Scenario]:
    """The fifth round (the decision joined the mutation scope): ``balancedResourceScorer`` skips a resource the node
    has none of (``if allocatable == 0 { continue }``, noderesources/balanced_allocation.go), so a pod asking only
    memory scores 100 on a node with no cpu at all, and the fraction of a resource at its allocatable is capped at
    1."""
    mib = 2**20
    no_cpu = Node("no-cpu", resource_list(cpu=0, memory=1024 * mib, pods=10))
    some_cpu = Node("some-cpu", resource_list(cpu=1000, memory=1024 * mib, pods=10))
    full = Node("full", resource_list(cpu=1000, memory=256 * mib, pods=10))
    memory_only = Pod("m", "pod-m", containers=(Container("c", resource_list(memory=512 * mib)),))
    big = Pod("b", "pod-b", containers=(Container("c", resource_list(cpu=500, memory=256 * mib)),))
    spread = TopologySpreadConstraint(1, "rack", DO_NOT_SCHEDULE, LabelSelector(FrozenMap({"app": "web"})))
    racks = [Node(f"r{i}", resource_list(cpu=4000, memory=4096 * mib, pods=10), labels=FrozenMap({"rack": rack}))
             for i, rack in enumerate(("", "a", "b"))]

    def web(uid: str, node: str = "") -> Pod:
        return Pod(uid, f"pod-{uid}", node_name=node, labels=FrozenMap({"app": "web"}),
                   containers=(Container("c", resource_list(cpu=100)),), topology_spread_constraints=(spread,))

    def racked(counts: tuple[int, int, int], *tries: str) -> list[CycleOperation]:
        ops: list[CycleOperation] = [ClusterAddNode(n) for n in racks]
        for rack, count in zip(racks, counts, strict=True):
            for k in range(count):
                uid = f"{rack.name}-{k}"
                ops += [CreatePod(web(uid)), *cy.placed(uid, rack.name)]
        return [*ops, CreatePod(web("new")), *(SchedulePod("new", name) for name in tries)]

    def hosts(*nodes: Node) -> list[CycleOperation]:
        return [ClusterAddNode(n) for n in nodes]

    def on(uid: str, node: str, labels: dict[str, str]) -> list[CycleOperation]:
        pod = Pod(uid, f"pod-{uid}", labels=FrozenMap(labels), containers=(Container("c", resource_list(cpu=100)),))
        return [CreatePod(pod), *cy.placed(uid, node)]

    def host(name: str, **fields: object) -> Node:
        labels = FrozenMap({"kubernetes.io/hostname": name, "zone": "z1", **fields.pop("labels", {})})  # type: ignore[dict-item]
        return Node(name, resource_list(cpu=4000, memory=4096 * mib, pods=10), labels=labels,
                    **fields)  # type: ignore[arg-type]

    web_selector = LabelSelector(FrozenMap({"app": "web"}))
    per_host = TopologySpreadConstraint(1, "kubernetes.io/hostname", DO_NOT_SCHEDULE, web_selector)
    honour_taints = replace(per_host, node_taints_policy="Honor")
    per_zone = TopologySpreadConstraint(1, "zone", DO_NOT_SCHEDULE, web_selector)

    def incoming(uid: str, *constraints: TopologySpreadConstraint, **fields: object) -> Pod:
        return Pod(uid, f"pod-{uid}", labels=FrozenMap({"app": "web"}), containers=(Container("c", resource_list(
            cpu=100)),), topology_spread_constraints=constraints, **fields)  # type: ignore[arg-type]

    ssd = {"disk": "ssd"}
    tainted = host("t", taints=(Taint("dedicated", "infra", "NoSchedule"),))
    policies = [
        cy._cy("filter.spread_node_affinity_policy_default_honours", "nodeAffinityPolicy unset is Honor "
               "(podtopologyspread/common.go): a node outside the pod's nodeSelector is no domain, so its zero "
               "matching pods are not the minimum and the pod fits beside one match on node a",
               [*hosts(host("a", labels=ssd), host("b", labels=ssd), host("c")), *on("w1", "a", {"app": "web"}),
                *on("w2", "b", {"app": "web"}), CreatePod(incoming("new", per_host, node_selector=FrozenMap(ssd))),
                SchedulePod("new", "a")], "topology-spread"),
        cy._cy("filter.spread_node_taints_policy_default_ignores", "nodeTaintsPolicy unset is Ignore: the tainted "
               "node t counts as a domain with no matching pod, so the minimum is 0 and node a, holding one, "
               "exceeds maxSkew 1",
               [*hosts(host("a"), host("b"), tainted), *on("w1", "a", {"app": "web"}), *on("w2", "b", {"app": "web"}),
                CreatePod(incoming("new", per_host)), SchedulePod("new", "a"), FailScheduling("new")],
               "topology-spread"),
        cy._cy("filter.spread_node_taints_policy_honour", "nodeTaintsPolicy Honor: the tainted node t the pod does not "
               "tolerate is no domain, so the minimum is 1 and node a fits",
               [*hosts(host("a"), host("b"), tainted), *on("w1", "a", {"app": "web"}), *on("w2", "b", {"app": "web"}),
                CreatePod(incoming("new", honour_taints)), SchedulePod("new", "a")], "topology-spread"),
        cy._cy("filter.spread_one_domain_min_domains_unset", "minDomains unset is 1: with every node in one zone "
               "the zone's own count is the minimum, so a third matching pod still fits (minDomains 2 would make "
               "the minimum 0)",
               [*hosts(host("a"), host("b")), *on("w1", "a", {"app": "web"}), *on("w2", "b", {"app": "web"}),
                CreatePod(incoming("new", per_zone)), SchedulePod("new", "a")], "topology-spread"),
    ]
    twin = [Pod(f"v{i}", f"pod-v{i}", containers=(Container("c", resource_list(cpu=300, memory=100 * mib)),))
            for i in (1, 2)]
    critical = Pod("crit", "pod-crit", containers=(Container("c", resource_list(cpu=300)),),
                   priority=SYSTEM_CRITICAL_PRIORITY)
    twins: list[CycleOperation] = [ClusterAddNode(Node("k1", resource_list(cpu=2000, memory=1024 * mib, pods=10)))]
    for p in [*twin, critical]:
        twins += [CreatePod(p), *cy.placed(p.uid, "k1")]
    twins += [ClusterUpdateNode(Node("k1", resource_list(cpu=700, memory=1024 * mib, pods=10))),
              AdmitPod("v1"), AdmitPod("v2"), AdmitPod("crit")]
    db = Pod("db", "pod-db", labels=FrozenMap({"app": "db"}), containers=(Container("c", resource_list(cpu=100)),))
    zoned = [Node(f"z{i}", resource_list(cpu=4000, memory=4096 * mib, pods=10),
                  labels=FrozenMap({"zone": zone})) for i, zone in enumerate(("z1", "z2"))]
    two_terms = AffinityTerms(preferred_terms=(
        WeightedPodAffinityTerm(50, PodAffinityTerm(LabelSelector(FrozenMap({"app": "db"})), topology_key="zone")),
        WeightedPodAffinityTerm(30, PodAffinityTerm(LabelSelector(FrozenMap({"app": "none"})),
                                                    topology_key="zone"))))
    seeker = Pod("seek", "pod-seek", containers=(Container("c", resource_list(cpu=100)),), pod_affinity=two_terms)
    return [
        cy._cy("kubelet.critical_pod_evicts_the_later_of_equals", "getPodsToPreemptByDistance: among pods at the "
               "same distance with equal requests the later one replaces the best (smallerResourceRequest is true "
               "for equal requests, pkg/kubelet/preemption/preemption.go), so v2, not v1, is evicted",
               twins, "kubelet", "critical-pod"),
        cy._cy("score.inter_pod_affinity_scores_when_only_an_earlier_term_matches", "InterPodAffinity's PreScore "
               "scores when any term found a match (the last one need not): the first preferred term matches the db "
               "pod in zone z1, the second matches nothing",
               [*(ClusterAddNode(n) for n in zoned), CreatePod(db), *cy.placed("db", "z0"), CreatePod(seeker),
                SchedulePod("seek", "z0")], "affinity"),
        *policies,
        cy._cy("filter.spread_domain_with_empty_value_least", "PodTopologySpread's critical paths start as two "
               "paths named \"\" (criticalPaths, podtopologyspread/common.go): a domain whose label value is empty "
               "updates the first in place; with the fewest matching pods it is the minimum, so only its node is "
               "within maxSkew", racked((0, 1, 1), "r1", "r0"), "topology-spread"),
        cy._cy("filter.spread_domain_with_empty_value_most", "The domain named by the empty label value holds the "
               "most matching pods: the minimum is another domain's, and the empty one's node exceeds maxSkew",
               racked((1, 0, 1), "r0", "r2", "r1"), "topology-spread"),
        cy._cy("score.balanced_allocation_skips_absent_resource", "NodeResourcesBalancedAllocation leaves out a "
               "resource the node has none of (no cpu allocatable): the memory-only pod's one fraction has no spread "
               "(score 100); on a node with cpu, cpu's fraction 0 against memory's 0.5 lowers it; a pod filling a "
               "node's memory exactly has that fraction at 1",
               [ClusterAddNode(no_cpu), ClusterAddNode(some_cpu), ClusterAddNode(full), CreatePod(memory_only),
                SchedulePod("m", "no-cpu"), CreatePod(big), SchedulePod("b", "full")], "score"),
        *gap_round_scenarios(),
    ]


def gap_round_scenarios() -> list[Scenario]:
    """The two known gaps of the decision round, closed: a pod whose only request is pod-level memory is Burstable
    to the kubelet's critical-pod admission (``GetPodQOS``), and InterPodAffinity's PreScore keeps an earlier pair's
    score when a later existing pod's required term meets a node without its topology key."""
    mib = 2**20
    pod_level = Pod("x", "pod-x", pod_level_requests=resource_list(memory=200 * mib))
    small = Pod("z", "pod-z", containers=(Container("c", resource_list(memory=100 * mib)),))
    critical = Pod("crit", "pod-crit", containers=(Container("c", resource_list(memory=300 * mib)),),
                   priority=SYSTEM_CRITICAL_PRIORITY)
    kubelet: list[CycleOperation] = [ClusterAddNode(Node("k1", resource_list(cpu=2000, memory=1024 * mib, pods=10)))]
    for p in (pod_level, small, critical):
        kubelet += [CreatePod(p), *cy.placed(p.uid, "k1")]
    kubelet += [ClusterUpdateNode(Node("k1", resource_list(cpu=2000, memory=500 * mib, pods=10))),
                AdmitPod("x"), AdmitPod("z"), AdmitPod("crit")]

    zone = {"zone": "z1"}
    a = Node("a", resource_list(cpu=4000, memory=4096 * mib, pods=10), labels=FrozenMap({"host": "a", **zone}))
    b = Node("b", resource_list(cpu=4000, memory=4096 * mib, pods=10), labels=FrozenMap({"host": "b", **zone}))
    wanted = LabelSelector(FrozenMap({"app": "in"}))
    prefers = Pod("e1", "pod-e1", labels=FrozenMap({"app": "other"}), pod_affinity=AffinityTerms(preferred_terms=(
        WeightedPodAffinityTerm(10, PodAffinityTerm(wanted, topology_key="zone")),)))
    requires = Pod("e2", "pod-e2", labels=FrozenMap({"app": "in"}), pod_affinity=AffinityTerms(required_terms=(
        PodAffinityTerm(wanted, topology_key="zone"),)))
    incoming = Pod("p", "pod-p", labels=FrozenMap({"app": "in"}))
    affinity: list[CycleOperation] = [ClusterAddNode(a), ClusterAddNode(b), CreatePod(prefers), *cy.placed("e1", "a"),
                                      CreatePod(requires), *cy.placed("e2", "b"),
                                      ClusterUpdateNode(replace(b, labels=FrozenMap({"host": "b"}))),
                                      CreatePod(incoming), SchedulePod("p", "a")]
    return [
        cy._cy("kubelet.critical_pod_pod_level_memory_is_burstable", "GetPodQOS: a pod whose only request is "
               "pod-level memory is Burstable, not BestEffort, so the critical pod's victims are chosen among the "
               "burstable pods by distance, and the smaller request of two that each free enough wins: z, not x "
               "(as best-effort, x alone would be evicted first)", kubelet, "kubelet", "critical-pod"),
        cy._cy("score.inter_pod_affinity_required_term_without_topology_key", "InterPodAffinity's PreScore: e1's "
               "preferred term scores zone z1 for the pod; e2's required term also selects it, but e2's node b lost "
               "its zone label since e2 was placed, so that term adds nothing, and the pod is still scored "
               "(processExistingPod, interpodaffinity/scoring.go)", affinity, "affinity"),
    ]


def classification_round_scenarios() -> list[Scenario]:
    """The sixth round (issue 24): the survivors the CI sample of 1,467 vectors listed as not classified yet that a
    vector can tell apart. ``normalizedImageName`` looks for a tag after the last '/' only; ImageLocality and
    NodeResourcesFit scored for more pod shapes than the reference implementation keeps columns for (16 image names,
    32 request shapes); ``countPodsMatchSelector`` counts nothing for an empty selector; ``criticalPaths.update``
    swaps when the domain named "" is updated in place below the first path; and an existing pod's required term
    selects the incoming pod's namespace by its labels (``hardPodAffinityWeight``)."""
    mib = 2**20

    def roomy(name: str, *images: str, **labels: str) -> Node:
        return Node(name, resource_list(cpu=64000, memory=64 * 1024 * mib, pods=110), labels=FrozenMap(labels),
                    images=tuple(ContainerImage((image,), 300 * mib) for image in images))

    def one_image(uid: str, image: str) -> Pod:
        return Pod(uid, f"pod-{uid}", containers=(Container("c", resource_list(cpu=100), image=image),))

    tagged_in_path = "registry.example/team:blue/app"
    images = [f"registry.example/app{i}:v1" for i in range(18)]
    many_images: list[CycleOperation] = [ClusterAddNode(roomy("held", *images)), ClusterAddNode(roomy("bare"))]
    for i, image in enumerate(images):
        many_images += [CreatePod(one_image(f"i{i}", image)), SchedulePod(f"i{i}", "held")]
    no_cpu = Node("no-cpu", resource_list(cpu=0, memory=64 * 1024 * mib, pods=110))
    shapes: list[CycleOperation] = [ClusterAddNode(roomy("s1")), ClusterAddNode(roomy("s2")), ClusterAddNode(no_cpu)]
    for i in range(36):
        shapes += [CreatePod(_asks(f"q{i}", {"cpu": 100 + 50 * i, "memory": (64 + 16 * i) * mib})),
                   SchedulePod(f"q{i}", "s1" if i % 2 else "s2")]
    for i in range(2):
        shapes += [CreatePod(_asks(f"m{i}", {"memory": (100 + 50 * i) * mib})), SchedulePod(f"m{i}", "no-cpu")]

    anywhere = TopologySpreadConstraint(1, "kubernetes.io/hostname", DO_NOT_SCHEDULE, LabelSelector())
    hosts = [roomy(name, **{"kubernetes.io/hostname": name}) for name in ("a", "b")]
    plain = [Pod(uid, f"pod-{uid}", labels=FrozenMap({"app": "web"}), containers=(Container("c", resource_list(
        cpu=100)),)) for uid in ("w1", "w2")]
    spread_everything = Pod("new", "pod-new", labels=FrozenMap({"app": "web"}), containers=(Container(
        "c", resource_list(cpu=100)),), topology_spread_constraints=(anywhere,))

    per_rack = TopologySpreadConstraint(1, "rack", DO_NOT_SCHEDULE, LabelSelector(FrozenMap({"app": "web"})))
    racks = [roomy(f"r{i}", rack=rack) for i, rack in enumerate(("a", "", "b"))]
    racked: list[CycleOperation] = [ClusterAddNode(n) for n in racks]
    for uid, rack in (("ra", "r0"), ("rb", "r2")):
        racked += [CreatePod(Pod(uid, f"pod-{uid}", labels=FrozenMap({"app": "web"}), containers=(Container(
            "c", resource_list(cpu=100)),), topology_spread_constraints=(per_rack,))), *cy.placed(uid, rack)]
    racked += [CreatePod(Pod("new", "pod-new", labels=FrozenMap({"app": "web"}), containers=(Container(
        "c", resource_list(cpu=100)),), topology_spread_constraints=(per_rack,))), SchedulePod("new", "r0"),
        SchedulePod("new", "r1")]

    team1 = LabelSelector(match_expressions=(LabelSelectorRequirement("team", "In", ("team1",)),))
    hard = AffinityTerms(required_terms=(PodAffinityTerm(LabelSelector(match_expressions=(
        LabelSelectorRequirement("service", "In", ("S1",)),)), ("default", "subteam2.team2"), "region", team1),))
    china, india = roomy("node1", region="China"), roomy("node2", region="India")
    az1 = roomy("node3", az="az1")
    existing = Pod("e1", "pod-e1", labels=FrozenMap({"service": "S1"}), containers=(Container("c"),),
                   pod_affinity=hard)
    incoming = Pod("in", "pod-in", namespace="subteam1.team1", labels=FrozenMap({"service": "S1"}),
                   containers=(Container("c"),))
    return [
        cy._cy("score.image_locality_tag_only_after_the_last_slash", "normalizedImageName "
               "(imagelocality/image_locality.go) appends \":latest\" unless a ':' follows the last '/': an image "
               "whose only ':' is inside its path is untagged, so it matches the node's image of that name with "
               "\":latest\" (TestNormalizedImageName's rule, image_locality_test.go)",
               [ClusterAddNode(roomy("held", tagged_in_path + ":latest")), ClusterAddNode(roomy("bare")),
                CreatePod(one_image("p", tagged_in_path)), SchedulePod("p", "held")], "score"),
        cy._cy("score.image_locality_many_single_images", "ImageLocality scores eighteen pods of one image each, "
               "one after another on the same two nodes (sumImageScores, imagelocality/image_locality.go): the node "
               "holding each image scores it, the other 0; the reference implementation keeps image columns for 16 "
               "names and scores the others node by node", many_images, "score"),
        cy._cy("score.least_allocated_many_pod_shapes", "NodeResourcesFit's LeastAllocated score "
               "(noderesources/least_allocated.go) for thirty-six pods of as many shapes, one after another on the "
               "same two nodes (a third, without cpu, rejects them), then two pods asking only memory, which the node "
               "without cpu scores by memory alone (leastResourceScorer skips a resource of allocatable 0): the "
               "reference implementation keeps scores for 32 shapes (its memo columns) and scores the others from the "
               "rows' figures", shapes, "score", "resources"),
        cy._cy("filter.spread_empty_selector_counts_nothing", "countPodsMatchSelector "
               "(podtopologyspread/common.go) counts no pod for an empty label selector (Selector.Empty()), though the "
               "selector matches every pod: node a, holding two pods, is no more skewed than node b, and the pod, "
               "which the selector matches (selfMatchNum 1), fits on a",
               [*(ClusterAddNode(n) for n in hosts), *(op for p in plain for op in (CreatePod(p), *cy.placed(
                   p.uid, "a"))), CreatePod(spread_everything), SchedulePod("new", "a")], "topology-spread"),
        cy._cy("filter.spread_empty_value_domain_updated_second", "criticalPaths.update (podtopologyspread/"
               "common.go) on the domain named by the empty label value after another domain: it updates the second "
               "path in place and, holding fewer matching pods, swaps it first, so the minimum is 0 and racks a and "
               "b, holding one each, exceed maxSkew 1 while the empty rack's node fits", racked, "topology-spread"),
        cy._cy("score.inter_pod_affinity_hard_weight_namespace_selector", "TestPreferredAffinityWithHardPodAffinity"
               "SymmetricWeight's \"with matching NamespaceSelector\" (interpodaffinity/scoring_test.go), made "
               "placeable: the existing pod's required term names its own namespace (Go's \"\", here \"default\") and "
               "subteam2.team2 and selects team=team1 namespaces by label; the incoming pod's namespace "
               "subteam1.team1 is selected by its labels, so hardPodAffinityWeight 1 scores region China (the "
               "existing pod is service=S1 itself, so the scheduler places it; Go's test puts two there directly, one "
               "of which could not be placed)",
               [ClusterAddNamespace(Namespace("subteam1.team1", FrozenMap({"team": "team1"}))),
                ClusterAddNode(china), ClusterAddNode(india), ClusterAddNode(az1), CreatePod(existing),
                *cy.placed("e1", "node1"), CreatePod(incoming), SchedulePod("in", "node1")], "affinity", "namespaces"),
    ]


def curated() -> list[Scenario]:
    """Every scenario of this module."""
    return [*cache_scenarios(), *accounting_scenarios(), *dispatcher_scenarios(), *cycle_scenarios(),
            *gap_scenarios(), *fast_path_scenarios(), *third_round_scenarios(), *fourth_round_scenarios(),
            *decision_round_scenarios(), *classification_round_scenarios()]
