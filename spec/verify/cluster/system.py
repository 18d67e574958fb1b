"""Several schedulers over one API server (:mod:`spec.cluster.cluster`) as a transition system for the model checker.

States are :class:`~spec.cluster.cluster.KubeCluster` values over a finite :class:`ClusterUniverse`: ``schedulers``
schedulers (named by :func:`spec.cluster.cluster.scheduler_name`), ``nodes`` nodes the API server and every scheduler
have from the start (1000m, 1 GiB, room for 2 pods each: allocatable never changes), and ``pods`` UIDs, each
created for any one of the schedulers, requesting 600m (two do not fit one node). A scheduler schedules its
pending pods onto any feasible node or finds none fits, binds (or its bind fails), and receives the bindings of
all pods; a kubelet admits or rejects each pod bound to its node; a user deletes a pod at any stage. With
``crashes`` a scheduler may also crash and restart (:mod:`spec.cluster.restart`); a restart waits until every orphaned
bind request was answered, unless ``late_binds``. With ``terminations`` a user may also delete a pod gracefully
(:func:`spec.cycle.cycle.terminate_pod`, every scheduler's handlers reacting: a binding in flight is then refused at
Bind) and a scheduler skips a popped pod being deleted (:func:`spec.cycle.cycle.skip_pod`).

Properties checked in every state, in every scheduler's view:

- :data:`spec.cycle.invariants.CYCLE_INVARIANTS` and :data:`spec.cluster.invariants.CLUSTER_INVARIANTS`
  (among them the kubelet-level :func:`~spec.cluster.invariants.inv_admitted_pods_fit_nodes`);
- the cache invariants of :data:`spec.cache.invariants.STATE_INVARIANTS` that hold ALWAYS, and with one scheduler the
  contract-only ones too (with several, a scheduler's informer delivers pods it did not place, which need not
  follow the contract's "no two pods on a node share a host port");
- with one scheduler (and no late binds), or with ``known_violations``: the scheduler-level over-commit,
  :data:`spec.cluster.invariants.OVERCOMMIT_INVARIANTS` (each scheduler's cache, and the bindings at the API
  server). With two schedulers the checker finds the shortest trace to each.

No symmetry reduction by renaming (the universe is small enough without it); each scheduler's cache counters
are renumbered as the other systems do, which keeps the state space finite.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, replace
from functools import cached_property
from typing import Any, Final

from spec.cache.invariants import violated_state_invariants
from spec.cache.operations import World
from spec.cluster.cluster import (
    KubeCluster,
    environment_step,
    new_kube_cluster,
    scheduler_name,
    scheduler_step,
    view,
    views,
)
from spec.cluster.invariants import CLUSTER_INVARIANTS, OVERCOMMIT_INVARIANTS
from spec.cycle.cycle import Cluster, CycleNotEnabled, FailurePoint
from spec.cycle.invariants import CYCLE_INVARIANTS
from spec.objects import Container, Node, Pod
from spec.quantities import resource_list
from spec.verify.cache.symmetry import Canonicalizer
from spec.verify.cycle.system import describe_cluster
from spec.verify.fingerprint import fingerprint
from spec.verify.transition_system import Edge, TraceStep, Violation
from spec.versions import DEFAULT_PROFILE, VersionProfile

MAX_SCHEDULERS: Final = 3


def cluster_pod(uid: str, scheduler: int) -> Pod:
    """Pod ``uid`` for the ``scheduler``-th scheduler, requesting 600m and 1 MiB."""
    return Pod(uid, uid, containers=(Container("c", resource_list(cpu=600, memory=2**20)),),
               scheduler_name=scheduler_name(scheduler))


def cluster_node(name: str) -> Node:
    """1000m, 1 GiB, room for 2 pods."""
    return Node(name, resource_list(cpu=1000, memory=2**30, pods=2))


@dataclass(frozen=True)
class ClusterStep:
    """One step: scheduler ``scheduler``'s own transition ``name``, or (``scheduler`` None) a change of the
    environment (:data:`spec.cluster.cluster.ENVIRONMENT_TRANSITIONS`); ``args`` follow the cluster."""

    scheduler: int | None
    name: str
    args: tuple[Any, ...] = ()

    def apply(self, k: KubeCluster) -> KubeCluster:
        """Apply it; fails with :class:`~spec.cycle.cycle.CycleNotEnabled` when its guard is false."""
        if self.scheduler is None:
            return environment_step(k, self.name, *self.args)
        return scheduler_step(k, self.scheduler, self.name, *self.args)

    def describe(self) -> str:
        """``s1: schedule_pod(p0, n0)`` or ``create_pod(p0 for scheduler-1)``."""

        def arg(value: Any) -> str:
            if isinstance(value, Pod):
                return f"{value.uid} for {value.scheduler_name}"
            if isinstance(value, FailurePoint):
                return value.value
            return str(value)

        call = f"{self.name}({', '.join(arg(a) for a in self.args)})"
        return call if self.scheduler is None else f"{scheduler_name(self.scheduler)}: {call}"


@dataclass(frozen=True)
class ClusterUniverse:
    """The finite universe of the cluster checker, as set on the command line."""

    schedulers: int = 2
    nodes: int = 1
    pods: int = 2
    crashes: bool = False
    kubelet: bool = True
    late_binds: bool = False
    profile: VersionProfile = DEFAULT_PROFILE
    terminations: bool = False
    """Users may delete pods gracefully (``terminate_pod``) and schedulers skip popped pods being deleted
    (``skip_pod``). Off by default, so the recorded figures of the runs without it stand."""

    def __post_init__(self) -> None:
        if not 1 <= self.schedulers <= MAX_SCHEDULERS:
            raise ValueError(f"the universe needs 1 to {MAX_SCHEDULERS} schedulers, got {self.schedulers}")
        if self.nodes < 1 or self.pods < 1:
            raise ValueError(f"the universe needs at least one node and one pod, got {self.nodes} and {self.pods}")

    @cached_property
    def pod_uids(self) -> tuple[str, ...]:
        return tuple(f"p{i}" for i in range(self.pods))

    @cached_property
    def node_names(self) -> tuple[str, ...]:
        return tuple(f"n{i}" for i in range(self.nodes))

    def describe(self) -> str:
        return (
            f"{self.schedulers} scheduler(s), {self.nodes} node(s) of 1000m, {self.pods} pods of 600m each for "
            f"any scheduler, profile {self.profile.name}, TTL 0"
            + (", kubelet admission" if self.kubelet else "")
            + (", crashes and restarts" + (" (late binds)" if self.late_binds else "") if self.crashes else "")
            + (", graceful deletions" if self.terminations else "")
        )

    def initial_states(self) -> list[KubeCluster]:
        nodes = tuple(cluster_node(n) for n in self.node_names)
        return [new_kube_cluster(self.schedulers, nodes, self.profile)]

    def steps(self, k: KubeCluster) -> list[ClusterStep]:
        """Candidate steps in ``k`` (some may not be enabled), in a fixed order."""
        api = k.api
        steps: list[ClusterStep] = []
        for uid in self.pod_uids:
            if uid not in api.api_pods and uid not in api.deleted and uid not in api.failed:
                steps.extend(ClusterStep(None, "create_pod", (cluster_pod(uid, s),)) for s in range(self.schedulers))
            if uid in api.api_pods:
                steps.append(ClusterStep(None, "delete_pod", (uid,)))
                if self.terminations and not api.api_pods[uid].terminating:
                    steps.append(ClusterStep(None, "terminate_pod", (uid,)))
                if self.kubelet and api.api_pods[uid].node_name and uid not in api.admitted:
                    steps.append(ClusterStep(None, "admit_pod", (uid,)))
            if uid in api.orphaned:
                steps += [ClusterStep(None, name, (uid,)) for name in ("land_orphaned_bind", "drop_orphaned_bind")]
        for index, member in enumerate(views(k)):
            steps.extend(self.scheduler_steps(index, member))
        return steps

    def scheduler_steps(self, index: int, member: Cluster) -> Iterator[ClusterStep]:
        """Scheduler ``index``'s candidate steps in its view ``member``."""
        for uid in sorted(member.pending):
            if self.terminations:
                yield ClusterStep(index, "skip_pod", (uid,))
            yield ClusterStep(index, "fail_scheduling", (uid, None, None))
            for name in self.node_names:
                yield ClusterStep(index, "schedule_pod", (uid, name))
        for uid in sorted(member.binding):
            yield ClusterStep(index, "bind_pod", (uid,))
            yield ClusterStep(index, "fail_binding", (uid, FailurePoint.BIND))
        for uid in sorted(member.unconfirmed):
            yield ClusterStep(index, "confirm_binding", (uid,))
        if not self.crashes:
            return
        if not member.running:
            if self.late_binds or not member.orphaned:
                yield ClusterStep(index, "restart_scheduler")
            return
        yield ClusterStep(index, "crash_scheduler")
        if member.unlisted_nodes:
            yield ClusterStep(index, "list_node")
        if member.unlisted_pods:
            yield ClusterStep(index, "list_pod")


