"""The finite universe of the scheduling-queue model checker and the states it explores.

A :class:`QueueModel` is a :class:`~spec.queue.operations.QueueWorld` and the scheduler's and
informer's side of it (which pod is in its scheduling cycle, which wait on Permit, which pods were
added, updated, are gone, and the budgets used); a :class:`QueueUniverse` says what may happen.
:mod:`spec.verify.queue.system` explores it; :mod:`spec.verify.queue.representatives` merges states
no property tells apart.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Final

from spec.frozenmap import FrozenMap
from spec.objects import Container, Pod, Toleration
from spec.quantities import SECOND, Duration, resource_list
from spec.queue.backoff import BACKOFF_Q_ORDERING_WINDOW
from spec.queue.events import EVENT_ASSIGNED_POD_DELETE, ActionType, ClusterEvent, EventResource
from spec.queue.invariants import inv_attempting_pod_not_queued, inv_no_lost_wake_up, inv_pod_in_one_sub_queue
from spec.queue.operations import QueueWorld
from spec.queue.state import new_scheduling_queue
from spec.versions import DEFAULT_PROFILE, VersionProfile

NODE_TAINT_UPDATE: Final = ClusterEvent(EventResource.NODE, ActionType.UPDATE_NODE_TAINT)
EVENTS: Final = (EVENT_ASSIGNED_POD_DELETE, NODE_TAINT_UPDATE)
"""A pod deleted from a node (NodeResourcesFit's and NodePorts' hints queue) and a node's taints
changed (NodeUnschedulable's and TaintToleration's)."""


@dataclass(frozen=True)
class Failure:
    """How an attempt fails: the plugins that rejected it (none: an error)."""

    name: str
    unschedulable: frozenset[str] = frozenset()
    pending: frozenset[str] = frozenset()


FIT: Final = Failure("NodeResourcesFit", frozenset({"NodeResourcesFit"}))
TAINT: Final = Failure("TaintToleration", frozenset({"TaintToleration"}))
PENDING: Final = Failure("NodeUnschedulable pending", pending=frozenset({"NodeUnschedulable"}))
"""A Pending status (no default plugin returns one; DRA and volume plugins do): the queue only cares that a
Pending plugin's hint queues the pod at once, and NodeUnschedulable registered the taint and toleration events."""
ERROR: Final = Failure("error")
FAILURES: Final = (FIT, TAINT, ERROR, PENDING)
TOLERATION: Final = Toleration("dedicated", "Exists")
CYCLE_RULES: Final = ("current", "attempt")


def universe_pod(uid: str, updated: bool = False) -> Pod:
    """The pod of the universe: 200m CPU; once updated, 100m and a toleration (one update that is
    both ``UpdatePodScaleDown``, which NodeResourcesFit registered, and ``UpdatePodToleration``,
    which TaintToleration and NodeUnschedulable registered)."""
    if updated:
        return Pod(uid, uid, containers=(Container("c", resource_list(cpu=100)),), tolerations=(TOLERATION,))
    return Pod(uid, uid, containers=(Container("c", resource_list(cpu=200)),))


