"""Cycle-area scenarios: the scheduling pipeline of :mod:`spec.cycle.cycle`, curated, explored and random.

Curated scenarios follow ``tests/spec/cycle/test_cycle.py`` (which names the Kubernetes code each models: ScheduleOne,
schedulingCycle, bindingCycle, handleBindingCycleError, the pod event handlers) and add one per filter and per
failure point. Exploration is a breadth-first search over a small universe (:data:`NODES`, :data:`PODS`) that keeps
the shortest trace to every transition class: (operation, outcome kind or rejecting filter, where the pod is,
what the node is). Random traces pick among the steps that can happen. Expected outcomes come from the spec
(:func:`conformance.traces.expand`), never from here.
"""

from __future__ import annotations

import random
from collections import deque
from collections.abc import Sequence
from typing import Final

from conformance.codec import operation_name
from conformance.operations import (
    AdmitPod,
    BindPod,
    ClusterAddNamespace,
    ClusterAddNode,
    ClusterRemoveNode,
    ClusterUpdateNode,
    ConfirmBinding,
    CrashScheduler,
    CreatePod,
    CycleOperation,
    DeletePod,
    DropOrphanedBind,
    FailBinding,
    FailScheduling,
    LandOrphanedBind,
    RestartScheduler,
    SchedulePod,
    Tick,
    apply_cycle,
    is_enabled,
)
from conformance.traces import ALL_PROFILES, EXPIRY_PROFILES, Scenario
from spec.cache.cache import CacheSizeMetrics
from spec.cluster.kubelet import SYSTEM_CRITICAL_PRIORITY
from spec.cycle.cycle import Cluster, CycleNotEnabled, FailurePoint, new_cluster
from spec.frozenmap import FrozenMap
from spec.objects import (
    LABEL_FAILURE_DOMAIN_BETA_ZONE,
    LABEL_TOPOLOGY_ZONE,
    PREEMPT_NEVER,
    Container,
    ContainerPort,
    LabelSelector,
    Namespace,
    Node,
    NodeSelectorRequirement,
    NodeSelectorTerm,
    Pod,
    PodAffinityTerm,
    PreferredSchedulingTerm,
    Taint,
    Toleration,
    pod_affinity,
)
from spec.quantities import SECOND, resource_list
from spec.resources import EMPTY_RESOURCE
from spec.valuetypes import replace
from spec.versions import PROFILES

MIB: Final = 2**20
TTL: Final = 1 * SECOND
"""The assumed-pod TTL of cycle scenarios about expiry (profiles with expiry only)."""
LATE: Final = 2 * SECOND
"""A tick past :data:`TTL`."""
RESERVE, PERMIT, PRE_BIND, BIND = FailurePoint.RESERVE, FailurePoint.PERMIT, FailurePoint.PRE_BIND, FailurePoint.BIND
DEDICATED: Final = Taint("dedicated", "gpu")
TOLERATES_DEDICATED: Final = Toleration("dedicated", "Equal", "gpu", "NoSchedule")


def node(name: str, cpu: int = 1000, pods: int = 10, **fields: object) -> Node:
    """A node with ``cpu`` millicores, 1 GiB and room for ``pods`` pods."""
    return Node(name, resource_list(cpu=cpu, memory=1024 * MIB, pods=pods), **fields)  # type: ignore[arg-type]


def pod(uid: str, cpu: int = 100, host_port: int = 0, host_ip: str = "", **fields: object) -> Pod:
    """An unscheduled pod with one container requesting ``cpu`` millicores and 64 MiB, and a host port."""
    ports = (ContainerPort(80, host_port=host_port, host_ip=host_ip),) if host_port else ()
    requests = resource_list(cpu=cpu, memory=64 * MIB)
    return Pod(uid, f"pod-{uid}", containers=(Container("c", requests, ports),), **fields)  # type: ignore[arg-type]


def placed(uid: str, node_name: str) -> list[CycleOperation]:
    """Schedule, bind and confirm pending pod ``uid`` on ``node_name``."""
    return [SchedulePod(uid, node_name), BindPod(uid), ConfirmBinding(uid)]


class CycleTrace:
    """A trace being built step by step against the spec, for generators whose next step depends on the state (the
    random decision and kubelet traces): :meth:`step` applies an operation and records it."""

    def __init__(self, cluster: Cluster) -> None:
        self.cluster = cluster
        self.ops: list[CycleOperation] = []

    def step(self, op: CycleOperation) -> None:
        """Apply ``op`` to the cluster (the spec's outcome decides nothing here) and append it to the trace."""
        self.cluster, _ = apply_cycle(self.cluster, op)
        self.ops.append(op)


def _cy(sid: str, description: str, ops: Sequence[CycleOperation], *behaviours: str, ttl: int = 0) -> Scenario:
    profiles = EXPIRY_PROFILES if ttl else ALL_PROFILES
    return Scenario(f"cycle.{sid}", description, ops, area="cycle", behaviours=behaviours, ttl=ttl,
                    profiles=profiles)


