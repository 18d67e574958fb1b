"""The spec's invariants, checked on a running simulation (:mod:`refimpl.simulator`) by reading it in spec terms.

refimpl may not import the spec's invariants (tests/test_project.py), so the simulator only reports its steps to
observers; :class:`InvariantChecker` is the observer that translates the simulated scheduler and cluster into a
:class:`spec.cycle.cycle.Cluster` and evaluates the predicates of :mod:`spec.cycle.invariants` and
:mod:`spec.cache.invariants`
on it. The translation is the abstraction function of the pipeline:

- ``cache``: the refimpl cache as a :class:`spec.cache.cache.CacheState` (:func:`abstract_cache_state`);
- ``api_pods``: the pods the *informer* knows of (the spec creates and deletes a pod together with its informer
  event), each as the API server has it now, or last had it if its deletion is not delivered yet;
- ``unconfirmed``: those bound at the API server whose binding the informer has not delivered;
- ``pending``: the scheduling queue's active, backoff and unschedulable pods;
- ``binding``: the assumed pod of every binding cycle that has not ended.

Transitions are checked around the steps they are about: ``trans_expiry_only_after_finish_binding`` around each
cache cleanup, ``trans_failed_scheduling_keeps_the_cache`` around each scheduling cycle that failed.
``inv_no_node_overcommitted`` and ``inv_used_ports_are_union_of_pods`` are checked only with a TTL of 0: with a
non-zero TTL both are known violations (:data:`KNOWN_VIOLATIONS_WITH_TTL`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

from conformance.adapters.refimpl_abstraction import abstract_cache_state
from refimpl.scheduler.schedule_one import Outcome
from refimpl.simulator import Action, Simulation
from spec.cache.cache import CacheState
from spec.cache.invariants import (
    STATE_INVARIANTS,
    inv_requested_is_sum_of_pods,
    inv_used_ports_are_union_of_pods,
    trans_expiry_only_after_finish_binding,
)
from spec.cache.nodeinfo import NodeInfo as SpecNodeInfo
from spec.cache.snapshot import EMPTY_SNAPSHOT, update_snapshot
from spec.cycle.cycle import Cluster
from spec.cycle.filters import is_feasible
from spec.cycle.invariants import (
    CYCLE_INVARIANTS,
    inv_no_node_overcommitted,
    inv_no_pod_preempted_by_lower_or_equal,
    inv_nominated_resources_not_double_counted,
    inv_preemption_victims_have_lower_priority,
    trans_failed_scheduling_keeps_the_cache,
)
from spec.cycle.preemption import Outcome as PreemptionOutcome
from spec.cycle.preemption import PreemptionResult
from spec.frozenmap import FrozenMap
from spec.objects import Pod
from spec.queue.nominator import Nominator

# ============================================================================================
# The abstraction function of the pipeline (the cache's is conformance.adapters.refimpl_abstraction's)
# ============================================================================================


def abstract_cluster(sim: Simulation, cache: CacheState | None = None) -> Cluster:
    """The simulation as a spec :class:`~spec.cycle.cycle.Cluster` (see the module docstring)."""
    world = sim.world
    api_pods = {}
    unconfirmed = set()
    for seen in sim.informer.pods.values():
        current = world.pods.get(seen.uid) or world.deleted_pods.get(seen.uid) or seen
        api_pods[seen.uid] = current
        if current.node_name and not seen.node_name:
            unconfirmed.add(seen.uid)
    queue = sim.queue
    pending = {p.uid: p for p in (*queue.pods_in_active_q(), *queue.pods_in_backoff_q(), *queue.unschedulable_pods())}
    return Cluster(
        cache=cache if cache is not None else abstract_cache_state(sim.cache),
        pending=FrozenMap(pending),
        binding=FrozenMap(sim.binding_pods()),
        api_pods=FrozenMap(api_pods),
        unconfirmed=frozenset(unconfirmed),
        deleted=frozenset(uid for uid in world.deleted_pods if uid not in api_pods),
        now=sim.clock.now(),
        scheduler_name=sim.scheduler_name,
        nodes=FrozenMap(sim.informer.nodes),
    )


# ============================================================================================
# The checker
# ============================================================================================


def abstract_nominator(sim: Simulation) -> Nominator:
    """The scheduler's queue's nominator as the spec's :class:`~spec.queue.nominator.Nominator`."""
    nominator = sim.queue.nominator
    return Nominator(
        FrozenMap({node: tuple(ref.uid for ref in refs) for node, refs in nominator.nominated_pods.items()}),
        FrozenMap(dict(nominator.pod_to_node)),
    )


