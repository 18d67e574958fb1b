"""Preemption: when no node fits a pod, evict pods of lower priority from one node and nominate the pod there.

This is the PostFilter plugin DefaultPreemption (pkg/scheduler/framework/plugins/defaultpreemption/
default_preemption.go) over the preemption ``Evaluator`` (pkg/scheduler/framework/preemption/preemption.go), v1.35.
A scheduling cycle whose Filter rejected every node runs it with each node's status (``Diagnosis.NodeToStatus``):

1. **Eligibility** (:func:`pod_eligible_to_preempt_others`): a pod whose preemption policy is ``Never`` does not
   preempt; nor does a pod already nominated to a node where a pod it preempted is still terminating (unless its
   nominated node is now rejected as UnschedulableAndUnresolvable).
2. **Candidate nodes** (:func:`nodes_for_status_code`): only nodes whose rejection was ``Unschedulable``; an
   UnschedulableAndUnresolvable rejection (a taint, a selector, a resource beyond the node's allocatable) is one
   that evicting pods cannot fix.
3. **Victims per node** (:func:`select_victims_on_node`): remove every pod of lower priority; if the pod then
   passes Filter (with the nominated pods, :mod:`spec.cycle.nominated`), add back as many as possible, most
   important first, those whose eviction would violate a PodDisruptionBudget before the others; the rest are the
   victims, and the budget-violating ones among them count as violations.
4. **The node** (:func:`best_preemption_nodes`): ``pickOneNodeForPreemption``'s criteria in order: fewest
   violations, lowest highest victim priority, smallest sum of victim priorities, fewest victims, latest start of
   the highest-priority victims; a tie left after all five is broken by Go's map order, so the spec leaves it open.
5. **The result** (:func:`preemption_outcomes`): the pod is nominated to the node (the failure handler records and
   patches it: :mod:`spec.cycle.failure`), each victim that is not already terminating gets the ``DisruptionTarget``
   condition and is deleted through the API, and pods of lower priority nominated to that node lose their
   nomination; when every victim is terminating neither happens (v1.34 calls and clears all the same:
   :func:`preparation`). With ``SchedulerAsyncPreemption`` (beta, on, since v1.33: so in every modelled profile) the
   API calls run in a goroutine and the pod's own PreEnqueue (DefaultPreemption's) keeps it out of activeQ meanwhile.

A pod's importance (``MoreImportantPod``) is its priority, then the earlier start time; a pod not started yet reads
as started ``now``. Go's ``sort.Slice`` is unstable and its insertion sort (used below 13 elements) swaps two pods
whose ``time.Now()`` readings differ, so for pods of equal priority without start times the order of victims in
Kubernetes follows the clock's resolution; the spec keeps such equally important pods in the node's order. Vectors
that depend on that order give the pods start times.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Final

from spec.cache.nodeinfo import NodeInfo, add_pod, remove_pod
from spec.cache.snapshot import Snapshot
from spec.cycle.filters import Code, Rejection
from spec.cycle.interpodaffinity import NO_NAMESPACES, Namespaces
from spec.cycle.messages import fit_error_message
from spec.cycle.nominated import filter_with_nominated_pods, nominated_rejection
from spec.dispatcher.api_calls import NominatingInfo, NominatingMode
from spec.objects import PREEMPT_NEVER, Pod, PodDisruptionBudget

MAX_INT32: Final = 2**31 - 1
DEFAULT_MIN_CANDIDATE_NODES_PERCENTAGE: Final = 10
"""``DefaultPreemptionArgs.MinCandidateNodesPercentage``'s default (pkg/scheduler/apis/config/v1/defaults.go)."""
DEFAULT_MIN_CANDIDATE_NODES_ABSOLUTE: Final = 100
"""``DefaultPreemptionArgs.MinCandidateNodesAbsolute``'s default."""

MESSAGE_PREFIX: Final = "preemption: "
"""``DefaultPreemption.PostFilter`` prefixes every non-empty message with it."""
NOT_ELIGIBLE_POLICY: Final = "not eligible due to preemptionPolicy=Never."
NOT_ELIGIBLE_TERMINATING: Final = "not eligible due to a terminating pod on the nominated node."
NO_VICTIMS_FOUND: Final = "No preemption victims found for incoming pod"
NOT_HELPFUL: Final = "Preemption is not helpful for scheduling"
PLACEMENT_FOUND: Final = "found a potential placement for pod on node {node}, preempting {victims} victims"
"""A successful preemption's message in v1.37 (``Evaluator.Preempt``; :func:`placement_message`)."""
PREEMPTED_MESSAGE: Final = "{scheduler}: preempting to accommodate a higher priority pod"
"""The ``DisruptionTarget`` condition's message on a victim (reason ``PreemptionByScheduler``)."""