def curated_cluster() -> list[Scenario]:
    """The scheduler in its cluster (:mod:`spec.cluster.restart`, :mod:`spec.cluster.kubelet`): crashes, restarts,
    orphaned bind
    requests, responsibility for a pod, and the kubelet's admission."""
    n1, n2 = node("n1"), node("n2")
    a, b = pod("a", 300), pod("b", 300)
    p, q = pod("p", 600), pod("q", 600)
    crit = pod("crit", 600, priority=SYSTEM_CRITICAL_PRIORITY)
    return [
        _cy("restart.in_flight_pending_again", "A crash during the binding cycle; its bind request never arrives: "
            "the restarted scheduler lists the pod unbound, queues it and places it again",
            [ClusterAddNode(n1), CreatePod(p), SchedulePod("p", "n1"), CrashScheduler(), DropOrphanedBind("p"),
             RestartScheduler(), *placed("p", "n1")], "crash", "restart"),
        _cy("restart.cache_rebuilt_from_bound_pods", "A crash loses the cache; the restart rebuilds it from the API "
            "server's nodes and bound pods: the same pods on the same nodes, Requested their sum",
            [ClusterAddNode(n1), ClusterAddNode(n2), CreatePod(a), CreatePod(b), CreatePod(p), *placed("a", "n1"),
             *placed("b", "n1"), *placed("p", "n2"), CrashScheduler(), RestartScheduler(), CreatePod(q),
             SchedulePod("q", "n2"), FailScheduling("q")], "crash", "restart"),
        _cy("restart.orphan_landed_while_down", "The crashed process's bind lands while no scheduler runs: the "
            "restart lists the pod bound and caches it where it is bound",
            [ClusterAddNode(n1), CreatePod(a), CreatePod(b), *placed("a", "n1"), SchedulePod("b", "n1"),
             CrashScheduler(), LandOrphanedBind("b"), RestartScheduler()], "crash", "restart", "orphaned-bind"),
        _cy("restart.orphan_refused_after_rebinding", "The restarted scheduler binds the pod elsewhere first; the "
            "crashed process's late request gets a Conflict and changes nothing",
            [ClusterAddNode(n1), ClusterAddNode(n2), CreatePod(p), SchedulePod("p", "n1"), CrashScheduler(),
             RestartScheduler(), SchedulePod("p", "n2"), BindPod("p"), LandOrphanedBind("p"), ConfirmBinding("p")],
            "crash", "restart", "orphaned-bind"),
        _cy("restart.late_bind_overcommits_kubelet_rejects", "KNOWN VIOLATION with a late bind: the restarted "
            "scheduler gives the room to another pod, the crashed process's bind lands too and the node is "
            "over-committed at the API server and in the cache; the kubelet admits the first pod and rejects the "
            "second (OutOfcpu, Failed), which leaves the cache",
            [ClusterAddNode(n1), CreatePod(p), CreatePod(q), SchedulePod("p", "n1"), CrashScheduler(),
             RestartScheduler(), *placed("q", "n1"), LandOrphanedBind("p"), ConfirmBinding("p"), AdmitPod("q"),
             AdmitPod("p")], "crash", "restart", "orphaned-bind", "kubelet", "overcommit"),
        _cy("restart.down_scheduler_sees_nothing", "While the scheduler is down, pods and nodes change at the API "
            "server only and time passes without a cleanup; the restart lists what is there then",
            [ClusterAddNode(n1), CreatePod(a), *placed("a", "n1"), CrashScheduler(), CreatePod(b), DeletePod("a"),
             ClusterAddNode(n2), ClusterUpdateNode(node("n1", unschedulable=True)), Tick(LATE), RestartScheduler(),
             *placed("b", "n2")], "crash", "restart", "node-churn"),
        _cy("responsibility.other_scheduler", "A pod naming another scheduler is not queued (responsibleForPod), "
            "and a restart does not queue it either",
            [ClusterAddNode(n1), CreatePod(replace(p, scheduler_name="other-scheduler")), CreatePod(q),
             CrashScheduler(), RestartScheduler(), *placed("q", "n1")],
            "responsibility", "restart"),
        _cy("kubelet.critical_pod_evicts", "A critical pod (priority 2,000,000,000) reaches a kubelet without room "
            "for it (a crashed scheduler's bind lands after the restarted one placed another pod): instead of "
            "rejecting it, the kubelet evicts the lower-priority pod (Failed, reason Preempting), which leaves the "
            "cache, and admits the critical pod (CriticalPodAdmissionHandler)",
            [ClusterAddNode(n1), CreatePod(crit), CreatePod(q), SchedulePod("crit", "n1"), CrashScheduler(),
             RestartScheduler(), *placed("q", "n1"), AdmitPod("q"), LandOrphanedBind("crit"),
             ConfirmBinding("crit"), AdmitPod("crit")], "crash", "orphaned-bind", "kubelet", "critical-pod"),
        _cy("kubelet.admits_then_deletion", "The kubelet admits a pod that fits beside the pods it runs; a deleted "
            "pod stops running there",
            [ClusterAddNode(n1), CreatePod(a), CreatePod(b), *placed("a", "n1"), *placed("b", "n1"), AdmitPod("b"),
             AdmitPod("a"), DeletePod("b")], "kubelet"),
    ]


