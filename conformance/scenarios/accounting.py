"""Curated scenarios of pod and node shapes: the accounting rules a cache must get right (issue 13).

Each scenario charges pods of one family of shapes to a node and releases them, so the ``requested``,
``non_zero_requested``, ``used_ports``, ``pvc_ref_counts`` and affinity lists of every step show the rule: init
containers (plain and sidecar, in several orders and sizes), overhead, pod-level requests, explicit zero requests,
resource names of every class, host ports with IPs and protocols, claims, nil versus empty affinity; nodes with GA
and beta zone and region labels, zone changes, re-adds, removals, shared images and stale objects; and the same
shapes through the scheduling cycle's filters. Expected outcomes come from the spec (:func:`conformance.traces.expand`).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Final

from conformance.operations import ClusterAddNode, ClusterUpdateNode, CreatePod, FailScheduling, SchedulePod
from conformance.scenarios.cycle import placed
from conformance.scenarios.shapes import GI, MI, container, host_port, node, zone_labels
from conformance.traces import Scenario
from spec.cache.operations import (
    AddNode,
    AddPod,
    AssumePod,
    ForgetPod,
    RemoveNode,
    RemovePod,
    UpdateNode,
    UpdatePod,
    UpdateSnapshot,
)
from spec.objects import (
    PROTOCOL_SCTP,
    PROTOCOL_TCP,
    PROTOCOL_UDP,
    AffinityTerms,
    Container,
    ContainerImage,
    Pod,
    with_node_name,
)
from spec.quantities import resources_from

GPU: Final = "example.com/gpu"
HUGE: Final = "hugepages-2Mi"
N1: Final = node("n1", extra={GPU: 4, HUGE: 64 * MI})
S: Final = UpdateSnapshot()


def pod(uid: str, *containers: Container, init: tuple[Container, ...] = (), node_name: str = "n1",
        **fields: Any) -> Pod:
    """A pod on ``node_name`` with the given containers and init containers."""
    return Pod(uid, f"pod-{uid}", node_name=node_name, containers=containers, init_containers=init, **fields)


def lifecycle(*pods: Pod) -> list[object]:
    """Add node n1, assume each pod, confirm the first, remove each: every step shows the charge or release."""
    ops: list[object] = [AddNode(N1)]
    ops += [AssumePod(p) for p in pods]
    ops += [AddPod(pods[0])] if pods else []
    ops += [RemovePod(p) for p in pods]
    return ops


def _acc(sid: str, description: str, ops: list[object], *labels: str, area: str = "cache") -> Scenario:
    return Scenario(f"{area}.accounting.{sid}", description, ops, area=area, behaviours=("accounting", *labels))


def resource_scenarios() -> list[Scenario]:
    """Request computation: init containers, sidecars, overhead, pod-level requests, zeros, resource names."""
    plain_small = pod("a", container(cpu=500, memory=256 * MI), init=(container("i", cpu=200, memory=64 * MI),))
    plain_big = pod("b", container(cpu=100, memory=64 * MI), init=(container("i", cpu=700, memory=512 * MI),))
    plain_mixed = pod("c", container(cpu=400, memory=64 * MI), init=(container("i", cpu=100, memory=900 * MI),))
    two_inits = pod("d", container(cpu=100), init=(container("i1", cpu=300), container("i2", cpu=600, memory=MI)))
    sidecar_only = pod("e", container(cpu=100, memory=64 * MI), init=(container("s", cpu=50, memory=16 * MI,
                                                                                 sidecar=True),))
    sidecar_then_init = pod("f", container(cpu=100, memory=64 * MI),
                            init=(container("s", cpu=100, memory=32 * MI, sidecar=True),
                                  container("i", cpu=250, memory=128 * MI)))
    init_then_sidecar = pod("g", container(cpu=100, memory=64 * MI),
                            init=(container("i", cpu=250, memory=128 * MI),
                                  container("s", cpu=100, memory=32 * MI, sidecar=True)))
    sidecars_around = pod("h", container(cpu=50),
                          init=(container("s1", cpu=60, sidecar=True), container("i", cpu=100, memory=MI),
                                container("s2", cpu=70, memory=2 * MI, sidecar=True), container("j", cpu=20)))
    sidecars_no_requests = pod("k", container(), init=(container("s1", sidecar=True), container("s2", sidecar=True)))
    overhead = pod("o", container(cpu=100, memory=64 * MI), overhead=resources_from({"cpu": 250, "memory": 32 * MI}))
    overhead_defaults = pod("p", container(), overhead=resources_from({"cpu": 10, "memory": MI}))
    level_both = pod("q", container(cpu=100, memory=64 * MI), container("c2", cpu=100),
                     pod_level_requests=resources_from({"cpu": 900, "memory": 512 * MI}))
    level_cpu = pod("r", container(), init=(container("i", memory=128 * MI),),
                    pod_level_requests=resources_from({"cpu": 700}))
    level_unsupported = pod("s", container(cpu=100, extra={"ephemeral-storage": 5 * MI}),
                            pod_level_requests=resources_from({"ephemeral-storage": GI, GPU: 2}))
    level_huge = pod("t", container(cpu=100, extra={HUGE: 2 * MI}), overhead=resources_from({"cpu": 5}),
                     pod_level_requests=resources_from({"cpu": 300, HUGE: 8 * MI}))
    zero = pod("z", container(cpu=0, memory=0), container("c2", cpu=0))
    zero_init = pod("y", container(memory=0), init=(container("i", cpu=0),))
    names = pod("n", container(cpu=100, extra={GPU: 2, HUGE: 4 * MI, "kubernetes.io/batch": 3,
                                               "attachable-volumes-aws-ebs": 1, "foo": 5,
                                               "requests.example.com/x": 7, "ephemeral-storage": 3 * GI}))
    return [
        _acc("init.max_not_sum", "AggregateContainerRequests: init containers run one at a time, so the request "
             "is the element-wise maximum of the containers' sum and each init container, never their sum",
             lifecycle(plain_small, plain_big, plain_mixed, two_inits), "resources"),
        _acc("sidecar.orders", "Sidecar (restartable) init containers join the sum and run alongside the init "
             "containers after them, not before them; several orders and sizes",
             lifecycle(sidecar_only, sidecar_then_init, init_then_sidecar, sidecars_around, sidecars_no_requests),
             "resources"),
        _acc("overhead", "PodRequests adds the overhead to the requests and to the non-zero figures",
             lifecycle(overhead, overhead_defaults), "resources"),
        _acc("pod_level_requests", "PodLevelResources: pod-level cpu, memory and hugepages replace the containers' "
             "aggregate; other pod-level names are ignored; the non-zero defaults apply only to what the pod "
             "requests nowhere", lifecycle(level_both, level_cpu, level_unsupported, level_huge), "resources"),
        _acc("explicit_zero", "applyNonMissing: an explicit request of 0 stays 0 in NonZeroRequested; a missing one "
             "counts the default", lifecycle(zero, zero_init), "resources", "non-zero-requests"),
        _acc("resource_names", "Resource.Add: extended, hugepages, kubernetes.io-prefixed and attachable-volumes "
             "names are scalars; a name without a domain, or one prefixed requests., is not charged",
             lifecycle(names), "resources"),
    ]


def claim_port_affinity_scenarios() -> list[Scenario]:
    """Host ports, claims and the affinity lists."""
    tcp = pod("a", container(ports=(host_port(8080), host_port(8080, PROTOCOL_UDP), host_port(0, container_port=81),
                                    host_port(9090, PROTOCOL_SCTP, "10.0.0.1"))))
    same = pod("b", container(ports=(host_port(8080, PROTOCOL_TCP, "0.0.0.0"), host_port(8080, PROTOCOL_TCP,
                                                                                          "127.0.0.1"))))
    inits = pod("c", container(cpu=10), init=(container("i", ports=(host_port(7000),)),
                                              container("s", sidecar=True, ports=(host_port(7001, PROTOCOL_UDP),))))
    claims = pod("d", container(), pvc_claims=("data", "data", "logs"))
    other_ns = replace(pod("e", container(), pvc_claims=("data",)), namespace="other")
    same_claim = pod("f", container(), pvc_claims=("logs",))
    nil = pod("g", container())
    empty = pod("h", container(), pod_affinity=AffinityTerms())
    empty_anti = pod("i", container(), pod_anti_affinity=AffinityTerms())
    preferred = pod("j", container(), pod_anti_affinity=AffinityTerms(preferred=2))
    required = pod("k", container(), pod_affinity=AffinityTerms(required=1),
                   pod_anti_affinity=AffinityTerms(required=1, preferred=1))
    stale = replace(required, pod_affinity=None, pod_anti_affinity=None)
    return [
        _acc("host_ports", "HostPortInfo: host IPs default to 0.0.0.0 and protocols to TCP; TCP, UDP and SCTP on one "
             "port are separate entries; ports without a host port, and plain init containers' ports, are not "
             "recorded, sidecars' are; removing one of two pods on a port frees it",
             [*lifecycle(tcp, same, inits)[:-3], RemovePod(same), RemovePod(tcp), RemovePod(inits)], "ports"),
        _acc("claims", "PVCRefCounts: a claim named twice in one pod counts twice; the key is namespace/claim; "
             "counts reaching 0 are deleted", [*lifecycle(claims, other_ns, same_claim), S], "pvc"),
        _acc("affinity_nil_vs_empty", "podWithAffinity: an empty (non-nil) affinity lists the pod, a nil one does "
             "not; preferred-only anti-affinity is not required", [*lifecycle(nil, empty, empty_anti, preferred,
                                                                             required)[:-5], S, RemovePod(empty),
                                                                  RemovePod(required), S], "affinity"),
        _acc("affinity_pruned_by_argument", "NodeInfo.RemovePod prunes the affinity lists by the removed object's "
             "spec: an update whose old object lacks the affinity leaves the stale entries",
             [AddNode(N1), AddPod(required), UpdatePod(stale, required), S, RemovePod(required), S], "affinity"),
    ]


IMAGE: Final = ContainerImage(("nginx:1", "docker.io/nginx:1"), 100 * MI)


def zone_node(name: str, images: tuple[ContainerImage, ...] = (), **labels: Any) -> Any:
    return node(name, labels=zone_labels(**labels), images=images)


def node_scenarios() -> list[Scenario]:
    """Zone and region labels, zone changes, re-adds, removals, shared images and stale objects."""
    ga = zone_node("a", zone="z1", region="r1")
    beta = zone_node("b", beta_zone="z1", beta_region="r1")
    both = zone_node("c", zone="z9", beta_zone="z2", region="r1")
    region_only = zone_node("d", region="r2")
    plain = zone_node("e")
    second = zone_node("f", zone="z1", region="r1")
    moved = zone_node("a", zone="z3", region="r1")
    shared = (ContainerImage(("nginx:1",), 120 * MI), ContainerImage(("redis:7",), 30 * MI))
    return [
        _acc("zone_labels", "GetZoneKey: GA and beta zone and region labels; the beta label wins; a region without "
             "a zone and a node without labels have zone keys of their own; the list is round-robin across zones",
             [AddNode(ga), AddNode(beta), AddNode(both), AddNode(region_only), AddNode(plain), AddNode(second), S],
             "zones", area="node_tree"),
        _acc("beta_labels_win", "GetZoneKey reads the beta zone and region labels first: a node whose GA and beta "
             "labels differ shares the zone of the nodes labelled like its beta labels",
             [AddNode(ga), AddNode(both), AddNode(second), AddNode(zone_node("x", zone="z2", region="r1")),
              AddNode(zone_node("y", zone="z9", region="r1")),
              AddNode(zone_node("w", zone="z1", region="r9", beta_region="r1")), S], "zones", area="node_tree"),
        _acc("zone_dropped_and_recreated", "A zone left empty is dropped: when a node of that zone returns, the "
             "zone is created again at the end of the zone order",
             [AddNode(zone_node("p", zone="z7")), AddNode(zone_node("q", zone="z8")), S,
              RemoveNode(zone_node("p", zone="z7")), AddNode(zone_node("d", zone="z4")), S,
              AddNode(zone_node("p", zone="z7")), S],
             "zones", area="node_tree"),
        _acc("zone_change_then_new_node", "A zone change moves the node to the end of its new zone; the snapshot's "
             "list follows only at the next full rebuild (a node added)",
             [AddNode(ga), AddNode(second), AddNode(beta), S, UpdateNode(ga, moved), S, AddNode(plain), S,
              UpdateNode(moved, replace(moved, labels=zone_labels(beta_zone="z1", zone="z3", beta_region="r1"))), S],
             "zones", area="node_tree"),
        _acc("readd_and_remove", "Nodes removed and re-added, in the same zone and in another, with and without a "
             "snapshot between; removing the last node of a zone drops the zone",
             [AddNode(ga), AddNode(beta), AddNode(plain), S, RemoveNode(ga), AddNode(ga), S, RemoveNode(beta), S,
              RemoveNode(plain), AddNode(zone_node("e", zone="z5")), S, AddNode(ga), S], "zones", area="node_tree"),
        _acc("stale_objects", "Stale old objects: UpdateNode from an old object in another zone enters the node "
             "twice; RemoveNode with a stale zone fails after changing the NodeInfo; with stale images it releases "
             "the images the object lists",
             [AddNode(ga), AddNode(zone_node("g", (IMAGE,), zone="z2")), S,
              UpdateNode(zone_node("a", zone="z7"), zone_node("a", zone="z8")), S,
              RemoveNode(zone_node("g", zone="z9")), S, RemoveNode(zone_node("g", (IMAGE,), zone="z2")), S],
             "zones", "error-after-change", area="node_tree"),
        _acc("images_shared", "Image states: names shared across nodes count them; the size first reported is "
             "kept; an image with two names has a summary per name; a node update releases the images it no "
             "longer lists; the last node leaving deletes the summary; a ghost keeps an orphaned summary",
             [AddNode(zone_node("a", (IMAGE,))), AddNode(zone_node("b", shared)), S,
              AddPod(pod("p", container(), node_name="b")),
              UpdateNode(zone_node("b", shared), zone_node("b", shared[1:])), S, RemoveNode(zone_node("a", (IMAGE,))),
              RemoveNode(zone_node("b", shared[1:])), AddNode(zone_node("c", (IMAGE,))), S], "images"),
    ]


def snapshot_scenarios() -> list[Scenario]:
    """The incremental snapshot's rebuild conditions, without a node added or removed."""
    aff = pod("a", container(), pod_affinity=AffinityTerms(required=1))
    anti = pod("b", container(), node_name="n2", pod_anti_affinity=AffinityTerms(required=1))
    claim = pod("c", container(), pvc_claims=("one",))
    other = pod("d", container(), pvc_claims=("two",))
    n2 = node("n2")
    return [
        _acc("lists_rebuilt_without_new_nodes", "UpdateSnapshot rebuilds the affinity lists and the used-PVC set "
             "when a node starts or stops having such pods, though no node was added (no full rebuild)",
             [AddNode(N1), AddNode(n2), S, AddPod(aff), S, AddPod(anti), S, AddPod(claim), S, RemovePod(claim),
              AddPod(other), S, RemovePod(aff), RemovePod(anti), S], "affinity", "pvc", area="snapshot"),
        _acc("non_live_skipped_with_an_inflated_tree", "Placeholders and ghosts are never cloned into the snapshot, "
             "also when the node tree holds a name twice (errata quirk), so removeDeletedNodesFromSnapshot would not "
             "remove them again", [AddNode(zone_node("a", zone="z1")), AddNode(zone_node("a", zone="z2")),
                                   AddPod(pod("p", container(cpu=10), node_name="x")), S,
                                   AddPod(pod("q", container(cpu=10), node_name="a")), S],
             "placeholder", "quirk", area="snapshot"),
        _acc("changed_and_unchanged_entries", "Only entries newer than the snapshot are cloned again; an update of "
             "an older node's pods leaves the other entries as they were",
             [AddNode(N1), AddNode(n2), S, AddPod(pod("e", container(cpu=100), node_name="n2")), S, S,
              AssumePod(pod("f", container(cpu=200))), ForgetPod(pod("f", container(cpu=200))), S],
             area="snapshot"),
    ]


