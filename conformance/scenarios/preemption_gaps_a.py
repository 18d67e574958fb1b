"""Curated vectors for the survivors mutation/equivalents.toml listed as gaps (issue 25): DefaultPreemption's
eligibility with a terminating victim on the pod's nominated node, a nominated node the snapshot does not hold, and
the nominator's update of a pod whose nominatedNodeName is kept, added or dropped.

The cycle scenarios port ``TestPodEligibleToPreemptOthers`` (v1.35
pkg/scheduler/framework/plugins/defaultpreemption/default_preemption_test.go; its cases are the same in v1.34.12,
v1.36.5 and v1.37.2, where v1.37 adds cases whose victims belong to PodGroups, which the spec does not model). That
test puts its pods in the snapshot directly; here a terminating pod reaches its node as any pod does (created, then
placed) and is then deleted gracefully (``terminate_pod``: ``DeletionTimestamp`` set, the informer's update reaches the
cache), as kube-scheduler never places a pod that is already terminating (``skipPodSchedule``). The nominated node's
Filter status comes from the default filters. The queue scenarios port
``TestPriorityQueue_Update``'s 'add a nominatedNodeName' case and the three cases of ``nominator.UpdateNominatedPod``
(v1.35 pkg/scheduler/backend/queue/nominator.go) its comment names. Expected outcomes come from the spec
(:func:`conformance.traces.expand`), never from here.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Final

from conformance.operations import (
    ClusterAddNode,
    ClusterRemoveNode,
    ClusterUpdateNode,
    CreatePod,
    CycleOperation,
    DeletePod,
    FailScheduling,
    TerminatePod,
)
from conformance.scenarios.cycle import node, placed, pod
from conformance.traces import ALL_PROFILES, Scenario
from spec.frozenmap import FrozenMap
from spec.objects import Pod, Taint
from spec.queue.operations import QueueAdd, QueueAddNominatedPod, QueueDelete, QueueOperation, QueueUpdate

_GAPSA_LOW, _GAPSA_HIGH, _GAPSA_VERY_HIGH = 1, 10, 100
"""default_preemption_test.go's lowPriority, highPriority and veryHighPriority."""
_GAPSA_ELIGIBILITY_TEST: Final = "TestPodEligibleToPreemptOthers (default_preemption_test.go)"
_GAPSA_TAINT: Final = Taint("dedicated", "gpu", "NoSchedule")
"""A NoSchedule taint the pods do not tolerate: TaintToleration's Filter rejects the node as
UnschedulableAndUnresolvable (``ErrReasonNotMatch``), as the test's nominatedNodeStatus has it."""


def _gapsa_pod(uid: str, cpu: int, priority: int, **fields: object) -> Pod:
    """A pending pod of :func:`conformance.scenarios.cycle.pod` with ``priority`` and any other pod ``fields``."""
    return replace(pod(uid, cpu), priority=priority, **fields)  # type: ignore[arg-type]


def _gapsa_victim(uid: str, cpu: int, priority: int, by_scheduler: bool = True) -> Pod:
    """A pod that :func:`_gapsa_bound` makes terminating once placed (``Terminating()``: DeletionTimestamp set), with
    the DisruptionTarget condition (status True, reason PreemptionByScheduler) if ``by_scheduler``: a victim of an
    earlier preemption still shutting down (preemption patches the condition, then deletes the pod)."""
    return _gapsa_pod(uid, cpu, priority, preempted_by_scheduler=by_scheduler)


def _gapsa_bound(*pods: tuple[Pod, str], terminating: tuple[str, ...] = ()) -> list[CycleOperation]:
    """Create each pod and place it (schedule, bind, confirm) on its node, in order; then delete the pods named in
    ``terminating`` gracefully (``terminate_pod``), so they are terminating and still hold their node."""
    ops: list[CycleOperation] = []
    for p, name in pods:
        ops += [CreatePod(p), *placed(p.uid, name)]
    return ops + [TerminatePod(uid) for uid in terminating]


