"""Observed behaviours of a cycle-area step: the pipeline path the spec took and which filter rules decided.

:func:`cycle_step_behaviours` reads the cluster before and after the step (:mod:`spec.cycle.cycle`) and, for the nodes a
scheduling cycle examined, evaluates the spec's filters (:mod:`spec.cycle.filters`) on the cycle's snapshot.
"""

from __future__ import annotations

from conformance.behaviours.pods import accounting_behaviours
from conformance.operations import (
    ALREADY_EXISTS,
    NODE_NOT_IN_SNAPSHOT,
    AdmitPod,
    BindPod,
    ClusterAddNamespace,
    ClusterAddNode,
    ClusterAddPodDisruptionBudget,
    ClusterRemoveNode,
    ClusterUpdateNode,
    ConfirmBinding,
    CrashScheduler,
    CreatePod,
    CycleOperation,
    CycleOutcome,
    DeletePod,
    DropOrphanedBind,
    FailBinding,
    FailScheduling,
    LandOrphanedBind,
    RestartScheduler,
    SchedulePod,
    SkipPod,
    TerminatePod,
    Tick,
    refreshed_snapshot,
)
from spec.cache.nodeinfo import DEFAULT_BIND_ALL_HOST_IP, NodeInfo, host_port
from spec.cache.snapshot import Snapshot
from spec.cluster.kubelet import is_critical_pod
from spec.cycle import interpodaffinity, podtopologyspread
from spec.cycle.cycle import Cluster, FailurePoint, pdb_key
from spec.cycle.filters import (
    DEFAULT_FILTERS,
    NO_EXECUTE,
    NO_SCHEDULE,
    Code,
    PreFilterStates,
    failing_filters,
    fits_node_affinity,
    fits_taint_toleration,
    insufficient_resources,
    ports_conflict,
    pre_filter,
    rejection_code,
)
from spec.objects import Node, Pod, PodAffinityTerm, selector_matches
from spec.queue.nominator import nominated_pods_for_node
from spec.resources import compute_pod_resource, get_host_ports

_FILTER_TAGS = {"NodeUnschedulable": "cycle.filter.node_unschedulable",
                "TaintToleration": "cycle.filter.taint_toleration", "NodeAffinity": "cycle.filter.node_affinity",
                "NodePorts": "cycle.filter.node_ports", "NodeResourcesFit": "cycle.filter.node_resources_fit",
                podtopologyspread.NAME: "cycle.filter.pod_topology_spread",
                interpodaffinity.NAME: "cycle.filter.inter_pod_affinity"}
_FIT_TAGS = {"pods": "cycle.fit.pod_count", "cpu": "cycle.fit.cpu", "memory": "cycle.fit.memory",
             "ephemeral-storage": "cycle.fit.ephemeral_storage"}


