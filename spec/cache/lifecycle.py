"""The pod state machine of the cache, as a table: phases, operations, guards and targets.

This is the abstract view of :mod:`spec.cache.cache` that the Kubernetes digest (§3) draws as a
table. It is a second, independent statement of the same behaviour: the stateful tests check
that every concrete transition moves a pod between phases exactly as this table says, and the
documentation draws the state diagram from it.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Final

from spec.cache.cache import CacheState
from spec.errors import ErrorKind, FatalKind
from spec.versions import PROFILES


class PodPhase(StrEnum):
    """Where a pod is in the cache's state machine."""

    ABSENT = "Absent"
    """Not in the cache: never seen, forgotten, expired or removed."""
    ASSUMED = "Assumed"
    """Assumed, binding still in flight: it can never expire."""
    BINDING_FINISHED = "BindingFinished"
    """Assumed and ``FinishBinding`` was called: it may expire past its deadline."""
    ADDED = "Added"
    """Confirmed by the informer."""


class Guard(StrEnum):
    """What besides the phase selects a row."""

    ANY = "any"
    SAME_NODE = "same node"
    """The operation's pod object names the node of the cached object."""
    OTHER_NODE = "other node"
    """It names another, non-empty node."""
    EMPTY_NODE = "empty node name"
    """It names no node while the cached object does."""
    EXPIRED = "deadline passed"
    NOT_EXPIRED = "deadline not passed"


@dataclass(frozen=True)
class PodTransition:
    """One row: in ``source``, with ``guard``, ``operation`` leads to ``target`` or fails."""

    operation: str
    source: PodPhase
    guard: Guard
    target: PodPhase | None = None
    """None when the operation fails (``error``) or the process exits (``fatal``)."""
    error: ErrorKind | None = None
    fatal: FatalKind | None = None
    profiles: frozenset[str] | None = None
    """The version profiles this row belongs to; None for all of them."""


P = PodPhase
G = Guard
TTL_ERA: Final = frozenset(p.name for p in PROFILES.values() if p.assumed_pod_expiry)
FORGET_UNKNOWN_FAILS: Final = frozenset(p.name for p in PROFILES.values() if p.forget_unknown_pod_is_error)
FORGET_UNKNOWN_IS_NO_OP: Final = frozenset(PROFILES) - FORGET_UNKNOWN_FAILS
_IN_CACHE: Final = (P.ASSUMED, P.BINDING_FINISHED, P.ADDED)
_ASSUMED: Final = (P.ASSUMED, P.BINDING_FINISHED)