@dataclass
class Tally:
    """How often one invariant was checked and violated, and the first violation's step."""

    checked: int = 0
    violations: int = 0
    first_violation: str | None = None
    known: bool = False
    """A known violation in this setting: its violations are reported, but do not fail the run."""


class InvariantViolation(AssertionError):
    """An invariant failed on a simulation step (raised by a strict checker)."""


KNOWN_VIOLATIONS_WITH_TTL = frozenset({inv_no_node_overcommitted.__name__, inv_used_ports_are_union_of_pods.__name__})
"""Not checked when the TTL is not 0. An assumed pod whose binding finished expires when its informer event is later
than the TTL; its node's resources and host ports then go to another pod, and the late event adds the first pod back:
the node is double-booked (spec/cycle/invariants.py). Host ports are a set per node (``HostPortInfo``), so when
one of two pods holding the same port leaves, the port leaves the set although the other pod still holds it
(tests/refimpl/simulator/test_known_violations.py shows it)."""
FAILED_OUTCOMES = frozenset({Outcome.UNSCHEDULABLE, Outcome.ERROR})


class InvariantChecker:
    """An observer that checks every invariant after each ``every``-th step (1: every step).

    With ``strict`` it raises :class:`InvariantViolation` at the first violation; otherwise it counts them.
    """

    def __init__(self, every: int = 1, *, strict: bool = False, known: frozenset[str] = frozenset(),
                 extra: tuple[Callable[[Cluster], bool], ...] = ()) -> None:
        """``known`` names the invariants that are known violations here (counted, never failing the run);
        ``extra`` are further predicates of the scheduler's view to check after every sampled step."""
        if every < 1:
            raise ValueError(f"check every N steps needs N >= 1, got {every}")
        self.every = every
        self.strict = strict
        self.known = known
        self.extra = extra
        self.tallies: dict[str, Tally] = {}
        self._steps = 0
        self._before: CacheState | None = None
        self._accounting: dict[SpecNodeInfo, bool] = {}
        for inv in STATE_INVARIANTS:
            self.tallies[inv.name] = Tally()
        for predicate in CYCLE_INVARIANTS:
            self.tallies[predicate.__name__] = Tally()
        self.tallies[inv_no_node_overcommitted.__name__] = Tally()
        self.tallies[trans_expiry_only_after_finish_binding.__name__] = Tally()
        self.tallies[trans_failed_scheduling_keeps_the_cache.__name__] = Tally()
        for predicate in extra:
            self.tallies[predicate.__name__] = Tally()
        for name in (inv_no_pod_preempted_by_lower_or_equal.__name__,
                     inv_preemption_victims_have_lower_priority.__name__,
                     inv_nominated_resources_not_double_counted.__name__):
            self.tallies[name] = Tally()
        self._preemptions_checked = 0
        for name in known:
            self.tallies[name].known = True

    @property
    def violations(self) -> int:
        """Violations of all invariants together, less the known ones."""
        return sum(t.violations for t in self.tallies.values() if not t.known)

    def _sampled(self) -> bool:
        return self._steps % self.every == 0

    def before(self, sim: Simulation, action: Action) -> None:
        """Keep the cache state before a cleanup or a scheduling cycle that this step checks."""
        self._before = None
        if self._sampled() and action.kind in ("cleanup", "schedule"):
            self._before = abstract_cache_state(sim.cache)

    def after(self, sim: Simulation, action: Action) -> None:
        """Check the invariants on the state after the step (if this step is sampled)."""
        sampled = self._sampled()
        self._steps += 1
        if not sampled:
            return
        where = f"step {self._steps} ({action.kind} {action.detail})".rstrip()
        state = abstract_cache_state(sim.cache)
        ttl_exempt = KNOWN_VIOLATIONS_WITH_TTL if sim.config.ttl != 0 else frozenset()
        for inv in STATE_INVARIANTS:
            if inv.name in ttl_exempt:
                continue
            if inv.predicate is inv_requested_is_sum_of_pods:
                self._record(inv.name, self._requested_is_sum_of_pods(state), where)
            else:
                self._record(inv.name, inv.predicate(state), where)
        cluster = abstract_cluster(sim, state)
        for predicate in CYCLE_INVARIANTS:
            self._record(predicate.__name__, predicate(cluster), where)
        if inv_no_node_overcommitted.__name__ not in ttl_exempt:
            self._record(inv_no_node_overcommitted.__name__, inv_no_node_overcommitted(cluster), where)
        for extra in self.extra:
            self._record(extra.__name__, extra(cluster), where)
        new = sim.preemptions[self._preemptions_checked:]  # a conjunction over the log: only new entries
        self._preemptions_checked = len(sim.preemptions)
        self._record(inv_no_pod_preempted_by_lower_or_equal.__name__, inv_no_pod_preempted_by_lower_or_equal(new),
                     where)
        by_preemptor: dict[str, tuple[Pod, list[Pod]]] = {}
        for preemptor, victim in new:
            by_preemptor.setdefault(preemptor.uid, (preemptor, []))[1].append(victim)
        results = [(p, PreemptionResult(PreemptionOutcome.SUCCESS, "", victims=tuple(v)))
                   for p, v in by_preemptor.values()]
        self._record(inv_preemption_victims_have_lower_priority.__name__,
                     all(inv_preemption_victims_have_lower_priority(p, r) for p, r in results), where)
        self._record(inv_nominated_resources_not_double_counted.__name__,
                     inv_nominated_resources_not_double_counted(abstract_nominator(sim), state), where)
        before, self._before = self._before, None
        if before is None:
            return
        if action.kind == "cleanup" and sim.cache.profile.assumed_pod_expiry:
            holds = trans_expiry_only_after_finish_binding(before, state, sim.clock.now())
            self._record(trans_expiry_only_after_finish_binding.__name__, holds, where)
        result = sim.last_result
        if action.kind == "schedule" and result is not None and result.outcome in FAILED_OUTCOMES:
            holds = trans_failed_scheduling_keeps_the_cache(replace(cluster, cache=before), cluster)
            self._record(trans_failed_scheduling_keeps_the_cache.__name__, holds, where)

    def _requested_is_sum_of_pods(self, state: CacheState) -> bool:
        """``inv_requested_is_sum_of_pods``, evaluated node by node on one-node states and remembered per NodeInfo
        value: it is a conjunction over the nodes, and recomputing every pod's requests at every step would
        dominate the run's time. Only the last check's NodeInfos are remembered (a node unchanged since then is
        not recomputed), so the memo holds no more than the cluster's nodes: a memo of every NodeInfo ever seen
        kept the pods of a long run alive long after they were deleted."""
        previous, current = self._accounting, {}
        holds = True
        for name, info in state.nodes.items():
            known = previous.get(info)
            if known is None:
                known = inv_requested_is_sum_of_pods(replace(state, nodes=FrozenMap({name: info})))
            current[info] = known
            holds = holds and known
        self._accounting = current
        return holds

    def _record(self, name: str, holds: bool, where: str) -> None:
        tally = self.tallies[name]
        tally.checked += 1
        if holds:
            return
        tally.violations += 1
        if tally.first_violation is None:
            tally.first_violation = where
        if self.strict and not tally.known:
            raise InvariantViolation(f"{name} violated after {where}")