NO_VICTIMS: Final = Rejection("", Code.UNSCHEDULABLE_AND_UNRESOLVABLE)
"""The dry run's status of a node with no pod of lower priority (:data:`NO_VICTIMS_FOUND`; no plugin)."""


class Outcome(StrEnum):
    """The code of PostFilter's status."""

    SUCCESS = "Success"
    """A node was chosen: the pod is nominated there."""
    UNSCHEDULABLE = "Unschedulable"
    """No preemption now: not eligible, or no candidate."""
    ERROR = "Error"
    """The preemptor is gone from the informer (the lister's ``Get`` failed)."""


# ============================================================================================
# Importance and eligibility
# ============================================================================================


def pod_start_time(pod: Pod, now: int) -> int:
    """``GetPodStartTime``: the pod's start time, or ``now`` for a pod not started (assumed, or bound and pending).

    Kubernetes: `GetPodStartTime` (pkg/scheduler/util/utils.go)
    """
    return now if pod.start_time is None else pod.start_time


def importance_key(pod: Pod, now: int) -> tuple[int, int]:
    """``MoreImportantPod`` as a sort key (smaller is more important): higher priority, then the earlier start.

    Kubernetes: `MoreImportantPod` (pkg/scheduler/util/utils.go)
    """
    return (-pod.priority, pod_start_time(pod, now))


def by_importance(pods: Sequence[Pod], now: int) -> tuple[Pod, ...]:
    """``pods`` most important first; equally important pods keep their order (see the module docstring).

    Kubernetes: `SelectVictimsOnNode` (pkg/scheduler/framework/plugins/defaultpreemption/default_preemption.go)
    """
    return tuple(sorted(pods, key=lambda p: importance_key(p, now)))


def is_preemption_allowed(victim: Pod, preemptor: Pod) -> bool:
    """Whether ``preemptor`` may evict ``victim``: the victim's priority is lower (``IsEligiblePod`` allows all).

    Kubernetes: `isPreemptionAllowed` (pkg/scheduler/framework/plugins/defaultpreemption/default_preemption.go)
    """
    return victim.priority < preemptor.priority


def pod_terminating_by_preemption(pod: Pod) -> bool:
    """The pod is being deleted and carries ``DisruptionTarget=True`` with reason ``PreemptionByScheduler``.

    Kubernetes: `podTerminatingByPreemption` (pkg/scheduler/framework/plugins/defaultpreemption/default_preemption.go)
    """
    return pod.terminating and pod.preempted_by_scheduler


def pod_eligible_to_preempt_others(pod: Pod, snapshot: Snapshot, nominated_node_code: Code | None) -> tuple[bool, str]:
    """Whether ``pod`` may preempt, and why not. ``nominated_node_code`` is the code Filter gave the pod's nominated
    node in this cycle (UnschedulableAndUnresolvable for a node it did not evaluate).

    Kubernetes: `PodEligibleToPreemptOthers` (pkg/scheduler/framework/plugins/defaultpreemption/default_preemption.go)
    """
    if pod.preemption_policy == PREEMPT_NEVER:
        return False, NOT_ELIGIBLE_POLICY
    node = pod.nominated_node_name
    if node == "" or nominated_node_code is Code.UNSCHEDULABLE_AND_UNRESOLVABLE:
        return True, ""
    info = snapshot.node_info_map.get(node)
    pods = info.pods if info is not None and info.node is not None else ()
    if any(is_preemption_allowed(p, pod) and pod_terminating_by_preemption(p) for p in pods):
        return False, NOT_ELIGIBLE_TERMINATING
    return True, ""


def nodes_for_status_code(
    snapshot: Snapshot, statuses: Mapping[str, Rejection], code: Code,
    absent: Code = Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
) -> tuple[NodeInfo, ...]:
    """The snapshot's nodes, in list order, whose status has ``code``; a node without a status has ``absent``'s.

    Kubernetes: `NodeToStatus.NodesForStatusCode` (pkg/scheduler/framework/types.go)
    """
    return tuple(
        snapshot.node_info_map[name] for name in snapshot.node_info_list
        if (statuses[name].code if name in statuses else absent) is code
    )