@dataclass(frozen=True)
class QueueUniverse:
    """The finite universe of the queue checker, as set on the command line."""

    pods: int = 2
    pops: int = 1
    """Pops per pod."""
    events: int = 1
    """Cluster events per run (each of :data:`EVENTS`)."""
    activations: int = 0
    failures: int = 3
    """How many of :data:`FAILURES` an attempt can end in (rejected by NodeResourcesFit, by
    TaintToleration, an error, Pending on NodeUnschedulable)."""
    tick: Duration = 1 * SECOND
    pod_initial_backoff: Duration = 1 * SECOND
    pod_max_backoff: Duration = 2 * SECOND
    pod_max_in_unschedulable: Duration = 1 * SECOND
    flush_period: Duration = 1 * SECOND
    profile: VersionProfile = DEFAULT_PROFILE
    queueing_hints: bool | None = None
    """None: the profile's gate."""
    pop_from_backoff_q: bool | None = None
    cycle_rule: str = "current"
    """What the failure handler passes to a hand-back: ``current`` cycle (Kubernetes) or the ``attempt``'s."""
    close: bool = False
    """Whether ``Close`` may be called (it stops the scheduling loop)."""

    def __post_init__(self) -> None:
        if self.pods < 1 or self.pops < 1:
            raise ValueError(f"the universe needs at least one pod and one pop each, got {self.pods} and {self.pops}")
        if not 1 <= self.failures <= len(FAILURES):
            raise ValueError(f"failures must be between 1 and {len(FAILURES)}, got {self.failures}")
        if self.events < 0 or self.activations < 0:
            raise ValueError("events and activations must not be negative")
        durations = (self.tick, self.pod_initial_backoff, self.pod_max_backoff, self.pod_max_in_unschedulable)
        if any(d <= 0 or d % BACKOFF_Q_ORDERING_WINDOW for d in (*durations, self.flush_period)):
            raise ValueError("the tick and every duration must be positive whole seconds (ordering windows)")
        if self.cycle_rule not in CYCLE_RULES:
            raise ValueError(f"cycle rule must be one of {', '.join(CYCLE_RULES)}, got {self.cycle_rule!r}")

    @cached_property
    def uids(self) -> tuple[str, ...]:
        return tuple(f"p{i}" for i in range(self.pods))

    @cached_property
    def hints_on(self) -> bool:
        return self.profile.queueing_hints if self.queueing_hints is None else self.queueing_hints

    @cached_property
    def popping(self) -> bool:
        return self.profile.pop_from_backoff_q if self.pop_from_backoff_q is None else self.pop_from_backoff_q

    def describe(self) -> str:
        gates = f"QueueingHints {'on' if self.hints_on else 'off'}, PopFromBackoffQ {'on' if self.popping else 'off'}"
        failures = ", ".join(f.name for f in FAILURES[: self.failures])
        return (
            f"{self.pods} pods x {self.pops} pops, {self.events} cluster events, {self.activations} activations, "
            f"failures {{{failures}}}, ticks of {self.tick / SECOND:g}s, "
            f"backoff {self.pod_initial_backoff / SECOND:g}-{self.pod_max_backoff / SECOND:g}s, leftover after "
            f"{self.pod_max_in_unschedulable / SECOND:g}s every {self.flush_period / SECOND:g}s; {gates}; hand-back "
            f"cycle: {self.cycle_rule}; profile {self.profile.name}"
        )

    def initial_world(self) -> QueueWorld:
        return QueueWorld(
            new_scheduling_queue(
                self.profile,
                queueing_hints=self.hints_on,
                pop_from_backoff_q=self.popping,
                pod_initial_backoff=self.pod_initial_backoff,
                pod_max_backoff=self.pod_max_backoff,
                pod_max_in_unschedulable_pods_duration=self.pod_max_in_unschedulable,
                unschedulable_flush_period=self.flush_period,
            )
        )

    @cached_property
    def oldest_age(self) -> Duration:
        """An age past every duration a timestamp is compared with (backoff, the leftover maximum plus
        a flush period, as :func:`~spec.queue.invariants.inv_unschedulable_pods_leave_in_time` reads it)."""
        return max(self.pod_max_backoff, self.pod_max_in_unschedulable + self.flush_period) + self.tick

    @cached_property
    def time_base(self) -> Duration:
        """The smallest multiple of the flush period that is at least :attr:`oldest_age`."""
        return -(-self.oldest_age // self.flush_period) * self.flush_period

    def known_violations(self) -> frozenset[str]:
        """The invariants Kubernetes breaks in this universe's setting."""
        known = set()
        if not self.popping:
            known.add(inv_pod_in_one_sub_queue.__name__)
            # Its consequence, once the checker goes on past it: Delete takes the pod out of backoffQ only and
            # leaves it in unschedulablePods with the update events that woke it (a deleted pod, never retried).
            known.add(inv_no_lost_wake_up.__name__)
        if not self.hints_on:
            known.add(inv_attempting_pod_not_queued.__name__)
            if self.cycle_rule == "current":
                known.add(inv_no_lost_wake_up.__name__)
        return frozenset(known)


@dataclass(frozen=True)
class QueueModel:
    """The queue world and the scheduler's and informer's side of it."""

    world: QueueWorld
    scheduling: str | None = None
    """The pod in its scheduling cycle (cycles are serial)."""
    waiting: frozenset[str] = frozenset()
    """Assumed pods waiting on Permit in their binding cycle."""
    added: frozenset[str] = frozenset()
    updated: frozenset[str] = frozenset()
    gone: frozenset[str] = frozenset()
    """Deleted or bound: the informer sends nothing more for them."""
    pops: FrozenMap[str, int] = field(default_factory=FrozenMap)
    events: int = 0
    activations: int = 0


@dataclass(frozen=True)
class QueueStep:
    """One transition: ``name`` (a queue call, or a scheduler step) with its arguments."""

    name: str
    args: tuple[Any, ...] = ()
