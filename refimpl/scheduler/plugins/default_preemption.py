"""DefaultPreemption: the PostFilter plugin that evicts pods of lower priority to make room for an unschedulable pod.

``DefaultPreemption`` (pkg/scheduler/framework/plugins/defaultpreemption/default_preemption.go) over the preemption
``Evaluator`` (pkg/scheduler/framework/preemption/preemption.go), v1.35, structured as Go structures them: the
plugin supplies the policy (eligibility, victims per node, the number of candidates), the evaluator the procedure
(``Preempt``: fetch the pod, check eligibility, find candidates by a dry run, select one, prepare it).

Kubernetes checks the candidate nodes on 16 goroutines and runs the victims' API calls in a goroutine
(``SchedulerAsyncPreemption``); here the dry run checks the nodes in order from the random offset and stops where
Kubernetes' workers may stop, and ``prepareCandidate`` runs before ``PostFilter`` returns: outcomes Kubernetes'
concurrency can produce. The victims' API calls go through :attr:`DefaultPreemption.preempt_pod` (Go's
``Evaluator.PreemptPod``, replaceable for tests): by default each victim that is waiting at Permit is rejected, and
every other victim is recorded in :attr:`DefaultPreemption.preempted`, for the driver to delete at the API server.
Extenders are not modelled.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Final

from refimpl.cache import NodeInfo
from refimpl.scheduler.framework import CycleState, Framework, Handle, PostFilterPlugin, Status
from refimpl.scheduler.framework.status import Code, Diagnosis, FitError, NodeToStatus
from spec.objects import PREEMPT_NEVER, Pod, PodDisruptionBudget

NAME: Final = "DefaultPreemption"
MIN_CANDIDATE_NODES_PERCENTAGE: Final = 10
MIN_CANDIDATE_NODES_ABSOLUTE: Final = 100
MAX_INT32: Final = 2**31 - 1
NOT_HELPFUL: Final = "Preemption is not helpful for scheduling"
NO_VICTIMS: Final = "No preemption victims found for incoming pod"
PLACEMENT_FOUND: Final = "found a potential placement for pod on node {node}, preempting {victims} victims"
"""v1.37's success message (``Evaluator.Preempt``)."""
REASON_PREEMPTION_BY_SCHEDULER: Final = "PreemptionByScheduler"
"""``v1.PodReasonPreemptionByScheduler``: the reason of the victim's ``DisruptionTarget`` condition."""

PodLister = Callable[[str, str], Pod | None]
PDBLister = Callable[[], Sequence[PodDisruptionBudget]]


@dataclass(frozen=True)
class Victims:
    """``extenderv1.Victims``."""

    pods: tuple[Pod, ...]
    num_pdb_violations: int


@dataclass(frozen=True)
class Candidate:
    """``preemption.candidate``: a node and its victims."""

    name: str
    victims: Victims


@dataclass(frozen=True)
class Preemption:
    """One victim's preemption, as :attr:`DefaultPreemption.preempted` records it."""

    preemptor: Pod
    victim: Pod
    node: str


def more_important_pod(a: Pod, b: Pod, now: int) -> bool:
    """``util.MoreImportantPod``: higher priority; at equal priority the earlier start (``now`` if not started)."""
    if a.priority != b.priority:
        return a.priority > b.priority
    return (now if a.start_time is None else a.start_time) < (now if b.start_time is None else b.start_time)


def sort_by_importance(pods: list[Pod], now: int) -> None:
    """``sort.Slice(pods, MoreImportantPod)`` as an insertion sort (what Go runs below 13 elements): stable."""
    for i in range(1, len(pods)):
        j = i
        while j > 0 and more_important_pod(pods[j], pods[j - 1], now):
            pods[j], pods[j - 1] = pods[j - 1], pods[j]
            j -= 1