def cycle_step_behaviours(before: Cluster, op: CycleOperation, after: Cluster, outcome: CycleOutcome) -> set[str]:
    """Every behaviour of the inventory that the cycle step ``op`` exercised."""
    tags = accounting_behaviours(before.cache, after.cache)
    match op:
        case CreatePod(pod):
            if outcome.kind == ALREADY_EXISTS:
                tags.add("cycle.create.name_taken")
            elif pod.uid in after.pending:
                tags.add("cycle.create.queued")
            elif not before.running:
                tags.add("cycle.create.while_down")
            else:
                tags.add("cycle.create.other_scheduler")
        case SchedulePod(uid, node):
            tags |= _schedule(before, uid, node, outcome) | _decision(outcome) | _namespace_selected(before, uid)
        case FailScheduling(uid, node, point):
            tags |= _fail_scheduling(before, uid, node, point) | _decision(outcome) | _namespace_selected(before, uid)
            tags |= _failure_handled(uid, after)
        case BindPod(uid) if uid not in after.unconfirmed:  # the API server refused a pod being deleted
            tags.add("cycle.terminate.bind_refused")
            if uid in after.pending:
                tags.add("cycle.terminate.bind_refused_requeued")
        case BindPod(uid):
            tags.add("cycle.bind.ok")
            if before.cache.profile.assumed_pod_expiry:
                tags.add("cycle.bind.finish_binding")
        case FailBinding(uid, point):
            tags.add("cycle.fail_binding.prebind" if point is FailurePoint.PRE_BIND else "cycle.fail_binding.bind")
            if uid in after.pending:
                tags.add("cycle.fail_binding.requeued")
            if uid in before.deleted:
                tags.add("cycle.fail_binding.pod_deleted")
            if uid not in before.cache.pod_states:
                tags.add("cycle.fail_binding.already_forgotten")
            tags |= _failure_handled(uid, after)
            if after.preemption and uid in nominated_pods_for_node(after.nominator, ""):
                tags.add("cycle.fail_binding.nominated_nowhere")
        case ConfirmBinding(uid):
            tags.add("cycle.confirm.assumed" if uid in before.cache.assumed_pods else "cycle.confirm.expired_readded")
        case DeletePod() | ClusterAddNode() | ClusterUpdateNode() | ClusterRemoveNode() | Tick() \
                if not before.running:
            pass  # only the API server changes while the scheduler is down
        case DeletePod(uid):
            tags |= _delete(before, uid, after)
        case TerminatePod(uid) if not before.running:
            tags.add("cycle.terminate.while_down")
        case TerminatePod(uid):
            if before.api_pods[uid].node_name:
                tags.add("cycle.terminate.bound")
            elif uid in before.cache.assumed_pods:
                forgotten = uid not in after.cache.pod_states
                tags.add("cycle.terminate.assumed_forgotten" if forgotten else "cycle.terminate.assumed_kept")
            elif uid in before.pending:
                tags.add("cycle.terminate.pending")
        case SkipPod(uid):
            tags.add("cycle.skip.deleting")
            if uid in after.nominator.pod_to_node:
                tags.add("cycle.skip.nomination_kept")
        case ClusterAddNode(node):
            tags.add("cycle.node.added")
            if node.name in before.cache.nodes:
                tags.add("cycle.node.ghost_revived")
        case ClusterUpdateNode(node):
            tags.add("cycle.node.updated")
            cached = before.cache.nodes[node.name].node
            if cached is not None and cached.unschedulable != node.unschedulable:
                tags.add("cycle.node.cordoned")
        case ClusterRemoveNode(name):
            tags.add("cycle.node.removed")
            if name in after.cache.nodes:
                tags.add("cycle.node.removed_ghost")
        case ClusterAddNamespace(namespace):
            tags.add("cycle.namespace.relabelled" if namespace.name in before.namespaces else "cycle.namespace.added")
        case ClusterAddPodDisruptionBudget(pdb):
            tags.add("cycle.pdb.updated" if pdb_key(pdb) in before.pdbs else "cycle.pdb.added")
        case Tick():
            tags.add("cycle.tick.cleanup" if before.cache.profile.assumed_pod_expiry else "cycle.tick.no_cleanup")
            if before.cache.assumed_pods - after.cache.assumed_pods:
                tags.add("cycle.tick.expires")
        case CrashScheduler():
            tags.add("cycle.crash.memory_lost")
            if before.binding:
                tags.add("cycle.crash.binding_orphaned")
        case RestartScheduler():
            if after.cache.pod_states or after.cache.nodes:
                tags.add("cycle.restart.cache_rebuilt")
            if after.pending:
                tags.add("cycle.restart.pending_requeued")
        case LandOrphanedBind(uid):
            landed = uid in after.api_pods and after.api_pods[uid].node_name and uid in before.api_pods and \
                not before.api_pods[uid].node_name
            if not landed:
                tags.add("cycle.orphan.refused")
                if uid in before.api_pods and before.api_pods[uid].terminating:
                    tags.add("cycle.terminate.orphan_refused")
            else:
                tags.add("cycle.orphan.landed" if before.running else "cycle.orphan.landed_while_down")
        case DropOrphanedBind():
            tags.add("cycle.orphan.dropped")
        case AdmitPod(uid):
            tags.add("cycle.kubelet.admitted" if uid in after.admitted else "cycle.kubelet.rejected")
            if len(after.failed) > len(before.failed) + (uid not in after.admitted):
                tags.add("cycle.kubelet.critical_evicts")
            rejected = uid in after.failed and uid not in before.failed
            if rejected and uid in before.api_pods and is_critical_pod(before.api_pods[uid]):
                tags.add("cycle.kubelet.critical_rejected")
    if _overcommitted(after) and not _overcommitted(before):
        tags.add("cycle.overcommit")
    return tags