class ClusterSystem:
    """Several schedulers over one API server, within a finite universe."""

    def __init__(self, universe: ClusterUniverse, *, known_violations: bool = False) -> None:
        self.universe = universe
        self.known_violations = known_violations
        self.canonicalizer = Canonicalizer(None)

    def initial_states(self) -> list[KubeCluster]:
        return self.universe.initial_states()

    def within_bounds(self, state: KubeCluster) -> bool:
        return True

    def fingerprint(self, representative: KubeCluster) -> int:
        """The fingerprint of the whole value (:mod:`spec.verify.fingerprint`)."""
        return fingerprint(representative)

    def canonical(self, state: KubeCluster) -> tuple[KubeCluster, object]:
        """Each scheduler's cache and snapshot with their counters renumbered and the gauge dropped
        (:mod:`spec.verify.cache.symmetry`, without renaming): the generations only grow, so without this the
        state space would be infinite."""
        members = []
        for member in state.schedulers:
            world, _ = self.canonicalizer.world(World(member.cache, member.snapshot))
            members.append(replace(member, cache=world.cache, snapshot=world.snapshot))
        return KubeCluster(state.api, tuple(members)), None

    @property
    def checks_overcommit(self) -> bool:
        """Whether the scheduler-level over-commit is checked (it holds with one scheduler and no late binds)."""
        single = self.universe.schedulers == 1 and not self.universe.late_binds
        return single or self.known_violations

    def violations(self, state: KubeCluster) -> list[str]:
        strict = self.universe.schedulers == 1 or self.known_violations
        found: list[str] = []
        for member in views(state):
            found += [n for n in violated_state_invariants(member.cache, contract=strict) if n not in found]
            predicates = (*CYCLE_INVARIANTS, *CLUSTER_INVARIANTS)
            if self.checks_overcommit:
                predicates += OVERCOMMIT_INVARIANTS
            found += [p.__name__ for p in predicates if p.__name__ not in found and not p(member)]
        return found

    def edges(self, state: KubeCluster) -> Iterator[Edge[KubeCluster]]:
        for step in self.universe.steps(state):
            try:
                after = step.apply(state)
            except CycleNotEnabled:
                continue
            yield Edge(step, coverage(step), after)

    def concretize(self, initial: KubeCluster, path: list[tuple[object, object]], prop: str) -> Violation:
        """Replay ``path`` from ``initial`` (no renaming happened) into a trace."""
        state = initial
        steps = []
        for label, _ in path:
            assert isinstance(label, ClusterStep)
            state = label.apply(state)
            steps.append(TraceStep(label.describe(), "ok"))
        return Violation(prop, self.universe.describe(), tuple(steps), describe_kube_cluster(state))


def coverage(step: ClusterStep) -> str:
    """The coverage class of a step: its name, and whose step it is."""
    point = next((a for a in step.args if isinstance(a, FailurePoint)), None)
    name = step.name if point is not None or step.name != "fail_scheduling" else "fail_scheduling: unschedulable"
    return f"{name}: {'environment' if step.scheduler is None else 'scheduler'}"


def describe_kube_cluster(k: KubeCluster) -> str:
    """Every scheduler's view, and the kubelets."""
    lines = []
    for index in range(len(k.schedulers)):
        lines.append(f"[{scheduler_name(index)}]")
        lines += [f"  {line}" for line in describe_cluster(view(k, index)).splitlines()]
    return "\n".join(lines)


DEFAULT_CLUSTER_UNIVERSE: Final = ClusterUniverse()
"""``ksspec check --system cluster`` without arguments: two schedulers, exhausted in seconds."""
