"""Kubernetes version profiles: each difference between releases that the spec models.

A profile is chosen once, when a cache is created, and every transition consults it. No
transition may hard-code a choice that differs between the releases named here.

Sources (digest ``k8s-cache.md`` §0.1, §12, errata 1-2):

- PR #134157 (in v1.35.0-alpha.3) made the pod-delete event handler forget an assumed pod; the
  binding cycle then forgets it a second time, so ``ForgetPod`` of a pod the cache no longer
  knows returns nil from v1.35 on. Earlier, TTL-era code (and its test ``TestForgetPod``)
  returns "wasn't assumed so cannot be forgotten".
- PR #136204 (reviewed January 2026, after the v1.35.0 tag of 2025-12-18; v1.36.0 was tagged
  2026-04-22) removed assumed-pod expiry: ``FinishBinding``, the TTL, the deadline and
  ``cleanupAssumedPods``.
- PR #138445 (May 2026, so v1.37) introduced ``validateAssumedPod`` with the message "is not
  assumed, so it cannot be removed or forgotten"; the newest master's ``AddNode`` /
  ``UpdateNode`` return nothing.
- PR #135180 (November 2025, in v1.35.0) made a call of another type wait behind an in-flight
  call of its object instead of telling the in-flight call it was overwritten
  (``callQueue.merge``); v1.34.0 tells it.

- v1.37 counts the snapshot's PVC references incrementally (``refreshPVCRefCountsDelta``), which
  counts the claims of a pod on a node the cache has no node object for until the next full rebuild.

``V1_34`` to ``V1_37`` are checked against Kubernetes itself: the conformance suite runs on the
real ``pkg/scheduler/backend/cache`` and call queue of k8s.io/kubernetes v1.34.12, v1.35.8,
v1.36.5 and v1.37.2, the newest patch releases the module proxy serves (``make
conform-kubernetes``, examples/kubernetes-adapter), which is how PR #135180's change and v1.37's
PVC counting were found (first run on v1.35.0 and v1.34.0). v1.35's ``ForgetPod`` returns nil for
a pod the cache does not know, as PR #134157 implied.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from spec.valuetypes import cached_hash

WASNT_ASSUMED_MESSAGE: Final = "pod {key}({obj}) wasn't assumed so cannot be forgotten"
IS_NOT_ASSUMED_MESSAGE: Final = "pod {key}({obj}) is not assumed, so it cannot be removed or forgotten"


@cached_hash
@dataclass(frozen=True)
class VersionProfile:
    """The behaviour of one Kubernetes release line, as far as the spec distinguishes releases."""

    name: str
    """A stable identifier used in conformance vectors and on the command line."""
    description: str
    assumed_pod_expiry: bool
    """``FinishBinding``, the assumed-pod TTL and ``cleanupAssumedPods`` exist."""
    forget_unknown_pod_is_error: bool
    """``ForgetPod`` of a pod that is not in the cache returns "wasn't assumed" (else nil)."""
    not_assumed_message: str
    """The ``ForgetPod`` message for a pod that is in the cache but not assumed."""
    node_operations_return_node_info: bool
    """``AddNode`` / ``UpdateNode`` return a clone of the node's NodeInfo."""
    pod_level_resources: bool
    """The PodLevelResources feature gate's default (beta, on, since v1.34)."""
    forget_assumed_pod_on_delete: bool = True
    """Deleting an assumed pod forgets it at once (``handleAssumedPodDeletion``, PR #134157, v1.35), and so does the
    update that starts its graceful deletion (``updatePodInSchedulingQueue``: ``DeletionTimestamp`` newly set, the same
    PR); before, the deletion left it assumed until its binding cycle failed and the update was ignored."""
    dispatcher_max_in_flight: int | None = None
    """v1.34.0's goroutine limiter: at most this many API calls execute at once (None: no cap;
    PR #134154 removed the limiter before v1.35)."""
    dispatcher_close_notifies: bool = False
    """Closing the dispatcher tells every tracked call "api dispatcher is closed", and ``Add``
    after close is refused. False through v1.37: close notifies no one (digest §A.5)."""
    dispatcher_waits_behind_in_flight: bool = True
    """A call of another type for a UID whose call is in flight waits behind it, and the in-flight
    call is not told it was overwritten (``callQueue.merge``: "Old API call is in-flight. The new call
    needs to wait for the old one to finish"). PR #135180 (merged November 2025) brought it into v1.35.0;
    v1.34.0 tells the in-flight call at once. Found by running the suite against Kubernetes' own call
    queue (examples/kubernetes-adapter): the digest (§A.4) had placed it in PR #141745."""
    select_host_reservoir_sampling: bool = False
    """``selectHost`` samples the reservoir among the top-scored nodes (uniformly random, v1.34); from v1.35 (PR
    #135231) the top of the score heap wins, so ties break by heap order (digest §C.2g)."""
    opportunistic_batching: bool = True
    """The ``OpportunisticBatching`` gate (KEP-5598): new in v1.35, beta, on by default (digest §E)."""
    nominated_node_name_for_expectation: bool = True
    """The ``NominatedNodeNameForExpectation`` gate: the binding cycle patches NominatedNodeName before PreBind or a
    Permit wait. Beta and on in v1.35; alpha and off in v1.34 (digest §C.3)."""
    queueing_hints: bool = True
    """The ``SchedulerQueueingHints`` gate: a failed pod is requeued by the hints of the plugins that rejected it and
    the events seen during its attempt. GA and locked on since v1.34, so every profile has it; the scheduling queue
    (:func:`spec.queue.state.new_scheduling_queue`) still takes it off, as Kubernetes' own tests do by emulating
    v1.33, because the ``moveRequestCycle`` path it falls back to is still in the v1.34 to v1.36 code (v1.37 removed
    the gate and that path: :attr:`queueing_hints_gate`)."""
    taint_reason_names_the_taint: bool = False
    """TaintToleration's Filter rejects a node with the reason "node(s) had untolerated taint {key: value}", naming
    the first untolerated taint (v1.34.0); v1.35.0 says "node(s) had untolerated taint(s)" and only logs the taint
    (plugins/tainttoleration/taint_toleration.go, ``Filter``, read in both releases). The status code,
    UnschedulableAndUnresolvable, is the same. The change reached the v1.34 patch releases (v1.34.12 says
    "untolerated taint(s)", found by running the cycle vectors on its scheduler), and the v1.34 profile follows
    v1.34.12, so no profile sets it: it names v1.34.0's behaviour for an implementation that pins that release."""
    incremental_pvc_ref_counts: bool = False
    """The snapshot counts PVC references incrementally (v1.37): every ``addPod`` / ``removePod`` adds the change of
    its NodeInfo's ``PVCRefCounts`` to the cache's ``pvcRefCountsDelta`` (``refreshPVCRefCountsDelta``), ``RemoveNode``
    subtracts the node's counts, and an ``UpdateSnapshot`` that rebuilds nothing adds the delta to the snapshot's
    ``usedPVCRefCounts`` (``applyPVCRefCountDelta``; a count below zero makes it rebuild every list instead), while a
    full rebuild counts the listed nodes. So a claim of a pod on a node the cache has no node object for (a
    placeholder) is counted until the next full rebuild, which does not count it; through v1.36 the used-PVC set is
    recomputed from the listed nodes whenever a cloned node's claims change (pkg/scheduler/backend/cache/cache.go,
    read in v1.36.5 and v1.37.2). Found by running the suite on v1.37.2 (random.snapshot.seed1/seed2, step 26)."""
    balanced_allocation_scores_change: bool = False
    """NodeResourcesBalancedAllocation scores the change in balance the pod brings: ``MaxNodeScore/2 +
    (MaxNodeScore/2 + scoreWithPod - scoreWithoutPod)/2``, where the second score is the node's balance without the
    pod (``balancedResourceScorer``, plugins/noderesources/balanced_allocation.go, v1.36.5 and v1.37.2); through
    v1.35 it scored the balance with the pod only. Found by running the cycle vectors on v1.36.5's scheduler."""
    volume_binding_scores: bool = False
    """VolumeBinding's PreScore does not skip (``StorageCapacityScoring``, beta and on in v1.37.2, off before), so
    every scored node carries ``VolumeBinding: 0`` for a pod without volumes (``VolumeBinding.PreScore`` and
    ``Score``, plugins/volumebinding/volume_binding.go; the gate in pkg/features/kube_features.go). Found by running
    the cycle vectors on v1.37.2's scheduler."""
    dynamic_resources_scores: bool = True
    """The default profile's DynamicResources is a Score plugin of weight 2 (``applyDynamicResources``,
    pkg/scheduler/apis/config/v1/default_plugins.go, with the DynamicResourceAllocation gate on: GA). It has no
    PreScore, so it is never skipped, and for a pod without resource claims (every pod the spec models) its
    ``Score`` is 0 and its ``NormalizeScore`` (``DefaultNormalizeScore``) keeps 0: every scored node carries
    ``DynamicResources: 0``, the totals unchanged. v1.34's DynamicResources has no Score (it is in the profile
    without a weight). Read in v1.34.12 and v1.35.8; found by running the cycle vectors on Kubernetes' own scheduler
    (examples/kubernetes-adapter, v1.35.8)."""
    dynamic_resources_post_filter_reason: str = "no new claims to deallocate"
    """The reason DynamicResources' PostFilter gives for a pod without resource claims (``state.claims.empty()``):
    it runs before DefaultPreemption in the default profile's PostFilter, so when preemption does not succeed
    ``RunPostFilterPlugins`` joins the two messages (", ") and ``Diagnosis.PostFilterMsg`` starts with this one
    (plugins/dynamicresources/dynamicresources.go, v1.34.12 to v1.36.5); v1.37.2's returns Unschedulable without a
    reason (""). Found by running the preemption vectors on v1.35.8's scheduler (examples/kubernetes-adapter)."""
    preemption_reports_placement: bool = False
    """A successful preemption's status has a message: "found a potential placement for pod on node N, preempting K
    victims" (K counts the chosen candidate's victims), which ``DefaultPreemption.PostFilter`` prefixes with
    "preemption: ", so ``Diagnosis.PostFilterMsg`` and the ``FitError`` message carry it (``Evaluator.Preempt``,
    pkg/scheduler/framework/preemption/preemption.go, v1.37.2); through v1.36.5 it returned ``NewStatus(Success)``
    without a message. Found by running the preemption vectors on v1.37.2's scheduler (examples/kubernetes-adapter)."""
    empty_nomination_clears: bool = False
    """Nominating a pod to ``""`` (``ModeOverride`` with an empty node: every PostFilter result that found no candidate,
    ``clearNominatedNode``) only removes its nomination: v1.37.2's ``addNominatedPodUnlocked`` returns after the
    delete ("Empty nodeName clears nomination; do not key nominatedPods by \"\""), where through v1.36.5 it stored
    the pod under the node name ``""`` (no Filter reads it, but ``nominatedPods`` holds it). ``ModeNoop`` with an
    empty ``NominatedNodeName`` stored nothing in either (pkg/scheduler/backend/queue/nominator.go, read in v1.36.5 and
    v1.37.2). Found by running the preemption vectors on v1.37.2's scheduler (examples/kubernetes-adapter)."""
    preemption_skips_terminating_victims: bool = True
    """The async preemption sends no API call for a victim already terminating (``DeletionTimestamp`` set), and when
    every victim of the chosen candidate is terminating it starts no goroutine at all, so the nominations of the pods
    of lower priority on that node are not cleared either (``prepareCandidateAsync``: "Graceful pod deletion has
    already started", read in v1.35.8, v1.36.5 and v1.37.2, pkg/scheduler/framework/preemption). v1.34.12's
    ``prepareCandidateAsync`` always starts the goroutine, which clears those nominations and calls ``PreemptPod``
    (the DisruptionTarget patch and the delete) for every victim, terminating ones included. Found by running
    ``cycle.preemption.eligibility.all_victims_terminating`` on v1.34.12's and v1.35.8's schedulers
    (examples/kubernetes-adapter)."""
    activate_moves_from_backoff_q: bool = True
    """``Activate`` of a pod in podBackoffQ skips the PreEnqueue plugins when ``pop_from_backoff_q`` is on (they ran
    when it entered backoffQ): ``activate`` passes ``movesFromBackoffQ`` to ``moveToActiveQ`` from v1.35. In v1.34
    ``moveToActiveQ`` skips them only for the ``BackoffComplete`` flush, so an activated pod that a PreEnqueue plugin
    now rejects (a scheduling gate added while it backed off) goes to unschedulablePods
    (pkg/scheduler/backend/queue/scheduling_queue.go, read in v1.34.12 and v1.35.8). Found by running the queue
    vectors on v1.34.12 (queue.k8s.move_to_active.activated_from_backoff, ported from v1.35's
    TestPriorityQueue_moveToActiveQ)."""
    queueing_hints_gate: bool = True
    """The ``SchedulerQueueingHints`` gate still exists (GA, locked on), so a queue can be made with the hints off
    (under emulation version 1.33), and ``PriorityQueue`` keeps ``moveRequestCycle``, the scheduling cycle of the
    last move request, which only the hints-off path reads (through v1.36). v1.37 removed the gate, that path and
    the field (pkg/scheduler/backend/queue/scheduling_queue.go, read in v1.37.2): its queue always runs the hints,
    a queue with them off cannot be made, and no move request cycle is kept (it stays -1). Found by running the
    queue vectors on v1.37.2's queue (examples/kubernetes-adapter)."""
    target_pod_update_events: bool = False
    """``Update`` of a pod in the queue derives its events with the ``TargetPod`` resource
    (``PodSchedulingPropertiesChange(newPod, oldPod, true)``: ``isTargetPod``, v1.37.2); through v1.36 they were
    ``UnschedulablePod`` events. So from v1.37 a plugin that registered ``UnschedulablePod`` updates is not woken by
    the rejected pod's own update (one that registered ``Pod`` still is), and the in-flight events record
    ``TargetPod`` (pkg/scheduler/framework/events.go and backend/queue/scheduling_queue.go, ``Update``, read in
    v1.36.5 and v1.37.2). Found by running the queue vectors on v1.37.2's queue (queue.k8s.update_when_in_flight,
    queue.k8s.update.with_hints.unschedulable_backing_off). In the same release SchedulingGates' ``EventsToRegister``
    moved to ``TargetPod`` updates with a hint that always queues, where through v1.36 it registered ``Pod`` updates
    (QueueingHints on only) with ``isSchedulableAfterUpdatePodSchedulingGatesEliminated``, which queues the pod for
    its own update only (plugins/schedulinggates/scheduling_gates.go, read in v1.34.12, v1.35.8, v1.36.5 and v1.37.2;
    :func:`spec.queue.events.scheduling_gates_hints`)."""
    update_requires_same_uid: bool = False
    """``PodInfo.Update`` refuses a pod object of another UID ("pod UID mismatch", v1.37.2); through v1.36 it takes
    it. The queue's ``Update`` finds the entry by namespace/name, so for an update to an object of another UID
    (the pod re-created) v1.37's leaves that entry as it is and adds the new object as a new pod (``addPod``: a fresh
    pod info into activeQ, replacing the entry by key), where earlier releases give the entry the new object and
    keep its history (pkg/scheduler/framework/types.go ``PodInfo.Update``, backend/queue/scheduling_queue.go
    ``Update``, read in v1.36.5 and v1.37.2). Found by running queue.keyed.update_across_uids on v1.37.2's queue."""
    add_leaves_backoff_entry: bool = False
    """``Add`` of a pod whose namespace/name a backoff heap holds leaves that entry there: v1.37.2's
    ``moveToActiveQ`` no longer takes the pod out of backoffQ (v1.36.5's called ``p.backoffQ.delete(pInfo)``), so
    ``addPod``'s fresh pod info enters activeQ (or, gated, unschedulableEntities, which v1.37.2 also no longer skips
    for a pod in activeQ or backoffQ) while the old one keeps backing off: the pod is in two sub-queues
    (pkg/scheduler/backend/queue/scheduling_queue.go, ``moveToActiveQ`` and ``addPod``, read in v1.36.5 and v1.37.2).
    ``Add`` is documented for new pods only ("there is no chance the pod is already in active/unschedulable/backoff
    queues"), and a running scheduler keeps to that: its informer calls ``addPodToSchedulingQueue`` only for a pod its
    indexer does not hold (client-go's ``processDeltas``: an object already there is an update, a relist included),
    and the pod's delete event took it out of the queue first (``deletePodFromSchedulingQueue``). The spec's queue
    holds a pod in one place and an observation has one pod info per UID, so with this setting such an ``Add`` is not
    a vector step (:func:`spec.queue.queue.add` refuses it with ``QueueNotEnabled``): the spec leaves that state
    unstated rather than state it wrong. Found by running the queue vectors on v1.37.2's
    queue (examples/kubernetes-adapter): explore.queue.*.queue_add.ok.backoff and five random traces. ``Update``
    reaches the same ``addPod`` when ``PodInfo.Update`` refuses an entry of another UID
    (:attr:`update_requires_same_uid`): for an entry in backoffQ the old pod info keeps backing off while the new
    object enters activeQ, two UIDs the spec states (queue.versions.update_other_uid_in_backoff)."""
    gated_add_updates_unschedulable_entry: bool = False
    """``moveToActiveQ`` of a gated pod that unschedulablePods already holds puts the new pod info there
    (``unschedulablePods.addOrUpdate``, v1.36.5 and v1.37.2), so an ``Add`` of a gated pod a second time replaces its
    entry (its timestamp, its attempts); v1.34.12's and v1.35.8's return when ``unschedulablePods.get`` finds the
    pod, keeping the first entry (pkg/scheduler/backend/queue/scheduling_queue.go, ``moveToActiveQ``, read in
    v1.35.8 and v1.36.5). Found by running throwaway queue vectors on v1.36.5's queue (examples/kubernetes-adapter)."""
    add_pod_nominates: bool = False
    """``addPod`` records the pod's own nomination (``addNominatedPod`` with a nil nominating info) before
    ``moveToActiveQ``, for a gated pod too, and ``moveToActiveQ`` records none (v1.37.2); through v1.36.5
    ``moveToActiveQ`` recorded it for the ``UnscheduledPodAdd`` and ``UnscheduledPodUpdate`` events, after the pod
    entered activeQ only. So on v1.37 a gated pod whose object names a node is nominated, and an ``Update`` that a
    hint requeues on the generic update event keeps an in-memory nomination that earlier releases re-read from the
    object (pkg/scheduler/backend/queue/scheduling_queue.go, ``addPod`` and ``moveToActiveQ``, read in v1.36.5 and
    v1.37.2). Found by running throwaway queue vectors on v1.37.2's queue (examples/kubernetes-adapter)."""
    pod_scale_up_event: bool = False
    """``PodSchedulingPropertiesChange`` has the extractor ``extractPodScaleUp`` (after ``extractPodScaleDown``): an
    update that raises a resource request of the pod, or adds one (``resource.PodRequests``), is an
    ``UpdatePodScaleUp`` event, a bit of ``fwk.ActionType`` new in v1.37.2 (with ``UpdateNodePreemptionPolicy``);
    through v1.36.5 no extractor names it, so an update that only raises requests is the generic ``Update`` event
    (pkg/scheduler/framework/events.go and staging kube-scheduler framework/types.go, read in v1.34.12, v1.35.8,
    v1.36.5 and v1.37.2). So in v1.37 such an update of a pending pod wakes the plugins that registered
    ``UpdatePodScaleUp`` (NodeResourcesFit does, for ``TargetPod``, with InPlacePodVerticalScalingSchedulerPreemption),
    which the generic event does not match (``MatchClusterEvents``: the incoming action must not exceed the
    registered one), and the in-flight events record ``UpdatePodScaleUp`` where earlier releases record ``Update``
    (queue.versions.scale_up.*). Found in reading the queue's survivors of mutation testing (docs/mutation.md)."""
    pop_from_backoff_q: bool = True
    """The ``SchedulerPopFromBackoffQ`` gate (KEP-5142, beta and on since v1.33): an idle ``Pop`` takes the head of
    podBackoffQ before its backoff ends, and backoff expiries are aligned to 1 s windows. On in every profile; the
    queue can turn it off."""