def curated_cycle() -> list[Scenario]:
    """One scenario per edge case :mod:`spec.cycle.cycle` models."""
    n1, n2 = node("n1"), node("n2")
    big, small = node("big", cpu=2000), node("small", cpu=500)
    p, q = pod("p", 600), pod("q", 600)
    return [
        _cy("happy_path", "ScheduleOne: assume on the chosen node, bind (FinishBinding), the informer confirms",
            [ClusterAddNode(n1), CreatePod(p), *placed("p", "n1")], "assume", "bind", "confirm"),
        _cy("filter.resources", "NodeResourcesFit: a node without room for the requests is rejected; Requested "
            "(not NonZeroRequested) is what is subtracted", [ClusterAddNode(small), ClusterAddNode(big), CreatePod(p),
            SchedulePod("p", "small"), SchedulePod("p", "big"), CreatePod(pod("z", 0)), SchedulePod("z", "small")],
            "filter", "resources"),
        _cy("filter.assumed_pods_count", "An assumed pod (binding in flight) already holds its node's resources: "
            "the next pod does not fit there", [ClusterAddNode(n1), CreatePod(p), CreatePod(q), SchedulePod("p", "n1"),
            SchedulePod("q", "n1"), FailScheduling("q")], "filter", "resources", "assume"),
        _cy("filter.pod_count", "NodeResourcesFit counts pods against the node's pod capacity",
            [ClusterAddNode(node("n1", pods=1)), CreatePod(pod("a")), CreatePod(pod("b")), *placed("a", "n1"),
             SchedulePod("b", "n1")], "filter", "pods"),
        _cy("filter.taint", "TaintToleration: a NoSchedule taint needs a toleration; PreferNoSchedule filters "
            "nothing", [ClusterAddNode(node("t", taints=(DEDICATED,))),
            ClusterAddNode(node("soft", taints=(Taint("dedicated", "gpu", "PreferNoSchedule"),))),
            CreatePod(pod("a")), CreatePod(pod("b", tolerations=(TOLERATES_DEDICATED,))), SchedulePod("a", "t"),
            SchedulePod("a", "soft"), SchedulePod("b", "t")], "filter", "taints"),
        _cy("filter.no_execute_taint", "TaintToleration: NoExecute taints filter too; Exists tolerates any value",
            [ClusterAddNode(node("t", taints=(Taint("k", "v", "NoExecute"),))), CreatePod(pod("a")),
             CreatePod(pod("b", tolerations=(Toleration("k", "Exists"),))), SchedulePod("a", "t"),
             SchedulePod("b", "t")], "filter", "taints"),
        _cy("filter.cordon", "NodeUnschedulable: a cordoned node takes only pods tolerating its taint; a cordon "
            "arriving as a node update applies to the next cycle", [ClusterAddNode(n1), CreatePod(pod("a")),
            CreatePod(pod("b", tolerations=(Toleration("node.kubernetes.io/unschedulable", "Exists"),))),
            ClusterUpdateNode(node("n1", unschedulable=True)), SchedulePod("a", "n1"), SchedulePod("b", "n1"),
            ClusterUpdateNode(n1), SchedulePod("a", "n1")], "filter", "cordon", "node-update"),
        _cy("filter.node_selector", "NodeAffinity: the node must carry every label the pod selects",
            [ClusterAddNode(node("ssd", labels=FrozenMap({"disk": "ssd"}))), ClusterAddNode(n1),
             CreatePod(pod("a", node_selector=FrozenMap({"disk": "ssd"}))), SchedulePod("a", "n1"),
             SchedulePod("a", "ssd")], "filter", "node-selector"),
        _cy("filter.host_ports", "NodePorts: a host port in use (also by an assumed pod) conflicts; 0.0.0.0 "
            "conflicts with a specific IP", [ClusterAddNode(n1), ClusterAddNode(n2), CreatePod(pod("a", host_port=80)),
            CreatePod(pod("b", host_port=80, host_ip="10.0.0.1")), CreatePod(pod("c", host_port=81)),
            SchedulePod("a", "n1"), SchedulePod("b", "n1"), SchedulePod("c", "n1"), SchedulePod("b", "n2")],
            "filter", "ports", "assume"),
        _cy("filter.first_failing_in_order", "Filters run in the default profile's order and the first rejection "
            "is reported: cordon before taint before selector before ports before resources",
            [ClusterAddNode(node("x", cpu=10, unschedulable=True, taints=(DEDICATED,))),
             ClusterAddNode(node("y", cpu=10, taints=(DEDICATED,))), ClusterAddNode(node("w", cpu=10)),
             CreatePod(pod("a", 600, node_selector=FrozenMap({"disk": "ssd"}))), FailScheduling("a")],
            "filter", "diagnosis"),
        _cy("unschedulable.no_feasible_node", "A cycle that finds no feasible node leaves the cache alone; the "
            "pod stays pending and is scheduled once a node fits", [ClusterAddNode(small), CreatePod(p),
            FailScheduling("p"), ClusterAddNode(big), SchedulePod("p", "big")], "unschedulable", "requeue"),
        _cy("unschedulable.no_nodes", "With no node at all the cycle fails and the pod waits",
            [CreatePod(p), FailScheduling("p"), ClusterAddNode(n1), *placed("p", "n1")], "unschedulable"),
        _cy("reserve_rejected", "Reserve rejects: the pod is assumed, then forgotten (Unreserve); the cache holds "
            "what it held and the pod is pending again", [ClusterAddNode(n1), ClusterAddNode(n2), CreatePod(p),
            FailScheduling("p", "n1", RESERVE), SchedulePod("p", "n1")], "reserve", "forget", "requeue"),
        _cy("permit_rejected", "Permit rejects: as Reserve, the assumption is undone",
            [ClusterAddNode(n1), CreatePod(p), FailScheduling("p", "n1", PERMIT), *placed("p", "n1")],
            "permit", "forget", "requeue"),
        _cy("binding.prebind_fails", "PreBind fails: no FinishBinding, ForgetPod, the pod is requeued and can be "
            "placed again", [ClusterAddNode(n1), ClusterAddNode(n2), CreatePod(p), SchedulePod("p", "n1"),
            FailBinding("p", PRE_BIND), *placed("p", "n2")], "prebind", "forget", "requeue"),
        _cy("binding.bind_fails", "The bind call fails: FinishBinding (deferred), then ForgetPod and a requeue",
            [ClusterAddNode(n1), CreatePod(p), SchedulePod("p", "n1"), FailBinding("p", BIND), *placed("p", "n1")],
            "bind", "forget", "requeue"),
        _cy("binding.bind_fails_with_ttl", "With expiry, a failed bind still forgets the pod at once",
            [ClusterAddNode(n1), CreatePod(p), SchedulePod("p", "n1"), FailBinding("p", BIND), Tick(LATE)],
            "bind", "forget", "expiry", ttl=TTL),
        _cy("delete.pending", "Deleting a pending pod takes it out of the queue", [ClusterAddNode(n1), CreatePod(p),
            DeletePod("p"), CreatePod(q), *placed("q", "n1")], "delete"),
        _cy("delete.assumed_then_bind_fails", "Deleting an assumed pod forgets it at once from v1.35 (PR #134157); "
            "before, it holds the node until its binding fails. The second ForgetPod is harmless",
            [ClusterAddNode(n1), CreatePod(p), CreatePod(q), SchedulePod("p", "n1"), DeletePod("p"),
             SchedulePod("q", "n1"), FailBinding("p", BIND), CreatePod(pod("r", 600)), SchedulePod("r", "n1")],
            "delete", "assume", "forget", "errata-1"),
        _cy("delete.confirmed", "Deleting a bound, confirmed pod removes it from the cache",
            [ClusterAddNode(n1), CreatePod(p), CreatePod(q), *placed("p", "n1"), SchedulePod("q", "n1"),
             DeletePod("p"), SchedulePod("q", "n1")], "delete", "remove"),
        _cy("confirm.out_of_order", "Confirmations of different pods may arrive in any order",
            [ClusterAddNode(n1), CreatePod(pod("a")), CreatePod(pod("b")), SchedulePod("a", "n1"),
             SchedulePod("b", "n1"), BindPod("a"), BindPod("b"), ConfirmBinding("b"), ConfirmBinding("a")],
            "confirm", "reorder"),
        _cy("node.removed_with_bound_pod", "A removed node with a pod stays as a ghost: no longer a candidate; "
            "deleting the pod deletes the ghost", [ClusterAddNode(n1), CreatePod(p), *placed("p", "n1"),
            ClusterRemoveNode("n1"), CreatePod(q), SchedulePod("q", "n1"), DeletePod("p"), FailScheduling("q")],
            "node-churn", "ghost"),
        _cy("node.removed_while_binding", "A node removed while a pod's binding is in flight: the assumed pod "
            "keeps a ghost; the bind and its confirmation still land there", [ClusterAddNode(n1), CreatePod(p),
            SchedulePod("p", "n1"), ClusterRemoveNode("n1"), BindPod("p"), ConfirmBinding("p")],
            "node-churn", "ghost", "assume"),
        _cy("node.readded_ghost", "A ghost's node comes back: it is live again with its pods",
            [ClusterAddNode(n1), CreatePod(p), CreatePod(q), *placed("p", "n1"), ClusterRemoveNode("n1"),
             ClusterAddNode(n1), SchedulePod("q", "n1"), ClusterAddNode(n2), SchedulePod("q", "n2")],
            "node-churn", "ghost"),
        _cy("node.allocatable_shrinks", "A node update that shrinks Allocatable applies to later cycles",
            [ClusterAddNode(node("n1", cpu=2000)), CreatePod(p), CreatePod(q), *placed("p", "n1"),
             ClusterUpdateNode(node("n1", cpu=1000)), SchedulePod("q", "n1")], "node-update", "resources"),
        _cy("expiry.never_before_finish_binding", "An assumed pod whose binding has not finished never expires "
            "(kubernetes#106361)", [ClusterAddNode(n1), CreatePod(p), SchedulePod("p", "n1"), Tick(LATE),
            Tick(LATE), BindPod("p"), ConfirmBinding("p")], "expiry", "k8s-106361", ttl=TTL),
        _cy("expiry.late_confirmation_overcommits", "KNOWN VIOLATION with a non-zero TTL: the assumption expires "
            "after FinishBinding, a second pod takes the room, the late confirmation overcommits the node",
            [ClusterAddNode(n1), CreatePod(p), SchedulePod("p", "n1"), BindPod("p"), Tick(LATE), CreatePod(q),
             SchedulePod("q", "n1"), BindPod("q"), ConfirmBinding("p"), ConfirmBinding("q")],
            "expiry", "k8s-106361", "overcommit", ttl=TTL),
        _cy("expiry.confirmed_on_deleted_node", "A pod bound to a node deleted meanwhile expires with its ghost; "
            "its late confirmation leaves a placeholder, which the node's return makes live again",
            [ClusterAddNode(n1), CreatePod(p), SchedulePod("p", "n1"), ClusterRemoveNode("n1"), BindPod("p"),
             Tick(LATE), ConfirmBinding("p"), CreatePod(q), SchedulePod("q", "n1"), ClusterAddNode(n1),
             SchedulePod("q", "n1")], "expiry", "ghost", "placeholder", "node-churn", ttl=TTL),
        _cy("expiry.ttl_zero_keeps_room", "With TTL 0 the bound pod keeps its room until confirmed",
            [ClusterAddNode(n1), CreatePod(p), SchedulePod("p", "n1"), BindPod("p"), Tick(LATE), CreatePod(q),
             SchedulePod("q", "n1"), ConfirmBinding("p")], "expiry", "k8s-106361"),
        *curated_namespaces(),
        *curated_node_affinity(),
    ]


