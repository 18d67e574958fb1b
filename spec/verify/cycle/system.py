"""The scheduling pipeline (:mod:`spec.cycle.cycle`) as a transition system for the model checker.

States are :class:`~spec.cycle.cycle.Cluster` values; transitions are the :mod:`spec.cycle.cycle` functions
over a finite :class:`CycleUniverse`: ``pods`` UIDs with the same pod variants each (created
unscheduled, then scheduled onto any feasible node, rejected at Reserve or Permit, bound or failed
at PreBind or Bind, confirmed late and in any order, deleted at any stage), ``nodes`` names with
the same node variants each (added, updated, removed; every variant has the same allocatable, the
headline's environment assumption "allocatable never shrinks"), and, with a non-zero TTL, time
passing in steps of ``tick`` up to ``horizon`` (the cache's cleanup runs at each tick). A UID is
never reused, so runs are finite. With ``crashes`` the scheduler may also crash and restart
(:mod:`spec.cluster.restart`: the informers' lists delivered one object at a time, the crashed process's
bind requests answered or lost), and with ``kubelet`` the nodes' kubelets admit or reject bound
pods (:mod:`spec.cluster.kubelet`). With ``preemption`` the profile runs DefaultPreemption as PostFilter: each pod
variant is created at priority 0 or 1, and a failed cycle with no feasible node preempts, one transition per best
node (``fail_scheduling``'s ``preempt_on``). A restart waits until every orphaned bind request was answered, the
environment assumption of :func:`~spec.cluster.invariants.inv_bindings_fit_nodes`, unless
``late_binds``. With ``terminations`` users may also delete pods gracefully (:func:`spec.cycle.cycle.terminate_pod`,
whose binding then fails: :func:`spec.cycle.cycle.bind_pod` is refused) and ``ScheduleOne`` skips a popped pod being
deleted (:func:`spec.cycle.cycle.skip_pod`).

Properties checked:

- every state: :data:`spec.cycle.invariants.CYCLE_INVARIANTS` and
  :data:`spec.cluster.invariants.CLUSTER_INVARIANTS`; in clusters whose TTL is 0, every
  cache invariant of :data:`spec.cache.invariants.STATE_INVARIANTS` (the pipeline then feeds the cache
  contract-following input) and the over-commit invariants
  (:data:`spec.cluster.invariants.OVERCOMMIT_INVARIANTS`: in the cache and at the API server) unless
  ``late_binds``; with a non-zero TTL, the cache invariants that hold ALWAYS;
- every failed scheduling cycle: :func:`~spec.cycle.invariants.trans_failed_scheduling_keeps_the_cache` (but for
  the victims of its preemption) and :func:`~spec.cycle.invariants.trans_preemption_evicts_only_lower_priority`;
  every step but a crash (a new process's cache starts afresh):
  :func:`~spec.cache.invariants.trans_generations_only_grow`;
- with ``known_violations``: everything above with a non-zero TTL and with ``late_binds`` too (a
  crashed scheduler's bind landing after its successor listed the pods over-commits the node). The known violation is an
  expired assumption confirmed late: it overcommits the node (``inv_no_node_overcommitted``), and
  when the two pods share a host port the confirmation breaks the informer contract ("no two pods
  on a node share a host port"), so the contract-only cache invariants fail as well
  (``inv_used_ports_are_union_of_pods``, once one of the two pods leaves and takes the port's
  entry with it, as Kubernetes' ``HostPortInfo.Remove`` does).

Symmetry: the cache's canonical renaming (:mod:`spec.verify.cache.symmetry`) is applied to the whole
cluster (queue, binding cycles, API server, sets of UIDs).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import cached_property
from typing import Any, Final

from spec.cache.cache import CacheState
from spec.cache.invariants import trans_generations_only_grow, violated_state_invariants
from spec.cache.operations import World
from spec.cluster import kubelet, restart
from spec.cluster.invariants import CLUSTER_INVARIANTS, OVERCOMMIT_INVARIANTS
from spec.cycle import cycle
from spec.cycle.cycle import Cluster, CycleNotEnabled, FailurePoint, new_cluster
from spec.cycle.invariants import (
    CYCLE_INVARIANTS,
    inv_no_node_overcommitted,
    trans_failed_scheduling_keeps_the_cache,
    trans_preemption_evicts_only_lower_priority,
)
from spec.frozenmap import FrozenMap
from spec.objects import Container, ContainerPort, Node, Pod, Taint, Toleration
from spec.quantities import SECOND, Duration, resource_list
from spec.queue.nominator import Nominator
from spec.valuetypes import replace
from spec.verify.cache.symmetry import IDENTITY, MEMO_LIMIT, Renaming, Representatives, rename_node, rename_pod
from spec.verify.fingerprint import fingerprint
from spec.verify.transition_system import Edge, TraceStep, Violation
from spec.versions import DEFAULT_PROFILE, VersionProfile

MAX_POD_VARIANTS: Final = 3
MAX_NODE_VARIANTS: Final = 3
OVERCOMMIT: Final = inv_no_node_overcommitted.__name__
FAILED_KEEPS_CACHE: Final = trans_failed_scheduling_keeps_the_cache.__name__
PREEMPTS_LOWER: Final = trans_preemption_evicts_only_lower_priority.__name__
PRIORITIES: Final = (0, 1)
"""The priorities a pod variant is created at when the universe has preemption."""
GENERATIONS: Final = trans_generations_only_grow.__name__
TAINT: Final = Taint("dedicated", "x")


def cycle_pod(uid: str, variant: int) -> Pod:
    """Variant 0: 600m (two do not fit one node). Variant 1: 300m with host port 8080. Variant 2:
    no requests (non-zero defaults), tolerating every taint."""
    if variant == 0:
        return Pod(uid, uid, containers=(Container("c", resource_list(cpu=600, memory=2**20)),))
    if variant == 1:
        port = ContainerPort(80, host_port=8080)
        return Pod(uid, uid, containers=(Container("c", resource_list(cpu=300, memory=2**20), (port,)),))
    return Pod(uid, uid, containers=(Container("c"),), tolerations=(Toleration(operator="Exists"),))


def cycle_node(name: str, variant: int) -> Node:
    """1000m, 1 GiB, 2 pods each. Variant 0: plain. Variant 1: cordoned. Variant 2: tainted."""
    return Node(
        name,
        resource_list(cpu=1000, memory=2**30, pods=2),
        unschedulable=variant == 1,
        taints=(TAINT,) if variant == 2 else (),
    )


STEP_MODULES: Final = (cycle, restart, kubelet)
"""Where the transitions a :class:`CycleStep` names are defined."""


def step_function(name: str) -> Callable[..., Cluster]:
    """The transition of :data:`STEP_MODULES` called ``name``; fails with ``AttributeError`` for no such one."""
    for module in STEP_MODULES:
        function = getattr(module, name, None)
        if callable(function):
            return function  # type: ignore[no-any-return]
    raise AttributeError(f"no transition {name!r} in {', '.join(m.__name__ for m in STEP_MODULES)}")


@dataclass(frozen=True)
class CycleStep:
    """One transition: the name of a :mod:`spec.cycle.cycle`, :mod:`spec.cluster.restart` or
    :mod:`spec.cluster.kubelet` function
    and its arguments after the cluster."""

    name: str
    args: tuple[Any, ...] = ()

    def apply(self, cluster: Cluster) -> Cluster:
        """Apply it; fails with :class:`CycleNotEnabled` when its guard is false."""
        return step_function(self.name)(cluster, *self.args)


@dataclass(frozen=True)
class CycleUniverse:
    """The finite universe of the pipeline checker, as set on the command line."""

    nodes: int = 1
    pods: int = 2
    pod_variants: int = 1
    node_variants: int = 1
    ttls: tuple[Duration, ...] = (0, 1 * SECOND)
    tick: Duration = 1 * SECOND
    horizon: Duration = 2 * SECOND
    profile: VersionProfile = DEFAULT_PROFILE
    crashes: bool = False
    """The scheduler may crash and restart."""
    kubelet: bool = False
    """The nodes' kubelets admit or reject bound pods."""
    late_binds: bool = False
    """A crashed scheduler's bind request may be answered after its successor listed the pods."""
    preemption: bool = False
    """The profile runs DefaultPreemption as PostFilter, and pods come at the priorities of :data:`PRIORITIES`."""
    terminations: bool = False
    """Users may delete pods gracefully (``terminate_pod``, at any stage but an unconfirmed binding: a pending pod,
    one whose binding cycle is in flight, a bound one, or one whose orphaned bind request awaits the API server), and
    ``ScheduleOne`` skips a popped pod being deleted (``skip_pod``). Off by default, so the recorded figures of the
    runs without it stand."""

    def __post_init__(self) -> None:
        if self.nodes < 1 or self.pods < 1:
            raise ValueError(f"the universe needs at least one node and one pod, got {self.nodes} and {self.pods}")
        if not 1 <= self.pod_variants <= MAX_POD_VARIANTS or not 1 <= self.node_variants <= MAX_NODE_VARIANTS:
            raise ValueError(f"pod and node variants must be between 1 and {MAX_POD_VARIANTS}")
        if not self.profile.assumed_pod_expiry and any(self.ttls):
            raise ValueError(f"profile {self.profile.name} has no expiry: use --ttl 0")
        if self.tick <= 0:
            raise ValueError(f"the tick must be positive, got {self.tick}")

    @cached_property
    def pod_uids(self) -> tuple[str, ...]:
        return tuple(f"p{i}" for i in range(self.pods))

    @cached_property
    def node_names(self) -> tuple[str, ...]:
        return tuple(f"n{i}" for i in range(self.nodes))

    def describe(self) -> str:
        ttls = "{" + ", ".join(f"{t / SECOND:g}s" for t in self.ttls) + "}"
        return (
            f"{self.nodes} nodes x {self.node_variants} variants, {self.pods} pods x {self.pod_variants} variants, "
            f"ttl {ttls}, ticks of {self.tick / SECOND:g}s up to {self.horizon / SECOND:g}s, "
            f"profile {self.profile.name}"
            + (", crashes and restarts" + (" (late binds)" if self.late_binds else "") if self.crashes else "")
            + (", kubelet admission" if self.kubelet else "")
            + (", preemption (priorities 0 and 1)" if self.preemption else "")
            + (", graceful deletions" if self.terminations else "")
        )

    def initial_states(self) -> list[Cluster]:
        return [new_cluster(self.profile, ttl, self.preemption) for ttl in self.ttls]

    def created_pods(self, uid: str) -> list[Pod]:
        """The pods ``create_pod`` may create as ``uid``: each variant, at each priority with preemption."""
        variants = [cycle_pod(uid, v) for v in range(self.pod_variants)]
        if not self.preemption:
            return variants
        return [replace(p, priority=priority) for p in variants for priority in PRIORITIES]

    def steps(self, cluster: Cluster) -> list[CycleStep]:
        """Candidate transitions in ``cluster`` (some may not be enabled), in a fixed order."""
        steps: list[CycleStep] = []
        for uid in self.pod_uids:
            if uid not in cluster.api_pods and uid not in cluster.deleted:
                steps.extend(CycleStep("create_pod", (p,)) for p in self.created_pods(uid))
            if uid in cluster.pending:
                steps.append(CycleStep("fail_scheduling", (uid, None, None)))
                if self.preemption:  # a preemption's tie among best nodes: one transition per node
                    steps.extend(CycleStep("fail_scheduling", (uid, None, None, name)) for name in self.node_names)
                for name in self.node_names:
                    steps.append(CycleStep("schedule_pod", (uid, name)))
                    steps.extend(CycleStep("fail_scheduling", (uid, name, p)) for p in SCHEDULING_FAILURES)
            if uid in cluster.binding:
                steps.append(CycleStep("bind_pod", (uid,)))
                steps.extend(CycleStep("fail_binding", (uid, p)) for p in BINDING_FAILURES)
            if uid in cluster.unconfirmed:
                steps.append(CycleStep("confirm_binding", (uid,)))
            if self.terminations and uid in cluster.pending:
                steps.append(CycleStep("skip_pod", (uid,)))
            if uid in cluster.api_pods:
                steps.append(CycleStep("delete_pod", (uid,)))
                if self.terminations and not cluster.api_pods[uid].terminating:
                    steps.append(CycleStep("terminate_pod", (uid,)))
                if self.kubelet and uid not in cluster.admitted and cluster.api_pods[uid].node_name:
                    steps.append(CycleStep("admit_pod", (uid,)))
            if uid in cluster.orphaned:
                steps.extend((CycleStep("land_orphaned_bind", (uid,)), CycleStep("drop_orphaned_bind", (uid,))))
        if self.crashes:
            steps.extend(self.lifetime_steps(cluster))
        for name in self.node_names:
            variants = [cycle_node(name, v) for v in range(self.node_variants)]
            info = cluster.cache.nodes.get(name)
            if info is None or info.node is None:
                steps.extend(CycleStep("add_node", (n,)) for n in variants)
            else:
                steps.extend(CycleStep("update_node", (n,)) for n in variants if n != info.node)
                steps.append(CycleStep("remove_node", (name,)))
        if cluster.cache.ttl > 0 and cluster.now + self.tick <= self.horizon:
            steps.append(CycleStep("tick", (self.tick,)))
        return steps

    def lifetime_steps(self, cluster: Cluster) -> list[CycleStep]:
        """The scheduler process's steps: crash; restart (once the orphaned requests were answered, unless
        ``late_binds``); deliver the next listed node or pod."""
        if not cluster.running:
            return [CycleStep("restart_scheduler")] if self.late_binds or not cluster.orphaned else []
        steps = [CycleStep("crash_scheduler")]
        if cluster.unlisted_nodes:
            steps.append(CycleStep("list_node"))
        if cluster.unlisted_pods:
            steps.append(CycleStep("list_pod"))
        return steps