def _gapsa_cycle(sid: str, description: str, ops: Sequence[CycleOperation], *behaviours: str,
                 profiles: tuple[str, ...] = ALL_PROFILES) -> Scenario:
    return Scenario(f"cycle.preemption.eligibility.{sid}", description, ops, area="cycle",
                    behaviours=("preemption", *behaviours), profiles=profiles, preemption=True)


def gaps_a_preemption_scenarios() -> list[Scenario]:
    """``TestPodEligibleToPreemptOthers``' cases with a nominated node, as cycles, and the eligibility checks they
    leave open: a terminating pod of higher priority there, and a nominated node the snapshot does not hold."""
    n1, n2 = node("n1"), node("n2")
    tainted = replace(n1, taints=(_GAPSA_TAINT,))
    return [
        _gapsa_cycle(
            "terminating_victim",
            f"{_GAPSA_ELIGIBILITY_TEST} 'preemption victim pod terminating, as indicated by the dedicated "
            "DisruptionTarget condition': the pod is nominated to n1, where a pod of lower priority is terminating "
            "with DisruptionTarget=True (PreemptionByScheduler) and still holds the cpu the pod needs; n1's rejection "
            "is Unschedulable, so the pod is not eligible: nothing is preempted, the message says why, and the pod "
            "stays nominated to n1 (a nil PostFilter result keeps its own NominatedNodeName). Once the victim is "
            "gone the pod is placed on n1",
            [ClusterAddNode(n1), *_gapsa_bound((_gapsa_victim("v", 600, _GAPSA_LOW), "n1"), terminating=("v",)),
             CreatePod(_gapsa_pod("p", 600, _GAPSA_HIGH, nominated_node_name="n1")), FailScheduling("p"),
             DeletePod("v"), *placed("p", "n1")],
            "preemption.not_eligible_terminating", "preemption.bind_after"),
        _gapsa_cycle(
            "terminating_non_victim",
            f"{_GAPSA_ELIGIBILITY_TEST} 'non-victim Pods terminating': n1, the pod's nominated node, holds a "
            "terminating pod of lower priority without the DisruptionTarget condition (deleted by someone else), so "
            "the pod may preempt; n1 has no room even without it (a pod of higher priority stays), and the pod of "
            "lower priority on n2 is the victim",
            [ClusterAddNode(n1), ClusterAddNode(n2),
             *_gapsa_bound((_gapsa_victim("t", 500, _GAPSA_LOW, by_scheduler=False), "n1"),
                           (_gapsa_pod("h", 500, _GAPSA_VERY_HIGH), "n1"), (_gapsa_pod("l", 600, _GAPSA_LOW), "n2"),
                           terminating=("t",)),
             CreatePod(_gapsa_pod("p", 600, _GAPSA_HIGH, nominated_node_name="n1")), FailScheduling("p")],
            "preemption.eligible_terminating", "preemption.success"),
        _gapsa_cycle(
            "nominated_node_unresolvable",
            f"{_GAPSA_ELIGIBILITY_TEST} 'Pod with nominated node': the pod's nominated node n1 holds a terminating "
            "pod of lower priority and is tainted, so Filter rejects it as UnschedulableAndUnresolvable "
            "(TaintToleration) and the pod may preempt again; the pod of lower priority on n2 is the victim",
            [ClusterAddNode(n1), ClusterAddNode(n2),
             *_gapsa_bound((_gapsa_victim("t", 600, _GAPSA_LOW, by_scheduler=False), "n1"),
                           (_gapsa_pod("l", 600, _GAPSA_LOW), "n2"), terminating=("t",)),
             ClusterUpdateNode(tainted),
             CreatePod(_gapsa_pod("p", 600, _GAPSA_HIGH, nominated_node_name="n1")), FailScheduling("p")],
            "preemption.eligible_terminating", "preemption.success"),
        _gapsa_cycle(
            "nominated_node_unresolvable_victim_terminating",
            f"As {_GAPSA_ELIGIBILITY_TEST} 'Pod with nominated node', with the terminating pod on n1 carrying "
            "DisruptionTarget (PreemptionByScheduler): an UnschedulableAndUnresolvable nominated node makes the pod "
            "eligible before its pods are looked at, so it preempts on n2",
            [ClusterAddNode(n1), ClusterAddNode(n2),
             *_gapsa_bound((_gapsa_victim("v", 600, _GAPSA_LOW), "n1"), (_gapsa_pod("l", 600, _GAPSA_LOW), "n2"),
                           terminating=("v",)),
             ClusterUpdateNode(tainted),
             CreatePod(_gapsa_pod("p", 600, _GAPSA_HIGH, nominated_node_name="n1")), FailScheduling("p")],
            "preemption.eligible_terminating", "preemption.success"),
        _gapsa_cycle(
            "terminating_higher_priority",
            "PodEligibleToPreemptOthers counts only terminating pods the pod may preempt (isPreemptionAllowed: a "
            "lower priority): n1, the pod's nominated node, holds a pod of higher priority terminating with "
            "DisruptionTarget (PreemptionByScheduler), which does not stop the pod; n1 has no victim for it, so "
            "it preempts the pod of lower priority on n2",
            [ClusterAddNode(n1), ClusterAddNode(n2),
             *_gapsa_bound((_gapsa_victim("v", 600, _GAPSA_VERY_HIGH), "n1"), (_gapsa_pod("l", 600, _GAPSA_LOW), "n2"),
                           terminating=("v",)),
             CreatePod(_gapsa_pod("p", 600, _GAPSA_HIGH, nominated_node_name="n1")), FailScheduling("p")],
            "preemption.eligible_terminating", "preemption.success"),
        _gapsa_cycle(
            "all_victims_terminating",
            "prepareCandidateAsync with every victim already terminating: p's only victim on n1, t, is being deleted "
            "(no DisruptionTarget, so p is eligible). From v1.35 no goroutine starts and t gets no API call; "
            "v1.34's goroutine calls PreemptPod for t all the same, whose delete removes it "
            "(VersionProfile.preemption_skips_terminating_victims)",
            [ClusterAddNode(n1), *_gapsa_bound((_gapsa_victim("t", 600, _GAPSA_LOW, by_scheduler=False), "n1"),
                                               terminating=("t",)),
             CreatePod(_gapsa_pod("p", 600, _GAPSA_HIGH)), FailScheduling("p")],
            "preemption.terminating_victims_skipped", "preemption.success"),
        _gapsa_cycle(
            "all_victims_terminating_nomination_kept",
            "As all_victims_terminating, with m of lower priority nominated to n1 (its own nominatedNodeName): from "
            "v1.35 no goroutine starts, so m keeps its nomination (getLowerPriorityNominatedPods and "
            "clearNominatedNodeName run in the goroutine); v1.34's goroutine clears it (a status patch the nominator "
            "sees as the informer's update, applied at once here)",
            [ClusterAddNode(n1), *_gapsa_bound((_gapsa_victim("t", 600, _GAPSA_LOW, by_scheduler=False), "n1"),
                                               terminating=("t",)),
             CreatePod(_gapsa_pod("m", 400, _GAPSA_LOW + 2, nominated_node_name="n1")),
             CreatePod(_gapsa_pod("p", 600, _GAPSA_HIGH)), FailScheduling("p")],
            "preemption.terminating_victims_skipped", "preemption.success"),
        _gapsa_cycle(
            "nominated_node_removed",
            "The pod is nominated to n0, a node since removed: the snapshot does not hold it, so Filter gave it no "
            "status and NodeToStatus.Get returns the absent nodes' status (UnschedulableAndUnresolvable: "
            "NewDefaultNodeToStatus); evaluateNominatedNode's error is only logged. The pod may preempt, and "
            "preempts the pod of lower priority on n1",
            [ClusterAddNode(node("n0")), ClusterRemoveNode("n0"), ClusterAddNode(n1),
             *_gapsa_bound((_gapsa_pod("l", 600, _GAPSA_LOW), "n1")),
             CreatePod(_gapsa_pod("p", 600, _GAPSA_HIGH, nominated_node_name="n0")), FailScheduling("p")],
            "preemption.nominated_node_absent", "preemption.success"),
    ]