ZONE_KEY: Final = "zone"
"""The topology key of the namespace scenarios' affinity terms."""


def _zoned(name: str, zone: str) -> Node:
    return node(name, labels=FrozenMap({ZONE_KEY: zone}))


def curated_namespaces() -> list[Scenario]:
    """A namespace relabelled between two scheduling cycles changes the decision
    (:func:`spec.cycle.cycle.add_namespace`): InterPodAffinity resolves the pod's namespace selectors against the
    namespaces' labels in every cycle (``mergeAffinityTermNamespacesIfNotEmpty``), and matches an existing pod's
    namespace selector against the labels of the pod's namespace (``GetNamespaceLabelsSnapshot``)."""
    z1, z2 = _zoned("n1", "z1"), _zoned("n2", "z2")
    db = pod("db", labels=FrozenMap({"app": "db"}), namespace="data")
    near_db = PodAffinityTerm(LabelSelector(FrozenMap({"app": "db"})), topology_key=ZONE_KEY,
                              namespace_selector=LabelSelector(FrozenMap({"team": "a"})))
    app = pod("app", pod_affinity=pod_affinity(required=(near_db,)))
    no_web = PodAffinityTerm(LabelSelector(FrozenMap({"app": "web"})), topology_key=ZONE_KEY,
                             namespace_selector=LabelSelector(FrozenMap({"env": "prod"})))
    guard = pod("guard", pod_anti_affinity=pod_affinity(required=(no_web,)))
    web = pod("web", labels=FrozenMap({"app": "web"}), namespace="shop")
    return [
        _cy("namespace.relabelled_selects_required_affinity", "A required affinity term whose namespace selector "
            "selects no namespace matches no pod: no node fits; once the existing pod's namespace is relabelled to "
            "match, the next cycle places the pod in that pod's zone only",
            [ClusterAddNode(z1), ClusterAddNode(z2), ClusterAddNamespace(Namespace("data", FrozenMap({"team": "b"}))),
             CreatePod(db), *placed("db", "n1"), CreatePod(app), FailScheduling("app"),
             ClusterAddNamespace(Namespace("data", FrozenMap({"team": "a"}))), SchedulePod("app", "n2"),
             SchedulePod("app", "n1")], "pod-affinity", "namespaces"),
        _cy("namespace.relabelled_lifts_existing_anti_affinity", "An existing pod's required anti-affinity term "
            "selects the incoming pod's namespace by its labels: its zone is closed to the pod until the namespace "
            "is relabelled",
            [ClusterAddNode(z1), ClusterAddNode(z2), ClusterAddNamespace(Namespace("shop", FrozenMap({"env": "prod"}))),
             CreatePod(guard), *placed("guard", "n1"), CreatePod(web), SchedulePod("web", "n1"),
             ClusterAddNamespace(Namespace("shop", FrozenMap({"env": "dev"}))), SchedulePod("web", "n1")],
            "pod-affinity", "namespaces"),
    ]