class DefaultPreemption(PostFilterPlugin):
    """``DefaultPreemption``: ``PostFilter`` runs the evaluator's ``Preempt``."""

    name = NAME

    def __init__(
        self,
        handle: Handle,
        *,
        pod_lister: PodLister | None = None,
        pdb_lister: PDBLister | None = None,
        min_candidate_nodes_percentage: int = MIN_CANDIDATE_NODES_PERCENTAGE,
        min_candidate_nodes_absolute: int = MIN_CANDIDATE_NODES_ABSOLUTE,
        rng: random.Random | None = None,
        reports_placement: bool = False,
        skips_terminating_victims: bool = True,
    ) -> None:
        """``New``. ``pod_lister`` None reads the pod as given (no informer); ``pdb_lister`` None means no budgets;
        ``reports_placement`` is v1.37's ``Preempt``, whose success status has a message (:data:`PLACEMENT_FOUND`;
        :attr:`spec.versions.VersionProfile.preemption_reports_placement`); ``skips_terminating_victims`` False is
        v1.34's ``prepareCandidateAsync``, which preempts terminating victims too
        (:attr:`spec.versions.VersionProfile.preemption_skips_terminating_victims`). Fails with ``ValueError`` on
        arguments ``ValidateDefaultPreemptionArgs`` refuses."""
        if not 0 <= min_candidate_nodes_percentage <= 100 or min_candidate_nodes_absolute < 0:
            raise ValueError("minCandidateNodesPercentage must be in [0, 100] and minCandidateNodesAbsolute >= 0")
        if min_candidate_nodes_percentage == 0 and min_candidate_nodes_absolute == 0:
            raise ValueError("minCandidateNodesPercentage and minCandidateNodesAbsolute cannot both be zero")
        self.handle = handle
        self.pod_lister = pod_lister
        self.pdb_lister = pdb_lister
        self.min_candidate_nodes_percentage = min_candidate_nodes_percentage
        self.min_candidate_nodes_absolute = min_candidate_nodes_absolute
        self.rng = rng if rng is not None else random.Random(0)
        self.reports_placement = reports_placement
        self.skips_terminating_victims = skips_terminating_victims
        self.preempted: list[Preemption] = []
        """Every victim whose deletion this plugin requested, in order (the driver deletes them)."""
        self.preempt_pod: Callable[[str, Pod, Pod], None] = self._preempt_pod
        """``Evaluator.PreemptPod``: ``(node, preemptor, victim)``."""
        self.framework: Framework | None = None
        """The profile's framework (Filter with nominated pods, waiting pods): set by :meth:`bind_framework`."""

    def bind_framework(self, framework: Framework) -> None:
        """Called by the framework this plugin is part of (Go's plugins reach it through the handle)."""
        self.framework = framework

    # -- the Interface methods -------------------------------------------------------------

    def calculate_num_candidates(self, num_nodes: int) -> int:
        """``calculateNumCandidates``."""
        n = num_nodes * self.min_candidate_nodes_percentage // 100
        return min(max(n, self.min_candidate_nodes_absolute), num_nodes)

    def get_offset_and_num_candidates(self, num_nodes: int) -> tuple[int, int]:
        """``GetOffsetAndNumCandidates``: a random offset, and how many candidates to look for."""
        return self.rng.randrange(num_nodes), self.calculate_num_candidates(num_nodes)

    def is_preemption_allowed(self, victim: Pod, preemptor: Pod) -> bool:
        """``isPreemptionAllowed``: lower priority (``IsEligiblePod`` allows every pod)."""
        return victim.priority < preemptor.priority

    def pod_eligible_to_preempt_others(self, pod: Pod, nominated_node_status: Status) -> tuple[bool, str]:
        """``PodEligibleToPreemptOthers``."""
        if pod.preemption_policy == PREEMPT_NEVER:
            return False, "not eligible due to preemptionPolicy=Never."
        node = pod.nominated_node_name
        if node:
            if nominated_node_status.code is Code.UNSCHEDULABLE_AND_UNRESOLVABLE:
                return True, ""
            info = self.handle.snapshot.node_info_map.get(node)
            if info is not None and info.node is not None:
                for victim in info.pods:
                    if (self.is_preemption_allowed(victim.pod, pod) and victim.pod.terminating
                            and victim.pod.preempted_by_scheduler):
                        return False, "not eligible due to a terminating pod on the nominated node."
        return True, ""

    def select_victims_on_node(
        self, state: CycleState, pod: Pod, node_info: NodeInfo, pdbs: Sequence[PodDisruptionBudget]
    ) -> tuple[list[Pod], int, Status]:
        """``SelectVictimsOnNode`` on a copy of the node: remove every lower-priority pod, check the pod fits, then
        reprieve as many as possible, budget-violating ones first, most important first."""
        fwk = self.framework
        assert fwk is not None, "the framework binds itself to the plugin"
        potential = [info.pod for info in node_info.pods if self.is_preemption_allowed(info.pod, pod)]
        for victim in potential:  # removePod: from the node's copy and from the cycle state's copy
            node_info.remove_pod(victim)
            error = fwk.run_pre_filter_extension_remove_pod(state, pod, victim, node_info)
            if error is not None:
                return [], 0, error
        if not potential:
            return [], 0, Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, NO_VICTIMS)
        status = fwk.run_filter_plugins_with_nominated_pods(state, pod, node_info)
        if status is not None and not status.is_success():
            return [], 0, status
        now = self.handle.clock.now()
        sort_by_importance(potential, now)
        violating, non_violating = filter_pods_with_pdb_violation(potential, pdbs)
        victims: list[Pod] = []
        violations = 0

        def reprieve(candidate: Pod) -> bool:  # addPod, Filter, and removePod again if it no longer fits
            node_info.add_pod(candidate)
            fwk.run_pre_filter_extension_add_pod(state, pod, candidate, node_info)
            result = fwk.run_filter_plugins_with_nominated_pods(state, pod, node_info)
            if result is None or result.is_success():
                return True
            node_info.remove_pod(candidate)
            fwk.run_pre_filter_extension_remove_pod(state, pod, candidate, node_info)
            victims.append(candidate)
            return False

        for candidate in violating:
            if not reprieve(candidate):
                violations += 1
        for candidate in non_violating:
            reprieve(candidate)
        if violating and non_violating:
            sort_by_importance(victims, now)
        return victims, violations, Status(Code.SUCCESS)

    # -- PostFilter --------------------------------------------------------------------------

    def post_filter(self, state: CycleState, pod: Pod, node_to_status: NodeToStatus) -> tuple[str | None, Status]:
        """``PostFilter``: ``Preempt``, with "preemption: " before a non-empty message. Returns the node to nominate
        (None: leave the nomination as it is; "": clear it) and the status."""
        node, status = self.preempt(state, pod, node_to_status)
        if status.message():
            return node, Status(status.code, "preemption: " + status.message(), plugin=status.plugin)
        return node, status

    def preempt(self, state: CycleState, pod: Pod, m: NodeToStatus) -> tuple[str | None, Status]:
        """``Evaluator.Preempt``."""
        if self.pod_lister is not None:
            current = self.pod_lister(pod.namespace, pod.name)
            if current is None:
                return None, Status(Code.ERROR, f'pods "{pod.name}" not found')
            pod = current
        ok, message = self.pod_eligible_to_preempt_others(pod, m.get(pod.nominated_node_name))
        if not ok:
            return None, Status(Code.UNSCHEDULABLE, message)
        all_nodes = list(self.handle.snapshot.node_info_list)
        if not all_nodes:
            return None, Status(Code.ERROR, "no nodes available")
        candidates, statuses = self.find_candidates(state, all_nodes, pod, m)
        if not candidates:
            diagnosis = Diagnosis()
            diagnosis.node_to_status = statuses
            statuses.absent_nodes_status = Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, NOT_HELPFUL)
            return "", Status(Code.UNSCHEDULABLE, str(FitError(pod.uid, len(all_nodes), diagnosis)))
        best = self.select_candidate(candidates)
        self.prepare_candidate(best, pod)
        if self.reports_placement:
            message = PLACEMENT_FOUND.format(node=best.name, victims=len(best.victims.pods))
            return best.name, Status(Code.SUCCESS, message)
        return best.name, Status(Code.SUCCESS)

    def find_candidates(
        self, state: CycleState, all_nodes: Sequence[NodeInfo], pod: Pod, m: NodeToStatus
    ) -> tuple[list[Candidate], NodeToStatus]:
        """``findCandidates``: the nodes whose status is Unschedulable, dry-run from a random offset."""
        potential = [n for n in all_nodes if m.get(n.name).code is Code.UNSCHEDULABLE]
        if not potential:
            return [], NodeToStatus()
        pdbs = list(self.pdb_lister()) if self.pdb_lister is not None else []
        offset, wanted = self.get_offset_and_num_candidates(len(potential))
        return self.dry_run_preemption(state, pod, potential, pdbs, offset, wanted)

    def dry_run_preemption(
        self, state: CycleState, pod: Pod, potential: Sequence[NodeInfo], pdbs: Sequence[PodDisruptionBudget],
        offset: int, wanted: int,
    ) -> tuple[list[Candidate], NodeToStatus]:
        """``DryRunPreemption``, one node after another from ``offset``: stop once a candidate without violations
        was found and ``wanted`` in all; candidates without violations first."""
        clean: list[Candidate] = []
        violating: list[Candidate] = []
        statuses = NodeToStatus()
        for i in range(len(potential)):
            copy = potential[(offset + i) % len(potential)].snapshot()
            name = copy.name
            victims, violations, status = self.select_victims_on_node(state.clone(), pod, copy, pdbs)
            if status.is_success() and victims:
                group = clean if violations == 0 else violating
                if len(group) < wanted:
                    group.append(Candidate(name, Victims(tuple(victims), violations)))
                if clean and len(clean) + len(violating) >= wanted:
                    break
                continue
            if status.is_success():
                status = Status(Code.ERROR, f'expected at least one victim pod on node "{name}"')
            statuses.set(name, status)
        return clean + violating, statuses

    def select_candidate(self, candidates: list[Candidate]) -> Candidate:
        """``SelectCandidate``: the only one, or ``pickOneNodeForPreemption``'s."""
        if len(candidates) == 1:
            return candidates[0]
        by_name = {c.name: c for c in candidates}
        return by_name[pick_one_node_for_preemption(by_name, self.handle.clock.now(), self.rng)]

    def prepare_candidate(self, candidate: Candidate, pod: Pod) -> None:
        """``prepareCandidateAsync``: preempt each victim not already terminating, then clear the nomination of the
        pods of lower priority nominated to the node (``getLowerPriorityNominatedPods``, ``clearNominatedNodeName``);
        when every victim is terminating, nothing (no goroutine starts). v1.34's (``skips_terminating_victims``
        False) preempts every victim and always clears."""
        victims = [v for v in candidate.victims.pods if not (self.skips_terminating_victims and v.terminating)]
        if not victims and self.skips_terminating_victims:
            return
        for victim in victims:
            self.preempt_pod(candidate.name, pod, victim)
        nominated = self.handle.nominated_pods_for_node(candidate.name)
        for lower in [p for p in nominated if p.priority < pod.priority]:
            self.handle.clear_nominated_node_name(lower)

    def _preempt_pod(self, node: str, preemptor: Pod, victim: Pod) -> None:
        """``PreemptPod``: a victim waiting at Permit is rejected ("preempted"); any other is recorded for deletion
        (with the ``DisruptionTarget`` condition, reason ``PreemptionByScheduler``)."""
        fwk = self.framework
        waiting = fwk.get_waiting_pod(victim.uid) if fwk is not None else None
        if waiting is not None:
            waiting.reject(self.name, "preempted")
            return
        self.preempted.append(Preemption(preemptor, victim, node))


