"""The cluster invariants (:mod:`spec.cluster.invariants`), checked on a running :class:`~refimpl.simulator.cluster.
ClusterSimulation` of several schedulers, crashes and kubelets.

Two levels are checked:

- **per scheduler**, an :class:`~conformance.simulation.checks.InvariantChecker` for each scheduler (across its
  incarnations) on its own view (:func:`~conformance.simulation.checks.abstract_cluster`). With several
  schedulers, ``inv_no_node_overcommitted`` and ``inv_used_ports_are_union_of_pods`` are known violations
  (:data:`KNOWN_VIOLATIONS_WITH_SEVERAL`).
- **the cluster**, on the API server and the kubelets (:func:`abstract_api_server`), after every sampled step of any
  process and of the cluster: ``inv_admitted_pods_fit_nodes`` (the kubelet level, which must always hold),
  ``inv_no_pod_bound_twice``, and ``inv_bindings_fit_nodes`` (the scheduler level: a known violation with several
  schedulers, or when a crashed process's bind may land after its successor listed the pods and filled the node;
  with one scheduler whose restarts wait longer than any request takes, it must hold).

At each restart the new process's cache is compared with the cache the API server's bound pods build
(``restart: cache equals the API server's``), and when the cluster has settled every pod that was in a binding cycle
at a crash must be bound and cached by its scheduler, pending again, or gone (:func:`crash_problems`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Final

from conformance.simulation.checks import (
    InvariantChecker,
    Tally,
    abstract_cluster,
    check_final_state,
)
from refimpl.simulator import Action, Simulation
from refimpl.simulator.cluster import ClusterSimulation
from spec.cache.invariants import inv_used_ports_are_union_of_pods
from spec.cluster.invariants import (
    inv_admitted_pods_fit_nodes,
    inv_bindings_fit_nodes,
    inv_no_pod_bound_twice,
    inv_synced_cache_matches_api_server,
)
from spec.cycle.cycle import Cluster
from spec.cycle.invariants import inv_no_node_overcommitted
from spec.frozenmap import FrozenMap
from spec.objects import Pod

KNOWN_VIOLATIONS_WITH_SEVERAL: Final = (inv_no_node_overcommitted.__name__, inv_used_ports_are_union_of_pods.__name__)
"""Known violations of a scheduler's cache with several schedulers (or a crashed one's late binds): the cache
over-commits a node once it learns of another scheduler's pod there; and when two pods holding the same host port
land on one node and the kubelet rejects one, the port leaves the cache's ``HostPortInfo`` set although the other
pod still holds it (as :data:`~conformance.simulation.checks.KNOWN_VIOLATIONS_WITH_TTL` explains)."""
RESTART_SYNC = "restart: cache equals the API server's"
"""The tally of :func:`~spec.cluster.invariants.inv_synced_cache_matches_api_server` checked at each restart."""


def abstract_api_server(sim: ClusterSimulation) -> Cluster:
    """The API server and the kubelets as the shared part of a spec :class:`~spec.cycle.cycle.Cluster`: its pods and
    nodes, the pods the kubelets admitted, the Failed pods, and how often each pod was bound (pods the API server no
    longer has count only if they were bound more than once)."""
    world = sim.world
    admitted = frozenset(uid for pods in sim.kubelets.admitted.values() for uid in pods)
    return Cluster(
        api_pods=FrozenMap(world.pods),
        nodes=FrozenMap(world.nodes),
        admitted=admitted,
        failed=FrozenMap(world.failed_pods),
        bind_count=FrozenMap({**world.bound_twice, **world.bind_counts}),
        now=sim.clock.now(),
    )


def restarted_view(process: Simulation) -> Cluster:
    """A process that has just started and synced, against the API server itself (not what its informer
    delivered): every non-terminal pod and every node the API server has, no binding on its way."""
    world = process.world
    return replace(abstract_cluster(process), api_pods=FrozenMap(world.pods), nodes=FrozenMap(world.nodes),
                   unconfirmed=frozenset())


@dataclass
class ClusterChecker:
    """Checks both levels on a :class:`ClusterSimulation` every ``every``-th step; attach with :meth:`attach`."""

    schedulers: int
    every: int = 1
    late_binds: bool = False
    """A crashed process's bind may land after its successor listed the pods (the restart delay is shorter
    than an API request may take)."""
    per_scheduler: list[InvariantChecker] = field(default_factory=list)
    tallies: dict[str, Tally] = field(default_factory=dict)
    sim: ClusterSimulation | None = None
    _steps: int = 0
    _memo: dict[tuple[str, str], tuple[object, bool]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        several = self.schedulers > 1 or self.late_binds
        known = frozenset(KNOWN_VIOLATIONS_WITH_SEVERAL) if several else frozenset()
        self.per_scheduler = [InvariantChecker(self.every, known=known) for _ in range(self.schedulers)]
        for predicate in (inv_admitted_pods_fit_nodes, inv_no_pod_bound_twice, inv_bindings_fit_nodes):
            self.tallies[predicate.__name__] = Tally()
        self.tallies[RESTART_SYNC] = Tally()
        self.tallies[inv_bindings_fit_nodes.__name__].known = several

    def scheduler_observers(self, index: int) -> tuple[InvariantChecker, ClusterChecker]:
        """The observers of each process of scheduler ``index``."""
        return self.per_scheduler[index], self

    def attach(self, sim: ClusterSimulation) -> None:
        """Check ``sim`` (whose ``scheduler_observers`` came from :meth:`scheduler_observers`)."""
        self.sim = sim

    @property
    def violations(self) -> int:
        """Violations that fail the run: every level, less the known ones."""
        own = sum(t.violations for t in self.tallies.values() if not t.known)
        return own + sum(c.violations for c in self.per_scheduler)

    # -- a process's observer ---------------------------------------------------------------

    def before(self, sim: Simulation, action: Action) -> None:
        """Nothing to keep."""

    def after(self, sim: Simulation, action: Action) -> None:
        """After a process's step: the cluster level."""
        self._check(f"{sim.scheduler_name}: {action.kind} {action.detail}".rstrip())

    # -- the cluster's observer -------------------------------------------------------------

    def after_cluster_step(self, sim: ClusterSimulation, action: Action) -> None:
        """After a cluster step: the cluster level, and at a restart the new cache against the API server."""
        self.sim = sim
        where = f"{action.kind} {action.detail}".rstrip()
        if action.kind == "restart":
            index = next(i for i, r in enumerate(sim.records) if r.name == action.detail)
            process = sim.records[index].latest
            assert process is not None
            self._record(RESTART_SYNC, inv_synced_cache_matches_api_server(restarted_view(process)), where)
        self._check(where)

    def _check(self, where: str) -> None:
        sampled = self._steps % self.every == 0
        self._steps += 1
        if not sampled or self.sim is None:
            return
        cluster = abstract_api_server(self.sim)
        where = f"step {self._steps} ({where})"
        self._record(inv_no_pod_bound_twice.__name__, inv_no_pod_bound_twice(cluster), where)
        for predicate in (inv_admitted_pods_fit_nodes, inv_bindings_fit_nodes):
            self._record(predicate.__name__, self._per_node(predicate, cluster), where)

    def _per_node(self, predicate: Callable[[Cluster], bool], cluster: Cluster) -> bool:
        """``predicate``, a conjunction over the nodes, evaluated node by node on one-node clusters, each node's last
        verdict remembered with its node object, pods and admissions: recomputing every pod's requests at every step
        would dominate the run's time. Only the last verdict per node is kept, so the memo holds no more than the
        cluster's nodes (a memo of every (node, pods) ever seen kept the pods of a long run alive)."""
        by_node: dict[str, list[Pod]] = {}
        for pod in cluster.api_pods.values():
            by_node.setdefault(pod.node_name, []).append(pod)
        holds = True
        for name, node in cluster.nodes.items():
            pods = tuple(sorted(by_node.get(name, ()), key=lambda p: p.uid))
            admitted = frozenset(p.uid for p in pods if p.uid in cluster.admitted)
            key = (node, pods, admitted)
            last = self._memo.get((predicate.__name__, name))
            if last is not None and last[0] == key:
                known = last[1]
            else:
                one = replace(cluster, nodes=FrozenMap({name: node}), admitted=admitted,
                              api_pods=FrozenMap({p.uid: p for p in pods}))
                known = predicate(one)
                self._memo[(predicate.__name__, name)] = (key, known)
            holds = holds and known
        return holds

    def _record(self, name: str, holds: bool, where: str) -> None:
        tally = self.tallies[name]
        tally.checked += 1
        if not holds:
            tally.violations += 1
            if tally.first_violation is None:
                tally.first_violation = where