def curated_node_affinity() -> list[Scenario]:
    """NodeAffinity's preferred terms (:func:`spec.cycle.scores.node_affinity_score`): each operator, field
    requirements on ``metadata.name``, and the terms that never score (weight 0, an empty term); a non-nil empty list
    is scored (every node 0) where a nil one is skipped."""
    a = node("a", labels=FrozenMap({"disk": "ssd", "gen": "3"}))
    b = node("b", labels=FrozenMap({"disk": "hdd", "gen": "7"}))
    c = node("c", labels=FrozenMap({"gen": "new"}))

    def term(weight: int, *expressions: tuple[str, str, tuple[str, ...]],
             fields: tuple[tuple[str, str, tuple[str, ...]], ...] = ()) -> PreferredSchedulingTerm:
        return PreferredSchedulingTerm(weight, NodeSelectorTerm(tuple(NodeSelectorRequirement(*e) for e in expressions),
                                                                tuple(NodeSelectorRequirement(*f) for f in fields)))

    every_kind = (term(0, ("disk", "In", ("ssd",))), term(1, ("gen", "Gt", ("5",))), term(3, ("disk", "In", ("ssd",))),
                  term(5), term(2, fields=(("metadata.name", "In", ("c",)),)),
                  term(4, ("gen", "Lt", ("5",)), ("disk", "Exists", ())), term(6, ("disk", "NotIn", ("hdd",))),
                  term(9, ("disk", "DoesNotExist", ()), fields=(("metadata.name", "NotIn", ("a",)),)))
    preferring = pod("pref", has_node_affinity=True, preferred_node_affinity=every_kind)
    empty = pod("empty", has_node_affinity=True, preferred_node_affinity=())
    unscored = pod("zero", has_node_affinity=True, preferred_node_affinity=(term(0, ("disk", "In", ("ssd",))), term(7)))
    nodes: list[CycleOperation] = [ClusterAddNode(a), ClusterAddNode(b), ClusterAddNode(c)]
    return [
        _cy("score.node_affinity_preferred_terms", "NodeAffinity's Score sums the weights of the preferred terms a "
            "node matches: In, NotIn (an absent label matches), Exists, DoesNotExist, Gt and Lt (a label that is no "
            "integer matches neither) and metadata.name field requirements; a term of weight 0 or an empty term "
            "never scores (NewPreferredSchedulingTerms); NormalizeScore scales by the highest: a 13, b 1, c 17, so "
            "only c may be chosen",
            [*nodes, CreatePod(preferring), SchedulePod("pref", "c")], "score"),
        _cy("score.node_affinity_empty_list_scored", "A non-nil empty list of preferred node-affinity terms, or one "
            "whose terms cannot score, is not skipped by NodeAffinity's PreScore (only a nil list is): every node "
            "scores 0",
            [*nodes, CreatePod(empty), SchedulePod("empty", "a"), CreatePod(unscored), SchedulePod("zero", "b")],
            "score"),
    ]