def _schedule(before: Cluster, uid: str, node: str, outcome: CycleOutcome) -> set[str]:
    if outcome.kind == NODE_NOT_IN_SNAPSHOT:
        return {"cycle.schedule.node_not_in_snapshot"}
    snapshot = refreshed_snapshot(before)
    tags = _examined(before, before.pending[uid], snapshot.node_info_map[node], snapshot)
    if outcome.kind is None:
        tags.add("cycle.schedule.assumed")
    return tags


def _decision(outcome: CycleOutcome) -> set[str]:
    """The rules of the choice (:mod:`spec.cycle.select`, :mod:`spec.cycle.scores`) the step's scheduling cycle
    exercised: how many nodes were allowed, which scores told the nodes apart, and the failure message."""
    decision = outcome.decision
    if decision is None:
        return set()
    tags: set[str] = set()
    if decision.message.startswith("0/"):
        tags.add("cycle.message.fit_error")
    if len(decision.feasible) == 1:
        tags.add("cycle.select.single_feasible")
    if len(decision.allowed) >= 2:
        tags.add("cycle.select.tie")
    if len(decision.feasible) >= 2 and len(decision.allowed) < len(decision.feasible):
        tags.add("cycle.select.highest_total")
    columns: dict[str, set[int]] = {}
    for score in decision.scores:
        for plugin, value in score.plugins:
            columns.setdefault(plugin, set()).add(value)
    if decision.scores and "NodeResourcesBalancedAllocation" not in columns:
        tags.add("cycle.score.balanced_allocation_skipped")
    for plugin, tag in _SCORE_TAGS.items():
        if len(columns.get(plugin, ())) >= 2:
            tags.add(tag)
    if columns.get("NodeAffinity") == {0}:
        tags.add("cycle.score.node_affinity_all_zero")
    return tags


_SCORE_TAGS = {"TaintToleration": "cycle.score.taint_toleration", "NodeResourcesFit": "cycle.score.least_allocated",
               "NodeResourcesBalancedAllocation": "cycle.score.balanced_allocation",
               "ImageLocality": "cycle.score.image_locality", "NodeAffinity": "cycle.score.node_affinity"}


def _failure_handled(uid: str, after: Cluster) -> set[str]:
    """The failure handler's requeue decision: a pod its lister has bound is not requeued."""
    listed = after.api_pods.get(uid)
    if uid not in after.pending and listed is not None and listed.node_name:
        return {"cycle.failure.bound_not_requeued"}
    return set()


def _fail_scheduling(before: Cluster, uid: str, node: str | None, point: FailurePoint | None) -> set[str]:
    snapshot = refreshed_snapshot(before)
    pod = before.pending[uid]
    if node is not None:
        tags = _examined(before, pod, snapshot.node_info_map[node], snapshot)
        return tags | {"cycle.reserve.rejected" if point is FailurePoint.RESERVE else "cycle.permit.rejected"}
    if not snapshot.node_info_list:
        return {"cycle.unschedulable.no_nodes"}
    tags = {"cycle.unschedulable.no_feasible_node"}
    for name in snapshot.node_info_list:
        tags |= _examined(before, pod, snapshot.node_info_map[name], snapshot)
    return tags