V1_34: Final = VersionProfile(
    name="v1.34",
    description="TTL-era cache before PR #134157: forgetting an unknown pod is an error.",
    assumed_pod_expiry=True,
    forget_unknown_pod_is_error=True,
    not_assumed_message=WASNT_ASSUMED_MESSAGE,
    node_operations_return_node_info=True,
    pod_level_resources=True,
    forget_assumed_pod_on_delete=False,
    dispatcher_max_in_flight=16,
    dispatcher_waits_behind_in_flight=False,
    select_host_reservoir_sampling=True,
    opportunistic_batching=False,
    activate_moves_from_backoff_q=False,
    dynamic_resources_scores=False,
    preemption_skips_terminating_victims=False,
    nominated_node_name_for_expectation=False,
)

V1_35: Final = VersionProfile(
    name="v1.35",
    description="Kubernetes v1.35.0: TTL-era cache with PR #134157; forgetting an unknown pod is a no-op.",
    assumed_pod_expiry=True,
    forget_unknown_pod_is_error=False,
    not_assumed_message=WASNT_ASSUMED_MESSAGE,
    node_operations_return_node_info=True,
    pod_level_resources=True,
)

V1_36: Final = VersionProfile(
    name="v1.36",
    description="After PR #136204: no assumed-pod expiry, no FinishBinding or cleanupAssumedPods.",
    assumed_pod_expiry=False,
    forget_unknown_pod_is_error=False,
    not_assumed_message=WASNT_ASSUMED_MESSAGE,
    node_operations_return_node_info=True,
    pod_level_resources=True,
    balanced_allocation_scores_change=True,
    gated_add_updates_unschedulable_entry=True,
)