# --------------------------------------------------------------------------------------------
# Exploration and random traces over a small universe
# --------------------------------------------------------------------------------------------

NODES: Final = (node("n1"), node("n2", taints=(DEDICATED,)))
CORDONED: Final = node("n1", unschedulable=True)
PODS: Final = (pod("a", 600), pod("b", 500, tolerations=(TOLERATES_DEDICATED,)))
GPU: Final = "example.com/gpu"
ZONED: Final = Node("n3", resource_list(cpu=1500, memory=1024 * MIB, pods=3, **{GPU: 1}),
                    labels=FrozenMap({"disk": "ssd", LABEL_TOPOLOGY_ZONE: "z1"}))
MOVED: Final = replace(ZONED, labels=FrozenMap({"disk": "ssd", LABEL_FAILURE_DOMAIN_BETA_ZONE: "z2"}))
RICH_NODES: Final = (*NODES, ZONED)
"""Random traces add a zoned node with an extended resource, a disk label and room for three pods."""
RICH_PODS: Final = (
    *PODS,
    replace(pod("c", 100, host_port=8080, host_ip="10.0.0.1"), node_selector=FrozenMap({"disk": "ssd"}),
            init_containers=(Container("i", resource_list(cpu=900)),)),
    replace(pod("d", 100, host_port=8080), pod_level_requests=resource_list(cpu=400),
            init_containers=(Container("s", resource_list(cpu=200, **{GPU: 1}), restart_policy="Always"),)),
)
"""Random traces add a pod whose init container's peak decides its fit, with a node selector and a host port on a
host IP, and one with a sidecar requesting an extended resource, pod-level requests and a host port on 0.0.0.0."""
EXPLORATION_DEPTH: Final = 7
EXPLORATION_BUDGET: Final = 800
"""At most this many states are expanded per exploration (breadth-first, so traces are shortest)."""
RANDOM_SEEDS: Final = (1, 2, 3, 4)
RANDOM_LENGTH: Final = 30
PREEMPTION_SEEDS: Final = tuple(range(1, 9))
"""The random preemption traces' seeds: seeds 3, 4 and 7 preempt (the others' PostFilter finds no victims, no
helpful node, or a pod that may not preempt)."""
NO_METRICS: Final = CacheSizeMetrics()


def cycle_operations(with_expiry: bool, rich: bool = False) -> tuple[CycleOperation, ...]:
    """Every cycle operation over the universe, in a fixed order (most are not enabled in a given state); ``rich``
    adds :data:`RICH_NODES` and :data:`RICH_PODS` (random traces)."""
    nodes, pods = (RICH_NODES, RICH_PODS) if rich else (NODES, PODS)
    ops: list[CycleOperation] = []
    for n in nodes:
        ops += [ClusterAddNode(n), ClusterRemoveNode(n.name)]
    ops += [ClusterUpdateNode(CORDONED), ClusterUpdateNode(NODES[0])]
    if rich:
        ops += [ClusterUpdateNode(MOVED), ClusterUpdateNode(ZONED)]
    for p in pods:
        ops += [CreatePod(p), DeletePod(p.uid), FailScheduling(p.uid), BindPod(p.uid), ConfirmBinding(p.uid)]
        ops += [SchedulePod(p.uid, n.name) for n in nodes]
        ops += [FailScheduling(p.uid, n.name, point) for n in nodes for point in (RESERVE, PERMIT)]
        ops += [FailBinding(p.uid, point) for point in (PRE_BIND, BIND)]
    if with_expiry:
        ops.append(Tick(LATE))
    return tuple(ops)