def _examined(before: Cluster, pod: Pod, info: NodeInfo, snapshot: Snapshot) -> set[str]:
    """The filter rules that decided whether ``pod`` fits the snapshot entry ``info``."""
    node = info.node
    assert node is not None
    failing = failing_filters(pod, info, snapshot, before.namespaces)
    tags = {_FILTER_TAGS[failing[0]]} if failing else set()
    if failing and failing[0] == "NodeResourcesFit":
        unresolvable = rejection_code("NodeResourcesFit", pod, info, snapshot,
                                      before.namespaces) is Code.UNSCHEDULABLE_AND_UNRESOLVABLE
        tags.add("cycle.fit.code_unresolvable" if unresolvable else "cycle.fit.code_unschedulable")
    if len(failing) >= 2:
        tags.add("cycle.filter.first_failure_reported")
    if "TaintToleration" not in failing and any(t.effect in (NO_SCHEDULE, NO_EXECUTE) for t in node.taints):
        tags.add("cycle.taint.tolerated")
    if "TaintToleration" not in failing and any(t.effect == "PreferNoSchedule" for t in node.taints):
        tags.add("cycle.taint.prefer_no_schedule_ignored")
    if node.unschedulable and "NodeUnschedulable" not in failing:
        tags.add("cycle.cordon.tolerated")
    if pod.node_selector and "NodeAffinity" not in failing:
        tags.add("cycle.selector.matched")
    tags |= _ports(pod, info)
    tags |= _fit(before, pod, info)
    if not any(name in failing for name, _ in DEFAULT_FILTERS):  # the snapshot filters were reached
        states = pre_filter(pod, snapshot, before.namespaces)
        tags |= _spread(pod, node, snapshot, states) | _pod_affinity(node, snapshot, states)
    return tags


def _spread(pod: Pod, node: Node, snapshot: Snapshot, states: PreFilterStates) -> set[str]:
    """PodTopologySpread's rules that decided ``node`` (:mod:`spec.cycle.podtopologyspread`)."""
    state = states.pod_topology_spread
    if state is None:
        return set()
    rejection = podtopologyspread.filter_node(state, pod, node)
    tags = set()
    if rejection is None:
        tags.add("cycle.spread.within_skew")
    elif rejection.reason == podtopologyspread.ERR_REASON_NODE_LABEL_NOT_MATCH:
        tags.add("cycle.spread.missing_topology_key")
    else:
        tags.add("cycle.spread.skew_exceeded")
    constraints = state.constraints
    if any(len(state.tp_value_to_match_num[i]) < c.min_domains for i, c in enumerate(constraints)):
        tags.add("cycle.spread.min_domains_unmet")
    if any(not selector_matches(c.selector, pod.labels) for c in constraints):
        tags.add("cycle.spread.self_not_counted")
    for name in snapshot.node_info_list:
        info = snapshot.node_info_map[name]
        other = info.node
        assert other is not None
        if not podtopologyspread.node_labels_match_spread_constraints(other.labels, constraints):
            continue
        for c in constraints:
            if not podtopologyspread.match_node_inclusion_policies(c, pod, info, fits_node_affinity,
                                                                   fits_taint_toleration):
                tags.add("cycle.spread.node_excluded_by_policy")
            elif any(p.namespace != pod.namespace and selector_matches(c.selector, p.labels) for p in info.pods):
                tags.add("cycle.spread.other_namespace_not_counted")
    return tags


def _pod_affinity(node: Node, snapshot: Snapshot, states: PreFilterStates) -> set[str]:
    """InterPodAffinity's rules that decided ``node`` (:mod:`spec.cycle.interpodaffinity`), in Filter's order."""
    state = states.inter_pod_affinity
    if state is None:
        return set()
    tags = set()
    if state.affinity_terms:
        if any(t.topology_key not in node.labels for t in state.affinity_terms):
            tags.add("cycle.affinity.missing_topology_key")
        if not interpodaffinity.satisfy_pod_affinity(state, node):
            return tags | {"cycle.affinity.required_unmatched"}
        tags.add("cycle.affinity.first_of_group" if not state.affinity_counts else "cycle.affinity.required_matched")
    if state.anti_affinity_terms:
        if not interpodaffinity.satisfy_pod_anti_affinity(state, node):
            return tags | {"cycle.affinity.anti_affinity_rejected"}
        tags.add("cycle.affinity.anti_affinity_satisfied")
    if not interpodaffinity.satisfy_existing_pods_anti_affinity(state, node):
        tags.add("cycle.affinity.existing_anti_affinity_rejected")
    return tags