def unbound_pods_that_fit(sim: Simulation) -> dict[str, list[str]]:
    """The API server's unbound pods that some live node of the cache admits (every filter of
    :func:`spec.cycle.filters.is_feasible` passes on the node as the cache holds it): UID -> those nodes."""
    state = abstract_cache_state(sim.cache)
    snapshot = update_snapshot(state, EMPTY_SNAPSHOT)
    live = [snapshot.node_info_map[name] for name in snapshot.node_info_list]
    fitting = {}
    for pod in sim.world.unbound_pods():
        if pod.scheduler_name != sim.scheduler_name:
            continue  # another scheduler's pod (responsibleForPod)
        nodes = [info.node.name for info in live if info.node is not None and is_feasible(pod, info, snapshot)]
        if nodes:
            fitting[pod.uid] = nodes
    return fitting


def check_final_state(sim: Simulation) -> list[str]:
    """What is wrong with a simulation that has gone quiet, whose clock is past the TTL, and whose queue has
    retried every pod since the last change: assumed pods left behind, and unbound pods that fit a node. [] if
    nothing."""
    problems = [f"pod {uid} is still assumed" for uid in sorted(sim.cache.internals().assumed_pods)]
    for uid, nodes in unbound_pods_that_fit(sim).items():
        where = sim.queue.where(uid)
        problems.append(f"pod {uid} fits node(s) {', '.join(nodes)} but is not bound (scheduling queue: "
                        f"{where.value if where is not None else 'not queued'})")
    return problems