# ============================================================================================
# PodDisruptionBudgets
# ============================================================================================


def pdb_matches(pdb: PodDisruptionBudget, pod: Pod) -> bool:
    """The budget covers ``pod``: same namespace, and a non-empty selector all of whose labels the pod carries.

    Kubernetes: `filterPodsWithPDBViolation` (pkg/scheduler/framework/plugins/defaultpreemption/default_preemption.go)
    """
    if pdb.namespace != pod.namespace or not pdb.selector:
        return False
    return all(pod.labels.get(key) == value for key, value in pdb.selector.items())


def filter_pods_with_pdb_violation(
    pods: Sequence[Pod], pdbs: Sequence[PodDisruptionBudget]
) -> tuple[tuple[Pod, ...], tuple[Pod, ...]]:
    """Split ``pods`` (order kept) into those whose eviction would violate a budget and the others, evicting them
    in this order: each pod a budget covers uses one of its allowed disruptions (unless the API server already
    counts it disrupted); a pod that drives some budget below zero violates it.

    Kubernetes: `filterPodsWithPDBViolation` (pkg/scheduler/framework/plugins/defaultpreemption/default_preemption.go)
    """
    allowed = [pdb.disruptions_allowed for pdb in pdbs]
    violating: list[Pod] = []
    non_violating: list[Pod] = []
    for pod in pods:
        violated = False
        if pod.labels:
            for i, pdb in enumerate(pdbs):
                if not pdb_matches(pdb, pod) or pod.name in pdb.disrupted_pods:
                    continue
                allowed[i] -= 1
                violated = violated or allowed[i] < 0
        (violating if violated else non_violating).append(pod)
    return tuple(violating), tuple(non_violating)


# ============================================================================================
# Victims on one node
# ============================================================================================


@dataclass(frozen=True)
class Victims:
    """``extenderv1.Victims``: the pods to evict on a node, most important first, and how many violate a budget."""

    pods: tuple[Pod, ...]
    num_pdb_violations: int


@dataclass(frozen=True)
class Candidate:
    """A node preemption could make room on, with its victims."""

    node: str
    victims: Victims


def select_victims_on_node(
    pod: Pod, info: NodeInfo, pdbs: Sequence[PodDisruptionBudget], nominated: Sequence[Pod], now: int,
    snapshot: Snapshot | None = None, namespaces: Namespaces = NO_NAMESPACES,
) -> Victims | Rejection:
    """The fewest pods of lower priority to evict from ``info``'s node so that ``pod`` fits, or why none will do.

    Every pod of lower priority is removed; if ``pod`` still fails Filter (with ``nominated``, the pods nominated to
    the node), that rejection is the node's status; with none to remove, :data:`NO_VICTIMS`. Otherwise the removed
    pods are added back one at a time, most important first, budget-violating ones before the others; each that
    lets ``pod`` still pass stays, each that does not is a victim (and a violation if it came from the first group).

    Kubernetes: `SelectVictimsOnNode` (pkg/scheduler/framework/plugins/defaultpreemption/default_preemption.go)
    """
    potential = [p for p in info.pods if is_preemption_allowed(p, pod)]
    if not potential:
        return NO_VICTIMS
    for victim in potential:
        info = remove_pod(info, victim, info.generation)
    rejection = filter_with_nominated_pods(pod, info, nominated, snapshot, namespaces)
    if rejection is not None:
        return rejection
    violating, non_violating = filter_pods_with_pdb_violation(by_importance(potential, now), pdbs)
    victims: list[Pod] = []
    violations = 0
    for group, counts in ((violating, True), (non_violating, False)):
        for candidate in group:
            trial = add_pod(info, candidate, info.generation)
            if filter_with_nominated_pods(pod, trial, nominated, snapshot, namespaces) is None:
                info = trial
            else:
                victims.append(candidate)
                violations += counts
    if violating and non_violating:
        victims = list(by_importance(victims, now))
    return Victims(tuple(victims), violations)


# ============================================================================================
# Candidates and the chosen node
# ============================================================================================