def crash_problems(sim: ClusterSimulation) -> list[str]:
    """For a settled cluster: each pod that was in a binding cycle when its scheduler crashed must now be gone
    (deleted or Failed), or bound and in its scheduler's cache on that node as a confirmed pod, or unbound and in
    its scheduler's queue (:func:`~spec.cluster.invariants.inv_crash_in_flight_pods_resolved`). [] if so."""
    problems = []
    for index, record in enumerate(sim.records):
        process = sim.processes[index]
        if process is None:
            problems.append(f"{record.name} is not running")
            continue
        internals = process.cache.internals()
        for uid in sorted(record.in_flight_at_crash):
            pod = sim.world.pods.get(uid)
            if pod is None:
                continue
            if pod.node_name:
                cached = internals.pod_states.get(uid)
                if cached is None or uid in internals.assumed_pods or cached.pod.node_name != pod.node_name:
                    problems.append(f"pod {uid}, in flight at a crash of {record.name}, is bound to "
                                    f"{pod.node_name} but not cached there")
            elif process.queue.where(uid) is None:
                problems.append(f"pod {uid}, in flight at a crash of {record.name}, is unbound and not queued")
    return problems


def final_problems(sim: ClusterSimulation) -> list[str]:
    """What is wrong with a settled cluster: each scheduler's final state
    (:func:`~conformance.simulation.checks.check_final_state`), then :func:`crash_problems`."""
    problems = []
    for _, process in sim.live():
        problems += [f"{process.scheduler_name}: {p}" for p in check_final_state(process)]
    return problems + crash_problems(sim)
