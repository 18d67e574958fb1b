"""Cache operations as data, and one step function that applies any of them.

The transitions in :mod:`spec.cache.cache` and :mod:`spec.cache.snapshot` are ordinary functions that raise.
Tests, the model checker and the conformance generator need every operation as a value and
every outcome as a value; this module provides both, and nothing else.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum

from spec.cache import cache
from spec.cache.cache import CacheErrorAfterChange, CacheState
from spec.cache.snapshot import EMPTY_SNAPSHOT, Snapshot, SnapshotInconsistent, update_snapshot
from spec.errors import CacheError, SchedulerExit
from spec.objects import Node, Pod
from spec.quantities import Timestamp
from spec.valuetypes import cached_hash


@dataclass(frozen=True)
class AssumePod:
    """:func:`spec.cache.cache.assume_pod`."""

    pod: Pod


@dataclass(frozen=True)
class FinishBinding:
    """:func:`spec.cache.cache.finish_binding`."""

    pod: Pod
    now: Timestamp


@dataclass(frozen=True)
class ForgetPod:
    """:func:`spec.cache.cache.forget_pod`."""

    pod: Pod


@dataclass(frozen=True)
class AddPod:
    """:func:`spec.cache.cache.add_pod`."""

    pod: Pod


@dataclass(frozen=True)
class UpdatePod:
    """:func:`spec.cache.cache.update_pod`."""

    old: Pod
    new: Pod


@dataclass(frozen=True)
class RemovePod:
    """:func:`spec.cache.cache.remove_pod`."""

    pod: Pod


@dataclass(frozen=True)
class AddNode:
    """:func:`spec.cache.cache.add_node`."""

    node: Node


@dataclass(frozen=True)
class UpdateNode:
    """:func:`spec.cache.cache.update_node`."""

    old: Node | None
    new: Node


@dataclass(frozen=True)
class RemoveNode:
    """:func:`spec.cache.cache.remove_node`."""

    node: Node


@dataclass(frozen=True)
class CleanupAssumedPods:
    """:func:`spec.cache.cache.cleanup_assumed_pods`."""

    now: Timestamp


@dataclass(frozen=True)
class UpdateSnapshot:
    """:func:`spec.cache.snapshot.update_snapshot` on the world's snapshot."""


Operation = (
    AssumePod
    | FinishBinding
    | ForgetPod
    | AddPod
    | UpdatePod
    | RemovePod
    | AddNode
    | UpdateNode
    | RemoveNode
    | CleanupAssumedPods
    | UpdateSnapshot
)
"""Every operation that changes the cache or the snapshot."""


class Status(StrEnum):
    """How an operation ended."""

    OK = "ok"
    ERROR = "error"
    """The operation returned an error (``Outcome.changed`` says whether it changed anything)."""
    FATAL = "fatal"
    """The scheduler process would have exited; the world after it is not defined."""


@dataclass(frozen=True)
class Outcome:
    """The result of one operation: a status, and for errors and exits their kind and message."""

    status: Status
    kind: str | None = None
    message: str = ""
    changed: bool = False
    """For an error: whether Kubernetes changed the state before returning it."""


OK = Outcome(Status.OK)


@cached_hash
@dataclass(frozen=True)
class World:
    """The cache and the scheduling cycle's snapshot: everything the operations act on."""

    cache: CacheState = field(default_factory=CacheState)
    snapshot: Snapshot = EMPTY_SNAPSHOT


def _apply_to_cache(state: CacheState, op: Operation) -> CacheState:
    match op:
        case AssumePod(pod):
            return cache.assume_pod(state, pod)
        case FinishBinding(pod, now):
            return cache.finish_binding(state, pod, now)
        case ForgetPod(pod):
            return cache.forget_pod(state, pod)
        case AddPod(pod):
            return cache.add_pod(state, pod)
        case UpdatePod(old, new):
            return cache.update_pod(state, old, new)
        case RemovePod(pod):
            return cache.remove_pod(state, pod)
        case AddNode(node):
            return cache.add_node(state, node)
        case UpdateNode(old_node, new_node):
            return cache.update_node(state, old_node, new_node)
        case RemoveNode(node):
            return cache.remove_node(state, node)
        case CleanupAssumedPods(now):
            return cache.cleanup_assumed_pods(state, now)
    raise TypeError(f"not a cache operation: {op!r}")


def apply(world: World, op: Operation) -> tuple[World, Outcome]:
    """Apply ``op`` to ``world``; return the next world and the outcome. Never raises for a valid op.

    An ordinary error leaves the world unchanged; an error Kubernetes returns after changing
    state yields that changed state; a process exit returns the world unchanged with status
    FATAL, and callers must not continue from it.
    """
    try:
        if isinstance(op, UpdateSnapshot):
            return World(world.cache, update_snapshot(world.cache, world.snapshot)), OK
        return World(_apply_to_cache(world.cache, op), world.snapshot), OK
    except SnapshotInconsistent as error:
        changed = error.snapshot_after != world.snapshot
        return World(world.cache, error.snapshot_after), Outcome(Status.ERROR, error.kind, error.message, changed)
    except CacheErrorAfterChange as error:
        return World(error.state_after, world.snapshot), Outcome(Status.ERROR, error.kind, error.message, True)
    except CacheError as error:
        return world, Outcome(Status.ERROR, error.kind, error.message)
    except SchedulerExit as error:
        return world, Outcome(Status.FATAL, error.kind, error.message)