def num_candidates(
    num_nodes: int,
    percentage: int = DEFAULT_MIN_CANDIDATE_NODES_PERCENTAGE,
    absolute: int = DEFAULT_MIN_CANDIDATE_NODES_ABSOLUTE,
) -> int:
    """How many candidates the dry run looks for: ``percentage`` of the nodes, at least ``absolute``, at most all.

    Kubernetes: `calculateNumCandidates` (pkg/scheduler/framework/plugins/defaultpreemption/default_preemption.go)
    """
    return min(max(num_nodes * percentage // 100, absolute), num_nodes)


NominatedPods = Callable[[str], Sequence[Pod]]
"""The pods nominated to a node, by its name (``NominatedPodsForNode``)."""


def dry_run_preemption(
    pod: Pod, potential: Sequence[NodeInfo], pdbs: Sequence[PodDisruptionBudget], nominated: NominatedPods,
    offset: int, wanted: int, now: int, snapshot: Snapshot | None = None, namespaces: Namespaces = NO_NAMESPACES,
) -> tuple[tuple[Candidate, ...], dict[str, Rejection]]:
    """Select victims on the ``potential`` nodes, from ``offset`` round robin, until at least one candidate without
    violations was found and ``wanted`` in all: the candidates (those without violations first, each group in the
    order found) and the status of every node checked that is not one.

    Kubernetes checks the nodes on 16 goroutines and stops them once enough were found; this is the outcome in
    which they check the nodes in order and stop exactly there.

    Kubernetes: `Evaluator.DryRunPreemption` (pkg/scheduler/framework/preemption/preemption.go)
    """
    clean: list[Candidate] = []
    violating: list[Candidate] = []
    statuses: dict[str, Rejection] = {}
    count = len(potential)
    for i in range(count):
        info = potential[(offset + i) % count]
        assert info.node is not None, "the snapshot's list has only nodes with a Node object"
        name = info.node.name
        found = select_victims_on_node(pod, info, pdbs, nominated(name), now, snapshot, namespaces)
        if isinstance(found, Rejection):
            statuses[name] = found
            continue
        group = clean if found.num_pdb_violations == 0 else violating
        if len(group) < wanted:
            group.append(Candidate(name, found))
        if clean and len(clean) + len(violating) >= wanted:
            break
    return (*clean, *violating), statuses


def _earliest_start_of_highest(victims: Victims, now: int) -> int:
    """``GetEarliestPodStartTime``: the earliest start time among the victims of the highest priority."""
    highest = max(p.priority for p in victims.pods)
    return min(pod_start_time(p, now) for p in victims.pods if p.priority == highest)


PREEMPTION_CRITERIA: Final[tuple[tuple[str, Callable[[Victims, int], int]], ...]] = (
    ("fewest PodDisruptionBudget violations", lambda v, now: -v.num_pdb_violations),
    ("lowest highest victim priority", lambda v, now: -v.pods[0].priority),
    ("smallest sum of victim priorities", lambda v, now: -sum(p.priority + MAX_INT32 + 1 for p in v.pods)),
    ("fewest victims", lambda v, now: -len(v.pods)),
    ("latest start of the highest-priority victims", _earliest_start_of_highest),
)
"""``pickOneNodeForPreemption``'s score functions, in order: each keeps the nodes with the highest score, and the
next breaks the tie. Priorities are shifted by 2^31 before summing, so that many victims of negative priority do
not look cheaper than few."""


def best_preemption_nodes(candidates: Sequence[Candidate], now: int) -> tuple[str, ...]:
    """The nodes ``pickOneNodeForPreemption`` may return: those left after every criterion of
    :data:`PREEMPTION_CRITERIA` (one, unless tied after all; Kubernetes then takes the first in map order, which is
    random). A single candidate is taken without scoring (``SelectCandidate``).

    Kubernetes: `pickOneNodeForPreemption` (pkg/scheduler/framework/preemption/preemption.go)
    Kubernetes: `Evaluator.SelectCandidate` (pkg/scheduler/framework/preemption/preemption.go)
    """
    if len(candidates) <= 1:
        return tuple(c.node for c in candidates)
    left = list(candidates)
    for _, score in PREEMPTION_CRITERIA:
        best = max(score(c.victims, now) for c in left)
        left = [c for c in left if score(c.victims, now) == best]
        if len(left) == 1:
            break
    return tuple(c.node for c in left)


def lower_priority_nominated_pods(pod: Pod, nominated: Sequence[Pod]) -> tuple[Pod, ...]:
    """The pods nominated to the chosen node with lower priority than ``pod``: their nomination is cleared.

    Kubernetes: `getLowerPriorityNominatedPods` (pkg/scheduler/framework/preemption/preemption.go)
    """
    return tuple(p for p in nominated if p.priority < pod.priority)


# ============================================================================================
# Preempt
# ============================================================================================


@dataclass(frozen=True)
class PreemptionResult:
    """What one PostFilter run decides.

    ``nominating`` None is a nil ``PostFilterResult`` (the pod's nominated node stays as it is); else the pod's
    nominated node is set to it (``""`` clears it). ``victims`` are the pods to evict (the chosen candidate's, in
    order), ``deleted`` those of them that get the API calls (not already terminating), ``cleared`` the lower-priority
    pods whose nomination to the chosen node is cleared. ``statuses`` are the dry run's node statuses when no
    candidate was found (every other node then reads :data:`NOT_HELPFUL`)."""

    outcome: Outcome
    message: str
    nominating: NominatingInfo | None = None
    victims: tuple[Pod, ...] = ()
    deleted: tuple[Pod, ...] = ()
    cleared: tuple[Pod, ...] = ()
    statuses: tuple[tuple[str, Rejection], ...] = ()

    @property
    def nominated_node(self) -> str | None:
        """The node the pod is nominated to by this result ("" clears), or None when it keeps its nomination."""
        return None if self.nominating is None else self.nominating.nominated_node_name


def preemption_outcomes(
    pod: Pod | None, snapshot: Snapshot, statuses: Mapping[str, Rejection], pdbs: Sequence[PodDisruptionBudget],
    nominated: NominatedPods, now: int, offset: int = 0, namespaces: Namespaces = NO_NAMESPACES,
    skips_terminating: bool = True,
) -> tuple[PreemptionResult, ...]:
    """Every result DefaultPreemption's PostFilter may return for the pod the informer has now (``pod``; None if it
    is gone), after Filter rejected the snapshot's nodes with ``statuses``: one per node
    :func:`best_preemption_nodes` allows, or the single failure. ``nominated`` gives the pods nominated to a node;
    ``offset`` is the dry run's random start (it matters only with more than 100 potential nodes); ``namespaces`` are
    the cluster's (InterPodAffinity's namespace lister); ``skips_terminating`` is the release's
    :attr:`spec.versions.VersionProfile.preemption_skips_terminating_victims` (:func:`preparation`).

    Kubernetes: `Evaluator.Preempt` (pkg/scheduler/framework/preemption/preemption.go)
    Kubernetes: `PostFilter` (pkg/scheduler/framework/plugins/defaultpreemption/default_preemption.go)
    """
    if pod is None:
        return (PreemptionResult(Outcome.ERROR, "preemptor is gone"),)
    nominated_code = statuses[pod.nominated_node_name].code if pod.nominated_node_name in statuses else None
    if pod.nominated_node_name and nominated_code is None:
        nominated_code = Code.UNSCHEDULABLE_AND_UNRESOLVABLE
    eligible, why = pod_eligible_to_preempt_others(pod, snapshot, nominated_code)
    if not eligible:
        return (PreemptionResult(Outcome.UNSCHEDULABLE, MESSAGE_PREFIX + why),)
    potential = nodes_for_status_code(snapshot, statuses, Code.UNSCHEDULABLE)
    candidates: tuple[Candidate, ...] = ()
    failed: dict[str, Rejection] = {}
    if potential:
        wanted = num_candidates(len(potential))
        candidates, failed = dry_run_preemption(pod, potential, pdbs, nominated, offset % len(potential), wanted, now,
                                               snapshot, namespaces)
    if not candidates:
        clear = NominatingInfo(NominatingMode.OVERRIDE, "")
        return (PreemptionResult(Outcome.UNSCHEDULABLE, "", clear, statuses=tuple(sorted(failed.items()))),)
    results = []
    for node in best_preemption_nodes(candidates, now):
        chosen = next(c for c in candidates if c.node == node)
        victims = chosen.victims.pods
        deleted, cleared = preparation(pod, victims, nominated(node), skips_terminating)
        results.append(PreemptionResult(
            Outcome.SUCCESS, "", NominatingInfo(NominatingMode.OVERRIDE, node), victims, deleted, cleared,
        ))
    return tuple(results)


def preparation(
    pod: Pod, victims: Sequence[Pod], nominated: Sequence[Pod], skips_terminating: bool
) -> tuple[tuple[Pod, ...], tuple[Pod, ...]]:
    """What the async preemption of ``pod`` does once a candidate is chosen: the victims that get ``PreemptPod``'s
    API calls, and the pods of lower priority among those ``nominated`` to the node whose nomination it clears. With
    ``skips_terminating`` (v1.35 on) a victim already terminating gets no call, and if no victim is left no goroutine
    starts, so no nomination is cleared; without it (v1.34) every victim gets the calls and the nominations are
    cleared (:attr:`spec.versions.VersionProfile.preemption_skips_terminating_victims`). v1.36 moved the function to
    the same package's executor.go.

    Kubernetes: `Evaluator.prepareCandidateAsync` (pkg/scheduler/framework/preemption/preemption.go)
    """
    deleted = tuple(v for v in victims if not (skips_terminating and v.terminating))
    if not deleted and skips_terminating:
        return (), ()
    return deleted, lower_priority_nominated_pods(pod, nominated)


def placement_message(result: PreemptionResult) -> str:
    """The message of a successful ``result`` where the release gives one
    (:attr:`spec.versions.VersionProfile.preemption_reports_placement`): :data:`PLACEMENT_FOUND` with the chosen node
    and the number of the candidate's victims (terminating ones included), after :data:`MESSAGE_PREFIX` (read in
    v1.37.2; v1.36.5's ``Preempt`` returns ``NewStatus(Success)`` without a message).

    Kubernetes: `Evaluator.Preempt` (pkg/scheduler/framework/preemption/preemption.go)
    Kubernetes: `DefaultPreemption.PostFilter` (pkg/scheduler/framework/plugins/defaultpreemption/default_preemption.go)
    """
    assert result.outcome is Outcome.SUCCESS and result.nominated_node, "only a preemption that chose a node"
    return MESSAGE_PREFIX + PLACEMENT_FOUND.format(node=result.nominated_node, victims=len(result.victims))


def preemption_message(
    pod: Pod, snapshot: Snapshot, result: PreemptionResult, nominated: NominatedPods,
    reasons: Callable[[str, Rejection, NodeInfo, Snapshot], tuple[str, ...]],
    namespaces: Namespaces = NO_NAMESPACES,
) -> str:
    """PostFilter's status message for ``result`` (``Diagnosis.PostFilterMsg``, which ``FitError.Error()`` appends):
    "" on success; the eligibility message; or, with no candidate, ``"preemption: "`` and the ``FitError`` of the dry
    run over the snapshot's nodes: each node the dry run rejected with its status's reasons (:data:`NO_VICTIMS_FOUND`,
    or the reasons of the filter that still rejects ``pod`` once the pods of lower priority are gone, read by
    ``reasons(plugin, rejection, info, snapshot)`` on the NodeInfo and snapshot that filter saw), every other node
    :data:`NOT_HELPFUL` (the absent nodes' status).

    Kubernetes: `Evaluator.Preempt` (pkg/scheduler/framework/preemption/preemption.go)
    Kubernetes: `FitError.Error` (pkg/scheduler/framework/types.go)
    """
    if result.outcome is not Outcome.UNSCHEDULABLE or result.message:
        return result.message
    node_reasons: list[tuple[str, ...]] = []
    for name, rejection in result.statuses:
        if rejection == NO_VICTIMS:
            node_reasons.append((NO_VICTIMS_FOUND,))
            continue
        info = snapshot.node_info_map[name]
        for victim in [p for p in info.pods if is_preemption_allowed(p, pod)]:
            info = remove_pod(info, victim, info.generation)
        found = nominated_rejection(pod, info, nominated(name), snapshot, namespaces)
        assert found is not None, "the dry run found this node rejected"
        node_reasons.append(reasons(found[0].plugin, found[0], found[1], found[2]))
    count = len(snapshot.node_info_list)
    node_reasons.extend((NOT_HELPFUL,) for _ in range(count - len(result.statuses)))
    return MESSAGE_PREFIX + fit_error_message(count, node_reasons)