def _namespace_selected(before: Cluster, uid: str) -> set[str]:
    """Whether the scheduling cycle of pending pod ``uid`` read a namespace's labels: a non-empty namespace selector
    of one of the pod's (anti-)affinity terms selects a namespace that exists
    (``mergeAffinityTermNamespacesIfNotEmpty``), or one of an existing pod's terms selects the pod's namespace
    (``GetNamespaceLabelsSnapshot``)."""
    pod = before.pending[uid]
    labels = interpodaffinity.namespace_labels(pod.namespace, before.namespaces)
    own = (t.namespace_selector for t in _terms(pod))
    if any(s is not None and not s.is_empty() and any(map(s.matches, before.namespaces.values())) for s in own):
        return {"cycle.affinity.namespace_selected"}
    existing = (t.namespace_selector for info in before.cache.nodes.values() for p in info.pods for t in _terms(p))
    if before.namespaces and any(s is not None and not s.is_empty() and s.matches(labels) for s in existing):
        return {"cycle.affinity.namespace_selected"}
    return set()


def _terms(pod: Pod) -> tuple[PodAffinityTerm, ...]:
    """Every (anti-)affinity term of ``pod``, required and preferred."""
    terms: list[PodAffinityTerm] = []
    for affinity in (pod.pod_affinity, pod.pod_anti_affinity):
        if affinity is not None:
            terms += affinity.required_affinity_terms()
            terms += (w.pod_affinity_term for w in affinity.preferred_affinity_terms())
    return tuple(terms)


def _ports(pod: Pod, info: NodeInfo) -> set[str]:
    tags: set[str] = set()
    for port in get_host_ports(pod):
        wanted = host_port(port.host_ip, port.protocol, port.host_port)
        same_number = [u for u in info.used_ports if u.port == wanted.port]
        if not same_number:
            continue
        if ports_conflict(wanted, info.used_ports):
            exact = any(u == wanted for u in same_number)
            same_protocol = [u.ip for u in same_number if u.protocol == wanted.protocol]
            wildcard = DEFAULT_BIND_ALL_HOST_IP in (wanted.ip, *same_protocol)
            tags.add("cycle.ports.same_ip_conflict" if exact and not wildcard else "cycle.ports.wildcard_conflict")
            continue
        if any(u.protocol != wanted.protocol for u in same_number):
            tags.add("cycle.ports.other_protocol_no_conflict")
        if any(u.protocol == wanted.protocol and u.ip != wanted.ip for u in same_number):
            tags.add("cycle.ports.other_ip_no_conflict")
    return tags


def _fit(before: Cluster, pod: Pod, info: NodeInfo) -> set[str]:
    request = compute_pod_resource(pod).resource
    lacking = insufficient_resources(request, info)
    tags = {_FIT_TAGS.get(name, "cycle.fit.scalar") for name in lacking}
    nothing = (request.milli_cpu == request.memory == request.ephemeral_storage == 0
               and not any(request.scalar_resources.values()))
    if nothing and "pods" not in lacking and (info.allocatable.milli_cpu <= info.requested.milli_cpu):
        tags.add("cycle.fit.zero_request_skips_resources")
    if not lacking and request.milli_cpu > 0:
        free_non_zero = info.allocatable.milli_cpu - info.non_zero_requested.milli_cpu
        if request.milli_cpu > free_non_zero:
            tags.add("cycle.fit.requested_not_non_zero")
    if lacking and any(uid in before.cache.assumed_pods for uid in (p.uid for p in info.pods)):
        tags.add("cycle.fit.assumed_counted")
    return tags


def _delete(before: Cluster, uid: str, after: Cluster) -> set[str]:
    if uid in before.pending:
        return {"cycle.delete.pending"}
    listed = before.api_pods[uid]
    if listed.terminating and listed.node_name == "" and before.running:
        return {"cycle.delete.skipped"}
    if uid in before.cache.assumed_pods:
        return {"cycle.delete.assumed_forgotten" if uid not in after.cache.pod_states else "cycle.delete.assumed_kept"}
    return {"cycle.delete.bound_removed"} if uid in before.cache.pod_states else set()


def _overcommitted(cluster: Cluster) -> bool:
    """Whether a live node's Requested exceeds its Allocatable in cpu or memory."""
    return any(info.node is not None and (info.requested.milli_cpu > info.allocatable.milli_cpu
                                          or info.requested.memory > info.allocatable.memory)
               for info in cluster.cache.nodes.values())