def filter_pods_with_pdb_violation(
    pods: Sequence[Pod], pdbs: Sequence[PodDisruptionBudget]
) -> tuple[list[Pod], list[Pod]]:
    """``filterPodsWithPDBViolation``: split ``pods`` (order kept) by whether evicting them in order violates a
    budget."""
    allowed = [pdb.disruptions_allowed for pdb in pdbs]
    violating: list[Pod] = []
    non_violating: list[Pod] = []
    for pod in pods:
        violated = False
        if pod.labels:
            for i, pdb in enumerate(pdbs):
                if pdb.namespace != pod.namespace or not pdb.selector:
                    continue
                if any(pod.labels.get(k) != v for k, v in pdb.selector.items()):
                    continue
                if pod.name in pdb.disrupted_pods:
                    continue
                allowed[i] -= 1
                if allowed[i] < 0:
                    violated = True
        (violating if violated else non_violating).append(pod)
    return violating, non_violating


def pick_one_node_for_preemption(nodes_to_victims: dict[str, Candidate], now: int, rng: random.Random) -> str:
    """``pickOneNodeForPreemption``: the default score functions in order, each keeping the best-scoring nodes;
    a tie after all five is broken by Go's map order, which is random (here: ``rng``)."""
    def earliest_start_of_highest(c: Candidate) -> int:
        highest = max(p.priority for p in c.victims.pods)
        return min(now if p.start_time is None else p.start_time for p in c.victims.pods if p.priority == highest)

    score_funcs: list[Callable[[Candidate], int]] = [
        lambda c: -c.victims.num_pdb_violations,
        lambda c: -c.victims.pods[0].priority,
        lambda c: -sum(p.priority + MAX_INT32 + 1 for p in c.victims.pods),
        lambda c: -len(c.victims.pods),
        earliest_start_of_highest,
    ]
    names = list(nodes_to_victims)
    rng.shuffle(names)
    for score in score_funcs:
        scores = {name: score(nodes_to_victims[name]) for name in names}
        best = max(scores.values())
        names = [name for name in names if scores[name] == best]
        if len(names) == 1:
            return names[0]
    return names[0]