def pod_class(cluster: Cluster, uid: str) -> str:
    """Where pod ``uid`` is: absent, deleted, pending, binding (forgotten if the cache dropped it), unconfirmed
    (expired if the cache dropped it) or bound."""
    if uid in cluster.deleted:
        return "deleted_binding" if uid in cluster.binding else "deleted"
    if uid not in cluster.api_pods:
        return "absent"
    if uid in cluster.pending:
        return "pending"
    cached = uid in cluster.cache.pod_states
    if uid in cluster.binding:
        return "binding" if cached else "binding_forgotten"
    if uid in cluster.unconfirmed:
        return "unconfirmed" if cached else "unconfirmed_expired"
    return "bound"


def node_class(cluster: Cluster, name: str) -> str:
    """What the cache holds for ``name``: absent, live (cordoned), placeholder or ghost."""
    info = cluster.cache.nodes.get(name)
    if info is None:
        return "absent"
    if info.node is not None:
        return "cordoned" if info.node.unschedulable else "live"
    return "placeholder" if info.allocatable == EMPTY_RESOURCE else "ghost"


def transition_class(cluster: Cluster, op: CycleOperation, kind: str) -> str:
    """``operation.outcome.pod_class.node_class`` (the parts that apply to the operation)."""
    parts = [operation_name(type(op)), kind]
    uid = op.pod.uid if isinstance(op, CreatePod) else getattr(op, "uid", None)
    if uid is not None:
        parts.append(pod_class(cluster, uid))
    name = getattr(op, "node", None)
    name = name.name if isinstance(name, Node) else name
    name = getattr(op, "name", name)
    if isinstance(name, str):
        parts.append("node_" + node_class(cluster, name))
    if isinstance(op, FailScheduling | FailBinding) and op.point is not None:
        parts.append(str(op.point).lower())
    return ".".join(part.lower() for part in parts)


def _key(cluster: Cluster) -> Cluster:
    """The gauge and the failure handler's writes (``failures``) are write-only: states differing only in them behave
    the same from here on."""
    return replace(cluster, cache=replace(cluster.cache, metrics=NO_METRICS), failures=FrozenMap())


def explore_cycle(profile_name: str, ttl: int, rich: bool = False) -> dict[str, list[CycleOperation]]:
    """Shortest traces to every cycle transition class reachable within the depth and budget (over the rich
    universe with ``rich``: more kinds of rejection, fewer steps deep)."""
    ops = cycle_operations(with_expiry=ttl != 0, rich=rich)
    start = new_cluster(PROFILES[profile_name], ttl)
    found: dict[str, list[CycleOperation]] = {}
    seen = {_key(start)}
    frontier: deque[tuple[Cluster, list[CycleOperation]]] = deque([(start, [])])
    expanded = 0
    while frontier and expanded < EXPLORATION_BUDGET:
        cluster, path = frontier.popleft()
        expanded += 1
        for op in ops:
            try:
                after, outcome = apply_cycle(cluster, op)
            except CycleNotEnabled:
                continue
            kind = outcome.kind or "ok"
            if outcome.filters and outcome.kind is not None:
                rejection = outcome.filters[0][1]
                kind = f"{kind}_{rejection.plugin}"
                if rejection.plugin == "NodeResourcesFit":  # its code depends on the node: a class each
                    kind += f"_{rejection.code}"
            found.setdefault(transition_class(cluster, op, kind), [*path, op])
            if len(path) + 1 >= EXPLORATION_DEPTH:
                continue
            key = _key(after)
            if key not in seen:
                seen.add(key)
                frontier.append((after, [*path, op]))
    return found


PRIORITY_PODS: Final = (
    replace(pod("a", 600), priority=0),
    replace(pod("b", 500, tolerations=(TOLERATES_DEDICATED,)), priority=5),
    replace(pod("e", 700), priority=10),
    replace(pod("f", 400), priority=10, preemption_policy=PREEMPT_NEVER),
    replace(pod("g", 900, tolerations=(TOLERATES_DEDICATED,)), priority=100),
)
"""Random preemption traces: pods of four priorities (0, 5, 10 and 100, as default_preemption_test.go's
lowPriority to veryHighPriority order them), one of them with PreemptionPolicy Never, sized so that most pairs do
not share a node."""


PRIORITY_STEP_WEIGHTS: Final = {"CreatePod": 3, "SchedulePod": 3, "BindPod": 3, "ConfirmBinding": 3,
                                 "FailScheduling": 3, "DeletePod": 1, "FailBinding": 0.5, "ClusterAddNode": 1,
                                 "ClusterRemoveNode": 0.2, "ClusterUpdateNode": 0.3}