V1_37: Final = VersionProfile(
    name="v1.37",
    description="Development master (2026): as v1.36, with PR #138445's not-assumed message; AddNode/UpdateNode "
    "return nothing.",
    assumed_pod_expiry=False,
    forget_unknown_pod_is_error=False,
    not_assumed_message=IS_NOT_ASSUMED_MESSAGE,
    node_operations_return_node_info=False,
    pod_level_resources=True,
    incremental_pvc_ref_counts=True,
    balanced_allocation_scores_change=True,
    volume_binding_scores=True,
    queueing_hints_gate=False,
    target_pod_update_events=True,
    update_requires_same_uid=True,
    dynamic_resources_post_filter_reason="",
    preemption_reports_placement=True,
    empty_nomination_clears=True,
    add_leaves_backoff_entry=True,
    gated_add_updates_unschedulable_entry=True,
    add_pod_nominates=True,
    pod_scale_up_event=True,
)

DEFAULT_PROFILE: Final = V1_35
"""The spec models Kubernetes v1.35.0 unless told otherwise."""

PR_141745: Final = VersionProfile(
    name="pr141745",
    description="v1.37 with the call-queue changes of PR #141745 (open in 2026, read at commit 324d94f5): close "
    "notifies every tracked call, and Add after close is refused.",
    assumed_pod_expiry=False,
    forget_unknown_pod_is_error=False,
    not_assumed_message=IS_NOT_ASSUMED_MESSAGE,
    node_operations_return_node_info=False,
    pod_level_resources=True,
    dispatcher_close_notifies=True,
    incremental_pvc_ref_counts=True,
    balanced_allocation_scores_change=True,
    volume_binding_scores=True,
    queueing_hints_gate=False,
    target_pod_update_events=True,
    update_requires_same_uid=True,
    dynamic_resources_post_filter_reason="",
    preemption_reports_placement=True,
    empty_nomination_clears=True,
    add_leaves_backoff_entry=True,
    gated_add_updates_unschedulable_entry=True,
    add_pod_nominates=True,
    pod_scale_up_event=True,
)

PROFILES: Final = {p.name: p for p in (V1_34, V1_35, V1_36, V1_37, PR_141745)}


def get_profile(name: str) -> VersionProfile:
    """Look up a profile by name; fails with ``ValueError`` listing the known names."""
    if name not in PROFILES:
        raise ValueError(f"unknown version profile {name!r}; known profiles: {', '.join(PROFILES)}")
    return PROFILES[name]