def cycle_scenarios() -> list[Scenario]:
    """The same shapes through the scheduling cycle's filters."""
    small = node("small", cpu=1000, memory=GI, pods=10, extra={"ephemeral-storage": 10 * GI, GPU: 1})

    def cy(sid: str, description: str, ops: list[object], *labels: str) -> Scenario:
        return _acc(sid, description, ops, "filter", *labels, area="cycle")

    def unscheduled(p: Pod) -> Pod:
        return with_node_name(p, "")

    return [
        cy("fit_by_init_peak_and_sidecars", "NodeResourcesFit charges the init containers' peak and the sidecars' "
           "sum: a pod whose init container alone needs the free cpu fits; one whose sidecar pushes the sum over "
           "does not", [ClusterAddNode(small),
                        CreatePod(unscheduled(pod("a", container(cpu=200), init=(container("i", cpu=900),)))),
                        CreatePod(unscheduled(pod("b", container(cpu=600), init=(container("s", cpu=500,
                                                                                            sidecar=True),)))),
                        SchedulePod("b", "small"), *placed("a", "small")], "resources"),
        cy("fit_resources_by_name", "NodeResourcesFit checks memory, ephemeral storage and extended resources "
           "against Allocatable minus Requested; overhead and pod-level requests count",
           [ClusterAddNode(small),
            CreatePod(unscheduled(pod("m", container(memory=2 * GI)))),
            CreatePod(unscheduled(pod("e", container(extra={"ephemeral-storage": 20 * GI})))),
            CreatePod(unscheduled(pod("g", container(extra={GPU: 2})))),
            CreatePod(unscheduled(pod("o", container(cpu=900), overhead=resources_from({"cpu": 200})))),
            CreatePod(unscheduled(pod("l", container(cpu=100), pod_level_requests=resources_from({"cpu": 1200})))),
            FailScheduling("m"), FailScheduling("e"), FailScheduling("g"), FailScheduling("o"), FailScheduling("l")],
           "resources"),
        cy("fit_requested_not_non_zero", "NodeResourcesFit subtracts Requested, not NonZeroRequested: pods without "
           "requests leave the node's cpu free; a pod requesting nothing is checked only for the pod count",
           [ClusterAddNode(node("n", cpu=1000, pods=3)), CreatePod(unscheduled(pod("a", container()))),
            CreatePod(unscheduled(pod("b", container(cpu=1000)))), CreatePod(unscheduled(pod("c", container()))),
            *placed("a", "n"), *placed("b", "n"), *placed("c", "n")], "resources"),
        cy("host_port_conflicts", "NodePorts: the same IP, protocol and port conflict; another specific IP or "
           "another protocol does not; 0.0.0.0 conflicts with every IP",
           [ClusterAddNode(node("n")), ClusterAddNode(node("m")),
            CreatePod(unscheduled(pod("a", container(ports=(host_port(80, host_ip="10.0.0.1"),))))),
            CreatePod(unscheduled(pod("b", container(ports=(host_port(80, host_ip="10.0.0.1"),))))),
            CreatePod(unscheduled(pod("c", container(ports=(host_port(80, host_ip="10.0.0.2"),))))),
            CreatePod(unscheduled(pod("d", container(ports=(host_port(80, PROTOCOL_UDP, "10.0.0.1"),))))),
            CreatePod(unscheduled(pod("e", container(ports=(host_port(80),))))),
            SchedulePod("a", "n"), SchedulePod("b", "n"), SchedulePod("c", "n"), SchedulePod("d", "n"),
            SchedulePod("e", "n"), SchedulePod("e", "m")], "ports"),
        cy("cordon_and_zone_update", "A node update that cordons a node and moves it to another zone applies to "
           "the next cycle", [ClusterAddNode(node("n", labels=zone_labels(zone="z1"))),
                              CreatePod(unscheduled(pod("a", container(cpu=100)))),
                              ClusterUpdateNode(replace(node("n", labels=zone_labels(zone="z2")), unschedulable=True)),
                              FailScheduling("a"), ClusterUpdateNode(node("n", labels=zone_labels(zone="z2"))),
                              SchedulePod("a", "n")], "cordon", "node-update"),
    ]


def accounting_scenarios() -> list[Scenario]:
    """Every curated accounting scenario."""
    return [*resource_scenarios(), *claim_port_affinity_scenarios(), *node_scenarios(), *snapshot_scenarios(),
            *cycle_scenarios()]