"""How often the random preemption traces draw each kind of step, among the kinds that can happen: pods are
created, placed and bound before a pod of higher priority fails its cycle, and nodes churn less than pods."""


def priority_operations() -> tuple[CycleOperation, ...]:
    """The cycle operations of the random preemption traces: the two :data:`NODES` (one tainted), the
    :data:`PRIORITY_PODS`, no expiry (a failed cycle runs PostFilter; ``FailScheduling`` of a pod that fits nowhere
    is enabled only when preemption has one best node)."""
    nodes = NODES
    ops: list[CycleOperation] = [op for n in nodes for op in (ClusterAddNode(n), ClusterRemoveNode(n.name))]
    ops += [ClusterUpdateNode(CORDONED), ClusterUpdateNode(NODES[0])]
    for p in PRIORITY_PODS:
        ops += [CreatePod(p), DeletePod(p.uid), FailScheduling(p.uid), BindPod(p.uid), ConfirmBinding(p.uid)]
        ops += [SchedulePod(p.uid, n.name) for n in nodes]
        ops += [FailBinding(p.uid, point) for point in (PRE_BIND, BIND)]
    return tuple(ops)


def random_cycle_trace(seed: int, ttl: int, preemption: bool = False) -> list[CycleOperation]:
    """:data:`RANDOM_LENGTH` steps chosen at random among those that can happen (there is always one: a node
    can be added or removed); with ``preemption`` over :func:`priority_operations`, DefaultPreemption on, each step
    of a kind drawn first among the kinds that can happen, by :data:`PRIORITY_STEP_WEIGHTS` (so a failed cycle,
    and with it PostFilter, is drawn as often as a placement)."""
    rng = random.Random(seed)
    ops = priority_operations() if preemption else cycle_operations(with_expiry=ttl != 0, rich=True)
    cluster = new_cluster(PROFILES["v1.35" if ttl else "v1.36"], ttl, preemption)
    trace: list[CycleOperation] = []
    if preemption:  # both nodes first: a cluster without nodes has nothing to preempt
        for n in NODES:
            cluster, _ = apply_cycle(cluster, ClusterAddNode(n))
            trace.append(ClusterAddNode(n))
    while preemption and len(trace) < RANDOM_LENGTH:
        by_kind: dict[str, list[CycleOperation]] = {}
        for op in ops:
            if is_enabled(cluster, op):
                by_kind.setdefault(type(op).__name__, []).append(op)
        kinds = sorted(by_kind)
        kind = rng.choices(kinds, [PRIORITY_STEP_WEIGHTS[k] for k in kinds])[0]
        op = rng.choice(by_kind[kind])
        cluster, _ = apply_cycle(cluster, op)
        trace.append(op)
    while len(trace) < RANDOM_LENGTH:
        op = rng.choice(ops)
        if not is_enabled(cluster, op):
            continue
        cluster, _ = apply_cycle(cluster, op)
        trace.append(op)
    return trace


def generated_cycle() -> list[Scenario]:
    """Exploration (under v1.35 with a TTL and v1.36 without, over the small universe then the rich one, which
    adds the classes the small one lacks) and random scenarios of the cycle area, with DefaultPreemption in
    :data:`PREEMPTION_SEEDS`' traces."""
    scenarios: list[Scenario] = []
    keys: set[str] = set()
    runs = (("v1.35", TTL, EXPIRY_PROFILES, False), ("v1.36", 0, ALL_PROFILES, False),
            ("v1.35", TTL, EXPIRY_PROFILES, True), ("v1.36", 0, ALL_PROFILES, True))
    for profile_name, ttl, profiles, rich in runs:
        for key, path in sorted(explore_cycle(profile_name, ttl, rich).items()):
            if key not in keys:
                keys.add(key)
                scenarios.append(Scenario(f"explore.cycle.{key}", f"Shortest trace to {key} (bounded exploration "
                                          f"under {profile_name})", path, area="cycle", origin="exploration", ttl=ttl,
                                          profiles=profiles, behaviours=("transition-coverage",)))
    for seed in RANDOM_SEEDS:
        for ttl, profiles in ((TTL, EXPIRY_PROFILES), (0, ALL_PROFILES)):
            era = "ttl" if ttl else "no_ttl"
            scenarios.append(Scenario(f"random.cycle.{era}.seed{seed}", f"Random trace of {RANDOM_LENGTH} cycle "
                                      f"steps (seed {seed}, ttl {ttl} ns)", random_cycle_trace(seed, ttl),
                                      area="cycle", origin="random", ttl=ttl, profiles=profiles,
                                      behaviours=("pipeline-random",)))
    for seed in PREEMPTION_SEEDS:
        scenarios.append(Scenario(f"random.cycle.preemption.seed{seed}", f"Random trace of {RANDOM_LENGTH} cycle "
                                  f"steps with DefaultPreemption, pods of four priorities (seed {seed})",
                                  random_cycle_trace(seed, 0, preemption=True), area="cycle", origin="random",
                                  profiles=ALL_PROFILES, preemption=True, behaviours=("pipeline-random",)))
    return scenarios