def _rows() -> tuple[PodTransition, ...]:
    rows: list[PodTransition] = [PodTransition("AssumePod", P.ABSENT, G.ANY, P.ASSUMED)]
    rows += [PodTransition("AssumePod", s, G.ANY, error=ErrorKind.POD_ALREADY_IN_CACHE) for s in _IN_CACHE]
    rows += [
        PodTransition("FinishBinding", P.ABSENT, G.ANY, P.ABSENT, profiles=TTL_ERA),
        PodTransition("FinishBinding", P.ASSUMED, G.ANY, P.BINDING_FINISHED, profiles=TTL_ERA),
        PodTransition("FinishBinding", P.BINDING_FINISHED, G.ANY, P.BINDING_FINISHED, profiles=TTL_ERA),
        PodTransition("FinishBinding", P.ADDED, G.ANY, P.ADDED, profiles=TTL_ERA),
        PodTransition("ForgetPod", P.ABSENT, G.ANY, error=ErrorKind.POD_NOT_ASSUMED, profiles=FORGET_UNKNOWN_FAILS),
        PodTransition("ForgetPod", P.ABSENT, G.ANY, P.ABSENT, profiles=FORGET_UNKNOWN_IS_NO_OP),
        PodTransition("ForgetPod", P.ADDED, G.SAME_NODE, error=ErrorKind.POD_NOT_ASSUMED),
    ]
    rows += [PodTransition("ForgetPod", s, G.SAME_NODE, P.ABSENT) for s in _ASSUMED]
    rows += [
        PodTransition("ForgetPod", s, g, error=ErrorKind.POD_ASSUMED_ON_OTHER_NODE)
        for s in _IN_CACHE
        for g in (G.OTHER_NODE, G.EMPTY_NODE)
    ]
    rows += [PodTransition("AddPod", P.ABSENT, G.ANY, P.ADDED)]
    rows += [PodTransition("AddPod", s, G.ANY, P.ADDED) for s in _ASSUMED]
    rows += [PodTransition("AddPod", P.ADDED, G.ANY, error=ErrorKind.POD_ALREADY_ADDED)]
    rows += [PodTransition("UpdatePod", P.ABSENT, G.ANY, error=ErrorKind.POD_NOT_ADDED)]
    rows += [PodTransition("UpdatePod", s, G.ANY, error=ErrorKind.ASSUMED_POD_UPDATE) for s in _ASSUMED]
    rows += [
        PodTransition("UpdatePod", P.ADDED, G.SAME_NODE, P.ADDED),
        PodTransition("UpdatePod", P.ADDED, G.OTHER_NODE, fatal=FatalKind.POD_UPDATED_ON_OTHER_NODE),
        PodTransition("UpdatePod", P.ADDED, G.EMPTY_NODE, fatal=FatalKind.POD_UPDATED_ON_OTHER_NODE),
        PodTransition("RemovePod", P.ABSENT, G.ANY, error=ErrorKind.POD_NOT_FOUND_FOR_REMOVAL),
    ]
    rows += [PodTransition("RemovePod", s, g, P.ABSENT) for s in _IN_CACHE for g in (G.SAME_NODE, G.EMPTY_NODE)]
    rows += [
        PodTransition("RemovePod", s, G.OTHER_NODE, fatal=FatalKind.POD_REMOVED_FROM_OTHER_NODE) for s in _IN_CACHE
    ]
    rows += [
        PodTransition("CleanupAssumedPods", s, G.ANY, s, profiles=TTL_ERA) for s in (P.ABSENT, P.ASSUMED, P.ADDED)
    ]
    rows += [
        PodTransition("CleanupAssumedPods", P.BINDING_FINISHED, G.EXPIRED, P.ABSENT, profiles=TTL_ERA),
        PodTransition("CleanupAssumedPods", P.BINDING_FINISHED, G.NOT_EXPIRED, P.BINDING_FINISHED, profiles=TTL_ERA),
    ]
    return tuple(rows)


POD_TRANSITIONS: Final = _rows()
"""The whole table; for each (operation, source, guard, profile) at most one row applies."""


def pod_phase(state: CacheState, uid: str) -> PodPhase:
    """The phase of the pod with ``uid`` in ``state``."""
    current = state.pod_states.get(uid)
    if current is None:
        return PodPhase.ABSENT
    if uid not in state.assumed_pods:
        return PodPhase.ADDED
    return PodPhase.BINDING_FINISHED if current.binding_finished else PodPhase.ASSUMED


def node_guard(cached_node: str | None, argument_node: str) -> Guard:
    """How the operation's node name relates to the cached object's (SAME_NODE if not cached)."""
    if cached_node is None or cached_node == argument_node:
        return Guard.SAME_NODE
    return Guard.EMPTY_NODE if argument_node == "" else Guard.OTHER_NODE


def expected_transition(profile: str, operation: str, source: PodPhase, guard: Guard) -> PodTransition | None:
    """The row for this situation: an exact guard match first, then an ``any`` row; None if no row."""
    candidates = [
        row
        for row in POD_TRANSITIONS
        if row.operation == operation
        and row.source == source
        and (row.profiles is None or profile in row.profiles)
    ]
    exact = [row for row in candidates if row.guard == guard]
    fallback = [row for row in candidates if row.guard == Guard.ANY]
    found = exact or fallback
    return found[0] if found else None
