"""Invariants of the scheduling pipeline (:mod:`spec.cycle.cycle`), once each, as named predicates.

The cache's own invariants (:mod:`spec.cache.invariants`) hold here too while the assumed-pod TTL is 0:
then every input the pipeline feeds the cache follows the informer contract (:mod:`spec.cache.contract`).
With a non-zero TTL only those that hold for every input (``always``) are guaranteed, because one
input may break the contract: an assumed pod whose binding finished expires, the scheduler gives
its place to another pod, and the informer's late confirmation of the expired pod
(:func:`spec.cycle.cycle.confirm_binding`, an ``AddPod``) puts it back beside that pod. When the two
pods use the same host port, that ``AddPod`` breaks the contract's "no two pods on one node share
a host port"; when one of them then leaves, ``HostPortInfo.Remove`` (a set, not
reference-counted: staging/src/k8s.io/kube-scheduler/framework/types.go) deletes the port the
other still uses, and :func:`~spec.cache.invariants.inv_used_ports_are_union_of_pods` fails. The model
checker finds this in 10 steps (``ksspec check --system cycle --pod-variants 2 --known-violations``).

The predicates below are about the pipeline. :func:`inv_no_node_overcommitted` is the headline;
it needs two assumptions about the environment, stated in its docstring, and is a known violation
with a non-zero TTL (the same late confirmation, 9 steps). With TTL 0 and those assumptions,
``ksspec prove`` proves it inductive for every cluster of up to 4 pods and 3 nodes, every cpu and
memory request and allocatable, and every pod capacity (group ``cycle``, ``spec.verify.cycle.obligations``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Final

from spec.cache.cache import CacheState, dump
from spec.cache.nodeinfo import NodeInfo
from spec.cycle.cycle import Cluster, responsible_for_pod, watches_pod
from spec.cycle.preemption import PreemptionResult
from spec.frozenmap import FrozenMap
from spec.objects import PREEMPT_NEVER, Pod
from spec.queue.invariants import nominator_consistent
from spec.queue.nominator import Nominator
from spec.resources import Resource


def inv_every_pod_has_one_place(cluster: Cluster) -> bool:
    """Every pod the scheduler is responsible for is in exactly one place: pending, in a binding cycle, or bound.

    A pod is never lost (a failed binding cycle requeues it) and never scheduled twice at once. Only pods the
    scheduler takes (:func:`spec.cycle.cycle.responsible_for_pod`) and its informer has delivered count; a scheduler
    that is down holds nothing. Only a crashed predecessor's orphaned bind request (:mod:`spec.cluster.restart`) binds
    a pod behind the scheduler's back: such a pod stays queued until the informer delivers its binding, and its
    binding cycle, if one runs, will fail with a conflict. A terminating pod that ``ScheduleOne`` skipped
    (:func:`spec.cycle.cycle.skip_pod`) is in no place: it is not put back, and waits to be deleted.
    """
    pending, binding = set(cluster.pending), set(cluster.binding)
    if not cluster.running:
        return not pending and not binding and not cluster.unconfirmed
    unbound = {uid for uid, pod in cluster.api_pods.items() if pod.node_name == ""}
    bound = set(cluster.api_pods) - unbound
    ours = {uid for uid in unbound if responsible_for_pod(cluster, cluster.api_pods[uid]) and watches_pod(cluster, uid)
            and not (cluster.api_pods[uid].terminating and uid not in cluster.pending)}
    bound_behind_its_back = cluster.crashed_in_flight & cluster.unconfirmed
    return (
        not pending & binding
        and pending <= unbound | bound_behind_its_back
        and ours <= pending | binding
        and binding & bound <= cluster.crashed_in_flight
    )


def inv_assumed_pods_have_a_binding(cluster: Cluster) -> bool:
    """Every pod the cache assumes has a binding cycle in flight, or was bound and awaits the informer.

    No assumed pod is left behind: without this, a pod whose binding failed would hold its
    node's resources forever (with the production TTL of 0 nothing would ever expire it).
    """
    return cluster.cache.assumed_pods <= set(cluster.binding) | cluster.unconfirmed


def inv_bound_pods_are_cached_where_bound(cluster: Cluster) -> bool:
    """A bound pod whose informer event arrived is in the cache, confirmed, on the node it is bound to
    (for a running scheduler, once its informer has delivered the pod)."""
    for uid, pod in cluster.api_pods.items():
        if pod.node_name == "" or uid in cluster.unconfirmed or not watches_pod(cluster, uid):
            continue
        cached = cluster.cache.pod_states.get(uid)
        if cached is None or uid in cluster.cache.assumed_pods or cached.pod.node_name != pod.node_name:
            return False
    return True


def inv_no_node_overcommitted(cluster: Cluster) -> bool:
    """No double-booking of resources: on every node, the pods the scheduler assumed or bound there
    fit its allocatable, and their number fits its pod capacity.

    Kubernetes guarantees it when (1) a node's allocatable never shrinks under its pods, and (2)
    every pod on a node was placed by this scheduler. KNOWN VIOLATION with a non-zero TTL: an
    assumed pod whose binding finished expires if the informer is slower than the TTL; its
    resources are then given to another pod, and the late confirmation adds it back (the reason
    the scheduler's TTL has been 0 since k8s #106361; see tests/spec/cycle/test_cycle.py). With several
    schedulers, assumption (2) fails and so may this, for each scheduler's cache (:mod:`spec.cluster.cluster`).
    """
    return all(node_info_fits(info) for info in cluster.cache.nodes.values() if info.node is not None)


def node_info_fits(info: NodeInfo) -> bool:
    """The NodeInfo's pods fit its allocatable (:func:`fits_within`), and their number its pod capacity."""
    return len(info.pods) <= info.allocatable.allowed_pod_number and fits_within(info.requested, info.allocatable)


def fits_within(requested: Resource, allocatable: Resource) -> bool:
    """Every resource of ``requested`` is at most the same resource of ``allocatable``."""
    return (
        requested.milli_cpu <= allocatable.milli_cpu
        and requested.memory <= allocatable.memory
        and requested.ephemeral_storage <= allocatable.ephemeral_storage
        and all(q <= allocatable.scalar_resources.get(n, 0) for n, q in requested.scalar_resources.items())
    )


def cache_contents(state: CacheState) -> tuple[FrozenMap[str, object], frozenset[str], object]:
    """What the cache holds, without generations and the update order: pods, assumptions, NodeInfos."""
    nodes = FrozenMap(
        {
            name: (info.node, info.pods, info.requested, info.non_zero_requested, info.used_ports, info.pvc_ref_counts)
            for name, info in dump(state).nodes.items()
        }
    )
    return FrozenMap(dict(state.pod_states)), state.assumed_pods, nodes


def trans_failed_scheduling_keeps_the_cache(before: Cluster, after: Cluster) -> bool:
    """A scheduling cycle that fails leaves the cache holding exactly what it held (generations may move), but for
    the victims its preemption deleted: those leave it, and nothing else changes in it."""
    victims = preempted_pods(before, after)
    if not victims:
        return cache_contents(before.cache) == cache_contents(after.cache)
    kept = set(before.cache.pod_states) - victims
    return set(after.cache.pod_states) == kept and all(
        after.cache.pod_states[uid].pod == before.cache.pod_states[uid].pod for uid in kept)


def preempted_pods(before: Cluster, after: Cluster) -> set[str]:
    """The pods a step deleted at the API server (for a failed scheduling cycle: its preemption's victims)."""
    return set(after.deleted) - set(before.deleted)


def trans_preemption_evicts_only_lower_priority(before: Cluster, after: Cluster, uid: str) -> bool:
    """A failed scheduling cycle of pod ``uid`` deletes only pods of lower priority than it, only if its preemption
    policy allows it (:func:`inv_no_pod_preempted_by_lower_or_equal` over the step's preemptions), and only with
    preemption on; and the pods whose nomination it removed, other than ``uid``, have lower priority too
    (:func:`inv_preemption_victims_have_lower_priority`'s ``cleared``)."""
    preemptor = before.pending[uid]
    victims = [before.api_pods[v] for v in preempted_pods(before, after)]
    if victims and not before.preemption:
        return False
    lost = {u for u in before.nominator.pod_to_node if u not in after.nominator.pod_to_node and u != uid}
    cleared = [before.api_pods[u] for u in lost if u in after.api_pods]
    return (inv_no_pod_preempted_by_lower_or_equal([(preemptor, v) for v in victims])
            and all(p.priority < preemptor.priority for p in cleared))


def inv_nominations_in_the_queue(cluster: Cluster) -> bool:
    """The nominator holds each pod once, only pending pods (a pod leaves it when assumed, deleted or found bound,
    ``DeleteNominatedPodIfExists``) and unbound terminating pods ``ScheduleOne`` skipped
    (:func:`spec.cycle.cycle.skip_pod` leaves the nominator as it is until the deletion), none also in the cache
    (:func:`inv_nominated_resources_not_double_counted`), and nothing without preemption (no PostFilter nominates)."""
    nominated = set(cluster.nominator.pod_to_node)
    if not cluster.preemption:
        return not nominated
    skipped = {uid for uid, pod in cluster.api_pods.items() if pod.terminating and pod.node_name == ""}
    return nominated <= set(cluster.pending) | skipped and inv_nominated_resources_not_double_counted(cluster.nominator,
                                                                                            cluster.cache)


def inv_no_terminating_pod_scheduled(cluster: Cluster) -> bool:
    """No terminating pod is assumed or bound by the scheduler: no binding cycle, assumed pod of the cache or orphaned
    bind request holds a pod whose ``DeletionTimestamp`` is set. ``ScheduleOne`` skips a popped pod that is being
    deleted (:func:`spec.cycle.cycle.skip_pod_schedule`), so the scheduler never places a pod that is going away; a
    bound pod may become terminating afterwards, and keeps its node's resources until it is deleted. A pod may also
    become terminating while its binding cycle is in flight (:func:`spec.cycle.cycle.terminate_pod`): the cycle and
    the cache hold the pod as it was assumed, and the API server refuses to bind it
    (:func:`spec.cycle.cycle.bind_refusal`)."""
    held = (*cluster.binding.values(), *cluster.orphaned.values(),
            *(state.pod for uid, state in cluster.cache.pod_states.items() if uid in cluster.cache.assumed_pods))
    return not any(pod.terminating for pod in held)


CYCLE_INVARIANTS: Final[tuple[Callable[[Cluster], bool], ...]] = (
    inv_every_pod_has_one_place,
    inv_assumed_pods_have_a_binding,
    inv_bound_pods_are_cached_where_bound,
    inv_nominations_in_the_queue,
    inv_no_terminating_pod_scheduled,
)
"""Pipeline invariants that hold in every reachable state, with any TTL and any profile."""


# ============================================================================================
# Preemption and the nominator (spec/cycle/preemption.py, spec/queue/nominator.py)
# ============================================================================================


def inv_preemption_victims_have_lower_priority(preemptor: Pod, result: PreemptionResult) -> bool:
    """Every victim of a preemption has a lower priority than its preemptor, and so do the pods whose nomination
    it clears. Guards ``isPreemptionAllowed`` (default_preemption.go): preemption must never evict a pod the
    preemptor does not outrank, or two pods of equal priority could evict each other in turn forever."""
    return all(p.priority < preemptor.priority for p in (*result.victims, *result.cleared))


def inv_no_pod_preempted_by_lower_or_equal(log: Sequence[tuple[Pod, Pod]]) -> bool:
    """Over a run's preemptions, given as (preemptor, victim) pairs: no pod was ever preempted by a pod of equal or
    lower priority, and no pod whose preemption policy is ``Never`` preempted anything."""
    return all(victim.priority < preemptor.priority and preemptor.preemption_policy != PREEMPT_NEVER
               for preemptor, victim in log)


def inv_nominated_resources_not_double_counted(nominator: Nominator, cache: CacheState) -> bool:
    """No pod is both nominated and in the cache (assumed or bound): Filter adds the nominated pods to a node's
    NodeInfo, so a pod in both would hold its node's resources twice. ``assume`` removes the nomination
    (``DeleteNominatedPodIfExists``, schedule_one.go) and the failure handler nominates only a pod the informer has
    unbound; and the nominator holds each pod once (:func:`spec.queue.invariants.nominator_consistent`)."""
    return nominator_consistent(nominator) and not set(nominator.pod_to_node) & set(cache.pod_states)