SCHEDULING_FAILURES: Final = (FailurePoint.RESERVE,)
"""A rejection at Permit is the same transition as at Reserve in :func:`spec.cycle.cycle.fail_scheduling`
(the point only selects the case), so the checker tries Reserve alone."""
BINDING_FAILURES: Final = (FailurePoint.PRE_BIND, FailurePoint.BIND)


def rename_step(step: CycleStep, renaming: Renaming) -> CycleStep:
    """``step`` with its UIDs, pods, node names and nodes renamed."""

    def arg(value: Any) -> Any:
        if isinstance(value, Pod):
            return rename_pod(value, renaming)
        if isinstance(value, Node):
            return rename_node(value, renaming)
        if isinstance(value, str):
            return renaming.pods.get(value, renaming.nodes.get(value, value))
        return value

    return CycleStep(step.name, tuple(arg(a) for a in step.args))


def rename_cluster(cluster: Cluster, world: World, renaming: Renaming) -> Cluster:
    """``cluster`` with its cache and snapshot replaced by ``world``'s and every other UID renamed, without what the
    failure handler wrote (:attr:`spec.cycle.cycle.Cluster.failures`: no transition reads it, and its messages would
    split states that behave alike)."""
    if renaming.is_identity:
        return replace(cluster, cache=world.cache, snapshot=world.snapshot, failures=FrozenMap())

    def uid(value: str) -> str:
        return renaming.pods.get(value, value)

    def pods(values: FrozenMap[str, Pod]) -> FrozenMap[str, Pod]:
        return FrozenMap({uid(k): rename_pod(p, renaming) for k, p in values.items()})

    def uids(values: frozenset[str]) -> frozenset[str]:
        return frozenset(uid(u) for u in values)

    def node(value: str) -> str:
        return renaming.nodes.get(value, value)

    return replace(
        cluster,
        cache=world.cache,
        snapshot=world.snapshot,
        pending=pods(cluster.pending),
        binding=pods(cluster.binding),
        api_pods=pods(cluster.api_pods),
        unconfirmed=uids(cluster.unconfirmed),
        deleted=uids(cluster.deleted),
        nodes=FrozenMap({node(k): rename_node(n, renaming) for k, n in cluster.nodes.items()}),
        unlisted_nodes=tuple(node(n) for n in cluster.unlisted_nodes),
        unlisted_pods=tuple(uid(u) for u in cluster.unlisted_pods),
        orphaned=pods(cluster.orphaned),
        bind_count=FrozenMap({uid(k): c for k, c in cluster.bind_count.items()}),
        crashed_in_flight=uids(cluster.crashed_in_flight),
        admitted=uids(cluster.admitted),
        failed=FrozenMap({uid(k): r for k, r in cluster.failed.items()}),
        failures=FrozenMap(),
        nominator=Nominator(
            FrozenMap({node(n): tuple(uid(u) for u in us) for n, us in cluster.nominator.nominated_pods.items()}),
            FrozenMap({uid(u): node(n) for u, n in cluster.nominator.pod_to_node.items()})),
    )