# ================================================================================================================
# The nominator's UpdateNominatedPod, through the queue's Update
# ================================================================================================================

_GAPSA_UPDATE_TEST: Final = "TestPriorityQueue_Update (scheduling_queue_test.go)"
_GAPSA_NOMINATOR: Final = "nominator.UpdateNominatedPod (pkg/scheduler/backend/queue/nominator.go)"
_GAPSA_LABELLED: Final = FrozenMap({"updated": "yes"})


def _gapsa_qpod(uid: str, nominated: str = "", **fields: object) -> Pod:
    """A queue pod of namespace ns1 (``st.MakePod().Name(uid).Namespace("ns1").UID(uid)``), nominated to
    ``nominated`` in its object if set."""
    return Pod(uid, uid, namespace="ns1", nominated_node_name=nominated, **fields)  # type: ignore[arg-type]


def _gapsa_queue(sid: str, description: str, ops: Sequence[QueueOperation]) -> Scenario:
    return Scenario(f"queue.nominator_update.{sid}", description, ops, area="queue",
                    behaviours=("queue.nominator.update",), profiles=ALL_PROFILES)


def gaps_a_queue_scenarios() -> list[Scenario]:
    """The queue's ``Update`` of a pod the nominator holds: the nomination PostFilter made kept when neither object
    names a node, the object's node taken when it adds, changes or drops one; another pod nominated to the same node
    keeps its nomination throughout."""
    p, q = _gapsa_qpod("p"), _gapsa_qpod("q", "node1")
    p_labelled = _gapsa_qpod("p", labels=_GAPSA_LABELLED)
    return [
        _gapsa_queue(
            "override_kept",
            f"{_GAPSA_NOMINATOR}: 'an Update event with no NominatedNode present is received right after a node is "
            "reserved for this pod in memory': p, nominated to node1 by PostFilter (AddNominatedPod, Override) "
            "beside q, is updated (a label) with no nominatedNodeName in either object: it stays nominated to "
            "node1, after q",
            [QueueAdd(q), QueueAdd(p), QueueAddNominatedPod(p, "node1"), QueueUpdate(p, p_labelled)]),
        _gapsa_queue(
            "added",
            f"{_GAPSA_UPDATE_TEST} 'Update highPriorityPodInfo and add a nominatedNodeName to it' ({_GAPSA_NOMINATOR} "
            "case (1)): p, nominated to node1 in memory beside q, is updated to name node2 in its object: the "
            "object's node wins, p moves to node2 and q stays on node1",
            [QueueAdd(q), QueueAdd(p), QueueAddNominatedPod(p, "node1"), QueueUpdate(p, _gapsa_qpod("p", "node2"))]),
        _gapsa_queue(
            "changed",
            f"{_GAPSA_NOMINATOR} case (2): p's object names node1, beside q, and is updated to name node2: p moves, "
            "q stays",
            [QueueAdd(q), QueueAdd(_gapsa_qpod("p", "node1")),
             QueueUpdate(_gapsa_qpod("p", "node1"), _gapsa_qpod("p", "node2"))]),
        _gapsa_queue(
            "removed",
            f"{_GAPSA_NOMINATOR} case (3): p's object names node1, beside q, and is updated to name none: the "
            "nomination is not kept (only an update where neither object names a node keeps it), and q stays "
            "nominated to node1; deleting q then leaves no nomination",
            [QueueAdd(q), QueueAdd(_gapsa_qpod("p", "node1")), QueueUpdate(_gapsa_qpod("p", "node1"), p),
             QueueDelete(q)]),
    ]