StepFunction = Callable[[Cluster, CycleStep], Cluster]


def apply_step(cluster: Cluster, step: CycleStep) -> Cluster:
    return step.apply(cluster)


class CycleSystem:
    """The scheduling pipeline over a finite universe."""

    def __init__(
        self,
        universe: CycleUniverse,
        *,
        symmetry: bool = True,
        step: StepFunction = apply_step,
        known_violations: bool = False,
    ) -> None:
        self.universe = universe
        self.step = step
        self.known_violations = known_violations
        self.representatives = Representatives((universe.pod_uids, universe.node_names) if symmetry else None)
        self._cache_violations: dict[tuple[CacheState, bool], list[str]] = {}

    def initial_states(self) -> list[Cluster]:
        return self.universe.initial_states()

    def fingerprint(self, representative: Cluster) -> int:
        return fingerprint(representative)

    def within_bounds(self, state: Cluster) -> bool:
        return True

    def canonical(self, state: Cluster) -> tuple[Cluster, object]:
        """The cache's and the snapshot's representatives (:class:`~spec.verify.cache.symmetry.Representatives`,
        one object per value), and the rest of the cluster renamed alike."""
        cache, number = self.representatives.cache(state.cache)
        _, snapshot = self.representatives.snapshot(number, state.snapshot)
        renaming = self.representatives.renamers[number].renaming
        if renaming.is_identity:
            renaming = IDENTITY
        return rename_cluster(state, World(cache, snapshot), renaming), renaming

    def violations(self, state: Cluster) -> list[str]:
        strict = state.cache.ttl == 0 or self.known_violations
        key = (state.cache, strict)
        cache_violations = self._cache_violations.get(key)
        if cache_violations is None:  # a cache recurs in many clusters: its invariants are checked once
            if len(self._cache_violations) >= MEMO_LIMIT:
                self._cache_violations.clear()
            cache_violations = self._cache_violations[key] = violated_state_invariants(state.cache, contract=strict)
        found = list(cache_violations)
        found.extend(p.__name__ for p in (*CYCLE_INVARIANTS, *CLUSTER_INVARIANTS) if not p(state))
        if strict and (not self.universe.late_binds or self.known_violations):
            found.extend(p.__name__ for p in OVERCOMMIT_INVARIANTS if not p(state))
        return found

    def edges(self, state: Cluster) -> Iterator[Edge[Cluster]]:
        for step in self.universe.steps(state):
            try:
                after = self.step(state, step)
            except CycleNotEnabled:
                continue
            label = coverage(step)
            if step.name == "fail_scheduling" and after.deleted != state.deleted:
                label = "fail_scheduling: preempted"
            yield Edge(step, label, after, tuple(self.step_violations(state, step, after)))

    def step_violations(self, before: Cluster, step: CycleStep, after: Cluster) -> list[str]:
        found = []
        if step.name != "crash_scheduler" and not trans_generations_only_grow(before.cache, after.cache):
            found.append(GENERATIONS)
        if step.name == "fail_scheduling" and not trans_failed_scheduling_keeps_the_cache(before, after):
            found.append(FAILED_KEEPS_CACHE)
        if step.name == "fail_scheduling" and not trans_preemption_evicts_only_lower_priority(before, after,
                                                                                             step.args[0]):
            found.append(PREEMPTS_LOWER)
        return found

    def concretize(self, initial: Cluster, path: list[tuple[object, object]], prop: str) -> Violation:
        """Replay ``path`` from ``initial`` with the steps renamed back, so the trace needs no renaming."""
        cluster = initial
        to_rep: Renaming = IDENTITY
        steps = []
        last: tuple[Cluster, CycleStep, Cluster] | None = None
        for label, renaming in path:
            assert isinstance(label, CycleStep)
            step = rename_step(label, to_rep.inverse())
            after = self.step(cluster, step)
            steps.append(TraceStep(describe_step(step), "ok"))
            last = (cluster, step, after)
            cluster = after
            if isinstance(renaming, Renaming):
                to_rep = to_rep.then(renaming)
        reproduced = prop in self.violations(cluster) or (last is not None and prop in self.step_violations(*last))
        final = describe_cluster(cluster)
        if not reproduced:
            final += "\n(NOT reproduced by the replay without renaming: symmetry reduction was inexact here)"
        initial_text = f"new_cluster(profile={initial.cache.profile.name}, ttl={initial.cache.ttl / SECOND:g}s)"
        return Violation(prop, initial_text, tuple(steps), final)


def coverage(step: CycleStep) -> str:
    point = next((a for a in step.args if isinstance(a, FailurePoint)), None)
    if step.name == "fail_scheduling" and point is None:
        return "fail_scheduling: unschedulable"
    return f"{step.name}: " + (f"at {point.value}" if point is not None else "ok")


def describe_step(step: CycleStep) -> str:
    def arg(value: Any) -> str:
        if isinstance(value, Pod):
            cpu = value.containers[0].requests.get("cpu", 0) if value.containers else 0
            return f"{value.uid} ({cpu}m)"
        if isinstance(value, Node):
            kind = "cordoned" if value.unschedulable else ("tainted" if value.taints else "plain")
            return f"{value.name} ({kind})"
        if isinstance(value, FailurePoint):
            return value.value
        if isinstance(value, int) and step.name == "tick":
            return f"{value / SECOND:g}s"
        return str(value)

    return f"{step.name}({', '.join(arg(a) for a in step.args)})"


def describe_cluster(cluster: Cluster) -> str:
    state = cluster.cache
    lines = [
        f"now={cluster.now / SECOND:g}s pending={sorted(cluster.pending)} binding={sorted(cluster.binding)} "
        f"unconfirmed={sorted(cluster.unconfirmed)} deleted={sorted(cluster.deleted)}",
        "api server: " + (", ".join(f"{u}@{p.node_name or '-'}" for u, p in sorted(cluster.api_pods.items())) or "-"),
    ]
    if not cluster.running or cluster.unlisted_nodes or cluster.unlisted_pods:
        lines.append(f"scheduler {'running' if cluster.running else 'down'}; not yet listed: nodes "
                     f"{list(cluster.unlisted_nodes)}, pods {list(cluster.unlisted_pods)}")
    if cluster.orphaned:
        requests = (f"{u}->{p.node_name}" for u, p in sorted(cluster.orphaned.items()))
        lines.append("orphaned bind requests: " + ", ".join(requests))
    if cluster.admitted or cluster.failed:
        lines.append(f"kubelets: admitted {sorted(cluster.admitted)}, rejected "
                     + (", ".join(f"{u} ({r})" for u, r in sorted(cluster.failed.items())) or "none"))
    for uid, ps in sorted(state.pod_states.items()):
        kind = "assumed" if uid in state.assumed_pods else "added"
        deadline = "" if ps.deadline is None else f" deadline={ps.deadline / SECOND:g}s"
        lines.append(f"cache pod {uid}: {kind} on {ps.pod.node_name}{deadline}")
    for name, info in sorted(state.nodes.items()):
        pods = ",".join(p.uid for p in info.pods) or "-"
        lines.append(
            f"NodeInfo {name}: {'live' if info.node else 'no node'}, pods [{pods}], "
            f"requested cpu={info.requested.milli_cpu}m of {info.allocatable.milli_cpu}m"
        )
    return "\n".join(lines)


DEFAULT_CYCLE_UNIVERSE: Final = CycleUniverse()
"""``ksspec check --system cycle`` without arguments: exhausted in a few seconds."""
